"""Codex sub-agents as child sessions, whichever rollout is read first.

The rollouts are ``fixtures/codex_subagents`` (built from codex-rs's record shapes: no
rollout we may read holds a sub-agent; see its README): a parent whose ``spawn_agent``
answered the new thread's id (multi_agents) and its agent, which errored; a parent of a
newer build whose ``spawn_agent`` answered the agent's path (MultiAgentV2) and its agent.
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

from fixtures.codex_subagents.make import CHILD_V1, CHILD_V2, PARENT_V1, PARENT_V2, files
from kb.graph.store import scope_sessions
from kb.ingest import ingest
from kb.store import KbStore
from logparse.codex import CodexReader, spawn_source, spawned_child
from logparse.models import Problem

DAY = Path(__file__).resolve().parents[2] / "fixtures" / "codex_subagents" / "sessions" / \
    "2026" / "07" / "11"
ROOT = Path(__file__).resolve().parents[2]


def rollout(sid: str) -> Path:
    (f,) = DAY.glob(f"rollout-*-{sid}.jsonl")
    return f


LINKED = [(PARENT_V1, None), (CHILD_V1, PARENT_V1), (PARENT_V2, None), (CHILD_V2, PARENT_V2)]
SPAWNS = [(PARENT_V1, "spawn_agent", CHILD_V1), (PARENT_V2, "spawn_agent", CHILD_V2)]


def test_the_fixture_is_what_its_script_writes() -> None:
    for name, lines in files().items():
        assert (DAY / name).read_text() == "".join(json.dumps(o) + "\n" for o in lines)


def test_spawn_source_reads_codex_rs_session_sources() -> None:
    assert spawn_source("cli") is None and spawn_source("vscode") is None
    assert spawn_source({"subagent": "review"}) is None  # a review names no parent thread
    assert spawn_source({"subagent": {"other": "guardian"}}) is None
    assert spawn_source({"subagent": {"thread_spawn": {"parent_thread_id": PARENT_V1,
                                                       "depth": 2, "agent_type": "worker"}}}
                        ) == {"parent": PARENT_V1, "depth": 2, "path": None,
                              "nickname": None, "role": "worker"}
    assert spawned_child('{"agent_id": "019f", "nickname": null}') == ("019f", None)
    assert spawned_child('{"task_name": "/root/a"}') == (None, "/root/a")
    assert spawned_child("Agent depth limit reached. Solve the task yourself.") == (None, None)


def read(path: Path, problems: list[Problem], reader: CodexReader | None = None
         ) -> tuple[dict[str, Any], list[dict[str, Any]], int]:
    """The one session of a rollout: its info, its tool parts, its message count."""
    (got,) = [(s.info or {}, [p for m in ms for p in m.parts if p.get("type") == "tool"],
               len(ms)) for s in (reader or CodexReader()).sessions(path, problems)
              for ms in [list(s.messages)]]
    return got


def test_the_reader_names_both_ends_of_the_link() -> None:
    problems: list[Problem] = []
    info, tools, n = read(rollout(CHILD_V1), problems)
    # four messages and the reply the stream error ended (a Codex ``error`` event)
    assert info["parentID"] == PARENT_V1 and n == 5
    assert info["subagent"] == {"parent": PARENT_V1, "depth": 1, "path": None,
                                "nickname": "Euclid", "role": "explorer"}
    assert [t["state"]["metadata"].get("exit") for t in tools] == [101]
    # a forked agent: the parent's lines it copies (its session_meta to the spawn call,
    # answered "You are the newly spawned agent…") are kept raw in its first message,
    # no message or call of its own (the parent's prompt and spawn are not read twice)
    reader = CodexReader()
    info, tools, n = read(rollout(CHILD_V2), problems, reader)
    assert info["childKey"] == "/root/lint_pass" and info["parentID"] == PARENT_V2
    assert info["forked"] is True and reader.skipped == {}
    assert n == 4 and [(t["tool"], t["state"]["metadata"].get("exit")) for t in tools] == [
        ("bash", 0)]
    info, tools, _ = read(rollout(PARENT_V1), problems)
    assert "parentID" not in info and "subagent" not in info
    assert [(t["tool"], t["state"]["metadata"].get("sessionId")) for t in tools] == [
        ("spawn_agent", CHILD_V1), ("wait", None)]
    _, (spawn,), _ = read(rollout(PARENT_V2), problems)
    assert spawn["state"]["input"]["childKey"] == "/root/lint_pass"
    assert "sessionId" not in spawn["state"]["metadata"]
    assert problems == []


def test_a_spawn_end_event_names_the_child_of_a_spawn_never_answered(tmp_path: Path) -> None:
    """Rollouts that keep extended events hold ``collab_agent_spawn_end`` (its
    ``new_thread_id``) before the call's output: a rollout cut there still links."""
    lines = rollout(PARENT_V1).read_text().splitlines()
    at = next(i for i, x in enumerate(lines) if '"function_call_output"' in x)
    end = {"timestamp": "2026-07-11T10:00:06.500Z", "type": "event_msg", "payload": {
        "type": "collab_agent_spawn_end", "call_id": "call_spawn_ledger",
        "sender_thread_id": PARENT_V1, "new_thread_id": CHILD_V1,
        "new_agent_nickname": "Euclid", "new_agent_role": "explorer",
        "prompt": "Run `cargo test -p ledger`", "status": "pending_init"}}
    f = tmp_path / "cut.jsonl"
    f.write_text("\n".join([*lines[:at], json.dumps(end)]) + "\n")
    problems: list[Problem] = []
    reader = CodexReader()
    _, tools, _ = read(f, problems, reader)
    assert [(t["tool"], t["state"]["metadata"].get("sessionId")) for t in tools] == [
        ("spawn_agent", CHILD_V1)]
    assert problems == [] and reader.skipped == {}


