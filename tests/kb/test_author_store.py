"""A prompt's author as the knowledge base stores it (logparse.author, migration 049)."""

from __future__ import annotations

from pathlib import Path

from logparse.author import HARNESS, HUMAN, PARENT

ROOT = Path(__file__).resolve().parents[2]
AUTHORS = ROOT / "fixtures" / "authors"


def test_the_store_keeps_each_prompts_author(tmp_path: Path) -> None:
    # ingested for real: the column, the events view and the graph's user prompts
    from kb.graph.store import load_rows
    from kb.ingest import ingest
    from kb.store import KbStore

    sessions = ROOT / "fixtures" / "codex_subagents" / "sessions"
    with KbStore(tmp_path / "kb.duckdb") as store:
        rep = ingest(store, [sessions, AUTHORS / "claude_skill.jsonl"], graph=True)
        assert [str(p) for p in rep.problems] == []
        rows = store.conn.execute(
            "SELECT author, count(*) FROM prose WHERE kind = 'prompt' GROUP BY ALL "
            "ORDER BY ALL").fetchall()
        assert {a for a, _ in rows} == {HARNESS, HUMAN, PARENT}
        child = store.conn.execute(
            "SELECT DISTINCT session_id FROM prose WHERE author = 'parent'").fetchall()
        for (sid,) in child:
            evs = store.events(sid, kinds=["prompt"])
            assert {e.author for e in evs} <= {PARENT, HARNESS}
            # the graph reads no prompt of a sub-agent's as the user's words
            _, prose, _ = load_rows(store, [sid])
            assert not [p for p in prose if p.classification == "prompt"]
