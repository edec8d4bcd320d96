"""Two copies of one session that end with the same record (same last time) but differ
earlier: neither says it is the newer, so no ingest lets one overwrite the other.

* A message one copy says with other words (edited, compacted): the copy stored first
  keeps it; the other's is kept raw with a problem naming its file and line, and
  counted (``conflicts``).  The message is there once, in either order.
* A copy with messages the other lacks in its middle (a prefix, another middle, the same
  end): every message of both is stored (the union), none twice.

For Claude Code, Codex, pi, Gemini CLI and opencode, from trimmed real files only
(``fixtures/realworld_trim``, ``fixtures/codex_record``): no held-out transcript."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from kb.ingest import ingest
from kb.store import KbStore

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures"
LINES = {
    "claude-code": FIX / "realworld_trim" / "claude_2_1.jsonl",
    "codex": FIX / "codex_record" / "recorded" / "classic.jsonl",
    "pi": FIX / "realworld_trim" / "pi.jsonl",
    "gemini-cli": FIX / "realworld_trim" / "gemini_cli.jsonl",
}
MARK = "EDITEDCOPY "


def _first_text(obj: Any) -> dict[str, Any] | None:
    """The first object holding a ``text`` string (depth first)."""
    if isinstance(obj, dict):
        if isinstance(obj.get("text"), str) and len(obj["text"]) > 3:
            return obj
        for v in obj.values():
            if (found := _first_text(v)) is not None:
                return found
    elif isinstance(obj, list):
        for v in obj:
            if (found := _first_text(v)) is not None:
                return found
    return None


def _said(obj: dict[str, Any]) -> bool:
    """A record of what was said (a prompt or a reply), not a tool's result."""
    if obj.get("type") in ("user", "gemini"):
        return isinstance(obj.get("id"), str) or isinstance(obj.get("uuid"), str)
    if obj.get("type") == "assistant":
        return True
    m = obj.get("message")
    if obj.get("type") == "message" and isinstance(m, dict):
        return m.get("role") in ("user", "assistant")
    p = obj.get("payload")
    return obj.get("type") == "response_item" and isinstance(p, dict) and \
        p.get("type") == "message"


def _prompt(obj: dict[str, Any]) -> bool:
    """A prompt the user typed (no tool's result in it)."""
    m = obj.get("message")
    p = obj.get("payload")
    body = m if isinstance(m, dict) else p if isinstance(p, dict) else obj
    if obj.get("type") != "user" and body.get("role") != "user":
        return False
    content = body.get("content")
    if isinstance(content, str):
        return True
    return isinstance(content, list) and not any(
        isinstance(c, dict) and c.get("type") == "tool_result" for c in content) and \
        not any("<environment_context>" in str(c) or "AGENTS.md" in str(c) for c in content)


