"""``KbStore``: the DuckDB knowledge base.  Every read and write goes through it.

Opening applies pending migrations (read-write) or checks that none is pending
(read-only).  DuckDB lets one process hold a file read-write and then no other
process may open it at all, so every command holds the file only as long as it
needs it, and :class:`KbStore` waits (``lock_timeout``) for a busy file
instead of failing at once.

Writes are column-wise: derived rows become Arrow tables and are inserted in
bulk (row-by-row inserts are ~100x slower in DuckDB's Python bindings).

The store knows nothing of what is derived from it (graph, search index, replay
history): it publishes what changed through :attr:`KbStore.hooks` (:mod:`kb.hooks`),
and redacts with a pure :class:`~kb.redact.Redactor` built from its own ``secrets``
table (:func:`load_redactor`).
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import threading
import time
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import duckdb
import orjson
import pyarrow as pa
import pyarrow.compute as pc

from kb import migrations
from kb.arrow import TABLES, ArrowBatch, to_arrow_batch
from kb.errors import KbAmbiguous, KbError, KbLocked, KbMissing, KbNotFound
from kb.hooks import StoreHooks
from kb.paths import default_db, user_dir
from kb.records import Event, Measurement, hop, todo
from kb.redact import Redactor
from logparse.kinds import EventKind
from logparse.schema import EVENT, names
from logparse.secrets import RULESET

if TYPE_CHECKING:  # the read path never loads the deriver or pydantic
    from logparse.derive import Batch
    from logparse.models import Problem, SessionInfo

__all__ = ["KbError", "KbLocked", "KbMissing", "KbNotFound", "KbStore", "StoredSession"]


EVENT_TABLES = ("calls", "prose", "other_events")

EVENT_FIELDS = names(EVENT)
"""The ``events`` view's columns the read path selects (:data:`logparse.schema.EVENT`)."""
_JSON_FIELDS = ("input", "hops", "todos", "raw")
_TEXT_FIELDS = ", ".join(
    f'"{f}"::VARCHAR' for f in ("command", "input", "remote_command", "hops", "workdir",
                                "output", "error_signatures", "measurements", "title", "text",
                                "todos", "raw", "reason"))
"""Every text an event carries (the ones a secret can be in)."""

SECRET_FIELDS: dict[str, tuple[str, str]] = {
    "calls.command": ("calls", "command"),
    # the JSON text of every input: todo lists, file contents, subagent prompts, and the
    # description a bash call carries besides its command
    "calls.input": ("calls", "input::VARCHAR"),
    "calls.output": ("calls", "output"),
    "calls.error": ("calls", "error"),
    "calls.title": ("calls", "title"),
    "prose.text": ("prose", "text"),
    "other_events.text": ("other_events", "text"),
    "other_events.data": ("other_events", "data::VARCHAR"),
    # a session's title (safe14): Claude Code's `summary` lines, opencode's titles hold
    # text no message does; a finding of it has ordinal 0 and no message id
    "sessions.title": ("(SELECT session_id, 0 AS ordinal, 0 AS seq, '' AS message_id, "
                       "title FROM sessions)", "title"),
}
"""``field`` of a finding (``secrets`` table) → (table, SQL expression of the text its
offsets index)."""


@dataclass(frozen=True)
class StoredSession:
    """What the store knows of a session before an ingest touches it."""

    session_id: str
    complete: bool
    source_form: str
    message_count: int


_EVENT_ORDER = "ordinal, seq, sub, coalesce(source, '') = 'choice', text"
"""Transcript order of events.  A ``choice`` decision shares its part, and so its place,
with the prose it was read from: it comes after that prose, so the order is the same in
every store (a team mirror filled in another order showed them swapped)."""


