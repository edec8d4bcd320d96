"""The fast graph rebuild (issue 28) persists the graph the plain way does.

The plain way: one :func:`kb.graph.store.rebuild` per scope (its rows loaded by queries
of its own), every text rule computed (``logparse.memo`` off), every loaded row walked
by the redactor and every approach compared with each text (no token index).  The fast way: :func:`kb.graph.store.rebuild_all` (many scopes'
rows in one set of queries, persisted in one transaction), the text rules memoised,
the redactor walking only the rows a secret or a display cut falls in; once with the
memos filling and once answering every text from memory.  On the real sessions
(``../shared/realworld`` pool but its held-out files, and labelled) and on the fixture
campaign, the persisted tables must be the same row by row, the kept extractor state the
same once decoded.
"""

from __future__ import annotations

import shutil
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

import logparse.memo as memo_mod
from kb.graph import state as xstate
from kb.graph import store as gs
from kb.graph.extract import Extractor
from kb.graph.text import tokens
from kb.ingest import ingest
from kb.redact import Redactor
from kb.store import KbStore
from logparse.registry import detect

_rows = Redactor.rows


def _walk_every_row(red: Redactor, rows: list[Any], *, cut_head: tuple[str, ...] = (),
                    cut_tail: tuple[str, ...] = ()) -> list[Any]:
    """:meth:`Redactor.rows` as it was: every row walked."""
    if not red.active:
        return rows
    out = []
    for row in rows:
        d = {k: red._walk(v) for k, v in row._asdict().items()}
        for f in cut_head:
            d[f] = red.text(d[f], cut_head=True)
        for f in cut_tail:
            d[f] = red.text(d[f], cut_tail=True)
        out.append(type(row)(**d))
    return out


def _mentioned_by_every_approach(self: Extractor, text: str, *, loose: bool = False
                                 ) -> list[Any]:
    """:meth:`Extractor.mentioned` as it was: every approach compared with the text."""
    if not self.approaches:
        return []
    toks = tokens(text)
    if loose:
        toks = toks - self.common
    out = []
    if getattr(self, "_df_n", -1) != len(self.approaches):
        self._df = Counter(t for x in self.approaches for t in x.tokens)
        self._df_n = len(self.approaches)
    df = self._df
    for a in self.approaches:
        if a.kind == "goal" or not a.tokens:
            continue
        common = a.tokens & toks
        need = min(len(a.tokens), 2)
        distinctive = any(df[t] == 1 and len(t) >= 3 and not t[0].isdigit() for t in common)
        if len(common) >= need and (len(common) / len(a.tokens) >= 0.5 or distinctive):
            out.append(a)
        elif loose and distinctive:
            out.append(a)
    return out


def _canon(obj: Any) -> Any:
    """An object graph as plain values (a decoded extractor has no ``__eq__``)."""
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        return (type(obj).__name__, {k: _canon(v) for k, v in vars(obj).items()})
    if isinstance(obj, (list, tuple)):
        return [_canon(x) for x in obj]
    if isinstance(obj, dict):
        return {k: _canon(v) for k, v in obj.items()}
    return obj


def _tables(db: Path) -> dict[str, Any]:
    with KbStore(db, read_only=True) as store:
        q = store.conn.execute
        return {
            "nodes": q("SELECT * FROM graph_nodes ORDER BY ALL").fetchall(),
            "edges": q("SELECT * FROM graph_edges ORDER BY ALL").fetchall(),
            "builds": q("SELECT scope, messages, fingerprint FROM graph_builds "
                        "ORDER BY ALL").fetchall(),
            "versions": q("SELECT scope, extractor_version FROM graph_versions "
                          "ORDER BY ALL").fetchall(),
            "state": [(s, m, _canon(xstate.load(st, s))) for s, m, st in q(
                "SELECT scope, marks, state FROM graph_state ORDER BY scope").fetchall()],
            "pending": q("SELECT * FROM graph_pending ORDER BY ALL").fetchall()}


def _plain(src: Path, dst: Path, monkeypatch: pytest.MonkeyPatch, force: bool) -> None:
    shutil.copyfile(src, dst)
    rows, mentioned = Redactor.rows, Extractor.mentioned
    monkeypatch.setattr(memo_mod, "ENABLED", False)
    monkeypatch.setattr(Redactor, "rows", _walk_every_row)
    monkeypatch.setattr(Extractor, "mentioned", _mentioned_by_every_approach)
    memo_mod.clear_all()
    with KbStore(dst) as store:
        for scope in gs.scopes(store):
            gs.rebuild(store, scope, force=force)
    assert not any(h or m for h, m in memo_mod.stats().values())  # nothing remembered
    monkeypatch.setattr(memo_mod, "ENABLED", True)
    monkeypatch.setattr(Redactor, "rows", rows)
    monkeypatch.setattr(Extractor, "mentioned", mentioned)


