"""The replay room's tables: ``replay_runs`` and ``replay_steps`` (docs/schema.md).

Every SQL statement of :mod:`kb.replay` is here; :mod:`kb.replay.run` builds the rows
and reads them back through these functions.
"""

from __future__ import annotations

from typing import Any

import pyarrow as pa

from kb.store import KbStore


def write_run(store: KbStore, run_id: str, run_tbl: pa.Table, step_tbl: pa.Table | None) -> None:
    """Replace the run's row with ``run_tbl`` and insert or replace ``step_tbl``'s steps,
    in one transaction."""
    with store.transaction():
        store.conn.execute("DELETE FROM replay_runs WHERE run_id = ?", [run_id])
        store.conn.register("logkb_run_tbl", run_tbl)
        try:
            store.conn.execute("INSERT INTO replay_runs BY NAME SELECT * FROM logkb_run_tbl")
        finally:
            store.conn.unregister("logkb_run_tbl")
        if step_tbl is not None:
            store.conn.register("logkb_step_tbl", step_tbl)
            try:
                store.conn.execute("INSERT OR REPLACE INTO replay_steps BY NAME "
                                   "SELECT * FROM logkb_step_tbl")
            finally:
                store.conn.unregister("logkb_step_tbl")


def run_rows(store: KbStore, session_id: str | None = None) -> list[dict[str, Any]]:
    """Stored runs (of ``session_id``, else all), newest first."""
    where = "WHERE session_id = ?" if session_id else ""
    return store.rows(
        f"SELECT * FROM replay_runs {where} ORDER BY started_at DESC, run_id DESC",
        [session_id] if session_id else [])


def step_rows(store: KbStore, session_id: str, ordinal: int) -> list[dict[str, Any]]:
    """The step at ``ordinal`` in every stored run with its run's times, oldest first."""
    return store.rows(
        "SELECT s.*, r.started_at AS run_started_at, r.finished_at AS run_finished_at "
        "FROM replay_steps s JOIN replay_runs r USING (run_id) "
        "WHERE s.session_id = ? AND s.ordinal = ? ORDER BY r.started_at, s.run_id, s.seq",
        [session_id, ordinal])


def executed_steps(store: KbStore, session_id: str) -> list[tuple[Any, ...]]:
    """Every executed step of the session, newest run first: ``(ordinal, seq, call_id,
    category, verdict, explanation, revisit, run_id, finished_at, exit_code,
    recorded_exit_code, measurements)``."""
    return store.conn.execute(
        "SELECT s.ordinal, s.seq, s.call_id, s.category, s.verdict, s.explanation, s.revisit, "
        "s.run_id, r.finished_at, s.exit_code, s.recorded_exit_code, s.measurements "
        "FROM replay_steps s JOIN replay_runs r USING (run_id) "
        "WHERE s.session_id = ? AND s.verdict <> 'skipped' "
        "ORDER BY r.started_at DESC, s.run_id DESC", [session_id]).fetchall()