def _edited(lines: list[bytes]) -> tuple[list[bytes], int]:
    """``lines`` with the words of a said record in the middle third changed (the same
    record: id, time, blocks), and its 1-based line."""
    n = len(lines)
    for i in range(n // 3, n - 2):
        obj = orjson.loads(lines[i])
        if not isinstance(obj, dict) or not _said(obj):
            continue
        if obj.get("type") == "gemini" and isinstance(obj.get("content"), str) \
                and obj["content"]:
            obj["content"] = MARK + obj["content"]
        elif (t := _first_text(obj)) is not None:
            t["text"] = MARK + t["text"]
        else:
            continue
        out = list(lines)
        out[i] = orjson.dumps(obj) + b"\n"
        return out, i + 1
    raise AssertionError("no record to edit")


def _inserted(lines: list[bytes]) -> list[bytes]:
    """``lines`` with a prompt the other copy lacks in the middle: a said record copied
    under a new id, with words of its own (its time between its neighbours')."""
    n = len(lines)
    i = next(i for i in range(1, n - 2) if _said(o := orjson.loads(lines[i]))
             and _prompt(o))
    obj = orjson.loads(lines[i])
    for key in ("uuid", "id"):
        if isinstance(obj.get(key), str):
            obj[key] = "ins-" + obj[key]
    m = obj.get("message")
    if isinstance(m, dict) and isinstance(m.get("content"), str):
        m["content"] = "INSERTED words of the other copy"
    elif (t := _first_text(obj)) is not None:
        t["text"] = "INSERTED words of the other copy"
    return lines[: i + 1] + [orjson.dumps(obj) + b"\n"] + lines[i + 1:]


def _opencode(tmp: Path) -> tuple[bytes, bytes, bytes]:
    """An opencode export of three messages; a copy with the second's words edited; a
    copy with a message the first lacks in its middle.  All end (``time.updated``)
    together."""
    def msg(mid: str, role: str, t: int, text: str) -> dict[str, Any]:
        return {"info": {"id": mid, "sessionID": "ses_together", "role": role,
                         "time": {"created": t, "completed": t + 5}},
                "parts": [{"id": f"prt_{mid}", "sessionID": "ses_together", "messageID": mid,
                           "type": "text", "text": text}]}

    info = {"id": "ses_together", "title": "together", "version": "1.2.5",
            "time": {"created": 1000, "updated": 9000}}
    base = [msg("msg_1", "user", 1000, "Fix the failing build please"),
            msg("msg_2", "assistant", 2000, "I will look at the build log first."),
            msg("msg_3", "assistant", 3000, "The build passes now.")]
    edited = orjson.loads(orjson.dumps(base))
    edited[1]["parts"][0]["text"] = MARK + "I looked at something else entirely."
    more = base[:2] + [msg("msg_25", "user", 2500, "INSERTED words of the other copy")] \
        + base[2:]
    return tuple(orjson.dumps({"info": info, "messages": m})  # type: ignore[return-value]
                 for m in (base, edited, more))


def _copies(agent: str, tmp: Path) -> tuple[bytes, bytes, bytes, int | None]:
    if agent == "opencode":
        base, edited, more = _opencode(tmp)
        return base, edited, more, None
    src = LINES[agent]
    lines = src.read_bytes().splitlines(keepends=True)
    edited, line = _edited(lines)
    return b"".join(lines), b"".join(edited), b"".join(_inserted(lines)), line


def _in_order(agent: str, tmp: Path, first: bytes, second: bytes) -> tuple[Path, Path]:
    """The two copies written as ``a`` (read first) and ``b``, named as the agent names
    its files."""
    ext = ".json" if agent == "opencode" else ".jsonl"
    a, b = tmp / f"a{ext}", tmp / f"b{ext}"
    a.write_bytes(first)
    b.write_bytes(second)
    return a, b


def _stored(store: KbStore) -> dict[tuple[str, str], str]:
    rows = store.conn.execute(
        "SELECT m.session_id, m.message_id, coalesce(string_agg(e.text, '|' "
        "ORDER BY e.seq), '') FROM messages m LEFT JOIN events e ON "
        "e.session_id = m.session_id AND e.ordinal = m.ordinal GROUP BY ALL").fetchall()
    return {(s, m): t for s, m, t in rows}


def _marked(store: KbStore) -> int:
    return store.conn.execute("SELECT count(*) FROM events WHERE contains(text, ?)",
                              [MARK]).fetchone()[0]


AGENTS = [*LINES, "opencode"]


@pytest.mark.parametrize("edited_first", [False, True], ids=["plain-first", "edited-first"])
@pytest.mark.parametrize("agent", AGENTS)
def test_an_edited_copy_ending_together_keeps_the_stored_message(
        tmp_path: Path, agent: str, edited_first: bool) -> None:
    base, edited, _, line = _copies(agent, tmp_path)
    a, b = _in_order(agent, tmp_path, edited if edited_first else base,
                     base if edited_first else edited)
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [a], graph=False)
        before = _stored(store)
        marked = _marked(store)
        assert marked == (1 if edited_first else 0)
        rep = ingest(store, [b], graph=False)
        after = _stored(store)
        assert after == before, "a copy ending with the same record overwrote a message"
        assert _marked(store) == marked
        (s,) = [s for s in rep.sessions if s.messages]
        assert s.conflicts == 1 and s.new_messages == 0
        (p,) = [p for p in rep.problems if "ends with the same record" in p.reason]
        assert p.path == str(b) and p.raw
        assert (MARK in p.raw) != edited_first  # the other copy's words, kept raw
        if line is not None:  # the line of the message (its first record) or of the record
            assert p.line is not None and line - 3 <= p.line <= line
        # read again: nothing changes, the conflict is said again
        rep = ingest(store, [b], graph=False, force=True)
        assert _stored(store) == before


