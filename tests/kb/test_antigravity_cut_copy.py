"""An Antigravity trajectory cut before it names its conversation is the same session as
the whole one, in any order of ingest, and nothing stored is ever deleted.

A trajectory file names no session: its id is the conversation a later step names (a
background task's id, the folder of its artifacts), else a digest of its first step.  A
copy cut before that step gets the digest; the whole copy names the conversation and
lists the digest among its aliases, so the store finds the one from the other.

The steps are the trimmed real ones of ``fixtures/realworld_trim/antigravity.jsonl``
(step 70, a ``RUN_COMMAND`` starting a background task, is the first to name the
conversation).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kb.ingest import ingest
from kb.store import KbStore
from logparse.antigravity import AntigravityReader, conversation_id

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim" / "antigravity.jsonl"
STEPS: list[dict[str, Any]] = [json.loads(x) for x in TRIM.read_text("utf-8").splitlines()]
NAMING = next(i for i, s in enumerate(STEPS) if s["step_index"] == 70)


def _write(path: Path, steps: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    return path


def _copies(tmp: Path) -> tuple[Path, Path]:
    whole = _write(tmp / "whole.jsonl", STEPS)
    cut = _write(tmp / "cut.jsonl", STEPS[:NAMING])
    return whole, cut


def _ids(store: KbStore) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for sid, mid in store.conn.execute(
            "SELECT session_id, message_id FROM messages ORDER BY session_id, ordinal"
    ).fetchall():
        out.setdefault(sid, []).append(mid)
    return out


def _sessions(store: KbStore) -> list[str]:
    return [r[0] for r in store.conn.execute("SELECT session_id FROM sessions").fetchall()]


def test_the_cut_copy_is_named_by_its_first_step_and_the_whole_lists_that_name(
        tmp_path: Path) -> None:
    whole, cut = _copies(tmp_path)
    assert conversation_id(cut) is None and conversation_id(whole) is not None
    (w,) = AntigravityReader().sessions(whole, [])
    (c,) = AntigravityReader().sessions(cut, [])
    assert w.session_id == conversation_id(whole)
    assert c.session_id.startswith("ag-") and not c.named
    assert w.named and w.info is not None and w.info["aliases"] == [c.session_id]


@pytest.mark.parametrize("order", ["cut-then-whole", "whole-then-cut", "whole-cut-whole"])
def test_a_cut_copy_and_the_whole_are_one_session(tmp_path: Path, order: str) -> None:
    whole, cut = _copies(tmp_path)
    alone = KbStore(":memory:")
    ingest(alone, [whole])
    (want,) = _ids(alone).values()
    cut_alone = KbStore(":memory:")
    ingest(cut_alone, [cut])
    (cut_ids,) = _ids(cut_alone).values()
    assert set(cut_ids) < set(want)  # the cut copy's messages are the whole's first ones

    store = KbStore(tmp_path / "kb.duckdb")
    files = {"cut-then-whole": [cut, whole], "whole-then-cut": [whole, cut],
             "whole-cut-whole": [whole, cut, whole]}[order]
    first: str | None = None
    for i, f in enumerate(files):
        report = ingest(store, [f], force=i == 2)
        (rep,) = report.sessions
        first = first or rep.session_id
        assert rep.session_id == first, "a copy of the stored session was stored apart"
    (sid,) = _sessions(store)
    assert sid == first
    (got,) = _ids(store).values()
    assert got == want, "the session lost or reordered a message"
    n, lo, hi = store.conn.execute(
        "SELECT count(*), min(ordinal), max(ordinal) FROM messages").fetchone()
    assert (lo, hi) == (1, n)


def test_both_copies_in_one_ingest_are_one_session(tmp_path: Path) -> None:
    """Two copies met in one directory walk (small sessions are written together)."""
    whole, cut = _copies(tmp_path)
    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [tmp_path])
    assert len(_sessions(store)) == 1
    alone = KbStore(":memory:")
    ingest(alone, [whole])
    assert list(_ids(store).values()) == list(_ids(alone).values())


def _raws(store: KbStore) -> dict[tuple[str, str], str]:
    return {(sid, mid): raw for sid, mid, raw in store.conn.execute(
        "SELECT session_id, message_id, raw::VARCHAR FROM messages").fetchall()}


def _reader_of_the_plan(tmp: Path) -> Path:
    """Another conversation, cut after it read the first one's plan (the artifact folder
    names the first conversation) and before it names itself: the steps are the real
    user input, planner and ``VIEW_FILE`` shapes with other words and times."""
    other = conversation_id(_write(tmp / "probe.jsonl", STEPS))
    plan = f"C:\\Users\\dev\\.gemini\\antigravity\\brain\\{other}\\implementation_plan.md"
    steps = [
        {**STEPS[0], "created_at": "2026-06-20T10:00:00Z",
         "content": "<USER_REQUEST>\nContinue the other conversation's plan\n</USER_REQUEST>"},
        {"step_index": 1, "source": "MODEL", "type": "PLANNER_RESPONSE", "status": "DONE",
         "created_at": "2026-06-20T10:00:05Z", "content": "Let me read the plan.",
         "tool_calls": [{"name": "view_file", "args": {"AbsolutePath": json.dumps(plan)}}]},
        {"step_index": 2, "source": "MODEL", "type": "VIEW_FILE", "status": "DONE",
         "created_at": "2026-06-20T10:00:06Z", "content": "# Plan\n1. build the agent"},
        {"step_index": 3, "source": "MODEL", "type": "PLANNER_RESPONSE", "status": "DONE",
         "created_at": "2026-06-20T10:00:09Z", "content": "I have read the plan."},
    ]
    return _write(tmp / "reader.jsonl", steps)


@pytest.mark.parametrize("first", ["whole", "reader"])
def test_another_conversation_that_names_this_one_never_takes_its_messages(
        tmp_path: Path, first: str) -> None:
    """A conversation that read this one's artifact before naming itself names this
    conversation (the only id it holds), but starts with another first step: it is
    another session, and neither loses or changes a stored message."""
    whole, _ = _copies(tmp_path)
    reader = _reader_of_the_plan(tmp_path)
    assert conversation_id(reader) == conversation_id(whole)
    alone: list[str] = []
    for f in (whole, reader):
        s = KbStore(":memory:")
        ingest(s, [f])
        alone.extend(_raws(s).values())
    store = KbStore(tmp_path / "kb.duckdb")
    for f in ([whole, reader] if first == "whole" else [reader, whole]):
        ingest(store, [f])
    got = _raws(store)
    assert len(_sessions(store)) == 2
    assert sorted(got.values()) == sorted(alone), "a message was lost or changed"
