"""Claude Code and Codex sessions through ingest, the store and every reading command."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.ingest import ingest
from kb.store import KbStore

SOULPASS = "019db04b-0312-7661-8759-f0642fa6cd46"
RTCHESS = "019aad50-a7e6-7422-b7a8-0b384290624f"
HELLO = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"
RUST = "c7d3d95c-57f0-4359-8f4b-926a9bef5a3f"


def run(*args: str, ok: bool = True) -> click.testing.Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


def agent_files(realworld: Path) -> list[Path]:
    """Every real Claude Code and Codex file in ../shared/ (found by content, not by name)."""
    from logparse.registry import discover

    # the four files these tests were written on (the pool, never walked here: it holds
    # the held-out files, and the other labelled files have their own test:
    # tests/kb/test_realworld_all.py)
    found = [i for d in ("claude-code", "codex", "labelled") for i in discover(realworld / d)
             if not isinstance(i, Exception)]
    files = sorted(i.path for i in found if i.form in ("claude-code", "codex")
                   and (i.path.parent.name != "labelled" or "soulpass" in i.path.name))
    assert len(files) == 4, files
    return files


@pytest.fixture(scope="module")
def agents_db(tmp_path_factory: pytest.TempPathFactory, realworld: Path) -> Path:
    db = tmp_path_factory.mktemp("agents") / "kb.duckdb"
    with KbStore(db) as store:
        report = ingest(store, agent_files(realworld))
    assert report.errors == [] and report.problems == []
    return db


def test_every_real_file_ingests_without_problems(agents_db: Path) -> None:
    rows = {r["id"]: r for r in map(json.loads, run("sessions", "--db", str(agents_db),
                                                    "--json").stdout.splitlines())}
    assert {k: (r["agent"], r["messages"], r["commands"]) for k, r in rows.items()} == {
        SOULPASS: ("codex", 369, 157), RTCHESS: ("codex", 704, 298),
        HELLO: ("claude-code", 6, 2), RUST: ("claude-code", 41, 39)}
    table = run("sessions", "--db", str(agents_db)).stdout
    assert "agent" in table and "claude-code" in table and "codex" in table
    with KbStore(agents_db, read_only=True) as store:
        assert store.conn.execute("SELECT count(*) FROM problems").fetchall() == [(0,)]
        assert store.conn.execute(
            "SELECT count(*) FROM other_events WHERE kind = 'raw'").fetchall() == [(0,)]


def test_reading_commands_work_on_them(agents_db: Path) -> None:
    db = ["--db", str(agents_db)]
    ev = [json.loads(x) for x in run("events", *db, "--session", SOULPASS, "--from", "139",
                                     "--to", "139", "--json").stdout.splitlines()]
    assert [(e["kind"], e["exit_code"]) for e in ev] == [("command", None), ("result", 7)]
    shown = run("show", "139", *db, "--session", SOULPASS).stdout
    assert "curl -I http://localhost:3000/employer/employees" in shown and "exit 7" in shown
    hits = run("search", "eslint: command not found", *db, "--json").stdout
    assert any(h["session_id"] == SOULPASS and h["ordinal"] == 98
               for h in map(json.loads, hits.splitlines()))
    un = [json.loads(x) for x in run("untested", *db, "--session", SOULPASS,
                                     "--json").stdout.splitlines()]
    assert {152, 201} <= {u["ordinal"] for u in un}
    run("deadends", *db, "--session", RTCHESS, "--json")
    brief = run("handoff", *db, "--session", RUST).stdout
    assert "Port this Python project to Rust" in brief
    sub = [json.loads(x) for x in run("events", *db, "--session", RUST, "--kind", "subagent",
                                      "--json").stdout.splitlines()]
    assert [e["child_session_id"] for e in sub] == [f"{RUST}:agent-ab81802"]


def test_growth_adds_only_new_messages_and_matches_a_fresh_ingest(
        tmp_path: Path, realworld: Path) -> None:
    src = realworld / "labelled" / "soulpass__codex-session.jsonl"
    lines = src.read_bytes().splitlines(keepends=True)
    grown = tmp_path / "rollout.jsonl"
    grown.write_bytes(b"".join(lines[:257]))  # ends just after two calls, before outputs
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        first = ingest(store, [grown], graph=False)
        n1 = first.sessions[0].messages
        grown.write_bytes(b"".join(lines))
        second = ingest(store, [grown], graph=False)
        again = ingest(store, [grown], graph=False)
        got = [e.model_dump() for e in store.events(SOULPASS)]
    assert first.problems == [] and second.problems == []
    assert second.sessions[0].messages == 369
    # only the new messages and the two calls that were waiting for their outputs
    # (stored again in place: updated)
    assert second.sessions[0].new_messages == 369 - n1
    assert second.sessions[0].updated_messages == 2
    assert again.unchanged == [str(grown)] and again.sessions == []
    fresh = tmp_path / "fresh.duckdb"
    with KbStore(fresh) as store:
        ingest(store, [grown], graph=False)
        want = [e.model_dump() for e in store.events(SOULPASS)]
    assert got == want


@pytest.mark.parametrize("rel, cut, sid", [
    ("claude-code/python-to-rust-port/transcript.jsonl", 29, RUST),  # inside a response
    ("codex/exported-session.jsonl", 1500, RTCHESS),  # its last record goes to the next
    # the file ends mid-turn: the usage so far is read at its end, then at the turn's end
    ("codex/exported-session.jsonl", 1259, RTCHESS),
    ("codex/exported-session.jsonl", 2100, RTCHESS),
])
def test_any_growth_ends_where_a_fresh_ingest_does(tmp_path: Path, realworld: Path, rel: str,
                                                    cut: int, sid: str) -> None:
    lines = (realworld / rel).read_bytes().splitlines(keepends=True)
    f = tmp_path / "t.jsonl"
    f.write_bytes(b"".join(lines[:cut]))
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [f], graph=False)
        f.write_bytes(b"".join(lines))
        rep = ingest(store, [f], graph=False)
        got = [e.model_dump() for e in store.events(sid)]
    with KbStore(tmp_path / "fresh.duckdb") as store:
        fresh = ingest(store, [f], graph=False)
        want = [e.model_dump() for e in store.events(sid)]
    assert rep.problems == [] and got == want
    grown = rep.sessions[0]
    assert 0 < grown.new_messages + grown.updated_messages < fresh.sessions[0].new_messages


def test_default_discovery_finds_claude_and_codex_dirs(
        tmp_path: Path, realworld: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    claude = tmp_path / "claude-config"
    proj = claude / "projects" / "-tmp-hello"
    proj.mkdir(parents=True)
    shutil.copy(realworld / "claude-code" / "hello-world-script" / "transcript.jsonl",
                proj / f"{HELLO}.jsonl")
    codex = tmp_path / "codex-home"
    day = codex / "sessions" / "2025" / "11" / "22"
    day.mkdir(parents=True)
    shutil.copy(realworld / "codex" / "exported-session.jsonl", day / f"rollout-x-{RTCHESS}.jsonl")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(claude))
    monkeypatch.setenv("CODEX_HOME", str(codex))
    db = tmp_path / "kb.duckdb"
    doc = json.loads(run("ingest", "--db", str(db), "--json").stdout)
    assert {(s["id"], s["form"]) for s in doc["sessions"]} == {
        (HELLO, "claude-code"), (RTCHESS, "codex")}
    assert doc["problems"] == [] and doc["errors"] == []
