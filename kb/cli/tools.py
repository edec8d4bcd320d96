"""What every ``logkb`` command shares: the consoles, the common options, error mapping.

Kept apart from :mod:`kb.cli` so that command modules (graph, replay, tui) can
import it without importing the group that imports them.

Three promises every command keeps through these helpers:

* **Transcript text is literal.**  The consoles interpret neither rich markup
  (``[bold]hi[/bold]``) nor emoji codes (``:x:``) nor highlight anything; styling
  is done with :class:`rich.text.Text` only.
* **Tables fit the width**: the terminal's, else ``$COLUMNS``, else 160 when
  piped (:func:`width`); columns truncate with an ellipsis, only prose wraps.
* **One JSON contract** (docs/json.md): a list is JSON lines (:func:`emit_lines`),
  a single answer is one object (:func:`emit_json`).
"""

from __future__ import annotations

import functools
import io
import os
import shlex
import subprocess
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click
import orjson

from kb.errors import KbAmbiguous, KbError, KbLocked, KbMissing, KbNotFound
from kb.exitcodes import ExitCode
from kb.paths import default_db

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from kb.store import KbStore

F = TypeVar("F", bound=Callable[..., Any])

PIPED_WIDTH = 160
"""Columns of piped output when ``$COLUMNS`` does not say (data should survive ``| grep``)."""


def quiet_stdout() -> None:
    """Point stdout at /dev/null after the reader went away (``| head``), so the final
    flush at exit does not raise again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


def _columns() -> int | None:
    value = os.environ.get("COLUMNS", "")
    return int(value) if value.isdigit() and int(value) > 0 else None


def width() -> int:
    """The columns stdout has: the terminal's, else ``$COLUMNS``, else 160 when piped."""
    if sys.stdout.isatty():
        try:
            return _columns() or os.get_terminal_size(sys.stdout.fileno()).columns
        except OSError:
            return 80
    return _columns() or PIPED_WIDTH


def no_color() -> bool:
    """``NO_COLOR`` is set and not empty (no-color.org): print no styling at all, neither
    colour nor bold, dim, italic or underline (rich alone drops only the colours)."""
    return os.environ.get("NO_COLOR", "") != ""


def _make_console(stderr: bool) -> Console:
    """A console that never interprets text, never emits a control character of the text it
    prints (:mod:`kb.safe_text`: the last guard, after the renderers made their text
    visible), styles nothing under ``NO_COLOR`` and ends quietly on a closed pipe."""
    from rich.console import Console
    from rich.segment import Segment

    from kb.safe_text import visible_segments

    class _Console(Console):
        def render(self, renderable: Any, options: Any = None) -> Any:
            """Every segment of text printed, made visible (``\\x1b]52;…``); unstyled
            under ``NO_COLOR`` (control segments, a progress bar's cursor moves, stay)."""
            segments = visible_segments(super().render(renderable, options))
            return Segment.strip_styles(segments) if no_color() else segments

        def on_broken_pipe(self) -> None:
            """Called when the reader of stdout went away: stop quietly with exit 0."""
            self.quiet = True
            quiet_stdout()
            raise SystemExit(0)

    return _Console(stderr=stderr, markup=False, emoji=False, highlight=False,
                    soft_wrap=False)


class _LazyConsole:
    """The console, made on first use: importing rich costs more than some commands
    (``search``, ``--help``) take in all.  Settings made before it exists wait for it."""

    def __init__(self, stderr: bool) -> None:
        self._stderr = stderr
        self._console: Console | None = None
        self._pending: dict[str, Any] = {}

    def _get(self) -> Console:
        if self._console is None:
            self._console = _make_console(self._stderr)
            for k, v in self._pending.items():
                setattr(self._console, k, v)
        return self._console

    def configure(self, **settings: Any) -> None:
        if self._console is None:
            self._pending.update(settings)
        else:
            for k, v in settings.items():
                setattr(self._console, k, v)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._get(), name)


def real(console: Console) -> Console:
    """The console itself, for rich APIs that take one (``Progress(console=…)``)."""
    return console._get() if isinstance(console, _LazyConsole) else console


out: Console = _LazyConsole(stderr=False)  # type: ignore[assignment]
err: Console = _LazyConsole(stderr=True)  # type: ignore[assignment]


