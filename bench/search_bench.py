"""Search benchmark: the full-text index beside a DuckDB scan of the same text, and start-up.

    python -m bench search [--events 1000000] [--runs 20] [--json]

The knowledge base is built once and cached in ``bench/data/``: one session of
``--base`` messages from ``bench/gen_session.py`` (deterministic, seed 1) is
ingested, then copied under new session ids until the knowledge base holds
``--events`` events (copying rows in DuckDB takes seconds where ingesting the
same 1M events would take many minutes on this machine; the copies have the
same vocabulary and posting-list shapes as distinct sessions would).  The
index is then built from it as ``logkb rebuild --index`` would.

Printed in one run: per query, the index's p50/p95 in process (``SearchIndex.search``
and ``kb.search.search``, which also checks freshness) and as a command
(``logkb search``, a fresh process each time), beside the DuckDB scan of the same
units; then start-up (``--version``, ``--help``, read commands) beside
``python -c pass``.  The machine's load (``/proc/loadavg``) is printed before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

QUERIES = [
    "routed_scaling_factor",
    "decode steady at",
    "cuda_graph_runner.py",
    "nvidia-smi",
    "tok/s",
    "KeyError: 12",
    "Host key verification failed",
    "sglang*",
    "tail AND sglang_tp8",
    "host:10.1.230.174 kind:result",
]
"""Rare, medium and very common words, phrases, a prefix, a boolean and a filter-only query."""


def load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split(" ", 3)[:3].__str__()
    except OSError:
        return "?"


def build(events: int, base: int) -> Path:
    """The cached knowledge base of at least ``events`` events (built when missing)."""
    from bench.gen_session import write_jsonl
    from kb.ingest import ingest
    from kb.search.index import SearchIndex
    from kb.store import KbStore

    DATA.mkdir(parents=True, exist_ok=True)
    db = DATA / f"search-{events}.duckdb"
    if db.exists() and (DATA / f"search-{events}.ok").exists():
        t = time.perf_counter()
        with KbStore(db, read_only=True) as store:  # an index of an older schema: rebuilt
            r = SearchIndex.for_db(db).sync(store)
        if r["units"]:
            print(f"indexed {r['units']} units in {time.perf_counter() - t:.0f} s",
                  file=sys.stderr)
        return db
    for p in (db, Path(str(db) + ".wal")):
        p.unlink(missing_ok=True)
    shutil.rmtree(str(db) + ".index", ignore_errors=True)
    src = DATA / f"session-search-{base}.jsonl"
    t = time.perf_counter()
    if not src.exists():
        write_jsonl(base, 1, src)
        print(f"generated {src.name} in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    t = time.perf_counter()
    with KbStore(db) as store:
        rep = ingest(store, [src], graph=False)
        sid = rep.sessions[0].session_id
        per = rep.sessions[0].events
        print(f"ingested {base} messages ({per} events) in {time.perf_counter() - t:.0f} s",
              file=sys.stderr)
        t = time.perf_counter()
        copies = max(0, -(-events // per) - 1)
        cols = {}
        for table in ("messages", "calls", "prose", "other_events", "sessions"):
            cols[table] = [r[0] for r in store.conn.execute(
                "SELECT column_name FROM information_schema.columns WHERE table_name = ? "
                "ORDER BY ordinal_position", [table]).fetchall()]
        for i in range(1, copies + 1):
            new = f"{sid[:-6]}copy{i:02d}"
            with store.transaction():
                for table, names in cols.items():
                    sel = ", ".join(
                        "? AS session_id" if c == "session_id"
                        else ("'{}'::JSON AS raw" if (table, c) == ("messages", "raw") else
                              f'"{c}"') for c in names)
                    store.conn.execute(f"INSERT INTO {table} SELECT {sel} FROM {table} "
                                       "WHERE session_id = ?", [new, sid])
        store.conn.execute("CHECKPOINT")
        total = store.conn.execute("SELECT sum(event_count) FROM sessions").fetchone()[0]
        print(f"copied to {copies + 1} sessions, {total} events in "
              f"{time.perf_counter() - t:.0f} s", file=sys.stderr)
    (DATA / f"search-{events}.ok").write_text("ok\n")
    t = time.perf_counter()
    with KbStore(db, read_only=True) as store:
        r = SearchIndex.for_db(db).rebuild(store)
    print(f"indexed {r['units']} units in {time.perf_counter() - t:.0f} s", file=sys.stderr)
    return db


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p * (len(xs) - 1))))]


def timed(fn, runs: int) -> list[float]:  # type: ignore[no-untyped-def]
    fn()  # warm
    out = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
    return out


def run_cmd(argv: list[str], runs: int) -> tuple[list[float], list[float]]:
    """Wall seconds and CPU seconds (user + system) of ``runs`` fresh processes."""
    import resource

    cpu: list[float] = []
    # an installed logkb has its bytecode cached; without it every start compiles the
    # sources again (this sandbox sets PYTHONDONTWRITEBYTECODE)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}

    def once() -> None:
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False,
                       env=env)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)

    wall = timed(once, runs)
    return wall, cpu[1:]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--events", type=int, default=1_000_000)
    ap.add_argument("--base", type=int, default=50_000, help="messages of the ingested session")
    ap.add_argument("--runs", type=int, default=20, help="timed runs per in-process figure")
    ap.add_argument("--cmd-runs", type=int, default=10, help="timed runs per command figure")
    ap.add_argument("--scan-runs", type=int, default=3, help="timed runs per DuckDB scan")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)

    load_before = load()
    db = build(args.events, args.base)

    from kb.search import search
    from kb.search.index import SearchIndex
    from kb.search.query import parse
    from kb.search.scan import scan
    from kb.store import KbStore

    logkb = str(Path(sys.executable).parent / "logkb")
    idx = SearchIndex.for_db(db)
    with KbStore(db, read_only=True) as store:
        events = store.conn.execute("SELECT sum(event_count) FROM sessions").fetchone()[0]
        text_mb = store.conn.execute(
            "SELECT (sum(length(coalesce(output, error))) + sum(length(command))) / 1e6 "
            "FROM calls").fetchone()[0] + store.conn.execute(
            "SELECT sum(length(text)) / 1e6 FROM prose").fetchone()[0]
        idx.sync(store)  # records the file it checked: searches take the fast path
    index_mb = sum(p.stat().st_size for p in Path(str(db) + ".index").iterdir()) / 1e6
    rows = []
    for query in QUERIES:
        node = parse(query)
        hits = len(idx.search(node, limit=50))
        r: dict[str, object] = {"query": query, "hits": hits}
        xs = timed(lambda node=node: idx.search(node, limit=50), args.runs)
        r["index_p50_ms"], r["index_p95_ms"] = pct(xs, .5) * 1e3, pct(xs, .95) * 1e3
        c = time.process_time()
        for _ in range(args.runs):
            idx.search(node, limit=50)
        r["index_cpu_ms"] = (time.process_time() - c) / args.runs * 1e3
        xs = timed(lambda query=query: search(db, query, limit=50), args.runs)
        r["search_p50_ms"], r["search_p95_ms"] = pct(xs, .5) * 1e3, pct(xs, .95) * 1e3
        xs, cpu = run_cmd([logkb, "search", query, "--db", str(db)], args.cmd_runs)
        r["cmd_p50_ms"], r["cmd_p95_ms"] = pct(xs, .5) * 1e3, pct(xs, .95) * 1e3
        r["cmd_cpu_ms"] = statistics.median(cpu) * 1e3
        with KbStore(db, read_only=True) as store:
            xs = timed(lambda node=node: scan(store, node, limit=50), args.scan_runs)
        r["scan_p50_ms"] = statistics.median(xs) * 1e3
        rows.append(r)
        print(f"  {query!r}: index {r['index_p50_ms']:.1f} ms, scan {r['scan_p50_ms']:.0f} ms",
              file=sys.stderr)
    py = run_cmd([sys.executable, "-c", "pass"], args.cmd_runs)
    startup = {"python -c pass": py,
               "logkb --version": run_cmd([logkb, "--version"], args.cmd_runs),
               "logkb --help": run_cmd([logkb, "--help"], args.cmd_runs),
               "logkb sessions": run_cmd([logkb, "sessions", "--db", str(db)], args.cmd_runs),
               "logkb events --limit 20": run_cmd(
                   [logkb, "events", "--limit", "20", "--db", str(db)], args.cmd_runs),
               "logkb show 5": run_cmd([logkb, "show", "5", "--db", str(db)], args.cmd_runs)}
    base = statistics.median(py[0])
    base_cpu = statistics.median(py[1])
    result = {"events": events, "text_mb": round(text_mb, 1), "index_mb": round(index_mb, 1),
              "cores": os.cpu_count(), "load_before": load_before, "load_after": load(),
              "queries": rows,
              "startup": {k: {"p50_ms": statistics.median(v[0]) * 1e3,
                              "x_python": statistics.median(v[0]) / base,
                              "cpu_ms": statistics.median(v[1]) * 1e3,
                              "cpu_x_python": statistics.median(v[1]) / base_cpu}
                          for k, v in startup.items()}}
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"search at {events:,} events ({text_mb:.0f} MB of text, index {index_mb:.0f} MB); "
          f"load {load_before} → {result['load_after']} on {os.cpu_count()} cores")
    print("ms; index = SearchIndex.search in process, search() = kb.search.search (checks "
          "freshness too), command = `logkb search` wall (CPU), scan = the DuckDB scan")
    print(f"{'query':<32} {'hits':>4} {'index p50/p95 (cpu)':>20} {'search() p50/p95':>17} "
          f"{'command p50/p95 (cpu)':>22} {'scan p50':>9}")
    for r in rows:
        print(f"{str(r['query']):<32} {r['hits']:>4} "
              f"{r['index_p50_ms']:>7.1f}/{r['index_p95_ms']:<6.1f} ({r['index_cpu_ms']:>4.1f}) "
              f"{r['search_p50_ms']:>9.1f}/{r['search_p95_ms']:<7.1f} "
              f"{r['cmd_p50_ms']:>8.0f}/{r['cmd_p95_ms']:<5.0f} ({r['cmd_cpu_ms']:>4.0f}) "
              f"{r['scan_p50_ms']:>9.0f}")
    print(f"\n{'start-up':<26} {'wall p50':>9} {'× pass':>7} {'cpu p50':>8} {'× pass':>7}")
    for k, v in result["startup"].items():  # type: ignore[union-attr]
        print(f"{k:<26} {v['p50_ms']:>7.0f}ms {v['x_python']:>6.1f}× {v['cpu_ms']:>6.0f}ms "
              f"{v['cpu_x_python']:>6.1f}×")


if __name__ == "__main__":
    main()
