"""A conversation stored under another's id before it named itself is one session when
its later copy names itself (rv9).

An Antigravity conversation that read another's plan before naming itself names that
other conversation (the only id it holds): stored first, it is stored under that id.
Its later copy names itself (its own background tasks outvote the plan it read) and
lists the same first-step alias; it was stored apart, a second session holding every
message of the first again."""

from __future__ import annotations

from pathlib import Path

from kb.ingest import ingest
from kb.store import KbStore
from logparse.antigravity import AntigravityReader, conversation_id
from tests.kb.test_antigravity_cut_copy import _reader_of_the_plan, _write

OWN = "0b5e8c2a-3f41-4d6a-9c7e-5a1b2c3d4e5f"
"""The reading conversation's own id (made up)."""


def _grown(tmp: Path, cut: Path) -> Path:
    import json

    steps = [json.loads(x) for x in cut.read_text("utf-8").splitlines()]
    for k in range(2):  # two background tasks of its own: its id outvotes the plan's
        i = len(steps)
        steps.append({
            "step_index": i, "source": "MODEL", "type": "RUN_COMMAND", "status": "RUNNING",
            "created_at": f"2026-06-20T10:01:0{k}Z",
            "content": f"Created At: 2026-06-20T10:01:0{k}Z\nTool is running as a "
                       f"background task with task id: {OWN}/task-{i}\n"})
    return _write(tmp / "reader-grown.jsonl", steps)


def test_a_conversation_that_later_names_itself_stays_one_session(tmp_path: Path) -> None:
    cut = _reader_of_the_plan(tmp_path)
    grown = _grown(tmp_path, cut)
    assert conversation_id(cut) != OWN and conversation_id(grown) == OWN
    (c,) = AntigravityReader().sessions(cut, [])
    (g,) = AntigravityReader().sessions(grown, [])
    assert c.info is not None and g.info is not None
    assert c.info["aliases"] == g.info["aliases"]  # one first step: one conversation

    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [cut])
    ingest(store, [grown])
    rows = store.conn.execute(
        "SELECT session_id, message_id FROM messages ORDER BY session_id, ordinal").fetchall()
    sessions = {sid for sid, _ in rows}
    assert len(sessions) == 1, f"stored twice: {sessions}"
    alone = KbStore(":memory:")
    ingest(alone, [grown])
    assert [m for _, m in rows] == [m for (m,) in alone.conn.execute(
        "SELECT message_id FROM messages ORDER BY ordinal").fetchall()]
