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
from typing import TYPE_CHECKING, Any, TypeVar

import click
import orjson

from kb.errors import KbError, KbLocked, KbMissing, KbNotFound
from kb.exitcodes import ExitCode
from kb.paths import default_db

if TYPE_CHECKING:
    from rich.console import Console

    from kb.store import KbStore

F = TypeVar("F", bound=Callable[..., Any])


class _LazyConsole:
    """A :class:`rich.console.Console` made on first use: importing rich costs more than
    ``logkb --help`` may take."""

    def __init__(self, **kwargs: Any) -> None:
        self._kwargs = kwargs
        self._console: Console | None = None

    def __getattr__(self, name: str) -> Any:
        if self._console is None:
            from rich.console import Console

            kwargs = dict(self._kwargs)
            if kwargs.pop("stdout_width", False):
                # piped output is not cut to 80 columns: data should survive `| grep`
                kwargs["width"] = (None if sys.stdout.isatty()
                                   else int(os.environ.get("COLUMNS") or 160))
            self._console = Console(**kwargs)
        return getattr(self._console, name)


out: Console = _LazyConsole(highlight=False, soft_wrap=True,  # type: ignore[assignment]
                            stdout_width=True)
err: Console = _LazyConsole(stderr=True, highlight=False,  # type: ignore[assignment]
                            soft_wrap=True)


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


def open_store(db: Path | None, read_only: bool = True) -> KbStore:
    from kb.store import KbStore

    return KbStore(db if db is not None else default_db(), read_only=read_only)


def emit_json(obj: Any) -> None:
    sys.stdout.write(orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS).decode() + "\n")
