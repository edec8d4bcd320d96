"""Measurements stated as results: rows of rules, each with a real example.

:mod:`logparse.measure` reads numbers that carry their unit and a label on their line.
What it leaves are results an agent *states* in its text after a command ran, and a few
tool summaries whose count sits before a noun with words between:

* a test tally in prose: ``All 11 tests pass.``, ``181/181 tests passing``, ``91 suites /
  1241 tests passing``, ``All tests passing (31/31)``;
* the value before a change: ``is now 214 MB (down from 3.4 GB)``, ``now 2.50 µs — down
  from 3.52``, ``peak memory down from 3.7 GB to 2.2 GB``;
* a reading stated with ``is now``: ``the bridge is now 2.50 µs``;
* an HTTP status a request came back with: ``The login returned 200``;
* two readings compared: ``gemm time 241.6 ms vs 170.7 ms``, ``(7.48% vs 4.06%)``;
* tool summaries: ``4 moderate severity vulnerabilities`` (npm audit), ``Installed 31
  skills to ~/.claude/skills/`` (a finished action and what it counted), mocha's
  ``36 passing (25s)``, rspec's ``4 examples, 0 failures``, minitest's ``24 runs, 37
  assertions, 0 failures, 0 errors, 0 skips``, bun's ``422 packages installed [22.34s]``,
  BuildKit's ``[+] Building 14.2s (12/12) FINISHED``.

Every rule is a row of :data:`RULES` (a pattern, where it applies, how a match becomes a
measurement, a real example and where it comes from); ``tests/logparse/
test_measure_stated.py`` walks them and checks each example against its trimmed copy in
``fixtures/measure/stated.txt``.  What a row never takes: ids, versions, dates, line
numbers, ports, grep hit counts, token counters (none has a unit these rows read).

Pure, no catching: a rule that raises is a bug a test shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from logparse import measure as _m

__all__ = ["CURL_WRITE_OUT_EXAMPLES", "RULES", "CurlExample",
           "StatedRule", "curl_write_out", "read_note_measurements",
           "stated_measurements"]

Hit = tuple[int, float, str, str]
"""``(position, value, unit, label)``."""

_N = r"\d{1,3}(?:,\d{3})+|\d+"
_DEC = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
# units whose value is a reading (durations, sizes, rates, percentages)
_UNIT = (r"(?:" + "|".join(re.escape(u) for u in sorted(
    [k for k, (_, c) in _m._UNIT_INFO.items()
     if c in (_m.DURATION, _m.SIZE, _m.RATE, _m.PERCENT)], key=len, reverse=True))
    + r")(?![\w/])")


@dataclass(frozen=True)
class StatedRule:
    name: str
    scope: str
    """``prose`` (an agent's or a user's text), ``output`` (a tool's) or ``both``."""
    gate: tuple[str, ...]
    """Substrings one of which the text must hold before the pattern runs (cheap)."""
    pattern: re.Pattern[str]
    read: Callable[[re.Match[str], str], list[Hit]]
    example: str
    """A line the rule fires on, copied from a real transcript or agent report."""
    expect: tuple[float, str]
    """One ``(value, unit)`` the example gives."""
    source: str
    """Where the example comes from (file and line, or the public file)."""


def _f(s: str) -> float:
    return float(s.replace(",", ""))


def _unit(raw: str) -> str:
    return _m._canon_unit(raw)[0]


def _label_before(text: str, end: int) -> str:
    """The subject of a statement: the words of its clause before ``end``."""
    start = text.rfind("\n", 0, end) + 1
    return str(_m._tidy_label(text[start:end]))


# ------------------------------------------------------------------ test tallies


def _passed(m: re.Match[str], text: str) -> list[Hit]:
    return [(m.start("n"), _f(m.group("n")), "passed", "tests")]


def _fraction(m: re.Match[str], text: str) -> list[Hit]:
    n, total = _f(m.group("n")), _f(m.group("d"))
    if n > total or total == 0:
        return []  # "3/2" is no tally
    return [(m.start("n"), n, "passed", "tests"), (m.start("d"), total, "tests", "tests total")]


_TESTS_PASSING_RE = re.compile(
    r"(?<![\w./-])(?P<n>" + _N + r")[ \t]+(?:(?:unit|integration|e2e|new|backend|frontend)"
    r"[ \t]+)?tests?[ \t]+(?:(?:now|still|all)[ \t]+)?(?:pass(?:es|ed|ing)?|green)\b", re.I)
_ALL_N_TESTS_RE = re.compile(
    r"\b[Aa]ll[ \t]+(?P<n>" + _N + r")[ \t]+(?:[a-z]+[ \t]+)?tests?[ \t]+"
    r"(?:(?:now|still)[ \t]+)?pass(?:es|ed|ing)?\b")
_N_TESTS_ALL_PASS_RE = re.compile(
    r"(?<![\w./-])(?P<n>" + _N + r")[ \t]+tests?[ \t]*(?:[—–,:-]+|\band\b)[ \t]*all[ \t]+"
    r"(?:pass(?:es|ed|ing)?|green)\b", re.I)
_FRACTION_RE = re.compile(
    r"(?<![\w./-])(?P<n>" + _N + r")[ \t]*/[ \t]*(?P<d>" + _N + r")(?![\w/])[ \t]+"
    r"(?:(?:unit|integration|e2e)[ \t]+)?(?:tests?[ \t]+)?(?:pass(?:es|ed|ing)?|green)\b", re.I)
_PASSING_FRACTION_RE = re.compile(
    r"\btests?\b[^\n(]{0,20}?\bpass(?:ed|ing)[ \t]*\([ \t]*(?P<n>" + _N + r")[ \t]*/[ \t]*"
    r"(?P<d>" + _N + r")[ \t]*\)", re.I)


# ------------------------------------------------------------ the value before


def _before(m: re.Match[str], text: str) -> list[Hit]:
    """``NOW unit … down from BEFORE [unit]``: the value before, in the unit stated (or the
    current value's unit when the text leaves it out)."""
    now_unit = _unit(m.group("u"))
    unit = _unit(m.group("bu")) if m.group("bu") else now_unit
    label = _label_before(text, m.start("v")) or "value"
    return [(m.start("b"), _f(m.group("b")), unit, f"{label} (before)")]


def _before_count(m: re.Match[str], text: str) -> list[Hit]:
    """``1241 tests passing (up from 1225``: the count before, in the same noun."""
    return [(m.start("b"), _f(m.group("b")), "passed", "tests (before)")]


def _from_to(m: re.Match[str], text: str) -> list[Hit]:
    """``peak memory down from 3.7 GB to 2.2 GB``: both ends of a change of a metric."""
    subject = _label_before(text, m.start())
    if not subject or _m._METRIC_RE.search(subject) is None or _m._is_setting(subject, ""):
        return []  # "reduced inset from 8% to 5%": an edit, not a reading
    return [(m.start("a"), _f(m.group("a")), _unit(m.group("au")), f"{subject} (before)"),
            (m.start("b"), _f(m.group("b")), _unit(m.group("bu")), subject)]


_DOWN_FROM_RE = re.compile(
    r"(?<![\w.])(?P<v>" + _DEC + r")[ \t]?(?P<u>" + _UNIT + r")[^\n\d.;!?]{0,24}?\b"
    r"(?:down|up|dropped|fell|rose|reduced|improved|shrunk|grew)[ \t]+from[ \t]+[~≈]?"
    r"(?P<b>" + _DEC + r")(?![\d.,]\d)(?:[ \t]?(?P<bu>" + _UNIT + r"))?", re.I)
_UP_FROM_COUNT_RE = re.compile(
    r"(?<![\w./-])(?:" + _N + r")[ \t]+tests?[ \t]+pass(?:ing|ed)?[ \t]*[(,—–-][ \t]*"
    r"(?:up|down)[ \t]+from[ \t]+(?P<b>" + _N + r")(?![\w.])", re.I)
_FROM_TO_RE = re.compile(
    r"\bfrom[ \t]+[~≈]?(?P<a>" + _DEC + r")[ \t]?(?P<au>" + _UNIT + r")[ \t]+(?:to|→|->)"
    r"[ \t]+[~≈]?(?P<b>" + _DEC + r")[ \t]?(?P<bu>" + _UNIT + r")")


# ------------------------------------------------------------------ a comparison


def _versus(m: re.Match[str], text: str) -> list[Hit]:
    """``gemm time 241.6 ms vs 170.7 ms``: two readings of one quantity side by side, the
    second in the first's unit when it names none."""
    label = _label_before(text, m.start())
    before = text[max(0, m.start() - 40):m.start()]
    if _m._is_setting(label, before) or _m._is_setting(label + " x", before):
        return []
    u = _unit(m.group("au"))
    bu = _unit(m.group("bu")) if m.group("bu") else u
    if _m._canon_unit(m.group("au"))[1] != _m._canon_unit(m.group("bu") or m.group("au"))[1]:
        return []  # "3 s vs 5%": not one quantity
    return [(m.start("a"), _f(m.group("a")), u, label or "compared"),
            (m.start("b"), _f(m.group("b")), bu, f"{label} (compared)".strip())]


_VERSUS_RE = re.compile(
    r"(?<![\w.])(?P<a>" + _DEC + r")[ \t]?(?P<au>" + _UNIT + r")[ \t]+(?:vs\.?|versus)[ \t]+"
    r"[~≈]?(?P<b>" + _DEC + r")(?![\d.,]\d)(?:[ \t]?(?P<bu>" + _UNIT + r"))?(?![\w/])")


# --------------------------------------------------------------- stated reading


def _is_now(m: re.Match[str], text: str) -> list[Hit]:
    label = _label_before(text, m.start())
    if not label or _m._is_setting(label, text[max(0, m.start() - 40):m.start()]):
        return []
    return [(m.start("v"), _f(m.group("v")), _unit(m.group("u")), label)]


_IS_NOW_RE = re.compile(
    r"(?<=[A-Za-z`'\")\]])[ \t]+(?:is|are)[ \t]+now[ \t]+(?:(?:at|only|just|about|around|"
    r"down[ \t]+to|up[ \t]+to)[ \t]+)?[*_~≈ \t]*(?P<v>" + _DEC + r")[ \t]?(?P<u>" + _UNIT
    + r")")


# ------------------------------------------------------------------ HTTP status


def _http(m: re.Match[str], text: str) -> list[Hit]:
    return [(m.start("c"), float(m.group("c")), "HTTP", "HTTP status")]


_HTTP_RETURNED_RE = re.compile(
    r"\b(?:returned|responded[ \t]+with|answered[ \t]+with|came[ \t]+back[ \t]+with"
    r"|now[ \t]+returns)[ \t]+(?:an?[ \t]+|(?:HTTP|status)[ \t]+(?:code[ \t]+)?)?"
    r"(?P<c>[1-5]\d\d)(?![\w/]|[.,:]\d|[ \t]+(?:bytes?|items?|rows?|results?|lines?|records?"
    r"|entries|files?|tokens?|chars?)\b)")


# ------------------------------------------------- HTTP status in an error line

_REASONS: dict[int, str] = {
    200: "ok", 201: "created", 202: "accepted", 204: "no content",
    301: "moved permanently", 302: "found", 303: "see other", 304: "not modified",
    307: "temporary redirect", 308: "permanent redirect",
    400: "bad request", 401: "unauthorized", 402: "payment required", 403: "forbidden",
    404: "not found", 405: "method not allowed", 406: "not acceptable",
    408: "request timeout", 409: "conflict", 410: "gone", 413: "payload too large",
    415: "unsupported media type", 422: "unprocessable entity", 429: "too many requests",
    500: "internal server error", 501: "not implemented", 502: "bad gateway",
    503: "service unavailable", 504: "gateway timeout",
}
"""HTTP's reason phrases (RFC 9110): a status is read with its own phrase only, so ``200
Not Found`` or ``404 OK`` is no status."""


def _http_reason(m: re.Match[str], text: str) -> list[Hit]:
    """``404 Not Found`` (wget, npm, a server's page title), ``404 Client Error`` (Python
    requests): the code and the phrase that names it."""
    code = int(m.group("c"))
    phrase = " ".join(m.group("r").lower().split())
    if phrase in ("client error", "server error"):
        ok = (code // 100 == 4) == (phrase == "client error")
    else:
        ok = _REASONS.get(code) == phrase or (code == 422 and phrase == "unprocessable content")
    return [(m.start("c"), float(code), "HTTP", "HTTP status")] if ok else []


_HTTP_REASON_RE = re.compile(
    r"(?<![\w.:/#'\"`-])(?P<c>[1-5]\d\d)[ \t]+(?P<r>"
    + "|".join(sorted({re.escape(v).replace(r"\ ", r"[ \t]+") for v in _REASONS.values()}
                      | {r"unprocessable[ \t]+content", r"client[ \t]+error",
                         r"server[ \t]+error"}, key=len, reverse=True))
    + r")(?![\w-])", re.I)
_URL_ERROR_RE = re.compile(
    r"\bThe requested URL returned error:[ \t]*(?P<c>[1-5]\d\d)(?![\w.])")
"""libcurl's failure line (``curl -f``, ``git clone`` over HTTPS, pacman, vagrant):
``curl: (22) The requested URL returned error: 404``."""


def _errors_in_files(m: re.Match[str], text: str) -> list[Hit]:
    """tsc's ``Found 3 errors in 2 files.``, svelte-check's ``found 5 errors and 2 warnings
    in 3 files``: how many files the diagnostics are in (fewer is better)."""
    return [(m.start("n"), _f(m.group("n")), "files", "files with errors")]


_ERRORS_IN_FILES_RE = re.compile(
    r"\b[Ff]ound[ \t]+\d+[ \t]+errors?(?:[ \t]+and[ \t]+\d+[ \t]+warnings?)?[ \t]+in[ \t]+"
    r"(?P<n>\d+)[ \t]+files?\b")


# ------------------------------------------------- Swift's and .NET's summaries


def _swift_run(m: re.Match[str], text: str) -> list[Hit]:
    """swift-testing's last line: how many tests ran, their outcome, the run's time and
    the issues it recorded."""
    n = _f(m.group("n"))
    out: list[Hit] = [(m.start("n"), n, "passed" if m.group("w") == "passed" else "tests",
                       "tests" if m.group("w") == "passed" else "tests run"),
                      (m.start("t"), _f(m.group("t")), "s", "test run")]
    if m.group("i"):
        out.append((m.start("i"), _f(m.group("i")), "failures", "test issues"))
    return out


_SWIFT_RUN_RE = re.compile(
    r"\bTest run with (?P<n>\d+) tests?(?: in \d+ suites?)? (?P<w>passed|failed) after "
    r"(?P<t>" + _DEC + r") seconds?(?: with (?P<i>\d+) issues?)?")
"""swift-testing (``swift test``): ``✔ Test run with 3 tests in 1 suite passed after 0.029
seconds.``, ``✘ Test run with 4 tests failed after 0.030 seconds with 1 issue.``"""


def _xctest(m: re.Match[str], text: str) -> list[Hit]:
    return [(m.start("t"), _f(m.group("t")), "s", "tests executed")]


_XCTEST_RE = re.compile(
    r"\bExecuted \d+ tests?, with \d+ failures? \(\d+ unexpected\) in (?P<t>" + _DEC
    + r")(?: \((?:" + _DEC + r")\))? seconds\b")
"""XCTest's suite line: ``Executed 67 tests, with 0 failures (0 unexpected) in 0.212 (0.212)
seconds`` (the counts are read by :mod:`logparse.measure`, the time here)."""


def _msbuild(m: re.Match[str], text: str) -> list[Hit]:
    if m.group("w") is not None:
        return [(m.start("w"), _f(m.group("w")), "warnings", "build warnings")]
    if m.group("e") is not None:
        return [(m.start("e"), _f(m.group("e")), "errors", "build errors")]
    secs = int(m.group("h")) * 3600 + int(m.group("mi")) * 60 + float(m.group("s"))
    return [(m.start("h"), round(secs, 6), "s", "build time")]


_MSBUILD_RE = re.compile(
    r"^[ \t]*(?:(?P<w>\d+)[ \t]+Warning\(s\)|(?P<e>\d+)[ \t]+Error\(s\)"
    r"|Time Elapsed[ \t]+(?P<h>\d+):(?P<mi>\d\d):(?P<s>\d\d(?:\.\d+)?))[ \t\r]*$", re.M)
"""MSBuild's summary (``dotnet build``, ``msbuild``): ``    0 Warning(s)``, ``    2
Error(s)``, ``Time Elapsed 00:00:03.45``."""


# -------------------------------------------------------------- tool summaries


def _audit(m: re.Match[str], text: str) -> list[Hit]:
    return [(m.start("n"), _f(m.group("n")), "vulnerabilities",
             f"{m.group('sev').lower()} severity vulnerabilities")]


def _done_count(m: re.Match[str], text: str) -> list[Hit]:
    return [(m.start("n"), _f(m.group("n")), m.group("noun"),
             f"{m.group('verb').capitalize()} {m.group('noun')}")]


def _mocha(m: re.Match[str], text: str) -> list[Hit]:
    word = m.group("w").lower()
    out: list[Hit] = [(m.start("n"), _f(m.group("n")), _MOCHA_UNITS[word], "tests")]
    if m.group("t"):
        out.append((m.start("t"), _f(m.group("t")), _unit(m.group("tu")), f"tests {word}"))
    return out


_MOCHA_UNITS = {"passing": "passed", "failing": "failed", "pending": "pending"}
_MOCHA_RE = re.compile(
    r"^[ \t]*(?P<n>\d+)[ \t]+(?P<w>passing|failing|pending)[ \t]*(?:\([ \t]*(?P<t>"
    + _DEC + r")[ \t]?(?P<tu>ms|s|m|h|min)[ \t]*\))?[ \t]*$", re.M)
"""mocha's (and hardhat's, truffle's) tally lines: ``36 passing (25s)``, ``2 failing``."""
def _rspec(m: re.Match[str], text: str) -> list[Hit]:
    out: list[Hit] = [(m.start("n"), _f(m.group("n")), "tests", "examples"),
                      (m.start("f"), _f(m.group("f")), "failures", "examples failed")]
    if m.group("p"):
        out.append((m.start("p"), _f(m.group("p")), "pending", "examples pending"))
    return out


_RSPEC_RE = re.compile(
    r"^[ \t]*(?P<n>\d+)[ \t]+examples?,[ \t]+(?P<f>\d+)[ \t]+failures?"
    r"(?:,[ \t]+(?P<p>\d+)[ \t]+pending)?[ \t]*$", re.M)
"""rspec's summary line: ``4 examples, 0 failures`` (``, 2 pending``)."""


def _minitest(m: re.Match[str], text: str) -> list[Hit]:
    return [(m.start("n"), _f(m.group("n")), "tests", "test runs"),
            (m.start("a"), _f(m.group("a")), "assertions", "assertions"),
            (m.start("f"), _f(m.group("f")), "failures", "test failures"),
            (m.start("e"), _f(m.group("e")), "errors", "test errors"),
            (m.start("s"), _f(m.group("s")), "skipped", "tests skipped")]


_MINITEST_RE = re.compile(
    r"^[ \t]*(?P<n>\d+)[ \t]+(?:runs|tests),[ \t]+(?P<a>\d+)[ \t]+assertions,[ \t]+"
    r"(?P<f>\d+)[ \t]+failures,[ \t]+(?P<e>\d+)[ \t]+errors,[ \t]+(?P<s>\d+)[ \t]+skips\b", re.M)
"""minitest's (and test-unit's) summary: ``12 runs, 30 assertions, 0 failures, 0 errors,
0 skips``."""


def _bracket_time(m: re.Match[str], text: str) -> list[Hit]:
    return [(m.start("t"), _f(m.group("t")), _unit(m.group("u")), "packages installed")]


_BUN_RE = re.compile(
    r"^[ \t]*\d+[ \t]+packages?[ \t]+installed[ \t]+\[(?P<t>" + _DEC + r")(?P<u>ms|s)\][ \t]*$",
    re.M)
"""bun's install summary: ``120 packages installed [1.82s]`` (the count is read by
:mod:`logparse.measure`, the time in brackets here)."""
def _docker(m: re.Match[str], text: str) -> list[Hit]:
    return [(m.start("t"), _f(m.group("t")), "s", "docker build"),
            (m.start("n"), _f(m.group("n")), "steps", "docker build steps")]


_DOCKER_RE = re.compile(
    r"^\[\+\][ \t]+Building[ \t]+(?P<t>" + _DEC + r")s[ \t]+\((?P<n>\d+)/(?P=n)\)[ \t]+"
    r"FINISHED\b", re.M)
"""BuildKit's last progress line: ``[+] Building 14.2s (12/12) FINISHED``."""
_AUDIT_RE = re.compile(
    r"^[ \t]*(?P<n>\d+)[ \t]+(?P<sev>low|moderate|high|critical)[ \t]+severity[ \t]+"
    r"vulnerabilit(?:y|ies)\b", re.M)
_DONE_COUNT_RE = re.compile(
    r"^[^\w\n]{0,6}(?P<verb>Installed|Added|Created|Removed|Deleted|Generated|Compiled"
    r"|Updated|Migrated|Processed|Indexed|Uploaded|Downloaded|Copied|Wrote|Fetched|Linked"
    r"|Extracted|Imported|Exported|Synced|Cleaned)[ \t]+(?P<n>" + _N + r")[ \t]+"
    r"(?P<noun>[a-z][a-z-]{1,20}s)\b", re.M)


# ------------------------------------------------------------------ prices

_FIAT = "USD|EUR|GBP|JPY|CHF|CAD|AUD|NZD|CNY|INR|BRL|SGD|HKD|KRW|MXN"
_DOLLARS_RE = re.compile(
    r"(?<![\w$\\.%{/])\$[ \t]?(?P<d>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+\.\d+)"
    r"(?![\d.,]?\d|[\w%$])")
"""An amount of money after a dollar sign, written as money (``$3184.36``, ``$10,000``:
cents or thousands' commas, so that a shell's ``$1`` is never one; nor a group in a
replacement, ``s/v(\\d+)/$1.0/``)."""
_CODE_AMOUNT_RE = re.compile(
    r"(?<![\w$\\.%{,])(?P<n>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?)[ \t]?"
    r"(?P<c>(?:" + _FIAT + r")[A-Z]?|SOL|ETH|BTC)(?![\w.-])")
"""An amount before its currency's code: an ISO code, a stablecoin named after one (the
code and one letter: ``USDC``, ``USDG``, ``EURC``) or a chain's own coin (``0.5 SOL``).
Never from just after a comma: each comma of a long ``1,000,000,…`` would scan the run
again to its end (quadratic)."""


def _price(m: re.Match[str], text: str) -> list[Hit]:
    a = text.rfind("\n", 0, m.start()) + 1
    b = text.find("\n", m.end())
    if _m._skip_line(text[a:b if b != -1 else len(text)], False):
        return []  # a grep hit of source code, a CSV row, a box-drawn table
    g = "d" if "d" in m.re.groupindex else "n"
    unit = "USD" if g == "d" else m.group("c")
    label = _label_before(text, m.start())
    prev = _AMOUNT_BEFORE_RE.search(label)
    if prev:  # "USDC out:  3184.355095 USDC ($3184.36)": the subject of the amount before
        label = _m._tidy_label(label[:prev.start()])
    return [(m.start(g), _f(m.group(g)), unit, label or "amount")]


_AMOUNT_BEFORE_RE = re.compile(
    r"(?:\$[ \t]?[\d,.]+|(?<![\d,.])[\d,.]+[ \t]?(?:(?:" + _FIAT + r")[A-Z]?|SOL|ETH|BTC))"
    r"[\s,;(]*$")
"""An amount ending a price's label: the one before it on its line, whose subject it shares
(a number is read from its first digit only: no rescan of a long run from each digit)."""


RULES: tuple[StatedRule, ...] = (
    StatedRule("all-n-tests-pass", "prose", ("pass", "Pass"), _ALL_N_TESTS_RE, _passed,
               "All 11 tests pass. The env variables now use `HH:MM` format:",
               (11.0, "passed"), "labelled/will-it-rain__claude.jsonl:270"),
    StatedRule("n-tests-passing", "prose", ("pass", "PASS", "green"), _TESTS_PASSING_RE,
               _passed,
               "- Full suite still green: 91 suites / 1241 tests passing (up from 1225, +16 "
               "from this plan)",
               (1241.0, "passed"),
               "public agent summary (GSD plan 19-01), search corpus id 51859844572"),
    StatedRule("n-tests-all-passing", "prose", ("pass", "green"), _N_TESTS_ALL_PASS_RE,
               _passed, "- 3 test files with 10 tests — all passing", (10.0, "passed"),
               "labelled/will-it-rain__claude.jsonl:139"),
    StatedRule("tests-fraction-passing", "prose", ("pass", "PASS", "green"), _FRACTION_RE,
               _fraction,
               "Done. Build clean, 181/181 tests passing (166 before this step's own",
               (181.0, "passed"),
               "public agent step report (dsh-desktop step 3), search corpus id 62585413797"),
    StatedRule("tests-passing-fraction", "prose", ("pass",), _PASSING_FRACTION_RE,
               _fraction, "✓ All tests passing (31/31)", (31.0, "tests"),
               "public agent summary (HITL implementation), search corpus id 38555870332"),
    StatedRule("tests-up-from", "prose", ("up from", "down from"), _UP_FROM_COUNT_RE,
               _before_count,
               "- Full suite still green: 91 suites / 1241 tests passing (up from 1225, +16 "
               "from this plan)",
               (1225.0, "passed"),
               "public agent summary (GSD plan 19-01), search corpus id 51859844572"),
    StatedRule("down-from", "prose", (" from ",), _DOWN_FROM_RE, _before,
               "`assets/` is now **214 MB** (down from 3.4 GB). The repository is lean",
               (3.4, "GB"),
               "public agent audit (portfolio repo), search corpus id 68924939852"),
    StatedRule("down-from-same-unit", "prose", (" from ",), _DOWN_FROM_RE, _before,
               "**8.3x on that part, and the bridge is now 2.50 µs** — down from 3.52, and",
               (3.52, "µs"),
               "public agent perf log (m0serve bridge), search corpus id 61379920262"),
    StatedRule("metric-from-to", "prose", (" from ",), _FROM_TO_RE, _from_to,
               "    // same 7s build at 2 workers, with peak memory down from 3.7 GB to 2.2 GB",
               (2.2, "GB"),
               "public next.config comment, search corpus id 71522558462"),
    StatedRule("versus", "both", (" vs", "versus"), _VERSUS_RE, _versus,
               "  kernels instead), gemm time 241.6 ms vs 170.7 ms (P1 probe runs). End-to-end:",
               (170.7, "ms"), "public perf notes, search corpus id 71654615863 (also "
                              "'(2.36ms vs 1.46ms)', id 24233706178)"),
    StatedRule("versus-percent", "both", (" vs", "versus"), _VERSUS_RE, _versus,
               "La diferencia (7.48% vs 4.06%) puede deberse a varias razones:",
               (4.06, "%"), "pool/conversacion-act1-pln__session.jsonl:139"),
    StatedRule("is-now", "prose", (" now ",), _IS_NOW_RE, _is_now,
               "**8.3x on that part, and the bridge is now 2.50 µs** — down from 3.52, and",
               (2.5, "µs"),
               "public agent perf log (m0serve bridge), search corpus id 61379920262"),
    StatedRule("http-returned", "prose", ("return", "respond", "answered", "came back"),
               _HTTP_RETURNED_RE, _http,
               "The login returned 200, which means it probably showed the login form again",
               (200.0, "HTTP"), "labelled/uicomponents__session-wordpress.json:24243"),
    StatedRule("http-returned-a", "prose", ("return", "respond", "answered", "came back"),
               _HTTP_RETURNED_RE, _http,
               "The showcase page returned a 301 (redirect) and the react-showcase returned 200.",
               (301.0, "HTTP"), "labelled/uicomponents__session-wordpress.json:20169"),
    StatedRule("http-url-returned-error", "output", ("returned error",), _URL_ERROR_RE,
               _http, "curl: (22) The requested URL returned error: 404", (404.0, "HTTP"),
               "public setup notes quoting curl -f, search corpus id 68293080177 (also git "
               "clone's 'fatal: unable to access ...: The requested URL returned error: 404', "
               "id 71146242672)"),
    StatedRule("http-status-reason", "output", ("Not ", "OK", "Forbidden", "Unauthorized",
                                                "Error", "Bad ", "Too Many", "Unavailable",
                                                "Created", "Moved", "Conflict", "Gone",
                                                "Timeout", "Unprocessable"),
               _HTTP_REASON_RE, _http_reason,
               "HTTP request sent, awaiting response... 404 Not Found", (404.0, "HTTP"),
               "public wget log, search corpus id 35225514877 (also npm's 'npm error 404 Not "
               "Found - GET https://registry.npmjs.org/@speckle%2fsdk', id 17282519459)"),
    StatedRule("http-client-error", "output", ("Client Error", "Server Error"),
               _HTTP_REASON_RE, _http_reason,
               "404 Client Error: Not Found for url: https://api.postcodes.io/postcodes/XXX",
               (404.0, "HTTP"), "public README quoting a Python requests run, search corpus "
                                "id 43670896177"),
    StatedRule("errors-in-files", "output", (" in ",), _ERRORS_IN_FILES_RE, _errors_in_files,
               "svelte-check found 5 errors and 2 warnings in 3 files", (3.0, "files"),
               "pool/civ6.ch__session.jsonl:62 (also tsc's 'Found 2 errors in 2 files.', "
               "search corpus id 151341871)"),
    StatedRule("swift-testing-run", "output", ("Test run with",), _SWIFT_RUN_RE, _swift_run,
               "✔ Test run with 3 tests in 1 suite passed after 0.029 seconds.",
               (0.029, "s"), "public agent notes quoting swift test, search corpus id "
                             "61082639084 (also 'Test run with 7 tests in 1 suite passed "
                             "after 3.556 seconds.', id 68403351045)"),
    StatedRule("xctest-executed", "output", ("Executed ",), _XCTEST_RE, _xctest,
               "Executed 67 tests, with 0 failures (0 unexpected) in 0.212 (0.212) seconds",
               (0.212, "s"), "public CI notes quoting swift test, search corpus id "
                             "55665040221"),
    StatedRule("msbuild-errors", "output", ("Warning(s)", "Error(s)", "Time Elapsed"),
               _MSBUILD_RE, _msbuild, "    0 Error(s)", (0.0, "errors"),
               "public dotnet build log in a README, search corpus id 42136948155"),
    StatedRule("msbuild-elapsed", "output", ("Warning(s)", "Error(s)", "Time Elapsed"),
               _MSBUILD_RE, _msbuild, "Time Elapsed 00:00:03.45", (3.45, "s"),
               "public dotnet build log in a README, search corpus id 42136948155"),
    StatedRule("mocha-tally", "output", ("passing", "failing", "pending"), _MOCHA_RE, _mocha,
               "  36 passing (25s)", (36.0, "passed"),
               "public mocha/hardhat test log, search corpus id 43910693702"),
    StatedRule("npm-audit-severity", "output", ("severity vulnerabilit",), _AUDIT_RE, _audit,
               "4 moderate severity vulnerabilities", (4.0, "vulnerabilities"),
               "labelled/will-it-rain__claude.jsonl:127"),
    StatedRule("rspec-summary", "output", ("example",), _RSPEC_RE, _rspec,
               "4 examples, 0 failures", (4.0, "tests"),
               "rspec-3-book/book-code 06-integration-specs/09/sessions/"
               "each_spec_file_success.pml"),
    StatedRule("minitest-summary", "output", ("assertions",), _MINITEST_RE, _minitest,
               "24 runs, 37 assertions, 0 failures, 0 errors, 0 skips", (24.0, "tests"),
               "public Rails agent report (minitest run), search corpus id 37609701724"),
    StatedRule("bun-install-time", "output", ("installed [",), _BUN_RE, _bracket_time,
               "422 packages installed [22.34s]", (22.34, "s"),
               "public bun install log in an agent report, search corpus id 66836085209"),
    StatedRule("docker-build", "output", ("[+] Building",), _DOCKER_RE, _docker,
               "[+] Building 14.2s (12/12) FINISHED", (14.2, "s"),
               "public docker build log in a README, search corpus id 71358029653 (also "
               "'[+] Building 0.7s (8/8) FINISHED', id 5954666368)"),
    StatedRule("price-dollars", "both", ("$",), _DOLLARS_RE, _price,
               "  USDC out:  3184.355095 USDC ($3184.36)", (3184.36, "USD"),
               "pool/blockchain-dex-events__claude-session.jsonl:271 (also '($3184.35)' at "
               ":443)"),
    StatedRule("price-currency-code", "both", ("USD", "EUR", "GBP", "AUD", "SOL", "ETH",
                                               "BTC", "JPY", "CHF", "CAD", "CNY", "INR"),
               _CODE_AMOUNT_RE, _price,
               "The live Agentic Engineering listing is still active: 200 USDG cheque size, "
               "global, roughly 1 week response time", (200.0, "USDG"),
               "pool/Rivo__codex-session.jsonl:162 (also '10,000 USDG prize pool', "
               "pool/FundWise__claude-session.jsonl:18)"),
    StatedRule("done-verb-count", "output", ("ed ",), _DONE_COUNT_RE, _done_count,
               "  ✓ Installed 31 skills to ~/.claude/skills/", (31.0, "skills"),
               "labelled/Valdyum-Labs__codex-session.jsonl:95"),
)

# ------------------------------------------------------- what a read tool noted

READ_NOTE_MAX = 400
"""A read's output this short on one line is the tool's note (an error, a binary file's
size), not the file: its numbers are read like any tool output's."""


def read_note_measurements(output: str, name: str) -> list[tuple[float, str, str]]:
    """What a read tool's output says about the file ``name`` it read: the numbers of a
    one-line note (``File content (40694 tokens) exceeds maximum allowed tokens (10000)``,
    ``PDF file read: … (295.5KB)``).  A directory's footer (opencode's ``(21 entries)``) is
    an ``ls`` entry count, no reading (:data:`logparse.measure_kinds.KINDS`)."""
    out: list[tuple[float, str, str]] = []
    note = output.strip()
    if note and len(note) <= READ_NOTE_MAX and "\n" not in note:
        out += _m.measurement_tuples(note)
    return out


def _passes(scopes: tuple[str, ...]) -> tuple[StatedRule, ...]:
    """The rows of ``scopes``, one per pattern (two rows may show one pattern on two
    examples)."""
    seen: set[re.Pattern[str]] = set()
    out = []
    for r in RULES:
        if r.scope in scopes and r.pattern not in seen:
            seen.add(r.pattern)
            out.append(r)
    return tuple(out)


# ------------------------------------------------------------ curl --write-out

_CURL_VARS: dict[str, tuple[str, str]] = {
    "http_code": ("HTTP", "HTTP status"), "response_code": ("HTTP", "HTTP status"),
    "time_total": ("s", "time_total"), "time_connect": ("s", "time_connect"),
    "time_starttransfer": ("s", "time_starttransfer"),
    "time_namelookup": ("s", "time_namelookup"), "time_appconnect": ("s", "time_appconnect"),
    "time_pretransfer": ("s", "time_pretransfer"), "time_redirect": ("s", "time_redirect"),
    "size_download": ("B", "size_download"), "size_upload": ("B", "size_upload"),
    "size_header": ("B", "size_header"), "size_request": ("B", "size_request"),
    "speed_download": ("B/s", "speed_download"), "speed_upload": ("B/s", "speed_upload"),
    "num_redirects": ("redirects", "num_redirects"),
}
"""curl's ``--write-out`` variables that measure (unit, label); others (``url_effective``)
only take their place in the format."""


@dataclass(frozen=True)
class CurlExample:
    command: str
    output: str
    expect: tuple[float, str]
    source: str


CURL_WRITE_OUT_EXAMPLES: tuple[CurlExample, ...] = (
    CurlExample('curl -s -o NUL -w "%{http_code}" http://localhost:8882/showcase/', "301",
                (301.0, "HTTP"), "labelled/uicomponents__session-wordpress.json, message 193"),
    CurlExample('curl -sL -o NUL -w "%{http_code}\\n%{url_effective}" '
                "http://localhost:8882/showcase/", "200\r\nhttp://localhost:8882/",
                (200.0, "HTTP"), "labelled/uicomponents__session-wordpress.json, message 194"),
)
"""The real calls the ``--write-out`` reading is checked on (the rule is the format: each
variable of :data:`_CURL_VARS` it names is read where the format puts it)."""

_CURL_W_RE = re.compile(
    r"(?<![\w.-])curl(?:\.exe)?[ \t][^\n|;&]{0,2000}?(?:-w|--write-out)(?:[ \t]+|=)"
    r"(?:\"((?:[^\"\\\n]|\\.){1,400})\"|'([^'\n]{1,400})')")
_CURL_VAR_RE = re.compile(r"%\{([\w.]+)\}")
_CURL_EDGE = 4000


def curl_write_out(command: str, output: str) -> list[tuple[float, str, str]]:
    """What a ``curl -w FORMAT`` printed, read through its format: ``-w "%{http_code}"``
    and an output ``301`` is an HTTP status; ``time=%{time_total}`` a duration.  The
    format's text must stand at the output's start or end (where curl writes it)."""
    if "curl" not in command or "%{" not in command or not output:
        return []
    out: list[tuple[float, str, str]] = []
    text = output.replace("\r\n", "\n").strip()
    heads = (text[:_CURL_EDGE], text[-_CURL_EDGE:])
    for fm in _CURL_W_RE.finditer(command):
        fmt = (fm.group(1) if fm.group(1) is not None else fm.group(2)).replace("\\n", "\n")
        names = _CURL_VAR_RE.findall(fmt)
        if not any(n in _CURL_VARS for n in names):
            continue
        pieces = _CURL_VAR_RE.split(fmt)  # literal, name, literal, name, ...
        rx = ""
        for k, piece in enumerate(pieces):
            if k % 2:
                rx += r"([\d.]+)" if piece in _CURL_VARS else r"(\S{1,400}?)"
            else:
                words = piece.split()
                if not words:
                    rx += r"\s*" if piece else ""
                    continue
                rx += (r"\s*" if piece[0].isspace() else "") + r"\s*".join(
                    re.escape(w) for w in words) + (r"\s*" if piece[-1].isspace() else "")
        for anchored, where in ((r"\A" + rx, heads[0]), (rx + r"\Z", heads[1])):
            m = re.search(anchored, where.strip())
            if m is None:
                continue
            for name, value in zip(names, m.groups()):
                if name not in _CURL_VARS:
                    continue
                try:
                    v = float(value)
                except ValueError:
                    continue
                unit, label = _CURL_VARS[name]
                if unit == "HTTP" and not (value.isdigit() and 100 <= v <= 599):
                    continue  # 000: no answer at all
                out.append((v, unit, label))
            break
    return out


_PROSE_RULES = _passes(("prose", "both"))
_OUTPUT_RULES = _passes(("output", "both"))


def stated_measurements(text: str, prose: bool) -> list[Hit]:
    """What the rows of :data:`RULES` read in ``text`` (ANSI codes already stripped), as
    ``(position, value, unit, label)``, in the order the rows give them."""
    out: list[Hit] = []
    for rule in _PROSE_RULES if prose else _OUTPUT_RULES:
        if not any(g in text for g in rule.gate):
            continue
        for m in rule.pattern.finditer(text):
            out += rule.read(m, text)
    return out
