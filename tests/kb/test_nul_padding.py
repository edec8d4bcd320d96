"""A record after NUL bytes, or after a BOM inside the file, is stored.  A crash (power
loss, a full disk) can leave a transcript extended with zeros that were never written;
the agent, restarted, appends its next record to them, so the line is NUL bytes and then
a whole record.  Files joined each bring their BOM.  The record is read (the NULs or the
BOM skipped, reported by file and line); a line of NULs alone is named as such.  The
source is never written.  Trimmed real files of each line-based agent."""

from __future__ import annotations

import hashlib
from pathlib import Path

import orjson
import pytest

from kb.ingest import ingest
from kb.store import KbStore
from logparse.opencode._lines import parse_line

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures"
FILES = {
    "claude-code": FIX / "claude_record" / "recorded" / "fix_divide" / "-srv-campaign"
    / "2f969464-567e-4d35-8272-a0c156d779b6.jsonl",
    "codex": FIX / "codex_record" / "recorded" / "classic.jsonl",
    "pi": FIX / "realworld_trim" / "pi.jsonl",
    "gemini-cli": FIX / "realworld_trim" / "gemini_cli.jsonl",
}


def test_parse_line_skips_nul_padding() -> None:
    obj, warn = parse_line(b"\0" * 300 + b'{"a": 1}', True)
    assert obj == {"a": 1} and warn == "300 NUL bytes before the record skipped"
    obj, warn = parse_line(b"\0" * 40, True)
    assert obj is None and warn and warn.startswith("40 NUL bytes and nothing else")
    obj, warn = parse_line(b"\0\0" + b'{"a": "\xff"}', True)  # and invalid UTF-8 after
    assert obj == {"a": "\ufffd"} and warn and "2 NUL bytes" in warn and "UTF-8" in warn


def test_parse_line_reads_padding_that_alternates_nuls_and_boms() -> None:
    """A hostile line alternating NUL bytes and BOMs (``\\0`` then a BOM, 5,000 times)
    was read one kind at a time, recursively: a RecursionError that ended the whole
    ingest (review15).  The padding is now skipped in one pass, and said once."""
    obj, warn = parse_line(b"\0\xef\xbb\xbf" * 5000 + b'{"a": 1}', True)
    assert obj == {"a": 1}
    assert warn == ("5000 NUL bytes before the record skipped; a UTF-8 BOM before the "
                    "record skipped (files joined?)")
    obj, warn = parse_line(b"\xef\xbb\xbf" + b'{"a": 1}', True)
    assert obj == {"a": 1} and warn == "a UTF-8 BOM before the record skipped (files joined?)"


def _events(store: KbStore) -> list[tuple[object, ...]]:
    return store.conn.execute(
        "SELECT ordinal, kind, coalesce(tool, ''), coalesce(text, '') FROM events "
        "ORDER BY ALL").fetchall()


@pytest.mark.parametrize("agent", list(FILES))
def test_a_record_after_nul_padding_is_stored(tmp_path: Path, agent: str) -> None:
    lines = FILES[agent].read_bytes().splitlines(keepends=True)
    # the middle line that holds something said (its loss would show in the events)
    at = next(i for i in range(len(lines) // 2, len(lines))
              if b'"text"' in lines[i] or b'"content":"' in lines[i])
    padded = list(lines)
    padded[at] = b"\0" * 4096 + padded[at]
    padded.insert(at, b"\0" * 512 + b"\n")  # and a line of NULs alone before it
    clean, damaged = tmp_path / "clean.jsonl", tmp_path / "damaged.jsonl"
    clean.write_bytes(b"".join(lines))
    damaged.write_bytes(b"".join(padded))
    before = hashlib.sha256(damaged.read_bytes()).hexdigest()
    with KbStore(tmp_path / "clean.duckdb") as store:
        ingest(store, [clean], graph=False)
        want = _events(store)
        msgs = store.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    with KbStore(tmp_path / "damaged.duckdb") as store:
        rep = ingest(store, [damaged], graph=False)
        assert _events(store) == want
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == msgs
        raws = [orjson.loads(r) for (r,) in store.conn.execute(
            "SELECT raw::VARCHAR FROM messages").fetchall()]  # every raw is JSON
        assert raws
    said = {(p.line, p.reason.split(" (")[0]) for p in rep.problems}
    assert (at + 1, "512 NUL bytes and nothing else") in said
    assert (at + 2, "4096 NUL bytes before the record skipped") in said
    assert hashlib.sha256(damaged.read_bytes()).hexdigest() == before


def test_parse_line_skips_a_bom_inside_the_file() -> None:
    """Files joined (``cat a.jsonl b.jsonl``), each written with a BOM: the second's first
    record starts with one; the file's own BOM is skipped by its opening."""
    obj, warn = parse_line(b"\xef\xbb\xbf" + b'{"a": 1}', True)
    assert obj == {"a": 1} and warn and warn.startswith("a UTF-8 BOM before the record")
    obj, warn = parse_line(b"\0\0\xef\xbb\xbf" + b'{"a": 1}', True)
    assert obj == {"a": 1} and warn and "2 NUL bytes" in warn and "BOM" in warn


@pytest.mark.parametrize("agent", list(FILES))
def test_a_record_after_a_bom_inside_the_file_is_stored(tmp_path: Path, agent: str) -> None:
    lines = FILES[agent].read_bytes().splitlines(keepends=True)
    at = len(lines) // 2
    joined = tmp_path / "joined.jsonl"
    joined.write_bytes(b"".join(lines[:at]) + b"\xef\xbb\xbf" + b"".join(lines[at:]))
    clean = tmp_path / "clean.jsonl"
    clean.write_bytes(b"".join(lines))
    with KbStore(tmp_path / "clean.duckdb") as store:
        ingest(store, [clean], graph=False)
        want = _events(store)
    with KbStore(tmp_path / "joined.duckdb") as store:
        rep = ingest(store, [joined], graph=False)
        assert _events(store) == want
    assert [(p.line, p.reason[:29]) for p in rep.problems] == \
        [(at + 1, "a UTF-8 BOM before the record")]
