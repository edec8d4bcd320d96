"""The ``logkb`` command line: one click group, one function per command.

stdout carries data (tables, JSON, CSV); progress, warnings and errors go to
stderr.  Exit codes are :class:`kb.exitcodes.ExitCode`.  Commands that do not
show the TUI never import Textual.
"""

from __future__ import annotations

import csv
import sys
from pathlib import Path
from typing import Any

import click

from kb.clitools import (
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
from kb.graph_cli import COMMANDS as GRAPH_COMMANDS
from kb.paths import default_db
from kb.replay_cli import replay
from kb.tui_cli import tui

EPILOG = """\b
Exit codes: 0 ok · 1 failed · 2 usage · 3 not a transcript · 4 ingested with
problems · 5 knowledge base busy · 6 not found · 7 replay saw changes."""


@click.group(epilog=EPILOG, invoke_without_command=True)
@click.version_option(package_name="logkb")
@click.pass_context
def cli(ctx: click.Context) -> None:
    """logkb: turn long opencode sessions into a knowledge base you can query.

    Ingest transcripts (every opencode form: export, JSONL, opencode.db, the
    storage/ tree, the run --format json stream) into DuckDB, then ask what was
    tried, what failed and why.  On a terminal, `logkb` alone opens the TUI.
    """
    if ctx.invoked_subcommand is None:
        if sys.stdin.isatty() and sys.stdout.isatty():
            ctx.invoke(cli.commands["tui"])
        else:
            click.echo(ctx.get_help())


# ---------------------------------------------------------------------- ingest
@cli.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--session", "session_ids", multiple=True, metavar="ID",
              help="Only these sessions (repeatable).")
@click.option("--force", is_flag=True, help="Re-read inputs even if they did not change.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr [default: on a terminal, for large inputs].")
@db_option
@json_option
@handle_errors
def ingest(paths: tuple[Path, ...], session_ids: tuple[str, ...], force: bool,
           progress: bool | None, db: Path | None, as_json: bool) -> None:
    """Read opencode transcripts into the knowledge base.

    PATHS may be files (any opencode form, detected from content) or
    directories (searched).  Without PATHS, opencode's data directory
    ($XDG_DATA_HOME/opencode) is ingested.  Ingesting again adds only what is
    new.
    """
    from kb.ingest import ingest as run_ingest
    from kb.ingest import input_size, plan
    from logparse.registry import default_data_dir

    if not paths:
        data = default_data_dir()
        if not data.exists():
            fail(f"no PATH given and no opencode data directory at {data}", ExitCode.USAGE)
        paths = (data,)
    found = plan(list(paths))
    total = sum(input_size(i) for i in found[0])
    show = progress if progress is not None else (err.is_terminal and total > 4 << 20)
    with open_store(db, read_only=False) as store:
        if show:
            from rich.progress import (
                BarColumn,
                DownloadColumn,
                Progress,
                TextColumn,
                TimeRemainingColumn,
                TransferSpeedColumn,
            )
            with Progress(TextColumn("ingesting"), BarColumn(), DownloadColumn(),
                          TransferSpeedColumn(), TimeRemainingColumn(), console=err,
                          transient=True) as bar:
                task = bar.add_task("ingest", total=total or None)
                report = run_ingest(store, list(paths), session_ids=session_ids or None,
                                    progress=lambda n: bar.advance(task, n), force=force,
                                    inputs=found)
        else:
            report = run_ingest(store, list(paths), session_ids=session_ids or None,
                                force=force, inputs=found)
    for e in report.errors:
        err.print(f"[bold red]error:[/] {e}", markup=True, highlight=False)
    for p in report.problems:
        err.print(f"[yellow]problem:[/] {p}", markup=True, highlight=False)
    if as_json:
        emit_json(report.as_json())
    else:
        for s in report.sessions:
            kid = f" (subagent of {s.parent_id})" if s.parent_id else ""
            out.print(f"{s.session_id}  {s.messages} messages, {s.events} events, "
                      f"{s.new_messages} new  [{s.form}] {s.title or ''}{kid}", markup=False)
        for u in report.unchanged:
            out.print(f"unchanged: {u}", markup=False)
        err.print(f"{len(report.sessions)} sessions, "
                  f"{sum(s.messages for s in report.sessions)} messages, "
                  f"{sum(s.events for s in report.sessions)} events, "
                  f"{report.new_messages} new; {len(report.problems)} problems",
                  highlight=False)
    if report.errors:
        sys.exit(int(ExitCode.NOT_TRANSCRIPT))
    if report.problems:
        sys.exit(int(ExitCode.PROBLEMS))


# -------------------------------------------------------------------- sessions
@cli.command()
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
@cli.command()
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
@cli.command()
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
@cli.command()
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
@cli.command()
@click.argument("sql")
@click.option("--csv", "as_csv", is_flag=True, help="Print CSV.")
@db_option
@json_option
@handle_errors
def query(sql: str, as_csv: bool, db: Path | None, as_json: bool) -> None:
    """Run read-only SQL on the knowledge base (tables: docs/schema.md)."""
    import duckdb
    from rich.table import Table

    with open_store(db) as store:
        try:
            cols, rows = store.query(sql)
        except duckdb.Error as e:
            fail(f"query failed: {e}", ExitCode.USAGE)
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


# ------------------------------------------------------------------------ path
@cli.command()
@db_option
def path(db: Path | None) -> None:
    """Print the knowledge base file's path."""
    click.echo(str(db if db is not None else default_db()))


for _cmd in (*GRAPH_COMMANDS, replay, tui):
    cli.add_command(_cmd)
