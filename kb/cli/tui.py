"""The ``logkb tui`` command (registered on the group in :mod:`kb.cli`).

Textual is imported inside the command, so no other command ever loads it.
"""

from __future__ import annotations

from pathlib import Path

import click

from kb.cli.tools import db_option, handle_errors, session_option, show_secrets_requested
from kb.paths import default_db


@click.command()
@session_option
@click.option("--at", "at", type=int, metavar="ORDINAL",
              help="Open the session's timeline at this message.")
@click.option("--theme", default="textual-dark", show_default=True,
              help="A Textual theme (ctrl+p → theme lists them).")
@db_option
@handle_errors
def tui(session_id: str | None, at: int | None, theme: str, db: Path | None) -> None:
    """Browse sessions, timelines, the knowledge graph and replays in a terminal UI."""
    from tui.app import UnknownTheme, make_app

    try:
        app = make_app(db if db is not None else default_db(), session_id=session_id, at=at,
                       theme=theme)
    except UnknownTheme as e:
        raise click.BadParameter(str(e), param_hint="--theme") from None
    app.lease.reveal_secrets = show_secrets_requested()  # `--show-secrets`: asked already
    app.run()
