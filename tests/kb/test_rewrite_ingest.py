"""A rewrite of a session (an author's sanitised transcript, a written summary) is read,
stored as form ``rewrite`` under the agent its header names, and said to be one: by
``ingest`` (a note, exit 0), ``sessions``, ``show``, ``--json``; the live-turn rules do
not read it as a turn that stopped short, and it has nothing to resume."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from rich.cells import cell_len

from kb.exitcodes import ExitCode
from tests.cli_kb import invoke

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"
W80 = {"COLUMNS": "80"}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    kb = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(kb), str(TRIM / "rewrite_claude.jsonl"),
               str(TRIM / "rewrite_codex.jsonl"), env=W80)
    assert r.exit_code == 0, r.stderr
    return kb


def test_ingest_reads_a_rewrite_and_says_so(tmp_path: Path) -> None:
    kb = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(kb), "--json", str(TRIM / "rewrite_codex.jsonl"), env=W80)
    assert r.exit_code == ExitCode.OK, r.stderr  # read: not an error, not a problem
    (s,) = json.loads(r.stdout)["sessions"]
    assert (s["form"], s["agent"], s["messages"]) == ("rewrite", "codex", 6)
    said = " ".join(r.stderr.split())
    assert "a rewrite of a codex session, not the agent's own output" in said
    assert "skipped 3 records of 2 unknown types (kept raw): tool_summary (2), " \
           "file_change (1)" in said
    # each note wraps under its label at the width the pipe was given (ux12: one line
    # each ran to 185 columns at COLUMNS=80)
    assert all(ln.startswith(("note:", str(TRIM), "  ")) and len(ln) <= 80
               for ln in r.stderr.splitlines() if ln), r.stderr


def test_a_damaged_rewrite_is_read_with_its_problems(tmp_path: Path) -> None:
    f = tmp_path / "r.jsonl"
    shutil.copy(TRIM / "rewrite_claude.jsonl", f)
    with f.open("a", encoding="utf-8") as out:
        out.write("{cut in the midd\n")
    r = invoke("ingest", "--db", str(tmp_path / "kb.duckdb"), str(f))
    assert r.exit_code == ExitCode.PROBLEMS, r.stderr  # as for any transcript with a bad line
    assert "7 messages" in r.stdout and f"{f}:15" in r.stderr


def test_ingest_without_path_takes_a_rewrite_in_claude_projects(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """It used to make every ingest without a path exit 3 (``looks like a sanitised
    rewrite``), with 0 sessions read from the folder."""
    projects = tmp_path / "claude" / "projects" / "-srv-trade-arena"
    projects.mkdir(parents=True)
    shutil.copy(TRIM / "claude_2_1.jsonl", projects / "s.jsonl")
    shutil.copy(TRIM / "rewrite_claude.jsonl", projects / "claude-session.jsonl")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "ghome"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi"))
    kb = str(tmp_path / "kb.duckdb")
    r = invoke("ingest", "--db", kb, env=W80)
    assert r.exit_code == ExitCode.OK, r.stderr
    err = " ".join(r.stderr.split())
    assert (f"Claude Code: {tmp_path / 'claude' / 'projects'}: 2 sessions read, "
            "0 inputs unchanged, 0 files not taken") in err
    assert "a rewrite of a claude-code session" in err and "error" not in err
    again = invoke("ingest", "--db", kb)  # nothing changed: nothing read, still exit 0
    assert again.exit_code == ExitCode.OK, again.stderr
    assert "2 inputs unchanged" in " ".join(again.stderr.split())


def test_sessions_name_the_form_and_resume_nothing(db: Path) -> None:
    r = invoke("sessions", "--db", str(db), "--json")
    rows = {s["agent"]: s for s in map(json.loads, r.stdout.splitlines())}
    assert set(rows) == {"claude-code", "codex"}
    for s in rows.values():
        assert s["source_form"] == "rewrite" and s["complete"] is False
        assert s["resume"] is None
    # at 80 columns the form column stays while a rewrite is listed
    r = invoke("sessions", "--db", str(db), env=W80)
    assert r.exit_code == 0 and "form" in r.stdout.splitlines()[0]
    assert r.stdout.count("rewrite*") == 2
    assert all(cell_len(ln) <= 80 for ln in r.stdout.splitlines())
    sid = rows["claude-code"]["id"]
    r = invoke("sessions", sid, "--db", str(db), env=W80)
    assert "claude-code (a rewrite of its session, not its own output)" in r.stdout
    assert "(none: read from a rewrite)" in r.stdout
    r = invoke("resume", sid, "--db", str(db))
    assert r.exit_code == ExitCode.NOT_FOUND
    assert "was read from a rewrite of a claude-code session" in " ".join(r.stderr.split())


def _sid(db: Path, agent: str) -> str:
    r = invoke("query", "--db", str(db), "--json",
               f"SELECT session_id FROM sessions WHERE agent = '{agent}'")
    return str(json.loads(r.stdout.splitlines()[0])["session_id"])


def test_no_live_turn_questions_and_no_dead_ends(db: Path) -> None:
    for agent in ("claude-code", "codex"):
        sid = _sid(db, agent)
        r = invoke("untested", "--db", str(db), "--session", sid, env=W80)
        assert r.exit_code == 0 and "what was this reply going to answer" not in r.stdout
        assert "no untested questions" in r.stderr, (r.stdout, r.stderr)
        r = invoke("deadends", "--db", str(db), "--session", sid, env=W80)
        assert r.exit_code == 0 and "no dead ends found" in r.stderr, (r.stdout, r.stderr)


def test_show_marks_the_rewrite_and_does_not_judge_a_call_kept_as_text(db: Path) -> None:
    sid = _sid(db, "claude-code")
    r = invoke("show", "3", "--db", str(db), "--session", sid, env=W80)
    assert r.exit_code == 0, r.stderr
    head, kind, text = r.stdout.splitlines()[:3]
    assert "message 3 · assistant" in head and "· rewrite" in head
    assert kind.strip() == "decision"  # no "observation", no "reply"
    assert text.strip().startswith("[tool_use:Bash")
    assert all(cell_len(ln) <= 80 for ln in r.stdout.splitlines())
    r = invoke("show", "2", "--db", str(db), "--session", sid, "--json")
    (ev,) = json.loads(r.stdout)["events"]
    assert ev["classification"] is not None  # the agent's own words are still read
    r = invoke("events", "--db", str(db), "--session", sid, "--json")
    kinds = [json.loads(x)["kind"] for x in r.stdout.splitlines()]
    assert "command" not in kinds and "result" not in kinds  # no call invented
    assert "compaction" in kinds  # Claude Code's summary, written as a user message
