"""Tool summaries and stated results the line rules miss: rows of rules, each with an example.

:mod:`logparse.measure` reads ``number unit`` and ``key: number`` on a line, and
:mod:`logparse.measure_stated` the results an agent states in words.  What both leave, found
by walking the summary lines of the common test runners, type checkers, linters, coverage
tools and builds (issue 22 item 5; ``BENCHMARKS.md`` "branch `xmeas2`"):

* counts written as ``Key: N`` in a runner's own summary (PHPUnit's ``Tests: 15,
  Assertions: 40, Failures: 2``), or as ``# key N`` / ``ℹ key N`` (Node's TAP and spec
  reporters);
* clock durations (PHPUnit's ``Time: 00:00.123``, cargo's ``in 1m 02s``) and a bracketed
  total (bun's ``Ran 13 tests across 3 files. [120.00ms]``);
* the coverage total of a report table (Istanbul's ``All files |``, coverage.py's
  ``TOTAL``), in %;
* pyright's ``3 errors, 1 warning, 0 informations``;
* Karma's ``Executed 23 of 23 (1 FAILED) (0.154 secs / 0.148 secs)``; pytest's
  ``collected 57 items``; black's ``2 files reformatted, 4 files left unchanged.``, mypy's ``Success: no issues
  found in 4 source files`` and ``(checked 230 source files)``, ruff's ``(7843 fixed,
  2095 remaining)``;
* ``dart test``'s and ``flutter test``'s last line (``07:49 +6413 ~14 -5: Some tests
  failed.``): its clock and its passed, skipped and failed tests;
* pi's bash note ``[Showing lines a-b of N …]``: the command printed N lines;
* an agent's own before/after of a count (``from 1,486 down to 494 remaining errors``,
  ``141 → 55``, ``~150 errors remaining (down from ~200)``), of a named percentage
  (``coverage improved from 51.0% to 77.7%``) and of a reading (``7.56s → 6.55s``,
  ``4.39 kB (from 13.83 kB)``); a checker's count (``256 TypeScript errors``) and
  failing tests (``65 failing tests``) stated in a report;
* an HTTP status in Chrome's console line (``the server responded with a status of
  500``) or a client's ``HTTP error 500:``.

Every rule is a :class:`logparse.measure_stated.StatedRule` row of :data:`RULES` with an
example: a trimmed real line where the sessions we may read have one, else a line in the
tool's documented output format with the document named.  ``tests/logparse/
test_measure_runners.py`` walks the rows against ``fixtures/measure/runners.txt``.  No row
reads ids, versions, dates, line numbers, ports, grep hit counts or token counters: each
number it takes sits in a named slot of a summary.  :mod:`logparse.measure` runs these rows
after its own; a number it already read keeps its reading.

Pure, no catching: a rule that raises is a bug a test shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from logparse import measure as _m
from logparse.measure_stated import _UNIT, Hit, StatedRule, _label_before, _unit

__all__ = ["RULES", "runner_measurements"]

_N = r"\d{1,3}(?:,\d{3})+|\d+"
_DEC = r"\d+(?:\.\d+)?"


def _f(s: str) -> float:
    return float(s.replace(",", ""))


# ------------------------------------------------------------------ runner summaries

_PHPUNIT_UNITS = {"Tests": "tests", "Assertions": "assertions", "Failures": "failures",
                  "Errors": "errors", "Skipped": "skipped", "Incomplete": "incomplete",
                  "Warnings": "warnings", "Risky": "risky", "Deprecations": "deprecations"}
_PHPUNIT_RE = re.compile(r"^(?:OK, but [^\n]*\n)?Tests: (?P<body>\d+, Assertions: \d+"
                         r"(?:, [A-Z][a-z]+: \d+)*)\.?[ \t\r]*$", re.M)
_PHPUNIT_PAIR_RE = re.compile(r"(?:^|, )(?:(?P<k>[A-Z][a-z]+): )?(?P<v>\d+)")


def _phpunit(m: re.Match[str], text: str) -> list[Hit]:
    """``Tests: 15, Assertions: 40, Failures: 2, Errors: 1.``: each named count."""
    out: list[Hit] = []
    base = m.start("body")
    for k, p in enumerate(_PHPUNIT_PAIR_RE.finditer(m.group("body"))):
        key = "Tests" if k == 0 else p.group("k")
        unit = _PHPUNIT_UNITS.get(key or "")
        if unit:
            out.append((base + p.start("v"), float(p.group("v")), unit, "PHPUnit"))
    return out


_CLOCK_TIME_RE = re.compile(r"^Time: (?P<m>\d{1,2}):(?P<s>\d{2}(?:\.\d+)?), Memory: ", re.M)


def _clock_time(m: re.Match[str], text: str) -> list[Hit]:
    """PHPUnit's ``Time: 00:00.123, Memory: 10.00 MB``: minutes and seconds, in s."""
    return [(m.start("m"), round(int(m.group("m")) * 60 + float(m.group("s")), 3), "s",
             "test run time")]


