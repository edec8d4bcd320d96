"""The full-text index (kb/search): same answers as the DuckDB scan, filters, phrases,
prefixes, staleness and rebuilds."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import orjson
import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.ingest import ingest
from kb.search import search
from kb.search.index import SearchIndex, index_dir
from kb.search.query import And, Match, Not, Or, QueryError, Range, Text, parse
from kb.search.scan import scan
from kb.store import KbStore

ALL = 1_000_000

EXACT = [
    "Host key verification failed",
    "KeyError: 12",
    "import deep_ep",
    "deep_ep",
    "10.1.230.174",
    "out of memory",
    "NCCL_ALGO=Tree",
    "cuda-graph-max-bs",
    "DEAD END",
]
SYNTAX = [
    "host:10.1.230.174 kind:result",
    "host:10.1.230.174 kind:command deep_ep",
    "flashinf*",
    '"import deep*"',
    "deep_ep OR deepep",
    "(NCCL AND Tree) NOT kind:prompt",
    "-kind:result deep_ep",
    "field:todo KeyError",
    "tool:bash ordinal:5214..5216",
    "kind:decision,prompt EAGLE",
]


def keys(hits: list[dict]) -> set[tuple]:
    return {(h["session_id"], h["ordinal"], h["seq"], h["field"]) for h in hits}


@pytest.fixture(scope="module")
def indexed(blackwell_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of the fixture knowledge base whose index is built by the first search."""
    db = tmp_path_factory.mktemp("search") / "kb.duckdb"
    shutil.copyfile(blackwell_db, db)
    assert not index_dir(db).exists()
    found = search(db, "deep_ep")
    assert found.engine == "index" and found.hits
    return db


@pytest.mark.parametrize("query", EXACT + SYNTAX)
def test_index_answers_what_the_scan_answers(indexed: Path, query: str) -> None:
    node = parse(query)
    with KbStore(indexed, read_only=True) as store:
        scanned = scan(store, node, limit=ALL)
    found = SearchIndex.for_db(indexed).search(node, limit=ALL)
    assert keys(found) == keys(scanned)
    assert scanned, f"{query!r} should match something in the fixture"


def test_exact_phrases_find_the_story(indexed: Path) -> None:
    hits = search(indexed, "Host key verification failed", limit=ALL).hits
    assert (5216, "output") in {(h["ordinal"], h["field"]) for h in hits}
    first = hits[0]
    a, b = first["highlights"][0]
    assert first["snippet"][a:b].lower() == "host key verification failed"
    # whole words: the phrase does not match inside longer words
    assert not search(indexed, "KeyError: 1", limit=ALL).hits
    assert search(indexed, "KeyError: 1*", limit=ALL).hits


def test_exact_words_agree_with_a_substring_scan_where_words_are_whole(indexed: Path) -> None:
    """For these queries every substring occurrence in the fixture is word-aligned, so the
    index finds exactly what the old case-insensitive substring scan found."""
    with KbStore(indexed, read_only=True) as store:
        for query in ("Host key verification failed", "KeyError: 12", "10.1.230.174"):
            import re

            scanned = scan(store, regex="(?i)" + re.escape(query), limit=ALL)
            assert keys(search(indexed, query, limit=ALL).hits) == keys(scanned), query


def test_field_filters(indexed: Path) -> None:
    hits = search(indexed, "host:10.1.230.174 kind:result", limit=ALL).hits
    assert hits and all(h["host"] == "10.1.230.174" and h["kind"] == "result" for h in hits)
    ranged = search(indexed, "ordinal:5214..5216", limit=ALL).hits
    assert {h["ordinal"] for h in ranged} <= {5214, 5215, 5216}
    assert {h["ordinal"] for h in ranged} >= {5214, 5216}
    sid = hits[0]["session_id"]
    scoped = search(indexed, f"session:{sid[:10]} deep_ep", limit=ALL).hits
    assert scoped and {h["session_id"] for h in scoped} == {sid}


