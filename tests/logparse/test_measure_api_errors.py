"""A request that failed at the provider measures the HTTP status it failed with, from
whichever reader kept it: a status field (opencode's ``statusCode``, Claude Code's
``error.status`` of its last retry) or the status its error text states (the HTTP rules of
:mod:`logparse.measure`, read on the error's message only for its status).  Real records:
``fixtures/measure/claude_api_error.jsonl`` (pool/Xeus__claude-session.jsonl lines 2 and
10, headers dropped) and ``fixtures/realworld_trim/gemini_cli.jsonl``."""

from __future__ import annotations

from pathlib import Path

import pytest

from logparse.derive import api_error_readings, derive_session, to_events
from logparse.registry import detect

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"


def _error_readings(path: Path) -> list[tuple[str, set[tuple[float, str]]]]:
    out = []
    for session in detect(path)().sessions(path, []):
        batch, _ = derive_session(session.session_id, str(path), session.messages)
        out += [(e.text or "", {(m.value, m.unit) for m in e.measurements})
                for e in to_events(session.session_id, batch) if e.kind.value == "error"]
    return out


def test_a_failed_request_measures_its_status_as_its_retries_do() -> None:
    # Claude Code 2.1.76: eight api_error retries answered 500, then nothing: the failed
    # reply is the message error, and it keeps the status its retries measured
    got = _error_readings(FIXTURES / "measure" / "claude_api_error.jsonl")
    failed = [r for t, r in got if t.startswith("APIError: ")]
    assert failed == [{(500.0, "HTTP")}]
    assert all((500.0, "HTTP") in r for t, r in got if t.startswith("retry "))


def test_an_api_error_without_a_status_measures_nothing() -> None:
    # Gemini CLI's quota error (the trimmed Gemini CLI fixture): its reset time is no
    # result, and a cancelled request none either
    got = _error_readings(FIXTURES / "realworld_trim" / "gemini_cli.jsonl")
    assert any("exhausted your capacity" in t for t, _ in got)
    assert all(not r for _, r in got)


@pytest.mark.parametrize("message, want", [
    # the status the HTTP rules read in an error line, and nothing else of it
    ("The requested URL returned error: 404", [404.0]),
    ("[API Error: You have exhausted your capacity on this model. Your quota will reset "
     "after 16h26m8s.]", []),
    ("You've hit your limit · resets 1am (Europe/Paris)", []),
    ("request 8f14e45f failed after 3 retries (500 ms)", []),
])
def test_api_error_readings_take_statuses_only(message: str, want: list[float]) -> None:
    got = api_error_readings(message)
    assert [m["value"] for m in got] == want
    assert all(m["unit"] == "HTTP" and m["label"] == "API error status" for m in got)
