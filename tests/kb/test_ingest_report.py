"""``logkb ingest`` says what it did not take or did not understand, file by file."""

from __future__ import annotations

import json
import shutil
import threading
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.live.watch import Watcher

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"
DAMAGED_CODEX = '{"type":"turn_context","timestamp":"2026-05-01T07:00:00Z"}\n'
"""A file whose first line is a Codex record and nothing of it can be read: refused by
name (``looks like an OpenAI Codex rollout``), an error even inside a folder."""


def _folder(tmp_path: Path) -> Path:
    d = tmp_path / "sessions"
    d.mkdir()
    shutil.copy(TRIM / "claude_2_1.jsonl", d / "claude.jsonl")
    shutil.copy(TRIM / "rewrite_claude.jsonl", d / "rewrite.jsonl")
    (d / "damaged.jsonl").write_text(DAMAGED_CODEX, encoding="utf-8")
    (d / "notes.md").write_text("# not a session\n", encoding="utf-8")
    return d


def test_directory_ingest_reports_every_file_it_did_not_take(tmp_path: Path) -> None:
    d = _folder(tmp_path)
    db = str(tmp_path / "kb.duckdb")
    r = CliRunner().invoke(cli, ["ingest", "--db", db, "--json", str(d)])
    assert r.exit_code == 3, r.stderr  # a Codex log nothing of which could be read: an error
    doc = json.loads(r.stdout)
    assert doc["errors"] == [{"path": str(d / "damaged.jsonl"), "reason": (
        "looks like an OpenAI Codex rollout but no record of it could be read")}]
    assert doc["not_taken"] == [{"path": str(d / "notes.md"), "reason": "unrecognised content"}]
    assert doc["skipped"] == [{"path": str(d / "claude.jsonl"), "records": 1,
                               "types": {"brand-new-type": 1}}]
    # the rewrite is read, and says what it is
    assert [(s["messages"], s["form"], s["agent"]) for s in doc["sessions"]] == [
        (4, "claude-code", "claude-code"), (7, "rewrite", "claude-code")]
    assert "looks like an OpenAI Codex rollout" in r.stderr
    assert "not taken: " in r.stderr and "notes.md" in r.stderr
    assert "skipped 1 record of 1 unknown type (kept raw): brand-new-type (1)" in r.stderr
    said = " ".join(r.stderr.split())  # wrapped at the terminal's width
    assert (f"note: {d / 'rewrite.jsonl'}: a rewrite of a claude-code session, not the "
            "agent's own output") in said


def test_ingest_without_path_reads_every_agents_store(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    claude = tmp_path / "claude" / "projects" / "-srv-app"
    codex = tmp_path / "codex" / "sessions" / "2026" / "07" / "11"
    gemini = tmp_path / "ghome" / ".gemini" / "tmp" / ("ab" * 32) / "chats"
    pi = tmp_path / "pi" / "sessions" / "--home-selim-civ6.ch--"
    for d in (claude, codex, gemini, pi):
        d.mkdir(parents=True)
    shutil.copy(TRIM / "claude_2_1.jsonl", claude / "s.jsonl")
    shutil.copy(TRIM / "codex_code_mode.jsonl", codex / "rollout-x.jsonl")
    shutil.copy(TRIM / "gemini_cli.jsonl", gemini / "session-2026-05-06T16-08-808bbe03.jsonl")
    shutil.copy(TRIM / "pi.jsonl", pi / "2026-06-08T17-05-46-114Z_019ea801.jsonl")
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))  # no opencode here
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    monkeypatch.setenv("CODEX_HOME", str(tmp_path / "codex"))
    monkeypatch.setenv("GEMINI_CLI_HOME", str(tmp_path / "ghome"))
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(tmp_path / "pi"))
    r = CliRunner().invoke(cli, ["ingest", "--db", str(tmp_path / "kb.duckdb")])
    assert r.exit_code == 0, r.stderr
    err = " ".join(r.stderr.split())
    assert f"opencode: {tmp_path / 'xdg' / 'opencode'}: not found" in err
    assert f"Claude Code: {tmp_path / 'claude' / 'projects'}: 1 session read" in err
    assert f"Codex: {tmp_path / 'codex' / 'sessions'}: 1 session read" in err
    assert f"Gemini CLI: {tmp_path / 'ghome' / '.gemini' / 'tmp'}: 1 session read" in err
    assert f"pi: {tmp_path / 'pi' / 'sessions'}: 1 session read" in err


def test_watch_reports_a_file_it_does_not_take_once(tmp_path: Path) -> None:
    d = _folder(tmp_path)
    seen: list[dict[str, object]] = []
    w = Watcher(tmp_path / "kb.duckdb", [d], on_event=seen.append, poll=0.1,
                stop=threading.Event())
    w.ingest_now()
    w.ingest_now()
    told = sorted((str(e["path"]), e["error"]) for e in seen if e["event"] == "not_taken")
    assert told == [(str(d / "damaged.jsonl"), True), (str(d / "notes.md"), False)]


RECORDED = Path(__file__).resolve().parents[2] / "fixtures" / "claude_record" / "recorded" / \
    "task_stream" / "-srv-campaign" / "1bd7c159-c5a4-41c4-9442-0674bdca85e4.jsonl"


def test_a_line_shift_is_reported_as_updated_not_new(tmp_path: Path) -> None:
    """A line added before every message (Claude Code writing a record at the top, a copy
    with a line inserted) moves each message to another line: the ingest stores them again
    in place (same content key), and says so: updated, not new."""
    f = tmp_path / "session.jsonl"
    lines = RECORDED.read_text(encoding="utf-8").splitlines(keepends=True)
    f.write_text("".join(lines), encoding="utf-8")
    db = str(tmp_path / "kb.duckdb")
    first = CliRunner().invoke(cli, ["ingest", "--db", db, "--json", str(f)])
    (s1,) = json.loads(first.stdout)["sessions"]
    assert s1["new_messages"] == s1["messages"] == 12
    assert s1["updated_messages"] == s1["unchanged_messages"] == 0
    # a summary line at the top: every message moves one line down
    top = '{"type":"summary","summary":"Add mul","leafUuid":"x"}\n'
    f.write_text(top + "".join(lines), encoding="utf-8")
    again = CliRunner().invoke(cli, ["ingest", "--db", db, "--json", str(f)])
    (s2,) = json.loads(again.stdout)["sessions"]
    assert s2["messages"] == 12
    assert (s2["new_messages"], s2["updated_messages"] + s2["unchanged_messages"]) == (0, 12)
    assert s2["updated_messages"] > 0
    text = CliRunner().invoke(cli, ["ingest", "--db", db, "--force", str(f)])
    assert "0 new, 12 unchanged" in text.stdout and "0 new, 12 unchanged" in text.stderr
