"""The read commands: ``sessions``, ``events``, ``show``, ``search``, ``query``, ``path``."""

from __future__ import annotations

import csv
import os
import re
import shlex
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import click

from kb.cli.tools import (
    NBSP,
    ORDINAL,
    check_range,
    choices,
    db_option,
    elsewhere_hint,
    emit_json,
    emit_lines,
    err,
    fail,
    handle_errors,
    json_option,
    labelled,
    limit_option,
    no_color,
    note,
    open_store,
    out,
    paged,
    plural,
    real,
    resolve,
    say,
    session_option,
    show_secrets_requested,
    split,
    width,
)
from kb.errors import KbNotFound
from kb.exitcodes import ExitCode
from kb.paths import default_db
from logparse.kinds import Category, EventKind


# -------------------------------------------------------------------- sessions
@click.command()
@click.argument("ref", metavar="[SESSION]", required=False)
@limit_option()
@db_option
@json_option
@handle_errors
def sessions(ref: str | None, limit: int | None, db: Path | None, as_json: bool) -> None:
    """List ingested sessions (subagent sessions under their parents; ▶ the current one).

    Each is named by its short id (the shortest unique prefix, at least 7
    characters: every --session takes it) and its agent.  With SESSION (an id,
    a prefix or title words), that session in detail, with the command that
    resumes it in its agent (`logkb resume SESSION` runs it)."""
    from kb import views
    from kb.render import sessions_lines

    with open_store(db) as store:
        rows = store.sessions()
        current = store.current_session()
        usage = views.session_usage(store)
        short = store.short_ids()
        if ref is not None:
            sid = store.resolve_session(ref)
            recorded = store.recorded_figures([sid]).get(sid)
    resume_of = _resume_ids(rows)
    if ref is not None:
        rows = [r for r in rows if r["session_id"] == sid]
        r = rows[0]
        info = _session_json(r, current, usage.get(r["session_id"], {}), short, resume_of)
        info["recorded"] = recorded
        if as_json:
            emit_json(info)
            return
        _session_detail(info)
        return
    left = 0
    if limit is not None:
        tops = [r for r in rows if r["parent_id"] is None]
        left, tops = max(0, len(tops) - limit), tops[:limit]
        keep = {r["session_id"] for r in tops}
        by_id = {r["session_id"]: r for r in rows}

        def top_of(r: dict[str, Any]) -> str:
            seen = 0
            while r["parent_id"] in by_id and seen < 64:
                r, seen = by_id[r["parent_id"]], seen + 1
            return str(r["session_id"])

        rows = [r for r in rows if top_of(r) in keep]
    if as_json:
        emit_lines(_session_json(r, current, usage.get(r["session_id"], {}), short, resume_of)
                   for r in rows)
        return
    if not rows:
        note("no sessions yet (run `logkb ingest`)")
        return
    with paged():
        for line in sessions_lines(rows, out.width, current=current, usage=usage,
                                   short=short):
            out.print(line, no_wrap=True, crop=True)
    if left:
        note(f"{left} more: raise -n")


def _resume_ids(rows: list[dict[str, Any]]) -> dict[str, str]:
    """The session each one is resumed as: a Claude Code or Codex subagent's session by the
    top-level session that spawned it (opencode resumes any session by its own id)."""
    by_id = {r["session_id"]: r for r in rows}
    out: dict[str, str] = {}
    for r in rows:
        top, hops = r, 0
        while (top.get("agent") or "opencode") != "opencode" and top["parent_id"] in by_id \
                and hops < 64:
            top, hops = by_id[top["parent_id"]], hops + 1
        out[r["session_id"]] = top["session_id"]
    return out


