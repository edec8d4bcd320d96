"""Issue 22 item 5: one test walks every row of :mod:`logparse.measure_kinds`: each
structure gives its measurements with their unit, and noise gives none."""

from __future__ import annotations

import pytest

from logparse.derive import call_measurements
from logparse.measure import measurement_tuples
from logparse.measure_kinds import CALLS, KINDS, CallKind, Kind
from tests.timing import best_cpu


def _check(name: str, got: set[tuple[float, str]], expect: tuple[tuple[float, str], ...],
           absent: tuple[float, ...]) -> None:
    for want in expect:
        assert want in got, (name, want, sorted(got))
    values = {v for v, _ in got}
    for v in absent:
        assert v not in values, (name, v, sorted(got))


@pytest.mark.parametrize("row", KINDS, ids=[r.name for r in KINDS])
def test_every_kind_row(row: Kind) -> None:
    assert row.source and row.kind
    assert row.expect or row.absent, "a row says what it must or must not give"
    assert (row.kind == "noise") == (not row.expect)
    got = {(v, u) for v, u, _ in measurement_tuples(row.text, row.prose)}
    _check(row.name, got, row.expect, row.absent)


@pytest.mark.parametrize("row", CALLS, ids=[r.name for r in CALLS])
def test_every_call_row(row: CallKind) -> None:
    assert row.source and row.kind
    inp = {"command": row.command} if row.tool == "bash" else {"filePath": row.command,
                                                                 "pattern": row.command}
    if row.tool == "write":
        inp["content"] = "x" * 195
    output, error = (None, row.output) if row.failed else (row.output, None)
    got = {(m["value"], m["unit"]) for m in
           call_measurements(row.tool, row.category, inp, output, {}, error) or []}
    _check(row.name, got, row.expect, row.absent)


def test_row_names_are_unique() -> None:
    names = [r.name for r in KINDS] + [r.name for r in CALLS]
    assert len(set(names)) == len(names)


def test_a_long_psql_output_keeps_the_row_count_of_every_query() -> None:
    # pool/civ6.ch__session.jsonl:52: four queries in one call, 6 kB of output; the line
    # rules read a long output's head and tail only, the middle's "(N rows)" are kept
    row = "         5 | teams    |     1 |    1 |      1 |                 1\n"
    head = " player_id | category | games | wins | streak | highest_winstreak \n" \
           "-----------+----------+-------+------+--------+-------------------\n"
    out = (" id |  name \n----+-------\n  2 | Linus\n(8 rows)\n\n" + head + row * 20
           + "(20 rows)\n\n" + head + row * 26 + "(26 rows)\n\n" + head + row * 80
           + "(80 rows)\n")
    assert out.index("(26 rows)") < len(out) - 4000  # in the middle: read apart
    got = call_measurements("bash", "other", {"command": "psql civ6 -c 'SELECT 1'"}, out, {})
    rows = sorted(m["value"] for m in got or [] if m["unit"] == "rows")
    assert rows == [8.0, 20.0, 26.0, 80.0]
    # a result table's cells are data, no readings
    assert not any(m["unit"] in ("games", "wins") for m in got or [])


def _cpu_of_tables(n: int) -> float:
    text = "".join(f"Name      Length\n----      ------\nf{i}.mjs   {4000 + i}\nok\n"
                   for i in range(n))
    best, got = best_cpu(lambda: measurement_tuples(text, False))
    assert (4000.0, "B", "f0.mjs") in got  # the tables are read, not skipped
    return best


def test_many_powershell_length_tables_cost_linear_time() -> None:
    """Each ``Name  Length`` table is read line by line from its header, not by splitting
    the whole rest of the output per table (4x the tables cost 14x: 0.06 s at 1,000
    tables, 0.86 s at 4,000)."""
    small, large = _cpu_of_tables(1000), _cpu_of_tables(4000)
    assert large < 9 * max(small, 0.003), (small, large)
