"""A duration the agent clocked in milliseconds stays one reading in ms (the unit the
labellers copy from ``durationMs``/``duration_ms``), and every text that shows it says
what it reads as: ``187258 ms (3.1 min)``; ``--json`` keeps the bare reading."""

from __future__ import annotations

from kb.cli.measure import _lines
from kb.records import Event, Measurement, gloss, number
from kb.render import event_line
from kb.views import _measure_text
from logparse.kinds import EventKind


def test_ms_durations_read_as_seconds_minutes_or_hours_beside_the_reading() -> None:
    assert gloss(999, "ms") == ""  # below a second: ms is what a person writes
    assert gloss(10557, "ms") == " (10.6 s)"
    assert gloss(187258, "ms") == " (3.1 min)"  # Trezo-Ai's aborted turn
    assert gloss(7_200_000, "ms") == " (2.0 h)"
    assert gloss(187.258, "s") == "" and gloss(20338, "B") == "" and gloss(5, None) == ""


def test_a_long_duration_is_never_shown_in_exponent_form() -> None:
    assert number(1234567.0) == "1234567"  # a 20-minute turn, not 1.23457e+06
    assert number(187.258) == "187.258" and number(3.0) == "3"
    assert number(1.5e-7) == f"{1.5e-7:g}"  # a tiny value keeps :g


def test_every_text_form_glosses_the_same_one_reading() -> None:
    m = Measurement(187258.0, "ms", "turn duration")
    assert str(m) == "turn duration: 187258 ms (3.1 min)"
    assert _measure_text({"value": 187258.0, "unit": "ms", "label": "turn duration"}) \
        == "turn duration: 187258 ms (3.1 min)"
    assert _measure_text({"value": 646.0, "unit": "ms", "label": ""}) == "646 ms"
    rows = [{"session_id": "s", "ordinal": 111, "value": 233227.0, "unit": "ms",
             "label": "subagent duration", "direction": -1, "best": False,
             "command": "Code review"}]
    line = _lines(rows, None, 80)[1]
    assert "233227 ms (3.9 min)" in line and "233.227" not in line
    assert all(len(x) <= 80 for x in _lines(rows, None, 80))


def test_a_stat_event_row_shows_its_reading_and_its_json_the_bare_one() -> None:
    # Trezo-Ai L158: the turn's clock, which the events row showed only as "turn duration"
    e = Event(session_id="s", ordinal=77, seq=0, kind=EventKind("stat"), message_id="m",
              text="turn duration",
              measurements=[Measurement(187258.0, "ms", "turn duration")])
    assert event_line(e).plain.split(None, 2)[2] == "turn duration: 187258 ms (3.1 min)"
    assert e.model_dump()["measurements"] == [
        {"value": 187258.0, "unit": "ms", "label": "turn duration"}]
