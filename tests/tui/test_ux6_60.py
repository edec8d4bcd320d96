"""The replay panel at 60 columns (ux6): its step table fits, readably."""

from __future__ import annotations

from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.cli_kb import invoke
from tui.app import make_app

from .conftest import screen_text, settle

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"
PI = "019ea801-f510-7d77-a631-019d14a93b3b"


@pytest.fixture
def pi_db(tmp_path: Path) -> Path:
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), "--wait", str(TRIM / "pi.jsonl"))
    assert r.exit_code == 0, r.stderr
    return db


async def test_replay_steps_fit_60_columns(pi_db: Path) -> None:
    """At 60 columns the action column showed only "s" (of "skip") and the command was out
    of view: the action word is whole and each command is in view, cut with an ellipsis."""
    from tui.screens import ReplayScreen

    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(60, 24)) as pilot:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        assert isinstance(app.screen, ReplayScreen)
        plan = app.screen.plan
        assert plan is not None and len(plan.steps) == 4
        lines = screen_text(pilot).splitlines()
        assert all(cell_len(ln) <= 60 for ln in lines)
        head = next(i for i, ln in enumerate(lines) if ln.lstrip().startswith("msg"))
        assert " action " in lines[head] + " " and " command" in lines[head], lines[head]
        rows = lines[head + 1: head + 1 + len(plan.steps)]
        for step, row in zip(plan.steps, rows):
            words = row.split()
            assert words[0] == str(step.ordinal), row
            assert step.action in words, row  # "skip" whole, never "s" or "ski"
            shown = row[lines[head].index(" command") + 1:].strip()
            whole = " ".join(step.recorded_command.split())
            assert len(shown) >= 12, row  # the command is in view, not a sliver of it
            if shown != whole:
                assert shown.endswith("…") and whole.startswith(shown[:-1]), (shown, whole)
