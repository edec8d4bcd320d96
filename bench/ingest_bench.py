"""Ingest benchmark: logkb's ingest beside orjson's bare parse of the same bytes.

    python -m bench ingest [--sizes 10000,100000] [--forms jsonl,export,legacy]
                           [--ccusage PATH]

Sessions come from ``bench/gen_session.py`` (deterministic; cached in
``bench/data/``); the ``legacy`` form is the JSONL session written out as opencode
1.1's ``storage/`` tree (a file per message and per part).  Every measurement runs
in a fresh subprocess so that its peak RSS is its own (the derive workers' CPU and
largest RSS are reported beside it), after a ``sync``, with the load average noted
(the figures mean little on a busy machine).  Beside the bare parse:

* for ``jsonl``, DuckDB's own ``read_ndjson`` of the file into a table on disk;
* for ``legacy``, ccusage's opencode reader (``@ccusage/opencode``) on the same tree
  when ``--ccusage`` names its ``ccusage-opencode`` executable.  The bench installs
  nothing: install it first (``npm install --prefix bench/data/ccusage
  @ccusage/opencode``); it runs inside ``unshare -n`` (loopback only), since it may
  try to fetch model prices.

Figures go to stdout as a table (and ``--json``).
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

ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
"""An installed logkb has its bytecode cached; this sandbox sets PYTHONDONTWRITEBYTECODE,
with which the ingesting process and each derive worker compiled the sources again at
every start (about 1.3 s of CPU each, 10 % of the 100k ingest's CPU).  The first run of
each figure writes the cache (:func:`main` compiles the sources once before it)."""

BARE = r"""
import orjson, os, resource, sys, time
path, form = sys.argv[1], sys.argv[2]
t = time.perf_counter()
if form == "export":
    doc = orjson.loads(open(path, "rb").read())
    n = len(doc["messages"])
elif form == "legacy":
    n = 0
    for root, _, files in os.walk(path):
        for name in files:
            if name.endswith(".json"):
                with open(os.path.join(root, name), "rb") as f:
                    orjson.loads(f.read())
                n += root.split(os.sep)[-2:-1] == ["message"]
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


NDJSON = r"""
import duckdb, orjson, os, resource, sys, time
path, db = sys.argv[1], sys.argv[2]
for old in (db, db + ".wal"):
    if os.path.exists(old):
        os.remove(old)  # each run into a fresh file
con = duckdb.connect(db)
t = time.perf_counter()
con.execute("CREATE TABLE m AS SELECT * FROM read_ndjson(?)", [path])
n = con.execute("SELECT count(*) FROM m").fetchone()[0]
con.close()
dt = time.perf_counter() - t
print(orjson.dumps({"seconds": dt, "messages": n,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}).decode())
"""


def legacy_tree(messages: int) -> Path:
    """The JSONL session as opencode 1.1's ``storage/`` tree (cached in ``bench/data/``)."""
    src = generate(messages, "jsonl")
    out = DATA / f"legacy-{messages}"
    storage = out / "storage"
    if (out / "done").exists():
        return storage
    import shutil

    import orjson

    sys.path.insert(0, str(HERE.parent))
    from fixtures.opencode_writer import (
        LEGACY_MIGRATION_MARK,
        dumps_pretty,
        legacy_message,
        legacy_part,
        legacy_session,
    )

    shutil.rmtree(out, ignore_errors=True)
    storage.mkdir(parents=True)
    (storage / "migration").write_text(LEGACY_MIGRATION_MARK)
    first = last = None
    with src.open("rb") as fh:
        for line in fh:
            msg = orjson.loads(line)
            info = msg["info"]
            first = first or info
            last = info
            mdir = storage / "message" / info["sessionID"]
            mdir.mkdir(parents=True, exist_ok=True)
            (mdir / f"{info['id']}.json").write_bytes(
                dumps_pretty(legacy_message(info), newline=False))
            pdir = storage / "part" / info["id"]
            pdir.mkdir(parents=True, exist_ok=True)
            for part in msg["parts"]:
                (pdir / f"{part['id']}.json").write_bytes(
                    dumps_pretty(legacy_part(part), newline=False))
    assert first is not None and last is not None
    sid, project = first["sessionID"], "bench0000000000000000000000000000000000000"
    session = {"id": sid, "slug": "bench", "projectID": project,
               "directory": first.get("path", {}).get("cwd", "/home/dev/bench"),
               "title": "ingest bench", "time": {"created": first["time"]["created"],
                                                 "updated": last["time"]["created"]}}
    sdir = storage / "session" / project
    sdir.mkdir(parents=True)
    (sdir / f"{sid}.json").write_bytes(dumps_pretty(legacy_session(session), newline=False))
    (out / "done").write_text("")
    return storage


def ccusage(exe: str, storage: Path) -> dict[str, float]:
    """ccusage's opencode session report of ``storage``: wall and CPU time, peak RSS."""
    import resource
    import time

    os.sync()
    load = os.getloadavg()[0]
    env = dict(os.environ, OPENCODE_DATA_DIR=str(storage.parent))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    out = subprocess.run(["unshare", "-n", exe, "session", "--json"], env=env, check=True,
                         capture_output=True, text=True)
    dt = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    json.loads(out.stdout)  # it read the tree
    return {"seconds": dt, "cpu_s": after.ru_utime - before.ru_utime
            + after.ru_stime - before.ru_stime, "rss_mb": after.ru_maxrss / 1024,
            "load": max(load, os.getloadavg()[0])}


def generate(messages: int, form: str) -> Path:
    if form == "legacy":
        return legacy_tree(messages)
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
        [sys.executable, "-c", code, *args], check=True, capture_output=True, text=True,
        env=ENV)
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
    ap.add_argument("--ccusage", metavar="PATH",
                    help="ccusage-opencode executable, run beside the legacy form")
    args = ap.parse_args(argv)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(HERE.parent / "kb"),
                    str(HERE.parent / "logparse")], check=True, env=ENV,
                   stdout=subprocess.DEVNULL)
    rows = []
    for form in args.forms.split(","):
        for n in (int(x) for x in args.sizes.split(",")):
            src = generate(n, form)
            mb = (sum(f.stat().st_size for f in src.rglob("*.json")) if form == "legacy"
                  else src.stat().st_size) / 1e6
            bare = best(args.runs, BARE, str(src), form)
            extra: dict[str, object] = {}
            if form == "jsonl":
                with tempfile.TemporaryDirectory() as tmp:
                    nd = best(args.runs, NDJSON, str(src), f"{tmp}/nd.duckdb")
                extra["read_ndjson_s"] = round(nd["seconds"], 3)
            if form == "legacy" and args.ccusage:
                cc = min((ccusage(args.ccusage, src) for _ in range(args.runs)),
                         key=lambda r: r["seconds"])
                extra |= {"ccusage_s": round(cc["seconds"], 3),
                          "ccusage_cpu_s": round(cc["cpu_s"], 2),
                          "ccusage_rss_mb": round(cc["rss_mb"])}
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
            r = rows[-1]
            if "read_ndjson_s" in extra:
                extra["ratio_to_read_ndjson"] = round(first["seconds"] / nd["seconds"], 2)
            if "ccusage_s" in extra:
                extra["ratio_to_ccusage"] = round(first["seconds"] / cc["seconds"], 2)
                extra["cpu_ratio_to_ccusage"] = round(
                    (first["cpu_s"] + first["worker_cpu_s"]) / max(cc["cpu_s"], 1e-9), 2)
            r.update(extra)
            print(_fmt(rows[-1]), file=sys.stderr, flush=True)
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        cols = list(dict.fromkeys(c for r in rows for c in r))
        print(" | ".join(cols))
        for r in rows:
            print(" | ".join(str(r.get(c, "")) for c in cols))


def _fmt(r: dict[str, object]) -> str:
    line = (
        f"{r['form']:>6} {r['messages']:>7} msgs {r['source_mb']:>6} MB: orjson "
        f"{r['orjson_s']}s, logkb {r['ingest_s']}s ({r['ratio']}x, "
        f"{r['msgs_per_s']} msg/s; CPU {r['cpu_s']}s + workers {r['worker_cpu_s']}s; load "
        f"{r['load']}), peak RSS {r['peak_rss_mb']} MB (+ workers {r['worker_rss_mb']} MB each)"
    )
    if "read_ndjson_s" in r:
        line += f"; DuckDB read_ndjson {r['read_ndjson_s']}s ({r['ratio_to_read_ndjson']}x)"
    if "ccusage_s" in r:
        line += (f"; ccusage {r['ccusage_s']}s, CPU {r['ccusage_cpu_s']}s "
                 f"(logkb {r['ratio_to_ccusage']}x wall, {r['cpu_ratio_to_ccusage']}x CPU)")
    return line


if __name__ == "__main__":
    main()
