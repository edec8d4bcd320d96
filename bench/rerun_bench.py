"""Re-runs, appends and ``watch`` (issue 28's incremental targets).

    python -m bench rerun [--pool DIR] [--messages 100000] [--append 100]
                          [--agent opencode|claude-code|codex]
                          [--changes 20] [--only rerun,append,watch] [--json]

* **rerun**: ``logkb ingest DIR`` with nothing changed since the last (the real pool
  ``../shared/realworld/pool`` by default), in a fresh process: wall and CPU seconds,
  beside the same process doing nothing (``logkb --help``: interpreter and imports),
  so what the stat pass itself costs shows.  Target: about a stat per file.
* **append**: an opencode JSONL session of ``--messages`` messages (``bench/gen_session.py``,
  cached in ``bench/data/``) ingested, ``--append`` more messages appended to the file,
  and ``logkb ingest FILE`` timed in a fresh process.  Target: <= 1 s.  With ``--agent
  claude-code`` or ``codex`` the session is a Claude Code transcript or Codex rollout
  (``bench/gen_agents.py``, the append-only forms): ``--messages`` and ``--append`` then
  count lines (an API response is several lines), and ``new`` says how many messages
  the appended lines derived.
* **watch**: ``logkb watch --json DIR`` over a small session; ``--changes`` times one
  message is appended (a word of its own in it), and the bench notes when watch reports
  it ingested and when an in-process search first finds the word.  Target: p50 <= 1 s,
  p95 <= 2 s from the write to the search that finds it.

Every figure is wall time on whatever the machine is doing: the load average is noted.
"""

from __future__ import annotations

import argparse
import json
import os
import queue
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
POOL = ROOT.parent / "shared" / "realworld" / "pool"
ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
ENV["PYTHONPATH"] = str(ROOT)


