"""``logkb mcp`` over stdio, spoken to as an MCP client would."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.live.conftest import McpClient, logkb


def test_lists_the_read_only_tools(mcp_client: McpClient) -> None:
    tools = {t["name"]: t for t in mcp_client.request("tools/list")["tools"]}
    assert set(tools) == {"search", "deadends", "why", "untested", "handoff", "events"}
    for t in tools.values():
        assert t["description"], t["name"]
        assert t["annotations"]["readOnlyHint"] is True
        assert t["annotations"]["destructiveHint"] is False


def test_deadends_about_an_approach_cites_cause_and_ordinal(mcp_client: McpClient,
                                                            earlier_kb_shared: Path) -> None:
    expected = [json.loads(x) for x in logkb("deadends", "--all", "--json", "--db",
                                             str(earlier_kb_shared)).stdout.splitlines()]
    deepep = [d for d in expected if "deepep" in d["name"].lower()]
    assert deepep, expected
    got = mcp_client.call("deadends", about="DeepEP")
    assert got["count"] == len(deepep)
    item = got["items"][0]
    assert item["name"] == deepep[0]["name"] and item["cause"] == deepep[0]["cause"]
    sid, _, ordinal = item["cite"].partition("#")
    assert sid == deepep[0]["session_id"] and int(ordinal) in item["evidence"]
    # words that no dead end mentions find nothing
    assert mcp_client.call("deadends", about="kubernetes ingress")["count"] == 0


def test_search_events_untested_why_handoff(mcp_client: McpClient) -> None:
    hits = mcp_client.call("search", query="deep_ep")
    assert hits["count"] >= 1 and all("#" in h["cite"] for h in hits["items"])
    sid, _, ordinal = hits["items"][0]["cite"].partition("#")
    evs = mcp_client.call("events", session=sid, start=int(ordinal), end=int(ordinal))
    assert evs["session"] == sid and evs["items"]
    assert all(e["ordinal"] == int(ordinal) for e in evs["items"])
    assert isinstance(mcp_client.call("untested")["items"], list)
    story = mcp_client.call("why", name="DeepEP")
    assert story["approach"]["label"].lower().startswith("check deepep") or \
        "deepep" in story["approach"]["label"].lower()
    whole = mcp_client.call("handoff", max_tokens=100_000)["markdown"]
    brief = mcp_client.call("handoff", max_tokens=200)
    assert brief["markdown"].startswith("#") and len(brief["markdown"]) < len(whole)


def test_errors_are_answers_not_crashes(mcp_client: McpClient) -> None:
    got = mcp_client.request("tools/call", {"name": "events",
                                            "arguments": {"session": "ses_nothing_like_this"}})
    assert got["isError"] is True and "no session" in got["content"][0]["text"]
    # the server is still there
    assert mcp_client.call("deadends")["count"] >= 1


def test_a_missing_knowledge_base_is_reported(tmp_path: Path) -> None:
    c = McpClient(tmp_path / "absent.duckdb")
    try:
        got = c.request("tools/call", {"name": "deadends", "arguments": {}})
        assert got["isError"] is True and "no knowledge base" in got["content"][0]["text"]
    finally:
        c.close()
    assert not (tmp_path / "absent.duckdb").exists()


def test_mcp_holds_the_file_only_per_call(earlier_kb: Path) -> None:
    """While the server idles between calls, a writer can open the knowledge base."""
    c = McpClient(earlier_kb)
    try:
        c.call("deadends")
        p = logkb("mark", "note", "1", "seen by a writer", "--db", str(earlier_kb),
                  check=False)
        assert p.returncode == 0, p.stderr
        assert c.call("deadends")["count"] >= 1
    finally:
        c.close()


def test_mcp_help_names_the_opencode_configuration() -> None:
    p = logkb("mcp", "--help")
    assert p.returncode == 0 and '"mcp"' in p.stdout and "stdio" in p.stdout


def _handshake(db: Path, front: bool) -> dict:
    """The ``initialize`` result of a fresh ``logkb mcp`` (front door on or off), from a
    real stdio client; then a tool list, so the SDK behind the front really serves."""
    import os
    import subprocess

    from tests.live.conftest import LOGKB

    env = dict(os.environ, LOGKB_MCP_FRONT="1" if front else "0")
    p = subprocess.Popen([*LOGKB, "mcp", "--db", str(db)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    assert p.stdin is not None and p.stdout is not None

    def ask(i: int, method: str, params: dict | None = None) -> dict:
        p.stdin.write(json.dumps({"jsonrpc": "2.0", "id": i, "method": method,
                                  **({"params": params} if params else {})}) + "\n")
        p.stdin.flush()
        while True:
            line = p.stdout.readline()
            assert line, p.stderr.read() if p.stderr else ""
            reply = json.loads(line)
            if reply.get("id") == i:
                return reply

    try:
        init = ask(1, "initialize", {"protocolVersion": "2025-06-18", "capabilities": {},
                                     "clientInfo": {"name": "logkb-tests", "version": "0"}})
        p.stdin.write(json.dumps({"jsonrpc": "2.0",
                                  "method": "notifications/initialized"}) + "\n")
        p.stdin.flush()
        tools = ask(2, "tools/list")["result"]["tools"]
        assert {t["name"] for t in tools} >= {"search", "why", "deadends"}
        # exactly one answer to initialize reached the client
        p.stdin.close()
        rest = [json.loads(x) for x in p.stdout.read().splitlines() if x.strip()]
        assert not any(r.get("id") == 1 for r in rest), rest
    finally:
        p.kill()
        p.wait()
    return init["result"]


def test_the_front_door_answers_initialize_as_the_sdk_would(tmp_path: Path) -> None:
    """``initialize`` is answered before the SDK is loaded (the timing is in bench/mcp),
    with what the SDK's own server answers, and the SDK then serves the tools."""
    from mcp_types.version import HANDSHAKE_PROTOCOL_VERSIONS

    from kb.live import mcp, mcp_front

    assert mcp_front.HANDSHAKE_VERSIONS == tuple(HANDSHAKE_PROTOCOL_VERSIONS)
    assert mcp_front.INSTRUCTIONS == mcp.INSTRUCTIONS
    db = tmp_path / "kb.duckdb"
    assert _handshake(db, front=True) == _handshake(db, front=False)


