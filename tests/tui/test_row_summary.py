"""A timeline row says what ran first and what it measured after it; the harness's own
readings (a Codex call's wall time) are not in it.  ``labelled/Trezo-Ai__codex-session
.jsonl``: message 59 runs ``wc -l …`` and reads ``total: 1108 lines``."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb import views
from kb.store import KbStore
from kb.views import ROW_CALL
from tests.cli_kb import invoke
from tui.app import make_app
from tui.widgets.timeline_view import TimelineView

from .conftest import settle

TREZO = "019daa66-5b7b-7b01-b9ce-b527014cc09f"


@pytest.fixture
def trezo_db(tmp_path: Path, realworld: Path) -> Path:
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db),
               str(realworld / "labelled" / "Trezo-Ai__codex-session.jsonl"))
    assert r.exit_code == 0, r.stderr
    return db


async def test_a_row_leads_with_the_command_not_the_reading(trezo_db: Path) -> None:
    with KbStore(trezo_db, read_only=True) as store:
        index = views.timeline_index(store, TREZO)
        rows = views.timeline_rows(store, index, 0, len(index))
    (key, row), = [(k, r) for k, r in rows.items() if k[2] == ROW_CALL and k[0] == 59]
    assert row.measurement == "total: 1108 lines" and row.text.startswith("wc -l ")
    app = make_app(trezo_db, session_id=TREZO)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(TimelineView)
        assert view.index is not None
        pos = view.index.position_of(key[0], key[1], key[2])
        for width in (100, 160):
            line = "".join(s.text for s in view._render_row(pos, key, row, width, False))
            assert len(line) == width
            assert "wc -l" in line and "◆ total: 1108 lines" in line, line
            assert line.index("wc -l") < line.index("◆"), line  # the command first
        assert "wall time" not in line


async def test_a_listing_s_row_shows_no_reading(tmp_path: Path, realworld: Path) -> None:
    """``ls -la …/src/`` (labelled/pfm-categorization, message 23) read the sizes of the
    files it listed; the row showed "◆ Dockerfile: 687 B" (the sizes of the files with
    an extension were known for a listing's, the one without was not).  A call whose
    readings are all the harness's or a listing's shows none."""
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db),
               str(realworld / "labelled" / "pfm-categorization__opencode-session.json"))
    assert r.exit_code == 0, r.stderr
    with KbStore(db, read_only=True) as store:
        (sid,) = [s for (s,) in store.conn.execute(
            "SELECT session_id FROM sessions").fetchall()]
        index = views.timeline_index(store, sid)
        rows = views.timeline_rows(store, index, 0, len(index))
        (meas,) = store.conn.execute(
            "SELECT measurements FROM calls WHERE session_id = ? AND ordinal = 23 AND "
            "command LIKE 'ls -la %'", [sid]).fetchone()
    assert {m["label"] for m in meas} >= {"Dockerfile", "Program.cs", "paths listed"}
    (key, row), = [(k, r) for k, r in rows.items() if k[2] == ROW_CALL and k[0] == 23
                   and r.text.startswith("ls -la ")]
    assert row.measurement is None and row.measurements == 0
    app = make_app(db, session_id=sid)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        view = app.screen.query_one(TimelineView)
        assert view.index is not None
        pos = view.index.position_of(key[0], key[1], key[2])
        line = "".join(s.text for s in view._render_row(pos, key, row, 80, False))
        assert "ls -la" in line and "◆" not in line and "Dockerfile" not in line, line
    r = invoke("measurements", "--db", str(db), "--session", sid, "--json")
    assert "Dockerfile" not in r.stdout
    r = invoke("measurements", "--db", str(db), "--session", sid, "--json", "--harness")
    assert "Dockerfile" in r.stdout  # asked for, shown
