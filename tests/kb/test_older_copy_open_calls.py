"""An older copy cut between a call and its answer changes nothing stored (issue 23).

A Claude Code or Codex copy that ends after a call's line and before its output's hands
out the call's message with ``open_calls`` (the calls still waiting at the end of the
file).  Ingested after the whole session, that message was derived again from the cut
copy: the call got a second row, ``interrupted``, beside the answered one.  Real files:
the pool's Rivo Codex rollout and FundWise Claude Code session, cut at a line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.ingest import ingest
from kb.store import KbStore

POOL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld" / "pool"


def _codex_call(o: dict) -> bool:
    p = o.get("payload")
    return isinstance(p, dict) and p.get("type") == "function_call"


def _claude_call(o: dict) -> bool:
    c = (o.get("message") or {}).get("content")
    return isinstance(c, list) and any(isinstance(x, dict) and x.get("type") == "tool_use"
                                       for x in c)


CASES = {"codex": ("Rivo__codex-session.jsonl", _codex_call),
         "claude-code": ("FundWise__claude-session.jsonl", _claude_call)}


def _rows(store: KbStore) -> tuple[list[tuple[str, ...]], list[tuple[str, str]]]:
    calls = store.conn.execute(
        "SELECT message_id, call_id, tool, status, exit_code::VARCHAR, output FROM calls "
        "ORDER BY ALL").fetchall()
    raws = store.conn.execute(
        "SELECT message_id, raw::VARCHAR FROM messages ORDER BY ALL").fetchall()
    return calls, raws


@pytest.mark.parametrize("agent", list(CASES))
@pytest.mark.parametrize("nth", [1, 5])
def test_a_copy_cut_after_a_call_changes_nothing_stored(
        tmp_path: Path, agent: str, nth: int) -> None:
    name, is_call = CASES[agent]
    lines = (POOL / name).read_bytes().splitlines(keepends=True)
    at = [i for i, x in enumerate(lines) if is_call(json.loads(x))][nth]
    whole, cut = tmp_path / "whole.jsonl", tmp_path / "cut.jsonl"
    whole.write_bytes(b"".join(lines))
    cut.write_bytes(b"".join(lines[: at + 1]))  # the call's line, not its answer's
    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [whole], graph=False)
    before = _rows(store)
    ingest(store, [cut], graph=False)
    assert _rows(store) == before, "an older copy changed a stored call or message"
    ingest(store, [whole], graph=False, force=True)
    assert _rows(store) == before
