"""A newcomer's machine for tests: a fresh HOME whose agent folders hold real sessions
(copied from ../shared/realworld), ``logkb`` run as a real process, and a real terminal
(tmux) for the TUI.  Used by the README doctest and the end-to-end newcomer test."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "realworld"
CLAUDE_FILE = REAL / "claude-code" / "hello-world-script" / "transcript.jsonl"
CODEX_FILE = REAL / "pool" / "privacy-x402__codex-session.jsonl"
OPENCODE_DB = REAL / "labelled" / "stunning-memory__opencode.db"
CLAUDE_ID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
CODEX_ID = "019c5b35-060f-7693-b14f-9f8f75d4aea6"
OPENCODE_ID = "ses_04ca851f7ffevKrKMHW3RsPK1U"


def fake_home(base: Path) -> Path:
    """A HOME as the agents leave it: Claude Code's ``~/.claude/projects/x/``, Codex's
    ``~/.codex/sessions/2026/01/01/`` and opencode's ``~/.local/share/opencode/opencode.db``
    (with its ``-wal`` and ``-shm``), each holding one real session."""
    home = base / "home"
    claude = home / ".claude" / "projects" / "x"
    codex = home / ".codex" / "sessions" / "2026" / "01" / "01"
    opencode = home / ".local" / "share" / "opencode"
    for d in (claude, codex, opencode):
        d.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(CLAUDE_FILE, claude / f"{CLAUDE_ID}.jsonl")
    shutil.copyfile(CODEX_FILE, codex / f"rollout-2026-01-01T00-00-00-{CODEX_ID}.jsonl")
    for suffix in ("", "-wal", "-shm"):
        shutil.copyfile(f"{OPENCODE_DB}{suffix}", opencode / f"opencode.db{suffix}")
    return home


def home_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a user whose home is ``home`` (nothing of the test's leaks in:
    no LOGKB_DB, no XDG_* of the test run), running this worktree's code."""
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(home),
           "LANG": "C.UTF-8", "LC_ALL": "C.UTF-8", "TZ": "UTC", "PYTHONPATH": str(ROOT),
           "LOGKB_NO_PAGER": "1", "LOGKB_LOCK_TIMEOUT": "5", "COLUMNS": "80",
           "LOGKB_REPLAY_LOOPBACK_ONLY": "1", "XDG_CACHE_HOME": str(home / ".cache")}
    env.update(extra)
    return env


def logkb(args: list[str], env: dict[str, str], cwd: Path | None = None,
          timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """``logkb ARGS`` as a user would run it (a real process of this worktree's code)."""
    return subprocess.run([sys.executable, "-m", "kb", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=timeout)


def logkb_argv(args: list[str]) -> list[str]:
    return [sys.executable, "-m", "kb", *args]


class Tmux:
    """One private tmux server (its own socket) running one window called ``tui``."""

    def __init__(self, name: str, env: dict[str, str]) -> None:
        self.socket = f"logkb-nc-{os.getpid()}-{name}"
        self.env = {k: v for k, v in env.items() if k not in ("COLUMNS", "LINES")}
        self.env["TERM"] = "xterm-256color"

    def run(self, *args: str, check: bool = True) -> str:
        r = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True,
                           text=True, check=check, env=self.env)
        return r.stdout

    def start(self, argv: list[str], size: tuple[int, int], cwd: Path | None = None) -> None:
        import shlex

        self.run("new-session", "-d", "-x", str(size[0]), "-y", str(size[1]), "-s", "tui",
                 *(["-c", str(cwd)] if cwd else []),
                 *[a for k, v in self.env.items() for a in ("-e", f"{k}={v}")],
                 shlex.join(argv))

    def capture(self) -> str:
        return self.run("capture-pane", "-p", "-t", "tui")

    def wait_for(self, *needles: str, timeout: float = 60) -> str:
        deadline = time.monotonic() + timeout
        pane = ""
        while time.monotonic() < deadline:
            pane = self.capture()
            if all(n in pane for n in needles):
                return pane
            time.sleep(0.2)
        raise AssertionError(f"{needles} never showed; the pane was:\n{pane}")

    def wait_gone(self, needle: str, timeout: float = 30) -> str:
        deadline = time.monotonic() + timeout
        pane = self.capture()
        while needle in pane and time.monotonic() < deadline:
            time.sleep(0.2)
            pane = self.capture()
        assert needle not in pane, f"{needle!r} stayed; the pane was:\n{pane}"
        return pane

    def keys(self, *keys: str) -> None:
        self.run("send-keys", "-t", "tui", *keys)

    def close(self) -> None:
        self.run("kill-server", check=False)
