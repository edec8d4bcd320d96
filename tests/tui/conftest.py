"""Fixtures for the TUI tests: the fixture campaign's knowledge base, a settled app.

The knowledge base is built once per test run (``blackwell_db`` ingests the
fixture campaign and builds its graph); tests that write (annotations, replay
runs) work on a private copy.  Every test runs in UTC, with no cursor blink
and with replay restricted to loopback (``LOGKB_REPLAY_LOOPBACK_ONLY``), so
nothing a test does can reach the recorded host.
"""

from __future__ import annotations

import asyncio
import inspect
import shutil
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from textual.pilot import Pilot
from textual.widgets import Input
from textual.worker import WorkerCancelled

from kb.store import KbStore

SESSION = "ses_e88a22cffffeVTvFEDoa7BoWbl"
CHILD = "ses_e21bd022fffeJdmrfVzFvKOVy6"
PI = "019ea801-f510-7d77-a631-019d14a93b3b"
"""The pool's pi session (civ6.ch): long approach names and notes, commands to replay."""
SIZE = (120, 40)


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function) -> bool | None:
    """Run ``async def`` tests in a fresh event loop (no async plugin needed)."""
    if inspect.iscoroutinefunction(pyfuncitem.obj):
        names = pyfuncitem._fixtureinfo.argnames
        asyncio.run(pyfuncitem.obj(**{n: pyfuncitem.funcargs[n] for n in names}))
        return True
    return None


@pytest.fixture(autouse=True)
def deterministic(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """UTC times, no blinking cursor, replay only to loopback."""
    monkeypatch.setenv("TZ", "UTC")
    time.tzset()
    monkeypatch.setattr(Input, "cursor_blink", False)
    monkeypatch.setenv("LOGKB_REPLAY_LOOPBACK_ONLY", "1")
    yield
    monkeypatch.undo()
    time.tzset()


@pytest.fixture(scope="session")
def tui_db(blackwell_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture campaign, migrated and with its graph built (shared: read-only use)."""
    dst = tmp_path_factory.mktemp("tui") / "kb.duckdb"
    shutil.copyfile(blackwell_db, dst)
    from kb.graph.store import rebuild_all

    with KbStore(dst) as store:  # applies any migration added since the fixture was built
        rebuild_all(store)
    return dst


@pytest.fixture
def rw_db(tui_db: Path, tmp_path: Path) -> Path:
    """A private copy a test may write to (annotations, replay runs)."""
    dst = tmp_path / "kb.duckdb"
    shutil.copyfile(tui_db, dst)
    return dst


@pytest.fixture
def pi_db(tmp_path: Path, realworld: Path) -> Path:
    """A knowledge base of the pool's pi session (:data:`PI`, civ6.ch) alone."""
    from tests.cli_kb import invoke

    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), "--wait",
               str(realworld / "pool" / "civ6.ch__session.jsonl"))
    assert r.exit_code == 0, r.stderr
    return db


async def settle(pilot: Pilot[Any], quiet: float = 0.1) -> None:
    """Wait until no worker runs and nothing happened for ``quiet`` seconds (timers included).

    The app says itself what it still waits for (``busy()``: a debounced search, a detail
    on its way, rows not loaded), so the quiet time only lets posted messages land; the
    hostile walk settles hundreds of times with 0.05 s.  0.1 s by default (it was 0.2: a
    tenth of a second per call, ~200 calls a run)."""
    app = pilot.app
    idle_since = None
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        try:
            await app.workers.wait_for_complete()
        except WorkerCancelled:  # an exclusive worker replaced by a newer one
            pass
        await pilot.pause(0.05)
        busy = any(not w.is_finished for w in app.workers) or app.busy()
        if busy:
            idle_since = None
            continue
        now = time.monotonic()
        idle_since = idle_since or now
        if now - idle_since >= quiet:
            return
    running = [w.name for w in app.workers if not w.is_finished]
    raise AssertionError(f"the app did not settle in 20 s: workers {running}, "
                         f"busy {app.busy()}")  # type: ignore[attr-defined]


def screen_text(pilot: Pilot[Any]) -> str:
    """What the terminal shows, as plain text."""
    return "\n".join("".join(seg.text for seg in line)
                     for line in pilot.app.screen._compositor.render_strips())
