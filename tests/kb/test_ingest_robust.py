"""Ingest loses nothing (issue 8): a bounded, deterministic fuzz over real samples and one
named regression test per defect that was found.

The fuzz mutates real opencode exports from ``../shared/realworld/`` (and JSONL made
from them): byte flips, truncations, field type swaps, duplicated and interleaved
lines, prefixes and encodings.  For every case it asserts that ingest raises nothing,
that every message the mutation did not touch is stored (under the session it names),
that every problem names its place, and that ingesting the same file again leaves the
same rows with the same ordinals.
"""

from __future__ import annotations

import copy
import hashlib
import random
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from kb.ingest import ingest
from kb.store import KbStore
from logparse.opencode._scan import ExportScanner

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld"
SAMPLES = [REAL / "opencode" / "session__nimble-pixel__ses_39b4c1891ffezxPVc5OPmcqF33.json",
           REAL / "opencode" / "session__jolly-eagle__ses_39b5d713cffeRgAoxPIwS3Plus.json",
           REAL / "opencode-recorded" / "selftest" / "export.json"]
SELFTEST = REAL / "opencode-recorded" / "selftest"
TABLES = ("messages", "calls", "prose", "other_events", "sessions")
SEED = 20261203
CASES = 200


# ------------------------------------------------------------------ helpers
def _store() -> KbStore:
    return KbStore(":memory:")


def _reset(store: KbStore) -> None:
    for t in (*TABLES, "problems", "sources", "graph_pending"):
        store.conn.execute(f"DELETE FROM {t}")


def dump(store: KbStore) -> dict[str, list[tuple[Any, ...]]]:
    out = {}
    for t, order in (("messages", "session_id, ordinal"), ("calls", "session_id, ordinal, seq"),
                     ("prose", "session_id, ordinal, seq"),
                     ("other_events", "session_id, ordinal, seq")):
        out[t] = store.conn.execute(f"SELECT * FROM {t} ORDER BY {order}").fetchall()
    out["sessions"] = store.conn.execute(
        "SELECT * EXCLUDE (ingested_at) FROM sessions ORDER BY session_id").fetchall()
    out["problems"] = sorted(store.conn.execute(
        "SELECT line, record, reason, message_id FROM problems").fetchall(), key=repr)
    return out


def stored(store: KbStore) -> set[tuple[str, str]]:
    return set(store.conn.execute("SELECT session_id, message_id FROM messages").fetchall())


def check_invariants(store: KbStore, report: Any) -> None:
    # no message twice, no message without its session row, ordinals 1..n
    dup = store.conn.execute("SELECT session_id, message_id, count(*) FROM messages "
                             "GROUP BY ALL HAVING count(*) > 1").fetchall()
    assert not dup
    orphans = store.conn.execute(
        "SELECT DISTINCT session_id FROM messages WHERE session_id NOT IN "
        "(SELECT session_id FROM sessions)").fetchall()
    assert not orphans
    gaps = store.conn.execute(
        "SELECT session_id FROM messages GROUP BY session_id "
        "HAVING max(ordinal) <> count(*) OR min(ordinal) <> 1 "
        "OR count(DISTINCT ordinal) <> count(*)").fetchall()
    assert not gaps
    for p in report.problems:
        assert p.path and (p.line is not None or p.record), p


def messages_of(path: Path) -> list[dict[str, Any]]:
    return orjson.loads(path.read_bytes())["messages"]


def spans(data: bytes) -> list[tuple[int, int, str]]:
    """``(start, end, message id)`` of each message of an export."""
    import io

    sc = ExportScanner(io.BytesIO(data))
    sc.skip_prefix()
    return [(e.offset, e.end or 0, e.value["info"]["id"]) for e in sc.events()
            if e.kind == "message"]


def jsonl(msgs: list[dict[str, Any]]) -> list[bytes]:
    return [orjson.dumps(m) for m in msgs]


def _ingest(store: KbStore, path: Path, force: bool = False) -> Any:
    report = ingest(store, [path], graph=False, force=force)
    assert not [e for e in report.errors if "not an opencode transcript" not in str(e)]
    return report


