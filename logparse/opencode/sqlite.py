"""The opencode 1.2+ store ``opencode.db`` (SQLite, WAL mode).

The source is never touched, not even by SQLite's reader protocol: a reader of a
WAL database writes its ``-shm`` (the wal-index), and a reader that finds a hot
``-journal`` rolls it back.  So the database and every sidecar its journal mode
needs (``-wal`` and ``-shm`` in WAL mode, ``-journal`` in rollback mode) are
copied to a private temporary directory and the copy is read; the bytes of
``opencode.db``, ``-wal`` and ``-shm`` are the same after an ingest as before.
Never ``immutable=1``: opencode often leaves every row in ``opencode.db-wal``,
and an immutable open silently skips the WAL.

A damaged database (truncated, corrupted pages) is read as far as SQLite can:
each table and each session is read on its own, and what SQLite refuses becomes
a problem quoting SQLite's message; a file SQLite cannot open at all is an error
naming the file and SQLite's message.  Messages whose session row is unreadable
are still read, under a session of their own id.

Rows map to the export shape as opencode's own ``fromRow`` does:
``message = {...data, id, sessionID}``, ``part = {...data, id, sessionID, messageID}``.
Messages are streamed (merge of ``message`` by id and ``part`` by message id),
so memory stays bounded; consume one session's messages before asking for the
next session (the connection closes when the iteration ends).  Columns are read
by name and may be missing.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from logparse.models import Problem
from logparse.opencode._raw import message_raw
from logparse.source import NotATranscript, RawMessage, SourceSession, TranscriptReader

SQLITE_MAGIC = b"SQLite format 3\x00"
SIDECARS = ("-wal", "-shm", "-journal")


@contextmanager
def open_readonly(path: Path) -> Iterator[sqlite3.Connection]:
    """Open a private copy of an SQLite file and its sidecars (the source is never
    written, not even ``-shm``); the copy is removed afterwards."""
    tmp = tempfile.mkdtemp(prefix="logkb-sqlite-")
    try:
        copy = Path(tmp) / "opencode.db"
        for suffix in ("", *SIDECARS):
            try:
                shutil.copyfile(str(path) + suffix, str(copy) + suffix)
            except FileNotFoundError:
                continue
            except OSError as e:
                if e.errno in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                    raise  # the environment, not the input: ingest reports it (exit 1)
                raise NotATranscript(path, f"could not copy {path.name}{suffix} aside to read "
                                     f"it ({e.strerror or e})") from None
        try:
            # read-write on the copy: a hot -journal must be rolled back to read it
            conn = sqlite3.connect(str(copy))
            conn.execute("PRAGMA query_only = ON")
            try:
                conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
            except sqlite3.DatabaseError:
                # a damaged schema (an index rooted past the end of a truncated file):
                # SQLite reads the tables it can when told not to check the schema
                conn.execute("PRAGMA writable_schema = ON")
                conn.execute("SELECT 1 FROM message LIMIT 1").fetchall()
        except sqlite3.DatabaseError as e:
            raise NotATranscript(path, f"SQLite cannot read it: {e}") from None
        try:
            yield conn
        finally:
            conn.close()
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _tables(conn: sqlite3.Connection, path: Path, problems: list[Problem]) -> set[str]:
    try:
        return {r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")}
    except sqlite3.DatabaseError as e:
        problems.append(_damaged(path, e, "reading the schema (sqlite_master); the tables "
                                 "that still open are read"))
    found = set()
    for name in ("session", "message", "part", "session_message"):
        try:
            conn.execute(f"SELECT 1 FROM {name} LIMIT 0")  # noqa: S608 (fixed names)
            found.add(name)
        except sqlite3.DatabaseError:
            continue
    return found


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]  # noqa: S608 (fixed names)


def session_info_from_row(row: dict[str, Any]) -> dict[str, Any]:
    """Rebuild opencode's Session.Info from a ``session`` row (opencode's ``fromRow``)."""
    info: dict[str, Any] = {"id": row["id"]}
    for col, key in (("slug", "slug"), ("project_id", "projectID"),
                     ("workspace_id", "workspaceID"), ("directory", "directory"),
                     ("path", "path"), ("parent_id", "parentID"), ("title", "title"),
                     ("version", "version"), ("agent", "agent")):
        if row.get(col) is not None:
            info[key] = row[col]
    if any(row.get(c) is not None for c in ("summary_additions", "summary_deletions",
                                             "summary_files")):
        info["summary"] = {"additions": row.get("summary_additions"),
                           "deletions": row.get("summary_deletions"),
                           "files": row.get("summary_files")}
    if row.get("share_url"):
        info["share"] = {"url": row["share_url"]}
    for col in ("model", "metadata", "permission", "revert"):
        val = row.get(col)
        if isinstance(val, str):
            try:
                info[col] = orjson.loads(val)
            except orjson.JSONDecodeError:
                info[col] = val
    t = {"created": row.get("time_created"), "updated": row.get("time_updated")}
    for col, key in (("time_compacting", "compacting"), ("time_archived", "archived")):
        if row.get(col) is not None:
            t[key] = row[col]
    info["time"] = t
    return info


class SqliteReader(TranscriptReader):
    form = "sqlite"
    description = "opencode 1.2+ SQLite store (opencode.db, WAL)"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        return head.startswith(SQLITE_MAGIC)

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        with open_readonly(path) as conn:
            tables = _tables(conn, path, problems)
            if not {"session", "message", "part"} <= tables:
                raise NotATranscript(path, "an SQLite database without opencode's "
                                     "session/message/part tables")
            try:
                self._report_v2(conn, tables, path, problems)
            except sqlite3.DatabaseError as e:
                problems.append(_damaged(path, e, "reading the session_message table"))
            rows = self._session_rows(conn, path, problems)
            for row in rows:
                sid = row["id"]
                if session_ids is not None and sid not in session_ids:
                    continue
                yield SourceSession(session_id=sid, form=self.form, path=str(path),
                                    info=session_info_from_row(row),
                                    messages=self._messages(conn, path, sid, problems))
            # messages whose session row is missing or unreadable: still read, each
            # under the session it names (the store gives it a session row)
            known = {r["id"] for r in rows}
            try:
                orphans = [r[0] for r in conn.execute(
                    "SELECT DISTINCT session_id FROM message ORDER BY session_id")
                    if r[0] not in known and isinstance(r[0], str)]
            except sqlite3.DatabaseError as e:
                problems.append(_damaged(path, e, "listing the sessions of the message table"))
                orphans = []
            for sid in orphans:
                if session_ids is not None and sid not in session_ids:
                    continue
                problems.append(Problem(path=str(path), record=sid,
                                        reason=f"session {sid} has messages but no readable "
                                               "session row; read without its session info"))
                yield SourceSession(session_id=sid, form=self.form, path=str(path),
                                    messages=self._messages(conn, path, sid, problems))

    @staticmethod
    def _session_rows(conn: sqlite3.Connection, path: Path,
                      problems: list[Problem]) -> list[dict[str, Any]]:
        """The session rows SQLite can read (a damaged table: those before the damage)."""
        rows: list[dict[str, Any]] = []
        try:
            cols = _columns(conn, "session")
            order = "time_created, id" if "time_created" in cols else "id"
            for r in conn.execute(f"SELECT * FROM session ORDER BY {order}"):  # noqa: S608
                row = dict(zip(cols, r))
                if isinstance(row.get("id"), str) and row["id"]:
                    rows.append(row)
        except sqlite3.DatabaseError as e:
            problems.append(_damaged(path, e, f"reading the session table ({len(rows)} "
                                     "session rows read)"))
        return rows

    def _messages(self, conn: sqlite3.Connection, path: Path, sid: str,
                  problems: list[Problem]) -> Iterator[RawMessage]:
        n = 0
        last = ""
        try:
            parts = conn.cursor().execute(
                "SELECT id, message_id, data FROM part WHERE session_id = ? "
                "ORDER BY message_id, id", (sid,))
            msgs = conn.cursor().execute(
                "SELECT id, data FROM message WHERE session_id = ? ORDER BY id", (sid,))
            for msg in _merge(str(path), sid, msgs, parts, problems):
                n += 1
                last = msg.info["id"]
                yield msg
            return
        except sqlite3.DatabaseError as e:
            problems.append(_damaged(path, e, f"reading the messages of session {sid} "
                                     f"({n} read); the rest is read by scanning the tables",
                                     record=sid))
        # a row of invalid UTF-8 stops Python's decoding of the whole query: read on with
        # it replaced (U+FFFD), each such row named below
        conn.text_factory = _tolerant
        # damage under the index or the sort: scan the rows in storage order, keep those
        # before the damage, and sort them here
        rows = _scan(conn, path, problems, sid, "SELECT id, data FROM message NOT INDEXED "
                     "WHERE session_id = ? AND id > ?", (sid, last), "message")
        prow = _scan(conn, path, problems, sid, "SELECT id, message_id, data FROM part "
                     "NOT INDEXED WHERE session_id = ? AND message_id > ?", (sid, last), "part")
        rows.sort(key=lambda r: str(r[0]))
        prow.sort(key=lambda r: (str(r[1]), str(r[0])))
        yield from _merge(str(path), sid, iter(rows), iter(prow), problems)

    @staticmethod
    def _report_v2(conn: sqlite3.Connection, tables: set[str], path: Path,
                   problems: list[Problem]) -> None:
        """opencode 2.x keeps new sessions in ``session_message``: report them, keep them raw."""
        if "session_message" not in tables:
            return
        for rid, sid, typ, data in conn.execute(
                "SELECT id, session_id, type, data FROM session_message ORDER BY session_id, seq"):
            problems.append(Problem(
                path=str(path), record=rid, raw=_text(data),
                reason=f"opencode 2.x message ({typ}) of session {sid}: not read yet, kept raw"))


def _scan(conn: sqlite3.Connection, path: Path, problems: list[Problem], sid: str, sql: str,
          params: tuple[Any, ...], table: str) -> list[tuple[Any, ...]]:
    rows: list[tuple[Any, ...]] = []
    try:
        for r in conn.execute(sql, params):
            rows.append(tuple(r))
    except sqlite3.DatabaseError as e:
        problems.append(_damaged(path, e, f"scanning the {table} table for session {sid} "
                                 f"({len(rows)} rows read before the damage)", record=sid))
    return rows


def _merge(spath: str, sid: str, msgs: Iterator[Any], parts_rows: Iterator[Any],
           problems: list[Problem]) -> Iterator[RawMessage]:
    """Messages sorted by id merged with their parts sorted by (message id, id)."""
    pending = next(parts_rows, None)
    for mid, data in msgs:
        # parts of messages that sort before this one have no message: orphans
        while pending is not None and pending[1] < mid:
            problems.append(Problem(path=spath, record=pending[0], raw=_text(pending[2]),
                                    reason=f"part of missing message {pending[1]}"))
            pending = next(parts_rows, None)
        parts: list[dict[str, Any]] = []
        texts: list[tuple[str, Any]] = []  # (id, data) of each part read, as stored
        while pending is not None and pending[1] == mid:
            pid, _, pdata = pending
            obj = _load(pdata)
            if isinstance(pdata, _Replaced):
                problems.append(Problem(path=spath, record=pid, reason="invalid UTF-8 in "
                                        "the part's data (replaced with U+FFFD)"))
            if isinstance(obj, dict):
                obj["id"] = pid
                obj["sessionID"] = sid
                obj["messageID"] = mid
                parts.append(obj)
                texts.append((pid, pdata))
            else:
                problems.append(Problem(path=spath, record=pid, raw=_text(pdata),
                                        reason="part data is not a JSON object"))
            pending = next(parts_rows, None)
        info = _load(data)
        if isinstance(data, _Replaced):
            problems.append(Problem(path=spath, record=str(mid), reason="invalid UTF-8 in "
                                    "the message's data (replaced with U+FFFD)"))
        if not isinstance(info, dict) or not isinstance(mid, str):
            problems.append(Problem(path=spath, record=str(mid), raw=_text(data),
                                    reason="message data is not a JSON object"))
            for pid, pdata in texts:  # read, but without their message: kept raw
                problems.append(Problem(
                    path=spath, record=str(pid), raw=_text(pdata),
                    reason=f"part of message {mid}, whose data is damaged; kept raw"))
            continue
        info["id"] = mid
        info["sessionID"] = sid
        yield RawMessage(info=info, parts=parts, record=mid, raw=message_raw(
            info, parts, _sources(data, texts, sid, mid)))
    while pending is not None:
        problems.append(Problem(path=spath, record=pending[0], raw=_text(pending[2]),
                                reason=f"part of missing message {pending[1]}"))
        pending = next(parts_rows, None)


def _sources(data: Any, texts: list[tuple[str, Any]], sid: str, mid: str
             ) -> Callable[[int], bytes]:
    """The bytes of a row as stored, with the ids its columns hold (as :func:`_merge`
    adds them to the parsed row)."""
    def source(i: int) -> bytes:
        d = data if i < 0 else texts[i][1]
        b = (d if isinstance(d, bytes) else str(d).encode()).strip()
        ids = {"id": mid, "sessionID": sid} if i < 0 else \
            {"id": texts[i][0], "sessionID": sid, "messageID": mid}
        head = orjson.dumps(ids)
        return head[:-1] + (b"," + b[1:] if b[1:].lstrip() != b"}" else b"}")
    return source


class _Replaced(str):
    """Text SQLite holds as invalid UTF-8, decoded with U+FFFD (and named)."""

    __slots__ = ()


def _tolerant(b: bytes) -> str:
    try:
        return b.decode("utf-8")
    except UnicodeDecodeError:
        return _Replaced(b.decode("utf-8", errors="replace"))


def _damaged(path: Path, e: sqlite3.DatabaseError, doing: str,
             record: str | None = None) -> Problem:
    return Problem(path=str(path), record=record,
                   reason=f"SQLite: {e} while {doing}; what came before is read")


def _load(data: Any) -> Any:
    try:
        return orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError):
        return None


def _text(data: Any) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return str(data)
