"""The opencode 1.2+ store ``opencode.db`` (SQLite, WAL mode).

The database is opened read-only through a ``mode=ro`` URI and never written.
Never ``immutable=1``: opencode often leaves every row in ``opencode.db-wal``,
and an immutable open silently skips the WAL.  When the WAL cannot be read in
place (no ``-shm`` beside it in a read-only directory), the three files are
copied to a private temporary directory and read there.

Rows map to the export shape as opencode's own ``fromRow`` does:
``message = {...data, id, sessionID}``, ``part = {...data, id, sessionID, messageID}``.
Messages are streamed (merge of ``message`` by id and ``part`` by message id),
so memory stays bounded; consume one session's messages before asking for the
next session (the connection closes when the iteration ends).  Columns are read
by name and may be missing.
"""

from __future__ import annotations

import shutil
import sqlite3
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import orjson

from logparse.models import Problem
from logparse.source import NotATranscript, RawMessage, SourceSession, TranscriptReader

SQLITE_MAGIC = b"SQLite format 3\x00"


@contextmanager
def open_readonly(path: Path) -> Iterator[sqlite3.Connection]:
    """Open an SQLite file read-only, WAL included, without modifying it."""
    tmp: str | None = None
    try:
        try:
            conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.OperationalError:
            tmp = tempfile.mkdtemp(prefix="logkb-sqlite-")
            copy = Path(tmp) / path.name
            for suffix in ("", "-wal", "-shm"):
                src = Path(str(path) + suffix)
                if src.exists():
                    shutil.copyfile(src, str(copy) + suffix)
            conn = sqlite3.connect(f"file:{copy}?mode=ro", uri=True)
        try:
            yield conn
        finally:
            conn.close()
    finally:
        if tmp:
            shutil.rmtree(tmp, ignore_errors=True)


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
            tables = {r[0] for r in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'")}
            if not {"session", "message", "part"} <= tables:
                raise NotATranscript(path, "an SQLite database without opencode's "
                                     "session/message/part tables")
            self._report_v2(conn, tables, path, problems)
            cols = _columns(conn, "session")
            order = "time_created, id" if "time_created" in cols else "id"
            rows = [dict(zip(cols, r)) for r in
                    conn.execute(f"SELECT * FROM session ORDER BY {order}")]  # noqa: S608
            for row in rows:
                sid = row["id"]
                if session_ids is not None and sid not in session_ids:
                    continue
                yield SourceSession(session_id=sid, form=self.form, path=str(path),
                                    info=session_info_from_row(row),
                                    messages=self._messages(conn, path, sid, problems))

    def _messages(self, conn: sqlite3.Connection, path: Path, sid: str,
                  problems: list[Problem]) -> Iterator[RawMessage]:
        spath = str(path)
        parts_cur = conn.cursor().execute(
            "SELECT id, message_id, data FROM part WHERE session_id = ? ORDER BY message_id, id",
            (sid,))
        pending = parts_cur.fetchone()
        msgs = conn.cursor().execute(
            "SELECT id, data FROM message WHERE session_id = ? ORDER BY id", (sid,))
        for mid, data in msgs:
            # parts of messages that sort before this one have no message: orphans
            while pending is not None and pending[1] < mid:
                problems.append(Problem(path=spath, record=pending[0], raw=_text(pending[2]),
                                        reason=f"part of missing message {pending[1]}"))
                pending = parts_cur.fetchone()
            parts: list[dict[str, Any]] = []
            while pending is not None and pending[1] == mid:
                pid, _, pdata = pending
                obj = _load(pdata)
                if isinstance(obj, dict):
                    obj["id"] = pid
                    obj["sessionID"] = sid
                    obj["messageID"] = mid
                    parts.append(obj)
                else:
                    problems.append(Problem(path=spath, record=pid, raw=_text(pdata),
                                            reason="part data is not a JSON object"))
                pending = parts_cur.fetchone()
            info = _load(data)
            if not isinstance(info, dict):
                problems.append(Problem(path=spath, record=mid, raw=_text(data),
                                        reason="message data is not a JSON object"))
                continue
            info["id"] = mid
            info["sessionID"] = sid
            yield RawMessage(info=info, parts=parts, record=mid,
                             raw=orjson.dumps({"info": info, "parts": parts}))
        while pending is not None:
            problems.append(Problem(path=spath, record=pending[0], raw=_text(pending[2]),
                                    reason=f"part of missing message {pending[1]}"))
            pending = parts_cur.fetchone()

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


def _load(data: Any) -> Any:
    try:
        return orjson.loads(data)
    except (orjson.JSONDecodeError, TypeError):
        return None


def _text(data: Any) -> str:
    if isinstance(data, bytes):
        return data.decode("utf-8", errors="replace")
    return str(data)
