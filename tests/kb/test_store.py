"""The DuckDB store: migrations, idempotent and incremental ingest, locking."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path

import orjson
import pytest

from kb import migrations
from kb.ingest import ingest
from kb.store import TEMPLATE_ENV, KbError, KbLocked, KbMissing, KbStore

PARENT = "ses_dc9fbdec3ffeiLy3tOV563zFr5"
CHILD = "ses_dc9fbd402ffeP8aYsH636IxT7s"

EXPECTED_TABLES = {"_logkb_migrations", "sessions", "messages", "calls", "prose",
                   "other_events", "problems", "sources", "graph_nodes", "graph_edges",
                   "graph_builds", "graph_state", "graph_versions", "annotations",
                   "kb_settings", "graph_pending", "secrets", "secret_scans",
                   "resume_points"}


def dump(store: KbStore) -> dict[str, list[tuple[object, ...]]]:
    """Every derived row (minus ingest timestamps), for comparing two states."""
    out = {}
    for table, order in (("messages", "session_id, ordinal"),
                         ("calls", "session_id, ordinal, seq"),
                         ("prose", "session_id, ordinal, seq"),
                         ("other_events", "session_id, ordinal, seq"),
                         ("problems", "path, line, record")):
        out[table] = store.conn.execute(f"SELECT * FROM {table} ORDER BY {order}").fetchall()
    out["sessions"] = store.conn.execute(
        "SELECT * EXCLUDE (ingested_at, source_path, source_form) FROM sessions "
        "ORDER BY session_id").fetchall()
    return out


def test_migrate_blank_database(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(TEMPLATE_ENV)  # the production path: every migration on a blank file
    store = KbStore(tmp_path / "kb.duckdb")
    tables = {r[0] for r in store.conn.execute(
        "SELECT table_name FROM information_schema.tables WHERE table_type = 'BASE TABLE'"
    ).fetchall()}
    # every migration's tables (replay's included once it lands) and nothing else
    assert EXPECTED_TABLES <= tables
    assert all(t in EXPECTED_TABLES or t.startswith("replay_") for t in tables)
    cols = [r[0] for r in store.conn.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'events' "
        "ORDER BY ordinal_position").fetchall()]
    assert cols[:6] == ["session_id", "ordinal", "seq", "sub", "kind", "message_id"]
    assert store.conn.execute("SELECT version, name FROM _logkb_migrations").fetchall() == [
        (m.version, m.name) for m in migrations.MIGRATIONS]
    store.close()
    # opening again applies nothing
    store = KbStore(tmp_path / "kb.duckdb")
    assert migrations.pending(store.conn) == []
    store.close()


def _schema(store: KbStore) -> list[tuple[object, ...]]:
    """Every table, view, column, constraint, index, sequence and macro, and the migrations
    applied (without their time)."""
    c = store.conn
    return [
        *c.execute("SELECT table_name, table_type FROM information_schema.tables "
                   "ORDER BY ALL").fetchall(),
        *c.execute("SELECT table_name, column_name, ordinal_position, data_type, "
                   "column_default, is_nullable FROM information_schema.columns "
                   "ORDER BY ALL").fetchall(),
        *c.execute("SELECT table_name, constraint_type, constraint_column_names::VARCHAR "
                   "FROM duckdb_constraints() ORDER BY ALL").fetchall(),
        *c.execute("SELECT table_name, index_name, sql FROM duckdb_indexes() "
                   "ORDER BY ALL").fetchall(),
        *c.execute("SELECT view_name, sql FROM duckdb_views() WHERE NOT internal "
                   "ORDER BY ALL").fetchall(),
        *c.execute("SELECT sequence_name, start_value, last_value FROM duckdb_sequences() "
                   "ORDER BY ALL").fetchall(),
        *c.execute("SELECT function_name, macro_definition FROM duckdb_functions() "
                   "WHERE NOT internal ORDER BY ALL").fetchall(),
        *c.execute("SELECT version, name, checksum FROM _logkb_migrations "
                   "ORDER BY ALL").fetchall(),
    ]


def test_a_store_from_the_template_is_a_freshly_migrated_one(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, new_db_template: Path) -> None:
    """The tests' new stores start as copies of one migrated store ($LOGKB_NEW_DB_TEMPLATE):
    a copy (a file, or the schema copied into ``:memory:``) has the schema, migrations and
    (no) rows of a blank one migrated here, a file copy is the owner's alone, and a missing
    template is an error, not a silently blank store."""
    import os
    import stat

    import duckdb

    copy = KbStore(tmp_path / "copy" / "kb.duckdb")
    applied = "SELECT version, applied_at FROM _logkb_migrations ORDER BY version"
    with duckdb.connect(str(new_db_template), read_only=True) as template:
        assert copy.conn.execute(applied).fetchall() == template.execute(applied).fetchall()
    assert stat.S_IMODE(os.stat(copy.path).st_mode) == 0o600
    assert sorted(p.name for p in (tmp_path / "copy").iterdir()) == ["kb.duckdb"]
    memory_copy = KbStore(":memory:")  # the template's schema copied in
    with monkeypatch.context() as mp:
        mp.delenv(TEMPLATE_ENV)
        fresh = KbStore(tmp_path / "fresh.duckdb")
        memory_fresh = KbStore(":memory:")
    with copy, fresh, memory_copy, memory_fresh:
        assert _schema(copy) == _schema(fresh)
        assert _schema(memory_copy) == _schema(memory_fresh)
        assert len(_schema(fresh)) > 200
        for (table,) in fresh.conn.execute("SELECT table_name FROM information_schema.tables "
                                           "WHERE table_type = 'BASE TABLE' AND table_name "
                                           "!= '_logkb_migrations'").fetchall():
            for store in (copy, memory_copy):
                assert store.conn.execute(f'SELECT count(*) FROM "{table}"').fetchone() == (0,)
        assert memory_copy.conn.execute(applied).fetchall() == copy.conn.execute(
            applied).fetchall()
    monkeypatch.setenv(TEMPLATE_ENV, str(tmp_path / "missing.duckdb"))
    for path in (tmp_path / "other.duckdb", ":memory:"):
        with pytest.raises(KbError, match="LOGKB_NEW_DB_TEMPLATE"):
            KbStore(path)
    KbStore(tmp_path / "fresh.duckdb").close()  # an existing file never looks at it


def test_a_file_made_meanwhile_is_kept_not_replaced_by_the_template(tmp_path: Path) -> None:
    """Two processes making the same new store: the copy is linked into place only while
    the file is missing; the one that lost the race leaves the other's file alone."""
    from kb.store import _copy_template

    racer = tmp_path / "race" / "kb.duckdb"
    racer.parent.mkdir()
    racer.write_bytes(b"the other process's file")
    _copy_template(racer)
    assert racer.read_bytes() == b"the other process's file"
    assert [p.name for p in racer.parent.iterdir()] == ["kb.duckdb"]  # no copy left behind


