"""MCP start-up: how long ``logkb mcp`` takes to answer ``initialize``, front door on and off.

    python -m bench mcp [--runs 5] [--json]

A real stdio client (a fresh ``python -m kb mcp`` process each run) sends
``initialize`` and times the reply, then ``tools/list`` (the first answer that
needs the SDK).  ``front`` is the default (kb/live/mcp_front.py answers the
handshake before the SDK is imported); ``sdk`` sets ``LOGKB_MCP_FRONT=0``.
The target is initialize <= 1 s.  The machine's load (``/proc/loadavg``) is
printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_S = 1.0


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ")[0]
    except OSError:
        return "?"


def one_run(db: Path, front: bool) -> tuple[float, float]:
    """Seconds to the ``initialize`` reply and to the ``tools/list`` reply."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), LOGKB_MCP_FRONT="1" if front else "0")
    t0 = time.monotonic()
    p = subprocess.Popen([sys.executable, "-m", "kb", "mcp", "--db", str(db)],
                         stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True, env=env)
    assert p.stdin is not None and p.stdout is not None

    def ask(i: int, method: str, params: dict | None = None) -> dict:
        msg = {"jsonrpc": "2.0", "id": i, "method": method}
        if params is not None:
            msg["params"] = params
        p.stdin.write(json.dumps(msg) + "\n")
        p.stdin.flush()
        while True:
            reply = json.loads(p.stdout.readline())
            if reply.get("id") == i:
                return reply

    ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                          "clientInfo": {"name": "bench", "version": "0"}})
    t_init = time.monotonic() - t0
    p.stdin.write(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}) + "\n")
    p.stdin.flush()
    ask(2, "tools/list")
    t_list = time.monotonic() - t0
    p.stdin.close()
    p.wait(timeout=30)
    return t_init, t_list


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench mcp")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    db = Path(tempfile.mkdtemp(prefix="logkb-mcp-bench-")) / "kb.duckdb"  # none needed to start
    before = _load()
    result: dict[str, dict[str, float]] = {}
    for name, front in (("front", True), ("sdk", False)):
        runs = [one_run(db, front) for _ in range(args.runs)]
        inits, lists = [r[0] for r in runs], [r[1] for r in runs]
        result[name] = {"initialize_p50_s": statistics.median(inits),
                        "initialize_max_s": max(inits),
                        "tools_list_p50_s": statistics.median(lists)}
    after = _load()
    if args.json:
        print(json.dumps({"load": [before, after], "target_s": TARGET_S, **result}))
        return
    print(f"load {before} → {after}; target: initialize <= {TARGET_S:.1f} s")
    for name, r in result.items():
        ok = "ok" if r["initialize_max_s"] <= TARGET_S else "OVER"
        print(f"{name:<6} initialize p50 {r['initialize_p50_s']:.2f} s, max "
              f"{r['initialize_max_s']:.2f} s ({ok}); tools/list p50 "
              f"{r['tools_list_p50_s']:.2f} s")