def _links(store: KbStore) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    q = store.conn.execute
    return (q("SELECT session_id, parent_id FROM sessions ORDER BY time_created").fetchall(),
            q("SELECT session_id, tool, child_session_id FROM calls "
              "WHERE child_session_id IS NOT NULL ORDER BY ALL").fetchall())


@pytest.mark.parametrize("order", ["together", "children first", "parents first"])
def test_children_link_whichever_rollout_is_ingested_first(tmp_path: Path, order: str) -> None:
    children = [rollout(CHILD_V1), rollout(CHILD_V2)]
    parents = [rollout(PARENT_V1), rollout(PARENT_V2)]
    runs = {"together": [children + parents], "children first": [children, parents],
            "parents first": [parents, children]}[order]
    with KbStore(tmp_path / "kb.duckdb") as store:
        for paths in runs:
            rep = ingest(store, paths, graph=True)
            assert [str(p) for p in rep.problems] == [] and rep.skipped == {}
        assert _links(store) == (LINKED, SPAWNS)
        # the parent's scope holds its sub-agent: the failure inside it is the parent's
        assert scope_sessions(store, PARENT_V1) == [PARENT_V1, CHILD_V1]
        assert {r[0] for r in store.conn.execute(
            "SELECT scope FROM graph_builds").fetchall()} == {PARENT_V1, PARENT_V2}
        # its session and what is open in it are nodes of the parent's graph
        assert ("session",) in store.conn.execute(
            "SELECT DISTINCT type FROM graph_nodes WHERE scope = ? AND session_id = ?",
            [PARENT_V1, CHILD_V1]).fetchall()
        # nothing lost: every line of every rollout is in one message's record, in order
        for f in children + parents:
            sid = f.stem.split("-", 6)[-1]
            rows = store.conn.execute(
                "SELECT json_extract(raw, '$.lines') FROM messages WHERE session_id = ? "
                "ORDER BY ordinal", [sid]).fetchall()
            lines = [n for (r,) in rows for n in json.loads(r)]
            assert lines == list(range(1, len(f.read_bytes().splitlines()) + 1)), f.name


def test_a_child_alone_stands_alone_until_its_parent_arrives(tmp_path: Path) -> None:
    """A sub-agent whose parent is not stored is a top-level session (its own scope,
    listed, the latest session) and keeps the parent its rollout named; once the parent
    is ingested it is that parent's, and its own graph is gone."""
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [rollout(CHILD_V1)], graph=True)
        assert _links(store) == ([(CHILD_V1, None)], [])
        assert store.resolve_session(None) == CHILD_V1
        assert store.conn.execute("SELECT scope FROM graph_builds").fetchall() == [(CHILD_V1,)]
        ((raw,),) = store.conn.execute("SELECT info FROM sessions").fetchall()
        info = json.loads(raw)
        assert info["parentID"] == PARENT_V1
        ingest(store, [rollout(PARENT_V1)], graph=True)
        assert _links(store) == (LINKED[:2], SPAWNS[:1])
        assert store.conn.execute("SELECT scope FROM graph_builds").fetchall() == [(PARENT_V1,)]
        assert store.resolve_session(None) == PARENT_V1


