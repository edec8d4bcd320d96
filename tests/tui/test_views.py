"""``kb.views``: the timeline index, its pages, navigation, filters, details and counts."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb import views
from kb.store import KbStore
from kb.views import ROW_CALL, ROW_PROSE, TimelineFilter

from .conftest import CHILD, SESSION


@pytest.fixture(scope="module")
def store(tui_db: Path):  # type: ignore[no-untyped-def]
    with KbStore(tui_db, read_only=True) as s:
        yield s


@pytest.fixture(scope="module")
def index(store: KbStore) -> views.TimelineIndex:
    return views.timeline_index(store, SESSION)


def test_index_has_one_row_per_step(store: KbStore, index: views.TimelineIndex) -> None:
    calls = store.conn.execute("SELECT count(*) FROM calls WHERE session_id = ?",
                               [SESSION]).fetchone()[0]
    prose = store.conn.execute("SELECT count(*) FROM prose WHERE session_id = ?",
                               [SESSION]).fetchone()[0]
    assert len(index) == calls + prose
    assert index.max_ordinal == 5228
    keys = [index.key(i) for i in range(len(index))]
    assert keys == sorted(keys)


def test_position_of_and_exact_keys(index: views.TimelineIndex) -> None:
    pos = index.position_of(5216)
    assert index.key(pos) == (5216, 1, ROW_PROSE)
    call = index.position_of(5216, 2, ROW_CALL)
    assert index.key(call) == (5216, 2, ROW_CALL)
    assert index.position_of(10**9) == len(index) - 1
    assert index.contains(5216) and not index.contains(10**9)


def test_next_and_previous_failure_and_decision(index: views.TimelineIndex) -> None:
    at = index.position_of(5214)
    nxt = index.next_with(at, views.FAILURE)
    assert nxt is not None and index.key(nxt) == (5216, 2, ROW_CALL)
    assert index.key(index.next_with(nxt, views.FAILURE)) == (5217, 2, ROW_CALL)
    prev = index.next_with(at, views.FAILURE, forward=False)
    assert prev is not None and index.key(prev)[0] < 5214
    dec = index.next_with(index.position_of(5200), views.DECISION)
    assert dec is not None and index.key(dec)[0] == 5214  # the pivot
    assert len(index.positions(views.FAILURE)) == 6


def test_rows_of_a_page(store: KbStore, index: views.TimelineIndex) -> None:
    pos = index.position_of(5216)
    rows = views.timeline_rows(store, index, pos, pos + 4)
    call = rows[(5216, 2, ROW_CALL)]
    assert call.kind == "command" and call.category == "import-check"
    assert call.host == "10.1.230.174" and call.exit_code == 255 and call.failed
    assert call.signature == "ModuleNotFoundError: deep_ep" and call.signatures == 2
    assert call.text.startswith("/root/ml-env/bin/python3 -c")  # the remote command
    prose = rows[(5216, 1, ROW_PROSE)]
    assert prose.classification == "pivot" and prose.flags & views.PIVOT
    # its exit code is a reading of the call since derive v8 (the labels count them)
    assert views.flags_text(call.flags) == ["failure", "measured"]


@pytest.mark.parametrize("query, expect", [
    ("status:failed", 6),
    ("kind:prompt", 163),
    ("class:pivot", 2),
    ("host:local kind:todo", 9),
    ("cat:import-check", 2),
    ("class:dead-end,pivot kind:decision", 8),
    ("status:completed host:10.1.230.174", 4701),  # 103 `sleep N && ssh h …` have a host (issue 8)
    ("deep_ep", None),
])
def test_filters(store: KbStore, query: str, expect: int | None) -> None:
    f = TimelineFilter.parse(query)
    ix = views.timeline_index(store, SESSION, f)
    rows = views.timeline_rows(store, ix, 0, 128)
    assert sorted(rows) == [ix.key(i) for i in range(min(len(ix), 128))]
    if expect is not None:
        assert len(ix) == expect
    else:
        ords = {ix.key(i)[0] for i in range(len(ix))}
        assert {5216, 5217} <= ords
    assert TimelineFilter.parse(f.describe()) == f


def test_filter_parse_keeps_base_fields() -> None:
    base = TimelineFilter(kinds=("command",), text="old")
    f = TimelineFilter.parse("status:failed,error nccl", base)
    assert f == TimelineFilter(kinds=("command",), statuses=("failed", "error"), text="nccl")
    assert TimelineFilter().is_empty and not f.is_empty


def test_step_detail_of_the_deepep_check(store: KbStore) -> None:
    d = views.step_detail(store, SESSION, 5216, 2, ROW_CALL)
    assert [e.kind.value for e in d.focus] == ["command", "result"]
    result = d.focus[1]
    assert "ModuleNotFoundError" in (result.output or "")
    assert [h.nested for h in d.focus[0].hops] == [False, True]
    assert d.rationale and "deepep" in (d.rationale[0].text or "").lower()
    assert d.todos_at == 5214 and any("DeepEP" in t.content for t in d.todos)


def test_prose_before_stays_within_the_turn(store: KbStore, index: views.TimelineIndex) -> None:
    before = views.prose_before(store, SESSION, 5216, 1)
    assert [(e.ordinal, e.kind.value) for e in before] == [(5215, "decision")]
    prompts = [index.key(p) for p in index.positions(views.PROMPT)]
    o, seq, _ = prompts[-1]
    assert views.prose_before(store, SESSION, o, seq) == []  # nothing said since the prompt


def test_facets_and_counts(store: KbStore) -> None:
    f = views.facets(store, SESSION)
    assert ("failed", 6) in f.statuses
    assert dict(f.hosts)["10.1.230.174"] > 4000
    counts = views.session_counts(store)
    assert counts[SESSION] == {"failures": 6, "dead_ends": 6}
    assert counts[CHILD]["dead_ends"] == 0


def test_graph_view_marks_and_approaches(store: KbStore) -> None:
    assert views.graph_fresh(store, SESSION)
    gv = views.graph_view(store, SESSION)
    marks = views.marks(gv)
    assert marks[(SESSION, 5214)] == "pivot"
    assert marks[(SESSION, 4133)] == "dead_end"
    assert marks[(SESSION, 5222)] in ("blocked", "dead_end")
    assert marks[(SESSION, 5216)] == "untested"
    names = [a["label"] for a, roles in views.approaches_at(gv, SESSION, 5216)]
    assert "Expert Parallelism via DeepEP" in names
