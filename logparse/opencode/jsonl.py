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
from logparse.opencode._lines import LineCursor, first_record, iter_lines, parse_line, safe_text
from logparse.resume import Diverged, Resume
from logparse.source import RawMessage, SourceSession, TranscriptReader

RESUME_VERSION = "jsonl/1"
_EXPECTED = "an opencode message record {info, parts}"


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

    resume: Resume | None = None
    """Where a reading of the file grown since may continue (set once the file was read
    to its end, if it holds one session: the reader holds nothing back, so its state is
    the session's id)."""
    resume_mark: str | None = None
    """The first message read from a line not read whole (a last line without newline)."""

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None,
        resume: Resume | None = None,
    ) -> Iterator[SourceSession]:
        """With ``resume``: the file read on from there (:class:`Diverged` when the appended
        lines name another session: read it whole)."""
        self.resume = None
        self.resume_mark = None
        cursor = LineCursor()
        if resume is not None and resume.reader != RESUME_VERSION:
            raise Diverged("another reader version")
        records = self._records(path, problems, cursor, resume)
        pending: list[RawMessage] = []
        for msg in records:
            pending.append(msg)
            break
        runs = 0
        sid = ""
        while pending:
            first = pending.pop()
            sid = str(first.info.get("sessionID") or "")
            if resume is not None and sid != resume.session_id:
                raise Diverged("another session in the appended lines")
            runs += 1
            run = _SessionRun(first, records, sid)
            if session_ids is None or sid in session_ids:
                yield SourceSession(session_id=sid, form=self.form, path=str(path), messages=run)
            for _ in run:  # drain whatever the consumer did not read
                pass
            if run.next_first is not None:
                pending.append(run.next_first)
        if (runs == 1 or (runs == 0 and resume is not None)) and cursor.ok:
            offset, line = cursor.at
            self.resume = Resume(reader=RESUME_VERSION, offset=offset, line=line,
                                 state={"sid": sid or (resume.session_id if resume else "")},
                                 session_id=sid or (resume.session_id if resume else ""),
                                 first_line=line, end_problems=[])

    def _records(self, path: Path, problems: list[Problem], cursor: LineCursor,
                 resume: Resume | None) -> Iterator[RawMessage]:
        spath = str(path)
        start = (resume.offset, resume.line) if resume is not None else None
        for n, body, had_nl in iter_lines(path, cursor, start):
            obj, reason = parse_line(body, had_nl)
            if obj is None:
                problems.append(Problem(path=spath, line=n, reason=reason or "unreadable",
                                        raw=safe_text(body)))
                continue
            if not is_message_record(obj):
                problems.append(Problem(path=spath, line=n, raw=safe_text(body),
                                        reason=f"not {_EXPECTED}"))
                continue
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
            if not had_nl and self.resume_mark is None:
                self.resume_mark = info["id"]  # read again when the file grows
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
