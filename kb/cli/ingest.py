"""``logkb ingest``: read transcripts into the knowledge base."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import click

from kb.cli.tools import (
    db_option,
    emit_json,
    err,
    fail,
    handle_errors,
    json_option,
    labelled,
    note,
    open_store,
    out,
    plural,
    real,
    say,
    width_said,
)
from kb.exitcodes import ExitCode
from kb.paths import default_db

if TYPE_CHECKING:
    from rich.progress import ProgressColumn
    from rich.text import Text


def _remove_empty(path: Path) -> None:
    """A knowledge base this ingest created and stored no session in goes again (with its
    write-ahead log): a refused, empty or garbage input leaves no file behind."""
    from kb.store import KbStore

    try:
        with KbStore(path, read_only=True) as store:
            if store.sessions():
                return
    except Exception:  # noqa: BLE001 - unreadable: it is not removed
        return
    for p in (path, Path(f"{path}.wal")):
        try:
            p.unlink()
        except OSError:
            pass


# ---------------------------------------------------------------------- ingest
@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--session", "session_ids", multiple=True, metavar="ID",
              help="Only these sessions (repeatable).")
@click.option("--force", is_flag=True, help="Re-read inputs even if they did not change.")
@click.option("--progress/--no-progress", default=None,
              help="Progress bar on stderr [default: on a terminal, for large inputs].")
@click.option("--wait", is_flag=True,
              help="Build the knowledge graph and the search index before returning "
                   "[default: the first query that reads them builds them].")
@db_option
@json_option
@handle_errors
def ingest(paths: tuple[Path, ...], session_ids: tuple[str, ...], force: bool,
           progress: bool | None, wait: bool, db: Path | None, as_json: bool) -> None:
    """Read opencode, Claude Code, Codex, Gemini CLI, pi and Antigravity transcripts.

    PATHS may be files (any form, detected from content) or directories
    (searched).  Without PATHS, opencode's data directory
    ($XDG_DATA_HOME/opencode), Claude Code's ($CLAUDE_CONFIG_DIR/projects,
    ~/.claude/projects), Codex's ($CODEX_HOME/sessions, ~/.codex/sessions),
    Gemini CLI's (~/.gemini/tmp, under $GEMINI_CLI_HOME if set) and pi's
    ($PI_CODING_AGENT_DIR/sessions, ~/.pi/agent/sessions) are ingested, those
    that exist; an Antigravity trajectory export is read when named.  Ingesting again adds only what is new;
    a file unchanged since it was read is not opened.  The command returns once
    messages and events are stored: the knowledge graph and the search index
    follow on the first query that reads them (or now, with --wait).
    """

    from kb.ingest import Seen, adopt_relative, input_size, plan, to_read
    from kb.ingest import ingest as run_ingest
    from logparse.registry import agent_dirs
    from logparse.rewrite import FORM as REWRITE

    stores: list[tuple[str, Path]] = []
    if not paths:
        stores = agent_dirs()
        paths = tuple(d for _, d in stores if d.exists())
        if not paths:
            fail("no PATH given and no agent store found: "
                 + ", ".join(f"{a} {d}" for a, d in stores), ExitCode.USAGE)
    missing = [p for p in paths if not p.exists()]
    if missing:
        fail(f"no such file or directory: {', '.join(str(p) for p in missing)}",
             ExitCode.NOT_FOUND)
    target = db if db is not None else default_db()
    created = not target.exists()  # nothing stored: it goes again (_remove_empty)
    with open_store(db, read_only=False) as store:
        seen = Seen.load(store)  # the stat pass: unchanged files are not opened
        found = plan(list(paths), None if force else seen,  # --force: detect again
                     own=store.path)
        if adopt_relative(store, found[0]):  # an older logkb's relative paths
            seen = Seen.load(store)
        # the bar counts the bytes of the inputs read: not those unchanged since they
        # were read (they are not opened), nor those not taken
        reading = to_read(found[0], seen, force=force, filtered=bool(session_ids))
        total = sum(input_size(i) for i in reading)
        show = progress if progress is not None else (err.is_terminal and total > 4 << 20)
        if show:
            from rich.progress import BarColumn, Progress, TextColumn
            with Progress(TextColumn("{task.description}"), BarColumn(), _bytes_column(),
                          console=real(err), transient=True) as bar:
                task = bar.add_task(f"reading {plural(len(reading), 'file')}",
                                    total=total or None)

                def then(what: str) -> None:
                    # what --wait does after the last input (13 s of 35 over the
                    # labelled set) sat under a bar stuck at "ingesting … 0:00:01";
                    # then under the bytes read, full ("992.2/992.2 kB 1.3 MB/s"): a
                    # phase of its own, its time
                    bar.update(task, visible=False)
                    bar.add_task(what, total=None, phase=True)

                report = run_ingest(store, list(paths), session_ids=session_ids or None,
                                    progress=lambda n: bar.advance(task, n), force=force,
                                    inputs=found, seen=seen, graph=wait, index=wait,
                                    phase=then)
        else:
            report = run_ingest(store, list(paths), session_ids=session_ids or None,
                                force=force, inputs=found, seen=seen, graph=wait, index=wait)
        # below 120 columns a 36-character id leaves no room for the title: short ids
        # (unique in the whole knowledge base, as `logkb sessions` shows them)
        shorts = store.short_ids() if not as_json and out.width < 120 else {}
    here = _as_typed(paths)
    for e in report.errors:  # a refusal that names the agent is said in one line
        labelled("logkb: error:", here(f"{e.path}: {e.reason}" if e.agent else f"{e}"),
                 "bold red")
    for e in report.not_taken:
        labelled("not taken:", here(f"{e.path}: {e.reason}"), "")
    for s in report.sessions:  # read, and not an error: but not the agent's own output
        if s.form == REWRITE:
            labelled("note:", here(f"{s.path}: {rewrite_text(s.agent)}"), "yellow")
    for spath, types in report.skipped.items():
        note(here(f"{spath}: {skipped_text(types)}"), wrap=width_said())  # as labelled()
    real_problems = [p for p in report.problems if not p.notice]
    for p in report.problems:  # `file:line: what`, wrapped under it on a terminal
        labelled("note:" if p.notice else "problem:", here(f"{p}"), "yellow")
    for agent, d in stores:  # no PATH: what each agent's store held
        if not d.exists():
            note(f"{agent}: {d}: not found")
            continue
        under = _under(d)
        mine = [s for s in report.sessions if under(s.path)]
        refused = [e for e in report.errors + report.not_taken if under(str(e.path))]
        same = [u for u in report.unchanged if under(u)]
        note(f"{agent}: {d}: {plural(len(mine), 'session')} read, "
             f"{plural(len(same), 'input')} unchanged, {plural(len(refused), 'file')} not taken")
    if as_json:
        emit_json(report.as_json())
    else:
        w = out.width
        for s in report.sessions:
            kid = (f" (subagent of {shorts.get(s.parent_id, s.parent_id)})"
                   if s.parent_id else "")
            new = _counts(s.new_messages, s.updated_messages, s.unchanged_messages)
            if s.kept:  # stored messages the input lacks: an older copy's, or kept
                # from the session's other files (one split over several)
                new = f"older copy: {new}, {s.kept} kept" if s.older else \
                    f"{new}, {s.kept} kept from other files"
            new = f"{new}, {s.conflicts} in conflict (kept as stored)" \
                if s.conflicts else new
            out.print(_summary_line(
                f"{shorts.get(s.session_id, s.session_id)}  "
                f"{plural(s.messages, 'message')}, {plural(s.events, 'event')}, "
                f"{new}", s.form, s.title or "", kid, w), no_wrap=True, crop=True)
        if not stores:  # no PATH: the per-agent lines above count them; a line per file
            for u in report.unchanged:  # made every daily run a wall of paths
                say(f"unchanged: {here(u)}")
        note(f"{plural(len(report.sessions), 'session')}, "
             f"{plural(sum(s.messages for s in report.sessions), 'message')}, "
             f"{plural(sum(s.events for s in report.sessions), 'event')}, "
             f"{_counts(report.new_messages, report.updated_messages, report.unchanged_messages)}"
             f"; {plural(len(real_problems), 'problem')}")
        if report.states_discarded:  # what logkb did not understand is counted
            n = sum(report.states_discarded.values())
            why = ", ".join(r if c == 1 else f"{r} ({c})"
                            for r, c in sorted(report.states_discarded.items()))
            labelled("note:", f"{plural(n, 'kept extraction state')} discarded (rebuilt): "
                     f"{why}", "yellow")
    for link in report.links:
        note(f"followed symlink: {here(link['path'])} -> {link['target']}")
    if created and not report.sessions:
        _remove_empty(target)
    if report.errors:
        sys.exit(int(ExitCode.NOT_TRANSCRIPT))
    if real_problems:
        sys.exit(int(ExitCode.PROBLEMS))


def _summary_line(head: str, form: str, title: str, tail: str, width: int) -> str | Text:
    """A session's line of the ingest summary in ``width`` columns: ``head`` (the id and
    the counts) and ``tail`` (whose subagent it is) whole, then ``[form]``, then the
    title fitted to what they leave (:func:`kb.width.fit_title`: cut at a word, never
    inside an escape); the form goes before the counts are cut, and the line is cut as
    a whole only when the counts alone do not fit.  (The line was cut at the width as one
    string: the title mid-word, ``\\x1…`` mid-escape, the parent's id lost.)"""
    from kb.render import clip
    from kb.safe_text import visible
    from kb.width import cells, fit_title

    head, tail = visible(head), visible(tail)  # an id is the transcript's text too
    tag = f"  [{form}]"
    room = width - cells(head) - cells(tag) - 1 - cells(tail)
    if title.strip() and room >= 8:
        line = f"{head}{tag} {fit_title(title, room)}{tail}"
    elif cells(head + tag + tail) <= width:
        line = head + tag + tail
    else:
        line = head + tail
    return line if cells(line) <= width else clip(line, width)


def _bytes_column() -> ProgressColumn:
    """The bar's figures: bytes read, speed and time left while inputs are read; the
    time so far in a phase after them (``phase`` set: no bytes to count)."""
    from rich.progress import (
        DownloadColumn,
        ProgressColumn,
        Task,
        TimeElapsedColumn,
        TimeRemainingColumn,
        TransferSpeedColumn,
    )
    from rich.text import Text

    class Bytes(ProgressColumn):
        def __init__(self) -> None:
            super().__init__()
            self.cols = (DownloadColumn(), TransferSpeedColumn(), TimeRemainingColumn())
            self.elapsed = TimeElapsedColumn()

        def render(self, task: Task) -> Text:
            if task.fields.get("phase"):
                return self.elapsed.render(task)
            return Text(" ").join(c.render(task) for c in self.cols)

    return Bytes()


def _as_typed(paths: tuple[Path, ...]) -> Callable[[str], str]:
    """What a line starting with an input's path says on the terminal: the path as the
    PATH it was found under was typed (``labelled/k1.json`` for ``labelled``; inputs are
    stored and said in ``--json`` absolute), any other as stored."""
    typed = sorted(((os.path.abspath(p), str(p)) for p in paths), key=lambda t: -len(t[0]))

    def said(text: str) -> str:
        for full, as_typed in typed:
            if text.startswith(full) and text[len(full):len(full) + 1] in ("", os.sep, ":"):
                rest = text[len(full):]
                if as_typed == "." and rest.startswith(os.sep):
                    return rest[1:]
                return as_typed + rest
        return text

    return said


def _under(d: Path) -> Callable[[str], bool]:
    """Whether a path (as the ingest reports it: ``str`` of a :class:`Path`, so already
    in normal form) is ``d`` or below it: :meth:`Path.is_relative_to` on the strings
    (a ``Path`` built of every reported path once per agent was most of what a re-run
    with nothing changed spent after its imports)."""
    top = os.path.abspath(d)  # as the ingest stores and reports an input (plan)
    below = top if top.endswith(os.sep) else top + os.sep
    return lambda p: p == top or p.startswith(below)


def rewrite_text(agent: str | None) -> str:
    """What ingest says of a session read from a rewrite (form ``rewrite``)."""
    who = f"a {agent} session" if agent and agent != "unknown" else "a chat"
    return (f"a rewrite of {who}, not the agent's own output: its messages are kept as "
            "text (form rewrite), with no tool calls or outputs")


def skipped_text(types: dict[str, int]) -> str:
    """``skipped 12 records of 3 unknown types: mode (5), tag (4), x (3)``."""
    n = sum(types.values())
    listed = ", ".join(f"{t} ({c})" for t, c in sorted(types.items(), key=lambda i: -i[1]))
    return (f"skipped {n} record{'s' if n != 1 else ''} of {len(types)} unknown "
            f"type{'s' if len(types) != 1 else ''} (kept raw): {listed}")


COMMANDS = (ingest,)


def _counts(new: int, updated: int, unchanged: int) -> str:
    """``3 new, 1 updated, 40 unchanged``: the messages read, by what the ingest did with
    them (new: not stored before; updated: stored again in place, changed or moved by a
    line added before it; unchanged: as stored).  Zero updated or unchanged are left
    out."""
    return ", ".join([f"{new} new"] + [f"{n} {what}" for n, what in
                                        ((updated, "updated"), (unchanged, "unchanged")) if n])