def test_raw_text_migration_keeps_the_stored_text(tmp_path: Path) -> None:
    """020 turns messages.raw from JSON into VARCHAR: a knowledge base written before
    keeps every byte of it, and the JSON functions (message_usage) read it as before."""
    import duckdb

    db = tmp_path / "kb.duckdb"
    conn = duckdb.connect(str(db))
    conn.execute("CREATE TABLE _logkb_migrations (version INTEGER PRIMARY KEY, "
                 "name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL, checksum VARCHAR NOT NULL)")
    for m in migrations.MIGRATIONS:
        if m.version < 20:
            conn.execute(m.sql)
            conn.execute("INSERT INTO _logkb_migrations VALUES (?, ?, now(), ?)",
                         [m.version, m.name, m.checksum])
    raw = ('{"info": {"id": "m1", "role": "assistant",  "tokens": {"reasoning": 7, '
           '"cache": {"read": 3}}}, "parts": [{"text": "\\u00e9 é"}]}')
    conn.execute("INSERT INTO messages (session_id, message_id, ordinal, role, inferred, "
                 "digest, raw) VALUES ('s', 'm1', 1, 'assistant', false, 1, ?)", [raw])
    assert conn.execute("SELECT typeof(raw) FROM messages").fetchone() == ("JSON",)
    conn.close()
    with KbStore(db) as store:
        assert store.conn.execute(
            "SELECT typeof(raw), raw = ?, raw->>'$.info.id', json_extract(raw, '$.parts[0].text')"
            " FROM messages", [raw]).fetchone() == ("VARCHAR", True, "m1", '"é é"')
        assert store.conn.execute("SELECT tokens_reasoning, tokens_cache_read FROM "
                                  "message_usage").fetchone() == (7, 3)


