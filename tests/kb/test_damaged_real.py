"""Nothing is lost on damaged real files, through the real CLI and its DuckDB store.

Trimmed slices of real, non-held-out sessions (one per agent and form) are damaged the
ways a user's files are: a line cut mid-JSON (copied while being written), a truncated
last line, invalid UTF-8, a NUL byte, CRLF line ends, a BOM, empty lines, a duplicated
line, records reordered within a timestamp tie, an unknown record type, a known type
with a field missing, added or of an odd type (null where a dict was, a number where a
string was), a 10 MB line, very deep nesting, and an older shorter copy ingested after
the full one.  The damage is seeded (:data:`SEED`): every run builds the same files.

For each case ``logkb ingest --json`` (the click command, in process) must:

* exit 0 when every record was read, 4 (:attr:`ExitCode.PROBLEMS`) when a record was
  not, each such record named on stderr as ``problem: FILE:LINE: reason``;
* store every good record: each good line of the file is in the raw record of a stored
  message or kept raw in the ``problems`` table under its line (stored + stored raw ==
  good records), and a damage that loses nothing keeps every message of the clean slice;
* delete nothing an earlier ingest stored (the clean slice at the same path first);
* leave the source's bytes and mtime as they were.

The same damage, where it applies, hits an opencode export (one JSON document), a
storage tree (a JSON file a record) and opencode's database (a row at a time).

Sources: ``random__session`` (Claude Code 2.1.77), ``Rivo__codex-session`` (Codex 0.128),
``civ6.ch__session`` (pi) from ``../shared/realworld/pool``; the real opencode export
``session__jolly-eagle`` (``../shared/realworld/opencode``), also written as opencode's
JSONL form (one ``{info, parts}`` per line) and as a storage tree; the labelled
``stunning-memory__opencode.db`` (sqlite).  Gemini CLI and Antigravity have no
non-held-out real file: ``fixtures/gemini_rewind`` (written by hand in the CLI's format)
and ``fixtures/realworld_trim/antigravity.jsonl`` (trimmed lines, already in the repo).

A line added or removed before stored records (every message after it read under another
line id) is tested whole in ``tests/kb/test_shifted_lines.py``; here the ``again`` half of
:func:`test_damaged_line_file_loses_nothing` checks that nothing disappears.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import duckdb
import orjson
import pytest

from tests.cli_kb import invoke

ROOT = Path(__file__).resolve().parents[2]
REAL = ROOT.parent / "shared" / "realworld"
POOL = REAL / "pool"
FIX = ROOT / "fixtures"
SEED = int(os.environ.get("LOGKB_DAMAGE_SEED", "20261206"))
"""Every run damages the same way; another seed (``LOGKB_DAMAGE_SEED``) explores."""
HUGE = 10 << 20
"""A line of 10 MB (a tool output pasted whole)."""


def _head(path: Path, n: int) -> bytes:
    return b"".join(path.read_bytes().splitlines(keepends=True)[:n])


def _export_as_jsonl(path: Path) -> bytes:
    """An opencode export written as opencode's JSONL form (one message a line)."""
    doc = orjson.loads(path.read_bytes())
    return b"".join(orjson.dumps(m) + b"\n" for m in doc["messages"])


EXPORT = REAL / "opencode" / "session__jolly-eagle__ses_39b5d713cffeRgAoxPIwS3Plus.json"
SOURCES: dict[str, tuple[str, Callable[[], bytes]]] = {
    "claude-code": ("claude-code", lambda: _head(POOL / "random__session.jsonl", 40)),
    "codex": ("codex", lambda: _head(POOL / "Rivo__codex-session.jsonl", 60)),
    "pi": ("pi", lambda: _head(POOL / "civ6.ch__session.jsonl", 30)),
    "gemini-cli": ("gemini-cli",
                   lambda: (FIX / "gemini_rewind" / "session-rewind.jsonl").read_bytes()),
    "antigravity": ("antigravity",
                    lambda: (FIX / "realworld_trim" / "antigravity.jsonl").read_bytes()),
    "opencode-jsonl": ("jsonl", lambda: _export_as_jsonl(EXPORT)),
}
"""Line forms: agent → (the form logkb must read it as, the clean slice)."""

MOVED = frozenset({"crlf", "bom", "utf16", "empty-lines", "duplicated-line", "unknown-type"})
"""Damage that moves records to other lines and changes none: ingested over the clean
slice, every message is a stored one (its id stays the one first stored)."""

TIME_PATHS = (("timestamp",), ("created_at",), ("info", "time", "created"))


def _time_path(obj: dict[str, Any]) -> tuple[str, ...] | None:
    for p in TIME_PATHS:
        v: Any = obj
        for k in p:
            v = v.get(k) if isinstance(v, dict) else None
        if v is not None:
            return p
    return None


# --- damage ---------------------------------------------------------------------------

@dataclass
class Damaged:
    data: bytes
    bad: set[int] = field(default_factory=set)
    """Lines that must be named as problems (1-based, as split on ``\\n``)."""
    lossless: bool = False
    """Every message of the clean slice must be stored again."""
    unknown: int = 0
    """Records of a type no reader knows (counted in the report's ``skipped``)."""


def _records(lines: list[bytes]) -> list[int]:
    """Indexes of the lines that are JSON objects, the first (a header) excluded."""
    out = []
    for i, ln in enumerate(lines):
        if i == 0:
            continue
        try:
            if isinstance(orjson.loads(ln), dict):
                out.append(i)
        except orjson.JSONDecodeError:
            pass
    return out


