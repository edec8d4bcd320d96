"""The graph screen at 80 columns (ux7): what a user read wrong there."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Tree

from tests.cli_kb import invoke
from tui.app import make_app

from .conftest import settle

PI = "019ea801-f510-7d77-a631-019d14a93b3b"
SAME_ENDS = re.compile(r"(?<![\d.])(\d+)–\1(?![\d.])")


@pytest.fixture
def pi_db(tmp_path: Path, realworld: Path) -> Path:
    """The pool's pi session (civ6.ch): one of its approaches ends where it began."""
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), "--wait", str(realworld / "pool" / "civ6.ch__session.jsonl"))
    assert r.exit_code == 0, r.stderr
    return db


def _labels(tree: Tree[Any]) -> list[str]:
    out, stack = [], [tree.root]
    while stack:
        node = stack.pop()
        out.append(node.label.plain)
        stack.extend(node.children)
    return out


async def test_an_approach_ended_where_it_began_shows_one_ordinal(pi_db: Path) -> None:
    """An approach proposed and ended at the same message showed its span as "73–73": a
    span of one message is that message's ordinal."""
    from tui.screens.graph import GraphScreen

    app = make_app(pi_db, session_id=PI)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        await pilot.press("e")
        await settle(pilot)
        labels = _labels(app.screen.query_one(Tree))
        assert len(labels) > 3, labels
        same = [x for x in labels if SAME_ENDS.search(x)]
        assert same == [], same
        # the approach is still there, with its one ordinal
        assert any(re.search(r"  \d+$", x) or re.search(r"  \d+  ", x) for x in labels), labels
