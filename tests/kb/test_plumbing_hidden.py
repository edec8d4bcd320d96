"""Issue 22 item 5: the agent's token counters stay stored with their event, but the
rooms that present measurements (the handoff's series and "best", the timeline's chart,
the MCP answers) leave them out (:mod:`logparse.measure_plumbing`)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

from kb.graph.report import is_plumbing
from kb.live.answers import _event
from kb.records import Measurement
from kb.store import KbStore


def test_token_counters_are_plumbing_to_the_series() -> None:
    assert is_plumbing("subagent tokens", "tokens")
    assert is_plumbing("subagent tool uses", "tool uses")
    assert is_plumbing("context at compaction", "tokens")
    # a read the tool refused for its size in tokens: what the tool saw, not a result
    assert is_plumbing("File content", "tokens")
    assert not is_plumbing("Duration", "ms") and not is_plumbing("built", "s")
    assert not is_plumbing("Output token throughput", "tok/s")


def test_an_mcp_event_answer_shows_no_token_counter() -> None:
    # pool/Rivo__codex-session.jsonl: a turn's stat event carries the turn's clock and the
    # session's running token total
    ev = SimpleNamespace(ordinal=4, kind="stat", text="tokens used", measurements=[
        Measurement(10557.0, "ms", "turn duration"),
        Measurement(19610.0, "tokens", "tokens used (session so far)")])
    # the agent's clock in ms, read as seconds beside it (display only: one reading)
    assert _event(ev)["measurements"] == ["turn duration: 10557 ms (10.6 s)"]
    only = SimpleNamespace(ordinal=5, kind="compaction", text="", measurements=[
        Measurement(104846.0, "tokens", "context at compaction")])
    assert "measurements" not in _event(only)


def test_a_subagents_tokens_are_stored_but_never_the_sessions_quantity(
        realworld: Path, tmp_path: Path) -> None:
    from kb.graph import report
    from kb.graph import store as gs
    from kb.ingest import ingest

    # pool/FundWise: a Task's toolUseResult reports its run time, tool uses and tokens
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [realworld / "pool" / "FundWise__claude-session.jsonl"])
        sid = store.resolve_session(None)
        stored = {(u, lab) for u, lab, _ in gs.measured_quantities(store, [sid])}
        shown = {(u, lab) for u, lab, _ in report.measured_quantities(store, [sid])}
        series = report.throughput(store, [sid])
    assert ("tokens", "subagent tokens") in stored  # events --json still has them
    assert ("tool uses", "subagent tool uses") in stored
    assert not any(u in ("tokens", "tool uses") for u, _ in shown)
    assert series and all(m["unit"] not in ("tokens", "tool uses") for m in series)
