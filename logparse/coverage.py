"""The coverage matrix of structural signals × agents: for every agent logkb reads and
every signal of issue 22's vocabulary, where the agent writes it (which record, which
field), the rule rows of :mod:`logparse.structural` that map it, and an example of that
agent's record that the rows read; or, in :data:`NEVER`, why the agent never writes it,
with the agent's source that shows so.

The records were taken from the agents' public source (openai/codex ``codex-rs/protocol``,
sst/opencode ``session/message-v2.ts`` and ``tool/``, google-gemini/gemini-cli
``chatRecordingTypes.ts`` and ``tools/``, badlogic/pi-mono ``packages/ai`` and
``coding-agent``) and from Claude Code's own records in the shared transcripts.
``tests/logparse/test_coverage.py`` checks every cell; ``python -m bench signals`` prints
the matrix.

Pure data: no database, no UI.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from logparse.structural import (
    AGENTS,
    RULES,
    TURN_MARKS,
    TURN_RULES,
    CallFacts,
    MessageFacts,
    call_signals,
    message_signals,
    turn_mark,
)

VOCABULARY = (
    "exit_code", "tool_error", "api_error", "input_invalid", "interrupted",
    "rejected_by_user", "sandbox_denied", "escalation_requested", "timed_out", "truncated",
    "no_result", "aborted_turn", "waiting_for_input", "compacted")
"""Issue 22's structural signals (``subagent_failed`` is another branch's)."""

NO_REAL_LINE = "(no real line yet)"
"""How a row or a cell whose example was built from the agent's source is marked."""


@dataclass(frozen=True)
class Cell:
    """A signal an agent writes, and the rows that map it."""

    agent: str
    signal: str
    record: str
    """Where the agent writes it (record type, field, value)."""
    rules: tuple[str, ...]
    """Names of rows of :data:`logparse.structural.RULES`, ``TURN_RULES`` or
    ``TURN_MARKS`` that set the signal from it."""
    example: CallFacts | MessageFacts | str | None = None
    """The agent's own record as the rows see it (a call, a message, a user record's
    text); ``None``: the first rule's example, read as this agent's."""
    source: str = ""
    """Where :attr:`example` comes from (a real transcript line, or ``(no real line
    yet)`` and the agent's source file)."""
    since: str = ""
    """The branch that mapped it, when the matrix was first built with it a gap."""


@dataclass(frozen=True)
class Never:
    """A signal an agent never writes, and the agent's source that shows why."""

    agent: str
    signal: str
    why: str
    source: str


_OC = "sst/opencode packages/opencode/src"
_CX = "openai/codex codex-rs"
_GM = "google-gemini/gemini-cli packages/core/src"
_PI = "badlogic/pi-mono packages"
_AG = "Antigravity trajectory export (logparse.antigravity)"

