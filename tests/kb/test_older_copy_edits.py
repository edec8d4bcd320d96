"""An older copy of a Claude Code, pi or Gemini CLI session, ingested after the newer
one, changes nothing stored: not a message's words (a record the older copy holds with
other words under the same id, a message of the same length), not a call's result, not
a message, not the title; also with ``--force`` and after the rules changed.  A copy is
known older when its session ends (its last record was written) before the stored
session's last message (``kb.ingest._older_copy``); of copies that end together the
stored words stay (the other's are kept raw with a problem).

The copies are built under ``tmp_path`` from real files: the labelled
``will-it-rain__claude.jsonl``, the tune pool's ``FundWise__claude-session.jsonl`` and
``civ6.ch__session.jsonl`` (pi), and the hand-written Gemini CLI chat of
``fixtures/gemini_rewind``."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest

from kb.ingest import ingest
from kb.store import KbStore
from logparse.claude_code import ClaudeCodeReader

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT.parent / "shared" / "realworld"
CLAUDE = REAL / "labelled" / "will-it-rain__claude.jsonl"
FUNDWISE = REAL / "pool" / "FundWise__claude-session.jsonl"
PI = REAL / "pool" / "civ6.ch__session.jsonl"
GEMINI = ROOT / "fixtures" / "gemini_rewind" / "session-rewind.jsonl"
OLDER = "OLDER WORDS "


def _lines(path: Path) -> list[bytes]:
    if not path.exists():
        pytest.skip(f"{path.name} is not here")
    return path.read_bytes().splitlines(keepends=True)


def _texts(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The text blocks of a record's message, whatever agent wrote it."""
    msg = obj.get("message")
    content = msg.get("content") if isinstance(msg, dict) else obj.get("content")
    if obj.get("type") == "gemini" and isinstance(content, str) and content:
        return [obj]  # (a Gemini reply's words are its content string)
    return [b for b in content or () if isinstance(b, dict) and b.get("type") == "text"
            and isinstance(b.get("text"), str) and len(b["text"]) > 20] \
        if isinstance(content, list) else []


def _said(obj: dict[str, Any]) -> bool:
    role = obj.get("type") if "sessionId" in obj or obj.get("type") == "gemini" else \
        (obj.get("message") or {}).get("role")
    return role in ("assistant", "gemini") and not obj.get("isSidechain") and \
        bool(_texts(obj))


def _edited(lines: list[bytes], n: int) -> list[bytes]:
    """``lines`` with the words of record ``n`` (0-based) as an earlier state said them:
    the same record (id, time, blocks), other words."""
    obj = orjson.loads(lines[n])
    for b in _texts(obj):
        key = "content" if b is obj else "text"
        b[key] = OLDER + b[key]
    out = list(lines)
    out[n] = orjson.dumps(obj) + b"\n"
    return out


def _older(lines: list[bytes], keep: float = 2 / 3) -> list[bytes]:
    """A snapshot cut ``keep`` of the way in whose last reply before the cut said other
    words (as long as the stored message: the same records)."""
    cut = int(len(lines) * keep)
    said = [i for i in range(cut - 1) if _said(orjson.loads(lines[i]))]
    assert said, "no reply to edit before the cut"
    return _edited(lines, said[-1])[:cut]


def _state(store: KbStore) -> dict[str, Any]:
    con = store.conn
    return {
        "messages": con.execute("SELECT session_id, message_id, ordinal, raw::VARCHAR "
                                "FROM messages ORDER BY ALL").fetchall(),
        "prose": con.execute("SELECT session_id, ordinal, seq, text FROM prose "
                             "ORDER BY ALL").fetchall(),
        "calls": con.execute("SELECT session_id, call_id, status, exit_code, output "
                             "FROM calls ORDER BY ALL").fetchall(),
        "sessions": con.execute("SELECT session_id, title, time_updated, source_path, "
                                "message_count FROM sessions ORDER BY ALL").fetchall(),
    }


def _older_words(store: KbStore) -> int:
    return store.conn.execute("SELECT count(*) FROM prose WHERE contains(text, ?)",
                              [OLDER]).fetchone()[0]


COPIES: dict[str, tuple[Path, Callable[[list[bytes]], list[bytes]]]] = {
    "claude": (CLAUDE, _older),
    "claude-tune": (FUNDWISE, _older),
    "pi": (PI, _older),
    "gemini-cli": (GEMINI, lambda lines: _older(lines, 0.6)),
}


@pytest.mark.parametrize("how", ["plain", "force", "rules-changed"])
@pytest.mark.parametrize("form", list(COPIES))
def test_an_older_copy_after_the_newer_changes_nothing_stored(
        tmp_path: Path, form: str, how: str) -> None:
    src, make = COPIES[form]
    lines = _lines(src)
    newer, older = tmp_path / "newer.jsonl", tmp_path / "older.jsonl"
    newer.write_bytes(b"".join(lines))
    older.write_bytes(b"".join(make(lines)))
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [newer], graph=False)
        before = _state(store)
        assert before["messages"] and _older_words(store) == 0
        if how == "rules-changed":
            store.conn.execute("UPDATE sessions SET derive_version = derive_version - 1")
        rep = ingest(store, [older], graph=False, force=how == "force")
        assert _older_words(store) == 0, "an older copy's words replaced the newer ones"
        assert _state(store) == before
        (s,) = rep.sessions
        assert s.new_messages == 0 and s.updated_messages == 0 and s.kept > 0


