"""The graph screen at 80x24 (ux8): faults the ux7 user pass left."""

from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import Tree

from tests.cli_kb import invoke
from tui.app import make_app

from .conftest import PI, screen_text, settle


async def test_graph_tree_labels_end_in_an_ellipsis_not_a_scrollbar(pi_db: Path) -> None:
    """At 80x24 the graph tree's long labels ran past its pane (the tree scrolled
    sideways) and its horizontal scrollbar showed as a stray "▌": every label is cut to
    the pane's width with "…", so nothing scrolls sideways and no scrollbar shows."""
    from tui.screens.graph import GraphScreen

    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        await pilot.press("e")
        await settle(pilot)
        tree = app.screen.query_one(Tree)
        room = tree.scrollable_content_region.width
        assert tree.virtual_size.width <= room, (tree.virtual_size.width, room)
        assert tree.max_scroll_x == 0
        assert not tree.horizontal_scrollbar.display or not tree.show_horizontal_scrollbar
        region = tree.region
        rows = screen_text(pilot).splitlines()[region.y:region.bottom]
        shown = [r[region.x:region.right] for r in rows]
        assert any(r.rstrip(" ▊▌│").endswith("…") for r in shown), shown
        assert not any("▌" in r for r in shown), shown


@pytest.fixture
def rewrite_db(tmp_path: Path, realworld: Path) -> Path:
    """The pool's rewrite of a Codex session: text only, no calls, no graph."""
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), "--wait",
               str(realworld / "pool" / "trade_arena__codex-session.jsonl"))
    assert r.exit_code == 0, r.stderr
    return db


async def test_an_empty_graph_of_a_rewrite_says_why(rewrite_db: Path) -> None:
    """A rewrite session's graph screen showed its title and nothing under it, the story
    pane "select an approach" with nothing to select: the pane says why there is
    nothing (a rewrite keeps its messages as text: no commands, no results)."""
    from tui.screens.graph import GraphScreen

    app = make_app(rewrite_db, session_id="trade_arena__codex-session-dba07dc1")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        said = " ".join(screen_text(pilot).replace("│", " ").split())
        assert "select an approach" not in said, said
        assert "rewrite" in said and "no commands" in said, said
