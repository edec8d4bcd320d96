"""The recorders' scripted models, started as ``record.sh`` starts them."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

Start = Callable[[str, dict[str, Any]], tuple[int, Path]]


@pytest.fixture
def scripted(tmp_path: Path) -> Iterator[Start]:
    """``start("codex_record/scripted_responses.py", script)``: the model server run as a
    script (``python FILE PORT SCRIPT.json REQUEST_LOG``) from a directory outside the
    repository, on a free loopback port; its port and request log.  Stopped after the test."""
    procs: list[subprocess.Popen[bytes]] = []

    def start(rel: str, script: dict[str, Any]) -> tuple[int, Path]:
        (tmp_path / "s.json").write_text(json.dumps(script))
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        log = tmp_path / "requests.log"
        procs.append(subprocess.Popen([sys.executable, str(FIXTURES / rel), str(port),
                                       str(tmp_path / "s.json"), str(log)], cwd=tmp_path))
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                assert procs[-1].poll() is None, "the scripted model exited"
                time.sleep(0.05)
        return port, log

    try:
        yield start
    finally:
        for p in procs:
            p.terminate()
            p.wait(5)


def sse(body: bytes) -> list[tuple[str, dict[str, Any]]]:
    """The server-sent events of a streamed body: (event, data) in order."""
    out = []
    for block in body.decode().split("\n\n"):
        lines = dict(ln.split(": ", 1) for ln in block.splitlines() if ": " in ln)
        if "data" in lines:
            out.append((lines["event"], json.loads(lines["data"])))
    return out
