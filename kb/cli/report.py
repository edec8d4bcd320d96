"""``logkb report``: the static HTML report of some sessions."""

from __future__ import annotations

from pathlib import Path

import click

from kb.cli.tools import (
    db_option,
    emit_json,
    err,
    fail,
    handle_errors,
    json_option,
    note,
    open_store,
    plural,
    real,
    say,
    show_secrets_requested,
)
from kb.exitcodes import ExitCode


@click.command()
@click.argument("sessions", nargs=-1, metavar="[SESSION]...")
@click.option("-o", "--output", "out_dir", required=True,
              type=click.Path(file_okay=False, path_type=Path),
              help="Directory to write the site into (created; pages in it are replaced).")
@click.option("--all", "all_scopes", is_flag=True,
              help="Every top-level session in the knowledge base.")
@click.option("--prices", "prices_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None, help="A JSON price table over the shipped one (as `logkb usage`).")
@db_option
@json_option
@handle_errors
def report(sessions: tuple[str, ...], out_dir: Path, all_scopes: bool,
           prices_file: Path | None, db: Path | None, as_json: bool) -> None:
    """Write a static HTML report: sessions, stories, dead-end graphs, timelines.

    SESSION is an id, a unique prefix or title words (a subagent brings its campaign);
    default: the current session, else the latest ingested.  The pages open from disk
    in any browser, offline: no server, no network; secrets are always redacted."""
    from kb.cli.graph import derive
    from kb.cli.usage import prices_or_fail
    from kb.graph import store as gs
    from kb.report_html import build_report

    if show_secrets_requested():
        fail("a report is for sharing and is always redacted: leave out --show-secrets",
             ExitCode.USAGE)
        return
    if all_scopes and sessions:
        raise click.UsageError("give SESSION ids or --all, not both")
    prices = prices_or_fail(prices_file)
    with open_store(db) as store:
        if all_scopes:
            scopes = gs.scopes(store)
        else:
            ids = [store.resolve_session(s) for s in sessions] or [store.resolve_session(None)]
            scopes = list(dict.fromkeys(gs.scope_of(store, s) for s in ids))
        missing = gs.unbuilt(store, scopes)
    if missing:  # graphs never built, or built by older rules: derive them first
        with open_store(db, read_only=False) as rw:
            derive(rw, missing, force=False)
    with open_store(db) as store:
        # a bar on a terminal (the pool's 20 sessions wrote for 10 s in silence)
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        with Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                      TextColumn("sessions"), console=real(err), transient=True,
                      disable=not err.is_terminal) as bar:
            task = bar.add_task("reading timelines", total=None)
            pages = build_report(store, scopes, out_dir, prices, progress=lambda what, n, of:
                                 bar.update(task, description=what, completed=n, total=of))
    if as_json:
        emit_json({"index": str(pages[0].path), "sessions": len(scopes),
                   "pages": [{"path": str(p.path), "bytes": p.bytes, "session_id": p.session_id}
                             for p in pages]})
        return
    size = sum(p.bytes for p in pages)
    say(str(pages[0].path))
    note(f"wrote {plural(len(pages), 'page')} ({size / 1e6:.1f} MB, largest "
         f"{max(p.bytes for p in pages) / 1e6:.2f} MB) for {len(scopes)} "
         f"session{'s' if len(scopes) != 1 else ''}: open {pages[0].path}", wrap=True)


COMMANDS = (report,)
