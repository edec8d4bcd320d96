"""The memos of derivation (:mod:`logparse.memo`, issue 28) change nothing: every real
session derives to the same rows, the same Arrow tables, the same problems and the same
secrets with the memos off, filling, and answering every text from memory."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

import logparse.memo as memo_mod
from kb.arrow import to_arrow_batch
from kb.secrets import batch_findings
from logparse.derive import Deriver, digest
from logparse.memo import Memo, clear_all, stats, text_key
from logparse.registry import detect


def _real_files(realworld: Path, open_pool: Path) -> list[Path]:
    out = []
    for d in (open_pool, *(realworld / sub for sub in ("labelled", "claude-code", "codex",
                                                        "opencode"))):
        for f in sorted(d.rglob("*")):
            if not f.is_file():
                continue
            try:
                detect(f)
            except Exception:  # noqa: BLE001 - not a transcript logkb reads
                continue
            out.append(f)
    return out


def _derive_all(files: list[Path]) -> list[Any]:
    """Per session: its rows (in 64-message batches, as an ingest takes them), their Arrow
    tables, the secrets the batches hold, the problems."""
    out: list[Any] = []
    for f in files:
        problems: list[Any] = []
        for s in detect(f)().sessions(f, problems, None):
            d = Deriver(s.session_id, str(f), {})
            batches = []
            for m in s.messages:
                d.add(m, digest(m.raw))
                if len(d.batch) >= 64:
                    batches.append(d.take())
            batches.append(d.take())
            for b in batches:
                arrow = to_arrow_batch(b)
                out.append((s.session_id, list(b.tables()),
                            {k: t.to_pylist() for k, t in arrow.tables.items()},
                            batch_findings(arrow)))
            out.append((s.session_id, d.problems, d.derived, d.events, d.untyped))
        out.append((str(f), problems))
    return out


def test_memos_change_no_derived_row(realworld: Path, open_pool: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    files = _real_files(realworld, open_pool)
    assert len(files) >= 25  # the pool but its held-out files, and the other folders
    monkeypatch.setattr(memo_mod, "ENABLED", False)
    clear_all()
    plain = _derive_all(files)
    assert not any(h or m for h, m in stats().values())  # nothing remembered
    monkeypatch.setattr(memo_mod, "ENABLED", True)
    filling = _derive_all(files)
    misses = {n: m for n, (_, m) in stats().items()}
    remembered = _derive_all(files)  # every text answered from memory this time
    st = stats()
    assert filling == plain
    assert remembered == plain
    for name in ("prose class", "measurements", "error signatures", "secrets"):
        hits, miss = st[name]
        assert miss == misses[name], name  # the second pass computed nothing again
        assert hits > misses[name], name
    clear_all()


def test_a_memo_forgets_the_oldest_and_keys_long_texts_by_digest(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(memo_mod, "ENABLED", True)
    m: Memo[int] = Memo(max_entries=2)
    calls: list[str] = []

    def f(t: str) -> int:
        calls.append(t)
        return len(t)

    for t in ("a", "bb", "a", "ccc", "a"):
        assert m.get(text_key(t), lambda t=t: f(t)) == len(t)  # type: ignore[misc]
    assert calls == ["a", "bb", "ccc", "a"]  # "a" went when "ccc" came (the oldest)
    long_a, long_b = "x" * 5000, "x" * 4999 + "y"
    assert text_key(long_a) != text_key(long_b)
    assert text_key(long_a) == text_key("x" * 5000) and len(repr(text_key(long_a))) < 100
    assert text_key("\ud800" * 3000)  # a lone surrogate (lenient JSON) is keyed too