class KbStore:
    """The knowledge base in one DuckDB file (or ``:memory:``).

    Every text its read methods hand out is redacted (:mod:`kb.redact`) unless
    ``reveal_secrets``; the stored text is never changed."""

    reveal_secrets: bool = False
    """Hand out secrets as stored (``--show-secrets``); off by default."""
    _redactor: Redactor | None = None

    def __init__(self, path: str | Path | None = None, *, read_only: bool = False,
                 lock_timeout: float | None = None, reveal_secrets: bool = False) -> None:
        self.path = str(path) if path is not None else str(default_db())
        self.read_only = read_only
        self.hooks: StoreHooks[KbStore] = StoreHooks()
        """Who follows what changes here (the graph, the search index): :mod:`kb.hooks`."""
        self.reveal_secrets = reveal_secrets
        if lock_timeout is None:
            lock_timeout = float(os.environ.get("LOGKB_LOCK_TIMEOUT", "15"))
        new_file = False
        if self.path != ":memory:":
            p = Path(self.path)
            if read_only and not p.exists():
                raise KbMissing(f"no knowledge base at {self.path}")
            new_dir = not p.parent.exists()
            p.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            if new_dir or p.parent == user_dir():
                # logkb's own directory (or one it just made): the owner's alone.  A folder
                # the user named ($LOGKB_DB=/tmp/kb.duckdb) is theirs: /tmp stays 1777.
                _private(p.parent, 0o700)
            new_file = not p.exists()
            if new_file and not read_only:
                _copy_template(p)
        self.conn = self._connect(lock_timeout)
        if self.path == ":memory:" and os.environ.get(TEMPLATE_ENV):
            _copy_template_into(self.conn)
        if self.path != ":memory:" and (new_file or not read_only):
            # it holds every secret of every transcript (and so does its write-ahead log):
            # the owner's alone, also when an older logkb made it readable to others
            for f in (Path(self.path), Path(self.path + ".wal")):
                _private(f, 0o600)
        if read_only:
            if migrations.pending(self.conn):
                # an older file: migrate it once, then carry on read-only
                self.conn.close()
                rw = duckdb.connect(self.path)
                try:
                    migrations.migrate(rw)
                finally:
                    rw.close()
                self.conn = self._connect(lock_timeout)
        else:
            migrations.migrate(self.conn)

    def _connect(self, timeout: float) -> duckdb.DuckDBPyConnection:
        deadline = time.monotonic() + timeout
        delay = 0.05
        while True:
            try:
                return duckdb.connect(self.path, read_only=self.read_only)
            except duckdb.IOException as e:
                if "lock" not in str(e).lower():
                    raise KbError(f"{self.path}: {e}") from None
                if time.monotonic() >= deadline:
                    holder = re.search(r"PID (\d+)", str(e))
                    who = f" (process {holder.group(1)})" if holder else ""
                    raise KbLocked(f"{self.path} is in use by another logkb{who}; "
                                   f"waited {timeout:g}s") from None
                time.sleep(delay)
                delay = min(delay * 2, 0.5)

    def close(self) -> None:
        self.conn.close()
        if self.path != ":memory:" and not self.read_only:
            _private(Path(self.path + ".wal"), 0o600)

    def __enter__(self) -> KbStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def redactor(self) -> Redactor:
        """What hides the secrets of this knowledge base in what it hands out."""
        if self._redactor is None or self._redactor.reveal != self.reveal_secrets:
            self._redactor = load_redactor(self.conn, reveal=self.reveal_secrets)
        return self._redactor

    def forget_secrets(self, stale: Sequence[str] = ()) -> None:
        """Findings changed: the redactor is loaded again on next use, and the subscribers
        hear of it (``stale``: sessions whose stored text gained findings after something
        was derived from it; call it inside the transaction that stores them)."""
        self._redactor = None
        self.hooks.secrets_forgotten(self, stale)

    def sessions_replaced(self, session_ids: Sequence[str]) -> None:
        """Sessions' messages were written or replaced and committed: the subscribers
        bring what they derived from them up to date."""
        self.hooks.sessions_replaced(self, session_ids)

    def cursor(self) -> duckdb.DuckDBPyConnection:
        """A cursor for use in another thread (DuckDB connections are not thread-safe)."""
        return self.conn.cursor()

    @contextmanager
    def transaction(self) -> Iterator[None]:
        self.begin()
        try:
            yield
        except BaseException:
            self.rollback()
            raise
        self.commit()

    def begin(self) -> None:
        """Open a transaction that spans calls (ingest commits every few MB); else use
        :meth:`transaction`."""
        self.conn.execute("BEGIN TRANSACTION")

    def commit(self) -> None:
        self.conn.execute("COMMIT")

    def rollback(self) -> None:
        self.conn.execute("ROLLBACK")

    def set_memory_limit(self, limit: str) -> None:
        """DuckDB's cache limit for this connection (``128MB``)."""
        self.conn.execute("SET memory_limit = ?", [limit])

    def checkpoint_threshold(self) -> str:
        """The write-ahead log's size at which a commit checkpoints (DuckDB's
        ``checkpoint_threshold``, ``16.0 MiB`` by default)."""
        return str(self.conn.execute(
            "SELECT current_setting('checkpoint_threshold')").fetchone()[0])  # type: ignore[index]

    def set_checkpoint_threshold(self, size: str) -> None:
        """Checkpoint when the write-ahead log reaches ``size`` (``1GB``)."""
        self.conn.execute("SET checkpoint_threshold = ?", [size])

    # ------------------------------------------------------------------ writes
    def stored_session(self, session_id: str) -> StoredSession | None:
        row = self.conn.execute(
            "SELECT complete, source_form, message_count FROM sessions WHERE session_id = ?",
            [session_id]).fetchone()
        if row is None:
            return None
        return StoredSession(session_id, bool(row[0]), row[1], int(row[2]))

    def stored_info(self, session_id: str) -> SessionInfo | None:
        """A session's row as stored (what :meth:`upsert_session` wrote), or ``None``."""
        row = self.conn.execute(
            "SELECT title, slug, parent_id, directory, project_id, version, time_created, "
            "time_updated, source_form, source_path, complete, info::VARCHAR, agent "
            "FROM sessions WHERE session_id = ?", [session_id]).fetchone()
        if row is None:
            return None
        from logparse.models import SessionInfo  # (pydantic: only on the write path)

        return SessionInfo(session_id=session_id, title=row[0], slug=row[1],
                           parent_id=row[2], directory=row[3], project_id=row[4],
                           version=row[5], time_created=row[6], time_updated=row[7],
                           source_kind=row[8], source_path=row[9], complete=bool(row[10]),
                           info=orjson.loads(row[11]) if row[11] is not None else None,
                           agent=row[12] or "opencode")

    def last_message_time(self, session_id: str) -> int | None:
        """When the session's last stored message was written (epoch ms; ``None``: no
        message, or none with its time)."""
        row = self.conn.execute(
            "SELECT max(time_created) FROM messages WHERE session_id = ?",
            [session_id]).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def holds_session(self, session_id: str) -> bool:
        """Whether anything of a session is stored: its row, or messages (an interrupted
        ingest may leave messages without their session row)."""
        row = self.conn.execute(
            "SELECT EXISTS (SELECT 1 FROM sessions WHERE session_id = $s) "
            "OR EXISTS (SELECT 1 FROM messages WHERE session_id = $s)",
            {"s": session_id}).fetchone()
        return row is not None and row[0] is True

    def session_aliased(self, alias: str, agent: str) -> str | None:
        """The stored session of ``agent`` whose info lists ``alias`` in its ``aliases``
        (the id a copy that does not name the session gets: see
        :attr:`logparse.source.SourceSession.named`); the first by id if several do."""
        row = self.conn.execute(
            "SELECT session_id FROM sessions WHERE agent = ? AND list_contains("
            "TRY_CAST(json_extract(info, '$.aliases') AS VARCHAR[]), ?) "
            "ORDER BY session_id LIMIT 1", [agent, alias]).fetchone()
        return None if row is None else str(row[0])

    def session_aliases(self, session_id: str) -> list[str] | None:
        """The ``aliases`` a stored session's info lists (``None``: it lists none, or the
        session has no row)."""
        row = self.conn.execute(
            "SELECT TRY_CAST(json_extract(info, '$.aliases') AS VARCHAR[]) FROM sessions "
            "WHERE session_id = ?", [session_id]).fetchone()
        return None if row is None or row[0] is None else [str(a) for a in row[0]]

    def known_messages(self, session_id: str) -> dict[str, tuple[int, int]]:
        """``message_id → (digest, ordinal)`` of a stored session."""
        return {mid: (dg, ordl) for mid, dg, ordl in self.conn.execute(
            "SELECT message_id, digest, ordinal FROM messages WHERE session_id = ?",
            [session_id]).fetchall()}

    def stored_raw(self, session_id: str, message_id: str) -> str | None:
        """The raw JSON a stored message was read from (``None``: not stored)."""
        row = self.conn.execute(
            "SELECT raw::VARCHAR FROM messages WHERE session_id = ? AND message_id = ?",
            [session_id, message_id]).fetchone()
        return None if row is None else str(row[0])

    def stored_raws(self, session_id: str, after: int = 0) -> Iterator[tuple[str, str]]:
        """``(message_id, raw JSON)`` of each stored message of a session after ordinal
        ``after``, streamed (a few hundred rows in memory at a time); read them all before
        the next statement on this store."""
        cur = self.conn.execute(
            "SELECT message_id, raw::VARCHAR FROM messages WHERE session_id = ? AND "
            "ordinal > ?", [session_id, after])
        while rows := cur.fetchmany(256):
            for mid, raw in rows:
                yield str(mid), str(raw)

    def response_ids(self, session_id: str) -> dict[str, str]:
        """A Claude Code session's API response ids (``message.id`` of its assistant
        records) → the stored message holding each (the first by ordinal)."""
        out: dict[str, str] = {}
        for mid, ids in self.conn.execute(
                "SELECT message_id, json_extract_string(raw, '$.records[*].message.id') "
                "FROM messages WHERE session_id = ? AND role = 'assistant' "
                "AND json_valid(raw) ORDER BY ordinal", [session_id]).fetchall():
            for i in ids or ():
                if i is not None:
                    out.setdefault(str(i), str(mid))
        return out

    def call_ids(self, session_id: str) -> tuple[dict[str, str], dict[str, str]]:
        """A Claude Code session's tool calls: ``(call id → the stored message holding the
        call, call id → the stored message holding its result)`` (the first by ordinal)."""
        calls: dict[str, str] = {}
        results: dict[str, str] = {}
        for mid, made, answered in self.conn.execute(
                "SELECT message_id, "
                "json_extract_string(raw, '$.records[*].message.content[*].id'), "
                "json_extract_string(raw, '$.records[*].message.content[*].tool_use_id') "
                "FROM messages WHERE session_id = ? AND json_valid(raw) ORDER BY ordinal",
                [session_id]).fetchall():
            for ids, out in ((made, calls), (answered, results)):
                for i in ids or ():
                    if i is not None:
                        out.setdefault(str(i), str(mid))
        return calls, results

    def last_records(self, session_id: str, messages: int = 8) -> list[tuple[int, object]]:
        """``(source line, record)`` of every record the session's last ``messages`` stored
        messages (by ordinal) hold, by line: a line-based reader's raw JSON, ``{"lines":
        [...], "records": [...]}``; a message of another form holds none."""
        out: list[tuple[int, object]] = []
        for (raw,) in self.conn.execute(
                "SELECT raw::VARCHAR FROM messages WHERE session_id = ? "
                "ORDER BY ordinal DESC LIMIT ?", [session_id, messages]).fetchall():
            try:
                doc = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            got = doc.get("lines") if isinstance(doc, dict) else None
            recs = doc.get("records") if isinstance(doc, dict) else None
            if isinstance(got, list) and isinstance(recs, list) and len(got) == len(recs):
                out.extend((n, r) for n, r in zip(got, recs)
                           if isinstance(n, int) and not isinstance(n, bool))
        out.sort(key=lambda nr: nr[0])
        return out

    def records_after(self, session_id: str, ordinal: int, lines: list[int]
                      ) -> dict[int, object]:
        """The records stored messages after ``ordinal`` hold at these source ``lines``
        (a line-based reader's raw JSON: ``{"lines": [...], "records": [...]}``)."""
        out: dict[int, object] = {}
        for (raw,) in self.conn.execute(
                "SELECT raw::VARCHAR FROM messages WHERE session_id = ? AND ordinal > ? "
                "AND list_has_any(TRY_CAST(json_extract(raw, '$.lines') AS INTEGER[]), "
                "?::INTEGER[])", [session_id, ordinal, lines]).fetchall():
            doc = orjson.loads(raw)
            got, recs = doc.get("lines"), doc.get("records")
            if isinstance(got, list) and isinstance(recs, list) and len(got) == len(recs):
                out.update((n, r) for n, r in zip(got, recs) if n in lines)
        return out

    def write_batch(self, session_id: str, batch: Batch | ArrowBatch,
                    replace: Iterable[str] = ()) -> list[tuple[str, str, str, str]]:
        """Insert a batch of derived rows; ``replace`` lists message ids to delete first.

        Returns the values that did not fit their column and were stored as NULL
        (``(message_id, table, column, value)``); the message's raw JSON keeps them."""
        ids = list(replace)
        if ids:
            self.delete_messages(session_id, ids)
        arrow = batch if isinstance(batch, ArrowBatch) else to_arrow_batch(batch)
        for name, tbl in arrow.tables.items():  # noqa: B007 (tbl is scanned by name below)
            self.conn.execute(
                f"INSERT INTO {TABLES[name]} BY NAME SELECT ? AS session_id, * FROM tbl",
                [session_id])
        return list(arrow.lost)

    def delete_messages(self, session_id: str, message_ids: Sequence[str]) -> None:
        ids = pa.table({"message_id": pa.array(list(message_ids), type=pa.string())})  # noqa
        for table in ("messages", *EVENT_TABLES, "secrets"):
            self.conn.execute(
                f"DELETE FROM {table} WHERE session_id = ? AND message_id IN "
                "(SELECT message_id FROM ids)", [session_id])

    def delete_inferred(self, session_id: str) -> int:
        """Delete the messages whose place logkb inferred (a run stream's user messages:
        placeholders, not records of the agent); returns how many there were."""
        ids = [r[0] for r in self.conn.execute(
            "SELECT message_id FROM messages WHERE session_id = ? AND inferred",
            [session_id]).fetchall()]
        if ids:
            self.delete_messages(session_id, ids)
        return len(ids)

    def delete_session(self, session_id: str) -> None:
        for table in ("messages", *EVENT_TABLES, "secrets", "secret_scans", "sessions"):
            self.conn.execute(f"DELETE FROM {table} WHERE session_id = ?", [session_id])

    def renumber(self, session_id: str) -> None:
        """Make ordinals chronological and contiguous again (after out-of-order input)."""
        self.conn.execute(
            "CREATE OR REPLACE TEMP TABLE _renum AS SELECT message_id, "
            "row_number() OVER (ORDER BY time_created NULLS FIRST, message_id) AS ord "
            "FROM messages WHERE session_id = ?", [session_id])
        for table in ("messages", *EVENT_TABLES, "secrets"):
            self.conn.execute(
                f"UPDATE {table} SET ordinal = r.ord FROM _renum r WHERE "
                f"{table}.session_id = ? AND {table}.message_id = r.message_id "
                f"AND {table}.ordinal <> r.ord", [session_id])
        self.conn.execute("DROP TABLE _renum")

    def realign(self, session_id: str) -> None:
        """What people wrote about a message (annotations) and the replay steps of its
        commands follow the message to the ordinal it has now (a later ingest may have
        renumbered the session or placed the message elsewhere)."""
        self.conn.execute(
            "UPDATE annotations SET ordinal = m.ordinal FROM messages m WHERE "
            "annotations.session_id = ? AND m.session_id = annotations.session_id "
            "AND m.message_id = annotations.message_id AND annotations.ordinal <> m.ordinal",
            [session_id])
        self.conn.execute(  # a replayed step names its recorded call
            "UPDATE replay_steps SET ordinal = c.ordinal FROM calls c WHERE "
            "replay_steps.session_id = ? AND c.session_id = replay_steps.session_id "
            "AND c.call_id = replay_steps.call_id AND replay_steps.ordinal <> c.ordinal",
            [session_id])

    def upsert_session(self, info: SessionInfo, derive_version: int | None = None) -> None:
        """Write a session's row (``derive_version``: of the rules that derived its events)."""
        # the events view's rows counted from its tables (a command and a result per call,
        # a todo or subagent event for todowrite and task): a third of the CPU of planning
        # the view's six branches, in the statement that writes the row (issue 28)
        self.conn.execute("DELETE FROM sessions WHERE session_id = ?", [info.session_id])
        self.conn.execute(
            "INSERT INTO sessions (session_id, parent_id, title, slug, directory, project_id, "
            "version, time_created, time_updated, source_form, source_path, complete, "
            "message_count, event_count, ingested_at, info, agent, derive_version) "
            "SELECT $s, $parent, $title, $slug, $directory, $project, $version, $created, "
            "$updated, $form, $path, $complete, "
            "(SELECT count(*) FROM messages WHERE session_id = $s), "
            "(SELECT 2 * count(*) + count(*) FILTER (WHERE tool IN ('todowrite', 'task')) "
            "FROM calls WHERE session_id = $s) "
            "+ (SELECT count(*) FROM prose WHERE session_id = $s) "
            "+ (SELECT count(*) FROM other_events WHERE session_id = $s), "
            "now(), $info, $agent, $derived",
            {"s": info.session_id, "parent": info.parent_id, "title": info.title,
             "slug": info.slug, "directory": info.directory, "project": info.project_id,
             "version": info.version, "created": info.time_created,
             "updated": info.time_updated, "form": info.source_kind,
             "path": info.source_path, "complete": info.complete,
             "info": orjson.dumps(info.info).decode() if info.info is not None else None,
             "agent": info.agent, "derived": derive_version})

    def write_new_sessions(self, tables: dict[str, pa.Table], infos: Sequence[SessionInfo],
                           derive_version: int) -> None:
        """Insert the rows of many sessions not stored before (each table with its
        ``session_id`` column), then their session rows, and mark their graphs owed:
        a fixed number of statements whatever the number of sessions.  Call it in a
        transaction (a session's rows never exist without its row)."""
        for name, tbl in tables.items():  # noqa: B007 (tbl is scanned by name below)
            self.conn.execute(f"INSERT INTO {TABLES[name]} BY NAME SELECT * FROM tbl")
        # the counts, from the rows just inserted (nothing else of these sessions is
        # stored): the events view's rows as upsert_session counts them, a command and a
        # result per call, one more for a todo list or a sub-agent.  Counting them from
        # the stored tables scanned every table again for each group.
        messages = _per_session(tables.get("messages"))
        events = _per_session(tables.get("calls"), 2)
        calls = tables.get("calls")
        if calls is not None:
            extra = calls.filter(pc.is_in(calls.column("tool"),
                                          value_set=pa.array(["todowrite", "task"])))
            events.update({k: events.get(k, 0) + n for k, n in _per_session(extra).items()})
        for name in ("prose", "other"):
            events.update({k: events.get(k, 0) + n
                           for k, n in _per_session(tables.get(name)).items()})
        info = pa.table({  # noqa: F841
            "session_id": pa.array([i.session_id for i in infos], type=pa.string()),
            "parent_id": pa.array([i.parent_id for i in infos], type=pa.string()),
            "title": pa.array([i.title for i in infos], type=pa.string()),
            "slug": pa.array([i.slug for i in infos], type=pa.string()),
            "directory": pa.array([i.directory for i in infos], type=pa.string()),
            "project_id": pa.array([i.project_id for i in infos], type=pa.string()),
            "version": pa.array([i.version for i in infos], type=pa.string()),
            "time_created": pa.array([i.time_created for i in infos], type=pa.int64()),
            "time_updated": pa.array([i.time_updated for i in infos], type=pa.int64()),
            "source_form": pa.array([i.source_kind for i in infos], type=pa.string()),
            "source_path": pa.array([i.source_path for i in infos], type=pa.string()),
            "complete": pa.array([i.complete for i in infos], type=pa.bool_()),
            "info": pa.array([orjson.dumps(i.info).decode() if i.info is not None else None
                              for i in infos], type=pa.string()),
            "agent": pa.array([i.agent for i in infos], type=pa.string()),
            "pos": pa.array(range(len(infos)), type=pa.int64()),
            "message_count": pa.array([messages.get(i.session_id, 0) for i in infos],
                                      type=pa.int64()),
            "event_count": pa.array([events.get(i.session_id, 0) for i in infos],
                                    type=pa.int64()),
        })
        # ingested_at keeps the order the sessions were read, a microsecond apart, as
        # when each was written in its own transaction: "the latest ingested" (what
        # commands default to) is the last one read, not a tie broken by time_updated
        self.conn.execute(
            "INSERT INTO sessions (session_id, parent_id, title, slug, directory, project_id, "
            "version, time_created, time_updated, source_form, source_path, complete, "
            "message_count, event_count, ingested_at, info, agent, derive_version) "
            "SELECT i.session_id, i.parent_id, i.title, i.slug, i.directory, i.project_id, "
            "i.version, i.time_created, i.time_updated, i.source_form, i.source_path, "
            "i.complete, i.message_count, i.event_count, "
            "CAST(now() AS TIMESTAMP) + to_microseconds(i.pos), i.info, i.agent, ? "
            "FROM info i", [derive_version])
        self.conn.execute("INSERT INTO graph_pending SELECT session_id, now() FROM info")

    def session_counts(self, session_ids: Sequence[str]) -> dict[str, tuple[str | None, int, int]]:
        """``session → (title, messages, events)`` as stored, for many sessions at once.
        The title is NOT redacted (as :meth:`session_summary`): loading the redactor
        reads every finding back, and an ingest calls this after each group it writes
        (its CPU grew with the square of the sessions); it hides its titles at its end."""
        ids = pa.table({"sid": pa.array(list(session_ids), type=pa.string())})  # noqa: F841
        got = self.conn.execute(
            "SELECT session_id, title, message_count, event_count FROM sessions "
            "WHERE session_id IN (SELECT sid FROM ids)").fetchall()
        return {sid: (title, int(n), int(e)) for sid, title, n, e in got}

    def record_sources(self, rows: Sequence[tuple[str, str, str, Sequence[str]]],
                       problem_paths: Sequence[str], problems: Sequence[Problem]) -> None:
        """Record many inputs as read (``(path, form, fingerprint, sessions)``), and
        ``problems`` as the problems of ``problem_paths``, replacing the last read's
        (:meth:`record_source` and :meth:`replace_problems` of many inputs at once)."""
        if problem_paths:
            paths = pa.table({"path": pa.array(list(problem_paths), type=pa.string())})  # noqa
            self.conn.execute("DELETE FROM problems WHERE path IN (SELECT path FROM paths)")
        if problems:
            self._insert_problems(problems)
        if rows:
            tbl = pa.table({  # noqa: F841
                "path": pa.array([r[0] for r in rows], type=pa.string()),
                "form": pa.array([r[1] for r in rows], type=pa.string()),
                "fingerprint": pa.array([r[2] for r in rows], type=pa.string()),
                "sessions": pa.array([list(r[3]) for r in rows], type=pa.list_(pa.string()))})
            self.conn.execute("DELETE FROM sources WHERE path IN (SELECT path FROM tbl)")
            self.conn.execute("INSERT INTO sources SELECT path, form, fingerprint, sessions, "
                              "now() FROM tbl")

    def stored_ids(self) -> tuple[set[str], set[str]]:
        """The ids of the sessions stored, and of the sessions that have messages stored
        (an interrupted ingest may leave messages without their session row)."""
        return ({r[0] for r in self.conn.execute("SELECT session_id FROM sessions").fetchall()},
                {r[0] for r in self.conn.execute(
                    "SELECT DISTINCT session_id FROM messages").fetchall()})

    def link_children(self) -> None:
        """Link sub-agent sessions and the calls that spawned them, whichever was stored
        first (a reader names the link from the child's side, the call's, or both):

        * a session whose parent is not stored stands alone (a top-level session, its
          own scope) until its parent arrives, then it is that parent's again (the
          parent its source named stays in its info, ``parentID``);
        * a session whose source named no parent takes the session whose call names it;
        * a call that names no child takes the sub-agent session of its own session
          whose ``childKey`` (info) is the call's (input): how Codex's MultiAgentV2 names
          a sub-agent, by its path, in both rollouts.

        Run after every ingest; each statement only touches rows not linked yet."""
        self.conn.execute(
            "UPDATE sessions SET parent_id = NULL WHERE parent_id IS NOT NULL "
            "AND parent_id NOT IN (SELECT session_id FROM sessions)")
        self.conn.execute(
            "UPDATE sessions SET parent_id = k.parent FROM ("
            "  SELECT session_id AS sid, json_extract_string(info, '$.parentID') AS parent "
            "  FROM sessions WHERE parent_id IS NULL AND info IS NOT NULL) k "
            "WHERE sessions.session_id = k.sid AND k.parent <> k.sid "
            "AND k.parent IN (SELECT session_id FROM sessions)")
        self.conn.execute(
            "UPDATE sessions SET parent_id = c.session_id FROM calls c "
            "WHERE sessions.parent_id IS NULL AND c.child_session_id = sessions.session_id "
            "AND c.session_id <> sessions.session_id")
        if self.conn.execute(  # (rare: not a scan of every call after every ingest)
                "SELECT 1 FROM sessions WHERE parent_id IS NOT NULL "
                "AND json_extract_string(info, '$.childKey') IS NOT NULL LIMIT 1").fetchone():
            self._link_keyed_spawns()

    def _link_keyed_spawns(self) -> None:
        self.conn.execute(
            "UPDATE calls SET child_session_id = k.sid FROM ("
            "  SELECT any_value(session_id) AS sid, parent_id AS parent, "
            "         json_extract_string(info, '$.childKey') AS key FROM sessions "
            "  WHERE parent_id IS NOT NULL "
            "    AND json_extract_string(info, '$.childKey') IS NOT NULL "
            "  GROUP BY ALL HAVING count(*) = 1) k "  # one child of that key, or none
            "WHERE calls.session_id = k.parent AND calls.child_session_id IS NULL "
            "AND json_extract_string(calls.input, '$.childKey') = k.key")

    def replace_problems(self, path: str, problems: Sequence[Problem],
                         keep_messages: Sequence[str] = ()) -> None:
        """The problems of an input, replacing the last read's; problems about messages
        in ``keep_messages`` (unchanged, not derived again) are kept."""
        if keep_messages:
            keep = pa.table({"m": pa.array(list(keep_messages), type=pa.string())})  # noqa
            self.conn.execute("DELETE FROM problems WHERE path = ? AND (message_id IS NULL "
                              "OR message_id NOT IN (SELECT m FROM keep))", [path])
        else:
            self.conn.execute("DELETE FROM problems WHERE path = ?", [path])
        if problems:
            self._insert_problems(problems)

    def _insert_problems(self, problems: Sequence[Problem]) -> None:
        tbl = pa.table({  # noqa: F841
            "path": [p.path for p in problems], "line": pa.array(
                [p.line for p in problems], type=pa.int32()),
            "record": [p.record for p in problems], "reason": [p.reason for p in problems],
            "raw": [p.raw for p in problems],
            "message_id": pa.array([p.message_id for p in problems], type=pa.string())})
        self.conn.execute("INSERT INTO problems SELECT * FROM tbl")

    def mark_graph_pending(self, session_id: str) -> None:
        """The session's graph is owed (cleared by the rebuild of its scope)."""
        self.conn.execute("INSERT INTO graph_pending VALUES (?, now())", [session_id])

    def graph_pending(self) -> list[str]:
        """Sessions whose graph is owed and that still exist."""
        return [r[0] for r in self.conn.execute(
            "SELECT DISTINCT p.session_id FROM graph_pending p JOIN sessions s "
            "USING (session_id) ORDER BY p.session_id").fetchall()]

    def derived_by(self, session_id: str) -> int | None:
        """The version of the rules that derived a stored session (None: before versions
        were kept, or no such session)."""
        row = self.conn.execute("SELECT derive_version FROM sessions WHERE session_id = ?",
                                [session_id]).fetchone()
        return row[0] if row else None

    def stale_sources(self, version: int) -> list[tuple[str, list[str]]]:
        """``(source path, [session])`` of sessions derived by rules older than
        ``version``, by source."""
        rows = self.conn.execute(
            "SELECT source_path, list(session_id ORDER BY session_id) FROM sessions "
            "WHERE coalesce(derive_version, 1) < ? AND source_path IS NOT NULL "
            "GROUP BY source_path ORDER BY source_path", [version]).fetchall()
        return [(r[0], list(r[1])) for r in rows]

    def sources(self) -> dict[str, tuple[str, str]]:
        """``path → (form, fingerprint)`` of every input ingested (read once per ingest:
        the stat pass compares files against it without a query each)."""
        return {p: (f, fp) for p, f, fp in self.conn.execute(
            "SELECT path, form, fingerprint FROM sources").fetchall()}

    _PATH_COLUMNS = (("sources", "path"), ("resume_points", "path"), ("problems", "path"),
                     ("sessions", "source_path"))
    """Where an input's path is stored: the key its next ingest finds it by."""

    def relative_sources(self) -> list[str]:
        """Input paths stored relative (logkb before 0.13 kept a path as it was typed:
        another working directory could not find it again)."""
        union = " UNION ".join(f"SELECT {c} AS p FROM {t} WHERE {c} NOT LIKE '/%'"
                               for t, c in self._PATH_COLUMNS)
        return sorted(r[0] for r in self.conn.execute(union).fetchall() if r[0])

    def move_sources(self, moves: dict[str, str]) -> None:
        """Store the inputs at relative paths ``moves`` names by their absolute paths:
        the sources, resume points, problems and sessions read from each.  Where the
        absolute path has a row of its own already (the file was ingested both ways),
        the relative row goes."""
        if not moves:
            return
        tbl = pa.table({"old": pa.array(list(moves), type=pa.string()),  # noqa: F841
                        "new": pa.array(list(moves.values()), type=pa.string())})
        with self.transaction():
            for table, col in self._PATH_COLUMNS:
                if table in ("sources", "resume_points", "problems"):
                    self.conn.execute(
                        f"DELETE FROM {table} WHERE {col} IN (SELECT old FROM tbl WHERE new IN "
                        f"(SELECT {col} FROM {table}))")
                self.conn.execute(f"UPDATE {table} SET {col} = tbl.new FROM tbl "
                                  f"WHERE {table}.{col} = tbl.old")

    def source_fingerprint(self, path: str) -> str | None:
        row = self.conn.execute("SELECT fingerprint FROM sources WHERE path = ?",
                                [path]).fetchone()
        return row[0] if row else None

    def record_source(self, path: str, form: str, fingerprint: str,
                      sessions: Sequence[str]) -> None:
        self.conn.execute("DELETE FROM sources WHERE path = ?", [path])
        self.conn.execute("INSERT INTO sources VALUES (?, ?, ?, ?, now())",
                          [path, form, fingerprint, list(sessions)])

    # ------------------------------------------------------------ resume points
    _RESUME_COLS = ("session_id, form, reader, derive_version, dev, ino, byte_offset, line, "
                    "first_line, first_offset, head_hash, window_hash, reader_state, prefix_ids, "
                    "end_problems, ordinal, last_key_time, last_key_id, first_time, "
                    "last_time, prev_had_tool, out_of_order, first_prompt, proposal")

    def resume_paths(self) -> list[str]:
        """The inputs that have a resume point."""
        return [r[0] for r in self.conn.execute("SELECT path FROM resume_points").fetchall()]

    def resume_point(self, path: str) -> dict[str, Any] | None:
        """Where the next ingest of ``path`` may continue reading (see migration 044)."""
        cur = self.conn.execute(f"SELECT {self._RESUME_COLS} FROM resume_points "
                                "WHERE path = ?", [path])
        row = cur.fetchone()
        if row is None:
            return None
        return dict(zip([d[0] for d in cur.description], row))

    def save_resume_point(self, path: str, point: dict[str, Any] | None) -> None:
        """Replace the resume point of ``path`` (``None``: forget it)."""
        self.conn.execute("DELETE FROM resume_points WHERE path = ?", [path])
        if point is None:
            return
        cols = [c.strip() for c in self._RESUME_COLS.split(",")]
        self.conn.execute(
            f"INSERT INTO resume_points (path, {self._RESUME_COLS}) VALUES "
            f"(?, {', '.join('?' for _ in cols)})", [path, *(point[c] for c in cols)])

    def save_resume_points(self, points: Sequence[tuple[str, dict[str, Any] | None]]) -> None:
        """:meth:`save_resume_point` of many inputs, in the caller's transaction (a group
        of small inputs commits once: each point alone was two commits)."""
        if not points:
            return
        paths = pa.table({"path": pa.array([p for p, _ in points], type=pa.string())})  # noqa
        self.conn.execute("DELETE FROM resume_points WHERE path IN (SELECT path FROM paths)")
        rows = [(p, pt) for p, pt in points if pt is not None]
        if rows:
            cols = [c.strip() for c in self._RESUME_COLS.split(",")]
            self.conn.executemany(
                f"INSERT INTO resume_points (path, {self._RESUME_COLS}) VALUES "
                f"(?, {', '.join('?' for _ in cols)})",
                [[p, *(pt[c] for c in cols)] for p, pt in rows])

    def forget_resume_points(self, session_id: str, path: str, ordinal: int) -> None:
        """Forget the resume points other inputs keep for ``session_id`` that trust the
        stored messages up to an ordinal at or after ``ordinal``: an ingest of ``path``
        replaced (or renumbered) messages there, and a resumed reading of the other input
        would leave them as this one wrote them, not as a whole reading of it would."""
        self.conn.execute("DELETE FROM resume_points WHERE session_id = ? AND path <> ? "
                          "AND ordinal >= ?", [session_id, path, ordinal])

    def message_at(self, session_id: str, ordinal: int) -> str | None:
        row = self.conn.execute("SELECT message_id FROM messages WHERE session_id = ? AND "
                                "ordinal = ?", [session_id, ordinal]).fetchone()
        return None if row is None else str(row[0])

    def known_messages_after(self, session_id: str, ordinal: int,
                             ids: Sequence[str]) -> dict[str, tuple[int, int]]:
        """``message_id → (digest, ordinal)`` of the stored messages after ``ordinal``, and
        of those named ``ids`` wherever they are (a resumed ingest's tail)."""
        tbl = pa.table({"m": pa.array(list(ids), type=pa.string())})  # noqa: F841
        return {mid: (dg, ordl) for mid, dg, ordl in self.conn.execute(
            "SELECT message_id, digest, ordinal FROM messages WHERE session_id = ? AND "
            "(ordinal > ? OR message_id IN (SELECT m FROM tbl))",
            [session_id, ordinal]).fetchall()}

    def replace_problems_after(self, path: str, line: int, end: Sequence[tuple[int | None, str]],
                               derived: Sequence[str], problems: Sequence[Problem]) -> None:
        """A resumed ingest's problems: those of lines from ``line`` on, those the last
        reading reported because the file ended (``end``: ``(line, reason)``) and those
        of the messages ``derived`` again are replaced; the rest of the input's stay."""
        ends = pa.table({"l": pa.array([e[0] for e in end], type=pa.int32()),  # noqa: F841
                         "r": pa.array([e[1] for e in end], type=pa.string())})
        again = pa.table({"m": pa.array(list(derived), type=pa.string())})  # noqa: F841
        self.conn.execute(
            "DELETE FROM problems WHERE path = $p AND ("
            "(message_id IS NULL AND (line IS NULL OR line >= $l OR EXISTS ("
            "  SELECT 1 FROM ends WHERE ends.r = problems.reason AND "
            "  ends.l IS NOT DISTINCT FROM problems.line))) "
            "OR message_id IN (SELECT m FROM again))", {"p": path, "l": line})
        if problems:
            self._insert_problems(problems)

    def input_problems(self, path: str) -> list[Problem]:
        """The problems stored for an input, in line order."""
        from logparse.models import Problem

        return [Problem(path=p, line=ln, record=rec, reason=why, raw=raw, message_id=mid)
                for p, ln, rec, why, raw, mid in self.conn.execute(
                    "SELECT path, line, record, reason, raw, message_id FROM problems "
                    "WHERE path = ? ORDER BY line NULLS LAST, reason", [path]).fetchall()]

    # ------------------------------------------------------------------ reads
    def rows(self, sql: str, params: Any = None) -> list[dict[str, Any]]:
        """The rows of a query as dicts keyed by column name, redacted."""
        cur = self.conn.execute(sql, params) if params is not None else self.conn.execute(sql)
        names = [d[0] for d in cur.description]
        rows = [dict(zip(names, r)) for r in cur.fetchall()]
        return self.redactor.value(rows)  # after fetching: loading it runs queries

    _SESSIONS_SQL = """
        WITH m AS (SELECT session_id, max(time_created) AS last_activity
                     FROM messages GROUP BY session_id),
             c AS (SELECT session_id, count(*) AS commands FROM calls GROUP BY session_id),
             sp AS (SELECT child_session_id, min(ordinal) AS spawned_at FROM calls
                     WHERE child_session_id IS NOT NULL GROUP BY child_session_id)
        SELECT s.session_id, s.parent_id, s.agent, s.title, s.slug, s.directory, s.version,
               s.time_created, s.time_updated, s.source_form, s.source_path, s.complete,
               s.message_count AS messages, s.event_count AS events, s.ingested_at,
               coalesce(c.commands, 0) AS commands, m.last_activity, sp.spawned_at
        FROM sessions s
        LEFT JOIN m USING (session_id)
        LEFT JOIN c USING (session_id)
        LEFT JOIN sp ON sp.child_session_id = s.session_id
        {where}
        ORDER BY coalesce(m.last_activity, s.time_updated, 0) DESC, s.session_id"""

    def recorded_figures(self, session_ids: Sequence[str] | None = None
                         ) -> dict[str, dict[str, Any]]:
        """The figures an agent recorded of a whole session (``info.recorded``: Claude
        Code's ``cost-state`` or its stream-json ``result`` records), by session; a
        session without them is left out."""
        where, params = "", []
        if session_ids is not None:
            where = "AND session_id IN (SELECT unnest(?))"
            params = [list(session_ids)]
        out: dict[str, dict[str, Any]] = {}
        for sid, doc in self.conn.execute(
                "SELECT session_id, json_extract(info, '$.recorded')::VARCHAR FROM sessions "
                f"WHERE json_extract(info, '$.recorded') IS NOT NULL {where}",
                params).fetchall():
            try:
                val = orjson.loads(doc)
            except (TypeError, orjson.JSONDecodeError):
                continue
            if isinstance(val, dict):
                out[str(sid)] = val
        return out

    def session_labels(self) -> dict[str, dict[str, Any]]:
        """Who each session is: its agent, its title with secrets hidden (whatever
        ``reveal_secrets`` says: the search index keeps these on disk) and whether it is
        top-level."""
        hide = self.redactor.hiding()
        return {str(sid): {"agent": agent, "title": hide.text(title), "top": parent is None,
                           "form": form}
                for sid, agent, title, parent, form in self.conn.execute(
                    "SELECT session_id, agent, title, parent_id, source_form "
                    "FROM sessions").fetchall()}

    def sessions(self) -> list[dict[str, Any]]:
        """Every session, newest activity first, with its spawning call for subagents."""
        return self.rows(self._SESSIONS_SQL.format(where=""))

    def session_summary(self, session_id: str) -> dict[str, Any]:
        """A session's ``title``, ``messages`` and ``events`` as stored: what an ingest
        reports of each session, without :meth:`session`'s joins (a sixth of the CPU).
        The title is NOT redacted: the ingest hides secrets in every title it reports at
        its end, with one load of the redactor (loading it reads every finding back:
        once per session, an ingest's CPU grew with the square of its sessions)."""
        row = self.conn.execute("SELECT title, message_count, event_count FROM sessions "
                                "WHERE session_id = ?", [session_id]).fetchone()
        if row is None:
            raise KbNotFound(f"no session {session_id}")
        return {"title": row[0], "messages": row[1], "events": row[2]}

    def session(self, session_id: str) -> dict[str, Any]:
        rows = self.rows(self._SESSIONS_SQL.format(where="WHERE s.session_id = ?"),
                           [session_id])
        if not rows:
            raise KbNotFound(f"no session {session_id}")
        return rows[0]

    def resolve_session(self, session_id: str | None) -> str:
        """An explicit session (id, unique prefix or title words), else the current one
        (``logkb use``), else the latest ingested top-level session."""
        return self.resolve_session_verbose(session_id)[0]

    def resolve_session_verbose(self, session_id: str | None) -> tuple[str, str]:
        """:meth:`resolve_session` and how it chose: ``explicit``, ``current`` or
        ``latest``."""
        if session_id:
            return self._match_session(session_id), "explicit"
        current = self.current_session()
        if current is not None:
            return current, "current"
        row = self.conn.execute(
            "SELECT session_id FROM sessions WHERE parent_id IS NULL "
            "ORDER BY ingested_at DESC, coalesce(time_updated, 0) DESC LIMIT 1").fetchall()
        if not row:
            raise KbNotFound("the knowledge base holds no sessions yet (run `logkb ingest`)")
        return str(row[0][0]), "latest"

    def _match_session(self, ref: str) -> str:
        """An id, a unique id prefix, or words that all occur in one session's title."""
        rows = self.conn.execute(
            "SELECT session_id FROM sessions WHERE starts_with(session_id, ?) "
            "ORDER BY session_id = ? DESC, session_id", [ref, ref]).fetchall()
        if not rows and len(ref) >= 4 and " " not in ref:
            from kb.sessionref import TYPE_TAGS  # a short id given without its ses_ tag

            for tag in TYPE_TAGS:
                rows = self.conn.execute(
                    "SELECT session_id FROM sessions WHERE starts_with(session_id, ?) "
                    "ORDER BY session_id", [tag + ref]).fetchall()
                if rows:
                    ref = tag + ref
                    break
        if rows and (rows[0][0] == ref or len(rows) == 1):
            return str(rows[0][0])
        if len(rows) > 1 and ":" not in ref and all(
                str(r[0]).startswith(f"{rows[0][0]}:") for r in rows[1:]):
            return str(rows[0][0])  # a session's short id: its sub-agents share the prefix
        if not rows and ":" in ref:  # a sub-agent's short id: <session>:<its own part>
            from kb.sessionref import SUBAGENT_TAGS  # its own part given without agent-

            head, _, own = ref.partition(":")
            rows = self.conn.execute(
                "SELECT session_id FROM sessions WHERE strpos(session_id, ':') > 0 AND "
                "starts_with(split_part(session_id, ':', 1), ?) AND list_bool_or(["
                "starts_with(substr(session_id, strpos(session_id, ':') + 1), p) "
                "FOR p IN ?]) ORDER BY session_id",
                [head, [own, *(t + own for t in SUBAGENT_TAGS)]]).fetchall()
            if len(rows) == 1:
                return str(rows[0][0])
        if len(rows) > 1:
            raise self._ambiguous(ref, [str(r[0]) for r in rows], "sessions")
        words = [w.lower() for w in ref.split() if w.strip()]
        if not words:
            raise KbNotFound(f"no session {ref!r}")
        where = " AND ".join("lower(coalesce(title, '') || ' ' || coalesce(slug, '')) "
                             "LIKE ?" for _ in words)
        hits = self.conn.execute(
            f"SELECT session_id, title FROM sessions WHERE {where} "
            "ORDER BY parent_id IS NOT NULL, session_id",
            [f"%{w}%" for w in words]).fetchall()
        if not hits:
            raise KbNotFound(f"no session {ref!r} (not an id, a prefix or words of a title)")
        if len(hits) > 1:
            raise self._ambiguous(ref, [str(h[0]) for h in hits], "session titles")
        return str(hits[0][0])

    def _ambiguous(self, ref: str, ids: list[str], what: str) -> KbAmbiguous:
        """``'019' matches 4 sessions: 019c5b3 init; 019de7f refine these…; …``: each
        by its short id (as ``logkb sessions`` names it) and the head of its title
        (redacted, its control characters shown as escapes)."""
        from kb.safe_text import visible
        from kb.width import fit

        short = self.short_ids()
        named = "; ".join(
            f"{short.get(i, i)} {fit(visible(' '.join((self.session_title(i) or '').split())), 24)}"
            .rstrip() for i in ids[:4])
        return KbAmbiguous(f"{ref!r} matches {len(ids)} {what}: {named}"
                           f"{'; …' if len(ids) > 4 else ''}")

    def current_session(self) -> str | None:
        """The session ``logkb use`` chose, if it still exists."""
        row = self.conn.execute(
            "SELECT s.session_id FROM kb_settings k JOIN sessions s ON s.session_id = k.value "
            "WHERE k.key = 'current_session'").fetchone()
        return str(row[0]) if row else None

    def set_current_session(self, session_id: str | None) -> None:
        """Make ``session_id`` the default of every command (None: back to the latest)."""
        self.conn.execute("DELETE FROM kb_settings WHERE key = 'current_session'")
        if session_id is not None:
            self.conn.execute("INSERT INTO kb_settings VALUES ('current_session', ?, now())",
                              [session_id])

    def top_level_ids(self) -> list[str]:
        """Top-level sessions (no parent), latest ingested first."""
        return [str(r[0]) for r in self.conn.execute(
            "SELECT session_id FROM sessions WHERE parent_id IS NULL "
            "ORDER BY ingested_at DESC, coalesce(time_updated, 0) DESC").fetchall()]

    def short_ids(self) -> dict[str, str]:
        """Every session's short id (:func:`kb.sessionref.short_ids`: the shortest unique
        prefix, at least 7 characters), which :meth:`resolve_session` accepts back."""
        from kb.sessionref import short_ids

        return short_ids((str(r[0]) for r in self.conn.execute(
            "SELECT session_id FROM sessions").fetchall()), subagents=True)

    def top_level_count(self) -> int:
        row = self.conn.execute(
            "SELECT count(*) FROM sessions WHERE parent_id IS NULL").fetchone()
        return int(row[0]) if row else 0

    def session_title(self, session_id: str) -> str | None:
        """The session's title, redacted unless ``reveal_secrets`` (titles are the
        user's first words, and a pasted token is one)."""
        row = self.conn.execute("SELECT title FROM sessions WHERE session_id = ?",
                                [session_id]).fetchone()
        return self.redactor.text(row[0]) if row else None

    def events(self, session_id: str, *, kinds: Sequence[str] = (),
               categories: Sequence[str] = (), hosts: Sequence[str] = (),
               start: int | None = None, end: int | None = None,
               limit: int | None = None, raw: bool = False,
               sources: Sequence[str] = ()) -> list[Event]:
        """The typed events of a session in transcript order, filtered; redacted unless
        ``raw`` (what replay runs: the commands as recorded).  ``sources`` keeps prose
        written by them only (``["text"]``: the user's and the model's own words, no
        ``synthetic`` text an agent injected)."""
        where = ["session_id = ?"]
        params: list[Any] = [session_id]
        for col, values in (("kind", kinds), ("category", categories), ("source", sources)):
            if values:
                where.append(f"{col} IN ({', '.join('?' * len(values))})")
                params.extend(values)
        if hosts:
            # the first host, or any host an ssh call of the command reaches
            # (`ssh a x && ssh b y`, nested calls): every hop is in the hops JSON;
            # `local`: a call that ran where the agent did (as the TUI's filter reads it)
            named = [h for h in hosts if h != "local"]
            either = []
            if named:
                marks = ", ".join("?" * len(named))
                either.append(f"host IN ({marks}) OR coalesce(list_has_any("
                              f"json_extract_string(hops, '$[*].host'), [{marks}]), false)")
                params.extend(named)
                params.extend(named)
            if "local" in hosts:
                either.append("(host IS NULL AND kind IN ('command', 'result'))")
            where.append(f"({' OR '.join(either)})")
        if start is not None:
            where.append("ordinal >= ?")
            params.append(start)
        if end is not None:
            where.append("ordinal <= ?")
            params.append(end)
        red = None if raw else self.redactor
        hidden = red.pattern() if red is not None and not red.scan_all else None
        flag = ""
        if hidden is not None:
            # which rows hold a known secret: one RE2 pass in DuckDB, so that Python walks
            # only those (checking every row in Python doubles the time of a long session)
            flag = f", regexp_matches(concat_ws(chr(0), {_TEXT_FIELDS}), ?)"
            params.insert(0, hidden)
        sql = (f"SELECT {', '.join(_quote(f) for f in EVENT_FIELDS)}{flag} FROM events "
               f"WHERE {' AND '.join(where)} ORDER BY {_EVENT_ORDER}")
        if limit is not None:
            sql += f" LIMIT {int(limit)}"
        rows = self.conn.execute(sql, params).fetchall()
        if hidden is not None:
            return [row_to_event(r[:-1], red if r[-1] else None) for r in rows]
        return [row_to_event(r, red) for r in rows]

    def message(self, session_id: str, ordinal: int) -> dict[str, Any]:
        rows = self.rows(
            "SELECT message_id, ordinal, role, time_created, time_completed, agent, model, "
            "finish, error, tokens_input, tokens_output, cost, inferred FROM messages "
            "WHERE session_id = ? AND ordinal = ?", [session_id, ordinal])
        if not rows:
            raise KbNotFound(f"session {session_id} has no message {ordinal}")
        msg = rows[0]
        msg["events"] = self.events(session_id, start=ordinal, end=ordinal)
        return msg

    def rewound(self, session_id: str, since: int = 0) -> dict[int, dict[str, Any]]:
        """The messages the user rewound the conversation past (Gemini CLI's ``$rewindTo``,
        read into ``$.rewinds`` of the raw record of the message the rewind followed): each
        ordinal taken back → ``{"at": that message's ordinal, "line": the rewind's line,
        "to": the message id it rewound to}``.  They stay stored; what the user went on
        with after the rewind is the conversation.  ``since``: only the rewinds that
        follow that message (the raw records before it are not read)."""
        rows = self.conn.execute(
            "SELECT ordinal, json_extract(raw, '$.rewinds') FROM messages "
            "WHERE session_id = ? AND ordinal >= ? AND contains(raw, '\"rewinds\":') "
            "ORDER BY ordinal", [session_id, since]).fetchall()
        out: dict[int, dict[str, Any]] = {}
        # each ordinal is marked once, by the first rewind that takes it back: ``after``
        # leads from a marked ordinal to the next one not marked yet (path halving), so n
        # rewinds of the same n messages cost n marks, not n * n
        after: dict[int, int] = {}

        def unmarked(o: int) -> int:
            while o in after:
                nxt = after[o]
                after[o] = after.get(nxt, nxt)
                o = nxt
            return o

        for at, rewinds in rows:
            for r in orjson.loads(rewinds) if rewinds else []:
                if not isinstance(r, dict):
                    continue
                try:
                    first, last = int(r["from"]), int(r["through"])
                except (KeyError, TypeError, ValueError):
                    continue
                # the id it rewound to is the transcript's text: redacted like any other
                to = self.redactor.text(r.get("to"))
                o = unmarked(first)
                while o <= last:
                    out[o] = {"at": at, "line": r.get("line"), "to": to}
                    after[o] = o + 1
                    o = unmarked(o + 1)
        return out

    def max_ordinal(self, session_id: str) -> int:
        row = self.conn.execute("SELECT max(ordinal) FROM messages WHERE session_id = ?",
                                [session_id]).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def query(self, sql: str, *, limit: int | None = 100, timeout: float | None = 30.0,
              memory_limit: str | None = "2GB") -> QueryResult:
        """Run read-only SQL in a sandbox: only SELECT/WITH/EXPLAIN/DESCRIBE/SHOW, no file or
        network access, no extensions, configuration locked, at most ``timeout`` seconds
        and ``memory_limit`` of DuckDB's memory, ``limit`` rows kept (the rest counted).
        Text comes back redacted.

        The connection stays sandboxed afterwards: open a store for the query alone."""
        check_query(self.conn, sql)
        red = self.redactor  # loaded before the configuration is locked
        if memory_limit:
            try:
                self.conn.execute("SET memory_limit = ?", [memory_limit])
            except duckdb.Error as e:
                raise QueryRefused(f"bad memory limit {memory_limit!r}: "
                                   f"{str(e).splitlines()[0]}") from None
        sandbox(self.conn)
        timer = None
        if timeout:
            timer = threading.Timer(timeout, self.conn.interrupt)
            timer.daemon = True
            timer.start()
        try:
            cur = self.conn.execute(sql)
            if cur.description is None:
                return QueryResult([], [], 0)
            cols = [d[0] for d in cur.description]
            keep = cur.fetchmany(limit + 1) if limit is not None else cur.fetchall()
            total = len(keep)
            if limit is not None and total > limit:
                keep = keep[:limit]
                while True:  # count what is left without keeping it
                    more = cur.fetchmany(10_000)
                    if not more:
                        break
                    total += len(more)
        except duckdb.InterruptException:
            raise QueryTimeout(f"the query ran longer than {timeout:g}s and was stopped "
                               "(--timeout)") from None
        finally:
            if timer is not None:
                timer.cancel()
        return QueryResult(cols, [tuple(r) for r in red.scanning().value(keep)], total)


