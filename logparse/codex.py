"""OpenAI Codex CLI rollouts: ``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``.

Every line is ``{"timestamp", "type", "payload"}`` with ``type`` one of
``session_meta``, ``response_item``, ``event_msg``, ``turn_context``,
``compacted`` (and, in newer builds, ``world_state``).  The conversation itself
is the ``response_item`` lines; the rest repeats it (``event_msg``
``user_message``/``agent_message``/``exec_command_end``) or describes its
context.

**Ordinals** (the convention of the labelled soulpass rollout, see
``docs/schema.md``): 1-based over the ``response_item`` lines whose payload is a
user or assistant ``message``, a ``function_call``/``function_call_output`` or a
``custom_tool_call``/``custom_tool_call_output`` (also ``local_shell_call``), in
file order.  Injected user messages (``<environment_context>``,
``<turn_aborted>``) count.  Every other line (developer messages, reasoning,
``event_msg``, ``turn_context``, ``compacted``, ``ghost_snapshot``…) has no
ordinal: it joins the raw record of the next message (the last one at the end
of the file), and what it tells (reasoning summaries, compaction, web
searches) becomes that message's events.

A call and its output are two ordinals.  The ``command`` and ``result`` events
of a call sit at its **output's** ordinal (where the answer, the exit code and
any failure are); the call's own ordinal keeps the call record.  A call that
never got an output stays at its own ordinal, ``interrupted``.

Tools map onto opencode's: ``shell``/``container.exec``/``local_shell``
(argv), ``shell_command``/``exec_command``/``exec`` (a command string) become
``bash`` with the exit code and wall time parsed from the output (``Exit code:
N`` / ``Process exited with code N`` / a JSON ``{output, metadata}``);
``apply_patch`` stays ``apply_patch``; ``update_plan`` becomes ``todowrite``.  A
code-mode ``exec`` cell (JavaScript calling ``tools.*``, Codex 0.14x) becomes the calls it
made (:mod:`logparse._codecell`), each with its ``exec_command_end`` result.  Usage comes
from ``token_count`` events (one model call's ``last_token_usage`` each).

**Sub-agents** (the collab tools, ``multi_agent``): each agent ``spawn_agent`` starts
writes a rollout of its own whose ``session_meta`` ``source`` is ``{"subagent":
{"thread_spawn": {"parent_thread_id", "depth", "agent_path", "agent_nickname",
"agent_role"}}}`` (codex-rs ``SessionSource::SubAgent``): the session names that thread
as its parent (``parentID``) and keeps the rest as ``subagent`` (:func:`spawn_source`).
The ``spawn_agent`` call names its child from its output ``{"agent_id": <thread id>}``
(or the ``collab_agent_spawn_end`` event's ``new_thread_id``, when the rollout keeps
it); MultiAgentV2 answers ``{"task_name": <agent path>}`` instead, which the call keeps
as its ``childKey``, the child's ``agent_path`` being its ``childKey`` too: the
knowledge base links the two whichever is read first (``kb.store.link_children``).  A
sub-agent spawned with the parent's history (``fork_context``; MultiAgentV2's default
``fork_turns``) copies the parent's lines into its rollout first, from the parent's
``session_meta`` to the spawn's answer ``You are the newly spawned agent…``
(:data:`FORK_END`): those lines join the raw record of its first message of its own
(``info.forked``), so the parent's prompt and calls are not read twice in one scope.  Record types
the reader does not know are kept raw and counted (``CodexReader.skipped``).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from logparse._agentlines import (
    Draft,
    LastLine,
    Ordered,
    iso_ms,
    json_object,
    latest_time,
    message_id,
    spill_due,
    spilled,
    tail_records,
    turn_stat,
)
from logparse._codecell import cell_calls, cell_strings, resolve
from logparse.author import PARENT
from logparse.measure import round_sig
from logparse.models import Problem
from logparse.opencode._lines import (
    LineCursor,
    first_record,
    head_records,
    iter_lines,
    opens_a_json_line,
    parse_line,
    safe_text,
)
from logparse.request import is_injected
from logparse.resume import (
    MAX_STATE_BYTES,
    Diverged,
    PrefixIds,
    Resume,
    draft_from,
    draft_ref,
    draft_state,
    lines_from,
    lines_state,
    min_line,
)
from logparse.source import SourceSession, TranscriptReader

RESUME_VERSION = "codex/6"
"""Bumped whenever the reader's state (:meth:`_Rollout.snapshot`) changes meaning."""

LINE_TYPES = frozenset({"session_meta", "response_item", "event_msg", "turn_context",
                        "compacted", "world_state", "token_usage_record"})
"""Line types of a rollout (``token_usage_record``: Codex 0.17x, one model response's usage,
which the ``token_count`` event after it repeats: kept raw)."""
_CALLS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_OUTPUTS = frozenset({"function_call_output", "custom_tool_call_output"})
_SILENT_ITEMS = frozenset({"ghost_snapshot", "compaction", "compaction_summary", "other",
                           "item_reference", "additional_tools"})
"""Response items that say nothing of the conversation (``additional_tools``: Codex 0.17x
writes the tool catalogue of a code-mode model into the history)."""
_EVENTS = frozenset({
    "token_count", "exec_command_begin", "exec_command_end", "exec_command_output_delta",
    "agent_message", "agent_message_delta", "agent_reasoning", "agent_reasoning_delta",
    "agent_reasoning_raw_content", "agent_reasoning_raw_content_delta",
    "agent_reasoning_section_break", "user_message", "task_started", "task_complete",
    "turn_started", "turn_complete", "turn_aborted", "turn_diff", "patch_apply_begin",
    "patch_apply_end", "web_search_begin", "web_search_end", "mcp_tool_call_begin",
    "mcp_tool_call_end", "thread_name_updated", "context_compacted", "error", "stream_error",
    "warning", "background_event", "plan_update", "view_image_tool_call",
    "entered_review_mode", "exited_review_mode", "session_configured", "shutdown_complete",
    "item_started", "item_completed", "collab_agent_spawn_begin", "collab_agent_spawn_end",
    "collab_agent_interaction_begin", "collab_agent_interaction_end", "collab_waiting_begin",
    "collab_waiting_end", "collab_close_begin", "collab_close_end", "collab_resume_begin",
    "collab_resume_end", "thread_settings_applied"})
"""``event_msg`` types this reader knows (most repeat a response item); others are kept raw
and counted as ``event_msg/TYPE``."""
_SHELL_ARGV = frozenset({"shell", "container.exec", "local_shell"})
_SHELL_STRING = frozenset({"shell_command", "exec_command", "exec", "unified_exec"})
_SHELLS = frozenset({"bash", "sh", "zsh", "dash", "fish", "pwsh", "powershell", "cmd"})
_PLAN_STATUS = {"in_progress": "in_progress", "pending": "pending", "completed": "completed"}
REQUEST_MARK = "## My request for Codex:"
"""Where the user's words start in a message the Codex IDE extension and Codex Desktop
wrote: below their context (``# Context from my IDE setup:`` with the open tabs, the
active file and its selection; ``# Files mentioned by the user:``)."""

REJECTED = re.compile(
    r"^(?:exec command rejected by user|patch rejected by user|user rejected MCP tool call"
    r"|This action was rejected due to unacceptable risk"
    r"|approval policy is \S+; reject command|approval required by policy"
    r"|patch rejected: |`[^`]{1,400}` rejected: policy forbids)", re.I)
"""What Codex answers instead of running a call that was not approved: the user's denial
(codex-rs normalises it to ``exec command rejected by user`` / ``patch rejected by user``),
its reviewer's, or the approval policy's."""

YIELD_HOLD = 1000
"""Messages held back behind a yielded cell's at most (within a turn: a ``codex exec``
run is one turn) before the cell is let go, its commands still running: its end or the
``wait`` that reads it comes a few lines on (``yielded.jsonl``), a server's never.  The
same bound for a plain run that returned while it ran and that nothing polls
(:meth:`_Rollout._release_waiting`)."""
MAX_POLLED_OUTPUT = 1 << 20
"""Characters of polled output a running command's output takes in at most."""

ECHO_WAIT = 64
"""User messages in a row that wait for their echoes at most (the oldest is then due)."""
_NOT_A_TURN = ("MCP client for ", "MCP startup")
"""How the ``error`` events that codex-rs sends outside a turn open (an MCP server that
failed to start): no reply failed."""
_TURN_BEGINS = ("task_started", "turn_started", "user_message")
"""``event_msg`` types that begin a turn: an aborted turn's ends were all written before."""
_NEXT_TURN = ("task_started", "turn_started")
"""``event_msg`` types that begin the next turn: a cell still yielded then (nothing waited
on it, nothing ended it) is let go, its commands still running (:meth:`_release_yielded`)."""
_EXIT = re.compile(r"(?:^|\n)(?:Exit code: |Process exited with code )(-?\d+)")
_WALL = re.compile(r"(?:^|\n)Wall time: ([\d.]+) seconds")
_RUNNING = re.compile(r"(?:^|\n)Process running with session ID (\d+)")
_BODY = re.compile(r"(?:^|\n)Output:\n")
_CUT = re.compile(r"(?:^|\n)Total output lines: (\d+)")
_ORIGINAL = re.compile(r"(?:^|\n)Original token count: (\d+)")
_CELL_HEAD = re.compile(r"^Script (completed|failed|running with cell ID (\S+))\n"
                        r"Wall time:? ([\d.]+) seconds\n")
"""How a code-mode ``exec`` cell's output opens (Codex 0.17x): whether the script
completed, failed (``Script error:`` follows) or yielded while it still ran."""
_ABORTED_AFTER = re.compile(r"^aborted by user after (\d+(?:\.\d+)?)s\b", re.I)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)


def is_code_cell(payload: dict[str, Any]) -> bool:
    """A code-mode cell: an ``exec`` custom tool call whose input is JavaScript calling
    ``tools.*`` (Codex 0.14x), not a command string."""
    return (payload.get("type") == "custom_tool_call" and payload.get("name") == "exec"
            and isinstance(payload.get("input"), str) and "tools." in payload["input"])


def spawn_source(source: Any) -> dict[str, Any] | None:
    """What a rollout's ``session_meta.source`` says of a sub-agent spawned by another
    thread (``{"subagent": {"thread_spawn": {...}}}``): ``{"parent", "depth", "path",
    "nickname", "role"}``; ``None`` for a session the user started, a review or a
    compaction sub-agent (no parent thread)."""
    sub = source.get("subagent") if isinstance(source, dict) else None
    spawn = sub.get("thread_spawn") if isinstance(sub, dict) else None
    if not isinstance(spawn, dict) or not isinstance(spawn.get("parent_thread_id"), str) \
            or not spawn["parent_thread_id"]:
        return None

    def text(key: str) -> str | None:
        v = spawn.get(key)
        return v if isinstance(v, str) and v else None

    depth = spawn.get("depth")
    return {"parent": spawn["parent_thread_id"],
            "depth": depth if isinstance(depth, int) and not isinstance(depth, bool) else None,
            "path": text("agent_path"), "nickname": text("agent_nickname"),
            "role": text("agent_role") or text("agent_type")}


FORK_END = "You are the newly spawned agent."
"""How codex-rs answers, in a forked sub-agent's rollout, the ``spawn_agent`` call that
ends the parent's copied history (``FORKED_SPAWN_AGENT_OUTPUT_MESSAGE``)."""


def _output_text(output: Any) -> str:
    """A ``function_call_output``'s text: a string, ``{"content": …}`` or content items."""
    if isinstance(output, dict):
        output = output.get("content")
    return output if isinstance(output, str) else _text_of(output)


