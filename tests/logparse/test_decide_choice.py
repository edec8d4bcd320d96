"""Decisions from structure (:mod:`logparse.decide_choice`): every approval and agent-choice
row walked on its real example, the structure they need, and what the deriver stores."""

from __future__ import annotations

import re

import pytest

from logparse.decide_choice import (
    AGENT_CHOICE_ROWS,
    APPROVAL_ROWS,
    agent_choice,
    approval,
)
from logparse.derive import Deriver, derive_session, to_events
from logparse.source import RawMessage

ASKS = "Done. Want me to init the repo and commit?"  # pool/random__session ordinal 15


@pytest.mark.parametrize("row", APPROVAL_ROWS, ids=[r[0] for r in APPROVAL_ROWS])
def test_every_approval_row_fires_on_its_example(row: tuple[str, str, str, str, str]) -> None:
    name, lang, pattern, example, where = row
    assert where and lang
    assert re.match(pattern, example, re.IGNORECASE), name
    got = approval(example, ASKS)
    assert got == (name, "Approved: Want me to init the repo and commit?")
    assert approval(example, "Done. The repo is committed.") is None  # nothing was asked
    assert approval(example, None) is None


@pytest.mark.parametrize("row", AGENT_CHOICE_ROWS, ids=[r[0] for r in AGENT_CHOICE_ROWS])
def test_every_agent_row_fires_on_its_example(row: tuple[str, str, str, str, str]) -> None:
    name, lang, pattern, example, where = row
    assert lang == "en"
    assert where.count(";") >= 1, f"{name}: a row needs lines of two sessions"
    assert re.search(pattern, example, re.IGNORECASE)
    got = agent_choice(example)
    assert got is not None and got.rule == name and len(got.chosen) > 5


@pytest.mark.parametrize("reply", [
    "when did this session start? at what time?",  # a question of its own
    "do you think doing this is elementor would be possible",
    "PERFECTO, lo siguiente va a ser que inicalices un proyecto Serena para tener mayor "
    "persistencia de memorias",                      # a new instruction, not a reply
    "<environment_context>yes</environment_context>",
    "it doesn't seem to have worked on the github repo",
])
def test_not_an_approval(reply: str) -> None:
    assert approval(reply, ASKS) is None


def test_a_number_picks_the_numbered_option_and_answers_map_to_questions() -> None:
    # labelled/uicomponents ordinals 106-107 (trimmed)
    plan = ("## Plan: Category Navigation\n\nQuestions:\n1. Should the bar be sticky?\n"
            "2. Should clicking a category **scroll to top** automatically?\n"
            "3. Any categories you want to rename, merge, or split differently?")
    got = approval("1. no 2. no 3. no", plan)
    assert got is not None and got[0] == "numbered-answers"
    assert got[1].startswith("Answered: 1. Should the bar be sticky? → no; 2. Should")
    assert approval("2", plan) == (
        "numbered-pick",
        "Chose option 2: Should clicking a category **scroll to top** automatically?")
    assert approval("7", plan) is None  # no such option, and a bare number approves nothing


def test_agent_choice_carries_the_rejected_option_and_the_reason() -> None:
    # labelled/uicomponents__session-export.json ordinal 201
    c = agent_choice("Let me take a cleaner approach — use the mount div's own dimensions "
                     "via CSS `inset-0` instead of `window.innerHeight`:")
    assert c is not None and c.rejected == "`window.innerHeight`"
    assert c.chosen.startswith("take a cleaner approach")
    # labelled/Valdyum-Labs ordinal 68 (trimmed)
    c = agent_choice("The bundled export script itself is hitting a Git Bash signal-pipe "
                     "permission error, so I’m using its documented fallback: copying the "
                     "latest Codex `.jsonl` session")
    assert c is not None and c.reason is not None
    assert c.text() == ("Chose: using its documented fallback; because the bundled export "
                        "script itself is hitting a Git Bash signal-pipe permission error")
    assert agent_choice("Let me check the build output first.") is None
    assert agent_choice("Use `TimeOfDay` instead of hour numbers.") is None  # no one chose


def _msg(i: int, role: str, parts: list[dict[str, object]]) -> RawMessage:
    return RawMessage(info={"id": f"msg_{i:03d}", "role": role, "time": {"created": 1000 + i}},
                      parts=parts, raw=b"{}")


