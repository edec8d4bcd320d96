"""Two ``logkb`` builds A/B, interleaved, on ``bench home``'s home (issue 28): CPU time
(user + system of the process and the workers it waited for), peak RSS and wall of
``logkb ingest`` into a fresh knowledge base, and of the warm re-run (nothing changed).

    python -m bench ab --a /work/bin/logkb-main --b /work/bin/logkb-speed
                       [--copies 50] [--pairs 3] [--wait] [--warm N]

Each pair runs A then B, the next pair B then A (the order alternates, so a load that
drifts falls on both), each run a fresh process into a fresh knowledge base with
``HOME`` at the home.  ``--warm N`` then re-runs ``logkb ingest`` N times on each
build's knowledge base with nothing changed (alternating too).  Medians are reported;
on a shared machine read the CPU, not the wall.  The home is ``bench home``'s
(``bench/data/home-pool-N``, built when missing and kept).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from bench.home_bench import build_home


def _run(cmd: list[str], env: dict[str, str]) -> dict[str, float]:
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    out = p.stdout.read() if p.stdout else b""
    _, status, ru = os.wait4(p.pid, 0)
    p.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - t
    if p.returncode not in (0, 1):
        raise SystemExit(f"{cmd[0]} exited {p.returncode}")
    msgs = 0
    for line in out.decode().splitlines():
        if line.startswith("{"):
            msgs = sum(int(s.get("messages", 0)) for s in json.loads(line).get("sessions", []))
    return {"cpu": ru.ru_utime + ru.ru_stime, "rss_mib": ru.ru_maxrss / 1024, "wall": wall,
            "messages": msgs, "load": os.getloadavg()[0]}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench ab")
    ap.add_argument("--a", required=True, help="logkb executable A (the before)")
    ap.add_argument("--b", required=True, help="logkb executable B (the after)")
    ap.add_argument("--copies", type=int, default=50)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--wait", action="store_true", help="ingest --wait")
    ap.add_argument("--warm", type=int, default=0, help="warm re-runs per build")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    home = build_home(a.copies)
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR",
                        "CODEX_HOME", "LOGKB_DB", "PYTHONPATH")}
    env["HOME"] = str(home)
    builds = {"A": a.a, "B": a.b}
    res: dict[str, list[dict[str, float]]] = {"A": [], "B": [], "A warm": [], "B warm": []}
    with tempfile.TemporaryDirectory(prefix="logkb-ab-") as tmp:
        for i in range(a.pairs):
            for k in (("A", "B") if i % 2 == 0 else ("B", "A")):
                db = Path(tmp) / f"{k}.duckdb"
                for f in Path(tmp).glob(f"{k}.duckdb*"):  # the file, its log, its index
                    shutil.rmtree(f) if f.is_dir() else f.unlink()
                r = _run([builds[k], "ingest", "--json", "--no-progress",
                          *(["--wait"] if a.wait else []), "--db", str(db)], env)
                res[k].append(r)
                print(f"{k} ingest: cpu {r['cpu']:.2f} s, {1000 * r['cpu'] / max(r['messages'], 1):.3f}"
                      f" ms/msg, rss {r['rss_mib']:.0f} MiB, wall {r['wall']:.1f} s, "
                      f"load {r['load']:.1f}", flush=True)
        for i in range(a.warm):
            for k in (("A", "B") if i % 2 == 0 else ("B", "A")):
                r = _run([builds[k], "ingest", "--json", "--no-progress",
                          "--db", str(Path(tmp) / f"{k}.duckdb")], env)
                res[f"{k} warm"].append(r)
    summary = {}
    for k, runs in res.items():
        if not runs:
            continue
        med = {f: statistics.median(r[f] for r in runs) for f in ("cpu", "rss_mib", "wall", "load")}
        msgs = max(r["messages"] for r in runs)
        med["ms_per_msg"] = 1000 * med["cpu"] / msgs if msgs else 0.0
        med["runs"] = len(runs)
        med["cpu_all"] = [round(r["cpu"], 3) for r in runs]  # type: ignore[assignment]
        summary[k] = med
    if a.json:
        print(json.dumps(summary))
    else:
        for k, m in summary.items():
            print(f"{k:>7}: cpu {m['cpu']:.3f} s ({m['ms_per_msg']:.3f} ms/msg), rss "
                  f"{m['rss_mib']:.0f} MiB, wall {m['wall']:.2f} s, load {m['load']:.1f}, "
                  f"runs {m['cpu_all']}")


if __name__ == "__main__":
    main()
