"""``session.jsonl``: one opencode message ``{info, parts}`` per line.

Lines are streamed, so a session of any size is read in bounded memory.  A file
may hold several sessions; consecutive lines of one ``sessionID`` form one
:class:`~logparse.source.SourceSession`.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from logparse.models import Problem
from logparse.opencode._lines import first_record, json_records, safe_text
from logparse.source import RawMessage, SourceSession, TranscriptReader


def is_message_record(obj: Any) -> bool:
    return isinstance(obj, dict) and isinstance(obj.get("info"), dict) and "parts" in obj


class JsonlReader(TranscriptReader):
    form = "jsonl"
    description = "JSONL, one opencode message {info, parts} per line"
    sessions_may_repeat = True
    """Lines of several sessions may interleave: a session can come back after another."""

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        if b"{" not in head:
            return False
        return is_message_record(first_record(path))

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        records = self._records(path, problems)
        pending: list[RawMessage] = []
        for msg in records:
            pending.append(msg)
            break
        while pending:
            first = pending.pop()
            sid = str(first.info.get("sessionID") or "")
            run = _SessionRun(first, records, sid)
            if session_ids is None or sid in session_ids:
                yield SourceSession(session_id=sid, form=self.form, path=str(path), messages=run)
            for _ in run:  # drain whatever the consumer did not read
                pass
            if run.next_first is not None:
                pending.append(run.next_first)

    def _records(self, path: Path, problems: list[Problem]) -> Iterator[RawMessage]:
        spath = str(path)
        for n, body, obj, reason in json_records(path, problems, is_message_record,
                                                 "an opencode message record {info, parts}"):
            info = obj["info"]
            if not isinstance(info.get("id"), str) or not info.get("sessionID"):
                problems.append(Problem(path=spath, line=n, raw=safe_text(body),
                                        reason="message info has no id or sessionID"))
                continue
            parts = obj["parts"]
            verbatim = True
            if not isinstance(parts, list):
                problems.append(Problem(path=spath, line=n, record=info["id"],
                                        reason="parts is not a list; kept raw"))
                parts, verbatim = [], False
            if reason:  # salvaged (invalid UTF-8 replaced)
                problems.append(Problem(path=spath, line=n, record=info["id"], reason=reason))
                body, verbatim = orjson.dumps(obj), False
            yield RawMessage(info=info, parts=parts, raw=body, line=n, verbatim=verbatim)


class _SessionRun:
    """Iterates the consecutive records of one session, stopping at the next session."""

    def __init__(self, first: RawMessage, records: Iterator[RawMessage], sid: str) -> None:
        self._first: RawMessage | None = first
        self._records = records
        self._sid = sid
        self.next_first: RawMessage | None = None
        self._done = False

    def __iter__(self) -> Iterator[RawMessage]:
        if self._first is not None:
            first, self._first = self._first, None
            yield first
        if self._done:
            return
        for msg in self._records:
            if msg.info.get("sessionID") != self._sid:
                self.next_first = msg
                break
            yield msg
        self._done = True
