"""Replay benchmark: 50 read-only ssh steps through logkb's connection-shared executor
beside 50 independent ``ssh`` invocations of the same commands, in one run, on loopback.

    python -m bench replay [--steps 50] [--rounds 3] [--json]

It starts its own OpenSSH server on 127.0.0.1 (throwaway keys in a temp dir;
sessions get an empty ``HOME`` so the login shell's start-up files do not
count), then, per round:

* **shared**: a replay plan of N recorded ``ssh HOST '<cmd>'`` steps, mapped to
  the loopback server, run by :func:`kb.replay.execute` (one master connection,
  every step a multiplexed session; judging and measurement parsing included;
  the master's handshake included);
* **independent**: the same N commands, each a fresh ``ssh`` with the same key
  and options (a full handshake each);
* **local**: the same N commands run by ``bash -c`` on this machine, the cost of
  the commands themselves.

Reported: both totals, the ratio independent/shared (target ≥ 5×) and the
per-step overhead of the shared executor beyond the command itself,
(shared − local) / N (target < 30 ms).  The median round is reported.
Nothing but 127.0.0.1 is contacted (``LOGKB_REPLAY_LOOPBACK_ONLY=1``).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMANDS = (
    "cat /etc/hostname",
    "grep -c root /etc/passwd",
    "sed -n 1,3p /etc/os-release",
    "head -c 200 /etc/services",
    "uname -a",
    "wc -l /etc/passwd",
    "ls /usr/bin | head -5",
    'find /etc -maxdepth 1 -name "*.conf" | head -3',  # inside the recorded '…
    "echo ok",
    "test -d /tmp && echo yes",
)
RECORDED = "bench-gpu"


def _plan(sshd, n: int):  # type: ignore[no-untyped-def]
    from kb.replay.hostmap import build_host_map
    from kb.replay.plan import PlanOptions, build_plan
    from kb.replay.run import control_dir_for, new_run_id
    from logparse.models import Event, SshHop

    hm = build_host_map([f"{RECORDED}={sshd.target}"], {"hosts": {"bench-target": {
        "target": sshd.target, "identity": str(sshd.key), "options": sshd.client_options()}}})
    events = []
    for i in range(n):
        cmd = f"ssh root@{RECORDED} '{COMMANDS[i % len(COMMANDS)]}'"
        common = dict(session_id="bench", ordinal=i + 1, seq=0, message_id=f"m{i}",
                      tool="bash", command=cmd, category="search",
                      hops=[SshHop(host=RECORDED, user="root")])
        events.append(Event(kind="command", **common))
        events.append(Event(kind="result", status="completed", exit_code=0, output="",
                            **common))
    run_id = new_run_id()
    opts = PlanOptions(timeout=30, control_dir=control_dir_for())
    plan = build_plan("bench", events, hm, opts, start=1, end=None)
    plan.run_id = run_id
    assert all(s.runs for s in plan.steps), [s.reason for s in plan.steps if not s.runs]
    return plan


def _shared(sshd, n: int) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    from kb.replay.run import execute

    plan = _plan(sshd, n)
    before = sshd.handshakes()
    t = time.perf_counter()
    record = execute(plan)
    dt = time.perf_counter() - t
    bad = [r for r in record.results if r.exit_code != 0]
    if bad:
        raise SystemExit(f"shared run failed: {bad[0].output}")
    return dt, sshd.handshakes() - before


def _independent(sshd, n: int) -> tuple[float, int]:  # type: ignore[no-untyped-def]
    base = sshd.ssh_argv()
    before = sshd.handshakes()
    t = time.perf_counter()
    for i in range(n):
        r = subprocess.run(base + [COMMANDS[i % len(COMMANDS)]], stdin=subprocess.DEVNULL,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        if r.returncode != 0:
            raise SystemExit(f"independent ssh failed: {r.stdout.decode(errors='replace')}")
    return time.perf_counter() - t, sshd.handshakes() - before


def _local(n: int) -> float:
    t = time.perf_counter()
    for i in range(n):
        subprocess.run(["bash", "-c", COMMANDS[i % len(COMMANDS)]], stdin=subprocess.DEVNULL,
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, check=True)
    return time.perf_counter() - t


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench replay", description=__doc__.split("\n")[0])
    ap.add_argument("--steps", type=int, default=50)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    os.environ["LOGKB_REPLAY_LOOPBACK_ONLY"] = "1"
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from tests.replay.sshd import LoopbackSshd

    n = args.steps
    rounds = []
    with tempfile.TemporaryDirectory(prefix="logkb-bench-sshd-") as tmp, \
            LoopbackSshd(Path(tmp)) as sshd:
        _shared(sshd, 3)  # warm-up: page cache, sshd's first fork
        for _ in range(args.rounds):
            shared, shared_hs = _shared(sshd, n)
            indep, indep_hs = _independent(sshd, n)
            local = _local(n)
            rounds.append({"shared_s": shared, "independent_s": indep, "local_s": local,
                           "shared_handshakes": shared_hs, "independent_handshakes": indep_hs})
    med = sorted(rounds, key=lambda r: r["independent_s"] / r["shared_s"])[len(rounds) // 2]
    ratio = med["independent_s"] / med["shared_s"]
    overhead_ms = (med["shared_s"] - med["local_s"]) / n * 1000
    result = {
        "steps": n, "rounds": len(rounds), **med,
        "shared_per_step_ms": med["shared_s"] / n * 1000,
        "independent_per_step_ms": med["independent_s"] / n * 1000,
        "local_per_step_ms": med["local_s"] / n * 1000,
        "ratio": ratio, "overhead_per_step_ms": overhead_ms,
        "ratio_target": 5.0, "overhead_target_ms": 30.0,
        "ratios_all_rounds": [round(r["independent_s"] / r["shared_s"], 2) for r in rounds],
        "pass": ratio >= 5.0 and overhead_ms < 30.0,
        "cpus": os.cpu_count(),
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(f"replay benchmark: {n} read-only ssh steps on 127.0.0.1 "
          f"(median of {len(rounds)} rounds, {os.cpu_count()} CPUs)")
    print(f"  shared connection (logkb replay): {med['shared_s']:7.3f} s  "
          f"{result['shared_per_step_ms']:6.1f} ms/step  "
          f"{med['shared_handshakes']} handshake(s)")
    print(f"  independent ssh invocations:      {med['independent_s']:7.3f} s  "
          f"{result['independent_per_step_ms']:6.1f} ms/step  "
          f"{med['independent_handshakes']} handshake(s)")
    print(f"  the commands alone (local bash):  {med['local_s']:7.3f} s  "
          f"{result['local_per_step_ms']:6.1f} ms/step")
    print(f"  ratio independent/shared: {ratio:.1f}x (target >= 5x; rounds "
          f"{result['ratios_all_rounds']})")
    print(f"  per-step overhead beyond the command: {overhead_ms:.1f} ms (target < 30 ms)")
    print("  PASS" if result["pass"] else "  FAIL")