_CARGO_MIN_RE = re.compile(
    r"^[ \t]*Finished[^\n]{0,80}? in (?P<m>\d+)m (?P<s>\d{1,2}(?:\.\d+)?)s[ \t\r]*$", re.M)


def _cargo_min(m: re.Match[str], text: str) -> list[Hit]:
    """cargo's ``Finished `release` profile [optimized] target(s) in 1m 02s``."""
    return [(m.start("m"), round(int(m.group("m")) * 60 + float(m.group("s")), 3), "s",
             "build time")]


_TAP_UNITS = {"tests": "tests", "duration_ms": "ms", "cancelled": "cancelled", "todo": "todo"}
_TAP_RE = re.compile(r"^[#ℹ] (?P<k>tests|duration_ms|cancelled|todo) (?P<v>" + _DEC
                     + r")[ \t\r]*$", re.M)


def _tap(m: re.Match[str], text: str) -> list[Hit]:
    """Node's test runner: ``# tests 10`` … ``# duration_ms 123.45`` (the TAP reporter),
    ``ℹ tests 10`` … ``ℹ duration_ms 123.45`` (the spec reporter); ``pass`` and ``fail``
    are read by :mod:`logparse.measure`."""
    if not any(f"{c} {k} " in text for c in "#ℹ" for k in ("pass", "fail")):
        return []  # a comment that only looks like a key, not a TAP summary
    k = m.group("k")
    return [(m.start("v"), float(m.group("v")), _TAP_UNITS[k],
             "test run time" if k == "duration_ms" else "tests")]


_BUN_RAN_RE = re.compile(r"^Ran (?P<n>\d+) tests? across \d+ files?\. "
                         r"\[(?P<t>" + _DEC + r")(?P<u>ms|s)\]", re.M)


def _bun_ran(m: re.Match[str], text: str) -> list[Hit]:
    """bun's ``Ran 13 tests across 3 files. [120.00ms]``: the tests and the run's time."""
    return [(m.start("n"), float(m.group("n")), "tests", "tests"),
            (m.start("t"), float(m.group("t")), m.group("u"), "test run time")]


_DART_TEST_RE = re.compile(
    r"^(?P<clock>(?:\d+:)?\d{1,2}:\d{2}) \+(?P<p>\d+)(?: ~(?P<s>\d+))?(?: -(?P<f>\d+))?: "
    r"(?:All tests passed!|Some tests failed\.)[ \t\r]*$", re.M)


def _dart_test(m: re.Match[str], text: str) -> list[Hit]:
    """``dart test``'s (and ``flutter test``'s) last line, ``07:49 +6413 ~14 -5: Some tests
    failed.``: the run's clock, then the passed (``+``), skipped (``~``) and failed (``-``)
    tests."""
    secs = 0.0
    for part in m.group("clock").split(":"):
        secs = secs * 60 + int(part)
    out: list[Hit] = [(m.start("clock"), secs, "s", "test run time"),
                      (m.start("p"), float(m.group("p")), "passed", "passed")]
    if m.group("s"):
        out.append((m.start("s"), float(m.group("s")), "skipped", "skipped"))
    out.append((m.start("f") if m.group("f") else m.end(), float(m.group("f") or 0),
                "failed", "failed"))
    return out


_KARMA_RE = re.compile(
    r"\bExecuted (?P<x>\d+) of (?P<n>\d+)(?: \((?P<f>\d+) FAILED\))?(?: \(skipped (?P<s>\d+)\))?"
    r"(?: SUCCESS)? \((?P<t>" + _DEC + r") secs / " + _DEC + r" secs\)")


def _karma(m: re.Match[str], text: str) -> list[Hit]:
    """Karma's ``Executed 23 of 23 (1 FAILED) (0.154 secs / 0.148 secs)``: the tests, the
    failed and passed ones and the run's time, once the run is done (its progress lines,
    ``Executed 3 of 23 SUCCESS``, count the tests run so far)."""
    x, n = int(m.group("x")), int(m.group("n"))
    f, sk = int(m.group("f") or 0), int(m.group("s") or 0)
    if x + sk != n:
        return []
    return [(m.start("n"), float(n), "tests", "tests"), (m.start("x"), float(f), "failed", "failed"),
            (m.start("x"), float(x - f), "passed", "passed"),
            (m.start("t"), float(m.group("t")), "s", "test run time")]