def _kb(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kb", *args], env=env, text=True,
                          capture_output=True, check=False, cwd=ROOT)


def test_ingest_without_a_path_reads_sub_agents_from_codex_home(tmp_path: Path) -> None:
    """``logkb ingest`` with no path reads ``$CODEX_HOME/sessions``; ``logkb sessions``
    lists each sub-agent under its parent, ``--json`` names the parent and the ordinal
    of the call that spawned it."""
    home = tmp_path / "codex"
    shutil.copytree(DAY.parents[2], home / "sessions")
    env = dict(os.environ, LOGKB_DB=str(tmp_path / "kb.duckdb"), HOME=str(tmp_path),
               LOGKB_HOME=str(tmp_path), CODEX_HOME=str(home), NO_COLOR="1",
               COLUMNS="80", PYTHONPATH=str(ROOT))
    for var in ("XDG_DATA_HOME", "CLAUDE_CONFIG_DIR", "GEMINI_CLI_HOME",
                "PI_CODING_AGENT_DIR"):
        env.pop(var, None)
    r = _kb(env, "ingest", "--json")
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert sorted(s["id"] for s in doc["sessions"]) == sorted(s for s, _ in LINKED)
    assert doc["problems"] == [] and doc["errors"] == []
    rows = [json.loads(x) for x in _kb(env, "sessions", "--json").stdout.splitlines()]
    assert sorted((x["id"], x["parent_id"], x["spawned_at"]) for x in rows) == sorted([
        (PARENT_V1, None, None), (CHILD_V1, PARENT_V1, 4),
        (PARENT_V2, None, None), (CHILD_V2, PARENT_V2, 4)])
    # a sub-agent resumes as the session that spawned it (codex resume <parent>)
    assert {x["id"]: x["resume"] for x in rows}[CHILD_V1] == \
        {x["id"]: x["resume"] for x in rows}[PARENT_V1]
    table = _kb(env, "sessions", "--limit", "1").stdout.splitlines()
    assert len(table) == 3 and all(len(line) <= 80 for line in table), table
    top, kid = table[1], table[2]  # the latest top-level session, then its sub-agent
    assert PARENT_V2[:7] in top and CHILD_V2[:7] in kid and "└" in kid
    # the spawning call names its sub-agent's session
    shown = _kb(env, "show", "--session", PARENT_V1, "4")
    assert f"→ child session {CHILD_V1}" in shown.stdout, shown


@pytest.mark.parametrize("cut", [4, 9, 12])
def test_a_forked_agent_grown_ends_where_a_fresh_ingest_does(tmp_path: Path, cut: int) -> None:
    """A forked agent's rollout read while it grows (cut inside the copied history, at the
    spawn's answer that ends it, after its own first messages): the reading that goes
    on from where it stopped stores what a fresh reading of the whole file does."""
    lines = rollout(CHILD_V2).read_bytes().splitlines(keepends=True)
    f = tmp_path / rollout(CHILD_V2).name
    f.write_bytes(b"".join(lines[:cut]))
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [f], graph=False)
        f.write_bytes(b"".join(lines))
        rep = ingest(store, [f], graph=False)
        got = [e.model_dump() for e in store.events(CHILD_V2)]
    with KbStore(tmp_path / "fresh.duckdb") as store:
        fresh = ingest(store, [f], graph=False)
        want = [e.model_dump() for e in store.events(CHILD_V2)]
    assert [str(p) for p in rep.problems] == [] and fresh.problems == []
    assert got == want and len(want) > 0


def test_two_agents_of_one_path_leave_the_call_unlinked(tmp_path: Path) -> None:
    """A path names one agent of a parent at a time: when two stored sub-agents of the
    parent claim the call's path, the call names neither (each still has its parent)."""
    twin = "019f7b20-6c7d-7e8f-9a0b-1c2d3e4f5a05"
    f = tmp_path / f"rollout-2026-07-11T10-00-40-{twin}.jsonl"
    f.write_text(rollout(CHILD_V2).read_text().replace(CHILD_V2, twin))
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [rollout(PARENT_V2), rollout(CHILD_V2), f], graph=False)
        sessions, calls = _links(store)
        assert sorted(sessions, key=str) == sorted(
            [(PARENT_V2, None), (CHILD_V2, PARENT_V2), (twin, PARENT_V2)], key=str)
        assert calls == []
