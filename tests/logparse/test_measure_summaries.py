"""Issue 22 item 5: every row of :mod:`logparse.measure_summaries` gives its readings through
the measurement rules, and nothing of a ``time`` line is misread."""

from __future__ import annotations

import pytest

from logparse.measure import measurement_tuples
from logparse.measure_summaries import SUMMARY_ROWS, SummaryRow, summary_readings


@pytest.mark.parametrize("row", SUMMARY_ROWS, ids=[r.name for r in SUMMARY_ROWS])
def test_every_time_row(row: SummaryRow) -> None:
    assert row.source and row.gate in row.example
    assert {(v, u, lab) for _, _, v, u, lab in summary_readings(row.example)} >= set(row.expect)
    got = measurement_tuples(row.example, False)
    for want in row.expect:
        assert want in got, (row.name, want, got)
    # the CPU share, the page faults, the budget flag: never readings of their own
    assert not any(u in ("%", "") for _, u, _ in got), got


def test_zsh_time_never_takes_the_system_seconds_for_the_users() -> None:
    # the line rules alone read "0.30s" as "... user" and no total (before this table)
    got = measurement_tuples("./bin 1000000000  4.07s user 0.00s system 99% cpu 4.071 total")
    assert sorted(got) == [(0.0, "s", "sys"), (4.07, "s", "user"), (4.071, "s", "total")]


def test_a_command_named_time_is_no_summary() -> None:
    assert summary_readings("time.sleep(2) # real user sys") == []
    assert summary_readings("Total time: 12s user-facing") == []
