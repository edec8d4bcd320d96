"""An ``Examples:`` block at the end of every command's ``--help`` (rules as data).

A new user reads ``logkb deadends -h`` for what to type next: one or two real command
lines say more than the option list.  Each row of :data:`EXAMPLES` is a command path and
its example lines; :func:`attach` appends them to the command's epilog (after what the
command already says there).  ``tests/test_cli_ux5.py`` walks every visible command:
each has a row, and each example parses with that command's own options.
"""

from __future__ import annotations

import click

EXAMPLES: dict[str, tuple[str, ...]] = {
    "": ("logkb ingest", "logkb sessions", "logkb deadends", "logkb handoff -o brief.md",
         "logkb tui"),
    "deadends": ("logkb deadends", "logkb deadends --all --status blocked -n 5",
                 "logkb deadends --session 019de7f --json"),
    "events": ("logkb events --from 40 --to 60 --kind command",
               "logkb events --category test --json"),
    "export": ("logkb export --parquet out/", "logkb export --parquet out/ --all"),
    "graph": ("logkb graph", "logkb graph --format mermaid -o graph.mmd",
              "logkb graph --all --format graphml -o kb.graphml"),
    "handoff": ("logkb handoff -o brief.md", "logkb handoff --max-tokens 2000",
                "logkb handoff --session 019de7f --json"),
    "ingest": ("logkb ingest", "logkb ingest ~/.codex/sessions/2026/05/",
               "logkb ingest session.jsonl --wait"),
    "mark": ("logkb mark dead-end 42 'OOM at batch 64'", "logkb mark list"),
    "mark confirmed": ("logkb mark confirmed 42",),
    "mark dead-end": ("logkb mark dead-end 42 'OOM at batch 64'",),
    "mark hypothesis": ("logkb mark hypothesis 17 'expert parallelism'",),
    "mark link": ("logkb mark link 17 42",),
    "mark list": ("logkb mark list", "logkb mark list --session 019de7f --json"),
    "mark note": ("logkb mark note 42 'retry with the new driver'",),
    "mark revisit": ("logkb mark revisit 42 'the driver was updated'",),
    "measurements": ("logkb measurements", "logkb measurements --unit s,ms --all",
                     "logkb measurements --harness --json"),
    "mcp": ("logkb mcp", "claude mcp add logkb -- logkb mcp"),
    "path": ("logkb path", "logkb path --json"),
    "push": ("logkb push", "logkb push --all"),
    "query": ("logkb query 'SELECT count(*) FROM sessions'",
              "logkb query 'SELECT * FROM calls' --csv --limit 10"),
    "rebuild": ("logkb rebuild", "logkb rebuild --graph --all", "logkb rebuild --stale"),
    "replay": ("logkb replay plan --from 40", "logkb replay run --from 40 --to 60"),
    "replay compare": ("logkb replay compare 42",),
    "replay plan": ("logkb replay plan --from 40",
                    "logkb replay plan --from 40 --host-map gpu1=local"),
    "replay run": ("logkb replay run --from 40 --only test",
                   "logkb replay run --from 40 --host-map gpu1=local"),
    "replay show": ("logkb replay show", "logkb replay show --json"),
    "report": ("logkb report -o report/", "logkb report --all -o site/"),
    "resume": ("logkb resume", "logkb resume 019de7f --exec"),
    "search": ("logkb search 'ModuleNotFoundError'", "logkb search 'kind:command pytest'",
               "logkb search --here -n 5 timeout"),
    "secrets": ("logkb secrets", "logkb secrets --session 019de7f --json"),
    "sessions": ("logkb sessions", "logkb sessions 019de7f", "logkb sessions -n 5 --json"),
    "show": ("logkb show 42", "logkb show 42 --full", "logkb show 42 --json"),
    "team": ("logkb team status postgresql://alice@db/logkb",),
    "team add-member": ("logkb team add-member postgresql://owner@db/logkb alice",),
    "team init": ("logkb team init postgresql://owner@db/logkb --name gpu",),
    "team status": ("logkb team status postgresql://alice@db/logkb",),
    "timeline": ("logkb timeline", "logkb timeline --from 40 --to 120"),
    "tui": ("logkb tui", "logkb tui --session 019de7f --at 42"),
    "unmark": ("logkb unmark 42", "logkb unmark 42 --kind note"),
    "untested": ("logkb untested", "logkb untested --all --open",
                 "logkb untested --json"),
    "usage": ("logkb usage", "logkb usage --by session", "logkb usage --by month --json"),
    "use": ("logkb use", "logkb use 019de7f", "logkb use matugen script"),
    "watch": ("logkb watch", "logkb watch ~/.claude/projects --for 60"),
    "why": ("logkb why 42", "logkb why 'bundle install'", "logkb why DeepEP --all"),
}
"""Command path (``"replay plan"``) → example command lines, each a real invocation."""


def commands(group: click.Group, path: tuple[str, ...] = ()
             ) -> list[tuple[str, click.Command]]:
    """Every visible command under ``group``, with its path (``"replay plan"``)."""
    out: list[tuple[str, click.Command]] = []
    for name, cmd in sorted(group.commands.items()):
        if cmd.hidden:
            continue
        here = (*path, name)
        out.append((" ".join(here), cmd))
        if isinstance(cmd, click.Group):
            out += commands(cmd, here)
    return out


def attach(group: click.Group) -> None:
    """Append each command's ``Examples:`` block to its epilog (``\\b``: kept as written);
    ``""`` is ``logkb`` itself (where a new user starts)."""
    for path, cmd in [("", group), *commands(group)]:
        lines = EXAMPLES.get(path)
        if not lines:
            continue
        block = "\b\nExamples:\n" + "\n".join(f"  {line}" for line in lines)
        cmd.epilog = f"{cmd.epilog}\n\n{block}" if cmd.epilog else block