def test_ranking_and_newest_first(indexed: Path) -> None:
    ranked = search(indexed, "deep_ep", limit=20).hits
    scores = [h["score"] for h in ranked]
    assert scores == sorted(scores, reverse=True) and scores[0] > 0
    newest = search(indexed, "deep_ep", limit=20, newest=True).hits
    times = [h["time"] or 0 for h in newest]
    assert times == sorted(times, reverse=True)
    assert keys(newest) != keys(ranked) or [h["ordinal"] for h in newest] != [
        h["ordinal"] for h in ranked]


def test_regex_scans(indexed: Path) -> None:
    found = search(indexed, r"deep_?ep\b", regex=True, limit=5)
    assert found.engine == "scan" and found.hits


def test_query_language() -> None:
    assert parse("KeyError: 12") == Text(("keyerror", "12"))
    assert parse("python -c x") == Text(("python", "c", "x"))
    assert parse("host:10.1.230.174 kind:result") == And((
        Match("host", ("10.1.230.174",)), Match("kind", ("result",))))
    assert parse("a OR b c") == Or((Text(("a",)), Text(("b", "c"))))
    assert parse("NOT kind:prompt x*") == And((Not(Match("kind", ("prompt",))),
                                               Text(("x",), prefix=True)))
    assert parse("ordinal:>=5214") == Range("ordinal", 5214, None)
    assert parse("ordinal:5..9") == Range("ordinal", 5, 9)
    assert parse("deep_e", prefix_last=True) == Text(("deep", "e"), prefix=True)
    assert parse("deep_ep") == parse("deep-ep") == Text(("deep", "ep"))
    for bad in ("(a", "a)", "ordinal:x", "NOT"):
        with pytest.raises(QueryError):
            parse(bad)


def _session_file(selftest: Path, tmp_path: Path, n: int | None) -> Path:
    doc = json.loads((selftest / "export.json").read_text())
    msgs = doc["messages"] if n is None else doc["messages"][:n]
    f = tmp_path / "session.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(m) for m in msgs) + b"\n")
    return f