class QueryRefused(KbError):
    """A ``logkb query`` statement that is not a read."""


class QueryTimeout(KbError):
    """A ``logkb query`` that ran longer than its timeout (and was interrupted)."""


@dataclass(frozen=True)
class QueryResult:
    columns: list[str]
    rows: list[tuple[Any, ...]]
    """The rows kept (at most the limit)."""
    total: int
    """How many rows the query returned."""

    @property
    def left(self) -> int:
        """Rows not kept because of the limit."""
        return self.total - len(self.rows)


_READ_TYPES = ("SELECT", "EXPLAIN")
"""Statement types a query may have (WITH, DESCRIBE, SHOW, SUMMARIZE, FROM and VALUES
parse as SELECT)."""


def check_query(conn: duckdb.DuckDBPyConnection, sql: str) -> None:
    """Refuse anything but reads, naming what is refused (parsed by DuckDB itself)."""
    try:
        statements = conn.extract_statements(sql)
    except duckdb.Error as e:
        raise QueryRefused(f"cannot parse the query: {e}") from None
    if not statements:
        raise QueryRefused("no statement given")
    for st in statements:
        kind = st.type.name
        text = st.query.strip().rstrip(";")
        if kind == "EXPLAIN":  # EXPLAIN ANALYZE runs its statement: check that one too
            inner = re.sub(r"(?is)^\s*explain\s+(analyze\s+|\(.*?\)\s*)?", "", text)
            try:
                kind = "EXPLAIN" if not inner.strip() else next(
                    iter(conn.extract_statements(inner))).type.name
            except (duckdb.Error, StopIteration):
                kind = "UNKNOWN"
            kind = "EXPLAIN" if kind == "SELECT" else kind
        if kind not in _READ_TYPES:
            what = " ".join(text.split())[:60]
            raise QueryRefused(
                f"refused: {kind} statement ({what!r}); logkb query is read-only and runs "
                "only SELECT, WITH, EXPLAIN, DESCRIBE and SHOW on the knowledge base")