def _failing_call_stderr(db: Path, *flags: str) -> tuple[list[dict[str, Any]], str]:
    """Initialize, call ``why`` with a name nothing matches (the SDK logged that at INFO),
    end: the replies and what the server wrote on stderr."""
    import subprocess

    from tests.live.conftest import LOGKB

    msgs = [{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-06-18", "capabilities": {},
                "clientInfo": {"name": "logkb-tests", "version": "0"}}},
            {"jsonrpc": "2.0", "method": "notifications/initialized"},
            {"jsonrpc": "2.0", "id": 2, "method": "tools/call",
             "params": {"name": "why", "arguments": {"name": "zzzz-nothing-like-it"}}}]
    p = subprocess.Popen([*LOGKB, "mcp", *flags, "--db", str(db)], stdin=subprocess.PIPE,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert p.stdin is not None and p.stdout is not None
    for m in msgs:
        p.stdin.write(json.dumps(m) + "\n")
    p.stdin.flush()
    replies = []
    while len(replies) < 2:  # the answer to the call, before stdin closes
        line = p.stdout.readline()
        assert line, "logkb mcp closed stdout"
        replies.append(json.loads(line))
    _, err = p.communicate(timeout=30)
    return replies, err


def test_mcp_is_quiet_on_stderr_unless_asked(earlier_kb_shared: Path) -> None:
    """ux15: the SDK's INFO log wrote a block per tool call that answered with an error
    (``INFO Tool 'why' failed: …``); warnings and errors only by default, ``-v`` more."""
    replies, err = _failing_call_stderr(earlier_kb_shared)
    assert replies[-1]["result"]["isError"] is True  # still answered as an error
    assert err == "", err
    _, err = _failing_call_stderr(earlier_kb_shared, "-v")
    assert "INFO" in err and "why" in err, err


def test_why_names_the_session_that_answered(mcp_client: McpClient) -> None:
    """``why`` asks every session unless one is named: the answer says which one did,
    cited as the other tools cite (``session#ordinal``)."""
    story = mcp_client.call("why", name="DeepEP")
    a = story["approach"]
    assert story["session"] == a["session_id"]
    assert story["cite"] == f"{a['session_id']}#{a['ordinal']}"
