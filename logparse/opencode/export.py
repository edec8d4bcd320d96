"""``opencode export``: one (pretty-printed) JSON object ``{info, messages}``.

The document is scanned, not parsed whole (:mod:`logparse.opencode._scan`):
messages are parsed one at a time, so memory is bounded by the largest message,
and a damaged export (truncated, a flipped byte) keeps every message the damage
does not touch; the damage is a problem naming its line and byte offset.  What real tools
put around an export is read too: a UTF-8 or UTF-16 BOM (PowerShell's ``>``),
CRLF line ends, and lines before the JSON such as ``Exporting session: ses_…``
(opencode prints it on stderr; ``2>&1`` saves it), each reported.

Messages are yielded in file order (opencode writes them sorted by
``(time.created, id)``); the store renumbers if they are not.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import orjson

from logparse.models import Problem
from logparse.opencode._lines import first_line, open_decoded, safe_text, sniff_encoding
from logparse.opencode._scan import PREFIX_LINE_BYTES, PREFIX_LINES, Event, ExportScanner
from logparse.safe_open import open_regular
from logparse.source import (
    NotATranscript,
    RawMessage,
    SourceSession,
    TranscriptReader,
)

V2_SHAPE = ("an opencode 2.x session transfer ({\"data\": {\"info\": {…, \"location\"}, "
            "\"messages\": [{\"id\", \"type\", \"content\": [{\"type\": \"tool\", \"name\", "
            "\"provider\": {\"executed\"}}]}]}}, as opencode 2.x's SDK returns "
            "SessionTransfer.Data); logkb reads opencode 1.x sessions, not 2.x yet")


_OBJECT_START = re.compile(rb'\{\s*"(?:info|messages|data)"\s*:')
# after skipped lines, only what opencode itself writes counts as an export's start
_EXPORT_START = re.compile(rb'\{\s*(?:"info"\s*:\s*\{\s*"id"\s*:\s*"ses_|"data"\s*:\s*\{\s*"info")')


def _json_start(head: bytes) -> bytes:
    """``head`` from where the export's JSON object starts: a few short status lines
    before it (``Exporting session: ses_…``, possibly without its newline) are skipped
    when an opencode session object follows them."""
    h = head
    for skipped in range(PREFIX_LINES + 1):
        h = h.lstrip()
        if h.startswith(b"{") or not h:
            return h if not skipped or _EXPORT_START.match(h) else b""
        nl = h.find(b"\n")
        line_end = nl if nl >= 0 else len(h)
        if line_end > PREFIX_LINE_BYTES:
            return b""
        m = _OBJECT_START.search(h, 0, line_end + 64)
        if m is not None and m.start() < line_end:
            return h[m.start():] if _EXPORT_START.match(h, m.start()) else b""
        if nl < 0:
            return b""
        h = h[nl + 1:]
    return b""


def _looks_like_export(head: bytes) -> bool:
    h = _json_start(head)
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
        line = _json_start(first_line(path))
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError:
            return True
        return isinstance(obj, dict) and ("messages" in obj or "data" in obj)

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        spath = str(path)
        with open_regular(path) as raw:
            enc, bom = sniff_encoding(raw.read(4))
        f = open_decoded(path)
        try:
            scanner = ExportScanner(f, base=bom if enc == "utf-8" else 0)
            note = " (offsets in the UTF-8 text of this UTF-16 file)" if enc == "utf-16" else ""
            lines = _LineOf(path if enc == "utf-8" else None)
            try:
                prefix = scanner.skip_prefix()
            except ValueError as e:
                raise NotATranscript(path, str(e)) from None
            for line, text in prefix:
                if text.strip().startswith(b"Exporting session:"):
                    problems.append(Problem(
                        path=spath, line=line, raw=safe_text(text), notice=True,
                        reason="opencode's `Exporting session:` status line before the "
                               "export (saved with 2>&1); skipped, the export is read"))
                    continue
                problems.append(Problem(
                    path=spath, line=line, raw=safe_text(text),
                    reason="not JSON before the export (a status line saved with 2>&1?); "
                           "skipped, the export after it is read"))
            events = scanner.events()
            info: dict[str, Any] | None = None
            first: Event | None = None
            for ev in events:
                if ev.kind == "key":
                    if ev.key == "data":
                        raise NotATranscript(path, V2_SHAPE)
                    if ev.key == "info":
                        info = _check_info(ev.value, path)
                    elif ev.key == "messages":
                        raise NotATranscript(path, "messages is not a list")
                elif ev.kind == "damage":
                    problems.append(_damage(spath, ev, note, lines))
                elif ev.kind == "message":
                    first = ev
                    break
            sid = info.get("id") if info else None
            if not isinstance(sid, str) or not sid:
                sid = _session_of(first)
            if sid is None:
                if first is None and not any(p.path == spath for p in problems):
                    raise NotATranscript(path, "a JSON object without a messages list")
                if first is None:
                    raise NotATranscript(path, "no message could be read: "
                                         + "; ".join(p.reason for p in problems
                                                     if p.path == spath)[:400])
                raise NotATranscript(path, "no session id in info or messages")
            src = SourceSession(session_id=sid, form=self.form, path=spath, messages=(),
                                info=info or None)
            src.messages = self._messages(first, events, src, path, problems, note, lines)
            if session_ids is None or sid in session_ids:
                yield src
            else:
                for _ in src.messages:
                    pass
        finally:
            f.close()

    def _messages(self, first: Event | None, events: Iterator[Event], src: SourceSession,
                  path: Path, problems: list[Problem], note: str, lines: _LineOf
                  ) -> Iterator[RawMessage]:
        spath = str(path)
        pending = [first] if first is not None else []
        n = 0
        for ev in _chain(pending, events):
            if ev.kind == "damage":
                problems.append(_damage(spath, ev, note, lines))
                continue
            if ev.kind == "key":
                if ev.key == "info" and src.info is None:
                    src.info = _check_info(ev.value, path) or None
                continue
            m = ev.value
            n += 1
            if ev.reason:  # salvaged: the message is read, what was replaced is said
                problems.append(Problem(path=spath, line=lines.of(ev.offset),
                                        record=f"byte {ev.offset}",
                                        reason=f"message at byte {ev.offset}{note}: "
                                               f"{ev.reason}"))
            minfo = m.get("info") if isinstance(m, dict) else None
            if not isinstance(minfo, dict) or not isinstance(minfo.get("id"), str):
                problems.append(Problem(path=spath, line=lines.of(ev.offset),
                                        record=f"messages[{n - 1}]",
                                        reason=f"message without info.id (at byte "
                                               f"{ev.offset}{note}); kept raw",
                                        raw=safe_text(ev.raw)))
                continue
            parts = m.get("parts")
            verbatim = isinstance(parts, list)  # m was parsed by orjson: dumps round-trips
            if not verbatim:
                problems.append(Problem(path=spath, record=minfo["id"],
                                        reason="parts is not a list; kept raw"))
                parts = []
            try:
                raw = orjson.dumps(m)
            except orjson.JSONEncodeError:  # nested deeper than orjson writes (254 levels,
                raw, verbatim = ev.raw, False  # it reads 1024): the bytes as they were read
            yield RawMessage(info=minfo, parts=parts, raw=raw, record=minfo["id"],
                             verbatim=verbatim)


def _chain(first: list[Event], rest: Iterator[Event]) -> Iterator[Event]:
    yield from first
    yield from rest


def _check_info(info: Any, path: Path) -> dict[str, Any]:
    if not isinstance(info, dict):
        return {}
    if "location" in info:
        raise NotATranscript(path, "an opencode 2.x export (info.location), which logkb "
                             "does not read yet")
    return info


def _session_of(ev: Event | None) -> str | None:
    if ev is None or not isinstance(ev.value, dict):
        return None
    info = ev.value.get("info")
    sid = info.get("sessionID") if isinstance(info, dict) else None
    return sid if isinstance(sid, str) and sid else None


def _damage(spath: str, ev: Event, note: str, lines: _LineOf) -> Problem:
    span = f"bytes {ev.offset}-{ev.end}" if ev.end is not None else f"byte {ev.offset}"
    return Problem(path=spath, line=lines.of(ev.offset), record=f"byte {ev.offset}",
                   raw=safe_text(ev.raw), reason=f"damaged export at {span}{note}: {ev.reason}")


class _LineOf:
    """The line of a byte offset of the file (the damage of an export is named by line,
    as every other reader's is); offsets come in increasing order, so the file is read
    once however many there are.  ``None`` for a UTF-16 file (offsets are not the
    file's)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.at = 0
        self.line = 1

    def of(self, offset: int) -> int | None:
        if self.path is None:
            return None
        if offset < self.at:
            self.at, self.line = 0, 1
        try:
            with open_regular(self.path) as f:
                f.seek(self.at)
                while self.at < offset:
                    chunk = f.read(min(1 << 20, offset - self.at))
                    if not chunk:
                        break
                    self.line += chunk.count(b"\n")
                    self.at += len(chunk)
        except OSError:
            return None
        return self.line
