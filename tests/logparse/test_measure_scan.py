"""The measurement scan's start finder with a character set first (issue 28) finds the
same starts as the lookbehind-first pattern it replaced, on edge cases and on every line
of the real sessions (pool, labelled and the per-agent samples)."""

from __future__ import annotations

import re
from pathlib import Path

from logparse import measure

# the pattern before: four lookbehinds, then the digit (or ":"/"=")
_OLD_SCAN_RE = re.compile(
    r"(?:(?<![\d.,])|(?<=(?<![\d.,])[.,])|(?<=(?<![\d.,])[.,]{2})|(?<=(?<![\d.,])[.,]{3}))"
    r"\d[\d.,]*+[ \t]?[A-Za-z%×µμ/(]|[:=](?=[ \t]*+(?:[~≈][ \t]*+)?\d)")

EDGES = [
    "", "0", "1", "12ms", "1.5s", ",3 ms", ",,3ms", ",,,3ms", ",,,,3ms", "....3ms", "a,3ms",
    "9,3ms", "9.3 ms", "x.,.3 KB", "x: 5", "x=~ 3", "x = ≈ 4,", ":", "=", "a:b", "3:4 s",
    "٣٤ ms", "é٣ms", "12" * 60 + "ms", "took 3m12s, 40 tests passed; HTTP/1.1 200 OK",
    "size: 4096\nrate = 12.5 MB/s\n", "v1.2.3 (4 files)", "1,234,567 rows in 0.2s",
]


def _spans(rx: re.Pattern[str], text: str) -> list[tuple[int, int]]:
    return [m.span() for m in rx.finditer(text)]


def test_scan_finds_the_same_starts(realworld: Path) -> None:
    texts = list(EDGES)
    for f in sorted(p for d in ("pool", "labelled", "claude-code", "codex", "opencode")
                    for p in (realworld / d).rglob("*")):
        if f.is_file() and f.suffix in (".jsonl", ".json"):
            texts += f.read_text(encoding="utf-8", errors="replace").splitlines()
    assert len(texts) > 1000
    found = 0
    for text in texts:
        assert _spans(measure._SCAN_RE, text) == _spans(_OLD_SCAN_RE, text), text[:200]
        found += bool(measure._SCAN_RE.search(text))
    assert found > 500  # the lines hold numbers to scan