def _fast(src: Path, dst: Path, force: bool) -> list[str]:
    shutil.copyfile(src, dst)
    with KbStore(dst) as store:
        return gs.rebuild_all(store, force=force)


def _same(want: dict[str, Any], got: dict[str, Any]) -> None:
    for key in want:
        assert len(got[key]) == len(want[key]), key
        for w, g in zip(want[key], got[key]):
            assert g == w, key


def _compare(src: Path, tmp: Path, monkeypatch: pytest.MonkeyPatch, *, force: bool
             ) -> dict[str, Any]:
    _plain(src, tmp / "plain.duckdb", monkeypatch, force)
    want = _tables(tmp / "plain.duckdb")
    memo_mod.clear_all()
    _fast(src, tmp / "filling.duckdb", force)
    _same(want, _tables(tmp / "filling.duckdb"))
    misses = {n: m for n, (_, m) in memo_mod.stats().items()}
    _fast(src, tmp / "remembered.duckdb", force)  # every text answered from memory
    _same(want, _tables(tmp / "remembered.duckdb"))
    st = memo_mod.stats()
    for name in ("prose phrase", "check key", "call signals"):
        hits, miss = st[name]
        assert miss == misses[name] and hits >= miss > 0, name
    memo_mod.clear_all()
    return want


def test_fast_rebuild_persists_the_plain_graph_of_real_sessions(
        realworld: Path, open_pool: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    files = []
    for d in (open_pool, realworld / "labelled"):
        for f in sorted(d.iterdir()):
            try:
                detect(f)
            except Exception:  # noqa: BLE001 - not a transcript logkb reads
                continue
            files.append(f)
    assert len(files) >= 20
    src = tmp_path / "src.duckdb"
    with KbStore(src) as store:
        ingest(store, files, graph=False, index=False)
        assert store.redactor.active  # the real sessions hold secrets: redaction is tried
    walked: list[int] = []

    def both(red: Redactor, rows: list[Any], **cut: Any) -> list[Any]:
        got, want = _rows(red, rows, **cut), _walk_every_row(red, rows, **cut)
        assert got == want
        walked.append(sum(g != r for g, r in zip(got, rows)))
        return got

    monkeypatch.setattr(Redactor, "rows", both)  # the fast builds check each call
    want = _compare(src, tmp_path, monkeypatch, force=False)
    assert sum(walked) > 0  # some loaded row did hold a secret or a cut
    scopes = {s for s, *_ in want["builds"]}
    assert len(scopes) >= 20 and not want["pending"]
    assert {n[2] for n in want["nodes"]} > {"session", "approach"}


def test_fast_rebuild_persists_the_plain_graph_of_the_fixture_campaign(
        blackwell_db_copy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with KbStore(blackwell_db_copy, read_only=True) as store:
        assert any(len(gs.scope_sessions(store, s)) > 1 for s in gs.scopes(store))
        sids = [r[0] for r in store.conn.execute("SELECT session_id FROM sessions")
                .fetchall()] + ["ses_not_stored"]
        assert gs.scopes_of(store, sids) == {s: gs.scope_of(store, s) for s in sids}
    want = _compare(blackwell_db_copy, tmp_path, monkeypatch, force=True)
    assert any(n[2] == "approach" and n[4] == "dead_end" for n in want["nodes"])


def test_fast_rebuild_continues_kept_states_as_the_plain_one(
        open_pool: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions that grew after their graph was built: each scope's kept extractor state
    continues from the rows after its marks, read for all scopes at once."""
    home = tmp_path / "in"
    home.mkdir()
    full = {}
    for f in sorted(open_pool.glob("*.jsonl")):
        try:
            detect(f)
        except Exception:  # noqa: BLE001 - not a transcript logkb reads
            continue
        lines = f.read_bytes().splitlines(keepends=True)
        full[home / f.name] = b"".join(lines)
        (home / f.name).write_bytes(b"".join(lines[: len(lines) * 2 // 3]))
    assert len(full) >= 8
    src = tmp_path / "src.duckdb"
    with KbStore(src) as store:
        ingest(store, [home], graph=True, index=False)
        before = dict(store.conn.execute("SELECT scope, marks FROM graph_state").fetchall())
    for path, data in full.items():  # the sessions go on
        path.write_bytes(data)
    with KbStore(src) as store:
        rep = ingest(store, [home], graph=False, index=False)
        assert len(rep.sessions) >= 8
    want = _compare(src, tmp_path, monkeypatch, force=False)
    grown = [s for s, m, _ in want["state"] if s in before and m != before[s]]
    assert len(grown) >= 8
