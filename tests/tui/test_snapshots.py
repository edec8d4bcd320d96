"""SVG snapshots of the main screens at 120x40 and 80x24 (pytest-textual-snapshot).

Deterministic by construction: UTC, no cursor blink, data settled before the
shot, no clock and no timings on screen.  Review ``snapshot_report.html`` before
accepting changes with ``--snapshot-update``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input

from tui.app import make_app

from .conftest import SESSION, SIZE, settle


def test_sessions_screen(snap_compare: Any, tui_db: Path) -> None:
    async def ready(pilot: Any) -> None:
        await settle(pilot)

    assert snap_compare(make_app(tui_db), terminal_size=SIZE, run_before=ready)


def test_timeline_at_the_deepep_check(snap_compare: Any, tui_db: Path) -> None:
    async def ready(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("n")  # the failing import check itself
        await settle(pilot)

    assert snap_compare(make_app(tui_db, session_id=SESSION, at=5214), terminal_size=SIZE,
                        run_before=ready)


def test_graph_screen(snap_compare: Any, tui_db: Path) -> None:
    async def ready(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("g")
        await settle(pilot)

    assert snap_compare(make_app(tui_db, at=5216), terminal_size=SIZE, run_before=ready)


def test_replay_plan(snap_compare: Any, tui_db: Path) -> None:
    async def ready(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("r")
        await settle(pilot)
        hosts = pilot.app.screen.query_one("#replay-hosts", Input)
        hosts.value = "10.1.230.174=local"
        hosts.focus()
        await pilot.press("enter")
        await settle(pilot)
        await pilot.press("down", "down", "down")
        await settle(pilot)

    assert snap_compare(make_app(tui_db, at=5214), terminal_size=SIZE, run_before=ready)


def test_help_overlay(snap_compare: Any, tui_db: Path) -> None:
    async def ready(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(make_app(tui_db, at=5216), terminal_size=SIZE, run_before=ready)


SMALL = (80, 24)


def test_sessions_screen_80x24(snap_compare: Any, tui_db: Path) -> None:
    async def ready(pilot: Any) -> None:
        await settle(pilot)

    assert snap_compare(make_app(tui_db), terminal_size=SMALL, run_before=ready)


def test_timeline_80x24(snap_compare: Any, tui_db: Path) -> None:
    async def ready(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("n")  # the failing import check
        await settle(pilot)

    assert snap_compare(make_app(tui_db, session_id=SESSION, at=5214), terminal_size=SMALL,
                        run_before=ready)


def test_help_overlay_80x24(snap_compare: Any, tui_db: Path) -> None:
    async def ready(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("question_mark")
        await settle(pilot)

    assert snap_compare(make_app(tui_db, at=5216), terminal_size=SMALL, run_before=ready)