def setup_consoles() -> None:
    """Size the consoles for this invocation (``$COLUMNS`` may differ between runs in one
    process, as in tests).  Called by the group before every command."""
    out.configure(width=width(), soft_wrap=False)  # type: ignore[attr-defined]
    if not sys.stderr.isatty():
        err.configure(width=_columns() or PIPED_WIDTH)  # type: ignore[attr-defined]


def say(text: str | Text, *, style: str | None = None) -> None:
    """One line (or paragraph) of data on stdout, printed literally."""
    from rich.text import Text

    out.print(text if isinstance(text, Text) else Text(text, style=style or ""),
              soft_wrap=True)


NBSP = "\u00a0"
"""In a :func:`note` that wraps: keeps the words on either side on one line."""


def note(text: str | Text, *, style: str | None = None, wrap: bool = False) -> None:
    """A diagnostic on stderr, printed literally; ``wrap``: prose that wraps at the
    width (``$COLUMNS`` in a pipe) at word ends, continuation lines indented under the
    first so that it reads as one message (the console's own wrap broke mid-sentence
    and left a blank at the line's end); else one line, for ``grep``."""
    from rich.text import Text

    if wrap and not isinstance(text, Text):
        from kb.width import wrap as wrap_at

        # a no-break space keeps words together ("1 dead end", "--max-tokens 5"), and
        # is printed as a space (held as a private-use character: wrap breaks at any space)
        text = "\n".join(wrap_at(text.replace(NBSP, "\ue000"), max(20, err.width), "",
                                  "  ")).replace("\ue000", " ")
        wrap = False
    err.print(text if isinstance(text, Text) else Text(text, style=style or ""),
              soft_wrap=not wrap)


def miss(line: str, hint: str | None) -> None:
    """That a list is empty, on stderr, and where it would not be: ``LINE (HINT)``, or
    ``HINT`` on a ``hint:`` line of its own when the two would not fit 80 columns (as
    shown: a wide character takes two, an escaped control character its escape)."""
    from kb.width import cells

    if hint and cells(line) + cells(hint) + 3 > 80:
        note(line)
        note(f"hint: {hint}")
    else:
        note(line + (f" ({hint})" if hint else ""))


def fail(message: str, code: ExitCode, hint: str | None = None) -> NoReturn:
    """``logkb: error: MESSAGE`` (and ``hint: HINT``) on stderr, then exit ``code``
    (each as :func:`labelled` prints it)."""
    labelled("logkb: error:", message, "bold red")
    if hint:
        labelled("hint:", hint, "bold")
    sys.exit(int(code))


def check_range(start: int | None, end: int | None) -> None:
    """``--from N --to M`` with N after M names no message at all: a usage error (exit 2)
    naming both, never a quiet "nothing matched"."""
    if start is not None and end is not None and start > end:
        fail(f"--from {start} is after --to {end}: the range holds no message",
             ExitCode.USAGE, hint=f"--from {end} --to {start}?")


RECORD_LABELS = frozenset({"logkb: error:", "problem:"})
"""Labels of the lines a program reads: an error a script keeps, ``problem: FILE:LINE:
reason`` as a compiler's diagnostic (``grep``, an editor's ``FILE:LINE:`` parser)."""


def width_said() -> bool:
    """Whether stderr has a width to wrap prose at: a terminal's, or ``$COLUMNS`` in a
    pipe or a file (``COLUMNS=80 logkb ingest DIR 2>&1 | less``).  A pipe without it is
    read by a program (``grep``, a script): each message stays one line there."""
    return err.is_terminal or _columns() is not None


def labelled(label: str, text: str, style: str) -> None:
    """``LABEL TEXT`` on stderr (``logkb: error:``, ``problem:``, ``note:``, ``hint:``),
    wrapped at the width at word ends, continuation lines indented under the label (a
    terminal's own wrap cuts words and paths anywhere).  On a terminal always; in a pipe
    or a file where ``$COLUMNS`` says its width (:func:`width_said`) a note or a hint,
    prose for a person, wraps too (a rewrite's note ran to 185 columns at
    ``COLUMNS=80``), while a line of :data:`RECORD_LABELS` stays one line there: what
    reads it there is a program, and a wrapped message would reach it in pieces."""
    from rich.text import Text

    rest = f" {text}"
    if err.is_terminal or (label not in RECORD_LABELS and width_said()):
        from kb.width import cells, wrap

        w = max(20, err.width)  # a word longer than a line (a path) is cut at the width
        first, *more = rest.split("\n")  # a message's own lines (a query's caret) stay
        rest = "\n".join(wrap(f"{label}{first}", w, "", "  "))[len(label):]
        for line in more:
            rest += "\n" + (line if cells(line) <= w else "\n".join(wrap(line, w, "", "  ")))
    err.print(Text.assemble((label, style), rest), soft_wrap=True)


