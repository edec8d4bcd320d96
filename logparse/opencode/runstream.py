"""The ``opencode run --format json`` event stream.

One JSON object per line: ``{"type", "timestamp", "sessionID", "part" | "error"}``
with ``type`` in ``step_start``, ``text``, ``reasoning``, ``tool_use``,
``step_finish`` and ``error``.  Each ``step_start`` … ``step_finish`` is one
assistant message (the parts carry its ``messageID``).

The stream never contains user messages.  Their places are inferred so that
ordinals match the session: a user message precedes the first step and every
step that follows a step which ended its turn (``finish`` other than
``tool-calls``/``unknown``, or an ``error`` event).  Such a session is marked
incomplete: its prompts are unknown.  Subagent activity is not streamed.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from logparse.models import Problem
from logparse.opencode._lines import first_record, json_records
from logparse.source import RawMessage, SourceSession, TranscriptReader

STREAM_TYPES = frozenset({"step_start", "text", "reasoning", "tool_use", "step_finish", "error"})
CONTINUING = frozenset({"tool-calls", "unknown"})


def is_stream_event(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("type"), str) \
        and obj["type"] in STREAM_TYPES and "sessionID" in obj


class RunStreamReader(TranscriptReader):
    form = "run"
    description = "opencode run --format json event stream"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        if b"{" not in head:
            return False
        return is_stream_event(first_record(path))

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        # Streams are small next to the sessions they describe, and several runs of
        # one session may be concatenated, so group events by session first.
        by_session: dict[str, list[tuple[int, dict[str, Any]]]] = {}
        spath = str(path)
        for n, _body, obj, reason in json_records(path, problems, is_stream_event,
                                                  "an opencode run event"):
            if reason:
                problems.append(Problem(path=spath, line=n, reason=reason))
            by_session.setdefault(obj["sessionID"], []).append((n, obj))
        for sid, events in by_session.items():
            if session_ids is not None and sid not in session_ids:
                continue
            yield SourceSession(session_id=sid, form=self.form, path=spath, complete=False,
                                messages=self._messages(sid, events, spath, problems))

    def _messages(self, sid: str, events: list[tuple[int, dict[str, Any]]], spath: str,
                  problems: list[Problem]) -> Iterator[RawMessage]:
        cur: dict[str, Any] | None = None  # {"info", "parts", "line"}
        turn_open = False

        def finish() -> Iterator[RawMessage]:
            nonlocal cur
            if cur is not None:
                # the stream emits a text part when it ends, after tools that started
                # later; opencode orders parts by id
                cur["parts"].sort(key=lambda p: str(p.get("id", "")))
                msg = {"info": cur["info"], "parts": cur["parts"]}
                yield RawMessage(info=cur["info"], parts=cur["parts"], line=cur["line"],
                                 record=cur["info"]["id"], raw=orjson.dumps(msg))
                cur = None

        for n, ev in events:
            typ = ev["type"]
            ts = ev.get("timestamp")
            if typ == "error":
                if cur is None:
                    problems.append(Problem(path=spath, line=n, raw=orjson.dumps(ev).decode(),
                                            reason="error event outside any step"))
                    continue
                cur["info"]["error"] = ev.get("error")
                yield from finish()
                turn_open = False
                continue
            part = ev.get("part")
            if not isinstance(part, dict) or not isinstance(part.get("messageID"), str):
                problems.append(Problem(path=spath, line=n, raw=orjson.dumps(ev).decode(),
                                        reason=f"{typ} event without a part.messageID"))
                continue
            mid = part["messageID"]
            if cur is None or cur["info"]["id"] != mid:
                yield from finish()
                if not turn_open:
                    created = (ts or 0) - 1
                    uinfo = {"role": "user", "time": {"created": created},
                             "id": f"{mid}~user", "sessionID": sid}
                    yield RawMessage(info=uinfo, parts=[], inferred=True, line=n,
                                     raw=orjson.dumps({"info": uinfo, "parts": []}))
                    turn_open = True
                cur = {"info": {"role": "assistant", "time": {"created": ts},
                                "id": mid, "sessionID": sid},
                       "parts": [], "line": n}
            cur["parts"].append(part)
            if typ == "step_finish":
                info = cur["info"]
                info["finish"] = part.get("reason")
                info["time"]["completed"] = ts
                if isinstance(part.get("tokens"), dict):
                    info["tokens"] = part["tokens"]
                if "cost" in part:
                    info["cost"] = part["cost"]
                if part.get("reason") not in CONTINUING:
                    turn_open = False
                yield from finish()
        yield from finish()
