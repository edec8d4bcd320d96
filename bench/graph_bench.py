"""Knowledge-graph benchmark: derivation on a big campaign, growth by 100 messages, queries.

    python -m bench graph [--messages 100000]

The session is the Blackwell fixture campaign (story and all) followed by
generated routine messages up to ``--messages``, so the graph has real
approaches, dead ends and questions and the extraction reads a session of the
target size.  Steps, each timed:

1. ingest without the graph; 2. derive and persist the graph from scratch;
3. append 100 messages and ingest them, then update the graph (continues the
extraction pass); 4. the queries (deadends, untested, why, timeline) on the
persisted graph, which never rebuild it.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import orjson

HERE = Path(__file__).resolve().parent
DATA = HERE / "data"


def campaign(messages: int) -> tuple[Path, Path]:
    """``(head, full)``: the campaign grown to ``messages`` and the same minus 100 messages."""
    DATA.mkdir(exist_ok=True)
    full = DATA / f"campaign-{messages}.jsonl"
    head = DATA / f"campaign-{messages}-head.jsonl"
    if full.exists() and head.exists():
        return head, full
    from fixtures.blackwell.build import build

    fx = DATA / "blackwell"
    if not (fx / "manifest.json").exists():
        build(fx)
    story = (fx / "session.jsonl").read_bytes().splitlines()
    manifest = json.loads((fx / "manifest.json").read_text())
    sid = manifest["session_id"]
    extra = messages - len(story)
    filler = DATA / f"filler-{extra}.jsonl"
    if not filler.exists():
        subprocess.run([sys.executable, str(HERE / "gen_session.py"), "--messages", str(extra),
                        "--form", "jsonl", "--seed", "77", str(filler)], check=True)
    last = orjson.loads(story[-1])["info"]["time"]["created"]
    out: list[bytes] = list(story)
    with open(filler, "rb") as f:
        for i, line in enumerate(f):
            m = orjson.loads(line)
            created = m["info"]["time"]["created"]
            if i == 0:
                shift = last + 60_000 - created
            _retag(m, sid, shift)
            out.append(orjson.dumps(m))
    full.write_bytes(b"\n".join(out) + b"\n")
    head.write_bytes(b"\n".join(out[:-100]) + b"\n")
    return head, full


def _retag(m: dict, sid: str, shift: int) -> None:
    info = m["info"]
    info["sessionID"] = sid
    for key in ("created", "completed"):
        if key in info.get("time", {}):
            info["time"][key] += shift
    for p in m["parts"]:
        p["sessionID"] = sid
        t = p.get("state", {}).get("time") if p.get("type") == "tool" else p.get("time")
        if isinstance(t, dict):
            for key in ("start", "end"):
                if key in t:
                    t[key] += shift


def timed(fn, *args, **kwargs):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = fn(*args, **kwargs)
    return out, time.perf_counter() - t


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench graph")
    ap.add_argument("--messages", type=int, default=100_000)
    args = ap.parse_args(argv)
    from click.testing import CliRunner

    from kb.cli import cli
    from kb.graph import store as gs
    from kb.ingest import ingest
    from kb.store import KbStore

    head, full = campaign(args.messages)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "kb.duckdb"
        work = Path(tmp) / "session.jsonl"
        work.write_bytes(head.read_bytes())
        rows = {}
        with KbStore(db) as store:
            _, rows["ingest_s"] = timed(ingest, store, [work], graph=False)
            scope = gs.scopes(store)[0]
            _, rows["graph_full_s"] = timed(gs.rebuild, store, scope, force=True)
            work.write_bytes(full.read_bytes())
            _, rows["ingest_100_more_s"] = timed(ingest, store, [work], graph=False)
            _, rows["graph_update_100_s"] = timed(gs.rebuild, store, scope)
            rows["messages"] = store.session(scope)["messages"]
            rows["dead_ends"] = len(gs.dead_ends(store, [scope]))
        run = CliRunner()
        for name, cmd in (("deadends", ["deadends", "--json"]), ("untested", ["untested"]),
                          ("why", ["why", "DeepEP"]), ("timeline", ["timeline"])):
            def query(cmd: list[str] = cmd) -> None:
                r = run.invoke(cli, [*cmd, "--db", str(db)])
                assert r.exit_code == 0, r.output
            query()
            _, rows[f"query_{name}_s"] = timed(query)
    for k, v in rows.items():
        print(f"{k:<22} {v:.3f}" if isinstance(v, float) else f"{k:<22} {v}")


if __name__ == "__main__":
    main()