def _session_detail(info: dict[str, Any]) -> None:
    """One session, a field a line (``logkb sessions SESSION``)."""
    from kb.views import tokens_text, usage_cost_text

    toks = info["tokens"]
    total = toks.get("total") or 0
    rows = [("session", info["id"]), ("short id", info["short_id"]),
            ("title", " ".join((info["title"] or "").split())),
            ("agent", info["agent"] or "opencode"),
            ("parent", info["parent_id"] or ""),
            ("messages", f"{info['messages']} ({info['commands']} commands)"),
            ("tokens", tokens_text(total) if total else ""),
            ("cost", usage_cost_text({"tokens_total": total, "priced_cost": info["cost"],
                                      "unpriced": 0 if info["cost_complete"] else 1})),
            ("recorded", recorded_text(info.get("recorded"))),
            ("source", f"[{info['source_form']}] {info['source_path'] or ''}".rstrip()),
            ("resume", info["resume"] or "(none: open it in its agent)")]
    if info["source_form"] == "rewrite":  # say it where the agent is named
        rows[3] = ("agent", f"{info['agent'] or 'unknown'} (a rewrite of its session, not "
                            "its own output)")
        rows[-1] = ("resume", "(none: read from a rewrite)")
    from rich.text import Text

    from kb.width import cells

    for k, v in rows:  # a long value wraps under itself, not at column 0
        if not v:
            continue
        if k in WHOLE and cells(v) > max(20, out.width - 11):
            # a path or a command is pasted: cut by the wrap (`….jso` / `nl`) it no longer
            # names the file; on a line of its own, whole (its form tag stays with the key)
            tag, _, rest = v.partition("] ") if v.startswith("[") else ("", "", v)
            say(Text(f"{k + ':':<10} {tag + ']' if tag else ''}".rstrip()))
            say(Text(f"  {rest}"))  # soft_wrap: the terminal folds it, never a cut
            continue
        if v:
            parts = Text(v).wrap(real(out), max(20, out.width - 11))
            for i, part in enumerate(parts):
                part.rstrip()
                say(Text(f"{k + ':':<10} " if i == 0 else " " * 11) + part)


WHOLE = frozenset({"session", "source", "resume"})
"""Fields of ``sessions SESSION`` that are pasted (an id, a path, a command): never
wrapped; too long for the line, on a line of their own."""


def recorded_text(rec: Any) -> str:
    """What the agent itself counted of the whole session (``info.recorded``), one line:
    ``$0.06 by the agent · 2 runs, 1 failed · 12 turns · 3.4 s``; empty without it."""
    if not isinstance(rec, dict):
        return ""

    def num(key: str) -> float | None:
        v = rec.get(key)
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    bits = []
    cost = num("cost")
    if cost is not None:
        money = f"${cost:,.2f}" if cost >= 0.01 or not cost else "<$0.01"
        bits.append(f"{money} by the agent" + (" (a model it could not price)"
                                               if rec.get("unknownModelCost") else ""))
    runs, errors = num("runs"), num("errors")
    if runs:
        bits.append(plural(int(runs), "run") + (f", {int(errors)} failed" if errors else ""))
    turns = num("turns")
    if turns:
        bits.append(plural(int(turns), "turn"))
    ms = num("durationMs")
    if ms:
        bits.append(f"{ms / 1000:,.1f} s")
    added, removed = num("linesAdded"), num("linesRemoved")
    if added or removed:
        bits.append(f"+{int(added or 0)}/-{int(removed or 0)} lines")
    return " · ".join(bits)


def _session_json(r: dict[str, Any], current: str | None = None,
                  usage: dict[str, Any] | None = None,
                  short: dict[str, str] | None = None,
                  resume_of: dict[str, str] | None = None) -> dict[str, Any]:
    from kb.sessionref import resume_command

    u = usage or {}
    return {"id": r["session_id"], "short_id": (short or {}).get(r["session_id"],
                                                                 r["session_id"]),
            "resume": resume_command(r.get("agent"), (resume_of or {}).get(r["session_id"],
                                                                           r["session_id"]),
                                     r.get("source_form")),
            "parent_id": r["parent_id"], "agent": r.get("agent"),
            "title": r["title"], "current": r["session_id"] == current,
            "messages": r["messages"], "events": r["events"], "commands": r["commands"],
            "time_created": r["time_created"], "time_updated": r["time_updated"],
            "last_activity": r["last_activity"], "source_form": r["source_form"],
            "source_path": r["source_path"], "complete": r["complete"],
            "spawned_at": r["spawned_at"],
            "tokens": {k.removeprefix("tokens_"): u.get(k) for k in (
                "tokens_input", "tokens_output", "tokens_reasoning", "tokens_cache_read",
                "tokens_cache_write", "tokens_total")},
            "cost": u.get("priced_cost"), "cost_complete": not u.get("unpriced")}


