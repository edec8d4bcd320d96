"""A Codex record rewritten in place (other content) AND moved to another line between
two copies of a session is one message: stored once, with the newest content, and no
stored message deleted, whichever copy comes first (an older copy never makes a stored
message older, shorter or takes its result away).  Records Codex writes in one
millisecond without ids (the AGENTS.md, the environment and the prompt) stay apart.

Real lines: ``fixtures/codex_record/recorded/classic.jsonl`` (Codex 0.171) and
``fixtures/realworld_trim/codex_same_ms.jsonl`` (privacy-x402, Codex 0.101, trimmed)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from kb.ingest import ingest
from kb.store import KbStore
from logparse.msgkey import codex_identity
from tests.cli_kb import invoke

ROOT = Path(__file__).resolve().parents[2]
CLASSIC = ROOT / "fixtures" / "codex_record" / "recorded" / "classic.jsonl"
SAME_MS = ROOT / "fixtures" / "realworld_trim" / "codex_same_ms.jsonl"
SAID = 17
"""``response_item`` ``message`` ``msg_0001``: "Running the test first." (ordinal 6)."""
DROPPED = 15
"""An ``item_completed`` event before it (a line one copy lacks: every later one moves)."""
NEWEST = "Running the test first."


def _lines(path: Path) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)


def _rewritten(lines: list[bytes], n: int, old: str, new: str) -> list[bytes]:
    out = list(lines)
    rec = orjson.loads(out[n - 1])
    text = orjson.dumps(rec).decode()
    assert old in text
    changed = orjson.loads(text.replace(old, new, 1))
    assert codex_identity(changed) == codex_identity(rec) is not None
    out[n - 1] = orjson.dumps(changed) + b"\n"
    return out


def _older_moved(lines: list[bytes], cut: int | None = None) -> list[bytes]:
    """An older copy of ``classic``: ``SAID`` says other words, the line ``DROPPED`` is
    not there yet (``SAID`` stands one line earlier), and, with ``cut``, the copy ends
    after its first ``cut`` lines (a snapshot taken before the session went on)."""
    out = _rewritten(lines, SAID, NEWEST, "Running the tests first.")
    del out[DROPPED - 1]
    return out[:cut] if cut else out


def _ingest(db: Path, *copies: list[bytes]) -> tuple[dict[str, Any], list[Any]]:
    reports = []
    with KbStore(db) as store:
        for i, lines in enumerate(copies):
            path = db.parent / f"{db.stem}-{i}.jsonl"
            path.write_bytes(b"".join(lines))
            reports.append(ingest(store, [path], graph=False).sessions[0])
        con = store.conn
        state = {
            "messages": con.execute("SELECT count(*) FROM messages").fetchone()[0],
            "said": con.execute("SELECT message_id, text FROM prose WHERE text LIKE "
                                "'Running the test%' ORDER BY ALL").fetchall(),
            "calls": con.execute("SELECT call_id, status, exit_code, output FROM calls "
                                 "ORDER BY ALL").fetchall(),
            "events": con.execute("SELECT count(*) FROM events").fetchone()[0],
            "ids": [r[0] for r in con.execute(
                "SELECT message_id FROM messages ORDER BY ordinal").fetchall()],
        }
    return state, reports


def test_rewritten_and_moved_is_stored_once_with_the_newest_content(tmp_path: Path) -> None:
    newer = _lines(CLASSIC)
    alone, _ = _ingest(tmp_path / "alone.duckdb", newer)
    # the older copy ends before the newer one's last record (its task_complete)
    older = _older_moved(newer, cut=len(newer) - 2)
    both, (_, rep) = _ingest(tmp_path / "both.duckdb", older, newer)
    assert both["messages"] == alone["messages"]
    assert [t for _, t in both["said"]] == [NEWEST]
    assert both["calls"] == alone["calls"] and both["events"] == alone["events"]
    # the message keeps the id it was first stored under; nothing new beside it
    assert not any("-" in m for m in both["ids"])
    assert rep.new_messages == 0 and rep.kept == 0


def test_an_older_copy_after_the_newer_changes_no_stored_content(tmp_path: Path) -> None:
    # the older copy is cut two thirds in (it ends before the newer one's last messages):
    # every message it holds is an earlier state; the stored (newest) content stays
    newer = _lines(CLASSIC)
    alone, _ = _ingest(tmp_path / "alone.duckdb", newer)
    older = _older_moved(newer, cut=len(newer) * 2 // 3)
    back, (_, rep) = _ingest(tmp_path / "back.duckdb", newer, older)
    assert back == alone
    assert rep.new_messages == 0 and rep.updated_messages == 0 and rep.kept > 0


def test_copies_that_end_together_keep_the_stored_content(tmp_path: Path) -> None:
    # no copy says it is older (both end with the same record): whichever was stored
    # first stays, the other's record is kept raw with a problem (file and line); the
    # message is there once and no message is lost
    newer = _lines(CLASSIC)
    alone, _ = _ingest(tmp_path / "alone.duckdb", newer)
    for first, then, said in ((newer, _older_moved(newer), NEWEST),
                              (_older_moved(newer), newer, "Running the tests first.")):
        db = tmp_path / f"{len(first)}.duckdb"
        back, (_, rep) = _ingest(db, first, then)
        assert back["messages"] == alone["messages"]
        assert [t for _, t in back["said"]] == [said]
        assert back["calls"] == alone["calls"] and back["events"] == alone["events"]
        assert not any("-" in m for m in back["ids"])
        assert rep.new_messages == 0 and rep.conflicts == 1


def test_the_summary_counts_replaced_messages_as_updated(tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    older, newer = tmp_path / "older.jsonl", tmp_path / "newer.jsonl"
    older.write_bytes(b"".join(_older_moved(_lines(CLASSIC), cut=len(_lines(CLASSIC)) - 2)))
    newer.write_bytes(b"".join(_lines(CLASSIC)))
    assert invoke("--db", str(db), "ingest", str(older)).exit_code == 0
    r = invoke("--db", str(db), "ingest", "--json", str(newer))
    assert r.exit_code == 0, r.output
    (s,) = orjson.loads(r.stdout)["sessions"]
    assert s["new_messages"] == 0 and s["updated_messages"] > 0
    older.write_bytes(b"".join(_older_moved(_lines(CLASSIC), cut=30)))
    r = invoke("--db", str(db), "ingest", str(older))
    assert r.exit_code == 0, r.output
    assert "older copy: 0 new, " in r.stdout and " kept" in r.stdout


# -- one millisecond, several records without ids ------------------------------------

AGENTS, ENV, INIT = 3, 4, 7
"""``codex_same_ms.jsonl``: three user messages of 08:12:07.622, none with an id."""


def test_records_of_one_millisecond_have_their_own_identity() -> None:
    recs = [orjson.loads(x) for x in _lines(SAME_MS)]
    same = [recs[n - 1] for n in (AGENTS, ENV, INIT)]
    assert len({r["timestamp"] for r in same}) == 1
    assert len({codex_identity(r) for r in same}) == 3
    # a record rewritten keeps its identity (its kind: the environment it describes)
    changed = orjson.loads(orjson.dumps(recs[ENV - 1]).replace(b"zsh", b"bash"))
    assert codex_identity(changed) == codex_identity(recs[ENV - 1])


def _by_text(db: Path) -> dict[str, str]:
    with KbStore(db) as store:
        rows = store.conn.execute(
            "SELECT m.message_id, m.raw::VARCHAR FROM messages m ORDER BY m.ordinal"
        ).fetchall()
    out = {}
    for mid, raw in rows:
        doc = orjson.loads(raw)
        said = [r["payload"] for r in doc["records"] if r["type"] == "response_item"
                and r["payload"].get("role") == "user"]
        if said:  # (the message's own record: the records of lines before it are not)
            text = said[-1]["content"][0]["text"]
            out[text.split("\n")[0][:24]] = mid
    return out


def test_one_millisecond_records_stay_apart_when_a_copy_moves_them(tmp_path: Path) -> None:
    full = _lines(SAME_MS)
    older = [x for i, x in enumerate(full, 1) if i != AGENTS]  # the AGENTS.md line not yet
    newer = _rewritten(full, ENV, "<shell>zsh</shell>", "<shell>bash</shell>")
    alone, _ = _ingest(tmp_path / "alone.duckdb", newer)
    db = tmp_path / "kb.duckdb"
    first, _ = _ingest(db, older)
    before = _by_text(db)
    both, (rep,) = _ingest(db, newer)
    after = _by_text(db)
    assert both["messages"] == alone["messages"]
    # the prompt and the environment each keep the id they were stored under; the
    # AGENTS.md is one more message, never put in the place of another of its millisecond
    assert after["init"] == before["init"]
    assert after["<environment_context>"] == before["<environment_context>"]
    assert set(after) == set(before) | {"# AGENTS.md instructions"}
    assert rep.new_messages == 1
    # the same file again changes nothing
    again, (rep2,) = _ingest(db, newer)
    assert again == both and _by_text(db) == after
    assert rep2.new_messages == rep2.updated_messages == 0


def test_an_older_copy_changes_nothing_after_the_rules_changed(tmp_path: Path) -> None:
    # the session was derived by older rules (every message is derived again when read):
    # an older copy read then still never takes the newest content nor a call's result
    newer = _lines(CLASSIC)
    alone, _ = _ingest(tmp_path / "alone.duckdb", newer)
    db = tmp_path / "kb.duckdb"
    _ingest(db, newer)
    with KbStore(db) as store:
        store.conn.execute("UPDATE sessions SET derive_version = derive_version - 1")
    older = _older_moved(newer, cut=SAID + 1)  # (it ends before the failing test's output)
    said = [x for x in older if b'"call_0002"' in x and b'"response_item"' in x]
    assert len(said) == 1 and b'"function_call"' in said[0]  # the call, not its answer
    back, _ = _ingest(db, older)
    assert back == alone
