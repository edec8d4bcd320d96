"""Structural signals of a tool call: what the agent's own fields say happened to it.

Every reader maps its records to the same call fields (``status``, ``exit_code``,
``error``, ``output``, the call's input); the rules here read those fields, never the
agent's prose, and name what happened in one small vocabulary (:data:`SIGNALS`).  The
rules are rows of :data:`RULES`, each with the agent it comes from and an example taken
from a real transcript line (trimmed); ``tests/logparse/test_structural.py`` walks them.
What a whole reply ended with (a provider error, a cut, an abort, a compaction) is read
the same way by :data:`TURN_RULES` from the fields every reader fills as opencode does;
:mod:`logparse.coverage` says, per agent, which record each signal comes from.

:func:`failure_line` picks the concrete line a failed run failed with, for runs the
error-signature rules (:mod:`logparse.signals`) have no signature for.

Pure: no database, no UI.  A rule that raises is a bug a test shows; nothing here
catches it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from logparse.errorline import specific_line

SIGNALS = (
    "exit_code",             # a non-zero exit code
    "tool_error",            # the tool refused or failed the call (Claude ``<tool_use_error>``)
    "input_invalid",         # the call's input did not validate
    "rejected_by_user",      # the user said no to the call (a permission prompt)
    "interrupted",           # the user stopped the call while it ran
    "sandbox_denied",        # the sandbox refused the call (no network, no access)
    "escalation_requested",  # the call asked to run outside the sandbox
    "timed_out",             # the tool's timeout cut the call
    "no_result",             # the call never got a result (the transcript ends first)
    "no_output",             # a run that always prints came back empty: its output was lost
    "error_body",            # an HTTP/JSON-RPC answer whose body is an error envelope
    "still_running",         # the call returned while its process still ran (Codex exec)
    "truncated",             # the tool cut the output the agent saw
    "output_error",          # a clean exit whose output says the tool or library failed
    "stderr_mixed",          # stderr merged into stdout ahead of the data a run printed
    "subagent_failed",       # a delegation whose sub-agent errored, was stopped or never answered
    "waiting_for_input",     # the run was cut while its program sat at a prompt
)


AGENTS = ("opencode", "claude-code", "codex", "gemini-cli", "pi", "antigravity")
"""The agents whose sessions logkb reads (a session's ``agent``)."""
_ALL = AGENTS


@dataclass(frozen=True)
class CallFacts:
    """The fields of one call the rules read (as the readers store them)."""

    agent: str
    """The session's ``agent`` (one of :data:`AGENTS`)."""
    tool: str
    status: str
    """``completed``, ``error``, ``aborted`` or ``interrupted`` (no result)."""
    exit_code: int | None = None
    error: str = ""
    output: str | None = ""
    """The output's head (a failed run's first few KB), ``""`` when there was none,
    ``None`` when it was not read (a run that worked and printed something)."""
    command: str = ""
    escalated: bool = False
    """The call asked to run outside the sandbox (Codex ``sandbox_permissions``)."""
    child_error: str = ""
    """A delegation (``task``): the error the sub-agent's own session ended on (its last
    message's error: an API error, an abort); a Codex ``spawn_agent``: the ``errored``
    status a later ``<subagent_notification>`` reports.  ``""`` when it ended cleanly or
    is not here."""


@dataclass(frozen=True)
class Rule:
    name: str
    agents: tuple[str, ...]
    signal: str
    test: Callable[[CallFacts], bool]
    example: CallFacts
    """A call this rule fires on, its text copied from a real transcript line."""
    source: str
    """Where the example comes from (file and line)."""


def _error(pattern: str, flags: int = 0) -> Callable[[CallFacts], bool]:
    rx = re.compile(pattern, flags)
    return lambda f: bool(f.error) and rx.search(f.error) is not None


def _output(pattern: str, flags: int = 0) -> Callable[[CallFacts], bool]:
    rx = re.compile(pattern, flags)
    return lambda f: bool(f.output) and rx.search((f.output or "")[:4000]) is not None


_SHELL_TOOLS = frozenset({"bash", "shell", "powershell", "exec", "terminal", "exec_command",
                          "local_shell", "write_stdin"})
_SEGMENT = re.compile(r"(?:^|&&|\|\||;|\||\"|'|\$\(|-c\s+)\s*")
_PRINTS = re.compile(
    r"^(?:(?:npx|pnpx|bunx|pnpm|yarn|bun)\s+)?(?:"
    r"(?:npm|pnpm|yarn|bun)\s+(?:install|i|ci|add|test|t)\b"
    r"|(?:npm|pnpm|yarn|bun)\s+run\s+(?:test|build)\b"
    r"|vitest|jest|mocha|pytest|py\.test"
    r"|cargo\s+(?:test|build|run|check)\b|go\s+test\b|dotnet\s+(?:test|build)\b"
    r"|pip3?\s+install\b|uv\s+(?:sync|pip\s+install)\b|composer\s+install\b"
    r"|docker\s+(?:build|compose\s+up)\b"
    r"|\w+\s+--version\b)", re.I)
"""Runs that always print something (an installer's summary, a test runner's tally, a
version): when one comes back empty the output was lost, and the run answered nothing."""


_QUIET = re.compile(r"\s(?:-q|--quiet|--silent|-s)\b|>\s*(?:/dev/null|\$null|nul)\b|"
                    r"\|\s*Out-Null\b", re.I)
"""A run told to print nothing (``cargo check -q``, ``> /dev/null``)."""


def printing_segment(command: str) -> str | None:
    """The part of a shell line that runs a program which always prints (an installer, a
    test runner, ``--version``), unless it was told to keep quiet; else ``None``."""
    for seg in _SEGMENT.split(command[:1000]):
        seg = re.sub(r"^(?:cd\s+\S+\s*|[A-Z_][A-Z0-9_]*=\S*\s+)+", "", seg.strip())
        if _PRINTS.match(seg) and not _QUIET.search(" " + seg):
            # the program and its words, without flags and redirections (one label for
            # `npm install` and `npm install 2>&1`)
            words = [w for w in seg.split() if not w.startswith("-")
                     and not re.match(r"^\d*[<>]|^&>", w)]
            return " ".join(words[:3])
    return None


def _prints(command: str) -> bool:
    return printing_segment(command) is not None


_ECHO = re.compile(r"\becho\s+\\?[\"']?([^\"'$\\\n;&|]{2,40})")


def _own_output(f: CallFacts) -> str:
    """The output less the lines the command's own ``echo`` printed (``; echo EXIT: $?``
    prints ``EXIT: 0`` whatever the program before it did)."""
    out = f.output or ""
    marks = [m.group(1).strip() for m in _ECHO.finditer(f.command)]
    if not marks:
        return out
    return "\n".join(ln for ln in out.splitlines()
                     if not any(ln.strip().startswith(mk) for mk in marks if mk))


def _no_output(f: CallFacts) -> bool:
    return (f.tool in _SHELL_TOOLS and f.status == "completed" and f.output is not None
            and not _own_output(f).strip()
            and f.exit_code in (None, 0) and _prints(f.command))


_NETWORK = _output(r"Could not resolve host|Couldn't resolve host|getaddrinfo (?:ENOTFOUND|"
                   r"EAI_AGAIN)|TypeError: fetch failed|Failed to connect to \S+ port", re.I)


def network_denied(f: CallFacts) -> bool:
    """A Codex run whose network access the sandbox cut (Codex sandboxes run without
    network unless the call asked to escalate)."""
    return f.agent == "codex" and not f.escalated and _NETWORK(f)


_SANDBOX_REFUSED = re.compile(
    r"Read-only file system|command failed inside sandbox|sandbox denied exec error"
    r"|Network access to \"?[^\s\"]+\"? is blocked by policy|sandbox blocked creation", re.I)
"""What a run the Codex sandbox refused prints (codex-rs classifies a failed run whose output
says so as a sandbox denial)."""

_TRUNCATED = re.compile(r"Total output lines: \d+")
"""Codex's note on an output it cut to the token budget."""

_REJECTED = r"^(?:aborted: )?The user doesn't want to (?:proceed with|take) this"
_CLAUDE_TIMEOUT = re.compile(r"(?:Exit code \d+\n)?Command timed out after ")
"""What Claude Code's Bash answers a run its timeout killed (2.1.332: ``Exit code 143``,
then the note; read as a result with that exit code by :mod:`logparse.claude_code`)."""
SHELL_BACKGROUND = frozenset({"bash"})
"""Tools whose Claude Code run may start in the background (``run_in_background``): it
answers ``Command running in background with ID: …`` at once and reports its end in a
``<task-notification>`` naming the call."""
_REC = "fixtures/claude_record/recorded/fix_divide/-srv-campaign/" \
    "2f969464-567e-4d35-8272-a0c156d779b6.jsonl"
"""A real Claude Code 2.1.332 session recorded on loopback (``fixtures/claude_record``)."""
_CLAUDE_INTERRUPT = r"\[Request interrupted by user"

RULES: tuple[Rule, ...] = (
    Rule("claude-rejected", ("claude-code",), "rejected_by_user", _error(_REJECTED),
         CallFacts("claude-code", "exitplanmode", "aborted", error=(
             "aborted: The user doesn't want to proceed with this tool use. The tool use was "
             "rejected (eg. if it was a file edit, the new_string was NOT written to the "
             "file). The user provided the following reason for the rejection:  I also want "
             "output to be index.mjs")),
         "will-it-rain__claude.jsonl:16"),
    Rule("claude-permission-denied", ("claude-code",), "rejected_by_user",
         _error(r"^denied \([\w:-]+\): "),
         CallFacts("claude-code", "bash", "error", error=(
             "denied (permission-rule): Permission to use Bash with command rm -rf build has "
             "been denied."), command="rm -rf build"),
         f"{_REC}:71 (toolDenialKind permission-rule, permissionDecision reject: a "
         "`--disallowedTools Bash(rm:*)` rule; read as `denied (KIND): ` by the reader)"),
    Rule("opencode-rejected", ("opencode",), "rejected_by_user",
         _error(r"rejected permission", re.I),
         CallFacts("opencode", "bash", "error", error=(
             "The user rejected permission to use this specific tool call.")),
         "k1.lib-bootstrap__session-export.json (tool part state.error)"),
    Rule("claude-interrupted", ("claude-code",), "interrupted", _error(_CLAUDE_INTERRUPT),
         CallFacts("claude-code", "bash", "aborted",
                   error="aborted: [Request interrupted by user for tool use]"),
         "(no real line yet) Claude Code tool_result is_error, toolUseResult.interrupted"),
    Rule("codex-aborted-by-user", ("codex",), "interrupted",
         _error(r"^aborted by user\b", re.I),
         CallFacts("codex", "bash", "aborted", error="aborted by user after 33.4s"),
         "Trezo-Ai__codex-session.jsonl:156"),
    Rule("claude-input-invalid", ("claude-code",), "input_invalid",
         lambda f: "InputValidationError" in (f.error or f.output or ""),
         CallFacts("claude-code", "read", "error", error=(
             "<tool_use_error>InputValidationError: Read failed due to the following issue:\n"
             "The parameter `offset` type is expected as `number` but provided as `string`"
             "</tool_use_error>")),
         f"{_REC}:44 (Read with offset \"first\", is_error)"),
    Rule("claude-tool-error", ("claude-code",), "tool_error",
         lambda f: "<tool_use_error>" in (f.error or f.output or ""),
         CallFacts("claude-code", "edit", "error", error=(
             "<tool_use_error>File has not been read yet. Read it first before writing to "
             "it.</tool_use_error>")),
         "speakfree__session.jsonl:338"),
    Rule("codex-execution-error", ("codex",), "tool_error",
         _error(r"^execution error: ", re.I),
         CallFacts("codex", "bash", "error", error=(
             'execution error: Io(Custom { kind: Other, error: "CreateProcessWithLogonW '
             'failed: 1056" })')),
         "Valdyum-Labs__codex-session.jsonl:20"),
    Rule("codex-patch-failed", ("codex",), "tool_error",
         _error(r"^(?:apply_patch verification failed|Failed to find (?:expected lines|"
                r"context)|Invalid patch)", re.I),
         CallFacts("codex", "apply_patch", "error", error=(
             "apply_patch verification failed: Failed to find expected lines in /Users/"
             "rythme/developer/blockchain/Civitas-Sol/frontend/app/api/vault/init/route.ts:\n"
             "    const USDC_MINT = new PublicKey(")),
         "soulpass__codex-session.jsonl:634 (custom_tool_call_output)"),
    Rule("codex-approval-denied", ("codex",), "rejected_by_user",
         _error(r"^(?:exec command rejected by user|patch rejected by user"
                r"|user rejected MCP tool call)\b"),
         CallFacts("codex", "bash", "error", exit_code=-1, error="exec command rejected by user",
                   command="npm run dev -- --port 3000", escalated=True),
         "fixtures/structural/codex_approvals.jsonl:12 (soulpass L271's call; the answer "
         "codex-rs gives a denied approval: exec_command_end status declined)"),
    Rule("codex-patch-denied", ("codex",), "rejected_by_user",
         _error(r"^patch rejected by user\b"),
         CallFacts("codex", "apply_patch", "error", error="patch rejected by user"),
         "fixtures/structural/codex_approvals.jsonl:16 (soulpass L632's patch, denied)"),
    Rule("codex-policy-rejected", ("codex",), "tool_error",
         _error(r"^(?:This action was rejected due to unacceptable risk"
                r"|approval policy is \S+; reject command|approval required by policy"
                r"|patch rejected: |`[^`]{1,400}` rejected: policy forbids)"),
         CallFacts("codex", "bash", "error", error=(
             "approval policy is Never; reject command — you cannot ask for escalated "
             "permissions if the approval policy is Never"), escalated=True,
                   command="touch /etc/calc-ok"),
         "fixtures/codex_record/recorded/classic.jsonl:73 (Codex 0.171.0 recorded: "
         "sandbox_permissions require_escalated under `codex exec`, approval never; a "
         "code cell's is the same after `Script error:`, codemode.jsonl:51)"),
    Rule("codex-mcp-error", ("codex",), "tool_error",
         lambda f: f.status == "error" and bool(f.error) and f.tool not in _SHELL_TOOLS
         and f.tool not in ("apply_patch", "todowrite", "websearch"),
         CallFacts("codex", "mcp__notes__lookup", "error", error="no note named 'nope'"),
         "fixtures/codex_record/recorded/mcp.jsonl:25 (Codex 0.171.0 recorded: a cell's "
         "tools.mcp__notes__lookup, item_completed McpToolCall status failed, result "
         "isError; :32 the policy's refusal as error.message)"),
    Rule("codex-sandbox-refused", ("codex",), "sandbox_denied",
         lambda f: (f.exit_code not in (None, 0) or f.status == "error") and not f.escalated
         and _SANDBOX_REFUSED.search((f.output or "")[:4000] + f.error[:2000]) is not None,
         CallFacts("codex", "bash", "completed", exit_code=1, output=(
             "error: failed to create directory `/Users/a/New project/target/debug`\n\n"
             "Caused by:\n  Read-only file system (os error 30)\n"),
                   command="cargo test -p cfo_oracle"),
         "fixtures/structural/codex_approvals.jsonl:18 (Trezo-Ai L126's cargo test, its "
         "answer as a read-only sandbox gives it)"),
    Rule("codex-escalation", ("codex",), "escalation_requested", lambda f: f.escalated,
         CallFacts("codex", "bash", "aborted", error="aborted by user after 33.4s",
                   command="rsync -a a/ /tmp/c/ && cargo test --manifest-path /tmp/c/Cargo.toml",
                   escalated=True),
         "Trezo-Ai__codex-session.jsonl:154 (sandbox_permissions=require_escalated)"),
    Rule("sandbox-network", ("codex",), "sandbox_denied", lambda f: network_denied(f),
         CallFacts("codex", "write_stdin", "completed", output=(
             "    Updating crates.io index\nwarning: spurious network error (3 tries "
             "remaining): [6] Couldn't resolve host name (Could not resolve host: "
             "index.crates.io)\n")),
         "Trezo-Ai__codex-session.jsonl:148"),
    Rule("sandbox-permission", ("codex",), "sandbox_denied",
         _output(r"Operation not permitted|Win32 error 5\b|Access is denied", re.I),
         CallFacts("codex", "bash", "completed", exit_code=1, output=(
             "      0 [main] bash (2676) C:\\Program Files\\Git\\bin\\..\\usr\\bin\\bash.exe: "
             "*** fatal error - couldn't create signal pipe, Win32 error 5\n")),
         "Valdyum-Labs__codex-session.jsonl:97"),
    Rule("nonzero-exit", _ALL, "exit_code",
         lambda f: f.exit_code not in (None, 0),
         CallFacts("codex", "bash", "completed", exit_code=101, output=(
             "error: failed to load manifest for workspace member `/Users/a/New project/"
             "apps/process_tui`\n")),
         "Trezo-Ai__codex-session.jsonl:126"),
    Rule("timed-out", _ALL, "timed_out",
         lambda f: f.exit_code == 124 or bool(re.search(
             r"\b(?:timed out|Command timed out)\b", f.error or "", re.I)),
         CallFacts("claude-code", "bash", "error", error="Command timed out after 2m 0.0s"),
         "(no real line yet) a call error that says it timed out (Claude Code 2.1.332 "
         "writes `Exit code 143` first: claude-bash-timeout)"),
    Rule("claude-bash-timeout", ("claude-code",), "timed_out",
         lambda f: f.tool == "bash" and _CLAUDE_TIMEOUT.match(f.output or f.error or "")
         is not None,
         CallFacts("claude-code", "bash", "completed", exit_code=143,
                   output="Exit code 143\nCommand timed out after 1s",
                   command="sleep 5 && echo finished"),
         f"{_REC}:60 (Bash with timeout 1000: is_error, the run killed)"),
    Rule("claude-background-run", ("claude-code",), "still_running",
         lambda f: f.tool in SHELL_BACKGROUND and f.status == "completed" and f.exit_code is None
         and (f.output or "").startswith("Command running in background with ID: "),
         CallFacts("claude-code", "bash", "completed", None, output=(
             "Command running in background with ID: ba3le3pxm. Output is being written to: "
             "/tmp/claude-0/-srv-campaign/1e73612c-4ac0-46d0-9299-d7acb20767fa/tasks/"
             "ba3le3pxm.output. You will be notified when it completes. To check interim "
             "output, use Read on that file path.\nSession cwd remains /srv/campaign; directory "
             "changes made by the backgrounded command do not apply to subsequent commands."),
                   command="cd docs && timeout 8 python3 -m http.server 8765 --bind 127.0.0.1"),
         "fixtures/claude_record/recorded/background/-srv-campaign/1e73612c-4ac0-46d0-9299-"
         "d7acb20767fa.jsonl:25 (toolUseResult.backgroundTaskId; no <task-notification> read)"),
    Rule("no-result", _ALL, "no_result",
         lambda f: f.status == "interrupted",
         CallFacts("codex", "bash", "interrupted", command="git branch --show-current"),
         "Valdyum-Labs__codex-session.jsonl:131 (no function_call_output)"),
    Rule("empty-output", _ALL, "no_output", _no_output,
         CallFacts("claude-code", "bash", "completed", exit_code=0, output="", command=(
             'cd "c:/Users/vassa/Documents/dev/will-it-rain" && npm install 2>&1')),
         "will-it-rain__claude.jsonl:92"),
    Rule("json-error-body", _ALL, "error_body",
         lambda f: f.tool in _SHELL_TOOLS and error_body(f.output) is not None,
         CallFacts("claude-code", "bash", "completed", exit_code=0, output=(
             '{"error":"message: API key disabled, reason: tenant disabled, json-rpc code: '
             '-32051, rest code: 403"}'),
                   command='curl -s -X POST https://polygon-rpc.com/ -H "Content-Type: '
                           'application/json"'),
         "pool blockchain-dex-events__claude-session.jsonl (curl to polygon-rpc.com)"),
    Rule("codex-still-running", ("codex",), "still_running",
         lambda f: f.tool == "bash" and f.status == "completed" and f.exit_code is None
         and f.output is not None and (not f.output.strip() or _TRUNCATED.match(f.output)
                                       is not None),
         CallFacts("codex", "bash", "completed", None, output="", command=(
             "rsync -a a/ /tmp/c/ && cargo test --manifest-path /tmp/c/Cargo.toml")),
         "Trezo-Ai__codex-session.jsonl:145 (Process running with session ID 24629)"),
    Rule("codex-truncated", ("codex",), "truncated",
         lambda f: f.output is not None and _TRUNCATED.match(f.output) is not None,
         CallFacts("codex", "bash", "completed", None, output=(
             "Total output lines: 1020\n\n/Users/a/miniconda3/share/doc/pcre2/README\n"),
                   command="rg --files -g 'idea-context.md' -g 'README*'"),
         "Trezo-Ai__codex-session.jsonl:22"),
    Rule("echo-only-output", _ALL, "no_output", _no_output,
         CallFacts("claude-code", "bash", "completed", exit_code=0, output="EXIT: 0\n",
                   command='cd "c:/Users/vassa/Documents/dev/will-it-rain" && npx vitest run '
                           '2>&1; echo "EXIT: $?"'),
         "will-it-rain__claude.jsonl:96"),
    # the agents read since (Gemini CLI, pi, Antigravity): what their own fields say
    Rule("gemini-denied", ("gemini-cli",), "rejected_by_user",
         _error(r"^aborted: \[Operation Cancelled\] Reason: User denied"),
         CallFacts("gemini-cli", "bash", "aborted", error=(
             "aborted: [Operation Cancelled] Reason: User denied execution."),
                   command="./gradlew test"),
         "(no real line yet) Gemini CLI toolCalls[].status cancelled, the user denied the "
         "call (no tune or shared file is a Gemini CLI session)"),
    Rule("gemini-cancelled", ("gemini-cli",), "interrupted",
         lambda f: f.error.startswith("aborted: ") and "User denied" not in f.error,
         CallFacts("gemini-cli", "bash", "aborted",
                   error="aborted: [Operation Cancelled] Reason: User cancelled the operation."),
         "(no real line yet) Gemini CLI toolCalls[].status cancelled while it ran"),
    Rule("gemini-tool-error", ("gemini-cli",), "tool_error",
         lambda f: f.status == "error" and bool(f.error),
         CallFacts("gemini-cli", "edit", "error", error=(
             "Failed to edit, 0 occurrences found for old_string in src/app.py. Ensure "
             "you're not escaping content incorrectly and check whitespace, indentation, and "
             "context. Use read_file tool to verify.")),
         "(no real line yet) Gemini CLI toolCalls[].status error with a functionResponse "
         "error (no tune or shared file is a Gemini CLI session)"),
    Rule("pi-tool-error", ("pi",), "tool_error",
         lambda f: f.status == "error" and bool(f.error),
         CallFacts("pi", "edit", "error", error=(
             "Could not find edits[0] in /home/selim/Documents/Code/civ6.ch/web/src/routes/"
             "profile/[id]/+page.svelte. The oldText must match exactly including all "
             "whitespace and newlines.")),
         "pool civ6.ch__session.jsonl:66 (toolResult isError)"),
    Rule("pi-aborted", ("pi",), "interrupted",
         lambda f: f.error.startswith("aborted: ")
         and f.error.rstrip().endswith("Command aborted"),
         CallFacts("pi", "bash", "aborted", error="aborted: npm run dev\n\nCommand aborted"),
         "(no real line yet) pi bash toolResult isError, 'Command aborted'"),
    Rule("antigravity-invalid-call", ("antigravity",), "input_invalid",
         _error(r"problem parsing the tool call|invalid tool call error"),
         CallFacts("antigravity", "write", "error", error=(
             "There was a problem parsing the tool call. \nError Message: model output error: "
             "invalid tool call error (invalid_args) C:\\work\\site\\logo.svg is "
             "not a valid artifact path")),
         "(no real line yet) Antigravity ERROR_MESSAGE step answering a call (no tune or "
         "shared file is an Antigravity trajectory)"),
    Rule("antigravity-step-error", ("antigravity",), "tool_error",
         _error(r"^Encountered error in step execution: "),
         CallFacts("antigravity", "grep", "error", error=(
             'Encountered error in step execution: exec: "grep": executable file not found '
             "in %PATH%")),
         "(no real line yet) Antigravity GREP_SEARCH step, status ERROR (no tune or shared "
         "file is an Antigravity trajectory)"),
    Rule("antigravity-background", ("antigravity",), "still_running",
         lambda f: f.status == "completed" and f.exit_code is None and (f.output or "")
         .startswith("Tool is running as a background task"),
         CallFacts("antigravity", "bash", "completed", None, output=(
             "Tool is running as a background task with task id: 00000000-0000-4000-8000-"
             "000000000000/task-7\nTask Description: npm install\n"),
                   command="npm install"),
         "(no real line yet) Antigravity RUN_COMMAND step, status RUNNING (no tune or shared "
         "file is an Antigravity trajectory)"),
)


_ERROR_ENVELOPE = re.compile(
    r"\{\s*\"error\"\s*:\s*(?:\"(?P<text>[^\"]{3,200})\"|\{[^{}]*?\"message\"\s*:\s*"
    r"\"(?P<msg>[^\"]{3,200})\")|\"jsonrpc\"\s*:\s*\"2\.0\"\s*,\s*\"error\"\s*:\s*\{[^{}]*?"
    r"\"message\"\s*:\s*\"(?P<rpc>[^\"]{3,200})\"|\"status\"\s*:\s*\"0\"\s*,\s*\"message\"\s*:"
    r"\s*\"NOTOK\"\s*,\s*\"result\"\s*:\s*\"(?P<notok>[^\"]{3,200})\"")
"""A JSON answer that is an error: ``{"error": "..."}``, ``{"error": {"message": ...}}``,
a JSON-RPC error, an Etherscan-style ``"status":"0","message":"NOTOK"``."""


def error_body(output: str | None) -> str | None:
    """The message of the error envelope an HTTP or JSON-RPC answer starts with (a
    ``curl -s`` exits 0 whatever the server said), else ``None``."""
    if not output or "error" not in output[:600] and "NOTOK" not in output[:600]:
        return None
    m = _ERROR_ENVELOPE.search(output[:600])
    if m is None:
        return None
    return next(g for g in m.groups() if g)


@dataclass(frozen=True)
class OutputError:
    """A line a run prints when a tool or library it needs failed, whatever its exit code
    (a probe's ``try``/``except`` prints it and exits 0; ``| head`` hides the shell's
    127): the run did not do what it was for."""

    name: str
    pattern: re.Pattern[str]
    """Matched against each line of the output's head (the whole line)."""
    example: CallFacts
    """A clean run this row reads as failed, copied from a real transcript line."""
    source: str


OUTPUT_ERRORS: tuple[OutputError, ...] = (
    OutputError(
        "probe-not-available-bare",
        re.compile(r"^\s*(?:NOT|not)\s+(?:available|installed)\s*[.!]?\s*$"),
        CallFacts("opencode", "bash", "completed", 0, output="not available\nnot available\n",
                  command=("node -e \"try { require('better-sqlite3'); console.log('better-"
                           "sqlite3 available'); } catch(e) { console.log('not available'); }\" "
                           "2>&1")),
        "labelled/uicomponents__session-wordpress.json #237 (bash, exit 0)"),
    OutputError(
        "probe-not-available",
        re.compile(r"^\s*([\w.@/-]+)\s*(?::|is|was)\s*(?:NOT|not)\s+"
                   r"(?:available|installed)\s*[.!]?\s*$"),
        CallFacts("claude-code", "bash", "completed", 0, output=(
            "openpyxl: NOT available\nxlrd: NOT available\npandas: available"), command=(
            "python3 -c \"\nimport pandas as pd\ndf = pd.read_excel('Rubrica_MIA_PLN_act1.xlsx',"
            " engine='openpyxl')\n\" 2>/dev/null || python3 -c \"\nimport importlib\nfor mod in "
            "['openpyxl', 'xlrd', 'pandas']:\n    try:\n        importlib.import_module(mod)\n"
            "        print(f'{mod}: available')\n    except:\n        print(f'{mod}: NOT "
            "available')\n\"")),
        "pool conversacion-act1-pln__session.jsonl:22 (Bash tool_result, exit 0)"),
    OutputError(
        "zsh-command-not-found",
        re.compile(r"^\S*sh:\d+: command not found: (\S+)\s*$"),
        CallFacts("opencode", "bash", "completed", 0, output="zsh:1: command not found: rg\n",
                  command='rg "k1\\\\lib\\\\html" src/ | head -20'),
        "labelled/k1.lib-bootstrap__session-export.json #156 (bash, `| head` exit 0)"),
)
"""Lines of a clean run's output that say a tool or library it needs failed (first
matching row wins); ``tests/logparse/test_structural.py`` walks them."""
OUTPUT_ERROR_HEAD = r"(?im)^\s*(?:[\w.@/-]+\s*(?::|is|was)\s*)?not\s+(?:available|installed)" \
    r"\s*[.!]?\s*$|^\S*sh:\d+: command not found: "
"""What some row of :data:`OUTPUT_ERRORS` needs in a clean run's output (an RE2 pattern,
DuckDB's too): the store loads the head of a clean run's output only where it shows."""
OUTPUT_ERROR_CHARS = 2000
"""Characters of a clean run's output the rows read."""


def output_error(output: str | None) -> tuple[OutputError, str] | None:
    """The row of :data:`OUTPUT_ERRORS` a clean run's output matches and the line it
    matched, else ``None``.  The line may come from the command's own probe (``except:
    print('not available')``, ``|| echo "not installed"``): it says so all the same."""
    if not output:
        return None
    for line in output[:OUTPUT_ERROR_CHARS].splitlines():
        for row in OUTPUT_ERRORS:
            if row.pattern.match(line):
                return row, line.strip()
    return None


def _output_failed(f: CallFacts) -> bool:
    return f.tool in _SHELL_TOOLS and f.status == "completed" and f.exit_code in (None, 0) \
        and output_error(f.output) is not None


RULES += tuple(
    Rule(f"output-error:{row.name}", _ALL, "output_error", _output_failed, row.example,
         row.source) for row in OUTPUT_ERRORS)


# ----------------------------------------------------------------- delegations
DELEGATION_TOOLS = frozenset({"task"})
"""The readers' name for a call that hands work to a sub-agent: Claude Code ``Task`` and
``Agent``, opencode ``task``, Gemini CLI ``invoke_agent``, Antigravity ``invoke_subagent``."""
CODEX_COLLAB_TOOLS = frozenset({"spawn_agent", "send_input", "resume_agent", "wait",
                                "wait_agent", "close_agent"})
"""Codex's collab tools (codex-rs ``multi_agents``): the sub-agent's status comes back in
their output (``{"status": {"<id>": {"errored": "..."}}}``)."""

_TASK_ERROR = re.compile(r"^Subagent failed \(task_id: |^Task cancelled\b|<task_error>"
                         r"|^<task id=\"[^\"]*\" state=\"error\">")
"""What opencode's ``task`` tool answers when the sub-agent failed (``Subagent failed
(task_id: ses_…): <its last error>``, ``Task cancelled``, a ``<task_error>`` block)."""
_CODEX_ERRORED = re.compile(r"\"errored\"\s*:|\"not_found\"")
"""A Codex sub-agent status that failed (``AgentStatus::Errored``/``NotFound`` as serde
writes them)."""


def subagent_failed(f: CallFacts) -> bool:
    """A delegation whose outcome, by the sub-agent's own structure, is a failure: the call
    errored, was stopped or rejected, never got a result, came back as the tool's failure
    envelope, or the sub-agent's session ended on an error."""
    if f.tool in DELEGATION_TOOLS:
        return f.status != "completed" or bool(f.child_error) or (
            _TASK_ERROR.search((f.output or "")[:200] + "\n" + f.error[:200]) is not None)
    if f.agent == "codex" and f.tool in CODEX_COLLAB_TOOLS:
        return f.status == "error" or bool(f.child_error) or \
            _CODEX_ERRORED.search((f.output or "")[:2000]) is not None
    return False


_NOTIFICATION = re.compile(r"<subagent_notification>\s*(\{.*?\})\s*(?:</subagent_notification>|$)",
                          re.S)


def notified_failure(text: str) -> str:
    """The failure a Codex ``<subagent_notification>`` reports of a sub-agent (codex-rs
    writes ``{"agent_id"|"agent_path": …, "status": …}`` into the parent's next user
    message when it was not waited for): the ``errored`` message, ``not found``; ``""`` for
    a sub-agent that completed or was shut down, or a text that is no notification."""
    m = _NOTIFICATION.search(text[:4000])
    if m is None:
        return ""
    try:
        status = json.loads(m.group(1)).get("status")
    except (ValueError, AttributeError):
        return ""
    if isinstance(status, dict) and isinstance(status.get("errored"), str):
        return status["errored"].strip()[:300] or "errored"
    return "the sub-agent was not found" if status == "not_found" else ""


_TASK_NOTE_STATUS = re.compile(r"<status>\s*(\w+)\s*</status>")


def task_notification_failure(text: str) -> str:
    """The failure a Claude Code ``<task-notification>`` reports of a sub-agent it ran in
    the background (``<status>failed</status>``, ``killed``): its status and summary;
    ``""`` for one that completed, or a text that is no notification."""
    if not text.lstrip().startswith("<task-notification>"):
        return ""
    m = _TASK_NOTE_STATUS.search(text[:2000])
    if m is None or m.group(1).lower() in ("completed", "running", "pending"):
        return ""
    # (found by its tags: a lazy ``<summary>\s*(.*?)\s*</summary>`` ran a run of
    # whitespace again at each step, 1.7 s on 1,450 spaces)
    head = text[:2000]
    start = head.find("<summary>")
    end = head.find("</summary>", start + 9) if start != -1 else -1
    summary = head[start + 9:end].strip() if end != -1 else ""
    return summary[:240] if summary else m.group(1).lower()


_BACKGROUND_EXIT = re.compile(r"exit code (-?\d+)")


def background_exit(text: str) -> int | None:
    """The exit a ``<task-notification>`` reports of a run started in the background
    (2.1.332: ``<status>failed</status>``, ``<summary>Background command "…" failed with exit
    code 124</summary>``): the code it names, else 0 for ``completed`` and 1 for ``failed``;
    ``None`` for a run stopped or still running, or a text that is no notification."""
    if not text.lstrip().startswith("<task-notification>"):
        return None
    head = text[:2000]
    m = _TASK_NOTE_STATUS.search(head)
    status = m.group(1).lower() if m is not None else ""
    start = head.find("<summary>")
    end = head.find("</summary>", start + 9) if start != -1 else -1
    code = _BACKGROUND_EXIT.search(head[start + 9:end]) if end != -1 else None
    if code is not None:
        return int(code.group(1))
    return {"completed": 0, "failed": 1}.get(status)


def subagent_failure(f: CallFacts) -> str:
    """What a failed delegation failed with, in one line: the sub-agent's error, the tool's
    error, else what happened to the call."""
    if f.child_error:
        return f"the sub-agent ended on an error: {f.child_error.strip()[:200]}"
    if f.status == "interrupted":
        return "the sub-agent never reported back"
    if f.agent == "codex":
        m = re.search(r"\"errored\"\s*:\s*\"((?:[^\"\\\\]|\\\\.){1,300})\"", f.output or "")
        if m is not None:
            return f"the sub-agent errored: {m.group(1)}"
        if _CODEX_ERRORED.search(f.output or ""):
            return "the sub-agent was not found"
    text = (f.error or f.output or "").strip()
    m = _TASK_ERROR.search(text[:200])
    if m is not None and text.startswith("<task"):
        # (by its tags: a lazy ``<task_error>\s*(.+?)\s*(?:</task_error>|$)`` ran
        # whitespace again at each step, quadratic)
        start = text.find("<task_error>")
        if start != -1:
            end = text.find("</task_error>", start + 12)
            inner = text[start + 12:end if end != -1 else len(text)].strip()
            text = inner or text
    text = re.sub(r"^aborted: ", "", re.sub(r"</?tool_use_error>", "", text)).strip()
    if text:
        return text.splitlines()[0][:240]
    return "the sub-agent never reported back" if f.status == "interrupted" else \
        "the sub-agent call failed"


RULES += (
    Rule("claude-subagent-error", ("claude-code",), "subagent_failed", subagent_failed,
         CallFacts("claude-code", "task", "error", error=(
             "Agent type 'routine-worker' not found. Available agents: claude, Explore, "
             "general-purpose, Plan, statusline-setup")),
         f"{_REC}:81 (Agent with subagent_type routine-worker, is_error)"),
    Rule("claude-subagent-no-result", ("claude-code",), "subagent_failed", subagent_failed,
         CallFacts("claude-code", "task", "interrupted",
                   command="Research Visa crypto card partnerships"),
         "fixtures/structural/subagents_claude.jsonl:3 (pool FundWise L17's Agent call, "
         "its result line dropped: the transcript ends first)"),
    Rule("claude-subagent-child-error", ("claude-code",), "subagent_failed", subagent_failed,
         CallFacts("claude-code", "task", "completed", output=None,
                   command="Code review of all 5 question solutions",
                   child_error="API Error: 529 Overloaded"),
         "fixtures/structural/subagents_claude.jsonl (pool blockchain-dex-events L411's "
         "Agent call; its sidechain made to end on an isApiErrorMessage line)"),
    Rule("claude-background-subagent-failed", ("claude-code",), "subagent_failed",
         subagent_failed,
         CallFacts("claude-code", "task", "completed", output=(
             "Async agent launched successfully.\nagentId: a1b2c3d4e5f6a7b8c\noutput_file: "
             "/private/tmp/claude-501/tasks/a1b2c3d4e5f6a7b8c.output"),
                   command="Code review of all 5 question solutions",
                   child_error=task_notification_failure(
                       "<task-notification>\n<task-id>a1b2c3d4e5f6a7b8c</task-id>\n"
                       "<tool-use-id>toolu_fixture_background_0</tool-use-id>\n<status>failed"
                       "</status>\n<summary>Agent \"Code review of all 5 question solutions\" "
                       "failed: API Error: 500 Internal server error</summary>\n"
                       "</task-notification>")),
         "fixtures/structural/subagents_claude.jsonl (blockchain-dex-events L411's Agent call "
         "run in the background, answered as Claude Code answers it: async_launched, then a "
         "<task-notification> with status failed; the summary's wording is illustrative)"),
    Rule("opencode-subagent-failed", ("opencode",), "subagent_failed", subagent_failed,
         CallFacts("opencode", "task", "error", error=(
             "Subagent failed (task_id: ses_099f6fd34ffe4Odh2VDvcdvie8): Rate limit "
             "exceeded, please retry later"), command="Explore React source structure"),
         "fixtures/structural/subagents_opencode.json (uicomponents-wordpress msg 198's task "
         "part, answered as opencode's task.ts answers a sub-agent whose reply errored)"),
    Rule("opencode-task-error-block", ("opencode",), "subagent_failed", subagent_failed,
         CallFacts("opencode", "task", "completed", output=(
             '<task id="ses_01feed6efffep4V41ZoznyMMFv" state="error">\n<task_error>\n'
             "Task failed\n</task_error>\n</task>")),
         "(no real line yet) opencode task.ts renderOutput with state error"),
    Rule("codex-subagent-errored", ("codex",), "subagent_failed", subagent_failed,
         CallFacts("codex", "wait", "completed", output=(
             '{"status":{"019a3f52-7c1e-7d10-9b8e-2f4c5a6b7c8d":{"errored":"stream '
             'disconnected before completion"}},"timed_out":false}')),
         "fixtures/structural/subagents_codex.jsonl (a wait call answered as codex-rs "
         "multi_agents answers an errored sub-agent)"),
    Rule("codex-subagent-notified", ("codex",), "subagent_failed", subagent_failed,
         CallFacts("codex", "spawn_agent", "completed", output='{"agent_id": "019a3f53-0a2b"}',
                   child_error=notified_failure(
                       '<subagent_notification>\n{"agent_id": "019a3f53-0a2b", "status": '
                       '{"errored": "You\'ve hit your usage limit."}}\n'
                       "</subagent_notification>")),
         "fixtures/structural/subagents_codex.jsonl (a spawn_agent not waited for, its "
         "status in the <subagent_notification> codex-rs writes into the next user message)"),
    Rule("codex-subagent-child-error", ("codex",), "subagent_failed", subagent_failed,
         CallFacts("codex", "spawn_agent", "completed", output=(
             '{"agent_id": "019f6a10-8d4f-7c52-a1b3-6f8e2d3c4b02", "nickname": "Euclid"}'),
                   child_error="APIError: stream disconnected before completion: Transport "
                   "error: timeout"),
         "(no real line yet) fixtures/codex_subagents, built from codex-rs shapes (no "
         "readable rollout spawns an agent): parent 019f6a10-3c2e's spawn_agent, whose "
         "child's rollout 019f6a10-8d4f ends on an event_msg error, read through the "
         "linked child session as a Claude Code Task's sidechain is"),
    Rule("gemini-subagent-error", ("gemini-cli",), "subagent_failed", subagent_failed,
         CallFacts("gemini-cli", "task", "error", error=(
             "Subagent 'codebase_investigator' failed: the model returned no response")),
         "(no real line yet) Gemini CLI invoke_agent toolCalls[].status error"),
    Rule("antigravity-subagent-error", ("antigravity",), "subagent_failed", subagent_failed,
         CallFacts("antigravity", "task", "error", error=(
             "Encountered error in step execution: subagent terminated unexpectedly")),
         "(no real line yet) Antigravity INVOKE_SUBAGENT status ERROR"),
)


_MERGED = re.compile(r"(?<![\d&])2>&1|&>|\*>&1")
"""A command line that merges stderr into stdout (``2>&1``, ``&>``, PowerShell ``*>&1``)."""
_MIXED = re.compile(r"^([^\s\[{][^\n]{0,200})\n\s*[\[{]")
MIXED_HEAD = r"^[^\s\[{][^\n]*\n\s*[\[{]"
"""A data document (JSON) whose first line is something else (RE2, DuckDB's too): with
stderr merged, a program's log line ("Exporting session: …") ahead of its data."""


def mixed_line(command: str, output: str | None) -> str | None:
    """The line a run printed ahead of its JSON when it merged stderr into stdout (the
    log line a file written the same way would start with), else ``None``."""
    if not output or not _MERGED.search(command):
        return None
    m = _MIXED.match(output[:400])
    return m.group(1).strip() if m is not None else None


RULES += (
    Rule("stderr-ahead-of-json", _ALL, "stderr_mixed",
         lambda f: f.tool in _SHELL_TOOLS and f.status == "completed"
         and f.exit_code in (None, 0) and mixed_line(f.command, f.output) is not None,
         CallFacts("opencode", "bash", "completed", 0, output=(
             "Exporting session: ses_1be58628dffeUlqtrOC0XgUH2I\n{\n  \"info\": {\n"
             "    \"id\": \"ses_1be58628dffeUlqtrOC0XgUH2I\",\n"), command=(
             "cd /Users/u/k1.lib-bootstrap && opencode export ses_1be58628dffeUlqtrOC0XgUH2I "
             "2>&1 | head -200")),
         "labelled/k1.lib-bootstrap__session-export.json #618 (bash, exit 0)"),
)


_OPENCODE_TIMEOUT = "shell tool terminated command after exceeding timeout"
"""What opencode's bash tool appends (in ``<shell_metadata>``) to a run its timeout cut
(sst/opencode packages/opencode/src/tool/bash.ts)."""
TAIL_MARKS = (r"shell tool terminated command after exceeding timeout|\[Showing lines \d+-\d+ of \d+"
              r"|<sandbox_violations>")
"""What some row needs at the end of a clean run's output (an RE2 pattern, DuckDB's too):
the store loads the tail of such an output (opencode's timeout note, pi's cut note,
Claude Code's sandbox violations)."""
HEAD_MARKS = ("<persisted-output>", "...output truncated...")
"""How an output the tool cut opens (Claude Code's ``<persisted-output>``, opencode's
``...output truncated...``): the store loads the head of such an output."""


_SAVED = re.compile(r"Full output saved to: ([^\n]+?)\s*$|\. Full output: ([^\]\n]+)\]", re.M)


def saved_output(output: str | None) -> str | None:
    """Where the tool saved the whole of an output it cut (Claude Code's and opencode's
    "Full output saved to: PATH", pi's "Full output: PATH]"), ``/`` separated, else
    ``None``: a later read of that file answers what the cut left open."""
    m = _SAVED.search(output or "")
    if m is None:
        return None
    return (m.group(1) or m.group(2)).strip().replace("\\", "/")


def _cut_at_prompt(f: CallFacts) -> bool:
    """A run cut (its timeout, the user, still running when it returned) whose last lines
    are a prompt: it waited for an answer no one gave."""
    from logparse.signals import waiting_for_input  # the screen rules live there

    cut = (f.exit_code == 124 or f.status in ("aborted", "interrupted", "error")
           or _OPENCODE_TIMEOUT in (f.output or "")[-2000:]
           or (f.status == "completed" and f.exit_code is None and f.agent == "codex")
           or bool(re.search(r"\btimed out\b", f.error or "", re.I)))
    text = (f.output or "") + ("\n" + f.error if f.error else "")
    return f.tool in _SHELL_TOOLS and cut and bool(text.strip()) and waiting_for_input(text)


# Records each agent writes for a call that the rows above did not read (the coverage
# matrix, logparse.coverage, names the agent's source for each)
RULES += (
    Rule("opencode-timeout", ("opencode",), "timed_out",
         lambda f: _OPENCODE_TIMEOUT in (f.output or "")[-2000:],
         CallFacts("opencode", "bash", "completed", output=(
             "Success: Updated 'blogname' option.\n\n\n<shell_metadata>\nshell tool "
             "terminated command after exceeding timeout 15000 ms. If this command is expected "
             "to take longer and is not waiting for interactive input, retry with a larger "
             "timeout value in milliseconds.\n</shell_metadata>"),
                   command='studio wp option update blogname "21st.dev Components Showcase" '
                           '--path "C:\\Users\\salma\\Studio\\21st-showcase" 2>&1'),
         "labelled/uicomponents__session-wordpress.json:3994 (bash state.output)"),
    Rule("opencode-truncated", ("opencode",), "truncated",
         lambda f: (f.output or "").startswith("...output truncated..."),
         CallFacts("opencode", "bash", "completed", output=(
             "...output truncated...\n\nFull output saved to: C:\\Users\\salma\\.local\\"
             "share\\opencode\\tool-output\\tool_f65769ec2001b5a6STbVKf8t1d\n\n"
             "Starting WordPress server…\n"), command=(
                 'studio site create --name "21st Showcase" --path "C:\\Users\\salma\\Studio'
                 '\\21st-showcase" 2>&1')),
         "labelled/uicomponents__session-wordpress.json:2210 (bash state.output)"),
    Rule("opencode-tool-aborted", ("opencode",), "interrupted",
         _error(r"^Tool execution aborted\b"),
         CallFacts("opencode", "bash", "error", error="Tool execution aborted"),
         "labelled/uicomponents__session-wordpress.json:19519 (tool state.error)"),
    Rule("opencode-tool-error", ("opencode",), "tool_error",
         lambda f: f.status == "error" and bool(f.error) and f.tool not in DELEGATION_TOOLS
         and not re.match(r"(?:The user rejected permission|Tool execution aborted)", f.error),
         CallFacts("opencode", "edit", "error", error=(
             "Found multiple matches for oldString. Provide more surrounding context to make "
             "the match unique.")),
         "labelled/k1.lib-bootstrap__session-export.json:9822 (tool state.error)"),
    Rule("opencode-invalid-args", ("opencode",), "input_invalid",
         _error(r"tool was called with invalid arguments|^Invalid input for tool "),
         CallFacts("opencode", "edit", "error", error=(
             "The edit tool was called with invalid arguments: [\n  {\n    \"expected\": "
             "\"string\",\n    \"path\": [\"filePath\"],\n    \"message\": \"Invalid input: "
             "expected string, received undefined\"\n  }\n].\nPlease rewrite the input so it "
             "satisfies the expected schema.")),
         "(no real line yet) sst/opencode packages/opencode/src/tool/tool.ts (the "
         "parameters' schema refused the input)"),
    Rule("claude-sandbox-violation", ("claude-code",), "sandbox_denied",
         lambda f: "<sandbox_violations>" in (f.output or "") + f.error,
         CallFacts("claude-code", "bash", "completed", 56, output=(
             "curl: (56) CONNECT tunnel failed, response 403\n<sandbox_violations>\ndeny "
             "network-outbound example.org:443\n</sandbox_violations>"),
                   command="curl -sS -m 15 https://example.org"),
         "(no real line yet) Claude Code Bash in sandbox mode: the <sandbox_violations> "
         "block after the output"),
    Rule("claude-escalation", ("claude-code",), "escalation_requested", lambda f: f.escalated,
         CallFacts("claude-code", "bash", "completed", 0, output=None,
                   command="npm install", escalated=True),
         "(no real line yet) Claude Code Bash input dangerouslyDisableSandbox: true"),
    Rule("claude-persisted-output", ("claude-code",), "truncated",
         lambda f: (f.output or "").startswith("<persisted-output>"),
         CallFacts("claude-code", "bash", "completed", 0, output=(
             "<persisted-output>\nOutput too large (34.2KB). Full output saved to: /Users/"
             "francobertoldi/.claude/projects/a32c9b72/tool-results/biuphzf91.txt\n\n"
             "Preview (first 2KB):\n"), command="python3 -c \"import pandas\""),
         "pool conversacion-act1-pln__session.jsonl:29 (tool_result content)"),
    Rule("pi-truncated", ("pi",), "truncated",
         lambda f: re.search(r"\[Showing lines \d+-\d+ of \d+[^\]\n]{0,40}\. Full output: ",
                             (f.output or "")[-2000:]) is not None,
         CallFacts("pi", "bash", "completed", 0, output=(
             "/home/selim/Documents/Code/civ6.ch/cmd/civ6/main.go\n/home/selim/Documents/Code/"
             "civ6.ch/cmd/tmptourism/main.go\n\n\n[Showing lines 12794-13366 of 13366 (50.0KB "
             "limit). Full output: /tmp/pi-bash-21c61eba751853bb.log]"),
                   command="find /home/selim/Documents/Code/civ6.ch -type f"),
         "pool civ6.ch__session.jsonl:8 (bash toolResult content, details.truncation)"),
    Rule("gemini-input-invalid", ("gemini-cli",), "input_invalid",
         _error(r"Invalid parameters provided\. Reason: |must have required property"),
         CallFacts("gemini-cli", "grep", "error", error=(
             "Error: Invalid parameters provided. Reason: params must have required "
             "property 'pattern'")),
         "(no real line yet) google-gemini/gemini-cli packages/core/src/tools/tools.ts "
         "(ToolErrorType.INVALID_TOOL_PARAMS)"),
    Rule("pi-input-invalid", ("pi",), "input_invalid",
         _error(r"^Validation failed for tool "),
         CallFacts("pi", "read", "error", error=(
             'Validation failed for tool "read":\n  - path: must have required property '
             "'path'")),
         "(no real line yet) badlogic/pi-mono packages/ai/src/utils/validation.ts "
         "(validateToolArguments)"),
    Rule("codex-patch-apply-failed", ("codex",), "tool_error",
         lambda f: f.tool == "apply_patch" and f.status == "error" and bool(f.error)
         and not f.error.startswith(("patch rejected", "aborted")),
         CallFacts("codex", "apply_patch", "error", error=(
             "apply_patch verification failed: Failed to find expected lines in /Users/"
             "rythme/developer/blockchain/Civitas-Sol/frontend/app/api/vault/init/route.ts:\n"
             "    const USDC_MINT = new PublicKey(")),
         "labelled/soulpass__codex-session.jsonl:634 (custom_tool_call_output: the patch "
         "not applied, as codex-patch-failed reads it; codex-rs PatchApplyEndEvent "
         "{success: false} is the other form; fixtures/examples/lines.txt)"),
    Rule("waiting-for-input", _ALL, "waiting_for_input", _cut_at_prompt,
         CallFacts("opencode", "bash", "completed", output=(
             "Exporting session: latest\n\x1b[0m\n┌  Export session\n\x1b[?25l│\n◆  "
             "Select session to export\n\n│  Search: _\n│  ● GitHub access request (5/22/2026, "
             "9:10:48 PM • C0XgUH2I)\n│  ○ Add Bootstrap doc URLs to all PHP files (@general "
             "subagent)\n│  ↑/↓ to select • Enter: confirm • Type: to search\n└\n\n<shell_metadata>\n"
             "shell tool terminated command after exceeding timeout 120000 ms. If this "
             "command is expected to take longer and is not waiting for interactive "
             "input, retry with a larger timeout value in milliseconds.\n</shell_metadata>"),
                   command="cd /Users/j0hnd003/Develop/GitHub/server/k1lib-project/"
                           "k1.lib-bootstrap && opencode export 2>&1"),
         "labelled/k1.lib-bootstrap__session-export.json:54745 (bash state.output: "
         "opencode export's session picker, cut by the 120 s timeout; "
         "fixtures/examples/lines.txt)"),
)


def call_signals(f: CallFacts) -> tuple[str, ...]:
    """The signals of one call, in :data:`SIGNALS` order, each once."""
    got = {r.signal for r in RULES if f.agent in r.agents and r.test(f)}
    return tuple(s for s in SIGNALS if s in got)


def user_reason(error: str) -> str | None:
    """What the user said when rejecting a call (Claude Code puts it in the tool result:
    "... the user said:\\n<reason>" or "The user provided the following reason for the
    rejection: <reason>")."""
    m = re.search(r"(?:the user said:|reason for the rejection:)\s*(.+)", error, re.S | re.I)
    if m is None:
        return None
    reason = m.group(1).strip()
    return reason[:400] or None


def failure_line(output: str) -> str | None:
    """The concrete line a failed run failed with: its most specific error line (an
    exception with its message over a line that says error, over a bare "exit status 1";
    advice, warnings and stack frames never: :func:`logparse.errorline.specific_line`),
    else the last non-empty line; ``None`` for an empty output."""
    return specific_line(output)


# ----------------------------------------------------------------- the user corrects
@dataclass(frozen=True)
class Cue:
    """A short phrase by which a user corrects the agent's work (after the structural
    signals: a rejection, a stopped run); ``example`` is a real user message (trimmed)."""

    name: str
    pattern: re.Pattern[str]
    example: str
    source: str
    counter: tuple[str, ...] = ()
    """Real lines (trimmed) the row must not fire on: lines that use its words for
    something else (a plan, a negation, a state described); the test that walks the
    rows checks them, the way a linter keeps its "should not match" cases."""


CORRECTION_CUES: tuple[Cue, ...] = (
    # (Python only) not "no corrections", nor asked ("any corrections?")
    Cue("correction", re.compile(r"(?<!\bno\s)(?<!\bany\s)\bcorrections?\b"
                                 r"(?!\s+(?:factor|term|step))(?![^.!\n]{0,40}\?)", re.I),
        "two small q3 README corrections:  1. version fix: the 1inch router at 0x1111 is "
        "Aggregation Router V4, not V3.",
        "pool blockchain-dex-events__claude-session.jsonl (user, Q3 README)",
        ("looks good, no corrections needed", "do you need corrections from me?")),  # written
    # a label the user puts before a fix of the agent's work ("one URL accuracy fix: …",
    # "i did a fix: was … i did …"); the other languages' labels with their colon (a bare
    # "correção" is a word of specs and plans)
    Cue("fix-colon", re.compile(r"\b(?:\w+\s+)?fix(?:es)?:\s", re.I),
        "one URL accuracy fix: polygon-rpc.com is operated by Ankr, and the keyed URL you "
        "actually get after signup is path-based",
        "pool blockchain-dex-events__claude-session.jsonl (user, Q1 URL); "
        "k1.lib-bootstrap__session-export.json #338 'i did a fix: was : …' (user)"),
    # a token with a digit, "not", another: each token read once (linear on digit runs)
    Cue("x-not-y", re.compile(r"(?<![\w.])(?=[\w.]*?\d)[\w.]++,\s+(?:not|no|n[aã]o)\s+"
                              r"(?=[\w.]*?\d)[\w.]++"
                              r"|\(not\s+(?:a|an|the)\s[^)]{1,60}\)", re.I),
        "is Aggregation Router V4, not V3. (V3 lives at a different 0x1111... address.)",
        "pool blockchain-dex-events__claude-session.jsonl (user, Q3 README)"),
    # what the agent relied on is gone: no more such a thing, it no longer exists, it was
    # removed (written first with one session's words: a tab "no more" on a site)
    Cue("no-longer-there", re.compile(
        r"\bno\s+(?:more|longer\s+(?:a|an|any))\s+[\"'`“]?[A-Za-z][\w ]{0,30}[\"'`”]?\s+"
        r"(?:tabs?|pages?|options?|buttons?|fields?|commands?|flags?|endpoints?|apis?"
        r"|settings?|menus?|sections?|columns?|parameters?|methods?|functions?|fields?)\b"
        r"|\b(?:no\s+longer|doesn'?t|does\s+not)\s+exists?\s+(?:anymore|any\s+more)\b"
        r"|\bno\s+longer\s+exists?\b"
        r"|\bya\s+no\s+(?:existe|hay|est[aá])\b|\b(?:n[aã]o\s+(?:existe|tem|h[aá])\s+mais"
        r"|j[aá]\s+n[aã]o\s+(?:existe|tem|h[aá]))\b|已经(?:没有|不存在)|不再(?:有|存在)"
        r"|已被(?:移除|删除|弃用)", re.I),
        "couple updates on q2 before q3:  1. no more \"DEX Trades\" tab on etherscan.",
        "pool blockchain-dex-events__claude-session.jsonl (user, Q2 README)"),
)


CORRECTION_CUES += (
    Cue("other-target", re.compile(
        r"\b(?:it'?s|that'?s|this\s+is)\s+(?:a\s+)?(?:different|another|the\s+wrong)\s+"
        r"(?:\w+\s+)?(?:program|app|application|project|repo|file|one|thing|tool|service|"
        r"process|folder|directory|branch|server|package)\b|\bit'?s\s+something\s+else\b",
        re.I),
        "Wait it's a different program. What's the program that si running at my system start",
        "speakfree__session.jsonl:57 (user)"),
    Cue("not-it", re.compile(r"\bI\s+don'?t\s+think\s+(?:that'?s|this\s+is|it'?s)\s+"
                             r"(?:it|right|correct|the\s+one)\b", re.I),
        "I don't think that's it. It's something else, I hold down function and it records",
        "speakfree__session.jsonl:76 (user)"),
)


def correction_phrase(text: str) -> str | None:
    """The phrase of a user message that corrects what the agent did or wrote (a fact the
    agent got wrong, a correction list), else ``None``."""
    head = text[:2000]
    for cue in CORRECTION_CUES:
        m = cue.pattern.search(head)
        if m is not None:
            return m.group().strip()
    return None


# Corrections in the other languages of the pool, each row with a real line (rows written
# for Portuguese, Japanese and Chinese with no real line were dropped, cues14): a result
# that does not work, a request the agent misread.  Short, language-aware rows;
# the structure (a user message right after the agent's claimed result) is read by the
# episode rules (``kb.graph.episodes.refuted_episodes``).
CORRECTION_CUES += (
    Cue("es-no-funciona", re.compile(
        r"\bno\s+(?:anda|anduvo|funciona|funcion[oó]|sirve|sirvi[oó]|carga|cambi[oó]"
        r"|aparece|se\s+ve)\b", re.I),
        "no anduvo, estoy en PyCharm con keybinds de VSCODE",
        "pool conversacion-act1-pln__session.jsonl:282 (user)"),
    Cue("es-no-dije", re.compile(
        r"\bpero\s+(?:yo\s+)?no\s+(?:te\s+)?(?:dije|ped[ií]|pregunt[eé]|quer[ií]a)\b", re.I),
        "Perfecto, pero yo no te dije explicitamente a que se puede deber la discrepancia, "
        "solo pregunte si la muestra es representativa, entonces?",
        "pool conversacion-act1-pln__session.jsonl:158 (user)"),
)



PERSIST = re.compile(
    r"\b(?:still|again|same|anymore|any more)\b"
    r"|\b(?:sigue|todav[ií]a|otra\s+vez|de\s+nuevo|lo\s+mismo|ainda|de\s+novo|continua)\b"
    r"|まだ|また|相変わらず|同じ|还是|仍然|依然|又|同样", re.I)
"""A user's word for a problem that is still there ("still", "sigue", "まだ", "还是"): the
report is about the turn just before it."""


# ----------------------------------------------------------------- the fix did not take
STILL_BROKEN_CUES: tuple[Cue, ...] = (
    # (read in Python only: lookarounds) "it's not the same as before" says it changed, "is
    # it the same as before?" asks: neither reports the fix did not take
    Cue("en-same-as-before", re.compile(
        r"\b(?:it'?s|its|is|looks?|still)\s+(?!(?:not|no|never)\b)(?:\w+\s+)?(?:the\s+)?"
        r"same(?:\s+as\s+before\b(?!\s*\?)|"
        r"(?=\s*(?:$|[.,!;:)\n])|\s+(?:thing|again|problem|issue|error|result|behaviou?r|here"
        r"|now|still)\b))"
        r"|\bnothing\s+(?:has\s+)?changed\b|\bno\s+(?:visible\s+)?(?:change|difference)\b"
        r"|\b(?:did(?:n'?t|\s+not)|does(?:n'?t|\s+not))\s+(?:change|fix|solve|resolve)\s+"
        r"(?:anything|it|that|the\s+\w+)\b", re.I),
        "what did u do. now its the same as before aurora goes till the end of home page",
        "uicomponents__session-export.json:166 (user)",
        ("it's not the same as before, the hero is taller now",  # written: negated
         "is it the same as before?")),  # written: asked
    Cue("en-does-nothing", re.compile(
        r"\b(?:do(?:es)?n'?t|do(?:es)?\s+not|dont|doesnt)\s+(?:\w+\s+or\s+)?do\s+anything\b"
        r"|\bnothing\s+happens\b", re.I),
        "use the portoflio bg on for the hero section until the navbar below it not the "
        "entire page and the navbar buttons dont work or do anything.",
        "uicomponents__session-export.json:138 (user)"),
    Cue("es-no-resolvio", re.compile(
        r"\bno\s+(?:se\s+)?(?:resolvi[oó]|solucion[oó]|arregl[oó]|corrigi[oó])\b"
        r"|\bsigue\s+(?:igual|sin|dando|apareciendo|saliendo|pasando)\b"
        r"|\b(?:el\s+)?mismo\s+(?:error|problema|resultado)\b|\bnada\s+cambi[oó]\b"
        r"|\bno\s+(?:cambi[oó]|hace)\s+nada\b", re.I),
        "CLAUDE parece que arreglo que se vea mejor, pero no resolvio lo de las oraciones",
        "pool conversacion-act1-pln__session.jsonl:86 (user)"),
)
"""How a user reports that the agent's fix did not take: the result is the same as before,
nothing changed, the problem was not solved.  Read on a user message after a turn that
changed something (``kb.graph.episodes.refuted_episodes``); such a message speaks of that
turn's work whatever words it shares with it."""

_APPROVAL = re.compile(
    r"\b(?:thanks|thank\s+you|works?\s+(?:now|great|fine)|perfect|great|gracias|perfecto"
    r"|funciona|obrigad[oa]|funcionou)\b|ありがとう|完璧|谢谢|可以了|好了", re.I)
_BUT = re.compile(r"\b(?:but|pero|mas|por[ée]m)\b|でも|けど|但|不过", re.I)


def still_broken_phrase(text: str) -> str | None:
    """The phrase of a user message that says the last fix did not take ("nothing
    changed", "no resolvió", "変わらない", "没有变化"), else ``None``.  Praise with no
    "but" after it ("perfect, nothing changed elsewhere") is no report."""
    head = text[:2000]
    for cue in STILL_BROKEN_CUES:
        m = cue.pattern.search(head)
        if m is None:
            continue
        ok = _APPROVAL.search(head)
        if ok is not None and ok.start() < m.start() and _BUT.search(head, ok.end(),
                                                                     m.start()) is None:
            return None
        return m.group().strip()
    return None


# ----------------------------------------------------------------- the agent admits
ADMISSION_HEAD = 300
"""Characters at the start of a reply in which an admission counts: "You're right" opens
the reply that takes a correction in; deep in a reply the words quote or explain."""

ADMISSION_CUES: tuple[Cue, ...] = (
    Cue("en-you-are-right", re.compile(
        r"(?:^|[.!\n])\W{0,8}(?:you'?re|you\s+are)\s+(?:absolutely\s+|totally\s+|quite\s+)?"
        r"(?:right|correct)\b", re.I),
        "You're right. The demo CSS should only be for the demo layout (sections, preview "
        "boxes, code blocks, etc.), not for styling Bootstrap components",
        "k1.lib-bootstrap__session-export.json:51958 (assistant text)"),
    Cue("en-i-was-wrong", re.compile(
        r"\b(?:I\s+was\s+wrong|my\s+(?:mistake|bad)|I\s+stand\s+corrected"
        r"|I\s+made\s+(?:a|an)\s+(?:mistake|error)|I\s+misread|I\s+misunderstood)\b", re.I),
        "Wait, I think I misread the layout.",
        "uicomponents__session-export.json:18171 (reasoning, #194: the user said the titles "
        "were not centred)"),
    Cue("es-tenes-razon", re.compile(
        r"\b(?:ten[eé]s|tienes|tiene)\s+(?:toda\s+la\s+)?raz[oó]n\b", re.I),
        "Tenés razón. El análisis de las causas de la discrepancia lo generé yo, no vos.",
        "pool conversacion-act1-pln__session.jsonl:159 (assistant)"),
    Cue("es-me-equivoque", re.compile(
        r"\bme\s+equivoqu[eé]|\b(?:fue|es)\s+(?:un\s+)?error\s+m[ií]o\b", re.I),
        "Me equivoqué. Gracias por cuestionarlo.",
        "pool conversacion-act1-pln__session.jsonl:122 (assistant)"),
)
"""How an agent takes a correction in: it says the user is right, or that it was wrong.
Read at the head of a reply that follows a user message (see
``kb.graph.episodes.admitted_episodes``)."""


def admission_phrase(text: str) -> str | None:
    """The phrase by which a reply admits that what the agent said or did was wrong
    ("You're right", "Me equivoqué"), when the reply opens with it; else ``None``."""
    head = text.lstrip()[:ADMISSION_HEAD]
    for cue in ADMISSION_CUES:
        m = cue.pattern.search(head)
        if m is not None:
            return m.group().strip(" .!\n")
    return None


# ----------------------------------------------------------------- the agent supersedes
SUPERSEDED_CUES: tuple[Cue, ...] = (
    Cue("en-superseded", re.compile(r"\bsupersed(?:ed|es|ing)\b", re.I),
        "### Repo structure (Q12) — SUPERSEDED by [ADR-022](./0022-fundy-moves-to-a-separate-"
        "repository.md)",
        "pool FundWise__claude-session.jsonl (Edit of docs/adr/0018-…md, ordinal 27)"),
)
"""Words an edit writes into a document to mark an earlier decision or design as replaced
(an ADR's "Superseded by ADR-022"): the design it marks was a dead end, replaced at the
request that led to the edit (see ``kb.graph.episodes.superseded_episodes``)."""


def superseded_phrase(line: str) -> str | None:
    """The words of a written line that mark something as superseded, else ``None``."""
    for cue in SUPERSEDED_CUES:
        m = cue.pattern.search(line[:600])
        if m is not None:
            return m.group()
    return None


# ----------------------------------------------------------------- the agent drops a guess
DISMISSAL_CUES: tuple[Cue, ...] = (
    Cue("en-is-normal", re.compile(
        r"\b(?:is|are|was|were)\s+(?:completely\s+|perfectly\s+)?(?:normal|harmless|benign)\b"
        # "is expected" but not "is expected to be …" (a state described, not a finding;
        # RE2 has no lookahead: the word after it is not "to")
        r"|\b(?:is|are|was|were)\s+(?:completely\s+|perfectly\s+)?expected"
        r"(?:$|[^\w\s]|\s+(?:$|[^t\s]|t[^o]|to\w))", re.I),
        "The two processes are normal — it's a parent/child pair. The server is responding "
        "on port 2022.",
        "speakfree__session.jsonl:65 (assistant)",
        ("Looking at Bootstrap 5 alert-dismissible markup, the btn-close is expected to be "
         "inside the alert div, and it uses flexbox",  # shared k1 (reasoning after a guess)
         )),
    Cue("en-not-the-cause", re.compile(
        r"\b(?:is|are|was|were)(?:n'?t|\s+not)\s+(?:the|a)\s+(?:root\s+)?(?:cause|culprit"
        r"|issue|problem)\b"
        # "is a red herring", "Red herring:", not "isn't a red herring"
        r"|(?:^|\n[ \t]{0,3}|[^\w\s'’][ \t]{0,3}|\b(?:is|was|are|were|s|just|probably|likely|clearly)\s+"
        r"(?:a\s+|just\s+a\s+)?)red\s+herring\b"
        # "ruled it out", "that rules out", "we can rule out": done, not "I want to rule
        # out" (a plan; "can't"/"cannot" are no "can\s"), nor negated: the word before
        # "ruled" is one that states it ("we", "has been"), never "haven't", "not", "never"
        # (RE2 has no lookbehind: the allowed words are listed)
        r"|(?:^|\n[ \t]{0,3}|[^\w\s'’][ \t]{0,3}|\b(?:I|we|you|they|he|she|it|that|this|which|what|ve|have|has"
        r"|had|is|was|are|were|now|also|already|then|so|and|effectively|clearly|finally"
        r"|fully|definitively|largely|mostly|safely|(?:has|have|had)\s+(?:now\s+|already\s+)?"
        r"been|(?:can|could)\s+(?:now\s+|safely\s+)?be)\s+)(?:ruled|rules)\s+(?:it\s+"
        r"|that\s+|this\s+|them\s+)?out\b"
        r"|\b(?:can|could)\s+(?:now\s+|safely\s+)?rule\s+(?:it\s+|that\s+|this\s+"
        r"|them\s+)?out\b"
        r"|\b(?:that|this)\s+(?:wasn'?t|was\s+not|isn'?t|is\s+not)\s+it\b", re.I),
        "Prepared statements aren't the problem (1.21 tracks protocol-level ones, and "
        "psycopg2 doesn't prepare anything anyway).",
        "fixtures/campaigns/pgpool.py:584 (assistant; fixtures/examples/lines.txt)",
        ("The script might be failing early—possibly due to DOM elements being accessed "
         "before fully loaded. I want to rule out CSS or layout issues, script module "
         "loading quirks",  # a plan: shared codex/exported-session.jsonl (reasoning)
         # negated (written: no tune/shared line says it; cues13b left it open)
         "We haven't ruled out the cache yet, so the next run clears it first.",
         "The stale lockfile has not been ruled out.",
         "The proxy is not a red herring: the 502 comes from it.",
         )),
)
"""How an agent drops a guess it made ("that's likely the issue" … "the two processes are
normal"): read after a guess that names the same things (see
``kb.graph.episodes.dropped_episodes``)."""


def dismissal_phrase(sentence: str) -> str | None:
    """The words of a sentence that dismiss a guess as the cause, else ``None``."""
    for cue in DISMISSAL_CUES:
        m = cue.pattern.search(sentence[:600])
        if m is not None:
            return m.group()
    return None


def dismissed_subject(sentence: str) -> str | None:
    """What a dismissing sentence dismisses: the words before its dismissal ("The two
    processes" of "The two processes are normal"), else ``None``."""
    for cue in DISMISSAL_CUES:
        m = cue.pattern.search(sentence[:600])
        if m is not None:
            return sentence[max(0, m.start() - 80):m.start()]
    return None


# ----------------------------------------------------------------- turns the user stopped
@dataclass(frozen=True)
class TurnMark:
    """A user record that an agent writes itself when the user stops a turn (not words
    the user typed): the turn before it was cut off."""

    name: str
    agents: tuple[str, ...]
    signal: str
    prefix: str
    example: str
    source: str


TURN_MARKS: tuple[TurnMark, ...] = (
    TurnMark("claude-request-interrupted", ("claude-code",), "aborted_turn",
             "[Request interrupted by user]", "[Request interrupted by user]",
             "pool conversacion-act1-pln__session.jsonl:303 (user text)"),
    TurnMark("codex-turn-aborted", ("codex",), "aborted_turn", "<turn_aborted>",
             "<turn_aborted>\nThe user interrupted the previous turn on purpose. Any running "
             "unified exec processes were terminated.",
             "Trezo-Ai__codex-session.jsonl:157 (response_item user message)"),
)


def turn_mark(text: str) -> TurnMark | None:
    """The mark a user record is, when the agent wrote it for a turn the user stopped
    (``[Request interrupted by user for tool use]`` is a call's, not a turn's)."""
    head = text.lstrip()[:80]
    for m in TURN_MARKS:
        if head.startswith(m.prefix):
            return m
    return None


# ----------------------------------------------------------------- what a turn ended with
TURN_SIGNALS = ("api_error", "aborted_turn", "truncated", "input_invalid", "compacted")
"""Signals of a whole reply (a message), read from the fields every reader fills the
opencode way: ``finish``, the message ``error`` (``Name: message``) and a compaction."""

API_ERROR_KINDS = ("auth", "quota", "overload", "model", "context", "other")


@dataclass(frozen=True)
class MessageFacts:
    """The fields of one message the turn rules read (as the readers store them)."""

    role: str
    finish: str | None = None
    """opencode's finish reason: ``stop``, ``tool-calls``, ``length`` (each reader maps its
    agent's own stop reason to these)."""
    error: str | None = None
    """The message's error as stored: its name, then ``: `` and its message."""
    compacted: bool = False
    agent: str = ""


@dataclass(frozen=True)
class TurnRule:
    name: str
    agents: tuple[str, ...]
    signal: str
    test: Callable[[MessageFacts], bool]
    example: MessageFacts
    source: str


def _named(*names: str) -> Callable[[MessageFacts], bool]:
    return lambda m: bool(m.error) and (m.error or "").startswith(names)


def _aborted(m: MessageFacts) -> bool:
    return bool(m.error) and "abort" in (m.error or "").lower()


def _cut(m: MessageFacts) -> bool:
    return m.finish == "length" or _named("MessageOutputLengthError")(m)


def _call_refused(m: MessageFacts) -> bool:
    return _named("ToolCallError")(m)


TURN_RULES: tuple[TurnRule, ...] = (
    TurnRule("finish-length", _ALL, "truncated", lambda m: m.finish == "length",
             MessageFacts("assistant", finish="length", agent="opencode"),
             "labelled/pfm-categorization__opencode-session.json:1665 (info.finish)"),
    TurnRule("opencode-output-length", ("opencode",), "truncated",
             _named("MessageOutputLengthError"),
             MessageFacts("assistant", error="MessageOutputLengthError", agent="opencode"),
             "(no real line yet) sst/opencode packages/opencode/src/session/message-v2.ts "
             "(OutputLengthError: the reply hit the output-token limit)"),
    TurnRule("claude-max-tokens", ("claude-code",), "truncated",
             lambda m: m.finish == "length",
             MessageFacts("assistant", finish="length", agent="claude-code"),
             "(no real line yet) Claude Code message.stop_reason max_tokens (read as "
             "finish length by logparse.claude_code)"),
    TurnRule("pi-length", ("pi",), "truncated", lambda m: m.finish == "length",
             MessageFacts("assistant", finish="length", agent="pi"),
             "(no real line yet) badlogic/pi-mono packages/ai/src/types.ts StopReason "
             "\"length\""),
    TurnRule("aborted", _ALL, "aborted_turn", _aborted,
             MessageFacts("assistant", error="MessageAbortedError: Aborted",
                          agent="opencode"),
             "labelled/uicomponents__session-wordpress.json:16647 (info.error)"),
    TurnRule("codex-aborted-turn", ("codex",), "aborted_turn", _aborted,
             MessageFacts("assistant", error="MessageAbortedError: turn aborted: interrupted",
                          agent="codex"),
             "labelled/soulpass__codex-session.jsonl:291 (event_msg turn_aborted "
             "reason interrupted)"),
    TurnRule("tool-call-refused", ("antigravity",), "input_invalid", _call_refused,
             MessageFacts("assistant", error=(
                 "ToolCallError: There was a problem parsing the tool call."),
                 agent="antigravity"),
             "(no real line yet) Antigravity ERROR_MESSAGE step answering no call "
             "(logparse.antigravity)"),
    TurnRule("api-error", _ALL, "api_error",
             lambda m: bool(m.error) and not _aborted(m) and not _cut(m)
             and not _call_refused(m),
             MessageFacts("assistant", error=(
                 "APIError: You've hit your limit · resets 7pm (America/Mendoza)"),
                 agent="claude-code"),
             "pool conversacion-act1-pln__session.jsonl:499 (isApiErrorMessage, error "
             "rate_limit)"),
    TurnRule("compaction", _ALL, "compacted", lambda m: m.compacted,
             MessageFacts("assistant", compacted=True, agent="claude-code"),
             "labelled/will-it-rain__claude.jsonl:712 (system compact_boundary)"),
)
"""Rows that read what a reply ended with; ``tests/logparse/test_structural.py`` walks
them and :mod:`logparse.coverage` names them per agent."""


def message_signals(m: MessageFacts) -> tuple[str, ...]:
    """The signals of one message, in :data:`TURN_SIGNALS` order, each once."""
    got = {r.signal for r in TURN_RULES if (not m.agent or m.agent in r.agents) and r.test(m)}
    return tuple(s for s in TURN_SIGNALS if s in got)


@dataclass(frozen=True)
class ApiErrorKind:
    name: str
    kind: str
    pattern: re.Pattern[str]
    example: str
    source: str


API_ERROR_RULES: tuple[ApiErrorKind, ...] = (
    ApiErrorKind("auth", "auth", re.compile(
        r"^ProviderAuthError\b|\b(?:401|403)\b|authentication_(?:error|failed)|unauthori[sz]ed"
        r"|invalid (?:x-)?api[ _-]?key|api key (?:disabled|not valid|invalid)|please run /login"
        r"|OAuth token (?:has )?expired", re.I),
        "APIError: 401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\","
        "\"message\":\"OAuth token has expired.\"}}",
        "(no real line yet) Claude Code isApiErrorMessage, error authentication_failed"),
    ApiErrorKind("quota", "quota", re.compile(
        r"hit your (?:usage )?limit|usage limit|rate[ _-]?limit|\b429\b|quota"
        r"|billing_error|insufficient (?:credit|balance|funds)|credit balance is too low", re.I),
        "APIError: You've hit your limit · resets 7pm (America/Mendoza)",
        "pool conversacion-act1-pln__session.jsonl:499 (isApiErrorMessage, error rate_limit)"),
    ApiErrorKind("overload", "overload", re.compile(
        r"overloaded|\b(?:500|502|503|529)\b|server_error|internal server error"
        r"|service unavailable|stream disconnected|connection (?:error|reset|refused)"
        r"|ECONNRESET|fetch failed|timed? ?out", re.I),
        "APIError: API Error: 529 Overloaded. This is a server-side issue, usually temporary "
        "— try again in a moment. If it persists, check your inference gateway "
        "(127.0.0.1:59265).",
        f"{_REC}:101 (isApiErrorMessage, apiErrorStatus 529, apiErrorType overloaded_error)"),
    ApiErrorKind("context", "context", re.compile(
        r"prompt is too long|context (?:window|length)|context_length_exceeded"
        r"|maximum context|ContextOverflowError|too many tokens", re.I),
        "APIError: Codex ran out of room in the model's context window. Start a new thread "
        "or clear earlier history before retrying.",
        "(no real line yet) openai/codex CodexErrorInfo::ContextWindowExceeded"),
    ApiErrorKind("model", "model", re.compile(
        r"model[^.\n]{0,60}(?:not found|does not exist|not supported|not available|unknown"
        r"|invalid)|(?:unknown|invalid|unsupported) model|not_found_error|ModelNotFound"
        r"|issue with the selected model", re.I),
        "APIError: There's an issue with the selected model (claude-bogus-9). It may not "
        "exist or you may not have access to it. Run --model to pick a different model.",
        f"{_REC}:172 (isApiErrorMessage after `--model claude-bogus-9`, apiErrorStatus 404)"),
)
"""The kind of a provider error (issue 22: model, quota, overload, auth; and a context
that no longer fits), first matching row wins; ``other`` when none does."""


def api_error_kind(text: str) -> str:
    """The kind (:data:`API_ERROR_KINDS`) of a provider error's stored text."""
    for r in API_ERROR_RULES:
        if r.pattern.search(text[:600]):
            return r.kind
    return "other"