_PYTEST_COLLECTED_RE = re.compile(
    r"^[ \t]*collected (?P<n>\d+) items?(?: / (?P<d>\d+) deselected / (?P<s>\d+) selected)?\b",
    re.M)


def _pytest_collected(m: re.Match[str], text: str) -> list[Hit]:
    """pytest's ``collected 57 items`` (``/ 2 deselected / 55 selected``): the tests the
    session found, before its result line says how they went."""
    out: list[Hit] = [(m.start("n"), float(m.group("n")), "tests", "collected")]
    if m.group("d"):
        out += [(m.start("d"), float(m.group("d")), "deselected", "deselected"),
                (m.start("s"), float(m.group("s")), "tests", "selected")]
    return out


_BLACK_RE = re.compile(
    r"^(?=\d+ files? )(?:(?P<r>\d+) files? (?:would be )?reformatted(?:, |\.?[ \t\r]*$))?"
    r"(?:(?P<f>\d+) files? (?:would fail|failed) to reformat(?:, |\.?[ \t\r]*$))?"
    r"(?:(?P<u>\d+) files? (?:would be )?left unchanged\.?[ \t\r]*$)?", re.M)


def _black(m: re.Match[str], text: str) -> list[Hit]:
    """black's last line, ``2 files reformatted, 4 files left unchanged.`` (``--check``:
    ``1 file would be reformatted, 68 files would be left unchanged.``): the files it
    reformatted (or would), failed on, and left alone."""
    out: list[Hit] = []
    for g, label in (("r", "reformatted"), ("f", "failed to reformat"),
                     ("u", "left unchanged")):
        if m.group(g):
            out.append((m.start(g), float(m.group(g)), "files", label))
    return out


_MYPY_RE = re.compile(
    r"^(?:Success: no issues found in (?P<ok>\d+) source files?"
    r"|Found (?P<e>\d+) errors? in \d+ files? \(checked (?P<n>\d+) source files?\))"
    r"[ \t\r]*$", re.M)


def _mypy(m: re.Match[str], text: str) -> list[Hit]:
    """mypy's last line: ``Success: no issues found in 4 source files`` (no errors, the
    files checked) or ``Found 407 errors in 88 files (checked 230 source files)``."""
    if m.group("ok"):
        return [(m.start("ok"), 0.0, "errors", "errors"),
                (m.start("ok"), float(m.group("ok")), "files", "source files checked")]
    return [(m.start("e"), float(m.group("e")), "errors", "errors"),
            (m.start("n"), float(m.group("n")), "files", "source files checked")]


_RUFF_FIXED_RE = re.compile(
    r"\bFound (?P<e>\d+) errors? \((?P<x>\d+) fixed, (?P<r>\d+) remaining\)")


def _ruff_fixed(m: re.Match[str], text: str) -> list[Hit]:
    """ruff's ``Found 9938 errors (7843 fixed, 2095 remaining).``: what ``--fix`` fixed
    and what it left."""
    return [(m.start("e"), float(m.group("e")), "errors", "errors"),
            (m.start("x"), float(m.group("x")), "errors", "fixed"),
            (m.start("r"), float(m.group("r")), "errors", "remaining")]


_PYRIGHT_RE = re.compile(r"^(?P<e>\d+) errors?, (?P<w>\d+) warnings?, \d+ informations?"
                         r"[ \t\r]*$", re.M)


def _pyright(m: re.Match[str], text: str) -> list[Hit]:
    """pyright's summary ``3 errors, 1 warning, 0 informations``."""
    return [(m.start("e"), float(m.group("e")), "errors", "pyright"),
            (m.start("w"), float(m.group("w")), "warnings", "pyright")]


# ------------------------------------------------------------------ coverage tables

_ISTANBUL_RE = re.compile(r"^All files[ \t]*\|[ \t]*(?P<s>" + _DEC + r")[ \t]*\|[ \t]*(?P<b>"
                          + _DEC + r")[ \t]*\|[ \t]*(?P<f>" + _DEC + r")[ \t]*\|[ \t]*(?P<l>"
                          + _DEC + r")[ \t]*\|", re.M)


def _istanbul(m: re.Match[str], text: str) -> list[Hit]:
    """Istanbul's text report (jest/vitest/nyc ``--coverage``): the ``All files`` row's
    statements, branches, functions and lines, in %."""
    return [(m.start(g), float(m.group(g)), "%", f"coverage ({name})")
            for g, name in (("s", "statements"), ("b", "branches"), ("f", "functions"),
                            ("l", "lines"))]


