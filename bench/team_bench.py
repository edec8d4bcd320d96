"""Team benchmark: `logkb push` of a long session beside its local ingest, and team search.

    python -m bench team [--messages 20000] [--events 1000000] [--runs 20]
                         [--deadend-sessions 100] [--only-deadends] [--json]

Starts a throwaway PostgreSQL cluster on a random loopback port (Debian's
``postgresql``, as the team tests do), creates the schema and a member, then:

1. ingests a generated session of ``--messages`` messages (``bench/gen_session.py``,
   seed 1) with ``logkb ingest`` and derives its graph (``logkb deadends --all``);
2. pushes it with ``logkb push --all`` into the empty server, then again with
   ``--force`` (a replacement: delete and copy in one transaction); each a fresh process;
3. copies the pushed rows on the server under new scope ids (as the owner, in SQL)
   until it holds ``--events`` events, and times ``kb.team.read.search`` as the member
   (row-level security on) for each query: p50/p95 over ``--runs``; and
   ``deadends --team`` over every copied scope;
4. in a second database, pushes a real session with dead ends and copies it to
   ``--deadend-sessions`` scopes (100): ``deadends --team`` in process (p50/p95) and
   as a fresh ``logkb deadends --team --json`` process (``--only-deadends``: only this).

The cluster is stopped and removed at the end.  Nothing leaves 127.0.0.1.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
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

QUERIES = ["routed_scaling_factor", "decode steady at", "cuda_graph_runner.py",
           "nvidia-smi", "tok/s", "KeyError: 12", "Host key verification failed",
           "sglang OR vllm", "aten_matmul"]
"""Rare, medium and very common words, phrases, an OR and a substring (trigram) query."""

DASHBOARD = {
    "events per team, day and kind":
        "SELECT e.team, to_timestamp(s.time_created / 1000)::date AS day, e.kind, count(*) "
        "FROM logkb.events e JOIN logkb.sessions s USING (team, pusher, session_id) "
        "GROUP BY 1, 2, 3 ORDER BY 4 DESC LIMIT 50",
    "top error signatures (sessions, people)":
        "SELECT error_signature, count(*), count(DISTINCT scope), count(DISTINCT pusher) "
        "FROM logkb.events WHERE error_signature IS NOT NULL GROUP BY 1 ORDER BY 2 DESC "
        "LIMIT 20",
    "sessions, messages and cost per team and week":
        "SELECT team, date_trunc('week', to_timestamp(time_created / 1000)) AS week, "
        "count(*), sum(messages), sum(coalesce(cost, 0)) FROM logkb.sessions "
        "GROUP BY 1, 2 ORDER BY 2, 1",
    "dead ends by cause":
        "SELECT item->>'cause', count(*) FROM logkb.items WHERE kind = 'deadend' "
        "GROUP BY 1 ORDER BY 2 DESC LIMIT 20",
    "throughput measurements per unit (p50, max)":
        "SELECT unit, count(*), percentile_cont(0.5) WITHIN GROUP (ORDER BY value), "
        "max(value) FROM logkb.measurements GROUP BY 1 ORDER BY 2 DESC LIMIT 20",
}
"""The team dashboard's questions of ``bench scale`` in PostgreSQL's words (run as the
member: row-level security on)."""

COPIED = ("sessions", "messages", "events", "units", "items", "measurements",
          "graph_nodes", "graph_edges", "scopes")


def logkb(*args: str) -> tuple[float, subprocess.CompletedProcess[str]]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "kb", *args], capture_output=True, text=True,
                       env=env, cwd=ROOT)
    if r.returncode != 0:
        raise SystemExit(f"logkb {' '.join(args)} failed: {r.stderr}")
    return time.perf_counter() - t, r


def one(conn: Any, sql: str, params: Any = None) -> Any:
    """The first row of a query."""
    row = conn.execute(sql, params).fetchone()
    assert row is not None
    return row


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def copy_scopes(conn: Any, scope: str, copies: int) -> None:
    """Copy one pushed scope's rows to ``copies`` new scope ids (as the owner, in SQL)."""
    for i in range(1, copies + 1):
        new = f"{scope}-copy{i:03d}"
        with conn.transaction():
            for table in COPIED:
                cols = [x[0] for x in conn.execute(
                    "SELECT column_name FROM information_schema.columns WHERE "
                    "table_schema = 'logkb' AND table_name = %s AND is_generated "
                    "= 'NEVER' ORDER BY ordinal_position", [table])]
                sel = ", ".join(
                    "%(new)s" if col == "scope" or col == "session_id"
                    else f'"{col}"' for col in cols)
                conn.execute(f"INSERT INTO logkb.{table} SELECT {sel} FROM "
                             f"logkb.{table} WHERE scope = %(old)s",
                             {"new": new, "old": scope})


