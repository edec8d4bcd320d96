"""Deriving in the worker process (:mod:`kb.derive_pool`) stores exactly what deriving inline
does: the same rows, problems, secrets and sessions, for every input form, from scratch and
incrementally; the Arrow tables of a batch hold the deriver's rows."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import kb.ingest as ing
from kb.arrow import SCHEMAS, to_arrow_batch
from kb.derive_pool import DerivePool, DeriveWorkerError, LocalDeriver
from kb.ingest import ingest
from kb.store import KbStore
from logparse.derive import COLUMNS, Deriver, derive_session, digest
from logparse.registry import detect
from tests.kb.test_store import dump


def _inputs(realworld: Path, selftest: Path, blackwell: Path) -> list[Path]:
    return [selftest / "opencode.db", realworld / "opencode", realworld / "claude-code",
            realworld / "codex", blackwell / "session.jsonl", blackwell / "export.json",
            blackwell / "run.jsonl"]


def _state(store: KbStore) -> dict[str, list[tuple[object, ...]]]:
    out = dump(store)
    out["secrets"] = store.conn.execute(
        "SELECT * FROM secrets ORDER BY ALL").fetchall()
    out["problems"] = sorted(out["problems"], key=repr)
    return out


@pytest.fixture
def small_batches(monkeypatch: pytest.MonkeyPatch) -> None:
    """Several batches and transactions per session, so that the pipeline has batches in
    flight and the turn state crosses batch boundaries."""
    monkeypatch.setattr(ing, "BATCH_MESSAGES", 64)
    monkeypatch.setattr(ing, "COMMIT_BYTES", 200_000)


@pytest.fixture(scope="module")
def clean_state(blackwell: Path, tmp_path_factory: pytest.TempPathFactory
                ) -> dict[str, list[tuple[object, ...]]]:
    """The fixture campaign's main session ingested once, cleanly, through the worker with
    the default batches: what an interrupted or grown ingest must end up equal to (the
    stored rows do not depend on where batches and commits fall)."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("LOGKB_DERIVE_POOL", "1")
        with KbStore(tmp_path_factory.mktemp("clean") / "kb.duckdb") as store:
            ingest(store, [blackwell / "session.jsonl"], graph=False)
            return _state(store)


def test_the_worker_stores_what_inline_derivation_does(
        realworld: Path, selftest: Path, blackwell: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, small_batches: None) -> None:
    inputs = _inputs(realworld, selftest, blackwell)
    states = {}
    for mode in ("0", "1"):
        monkeypatch.setenv("LOGKB_DERIVE_POOL", mode)
        with KbStore(tmp_path / f"kb{mode}.duckdb") as store:
            report = ingest(store, inputs, graph=False)
            states[mode] = (_state(store), sorted(repr(p) for p in report.problems),
                            report.new_messages)
    assert states["1"] == states["0"]
    assert states["0"][2] > 5000  # the fixture campaign went through the pipeline


def test_incremental_ingest_through_the_worker(blackwell: Path, tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch,
                                               small_batches: None,
                                               clean_state: dict[str, list[tuple[object, ...]]]
                                               ) -> None:
    """A session that grew: the stored messages are skipped in the worker too (the batch
    boundaries count derived messages only), and the result equals a fresh ingest."""
    lines = (blackwell / "session.jsonl").read_bytes().splitlines(keepends=True)
    part = tmp_path / "session.jsonl"
    monkeypatch.setenv("LOGKB_DERIVE_POOL", "1")
    with KbStore(tmp_path / "grown.duckdb") as store:
        part.write_bytes(b"".join(lines[:700]))
        ingest(store, [part], graph=False)
        part.write_bytes(b"".join(lines))
        grown = ingest(store, [part], graph=False)
        assert grown.new_messages == len(lines) - 700
        assert _state(store) == clean_state


