"""Issue 22 item 5: the runner summaries and stated before/after counts of
:data:`logparse.measure_runners.RULES`.  One test walks every row against its line in
``fixtures/measure/runners.txt``; the others say what the rows never take."""

from __future__ import annotations

from pathlib import Path

import pytest

from logparse.measure import measurement_tuples
from logparse.measure_runners import RULES, runner_measurements
from logparse.measure_stated import RULES as STATED_RULES

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "measure" / "runners.txt"


def _fixture_lines() -> dict[str, tuple[str, str]]:
    out = {}
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        name, source, example = line.split("\t", 2)
        out[name] = (source, example.replace("\\n", "\n"))
    return out


@pytest.mark.parametrize("rule", RULES, ids=[r.name for r in RULES])
def test_every_rule_reads_its_example(rule) -> None:  # type: ignore[no-untyped-def]
    fixtures = _fixture_lines()
    assert rule.name in fixtures, f"{rule.name}: no line in {FIXTURE.name}"
    source, example = fixtures[rule.name]
    assert example == rule.example and source == rule.source
    assert rule.scope in ("prose", "output", "both")
    assert any(g in rule.example for g in rule.gate), "the gate shuts out its own example"
    hits = [h for m in rule.pattern.finditer(rule.example) for h in rule.read(m, rule.example)]
    assert rule.expect in {(v, u) for _, v, u, _ in hits}, (rule.name, hits)
    # and the whole engine reports it, on the side the row reads
    prose = rule.scope != "output"
    assert rule.expect in {(v, u) for v, u, _ in measurement_tuples(rule.example, prose)}
    # a real line says where it is; the others name the document or the public report
    assert (":" in source and source.split(":")[0].endswith((".jsonl", ".json"))) or \
        source.startswith(("from the tool's documented output: ", "public "))


def test_names_are_unique_and_apart_from_the_stated_rows() -> None:
    names = [r.name for r in RULES]
    assert len(set(names)) == len(names)
    assert not set(names) & {r.name for r in STATED_RULES}
    assert set(_fixture_lines()) == set(names)


@pytest.mark.parametrize(("text", "prose", "want"), [
    ("OK, but incomplete, skipped, or risky tests!\nTests: 8, Assertions: 9, Skipped: 2.",
     False, {(8.0, "tests"), (9.0, "assertions"), (2.0, "skipped")}),
    ("   Finished `dev` profile [unoptimized + debuginfo] target(s) in 2m 5s", False,
     {(125.0, "s")}),
    ("# tests 4\n# pass 4\n# fail 0\n# duration_ms 8.1", False, {(4.0, "tests"), (8.1, "ms")}),
    ("TOTAL                              1234    123    90%", False, {(90.0, "%")}),
    ("TOTAL   200   20   40   5   88.5%", False, {(88.5, "%")}),
    ("0 errors, 0 warnings, 0 informations ", False, {(0.0, "errors"), (0.0, "warnings")}),
    ("Type errors went from 34 to 0 errors after the fix.", True, {(34.0, "errors"),
                                                                  (0.0, "errors")}),
    ("Warnings: 12 -> 3 warnings", True, {(12.0, "warnings"), (3.0, "warnings")}),
    ("The pass rate rose from 80% to 95%.", True, {(80.0, "%"), (95.0, "%")}),
    ("p95 latency 120ms → 45ms after the index.", True, {(120.0, "ms"), (45.0, "ms")}),
    ("Bundle: 412 → 298 kB gzipped", True, {(412.0, "kB"), (298.0, "kB")}),
    ("- main.js: 1.2 MB → 800 kB", True, {(1.2, "MB"), (800.0, "kB")}),
    ("The production build is 1.2 MB (was 2.4 MB).", True, {(2.4, "MB")}),
    ("There are 5 TypeScript errors left.", True, {(5.0, "errors")}),
    ("3 lint warnings remain.", True, {(3.0, "warnings")}),
    ("12 failing tests left (down from 31)", True, {(31.0, "failed")}),
    ("3 tests still failing after the fix.", True, {(3.0, "failed")}),
    ("Failed to load resource: the server responded with a status of 404 (Not Found)",
     False, {(404.0, "HTTP")}),
])
def test_rows_read_more_than_their_example(text: str, prose: bool,
                                           want: set[tuple[float, str]]) -> None:
    got = {(v, u) for v, u, _ in measurement_tuples(text, prose)}
    assert want <= got, got


@pytest.mark.parametrize(("text", "prose"), [
    # ids, versions, dates, line numbers, ports, counters: no row reads them
    ("# tests 10 are in tests/unit (see issue 42)", False),
    ("Tests: see https://localhost:8080/tests", False),
    ("TOTAL 2025-01-02 12:30", False),
    ("Time: 2025-01-02 12:30:11", False),
    ("Ran all test suites matching /src/i.", False),
    ("line 12 to 40 errors", True),
    ("moved from v1.2 to v1.3 errors page", True),
    ("bumped from 3 to 4 workers on port 3000", True),
    ("version 16 → 18", True),
    ("I found 12 matches, from 3 to 9 files.", True),
    ("tokens went from 12,000 to 9,000", True),
    ("Raised the timeout 30s → 60s.", True),
    ("Set the poll interval to 5s (was 10s).", True),
    ("width: 100% (was 80%)", True),
    ("Bumped the port 3000 → 3001 and node v18 → v20.", True),
    ("2025-01-01 → 2025-02-01", True),
    ("1.5 GB → 3 ms", True),
    ("I re-derived it and reproduced the −42.09% → 72.4% threshold", True),
    ("Retry after 2s → 4s → 8s", True),
    ("Fixed in PR 42 (down from 7 errors)", True),
    ("The test on line 12 failing tests nothing", True),
    ("Handle HTTP error 500 gracefully in the client.", True),
    ("the server responded with a status of 1200", True),
])
def test_rows_never_read_noise(text: str, prose: bool) -> None:
    assert runner_measurements(text, prose) == []


def test_pi_note_only_with_its_full_output_path() -> None:
    # a file that merely quotes the words is no cut output
    assert runner_measurements("[Showing lines 1-20 of 689]", False) == []
    got = runner_measurements(
        "x\n[Showing lines 1-2000 of 2400. Full output: /tmp/pi-bash-1.log]", False)
    assert [(v, u) for _, v, u, _ in got] == [(2400.0, "lines")]


def test_a_cut_pi_listing_reports_its_length_not_the_lines_shown() -> None:
    # pool/civ6.ch__session.jsonl:8: `find web -type f | sort`, cut by pi to its last lines
    from logparse.derive import call_measurements

    out = ("web/src/app.d.ts\nweb/src/app.html\n\n\n[Showing lines 12794-13366 of 13366 "
           "(50.0KB limit). Full output: /tmp/pi-bash-21c61eba751853bb.log]")
    got = call_measurements("bash", "search", {"command": "find web -type f | sort"}, out, {})
    assert got == [{"value": 13366.0, "unit": "lines", "label": "output length"}]