def test_ingest_keeps_the_index_in_step(selftest: Path, tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    f = _session_file(selftest, tmp_path, 6)
    with KbStore(db) as store:
        ingest(store, [f])
    idx = SearchIndex.for_db(db)
    before = idx.search(parse("kind:command"), limit=ALL)
    with KbStore(db, read_only=True) as store:
        assert keys(before) == keys(scan(store, parse("kind:command"), limit=ALL))
    f = _session_file(selftest, tmp_path, None)
    with KbStore(db) as store:
        ingest(store, [f])  # the session grew: only its new units are added
        sid = store.resolve_session(None)
        assert idx.meta["sessions"][sid]["messages"][0] == 10
        assert idx.sync(store) == {"unchanged": 1, "grown": 0, "reindexed": 0, "removed": 0,
                                   "units": 0}
    after = idx.search(parse("kind:command"), limit=ALL)
    with KbStore(db, read_only=True) as store:
        assert keys(after) == keys(scan(store, parse("kind:command"), limit=ALL))
    assert len(after) > len(before)


def test_changed_message_reindexes_its_session(selftest: Path, tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    doc = json.loads((selftest / "export.json").read_text())
    f = tmp_path / "s.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(m) for m in doc["messages"]) + b"\n")
    with KbStore(db) as store:
        ingest(store, [f])
    assert not search(db, "zebracorn").hits
    text = next(p for p in doc["messages"][-1]["parts"] if p["type"] == "text")
    text["text"] = "Decision: the zebracorn backend after all."
    f.write_bytes(b"\n".join(orjson.dumps(m) for m in doc["messages"]) + b"\n")
    with KbStore(db) as store:
        ingest(store, [f])
    assert [h["ordinal"] for h in search(db, "zebracorn").hits] == [10]


def test_stale_or_missing_index_is_rebuilt(selftest: Path, tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [_session_file(selftest, tmp_path, None)])
    want = keys(search(db, "deep_ep", limit=ALL).hits)
    assert want
    idx = SearchIndex.for_db(db)
    assert idx.fresh_for(db)  # the search recorded the file it checked
    # a stale stamp (an ingest that could not update the index, say): caught up
    sid = next(iter(idx.meta["sessions"]))
    idx.meta["sessions"][sid] = {"session": ["old", 0, 0], "messages": [1, 1, 1]}
    idx.meta["db_stat"] = None
    idx._write_meta()
    found = search(db, "deep_ep", limit=ALL)
    assert found.engine == "index" and keys(found.hits) == want
    assert any("indexed" in n for n in found.notes)
    # no index at all: built again
    shutil.rmtree(index_dir(db))
    found = search(db, "deep_ep", limit=ALL)
    assert found.engine == "index" and keys(found.hits) == want
    # an index that cannot be used: the scan answers the same
    shutil.rmtree(index_dir(db))
    index_dir(db).write_text("not a directory")
    found = search(db, "deep_ep", limit=ALL)
    assert found.engine == "scan" and keys(found.hits) == want
    index_dir(db).unlink()


def test_rebuild_command(selftest: Path, tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [_session_file(selftest, tmp_path, None)])
    shutil.rmtree(index_dir(db))
    r = CliRunner().invoke(cli, ["rebuild", "--index", "--db", str(db), "--json"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.output
    rep = json.loads(r.stdout)
    assert rep["index"]["sessions"] == 1 and rep["index"]["units"] > 0
    assert "graph" not in rep
    r = CliRunner().invoke(cli, ["search", "deep_ep", "--db", str(db), "--json"])
    assert r.exit_code == 0 and [json.loads(x) for x in r.stdout.splitlines()]
    r = CliRunner().invoke(cli, ["search", "(deep_ep", "--db", str(db)])
    assert r.exit_code == 2


def test_documents_written_in_sql_are_those_built_in_python(indexed: Path) -> None:
    """The index's documents come from DuckDB (``unit_documents``) unless there are secrets
    to hide; they must be the documents :func:`unit_document` builds from the same units:
    the same fields, an absent tool/category/host left out, not null."""
    from kb.search.index import unit_document
    from kb.search.scan import unit_documents, units

    with KbStore(indexed, read_only=True) as store:
        sids = [r["session_id"] for r in store.sessions()]
        assert sids
        seen: list[dict] = []
        for sid in sids:
            for after in (None, 5):
                docs = unit_documents(store, sid, after)
                assert docs is not None  # nothing to hide in the fixture campaign
                got = [orjson.loads(d) for d in docs]
                want = [unit_document(r) for r in units(store, sid, after)]
                assert got == want
                assert not any(None in d.values() for d in got)
                seen += got
        assert any("host" in d for d in seen) and any("tool" not in d for d in seen)


def test_a_list_of_sessions_reads_each_sessions_units_in_order(indexed: Path) -> None:
    """Indexing sessions whole reads a run of them in one query (issue 28): the same units
    and documents, session after session in the list's order, each in its own query's
    order."""
    import random

    from kb.search import index as ix
    from kb.search.scan import unit_documents, units

    with KbStore(indexed, read_only=True) as store:
        sids = [r["session_id"] for r in store.sessions()]
        assert len(sids) >= 2
        random.Random(28).shuffle(sids)
        one_by_one = [u for sid in sids for u in units(store, sid)]
        assert one_by_one and list(units(store, sids)) == one_by_one
        docs = unit_documents(store, sids)
        assert docs is not None
        assert list(docs) == [d for sid in sids for d in unit_documents(store, sid) or ()]
    work = [("a", None, []), ("b", None, []), ("c", 3, []), ("d", None, []), ("e", None, []),
            ("f", None, [])]
    sizes = {"a": 10, "b": 10, "c": 10, "d": 10, "e": ix.RUN_EVENTS, "f": 5}
    assert list(ix._runs(work, sizes)) == [
        (["a", "b"], None), (["c"], 3), (["d"], None), (["e"], None), (["f"], None)]
