"""CLI commands over the knowledge graph: graph, deadends, untested, why, timeline,
handoff, mark, unmark.  Registered on the ``logkb`` group in :mod:`kb.cli`."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

import click

from kb.cli import tools
from kb.cli.tools import (
    NBSP,
    ORDINAL,
    check_range,
    choices,
    db_option,
    emit_json,
    emit_lines,
    err,
    fail,
    handle_errors,
    json_option,
    labelled,
    limit_option,
    miss,
    note,
    open_store,
    out,
    output_option,
    paged,
    plural,
    real,
    resolve,
    say,
    session_option,
    write_text,
)
from kb.errors import KbNotFound
from kb.exitcodes import ExitCode

if TYPE_CHECKING:
    from kb.store import KbStore

DEAD_STATUSES = ("dead_end", "blocked", "superseded")
UNTESTED_STATUSES = ("open", "answered")
_F = TypeVar("_F", bound=Callable[..., Any])


def all_option(fn: _F) -> _F:
    return click.option("--all", "all_scopes", is_flag=True,
                        help="Every session in the knowledge base, not one.")(fn)


def one_or_all(session_id: str | None, all_scopes: bool) -> None:
    """``--session ID`` and ``--all`` together: a usage error (never one silently dropped)."""
    if session_id is not None and all_scopes:
        raise click.UsageError("--session and --all exclude each other")


@contextmanager
def graph_store(db: Path | None, session_id: str | None, all_scopes: bool
                ) -> Iterator[tuple[KbStore, list[str]]]:
    """A read-only store and the scopes asked for; builds graphs never built before."""
    from kb.graph import store as gs

    one_or_all(session_id, all_scopes)
    store = open_store(db)
    try:
        wanted = (gs.scopes(store) if all_scopes
                  else [gs.scope_of(store, resolve(store, session_id))])
        missing = gs.unbuilt(store, wanted)  # never built, older rules, or owed by an ingest
        if missing:
            store.close()
            with open_store(db, read_only=False) as rw:
                derive(rw, missing, force=False)
            store = open_store(db)
        yield store, wanted
    finally:
        store.close()


LONG_DERIVATION = 1000
"""Messages to derive above which a progress bar is shown on stderr (the pool's 2,800
messages took 8 s, silent, under the 5,000 this was)."""


def derive(store: KbStore, scopes: list[str], force: bool) -> list[str]:
    """Derive the graphs of some scopes (those out of date, or all with ``force``), with a
    progress bar on stderr when there is much to read; the scopes derived again."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from kb.graph import store as gs

    # top-level scopes in chunks (rows loaded together); the rest one by one
    sizes = gs.scope_sizes(store, scopes)
    total = sum(sizes.values())
    if total < LONG_DERIVATION:
        done, scopes = gs.rebuild_many(store, scopes, force=force)
        for s in scopes:
            if gs.rebuild(store, s, force=force):
                done.append(s)
        return done
    with Progress(TextColumn("deriving knowledge graphs"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("messages"), console=real(err), transient=True,
                  disable=not err.is_terminal) as bar:  # in a pipe: not even a blank line
        task = bar.add_task("derive", total=total)
        done, scopes = gs.rebuild_many(store, scopes, force=force,
                                       progress=lambda n: bar.advance(task, n))
        for s in scopes:
            if gs.rebuild(store, s, force=force):
                done.append(s)
            bar.advance(task, sizes.get(s, 0))
    return done


@click.command()
@session_option
@all_option
@click.option("--format", "fmt", type=click.Choice(["json", "graphml", "dot", "mermaid"]),
              default=None, help="Export format [default: a summary; json with --json].")
@output_option
@db_option
@json_option
@handle_errors
def graph(session_id: str | None, all_scopes: bool, fmt: str | None, output: Path | None,
          db: Path | None, as_json: bool) -> None:
    """Show or export the knowledge graph (approaches, experiments, causes, pivots)."""
    from kb.graph import report
    from kb.graph import store as gs

    with graph_store(db, session_id, all_scopes) as (store, scopes):
        g = gs.load_graph(store, scopes)
    if fmt is None and as_json:
        fmt = "json"
    if fmt is None:
        counts: dict[str, int] = {}
        for _, d in g.nodes(data=True):
            counts[d.get("type", "?")] = counts.get(d.get("type", "?"), 0) + 1
        text = (f"{plural(g.number_of_nodes(), 'node')}, "
                f"{plural(g.number_of_edges(), 'edge')}: "
                + ", ".join(plural(n, t, t + "es" if t.endswith("ch") else None)
                            for t, n in sorted(counts.items())))
        if output is None:  # a big session's ran to 94 columns: it wraps under itself
            import textwrap

            text = textwrap.fill(text, width=max(20, out.width), subsequent_indent="  ",
                                 break_long_words=False, break_on_hyphens=False)
        note("hint: export it with --format json|graphml|dot|mermaid")  # stderr: no data
    elif fmt == "json":
        # one object, on one line (docs/json.md): node-link data
        text = report.export(g, fmt, compact=True)
    else:
        text = report.export(g, fmt)
    write_text(text, output, exact=fmt == "json")


def _elsewhere(db: Path | None, scopes: list[str],
               found: Callable[[KbStore, list[str]], bool]) -> str | None:
    """Where a miss in ``scopes`` would hit among the other sessions' graphs.  Ingest
    leaves graphs to the first query that reads them, and this one reads them all: those
    never built are built now, as ``--all`` would (else a fresh ingest never hints)."""
    from kb import views

    with graph_store(db, None, True) as (store, _):
        short = store.short_ids()
        for other in sorted(views.built_scopes(store) - set(scopes)):
            try:
                if found(store, [other]):
                    name = short.get(other, other)
                    return f"found in {name}; use --session {name} or --all"
            except KbNotFound:
                continue
    return None


@click.command()
@session_option
@all_option
@click.option("--status", "statuses", multiple=True, metavar="STATUS",
              callback=choices(DEAD_STATUSES, "status"),
              help=f"Only these: {', '.join(DEAD_STATUSES)} (repeatable or comma-separated).")
@limit_option()
@db_option
@json_option
@handle_errors
def deadends(session_id: str | None, all_scopes: bool, statuses: list[str],
             limit: int | None, db: Path | None, as_json: bool) -> None:
    """Approaches that ended (dead end, blocked, superseded), grouped by cause."""
    from kb.graph import store as gs
    from kb.render import deadends_lines

    def ended(st: KbStore, sc: list[str]) -> list[dict[str, Any]]:
        return [d for d in gs.dead_ends(st, sc) if not statuses or d["status"] in statuses]

    with graph_store(db, session_id, all_scopes) as (store, scopes):
        items = ended(store, scopes)
        short = store.short_ids()
    # the hint and the message say what was asked: "--status blocked" found none, and the
    # hint sent the user to a session with dead ends, none of them blocked either
    hint = None if items or all_scopes else _elsewhere(db, scopes, lambda st, sc: bool(
        ended(st, sc)))
    none = ("no dead ends found" if not statuses else
            f"no {' or '.join(s.replace('_', ' ') for s in statuses)} approaches found")
    _emit_items(items, limit, as_json, deadends_lines, all_scopes, scopes, hint, none, short)


@click.command()
@session_option
@all_option
@click.option("--open", "open_only", is_flag=True,
              help="Only questions no later run answered.")
@click.option("--answered", is_flag=True,
              help="Only questions a later run answered (with the ordinal that did).")
@limit_option()
@db_option
@json_option
@handle_errors
def untested(session_id: str | None, all_scopes: bool, open_only: bool, answered: bool,
             limit: int | None, db: Path | None, as_json: bool) -> None:
    """Checks that got no answer when they ran: transport failures, aborts, timeouts,
    rejected permissions, calls still running at export, replies cut short or stalled.

    Each is open, or answered by a later run of the same check (its ordinal shown)."""
    from kb.graph import store as gs
    from kb.render import untested_lines

    if open_only and answered:
        raise click.UsageError("--open and --answered exclude each other")
    def questions(st: KbStore, sc: list[str]) -> list[dict[str, Any]]:
        return gs.untested(st, sc, include_answered=not open_only, only_answered=answered)

    with graph_store(db, session_id, all_scopes) as (store, scopes):
        items = questions(store, scopes)
        short = store.short_ids()
    hint = None if items or all_scopes else _elsewhere(
        db, scopes, lambda st, sc: bool(questions(st, sc)))
    # JSON keeps a row per ordinal (each with the group's ordinals and count); people read
    # the same call left untested again as one row
    _emit_items(items if as_json else gs.untested_once(items), limit, as_json,
                untested_lines, all_scopes, scopes, hint,
                # with --answered, "no untested questions" denied the open ones it has
                "no answered untested questions" if answered else
                "no open untested questions" if open_only else "no untested questions", short)


def _emit_items(items: list[dict[str, Any]], limit: int | None, as_json: bool,
                lines: Any, all_scopes: bool, scopes: list[str], hint: str | None,
                none: str, short: dict[str, str] | None = None) -> None:
    """A list command's output: at most ``limit`` items as JSON lines or fitted rows (each
    session by its short id), or on stderr that there are none (and where some would be)."""
    left = 0
    if limit is not None:
        left, items = max(0, len(items) - limit), items[:limit]
    if as_json:
        emit_lines(items)
    elif items:
        shown = [{**i, "session_id": (short or {}).get(i.get("session_id") or "",
                                                       i.get("session_id"))} for i in items]
        with paged():
            for line in lines(shown, out.width, sessions=all_scopes):
                out.print(line, no_wrap=True, crop=True)
        if left:
            note(f"{left} more: raise -n")
    if not items:
        from kb.sessionref import SHORT_MIN, TYPE_TAGS

        one = scopes[0] if len(scopes) == 1 else None
        if one is not None and short:
            one = short.get(one, one)
        elif one is not None:
            tag = next((len(t) for t in TYPE_TAGS if one.startswith(t)), 0)
            one = one[:tag + SHORT_MIN]
        miss(f"{none} in {one or 'any session'}", hint)


@click.command()
@click.argument("ref", metavar="NAME-OR-ORDINAL")
@session_option
@all_option
@db_option
@json_option
@handle_errors
def why(ref: str, session_id: str | None, all_scopes: bool, db: Path | None,
        as_json: bool) -> None:
    """The story of one approach: proposed, tested, outcome, why it ended, what replaced it.

    NAME-OR-ORDINAL is looked up in one session: --session, else the current one
    (`logkb use`), else the latest ingested; --all asks every session.  The story
    names the session that answered.  A name several approaches match lists them
    (with --all, each with its session), as does, with --all, an ordinal of
    several sessions.  Nothing known: exit 6."""
    from kb.graph import report
    from kb.render import candidates_lines, wrap_lines

    with graph_store(db, session_id, all_scopes) as (store, scopes):
        short = store.short_ids()
        if ref.isdigit() and not all_scopes:
            # an ordinal past the session's end names no message: an open approach would
            # otherwise answer for it (it runs on "to the end")
            from kb.graph import store as gs

            last = max(store.max_ordinal(s) for s in gs.scope_sessions(store, scopes[0]))
            if int(ref) < 1 or int(ref) > last:
                name = store.short_ids().get(scopes[0], scopes[0])
                fail(f"session {name} has no message {int(ref)} "
                     f"({f'its messages are 1–{last}' if last else 'it has no messages'})",
                     ExitCode.NOT_FOUND)
        matches = report.approach_matches(store, scopes, ref)
        if not matches and all_scopes and ref.isdigit():
            # message N of one session is not message N of another: each session's
            # answer is a candidate (one picked across them answered from any)
            matches = _ordinal_matches(store, scopes, ref)
        if matches:
            if as_json:
                emit_json({"ref": ref, "ambiguous": True, "matches": [
                    {**{k: a.get(k) for k in ("node_id", "label", "status", "ordinal",
                                              "ended", "cause", "session_id")},
                     "short_id": short.get(a.get("session_id") or "", a.get("session_id"))}
                    for a in matches]})
            else:
                many = len({a.get("session_id") for a in matches}) > 1
                shown = [{**a, "session_id": short.get(a.get("session_id") or "",
                                                       a.get("session_id"))}
                         for a in matches]
                for line in candidates_lines(shown, out.width, sessions=many):
                    out.print(line, no_wrap=True, crop=True)
                first = matches[0]
                # an ordinal names a message of one session: the example says which
                where = (f" --session {short.get(first['session_id'], first['session_id'])}"
                         if all_scopes and first.get("session_id") else "")
                if ref.isdigit():
                    note(f"{len(matches)} sessions have an approach at message {ref}: "
                         f"name one (e.g. `logkb why {ref}{where}`)", wrap=True)
                else:
                    note(f"{len(matches)} approaches match {ref!r}: name one (e.g. "
                         f"`logkb why {first['ordinal']}{where}`)", wrap=True)
            return
        try:
            story = report.story(store, scopes, ref)
            miss = None
            sid = story["approach"].get("session_id")
            if sid:  # which session answered: said with the story
                story["session"] = {"id": sid, "short_id": short.get(sid, sid),
                                    "title": store.session_title(sid)}
        except KbNotFound as e:
            miss = e
    if miss is not None:
        ordinal = ref.isdigit()
        # an ordinal names a message of this session: another session's message N is a
        # different message, worth naming only when the session was not chosen
        hint = None if all_scopes or (ordinal and session_id is not None) else _elsewhere(
            db, scopes, lambda st, sc: bool(report.find_approach(st, sc, ref)))
        if ordinal or ref.startswith("approach:"):
            fail(str(miss), ExitCode.NOT_FOUND, hint=hint)
        # a name nothing is known about: say so (never a near miss); the approach named
        # does not exist: not found (6), as an ordinal past the end or `approach:N`
        note(f"logkb: nothing known about {ref!r} ({miss})", wrap=True)
        labelled("hint:", hint or ("`logkb deadends` lists what ended; `logkb search "
                                   f"{shlex.quote(ref)}` looks in the transcripts"
                                   + ("" if all_scopes else "; --all asks every session")),
                 "bold")
        sys.exit(int(ExitCode.NOT_FOUND))
    if as_json:
        emit_json(story)
    else:
        # a subagent's session by its short id, as every list names it (its full id is
        # 30 to 60 columns); --json keeps the ids
        told = {**story, "research": [{**r, "session_id": short.get(
            r.get("session_id") or "", r.get("session_id"))} for r in story["research"]]}
        with paged():
            for text in wrap_lines(report.story_text(told), out.width):
                say(text)


def _ordinal_matches(store: KbStore, scopes: list[str], ref: str) -> list[dict[str, Any]]:
    """``why N --all``: the approach message N names in each session that has one, when
    more than one does (else empty: the one answer is the story)."""
    from kb.graph import report

    hits = []
    for scope in scopes:
        try:
            hits.append(report.find_approach(store, [scope], ref))
        except KbNotFound:
            continue
    return hits if len(hits) > 1 else []


@click.command()
@session_option
@click.option("--width", type=click.IntRange(min=8), default=None,
              help="Chart columns [default: what the terminal width leaves].")
@click.option("--from", "start", type=ORDINAL, metavar="N",
              help="First ordinal [default: where approaches start].")
@click.option("--to", "end", type=ORDINAL, metavar="M", help="Last ordinal.")
@db_option
@json_option
@handle_errors
def timeline(session_id: str | None, width: int | None, start: int | None, end: int | None,
             db: Path | None, as_json: bool) -> None:
    """Approaches and throughput over the session's messages, as a text chart."""
    from kb.graph import report
    from kb.render import clip

    check_range(start, end)
    with graph_store(db, session_id, False) as (store, scopes):
        if as_json:
            emit_json(report.timeline_data(store, scopes))
            return
        # name (≤ 38) + chart + status: the chart gets what the names and statuses leave
        chart = width or max(16, min(64, out.width - 38 - 26))
        text = report.timeline_text(store, scopes, width=chart, start=start, end=end)
    if text.startswith(report.NO_TIMELINE.removesuffix(" yet")):  # a diagnostic: stderr
        note(text)
        return
    # --width W asks for W chart columns: cut at the terminal, its chart was cut away
    # ("messages    5…"); so a wider chart is printed whole, as asked
    room = out.width if width is None else max(out.width, chart + 38 + 26)
    with paged():
        for line in text.splitlines():
            if width is None:
                out.print(clip(line, room), no_wrap=True, crop=True)
            else:
                out.print(clip(line, room), soft_wrap=True)


@click.command()
@session_option
@output_option
@click.option("--format", "fmt", type=click.Choice(["markdown", "json"]), default=None,
              help="markdown [default] or json (the same as --json).")
@click.option("--max-tokens", type=click.IntRange(min=1), default=None, metavar="N",
              help="At most N tokens as printed (Markdown or JSON; kb.handoff."
                   "estimate_tokens: 4 ASCII characters a token, a CJK character one): "
                   "whole items are left out, least needed first, and the brief says "
                   "how many; every claim keeps its message ordinals.  Below what the "
                   "goal and the status need, those are printed, stderr says so and "
                   "the exit code is 8.")
@db_option
@json_option
@handle_errors
def handoff(session_id: str | None, output: Path | None, fmt: str | None,
            max_tokens: int | None, db: Path | None, as_json: bool) -> None:
    """A Markdown brief for whoever continues the work (or the next agent).

    Its prose wraps at 80 columns; commands stay whole, each on a line of its own.
    Exit codes: 0, or 8 when --max-tokens N is below what the goal and the status
    need (printed all the same; stderr says so).
    """
    from kb import handoff as brief

    with graph_store(db, session_id, False) as (store, scopes):
        data = brief.brief(store, scopes[0])
    form = "json" if as_json or fmt == "json" else "markdown"
    text, over = brief.render(data, max_tokens=max_tokens, form=form)
    write_text(text, output, exact=form == "json")
    if over:
        over_budget(over, max_tokens or 0)


def over_budget(got: int, max_tokens: int) -> None:
    """What cannot be cut is said, not hidden: the skeleton was printed, over the cap."""
    note(f"handoff: the goal and the status alone are about {got} tokens, over "
         f"--max-tokens{NBSP}{max_tokens}: printed all the same", wrap=True)
    sys.exit(int(ExitCode.OVER_BUDGET))


@click.group(cls=tools.ModeGroup)
def mark() -> None:
    """Annotate the graph by hand; annotations survive re-ingest and win over heuristics.

    \b
    logkb mark dead-end ORDINAL REASON   logkb mark confirmed ORDINAL
    logkb mark hypothesis ORDINAL NAME   logkb mark note ORDINAL TEXT
    logkb mark revisit ORDINAL WHY       logkb mark link A B
    logkb mark list                      (`logkb unmark` removes them)
    """


MARKS: tuple[tuple[str, str | None, str], ...] = (
    # (subcommand = kind with `-`, the value's metavar or None, the docstring)
    ("dead-end", "REASON", "The approach at ORDINAL is a dead end, for REASON."),
    ("confirmed", None, "The approach at ORDINAL worked."),
    ("hypothesis", "NAME", "ORDINAL starts an approach called NAME."),
    ("note", "TEXT", "Attach a note, TEXT, to the approach at ORDINAL."),
    ("revisit", "WHY", "Flag the approach at ORDINAL for a revisit, because WHY."),
)
"""One subcommand of ``mark`` per annotation kind that marks a message (``link`` and
``list`` are their own)."""


def _mark_command(name: str, metavar: str | None, doc: str) -> click.Command:
    kind = name.replace("-", "_")

    def command(ordinal: int, value: str | None, session_id: str | None, db: Path | None,
                as_json: bool) -> None:
        _annotate(db, session_id, ordinal, kind, value, None, as_json)

    command.__doc__ = doc
    fn: Any = command
    for deco in reversed((
        mark.command(name),
        click.argument("ordinal", type=int),
        (click.argument("value", metavar=metavar) if metavar
         else click.option("--value", "value", hidden=True, default=None)),
        session_option, db_option, json_option, handle_errors,
    )):
        fn = deco(fn)
    return fn


for _name, _metavar, _doc in MARKS:
    _mark_command(_name, _metavar, _doc)


@mark.command("link")
@click.argument("a")
@click.argument("b")
@session_option
@db_option
@json_option
@handle_errors
def mark_link(a: str, b: str, session_id: str | None, db: Path | None,
              as_json: bool) -> None:
    """Relate two approaches, A and B (names or ordinals)."""
    _annotate(db, session_id, None, "link", a, b, as_json)


@mark.command("list")
@session_option
@db_option
@json_option
@handle_errors
def mark_list(session_id: str | None, db: Path | None, as_json: bool) -> None:
    """List the annotations (of every session, or of --session)."""
    from kb.graph import store as gs

    with open_store(db) as store:
        sid = store.resolve_session(session_id) if session_id else None
        rows = gs.annotations(store, sid)
        short = store.short_ids()
    if as_json:
        emit_lines(rows)
        return
    if not rows:
        tools.note("no annotations")
    for r in rows:  # the session by its short id, as every other list names it
        say(f"#{r['id']} {short.get(r['session_id'], r['session_id'])} "
            + _what(r["kind"], r["ordinal"], r["value"], r["target"]))


def _what(kind: str, ordinal: int | None, value: str | None, target: str | None) -> str:
    """An annotation as said: ``note at 5: look here``, ``link: 5 → 9``."""
    if kind == "link":
        return f"link: {value} → {target}"
    return f"{kind} at {ordinal}" + (f": {value}" if value else "")


def _annotate(db: Path | None, session_id: str | None, ordinal: int | None, kind: str,
              value: str | None, target: str | None, as_json: bool) -> None:
    from kb.graph import store as gs

    with open_store(db, read_only=False) as store:
        sid = resolve(store, session_id)
        name = store.short_ids().get(sid, sid)
        try:
            ann_id = gs.annotate(store, sid, ordinal, kind, value, target)
        except KbNotFound:  # named by its short id, as `show` names it
            last = store.max_ordinal(sid)
            fail(f"session {name} has no message {ordinal} "
                 f"({f'its messages are 1–{last}' if last else 'it has no messages'})",
                 ExitCode.NOT_FOUND)
        gs.rebuild(store, gs.scope_of(store, sid))
    if as_json:
        emit_json({"id": ann_id, "session_id": sid, "ordinal": ordinal, "kind": kind,
                   "value": value, "target": target})
    else:  # "link at -" said nothing of what it linked
        say(f"annotation #{ann_id} in {name}: {_what(kind, ordinal, value, target)}")


@mark.command(tools.LEGACY, hidden=True)
@click.argument("ordinal", type=int, required=False)
@session_option
@click.option("--dead-end", "dead_end", metavar="REASON")
@click.option("--confirmed", "confirmed", is_flag=True)
@click.option("--hypothesis", metavar="NAME")
@click.option("--link", nargs=2, metavar="A B")
@click.option("--note", metavar="TEXT")
@click.option("--revisit", metavar="WHY")
@click.option("--list", "list_", is_flag=True)
@db_option
@json_option
@handle_errors
def mark_legacy(ordinal: int | None, session_id: str | None, dead_end: str | None,
                confirmed: bool, hypothesis: str | None, link: tuple[str, str] | None,
                note: str | None, revisit: str | None, list_: bool, db: Path | None,
                as_json: bool) -> None:
    """The deprecated flag form: `logkb mark ORDINAL --dead-end REASON`, `--list`, …"""
    if list_:
        tools.deprecated("logkb mark --list", "logkb mark list")
        click.get_current_context().invoke(mark_list, session_id=session_id, db=db,
                                           as_json=as_json)
        return
    chosen = [k for k, v in (("dead_end", dead_end), ("confirmed", confirmed),
                             ("hypothesis", hypothesis), ("link", link), ("note", note),
                             ("revisit", revisit)) if v]
    if len(chosen) != 1:
        raise click.UsageError("give one of: logkb mark dead-end|confirmed|hypothesis|"
                               "note|revisit ORDINAL …, mark link A B, mark list")
    kind = chosen[0]
    name = kind.replace("_", "-")
    if kind != "link" and ordinal is None:
        raise click.UsageError(f"--{name} needs an ORDINAL")
    value = {"dead_end": dead_end, "hypothesis": hypothesis, "note": note,
             "revisit": revisit, "confirmed": None}.get(kind)
    target = None
    if kind == "link":
        assert link is not None
        value, target = link
    metavar = {n: m for n, m, _ in MARKS}.get(name)
    tools.deprecated(f"logkb mark --{name}",
                     "logkb mark link A B" if kind == "link"
                     else f"logkb mark {name} ORDINAL{' ' + metavar if metavar else ''}")
    _annotate(db, session_id, ordinal, kind, value, target, as_json)


@click.command()
@click.argument("ordinal", type=int, required=False)
@session_option
@click.option("--id", "ann_id", type=int, help="Remove the annotation with this id.")
@click.option("--kind", type=click.Choice(["dead_end", "confirmed", "hypothesis", "link",
                                           "note", "revisit"]),
              help="Only annotations of this kind.")
@db_option
@json_option
@handle_errors
def unmark(ordinal: int | None, session_id: str | None, ann_id: int | None, kind: str | None,
           db: Path | None, as_json: bool) -> None:
    """Remove annotations (of a message, by id, or of a kind)."""
    from kb.graph import store as gs

    if ordinal is None and ann_id is None:
        raise click.UsageError("give an ORDINAL or --id")
    with open_store(db, read_only=False) as store:
        sid = resolve(store, session_id)
        n = gs.unannotate(store, sid, ordinal, ann_id, kind)
        if n == 0:
            what = (f"annotation #{ann_id}" if ann_id is not None
                    else f"annotation{' of kind ' + kind if kind else ''} at {ordinal}")
            raise KbNotFound(f"no {what} in {store.short_ids().get(sid, sid)} "
                             "(`logkb mark list` lists them)")
        gs.rebuild(store, gs.scope_of(store, sid))
    if as_json:
        emit_json({"removed": n})
    else:
        say(f"removed {n} annotation{'s' if n != 1 else ''}")


COMMANDS = (graph, deadends, untested, why, timeline, handoff, mark, unmark)
