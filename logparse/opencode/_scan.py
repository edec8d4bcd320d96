"""A streaming scanner for one large JSON document: an ``opencode export``.

An export is one JSON value ``{"info": {…}, "messages": [{…}, …]}``.  Parsing it
whole costs memory in proportion to the file and loses every message when one
byte is damaged.  This scanner walks the document's structure instead (C-speed
regular expressions jump from one bracket or string to the next; strings are
skipped in one match) and hands each top-level value, and each element of the
``messages`` array, to orjson on its own.  So memory is bounded by the largest
message plus one read chunk, and damage costs only what it touches:

* a message that is not valid JSON is reported with its byte offset and skipped,
  unless it is read as a JSON-lines record is salvaged (invalid UTF-8 replaced with
  U+FFFD, a value orjson refuses read leniently: :func:`logparse.opencode._lines.
  parse_line`): then it is read, and the event says why (``reason``);
* where the structure itself breaks (a truncated file, a flipped quote or
  bracket) the scanner reports the offset and looks for the start of the next
  message (``{"info": {`` outside any string) and carries on from there.

Every message yielded parsed completely on its own, so salvage never invents a
message; at worst it loses the ones the damage overlaps.

Why not ``ijson``: it is not a dependency here, its pure-Python backend is slower
than this scanner and its C backend stops at the first error without a way to
resume; neither tells where the damage ends.
"""

from __future__ import annotations

import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass
from typing import IO, Any

import orjson

CHUNK = 1 << 20
_STRUCT = re.compile(rb'[{}\[\]"]')
_STR_BODY = re.compile(rb'[^"\\]*(?:\\.[^"\\]*)*', re.S)
_WS = re.compile(rb"[ \t\r\n]*")
_SCALAR_END = re.compile(rb"[,\]}\s]")
_MSG_START = re.compile(rb'\{\s*"info"\s*:\s*\{')
_OPEN, _CLOSE = frozenset(b"{["), frozenset(b"}]")
PREFIX_LINES = 5
PREFIX_LINE_BYTES = 512


class _Broken(Exception):
    def __init__(self, pos: int, reason: str) -> None:
        super().__init__(reason)
        self.pos = pos
        self.reason = reason


@dataclass(slots=True)
class Event:
    """``kind`` is ``key`` (a top-level key and its parsed value), ``message`` (one
    element of ``messages``) or ``damage`` (what could not be read, with its raw bytes)."""

    kind: str
    offset: int
    key: str | None = None
    value: Any = None
    raw: bytes = b""
    end: int | None = None
    reason: str = ""


def _salvaged(span: bytes, offset: int) -> tuple[Any, str]:
    """A message orjson refused (``span``, at file byte ``offset``), read as a JSON-lines
    record is salvaged (invalid UTF-8 replaced with U+FFFD, a lone surrogate, a number no
    column holds): ``(value, what was done)``, or ``(None, "")`` when it is damage."""
    from logparse.opencode._lines import parse_line

    value, why = parse_line(span, True)
    if value is None or not isinstance(value, dict):
        return None, ""
    # the byte parse_line names is the message's: the file's, as every offset said here
    return value, _AT_BYTE.sub(lambda m: f"at byte {offset + int(m[1])}",
                               why or "read leniently")


_AT_BYTE = re.compile(r"at byte (\d+)")


