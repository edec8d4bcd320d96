"""A home directory of real sessions, N times over: ``logkb ingest`` with no path
(issue 28: the CPU a message costs on what users really have).

    python -m bench home [--copies 50] [--sets pool] [--runs 1] [--json]
                         [--no-graph] [--profile OUT.svg|OUT.txt] [--keep]

The real Claude Code, Codex and opencode sessions of ``../shared/realworld`` (``pool/``
by default, the issue's home of 14 sessions; ``--sets pool,labelled`` adds the
labelled ones; the files logkb reads; opencode's SQLite database is left out: its
copies would need rewriting row by row) are copied ``--copies`` times into
``bench/data/home-SETS-N/`` (git-ignored, rebuilt only when missing), laid out as each
agent's default folder:

* Claude Code: ``.claude/projects/-home-bench-pK/<name>.jsonl``;
* Codex: ``.codex/sessions/2026/01/KK/rollout-<name>.jsonl``;
* opencode: its exports in ``.local/share/opencode/export/<name>.json`` (walked as part
  of opencode's data directory).

Each copy gets distinct session ids: every UUID and every ``ses_``/``msg_``/``prt_``/
``toolu_``/``call_`` id in the file is mapped (deterministically, length and alphabet
kept) to another one for copy K >= 1, so the copies are distinct sessions whose text
is the real sessions' text, repeats included.

``python -m kb ingest --json`` then runs with ``HOME`` pointing there, in a fresh
process into a fresh knowledge base, as a user runs it: it returns once messages and
events are stored, the graph and the search index follow on the first query that reads
them.  ``--wait`` adds ``--wait`` (both built before the command returns);
``--no-graph`` builds the index but not the graph, through ``kb.ingest.ingest``.
Reported: wall time, CPU time of the process and its derive workers
(``resource.getrusage(RUSAGE_CHILDREN)``: robust to a shared machine, wall time is
not), CPU ms per message, peak RSS (the largest process), the load average.
``--profile`` runs it under ``py-spy record --subprocesses`` instead (``pip install
py-spy``; the ``bench`` extra).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = HERE / "data"
REAL = Path(os.environ.get("LOGKB_REALWORLD") or ROOT.parent / "shared" / "realworld")

_UUID = re.compile(rb"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
_OID = re.compile(rb"\b(?:ses|msg|prt|toolu|call)_[0-9A-Za-z]{12,}")
_B62 = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def sources(sets: tuple[str, ...] = ("pool",)) -> list[tuple[str, Path]]:
    """``(agent, file)`` for every real session of ``sets`` logkb reads natively."""
    from logparse.registry import detect

    names = {"ClaudeCodeReader": "claude", "CodexReader": "codex", "ExportReader": "opencode"}
    out = []
    for sub in sets:
        for f in sorted((REAL / sub).iterdir()):
            if not f.is_file():
                continue
            try:
                reader = detect(f)
            except Exception:  # noqa: BLE001 - not a transcript logkb reads
                continue
            agent = names.get(reader.__name__)
            if agent is not None:
                out.append((agent, f))
    return out


def _remap(data: bytes, copy: int) -> bytes:
    """The same bytes with every id mapped to copy ``copy``'s (copy 0 is the original)."""
    if copy == 0:
        return data
    memo: dict[bytes, bytes] = {}

    def uuid(m: re.Match[bytes]) -> bytes:
        old = m.group(0)
        new = memo.get(old)
        if new is None:
            h = hashlib.sha1(b"%d:" % copy + old).hexdigest().encode()
            # keep the first group (uuid7's time prefix keeps sorting by time)
            new = old[:9] + h[:4] + b"-" + h[4:8] + b"-" + h[8:12] + b"-" + h[12:24]
            memo[old] = new
        return new

    def oid(m: re.Match[bytes]) -> bytes:
        old = m.group(0)
        new = memo.get(old)
        if new is None:
            pre, _, tail = old.partition(b"_")
            h = hashlib.sha1(b"%d:" % copy + old).digest() * 4
            keep = min(len(tail), 12)  # opencode ids start with their time: kept
            new = pre + b"_" + tail[:keep] + bytes(_B62[b % 62] for b in h[: len(tail) - keep])
            memo[old] = new
        return new

    return _OID.sub(oid, _UUID.sub(uuid, data))


def build_home(copies: int, sets: tuple[str, ...] = ("pool",)) -> Path:
    home = DATA / f"home-{'+'.join(sets)}-{copies}"
    if (home / ".done").exists():
        return home
    if home.exists():
        shutil.rmtree(home)
    srcs = sources(sets)
    for k in range(copies):
        for agent, f in srcs:
            data = _remap(f.read_bytes(), k)
            name = f"{f.stem}-{k:03d}"
            if agent == "claude":
                out = home / ".claude" / "projects" / f"-home-bench-p{k:03d}" / f"{name}.jsonl"
            elif agent == "codex":
                out = (home / ".codex" / "sessions" / "2026" / "01" / f"{k % 28 + 1:02d}"
                       / f"rollout-{name}.jsonl")
            else:
                out = home / ".local" / "share" / "opencode" / "export" / f"{name}.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_bytes(data)
    (home / ".done").write_text(json.dumps({"copies": copies, "files": len(srcs) * copies}))
    return home