_COVERAGE_PY_RE = re.compile(r"^TOTAL(?:[ \t]+\d+){2,4}[ \t]+(?P<p>" + _DEC + r")%[ \t\r]*$",
                             re.M)


def _coverage_py(m: re.Match[str], text: str) -> list[Hit]:
    """coverage.py / pytest-cov ``TOTAL  1234  123  90%``: the total coverage."""
    return [(m.start("p"), float(m.group("p")), "%", "coverage")]


# ------------------------------------------------------------------ agent tool notes

_PI_SHOWING_RE = re.compile(r"\[Showing lines \d+-\d+ of (?P<n>\d+)\b[^\]\n]{0,40}\. "
                            r"Full output: ")


def _pi_showing(m: re.Match[str], text: str) -> list[Hit]:
    """pi's cut bash output ``[Showing lines 12794-13366 of 13366 (50.0KB limit). Full
    output: …]``: the command printed N lines."""
    return [(m.start("n"), float(m.group("n")), "lines", "output length")]


# ------------------------------------------------------------------ stated before/after

_COUNT_NOUN = r"(?:type[ \t]+)?(?:errors?|warnings?|failures?|failing[ \t]+tests?)"
_COUNT_FROM_TO_RE = re.compile(
    r"(?<![\w.,])(?:from[ \t]+)?(?P<a>" + _N + r")[ \t]*(?:→|->|(?:down[ \t]+)?to)[ \t]*"
    r"(?P<b>" + _N + r")(?![\w.,]\d)[ \t]+(?:remaining[ \t]+)?(?P<u>" + _COUNT_NOUN + r")\b"
    r"|\b(?P<u2>" + _COUNT_NOUN + r")\b[^\n\d]{0,24}?(?<![\w.,])(?P<a2>" + _N
    + r")[ \t]*(?:→|->)[ \t]*(?P<b2>" + _N + r")(?![\w.,]\d)", re.I)


_RANGE_HEAD_RE = re.compile(r"\b(?:lines?|rows?|columns?|pages?|steps?|items?|L|v)[ \t]*"
                            r"(?:from[ \t]+)?$", re.I)


def _count_unit(word: str) -> str:
    w = word.lower().split()[-1]
    if w.startswith("test"):
        return "failed"
    return w if w.endswith("s") else w + "s"


def _count_from_to(m: re.Match[str], text: str) -> list[Hit]:
    """``from 1,486 down to 494 remaining errors``, ``49 → 0 errors``, ``errors reduced:
    141 → 55``: a count before and after the agent's change."""
    a, b, u = ("a", "b", "u") if m.group("a") else ("a2", "b2", "u2")
    if _RANGE_HEAD_RE.search(text, max(0, m.start(a) - 24), m.start(a)):
        return []  # "lines 12 to 40": a range of places, no count
    unit = _count_unit(m.group(u))
    return [(m.start(a), _f(m.group(a)), unit, f"{unit} (before)"),
            (m.start(b), _f(m.group(b)), unit, unit)]


_PCT_METRIC = r"coverage|pass[ \t]+rate|success[ \t]+rate|accuracy|hit[ \t]+rate|uptime"
_PCT_FROM_TO_RE = re.compile(
    r"\b(?P<what>" + _PCT_METRIC + r")\b[^\n\d%]{0,30}?\bfrom[ \t]+(?P<a>" + _DEC
    + r")[ \t]?%[ \t]+(?:→|->|to)[ \t]+(?P<b>" + _DEC + r")[ \t]?%", re.I)


def _pct_from_to(m: re.Match[str], text: str) -> list[Hit]:
    """``coverage improved from 51.0% to 77.7%``: a named percentage before and after."""
    what = m.group("what").lower()
    return [(m.start("a"), float(m.group("a")), "%", f"{what} (before)"),
            (m.start("b"), float(m.group("b")), "%", what)]


_PCT_WAS_RE = re.compile(
    r"\b(?P<what>" + _PCT_METRIC + r")\b[^\n\d%]{0,24}?(?P<a>" + _DEC + r")[ \t]?%[ \t]*"
    r"\((?:was|from|up from|down from)[ \t]+(?P<b>" + _DEC + r")[ \t]?%", re.I)


def _pct_was(m: re.Match[str], text: str) -> list[Hit]:
    """``baseline coverage is now 100% (was 98%)``: the value before, in %."""
    what = m.group("what").lower()
    return [(m.start("a"), float(m.group("a")), "%", what),
            (m.start("b"), float(m.group("b")), "%", f"{what} (before)")]