_SANDBOX = ("SET autoinstall_known_extensions = false",
            "SET autoload_known_extensions = false",
            "SET enable_external_access = false",
            "SET lock_configuration = true")


def sandbox(conn: duckdb.DuckDBPyConnection) -> None:
    """No files but the knowledge base, no network, no extensions, no more settings."""
    for stmt in _SANDBOX:
        conn.execute(stmt)


TEMPLATE_ENV = "LOGKB_NEW_DB_TEMPLATE"
"""A knowledge base that every new file starts as a copy of, instead of running each
migration on an empty file (the test suite makes one per run, through the migrations:
a new store costs 0.2-0.3 s of migrations, a copy a few milliseconds).  It must be an
empty knowledge base, closed; a migration it lacks still runs on the copy."""


def _copy_template(path: Path) -> None:
    """Start the new file ``path`` as a copy of ``$LOGKB_NEW_DB_TEMPLATE`` (if set): a
    private copy next to it, linked into place only if ``path`` is still missing (no other
    process sees a half-copied file); where links are not possible, nothing is copied."""
    template = os.environ.get(TEMPLATE_ENV)
    if not template:
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.template")
    try:
        src = open(template, "rb")
    except OSError as e:
        raise KbError(f"${TEMPLATE_ENV}: {e}") from None
    try:
        with src, open(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600), "wb") as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.link(tmp, path)
    except OSError:
        pass  # another process made the file meanwhile, or no links here: migrate instead
    finally:
        tmp.unlink(missing_ok=True)


