"""Scale benchmark: the Parquet export at 1M and 10M events, read by DuckDB and loaded
into ClickHouse (chdb, in-process), with the queries a team dashboard runs.

    python -m bench scale [--messages 5000] [--events 1000000,10000000] [--runs 5]
                          [--units-max 1000000] [--chdb-path DIR] [--json]

1. ingests a generated session of ``--messages`` messages (``bench/gen_session.py``,
   seed 1), a real session with dead ends (``labelled/Valdyum-Labs__codex-session``)
   and the recorded self-test campaign, derives their graphs, and writes
   ``logkb export --parquet`` (the base);
2. for each ``--events`` target, copies the base in DuckDB under new scope ids spread
   over 3 teams and 30 days, as Parquet partitioned by team (``units``, the
   text, only up to ``--units-max`` copies' worth: its bulk is text);
3. runs the dashboard queries (:data:`QUERIES`) with DuckDB straight on the Parquet,
   then loads the Parquet into ClickHouse MergeTree tables with chdb and runs the same
   queries there: p50 of ``--runs``.

chdb is optional: without it (``pip install chdb``; ``--chdb-path`` adds a folder to
``sys.path`` for a ``pip install --target`` copy) its columns say "not measured".
Everything runs in this process or its children; nothing opens a socket.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from bench import team_bench  # noqa: E402 (after the path is set)

REALWORLD = ROOT.parent / "shared" / "realworld"
PARTITIONS = "team"
"""The copies' Hive partitions: by team only (the export's own folders are by team and
date; 3 × 30 partitions of 10M rows made DuckDB's partitioned write crawl under a 2 GB
memory limit on this shared machine).  ``date`` stays a column."""
MEMORY = "2GB"
"""DuckDB's memory limit here (a shared machine): it spills to disk past it."""
TABLES = ("sessions", "events", "units", "deadends", "measurements")

QUERIES: dict[str, str] = {
    "events per team, day and kind":
        "SELECT team, date, kind, count(*) AS n FROM events GROUP BY ALL ORDER BY n DESC "
        "LIMIT 50",
    "top error signatures (sessions, people)":
        "SELECT error_signature, count(*) AS n, count(DISTINCT scope) AS sessions, "
        "count(DISTINCT team) AS teams FROM events WHERE error_signature IS NOT NULL "
        "GROUP BY error_signature ORDER BY n DESC LIMIT 20",
    "sessions, messages and cost per team and week":
        "SELECT team, {week} AS week, count(*) AS sessions, sum(messages) AS messages, "
        "sum(coalesce(cost, 0)) AS cost FROM sessions GROUP BY ALL ORDER BY week, team",
    "dead ends by cause":
        "SELECT {cause} AS cause, count(*) AS n FROM deadends GROUP BY ALL ORDER BY n DESC "
        "LIMIT 20",
    "throughput measurements per unit (p50, max)":
        "SELECT unit, count(*) AS n, {median} AS p50, max(value) AS top FROM measurements "
        "GROUP BY unit ORDER BY n DESC LIMIT 20",
    "substring search in the text (units)":
        "SELECT scope, ordinal FROM units WHERE {ilike} LIMIT 50",
}
"""A team dashboard's questions; ``{…}`` are the dialect's spellings (DIALECTS)."""
DIALECTS = {
    "duckdb": {"week": "date_trunc('week', date)", "cause": "json_extract_string(item, "
               "'$.cause')", "median": "median(value)",
               "ilike": "text ILIKE '%decode steady at%'"},
    "clickhouse": {"week": "toMonday(date)", "cause": "JSONExtractString(item, 'cause')",
                   "median": "median(value)", "ilike": "text ILIKE '%decode steady at%'"},
}


def logkb(*args: str) -> float:
    """Seconds one ``logkb`` command took (:func:`bench.team_bench.logkb`)."""
    return team_bench.logkb(*args)[0]


