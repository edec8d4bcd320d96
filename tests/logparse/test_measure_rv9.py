"""Review of round 9's measurement rules (rv9): the faults found, each held by a test."""

from __future__ import annotations

from logparse.measure import measurements


def _read(text: str, prose: bool) -> set[tuple[float, str]]:
    return {(m.value, m.unit) for m in measurements(text, prose)}


def test_a_before_after_row_of_a_results_table_keeps_its_readings() -> None:
    """A design row (an animation's settings) was told by the label rule's words, and
    that rule also names a value edited from one number to another (``120 → 85``): a
    results table's before/after row, the way agents report a fix, gave no reading."""
    text = ("| Metric | Before | After |\n|---|---|---|\n"
            "| p99 latency | 120 → 85 ms | better |\n| cold start | 2.5 s | 1.9 s |")
    got = _read(text, True)
    assert {(85.0, "ms"), (1.9, "s")} <= got, got


def test_a_time_summary_needs_its_own_line_start_not_a_clock() -> None:
    """BSD ``time``'s ``4.95 real`` read a timestamp's seconds (``12:00:01.5 real``)."""
    got = _read("2024-05-01 12:00:01.5 real 3 user 4 sys", False)
    assert (1.5, "s") not in got, got