def spawned_child(output: Any) -> tuple[str | None, str | None]:
    """``(thread id, agent path)`` a ``spawn_agent`` output names: ``{"agent_id": …}``
    (multi_agents), ``{"task_name": …}`` (MultiAgentV2); ``(None, None)`` for a refusal
    (``Agent depth limit reached…``) or anything else."""
    if not isinstance(output, str) or not output.lstrip().startswith("{"):
        return None, None
    try:
        doc = orjson.loads(output)
    except orjson.JSONDecodeError:
        return None, None
    if not isinstance(doc, dict):
        return None, None
    aid, task = doc.get("agent_id"), doc.get("task_name")
    return (aid if isinstance(aid, str) and aid else None,
            task if isinstance(task, str) and task else None)


def _window_name(key: str, w: dict[str, Any]) -> str:
    """A rate-limit window as a user tells it apart: by its length (``window_minutes``:
    300 is ``5-hour``, 10080 ``7-day``, 43200 ``30-day``), else by its slot (``primary``,
    ``secondary``).  A free plan's ``primary`` is its weekly window (Rivo L169), a paid
    plan's the 5-hour one beside a weekly ``secondary`` (privacy-x402 L10)."""
    mins = w.get("window_minutes")
    if isinstance(mins, int) and not isinstance(mins, bool) and mins > 0:
        if mins % 1440 == 0:
            return f"{mins // 1440}-day window"
        if mins % 60 == 0:
            return f"{mins // 60}-hour window"
        return f"{mins}-minute window"
    return f"{key} window"


def rate_limit_used(rl: Any) -> list[list[Any]]:
    """A ``token_count`` event's ``rate_limits``: ``[used_percent, "rate limit used (W)"]``
    of each window (``primary``, ``secondary``: 5-hour, weekly, 30-day) the account has
    used some of, ``W`` naming the window (:func:`_window_name`: two windows never share a
    label): the harness's account, plumbing (:mod:`logparse.measure_plumbing`)."""
    out: list[list[Any]] = []
    if not isinstance(rl, dict):
        return out
    for key in ("primary", "secondary"):
        w = rl.get(key)
        used = w.get("used_percent") if isinstance(w, dict) else None
        if isinstance(w, dict) and isinstance(used, (int, float)) and \
                not isinstance(used, bool) and used > 0:
            out.append([float(used), f"rate limit used ({_window_name(key, w)})"])
    labels = [lab for _, lab in out]
    if len(set(labels)) < len(labels):  # two windows of one length: their slots tell them
        out = [[v, f"rate limit used ({k} {lab[len('rate limit used ('):]}"]
               for (v, lab), k in zip(out, ("primary", "secondary"))]
    return out


def _wall(seconds: float) -> float:
    """A command's wall time as a reading: four significant figures (``Wall time: 18.1554
    seconds`` and ``{"secs": 12, "nanos": 910617041}`` read 18.16 s and 12.91 s; the digits
    past them are the clock's noise, not the run's).  ``duration_seconds`` keeps them."""
    return round_sig(seconds, 4)


def _seconds(value: Any) -> float | None:
    """``exec_command_end.duration``: ``{"secs", "nanos"}``, seconds, or ``"1.5s"``."""
    if isinstance(value, dict):
        s, ns = value.get("secs"), value.get("nanos")
        if isinstance(s, (int, float)):
            return float(s) + (float(ns) / 1e9 if isinstance(ns, (int, float)) else 0.0)
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if isinstance(value, str):
        try:
            return float(value.removesuffix("s"))
        except ValueError:
            return None
    return None


def _exit_of(end: dict[str, Any]) -> int | None:
    """``exec_command_end.exit_code`` (a number, or digits in older builds)."""
    code = end.get("exit_code")
    if isinstance(code, str) and code.lstrip("-").isdigit():
        code = int(code)
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _end_output(end: dict[str, Any]) -> str:
    """What an ``exec_command_end`` says the command printed: ``aggregated_output``, else
    ``formatted_output``, else stdout and stderr."""
    for key in ("aggregated_output", "formatted_output"):
        v = end.get(key)
        if isinstance(v, str) and v:
            return v
    return "".join(x for x in (end.get("stdout"), end.get("stderr")) if isinstance(x, str))


def item_end(p: dict[str, Any]) -> dict[str, Any]:
    """An ``event_msg`` ``item_completed`` (Codex 0.17x) as the end event older builds wrote
    for it: a ``CommandExecution`` item as ``exec_command_end`` (its ``id`` is the call's,
    or ``exec-<uuid>`` for a command a code cell ran), an ``McpToolCall`` as
    ``mcp_tool_call_end`` (its ``error`` as ``Err``), a ``FileChange`` as
    ``patch_apply_end`` (``success: false`` when it failed); any other payload unchanged."""
    item = p.get("item")
    if not isinstance(item, dict):
        return p
    kind = item.get("type")
    if kind == "CommandExecution":
        return {"type": "exec_command_end", "call_id": item.get("id"),
                "command": item.get("command"), "exit_code": item.get("exit_code"),
                "aggregated_output": item.get("aggregated_output"),
                "duration": item.get("duration"), "status": item.get("status"),
                "started_at_ms": p.get("started_at_ms")}
    if kind == "McpToolCall":
        err = item.get("error")
        result: Any = {"Ok": item.get("result")}
        if isinstance(err, dict):
            result = {"Err": str(err.get("message") or "MCP tool call failed")}
        elif item.get("status") in ("failed", "declined") and mcp_error(
                {"result": result}) is None:
            # failed, and neither a `{message}` nor a result that says so: its status does
            said = _text_of(json_object(item.get("result")).get("content"))
            result = {"Err": (err if isinstance(err, str) and err else said)
                      or f"MCP tool call {item['status']}"}
        return {"type": "mcp_tool_call_end", "call_id": item.get("id"),
                "invocation": {"server": item.get("server"), "tool": item.get("tool"),
                               "arguments": item.get("arguments")},
                "result": result, "duration": item.get("duration")}
    if kind == "FileChange":
        failed = item.get("status") in ("failed", "declined")
        return {"type": "patch_apply_end", "call_id": item.get("id"), "success": not failed,
                "stdout": item.get("stdout"), "changes": item.get("changes"),
                "stderr": item.get("stderr") or (str(item.get("status")) if failed else "")}
    return p


def mcp_error(end: dict[str, Any]) -> str | None:
    """The error an ``mcp_tool_call_end`` reports (``result: {"Err": msg}`` or a result
    with ``isError``), else ``None``."""
    result = end.get("result")
    if not isinstance(result, dict):
        return None
    if "Err" in result:
        return str(result["Err"]) or "MCP tool call failed"
    ok = result.get("Ok", result)
    if isinstance(ok, dict) and (ok.get("isError") is True or ok.get("is_error") is True):
        return _text_of(ok.get("content")) or "MCP tool reported an error"
    return None


def _mcp_state(end: dict[str, Any]) -> dict[str, Any]:
    """The state an ``mcp_tool_call_end`` gives a call the file has no output of."""
    err = mcp_error(end)
    if err is not None:
        return {"status": "error", "error": err, "metadata": {"mcp": True}}
    result = json_object(end.get("result"))
    ok = result.get("Ok", result)
    text = _text_of(ok.get("content")) if isinstance(ok, dict) else ""
    return {"status": "completed", "output": text, "metadata": {"mcp": True}}


def _index(parts: list[dict[str, Any]], part: dict[str, Any]) -> int:
    for i, x in enumerate(parts):
        if x is part:
            return i
    raise ValueError("a part outside its message")


def usage_tokens(last: Any) -> dict[str, Any] | None:
    """A Codex ``last_token_usage`` as opencode's ``tokens`` (input without the cached
    part, which is ``cache.read``, as opencode counts OpenAI's usage)."""
    if not isinstance(last, dict):
        return None

    def num(k: str) -> int:
        v = last.get(k)
        return v if isinstance(v, int) and not isinstance(v, bool) else 0

    cached = num("cached_input_tokens")
    return {"input": max(num("input_tokens") - cached, 0), "output": num("output_tokens"),
            "reasoning": num("reasoning_output_tokens"),
            "cache": {"read": cached, "write": 0}, "total": num("total_tokens")}


def is_codex_record(obj: Any) -> bool:
    return (isinstance(obj, dict) and isinstance(obj.get("type"), str)
            and obj["type"] in LINE_TYPES and isinstance(obj.get("payload"), dict)) \
        or is_legacy_meta(obj)


def is_legacy_meta(obj: Any) -> bool:
    """The first line of a rollout before ``session_meta`` existed (Codex < 0.20):
    ``{"id", "timestamp", "instructions"[, "git"]}``, followed by bare response items."""
    return (isinstance(obj, dict) and "type" not in obj and isinstance(obj.get("id"), str)
            and isinstance(obj.get("timestamp"), str) and ("instructions" in obj or "git" in obj))


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return ""
    out = []
    for c in content:
        if isinstance(c, dict) and isinstance(c.get("text"), str):
            out.append(c["text"])
    return "\n".join(out)


def shell_text(argv: Any) -> str | None:
    """``["bash", "-lc", "ls"]`` → ``ls``; other argv are joined as a shell would read them."""
    if isinstance(argv, str):
        return argv
    if not isinstance(argv, list) or not all(isinstance(a, str) for a in argv) or not argv:
        return None
    if (len(argv) == 3 and argv[0].rsplit("/", 1)[-1].lower().removesuffix(".exe") in _SHELLS
            and argv[1] in ("-lc", "-c", "-Command", "/c")):
        return str(argv[2])
    return shlex.join(argv)


_CHUNK_KEYS = frozenset({"chunk_id", "wall_time_seconds", "exit_code",
                         "original_token_count", "output"})
"""What a code-mode ``exec_command`` answers a script (Codex 0.17x), printed whole by a
cell a ``wait`` reads (``yielded.jsonl`` L25): its ``output`` and the harness's counts."""


def _unchunked(text: str) -> str:
    """A ``wait``'s output with each printed ``exec_command`` answer (one JSON line of
    :data:`_CHUNK_KEYS`) replaced by the command's own output: its wall time, exit code and
    token count are the harness's plumbing of a command whose own end reports them, read
    again as readings of the ``wait`` (the raw record keeps them)."""
    if '"wall_time_seconds"' not in text:
        return text
    out = []
    for line in text.split("\n"):
        doc: Any = None
        if line.startswith("{") and '"wall_time_seconds"' in line:
            try:
                doc = orjson.loads(line)
            except orjson.JSONDecodeError:
                doc = None
        if isinstance(doc, dict) and isinstance(doc.get("output"), str) and \
                set(doc) <= _CHUNK_KEYS:
            out.append(doc["output"].rstrip("\n"))
        else:
            out.append(line)
    return "\n".join(out)


