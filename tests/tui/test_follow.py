"""The open TUI shows what another process ingests, without ``ctrl+r``."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from textual.widgets import DataTable

from tui.app import LogkbApp, make_app

from .conftest import SIZE, settle


async def test_new_sessions_appear_while_the_tui_is_open(rw_db: Path, selftest: Path,
                                                         monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("LOGKB_LOCK_TIMEOUT", "10")
    monkeypatch.setattr(LogkbApp, "FOLLOW_SECONDS", 0.3)
    app = make_app(rw_db, idle=0.2)
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await settle(pilot, quiet=0.4)
        assert app.screen.query_one(DataTable).row_count == 2
        r = subprocess.run([sys.executable, "-m", "kb", "ingest", "--db", str(rw_db),
                            str(selftest / "opencode.db")], capture_output=True, text=True)
        assert r.returncode == 0, r.stderr
        for _ in range(100):  # no key pressed: the app notices the file changed
            await pilot.pause(0.1)
            if app.screen.query_one(DataTable).row_count == 4:
                break
        await settle(pilot)
        assert app.screen.query_one(DataTable).row_count == 4
        assert any(n.message == "new data" for n in app._notifications)
