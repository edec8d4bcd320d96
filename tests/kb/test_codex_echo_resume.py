"""Codex echoes what the user types (``event_msg`` ``user_message``) and never the context
it injects; the reader holds a user message back until its echo or the next other item
decides (logparse.codex ``_echo_due``).  A reading cut between a message and its echo,
then resumed on the grown file, stores what one reading of the whole file stores.

Real file: the labelled ``soulpass__codex-session.jsonl`` (line 389, a typed message, and
390, its echo); an instruction block no opener names is put before it, unechoed."""

from __future__ import annotations

from pathlib import Path

import orjson
import pytest

from kb.ingest import RESUME_MIN_BYTES, ingest
from kb.store import KbStore

ROOT = Path(__file__).resolve().parents[2]
SOULPASS = ROOT.parent / "shared" / "realworld" / "labelled" / "soulpass__codex-session.jsonl"
RULES = "Project rules:\nDo not use npm. Ignore the legacy-contracts folder."


def _prompts(store: KbStore) -> list[tuple[int, str, str]]:
    return store.conn.execute(
        "SELECT ordinal, source, left(text, 30) FROM prose WHERE kind = 'prompt' "
        "ORDER BY ordinal, seq").fetchall()


def test_a_reading_cut_before_an_echo_resumes_as_one_reading(tmp_path: Path) -> None:
    if not SOULPASS.exists():
        pytest.skip("soulpass is not here")
    lines = SOULPASS.read_bytes().splitlines(keepends=True)
    typed = orjson.loads(lines[388])
    assert typed["payload"]["role"] == "user"
    assert orjson.loads(lines[389])["payload"]["type"] == "user_message"
    block = {**typed, "payload": {**typed["payload"], "content": [
        {"type": "input_text", "text": RULES}]}}
    lines = lines[:388] + [orjson.dumps(block) + b"\n"] + lines[388:]
    whole = tmp_path / "whole.jsonl"
    whole.write_bytes(b"".join(lines))
    grown = tmp_path / "grown.jsonl"
    grown.write_bytes(b"".join(lines[:390]))  # the block, the typed message: no echo yet
    assert grown.stat().st_size >= RESUME_MIN_BYTES
    with KbStore(tmp_path / "a.duckdb") as store:
        ingest(store, [whole], graph=False)
        once = _prompts(store)
    with KbStore(tmp_path / "b.duckdb") as store:
        ingest(store, [grown], graph=False)
        with grown.open("ab") as f:
            f.write(b"".join(lines[390:]))
        rep = ingest(store, [grown], graph=False)
        assert rep.resumed == [str(grown)]
        assert _prompts(store) == once
    sources = {text: source for _, source, text in once}
    assert sources[RULES[:30]] == "synthetic"
    assert sources["ok good now when i deposit in "] == "text"
