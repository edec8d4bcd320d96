"""The Codex recorder's scripted model (``fixtures/codex_record/scripted_responses.py``),
run as the recorder runs it, on a loopback port: it streams each step as the Responses
API streams (what Codex 0.171 parsed into the recordings), fills ``{{session}}`` from
what the model was told, and answers the TUI's title request without taking a step.
The recorder itself needs the 424 MB Codex package, so no test records live."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import pytest

from fixtures.codex_record.trim import LIMIT, cut
from tests.fixtures_tests.conftest import Start, sse


@pytest.fixture
def server(scripted: Start) -> tuple[int, Path]:
    script = {"title": "Recorder test", "turns": [{"prompt": "p", "steps": [
        {"text": "Polling.", "calls": [{"name": "write_stdin",
                                        "args": {"session_id": "{{session}}", "chars": ""}}]},
        {"calls": [{"name": "apply_patch", "input": "*** Begin Patch\n*** End Patch\n"}]},
        {"text": "Done here."}]}]}
    return scripted("codex_record/scripted_responses.py", script)


def _post(port: int, body: dict[str, Any]) -> list[dict[str, Any]]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", "/v1/responses", json.dumps(body),
                 {"content-type": "application/json"})
    resp = conn.getresponse()
    assert resp.status == 200
    assert resp.getheader("content-type") == "text/event-stream"
    events = []
    for event, data in sse(resp.read()):
        assert data["type"] == event
        events.append(data)
    conn.close()
    return events


def _user(text: str) -> dict[str, Any]:
    return {"type": "message", "role": "user", "content": [{"type": "input_text",
                                                            "text": text}]}


def test_steps_stream_as_the_responses_api(server: tuple[int, Path]) -> None:
    port, log = server
    told = {"type": "function_call_output", "call_id": "c",
            "output": "Chunk ID: 1\nWall time: 1.0 seconds\nProcess running with session "
                      "ID 4242\nOutput:\n"}
    events = _post(port, {"input": [_user("p"), told]})
    kinds = [e["type"] for e in events]
    assert kinds[0] == "response.created" and kinds[-1] == "response.completed"
    items = [e["item"] for e in events if e["type"] == "response.output_item.done"]
    assert [i["type"] for i in items] == ["message", "function_call"]
    assert json.loads(items[1]["arguments"]) == {"session_id": 4242, "chars": ""}
    assert events[-1]["response"]["usage"]["total_tokens"] > 0
    # the TUI's title request takes no step
    title = _post(port, {"input": [_user("Generate a concise, single-line task title of "
                                         "at most 36 characters")]})
    (msg,) = [e["item"] for e in title if e["type"] == "response.output_item.done"]
    assert msg["content"][0]["text"] == "Recorder test"
    patch = _post(port, {"input": [_user("p")]})
    (call,) = [e["item"] for e in patch if e["type"] == "response.output_item.done"]
    assert call["type"] == "custom_tool_call" and call["name"] == "apply_patch"
    assert [json.loads(ln)["step"] for ln in log.read_text().splitlines()] == [0, -1, 1]


def test_trim_keeps_every_key_and_cuts_long_strings_only() -> None:
    long = "x" * (LIMIT + 1)
    out = cut({"a": [long, "short"], "b": {"c": 1}})
    assert out["b"] == {"c": 1} and out["a"][1] == "short"
    assert len(out["a"][0]) < len(long) and "characters cut by trim.py" in out["a"][0]
