"""A Solana key or a recovery phrase alone in a stored text is found by the store
(safe10).

The store runs its RE2 prefilters (:data:`logparse.secrets.PREFILTERS`) over every text,
in Arrow while it ingests and in DuckDB when it rescans, and hands the rules only what
they match: a line holding nothing but a base58 keypair or a phrase has no cue word for
them, so this proves both passes let it through (values made up)."""

from __future__ import annotations

import json
import random
from pathlib import Path

from kb.ingest import ingest
from kb.secrets import backfill
from kb.store import KbStore
from logparse.secrets import b58encode, bip39_phrase
from tests.hostile.secret_corpus import write_claude_rows
from tests.secret_builders import keypair58, solana_key

_RNG = random.Random(1010)
_KEY = solana_key(_RNG)
KEYPAIR58 = keypair58(_KEY)
SIGNATURE58 = b58encode(_KEY.sign(b"a transfer"))
PHRASE = bip39_phrase(_RNG.randbytes(16))


def _transcript(path: Path) -> Path:
    sid = "0c1a2b3c-4d5e-4f60-8a7b-8c9d0e1f2a10"
    rows: list[tuple[str, object]] = [
        ("user", "Make a wallet for the bot and show me its key."),
        ("assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": {"command": "node scripts/export-key.js"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": KEYPAIR58}]),
        ("assistant", [{"type": "tool_use", "id": "toolu_2", "name": "Bash",
                        "input": {"command": "solana confirm -v sig"}}]),
        ("user", [{"type": "tool_result", "tool_use_id": "toolu_2",
                   "content": f"{SIGNATURE58}\nFinalized"}]),
        ("assistant", [{"type": "text", "text": PHRASE}]),
    ]
    return write_claude_rows(path, sid, rows)


def _found(store: KbStore) -> dict[str, str]:
    rows = store.conn.execute(
        "SELECT s.kind, coalesce(substring(c.output, s.start + 1, s.stop - s.start), "
        "substring(p.text, s.start + 1, s.stop - s.start)) FROM secrets s "
        "LEFT JOIN calls c ON s.field = 'calls.output' AND c.session_id = s.session_id "
        "AND c.ordinal = s.ordinal AND c.seq = s.seq "
        "LEFT JOIN prose p ON s.field = 'prose.text' AND p.session_id = s.session_id "
        "AND p.ordinal = s.ordinal AND p.seq = s.seq").fetchall()
    return {v: k for k, v in rows}


def test_a_key_or_a_phrase_alone_is_found_at_ingest_and_rescan(tmp_path: Path) -> None:
    store = KbStore(tmp_path / "kb.duckdb")
    ingest(store, [_transcript(tmp_path / "claude.jsonl")])
    assert _found(store) == {KEYPAIR58: "private-key", PHRASE: "mnemonic"}
    shown = json.dumps(store.events(store.sessions()[0]["session_id"]), default=str)
    assert KEYPAIR58[:16] not in shown and PHRASE[:20] not in shown
    assert SIGNATURE58 in shown  # a signature is no secret
    # a knowledge base scanned with an older rule set: the SQL pass finds them again
    store.conn.execute("DELETE FROM secrets")
    store.conn.execute("UPDATE secret_scans SET ruleset = 'older'")
    assert backfill(store)
    assert _found(store) == {KEYPAIR58: "private-key", PHRASE: "mnemonic"}
    store.close()
