"""The version of the derivation rules (:mod:`logparse.derive`), in a module of its own:
an ingest compares it with what each stored session was derived by before it knows
whether anything needs deriving, and a re-run with nothing changed never loads the
rules themselves (~0.1 s of CPU)."""

from __future__ import annotations

DERIVE_VERSION = 81
"""The version of the rules that turn messages into events (error signatures,
measurements, prose classes, the shell parse).  Bump it when they change what they
derive: a knowledge base derived by older rules is derived again from its sources
(``kb.ingest``; ``logkb rebuild --events``).  2: the error families and tool summaries
of 2026-12-03 (Go, JVM, Kubernetes, AWS, PostgreSQL, Terraform counts …).  3: the
measurement tables and lists of 2026-12-04.  4: a timeout at a prompt is its own
signature (``Timed out waiting for interactive input``).  5: a program run followed by
greps of its output is categorised by the run, not as a search.  6: coding-session categories
(test, lint, typecheck, git, file, http, run, ...).  7: cache and reasoning tokens are
columns of `messages`, from every agent's own fields.  8: what the agents' own fields
report as measurements (turn durations as ``stat`` events, a sub-agent's run, a read
file's length, a Codex call's duration), a failing command's exit code, each count of a
``wc`` listing; Codex's "Original token count" is not one.  9: the part of Claude Code's
cache writes that went to the one-hour cache (``tokens_cache_write_1h``).  10 (measure3):
the size of an output Codex cut (its note kept at the output's head), the run time of a
call the user aborted and of an aborted turn, PowerShell ``Get-ChildItem`` file sizes,
echoed exit statuses (``exit=2``), counts stated with "now" (``7 gems now installed``),
size and count fields of JSON answers (``dataLen``), a finished progress counter
(``pages (47/47)``), compiler warnings, the count of what a listing command listed
(:mod:`logparse.listings`); a rule that raises is counted and reported, no longer
silently ``[]``.  11: Claude Code API errors that no answer followed are the assistant
message that failed (they were lines of the next message, their retries unread).  12
(xmeasure): results stated in words (:mod:`logparse.measure_stated`: test tallies in
prose, the value before a change, ``is now``, an HTTP status a request returned, npm
audit's severity line, a finished action's count, mocha's tally), what a read tool
noted (a directory's entries, a refused read's size), curl ``--write-out`` values, an
API error's HTTP status, a Codex turn aborted after its ``<turn_aborted>`` message; style
values and bounds (``larger than 500 kB``) are no longer readings.  13 (codexrd): a Codex
command that returned while it still ran takes its final exit code, output and run time
from its ``exec_command_end`` or from the poll that read its exit; ``write_stdin`` polls
name the call they poll and no longer carry its exit code; a call whose output never came
keeps the answer of its ``exec_command_end``.  14 (xmeas): noise
out (grep hit counts, ``ls`` and directory entry counts, prose match counts, animation and CSS
values, ``First 200 chars``, ``~40B`` in prose, camelCase ids such as ``TradingAccount``);
test tallies keep a unit with a better side (``Failures: 1``); rspec, minitest and bun
summaries; ``wc -l FILE`` of one file (:mod:`logparse.measure_kinds` lists every kind).
15 (xcodex): a Codex call whose approval was denied (``exec command rejected by user``,
``patch rejected by user``, the reviewer's or the policy's refusal) is a failed call, an
MCP call fails when its ``mcp_tool_call_end`` says so (one only in that event is a call),
and an injected ``<skill>`` (and newer builds' context markers) is no prompt.
16 (rdag): what an agent's harness sends the model is a ``system`` message whose text is ``context``
(Antigravity's ``SYSTEM_MESSAGE``, ``CHECKPOINT`` and the other system steps), never a
prompt; a Gemini CLI sub-agent chat names its parent session and the call that started
it names the chat.
17 (xmeas2): HTTP statuses of error lines (``The requested URL returned error: 404`` of
curl and git, ``404 Not Found`` with its own reason phrase from wget and npm, requests'
``404 Client Error``), the files tsc and svelte-check found errors in, each psql result's
``(N rows)`` labelled by its columns (a psql table's cells are data, no readings), the
``Length`` column of a PowerShell table, swift test's run times (XCTest, swift-testing),
MSBuild's warnings, errors and elapsed time; a stated result is dropped only where the line
rules read the same place or the same value and unit (no longer any equal value).
18 (hand2): a Codex reply followed by its turn's ``task_complete`` at the end of the file is
complete (``time.completed``), no longer a reply still being written.
19 (xsub): a Claude Code ``<task-notification>`` (the outcome of a background sub-agent or
command, written as a user message) is no prompt of the user's.
20 (xcause4): a traceback's signature is its exception line, not a line the program
printed to stdout between the frames (``Showcase`` before ``UnicodeEncodeError: …``).
21 (xsig): Claude Code's ``max_tokens`` stop reason is finish ``length`` (opencode's word);
a Codex ``error`` event is the reply that failed (an ``APIError``, as Claude Code's API
errors), and a ``patch_apply_end`` with ``success: false`` fails its ``apply_patch`` call.
22 (xfit): the dead-end verdicts of assistant prose in Spanish, Portuguese and Chinese
("no funcionó", "não funciona", "行不通") class it as a dead end, as the English ones do.
23 (xcsub): a Codex sub-agent's rollout names the thread that spawned it (its parent
session) and the ``spawn_agent`` call names the sub-agent's session
(``child_session_id``).
24 (xlang): the decisions, pivots and conclusions of assistant prose in Spanish, Portuguese
and Chinese ("te recomiendo", "em vez disso", "改为", "esto significa", "原因是") class
it as the English ones do.
25 (xdecide): a user's direction-setting prompt ("let's do small.en", "use hybrid approach",
"use option a", "vamos ignorar …") is classed ``decision`` (:mod:`logparse.decide`); an
answered question tool or an approved plan adds a ``decision`` event of source
``choice``.  26 (xmeas2): runner summaries and stated before/after counts
(:mod:`logparse.measure_runners`: PHPUnit counts and clock time, cargo's ``in 1m 02s``,
Node's TAP ``# tests``/``# duration_ms``, bun's ``Ran N tests … [ms]``, pyright's
summary, Istanbul's and coverage.py's coverage totals, pi's cut-output length, ``from
1,486 down to 494 errors``, ``coverage from 51% to 77.7%``).
27 (xdecide2): a short reply approving what the agent's last reply asked or
offered ("yes please", "sim, pode", "2", "1. no 2. no") is classed ``decision`` and adds a
``choice`` event holding what was approved; a reply stating the agent's own choice ("I'll
use …", "… instead", "rather than …") adds a ``choice`` event with the option, the one it
drops and the reason (:mod:`logparse.decide_choice`).
28 (fix9): an Antigravity session's info lists the id a copy of it cut before it names
its conversation gets (``aliases``), so the two copies are stored as one session.
29 (fix9): one sentence splitter (:mod:`logparse.sentences`): an agent's stated choice and
the question a proposal ends on are read in sentences that end at a full-width ``。！？``
(no space after it) and before a Spanish ``¿``/``¡``.
30 (xmeas3): one-line summaries read whole (:mod:`logparse.measure_summaries`): zsh's,
BSD's and GNU's ``time`` give the wall, user and system seconds (zsh's line gave the system
seconds as the user's, and no total), hyperfine its mean, spread, min, max, runs and
speed-up, CTest its tests, failures and passes; Node's spec reporter (``ℹ tests 12`` … ``ℹ
duration_ms 134.19``) its tests and run time, as its TAP reporter's; ``du -h`` lines of a bare name
(``14M\tnode_modules``) give a size; a markdown table row that names an animation
(``stagger``, ``ease``) gives no durations.
31 (rv9): a markdown table row is a design's settings only when it names an animation
(``stagger``, ``opacity``): a results row's ``120 → 85 ms`` gives its readings again; the
``time`` summaries do not start inside a clock or a date (``12:00:01.5 real``).
32 (meas10): amounts of money (``$3184.36``, ``10,000 USDG``, ``0.5 SOL``;
:mod:`logparse.measure_stated`), a key named with its unit (``"latency_ms": 123``,
``totalDurationMs``; not a moment or a setting), compound durations with a space (``2m
3s``), a Codex command's wall time to four significant figures (``18.1554 seconds`` →
18.16 s), the length of a file Claude Code's ``Read`` showed whole (``313→</html>``), and
(plumbing) the share of Codex's rate-limit window used at a turn's end; a search's JSON
answer (``jq``) gives the fields its keys name a count, size or time of; a Claude Code
``api_error`` retry its attempt, max retries and wait (plumbing); a read keeps one length.
33 (ccrec): Claude Code 2.1.332 read from a real recording (``fixtures/claude_record``): a
call the permission check refused (``toolDenialKind``, a ``permissionDecision`` of
``reject``) is an error ``denied (KIND): …`` (``rejected_by_user``); ``TaskCreate`` and
``TaskUpdate`` are ``todowrite`` calls holding the task list after them; an API error keeps
its ``apiErrorStatus`` and ``apiErrorType``; a sub-agent file's own attachments and API
requests join the sub-agent's messages; a Bash run started in the background
(``backgroundTaskId``) has no exit code of its own (its notification tells it).
34 (codexrec): Codex 0.17x rollouts (recorded from the real CLI): an ``item_completed``
``CommandExecution`` is a command's end (exit code, output, run time), as
``exec_command_end`` was, for plain calls and a code cell's commands; a
``FileChange`` a patch's answer (a cell's patch takes the one that changed its file),
an ``McpToolCall`` an MCP tool's (a cell's ``tools.mcp__SERVER__TOOL`` takes its own); a code cell's ``Script failed`` is an error (the
``Script error:`` text its error), ``Script running with cell ID N`` a cell still
running; a run a ``write_stdin`` poll waited on when the user aborted the turn is
stopped by the user (the poll's ``aborted by user after Ns``), its output kept;
``token_usage_record``, ``thread_settings_applied`` and ``additional_tools``
are known records; a turn whose ``permission_profile`` restricts the network is
offline.
35 (review10): a key's time of over three years (``"mtimeMs": 1712345678901``, fs.Stats) is a
moment, never a reading; a grep's JSON lines (``rg --json``'s ``"matches"``) give no count;
an amount after another on its line is labelled by their subject (``USDC out``); a
debounce or a throttle (``"debounceMs": 300``) is a setting; a replacement's ``/$1.0/`` no
amount of money.
36 (review10b): a Codex item written twice in a row is read once (keys10) only when it
carries its time: a legacy rollout's bare items have none, and a prompt typed again there
is a message of its own; an ``item_completed`` ``McpToolCall`` whose status is
``failed`` or ``declined`` is an error even without an ``error`` object or ``isError``.
37 (meas11): a Codex call output's ``Original token count: N`` is read as the output's
size in tokens, a plumbing reading (:mod:`logparse.measure_plumbing`; version 8 left it out):
labellers who never saw logkb name it in three Codex sessions of both halves.
38 (codex11): a Codex rate-limit reading names its window (``rate limit used (5-hour
window)``, ``(7-day window)``), so two windows never share a label; a run the aborted turn
terminated takes the ``CommandExecution`` Codex 0.17x writes after ``turn_aborted`` (its
output, how long it ran; exit -1 is the kill, no exit code); a yielded code cell's command
(``Script running with cell ID N``) waits for its end (its ``CommandExecution``, or the
``wait`` that reads the cell's end, or the turn's abort) instead of staying
``still_running``, and a cell the user stopped (``aborted by user``) for its commands'
``CommandExecution`` after ``turn_aborted``; a ``wait`` on such a cell polls it (``input.polls``, title ``cell N``).
42: 37 and 38 together (both branches' changes, merged).
39 (claude11): a Claude Code ``TaskCreate`` that failed (invalid input, refused) takes no
task number and leaves the list as it was, so a later ``TaskUpdate`` #N names the N-th
task created (recorded from the real CLI); a task call's list is the one after the calls
before it in call order, whatever order their answers came in; ``claude -p --verbose
--output-format stream-json`` output is read (:mod:`logparse.claude_stream`); a
transcript's last ``cost-state`` is the session's own figures (info ``recorded``).
44: 42 and 39 together (both branches' changes, merged).
41 (review11): a yielded cell's commands wait for their end within their turn only, and
behind at most 1,000 messages (``codex.YIELD_HOLD``: a ``codex exec`` run is one turn):
then a cell nothing ended is let go, its commands still running (a server left up held
every later message to the hold limit, 128 MB and no resume point on a 100,000-line
file); and a ``CommandExecution`` of a command a running cell's code spells
out, started once that cell was called, is that cell's, never a yielded cell's command of
the same command line.
45: 44 and 41 together (both branches' changes, merged).
46 (codex12): a plain Codex run that returned while it ran (``Process running with
session ID N``) and that nothing polls is let go behind 1,000 messages as a yielded cell is
(``codex.YIELD_HOLD``; it held every later message up to 20,000 before); a ``wait``'s
output is what the command it read printed, not the ``exec_command`` answer as JSON (its
wall time, exit code and token count were read again as readings of the ``wait``).
47 (meas12): a call that failed without an output is measured from its error, whichever
reader kept it there (a fetch's ``status code 404``: of a tool whose output is never
read, only the HTTP status; a test run an agent marked failed, its tally), never the
size of a write that did not happen nor a listing's count of an error's lines; a
failing command's exit code is one reading though its output states it too; a file
Gemini CLI's ``read_file`` cut gives its length from the note at its head.
52: 46 and 47 together.
54 (meas13): a shell result's measurements are read from what the command printed, without
the fields its reader keeps around it (``metadata.body``): Gemini CLI's ``Output:`` …
``Process Group PGID: N`` (a ``wc -l`` count, a ``git log`` listing, a first ``ok`` line
were lost, and ``Exit Code: 0`` read as a reading), Claude Code's ``Exit code N`` line,
pi's ``Command exited with code N``; a request that failed at the provider (the message
error) measures the HTTP status it failed with, from the reader's field (opencode's
``statusCode``, Claude Code's last retry's ``error.status``) or the status its error text
states (``[API Error: got status: 429 …]``), as its retries do.
56 (fit13): an older Codex ``shell`` call answered ``{"output", "metadata": {"exit_code"}}``
whose command printed "error: …" first is a command that exited with that code, as the
same run told by ``exec_command`` is, not a tool that failed.  A Codex user message that
holds ``## My request for Codex:`` (the IDE extension's, Codex Desktop's) says the words
below it; the context above (open tabs, the active selection, files mentioned) is a
synthetic part, shown, never read as the user's.  A request that names what to build by
what it lacks ("add the missing tests", "nothing else for now") reports no failure
(:data:`logparse.iteration.NAMING_CUES`).
58: 54 and 56 together.
62 (meas14): pi's read note ``[61 more lines in file. Use offset=11 to continue.]`` gives
the lines it did not show and the file's length; kotlinc's diagnostics (``e: file:///a/
B.kt:3:5 …``, ``e: /a/B.kt: (3, 5): …``) count as compiler errors (``w:`` warnings);
Gradle's ``52 actionable tasks: 48 executed, 4 up-to-date`` gives its task counts;
``dart test``'s and ``flutter test``'s last line (``07:49 +6413 ~14 -5: Some tests
failed.``) its clock and its passed, skipped and failed tests; black's, mypy's and
ruff's summaries (files reformatted and left unchanged, source files checked, errors
fixed and remaining); pytest's ``collected 57 items``; Karma's finished ``Executed 23 of
23 (1 FAILED) (0.154 secs / 0.148 secs)``; a duration a tool spells in two units
(``Total duration: 4 min 23 sec``) is one reading in seconds, not ``4 min``.
64 (integ14): a command the user ran in pi (``bashExecution``) is a ``bash`` call of the
user's message with its output and exit code (a ``tool`` part of a user message is a
call); a Gemini CLI user record's ``functionResponse`` parts (in ``content`` or
``displayContent``) are context naming the tool and call, no longer raw or unread.
68: 62 and 64 together.
63 (cues14): injected user-side text is marked by its structure, in one place
(:func:`logparse.request.is_injected`, every reader's openers): a Codex user message that
the rollout never echoes (``event_msg`` ``user_message``, written for every message the
user types) is context Codex injected, whatever it opens with; the output of a Claude
Code ``!`` command (``<bash-stdout>``, ``<bash-stderr>``) and a prompt hook's text are
synthetic, as a local command's output is.
69: 68 and 63 together.
67 (replay14): the command a ``tmux new``/``new-window``/``split-window`` or ``screen
-dm`` session runs is parsed as a command of its own (an ssh in it is a hop).
70: 69 and 67 together.
72 (examples15): the Portuguese "instead", change of approach, decision and cause rows
and the Chinese change of means go: no line of the data says them (the rows' examples
were written); Portuguese prose keeps ``pt_means`` and its dead-end verdicts.
73 (meas15): a listing counts only the lines in its own shape (a hash first for ``git log
--oneline``, ``XY path`` for ``git status --short``, a PID for ``pgrep``, a path under a
starting point for ``find``; ``find -exec``/``-printf`` lists nothing): what an earlier
command of the same line printed is not counted; ``stat -c %s`` (BSD ``-f %z``) printed
alone is a file's size; GNU time's ``(kbytes)`` rows are KiB, not bytes.
79: 72 and 73 together.
71 (author): a prompt says who wrote it (``prose.author``, :mod:`logparse.author`):
``human``, ``queued`` (typed while the agent worked), ``parent`` (a sub-agent's task:
Claude Code ``isSidechain``, a Codex ``thread_spawn`` child, an opencode or Gemini CLI
sub-agent session), ``harness`` (injected: ``isMeta``, a slash command with no
arguments, hooks, context, synthetic parts; stored ``synthetic``) or ``compaction`` (the
summary that replaced the history, stored ``synthetic``); a direction set or an approval
is read from the human's words only.
80: 79 and 71 together.  81: the results of several
calls a Claude Code file opens with (their calls in the file before: a session split
between calls and results) are one message, not one each (two results of one line were
two messages under one id)."""