class ExportScanner:
    """Scans one JSON object from ``f`` (UTF-8 bytes); ``base`` = file offset of ``f``'s
    first byte, so reported offsets are offsets in the file."""

    def __init__(self, f: IO[bytes], base: int = 0,
                 msg_start: re.Pattern[bytes] = _MSG_START) -> None:
        self.f = f
        self.msg_start = msg_start
        """Where a message of the list starts (reading resumes there after damage)."""
        self.buf = b""
        self.off = base  # file offset of buf[0]
        self.pos = 0
        self.eof = False
        self._close: bytes | None = None  # "\n" + indent + "}" of a pretty-printed element

    # ------------------------------------------------------------ buffer
    def _more(self) -> bool:
        if self.eof:
            return False
        chunk = self.f.read(CHUNK)
        if not chunk:
            self.eof = True
            return False
        self.buf += chunk
        return True

    def _compact(self) -> None:
        if self.pos > CHUNK:
            self.buf = self.buf[self.pos:]
            self.off += self.pos
            self.pos = 0

    def _byte(self, i: int) -> int | None:
        while i >= len(self.buf):
            if not self._more():
                return None
        return self.buf[i]

    def _skip_ws(self, i: int) -> int:
        while True:
            i = _WS.match(self.buf, i).end()  # type: ignore[union-attr]
            if i < len(self.buf) or not self._more():
                return i

    # ------------------------------------------------------------ values
    def _string_end(self, i: int) -> int:
        """``i`` just after an opening quote: the index after the closing quote."""
        start = i - 1
        while True:
            e = _STR_BODY.match(self.buf, i).end()  # type: ignore[union-attr]
            if e < len(self.buf) and self.buf[e] == 0x22:
                return e + 1
            if not self._more():
                raise _Broken(start, "a string runs to the end of the file (truncated)")

    def _value_end(self, i: int) -> int:
        """``i`` at the first byte of a value: the index just after it."""
        c = self._byte(i)
        if c is None:
            raise _Broken(i, "the file ends where a value should start (truncated)")
        if c == 0x22:
            return self._string_end(i + 1)
        if c not in _OPEN:
            while True:
                m = _SCALAR_END.search(self.buf, i)
                if m is not None:
                    return m.start()
                if not self._more():
                    return len(self.buf)
        stack = [c]
        j = i + 1
        while True:
            m = _STRUCT.search(self.buf, j)
            if m is None:
                if not self._more():
                    raise _Broken(i, "the value runs to the end of the file (truncated)")
                continue
            k = m.start()
            ch = self.buf[k]
            if ch == 0x22:
                j = self._string_end(k + 1)
                continue
            if ch in _OPEN:
                stack.append(ch)
                j = k + 1
                continue
            opened = stack.pop()
            if (opened == 0x7B) != (ch == 0x7D):
                raise _Broken(k, f"a {chr(opened)!r} closed by {chr(ch)!r}")
            j = k + 1
            if not stack:
                return j

    # ------------------------------------------------------------ prefix
    def skip_prefix(self) -> list[tuple[int, bytes]]:
        """Skip lines before the document that are not JSON (``Exporting session: …``
        that opencode prints on stderr, saved with ``2>&1``); ``[(line, text)]`` of them.

        A status line without a newline (``Exporting session: ses_…{``) is cut at
        its ``{``.  Raises ``ValueError`` when no ``{`` starts within the first lines."""
        skipped: list[tuple[int, bytes]] = []
        line_no = 1
        i = 0
        while len(skipped) <= PREFIX_LINES:
            j = self._skip_ws(i)
            line_no += self.buf.count(b"\n", i, j)
            i = j
            c = self._byte(i)
            if c is None:
                break
            if c == 0x7B:
                self.pos = i
                return skipped
            nl = self.buf.find(b"\n", i)
            while nl < 0 and self._more():
                nl = self.buf.find(b"\n", i)
            end = nl if nl >= 0 else len(self.buf)
            if end - i > PREFIX_LINE_BYTES:
                break
            brace = self.buf.find(b"{", i, end)
            if brace >= 0:
                skipped.append((line_no, self.buf[i:brace]))
                self.pos = brace
                return skipped
            skipped.append((line_no, self.buf[i:end].rstrip(b"\r")))
            if nl < 0:
                break
            i = nl + 1
            line_no += 1
        raise ValueError("no JSON object starts in the first lines")

    # ------------------------------------------------------------ document
    def events(self) -> Iterator[Event]:
        """The top-level keys and messages of the object starting at ``self.pos``."""
        i = self.pos + 1  # after the opening brace
        seen_messages = False
        while True:
            i = self._skip_ws(i)
            c = self._byte(i)
            if c is None:
                yield Event("damage", self.off + i, reason="the file ends inside the "
                            "top-level object (truncated)")
                return
            if c == 0x7D:
                return
            if c == 0x2C:
                i += 1
                continue
            if c != 0x22:
                yield from self._resync(i, f"unexpected {chr(c)!r} between top-level keys")
                return
            kstart = i
            try:
                kend = self._string_end(i + 1)
                key = orjson.loads(self.buf[i:kend])
                i = self._skip_ws(kend)
                if self._byte(i) != 0x3A:
                    raise _Broken(i, "a top-level key without ':'")
                i = self._skip_ws(i + 1)
                if self._byte(i) == 0x5B and (key == "messages" or (
                        not seen_messages and key not in ("info", "data"))):
                    if key != "messages":
                        yield Event("damage", self.off + kstart,
                                    key=str(key), reason=f"a top-level list under {key!r}, "
                                    "not 'messages' (a damaged key?); read as the messages")
                    seen_messages = True
                    self.pos = i + 1
                    done = yield from self._messages()
                    if not done:
                        return
                    i = self.pos
                    continue
                end = self._value_end(i)
            except _Broken as e:
                yield from self._resync(kstart, e.reason, at=e.pos)
                return
            span = self.buf[i:end]
            try:
                value = orjson.loads(span)
            except orjson.JSONDecodeError as e:
                yield Event("damage", self.off + i, key=str(key), raw=span,
                            end=self.off + end, reason=f"the value of {key!r} is not valid "
                            f"JSON ({e})")
            else:
                yield Event("key", self.off + i, key=str(key), value=value)
            i = end

    def _messages(self) -> Generator[Event, None, bool]:
        """Elements of the messages array from ``self.pos``; returns True after its ``]``
        (``self.pos`` then after it), False when the rest of the file is consumed."""
        while True:
            self._compact()
            i = self._skip_ws(self.pos)
            c = self._byte(i)
            if c is None:
                yield Event("damage", self.off + i, reason="the file ends inside the "
                            "messages list (truncated)")
                return False
            if c == 0x5D:
                self.pos = i + 1
                return True
            if c == 0x2C:
                self.pos = i + 1
                continue
            if c != 0x7B:
                found = yield from self._resync(i, f"unexpected {chr(c)!r} in the messages "
                                                "list", inside=True)
                if not found:
                    return False
                continue
            if self._close is None:
                ws = self.buf[self.pos:i]
                nl = ws.rfind(b"\n")
                self._close = b"\n" + ws[nl + 1:] + b"}" if nl >= 0 else b""
            if self._close:
                # JSON.stringify(…, null, 2): a raw newline never occurs inside a string,
                # so the element ends at the first newline + its indent + "}"; a span
                # that does not parse is damage, and the next message starts after it
                end = self._pretty_end(i)
                if end is None:
                    found = yield from self._resync(i, "the message runs to the end of the "
                                                    "file (truncated)", inside=True)
                    if not found:
                        return False
                    continue
                why = ""
                try:
                    value = orjson.loads(self.buf[i:end])
                except orjson.JSONDecodeError as e:
                    value, why = _salvaged(self.buf[i:end], self.off + i)
                    if value is None:
                        found = yield from self._resync(
                            i, f"a message is not valid JSON ({e})", inside=True)
                        if not found:
                            return False
                        continue
                yield Event("message", self.off + i, value=value, raw=self.buf[i:end],
                            end=self.off + end, reason=why)
                self.pos = end
                continue
            try:
                end = self._value_end(i)
            except _Broken as e:
                found = yield from self._resync(i, e.reason, inside=True, at=e.pos)
                if not found:
                    return False
                continue
            span = self.buf[i:end]
            why = ""
            try:
                value = orjson.loads(span)
            except orjson.JSONDecodeError as e:
                value, why = _salvaged(span, self.off + i)
                if value is None:
                    found = yield from self._resync(i, f"a message is not valid JSON ({e})",
                                                    inside=True)
                    if not found:
                        return False
                    continue
            yield Event("message", self.off + i, value=value, raw=span, end=self.off + end,
                        reason=why)
            self.pos = end

    def _pretty_end(self, i: int) -> int | None:
        pat = self._close
        assert pat
        j = i
        while True:
            k = self.buf.find(pat, j)
            if k >= 0:
                return k + len(pat)
            j = max(i, len(self.buf) - len(pat))
            if not self._more():
                return None

    def _resync(self, i: int, reason: str, inside: bool = False,
                at: int | None = None) -> Generator[Event, None, bool]:
        """Report damage at ``i`` and move to the next message start after it; True when
        one was found (``self.pos`` there; messages follow), False at the end of file."""
        start_off = self.off + i
        where = f" (at byte {self.off + at})" if at is not None and at != i else ""
        raw_head: bytes | None = None
        j = i + 1
        while True:
            m = self.msg_start.search(self.buf, j)
            if m is not None:
                break
            j = max(j, len(self.buf) - 64)
            if not self._more():
                break
            if j - i > 2 * CHUNK:  # bounded memory: keep the damage's first MB only
                if raw_head is None:
                    raw_head = self.buf[i:i + CHUNK]
                cut = j - 64
                self.buf = self.buf[cut:]
                self.off += cut
                i, j = 0, j - cut
        end = m.start() if m is not None else len(self.buf)
        tail = ("; reading resumes at the next message" if m is not None
                else "; nothing readable follows")
        raw = raw_head if raw_head is not None else self.buf[i:min(end, i + CHUNK)]
        yield Event("damage", start_off, raw=raw, end=self.off + end,
                    reason=f"{reason}{where}{tail}")
        if m is None:
            self.pos = len(self.buf)
            return False
        self.pos = m.start()
        if not inside:
            done = yield from self._messages()
            return done and False
        return True
