"""A Claude Code session already stored takes a title written since (``custom-title``,
``ai-title``) from a plain re-ingest of the grown file, without ``--force``: a transcript
read whole, one read on from its resume point, and a ``claude -p`` stream-json output.
The messages stored before keep their ids and ordinals.

Real files: the labelled ``will-it-rain__claude.jsonl`` (cut to be read whole, and whole
to be resumed) and the recorded ``fixtures/claude_record/recorded/task_stream``."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from kb.ingest import RESUME_MIN_BYTES, ingest
from kb.store import KbStore

ROOT = Path(__file__).resolve().parents[2]
CLAUDE = ROOT.parent / "shared" / "realworld" / "labelled" / "will-it-rain__claude.jsonl"
STREAM = ROOT / "fixtures" / "claude_record" / "recorded" / "task_stream" / "stream-json" / \
    "run.jsonl"


def _ids(store: KbStore) -> list[tuple[str, int]]:
    return store.conn.execute(
        "SELECT message_id, ordinal FROM messages ORDER BY ordinal").fetchall()


def _title(store: KbStore, sid: str) -> str | None:
    return store.conn.execute("SELECT title FROM sessions WHERE session_id = ?",
                              [sid]).fetchone()[0]


@pytest.mark.parametrize("how", ["whole", "resumed", "stream"])
def test_a_title_written_since_comes_with_a_plain_re_ingest(tmp_path: Path, how: str) -> None:
    src = STREAM if how == "stream" else CLAUDE
    if not src.exists():
        pytest.skip(f"{src.name} is not here")
    lines = src.read_bytes().splitlines(keepends=True)
    if how == "whole":
        lines = lines[:60]  # (under RESUME_MIN_BYTES: read whole again)
    key = "session_id" if how == "stream" else "sessionId"
    sid = next(orjson.loads(x)[key] for x in lines if f'"{key}"'.encode() in x)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines))
    assert (path.stat().st_size >= RESUME_MIN_BYTES) == (how == "resumed")
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [path], graph=False)
        before = _ids(store)
        for typ, field, title in (("custom-title", "customTitle", "Named by the user"),
                                  ("ai-title", "aiTitle", "Named by the agent")):
            with path.open("ab") as f:
                f.write(orjson.dumps({"type": typ, field: title, key: sid}) + b"\n")
            rep = ingest(store, [path], graph=False)
            assert _title(store, sid) == title
            assert _ids(store) == before  # no message added, moved or renamed
            assert (rep.resumed == [str(path)]) == (how == "resumed")
            (s,) = rep.sessions
            assert s.new_messages == 0 and s.updated_messages <= 1  # (the last one's raw)
