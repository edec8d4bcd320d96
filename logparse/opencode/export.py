"""``opencode export``: one (pretty-printed) JSON object ``{info, messages}``.

The whole document must be parsed at once (it is one JSON value), so memory is
about the size of the session.  Messages are sorted by ``(time.created, id)``
as opencode does; parts keep their stored order.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from logparse.models import Problem
from logparse.opencode._lines import first_line
from logparse.source import (
    NotATranscript,
    RawMessage,
    SourceSession,
    TranscriptReader,
    message_sort_key,
)


def _looks_like_export(head: bytes) -> bool:
    h = head.lstrip()
    return h.startswith(b"{") and b'"info"' in h[:4096]


class ExportReader(TranscriptReader):
    form = "export"
    description = "opencode export: one JSON object {info, messages}"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        if not _looks_like_export(head):
            return False
        # A complete first line means JSONL; an export spans many lines (or is one
        # object with "messages").
        line = first_line(path)
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            return True
        return isinstance(obj, dict) and "messages" in obj

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        data = path.read_bytes()
        try:
            doc = orjson.loads(data)
        except orjson.JSONDecodeError as e:
            raise NotATranscript(path, f"invalid JSON: {e}") from None
        if not isinstance(doc, dict) or not isinstance(doc.get("messages"), list):
            raise NotATranscript(path, "a JSON object without a messages list")
        info = doc.get("info") if isinstance(doc.get("info"), dict) else {}
        if "location" in info:
            raise NotATranscript(path, "an opencode 2.x export, which logkb does not read yet")
        del data
        spath = str(path)
        messages: list[RawMessage] = []
        sid = info.get("id")
        for i, m in enumerate(doc["messages"]):
            minfo = m.get("info") if isinstance(m, dict) else None
            if not isinstance(minfo, dict) or not isinstance(minfo.get("id"), str):
                problems.append(Problem(path=spath, record=f"messages[{i}]",
                                        reason="message without info.id", raw=_dump(m)))
                continue
            parts = m.get("parts")
            if not isinstance(parts, list):
                problems.append(Problem(path=spath, record=minfo["id"],
                                        reason="parts is not a list; kept raw"))
                parts = []
            sid = sid or minfo.get("sessionID")
            messages.append(RawMessage(info=minfo, parts=parts, raw=orjson.dumps(m),
                                       record=minfo["id"]))
        if not sid:
            raise NotATranscript(path, "no session id in info or messages")
        messages.sort(key=lambda r: message_sort_key(r.info))
        if session_ids is None or sid in session_ids:
            yield SourceSession(session_id=sid, form=self.form, path=spath, messages=messages,
                                info=info or None)


def _dump(obj: Any) -> str:
    try:
        return orjson.dumps(obj).decode()
    except TypeError:
        return repr(obj)