def base_export(messages: int, work: Path) -> tuple[Path, dict[str, Any]]:
    """The base: three sessions ingested, derived and exported (cached in bench/data)."""
    from bench.gen_session import write_jsonl

    out = DATA / f"scale-base-{messages}"
    info: dict[str, Any] = {}
    if (out / "events").exists():
        return out, {"cached": True}
    DATA.mkdir(parents=True, exist_ok=True)
    src = DATA / f"session-scale-{messages}.jsonl"
    if not src.exists():
        write_jsonl(messages, 1, src)
    db = work / "kb.duckdb"
    selftest = REALWORLD / "opencode-recorded" / "selftest"
    info["ingest_s"] = round(logkb(
        "ingest", "--db", str(db), str(src),
        str(REALWORLD / "labelled" / "Valdyum-Labs__codex-session.jsonl"),
        str(selftest / "export.json"), *map(str, sorted(selftest.glob("export-*.json")))), 1)
    info["graph_s"] = round(logkb("deadends", "--all", "--db", str(db)), 1)
    info["export_s"] = round(logkb("export", "--parquet", str(out), "--all", "--db", str(db)), 1)
    return out, info


def replicate(base: Path, dst: Path, copies: int, unit_copies: int) -> dict[str, Any]:
    """``copies`` copies of the base as Parquet (team = copy mod 3, one day per copy)."""
    import duckdb

    con = duckdb.connect(config={"memory_limit": MEMORY, "threads": 2})
    con.execute("SET preserve_insertion_order = false")
    dst.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    for table in TABLES:
        n = copies if table != "units" else min(copies, unit_copies)
        src = f"read_parquet('{base}/{table}/**/*.parquet', hive_partitioning = true)"
        rename = "scope || '~' || i::VARCHAR"
        sid = ("CASE WHEN session_id IS NULL THEN NULL ELSE session_id || '~' || "
               "i::VARCHAR END")
        con.execute(
            f"COPY (SELECT * REPLACE ({rename} AS scope, {sid} AS session_id, "
            f"'team' || (i % 3)::VARCHAR AS team, "
            f"(DATE '2026-01-01' + (i % 30)::INTEGER) AS date) "
            f"FROM {src}, range({n}) r(i)) TO '{dst / table}' "
            f"(FORMAT parquet, PARTITION_BY ({PARTITIONS}), COMPRESSION zstd, "
            "ROW_GROUP_SIZE 500000)")
    took = time.perf_counter() - t0
    ev = con.execute(f"SELECT count(*) FROM read_parquet('{dst}/events/**/*.parquet')"
                     ).fetchone()
    un = con.execute(f"SELECT count(*) FROM read_parquet('{dst}/units/**/*.parquet')"
                     ).fetchone()
    size = sum(p.stat().st_size for p in dst.rglob("*.parquet"))
    return {"copies": copies, "events": ev[0] if ev else 0, "units": un[0] if un else 0,
            "parquet_mb": round(size / 1e6), "write_s": round(took, 1)}


def _p50(fn: Any, runs: int) -> tuple[float, Any]:
    times, res = [], None
    for _ in range(runs):
        t = time.perf_counter()
        res = fn()
        times.append((time.perf_counter() - t) * 1000)
    return round(statistics.median(times), 1), res


def duckdb_queries(dst: Path, runs: int) -> dict[str, float]:
    import duckdb

    con = duckdb.connect(config={"memory_limit": MEMORY, "threads": 2})
    for table in TABLES:
        con.execute(f"CREATE VIEW {table} AS SELECT * FROM read_parquet("
                    f"'{dst}/{table}/**/*.parquet', hive_partitioning = true)")
    out = {}
    for name, q in QUERIES.items():
        sql = q.format(**DIALECTS["duckdb"])
        out[name], _ = _p50(lambda sql=sql: con.execute(sql).fetchall(), runs)
    return out


