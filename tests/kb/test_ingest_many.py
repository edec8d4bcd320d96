"""Many small files (issue 24) and re-runs (issue 28): what the stat pass, the group of
small new sessions and the deferred graph and index must keep true.

* a re-run opens no file that did not change since it was read (an audit hook sees
  every ``open`` of the process);
* small new sessions written together store exactly what the session-by-session path
  stores, secrets, problems, inputs and owed graphs included, and a session met again
  in a later file (an older or newer copy) is never cut short;
* an append ingests only the new messages;
* an ingest without the graph and the index leaves them owed, and the query that
  reads them builds what an ingest with ``--wait`` builds.
"""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import kb.ingest as ing
from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
from fixtures.opencode_writer import write_jsonl
from kb.store import KbStore

ROOT = Path(__file__).resolve().parents[2]
_opened: list[str] | None = None


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if event == "open" and _opened is not None and isinstance(args[0], (str, bytes, Path)):
        _opened.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


class _Opens:
    def __enter__(self) -> list[str]:
        global _opened
        _opened = []
        return _opened

    def __exit__(self, *exc: object) -> None:
        global _opened
        _opened = None


def _session(ctx: BuildContext, i: int, steps: int = 0, secret: bool = False) -> SessionBuilder:
    s = SessionBuilder(ctx, title=f"small session {i}", start_ms=1_790_000_000_000 + i * 1000)
    s.user(f"question number {i}: why does the build fail?")
    for k in range(steps):
        cmd = f"make test-{k}"
        if secret and k == 0:
            cmd = "curl -u admin:Sup3rS3cretPassw0rd https://example.invalid/api"
        s.step(f"Running step {k}.", [bash(cmd, f"FAILED step {k}\nerror: no rule",
                                           exit_code=2)])
    return s


def _write_dir(d: Path, n: int, seed: int = 24) -> list[SessionBuilder]:
    ctx = BuildContext(random.Random(seed), directory="/home/dev/many", project_id="ab" * 20)
    out = []
    for i in range(n):
        s = _session(ctx, i, steps=i % 3, secret=(i == 2))
        write_jsonl(s.tree(), d / f"s{i:03d}.jsonl")
        out.append(s)
    return out


def _dump(db: Path) -> dict[str, Any]:
    with KbStore(db, read_only=True) as store:
        q = store.conn.execute
        return {
            "messages": q("SELECT * FROM messages ORDER BY session_id, ordinal").fetchall(),
            "events": q("SELECT * FROM events ORDER BY session_id, ordinal, seq, sub, kind"
                        ).fetchall(),
            "sessions": q("SELECT * EXCLUDE (ingested_at) FROM sessions ORDER BY session_id"
                          ).fetchall(),
            "secrets": q("SELECT * FROM secrets ORDER BY ALL").fetchall(),
            "scans": q("SELECT * EXCLUDE (scanned_at) FROM secret_scans ORDER BY ALL"
                       ).fetchall(),
            "sources": q("SELECT * EXCLUDE (ingested_at) FROM sources ORDER BY path"
                         ).fetchall(),
            "problems": sorted(q("SELECT * FROM problems").fetchall(), key=repr),
            "pending": q("SELECT DISTINCT session_id FROM graph_pending ORDER BY 1").fetchall(),
            "nodes": q("SELECT * FROM graph_nodes ORDER BY scope, node_id").fetchall(),
            "edges": sorted(q("SELECT * FROM graph_edges").fetchall(), key=repr),
        }


def _ingest(db: Path, *paths: Path, **kw: Any) -> ing.IngestReport:
    with KbStore(db) as store:
        return ing.ingest(store, list(paths), **kw)


# ------------------------------------------------------------------ the stat pass
def test_rerun_opens_only_what_changed(tmp_path: Path) -> None:
    d = tmp_path / "in"
    _write_dir(d, 12)
    db = tmp_path / "kb.duckdb"
    first = _ingest(db, d)
    assert len(first.sessions) == 12
    with _Opens() as opened:
        again = _ingest(db, d)
    assert not [p for p in opened if p.startswith(str(d))], "an unchanged file was opened"
    assert len(again.unchanged) == 12 and not again.sessions
    # one file changes (a message appended), one is new: those two are opened, no other
    ctx = BuildContext(random.Random(99), directory="/home/dev/many", project_id="cd" * 20)
    grown = _session(ctx, 3, steps=2)
    write_jsonl(grown.tree(), d / "s003.jsonl")
    write_jsonl(_session(ctx, 50).tree(), d / "s050.jsonl")
    with _Opens() as opened:
        third = _ingest(db, d)
    touched = {Path(p).name for p in opened if p.startswith(str(d))}
    assert touched == {"s003.jsonl", "s050.jsonl"}
    assert len(third.unchanged) == 11 and len(third.sessions) == 2


