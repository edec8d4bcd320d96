"""The TUI at 80×24 in the ux2 release check (a pi session trimmed from the pool, so no
fixture campaign is built): what each bar shows whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.cli_kb import invoke
from tui.app import make_app
from tui.screens import TimelineScreen

from .conftest import screen_text, settle

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"
PI = "019ea801-f510-7d77-a631-019d14a93b3b"


@pytest.fixture
def pi_db(tmp_path: Path) -> Path:
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), "--wait", str(TRIM / "pi.jsonl"))
    assert r.exit_code == 0, r.stderr
    return db


async def test_filter_bar_prompts_are_whole_at_80(pi_db: Path) -> None:
    """In the filter bar (`/`) at 80 columns "category" wrapped to "categ" / "ory"
    through the select's bottom border; the prompts are whole and the search box keeps
    its 20 columns."""
    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("slash")
        await settle(pilot)
        lines = screen_text(pilot).splitlines()
        row = next(i for i, ln in enumerate(lines) if "kind" in ln and "status" in ln)
        for prompt in ("kind", "category", "host", "status"):
            assert f" {prompt} " in lines[row], lines[row]
        # the bottom border is only border: no word spilled onto it
        assert not any(ch.isalpha() for ch in lines[row + 1]), lines[row + 1]
        assert all(cell_len(ln) <= 80 for ln in lines)
        assert app.screen.query_one("#search").size.width >= 20  # and the search has room
