"""Loading a scope's signal rows, persisting its graph, and the graph queries.

A *scope* is a top-level session with its subagent sessions.  Rebuilding a
scope reads only its signal rows (todo snapshots, non-routine prose, tool
calls with their outcome) and rewrites its rows in ``graph_nodes`` /
``graph_edges``; a scope whose inputs did not change (fingerprint) is left
alone.  Queries read the persisted tables and never rebuild.
"""

# no `from __future__ import annotations`: the module defines a function named annotations
import dataclasses
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import networkx as nx
import orjson
import pyarrow as pa

from kb.graph import ablate
from kb.graph import state as xstate
from kb.graph.build import build_graph
from kb.graph.delegated import collab_agent
from kb.graph.disproved import CLAIMS_SQL
from kb.graph.disproved import HEAD as DISPROVED_HEAD
from kb.graph.extract import (
    ASK_TOOLS,
    CANNOT,
    EXTRACTOR_VERSION,
    FOUND,
    HYPOTHESIS,
    HYPOTHESIS_HEAD,
    JUDGED_FAILED,
    REWIND_ROLE,
    Annotation,
    CallRow,
    Extraction,
    Extractor,
    MessageRow,
    ProseRow,
    Verdict,
)
from kb.graph.switched import USAGE_HEAD, printed_usage
from kb.store import KbNotFound, KbStore
from logparse.author import USER_AUTHORS
from logparse.errorline import BARE_TYPE
from logparse.memo import Memo, memo, text_key
from logparse.redirects import DROP_CUES, REDIRECT_CUES, REDIRECT_HEAD
from logparse.revision import HEAD as REVISED_HEAD
from logparse.revision import QUOTES_SQL, REVISES_SQL
from logparse.structural import (
    ADMISSION_CUES,
    ADMISSION_HEAD,
    AGENTS,
    CODEX_COLLAB_TOOLS,
    DELEGATION_TOOLS,
    DISMISSAL_CUES,
    HEAD_MARKS,
    MIXED_HEAD,
    OUTPUT_ERROR_CHARS,
    OUTPUT_ERROR_HEAD,
    SHELL_BACKGROUND,
    TAIL_MARKS,
    CallFacts,
    background_exit,
    call_signals,
    error_body,
    failure_line,
    mixed_line,
    network_denied,
    notified_failure,
    output_error,
    saved_output,
    subagent_failure,
    task_notification_failure,
)

_ANNOUNCE_SQL = (r"(?i)\b(try|test|evaluate|enable|force|switch to|attempt|explore|"
                 r"prototype|go with|check)\b")


def scope_sessions(store: KbStore, scope: str) -> list[str]:
    """The scope session and every session below it (subagents of subagents too)."""
    rows = store.conn.execute("""
        WITH RECURSIVE tree(session_id) AS (
            SELECT session_id FROM sessions WHERE session_id = ?
            UNION SELECT s.session_id FROM sessions s JOIN tree t ON s.parent_id = t.session_id
        ) SELECT session_id FROM tree""", [scope]).fetchall()
    return [r[0] for r in rows]


def scope_of(store: KbStore, session_id: str) -> str:
    """The top-level session a session belongs to."""
    sid = session_id
    for _ in range(64):
        row = store.conn.execute("SELECT parent_id FROM sessions WHERE session_id = ?",
                                 [sid]).fetchone()
        if row is None or row[0] is None:
            return sid
        sid = row[0]
    return sid


def scopes_of(store: KbStore, session_ids: Iterable[str]) -> dict[str, str]:
    """:func:`scope_of` of many sessions, in one query: ``session -> its scope``."""
    sids = list(dict.fromkeys(session_ids))
    if not sids:
        return {}
    ids = pa.table({"sid": pa.array(sids, type=pa.string())})  # noqa: F841
    # up to 64 steps up, as scope_of: a parent that is not stored is the scope
    found = dict(store.conn.execute("""
        WITH RECURSIVE up(sid, cur, depth) AS (
            SELECT sid, sid, 0 FROM ids
            UNION ALL
            SELECT up.sid, s.parent_id, up.depth + 1 FROM up
            JOIN sessions s ON s.session_id = up.cur
            WHERE s.parent_id IS NOT NULL AND up.depth < 64)
        SELECT sid, arg_max(cur, depth) FROM up GROUP BY sid""").fetchall())
    return {s: found.get(s, s) for s in sids}


def forget_sessions(store: KbStore, session_ids: Sequence[str]) -> None:
    """Forget the graph of these sessions' scopes, so that the next rebuild derives it
    again (subscribed to the store's ``secrets_forgotten``: a graph derived from text
    before its secrets were found holds them unredacted)."""
    for scope in dict.fromkeys(scopes_of(store, session_ids).values()):
        for table in ("graph_builds", "graph_state"):
            store.conn.execute(f"DELETE FROM {table} WHERE scope = ?", [scope])


def scopes(store: KbStore) -> list[str]:
    return [r[0] for r in store.conn.execute(
        "SELECT session_id FROM sessions WHERE parent_id IS NULL ORDER BY session_id")
        .fetchall()]


def _has_table(store: KbStore, name: str) -> bool:
    row = store.conn.execute("SELECT count(*) FROM information_schema.tables "
                             "WHERE table_name = ?", [name]).fetchone()
    return bool(row and row[0])


def fingerprint(store: KbStore, sids: list[str]) -> tuple[str, int]:
    ids = pa.table({"sid": pa.array(sids, type=pa.string())})  # noqa: F841
    row = store.conn.execute(
        "SELECT count(*), coalesce(sum(digest % 1000000007), 0) FROM messages "
        "WHERE session_id IN (SELECT sid FROM ids)").fetchone()
    ann = store.conn.execute(
        "SELECT count(*), coalesce(max(id), 0) FROM annotations "
        "WHERE session_id IN (SELECT sid FROM ids)").fetchone()
    rep = (0,)
    if _has_table(store, "replay_steps"):
        rep = store.conn.execute(
            "SELECT count(*) FROM replay_steps WHERE session_id IN (SELECT sid FROM ids)"
        ).fetchone() or (0,)
    assert row is not None and ann is not None
    return f"{row[0]}:{row[1]}:{ann[0]}:{ann[1]}:{rep[0]}:{len(sids)}", int(row[0])


