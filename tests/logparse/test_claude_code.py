"""The Claude Code transcript reader on the real transcripts and on the format's variants.

Counts are taken independently from the files with a few lines of JSON parsing."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from logparse.claude_code import ClaudeCodeReader
from logparse.derive import COLUMNS, Batch, derive_session, to_events
from logparse.models import Problem
from logparse.registry import detect

C = {name: i for i, name in enumerate(COLUMNS["calls"])}
M = {name: i for i, name in enumerate(COLUMNS["messages"])}
SID = "de3b8b19-5bc0-4a2a-934a-1b6806567e25"


def independent(path: Path) -> dict[str, Any]:
    """Messages (user lines that are not only tool results, plus distinct API responses),
    tool calls, error results and Task calls, counted straight from the lines."""
    users = 0
    responses: set[str] = set()
    uses: list[str] = []
    errors = 0
    tasks = 0
    for line in path.read_text(encoding="utf-8").splitlines():
        o = json.loads(line)
        content = (o.get("message") or {}).get("content")
        if o["type"] == "user":
            blocks = content if isinstance(content, list) else [{"type": "text"}]
            if any(b.get("type") != "tool_result" for b in blocks):
                users += 1
            errors += sum(1 for b in blocks if b.get("type") == "tool_result"
                          and b.get("is_error"))
        elif o["type"] == "assistant":
            responses.add(o["message"]["id"])
            for b in content:
                if b.get("type") == "tool_use":
                    uses.append(b["name"])
                    tasks += b["name"] == "Task"
    return {"messages": users + len(responses), "calls": len(uses), "errors": errors,
            "tasks": tasks, "tools": sorted(set(uses)), "todowrites": uses.count("TodoWrite")}


def read(path: Path) -> tuple[dict[str, tuple[Batch, list[Problem], dict[str, Any]]],
                              list[Problem]]:
    problems: list[Problem] = []
    out = {}
    for src in ClaudeCodeReader().sessions(path, problems):
        batch, probs = derive_session(src.session_id, src.path, src.messages)
        out[src.session_id] = (batch, probs, src.info or {})
    return out, problems


def transcript(tmp_path: Path, records: list[Any], name: str = "t.jsonl") -> Path:
    f = tmp_path / name
    f.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return f


_n = 0
_last: dict[tuple[str, bool], str] = {}


def line(kind: str, content: Any, *, sid: str = SID, mid: str | None = None,
         side: bool = False, **extra: Any) -> dict[str, Any]:
    global _n
    _n += 1
    msg: dict[str, Any] = {"role": kind, "content": content}
    if kind == "assistant":
        msg.update(id=mid or f"msg_{_n}", model="claude-opus-4-5", type="message")
    uuid = f"u-{_n:06d}"
    parent = _last.get((sid, side))
    _last[(sid, side)] = uuid
    return {"parentUuid": parent, "isSidechain": side, "sessionId": sid, "cwd": "/w",
            "version": "2.0.1", "gitBranch": "main", "type": kind, "message": msg,
            "uuid": uuid, "timestamp": f"2026-01-01T00:{_n // 60:02d}:{_n % 60:02d}Z",
            **extra}


def use(cid: str, name: str, **inp: Any) -> dict[str, Any]:
    return {"type": "tool_use", "id": cid, "name": name, "input": inp}


def result(cid: str, text: str, error: bool = False) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": cid, "content": text, "is_error": error}


# ------------------------------------------------------------------ real transcripts
@pytest.mark.parametrize("name", ["hello-world-script", "python-to-rust-port"])
def test_real_transcript_counts(realworld: Path, name: str) -> None:
    f = realworld / "claude-code" / name / "transcript.jsonl"
    assert detect(f) is ClaudeCodeReader
    want = independent(f)
    sessions, problems = read(f)
    assert problems == [] and len(sessions) == 1
    ((batch, probs, info),) = sessions.values()
    assert probs == []
    assert len(batch.messages) == want["messages"]
    assert len(batch.calls) == want["calls"]
    assert sum(1 for r in batch.calls if r[C["status"]] == "error") == want["errors"] == 0
    assert sum(1 for r in batch.calls if r[C["tool"]] == "task") == want["tasks"]
    assert all(r[C["status"]] == "completed" for r in batch.calls)
    assert info["version"] == "2.1.14" and info["directory"].startswith("/tmp/tmp")


def test_rust_port_tools_todos_and_subagent(realworld: Path) -> None:
    f = realworld / "claude-code" / "python-to-rust-port" / "transcript.jsonl"
    want = independent(f)
    assert want["tasks"] == 1 and "TodoWrite" in want["tools"]
    sessions, _ = read(f)
    ((batch, _, _),) = sessions.values()
    events = to_events("s", batch)
    tools = {e.tool for e in events if e.kind == "command"}
    assert {"bash", "read", "edit", "write", "glob", "todowrite", "task"} <= tools
    (sub,) = [e for e in events if e.kind == "subagent"]
    assert sub.child_session_id == "c7d3d95c-57f0-4359-8f4b-926a9bef5a3f:agent-ab81802"
    assert sub.text == "Explore Python project structure"
    todos = [e for e in events if e.kind == "todo"]
    assert len(todos) == want["todowrites"] == 10
    assert todos[0].todos[0].status == "in_progress"
    bash = [e for e in events if e.kind == "result" and e.tool == "bash"]
    assert bash and all(e.exit_code == 0 for e in bash)
    # a response written over several lines sharing message.id is one message
    assert len(batch.messages) == 41


# ------------------------------------------------------------------ variants
def test_errors_interrupts_and_exit_codes(tmp_path: Path) -> None:
    f = transcript(tmp_path, [
        line("user", "build it"),
        line("assistant", [{"type": "thinking", "thinking": "Let me try cargo."},
                           use("t1", "Bash", command="cargo build")]),
        line("user", [result("t1", "Exit code 101\nerror[E0425]: cannot find value", True)]),
        line("assistant", [use("t2", "Bash", command="sleep 100")]),
        line("user", [result("t2", "[Request interrupted by user for tool use]", True)],
             toolUseResult={"interrupted": True}),
        line("assistant", [use("t3", "Read", file_path="/w/missing.rs")]),
        line("user", [result("t3", "File does not exist.", True)]),
        line("user", "[Request interrupted by user]"),
    ])
    sessions, problems = read(f)
    batch, probs, _ = sessions[SID]
    assert problems == [] and probs == []
    build, sleep, missing = batch.calls
    assert (build[C["ordinal"]], build[C["exit_code"]], build[C["status"]]) == (2, 101, "completed")
    assert sleep[C["status"]] == "aborted"
    assert missing[C["status"]] == "error" and missing[C["command"]] == "/w/missing.rs"
    assert len(batch.messages) == 5  # tool-result lines have no ordinal of their own
    assert [r[5] for r in batch.prose if r[0] == 2] == ["reasoning"]


def test_sidechain_becomes_a_linked_child_and_sessions_split(tmp_path: Path) -> None:
    other = "11111111-2222-4333-8444-555555555555"
    f = transcript(tmp_path, [
        {"type": "summary", "summary": "Port to Rust", "leafUuid": "u-x"},
        line("user", "look around"),
        line("assistant", [use("k1", "Task", description="Explore", prompt="List the files",
                               subagent_type="Explore")]),
        line("user", "List the files", side=True, parentUuid=None),
        line("assistant", [use("k2", "Glob", pattern="**/*.py")], side=True),
        line("user", [result("k2", "a.py\nb.py")], side=True),
        line("assistant", [{"type": "text", "text": "a.py and b.py"}], side=True),
        line("user", [result("k1", [{"type": "text", "text": "a.py and b.py"}])]),
        line("assistant", [{"type": "text", "text": "Two files."}]),
        line("user", "second session", sid=other),
        line("assistant", [{"type": "text", "text": "hello"}], sid=other),
    ])
    sessions, problems = read(f)
    assert problems == []
    child = [k for k in sessions if k.startswith(f"{SID}:sidechain-")]
    assert len(child) == 1 and set(sessions) == {SID, other, child[0]}
    batch, _, info = sessions[SID]
    assert info["title"] == "Port to Rust"
    (task,) = [r for r in batch.calls if r[C["tool"]] == "task"]
    assert task[C["child_session_id"]] == child[0]
    cbatch, _, cinfo = sessions[child[0]]
    assert cinfo["parentID"] == SID and len(cbatch.messages) == 3
    assert cbatch.calls[0][C["tool"]] == "glob"
    assert len(sessions[other][0].messages) == 2


def test_compaction_unknown_records_and_bad_lines(tmp_path: Path) -> None:
    f = transcript(tmp_path, [
        line("user", "hi"),
        line("assistant", [{"type": "text", "text": "hello"}]),
        {"type": "system", "subtype": "compact_boundary", "content": "Conversation compacted",
         "sessionId": SID, "uuid": "sys1", "compactMetadata": {"trigger": "auto"},
         "timestamp": "2026-01-01T01:00:00Z"},
        line("user", "This session is being continued. Summary: we said hello.",
             isCompactSummary=True),
        {"type": "brand-new-kind", "sessionId": SID, "x": 1},
        line("assistant", [{"type": "text", "text": "go on"},
                           {"type": "fancy_block", "v": 1}]),
        '{"type": "user", "truncated',
    ])
    sessions, problems = read(f)
    batch, probs, _ = sessions[SID]
    assert [(p.line, p.reason.split(":")[0]) for p in problems] == [
        (7, "not valid JSON")]
    # an unknown record type is counted and kept raw (line 5 is in message 4's raw)
    assert sorted(p.reason for p in probs) == ["unknown part type 'claude:block/fancy_block'"]
    reader = ClaudeCodeReader()
    for src in reader.sessions(f, []):
        list(src.messages)
    assert reader.skipped == {"brand-new-kind": 1}
    comp = [r for r in batch.other if r[4] == "compaction"]
    assert [r[6] for r in comp] == ["Conversation compacted",
                                    "This session is being continued. Summary: we said hello."]
    assert len(batch.messages) == 4
    assert json.loads(batch.messages[3][M["raw"]])["lines"] == [5, 6]


def test_result_arriving_later_changes_the_calling_message(tmp_path: Path) -> None:
    head = [line("user", "run"), line("assistant", [use("b1", "Bash", command="make")])]
    f = transcript(tmp_path, head)
    sessions, _ = read(f)
    batch, _, _ = sessions[SID]
    assert batch.calls[0][C["status"]] == "interrupted"
    before = batch.messages[1][M["digest"]]
    f = transcript(tmp_path, head + [line("user", [result("b1", "done")])])
    sessions, _ = read(f)
    batch, _, _ = sessions[SID]
    assert batch.calls[0][C["status"]] == "completed" and batch.messages[1][M["digest"]] != before


def test_the_main_session_is_streamed(realworld: Path) -> None:
    f = realworld / "claude-code" / "python-to-rust-port" / "transcript.jsonl"
    src = next(iter(ClaudeCodeReader().sessions(f, [])))
    assert not isinstance(src.messages, list)
    first = next(iter(src.messages))
    assert first.info["role"] == "user" and first.line == 2


def test_a_subagent_file_is_a_child_of_its_session(tmp_path: Path) -> None:
    parent = transcript(tmp_path, [
        line("user", "explore"),
        line("assistant", [use("k9", "Task", description="Find tests", prompt="find tests")]),
        line("user", [result("k9", "tests/ has 3 files")],
             toolUseResult={"agentId": "a1b2c3", "status": "completed"}),
    ], "parent.jsonl")
    sub = tmp_path / "sub"
    sub.mkdir()
    child = transcript(sub, [
        line("user", "find tests", side=True, agentId="a1b2c3"),
        line("assistant", [{"type": "text", "text": "3 files"}], side=True, agentId="a1b2c3"),
    ], "agent-a1b2c3.jsonl")
    sessions, _ = read(parent)
    (task,) = sessions[SID][0].calls
    assert task[C["child_session_id"]] == f"{SID}:agent-a1b2c3"
    kids, problems = read(child)
    assert problems == [] and list(kids) == [f"{SID}:agent-a1b2c3"]
    batch, _, info = kids[f"{SID}:agent-a1b2c3"]
    assert info["parentID"] == SID and info["title"] == "find tests"
    assert len(batch.messages) == 2


def test_api_errors_no_answer_followed_are_the_failed_reply(realworld: Path,
                                                            tmp_path: Path) -> None:
    """A prompt answered only by ``system``/``api_error`` records (Xeus, pool: eight
    retries of a 500 "your current token plan not support model") is a request whose
    reply failed: one assistant message with the provider's error and a retry part per
    record, holding those lines.  Errors an answer followed stay retries of that answer."""
    f = realworld / "pool" / "Xeus__claude-session.jsonl"
    msgs = [m for src in ClaudeCodeReader().sessions(f, []) for m in src.messages]
    assert [m.info["role"] for m in msgs] == ["user", "assistant"]
    failed = msgs[1]
    assert failed.info["error"]["name"] == "APIError"
    assert "500: your current token plan not support model" in \
        failed.info["error"]["data"]["message"]
    assert [p["type"] for p in failed.parts] == ["retry"] * 8
    assert [p["attempt"] for p in failed.parts] == list(range(1, 9))
    assert json.loads(failed.raw)["lines"] == list(range(3, 11))
    assert 3 not in json.loads(msgs[0].raw)["lines"]
    # the same errors and then an answer: no message of their own
    lines = f.read_text(encoding="utf-8").splitlines()
    answer = json.loads(lines[1])
    answer.update(type="assistant", uuid="a" * 36, message={
        "id": "msg_1", "role": "assistant", "model": "m",
        "content": [{"type": "text", "text": "Hello!"}]})
    answered = tmp_path / "answered.jsonl"
    answered.write_text("\n".join([*lines, json.dumps(answer)]) + "\n", encoding="utf-8")
    msgs = [m for src in ClaudeCodeReader().sessions(answered, []) for m in src.messages]
    assert [m.info["role"] for m in msgs] == ["user", "assistant"]
    assert "error" not in msgs[1].info and [p["type"] for p in msgs[1].parts][:8] == \
        ["retry"] * 8


def test_the_output_of_a_users_bang_command_is_no_words_of_theirs(tmp_path: Path) -> None:
    """``!ls`` in Claude Code writes the command (``<bash-input>``: the user typed it) and
    then its output (``<bash-stdout>``/``<bash-stderr>``: the program's words) as user
    records: the output is injected text, as a local command's is, and so is a prompt
    hook's; the skill body Claude Code sends after a slash command is ``isMeta``."""
    f = transcript(tmp_path, [
        line("user", "<bash-input>npm test</bash-input>"),
        line("user", "<bash-stdout>Error: nothing changed, ignore-listed</bash-stdout>"
                     "<bash-stderr></bash-stderr>"),
        line("user", "<user-prompt-submit-hook>Do not use yarn.</user-prompt-submit-hook>"),
        line("user", [{"type": "text", "text": "Base directory for this skill: /s\n\nDo not "
                                                "use mocks."}], isMeta=True),
        line("user", "the test still fails"),
    ], "bang.jsonl")
    sessions, _ = read(f)
    ((batch, _, _),) = sessions.values()
    P = {name: i for i, name in enumerate(COLUMNS["prose"])}
    got = [(r[P["source"]], r[P["text"]][:12]) for r in batch.prose if r[P["kind"]] == "prompt"]
    assert got == [("text", "<bash-input>"), ("synthetic", "<bash-stdout"),
                   ("synthetic", "<user-prompt"), ("synthetic", "Base directo"),
                   ("text", "the test sti")]