# a reading before and after a change, written with an arrow or "(from …)": both units
# read by logparse.measure (durations, sizes, rates, percentages)
_ARROW_RE = re.compile(
    r"(?<![\w.,/:-])[~≈]?(?P<a>" + _DEC + r")(?![\d.,]\d)[ \t]?(?P<au>" + _UNIT + r")?[ \t]*"
    r"(?:→|->|⇒)[ \t]*[~≈]?(?P<b>" + _DEC + r")(?![\d.,]\d)[ \t]?(?P<bu>" + _UNIT + r")")
_FROM_PAREN_RE = re.compile(
    r"(?<![\w.,/:-])(?P<a>" + _DEC + r")(?![\d.,]\d)[ \t]?(?P<au>" + _UNIT + r")[ \t]*\("
    r"(?:from|was|previously|down[ \t]+from|up[ \t]+from)[ \t]+[~≈]?(?P<b>" + _DEC
    + r")(?![\d.,]\d)[ \t]?(?P<bu>" + _UNIT + r")?[ \t]*\)")


def _setting_before(text: str, start: int) -> tuple[str, bool]:
    """The subject of a reading at ``start`` and whether it names a setting (``timeout
    30s → 60s`` is an edit of a configured value, no reading)."""
    subject = _label_before(text, start)
    line_start = text.rfind("\n", 0, start) + 1
    return subject, _m._is_setting(subject, text[line_start:start])


def _arrow(m: re.Match[str], text: str) -> list[Hit]:
    """``Build Time: Reduced by ~13% (7.56s → 6.55s)``: the reading before and after."""
    subject, setting = _setting_before(text, m.start())
    bu = _unit(m.group("bu"))
    au = _unit(m.group("au")) if m.group("au") else bu
    kind = _m._canon_unit(bu)[1]
    if setting or _m._canon_unit(au)[1] != kind:
        return []
    if text[max(0, m.start("a") - 2):m.start("a")].rstrip("~≈ ").endswith(("−", "-", "‑")):
        return []  # "the −42.09% → 72.4% threshold": a mapping, no change of one reading
    if kind != _m.SIZE and not _m._METRIC_RE.search(subject):
        return []  # a time or a percentage needs a subject that names what was measured
    label = subject or "value"
    return [(m.start("a"), _f(m.group("a")), au, f"{label} (before)"),
            (m.start("b"), _f(m.group("b")), bu, label)]


def _from_paren(m: re.Match[str], text: str) -> list[Hit]:
    """``CSS reduced to 4.39 kB (from 13.83 kB)``: the reading before, in its own unit or
    the current one's."""
    subject, setting = _setting_before(text, m.start())
    au = _unit(m.group("au"))
    bu = _unit(m.group("bu")) if m.group("bu") else au
    if setting or _m._canon_unit(au)[1] != _m._canon_unit(bu)[1]:
        return []
    return [(m.start("b"), _f(m.group("b")), bu, f"{subject or 'value'} (before)")]


# a count of a checker's findings in prose: "256 TypeScript errors", "5 lint warnings"
_TYPED_COUNT_RE = re.compile(
    r"(?<![\w.,/:-])[~≈]?(?P<n>" + _N + r")(?![\d.,]\d)[ \t]+(?:TypeScript|TS|type|typing"
    r"|tsc|lint|linter|ESLint|Ruff|mypy|pyright|clippy|compiler|compile|compilation|build)"
    r"[ \t]+(?P<u>errors?|warnings?)\b", re.I)


def _typed_count(m: re.Match[str], text: str) -> list[Hit]:
    """``**Current State**: 256 TypeScript errors``: a checker's count, stated."""
    u = m.group("u").lower()
    unit = u if u.endswith("s") else u + "s"
    return [(m.start("n"), _f(m.group("n")), unit, _label_before(text, m.start()) or unit)]


_COUNT_DOWN_FROM_RE = re.compile(
    r"(?<![\w.,/:-])[~≈]?(?:" + _N + r")(?![\d.,]\d)[ \t]+(?:[A-Za-z]+[ \t]+)?"
    r"(?P<u>errors?|warnings?|failures?|failing[ \t]+tests?)[ \t]+(?:remaining[ \t]+|left[ \t]+)?"
    r"\((?:down|up)[ \t]+from[ \t]+[~≈]?(?P<b>" + _N + r")(?![\d.,]\d)")