CELLS: tuple[Cell, ...] = (
    # ------------------------------------------------------------------ opencode
    Cell("opencode", "exit_code", "tool part state.metadata.exit (bash)", ("nonzero-exit",)),
    Cell("opencode", "tool_error", "tool part state.status error, state.error",
         ("opencode-tool-error",), since="xsig"),
    Cell("opencode", "api_error", "assistant info.error APIError / ProviderAuthError / "
         "UnknownError (session/message-v2.ts)", ("api-error",),
         MessageFacts("assistant", error="APIError: Insufficient balance", agent="opencode"),
         f"{NO_REAL_LINE} {_OC}/session/message-v2.ts (APIError)"),
    Cell("opencode", "input_invalid", "tool state.error 'The X tool was called with invalid "
         "arguments' (tool/tool.ts)", ("opencode-invalid-args",), since="xsig"),
    Cell("opencode", "interrupted", "tool state.error 'Tool execution aborted'",
         ("opencode-tool-aborted",), since="xsig"),
    Cell("opencode", "rejected_by_user", "tool state.error 'The user rejected permission'",
         ("opencode-rejected",)),
    Cell("opencode", "timed_out", "bash output <shell_metadata> 'shell tool terminated "
         "command after exceeding timeout' (tool/bash.ts)", ("opencode-timeout",),
         since="xsig"),
    Cell("opencode", "truncated", "tool output '...output truncated...' (tool/truncation); "
         "info.finish length; info.error MessageOutputLengthError",
         ("opencode-truncated", "finish-length", "opencode-output-length")),
    Cell("opencode", "no_result", "tool state.status pending/running at export",
         ("no-result",)),
    Cell("opencode", "aborted_turn", "assistant info.error MessageAbortedError", ("aborted",)),
    Cell("opencode", "waiting_for_input", "bash timeout note after a prompt",
         ("waiting-for-input",), since="xsig"),
    Cell("opencode", "compacted", "compaction part; assistant summary: true", ("compaction",),
         MessageFacts("assistant", compacted=True, agent="opencode"),
         "labelled/k1.lib-bootstrap__session-export.json (compaction part)"),
    # ------------------------------------------------------------------ Claude Code
    Cell("claude-code", "exit_code", "Bash tool_result 'Exit code N' (is_error)",
         ("nonzero-exit",)),
    Cell("claude-code", "tool_error", "tool_result content <tool_use_error>",
         ("claude-tool-error",)),
    Cell("claude-code", "api_error", "assistant isApiErrorMessage + error (rate_limit, "
         "authentication_failed, billing_error, ...); system subtype api_error",
         ("api-error",)),
    Cell("claude-code", "input_invalid", "<tool_use_error>InputValidationError",
         ("claude-input-invalid",)),
    Cell("claude-code", "interrupted", "tool_result '[Request interrupted by user for tool "
         "use]', toolUseResult.interrupted", ("claude-interrupted",)),
    Cell("claude-code", "rejected_by_user", "tool_result 'The user doesn't want to proceed'; "
         "toolDenialKind / permissionDecision reject (2.1.332)",
         ("claude-rejected", "claude-permission-denied")),
    Cell("claude-code", "sandbox_denied", "Bash output <sandbox_violations>",
         ("claude-sandbox-violation",), since="xsig"),
    Cell("claude-code", "escalation_requested", "Bash input dangerouslyDisableSandbox: true",
         ("claude-escalation",), since="xsig"),
    Cell("claude-code", "timed_out", "Bash tool_result '[Exit code 143\\n]Command timed out "
         "after'", ("claude-bash-timeout", "timed-out")),
    Cell("claude-code", "truncated", "tool_result <persisted-output>; message.stop_reason "
         "max_tokens", ("claude-persisted-output", "claude-max-tokens"), since="xsig"),
    Cell("claude-code", "no_result", "tool_use with no tool_result", ("no-result",),
         CallFacts("claude-code", "bash", "interrupted", command="npm run dev"),
         f"{NO_REAL_LINE} Claude Code tool_use whose tool_result never came"),
    Cell("claude-code", "aborted_turn", "user text '[Request interrupted by user]'",
         ("claude-request-interrupted",)),
    Cell("claude-code", "waiting_for_input", "Bash timeout after a prompt",
         ("waiting-for-input",),
         CallFacts("claude-code", "bash", "error", error="Command timed out after 2m 0.0s",
                   output="Need to install the following packages:\ncreate-vite@6.1.1\n"
                          "Ok to proceed? (y) ", command="npm create vite@latest web"),
         f"{NO_REAL_LINE} Claude Code Bash timeout of an interactive scaffolder",
         since="xsig"),
    Cell("claude-code", "compacted", "system subtype compact_boundary", ("compaction",)),
    # ------------------------------------------------------------------ Codex
    Cell("codex", "exit_code", "exec_command_end exit_code (0.17x: item_completed "
         "CommandExecution exit_code, also a code cell's commands); output 'Process exited "
         "with code N'", ("nonzero-exit",)),
    Cell("codex", "tool_error", "output 'execution error'; apply_patch verification "
         "failed; patch_apply_end success false; mcp_tool_call_end result Err (0.17x: "
         "item_completed McpToolCall failed); 'approval "
         "policy is never; reject command' (a code cell's 'Script failed')",
         ("codex-execution-error", "codex-patch-failed", "codex-patch-apply-failed",
          "codex-mcp-error", "codex-policy-rejected")),
    Cell("codex", "api_error", "event_msg error {message, codex_error_info: "
         "usage_limit_exceeded, unauthorized, ...} (protocol.rs ErrorEvent)", ("api-error",),
         MessageFacts("assistant", error=(
             "APIError: You've hit your usage limit. Upgrade to Pro or try again later."),
             agent="codex"),
         f"{NO_REAL_LINE} {_CX}/protocol/src/protocol.rs (EventMsg::Error, "
         "CodexErrorInfo::UsageLimitExceeded)", since="xsig"),
    Cell("codex", "interrupted", "function_call_output 'aborted by user after Ns'",
         ("codex-aborted-by-user",)),
    Cell("codex", "rejected_by_user", "output 'exec command rejected by user' / 'patch "
         "rejected by user' (approval ReviewDecision denied)",
         ("codex-approval-denied", "codex-patch-denied")),
    Cell("codex", "sandbox_denied", "output of a run the sandbox refused (read-only file "
         "system, no network)", ("codex-sandbox-refused", "sandbox-network")),
    Cell("codex", "escalation_requested", "function_call arguments sandbox_permissions "
         "require_escalated (with_escalated_permissions)", ("codex-escalation",)),
    Cell("codex", "timed_out", "exec_command_end exit_code 124 / 'command timed out'",
         ("timed-out",),
         CallFacts("codex", "bash", "completed", 124, output="command timed out after 10000 "
                   "milliseconds\n", command="npm test"),
         f"{NO_REAL_LINE} {_CX}/core/src/exec.rs (a timed-out run exits 124)"),
    Cell("codex", "truncated", "output 'Total output lines: N' (the token budget's cut)",
         ("codex-truncated",)),
    Cell("codex", "no_result", "function_call with no function_call_output",
         ("no-result",)),
    Cell("codex", "aborted_turn", "event_msg turn_aborted {reason: interrupted}; user "
         "<turn_aborted>", ("codex-aborted-turn", "codex-turn-aborted")),
    Cell("codex", "waiting_for_input", "exec returned 'Process running with session ID' "
         "at a prompt", ("waiting-for-input",),
         CallFacts("codex", "bash", "completed", None, output=(
             "Need to install the following packages:\ncreate-next-app@15.0.3\n"
             "Ok to proceed? (y) "), command="npx create-next-app@latest web"),
         f"{NO_REAL_LINE} {_CX} unified exec: a run still waiting when its call returned",
         since="xsig"),
    Cell("codex", "compacted", "compacted record; event_msg context_compacted",
         ("compaction",),
         MessageFacts("assistant", compacted=True, agent="codex"),
         "labelled/soulpass__codex-session.jsonl (event_msg context_compacted)"),
    # ------------------------------------------------------------------ Gemini CLI
    Cell("gemini-cli", "exit_code", "run_shell_command result 'Exit Code: N'",
         ("nonzero-exit",)),
    Cell("gemini-cli", "tool_error", "toolCalls[].status error, functionResponse error",
         ("gemini-tool-error",)),
    Cell("gemini-cli", "api_error", "record type error '[API Error: ...]'", ("api-error",),
         MessageFacts("assistant", error=(
             "APIError: [API Error: You have exhausted your capacity on this model. Your "
             "quota will reset after 2h.]"), agent="gemini-cli"),
         f"{NO_REAL_LINE} {_GM}/services/chatRecordingTypes.ts (type error)"),
    Cell("gemini-cli", "input_invalid", "functionResponse error 'Invalid parameters "
         "provided' (ToolErrorType.INVALID_TOOL_PARAMS)", ("gemini-input-invalid",),
         since="xsig"),
    Cell("gemini-cli", "interrupted", "toolCalls[].status cancelled while it ran",
         ("gemini-cancelled",)),
    Cell("gemini-cli", "rejected_by_user", "toolCalls[].status cancelled 'User denied'",
         ("gemini-denied",)),
    Cell("gemini-cli", "timed_out", "run_shell_command error 'Command timed out'",
         ("timed-out",),
         CallFacts("gemini-cli", "bash", "error", error="Command timed out after 300000ms"),
         f"{NO_REAL_LINE} {_GM}/tools/shell.ts (a run its timeout cut)"),
    Cell("gemini-cli", "no_result", "toolCalls[] without status or result", ("no-result",),
         CallFacts("gemini-cli", "bash", "interrupted", command="./gradlew build"),
         f"{NO_REAL_LINE} {_GM}/services/chatRecordingTypes.ts (ToolCallRecord.result "
         "optional)"),
    Cell("gemini-cli", "aborted_turn", "info record 'Request cancelled.'", ("aborted",),
         MessageFacts("assistant", error="MessageAbortedError: Request cancelled.",
                      agent="gemini-cli"),
         f"{NO_REAL_LINE} gemini-cli packages/cli useGeminiStream 'Request cancelled.'"),
    Cell("gemini-cli", "waiting_for_input", "shell timeout after a prompt",
         ("waiting-for-input",),
         CallFacts("gemini-cli", "bash", "error", error="Command timed out after 300000ms",
                   output="Ok to proceed? (y) ", command="npx create-expo-app"),
         f"{NO_REAL_LINE} {_GM}/tools/shell.ts", since="xsig"),
    # ------------------------------------------------------------------ pi
    Cell("pi", "exit_code", "bash toolResult 'Command exited with code N'",
         ("nonzero-exit",)),
    Cell("pi", "tool_error", "toolResult isError", ("pi-tool-error",)),
    Cell("pi", "api_error", "assistant stopReason error, errorMessage", ("api-error",),
         MessageFacts("assistant", error="APIError: 529 overloaded_error", agent="pi"),
         f"{NO_REAL_LINE} {_PI}/ai/src/types.ts (StopReason error, errorMessage)"),
    Cell("pi", "input_invalid", "toolResult isError 'Validation failed for tool'",
         ("pi-input-invalid",), since="xsig"),
    Cell("pi", "interrupted", "bash toolResult 'Command aborted'", ("pi-aborted",)),
    Cell("pi", "timed_out", "bash toolResult 'Command timed out after N seconds'",
         ("timed-out",),
         CallFacts("pi", "bash", "error", error="Command timed out after 120 seconds"),
         f"{NO_REAL_LINE} {_PI}/coding-agent/src/core/tools/bash.ts"),
    Cell("pi", "truncated", "bash output '[Showing lines a-b of N. Full output: ...]'; "
         "stopReason length", ("pi-truncated", "pi-length"), since="xsig"),
    Cell("pi", "no_result", "toolCall with no toolResult", ("no-result",),
         CallFacts("pi", "bash", "interrupted", command="npm run dev"),
         f"{NO_REAL_LINE} {_PI}/agent: a toolCall the session ends before answering"),
    Cell("pi", "aborted_turn", "assistant stopReason aborted", ("aborted",),
         MessageFacts("assistant", error="MessageAbortedError: aborted", agent="pi"),
         f"{NO_REAL_LINE} {_PI}/ai/src/types.ts (StopReason aborted)"),
    Cell("pi", "waiting_for_input", "bash timeout after a prompt", ("waiting-for-input",),
         CallFacts("pi", "bash", "error", error="Command timed out after 120 seconds",
                   output="Ok to proceed? (y) ", command="npx sv create web"),
         f"{NO_REAL_LINE} {_PI}/coding-agent/src/core/tools/bash.ts", since="xsig"),
    Cell("pi", "compacted", "entry type compaction; compactionSummary message",
         ("compaction",), MessageFacts("assistant", compacted=True, agent="pi"),
         f"{NO_REAL_LINE} {_PI}/coding-agent session format 3 (compaction entry)"),
    # ------------------------------------------------------------------ Antigravity
    Cell("antigravity", "exit_code", "RUN_COMMAND 'The command failed with exit code: N'",
         ("nonzero-exit",)),
    Cell("antigravity", "tool_error", "tool step status ERROR 'Encountered error in step "
         "execution'", ("antigravity-step-error",)),
    Cell("antigravity", "input_invalid", "ERROR_MESSAGE 'problem parsing the tool call'",
         ("antigravity-invalid-call", "tool-call-refused")),
    Cell("antigravity", "no_result", "a call no tool step answers", ("no-result",),
         CallFacts("antigravity", "bash", "interrupted", command="npm run build"),
         f"{NO_REAL_LINE} {_AG}: a call still waiting when the user speaks"),
    Cell("antigravity", "waiting_for_input", "RUN_COMMAND moved to the background at a "
         "prompt", ("waiting-for-input",),
         CallFacts("antigravity", "bash", "error", error="Command timed out",
                   output="Ok to proceed? (y) ", command="npx create-next-app@latest"),
         f"{NO_REAL_LINE} {_AG}", since="xsig"),
    Cell("antigravity", "compacted", "CHECKPOINT step (a compaction summary)",
         ("compaction",), MessageFacts("system", compacted=True, agent="antigravity"),
         f"{NO_REAL_LINE} {_AG} (CHECKPOINT)"),
)


