"""A NUL byte (or another raw control character) inside a JSON string of a transcript
line (what a crash or a sync leaves in a file; strict JSON refuses it) costs nothing: the
record is read with the character kept in its string, and the line is named (file, line,
``read leniently``).  Real lines: ``fixtures/realworld_trim/pi.jsonl`` (tune pool's
``civ6.ch``) and ``codex_record/recorded/classic.jsonl``."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.ingest import ingest
from kb.store import KbStore
from tests.cli_kb import invoke

FIX = Path(__file__).resolve().parents[2] / "fixtures"
CASES = {"pi": (FIX / "realworld_trim" / "pi.jsonl", b"login in web", 4),
         "codex": (FIX / "codex_record" / "recorded" / "classic.jsonl",
                   b"Running the test first.", 17)}


@pytest.mark.parametrize("agent", sorted(CASES))
def test_a_nul_inside_a_string_keeps_the_record(tmp_path: Path, agent: str) -> None:
    src, words, line = CASES[agent]
    lines = src.read_bytes().splitlines(keepends=True)
    assert words in lines[line - 1]
    lines[line - 1] = lines[line - 1].replace(words, words[:5] + b"\x00\x07" + words[5:], 1)
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(lines))
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        rep = ingest(store, [path], graph=False)
        (said,) = store.conn.execute(
            "SELECT ordinal FROM events WHERE contains(text, ?)",
            [(words[:5] + b"\x00\x07" + words[5:]).decode()]).fetchall()
    (p,) = rep.problems
    assert p.path == str(path) and p.line == line and "control character" in p.reason
    r = invoke("--db", str(db), "show", str(said[0]))
    assert r.exit_code == 0, r.output
    assert words[5:].decode() in r.stdout
