"""Ingest survives kill -9 anywhere (issue 8): the next ingest leaves messages, events,
problems and the knowledge graph identical to a clean ingest.

Bounded and deterministic: a fixed seed picks the kill points; a few trials kill at a
random time in the run, the others right after a batch was written or while the graph
phase runs (the child prints a marker on stdout at those points, so the kill lands
where the issue saw the graph stay empty).
"""

from __future__ import annotations

import os
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from kb.ingest import ingest
from kb.store import KbStore

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld"
SELFTEST = REAL / "opencode-recorded" / "selftest"
SEED = 8
# (where, count): "time" = a random moment, "batch" = after a batch committed or not,
# "graph" = during the graph phase
TRIALS = [("time", 2), ("batch", 2), ("graph", 3)]

CHILD = r"""
import sys
import kb.ingest as ing
import kb.graph.store as gs

def marked(name, fn):
    def wrapper(*a, **k):
        print(name, flush=True)
        return fn(*a, **k)
    return wrapper

ing._flush = marked("batch", ing._flush)
ing._Group.flush = marked("batch", ing._Group.flush)  # small sessions written together
gs.rebuild = marked("graph", gs.rebuild)
gs.rebuild_many = marked("graph", gs.rebuild_many)  # small scopes built together
ing.BATCH_MESSAGES = 4  # several batches per session
ing.COMMIT_BYTES = 0  # each committed on its own
from kb.cli import cli
sys.argv = ["logkb", "ingest", "--wait", "--db", sys.argv[1], sys.argv[2]]
cli()
"""


def _inputs(tmp: Path) -> Path:
    d = tmp / "in"
    db = d / "data"
    db.mkdir(parents=True)
    for s in ("", "-wal", "-shm"):
        shutil.copyfile(str(SELFTEST / "opencode.db") + s, str(db / "opencode.db") + s)
    shutil.copyfile(REAL / "opencode" / "session__nimble-pixel__ses_39b4c1891ffezxPVc5OPmcqF33"
                    ".json", d / "nimble.json")
    shutil.copyfile(REAL / "opencode" / "session__jolly-eagle__ses_39b5d713cffeRgAoxPIwS3Plus"
                    ".json", d / "jolly.json")
    return d


def dump(path: Path) -> dict[str, Any]:
    with KbStore(path, read_only=True) as store:
        q = store.conn.execute
        return {
            "messages": q("SELECT * FROM messages ORDER BY session_id, ordinal").fetchall(),
            "events": q("SELECT * FROM events ORDER BY session_id, ordinal, seq, sub, kind"
                        ).fetchall(),
            "sessions": q("SELECT * EXCLUDE (ingested_at) FROM sessions ORDER BY session_id"
                          ).fetchall(),
            "problems": sorted(q("SELECT * FROM problems").fetchall(), key=repr),
            "nodes": q("SELECT * FROM graph_nodes ORDER BY scope, node_id").fetchall(),
            "edges": sorted(q("SELECT * FROM graph_edges").fetchall(), key=repr),
            "builds": q("SELECT scope, messages, fingerprint FROM graph_builds ORDER BY scope"
                        ).fetchall(),
            "pending": q("SELECT session_id FROM graph_pending").fetchall(),
        }


def _recover(db: Path, src: Path) -> None:
    with KbStore(db) as store:
        report = ingest(store, [src])
        assert not report.errors


def _kill_run(db: Path, src: Path, where: str, rng: random.Random, total: float) -> str:
    """Run an ingest in a child and kill -9 it at the chosen point; what happened."""
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    p = subprocess.Popen([sys.executable, "-c", CHILD, str(db), str(src)], env=env,
                         stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    assert p.stdout is not None
    try:
        if where == "time":
            time.sleep(rng.uniform(0.2, 0.8) * total)
        else:
            skip = rng.randrange(0, 3) if where == "batch" else rng.randrange(0, 2)
            for line in p.stdout:
                if line.strip() == where:
                    if skip == 0:
                        break
                    skip -= 1
            time.sleep(rng.uniform(0, 0.05 if where == "batch" else 0.1))
        p.send_signal(signal.SIGKILL)
    finally:
        rc = p.wait()
    return "killed" if rc == -signal.SIGKILL else f"finished ({rc})"


def test_kill_minus_nine_then_ingest_equals_a_clean_ingest(tmp_path: Path) -> None:
    src = _inputs(tmp_path)
    clean = tmp_path / "clean.duckdb"
    t0 = time.monotonic()
    p = subprocess.run([sys.executable, "-c", CHILD, str(clean), str(src)],
                       capture_output=True, text=True)
    total = time.monotonic() - t0
    assert p.returncode in (0, 4), p.stderr
    want = dump(clean)
    assert want["nodes"] and want["messages"] and not want["pending"]
    rng = random.Random(SEED)
    outcomes = []
    for where, count in TRIALS:
        for n in range(count):
            db = tmp_path / f"{where}{n}.duckdb"
            outcomes.append(_kill_run(db, src, where, rng, total))
            _recover(db, src)
            got = dump(db)
            for key in want:
                assert got[key] == want[key], (where, n, key)
    assert outcomes.count("killed") >= 5, outcomes
