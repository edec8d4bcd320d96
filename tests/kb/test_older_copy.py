"""An ingest never deletes a stored message (issue 23): a session met again in an older or
shorter copy keeps every message it has, in any order of ingest and across forms.

The copies are real sessions cut the way snapshots are: a Claude Code JSONL whose later
lines were not written yet, and an opencode export taken before the last messages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kb.ingest import ingest
from kb.store import KbStore
from tests.cli_kb import invoke

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld"
CLAUDE = REAL / "labelled" / "will-it-rain__claude.jsonl"
EXPORT = REAL / "opencode" / "session__quiet-meadow__ses_39c0a3da8ffeFQWvKTGUJWivpv.json"


def _ids(store: KbStore) -> dict[str, list[str]]:
    rows = store.conn.execute(
        "SELECT session_id, message_id FROM messages ORDER BY session_id, ordinal").fetchall()
    out: dict[str, list[str]] = {}
    for sid, mid in rows:
        out.setdefault(sid, []).append(mid)
    return out


def _ordinals_contiguous(store: KbStore) -> None:
    for sid, n, lo, hi in store.conn.execute(
            "SELECT session_id, count(*), min(ordinal), max(ordinal) FROM messages "
            "GROUP BY session_id").fetchall():
        assert (lo, hi) == (1, n), f"{sid}: ordinals {lo}..{hi} for {n} messages"


def _claude_copies(tmp: Path) -> tuple[Path, Path]:
    lines = CLAUDE.read_bytes().splitlines(keepends=True)
    newer, older = tmp / "newer.jsonl", tmp / "older.jsonl"
    newer.write_bytes(b"".join(lines))
    older.write_bytes(b"".join(lines[: len(lines) * 2 // 3]))
    return newer, older


POOL = REAL / "pool"


def _lines_copies(name: str, keep: float = 2 / 3):
    def copies(tmp: Path) -> tuple[Path, Path]:
        lines = (POOL / name).read_bytes().splitlines(keepends=True)
        newer, older = tmp / "newer.jsonl", tmp / "older.jsonl"
        newer.write_bytes(b"".join(lines))
        older.write_bytes(b"".join(lines[: int(len(lines) * keep)]))
        return newer, older
    return copies


def _gemini_first_version_copies(tmp: Path) -> tuple[Path, Path]:
    """Gemini CLI writes a reply again, whole, under the same id once its tool calls
    finish: the older copy ends after the first version (text, no calls), the second
    copy is missing."""
    lines = (POOL / "Axe__session.jsonl").read_bytes().splitlines(keepends=True)
    seen: dict[str, int] = {}
    cut = None
    for i, line in enumerate(lines):
        o = json.loads(line)
        mid = o.get("id")
        if isinstance(mid, str):
            if mid in seen and o.get("toolCalls") and i > 40:
                cut = seen[mid] + 1
                break
            seen.setdefault(mid, i)
    assert cut is not None
    newer, older = tmp / "newer.jsonl", tmp / "older.jsonl"
    newer.write_bytes(b"".join(lines))
    older.write_bytes(b"".join(lines[:cut]))
    return newer, older


def _export_copies(tmp: Path) -> tuple[Path, Path]:
    data = json.loads(EXPORT.read_text())
    newer, older = tmp / "newer.json", tmp / "older.json"
    newer.write_text(json.dumps(data))
    data["messages"] = data["messages"][:-8]
    older.write_text(json.dumps(data))
    return newer, older


COPIES = {"claude": _claude_copies, "export": _export_copies,
          "gemini-cli": _lines_copies("Axe__session.jsonl"),
          "gemini-second-copy-missing": _gemini_first_version_copies,
          "pi": _lines_copies("civ6.ch__session.jsonl"),
          "antigravity": _lines_copies("Xeus__gemini-session.jsonl")}
"""An older copy of each form: the newer file cut the way a snapshot is."""


@pytest.mark.parametrize("copies", list(COPIES.values()), ids=list(COPIES))
def test_newer_older_newer_keeps_every_message(tmp_path: Path, copies) -> None:
    newer, older = copies(tmp_path)
    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [newer])
    whole = _ids(store)
    assert sum(map(len, whole.values())) > 0
    report = ingest(store, [older])
    assert _ids(store) == whole, "an older copy deleted or moved stored messages"
    (rep,) = [s for s in report.sessions if s.kept]
    # its last message may be read again (a Claude Code reader ends the file's last
    # message with the records after it), never a message it lacks
    assert rep.new_messages <= 1 and rep.kept > 0
    ingest(store, [newer], force=True)
    assert _ids(store) == whole
    _ordinals_contiguous(store)


@pytest.mark.parametrize("copies", list(COPIES.values()), ids=list(COPIES))
def test_older_then_newer_grows_to_the_whole_session(tmp_path: Path, copies) -> None:
    newer, older = copies(tmp_path)
    alone = KbStore(":memory:")
    ingest(alone, [newer])
    whole = _ids(alone)
    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [older])
    ingest(store, [newer])
    assert _ids(store) == whole
    ingest(store, [older])
    assert _ids(store) == whole
    _ordinals_contiguous(store)


def test_older_copy_at_the_same_path_keeps_messages(tmp_path: Path) -> None:
    """A snapshot restored over the file the store read: nothing goes, and the newer file
    put back is read again (not "unchanged")."""
    newer, older = _claude_copies(tmp_path)
    path = tmp_path / "session.jsonl"
    shutil.copyfile(newer, path)
    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [path])
    whole = _ids(store)
    shutil.copyfile(older, path)
    ingest(store, [path])
    assert _ids(store) == whole
    shutil.copyfile(newer, path)
    report = ingest(store, [path])
    assert str(path) not in report.unchanged
    assert _ids(store) == whole


def test_cli_says_what_an_older_copy_did(tmp_path: Path) -> None:
    newer, older = _claude_copies(tmp_path)
    db = str(tmp_path / "kb.duckdb")
    assert invoke("ingest", "--db", db, str(newer)).exit_code == 0
    r = invoke("ingest", "--db", db, str(older))
    assert r.exit_code == 0, r.stderr
    assert "older copy: " in r.stdout and " kept" in r.stdout
    r = invoke("ingest", "--db", db, "--json", str(older), "--force")
    (s,) = json.loads(r.stdout)["sessions"]
    assert s["new_messages"] <= 1 and s["kept"] > 0


def _raws(store: KbStore) -> dict[str, str]:
    return dict(store.conn.execute(
        "SELECT message_id, raw::VARCHAR FROM messages").fetchall())


@pytest.mark.parametrize("force", [False, True], ids=["changed", "force"])
def test_older_copy_cut_inside_a_message_keeps_its_whole_content(
        tmp_path: Path, force: bool) -> None:
    """A snapshot cut inside a message (its first records written, the rest not yet):
    the message stored whole from the newer copy keeps every record, tool result
    included; the older copy changes nothing stored."""
    lines = CLAUDE.read_bytes().splitlines(keepends=True)
    newer = tmp_path / "newer.jsonl"
    newer.write_bytes(b"".join(lines))
    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [newer])
    before = _raws(store)
    # the first stored message of four or more records, cut after its first one
    (first,) = store.conn.execute(
        "SELECT min(raw->>'$.lines[0]')::INTEGER FROM messages "
        "WHERE json_array_length(raw->'$.lines') >= 4 AND ordinal > 1").fetchone()
    older = tmp_path / "older.jsonl"
    older.write_bytes(b"".join(lines[:first]))
    ingest(store, [older], force=force)
    assert _raws(store) == before, "an older copy replaced a stored message's content"
    ingest(store, [newer], force=True)
    assert _raws(store) == before


@pytest.mark.parametrize("force", [False, True], ids=["changed", "force"])
def test_gemini_reply_whose_second_copy_is_missing_keeps_its_calls(
        tmp_path: Path, force: bool) -> None:
    """A Gemini CLI copy that ends after a reply's first version (its text) and before the
    version with its tool calls: the stored reply keeps its calls, results and events."""
    newer, older = _gemini_first_version_copies(tmp_path)
    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [newer])
    before = _raws(store)
    events = store.conn.execute("SELECT count(*) FROM events").fetchone()
    calls = store.conn.execute(
        "SELECT count(*) FROM events WHERE kind = 'command'").fetchone()
    ingest(store, [older], force=force)
    assert _raws(store) == before, "an older copy replaced a reply by its first version"
    assert store.conn.execute("SELECT count(*) FROM events").fetchone() == events
    assert store.conn.execute(
        "SELECT count(*) FROM events WHERE kind = 'command'").fetchone() == calls
    ingest(store, [newer], force=True)
    assert _raws(store) == before