def test_read_only_open_of_missing_db(tmp_path: Path) -> None:
    with pytest.raises(KbMissing):
        KbStore(tmp_path / "nope.duckdb", read_only=True)


def test_ingest_twice_changes_nothing(selftest: Path, realworld: Path, tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    inputs = [selftest / "opencode.db", realworld / "opencode"]
    with KbStore(db) as store:
        first = ingest(store, inputs)
        assert first.problems == [] and first.errors == []
        before = dump(store)
        again = ingest(store, inputs)
        assert again.sessions == [] and len(again.unchanged) == 5
        forced = ingest(store, inputs, force=True)
        assert forced.new_messages == 0 and len(forced.sessions) == 6
        assert dump(store) == before


def test_the_store_publishes_each_committed_session(selftest: Path, tmp_path: Path) -> None:
    """kb.hooks: subscribers hear of every session an ingest wrote, once it is committed
    (the search index is one of them), and nothing of an ingest that changed nothing."""
    heard: list[tuple[str, int]] = []

    def replaced(store: KbStore, session_ids: Sequence[str]) -> None:
        # committed: another connection to the file sees each session
        for session_id in session_ids:
            with store.conn.cursor() as other:
                n = other.execute("SELECT count(*) FROM messages WHERE session_id = ?",
                                  [session_id]).fetchone()
            heard.append((session_id, n[0] if n else 0))

    with KbStore(tmp_path / "kb.duckdb") as store:
        store.hooks.on_sessions_replaced(replaced)
        report = ingest(store, [selftest / "export.json"])
        assert [sid for sid, _ in heard] == [s.session_id for s in report.sessions]
        assert all(n > 0 for _, n in heard)
        heard.clear()
        assert ingest(store, [selftest / "export.json"]).sessions == [] and heard == []


def test_grown_session_adds_only_new_messages(selftest: Path, tmp_path: Path) -> None:
    doc = json.loads((selftest / "export.json").read_text())
    lines = [orjson.dumps(m) for m in doc["messages"]]
    f = tmp_path / "session.jsonl"
    f.write_bytes(b"\n".join(lines[:6]) + b"\n")
    with KbStore(tmp_path / "a.duckdb") as store:
        r1 = ingest(store, [f])
        assert r1.sessions[0].messages == 6
        f.write_bytes(b"\n".join(lines) + b"\n")
        r2 = ingest(store, [f])
        assert r2.sessions[0].new_messages == 4 and r2.sessions[0].messages == 10
        grown = dump(store)
    with KbStore(tmp_path / "b.duckdb") as fresh:
        ingest(fresh, [f])
        assert dump(fresh) == grown


def test_changed_message_is_rewritten(selftest: Path, tmp_path: Path) -> None:
    doc = json.loads((selftest / "export.json").read_text())
    f = tmp_path / "session.jsonl"
    f.write_bytes(b"\n".join(orjson.dumps(m) for m in doc["messages"]) + b"\n")
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [f])
        text = next(p for p in doc["messages"][-1]["parts"] if p["type"] == "text")
        text["text"] = "Decision: go with flashinfer after all."
        f.write_bytes(b"\n".join(orjson.dumps(m) for m in doc["messages"]) + b"\n")
        r = ingest(store, [f])
        # the changed message is stored again in place: updated, not new
        assert (r.sessions[0].new_messages, r.sessions[0].updated_messages) == (0, 1)
        assert r.sessions[0].unchanged_messages == 9
        rows = store.conn.execute("SELECT text FROM prose WHERE ordinal = 10").fetchall()
        assert rows == [("Decision: go with flashinfer after all.",)]


