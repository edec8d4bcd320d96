"""The detail pane of a stat event (a turn's clock) shows its reading, not only its
name: ``labelled/Trezo-Ai__codex-session.jsonl``'s aborted turn, 187258 ms."""

from __future__ import annotations

from pathlib import Path

from kb import views
from kb.ingest import ingest
from kb.store import KbStore
from kb.views import ROW_OTHER
from tui.widgets.detail import DetailContext, plain, render_detail


def test_a_stat_events_detail_shows_its_reading(realworld: Path, tmp_path: Path) -> None:
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [realworld / "labelled" / "Trezo-Ai__codex-session.jsonl"])
        sid = store.resolve_session(None)
        index = views.timeline_index(store, sid)
        rows = views.timeline_rows(store, index, 0, len(index)).values()
        row = next(r for r in rows if r.src == ROW_OTHER and r.kind == "stat"
                   and "187258" in r.text)
        detail = views.step_detail(store, sid, row.ordinal, row.seq, row.src)
    text = plain(render_detail(detail, DetailContext()), width=80)
    assert "turn duration: 187258 ms (3.1 min)" in text