NEVER: tuple[Never, ...] = (
    Never("opencode", "sandbox_denied", "opencode runs tools without a sandbox; what it "
          "refuses is a permission prompt (rejected_by_user)",
          f"{_OC}/permission/index.ts (ask/allow/deny, no sandbox)"),
    Never("opencode", "escalation_requested", "no sandbox to run outside of",
          f"{_OC}/tool/bash.ts (no sandbox parameter)"),
    Never("codex", "input_invalid", "Codex answers a call it cannot parse with the "
          "function_call_output text the model reads ('failed to parse function "
          "arguments'): a tool_error row reads it",
          f"{_CX}/core/src/tools/router.rs (FunctionCallError::RespondToModel)"),
    Never("gemini-cli", "sandbox_denied", "its sandbox (seatbelt/docker) wraps the whole "
          "CLI: a refused run is an ordinary failed command, no record of its own",
          f"{_GM}/../cli/src/utils/sandbox.ts"),
    Never("gemini-cli", "escalation_requested", "no per-call request to leave the sandbox",
          f"{_GM}/tools/shell.ts (no sandbox parameter)"),
    Never("gemini-cli", "truncated", "ToolCallRecord keeps the result as the model got it; "
          "no cut note, no finish reason is recorded",
          f"{_GM}/services/chatRecordingTypes.ts (no finishReason field)"),
    Never("gemini-cli", "compacted", "chat compression rewrites the history it sends, the "
          "recording has no record type for it",
          f"{_GM}/services/chatRecordingTypes.ts (types user, gemini, info, error, warning)"),
    Never("pi", "rejected_by_user", "pi has no permission prompts: every call runs",
          f"{_PI}/coding-agent/README.md (no permission system)"),
    Never("pi", "sandbox_denied", "pi runs tools without a sandbox",
          f"{_PI}/coding-agent/src/core/tools/bash.ts"),
    Never("pi", "escalation_requested", "no sandbox to run outside of",
          f"{_PI}/coding-agent/src/core/tools/bash.ts"),
    Never("antigravity", "api_error", "the export holds the trajectory's steps, not the "
          "model calls: a provider error is no step type", _AG),
    Never("antigravity", "interrupted", "a cancelled step is not exported as a status of "
          "its own", f"{_AG} (statuses DONE, ERROR, RUNNING)"),
    Never("antigravity", "rejected_by_user", "the export holds no approval records", _AG),
    Never("antigravity", "sandbox_denied", "no sandbox record in the export", _AG),
    Never("antigravity", "escalation_requested", "no sandbox record in the export", _AG),
    Never("antigravity", "timed_out", "a long run is moved to the background (RUNNING), "
          "not cut", f"{_AG} (status RUNNING)"),
    Never("antigravity", "truncated", "the export cuts long fields itself "
          "(truncated_fields), not the tool: the agent saw the whole output",
          f"{_AG} (truncated_fields)"),
    Never("antigravity", "aborted_turn", "no record of a stopped turn in the export", _AG),
)


