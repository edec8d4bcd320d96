"""Claude Code 2.1.332 as it really writes a session: the trimmed recording of
``fixtures/claude_record`` (the real CLI, a scripted model on loopback), read structure
by structure."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from logparse.claude_code import OTHER_TYPES, ClaudeCodeReader
from logparse.derive import COLUMNS, Batch, derive_session
from logparse.models import Problem
from logparse.registry import detect, discover
from logparse.structural import (
    MessageFacts,
    api_error_kind,
    message_signals,
)

C = {name: i for i, name in enumerate(COLUMNS["calls"])}
M = {name: i for i, name in enumerate(COLUMNS["messages"])}
E = {name: i for i, name in enumerate(COLUMNS["other"])}
HERE = Path(__file__).resolve().parents[2] / "fixtures" / "claude_record" / "recorded" / \
    "fix_divide" / "-srv-campaign"
SID = "2f969464-567e-4d35-8272-a0c156d779b6"
MAIN = HERE / f"{SID}.jsonl"
AGENT = "adbea13450bd85850"
SUB = HERE / SID / "subagents" / f"agent-{AGENT}.jsonl"


def records(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def read(path: Path) -> tuple[dict[str, tuple[Batch, list[Problem], dict[str, Any]]],
                              list[Problem], dict[str, int]]:
    problems: list[Problem] = []
    reader = ClaudeCodeReader()
    out = {}
    for src in reader.sessions(path, problems):
        batch, probs = derive_session(src.session_id, src.path, src.messages)
        out[src.session_id] = (batch, probs, src.info or {})
    return out, problems, reader.skipped


def calls(path: Path = MAIN, sid: str = SID) -> list[tuple[Any, ...]]:
    sessions, _, _ = read(path)
    return sessions[sid][0].calls


def test_the_recording_is_what_2_1_332_writes() -> None:
    types = Counter(r["type"] for f in (MAIN, SUB) for r in records(f))
    # the record types the current version writes that 2.1.147 did not
    assert {"api-request", "api-request-blob", "api-request-shape", "cost-state",
            "tools-used", "atis-latch"} <= set(types)
    assert {r.get("version") for r in records(MAIN)} - {None} == {"2.1.332"}
    assert set(types) <= OTHER_TYPES | {"user", "assistant"}


BG_FILES = sorted((HERE.parents[1] / "background").rglob("*.jsonl"))


@pytest.mark.parametrize("path", [MAIN, SUB, *BG_FILES],
                         ids=["main", "subagent", "background", "background-subagent"])
def test_every_record_is_known_and_kept(path: Path) -> None:
    assert detect(path) is ClaudeCodeReader
    sessions, problems, skipped = read(path)
    assert problems == [] and skipped == {}
    for _, probs, _ in sessions.values():
        assert probs == []
    # every line is in the raw record of some message, once
    kept = [n for batch, _, _ in sessions.values() for m in batch.messages
            for n in _lines(m[M["raw"]])]
    assert sorted(kept) == list(range(1, len(records(path)) + 1))


def _lines(raw: Any) -> list[int]:
    if isinstance(raw, (bytes, str)):
        raw = json.loads(raw)
    return [int(x) for x in raw.get("lines", [])] if isinstance(raw, dict) else []


def test_the_sub_agent_file_is_the_agent_call_s_child() -> None:
    sessions, _, _ = read(SUB)
    (key,) = sessions
    assert key == f"{SID}:agent-{AGENT}"
    batch, _, info = sessions[key]
    assert info["parentID"] == SID and info["title"].startswith("Find every caller")
    assert [c[C["tool"]] for c in batch.calls] == ["grep", "bash"]
    agent_calls = [c for c in calls() if c[C["tool"]] == "task"]
    refused, ran = agent_calls
    assert ran[C["status"]] == "completed" and ran[C["child_session_id"]] == key
    assert refused[C["status"]] == "error" and "routine-worker" in refused[C["error"]]


def test_a_directory_walk_takes_the_transcripts_and_passes_the_meta_notes() -> None:
    found = list(discover(HERE))
    assert sorted(Path(x.path).name for x in found) == sorted(
        [MAIN.name, SUB.name])
    assert all(not hasattr(x, "reason") for x in found)


def test_a_permission_rule_denial_is_read_from_the_line_s_fields() -> None:
    (rm,) = [c for c in calls() if c[C["command"]] == "rm -rf build"]
    assert rm[C["status"]] == "error"
    assert rm[C["error"]].startswith("denied (permission-rule): Permission to use Bash")


def test_runs_exit_codes_and_the_timeout() -> None:
    runs = [(c[C["command"]], c[C["exit_code"]]) for c in calls() if c[C["tool"]] == "bash"]
    assert ("python3 -m unittest -v test_calc", 1) in runs
    assert ("python3 -m unittest -v test_calc", 0) in runs
    assert ("sleep 5 && echo finished", 143) in runs


def test_tool_errors_and_invalid_input() -> None:
    errors = [c[C["error"]] for c in calls() if c[C["status"]] == "error"]
    assert any(e.startswith("<tool_use_error>String to replace not found") for e in errors)
    assert any("InputValidationError" in e for e in errors)


def test_task_create_and_update_are_the_todo_list() -> None:
    todos = [json.loads(c[C["input"]])["todos"] for c in calls()
             if c[C["tool"]] == "todowrite"]
    assert [[(t["content"], t["status"]) for t in ts] for ts in todos] == [
        [("Fix divide by zero", "pending")], [("Fix divide by zero", "completed")]]


def test_api_errors_and_the_compaction() -> None:
    sessions, _, _ = read(MAIN)
    batch = sessions[SID][0]
    failed = [m for m in batch.messages if m[M["error"]]]
    assert [m[M["error"]] for m in failed] == ["APIError"] * 3
    events = [next(r for r in batch.other if r[0] == m[M["ordinal"]]) for m in failed]
    assert [api_error_kind(e[E["text"]]) for e in events] == ["overload", "model", "quota"]
    # the line's own apiErrorStatus and apiErrorType, kept with the error
    assert [(json.loads(e[E["data"]])["data"]["statusCode"],
             json.loads(e[E["data"]])["data"]["type"]) for e in events] == [
        (529, "overloaded_error"), (404, "not_found_error"), (429, "rate_limit_error")]
    assert message_signals(MessageFacts("assistant", error="APIError", agent="claude-code")) \
        == ("api_error",)
    # the /compact boundary and the summary that replaced the history: one message
    compaction = [e for e in batch.other if str(e[E["kind"]].value) == "compaction"]
    assert [e[E["text"]][:22] for e in compaction] == ["Conversation compacted",
                                                      "This session is being "]
    assert len({e[E["ordinal"]] for e in compaction}) == 1


def test_resumed_and_continued_turns_stay_one_session() -> None:
    prompts = [r["message"]["content"] for r in records(MAIN) if r["type"] == "user"
               and r.get("promptSource") == "sdk"]
    # seven `claude -p` runs (the first, --resume, --continue): six prompts and /compact
    assert len(prompts) == 6
    sessions, _, _ = read(MAIN)
    assert list(sessions) == [SID]


def test_ingest_sets_the_structural_signals_from_claude_code_s_fields(tmp_path: Path) -> None:
    from kb.graph.store import load_rows
    from kb.ingest import ingest
    from kb.store import KbStore

    with KbStore(tmp_path / "kb.duckdb") as store:
        report = ingest(store, [HERE])
        sids = [r[0] for r in store.conn.execute("SELECT session_id FROM sessions").fetchall()]
        rows, _, _ = load_rows(store, sids)
    assert sorted(sids) == [SID, f"{SID}:agent-{AGENT}"]
    assert report.problems == [] and report.errors == [] and report.not_taken == []
    assert all(not v for v in report.skipped.values())
    got = {(c.tool, (c.command or "")[:24]): c.signals for c in rows if c.signals}
    assert got == {
        ("bash", "python3 -m unittest -v t"): ("exit_code",),
        ("edit", "/srv/campaign/calc.py"): ("tool_error",),
        ("read", "/srv/campaign/calc.py"): ("tool_error", "input_invalid"),
        ("bash", "sleep 5 && echo finished"): ("exit_code", "timed_out"),
        ("bash", "rm -rf build"): ("rejected_by_user",),
        ("task", "Find divide callers"): ("subagent_failed",),
    }


def test_the_change_the_529_cut_is_answered_by_the_run_after_continue(tmp_path: Path) -> None:
    """The test edit at 17 was cut by the overloaded API (18); the user said continue and
    the tests ran at 21: the change was checked, not left untested."""
    from kb.graph.store import untested
    from kb.ingest import ingest
    from kb.store import KbStore

    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [HERE])
        rows = untested(store, [SID])
    (cut,) = [r for r in rows if r["question"].startswith("does the change to")]
    assert cut["ordinal"] == 17 and cut["status"] == "answered" and cut["answered_at"] == 21


BG = HERE.parents[1] / "background" / "-srv-campaign"
BG_SID = "1e73612c-4ac0-46d0-9299-d7acb20767fa"


def _bg_calls(tmp_path: Path, src: Path) -> dict[str, Any]:
    from kb.graph.store import load_rows
    from kb.ingest import ingest
    from kb.store import KbStore

    with KbStore(tmp_path / "kb.duckdb") as store:
        report = ingest(store, [src])
        rows, _, _ = load_rows(store, [BG_SID])
    assert report.problems == [] and all(not v for v in report.skipped.values())
    return {(c.command or "")[:32]: c for c in rows if c.session_id == BG_SID}


def test_a_background_run_has_the_exit_its_notification_reports(tmp_path: Path) -> None:
    """`timeout 8 python3 -m http.server` started with run_in_background: the call answers
    at once, the <task-notification> (line 50) says it failed with exit code 124."""
    got = _bg_calls(tmp_path, BG)
    server = got["cd docs && timeout 8 python3 -m "]
    assert server.exit_code == 124 and server.signals == ("exit_code", "timed_out")
    assert server.failure == 'Background command "Serve the docs" failed with exit code 124'
    # the background sub-agent completed: its notification is no failure
    (agent,) = [c for c in got.values() if c.tool == "task"]
    assert agent.status == "completed" and agent.signals == ()
    assert got["curl -sS http://127.0.0.1:8765/"].exit_code == 7


def test_a_background_run_no_notification_followed_still_runs(tmp_path: Path) -> None:
    cut = tmp_path / "cut" / f"{BG_SID}.jsonl"
    cut.parent.mkdir()
    lines = (BG / f"{BG_SID}.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    cut.write_text("".join(lines[:33]), encoding="utf-8")  # the server started, curl ran
    server = _bg_calls(tmp_path, cut.parent)["cd docs && timeout 8 python3 -m "]
    assert server.exit_code is None and server.signals == ("still_running",)


TASK_SID = "1bd7c159-c5a4-41c4-9442-0674bdca85e4"
TASKS = HERE.parents[1] / "task_stream" / "-srv-campaign" / f"{TASK_SID}.jsonl"


def test_a_failed_task_create_takes_no_number() -> None:
    """Claude Code numbers only the creates that succeeded (``Task #2 created`` after a
    create refused as invalid input), so ``TaskUpdate`` #2 and #3 name the second and
    third tasks that exist, never the one that failed."""
    rows = [c for c in calls(TASKS, TASK_SID) if c[C["tool"]] == "todowrite"]
    lists = [[(t["content"], t["status"]) for t in json.loads(c[C["input"]])["todos"]]
             for c in rows]
    ok = ("Add mul", "pending"), ("Check mul", "pending")
    assert lists[:3] == [[ok[0]], [ok[0]], list(ok)]  # the second create failed
    assert [c[C["status"]] for c in rows[:5]] == ["completed", "error", "completed",
                                                  "error", "completed"]
    assert lists[4] == [*ok, ("Clean build", "pending")]
    assert lists[-1] == [("Add mul", "completed"), ("Check mul", "completed"),
                         ("Clean build", "in_progress")]


def test_a_task_call_never_answered_stands_and_the_list_goes_on(tmp_path: Path) -> None:
    """The answer to the first ``TaskCreate`` is lost (the line cut away): the call counts
    as having succeeded, and after the next prompt the list goes on from it (no call
    left open makes every later one recount the list)."""
    lines = TASKS.read_text(encoding="utf-8").splitlines(keepends=True)
    lost = next(i for i, x in enumerate(lines) if "Task #1 created" in x
                and '"type":"user"' in x)
    f = tmp_path / "t.jsonl"
    f.write_text("".join(lines[:lost] + lines[lost + 1:]), encoding="utf-8")
    rows = [c for c in calls(f, TASK_SID) if c[C["tool"]] == "todowrite"]
    first = json.loads(rows[0][C["input"]])["todos"]
    last = json.loads(rows[-1][C["input"]])["todos"]
    assert [t["content"] for t in first] == ["Add mul"]
    assert [(t["content"], t["status"]) for t in last] == [
        ("Add mul", "completed"), ("Check mul", "completed"), ("Clean build", "in_progress")]