def _count_down_from(m: re.Match[str], text: str) -> list[Hit]:
    """``~150 errors remaining (down from ~200)``: the count before."""
    unit = _count_unit(m.group("u"))
    return [(m.start("b"), _f(m.group("b")), unit, f"{unit} (before)")]


# tests that fail, stated: "65 failing tests", "3 tests still failing"
_FAILING_TESTS_RE = re.compile(
    r"(?<![\w.,/:-])(?P<n>" + _N + r")(?![\d.,]\d)(?:[ \t]+failing[ \t]+tests?\b"
    r"|[ \t]+tests?[ \t]+(?:are[ \t]+|still[ \t]+)?failing\b)", re.I)


def _failing_tests(m: re.Match[str], text: str) -> list[Hit]:
    """``**Previous Status**: 65 failing tests across 11 test suites``."""
    if _RANGE_HEAD_RE.search(text, max(0, m.start("n") - 24), m.start("n")):
        return []  # "line 12 failing tests …": a place, no count
    return [(m.start("n"), _f(m.group("n")), "failed", "tests")]


# an HTTP status in a browser console line or a client's error line
_BROWSER_STATUS_RE = re.compile(
    r"\bthe server responded with a status of (?P<c>[1-5]\d\d)\b"
    r"|\bHTTP[ \t]+error[ \t]+(?P<c2>[1-5]\d\d):")


def _http_status(m: re.Match[str], text: str) -> list[Hit]:
    """Chrome's ``Failed to load resource: the server responded with a status of 500
    (Internal Server Error)``, a client's ``HTTP error 500: Internal Server Error``."""
    g = "c" if m.group("c") else "c2"
    return [(m.start(g), float(m.group(g)), "HTTP", "HTTP status")]


