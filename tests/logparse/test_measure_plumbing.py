"""Issue 22 item 5: every row of :mod:`logparse.measure_plumbing` is read from its real
record by its reader, and named plumbing; a result of the work never is."""

from __future__ import annotations

import orjson
import pytest

from logparse.claude_code import reported, retry_readings
from logparse.codex import parse_output, rate_limit_used
from logparse.derive import _context_size
from logparse.measure_plumbing import PLUMBING, PlumbingRow, is_plumbing_reading


def _read(row: PlumbingRow) -> list[tuple[float, str, str]]:
    """What the row's reader makes of its record, ``(value, unit, label)``."""
    rec = orjson.loads(row.record)
    if row.agent == "claude-code" and rec.get("subtype") == "api_error":  # a retry
        return [(m["value"], m["unit"], m["label"]) for m in retry_readings(rec)]
    if row.agent == "claude-code":  # a Task's toolUseResult
        return [(m["value"], m["unit"], m["label"]) for m in reported("task", rec)]
    if row.agent == "opencode" and rec.get("summary"):  # a compaction's summary message
        return [(m["value"], m["unit"], m["label"])
                for m in _context_size(rec).get("measurements", [])]
    if row.agent == "opencode":  # a reply cut at its output limit (finish: length)
        assert rec["finish"] == "length"
        return [(float(rec["tokens"]["output"]), "tokens", "reply cut at the output limit")]
    if row.agent == "codex" and rec.get("type") == "function_call_output":  # a call's output
        meta = parse_output("bash", rec["output"])["metadata"]
        return [(m["value"], m["unit"], m["label"]) for m in meta.get("reported", [])]
    if row.unit == "%":  # codex: the account's rate-limit windows of a token_count event
        return [(v, "%", lab) for v, lab in rate_limit_used(rec["payload"]["rate_limits"])]
    # codex: the running total of a token_count event
    total = rec["payload"]["info"]["total_token_usage"]["total_tokens"]
    return [(float(total), "tokens", "tokens used (session so far)")]


@pytest.mark.parametrize("row", PLUMBING, ids=[r.label for r in PLUMBING])
def test_every_plumbing_row(row: PlumbingRow) -> None:
    assert row.source and row.agent in ("codex", "claude-code", "opencode")
    assert (row.value, row.unit, row.label) in _read(row)
    assert is_plumbing_reading(row.unit, row.label)


def test_the_subagent_run_time_is_no_plumbing() -> None:
    # the same Task result's run time is a duration of the work, kept
    rec = orjson.loads(next(r for r in PLUMBING if r.label == "subagent tokens").record)
    kept = [m for m in reported("task", rec)
            if not is_plumbing_reading(m["unit"], m["label"])]
    assert [(m["value"], m["unit"]) for m in kept] == [(134003.0, "ms")]


@pytest.mark.parametrize("unit,label", [
    ("tok/s", "Output token throughput"),  # a rate of tokens is a result
    ("passed", "Tests"), ("s", "Compiled successfully"), ("HTTP", "HTTP status"),
    ("errors", "compiler errors"), ("kB", "index-C71m4zo1.js"),
])
def test_results_are_no_plumbing(unit: str, label: str) -> None:
    assert not is_plumbing_reading(unit, label)


# pool/privacy-x402__codex-session.jsonl:10 (a token_count, credits trimmed): a paid plan's
# 5-hour primary window beside its weekly secondary; the primary's used_percent was 0.0
# there (not reported), raised to 4.0 here so that both windows are read
_TWO_WINDOWS = {"limit_id": "codex", "limit_name": None,
                "primary": {"used_percent": 4.0, "window_minutes": 300,
                            "resets_at": 1771074728},
                "secondary": {"used_percent": 32.0, "window_minutes": 10080,
                              "resets_at": 1771442189}, "plan_type": None}


def test_rate_limit_windows_are_told_apart() -> None:
    got = rate_limit_used(_TWO_WINDOWS)
    assert got == [[4.0, "rate limit used (5-hour window)"],
                   [32.0, "rate limit used (7-day window)"]]
    assert all(is_plumbing_reading("%", lab) for _, lab in got)
    # pool/scout__codex-session.jsonl:61: a free plan's one 30-day window
    scout = {"primary": {"used_percent": 32.0, "window_minutes": 43200}, "secondary": None}
    assert rate_limit_used(scout) == [[32.0, "rate limit used (30-day window)"]]
    # no window length written: the slots tell them apart
    bare = {"primary": {"used_percent": 1.0}, "secondary": {"used_percent": 2.0}}
    assert [lab for _, lab in rate_limit_used(bare)] == [
        "rate limit used (primary window)", "rate limit used (secondary window)"]
    same = {"primary": {"used_percent": 1.0, "window_minutes": 300},
            "secondary": {"used_percent": 2.0, "window_minutes": 300}}
    assert len({lab for _, lab in rate_limit_used(same)}) == 2
    assert not is_plumbing_reading("%", "coverage (lines)")


def test_a_listing_s_names_are_judged_together() -> None:
    """labelled/pfm-categorization message 23 (``ls -la …/src/``) and stunning-memory's
    message 15 (``ls -la ~/.local/share/opencode/``): every file size a listing shows is
    the tree's, the extensionless ``Dockerfile`` and SQLite's ``opencode.db-shm`` too; a
    bare word read alone (vite's ``gzip``, curl's ``Size``) is a result."""
    from logparse.measure_plumbing import harness_of_call, is_listing_size

    assert is_listing_size("B", "opencode.db-shm") and is_listing_size("B", "opencode.db-wal")
    assert not is_listing_size("B", "Content-Length") and not is_listing_size("kB", "gzip")
    ls = [("appsettings.json", "B"), ("Dockerfile", "B"), ("Program.cs", "B"),
          ("paths listed", "paths")]
    assert harness_of_call(ls) == [True, True, True, True]
    assert harness_of_call([("gzip", "kB"), ("Size", "B")]) == [False, False]
    # a build's output file beside its gzip size: no listing (nothing listed), gzip kept
    assert harness_of_call([("gzip", "kB"), ("index-C71m4zo1.js", "kB")])[0] is False
