"""TUI faults a user pass found (ux14), at 80x24."""

from __future__ import annotations

from pathlib import Path


async def test_the_replay_summary_counts_steps_as_the_cli_does(tui_db: Path) -> None:
    """The replay screen said "12 commands: 3 to run", counting todo lists and a
    sub-agent's call as commands, and not saying that the three only read.  It counts
    as ``logkb replay plan`` does: steps are recorded tool calls, what runs by safety
    class, what replay never re-runs by tool."""
    from textual.widgets import Input, Static

    from tests.tui.conftest import settle
    from tui.app import make_app

    app = make_app(tui_db, at=5214)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        hosts = app.screen.query_one("#replay-hosts", Input)
        hosts.value = "10.1.230.174=local"
        hosts.focus()
        await pilot.press("enter")
        await settle(pilot)
        said = str(app.screen.query_one("#replay-summary", Static).render())
        said = " ".join(said.split())
        assert "commands:" not in said, said
        assert "12 steps, one per recorded tool call: 3 to run, 9 skipped" in said, said
        assert "to run: all 3 read-only (3 shell commands)" in said, said
        assert "never re-run by replay: " in said and "todowrite" in said, said