def parse_output(tool: str, output: Any) -> dict[str, Any]:
    """A call output → opencode tool-state fields: status, output/error, exit, duration."""
    failed = False
    exit_code: int | None = None
    duration: float | None = None
    meta: dict[str, Any] = {}
    if isinstance(output, dict):  # older payloads: {"content", "success"}
        failed = output.get("success") is False
        output = output.get("content") if "content" in output else output.get("output")
    if isinstance(output, list):
        output = _text_of(output)
    text = output if isinstance(output, str) else orjson.dumps(output).decode()
    if text.startswith('{"output"'):
        try:
            doc = orjson.loads(text)
        except orjson.JSONDecodeError:
            doc = None
        if isinstance(doc, dict) and isinstance(doc.get("output"), str):
            text = doc["output"]
            m = doc.get("metadata")
            if isinstance(m, dict):
                if isinstance(m.get("exit_code"), int):
                    exit_code = m["exit_code"]
                if isinstance(m.get("duration_seconds"), (int, float)):
                    duration = float(m["duration_seconds"])
                    if duration > 0:
                        meta["reported"] = [{"value": duration, "unit": "s",
                                             "label": f"{tool} duration"}]
    head = text[:400]
    cell = _CELL_HEAD.match(head)
    body = _BODY.search(head)
    if body:
        m = _EXIT.search(head, 0, body.start() + 1)
        if m:
            exit_code = int(m.group(1))
        w = _WALL.search(head, 0, body.start() + 1)
        if w:
            duration = float(w.group(1))
            meta["reported"] = ([{"value": _wall(duration), "unit": "s", "label": "wall time"}]
                                if duration > 0 else [])  # "0.0000 seconds": no reading
        # "Original token count: N": the size of the whole output as Codex counted it
        # (before any cut), in the unit the transcript gives; a size the harness read, so
        # plumbing (logparse.measure_plumbing), never a result shown as the work's
        o = _ORIGINAL.search(head, 0, body.start() + 1)
        if o and int(o.group(1)) > 0:
            meta["reported"] = [*meta.get("reported", []), {
                "value": float(o.group(1)), "unit": "tokens", "label": "output size"}]
        r = _RUNNING.search(head, 0, body.start() + 1)
        if r:
            meta["process"] = int(r.group(1))
        cut = _CUT.search(head, 0, body.start() + 1)
        text = text[body.end():]
        if cut:
            # Codex cut the output to the call's token budget: its note stays at the head
            # of the output (as older builds print it), where the ``truncated`` signal and
            # the size of the whole output are read from
            text = f"Total output lines: {cut.group(1)}\n\n{text}"
    if cell is not None and tool == "wait":
        text = _unchunked(text)
    cut = _CUT.match(text)
    if cut:  # the size of the whole output, of which the agent saw a part
        meta["reported"] = [*meta.get("reported", []), {
            "value": float(cut.group(1)), "unit": "lines", "label": "output lines (cut)"}]
    state: dict[str, Any] = {"status": "completed"}
    low = head.lower()
    if cell is not None:  # a code-mode cell: what the script did, not a command's exit
        meta["cellState"] = cell.group(1).split(" ", 1)[0]
        if cell.group(2):
            meta["cellId"] = cell.group(2)
        meta["reported"] = []  # (the cell's wall time is no reading of a command)
    if cell is not None and cell.group(1) == "failed":
        # what the script printed (``text()``) before it threw, then ``Script error:`` and
        # the error (a tool's refusal, an exception)
        said, sep, err = text.lstrip("\n").rpartition("Script error:\n")
        state.update(status="error", error=err.strip() or said.strip())
        if sep and said.strip():
            state["output"] = said.rstrip("\n")
    elif body is None and REJECTED.match(head.lstrip()):  # not run: the approval was denied
        # (a run's own output, after its ``Output:`` header, may print the words)
        state.update(status="error", error=text)
    elif low.startswith("aborted") or "aborted by user" in low[:80]:
        state.update(status="error", error=text)
        a = _ABORTED_AFTER.search(head)
        if a:  # "aborted by user after 33.4s": how long the run went before the user stopped it
            meta["reported"] = [{"value": float(a.group(1)), "unit": "s",
                                 "label": "run time before the user aborted it"}]
    elif failed or (body is None and exit_code is None and (low.startswith((
            "apply_patch verification failed", "execution error", "failed to parse",
            "unsupported call", "error:")))):
        # (with an exit code the text is what the command printed, as after ``Output:``:
        # a ``cargo`` run's own "error: …" is a command that failed, not a tool that did)
        state.update(status="error", error=text)
    else:
        state["output"] = text
    if exit_code is not None:
        meta["exit"] = exit_code
        if tool == "apply_patch" and exit_code != 0 and state["status"] == "completed":
            state.update(status="error", error=state.pop("output"))
    if duration is not None:
        meta["duration_seconds"] = duration
    state["metadata"] = meta
    return state


def tool_part(payload: dict[str, Any], ts: int | None) -> dict[str, Any]:
    """A call item as an opencode tool part (state ``running`` until its output arrives)."""
    typ = payload.get("type")
    name = payload.get("name") if isinstance(payload.get("name"), str) else ""
    call_id = payload.get("call_id") or payload.get("id")
    args: Any
    if typ == "local_shell_call":
        action = json_object(payload.get("action"))
        name = "local_shell"
        args = {"command": action.get("command"), "workdir": action.get("working_directory"),
                "timeout_ms": action.get("timeout_ms")}
    elif typ == "custom_tool_call":
        args = payload.get("input")
    else:
        raw = payload.get("arguments")
        try:
            args = orjson.loads(raw) if isinstance(raw, str) else raw
        except orjson.JSONDecodeError:
            args = raw
    inp: dict[str, Any]
    title = None
    if name in _SHELL_ARGV or name in _SHELL_STRING:
        tool = "bash"
        a = args if isinstance(args, dict) else {"command": args}
        cmd = shell_text(a.get("command") if "command" in a else a.get("cmd"))
        inp = {k: v for k, v in a.items() if k not in ("command", "cmd")}
        inp["command"] = cmd
        if a.get("with_escalated_permissions") is True and "sandbox_permissions" not in a:
            # builds before ``sandbox_permissions`` asked to leave the sandbox with a flag:
            # one field says it for every version (kb reads it)
            inp["sandbox_permissions"] = "require_escalated"
        if isinstance(a.get("workdir"), str):
            inp["workdir"] = a["workdir"]
        inp["codexTool"] = name
    elif name == "apply_patch":
        tool = "apply_patch"
        patch = args if isinstance(args, str) else (
            args.get("input") if isinstance(args, dict) else None)
        files = _PATCH_FILE.findall(patch or "")
        inp = {"patchText": patch}
        if files:
            inp["filePath"] = files[0]
            inp["files"] = files
        title = f"{len(files)} file{'s' if len(files) != 1 else ''}" if files else None
    elif name == "update_plan":
        tool = "todowrite"
        a = args if isinstance(args, dict) else {}
        plan = a["plan"] if isinstance(a.get("plan"), list) else []
        inp = {"todos": [{"content": str(p.get("step", "")),
                          "status": _PLAN_STATUS.get(str(p.get("status")), str(p.get("status")))}
                         for p in plan if isinstance(p, dict)]}
        if isinstance(a.get("explanation"), str):
            inp["explanation"] = a["explanation"]
    else:
        tool = name or str(typ)
        inp = args if isinstance(args, dict) else {"input": args}
    return {"type": "tool", "id": str(call_id), "callID": call_id, "tool": tool,
            "state": {"status": "running", "input": inp, "title": title,
                      "time": {"start": ts}, "metadata": {}}}


class CodexReader(TranscriptReader):
    form = "codex"
    agent = "codex"
    description = "OpenAI Codex CLI rollout JSONL (~/.codex/sessions)"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        if not opens_a_json_line(head):
            return False
        if is_codex_record(first_record(path)):
            return True
        # a rollout whose first records are of a type added since (or damaged): any of
        # its first records in the envelope Codex writes
        return any(is_codex_record(o) for o in head_records(path, 50))

    @classmethod
    def ends_at(cls, path: Path, session_id: str) -> int | None:
        return cls.records_end(tail_records(path), session_id)  # one rollout, one session

    @classmethod
    def records_end(cls, records: Sequence[Any], session_id: str) -> int | None:
        return latest_time(records)

    resume: Resume | None = None
    """Where a reading of the file grown since may continue (set once the file was read
    to its end, if it holds one session)."""
    resume_mark: str | None = None
    """The first message given after the point :attr:`resume` continues from."""

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None,
        resume: Resume | None = None,
    ) -> Iterator[SourceSession]:
        """With ``resume``: the file read on from there (:class:`Diverged` when the grown
        file needs what the state does not hold: read it whole)."""
        cursor = LineCursor()
        start = (resume.offset, resume.line) if resume is not None else None
        lines = iter_lines(path, cursor, start)
        carry: tuple[int, bytes, bool] | None = None
        self.skipped = {}
        self.resume = None
        self.resume_mark = None
        runs = 0
        while True:
            run = _Rollout(path, problems, lines, carry, self.skipped)
            run.owner, run.cursor = self, cursor
            first: Iterator[Any] | None
            if runs == 0 and resume is not None:
                if resume.reader != RESUME_VERSION:
                    raise Diverged("another reader version")
                first = run.restore(resume)
            else:
                first = run.start()
            runs += 1
            if first is None:
                return
            if session_ids is None or run.sid in session_ids:
                yield SourceSession(session_id=run.sid, form=self.form, path=str(path),
                                    messages=first, info=run.info, agent=self.agent)
            for _ in first:  # drain what the consumer did not read
                pass
            carry = run.next_session
            if carry is None:
                if runs == 1:
                    self.resume = run.point
                return
            if resume is not None:
                raise Diverged("another session starts in the appended lines")


