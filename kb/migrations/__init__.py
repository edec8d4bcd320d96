"""Ordered, append-only schema migrations, recorded in ``_logkb_migrations``.

Each ``NNN_name.sql`` file in this package is one migration.  They run in
number order, each together with its record in one transaction, so a crash
never leaves a half-applied migration.  An applied migration must never be
edited: a changed checksum is reported as a warning.
"""

from __future__ import annotations

import hashlib
import re
import warnings
from dataclasses import dataclass
from importlib import resources

import duckdb

_NAME = re.compile(r"^(\d{3})_([a-z0-9_]+)\.sql$")


class MigrationError(Exception):
    pass


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str

    @property
    def checksum(self) -> str:
        return hashlib.sha256(self.sql.encode()).hexdigest()[:16]


def load(package: str = __package__) -> list[Migration]:
    """Every migration shipped in ``package`` (the local store's by default; the team
    server's are ``kb.team.migrations``), in order."""
    found: dict[int, Migration] = {}
    for entry in resources.files(package).iterdir():
        m = _NAME.match(entry.name)
        if not m:
            continue
        version = int(m.group(1))
        if version in found:
            raise MigrationError(f"two migrations numbered {version:03d}")
        found[version] = Migration(version, m.group(2), entry.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


MIGRATIONS = load()
LATEST = MIGRATIONS[-1].version if MIGRATIONS else 0


def applied(conn: duckdb.DuckDBPyConnection) -> dict[int, str]:
    exists = conn.execute(
        "SELECT count(*) FROM information_schema.tables WHERE table_name = '_logkb_migrations'"
    ).fetchone()
    if not exists or not exists[0]:
        return {}
    return dict(conn.execute("SELECT version, checksum FROM _logkb_migrations").fetchall())


def pending(conn: duckdb.DuckDBPyConnection) -> list[Migration]:
    done = applied(conn)
    return [m for m in MIGRATIONS if m.version not in done]


def migrate(conn: duckdb.DuckDBPyConnection) -> list[Migration]:
    """Apply every pending migration; return those applied."""
    conn.execute(
        "CREATE TABLE IF NOT EXISTS _logkb_migrations (version INTEGER PRIMARY KEY, "
        "name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL, checksum VARCHAR NOT NULL)")
    done = applied(conn)
    for m in MIGRATIONS:
        if m.version in done and done[m.version] != m.checksum:
            warnings.warn(f"migration {m.version:03d}_{m.name} changed after it was applied",
                          stacklevel=2)
    todo = [m for m in MIGRATIONS if m.version not in done]
    for m in todo:
        conn.execute("BEGIN TRANSACTION")
        try:
            conn.execute(m.sql)
            conn.execute("INSERT INTO _logkb_migrations VALUES (?, ?, now(), ?)",
                         [m.version, m.name, m.checksum])
            conn.execute("COMMIT")
        except Exception:
            conn.execute("ROLLBACK")
            raise
    return todo
