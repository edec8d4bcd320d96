"""Line-oriented JSON reading shared by the JSONL forms (messages and the run stream).

Each line is parsed on its own, so one bad line never costs the others.  Bad
lines come back as a reason string the reader turns into a
:class:`~logparse.models.Problem` that keeps the line's raw text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from logparse.models import Problem


def iter_lines(path: Path) -> Iterator[tuple[int, bytes, bool]]:
    """Yield ``(line_number, line_without_newline, had_newline)`` for non-blank lines."""
    with open(path, "rb") as f:
        for n, line in enumerate(f, 1):
            had_nl = line.endswith(b"\n")
            body = line.rstrip(b"\r\n")
            if body.strip():
                yield n, body, had_nl


def parse_line(body: bytes, had_newline: bool) -> tuple[Any, str | None]:
    """Parse one line.  Returns ``(obj, None)``, ``(obj, warning)`` or ``(None, reason)``.

    Invalid UTF-8 is salvaged with U+FFFD replacements (and reported); a last line
    without a newline that is not complete JSON is reported as truncated."""
    try:
        return orjson.loads(body), None
    except orjson.JSONDecodeError as e:
        try:
            body.decode("utf-8")
        except UnicodeDecodeError as ue:
            text = body.decode("utf-8", errors="replace")
            try:
                return orjson.loads(text), (
                    f"invalid UTF-8 at byte {ue.start} (replaced with U+FFFD)"
                )
            except orjson.JSONDecodeError:
                return None, f"invalid UTF-8 at byte {ue.start} and not valid JSON"
        if not had_newline:
            return None, f"truncated record: the last line is incomplete JSON ({e})"
        return None, f"not valid JSON: {e}"


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


def first_line(path: Path, limit: int = 64 << 20) -> bytes:
    """The first non-blank line of a file (up to ``limit`` bytes)."""
    with open(path, "rb") as f:
        while True:
            line = f.readline(limit)
            if not line:
                return b""
            if line.strip():
                return line.rstrip(b"\r\n")


def first_record(path: Path, max_lines: int = 20) -> object | None:
    """The first of the first ``max_lines`` non-blank lines that parses as JSON.

    Detection uses it so that a JSONL file whose first line is damaged is still
    recognised (and the damage reported by the reader)."""
    with open(path, "rb") as f:
        seen = 0
        while seen < max_lines:
            line = f.readline(64 << 20)
            if not line:
                return None
            if not line.strip():
                continue
            seen += 1
            try:
                return orjson.loads(line)
            except orjson.JSONDecodeError:
                continue
    return None


def safe_text(body: bytes, limit: int = 1 << 20) -> str:
    """Bytes as text for storing a bad record raw (never raises)."""
    return body[:limit].decode("utf-8", errors="replace")