RULES: tuple[StatedRule, ...] = (
    StatedRule("phpunit-counts", "output", ("Assertions: ",), _PHPUNIT_RE, _phpunit,
               "FAILURES!\nTests: 15, Assertions: 40, Failures: 2, Errors: 1.",
               (15.0, "tests"),
               "from the tool's documented output: PHPUnit manual, 'Writing Tests for "
               "PHPUnit' (FAILURES! / Tests: N, Assertions: N, Failures: N.)"),
    StatedRule("phpunit-time", "output", ("Memory: ",), _CLOCK_TIME_RE, _clock_time,
               "Time: 00:00.123, Memory: 10.00 MB", (0.123, "s"),
               "from the tool's documented output: PHPUnit manual, 'The Command-Line Test "
               "Runner' (Time: 00:00.001, Memory: ... MB)"),
    StatedRule("cargo-finished-minutes", "output", ("Finished",), _CARGO_MIN_RE, _cargo_min,
               "    Finished `release` profile [optimized] target(s) in 1m 02s", (62.0, "s"),
               "from the tool's documented output: cargo's build summary "
               "(src/cargo/core/compiler/job_queue: 'in {}m {:02}s' past a minute)"),
    StatedRule("node-test-tap", "output", ("# tests ", "# duration_ms "), _TAP_RE, _tap,
               "# tests 10\n# suites 2\n# pass 9\n# fail 1\n# duration_ms 123.45",
               (123.45, "ms"),
               "from the tool's documented output: Node.js docs, 'Test runner' (tap "
               "reporter summary: # tests, # pass, # fail, # duration_ms)"),
    StatedRule("node-test-spec", "output", ("ℹ tests ", "ℹ duration_ms "), _TAP_RE, _tap,
               "ℹ tests 12\nℹ suites 0\nℹ pass 12\nℹ fail 0\nℹ cancelled 0\nℹ skipped 0\n"
               "ℹ todo 0\nℹ duration_ms 134.194458", (134.194458, "ms"),
               "public agent report quoting node --test (spec reporter, the default on a "
               "terminal), search corpus id 58709845972"),
    StatedRule("bun-test-ran", "output", ("Ran ",), _BUN_RAN_RE, _bun_ran,
               " 12 pass\n 1 fail\nRan 13 tests across 3 files. [120.00ms]",
               (120.0, "ms"),
               "from the tool's documented output: Bun docs, 'bun test' (Ran N tests "
               "across N files. [N.NNms])"),
    StatedRule("dart-test-summary", "output", ("tests passed!", "tests failed."),
               _DART_TEST_RE, _dart_test, "07:49 +6413 ~14 -5: Some tests failed.",
               (6413.0, "passed"),
               "public issue quoting flutter test's last line, flutter/flutter#102387"),
    StatedRule("karma-executed", "output", ("Executed ",), _KARMA_RE, _karma,
               "Chrome Headless 147.0.0.0 (Mac OS 10.15.7): Executed 23 of 23 (1 FAILED) "
               "(0.154 secs / 0.148 secs)\nTOTAL: 1 FAILED, 22 SUCCESS", (22.0, "passed"),
               "public agent report quoting ng test (Karma), search corpus id 51821115025"),
    StatedRule("pytest-collected", "output", ("collected ",), _PYTEST_COLLECTED_RE,
               _pytest_collected,
               "  rootdir: $REGENDOC_TMPDIR\n  collected 1 item\n\n  test_someenv.py s"
               "                                                    [100%]",
               (1.0, "tests"), "public issue quoting pytest's run, pytest-dev/pytest#40"),
    StatedRule("black-summary", "output", ("reformatted", "left unchanged"), _BLACK_RE,
               _black, "All done! ✨ � ✨\n2 files reformatted, 4 files left unchanged.",
               (2.0, "files"),
               "public issue quoting black's summary, ESSS/esss_fix_format#50"),
    StatedRule("black-check-summary", "output", ("reformatted", "left unchanged"), _BLACK_RE,
               _black, "1 file would be reformatted, 68 files would be left unchanged.",
               (68.0, "files"), "public issue quoting black --check, psf/black#175"),
    StatedRule("mypy-success", "output", ("no issues found in",), _MYPY_RE, _mypy,
               "Success: no issues found in 4 source files", (4.0, "files"),
               "public PR quoting mypy, rerun-io/rerun#162"),
    StatedRule("mypy-found", "output", ("source file",), _MYPY_RE, _mypy,
               "Found 407 errors in 88 files (checked 230 source files)", (230.0, "files"),
               "public PR quoting mypy's summary, rapiddweller/datamimic#14"),
    StatedRule("ruff-fixed", "output", ("remaining)",), _RUFF_FIXED_RE, _ruff_fixed,
               "Found 9938 errors (7843 fixed, 2095 remaining).", (2095.0, "errors"),
               "public PR quoting ruff check --fix, caltechads/deployfish#63"),
    StatedRule("pyright-summary", "output", ("informations",), _PYRIGHT_RE, _pyright,
               "  /src/app.py:3:5 - error: Import \"x\" could not be resolved\n"
               "3 errors, 1 warning, 0 informations ", (3.0, "errors"),
               "from the tool's documented output: pyright docs, 'Command-Line "
               "Interface' (N errors, N warnings, N informations)"),
    StatedRule("istanbul-all-files", "output", ("All files",), _ISTANBUL_RE, _istanbul,
               "File      | % Stmts | % Branch | % Funcs | % Lines | Uncovered Line #s\n"
               "All files |   85.71 |    66.66 |     100 |   85.71 |", (85.71, "%"),
               "from the tool's documented output: Jest docs, '--coverage' / istanbul "
               "text reporter (All files | % Stmts | % Branch | % Funcs | % Lines)"),
    StatedRule("coverage-py-total", "output", ("TOTAL",), _COVERAGE_PY_RE, _coverage_py,
               "Name    Stmts   Miss  Cover\n---------------------------\n"
               "TOTAL      76     10    87%", (87.0, "%"),
               "from the tool's documented output: coverage.py docs, 'Coverage.py command "
               "line usage', coverage report (TOTAL 76 10 87%)"),
    StatedRule("pi-bash-showing", "output", ("[Showing lines",), _PI_SHOWING_RE, _pi_showing,
               "civ6.ch/cmd/tmptourism/main.go\n\n\n[Showing lines 12794-13366 of 13366 "
               "(50.0KB limit). Full output: /tmp/pi-bash-21c61eba751853bb.log]",
               (13366.0, "lines"), "pool/civ6.ch__session.jsonl:8 (pi bash, find | sort)"),
    StatedRule("count-from-to", "prose", ("→", "->", " to "), _COUNT_FROM_TO_RE,
               _count_from_to,
               "Achieved **67% reduction** in TypeScript errors, bringing the count from "
               "1,486 down to 494 remaining errors.", (1486.0, "errors"),
               "public agent progress report (TypeScript error reduction), search corpus "
               "(also '- `app/notifications/page.tsx` - 49 → 0 errors')"),
    StatedRule("count-arrow-after-noun", "prose", ("→", "->", " to "), _COUNT_FROM_TO_RE,
               _count_from_to, "1. **TS2339 errors reduced:** 141 → 55 (-86 errors)",
               (141.0, "errors"),
               "public agent build-error timeline (TypeScript), search corpus"),
    StatedRule("percent-metric-from-to", "prose", (" from ",), _PCT_FROM_TO_RE, _pct_from_to,
               "coverage improved from 51.0% to 77.7% (+26.7 percentage points) in a single "
               "extended session.", (51.0, "%"),
               "public agent session summary (77.7% coverage), search corpus"),
    StatedRule("percent-metric-was", "prose", ("(was ", "(from ", " from "), _PCT_WAS_RE,
               _pct_was, "deterministic baseline coverage is now 100% (was 98%); full DB "
               "81.6%.", (98.0, "%"),
               "public agent note, search corpus id 57984870721"),
    StatedRule("reading-arrow", "prose", ("→", "->", "⇒"), _ARROW_RE, _arrow,
               "✅ **Build Time**: Reduced by ~13% (7.56s → 6.55s)  ", (6.55, "s"),
               "public agent build-optimization report (luciocabrera/personal-trainer-website"
               " docs/BUILD_OPTIMIZATION_REPORT.md), search corpus"),
    StatedRule("reading-from-paren", "prose", ("(from ", "(was ", "(previously ",
                                               "(down from ", "(up from "),
               _FROM_PAREN_RE, _from_paren,
               "✅ **Gzip Compression**: CSS reduced to 4.39 kB (from 13.83 kB)  ",
               (13.83, "kB"),
               "public agent build-optimization report (luciocabrera/personal-trainer-website"
               " docs/BUILD_OPTIMIZATION_REPORT.md), search corpus"),
    StatedRule("checker-count", "prose", ("error", "warning", "Error", "Warning"),
               _TYPED_COUNT_RE, _typed_count,
               "**Current State**: 256 TypeScript errors  ", (256.0, "errors"),
               "public agent progress report (openann19/pet4 WEB_TS_FIXES_CURRENT_STATUS.md),"
               " search corpus"),
    StatedRule("count-down-from", "prose", ("down from", "up from"), _COUNT_DOWN_FROM_RE,
               _count_down_from, "**Status:** ~150 errors remaining (down from ~200)",
               (200.0, "errors"),
               "public agent fix guide (thekingleo527/CyntientOps-cursor "
               "TYPESCRIPT_FIX_GUIDE.md), search corpus"),
    StatedRule("failing-tests", "prose", ("failing", "Failing"), _FAILING_TESTS_RE,
               _failing_tests,
               "**Previous Status**: 65 failing tests across 11 test suites  ",
               (65.0, "failed"),
               "public agent status update (3fn/DesignerPunkv2 .kiro/issues/"
               "test-suite-failures-status-update.md), search corpus"),
    StatedRule("browser-console-status", "both", ("responded with a status of",),
               _BROWSER_STATUS_RE, _http_status,
               ":3000/api/tokens/store:1 Failed to load resource: the server responded with "
               "a status of 500 (Internal Server Error)", (500.0, "HTTP"),
               "public fix notes quoting the browser console (curtismu7/oauthPlayground "
               "docs/fixes/BACKEND_500_ERRORS_FIXED.md), search corpus"),
    StatedRule("http-error-colon", "both", ("HTTP error ",), _BROWSER_STATUS_RE, _http_status,
               "**Result:** ❌ `HTTP error 500: Internal Server Error`", (500.0, "HTTP"),
               "public diagnostic notes (adminpipelabs/trading-bridge DIAGNOSTIC_RESULTS.md),"
               " search corpus"),
)

_Run = tuple[tuple[str, ...], "re.Pattern[str]", Callable[[re.Match[str], str], list[Hit]]]


def _runs(scopes: tuple[str, ...]) -> tuple[_Run, ...]:
    """The rows of these scopes, one run per pattern (rows that share a pattern are its
    spellings: their gates are joined)."""
    runs: dict[int, _Run] = {}
    for r in RULES:
        if r.scope not in scopes:
            continue
        have = runs.get(id(r.pattern))
        gates = tuple(dict.fromkeys((have[0] if have else ()) + r.gate))
        runs[id(r.pattern)] = (gates, r.pattern, r.read)
    return tuple(runs.values())


_PROSE_RUN = _runs(("prose", "both"))
_OUTPUT_RUN = _runs(("output", "both"))


def runner_measurements(text: str, prose: bool) -> list[Hit]:
    """What the rows of :data:`RULES` read in ``text`` (ANSI codes already stripped), as
    ``(position, value, unit, label)``."""
    out: list[Hit] = []
    for gates, pattern, read in _PROSE_RUN if prose else _OUTPUT_RUN:
        if not any(g in text for g in gates):
            continue
        for m in pattern.finditer(text):
            out += read(m, text)
    return out