def _rule(name: str) -> object | None:
    for table in (RULES, TURN_RULES, TURN_MARKS):
        for r in table:
            if r.name == name:
                return r
    return None


def cell_example(c: Cell) -> tuple[CallFacts | MessageFacts | str, str]:
    """The example of a cell and where it comes from: its own, else its first rule's read
    as this agent's record."""
    if c.example is not None:
        return c.example, c.source
    r = _rule(c.rules[0])
    ex = getattr(r, "example", None)
    src = str(getattr(r, "source", ""))
    if isinstance(ex, CallFacts) and ex.agent != c.agent:
        return dataclasses.replace(ex, agent=c.agent), src
    if isinstance(ex, MessageFacts) and ex.agent != c.agent:
        return dataclasses.replace(ex, agent=c.agent), src
    assert ex is not None, c
    return ex, src


def signals_of(c: Cell) -> tuple[str, ...]:
    """What the rows say the cell's example is."""
    ex, _ = cell_example(c)
    if isinstance(ex, CallFacts):
        return call_signals(ex)
    if isinstance(ex, MessageFacts):
        return message_signals(ex)
    mark = turn_mark(ex)
    return (mark.signal,) if mark is not None and c.agent in mark.agents else ()


def cell_problem(c: Cell) -> str | None:
    """Why a cell is not mapped with an example, else ``None``."""
    for name in c.rules:
        r = _rule(name)
        if r is None:
            return f"no rule {name}"
        if c.agent not in getattr(r, "agents", ()):
            return f"rule {name} is not {c.agent}'s"
        if getattr(r, "signal", None) != c.signal:
            return f"rule {name} sets {getattr(r, 'signal', None)}"
    if c.signal not in signals_of(c):
        return "its example does not give the signal"
    return None


