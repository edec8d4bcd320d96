"""The context the Codex IDE extension and Codex Desktop write above the user's words
(``# Context from my IDE setup:``: the open tabs, the active file, its selection; then
``## My request for Codex:``) is the IDE's, not the user's: a selection of code that says
``throw new NotFoundError(...)`` is no report that the last change failed.

The story is trimmed real lines (``fixtures/structural/codex_approvals.jsonl``: scout's
session head and prompt, soulpass's ``apply_patch`` of ``route.ts``, here answered as
applied), then the user's next request, told once bare and once below an IDE context in
the shape the extension writes (public Codex readers strip the same marker).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from kb.graph import store as gs
from kb.ingest import ingest
from kb.store import KbStore
from logparse.codex import REQUEST_MARK

STRUCTURAL = Path(__file__).resolve().parents[2] / "fixtures" / "structural"

REQUEST = "now add a withdraw endpoint next to vault/init"
CONTEXT = ("# Context from my IDE setup:\n\n## Active file: app/api/vault/init/route.ts\n\n"
           "## Active selection of the file:\nif (!mintInfo) throw new NotFoundError("
           "'USDC mint missing');\n\n## Open tabs:\n- route.ts: app/api/vault/init/route.ts\n"
           "- errors.ts: lib/errors.ts\n\n")


def _story(tmp: Path, name: str, said: str) -> Path:
    lines = (STRUCTURAL / "codex_approvals.jsonl").read_text().splitlines()
    recs: list[dict[str, Any]] = [json.loads(ln) for ln in lines[:7]]
    patch = json.loads(lines[14])
    done = json.loads(lines[15])
    done["payload"]["output"] = ("Success. Updated the following files:\n"
                                 "M /Users/rythme/developer/blockchain/Civitas-Sol/frontend/"
                                 "app/api/vault/init/route.ts\n")
    reply = json.loads(lines[21])
    ask = {"timestamp": reply["timestamp"][:-5] + "9.000Z", "type": "response_item",
           "payload": {"type": "message", "role": "user",
                       "content": [{"type": "input_text", "text": said}]}}
    # Codex echoes what the user typed (``event_msg`` ``user_message``), as after the
    # session's first prompt: without it the message would be injected context
    echo = {"timestamp": ask["timestamp"], "type": "event_msg",
            "payload": {"type": "user_message", "message": said, "images": []}}
    recs += [patch, done, reply, ask, echo,
             {**reply, "timestamp": ask["timestamp"][:-5] + "9.500Z"}]
    src = tmp / f"{name}.jsonl"
    src.write_text("\n".join(json.dumps(r) for r in recs) + "\n")
    return src


def _read(tmp: Path, name: str, said: str) -> tuple[list[Any], list[str], list[str]]:
    with KbStore(tmp / f"{name}.duckdb") as store:
        ingest(store, [_story(tmp, name, said)])
        (sid,) = store.conn.execute("SELECT session_id FROM sessions").fetchone()
        dead = sorted((d.get("via"), d.get("name"), d.get("cause"))
                      for d in gs.dead_ends(store, [sid]))
        said_rows = [r[0] for r in store.conn.execute(
            "SELECT text FROM prose WHERE kind = 'prompt' AND source = 'text' "
            "ORDER BY ordinal").fetchall()]
        shown = [r[0] for r in store.conn.execute(
            "SELECT text FROM prose WHERE source = 'synthetic' ORDER BY ordinal").fetchall()]
    return dead, said_rows, shown


def test_the_ide_context_is_not_what_the_user_said(tmp_path: Path) -> None:
    bare = _read(tmp_path, "bare", REQUEST)
    wrapped = _read(tmp_path, "wrapped", CONTEXT + REQUEST_MARK + "\n" + REQUEST)
    assert wrapped[0] == bare[0]  # the same dead ends: none from the selection's words
    assert wrapped[1] == bare[1] and wrapped[1][-1] == REQUEST
    assert any("## Open tabs:" in t for t in wrapped[2])  # the context is kept, as the IDE's