def test_cli_rerun_opens_no_unchanged_file(tmp_path: Path) -> None:
    """The CLI's own stat pass (it plans with the store's inputs before ingesting)."""
    d = tmp_path / "in"
    _write_dir(d, 5)
    db = tmp_path / "kb.duckdb"
    script = (
        "import os, sys\n"
        "opened = []\n"
        "sys.addaudithook(lambda e, a: opened.append(os.fsdecode(a[0])) if e == 'open' "
        "and isinstance(a[0], (str, bytes)) else None)\n"
        "from kb.cli import cli\n"
        f"sys.argv = ['logkb', 'ingest', '--json', '--db', {str(db)!r}, {str(d)!r}]\n"
        "try:\n    cli()\nexcept SystemExit:\n    pass\n"
        f"print(sum(p.startswith({str(d)!r}) for p in opened), file=sys.stderr)\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    runs = [subprocess.run([sys.executable, "-c", script], env=env, capture_output=True,
                           text=True, timeout=300) for _ in range(2)]
    assert all(r.returncode == 0 for r in runs), runs[-1].stderr
    assert int(runs[0].stderr.split()[-1]) >= 5
    assert int(runs[1].stderr.split()[-1]) == 0
    assert len(json.loads(runs[1].stdout)["unchanged"]) == 5


# ------------------------------------------------------- small sessions together
def test_group_stores_what_one_by_one_stores(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    d = tmp_path / "in"
    _write_dir(d, 9)
    slow = tmp_path / "slow.duckdb"
    with pytest.MonkeyPatch.context() as mp:  # no session counts as new: one by one
        mp.setattr(ing._Group, "fresh", lambda self, store, sid: False)
        _ingest(slow, d, graph=False, index=False)
    want = _dump(slow)
    assert want["secrets"] and want["pending"]
    flushed: list[int] = []
    flush = ing._Group.flush

    def counted(self: ing._Group, store: KbStore) -> None:
        flushed.append(len(self.infos))
        flush(self, store)

    monkeypatch.setattr(ing._Group, "flush", counted)
    monkeypatch.setattr(ing, "GROUP_SESSIONS", 4)  # several groups
    fast = tmp_path / "fast.duckdb"
    report = _ingest(fast, d, graph=False, index=False)
    assert sum(flushed) == 9 and max(flushed) == 4
    got = _dump(fast)
    for key in want:
        assert got[key] == want[key], key
    assert sorted((s.session_id, s.messages, s.events) for s in report.sessions) == [
        (r[0], r[12], r[13]) for r in want["sessions"]]  # counts as stored


def test_group_then_copies_keep_every_message(tmp_path: Path) -> None:
    """A session in two files: the short copy first (grouped), the long one later in
    the same ingest, then the short one again: nothing is lost or doubled."""
    ctx = BuildContext(random.Random(7), directory="/home/dev/many", project_id="ef" * 20)
    s = _session(ctx, 1, steps=1)
    short = write_jsonl(s.tree(), tmp_path / "in" / "a-short.jsonl")
    s.step("Another step.", [bash("make again", "ok")])
    s.user("and now?")
    long_ = write_jsonl(s.tree(), tmp_path / "in" / "b-long.jsonl")
    n_long = len(long_.read_bytes().splitlines())
    db = tmp_path / "kb.duckdb"
    report = _ingest(db, tmp_path / "in")
    sid = report.sessions[0].session_id
    with KbStore(db, read_only=True) as store:
        assert store.session(sid)["messages"] == n_long
    report = _ingest(db, short, force=True)  # the older copy again: kept, not cut
    assert report.sessions[0].kept == n_long - len(short.read_bytes().splitlines())
    with KbStore(db, read_only=True) as store:
        assert store.session(sid)["messages"] == n_long


def test_append_ingests_only_the_new_messages(tmp_path: Path) -> None:
    ctx = BuildContext(random.Random(8), directory="/home/dev/many", project_id="aa" * 20)
    s = _session(ctx, 1, steps=4)
    f = write_jsonl(s.tree(), tmp_path / "s.jsonl")
    db = tmp_path / "kb.duckdb"
    first = _ingest(db, f, graph=False, index=False)
    n = first.sessions[0].messages
    with KbStore(db, read_only=True) as store:
        before = store.conn.execute("SELECT message_id, ordinal, digest FROM messages "
                                    "ORDER BY ordinal").fetchall()
    for k in range(3):
        s.step(f"More {k}.", [bash(f"make more-{k}", "ok")])
    write_jsonl(s.tree(), f)
    again = _ingest(db, f, graph=False, index=False)
    assert again.sessions[0].new_messages == 3 and again.sessions[0].messages == n + 3
    with KbStore(db, read_only=True) as store:
        after = store.conn.execute("SELECT message_id, ordinal, digest FROM messages "
                                   "ORDER BY ordinal").fetchall()
    assert after[:n] == before


# ------------------------------------------------- graph and index off the path
def _logkb(*args: str, home: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT), HOME=str(home))
    return subprocess.run([sys.executable, "-m", "kb", *args], env=env, capture_output=True,
                          text=True, timeout=300)


