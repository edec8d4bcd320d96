"""A Codex record rewritten at its line (an older copy of a session ingested, then a newer
one whose line holds the same record with other content) is that message changed, as a
Claude Code record with the same ``uuid`` is: replaced under its stored id, never stored
beside the old one (which would count its calls, failures and dead ends twice).

The session is the real Codex 0.171 recording ``fixtures/codex_record/recorded/
classic.jsonl``; the older copy differs from it at two lines only, each the same record
(same time, type, ids, ``ordinal``) with other content."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from kb.graph.store import load_rows
from kb.ingest import ingest
from kb.store import KbStore
from logparse.msgkey import codex_identity

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = ROOT / "fixtures" / "codex_record" / "recorded" / "classic.jsonl"
SAID = 17
"""``response_item`` ``message`` ``msg_0001``: "Running the test first." (ordinal 6)."""
OUTPUT = 21
"""``function_call_output`` of ``call_0002``: the failing test, exit 1 (ordinal 8)."""


def _older(lines: list[bytes]) -> list[bytes]:
    out = list(lines)
    said = orjson.loads(out[SAID - 1])
    said["payload"]["content"][0]["text"] = "Running the tests first."
    ran = orjson.loads(out[OUTPUT - 1])
    ran["payload"]["output"] = ran["payload"]["output"].replace(
        "Wall time: 0.1771 seconds", "Wall time: 0.2013 seconds")
    for n, rec in ((SAID, said), (OUTPUT, ran)):
        before = orjson.loads(lines[n - 1])
        assert codex_identity(rec) == codex_identity(before) is not None
        assert rec != before
        out[n - 1] = orjson.dumps(rec) + b"\n"
    return out


def _state(db: Path, *copies: list[bytes]) -> dict[str, Any]:
    path = db.parent / f"{db.stem}.jsonl"
    with KbStore(db) as store:
        for lines in copies:
            path.write_bytes(b"".join(lines))
            ingest(store, [path])
        con = store.conn
        (sid,) = [r[0] for r in con.execute("SELECT session_id FROM sessions").fetchall()]
        rows, _, _ = load_rows(store, [sid])
        return {
            "ids": [r[0] for r in con.execute(
                "SELECT message_id FROM messages ORDER BY ordinal").fetchall()],
            "texts": dict(con.execute(
                "SELECT ordinal, text FROM prose WHERE ordinal = 6").fetchall()),
            "events": con.execute("SELECT count(*) FROM events").fetchone()[0],
            "failed": sorted((r.ordinal, r.signals) for r in rows if r.signals),
            "output": con.execute("SELECT ordinal, output FROM calls "
                                  "WHERE call_id = 'call_0002'").fetchall(),
        }


def test_a_record_rewritten_in_place_replaces_its_message(tmp_path: Path) -> None:
    newer = CLASSIC.read_bytes().splitlines(keepends=True)
    whole = _state(tmp_path / "newer.duckdb", newer)
    # (the older copy ends before the newer one's last records: a snapshot)
    both = _state(tmp_path / "both.duckdb", _older(newer)[:-2], newer)
    # one message a record: the same ids and ordinals as the newer copy read alone
    assert both["ids"] == whole["ids"] and not any("-" in m for m in both["ids"])
    assert both["events"] == whole["events"]
    # the failing test (and every other failure) counted once
    assert both["failed"] == whole["failed"]
    # the newer copy's content is the message's now
    assert both["texts"] == whole["texts"] == {6: "Running the test first."}
    assert both["output"] == whole["output"]


def test_the_older_copy_after_the_newer_keeps_one_message(tmp_path: Path) -> None:
    # a copy ending with the same record, other words at two lines: the stored content
    # stays (the other kept raw with a problem); nothing is stored twice, nothing lost
    newer = CLASSIC.read_bytes().splitlines(keepends=True)
    whole = _state(tmp_path / "newer.duckdb", newer)
    back = _state(tmp_path / "back.duckdb", newer, _older(newer))
    assert back["ids"] == whole["ids"] and back["events"] == whole["events"]
    assert back["failed"] == whole["failed"]
    assert back["texts"] == {6: "Running the test first."}
    assert back["output"] == whole["output"]


def test_a_legacy_bare_item_has_no_identity() -> None:
    # a rollout of 0.1x-era bare items (no envelope, no time): only its content names it
    assert codex_identity({"type": "message", "role": "user", "content": []}) is None
    # a Claude Code record is named by its uuid (logparse.msgkey.record_key)
    assert codex_identity({"uuid": "u", "timestamp": "t", "type": "x", "payload": {}}) is None
