"""A newcomer's first hour, replayed end to end (issue 26).

A fresh HOME whose agent folders hold real sessions (Claude Code in
``~/.claude/projects/x/``, Codex in ``~/.codex/sessions/2026/01/01/``, opencode's
``opencode.db`` in ``~/.local/share/opencode/``), no ``LOGKB_DB``: what the README's
"Your own sessions" says to do, then what a user tries next, each as a real process,
asserting what the user sees; the TUI at 80×24 in a real terminal (tmux).
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.newcomer_env import (
    CLAUDE_ID,
    CODEX_ID,
    OPENCODE_ID,
    Tmux,
    fake_home,
    home_env,
    logkb,
    logkb_argv,
)


def test_a_newcomers_first_hour(tmp_path: Path) -> None:
    home = fake_home(tmp_path)
    env = home_env(home)
    work = tmp_path / "work"
    work.mkdir()

    def run(*args: str, code: int = 0) -> tuple[str, str]:
        r = logkb(list(args), env, cwd=work)
        assert r.returncode == code, (args, r.returncode, r.stdout, r.stderr)
        assert "Traceback" not in r.stderr, r.stderr
        return r.stdout, r.stderr

    # ingest with no path: the three agents' folders, each said
    out, err = run("ingest")
    for agent, folder in (("opencode", ".local/share/opencode"),
                          ("Claude Code", ".claude/projects"), ("Codex", ".codex/sessions")):
        assert f"{agent}: {home / folder}: 1 session read" in err, err
    assert "3 sessions, " in err and "0 problems" in err
    kb = Path(run("path")[0].strip())
    assert kb == home / ".local" / "share" / "logkb" / "kb.duckdb" and kb.exists()

    # sessions: short ids, the agent of each, 80 columns
    out, _ = run("sessions")
    rows = out.splitlines()
    assert rows[0].split()[:3] == ["session", "agent", "title"]
    assert all(len(r) <= 80 for r in rows)
    for sid, agent in ((OPENCODE_ID, "opencode"), (CLAUDE_ID, "claude-code"),
                       (CODEX_ID, "codex")):
        line = next(r for r in rows if agent in r.split())
        assert sid not in line and line.split()[0] == sid[:len(line.split()[0])]
    sessions = [json.loads(x) for x in run("sessions", "--json")[0].splitlines()]
    resume = {s["agent"]: s["resume"] for s in sessions}
    assert resume == {"opencode": f"opencode --session {OPENCODE_ID}",
                      "claude-code": f"claude --resume {CLAUDE_ID}",
                      "codex": f"codex resume {CODEX_ID}"}
    claude_short = next(s["short_id"] for s in sessions if s["agent"] == "claude-code")
    assert run("resume", claude_short)[0].strip() == f"claude --resume {CLAUDE_ID}"

    # search: a hit names its session, agent and ordinal; a miss exits 1 with a hint
    out, _ = run("search", "Hello world")
    head = out.splitlines()[0]
    assert head.startswith(f"{claude_short}  claude-code  Write a shell script")
    assert any(ln.split()[:2] == ["3", "output"] for ln in out.splitlines()[1:])
    out, err = run("search", "kubernetes-operator-zzz", code=1)
    assert out == "" and "no match for 'kubernetes-operator-zzz' in 3 sessions" in err
    assert "hint:" in err and "--regex" in err

    # dead ends: the latest session has none and says where some are
    out, err = run("deadends")
    assert out == "" and "no dead ends found in" in err and "use --session ses_04ca851" in err
    out, _ = run("deadends", "--all")
    assert "ses_04ca851" in out and OPENCODE_ID not in out and "dead_end" in out
    first = json.loads(run("deadends", "--all", "--json")[0].splitlines()[0])

    # why: a dead end it knows, and something it knows nothing about
    out, _ = run("why", first["name"], "--all")
    assert first["name"] in out and "dead_end" in out
    out, err = run("why", "quantum-flux-capacitor", "--all", code=6)
    assert out == "" and err.startswith(
        "logkb: nothing known about 'quantum-flux-capacitor'")
    assert "hint:" in err

    # handoff of the opencode session, by its short id without `ses_`
    run("handoff", "--session", "04ca851", "-o", "brief.md")
    brief = (work / "brief.md").read_text()
    assert brief.startswith("#") and "sync" in brief.lower()

    # the TUI at 80×24 in a real terminal
    if shutil.which("tmux") is None:
        pytest.fail("tmux is needed (Debian package tmux)")
    term = Tmux("newcomer", env)
    try:
        term.start(logkb_argv(["tui"]), (80, 24), work)
        pane = term.wait_for("claude-code", "codex", "opencode", "3 sessions")
        assert "Write a shell script" in pane
        rows = pane.splitlines()
        assert len(rows) <= 24 and all(len(r) <= 80 for r in rows)
        # open the Claude Code session (the rows are newest first: find it)
        order = [r for r in rows if any(a in r for a in ("claude-code", " codex", "opencode"))]
        target = next(i for i, r in enumerate(order) if "claude-code" in r)
        for _ in range(target):
            term.keys("Down")
        term.keys("Enter")
        pane = term.wait_for("of 6", "hello.sh")
        assert "category" in pane
        term.keys("n")  # the next failure, or stays: either way the screen holds
        term.keys("?")
        term.wait_for("Help ·")
        term.keys("Escape")  # alone: escape then a key at once would be alt+key
        term.wait_gone("Help ·")
        term.keys("g")
        pane = term.wait_for("esc Back")
        assert "q Quit" in pane
    finally:
        term.close()
