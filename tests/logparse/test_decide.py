"""The direction-setting rules of :mod:`logparse.decide`, walked row by row, and what the
deriver makes of them (a prompt classed ``decision``; a user's answer or plan approval as a
decision event of its own)."""

from __future__ import annotations

import json
import re

import pytest

from logparse.decide import (
    AGENT_DECISION_ROWS,
    CHOICE_ROWS,
    USER_DECISION_ROWS,
    agent_decision,
    choice_text,
    user_decision,
)
from logparse.derive import derive_session, to_events
from logparse.source import RawMessage


@pytest.mark.parametrize("row", USER_DECISION_ROWS, ids=[r[0] for r in USER_DECISION_ROWS])
def test_every_user_row_fires_on_its_example(row: tuple[str, str, str, str]) -> None:
    name, pattern, example, where = row
    assert where, f"{name} names no transcript"
    assert re.search(pattern, example, re.IGNORECASE | re.MULTILINE), name
    assert user_decision(example) is not None


@pytest.mark.parametrize("row", CHOICE_ROWS, ids=[r[0] for r in CHOICE_ROWS])
def test_every_choice_row_fires_on_its_example(row: tuple[str, str, str, str, str]) -> None:
    name, tool, _, example, where = row
    assert where
    got = choice_text(tool, "completed", example)
    assert got is not None and len(got) > 10, name
    assert choice_text(tool, "error", example) is None
    assert choice_text("bash", "completed", example) is None


@pytest.mark.parametrize("text", [
    "should we use the hybrid approach?",        # a question, not a choice
    "why did it fail? the build log is below",
    "<ide_opened_file>let's do it</ide_opened_file>",  # injected by the IDE
    "let's do " + "x " * 400,                      # a paste, not a choice
    "ok update git and push",
])
def test_not_a_decision(text: str) -> None:
    assert user_decision(text) is None


def test_choice_text_keeps_the_answers_and_the_plan() -> None:
    out = ('User has answered your questions: "Which database?"="opencode.db". '
           "You can now continue with the user's answers in mind.")
    assert choice_text("question", "completed", out) == 'Chose: "Which database?"="opencode.db"'
    plan = "# Plan\n- esbuild to one file"
    assert choice_text("ExitPlanMode", "completed", "User has approved your plan. Go.",
                       plan) == "Plan approved: # Plan\n- esbuild to one file"
    assert choice_text("exitplanmode", "completed", "User rejected the plan", plan) is None


def _msg(i: int, role: str, parts: list[dict[str, object]]) -> RawMessage:
    return RawMessage(info={"id": f"msg_{i:03d}", "role": role, "time": {"created": 1000 + i}},
                      parts=parts, raw=b"{}")


def test_deriver_classes_the_users_choice_and_the_answered_question() -> None:
    answer = ('User has answered your questions: "Webhook or bot?"="Webhook URL". '
              "You can now continue with the user's answers in mind.")
    msgs = [
        _msg(1, "user", [{"type": "text", "id": "p1", "text": "make the lambda notify me"}]),
        _msg(2, "assistant", [{"type": "tool", "id": "p2", "tool": "question", "callID": "c1",
                               "state": {"status": "completed", "input": {"questions": []},
                                         "output": answer}}]),
        _msg(3, "user", [{"type": "text", "id": "p3", "text": "yes let's use esbuild"}]),
    ]
    batch, _ = derive_session("ses_d", "t.json", msgs)
    evs = to_events("ses_d", batch)
    dec = [(e.ordinal, e.kind, e.text) for e in evs if e.classification == "decision"]
    assert dec == [(2, "decision", 'Chose: "Webhook or bot?"="Webhook URL"'),
                   (3, "prompt", "yes let's use esbuild")]
    assert [e.classification for e in evs if e.ordinal == 1] == [None]
    assert json.dumps([e.kind for e in evs if e.ordinal == 2]).count("command") == 1


@pytest.mark.parametrize("row", AGENT_DECISION_ROWS, ids=[r[0] for r in AGENT_DECISION_ROWS])
def test_every_agent_row_fires_on_its_example(row: tuple[str, str, str, str]) -> None:
    name, _, example, where = row
    assert where
    assert agent_decision(example, "plan") == name
    assert agent_decision(example, "pivot") is None  # a pivot outranks a decision
