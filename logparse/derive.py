"""From raw opencode messages to typed events, column-wise and incrementally.

:class:`Deriver` consumes the messages of one session in chronological order
and accumulates rows for four tables (see ``docs/schema.md``):

``messages``  one row per message, with its ordinal and its raw JSON;
``calls``     one row per tool call: the ``command`` and ``result`` events
              (and ``todo``/``subagent`` events for ``todowrite``/``task``);
``prose``     user prompts and assistant prose (``prompt``/``decision``);
``other``     errors, compaction, attachments and raw (untyped) parts.

Rows are plain tuples in the column order of :data:`COLUMNS`; building a
validated model per event would dominate ingest time.  :func:`to_events`
turns rows into :class:`~logparse.models.Event` models for tests and tools
that want the typed view without a database.

Ordinals are assigned in the order messages arrive.  The deriver checks that
order (``time.created`` then id) and sets :attr:`Deriver.out_of_order` when a
message arrives early, so the store can renumber.
"""

from __future__ import annotations

import math
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson

from logparse import measure as _m
from logparse import signals as _signals
from logparse.author import COMPACTION, HARNESS, HUMAN, USER_AUTHORS, part_author
from logparse.decide import agent_decision, choice_text, user_decision
from logparse.decide_choice import agent_choice, approval
from logparse.derive_version import DERIVE_VERSION as _DERIVE_VERSION
from logparse.listings import listing_count
from logparse.measure_stated import curl_write_out, read_note_measurements
from logparse.memo import Memo, memo, text_key
from logparse.models import Category, Event, EventKind, Measurement, Problem, Status, TodoItem
from logparse.prose import classify_prose
from logparse.schema import TABLES, names
from logparse.shell import parse_command
from logparse.source import RawMessage, message_sort_key

_R = TypeVar("_R")

# the rules' version lives in a module of its own: an ingest with nothing to derive
# (a re-run, nothing changed) compares it without loading the rules
DERIVE_VERSION = _DERIVE_VERSION

COLUMNS: dict[str, tuple[str, ...]] = {t: names(cols) for t, cols in TABLES.items()}
"""The column order of each table's rows (declared in :mod:`logparse.schema`)."""

_TOOL_CATEGORY = {
    "read": Category.SEARCH, "grep": Category.SEARCH, "glob": Category.SEARCH,
    "list": Category.SEARCH, "ls": Category.SEARCH, "codesearch": Category.SEARCH,
    "lsp": Category.SEARCH,
    "edit": Category.FILE_EDIT, "write": Category.FILE_EDIT, "multiedit": Category.FILE_EDIT,
    "apply_patch": Category.FILE_EDIT, "patch": Category.FILE_EDIT,
    "task": Category.SUBAGENT, "todowrite": Category.TODO, "todoread": Category.TODO,
    "webfetch": Category.RESEARCH, "websearch": Category.RESEARCH,
}
_SILENT_PARTS = frozenset({"step-start", "step-finish", "patch", "snapshot"})
_CHILD_RE = re.compile(r"(?:task_id:|session_id:|<task id=\")\s*(ses_[A-Za-z0-9]+)")


# Every rule below that reads a text is a pure function of it: a text seen before (real
# sessions repeat their commands, outputs and status lines) gets its answer from a memo
# (logparse.memo; LOGKB_DERIVE_MEMO=0 turns them off, tests/logparse/test_memo.py proves
# the rows the same either way).  Answers are immutable: lists are rebuilt per caller.
_CLASSES: Memo[str] = memo("prose class")
_MEASURED: Memo[tuple[tuple[float, str, str], ...]] = memo("measurements")
_SIGNATURES: Memo[tuple[str, ...]] = memo("error signatures")
_COMPILER: Memo[int] = memo("compiler errors")
_LISTING: Memo[tuple[tuple[float, str, str], ...]] = memo("listing measurements")
_LENGTH: Memo[int | None] = memo("listing length")


def classify(text: str) -> str:
    """The prose class of a text (memoised: agents repeat their status lines)."""
    return _CLASSES.get(text_key(text), lambda: classify_prose(text).value)


def measurement_tuples(text: str, prose: bool = False) -> tuple[tuple[float, str, str], ...]:
    """:func:`logparse.measure.measurement_tuples`, memoised."""
    return _MEASURED.get((prose, text_key(text)),
                         lambda: tuple(_m.measurement_tuples(text, prose)))


def error_signatures(text: str) -> tuple[str, ...]:
    """:func:`logparse.signals.error_signatures`, memoised."""
    return _SIGNATURES.get(text_key(text), lambda: tuple(_signals.error_signatures(text)))


def compiler_error_count(output: str, level: str = "error") -> int:
    """:func:`logparse.measure.compiler_error_count`, memoised (a text without the word
    counts none, nor one without kotlinc's ``e:``/``w:`` prefix: cheaper than the memo's
    key)."""
    if not isinstance(output, str) or (level not in output and f"{level[0]}: " not in output):
        return 0
    return _COMPILER.get((level, text_key(output)),
                         lambda: _m.compiler_error_count(output, level))


def listing_measurements(text: str) -> tuple[tuple[float, str, str], ...]:
    """:func:`logparse.measure.listing_measurements`, memoised."""
    return _LISTING.get(text_key(text), lambda: tuple(_m.listing_measurements(text)))


def listing_length(output: str) -> int | None:
    """:func:`logparse.measure.listing_length`, memoised."""
    return _LENGTH.get(text_key(output), lambda: _m.listing_length(output))


def digest(raw: bytes) -> int:
    """A cheap content digest of a raw record (change detection, not security)."""
    return (len(raw) << 32) | zlib.crc32(raw)


_I64_MIN, _I64_MAX = -(1 << 63), (1 << 63) - 1


def _num(v: Any) -> int | None:
    """An integer for a BIGINT column; ``None`` for anything else (a string, a bool, a
    number beyond 64 bits: the field is lost, its value stays in the raw JSON)."""
    if isinstance(v, (int, float)) and not isinstance(v, bool) and _I64_MIN <= v <= _I64_MAX:
        return int(v)
    return None


