"""The TUI at 80×24 in the ux2 release check (a pi session trimmed from the pool, so no
fixture campaign is built): what each bar shows whole."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.binding import Binding

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


async def test_footers_keep_help_back_and_quit_at_80(pi_db: Path) -> None:
    """At 80 columns the timeline's footer ended "d Next decision  g Graph" and the replay
    screen's "^r Refres": help, back and quit were the keys cut off.  The keys taken out
    of the footer still work and are all in the help."""
    from tui.screens import HelpScreen, ReplayScreen

    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        footer = screen_text(pilot).splitlines()[-1]
        for key in ("? Help", "/ Search", "n Next fail", "g Graph", "r Replay", "esc Back",
                    "q Quit"):
            assert key in footer, footer
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)  # the help lists every binding's words
        listed = {b.description for b in TimelineScreen.BINDINGS if isinstance(b, Binding)}
        assert {"Jump", "Filters", "Next decision", "Dead end", "Refresh"} <= listed
        await pilot.press("escape")
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        await pilot.press("colon")  # out of the footer, still bound
        await settle(pilot)
        assert app.screen.has_class("-jumping")
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReplayScreen)
        footer = screen_text(pilot).splitlines()[-1]
        for key in ("p Plan", "esc Back", "? Help", "q Quit"):
            assert key in footer, footer


async def test_graph_status_counts_agree_in_number(tmp_path: Path) -> None:
    """On the pool's CoinGecko session the graph's status line read "1 points" (and a
    session with one approach "1 approaches")."""
    import re

    from tui.screens import GraphScreen

    pool = Path(__file__).resolve().parents[3] / "shared" / "realworld" / "pool"
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), "--wait",
               str(pool / "blockchain-dex-events__claude-session.jsonl"))
    assert r.exit_code == 0, r.stderr
    app = make_app(db, session_id="da254fb0-10d6-4d61-a9e1-43b8455d4816")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        status = screen_text(pilot).splitlines()[-2]
        counts = re.findall(r"(\d+) (approach(?:es)?|points?|pivots?)\b", status)
        assert len(counts) == 3, status
        for n, word in counts:
            assert (n == "1") == (word in ("approach", "point", "pivot")), status


async def test_replay_steps_show_their_target_at_80(pi_db: Path) -> None:
    """The replay panel's step table cut its target column at 80 columns: header "tar",
    rows "loc" for local."""
    from tui.screens import ReplayScreen

    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReplayScreen)
        lines = screen_text(pilot).splitlines()
        head = next(ln for ln in lines if ln.lstrip().startswith("msg"))
        assert " target " in head.split("│")[0] + " ", head
        assert any(" local " in ln.split("│")[0] + " " for ln in lines), lines