def edit_lines(raw: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """The lines an edit's input wrote and the lines it took away, stripped, blank and
    one-character lines left out: a write's ``content``; an edit's ``new_string`` /
    ``old_string`` (or opencode's ``newString``/``oldString``, each of a multiedit's
    ``edits``); a patch's ``+``/``-`` lines (Codex ``apply_patch``: ``input``, ``patch``
    or ``patchText``)."""
    if not raw:
        return frozenset(), frozenset()
    try:
        inp = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return frozenset(), frozenset()
    if not isinstance(inp, dict):
        return frozenset(), frozenset()

    def lines(text: object) -> set[str]:
        return {ln.strip() for ln in text.splitlines() if len(ln.strip()) > 1} \
            if isinstance(text, str) else set()

    added: set[str] = lines(inp.get("content"))
    removed: set[str] = set()
    for e in [inp, *[x for x in inp.get("edits") or [] if isinstance(x, dict)]]:
        old = lines(e.get("old_string", e.get("oldString")))
        new = lines(e.get("new_string", e.get("newString")))
        added |= new - old
        removed |= old - new
    # Codex's (and opencode's) ``apply_patch`` keep the patch as ``patchText``
    patch = next((inp[k] for k in ("input", "patch", "patchText")
                  if isinstance(inp.get(k), str)), None)
    if patch and "*** Begin Patch" in patch[:200]:
        plus = {ln[1:].strip() for ln in patch.splitlines()
                if ln.startswith("+") and len(ln[1:].strip()) > 1}
        minus = {ln[1:].strip() for ln in patch.splitlines()
                 if ln.startswith("-") and len(ln[1:].strip()) > 1}
        added |= plus - minus
        removed |= minus - plus
    return frozenset(added), frozenset(removed)


_SIGNALS: Memo[tuple[str, ...]] = memo("call signals")
_EDITS: Memo[tuple[frozenset[str], frozenset[str]]] = memo("edit lines")


def _call_signals(f: CallFacts) -> tuple[str, ...]:
    """:func:`logparse.structural.call_signals`, memoised (runs repeat themselves).  The
    key is every field of the facts (texts by :func:`text_key`), so a field added to
    :class:`CallFacts` is never left out of it."""
    key = tuple(text_key(v) if isinstance(v, str) else v
                for v in (getattr(f, x.name) for x in dataclasses.fields(f)))
    return _SIGNALS.get(key, lambda: call_signals(f))


def _edit_lines(raw: str | None) -> tuple[frozenset[str], frozenset[str]]:
    """:func:`edit_lines`, memoised."""
    if not raw:
        return frozenset(), frozenset()
    return _EDITS.get(text_key(raw), lambda: edit_lines(raw))


_ADMISSION_SQL = "(?i)" + "|".join(f"(?:{c.pattern.pattern})" for c in ADMISSION_CUES)
"""The admission cues as one RE2 pattern (DuckDB's ``regexp_matches``)."""
_REDIRECT_SQL = "(?i)" + "|".join(f"(?:{c.pattern.pattern})" for c in REDIRECT_CUES)
"""The cues of a reply that takes a user's change of course in (:mod:`logparse.redirects`)."""
_DROP_SQL = "(?i)" + "|".join(f"(?:{c.pattern.pattern})" for c in DROP_CUES)
"""The cues of a user message that drops something the last turn used."""
_USER_WORDS = ("coalesce(author, 'human') IN ("
               + ", ".join(f"'{a}'" for a in USER_AUTHORS) + ")")
"""A prompt whose text is the user's words (logparse.author): not a parent agent's task,
not injected, not a compaction's summary (rows derived before authors were stored: as
their source says)."""
_DISMISSAL_SQL = "|".join(f"(?:{c.pattern.pattern})" for c in DISMISSAL_CUES)
_BLANK = "' ' || chr(10) || chr(13) || chr(9)"


def load_rows(store: KbStore, sids: list[str], after: dict[str, int] | None = None
              ) -> tuple[list[CallRow], list[ProseRow], list[MessageRow]]:
    """The signal rows of some sessions, those after ordinal ``after[session]`` only: tool
    calls, prose (assistant signals and every user prompt) and the messages whose shape
    says something (a reply cut short or empty, an attachment, the last message)."""
    after = after or {}
    ids = pa.table({  # noqa: F841
        "sid": pa.array(sids, type=pa.string()),
        "after": pa.array([after.get(s, 0) for s in sids], type=pa.int32())})
    calls = []
    asks = ", ".join(f"'{t}'" for t in ASK_TOOLS)
    delegations = ", ".join(f"'{t}'" for t in sorted(DELEGATION_TOOLS | CODEX_COLLAB_TOOLS))
    # what only delegations read (a sub-agent's last error, the notification of its
    # outcome) is computed over the delegations alone and joined by row: as sub-queries
    # of every call's row, DuckDB decorrelated them over every call's output (+180 MiB
    # on a 40k-message session without one delegation).  A UNION ALL of the calls that
    # are delegations and those that are not cost as little memory but scanned the
    # calls twice (the call query +10 % CPU on the shared set)
    columns = f"""session_id, ordinal, seq, tool, category,
                   -- a Codex sub-agent's task is its spawn message
                   CASE WHEN tool = 'spawn_agent' AND command IS NULL
                        THEN left(json_extract_string(input, '$.message'), 300)
                        ELSE command END, remote_command, host,
                   status, exit_code, error_signatures,
                   [(m.value, m.unit, m.label) FOR m IN coalesce(measurements, [])],
                   child_session_id, title, hops,
                   CASE WHEN tool = 'todowrite' THEN json_extract(input, '$.todos') END,
                   CASE WHEN error_signatures IS NOT NULL THEN right(coalesce(output, ''), 400)
                        WHEN category = 'search' AND length(coalesce(output, '')) < 80
                        THEN coalesce(output, '')
                        WHEN tool IN ({asks})
                             AND status = 'completed' THEN left(coalesce(output, ''), 400)
                   END, left(error, 300),
                   coalesce(json_extract_string(input, '$.sandboxNetwork') = 'false', false),
                   -- what the structural rules read (logparse.structural)
                   CASE WHEN status <> 'completed' OR coalesce(exit_code, 0) <> 0
                        THEN left(coalesce(output, ''), 3000)
                        -- a delegation: its answer may be the sub-agent tool's failure
                        -- envelope (logparse.structural.subagent_failed)
                        WHEN tool IN ({delegations}) THEN left(coalesce(output, ''), 2000)
                        WHEN length(trim(coalesce(output, ''))) = 0 THEN ''
                        -- a run that echoes a marker (`; echo EXIT: $?`): what else it printed
                        WHEN length(output) < 300 AND command LIKE '%echo %'
                        THEN output
                        -- an output the tool cut, noted at its head (Claude Code's
                        -- <persisted-output>, opencode's), or a note at its end (opencode's
                        -- timeout, pi's cut, Claude Code's sandbox violations): its head and
                        -- its end (logparse.structural.HEAD_MARKS, TAIL_MARKS)
                        WHEN starts_with(output, '{HEAD_MARKS[0]}')
                             OR starts_with(output, '{HEAD_MARKS[1]}')
                             OR regexp_matches(right(output, 600), $${TAIL_MARKS}$$)
                        THEN CASE WHEN length(output) <= 2200 THEN output
                                  ELSE left(output, 200) || chr(10) || right(output, 2000) END
                        -- a Codex run that returned while it still ran (no exit code)
                        WHEN exit_code IS NULL AND status = 'completed' AND tool = 'bash'
                        THEN left(coalesce(output, ''), 80)
                        -- an output the tool cut (Codex's note heads it)
                        WHEN starts_with(output, 'Total output lines:') THEN left(output, 80)
                        -- an HTTP/JSON-RPC answer that may be an error envelope
                        WHEN left(ltrim(output), 1) = chr(123) AND (
                             contains(left(output, 600), '"error"')
                             OR contains(left(output, 600), 'NOTOK'))
                        THEN left(output, 600)
                        -- a probe or a pipe that hid the failure it printed
                        -- (logparse.structural.OUTPUT_ERRORS)
                        WHEN regexp_matches(left(output, {OUTPUT_ERROR_CHARS}),
                                            $${OUTPUT_ERROR_HEAD}$$)
                        THEN left(output, {OUTPUT_ERROR_CHARS})
                        -- a log line ahead of the JSON a run printed with stderr merged
                        WHEN regexp_matches(command, '2>&1|&>|[*]>&1')
                             AND regexp_matches(left(output, 400), $${MIXED_HEAD}$$)
                        THEN left(output, 400) END,
                   left(error, 1500),
                   coalesce(json_extract_string(input, '$.sandbox_permissions')
                            = 'require_escalated', false)
                   -- older Codex builds' flag, Claude Code's Bash: the same request
                   OR coalesce(json_extract_string(input, '$.with_escalated_permissions')
                               = 'true', false)
                   OR coalesce(json_extract_string(input, '$.dangerouslyDisableSandbox')
                               = 'true', false),
                   (SELECT agent FROM sessions s WHERE s.session_id = calls.session_id LIMIT 1),
                   -- what an edit wrote and took away (the rework rule compares them)
                   CASE WHEN category = 'file-edit' AND status = 'completed'
                        THEN left(CAST(input AS VARCHAR), 40000) END,
                   -- a Codex poll of a run another call started (the reader links them):
                   -- write_stdin, or a code-mode wait on a cell that yielded
                   tool IN ('write_stdin', 'wait')
                       AND json_extract_string(input, '$.polls') IS NOT NULL,
                   -- a clean run that may have printed its usage (kb.graph.switched.USAGE)
                   CASE WHEN status = 'completed' AND coalesce(exit_code, 0) = 0
                             AND regexp_matches(left(output, 400), $${USAGE_HEAD}$$)
                        THEN left(output, 400) END
            """
    delegated = """
                   -- a delegation: the error the sub-agent's own session ended on
                   -- (a Codex spawn_agent's too: its child's rollout, when it is stored)
                   CASE WHEN tool IN ('task', 'spawn_agent') AND child_session_id IS NOT NULL
                   THEN (
                        SELECT left(coalesce((SELECT e.text FROM other_events e
                                              WHERE e.session_id = m.session_id
                                                AND e.ordinal = m.ordinal
                                                AND e.kind = 'error' LIMIT 1), m.error), 300)
                        FROM messages m WHERE m.session_id = calls.child_session_id
                        ORDER BY m.ordinal DESC LIMIT 1) END AS child_error,
                   -- a Codex sub-agent not waited for: the notification of its status
                   -- codex-rs writes into a later user message of the parent
                   -- (the agent id read from an output only where it is JSON: DuckDB
                   -- evaluates the subquery's expressions for every call, whatever the
                   -- CASE says, and a shell run's plain text is no JSON)
                   CASE WHEN tool = 'spawn_agent' AND json_valid(output)
                             AND json_extract_string(output, '$.agent_id') IS NOT NULL THEN (
                        SELECT left(p.text, 1000) FROM prose p
                        WHERE p.session_id = calls.session_id AND p.ordinal > calls.ordinal
                          AND p.kind = 'prompt'
                          AND starts_with(ltrim(p.text), '<subagent_notification>')
                          AND contains(p.text, json_extract_string(
                              CASE WHEN json_valid(calls.output) THEN calls.output END,
                              '$.agent_id'))
                        ORDER BY p.ordinal LIMIT 1) END AS notified,
                   -- a Claude Code sub-agent run in the background: its outcome is the
                   -- <task-notification> naming the call in a later user message; '' when
                   -- none came before the transcript ends
                   CASE WHEN (tool = 'task'
                              AND starts_with(coalesce(output, ''), 'Async agent launched'))
                             OR (tool = 'bash' AND starts_with(coalesce(output, ''),
                                                               'Command running in background'))
                        THEN coalesce((
                        SELECT left(p.text, 1500) FROM prose p
                        WHERE p.session_id = calls.session_id AND p.ordinal > calls.ordinal
                          AND p.kind = 'prompt'
                          AND starts_with(ltrim(p.text), '<task-notification>')
                          AND (contains(p.text, '<tool-use-id>' || calls.call_id || '<')
                               OR contains(p.text, '<task-id>' || regexp_extract(
                                   calls.output, 'agentId: ([A-Za-z0-9_-]+)', 1) || '<'))
                        ORDER BY p.ordinal LIMIT 1), '') END AS task_notified
            """
    for r in store.conn.execute(f"""
            WITH delegated AS (
                SELECT calls.rowid AS rid, {delegated}
                FROM calls JOIN ids ON calls.session_id = ids.sid AND calls.ordinal > ids.after
                WHERE tool IN ('task', 'spawn_agent')
                   OR (tool = 'bash' AND starts_with(coalesce(output, ''),
                                                     'Command running in background')))
            SELECT {columns}, d.child_error, d.notified, d.task_notified,
                   -- a lookup tool's query its answer does not hold (the name looked up
                   -- is not there by that name: kb.graph.episodes.unfound_episodes)
                   status = 'completed'
                       AND tool NOT IN ('bash', 'shell', 'powershell', 'exec', 'terminal')
                       AND (category = 'search'
                            OR regexp_matches(tool, '(?i)search|find|lookup|list|query'))
                       AND length(trim(coalesce(command, ''))) > 2
                       AND NOT contains(lower(coalesce(output, '')), lower(trim(command)))
            FROM calls JOIN ids ON calls.session_id = ids.sid AND calls.ordinal > ids.after
            LEFT JOIN delegated d ON d.rid = calls.rowid
            ORDER BY session_id, ordinal, seq""").fetchall():
        status = r[8]
        exit_code = r[9]
        if r[3] in SHELL_BACKGROUND and r[28] is not None:
            # a Claude Code run started in the background: its exit is the one the
            # <task-notification> naming it reports (none yet: it still runs)
            exit_code = background_exit(r[28]) if r[28] else None
        elif r[28] == "":
            status = "interrupted"  # launched in the background, never reported back
        facts = CallFacts(agent=r[22] if r[22] in AGENTS else "opencode", tool=r[3], status=status, exit_code=exit_code,
                          error=r[20] or "", output=r[19] if r[19] is not None else r[16],
                          command=r[5] or "",
                          escalated=bool(r[21]),
                          # (most calls have neither notification: not parsed then)
                          child_error=r[26] or (notified_failure(r[27]) if r[27] else "")
                          or (task_notification_failure(r[28])
                              if r[28] and r[3] not in SHELL_BACKGROUND else ""))
        signals = _call_signals(facts)
        # a signature that only names the error's type (``MethodInvocationException``)
        # leaves the message to the run's error line (logparse.errorline.says_more)
        bare = bool(r[10]) and all(BARE_TYPE.match(x) for x in r[10])
        failure = error_body(r[19]) if "error_body" in signals else failure_line(r[19]) \
            if r[19] and (not r[10] or bare) and ("exit_code" in signals
                                                  or r[8] != "completed") \
            else None
        if failure is None and not r[10] and "output_error" in signals:
            said = output_error(r[19])
            failure = said[1] if said is not None else None
        if "subagent_failed" in signals:
            # the sub-agent's own error (its session's, its tool's), not a line of its report
            failure = subagent_failure(facts)
        elif r[3] in SHELL_BACKGROUND and r[28] and exit_code not in (None, 0):
            # what the notification says of the run ("… failed with exit code 124")
            failure = task_notification_failure(r[28]) or failure
        todos = None
        if r[15] is not None:
            items = orjson.loads(r[15]) or []
            todos = tuple((str(i.get("content", "")), str(i.get("status", "")))
                          for i in items if isinstance(i, dict))
        calls.append(CallRow(
            session_id=r[0], ordinal=r[1], seq=r[2], tool=r[3], category=r[4], command=r[5],
            remote_command=r[6], host=r[7], status=status, exit_code=exit_code,
            signatures=tuple(r[10] or ()), measurements=tuple(tuple(m) for m in r[11] or ()),
            child_session_id=r[12], title=r[13],
            hops=tuple(orjson.loads(r[14])) if r[14] else (), todos=todos, output_tail=r[16],
            error=r[17], offline=r[18] or network_denied(facts), signals=signals,
            failure=failure, edit=_edit_lines(r[23]), poll=bool(r[24]),
            usage=printed_usage(r[5] or "", r[25]), agent=facts.agent,
            mixed=mixed_line(r[5] or "", r[19]) if "stderr_mixed" in signals else None,
            saved=saved_output(r[19]) if "truncated" in signals else None,
            absent=bool(r[29]),
            delegate=collab_agent(r[3], r[19], r[12])
            if facts.agent == "codex" and r[3] in CODEX_COLLAB_TOOLS else None))
    # assistant prose that signals something, every user prompt, and the start of a reply
    # that may judge the run before it ("judge": only that start is read)
    prose = [ProseRow(*r) for r in store.conn.execute(f"""
            WITH p AS (
                SELECT session_id, ordinal, seq, kind, classification, text, prose_role, source,
                       author,
                       kind = 'decision' AND (
                           classification IN ('dead-end', 'pivot', 'decision', 'conclusion')
                           OR regexp_matches(left(text, 600), $${_ANNOUNCE_SQL}$$)) AS signal
                FROM prose
                JOIN ids ON prose.session_id = ids.sid AND prose.ordinal > ids.after
                -- synthetic assistant text (a rewrite's call kept as text) judges nothing
                WHERE NOT (kind = 'decision' AND source = 'synthetic'))
            SELECT session_id, ordinal, seq, cls, body, prose_role FROM (
            SELECT session_id, ordinal, seq,
                   CASE WHEN kind = 'prompt' THEN 'prompt' WHEN signal THEN classification
                        ELSE 'judge' END AS cls,
                   CASE WHEN kind = 'prompt' THEN left(text, 4000) WHEN signal THEN text
                        ELSE left(text, 600) END AS body, prose_role, 0 AS branch
            FROM p
            WHERE signal OR (kind = 'prompt' AND source = 'text' AND {_USER_WORDS})
               -- the agent's own record of a turn the user stopped (Codex's is synthetic)
               OR (kind = 'prompt' AND starts_with(ltrim(text), '<turn_aborted>'))
               OR (kind = 'decision' AND (regexp_matches(left(text, 400), $$(?i){JUDGED_FAILED}$$)
                                          OR regexp_matches(left(text, 600), $$(?i){CANNOT}$$)))
            UNION ALL
            -- guesses at a cause and the cause found, read again by their own rule
            SELECT session_id, ordinal, seq, 'hypothesis', left(text, {HYPOTHESIS_HEAD}),
                   prose_role, 1
            FROM p
            WHERE kind = 'decision' AND regexp_matches(
                left(text, {HYPOTHESIS_HEAD}), $$(?i){HYPOTHESIS}|{FOUND}|{_DISMISSAL_SQL}$$)
            UNION ALL
            -- a reply that opens by admitting it was wrong ("You're right", "Me equivoqué")
            SELECT session_id, ordinal, seq, 'admit', left(ltrim(text, {_BLANK}), 600),
                   prose_role, 2
            FROM p
            WHERE kind = 'decision' AND source = 'text' AND regexp_matches(
                left(ltrim(text, {_BLANK}), {ADMISSION_HEAD}), $${_ADMISSION_SQL}$$)
            UNION ALL
            -- a reply that opens by taking a user's change of course in ("I'm switching the
            -- target to …"), its reasoning too (logparse.redirects)
            SELECT session_id, ordinal, seq, 'redirect', left(ltrim(text, {_BLANK}), 600),
                   prose_role, 3
            FROM p
            WHERE kind = 'decision' AND source IN ('text', 'reasoning') AND regexp_matches(
                left(ltrim(text, {_BLANK}), {REDIRECT_HEAD}), $${_REDIRECT_SQL}$$)
            UNION ALL
            -- a reply that explains why something happens, for the explanation a later
            -- probe or the user's evidence disproves (kb.graph.disproved)
            SELECT session_id, ordinal, seq, 'explains', left(text, {DISPROVED_HEAD}),
                   prose_role, 5
            FROM p
            WHERE kind = 'decision' AND source IN ('text', 'reasoning') AND regexp_matches(
                left(text, {DISPROVED_HEAD}), $${CLAIMS_SQL}$$)
            UNION ALL
            -- a block that may revise what the agent said, and one that may quote a
            -- quantity it read off a result (kb.graph.revised)
            SELECT session_id, ordinal, seq,
                   CASE WHEN regexp_matches(left(text, {REVISED_HEAD}), $${REVISES_SQL}$$)
                        THEN 'revises' ELSE 'quotes' END, left(text, {REVISED_HEAD}),
                   prose_role, 6
            FROM p
            WHERE kind = 'decision' AND source IN ('text', 'reasoning') AND (
                regexp_matches(left(text, {REVISED_HEAD}), $${REVISES_SQL}$$)
                OR regexp_matches(left(text, {REVISED_HEAD}), $${QUOTES_SQL}$$))
            UNION ALL
            -- the reply a user message answers when that message drops something ("vamos
            -- ignorar …"): what the reply named is what may have been dropped
            SELECT q.session_id, q.ordinal, q.seq, 'answered', left(q.text, 6000), q.prose_role,
                   4
            FROM p q JOIN (SELECT session_id, ordinal FROM p
                           WHERE kind = 'prompt' AND source = 'text' AND {_USER_WORDS}
                             AND regexp_matches(left(text, 2000), $${_DROP_SQL}$$)) u
              ON u.session_id = q.session_id AND u.ordinal - q.ordinal BETWEEN 1 AND 2
            WHERE q.kind = 'decision' AND q.source = 'text')
            -- one text read by several rules: in the rules' order (the sort is not stable:
            -- the order of such ties changed from run to run, and the kept state with it)
            ORDER BY session_id, ordinal, seq, branch""").fetchall()]
    messages = [MessageRow(*r) for r in store.conn.execute("""
            WITH m AS (SELECT m.* FROM messages m JOIN ids ON m.session_id = ids.sid
                       AND m.ordinal > ids.after),
                 last AS (SELECT session_id, max(ordinal) AS o FROM messages
                          WHERE session_id IN (SELECT sid FROM ids) GROUP BY session_id),
                 att AS (SELECT session_id, ordinal, string_agg(text, '; ') AS what
                         FROM other_events WHERE kind = 'attachment'
                           AND session_id IN (SELECT sid FROM ids) GROUP BY ALL),
                 cmp AS (SELECT DISTINCT session_id, ordinal FROM other_events
                         WHERE kind = 'compaction' AND session_id IN (SELECT sid FROM ids)),
                 cand AS (SELECT m.* FROM m JOIN last USING (session_id)
                          LEFT JOIN att USING (session_id, ordinal)
                          WHERE att.what IS NOT NULL OR m.ordinal = last.o
                             OR (m.session_id, m.ordinal) IN (SELECT (session_id, ordinal)
                                                              FROM cmp)
                             OR (m.role = 'assistant' AND (m.finish IS DISTINCT FROM 'tool-calls'
                                 OR m.error IS NOT NULL)))
            SELECT c.session_id, c.ordinal, c.role, c.finish,
                   left(CASE WHEN c.error IS NOT NULL THEN coalesce(
                       (SELECT e.text FROM other_events e WHERE e.session_id = c.session_id
                        AND e.ordinal = c.ordinal AND e.kind = 'error' LIMIT 1), c.error) END,
                        300),
                   c.tokens_output, c.time_completed IS NOT NULL,
                   -- (a user message's: a prompt someone wrote, not what was injected)
                   EXISTS (SELECT 1 FROM prose p WHERE p.session_id = c.session_id
                           AND p.ordinal = c.ordinal AND p.kind IN ('decision', 'prompt')
                           AND p.source = 'text'),
                   EXISTS (SELECT 1 FROM calls k WHERE k.session_id = c.session_id
                           AND k.ordinal = c.ordinal),
                   att.what, c.ordinal = last.o,
                   EXISTS (SELECT 1 FROM cmp WHERE cmp.session_id = c.session_id
                           AND cmp.ordinal = c.ordinal)
            FROM cand c JOIN last USING (session_id)
            LEFT JOIN att USING (session_id, ordinal)
            ORDER BY c.session_id, c.ordinal""").fetchall()]
    # keep only the shapes that say something (the extractor reads these)
    messages = [r for r in messages if r.attachment or r.last or r.compacted or (
        r.role == "assistant" and (r.finish == "length" or r.error is not None
                                   or (not r.said and not r.acted)))]
    messages = _with_rewinds(store, messages, ids)
    red = store.redactor.hiding()  # the graph is stored and exported: never with secrets
    return (red.rows(calls, cut_head=("output_tail",)), red.rows(prose),
            red.rows(messages, cut_tail=("error",)))


def _with_rewinds(store: KbStore, messages: list[MessageRow], ids: pa.Table
                  ) -> list[MessageRow]:
    """``messages`` (of the sessions and past the ordinals in ``ids``) with a row
    for each message a rewind followed (:meth:`kb.store.KbStore.rewound`): its
    ``rewound_from``.  Only Gemini CLI's reader records rewinds, so only its sessions' raw
    records are read."""
    # most knowledge bases hold no Gemini CLI session: then no message's raw record (the
    # largest column) is read at all
    if not store.conn.execute("""
            SELECT 1 FROM sessions
            WHERE agent = 'gemini-cli' AND session_id IN (SELECT sid FROM ids)
            LIMIT 1""").fetchall():
        return messages
    rows = store.conn.execute("""
            SELECT m.session_id, m.ordinal, json_extract(m.raw, '$.rewinds')
            FROM messages m JOIN ids ON m.session_id = ids.sid AND m.ordinal > ids.after
            WHERE m.session_id IN (SELECT session_id FROM sessions WHERE agent = 'gemini-cli')
              AND contains(m.raw, '"rewinds":')
            ORDER BY m.session_id, m.ordinal""").fetchall()
    if not rows:
        return messages
    out = list(messages)
    for sid, ordinal, rewinds in rows:
        firsts = [int(r["from"]) for r in orjson.loads(rewinds) or []
                  if isinstance(r, dict) and isinstance(r.get("from"), int)]
        if firsts:
            out.append(MessageRow(sid, ordinal, REWIND_ROLE, None, None, None, True, False,
                                  False, None, False, rewound_from=min(firsts)))
    out.sort(key=lambda r: (r.session_id, r.ordinal))
    return out


def load_steering(store: KbStore, sids: list[str]) -> tuple[list[Annotation], list[Verdict]]:
    """What steers a graph besides the transcript: annotations and replay verdicts."""
    ids = pa.table({"sid": pa.array(sids, type=pa.string())})  # noqa: F841
    annotations = [Annotation(*r) for r in store.conn.execute(
        "SELECT id, session_id, ordinal, kind, value, target FROM annotations "
        "WHERE session_id IN (SELECT sid FROM ids) ORDER BY id").fetchall()]
    annotations = store.redactor.hiding().value(annotations)  # notes become graph labels
    verdicts: list[Verdict] = []
    replayed = _replayed(store, sids)
    if replayed:
        from kb.replay.run import latest_verdicts  # replay's own tables (and its imports)

        for sid in [s for s in sids if s in replayed]:
            for ordinal, v in latest_verdicts(store, sid).items():
                verdicts.append(Verdict(sid, ordinal, v.verdict, v.explanation))
    return annotations, verdicts


def _replayed(store: KbStore, sids: list[str]) -> set[str]:
    """The sessions among ``sids`` that some replay ran steps of."""
    if not sids or not _has_table(store, "replay_steps"):
        return set()
    ids = pa.table({"sid": pa.array(sids, type=pa.string())})  # noqa: F841
    return {r[0] for r in store.conn.execute(
        "SELECT DISTINCT session_id FROM replay_steps WHERE session_id IN "
        "(SELECT sid FROM ids)").fetchall()}


def _marks(store: KbStore, sids: list[str]) -> dict[str, list[int]]:
    """Per session: the last ordinal and the digest sum of every message up to it."""
    ids = pa.table({"sid": pa.array(sids, type=pa.string())})  # noqa: F841
    return {sid: [int(n), int(d)] for sid, n, d in store.conn.execute(
        "SELECT session_id, max(ordinal), sum(digest % 1000000007) FROM messages "
        "WHERE session_id IN (SELECT sid FROM ids) GROUP BY session_id "
        "ORDER BY session_id").fetchall()}


def _still_valid(store: KbStore, marks: dict[str, list[int]]) -> bool:
    """Are the messages an earlier pass read unchanged (the session only grew)?"""
    for sid, (last, dsum) in marks.items():
        row = store.conn.execute(
            "SELECT sum(digest % 1000000007), count(*) FROM messages "
            "WHERE session_id = ? AND ordinal <= ?", [sid, last]).fetchone()
        if row is None or row[0] is None or int(row[0]) != dsum or int(row[1]) != last:
            return False
    return True


def _extractor(store: KbStore, scope: str, sids: list[str], force: bool
               ) -> tuple[Extractor, bool]:
    """The scope's extractor fed to the last message, kept (:mod:`kb.graph.state`) before
    it is returned, and whether it was resumed from the kept state (the sessions only
    grew).  The caller may finish it (the kept form is written already)."""
    row = None if force else store.conn.execute(
        "SELECT marks, state FROM graph_state WHERE scope = ?", [scope]).fetchone()
    kept: xstate.Kept | None = None
    if row is not None:
        marks = orjson.loads(row[0])
        opened = xstate.open_state(row[1], scope) if _still_valid(store, marks) else None
        if opened is not None:
            calls, prose, msgs = load_rows(store, sids, {s: m[0] for s, m in marks.items()})
            if not calls and not prose and not msgs and set(marks) == set(sids):
                kept = opened.load()
                if kept is not None:
                    return kept.extractor, True  # nothing new to read
            elif opened.grows_alike(calls):  # else a first pass would look ahead otherwise
                kept = opened.load()
                if kept is not None:
                    kept = _resumed(kept, calls, prose, msgs)
    resumed = kept is not None
    if kept is None:
        kept = xstate.Kept.first_pass(scope, *load_rows(store, sids))
    state = _kept_form(kept)
    store.conn.execute("DELETE FROM graph_state WHERE scope = ?", [scope])
    if state is not None:
        store.conn.execute("INSERT INTO graph_state VALUES (?, ?, ?)",
                           [scope, orjson.dumps(_marks(store, sids)).decode(), state])
    return kept.extractor, resumed


_UNUSABLE = (TypeError, ValueError, AttributeError, KeyError, IndexError)
"""What the rules raise on a kept state that decoded but holds values of the wrong shape
(corrupt or hostile): it is derived again from every row, where a real fault of the
rules raises again (so nothing is hidden)."""


def _resumed(kept: xstate.Kept, calls: list[CallRow], prose: list[ProseRow],
             msgs: list[MessageRow]) -> xstate.Kept | None:
    """``kept`` fed the rows that came since, or ``None`` when it must be derived again
    from every row: its first pass would now look ahead otherwise
    (:meth:`kb.graph.state.Kept.resume`), or feeding it fails (:data:`_UNUSABLE`)."""
    try:
        return kept if kept.resume(calls, prose, msgs) else None
    except _UNUSABLE as e:
        xstate.discard(f"resume failed: {type(e).__name__}")
        return None


def _kept_form(kept: xstate.Kept) -> str | None:
    """The form a state is kept in, or ``None`` when it holds a value the codec does not
    know (not kept: the next pass derives it from every row; a test catches it first)."""
    try:
        return xstate.dump(kept)
    except xstate.StateError as e:
        xstate.discard(f"not kept: {e}")
        return None


def _derived_again(store: KbStore, scope: str, sids: list[str], e: Exception
                   ) -> tuple[Extractor, str | None]:
    """A resumed extractor failed to finish (:data:`_UNUSABLE`): the scope's extractor
    from every row and its kept form."""
    xstate.discard(f"finish failed: {type(e).__name__}")
    kept = xstate.Kept.first_pass(scope, *load_rows(store, sids))
    return kept.extractor, _kept_form(kept)


def extract_scope(store: KbStore, scope: str, force: bool = False) -> Extraction:
    sids = scope_sessions(store, scope)
    if not sids:
        raise KbNotFound(f"no session {scope}")
    annotations, verdicts = load_steering(store, sids)
    ex: Extractor | None = None
    if not store.read_only:
        ex, resumed = _extractor(store, scope, sids, force)
        if resumed:
            try:
                return ex.finish(annotations, verdicts, sids,
                                 explanations(store, ex.explanation_spans()))
            except _UNUSABLE as e:
                xstate.discard(f"finish failed: {type(e).__name__}")
                ex, _ = _extractor(store, scope, sids, True)
    if ex is None:
        ex = Extractor(scope)
        ex.run(*load_rows(store, sids))
    return ex.finish(annotations, verdicts, sids, explanations(store, ex.explanation_spans()))


def explanations(store: KbStore, spans: list[tuple[str, int, int]]
                 ) -> dict[tuple[str, int], list[str]]:
    """Assistant prose of the messages in some ``(session, first, last)`` spans."""
    if not spans:
        return {}
    tbl = pa.table({"sid": [s for s, _, _ in spans],  # noqa: F841
                    "lo": pa.array([lo for _, lo, _ in spans], type=pa.int32()),
                    "hi": pa.array([hi for _, _, hi in spans], type=pa.int32())})
    rows = store.conn.execute(
        "SELECT DISTINCT p.session_id, p.ordinal, p.seq, p.text FROM prose p JOIN tbl "
        "ON p.session_id = tbl.sid AND p.ordinal BETWEEN tbl.lo AND tbl.hi "
        "WHERE p.kind = 'decision' ORDER BY p.session_id, p.ordinal, p.seq").fetchall()
    out: dict[tuple[str, int], list[str]] = {}
    for sid, o, _, text in rows:
        out.setdefault((sid, o), []).append(text)
    return out


def session_infos(store: KbStore, sids: list[str]) -> dict[str, dict[str, Any]]:
    """Title, parent and spawning message of some sessions (what graph nodes show)."""
    ids = pa.table({"sid": pa.array(sids, type=pa.string())})  # noqa: F841
    rows = store.conn.execute(
        "SELECT s.session_id, s.title, s.parent_id, (SELECT min(c.ordinal) FROM calls c "
        "WHERE c.child_session_id = s.session_id) FROM sessions s "
        "WHERE s.session_id IN (SELECT sid FROM ids)").fetchall()
    red = store.redactor.hiding()  # a title made of a first prompt may hold a secret
    return {sid: {"title": red.text(t), "parent_id": p, "spawned_at": o}
            for sid, t, p, o in rows}


def graph_of(store: KbStore, scope: str, force: bool = False) -> nx.MultiDiGraph:
    """Derive a scope's graph from its rows (the graph itself is not persisted)."""
    ex = extract_scope(store, scope, force)
    return build_graph(ex, session_infos(store, ex.sessions))


def scope_sizes(store: KbStore, scopes_: list[str]) -> dict[str, int]:
    """Messages per scope (its sessions and their subagents): what a derivation reads."""
    trees, left = _trees(store, scopes_)
    counts = _many_fingerprints(store, trees)
    return {s: counts[s][1] if s in counts else
            fingerprint(store, scope_sessions(store, s))[1] for s in scopes_}


# ------------------------------------------------------------ rules version
def derived_version(store: KbStore, scope: str) -> int | None:
    """The extractor version that derived a scope's graph (None: never stamped)."""
    row = store.conn.execute("SELECT extractor_version FROM graph_versions WHERE scope = ?",
                             [scope]).fetchone()
    return int(row[0]) if row else None


def _version() -> int:
    """The version a graph derived now is stamped with, and a current one carries:
    :data:`EXTRACTOR_VERSION`, another under ``LOGKB_ABLATE`` (:func:`kb.graph.ablate.stamp`)."""
    return ablate.stamp(EXTRACTOR_VERSION)


def stamp_version(store: KbStore, scope: str) -> None:
    """Record that the current rules derived a scope's graph."""
    store.conn.execute("DELETE FROM graph_versions WHERE scope = ?", [scope])
    store.conn.execute("INSERT INTO graph_versions VALUES (?, ?, now())",
                       [scope, _version()])


def outdated(store: KbStore, wanted: Iterable[str]) -> list[str]:
    """The scopes of ``wanted`` whose graph must be derived before it is read: never built,
    or derived by other rules than the current ones (:data:`EXTRACTOR_VERSION`)."""
    wanted = list(wanted)
    if not wanted:
        return []
    ids = pa.table({"scope": pa.array(wanted, type=pa.string())})  # noqa: F841
    current = {r[0] for r in store.conn.execute(
        "SELECT b.scope FROM graph_builds b JOIN graph_versions v ON v.scope = b.scope "
        "WHERE b.scope IN (SELECT scope FROM ids) AND v.extractor_version = ?",
        [_version()]).fetchall()}
    return [s for s in wanted if s not in current]


def rebuild(store: KbStore, scope: str, force: bool = False) -> bool:
    """Derive and persist one scope's graph; False when it was up to date.

    A graph derived by older rules is derived again from scratch (its kept extractor
    state belongs to the old rules too); annotations live apart and are applied again."""
    sids = scope_sessions(store, scope)
    fp, messages = fingerprint(store, sids)
    if derived_version(store, scope) != _version():
        force = True
    if not force:
        row = store.conn.execute("SELECT fingerprint FROM graph_builds WHERE scope = ?",
                                 [scope]).fetchone()
        if row and row[0] == fp:
            _graph_done(store, sids)
            return False
    g = graph_of(store, scope, force)
    persist(store, scope, g, fp, messages)
    _graph_done(store, sids)
    stamp_version(store, scope)
    return True


def _graph_done(store: KbStore, sids: list[str]) -> None:
    """The scope's graph has committed: its sessions no longer owe one (ingest marks
    them in ``graph_pending``; an ingest killed before this point is finished later)."""
    if _has_table(store, "graph_pending"):
        ids = pa.table({"sid": pa.array(sids, type=pa.string())})  # noqa: F841
        store.conn.execute("DELETE FROM graph_pending WHERE session_id IN (SELECT sid FROM ids)")


def unbuilt(store: KbStore, wanted: Iterable[str]) -> list[str]:
    """The scopes among ``wanted`` whose graph must be derived before it is read: never
    built, derived by older rules (:func:`outdated`), or owed by an ingest that did not
    finish its graph phase (``graph_pending``)."""
    wanted = list(wanted)
    stale = set(outdated(store, wanted))
    owed: set[str] = set()
    if _has_table(store, "graph_pending"):
        owed = set(scopes_of(store, [r[0] for r in store.conn.execute(
            "SELECT session_id FROM graph_pending").fetchall()]).values())
    return [s for s in wanted if s in stale or s in owed]


def rebuild_all(store: KbStore, only: Iterable[str] | None = None, force: bool = False
                ) -> list[str]:
    """Rebuild the scopes of some sessions (all by default); drop graphs of sessions that
    turned out to be subagents (their parent's call arrived later)."""
    for table in ("graph_nodes", "graph_edges", "graph_builds", "graph_state",
                  "graph_versions"):
        store.conn.execute(f"DELETE FROM {table} WHERE scope NOT IN "
                           "(SELECT session_id FROM sessions WHERE parent_id IS NULL)")
    wanted = set(scopes_of(store, only).values()) if only is not None else set(scopes(store))
    done, left = rebuild_many(store, sorted(wanted), force=force)  # small scopes together
    done += [s for s in left if rebuild(store, s, force=force)]
    return sorted(done)


MANY_MESSAGES = 10_000
"""Messages whose rows :func:`rebuild_many` loads in one pass (a chunk of scopes holds at
most this many, or a single scope that has more)."""
MANY_SCOPES = 500
"""Scopes read and persisted together by :func:`rebuild_many`."""


def rebuild_many(store: KbStore, wanted: Sequence[str], force: bool = False,
                 progress: Callable[[int], None] | None = None
                 ) -> tuple[list[str], list[str]]:
    """Rebuild many scopes at once: ``(rebuilt, left)``, ``left`` being what this cannot
    take (a session that is not a top-level scope), for :func:`rebuild`.

    What :func:`rebuild` does for each scope, with a fixed number of statements per chunk
    of :data:`MANY_SCOPES` scopes (or :data:`MANY_MESSAGES` messages) instead of ~25 per
    scope: fingerprints, rules versions and kept extractor states are read for the whole
    chunk; a scope whose fingerprint and rules are current is left alone; a scope whose
    kept state is still valid (its sessions only grew) continues it from the rows after
    its marks; the others are derived from scratch; the rows of all of them are loaded
    with one set of queries filtered by session, and everything is persisted in one
    transaction.  After an ingest of 10,000 one-message files the first graph query
    rebuilt each at ~70 ms of CPU one by one.  ``progress`` is told the messages done,
    as each scope's graph is derived (its share of a chunk's work: the chunk of every
    scope of a small knowledge base sat at 0 for its whole 13 s), the chunk's whole by
    the time it is persisted."""
    trees, left = _trees(store, wanted)
    counts = _many_fingerprints(store, trees)
    rebuilt: list[str] = []
    chunk: list[str] = []
    size = 0
    tell = progress if progress is not None else (lambda n: None)
    for s in trees:
        if chunk and (len(chunk) >= MANY_SCOPES or size + counts[s][1] > MANY_MESSAGES):
            rebuilt += _told(store, chunk, trees, counts, force, tell, size)
            chunk, size = [], 0
        chunk.append(s)
        size += counts[s][1]
    if chunk:
        rebuilt += _told(store, chunk, trees, counts, force, tell, size)
    return rebuilt, left


def _told(store: KbStore, chunk: list[str], trees: dict[str, list[str]],
          counts: dict[str, tuple[str, int]], force: bool, progress: Callable[[int], None],
          size: int) -> list[str]:
    """:func:`_rebuild_chunk`, telling ``progress`` the chunk's ``size`` messages in all:
    what the scopes said as they were derived, the rest (scopes up to date) at the end."""
    said = 0

    def tell(n: int) -> None:
        nonlocal said
        n = min(n, size - said)
        if n > 0:
            said += n
            progress(n)

    done = _rebuild_chunk(store, chunk, trees, counts, force, tell)
    tell(size - said)
    return done


def _trees(store: KbStore, wanted: Sequence[str]) -> tuple[dict[str, list[str]], list[str]]:
    """``(trees, left)``: the sessions of each top-level scope among ``wanted``, in the
    order :func:`rebuild` reads them (a scope with subagents: a query of its own), and
    the others."""
    wanted = list(dict.fromkeys(wanted))
    if not wanted:
        return {}, []
    ids = pa.table({"sid": pa.array(wanted, type=pa.string())})  # noqa: F841
    top = {r[0] for r in store.conn.execute(
        "SELECT session_id FROM sessions WHERE parent_id IS NULL "
        "AND session_id IN (SELECT sid FROM ids)").fetchall()}
    parents = {r[0] for r in store.conn.execute(
        "SELECT DISTINCT parent_id FROM sessions WHERE parent_id IN (SELECT sid FROM ids)"
    ).fetchall()}
    trees = {s: scope_sessions(store, s) if s in parents else [s]
             for s in wanted if s in top}
    return trees, [s for s in wanted if s not in top]


def _pairs(trees: dict[str, list[str]]) -> pa.Table:
    """``(scope, sid)`` of some scopes' sessions, as an Arrow table for a query."""
    return pa.table({
        "scope": pa.array([s for s, sids in trees.items() for _ in sids], type=pa.string()),
        "sid": pa.array([x for sids in trees.values() for x in sids], type=pa.string())})


def _many_fingerprints(store: KbStore, trees: dict[str, list[str]]
                       ) -> dict[str, tuple[str, int]]:
    """:func:`fingerprint` of many scopes (the same strings), in one query."""
    pairs = _pairs(trees)  # noqa: F841
    rep = "0"
    if _has_table(store, "replay_steps"):
        rep = ("(SELECT count(*) FROM replay_steps r JOIN pairs q ON r.session_id = q.sid "
               "WHERE q.scope = sc.scope)")
    rows = store.conn.execute(f"""
        WITH sc AS (SELECT DISTINCT scope FROM pairs),
             m AS (SELECT q.scope, count(*) AS n, sum(digest % 1000000007) AS d
                   FROM messages JOIN pairs q ON messages.session_id = q.sid GROUP BY q.scope),
             a AS (SELECT q.scope, count(*) AS n, max(id) AS top
                   FROM annotations JOIN pairs q ON annotations.session_id = q.sid
                   GROUP BY q.scope)
        SELECT sc.scope, coalesce(m.n, 0), coalesce(m.d, 0), coalesce(a.n, 0),
               coalesce(a.top, 0), {rep}
        FROM sc LEFT JOIN m USING (scope) LEFT JOIN a USING (scope)""").fetchall()
    return {s: (f"{n}:{d}:{an}:{am}:{r}:{len(trees[s])}", int(n))
            for s, n, d, an, am, r in rows}


def _kept(store: KbStore, scopes_: list[str], trees: dict[str, list[str]]
          ) -> dict[str, tuple[str, str, dict[str, list[int]]]]:
    """The kept extractor states still valid to continue: ``scope -> (marks as stored,
    state, marks)``, for the scopes whose sessions only grew since (:func:`_still_valid`
    of all at once)."""
    ids = pa.table({"scope": pa.array(scopes_, type=pa.string())})  # noqa: F841
    rows = store.conn.execute("SELECT scope, marks, state FROM graph_state "
                              "WHERE scope IN (SELECT scope FROM ids)").fetchall()
    if not rows:
        return {}
    kept = {s: (m, st, orjson.loads(m)) for s, m, st in rows}
    marks = pa.table({  # noqa: F841
        "sid": pa.array([x for _, _, mk in kept.values() for x in mk], type=pa.string()),
        "last": pa.array([v[0] for _, _, mk in kept.values() for v in mk.values()],
                         type=pa.int64())})
    now = {sid: (d, n) for sid, d, n in store.conn.execute(
        "SELECT k.sid, sum(digest % 1000000007), count(*) FROM messages m "
        "JOIN marks k ON m.session_id = k.sid AND m.ordinal <= k.last "
        "GROUP BY k.sid").fetchall()}
    out = {}
    for s, (raw, state, mk) in kept.items():
        if all(sid in now and now[sid][0] is not None and int(now[sid][0]) == dsum
               and int(now[sid][1]) == last for sid, (last, dsum) in mk.items()):
            out[s] = (raw, state, mk)
    return out


def _rebuild_chunk(store: KbStore, scopes_: list[str], trees: dict[str, list[str]],
                   counts: dict[str, tuple[str, int]], force: bool,
                   progress: Callable[[int], None] = lambda n: None) -> list[str]:
    """Derive a chunk's scopes; ``progress`` is told each scope's messages in three
    parts, as they are done: the read (half: the extractor's pass over the rows), the
    explanations (a fifth) and the graph (the rest), as a profile of the pool shares
    the time (5.2 s, 2.2 s and 2.6 s of 13)."""
    ids = pa.table({"sid": pa.array(scopes_, type=pa.string())})  # noqa: F841
    kept: dict[str, tuple[str, str, dict[str, list[int]]]] = {}
    if not force:
        versions = dict(store.conn.execute(
            "SELECT scope, extractor_version FROM graph_versions "
            "WHERE scope IN (SELECT sid FROM ids)").fetchall())
        current = {s for s in scopes_ if versions.get(s) == _version()}
        built_fp = dict(store.conn.execute(
            "SELECT scope, fingerprint FROM graph_builds "
            "WHERE scope IN (SELECT sid FROM ids)").fetchall())
        fresh = [s for s in scopes_ if s in current and built_fp.get(s) == counts[s][0]]
        if fresh:  # up to date: built from these messages by these rules
            _graph_done(store, [x for s in fresh for x in trees[s]])
        done = set(fresh)
        scopes_ = [s for s in scopes_ if s not in done]
        # a state kept by older rules belongs to them: derived again from scratch
        kept = _kept(store, [s for s in scopes_ if s in current], trees)
    if not scopes_:
        return []
    sids = [x for s in scopes_ for x in trees[s]]
    after = {x: last for s in kept for x, (last, _) in kept[s][2].items()}
    calls, prose, msgs = load_rows(store, sids, after)
    annotations, verdicts = _many_steering(store, sids)
    scope_of_sid = {x: s for s in scopes_ for x in trees[s]}
    by: dict[str, tuple[list[CallRow], list[ProseRow], list[MessageRow]]] = {
        s: ([], [], []) for s in scopes_}
    for c in calls:
        by[scope_of_sid[c.session_id]][0].append(c)
    for p in prose:
        by[scope_of_sid[p.session_id]][1].append(p)
    for m in msgs:
        by[scope_of_sid[m.session_id]][2].append(m)
    now_marks = _marks(store, sids)
    states: dict[str, str | None] = {}
    marks: dict[str, str] = {}
    extractors: dict[str, Extractor] = {}
    resumed: set[str] = set()
    for s in scopes_:
        k: xstate.Kept | None = None
        if s in kept:
            raw, state, mk = kept[s]
            opened = xstate.open_state(state, s)
            nothing_new = not any(by[s]) and set(mk) == set(trees[s])
            if opened is not None and (nothing_new or opened.grows_alike(by[s][0])):
                k = opened.load()
            if k is not None and nothing_new:
                states[s], marks[s] = state, raw  # nothing new to read: kept as it was
                extractors[s] = k.extractor
                resumed.add(s)
                progress(counts[s][1] // 2)
                continue
            if k is not None:
                k = _resumed(k, *by[s])
                if k is not None:
                    resumed.add(s)
        if k is None:
            # a kept state that would not load or resume: read every row again
            k = xstate.Kept.first_pass(s, *(load_rows(store, trees[s]) if s in kept
                                            else by[s]))
        states[s] = _kept_form(k)
        marks[s] = _marks_of(now_marks, trees[s])
        # finishing changes it: its kept form is encoded above, so this one may finish
        extractors[s] = k.extractor
        progress(counts[s][1] // 2)
    spans: list[tuple[str, int, int]] = []
    for s in scopes_:
        try:
            spans += extractors[s].explanation_spans()
        except _UNUSABLE as e:
            if s not in resumed:
                raise
            resumed.discard(s)
            extractors[s], states[s] = _derived_again(store, s, trees[s], e)
            marks[s] = _marks_of(now_marks, trees[s])
            spans += extractors[s].explanation_spans()
        progress(counts[s][1] // 5)
    said = explanations(store, spans)
    infos = session_infos(store, sids)
    graphs: dict[str, nx.MultiDiGraph] = {}
    for s in scopes_:
        mine = set(trees[s])
        steer = ([a for a in annotations if a.session_id in mine],
                 [v for x in trees[s] for v in verdicts if v.session_id == x], trees[s])
        try:
            ex_done = extractors[s].finish(*steer, said)
        except _UNUSABLE as e:
            if s not in resumed:
                raise
            ex, states[s] = _derived_again(store, s, trees[s], e)
            marks[s] = _marks_of(now_marks, trees[s])
            ex_done = ex.finish(*steer, explanations(store, ex.explanation_spans()))
        graphs[s] = build_graph(ex_done, {k: v for k, v in infos.items()
                                          if k in ex_done.sessions})
        n = counts[s][1]
        progress(n - n // 2 - n // 5)
    _persist_many(store, graphs, counts, states, marks, sids)
    return scopes_


def _marks_of(now: dict[str, list[int]], sids: list[str]) -> str:
    """The marks of a scope's sessions, as kept (``graph_state.marks``)."""
    return orjson.dumps({x: now[x] for x in sorted(sids) if x in now}).decode()


def _many_steering(store: KbStore, sids: list[str]) -> tuple[list[Annotation], list[Verdict]]:
    """:func:`load_steering` of many sessions: the replay verdicts of those replayed."""
    ids = pa.table({"sid": pa.array(sids, type=pa.string())})  # noqa: F841
    annotations = [Annotation(*r) for r in store.conn.execute(
        "SELECT id, session_id, ordinal, kind, value, target FROM annotations "
        "WHERE session_id IN (SELECT sid FROM ids) ORDER BY id").fetchall()]
    annotations = store.redactor.hiding().value(annotations)
    verdicts: list[Verdict] = []
    replayed = sorted(_replayed(store, sids))
    if replayed:
        from kb.replay.run import latest_verdicts  # only then: its imports cost ~0.3 s

        for sid in replayed:
            for ordinal, v in latest_verdicts(store, sid).items():
                verdicts.append(Verdict(sid, ordinal, v.verdict, v.explanation))
    return annotations, verdicts


def _persist_many(store: KbStore, graphs: dict[str, nx.MultiDiGraph],
                  counts: dict[str, tuple[str, int]], states: dict[str, str | None],
                  marks: dict[str, str], sids: list[str]) -> None:
    """:func:`persist`, :func:`stamp_version`, :func:`_graph_done` and the kept extractor
    state of many scopes, in one transaction (Arrow tables, one INSERT each)."""
    node_rows = [(scope, n, d) for scope, g in graphs.items() for n, d in g.nodes(data=True)]
    edge_rows = [(scope, u, v, d) for scope, g in graphs.items()
                 for u, v, d in g.edges(data=True)]
    scopes_ = list(graphs)
    nodes = pa.table({  # noqa: F841
        "scope": pa.array([r[0] for r in node_rows], type=pa.string()),
        "node_id": pa.array([r[1] for r in node_rows], type=pa.string()),
        "type": pa.array([r[2].get("type") for r in node_rows], type=pa.string()),
        "label": pa.array([r[2].get("label") for r in node_rows], type=pa.string()),
        "status": pa.array([r[2].get("status") for r in node_rows], type=pa.string()),
        "session_id": pa.array([r[2].get("session_id") for r in node_rows], type=pa.string()),
        "ordinal": pa.array([r[2].get("ordinal") for r in node_rows], type=pa.int32()),
        "data": pa.array([_json(r[2]) for r in node_rows], type=pa.string()),
    })
    edges = pa.table({  # noqa: F841
        "scope": pa.array([r[0] for r in edge_rows], type=pa.string()),
        "src": pa.array([r[1] for r in edge_rows], type=pa.string()),
        "dst": pa.array([r[2] for r in edge_rows], type=pa.string()),
        "type": pa.array([r[3].get("type") for r in edge_rows], type=pa.string()),
        "ordinal": pa.array([r[3].get("ordinal") for r in edge_rows], type=pa.int32()),
        "data": pa.array([_json(r[3]) for r in edge_rows], type=pa.string()),
    })
    builds = pa.table({  # noqa: F841
        "scope": pa.array(scopes_, type=pa.string()),
        "messages": pa.array([counts[s][1] for s in scopes_], type=pa.int64()),
        "fingerprint": pa.array([counts[s][0] for s in scopes_], type=pa.string()),
        "marks": pa.array([marks[s] for s in scopes_], type=pa.string()),
        "state": pa.array([states[s] for s in scopes_], type=pa.string()),
    })
    done = pa.table({"sid": pa.array(sids, type=pa.string())})  # noqa: F841
    with store.transaction():
        for table in ("graph_nodes", "graph_edges", "graph_builds", "graph_state",
                      "graph_versions"):
            store.conn.execute(f"DELETE FROM {table} WHERE scope IN (SELECT scope FROM builds)")
        if node_rows:
            store.conn.execute("INSERT INTO graph_nodes SELECT * FROM nodes")
        if edge_rows:
            store.conn.execute("INSERT INTO graph_edges SELECT * FROM edges")
        store.conn.execute("INSERT INTO graph_builds SELECT scope, now(), messages, "
                           "fingerprint FROM builds")
        store.conn.execute("INSERT INTO graph_state SELECT scope, marks, state FROM builds "
                           "WHERE state IS NOT NULL")
        store.conn.execute("INSERT INTO graph_versions SELECT scope, ?, now() FROM builds",
                           [_version()])
        if _has_table(store, "graph_pending"):
            store.conn.execute("DELETE FROM graph_pending WHERE session_id IN "
                               "(SELECT sid FROM done)")


def _json(v: Any) -> str:
    return orjson.dumps(v, option=orjson.OPT_NON_STR_KEYS, default=str).decode()


def persist(store: KbStore, scope: str, g: nx.MultiDiGraph, fp: str, messages: int) -> None:
    nodes = pa.table({  # noqa: F841
        "scope": pa.array([scope] * g.number_of_nodes(), type=pa.string()),
        "node_id": [n for n in g.nodes],
        "type": [d.get("type") for _, d in g.nodes(data=True)],
        "label": [d.get("label") for _, d in g.nodes(data=True)],
        "status": [d.get("status") for _, d in g.nodes(data=True)],
        "session_id": [d.get("session_id") for _, d in g.nodes(data=True)],
        "ordinal": pa.array([d.get("ordinal") for _, d in g.nodes(data=True)], type=pa.int32()),
        "data": [_json(d) for _, d in g.nodes(data=True)],
    })
    edges_list = list(g.edges(data=True))
    edges = pa.table({  # noqa: F841
        "scope": pa.array([scope] * len(edges_list), type=pa.string()),
        "src": [u for u, _, _ in edges_list], "dst": [v for _, v, _ in edges_list],
        "type": [d.get("type") for _, _, d in edges_list],
        "ordinal": pa.array([d.get("ordinal") for _, _, d in edges_list], type=pa.int32()),
        "data": [_json(d) for _, _, d in edges_list],
    })
    with store.transaction():
        store.conn.execute("DELETE FROM graph_nodes WHERE scope = ?", [scope])
        store.conn.execute("DELETE FROM graph_edges WHERE scope = ?", [scope])
        store.conn.execute("DELETE FROM graph_builds WHERE scope = ?", [scope])
        if g.number_of_nodes():
            store.conn.execute("INSERT INTO graph_nodes SELECT * FROM nodes")
        if edges_list:
            store.conn.execute("INSERT INTO graph_edges SELECT * FROM edges")
        store.conn.execute("INSERT INTO graph_builds VALUES (?, now(), ?, ?)",
                           [scope, messages, fp])


# ------------------------------------------------------------------- queries
def _scope_filter(store: KbStore, session_id: str | None, all_scopes: bool) -> list[str]:
    if all_scopes:
        return [r[0] for r in store.conn.execute(
            "SELECT DISTINCT scope FROM graph_nodes").fetchall()]
    return [scope_of(store, store.resolve_session(session_id))]


def _nodes(store: KbStore, scopes_: list[str], where: str = "", params: Sequence[Any] = ()
           ) -> list[dict[str, Any]]:
    ids = pa.table({"scope": pa.array(scopes_, type=pa.string())})  # noqa: F841
    rows = store.conn.execute(
        f"SELECT scope, node_id, type, label, status, session_id, ordinal, data "
        f"FROM graph_nodes WHERE scope IN (SELECT scope FROM ids) {where} "
        f"ORDER BY scope, ordinal NULLS LAST, node_id", list(params)).fetchall()
    out = []
    for scope, nid, typ, label, status, sid, ordinal, data in rows:
        d = orjson.loads(data)
        d.update({"scope": scope, "node_id": nid, "type": typ, "label": label,
                  "status": status, "session_id": sid, "ordinal": ordinal})
        out.append(d)
    return out


def _edges(store: KbStore, scopes_: list[str], where: str = "", params: Sequence[Any] = ()
           ) -> list[dict[str, Any]]:
    ids = pa.table({"scope": pa.array(scopes_, type=pa.string())})  # noqa: F841
    rows = store.conn.execute(
        f"SELECT scope, src, dst, type, ordinal, data FROM graph_edges "
        f"WHERE scope IN (SELECT scope FROM ids) {where} ORDER BY ordinal NULLS LAST",
        list(params)).fetchall()
    out = []
    for scope, src, dst, typ, ordinal, data in rows:
        d = orjson.loads(data)
        d.update({"scope": scope, "src": src, "dst": dst, "type": typ, "ordinal": ordinal})
        out.append(d)
    return out


def ensure_built(store: KbStore, session_id: str | None, all_scopes: bool) -> list[str]:
    """The scopes a query covers; builds any that were never built (read-write stores)."""
    wanted = scopes(store) if all_scopes else [scope_of(store,
                                                        store.resolve_session(session_id))]
    missing = unbuilt(store, wanted)
    if missing and not store.read_only:
        _, left = rebuild_many(store, missing)  # many scopes' rows read together
        for s in left:
            rebuild(store, s)
    return wanted


def approaches(store: KbStore, scopes_: list[str]) -> list[dict[str, Any]]:
    return _nodes(store, scopes_, "AND type = 'approach'")


def dead_ends(store: KbStore, scopes_: list[str]) -> list[dict[str, Any]]:
    """Approaches that ended (dead end, blocked, superseded), with cause and evidence."""
    out = []
    for a in approaches(store, scopes_):
        if a["status"] not in ("dead_end", "blocked", "superseded"):
            continue
        out.append({
            "name": a["label"], "status": a["status"], "cause": a.get("cause"),
            "why": a.get("cause_text"),
            "cause_id": f"cause:{a['cause_key']}" if a.get("cause_key") else None,
            "evidence": [{"session_id": e["session_id"], "ordinal": e["ordinal"],
                          "role": e["role"], "note": e.get("note")} for e in a["evidence"]],
            "ended_at": a.get("ended"), "proposed_at": a["ordinal"],
            "aliases": a.get("aliases", []), "session_id": a["session_id"],
            "id": a["node_id"], "revisit": a.get("revisit"), "risks": a.get("risks", []),
            "via": a.get("via"),
        })
    return out


def untested(store: KbStore, scopes_: list[str], include_answered: bool = True,
             only_answered: bool = False) -> list[dict[str, Any]]:
    """Checks whose question got no answer when they ran, each ``open`` or ``answered``
    (with the ordinal of the later run that answered it)."""
    out = []
    for q in _nodes(store, scopes_, "AND type = 'question'"):
        if q["status"] != "open" and not include_answered:
            continue
        if only_answered and q["status"] == "open":
            continue
        out.append({"session_id": q["session_id"], "ordinal": q["ordinal"],
                    "question": q["label"], "reason": q["reason"], "host": q.get("host"),
                    "command": q.get("command"), "status": q["status"],
                    "answered_at": q.get("answered_at")})
    return _same_calls(out)


def _same_call(q: dict[str, Any]) -> tuple[Any, ...]:
    """What makes two untested rows the same call: the session, the command (the question
    when there is none), the question, why it went unanswered and what became of it."""
    return (q["session_id"], q.get("command") or "", q["question"], q["reason"],
            q.get("host"), q["status"], q.get("answered_at"))


def _same_calls(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``rows`` with every row given ``ordinals`` (each ordinal the same call was left
    untested at, in order) and ``count`` (how many times: two calls of one message count
    twice); rows that repeat one at the same ordinal are left out (no ordinal is lost:
    ``ordinal`` stays one row per ordinal, which scripts and the shared scorer read)."""
    groups: dict[tuple[Any, ...], list[dict[str, Any]]] = {}
    for q in rows:
        groups.setdefault(_same_call(q), []).append(q)
    out = []
    seen: set[tuple[Any, ...]] = set()
    for q in rows:
        key = _same_call(q)
        if (key, q["ordinal"]) in seen:
            continue
        seen.add((key, q["ordinal"]))
        group = groups[key]
        out.append({**q, "ordinals": sorted({g["ordinal"] for g in group},
                                            key=lambda o: (o is None, o or 0)),
                    "count": len(group)})
    return out


def untested_once(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Untested rows (of :func:`untested`) as people read them: the same call left
    untested again is one row, at its first ordinal, with its ``ordinals`` and ``count``."""
    out = []
    seen: set[tuple[Any, ...]] = set()
    for q in rows:
        key = _same_call(q)
        if key in seen:
            continue
        seen.add(key)
        out.append(q)
    return out


def pivots(store: KbStore, scopes_: list[str]) -> list[dict[str, Any]]:
    return _edges(store, scopes_, "AND type = 'pivoted_to'")


def decisions(store: KbStore, scopes_: list[str]) -> list[dict[str, Any]]:
    return _nodes(store, scopes_, "AND type = 'decision'")


def causes(store: KbStore, scopes_: list[str]) -> list[dict[str, Any]]:
    return _nodes(store, scopes_, "AND type = 'cause'")


def load_graph(store: KbStore, scopes_: list[str]) -> nx.MultiDiGraph:
    """The persisted graph of some scopes as networkx (for export)."""
    g = nx.MultiDiGraph()
    for n in _nodes(store, scopes_):
        nid = n.pop("node_id")
        if nid not in g:
            g.add_node(nid, **n)
    for e in _edges(store, scopes_):
        g.add_edge(e.pop("src"), e.pop("dst"), **e)
    return g


def neighbors(store: KbStore, scopes_: list[str], node_id: str) -> list[dict[str, Any]]:
    """Edges touching one node, each with the node at its other end."""
    edges = _edges(store, scopes_, "AND (src = ? OR dst = ?)", [node_id, node_id])
    ids = {e["src"] for e in edges} | {e["dst"] for e in edges}
    nodes = {n["node_id"]: n for n in _nodes(store, scopes_) if n["node_id"] in ids}
    for e in edges:
        other = e["dst"] if e["src"] == node_id else e["src"]
        e["other"] = nodes.get(other, {"node_id": other})
        e["direction"] = "out" if e["src"] == node_id else "in"
    return edges


def measurements(store: KbStore, scopes_: list[str],
                 unit: str | Iterable[str] | None = None) -> list[dict[str, Any]]:
    """Every measured result of the scopes' sessions, in order."""
    sids = [s for sc in scopes_ for s in scope_sessions(store, sc)]
    ids = pa.table({"sid": pa.array(sids, type=pa.string())})  # noqa: F841
    # in the order they were read: message, call, place in the call's list (two readings
    # of one message must not trade places between two runs of the same query)
    sql = ("SELECT session_id, ordinal, m.value, m.unit, m.label, left(command, 160) "
           "FROM (SELECT session_id, ordinal, seq, command, unnest(measurements) AS m, "
           "      unnest(generate_series(1, len(measurements))) AS i FROM calls "
           "      WHERE session_id IN (SELECT sid FROM ids) AND measurements IS NOT NULL) "
           "WHERE true")
    params: list[Any] = []
    if unit:
        units = [unit] if isinstance(unit, str) else list(unit)
        sql += f" AND m.unit IN ({', '.join('?' * len(units))})"
        params.extend(units)
    rows = store.conn.execute(sql + " ORDER BY session_id, ordinal, seq, i", params).fetchall()
    red = store.redactor  # the command is shown (timeline, handoff): its secrets hidden
    return [{"session_id": s, "ordinal": o, "value": v, "unit": u, "label": lab,
             "command": red.text(c, cut_tail=True)} for s, o, v, u, lab, c in rows]


# --------------------------------------------------------------- annotations
ANNOTATION_KINDS = ("dead_end", "confirmed", "hypothesis", "link", "note", "revisit")


def annotate(store: KbStore, session_id: str, ordinal: int | None, kind: str,
             value: str | None = None, target: str | None = None) -> int:
    if kind not in ANNOTATION_KINDS:
        raise ValueError(f"unknown annotation kind {kind!r}")
    message_id = None
    if ordinal is not None:
        found = store.conn.execute(
            "SELECT message_id FROM messages WHERE session_id = ? AND ordinal = ?",
            [session_id, ordinal]).fetchone()
        if not found:
            raise KbNotFound(f"session {session_id} has no message {ordinal}")
        message_id = found[0]
    row = store.conn.execute(
        "INSERT INTO annotations (session_id, ordinal, message_id, kind, value, target) "
        "VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
        [session_id, ordinal, message_id, kind, value, target]).fetchone()
    assert row is not None
    return int(row[0])


def unannotate(store: KbStore, session_id: str, ordinal: int | None = None,
               ann_id: int | None = None, kind: str | None = None) -> int:
    where = ["session_id = ?"]
    params: list[Any] = [session_id]
    if ann_id is not None:
        where.append("id = ?")
        params.append(ann_id)
    if ordinal is not None:
        where.append("ordinal = ?")
        params.append(ordinal)
    if kind is not None:
        where.append("kind = ?")
        params.append(kind)
    row = store.conn.execute(f"DELETE FROM annotations WHERE {' AND '.join(where)} "
                             "RETURNING id", params).fetchall()
    return len(row)


def annotations(store: KbStore, session_id: str | None = None) -> list[dict[str, Any]]:
    sql = "SELECT id, session_id, ordinal, kind, value, target, created_at FROM annotations"
    params: list[Any] = []
    if session_id:
        sql += " WHERE session_id = ?"
        params.append(session_id)
    return store.rows(sql + " ORDER BY id", params)


def built(store: KbStore, scope: str) -> bool:
    """Whether the scope's graph was ever built (``logkb graph``, ingest, a replay)."""
    return store.conn.execute("SELECT 1 FROM graph_builds WHERE scope = ?",
                              [scope]).fetchone() is not None


def listing_readings(store: KbStore, session_ids: list[str]
                     ) -> list[tuple[str, int, list[tuple[str, str | None]]]]:
    """``(session, ordinal, [(label, unit), …])`` of the calls that listed paths (a
    reading labelled ``… listed``, :mod:`logparse.listings`), each with all its readings:
    what :func:`logparse.measure_plumbing.harness_of_call` judges together."""
    rows = store.conn.execute("""
        SELECT session_id, ordinal, [(coalesce(x.label, ''), x.unit) FOR x IN measurements]
          FROM calls WHERE session_id IN (SELECT unnest($sids)) AND len(measurements) > 1
           AND len(list_filter(measurements, lambda x: x.label LIKE '% listed')) > 0""",
                              {"sids": session_ids}).fetchall()
    return [(s, int(o), [(str(lab), u) for lab, u in ms]) for s, o, ms in rows]


def measured_quantities(store: KbStore, session_ids: list[str]) -> list[tuple[str, str, int]]:
    """Every quantity the sessions' command results measured: ``(unit, label, points)``,
    points counting the messages that measured it; in the order each was first read (a
    GROUP BY has none: two quantities that rank alike would trade places between two runs
    of one query, and with them the handoff's series and its last reading)."""
    rows = store.conn.execute("""
        SELECT m.unit, coalesce(m.label, ''), count(DISTINCT (session_id, ordinal)) FROM (
          SELECT session_id, ordinal, seq, unnest(measurements) AS m,
                 unnest(generate_series(1, len(measurements))) AS i FROM calls
          WHERE session_id IN (SELECT unnest($sids)) AND len(measurements) > 0)
        GROUP BY ALL
        ORDER BY min((ordinal, seq, i)), 1, 2""", {"sids": session_ids}).fetchall()
    return [(u or "", lab, int(n)) for u, lab, n in rows]