SWAPS: list[tuple[str, Any]] = [
    ("info.tokens", {"input": 2 ** 63, "output": 1}), ("info.time", "yesterday"),
    ("info.error", {"name": 42, "data": "x"}), ("info.role", 7), ("info.cost", "free"),
    ("info.modelID", ["a"]), ("info.time", {"created": "noon", "completed": 1.5e21}),
    ("info.agent", {"x": 1}), ("info.path", "here"), ("info.finish", 3),
    ("part.id", 12), ("part.state", "done"), ("part.text", 5), ("part.time", "soon"),
    ("part.url", 9), ("part.type", None), ("part.tool", 1), ("part.state.input", "ls"),
    ("part.state.metadata", {"exit": 2 ** 40}), ("part.state.time", {"start": "a"}),
]


def _swap(msg: dict[str, Any], where: str, value: Any, rng: random.Random) -> None:
    path = where.split(".")
    if path[0] == "info":
        target = msg["info"]
    else:
        parts = [p for p in msg.get("parts", []) if isinstance(p, dict)]
        if path[1] == "state":
            parts = [p for p in parts if isinstance(p.get("state"), dict)] or parts
        if not parts:
            msg["info"]["time"] = value
            return
        target = rng.choice(parts)
    for key in path[1:-1]:
        if not isinstance(target.get(key), dict):
            target[key] = {}
        target = target[key]
    target[path[-1]] = value


# ------------------------------------------------------------------ the fuzz
def _case(rng: random.Random, tmp: Path, n: int) -> tuple[Path, set[tuple[str | None, str]]]:
    """One mutated input and the (session, message id) pairs that must be stored
    (session None: any session; a damaged export may lose the session id)."""
    sample = rng.choice(SAMPLES)
    data = sample.read_bytes()
    msgs = messages_of(sample)
    sid = orjson.loads(data)["info"]["id"]
    kind = rng.choice(["flip", "flip", "truncate", "swap", "swap", "jsonl-flip",
                       "jsonl-truncate", "jsonl-dup", "jsonl-dup-diff", "jsonl-interleave",
                       "jsonl-swap", "encoding"])
    out = tmp / f"case{n}.{'jsonl' if kind.startswith('jsonl') else 'json'}"
    everything = {(sid, m["info"]["id"]) for m in msgs}
    if kind == "flip":
        sp = spans(data)
        lo = sp[0][0] if sp else 64
        o = rng.randrange(lo, len(data))
        b = bytearray(data)
        b[o] ^= 1 << rng.randrange(8)
        out.write_bytes(bytes(b))
        return out, {(None, mid) for s, e, mid in sp if not s <= o < e}
    if kind == "truncate":
        sp = spans(data)
        cut = rng.randrange(sp[0][0] if sp else 1, len(data))
        out.write_bytes(data[:cut])
        return out, {(None, mid) for s, e, mid in sp if e <= cut}
    if kind == "swap":
        doc = orjson.loads(data)
        for _ in range(rng.randint(1, 3)):
            where, value = rng.choice(SWAPS)
            _swap(rng.choice(doc["messages"]), where, copy.deepcopy(value), rng)
        if rng.random() < 0.3:
            doc["info"]["title"] = rng.choice([7, ["t"], {"a": 1}])
        out.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
        return out, everything
    if kind == "encoding":
        text = data.decode()
        if rng.random() < 0.5:
            text = text.replace("\n", "\r\n")
        prefix = rng.choice(["", f"Exporting session: {sid}\n", f"Exporting session: {sid}"])
        enc = rng.choice(["utf-8", "utf-8-sig", "utf-16"])
        out.write_bytes((prefix + text).encode(enc))
        return out, everything
    lines = jsonl(msgs)
    if kind == "jsonl-flip":
        k = rng.randrange(len(lines))
        b = bytearray(lines[k])
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        lines[k] = bytes(b)
        out.write_bytes(b"\n".join(lines) + b"\n")
        return out, {(sid, m["info"]["id"]) for i, m in enumerate(msgs) if i != k}
    if kind == "jsonl-truncate":
        blob = b"\n".join(lines) + b"\n"
        cut = rng.randrange(1, len(blob))
        out.write_bytes(blob[:cut])
        ends, pos = [], 0
        for ln in lines:
            pos += len(ln)
            ends.append(pos)
            pos += 1
        return out, {(sid, m["info"]["id"]) for m, e in zip(msgs, ends) if e <= cut - 1}
    if kind in ("jsonl-dup", "jsonl-dup-diff"):
        k = rng.randrange(len(lines))
        extra = lines[k]
        if kind == "jsonl-dup-diff":
            m = copy.deepcopy(msgs[k])
            m["info"]["logkbFuzz"] = rng.random()
            extra = orjson.dumps(m)
        lines.insert(rng.randrange(k + 1, len(lines) + 1), extra)
        out.write_bytes(b"\n".join(lines) + b"\n")
        return out, everything
    if kind == "jsonl-swap":
        for _ in range(rng.randint(1, 3)):
            where, value = rng.choice(SWAPS)
            _swap(rng.choice(msgs), where, copy.deepcopy(value), rng)
        out.write_bytes(b"\n".join(jsonl(msgs)) + b"\n")
        return out, everything
    # interleave with the lines of another sample, each keeping its order
    other = rng.choice([s for s in SAMPLES if s != sample])
    omsgs = messages_of(other)
    osid = orjson.loads(other.read_bytes())["info"]["id"]
    a, b2 = list(lines), jsonl(omsgs)
    merged = []
    while a or b2:
        src = a if (a and (not b2 or rng.random() < 0.5)) else b2
        merged.append(src.pop(0))
    out.write_bytes(b"\n".join(merged) + b"\n")
    return out, everything | {(osid, m["info"]["id"]) for m in omsgs}


