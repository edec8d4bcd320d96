"""The ``logkb`` command line: one click group, one function per command.

stdout carries data (tables, JSON, CSV); progress, warnings and errors go to
stderr.  Exit codes are :class:`kb.exitcodes.ExitCode`.  Commands that do not
show the TUI never import Textual.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from kb import __version__
from kb.cli.tools import labelled, quiet_stdout, setup_consoles

EPILOG = """\b
Exit codes: 0 ok · 1 no match (search) or failed · 2 usage · 3 not a
transcript · 4 ingested with problems · 5 knowledge base busy · 6 not found
(session, message, approach) · 7 replay saw changes · 8 handoff over
--max-tokens.  Errors: `logkb: error: …` on stderr, then a `hint:`."""


class LogkbGroup(click.Group):
    """The group; a reader that goes away (``logkb events | head``) ends it quietly, 0;
    usage errors speak like every other error (``logkb: error: …`` and a hint)."""

    def main(self, *args: Any, **kwargs: Any) -> Any:
        if kwargs.get("standalone_mode", True) is False:
            return super().main(*args, **kwargs)
        kwargs["standalone_mode"] = False
        try:
            rv = super().main(*args, **kwargs)
        except click.exceptions.Abort:
            sys.stderr.write("logkb: error: aborted\n")
            sys.exit(1)
        except click.exceptions.NoArgsIsHelpError as e:  # `logkb replay` alone
            names = ", ".join(e.ctx.command.list_commands(e.ctx)
                              if isinstance(e.ctx.command, click.Group) else [])
            sys.stderr.write(f"logkb: error: {e.ctx.command_path} needs a command"
                             f"{': ' + names if names else ''}\n"
                             f"hint: {e.ctx.command_path} -h shows them\n")
            sys.exit(e.exit_code)
        except click.ClickException as e:
            # as every other error: wrapped under its label on a terminal (an invalid
            # --kind lists the valid ones: 179 columns), one line in a pipe
            setup_consoles()
            labelled("logkb: error:", e.format_message(), "bold red")
            ctx = getattr(e, "ctx", None)
            while ctx is not None and ctx.command.hidden and ctx.parent is not None:
                ctx = ctx.parent  # a hidden form (`replay --from N`): the command it is
            if ctx is not None:  # `logkb nosuch`: the group's commands are what was wrong
                what = ("commands" if isinstance(ctx.command, click.Group)
                        and "No such command" in e.format_message() else "options")
                labelled("hint:", f"{ctx.command_path} -h shows its {what}", "bold")
            sys.exit(e.exit_code)
        # with standalone_mode off click hands back the code of ctx.exit(N)
        if isinstance(rv, int) and not isinstance(rv, bool):
            sys.exit(rv)
        return rv

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except BrokenPipeError:
            quiet_stdout()
            raise click.exceptions.Exit(0) from None


@click.group(cls=LogkbGroup, epilog=EPILOG, invoke_without_command=True,
             context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(version=__version__, package_name="logkb")
@click.option("--db", "db", type=click.Path(dir_okay=False, path_type=Path), default=None,
              help="Knowledge base file for the command (env LOGKB_DB).")
@click.pass_context
def cli(ctx: click.Context, db: Path | None) -> None:
    """logkb: turn long agent sessions into a knowledge base you can query.

    Ingest transcripts (opencode in every form, Claude Code, Codex, Gemini CLI, pi,
    Antigravity; `logkb ingest` alone reads the agents' default folders) into
    DuckDB, then ask what was tried, what failed and why.  On a terminal, `logkb`
    alone opens the TUI.
    """
    ctx.ensure_object(dict)
    ctx.obj["db"] = db
    setup_consoles()
    if ctx.invoked_subcommand is None:
        if sys.stdin.isatty() and sys.stdout.isatty():
            ctx.invoke(cli.commands["tui"], db=db)
        else:
            click.echo(ctx.get_help())


def _register() -> None:
    from kb.cli import (
        examples,
        graph,
        ingest,
        live,
        measure,
        read,
        rebuild,
        report,
        secrets,
        team,
        usage,
    )
    from kb.cli.replay import replay
    from kb.cli.tools import show_secrets_param
    from kb.cli.tui import tui

    for cmd in (*ingest.COMMANDS, *read.COMMANDS, *graph.COMMANDS, *rebuild.COMMANDS,
                *live.COMMANDS, *measure.COMMANDS, *secrets.COMMANDS, *usage.COMMANDS, *report.COMMANDS,
                *team.COMMANDS, replay, tui):
        cli.add_command(cmd)
    team.attach(cli)  # --team on the read commands
    examples.attach(cli)  # an `Examples:` block at the end of every command's help
    # `--show-secrets` is one global option (`logkb --show-secrets show 5`), read in one
    # place (`tools.open_store`); every command and subcommand also accepts it after its
    # name (`logkb show 5 --show-secrets`), hidden from its help
    cli.params.append(show_secrets_param())
    todo = list(cli.commands.values())
    while todo:
        cmd = todo.pop()
        if isinstance(cmd, click.Group):
            todo.extend(cmd.commands.values())
        if not any(p.name == "show_secrets" for p in cmd.params):
            cmd.params.append(show_secrets_param(hidden=True))


_register()