def plural(n: int, word: str, many: str | None = None) -> str:
    """``1 session``, ``2 sessions`` (``many``: the plural when it is not ``word + s``)."""
    return f"{n} {word if n == 1 else (many or word + 's')}"


def handle_errors(fn: F) -> F:
    """Map store errors to exit codes with one clear line on stderr."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except KbLocked as e:
            fail(str(e), ExitCode.LOCKED)
        except KbMissing as e:
            fail(str(e), ExitCode.NOT_FOUND, hint=e.hint)
        except KbAmbiguous as e:  # a name several sessions share: say more (usage)
            fail(str(e), ExitCode.USAGE, hint=e.hint)
        except KbNotFound as e:
            fail(str(e), ExitCode.NOT_FOUND)
        except KbError as e:
            fail(str(e), ExitCode.FAILED)
        except OSError as e:
            if e.filename is None:  # a closed pipe, a full disk: said where they happen
                raise
            # a file or folder named on the command line that cannot be written or read
            # (`-o` into a folder that does not exist): its path and why, not a traceback
            fail(f"{e.filename}: {e.strerror or e}", ExitCode.FAILED)

    return wrapper  # type: ignore[return-value]


# ------------------------------------------------------------------ options
def _db_value(ctx: click.Context, param: click.Parameter, value: Path | None) -> Path | None:
    """``--db`` after the subcommand, else before it (the group's), else ``$LOGKB_DB``."""
    if value is not None:
        return value
    root = ctx.find_root()
    if isinstance(root.obj, dict) and root.obj.get("db") is not None:
        return Path(root.obj["db"])
    env = os.environ.get("LOGKB_DB")
    return Path(env) if env else None


def db_option(fn: F) -> F:
    return click.option(
        "--db", "db", type=click.Path(dir_okay=False, path_type=Path), default=None,
        callback=_db_value, expose_value=True,
        help=f"Knowledge base file (also before the command; env LOGKB_DB) "
             f"[default: {default_db()}].")(fn)


def json_option(fn: F) -> F:
    return click.option("--json", "as_json", is_flag=True,
                        help="Print JSON for scripts (docs/json.md): a list is one object "
                             "per line, a single answer one object.")(fn)


class AtLeast(click.IntRange):
    """A whole number of ``min`` or more (an ordinal, ``-n``): click's own words for a
    miss were "'abc' is not a valid integer range" and "0 is not in the range x>=1"; one
    sentence says both now."""

    name = "whole number"

    def __init__(self, min: int) -> None:  # noqa: A002 (click's own name)
        super().__init__(min=min)

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        try:
            return super().convert(value, param, ctx)
        except click.BadParameter:
            self.fail(f"{value!r} is not a whole number of {self.min} or more", param, ctx)


ORDINAL = AtLeast(1)
"""An ordinal (messages are numbered from 1) or a count of rows."""


def limit_option(default: int | None = None) -> Callable[[F], F]:
    def deco(fn: F) -> F:
        return click.option("-n", "--limit", "limit", type=ORDINAL,
                            default=default, show_default=default is not None,
                            metavar="N", help="At most N rows.")(fn)
    return deco


def output_option(fn: F) -> F:
    return click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
                        help="Write to FILE instead of stdout.")(fn)


def session_option(fn: F) -> F:
    return click.option("--session", "-s", "session_id", metavar="ID", default=None,
                        help="Session id, unique prefix or title words [default: the "
                             "current session (`logkb use`), else the latest ingested "
                             "top-level session].")(fn)


def choices(valid: Sequence[str], name: str) -> Callable[[click.Context, click.Parameter,
                                                          tuple[str, ...]], list[str]]:
    """A callback for a repeatable, comma-separated option whose values must be in
    ``valid``; anything else is a usage error that lists the valid values."""

    def check(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]
              ) -> list[str]:
        got = split(values)
        bad = [v for v in got if v not in valid]
        if bad:
            raise click.BadParameter(
                f"{', '.join(repr(b) for b in bad)} {'is' if len(bad) == 1 else 'are'} not "
                f"a valid {name}; valid: {', '.join(valid)}", ctx=ctx, param=param)
        return got

    return check