def status(c: Cell) -> str:
    """``R`` mapped with a real line of this agent, ``r`` with another agent's real line
    (a rule all agents share), ``s`` with an example built from the agent's source."""
    ex, src = cell_example(c)
    if src.startswith(NO_REAL_LINE):
        return "s"
    own = ex.agent if isinstance(ex, (CallFacts, MessageFacts)) else c.agent
    rule = _rule(c.rules[0])
    real_agent = c.example is not None or getattr(getattr(rule, "example", None), "agent",
                                                    c.agent) == c.agent
    return "R" if own == c.agent and real_agent else "r"


def matrix() -> dict[tuple[str, str], str]:
    """``(agent, signal)`` → ``R``, ``r``, ``s`` (mapped), ``-`` (never written), ``GAP``."""
    out: dict[tuple[str, str], str] = {}
    cells = {(c.agent, c.signal): c for c in CELLS}
    never = {(n.agent, n.signal) for n in NEVER}
    for a in AGENTS:
        for s in VOCABULARY:
            c = cells.get((a, s))
            if c is not None and cell_problem(c) is None:
                out[(a, s)] = status(c)
            elif (a, s) in never:
                out[(a, s)] = "-"
            else:
                out[(a, s)] = "GAP"
    return out


def gaps_before(branch: str = "xsig") -> int:
    """Gaps the matrix had before ``branch`` mapped its cells."""
    m = matrix()
    return sum(v == "GAP" for v in m.values()) + sum(
        1 for c in CELLS if c.since == branch and m[(c.agent, c.signal)] != "GAP")
