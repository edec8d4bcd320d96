"""Readings of the agent's own plumbing: stored with the event they come from, never shown
as a measurement of the work (issue 22 item 5: "never ... token counters").

The readers keep what an agent's harness counts of itself on the event that counted it
(Codex's running ``total_tokens``, the context an opencode compaction summarised, the
tokens and tool calls a Claude Code sub-agent spent): true, and asked for by ``events
--json``, but a token counter is not a result of the work, and a series of them is not
progress.  The rooms that present measurements to a user (the handoff's series and its
"best", the timeline's throughput chart, the MCP answers) leave out every reading
:func:`is_plumbing_reading` names.

:data:`PLUMBING` holds one row per reading, each with the real (trimmed) record that gives
it; ``tests/logparse/test_measure_plumbing.py`` reads every example through its reader and
checks that the reading is made and named plumbing, and that a rate of tokens (``tok/s``),
a test count or a build time is not.  Pure data and a predicate: no storage here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["PLUMBING", "PLUMBING_LABELS", "PlumbingRow", "harness_of_call", "is_harness_reading",
           "is_plumbing", "is_plumbing_reading"]


@dataclass(frozen=True)
class PlumbingRow:
    label: str
    """The reading's label, as the reader names it."""
    unit: str
    agent: str
    """The reader that makes it: ``codex``, ``claude-code``, ``opencode``."""
    record: str
    """A real record (trimmed) that gives the reading."""
    value: float
    """What the reading of :attr:`record` is."""
    source: str


_API_ERROR = (
    '{"type":"system","subtype":"api_error","level":"error","error":{"status":500,"error":'
    '{"type":"error","error":{"type":"api_error","message":"your current token plan not '
    'support model, MiniMax-M2.7 (2061)"}}},"retryInMs":561.0564953984477,"retryAttempt":1,'
    '"maxRetries":10,"timestamp":"2026-04-13T05:31:33.172Z"}')
"""pool/Xeus__claude-session.jsonl:3, headers trimmed: a Claude Code retry of a failed
request."""


