"""The read commands: ``sessions``, ``events``, ``show``, ``search``, ``query``, ``path``."""

from __future__ import annotations

import csv
import os
import sys
from pathlib import Path
from typing import Any

import click

from kb.cli.tools import (
    choices,
    db_option,
    elsewhere_hint,
    emit_json,
    emit_lines,
    fail,
    handle_errors,
    json_option,
    limit_option,
    note,
    open_store,
    out,
    paged,
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
@limit_option()
@db_option
@json_option
@handle_errors
def sessions(limit: int | None, db: Path | None, as_json: bool) -> None:
    """List ingested sessions (subagent sessions under their parents; ▶ the current one)."""
    from kb import views
    from kb.render import sessions_lines

    with open_store(db) as store:
        rows = store.sessions()
        current = store.current_session()
        usage = views.session_usage(store)
    if limit is not None:
        tops = [r for r in rows if r["parent_id"] is None][:limit]
        keep = {r["session_id"] for r in tops}
        by_id = {r["session_id"]: r for r in rows}

        def top_of(r: dict[str, Any]) -> str:
            seen = 0
            while r["parent_id"] in by_id and seen < 64:
                r, seen = by_id[r["parent_id"]], seen + 1
            return str(r["session_id"])

        rows = [r for r in rows if top_of(r) in keep]
    if as_json:
        emit_lines(_session_json(r, current, usage.get(r["session_id"], {})) for r in rows)
        return
    if not rows:
        note("no sessions yet (run `logkb ingest`)")
        return
    with paged():
        for line in sessions_lines(rows, out.width, current=current, usage=usage):
            out.print(line, no_wrap=True, crop=True)


def _session_json(r: dict[str, Any], current: str | None = None,
                  usage: dict[str, Any] | None = None) -> dict[str, Any]:
    u = usage or {}
    return {"id": r["session_id"], "parent_id": r["parent_id"], "agent": r.get("agent"),
            "title": r["title"], "current": r["session_id"] == current,
            "messages": r["messages"], "events": r["events"], "commands": r["commands"],
            "time_created": r["time_created"], "time_updated": r["time_updated"],
            "last_activity": r["last_activity"], "source_form": r["source_form"],
            "source_path": r["source_path"], "complete": r["complete"],
            "spawned_at": r["spawned_at"],
            "tokens": {k.removeprefix("tokens_"): u.get(k) for k in (
                "tokens_input", "tokens_output", "tokens_reasoning", "tokens_cache_read",
                "tokens_cache_write")},
            "cost": u.get("cost")}


# ------------------------------------------------------------------------- use
@click.command()
@click.argument("ref", metavar="ID|PREFIX|TITLE-WORDS", required=False)
@click.option("--clear", is_flag=True, help="Forget the current session (back to the latest).")
@db_option
@json_option
@handle_errors
def use(ref: str | None, clear: bool, db: Path | None, as_json: bool) -> None:
    """Choose the current session: every command without --session is about it.

    Without an argument, print the current session.  The choice is stored in the
    knowledge base, so it holds for every later command (and the TUI) until the next
    `logkb use`.
    """
    if ref is None and not clear:
        with open_store(db) as store:
            sid = store.current_session()
            title = store.session_title(sid) if sid else None
        if as_json:
            emit_json({"current": sid, "title": title})
        elif sid is None:
            note("no current session (commands use the latest ingested; set one with "
                 "`logkb use ID`)")
        else:
            say(f"{sid}  {title or ''}".rstrip())
        return
    with open_store(db, read_only=False) as store:
        sid = None if clear else store.resolve_session(ref)
        store.set_current_session(sid)
        title = store.session_title(sid) if sid else None
    if as_json:
        emit_json({"current": sid, "title": title})
    elif sid is None:
        note("no current session: commands use the latest ingested top-level session")
    else:
        from rich.text import Text

        say(Text.assemble("now using ", (sid, "bold"), f"  {title or ''}".rstrip()))


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
@click.option("--host", "hosts", multiple=True, metavar="HOST", help="Only commands on HOST.")
@click.option("--from", "start", type=int, metavar="N", help="First ordinal.")
@click.option("--to", "end", type=int, metavar="M", help="Last ordinal.")
@limit_option()
@db_option
@json_option
@handle_errors
def events(session_id: str | None, kinds: list[str], categories: list[str],
           hosts: tuple[str, ...], start: int | None, end: int | None, limit: int | None,
           db: Path | None, as_json: bool) -> None:
    """List a session's typed events (JSON: one object per line)."""
    from kb.render import clip, event_line

    with open_store(db) as store:
        sid = resolve(store, session_id)
        evs = store.events(sid, kinds=kinds, categories=categories, hosts=split(hosts),
                           start=start, end=end, limit=limit)
        hint = None
        if not evs and (kinds or categories or hosts):
            hint = elsewhere_hint(store, sid, lambda other: bool(store.events(
                other, kinds=kinds, categories=categories, hosts=split(hosts), start=start,
                end=end, limit=1)))
    if as_json:
        for e in evs:
            sys.stdout.write(e.model_dump_json(exclude_none=False) + "\n")
    else:
        w = out.width
        with paged():
            for e in evs:
                out.print(clip(event_line(e, w), w), no_wrap=True, crop=True)
    if not evs:
        note(f"no events in {sid} match" + (f" ({hint})" if hint else ""))


# ------------------------------------------------------------------------ show
@click.command()
@click.argument("ordinal", type=int)
@session_option
@click.option("--full", is_flag=True, help="Show whole outputs, not their head and tail.")
@db_option
@json_option
@handle_errors
def show(ordinal: int, session_id: str | None, full: bool, db: Path | None,
         as_json: bool) -> None:
    """Show one message (by ordinal) with its events."""
    from rich.rule import Rule
    from rich.text import Text

    from kb.render import event_block, when

    with open_store(db) as store:
        sid = resolve(store, session_id)
        try:
            msg = store.message(sid, ordinal)
        except KbNotFound as e:
            hint = elsewhere_hint(store, sid, lambda other: store.max_ordinal(other) >= ordinal)
            raise KbNotFound(f"{e}" + (f" ({hint})" if hint else "")) from None
    if as_json:
        evs = msg.pop("events")
        emit_json({"session_id": sid, **msg,
                   "events": [e.model_dump(mode="json") for e in evs]})
        return
    title = (f"message {msg['ordinal']} · {msg['role']} · {when(msg['time_created'])}"
             f"{' · ' + msg['agent'] if msg['agent'] else ''}"
             f"{' · ' + msg['model'] if msg['model'] else ''}"
             f"{' · finish ' + msg['finish'] if msg['finish'] else ''}"
             f"{' · ERROR ' + msg['error'] if msg['error'] else ''}")
    with paged():
        out.print(Rule(Text(title), align="left"))
        if msg["inferred"]:
            say("(a user message whose place was inferred; the run stream does not "
                "record prompts)", style="dim")
        for ev in msg["events"]:
            out.print(event_block(ev, full=full), soft_wrap=False)
            out.print()


# ---------------------------------------------------------------------- search
@click.command()
@click.argument("text")
@click.option("--regex", is_flag=True,
              help="TEXT is a regular expression (RE2): scans DuckDB instead of the index.")
@click.option("--newest", is_flag=True, help="Newest first instead of best match first.")
@session_option
@click.option("-n", "--limit", type=int, default=50, show_default=True)
@db_option
@json_option
@handle_errors
def search(text: str, regex: bool, newest: bool, session_id: str | None, limit: int,
           db: Path | None, as_json: bool) -> None:
    """Search commands, outputs, prose and todos across sessions (full-text index).

    \b
    Words written together are a phrase:  logkb search 'KeyError: 12'
    Prefix, boolean, filters:  flashinf*   deep_ep OR deepep   NOT kind:prompt
      host:10.1.230.174 kind:result   tool:bash   session:ses_ab   field:output
      ordinal:5200..5300   time:2026-01-05
    Best match (BM25) first; --newest for newest first; --regex scans instead."""
    from kb.search import search as run_search
    from kb.search.query import QueryError

    try:
        found = run_search(db if db is not None else default_db(), text, regex=regex,
                           session_id=session_id, limit=limit, newest=newest,
                           reveal=show_secrets_requested())
    except QueryError as e:
        fail(f"bad query: {e}", ExitCode.USAGE)
    for line in found.notes:
        from kb.safe_text import visible

        sys.stderr.write(visible(line) + "\n")
    if as_json:
        emit_lines(found.hits)
        return
    if not found.hits:
        sys.stderr.write("no matches\n")  # not note(): rich would double this command's start-up
        return
    # plain writes, no rich: a search answers in a fraction of rich's import time
    from kb.safe_text import visible

    cols = width()
    bold = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    lines = []
    for h in found.hits:
        head = visible(f"{h['session_id']} {h['ordinal']:>6} {h['field']:<7} ")
        room = max(20, cols - len(head))
        snippet = " ".join(h["snippet"].split("\n"))  # same length: highlights stay put
        snippet, marks = _visible_marked(snippet, h["highlights"])
        marks = [(a, b) for a, b in marks if b <= room - 1]
        if len(snippet) > room:
            snippet = snippet[:room - 1] + "…"
        if bold:
            for a, b in reversed(marks):
                snippet = f"{snippet[:a]}\x1b[1;31m{snippet[a:b]}\x1b[0m{snippet[b:]}"
        lines.append(head + snippet + "\n")
    sys.stdout.write("".join(lines))


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


# ----------------------------------------------------------------------- query
@click.command()
@click.argument("sql")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
@click.option("-n", "--limit", type=click.IntRange(min=1), default=100, show_default=True,
              help="Print at most this many rows (the rest are counted on stderr).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="Stop after this many seconds (the query, and printing its result).")
@click.option("--memory-limit", default="2GB", show_default=True, metavar="SIZE",
              help="DuckDB's memory for the query (e.g. 512MB, 8GB).")
@db_option
@json_option
@handle_errors
def query(sql: str, as_csv: bool, limit: int, timeout: float, memory_limit: str,
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


def _run_query(sql: str, as_csv: bool, limit: int, timeout: float, memory_limit: str,
               db: Path | None, as_json: bool) -> None:
    import duckdb
    from rich.table import Table

    from kb.store import QueryRefused, QueryTimeout

    with open_store(db) as store:
        try:
            res = store.query(sql, limit=limit, timeout=timeout, memory_limit=memory_limit)
        except (QueryRefused, QueryTimeout) as e:
            fail(str(e), ExitCode.USAGE)
        except duckdb.OutOfMemoryException as e:
            fail(f"query stopped: it needs more memory than --memory-limit {memory_limit} "
                 f"({str(e).splitlines()[0]})", ExitCode.USAGE)
        except duckdb.Error as e:
            fail(f"query failed: {e}", ExitCode.USAGE)
    cols, rows = res.columns, res.rows
    if as_json:
        emit_lines(dict(zip(cols, r)) for r in rows)
    elif as_csv:
        w = csv.writer(sys.stdout)
        if sys.stdout.isatty():  # a terminal reads it: shown, not obeyed; a file gets it exact
            from kb.safe_text import visible_value

            cols, rows = visible_value(cols), [visible_value(list(r)) for r in rows]
        w.writerow(cols)
        w.writerows(rows)
    else:
        table = Table(box=None, header_style="bold")
        for c in cols:
            table.add_column(c, overflow="fold")
        for r in rows:
            table.add_row(*("" if v is None else str(v) for v in r))
        out.print(table)
    if res.left:
        note(f"{res.left} more row{'s' if res.left != 1 else ''} not shown "
             f"({res.total} in all; --limit N shows more)")


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


COMMANDS = (sessions, use, events, show, search, query, path)
