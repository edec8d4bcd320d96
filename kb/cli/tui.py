"""The ``logkb tui`` command (registered on the group in :mod:`kb.cli`).

Textual is imported inside the command, so no other command ever loads it.
"""

from __future__ import annotations

from pathlib import Path

import click

from kb.cli.tools import (
    db_option,
    fail,
    handle_errors,
    note,
    plural,
    session_option,
    show_secrets_requested,
)
from kb.exitcodes import ExitCode
from kb.paths import default_db


@click.command()
@session_option
@click.option("--at", "at", type=int, metavar="ORDINAL",
              help="Open the session's timeline at this message.")
@click.option("--theme", default="textual-dark", show_default=True,
              help="A Textual theme (ctrl+p → theme lists them).")
@click.option("--team", "team", is_flag=False, flag_value="", default=None, metavar="[URL]",
              help="Browse the team server instead, read-only (URL, else env "
                   "LOGKB_TEAM_URL, else [team] url in the config file).")
@click.option("--team-url", metavar="URL", default=None,
              help="Team server to browse (implies --team).")
@click.option("--team-name", metavar="NAME", default=None,
              help="Only this team's sessions [default: all of your teams].")
@db_option
@handle_errors
def tui(session_id: str | None, at: int | None, theme: str, team: str | None,
        team_url: str | None, team_name: str | None, db: Path | None) -> None:
    """Browse sessions, timelines, the knowledge graph and replays in a terminal UI.

    With --team, what the members of your teams pushed is copied into a temporary
    local knowledge base (deleted on exit) and browsed read-only: no annotations, no
    replays; the pushed text is redacted already, so --show-secrets shows nothing more."""
    from tui.app import UnknownTheme, make_app

    if team is None and team_url is None:
        if team_name:
            raise click.UsageError("--team-name needs --team")
        try:
            app = make_app(db if db is not None else default_db(), session_id=session_id,
                           at=at, theme=theme)
        except UnknownTheme as e:
            raise click.BadParameter(str(e), param_hint="--theme") from None
        app.lease.reveal_secrets = show_secrets_requested()  # `--show-secrets`: asked already
        need_terminal()
        app.run()
        return
    _team_tui(team_url or team or None, team_name, session_id, at, theme)


def _team_tui(url: str | None, team_name: str | None, session_id: str | None,
              at: int | None, theme: str) -> None:
    from kb.team import mirror, read, server
    from tui.app import UnknownTheme, make_app

    if show_secrets_requested():
        note("--show-secrets: the team store holds redacted text only; there is nothing "
             "to reveal")
    try:
        conn, teams = read.open_read(url, team_name)
    except server.NotMember as e:
        fail(str(e), ExitCode.NOT_FOUND)
    try:
        m = mirror.build(conn, teams)
    finally:
        conn.close()
    try:
        where = f"team {', '.join(teams)}"
        note(f"{where}: {plural(m.sessions, 'session')} ({plural(m.events, 'event')}) "
             "copied into a temporary read-only mirror")
        try:
            app = make_app(m.path, session_id=session_id, at=at, theme=theme,
                           read_only=f"this is a read-only copy of {where} (the team "
                                     "server is changed only by `logkb push`)")
        except UnknownTheme as e:
            raise click.BadParameter(str(e), param_hint="--theme") from None
        need_terminal()
        app.run()
    finally:
        m.remove()


def on_terminal() -> bool:
    """Whether the TUI has a terminal: it reads keys on stdin and draws on stderr
    (Textual's driver), so those two must be one."""
    import sys

    return sys.stdin.isatty() and sys.stderr.isatty()


def need_terminal() -> None:
    """Refuse to start the TUI off a terminal: piped or redirected it drew escape
    sequences into the file and waited for keys that never came."""
    if not on_terminal():
        fail("the TUI needs a terminal (its keys on stdin, its screen on stderr)",
             ExitCode.USAGE,
             hint="`logkb sessions`, `logkb show N` and the other commands print to "
                  "pipes and files")
