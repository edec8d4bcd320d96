"""``logkb rebuild``: derive again what the knowledge base derives (the search index, the
knowledge graphs) from the stored rows.  Registered on the ``logkb`` group in :mod:`kb.cli`."""

from __future__ import annotations

import os
from pathlib import Path

import click

from kb.cli.tools import (
    db_option,
    emit_json,
    handle_errors,
    json_option,
    note,
    open_store,
    plural,
    resolve,
    session_option,
)
from kb.paths import default_db


@click.command()
@click.option("--events", "do_events", is_flag=True,
              help="Derive again, from their sources, the events of sessions derived by "
                   "older rules (error signatures, measurements, prose classes).")
@click.option("--index", "do_index", is_flag=True, help="Rebuild the full-text search index.")
@click.option("--graph", "do_graph", is_flag=True,
              help="Derive the knowledge graphs again with the current extraction rules.")
@session_option
@click.option("--all", "all_scopes", is_flag=True,
              help="Graphs of every session [default when no --session is given].")
@click.option("--stale", is_flag=True,
              help="Only graphs derived by older rules, never derived or owed by an "
                   "interrupted ingest.")
@db_option
@json_option
@handle_errors
def rebuild(do_events: bool, do_index: bool, do_graph: bool, session_id: str | None,
            all_scopes: bool, stale: bool, db: Path | None, as_json: bool) -> None:
    """Rebuild derived data: events derived by older rules, the knowledge graphs and the
    search index (all three by default).

    Events derived by older rules are derived again by the next ingest of their
    source, graphs derived by an older logkb by the next command that reads them,
    and a missing or stale index is brought up to date by the next search; this
    does it on demand.  Annotations (logkb mark) are kept and applied
    again.  --session narrows the events and the graphs to one session (the
    index is rebuilt whole)."""
    from kb.cli.graph import derive, one_or_all

    one_or_all(session_id, all_scopes)
    if not (do_events or do_index or do_graph):
        do_events = do_index = do_graph = True
    path = db if db is not None else default_db()
    report: dict[str, object] = {}
    only = None
    if session_id is not None:  # a session that is not there: said before any work
        with open_store(path) as store:  # ("derived again the events of 0 sessions", exit 0)
            session_id = only = resolve(store, session_id)
    if do_events:
        # the graph step below derives the graphs of what this ingests (they are owed)
        report["events"] = _rederive(path, as_json, graph=not do_graph, only=only)
    if do_graph:
        from kb.graph import ablate
        from kb.graph import store as gs
        from kb.graph.extract import EXTRACTOR_VERSION

        with open_store(path, read_only=False) as store:
            scopes = (gs.scopes(store) if all_scopes or session_id is None
                      else [gs.scope_of(store, resolve(store, session_id))])
            if stale:
                scopes = gs.unbuilt(store, scopes)
            done = derive(store, scopes, force=not stale)
        # the stamp the graphs carry: another one under the bench-only LOGKB_ABLATE
        report["extractor_version"] = ablate.stamp(EXTRACTOR_VERSION)
        report["graphs"] = done
        if not as_json:
            gone = [f for f in ablate.FAMILIES if f in ablate.switched_off()]
            note(f"derived {len(done)} knowledge graph{'s' if len(done) != 1 else ''} "
                 f"(extraction rules v{EXTRACTOR_VERSION}"
                 + (f"; families off: {', '.join(gone)})" if gone else ")"))
    if do_index:
        from kb.search.index import SearchIndex, index_dir

        with open_store(path) as store:
            rep = SearchIndex.for_db(path).rebuild(store)
        report["index"] = {"path": str(index_dir(path)), "sessions": rep["reindexed"],
                           "units": rep["units"]}
        if not as_json:
            note(f"search index: {plural(rep['reindexed'], 'session')}, "
                 f"{plural(rep['units'], 'unit')} "
                 f"→ {index_dir(path)}")
    if as_json:
        emit_json(report)


def _rederive(path: Path, as_json: bool, graph: bool,
              only: str | None = None) -> dict[str, object]:
    """Ingest again the sources of sessions whose events older rules derived (the ingest
    derives every message of a stale session again); a source that is gone keeps its
    sessions as they were derived.  ``only``: the source of that session alone."""
    from kb.ingest import ingest
    from logparse.derive import DERIVE_VERSION

    with open_store(path, read_only=False) as store:
        stale = [(p, sids) for p, sids in store.stale_sources(DERIVE_VERSION)
                 if only is None or only in sids]
        there = [Path(p) for p, _ in stale if Path(p).exists()]
        gone = [{"source": p, "sessions": sids} for p, sids in stale if not Path(p).exists()]
        rep = ingest(store, there, graph=graph) if there else None
    done = [s.session_id for s in rep.sessions] if rep is not None else []
    if not as_json:
        note(f"derived again the events of {len(done)} session{'s' if len(done) != 1 else ''}"
             f" (derivation rules v{DERIVE_VERSION})")
        for g in gone:
            n = len(g['sessions'])
            src = str(g['source'])
            if os.path.isabs(src):
                note(f"source gone, kept as derived: {src} "
                     f"({n} session{'s' if n != 1 else ''})")
            else:  # an older logkb stored the path as typed, from another directory
                note(f"source not found from here, kept as derived: {src} "
                     f"({n} session{'s' if n != 1 else ''}; stored relative to where it "
                     "was ingested: ingest it again by its path)")
    return {"derive_version": DERIVE_VERSION, "sessions": done, "sources_gone": gone}


COMMANDS = (rebuild,)
