"""The real ``logkb tui`` in a real terminal (tmux): start it, send keys, read the pane."""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.newcomer_env import Tmux

from .conftest import SESSION

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

LOGKB = Path(sys.executable).parent / "logkb"


def _clean_env() -> dict[str, str]:
    """The tmux server's whole environment: nothing of the test process leaks in (an
    inherited COLUMNS/LINES would override the pane size)."""
    return {"PATH": os.environ["PATH"], "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC"}


@pytest.fixture
def tmux(request: pytest.FixtureRequest) -> Iterator[Tmux]:
    t = Tmux(request.node.name[-20:], _clean_env())
    yield t
    t.close()


def test_logkb_tui_in_tmux(tmux: Tmux, tui_db: Path, isolated_home: Path) -> None:
    env = {"HOME": str(isolated_home), "LOGKB_REPLAY_LOOPBACK_ONLY": "1",
           "LOGKB_HOME": str(isolated_home / "logkb"),
           "XDG_CONFIG_HOME": str(isolated_home / ".config"),
           "XDG_DATA_HOME": str(isolated_home / ".local" / "share")}
    command = " ".join([str(LOGKB), "tui", "--db", str(tui_db), "--session", SESSION[:12],
                        "--at", "5216"])
    tmux.run("new-session", "-d", "-x", "120", "-y", "40", "-s", "tui",
             *[a for k, v in env.items() for a in ("-e", f"{k}={v}")], command)
    pane = tmux.wait_for("message 5216 of 5228", "ModuleNotFoundError",
                         "Host key verification failed", timeout=30)
    assert "exit 255" in pane and "import-check" in pane
    tmux.keys("n")  # next failure: 5216's call, then 5217
    tmux.keys("n")
    tmux.wait_for("message 5217 of 5228", "Package(s) not found", timeout=30)
    tmux.keys("g")
    pane = tmux.wait_for("cause: deep_ep not installed", "Expert Parallelism via DeepEP",
                         "5216 tested", "Untested questions", timeout=30)
    tmux.keys("Escape")
    tmux.wait_for("message 5217 of 5228", timeout=30)
    tmux.keys("q")
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and "tui" in tmux.run("list-sessions", check=False):
        time.sleep(0.2)
    assert "tui" not in tmux.run("list-sessions", check=False)
