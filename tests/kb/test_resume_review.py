"""Adversarial review of resume-at-offset (issue 28): sequences of ingests that a resume
point must not paper over, each compared with the same sequence read whole every time
(no resume point kept) on real files and a real DuckDB."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

import kb.ingest
from kb.ingest import ingest
from kb.store import KbStore
from tests.kb.test_resume import COMPARED, REALWORLD, _first_diff, table_rows

Step = Callable[[Path], list[Path]]


def _run(d: Path, steps: list[Step], resume: bool, monkeypatch: pytest.MonkeyPatch
         ) -> tuple[dict[str, list[tuple[object, ...]]], list[list[str]]]:
    monkeypatch.setattr(kb.ingest, "RESUME_MIN_BYTES", 0 if resume else 1 << 60)
    d.mkdir()
    resumed = []
    with KbStore(d / "kb.duckdb") as store:
        for step in steps:
            rep = ingest(store, step(d), graph=False, index=False)
            resumed.append([Path(p).name for p in rep.resumed])
    rows = table_rows(d / "kb.duckdb")
    return {t: [tuple(str(v).replace(str(d), "@") if isinstance(v, str) else v for v in r)
                for r in rs] for t, rs in rows.items()}, resumed


def _same_as_whole(tmp: Path, steps: list[Step], monkeypatch: pytest.MonkeyPatch
                   ) -> list[list[str]]:
    got, resumed = _run(tmp / "resumed", steps, True, monkeypatch)
    want, _ = _run(tmp / "whole", steps, False, monkeypatch)
    for t in COMPARED:
        if t != "resume_points":
            assert got[t] == want[t], (t, resumed, _first_diff(got[t], want[t]))
    return resumed


def _line_end(data: bytes, frac: float) -> int:
    return data.index(b"\n", int(len(data) * frac)) + 1


def _write(name: str, data: bytes) -> Step:
    def step(d: Path) -> list[Path]:
        (d / name).write_bytes(data)
        return [d / name]
    return step


@pytest.mark.parametrize("name", ["soulpass__codex-session.jsonl",
                                  "will-it-rain__claude.jsonl"])
def test_an_older_copy_read_from_elsewhere_after_a_resume(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """An older copy of the session, cut inside a line, ingested from another path
    replaces a message before the grown file's resume point (its cut reads the message
    otherwise); the grown file's next ingest must leave what a whole reading leaves (it
    puts the grown file's message back), not keep the older copy's."""
    data = (REALWORLD / "labelled" / name).read_bytes()
    c1, c2, c3 = (_line_end(data, f) for f in (.4, .55, .7))
    resumed = _same_as_whole(tmp_path, [
        _write("t.jsonl", data[:c2]), _write("t.jsonl", data[:c3]),
        _write("o.jsonl", data[:c1 + 50]), _write("t.jsonl", data)], monkeypatch)
    assert resumed[1] == ["t.jsonl"]  # the plain growth still resumes