class _Rollout:
    """One session of a rollout file, converted line by line into opencode messages."""

    def __init__(self, path: Path, problems: list[Problem],
                 lines: Iterator[tuple[int, bytes, bool]],
                 carry: tuple[int, bytes, bool] | None,
                 skipped: dict[str, int] | None = None) -> None:
        self.path = str(path)
        self.problems = problems
        self.skipped: dict[str, int] = {} if skipped is None else skipped
        """Records of types this reader does not know, by type (kept raw)."""
        self.cells: dict[str, tuple[int, str]] = {}
        """Code-mode cells waiting for their output -> (first exec end after it, code)."""
        self.exec_ends: list[tuple[dict[str, Any], int | None]] = []
        """``exec_command_end`` events in file order, with their time."""
        self.call_ids: set[str] = set()
        """Ids of the calls made outside any cell (their exec ends are not a cell's)."""
        self.last_total: Any = None
        self.usage_said: int | None = None
        self.last_rate: Any = None
        self.rate_said: Any = None
        """The session's token total last reported as a reading (see :meth:`_usage_stat`)."""
        self.tokens_due: dict[str, Any] | None = None
        self.lines = lines
        self.carry = carry
        self.next_session: tuple[int, bytes, bool] | None = None
        self.sid = ""
        self.info: dict[str, Any] = {}
        self.cwd: str | None = None
        self.offline = False
        self.forked: str | None = None
        """Reading the parent's history a forked sub-agent's rollout copies (from the
        parent's ``session_meta`` to the spawn's output that ends it): that thread's id."""
        """The turn runs in a sandbox without network access (``turn_context``)."""
        self.model: str | None = None
        self.echoes = 0
        """``event_msg`` ``user_message`` lines read so far: Codex echoes every message the
        user typed (codex-rs ``EventMsg::UserMessage``), never the context it injects."""
        self.unechoed: list[tuple[Draft, dict[str, Any]]] = []
        """The user messages read as typed since the last other item (their drafts, held
        back, and text parts), each until its echo comes (a rollout that echoes:
        :meth:`_echo_due`)."""
        self.early_echoes = 0
        """Echoes that came with no user message waiting for them: as many next ones are
        typed."""
        self.q = Ordered()
        self.calls: dict[str, tuple[Draft, dict[str, Any]]] = {}
        self.procs: dict[int, str] = {}  # exec sessions still running -> their command
        self.proc_call: dict[int, str] = {}
        """Exec sessions -> the call that started them (a ``write_stdin`` polls that call)."""
        self.waiting: dict[str, tuple[Draft, dict[str, Any], int]] = {}
        """Calls whose output said ``Process running with session ID N``: their output's
        draft (held back), their part, N; answered by the ``exec_command_end`` of the call
        or by a poll that reads the process's exit (:meth:`_settle`)."""
        self.aborted: set[str] = set()
        """Calls of :attr:`waiting` and cells of :attr:`yielded` whose turn the user aborted:
        their processes were terminated, and the end Codex 0.17x writes after
        ``turn_aborted`` (an ``item_completed`` ``CommandExecution``, exit -1) is theirs
        until the next turn begins (:meth:`_release_aborted`)."""
        self.yielded: dict[str, tuple[Draft, list[dict[str, Any]], str | None]] = {}
        """Code cells that returned while they ran (``Script running with cell ID N``):
        their message (held back), their commands still without an end, N.  A command's
        end (``CommandExecution`` ``exec-<uuid>``) or a ``wait`` that reads the cell's end
        answers them (:meth:`_yielded_end`, :meth:`_wait_read`)."""
        self.cell_of: dict[str, str] = {}
        """Cell ids Codex named (``Script running with cell ID N``) -> the cell's call: what a
        ``wait`` on N polls (the latest cell of that id: ids restart)."""
        self.ends: dict[str, tuple[dict[str, Any], int | None, int]] = {}
        """``exec_command_end`` events of calls still waiting for their output."""
        self.mcp_ends: dict[str, dict[str, Any]] = {}
        self.patch_fails: dict[str, str] = {}
        """``patch_apply_end`` with ``success: false`` of calls whose output has not come:
        what the patch's stderr said (the call failed, whatever its output says)."""
        """``mcp_tool_call_end`` events of calls still waiting for their output (the event
        says whether the MCP tool failed; the output alone does not)."""
        self.extra_lines: list[tuple[int, bytes]] = []
        self.spilled = False
        """Lines just left as a message of their own (:meth:`_extra`)."""
        self.extra_parts: list[dict[str, Any]] = []
        self._head: list[tuple[int, bytes, bool]] = []
        self.owner: CodexReader | None = None
        self.cursor: LineCursor | None = None
        self.prefix = PrefixIds()
        """Hashes of the call ids met before the offset a resumed reading started at."""
        self.point: Resume | None = None
        self._snap: tuple[int, int, bytes, int] | None = None
        self.last = LastLine()
        """The line read last: one written twice in a row is read once (:meth:`_line`)."""

    def start(self) -> Iterator[Any] | None:
        """Read up to the session id (``session_meta``) and return the message stream."""
        src = self._source()
        found = False
        for n, body, nl in src:
            if not nl:  # the head not read whole: what names the session may follow
                self._snap = (-1, 0, b"", 0)
            obj, reason = parse_line(body, nl)
            if isinstance(obj, dict) and obj.get("type") == "session_meta" and \
                    isinstance(obj.get("payload"), dict):
                self._meta(obj, n)
            elif is_legacy_meta(obj):
                self._meta({"payload": obj, "timestamp": obj.get("timestamp")}, n)
            self._head.append((n, body, nl))
            # session_meta comes first, before any item (records of types added since
            # may precede it)
            if self.sid or len(self._head) >= 200 or (
                    isinstance(obj, dict) and obj.get("type") == "response_item"):
                found = True
                break
        if not self._head:
            return None
        if not found:  # the file ended before anything named the session: no resume
            self._snap = (-1, 0, b"", 0)
        if not self.sid:  # no session_meta: name the session after the file
            self.sid = Path(self.path).stem.removeprefix("rollout-")
            self.info.setdefault("id", self.sid)
        return self._messages(src)

    def _source(self) -> Iterator[tuple[int, bytes, bool]]:
        if self.carry is not None:
            yield self.carry
        for line in self.lines:  # not `yield from`: closing this must not close the file's
            yield line

    def _meta(self, obj: dict[str, Any], n: int) -> None:
        p = obj["payload"]
        self.sid = str(p.get("id") or "")
        self.cwd = p.get("cwd") if isinstance(p.get("cwd"), str) else None
        created = iso_ms(p.get("timestamp")) or iso_ms(obj.get("timestamp"))
        self.info = {"id": self.sid, "directory": self.cwd,
                     "version": p.get("cli_version"), "time": {"created": created},
                     "originator": p.get("originator"), "source": p.get("source"),
                     "model_provider": p.get("model_provider")}
        git = p.get("git")
        if isinstance(git, dict):
            self.info["git"] = git
        spawn = spawn_source(p.get("source"))
        if spawn is not None:
            for key, top in (("path", "agent_path"), ("nickname", "agent_nickname"),
                             ("role", "agent_role")):  # newer builds repeat them at the top
                if spawn[key] is None and isinstance(p.get(top), str) and p[top]:
                    spawn[key] = p[top]
            self.info["subagent"] = spawn
            if spawn["parent"] != self.sid:
                self.info["parentID"] = spawn["parent"]
            if spawn["path"] is not None:
                self.info["childKey"] = spawn["path"]

    def _messages(self, src: Iterator[tuple[int, bytes, bool]]) -> Iterator[Any]:
        head, self._head = self._head, []
        for n, body, nl in head:
            if not nl:
                self._snapshot()
            yield from self._marked(self._checked(n, body, nl))
        for n, body, nl in src:
            if self.next_session is not None:
                break
            if not nl:  # the last line, perhaps not written whole: read again next time
                self._snapshot()
            if self._snap is None:  # (no generator more a line: most lines come here)
                yield from self._checked(n, body, nl)
            else:
                yield from self._marked(self._checked(n, body, nl))
            if self.next_session is not None:
                break
        if self.next_session is None:
            self._snapshot()
        yield from self._marked(self._finish())
        self._point()

    def _marked(self, messages: Iterator[Any]) -> Iterator[Any]:
        if self._snap is None or self.owner is None or self.owner.resume_mark is not None:
            yield from messages
            return
        for m in messages:
            if self.owner.resume_mark is None:
                self.owner.resume_mark = m.info["id"]
            yield m

    # -- resume-at-offset ------------------------------------------------------------
    def _snapshot(self) -> None:
        """The state a reading of the grown file continues from (taken once, before the
        line not read whole or at the file's end, before the end's flush)."""
        if self._snap is not None or self.cursor is None or not self.cursor.ok:
            return
        self._snap = (-1, 0, b"", 0)  # taken (or refused): once
        try:
            q = list(self.q._q)
            state = {
                "sid": self.sid, "info": self.info, "cwd": self.cwd, "offline": self.offline,
                "model": self.model, "cells": [[c, f, code] for c, (f, code) in
                                               self.cells.items()],
                "exec_ends": [[p, ts] for p, ts in self.exec_ends],
                "last_total": self.last_total, "usage_said": self.usage_said,
                "last_rate": self.last_rate, "rate_said": self.rate_said,
                "tokens_due": self.tokens_due,
                "procs": [[k, v] for k, v in self.procs.items()],
                "proc_call": [[k, v] for k, v in self.proc_call.items()],
                "waiting": [[cid, draft_ref(q, d), _index(d.parts, tp), proc]
                            for cid, (d, tp, proc) in self.waiting.items()],
                "ends": [[cid, e, ts, n] for cid, (e, ts, n) in self.ends.items()],
                "aborted": sorted(self.aborted), "cell_of": self.cell_of,
                "yielded": [[cid, draft_ref(q, d), [_index(d.parts, x) for x in parts], no]
                            for cid, (d, parts, no) in self.yielded.items()],
                "mcp_ends": self.mcp_ends, "patch_fails": self.patch_fails,
                "extra_lines": lines_state(self.extra_lines), "extra_parts": self.extra_parts,
                "q": [draft_state(d) for d in q], "last_time": self.q.last_time,
                "calls": [[cid, draft_ref(q, d), tp] for cid, (d, tp) in self.calls.items()],
                "skipped": dict(self.skipped), "forked": self.forked,
                "last": self.last.digest(), "echoes": self.echoes,
                "early_echoes": self.early_echoes,
                "unechoed": [[draft_ref(q, d), _index(d.parts, part)]
                             for d, part in self.unechoed]}
            blob = orjson.dumps(state)
        except (TypeError, ValueError, UnicodeDecodeError):
            return
        if len(blob) > MAX_STATE_BYTES:
            return
        lines = [n for d in q for n in d.lines] + [n for n, _ in self.extra_lines]
        offset, line = self.cursor.at
        self._snap = (offset, line, blob, min_line(lines))
        self._end_from = len(self.problems)

    def _point(self) -> None:
        if self._snap is None or self._snap[0] < 0 or self.next_session is not None:
            return
        offset, line, blob, first = self._snap
        self.point = Resume(reader=RESUME_VERSION, offset=offset, line=line,
                            state=orjson.loads(blob), session_id=self.sid,
                            ids=self.prefix.plus(self.call_ids).blob(),
                            first_line=first, end_problems=self._end_problems)

    _end_problems: list[tuple[int | None, str]] | None = None
    _end_from = 0

    def restore(self, r: Resume) -> Iterator[Any]:
        """The message stream of a reading that continues at ``r``."""
        s = r.state
        self.sid, self.info, self.cwd = s["sid"], s["info"], s["cwd"]
        self.offline, self.model = s["offline"], s["model"]
        self.cells = {c: (f, code) for c, f, code in s["cells"]}
        self.exec_ends = [(p, ts) for p, ts in s["exec_ends"]]
        self.last_total, self.usage_said = s["last_total"], s["usage_said"]
        self.last_rate, self.rate_said = s.get("last_rate"), s.get("rate_said")
        self.tokens_due = s["tokens_due"]
        self.procs = {int(k): v for k, v in s["procs"]}
        self.proc_call = {int(k): v for k, v in s["proc_call"]}
        self.ends = {cid: (e, ts, n) for cid, e, ts, n in s["ends"]}
        self.mcp_ends = dict(s["mcp_ends"])
        self.patch_fails = dict(s["patch_fails"])
        self.extra_lines, self.extra_parts = lines_from(s["extra_lines"]), s["extra_parts"]
        q = [draft_from(d) for d in s["q"]]
        self.q._q.extend(q)
        self.q.last_time = s["last_time"]
        self.calls = {cid: (q[i], tp) for cid, i, tp in s["calls"]}
        self.waiting = {cid: (q[i], q[i].parts[j], proc) for cid, i, j, proc in s["waiting"]}
        self.aborted = set(s.get("aborted", ()))
        self.cell_of = dict(s.get("cell_of", {}))
        self.yielded = {cid: (q[i], [q[i].parts[j] for j in js], no)
                        for cid, i, js, no in s.get("yielded", ())}
        self.skipped.update(s["skipped"])
        self.forked = s.get("forked")
        self.last.resume(s.get("last"))  # absent from points kept before it was
        self.echoes, self.early_echoes = s.get("echoes", 0), s.get("early_echoes", 0)
        self.unechoed = [(q[i], q[i].parts[j]) for i, j in s.get("unechoed", ())]
        self.prefix = PrefixIds(r.ids)
        return self._messages(self._source())

    def _outside_cells(self, cid: Any) -> bool:
        """Whether ``cid`` is a call made outside any cell (see :attr:`call_ids`)."""
        if cid in self.call_ids:
            return True
        if isinstance(cid, str) and len(self.prefix) and self.prefix.maybe(cid):
            raise Diverged("an exec end names a call made before the offset")
        return False

    # -- one line ---------------------------------------------------------------
    def _checked(self, n: int, body: bytes, nl: bool) -> Iterator[Any]:
        """One line; a record whose fields have types the reader cannot use is named (file
        and line, its text kept with the problem) and the reading goes on."""
        try:
            yield from self._line(n, body, nl)
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
            self.problems.append(Problem(
                path=self.path, line=n, raw=safe_text(body),
                reason=f"a Codex record of an unexpected shape ({type(e).__name__}: "
                       f"{str(e)[:120]}); kept raw"))

    def _line(self, n: int, body: bytes, nl: bool) -> Iterator[Any]:
        obj, reason = parse_line(body, nl)
        if obj is None:
            self.problems.append(Problem(path=self.path, line=n, reason=reason or "unreadable",
                                         raw=safe_text(body)))
            return
        if reason:  # salvaged invalid UTF-8
            self.problems.append(Problem(path=self.path, line=n, reason=reason))
            body = orjson.dumps(obj)
        if not isinstance(obj, dict):
            self.problems.append(Problem(path=self.path, line=n, raw=safe_text(body),
                                         reason="not a Codex rollout record (a JSON object)"))
            return
        typ = obj.get("type")
        p = json_object(obj.get("payload"))
        ts = iso_ms(obj.get("timestamp"))
        if typ == "event_msg" and p.get("type") == "item_completed":
            p = item_end(p)  # Codex 0.17x: the item a command or patch ended with
        if self.aborted and (typ in ("response_item", "turn_context", "compacted") or (
                typ == "event_msg" and p.get("type") in _TURN_BEGINS)):
            self._release_aborted()  # the aborted turn's ends are all written by now
        if self.yielded and (typ == "turn_context" or (
                typ == "event_msg" and p.get("type") in _NEXT_TURN)):
            self._release_yielded()  # a cell left running: its turn holds it, no longer
        elif self.yielded and len(self.q) > YIELD_HOLD:
            self._release_yielded(self.q.head)  # ... nor a long turn's every message
        if self.waiting and len(self.q) > YIELD_HOLD:
            self._release_waiting(self.q.head)  # a run nobody polls: as a yielded cell
        if typ not in LINE_TYPES:  # legacy rollouts: bare items, no envelope
            if is_legacy_meta(obj):
                typ = "session_meta"
                p = obj
            elif typ is None and "record_type" in obj:
                self._extra(n, body)
                return
            elif isinstance(typ, str) and "payload" not in obj:
                typ, p = "response_item", obj
        if self.forked is not None:  # the parent's lines, copied: no message of this one
            if typ == "response_item" and isinstance(p.get("type"), str) and \
                    p["type"] in _OUTPUTS and \
                    _output_text(p.get("output")).startswith(FORK_END):
                self.forked = None  # the spawn's answer in the copy: the agent's own follow
            self._extra(n, body)
            return
        if self.last.repeats(body) and typ == "response_item" and "timestamp" in obj:
            # the same item written twice in a row, to its time: kept raw, read once (a
            # legacy bare item has no time: a prompt typed again is the same line again;
            # Codex records carry no id, and an item of the agent's own is not written
            # twice in a row, to the byte, with its time)
            self._extra(n, body)
            return
        if self.unechoed and (typ == "turn_context" or typ == "response_item" and not (
                p.get("type") == "message" and p.get("role") == "user")):
            self._echo_due()
        if typ == "session_meta":
            sid = str(p.get("id") or "")
            sub = self.info.get("subagent")
            if sid and self.q.tail is None and isinstance(sub, dict) and \
                    sid == sub.get("parent") and sid != self.sid:
                # a sub-agent spawned with the parent's history (fork_context, fork_turns):
                # its rollout copies the parent's lines first, its session_meta ahead
                self.forked = sid
                self.info["forked"] = True
                self._extra(n, body)
                return
            if sid and sid != self.sid and self.q.tail is not None:
                self.next_session = (n, body, nl)  # another session starts here
                return
            self._extra(n, body)
        elif typ == "response_item":
            yield from self._item(n, body, p, ts)
        elif typ == "turn_context":
            if isinstance(p.get("cwd"), str):
                self.cwd = p["cwd"]
            policy = p.get("sandbox_policy")
            if isinstance(policy, dict):
                # a sandbox without network: a command's connection failure is the
                # sandbox's, not an answer from the server it tried
                self.offline = policy.get("type") != "danger-full-access" and \
                    policy.get("network_access") is False
            elif isinstance(p.get("permission_profile"), dict):
                # (0.17x writes the permission profile beside or instead of the policy)
                self.offline = p["permission_profile"].get("network") == "restricted"
            if isinstance(p.get("model"), str):
                self.model = p["model"]
            self._extra(n, body)
        elif typ == "compacted":
            hist = p.get("replacement_history")
            msg = p["message"] if isinstance(p.get("message"), str) else ""
            text = msg.strip() or (f"compacted: history replaced by {len(hist)} items"
                                   if isinstance(hist, list) else "compacted")
            self._extra(n, body, {"type": "compaction", "id": f"L{n}", "auto": True,
                                  "text": text})
        elif typ == "event_msg" and p.get("type") == "turn_aborted" and any(
                c not in self.aborted for c in (*self.waiting, *self.yielded)):
            # "Any running unified exec processes were terminated": Codex 0.17x writes
            # each one's end after this line (exit -1, its output, how long it ran), older
            # builds none; either way the run was stopped with the turn
            self.aborted.update(self.waiting)
            self.aborted.update(self.yielded)
            yield from self._line(n, body, nl)
        elif typ == "event_msg" and p.get("type") == "turn_aborted" and \
                self.q.tail is not None and self.q.tail.info["role"] == "assistant":
            # the step the user interrupted: an aborted assistant message, as in opencode
            tail = self.q.tail
            tail.add_line(n, body)
            tail.info["error"] = {"name": "MessageAbortedError",
                                  "data": {"message": f"turn aborted: {p.get('reason')}"}}
            if isinstance(p.get("duration_ms"), (int, float)) and p["duration_ms"] > 0:
                # how long the turn ran before the user stopped it (the agent's own clock)
                self.extra_parts.append(turn_stat(p["duration_ms"], f"L{n}"))
            self._usage_stat(n)
        elif typ == "event_msg" and p.get("type") == "turn_aborted" and \
                isinstance(p.get("duration_ms"), (int, float)) and p["duration_ms"] > 0:
            # Codex 0.120+ writes its ``<turn_aborted>`` user message first: the turn's
            # clock still says how long it ran (Trezo-Ai L157-158)
            self._extra(n, body, turn_stat(p["duration_ms"], f"L{n}"))
            self._usage_stat(n)
        elif typ == "event_msg" and p.get("type") == "exec_command_end":
            if self.cells:  # only a cell waiting for its output needs them
                self.exec_ends.append((p, ts))
            ecid = p.get("call_id")
            if isinstance(ecid, str) and ecid in self.waiting:
                # a command that returned while it ran has ended: its exit code and whole
                # output are the original call's (the line joins that call's message)
                self.waiting[ecid][0].add_line(n, body)
                self._settle(ecid, ts, end=p)
                yield from self.q.ready()
                return
            if self.yielded and isinstance(ecid, str) and ecid not in self.calls and \
                    not self._outside_cells(ecid) and self._yielded_end(n, body, p, ts):
                # a command of a cell that returned while it ran (Codex 0.17x: its
                # CommandExecution ``exec-<uuid>``, after the cell's output)
                if self.cells:  # (then no other waiting cell's)
                    self.exec_ends.pop()
                yield from self.q.ready()
                return
            if isinstance(ecid, str) and ecid in self.calls:  # ended before its output came
                self.ends[ecid] = (p, ts, n)
            self._extra(n, body)
        elif typ == "event_msg" and p.get("type") == "collab_agent_spawn_end":
            # (rollouts that keep extended events) the thread the pending spawn started
            spawn, new = p.get("call_id"), p.get("new_thread_id")
            if isinstance(spawn, str) and spawn in self.calls and isinstance(new, str) and new:
                self.calls[spawn][1]["state"]["metadata"]["sessionId"] = new
            self._extra(n, body)
        elif typ == "event_msg" and p.get("type") == "mcp_tool_call_end" and self.cells and \
                not self._outside_cells(p.get("call_id")) and p.get("call_id") not in self.calls:
            # an MCP tool a code cell called (Codex 0.17x McpToolCall ``exec-<uuid>``)
            self.exec_ends.append((p, ts))
            self._extra(n, body)
        elif typ == "event_msg" and p.get("type") == "mcp_tool_call_end":
            self._mcp_end(n, body, p, ts)
        elif typ == "event_msg" and p.get("type") == "token_count":
            self._tokens(p)
            self._extra(n, body)
        elif typ == "event_msg" and p.get("type") in ("task_complete", "turn_complete"):
            # the turn's own clock (``duration_ms``): how long the agent worked on a request
            if isinstance(p.get("duration_ms"), (int, float)) and p["duration_ms"] > 0:
                self._extra(n, body, turn_stat(p["duration_ms"], f"L{n}"))
            else:
                self._extra(n, body)
            self._usage_stat(n)
        elif typ == "event_msg" and p.get("type") == "patch_apply_end" and self.cells and \
                not self._outside_cells(p.get("call_id")) and p.get("call_id") not in self.calls:
            # a patch a code cell made (Codex 0.17x FileChange ``exec-<uuid>``): its answer
            self.exec_ends.append((p, ts))
            self._extra(n, body)
        elif typ == "event_msg" and p.get("type") == "patch_apply_end" and \
                p.get("success") is False and isinstance(p.get("call_id"), str) and \
                p["call_id"] in self.calls:
            # the patch did not apply (codex-rs PatchApplyEndEvent): a failed edit, as
            # Claude Code's Edit <tool_use_error>, whatever the call's output says
            err = "\n".join(x for x in (p.get("stderr"), p.get("stdout"))
                            if isinstance(x, str) and x.strip())
            self.patch_fails[p["call_id"]] = err or "patch_apply_end success=false"
            self._extra(n, body)
        elif typ == "event_msg" and p.get("type") == "error" and self.q.tail is not None \
                and not str(p.get("message") or "").startswith(_NOT_A_TURN):
            # the turn failed (codex-rs EventMsg::Error: retries spent, a usage limit, a
            # context that no longer fits): the reply that failed, as Claude Code records
            # an API error and opencode an ``APIError`` (logparse.structural.TURN_RULES)
            msg = p.get("message") if isinstance(p.get("message"), str) else "error"
            info = p.get("codex_error_info")
            data: dict[str, Any] = {"message": msg}
            if isinstance(info, (str, dict)):
                data["codexErrorInfo"] = info
            d = self._draft(n, body, "assistant", ts)
            d.info["error"] = {"name": "APIError", "data": data}
            if ts is not None:
                d.info["time"]["completed"] = ts
            yield from self.q.ready()
        elif typ == "event_msg" and p.get("type") in ("error", "stream_error"):
            msg = p.get("message") if isinstance(p.get("message"), str) else str(p.get("type"))
            self._extra(n, body, {"type": "retry", "id": f"L{n}", "attempt": None,
                                  "error": {"data": {"message": msg}}, "time": {"created": ts}})
        elif typ == "event_msg" and p.get("type") == "user_message":
            self.echoes += 1
            said = str(p.get("message") or "").strip()
            same = [x for x in self.unechoed
                    if (t := str(x[1].get("text") or "").strip()) == said or t and t in said]
            if same or self.unechoed:  # its own message (the IDE's words are echoed with
                # their context), else the oldest
                got = same[0] if same else self.unechoed[0]
                self.unechoed.remove(got)
                got[0].open -= 1
            else:
                self.early_echoes += 1
            self._extra(n, body)
        elif typ in ("event_msg", "world_state", "token_usage_record"):
            et = p.get("type")
            if typ == "event_msg" and not (isinstance(et, str) and et in _EVENTS):
                key = f"event_msg/{et}" if isinstance(et, str) else "event_msg/<no type>"
                self.skipped[key] = self.skipped.get(key, 0) + 1
            self._extra(n, body)
        else:  # kept raw (in the next message's record) and counted
            key = typ if isinstance(typ, str) else f"<{type(typ).__name__}>"
            self.skipped[key] = self.skipped.get(key, 0) + 1
            self._extra(n, body)
        if self.spilled:  # (:meth:`_extra`): what is done may leave
            self.spilled = False
            yield from self.q.ready()

    def _mcp_end(self, n: int, body: bytes, p: dict[str, Any], ts: int | None) -> None:
        """An MCP tool's end: kept for its call's output (which does not say whether the
        tool failed); an MCP call the file holds only as this event becomes a call of its
        own; the end of a call already answered adds nothing."""
        cid = p.get("call_id")
        if isinstance(cid, str) and cid in self.calls:
            self.mcp_ends[cid] = p
            self._extra(n, body)
            return
        if isinstance(cid, str) and cid in self.call_ids:
            self._extra(n, body)
            return
        inv = json_object(p.get("invocation"))
        name = "__".join(str(x) for x in (inv.get("server"), inv.get("tool")) if x)
        args = inv.get("arguments")
        tp = tool_part({"type": "function_call", "name": name or "mcp", "call_id": cid,
                        "arguments": args if isinstance(args, dict) else {"input": args}}, ts)
        state = tp["state"]
        state.update(_mcp_state(p))
        dur = _seconds(p.get("duration"))
        state["time"]["end"] = ts
        if isinstance(ts, int) and dur is not None:
            state["time"]["start"] = ts - int(dur * 1000)
        if isinstance(cid, str):
            self.call_ids.add(cid)
        self._extra(n, body, tp)

    def _usage_stat(self, n: int | None) -> None:
        """At the end of a turn (and of the file), the session's usage so far from the
        last ``token_count`` (``total_token_usage.total_tokens``): one reading a turn, what
        the session cost in tokens, never one a model call; and how much of the account's
        rate-limit windows it had used (``rate_limits`` ``used_percent``, when it moved)."""
        meas: list[dict[str, Any]] = []
        total = self.last_total.get("total_tokens") if isinstance(self.last_total, dict) \
            else None
        if isinstance(total, int) and not isinstance(total, bool) and total > 0 \
                and total != self.usage_said:
            self.usage_said = total
            meas.append({"value": float(total), "unit": "tokens",
                         "label": "tokens used (session so far)"})
        rates = rate_limit_used(self.last_rate)
        if rates and rates != self.rate_said:
            self.rate_said = rates
            meas += [{"value": v, "unit": "%", "label": lab} for v, lab in rates]
        if meas:
            self.extra_parts.append({"type": "stat", "id": f"L{n}u" if n else "usage",
                                     "text": "tokens used", "measurements": meas})

    def _echo_due(self) -> None:
        """The user messages read last got no echo before the next other item: in a rollout
        that echoes what the user types, each is context Codex injected (an AGENTS.md, a
        skill's body, instructions of a build whose opener
        :data:`logparse.request.INJECTED_OPENERS` does not know), marked by its structure,
        whatever it opens with.  A rollout that has echoed nothing
        yet (older builds write no ``user_message`` events) keeps its messages the user's."""
        due, self.unechoed = self.unechoed, []
        for d, part in due:
            d.open -= 1
            if self.echoes:
                part["synthetic"] = True

    def _tokens(self, p: dict[str, Any]) -> None:
        """One model call's usage (``last_token_usage``) on the assistant message it ended;
        a repeated event (same running total) is not counted twice."""
        rl = p.get("rate_limits")
        if isinstance(rl, dict) and rl.get("limit_id") in (None, "codex"):
            self.last_rate = rl  # the account's own windows (not a model's own limit)
        info = p.get("info")
        if not isinstance(info, dict):
            return
        total = info.get("total_token_usage")
        if total is not None and total == self.last_total:
            return
        self.last_total = total
        tokens = usage_tokens(info.get("last_token_usage"))
        if tokens is None:
            return
        tail = self.q.tail
        if tail is not None and tail.info["role"] == "assistant" and "tokens" not in tail.info:
            tail.info["tokens"] = tokens
        else:  # the call ended on a message that has its usage: the next one takes it
            self.tokens_due = tokens

    def _extra(self, n: int, body: bytes, part: dict[str, Any] | None = None) -> None:
        self.extra_lines.append((n, body))
        if part is not None:
            self.extra_parts.append(part)
        elif spill_due(self.extra_lines):  # (a message of their own: bounded)
            self.q.add(spilled(self.extra_lines, self.sid))
            self.extra_lines = []
            self.spilled = True

    def _item(self, n: int, body: bytes, p: dict[str, Any], ts: int | None) -> Iterator[Any]:
        it = p.get("type")
        role = p.get("role")
        if it == "message" and role in ("user", "assistant"):
            d = self._draft(n, body, role, ts)
            text = _text_of(p.get("content"))
            part: dict[str, Any] = {"type": "text", "id": f"L{n}", "text": text,
                                    "time": {"start": ts}}
            if role == "user" and is_injected(text):
                part["synthetic"] = True
            own = part  # (the user's words, when the IDE's context is split off below)
            at = text.find(REQUEST_MARK) if role == "user" else -1
            ask = text[at + len(REQUEST_MARK):].strip() if at >= 0 else ""
            if ask and not part.get("synthetic"):
                # the IDE's context (open tabs, the selection, files mentioned) above the
                # user's words: shown, never read as what the user said
                part["text"] = ask
                if text[:at].strip():
                    d.parts.append(part)
                    part = {"type": "text", "id": f"L{n}.c", "text": text[:at].rstrip(),
                            "synthetic": True, "time": {"start": ts}}
            d.parts.append(part)
            if role == "user" and isinstance(self.info.get("subagent"), dict):
                own["author"] = PARENT  # a sub-agent's task: its parent agent's words
            if role == "user" and not own.get("synthetic"):
                if self.early_echoes:
                    self.early_echoes -= 1
                else:  # held back until its echo or the next other item decides
                    d.open += 1
                    self.unechoed.append((d, own))
                    if len(self.unechoed) > ECHO_WAIT:  # (bounded: the oldest is due)
                        old, part = self.unechoed.pop(0)
                        old.open -= 1
                        if self.echoes:
                            part["synthetic"] = True
            for c in p.get("content") or []:
                if isinstance(c, dict) and c.get("type") == "input_image":
                    d.parts.append({"type": "file", "id": f"L{n}i", "mime": "image",
                                    "filename": str(c.get("image_url", ""))[:120]})
            if role == "assistant" and isinstance(p.get("phase"), str):
                d.info["phase"] = p["phase"]
        elif it in _CALLS:
            d = self._draft(n, body, "assistant", ts)
            tp = tool_part(p, ts)
            cid = tp["callID"]
            if is_code_cell(p) and isinstance(cid, str) and cid:
                self.cells[cid] = (len(self.exec_ends), p["input"])
            elif isinstance(cid, str):
                self.call_ids.add(cid)
            inp = tp["state"]["input"]
            if self.offline and tp["tool"] == "bash" and \
                    inp.get("sandbox_permissions") != "require_escalated":
                inp["sandboxNetwork"] = False
            if tp["tool"] == "wait" and str(inp.get("cell_id")) in self.cell_of:
                inp["polls"] = self.cell_of[str(inp.get("cell_id"))]  # (the cell's answer)
                tp["state"]["title"] = f"cell {inp.get('cell_id')}"
            if tp["tool"] == "write_stdin":  # polls a running exec: say which command
                proc = inp.get("session_id")
                cmd = self.procs.get(proc) if isinstance(proc, int) else None
                tp["state"]["title"] = f"session {proc}" + (f": {cmd}" if cmd else "")
                orig = self.proc_call.get(proc) if isinstance(proc, int) else None
                if orig is not None:
                    inp["polls"] = orig  # what it reads is that call's answer
            if it == "local_shell_call" and p.get("status") == "completed" and not cid:
                tp["state"]["status"] = "completed"
                d.parts.append(tp)
            elif isinstance(cid, str) and cid:
                d.open += 1
                self.calls[cid] = (d, tp)
            else:
                d.parts.append(tp)
        elif it in _OUTPUTS:
            d = self._draft(n, body, "assistant", ts)
            cid = p.get("call_id")
            found = self.calls.pop(cid, None) if isinstance(cid, str) else None
            if found is None:
                tp = {"type": "tool", "id": str(cid), "callID": cid, "tool": "unknown",
                      "state": {"status": "running", "input": {}, "time": {"start": ts},
                                "metadata": {}}}
            else:
                call_draft, tp = found
                call_draft.open -= 1
            state = tp["state"]
            start = state["time"].get("start")
            new = parse_output(tp["tool"], p.get("output"))
            meta = new.pop("metadata")
            mcp = self.mcp_ends.pop(cid, None) if isinstance(cid, str) else None
            if mcp is not None:  # the MCP tool's own end says whether it failed
                meta["mcp"] = True
                err = mcp_error(mcp)
                if err is not None and new.get("status") == "completed":
                    new = {"status": "error", "error": new.get("output") or err}
            failed = self.patch_fails.pop(cid, None) if isinstance(cid, str) else None
            if failed is not None and new.get("status") == "completed":
                new = {"status": "error", "error": new.get("output") or failed}
            state.update(new)
            state["metadata"].update(meta)
            if tp["tool"] == "spawn_agent" and state.get("status") == "completed":
                child, key = spawned_child(state.get("output"))
                if child is not None:  # the sub-agent's thread: its rollout's session id
                    state["metadata"]["sessionId"] = child
                if key is not None:  # its agent path: the child names it too
                    state["input"]["childKey"] = key
            if isinstance(meta.get("process"), int) and tp["tool"] == "bash":
                self.procs[meta["process"]] = state["input"].get("command") or ""
            dur = meta.get("duration_seconds")
            end = (start + int(dur * 1000)) if isinstance(start, int) and dur is not None \
                else ts
            state["time"]["end"] = end
            if isinstance(cid, str) and cid in self.cells:
                parts = self._cell_parts(cid, tp)
                d.parts.extend(parts)
                err = tp["state"].get("error")
                if meta.get("cellState") == "running" or (
                        isinstance(err, str) and err.lower().startswith("aborted")):
                    # a cell that yielded, or one the user stopped: its commands' ends
                    # come later (after ``turn_aborted`` for a stopped one)
                    self._yield_cell(cid, d, parts, meta.get("cellId"))
            else:
                d.parts.append(tp)
                if isinstance(cid, str):
                    self._answer_of(cid, d, tp, ts, n)
        elif it == "reasoning":
            text = "\n".join(t for t in (_text_of(p.get("summary")), _text_of(p.get("content")))
                             if t)
            self._extra(n, body, {"type": "reasoning", "id": f"L{n}", "text": text,
                                  "time": {"start": ts}} if text.strip() else None)
        elif it == "message":  # developer / system instructions
            self._extra(n, body)
        elif it == "web_search_call":
            action = json_object(p.get("action"))
            q = action.get("query") or action.get("url")
            self._extra(n, body, {"type": "tool", "id": str(p.get("id") or f"L{n}"),
                                  "callID": p.get("id"), "tool": "websearch",
                                  "state": {"status": "completed" if p.get("status") in
                                            (None, "completed") else "error",
                                            "input": {"query": q, **action}, "output": "",
                                            "time": {"start": ts, "end": ts}}})
        elif it in _SILENT_ITEMS:
            self._extra(n, body)
        else:  # kept raw (in the next message's record) and counted
            key = f"response_item/{it}"
            self.skipped[key] = self.skipped.get(key, 0) + 1
            self._extra(n, body)
        yield from self.q.ready()

    def _answer_of(self, cid: str, d: Draft, tp: dict[str, Any], ts: int | None,
                   n: int) -> None:
        """Link an output to what answers it later: a command that returned while it
        still ran waits (its message held back) for its ``exec_command_end`` or for a poll
        that reads its exit; a poll's reading is the run's (:meth:`_poll`); an output
        without an exit code takes the one its ``exec_command_end`` gave before it."""
        state = tp["state"]
        meta = state["metadata"]
        early = self.ends.pop(cid, None)
        if tp["tool"] == "write_stdin":
            self._poll(tp, ts, n)
        elif tp["tool"] == "wait" and isinstance(tp["state"]["input"].get("polls"), str):
            self._wait_read(tp, n)
        elif tp["tool"] == "bash" and isinstance(meta.get("process"), int) \
                and "exit" not in meta and state.get("status") == "completed":
            self.proc_call[meta["process"]] = cid
            self.waiting[cid] = (d, tp, meta["process"])
            d.open += 1
            if early is not None:
                self._settle(cid, early[1], end=early[0])
        elif early is not None and "exit" not in meta and tp["tool"] == "bash":
            code = _exit_of(early[0])
            if code is not None:
                meta["exit"] = code
                meta["answeredBy"] = "exec_command_end"

    def _poll(self, tp: dict[str, Any], ts: int | None, n: int) -> None:
        """A ``write_stdin`` poll of a run: what it read joins the run's output, the exit it
        read is the run's (the poll keeps it as ``processExit``, so the failure is counted
        once, on the command), and its wait is no reading of the run."""
        state = tp["state"]
        meta = state["metadata"]
        orig = state["input"].get("polls")
        if not isinstance(orig, str):
            return
        if "exit" in meta:
            meta["processExit"] = meta.pop("exit")
        meta["reported"] = [m for m in meta.get("reported", []) if m.get("label") != "wall time"]
        w = self.waiting.get(orig)
        if w is None:
            return
        w[0].link("polls", n)  # the run's message changes with what its polls read
        err = state.get("error")
        if state.get("status") == "error" and isinstance(err, str) and \
                err.lower().startswith("aborted"):
            # the user stopped the turn while this poll waited on the run: when the turn's
            # abort then terminates the run, it was stopped by the user, in Codex's words
            w[1]["state"]["metadata"]["stoppedWhilePolled"] = err
        ostate = w[1]["state"]
        chunk = state.get("output") if isinstance(state.get("output"), str) else ""
        cut = _CUT.match(chunk)
        if cut:
            chunk = chunk[cut.end():].lstrip("\n")
        so_far = ostate.get("output") or ""
        if len(so_far) < MAX_POLLED_OUTPUT:  # (a run polled for hours: its head; the raw
            ostate["output"] = so_far + chunk  # records keep every chunk)
        if isinstance(meta.get("processExit"), int):
            self._settle(orig, ts, code=meta["processExit"])

    def _settle(self, cid: str, ts: int | None, end: dict[str, Any] | None = None,
                code: int | None = None, killed: bool = False) -> None:
        """The final answer of a call that returned while its command still ran: the
        ``exec_command_end`` of the call (exit code, whole output, run time), or the exit a
        poll read (the output read so far), or nothing (``killed``: the turn was aborted
        and its processes terminated).  Its message is no longer held back."""
        d, tp, _proc = self.waiting.pop(cid)
        d.open -= 1
        state = tp["state"]
        meta = state["metadata"]
        # the head's wall time was how long the tool waited before it returned, not a
        # time of the run
        meta["reported"] = [m for m in meta.get("reported", []) if m.get("label") != "wall time"]
        meta.pop("duration_seconds", None)
        start = state["time"].get("start")
        code_end = _exit_of(end) if end is not None else None
        if killed or (cid in self.aborted and (code_end is None or code_end < 0)):
            self.aborted.discard(cid)
            self._terminated(state, end, ts)
            return
        self.aborted.discard(cid)  # (it ran out on its own as the turn was aborted)
        dur: float | None = None
        if end is not None:
            code = _exit_of(end)
            out = _end_output(end)
            if out:
                cut = _CUT.match(state.get("output") or "")
                # the agent saw a cut output: the note stays at the head (the truncated signal)
                state["output"] = (f"{cut.group(0)}\n\n" if cut else "") + out
            dur = _seconds(end.get("duration"))
            meta["answeredBy"] = "exec_command_end"
            if end.get("status") in ("declined", "failed") and code is None:
                state.update(status="error", error=state.pop("output", "") or
                             str(end.get("status")))
        else:
            meta["answeredBy"] = "write_stdin"
            if isinstance(start, int) and isinstance(ts, int) and ts >= start:
                meta["duration_seconds"] = (ts - start) / 1000
        if code is not None:
            meta["exit"] = code
        if dur is not None:
            meta["duration_seconds"] = dur
            if dur > 0:
                meta["reported"].append({"value": _wall(dur), "unit": "s", "label": "wall time"})
        state["time"]["end"] = start + int(dur * 1000) if isinstance(start, int) and \
            dur is not None else ts

    @staticmethod
    def _terminated(state: dict[str, Any], end: dict[str, Any] | None, ts: int | None) -> None:
        """A run stopped with the turn the user aborted (its process terminated): stopped by
        the user in Codex's words when a poll or a ``wait`` was waiting on it (its output so
        far stays its output).  ``end``: the end Codex 0.17x writes for it after
        ``turn_aborted`` (``CommandExecution``, ``status: failed``, exit -1): its whole
        output and how long it ran are the run's; -1 is Codex's kill, no exit of the
        command's, and the run's time is no reading of the work (it was cut short)."""
        meta = state["metadata"]
        meta["terminatedBy"] = "turn_aborted"
        stopped = meta.pop("stoppedWhilePolled", None)
        if isinstance(stopped, str):
            state.update(status="error", error=stopped)
        if end is None:
            return
        meta["answeredBy"] = "exec_command_end"
        out = _end_output(end)
        if out:
            cut = _CUT.match(state.get("output") or "")
            state["output"] = (f"{cut.group(0)}\n\n" if cut else "") + out
        if state.get("status") != "error":
            state.update(status="error", error="aborted: the run was terminated with the "
                                               "turn the user interrupted")
        dur = _seconds(end.get("duration"))
        start = state["time"].get("start")
        if dur is not None:
            meta["duration_seconds"] = dur
        state["time"]["end"] = start + int(dur * 1000) if isinstance(start, int) and \
            dur is not None else ts

    def _release_aborted(self) -> None:
        """The aborted turn is over: its runs whose end never came (older builds write
        none) were terminated with it."""
        if not self.aborted:
            return
        for cid in [c for c in self.waiting if c in self.aborted]:
            self._settle(cid, None, killed=True)
        for cid in [c for c in self.yielded if c in self.aborted]:
            self._yielded_done(cid, killed=True)
        self.aborted.clear()

    def _release_yielded(self, head: Draft | None = None) -> None:
        """A new turn begins (or, ``head``: :data:`YIELD_HOLD` messages wait behind the
        oldest, ``head``): the cells that yielded and are still running (a server left up,
        a run nobody waited on) leave with their commands still running, as before they
        yielded.  Held on, every later message would wait for an end that may come hours
        later or never (a file of one such cell held up to the hold limit: memory, and no
        resume point for a file that grows).  A later ``wait`` on the cell still polls it
        (:attr:`cell_of`); an end that comes after is a line of its own."""
        for cid in [c for c, (d, _p, _n) in self.yielded.items()
                    if c not in self.aborted and (head is None or d is head)]:
            self._yielded_done(cid)

    def _release_waiting(self, head: Draft | None) -> None:
        """:data:`YIELD_HOLD` messages wait behind ``head``, a call whose command returned
        while it ran (``Process running with session ID N``) and that nothing polled or
        ended since: it leaves as its output left it, its command still running.  Held on,
        every later message would wait for an end that may never come (a server started
        and never polled held up to :data:`~logparse._agentlines.HOLD_LIMIT` messages, and
        a growing file had no resume point meanwhile).  An end or a poll after it is a line
        of its own (the poll keeps what it read)."""
        for cid in [c for c, (d, _tp, _p) in self.waiting.items()
                    if d is head and c not in self.aborted]:
            d, _tp, _proc = self.waiting.pop(cid)
            d.open -= 1

    def _yield_cell(self, cid: str, d: Draft, parts: list[dict[str, Any]], no: Any) -> None:
        """A cell returned while it ran: its commands without an end wait for it (their
        message is held back), as a call whose process still runs does (:attr:`waiting`)."""
        if isinstance(no, str):
            self.cell_of[no] = cid
        pending = [x for x in parts if x.get("tool") == "bash"
                   and "answeredBy" not in x["state"]["metadata"]]
        if pending:
            self.yielded[cid] = (d, pending, no if isinstance(no, str) else None)
            d.open += 1

    def _yielded_done(self, cid: str, killed: bool = False) -> None:
        d, pending, _no = self.yielded.pop(cid)
        d.open -= 1
        self.aborted.discard(cid)
        if killed:
            for x in pending:
                self._terminated(x["state"], None, None)

    def _yielded_end(self, n: int, body: bytes, end: dict[str, Any], ts: int | None) -> bool:
        """The end of a yielded cell's command: the first waiting command that ran the same
        command line, else (when no other cell waits for its output) the first waiting one
        whose command the cell's code does not spell out (a name bound at run time).  Its
        exit code, output and run time are the command's; the line joins its message.  An
        end of another command (a cell whose output came, an aborted turn's other run)
        is none of theirs."""
        cmd = shell_text(end.get("command"))
        if self._a_running_cells(end, cmd):
            return False
        found = next(((cid, x) for cid, (_d, pending, _no) in self.yielded.items()
                      for x in pending if x["state"]["input"].get("command") == cmd), None)
        if found is None and not self.cells:
            found = next(((cid, x) for cid, (_d, pending, _no) in self.yielded.items()
                          for x in pending
                          if not isinstance(x["state"]["input"].get("command"), str)), None)
        if found is None:
            return False
        cid, x = found
        d, pending, _no = self.yielded[cid]
        d.add_line(n, body)
        pending.remove(x)
        state = x["state"]
        code = _exit_of(end)
        if cid in self.aborted and (code is None or code < 0):
            self._terminated(state, end, ts)
        else:
            meta = state["metadata"]
            self._end_state(state, end, ts)
            meta["answeredBy"] = "exec_command_end"
            dur = meta.get("duration_seconds")
            if isinstance(dur, float) and dur > 0:
                meta["reported"] = [*meta.get("reported", []),
                                    {"value": _wall(dur), "unit": "s", "label": "wall time"}]
        if not pending:
            self._yielded_done(cid)
        return True

    def _a_running_cells(self, end: dict[str, Any], cmd: str | None) -> bool:
        """Whether ``end`` is the end of a command of a cell still waiting for its output
        (:attr:`cells`), not of a yielded one's that ran the same command line: that
        cell's code spells the command out and, when the end says when it started (Codex
        0.17x's ``started_at_ms``), it started once that cell was called (a yielded cell
        still runs: its next command may start after a later cell's call, and is its)."""
        if not isinstance(cmd, str) or not cmd:
            return False
        spelled = (cmd, orjson.dumps(cmd).decode()[1:-1])
        started = end.get("started_at_ms")
        for cid, (_first, code) in self.cells.items():
            if not (isinstance(code, str) and any(c in code for c in spelled)):
                continue
            call = self.calls.get(cid)
            begun = call[1]["state"]["time"].get("start") if call is not None else None
            if not (isinstance(started, int) and isinstance(begun, int)) or started >= begun:
                return True
        return False

    def _wait_read(self, tp: dict[str, Any], n: int) -> None:
        """A ``wait`` on a yielded cell: the user aborting it stopped the cell's commands
        (in Codex's words, as a ``write_stdin`` poll's abort); the cell's end it read
        (``Script completed|failed``) answers the commands no end of their own answered,
        as a cell's output answers its one command (:meth:`_cell_parts`)."""
        state = tp["state"]
        cid = state["input"].get("polls")
        if cid not in self.yielded:
            return
        d, pending, _no = self.yielded[cid]
        d.link("polls", n)
        err = state.get("error")
        if state.get("status") == "error" and isinstance(err, str) and \
                err.lower().startswith("aborted"):
            for x in pending:
                x["state"]["metadata"]["stoppedWhilePolled"] = err
            return
        if state["metadata"].get("cellState") not in ("completed", "failed"):
            return  # still running
        for x in pending:
            xs = x["state"]
            if len(pending) == 1 and xs["metadata"].get("cellCalls") == 1:
                xs.update({k: v for k, v in state.items()
                           if k in ("status", "output", "error")})
            else:
                xs["status"] = "error" if state.get("status") == "error" else "completed"
                if xs["status"] == "error":
                    xs["error"] = state.get("error")
                else:
                    xs["output"] = ""
                xs["metadata"]["outputInCell"] = True
            xs["metadata"]["answeredBy"] = "wait"
            xs["time"]["end"] = state["time"].get("end")
        pending.clear()
        self._yielded_done(cid)

    def _cell_parts(self, cid: str, cell: dict[str, Any]) -> list[dict[str, Any]]:
        """A code-mode cell as the calls it made, each linked to the cell (``metadata.cell``):
        a command's exit code, output and duration from its ``exec_command_end`` event, or
        from the cell's output when the cell made that one call only.  The cell's code
        (and its output) stay on the first part and in the raw record."""
        first, code = self.cells.pop(cid)
        ends_seen = self.exec_ends[first:]
        if not self.cells:  # no other cell waits: memory stays bounded
            self.exec_ends = []
        calls = cell_calls(code)
        if not calls:
            return [cell]
        names = cell_strings(code)
        ends = [e for e in ends_seen if not self._outside_cells(e[0].get("call_id"))]
        patches = [e for e in ends if e[0].get("type") == "patch_apply_end"]
        mcps = [e for e in ends if e[0].get("type") == "mcp_tool_call_end"]
        ends = [e for e in ends if e[0].get("type") == "exec_command_end"]
        used_mcps: set[int] = set()
        used: set[int] = set()
        used_patches: set[int] = set()
        cstate = cell["state"]
        start = cstate["time"].get("start")
        parts: list[dict[str, Any]] = []
        for i, c in enumerate(calls, 1):
            args = resolve(c.args, names)
            sub = f"{cid}#{i}"
            if isinstance(args, str) or args is None:
                payload: dict[str, Any] = {"type": "custom_tool_call", "name": c.tool,
                                           "input": args, "call_id": sub}
            else:
                payload = {"type": "function_call", "name": c.tool, "call_id": sub,
                           "arguments": args if isinstance(args, dict) else {"input": args}}
            part = tool_part(payload, start)
            state = part["state"]
            meta = state["metadata"]
            meta.update(cell=cid, cellIndex=i, cellCalls=len(calls), codeMode=True)
            if i == 1:
                meta["cellCode"] = code
            mend = self._match_mcp(mcps, used_mcps, c.tool) if c.tool.startswith("mcp__") \
                else None
            if mend is not None:  # what the MCP tool answered, or its failure
                state.update(_mcp_state(mend[0]))
                dur = _seconds(mend[0].get("duration"))
                if isinstance(mend[1], int):
                    state["time"]["end"] = mend[1]
                    if dur is not None:
                        state["time"]["start"] = mend[1] - int(dur * 1000)
                parts.append(part)
                continue
            if part["tool"] == "apply_patch":
                pend = self._match_patch(patches, used_patches, state["input"].get("files"))
                if pend is not None and cstate.get("status") != "running":
                    pp, pts = pend
                    if pp.get("success") is False:
                        state.update(status="error", error="\n".join(
                            x for x in (pp.get("stderr"), pp.get("stdout"))
                            if isinstance(x, str) and x.strip()) or "patch failed")
                    else:
                        out = pp.get("stdout")
                        state.update(status="completed", output=out if isinstance(out, str)
                                     else "")
                    state["time"]["end"] = pts
                    parts.append(part)
                    continue
            if part["tool"] == "bash":
                end = self._match_end(ends, used, state["input"].get("command"))
                if end is not None:
                    self._end_state(state, *end)
                    meta["answeredBy"] = "exec_command_end"
                    if cstate.get("status") == "running":
                        # the command ended but the cell never returned: its answer is in an
                        # event only, never in front of the agent (as a plain call without
                        # its function_call_output)
                        state["status"] = "running"
                        meta["answerInEventOnly"] = True
                    parts.append(part)
                    continue
            if len(calls) == 1:  # the cell's output is this call's
                state.update({k: v for k, v in cstate.items() if k not in ("input", "metadata",
                                                                           "title", "time")})
                meta.update({k: v for k, v in cstate["metadata"].items()})
                state["time"]["end"] = cstate["time"].get("end")
            elif cstate.get("status") != "running":  # (running: the cell never answered)
                state["status"] = "error" if cstate.get("status") == "error" else "completed"
                if state["status"] == "error":
                    state["error"] = cstate.get("error")
                else:
                    state["output"] = ""
                meta["outputInCell"] = True
                state["time"]["end"] = cstate["time"].get("end")
            parts.append(part)
        last = parts[-1]["state"]["metadata"]
        if len(calls) > 1 or cstate.get("status") == "error":  # (a cell that threw after
            # its one call worked: the script's failure stays in sight)
            last["cellOutput"] = cstate.get("output") if "output" in cstate \
                else cstate.get("error")
            last["cellStatus"] = cstate.get("status")
        return parts

    @staticmethod
    def _match_mcp(ends: list[tuple[dict[str, Any], int | None]], used: set[int],
                   tool: str) -> tuple[dict[str, Any], int | None] | None:
        """The ``mcp_tool_call_end`` of a cell's ``tools.mcp__SERVER__TOOL(...)``: the first
        unused one of that server and tool."""
        for j, (p, _ts) in enumerate(ends):
            inv = json_object(p.get("invocation"))
            if j not in used and tool == f"mcp__{inv.get('server')}__{inv.get('tool')}":
                used.add(j)
                return ends[j]
        return None

    @staticmethod
    def _match_patch(ends: list[tuple[dict[str, Any], int | None]], used: set[int],
                     files: Any) -> tuple[dict[str, Any], int | None] | None:
        """The ``patch_apply_end`` of a cell's patch: the first unused one that changed a
        file the patch names (its paths are absolute, the patch's often relative)."""
        names = [f for f in files if isinstance(f, str) and f] if isinstance(files, list) \
            else []
        for j, (p, _ts) in enumerate(ends):
            changed = p.get("changes")
            if j in used or not isinstance(changed, dict):
                continue
            if any(k == f or k.endswith("/" + f.lstrip("./")) for k in changed for f in names):
                used.add(j)
                return ends[j]
        return None

    @staticmethod
    def _match_end(ends: list[tuple[dict[str, Any], int | None]], used: set[int],
                   command: Any) -> tuple[dict[str, Any], int | None] | None:
        """The ``exec_command_end`` of a cell's command: the first unused one running the
        same command, else the first unused one."""
        free = [j for j in range(len(ends)) if j not in used]
        for j in free:
            if shell_text(ends[j][0].get("command")) == command:
                used.add(j)
                return ends[j]
        if free:
            used.add(free[0])
            return ends[free[0]]
        return None

    @staticmethod
    def _end_state(state: dict[str, Any], end: dict[str, Any], ts: int | None) -> None:
        out = _end_output(end)
        code = _exit_of(end)
        meta = state["metadata"]
        if code is not None:
            meta["exit"] = code
        dur = _seconds(end.get("duration"))
        if dur is not None:
            meta["duration_seconds"] = dur
        if end.get("status") in ("declined", "failed") and not isinstance(code, int):
            state.update(status="error", error=out or str(end.get("status")))
        else:
            state.update(status="completed", output=out)
        start = state["time"].get("start")
        state["time"]["end"] = ts if ts is not None else (
            start + int(dur * 1000) if isinstance(start, int) and dur is not None else None)
        if ts is not None and dur is not None:
            state["time"]["start"] = ts - int(dur * 1000)

    def _draft(self, n: int, body: bytes, role: str, ts: int | None) -> Draft:
        info: dict[str, Any] = {"id": message_id(n), "sessionID": self.sid, "role": role,
                                "time": {"created": ts}}
        if self.model:
            info["modelID"] = self.model
        if self.cwd:
            info["path"] = {"cwd": self.cwd}
        d = Draft(info, line=n)
        if role == "assistant" and self.tokens_due is not None:
            info["tokens"], self.tokens_due = self.tokens_due, None
        for ln, b in self.extra_lines:
            d.add_line(ln, b)
        d.add_line(n, body)
        self._take_parts(d)
        self.extra_lines = []
        self.q.add(d)
        return d

    def _turn_ended(self) -> int | None:
        """When the turn ended, if a ``task_complete`` (``turn_complete``) is among the
        lines read after the last message (its time, else the message's own); ``None``
        when the file ends inside a turn."""
        for _, b in reversed(self.extra_lines):
            if b"_complete" not in b:
                continue
            try:
                obj = json_object(orjson.loads(b))
            except orjson.JSONDecodeError:
                continue
            p = json_object(obj.get("payload"))
            if obj.get("type") == "event_msg" and p.get("type") in ("task_complete",
                                                                    "turn_complete"):
                tail = self.q.tail
                created = tail.info["time"].get("created") if tail is not None else None
                return iso_ms(obj.get("timestamp")) or created
        return None

    def _take_parts(self, d: Draft) -> None:
        """Typed parts of the lines without an ordinal go to the message they joined."""
        if not self.extra_parts:
            return
        if d.info["role"] == "user":  # a user message shows prompts and compaction only
            keep = [p for p in self.extra_parts if p["type"] in ("compaction", "stat")
                    or p["type"].startswith("codex:")]
        else:
            keep = self.extra_parts
        d.parts.extend(keep)
        self.extra_parts = []

    def _finish(self) -> Iterator[Any]:
        self._release_aborted()
        said = self.usage_said
        self._usage_stat(None)  # a file that ends mid-turn: the usage so far
        tail = self.q.tail
        if tail is not None:
            ended = self._turn_ended()
            if ended is not None and tail.info.get("role") == "assistant":
                # the turn's own end (``task_complete``) follows the last message: its
                # reply was whole, not still being written when the file was cut
                tail.info["time"]["completed"] = ended
            if self.usage_said != said:  # read at the file's end, from no line of the tail:
                # its raw says so (a grown file reads it at the turn's end instead)
                tail.at_end = {"tokens_used": self.usage_said}
            for ln, b in self.extra_lines:
                tail.add_line(ln, b)
            if self.extra_parts:
                self._take_parts(tail)
        else:  # no message to keep them: each named, its text kept with the problem
            for ln, b in self.extra_lines:
                self.problems.append(Problem(path=self.path, line=ln, raw=safe_text(b),
                                             reason="a record of a rollout without any "
                                                    "message; kept raw"))
        self._end_problems = [(p.line, p.reason) for p in self.problems[self._end_from:]
                              if p.message_id is None]
        self.extra_lines = []
        for d, tp in self.calls.values():  # calls without an output: at their own ordinal
            # (d.open stays set: its raw says so, so it changes once answered)
            cid = tp["callID"]
            if isinstance(cid, str) and cid in self.cells:
                d.parts.extend(self._cell_parts(cid, tp))
            else:
                end = self.ends.pop(cid, None) if isinstance(cid, str) else None
                if end is not None and tp["tool"] == "bash":
                    # the command ended, but its output never reached the agent: the
                    # answer is kept (exit code, output, run time), the call stays without
                    # a result, as a code-mode cell's command that never returned
                    self._end_state(tp["state"], end[0], end[1])
                    tp["state"]["status"] = "running"
                    tp["state"]["metadata"]["answerInEventOnly"] = True
                    d.link("event", end[2])  # (the event's line is the next message's)
                d.parts.append(tp)
        self.calls = {}
        self.ends = {}
        # the file ends before their echoes: the user's, as read; their ``open`` stays set
        # (their raw says they wait), so a reading of the grown file decides them again
        self.unechoed = []
        yield from self.q.flush()
