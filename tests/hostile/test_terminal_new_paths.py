"""The output paths added since issue 24's terminal review carry no control sequence.

Transcript text reaches the terminal through paths added after
:mod:`tests.hostile.test_terminal`'s corpus was written: the hand-off's goal and the
question a session ends on, a rewound Gemini CLI branch (``show``'s ``rewound``),
revised beliefs, failed sub-agents (Claude Code Task, ``<task-notification>``, Codex
``wait`` and ``<subagent_notification>``), CJK search hits, and decisions (the user's
answers to ``AskUserQuestion``, an approved plan, the agent's "I'm switching to").
Here each of them holds :data:`~tests.hostile.corpus.HOSTILE`: the sessions of
:mod:`tests.hostile.secret_corpus` with its plain word poisoned, and a Claude Code
session of decisions.  Every read command on a pseudo-terminal, ``--json`` and the TUI
must show the sequences as escapes, never emit them.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.hostile import secret_corpus
from tests.hostile.conftest import ROOT, run_pty
from tests.hostile.corpus import HOSTILE, found_bad

SHOWN = rb"\x1b]52;"
SID = "0c1a2b3c-4d5e-4f60-8a7b-8c9d0e1f2a99"


def write_decisions(path: Path) -> Path:
    """A Claude Code session whose decisions hold :data:`HOSTILE`: an answered
    AskUserQuestion, an approved plan, the agent switching, a closing question."""
    h = HOSTILE
    recs: list[dict[str, Any]] = []

    def line(kind: str, content: Any, extra: dict[str, Any] | None = None) -> None:
        n = len(recs) + 1
        msg: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            msg.update(id=f"msg_{n}", model="claude-opus-4-5", type="message")
        recs.append({"parentUuid": recs[-1]["uuid"] if recs else None, "isSidechain": False,
                     "sessionId": SID, "cwd": "/w", "version": "2.0.1", "gitBranch": "main",
                     "type": kind, "message": msg, "uuid": f"u-{n:06d}",
                     "timestamp": f"2025-10-01T10:00:{n:02d}.000Z", **(extra or {})})

    question = f"Which database {h}?"
    line("user", f"Please set up the database {h}")
    line("assistant", [{"type": "tool_use", "id": "toolu_q1", "name": "AskUserQuestion",
                        "input": {"questions": [{"question": question, "header": "DB",
                                                 "options": [{"label": f"pg{h}",
                                                              "description": "x"}],
                                                 "multiSelect": False}]}}])
    line("user", [{"type": "tool_result", "tool_use_id": "toolu_q1", "content": (
        f'User has answered your questions: "{question}"="pg{h}". You can now continue '
        "with the user's answers in mind.")}],
        {"toolUseResult": {"questions": [], "answers": {question: f"pg{h}"}}})
    plan = f"## Plan {h}\n1. install pg {h}"
    line("assistant", [{"type": "tool_use", "id": "toolu_p1", "name": "ExitPlanMode",
                        "input": {"plan": plan}}])
    line("user", [{"type": "tool_result", "tool_use_id": "toolu_p1",
                   "content": "User has approved your plan. You can now start coding."}],
         {"toolUseResult": {"plan": plan}})
    line("assistant", [{"type": "text", "text": f"I'm switching to sqlite instead {h}."}])
    line("assistant", [{"type": "text", "text": f"Should I also migrate the data {h}?"}])
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    return path


@pytest.fixture(scope="module")
def new_paths_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("hostile-new-paths")
    mp = pytest.MonkeyPatch()
    mp.setattr(secret_corpus, "WORD", "frobnicate" + HOSTILE)  # in every event's text
    try:
        files = secret_corpus.write_all(d / "src")
    finally:
        mp.undo()
    files.append(write_decisions(d / "src" / "decisions.jsonl"))
    db = d / "kb.duckdb"
    r = subprocess.run([sys.executable, "-m", "kb", "ingest", "--db", str(db), "--wait",
                        *map(str, files)], capture_output=True, timeout=300, cwd=ROOT)
    assert r.returncode == 0 and not found_bad(r.stdout + r.stderr), r.stderr[-2000:]
    return db


def _commands(db: Path) -> list[list[str]]:
    d = ["--db", str(db)]
    r = subprocess.run([sys.executable, "-m", "kb", "sessions", "--json", *d],
                       capture_output=True, timeout=300, check=True, cwd=ROOT)
    sessions = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    assert len(sessions) >= 7
    cmds = [["search", secret_corpus.CJK_WORD, *d], ["search", "frobnicate", *d],
            ["deadends", "--all", *d], ["untested", "--all", *d]]
    for s in sessions:
        ss = ["--session", s["id"], *d]
        cmds += [["handoff", *ss], ["deadends", *ss], ["untested", *ss],
                 ["events", "--kind", "decision,subagent", *ss], ["timeline", *ss]]
        cmds += [["show", str(n), "--full", *ss] for n in range(1, s["messages"] + 1)]
    return cmds


def test_new_paths_on_a_terminal_show_control_sequences_as_escapes(
        new_paths_db: Path, tmp_path: Path) -> None:
    cmds = _commands(new_paths_db)
    code, data = run_pty([sys.executable, "-m", "tests.hostile.pty_driver",
                          orjson.dumps(cmds).decode()], env={"HOME": str(tmp_path)})
    assert code == 0, data[-2000:]
    chunks = data.split(b"@@@ end ")
    assert len(chunks) == len(cmds) + 1, data[-2000:]
    failures = [(args[:4], found_bad(chunk, allow_own=True), chunk[:300])
                for args, chunk in zip(cmds, chunks)
                if found_bad(chunk, allow_own=True) or b"\x1b]" in chunk
                or b"driver:" in chunk]
    assert not failures, failures
    shown = {" ".join(args[:2]) for args, chunk in zip(cmds, chunks) if SHOWN in chunk}
    # the hostile text was reached on each new path, shown as escapes
    for want in ("handoff --session", "events --kind", "show 2", f"search {secret_corpus.CJK_WORD}",
                 "deadends --all"):
        assert want in shown, (want, sorted(shown))


def test_new_paths_in_json_carry_no_control_byte(new_paths_db: Path) -> None:
    d = ["--db", str(new_paths_db), "--json"]
    ss = ["--session", SID]
    for args in (["handoff", *ss], ["events", "--kind", "decision", *ss],
                 ["search", secret_corpus.CJK_WORD], ["deadends", "--all"],
                 ["untested", "--all"], *(["show", str(n), *ss] for n in range(1, 6))):
        r = subprocess.run([sys.executable, "-m", "kb", *args, *d], capture_output=True,
                           timeout=300, cwd=ROOT)
        assert r.returncode in (0, 1, 4) and found_bad(r.stdout) == [], (args, r.stdout[:300])
    r = subprocess.run([sys.executable, "-m", "kb", "events", "--kind", "decision", *ss, *d],
                       capture_output=True, timeout=300, check=True, cwd=ROOT)
    texts = [json.loads(x)["text"] for x in r.stdout.splitlines() if x.strip()]
    assert any(t.startswith("Chose: ") and HOSTILE in t for t in texts), texts  # exact


def test_new_paths_in_the_tui_show_control_sequences_as_escapes(
        new_paths_db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.hostile.test_tui import _walk

    monkeypatch.setenv("TZ", "UTC")
    bad, shown = asyncio.run(_walk(new_paths_db))
    assert not bad, bad[:10]
    assert any("timeline" in w for w in shown) and any("graph" in w for w in shown), shown
