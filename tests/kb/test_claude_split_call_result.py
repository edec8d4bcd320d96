"""A Claude Code session split over two files between a tool call and its result: the
call (``tool_use``, the last response of the first file) and the ``tool_result`` line
that answers it (the second file's first message line).  Read alone, the second file
makes the result a message of its own (a call of an unknown tool) and the first leaves
its call waiting; the ingest makes them one stored message, as when the whole file is
read: the same messages and events, the call answered, in either order, a third ingest
changing nothing (nor saying it updated anything), and no stored message deleted.

From a transcript recorded from the real CLI on loopback (``fixtures/claude_record``):
its response ``msg_scripted000002`` (lines 21-23) ends with a ``TaskCreate`` call whose
result is line 26 (lines 24-25: a ``last-prompt`` and an ``atis-latch`` record)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.ingest import ingest
from kb.store import KbStore
from tests.cli_kb import invoke

ROOT = Path(__file__).resolve().parents[2]
SRC = (ROOT / "fixtures" / "claude_record" / "recorded" / "fix_divide" / "-srv-campaign"
       / "2f969464-567e-4d35-8272-a0c156d779b6.jsonl")
CALL = "toolu_scripted000001"

CUTS = {
    "result-first": 25,  # the second file starts with the result line
    "records-between": 23,  # ... with the two records written between call and result
}

EVENT_COLUMNS = (
    "ordinal, seq, sub, kind, role, time, coalesce(tool, ''), call_id, category, "
    "command, status, exit_code, output, duration_ms, error_signature, "
    "measurements::VARCHAR, title, coalesce(text, ''), classification, prose_role, "
    "reason, source, author")
MESSAGE_COLUMNS = (
    "ordinal, role, time_created, time_completed, model, finish, error::VARCHAR, "
    "tokens_input, tokens_output, cost, tokens_cache_read, tokens_cache_write")


def _write(tmp: Path, cut: int) -> tuple[Path, Path]:
    lines = SRC.read_bytes().splitlines(keepends=True)
    a, b = tmp / "a.jsonl", tmp / "b.jsonl"
    a.write_bytes(b"".join(lines[:cut]))
    b.write_bytes(b"".join(lines[cut:]))
    return a, b


def _state(store: KbStore) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    """Every message and every event as the session shows them (not where their lines
    stand in which file)."""
    msgs = store.conn.execute(
        f"SELECT {MESSAGE_COLUMNS} FROM messages ORDER BY ALL").fetchall()
    events = store.conn.execute(f"SELECT {EVENT_COLUMNS} FROM events ORDER BY ALL").fetchall()
    return msgs, events


def _call(store: KbStore) -> list[tuple[object, ...]]:
    return store.conn.execute(
        "SELECT ordinal, kind, tool, status FROM events WHERE call_id = ? ORDER BY ALL",
        [CALL]).fetchall()


def _ids(store: KbStore) -> set[str]:
    return {r[0] for r in store.conn.execute("SELECT message_id FROM messages").fetchall()}


@pytest.mark.parametrize("cut", list(CUTS))
@pytest.mark.parametrize("b_first", [False, True], ids=["a-first", "b-first"])
def test_a_call_and_its_result_in_two_files_are_one_message(
        tmp_path: Path, cut: str, b_first: bool) -> None:
    a, b = _write(tmp_path, CUTS[cut])
    with KbStore(tmp_path / "whole.duckdb") as store:
        ingest(store, [SRC], graph=False)
        whole = _state(store)
        call = _call(store)
    assert len(whole[0]) == 32
    assert ("result", "todowrite", "completed") in {r[1:] for r in call}
    first, second = (b, a) if b_first else (a, b)
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [first], graph=False)
        before = _ids(store)
        ingest(store, [second], graph=False)
        assert before <= _ids(store), "a stored message was deleted"
        state = _state(store)
        assert len(state[0]) == len(whole[0]), "the result is a message of its own"
        assert _call(store) == call  # answered, in its call's message
        assert state == whole  # as if the session had been one file
        # a third ingest, of either file, read again: nothing changes
        for again in (first, second):
            rep = ingest(store, [again], graph=False, force=True)
            assert _state(store) == state
            (s,) = rep.sessions
            assert s.new_messages == 0 and s.conflicts == 0
            # counts say what happened: nothing was stored again
            assert s.updated_messages == 0, "an unchanged message reported updated"
            assert not [p for p in rep.problems if "differs" in p.reason]
        rep = ingest(store, [first, second], graph=False)  # unchanged: skipped
        assert _state(store) == state and not rep.sessions


def test_the_summary_says_where_the_kept_messages_are(tmp_path: Path) -> None:
    """The second file of a split session lacks the first file's messages: they are kept
    from the other file, and the file is not an older copy; read again, nothing of it is
    updated."""
    a, b = _write(tmp_path, CUTS["result-first"])
    db = str(tmp_path / "kb.duckdb")
    assert invoke("--db", db, "ingest", str(a)).exit_code == 0
    for _ in range(2):
        r = invoke("--db", db, "ingest", "--force", str(b))
        assert r.exit_code == 0, r.output
        assert "1 kept from other files" in r.stdout and "older copy" not in r.stdout
    assert "0 new, 31 unchanged, 1 kept" in r.stdout and "updated" not in r.stdout


PARALLEL = (ROOT / "fixtures" / "claude_record" / "recorded" / "task_stream"
            / "-srv-campaign" / "1bd7c159-c5a4-41c4-9442-0674bdca85e4.jsonl")
"""Its response ``msg_scripted000004`` makes three calls (lines 20-22), answered by lines
25, 26 and 27, a result a line."""


def _calls(store: KbStore) -> list[tuple[object, ...]]:
    """Each call's place, tool and status (a task list's items aside: the reader's list
    does not cross files, see BENCHMARKS.md ``split15``)."""
    return store.conn.execute(
        "SELECT ordinal, kind, call_id, tool, status, exit_code FROM events "
        "WHERE call_id IS NOT NULL ORDER BY ALL").fetchall()


@pytest.mark.parametrize("cut", [24, 25, 26], ids=["3-results", "2-results", "1-result"])
@pytest.mark.parametrize("b_first", [False, True], ids=["a-first", "b-first"])
def test_the_results_of_parallel_calls_in_the_next_file(
        tmp_path: Path, cut: int, b_first: bool) -> None:
    """The second file opens with one, two or all three results: read alone, they are
    one message (not one each); with the first file, the calls' message, answered."""
    lines = PARALLEL.read_bytes().splitlines(keepends=True)
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_bytes(b"".join(lines[:cut]))
    b.write_bytes(b"".join(lines[cut:]))
    with KbStore(tmp_path / "whole.duckdb") as store:
        ingest(store, [PARALLEL], graph=False)
        n = store.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        calls = _calls(store)
    assert "unknown" not in {r[3] for r in calls}
    with KbStore(tmp_path / "kb.duckdb") as store:
        for f in (b, a) if b_first else (a, b):
            ingest(store, [f], graph=False)
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == n
        assert _calls(store) == calls
        for f in (a, b):
            (s,) = ingest(store, [f], graph=False, force=True).sessions
            assert (s.new_messages, s.updated_messages) == (0, 0)
            assert _calls(store) == calls