def deadends_over(c: Any, sessions: int, runs: int) -> dict[str, Any]:
    """``deadends --team`` over ``sessions`` pushed sessions: a real session with dead ends
    (and their causes) pushed by a member, its rows copied to the other scopes."""
    import psycopg

    from kb.team import read

    with psycopg.connect(c.url(), autocommit=True) as conn:
        conn.execute("CREATE DATABASE bench_deadends")
    admin, member = c.url("postgres", "bench_deadends"), c.url("bench_member", "bench_deadends")
    logkb("team", "init", admin, "--name", "bench")
    logkb("team", "add-member", admin, "bench_member", "--team-name", "bench")
    work = Path(tempfile.mkdtemp(prefix="logkb-teambench-dead-"))
    try:
        db = work / "kb.duckdb"
        src = ROOT.parent / "shared" / "realworld" / "labelled" / "Valdyum-Labs__codex-session.jsonl"
        logkb("ingest", "--db", str(db), str(src))
        logkb("push", "--team", member, "--all", "--db", str(db))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    with psycopg.connect(admin, autocommit=True) as conn:
        scope = one(conn, "SELECT scope FROM logkb.scopes")[0]
        copy_scopes(conn, scope, sessions - 1)
        conn.execute("VACUUM ANALYZE")
        items = one(conn, "SELECT count(*) FROM logkb.items")[0]
    conn, teams = read.open_read(member, None)
    try:
        times = []
        for _ in range(runs):
            t = time.perf_counter()
            found = read.items(conn, teams, "deadend")
            times.append((time.perf_counter() - t) * 1000)
    finally:
        conn.close()
    cmd = []
    for _ in range(max(3, runs // 4)):
        s, r = logkb("deadends", "--team-url", member, "--json")
        cmd.append(s)
    return {"sessions": sessions, "items_on_server": items, "deadends": len(found),
            "query_p50_ms": round(statistics.median(times), 1),
            "query_p95_ms": round(pct(times, 0.95), 1),
            "command_p50_s": round(statistics.median(cmd), 2)}


def main(argv: list[str]) -> None:
    import psycopg

    from bench.gen_session import write_jsonl
    from kb.team import read
    from tests.team import cluster as pg

    ap = argparse.ArgumentParser(prog="python -m bench team")
    ap.add_argument("--messages", type=int, default=20000)
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--deadend-sessions", type=int, default=100,
                    help="Sessions on the server for the deadends --team figure.")
    ap.add_argument("--only-deadends", action="store_true",
                    help="Only the deadends --team figure (no 20k-message push).")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    if a.only_deadends:
        c = pg.start()
        try:
            print(json.dumps({"deadends_team": deadends_over(c, a.deadend_sessions, a.runs)}))
        finally:
            c.stop()
        return
    out: dict[str, Any] = {"messages": a.messages}
    DATA.mkdir(parents=True, exist_ok=True)
    src = DATA / f"session-team-{a.messages}.jsonl"
    if not src.exists():
        write_jsonl(a.messages, 1, src)
    work = Path(tempfile.mkdtemp(prefix="logkb-teambench-"))
    db = work / "kb.duckdb"
    out["ingest_s"], _ = logkb("ingest", "--db", str(db), str(src))
    out["graph_s"], _ = logkb("deadends", "--all", "--db", str(db))
    c = pg.start()
    try:
        with psycopg.connect(c.url(), autocommit=True) as conn:
            conn.execute("CREATE DATABASE bench")
        admin, member = c.url("postgres", "bench"), c.url("bench_member", "bench")
        logkb("team", "init", admin, "--name", "bench")
        logkb("team", "add-member", admin, "bench_member", "--team-name", "bench")
        out["push_s"], r = logkb("push", "--team", member, "--all", "--db", str(db), "--json")
        sent = json.loads(r.stdout)
        out["push_rows"] = sent["rows"]
        out["push_again_s"], _ = logkb("push", "--team", member, "--all", "--force",
                                       "--db", str(db))
        out["push_vs_ingest"] = round(float(out["push_s"]) / float(out["ingest_s"]), 2)
        with psycopg.connect(admin, autocommit=True) as conn:
            scope, per = one(conn, "SELECT scope, events FROM logkb.scopes")
            copies = max(0, -(-a.events // per) - 1)
            t = time.perf_counter()
            copy_scopes(conn, scope, copies)
            conn.execute("VACUUM ANALYZE")
            out["copy_s"] = round(time.perf_counter() - t, 1)
            out["server_events"] = one(conn, "SELECT count(*) FROM logkb.events")[0]
            out["server_units"] = one(conn, "SELECT count(*) FROM logkb.units")[0]
            out["server_scopes"] = copies + 1
            out["db_size"] = one(conn, "SELECT pg_size_pretty(pg_database_size('bench'))")[0]
        conn, teams = read.open_read(member, None)
        per_query: dict[str, dict[str, Any]] = {}
        try:
            for q in QUERIES:
                times = []
                for _ in range(a.runs):
                    t = time.perf_counter()
                    hits, engine = read.search(conn, teams, q, limit=50)
                    times.append((time.perf_counter() - t) * 1000)
                per_query[q] = {"p50_ms": round(statistics.median(times), 1),
                                "p95_ms": round(pct(times, 0.95), 1), "hits": len(hits),
                                "engine": engine}
            times = []
            for _ in range(max(3, a.runs // 4)):
                t = time.perf_counter()
                items = read.items(conn, teams, "deadend")
                times.append((time.perf_counter() - t) * 1000)
            out["deadends_team_ms"] = {"p50": round(statistics.median(times), 1),
                                       "items": len(items)}
        finally:
            conn.close()
        out["search"] = per_query
        conn, teams = read.open_read(member, None)
        try:
            dash = {}
            for name, sql in DASHBOARD.items():
                times = []
                for _ in range(max(3, a.runs // 4)):
                    t = time.perf_counter()
                    conn.execute(sql).fetchall()
                    times.append((time.perf_counter() - t) * 1000)
                dash[name] = round(statistics.median(times), 1)
            out["dashboard_ms"] = dash
        finally:
            conn.close()
        out["search_p50_ms"] = round(statistics.median(
            float(v["p50_ms"]) for v in per_query.values()), 1)
        cmd_s, _ = logkb("search", "--team-url", member, "decode steady at", "--json")
        out["search_command_s"] = round(cmd_s, 2)
        out["deadends_team"] = deadends_over(c, a.deadend_sessions, a.runs)
    finally:
        c.stop()
        shutil.rmtree(work, ignore_errors=True)
    if a.json:
        print(json.dumps(out))
        return
    for k, v in out.items():
        if k == "search":
            continue
        print(f"{k:>18}: {v if not isinstance(v, float) else round(v, 2)}")
    print(f"{'query':<32} {'p50 ms':>8} {'p95 ms':>8} {'hits':>5} engine")
    for q, v in per_query.items():
        print(f"{q:<32} {v['p50_ms']:>8} {v['p95_ms']:>8} {v['hits']:>5} {v['engine']}")
