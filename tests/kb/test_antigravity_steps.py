"""Every Antigravity step type is read as what it is: the user's words, the model's turn,
a call's result, or what the system sent the model, never as the user's prompt.

The lines are the trimmed real steps of ``fixtures/realworld_trim/antigravity.jsonl``
(``Xeus__gemini-session.jsonl``, see its README); step types the pool does not show are
written from a real line of the same family with its ``type`` (or a call's tool name)
changed, as the comment of each says.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kb.ingest import ingest
from kb.store import KbStore
from logparse.antigravity import (
    OPEN_TOOL_STEPS,
    STEP_ROLES,
    SYSTEM_STEPS,
    TOOL_STEPS,
    AntigravityReader,
    expected_steps,
)
from logparse.models import Problem

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim" / "antigravity.jsonl"


def _steps() -> dict[int, dict[str, Any]]:
    """The trimmed steps by ``step_index``."""
    rows = [json.loads(x) for x in TRIM.read_text(encoding="utf-8").splitlines()]
    return {r["step_index"]: r for r in rows}


STEPS = _steps()


def _write(path: Path, steps: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    return path


def _read(path: Path) -> tuple[list[Any], AntigravityReader, list[Problem]]:
    reader = AntigravityReader()
    problems: list[Problem] = []
    msgs = [m for s in reader.sessions(path, problems) for m in s.messages]
    return msgs, reader, problems


def test_every_step_type_the_reader_knows_has_one_role() -> None:
    assert set(STEP_ROLES.values()) == {"user", "assistant", "result", "system", "marker"}
    assert SYSTEM_STEPS.isdisjoint(TOOL_STEPS)
    # every type of the trimmed real file is one the reader maps
    assert {s["type"] for s in STEPS.values()} <= set(STEP_ROLES)
    # the pool's step sources: the user's, the model's, the system's
    for s in STEPS.values():
        role = STEP_ROLES[s["type"]]
        assert (s["source"] == "USER_EXPLICIT") == (role == "user"), s["type"]
        if role == "system":
            assert s["source"] == "SYSTEM"


@pytest.mark.parametrize("typ", sorted(SYSTEM_STEPS))
def test_a_system_step_is_context_of_a_system_message(tmp_path: Path, typ: str) -> None:
    # the real SYSTEM_MESSAGE (step 7) and CHECKPOINT (step 48), the other system types
    # written as the SYSTEM_MESSAGE with their type
    base = STEPS[48] if typ == "CHECKPOINT" else STEPS[7]
    f = _write(tmp_path / "t.jsonl", [STEPS[0], {**base, "type": typ}])
    msgs, reader, problems = _read(f)
    assert problems == [] and reader.skipped == {}
    assert [m.info["role"] for m in msgs] == ["user", "system"]
    parts = msgs[1].parts
    want = ["compaction", "context"] if typ == "CHECKPOINT" else ["context"]
    assert [p["type"] for p in parts] == want
    assert parts[-1]["source"] == typ and parts[-1]["text"] == base["content"]


def test_an_unknown_step_type_is_counted_and_kept_raw(tmp_path: Path) -> None:
    f = _write(tmp_path / "t.jsonl", [STEPS[0], {**STEPS[7], "type": "BRAND_NEW_STEP"},
                                      STEPS[23]])
    msgs, reader, problems = _read(f)
    assert problems == [] and reader.skipped == {"BRAND_NEW_STEP": 1}
    assert [m.info["role"] for m in msgs] == ["user", "user"]
    assert json.loads(msgs[1].raw)["lines"] == [2, 3]  # in the next message's record


@pytest.mark.parametrize(("tool", "step"), [
    ("schedule", "GENERIC"),            # the pool: schedule, manage_task run as GENERIC
    ("command_status", "COMMAND_STATUS"),  # a step named after its tool
    ("find_by_name", "FIND"),
    ("mcp_github_search", "MCP_TOOL"),
])
def test_a_tool_step_answers_the_call_it_executes(tmp_path: Path, tool: str, step: str) -> None:
    # planner step 65 (one run_command call) with the call's name changed; its answer is
    # the real RUN_COMMAND step 66 with its type changed
    planner = json.loads(json.dumps(STEPS[65]))
    planner["tool_calls"][0]["name"] = tool
    assert step in expected_steps(tool)
    f = _write(tmp_path / "t.jsonl", [STEPS[23], planner, {**STEPS[66], "type": step}])
    msgs, reader, problems = _read(f)
    assert problems == [] and reader.skipped == {}
    assert [m.info["role"] for m in msgs] == ["user", "assistant"]
    (call,) = [p for p in msgs[1].parts if p["type"] == "tool"]
    assert call["state"]["status"] == "completed"
    assert json.loads(msgs[1].raw)["lines"] == [2, 3]
    assert step in TOOL_STEPS and (step in OPEN_TOOL_STEPS or step == tool.upper()
                                   or (tool, step) == ("find_by_name", "FIND"))


def test_the_goal_is_the_first_real_request(tmp_path: Path) -> None:
    """A trajectory that resumes after a compaction opens with the system's summary and a
    report: the hand-off's goal is what the user asked after them, and the system's last
    notice is no request left unanswered."""
    from kb.graph import store as gs
    from kb.handoff import brief

    f = _write(tmp_path / "resumed.jsonl",
               [STEPS[48], STEPS[7], STEPS[23], STEPS[65], STEPS[66], STEPS[7]])
    store = KbStore(tmp_path / "kb.duckdb")
    rep = ingest(store, [f])
    assert [str(p) for p in rep.problems] == [] and rep.skipped == {}
    q = store.conn.execute
    (sid,) = q("SELECT session_id FROM sessions").fetchone()
    assert q("SELECT ordinal, role FROM messages ORDER BY ordinal").fetchall() == [
        (1, "system"), (2, "system"), (3, "user"), (4, "assistant"), (5, "system")]
    # the user's words are the only prompts; the system's texts are context
    assert q("SELECT ordinal, source FROM prose WHERE kind = 'prompt' ORDER BY seq"
             ).fetchall() == [(3, "text"), (3, "synthetic")]
    assert q("SELECT ordinal, json_extract_string(data, '$.source') FROM other_events "
             "WHERE kind = 'context' ORDER BY ALL").fetchall() == [
        (1, "CHECKPOINT"), (2, "SYSTEM_MESSAGE"), (5, "SYSTEM_MESSAGE")]
    goal = brief(store, sid)["goal"]
    assert goal["ordinal"] == 3
    assert goal["prompt"] == ("we need something unique , and usefull , you bring that to me "
                              "and it approved from my side")
    # the file ends on the system's notice, not on a request nobody answered
    reasons = [u["reason"] for u in gs.untested(store, [sid], include_answered=True)]
    assert not any("before any reply" in r for r in reasons), reasons
    store.close()
