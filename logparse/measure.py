"""Measurements: the numbers a tool output or a message reports, with unit and label.

Pure and fast: it runs on the output of most tool calls and on every piece of prose of
sessions with 100k messages.  One combined regular expression walks a text once and
nominates candidates:

* ``number [qualifier] unit``: rates (anything per second, per minute or per hour,
  ``tok/s``, ``MB/s``, ``req/s``, ``IOPS``, ``TFLOPS``), durations (``ns`` to ``hours``,
  compound ``3m12s``), sizes (bytes to ``TiB``), percentages and ratios (``%``, ``1.09x``),
  token counts and the counts that tools report (``42 passed``, ``3 errors``,
  ``1484 insertions(+)``, ``63 matches``, ``461 modules transformed``);
* ``key: number`` / ``key = number`` without a unit, when the key names a measured
  quantity (``Content-Length: 74358``, ``Requests/sec: 16380.12``, ``tps = 1234.5``,
  ``IOPS=12.3k``, ``time_total: 0.12``, ``Substr count 'x': 25``);
* HTTP statuses (``HTTP/1.1 404 Not Found``, ``Status: 200``, ``status code 502``).

Each candidate is then judged by its line: a rate is always a measurement; a duration, a
percentage or a ratio needs a label (``label: 12 ms``), a metric word (``p99 43 ms``,
``latency of 12 ms``), a table cell, a comparison (``30% faster``) or a finished action
(``built in 750ms``, ``took 3m12s``, ``(0.01s)``); a configured setting (``timeout =
30s``, ``--interval 5s``, ``sleep 5 s``) never is, an exceeded timeout is.  Versions
(``8.2.30``), dates, times of day, ports (``:8080``), line numbers (``file.py:12``), PIDs and
hex ids carry no unit and are never taken.  Lines that are source code (grep hits of source
files), box-drawn tables (``nvidia-smi``) and CSV rows are skipped.

The label (what was measured) comes from the words before the number on its line (its
clause), else the words after it, else the line's heading (``Tests:``); ``p50 6 ms`` and
``p99 43 ms`` each keep their own label.

A few block forms are read as blocks: ``label (unit): value`` rows, a ``Benchmark Result``
block's unitless rows, ``nccl-tests`` rows, ``ls -l`` file sizes and ``du`` lines.

Nothing here catches an error: a rule that raises is a bug that a test shows; at ingest
the error is counted and reported as a problem and the session still ingests
(``logparse.derive.Deriver._rule``).
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections.abc import Callable
from functools import lru_cache
from typing import TYPE_CHECKING

from logparse.measure_summaries import summary_readings

__all__ = [
    "compiler_error_count",
    "listing_length",
    "listing_measurements",
    "more_lines",
    "measurement_tuples",
    "measurements",
    "numbered_length",
    "query_row_counts",
    "round_sig",
]

_MAX_MEASUREMENTS = 200

# --------------------------------------------------------------------------- units

# unit classes
RATE, DURATION, SIZE, SHORT_SIZE, PERCENT, RATIO, COUNT, TOKENS = range(8)

_DURATIONS = {
    "nanoseconds": "ns", "nanosecond": "ns", "nsec": "ns", "ns": "ns",
    "microseconds": "µs", "microsecond": "µs", "usec": "µs", "us": "µs", "µs": "µs", "μs": "µs",
    "milliseconds": "ms", "millisecond": "ms", "msec": "ms", "msecs": "ms", "ms": "ms",
    "seconds": "s", "second": "s", "secs": "s", "sec": "s", "s": "s",
    "minutes": "min", "minute": "min", "mins": "min", "min": "min",
    "hours": "h", "hour": "h", "hrs": "h", "hr": "h",
}
_SIZES = {
    "bytes": "B", "byte": "B", "B": "B",
    "kB": "kB", "KB": "kB", "kb": "kB", "KiB": "KiB", "MB": "MB", "MiB": "MiB", "GB": "GB",
    "GiB": "GiB", "TB": "TB", "TiB": "TiB", "PB": "PB",
    "Ki": "KiB", "Mi": "MiB", "Gi": "GiB", "Ti": "TiB",  # Kubernetes quantities, free -h
    "kbytes": "KiB", "Kbytes": "KiB",  # GNU time -v: "Maximum resident set size (kbytes)"
}
_SHORT_SIZES = {"K": "KiB", "M": "MiB", "G": "GiB", "T": "TiB"}  # du -h, df -h
_RATES = {
    "tokens/sec": "tokens/s", "tokens/s": "tokens/s", "token/s": "token/s", "tok/sec": "tok/s",
    "tok/s": "tok/s", "toks/s": "tok/s", "requests/s": "req/s", "requests/sec": "req/s",
    "reqs/s": "req/s", "req/sec": "req/s", "req/s": "req/s", "rps": "req/s", "qps": "qps",
    "tps": "tps", "ops/s": "ops/s", "ops/sec": "ops/s", "IOPS": "IOPS", "iops": "IOPS",
    "it/s": "it/s", "fps": "fps", "FPS": "fps",
    "TFLOPS": "TFLOPS", "TFLOP/s": "TFLOPS", "TFLOPs": "TFLOPS", "tflops": "TFLOPS",
    "GFLOPS": "GFLOPS", "GFLOP/s": "GFLOPS", "Gbps": "Gbit/s", "Mbps": "Mbit/s",
    "Kbps": "kbit/s", "kbps": "kbit/s", "bps": "bit/s", "Gbit/s": "Gbit/s", "Mbit/s": "Mbit/s",
}
_PERCENTS = {"%": "%", "percent": "%"}
_RATIOS = {"x": "x", "×": "x"}
# counts tools print after a number: (spelling → canonical unit)
_COUNTS = {
    "files changed": "files changed", "file changed": "files changed",
    "insertions(+)": "insertions", "insertion(+)": "insertions",
    "deletions(-)": "deletions", "deletion(-)": "deletions",
    "passed": "passed", "failed": "failed", "skipped": "skipped", "xfailed": "xfailed",
    "xpassed": "xpassed", "ignored": "ignored", "filtered out": "filtered out",
    "previous errors": "errors", "previous error": "errors",
    "errors": "errors", "error": "errors", "warnings": "warnings", "warning": "warnings",
    "failures": "failures", "failure": "failures",
    "tests": "tests", "test": "tests", "test suites": "test suites",
    "matches": "matches", "match": "matches", "result(s)": "results", "results": "results",
    "hits": "hits", "occurrences": "occurrences", "occurrence": "occurrences",
    "packages": "packages", "package": "packages", "vulnerabilities": "vulnerabilities",
    "modules transformed": "modules", "modules": "modules",
    "chars": "chars", "characters": "chars", "lines": "lines",
    "requests": "requests", "rows": "rows", "records": "records", "commits": "commits",
    "total": "total", "problems": "problems",
    # Terraform's plan and apply summaries, Go's benchmark and race reports
    "to add": "to add", "to change": "to change", "to destroy": "to destroy",
    "destroyed": "destroyed", "imported": "imported", "added": "added", "changed": "changed",
    "ns/op": "ns/op", "B/op": "B/op", "allocs/op": "allocs/op",
    "data race(s)": "data races", "data races": "data races", "data race": "data races",
}
_TOKENS = {"tokens": "tokens", "token": "tokens", "toks": "tokens", "tok": "tokens"}
# counts that prose reports as observations ("there are 15 errors"); "3 files", "2 lines"
# in an agent's prose are more often plans than readings
_PROSE_COUNTS = frozenset({"errors", "warnings", "failures", "passed", "failed", "skipped",
                           "matches", "occurrences", "insertions", "deletions"})
# ... and "2 matches", "4 occurrences" in prose are grep hit counts (what a search found,
# not what a run measured): read, to end their clause, then dropped
_PROSE_HIT_COUNTS = frozenset({"matches", "occurrences"})

_UNIT_INFO: dict[str, tuple[str, int]] = {}
for _table, _cls in ((_DURATIONS, DURATION), (_SIZES, SIZE), (_SHORT_SIZES, SHORT_SIZE),
                     (_RATES, RATE), (_PERCENTS, PERCENT), (_RATIOS, RATIO),
                     (_COUNTS, COUNT), (_TOKENS, TOKENS)):
    for _k, _v in _table.items():
        _UNIT_INFO[_k] = (_v, _cls)

_UNIT_ALT = "|".join(re.escape(u) for u in sorted(_UNIT_INFO, key=len, reverse=True))
# any unit per second / minute / hour: rows/s, MiB/s, events/sec, "requests per second", MB/h
_PER_RE_SRC = (r"(?:[A-Za-zµμ]{1,12}|)/(?:s|sec|second|min|minute|h|hr|hour)"
               r"|[A-Za-z]{1,12}[ \t]per[ \t](?:second|sec|minute|min|hour)")
_NUM = r"\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+"
_QUAL = r"total|output|input|prompt|generation|gen|decode|prefill|cached|reasoning"

# "6 widgets registered", "12 rows were updated": a count of any noun stated as a fact
_STATES = ("registered|found|listed|installed|created|updated|deleted|removed|added|passed"
           "|failed|skipped|remaining|left|available|detected|processed|indexed|loaded"
           "|migrated|fixed|affected|changed|downloaded|uploaded|generated|written|copied")

_STATE_AFTER_RE = re.compile(r"(?<![ \t])[ \t]+(?:(?:are|were|have been|got|now)[ \t]+)?(" + _STATES
                             + r")\b")

# The one pass.  Alternatives (named groups):
#   cd  compound duration (3m12s, 1h2m, 0m1.234s)
#   n/q/u  number, qualifier, unit
#   cn/noun/state  a count of a noun stated as a fact
#   kv/kn/ks  a unitless number after ":" or "=" ending its field (the key is read after)
#   hp/hc  an HTTP status (``status code (403 GET url)``: opencode's failed webfetch)
_CAND_RE = re.compile(
    r"(?<![\w.\-/:#@$^])(?:"
    r"(?P<cd>\d+h ?\d+m(?: ?\d+(?:\.\d+)?s)?|\d+m ?\d+(?:\.\d+)?s|\d+h ?\d+(?:\.\d+)?s)"
    r"(?![\w/])"
    r"|(?P<n>" + _NUM + r")(?![\d.,]\d)(?P<sp>[ \t]?)(?:(?P<q>" + _QUAL + r")[ \t]+)?"
    r"(?P<u>[A-Za-z]{1,12}[ \t]per[ \t](?:second|sec|minute|min|hour)|" + _UNIT_ALT + r"|"
    + _PER_RE_SRC + r")(?![\w/])"
    r"|(?P<cn>\d+)[ \t](?P<noun>[a-z][a-z-]{1,24}s)[ \t]+(?:(?:are|were|have been|got|now)[ \t]+)?"
    r"(?P<state>" + _STATES + r")\b"
    r")"
    r"|(?P<kv>[:=])[ \t]*+(?:[~≈][ \t]*+)?(?P<kn>" + _NUM + r")(?![\d.,]\d)(?P<ks>[kKMG](?![\w.]))?"
    r"(?=[ \t]*(?:[,;|)\]}\r\n]|$)|[ \t]+[(\[])"
    r"|(?P<hp>\bHTTP(?:/[\d.]+)?[ \t]+|\b[Ss]tatus[ _-]?[Cc]ode(?:[ \t]*[:=]?[ \t]*|[ \t]+\())"
    r"(?P<hc>[1-5]\d\d)(?![\w.])",
    re.M,
)
# Where _CAND_RE can start, found fast: the pattern begins with one character set, so the
# regex engine skips to the next digit, ":" or "=" in C instead of trying every position.
# The digit's left context (not after a digit; at most three "." or "," after a non-digit)
# is a lookbehind read after the digit: a lookbehind first would hide the character set
# from the engine, which then tried the four lookbehinds at every position (5x slower).
_SCAN_RE = re.compile(
    r"[\d:=](?:(?<=\d)"
    r"(?:(?<![\d.,]\d)|(?<=(?<![\d.,])[.,]\d)|(?<=(?<![\d.,])[.,]{2}\d)"
    r"|(?<=(?<![\d.,])[.,]{3}\d))"
    r"[\d.,]*+[ \t]?[A-Za-z%×µμ/(]|(?<=[:=])(?=[ \t]*+(?:[~≈][ \t]*+)?\d))")
_HTTP_RE = re.compile(_CAND_RE.pattern[_CAND_RE.pattern.index("|(?P<hp>") + 1:], re.M)


def _candidates(text: str) -> list[re.Match[str]]:
    """Every ``_CAND_RE`` match of ``text``, in order (what ``finditer`` would give, at a
    fraction of its cost on number-dense logs)."""
    out: list[re.Match[str]] = []
    pos = 0
    match = _CAND_RE.match
    for sm in _SCAN_RE.finditer(text):
        s = sm.start()
        if s < pos:
            continue
        m = match(text, s)
        if m is not None:
            out.append(m)
            pos = m.end()
            if len(out) > 8 * _MAX_MEASUREMENTS:
                break
    if "HTTP" in text or "tatus" in text:
        out += _HTTP_RE.finditer(text)
        out.sort(key=lambda m: m.start())
    return out

# keys whose unitless value is a measurement: (last word of the key → unit)
_KEY_UNITS = {
    "count": "", "total": "", "length": "", "size": "B", "content-length": "B",
    "bytes": "B", "chars": "chars", "characters": "chars", "lines": "lines",
    "tps": "tps", "qps": "qps", "rps": "req/s", "iops": "IOPS",
    "hits": "", "misses": "", "matches": "", "occurrences": "", "errors": "errors",
    "failures": "failures", "requests": "requests",
    # a test runner's tally as keys (Maven's ``Failures: 1``, dotnet's ``Failed: 0``): the
    # count keeps the unit its better side is read from (kb.handoff.direction)
    "passed": "passed", "failed": "failed", "skipped": "skipped", "time_total": "s", "time_connect": "s",
    "time_starttransfer": "s", "time_namelookup": "s", "time_appconnect": "s",
    "time_pretransfer": "s", "time_redirect": "s", "size_download": "B", "size_upload": "B",
    "speed_download": "B/s", "speed_upload": "B/s",
}
_CAMEL_SIZE_RE = re.compile(r"(?:(?<=[a-z0-9])(Len|Length|Size|Count|Bytes)|(?:^|_)(len|length"
                            r"|size|count|bytes))$")
"""The last word of a camelCase or snake_case key naming a size or a count."""
_CAMEL_SETTING_RE = re.compile(r"^(?:max|min|limit|default|chunk|page|batch|buffer|block|"
                               r"font|line|tab|step|window|pool|cache)", re.I)
"""Such keys that are settings, not readings (``maxLength``, ``pageSize``, ``fontSize``)."""
_UNIT_KEY_RE = re.compile(
    r"(?:(?<=[a-z0-9])(?P<camel>Ms|Millis|Us|Ns|Sec|Secs|Seconds|Kb|Mb|Gb)"
    r"|(?<=[a-z0-9])_(?P<snake>ms|millis|us|ns|sec|secs|seconds|kb|mb|gb))$")
"""A key named with its unit (``latency_ms``, ``totalDurationMs``, ``elapsed_seconds``,
``size_kb``): the unit of its unitless value."""
_UNIT_KEY_UNITS = {"ms": "ms", "millis": "ms", "us": "µs", "ns": "ns", "sec": "s", "secs": "s",
                   "seconds": "s", "kb": "kB", "mb": "MB", "gb": "GB"}
_UNIT_KEY_NOT = frozenset(
    "timestamp ts at created updated modified start started end ended epoch date since "
    "until now expires expiry deadline last next".split())
"""Words of such a key that make its value a moment (``timestamp_ms``, ``startedAtMs``), not
a reading; :data:`_SETTING_WORDS` make it a setting (``timeout_ms``, ``retryInMs``)."""
_EPOCH_SCALE = {"ns": 1e-9, "µs": 1e-6, "ms": 1e-3, "s": 1.0}
_EPOCH_FLOOR_S = 1e8
"""A key's time of at least this many seconds (over three years) is a moment since the
epoch (Node's ``mtimeMs``, any ``*_ms`` clock), never how long something took."""
_EXIT_KEYS = frozenset({"exit", "exit_code", "exitcode", "exit_status", "exitstatus", "$?"})
_TOKEN_KINDS = frozenset({"", "input", "output", "prompt", "completion", "total", "reasoning",
                          "cached", "cache_read", "cache_creation"})
_TOKENS_PARENT_RE = re.compile(r"[\"']?tokens[\"']?[ \t]*:[ \t]*\{[^{}]*$")
_STATUS_KEYS = frozenset({"status", "http_code", "status_code", "statuscode", "response_code",
                          "http status", "http_status"})
_KEY_SPLIT_RE = re.compile(r"[\s,;|{(\[]+")
_RATE_KEY_RE = re.compile(r"(?:^|[^\w])(?P<what>[A-Za-z]{1,12})(?:/|[ \t]per[ \t])(?:s|sec|second)$")

# ---------------------------------------------------------------------- context rules

_ANSI_RE = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
_CODE_EXT = (
    r"(?:py|pyi|pyx|c|cc|cpp|cxx|cu|cuh|h|hh|hpp|rs|go|js|mjs|cjs|ts|tsx|jsx|java|kt|scala|rb|"
    r"php|sh|bash|toml|ya?ml|json|cfg|ini|md|rst|cmake|cs|swift|lua|vue|svelte|css|scss|html)"
)
# grep output of source files: ``path/to/file.py:123:...``, ``file.py-123-...``
_GREP_CODE_RE = re.compile(r"^[\w./~+@\\:-]*\." + _CODE_EXT + r"(?::\d+[:-]|-\d+-|:(?!\d))")
_LS_RE = re.compile(r"^[-dlcbps][rwxsStT-]{9}[.+@]?\s")
_LS_FILE_RE = re.compile(
    r"^-[rwxsStT-]{9}[.+@]?\s+\d+\s+\S+\s+\S+\s+(\d+(?:\.\d+)?)([KMGT])?\s+\w{3}\s+\d{1,2}\s+"
    r"[\d:]{4,5}\s+(\S.*?)\s*$", re.M)
"""``ls -l`` (a size in bytes) and ``ls -lh`` (``8.4M``) of a regular file."""
_PS_FILE_RE = re.compile(
    r"^-[a-z-]{5}[ \t]+\S+[ \t]+\d{1,2}[:.]\d\d(?:[ \t]*[AaPp]\.?[Mm]\.?)?[ \t]+(\d+)[ \t]+"
    r"(\S[^\r\n]*?)[ \t\r]*$", re.M)
"""PowerShell's ``Get-ChildItem`` (``dir``, ``ls``) row of a file: mode, date, time, the
``Length`` in bytes, the name (``-a----   4/30/2026  12:00 AM   10792 README.md``)."""
# du: "4.0K\t./src", "1234\t/var/log" (a size, one tab, a path); with du -h's suffix a bare
# name is a path too (" 14M\tnode_modules": macOS pads the size)
_DU_RE = re.compile(r"^[ \t]*(\d+(?:\.\d+)?)(?:([KMGT])\t((?:[./~\\@]|\w:\\)[^\t\n]*?|\w[^\t\n ]*)"
                    r"|\t((?:[./~\\]|\w:\\|[\w.-]+/)[^\t\n]*?))\s*$", re.M)
_DU_GATE_RE = re.compile(r"\d[KMGT]\t")

_SETTING_WORDS = frozenset(
    "timeout timeouts interval delay sleep wait ttl deadline period backoff retry retries "
    "cooldown keepalive expiry expires grace poll refresh limit budget debounce throttle".split()
)
_STYLE_TAIL_RE = re.compile(
    r"(?:^|[^\w-])(?:max-|min-)?(?:width|height|opacity|margin|padding|inset|font-size"
    r"|line-height|flex-basis|translate[xy]?|scale|zoom)[\"'`*\s:=]*$", re.I)
"""A style property (``width: 100%``, ``style="height: 50%"``): a value set, not read."""
_STYLE_WORD_RE = re.compile(
    r"(?:^|[^\w-])(?:opacity|blur|ease|easing|cubic-bezier|transition|animation|keyframes?"
    r"|fade(?:-in|-out)?|hover|stagger|translate[xy]?|rotate|[hw]-dvh|dvh|vh|vw)(?![\w-])"
    r"|\d[ \t]*(?:→|->)[ \t]*-?\d", re.I)
"""A design's values in a label: an animation (``Opacity 0.58→1 (0.26s)``, ``Hover 30ms``),
a CSS unit or class (``h-dvh = 100%``), a value edited from one number to another."""
_DEFAULT_TAIL_RE = re.compile(r"\b(?:default|defaults[ \t]+to)[ \t:=]*$", re.I)
"""A default stated before the value (``over duration (default 2s)``): a setting."""
_STATUS_NAMED_RE = re.compile(r"\b(?:the|a|an|that|this|same|any)[ \t]*$", re.I)
"""``the 422 error``: an HTTP status named, not a count of errors."""
_TARGET_RE = re.compile(r"\b(?:ensure|ensures|ensuring|require|requires|required|requirement"
                        r"|target|targets|targeting|aim(?:ing)?[ \t]+for|until|must|should)\b",
                        re.I)
"""A sentence that sets a goal (``to ensure 100% coverage``, ``don't stop until … you have
100% coverage``): its percentage is a target, not a reading."""
_SHOWN_TAIL_RE = re.compile(r"(?:^|[^\w-])(?:first|last|top|head|tail)[ \t]+$", re.I)
"""How much of something a command chose to show (``First 200 chars of output:``)."""
_THRESHOLD_BEFORE_RE = re.compile(
    r"\b(?:larger|smaller|bigger|greater|more|less|fewer|longer|shorter)[ \t]+than[ \t]*[~≈]?"
    r"[ \t]*$", re.I)
_THRESHOLD_AFTER_RE = re.compile(
    r"(?<![ \t*`])[ \t*`]*+(?:limit|cap|threshold|budget|quota|ceiling)\b", re.I)
"""A bound, not a reading: the value a warning compares with (vite's ``Some chunks are
larger than 500 kB after minification``) or a limit named after it (``the 100 MB
limit``)."""
_EXCEEDED_RE = re.compile(r"\b(?:exceed(?:ed|ing|s)?|hit|reached|after)\b[^,;:]*\btimeout\b",
                          re.I)
_FLAG_TAIL_RE = re.compile(r"(?:^|\s)--?[A-Za-z][\w-]*[ \t=]?$")
# a duration an action took: "built in 750ms", "took 3m12s", "real 0m1.2s", "timed out after
# 60 s" (a bare "after 80 ms" is more often a delay than a reading)
_DONE_TAIL_RE = re.compile(
    r"(?:\b(?:in|took|takes|taking|elapsed|real|user|sys|wall|done|finished|completed)"
    r"|\bin(?: about| around| roughly| just)?"
    r"|\b(?:timed out|failed|finished|completed|succeeded|crashed|died|exited|killed) after)"
    r"[ \t*~≈]*$",
    re.I,
)
_GO_LINE_RE = re.compile(r"^(?:ok|FAIL|PASS)\s")
_LABEL_TAIL_RE = re.compile(r"[:=][ \t]*[~≈]?[ \t]*$")
_METRIC_TAIL = (r"tpot|ttft|itl|e2e|latency|p50|p75|p90|p95|p99|p999|p\(\d+\)|throughput|bandwidth"
                r"|busbw|algbw|duration|overhead|elapsed|mean|median|avg|average|min|max|stdev"
                r"|pause|lag|rtt|took|spent")
_SOFT_LABEL_TAIL_RE = re.compile(
    r"\b(?:of|is|was|at|are|were|" + _METRIC_TAIL + r"|(?:went|rose|dropped|fell|climbed|grew"
    r"|jumped|increased|decreased|improved|shrank|came[ \t]+down)[ \t]+to)[ \t*]*[~≈]?[ \t*]*$",
    re.I
)
_METRIC_RE = re.compile(
    r"\b(?:latency|tpot|ttft|itl|e2e|time|duration|throughput|bandwidth|busbw|algbw|mem(?:ory)?"
    r"|usage|util(?:i[sz]ation)?|speedup|overhead|p\d\d+|median|mean|avg|average|size|elapsed"
    r"|build|bundle|runtime|wall|load|response|request|query|startup|compile|test|tests|run"
    r"|pause|lag|gc|rtt|took|spent)\b",
    re.I,
)
_STAT_WORDS = frozenset("avg average mean med median min max stdev std p50 p75 p90 p95 p99 "
                        "p999".split())
_PCTL_RE = re.compile(r"^(?:p\(?(\d+(?:\.\d+)?)\)?|(\d+(?:\.\d+)?)(?:th)?%)$")
_CMP_WORDS = ("faster", "slower", "better", "worse", "higher", "lower", "improvement",
              "speedup", "regression", "reduction", "increase", "decrease", "gain", "more",
              "less", "fewer",
              # a percentage that names what it measures after it ("0% packet loss")
              "packet loss", "loss", "coverage", "hit rate", "miss rate", "error rate",
              "success rate", "failure rate", "pass rate", "flake rate", "utili[sz]ation",
              "usage", "cpu", "idle")
_PCT_NOUN_RE = re.compile(
    r"\b(?:coverage|cpu|memory|mem|usage|utili[sz]ation|(?:error|hit|miss|success|failure|pass"
    r"|flake|cache hit) rate|(?:packet )?loss|disk)[ \t]*$", re.I)
_PCT_CMP_RE = re.compile(r"(?<![ \t])[ \t]*(" + "|".join(_CMP_WORDS) + r")\b", re.I)
_HEAD_LABEL_RE = re.compile(r"^[ \t]*(?:[-*•][ \t]+)?([A-Za-z][^:\n]{0,60}?)[ \t]*:")
_MD_SEP_LINE_RE = re.compile(r"(?<![ \t|:-])[ \t]*+(?:\|[ \t]*+)?:?-{3,}+:?[ \t]*+\|")
_CLAUSE_CUT_RE = re.compile(r"[,;()|\[\]{}—–#│]|\s-\s|[.!?](?:\s|$)|\*\*|" + r"(" + (
    r"\bvs\.?(?=\s)|\bversus\b|\bagainst\b|\bcompared\s+(?:to|with)\b|\bthan\b") + r")", re.I)
_STOP = frozenset(
    "a an the and or vs vs. versus against with at of to from in on for by is are was were be "
    "been about around approximately approx roughly only just now then than ~ ≈ = : - this "
    "that it its which while whereas but so we i our my down up over under nearly almost still "
    "also even more less there here all ✓ ✔ ✗ took takes taking due that's there's it's "
    "here's".split()
)
_VERBS = frozenset(
    "is are was were gives give gave giving produces produced produce hits hit reaches reached "
    "reaching achieves achieved gets got get getting yields yielded yielding delivers delivered "
    "does did runs ran drops dropped falls fell shows showed showing measured measures reports "
    "reported sits sat stays stayed improves improved goes went crushed crushes rises rose "
    "reach achieve".split()
)
_MAX_LABEL_WORDS = 6
_DOTS_RE = re.compile(r"\.{3,}")
_BRACKETS_RE = re.compile(r"\([^()\n]*\)|\[[^\[\]\n]*\]")
_NUMBERISH_RE = re.compile(r"^[\d:.<>,/+-]+$")  # 00:40<00:00, 8/8, 12:30
_READING_RE = re.compile(r"^[\d.,]+(?:[a-zA-Zµμ%/]{1,8}|\([+-]\))$")  # 30.01s, 1.2MB


_BRACKET_UNIT_RE = re.compile(r"(?<![ \t])[ \t]+\[([^\]\n]{1,12})\]")
_STAT_SUBJECT_RE = re.compile(
    r"(?<![\w-])([A-Za-z_][\w-]*)[ \t]+(?:p\d{2,3}|avg|mean|median|min|max)\b", re.I)


def _own_stat(label: str) -> str:
    """A label that ends with a statistic keeps that one only: in ``p50: 6 ms  p95: 21 ms``
    the second value is ``latency p95``, not ``latency p50 p95``."""
    words = label.split()
    if len(words) > 2 and words[-1].lower() in _STAT_WORDS:
        kept = [w for w in words[:-1] if w.lower() not in _STAT_WORDS]
        return " ".join([*kept, words[-1]])
    return label


def _is_number_word(w: str) -> bool:
    w = w.strip("~≈()[],;:")
    if not w or _NUMBERISH_RE.match(w) or _READING_RE.match(w):
        return True
    try:
        float(w.replace(",", "").rstrip("%x×"))
        return True
    except ValueError:
        return False


def _trim(words: list[str]) -> list[str]:
    # a leading glyph or its mojibake ("✓", "Γ£ô" where a console mangled it)
    while words and len(words[0]) <= 3 and not any(c.isascii() and c.isalnum() for c in words[0]):
        words.pop(0)
    while words and (words[0].lower() in _STOP or words[0].lower() in _VERBS
                     or _is_number_word(words[0])) and not (
        len(words) > 1 and words[0].endswith("%") and words[1].lower().startswith("percentile")
    ):
        words.pop(0)
    while words and (words[-1].lower().rstrip(":=") in _STOP or _is_number_word(words[-1])
                     or words[-1] in (":", "=")):
        words.pop()
    return words


@lru_cache(maxsize=4096)
def _tidy_label(s: str, tail: bool = True, fallback: bool = True) -> str:
    """A short label from free text: the last clause (``tail``; with ``fallback`` the one
    before when the last holds only numbers and stop words) or the first one, trimmed of stop
    words and bare numbers; "the custom kernel produced a" keeps its subject."""
    s = s.replace("`", "").replace("*", "")
    if "..." in s:
        s = _DOTS_RE.sub(" ", s)  # k6: "http_req_duration..............: avg="
    cuts = list(_CLAUSE_CUT_RE.finditer(s))
    if not tail:
        words = _trim(s[:cuts[0].start()].split() if cuts else s.split())[:4]
        return " ".join(words).rstrip(":=").strip()
    parts = [s[cuts[-1].end():]] if cuts else [s]
    # fall back to the clause before ("... by 9% (from 82 to 89.5 tok/s)"), never past a
    # comparison ("54 tok/s vs 82 tok/s": the words before "vs" belong to the first number)
    if cuts and fallback and cuts[-1].group(1) is None:
        parts.insert(0, s[cuts[-2].end() if len(cuts) > 1 else 0:cuts[-1].start()])
    words = []
    for part in reversed(parts):
        words = _trim(part.split()[-(_MAX_LABEL_WORDS + 2):])
        if words:
            break
    for k, w in enumerate(words):
        if k and w.lower() in _VERBS:
            subject, rest = _trim(words[:k]), _trim(words[k + 1:])
            # "Reducing X improves baseline throughput" is about the object, not the gerund
            gerund = bool(subject) and subject[0].lower().endswith("ing")
            words = rest if gerund and rest else subject
            break
    words = _trim(words[-_MAX_LABEL_WORDS:])
    return " ".join(words).rstrip(":=").strip()


def _to_float(s: str) -> float:
    return float(s.replace(",", ""))


def round_sig(x: float, digits: int = 3) -> float:
    """``x`` to ``digits`` significant figures (how an engineer quotes a derived figure)."""
    if x == 0 or not math.isfinite(x):
        return x
    return round(x, digits - 1 - int(math.floor(math.log10(abs(x)))))


def _canon_unit(raw: str) -> tuple[str, int]:
    info = _UNIT_INFO.get(raw)
    if info is not None:
        return info
    # generic "X/s", "X per second", "X/h"
    if " per " in raw or "\tper" in raw:
        what, _, per = raw.replace("\t", " ").partition(" per ")
    else:
        what, _, per = raw.partition("/")
    per = {"sec": "s", "second": "s", "minute": "min", "hr": "h", "hour": "h"}.get(per, per)
    what = _UNIT_INFO.get(what, (what, 0))[0] if what in _SIZES or what in _TOKENS else what
    if what in ("requests", "request", "reqs"):
        what = "req"
    return f"{what}/{per}", RATE


# --------------------------------------------------------------------------- API


if TYPE_CHECKING:
    from logparse.models import Measurement


def measurements(text: str, prose: bool = False) -> list[Measurement]:
    """Numbers ``text`` reports, with unit and label, in order of appearance.  ``prose``
    is assistant or user text (not a tool output)."""
    # the fields are already a float and two str: skip pydantic's validation
    from logparse.models import Measurement  # pydantic: only for callers that want it

    return [Measurement.model_construct(value=v, unit=u, label=lab)
            for v, u, lab in measurement_tuples(text, prose)]


def measurement_tuples(text: str, prose: bool = False) -> list[tuple[float, str, str]]:
    """:func:`measurements` as ``(value, unit, label)`` tuples (the ingest hot path)."""
    return _measurements(text, prose)


_LISTING_RE = re.compile(
    r"\((?:Showing lines \d+-\d+ of (\d+)|End of file - total (\d+) lines?)\b")
_TRUNCATED_READ_RE = re.compile(
    r"^Status: Showing lines \d+-\d+ of (\d+) total lines\.", re.M)
"""Gemini CLI's ``read_file`` note, at the head of a file it cut: ``IMPORTANT: The file
content has been truncated.`` / ``Status: Showing lines 1-2000 of 5755 total lines.``"""


_MORE_LINES_RE = re.compile(
    r"\[(\d+) more lines in file\. Use offset=(\d+) to continue\.\]\s*\Z")
"""pi's ``read`` note at the end of a file it showed in part: ``[61 more lines in file.
Use offset=11 to continue.]`` (lines 1-10 shown, 61 after them)."""


def more_lines(output: str) -> tuple[int, int] | None:
    """``(lines not shown, file length)`` of a read the tool cut with pi's note
    (:data:`_MORE_LINES_RE`): the note's own count, and the length it implies (the lines
    before ``offset`` were shown, the count follows them)."""
    if not isinstance(output, str) or "more lines in file" not in output[-200:]:
        return None
    m = _MORE_LINES_RE.search(output, max(0, len(output) - 200))
    if m is None:
        return None
    more, offset = int(m.group(1)), int(m.group(2))
    return more, max(offset - 1, 0) + more


def listing_length(output: str) -> int | None:
    """The length in lines of a file a ``read`` tool showed, from its footer
    (``(Showing lines 1-30 of 4886. …)``, ``(End of file - total 12 lines)``) or from the
    note it put at the head of a file it cut (Gemini CLI's ``Status: Showing lines 1-2000
    of 5755 total lines.``)."""
    if not isinstance(output, str):
        return None
    m = _LISTING_RE.search(output, max(0, len(output) - 400))
    if m is not None:
        return int(m.group(1) or m.group(2))
    h = _TRUNCATED_READ_RE.search(output, 0, 400)
    return int(h.group(1)) if h is not None else None


_NUMBERED_LINE_RE = re.compile(r"^[ \t]*(\d{1,6})→(.*)$", re.M)
_NUMBERED_MAX = 2000
"""Claude Code's ``Read`` shows at most this many lines when no ``limit`` is given."""


def numbered_length(output: str) -> int | None:
    """The length in lines of a file a ``read`` tool showed whole, numbered line by line
    (Claude Code's ``   313→</html>``): the number of its last line that holds text, when
    the listing starts at line 1 and stops short of the tool's default cut (a read with
    ``offset``/``limit`` is never whole; the caller leaves those out)."""
    if not isinstance(output, str) or "→" not in output:
        return None
    head = _NUMBERED_LINE_RE.match(output.lstrip("\n"))
    if head is None or head.group(1) != "1":
        return None
    last = None
    for m in _NUMBERED_LINE_RE.finditer(output, max(0, len(output) - 4000)):
        if m.group(2).strip():
            last = int(m.group(1))
    if last is None or last >= _NUMBERED_MAX:
        return None
    return last


def listing_measurements(text: str) -> list[tuple[float, str, str]]:
    """File sizes a listing shows, as ``(value, unit, label)``: ``ls -l`` (regular files)
    and ``du`` lines.  The cheap pass for outputs not read whole."""
    found: list[tuple[int, float, str, str]] = []
    _listing(text, found, [])
    return [(v, u, lab) for _, v, u, lab in found]


def _listing(text: str, found: list[tuple[int, float, str, str]],
             taken: list[tuple[int, int]]) -> None:
    if "\n-r" in text or text.startswith("-r"):
        for k, m in enumerate(_LS_FILE_RE.finditer(text)):
            if k >= _MAX_MEASUREMENTS:
                break
            unit = _SHORT_SIZES[m.group(2)] if m.group(2) else "B"
            found.append((m.start(), float(m.group(1)), unit, m.group(3)))
    if "Length" in text and "---" in text:
        _ps_length_table(text, found, taken)
    if "LastWriteTime" in text:
        for k, m in enumerate(_PS_FILE_RE.finditer(text)):
            if k >= _MAX_MEASUREMENTS:
                break
            found.append((m.start(), float(m.group(1)), "B", m.group(2)))
            taken.append((m.start(), m.end()))
    if "\t" in text and ("\t." in text or "\t/" in text or "\t~" in text or "/\n" in text
                         or _DU_GATE_RE.search(text)):
        for k, m in enumerate(_DU_RE.finditer(text)):
            if k >= _MAX_MEASUREMENTS:
                break
            unit = _SHORT_SIZES[m.group(2)] if m.group(2) else "KiB"
            found.append((m.start(), float(m.group(1)), unit, m.group(3) or m.group(4)))
            taken.append((m.start(), m.end()))


_REQUEST_RE = re.compile(
    r"\b(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)[ \t]+(/[^\s\"]*|https?://[^\s\"]+)"
    r"(?:[ \t]+HTTP/[\d.]+)?\"?[ \t]+([1-5]\d\d)(?![\w.:/])"
    r"(?:[ \t]+(?:in[ \t]+)?(" + _NUM + r")[ \t]?(ms|s|µs|us)\b)?")
"""A request log line: ``GET / 200 in 35ms`` (Next.js), ``"GET /health HTTP/1.1" 503``
(an access log), ``POST /api/login 401 12.3 ms`` (morgan)."""


_PROGRESS_DONE_RE = re.compile(
    r"^[ \t]*(?:[✓✔√][ \t]*)?(?P<verb>[A-Z][a-z]{2,20}ing)[ \t]+(?:[a-z]+[ \t]+){0,2}?"
    r"(?P<noun>[a-z]{2,20}s)\b[^\n(]{0,60}\((?P<n>\d{1,7})/(?P=n)\)", re.M)
"""A progress counter at its end, on a line that names what it counts: ``Generating static
pages using 9 workers (47/47)`` (Next.js), ``Compiling modules (12/12)``."""


def _progress_done(text: str, found: list[tuple[int, float, str, str]],
                   taken: list[tuple[int, int]]) -> None:
    """How many things a finished progress counter counted (its last ``(N/N)``)."""
    for m in _PROGRESS_DONE_RE.finditer(text):
        found.append((m.start(), float(m.group("n")), m.group("noun"),
                      f"{m.group('verb')} {m.group('noun')}".lower().capitalize()))
        taken.append((m.start("n") - 1, m.end()))


def _requests(text: str, found: list[tuple[int, float, str, str]],
              taken: list[tuple[int, int]]) -> None:
    """The status (and the time, when the line gives one) of each request a log shows."""
    if "GET " not in text and "POST " not in text and "PUT " not in text and \
            "DELETE " not in text and "PATCH " not in text and "HEAD " not in text:
        return
    for k, m in enumerate(_REQUEST_RE.finditer(text)):
        if k >= _MAX_MEASUREMENTS:
            break
        what = f"{m.group(1)} {m.group(2)}"[:60]
        found.append((m.start(3), float(m.group(3)), "HTTP", what))
        taken.append((m.start(3), m.end(3)))
        if m.group(4):
            unit = _UNIT_INFO.get(m.group(5), (m.group(5), 0))[0]
            found.append((m.start(4), _to_float(m.group(4)), unit, what))
            taken.append((m.start(4), m.end(5)))


_VAL = r"(" + _NUM + r")[ \t]?(" + _UNIT_ALT + r")?"
_BRACKET_LIST_RE = re.compile(
    r"^[ \t]*([A-Za-z][\w .-]{0,30}?)[ \t]+\[([^\]\n]{1,80})\][ \t]+([^\n]+)$", re.M)
"""vegeta: ``Latencies  [min, mean, 50, 99, max]  1.2ms, 12.4ms, 8.9ms, 88.2ms, 412ms``."""
_LIST_VALUE_RE = re.compile(r"^" + _VAL + r"$")
_SLASH_LIST_RE = re.compile(
    r"\b(?<!\w/)([A-Za-z][\w]*(?:/[A-Za-z][\w]*)+)[ \t]*=[ \t]*((?:" + _NUM + r")(?:/(?:" + _NUM
    + r"))+)[ \t]*(" + _UNIT_ALT + r")\b")
"""ping: ``rtt min/avg/max/mdev = 0.041/0.047/0.055/0.005 ms``."""
_INTERVAL_RE = re.compile(
    r"^[ \t]*(\S[^\n]{0,60}?)[ \t]+time:[ \t]+\[" + _VAL + r"[ \t]+" + _VAL + r"[ \t]+" + _VAL
    + r"[ \t]*\]", re.M)
"""criterion: ``parse_json   time:   [12.345 µs 12.401 µs 12.462 µs]`` (low, estimate, high)."""
_PCT_IN_RE = re.compile(r"^[ \t]*(\d{1,2}(?:\.\d+)?)%[ \t]+in[ \t]+(" + _NUM
                        + r")[ \t]*(secs|sec|s|ms)\b", re.M)
"""hey: ``  99% in 0.1102 secs``."""
_PER_SEC_RE = re.compile(r"\((" + _NUM + r")[ \t]+per[ \t]+sec(?:ond)?\.?\)")
"""sysbench: ``transactions:  120000 (3999.12 per sec.)``."""
_PROM_RE = re.compile(
    r"^([a-zA-Z_:][\w:]*?_(seconds|bytes|total|ratio|milliseconds|ms))(\{[^}\n]{0,120}\})?"
    r"[ \t]+((?:" + _NUM + r")(?:e[+-]?\d+)?)[ \t]*$", re.M)
"""Prometheus exposition: ``http_request_duration_seconds{quantile="0.99"} 0.232``."""
_CLOCK_RE = re.compile(
    r"^[ \t]*(?:\[\w+\][ \t]*)?([A-Za-z][^:\n]{0,50}?)[ \t]*(?:\([^)\n]*\))?:[ \t]+"
    r"((?:\d+:)?\d{1,2}:\d{2}(?:\.\d+)?)(?:[ \t]*min)?[ \t]*$", re.M)
"""A clock reading: Maven's ``Total time:  01:23 min``, ``Elapsed (wall clock) time (h:mm:ss
or m:ss): 0:01.23``."""
_CLOCK_GATE_RE = re.compile(r":[ \t]+(?:\d+:)?\d{1,2}:\d{2}(?:\.\d+)?(?:[ \t]*min)?[ \t]*$", re.M)
"""What every clock reading holds, found faster than a label before it (a search that
starts at a ``:`` instead of at every line)."""
_SLASH_GATE_RE = re.compile(r"=[ \t]*[\d.,]+/[\d.]")
"""What every slash list holds (``= 0.041/0.047``)."""
_CLOCK_LABEL_RE = re.compile(r"\b(?:total|elapsed|duration|wall|took|spent)\b", re.I)
_TALLY_RE = re.compile(
    r"^[ \t]*(?:[#ℹ][ \t]*)?(?:(\d+)[ \t]+(pass|fail|skip|todo)|(pass|fail|skipped|todo)"
    r"[ \t]+(\d+))[ \t]*$", re.M)
"""A test runner's tally lines: bun's `` 12 pass``, node:test's ``# fail 1``."""
_TALLY_UNITS = {"pass": "passed", "fail": "failed", "skip": "skipped", "skipped": "skipped",
                "todo": "todo"}
_PROM_UNITS = {"seconds": "s", "bytes": "B", "total": "", "ratio": "", "milliseconds": "ms",
               "ms": "ms"}


def _list_unit(raw: str | None) -> str:
    return _UNIT_INFO[raw][0] if raw else ""


def _lists(text: str, found: list[tuple[int, float, str, str]],
           taken: list[tuple[int, int]]) -> None:
    """Values a tool prints as a list against a list of names: vegeta's bracketed keys,
    ping's ``min/avg/max``, criterion's interval, hey's latency distribution, sysbench's
    rates and a Prometheus scrape."""
    head: str | re.Match[str] | None  # a label in one list, the match of one in another
    if "[" in text and "]" in text:
        for m in _BRACKET_LIST_RE.finditer(text):
            keys = [k.strip() for k in m.group(2).split(",")]
            name = m.group(1).strip()
            if keys == ["code:count"]:  # vegeta's status codes: 200:2992  500:8
                for sm in re.finditer(r"\b([1-5]\d\d):(\d+)\b", m.group(3)):
                    found.append((m.start(3) + sm.start(), float(sm.group(2)), "requests",
                                  f"HTTP {sm.group(1)}"))
                taken.append((m.start(3), m.end(3)))
                continue
            vals = [v.strip() for v in m.group(3).split(",")]
            parsed = [_LIST_VALUE_RE.match(v) for v in vals]
            if len(vals) != len(keys) or not all(parsed) or (len(keys) < 2 and not any(
                    pm.group(2) for pm in parsed if pm)):
                continue  # one bare number in brackets' wake says little
            for k, pm in zip(keys, parsed):
                assert pm is not None
                key = f"p{k}" if k.replace(".", "").isdigit() else k
                found.append((m.start(3), _to_float(pm.group(1)), _list_unit(pm.group(2)),
                              f"{name} {key}"))
            taken.append((m.start(3), m.end(3)))
    if "/" in text and "=" in text and _SLASH_GATE_RE.search(text):
        for m in _SLASH_LIST_RE.finditer(text):
            keys, vals = m.group(1).split("/"), m.group(2).split("/")
            if len(keys) != len(vals):
                continue
            head = _tidy_label(text[_line_bounds(text, m.start())[0]:m.start()], False)
            unit = _UNIT_INFO[m.group(3)][0]
            for k, v in zip(keys, vals):
                found.append((m.start(2), _to_float(v), unit, f"{head} {k}".strip()))
            taken.append((m.start(1), m.end()))
    if "time:" in text:
        for m in _INTERVAL_RE.finditer(text):
            name = m.group(1).strip()
            for (g, u), what in zip(((2, 3), (4, 5), (6, 7)), ("low", "", "high")):
                label = f"{name} time ({what})" if what else f"{name} time"
                found.append((m.start(g), _to_float(m.group(g)), _list_unit(m.group(u)), label))
            taken.append((m.start(2), m.end()))
    if "% in " in text:
        for m in _PCT_IN_RE.finditer(text):
            unit = "ms" if m.group(3) == "ms" else "s"
            found.append((m.start(2), _to_float(m.group(2)), unit, f"p{m.group(1)}"))
            taken.append((m.start(), m.end()))
    if " per sec" in text:
        for m in _PER_SEC_RE.finditer(text):
            head = _HEAD_LABEL_RE.match(text, _line_bounds(text, m.start())[0])
            label = _tidy_label(head.group(1), False) if head else ""
            found.append((m.start(1), _to_float(m.group(1)), "/s", label))
            taken.append((m.start(), m.end()))
    if ":" in text and _CLOCK_GATE_RE.search(text):
        for m in _CLOCK_RE.finditer(text):
            if not (m.group().rstrip().endswith("min") or _CLOCK_LABEL_RE.search(m.group(1))):
                continue  # "Time: 12:30" may be the time of day
            parts = [float(x) for x in m.group(2).split(":")]
            value = sum(v * 60 ** (len(parts) - 1 - i) for i, v in enumerate(parts))
            found.append((m.start(2), round(value, 3), "s", _tidy_label(m.group(1), False)))
            taken.append((m.start(2), m.end()))
    if "pass" in text or "fail" in text:
        for m in _TALLY_RE.finditer(text):
            n, word = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            found.append((m.start(), float(n), _TALLY_UNITS[word], "tests"))
            taken.append((m.start(), m.end()))
    if "_seconds" in text or "_bytes" in text or "_total" in text:
        for k, m in enumerate(_PROM_RE.finditer(text)):
            if k >= _MAX_MEASUREMENTS:
                break
            try:
                value = float(m.group(4).replace(",", ""))
            except ValueError:
                continue
            found.append((m.start(4), value, _PROM_UNITS[m.group(2)],
                          (m.group(1) + (m.group(3) or ""))[:80]))
            taken.append((m.start(), m.end()))


_COL_CELL_RE = re.compile(r"[^\s|│┃]+(?: [^\s|│┃]+)*")
_COL_RULE = frozenset("-=+:─━┼╋┿|│┃ \t")
_COL_GLYPHS_RE = re.compile(r"^[^\w/.%(]+")
"""Tree and bullet glyphs before a row's name (``┌ ○ /``, ``└ ƒ /api``, ``+ First``)."""
_COL_VALUE_RE = re.compile(r"^(" + _NUM + r")[ \t]?(" + _UNIT_ALT + r")?$")
_COL_HEAD_UNIT_RE = re.compile(r"%|[(\[](" + _UNIT_ALT + r")[)\]]|^(" + _UNIT_ALT + r")$")
_COUNT_HEAD_RE = re.compile(r"^[A-Za-z]{3,}[^sSuUiI\W][sS]$")
"""A column of counts: a plural noun (``RESTARTS``, ``Failures``, ``Rows``; not
``Status``, ``Analysis``, ``Class``)."""
_COL_NAME_RE = re.compile(r"^(?=[^\n]*[A-Za-z%])(?![^\n]*(?:^|\s)[\d.])[^:]*[^:\s]$")
"""A column name: a word or a few (``% Stmts``, ``p99 (ms)``, ``First Load JS``), not a
value (no word starts with a digit) nor a label that a value follows (``Time:``)."""
_CELL_GAP_RE = re.compile(r"[^\S ]|  |[|│┃]")
"""What parts two cells (:data:`_COL_CELL_RE` joins words by single plain spaces only)."""
_NO_HEADER_RE = re.compile(r":|(?:^|[\s|│┃])[\d.]")
"""What no header line holds (a cell of it would fail :data:`_COL_NAME_RE`)."""
_MAX_TABLE_LINES = 400


def _cells(line: str) -> list[tuple[int, int, str]]:
    """A table line's cells: text runs split by two spaces or more, a tab or a bar."""
    return [(m.start(), m.end(), m.group()) for m in _COL_CELL_RE.finditer(line)]


def _columns(text: str, found: list[tuple[int, float, str, str]],
             taken: list[tuple[int, int]]) -> None:
    """The cells of a column table: a header line of names (``Route  Size  First Load
    JS``, ``File | % Stmts | % Branch``) over rows of a name and values.  A value with a
    unit (its own or its column's: ``% Stmts``, ``p99 (ms)``) is a measurement labelled
    by its row and its column; unitless cells are left to the line rules."""
    if "  " not in text and "|" not in text and "\t" not in text:
        return
    lines = text.split("\n")
    starts = [0] * len(lines)
    for i in range(1, len(lines)):
        starts[i] = starts[i - 1] + len(lines[i - 1]) + 1
    # a long output's head and tail (a coverage or route table ends the output)
    keep = list(range(len(lines))) if len(lines) <= _MAX_TABLE_LINES else \
        list(range(_MAX_TABLE_LINES // 2)) + list(range(len(lines) - _MAX_TABLE_LINES // 2,
                                                         len(lines)))
    header: list[tuple[int, int, str]] | None = None
    units: list[str] = []
    last = -1
    for n in keep:
        line, start = lines[n], starts[n]
        if n != last + 1:
            header = None  # the head and the tail are not one table
        last = n
        inner = line.strip()
        if len(line) > 300 or not inner:
            header = None
            continue
        if header is not None and set(line.rstrip("\r")) <= _COL_RULE:
            if _PSQL_RULE_RE.match(line):
                header = None  # psql's result table: the rows are data, not readings
            continue  # a rule under the header
        if not _CELL_GAP_RE.search(inner):
            header = None  # one cell: neither a row nor a header
            continue
        if header is not None:
            cells = _cells(line)
            got = _table_row(cells, header, units)
            if got:
                for (cs, ce), value, unit, label in got:
                    found.append((start + cs, value, unit, label))
                    taken.append((start + cs, start + ce))
                continue
            header = None
        if _NO_HEADER_RE.search(inner) or inner.startswith(("-", "*", "#", ">")):
            continue  # a value or a label in it: no line of names
        cells = _cells(line)
        if 2 <= len(cells) <= 12 and all(_COL_NAME_RE.match(c[2]) for c in cells):
            header = cells
            units = [_column_unit(c[2]) for c in cells]


_PSQL_RULE_RE = re.compile(r"^-+(?:\+-+)+[ \t\r]*$")
"""psql's rule under a result table's header (``----+------+------``)."""
_QUERY_ROWS_RE = re.compile(r"^\((\d+) rows?\)[ \t\r]*$", re.M)
"""psql's footer of a result: ``(15 rows)``, ``(1 row)``."""


def _query_rows(text: str, found: list[tuple[int, float, str, str]],
                taken: list[tuple[int, int]]) -> None:
    """psql's ``(N rows)`` under each result, labelled by the result's columns (one output
    of several queries gives one count per query, not one label repeated)."""
    for m in _QUERY_ROWS_RE.finditer(text):
        label = "query rows"
        # the header: the line above the ``---+---`` rule nearest above the footer
        head = text.rfind("\n(", 0, m.start())
        block = text[max(0, head + 1, m.start() - 4000):m.start()].split("\n")
        for k in range(len(block) - 1, 0, -1):
            if _PSQL_RULE_RE.match(block[k]):
                cols = [c.strip() for c in block[k - 1].split("|") if c.strip()]
                if cols:
                    label = f"rows ({', '.join(cols)})"[:60]
                break
        found.append((m.start(1), float(m.group(1)), "rows", label))
        taken.append((m.start(), m.end()))


_PS_TABLE_HEAD_RE = re.compile(r"^([ \t]*\S[^\n]*?)\r?\n([ \t]*-[- \t]*?)\r?$", re.M)


def query_row_counts(text: str) -> list[tuple[float, str, str]]:
    """Each psql result's ``(N rows)`` in ``text`` as ``(value, unit, label)``: the part of
    a long output the line rules skip still has one count per query."""
    if "row" not in text:
        return []
    found: list[tuple[int, float, str, str]] = []
    _query_rows(text, found, [])
    return [(v, u, lab) for _, v, u, lab in found]


def _ps_length_table(text: str, found: list[tuple[int, float, str, str]],
                     taken: list[tuple[int, int]]) -> None:
    """PowerShell's table of files with a ``Length`` column (``Get-Item X | Select-Object
    Name, Length``): the header, one run of dashes under each column name as long as the
    name, then a row per file; its ``Length`` is the file's size in bytes, labelled by its
    ``Name``.  (The ``Get-ChildItem`` table with ``LastWriteTime`` is ``_PS_FILE_RE``'s.)"""
    for hm in _PS_TABLE_HEAD_RE.finditer(text):
        head, rule = hm.group(1), hm.group(2)
        cols = [(m.start(), m.end(), m.group()) for m in re.finditer(r"\S+", head)]
        runs = [(m.start(), m.end()) for m in re.finditer(r"-+", rule)]
        names = [c[2] for c in cols]
        if ("Length" not in names or "LastWriteTime" in names or len(runs) != len(cols)
                or any(r != (c[0], c[1]) for r, c in zip(runs, cols))):
            continue
        k = names.index("Length")
        name_k = names.index("Name") if "Name" in names else (0 if k else -1)
        pos = hm.end() + 1
        while pos <= len(text):  # line by line from the header on (not the whole rest)
            nl = text.find("\n", pos)
            line = text[pos:] if nl < 0 else text[pos:nl]
            cells = line.rstrip("\r").split()
            if len(cells) != len(cols) or not cells[k].isdigit():
                break
            start = pos + max(0, line.find(cells[k]))
            label = cells[name_k] if name_k >= 0 else "Length"
            found.append((start, float(cells[k]), "B", label))
            taken.append((pos, pos + len(line)))
            pos += len(line) + 1


def _column_unit(name: str) -> str:
    """The unit a column's header gives its bare values: ``% Stmts`` → %, ``p99 (ms)`` →
    ms, ``ms`` → ms, ``RESTARTS`` → restarts (a count), else none."""
    m = _COL_HEAD_UNIT_RE.search(name)
    if m is not None:
        if m.group() == "%":
            return "%"
        return _UNIT_INFO[m.group(1) or m.group(2)][0]
    return name.lower() if _COUNT_HEAD_RE.match(name) else ""


def _table_row(cells: list[tuple[int, int, str]], header: list[tuple[int, int, str]],
               units: list[str]) -> list[tuple[tuple[int, int], float, str, str]]:
    """A row's measured cells, or [] when the line is no row of this table."""
    if len(cells) < 2 or len(cells) > len(header) + 1:
        return []
    name = _COL_GLYPHS_RE.sub("", cells[0][2]).strip()
    if not name or _COL_VALUE_RE.match(name):
        return []
    out = []
    by_index = len(cells) == len(header)  # a markdown table is not aligned
    for i, (cs, ce, cell) in enumerate(cells[1:], 1):
        m = _COL_VALUE_RE.match(cell)
        if m is None:
            continue
        # the cell's own column, or the one whose header overlaps it most, else the nearest
        k = i if by_index else max(range(len(header)), key=lambda j: (
            min(ce, header[j][1]) - max(cs, header[j][0]),
            -abs(ce - header[j][1])))
        if k == 0:
            continue
        unit = _UNIT_INFO[m.group(2)][0] if m.group(2) else units[k]
        if not unit:
            continue
        out.append(((cs, ce), _to_float(m.group(1)), unit, f"{name} {header[k][2]}"[:60]))
    return out


_DIAG_RE = re.compile(
    r"^\S[^\n]*?(?:\(\d+,\d+\)|:\d+(?::\d+)?)(?::| -) (?:fatal )?error(?: [A-Z]+\d+)?:", re.M)
_WARN_RE = re.compile(
    r"^\S[^\n]*?(?:\(\d+,\d+\)|:\d+(?::\d+)?)(?::| -) warning(?: [A-Z]+\d+)?:", re.M)


_KOTLIN_DIAG = r"(?:file://)?\S[^\n]*?\.kts?(?::\d+:\d+ |: \(\d+, \d+\): )\S"
_KOTLIN_ERR_RE = re.compile(r"^e: " + _KOTLIN_DIAG, re.M)
_KOTLIN_WARN_RE = re.compile(r"^w: " + _KOTLIN_DIAG, re.M)
"""kotlinc's diagnostics (Gradle prints them under ``compileKotlin``): ``e: file:///a/B.kt:
180:72 Unresolved reference: x`` (Kotlin 1.8+), ``e: /a/B.kt: (26, 35): Unresolved
reference: x`` (older), ``w:`` for a warning."""


def compiler_error_count(output: str, level: str = "error") -> int:
    """How many compiler diagnostics of ``level`` (``error`` or ``warning``) ``output``
    lists (tsc's ``file.ts(3,5): error TS2322:``, gcc/clang/swiftc's ``file.c:3:5:
    warning:``, kotlinc's ``e: file:///a/B.kt:3:5 message``)."""
    if not isinstance(output, str):
        return 0
    n = 0
    if level in output:
        rx = _DIAG_RE if level == "error" else _WARN_RE
        n = sum(1 for _ in rx.finditer(output))
    kt = ("e: " if level == "error" else "w: ")
    if kt in output and ".kt" in output:
        n += sum(1 for _ in (_KOTLIN_ERR_RE if level == "error" else _KOTLIN_WARN_RE)
                 .finditer(output))
    return n


# ------------------------------------------------------------------------ internals

_PAREN_RE = re.compile(r"\((" + _UNIT_ALT + r")\)[ \t]*[:=][ \t]*(" + _NUM + r")(?![\w.])")
_LABEL_ROW_RE = re.compile(r"^[ \t]*([A-Za-z][\w .()/#'-]{0,60}?)[ \t]*:[ \t]+(" + _NUM
                           + r")[ \t]*$", re.M)
_UNITLESS_RE = re.compile(
    r"\b((?:avg |average |mean )?(?:accept(?:ance)?[ _](?:length|len|rate)|accept_len(?:gth)?"
    r"|acceptance rate|avg_accept_len))[ \t]*[:=][ \t]*(" + _NUM + r")(?![\w.])[ \t]*(%)?",
    re.I,
)
_NCCL_AVG_RE = re.compile(r"#\s*Avg bus bandwidth\s*:\s*(" + _NUM + r")")
_NCCL_ROW_RE = re.compile(
    r"^[ \t]*(\d+)[ \t]+(\d+)[ \t]+(\w+)[ \t]+(\w+)[ \t]+(-?\d+)[ \t]+([\d.]+)[ \t]+([\d.]+)"
    r"[ \t]+([\d.]+)[ \t]+(\S+)",
    re.M,
)


def _line_bounds(text: str, i: int) -> tuple[int, int]:
    s = text.rfind("\n", 0, i) + 1
    e = text.find("\n", i)
    return s, (len(text) if e == -1 else e)


def _has_md_table(text: str) -> bool:
    """Whether ``text`` has a markdown table rule (``|---|---|``); nvidia-smi's box drawing
    (``|-----+-----|``, ``+====+``) is no table."""
    for key in ("|-", "| -", "|:-"):
        i = text.find(key)
        k = 0
        while i != -1 and k < 50:
            k += 1
            ls = text.rfind("\n", 0, i) + 1
            if _MD_SEP_LINE_RE.match(text, ls):
                return True
            i = text.find(key, i + 2)
    return False


def _skip_line(line: str, md_table: bool) -> bool:
    """Lines whose numbers are not measurements: grep hits of source files, ``ls -l``
    (read as a block), box-drawn tables (nvidia-smi), CSV rows."""
    s = line.lstrip()
    c = s[:1]
    if c in ("|", "+", "│", "╭", "╰", "┃") and not (md_table and c == "|"):
        return True
    if c.isdigit() and s.count(", ") >= 2 and _csv_row(s):
        return True
    return bool(_GREP_CODE_RE.match(line) or _LS_RE.match(line))


def _csv_row(s: str) -> bool:
    """``0, 88123 MiB, 97887 MiB, 45 %``: every field a number, with a unit at most."""
    for f in s.split(","):
        toks = f.split()
        if not toks or len(toks) > 2 or not toks[0][:1].isdigit():
            return False
    return True


def _paren_label(text: str, line_start: int, open_paren: int) -> str:
    seg = text[max(line_start, open_paren - 80):open_paren]
    cut = max(seg.rfind(","), seg.rfind(";"), seg.rfind("|"), seg.rfind("]"))
    raw = seg[cut + 1:].strip()
    return _tidy_label(raw, True, False) or raw


_DURATION_UNITS = frozenset(_DURATIONS.values())


def _design_row(text: str, p: int) -> bool:
    """Whether position ``p`` is in a markdown table row that names an animation (``|
    `useAnimate()` stagger | Each span: 0.3s, stagger 0.1s, `easeInOut` |``): the row's
    times and percentages are a design's settings, not readings."""
    a, b = _line_bounds(text, p)
    line = text[a:b]
    return line.lstrip().startswith("|") and _ANIMATION_WORD_RE.search(line) is not None


_ANIMATION_WORD_RE = re.compile(
    r"(?:^|[^\w-])(?:opacity|blur|ease|easing|cubic-bezier|transition|animation|keyframes?"
    r"|fade(?:-in|-out)?|hover|stagger|translate[xy]?|rotate)(?![\w-])", re.I)
"""The words of :data:`_STYLE_WORD_RE` that name an animation: a row's ``120 → 85 ms``
(a result before and after a fix) names none."""


def _is_setting(label: str, before: str) -> bool:
    """``timeout = 30s``, ``--interval 5s``, ``sleep 5 s``: a configured value."""
    if (_FLAG_TAIL_RE.search(before) or _STYLE_TAIL_RE.search(label)
            or _STYLE_WORD_RE.search(label) or _DEFAULT_TAIL_RE.search(before)):
        return True
    words = label.lower().replace("-", " ").replace("_", " ").split()
    if not words or not any(w in _SETTING_WORDS for w in words[-2:]):
        return False
    return _EXCEEDED_RE.search(before) is None


def _key_of(before: str) -> str:
    """The key a ``key: value`` pair names: the text before the separator, from the last
    field boundary, unquoted (``"Content-Length"``, ``Substr count 'x'``)."""
    seg = before.rstrip(" \t:=~≈")
    if seg.endswith('"'):
        q = seg.rfind('"', 0, len(seg) - 1)
        if q != -1:
            return seg[q + 1:-1]  # a JSON key
    parts = _KEY_SPLIT_RE.split(seg[-60:].strip())
    if not parts:
        return ""
    # a key of a few words ("Substr count 'font-size:14px'"): take up to 4 trailing tokens
    return " ".join(parts[-4:]).strip("\"'` ")


def _key_measure(key: str) -> tuple[str, str] | None:
    """``(unit, label)`` for a unitless value under ``key``, or None when the key names
    no measured quantity."""
    if not key:
        return None
    low = key.lower()
    toks = [t.strip("\"'`") for t in low.split()]
    toks = [t for t in toks if t]
    if not toks:
        return None
    last = toks[-1]
    label = key.strip("\"'` ")
    m = _RATE_KEY_RE.search(low)
    if m:
        what = m.group("what")
        unit = {"requests": "req/s", "request": "req/s", "req": "req/s", "transfer": "B/s",
                "tokens": "tokens/s", "token": "token/s"}.get(what, f"{what}/s")
        return unit, label
    if last in _KEY_UNITS:
        return _KEY_UNITS[last], label
    if toks[-2:] == ["tests", "run"]:  # JUnit/Maven: "Tests run: 12, Failures: 1"
        return "tests", label
    own = key.strip("\"'` ").split()[-1] if key.strip("\"'` ") else ""
    cm = _CAMEL_SIZE_RE.search(own)
    if cm and not _CAMEL_SETTING_RE.match(own):
        # a size or count field of a JSON/YAML answer: ``dataLen: 82``, ``file_size: 4096``
        word = (cm.group(1) or cm.group(2)).lower()
        return ("B" if word == "bytes" else ""), own
    um = _UNIT_KEY_RE.search(own)
    if um:
        words = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", own[:um.start()]).lower() \
            .replace("_", " ").replace("-", " ").split()
        if words and not _CAMEL_SETTING_RE.match(own) and not any(
                w in _UNIT_KEY_NOT or w in _SETTING_WORDS for w in words):
            return _UNIT_KEY_UNITS[(um.group("camel") or um.group("snake")).lower()], own
        return None
    if last in _EXIT_KEYS or toks[-2:] in (["exit", "code"], ["exit", "status"]):
        return "exit code", "exit"  # `; echo "exit=$?"`: the status the command printed
    if last.endswith("tokens") and last[:-6].strip("_- ") in _TOKEN_KINDS:
        return "tokens", label  # "input_tokens": 1234 (an API's usage block)
    # "Substr count 'font-size:14px'", "Count of wp21/dia-text", "Content length"
    for t in toks[:-1]:
        if t in ("count", "length", "size", "total"):
            return _KEY_UNITS[t], label
    if toks[0] in ("count", "length", "size", "total") or low.startswith("number of"):
        return "", label
    return None


def _measurements(text: str, prose: bool) -> list[tuple[float, str, str]]:
    if not isinstance(text, str) or not text:
        return []
    if "\x1b" in text:
        text = _ANSI_RE.sub("", text)
    found: list[tuple[int, float, str, str]] = []
    taken: list[tuple[int, int]] = []  # spans a block form consumed
    paren_lines: set[int] = set()  # line starts of "label (unit): value" rows

    # label (unit): value: benchmark rows such as "Median TTFT (ms): 11.2"
    if "):" in text or ") :" in text or ")=" in text:
        ls = line_end = -1
        skip = False
        for m in _PAREN_RE.finditer(text):
            if m.start() >= line_end:
                ls, line_end = _line_bounds(text, m.start())
                skip = bool(_GREP_CODE_RE.match(text[ls:line_end]))
            if skip:
                continue
            found.append((m.start(), _to_float(m.group(2)), _UNIT_INFO[m.group(1)][0],
                          _paren_label(text, ls, m.start())))
            taken.append((ls, m.end()))
            paren_lines.add(ls)
            if len(found) > 4 * _MAX_MEASUREMENTS:
                break

    # unitless rows of a benchmark result block; acceptance length anywhere
    if "Benchmark Result" in text:
        start = text.find("Benchmark Result")
        end = text.find("\n==", start + 20)
        end = len(text) if end == -1 else end
        for m in _LABEL_ROW_RE.finditer(text, start, end):
            label = m.group(1).strip()
            if label.endswith(")") and m.start() in paren_lines:
                continue  # "Mean TTFT (ms):" rows were taken with their unit above
            found.append((m.start(), _to_float(m.group(2)), "", label))
            taken.append((m.start(), m.end()))
    elif "ccept" in text:
        for m in _UNITLESS_RE.finditer(text):
            unit = "%" if m.group(3) else ""
            label = m.group(1).strip().replace("_", " ")
            label = label[:1].upper() + label[1:]
            found.append((m.start(), _to_float(m.group(2)), unit, label))
            taken.append((m.start(), m.end()))

    # nccl-tests: the summary line and the out-of-place busbw of each size
    if "bus bandwidth" in text:
        for m in _NCCL_AVG_RE.finditer(text):
            found.append((m.start(), _to_float(m.group(1)), "GB/s", "Avg bus bandwidth"))
            taken.append((m.start(), m.end()))
    if "busbw" in text:
        for m in _NCCL_ROW_RE.finditer(text):
            found.append((m.start(), _to_float(m.group(8)), "GB/s", f"busbw {m.group(1)} B"))
            taken.append((m.start(), m.end()))

    # a duration spelled in two units ("Took 1 min 23 sec", "2 minutes 5 seconds"): one
    # reading in seconds, not the first unit's number alone (a tool's output only)
    if not prose and "min" in text:
        _spelled_durations(text, found, taken)

    # the one-line summaries of zsh's, BSD's and GNU's `time` (logparse.measure_summaries rows)
    for a, b, value, unit, label in summary_readings(text):
        found.append((a, value, unit, label))
        taken.append((a, b))

    # ls -l: the size of each regular file; du: the size of each path; the cells of a
    # table with a header (a build's route sizes, a coverage summary)
    if not prose:
        _listing(text, found, taken)
        if "row" in text:
            _query_rows(text, found, taken)
        _columns(text, found, taken)
        _requests(text, found, taken)
        _lists(text, found, taken)
        if "/" in text and "ing " in text:
            _progress_done(text, found, taken)

    taken.sort()
    taken_starts = [a for a, _ in taken]

    def is_taken(p: int) -> bool:
        k = bisect_right(taken_starts, p) - 1
        return k >= 0 and p < taken[k][1]

    md_table = "|" in text and _has_md_table(text)
    line_start = line_end = -1
    line = ""
    seg_start = 0
    skip = False
    head_label = ""
    limit = 4 * _MAX_MEASUREMENTS
    for m in _candidates(text):
        p = m.start()
        if taken and is_taken(p):
            continue
        if p >= line_end:
            line_start, line_end = _line_bounds(text, p)
            line = text[line_start:line_end]
            skip = _skip_line(line, md_table)
            seg_start = line_start
            hm = _HEAD_LABEL_RE.match(line)
            head_label = _tidy_label(hm.group(1), False) if hm else ""
        if skip:
            continue
        hit = _judge(m, text, line, line_start, line_end, seg_start, head_label, md_table, prose)
        if hit is None:
            continue
        value, unit, label = hit
        seg_start = m.end()
        if prose and unit in _PROSE_HIT_COUNTS:
            continue
        found.append((p, value, unit, label))
        if len(found) > limit:
            break

    # results stated in words (logparse.measure_stated: rows with real examples); a number
    # the line rules above already read (the same place, or the same value and unit) keeps
    # their reading
    have = {p for p, _, _, _ in found} | {(v, u) for _, v, u, _ in found}
    found += [h for h in _stated(text, prose) if h[0] not in have and (h[1], h[2]) not in have
              and not (prose and md_table and (h[2] in _DURATION_UNITS or h[2] == "%")
                       and _design_row(text, h[0]))]

    found.sort(key=lambda t: t[0])
    out: list[tuple[float, str, str]] = []
    seen: set[tuple[float, str, str]] = set()
    for _, value, unit, label in found:
        key = (value, unit, label)
        if key in seen:
            continue
        seen.add(key)
        out.append(key)
        if len(out) >= _MAX_MEASUREMENTS:
            break
    return out


def _judge(m: re.Match[str], text: str, line: str, line_start: int, line_end: int,
           seg_start: int, head_label: str, md_table: bool, prose: bool
           ) -> tuple[float, str, str] | None:
    """Whether a candidate is a measurement, as ``(value, unit, label)``."""
    p = m.start()
    before = text[seg_start:p]
    if m.group("hc") is not None:  # an HTTP status
        return float(m.group("hc")), "HTTP", "HTTP status"
    if m.group("kn") is not None:  # key: value without a unit
        before = text[seg_start:p]
        key = _key_of(before)
        km = _key_measure(key)
        if km is None and key.lower().strip("\"'") in _TOKEN_KINDS and "tokens" in text:
            # "tokens": {"input": 45633822, "output": 188726}: a usage block
            if _TOKENS_PARENT_RE.search(text, max(0, p - 300), p):
                km = ("tokens", f"tokens {key.strip(chr(34) + chr(39))}")
        if km is None:
            bu = _BRACKET_UNIT_RE.match(text, m.end())
            unit_info = _UNIT_INFO.get(bu.group(1)) if bu else None
            if unit_info is not None and key:  # ab: "Time per request:  8.100 [ms] (mean)"
                return _to_float(m.group("kn")), unit_info[0], key.strip("\"'` ")
        if km is None:
            low = key.lower().strip("\"'` ")
            if low.split()[-1:] and low.split()[-1] in _STATUS_KEYS or low in _STATUS_KEYS:
                v = m.group("kn")
                if v.isdigit() and 100 <= int(v) <= 599:
                    return float(v), "HTTP", "HTTP status"
            return None
        unit, label = km
        if _is_setting(label, before):
            return None
        value = _to_float(m.group("kn"))
        suffix = m.group("ks")
        if suffix:
            value *= {"k": 1e3, "K": 1e3, "M": 1e6, "G": 1e9}[suffix]
        if value * _EPOCH_SCALE.get(unit, 0.0) >= _EPOCH_FLOOR_S:
            return None  # "mtimeMs": 1712345678901 (fs.Stats): a moment, not a duration
        if head_label and label.lower() in _STAT_WORDS:
            label = f"{head_label} {label}"
        return value, unit, label
    if m.group("cn") is not None:  # "6 widgets registered"
        noun = m.group("noun")
        if noun in ("seconds", "minutes", "hours", "days", "weeks", "months", "years", "times"):
            return None
        return float(m.group("cn")), noun, m.group("state")
    if m.group("cd") is not None:  # compound duration: always a reading
        value = _compound_seconds(m.group("cd"))
        label = _tidy_label(before)
        if _is_setting(label, before):
            return None
        return value, "s", label
    unit, cls = _canon_unit(m.group("u"))
    qual = m.group("q")
    raw_num = m.group("n")
    if cls == SHORT_SIZE:
        return None  # "8G" alone: du/df lines are read as blocks
    if prose and unit == "B" and not m.group("sp"):
        return None  # "off by ~40B", "a 7B model": billions in prose, not bytes
    if cls in (COUNT, SIZE, TOKENS) and _SHOWN_TAIL_RE.search(before):
        return None  # "First 200 chars of output:": how much was shown, not a reading
    label_form = _LABEL_TAIL_RE.search(before) is not None
    pctl = _PCTL_RE.match(before.strip(" \t:=").lower()) if cls == DURATION else None
    if pctl:  # wrk's latency distribution: "  99%   43.00ms"
        label_form = True
    if not label_form and cls not in (RATE, COUNT, TOKENS) and _SOFT_LABEL_TAIL_RE.search(before):
        label_form = _METRIC_RE.search(_tidy_label(before)) is not None
    table_cell = False
    if not label_form and md_table and line.lstrip().startswith("|"):
        # markdown table: a cell holding only ``value unit`` takes the row's first cell
        cs = text.rfind("|", line_start, p)
        ce = text.find("|", m.end(), line_end)
        if (cs != -1 and ce != -1 and not text[cs + 1:p].strip()
                and not text[m.end():ce].strip()):
            table_cell = True
    if cls == PERCENT:
        nxt = text[m.end():m.end() + 12].lstrip(" \t")
        if nxt[:1] == "|" or nxt.startswith("Completed"):
            return None  # a progress bar
    cmp_word = ""
    done = False
    if cls in (DURATION, PERCENT, RATIO, SIZE) and not label_form and not table_cell:
        if cls == DURATION and (_DONE_TAIL_RE.search(before) or _EXCEEDED_RE.search(before)
                                or _GO_LINE_RE.match(line)
                                or (text[p - 1:p] == "(" and text[m.end():m.end() + 1] == ")")):
            done = True
        elif cls == SIZE:
            pass  # judged by its label below
        elif cls in (PERCENT, RATIO):
            pm = _PCT_CMP_RE.match(text, m.end(), line_end)
            if pm:
                cmp_word = pm.group(1).lower()
            elif not (cls == PERCENT and _PCT_NOUN_RE.search(before)):
                return None  # ("coverage 81.2%", "CPU 45%": the noun before says what)
        else:
            return None
    if prose and cls == COUNT and unit == "errors" and _STATUS_NAMED_RE.search(before):
        if raw_num.isdigit() and 100 <= int(raw_num) <= 599:
            return None  # "the 422 error cases", "the 404 error should be gone": a status
    if prose and cls == PERCENT:
        sent = text[max(line_start, p - 200):p]
        cut = max(sent.rfind(". "), sent.rfind("! "), sent.rfind("? "))
        if _TARGET_RE.search(sent[cut + 1:]):
            return None  # "to ensure 100% coverage": a target, not a reading
    if cls in (COUNT, TOKENS) and prose and unit not in _PROSE_COUNTS:
        st = _STATE_AFTER_RE.match(text, m.end())
        if st is None:
            return None
        return _to_float(raw_num), unit, st.group(1)  # "12 rows were updated"
    if cls == COUNT and unit == "total" and not head_label:
        return None
    # the label
    if table_cell:
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        label = _tidy_label(cells[0], False) if cells else ""
    elif cmp_word:
        pre = _tidy_label(before, True, False)
        label = f"{pre} {cmp_word}" if pre else cmp_word
    else:
        label = _tidy_label(before)
        if done and cls == DURATION:
            # "Finished `release` profile [optimized] target(s) in 28.48s", "audited 61
            # packages in 22s": what finished, read from the line up to the number
            whole = _BRACKETS_RE.sub(" ", text[line_start:p])
            label = _tidy_label(" ".join(w for w in whole.split() if not _is_number_word(w)))
        pm = pctl or _PCTL_RE.match(before.strip(" \t:=").lower())
        if pm:  # "p(95)=12ms", "  99%   43.00ms"
            label = f"p{pm.group(1) or pm.group(2)}"
        if not label and not done and cls not in (COUNT, TOKENS):
            after = text[m.end():line_end].lstrip(" \t*")
            if after[:1].isalpha():  # "82 tok/s baseline", not "82 tok/s / 12.2 ms"
                label = _tidy_label(after, False)
        if not label and head_label and not label_form:
            label = head_label
        if cls == SIZE and not label_form:
            first = line.split(None, 1)[0].strip("`'\"*") if line.strip() else ""
            name = first.rstrip("/").rsplit("/", 1)[-1].rsplit("\\", 1)[-1]
            if ("/" in first or "." in first[1:]) and name and not _is_number_word(first):
                label = name  # a build artefact (dist/index.js), a folder (`assets/`)
        if label.lower() in _STAT_WORDS:
            # "latency p50: 41 ms, p99: 132 ms": the p99 is the latency's too
            subj = [w for w in _STAT_SUBJECT_RE.findall(text, line_start, p)
                    if w.lower() not in _STAT_WORDS and w not in _UNIT_INFO
                    and not _is_number_word(w)]
            if subj:
                label = f"{subj[-1]} {label}"
            elif head_label:
                label = f"{head_label} {label}"
        label = _own_stat(label)
    if cls == DURATION and done and _EXCEEDED_RE.search(before):
        label = "timeout exceeded"  # "terminated command after exceeding timeout 120000 ms"
    if (done or cls == SIZE) and not label and not label_form:
        return None
    if cls in (DURATION, SIZE, PERCENT, RATIO, COUNT) and _is_setting(label, before):
        return None
    if prose and cls in (DURATION, PERCENT) and md_table and _design_row(text, p):
        return None
    if cls in (DURATION, SIZE, PERCENT, RATE) and (
            _THRESHOLD_BEFORE_RE.search(before) or _THRESHOLD_AFTER_RE.match(text, m.end())):
        return None  # "larger than 500 kB after minification", "the 100 MB limit"
    if qual:
        label = f"{label} ({qual.lower()})" if label else qual.lower()
    return _to_float(raw_num), unit, label


_SPELLED_CD_RE = re.compile(
    r"(?<![\w.])(?:(?P<h>\d+)[ \t]?(?:hours?|hrs?)[ \t]+(?:and[ \t]+)?(?P<hm>\d+)[ \t]?"
    r"(?:minutes?|mins?)(?:[ \t]+(?:and[ \t]+)?(?P<hs>\d+(?:\.\d+)?)[ \t]?(?:seconds?|secs?))?"
    r"|(?P<m>\d+)[ \t]?(?:minutes?|mins?)[ \t]+(?:and[ \t]+)?(?P<s>\d+(?:\.\d+)?)[ \t]?"
    r"(?:seconds?|secs?))(?![\w/])")
"""A duration spelled in two or three units, ``1 min 23 sec``, ``2 minutes 5 seconds``,
``1 hour 5 minutes`` (Jenkins' ``Took 1 min 23 sec``; the compact ``1m 23s`` is a
candidate of :data:`_CAND_RE`)."""


def _spelled_durations(text: str, found: list[tuple[int, float, str, str]],
                       taken: list[tuple[int, int]]) -> None:
    """Each :data:`_SPELLED_CD_RE` duration of ``text`` in seconds, labelled by the words
    before it on its line; a configured one (``--timeout 2 minutes 30 seconds``) is none."""
    for m in _SPELLED_CD_RE.finditer(text):
        if m.group("h") is not None:
            secs = int(m.group("h")) * 3600 + int(m.group("hm")) * 60 + float(m.group("hs") or 0)
        else:
            secs = int(m.group("m")) * 60 + float(m.group("s"))
        ls, _ = _line_bounds(text, m.start())
        before = text[ls:m.start()]
        label = _tidy_label(before)
        taken.append((m.start(), m.end()))
        if _is_setting(label, before):
            continue
        found.append((m.start(), round(secs, 6), "s", label))


_CD_PART_RE = re.compile(r"(?<![\d.])(\d+(?:\.\d+)?)([hms])")


def _compound_seconds(s: str) -> float:
    total = 0.0
    for num, u in _CD_PART_RE.findall(s):
        total += float(num) * {"h": 3600, "m": 60, "s": 1}[u]
    return round(total, 6)


_STATED: Callable[[str, bool], list[tuple[int, float, str, str]]] | None = None


def _stated(text: str, prose: bool) -> list[tuple[int, float, str, str]]:
    """:func:`logparse.measure_stated.stated_measurements` and
    :func:`logparse.measure_runners.runner_measurements` (their rows read this module's
    units and label helpers, so they are imported on first use)."""
    global _STATED
    if _STATED is None:
        from logparse.measure_runners import runner_measurements
        from logparse.measure_stated import stated_measurements

        def both(t: str, p: bool) -> list[tuple[int, float, str, str]]:
            said = stated_measurements(t, p)
            have = {h[0] for h in said} | {(h[1], h[2]) for h in said}
            return said + [h for h in runner_measurements(t, p)
                           if h[0] not in have and (h[1], h[2]) not in have]

        _STATED = both
    return _STATED(text, prose)
