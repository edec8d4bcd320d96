"""A demanding new user's release check of the CLI (the ux2 pass over the real pool and
every agent): what a terminal at 80 columns shows, NO_COLOR, exit codes and help text.

Each test runs the real CLI (``python -m kb`` as a process where the terminal matters,
click's runner otherwise) over sessions built here or trimmed from the shared pool."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from .cli_kb import invoke

ROOT = Path(__file__).resolve().parents[1]
TRIM = ROOT / "fixtures" / "realworld_trim"
SGR = re.compile(rb"\x1b\[[0-9;]*m")
"""A Select Graphic Rendition sequence: colour, bold, dim, underline…"""


def on_tty(args: list[str], env: dict[str, str]) -> bytes:
    """``logkb ARGS`` as a real process whose stdout and stderr are an 80×24 terminal
    (stdin is not one: nothing is paged); everything it wrote to the terminal."""
    import fcntl
    import pty
    import struct
    import termios

    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    full = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(ROOT),
            "HOME": env.get("HOME", "/nonexistent"), "LANG": "C.UTF-8", "TZ": "UTC",
            "TERM": "xterm-256color", "LOGKB_NO_PAGER": "1", **env}
    proc = subprocess.Popen([sys.executable, "-m", "kb", *args], stdin=subprocess.DEVNULL,
                            stdout=slave, stderr=slave, env=full, close_fds=True)
    os.close(slave)
    chunks = []
    while True:
        try:
            data = os.read(master, 65536)
        except OSError:  # the other end closed
            break
        if not data:
            break
        chunks.append(data)
    proc.wait(timeout=120)
    os.close(master)
    return b"".join(chunks)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A pi session and a Codex one (trimmed from the pool), ingested with their graphs."""
    kb = tmp_path_factory.mktemp("ux2") / "kb.duckdb"
    r = invoke("ingest", "--db", str(kb), "--wait", str(TRIM / "pi.jsonl"),
               str(TRIM / "codex_code_mode.jsonl"))
    assert r.exit_code == 0, r.stderr
    return kb


# ------------------------------------------------------------------ NO_COLOR
NO_COLOR_COMMANDS = [
    ["sessions"],
    ["show", "3", "--session", "019ea801"],
    ["events", "--session", "019ea801"],
    ["search", "exited"],
    ["usage"],
    ["query", "select 1 as x"],
    ["show", "999", "--session", "019ea801"],  # the error line
]


@pytest.mark.parametrize("args", NO_COLOR_COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_no_color_means_no_styling_at_all(db: Path, args: list[str]) -> None:
    """NO_COLOR left bold table headers, bold+dim rules and dim text on a terminal (rich
    drops only colours); with it set nothing is styled, without it the same output is."""
    styled = on_tty([*args, "--db", str(db)], {})
    assert SGR.search(styled), styled[:400]  # the terminal is one: styles are used
    plain = on_tty([*args, "--db", str(db)], {"NO_COLOR": "1"})
    assert not SGR.search(plain), plain[:400]
    assert SGR.sub(b"", styled).replace(b"\r", b"") == plain.replace(b"\r", b"")