def _copy_template_into(conn: duckdb.DuckDBPyConnection) -> None:
    """Fill a new in-memory knowledge base with ``$LOGKB_NEW_DB_TEMPLATE``'s schema."""
    template = os.environ[TEMPLATE_ENV]
    if not os.path.isfile(template):
        raise KbError(f"${TEMPLATE_ENV}: no such file: {template}")
    conn.execute("ATTACH ? AS logkb_template (READ_ONLY)", [template])
    try:
        conn.execute("COPY FROM DATABASE logkb_template TO memory")
    finally:
        conn.execute("DETACH logkb_template")


def _private(path: Path, mode: int) -> None:
    """Make a file or directory of logkb's (owned by this user) readable by its owner only."""
    try:
        st = path.stat()
        if st.st_uid != os.getuid() or stat.S_IMODE(st.st_mode) & ~mode == 0:
            return
        if stat.S_ISDIR(st.st_mode) and st.st_mode & stat.S_ISVTX:
            return  # a sticky folder (/tmp) is shared by design: never narrow it
        os.chmod(path, stat.S_IMODE(st.st_mode) & mode)
    except OSError:
        pass


def _quote(name: str) -> str:
    return f'"{name}"'


def load_redactor(conn: Any, *, reveal: bool = False) -> Redactor:
    """The redactor of the knowledge base behind ``conn``: its known secrets, and the
    finder on every text while some session has not been scanned."""
    try:  # loaded when revealing too: what is stored is hidden all the same (hiding())
        known = secret_values(conn)
        unscanned = unscanned_sessions(conn) > 0
    except Exception as e:  # a knowledge base without the tables cannot say: hide
        if "secret" not in str(e).lower():
            raise
        known, unscanned = {}, True
    return Redactor(known, reveal=reveal, scan_all=unscanned)


