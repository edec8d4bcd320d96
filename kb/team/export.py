"""``logkb export --parquet DIR``: the knowledge base as Hive-partitioned Parquet.

What is written is what ``logkb push`` sends (:func:`kb.team.push.collect`: derived
and redacted, never the raw transcript unless asked), one folder per table, each
partitioned by team and by the UTC day its session (scope) started::

    DIR/sessions/team=gpu/date=2026-11-30/data_0.parquet
    DIR/messages/…   DIR/events/…   DIR/units/…   DIR/deadends/…   DIR/untested/…
    DIR/decisions/…  DIR/measurements/…   DIR/graph_nodes/…   DIR/graph_edges/…

Readable as they are by DuckDB (``read_parquet('DIR/events/**/*.parquet',
hive_partitioning = true)``), ClickHouse, Spark and Trino.  ``messages`` holds each
message's metadata; its text (prose, prompts, commands and outputs, redacted) is in
``units``, one row per searchable piece, as ``logkb search`` sees it.  JSON columns
(an event, a dead end, a graph node) are JSON text.

From the team server (``--team``) the same tables come from what the role may read
there, with their pushers.  DuckDB writes the files (``COPY … (FORMAT parquet,
PARTITION_BY (team, date))``), offline.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kb.team.server import TeamError

if TYPE_CHECKING:
    from kb.store import KbStore

_T = {"s": "VARCHAR", "i": "INTEGER", "l": "BIGINT", "f": "DOUBLE", "b": "BOOLEAN",
      "j": "VARCHAR"}
COLUMNS: dict[str, tuple[tuple[str, str], ...]] = {
    "sessions": (("session_id", "s"), ("parent_id", "s"), ("agent", "s"), ("title", "s"),
                 ("directory", "s"), ("version", "s"), ("time_created", "l"),
                 ("time_updated", "l"), ("last_activity", "l"), ("source_form", "s"),
                 ("complete", "b"), ("messages", "i"), ("events", "i"), ("commands", "i"),
                 ("spawned_at", "i"), ("tokens", "j"), ("cost", "f")),
    "messages": (("session_id", "s"), ("message_id", "s"), ("ordinal", "i"), ("role", "s"),
                 ("time_created", "l"), ("time_completed", "l"), ("agent", "s"),
                 ("model", "s"), ("finish", "s"), ("error", "s"), ("tokens_input", "l"),
                 ("tokens_output", "l"), ("cost", "f"), ("raw", "j")),
    "events": (("session_id", "s"), ("ordinal", "i"), ("seq", "i"), ("kind", "s"),
               ("error_signature", "s"), ("event", "j")),
    "units": (("session_id", "s"), ("message_id", "s"), ("ordinal", "i"), ("seq", "i"),
              ("field", "s"), ("kind", "s"), ("tool", "s"), ("category", "s"), ("host", "s"),
              ("time", "l"), ("text", "s")),
    "items": (("session_id", "s"), ("kind", "s"), ("ordinal", "i"), ("item", "j")),
    "measurements": (("session_id", "s"), ("ordinal", "i"), ("value", "f"), ("unit", "s"),
                     ("label", "s"), ("command", "s")),
    "graph_nodes": (("node_id", "s"), ("type", "s"), ("data", "j")),
    "graph_edges": (("src", "s"), ("dst", "s"), ("type", "s"), ("data", "j")),
}
"""The exported tables (besides team, pusher, scope and date) and their types; ``items``
is written as ``deadends``, ``untested`` and ``decisions`` (handoff briefs stay out)."""
ITEM_TABLES = {"deadend": "deadends", "untested": "untested", "decision": "decisions"}
TABLES = tuple(t for t in COLUMNS if t != "items") + tuple(ITEM_TABLES.values())
"""The folders an export writes."""


class Export:
    """Rows gathered table by table into an in-process DuckDB, then written as Parquet."""

    def __init__(self) -> None:
        import duckdb

        self.db = duckdb.connect()
        self.db.execute("SET preserve_insertion_order = false")
        for table, cols in COLUMNS.items():
            decl = ", ".join(["team VARCHAR", "pusher VARCHAR", "scope VARCHAR",
                              "date DATE", *(f'"{c}" {_T[t]}' for c, t in cols)])
            self.db.execute(f"CREATE TABLE {table} ({decl})")
        self.rows = dict.fromkeys(COLUMNS, 0)

    def add(self, table: str, team: str, pusher: str | None, scope: str, date: str,
            rows: Sequence[Sequence[Any]]) -> None:
        """Rows of one scope (in :data:`COLUMNS` order), through Arrow (one batch)."""
        import pyarrow as pa

        if not rows:
            return
        cols = COLUMNS[table]
        arrays: dict[str, Any] = {"team": [team] * len(rows), "pusher": [pusher] * len(rows),
                                  "scope": [scope] * len(rows), "date": [date] * len(rows)}
        for i, (name, typ) in enumerate(cols):
            vals = [r[i] for r in rows]
            if typ == "j":
                vals = [v if v is None or isinstance(v, str) else json.dumps(v, default=str)
                        for v in vals]
            arrays[name] = vals
        types = {"s": pa.string(), "j": pa.string(), "i": pa.int32(), "l": pa.int64(),
                 "f": pa.float64(), "b": pa.bool_()}
        schema = pa.schema([("team", pa.string()), ("pusher", pa.string()),
                            ("scope", pa.string()), ("date", pa.string()),
                            *((c, types[t]) for c, t in cols)])
        batch = pa.table(arrays, schema=schema)  # noqa: F841 - read by DuckDB by name
        names = ", ".join(f'"{c}"' for c, _ in cols)
        self.db.execute(f"INSERT INTO {table} SELECT team, pusher, scope, "
                        f"CAST(date AS DATE), {names} FROM batch")
        self.rows[table] += len(rows)

    def write(self, out: Path) -> dict[str, int]:
        """Every table under ``out/TABLE/team=…/date=…/``; rows written per folder."""
        written: dict[str, int] = {}
        for table in COLUMNS:
            parts = ([(table, "TRUE")] if table != "items" else
                     [(name, f"kind = '{kind}'") for kind, name in ITEM_TABLES.items()])
            for name, where in parts:
                dst = out / name
                if dst.exists():
                    shutil.rmtree(dst)
                n = self.db.execute(f"SELECT count(*) FROM {table} WHERE {where}").fetchone()
                written[name] = int(n[0]) if n else 0
                if not written[name]:
                    continue
                self.db.execute(
                    f"COPY (SELECT * FROM {table} WHERE {where}) TO '{_sql_path(dst)}' "
                    "(FORMAT parquet, PARTITION_BY (team, date), COMPRESSION zstd)")
        return written

    def close(self) -> None:
        self.db.close()


def _sql_path(p: Path) -> str:
    return str(p).replace("'", "''")


def _day(ms: int | None) -> str:
    if not ms:
        return "1970-01-01"
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d")


def local(store: KbStore, scopes: Iterable[str], out: Path, *, team: str = "local",
          include_raw: bool = False,
          progress: Callable[[str], None] | None = None) -> dict[str, int]:
    """Export some scopes of a local knowledge base (redacted, as a push sends them)."""
    from kb.team import push as tp

    ex = Export()
    try:
        starts = {s["session_id"]: s["time_created"] for s in store.sessions()}
        for scope in scopes:
            p = tp.collect(store, scope, include_raw=include_raw)
            day = _day(starts.get(scope))
            for table, rows in p.rows.items():
                if table == "items":
                    rows = [r for r in rows if r[1] in ITEM_TABLES]
                ex.add(table, team, None, scope, day, rows)
            if progress is not None:
                progress(scope)
        return ex.write(out)
    finally:
        ex.close()


def team(conn: Any, teams: list[str], out: Path) -> dict[str, int]:
    """Export what the role may read on the team server, scope by scope."""
    ex = Export()
    try:
        scopes = conn.execute(
            "SELECT c.team, c.pusher::text, c.scope, s.time_created FROM logkb.scopes c "
            "LEFT JOIN logkb.sessions s ON s.team = c.team AND s.pusher = c.pusher AND "
            "s.session_id = c.scope WHERE c.team = ANY(%s) ORDER BY 1, 2, 3",
            [teams]).fetchall()
        for tm, pusher, scope, started in scopes:
            day = _day(started)
            for table, cols in COLUMNS.items():
                names = ", ".join(f'"{c}"' for c, _ in cols)
                where = " AND kind <> 'handoff'" if table == "items" else ""
                rows = conn.execute(
                    f"SELECT {names} FROM logkb.{table} WHERE team = %s AND pusher = %s "
                    f"AND scope = %s{where}", [tm, pusher, scope]).fetchall()
                ex.add(table, tm, pusher, scope, day, rows)
        return ex.write(out)
    except Exception as e:
        import psycopg

        if isinstance(e, psycopg.Error):
            from kb.team.server import scrub

            raise TeamError(f"export from the team server failed: "
                            f"{scrub(' '.join(str(e).split()))}") from None
        raise
    finally:
        ex.close()