def _pick(rng: random.Random, lines: list[bytes], want: Callable[[dict[str, Any]], bool]
          = lambda o: True) -> int:
    cands = [i for i in _records(lines) if want(orjson.loads(lines[i]))]
    return rng.choice(cands)


def _fields(obj: Any, path: tuple[str, ...] = ()) -> list[tuple[tuple[str, ...], Any]]:
    """Every ``(key path, value)`` under dicts (lists are not entered)."""
    out: list[tuple[tuple[str, ...], Any]] = []
    if isinstance(obj, dict):
        for k, v in obj.items():
            out.append(((*path, k), v))
            out.extend(_fields(v, (*path, k)))
    return out


def _set(obj: dict[str, Any], path: tuple[str, ...], value: Any, drop: bool = False) -> None:
    for k in path[:-1]:
        obj = obj[k]
    if drop:
        del obj[path[-1]]
    else:
        obj[path[-1]] = value


def _text_field(obj: dict[str, Any]) -> tuple[str, ...] | None:
    """The longest string field: where a user's text or a tool's output is."""
    best = max(((p, v) for p, v in _fields(obj) if isinstance(v, str)),
               key=lambda pv: len(pv[1]), default=None)
    return best[0] if best else None


def _join(lines: list[bytes], end: bytes = b"\n") -> bytes:
    return b"".join(ln + end for ln in lines)


def _retyped(rng: random.Random, lines: list[bytes], kind: type, value: Any) -> Damaged:
    if not any(isinstance(v, kind) for i in _records(lines)
               for _, v in _fields(orjson.loads(lines[i]))):
        kind = list  # Antigravity's steps are flat: null where a list was
    k = _pick(rng, lines, lambda o: any(isinstance(v, kind) for p, v in _fields(o)))
    obj = orjson.loads(lines[k])
    paths = [p for p, v in _fields(obj) if isinstance(v, kind)]
    _set(obj, rng.choice(paths), value)
    lines[k] = orjson.dumps(obj)
    return Damaged(_join(lines))


def _nest(depth: int) -> bytes:
    return b"[" * depth + b"]" * depth


