"""Ingest benchmark: logkb's ingest beside orjson's bare parse of the same bytes.

    python -m bench ingest [--sizes 10000,100000] [--forms jsonl,export]

Sessions come from ``bench/gen_session.py`` (deterministic; cached in
``bench/data/``).  Every measurement runs in a fresh subprocess so that its peak
RSS is its own (the derive workers' CPU and largest RSS are reported beside it),
after a ``sync``, with the load average noted (the figures mean little on a busy
machine).  Figures go to stdout as a table (and ``--json``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"

BARE = r"""
import orjson, resource, sys, time
path, form = sys.argv[1], sys.argv[2]
t = time.perf_counter()
if form == "export":
    doc = orjson.loads(open(path, "rb").read())
    n = len(doc["messages"])
else:
    n = 0
    with open(path, "rb") as f:
        for line in f:
            orjson.loads(line)
            n += 1
dt = time.perf_counter() - t
print(orjson.dumps({"seconds": dt, "messages": n,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}).decode())
"""

INGEST = r"""
import orjson, os, resource, sys, time
from pathlib import Path
t0 = time.perf_counter()
from kb.store import KbStore
from kb.ingest import ingest
path, db, force = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
store = KbStore(db)
c = os.times()
t = time.perf_counter()
report = ingest(store, [Path(path)], force=force, graph=False)  # graph: bench graph
dt = time.perf_counter() - t
c2 = os.times()
store.close()
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
print(orjson.dumps({"seconds": dt, "messages": sum(s.messages for s in report.sessions),
    "new": report.new_messages, "unchanged": len(report.unchanged),
    "problems": len(report.problems), "import_rss_mb": base_rss,
    "cpu_s": c2.user - c.user + c2.system - c.system,
    "worker_cpu_s": c2.children_user - c.children_user + c2.children_system - c.children_system,
    "worker_rss_mb": kids.ru_maxrss / 1024,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}).decode())
"""


def generate(messages: int, form: str) -> Path:
    DATA.mkdir(exist_ok=True)
    out = DATA / f"session-{messages}.{'json' if form == 'export' else 'jsonl'}"
    if not out.exists():
        subprocess.run(
            [
                sys.executable,
                str(HERE / "gen_session.py"),
                "--messages",
                str(messages),
                "--form",
                form,
                str(out),
            ],
            check=True,
        )
    return out


def child(code: str, *args: str) -> dict[str, float]:
    os.sync()  # the last run's writes would slow this one's (the disk is shared)
    load = os.getloadavg()[0]
    out = subprocess.run(
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True
    )
    result = json.loads(out.stdout.strip().splitlines()[-1])
    result["load"] = max(load, os.getloadavg()[0])
    return result


def best(runs: int, code: str, *args: str) -> dict[str, float]:
    results = [child(code, *args) for _ in range(runs)]
    return min(results, key=lambda r: r["seconds"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench ingest")
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--forms", default="jsonl,export")
    ap.add_argument("--runs", type=int, default=3, help="best of N for each figure")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    rows = []
    for form in args.forms.split(","):
        for n in (int(x) for x in args.sizes.split(",")):
            src = generate(n, form)
            mb = src.stat().st_size / 1e6
            bare = best(args.runs, BARE, str(src), form)
            with tempfile.TemporaryDirectory() as tmp:
                fresh = []
                for i in range(args.runs):
                    fresh.append(child(INGEST, str(src), f"{tmp}/kb{i}.duckdb", "0"))
                first = min(fresh, key=lambda r: r["seconds"])
                again = child(INGEST, str(src), f"{tmp}/kb0.duckdb", "0")
                forced = child(INGEST, str(src), f"{tmp}/kb0.duckdb", "1")
            rows.append(
                {
                    "form": form,
                    "messages": n,
                    "source_mb": round(mb, 1),
                    "orjson_s": round(bare["seconds"], 3),
                    "ingest_s": round(first["seconds"], 3),
                    "ratio": round(first["seconds"] / bare["seconds"], 2),
                    "msgs_per_s": round(n / first["seconds"]),
                    "cpu_s": round(first["cpu_s"], 2),
                    "worker_cpu_s": round(first["worker_cpu_s"], 2),
                    "load": round(first["load"], 1),
                    "peak_rss_mb": round(first["rss_mb"]),
                    "worker_rss_mb": round(first["worker_rss_mb"]),
                    "import_rss_mb": round(first["import_rss_mb"]),
                    "rss_over_source": round(first["rss_mb"] / mb, 2),
                    "reingest_unchanged_s": round(again["seconds"], 3),
                    "reingest_forced_s": round(forced["seconds"], 3),
                    "forced_new_messages": forced["new"],
                }
            )
            print(_fmt(rows[-1]), file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        cols = list(rows[0])
        print(" | ".join(cols))
        for r in rows:
            print(" | ".join(str(r[c]) for c in cols))


def _fmt(r: dict[str, object]) -> str:
    return (
        f"{r['form']:>6} {r['messages']:>7} msgs {r['source_mb']:>6} MB: orjson "
        f"{r['orjson_s']}s, logkb {r['ingest_s']}s ({r['ratio']}x, "
        f"{r['msgs_per_s']} msg/s; CPU {r['cpu_s']}s + workers {r['worker_cpu_s']}s; load "
        f"{r['load']}), peak RSS {r['peak_rss_mb']} MB (+ workers {r['worker_rss_mb']} MB each)"
    )


if __name__ == "__main__":
    main()
