"""Shared pieces of the hostile-input suite: the hostile knowledge base, a pseudo-terminal."""

from __future__ import annotations

import fcntl
import os
import select
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

import pytest

from tests.hostile.corpus import write_forms

ROOT = Path(__file__).resolve().parents[2]


def run_pty(argv: list[str], *, env: dict[str, str] | None = None, cols: int = 100,
            rows: int = 40, timeout: float = 300.0) -> tuple[int, bytes]:
    """Run ``argv`` with stdin, stdout and stderr on a pseudo-terminal of ``cols`` x
    ``rows``; its exit code and every byte it wrote to the terminal."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    full = {**os.environ, "TERM": "xterm-256color", "LOGKB_NO_PAGER": "1",
            "PYTHONPATH": str(ROOT), **(env or {})}
    full.pop("COLUMNS", None)
    full.pop("NO_COLOR", None)
    proc = subprocess.Popen(argv, stdin=slave, stdout=slave, stderr=slave, env=full,
                            cwd=ROOT, start_new_session=True)
    os.close(slave)
    data = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 0.5)
            if ready:
                try:
                    chunk = os.read(master, 65536)
                except OSError:  # EIO: the other side is closed
                    break
                if not chunk:
                    break
                data += chunk
            elif proc.poll() is not None:
                break
        else:
            proc.kill()
            raise AssertionError(f"{argv} still running after {timeout}s")
    finally:
        os.close(master)
    return proc.wait(timeout=30), bytes(data)


@pytest.fixture(scope="session")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A knowledge base of the hostile story in all three agents' forms."""
    d = tmp_path_factory.mktemp("hostile")
    files = write_forms(d / "src")
    db = d / "kb.duckdb"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(d / "home")}
    r = subprocess.run([sys.executable, "-m", "kb", "ingest", "--db", str(db),
                        *map(str, files)], env=env, capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    return db
