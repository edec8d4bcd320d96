"""One-line summaries read whole, before the line rules: the ``time`` commands, hyperfine,
CTest, Gradle's task count.  One row per format.

The line rules of :mod:`logparse.measure` read ``number unit`` pairs and ``key: number``,
and these summaries are not in that shape, so the line rules misread them: zsh's builtin
``time`` (the shell Codex and Claude Code run on macOS) prints ``71.62s user 0.30s system
99% cpu 1:12.18 total``, where the line rules took the *system* seconds for the user's and
never read the total; BSD's ``/usr/bin/time`` prints ``4.95 real 0.01 user 0.03 sys`` and
GNU's ``7.91user 0.08system 0:08.00elapsed 99%CPU``, which gave nothing; hyperfine's
``Range (min … max): 158.1 ms … 191.4 ms`` gave ``158.1 ms`` labelled ``… max``; CTest's
``100% tests passed, 0 tests failed out of 29`` gave ``0 tests passed``.  Each row of
:data:`SUMMARY_ROWS` reads one format, and the span it read is no longer the line rules':
the wall time (``total`` / ``real`` / ``elapsed``, as the tool names it) and the CPU times
(``user``, ``sys``) in seconds; hyperfine's mean, spread, extremes, run count and speed-up;
CTest's tests, failures and passes.  ``bash``'s ``real\t0m1.234s`` block is read by the
line rules already (:data:`logparse.measure_kinds.KINDS` ``time-real``).

Every example is a real line, trimmed, from public material (the search corpus id).
``tests/logparse/test_measure_summaries.py`` walks the rows.  Pure, no catching.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["SUMMARY_ROWS", "SummaryRow", "summary_readings"]

SummaryHit = tuple[int, int, float, str, str]
"""``(start, end, value, unit, label)``: the span of the summary and one reading of it."""
Reading = tuple[float, str, str]
"""``(value, unit, label)``: one reading of a summary."""


@dataclass(frozen=True)
class SummaryRow:
    name: str
    gate: str
    """A substring the text must hold before the pattern runs (cheap)."""
    pattern: re.Pattern[str]
    read: Callable[[re.Match[str]], list[Reading]]
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

def _wall_user_sys(wall: str) -> Callable[[re.Match[str]], list[Reading]]:
    """The reader of a ``time`` summary whose groups are ``w`` (the wall time, a clock
    or seconds, which the tool calls ``wall``), ``u`` and ``s`` (user and system
    seconds)."""
    def read(m: re.Match[str]) -> list[Reading]:
        return [(_clock(m.group("w")), "s", wall), (_num(m.group("u")), "s", "user"),
                (_num(m.group("s")), "s", "sys")]
    return read


_ZSH_RE = re.compile(
    r"(?<![\w.,:-])(?P<u>" + _N + r")s user (?P<s>" + _N + r")s system \d+% cpu "
    r"(?P<w>" + _CLOCK + r") total\b")
_zsh = _wall_user_sys("total")

_BSD_RE = re.compile(
    r"(?<![\w.:-])(?P<w>" + _N + r")[ \t]+real[ \t]+(?P<u>" + _N + r")[ \t]+user[ \t]+"
    r"(?P<s>" + _N + r")[ \t]+sys\b")
_bsd = _wall_user_sys("real")

_GNU_RE = re.compile(
    r"(?<![\w.:-])(?P<u>" + _N + r")user (?P<s>" + _N + r")system (?P<w>" + _CLOCK
    + r")elapsed\b")
_gnu = _wall_user_sys("elapsed")


_HF_UNIT = r"(?:ms|s|µs|μs|us|ns)"
_HF_UNITS = {"μs": "µs", "us": "µs"}
_HF_TIME_RE = re.compile(
    r"Time[ \t]+\(mean ± σ\):[ \t]+(?P<m>" + _N + r")[ \t]*(?P<mu>" + _HF_UNIT + r")[ \t]+±"
    r"[ \t]+(?P<sd>" + _N + r")[ \t]*(?P<su>" + _HF_UNIT + r")(?:[ \t]+\[User:[ \t]+(?P<us>"
    + _N + r")[ \t]*(?P<uu>" + _HF_UNIT + r"),[ \t]+System:[ \t]+(?P<sy>" + _N
    + r")[ \t]*(?P<yu>" + _HF_UNIT + r")\])?[^\n]*")
_HF_RANGE_RE = re.compile(
    r"Range[ \t]+\(min … max\):[ \t]+(?P<a>" + _N + r")[ \t]*(?P<au>" + _HF_UNIT
    + r")[ \t]+…[ \t]+(?P<b>" + _N + r")[ \t]*(?P<bu>" + _HF_UNIT
    + r")(?:[ \t]+(?P<runs>\d+) runs\b)?[^\n]*")
_HF_FASTER_RE = re.compile(
    r"^[ \t]*(?P<r>" + _N + r") ± " + _N + r" times faster than\b[^\n]*", re.M)


def _u(s: str) -> str:
    return _HF_UNITS.get(s, s)


def _hf_time(m: re.Match[str]) -> list[Reading]:
    out = [(_num(m.group("m")), _u(m.group("mu")), "mean"),
           (_num(m.group("sd")), _u(m.group("su")), "σ")]
    if m.group("us"):
        out += [(_num(m.group("us")), _u(m.group("uu")), "User"),  # hyperfine's words
                (_num(m.group("sy")), _u(m.group("yu")), "System")]
    return out


def _hf_range(m: re.Match[str]) -> list[Reading]:
    out = [(_num(m.group("a")), _u(m.group("au")), "min"),
           (_num(m.group("b")), _u(m.group("bu")), "max")]
    if m.group("runs"):
        out.append((float(m.group("runs")), "runs", "runs"))
    return out


def _hf_faster(m: re.Match[str]) -> list[Reading]:
    return [(_num(m.group("r")), "x", "faster")]


_CTEST_RE = re.compile(
    r"^[ \t]*\d{1,3}% tests passed, (?P<f>\d+) tests? failed out of (?P<n>\d+)\b", re.M)


def _ctest(m: re.Match[str]) -> list[Reading]:
    n, f = int(m.group("n")), int(m.group("f"))
    return [(float(n), "tests", "tests"), (float(f), "failed", "failed"),
            (float(n - f), "passed", "passed")]


_GRADLE_RE = re.compile(
    r"^[ \t]*(?P<n>\d+) actionable tasks?: (?P<parts>\d+ [a-z-]+(?: [a-z-]+)*"
    r"(?:, \d+ [a-z-]+(?: [a-z-]+)*)*)[ \t\r]*$", re.M)
_GRADLE_PART_RE = re.compile(r"(?<!\d)(\d+) ([a-z-]+(?: [a-z-]+)*)")


def _gradle(m: re.Match[str]) -> list[Reading]:
    """Gradle's task summary: how many tasks the build had, and how many of them ran,
    came from the cache or were up to date."""
    out: list[Reading] = [(float(m.group("n")), "tasks", "actionable tasks")]
    out += [(float(n), "tasks", how) for n, how in _GRADLE_PART_RE.findall(m.group("parts"))]
    return out


SUMMARY_ROWS: tuple[SummaryRow, ...] = (
    SummaryRow("gradle-tasks", "actionable task", _GRADLE_RE, _gradle,
               "* Get more help at https://help.gradle.org\n\nBUILD FAILED in 42m 36s\n\n"
               "52 actionable tasks: 48 executed, 4 up-to-date",
               ((52.0, "tasks", "actionable tasks"), (48.0, "tasks", "executed"),
                (4.0, "tasks", "up-to-date")),
               "SirNate0/Urho3D-Discourse-Archive posts/raw/failed-to-build-latest-engine-code-"
               "for-android-need-help.4587.md (a public Gradle log; its 'BUILD FAILED in' "
               "time is the line rules')"),
    SummaryRow("ctest-summary", "tests failed out of", _CTEST_RE, _ctest,
               "5/5 Test #5: RenderingTest ....................   Passed    0.05 sec\n\n"
               "100% tests passed, 0 tests failed out of 5\n\n"
               "Total Test time (real) =   0.16 sec",
               ((5.0, "tests", "tests"), (0.0, "failed", "failed"), (5.0, "passed", "passed")),
               "public docs quoting ctest, search corpus id 22172996428"),
    SummaryRow("hyperfine-time", "(mean ± σ)", _HF_TIME_RE, _hf_time,
            "Benchmark 1: ./target/release/main (resolve-incremental)\n"
            "  Time (mean ± σ):     174.8 ms ±   6.3 ms    [User: 270.8 ms, System: 702.4 ms]",
            ((174.8, "ms", "mean"), (6.3, "ms", "σ"), (270.8, "ms", "User"),
             (702.4, "ms", "System")),
            "public PR comment quoting hyperfine (puffin), search corpus id 9442304394"),
    SummaryRow("hyperfine-range", "(min … max)", _HF_RANGE_RE, _hf_range,
            "  Range (min … max):   158.1 ms … 191.4 ms    50 runs",
            ((158.1, "ms", "min"), (191.4, "ms", "max"), (50.0, "runs", "runs")),
            "public PR comment quoting hyperfine (puffin), search corpus id 9442304394 (the "
            "line rules read '158.1 ms' as '… max' and no max)"),
    SummaryRow("hyperfine-summary", "times faster than", _HF_FASTER_RE, _hf_faster,
            "Summary\n  './target/release/uv (resolve-cold)' ran\n"
            "    1.34 ± 0.10 times faster than './target/release/main (resolve-cold)'",
            ((1.34, "x", "faster"),),
            "public PR thread quoting hyperfine (uv), search corpus id 8875586913"),
    SummaryRow("julia-benchmarktools", "(mean ± σ)", _HF_TIME_RE, _hf_time,
            " Time  (mean ± σ):   41.617 μs ± 79.586 μs  ┊ GC (mean ± σ):  1.90% ±  0.99%",
            ((41.617, "µs", "mean"), (79.586, "µs", "σ")),
            "public README quoting Julia's @benchmark, search corpus id 26453275854 (the "
            "same line as hyperfine's; its GC share is no reading of its own)"),
    SummaryRow("zsh-time", " total", _ZSH_RE, _zsh,
            "$ time python3 scripts/hooks/claude/memory-sweep.py --budget 12 --quiet --dir "
            "/tmp/ms-attack\npython3 scripts/hooks/claude/memory-sweep.py --budget 12 "
            "--quiet --dir  71.62s user 0.30s system 99% cpu 1:12.18 total",
            ((72.18, "s", "total"), (71.62, "s", "user"), (0.3, "s", "sys")),
            "public agent notes on a Claude Code hook, search corpus id 69276132610"),
    SummaryRow("zsh-time-seconds", " total", _ZSH_RE, _zsh,
            "timing bitcountNew for maxInt:\n./a.out  2.65s user 0.00s system 99% cpu "
            "2.652 total",
            ((2.652, "s", "total"), (2.65, "s", "user"), (0.0, "s", "sys")),
            "public C exercise notes, search corpus id 13067411695"),
    SummaryRow("zsh-time-comma-locale", " total", _ZSH_RE, _zsh,
            "$ time sleep 3\nsleep 3  0,00s user 0,00s system 0% cpu 3,008 total",
            ((3.008, "s", "total"),),
            "popstas/zsh-command-time README.md (a comma-decimal locale)"),
    SummaryRow("bsd-time", " real ", _BSD_RE, _bsd,
            "[{\"content_type\":\"application/octet-stream\"}]\n\n"
            "4.95 real         0.01 user         0.03 sys",
            ((4.95, "s", "real"), (0.01, "s", "user"), (0.03, "s", "sys")),
            "public README timing a curl upload with macOS /usr/bin/time, search corpus "
            "id 2337028254"),
    SummaryRow("gnu-time", "elapsed", _GNU_RE, _gnu,
            "  $ time git fetch --no-tags ../remote.git\n  63.52user 0.12system "
            "1:03.68elapsed 99%CPU (0avgtext+0avgdata 137648maxresident)k\n"
            "  1856inputs+48outputs (11major+19603minor)pagefaults 0swaps",
            ((63.68, "s", "elapsed"), (63.52, "s", "user"), (0.12, "s", "sys")),
            "public git mailing-list patch timing a fetch (GNU time), search corpus id "
            "26645219624"),
)

_RUNS: tuple[tuple[str, re.Pattern[str], Callable[[re.Match[str]], list[Reading]]], ...] = \
    tuple(dict.fromkeys((r.gate, r.pattern, r.read) for r in SUMMARY_ROWS))


def summary_readings(text: str) -> list[SummaryHit]:
    """Every ``time`` summary of ``text``: its span and its readings, in seconds."""
    out: list[SummaryHit] = []
    for gate, pattern, read in _RUNS:
        if gate not in text:
            continue
        for m in pattern.finditer(text):
            out += [(m.start(), m.end(), v, u, lab) for v, u, lab in read(m)]
    return out
