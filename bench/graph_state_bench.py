"""``python -m bench graph-state``: what resuming the extraction from its kept state saves.

For each session (real ones from ``../shared/realworld`` and generated ones, see
``--generated``) and each number of appended messages N (``--append``): the session minus
its last N lines (JSONL) or messages (an ``opencode export`` JSON) is ingested and its
graph built, which keeps the extractor's state (``graph_state``); then the whole session
is ingested and the graph updated two ways, timed in wall and CPU seconds:

- **resume**: :func:`kb.graph.store.rebuild` as ingest, watch and live do: the kept state
  is read, fed the new rows, kept again; then the graph is finished and persisted;
- **full**: the same with ``force=True``: every row read and walked again (what dropping
  the kept state would cost on every append).

Beside them: the extraction step alone (the rules' pass, without finishing and
persisting), the kept state's size in bytes, and the time to encode and decode it.
Counts are lines for JSONL files, so ``appended`` reports the messages that were new;
``resumed`` says whether the kept state could be resumed (same look-ahead).  Every
time is CPU seconds of this process but the ``*_wall_s`` ones.

    python -m bench graph-state                       # the six real sessions, appends 1 50 500
    python -m bench graph-state --generated 10000,40000 --no-real
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any, TypeVar

import orjson

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "realworld"
REAL = {
    "k1": SHARED / "labelled" / "k1.lib-bootstrap__session-export.json",
    "uicomponents-wordpress": SHARED / "labelled" / "uicomponents__session-wordpress.json",
    "soulpass": SHARED / "labelled" / "soulpass__codex-session.jsonl",
    "conversacion-act1-pln": SHARED / "pool" / "conversacion-act1-pln__session.jsonl",
    "blockchain-dex-events": SHARED / "pool" / "blockchain-dex-events__claude-session.jsonl",
    "FundWise": SHARED / "pool" / "FundWise__claude-session.jsonl",
}
DATA = Path(__file__).resolve().parent / "data"
T = TypeVar("T")


def generated(messages: int) -> Path:
    """A ``bench/gen_session.py`` opencode JSONL session of ``messages`` messages."""
    path = DATA / f"session-{messages}.jsonl"
    if not path.exists():
        DATA.mkdir(exist_ok=True)
        subprocess.run([sys.executable, str(Path(__file__).parent / "gen_session.py"),
                        "--messages", str(messages), "--form", "jsonl", str(path)], check=True)
    return path


def cut(src: Path, dst: Path, drop: int) -> None:
    """``src`` without its last ``drop`` lines (JSONL) or messages (an export), at most
    half of them."""
    if src.suffix == ".json":
        doc = json.loads(src.read_bytes())
        drop = min(drop, len(doc["messages"]) // 2)
        if drop:
            doc["messages"] = doc["messages"][:-drop]
        dst.write_bytes(orjson.dumps(doc))
        return
    lines = src.read_bytes().splitlines(keepends=True)
    drop = min(drop, len(lines) // 2)
    dst.write_bytes(b"".join(lines[:len(lines) - drop]))


def timed(fn: Callable[[], T]) -> tuple[T, float, float]:
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return out, time.perf_counter() - w, time.process_time() - c


def measure(name: str, src: Path, appends: list[int], tmp: Path) -> list[dict[str, Any]]:
    from kb.graph import store as gs
    from kb.ingest import ingest
    from kb.store import KbStore

    rows: list[dict[str, Any]] = []
    work = tmp / f"{name}{src.suffix}"
    base = tmp / f"{name}-base.duckdb"
    biggest = max(appends)
    cut(src, work, biggest)
    with KbStore(base) as store:  # the first ingest, untimed
        ingest(store, [work], index=False)
    for n in sorted(appends, reverse=True):
        db = tmp / f"{name}-{n}.duckdb"
        shutil.copyfile(base, db)
        with KbStore(db) as store:
            if n != biggest:  # grow to the head of this append (the state follows it)
                cut(src, work, n)
                ingest(store, [work], index=False)
            scope = max(gs.scopes(store), key=lambda s: gs.scope_sizes(store, [s])[s])
            before = gs.scope_sizes(store, [scope])[scope]
            cut(src, work, 0)
            ingest(store, [work], graph=False, index=False)
            sids = gs.scope_sessions(store, scope)
            after = gs.scope_sizes(store, [scope])[scope]
            kept = store.conn.execute("SELECT marks, state FROM graph_state WHERE scope = ?",
                                      [scope]).fetchone()
            assert kept is not None, f"{name}: no kept state"
            row = _timings(store, scope, sids, kept[0], kept[1])
            snapshot = tmp / "snap.duckdb"
            store.conn.execute("CHECKPOINT")
            shutil.copyfile(db, snapshot)
            # the whole graph update, as ingest, watch and live run it
            _, uw, uc = timed(partial(gs.rebuild, store, scope))
        with KbStore(snapshot) as store:
            _, gw, gc = timed(partial(gs.rebuild, store, scope, force=True))
        rows.append({"session": name, "messages": after, "appended": after - before, **row,
                     "rebuild_resume_s": round(uc, 3), "rebuild_full_s": round(gc, 3),
                     "rebuild_resume_wall_s": round(uw, 3), "rebuild_full_wall_s": round(gw, 3)})
    return rows


def _timings(store: Any, scope: str, sids: list[str], marks_raw: str, kept: Any
             ) -> dict[str, Any]:
    """The extraction step alone, resumed from the kept state vs run over every row, and
    the kept form's size and codec times."""
    from kb.graph import state as xstate
    from kb.graph import store as gs

    marks = orjson.loads(marks_raw)

    def resume() -> Any:
        k = xstate.load(kept)
        assert k is not None
        resumed = k.resume(*gs.load_rows(store, sids, {s: m[0] for s, m in marks.items()}))
        return resumed, xstate.dump(k)

    def full() -> Any:
        return xstate.Kept.first_pass(scope, *gs.load_rows(store, sids))

    (resumed, _), rw, rc = timed(resume)
    ex, fw, fc = timed(full)
    data, _, ew = timed(partial(xstate.dump, ex))
    _, _, dw = timed(partial(xstate.load, data))
    return {"extract_resume_s": round(rc, 3), "extract_full_s": round(fc, 3),
            "extract_resume_wall_s": round(rw, 3), "extract_full_wall_s": round(fw, 3),
            "state_bytes": len(data.encode() if isinstance(data, str) else data), "encode_s": round(ew, 3), "decode_s": round(dw, 3),
            "codec": xstate.CODEC, "resumed": resumed}


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench graph-state",
                                 description=__doc__.split("\n\n")[0] if __doc__ else None)
    ap.add_argument("--append", default="1,50,500",
                    help="lines (JSONL) or messages (export) appended, comma-separated")
    ap.add_argument("--generated", default="",
                    help="sizes of generated sessions to add, e.g. 10000,40000")
    ap.add_argument("--no-real", action="store_true", help="leave the real sessions out")
    ap.add_argument("--only", default="", help="real sessions to run, comma-separated")
    ap.add_argument("--json", action="store_true", help="one JSON object a line")
    a = ap.parse_args(argv)
    appends = [int(x) for x in a.append.split(",") if x]
    sources: dict[str, Path] = {}
    if not a.no_real:
        only = set(filter(None, a.only.split(",")))
        sources.update({k: v for k, v in REAL.items() if not only or k in only})
    for size in filter(None, a.generated.split(",")):
        sources[f"generated-{size}"] = generated(int(size))
    head = ("session", "messages", "appended", "extract_resume_s", "extract_full_s",
            "rebuild_resume_s", "rebuild_full_s", "state_bytes", "encode_s", "decode_s")
    if not a.json:
        print("CPU seconds; " + " ".join(head), file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bench-xstate-") as tmp:
        for name, src in sources.items():
            for row in measure(name, src, appends, Path(tmp)):
                print(json.dumps(row) if a.json else " ".join(str(row[k]) for k in head),
                      flush=True)


if __name__ == "__main__":
    main()
