"""CLI commands over the knowledge graph: graph, deadends, untested, why, timeline,
handoff, mark, unmark.  Registered on the ``logkb`` group in :mod:`kb.cli`."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import click

from kb.cli.tools import (
    db_option,
    emit_json,
    err,
    handle_errors,
    json_option,
    open_store,
    out,
    session_option,
)
from kb.store import KbStore


def all_option(fn):  # type: ignore[no-untyped-def]
    return click.option("--all", "all_scopes", is_flag=True,
                        help="Every session in the knowledge base, not one.")(fn)


@contextmanager
def graph_store(db: Path | None, session_id: str | None, all_scopes: bool
                ) -> Iterator[tuple[KbStore, list[str]]]:
    """A read-only store and the scopes asked for; builds graphs never built before."""
    from kb.graph import store as gs

    store = open_store(db)
    try:
        wanted = (gs.scopes(store) if all_scopes
                  else [gs.scope_of(store, store.resolve_session(session_id))])
        stale = gs.outdated(store, wanted)
        if stale:
            store.close()
            with open_store(db, read_only=False) as rw:
                derive(rw, stale, force=False)
            store = open_store(db)
        yield store, wanted
    finally:
        store.close()


LONG_DERIVATION = 5000
"""Messages to derive above which a progress bar is shown on stderr."""


def derive(store: KbStore, scopes: list[str], force: bool) -> list[str]:
    """Derive the graphs of some scopes (those out of date, or all with ``force``), with a
    progress bar on stderr when there is much to read; the scopes derived again."""
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from kb.graph import store as gs

    sizes = gs.scope_sizes(store, scopes)
    total = sum(sizes.values())
    done: list[str] = []
    if total < LONG_DERIVATION:
        for s in scopes:
            if gs.rebuild(store, s, force=force):
                done.append(s)
        return done
    with Progress(TextColumn("deriving knowledge graphs"), BarColumn(), MofNCompleteColumn(),
                  TextColumn("messages"), console=err, transient=True) as bar:
        task = bar.add_task("derive", total=total)
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
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write to FILE instead of stdout.")
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
        text = (f"{g.number_of_nodes()} nodes, {g.number_of_edges()} edges: "
                + ", ".join(f"{n} {t}" for t, n in sorted(counts.items()))
                + "\nexport with --format json|graphml|dot|mermaid")
    else:
        text = report.export(g, fmt)
    if output:
        output.write_text(text + "\n")
        err.print(f"wrote {output}")
    else:
        sys.stdout.write(text + "\n")


@click.command()
@session_option
@all_option
@db_option
@json_option
@handle_errors
def deadends(session_id: str | None, all_scopes: bool, db: Path | None, as_json: bool) -> None:
    """Approaches that ended (dead end, blocked, superseded), grouped by cause."""
    from kb.graph import report
    from kb.graph import store as gs

    with graph_store(db, session_id, all_scopes) as (store, scopes):
        items = gs.dead_ends(store, scopes)
    if as_json:
        emit_json(items)
    elif not items:
        err.print("no dead ends found")
    else:
        out.print(report.deadends_text(items), markup=False)


@click.command()
@session_option
@all_option
@click.option("--open", "open_only", is_flag=True,
              help="Only questions no later run answered.")
@click.option("--answered", is_flag=True,
              help="Only questions a later run answered (with the ordinal that did).")
@db_option
@json_option
@handle_errors
def untested(session_id: str | None, all_scopes: bool, open_only: bool, answered: bool,
             db: Path | None, as_json: bool) -> None:
    """Checks that got no answer when they ran: transport failures, aborts, timeouts,
    rejected permissions, calls still running at export, replies cut short or stalled.

    Each is open, or answered by a later run of the same check (its ordinal shown)."""
    from kb.graph import store as gs

    if open_only and answered:
        raise click.UsageError("--open and --answered exclude each other")
    with graph_store(db, session_id, all_scopes) as (store, scopes):
        items = gs.untested(store, scopes, include_answered=not open_only,
                            only_answered=answered)
    if as_json:
        emit_json(items)
        return
    if not items:
        err.print("no untested questions")
    for q in items:
        state = "" if q["status"] == "open" else f"  (answered at {q['answered_at']})"
        out.print(f"{q['ordinal']:>6}  {q['question']}  — {q['reason']}{state}", markup=False)


@click.command()
@click.argument("ref", metavar="NAME-OR-ORDINAL")
@session_option
@all_option
@db_option
@json_option
@handle_errors
def why(ref: str, session_id: str | None, all_scopes: bool, db: Path | None,
        as_json: bool) -> None:
    """The story of one approach: proposed, tested, outcome, why it ended, what replaced it."""
    from kb.graph import report

    with graph_store(db, session_id, all_scopes) as (store, scopes):
        s = report.story(store, scopes, ref)
    if as_json:
        emit_json(s)
    else:
        out.print(report.story_text(s), markup=False)


@click.command()
@session_option
@click.option("--width", type=int, default=64, show_default=True, help="Chart columns.")
@click.option("--from", "start", type=int, metavar="N",
              help="First ordinal [default: where approaches start].")
@click.option("--to", "end", type=int, metavar="M", help="Last ordinal.")
@db_option
@json_option
@handle_errors
def timeline(session_id: str | None, width: int, start: int | None, end: int | None,
             db: Path | None, as_json: bool) -> None:
    """Approaches and throughput over the session's messages, as a text chart."""
    from kb.graph import report

    with graph_store(db, session_id, False) as (store, scopes):
        if as_json:
            emit_json(report.timeline_data(store, scopes))
        else:
            out.print(report.timeline_text(store, scopes, width=width, start=start, end=end),
                      markup=False)


