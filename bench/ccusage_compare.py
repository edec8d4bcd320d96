"""Side by side with ccusage: the real files of ``../shared/realworld`` laid out as the
agents' default folders under a temporary HOME, read by ``logkb usage --by session`` and by
``ccusage session --json`` (run with no network: ``unshare -rn``, ``--offline``), and by an
independent count of the raw lines (``tests/kb/usage_count.py``).  Prints one row per session
with the three counts; ``docs/usage-vs-ccusage.md`` explains every difference.

    python -m bench.ccusage_compare --ccusage /tmp/ccu/node_modules/.bin/ccusage [--json]

ccusage is not a dependency of logkb: install it where you like (``npm install --prefix
/tmp/ccu ccusage``).  Nothing here connects anywhere: ccusage runs in a network namespace of
its own with only loopback (down).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from tests.kb.usage_count import CLAUDE, CODEX, OPENCODE, count_file

ROOT = Path(__file__).resolve().parents[1]


def _first_json(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_bytes().splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if isinstance(d, dict):
            yield d


def lay_out(home: Path, only_db: Path | None = None) -> dict[str, Path]:
    """Copy every real Claude Code, Codex and opencode file where its agent keeps it (the
    first opencode SQLite store as ``opencode.db``, the others left for their own HOME:
    ``only_db`` lays out just that one); returns ``{session id or store: source file}``."""
    where: dict[str, Path] = {}
    data = home / ".local" / "share" / "opencode"
    if only_db is not None:
        _copy_db(only_db, data)
        return {f"db:{only_db}": only_db}
    for path in CLAUDE:
        sid = next((d["sessionId"] for d in _first_json(path) if d.get("sessionId")), path.stem)
        proj = home / ".claude" / "projects" / f"-realworld-{path.stem.split('__')[0]}"
        proj.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, proj / f"{sid}.jsonl")
        where[sid] = path
    for path in CODEX:
        meta = next(d for d in _first_json(path) if d.get("type") == "session_meta")
        sid = meta["payload"]["id"]
        t = datetime.fromisoformat(meta["payload"]["timestamp"].replace("Z", "+00:00"))
        t = t.astimezone(UTC)
        day = home / ".codex" / "sessions" / t.strftime("%Y/%m/%d")
        day.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, day / f"rollout-{t.strftime('%Y-%m-%dT%H-%M-%S')}-{sid}.jsonl")
        where[sid] = path
    storage = data / "storage"
    for path in OPENCODE:
        if path.suffix == ".db":
            if not (data / "opencode.db").exists():
                _copy_db(path, data)
                where[f"db:{path}"] = path
            continue
        export = json.loads(path.read_bytes())
        info = export["info"]
        sid = info["id"]
        (storage / "session" / str(info.get("projectID") or "global")).mkdir(
            parents=True, exist_ok=True)
        (storage / "session" / str(info.get("projectID") or "global")
         / f"{sid}.json").write_text(json.dumps(info))
        for m in export["messages"]:
            mi = m["info"]
            (storage / "message" / sid).mkdir(parents=True, exist_ok=True)
            (storage / "message" / sid / f"{mi['id']}.json").write_text(json.dumps(mi))
            for p in m.get("parts") or []:
                (storage / "part" / mi["id"]).mkdir(parents=True, exist_ok=True)
                (storage / "part" / mi["id"] / f"{p['id']}.json").write_text(json.dumps(p))
        where[sid] = path
    return where


def _copy_db(path: Path, data: Path) -> None:
    data.mkdir(parents=True, exist_ok=True)
    for side in ("", "-wal", "-shm"):
        if (p := path.with_name(path.name + side)).exists():
            shutil.copyfile(p, data / ("opencode.db" + side))


def extra_dbs() -> list[Path]:
    """The opencode stores after the first: each needs a HOME of its own."""
    return [p for p in OPENCODE if p.suffix == ".db"][1:]


def run_logkb(home: Path) -> dict[str, dict[str, Any]]:
    env = {**os.environ, "HOME": str(home), "XDG_DATA_HOME": str(home / ".local" / "share"),
           "XDG_CONFIG_HOME": str(home / ".config"), "PYTHONPATH": str(ROOT)}
    env.pop("CLAUDE_CONFIG_DIR", None)
    env.pop("CODEX_HOME", None)
    db = str(home / "kb.duckdb")
    subprocess.run([sys.executable, "-m", "kb", "ingest", "--db", db, "--no-progress"],
                   env=env, check=False, capture_output=True)
    r = subprocess.run([sys.executable, "-m", "kb", "usage", "--db", db, "--by", "session",
                        "--json"], env=env, check=True, capture_output=True, text=True)
    rows = {}
    for line in r.stdout.splitlines():
        row = json.loads(line)
        rows[row["key"]] = row
    return rows


def run_ccusage(ccusage: str, home: Path, agent: str) -> list[dict[str, Any]]:
    env = {"HOME": str(home), "PATH": os.environ.get("PATH", ""), "NO_COLOR": "1",
           "TZ": "UTC"}
    cmd = ["unshare", "-rn", ccusage, agent, "session", "--json", "--offline", "-z", "UTC"]
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, check=False)
    if r.returncode != 0:
        raise SystemExit(f"ccusage {agent}: exit {r.returncode}: {r.stderr[-2000:]}")
    data = json.loads(r.stdout)
    for key in ("sessions", "data"):
        if isinstance(data, dict) and isinstance(data.get(key), list):
            return list(data[key])
    return list(data) if isinstance(data, list) else [data]


KEYS = (("input", "inputTokens"), ("output", "outputTokens"),
        ("cache_read", "cacheReadTokens"), ("cache_write", "cacheCreationTokens"))


def markdown(d: dict[str, Any]) -> str:
    """One table row per session: the four counts when all three agree (else each), and
    both costs."""
    cc: dict[str, tuple[str, dict[str, Any]]] = {}
    for agent, rows in d["ccusage"].items():
        for r in rows:
            sid = str(r["sessionId"])
            cc[sid[-36:] if agent == "codex" else sid] = (agent, r)
    lines = ["| file | agent | input | output | cache read | cache write | tokens "
             "| logkb cost | ccusage cost |", "|---|---|--:|--:|--:|--:|---|--:|--:|"]
    for sid, ind in sorted(d["independent"].items(), key=lambda kv: kv[1]["file"]):
        lk = d["logkb"].get(sid)
        agent, c = cc.get(sid, ("-", None))
        i = tuple(ind[k] for k, _ in KEYS)
        got = tuple(lk[k] for k, _ in KEYS) if lk else None
        ccu = tuple(c[k] for _, k in KEYS) if c else None
        same = "all equal" if i == got == ccu else f"logkb {got}, ccusage {ccu}"
        lc = "unknown" if lk and lk["cost"] is None else (
            f"{lk['cost']:.4f}" + ("" if lk["cost_complete"] else " (≥)") if lk else "-")
        cost = c.get("totalCost", c.get("costUSD")) if c else None
        name = ind["file"] + (f" ({sid[:14]})" if ind["file"].endswith(".db") else "")
        lines.append(f"| {name} | {agent} | {i[0]:,} | {i[1]:,} | {i[2]:,} | {i[3]:,} "
                     f"| {same} | {lc} | {'-' if cost is None else f'{cost:.4f}'} |")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ccusage", help="the ccusage executable")
    ap.add_argument("--keep", action="store_true", help="keep the temporary HOME")
    ap.add_argument("--markdown", type=Path, metavar="JSON",
                    help="print the table of a saved run's JSON instead of running")
    args = ap.parse_args()
    if args.markdown:
        print(markdown(json.loads(args.markdown.read_text())), end="")
        return
    if not args.ccusage:
        ap.error("--ccusage is required")
    home = Path(tempfile.mkdtemp(prefix="ccusage-home-"))
    try:
        where = lay_out(home)
        logkb = run_logkb(home)
        out: dict[str, Any] = {"home": str(home), "files": {k: str(v) for k, v in where.items()},
                               "logkb": logkb, "independent": {}, "ccusage": {}}
        for path in [*CLAUDE, *CODEX, *OPENCODE]:
            for sid, c in count_file(path).items():
                out["independent"][sid] = c | {"file": str(path.relative_to(path.parents[1]))}
        for agent in ("claude", "codex", "opencode"):
            out["ccusage"][agent] = run_ccusage(args.ccusage, home, agent)
        for db in extra_dbs():
            other = Path(tempfile.mkdtemp(prefix="ccusage-home-"))
            try:
                out["files"] |= {k: str(v) for k, v in lay_out(other, db).items()}
                out["logkb"] |= run_logkb(other)
                out["ccusage"]["opencode"] += run_ccusage(args.ccusage, other, "opencode")
            finally:
                shutil.rmtree(other, ignore_errors=True)
        json.dump(out, sys.stdout, indent=1)
        print()
    finally:
        if not args.keep:
            shutil.rmtree(home, ignore_errors=True)


if __name__ == "__main__":
    main()