def test_arrow_batch_holds_the_rows(blackwell: Path) -> None:
    """The Arrow tables written are the deriver's row tuples, column for column."""
    path = blackwell / "session.jsonl"
    src = next(detect(path)().sessions(path, []))
    batch, _ = derive_session(src.session_id, str(path), src.messages)
    arrow = to_arrow_batch(batch)
    assert arrow.lost == []
    for name, rows in batch.tables():
        if not rows:
            assert name not in arrow.tables
            continue
        tbl = arrow.tables[name]
        assert tbl.schema == SCHEMAS[name]
        got = list(zip(*(tbl.column(c).to_pylist() for c in tbl.schema.names)))
        want = [tuple(v.decode() if isinstance(v, bytes) else v for v in r) for r in rows]
        assert got == want
    assert len(arrow) == len(batch.messages)
    assert arrow.message_ids() == [r[0] for r in batch.messages]
    raw = COLUMNS["messages"].index("raw")
    assert arrow.source_bytes() == sum(len(r[raw]) for r in batch.messages)


def test_local_and_remote_derivers_answer_alike(blackwell: Path) -> None:
    path = blackwell / "session.jsonl"
    src = next(detect(path)().sessions(path, []))
    msgs = list(src.messages)[:500]
    pool = DerivePool()
    try:
        local = LocalDeriver(src.session_id, str(path), {})
        remote = pool.deriver(src.session_id, str(path), {})
        out = {}
        for d in (local, remote):
            got = []
            for m in msgs:
                d.add(m, digest(m.raw))
                if d.pending >= 100:
                    d.submit()
                    got += d.results()
            d.submit()
            got += d.results(wait=True)
            d.close()
            out[d] = ([{k: t.to_pylist() for k, t in b.tables.items()} for b in got],
                      [b.times for b in got], d.first_time, d.last_time, d.derived,
                      d.out_of_order, [p.model_dump() for p in d.problems])
        assert out[remote] == out[local]
        inline = Deriver(src.session_id, str(path))
        inline.add_all(msgs)
        assert out[local][4] == inline.derived == 500
    finally:
        pool.close()


def test_a_worker_that_dies_fails_the_ingest_cleanly(
        blackwell: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        clean_state: dict[str, list[tuple[object, ...]]]) -> None:
    """The worker gone mid-ingest: a clear error, the committed batches whole, and the next
    ingest stores the same as a clean one."""
    monkeypatch.setenv("LOGKB_DERIVE_POOL", "1")
    monkeypatch.setattr(ing, "BATCH_MESSAGES", 256)
    monkeypatch.setattr(ing, "COMMIT_BYTES", 0)
    calls = {"n": 0}
    real = DerivePool.send

    def send_then_kill(self: DerivePool, request: tuple[object, ...], slot: object) -> None:
        real(self, request, slot)  # type: ignore[arg-type]
        calls["n"] += 1
        if calls["n"] == 3:
            self._procs[slot.worker].kill()  # type: ignore[attr-defined]

    src = tmp_path / "session.jsonl"
    shutil.copyfile(blackwell / "session.jsonl", src)
    with KbStore(tmp_path / "kb.duckdb") as store:
        monkeypatch.setattr(DerivePool, "send", send_then_kill)
        with pytest.raises(DeriveWorkerError, match="derive worker"):
            ingest(store, [src], graph=False)
        partial = store.conn.execute("SELECT count(*) FROM messages").fetchone()
        assert partial is not None and 0 < partial[0] < 1000
        monkeypatch.setattr(DerivePool, "send", real)
        ingest(store, [src], graph=False)
        assert _state(store) == clean_state


def test_workers_import_this_tree_not_the_working_directorys(
        realworld: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A worker started from another logkb checkout derives with the ingesting process's
    code: ``-m`` put the working directory first on the worker's path, so a benchmark or
    ``bench diff`` run from a worktree compared that tree's rules with themselves."""
    other = tmp_path / "checkout" / "kb"
    other.mkdir(parents=True)
    (other / "__init__.py").write_text("")
    (other / "derive_pool.py").write_text("raise SystemExit(3)  # not this tree's worker\n")
    monkeypatch.chdir(other.parent)
    path = sorted((realworld / "opencode").rglob("*.json*"))[0]
    sessions = detect(path)().sessions(path, [])  # the file stays open while it runs
    src = next(sessions)
    msgs = list(src.messages)[:50]
    assert msgs
    pool = DerivePool()
    try:
        remote = pool.deriver(src.session_id, str(path), {})
        for m in msgs:
            remote.add(m, digest(m.raw))
        remote.submit()
        got = remote.results(wait=True)
        remote.close()
        assert sum(b.tables["messages"].num_rows for b in got) == len(msgs)
    finally:
        pool.close()
