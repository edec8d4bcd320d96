"""The TUI at 80×24 in the ux4 pass: a timeline row cut at the edge ends in ``…``, and the
graph's untested group counts what it lists (the answered questions are listed too)."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import Tree

from tests.cli_kb import invoke
from tui.app import make_app
from tui.screens import GraphScreen, TimelineScreen

from .conftest import screen_text, settle

LONG = "Checking the GPUs on the box before the run " + " ".join(
    f"because{i}" for i in range(20))


def _session(dst: Path) -> Path:
    """A check that timed out (ssh: a transport failure) and a later run that answered it."""
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(7), directory="/home/dev/ans", project_id="ab" * 20)
    s = SessionBuilder(ctx, title="check the gpu box", start_ms=1_790_000_000_000)
    s.user("Check the GPUs on the box")
    s.step(LONG, [bash("ssh gpu1 nvidia-smi -L",
                       "ssh: connect to host gpu1 port 22: Connection timed out\n",
                       exit_code=255)])
    s.step("The box did not answer; trying again.",
           [bash("ssh gpu1 nvidia-smi -L", "GPU 0: NVIDIA B200\n")])
    s.step("Done: one B200.")
    return write_jsonl(s.tree(), dst)


@pytest.fixture
def db(tmp_path: Path) -> Path:
    kb = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--wait", "--db", str(kb), str(_session(tmp_path / "s.jsonl")))
    assert r.exit_code == 0, r.stderr
    return kb


async def test_cut_rows_end_in_an_ellipsis_and_untested_counts_what_it_lists(db: Path
                                                                             ) -> None:
    app = make_app(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        if not isinstance(app.screen, TimelineScreen):
            await pilot.press("enter")
            await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        lines = screen_text(pilot).splitlines()
        row = next(ln for ln in lines if "Checking the GPUs" in ln)
        assert row.rstrip().endswith("…") and cell_len(row) <= 80, row
        assert all(cell_len(ln) <= 80 for ln in lines)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        tree = app.screen.query_one(Tree)
        group = next(g for g in tree.root.children if "Untested questions" in str(g.label))
        assert "(0 open · 1 answered)" in str(group.label), group.label
        (leaf,) = group.children
        assert "answered at 3" in str(leaf.label)


def test_status_words_fit_their_column() -> None:
    from tui.format import status_word

    assert status_word("interrupted", None, False)[0] == "stopped"
    for status in ("completed", "error", "interrupted", "aborted", "running", "in_progress",
                   "cancelled", "not_found", "a_status_nobody_wrote_yet"):
        assert len(status_word(status, 1, True)[0]) <= 8, status


async def test_an_interrupted_call_says_stopped_not_interrup(tmp_path: Path) -> None:
    """``fixtures/untested/codex_unfinished.jsonl``: calls the transcript ends on."""
    db = tmp_path / "kb.duckdb"
    src = Path(__file__).resolve().parents[2] / "fixtures" / "untested" / \
        "codex_unfinished.jsonl"
    assert invoke("ingest", "--wait", "--db", str(db), str(src)).exit_code == 0
    app = make_app(db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        if not isinstance(app.screen, TimelineScreen):
            await pilot.press("enter")
            await settle(pilot)
        text = screen_text(pilot)
        assert "stopped" in text and "interrup " not in text, text
