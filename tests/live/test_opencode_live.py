"""The live loop with real opencode: an agent asks logkb over MCP, and `watch` follows it.

Both tests record a real session with ``shared/tools/opencode-record`` (real
opencode 1.18.33 with a scripted model on loopback, inside a loopback-only
network namespace) and assert from what opencode itself stored.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SHARED
from tests.live.conftest import logkb

RECORD = SHARED / "tools" / "opencode-record" / "record.sh"


def _recorder_home() -> Path:
    # the autouse fixture moved HOME; the builds live under the real one
    return Path(os.environ.get("OPENCODE_RECORD_HOME")
                or Path(os.path.expanduser("~root")) / ".cache" / "opencode-record")


@pytest.fixture
def recorder() -> Path:
    binary = _recorder_home() / "1.18.33" / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"
    unavailable = pytest.fail if os.environ.get("LOGKB_REQUIRE_OPENCODE") else pytest.skip
    if not RECORD.exists() or not binary.exists():
        unavailable(f"the opencode recorder or opencode 1.18.33 is missing ({binary})")
    if os.geteuid() != 0 or not shutil.which("unshare"):
        unavailable("recording needs root and unshare (a loopback-only network namespace)")
    return RECORD


def _record(script: dict[str, Any], tmp_path: Path) -> Path:
    spath = tmp_path / "script.json"
    spath.write_text(json.dumps(script))
    out = tmp_path / "recording"
    env = dict(os.environ, OPENCODE_RECORD_HOME=str(_recorder_home()))
    p = subprocess.run(["bash", str(RECORD), str(spath), str(out)], capture_output=True,
                       text=True, timeout=300, env=env)
    assert p.returncode == 0, f"record.sh failed: {p.stdout[-2000:]} {p.stderr[-2000:]}"
    return out


def _tool_parts(export: Path) -> list[dict[str, Any]]:
    d = json.loads(export.read_text())
    return [p for m in d["messages"] for p in m["parts"] if p.get("type") == "tool"]


def _python_file(tmp_path: Path, name: str, body: str) -> str:
    f = tmp_path / name
    f.write_text(body)
    return f"{sys.executable} {f}"


def test_an_agent_in_opencode_asks_logkb_what_was_tried(recorder: Path, earlier_kb: Path,
                                                        tmp_path: Path) -> None:
    expected = [d for d in (json.loads(x) for x in logkb(
                    "deadends", "--all", "--json", "--db", str(earlier_kb)).stdout.splitlines())
                if "deepep" in d["name"].lower()]
    assert expected
    add_mcp = _python_file(tmp_path, "add_mcp.py", f"""
import json
c = json.load(open("opencode.json"))
c["mcp"] = {{"logkb": {{"type": "local", "enabled": True,
             "command": [{sys.executable!r}, "-m", "kb", "mcp", "--db", {str(earlier_kb)!r}]}}}}
json.dump(c, open("opencode.json", "w"))
""")
    script = {
        "title": "Ask logkb before trying",
        "setup": [add_mcp],
        "turns": [{"prompt": "Should we try DeepEP for expert parallelism?",
                   "steps": [
                       {"text": "First, what do earlier campaigns know about DeepEP?",
                        "tool": "logkb_deadends", "args": {"about": "DeepEP"}},
                       {"text": "DeepEP was a dead end before; not repeating it."}]}]}
    out = _record(script, tmp_path)
    calls = [p for p in _tool_parts(out / "export.json") if p["tool"] == "logkb_deadends"]
    assert len(calls) == 1, [p["tool"] for p in _tool_parts(out / "export.json")]
    state = calls[0]["state"]
    assert state["status"] == "completed", state
    answer = json.loads(state["output"])
    item = answer["items"][0]
    assert item["name"] == expected[0]["name"]
    assert item["cause"] == expected[0]["cause"] and item["cause"]
    sid, _, ordinal = item["cite"].partition("#")
    assert sid == expected[0]["session_id"]
    assert int(ordinal) in {e["ordinal"] for e in expected[0]["evidence"]}


def test_watch_sees_a_live_opencode_session_without_a_second_ingest(recorder: Path,
                                                                    tmp_path: Path) -> None:
    db = tmp_path / "watched" / "kb.duckdb"
    db.parent.mkdir()
    pidfile = tmp_path / "watch.pid"
    log = tmp_path / "watch.jsonl"
    # started by the session's setup, inside the recorder's namespace, on opencode's own
    # data directory, which does not exist yet when it starts
    start_watch = (f"nohup {sys.executable} -m kb watch --json --db {db} "
                   f"\"$XDG_DATA_HOME/opencode\" > {log} 2>&1 & echo $! > {pidfile}")
    # the probe also stops the watcher: the recorder removes opencode's directory when the
    # session ends, and a watcher still reading it would race that removal
    probe = _python_file(tmp_path, "probe.py", f"""
import json, os, signal, subprocess, sys, time

def stop_watch():
    os.kill(int(open({str(pidfile)!r}).read()), signal.SIGTERM)
    time.sleep(1)

deadline = time.time() + 30
while time.time() < deadline:
    p = subprocess.run([{sys.executable!r}, "-m", "kb", "events", "--json", "--kind", "command",
                        "--db", {str(db)!r}], capture_output=True, text=True)
    cmds = [json.loads(x).get("command") or "" for x in p.stdout.splitlines()]
    if any("marker-from-turn-one" in c for c in cmds):
        print("SEEN", len(cmds))
        stop_watch()
        sys.exit(0)
    time.sleep(0.5)
print("NOT SEEN")
stop_watch()
""")
    script = {
        "title": "Watched live",
        "setup": [start_watch],
        "turns": [
            {"prompt": "Run the first check.",
             "steps": [{"text": "Checking.", "tool": "bash",
                        "args": {"command": "echo marker-from-turn-one", "description": "echo"}},
                       {"text": "Done."}]},
            {"prompt": "Is the first check in the knowledge base yet?",
             "steps": [{"text": "Asking logkb.", "tool": "bash",
                        "args": {"command": probe, "description": "probe logkb"}},
                       {"text": "It is."}]}]}
    try:
        out = _record(script, tmp_path)
    finally:
        if pidfile.exists():
            subprocess.run(["kill", pidfile.read_text().strip()], check=False)
    probes = [p for p in _tool_parts(out / "export.json")
              if p["tool"] == "bash" and "probe.py" in p["state"]["input"]["command"]]
    assert probes and probes[0]["state"]["output"].startswith("SEEN"), (
        probes, log.read_text() if log.exists() else "")
    events = [json.loads(x) for x in log.read_text().splitlines() if x.startswith("{")]
    assert any(e["event"] == "ingested" for e in events)