def test_fuzz_ingest_loses_nothing(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    store = _store()
    try:
        for n in range(CASES):
            path, must = _case(rng, tmp_path, n)
            _reset(store)
            report = _ingest(store, path)
            have = stored(store)
            ids = {mid for _, mid in have}
            for sid, mid in must:
                if sid is None:
                    assert mid in ids, (n, path.name, mid)
                else:
                    assert (sid, mid) in have, (n, path.name, sid, mid)
            check_invariants(store, report)
            if n % 2 == 0:  # idempotent re-ingest: every other case (time bound)
                before = dump(store)
                _ingest(store, path, force=True)
                assert dump(store) == before, (n, path.name)
            path.unlink()
    finally:
        store.close()


# ------------------------------------------------------------------ named regressions
@pytest.fixture
def nimble() -> list[dict[str, Any]]:
    return messages_of(SAMPLES[0])


@pytest.fixture
def jolly() -> list[dict[str, Any]]:
    return messages_of(SAMPLES[1])


def _write_jsonl(path: Path, msgs: list[dict[str, Any]]) -> Path:
    path.write_bytes(b"".join(orjson.dumps(m) + b"\n" for m in msgs))
    return path


def test_interleaved_sessions_keep_every_message(tmp_path: Path, nimble: list, jolly: list
                                                 ) -> None:
    f = _write_jsonl(tmp_path / "a.jsonl", nimble[:4] + jolly + nimble[4:])
    with _store() as store:
        report = _ingest(store, f)
        counts = dict(store.conn.execute(
            "SELECT session_id, count(*) FROM messages GROUP BY ALL").fetchall())
        assert counts[nimble[0]["info"]["sessionID"]] == len(nimble)
        assert counts[jolly[0]["info"]["sessionID"]] == len(jolly)
        cont = [p for p in report.problems if "continues here" in p.reason]
        assert len(cont) == 1 and cont[0].line == 4 + len(jolly) + 1
        # ordinals are those of the uninterleaved session, and stay so
        ords = store.conn.execute("SELECT message_id FROM messages WHERE session_id = ? "
                                  "ORDER BY ordinal", [nimble[0]["info"]["sessionID"]]
                                  ).fetchall()
        assert [r[0] for r in ords] == [m["info"]["id"] for m in nimble]
        before = dump(store)
        _ingest(store, f, force=True)
        assert dump(store) == before


def test_corrupted_session_id_loses_nothing(tmp_path: Path, nimble: list) -> None:
    bad = copy.deepcopy(nimble[3])
    bad["info"]["sessionID"] = bad["info"]["sessionID"][:-1] + "X"
    f = _write_jsonl(tmp_path / "a.jsonl", nimble[:3] + [bad] + nimble[4:])
    with _store() as store:
        report = _ingest(store, f)
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == len(nimble)
        assert any("continues here" in p.reason and p.line == 5 for p in report.problems)


def test_duplicate_messages_are_stored_once(tmp_path: Path, nimble: list) -> None:
    changed = copy.deepcopy(nimble[2])
    changed["parts"] = changed["parts"][:1]
    f = _write_jsonl(tmp_path / "a.jsonl", nimble[:3] + [nimble[2]] + nimble[3:] + [changed])
    with _store() as store:
        report = _ingest(store, f)
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == len(nimble)
        same = [p for p in report.problems if "repeats line 3 exactly" in p.reason]
        diff = [p for p in report.problems if "with other content" in p.reason]
        assert [p.line for p in same] == [4]
        assert [p.line for p in diff] == [len(nimble) + 2] and diff[0].raw
        # the first copy is the stored one, at the ordinal it has without the repeats
        raw = store.conn.execute("SELECT ordinal, raw FROM messages WHERE message_id = ?",
                                 [nimble[2]["info"]["id"]]).fetchone()
        assert raw[0] == 3 and len(orjson.loads(raw[1])["parts"]) == len(nimble[2]["parts"])
        before = dump(store)
        _ingest(store, f, force=True)
        assert dump(store) == before


@pytest.mark.parametrize(("field", "value", "named"), [
    ("tokens", {"input": 2 ** 63, "output": 5}, "tokens.input"),
    ("time", "yesterday", "time"),
    ("error", {"name": 42, "data": {"message": "x"}}, "error.name"),
])
def test_wrong_field_type_costs_only_the_field(tmp_path: Path, nimble: list, field: str,
                                               value: Any, named: str) -> None:
    msgs = copy.deepcopy(nimble)
    msgs[1]["info"][field] = value
    f = _write_jsonl(tmp_path / "a.jsonl", msgs)
    with _store() as store:
        report = _ingest(store, f)
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == len(msgs)
        probs = [p for p in report.problems if f"field {named} " in p.reason]
        assert len(probs) == 1 and probs[0].line == 2
        raw = store.conn.execute("SELECT raw FROM messages WHERE message_id = ?",
                                 [msgs[1]["info"]["id"]]).fetchone()[0]
        assert orjson.loads(raw)["info"][field] == value  # kept raw


def test_export_session_title_of_wrong_type_keeps_the_session_row(tmp_path: Path) -> None:
    doc = orjson.loads(SAMPLES[0].read_bytes())
    doc["info"]["title"] = 7
    f = tmp_path / "e.json"
    f.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    with _store() as store:
        report = _ingest(store, f)
        rows = store.sessions()
        assert len(rows) == 1 and rows[0]["messages"] == len(doc["messages"])
        assert rows[0]["title"]  # from the first prompt instead
        assert any("session info: title" in p.reason for p in report.problems)


@pytest.mark.parametrize("variant", ["utf8-bom", "utf16", "crlf", "status-line",
                                     "status-no-newline"])
def test_real_prefixes_and_encodings_are_read(tmp_path: Path, variant: str) -> None:
    data = SAMPLES[0].read_bytes()
    sid = orjson.loads(data)["info"]["id"]
    blob = {"utf8-bom": b"\xef\xbb\xbf" + data,
            "utf16": data.decode().encode("utf-16"),
            "crlf": data.replace(b"\n", b"\r\n"),
            "status-line": f"Exporting session: {sid}\n".encode() + data,
            "status-no-newline": f"Exporting session: {sid}".encode() + data}[variant]
    f = tmp_path / "e.json"
    f.write_bytes(blob)
    with _store() as store:
        report = _ingest(store, f)
        assert not report.errors
        assert store.session(sid)["messages"] == len(messages_of(SAMPLES[0]))
        status = [p for p in report.problems if "before the export" in p.reason]
        assert len(status) == (1 if variant.startswith("status") else 0)
        assert all(p.line == 1 for p in status)
        assert all(p.notice for p in status)  # opencode's own line: a note, not a problem


def test_jsonl_whose_first_line_is_a_json_scalar(tmp_path: Path, nimble: list) -> None:
    f = tmp_path / "a.jsonl"
    f.write_bytes(b"42\n" + b"".join(orjson.dumps(m) + b"\n" for m in nimble))
    with _store() as store:
        report = _ingest(store, f)
        assert not report.errors
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == len(nimble)
        assert [p.line for p in report.problems] == [1]


@pytest.mark.parametrize("name", ["random__session.jsonl", "scout__codex-session.jsonl"])
@pytest.mark.parametrize("first", [b"not json at all", b'{"cut', b"Exporting session: x"])
def test_a_first_line_of_garbage_costs_that_line(tmp_path: Path, name: str, first: bytes
                                                 ) -> None:
    """A real Claude Code or Codex file behind a first line that is not a record (a
    status line saved with ``2>&1``, a line cut short): every record after it is
    stored, the line is the one problem."""
    data = (REAL / "pool" / name).read_bytes()
    (tmp_path / "whole").mkdir()
    whole, damaged = tmp_path / "whole" / name, tmp_path / name
    whole.write_bytes(data)
    damaged.write_bytes(first + b"\n" + data)
    with _store() as store:
        want = _ingest(store, whole).sessions[0].messages
    with _store() as store:
        report = _ingest(store, damaged)
        assert not report.errors, report.errors
        assert [p.line for p in report.problems] == [1]
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == want


def test_truncated_export_keeps_every_complete_message(tmp_path: Path) -> None:
    data = SAMPLES[0].read_bytes()
    sp = spans(data)
    cut = (sp[4][1] + sp[5][1]) // 2  # inside the sixth message
    f = tmp_path / "e.json"
    f.write_bytes(data[:cut])
    with _store() as store:
        report = _ingest(store, f)
        ids = [r[0] for r in store.conn.execute(
            "SELECT message_id FROM messages ORDER BY ordinal").fetchall()]
        assert ids == [mid for _, _, mid in sp[:5]]
        damage = [p for p in report.problems if "damaged export" in p.reason]
        assert len(damage) == 1 and damage[0].record == f"byte {sp[5][0]}"


def test_bit_flipped_export_loses_only_the_damaged_message(tmp_path: Path) -> None:
    data = SAMPLES[0].read_bytes()
    sp = spans(data)
    b = bytearray(data)
    at = data.index(b'"role"', sp[3][0])  # a key of the fourth message
    b[at] ^= 0x01  # the quote becomes '#': structure broken
    f = tmp_path / "e.json"
    f.write_bytes(bytes(b))
    with _store() as store:
        report = _ingest(store, f)
        ids = {r[0] for r in store.conn.execute("SELECT message_id FROM messages").fetchall()}
        assert ids == {mid for i, (_, _, mid) in enumerate(sp) if i != 3}
        damage = [p for p in report.problems if "damaged export" in p.reason]
        assert len(damage) == 1 and damage[0].record == f"byte {sp[3][0]}"
        assert f"bytes {sp[3][0]}-" in damage[0].reason


def test_large_real_export_streams_in_bounded_memory(tmp_path: Path) -> None:
    """The 4 MB labelled export, truncated: its messages before the cut land and the
    scanner never holds much more than a message and a read chunk."""
    import io
    import tracemalloc

    src = REAL / "labelled" / "k1.lib-bootstrap__session-export.json"
    data = src.read_bytes()
    cut = len(data) * 3 // 4
    tracemalloc.start()
    sc = ExportScanner(io.BytesIO(data[:cut]))
    sc.skip_prefix()
    n = peak = 0
    biggest = 0
    for ev in sc.events():
        if ev.kind == "message":
            n += 1
            biggest = max(biggest, len(ev.raw))
            ev.raw = b""
        peak = max(peak, tracemalloc.get_traced_memory()[0])
    tracemalloc.stop()
    full = spans(data)
    assert n == sum(1 for _, e, _ in full if e <= cut) and n > 100
    assert peak < 8 * (1 << 20) + 6 * biggest  # bounded: not the size of the input


def test_v2_session_transfer_shape_is_refused_by_name(tmp_path: Path) -> None:
    doc = {"data": {"info": {"id": "ses_x", "outcome": "interrupted",
                             "location": {"directory": "/w"}},
                    "messages": [{"id": "m1", "type": "user", "content": [
                        {"type": "tool", "name": "shell", "executed": True}]}]}}
    f = tmp_path / "v2.json"
    f.write_bytes(orjson.dumps(doc, option=orjson.OPT_INDENT_2))
    p = subprocess.run([sys.executable, "-m", "kb", "ingest", "--db",
                        str(tmp_path / "kb.duckdb"), str(f)], capture_output=True, text=True)
    assert p.returncode == 3, p.stderr
    assert "opencode 2.x session transfer" in p.stderr and "Traceback" not in p.stderr


# ------------------------------------------------------------------ opencode.db
def _hashes(db: Path) -> dict[str, str]:
    return {s: hashlib.sha256(Path(str(db) + s).read_bytes()).hexdigest()
            for s in ("", "-wal", "-shm") if Path(str(db) + s).exists()}


def _copy_db(dst: Path) -> Path:
    dst.mkdir()
    for s in ("", "-wal", "-shm"):
        shutil.copyfile(str(SELFTEST / "opencode.db") + s, str(dst / "opencode.db") + s)
    return dst / "opencode.db"


def test_sqlite_source_bytes_are_untouched(tmp_path: Path) -> None:
    db = _copy_db(tmp_path / "d")
    before = _hashes(db)
    assert set(before) == {"", "-wal", "-shm"}
    with _store() as store:
        _ingest(store, db)
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] > 0
    assert _hashes(db) == before