@pytest.mark.parametrize("longer_first", [False, True], ids=["shorter-first", "longer-first"])
@pytest.mark.parametrize("agent", AGENTS)
def test_a_copy_with_another_middle_keeps_the_union(
        tmp_path: Path, agent: str, longer_first: bool) -> None:
    base, _, more, _ = _copies(agent, tmp_path)
    a, b = _in_order(agent, tmp_path, more if longer_first else base,
                     base if longer_first else more)
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [a], graph=False)
        first = _stored(store)
        ingest(store, [b], graph=False)
        both = _stored(store)
    with KbStore(tmp_path / "alone.duckdb") as store:
        c = a.with_name(f"c{a.suffix}")
        c.write_bytes(base)
        ingest(store, [c], graph=False)
        alone = _stored(store)
    texts = sorted(both.values())
    # every text of the shorter copy is there, and the inserted words once
    for t in alone.values():
        assert t in texts, (agent, t[:80])
    assert sum("INSERTED words" in t for t in texts) == 1
    assert len(both) == len(alone) + 1, (agent, len(both), len(alone))
    assert all(k in both for k in first)  # no message stored before was deleted


def _as_before_round_14(store: KbStore) -> None:
    """The store as logkb wrote it before round 14: no session keeps when its copy ended
    (``logkbEndsAt``), and an unchanged file is never read again to add it."""
    for sid, info in store.conn.execute(
            "SELECT session_id, info::VARCHAR FROM sessions").fetchall():
        doc = orjson.loads(info) if info is not None else None
        if isinstance(doc, dict) and doc.pop("logkbEndsAt", None) is not None:
            store.conn.execute("UPDATE sessions SET info = ?::JSON WHERE session_id = ?",
                               [orjson.dumps(doc).decode(), sid])


def _ends(store: KbStore) -> list[object]:
    return [r[0] for r in store.conn.execute(
        "SELECT json_extract(info, '$.logkbEndsAt') FROM sessions").fetchall()]


@pytest.mark.parametrize("edited_first", [False, True], ids=["plain-first", "edited-first"])
@pytest.mark.parametrize("agent", AGENTS)
def test_a_session_stored_before_its_end_was_kept_is_not_overwritten(
        tmp_path: Path, agent: str, edited_first: bool) -> None:
    """A session an older logkb stored has no ``logkbEndsAt``: its end is read from what
    it stored (its last records, an opencode session's ``time.updated``), so a copy
    ending with the same record is a conflict there too, never an overwrite; the ingest
    that reads it keeps the end from then on (the migration)."""
    base, edited, _, _ = _copies(agent, tmp_path)
    a, b = _in_order(agent, tmp_path, edited if edited_first else base,
                     base if edited_first else edited)
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [a], graph=False)
        _as_before_round_14(store)
        assert _ends(store) == [None]
        before = _stored(store)
        marked = _marked(store)
        rep = ingest(store, [b], graph=False)
        assert _stored(store) == before, "a copy ending together overwrote a stored message"
        assert _marked(store) == marked
        (s,) = [s for s in rep.sessions if s.messages]
        assert s.conflicts == 1 and s.new_messages == 0
        (p,) = [p for p in rep.problems if "ends with the same record" in p.reason]
        assert p.path == str(b) and (MARK in (p.raw or "")) != edited_first
        assert _ends(store) != [None]  # kept from now on
        # the file unchanged is skipped; read again, the end is the one kept
        _as_before_round_14(store)
        rep = ingest(store, [b], graph=False, force=True)
        assert _stored(store) == before
        assert [s.conflicts for s in rep.sessions if s.messages] == [1]


@pytest.mark.parametrize("agent", AGENTS)
def test_an_older_copy_of_a_session_stored_before_round_14_changes_nothing(
        tmp_path: Path, agent: str) -> None:
    """The newest copy stored by an older logkb, then a copy cut before its end: no
    stored message is deleted or changed, the messages it lacks are kept (counted)."""
    base, _, more, _ = _copies(agent, tmp_path)
    ext = ".json" if agent == "opencode" else ".jsonl"
    full, cut = tmp_path / f"full{ext}", tmp_path / f"cut{ext}"
    full.write_bytes(more)
    if agent == "opencode":
        doc = orjson.loads(more)
        doc["messages"] = doc["messages"][:2]
        doc["info"]["time"]["updated"] = 2600
        cut.write_bytes(orjson.dumps(doc))
    else:
        lines = more.splitlines(keepends=True)
        cut.write_bytes(b"".join(lines[: len(lines) * 2 // 3]))
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [full], graph=False)
        _as_before_round_14(store)
        before = _stored(store)
        rep = ingest(store, [cut], graph=False)
        assert _stored(store) == before
        (s,) = [s for s in rep.sessions if s.messages]
        assert s.kept > 0 and s.new_messages == 0 and s.conflicts == 0