# ------------------------------------------------------------------------- use
@click.command()
@click.argument("words", metavar="ID|PREFIX|TITLE-WORDS", nargs=-1)
@click.option("--clear", is_flag=True, help="Forget the current session (back to the latest).")
@db_option
@json_option
@handle_errors
def use(words: tuple[str, ...], clear: bool, db: Path | None, as_json: bool) -> None:
    """Choose the current session: every command without --session is about it.

    The session is named as everywhere: its id, its short id as `logkb sessions`
    shows it, a unique prefix, or words of its title; several words are one title
    (`logkb use fix the flaky test` is `logkb use "fix the flaky test"`).  A prefix
    or words several sessions share is a usage error (exit 2) that lists them.
    Without an argument, print the current session by its short id (none chosen:
    says so, exit 6).  The choice is stored in the knowledge base, so it holds for
    every later command (and the TUI) until the next `logkb use`.
    """
    ref = " ".join(words) if words else None
    if ref is None and not clear:
        with open_store(db) as store:
            sid = store.current_session()
            title = store.session_title(sid) if sid else None
            short = store.short_ids().get(sid, sid) if sid else None
        if as_json:
            emit_json({"current": sid, "short_id": short, "title": title})
        elif sid is not None:
            from kb.render import clip

            # by its short id, as `sessions` names it (a 36-character id left the
            # title 40 columns at 80; every command takes the short id back)
            say(clip(f"{short}  {' '.join((title or '').split())}".rstrip(), out.width))
        if sid is None:  # nothing to print: not found (6), as `why` of an unknown name
            note("no current session: commands use the latest ingested (`logkb use"
                 f"{NBSP}ID` sets one)", wrap=True)
            sys.exit(int(ExitCode.NOT_FOUND))
        return
    with open_store(db, read_only=False) as store:
        sid = None if clear else store.resolve_session(ref)
        store.set_current_session(sid)
        title = store.session_title(sid) if sid else None
        short = store.short_ids().get(sid, sid) if sid else None
    if as_json:
        emit_json({"current": sid, "short_id": short, "title": title})
    elif sid is None:
        note("no current session: commands use the latest ingested top-level session")
    else:
        from rich.text import Text

        from kb.render import clip

        say(clip(Text.assemble("now using ", (short or sid, "bold"),
                               f"  {' '.join((title or '').split())}".rstrip()), out.width))


# ---------------------------------------------------------------------- resume
@click.command()
@click.argument("ref", metavar="[SESSION]", required=False)
@click.option("--exec", "run", is_flag=True,
              help="Run the command (in the session's directory when it still exists) "
                   "instead of printing it.")
@db_option
@json_option
@handle_errors
def resume(ref: str | None, run: bool, db: Path | None, as_json: bool) -> None:
    """Print the command that continues SESSION in its own agent.

    `claude --resume ID`, `codex resume ID`, `gemini --resume ID`, `pi --session
    ID` or `opencode --session ID`.  SESSION is an id, a short id, a prefix or
    title words [default: the current session, else the latest ingested].
    Nothing runs unless --exec."""
    from kb.sessionref import resume_argv, resume_command

    with open_store(db) as store:
        sid = resolve(store, ref, choose="`logkb resume SESSION`")
        row = store.session(sid)
        # Claude Code and Codex resume the conversation a subagent ran inside
        hops = 0
        while row.get("parent_id") and (row.get("agent") or "opencode") != "opencode" \
                and hops < 64:
            try:
                row, hops = store.session(row["parent_id"]), hops + 1
            except KbNotFound:
                break
        short = store.short_ids()  # messages name a session as `sessions` shows it
    if row["session_id"] != sid:
        note(f"{short.get(sid, sid)} is a subagent's session: its agent resumes the session "
             f"that spawned it, {short.get(row['session_id'], row['session_id'])}")
        sid = row["session_id"]
    agent, directory = row.get("agent"), row.get("directory")
    argv = resume_argv(agent, sid, row.get("source_form"))
    if argv is None and row.get("source_form") == "rewrite":
        fail(f"{short.get(sid, sid)} was read from a rewrite of a {agent} session (not the agent's own "
             "output): it has no session to resume", ExitCode.NOT_FOUND,
             hint="open the original conversation in the agent that wrote it")
    if argv is None:
        fail(f"{agent} sessions cannot be resumed from a shell", ExitCode.NOT_FOUND,
             hint="open the conversation in the agent that wrote it")
    if as_json:
        emit_json({"session_id": sid, "agent": agent or "opencode", "directory": directory,
                   "resume": resume_command(agent, sid), "argv": argv})
        return
    from kb.safe_text import is_safe, visible

    if not is_safe(sid):  # the id is the transcript's text: never a command to paste or run
        fail(f"the session id {visible(sid)} holds control characters: no command printed "
             "or run", ExitCode.NOT_FOUND, hint="--json gives the exact id and argv")
    if not run:
        click.echo(resume_command(agent, sid))
        if directory:  # quoted as the shell needs it: a copied path runs nothing
            import shlex

            from kb.width import cells

            where = shlex.quote(directory)
            # the path whole on a line of its own when the line would not fit: wrapped
            # at its spaces it would no longer paste
            note(f"(run it in {where})" if cells(where) + 12 <= err.width
                 else f"run it in:\n  {where}")
        return
    import shutil

    if shutil.which(argv[0]) is None:
        fail(f"{argv[0]} is not on PATH", ExitCode.NOT_FOUND,
             hint=f"install {argv[0]}, or run `{resume_command(agent, sid)}` where it is")
    if directory and os.path.isdir(directory):
        os.chdir(directory)
    sys.stdout.flush()
    os.execvp(argv[0], argv)


