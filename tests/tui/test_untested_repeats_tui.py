"""The graph screen lists a call left untested again once, with its ordinals and count
(``fixtures/untested/opencode_stalled_again.json``: see tests/kb/test_untested_repeats.py)."""

from __future__ import annotations

from pathlib import Path

from textual.widgets import Tree

from tests.cli_kb import invoke
from tui.app import make_app
from tui.screens import GraphScreen

from .conftest import SIZE, settle

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "untested" / \
    "opencode_stalled_again.json"


async def test_graph_lists_the_repeated_untested_call_once(tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    assert invoke("ingest", "--wait", "--db", str(db), str(FIXTURE)).exit_code == 0
    app = make_app(db, session_id="ses_094543c98ffeLpQNuFXFVsZjKq", at=2)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        tree = app.screen.query_one(Tree)
        group = next(g for g in tree.root.children if "Untested questions" in str(g.label))
        assert "(1)" in str(group.label)
        rows = [str(n.label) for n in group.children]
        assert len(rows) == 1 and "×3 at 2, 4, 6" in rows[0], rows