PLUMBING: tuple[PlumbingRow, ...] = (
    PlumbingRow(
        "tokens used (session so far)", "tokens", "codex",
        '{"timestamp":"2026-05-02T09:18:47.147Z","type":"event_msg","payload":{"type":'
        '"token_count","info":{"total_token_usage":{"input_tokens":19345,"cached_input_tokens":'
        '11648,"output_tokens":265,"reasoning_output_tokens":36,"total_tokens":19610},'
        '"last_token_usage":{"input_tokens":19345,"cached_input_tokens":11648,"output_tokens":'
        '265,"reasoning_output_tokens":36,"total_tokens":19610},"model_context_window":'
        '258400}}}',
        19610.0, "pool/Rivo__codex-session.jsonl:12 (token_count, rate_limits trimmed)"),
    PlumbingRow(
        "context at compaction", "tokens", "opencode",
        '{"id":"msg_f8adaa918001amrUVwtF76tH8k","role":"assistant","summary":true,"mode":'
        '"compaction","finish":"stop","tokens":{"total":106110,"input":104846,"output":1118,'
        '"reasoning":146,"cache":{"write":0,"read":0}}}',
        104846.0, "labelled/uicomponents__session-export.json (a compaction's summary "
                  "message's info, trimmed; also k1.lib-bootstrap, uicomponents-wordpress)"),
    PlumbingRow(
        "reply cut at the output limit", "tokens", "opencode",
        '{"id":"msg_f5a8818ce002aM3KbDwcis7K12","role":"assistant","mode":"plan","finish":'
        '"length","tokens":{"total":135507,"input":2,"output":32000,"reasoning":0,"cache":'
        '{"write":103505,"read":0}}}',
        32000.0, "labelled/pfm-categorization__opencode-session.json (the final plan's reply, "
                 "info trimmed)"),
    PlumbingRow(
        "API retry attempt", "attempts", "claude-code",
        _API_ERROR,
        1.0, "pool/Xeus__claude-session.jsonl:3 (an api_error record, headers trimmed; "
                 "also :10, attempt 8, wait 38084.9 ms)"),
    PlumbingRow(
        "API max retries", "retries", "claude-code",
        _API_ERROR,
        10.0, "pool/Xeus__claude-session.jsonl:3 (an api_error record, headers trimmed; "
                 "also :10, attempt 8, wait 38084.9 ms)"),
    PlumbingRow(
        "API retry in", "ms", "claude-code",
        _API_ERROR,
        561.1, "pool/Xeus__claude-session.jsonl:3 (an api_error record, headers trimmed; "
                 "also :10, attempt 8, wait 38084.9 ms)"),
    PlumbingRow(
        "rate limit used (7-day window)", "%", "codex",
        '{"timestamp":"2026-05-02T13:01:24.204Z","type":"event_msg","payload":{"type":'
        '"token_count","info":{"total_token_usage":{"total_tokens":583784}},"rate_limits":'
        '{"limit_id":"codex","limit_name":null,"primary":{"used_percent":12.0,'
        '"window_minutes":10080,"resets_at":1778265007},"secondary":null,"credits":null,'
        '"plan_type":"free","rate_limit_reached_type":null}}}',
        12.0, "pool/Rivo__codex-session.jsonl:169 (token_count, usage trimmed; also "
              "pool/scout__codex-session.jsonl:61, a 43200-min window at 32.0)"),
    PlumbingRow(
        "output size", "tokens", "codex",
        '{"type":"function_call_output","call_id":"call_k4eXXIm5P78sas9cOFRLiibb","output":'
        '"Chunk ID: fd9964\\nWall time: 0.0509 seconds\\nProcess exited with code 0\\n'
        'Original token count: 43\\nOutput:\\ntotal 0\\ndrwxr-xr-x   3 yukikimura  staff   '
        '96 Feb 14 17:11 .\\n"}',
        43.0, "pool/privacy-x402__codex-session.jsonl:21 (an exec_command's output, trimmed; "
              "also labelled/soulpass__codex-session.jsonl:613, 820513 before a cut)"),
    PlumbingRow(
        "subagent tokens", "tokens", "claude-code",
        '{"status":"completed","prompt":"Research Visa-related crypto card / crypto '
        'payment partnerships","totalDurationMs":134003,"totalTokens":35378,'
        '"totalToolUseCount":14}',
        35378.0, "pool/FundWise__claude-session.jsonl:18 (a Task's toolUseResult, trimmed)"),
    PlumbingRow(
        "subagent tool uses", "tool uses", "claude-code",
        '{"status":"completed","prompt":"Research Visa-related crypto card / crypto '
        'payment partnerships","totalDurationMs":134003,"totalTokens":35378,'
        '"totalToolUseCount":14}',
        14.0, "pool/FundWise__claude-session.jsonl:18 (a Task's toolUseResult, trimmed)"),
)

_LABELS = frozenset(r.label for r in PLUMBING)
_HEADS = frozenset(r.label.partition(" (")[0] for r in PLUMBING if " (" in r.label)
"""Rows whose label names what it is of in brackets (Codex's rate-limit window: ``rate
limit used (5-hour window)``): any bracket of that head is the same plumbing."""
_COUNTER_UNITS = frozenset({"tokens", "tool uses"})


def is_plumbing_reading(unit: str | None, label: str | None) -> bool:
    """Whether a reading ``(unit, label)`` is the agent's plumbing (a row of
    :data:`PLUMBING`), or any plain token count: a size of a model's context or reply, never
    a result of the work (a rate, ``tok/s``, is one)."""
    lab = label or ""
    return lab in _LABELS or (unit or "") in _COUNTER_UNITS or (
        lab.endswith(")") and lab.partition(" (")[0] in _HEADS)


