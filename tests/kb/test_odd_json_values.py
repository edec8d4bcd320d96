"""A record JSON encoders write but orjson refuses costs nothing but the odd value.

JavaScript's ``JSON.stringify`` writes a string cut inside an emoji (a tool output
sliced at a UTF-16 boundary) as a lone surrogate escape, ``"\\ud83d"``; Claude Code,
Gemini CLI, opencode and pi are JavaScript.  A number past 64 bits, ``1e999`` and
``NaN`` are written by other tools.  orjson refuses each, and the whole record (a
reply, a prompt) was lost.  Now the line is read as Python's JSON reads it: a lone
surrogate becomes U+FFFD, a number no column can hold is kept as its text (a field of
the wrong type costs that field), and the line is reported by file and line; the
source file is never written.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import orjson
import pytest

from kb.store import KbStore
from logparse.opencode._lines import parse_line

ROOT = Path(__file__).resolve().parents[2]
SID = "aaaaaaaa-bbbb-4ccc-8ddd-0000000000e1"


def _rec(n: int, kind: str, text: str, usage: str = '{"input_tokens": 1, "output_tokens": 2}'
         ) -> str:
    head = (f'{{"parentUuid": {"null" if n == 1 else f"{chr(34)}u-{n - 1}{chr(34)}"}, '
            f'"isSidechain": false, "type": "{kind}", "uuid": "u-{n}", "sessionId": "{SID}", '
            f'"timestamp": "2026-05-04T06:15:{n:02d}.000Z", "cwd": "/w", "version": "2.1.126", ')
    if kind == "user":
        return head + f'"message": {{"role": "user", "content": "{text}"}}}}'
    return head + (f'"message": {{"id": "msg_{n}", "role": "assistant", "type": "message", '
                   f'"model": "claude-opus-4-5", "content": [{{"type": "text", "text": "{text}"}}], '
                   f'"usage": {usage}}}}}')


LINES = [
    _rec(1, "user", "hello"),
    _rec(2, "assistant", "cut emoji \\ud83d here"),                       # lone surrogate
    _rec(3, "user", "a lone low \\udc00 too"),
    _rec(4, "assistant", "huge", '{"input_tokens": ' + "9" * 5000 + ', "output_tokens": 2}'),
    _rec(5, "assistant", "infinite", '{"input_tokens": 1e999, "output_tokens": 2}'),
    _rec(6, "assistant", "not a number", '{"input_tokens": NaN, "output_tokens": 2}'),
    _rec(7, "assistant", "beyond 64 bits", '{"input_tokens": 36893488147419103232, '
                                           '"output_tokens": 2}'),
    _rec(8, "user", "the end"),
]


def test_parse_line_keeps_the_record() -> None:
    obj, warn = parse_line(LINES[1].encode(), True)
    assert obj["message"]["content"][0]["text"] == "cut emoji \ufffd here", warn
    assert warn and "surrogate" in warn
    obj, warn = parse_line(LINES[3].encode(), True)
    assert obj["message"]["usage"]["input_tokens"] == "9" * 5000 and warn
    obj, warn = parse_line(LINES[5].encode(), True)
    assert obj["message"]["usage"]["input_tokens"] == "NaN" and warn
    orjson.dumps(obj)  # what is kept can be written again
    assert parse_line(b'{"a": [1, 2', True)[0] is None  # damage is still damage
    assert parse_line(b'{"a": "\\ud83d"', False)[1].startswith("truncated")


@pytest.fixture()
def ingested(tmp_path: Path) -> tuple[Path, Any, str]:
    src = tmp_path / "odd.jsonl"
    src.write_bytes(("\n".join(LINES) + "\n").encode())
    digest, mtime = hashlib.sha256(src.read_bytes()).hexdigest(), src.stat().st_mtime_ns
    db = tmp_path / "kb.duckdb"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(tmp_path)}
    r = subprocess.run([sys.executable, "-m", "kb", "ingest", str(src), "--db", str(db)],
                       capture_output=True, timeout=300, env=env)
    assert hashlib.sha256(src.read_bytes()).hexdigest() == digest
    assert src.stat().st_mtime_ns == mtime
    return db, r, r.stderr.decode()


def test_every_record_is_stored_and_each_odd_line_reported(
        ingested: tuple[Path, Any, str]) -> None:
    db, r, err = ingested
    assert r.returncode in (0, 4), err
    store = KbStore(str(db), read_only=True)
    try:
        rows = store.conn.execute("SELECT ordinal, role FROM messages WHERE session_id = ? "
                                  "ORDER BY ordinal", [SID]).fetchall()
        texts = " ".join(t for (t,) in store.conn.execute(
            "SELECT text FROM prose WHERE session_id = ?", [SID]).fetchall() if t)
    finally:
        store.close()
    assert len(rows) == len(LINES), (rows, err)
    for word in ("cut emoji \ufffd here", "huge", "infinite", "not a number",
                 "beyond 64 bits", "the end"):
        assert word in texts or word in err, word
    for n in (2, 3, 4, 5, 6):  # (7: orjson reads it, as a float)
        assert f"odd.jsonl:{n}:" in err, (n, err)
