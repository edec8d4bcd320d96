"""A Claude Code API response split over two files: a session resumed into a new file
writes the same ``message.id`` again, a content block a line.  The reader makes the lines
of one response in one file one message; the ingest makes the copies in two files one
stored message with every block of both, once each, in either order, and a third ingest
changes nothing.

From a transcript recorded from the real CLI on loopback (``fixtures/claude_record``):
its response ``msg_scripted000002`` is a ``thinking``, a ``text`` and a ``tool_use``
line (lines 21-23), its result line 26."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import orjson
import pytest

from kb.ingest import ingest
from kb.store import KbStore

ROOT = Path(__file__).resolve().parents[2]
SRC = (ROOT / "fixtures" / "claude_record" / "recorded" / "fix_divide" / "-srv-campaign"
       / "2f969464-567e-4d35-8272-a0c156d779b6.jsonl")
RESPONSE = "msg_scripted000002"

SPLITS = {
    # the first file cut after the response's text; the second holds its tool_use on
    "disjoint": (range(1, 23), range(23, 187)),
    # the second file copies the history but the text line: thinking in both
    "overlap": (range(1, 23), [*range(1, 22), *range(23, 187)]),
}


def _write(tmp: Path, split: str) -> tuple[Path, Path]:
    lines = SRC.read_bytes().splitlines(keepends=True)
    out = []
    for name, picked in zip(("a", "b"), SPLITS[split]):
        p = tmp / f"{name}.jsonl"
        p.write_bytes(b"".join(lines[i - 1] for i in picked))
        out.append(p)
    return out[0], out[1]


def _state(store: KbStore) -> tuple[int, int, list[tuple[object, ...]]]:
    """Messages, events, and each event by ordinal (a command and its result share a
    place: sorted)."""
    msgs = store.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    events = store.conn.execute(
        "SELECT ordinal, kind, coalesce(tool, ''), coalesce(text, '') FROM events "
        "ORDER BY ALL").fetchall()
    return msgs, len(events), events


def _blocks(store: KbStore) -> Counter[tuple[str, str]]:
    """``(uuid, block type)`` of every record of the response, over all stored messages."""
    seen: Counter[tuple[str, str]] = Counter()
    for (raw,) in store.conn.execute("SELECT raw::VARCHAR FROM messages").fetchall():
        for r in orjson.loads(raw).get("records", []):
            m = r.get("message") if isinstance(r, dict) else None
            if isinstance(m, dict) and m.get("id") == RESPONSE:
                seen.update((r["uuid"], b["type"]) for b in m["content"])
    return seen


def _holding(store: KbStore) -> list[str]:
    return [mid for mid, raw in store.conn.execute(
        "SELECT message_id, raw::VARCHAR FROM messages").fetchall() if RESPONSE in raw]


@pytest.mark.parametrize("split", list(SPLITS))
@pytest.mark.parametrize("b_first", [False, True], ids=["a-first", "b-first"])
def test_a_response_split_over_two_files_is_one_message(
        tmp_path: Path, split: str, b_first: bool) -> None:
    a, b = _write(tmp_path, split)
    with KbStore(tmp_path / "whole.duckdb") as store:
        ingest(store, [SRC], graph=False)
        whole = _state(store)
        blocks = _blocks(store)
    assert sorted(t for _, t in blocks) == ["text", "thinking", "tool_use"]
    first, second = (b, a) if b_first else (a, b)
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [first], graph=False)
        ingest(store, [second], graph=False)
        assert len(_holding(store)) == 1, "the response is stored as two messages"
        assert _blocks(store) == blocks  # every block, once
        state = _state(store)
        assert state == whole  # as if the session had been one file
        # a third ingest, of either file, read again: nothing changes
        for again in (first, second):
            rep = ingest(store, [again], graph=False, force=True)
            assert _state(store) == state
            assert _blocks(store) == blocks
            (s,) = rep.sessions
            assert s.new_messages == 0 and s.conflicts == 0
            assert not [p for p in rep.problems if "differs" in p.reason]
        rep = ingest(store, [first, second], graph=False)  # unchanged: skipped
        assert _state(store) == state and not rep.sessions