def test_deferred_graph_and_index_equal_waiting(tmp_path: Path) -> None:
    d = tmp_path / "in"
    _write_dir(d, 6)
    waited, deferred = tmp_path / "waited.duckdb", tmp_path / "deferred.duckdb"
    assert _logkb("ingest", "--wait", "--db", str(waited), str(d), home=tmp_path
                  ).returncode == 0
    assert _logkb("ingest", "--db", str(deferred), str(d), home=tmp_path).returncode == 0
    w, f = _dump(waited), _dump(deferred)
    assert w["nodes"] and not w["pending"]
    assert not f["nodes"] and len(f["pending"]) == 6  # owed, not built
    # a search answers from the index it catches up on first
    r = _logkb("search", "--json", "--db", str(deferred), "rule", home=tmp_path)
    assert r.returncode == 0, r.stderr
    hits = sorted((h["session_id"], h["ordinal"], h["seq"], h["field"])
                  for h in map(json.loads, r.stdout.splitlines()))
    assert len(hits) >= 4 and "search index" in r.stderr
    r2 = _logkb("search", "--json", "--db", str(waited), "rule", home=tmp_path)
    assert sorted((h["session_id"], h["ordinal"], h["seq"], h["field"])
                  for h in map(json.loads, r2.stdout.splitlines())) == hits
    # the graph query builds every owed graph: the same graph as --wait
    r = _logkb("deadends", "--all", "--json", "--db", str(deferred), home=tmp_path)
    assert r.returncode in (0, 1), r.stderr
    f = _dump(deferred)
    assert not f["pending"]
    assert f["nodes"] == w["nodes"] and f["edges"] == w["edges"]


def test_rebuild_many_equals_rebuild_one_by_one(tmp_path: Path) -> None:
    """Small scopes rebuilt together (the first graph query after many small files)
    persist what :func:`kb.graph.store.rebuild` persists scope by scope: nodes, edges,
    fingerprints, kept extractor state and rules version, and owe nothing after."""
    import shutil

    from kb.graph import store as gs

    d = tmp_path / "in"
    _write_dir(d, 8)
    real = ROOT.parent / "shared" / "realworld"
    for name in ("opencode/session__quiet-meadow__ses_39c0a3da8ffeFQWvKTGUJWivpv.json",
                 "opencode/session__nimble-pixel__ses_39b4c1891ffezxPVc5OPmcqF33.json",
                 "labelled/Valdyum-Labs__codex-session.jsonl"):
        shutil.copyfile(real / name, d / Path(name).name)
    one, many = tmp_path / "one.duckdb", tmp_path / "many.duckdb"
    _ingest(one, d, graph=False, index=False)
    shutil.copyfile(one, many)

    def graph(db: Path) -> dict[str, Any]:
        with KbStore(db, read_only=True) as store:
            q = store.conn.execute
            return {
                "nodes": q("SELECT * FROM graph_nodes ORDER BY scope, node_id").fetchall(),
                "edges": sorted(q("SELECT * FROM graph_edges").fetchall(), key=repr),
                "builds": q("SELECT scope, messages, fingerprint FROM graph_builds "
                            "ORDER BY scope").fetchall(),
                "marks": q("SELECT scope, marks FROM graph_state ORDER BY scope").fetchall(),
                "versions": q("SELECT scope, extractor_version FROM graph_versions "
                              "ORDER BY scope").fetchall(),
                "pending": q("SELECT * FROM graph_pending").fetchall()}

    with KbStore(one) as store:
        for scope in gs.scopes(store):
            gs.rebuild(store, scope)
    with KbStore(many) as store:
        done, left = gs.rebuild_many(store, gs.scopes(store))
        assert len(done) == 11 and not left
        # built now: each has its kept state, left to rebuild() (which continues it)
        assert gs.rebuild_many(store, gs.scopes(store))[0] == []
    want, got = graph(one), graph(many)
    assert {n[2] for n in want["nodes"]} > {"session"}  # approaches and more, not just sessions
    assert not want["pending"]
    for key in want:
        assert got[key] == want[key], key
    with KbStore(many) as store:  # the kept state continues: a later rebuild finds it current
        assert not any(gs.rebuild(store, s) for s in gs.scopes(store))


def test_watch_opens_only_the_file_that_changed_and_search_sees_it(tmp_path: Path) -> None:
    from kb.live.watch import Watcher
    from kb.search import search

    d = tmp_path / "in"
    _write_dir(d, 4)
    db = tmp_path / "kb.duckdb"
    events: list[dict[str, Any]] = []
    w = Watcher(db, [d], on_event=events.append)
    first = w.ingest_now()
    assert first is not None and len(first["sessions"]) == 4
    ctx = BuildContext(random.Random(5), directory="/home/dev/many", project_id="ab" * 20)
    s = _session(ctx, 1)
    s.step("The zanzibarquux flag fixed it.", [bash("make ok", "ok")])
    write_jsonl(s.tree(), d / "s001.jsonl")
    with _Opens() as opened:
        ev = w.ingest_now()
    assert {Path(p).name for p in opened if p.startswith(str(d))} == {"s001.jsonl"}
    assert ev is not None and [x["new_messages"] for x in ev["sessions"]] == [2]
    with KbStore(db, read_only=True) as store:  # the graph is owed, not built
        assert store.graph_pending()
    assert search(db, "zanzibarquux").hits  # the index catches up when asked
