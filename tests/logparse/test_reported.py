"""What the agents' own fields report as measurements (issue 22): every row of the table
is read from trimmed real lines (``fixtures/reported/``) by the real reader and deriver, and
the counters of the tools' own plumbing are not measurements."""

from __future__ import annotations

from pathlib import Path

import pytest

from logparse.derive import derive_session, to_events
from logparse.measure_plumbing import is_plumbing_reading
from logparse.registry import detect

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "reported"

REPORTED = [
    # (fixture, where it comes from, event kind, tool, value, unit)
    ("claude_code.jsonl", "Read toolUseResult.file.totalLines", "result", "read", 257.0, "lines"),
    ("claude_code.jsonl", "Agent toolUseResult.totalDurationMs", "result", "task", 134003.0, "ms"),
    ("claude_code.jsonl", "Agent toolUseResult.totalToolUseCount", "result", "task", 14.0,
     "tool uses"),
    ("claude_code.jsonl", "Agent toolUseResult.totalTokens", "result", "task", 35378.0, "tokens"),
    ("claude_code.jsonl", "system/turn_duration durationMs", "stat", None, 205307.0, "ms"),
    ("codex.jsonl", "event_msg/task_complete duration_ms", "stat", None, 10557.0, "ms"),
    ("codex.jsonl", "custom_tool_call_output metadata.duration_seconds", "result", "apply_patch",
     0.5, "s"),
]


def _events(name: str) -> list[tuple[str, str | None, float, str]]:
    path = FIXTURES / name
    out = []
    for s in detect(path)().sessions(path, []):
        batch, _ = derive_session("s", str(path), s.messages)
        out += [(str(e.kind), e.tool, m.value, m.unit) for e in to_events("s", batch)
                for m in e.measurements]
    return out


@pytest.mark.parametrize("row", REPORTED, ids=[r[1] for r in REPORTED])
def test_every_reported_field_is_a_measurement(row) -> None:  # type: ignore[no-untyped-def]
    name, _, kind, tool, value, unit = row
    assert (kind, tool, value, unit) in _events(name)


def test_plumbing_counters_are_no_measurements() -> None:
    got = _events("codex.jsonl")
    # "Wall time: 0.0000 seconds" (the exec_command output of the fixture) is no reading;
    # "Original token count: 167" is the output's size, a plumbing reading (tokens: never
    # shown as the work's, logparse.measure_plumbing)
    assert all(is_plumbing_reading(u, None) for _, _, _, u in got if u == "tokens")
    assert not any(v == 0.0 and u == "s" for _, _, v, u in got)
    assert ("result", "bash", 155.0, "B") in got  # the listing's sizes still are


def test_a_wc_listing_is_one_measurement_a_file() -> None:
    from logparse.derive import call_measurements

    # shared Trezo-Ai__codex-session.jsonl:120 (trimmed)
    out = ("     120 /Users/a/New project/programs/cfo_oracle/src/lib.rs\n"
           "     132 /Users/a/New project/programs/cfo_oracle/src/risk.rs\n"
           "    1108 total\n")
    got = call_measurements("bash", "search", {}, out, {})
    assert got is None  # no command: nothing says it is a wc listing
    got = call_measurements("bash", "search", {"command": "wc -l programs/*/src/*.rs"}, out, {})
    assert got is not None
    assert [(m["value"], m["unit"], m["label"]) for m in got] == [
        (120.0, "lines", "lib.rs length"), (132.0, "lines", "risk.rs length"),
        (1108.0, "lines", "total")]
    # past wc, a pipe changed what is printed: no reading
    assert not call_measurements("bash", "search", {"command": "wc -l *.rs | sort -n"},
                                 "sorted:\n" + out, {})


def test_codex_usage_is_one_reading_a_turn() -> None:
    """What the session used, from the last ``token_count`` of each turn (and of a file
    that ends mid-turn): one reading a turn, never one a model call.  Trimmed scout lines
    (fixtures/realworld_trim: three token_count events, one repeated; no task_complete)."""
    path = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim" / \
        "codex_code_mode.jsonl"
    got = []
    for s in detect(path)().sessions(path, []):
        batch, _ = derive_session("s", str(path), s.messages)
        got += [(m.value, m.label) for e in to_events("s", batch) if str(e.kind) == "stat"
                for m in e.measurements if m.unit == "tokens"]
    assert got == [(34947.0, "tokens used (session so far)")]
