"""logkb's ingest beside the tools users compare it with (issue 28), on the same files.

    python -m bench peers [--copies 1,10] [--pairs 3] [--logkb PATH]
                          [--peers-venv DIR] [--ccusage PATH]
                          [--ccusage-opencode PATH]
                          [--only asa,asa-wait,ccl,ccusage,agsearch,warm,legacy,legacy-js]
                          [--legacy-messages 10000] [--json]

The home of ``bench home`` (``bench/home_bench.py``: the real sessions of
``../shared/realworld/pool`` copied N times as ``~/.claude/projects``,
``~/.codex/sessions`` and opencode exports under ``~/.local/share/opencode``) is
read, with ``HOME`` pointed there, by logkb and by each peer:

* ``asa``: agent-session-analytics (PyPI), ``agent-session-analytics ingest --force``
  into a fresh ``SESSIONS_DB`` (it reads Claude Code and Codex; it needs DuckDB's CLI,
  ``pip install duckdb-cli`` into the same venv);
* ``asa-wait``: the same beside ``logkb ingest --wait`` (the knowledge graph and the
  search index built before it returns; by default they follow on the first query);
* ``ccl``: claude-code-log (PyPI), ``claude-code-log convert --all-projects
  --projects-dir ~/.claude/projects -o OUT`` with a fresh cache
  (``CLAUDE_CODE_LOG_CACHE_PATH``): HTML for every Claude Code session;
* ``ccusage``: ccusage 20 (npm), ``ccusage session --json --offline``: a token and
  cost report of every agent it finds;
* ``agsearch``: agsearch (PyPI), ``agsearch -n QUERY`` with a fresh cache
  (``XDG_CACHE_HOME``): it builds its search cache, then answers.  Its logkb side is
  ``logkb ingest --wait`` (searchable when it returns, the index built);
* ``warm``: a re-run with nothing changed: ``logkb ingest`` into the knowledge base of a
  first run, beside ``agsearch -n QUERY`` on its warm cache;
* ``legacy``: ccusage's opencode reader (``ccusage opencode session --json --offline``,
  ``OPENCODE_DATA_DIR``) on the legacy ``storage/`` tree of ``bench ingest`` (a
  ``--legacy-messages`` session, ``bench/ingest_bench.py``), beside ``logkb ingest``
  of the same tree; ``legacy-js``: the same with ``@ccusage/opencode``'s
  ``ccusage-opencode session --json`` (``--ccusage-opencode``), the JavaScript reader
  ``bench ingest --ccusage`` and the issue's 1.81x figure used.

Each run is a fresh process in a fresh state directory, under ``unshare -rn`` (a
network namespace with only loopback, down: nothing can connect anywhere).  Reported
per tool: wall time and CPU time (user + system of the process and everything it
waited for, ``getrusage(RUSAGE_CHILDREN)``), medians over ``--pairs`` A/B pairs whose
order alternates (logkb first in even pairs, the peer first in odd ones), and the
ratio logkb/peer as the median of the pairs' ratios; the load average around each pair.
A peer that is not installed gets a "not installed" row.

Peers are not logkb dependencies: install them apart, e.g.::

    python3 -m venv /work/peers-venv
    /work/peers-venv/bin/pip install claude-code-log agent-session-analytics agsearch duckdb-cli
    npm install --prefix /work/peers-npm ccusage@20

and name them with ``--peers-venv`` (env ``LOGKB_PEERS_VENV``) and ``--ccusage`` (env
``LOGKB_CCUSAGE``; default ``PEERS_NPM/node_modules/.bin/ccusage`` with
``LOGKB_PEERS_NPM``).  ``--logkb`` runs another logkb executable (e.g. main's) instead
of this tree's ``python -m kb``.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
QUERY = "error"
"""What agsearch is asked (it answers every run; the answer is not compared)."""

_DROP = ("PYTHONDONTWRITEBYTECODE", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME",
         "CLAUDE_CONFIG_DIR", "CODEX_HOME", "LOGKB_DB", "SESSIONS_DB", "OPENCODE_DATA_DIR",
         "CLAUDE_CODE_LOG_CACHE_PATH", "VIRTUAL_ENV")


@dataclass
class Run:
    wall: float
    cpu: float
    stdout: str


def read_count(stdout: str) -> str:
    """What a run says it read, where its output says it: sessions (and messages)."""
    try:
        d = json.loads(stdout)
    except ValueError:
        lines = [x for x in stdout.splitlines() if x.startswith("{")]
        try:
            d = json.loads(lines[-1]) if lines else None
        except ValueError:
            d = None
    if not isinstance(d, dict):
        return ""
    if isinstance(d.get("sessions"), list):
        ss = d["sessions"]
        msgs = sum(int(s.get("messages", 0)) for s in ss if isinstance(s, dict))
        return f"{len(ss)} sessions" + (f", {msgs} messages" if msgs else "")
    if isinstance(d.get("session"), list):  # ccusage 20's unified report
        return f"{len(d['session'])} sessions"
    counts = d.get("counts")
    if isinstance(counts, dict) and "sessions" in counts:
        return f"{counts['sessions']} sessions, {counts.get('tool_uses', 0)} tool uses"
    return ""


@dataclass
class Tool:
    """One side of a pair: ``make(scratch)`` gives the command and the environment of a
    run whose state lives in ``scratch`` (fresh for a cold run, kept for a warm one)."""

    name: str
    make: Callable[[Path], tuple[list[str], dict[str, str]]]
    ok: tuple[int, ...] = (0,)
    warm: bool = False
    """Run once untimed in the scratch directory first (the timed run is the re-run)."""


@dataclass
class Peer:
    key: str
    label: str
    does: str
    version: str | None
    logkb: Tool
    peer: Tool | None
    missing: str = ""
    command: str = ""
    logkb_command: str = ""
    rows: list[dict[str, object]] = field(default_factory=list)


def base_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _DROP}
    env["HOME"] = str(home)
    return env


def timed(cmd: list[str], env: dict[str, str], ok: tuple[int, ...], cwd: Path) -> Run:
    """``cmd`` under ``unshare -rn`` (no network): wall and CPU seconds."""
    os.sync()  # the last run's writes would slow this one's (the disk is shared)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    r = subprocess.run(["unshare", "-rn", *cmd], env=env, cwd=cwd, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if r.returncode not in ok:
        sys.stderr.write(r.stderr[-3000:])
        raise SystemExit(f"{cmd[0]} exited {r.returncode}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return Run(wall, cpu, r.stdout)


def run_tool(tool: Tool) -> Run:
    scratch = Path(tempfile.mkdtemp(prefix=f"peers-{tool.name}-"))
    try:
        cmd, env = tool.make(scratch)
        if tool.warm:
            timed(cmd, env, tool.ok, scratch)
        return timed(cmd, env, tool.ok, scratch)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def logkb_cmd(logkb: str | None) -> tuple[list[str], dict[str, str]]:
    if logkb:
        return [logkb], {}
    return [sys.executable, "-m", "kb"], {"PYTHONPATH": str(ROOT)}


def _version(cmd: list[str], env: dict[str, str] | None = None) -> str:
    try:
        r = subprocess.run(["unshare", "-rn", *cmd], capture_output=True, text=True,
                           env=env, timeout=60, stdin=subprocess.DEVNULL)
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"? ({e})"
    out = (r.stdout or r.stderr).strip().splitlines()
    return out[0].strip() if out else "?"


def logkb_version(logkb: str | None) -> str:
    """logkb's commit: this tree's, or the one of the tree a wrapper script runs."""
    root = ROOT
    if logkb:
        try:
            text = Path(logkb).read_text(errors="replace")
        except OSError:
            text = ""
        for word in text.split():
            if word.startswith("PYTHONPATH="):
                root = Path(word.split("=", 1)[1])
    r = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%h %cs"],
                       capture_output=True, text=True)
    return f"{root} at {r.stdout.strip() or '?'}"


def peers(a: argparse.Namespace, home: Path, legacy: Path | None) -> list[Peer]:
    venv = Path(a.peers_venv) if a.peers_venv else None
    vbin = venv / "bin" if venv else None
    lk, lkenv = logkb_cmd(a.logkb)

    def logkb(*extra: str, paths: tuple[str, ...] = (), warm: bool = False) -> Tool:
        def make(s: Path) -> tuple[list[str], dict[str, str]]:
            return ([*lk, "ingest", "--json", "--no-progress", *extra, "--db",
                     str(s / "kb.duckdb"), *paths], {**base_env(home), **lkenv})
        return Tool("logkb", make, ok=(0, 1), warm=warm)

    def exe(name: str) -> Path | None:
        if vbin is None or not (vbin / name).exists():
            return None
        return vbin / name

    def venv_env(s: Path, **kw: str) -> dict[str, str]:
        env = base_env(home)
        env["PATH"] = f"{vbin}:{env.get('PATH', '')}"
        env.update(kw)
        return env

    out = []
    asa = exe("agent-session-analytics")
    missing = ""
    if asa is not None and exe("duckdb") is None:
        missing, asa = "its DuckDB CLI is not installed (pip install duckdb-cli)", None
    out.append(Peer(
        "asa", "agent-session-analytics", "ingests Claude Code and Codex into DuckDB",
        _version([str(asa), "--version"]) if asa else None, logkb(),
        Tool("asa", lambda s: ([str(asa), "ingest", "--force"],
                               venv_env(s, SESSIONS_DB=str(s / "sessions.duckdb"))))
        if asa else None,
        missing or "not installed (pip install agent-session-analytics duckdb-cli)",
        "agent-session-analytics ingest --force  (SESSIONS_DB fresh)"))
    out.append(Peer(
        "asa-wait", "agent-session-analytics, logkb --wait",
        "the same, logkb building its graph and search index before it returns",
        out[-1].version, logkb("--wait"), out[-1].peer, out[-1].missing, out[-1].command,
        "ingest --wait"))
    ccl = exe("claude-code-log")
    out.append(Peer(
        "ccl", "claude-code-log", "renders HTML for every Claude Code session",
        _version([str(ccl), "--version"]) if ccl else None, logkb(),
        Tool("ccl", lambda s: ([str(ccl), "convert", "--all-projects", "--projects-dir",
                                str(home / ".claude" / "projects"), "-o", str(s / "html")],
                               venv_env(s, CLAUDE_CODE_LOG_CACHE_PATH=str(s / "ccl.db"))))
        if ccl else None,
        "not installed (pip install claude-code-log)",
        "claude-code-log convert --all-projects --projects-dir ~/.claude/projects -o OUT"))
    ccu = a.ccusage if a.ccusage and Path(a.ccusage).exists() else None
    out.append(Peer(
        "ccusage", "ccusage", "reads every agent's files for a token and cost report",
        _version([ccu, "--version"]) if ccu else None, logkb(),
        Tool("ccusage", lambda s: ([str(ccu), "session", "--json", "--offline"],
                                   base_env(home))) if ccu else None,
        "not installed (npm install ccusage@20; --ccusage PATH)",
        "ccusage session --json --offline"))
    ags = exe("agsearch")
    out.append(Peer(
        "agsearch", "agsearch", "builds its search cache (cold), then answers",
        _version([str(ags), "--version"]) if ags else None, logkb("--wait"),
        Tool("agsearch", lambda s: ([str(ags), "-n", QUERY],
                                    venv_env(s, XDG_CACHE_HOME=str(s / "cache"))))
        if ags else None,
        "not installed (pip install agsearch)",
        f"agsearch -n {QUERY}  (XDG_CACHE_HOME fresh)", "ingest --wait"))
    out.append(Peer(
        "warm", "agsearch, warm", "re-run with nothing changed",
        out[-1].version, logkb(warm=True),
        Tool("agsearch", lambda s: ([str(ags), "-n", QUERY],
                                    venv_env(s, XDG_CACHE_HOME=str(s / "cache"))), warm=True)
        if ags else None,
        "not installed (pip install agsearch)",
        f"agsearch -n {QUERY}, second run on its cache", "ingest, second run"))
    if legacy is not None:
        tree = legacy.parent
        out.append(Peer(
            "legacy", "ccusage opencode reader", f"legacy storage/ tree ({tree.name})",
            next(p.version for p in out if p.key == "ccusage"), logkb(paths=(str(tree),)),
            Tool("ccusage", lambda s: ([str(ccu), "opencode", "session", "--json",
                                        "--offline"],
                                       {**base_env(home), "OPENCODE_DATA_DIR": str(tree)}))
            if ccu else None,
            "not installed (npm install ccusage@20; --ccusage PATH)",
            "ccusage opencode session --json --offline  (OPENCODE_DATA_DIR=TREE)",
            "ingest TREE"))
        cco = a.ccusage_opencode if a.ccusage_opencode and Path(a.ccusage_opencode).exists() \
            else None
        out.append(Peer(
            "legacy-js", "@ccusage/opencode (JS)", f"legacy storage/ tree ({tree.name})",
            _version([cco, "--version"]) if cco else None, logkb(paths=(str(tree),)),
            Tool("ccusage-opencode", lambda s: ([str(cco), "session", "--json"],
                                                {**base_env(home),
                                                 "OPENCODE_DATA_DIR": str(tree)}))
            if cco else None,
            "not installed (npm install @ccusage/opencode@18; --ccusage-opencode PATH)",
            "ccusage-opencode session --json  (OPENCODE_DATA_DIR=TREE)", "ingest TREE"))
    return [p for p in out if p.key in a.only]


def pairs(p: Peer, n: int, size: str) -> dict[str, object]:
    if p.peer is None:
        print(f"  {p.label}: {p.missing}", file=sys.stderr, flush=True)
        return {"size": size, "peer": p.label, "installed": False, "note": p.missing}
    lk: list[Run] = []
    pr: list[Run] = []
    loads = []
    for i in range(n):
        loads.append(os.getloadavg()[0])
        if i % 2 == 0:
            lk.append(run_tool(p.logkb))
            pr.append(run_tool(p.peer))
        else:
            pr.append(run_tool(p.peer))
            lk.append(run_tool(p.logkb))
        loads.append(os.getloadavg()[0])
        print(f"  {size} {p.label} pair {i + 1}: logkb {lk[-1].wall:.2f} s wall "
              f"{lk[-1].cpu:.2f} s CPU, peer {pr[-1].wall:.2f} s wall {pr[-1].cpu:.2f} s CPU "
              f"(load {loads[-2]:.1f}-{loads[-1]:.1f})", file=sys.stderr, flush=True)
    med = statistics.median

    def r(x: float) -> float:
        return round(x, 3 if x < 10 else 1)

    return {
        "size": size, "peer": p.label, "installed": True, "pairs": n,
        "logkb_wall_s": r(med(x.wall for x in lk)), "logkb_cpu_s": r(med(x.cpu for x in lk)),
        "peer_wall_s": r(med(x.wall for x in pr)), "peer_cpu_s": r(med(x.cpu for x in pr)),
        "ratio_wall": round(med(a.wall / max(b.wall, 1e-9) for a, b in zip(lk, pr)), 2),
        "ratio_cpu": round(med(a.cpu / max(b.cpu, 1e-9) for a, b in zip(lk, pr)), 2),
        "load": f"{min(loads):.1f}-{max(loads):.1f}",
        "logkb_read": read_count(lk[0].stdout), "peer_read": read_count(pr[0].stdout),
    }


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench peers")
    ap.add_argument("--copies", default="1,10", help="home sizes, comma-separated (50: 507 MB)")
    ap.add_argument("--pairs", type=int, default=3, help="A/B pairs per figure")
    ap.add_argument("--logkb", default=os.environ.get("LOGKB_BENCH_LOGKB"),
                    help="logkb executable (default: this tree's python -m kb)")
    ap.add_argument("--peers-venv", default=os.environ.get("LOGKB_PEERS_VENV"),
                    help="venv holding agent-session-analytics, claude-code-log, agsearch")
    npm = os.environ.get("LOGKB_PEERS_NPM")
    ap.add_argument("--ccusage", default=os.environ.get("LOGKB_CCUSAGE") or (
        str(Path(npm) / "node_modules" / ".bin" / "ccusage") if npm else None),
                    help="the ccusage (20) executable")
    ap.add_argument("--ccusage-opencode", default=os.environ.get("LOGKB_CCUSAGE_OPENCODE"),
                    help="@ccusage/opencode's ccusage-opencode (the JS reader the issue's "
                    "legacy-tree figure used)")
    ap.add_argument("--only", default="asa,asa-wait,ccl,ccusage,agsearch,warm,legacy,legacy-js",
                    help="which comparisons (asa, asa-wait, ccl, ccusage, agsearch, warm, "
                    "legacy, legacy-js)")
    ap.add_argument("--legacy-messages", type=int, default=10000)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    a.only = set(a.only.split(","))
    from bench.home_bench import build_home
    from bench.ingest_bench import legacy_tree

    if not a.logkb:
        subprocess.run([sys.executable, "-m", "compileall", "-q", str(ROOT / "kb"),
                        str(ROOT / "logparse")], check=True, stdout=subprocess.DEVNULL,
                       env={k: v for k, v in os.environ.items()
                            if k != "PYTHONDONTWRITEBYTECODE"})
    legacy = (legacy_tree(a.legacy_messages) if a.only & {"legacy", "legacy-js"}
              else None)
    info: dict[str, object] = {"logkb": logkb_version(a.logkb), "peers": {}, "rows": []}
    rows: list[dict[str, object]] = []
    for size in a.copies.split(","):
        home = build_home(int(size))
        ps = peers(a, home, legacy)
        for p in ps:
            info["peers"][p.label] = {  # type: ignore[index]
                "version": p.version, "command": p.command,
                "logkb": f"logkb {p.logkb_command or 'ingest'}", "does": p.does}
            if p.key.startswith("legacy") and size != a.copies.split(",")[0]:
                continue  # the tree does not grow with the home
            rows.append(pairs(p, a.pairs, "legacy" if p.key.startswith("legacy")
                              else f"{size}x"))
    info["rows"] = rows
    if a.json:
        print(json.dumps(info, indent=2))
        return
    print(f"logkb: {info['logkb']}")
    for label, d in info["peers"].items():  # type: ignore[attr-defined]
        print(f"{label}: {d['version'] or 'not installed'}: {d['command']} | {d['logkb']}")
    print("home | peer | logkb wall | logkb CPU | peer wall | peer CPU | "
          "logkb/peer wall | logkb/peer CPU | load")
    for r in rows:
        if not r["installed"]:
            print(f"{r['size']} | {r['peer']} | {r['note']}")
            continue
        print(f"{r['size']} | {r['peer']} | {r['logkb_wall_s']} | {r['logkb_cpu_s']} | "
              f"{r['peer_wall_s']} | {r['peer_cpu_s']} | {r['ratio_wall']}x | "
              f"{r['ratio_cpu']}x | {r['load']}")
    for r in rows:
        if r["installed"] and (r["logkb_read"] or r["peer_read"]):
            print(f"read, {r['size']} {r['peer']}: logkb {r['logkb_read'] or '?'}; "
                  f"peer {r['peer_read'] or '?'}")


if __name__ == "__main__":
    main()