PLUMBING_LABELS = frozenset({"wall time", "turn duration", "output lines (cut)",
                             "Output too large",  # Claude Code's <persisted-output> cut
                             "run time before the user aborted it", "timeout exceeded",
                             "subagent run time", "subagent duration", "grep hits",
                             "tokens used (session so far)"})
"""Readings an agent's harness records of every call (Codex's wall time of whatever ran,
the size of a cut output, a turn's clock, a tool's timeout): true, but of different
commands each, so never a progress series nor its "best"."""
_TOOL_DURATION = re.compile(r"^(?:apply_patch|bash|shell|shell_command|exec_command|exec|"
                            r"write_stdin|update_plan|todowrite|read|edit|write|view_image|"
                            r"web_search|websearch|webfetch) duration$")


_BYTES = frozenset({"b", "byte", "bytes", "kb", "kib", "mb", "mib", "gb", "gib", "tb", "tib"})
_FILE_NAME = re.compile(r"^(?:\S*[/\\]\S*|[^/\\]*\.[A-Za-z0-9_][A-Za-z0-9_-]{0,9})$")
"""A file's name as a listing shows it: a path without spaces, or a name ending in an
extension (``.DS_Store``, SQLite's ``opencode.db-shm``; spaces allowed: ``CFO _ PoC and
Arch Diagram.pdf``), never a phrase (``/icon.png Size``, a build's route table)."""


def is_listing_size(unit: str | None, label: str | None) -> bool:
    """Whether a reading is a file's size as a listing shows it (``83 B .gitignore``):
    a byte unit labelled with a file's name or path.  It is what the tree holds, no
    result the work measured, so the brief's status, the timeline's series and the
    measurements list (unless ``--harness``) leave it out."""
    return ((unit or "").strip().lower() in _BYTES
            and _FILE_NAME.match((label or "").strip()) is not None)


def is_plumbing(label: str, unit: str | None = None) -> bool:
    """Whether a reading's label is one of :data:`PLUMBING_LABELS`, a tool's own clock
    (Codex's ``apply_patch duration``), what a tool saw of the files (a read file's
    length, the lines a read left out, a written file's size, how many things a listing
    listed, a listed file's size: :func:`is_listing_size`), or, with its ``unit``, a token counter of the agent
    (:func:`is_plumbing_reading`: a sub-agent's tokens, a compaction's context)."""
    return (label in PLUMBING_LABELS or _TOOL_DURATION.match(label) is not None
            or label.endswith((" length", " written", " listed", " not shown"))  # a tool saw
            or is_listing_size(unit, label)
            or is_plumbing_reading(unit, label))


def harness_of_call(readings: list[tuple[str, str | None]]) -> list[bool]:
    """Which of one call's readings (``(label, unit)``, in its order) are the harness's
    (:func:`is_harness_reading`).  One listing names every file alike: in a call that
    listed paths (its ``… listed`` count, :mod:`logparse.listings`) and read file sizes
    of a listing, a byte reading named by one bare word is one of them too (``ls -la`` of
    a project: ``Dockerfile``, ``LICENSE`` have no extension to say so), though elsewhere
    such a name is a result's (vite's ``gzip: 4.2 kB`` beside its ``index-….js``, curl's
    ``Size``).  labelled/pfm-categorization: ``ls -la …/src/`` (message 23)."""
    listing = any(lab.endswith(" listed") for lab, _ in readings) and any(
        is_listing_size(u, lab) for lab, u in readings)
    return [is_harness_reading(lab, u) or (
        listing and (u or "").strip().lower() in _BYTES and len((lab or "").split()) == 1)
        for lab, u in readings]


def is_harness_reading(label: str, unit: str | None) -> bool:
    """Whether a reading is the harness's and not the work's: its plumbing
    (:func:`is_plumbing`) or an exit code.  Such readings are never a progress series nor
    its "best", and lists of measurements and the timeline's row summaries leave them out
    unless asked.  Here, not in :mod:`kb.graph.report`, so the timeline's first screen
    need not load networkx to ask."""
    return is_plumbing(label, unit) or unit == "exit code"
