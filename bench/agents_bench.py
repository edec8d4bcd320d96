"""Claude Code and Codex ingest beside opencode's, and beside claude-code-log's parser.

    python -m bench agents [--lines 100000] [--runs 2] [--json]

Transcripts come from ``bench/gen_agents.py`` (the opencode benchmark's work written the
way each agent writes it; cached in ``bench/data/``).  In one run it measures, each in a
fresh subprocess (so its peak RSS is its own):

* logkb's ingest of the generated Claude Code transcript and Codex rollout, and of an
  opencode JSONL session of the same messages (the per-message yardstick);
* ``claude-code-log``'s parser (``claude_code_log.converter.load_transcript``, which
  reads and validates every entry into its pydantic models) on the same Claude Code
  files, the generated one and the real ones in ``../shared/realworld/claude-code/``.

``claude-code-log`` is not a logkb dependency: install it into the venv for this bench
(``pip install claude-code-log``); without it its rows say so.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

import orjson

from bench.ingest_bench import BARE, INGEST, child

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"
REALWORLD = HERE.parent.parent / "shared" / "realworld" / "claude-code"

CCL = r"""
import resource, sys, time
t0 = time.perf_counter()
from claude_code_log.converter import load_transcript
from pathlib import Path
base_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
t = time.perf_counter()
entries = load_transcript(Path(sys.argv[1]), silent=True)
dt = time.perf_counter() - t
import orjson
print(orjson.dumps({"seconds": dt, "entries": len(entries), "import_rss_mb": base_rss,
    "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}).decode())
"""


def generated(agent: str, lines: int) -> Path:
    DATA.mkdir(exist_ok=True)
    out = DATA / f"{agent}-{lines}.jsonl"
    if not out.exists():
        subprocess.run([sys.executable, str(HERE / "gen_agents.py"), "--lines", str(lines),
                        "--agent", agent, str(out)], check=True)
    return out


def opencode_jsonl(messages: int) -> Path:
    DATA.mkdir(exist_ok=True)
    out = DATA / f"session-{messages}.jsonl"
    if not out.exists():
        subprocess.run([sys.executable, str(HERE / "gen_session.py"), "--messages",
                        str(messages), "--form", "jsonl", str(out)], check=True)
    return out


def has_ccl() -> bool:
    try:
        import claude_code_log  # noqa: F401
    except ImportError:
        return False
    return True


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench agents")
    ap.add_argument("--lines", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=2, help="best of N for each figure")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    claude = generated("claude-code", a.lines)
    codex = generated("codex", a.lines)
    responses: set[str] = set()
    prompts = 0
    with claude.open("rb") as fh:  # the Claude file holds the first N opencode messages
        for x in fh:
            if b'"type":"assistant"' in x:
                responses.add(orjson.loads(x)["message"]["id"])
            elif b'"role":"user","content":"' in x:
                prompts += 1
    opencode = opencode_jsonl(len(responses) + prompts)
    reals = sorted(REALWORLD.glob("*/transcript.jsonl"))
    # measurements interleave round by round, so a machine whose load drifts biases none
    ingest_srcs = [("Claude Code (generated)", claude), ("Codex (generated)", codex),
                   ("opencode JSONL (same messages)", opencode)]
    ingest_srcs += [(f"real: {p.parent.name}", p) for p in reals]
    ccl_srcs = [("Claude Code (generated)", claude)] + [(f"real: {p.parent.name}", p)
                                                        for p in reals]
    runs: dict[tuple[str, str], list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(a.runs):
            for what, src in ingest_srcs:
                runs.setdefault(("ingest", what), []).append(
                    child(INGEST, str(src), f"{tmp}/kb-{i}-{len(runs)}.duckdb", "0"))
                if not what.startswith("real"):
                    runs.setdefault(("orjson", what), []).append(child(BARE, str(src), "jsonl"))
            if has_ccl():
                for what, src in ccl_srcs:
                    runs.setdefault(("ccl", what), []).append(child(CCL, str(src)))
            print(f"round {i + 1} of {a.runs} done", file=sys.stderr, flush=True)
    rows: list[dict[str, object]] = []
    for what, src in ingest_srcs:
        r = min(runs[("ingest", what)], key=lambda x: x["seconds"])
        msgs = int(r["messages"])
        row: dict[str, object] = {
            "what": what, "tool": "logkb ingest", "lines": sum(1 for _ in src.open("rb")),
            "source_mb": round(src.stat().st_size / 1e6, 3), "messages": msgs,
            "seconds": round(r["seconds"], 3), "msgs_per_s": round(msgs / r["seconds"]),
            "us_per_msg": round(r["seconds"] / msgs * 1e6), "peak_rss_mb": round(r["rss_mb"]),
            "problems": int(r["problems"])}
        if ("orjson", what) in runs:
            row["orjson_s"] = round(min(x["seconds"] for x in runs[("orjson", what)]), 3)
        rows.append(row)
    for what, src in ccl_srcs:
        if ("ccl", what) not in runs:
            rows.append({"what": what, "tool": "claude-code-log", "note": "not installed"})
            continue
        c = min(runs[("ccl", what)], key=lambda x: x["seconds"])
        rows.append({"what": what, "tool": "claude-code-log load_transcript",
                     "lines": sum(1 for _ in src.open("rb")), "entries": int(c["entries"]),
                     "seconds": round(c["seconds"], 3), "peak_rss_mb": round(c["rss_mb"])})
    if a.json:
        print(json.dumps(rows, indent=2))
        return
    cols: list[str] = []
    for r in rows:
        cols += [k for k in r if k not in cols]
    print(" | ".join(cols))
    for r in rows:
        print(" | ".join(str(r.get(c, "")) for c in cols))


if __name__ == "__main__":
    main()