# ---------------------------------------------------------------------- events
KINDS = [k.value for k in EventKind]
CATEGORIES = [c.value for c in Category]


@click.command()
@session_option
@click.option("--kind", "kinds", multiple=True, metavar="KIND",
              callback=choices(KINDS, "kind"),
              help=f"{', '.join(KINDS)} (repeatable or comma-separated).")
@click.option("--category", "categories", multiple=True, metavar="CAT",
              callback=choices(CATEGORIES, "category"),
              help=f"{', '.join(CATEGORIES)} (repeatable or comma-separated).")
@click.option("--host", "hosts", multiple=True, metavar="HOST",
              help="Only commands on HOST (local: those run without ssh).")
@click.option("--from", "start", type=ORDINAL, metavar="N", help="First ordinal.")
@click.option("--to", "end", type=ORDINAL, metavar="M", help="Last ordinal.")
@limit_option()
@db_option
@json_option
@handle_errors
def events(session_id: str | None, kinds: list[str], categories: list[str],
           hosts: tuple[str, ...], start: int | None, end: int | None, limit: int | None,
           db: Path | None, as_json: bool) -> None:
    """List a session's typed events (JSON: one object per line)."""
    from kb.render import clip, event_line, one_per_decision

    check_range(start, end)
    with open_store(db) as store:
        sid = resolve(store, session_id)
        evs = store.events(sid, kinds=kinds, categories=categories, hosts=split(hosts),
                           start=start, end=end, limit=None if limit is None else limit + 1)
        cut_short = limit is not None and len(evs) > limit
        evs = evs[:limit] if limit is not None else evs
        short = store.short_ids() if not evs else {}
        hint = None
        last = store.max_ordinal(sid) if not evs and start is not None else 0
        if start is not None and start > last and not evs:
            # "no events in 019de7f match" for --from 99999 read as if a filter missed
            hint = (f"--from {start} is past its end: its messages are 1–{last}" if last
                    else "it has no messages")
        elif not evs and (kinds or categories or hosts):
            hint = elsewhere_hint(store, sid, lambda other: bool(store.events(
                other, kinds=kinds, categories=categories, hosts=split(hosts), start=start,
                end=end, limit=1)))
    if as_json:
        from kb.safe_text import json_text

        for e in evs:
            sys.stdout.write(json_text(e.model_dump_json(exclude_none=False)) + "\n")
    else:
        w = out.width
        with paged():
            # a choice read from the agent's words is shown in their place, once (--json
            # lists every stored event: the choice has source "choice", docs/json.md)
            for e in one_per_decision(evs):
                out.print(clip(event_line(e, w), w), no_wrap=True, crop=True)
        if cut_short:
            note(f"more events after message {evs[-1].ordinal}: raise -n (or --from)")
    if not evs:
        note(f"no events in {short.get(sid, sid)} match" + (f" ({hint})" if hint else ""))


