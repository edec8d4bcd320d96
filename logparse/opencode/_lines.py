"""Line-oriented JSON reading shared by the JSONL forms (messages and the run stream).

Each line is parsed on its own, so one bad line never costs the others.  Bad
lines come back as a reason string the reader turns into a
:class:`~logparse.models.Problem` that keeps the line's raw text.
"""

from __future__ import annotations

import codecs
import io
import json
import math
import re
from collections.abc import Callable, Generator, Iterator
from pathlib import Path
from typing import IO, Any

import orjson

from logparse.models import Problem
from logparse.safe_open import open_regular

_BOMS = ((codecs.BOM_UTF8, "utf-8"), (codecs.BOM_UTF16_LE, "utf-16"),
         (codecs.BOM_UTF16_BE, "utf-16"))


def sniff_encoding(head: bytes) -> tuple[str, int]:
    """``(encoding, bom_length)`` of a file from its first bytes.

    Real tools write BOMs: PowerShell's ``>`` saves UTF-16 LE with a BOM, some
    editors and ``Out-File -Encoding utf8`` a UTF-8 BOM.  Without a BOM the file is
    read as UTF-8 (invalid bytes are salvaged line by line)."""
    for bom, enc in _BOMS:
        if head.startswith(bom):
            return enc, len(bom)
    return "utf-8", 0


class _Transcoded(io.RawIOBase):
    """A UTF-16 file read as UTF-8 bytes (so every reader sees one encoding)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self._raw = raw
        self._dec = codecs.getincrementaldecoder("utf-16")(errors="replace")
        self._pending = b""

    def readable(self) -> bool:
        return True

    def readinto(self, b: Any) -> int:
        while not self._pending:
            chunk = self._raw.read(1 << 16)
            text = self._dec.decode(chunk, final=not chunk)
            self._pending = text.encode("utf-8", errors="surrogatepass")
            if not chunk:
                break
        n = min(len(b), len(self._pending))
        b[:n] = self._pending[:n]
        self._pending = self._pending[n:]
        return n

    def close(self) -> None:
        self._raw.close()
        super().close()


def open_decoded(path: Path) -> IO[bytes]:
    """A file opened for reading as UTF-8 bytes: a UTF-8 BOM is skipped, UTF-16 (with
    a BOM) is transcoded.  Offsets into it are file offsets except for UTF-16."""
    f = open_regular(path)  # no FIFO, device or socket (logparse.safe_open)
    enc, bom = sniff_encoding(f.read(4))
    f.seek(bom)
    if enc == "utf-16":
        f.seek(0)
        return io.BufferedReader(_Transcoded(f), 1 << 16)
    return f


def decoded_head(path: Path, n: int = 8192) -> bytes:
    """The first ``n`` bytes of a file as UTF-8 (see :func:`open_decoded`)."""
    with open_decoded(path) as f:
        return f.read(n)


class LineCursor:
    """Where a reading of :func:`iter_lines` could continue: ``at`` is ``(byte offset,
    line number)`` of the first line not read whole (a line without its newline is not:
    its writer may not have finished it).  ``ok`` is False when offsets are not the
    file's (a UTF-16 file is read transcoded)."""

    __slots__ = ("at", "ok")

    def __init__(self) -> None:
        self.at: tuple[int, int] = (0, 1)
        self.ok = True


