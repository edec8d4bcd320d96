"""Redteam 13: control sequences in the Claude Code fields the hostile story leaves alone.

:mod:`tests.hostile.corpus` poisons every *text* of a session (prompts, prose,
commands, outputs, titles).  A transcript also names a model, tools (an MCP tool's
name is the server's to choose), file paths, its working directory, branch and
version, and writes record types the story has none of (``ai-title``, ``agent-name``,
``pr-link``, ``summary``, ``system`` API errors and compaction, ``queue-operation``,
``attachment``, ``permission-mode``); its file name is the user's disk's.  Here every
one of them carries OSC 8 (a hyperlink), OSC 52, a device-status query (``CSI 6n``, the
terminal answers on stdin), a C1 CSI, a bidi override, a carriage return that would
overwrite the line and a DCS; each read command at 80 columns and ``--json`` must show
them as escapes, never send them.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.hostile.conftest import ROOT, run_pty

H = ("\x1b]8;;http://evil/\x1b\\LINK\x1b]8;;\x1b\\\x1b]52;c;cm0gLXJmIH4=\x07\x1b[6n\x9b6n"
     "\u202eRLO\u202c\rOVERWRITE\u200e\x1bPDCS\x1b\\")
SID = "11111111-2222-4333-8444-555555555555"
SENT = [b"\x1b]", b"\x1b[6n", b"\xc2\x9b", b"\xe2\x80\xae", b"\x07", b"\x1bP", b"\xe2\x80\x8e"]
"""What must never reach the terminal (the renderer's own styling CSI may)."""


def write_session(path: Path) -> Path:
    recs: list[dict[str, Any]] = []

    def rec(typ: str, extra: dict[str, Any] | None = None,
            msg: dict[str, Any] | None = None) -> None:
        n = len(recs) + 1
        r: dict[str, Any] = {
            "parentUuid": recs[-1].get("uuid") if recs else None, "isSidechain": False,
            "sessionId": SID, "cwd": f"/w/cwd{H}", "version": f"2.0.1{H}",
            "gitBranch": f"main{H}", "type": typ, "uuid": f"u-{n:06d}",
            "timestamp": f"2025-10-01T10:00:{n:02d}.000Z"}
        if msg is not None:
            r["message"] = msg
        r.update(extra or {})
        recs.append(r)

    def asst(content: list[dict[str, Any]], **kw: Any) -> None:
        rec("assistant", kw, {"role": "assistant", "id": f"msg_{len(recs)}", "type": "message",
                              "model": f"claude-opus-4-5{H}", "content": content,
                              "stop_reason": "tool_use",
                              "usage": {"input_tokens": 10, "output_tokens": 5}})

    def user(content: Any) -> None:
        rec("user", None, {"role": "user", "content": content})

    def result(i: int, text: str, error: bool = False) -> None:
        user([{"type": "tool_result", "tool_use_id": f"toolu_{i}", "content": text,
               "is_error": error}])

    for typ, key in (("custom-title", "customTitle"), ("ai-title", "aiTitle"),
                     ("agent-name", "agentName"), ("tag", "tag")):
        recs.append({"type": typ, key: f"{key}{H}", "sessionId": SID})
    recs.append({"type": "pr-link", "prUrl": f"https://x/{H}", "prNumber": 1, "sessionId": SID})
    recs.append({"type": "summary", "summary": f"summary{H}", "leafUuid": "u-000010"})
    user(f"Please check the build {H}")
    asst([{"type": "tool_use", "id": "toolu_1", "name": "Read",
           "input": {"file_path": f"/w/src/file{H}.py"}}])
    result(1, f"1\tline {H}")
    asst([{"type": "tool_use", "id": "toolu_2", "name": f"mcp__srv{H}__tool",
           "input": {"q": f"x{H}"}}])
    result(2, f"done {H}", error=True)
    asst([{"type": "tool_use", "id": "toolu_3", "name": "Bash",
           "input": {"command": "pytest tests/", "description": f"run {H}"}}])
    result(3, f"FAILED tests/test_x{H}.py::test_a - AssertionError: boom{H}", error=True)
    asst([{"type": "tool_use", "id": "toolu_4", "name": "Edit",
           "input": {"file_path": f"/w/src/edit{H}.py", "old_string": "a", "new_string": "b"}}])
    result(4, f"The file /w/src/edit{H}.py has been updated.")
    asst([{"type": "tool_use", "id": "toolu_5", "name": "TaskCreate",
           "input": {"subject": f"task{H}", "description": "d", "activeForm": f"af{H}"}}])
    result(5, f"Task #1 created successfully: task{H}")
    rec("system", {"subtype": "api_error", "level": "error", "content": f"API Error: 529 {H}",
                   "retryAttempt": 1, "error": {"status": 529, "message": f"overloaded{H}"}})
    rec("system", {"subtype": "compact_boundary", "content": f"Conversation compacted {H}",
                   "compactMetadata": {"trigger": "auto", "preTokens": 1000}})
    rec("queue-operation", {"operation": "enqueue", "content": f"queued prompt {H}"})
    rec("queue-operation", {"operation": "remove"})
    rec("attachment", {"attachment": {"type": "queued_command", "prompt": f"queued prompt {H}"}})
    asst([{"type": "text", "text": f"API Error: 500 {H}"}], isApiErrorMessage=True,
         error=f"server_error{H}")
    asst([{"type": "text", "text": f"The build is a dead end because of {H}. "
                                   f"I decided to switch to cmake {H}."}])
    user(f"<command-name>/model{H}</command-name><command-args>{H}</command-args>")
    rec("permission-mode", {"permissionMode": f"plan{H}"})
    path.write_bytes(b"".join(orjson.dumps(r) + b"\n" for r in recs))
    return path


@pytest.fixture(scope="module")
def fields_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("fields")
    src = write_session(d / "sess\x1b]0;FILE-TITLE\x07.jsonl")
    db = d / "kb.duckdb"
    r = subprocess.run([sys.executable, "-m", "kb", "ingest", "--db", str(db), str(src)],
                       env={"PYTHONPATH": str(ROOT), "HOME": str(d / "home"),
                            "PATH": "/usr/bin:/bin"},
                       capture_output=True, timeout=300)
    assert r.returncode == 0, r.stderr.decode(errors="replace")
    return db


def _sent(chunk: bytes) -> list[bytes]:
    bad = [b for b in SENT if b in chunk]
    if re.search(rb"\r(?!\n)OVERWRITE", chunk):
        bad.append(b"\\r")
    return bad


@pytest.mark.parametrize("json_mode", [False, True], ids=["terminal", "json"])
def test_new_fields_never_drive_an_80_column_terminal(fields_db: Path, tmp_path: Path,
                                                      json_mode: bool) -> None:
    d = ["--db", str(fields_db)]
    ss = ["--session", SID, *d]
    cmds = [["sessions", *d], ["search", "build", *d], ["events", *ss],
            ["events", "--kind", "command,result,error,decision", *ss], ["deadends", *ss],
            ["untested", *ss], ["timeline", *ss], ["handoff", *ss], ["graph", *ss],
            ["replay", "plan", "--from", "1", *ss], ["usage", *ss], ["measurements", *ss],
            ["query", "select title, source_path from sessions", *d]]
    cmds += [["show", str(n), "--full", *ss] for n in range(1, 12)]
    if json_mode:
        cmds = [c + ["--json"] for c in cmds]
    code, data = run_pty([sys.executable, "-m", "tests.hostile.pty_driver",
                          orjson.dumps(cmds).decode()], env={"HOME": str(tmp_path)}, cols=80)
    assert code == 0, data[-2000:]
    chunks = data.split(b"@@@ end ")
    assert len(chunks) == len(cmds) + 1, data[-2000:]
    failures = [(args[:3], _sent(chunk), chunk[:300]) for args, chunk in zip(cmds, chunks)
                if _sent(chunk) or b"driver:" in chunk]
    assert not failures, failures
    # shown, not dropped: the model, the MCP tool's name and the file path are there
    text = data.decode(errors="replace")
    shown = "\\u001b]8;;" if json_mode else "\\x1b]8;;"
    for name in ("claude-opus-4-5", "mcp__srv", "/w/src/file"):
        assert name + shown in text, (name, shown)


def test_new_fields_never_drive_the_tui(fields_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The sessions list, the timeline at every message and the graph screen."""
    import asyncio

    from tests.hostile.test_tui import _walk

    monkeypatch.setenv("TZ", "UTC")
    bad, shown = asyncio.run(_walk(fields_db))
    assert not bad, bad[:10]
    assert any("timeline" in w for w in shown), shown
