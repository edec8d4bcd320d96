"""Pilot: a Claude Code session's timeline opens and reads like an opencode one."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.ingest import ingest
from kb.store import KbStore
from tui.app import make_app
from tui.screens import TimelineScreen
from tui.widgets import DetailPane, TimelineView

from .conftest import SIZE, screen_text, settle

RUST = "c7d3d95c-57f0-4359-8f4b-926a9bef5a3f"


@pytest.fixture
def claude_db(tmp_path: Path, realworld: Path) -> Path:
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        report = ingest(store, [realworld / "claude-code" / "python-to-rust-port"
                                / "transcript.jsonl"])
    assert report.problems == []
    return db


async def test_claude_code_timeline_opens_at_the_task_call(claude_db: Path) -> None:
    app = make_app(claude_db, session_id=RUST, at=4)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        view = app.screen.query_one(TimelineView)
        assert view.current_key is not None and view.current_key[0] == 4
        detail = app.screen.query_one(DetailPane).text
        assert "message 4" in detail and "cargo init --lib --name python_utils" in detail
        text = screen_text(pilot)
        assert "of 41" in text and "Explore Python project structure" in text
