"""Item 1 of issue 24 in the TUI: transcript control sequences are shown, never obeyed.

Pilot walks the hostile knowledge base (sessions list, every session's timeline with its
detail pane at every message, the graph screen) and checks every rendered strip: its text
holds no raw control character, ESC or bidi override (they are shown as ``\\x1b]52;…``),
and the bytes the app would write for the screen (:func:`tui.safe.safe_update`, what
``LogkbApp._display`` sends) hold none of them but the renderer's own styling.  A tmux
test runs the real ``logkb tui`` and checks the window title and the clipboard (tmux's
paste buffers, ``set-clipboard on``) did not change.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from kb.safe_text import UNSAFE
from tests.hostile.conftest import ROOT
from tests.hostile.corpus import found_bad
from tests.tui.conftest import settle

SIZE = (120, 40)


def _strip_texts(app: Any) -> list[str]:
    return ["".join(seg.text for seg in line) for line in app.screen._compositor.render_strips()]


def _check_screen(app: Any, where: str, bad: list[str], shown: list[str]) -> None:
    from tui.safe import safe_update

    for y, line in enumerate(_strip_texts(app)):
        if UNSAFE.search(line):
            bad.append(f"{where} line {y}: {line!r}")
        if "\\x1b]52;" in line or "\\u202e" in line:
            shown.append(where)
    update = safe_update(app.screen._compositor.render_update(full=True))
    data = update.render_segments(app.console).encode()
    if found_bad(data, allow_own=True) or b"\x1b]52" in data or b"\x1b]0;" in data:
        bad.append(f"{where}: written bytes {found_bad(data, allow_own=True)}")


async def _walk(db: Path) -> tuple[list[str], list[str]]:
    from tui.app import make_app
    from tui.screens import TimelineScreen

    bad: list[str] = []
    shown: list[str] = []
    app = make_app(db)
    async with app.run_test(size=SIZE) as pilot:
        await settle(pilot)
        _check_screen(app, "sessions", bad, shown)
        sessions = list(app.sessions)
    assert sessions
    for s in sessions:
        sid, n = s["session_id"], s["messages"]
        app = make_app(db, session_id=sid, at=1)
        async with app.run_test(size=SIZE) as pilot:
            await settle(pilot)
            assert isinstance(app.screen, TimelineScreen)
            for k in range(1, n + 1):
                _check_screen(app, f"{sid[:12]} timeline at {k}", bad, shown)
                await pilot.press("j")
                await settle(pilot, quiet=0.05)
            await pilot.press("g")
            await settle(pilot)
            _check_screen(app, f"{sid[:12]} graph", bad, shown)
            for _ in range(6):
                await pilot.press("down")
                await pilot.press("enter")
                await settle(pilot, quiet=0.05)
                _check_screen(app, f"{sid[:12]} graph story", bad, shown)
    return bad, shown


def test_tui_screens_show_control_sequences_as_escapes(hostile_db: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TZ", "UTC")
    bad, shown = asyncio.run(_walk(hostile_db))
    assert not bad, bad[:10]
    assert any(w == "sessions" for w in shown), shown
    assert any("timeline" in w for w in shown), shown
    assert any("graph" in w for w in shown), shown


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_tui_in_tmux_leaves_title_and_clipboard_alone(hostile_db: Path, tmp_path: Path) -> None:
    sock = f"logkb-hostile-{os.getpid()}"
    env = {"PATH": os.environ["PATH"], "TERM": "xterm-256color", "LANG": "C.UTF-8",
           "LC_ALL": "C.UTF-8", "TZ": "UTC", "HOME": str(tmp_path)}

    def tmux(*args: str, check: bool = True) -> str:
        return subprocess.run(["tmux", "-L", sock, "-f", "/dev/null", *args],
                              capture_output=True, text=True, check=check, env=env).stdout

    tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "h", "-n", "logkb-window",
         "sleep 600")
    try:
        # OSC 52 would fill tmux's paste buffers, OSC 0 would set the pane title
        tmux("set-option", "-g", "set-clipboard", "on")
        tmux("set-option", "-g", "allow-rename", "on")
        tmux("set-option", "-g", "automatic-rename", "off")
        before = tmux("display-message", "-p", "-t", "h", "#{pane_title}|#{window_name}")
        cmd = (f"cd {ROOT} && PYTHONPATH={ROOT} LOGKB_NO_PAGER=1 {sys.executable} -m kb tui "
               f"--db {hostile_db}")
        tmux("respawn-pane", "-k", "-t", "h", cmd)
        deadline = time.monotonic() + 60
        pane = ""
        while time.monotonic() < deadline and "msgs" not in pane:
            time.sleep(0.3)
            pane = tmux("capture-pane", "-p", "-t", "h")
        time.sleep(1.0)
        pane = tmux("capture-pane", "-p", "-t", "h")
        for key in ("Enter", "j", "j", "j", "g", "Down", "Enter", "Escape", "Escape"):
            tmux("send-keys", "-t", "h", key)
            time.sleep(0.8)
        after = tmux("display-message", "-p", "-t", "h", "#{pane_title}|#{window_name}")
        buffers = tmux("list-buffers", check=False)
        assert "PWNED" not in after and "C1-TITLE" not in after, (before, after)
        assert after.strip().split("|")[1] == before.strip().split("|")[1] == "logkb-window"
        assert buffers.strip() == "", buffers
        assert "x1b]52" in pane, pane  # the sessions list shows the hostile title, escaped
    finally:
        tmux("kill-server", check=False)
