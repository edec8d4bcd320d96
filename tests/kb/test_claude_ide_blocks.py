"""The blocks Claude Code's IDE extension writes into a user message (the file open, the
lines selected) are the IDE's, not the user's words: shown, never read as a prompt, so a
selection of code that says ``throw new Error`` reports nothing.

Real lines: labelled ``will-it-rain__claude.jsonl`` L3 and L216 (an ``<ide_opened_file>``
block beside the request); a third message is L216 with the opened file named
``errors.ts`` and an ``<ide_selection>`` block of two lines of its code (the block's
wording is Claude Code's for a selection).
"""

from __future__ import annotations

import json
from pathlib import Path

from kb.ingest import ingest
from kb.store import KbStore
from logparse.prose import refutation_phrase

LABELLED = Path(__file__).resolve().parents[3] / "shared" / "realworld" / "labelled"
SOURCE = LABELLED / "will-it-rain__claude.jsonl"

SELECTION = ("<ide_selection>The user selected the lines 12 to 13 from c:\\Users\\vassa\\"
             "Documents\\dev\\will-it-rain\\src\\errors.ts:\nif (!key) throw new Error("
             "'OPENWEATHER_API_KEY missing');\n\nThis may or may not be related to the "
             "current task.</ide_selection>")
REQUEST = "I want same template for the evening forecast"


def _lines() -> list[str]:
    src = SOURCE.read_text(encoding="utf-8").splitlines()
    first, second = json.loads(src[2]), json.loads(src[215])
    third = json.loads(src[215])
    third["uuid"] = "22aff79e-af10-40ae-8b78-4749bff1ffff"
    third["parentUuid"] = second["uuid"]
    third["timestamp"] = "2026-01-28T20:05:00.000Z"
    opened = third["message"]["content"][0]["text"].replace(".env", "src\\\\errors.ts")
    third["message"]["content"] = [{"type": "text", "text": opened},
                                   {"type": "text", "text": SELECTION},
                                   {"type": "text", "text": REQUEST}]
    second["parentUuid"] = first["uuid"]
    return [json.dumps(x) for x in (first, second, third)]


def test_ide_blocks_are_not_the_users_words(tmp_path: Path) -> None:
    assert refutation_phrase(SELECTION)  # read as the user's, the selection reports
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join(_lines()) + "\n")
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [f])
        said = [r[0] for r in store.conn.execute(
            "SELECT text FROM prose WHERE kind = 'prompt' AND source = 'text' "
            "ORDER BY ordinal, seq").fetchall()]
        shown = [r[0] for r in store.conn.execute(
            "SELECT text FROM prose WHERE source = 'synthetic' ORDER BY ordinal, seq"
        ).fetchall()]
    assert said[-1] == REQUEST and said[1].startswith("I need to set minutes")
    assert not any("<ide_" in t for t in said), said
    assert sum("<ide_opened_file>" in t for t in shown) == 3
    assert any("<ide_selection>" in t for t in shown)
