"""A key in a file an agent wrote is found by the store (rv9).

A Claude Code ``Write`` call's input is stored as JSON (``calls.input``): the file's
``{"apiKey": "…"}`` stands there with escaped quotes, and the prefilter the store runs
over every stored text before the rules passed no such text, so the key was never found
and every output showed it (values made up)."""

from __future__ import annotations

import json
from pathlib import Path

from kb.ingest import ingest
from kb.store import KbStore
from tests.hostile.secret_corpus import write_claude_rows

API_KEY = "Zk3mP9qR2" + "vX7tL4wN8bH6abQ"
HEX = "6323c46a8f7693e5" + "6a2ad5f8c76403f87e9f53e2c9ffa007d16140583c0346c5"
PASSWORD = "Hunter2" + "-x9Q!rv9"


def _transcript(path: Path) -> Path:
    sid = "0c1a2b3c-4d5e-4f60-8a7b-8c9d0e1f2a99"
    rows: list[tuple[str, object]] = [("user", "Write the configs for the deploy script.")]
    files = {"api.json": {"apiKey": API_KEY}, "wallet.json": {"privateKey": f"0x{HEX}"},
             "db.json": {"db": {"password": PASSWORD}}}
    for i, (name, body) in enumerate(files.items()):  # one file a call: each on its own
        rows += [
            ("assistant", [{"type": "tool_use", "id": f"toolu_{i}", "name": "Write",
                            "input": {"file_path": f"/w/{name}",
                                      "content": json.dumps(body, indent=2)}}]),
            ("user", [{"type": "tool_result", "tool_use_id": f"toolu_{i}",
                       "content": f"File created successfully at: /w/{name}"}])]
    rows.append(("assistant", [{"type": "text", "text": "The configs are written."}]))
    return write_claude_rows(path, sid, rows)


def test_the_keys_of_a_written_json_file_are_found(tmp_path: Path) -> None:
    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [_transcript(tmp_path / "claude.jsonl")])
    found = {v for _, v in store.conn.execute(
        "SELECT s.kind, substring(c.input::VARCHAR, s.start + 1, s.stop - s.start) "
        "FROM secrets s JOIN calls c USING (session_id, ordinal, seq) "
        "WHERE s.field = 'calls.input'").fetchall()}
    for secret in (API_KEY, f"0x{HEX}", PASSWORD):
        assert any(secret in v for v in found), (secret, found)
