"""The dead-end graph at 80×24 and 60×20 (ux5): the tree of dead ends gets the screen.

On the pool's blockchain-dex-events session (11 dead ends, one measured reading) the
graph screen gave 12 of 24 rows to a chart of one point, left the tree 8 rows (4 at
60×20) and titled the lone point "best".
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rich.cells import cell_len
from textual.widgets import Tree

from tests.cli_kb import invoke
from tui.app import make_app
from tui.screens import GraphScreen, TimelineScreen
from tui.widgets.throughput import ThroughputChart

from .conftest import screen_text, settle

CLAUDE = "blockchain-dex-events__claude-session.jsonl"


@pytest.fixture
def pool_db(tmp_path: Path, realworld: Path) -> Path:
    kb = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--wait", "--db", str(kb), str(realworld / "pool" / CLAUDE))
    assert r.exit_code == 0, r.stderr
    return kb


def _bench_session(dst: Path) -> Path:
    """Three benchmark runs that print a rate, with dead ends between them."""
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(5), directory="/home/dev/b", project_id="ef" * 20)
    s = SessionBuilder(ctx, title="make the server faster", start_ms=1_790_000_000_000)
    s.user("Make the server faster")
    for i, rate in enumerate((812.5, 790.25, 1204.75)):
        s.step(f"Benchmark run {i}.", [bash("wrk -t2 -c10 http://127.0.0.1:8080/",
                                            f"Requests/sec: {rate}\n")])
    s.step("Done.")
    return write_jsonl(s.tree(), dst)


async def _graph(app, pilot) -> GraphScreen:  # type: ignore[no-untyped-def]
    await settle(pilot)
    if not isinstance(app.screen, TimelineScreen):
        await pilot.press("enter")
        await settle(pilot)
    await pilot.press("g")
    await settle(pilot)
    assert isinstance(app.screen, GraphScreen)
    return app.screen


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_one_reading_leaves_the_screen_to_the_dead_ends(pool_db: Path,
                                                             size: tuple[int, int]) -> None:
    app = make_app(pool_db)
    async with app.run_test(size=size) as pilot:
        screen = await _graph(app, pilot)
        assert not screen.query_one(ThroughputChart).display
        tree = screen.query_one(Tree)
        assert tree.size.height >= size[1] - 5, tree.size
        text = screen_text(pilot)
        assert "best 5" not in text
        assert "Chart span" not in text.splitlines()[-1]  # no chart: no key for it
        assert all(cell_len(ln) <= size[0] for ln in text.splitlines())


@pytest.mark.parametrize("size", [(80, 24), (60, 20)], ids=lambda s: f"{s[0]}x{s[1]}")
async def test_a_series_leaves_the_tree_most_of_a_small_screen(tmp_path: Path,
                                                               size: tuple[int, int]) -> None:
    kb = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--wait", "--db", str(kb), str(_bench_session(tmp_path / "s.jsonl")))
    assert r.exit_code == 0, r.stderr
    app = make_app(kb)
    async with app.run_test(size=size) as pilot:
        screen = await _graph(app, pilot)
        chart = screen.query_one(ThroughputChart)
        assert chart.display
        tree = screen.query_one(Tree)
        assert tree.size.height > chart.size.height, (tree.size, chart.size)
        text = screen_text(pilot)
        assert "best 1204.75" in text, text
        assert "Chart span" in text.splitlines()[-1]


async def test_the_status_line_is_fitted_again_after_a_resize(pool_db: Path) -> None:
    """Opened at 80 columns, then narrowed to 60: the counts kept the 80-column wording,
    cut at the edge; they take the wording that fits."""
    app = make_app(pool_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await _graph(app, pilot)
        await pilot.resize_terminal(60, 20)
        await settle(pilot)
        status = screen_text(pilot).splitlines()[-2].rstrip()
        assert status.endswith("0 untested") and "…" not in status, status
        assert cell_len(status) <= 60


async def test_the_timeline_marks_an_injected_prompt(pool_db: Path) -> None:
    """The first row read ``prompt  <system-reminder>`` like the user's own request."""
    app = make_app(pool_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        if not isinstance(app.screen, TimelineScreen):
            await pilot.press("enter")
            await settle(pilot)
        lines = screen_text(pilot).splitlines()
        first = next(ln for ln in lines if "<system-reminder>" in ln)
        assert first.split()[:3] == ["1", "prompt", "injected"], first
        second = next(ln for ln in lines if "new take-home" in ln)
        assert "injected" not in second
