"""The Claude recorder's scripted model (``fixtures/claude_record/scripted_api.py``), run
as the recorder runs it, on a loopback port: each main-loop step streams as the Messages
API streams (message_start, a start/delta/stop per block, message_delta, message_stop)
or answers whole when not streamed; a sub-agent's request takes the sub-agent's steps;
titles, compactions and token counts take none; an API error step answers its status.
The recorder itself needs the Claude Code npm package, so no test records live."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import pytest

from tests.fixtures_tests.conftest import Start, sse

MAIN = [{"name": "Bash"}, {"name": "ListAgents"}]  # a sub-agent is offered no ListAgents


@pytest.fixture
def server(scripted: Start) -> tuple[int, Path]:
    script = {"title": "Recorder test", "summary": "Summary: so far.", "turns": [{"steps": [
        {"thinking": "Look first.", "text": "Listing.", "tool": "Bash",
         "args": {"command": "ls"}},
        {"sub": True, "text": "The sub-agent's answer."},
        {"calls": [{"tool": "Read", "args": {"file_path": "a"}}, {"tool": "Glob"}]},
        {"error": {"status": 529, "type": "overloaded_error", "message": "Overloaded"}}]}]}
    return scripted("claude_record/scripted_api.py", script)


def _post(port: int, path: str, body: dict[str, Any]) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", path, json.dumps(body), {"content-type": "application/json"})
    return conn.getresponse()


def _blocks(resp: http.client.HTTPResponse) -> tuple[list[dict[str, Any]], str]:
    """A streamed reply put back together: its content blocks and its stop reason."""
    assert resp.status == 200 and resp.getheader("content-type") == "text/event-stream"
    events = sse(resp.read())
    assert all(data["type"] == event for event, data in events if event != "ping")
    names = [e for e, _ in events]
    assert names[:2] == ["message_start", "ping"] and names[-2:] == [
        "message_delta", "message_stop"]
    blocks: list[dict[str, Any]] = []
    for event, data in events:
        if event == "content_block_start":
            assert data["index"] == len(blocks)
            blocks.append(dict(data["content_block"]))
        elif event == "content_block_delta":
            b, d = blocks[data["index"]], data["delta"]
            if d["type"] == "input_json_delta":
                b["input"] = json.loads(d["partial_json"])
            elif d["type"] != "signature_delta":
                key = d["type"].removesuffix("_delta")
                b[key] = b[key] + d[key]
    return blocks, events[-2][1]["delta"]["stop_reason"]


def test_steps_stream_as_the_messages_api(server: tuple[int, Path]) -> None:
    port, log = server
    user = [{"role": "user", "content": "go"}]
    blocks, stop = _blocks(_post(port, "/v1/messages", {"stream": True, "tools": MAIN,
                                                        "messages": user}))
    assert [(b["type"], b.get("thinking") or b.get("text") or b["input"]) for b in blocks] == [
        ("thinking", "Look first."), ("text", "Listing."), ("tool_use", {"command": "ls"})]
    assert stop == "tool_use"
    # titles, compactions and token counts take no step
    title, _ = _blocks(_post(port, "/v1/messages", {"stream": True, "messages": user}))
    assert title == [{"type": "text", "text": "Recorder test"}]
    compact = [{"role": "user", "content": "Write a summary. Respond with TEXT ONLY."}]
    summary, _ = _blocks(_post(port, "/v1/messages", {"stream": True, "tools": MAIN,
                                                      "messages": compact}))
    assert summary == [{"type": "text", "text": "Summary: so far."}]
    counted = _post(port, "/v1/messages/count_tokens", {"messages": user})
    assert json.loads(counted.read()) == {"input_tokens": 1200}
    # a sub-agent's request takes the sub-agent's steps, the main loop goes on with its own
    sub, stop = _blocks(_post(port, "/v1/messages", {"stream": True, "tools": MAIN[:1],
                                                     "messages": user}))
    assert sub == [{"type": "text", "text": "The sub-agent's answer."}] and stop == "end_turn"
    whole = _post(port, "/v1/messages?beta=true", {"tools": MAIN, "messages": user})
    msg = json.loads(whole.read())
    assert [(b["name"], b["input"]) for b in msg["content"]] == [
        ("Read", {"file_path": "a"}), ("Glob", {})]
    assert msg["stop_reason"] == "tool_use" and msg["id"].startswith("msg_scripted")
    error = _post(port, "/v1/messages", {"stream": True, "tools": MAIN, "messages": user})
    assert error.status == 529 and error.getheader("request-id", "").startswith("req_")
    assert json.loads(error.read())["error"]["type"] == "overloaded_error"
    steps = [json.loads(ln)["kind"] for ln in log.read_text().splitlines()]
    assert steps == ["step 0", "side", "compaction", "count_tokens", "sub step 0", "step 1",
                     "step 2"]
