"""Item 1 of issue 24: transcript text never drives the terminal.

Every read command runs on a pseudo-terminal over the hostile knowledge base
(:mod:`tests.hostile.corpus`: OSC 52, OSC 0, CSI, C1 and bidi overrides in every text
of opencode, Claude Code, Codex, Gemini CLI, pi and Antigravity sessions, the Gemini
session id included), and the bytes it wrote are searched for ESC
(other than the renderer's own styling), BEL, C1 and bidi characters.  The hostile text
itself must be there, shown as visible escapes (``\\x1b]52;``).  ``--json`` keeps the exact
text (JSON escapes it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import orjson

from tests.hostile.conftest import run_pty
from tests.hostile.corpus import HOSTILE, found_bad

SHOWN = rb"\x1b]52;"
"""The OSC 52 sequence as the sanitizer shows it."""


def _json_lines(db: Path, *args: str) -> list[dict]:
    r = subprocess.run([sys.executable, "-m", "kb", *args, "--db", str(db), "--json"],
                       capture_output=True, timeout=300, check=True)
    return [json.loads(x) for x in r.stdout.splitlines() if x.strip()]


def _commands(db: Path) -> list[list[str]]:
    """Every read command, for every session, with arguments that reach hostile text."""
    d = ["--db", str(db)]
    sessions = _json_lines(db, "sessions")
    cmds: list[list[str]] = [
        ["sessions", *d], ["search", "flashinfer", *d], ["search", "registry", *d],
        ["search", "--regex", "PWNED", *d],
        ["query", "select session_id, title from sessions", *d],
        ["query", "--csv", "select title from sessions", *d],
        ["secrets", *d], ["deadends", "--all", *d], ["untested", "--all", *d],
        ["graph", "--all", "--format", "dot", *d], ["path", *d],
    ]
    for s in sessions:
        sid = s["id"]
        ss = ["--session", sid, *d]
        cmds += [["events", *ss], ["events", "--kind", "command,result,todo", *ss],
                 ["deadends", *ss], ["untested", *ss], ["why", "flashinfer", *ss],
                 ["timeline", *ss], ["handoff", *ss], ["graph", *ss],
                 ["graph", "--format", "dot", *ss], ["graph", "--format", "mermaid", *ss],
                 ["graph", "--format", "graphml", *ss], ["replay", "plan", "--from", "1", *ss],
                 ["resume", sid, *d]]
        for n in range(1, s["messages"] + 1):
            cmds.append(["show", str(n), "--full", *ss])
    cmds += [["use", sessions[0]["id"], *d], ["use", *d], ["sessions", *d]]
    return cmds


def test_every_read_command_on_a_terminal_shows_control_sequences_as_escapes(
        hostile_db: Path, tmp_path: Path) -> None:
    cmds = _commands(hostile_db)
    code, data = run_pty([sys.executable, "-m", "tests.hostile.pty_driver",
                          orjson.dumps(cmds).decode()], env={"HOME": str(tmp_path)})
    assert code == 0, data[-2000:]
    chunks = data.split(b"@@@ end ")
    assert len(chunks) == len(cmds) + 1, data[-2000:]
    failures = []
    for args, chunk in zip(cmds, chunks):
        bad = found_bad(chunk, allow_own=True)
        if bad or b"\x1b[2J" in chunk or b"\x1b]" in chunk or b"driver:" in chunk:
            failures.append((args[:3], bad, chunk[:400]))
    assert not failures, failures
    shown = [args[:2] for args, chunk in zip(cmds, chunks) if SHOWN in chunk]
    # the hostile text is shown, not dropped: by the lists, the messages and the exports
    for want in (["sessions"], ["search", "flashinfer"], ["show"], ["events"], ["handoff"],
                 ["graph", "--format"], ["query", "select session_id, title from sessions"]):
        assert any(s[:len(want)] == want for s in shown), (want, shown)


def test_json_keeps_the_exact_text(hostile_db: Path) -> None:
    rows = _json_lines(hostile_db, "sessions")
    assert any(HOSTILE in (r["title"] or "") for r in rows), [r["title"] for r in rows]
    r = subprocess.run([sys.executable, "-m", "kb", "search", "flashinfer", "--json", "--db",
                        str(hostile_db)], capture_output=True, timeout=300, check=True)
    assert b"\x1b" not in r.stdout and b"\\u001b]52;" in r.stdout  # escaped by JSON
    ev = _json_lines(hostile_db, "events", "--kind", "command", "--session", rows[0]["id"])
    assert any(HOSTILE in (e["command"] or "") for e in ev)


def test_json_carries_no_c1_or_bidi_byte_and_decodes_to_the_exact_text(
        hostile_db: Path, tmp_path: Path) -> None:
    """JSON encoders escape C0 only: ``--json`` piped to a terminal would carry the C1 CSI
    (``\\xc2\\x9b``) and bidi overrides raw.  logkb writes them as ``\\u`` escapes, which
    decode to the same text."""
    d = ["--db", str(hostile_db), "--json"]
    sid = _json_lines(hostile_db, "sessions")[0]["id"]
    out = tmp_path / "graph.json"
    for args in (["sessions"], ["events", "--session", sid], ["search", "flashinfer"],
                 ["show", "1", "--session", sid], ["handoff", "--session", sid],
                 ["graph", "--session", sid], ["query", "select title from sessions"],
                 ["graph", "--session", sid, "--format", "json", "-o", str(out)]):
        r = subprocess.run([sys.executable, "-m", "kb", *args, *d], capture_output=True,
                           timeout=300, check=True)
        data = r.stdout + (out.read_bytes() if "-o" in args else b"")
        assert found_bad(data) == [], (args, found_bad(data))
        values = [json.loads(x) for x in data.splitlines() if x.strip()]
        if args[0] in ("sessions", "events", "query"):  # whole texts: the exact value
            assert any(HOSTILE in s for s in _strings(values)), args


def _strings(v: object) -> list[str]:
    """Every string in a decoded JSON value."""
    if isinstance(v, str):
        return [v]
    if isinstance(v, dict):
        return [s for x in v.values() for s in _strings(x)]
    if isinstance(v, list):
        return [s for x in v for s in _strings(x)]
    return []


def test_query_table_shows_the_whole_hostile_text(hostile_db: Path) -> None:
    """The query table was measured on the raw text and escaped after: every cell was
    cut to its raw width, so all past the first controls was lost from the screen."""
    from kb.safe_text import visible

    titles = [r["title"] for r in _json_lines(hostile_db, "sessions") if HOSTILE in r["title"]]
    r = subprocess.run([sys.executable, "-m", "kb", "query", "select title from sessions",
                        "--db", str(hostile_db)], capture_output=True, timeout=300, check=True,
                       env={**os.environ, "COLUMNS": "80"})
    shown = "".join(r.stdout.decode().split())
    assert titles and found_bad(r.stdout) == []
    for t in titles:
        assert "".join(visible(t).split()) in shown, (t, r.stdout.decode())
