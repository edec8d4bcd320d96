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


async def test_the_graph_status_says_one_dead_end(tmp_path: Path, realworld: Path) -> None:
    """The graph's status line said "1 dead ends/blocked" for a session with one (Rivo's
    Codex session at 80 columns)."""
    from tests.cli_kb import invoke
    from tests.tui.conftest import screen_text, settle
    from tui.app import make_app

    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), str(realworld / "pool" / "Rivo__codex-session.jsonl"))
    assert r.exit_code == 0, r.stderr
    r = invoke("deadends", "--db", str(db), "--json")
    assert len(r.stdout.splitlines()) == 1, r.stdout  # one dead end
    app = make_app(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        shown = screen_text(pilot)
        assert "1 dead end/blocked" in shown or "1 dead end or blocked" in shown, shown
        assert "1 dead ends" not in shown, shown
