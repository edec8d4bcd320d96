"""The TUI at 80×24, 120×40 and 200×50 (issue 26): what a user needs is on screen.

At every size: the selected call's command, exit code and first error line show without
scrolling the timeline away, the category column stays, the graph's footer and status
line are drawn, the help scrolls to its last line.  Checked twice: with Pilot (Textual's
own compositor) and in a real terminal (tmux), whose pane is read as text.

The regression at message 5216 (commit 369b354): the detail pane of a selected call put
the prose that led to it first and dropped the call's ``▶`` section marks, so at 80×24
the Result (``exit 255``, ``Host key verification failed``) was below the fold.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from tests.newcomer_env import Tmux, home_env, logkb_argv
from tui.app import make_app
from tui.screens import GraphScreen, HelpScreen, TimelineScreen
from tui.widgets import DetailPane, TimelineView

from .conftest import SESSION, screen_text, settle

SIZES = [(80, 24), (120, 40), (200, 50)]


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_the_failing_call_is_readable_without_scrolling(tui_db: Path,
                                                             size: tuple[int, int]) -> None:
    app = make_app(tui_db, session_id=SESSION, at=5214)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("n")  # the first failure after the pivot: 5216's import check
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, TimelineScreen)
        assert screen.query_one(TimelineView).current_key == (5216, 2, 1)
        text = screen_text(pilot)
        head = next(ln for ln in text.splitlines() if " msg " in ln and "kind" in ln)
        assert "category" in head  # kept at 80 columns
        row = next(ln for ln in text.splitlines() if "5216" in ln and "exit 255" in ln)
        assert "import-check" in row
        # the detail: the command, its exit code and its first error, all in view
        assert "▶ Command" in text and "▶ Result" in text
        assert "$ /root/ml-env/bin/python3" in text
        assert "exit 255" in text.split("▶ Result")[1]
        assert "✘ ModuleNotFoundError: deep_ep" in text
        assert "✘ Host key verification failed" in text
        assert "message 5216 of 5228" in text  # the status line is not pushed off
        assert all(len(ln) <= size[0] for ln in text.splitlines())


async def test_detail_of_a_selected_call_puts_its_result_before_the_prose(
        tui_db: Path) -> None:
    """The regression test: section order and marks of the 5216 call's detail."""
    app = make_app(tui_db, session_id=SESSION, at=5214)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("n")
        await settle(pilot)
        detail = app.screen.query_one(DetailPane).text
        order = [detail.index(s) for s in ("▶ Command", "▶ Result", "Host key verification "
                                           "failed", "Command in full", "Why")]
        assert order == sorted(order), detail
        assert "nested ssh root@10.1.230.174" in detail  # the hops are still all there


@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
async def test_graph_footer_and_help_fit(tui_db: Path, size: tuple[int, int]) -> None:
    app = make_app(tui_db, session_id=SESSION, at=5216)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        lines = screen_text(pilot).splitlines()
        assert "approaches" in lines[-2] and "dead ends" in lines[-2]  # the status line
        assert "esc Back" in lines[-1] and "q Quit" in lines[-1]  # the footer
        assert any("cause: deep_ep not installed" in ln for ln in lines)
        await pilot.press("escape")
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)
        assert isinstance(app.screen, HelpScreen)
        for _ in range(60):
            await pilot.press("down")
        await settle(pilot)
        text = screen_text(pilot)
        assert "escape closes" in text and "Quit" in text  # scrolled to the end


async def test_sessions_screen_names_agents_at_80x24(tui_db: Path) -> None:
    app = make_app(tui_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        text = screen_text(pilot)
        assert "agent" in text and "opencode" in text
        assert all(len(ln) <= 80 for ln in text.splitlines())


# --------------------------------------------------------------------- tmux
@pytest.mark.parametrize("size", SIZES, ids=lambda s: f"{s[0]}x{s[1]}")
def test_every_screen_in_a_real_terminal(tui_db: Path, isolated_home: Path,
                                         size: tuple[int, int], tmp_path: Path) -> None:
    """One capture per screen (sessions, timeline, graph, help), read for what a user
    needs; the 80×24 captures are written to ``captures/`` beside the test's files."""
    if shutil.which("tmux") is None:
        pytest.fail("tmux is needed (Debian package tmux)")
    term = Tmux(f"small-{size[0]}", home_env(isolated_home))
    shots: dict[str, str] = {}
    try:
        term.start(logkb_argv(["tui", "--db", str(tui_db)]), size)
        shots["sessions"] = term.wait_for("We have 8x RTX", "agent", "opencode")
        term.keys("Enter")
        term.wait_for("of 5228")
        term.keys(":")
        term.wait_for("go to message")
        term.keys("5214")
        term.wait_for("5214")
        term.keys("Enter")
        term.wait_for("message 5214 of 5228")
        term.keys("n")
        shots["timeline"] = pane = term.wait_for("message 5216 of 5228", "▶ Result")
        assert "$ /root/ml-env/bin/python3" in pane  # the command
        assert "exit 255" in pane.split("▶ Result")[1]  # its exit code
        assert "ModuleNotFoundError: deep_ep" in pane  # the first error line
        assert "Host key verification failed" in pane
        assert "category" in pane and "import-check" in pane
        term.keys("g")
        shots["graph"] = pane = term.wait_for("cause: deep_ep not installed", "esc Back")
        assert "approaches" in pane and "q Quit" in pane
        term.keys("Escape")  # alone: escape then a key at once would be alt+key
        term.wait_gone("cause: deep_ep not installed")
        term.wait_for("message 5216 of 5228")
        term.keys("?")
        term.wait_for("Help ·")
        term.keys("End")  # the help scrolls (arrows and page keys too)
        shots["help"] = term.wait_for("escape closes")
    finally:
        term.close()
    for name, pane in shots.items():
        rows = pane.splitlines()
        assert len(rows) <= size[1] and all(len(r) <= size[0] for r in rows), name
    if size == (80, 24):
        out = tmp_path / "captures"
        out.mkdir()
        for name, pane in shots.items():
            (out / f"{name}-80x24.txt").write_text(pane)
