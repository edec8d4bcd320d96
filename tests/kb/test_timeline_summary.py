"""What a timeline row says: the command first, never the harness's own readings (a
Codex call's wall time, a cut output's size) ahead of it; a stat event's reading beside
its name.  Real sessions: ``pool/Rivo__codex-session.jsonl``,
``labelled/Trezo-Ai__codex-session.jsonl``, ``pool/FundWise__claude-session.jsonl``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kb import views
from kb.ingest import ingest
from kb.store import KbStore
from kb.views import ROW_CALL, ROW_OTHER
from logparse.measure_plumbing import is_harness_reading

SESSIONS = ("pool/Rivo__codex-session.jsonl", "labelled/Trezo-Ai__codex-session.jsonl",
            "pool/FundWise__claude-session.jsonl")


@pytest.fixture(scope="module")
def db(realworld: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("summary") / "kb.duckdb"
    with KbStore(path) as store:
        ingest(store, [realworld / s for s in SESSIONS])
    return path


def _rows(store: KbStore, prefix: str) -> list[views.TimelineRow]:
    sid = store.resolve_session(prefix)
    index = views.timeline_index(store, sid)
    return list(views.timeline_rows(store, index, 0, len(index)).values())


@pytest.mark.parametrize("prefix", ["019de7fa", "019daa66"])  # Rivo, Trezo-Ai (Codex)
def test_a_codex_rows_summary_leaves_the_harness_readings_out(db: Path, prefix: str) -> None:
    with KbStore(db, read_only=True) as store:
        calls = [r for r in _rows(store, prefix) if r.src == ROW_CALL]
        sid = store.resolve_session(prefix)
        # the harness's readings are still stored with the call (detail, --json)
        walls = store.conn.execute(
            "SELECT count(*) FROM calls WHERE session_id = ? AND list_contains("
            "list_transform(measurements, lambda m: m.label), 'wall time')", [sid]).fetchone()[0]
    assert walls > 0 and calls
    for r in calls:
        label = (r.measurement or "").partition(":")[0]
        assert "wall time" not in (r.measurement or "")
        assert not r.measurement or not is_harness_reading(label, None)


def test_a_stat_rows_summary_has_its_reading(db: Path) -> None:
    with KbStore(db, read_only=True) as store:
        stats = [r for r in _rows(store, "019daa66") if r.src == ROW_OTHER
                 and r.kind == "stat"]
    turns = [r.text for r in stats if r.text.startswith("turn duration")]
    # Trezo-Ai: the aborted turn's clock, read as minutes beside the reading
    assert "turn duration: 187258 ms (3.1 min)" in turns
    assert all(t != "turn duration" for t in turns)


def test_the_harness_predicate_loads_no_networkx() -> None:
    code = ("import sys, logparse.measure_plumbing as m, kb.views; "
            "from kb.graph.report import is_harness_reading as old; "
            "assert old is m.is_harness_reading")
    subprocess.run([sys.executable, "-c", code], check=True)
    light = ("import sys, logparse.measure_plumbing, kb.views; "
             "assert 'networkx' not in sys.modules, 'networkx loaded'")
    subprocess.run([sys.executable, "-c", light], check=True)