def test_out_of_order_input_is_renumbered(selftest: Path, tmp_path: Path) -> None:
    doc = json.loads((selftest / "export.json").read_text())
    lines = [orjson.dumps(m) for m in doc["messages"]]
    lines[2], lines[5] = lines[5], lines[2]
    f = tmp_path / "shuffled.jsonl"
    f.write_bytes(b"\n".join(lines) + b"\n")
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [f])
        got = store.conn.execute(
            "SELECT message_id FROM messages ORDER BY ordinal").fetchall()
        assert [r[0] for r in got] == [m["info"]["id"] for m in doc["messages"]]
        cmd = store.conn.execute(
            "SELECT ordinal FROM calls WHERE command LIKE '%import deep_ep%'").fetchone()
        assert cmd == (3,)


def test_run_stream_never_overwrites_a_complete_session(selftest: Path, tmp_path: Path) -> None:
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [selftest / "export.json"])
        before = dump(store)
        r = ingest(store, [selftest / "run.jsonl"])
        assert r.sessions == [] and r.problems == []
        assert dump(store)["messages"] == before["messages"]


def test_complete_source_replaces_a_run_stream_session(selftest: Path, tmp_path: Path) -> None:
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [selftest / "run.jsonl"])
        assert store.session(PARENT)["complete"] is False
        ingest(store, [selftest / "export.json"])
        s = store.session(PARENT)
        assert s["complete"] is True and s["messages"] == 10
        prompts = store.events(PARENT, kinds=["prompt"])
        assert len(prompts) == 2  # the real prompts replaced the inferred places


def test_subagent_linked_to_spawning_call(selftest: Path, tmp_path: Path) -> None:
    with KbStore(tmp_path / "kb.duckdb") as store:
        # children exported apart carry parentID; the call says which message spawned them
        ingest(store, [selftest / f"export-{CHILD}.json", selftest / "export.json"])
        child = store.session(CHILD)
        assert child["parent_id"] == PARENT and child["spawned_at"] == 4


def test_lock_is_waited_for_then_reported(tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    KbStore(db).close()
    holder = subprocess.Popen([sys.executable, "-c", textwrap.dedent(f"""
        import duckdb, sys, time
        c = duckdb.connect({str(db)!r})
        print("held", flush=True)
        time.sleep(30)
    """)], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        with pytest.raises(KbLocked, match="in use"):
            KbStore(db, lock_timeout=0.5)
    finally:
        holder.kill()
        holder.wait()
    KbStore(db, lock_timeout=5).close()


def test_annotations_and_replay_steps_follow_their_message(selftest: Path,
                                                           tmp_path: Path) -> None:
    """A copy lacking a message is ingested first and annotated; the whole session read
    later moves the messages after the gap one ordinal on: what was written about a
    message moves with it."""
    from kb.graph import store as gs

    doc = json.loads((selftest / "export.json").read_text())
    gap = dict(doc, messages=doc["messages"][:1] + doc["messages"][2:])
    (tmp_path / "gap.json").write_text(json.dumps(gap))
    (tmp_path / "whole.json").write_text(json.dumps(doc))
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [tmp_path / "gap.json"])
        sid = doc["info"]["id"]
        (mid, call_id) = store.conn.execute(
            "SELECT message_id, call_id FROM calls WHERE session_id = ? "
            "AND command LIKE '%import deep_ep%'", [sid]).fetchone()
        (before,) = store.conn.execute(
            "SELECT ordinal FROM messages WHERE message_id = ?", [mid]).fetchone()
        gs.annotate(store, sid, before, "note", "never really ran")
        store.conn.execute(
            "INSERT INTO replay_steps (run_id, session_id, ordinal, seq, call_id, tool, "
            "category, action, reason, verdict, revisit, timed_out) VALUES "
            "('r1', ?, ?, 0, ?, 'bash', 'import', 'skip', 'test', 'skipped', false, false)",
            [sid, before, call_id])
        ingest(store, [tmp_path / "whole.json"])
        (after,) = store.conn.execute(
            "SELECT ordinal FROM messages WHERE message_id = ?", [mid]).fetchone()
        assert after == before + 1
        assert store.conn.execute(
            "SELECT ordinal FROM annotations WHERE value = 'never really ran'"
        ).fetchall() == [(after,)]
        assert store.conn.execute(
            "SELECT ordinal FROM replay_steps WHERE run_id = 'r1'").fetchall() == [(after,)]
