"""Resume-at-offset: reading an append-only transcript on from where the last read ended.

A reader of an append-only JSONL form (Claude Code, Codex, opencode JSONL) that read a
file to its end can say where a later reading of the grown file may continue
(:class:`Resume`): the byte offset and line number of the first line it did not read
whole, and its own state there, as JSON (what it still held back: drafts waiting for a
tool result, lines without a message yet, first-wins session fields, clocks, counts).
Ids the reader met before the offset and may need to recognise again (Claude Code line
uuids, Codex call ids) are kept as a sorted array of 64-bit hashes
(:class:`PrefixIds`): a hash that matches may be a false one, so the reader gives up
(:class:`Diverged`) and the file is read whole, never guessed.

Reading on from a :class:`Resume` must give exactly what reading the whole grown file
gives for every message at or after the first one the earlier read held back; whoever
stores the result checks that the file's prefix is the one read (:func:`prefix_hashes`).
"""

from __future__ import annotations

import hashlib
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import orjson

from logparse._agentlines import Draft
from logparse.safe_open import open_regular
from logparse.source import LogparseError

MAX_STATE_BYTES = 16 << 20
"""A reader state larger than this (thousands of drafts held back) is not kept: the
next reading is whole."""
WINDOW = 64 << 10
"""Bytes before the offset whose hash checks that the prefix is the one read."""
HEAD = 4096
"""Bytes at the start of the file hashed for the same check."""


class Diverged(LogparseError):
    """The grown file needs what the resume state does not hold: read it whole."""


@dataclass
class Resume:
    """Where and how a reading of one file continues (see the module docstring)."""

    reader: str
    """The reader's form and version (``claude-code/1``): another one reads whole."""
    offset: int
    """Byte offset of the first line not read whole."""
    line: int
    """Its line number (:func:`~logparse.opencode._lines.iter_lines`' numbering)."""
    state: dict[str, Any]
    """The reader's state there, JSON-typed."""
    ids: bytes = b""
    """:class:`PrefixIds` of ids met before the offset."""
    session_id: str = ""
    first_line: int = 0
    """The smallest line number the state refers to (what a resumed reading may report a
    problem at again; problems before it stay as stored)."""
    end_problems: list[tuple[int | None, str]] | None = None
    """Problems the earlier reading reported only because the file ended (``(line,
    reason)``): a resumed reading reports them again if they still hold."""

    def state_json(self) -> bytes:
        return orjson.dumps(self.state)


def id_hash(value: str) -> int:
    """A 64-bit hash of an id, the same in every process (two checksums: cheap, and a
    collision only costs a whole reading)."""
    b = value.encode("utf-8", "surrogatepass")
    return (zlib.crc32(b) << 32) | zlib.adler32(b)


class PrefixIds:
    """A sorted array of 64-bit hashes of ids: ``maybe(x)`` is False only for an id
    certainly not among them."""

    def __init__(self, blob: bytes = b"") -> None:
        self._a = array("Q")
        self._a.frombytes(blob)

    @classmethod
    def of(cls, ids: Iterable[str]) -> PrefixIds:
        out = cls()
        crc, adler = zlib.crc32, zlib.adler32
        hashes = [(crc(b) << 32) | adler(b)
                  for b in (i.encode("utf-8", "surrogatepass") for i in ids)]
        hashes.sort()  # a repeated hash does no harm to the search
        out._a = array("Q", hashes)
        return out

    def maybe(self, value: str) -> bool:
        h = id_hash(value)
        i = bisect_left(self._a, h)
        return i < len(self._a) and self._a[i] == h

    def plus(self, ids: Iterable[str]) -> PrefixIds:
        new = {id_hash(i) for i in ids}
        out = PrefixIds()
        if not new:
            out._a = self._a
        else:  # the few new hashes spliced in: one copy of the array
            a = self._a
            merged = array("Q")
            at = 0
            for h in sorted(new):
                i = bisect_left(a, h, at)
                merged.extend(a[at:i])
                if i >= len(a) or a[i] != h:
                    merged.append(h)
                at = i
            merged.extend(a[at:])
            out._a = merged
        return out

    def blob(self) -> bytes:
        return self._a.tobytes()

    def __len__(self) -> int:
        return len(self._a)


def prefix_hashes(path: str | Path, offset: int) -> tuple[str, str] | None:
    """Hashes of the file's first bytes and of the bytes just before ``offset``: what
    tells a grown copy of the file read from one that was rewritten.  ``None`` when the
    file is shorter than ``offset`` or cannot be read."""
    try:
        with open_regular(path) as f:  # a file replaced by a FIFO since: no wait
            head = f.read(min(HEAD, offset))
            start = max(0, offset - WINDOW)
            f.seek(start)
            window = f.read(offset - start)
    except OSError:
        return None
    if len(window) != offset - start:
        return None
    return (hashlib.blake2b(head, digest_size=16).hexdigest(),
            hashlib.blake2b(window, digest_size=16).hexdigest())


# -- drafts as JSON --------------------------------------------------------------------
def draft_state(d: Draft) -> dict[str, Any]:
    return {"info": d.info, "parts": d.parts, "bodies": [b.decode("utf-8") for b in d.bodies],
            "lines": d.lines, "open": d.open, "key": d.key, "line": d.line,
            "at_end": d.at_end, "links": d.links}


def draft_from(s: dict[str, Any]) -> Draft:
    d = Draft(s["info"], s["key"], s["line"])
    d.parts = s["parts"]
    d.bodies = [b.encode("utf-8") for b in s["bodies"]]
    d.lines = s["lines"]
    d.open = s["open"]
    d.at_end = s["at_end"]
    d.links = s.get("links")
    return d


def lines_state(lines: list[tuple[int, bytes]]) -> list[list[Any]]:
    return [[n, b.decode("utf-8")] for n, b in lines]


def lines_from(s: list[list[Any]]) -> list[tuple[int, bytes]]:
    return [(int(n), str(b).encode("utf-8")) for n, b in s]


def part_ref(drafts: list[Draft], part: dict[str, Any]) -> list[int] | None:
    """Where ``part`` (the same object) is among the drafts' parts."""
    for i, d in enumerate(drafts):
        for j, p in enumerate(d.parts):
            if p is part:
                return [i, j]
    return None


def draft_ref(drafts: list[Draft], d: Draft | None) -> int | None:
    if d is None:
        return None
    for i, x in enumerate(drafts):
        if x is d:
            return i
    raise ValueError("a draft outside the queue")


def min_line(state_lines: Iterable[int | None]) -> int:
    return min((n for n in state_lines if n is not None), default=0)


def line_start(path: str | Path, offset: int, line: int, want: int) -> int | None:
    """The byte offset of line ``want`` of a file whose line ``line`` starts at ``offset``
    (``want`` <= ``line``; lines counted by newline, as :func:`iter_lines` counts them):
    the file read backwards from ``offset``.  ``None`` for line 1 (read from the file's
    start: a BOM is skipped there) or when the file does not have it."""
    back = line - want
    if want <= 1 or back < 0:
        return None
    if back == 0:
        return offset
    try:
        with open_regular(path) as f:  # a file replaced by a FIFO since: no wait
            pos = offset - 1  # the newline ending the line before ``line``
            seen = 0
            while pos > 0:
                start = max(0, pos - (1 << 16))
                f.seek(start)
                chunk = f.read(pos - start)
                i = len(chunk)
                while True:
                    i = chunk.rfind(b"\n", 0, i)
                    if i < 0:
                        break
                    seen += 1
                    if seen == back:
                        return start + i + 1
                pos = start
    except OSError:
        return None
    return None
