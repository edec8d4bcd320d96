"""Every file of ``../shared/realworld/pool`` and ``../shared/realworld/labelled``: ingested
with the message count an independent count of the file gives, or refused by name (none
today: the two sanitised rewrites are read as form ``rewrite``).

The counts below come from each file's own structure (a few lines of JSON or SQL here), never
from logkb's readers.  The directories are ingested as directories, so this also checks that a
directory ingest reports every file it did not take, with its reason.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from kb.ingest import IngestReport, ingest
from kb.store import KbStore

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld"

REFUSED: dict[str, str] = {}
"""File -> what its refusal must name (another agent's log): none in these folders."""

REWRITES = {  # file -> (agent its header names, records kept raw and counted, by type)
    "trade_arena__claude-session.jsonl": ("claude-code", {}),
    "trade_arena__codex-session.jsonl": ("codex", {"file_change": 6, "tool_summary": 2}),
}
"""The two non-native rewrites: read, form ``rewrite``, what they hold besides messages
counted."""

NOT_SESSIONS = ("README.md", ".json")
"""Notes and hand-label files (``labelled/*.json`` without ``__``) are not transcripts."""


# --------------------------------------------------------- independent counts
def count_claude(path: Path) -> int:
    """User lines that say something (not only tool results, not a file a tool read sent as a
    meta line), plus distinct API responses (``message.id``) per (sub-)session, plus one
    failed response per run of API error records that no response followed (the user
    spoke next or the file ends); a line written twice (same ``uuid``) once."""
    users, responses, seen = 0, set(), set()
    failed: dict[tuple[object, object], int] = {}  # (session, agent) → errors unanswered
    unanswered = 0
    for raw in path.read_bytes().splitlines():
        o = json.loads(raw)
        who = (o.get("sessionId"), o.get("agentId"))
        if o.get("type") == "system" and (o.get("subtype") == "api_error"
                                          or o.get("level") == "error"):
            failed[who] = failed.get(who, 0) + 1
            continue
        if o.get("type") not in ("user", "assistant") or not o.get("sessionId"):
            continue
        if o.get("uuid") in seen:
            continue
        seen.add(o.get("uuid"))
        content = o["message"].get("content")
        if o["type"] == "assistant":
            failed.pop(who, None)  # the errors were retries of this response
            responses.add((o["sessionId"], o.get("agentId"), o["message"].get("id") or o["uuid"]))
            continue
        blocks = content if isinstance(content, list) else [{"type": "text"}]
        kinds = {b.get("type") for b in blocks}
        if o.get("isMeta") and kinds and kinds <= {"image", "document"}:
            continue
        if kinds != {"tool_result"}:
            unanswered += failed.pop(who, 0) > 0
            users += 1
    unanswered += sum(1 for n in failed.values() if n)
    return users + len(responses) + unanswered


def count_codex(path: Path) -> int:
    """``response_item`` lines that are a user or assistant message, a call or its output."""
    items = {"function_call", "function_call_output", "custom_tool_call",
             "custom_tool_call_output", "local_shell_call"}
    n = 0
    for raw in path.read_bytes().splitlines():
        o = json.loads(raw)
        p = o.get("payload") if o.get("type") == "response_item" else None
        if p and (p.get("type") in items
                  or (p.get("type") == "message" and p.get("role") in ("user", "assistant"))):
            n += 1
    return n


def count_gemini(path: Path) -> int:
    """Distinct ids of ``user``, ``gemini`` and ``error`` records (a message written again
    under its id is one)."""
    ids = set()
    for raw in path.read_bytes().splitlines():
        o = json.loads(raw)
        if o.get("type") in ("user", "gemini", "error"):
            ids.add(o["id"])
    return len(ids)


def count_pi(path: Path) -> int:
    """``message`` entries other than tool results (they answer a call), plus summaries."""
    n = 0
    for raw in path.read_bytes().splitlines():
        o = json.loads(raw)
        if o.get("type") == "message" and o["message"].get("role") != "toolResult":
            n += 1
        n += o.get("type") in ("compaction", "branch_summary", "custom_message")
    return n


def count_antigravity(path: Path) -> int:
    """Steps that are a turn: the user's input, the system's messages and checkpoints,
    the planner's responses (a tool step answers a call of a response)."""
    turns = {"USER_INPUT", "SYSTEM_MESSAGE", "CHECKPOINT", "PLANNER_RESPONSE"}
    return sum(json.loads(raw).get("type") in turns
               for raw in path.read_bytes().splitlines())


def count_rewrite(path: Path) -> int:
    """Flat ``{"type": "message", "role": "user"|"assistant", "text"}`` records."""
    return sum(o.get("type") == "message" and o.get("role") in ("user", "assistant")
               for o in map(json.loads, path.read_bytes().splitlines()))


def count_export(path: Path) -> int:
    return len(json.loads(path.read_bytes())["messages"])


def count_db(path: Path) -> int:
    with sqlite3.connect(f"file:{path}?mode=ro&immutable=1", uri=True) as db:
        return int(db.execute("SELECT count(*) FROM message").fetchone()[0])


def independent(path: Path) -> int:
    if path.suffix == ".db":
        return count_db(path)
    if path.suffix == ".json":
        return count_export(path)
    first = json.loads(path.read_bytes().split(b"\n", 1)[0])
    if "projectHash" in first:
        return count_gemini(path)
    if first.get("type") == "session" and first.get("version") == 3:
        return count_pi(path)
    if "step_index" in first:
        return count_antigravity(path)
    if first.get("type") == "sanitization_notice" or (
            first.get("type") == "session_meta" and "payload" not in first):
        return count_rewrite(path)
    return count_codex(path) if "payload" in first else count_claude(path)


# ------------------------------------------------------------------ the walk
@pytest.fixture(scope="module")
def reports() -> dict[str, IngestReport]:
    if not REAL.is_dir():
        pytest.fail(f"the shared real-world samples are missing: {REAL}")
    out = {}
    for name in ("pool", "labelled"):
        with KbStore(":memory:") as store:
            out[name] = ingest(store, [REAL / name], graph=False)
    return out


@pytest.mark.parametrize("folder", ["pool", "labelled"])
def test_every_file_is_read_with_its_count_or_refused_by_name(
        reports: dict[str, IngestReport], folder: str) -> None:
    rep = reports[folder]
    read: dict[str, int] = {}
    forms: dict[str, set[tuple[str, str | None]]] = {}
    for s in rep.sessions:
        read[Path(s.path).name] = read.get(Path(s.path).name, 0) + s.messages
        forms.setdefault(Path(s.path).name, set()).add((s.form, s.agent))
    errors = {Path(e.path).name: e.reason for e in rep.errors}
    not_taken = {Path(e.path).name: e.reason for e in rep.not_taken}
    checked = 0
    for f in sorted((REAL / folder).iterdir()):
        name = f.name
        if name.endswith(("-wal", "-shm")):  # read with their database
            assert name not in read and name not in errors
            continue
        if name in REFUSED:
            assert REFUSED[name] in errors.get(name, ""), (name, errors.get(name))
        elif name.endswith(NOT_SESSIONS) and "__" not in name:
            assert not_taken.get(name) == "unrecognised content", name
        else:
            assert read.get(name) == independent(f), (name, read.get(name), independent(f))
            checked += 1
            if name in REWRITES:  # read, and named for what it is
                assert forms[name] == {("rewrite", REWRITES[name][0])}, forms[name]
            else:
                assert "rewrite" not in {form for form, _ in forms[name]}, (name, forms[name])
    assert checked >= (16 if folder == "pool" else 10)
    # nothing else was refused or passed over, and every refusal is reported as an error
    assert set(errors) == {n for n in REFUSED if (REAL / folder / n).exists()}
    # every record of every file read was understood: no problem, no unknown record type
    # but what a rewrite holds besides its messages (kept raw, counted)
    assert [str(p) for p in rep.problems] == []
    assert rep.skipped == {str(REAL / folder / n): types for n, (_, types) in REWRITES.items()
                           if (REAL / folder / n).exists() and types}


def test_claude_code_2_1_files_open_with_new_record_types(reports: dict[str, IngestReport]) -> None:
    """The two files once refused for their first record (``permission-mode``) are read."""
    names = {Path(s.path).name for s in reports["pool"].sessions}
    for name in ("privacy-x402__claude-session.jsonl", "conversacion-act1-pln__session.jsonl"):
        first = json.loads((REAL / "pool" / name).read_bytes().split(b"\n", 1)[0])
        assert first["type"] == "permission-mode"
        assert name in names


CODEX = sorted(p for d in ("pool", "labelled") for p in (REAL / d).glob("*codex-session*.jsonl")
               if not p.name.startswith("trade_arena"))


@pytest.mark.parametrize("path", CODEX, ids=lambda p: p.name)
def test_codex_usage_per_model_call_adds_up_to_the_running_total(path: Path) -> None:
    """Each model call's usage (``last_token_usage``) is stored once: their sum is the
    rollout's last running total (``total_token_usage``)."""
    from kb.store import KbStore

    totals = [o["payload"]["info"]["total_token_usage"]
              for o in map(json.loads, path.read_bytes().splitlines())
              if o.get("type") == "event_msg" and o["payload"].get("type") == "token_count"
              and (o["payload"].get("info") or {}).get("total_token_usage")]
    assert totals, path.name  # every real rollout here reports its usage
    with KbStore(":memory:") as store:
        ingest(store, [path], graph=False)
        got = store.conn.execute(
            "SELECT sum(tokens_input) + sum(tokens_cache_read), sum(tokens_output), "
            "sum(tokens_reasoning) FROM message_usage").fetchone()
    last = totals[-1]
    assert got == (last["input_tokens"], last["output_tokens"],
                   last.get("reasoning_output_tokens", 0))