def _text(i: int, role: str, text: str) -> RawMessage:
    return _msg(i, role, [{"type": "text", "id": f"p{i}", "text": text}])


def test_deriver_stores_the_approval_and_the_agents_choice() -> None:
    msgs = [
        _text(1, "user", "make a random number page"),
        _text(2, "assistant", "Port 3000 is taken. I’m starting the app on 3001 instead."),
        _text(3, "assistant", ASKS),
        _text(4, "user", "Yes please"),
        _text(5, "assistant", "Committed."),
        _text(6, "user", "yes"),  # the reply before it asked nothing
    ]
    batch, problems = derive_session("ses_c", "t.json", msgs)
    assert not problems
    evs = to_events("ses_c", batch)
    dec = [(e.ordinal, e.kind, e.text) for e in evs if e.classification == "decision"]
    assert dec == [(2, "decision", "Chose: starting the app on 3001"),
                   (4, "prompt", "Yes please"),
                   (4, "decision", "Approved: Want me to init the repo and commit?")]
    # the replies keep their own class: the decision is an event beside them
    assert [e.classification for e in evs if e.ordinal == 2 and e.text and
            e.text.startswith("Port")] != ["decision"]


def test_a_resumed_ingest_still_knows_the_proposal() -> None:
    d = Deriver("ses_r", "t.json")
    d.add_all([_text(1, "user", "go"), _text(2, "assistant", ASKS)])
    d.take()
    state = d.sequence()
    d2 = Deriver("ses_r", "t.json")
    d2.resume_sequence(state)
    d2.add(_text(3, "user", "ok"))
    evs = to_events("ses_r", d2.take())
    assert [e.text for e in evs if e.kind == "decision"] == [
        "Approved: Want me to init the repo and commit?"]
    old = {k: v for k, v in state.items() if k != "proposal"}  # stored by older rules
    Deriver("ses_r", "t.json").resume_sequence(old)


def test_an_open_question_is_not_approved_and_the_clause_owns_its_alternative() -> None:
    # labelled/k1 ordinals 4-5: "ok sh is logged" answers no proposal
    assert approval("ok sh is logged", "What would you like me to help with?") is None
    # pool/random__session ordinals 32-33: the follow-up question stays with the proposal
    got = approval("yes please", "That's our full session transcript. Want me to copy it "
                   "into the repo and commit it? Something like `session.jsonl`?")
    assert got == ("en-yes", "Approved: Want me to copy it into the repo and commit it? "
                   "Something like `session.jsonl`?")
    # labelled/soulpass ordinal 199: "rather than" belongs to the second clause
    c = agent_choice("I’ll try to start the dev server; if port 3000 is still locked by "
                     "another process, I’ll report that rather than touching the process.")
    assert c is not None and (c.chosen, c.rejected) == ("report that", "touching the process")


def test_the_instead_row_reads_what_is_made() -> None:
    # labelled/soulpass__codex-session.jsonl ordinal 302 (trimmed)
    c = agent_choice("I’m going to make the app detect this before opening the wallet and "
                     "return a clear configuration error instead of a failed transaction.")
    assert c is not None and c.rejected == "a failed transaction"


def test_the_proposal_is_sequential_state_a_worker_is_handed() -> None:
    # kb.derive_pool: the sequential part steps every message, another deriver derives it
    msgs = [_text(1, "user", "go"), _text(2, "assistant", ASKS),
            _msg(3, "assistant", [{"type": "tool", "id": "t3", "tool": "bash", "callID": "c",
                                   "state": {"status": "completed", "input": {"command": "ls"},
                                             "output": "a\n"}}]),
            _text(4, "user", "ok")]
    seq, worker = Deriver("ses_p", "t.json"), Deriver("ses_p", "t.json")
    for m in msgs:
        place = seq.step(m, 0)
        assert place is not None
        if m.info["id"] == "msg_004":  # only the reply goes to this worker
            worker.derive_at(m, 0, *place, proposal=seq.proposal_before)
    evs = to_events("ses_p", worker.take())
    assert [e.text for e in evs if e.kind == "decision"] == [
        "Approved: Want me to init the repo and commit?"]
