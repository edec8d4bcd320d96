"""Records of a type no reader knows, by the thousand between two Claude Code messages:
each is stored raw (in the raw JSON of a message) and counted, and the reader holds at
most :data:`logparse._agentlines.SPILL_LINES` of them at a time (they leave as messages
of their own, role ``system``, no parts).  A reading resumed from a resume point stores
what a whole reading does.  The memory figures: ``python -m bench readers --only
claude-unknown`` (BENCHMARKS.md), never a timed test.

The messages are the labelled ``will-it-rain__claude.jsonl``'s first prompt and reply."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from kb.ingest import ingest
from kb.store import KbStore
from logparse._agentlines import SPILL_LINES
from logparse.claude_code import ClaudeCodeReader
from logparse.models import Problem

CLAUDE = Path(__file__).resolve().parents[3] / "shared" / "realworld" / "labelled" / \
    "will-it-rain__claude.jsonl"
COUNT = SPILL_LINES * 3 + 123
"""Unknown records between the prompt and the reply: three spills and a remainder."""


def _parts() -> tuple[list[bytes], list[bytes], bytes, bytes]:
    """The lines up to the first prompt, those up to the first reply, the session id and
    the prompt's time."""
    if not CLAUDE.exists():
        pytest.skip("will-it-rain__claude.jsonl is not here")
    lines = CLAUDE.read_bytes().splitlines(keepends=True)
    said = [i for i, x in enumerate(lines)
            if orjson.loads(x).get("type") in ("user", "assistant")]
    rec = orjson.loads(lines[said[0]])
    return (lines[: said[0] + 1], lines[said[0] + 1: said[1] + 1],
            rec["sessionId"].encode(), rec["timestamp"].encode())


def _unknown(sid: bytes, ts: bytes, start: int, stop: int) -> list[bytes]:
    pad = b"x" * 150  # (the file read first is large enough to keep a resume point)
    return [b'{"type":"mystery-record","sessionId":"%s","timestamp":"%s","seq":%d,"pad":"%s"}'
            b'\n' % (sid, ts, i, pad) for i in range(start, stop)]


def _file(path: Path, unknown: int) -> Path:
    head, tail, sid, ts = _parts()
    path.write_bytes(b"".join(head + _unknown(sid, ts, 0, unknown) + tail))
    return path


def test_the_reader_holds_a_bounded_number_and_gives_every_record(tmp_path: Path) -> None:
    path = _file(tmp_path / "flood.jsonl", COUNT)
    reader = ClaudeCodeReader()
    problems: list[Problem] = []
    seqs: list[int] = []
    roles: list[str] = []
    for src in reader.sessions(path, problems):
        for m in src.messages:
            roles.append(m.info["role"])
            for rec in orjson.loads(m.raw)["records"]:
                if rec.get("type") == "mystery-record":
                    seqs.append(rec["seq"])
            assert len(orjson.loads(m.raw)["records"]) <= SPILL_LINES + 50
    assert seqs == list(range(COUNT)), "a record was lost, doubled or moved"
    assert reader.skipped == {"mystery-record": COUNT} and not problems
    assert roles[0] == "user" and roles[-1] == "assistant"
    assert roles.count("system") == COUNT // SPILL_LINES


def test_every_record_is_stored_and_counted(tmp_path: Path) -> None:
    path = _file(tmp_path / "flood.jsonl", COUNT)
    alone = _file(tmp_path / "alone.jsonl", 0)
    with KbStore(tmp_path / "kb.duckdb") as store:
        rep = ingest(store, [path], graph=False)
        assert rep.skipped == {str(path): {"mystery-record": COUNT}}
        seqs = sorted(r["seq"] for (raw,) in store.conn.execute(
            "SELECT raw::VARCHAR FROM messages").fetchall()
            for r in orjson.loads(raw)["records"] if r.get("type") == "mystery-record")
        assert seqs == list(range(COUNT))
        said = store.conn.execute("SELECT text FROM prose ORDER BY ordinal, seq").fetchall()
    with KbStore(tmp_path / "alone.duckdb") as store:
        ingest(store, [alone], graph=False)
        assert store.conn.execute(
            "SELECT text FROM prose ORDER BY ordinal, seq").fetchall() == said


def test_a_resumed_reading_stores_what_a_whole_one_does(tmp_path: Path) -> None:
    head, tail, sid, ts = _parts()
    path = tmp_path / "grows.jsonl"
    # read while the flood is written (past a spill), then grown by the rest and the reply
    path.write_bytes(b"".join(head + _unknown(sid, ts, 0, COUNT - 500)))
    whole = _file(tmp_path / "whole.jsonl", COUNT)

    def rows(store: KbStore) -> list[tuple[object, ...]]:
        return store.conn.execute("SELECT ordinal, message_id, raw::VARCHAR FROM messages "
                                  "ORDER BY ordinal").fetchall()

    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [path], graph=False)
        with path.open("ab") as f:
            f.write(b"".join(_unknown(sid, ts, COUNT - 500, COUNT) + tail))
        rep = ingest(store, [path], graph=False)
        assert rep.resumed == [str(path)]
        got = rows(store)
    with KbStore(tmp_path / "whole.duckdb") as store:
        ingest(store, [whole], graph=False)
        assert [r[:2] for r in rows(store)] == [r[:2] for r in got]


# -- the other line readers ------------------------------------------------------------

ROOT = Path(__file__).resolve().parents[2]
OTHERS = {
    "codex": (ROOT / "fixtures" / "codex_record" / "recorded" / "classic.jsonl",
              "logparse.codex:CodexReader"),
    "pi": (ROOT.parent / "shared" / "realworld" / "pool" / "civ6.ch__session.jsonl",
           "logparse.pi:PiReader"),
    "gemini-cli": (ROOT / "fixtures" / "gemini_rewind" / "session-rewind.jsonl",
                   "logparse.gemini_cli:GeminiCliReader"),
}


def _said(form: str, obj: dict[str, object]) -> bool:
    if form == "codex":
        p = obj.get("payload")
        return obj.get("type") == "response_item" and isinstance(p, dict) \
            and p.get("type") == "message"
    return obj.get("type") in (("message",) if form == "pi" else ("user", "gemini"))


@pytest.mark.parametrize("form", list(OTHERS))
def test_other_readers_hold_a_bounded_number_and_give_every_record(
        tmp_path: Path, form: str) -> None:
    import importlib

    src, where = OTHERS[form]
    if not src.exists():
        pytest.skip(f"{src.name} is not here")
    lines = src.read_bytes().splitlines(keepends=True)
    objs = [orjson.loads(x) for x in lines]
    first = next(i for i, o in enumerate(objs) if _said(form, o))
    ts = objs[first]["timestamp"]
    flood = [orjson.dumps({"type": "mystery-record", "id": f"m{i:07d}", "timestamp": ts,
                           "seq": i}) + b"\n" for i in range(COUNT)]
    path = tmp_path / "flood.jsonl"
    path.write_bytes(b"".join(lines[: first + 1] + flood + lines[first + 1:]))
    mod, cls = where.split(":")
    reader = getattr(importlib.import_module(mod), cls)()
    problems: list[Problem] = []
    seqs: list[int] = []
    for s in reader.sessions(path, problems):
        for m in s.messages:
            recs = orjson.loads(m.raw)["records"]
            assert len(recs) <= SPILL_LINES + len(lines), "held past the bound"
            seqs += [r["seq"] for r in recs if r.get("type") == "mystery-record"]
    assert sorted(seqs) == list(range(COUNT)), "a record was lost or doubled"
    assert sum(reader.skipped.values()) == COUNT  # (Codex: as a bare legacy item)