def split(values: Iterable[str]) -> list[str]:
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


# ------------------------------------------------------------------ stores
SHOW_SECRETS = "logkb.show_secrets"
"""``ctx.meta`` key set by ``--show-secrets`` (global, or on any command)."""


def show_secrets_requested() -> bool:
    ctx = click.get_current_context(silent=True)
    return bool(ctx is not None and ctx.meta.get(SHOW_SECRETS))


def _set_show_secrets(ctx: click.Context, _param: click.Parameter, value: bool) -> None:
    if value:
        ctx.meta[SHOW_SECRETS] = True


def show_secrets_param(hidden: bool = False) -> click.Option:
    """``--show-secrets``: reveal what is redacted.  Global (on the group); added hidden
    to every command by :func:`kb.cli._register`, so no command takes it as an argument
    and :func:`open_store` is the one place that reads it."""
    return click.Option(["--show-secrets"], is_flag=True, expose_value=False,
                        is_eager=True, callback=_set_show_secrets, hidden=hidden,
                        help="Show secrets (tokens, keys, passwords) instead of "
                             "[redacted:KIND] placeholders.")


def open_store(db: Path | None, read_only: bool = True) -> KbStore:
    from kb.store import KbStore

    return KbStore(db if db is not None else default_db(), read_only=read_only,
                   reveal_secrets=show_secrets_requested())


def resolve(store: KbStore, session_id: str | None, choose: str = "--session") -> str:
    """The session a command is about; on stderr, which one when it was not asked for
    and several top-level sessions exist (the current one, or the latest ingested), and
    how to ``choose`` another (the option, or the argument of a command taking one)."""
    sid, how = store.resolve_session_verbose(session_id)
    if how != "explicit":
        others = store.top_level_count()
        if others > 1:
            from rich.text import Text

            title = store.session_title(sid) or ""
            name = store.short_ids().get(sid, sid)
            why = ("the current session (`logkb use`)" if how == "current"
                   else "the latest ingested")
            tail = f" — {why}, of {others} sessions"
            # one line of the terminal's width: the title gets what the rest leaves
            room = err.width - len("session ") - len(name) - 1 - len(tail)
            if room >= 12 or not title:
                note(Text.assemble(("session ", "dim"), name,
                                   (f" {_short(title, max(12, room))}" if title else ""),
                                   (tail, "dim")))
            else:  # too narrow for both (an 11-column opencode id, `logkb use`): two lines
                room = err.width - len("session ") - len(name) - 1
                note(Text.assemble(("session ", "dim"), name,
                                   f" {_short(title, max(12, room))}"))
                note(Text(f"  {tail.lstrip()}", style="dim"))
            if how != "current":
                note(Text(f"  (choose another with {choose} or `logkb use`)", style="dim"))
    return sid


def _short(text: str, n: int) -> str:
    from kb.safe_text import visible
    from kb.width import fit

    return fit(visible(" ".join(text.split())), n)


def elsewhere_hint(store: KbStore, sid: str, found: Callable[[str], bool]) -> str | None:
    """Where a miss in ``sid`` would hit: ``found in ses_e88a22c; use --session
    ses_e88a22c`` (the other session's short id), or None."""
    short = store.short_ids()
    for other in store.top_level_ids():
        if other != sid and found(other):
            name = short.get(other, other)
            return f"found in {name}; use --session {name}"
    return None


# ------------------------------------------------------------------ output
def emit_json(obj: Any) -> None:
    """One JSON object (a single answer) on one line (:func:`kb.safe_text.json_text`)."""
    from kb.safe_text import json_text

    sys.stdout.write(json_text(orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS,
                                            default=str).decode()) + "\n")


def emit_lines(rows: Iterable[Any]) -> None:
    """A list: one JSON object per line (JSON lines; :func:`kb.safe_text.json_text`)."""
    from kb.safe_text import json_text

    write = sys.stdout.write
    for r in rows:
        write(json_text(orjson.dumps(r, option=orjson.OPT_NON_STR_KEYS, default=str).decode())
              + "\n")