# ------------------------------------------------------------------------ show
@click.command()
@click.argument("ordinal", type=ORDINAL)  # 0 "was found" in every session
@session_option
@click.option("--full", is_flag=True, help="Show whole outputs, not their head and tail.")
@db_option
@json_option
@handle_errors
def show(ordinal: int, session_id: str | None, full: bool, db: Path | None,
         as_json: bool) -> None:
    """Show one message (by ordinal) with its events (and whether the user rewound
    the conversation past it: Gemini CLI's /rewind)."""
    from rich.rule import Rule
    from rich.text import Text

    from kb import views
    from kb.render import event_block, when

    with open_store(db) as store:
        sid = resolve(store, session_id)
        try:
            msg = store.message(sid, ordinal)
            # (a rewind that took it back follows it: the messages before are not read)
            msg["rewound"] = store.rewound(sid, since=ordinal).get(ordinal)
            # no event of its own: a call it made may be kept with the message its result
            # came in (Codex's parallel calls)
            msg["calls_at"] = [] if msg["events"] else [
                {"ordinal": o, "command": c} for o, c in views.calls_elsewhere(
                    store, sid, ordinal)]
        except KbNotFound:
            # ordinals are per session: another session's message N is a different message,
            # worth naming only when the session was not chosen (the latest, `logkb use`)
            hint = None if session_id is not None else elsewhere_hint(
                store, sid, lambda other: store.max_ordinal(other) >= ordinal)
            last = store.max_ordinal(sid)
            name = store.short_ids().get(sid, sid)
            fail(f"session {name} has no message {ordinal} "
                 f"({f'its messages are 1–{last}' if last else 'it has no messages'})",
                 ExitCode.NOT_FOUND, hint=hint)
    if as_json:
        evs = msg.pop("events")
        emit_json({"session_id": sid, **msg,
                   "events": [e.model_dump(mode="json") for e in evs]})
        return
    title = Text(f"message {msg['ordinal']}")
    if msg.get("rewound"):  # first, as in the TUI's detail pane: a long heading is cut
        title.append(" · rewound", style="dim italic")
    title.append(f" · {msg['role']} · {when(msg['time_created'])}"
                 f"{' · ' + msg['agent'] if msg['agent'] else ''}"
                 f"{' · ' + msg['model'] if msg['model'] else ''}"
                 f"{' · finish ' + msg['finish'] if msg['finish'] else ''}"
                 f"{' · ERROR ' + msg['error'] if msg['error'] else ''}")
    with paged():
        out.print(Rule(title, align="left"))
        if msg["inferred"]:
            say("(a user message whose place was inferred; the run stream does not "
                "record prompts)", style="dim")
        if msg.get("rewound"):
            rw = msg["rewound"]
            say(f"(rewound after message {rw['at']}: the user took this message back)",
                style="yellow")
        for ev in msg["events"]:
            out.print(event_block(ev, full=full), soft_wrap=False)
            out.print()
        if not msg["events"]:
            at = sorted({c["ordinal"] for c in msg["calls_at"]})
            many = len(msg["calls_at"]) > 1
            text = (f"(no events here: its call{'s are' if many else ' is'} shown with "
                    f"message{'s' if len(at) > 1 else ''} {', '.join(map(str, at))}, where "
                    f"{'their results' if many else 'its result'} came)" if at else
                    "(no events: nothing in this message was kept as one)")
            out.print(Text(text, style="dim"))  # prose: wraps at the width


# ---------------------------------------------------------------------- search
@click.command()
@click.argument("text")
@click.option("--regex", is_flag=True,
              help="TEXT is a regular expression (RE2): scans DuckDB instead of the index.")
@click.option("--newest", is_flag=True, help="Newest first instead of best match first.")
@click.option("--session", "-s", "session_id", metavar="ID", default=None,
              help="Only this session (id, short id, prefix or title words).")
@click.option("--here", is_flag=True,
              help="Only the current session (`logkb use`, else the latest ingested).")
@click.option("-n", "--limit", type=ORDINAL, default=50, show_default=True,
              metavar="N", help="At most N hits.")
