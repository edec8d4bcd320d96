"""The blocks Claude Code's IDE extension writes into a user message (the file open, the
lines selected) are the IDE's, not the user's words: a selection of code that says
``throw new Error`` reports nothing.

Real lines: labelled ``will-it-rain__claude.jsonl`` L216 (an ``<ide_opened_file>`` block
beside the request); the ``<ide_selection>`` block is written in Claude Code's wording
for a selection, two lines of code selected in a file named ``errors.ts``.
"""

from __future__ import annotations

import json
from pathlib import Path

from logparse.prose import refutation_phrase
from logparse.request import without_ide

LABELLED = Path(__file__).resolve().parents[3] / "shared" / "realworld" / "labelled"
SOURCE = LABELLED / "will-it-rain__claude.jsonl"

SELECTION = ("<ide_selection>The user selected the lines 12 to 13 from c:\\Users\\vassa\\"
             "Documents\\dev\\will-it-rain\\src\\errors.ts:\nif (!key) throw new Error("
             "'OPENWEATHER_API_KEY missing');\n\nThis may or may not be related to the "
             "current task.</ide_selection>")


def _l216() -> tuple[str, str]:
    rec = json.loads(SOURCE.read_text(encoding="utf-8").splitlines()[215])
    opened, asked = (b["text"] for b in rec["message"]["content"])
    return opened, asked


def test_ide_blocks_report_nothing() -> None:
    opened, asked = _l216()
    assert opened.startswith("<ide_opened_file>")
    errors_ts = opened.replace(".env", "src\\errors.ts")
    message = "\n".join((errors_ts, SELECTION, asked))
    assert refutation_phrase(message)  # read whole, the IDE's words report a failure
    assert refutation_phrase(without_ide(message)) is None
    assert without_ide(message).strip() == asked  # the user's words stay whole
    assert without_ide(asked) == asked


def test_a_report_beside_an_ide_block_stays_a_report() -> None:
    opened, _ = _l216()
    assert refutation_phrase(without_ide(opened + "\nit still doesnt work")) == \
        "doesnt work"