def unscanned_sessions(conn: Any) -> int:
    """How many sessions lack a scan with the current rule set."""
    row = conn.execute(
        "SELECT count(*) FROM sessions s LEFT JOIN secret_scans c USING (session_id) "
        "WHERE c.ruleset IS DISTINCT FROM ?", [RULESET]).fetchone()
    return int(row[0]) if row else 0


def _per_session(tbl: pa.Table | None, times: int = 1) -> dict[str, int]:
    """``session → rows`` of a table of many sessions' rows (its ``session_id`` column),
    each row counted ``times``."""
    if tbl is None or not tbl.num_rows:
        return {}
    counts = pc.value_counts(tbl.column("session_id")).to_pylist()
    return {c["values"]: times * c["counts"] for c in counts}


def secret_values(conn: Any) -> dict[str, str]:
    """``secret text → kind`` of every finding (read back from the stored text)."""
    present = [r[0] for r in conn.execute("SELECT DISTINCT field FROM secrets").fetchall()]
    parts = []
    for field in present:
        table, expr = SECRET_FIELDS[field]
        parts.append(
            f"SELECT s.kind, substring(t.x, s.start + 1, s.stop - s.start) FROM secrets s "
            f"JOIN (SELECT session_id, ordinal, seq, {expr} AS x FROM {table} WHERE "
            f"(session_id, ordinal, seq) IN (SELECT (session_id, ordinal, seq) FROM secrets "
            f"WHERE field = '{field}')) t "
            "ON t.session_id = s.session_id AND t.ordinal = s.ordinal AND t.seq = s.seq "
            f"WHERE s.field = '{field}'")
    out: dict[str, str] = {}
    if not parts:
        return out
    for kind, value in conn.execute(" UNION ALL ".join(parts)).fetchall():
        if value:
            out.setdefault(value, kind)
    return out


def row_to_event(row: Sequence[Any], redactor: Redactor | None = None) -> Event:
    """An ``events`` view row (:data:`EVENT_FIELDS` order) as a plain :class:`Event`, its
    text redacted by ``redactor`` when it holds a known secret."""
    data = dict(zip(EVENT_FIELDS, row))
    for f in _JSON_FIELDS:
        v = data[f]
        if isinstance(v, str):
            data[f] = orjson.loads(v)
    if redactor is not None:
        data = redactor.row(row, data)
    data["kind"] = EventKind(data["kind"])
    data["hops"] = [hop(h) for h in data["hops"] or () if isinstance(h, dict)]
    data["todos"] = [todo(t) for t in data["todos"] or () if isinstance(t, dict)]
    data["measurements"] = [Measurement(m["value"], m["unit"], m["label"])
                            for m in data["measurements"] or ()]
    data["error_signatures"] = list(data["error_signatures"] or ())
    return Event(**data)
