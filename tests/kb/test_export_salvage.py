"""A message of an opencode export with a byte of invalid UTF-8 (a tool output cut inside
a character) or a lone surrogate escape is read as a JSON-lines record is: the byte
replaced with U+FFFD, the message stored, the replacement reported by file, line and
byte.  It was refused as damage and the message kept only raw.  Pretty-printed (what
``opencode export`` writes) and compact."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

import orjson
import pytest

from kb.ingest import ingest
from kb.store import KbStore


def _export(pretty: bool) -> bytes:
    def msg(mid: str, role: str, t: int, text: str) -> dict[str, Any]:
        return {"info": {"id": mid, "sessionID": "ses_salvage", "role": role,
                         "time": {"created": t, "completed": t + 5}},
                "parts": [{"id": f"prt_{mid}", "sessionID": "ses_salvage",
                           "messageID": mid, "type": "text", "text": text}]}

    doc = {"info": {"id": "ses_salvage", "title": "salvage", "version": "1.2.5",
                    "time": {"created": 1000, "updated": 9000}},
           "messages": [msg("msg_1", "user", 1000, "Fix the build BADBYTE please"),
                        msg("msg_2", "assistant", 2000, "cut emoji SURROGATE here"),
                        msg("msg_3", "assistant", 3000, "Done.")]}
    raw = orjson.dumps(doc, option=orjson.OPT_INDENT_2 if pretty else 0)
    return raw.replace(b"BADBYTE", b"\xff").replace(b"SURROGATE", b"\\ud83d")


@pytest.mark.parametrize("pretty", [True, False], ids=["pretty", "compact"])
def test_an_export_message_with_invalid_utf8_is_stored(tmp_path: Path, pretty: bool) -> None:
    f = tmp_path / "export.json"
    data = _export(pretty)
    f.write_bytes(data)
    with KbStore(tmp_path / "kb.duckdb") as store:
        rep = ingest(store, [f], graph=False)
        texts = [t for (t,) in store.conn.execute(
            "SELECT text FROM events WHERE kind IN ('prompt', 'decision') "
            "ORDER BY ordinal").fetchall()]
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 3
    assert texts[0] == "Fix the build \ufffd please"
    assert "\ufffd" in texts[1] and texts[2] == "Done."
    bad = data.index(b"\xff")
    said = [p for p in rep.problems if "UTF-8" in p.reason]
    assert len(said) == 1 and f"at byte {bad}" in said[0].reason
    # named by the line the message starts at, and the byte of the file
    assert said[0].line is not None and 1 <= said[0].line <= data[:bad].count(b"\n") + 1
    assert [p for p in rep.problems if "surrogate" in p.reason]
    assert not [p for p in rep.problems if "damaged" in p.reason]
    assert hashlib.sha256(f.read_bytes()).digest() == hashlib.sha256(data).digest()
