"""The read commands: ``sessions``, ``events``, ``show``, ``search``, ``query``, ``path``."""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

import click

from kb.cli.tools import (
    db_option,
    emit_json,
    err,
    fail,
    handle_errors,
    json_option,
    open_store,
    out,
    session_option,
)
from kb.exitcodes import ExitCode
from kb.paths import default_db


# -------------------------------------------------------------------- sessions
@click.command()
@db_option
@json_option
@handle_errors
def sessions(db: Path | None, as_json: bool) -> None:
    """List ingested sessions (subagent sessions under their parents)."""
    from kb.render import sessions_table

    with open_store(db) as store:
        rows = store.sessions()
    if as_json:
        emit_json([_session_json(r) for r in rows])
        return
    if not rows:
        err.print("no sessions yet (run `logkb ingest`)")
        return
    out.print(sessions_table(rows))


def _session_json(r: dict[str, Any]) -> dict[str, Any]:
    return {"id": r["session_id"], "parent_id": r["parent_id"], "title": r["title"],
            "messages": r["messages"], "events": r["events"], "commands": r["commands"],
            "time_created": r["time_created"], "time_updated": r["time_updated"],
            "last_activity": r["last_activity"], "source_form": r["source_form"],
            "source_path": r["source_path"], "complete": r["complete"],
            "spawned_at": r["spawned_at"]}


# ---------------------------------------------------------------------- events
@click.command()
@session_option
@click.option("--kind", "kinds", multiple=True, metavar="KIND",
              help="prompt, command, result, decision, todo, subagent, error, compaction, "
                   "attachment, raw (repeatable or comma-separated).")
@click.option("--category", "categories", multiple=True, metavar="CAT",
              help="search, import-check, package-query, install, launch, benchmark, build, "
                   "kill, file-edit, todo, subagent, research, other.")
@click.option("--host", "hosts", multiple=True, metavar="HOST", help="Only commands on HOST.")
@click.option("--from", "start", type=int, metavar="N", help="First ordinal.")
@click.option("--to", "end", type=int, metavar="M", help="Last ordinal.")
@click.option("--limit", type=int, default=None, help="At most this many events.")
@db_option
@json_option
@handle_errors
def events(session_id: str | None, kinds: tuple[str, ...], categories: tuple[str, ...],
           hosts: tuple[str, ...], start: int | None, end: int | None, limit: int | None,
           db: Path | None, as_json: bool) -> None:
    """List a session's typed events (JSON: one object per line)."""
    from kb.render import event_line

    with open_store(db) as store:
        sid = store.resolve_session(session_id)
        evs = store.events(sid, kinds=_split(kinds), categories=_split(categories),
                           hosts=_split(hosts), start=start, end=end, limit=limit)
    if as_json:
        for e in evs:
            sys.stdout.write(e.model_dump_json(exclude_none=False) + "\n")
        return
    width = max(60, (out.width or 120) - 30)
    for e in evs:
        out.print(event_line(e, width))


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


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

    from kb.render import event_block, when

    with open_store(db) as store:
        sid = store.resolve_session(session_id)
        msg = store.message(sid, ordinal)
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
    out.print(Rule(title, align="left"))
    if msg["inferred"]:
        out.print("(a user message whose place was inferred; the run stream does not "
                  "record prompts)", style="dim")
    for e in msg["events"]:
        out.print(event_block(e, full=full))
        out.print()


# ---------------------------------------------------------------------- search
@click.command()
@click.argument("text")
@click.option("--regex", is_flag=True, help="TEXT is a regular expression.")
@session_option
@click.option("--limit", type=int, default=50, show_default=True)
@db_option
@json_option
@handle_errors
def search(text: str, regex: bool, session_id: str | None, limit: int, db: Path | None,
           as_json: bool) -> None:
    """Search commands, outputs and prose across sessions, newest first."""
    from kb.render import first_line

    with open_store(db) as store:
        sid = store.resolve_session(session_id) if session_id else None
        hits = store.search(text, regex=regex, session_id=sid, limit=limit)
    if as_json:
        emit_json(hits)
        return
    if not hits:
        err.print("no matches")
        return
    for h in hits:
        snippet = _snippet(h["text"] or "", text, regex) or first_line(h["text"])
        out.print(f"{h['session_id']} {h['ordinal']:>6} {h['field']:<7} {snippet}",
                  markup=False)


def _snippet(text: str, needle: str, regex: bool, width: int = 100) -> str:
    import re

    m = (re.search(needle, text) if regex
         else re.search(re.escape(needle), text, re.IGNORECASE))
    if not m:
        return ""
    start = max(0, m.start() - 30)
    piece = text[start:start + width].replace("\n", " ⏎ ")
    return ("…" if start else "") + piece


# ----------------------------------------------------------------------- query
@click.command()
@click.argument("sql")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
@click.option("--limit", type=click.IntRange(min=1), default=100, show_default=True,
              help="Print at most this many rows (the rest are counted on stderr).")
@click.option("--timeout", type=click.FloatRange(min=0.1), default=30.0, show_default=True,
              help="Stop the query after this many seconds.")
@db_option
@json_option
@handle_errors
def query(sql: str, as_csv: bool, limit: int, timeout: float, db: Path | None,
          as_json: bool) -> None:
    """Run read-only SQL on the knowledge base (tables: docs/schema.md).

    A sandbox: only SELECT, WITH, EXPLAIN, DESCRIBE and SHOW; no file but the
    knowledge base, no network, no extensions, no settings.  Text is redacted
    unless --show-secrets."""
    import duckdb
    from rich.table import Table

    from kb.store import QueryRefused, QueryTimeout

    with open_store(db) as store:
        try:
            res = store.query(sql, limit=limit, timeout=timeout)
        except (QueryRefused, QueryTimeout) as e:
            fail(str(e), ExitCode.USAGE)
        except duckdb.Error as e:
            fail(f"query failed: {e}", ExitCode.USAGE)
    cols, rows = res.columns, res.rows
    if as_json:
        emit_json([dict(zip(cols, r)) for r in rows])
    elif as_csv:
        w = csv.writer(sys.stdout)
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
        err.print(f"{res.left} more row{'s' if res.left != 1 else ''} not shown "
                  f"({res.total} in all; --limit N shows more)")


# ------------------------------------------------------------------------ path
@click.command()
@db_option
def path(db: Path | None) -> None:
    """Print the knowledge base file's path."""
    click.echo(str(db if db is not None else default_db()))


COMMANDS = (sessions, events, show, search, query, path)
