"""What every ``logkb`` command shares: the consoles, the common options, error mapping.

Kept apart from :mod:`kb.cli` so that command modules (graph, replay, tui) can
import it without importing the group that imports them.
"""

from __future__ import annotations

import functools
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click
import orjson
from rich.console import Console

from kb.exitcodes import ExitCode
from kb.paths import default_db
from kb.store import KbError, KbLocked, KbMissing, KbNotFound, KbStore

F = TypeVar("F", bound=Callable[..., Any])

# piped output is not cut to 80 columns: data should survive `| grep`
_WIDTH = None if sys.stdout.isatty() else int(os.environ.get("COLUMNS") or 160)
out = Console(highlight=False, soft_wrap=True, width=_WIDTH)
err = Console(stderr=True, highlight=False, soft_wrap=True)


def fail(message: str, code: ExitCode) -> None:
    err.print(f"[bold red]logkb:[/] {message}", markup=True, highlight=False)
    sys.exit(int(code))


def handle_errors(fn: F) -> F:
    """Map store errors to exit codes with one clear line on stderr."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KbLocked as e:
            fail(str(e), ExitCode.LOCKED)
        except (KbMissing, KbNotFound) as e:
            fail(str(e), ExitCode.NOT_FOUND)
        except KbError as e:
            fail(str(e), ExitCode.FAILED)

    return wrapper  # type: ignore[return-value]


def db_option(fn: F) -> F:
    return click.option(
        "--db", "db", type=click.Path(dir_okay=False, path_type=Path), default=None,
        envvar="LOGKB_DB", show_envvar=True,
        help=f"Knowledge base file [default: {default_db()}].")(fn)


def json_option(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True,
                        help="Print JSON for scripts instead of a table.")(fn)


def session_option(fn: F) -> F:
    return click.option("--session", "-s", "session_id", metavar="ID", default=None,
                        help="Session id or unique prefix [default: the latest ingested "
                             "top-level session].")(fn)


SHOW_SECRETS = "logkb.show_secrets"
"""``ctx.meta`` key set by ``--show-secrets`` (global, or on any command)."""


def show_secrets_requested() -> bool:
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(SHOW_SECRETS))


def _set_show_secrets(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[SHOW_SECRETS] = True


def show_secrets_param() -> click.Option:
    """``--show-secrets``: reveal what is redacted (added to every command by
    :func:`kb.cli._register`, so no command has to take it as an argument)."""
    return click.Option(["--show-secrets"], is_flag=True, expose_value=False,
                        is_eager=True, callback=_set_show_secrets,
                        help="Show secrets (tokens, keys, passwords) instead of "
                             "[redacted:KIND] placeholders.")


def open_store(db: Path | None, read_only: bool = True) -> KbStore:
    return KbStore(db if db is not None else default_db(), read_only=read_only,
                   reveal_secrets=show_secrets_requested())


def emit_json(obj: Any) -> None:
    sys.stdout.write(orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode() + "\n")