def iter_lines(path: Path, cursor: LineCursor | None = None,
               start: tuple[int, int] | None = None) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(line_number, line_without_newline, had_newline)`` for non-blank lines.

    ``cursor`` follows the reading (see :class:`LineCursor`); ``start`` = ``(byte offset,
    line number)`` continues a reading where a cursor said it could (UTF-8 files only)."""
    with open_decoded(path) as f:
        if cursor is None and start is None:
            for n, line in enumerate(f, 1):
                had_nl = line.endswith(b"\n")
                body = line.rstrip(b"\r\n")
                if body.strip():
                    yield n, body, had_nl
            return
        transcoded = isinstance(getattr(f, "raw", None), _Transcoded)
        if start is not None:
            if transcoded:
                raise ValueError("a UTF-16 file cannot be read from an offset")
            f.seek(start[0])
            pos, first = start
        else:
            pos, first = (0 if transcoded else f.tell()), 1
        cur = cursor if cursor is not None else LineCursor()
        cur.ok = not transcoded
        cur.at = (pos, first)
        for n, line in enumerate(f, first):
            had_nl = line.endswith(b"\n")
            if had_nl:
                pos += len(line)
                cur.at = (pos, n + 1)
            body = line.rstrip(b"\r\n")
            if body.strip():
                yield n, body, had_nl


def parse_line(body: bytes, had_newline: bool) -> tuple[Any, str | None]:
    """Parse one line.  Returns ``(obj, None)``, ``(obj, warning)`` or ``(None, reason)``.

    Invalid UTF-8 is salvaged with U+FFFD replacements (and reported); so are the
    values JSON encoders write that orjson refuses (:func:`_lenient`: a lone surrogate
    escape, a number no column can hold, ``NaN``); so is a record after NUL bytes (the
    zeros a crash leaves where a file was extended but not written, which the next
    record is then appended to) or after a UTF-8 BOM (files joined, each with its own);
    a last line without a newline that is not complete JSON is reported as truncated."""
    try:
        return orjson.loads(body), None
    except orjson.JSONDecodeError as e:
        err = e
    # one pass over the padding, however NULs and BOMs alternate (review15: reading it
    # a kind at a time, recursively, overflowed the stack on a hostile line)
    m = _PAD.match(body)
    if m is not None:
        rest = body[m.end():]
        nuls = m.group().count(b"\0")
        if not rest.strip():
            if nuls == len(m.group()):
                return None, (f"{len(body)} NUL bytes and nothing else (what a crash "
                              "leaves where a file was extended but not written)")
        else:
            obj, why = _parse_unpadded(rest, had_newline)
            if obj is not None:
                pads = ([f"{nuls} NUL bytes before the record skipped"] if nuls else []) + (
                    ["a UTF-8 BOM before the record skipped (files joined?)"]
                    if nuls < len(m.group()) else [])
                return obj, "; ".join(w for w in (*pads, why) if w)
    return _lenient_line(body, had_newline, err)


def _parse_unpadded(body: bytes, had_newline: bool) -> tuple[Any, str | None]:
    """:func:`parse_line` of a line whose padding was skipped."""
    try:
        return orjson.loads(body), None
    except orjson.JSONDecodeError as e:
        return _lenient_line(body, had_newline, e)


def _lenient_line(body: bytes, had_newline: bool, err: orjson.JSONDecodeError
                  ) -> tuple[Any, str | None]:
    """:func:`parse_line` of a line orjson refused (``err``), salvaged where it can be."""
    warn: str | None = None
    try:
        text = body.decode("utf-8")
    except UnicodeDecodeError as ue:
        text = body.decode("utf-8", errors="replace")
        warn = f"invalid UTF-8 at byte {ue.start} (replaced with U+FFFD)"
        try:
            return orjson.loads(text), warn
        except orjson.JSONDecodeError:
            pass
    got = _lenient(text)
    if got is not None:
        return got[0], "; ".join(w for w in (warn, got[1]) if w)
    if warn:
        return None, warn.replace(" (replaced with U+FFFD)", " and not valid JSON")
    if not had_newline:
        return None, f"truncated record: the last line is incomplete JSON ({err})"
    return None, f"not valid JSON: {err}"


_BOM = b"\xef\xbb\xbf"
_PAD = re.compile(rb"(?:\x00|\xef\xbb\xbf)+")
"""NUL bytes and UTF-8 BOMs before a record, in any order."""


_SURROGATE = re.compile("[\ud800-\udfff]")
_INT_RANGE = (-(1 << 63), 1 << 64)


def _lenient(text: str) -> tuple[Any, str] | None:
    """``text`` read by Python's JSON where orjson refused it, or None.

    JavaScript's ``JSON.stringify`` writes a string cut inside a surrogate pair as a
    lone ``\\ud83d`` (replaced with U+FFFD); a raw control character inside a string (a
    NUL byte) is kept in it; a number past 64 bits, ``1e999`` and
    ``NaN``/``Infinity`` are kept as their text (a field of the wrong type costs that
    field, never the record).  What is returned can be written by orjson again."""
    odd: list[str] = []

    def whole(s: str) -> Any:
        v = int(s) if len(s) < 40 else None
        if v is not None and _INT_RANGE[0] <= v < _INT_RANGE[1]:
            return v
        odd.append("a number beyond 64 bits kept as text")
        return s

    def real(s: str) -> Any:
        v = float(s)
        if math.isfinite(v):
            return v
        odd.append("a number beyond a double kept as text")
        return s

    def constant(s: str) -> str:
        odd.append(f"{s} (not JSON) kept as text")
        return s

    def clean(v: Any) -> Any:
        if isinstance(v, str):
            if _SURROGATE.search(v):
                odd.append("a lone surrogate escape replaced with U+FFFD")
                return _SURROGATE.sub("\ufffd", v)
            return v
        if isinstance(v, dict):
            return {clean(k): clean(x) for k, x in v.items()}
        if isinstance(v, list):
            return [clean(x) for x in v]
        return v

    try:
        try:
            obj = json.loads(text, parse_int=whole, parse_float=real,
                             parse_constant=constant)
        except ValueError:
            # a raw control character inside a string (a NUL a crash or a sync left in
            # a line, a tab written unescaped): the string keeps it, the record is read
            obj = json.loads(text, parse_int=whole, parse_float=real,
                             parse_constant=constant, strict=False)
            odd.append("a raw control character inside a string kept")
        obj = clean(obj)
        orjson.dumps(obj)
    except (ValueError, RecursionError, TypeError, orjson.JSONEncodeError):
        return None
    kinds = sorted(set(odd))
    return obj, ("read leniently: " + ", ".join(kinds) if kinds
                 else "read leniently by Python's JSON parser")


def json_records(path: Path, problems: list[Problem], accept: Callable[[Any], bool],
                 expected: str) -> Iterator[tuple[int, bytes, Any, str | None]]:
    """``(line, body, obj, warning)`` for every line that parses and ``accept`` takes.

    A line that is not JSON, or is JSON of another shape (``expected`` names the
    right one), becomes a problem carrying its raw text.  ``warning`` says when a
    line was salvaged (invalid UTF-8 replaced); the caller reports it."""
    spath = str(path)
    for n, body, had_nl in iter_lines(path):
        obj, reason = parse_line(body, had_nl)
        if obj is None:
            problems.append(Problem(path=spath, line=n, reason=reason or "unreadable",
                                    raw=safe_text(body)))
        elif not accept(obj):
            problems.append(Problem(path=spath, line=n, raw=safe_text(body),
                                    reason=f"not {expected}"))
        else:
            yield n, body, obj, reason


def opens_a_json_line(head: bytes) -> bool:
    """A line of the file's head opens a JSON object: the file may be a JSON-lines
    transcript (a first line of garbage, a stray status line, costs that line, not the
    file)."""
    h = head.lstrip()
    return h.startswith(b"{") or b"\n{" in h


def json_head(path: Path, head: bytes, max_lines: int) -> Iterator[dict[str, Any]]:
    """The JSON objects among a file's first ``max_lines`` lines (:func:`head_records`),
    none when no line of its ``head`` opens one (:func:`opens_a_json_line`): the first
    look of every JSON-lines reader's ``detect``."""
    return head_records(path, max_lines) if opens_a_json_line(head) else iter(())