def test_older_copy_cut_before_a_result_keeps_the_result_and_the_title(
        tmp_path: Path) -> None:
    # the newer copy was named since (a custom-title record at its end); the older one
    # ends between a call and its result, and its reply before says other words
    lines = _lines(CLAUDE)
    sid = orjson.loads(next(x for x in lines if b'"sessionId"' in x))["sessionId"]
    named = lines + [orjson.dumps({"type": "custom-title", "customTitle": "Newer name",
                                   "sessionId": sid}) + b"\n"]
    results = [i for i, x in enumerate(lines) if b'"tool_result"' in x
               and len(lines) // 3 < i < len(lines) * 2 // 3]
    cut = results[0]  # the first result of the middle third: not written yet
    older_lines = _older(lines[:cut], keep=1.0)
    newer, older = tmp_path / "newer.jsonl", tmp_path / "older.jsonl"
    newer.write_bytes(b"".join(named))
    older.write_bytes(b"".join(older_lines))
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [newer], graph=False)
        before = _state(store)
        assert before["sessions"][0][1] == "Newer name"
        ingest(store, [older], graph=False)
        assert _state(store) == before
        ingest(store, [older], graph=False, force=True)
        assert _state(store) == before
        # the newer copy read again changes nothing either (its words were kept)
        rep = ingest(store, [newer], graph=False, force=True)
        assert _state(store) == before
        assert rep.sessions[0].new_messages == rep.sessions[0].updated_messages == 0


def test_copies_that_end_together_keep_the_stored_words(tmp_path: Path) -> None:
    # neither copy says it is older (the same last record): the stored words stay, the
    # other copy's message is kept raw with a problem naming its file and line
    lines = _lines(CLAUDE)
    said = [i for i, x in enumerate(lines) if _said(orjson.loads(x))]
    newer, other = tmp_path / "newer.jsonl", tmp_path / "other.jsonl"
    newer.write_bytes(b"".join(lines))
    k = said[len(said) // 2]
    other.write_bytes(b"".join(_edited(lines, k)))
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [newer], graph=False)
        before = _state(store)
        rep = ingest(store, [other], graph=False)
        after = _state(store)
        assert _older_words(store) == 0
        assert {k: v for k, v in after.items() if k != "sessions"} == \
            {k: v for k, v in before.items() if k != "sessions"}
        (s,) = rep.sessions
        assert s.conflicts == 1 and s.updated_messages == 0
        (p,) = [p for p in rep.problems if "ends with the same record" in p.reason]
        assert p.path == str(other) and p.line is not None and OLDER in (p.raw or "")


def test_ends_at_reads_the_sessions_own_last_record(tmp_path: Path) -> None:
    lines = _lines(CLAUDE)
    sid = orjson.loads(next(x for x in lines if b'"sessionId"' in x))["sessionId"]
    last = max(t for x in lines if (t := orjson.loads(x).get("timestamp")))
    path = tmp_path / "s.jsonl"
    # another session's records and a line not written whole after it: not its end
    other = orjson.loads(lines[-1])
    other.update(sessionId="another", timestamp="2099-01-01T00:00:00.000Z")
    path.write_bytes(b"".join(lines) + orjson.dumps(other) + b"\n" + lines[-1][:40])
    from logparse._agentlines import iso_ms

    assert ClaudeCodeReader.ends_at(path, sid) == iso_ms(last)
    assert ClaudeCodeReader.ends_at(path, "nobody") is None


EXPORT = REAL / "labelled" / "uicomponents__session-export.json"


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
def test_an_older_opencode_export_keeps_a_calls_result(tmp_path: Path, force: bool) -> None:
    # an export taken while a call still ran: the message holds as many parts as the
    # stored one (its tool part "running", no output), the session was updated then
    if not EXPORT.exists():
        pytest.skip(f"{EXPORT.name} is not here")
    doc = orjson.loads(EXPORT.read_bytes())
    msgs = doc["messages"]
    k = next(i for i in range(len(msgs) // 2, 0, -1) if any(
        p["type"] == "tool" and p["state"].get("status") == "completed"
        for p in msgs[i]["parts"]))
    old = orjson.loads(orjson.dumps(doc))
    old["messages"] = old["messages"][: k + 1]
    part = next(p for p in old["messages"][k]["parts"]
                if p["type"] == "tool" and p["state"].get("status") == "completed")
    part["state"] = {"status": "running", "input": part["state"].get("input", {}),
                     "time": {"start": part["state"].get("time", {}).get("start")}}
    old["info"]["time"]["updated"] = old["messages"][k]["info"]["time"]["created"]
    newer, older = tmp_path / "newer.json", tmp_path / "older.json"
    newer.write_bytes(orjson.dumps(doc))
    older.write_bytes(orjson.dumps(old))
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [newer], graph=False)
        before = _state(store)
        rep = ingest(store, [older], graph=False, force=force)
        assert _state(store) == before, "an older export took a call's result away"
        (s,) = rep.sessions
        assert s.updated_messages == 0 and s.kept > 0
