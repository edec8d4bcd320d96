"""A short reply approving what the agent asked is a decision whether the file it is in
was read whole or read on from a resume point (:func:`logparse.decide_choice.approval`
reads the assistant's last reply, which the deriver carries across messages)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kb.ingest import ingest
from kb.store import KbStore

SID = "0c1a2b3c-4d5e-4f60-8a7b-8c9d0e1f2a55"


def records() -> list[dict[str, Any]]:
    recs: list[dict[str, Any]] = []

    def line(kind: str, content: Any) -> None:
        n = len(recs) + 1
        msg: dict[str, Any] = {"role": kind, "content": content}
        if kind == "assistant":
            msg.update(id=f"msg_{n}", model="claude-opus-4-5", type="message")
        recs.append({"parentUuid": recs[-1]["uuid"] if recs else None, "isSidechain": False,
                     "sessionId": SID, "cwd": "/w", "version": "2.0.1", "gitBranch": "main",
                     "type": kind, "message": msg, "uuid": f"u-{n:06d}",
                     "timestamp": f"2025-10-01T10:{n // 60:02d}:{n % 60:02d}.000Z"})

    line("user", "tidy up the release notes")
    for k in range(3):
        line("assistant", [{"type": "text", "text": f"Working on part {k}. " + "x " * 200}])
    line("assistant", [{"type": "text", "text": "The notes are tidy. Should I commit them?"}])
    line("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": {"command": "git status"}}])
    line("user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "clean"}])
    line("assistant", [{"type": "tool_use", "id": "toolu_2", "name": "Bash",
                        "input": {"command": "git diff --stat"}}])
    line("user", [{"type": "tool_result", "tool_use_id": "toolu_2", "content": "1 file"}])
    line("user", "yes please")
    return recs


def decisions(db: Path) -> list[tuple[int, str]]:
    with KbStore(db, read_only=True) as store:
        return store.conn.execute(
            "SELECT ordinal, text FROM prose WHERE kind = 'decision' ORDER BY ordinal"
        ).fetchall()


def test_an_approval_after_the_resume_point_is_a_decision(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import kb.ingest

    monkeypatch.setattr(kb.ingest, "RESUME_MIN_BYTES", 0)
    lines = [json.dumps(r) + "\n" for r in records()]
    whole = tmp_path / "whole" / "s.jsonl"
    whole.parent.mkdir()
    whole.write_text("".join(lines))
    with KbStore(tmp_path / "whole.duckdb") as store:
        ingest(store, [whole])
    want = decisions(tmp_path / "whole.duckdb")
    assert any("Should I commit them?" in t for _, t in want), want
    grown = tmp_path / "grown" / "s.jsonl"
    grown.parent.mkdir()
    for cut in range(len(lines) - 3, len(lines)):  # after the question, before "yes"
        grown.write_text("".join(lines[:cut]))
        db = tmp_path / f"grown{cut}.duckdb"
        with KbStore(db) as store:
            ingest(store, [grown])
            assert store.resume_point(str(grown)) is not None
        grown.write_text("".join(lines))
        with KbStore(db) as store:
            ingest(store, [grown])
        assert decisions(db) == want, cut