def _is_int64(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and _I64_MIN <= v <= _I64_MAX


_NUMBER = (int, float)
_INFO_TYPES: dict[str, tuple[type, ...]] = {
    "role": (str,), "agent": (str,), "mode": (str,), "modelID": (str,), "finish": (str,),
    "model": (dict,), "path": (dict,), "time": (dict,), "tokens": (dict,),
    "error": (dict, str), "cost": _NUMBER, "parentID": (str,)}
_TYPE_NAMES = {str: "a string", dict: "an object", int: "a number", float: "a number"}


def _kind(v: Any) -> str:
    return {str: "a string", dict: "an object", list: "a list", bool: "a boolean",
            int: "a number", float: "a number"}.get(type(v), type(v).__name__)


def bad_fields(info: dict[str, Any]) -> list[tuple[str, str]]:
    """``(field, what is wrong)`` for message info fields of the wrong type (cheap: a few
    lookups per message; the common case finds nothing)."""
    bad: list[tuple[str, str]] = []
    for key, types in _INFO_TYPES.items():
        v = info.get(key)
        if v is None:
            continue
        if not isinstance(v, types) or (types is _NUMBER and isinstance(v, bool)):
            want = " or ".join(dict.fromkeys(_TYPE_NAMES[t] for t in types))
            bad.append((key, f"is {_kind(v)}, expected {want}"))
    for key, subs in (("time", ("created", "completed")), ("tokens", ("input", "output"))):
        d = info.get(key)
        if isinstance(d, dict):
            for sub in subs:
                v = d.get(sub)
                if v is not None and not _is_int64(v):
                    what = ("a number beyond 64 bits" if isinstance(v, _NUMBER)
                            and not isinstance(v, bool) else _kind(v))
                    bad.append((f"{key}.{sub}", f"is {what}, expected a 64-bit integer"))
    err = info.get("error")
    if isinstance(err, dict):
        if err.get("name") is not None and not isinstance(err.get("name"), str):
            bad.append(("error.name", f"is {_kind(err['name'])}, expected a string"))
        if err.get("data") is not None and not isinstance(err.get("data"), dict):
            bad.append(("error.data", f"is {_kind(err['data'])}, expected an object"))
    return bad


def _without(info: dict[str, Any], fields: list[str]) -> dict[str, Any]:
    """A copy of ``info`` without some (possibly nested ``a.b``) fields."""
    clean = dict(info)
    for f in fields:
        key, _, sub = f.partition(".")
        if sub and isinstance(clean.get(key), dict):
            clean[key] = {k: v for k, v in clean[key].items() if k != sub}
        else:
            clean.pop(key, None)
    return clean


def _obj(v: Any) -> dict[str, Any]:
    """``v`` when it is a JSON object, else an empty one."""
    return v if isinstance(v, dict) else {}


def _text(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _dumps(v: Any) -> str | None:
    if v is None:
        return None
    return orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS).decode()


MEASURE_HEAD, MEASURE_TAIL = 1000, 4000
PROSE_MAX = 20_000
# outputs of these categories repeat the same rate on every line (a server log): read them
# only when they hold a results block
_LOG_CATEGORIES = frozenset({"launch", "kill", "search"})
_RESULT_MARKERS = ("Benchmark Result", "benchmark result", "Results", "results:", "Summary")
_UNMEASURED_TOOLS = frozenset({"todowrite", "todoread", "webfetch", "websearch", "codesearch",
                               "edit", "multiedit", "patch", "apply_patch", "question"})


def worth_measuring(text: str, category: str | None = None) -> bool:
    """Cheap gate before :func:`measurement_tuples`.

    Command outputs are read, except those of launches (server logs repeat a per-step rate
    on every line) and searches (listings, greps and tails of files: most of a session's
    output bytes), which are read only when they hold a results block; a search's listing
    is still read for file sizes (:func:`~logparse.measure.listing_measurements`).  Prose
    (``category`` None) is read when it holds a digit."""
    if category is None:
        return any(d in text for d in "0123456789")
    if category in _LOG_CATEGORIES:
        tail = text[-MEASURE_TAIL:]
        return any(h in tail for h in _RESULT_MARKERS)
    return True


def _measure(text: str, prose: bool = False) -> list[dict[str, Any]] | None:
    """Measurements of a text; of a long output only its head and tail are read (results
    blocks come last, and a server log repeats the same rate on every line), and a label
    repeated in one output keeps its first and its last value."""
    middle: list[tuple[float, str, str]] = []
    if prose:
        if len(text) > PROSE_MAX:
            text = text[:PROSE_MAX // 2] + "\n" + text[-PROSE_MAX // 2:]
    elif len(text) > MEASURE_HEAD + MEASURE_TAIL:
        # the middle keeps psql's "(N rows)": one count per query of a long output
        middle = _m.query_row_counts(text[MEASURE_HEAD:-MEASURE_TAIL])
        text = text[:MEASURE_HEAD] + "\n" + text[-MEASURE_TAIL:]
    found = [*measurement_tuples(text, prose), *middle]
    if not found:
        return None
    first: dict[tuple[str, str], float] = {}
    last: dict[tuple[str, str], tuple[int, float]] = {}
    for i, (value, unit, label) in enumerate(found):
        first.setdefault((label, unit), value)
        last[(label, unit)] = (i, value)
    out = [(i, {"value": v, "unit": u, "label": lab}) for (lab, u), (i, v) in last.items()]
    out += [(-1, {"value": v, "unit": u, "label": lab}) for (lab, u), v in first.items()
            if last[(lab, u)][1] != v]
    out.sort(key=lambda t: t[0])
    return [m for _, m in out]


def _api_status(data: Any) -> dict[str, Any]:
    """The HTTP status a provider answered a failed request with (opencode's and Claude
    Code's ``statusCode`` of an API error), as the retry's measurement."""
    status = data.get("statusCode") if isinstance(data, dict) else None
    if not isinstance(status, int) or isinstance(status, bool) or not 100 <= status <= 599:
        return {}
    return {"measurements": [{"value": float(status), "unit": "HTTP",
                              "label": "API error status"}]}


def api_error_readings(message: str) -> list[dict[str, Any]]:
    """The HTTP status a failed request's error states (Gemini CLI's ``[API Error: got
    status: 429 Too Many Requests]``, Codex's ``unexpected status 401 Unauthorized``): the
    measurement of an API error whose reader kept no status field, as
    :func:`_api_status` reads the field (opencode's ``statusCode``, Claude Code's
    ``error.status``).  Only statuses: the error's other numbers (a quota's reset time, a
    request id) are no result."""
    return [{"value": v, "unit": u, "label": "API error status"}
            for v, u, _ in measurement_tuples(message) if u == "HTTP"][:1]


def _part_readings(part: dict[str, Any]) -> list[dict[str, Any]]:
    """The readings a reader put on a ``retry`` or ``stat`` part (``measurements``): those
    with a finite number, a unit and a label.  An opencode export's part is handed on as
    its file has it, so the field may hold anything."""
    got = part.get("measurements")
    if not isinstance(got, list):
        return []
    return [m for m in got if isinstance(m, dict) and isinstance(m.get("unit"), str)
            and isinstance(m.get("label"), str) and isinstance(m.get("value"), (int, float))
            and not isinstance(m.get("value"), bool) and math.isfinite(m["value"])]


def _basename(path: Any) -> str:
    return path.replace("\\", "/").rsplit("/", 1)[-1] if isinstance(path, str) else ""


# a grep whose output is not piped on: every line it prints is a hit
_GREP_CMD_RE = re.compile(r"(?:^|&&|;)\s*(?:grep|egrep|fgrep|rg|git\s+grep)\s[^|;&]*$")
_QUOTED_RE = re.compile(r'"(?:[^"\\]|\\.)*"' + r"|'[^']*'")
_GREP_COUNTING = re.compile(r"\s-(?:[a-zA-Z]*[clLq][a-zA-Z]*|-count|-files-with)")


def grep_hits(command: str | None, output: str) -> int:
    """How many hits a plain ``grep``/``rg`` printed (one per line); 0 for a grep piped
    on, one that counts (``-c``) or lists files (``-l``), or a truncated output."""
    if not command or "grep" not in command and "rg" not in command:
        return 0
    tail = _QUOTED_RE.sub("''", command.strip())
    if not _GREP_CMD_RE.search(tail) or _GREP_COUNTING.search(tail):
        return 0
    if "<shell_metadata>" in output or "truncated" in output[-300:]:
        return 0
    return sum(1 for line in output.splitlines() if line.strip() and line[:2] != "--")


# commands that print a count: wc, grep -c, --count, --format=count, PowerShell Measure-Object
_COUNTING_CMD_RE = re.compile(
    r"\bwc\s+-[lcwm]|\bwc\b|\bgrep\s(?:[^|;&]*\s)?-[a-zA-Z]*c|--count\b|format[= ]count\b"
    r"|Measure-Object|\.Count\b|\bcount\(\)|\bCOUNT\(")
# a file's size as ``stat`` prints it alone: GNU ``stat -c %s``, BSD ``stat -f %z``
_STAT_SIZE_RE = re.compile(r"\bstat\s+(?:(?:-c|--format=?|--printf=?)\s*(?P<q>['\"]?)%s"
                           r"|-f\s*(?P<b>['\"]?)%z)(?:(?P=q)|(?P=b))\s")
_LS_COUNTED_RE = re.compile(r"(?:^|[;&|(]\s*)ls\b[^|;&]*\|\s*wc\b")
"""``ls DIR | wc -l``: an ``ls`` entry count, no reading (issue 22 item 5)."""
_BARE_NUMBER_RE = re.compile(r"(?<!\s)\s*+(\d{1,15}(?:\.\d+)?)\s*+")


def counted_value(command: str | None, output: str) -> dict[str, Any] | None:
    """The number a counting command printed as its whole output (``wc -l < f`` → ``42``,
    ``wp post list --format=count`` → ``4``), or a file's size ``stat -c %s f`` printed
    alone, as a measurement; else None."""
    if not command or len(output) > 40:
        return None
    m = _BARE_NUMBER_RE.fullmatch(output)
    if m is None:
        return None
    if _STAT_SIZE_RE.search(command) and "|" not in command:
        return {"value": float(m.group(1)), "unit": "bytes", "label": "file size"}
    if not _COUNTING_CMD_RE.search(command) or _LS_COUNTED_RE.search(command):
        return None
    unit = "lines" if re.search(r"\bwc\s+-l", command) else "bytes" if "wc -c" in command else ""
    return {"value": float(m.group(1)), "unit": unit, "label": "count"}


_WC_UNIT = {"l": "lines", "c": "bytes", "m": "chars", "w": "words"}
_WC_LINE_RE = re.compile(r"^\s*(\d{1,12})\s+(\S.*?)\s*$")
WC_MAX = 20
"""Lines of a ``wc`` listing read as measurements (the total is the last)."""


def wc_values(command: str | None, output: str) -> list[dict[str, Any]]:
    """What ``wc -l`` (or ``-c``, ``-m``, ``-w``) printed for several files: one count a
    line, ``N path`` and ``N total``, each a measurement in the flag's unit."""
    if not command:
        return []
    m = re.search(r"\bwc\s+-([lcmw])\b", command)
    if m is None:
        return []
    out = []
    for line in output.strip().splitlines()[-WC_MAX:]:
        w = _WC_LINE_RE.match(line)
        if w is None:
            return []  # not a wc listing (a pipe went on past wc)
        name = w.group(2).replace("\\", "/").rstrip("/").rsplit("/", 1)[-1]
        out.append({"value": float(w.group(1)), "unit": _WC_UNIT[m.group(1)],
                    "label": name if name == "total" else f"{name} length"})
    if len(out) == 1 and out[0]["label"] == "total":
        return []
    return out


_DIFFSTAT = re.compile(r"^\s*\d+ files? changed\b")
_GIT_READS = frozenset({"log", "diff", "show", "status", "blame", "grep", "branch", "ls-files",
                        "ls-tree", "shortlog", "reflog", "rev-parse", "remote", "describe",
                        "cat-file", "tag"})
"""`git` subcommands whose output is a listing (read like a search's): a commit's, a
merge's or a push's summary ("21 files changed, 1484 insertions") is read whole."""


def _git_listing(command: str) -> bool:
    """Whether a ``git`` command line runs a subcommand of :data:`_GIT_READS` (the first
    word after ``git`` and its global options ``-C DIR``, ``-c K=V``, ``--no-pager``)."""
    words = command.split()
    try:
        i = next(n for n, w in enumerate(words) if w == "git" or w.endswith("/git")) + 1
    except StopIteration:
        return False
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in ("-C", "-c") else 1
    return i < len(words) and words[i] in _GIT_READS


def _body(meta: dict[str, Any], output: str | None) -> str | None:
    """The command's own output within a shell tool's ``output``: the span a reader marks
    (``metadata.body``) where it keeps its tool's fields around what the command printed
    (Gemini CLI's ``Output:`` … ``Process Group PGID: N``, Claude Code's ``Exit code 1``
    line, pi's ``Command exited with code 1``), as the Codex and Antigravity readers cut
    them off.  The measurement rules read this, so one output measures the same from
    every agent (a ``wc -l`` count, a ``git log`` listing, a first ``ok`` line)."""
    span = meta.get("body")
    if output is None or not isinstance(span, list) or len(span) != 2:
        return output
    a, b = span
    if not (isinstance(a, int) and isinstance(b, int) and 0 <= a <= b <= len(output)):
        return output
    return output[a:b]


def call_measurements(tool: str, category: str | None, inp: dict[str, Any],
                      output: str | None, time: dict[str, Any],
                      error: str | None = None) -> list[dict[str, Any]] | None:
    """What a tool call measured: the numbers its output reports, and what the call itself
    shows (a file's length in lines from a ``read``, the size of a ``write``, a subagent's
    run time, the number of compiler errors listed).

    A call that failed without an output gives its result as its ``error`` (every reader
    keeps a failed result's text there: opencode's ``state.error``, Claude Code's and pi's
    ``is_error`` answers, Gemini CLI's ``response.error``, Antigravity's ``ERROR`` steps):
    it is read as the output would be, except that of a tool whose output is never read
    (a fetch, a search, an edit) only the HTTP status it failed with is kept
    (``Request failed with status code 404``).  What the command decides the meaning of
    (a listing's count, ``wc``) is not read from an error: the error is not its output."""
    if output is None and error and tool != "read":
        return _error_measurements(tool, error)
    meas: list[dict[str, Any]] = []
    if tool == "read":
        n = listing_length(output) if output else None
        if n is None and output and not (inp.get("offset") or inp.get("limit")):
            n = _m.numbered_length(output)  # Claude Code's whole file, numbered (313→)
        more = _m.more_lines(output) if n is None and output else None
        if more is not None:  # pi's "[61 more lines in file. Use offset=11 to continue.]"
            meas.append({"value": float(more[0]), "unit": "lines",
                         "label": f"{_basename(inp.get('filePath'))} lines not shown".strip()})
            n = more[1]
        if n is not None:
            meas.append({"value": float(n), "unit": "lines",
                         "label": f"{_basename(inp.get('filePath'))} length".strip()})
        elif output:  # a directory's footer, a one-line note (too large, a PDF's size)
            meas += [{"value": v, "unit": u, "label": lab} for v, u, lab in
                     read_note_measurements(output, _basename(inp.get("filePath")))]
        return meas or None
    if tool == "write":
        content = inp.get("content")
        if isinstance(content, str) and content:
            meas.append({"value": float(len(content)), "unit": "chars",
                         "label": f"{_basename(inp.get('filePath'))} written".strip()})
        return meas or None
    if tool in _UNMEASURED_TOOLS or not output:
        return None
    if category == "git" and _git_listing(_text(inp.get("command")) or ""):
        category = "search"  # a log, a diff, a status: a listing
    if tool in ("grep", "glob", "list", "ls"):
        # a listing of paths or grep hits: its count ("Found 63 matches") is a grep hit count
        # or an entry count, no reading (issue 22 item 5; logparse.measure_kinds)
        return None
    if tool == "task":
        start, end = _num(time.get("start")), _num(time.get("end"))
        if start is not None and end is not None and end > start:
            # to the millisecond the tool timed it (843.544 s, not 844 s)
            meas.append({"value": round((end - start) / 1000, 3), "unit": "s",
                         "label": "subagent run time"})
        meas += _measure(output, prose=True) or []
        return meas or None
    if worth_measuring(output, category):
        meas = _measure(output) or []
    else:
        # a launch's log or a search's listing is not read whole, but the tool's own note
        # is ("shell tool terminated command after exceeding timeout 120000 ms"), and so are
        # the sizes a listing shows (ls -l, du)
        i = output.rfind("<shell_metadata>")
        meas = (_measure(output[i:]) or []) if i != -1 else []
        # pi's note on an output it cut ("[Showing lines a-b of N … Full output: …]"):
        # the command printed N lines (logparse.measure_runners)
        j = output.rfind("[Showing lines ", max(0, len(output) - 400))
        if j != -1:
            meas += _measure(output[j:]) or []
        if category == "search":
            meas += [{"value": v, "unit": u, "label": lab}
                     for v, u, lab in listing_measurements(output[:MEASURE_HEAD + MEASURE_TAIL])]
            tail = output.rstrip()[-300:].rsplit("\n", 1)[-1]
            if _DIFFSTAT.match(tail):  # the summary line of `git diff --stat`
                meas += _measure(tail) or []
            if output.lstrip()[:1] in ("{", "[") and '":' in output and not \
                    _GREP_CMD_RE.search(_QUOTED_RE.sub("''", _text(inp.get("command")) or "")):
                # a JSON answer (jq, an API's reply): the fields its keys name a count,
                # a size or a time of (``"message_count": 15``, ``"latency_ms": 12``);
                # never a grep's (its hits are lines of files; ``rg --json``'s "matches")
                meas += [m for m in _measure(output) or [] if f'"{m["label"]}"' in output]
    if tool == "bash":
        command = _text(inp.get("command"))
        if command and "%{" in command:  # curl -w "%{http_code}": read through its format
            seen = {(m["value"], m["unit"]) for m in meas}
            meas += [{"value": v, "unit": u, "label": lab} for v, u, lab in
                     curl_write_out(command, output) if (v, u) not in seen]
        listed = listing_count(command, output)
        if listed is not None and "[Showing lines " not in output[-400:]:  # not a cut one  # `git log --oneline`: how many commits it listed
            meas.append({"value": listed[0], "unit": listed[1], "label": f"{listed[1]} listed"})
        counted = counted_value(command, output)
        if counted is not None and not meas:
            meas.append(counted)
        elif counted is None:
            seen = {(m["value"], m["unit"]) for m in meas}
            meas += [m for m in wc_values(command, output) if (m["value"], m["unit"]) not in seen]
    return _compiler_counts(output, meas) or None


def _compiler_counts(output: str, meas: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``meas`` with the compiler errors and warnings ``output`` lists, when it states no
    count of them itself."""
    n = compiler_error_count(output)
    if n and not any(m["unit"] == "errors" for m in meas):
        meas.append({"value": float(n), "unit": "errors", "label": "compiler errors"})
    n = compiler_error_count(output, "warning")
    if n and not any(m["unit"] == "warnings" for m in meas):
        meas.append({"value": float(n), "unit": "warnings", "label": "compiler warnings"})
    return meas


def _error_measurements(tool: str, error: str) -> list[dict[str, Any]] | None:
    """What a failed call's error text measured (:func:`call_measurements`)."""
    found = _measure(error) or []  # (of a long error, its head and tail)
    if tool in _UNMEASURED_TOOLS:
        return [m for m in found if m["unit"] == "HTTP"] or None
    return _compiler_counts(error, found) or None


def tool_status(state: dict[str, Any]) -> str:
    """opencode tool state → logkb status (aborted and interrupted told apart)."""
    st = state.get("status")
    if st == "completed":
        return Status.COMPLETED
    if st == "error":
        err = state.get("error")
        if isinstance(err, str) and "aborted" in err.lower():
            return Status.ABORTED
        return Status.ERROR
    return Status.INTERRUPTED  # pending / running: the session ended mid-call


def command_text(tool: str, inp: dict[str, Any], title: str | None) -> str | None:
    """The text engineers recognise a call by: the bash command, or the main argument."""
    if tool == "bash":
        return _text(inp.get("command"))
    for key in ("filePath", "pattern", "path", "url", "query", "description", "name"):
        v = inp.get(key)
        if isinstance(v, str) and v:
            if tool == "grep" and key == "pattern" and isinstance(inp.get("path"), str):
                return f"{v} {inp['path']}"
            return v
    if tool == "todowrite" and isinstance(inp.get("todos"), list):
        return f"{len(inp['todos'])} todos"
    return title


SPAWNS = frozenset({"task", "spawn_agent"})
"""Calls that start a sub-agent's session (``task`` of every reader, Codex's
``spawn_agent``): their ``child_session_id`` is that session."""


def child_session(state: dict[str, Any]) -> str | None:
    meta = state.get("metadata")
    if isinstance(meta, dict):
        for key in ("sessionId", "sessionID"):
            value = meta.get(key)
            if isinstance(value, str):
                return value
    out = state.get("output")
    if isinstance(out, str):
        m = _CHILD_RE.search(out[:400])
        if m:
            return m.group(1)
    return None


@dataclass
class Batch:
    """Rows derived since the last :meth:`Deriver.take`, one list per table."""

    messages: list[tuple[Any, ...]] = field(default_factory=list)
    calls: list[tuple[Any, ...]] = field(default_factory=list)
    prose: list[tuple[Any, ...]] = field(default_factory=list)
    other: list[tuple[Any, ...]] = field(default_factory=list)

    def __len__(self) -> int:
        return len(self.messages)

    def tables(self) -> Iterator[tuple[str, list[tuple[Any, ...]]]]:
        yield "messages", self.messages
        yield "calls", self.calls
        yield "prose", self.prose
        yield "other", self.other


class Deriver:
    """Derives the rows of one session, message by message.

    ``known`` maps message ids already stored to ``(digest, ordinal)``; such a
    message, unchanged and at the same ordinal, is skipped (incremental ingest).
    """

    def __init__(self, session_id: str, source: str,
                 known: dict[str, tuple[int, int]] | None = None, author: str = HUMAN) -> None:
        self.session_id = session_id
        self.source = source
        self.author = author
        """Who writes the plain user text of this session (:func:`logparse.author.
        session_author`: ``parent`` for a sub-agent's)."""
        self.known = known or {}
        self.problems: list[Problem] = []
        self.batch = Batch()
        self.ordinal = 0
        self.out_of_order = False
        self.skipped = 0
        self.skipped_ids: list[str] = []
        """Messages found unchanged and not derived again (their problems stay stored)."""
        self.keep: set[str] = set()
        """Stored messages to keep as they are whatever this input holds (the caller found
        the stored one to be a later state of the same message: an older copy's cut)."""
        self.derived = 0
        self.events = 0
        self.untyped = 0
        self.rule_errors = 0
        """Extraction rules that raised on this session's text (see :meth:`_rule`)."""
        self.first_time: int | None = None
        self.last_time: int | None = None
        self._last_key: tuple[int, str] = (-(1 << 62), "")
        self._prev_had_tool = False
        self._turn_had_tool = False
        """Whether the message before the one being derived called a tool."""
        self._seq_proposal: str | None = None
        """The assistant's last reply since the user's last prompt: what a short reply
        approves (:func:`logparse.decide_choice.approval`).  Sequential state, kept by
        :meth:`step`; :attr:`proposal_before` is its value before the message stepped."""
        self.proposal_before: str | None = None
        self._proposal: str | None = None
        """The proposal the message being derived answers (:meth:`derive_at`'s)."""

    # -- public -------------------------------------------------------------
    def sequence(self) -> dict[str, Any]:
        """The sequential state (what :meth:`step` carries from one message to the next):
        what a resumed ingest continues from."""
        return {"ordinal": self.ordinal, "last_key_time": self._last_key[0],
                "last_key_id": self._last_key[1], "first_time": self.first_time,
                "last_time": self.last_time, "prev_had_tool": self._prev_had_tool,
                "out_of_order": self.out_of_order, "proposal": self._seq_proposal}

    def resume_sequence(self, s: dict[str, Any]) -> None:
        """Continue after the messages :meth:`sequence` was taken after."""
        self.ordinal = int(s["ordinal"])
        self._last_key = (int(s["last_key_time"]), str(s["last_key_id"]))
        self.first_time, self.last_time = s["first_time"], s["last_time"]
        self._prev_had_tool = bool(s["prev_had_tool"])
        self.out_of_order = bool(s["out_of_order"])
        prop = s.get("proposal")  # absent from what older rules stored
        self._seq_proposal = prop if isinstance(prop, str) else None

    def add_all(self, messages: Iterable[RawMessage]) -> None:
        for m in messages:
            self.add(m)

    def take(self) -> Batch:
        b, self.batch = self.batch, Batch()
        return b

    def add(self, msg: RawMessage, dg: int | None = None) -> None:
        """Derive one message (``dg``: its digest when the caller computed it already)."""
        if dg is None:
            dg = digest(msg.raw)
        place = self.step(msg, dg)
        if place is not None:
            self.derive_at(msg, dg, *place, proposal=self.proposal_before)

    def step(self, msg: RawMessage, dg: int) -> tuple[int, bool] | None:
        """The sequential part of :meth:`add`: the message's ordinal, the order check, the
        first and last time, the skip test and the turn state.  Returns ``(ordinal,
        whether the message before called a tool)`` for a message to derive (with
        :meth:`derive_at`, by this deriver or another one), ``None`` for one skipped."""
        self.ordinal += 1
        ordinal = self.ordinal
        key = message_sort_key(msg.info)  # tolerates any field type
        if key < self._last_key:
            self.out_of_order = True
        self._last_key = key
        created = key[0] if _is_int64(key[0]) and key[0] else None
        if created:
            if self.first_time is None:
                self.first_time = created
            self.last_time = created
        had_tool = any(isinstance(p, dict) and p.get("type") == "tool" for p in msg.parts)
        prev_had_tool = self._prev_had_tool
        self.proposal_before = self._seq_proposal
        self._seq_proposal = _proposal_after(msg, self._seq_proposal)
        # a role of the wrong type is neither "user" nor "assistant", as once it is dropped
        self._after(msg.info.get("role"), had_tool)
        mid = msg.info["id"]
        was = self.known.get(mid)
        if was is not None and was[1] > ordinal and (mid in self.keep or was[0] == dg):
            # stored as it is read (or kept), further on in its session: messages of
            # another file of the session stand before it, unread here.  It keeps its
            # place (and the messages after it theirs): nothing changed to derive again
            ordinal = self.ordinal = was[1]
        if mid in self.keep or self.known.get(mid) == (dg, ordinal):
            self.skipped += 1
            self.skipped_ids.append(mid)
            return None
        return ordinal, prev_had_tool

    def derive_at(self, msg: RawMessage, dg: int, ordinal: int, prev_had_tool: bool,
                  proposal: str | None = None) -> None:
        """The rows of one message at ``ordinal`` (placed by :meth:`step`): they need
        nothing of the messages before it but whether the previous one called a tool and
        the assistant's last reply before it (``proposal``: :attr:`proposal_before`)."""
        self._turn_had_tool = prev_had_tool
        self._proposal = proposal
        role = msg.info.get("role")
        bad = bad_fields(msg.info)
        if bad:
            # a field of the wrong type costs that field, never the message: derive from
            # the info without it; the raw JSON keeps it as it was
            for f, what in bad:
                self.problems.append(Problem(
                    **self._where(msg), reason=f"field {f} {what}; not used (kept in the "
                    "message's raw JSON)"))
            msg = RawMessage(info=_without(msg.info, [f for f, _ in bad]), parts=msg.parts,
                             raw=msg.raw, line=msg.line, record=msg.record,
                             inferred=msg.inferred)
            role = msg.info.get("role")
        info = msg.info
        self.derived += 1
        self._message_row(msg, ordinal, dg)
        if role == "user":
            self._user_parts(msg, ordinal)
        elif role == "system":
            # what the agent's harness sent the model (Antigravity's SYSTEM_MESSAGE, pi's
            # extension messages): typed as a user message's parts, its text as context
            self._user_parts(msg, ordinal, system=True)
        elif role == "assistant":
            self._assistant_parts(msg, ordinal)
        else:
            self._raw(msg, ordinal, 0, None, info, f"message with unknown role {role!r}")

    # -- internals ------------------------------------------------------------
    def _after(self, role: Any, had_tool: bool) -> None:
        if role == "assistant":
            self._prev_had_tool = had_tool
        elif role == "user":
            self._prev_had_tool = False

    def _rule(self, rule: Callable[..., _R], args: tuple[Any, ...], default: _R, mid: str,
              part_id: str | None) -> _R:
        """``rule(*args)``, or ``default`` when the rule raises.  The extraction rules
        (:mod:`logparse.signals`, :mod:`logparse.measure`) catch nothing: a rule that raises
        is a bug that a test shows.  At run time the error is counted (:attr:`rule_errors`)
        and reported as a problem of the message (ingest's summary lists it), and the
        part is stored without what the rule would have found."""
        try:
            return rule(*args)
        except Exception as e:  # noqa: BLE001 - the one place a rule's bug is counted
            self.rule_errors += 1
            self.problems.append(Problem(
                path=self.source, record=part_id or mid, message_id=mid,
                reason=f"extraction rule {getattr(rule, '__name__', 'rule')} raised "
                       f"{type(e).__name__}: {str(e)[:200]} (a bug in logkb); the part is "
                       "stored without its result"))
            return default

    def _where(self, msg: RawMessage, part_id: str | None = None) -> dict[str, Any]:
        return {"path": self.source, "line": msg.line,
                "record": part_id or msg.record or msg.info.get("id"),
                "message_id": msg.info.get("id")}

    def _message_row(self, msg: RawMessage, ordinal: int, dg: int) -> None:
        info = msg.info
        t = _obj(info.get("time"))
        err = info.get("error")
        err_name = _text(err.get("name")) if isinstance(err, dict) else _text(err)
        tokens = _obj(info.get("tokens"))
        cache = _obj(tokens.get("cache"))
        model = info.get("modelID")
        if model is None and isinstance(info.get("model"), dict):
            model = info["model"].get("modelID") or info["model"].get("id")
        cost = info.get("cost")
        self.batch.messages.append((
            info["id"], ordinal, _text(info.get("role")), _num(t.get("created")),
            _num(t.get("completed")), _text(info.get("agent") or info.get("mode")),
            _text(model), _text(info.get("finish")), err_name,
            _num(tokens.get("input")), _num(tokens.get("output")),
            float(cost) if isinstance(cost, (int, float)) else None,
            _num(cache.get("read")), _num(cache.get("write")), _num(tokens.get("reasoning")),
            msg.inferred, dg, msg.raw,  # bytes: Arrow takes UTF-8 as is
            _num(cache.get("write_1h")),
        ))

    def _prose(self, ordinal: int, seq: int, mid: str, part: dict[str, Any], kind: str,
               source: str, text: str, role: str | None, author: str | None = None) -> None:
        t = part.get("time")
        # the user's words (a prompt the human wrote) are the only ones read as the user's
        said = kind == EventKind.PROMPT and source == "text" and author in USER_AUTHORS
        start = _num(t.get("start")) if isinstance(t, dict) else None
        # synthetic assistant text (a rewrite's call written as text) is no one's judgement
        cls = (classify(text) if kind == EventKind.DECISION and source not in ("synthetic", "choice")
               else None)
        if source == "choice" or (said and user_decision(text)) \
                or (kind == EventKind.DECISION and source == "text" and agent_decision(text, cls)):
            cls = "decision"  # the user set the direction (logparse.decide)
        meas = (self._rule(_measure, (text, True), None, mid, _text(part.get("id")))
                if source not in ("synthetic", "choice") and worth_measuring(text) else None)
        approved = None
        if said and not text.lstrip().startswith("<"):
            approved = self._rule(approval, (text, self._proposal), None, mid,
                                  _text(part.get("id")))
            self._proposal = None  # one prompt answers it
            if approved is not None:
                cls = "decision"  # the user approved what the agent proposed
        self.batch.prose.append((ordinal, seq, mid, _text(part.get("id")), kind, source, start, text,
                                 cls, role, meas, author))
        self.events += 1
        if kind == EventKind.DECISION and source == "text":
            chose = self._rule(agent_choice, (text,), None, mid, _text(part.get("id")))
            if chose is not None:  # the agent's own choice: a decision event of its own
                self._prose(ordinal, seq, mid, part, EventKind.DECISION, "choice", chose.text(),
                            None)
        elif approved is not None:  # what was approved, as the decision's text
            self._prose(ordinal, seq, mid, part, EventKind.DECISION, "choice", approved[1], None)

    def _other(self, ordinal: int, seq: int, mid: str, part_id: str | None, kind: str,
               time: int | None, text: str | None, data: Any, reason: str | None = None) -> None:
        self.batch.other.append((ordinal, seq, mid, part_id, kind, time, text, _dumps(data),
                                 reason))
        self.events += 1

    def _raw(self, msg: RawMessage, ordinal: int, seq: int, part_id: str | None, data: Any,
             reason: str) -> None:
        self._other(ordinal, seq, msg.info["id"], part_id, EventKind.RAW, None, None, data,
                    reason)
        self.untyped += 1
        self.problems.append(Problem(**self._where(msg, part_id), reason=reason))

    def _user_parts(self, msg: RawMessage, ordinal: int, system: bool = False) -> None:
        mid = msg.info["id"]
        created = _num((msg.info.get("time") or {}).get("created"))
        for seq, part in enumerate(msg.parts):
            if not isinstance(part, dict):
                self._raw(msg, ordinal, seq, None, part, "part is not a JSON object")
                continue
            try:
                if system and part.get("type") in ("text", "context"):
                    self._context(ordinal, seq, mid, part, created)
                    continue
                self._user_part(msg, ordinal, seq, part, mid, created)
            except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
                self._untypable(msg, ordinal, seq, part, e)

    def _context(self, ordinal: int, seq: int, mid: str, part: dict[str, Any],
                 created: int | None) -> None:
        """A text of a ``system`` message: what the harness told the model (never a
        prompt: the user did not say it), with the record type that says what it is."""
        t = part.get("time")
        start = _num(t.get("start")) if isinstance(t, dict) else None
        src = part.get("source")
        self._other(ordinal, seq, mid, _text(part.get("id")), EventKind.CONTEXT,
                    start if start is not None else created, _text(part.get("text")) or "",
                    {"source": src if isinstance(src, str) else None})

    def _untypable(self, msg: RawMessage, ordinal: int, seq: int, part: dict[str, Any],
                   e: Exception) -> None:
        """A part with a field of a type derivation cannot use: kept whole as a raw event."""
        self._raw(msg, ordinal, seq, _text(part.get("id")), part,
                  f"part could not be typed ({type(e).__name__}: {e}); kept raw")

    def _user_part(self, msg: RawMessage, ordinal: int, seq: int, part: dict[str, Any],
                   mid: str, created: int | None) -> None:
        typ = part.get("type")
        pid = _text(part.get("id"))
        if typ == "text":
            text = _text(part.get("text")) or ""
            author = part_author(part, self.author)
            # what the harness wrote and a compaction's summary are injected text whatever
            # their reader marked (logparse.author)
            source = ("synthetic" if author in (HARNESS, COMPACTION)
                      else "ignored" if part.get("ignored") else "text")
            self._prose(ordinal, seq, mid, part, EventKind.PROMPT, source, text, None, author)
        elif typ == "stat":  # a reader's record of the agent's own clock (turn duration)
            meas = _part_readings(part)
            self._other(ordinal, seq, mid, pid, EventKind.STAT, created,
                        _text(part.get("text")), {"measurements": meas})
        elif typ == "file":
            name = part.get("filename") or part.get("url", "")[:200]
            src = part.get("source")
            self._other(ordinal, seq, mid, pid, EventKind.ATTACHMENT, created,
                        f"{part.get('mime', '')} {name}".strip(),
                        {"mime": part.get("mime"), "filename": part.get("filename"),
                         "source": src if isinstance(src, dict) else None})
        elif typ == "agent":
            self._other(ordinal, seq, mid, pid, EventKind.ATTACHMENT, created,
                        f"@{part.get('name')}", {"agent": part.get("name")})
        elif typ == "subtask":
            self._other(ordinal, seq, mid, pid, EventKind.SUBAGENT, created,
                        _text(part.get("description")),
                        {"agent": part.get("agent"), "prompt": part.get("prompt"),
                         "command": part.get("command")})
        elif typ == "tool":  # a command the user ran (pi's bashExecution): a call
            self._call(msg, ordinal, seq, part)
        elif typ == "compaction":
            auto = bool(part.get("auto"))
            self._other(ordinal, seq, mid, pid, EventKind.COMPACTION, created,
                        "automatic compaction" if auto else "compaction requested (/compact)",
                        {"auto": auto, "overflow": part.get("overflow")})
        elif typ in _SILENT_PARTS:
            return
        else:
            self._raw(msg, ordinal, seq, pid, part, f"unknown part type {typ!r}")

    def _assistant_parts(self, msg: RawMessage, ordinal: int) -> None:
        info = msg.info
        mid = info["id"]
        created = _num((info.get("time") or {}).get("created"))
        summary = bool(info.get("summary"))
        parts = msg.parts
        last_tool = -1
        for i, p in enumerate(parts):
            if isinstance(p, dict) and p.get("type") == "tool":
                last_tool = i
        for seq, part in enumerate(parts):
            if not isinstance(part, dict):
                self._raw(msg, ordinal, seq, None, part, "part is not a JSON object")
                continue
            try:
                self._assistant_part(msg, ordinal, seq, part, mid, created, summary, last_tool)
            except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
                self._untypable(msg, ordinal, seq, part, e)
        if msg.info.get("finish") == "length":
            self._cut_reply(mid, msg.info)
        self._message_error(msg, ordinal, mid, created)

    def _assistant_part(self, msg: RawMessage, ordinal: int, seq: int, part: dict[str, Any],
                        mid: str, created: int | None, summary: bool, last_tool: int) -> None:
        typ = part.get("type")
        pid = _text(part.get("id"))
        if typ == "text" or typ == "reasoning":
            text = _text(part.get("text")) or ""
            if not text.strip():
                return  # empty (encrypted) reasoning: nothing to read
            if summary and typ == "text":
                self._other(ordinal, seq, mid, pid, EventKind.COMPACTION, created, text,
                            {"summary": True, **_context_size(msg.info)})
                return
            if typ == "text" and part.get("synthetic"):
                # not the model's words (logparse.rewrite: a call the author kept as text):
                # stored and shown, never classified, measured or given a place in a turn
                self._prose(ordinal, seq, mid, part, EventKind.DECISION, "synthetic", text,
                            None)
                return
            role = ("rationale" if seq < last_tool
                    else "conclusion" if self._turn_had_tool else "reply")
            self._prose(ordinal, seq, mid, part, EventKind.DECISION, typ, text, role)
        elif typ == "tool":
            self._call(msg, ordinal, seq, part)
        elif typ in _SILENT_PARTS:
            return
        elif typ == "retry":
            err = part.get("error")
            data = err.get("data") if isinstance(err, dict) else None
            message = data.get("message") if isinstance(data, dict) else None
            t = part.get("time")
            # the status the provider answered, and what the harness said of its retry
            # (Claude Code: attempt, max retries, wait: plumbing)
            meas = _api_status(data).get("measurements", []) + _part_readings(part)
            self._other(ordinal, seq, mid, pid, EventKind.ERROR,
                        _num(t.get("created")) if isinstance(t, dict) else created,
                        f"retry {part.get('attempt')}: {message or 'provider error'}",
                        {"attempt": part.get("attempt"), "error": err,
                         **({"measurements": meas} if meas else {})})
        elif typ == "stat":  # a reader's record of the agent's own clock (turn duration)
            meas = _part_readings(part)
            self._other(ordinal, seq, mid, pid, EventKind.STAT, created,
                        _text(part.get("text")), {"measurements": meas})
        elif typ == "file":
            self._other(ordinal, seq, mid, pid, EventKind.ATTACHMENT, created,
                        f"{part.get('mime', '')} {part.get('filename') or ''}".strip(),
                        {"mime": part.get("mime"), "filename": part.get("filename")})
        elif typ == "compaction":  # Claude Code / Codex: compaction told within a step
            auto = bool(part.get("auto"))
            self._other(ordinal, seq, mid, pid, EventKind.COMPACTION, created,
                        _text(part.get("text")) or ("automatic compaction" if auto
                                                    else "compaction requested"),
                        {"auto": auto})
        else:
            self._raw(msg, ordinal, seq, pid, part, f"unknown part type {typ!r}")

    def _message_error(self, msg: RawMessage, ordinal: int, mid: str,
                       created: int | None) -> None:
        info = msg.info
        parts = msg.parts
        err = info.get("error")
        if err is not None:
            name = err.get("name") if isinstance(err, dict) else str(err)
            data = err.get("data") if isinstance(err, dict) else None
            message = data.get("message") if isinstance(data, dict) else None
            text = f"{name}: {message}" if message else str(name)
            none: list[dict[str, Any]] = []
            meas: list[dict[str, Any]] = _api_status(data).get("measurements") or self._rule(
                api_error_readings, (message or str(name),), none, mid, None)
            self._other(ordinal, len(parts), mid, None, EventKind.ERROR,
                        _num((info.get("time") or {}).get("completed")) or created, text,
                        {**err, "measurements": meas} if meas and isinstance(err, dict)
                        else err)

    def _cut_reply(self, mid: str, info: dict[str, Any]) -> None:
        """A reply cut at the output limit (``finish: length``) measured how long it got:
        its output tokens go on its last prose event."""
        tokens = info.get("tokens")
        n = _num(tokens.get("output")) if isinstance(tokens, dict) else None
        prose = self.batch.prose
        if not n or not prose or prose[-1][2] != mid:
            return
        row = prose[-1]
        meas = list(row[10] or [])
        meas.append({"value": float(n), "unit": "tokens", "label": "reply cut at the output limit"})
        prose[-1] = (*row[:10], meas, *row[11:])

    def _call(self, msg: RawMessage, ordinal: int, seq: int, part: dict[str, Any]) -> None:
        pid = _text(part.get("id"))
        tool = part.get("tool")
        state = part.get("state")
        if not isinstance(state, dict) or not isinstance(tool, str):
            what = "without state" if not isinstance(state, dict) else "without a tool name"
            self._raw(msg, ordinal, seq, pid, part, f"tool part {what}")
            return
        inp = _obj(state.get("input"))
        title = _text(state.get("title"))
        cmd = command_text(tool, inp, title)
        host = user = port = remote = hops = None
        if tool == "bash" and cmd:
            sh = parse_command(cmd)
            category = sh.category
            if sh.hops:
                first = sh.hops[0]
                host, user, port, remote = first.host, first.user, first.port, first.remote_command
            elif sh.nested_ssh:  # `ssh h 'a' && ssh h 'b'`: the first call's host, its commands
                first = sh.nested_ssh[0]
                host, user, port = first.host, first.user, first.port
                remote = "\n".join(c.remote_command for c in sh.nested_ssh
                                   if c.host == host and c.remote_command) or None
            if not isinstance(port, int) or not 0 <= port < (1 << 31):
                port = None
            if sh.hops or sh.nested_ssh:
                hops = _dumps([_hop(h, False) for h in sh.hops]
                              + [_hop(h, True) for h in sh.nested_ssh])
        else:
            category = _TOOL_CATEGORY.get(tool, Category.OTHER).value
        status = tool_status(state)
        output = _text(state.get("output"))
        error = _text(state.get("error"))
        meta = _obj(state.get("metadata"))
        exit_code = _num(meta.get("exit"))
        if exit_code is not None and not -(1 << 31) <= exit_code < (1 << 31):
            exit_code = None  # an INTEGER column; the raw JSON keeps the value
        if output is None and tool == "bash" and isinstance(meta.get("output"), str):
            output = meta["output"]  # running/aborted bash keeps its partial output here
        sigs: list[str] = []
        for text in (output, error):
            if text:
                found: tuple[str, ...] = self._rule(error_signatures, (text,), (),
                                                    msg.info["id"], pid)
                for s in found:
                    if s not in sigs:
                        sigs.append(s)
        t = _obj(state.get("time"))
        # a read the tool refused says why in its error (the file's size in tokens)
        read = error if output is None and tool == "read" else output
        read = _body(meta, read) if tool == "bash" and read is output else read
        meas = self._rule(call_measurements, (tool, category, inp, read, t, error), None,
                          msg.info["id"], pid)
        if isinstance(meta.get("reported"), list):
            # what the tool printed of its own run (Codex: "Wall time: 18.16 seconds")
            # (a read's length counted from the lines it showed wins over the record's
            # ``totalLines``, which counts the empty line after a final newline)
            seen = {(m["value"], m["unit"]) for m in meas or []}
            named = {(m["label"], m["unit"]) for m in meas or []}
            meas = (meas or []) + [m for m in meta["reported"] if isinstance(m, dict)
                                   and (m.get("value"), m.get("unit")) not in seen
                                   and (m.get("label"), m.get("unit")) not in named]
        if tool == "bash" and exit_code not in (None, 0) and not any(
                m["unit"] == "exit code" and m["value"] == exit_code for m in meas or []):
            # a failing command's exit status is what it measured of itself (127: not
            # there, 101: a Rust test failed, 128: git refused); 0 is every other run.
            # Once: the output may state it too (Gemini CLI's ``Exit Code: 1``)
            meas = (meas or []) + [{"value": float(exit_code), "unit": "exit code",
                                    "label": "exit"}]
        workdir = _text(inp.get("workdir"))
        if workdir is None and isinstance(msg.info.get("path"), dict):
            workdir = _text(msg.info["path"].get("cwd"))
        self.batch.calls.append((
            ordinal, seq, msg.info["id"], pid, _text(part.get("callID")), tool, category, cmd,
            _dumps(inp), host, user, port, remote, hops, workdir, status, exit_code, output,
            error, _num(t.get("start")), _num(t.get("end")), title, sigs or None, meas,
            child_session(state) if tool in SPAWNS else None,
        ))
        self.events += 2 + (tool in ("task", "todowrite"))
        chose = choice_text(tool, status, output, inp.get("plan"))
        if chose is not None:  # the user's answer or approval: a decision event of its own
            self._prose(ordinal, seq, msg.info["id"], part, EventKind.DECISION, "choice", chose,
                        None)


def _proposal_after(msg: RawMessage, before: str | None) -> str | None:
    """The assistant's last reply after ``msg`` (what a short reply to it approves): an
    assistant message's last text part, none after a user's prompt, else as before."""
    role = msg.info.get("role")
    if role == "assistant" and not msg.info.get("summary"):
        texts = [p["text"] for p in msg.parts if isinstance(p, dict) and p.get("type") == "text"
                 and not p.get("synthetic") and isinstance(p.get("text"), str)
                 and p["text"].strip()]
        return texts[-1] if texts else before
    if role == "user" and any(
            isinstance(p, dict) and p.get("type") == "text" and not p.get("synthetic")
            and not p.get("ignored") and isinstance(p.get("text"), str)
            and not p["text"].lstrip().startswith("<") for p in msg.parts):
        return None
    return before


def _context_size(info: dict[str, Any]) -> dict[str, Any]:
    """The context a compaction summarised, as a measurement (the summary message's input
    tokens); kept in the event's data, which the ``events`` view reads them from."""
    tokens = info.get("tokens")
    n = _num(tokens.get("input")) if isinstance(tokens, dict) else None
    if not n or not isinstance(tokens, dict):
        return {}
    cache = tokens.get("cache")
    if isinstance(cache, dict):
        n += (_num(cache.get("read")) or 0) + (_num(cache.get("write")) or 0)
    return {"measurements": [{"value": float(n), "unit": "tokens",
                              "label": "context at compaction"}]}


def _hop(h: Any, nested: bool) -> dict[str, Any]:
    return {"host": h.host, "user": h.user, "port": h.port, "identity": h.identity,
            "options": list(h.options), "remote_command": h.remote_command, "nested": nested}


def derive_session(session_id: str, source: str,
                   messages: Iterable[RawMessage]) -> tuple[Batch, list[Problem]]:
    """Derive every row of a session at once (tests, small inputs)."""
    d = Deriver(session_id, source)
    d.add_all(messages)
    return d.take(), d.problems


def to_events(session_id: str, batch: Batch) -> list[Event]:
    """The typed events of a batch, in transcript order (the slow, readable view)."""
    out: list[tuple[tuple[int, int, int], Event]] = []
    for row in batch.calls:
        r = dict(zip(COLUMNS["calls"], row))
        base = {"session_id": session_id, "ordinal": r["ordinal"], "seq": r["seq"],
                "message_id": r["message_id"], "part_id": r["part_id"], "role": "assistant",
                "tool": r["tool"], "call_id": r["call_id"], "category": r["category"],
                "command": r["command"], "host": r["host"], "user": r["user"],
                "port": r["port"], "remote_command": r["remote_command"],
                "hops": orjson.loads(r["hops"]) if r["hops"] else [],
                "workdir": r["workdir"], "title": r["title"]}
        key = (r["ordinal"], r["seq"])
        out.append(((*key, 0), Event(kind=EventKind.COMMAND, time=r["time_start"],
                                     input=orjson.loads(r["input"]) if r["input"] else None,
                                     **base)))
        sigs = r["error_signatures"] or []
        dur = (r["time_end"] - r["time_start"]
               if r["time_end"] is not None and r["time_start"] is not None else None)
        out.append(((*key, 1), Event(
            kind=EventKind.RESULT, time=r["time_end"], status=r["status"],
            exit_code=r["exit_code"], output=r["output"] if r["output"] is not None
            else r["error"], duration_ms=dur, error_signature=sigs[0] if sigs else None,
            error_signatures=sigs,
            measurements=[Measurement(**m) for m in (r["measurements"] or [])], **base)))
        if r["tool"] == "todowrite":
            inp = orjson.loads(r["input"]) if r["input"] else {}
            todos = [t for t in inp.get("todos", []) if isinstance(t, dict)]
            out.append(((*key, 2), Event(kind=EventKind.TODO, todos=[
                TodoItem(content=str(t.get("content", "")), status=str(t.get("status", "")),
                         priority=t.get("priority")) for t in todos], **base)))
        elif r["tool"] == "task":
            out.append(((*key, 2), Event(kind=EventKind.SUBAGENT, text=r["title"],
                                         child_session_id=r["child_session_id"], **base)))
    for row in batch.prose:
        r = dict(zip(COLUMNS["prose"], row))
        out.append(((r["ordinal"], r["seq"], 0), Event(
            session_id=session_id, ordinal=r["ordinal"], seq=r["seq"], kind=r["kind"],
            message_id=r["message_id"], part_id=r["part_id"], time=r["time"], text=r["text"],
            role="user" if r["kind"] == EventKind.PROMPT else "assistant",
            classification=r["classification"], prose_role=r["prose_role"],
            source=r["source"], author=r["author"],
            measurements=[Measurement(**m) for m in (r["measurements"] or [])])))
    for row in batch.other:
        r = dict(zip(COLUMNS["other"], row))
        data = orjson.loads(r["data"]) if r["data"] else None
        meas = data.get("measurements") if isinstance(data, dict) else None
        out.append(((r["ordinal"], r["seq"], 0), Event(
            session_id=session_id, ordinal=r["ordinal"], seq=r["seq"], kind=r["kind"],
            message_id=r["message_id"], part_id=r["part_id"], time=r["time"], text=r["text"],
            raw=data, reason=r["reason"],
            measurements=[Measurement(**m) for m in meas or []])))
    out.sort(key=lambda x: x[0])
    return [e for _, e in out]
