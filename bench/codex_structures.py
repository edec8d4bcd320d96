"""The structures of a Codex rollout, and whether logkb turns each into its signal or episode.

``python -m bench codex-audit`` runs this after its per-call check.  It reads the rollout
with its own small parser (no code shared with :mod:`logparse.codex`) and lists what the
agent wrote as **structure**: user messages (the real prompt, the context Codex injects,
the ``event_msg`` twin of each), approvals the user denied, sandbox denials and escalation
requests, runs the tool timed out, failed patches, aborted turns, web searches, plan
updates, MCP tool errors, compactions, calls left without an answer at the file's end and
the calls a code-mode cell made.  Then it compares with what logkb stored: the prompts
(``prose``), the calls with the structural signals the graph rules read
(:func:`kb.graph.store.load_rows`), the messages, the compactions, and the dead ends and
open questions logkb reports.

Each gap is one ``{"file", "line", "kind", "detail"}``; kinds:

``injected-as-prompt``   context Codex injected (``<environment_context>``, AGENTS.md,
                         ``<skill>``, ``<turn_aborted>``, ...) stored as what the user typed
``prompt-as-injected``   what the user typed stored as injected context
``prompt-duplicated``    an ``event_msg`` ``user_message`` stored as a second prompt
``prompt-missing``       a prompt the file holds only as ``event_msg`` is not stored
``signal-missed``        a call the file says was denied/rejected/escalated/timed out/cut/
                         aborted/failed/left unanswered lacks that structural signal
``mcp-error-missed``     an MCP call whose ``mcp_tool_call_end`` failed is stored as done
``mcp-call-missing``     an MCP call the file holds only as ``mcp_tool_call_end`` is
                         stored as no call
``websearch-missing``    a ``web_search_call`` not stored as a ``websearch`` call
``plan-missing``         an ``update_plan`` not stored as a ``todowrite`` with its steps
``abort-missed``         a ``turn_aborted`` whose turn is neither marked aborted nor
                         followed by its ``<turn_aborted>`` record
``compaction-missing``   a ``compacted`` record not stored as a compaction
``cell-call-missing``    a call a code-mode cell made has no stored call of its own
``open-not-reported``    a call without an answer at the file's end is not an open question
``failing-end-unreported``  a failed run that ends its line of work in the turn (no later
                         run of the same program in that turn worked) is in no dead end's
                         evidence: a candidate, to be judged by reading the transcript
                         (a negative probe such as ``rg`` finding nothing is no dead end)
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

INJECTED = ("<environment_context>", "<user_instructions>", "# AGENTS.md instructions",
            "<skill", "<turn_aborted>", "<user_shell_command>", "<permissions instructions>",
            "<collaboration_mode>", "<codex_internal_context", "<external_",
            "<subagent_notification>", "<personality_spec>", "<model_switch>")
"""How the context Codex writes into a user message opens (codex-rs: ``# AGENTS.md
instructions for``, ``<user_instructions>``, ``<skill``, ``<environment_context>``,
``<turn_aborted>``, ``<user_shell_command>``, and the markers of newer builds)."""

REJECTED = re.compile(r"^(?:exec command|patch) rejected by user\b|^user rejected MCP tool call"
                      r"|rejected due to unacceptable risk|^approval policy is \S+; reject "
                      r"command|approval required by policy|^patch rejected: ", re.I)
"""What Codex answers a call the user (or its reviewer) did not approve (codex-rs
normalises a human's denial to ``exec command rejected by user`` / ``patch rejected by
user``)."""
BY_POLICY = re.compile(r"rejected due to unacceptable risk|^approval policy is \S+; reject "
                       r"command|approval required by policy|^patch rejected: ", re.I)
"""Of those, what the approval policy or the reviewer refused, no person: a ``tool_error``
(``logparse.structural`` ``codex-policy-rejected``; Codex 0.171 recorded answers an
escalation under ``codex exec`` ``approval policy is Never; reject command``)."""

DENIED = re.compile(r"sandbox denied exec error|command failed inside sandbox"
                    r"|Network access to \"?\S+\"? is blocked by policy"
                    r"|sandbox blocked creation|Read-only file system"
                    r"|Operation not permitted|\bEPERM\b|Win32 error 5\b|Access is denied",
                    re.I)
"""What a run the sandbox refused prints (Codex classifies a failed run with these words
as a sandbox denial)."""

TIMED_OUT = re.compile(r"command timed out after \d+ ?(?:milliseconds|ms)|^Exit code: 124\b",
                       re.I | re.M)

_EXIT = re.compile(r"^(?:Exit code: |Process exited with code )(-?\d+)$", re.M)
_CUT = re.compile(r"^Total output lines: \d+|tokens truncated", re.M)
_PROBE = re.compile(
    r"^(?:cd\s+\S+\s*&&\s*)?(?:rg|grep|egrep|find|fd|ls|cat|head|tail|sed\s+-n|wc|nl|test|"
    r"\[|which|command|type|where|Get-ChildItem|Get-Content|Get-Command|Get-Item|"
    r"Select-String|Test-Path|printenv|git\s+(?:grep|ls-files|remote|config|status|log|"
    r"diff|show|rev-parse|branch))\b", re.I)
"""Programs that read or look something up: a failure of one ("no matches found", no such
file) is a negative probe, not a line of work that failed."""


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(str(c.get("text", "")) for c in content if isinstance(c, dict))
    if isinstance(content, dict):
        return _text(content.get("content") or content.get("output") or "")
    return ""


@dataclass
class Call:
    call_id: str
    line: int
    ordinal: int
    name: str
    args: Any
    out_line: int | None = None
    out_ordinal: int | None = None
    output: str = ""
    end: dict[str, Any] | None = None
    patch_end: dict[str, Any] | None = None
    mcp_end: dict[str, Any] | None = None
    turn: int = 0

    @property
    def command(self) -> str:
        a = self.args if isinstance(self.args, dict) else {}
        c = a.get("cmd", a.get("command", ""))
        if isinstance(c, list):
            c = c[2] if len(c) == 3 and c[1] in ("-lc", "-c", "-Command") else " ".join(
                str(x) for x in c)
        return str(c or "")

    @property
    def exit(self) -> int | None:
        if self.end is not None and isinstance(self.end.get("exit_code"), int):
            return int(self.end["exit_code"])
        m = _EXIT.search(self.output[:400])
        if m:
            return int(m.group(1))
        if self.output.startswith('{"output"'):
            try:
                meta = json.loads(self.output).get("metadata") or {}
            except ValueError:
                meta = {}
            if isinstance(meta.get("exit_code"), int):
                return int(meta["exit_code"])
        return None

    @property
    def escalated(self) -> bool:
        return asks_escalation(self.args)

    @property
    def body(self) -> str:
        i = self.output.find("\nOutput:\n")
        return self.output[i + 9:] if i >= 0 else self.output

    def expected(self) -> set[str]:
        """The structural signals the file says this call has."""
        want: set[str] = set()
        head = self.output.lstrip()[:300]
        if REJECTED.search(head):
            want.add("tool_error" if BY_POLICY.search(head) else "rejected_by_user")
        if self.escalated:
            want.add("escalation_requested")
        code = self.exit
        failed = (code not in (None, 0)) or (self.end or {}).get("status") in (
            "failed", "declined")
        if failed and DENIED.search(self.body[:4000]) and not self.escalated:
            want.add("sandbox_denied")
        if TIMED_OUT.search(self.output[:400]):
            want.add("timed_out")
        if self.name not in ("apply_patch", "write_stdin") and code not in (None, 0) and \
                not head.startswith("aborted"):
            want.add("exit_code")
        if head.startswith("aborted by user"):
            want.add("interrupted")
        if self.out_line is None and self.end is None and self.name != "exec":
            want.add("no_result")
        if self.name == "apply_patch" and (
                re.search(r"verification failed|Failed to find|Invalid patch", head)
                or (self.patch_end or {}).get("success") is False):
            want.add("tool_error")
        return want

    @property
    def mcp_failed(self) -> bool:
        r = (self.mcp_end or {}).get("result")
        if isinstance(r, dict) and "Err" in r:
            return True
        ok = r.get("Ok") if isinstance(r, dict) else None
        return isinstance(ok, dict) and (ok.get("isError") is True or ok.get("is_error") is True)


@dataclass
class Rollout:
    """What one rollout holds, structure by structure."""

    path: Path
    users: list[tuple[int, int, str, bool]] = field(default_factory=list)
    """``(line, ordinal, text, injected)`` of each ``response_item`` user message."""
    event_prompts: list[tuple[int, str]] = field(default_factory=list)
    calls: dict[str, Call] = field(default_factory=dict)
    searches: list[int] = field(default_factory=list)
    aborts: list[tuple[int, int]] = field(default_factory=list)
    """``(line, ordinal of the last item before it)`` of each ``turn_aborted`` event."""
    compactions: list[int] = field(default_factory=list)
    empty_aborts: set[int] = field(default_factory=set)
    """Lines of the ``turn_aborted`` events of turns that had no reply or call yet (the
    user sent the request again at once: nothing of the turn to mark)."""
    mcp_only: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    """``mcp_tool_call_end`` events of no call of the file."""


def asks_escalation(args: Any) -> bool:
    """Whether a call's arguments ask to run outside the sandbox (either spelling Codex
    has used)."""
    a = args if isinstance(args, dict) else {}
    return a.get("sandbox_permissions") == "require_escalated" \
        or a.get("with_escalated_permissions") is True


def _as_end(p: dict[str, Any]) -> dict[str, Any]:
    """Codex 0.17x writes a command's and a patch's end as ``event_msg`` ``item_completed``
    (``CommandExecution``, ``FileChange``; see ``fixtures/codex_record``): the end event
    older builds wrote for it, so the checks below read both."""
    item = p.get("item") if p.get("type") == "item_completed" else None
    if not isinstance(item, dict):
        return p
    if item.get("type") == "CommandExecution":
        return {"type": "exec_command_end", "call_id": item.get("id"),
                "command": item.get("command"), "exit_code": item.get("exit_code"),
                "aggregated_output": item.get("aggregated_output"),
                "duration": item.get("duration"), "status": item.get("status")}
    if item.get("type") == "FileChange":
        return {"type": "patch_apply_end", "call_id": item.get("id"),
                "success": item.get("status") not in ("failed", "declined"),
                "stdout": item.get("stdout"), "stderr": item.get("stderr")}
    return p


def records(path: Path) -> Iterator[tuple[int, str | None, dict[str, Any]]]:
    """``(line, type, payload)`` of each JSON object line of a rollout (``payload`` is
    ``{}`` where the line has none); lines that are no JSON object are passed over.  An
    ``item_completed`` of a command or a patch reads as its end event (:func:`_as_end`)."""
    with path.open("rb") as f:
        for n, raw in enumerate(f, 1):
            try:
                obj = json.loads(raw)
            except ValueError:
                continue
            if isinstance(obj, dict):
                p = obj.get("payload")
                yield n, obj.get("type"), _as_end(p) if isinstance(p, dict) else {}


def read_rollout(path: Path) -> Rollout:
    r = Rollout(path)
    ordinal = 0
    turn = 0
    acted = False
    for n, t, p in records(path):
        pt = p.get("type")
        if t == "response_item":
            if pt == "message" and p.get("role") in ("user", "assistant"):
                ordinal += 1
                acted = acted or p["role"] == "assistant"
                if p["role"] == "user":
                    text = _text(p.get("content"))
                    injected = text.lstrip().startswith(INJECTED)
                    r.users.append((n, ordinal, text, injected))
                    if not injected:
                        acted = False
                    if not injected:
                        turn += 1
            elif pt in ("function_call", "custom_tool_call", "local_shell_call"):
                ordinal += 1
                acted = True
                cid = str(p.get("call_id") or p.get("id") or f"L{n}")
                args: Any = p.get("arguments") if pt == "function_call" else p.get("input")
                if pt == "local_shell_call":
                    args = p.get("action")
                if isinstance(args, str) and pt == "function_call":
                    try:
                        args = json.loads(args)
                    except ValueError:
                        pass
                r.calls[cid] = Call(cid, n, ordinal, str(p.get("name") or pt), args, turn=turn)
            elif pt in ("function_call_output", "custom_tool_call_output"):
                ordinal += 1
                c = r.calls.get(str(p.get("call_id")))
                if c is not None:
                    c.out_line, c.out_ordinal = n, ordinal
                    c.output = _text(p.get("output"))
            elif pt == "web_search_call":
                r.searches.append(n)
        elif t == "event_msg":
            c = r.calls.get(str(p.get("call_id")))
            if pt == "user_message":
                r.event_prompts.append((n, str(p.get("message") or "")))
            elif pt == "turn_aborted":
                r.aborts.append((n, ordinal))
                if not acted:
                    r.empty_aborts.add(n)
            elif pt == "exec_command_end" and c is not None:
                c.end = p
            elif pt == "patch_apply_end" and c is not None:
                c.patch_end = p
            elif pt == "mcp_tool_call_end":
                if c is not None:
                    c.mcp_end = p
                else:
                    r.mcp_only.append((n, p))
            elif pt == "context_compacted":
                pass  # the ``compacted`` record says it (with what replaced the history)
        elif t == "compacted":
            r.compactions.append(n)
    if r.event_prompts:
        # a rollout that echoes what the user typed: a user message no echo repeats is
        # context Codex injected, whatever it opens with
        echoed = {text.strip() for _, text in r.event_prompts}
        r.users = [(n, o, text, injected or text.strip() not in echoed
                    and text.find("## My request for Codex:") < 0)
                   for n, o, text, injected in r.users]
    return r


@dataclass
class Stored:
    prompts: dict[int, tuple[str, str]]
    """ordinal -> (source, text) of each stored prompt."""
    signals: dict[int, tuple[str, ...]]
    """ordinal -> the signals of the call stored there (a cell's calls at one ordinal)."""
    calls: list[dict[str, Any]]
    aborted: set[int]
    """Ordinals of assistant messages stored as aborted."""
    compactions: int
    deadend_ordinals: set[int]
    open_ordinals: set[int]


def read_stored(db: Path) -> Stored:
    """What the knowledge base ``db`` (one Codex session ingested) holds."""
    from kb.graph.store import load_rows
    from kb.store import KbStore

    store = KbStore(db, read_only=True)
    try:
        con = store.conn
        prompts = {int(o): (str(s), str(t)) for o, s, t in con.execute(
            "SELECT ordinal, source, text FROM prose WHERE kind = 'prompt'").fetchall()}
        sids = [s for (s,) in con.execute("SELECT session_id FROM sessions").fetchall()]
        rows, _, _ = load_rows(store, sids)
        signals: dict[int, tuple[str, ...]] = {}
        for row in rows:
            signals[row.ordinal] = tuple(sorted(set(signals.get(row.ordinal, ()))
                                                | set(row.signals)))
        calls = [dict(zip(("part_id", "call_id", "ordinal", "tool", "status", "exit_code",
                           "input"), x, strict=True)) for x in con.execute(
            "SELECT part_id, call_id, ordinal, tool, status, exit_code, input FROM calls"
        ).fetchall()]
        aborted = {int(o) for (o,) in con.execute(
            "SELECT ordinal FROM messages WHERE error = 'MessageAbortedError'").fetchall()}
        compactions = con.execute(
            "SELECT count(*) FROM other_events WHERE kind = 'compaction'").fetchone()
    finally:
        store.close()
    return Stored(prompts, signals, calls, aborted, int(compactions[0] if compactions else 0),
                  set(), set())


def _family(command: str) -> str:
    words = [w for w in re.split(r"\s+", command.strip()) if w and not w.startswith("-")
             and "=" not in w[:1]]
    return " ".join(words[:2]).lower()


def check(r: Rollout, s: Stored) -> list[dict[str, Any]]:
    gaps: list[dict[str, Any]] = []

    def gap(line: int, kind: str, detail: str) -> None:
        gaps.append({"file": r.path.name, "line": line, "kind": kind,
                     "detail": " ".join(detail.split())[:120]})

    # user messages: the real prompt, the injected context, the event_msg twins
    real = 0
    for line, o, text, injected in r.users:
        got = s.prompts.get(o)
        if got is None:
            gap(line, "prompt-missing", text[:60])
            continue
        if injected and got[0] == "text":
            gap(line, "injected-as-prompt", text[:60])
        elif not injected and got[0] != "text":
            gap(line, "prompt-as-injected", f"{got[0]}: {text[:50]}")
        real += not injected
    typed = [t for _, _, t, inj in r.users if not inj]
    stored_typed = sum(1 for src, _ in s.prompts.values() if src == "text")
    if stored_typed > real:
        gap(0, "prompt-duplicated", f"{stored_typed} stored as typed for {real} typed")
    for line, text in r.event_prompts:
        if not any(text.strip()[:200] in t or t.strip()[:200] in text for t in typed):
            if not any(text.strip()[:80] in t for _, t in s.prompts.values()):
                gap(line, "prompt-missing", f"event_msg only: {text[:50]}")
    # calls: the signals the file says they have
    by_id = {str(c["part_id"] if c["part_id"] is not None else c["call_id"]): c
             for c in s.calls}
    for cid, c in r.calls.items():
        at = c.out_ordinal if c.out_ordinal is not None else c.ordinal
        have = set(s.signals.get(at, ())) | set(s.signals.get(c.ordinal, ()))
        if c.name == "exec" and isinstance(c.args, str) and "tools." in c.args:
            n = len(re.findall(r"\btools\.\w+\s*\(", c.args))
            subs = [k for k in by_id if k.startswith(f"{cid}#")]
            if len(subs) < n:
                gap(c.line, "cell-call-missing", f"{n} calls in the cell, {len(subs)} stored")
            continue
        for sig in sorted(c.expected() - have):
            if sig == "exit_code" and "rejected_by_user" in have:
                continue
            gap(c.out_line or c.line, "signal-missed", f"{sig}: {c.name} {c.command[:50]}")
        if c.mcp_end is not None and c.mcp_failed and not have & {"tool_error",
                                                                   "rejected_by_user"}:
            gap(c.line, "mcp-error-missed", f"{c.name}: {str(c.mcp_end.get('result'))[:60]}")
        if c.name == "update_plan":
            row = by_id.get(cid)
            steps = (c.args or {}).get("plan") if isinstance(c.args, dict) else None
            todos = json.loads(row["input"]).get("todos") if row and row["input"] else None
            if row is None or row["tool"] != "todowrite" or not isinstance(todos, list) or (
                    isinstance(steps, list) and len(todos) != len(steps)):
                gap(c.line, "plan-missing", str(steps)[:60])
        if c.out_line is None and c.end is None and at not in s.open_ordinals and \
                c.name != "exec":
            gap(c.line, "open-not-reported", f"{c.name} {c.command[:50]}")
    for line, p in r.mcp_only:
        inv = p.get("invocation") or {}
        if not any(c["tool"] and str(inv.get("tool")) in c["tool"] for c in s.calls):
            gap(line, "mcp-call-missing", f"mcp {inv.get('server')}/{inv.get('tool')} "
                f"({'failed' if Call('', 0, 0, '', None, mcp_end=p).mcp_failed else 'ok'})")
    searches = sum(1 for c in s.calls if c["tool"] == "websearch")
    if searches < len(r.searches):
        gap(r.searches[0] if r.searches else 0, "websearch-missing",
            f"{len(r.searches)} web_search_call, {searches} stored")
    # aborted turns: the step cut off, or the agent's own record of it
    for line, before in r.aborts:
        if line in r.empty_aborts:
            continue  # aborted before any reply or call: nothing of the turn to mark
        marked = any(before - 2 <= o <= before + 2 for o in s.aborted)
        # (Codex 0.120+ writes the ``<turn_aborted>`` message before the event)
        record = any(before - 1 <= o <= before + 2 and t.lstrip().startswith("<turn_aborted>")
                     for o, (_, t) in s.prompts.items())
        if not marked and not record:
            gap(line, "abort-missed", f"after ordinal {before}")
    if s.compactions < len(r.compactions):
        gap(r.compactions[0], "compaction-missing",
            f"{len(r.compactions)} compacted, {s.compactions} stored")
    # a failing run that ends its line of work in the turn: is it in a dead end?
    calls = sorted(r.calls.values(), key=lambda c: c.line)
    for i, c in enumerate(calls):
        if c.name in ("write_stdin", "update_plan", "exec"):
            continue
        failed = c.expected() & {"exit_code", "tool_error", "rejected_by_user", "sandbox_denied",
                              "timed_out", "interrupted"}
        if not failed:
            continue
        if failed <= {"exit_code", "sandbox_denied"} and _PROBE.match(c.command.strip()):
            continue  # (a probe in a sandbox whose shell profile prints EPERM noise too)
        if "|| true" in c.command or "; echo" in c.command:
            continue
        fam = _family(c.command) if c.command else c.name
        later = [d for d in calls[i + 1:] if d.turn == c.turn and (
            (_family(d.command) if d.command else d.name) == fam)]
        if any(not (d.expected() & {"exit_code", "tool_error", "rejected_by_user",
                                    "sandbox_denied", "timed_out", "interrupted"})
               for d in later):
            continue  # fixed later in the turn: a slip, no dead end
        if later:
            continue  # the last run of the chain is judged at its own place
        # reported when a dead end holds this run or another run of its program in the turn
        where = {o for d in calls if d.turn == c.turn and (
            (_family(d.command) if d.command else d.name) == fam)
            for o in (d.out_ordinal or d.ordinal,)}  # (where its result events are)
        if not where & s.deadend_ordinals:
            gap(c.out_line or c.line, "failing-end-unreported",
                f"{'/'.join(sorted(failed))}: {c.name} {c.command[:50]}")
    return gaps


FAILURE_STRUCTURES = (
    "exit code != 0", "apply_patch failed", "error event",
    "stream_error event", "turn_aborted", "escalation requested", "sandbox denied",
    "call without output", "code cell threw", "plan step dropped", "plan step left open",
    "spawn_agent/wait errored")
"""What Codex writes when work fails, as the census (:func:`census`) counts it."""

_FAILED_SIGNALS = {"exit_code", "tool_error", "rejected_by_user", "sandbox_denied", "timed_out",
                   "interrupted"}


def _raw_events(path: Path) -> dict[str, int]:
    """Counts of the failure records that are no call: error events, aborted turns, plan
    steps dropped or left open, collab calls that report an errored agent."""
    out = dict.fromkeys(("error event", "stream_error event", "plan step dropped",
                         "plan step left open", "spawn_agent/wait errored",
                         "code cell threw"), 0)
    plan: dict[str, str] = {}
    collab: dict[str, str] = {}
    for _, t, p in records(path):
        pt = p.get("type")
        if t == "event_msg" and pt in ("error", "stream_error"):
            out[f"{pt} event"] += 1
        elif t == "response_item" and pt == "function_call" and p.get("name") == "update_plan":
            try:
                steps = json.loads(p.get("arguments") or "{}").get("plan") or []
            except (ValueError, AttributeError):
                steps = []
            now = {str(x.get("step")): str(x.get("status")) for x in steps
                   if isinstance(x, dict)}
            out["plan step dropped"] += sum(1 for k, v in plan.items()
                                            if v in ("pending", "in_progress") and k not in now)
            plan = now
        elif t == "response_item" and pt in ("function_call", "custom_tool_call") and \
                p.get("name") in ("spawn_agent", "wait", "wait_agent", "send_input"):
            collab[str(p.get("call_id"))] = str(p.get("name"))
        elif t == "response_item" and pt in ("function_call_output",
                                             "custom_tool_call_output"):
            body = _text(p.get("output"))
            if str(p.get("call_id")) in collab and re.search(r'"errored"\s*:|"not_found"',
                                                              body[:2000]):
                out["spawn_agent/wait errored"] += 1
    out["plan step left open"] = sum(1 for v in plan.values() if v in ("pending",
                                                                         "in_progress"))
    return out


def census(path: Path, db: Path, deadends: list[dict[str, Any]],
           open_: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Per failure structure of the rollout: how many it holds (``n``), how many carry
    their structural signal in logkb (``mapped``), and what became of each failing call:
    in a dead end's evidence (``dead end``, the run or a later run of its program in the
    turn), fixed later in the turn (``slip``), a negative probe or a run that hid its exit
    (``probe``), an open question (``open``), or none of these (``none``)."""
    r = read_rollout(path)
    s = read_stored(db)
    dead = {int(e["ordinal"]) for d in deadends for e in d.get("evidence", [])
            if isinstance(e, dict) and isinstance(e.get("ordinal"), int)}
    opened = {int(q["ordinal"]) for q in open_ if isinstance(q.get("ordinal"), int)}
    table: dict[str, dict[str, int]] = {k: {"n": 0} for k in FAILURE_STRUCTURES}

    def add(kind: str, key: str) -> None:
        table[kind][key] = table[kind].get(key, 0) + 1

    calls = sorted(r.calls.values(), key=lambda c: c.line)
    for i, c in enumerate(calls):
        want = c.expected()
        at = c.out_ordinal if c.out_ordinal is not None else c.ordinal
        have = set(s.signals.get(at, ())) | set(s.signals.get(c.ordinal, ()))
        kinds = []
        if c.name not in ("apply_patch", "write_stdin") and c.exit not in (None, 0):
            # (exec_command_end's exit_code, else the output's ``Exit code: N``)
            kinds.append(("exit code != 0", {"exit_code", "interrupted", "rejected_by_user"}))
        if c.name == "apply_patch" and "tool_error" in want:
            # (patch_apply_end success false, or the output's verification failure)
            kinds.append(("apply_patch failed", {"tool_error"}))
        if "escalation_requested" in want:
            kinds.append(("escalation requested", {"escalation_requested"}))
        if "sandbox_denied" in want:
            kinds.append(("sandbox denied", {"sandbox_denied"}))
        if "no_result" in want:
            kinds.append(("call without output", {"no_result"}))
        if c.name == "exec" and isinstance(c.args, str) and "tools." in c.args and \
                re.match(r"\s*(?:Script error|Error|Uncaught|TypeError|ReferenceError)",
                         c.output):
            kinds.append(("code cell threw", {"tool_error", "exit_code"}))
        fam = _family(c.command) if c.command else c.name
        same = [d for d in calls if d.turn == c.turn and
                (_family(d.command) if d.command else d.name) == fam]
        later = [d for d in calls[i + 1:] if d in same]
        for kind, sig in kinds:
            add(kind, "n")
            if have & sig:
                add(kind, "mapped")
            if kind in ("escalation requested",) and not (want & _FAILED_SIGNALS):
                continue  # a request that ran: no failure to follow
            if at in opened or c.ordinal in opened:
                add(kind, "open")
            elif at in dead or c.ordinal in dead:
                add(kind, "dead end")
            elif any(not (d.expected() & _FAILED_SIGNALS) for d in later):
                add(kind, "slip")
            elif any((d.out_ordinal or d.ordinal) in dead for d in same):
                add(kind, "dead end")  # (its program's dead end in the turn holds it)
            elif _PROBE.match(c.command.strip()) or "|| true" in c.command:
                add(kind, "probe")
            else:
                add(kind, "none")
                add(kind, f"none@L{c.out_line or c.line}")
    for line, before in r.aborts:
        add("turn_aborted", "n")
        if any(before - 2 <= o <= before + 2 for o in s.aborted) or any(
                before - 1 <= o <= before + 2 and t.lstrip().startswith("<turn_aborted>")
                for o, (_, t) in s.prompts.items()):
            add("turn_aborted", "mapped")
        if line in r.empty_aborts:
            add("turn_aborted", "before any item")
        elif any(before - 2 <= o <= before + 3 for o in dead):
            add("turn_aborted", "dead end")
        else:
            add("turn_aborted", "none")
            add("turn_aborted", f"none@L{line}")
    for k, v in _raw_events(path).items():
        if k != "code cell threw":
            table[k]["n"] += v
    return table


def audit_structures(path: Path, db: Path, deadends: list[dict[str, Any]],
                     open_: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The structure gaps of one rollout, given its scratch knowledge base and what logkb
    reported (``deadends --json``, ``untested --json``)."""
    r = read_rollout(path)
    s = read_stored(db)
    s.deadend_ordinals = {int(e["ordinal"]) for d in deadends for e in d.get("evidence", [])
                          if isinstance(e, dict) and isinstance(e.get("ordinal"), int)}
    s.open_ordinals = {int(q["ordinal"]) for q in open_ if isinstance(q.get("ordinal"), int)}
    return check(r, s)


def counts(path: Path) -> dict[str, int]:
    """How many of each structure the rollout holds (the audit's denominator)."""
    r = read_rollout(path)
    out = {"prompts typed": sum(1 for u in r.users if not u[3]),
           "injected user messages": sum(1 for u in r.users if u[3]),
           "event_msg user_message": len(r.event_prompts),
           "calls": len(r.calls), "turn_aborted": len(r.aborts),
           "web_search_call": len(r.searches), "compacted": len(r.compactions)}
    sig: dict[str, int] = {}
    for c in r.calls.values():
        for x in c.expected():
            sig[x] = sig.get(x, 0) + 1
    out.update({f"calls {k}": v for k, v in sorted(sig.items())})
    out["update_plan"] = sum(1 for c in r.calls.values() if c.name == "update_plan")
    out["mcp ends"] = sum(1 for c in r.calls.values() if c.mcp_end) + len(r.mcp_only)
    out["code-mode cells"] = sum(1 for c in r.calls.values()
                                 if c.name == "exec" and isinstance(c.args, str)
                                 and "tools." in c.args)
    return out