@db_option
@json_option
@handle_errors
def search(text: str, regex: bool, newest: bool, session_id: str | None, here: bool,
           limit: int, db: Path | None, as_json: bool) -> None:
    """Search EVERY session in the knowledge base: commands, outputs, prose, todos.

    --session ID or --here (the current session) narrow it to one.  Each hit
    names its session (short id, agent, title) and its message ordinal
    (`logkb show ORDINAL --session ID` opens it).  No hit: exit 1, like grep,
    with a hint on stderr.

    \b
    Words written together are a phrase:  logkb search 'KeyError: 12'
    Prefix, boolean, filters:  flashinf*   deep_ep OR deepep   NOT kind:prompt
      host:10.1.230.174 kind:result   tool:bash   session:ses_ab   field:output
      ordinal:5200..5300   time:2026-01-05
    Best match (BM25) first; --newest for newest first; --regex scans instead."""
    from kb.search import search as run_search
    from kb.search.query import QueryError

    if here and session_id is not None:
        raise click.UsageError("--session and --here exclude each other")
    db_path = db if db is not None else default_db()
    if here and session_id is None:
        with open_store(db) as store:
            session_id = resolve(store, None)  # which one, said on stderr as elsewhere

    def run(query: str, n: int) -> Any:
        return run_search(db_path, query, regex=regex, session_id=session_id, limit=n,
                          newest=newest, reveal=show_secrets_requested())

    try:
        found = run(text, limit + 1)  # one more: whether the list was cut, said
    except QueryError as e:  # like grep: a pattern it cannot read is exit 2
        fail(str(e) if regex else f"bad query: {e}", ExitCode.USAGE,
             hint=getattr(e, "hint", None))
    for line in found.notes:
        from kb.safe_text import visible

        sys.stderr.write(visible(line) + "\n")
    cut_short = len(found.hits) > limit
    found.hits = found.hits[:limit]
    labels = _labels(db, found)
    if not found.hits:
        _search_miss(text, regex, session_id, labels, run)
        sys.exit(int(ExitCode.NO_MATCH))
    sessions = _hit_sessions(labels)
    if as_json:
        for h in found.hits:
            info = sessions.get(h["session_id"], {})
            h["short_id"] = info.get("short_id", h["session_id"])
            h["agent"] = info.get("agent")
            h["resume"] = info.get("resume")
        emit_lines(found.hits)
        return
    # plain writes, no rich: a search answers in a fraction of rich's import time
    from kb.safe_text import visible
    from kb.width import cells, cut, fit

    cols = width()
    bold = sys.stdout.isatty() and not no_color()
    groups: dict[str, list[dict[str, Any]]] = {}
    for h in found.hits:
        groups.setdefault(h["session_id"], []).append(h)
    lines = []
    for sid, hits in groups.items():
        info = sessions.get(sid, {})
        head = visible(f"{info.get('short_id', sid)}  {info.get('agent') or 'opencode'}  "
                       f"{' '.join((info.get('title') or '').split())}")
        head = fit(head, cols)
        lines.append((f"\x1b[1m{head}\x1b[0m" if bold else head) + "\n")
        for h in hits:
            lead = f"{h['ordinal']:>7} {h['field']:<7} "
            # the same text found again (a todo list written again): its ordinals, once
            same = h.get("same_at") or []
            also = (f" (also at {', '.join(map(str, same[:3]))}"
                    f"{f' +{len(same) - 3}' if len(same) > 3 else ''})") if same else ""
            room = max(20, cols - len(lead) - len(also))
            snippet = " ".join(h["snippet"].split("\n"))  # same length: highlights stay put
            snippet, marks = _visible_marked(snippet, h["highlights"])
            if cells(snippet) > room:
                snippet = cut(snippet, room - 1) + "…"
            marks = [(a, b) for a, b in marks if b <= len(snippet) - 1]
            if bold:
                for a, b in reversed(marks):
                    snippet = f"{snippet[:a]}\x1b[1;31m{snippet[a:b]}\x1b[0m{snippet[b:]}"
            lines.append(lead + snippet + also + "\n")
    sys.stdout.write("".join(lines))
    if cut_short:
        sys.stdout.flush()
        sys.stderr.write(f"more hits: raise -n (-n {limit} shown)\n")


def _visible_marked(text: str, marks: list[tuple[int, int]]
                    ) -> tuple[str, list[tuple[int, int]]]:
    """``text`` made visible (:func:`kb.safe_text.visible`) with its highlight spans moved
    to where their text went."""
    from kb.safe_text import is_safe, visible

    if is_safe(text):
        return text, [(a, b) for a, b in marks]
    pieces: list[str] = []
    moved: list[tuple[int, int]] = []
    at = n = 0
    for a, b in sorted(marks):
        if a < at:
            continue
        pieces.append(visible(text[at:a]))
        n += len(pieces[-1])
        pieces.append(visible(text[a:b]))
        moved.append((n, n + len(pieces[-1])))
        n += len(pieces[-1])
        at = b
    pieces.append(visible(text[at:]))
    return "".join(pieces), moved


def _labels(db: Path | None, found: Any) -> dict[str, dict[str, Any]]:
    """Every session's agent, title and top-levelness: from the search itself (the index
    keeps them, so a search never opens DuckDB for them), else from the store."""
    if found.sessions:
        return dict(found.sessions)
    with open_store(db) as store:
        return store.session_labels()


