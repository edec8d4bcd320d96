"""An extraction rule that raises is a bug: nothing in the rules catches it; ingest
counts it, reports it as a problem of the message, and stores the session anyway."""

from __future__ import annotations

from pathlib import Path

import pytest

import logparse.derive as derive
from logparse.derive import Deriver, derive_session
from logparse.registry import detect

CODEX = Path(__file__).resolve().parents[2] / "fixtures" / "structural" / "codex.jsonl"


def _boom(*_: object) -> list[str]:
    raise IndexError("a rule's bug")


def test_a_raising_rule_is_counted_and_the_session_still_derives(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(derive, "error_signatures", _boom)
    calls, problems = [], []
    for src in detect(CODEX)().sessions(CODEX, []):
        batch, probs = derive_session("s", str(CODEX), src.messages)
        calls += batch.calls
        problems += probs
    assert calls  # every call is stored, without its signatures
    hits = [p for p in problems if "extraction rule _boom raised IndexError" in p.reason]
    assert hits and all(p.message_id for p in hits)


def test_rule_guard_returns_the_default() -> None:
    d = Deriver("s", "x.jsonl")
    assert d._rule(_boom, ("text",), [], "m1", None) == []
    assert d._rule(len, ("abc",), 0, "m1", None) == 3
    assert d.rule_errors == 1 and len(d.problems) == 1
