"""Throughput over time charts whatever a session measured most, not only ``tok/s``."""

from __future__ import annotations

from pathlib import Path

from kb import views
from kb.graph import report
from kb.store import KbStore


def test_dominant_quantity_prefers_rates_then_durations_then_the_rest() -> None:
    pick = report.dominant_quantity
    assert pick([]) is None
    assert pick([("files changed", "", 40), ("ms", "built", 3)]) == ("ms", "built")
    assert pick([("ms", "p99 latency", 30), ("req/s", "Requests/sec", 12)]) == (
        "req/s", "Requests/sec")
    assert pick([("ms", "p50", 10), ("ms", "p99", 12)]) == ("ms", "p99")
    assert pick([("kB", "index.js", 2), ("chars", "index.php written", 30)]) == (
        "kB", "index.js")
    # one benchmark block prints many rates as often: the quantity, not its peak or total,
    # and output before input
    block = [("tok/s", "Input token throughput", 295), ("tok/s", "Output token throughput", 295),
             ("tok/s", "Peak output token throughput", 295), ("req/s", "Request throughput", 295),
             ("tok/s", "Total token throughput", 295)]
    assert pick(block) == ("tok/s", "Output token throughput")


def test_the_fixture_charts_output_token_throughput(blackwell_db: Path) -> None:
    with KbStore(blackwell_db, read_only=True) as store:
        sid = store.resolve_session(None)
        series = report.throughput(store, [sid])
        thinned = views.throughput(store, sid)
    assert series and {(m["unit"], m["label"]) for m in series} == {
        ("tok/s", "Output token throughput")}
    assert max(m["value"] for m in series) == 89.5
    assert [(m["ordinal"], m["value"]) for m in thinned] == [
        (m["ordinal"], m["value"]) for m in series]  # few enough points: nothing thinned


def test_quantities_that_rank_alike_come_in_the_order_they_were_read(
        realworld: Path, tmp_path: Path) -> None:
    from kb.graph import store as gs
    from kb.ingest import ingest

    # labelled Valdyum: two sizes read once each in message 36 (openai.yaml and
    # export-session.sh), no better side, the same rank; a GROUP BY left them unordered,
    # so the handoff's "last reading" changed between two runs (and the team's brief
    # disagreed with the local one)
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [realworld / "labelled" / "Valdyum-Labs__codex-session.jsonl"])
        sid = store.resolve_session(None)
        read: list[tuple[str, str]] = []
        for m in gs.measurements(store, [sid]):
            if (m["unit"] or "", m["label"] or "") not in read:
                read.append((m["unit"] or "", m["label"] or ""))
        got = gs.measured_quantities(store, [sid])
        assert [(u, lab) for u, lab, _ in got] == read
        tied = [q for q in got if q[0] == "B"]
        assert len(tied) >= 2 and len({report._quantity_rank(*q) for q in tied}) == 1
        assert report.dominant_quantity(tied) == tied[0][:2]
        # those sizes are a listing's (ux11b): no quantity the session measured, so
        # neither a progress series nor a choice among the ones that are
        assert all(report.is_listing_size(u, lab) for u, lab, _ in tied)
        kept = report.measured_quantities(store, [sid])
        assert not any(report.is_listing_size(u, lab) for u, lab, _ in kept)
        first = report.dominant_quantity(kept)
        series = report.throughput(store, [sid])
        assert {(m["unit"], m["label"]) for m in series} == ({first} if first else set())
