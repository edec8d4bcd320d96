"""``logkb rebuild``: derive again what the knowledge base derives (the search index, the
knowledge graph) from the stored rows.  Registered on the ``logkb`` group in :mod:`kb.cli`."""

from __future__ import annotations

from pathlib import Path

import click

from kb.cli.tools import db_option, emit_json, err, handle_errors, json_option, open_store
from kb.paths import default_db


@click.command()
@click.option("--index", "do_index", is_flag=True, help="Rebuild the full-text search index.")
@click.option("--graph", "do_graph", is_flag=True,
              help="Rebuild the knowledge graph of every session.")
@db_option
@json_option
@handle_errors
def rebuild(do_index: bool, do_graph: bool, db: Path | None, as_json: bool) -> None:
    """Rebuild derived data: the search index and the knowledge graph (both by default)."""
    if not (do_index or do_graph):
        do_index = do_graph = True
    path = db if db is not None else default_db()
    report: dict[str, object] = {}
    if do_index:
        from kb.search.index import SearchIndex, index_dir

        with open_store(path) as store:
            rep = SearchIndex.for_db(path).rebuild(store)
        report["index"] = {"path": str(index_dir(path)), "sessions": rep["reindexed"],
                           "units": rep["units"]}
        if not as_json:
            err.print(f"search index: {rep['reindexed']} sessions, {rep['units']} units "
                      f"→ {index_dir(path)}", markup=False)
    if do_graph:
        try:
            from kb.graph.store import rebuild_all
        except ImportError:  # pragma: no cover - a build without the graph
            rebuild_all = None
        if rebuild_all is not None:
            with open_store(path, read_only=False) as store:
                scopes = rebuild_all(store, force=True)
            report["graph"] = {"scopes": scopes}
            if not as_json:
                err.print(f"knowledge graph: {len(scopes)} scopes rebuilt", markup=False)
    if as_json:
        emit_json(report)


COMMANDS = (rebuild,)