def damage(kind: str, clean: bytes, rng: random.Random) -> Damaged:
    lines = clean.rstrip(b"\n").split(b"\n")
    n = len(lines)
    if kind == "cut-mid-line":  # a copy taken while a line was being written
        k = _pick(rng, lines)
        lines[k] = lines[k][: len(lines[k]) // 2]
        return Damaged(_join(lines), bad={k + 1})
    if kind == "truncated-last-line":
        cut = len(lines[-1]) // 2
        return Damaged(_join(lines)[: -cut - 1], bad={n})
    if kind == "invalid-utf8":
        k = _pick(rng, lines, lambda o: _text_field(o) is not None)
        at = lines[k].find(b'":"') + 3
        lines[k] = lines[k][:at] + b"\xff\xfe\xc3(" + lines[k][at:]
        return Damaged(_join(lines), bad={k + 1})
    if kind == "nul-byte":  # a raw NUL inside a string: not JSON
        k = _pick(rng, lines, lambda o: _text_field(o) is not None)
        at = lines[k].find(b'":"') + 3
        lines[k] = lines[k][:at] + b"\x00" + lines[k][at:]
        return Damaged(_join(lines), bad={k + 1})
    if kind == "nul-escaped":  # "\u0000" in a text: valid JSON, must be stored
        k = _pick(rng, lines, lambda o: _text_field(o) is not None)
        obj = orjson.loads(lines[k])
        p = _text_field(obj)
        assert p is not None
        v: Any = obj
        for key in p:
            v = v[key]
        _set(obj, p, v[:10] + "\x00" + v[10:])
        lines[k] = orjson.dumps(obj)
        return Damaged(_join(lines), lossless=True)
    if kind == "crlf":
        return Damaged(_join(lines, b"\r\n"), lossless=True)
    if kind == "bom":
        return Damaged(b"\xef\xbb\xbf" + _join(lines), lossless=True)
    if kind == "utf16":  # PowerShell's `>` on Windows: UTF-16 LE with a BOM
        return Damaged(b"\xff\xfe" + _join(lines).decode().encode("utf-16-le"),
                       lossless=True)
    if kind == "empty-lines":
        k = rng.randrange(1, n)
        return Damaged(_join(lines[:k] + [b"", b"   ", b""] + lines[k:]) + b"\n",
                       lossless=True)
    if kind == "duplicated-line":
        k = _pick(rng, lines)
        return Damaged(_join(lines[: k + 1] + [lines[k]] + lines[k + 1:]), lossless=True)
    if kind == "timestamp-tie-reordered":
        # two neighbouring records written in the same millisecond, in the other order
        recs = _records(lines)
        pairs = [i for i in recs[:-1] if i + 1 in recs
                 and _time_path(orjson.loads(lines[i])) is not None
                 and _time_path(orjson.loads(lines[i])) == _time_path(orjson.loads(lines[i + 1]))]
        k = rng.choice(pairs)
        a, b = orjson.loads(lines[k]), orjson.loads(lines[k + 1])
        tp = _time_path(a)
        assert tp is not None
        t: Any = a
        for key in tp:
            t = t[key]
        _set(b, tp, t)
        lines[k], lines[k + 1] = orjson.dumps(b), orjson.dumps(a)
        return Damaged(_join(lines))
    if kind == "unknown-type":
        if any(isinstance(orjson.loads(lines[i]).get("type"), str) for i in _records(lines)):
            k = _pick(rng, lines, lambda o: isinstance(o.get("type"), str))
            obj = orjson.loads(lines[k])
            obj["type"] = "brand-new-record-type"
            return Damaged(_join(lines[:k] + [orjson.dumps(obj)] + lines[k:]), lossless=True,
                           unknown=1)
        # opencode: one message a line, its parts typed: a part of a type none knows
        k = _pick(rng, lines, lambda o: bool(o.get("parts")))
        obj = orjson.loads(lines[k])
        obj["parts"].insert(0, {**obj["parts"][0], "id": "prt_brandnew",
                                "type": "brand-new-part-type"})
        lines[k] = orjson.dumps(obj)
        return Damaged(_join(lines), lossless=True)
    if kind == "missing-field":
        k = _pick(rng, lines, lambda o: len(_fields(o)) > 1)
        obj = orjson.loads(lines[k])
        _set(obj, rng.choice([p for p, _ in _fields(obj)]), None, drop=True)
        lines[k] = orjson.dumps(obj)
        return Damaged(_join(lines))
    if kind == "extra-field":
        k = _pick(rng, lines)
        obj = orjson.loads(lines[k])
        obj["zz_added_by_a_newer_version"] = {"nested": [1, "two", None], "flag": True}
        lines[k] = orjson.dumps(obj)
        return Damaged(_join(lines), lossless=True)
    if kind == "null-where-dict":
        return _retyped(rng, lines, dict, None)
    if kind == "number-where-string":
        return _retyped(rng, lines, str, 12345)
    if kind == "huge-line":  # 10 MB of output in one record
        k = _pick(rng, lines, lambda o: _text_field(o) is not None)
        obj = orjson.loads(lines[k])
        p = _text_field(obj)
        assert p is not None
        v = obj
        for key in p:
            v = v[key]
        _set(obj, p, v + "0123456789abcdef" * (HUGE // 16))
        lines[k] = orjson.dumps(obj)
        return Damaged(_join(lines), lossless=True)
    if kind == "deep-nesting":  # deeper than any JSON parser here takes: a bad line
        k = _pick(rng, lines)
        lines[k] = lines[k][:-1] + b',"zz_deep":' + _nest(100_000) + b"}"
        return Damaged(_join(lines), bad={k + 1})
    if kind == "deep-nesting-parsable":  # 1000 levels: parsed, and walked by the readers
        k = _pick(rng, lines)
        lines[k] = lines[k][:-1] + b',"zz_deep":' + _nest(1000) + b"}"
        return Damaged(_join(lines), lossless=True)
    raise AssertionError(kind)


KINDS = ("cut-mid-line", "truncated-last-line", "invalid-utf8", "nul-byte", "nul-escaped",
         "crlf", "bom", "utf16", "empty-lines", "duplicated-line", "timestamp-tie-reordered",
         "unknown-type", "missing-field", "extra-field", "null-where-dict",
         "number-where-string", "huge-line", "deep-nesting", "deep-nesting-parsable")


# --- the CLI and the store ------------------------------------------------------------

@dataclass
class Ingested:
    code: int
    report: dict[str, Any]
    stderr: str


def cli_ingest(db: Path, *paths: Path) -> Ingested:
    r = invoke("ingest", "--db", str(db), "--json", *map(str, paths))
    assert r.exit_code in (0, 3, 4), (r.exit_code, r.stderr[-2000:], r.exception)
    return Ingested(r.exit_code, json.loads(r.stdout), r.stderr)


def stored(db: Path) -> dict[tuple[str, str], bytes]:
    """Every stored message: its raw record."""
    with duckdb.connect(str(db), read_only=True) as c:
        return {(s, m): r.encode() for s, m, r in c.execute(
            "SELECT session_id, message_id, raw FROM messages").fetchall()}


def events(db: Path) -> dict[str, int]:
    """Events stored, by session."""
    with duckdb.connect(str(db), read_only=True) as c:
        return dict(c.execute("SELECT session_id, count(*) FROM events GROUP BY 1").fetchall())


def kept_raw(db: Path, path: Path) -> dict[int, str | None]:
    with duckdb.connect(str(db), read_only=True) as c:
        return {ln: raw for ln, raw in c.execute(
            "SELECT line, raw FROM problems WHERE path = ? AND line IS NOT NULL",
            [str(path)]).fetchall()}


def message_lines(raws: dict[tuple[str, str], bytes], data: bytes) -> set[int]:
    """Lines of ``data`` stored in a message: named by its raw record (``lines``), or, in
    opencode's JSONL (a message a line), the line of a stored message id."""
    got: set[int] = set()
    ids = {m for _, m in raws}
    data = utf8(data)
    for raw in raws.values():
        doc = orjson.loads(raw)
        if isinstance(doc, dict) and isinstance(doc.get("lines"), list):
            got.update(doc["lines"])
    for i, ln in enumerate(data.removeprefix(b"\xef\xbb\xbf").split(b"\n"), 1):
        m = re.match(rb'\{"info":\{.*?"id":"(msg_[^"]+)"', ln)
        if m and m.group(1).decode() in ids:
            got.add(i)
    return got


def utf8(data: bytes) -> bytes:
    """``data`` as the readers see it (a UTF-16 file transcoded)."""
    if data.startswith(b"\xff\xfe"):
        return data[2:].decode("utf-16-le").encode()
    return data


def good_lines(data: bytes) -> set[int]:
    """Lines of ``data`` that are whole JSON objects (after a BOM and a CR)."""
    data = utf8(data)
    out = set()
    for i, ln in enumerate(data.split(b"\n"), 1):
        ln = ln.removeprefix(b"\xef\xbb\xbf").rstrip(b"\r")
        try:
            if isinstance(orjson.loads(ln), dict):
                out.add(i)
        except orjson.JSONDecodeError:
            pass
    return out


def snapshot(path: Path) -> tuple[bytes, int]:
    return path.read_bytes(), path.stat().st_mtime_ns


def _problems_named(got: Ingested, path: Path) -> set[int]:
    """The problem lines of the report, each also said on stderr as ``FILE:LINE``."""
    lines = set()
    for p in got.report["problems"]:
        assert p["path"] == str(path), p
        assert p["line"] is not None or p["record"], p
        if p["line"] is not None:
            lines.add(p["line"])
            assert f"{path}:{p['line']}" in got.stderr.replace("\n", " ").replace(
                "  ", ""), (p, got.stderr[-1500:])
    return lines


# --- the clean slices, ingested once --------------------------------------------------

@dataclass
class Clean:
    data: bytes
    db: Path
    """A knowledge base holding the clean slice ingested from ``path``."""
    path: Path
    messages: dict[tuple[str, str], bytes]


_CLEAN: dict[str, Clean] = {}


def clean(agent: str, tmp_path_factory: pytest.TempPathFactory) -> Clean:
    if agent not in _CLEAN:
        d = tmp_path_factory.mktemp(f"clean-{agent}")
        path = d / "session.jsonl"
        data = SOURCES[agent][1]()
        path.write_bytes(data)
        got = cli_ingest(d / "kb.duckdb", path)
        assert got.code == 0 and not got.report["problems"], got.stderr
        assert [s["form"] for s in got.report["sessions"]] == [SOURCES[agent][0]]
        _CLEAN[agent] = Clean(data, d / "kb.duckdb", path, stored(d / "kb.duckdb"))
    return _CLEAN[agent]


def _seed(agent: str, kind: str) -> int:
    return SEED + sum(map(ord, f"{agent}/{kind}"))


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("agent", sorted(SOURCES))
def test_damaged_line_file_loses_nothing(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory,
                                         agent: str, kind: str) -> None:
    base = clean(agent, tmp_path_factory)
    dmg = damage(kind, base.data, random.Random(_seed(agent, kind)))
    f = tmp_path / "session.jsonl"
    f.write_bytes(dmg.data)
    before = snapshot(f)

    # alone, in a new knowledge base: every good record stored or kept raw
    got = cli_ingest(tmp_path / "fresh.duckdb", f)
    assert snapshot(f) == before, "the source was modified"
    assert not got.report["errors"], got.stderr
    named = _problems_named(got, f)
    real = [p for p in got.report["problems"]]
    assert got.code == (4 if real else 0), (got.code, got.stderr[-1500:])
    assert dmg.bad <= named, (sorted(dmg.bad), got.stderr[-1500:])
    raws = stored(tmp_path / "fresh.duckdb")
    raw_kept = kept_raw(tmp_path / "fresh.duckdb", f)
    good = good_lines(dmg.data)
    in_messages = message_lines(raws, dmg.data)
    lost = sorted(good - in_messages - {ln for ln, r in raw_kept.items() if r})
    assert not lost, (lost, got.stderr[-1500:])
    for ln in dmg.bad - in_messages:  # a bad line stored nowhere else is kept raw
        assert raw_kept.get(ln), (ln, raw_kept)
    if dmg.lossless:  # (a line added before a record moves its id: compare counts too)
        assert len(raws) >= len(base.messages), (len(raws), len(base.messages))
        if len(dmg.data.split(b"\n")) == len(base.data.split(b"\n")):
            gone = sorted(set(base.messages) - set(raws))
            assert not gone, gone[:5]
    if kind == "duplicated-line":  # a record written twice is read once
        assert len(raws) == len(base.messages), (len(raws), len(base.messages))
    if dmg.unknown:
        assert sum(s["records"] for s in got.report["skipped"]) >= dmg.unknown, got.report

    # after the clean slice at the same path: nothing stored before disappears
    db = tmp_path / "again.duckdb"
    shutil.copyfile(base.db, db)
    g = tmp_path / "again"
    g.mkdir()
    again = base.path  # the path the clean slice was ingested from
    saved = again.read_bytes(), again.stat().st_mtime_ns
    try:
        again.write_bytes(dmg.data)
        os.utime(again, ns=(saved[1] + 10**9, saved[1] + 10**9))
        snap = snapshot(again)
        got2 = cli_ingest(db, again)
        assert snapshot(again) == snap, "the source was modified"
        assert got2.code in (0, 4), got2.stderr
        after = stored(db)
        gone = sorted(set(base.messages) - set(after))
        assert not gone, (gone[:5], got2.stderr[-1500:])
        if kind in MOVED:  # the same records at other lines: the same messages
            assert len(after) == len(base.messages), (len(after), len(base.messages))
    finally:
        again.write_bytes(saved[0])
        os.utime(again, ns=(saved[1], saved[1]))


def test_a_huge_step_before_the_conversation_is_named_keeps_the_session(
        tmp_path: Path) -> None:
    """Antigravity names a session by the conversation its steps mention; a step of 10 MB
    before the first mention (a long command output) made the copy a session of its own
    (``ag-…``): read on past the first 4 MiB until a stretch names one."""
    lines = (FIX / "realworld_trim" / "antigravity.jsonl").read_bytes().splitlines(
        keepends=True)
    obj = orjson.loads(lines[1])
    obj["zz_output"] = "x" * HUGE
    f = tmp_path / "trajectory.jsonl"
    f.write_bytes(lines[0] + orjson.dumps(obj) + b"\n" + b"".join(lines[2:]))
    got = cli_ingest(tmp_path / "kb.duckdb", f)
    assert got.code == 0, got.stderr
    assert [s["id"] for s in got.report["sessions"]] == ["e951b17f-edd0-4326-a7e1-049fac618e6b"]


# --- an opencode export (one JSON document) -------------------------------------------

EXPORT_KINDS = ("cut-mid-message", "bom", "crlf", "invalid-utf8", "nul-byte", "nul-escaped",
                "duplicated-message", "unknown-part-type", "null-where-dict",
                "number-where-string", "missing-field", "huge-text", "deep-nesting",
                "deep-nesting-parsable")


def _export_spans(data: bytes) -> list[tuple[int, int, str]]:
    from tests.kb.test_ingest_robust import spans

    return spans(data)


def _line_of(data: bytes, offset: int) -> int:
    return data.count(b"\n", 0, offset) + 1


def damage_export(kind: str, clean: bytes, rng: random.Random
                  ) -> tuple[bytes, str | None, tuple[int, int] | None]:
    """The damaged export, the id of the message damaged (``None``: none) and the lines it
    spans in the damaged file where it must be named (``None``: it must be stored)."""
    doc = orjson.loads(clean)
    spans = _export_spans(clean)
    texts = [i for i, (a, b, _) in enumerate(spans) if b'"text": "' in clean[a:b]]
    k = rng.choice(texts)
    a, b, mid = spans[k]
    at = clean.index(b'"text": "', a) + len(b'"text": "')
    where = (_line_of(clean, a), _line_of(clean, b))
    if kind == "cut-mid-message":
        cut = rng.randrange(at, b)
        return clean[:cut], mid, where
    if kind == "bom":
        return b"\xef\xbb\xbf" + clean, None, None
    if kind == "crlf":
        return clean.replace(b"\n", b"\r\n"), None, None
    if kind == "invalid-utf8":
        return clean[:at] + b"\xff\xfe\xc3(" + clean[at:], mid, where
    if kind == "nul-byte":
        return clean[:at] + b"\x00" + clean[at:], mid, where
    if kind == "nul-escaped":
        return clean[:at] + b"\\u0000" + clean[at:], None, None
    msg = doc["messages"][k]
    if kind == "duplicated-message":
        doc["messages"].insert(k + 1, msg)
    elif kind == "unknown-part-type":
        msg["parts"].insert(0, {**msg["parts"][0], "id": "prt_brandnew",
                                "type": "brand-new-part-type"})
    elif kind == "null-where-dict":
        msg["info"][rng.choice([k for k, v in msg["info"].items() if isinstance(v, dict)])] \
            = None
    elif kind == "number-where-string":
        msg["info"][rng.choice([k for k, v in msg["info"].items()
                                if isinstance(v, str) and k != "id"])] = 12345
    elif kind == "missing-field":
        del msg["info"][rng.choice([k for k in msg["info"] if k != "id"])]
    elif kind == "huge-text":
        p = next(p for p in msg["parts"] if isinstance(p.get("text"), str))
        p["text"] += "0123456789abcdef" * (HUGE // 16)
    elif kind == "deep-nesting":
        data = clean[:at - len(b'"text": "')] + b'"zz_deep": ' + _nest(100_000) + b", " \
            + clean[at - len(b'"text": "'):]
        return data, mid, where
    elif kind == "deep-nesting-parsable":
        msg["info"]["zz_deep"] = orjson.loads(_nest(200))
        s = json.dumps(doc, indent=2, ensure_ascii=False)
        return s.replace("[]", "[" * 800 + "]" * 800, 1).encode(), None, None
    else:
        raise AssertionError(kind)
    return json.dumps(doc, indent=2, ensure_ascii=False).encode(), None, None


@pytest.mark.parametrize("kind", EXPORT_KINDS)
def test_damaged_export_loses_nothing(tmp_path: Path, kind: str) -> None:
    clean_data = EXPORT.read_bytes()
    ids = [m["info"]["id"] for m in orjson.loads(clean_data)["messages"]]
    data, damaged_id, where = damage_export(kind, clean_data,
                                            random.Random(_seed("export", kind)))
    f = tmp_path / "export.json"
    f.write_bytes(data)
    before = snapshot(f)
    got = cli_ingest(tmp_path / "kb.duckdb", f)
    assert snapshot(f) == before, "the source was modified"
    assert not got.report["errors"], got.stderr
    named = _problems_named(got, f)
    assert got.code == (4 if got.report["problems"] else 0), got.stderr[-1500:]
    have = {m for _, m in stored(tmp_path / "kb.duckdb")}
    others = [m for m in ids if m != damaged_id]
    if kind == "cut-mid-message":  # what follows the cut was never written
        others = ids[: ids.index(damaged_id)]
    missing = [m for m in others if m not in have]
    assert not missing, (missing, got.stderr[-1500:])
    if where is not None and damaged_id not in have:  # not stored: named, and kept raw
        lo, hi = where
        assert any(lo <= ln <= hi + 1 for ln in named), (where, got.stderr[-1500:])
        assert any(r for ln, r in kept_raw(tmp_path / "kb.duckdb", f).items()
                   if lo <= ln <= hi + 1)


# --- an older, shorter copy after the full one ----------------------------------------

def _older_jsonl(data: bytes, keep: int) -> bytes:
    return b"".join(data.splitlines(keepends=True)[:keep])


def _older_export(data: bytes, keep: int) -> bytes:
    doc = orjson.loads(data)
    doc["messages"] = doc["messages"][:keep]
    return json.dumps(doc, indent=2, ensure_ascii=False).encode()


def _assert_older_copies_lose_nothing(tmp_path: Path, full: Path,
                                      older: Callable[[int], bytes], n: int) -> None:
    db = tmp_path / "kb.duckdb"
    got = cli_ingest(db, full)
    assert got.code == 0, got.stderr
    first = stored(db)
    first_events = events(db)
    for keep, same in ((n * 2 // 3, True), (n // 3, False), (1, True)):
        dst = full if same else tmp_path / f"older-{keep}{full.suffix}"
        dst.write_bytes(older(keep))
        os.utime(dst, ns=(dst.stat().st_mtime_ns + 10**9,) * 2)
        snap = snapshot(dst)
        got = cli_ingest(db, dst)
        assert snapshot(dst) == snap, "the source was modified"
        assert got.code in (0, 4), got.stderr
        after = stored(db)
        gone = sorted(set(first) - set(after))
        assert not gone, (keep, same, gone[:5])
        changed = sorted(k for k in first if after[k] != first[k])
        assert not changed, (keep, same, changed[:5])
        # nothing derived twice (an Antigravity copy cut before the steps name their
        # conversation is a session of its own: tests/kb/test_nothing_lost.py)
        now = events(db)
        assert {s: now[s] for s in first_events} == first_events, (keep, same)


@pytest.mark.parametrize("agent", sorted(SOURCES))
def test_older_shorter_copy_after_the_full_one(tmp_path: Path, agent: str) -> None:
    data = SOURCES[agent][1]()
    f = tmp_path / "session.jsonl"
    f.write_bytes(data)
    _assert_older_copies_lose_nothing(tmp_path, f, lambda k: _older_jsonl(data, k),
                                      data.count(b"\n"))


def test_older_shorter_export_after_the_full_one(tmp_path: Path) -> None:
    data = EXPORT.read_bytes()
    f = tmp_path / "export.json"
    f.write_bytes(data)
    _assert_older_copies_lose_nothing(tmp_path, f, lambda k: _older_export(data, k),
                                      len(orjson.loads(data)["messages"]))


def test_older_sqlite_after_the_full_one(tmp_path: Path) -> None:
    """opencode's database (the labelled ``stunning-memory``) then a copy taken before its
    last messages: the copy's own bytes and mtime, and the first ingest's messages, stay."""
    src = REAL / "labelled" / "stunning-memory__opencode.db"
    full = tmp_path / "full" / "opencode.db"
    full.parent.mkdir()
    shutil.copyfile(src, full)
    db = tmp_path / "kb.duckdb"
    snap = snapshot(full)
    got = cli_ingest(db, full)
    assert got.code == 0 and snapshot(full) == snap, got.stderr
    assert not (full.parent / "opencode.db-wal").exists() or True
    first = stored(db)
    n = len(first)
    for keep in (n * 2 // 3, 1):
        older = tmp_path / f"older-{keep}" / "opencode.db"
        older.parent.mkdir()
        shutil.copyfile(src, older)
        with closing(sqlite3.connect(older)) as c, c:
            late = [r[0] for r in c.execute("SELECT id FROM message ORDER BY time_created, id"
                                            ).fetchall()[keep:]]
            c.executemany("DELETE FROM part WHERE message_id = ?", [(m,) for m in late])
            c.executemany("DELETE FROM message WHERE id = ?", [(m,) for m in late])
        snap = snapshot(older)
        got = cli_ingest(db, older)
        assert snapshot(older) == snap, "the source was modified"
        assert got.code == 0, got.stderr
        after = stored(db)
        assert not sorted(set(first) - set(after)), keep
        assert [k for k in first if after[k] != first[k]] == [], keep


@pytest.mark.parametrize("agent", ["claude-code", "codex", "pi"])
def test_a_file_cut_inside_its_first_record_is_an_error_naming_file_and_line(
        tmp_path: Path, agent: str) -> None:
    """Copied while the agent wrote its first line: nothing to read, so the whole file is
    refused (exit 3) with ``logkb: error:``, the file and its line 1 named."""
    first = SOURCES[agent][1]().split(b"\n", 1)[0]
    f = tmp_path / "session.jsonl"
    f.write_bytes(b"\n" + first[: len(first) // 2])
    before = snapshot(f)
    got = cli_ingest(tmp_path / "kb.duckdb", f)
    assert snapshot(f) == before
    assert got.code == 3, got.stderr
    said = " ".join(got.stderr.split())
    assert f"logkb: error: {f}: " in said and "line 2 is not whole JSON" in said, said


# --- an opencode storage tree (pre-1.2: a JSON file a record) -------------------------

TREE_KINDS = ("message-file-cut", "part-file-cut", "session-file-cut", "bom", "crlf",
              "invalid-utf8", "nul-byte", "empty-part-file", "unknown-part-type",
              "null-where-dict", "huge-part", "deep-nesting", "deep-nesting-parsable")


def _tree(root: Path) -> Path:
    from tests.logparse.test_readers import write_tree

    return write_tree(EXPORT, root)


def _tree_files(storage: Path) -> dict[Path, tuple[bytes, int]]:
    return {f: snapshot(f) for f in sorted(storage.rglob("*.json"))}


def damage_tree(kind: str, storage: Path, rng: random.Random) -> set[Path]:
    """Damage the tree in place; the files that must be named as problems."""
    msgs = sorted((storage / "message").rglob("*.json"))
    with_parts = [m for m in msgs if any((storage / "part" / m.stem).glob("*.json"))]
    msg = rng.choice(with_parts)
    parts = sorted((storage / "part" / msg.stem).glob("*.json"))
    texts = [p for p in parts if b'"text": "' in p.read_bytes()]
    part = rng.choice(texts or parts)
    data = part.read_bytes()
    if kind == "message-file-cut":
        b = msg.read_bytes()
        msg.write_bytes(b[: len(b) // 2])
        return {msg}
    if kind == "part-file-cut":
        part.write_bytes(data[: len(data) * 2 // 3])
        return {part}
    if kind == "session-file-cut":
        (ses,) = (storage / "session").rglob("*.json")
        ses.write_bytes(ses.read_bytes()[:40])
        return {ses}
    if kind == "bom":
        for f in (msg, part):
            f.write_bytes(b"\xef\xbb\xbf" + f.read_bytes())
        return set()
    if kind == "crlf":
        for f in (msg, part):
            f.write_bytes(f.read_bytes().replace(b"\n", b"\r\n"))
        return set()
    at = data.find(b'"text": "') + len(b'"text": "') if texts else data.find(b'"id": "') + 7
    if kind == "invalid-utf8":
        part.write_bytes(data[:at] + b"\xff\xfe" + data[at:])
        return {part}
    if kind == "nul-byte":
        part.write_bytes(data[:at] + b"\x00" + data[at:])
        return {part}
    if kind == "empty-part-file":  # created, not written yet
        part.write_bytes(b"")
        return {part}
    obj = orjson.loads(data)
    if kind == "unknown-part-type":
        obj["type"] = "brand-new-part-type"
    elif kind == "null-where-dict":
        info = orjson.loads(msg.read_bytes())
        info["time"] = None
        msg.write_bytes(orjson.dumps(info))
    elif kind == "huge-part":
        obj["zz_output"] = "0123456789abcdef" * (HUGE // 16)
    elif kind in ("deep-nesting", "deep-nesting-parsable"):
        depth = 100_000 if kind == "deep-nesting" else 1000
        part.write_bytes(data.rstrip()[:-1] + b', "zz_deep": ' + _nest(depth) + b"}")
        return {part} if kind == "deep-nesting" else set()
    else:
        raise AssertionError(kind)
    part.write_bytes(orjson.dumps(obj))
    return set()


@pytest.mark.parametrize("kind", TREE_KINDS)
def test_damaged_storage_tree_loses_nothing(tmp_path: Path, kind: str) -> None:
    storage = _tree(tmp_path / "data")
    ids = {m.stem for m in (storage / "message").rglob("*.json")}
    bad = damage_tree(kind, storage, random.Random(_seed("tree", kind)))
    files = _tree_files(storage)
    got = cli_ingest(tmp_path / "kb.duckdb", storage)
    assert _tree_files(storage) == files, "the source was modified"
    assert not got.report["errors"], got.stderr
    said = " ".join(got.stderr.split())
    named = {p["path"] for p in got.report["problems"]}
    for f in bad:
        assert str(f) in named and str(f) in said, (f, said[-1500:])
    assert got.code == (4 if got.report["problems"] else 0), said[-1500:]
    raws = stored(tmp_path / "kb.duckdb")
    have = {m for _, m in raws}
    unread = {f.stem for f in bad if f.parent.parent.name == "message"}
    assert ids - unread <= have, sorted(ids - unread - have)
    # every part file: in its stored message, or kept raw under its own path
    kept = {p for p, r in _kept_raw_by_path(tmp_path / "kb.duckdb").items() if r is not None}
    in_messages = set()
    for raw in raws.values():
        doc = orjson.loads(raw)
        in_messages |= {p.get("id") for p in doc.get("parts") or [] if isinstance(p, dict)}
    for pf in (storage / "part").rglob("*.json"):
        assert pf.stem in in_messages or str(pf) in kept, pf


def _kept_raw_by_path(db: Path) -> dict[str, str | None]:
    with duckdb.connect(str(db), read_only=True) as c:
        return dict(c.execute("SELECT path, raw FROM problems").fetchall())


def test_older_storage_tree_after_the_full_one(tmp_path: Path) -> None:
    storage = _tree(tmp_path / "data")
    db = tmp_path / "kb.duckdb"
    assert cli_ingest(db, storage).code == 0
    first, first_events = stored(db), events(db)
    older = _tree(tmp_path / "older")
    for m in sorted((older / "message").rglob("*.json"))[2:]:  # before the last messages
        shutil.rmtree(older / "part" / m.stem, ignore_errors=True)
        m.unlink()
    files = _tree_files(older)
    got = cli_ingest(db, older)
    assert got.code == 0 and _tree_files(older) == files, got.stderr
    after = stored(db)
    assert not sorted(set(first) - set(after))
    assert [k for k in first if after[k] != first[k]] == []
    assert events(db) == first_events


# --- opencode's database (1.2 and later) ------------------------------------------------

SQLITE = REAL / "labelled" / "stunning-memory__opencode.db"
SQLITE_KINDS = ("message-data-cut", "part-data-cut", "part-invalid-utf8", "part-nul-escaped",
                "unknown-part-type", "null-where-dict", "number-where-string", "huge-part",
                "deep-nesting", "deep-nesting-parsable")


def damage_sqlite(kind: str, db: Path, rng: random.Random) -> tuple[str | None, str | None]:
    """Damage one row of a copy of the database; ``(message id, part id)`` damaged so
    that it cannot be read (``None``: every row must be stored)."""
    with closing(sqlite3.connect(db)) as c, c:  # closed (checkpointed) before the ingest
        mid, mdata = rng.choice(c.execute("SELECT id, data FROM message ORDER BY id").fetchall())
        rows = c.execute("SELECT id, data FROM part WHERE message_id = ? ORDER BY id",
                         [mid]).fetchall()
        if not rows:
            mid, mdata = c.execute("SELECT m.id, m.data FROM message m JOIN part p ON "
                                   "p.message_id = m.id ORDER BY m.id LIMIT 1").fetchone()
            rows = c.execute("SELECT id, data FROM part WHERE message_id = ?", [mid]).fetchall()
        pid, pdata = rng.choice(rows)
        out: tuple[str | None, str | None] = (None, None)
        part = orjson.loads(pdata)
        if kind == "message-data-cut":
            c.execute("UPDATE message SET data = ? WHERE id = ?", [mdata[: len(mdata) // 2], mid])
            out = (mid, None)
        elif kind == "part-data-cut":
            c.execute("UPDATE part SET data = ? WHERE id = ?", [pdata[: len(pdata) // 2], pid])
            out = (None, pid)
        elif kind == "part-invalid-utf8":
            raw = pdata.encode() if isinstance(pdata, str) else pdata
            c.execute("UPDATE part SET data = CAST(? AS TEXT) WHERE id = ?",
                      [raw[:-2] + b"\xff\xfe" + raw[-2:], pid])
            out = (None, pid)
        else:
            if kind == "part-nul-escaped":
                part["zz_text"] = "before\x00after"
            elif kind == "unknown-part-type":
                part["type"] = "brand-new-part-type"
            elif kind == "null-where-dict":
                part[next((k for k, v in part.items() if isinstance(v, dict)), "state")] = None
            elif kind == "number-where-string":
                part["type"] = 12345
            elif kind == "huge-part":
                part["zz_output"] = "0123456789abcdef" * (HUGE // 16)
            elif kind in ("deep-nesting", "deep-nesting-parsable"):
                depth = 100_000 if kind == "deep-nesting" else 1000
                c.execute("UPDATE part SET data = ? WHERE id = ?",
                          [pdata[:-1] + ',"zz_deep":' + "[" * depth + "]" * depth + "}", pid])
                return (None, pid if kind == "deep-nesting" else None)
            else:
                raise AssertionError(kind)
            c.execute("UPDATE part SET data = ? WHERE id = ?", [orjson.dumps(part).decode(), pid])
    return out


@pytest.mark.parametrize("kind", SQLITE_KINDS)
def test_damaged_sqlite_row_loses_nothing(tmp_path: Path, kind: str) -> None:
    db = tmp_path / "opencode.db"
    shutil.copyfile(SQLITE, db)
    with closing(sqlite3.connect(db)) as c:
        ids = {r[0] for r in c.execute("SELECT id FROM message")}
        pids = {r[0] for r in c.execute("SELECT id FROM part")}
    bad_msg, bad_part = damage_sqlite(kind, db, random.Random(_seed("sqlite", kind)))
    before = snapshot(db)
    got = cli_ingest(tmp_path / "kb.duckdb", db)
    assert snapshot(db) == before, "the source was modified"
    assert not got.report["errors"], got.stderr
    said = " ".join(got.stderr.split())
    assert got.code == (4 if got.report["problems"] else 0), said[-1500:]
    raws = stored(tmp_path / "kb.duckdb")
    have = {m for _, m in raws}
    assert ids - {bad_msg} <= have, sorted(ids - {bad_msg} - have)
    parts = set()
    for raw in raws.values():
        doc = orjson.loads(raw)
        parts |= {p.get("id") for p in doc.get("parts") or [] if isinstance(p, dict)}
    kept = [p for p in got.report["problems"] if p["path"] == str(db)]
    missing = [p for p in pids - parts if not any(p in (k["record"] or "") for k in kept)]
    assert not missing, (missing, said[-1500:])
    for rid in (bad_msg, bad_part):
        if rid is not None and rid not in have | parts:
            assert any(rid in (k["record"] or "") or rid in k["reason"] for k in kept), said


def test_a_pretty_printed_json_document_is_not_called_a_cut_copy(tmp_path: Path) -> None:
    """A JSON document laid out over lines (a label file, a config) opens with a bare
    ``{`` line: that is not a record cut mid-write, so the refusal does not say so."""
    f = tmp_path / "notes.json"
    f.write_bytes(b'{\n  "file": "x.jsonl",\n  "dead_ends": []\n}\n')
    got = cli_ingest(tmp_path / "kb.duckdb", f)
    assert got.code == 3, got.stderr
    said = " ".join(got.stderr.split())
    assert "unrecognised content" in said and "not whole JSON" not in said, said
