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


def best_of(runs: int, code: str, *args: str, fresh_db: bool = False) -> dict[str, float]:
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for i in range(runs):
            extra = (f"{tmp}/kb{i}.duckdb", "0") if fresh_db else ()
            results.append(child(code, *args, *extra))
    return min(results, key=lambda r: r["seconds"])


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench agents")
    ap.add_argument("--lines", type=int, default=100000)
    ap.add_argument("--runs", type=int, default=2, help="best of N for each figure")
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args(argv)
    rows: list[dict[str, object]] = []

    def ingest_row(what: str, src: Path, lines: int) -> dict[str, object]:
        r = best_of(a.runs, INGEST, str(src), fresh_db=True)
        bare = best_of(a.runs, BARE, str(src), "jsonl")
        msgs = int(r["messages"])
        row = {"what": what, "tool": "logkb ingest", "lines": lines,
               "source_mb": round(src.stat().st_size / 1e6, 1), "messages": msgs,
               "seconds": round(r["seconds"], 2), "orjson_s": round(bare["seconds"], 2),
               "msgs_per_s": round(msgs / r["seconds"]),
               "us_per_msg": round(r["seconds"] / msgs * 1e6), "peak_rss_mb": round(r["rss_mb"]),
               "problems": int(r["problems"])}
        print(row, file=sys.stderr, flush=True)
        return row

    claude = generated("claude-code", a.lines)
    codex = generated("codex", a.lines)
    cl = ingest_row("Claude Code (generated)", claude, a.lines)
    rows.append(cl)
    rows.append(ingest_row("Codex (generated)", codex, a.lines))
    # opencode JSONL of the same messages: the Claude file holds the first N of them
    oc = opencode_jsonl(int(cl["messages"]))
    rows.append(ingest_row("opencode JSONL (same messages)", oc,
                           sum(1 for _ in oc.open("rb"))))
    ccl_files = [("Claude Code (generated)", claude)] + [
        (f"real: {p.parent.name}", p) for p in sorted(REALWORLD.glob("*/transcript.jsonl"))]
    for what, src in ccl_files:
        n = sum(1 for _ in src.open("rb"))
        if what.startswith("real"):
            r = best_of(a.runs, INGEST, str(src), fresh_db=True)
            msgs = int(r["messages"])
            rows.append({"what": what, "tool": "logkb ingest", "lines": n,
                         "source_mb": round(src.stat().st_size / 1e6, 3), "messages": msgs,
                         "seconds": round(r["seconds"], 3),
                         "peak_rss_mb": round(r["rss_mb"]), "problems": int(r["problems"])})
        if not has_ccl():
            rows.append({"what": what, "tool": "claude-code-log", "note": "not installed"})
            continue
        c = best_of(a.runs, CCL, str(src))
        row = {"what": what, "tool": "claude-code-log load_transcript", "lines": n,
               "entries": int(c["entries"]), "seconds": round(c["seconds"], 3),
               "peak_rss_mb": round(c["rss_mb"])}
        print(row, file=sys.stderr, flush=True)
        rows.append(row)
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