def _hit_sessions(labels: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Short id, agent, title and resume command of every session."""
    from kb.sessionref import resume_command, short_ids

    short = short_ids(labels)
    return {sid: {"short_id": short.get(sid, sid), "agent": info.get("agent") or "opencode",
                  "title": info.get("title"),
                  "resume": resume_command(info.get("agent"), sid, info.get("form"))}
            for sid, info in labels.items()}


def spellings(text: str) -> list[str]:
    """Other ways to write a plain query that found nothing: the words run together
    (``deep ep`` → ``deepep``), the last word as a prefix (``flashinf`` → ``flashinf*``)."""
    from kb.search.query import is_plain, words

    if not is_plain(text):
        return []
    ws = words(text)
    if not ws:
        return []
    out = []
    if len(ws) > 1:
        out.append("".join(ws))
    if len(ws[-1]) >= 3:
        out.append(f"{ws[0]}*" if len(ws) == 1 else
                   '"' + " ".join(ws[:-1]) + f'" {ws[-1]}*')
    return list(dict.fromkeys(o for o in out if o != text))


def _search_miss(text: str, regex: bool, session_id: str | None,
                 labels: dict[str, dict[str, Any]], run: Callable[[str, int], Any]) -> None:
    """What to say when nothing matched: how much was searched, the other spellings
    tried (and which would have found something), --regex."""
    from kb.sessionref import short_ids

    total = sum(1 for info in labels.values() if info.get("top"))
    short = short_ids(labels)
    where = (f"session {short.get(session_id, session_id)}" if session_id
             else plural(total, "session"))
    import textwrap

    cols = width()

    def say_(line: str) -> None:  # a diagnostic fits the terminal too
        sys.stderr.write(textwrap.fill(line, cols, subsequent_indent="      ",
                                       break_long_words=False, break_on_hyphens=False)
                         + "\n")

    say_(f"logkb: no match for {text!r} in {where}")
    tried = [] if regex else spellings(text)
    found = []
    for alt in tried:
        try:
            if run(alt, 1).hits:
                found.append(alt)
        except Exception:  # noqa: BLE001 - a spelling the parser refuses is just not tried
            continue
    if found:
        say_("hint: other spellings match: "
             + ", ".join(f"logkb search {shlex.quote(f)}" for f in found))
    elif tried:
        say_("hint: tried " + ", ".join(repr(t) for t in tried) + " too: no match either")
    say_("hint: " + ("--regex scans for a regular expression" if not regex
                     else "the expression is RE2 syntax")
         + ("; without --session/--here every session is searched" if session_id else ""))


# ----------------------------------------------------------------------- query
@click.command()
@click.argument("sql")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
@click.option("-n", "--limit", type=ORDINAL, default=None,
              help="Print at most this many rows (the rest are counted on stderr).  "
                   "Default: 100 for the table, every row for --json and --csv.")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="Stop after this many seconds (the query, and printing its result).")
@click.option("--memory-limit", default="2GB", show_default=True, metavar="SIZE",
              help="DuckDB's memory for the query (e.g. 512MB, 8GB).")
@db_option
@json_option
@handle_errors
def query(sql: str, as_csv: bool, limit: int | None, timeout: float, memory_limit: str,
          db: Path | None, as_json: bool) -> None:
    """Run read-only SQL on the knowledge base (tables: docs/schema.md).

    A sandbox: only SELECT, WITH, EXPLAIN, DESCRIBE and SHOW; no file but the
    knowledge base, no network, no extensions, no settings.  Text is redacted
    unless --show-secrets."""
    import threading

    # the query is interrupted at the timeout; what follows it (fetching, redacting,
    # printing a huge result) is under the same deadline: the process ends 2 s after it
    watchdog = threading.Timer(timeout + 2.0, _out_of_time, [timeout])
    watchdog.daemon = True
    watchdog.start()
    try:
        _run_query(sql, as_csv, limit, timeout, memory_limit, db, as_json)
        sys.stdout.flush()
    finally:
        watchdog.cancel()


TABLE_ROWS = 100
"""Rows ``query`` prints as a table unless --limit says otherwise (a person reads it);
--json and --csv are read by programs and get every row the memory limit allows."""


def sql_error(text: str) -> tuple[str, str | None, list[str]]:
    """DuckDB's error as logkb says one: ``(message, hint, place)``.  DuckDB writes
    several lines (the error; ``Did you mean "prose"?`` or ``Candidate bindings: …``;
    the query line with a caret under the place): the error and where, one line
    (``… (line 1, column 15)``), what it suggests as the hint, and the query line with
    its caret as DuckDB wrote them (for a terminal)."""
    lines = text.splitlines()
    if len(lines) < 2:
        return text, None, []
    message, hints, where, place = lines[0], [], "", []
    for i, ln in enumerate(lines[1:], 1):
        m = re.match(r"LINE (\d+): ", ln)
        if m and i + 1 < len(lines) and "^" in lines[i + 1]:
            col = lines[i + 1].index("^") - len(m.group(0)) + 1
            where = f" (line {m.group(1)}, column {col})" if col >= 1 else ""
            place = [ln, lines[i + 1]]
            break
        if ln.strip():
            hints.append(ln.strip())
    return message + where, " ".join(hints) or None, place


def _sql_fail(text: str) -> NoReturn:
    """A query's error (:func:`sql_error`), exit 2: on a terminal the query line and
    its caret follow, as DuckDB drew them; in a pipe the error stays one line."""
    said, hint, place = sql_error(text)
    labelled("logkb: error:", said, "bold red")
    if hint:
        labelled("hint:", hint, "bold")
    if place and err.is_terminal:
        for ln in place:
            err.print(ln, markup=False, highlight=False, no_wrap=True, crop=False,
                      soft_wrap=True)
    sys.exit(int(ExitCode.USAGE))


def _run_query(sql: str, as_csv: bool, limit: int | None, timeout: float, memory_limit: str,
               db: Path | None, as_json: bool) -> None:
    import duckdb
    from rich.table import Table

    from kb.store import QueryRefused, QueryTimeout

    if limit is None and not (as_json or as_csv):
        limit = TABLE_ROWS

    with open_store(db) as store:
        try:
            res = store.query(sql, limit=limit, timeout=timeout, memory_limit=memory_limit)
        except (QueryRefused, QueryTimeout) as e:
            _sql_fail(str(e))
        except duckdb.OutOfMemoryException as e:
            fail(f"query stopped: it needs more memory than --memory-limit {memory_limit} "
                 f"({str(e).splitlines()[0]})", ExitCode.USAGE)
        except duckdb.Error as e:
            _sql_fail(f"query failed: {e}")
    cols, rows = res.columns, res.rows
    if as_json:
        emit_lines(dict(zip(cols, r)) for r in rows)
    elif as_csv:
        w = csv.writer(sys.stdout, lineterminator="\n")  # a Unix tool: no \r for cut, awk
        if sys.stdout.isatty():  # a terminal reads it: shown, not obeyed; a file gets it exact
            from kb.safe_text import visible_value

            cols, rows = visible_value(cols), [visible_value(list(r)) for r in rows]
        w.writerow(cols)
        w.writerows(rows)
    else:
        from kb.safe_text import visible

        # made visible before rich measures the cells: escaped after, a cell was cut to
        # the width of its raw text and lost everything past a control character
        names = [visible(c) for c in cols]
        cells_ = [["" if v is None else visible(str(v)) for v in r] for r in rows]
        if _too_wide(names, cells_, out.width):
            _print_records(names, cells_)
        else:
            table = Table(box=None, header_style="bold")
            for c in names:
                table.add_column(c, overflow="fold")
            for r in cells_:
                table.add_row(*r)
            out.print(table)
    if res.left:
        note(f"{res.left} more row{'s' if res.left != 1 else ''} not shown "
             f"({res.total} in all; --limit N shows more)")


def _too_wide(names: list[str], rows: list[list[str]], width: int) -> bool:
    """Whether the columns cannot each show their name and a few characters of a value on
    one line: ``select * from sessions`` at 80 columns was 358 lines of two-letter shreds
    (each name folded down a column, ``se ss io n_``)."""
    from kb.width import cells

    need = sum(max(cells(n), min(12, max((cells(r[i]) for r in rows), default=0)))
               for i, n in enumerate(names))
    return need + 2 * len(names) > width


def _print_records(names: list[str], rows: list[list[str]]) -> None:
    """Each row as a record, one column a line (psql's expanded display): the name, then
    the value folded under itself."""
    from rich.table import Table

    for k, r in enumerate(rows, 1):
        say(f"-[ row {k} ]-", style="dim")
        table = Table(box=None, show_header=False, padding=(0, 1, 0, 0))
        table.add_column(style="bold", no_wrap=True)
        table.add_column(overflow="fold")
        for n, v in zip(names, r, strict=True):
            table.add_row(n, v)
        out.print(table)


def _out_of_time(timeout: float) -> None:
    """The query's result is still being fetched or printed at the deadline: stop."""
    try:
        sys.stdout.flush()
    except Exception:  # noqa: BLE001 - ending anyway
        pass
    os.write(2, f"\nlogkb: error: the query and its result took longer than {timeout:g}s "
                "and were stopped (--timeout; --limit or a narrower SELECT helps)\n".encode())
    os._exit(int(ExitCode.USAGE))


# ------------------------------------------------------------------------ path
@click.command()
@db_option
@json_option
def path(db: Path | None, as_json: bool) -> None:
    """Print the knowledge base file's path."""
    p = db if db is not None else default_db()
    if as_json:
        emit_json({"path": str(p), "exists": p.exists()})
    else:
        click.echo(str(p))


COMMANDS = (sessions, use, resume, events, show, search, query, path)
