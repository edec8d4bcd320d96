"""Many small files: ``logkb ingest DIR`` over N one-message transcripts (issue 24: a
directory of 10,000 of them took over 10 minutes, 15 files/s; the target is >= 500/s).

    python -m bench many [--files 10000] [--json] [--profile OUT.svg]

Each file is an opencode JSONL session of one user message (the generator's own
builder), written to a temporary directory; the ingest runs in a fresh subprocess
(``python -m kb ingest DIR``) and its wall time, files per second and peak RSS are
printed, with its CPU time (user + system, the derive workers included): files per
CPU second is the figure to compare on a busy machine.  Then the same ingest again,
nothing changed (``rerun_s``, ``rerun_cpu_s``: the stat pass).  ``--profile`` runs it under py-spy (``pip install py-spy``) instead.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def write_files(d: Path, n: int) -> None:
    from fixtures.opencode_builder import BuildContext, SessionBuilder
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(24), directory="/home/dev/many", project_id="ab" * 20)
    for i in range(n):
        s = SessionBuilder(ctx, title=f"small session {i}", start_ms=1_790_000_000_000 + i)
        s.user(f"question number {i}: why does the build fail?")
        write_jsonl(s.tree(), d / f"s{i:05d}.jsonl")


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench many")
    ap.add_argument("--files", type=int, default=10_000)
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--profile", type=Path, default=None)
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="logkb-many-") as tmp:
        d = Path(tmp) / "in"
        d.mkdir()
        t = time.perf_counter()
        write_files(d, a.files)
        gen = time.perf_counter() - t
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env.update(PYTHONPATH=str(ROOT), HOME=str(Path(tmp) / "home"))
        cmd = [sys.executable, "-m", "kb", "ingest", "--json", "--db", str(Path(tmp) / "kb.duckdb"),
               str(d)]
        if a.profile is not None:
            cmd = ["py-spy", "record", "--subprocesses", "-o", str(a.profile), "--", *cmd]
        t = time.perf_counter()
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t
        use = resource.getrusage(resource.RUSAGE_CHILDREN)
        rss = use.ru_maxrss // 1024
        cpu = use.ru_utime + use.ru_stime
        sessions = len(json.loads(r.stdout)["sessions"]) if r.stdout.strip() else 0
        again: dict[str, object] = {}
        if a.profile is None:  # the same ingest with nothing changed: a stat pass
            t = time.perf_counter()
            r2 = subprocess.run(cmd, env=env, capture_output=True, text=True)
            wall2 = time.perf_counter() - t
            use2 = resource.getrusage(resource.RUSAGE_CHILDREN)
            again = {"rerun_s": round(wall2, 2), "rerun_cpu_s": round(
                use2.ru_utime + use2.ru_stime - cpu, 2), "rerun_unchanged": len(
                json.loads(r2.stdout)["unchanged"]) if r2.stdout.strip() else 0}
    res = {"files": a.files, "sessions": sessions, "seconds": round(wall, 2),
           "files_per_s": round(a.files / wall, 1), "cpu_s": round(cpu, 2),
           "files_per_cpu_s": round(a.files / cpu, 1), "peak_rss_mb": rss, "exit": r.returncode,
           "generate_s": round(gen, 1), **again, "load": os.getloadavg()[0]}
    if a.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:>12}: {v}")
    if r.returncode != 0:
        sys.stderr.write(r.stderr[-2000:])


if __name__ == "__main__":
    main()
