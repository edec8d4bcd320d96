"""What a new user sees at 80×24 (the ux pass over real sessions): the figures that
matter are not the part that is cut, and every mark on screen is explained."""

from __future__ import annotations

import json
from pathlib import Path

from rich.cells import cell_len

from tui.app import make_app
from tui.screens import TimelineScreen

from .conftest import SESSION, screen_text, settle


async def test_timeline_title_bar_keeps_tokens_and_cost_at_80(tui_db: Path) -> None:
    """The title bar used to put the whole title first: at 80 columns the tokens and
    the cost (the figures) were cut off the end."""
    app = make_app(tui_db, session_id=SESSION, at=5214)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, TimelineScreen)
        bar = screen_text(pilot).splitlines()[1]
        assert cell_len(bar) <= 80
        assert "tokens" in bar and "msgs" in bar, bar
        assert bar.rstrip().endswith(("$" + bar.rsplit("$", 1)[-1].strip(), "unknown")), bar
        assert "We have" in bar and "…" in bar  # the title is cut, not dropped


async def test_session_list_explains_a_dead_end_count_not_made_yet(rw_db: Path,
                                                                    tmp_path: Path) -> None:
    """A session whose graph was never built showed "·" in the dead column, unexplained
    (and the status line was cut at 80 columns, explaining a "*" not on screen)."""
    from tests.cli_kb import invoke, markup_session

    src = markup_session(tmp_path / "markup.jsonl")
    assert invoke("ingest", "--db", str(rw_db), str(src)).exit_code == 0
    app = make_app(rw_db)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        lines = screen_text(pilot).splitlines()
        row = next(ln for ln in lines if "[bold]hi" in ln)
        assert " – " in row and " · " not in row, row
        status = lines[-2]
        assert "not counted" in status and "…" not in status, status
        assert all(cell_len(ln) <= 80 for ln in lines)


async def test_graph_screen_chart_title_and_status_fit_80(tui_db: Path) -> None:
    """At 80 columns plotext dropped the chart's title (too wide for the plot: no label,
    no unit, no best value on screen), the axis read "4035.0" for message ordinals, and
    the status line was cut ("295 throughput")."""
    from tui.screens import GraphScreen

    app = make_app(tui_db, session_id=SESSION, at=5216)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)
        assert isinstance(app.screen, GraphScreen)
        text = screen_text(pilot)
        assert "(tok/s) · best 89.5 at 5224" in text, text
        assert ".0 " not in text.split("(tok/s)")[1]
        status = text.splitlines()[-2]
        assert status.rstrip().endswith("295 points"), status


def test_timeline_help_explains_every_mark_a_row_can_show() -> None:
    """◆ (a measurement) and the marks of superseded approaches and of annotations
    (↷ ✎ ↺ ◇) showed in the timeline with no word about them in its help."""
    from tui.format import MARK

    for glyph in ["◆", *(g for g, _ in MARK.values())]:
        assert glyph in TimelineScreen.HELP, glyph


async def test_the_apps_own_graph_build_is_not_announced_as_new_data(
        rw_db: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Opening a session whose graph was never built wrote the file; the follower then
    took the app's own write for another process's and toasted "new data" (and read
    every screen again) right after "knowledge graph rebuilt from new data".  That first
    build is no news either: ingest leaves every graph to its first reader, so on a fresh
    knowledge base each session opened said "rebuilt from new data"."""
    from tests.cli_kb import invoke, markup_session
    from tui.app import LogkbApp

    src = markup_session(tmp_path / "markup.jsonl")
    assert invoke("ingest", "--db", str(rw_db), str(src)).exit_code == 0
    rows = [json.loads(x) for x in invoke("sessions", "--json", "--db",
                                          str(rw_db)).stdout.splitlines()]
    sid = next(r["id"] for r in rows if "[bold]" in r["title"])
    monkeypatch.setattr(LogkbApp, "FOLLOW_SECONDS", 0.3)
    said: list[str] = []  # every toast (they expire from the app's list)
    toast = LogkbApp.notify
    monkeypatch.setattr(LogkbApp, "notify", lambda self, message, **kw: (
        said.append(message), toast(self, message, **kw))[1])
    app = make_app(rw_db, session_id=sid, idle=1.0)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot, quiet=0.4)
        for _ in range(30):  # follower ticks, and the idle release (its checkpoint)
            await pilot.pause(0.1)
        await settle(pilot)
        assert app.graphs_shown  # the graph was built and shown
        assert not [m for m in said if "new data" in m], said


async def test_an_annotation_is_not_announced_as_new_data(
        rw_db: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Marking a step (``c``: confirmed) wrote the file; the follower then toasted
    "new data" after "message … marked confirmed" and read every screen again."""
    from tui.app import LogkbApp

    monkeypatch.setattr(LogkbApp, "FOLLOW_SECONDS", 0.3)
    said: list[str] = []
    toast = LogkbApp.notify
    monkeypatch.setattr(LogkbApp, "notify", lambda self, message, **kw: (
        said.append(message), toast(self, message, **kw))[1])
    app = make_app(rw_db, session_id=SESSION, at=5216, idle=1.0)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot, quiet=0.4)
        for _ in range(30):  # whatever the start wrote has been seen
            await pilot.pause(0.1)
        await pilot.press("c")
        await settle(pilot)
        for _ in range(30):
            await pilot.pause(0.1)
        await settle(pilot)
        mark = next(i for i, m in enumerate(said) if "marked confirmed" in m)
        assert "new data" not in said[mark:], said


async def test_a_shown_graph_rebuilt_from_another_ingest_is_announced(
        rw_db: Path, tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The toast stays for what it is for: the graph on screen changed because another
    process ingested more of the session."""
    import random
    import subprocess
    import sys

    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl
    from tests.cli_kb import invoke
    from tui.app import LogkbApp

    def session(steps: int) -> Path:
        ctx = BuildContext(random.Random(5), directory="/home/dev/grow", project_id="ef" * 20)
        s = SessionBuilder(ctx, title="grow", start_ms=1_790_000_000_000)
        s.user("make the build pass")
        for i in range(steps):
            s.step(f"Trying flag {i}.", [bash(f"make FLAG={i}", "error: boom\n", exit_code=2)])
        return write_jsonl(s.tree(), tmp_path / "grow.jsonl")

    assert invoke("ingest", "--db", str(rw_db), str(session(1))).exit_code == 0
    sid = next(r["id"] for r in map(json.loads, invoke(
        "sessions", "--json", "--db", str(rw_db)).stdout.splitlines()) if r["title"] == "make the build pass")
    monkeypatch.setattr(LogkbApp, "FOLLOW_SECONDS", 0.3)
    said: list[str] = []
    toast = LogkbApp.notify
    monkeypatch.setattr(LogkbApp, "notify", lambda self, message, **kw: (
        said.append(message), toast(self, message, **kw))[1])
    app = make_app(rw_db, session_id=sid, idle=0.2)
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await settle(pilot, quiet=0.4)
        assert not [m for m in said if "new data" in m], said
        r = subprocess.run([sys.executable, "-m", "kb", "ingest", "--db", str(rw_db),
                            str(session(3))], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        for _ in range(100):
            await pilot.pause(0.1)
            if "knowledge graph rebuilt from new data" in said:
                break
        await settle(pilot)
        assert "new data" in said and "knowledge graph rebuilt from new data" in said, said
