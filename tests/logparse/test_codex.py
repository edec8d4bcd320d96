"""The Codex rollout reader on the real rollouts and on the format's variants.

Counts are taken independently from the files with a few lines of JSON parsing
(the labelled README's ordinal convention), never from the reader."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from logparse._agentlines import iso_ms
from logparse.codex import CodexReader, parse_output, shell_text
from logparse.derive import COLUMNS, Batch, Deriver, derive_session, to_events
from logparse.models import Problem
from logparse.registry import detect

COUNTED = {"function_call", "function_call_output", "custom_tool_call",
           "custom_tool_call_output"}
C = {name: i for i, name in enumerate(COLUMNS["calls"])}
M = {name: i for i, name in enumerate(COLUMNS["messages"])}


def independent(path: Path) -> dict[str, Any]:
    """Ordinals per the labelled README, with what each counted line is."""
    ordinal = 0
    by_line: dict[int, int] = {}
    kinds: dict[int, str] = {}
    call_ids: dict[int, str] = {}
    sessions = set()
    for n, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if not line.strip():
            continue
        o = json.loads(line)
        if o["type"] == "session_meta":
            sessions.add(o["payload"]["id"])
        if o["type"] != "response_item":
            continue
        p = o["payload"]
        if (p["type"] == "message" and p["role"] in ("user", "assistant")) or \
                p["type"] in COUNTED:
            ordinal += 1
            by_line[n] = ordinal
            kinds[ordinal] = p["type"] if p["type"] != "message" else p["role"]
            if "call_id" in p:
                call_ids[ordinal] = p["call_id"]
    return {"ordinals": ordinal, "by_line": by_line, "kinds": kinds, "call_ids": call_ids,
            "sessions": sessions}


def read(path: Path) -> tuple[list[tuple[str, Batch, list[Problem]]], list[Problem]]:
    problems: list[Problem] = []
    out = []
    for src in CodexReader().sessions(path, problems):
        batch, probs = derive_session(src.session_id, src.path, src.messages)
        out.append((src.session_id, batch, probs))
    return out, problems


def rollout(tmp_path: Path, records: list[Any], name: str = "rollout.jsonl") -> Path:
    f = tmp_path / name
    f.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return f


def meta(sid: str = "019a0000-0000-7000-8000-000000000001", ts: str = "2025-10-01T10:00:00Z",
         version: str = "0.46.0") -> dict[str, Any]:
    return {"timestamp": ts, "type": "session_meta",
            "payload": {"id": sid, "timestamp": ts, "cwd": "/w", "cli_version": version}}


def item(payload: dict[str, Any], ts: str = "2025-10-01T10:00:01.000Z") -> dict[str, Any]:
    return {"timestamp": ts, "type": "response_item", "payload": payload}


def user(text: str) -> dict[str, Any]:
    return item({"type": "message", "role": "user",
                 "content": [{"type": "input_text", "text": text}]})


def say(text: str) -> dict[str, Any]:
    return item({"type": "message", "role": "assistant",
                 "content": [{"type": "output_text", "text": text}]})


# ------------------------------------------------------------------ real rollouts
@pytest.mark.parametrize("rel", ["labelled/soulpass__codex-session.jsonl",
                                 "codex/exported-session.jsonl"])
def test_real_rollout_counts(realworld: Path, rel: str) -> None:
    f = realworld / rel
    assert detect(f) is CodexReader
    want = independent(f)
    sessions, problems = read(f)
    assert problems == [] and len(sessions) == 1
    sid, batch, probs = sessions[0]
    assert probs == [] and sid in want["sessions"]
    assert len(batch.messages) == want["ordinals"]
    calls = [o for o, k in want["kinds"].items() if k in ("function_call", "custom_tool_call")]
    assert len(batch.calls) == len(calls)
    # every call row sits at its output's ordinal, and carries that output's call id
    outputs = {o: want["call_ids"][o] for o, k in want["kinds"].items()
               if k.endswith("_output")}
    assert {r[C["ordinal"]]: r[C["call_id"]] for r in batch.calls} == outputs
    assert not any(r[0] for r in batch.other if r[4] == "raw")
    # errors: the tool failed (an aborted command, a patch that did not apply); no subagents
    failed = 0
    for x in f.read_text(encoding="utf-8").splitlines():
        o = json.loads(x) if x.strip() else {}
        out = (o.get("payload") or {}).get("output")
        if o.get("type") == "response_item" and isinstance(out, str):
            failed += out.startswith(("aborted", "apply_patch verification failed"))
    assert sum(1 for r in batch.calls if r[C["status"]] in ("error", "aborted")) == failed > 0
    assert not any(r[C["tool"]] == "task" for r in batch.calls)


def test_soulpass_ordinals_match_the_labels(realworld: Path) -> None:
    f = realworld / "labelled" / "soulpass__codex-session.jsonl"
    label = json.loads((realworld / "labelled" / "soulpass-codex.json").read_text())
    want = independent(f)
    assert want["ordinals"] == label["message_count"] == 369
    for u in label["untested"]:  # the parallel line fields agree with our numbering
        assert want["by_line"][u["line"]] == u["ordinal"]
    ((sid, batch, _),), _ = read(f)
    rows = {r[C["ordinal"]]: r for r in batch.calls}
    # the labelled hard untested checks: their command and failure are at the label's ordinal
    assert "curl -I http://localhost:3000/employer/employees" in rows[139][C["command"]]
    assert rows[139][C["exit_code"]] == 7
    assert rows[152][C["status"]] == "aborted" and "lsof" in rows[152][C["command"]]
    assert rows[197][C["exit_code"]] == 7
    assert rows[201][C["status"]] == "aborted" and "npm run dev" in rows[201][C["command"]]
    assert "fetch failed" in rows[299][C["output"]] and rows[299][C["exit_code"]] == 1
    assert rows[98][C["exit_code"]] == 127 and rows[98][C["command"]] == "npm run lint"
    # an apply_patch whose context did not match is an error (false-positive trap #314)
    assert rows[314][C["tool"]] == "apply_patch" and rows[314][C["status"]] == "error"
    # the compacted line (748) joined the final answer, 369, as a compaction event
    assert [r[0] for r in batch.other if r[4] == "compaction"] == [369]


def test_real_rollout_errors_and_tools(realworld: Path) -> None:
    f = realworld / "codex" / "exported-session.jsonl"
    lines = [json.loads(x) for x in f.read_text().splitlines() if x.strip()]
    outs = [x["payload"]["output"] for x in lines if x["type"] == "response_item"
            and x["payload"]["type"] in ("function_call_output", "custom_tool_call_output")]
    patch_failed = sum(1 for o in outs if o.startswith("apply_patch verification failed"))
    nonzero = sum(1 for o in outs if o.startswith("Exit code: ") and
                  not o.startswith("Exit code: 0\n"))
    plans = sum(1 for x in lines if x["type"] == "response_item"
                and x["payload"].get("name") == "update_plan")
    ((_, batch, _),), _ = read(f)
    tools = [r[C["tool"]] for r in batch.calls]
    assert sum(1 for r in batch.calls if r[C["status"]] == "error") == patch_failed == 8
    assert sum(1 for r in batch.calls if r[C["tool"]] == "bash"
               and (r[C["exit_code"]] or 0) != 0) == nonzero
    assert tools.count("todowrite") == plans == 4
    events = to_events("s", batch)
    todo = [e for e in events if e.kind == "todo"][0]
    assert todo.todos[0].status == "in_progress"
    # reasoning summaries are decisions (source reasoning); the environment context is synthetic
    assert any(r[5] == "reasoning" for r in batch.prose)
    first = [r for r in batch.prose if r[0] == 1][0]
    assert first[4] == "prompt" and first[5] == "synthetic"


# ------------------------------------------------------------------ variants
def test_shell_argv_and_json_output_metadata(tmp_path: Path) -> None:
    out = json.dumps({"output": "ok\n", "metadata": {"exit_code": 3, "duration_seconds": 1.5}})
    f = rollout(tmp_path, [
        meta(), user("go"),
        item({"type": "function_call", "name": "shell", "call_id": "c1",
              "arguments": json.dumps({"command": ["bash", "-lc", "make test"],
                                       "workdir": "/w/src"})}),
        item({"type": "function_call_output", "call_id": "c1", "output": out}),
        item({"type": "local_shell_call", "call_id": "c2", "status": "completed",
              "action": {"type": "exec", "command": ["ls", "-la", "a b"]}}),
        item({"type": "function_call_output", "call_id": "c2",
              "output": {"content": "denied", "success": False}}),
    ])
    ((sid, batch, probs),), _ = read(f)
    assert probs == [] and len(batch.messages) == 5
    make, ls = batch.calls
    assert (make[C["ordinal"]], make[C["command"]], make[C["exit_code"]]) == (3, "make test", 3)
    assert make[C["workdir"]] == "/w/src"
    assert make[C["time_end"]] - make[C["time_start"]] == 1500
    assert ls[C["command"]] == "ls -la 'a b'" and ls[C["status"]] == "error"


def test_a_sandbox_without_network_marks_the_calls_it_ran(tmp_path: Path) -> None:
    """``turn_context.sandbox_policy.network_access=false``: a command run inside it could
    not reach any server; one run with ``sandbox_permissions=require_escalated`` could."""
    def call(cid: str, cmd: str, **extra: Any) -> list[dict[str, Any]]:
        return [item({"type": "function_call", "name": "exec_command", "call_id": cid,
                      "arguments": json.dumps({"cmd": cmd, **extra})}),
                item({"type": "function_call_output", "call_id": cid,
                      "output": "Process exited with code 7\nOutput:\ncurl: (7) Failed\n"})]
    ctx = {"timestamp": "2025-10-01T10:00:00.500Z", "type": "turn_context",
           "payload": {"cwd": "/w", "sandbox_policy": {"type": "workspace-write",
                                                       "network_access": False}}}
    f = rollout(tmp_path, [meta(), ctx, user("go"), *call("c1", "curl -I localhost:3000"),
                           *call("c2", "curl -I localhost:3000",
                                 sandbox_permissions="require_escalated")])
    ((_, batch, _),), _ = read(f)
    sandboxed, escalated = (json.loads(r[C["input"]]) for r in batch.calls)
    assert sandboxed.get("sandboxNetwork") is False
    assert "sandboxNetwork" not in escalated


def test_output_headers_of_every_version() -> None:
    old = parse_output("bash", "Exit code: 2\nWall time: 0.5 seconds\nOutput:\nboom\n")
    wall = {"value": 0.5, "unit": "s", "label": "wall time"}
    assert old["metadata"] == {"exit": 2, "duration_seconds": 0.5, "reported": [wall]}
    assert old["output"] == "boom\n"
    new = parse_output("bash", "Chunk ID: ab\nWall time: 1.0 seconds\nProcess exited with "
                               "code 0\nOriginal token count: 3\nOutput:\nhi\n")
    assert new["metadata"]["exit"] == 0 and new["output"] == "hi\n"
    # what the tool reports of its own run is a measurement of the call; the size of the
    # whole output ("Original token count") is read too, a plumbing reading (tokens)
    assert new["metadata"]["reported"] == [{"value": 1.0, "unit": "s", "label": "wall time"},
                                           {"value": 3.0, "unit": "tokens",
                                            "label": "output size"}]
    running = parse_output("bash", "Chunk ID: ab\nWall time: 1.0 seconds\nProcess running "
                                   "with session ID 42\nOriginal token count: 0\nOutput:\n")
    assert running["metadata"]["process"] == 42
    assert running["metadata"]["duration_seconds"] == 1.0
    aborted = parse_output("bash", "aborted by user after 3.1s")
    assert aborted["status"] == "error"
    assert aborted["metadata"]["reported"] == [  # how long it ran before the user stopped it
        {"value": 3.1, "unit": "s", "label": "run time before the user aborted it"}]
    # pool Rivo__codex-session.jsonl:99 (trimmed): the note on an output Codex cut stays at
    # the head of the output, and the whole output's size is a reading
    cut = parse_output("bash", "Exit code: 0\nWall time: 3.7 seconds\nTotal output lines: "
                               "1320\nOutput:\nAnchor.toml:15:url = \"https://api.apr.dev\"\n")
    assert cut["output"].startswith("Total output lines: 1320\n")
    assert {"value": 1320.0, "unit": "lines", "label": "output lines (cut)"} in \
        cut["metadata"]["reported"]
    assert shell_text(["/bin/zsh", "-lc", "echo hi"]) == "echo hi"
    assert shell_text(["python", "-c", "print(1)"]) == "python -c 'print(1)'"


def test_exec_tool_world_state_and_unknown_records(tmp_path: Path) -> None:
    f = rollout(tmp_path, [
        meta(version="0.130.0"),
        {"timestamp": "2025-10-01T10:00:00.500Z", "type": "world_state",
         "payload": {"full": True}},
        user("run it"),
        item({"type": "function_call", "name": "exec", "call_id": "e1",
              "arguments": json.dumps({"cmd": "pytest -q"})}),
        item({"type": "function_call_output", "call_id": "e1",
              "output": "Chunk ID: 1\nWall time: 2.0 seconds\nProcess exited with code 1\n"
                        "Output:\n1 failed\n"}),
        {"timestamp": "2025-10-01T10:00:03Z", "type": "mystery", "payload": {"x": 1}},
        item({"type": "shiny_new_item", "x": 2}),
        say("one test fails"),
        "not json at all",
    ])
    ((sid, batch, probs),), problems = read(f)
    assert [(p.line, p.reason[:12]) for p in problems] == [(9, "not valid JS")]
    assert problems[0].raw == "not json at all"
    assert len(batch.messages) == 4  # user, call, output, assistant
    (call,) = batch.calls
    assert (call[C["tool"]], call[C["command"]], call[C["exit_code"]]) == ("bash", "pytest -q", 1)
    # unknown record types are counted and kept raw: no problem, no raw event
    assert [r for r in batch.other if r[4] == "raw"] == [] and probs == []
    reader = CodexReader()
    for src in reader.sessions(f, []):
        list(src.messages)
    assert reader.skipped == {"mystery": 1, "response_item/shiny_new_item": 1}
    # every line is kept: the world_state in message 1's raw, the unknown ones in message 4's
    raw1 = json.loads(batch.messages[0][M["raw"]])
    assert raw1["lines"] == [1, 2, 3]
    assert json.loads(batch.messages[3][M["raw"]])["lines"] == [6, 7, 8]


def test_call_without_output_is_interrupted_and_updated_when_answered(tmp_path: Path) -> None:
    head = [meta(), user("start the server"),
            item({"type": "function_call", "name": "shell_command", "call_id": "s1",
                  "arguments": json.dumps({"command": "npm run dev"})})]
    f = rollout(tmp_path, head)
    ((_, batch, _),), _ = read(f)
    (call,) = batch.calls
    assert call[C["ordinal"]] == 2 and call[C["status"]] == "interrupted"
    first = {r[0]: (r[M["digest"]], r[1]) for r in batch.messages}  # id -> (digest, ordinal)
    f = rollout(tmp_path, head + [
        item({"type": "function_call_output", "call_id": "s1", "output": "aborted by user"}),
        say("stopped")])
    d = Deriver("s", str(f), known=first)
    for src in CodexReader().sessions(f, []):
        d.add_all(src.messages)
    b = d.take()
    # the call message changed (its call moved to the output), so it is derived again
    assert d.skipped == 1 and d.derived == 3
    (call,) = b.calls
    assert call[C["ordinal"]] == 3 and call[C["status"]] == "aborted"


def test_sessions_in_one_file_are_split_and_legacy_rollouts_read(tmp_path: Path) -> None:
    a, b = "019a0000-0000-7000-8000-00000000000a", "019a0000-0000-7000-8000-00000000000b"
    f = rollout(tmp_path, [meta(a), user("one"), say("1"), meta(b), user("two"), say("2")])
    sessions, problems = read(f)
    assert problems == [] and [(s, len(x.messages)) for s, x, _ in sessions] == [(a, 2), (b, 2)]
    legacy = rollout(tmp_path, [
        {"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": "2025-05-08T17:05:31.245Z",
         "instructions": None},
        {"record_type": "state"},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "hi"}]},
        {"type": "function_call", "name": "shell", "call_id": "x",
         "arguments": json.dumps({"command": ["ls"]})},
        {"type": "function_call_output", "call_id": "x",
         "output": json.dumps({"output": "a\n", "metadata": {"exit_code": 0,
                                                              "duration_seconds": 0.1}})},
    ], "legacy.jsonl")
    assert detect(legacy) is CodexReader
    ((sid, batch, probs),), _ = read(legacy)
    assert sid == "5973b6c0-94b8-487b-a530-2aeb6098ae0e" and probs == []
    assert len(batch.messages) == 3 and batch.calls[0][C["command"]] == "ls"


def test_an_interrupted_step_is_an_aborted_message(tmp_path: Path) -> None:
    f = rollout(tmp_path, [
        meta(), user("go"), say("working on it"),
        {"timestamp": "2025-10-01T10:00:02Z", "type": "event_msg",
         "payload": {"type": "turn_aborted", "reason": "interrupted"}},
        {"timestamp": "2025-10-01T10:00:03Z", "type": "event_msg",
         "payload": {"type": "error", "message": "stream disconnected"}},
        say("again")])
    ((_, batch, probs),), _ = read(f)
    assert probs == []
    assert batch.messages[1][8] == "MessageAbortedError"  # messages.error
    # the error event ends the next turn: the reply that failed (codex-rs EventMsg::Error)
    assert batch.messages[2][8] == "APIError" and batch.messages[2][2] == "assistant"
    assert [(r[0], r[4]) for r in batch.other] == [(2, "error"), (3, "error")]


# ------------------------------------------------------------------ runs answered later
RUNNING = Path(__file__).resolve().parents[2] / "fixtures" / "untested" / "codex_running.jsonl"
"""Trezo-Ai__codex-session.jsonl (Codex 0.120) lines 1, 5, 6, 142-187 trimmed (strings to
400 characters; instructions, rate limits and encrypted reasoning dropped).  Fixture line
-> file line: 5 -> 143 (rsync + cargo test), 6 -> 145 ("Process running with session ID
24629"), 8/9 -> 149/151 (its poll, still running), 10 -> 153 (its exec_command_end, exit
101), 11-14 -> 154-158 (the escalated rerun, aborted, turn_aborted), 18-27 -> 167-182 (two
finds that return running, end in events before the agent polls them), 29/30 -> 186/187
(an ls whose output never came; its exec_command_end did)."""
RSYNC, RSYNC_POLL = "call_YuLyOoKbfqlCjtYd3FZWMVM3", "call_cXY1uIHFM0gOQhz5THka3Zzw"
FINDS = {"call_HOyJlUN5NKJwqQfFGt48QzZn": "call_N5q6a0UzoKwso2KrO7IHfoc3",
         "call_ukrlcMnOoRmiDAuDKUlBwL2h": "call_OO8eGC8DyrZtjDFQ5WDtXVDs"}
LS = "call_nbptZGvo99dIwMAwKtUlOsZ3"


def _calls(batch: Batch) -> dict[str, dict[str, Any]]:
    return {r[C["call_id"]]: dict(zip(COLUMNS["calls"], r)) for r in batch.calls}


def _fixture_lines(tmp_path: Path, drop: tuple[int, ...] = ()) -> Path:
    lines = RUNNING.read_text().splitlines()
    return rollout(tmp_path, [x for i, x in enumerate(lines, 1) if i not in drop])


def test_a_running_command_takes_the_answer_its_end_event_brings() -> None:
    ((_, batch, probs),), problems = read(RUNNING)
    assert problems == [] and probs == []
    calls = _calls(batch)
    rsync = calls[RSYNC]
    # the final exit code, output and run time arrive in exec_command_end (fixture line 10)
    assert (rsync["status"], rsync["exit_code"]) == ("completed", 101)
    assert "Could not resolve host: index.crates.io" in rsync["output"]
    assert rsync["time_end"] - rsync["time_start"] == 12910
    readings = {(round(m["value"], 2), m["unit"]) for m in rsync["measurements"]}
    assert (12.91, "s") in readings and (101.0, "exit code") in readings
    assert (1.0, "s") not in readings  # the yield wait of the first output is no reading
    # the poll names what it polls and carries no exit code of its own
    poll = calls[RSYNC_POLL]
    assert json.loads(poll["input"])["polls"] == RSYNC and poll["exit_code"] is None
    # the event joins the message of the call's output (nothing read twice, nothing lost)
    raws = [json.loads(r[M["raw"]]) for r in batch.messages]
    owner = [r for r in raws if 6 in r["lines"]]
    assert len(owner) == 1 and 10 in owner[0]["lines"] and "open_calls" not in owner[0]
    assert sorted(n for r in raws for n in r["lines"]) == list(range(1, 31))
    for run, p in FINDS.items():  # ended (events) before the agent polled them
        assert calls[run]["exit_code"] == 0 and calls[run]["output"].strip()
        assert json.loads(calls[p]["input"])["polls"] == run
        assert calls[p]["exit_code"] is None
    assert "/Developer/Work/Projects/kosh-ai" in calls["call_HOyJlUN5NKJwqQfFGt48QzZn"]["output"]
    # no output ever came: the event's answer is kept, the call stays without a result
    ls = calls[LS]
    assert (ls["status"], ls["exit_code"]) == ("interrupted", 0)
    assert "total 376" in ls["output"]


def test_without_end_events_the_poll_that_reads_the_exit_answers(tmp_path: Path) -> None:
    """Builds that write no exec_command_end (0.101, 0.130 in the pool): the poll that
    reads "Process exited with code N" is the run's answer; its output joins the run's."""
    f = _fixture_lines(tmp_path, drop=(10, 22, 23, 30))
    ((_, batch, _),), _ = read(f)
    calls = _calls(batch)
    lines = RUNNING.read_text().splitlines()
    read_at = [iso_ms(json.loads(lines[i])["timestamp"]) for i in (25, 26)]  # lines 26, 27
    for (run, p), at in zip(FINDS.items(), read_at):
        assert calls[run]["exit_code"] == 0 and calls[p]["exit_code"] is None
        assert calls[run]["time_end"] == at  # when the poll read the exit
    assert "/Developer/Work/Projects/kosh-ai" in calls["call_HOyJlUN5NKJwqQfFGt48QzZn"]["output"]
    # the rsync's poll read only more of its output: no exit, the run still ran
    rsync = calls[RSYNC]
    assert rsync["exit_code"] is None and "Could not resolve host" in rsync["output"]
    ls = calls[LS]
    assert (ls["status"], ls["exit_code"], ls["output"]) == ("interrupted", None, None)


def test_a_turn_aborted_ends_the_runs_it_terminated(tmp_path: Path) -> None:
    """"Any running unified exec processes were terminated": the run still waiting at the
    turn_aborted (fixture line 14) gets no answer, and its message is held no longer."""
    f = _fixture_lines(tmp_path, drop=(8, 9, 10))
    out = []
    for src in CodexReader().sessions(f, []):
        for m in src.messages:
            out.append(m)
            if any(p.get("callID") == RSYNC for p in m.parts):
                break  # given before the file's end: the abort released it
        break
    rsync = [p for p in out[-1].parts if p.get("callID") == RSYNC][0]
    assert rsync["state"]["metadata"]["terminatedBy"] == "turn_aborted"
    assert "exit" not in rsync["state"]["metadata"]
    assert b"open_calls" not in out[-1].raw  # (held to the file's end, it would say so)


def test_older_builds_escalate_with_a_flag(tmp_path: Path) -> None:
    """Codex before ``sandbox_permissions`` (0.3x-0.4x shell tool): ``with_escalated_
    permissions: true`` asks the same (no real line in the pool; the shape of those
    builds' shell arguments)."""
    f = rollout(tmp_path, [meta(), user("go"), item({
        "type": "function_call", "name": "shell", "call_id": "c1",
        "arguments": json.dumps({"command": ["bash", "-lc", "npm install"],
                                 "with_escalated_permissions": True,
                                 "justification": "install needs the network"})})])
    ((_, batch, _),), _ = read(f)
    (call,) = batch.calls
    assert json.loads(call[C["input"]])["sandbox_permissions"] == "require_escalated"


def test_a_legacy_prompt_typed_twice_in_a_row_is_two_messages(tmp_path: Path) -> None:
    """A legacy rollout's items carry no time: a prompt typed again after a turn that
    wrote nothing (interrupted at once) is the same line twice in a row, and both are the
    user's.  The rule that reads a repeated line once (a copy or a sync doubled it) holds
    for records with their time only; it took the second prompt for a copy."""
    ask = {"type": "message", "role": "user",
           "content": [{"type": "input_text", "text": "continue"}]}
    f = rollout(tmp_path, [
        {"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e", "timestamp": "2025-05-08T17:05:31.245Z",
         "instructions": None},
        ask, ask,
        {"type": "message", "role": "assistant",
         "content": [{"type": "output_text", "text": "done"}]}], "legacy.jsonl")
    ((_, batch, probs),), _ = read(f)
    assert probs == []
    assert [m[M["role"]] for m in batch.messages] == ["user", "user", "assistant"]


@pytest.mark.parametrize("item", [
    {"status": "failed", "error": "request timed out"},  # the error as a bare message
    {"status": "failed", "result": {"content": [{"type": "text", "text": "boom"}]}},
    {"status": "declined"},
])
def test_a_failed_mcp_item_is_no_success(item: dict[str, Any]) -> None:
    """A Codex 0.17x ``item_completed`` ``McpToolCall`` whose status is ``failed`` (or
    ``declined``) is an error even when its ``error`` is not ``{message}`` or its result
    does not say ``isError``: it was stored as completed."""
    from logparse.codex import item_end, mcp_error

    end = item_end({"type": "item_completed", "item": {
        "type": "McpToolCall", "id": "call_1", "server": "notes", "tool": "lookup",
        "arguments": {}, **item}})
    assert mcp_error(end), end
    ok = item_end({"type": "item_completed", "item": {
        "type": "McpToolCall", "id": "call_1", "server": "notes", "tool": "lookup",
        "arguments": {}, "status": "completed",
        "result": {"content": [{"type": "text", "text": "add(a, b)"}]}}})
    assert mcp_error(ok) is None


def _prompts(batch: Batch) -> list[tuple[str, str]]:
    P = {name: i for i, name in enumerate(COLUMNS["prose"])}
    return [(r[P["source"]], r[P["text"]][:24]) for r in batch.prose if r[P["kind"]] == "prompt"]


def echo(text: str) -> dict[str, Any]:
    return {"timestamp": "2025-10-01T10:00:01.500Z", "type": "event_msg",
            "payload": {"type": "user_message", "message": text, "images": []}}


def test_a_user_message_codex_never_echoed_is_injected_context(tmp_path: Path) -> None:
    """Codex echoes what the user types (``event_msg`` ``user_message``), never the context
    it injects: an instruction block no opener names (a build's new wrapper, a bare
    AGENTS.md) is marked injected by that structure, so no user-words rule reads its "do
    not use", "ignore"."""
    rules = "Project rules:\nDo not use npm. Ignore the legacy-contracts folder."
    f = rollout(tmp_path, [
        meta(version="0.130.0"),
        user("<environment_context>\n  <cwd>/w</cwd>\n</environment_context>"),
        user("fix the build"), echo("fix the build"),
        say("fixed"),
        user(rules),  # no echo: injected between turns
        {"timestamp": "2025-10-01T10:00:02Z", "type": "turn_context", "payload": {"cwd": "/w"}},
        user("ignore the legacy-contracts folder"), echo("ignore the legacy-contracts folder"),
        say("ok"),
    ])
    ((_, batch, _),), _ = read(f)
    assert _prompts(batch) == [("synthetic", "<environment_context>\n  "),
                               ("text", "fix the build"), ("synthetic", rules[:24]),
                               ("text", "ignore the legacy-contra")]


def test_a_rollout_that_echoes_nothing_keeps_its_messages_the_users(tmp_path: Path) -> None:
    """Older builds write no ``user_message`` events: every message stays the user's; an
    echo written before its message (either order) marks that message typed."""
    f = rollout(tmp_path, [meta(), user("fix the build"), say("fixed"), user("now test it")])
    ((_, batch, _),), _ = read(f)
    assert [s for s, _ in _prompts(batch)] == ["text", "text"]
    g = rollout(tmp_path, [meta(), echo("fix the build"), user("fix the build"), say("fixed"),
                           echo("now test it"), user("now test it"), say("done")], "b.jsonl")
    ((_, batch, _),), _ = read(g)
    assert [s for s, _ in _prompts(batch)] == ["text", "text"]
    # two messages typed in a row, echoed after both; an unechoed block between them
    h = rollout(tmp_path, [meta(), user("fix the build"), echo("fix the build"), say("fixed"),
                           user("now test it"), user("Rules: do not use npm."),
                           user("and lint"), echo("now test it"), echo("and lint"),
                           say("done")], "c.jsonl")
    ((_, batch, _),), _ = read(h)
    assert [s for s, _ in _prompts(batch)] == ["text", "text", "synthetic", "text"]
