"""Pilot: tokens and cost in the session list and a session's title bar (issue 27): the
total counts cache reads and writes, the cost is priced from the model's list price, and a
model without a price says "unknown", never $0."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.ingest import ingest
from kb.store import KbStore
from tests.unpriced import unpriced_scout
from tui.app import make_app
from tui.screens import TimelineScreen

from .conftest import SIZE, screen_text, settle

RAIN = "33c772d9-b322-4f61-a37d-7d5634a80b45"  # claude-opus-4-5: priced
SCOUT = "019f522f-ea1b-7622-b951-584ce660e69d"  # renamed to a model with no price


@pytest.fixture
def usage_db(tmp_path: Path, realworld: Path) -> Path:
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [realworld / "labelled" / "will-it-rain__claude.jsonl",
                       unpriced_scout(tmp_path)])
    return db


def _row(text: str, needle: str) -> str:
    rows = [line for line in text.splitlines() if needle in line]
    assert rows, text
    return rows[0]


async def test_session_list_shows_tokens_and_cost(usage_db: Path,
                                                  monkeypatch: pytest.MonkeyPatch,
                                                  tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no user prices
    app = make_app(usage_db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        text = screen_text(pilot)
        rain = _row(text, "I want you to create")
        assert "12M" in rain and "$10.03" in rain  # 11.9M cache read + 403k one-hour cache writes
        scout = _row(text, "Set up ZenMux")
        assert "159k" in scout and "unknown" in scout and "$0" not in scout


async def test_timeline_title_shows_tokens_and_cost(usage_db: Path,
                                                    monkeypatch: pytest.MonkeyPatch,
                                                    tmp_path: Path) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    app = make_app(usage_db, session_id=SCOUT)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        text = screen_text(pilot)
        assert "159k tokens · cost unknown" in text, text
