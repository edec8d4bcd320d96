"""A session row's counts are those of its rows (issue 28 counts the events view's rows
from its tables), and what an ingest reports of a session is what ``session`` says."""

from __future__ import annotations

from pathlib import Path

from kb.ingest import ingest
from kb.store import KbStore


def test_session_counts_are_the_views_counts(realworld: Path, tmp_path: Path) -> None:
    inputs = [realworld / "pool", realworld / "claude-code", realworld / "codex",
              realworld / "opencode"]
    with KbStore(tmp_path / "kb.duckdb") as store:
        report = ingest(store, inputs, graph=False)
        rows = store.conn.execute(
            "SELECT s.session_id, s.message_count, s.event_count, "
            "(SELECT count(*) FROM messages m WHERE m.session_id = s.session_id), "
            "(SELECT count(*) FROM events e WHERE e.session_id = s.session_id) "
            "FROM sessions s ORDER BY 1").fetchall()
        assert len(rows) >= 20
        kinds = {r[0] for r in store.conn.execute(
            "SELECT DISTINCT tool FROM calls WHERE tool IN ('task', 'todowrite')").fetchall()}
        assert kinds == {"task", "todowrite"}  # the events a call adds beyond its two
        for sid, messages, events, n_messages, n_events in rows:
            assert (messages, events) == (n_messages, n_events), sid
        for rep in report.sessions:
            full = store.session(rep.session_id)
            assert (rep.title, rep.messages, rep.events) == (
                full["title"], full["messages"], full["events"])
            assert store.session_summary(rep.session_id) == {
                "title": full["title"], "messages": full["messages"], "events": full["events"]}