NO_GRAPH = r"""
import orjson, sys
from kb.ingest import ingest
from kb.store import KbStore
from logparse.registry import agent_dirs
with KbStore(sys.argv[1]) as store:
    rep = ingest(store, [d for _, d in agent_dirs() if d.exists()], graph=False)
print(orjson.dumps({"sessions": [{"messages": s.messages} for s in rep.sessions]}).decode())
"""
"""``logkb ingest`` without the knowledge-graph rebuild at its end (``--no-graph``)."""


def run(home: Path, profile: Path | None = None, graph: bool = True,
        wait: bool = False) -> dict[str, object]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONDONTWRITEBYTECODE", "XDG_DATA_HOME", "CLAUDE_CONFIG_DIR",
                        "CODEX_HOME", "LOGKB_DB")}
    env.update(PYTHONPATH=str(ROOT), HOME=str(home))
    with tempfile.TemporaryDirectory(prefix="logkb-home-") as tmp:
        cmd = ([sys.executable, "-m", "kb", "ingest", "--json", "--no-progress",
                *(["--wait"] if wait else []), "--db", f"{tmp}/kb.duckdb"] if graph
               else [sys.executable, "-c", NO_GRAPH, f"{tmp}/kb.duckdb"])
        if profile is not None:
            spy = Path(sys.executable).with_name("py-spy")
            fmt = ["-f", "raw"] if profile.suffix == ".txt" else []
            cmd = [str(spy) if spy.exists() else "py-spy", "record", "--subprocesses",
                   "--nonblocking", "-r", "50", *fmt, "-o", str(profile), "--", *cmd]
        os.sync()
        load = os.getloadavg()[0]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        r = subprocess.run(cmd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in (0, 1):
        sys.stderr.write(r.stderr[-3000:])
        raise SystemExit(f"ingest exited {r.returncode}")
    lines = [x for x in r.stdout.splitlines() if x.startswith("{")]  # py-spy prints too
    rep = json.loads(lines[-1]) if lines else {}
    sessions = rep.get("sessions", [])
    msgs = sum(int(s.get("messages", 0)) for s in sessions)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    files = sum(1 for p in home.rglob("*") if p.is_file() and p.name != ".done")
    src_mb = sum(p.stat().st_size for p in home.rglob("*") if p.is_file()) / 1e6
    return {"files": files, "source_mb": round(src_mb, 1), "sessions": len(sessions),
            "messages": msgs, "wall_s": round(wall, 2), "cpu_s": round(cpu, 2),
            "cpu_ms_per_message": round(1000 * cpu / max(msgs, 1), 3),
            "peak_rss_mb": round(after.ru_maxrss / 1024), "exit": r.returncode,
            "load": round(max(load, os.getloadavg()[0]), 2)}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench home")
    ap.add_argument("--copies", type=int, default=50)
    ap.add_argument("--sets", default="pool",
                    help="realworld folders, comma-separated: pool (the issue's home: 14 "
                    "sessions), labelled")
    ap.add_argument("--runs", type=int, default=1, help="best CPU of N runs")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("--profile", type=Path, default=None, help="py-spy flame graph (SVG; .txt: collapsed stacks)")
    ap.add_argument("--no-graph", dest="graph", action="store_false",
                    help="leave out the knowledge-graph rebuild at the ingest's end")
    ap.add_argument("--wait", action="store_true",
                    help="logkb ingest --wait: the graph and the search index built too")
    ap.add_argument("--keep", action="store_true", help="keep bench/data/home-N afterwards")
    a = ap.parse_args(argv)
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "kb"),
                    str(ROOT / "logparse")], check=True, stdout=subprocess.DEVNULL,
                   env={k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"})
    home = build_home(a.copies, tuple(a.sets.split(",")))
    try:
        if a.profile is not None:
            res = run(home, a.profile, a.graph, a.wait)
        else:
            res = min((run(home, graph=a.graph, wait=a.wait) for _ in range(a.runs)),
                      key=lambda r: float(r["cpu_s"]))  # type: ignore[arg-type]
        res["graph"] = a.graph and a.wait
        res["index"] = a.wait or not a.graph
    finally:
        if not a.keep:
            shutil.rmtree(home, ignore_errors=True)
    if a.json:
        print(json.dumps(res))
    else:
        for k, v in res.items():
            print(f"{k:>20}: {v}")


if __name__ == "__main__":
    main()