def _checkpointed(tmp_path: Path) -> bytes:
    db = _copy_db(tmp_path / "ck")
    c = sqlite3.connect(db)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    c.execute("PRAGMA journal_mode=DELETE")
    c.close()
    return db.read_bytes()


@pytest.mark.parametrize("damage", ["truncated", "header-only", "garbage-pages"])
def test_damaged_database_gives_a_clear_error_and_keeps_what_it_can(
        tmp_path: Path, damage: str) -> None:
    full = _checkpointed(tmp_path)
    rng = random.Random(7)
    data = {"truncated": full[: len(full) * 3 // 4], "header-only": full[:100],
            "garbage-pages": full[:4096 * 20] + bytes(rng.randrange(256) for _ in range(4096 * 8))
            + full[4096 * 28:]}[damage]
    d = tmp_path / "bad"
    d.mkdir()
    (d / "opencode.db").write_bytes(data)
    kb = tmp_path / "kb.duckdb"
    p = subprocess.run([sys.executable, "-m", "kb", "ingest", "--db", str(kb),
                        str(d / "opencode.db")], capture_output=True, text=True)
    assert "Traceback" not in p.stderr
    assert p.returncode in (0, 3, 4), p.stderr
    if p.returncode == 3:
        assert str(d / "opencode.db") in p.stderr and "SQLite" in p.stderr
    elif p.returncode == 4:
        assert "SQLite: " in p.stderr
    if not kb.exists():  # nothing stored: no knowledge base file is left behind (issue 24)
        assert p.returncode == 3
        return
    with KbStore(kb, read_only=True) as store:
        orphans = store.conn.execute(
            "SELECT count(*) FROM messages WHERE session_id NOT IN "
            "(SELECT session_id FROM sessions)").fetchone()[0]
        assert orphans == 0


def test_rollback_journal_is_copied_aside(tmp_path: Path) -> None:
    """A rollback-mode database held EXCLUSIVE mid-transaction: its hot -journal goes
    with the copy, so the read sees the committed state, and the source is untouched."""
    d = tmp_path / "rb"
    d.mkdir()
    db = d / "opencode.db"
    db.write_bytes(_checkpointed(tmp_path))
    committed = sqlite3.connect(db).execute("SELECT count(*) FROM message").fetchone()[0]
    holder = subprocess.Popen([sys.executable, "-c", f"""
import sqlite3, sys, time
c = sqlite3.connect({str(db)!r}, isolation_level=None)
c.execute("PRAGMA locking_mode=EXCLUSIVE")
c.execute("BEGIN EXCLUSIVE")
c.execute("DELETE FROM message")
print("ready", flush=True)
time.sleep(60)
"""], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "ready"
        assert Path(str(db) + "-journal").exists()
        before = {s: hashlib.sha256(Path(str(db) + s).read_bytes()).hexdigest()
                  for s in ("", "-journal")}
        with _store() as store:
            _ingest(store, db)
            n = store.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        assert n == committed > 0
        assert before == {s: hashlib.sha256(Path(str(db) + s).read_bytes()).hexdigest()
                          for s in ("", "-journal")}
    finally:
        holder.kill()
        holder.wait()


# ------------------------------------------------------------------ disk full, ulimit -f
def test_file_size_limit_is_a_clear_error(tmp_path: Path) -> None:
    kb = tmp_path / "kb.duckdb"
    src = REAL / "labelled" / "k1.lib-bootstrap__session-export.json"
    p = subprocess.run(["bash", "-c", f'ulimit -f 1500; exec "{sys.executable}" -m kb '
                        f'ingest --db "{kb}" "{src}"'], capture_output=True, text=True)
    assert p.returncode == 1, p.stderr
    assert "file-size limit" in p.stderr and "Traceback" not in p.stderr
    _consistent(kb)


def test_disk_full_is_a_clear_error(tmp_path: Path) -> None:
    """A real ENOSPC: a 700 KB tmpfs in a private mount namespace."""
    if shutil.which("unshare") is None:
        pytest.fail("unshare (util-linux) is needed for the disk-full test")
    mnt = tmp_path / "full"
    mnt.mkdir()
    src = REAL / "labelled" / "k1.lib-bootstrap__session-export.json"
    script = (f'mount -t tmpfs -o size=700k none "{mnt}" || exit 99; '
              f'"{sys.executable}" -m kb ingest --db "{mnt}/kb.duckdb" "{src}"; rc=$?; '
              f'"{sys.executable}" -m kb sessions --db "{mnt}/kb.duckdb" --json '
              f'> "{tmp_path}/after.json"; echo "sessions=$?" >&2; exit $rc')
    p = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True)
    if p.returncode == 99:
        pytest.fail(f"cannot mount a tmpfs here: {p.stderr}")
    assert p.returncode == 1, p.stderr
    assert "disk is full" in p.stderr and "Traceback" not in p.stderr
    assert "sessions=" in p.stderr and "Traceback" not in p.stderr


def _consistent(kb: Path) -> None:
    with KbStore(kb, read_only=True) as store:
        orphans = store.conn.execute(
            "SELECT count(*) FROM messages WHERE session_id NOT IN "
            "(SELECT session_id FROM sessions)").fetchone()[0]
        assert orphans == 0


# ------------------------------------------------------------------ the graph is owed
def test_owed_graph_is_built_by_the_next_ingest_or_query(tmp_path: Path) -> None:
    src = SAMPLES[0]
    sid = orjson.loads(src.read_bytes())["info"]["id"]
    with KbStore(tmp_path / "a.duckdb") as store:
        ingest(store, [src], graph=False)  # as if killed before the graph phase
        assert store.graph_pending() == [sid]
        report = ingest(store, [src])
        assert report.unchanged == [str(src)] and report.graphs == [sid]
        assert store.graph_pending() == []
        assert store.conn.execute("SELECT count(*) FROM graph_builds").fetchone()[0] == 1
    kb = tmp_path / "b.duckdb"
    with KbStore(kb) as store:
        ingest(store, [src], graph=False)
    p = subprocess.run([sys.executable, "-m", "kb", "graph", "--db", str(kb), "--json"],
                       capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    with KbStore(kb, read_only=True) as store:
        assert store.graph_pending() == []
        assert store.conn.execute("SELECT count(*) FROM graph_builds").fetchone()[0] == 1


@pytest.mark.parametrize("enc", ["utf-16", "utf-8-sig"])
def test_jsonl_with_a_bom_and_crlf(tmp_path: Path, nimble: list, enc: str) -> None:
    f = tmp_path / "a.jsonl"
    f.write_bytes("".join(orjson.dumps(m).decode() + "\r\n" for m in nimble).encode(enc))
    with _store() as store:
        report = _ingest(store, f)
        assert not report.errors and not report.problems
        assert [s.form for s in report.sessions] == ["jsonl"]
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == len(nimble)
