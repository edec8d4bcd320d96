"""The summaries of the ``time`` commands: how long a command ran, one row per format.

The line rules of :mod:`logparse.measure` read ``number unit`` pairs, and the one-line
summaries of the shells' and the system's ``time`` are not in that shape: zsh's builtin
(the shell Codex and Claude Code run on macOS) prints ``71.62s user 0.30s system 99% cpu
1:12.18 total``, where the line rules took the *system* seconds for the user's and never
read the total; BSD's ``/usr/bin/time`` prints ``4.95 real 0.01 user 0.03 sys`` and GNU's
``7.91user 0.08system 0:08.00elapsed 99%CPU``, which gave nothing.  Each row of
:data:`TIME_ROWS` reads one format: the wall time (``real``, label ``total`` /
``real`` / ``elapsed`` as the tool names it) and the CPU times (``user``, ``sys``), in
seconds.  ``bash``'s ``real\\t0m1.234s`` block is read by the line rules already
(:data:`logparse.measure_kinds.KINDS` ``time-real``).

Every example is a real line, trimmed, from public material (the search corpus id).
``tests/logparse/test_measure_time.py`` walks the rows.  Pure, no catching.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["TIME_ROWS", "TimeRow", "time_readings"]

TimeHit = tuple[int, int, float, str, str]
"""``(start, end, value, unit, label)``: the span of the summary and one reading of it."""


@dataclass(frozen=True)
class TimeRow:
    name: str
    gate: str
    """A substring the text must hold before the pattern runs (cheap)."""
    pattern: re.Pattern[str]
    read: Callable[[re.Match[str]], list[tuple[float, str, str]]]
    example: str
    expect: tuple[tuple[float, str, str], ...]
    """Every reading the example gives, ``(value, unit, label)``."""
    source: str


def _num(s: str) -> float:
    return float(s.replace(",", "."))  # zsh in a comma locale: "3,008 total"


def _clock(s: str) -> float:
    """``1:12.18`` / ``0:08.00`` / ``1:02:03.5`` / ``4.071`` in seconds."""
    total = 0.0
    for part in s.split(":"):
        total = total * 60 + _num(part)
    return round(total, 6)


_N = r"\d+(?:[.,]\d+)?"
_CLOCK = r"(?:\d+:){0,2}\d+(?:[.,]\d+)?"

_ZSH_RE = re.compile(
    r"(?<![\w.,])(?P<u>" + _N + r")s user (?P<s>" + _N + r")s system \d+% cpu "
    r"(?P<t>" + _CLOCK + r") total\b")


def _zsh(m: re.Match[str]) -> list[tuple[float, str, str]]:
    return [(_clock(m.group("t")), "s", "total"), (_num(m.group("u")), "s", "user"),
            (_num(m.group("s")), "s", "sys")]


_BSD_RE = re.compile(
    r"(?<![\w.])(?P<r>" + _N + r")[ \t]+real[ \t]+(?P<u>" + _N + r")[ \t]+user[ \t]+"
    r"(?P<s>" + _N + r")[ \t]+sys\b")


def _bsd(m: re.Match[str]) -> list[tuple[float, str, str]]:
    return [(_num(m.group("r")), "s", "real"), (_num(m.group("u")), "s", "user"),
            (_num(m.group("s")), "s", "sys")]


_GNU_RE = re.compile(
    r"(?<![\w.])(?P<u>" + _N + r")user (?P<s>" + _N + r")system (?P<e>" + _CLOCK
    + r")elapsed\b")


def _gnu(m: re.Match[str]) -> list[tuple[float, str, str]]:
    return [(_clock(m.group("e")), "s", "elapsed"), (_num(m.group("u")), "s", "user"),
            (_num(m.group("s")), "s", "sys")]


TIME_ROWS: tuple[TimeRow, ...] = (
    TimeRow("zsh-time", " total", _ZSH_RE, _zsh,
            "$ time python3 scripts/hooks/claude/memory-sweep.py --budget 12 --quiet --dir "
            "/tmp/ms-attack\npython3 scripts/hooks/claude/memory-sweep.py --budget 12 "
            "--quiet --dir  71.62s user 0.30s system 99% cpu 1:12.18 total",
            ((72.18, "s", "total"), (71.62, "s", "user"), (0.3, "s", "sys")),
            "public agent notes on a Claude Code hook, search corpus id 69276132610"),
    TimeRow("zsh-time-seconds", " total", _ZSH_RE, _zsh,
            "timing bitcountNew for maxInt:\n./a.out  2.65s user 0.00s system 99% cpu "
            "2.652 total",
            ((2.652, "s", "total"), (2.65, "s", "user"), (0.0, "s", "sys")),
            "public C exercise notes, search corpus id 13067411695"),
    TimeRow("zsh-time-comma-locale", " total", _ZSH_RE, _zsh,
            "$ time sleep 3\nsleep 3  0,00s user 0,00s system 0% cpu 3,008 total",
            ((3.008, "s", "total"),),
            "popstas/zsh-command-time README.md (a comma-decimal locale)"),
    TimeRow("bsd-time", " real ", _BSD_RE, _bsd,
            "[{\"content_type\":\"application/octet-stream\"}]\n\n"
            "4.95 real         0.01 user         0.03 sys",
            ((4.95, "s", "real"), (0.01, "s", "user"), (0.03, "s", "sys")),
            "public README timing a curl upload with macOS /usr/bin/time, search corpus "
            "id 2337028254"),
    TimeRow("gnu-time", "elapsed", _GNU_RE, _gnu,
            "  $ time git fetch --no-tags ../remote.git\n  63.52user 0.12system "
            "1:03.68elapsed 99%CPU (0avgtext+0avgdata 137648maxresident)k\n"
            "  1856inputs+48outputs (11major+19603minor)pagefaults 0swaps",
            ((63.68, "s", "elapsed"), (63.52, "s", "user"), (0.12, "s", "sys")),
            "public git mailing-list patch timing a fetch (GNU time), search corpus id "
            "26645219624"),
)

_RUNS: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]],
                                                  list[tuple[float, str, str]]]], ...] = \
    tuple(dict.fromkeys((r.gate, r.pattern, r.read) for r in TIME_ROWS))


def time_readings(text: str) -> list[TimeHit]:
    """Every ``time`` summary of ``text``: its span and its readings, in seconds."""
    out: list[TimeHit] = []
    for gate, pattern, read in _RUNS:
        if gate not in text:
            continue
        for m in pattern.finditer(text):
            out += [(m.start(), m.end(), v, u, lab) for v, u, lab in read(m)]
    return out
