"""A line added or removed before stored messages does not store them twice.

Claude Code, Codex, pi and Antigravity messages are named by the line their record stands
at.  A file ingested again after a line was added or removed before stored messages (a
rewritten file, a copy with a line dropped or a ``custom-title`` line inserted near the
top, an older copy merged) gives every message after it another id; the ingest must find
them to be the stored messages (``kb.ingest._Aliases``) and keep the counts of a single
reading: messages, events and dead ends.  Nothing stored is deleted.

Through the real CLI and its DuckDB store, on real non-held-out slices: ``random__session``
(Claude Code), ``Rivo__codex-session`` (Codex), ``civ6.ch__session`` (pi) from
``../shared/realworld/pool`` (tune set), and ``fixtures/realworld_trim/antigravity.jsonl``.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import duckdb
import orjson
import pytest

from tests.cli_kb import invoke

ROOT = Path(__file__).resolve().parents[2]
POOL = ROOT.parent / "shared" / "realworld" / "pool"
FIX = ROOT / "fixtures"


def _head(path: Path, n: int | None = None) -> list[bytes]:
    return path.read_bytes().splitlines(keepends=True)[:n]


def _claude_added(lines: list[bytes]) -> bytes:
    sid = next(o["sessionId"] for o in map(orjson.loads, lines) if "sessionId" in o)
    return orjson.dumps({"type": "custom-title", "customTitle": "renamed by the user",
                         "sessionId": sid}) + b"\n"


def _codex_added(lines: list[bytes]) -> bytes:
    return next(ln for ln in lines if b'"type":"turn_context"' in ln)  # the turn's context again


def _pi_added(lines: list[bytes]) -> bytes:
    first = orjson.loads(lines[1])
    return orjson.dumps({"type": "label", "id": "0badc0de", "parentId": first.get("id"),
                         "timestamp": first.get("timestamp"), "targetId": first.get("id"),
                         "label": "checkpoint"}) + b"\n"


def _antigravity_added(lines: list[bytes]) -> bytes:
    first = orjson.loads(lines[0])
    return orjson.dumps({"step_index": 100001, "source": "SYSTEM",
                         "type": "CONVERSATION_HISTORY", "status": "DONE",
                         "created_at": first["created_at"]}) + b"\n"


SOURCES: dict[str, tuple[Callable[[], list[bytes]], Callable[[list[bytes]], bytes]]] = {
    "claude-code": (lambda: _head(POOL / "random__session.jsonl", 80), _claude_added),
    "codex": (lambda: _head(POOL / "Rivo__codex-session.jsonl", 120), _codex_added),
    "pi": (lambda: _head(POOL / "civ6.ch__session.jsonl"), _pi_added),
    "antigravity": (lambda: _head(FIX / "realworld_trim" / "antigravity.jsonl"),
                    _antigravity_added),
}
"""agent → (the slice's lines, a line of no message of its own that the agent writes)."""


def ingest(db: Path, path: Path) -> dict[str, object]:
    r = invoke("ingest", "--db", str(db), "--json", str(path))
    assert r.exit_code in (0, 4), (r.exit_code, r.stderr[-2000:])
    return json.loads(r.stdout)


def counts(db: Path) -> tuple[int, int, int, set[str]]:
    """Messages, events, dead ends, and the stored message ids."""
    with duckdb.connect(str(db), read_only=True) as c:
        ids = {m for (m,) in c.execute("SELECT message_id FROM messages").fetchall()}
        events = c.execute("SELECT count(*) FROM events").fetchone()
    r = invoke("deadends", "--db", str(db), "--all", "--json")
    assert r.exit_code in (0, 1), r.stderr
    dead = [ln for ln in r.stdout.splitlines() if ln.strip()]
    assert events is not None
    return len(ids), int(events[0]), len(dead), ids


def rewrite(path: Path, lines: list[bytes]) -> None:
    """The file at ``path`` rewritten (a later mtime, as an editor or a copy leaves it)."""
    mtime = path.stat().st_mtime_ns if path.exists() else 0
    path.write_bytes(b"".join(lines))
    os.utime(path, ns=(mtime + 10**9, mtime + 10**9))


def _message_lines(ids: set[str]) -> list[int]:
    return sorted(int(m[:9]) for m in ids)


def variants(agent: str, lines: list[bytes], ids: set[str]) -> dict[str, list[bytes]]:
    """The slice with a line added near the top, with a line of no message removed there,
    and with the second message's line removed."""
    own = _message_lines(ids)
    extra = next(n for n in range(2, len(lines) + 1) if n not in own)
    second = own[1]
    return {"added": lines[:1] + [SOURCES[agent][1](lines)] + lines[1:],
            "removed": lines[: extra - 1] + lines[extra:],
            "message-removed": lines[: second - 1] + lines[second:]}


@pytest.mark.parametrize("where", ["same-path", "copy"])
@pytest.mark.parametrize("agent", sorted(SOURCES))
def test_a_shifted_line_stores_no_message_twice(tmp_path: Path, agent: str,
                                                 where: str) -> None:
    lines = SOURCES[agent][0]()
    f = tmp_path / "session.jsonl"
    rewrite(f, lines)
    base_db = tmp_path / "base.duckdb"
    ingest(base_db, f)
    base = counts(base_db)
    assert base[0] > 5
    for kind, data in variants(agent, lines, base[3]).items():
        db = tmp_path / f"{kind}.duckdb"
        shutil.copyfile(base_db, db)
        g = f if where == "same-path" else tmp_path / f"copy-{kind}.jsonl"
        saved = f.read_bytes()
        rewrite(g, data)
        got = ingest(db, g)
        rewrite(f, [saved])
        after = counts(db)
        assert not base[3] - after[3], (kind, "a stored message was deleted")
        assert after[:3] == base[:3], (kind, after[:3], base[:3], got)
        again = ingest(db, g)  # and once more: nothing changes
        assert counts(db)[:3] == base[:3], (kind, again)


def test_a_shifted_file_that_grows_is_read_on(tmp_path: Path) -> None:
    """A Codex file ingested, a line added near its top, then grown: what the store holds
    equals a single reading of the grown file (the shifted messages keep their ids, the
    grown tail is read on from the resume point)."""
    lines = _head(POOL / "Rivo__codex-session.jsonl")
    full = lines[:1] + [_codex_added(lines)] + lines[1:]
    one = tmp_path / "one.jsonl"
    rewrite(one, full)
    single = tmp_path / "single.duckdb"
    ingest(single, one)
    want = counts(single)
    f = tmp_path / "session.jsonl"
    db = tmp_path / "kb.duckdb"
    rewrite(f, lines[:100])
    ingest(db, f)
    first = counts(db)[3]
    rewrite(f, full[:101])
    ingest(db, f)
    with f.open("ab") as out:  # the agent writes on
        out.write(b"".join(full[101:]))
    got = ingest(db, f)
    after = counts(db)
    assert not first - after[3]
    assert after[:3] == want[:3], (after[:3], want[:3], got)


def test_a_codex_line_written_twice_is_one_message(tmp_path: Path) -> None:
    """Codex records carry no id: a response item written twice in a row (a copy, a sync)
    is read once, its repeat kept raw with the next message."""
    lines = _head(POOL / "Rivo__codex-session.jsonl", 60)
    f = tmp_path / "session.jsonl"
    rewrite(f, lines)
    db = tmp_path / "kb.duckdb"
    ingest(db, f)
    base = counts(db)
    items = [i for i, ln in enumerate(lines) if b'"type":"response_item"' in ln]
    for k in items[:3] + items[len(items) // 2: len(items) // 2 + 2]:
        doubled = lines[: k + 1] + [lines[k]] + lines[k + 1:]
        fresh = tmp_path / f"fresh-{k}.duckdb"
        g = tmp_path / f"doubled-{k}.jsonl"
        rewrite(g, doubled)
        ingest(fresh, g)
        assert counts(fresh)[:3] == base[:3], k
        with duckdb.connect(str(fresh), read_only=True) as c:  # the repeat is kept raw
            lines_kept = {n for (raw,) in c.execute("SELECT raw FROM messages").fetchall()
                          for n in orjson.loads(raw)["lines"]}
        assert k + 2 in lines_kept, k
        over = tmp_path / f"over-{k}.duckdb"
        shutil.copyfile(db, over)
        rewrite(f, doubled)
        ingest(over, f)
        rewrite(f, lines)
        assert counts(over)[:3] == base[:3], k


@pytest.mark.parametrize("agent", sorted(SOURCES))
def test_an_older_copy_with_a_line_added_is_merged_once(tmp_path: Path, agent: str) -> None:
    """The whole file, then an older copy of it (its first two thirds) with a line added
    near the top, at another path: every message of the copy is a stored one."""
    lines = SOURCES[agent][0]()
    f = tmp_path / "session.jsonl"
    rewrite(f, lines)
    db = tmp_path / "kb.duckdb"
    ingest(db, f)
    want = counts(db)
    older = lines[: len(lines) * 2 // 3]
    g = tmp_path / "older.jsonl"
    rewrite(g, older[:1] + [SOURCES[agent][1](lines)] + older[1:])
    ingest(db, g)
    after = counts(db)
    assert not want[3] - after[3]
    assert after[:3] == want[:3], (after[:3], want[:3])


@pytest.mark.parametrize("agent", ["codex", "pi"])
def test_a_line_removed_then_grown_overwrites_no_stored_message(tmp_path: Path,
                                                                agent: str) -> None:
    """Codex and pi ids are bare line numbers: after a line near the top is removed, the
    messages the file grows by stand at lines whose ids stored messages have.  They are
    new messages (stored beside, ``<line>-<key>``), and the stored ones are not
    overwritten: the store equals a single reading of the grown file."""
    lines = SOURCES[agent][0]()
    cut = len(lines) * 3 // 4
    f = tmp_path / "session.jsonl"
    rewrite(f, lines[:cut])
    db = tmp_path / "kb.duckdb"
    ingest(db, f)
    first = counts(db)
    own = _message_lines(first[3])
    extra = next(n for n in range(2, cut + 1) if n not in own)
    grown = lines[: extra - 1] + lines[extra:]
    one = tmp_path / "one.jsonl"
    rewrite(one, grown)
    single = tmp_path / "single.duckdb"
    ingest(single, one)
    want = counts(single)
    rewrite(f, grown)
    ingest(db, f)
    after = counts(db)
    assert not first[3] - after[3]
    assert after[:3] == want[:3], (after[:3], want[:3])
    if agent == "codex":  # (pi's grown lines meet no stored id here)
        assert any("-" in m for m in after[3]), "no new message met a stored id"


def _legacy_msg(role: str, text: str) -> dict[str, object]:
    kind = "input_text" if role == "user" else "output_text"
    return {"type": "message", "role": role, "content": [{"type": kind, "text": text}]}


def _legacy(*items: dict[str, object]) -> list[bytes]:
    """A legacy Codex rollout (Codex < 0.20: bare response items, no time): its records
    carry no id and no time, so a prompt typed twice is the same record twice."""
    head = {"id": "5973b6c0-94b8-487b-a530-2aeb6098ae0e",
            "timestamp": "2025-05-08T17:05:31.245Z", "instructions": None}
    return [orjson.dumps(o) + b"\n" for o in (head, *items)]

def test_a_prompt_typed_again_after_a_shift_is_a_new_message(tmp_path: Path) -> None:
    """A legacy Codex file stored, then a line near its top removed and the user's
    `continue` typed again: the new prompt's record equals the stored one's, and its line
    is a stored message's.  It is a message of its own (a single reading stores it); it
    was read as a repeat of the stored prompt and left out of the store."""
    state = {"record_type": "state"}
    m = _legacy_msg
    lines = _legacy(state, m("user", "fix the build"), m("assistant", "done one"), state,
                    m("user", "continue"), m("assistant", "done two"))
    grown = lines[:1] + lines[2:] + _legacy(m("user", "continue"),
                                           m("assistant", "done three"))[1:]
    one = tmp_path / "one.jsonl"
    rewrite(one, grown)
    single = tmp_path / "single.duckdb"
    ingest(single, one)
    want = counts(single)
    f = tmp_path / "session.jsonl"
    db = tmp_path / "kb.duckdb"
    rewrite(f, lines)
    ingest(db, f)
    first = counts(db)[3]
    rewrite(f, grown)
    got = ingest(db, f)
    after = counts(db)
    assert not first - after[3]
    assert after[:3] == want[:3], (after[:3], want[:3], got)
    again = ingest(db, f)  # and once more: nothing changes
    assert counts(db) == after, again


class _Counted(dict[str, tuple[int, str]]):
    """The ids read so far, counting how often they are asked about."""
    asked = 0

    def __contains__(self, key: object) -> bool:
        self.asked += 1
        return super().__contains__(key)


def test_one_record_written_many_times_is_found_in_linear_steps(tmp_path: Path) -> None:
    """A legacy Codex session of `continue` and `ok` a few hundred times each, read again
    after a line near its top was removed: each message is looked for among the stored
    messages of its record.  They were scanned from the first each time (quadratic: 8,000
    pairs took 12 s more than a fresh reading; 4,000 took 3 s); the next unread one is
    kept per record."""
    from kb.ingest import _Aliases
    from kb.store import KbStore
    from logparse.codex import CodexReader
    from logparse.derive import digest

    n = 600
    m = _legacy_msg
    lines = _legacy({"record_type": "state"},
                    *[x for _ in range(n) for x in (m("user", "continue"), m("assistant", "ok"))])
    f = tmp_path / "session.jsonl"
    db = tmp_path / "kb.duckdb"
    rewrite(f, lines)
    ingest(db, f)
    rewrite(f, lines[:1] + lines[2:])
    seen = _Counted()
    with KbStore(db, read_only=True) as store:
        src = next(iter(CodexReader().sessions(f, [])))
        known = store.known_messages(src.session_id)
        aliases = _Aliases(store, src.session_id, known)
        for msg in src.messages:
            mid, keep = aliases.resolve(msg, digest(msg.raw), seen)
            assert mid in known and mid not in seen and not keep
            seen[mid] = (0, "")
            aliases.claimed += 1
    assert len(seen) == 2 * n
    assert seen.asked < 20 * n, seen.asked


def test_a_rewound_antigravity_step_keeps_the_stored_one(tmp_path: Path) -> None:
    """An Antigravity trajectory exported again after the user went back and asked
    something else: the new prompt and reply take the step indexes (and lines) of the
    stored ones.  A step's key was its index and type alone, so the new prompt was
    "the stored message, changed" and replaced it: the stored prompt was lost.  A step
    created at another time is another step (stored beside, the stored one kept)."""
    lines = _head(FIX / "realworld_trim" / "antigravity.jsonl")
    f = tmp_path / "session.jsonl"
    db = tmp_path / "kb.duckdb"
    rewrite(f, lines)
    ingest(db, f)
    old = orjson.loads(lines[16])
    assert old["type"] == "USER_INPUT"
    new = {**old, "created_at": "2026-06-18T23:30:00Z",
           "content": "<USER_REQUEST>\nforget that: list the open ports instead\n"
                      "</USER_REQUEST>"}
    rewrite(f, [*lines[:16], orjson.dumps(new) + b"\n"])
    ingest(db, f)
    with duckdb.connect(str(db), read_only=True) as c:
        raws = [r for (r,) in c.execute("SELECT raw FROM messages").fetchall()]
    assert any("the vibrant part" in r for r in raws), "the stored prompt was replaced"
    assert any("list the open ports" in r for r in raws)