@click.command()
@session_option
@click.option("-o", "--output", type=click.Path(dir_okay=False, path_type=Path),
              help="Write the brief to FILE.md instead of stdout.")
@db_option
@handle_errors
def handoff(session_id: str | None, output: Path | None, db: Path | None) -> None:
    """A Markdown brief for whoever continues the work (or the next agent)."""
    from kb.graph import report

    with graph_store(db, session_id, False) as (store, scopes):
        text = report.handoff_markdown(store, scopes[0])
    if output:
        output.write_text(text + "\n")
        err.print(f"wrote {output}")
    else:
        sys.stdout.write(text + "\n")


@click.command()
@click.argument("ordinal", type=int, required=False)
@session_option
@click.option("--dead-end", "dead_end", metavar="REASON",
              help="The approach at ORDINAL is a dead end, for REASON.")
@click.option("--confirmed", "confirmed", is_flag=True, help="The approach at ORDINAL worked.")
@click.option("--hypothesis", metavar="NAME", help="ORDINAL starts an approach called NAME.")
@click.option("--link", nargs=2, metavar="A B",
              help="Relate two approaches (names or ordinals).")
@click.option("--note", metavar="TEXT", help="Attach a note to the approach at ORDINAL.")
@click.option("--revisit", metavar="WHY", help="Flag the approach at ORDINAL for a revisit.")
@click.option("--list", "list_", is_flag=True, help="List the annotations.")
@db_option
@json_option
@handle_errors
def mark(ordinal: int | None, session_id: str | None, dead_end: str | None, confirmed: bool,
         hypothesis: str | None, link: tuple[str, str] | None, note: str | None,
         revisit: str | None, list_: bool, db: Path | None, as_json: bool) -> None:
    """Annotate the graph by hand; annotations survive re-ingest and win over heuristics."""
    from kb.graph import store as gs

    chosen = [k for k, v in (("dead_end", dead_end), ("confirmed", confirmed),
                             ("hypothesis", hypothesis), ("link", link), ("note", note),
                             ("revisit", revisit)) if v]
    if list_:
        with open_store(db) as store:
            sid = store.resolve_session(session_id) if session_id else None
            rows = gs.annotations(store, sid)
        if as_json:
            emit_json(rows)
        for r in rows if not as_json else []:
            out.print(f"#{r['id']} {r['session_id']} {r['ordinal'] or ''} {r['kind']} "
                      f"{r['value'] or ''} {r['target'] or ''}", markup=False)
        return
    if len(chosen) != 1:
        raise click.UsageError("give exactly one of --dead-end, --confirmed, --hypothesis, "
                               "--link, --note, --revisit (or --list)")
    kind = chosen[0]
    if kind != "link" and ordinal is None:
        raise click.UsageError(f"--{kind.replace('_', '-')} needs an ORDINAL")
    value = {"dead_end": dead_end, "hypothesis": hypothesis, "note": note,
             "revisit": revisit, "confirmed": None}.get(kind)
    target = None
    if kind == "link":
        assert link is not None
        value, target = link
    with open_store(db, read_only=False) as store:
        sid = store.resolve_session(session_id)
        ann_id = gs.annotate(store, sid, ordinal, kind, value, target)
        gs.rebuild(store, gs.scope_of(store, sid))
    if as_json:
        emit_json({"id": ann_id, "session_id": sid, "ordinal": ordinal, "kind": kind,
                   "value": value, "target": target})
    else:
        out.print(f"annotation #{ann_id}: {kind} at {ordinal if ordinal is not None else '-'}"
                  f" in {sid}", markup=False)


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
        sid = store.resolve_session(session_id)
        n = gs.unannotate(store, sid, ordinal, ann_id, kind)
        gs.rebuild(store, gs.scope_of(store, sid))
    if as_json:
        emit_json({"removed": n})
    else:
        out.print(f"removed {n} annotation{'s' if n != 1 else ''}", markup=False)


@click.command()
@session_option
@click.option("--all", "all_scopes", is_flag=True,
              help="Every session [default when no --session is given].")
@click.option("--stale", is_flag=True,
              help="Only graphs derived by older rules or never derived.")
@db_option
@json_option
@handle_errors
def rebuild(session_id: str | None, all_scopes: bool, stale: bool, db: Path | None,
            as_json: bool) -> None:
    """Derive knowledge graphs again with the current extraction rules.

    Graphs derived by an older logkb are re-derived by the next command that reads
    them anyway; this does it on demand (all sessions, or one with --session).
    Annotations (logkb mark) are kept and applied again."""
    from kb.graph import store as gs
    from kb.graph.extract import EXTRACTOR_VERSION

    with open_store(db, read_only=False) as store:
        scopes = (gs.scopes(store) if all_scopes or session_id is None
                  else [gs.scope_of(store, store.resolve_session(session_id))])
        if stale:
            scopes = gs.outdated(store, scopes)
        done = derive(store, scopes, force=not stale)
    if as_json:
        emit_json({"extractor_version": EXTRACTOR_VERSION, "graphs": done})
    else:
        err.print(f"derived {len(done)} knowledge graph{'s' if len(done) != 1 else ''} "
                  f"(extraction rules v{EXTRACTOR_VERSION})", markup=False)


COMMANDS = (graph, deadends, untested, why, timeline, handoff, mark, unmark, rebuild)
