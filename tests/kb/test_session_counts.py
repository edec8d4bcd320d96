"""A session row's counts are those of its rows (issue 28 counts the events view's rows
from its tables), and what an ingest reports of a session is what ``session`` says."""

from __future__ import annotations

from pathlib import Path

from kb.ingest import ingest
from kb.store import KbStore


def test_session_counts_are_the_views_counts(realworld: Path, open_pool: Path,
                                             tmp_path: Path) -> None:
    inputs = [open_pool, realworld / "claude-code", realworld / "codex",
              realworld / "opencode"]
    with KbStore(tmp_path / "kb.duckdb") as store:
        report = ingest(store, inputs, graph=False)
        rows = store.conn.execute(
            "SELECT s.session_id, s.message_count, s.event_count, "
            "(SELECT count(*) FROM messages m WHERE m.session_id = s.session_id), "
            "(SELECT count(*) FROM events e WHERE e.session_id = s.session_id) "
            "FROM sessions s ORDER BY 1").fetchall()
        assert len(rows) >= 15  # the pool but its held-out files, and three folders
        kinds = {r[0] for r in store.conn.execute(
            "SELECT DISTINCT tool FROM calls WHERE tool IN ('task', 'todowrite')").fetchall()}
        assert kinds == {"task", "todowrite"}  # the events a call adds beyond its two
        for sid, messages, events, n_messages, n_events in rows:
            assert (messages, events) == (n_messages, n_events), sid
        for rep in report.sessions:
            full = store.session(rep.session_id)
            assert (rep.title, rep.messages, rep.events) == (
                full["title"], full["messages"], full["events"])
            summary = store.session_summary(rep.session_id)  # the title as stored
            assert store.redactor.value(summary) == {
                "title": full["title"], "messages": full["messages"], "events": full["events"]}


def test_reported_titles_hide_the_secrets_they_hold(tmp_path: Path) -> None:
    """The titles an ingest reports are read as stored and hidden at its end, with one
    load of the redactor: a secret in a title (a first prompt that leaks one) never shows."""
    from tests.hostile import secret_corpus as corpus

    pieces = corpus.pieces()
    files = corpus.write_all(tmp_path / "src")
    with KbStore(tmp_path / "kb.duckdb") as store:
        report = ingest(store, files, graph=False)
        stored = [store.session_summary(r.session_id)["title"] or "" for r in report.sessions]
    assert any(p in t for t in stored for p in pieces)  # a title does hold one
    shown = [r.title or "" for r in report.sessions]
    assert shown and not any(p in t for t in shown for p in pieces)
