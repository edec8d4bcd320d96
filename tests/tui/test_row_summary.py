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