def _timed(args: list[str], home: Path) -> tuple[float, float, subprocess.CompletedProcess[str]]:
    """Wall and CPU seconds (user + system) of ``python -m kb ARGS`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run([sys.executable, "-m", "kb", *args], env={**ENV, "HOME": str(home)},
                       capture_output=True, text=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, r


def rerun(pool: Path, tmp: Path, runs: int = 3) -> dict[str, object]:
    db = str(tmp / "rerun.duckdb")
    _timed(["ingest", "--db", db, str(pool)], tmp)  # the first ingest: not timed
    again = [_timed(["ingest", "--json", "--db", db, str(pool)], tmp) for _ in range(runs)]
    idle = [_timed(["--help"], tmp) for _ in range(runs)]
    wall, cpu, r = min(again, key=lambda x: x[0])
    unchanged = len(json.loads(r.stdout)["unchanged"]) if r.stdout.strip() else 0
    return {"files": sum(1 for _ in pool.rglob("*") if _.is_file()), "unchanged": unchanged,
            "seconds": round(wall, 3), "cpu_s": round(cpu, 3),
            "startup_s": round(min(w for w, _, _ in idle), 3),
            "startup_cpu_s": round(min(c for _, c, _ in idle), 3)}


def _session(messages: int, agent: str = "opencode") -> Path:
    DATA.mkdir(exist_ok=True)
    if agent != "opencode":  # lines of an append-only agent transcript
        out = DATA / f"{agent}-{messages}.jsonl"
        if not out.exists():
            subprocess.run([sys.executable, str(HERE / "gen_agents.py"), "--lines",
                            str(messages), "--agent", agent, str(out)], check=True, env=ENV)
        return out
    out = DATA / f"session-{messages}.jsonl"
    if not out.exists():
        subprocess.run([sys.executable, str(HERE / "gen_session.py"), "--messages",
                        str(messages), "--form", "jsonl", str(out)], check=True, env=ENV)
    return out


def append(messages: int, more: int, tmp: Path, agent: str = "opencode") -> dict[str, object]:
    lines = _session(messages + more, agent).read_bytes().splitlines(keepends=True)
    f = tmp / "grow.jsonl"
    f.write_bytes(b"".join(lines[:messages]))
    db = str(tmp / "append.duckdb")
    wall0, cpu0, r = _timed(["ingest", "--db", db, str(f)], tmp)
    with f.open("ab") as fh:
        fh.write(b"".join(lines[messages:messages + more]))
    wall, cpu, r = _timed(["ingest", "--json", "--db", db, str(f)], tmp)
    rep = json.loads(r.stdout) if r.stdout.strip() else {"sessions": []}
    return {"agent": agent, "messages" if agent == "opencode" else "lines": messages,
            "appended": more, "first_ingest_s": round(wall0, 2),
            "seconds": round(wall, 3), "cpu_s": round(cpu, 3),
            "new": sum(s["new_messages"] for s in rep["sessions"]), "exit": r.returncode}


def watch(changes: int, tmp: Path) -> dict[str, object]:
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl
    from kb.search import search

    d = tmp / "watched"
    d.mkdir()
    ctx = BuildContext(random.Random(28), directory="/home/dev/watch", project_id="ab" * 20)
    s = SessionBuilder(ctx, title="watched session", start_ms=1_790_000_000_000)
    s.user("why does the build fail?")
    for k in range(changes):
        s.step(f"Step {k} notes wordmark{k}x here.", [bash(f"make step-{k}", "ok")])
    full = tmp / "full.jsonl"
    write_jsonl(s.tree(), full)
    lines = full.read_bytes().splitlines(keepends=True)
    first = len(lines) - changes
    f = d / "session.jsonl"
    f.write_bytes(b"".join(lines[:first]))
    db = tmp / "watch.duckdb"
    p = subprocess.Popen([sys.executable, "-m", "kb", "watch", "--json", "--db", str(db),
                          str(d)], env={**ENV, "HOME": str(tmp)}, stdout=subprocess.PIPE,
                         stderr=subprocess.DEVNULL, text=True)
    events: queue.Queue[dict[str, object]] = queue.Queue()

    def read() -> None:
        assert p.stdout is not None
        for line in p.stdout:
            events.put(json.loads(line))

    threading.Thread(target=read, daemon=True).start()

    def wait_ingested(timeout: float) -> float | None:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            try:
                ev = events.get(timeout=max(0.01, end - time.monotonic()))
            except queue.Empty:
                return None
            if ev.get("event") == "ingested":
                return time.perf_counter()
        return None

    wait_ingested(60)  # the first ingest of what exists
    ingested: list[float] = []
    found: list[float] = []
    try:
        for k in range(changes):
            time.sleep(0.5)
            t0 = time.perf_counter()
            with f.open("ab") as fh:
                fh.write(lines[first + k])
            t_ev = wait_ingested(30)
            if t_ev is not None:
                ingested.append(t_ev - t0)
            while time.perf_counter() - t0 < 30:
                try:
                    if search(db, f"wordmark{k}x").hits:
                        found.append(time.perf_counter() - t0)
                        break
                except Exception:  # noqa: BLE001 - busy while watch writes: ask again
                    pass
                time.sleep(0.02)
    finally:
        p.terminate()
        p.wait(timeout=30)

    def pct(xs: list[float], q: float) -> float | None:
        if not xs:
            return None
        xs = sorted(xs)
        return round(xs[min(len(xs) - 1, int(q * len(xs)))], 3)

    return {"changes": changes, "ingested_p50": pct(ingested, 0.5),
            "ingested_p95": pct(ingested, 0.95), "searchable_p50": pct(found, 0.5),
            "searchable_p95": pct(found, 0.95), "found": len(found),
            "mean_s": round(statistics.mean(found), 3) if found else None}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench rerun")
    ap.add_argument("--pool", type=Path, default=POOL)
    ap.add_argument("--messages", type=int, default=100_000)
    ap.add_argument("--append", type=int, default=100)
    ap.add_argument("--agent", choices=("opencode", "claude-code", "codex"), default="opencode",
                    help="the session appended to (claude-code, codex: counts are lines)")
    ap.add_argument("--changes", type=int, default=20)
    ap.add_argument("--only", default="rerun,append,watch")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    only = set(a.only.split(","))
    res: dict[str, object] = {"load": round(os.getloadavg()[0], 1)}
    with tempfile.TemporaryDirectory(prefix="logkb-rerun-") as tmp:
        t = Path(tmp)
        if "rerun" in only:
            res["rerun"] = rerun(a.pool, t)
        if "append" in only:
            res["append"] = append(a.messages, a.append, t, a.agent)
        if "watch" in only:
            res["watch"] = watch(a.changes, t)
    res["load_after"] = round(os.getloadavg()[0], 1)
    if a.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:>10}: {v}")


if __name__ == "__main__":
    main()