def first_line(path: Path, limit: int = 64 << 20) -> bytes:
    """The first non-blank line of a file (up to ``limit`` bytes)."""
    with open_decoded(path) as f:
        while True:
            line = f.readline(limit)
            if not line:
                return b""
            if line.strip():
                return line.rstrip(b"\r\n")


def first_record(path: Path, max_lines: int = 20) -> object | None:
    """The first of the first ``max_lines`` non-blank lines that parses as a JSON object.

    Detection uses it so that a JSONL file whose first line is damaged, is not JSON
    (a status line saved with ``2>&1``) or is a JSON scalar is still recognised (and
    the odd line reported by the reader)."""
    records = head_records(path, max_lines)
    try:
        return next(records, None)
    finally:
        records.close()  # the file is closed now, not when the generator is collected


def head_records(path: Path, max_lines: int = 200) -> Generator[dict[str, Any], None, None]:
    """The JSON objects among the first ``max_lines`` non-blank lines of a file (detection:
    a transcript may open with many records of types a reader does not look for)."""
    with open_decoded(path) as f:
        seen = 0
        while seen < max_lines:
            line = f.readline(64 << 20)
            if not line:
                return
            if not line.strip():
                continue
            seen += 1
            try:
                obj = orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
            if isinstance(obj, dict):
                yield obj


def safe_text(body: bytes, limit: int = 1 << 20) -> str:
    """Bytes as text for storing a bad record raw (never raises)."""
    return body[:limit].decode("utf-8", errors="replace")