def write_text(text: str, output: Path | None, *, exact: bool = False) -> None:
    """Text to FILE (``-o``) or stdout (through the pager on a terminal), its control
    characters made visible (:func:`kb.safe_text.visible`), or when ``exact`` (JSON) written
    as JSON escapes (:func:`kb.safe_text.json_text`), the same value."""
    from kb.safe_text import json_text, visible

    text = json_text(text) if exact else visible(text)
    if output is not None:
        output.write_text(text if text.endswith("\n") else text + "\n")
        note(f"wrote {output}")
        return
    with paged():
        sys.stdout.write(text if text.endswith("\n") else text + "\n")


def _pager_command() -> list[str] | None:
    if os.environ.get("LOGKB_NO_PAGER"):
        return None
    cmd = os.environ.get("LOGKB_PAGER") or os.environ.get("PAGER") or "less -FRX"
    if cmd.strip() in ("", "cat"):
        return None
    return shlex.split(cmd)


@contextmanager
def paged() -> Iterator[None]:
    """Long output through ``$PAGER`` (``less -FRX`` by default: it exits at once when the
    text fits the screen), like git, but only when stdout is a terminal."""
    cmd = _pager_command() if sys.stdout.isatty() and sys.stdin.isatty() else None
    if cmd is None:
        yield
        return
    buf = io.StringIO()
    real, saved_file = sys.stdout, out.file
    sys.stdout = buf
    out.file = buf
    try:
        yield
    finally:
        sys.stdout = real
        out.file = saved_file
    text = buf.getvalue()
    if text.count("\n") < os.get_terminal_size(real.fileno()).lines - 1:
        real.write(text)
        return
    env = dict(os.environ)
    env.setdefault("LESS", "FRX")
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, env=env)
    except OSError:
        real.write(text)
        return
    assert proc.stdin is not None
    try:
        proc.stdin.write(text.encode())
        proc.stdin.close()
    except BrokenPipeError:
        pass
    proc.wait()


def table(columns: Sequence[tuple[str, dict[str, Any]]]) -> Any:
    """A table that fits the width: every column truncates with an ellipsis unless it is
    marked ``wrap`` (prose); ``min`` sets a column's minimum width."""
    from rich.table import Table

    t = Table(box=None, header_style="bold", pad_edge=False, expand=False)
    for name, opts in columns:
        wrap = opts.pop("wrap", False)
        t.add_column(name, no_wrap=not wrap, overflow="fold" if wrap else "ellipsis",
                     min_width=opts.pop("min", None), **opts)
    return t


# ------------------------------------------------------------------ modes as subcommands
LEGACY = "legacy"
"""Name of a :class:`ModeGroup`'s hidden command that takes the old flag form."""


class ModeGroup(click.Group):
    """A command whose modes are subcommands (``logkb replay plan|run|show|compare``,
    ``logkb mark dead-end|confirmed|…``) instead of flag combinations.

    For one release the old flag form still works: arguments that do not start with
    a subcommand's name go to the hidden ``legacy`` command, which says on stderr
    what to type instead (:func:`deprecated`)."""

    def parse_args(self, ctx: click.Context, args: list[str]) -> list[str]:
        # the group's own flags (`replay --show-secrets plan …`) do not choose the form
        own = {o for p in self.params if isinstance(p, click.Option) and p.is_flag
               for o in p.opts}
        first = next((a for a in args if a not in own), None)
        if (LEGACY in self.commands and first is not None and first not in self.commands
                and first not in ctx.help_option_names):
            if not first.startswith("-") and not first.isdigit():
                # no old form starts with a word (`replay --from N`, `mark N --dead-end R`):
                # `replay plna` said "unexpected extra argument (plna)", `mark bogus 5`
                # "'bogus' is not a valid integer"
                import difflib

                names = self.list_commands(ctx)
                near = difflib.get_close_matches(first, names, n=1)
                raise click.UsageError(
                    f"No such command {first!r}."
                    + (f" Did you mean {near[0]!r}?" if near else "")
                    + f" ({ctx.command_path} takes {', '.join(names)})", ctx)
            args = [LEGACY, *args]
        return super().parse_args(ctx, args)

    def list_commands(self, ctx: click.Context) -> list[str]:
        return [n for n in self.commands if n != LEGACY]


def deprecated(old: str, new: str) -> None:
    """The note an old flag form prints (stderr) before it does what it always did."""
    sys.stderr.write(f"logkb: note: `{old}` is deprecated and goes in the next release; "
                     f"use `{new}`\n")
