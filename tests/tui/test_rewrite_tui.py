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


async def test_the_headers_name_a_rewrite_by_its_short_id(
        rewrite_db: tuple[Path, str]) -> None:
    """A rewrite's id is its file's name (``trade_arena__claude-session-68d55ac0`` in the
    pool): the graph's header showed all of it.  Every header names the session by its
    short id, as ``logkb sessions`` prints it, opened with ``--session`` or from the list."""
    from tui.screens.graph import GraphScreen

    db, sid = rewrite_db
    with KbStore(db, read_only=True) as store:
        short = store.short_ids()[sid]
    assert short != sid
    for start in (sid, None):
        app = make_app(db, session_id=start)
        async with app.run_test(size=(80, 24)) as pilot:
            await settle(pilot)
            if start is None:
                await pilot.press("enter")
                await settle(pilot)
            assert isinstance(app.screen, TimelineScreen)
            head = screen_text(pilot).splitlines()[0]
            assert head.strip().endswith(f"logkb — {short}") and sid not in head, head
            await pilot.press("g")
            await settle(pilot)
            assert isinstance(app.screen, GraphScreen)
            head = screen_text(pilot).splitlines()[0]
            assert head.strip().endswith(f"graph · {short}") and sid not in head, head


async def test_the_session_filter_finds_what_the_agent_column_shows(
        rewrite_db: tuple[Path, str]) -> None:
    """Typing ``codex`` in the sessions filter found nothing though the agent column
    said codex: the filter read the title, id and directory only."""
    db, _ = rewrite_db
    app = make_app(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, SessionsScreen)
        from textual.widgets import DataTable

        table = app.screen.query_one(DataTable)
        await pilot.press("slash", *"claude-code")
        await settle(pilot)
        assert table.row_count == 1 and "claude-code" in screen_text(pilot)
        await pilot.press(*["backspace"] * 11, *"codex")
        await settle(pilot)
        assert table.row_count == 0