def chdb_queries(dst: Path, runs: int, work: Path) -> dict[str, Any]:
    from chdb import session as chs  # type: ignore[import-not-found,unused-ignore]

    sess = chs.Session(str(work / "chdb"))
    out: dict[str, Any] = {"load_s": {}}
    try:
        sess.query("CREATE DATABASE IF NOT EXISTS kb")
        for table in TABLES:
            sess.query(f"DROP TABLE IF EXISTS kb.{table}")
            t = time.perf_counter()
            sess.query(
                f"CREATE TABLE kb.{table} ENGINE = MergeTree ORDER BY (team, date, scope) "
                f"SETTINGS allow_nullable_key = 1 AS SELECT * FROM "
                f"file('{dst}/{table}/*/*.parquet', Parquet) "
                "SETTINGS use_hive_partitioning = 1, max_memory_usage = 4000000000, "
                "max_threads = 1, max_insert_threads = 1, max_block_size = 65536, "
                "input_format_parquet_max_block_size = 65536, "
                "min_insert_block_size_rows = 65536, "
                "min_insert_block_size_bytes = 67108864")
            out["load_s"][table] = round(time.perf_counter() - t, 1)
        rows = sess.query("SELECT count() FROM kb.events", "CSV").bytes().decode().strip()
        out["events"] = int(rows)
        size = sess.query("SELECT sum(bytes_on_disk) FROM system.parts WHERE database = 'kb' "
                          "AND active", "CSV").bytes().decode().strip()
        out["disk_mb"] = round(int(size) / 1e6)
        for name, q in QUERIES.items():
            sql = q.format(**DIALECTS["clickhouse"]).replace(" FROM ", " FROM kb.", 1)
            sql = sql.replace("GROUP BY ALL", "GROUP BY ALL")
            out[name], _ = _p50(lambda sql=sql: sess.query(sql, "CSV"), runs)
    finally:
        sess.close()
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench scale")
    ap.add_argument("--messages", type=int, default=5000)
    ap.add_argument("--events", default="1000000,10000000")
    ap.add_argument("--units-max", type=int, default=1_000_000,
                    help="Copy the text (units) only up to about this many units.")
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--chdb-path", default=None)
    ap.add_argument("--keep", action="store_true", help="Keep the work folder.")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.chdb_path:
        sys.path.append(a.chdb_path)
    try:
        import chdb  # noqa: F401
        have_chdb = True
    except ImportError:
        have_chdb = False
    import duckdb

    work = Path(tempfile.mkdtemp(prefix="logkb-scale-"))
    result: dict[str, Any] = {"load": os.getloadavg()[0]}
    try:
        base, result["base"] = base_export(a.messages, work)
        con = duckdb.connect()
        per = {t: con.execute(f"SELECT count(*) FROM read_parquet('{base}/{t}/**/*.parquet')"
                              ).fetchone()[0] for t in TABLES}  # type: ignore[index]
        result["base"]["rows"] = per
        for target in (int(x) for x in a.events.split(",")):
            copies = max(1, -(-target // per["events"]))
            unit_copies = max(1, a.units_max // max(1, per["units"]))
            dst = work / f"x{copies}"
            r: dict[str, Any] = replicate(base, dst, copies, unit_copies)
            r["duckdb_parquet_ms"] = duckdb_queries(dst, a.runs)
            if have_chdb:
                try:
                    r["chdb"] = chdb_queries(dst, a.runs, work)
                except Exception as e:  # noqa: BLE001 - a figure, not a crash: say why
                    r["chdb"] = f"failed: {' '.join(str(e).split())[:300]}"
            else:
                r["chdb"] = "not measured (no chdb)"
            result[str(target)] = r
            shutil.rmtree(dst, ignore_errors=True)
            shutil.rmtree(work / "chdb", ignore_errors=True)
            result["load_after"] = os.getloadavg()[0]
            print(json.dumps({str(target): r}), file=sys.stderr, flush=True)
    finally:
        if not a.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(json.dumps(result, indent=None if a.json else 1))
