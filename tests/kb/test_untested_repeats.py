"""The same call left untested again is one row for people, one row per ordinal for scripts.

``fixtures/untested/opencode_stalled_again.json`` is the labelled
``uicomponents__session-export.json`` trimmed to its messages 30-37: the user asks, the
reply stops without an answer three times in a row (ordinals 2, 4 and 6 of the trim,
31, 33 and 35 of the whole session), the user asking again each time.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.graph import store as gs
from kb.render import repeats, untested_lines
from tests.cli_kb import invoke, lines

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "untested" / \
    "opencode_stalled_again.json"
QUESTION = "what was this reply going to answer?"


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("repeats") / "kb.duckdb"
    r = invoke("ingest", "--wait", "--db", str(path), str(FIXTURE))
    assert r.exit_code == 0, r.output
    return path


def test_text_shows_the_repeated_call_once_with_its_ordinals(db: Path) -> None:
    r = invoke("untested", "--all", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.output
    rows = [x for x in r.stdout.splitlines() if QUESTION in x]
    assert len(rows) == 1, r.stdout
    assert "×3 at 2, 4, 6" in rows[0]
    assert all(len(x) <= 80 for x in r.stdout.splitlines())


def test_json_keeps_a_row_per_ordinal_with_the_group(db: Path) -> None:
    r = invoke("untested", "--all", "--json", "--db", str(db))
    items = [i for i in lines(r.stdout) if i["question"] == QUESTION]
    # the shared scorer reads `ordinal` of each row: every ordinal stays a row
    assert [i["ordinal"] for i in items] == [2, 4, 6]
    assert all(i["ordinals"] == [2, 4, 6] and i["count"] == 3 for i in items)


def _row(ordinal: int, command: str = "ls", reason: str = "the check timed out",
         status: str = "open") -> dict[str, object]:
    return {"session_id": "s", "ordinal": ordinal, "question": f"what does `{command}` report?",
            "reason": reason, "host": None, "command": command, "status": status,
            "answered_at": None}


def test_two_calls_of_one_message_are_one_row_counted_twice() -> None:
    rows = gs._same_calls([_row(129), _row(129), _row(130, "pwd")])
    assert [(r["ordinal"], r["count"], r["ordinals"]) for r in rows] == [
        (129, 2, [129]), (130, 1, [130])]
    assert repeats(rows[0]) == "×2 at 129"
    assert repeats(rows[1]) == ""


def test_only_the_same_command_reason_and_state_collapse() -> None:
    rows = gs._same_calls([_row(41), _row(57), _row(60, reason="the tool call was aborted"),
                           _row(61, "pwd"), _row(70, status="answered")])
    once = gs.untested_once(rows)
    assert [(r["ordinal"], r["count"]) for r in once] == [(41, 2), (60, 1), (61, 1), (70, 1)]
    text = "\n".join(t.plain for t in untested_lines(once, 80))
    assert "×2 at 41, 57" in text and text.count("what does `ls` report?") == 3


def test_many_repeats_stay_short() -> None:
    rows = gs._same_calls([_row(o) for o in range(10, 30, 2)])
    assert repeats(rows[0]) == "×10 at 10, 12, 14, …, 28"
    assert json.loads(json.dumps(rows[0]))["ordinals"] == list(range(10, 30, 2))
