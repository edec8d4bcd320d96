"""Pilot: a session read from a rewrite says so in the session list and the title bar."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.ingest import ingest
from kb.store import KbStore
from tui.app import make_app
from tui.screens import SessionsScreen, TimelineScreen

from .conftest import screen_text, settle

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"


@pytest.fixture
def rewrite_db(tmp_path: Path) -> tuple[Path, str]:
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        report = ingest(store, [TRIM / "rewrite_claude.jsonl"])
    assert report.problems == [] and [s.form for s in report.sessions] == ["rewrite"]
    return db, report.sessions[0].session_id


@pytest.mark.parametrize("size", [(80, 24), (120, 40)])
async def test_the_list_and_the_title_bar_say_rewrite(rewrite_db: tuple[Path, str],
                                                      size: tuple[int, int]) -> None:
    db, sid = rewrite_db
    app = make_app(db)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        text = screen_text(pilot)
        assert "[rewrite]" in text and "not" in text.split("[rewrite]")[-1], text
    app = make_app(db, session_id=sid)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        assert "[rewrite of a claude-code session]" in screen_text(pilot)
