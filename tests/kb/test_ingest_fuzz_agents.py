"""Ingest fuzz over Claude Code and Codex lines (the opencode fuzz is in test_ingest_robust).

Real lines (the trimmed fixtures and the head of two pool files) are mutated: a byte flipped,
the file cut mid-line, invalid UTF-8, a field of the wrong type, a huge line, a line written
twice, a stray non-record line.  For every case ingest raises nothing, the knowledge base keeps
its invariants, and **every line of the file is accounted for**: it is in the stored record of
a message, or a problem names it (file and line).
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from kb.ingest import ingest
from kb.store import KbStore
from tests.kb.test_ingest_robust import check_invariants

ROOT = Path(__file__).resolve().parents[2]
TRIM = ROOT / "fixtures" / "realworld_trim"
POOL = ROOT.parent / "shared" / "realworld" / "pool"
SEED = 20261205
CASES = int(os.environ.get("LOGKB_FUZZ_CASES", "120"))

WRONG: list[Any] = [7, -1, 2 ** 70, "x", "", None, [], ["a"], {}, {"a": 1}, True, 1.5e300]
KEYS = ("type", "message", "sessionId", "uuid", "parentUuid", "timestamp", "isSidechain",
        "payload", "attachment", "operation", "content", "toolUseResult", "isMeta",
        "message.id", "message.content", "message.usage", "message.role", "payload.type",
        "payload.call_id", "payload.output", "payload.arguments", "payload.input",
        "payload.name", "payload.role", "payload.content", "payload.info",
        "payload.info.last_token_usage", "payload.id", "payload.duration", "payload.exit_code")


def samples() -> list[list[bytes]]:
    out = [(TRIM / "claude_2_1.jsonl").read_bytes().splitlines(),
           (TRIM / "codex_code_mode.jsonl").read_bytes().splitlines()]
    for name, n in (("scout__claude-session.jsonl", 40), ("raze__codex-session.jsonl", 60),
                    ("blockchain-dex-events__claude-session.jsonl", 40)):
        out.append((POOL / name).read_bytes().splitlines()[:n])
    return out


def _set(obj: dict[str, Any], key: str, value: Any) -> bool:
    path = key.split(".")
    target: Any = obj
    for k in path[:-1]:
        target = target.get(k) if isinstance(target, dict) else None
    if not isinstance(target, dict) or path[-1] not in target:
        return False
    target[path[-1]] = value
    return True


def mutate(rng: random.Random, lines: list[bytes]) -> tuple[bytes, str]:
    lines = list(lines)
    kind = rng.choice(["flip", "truncate", "utf8", "wrong", "wrong", "wrong", "huge", "dup",
                       "stray"])
    k = rng.randrange(len(lines))
    end = b"\n"
    if kind == "flip":
        b = bytearray(lines[k])
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        lines[k] = bytes(b)
    elif kind == "truncate":
        blob = b"\n".join(lines)
        return blob[:rng.randrange(1, len(blob))], kind
    elif kind == "utf8":
        b = lines[k]
        at = b.find(b'":"') + 3 if b'":"' in b else len(b) // 2
        lines[k] = b[:at] + rng.choice([b"\xff", b"\xc3", b"\xed\xa0\x80", b"\xfe\xfe"]) + b[at:]
    elif kind == "wrong":
        obj = orjson.loads(lines[k])
        for _ in range(rng.randint(1, 3)):
            _set(obj, rng.choice(KEYS), rng.choice(WRONG))
        lines[k] = json.dumps(obj, ensure_ascii=False).encode()  # (orjson: no 2**70)
    elif kind == "huge":
        obj = orjson.loads(lines[k])
        big = "y" * rng.choice([1 << 20, 6 << 20])
        if not (_set(obj, "message.content", big) or _set(obj, "payload.output", big)):
            obj["padding"] = big
        lines[k] = orjson.dumps(obj)
    elif kind == "dup":
        lines.insert(rng.randrange(k, len(lines) + 1), lines[k])
    else:
        lines.insert(k, rng.choice([b"not json", b"[1, 2]", b"42", b"{}", b'{"type": 5}',
                                    b"\x00\x01garbage"]))
    if rng.random() < 0.2:
        end = b""  # no newline at the end of the file
    return b"\n".join(lines) + end, kind


def stored_lines(store: KbStore) -> set[int]:
    got: set[int] = set()
    for (raw,) in store.conn.execute("SELECT raw FROM messages").fetchall():
        doc = orjson.loads(raw)
        if isinstance(doc, dict) and isinstance(doc.get("lines"), list):
            got.update(doc["lines"])
    return got


def assert_every_line_kept(store: KbStore, report: Any, f: Path, data: bytes,
                           case: tuple[object, ...]) -> None:
    """Every non-blank line of ``data`` (the file ``f``) is stored in some message or
    named by a problem, and every problem names ``f`` and a line or a record."""
    have = stored_lines(store)
    named = {p.line for p in report.problems if p.line is not None}
    for p in report.problems:
        assert p.path == str(f) and (p.line is not None or p.record), (*case, p)
    want = [i for i, ln in enumerate(data.split(b"\n"), 1) if ln.strip()]
    lost = [i for i in want if i not in have and i not in named]
    assert not lost, (*case, lost[:5], [str(p) for p in report.problems][:5])


def test_fuzz_agent_lines_lose_nothing(tmp_path: Path) -> None:
    rng = random.Random(SEED)
    base = samples()
    tally: dict[str, int] = {}
    for n in range(CASES):
        data, kind = mutate(rng, rng.choice(base))
        tally[kind] = tally.get(kind, 0) + 1
        f = tmp_path / f"case{n}.jsonl"
        f.write_bytes(data)
        with KbStore(":memory:") as store:
            report = ingest(store, [f], graph=False)
            check_invariants(store, report)
            if report.errors:  # refused whole: only when nothing in it is of the agent
                assert n >= 0 and all(e.path == str(f) for e in report.errors), n
                continue
            assert_every_line_kept(store, report, f, data, (n, kind))
        f.unlink()
    assert len(tally) == 7  # every kind of damage was tried


@pytest.mark.parametrize("name", ["claude_2_1.jsonl", "codex_code_mode.jsonl"])
def test_truncated_last_line_is_named_and_the_rest_stored(tmp_path: Path, name: str) -> None:
    data = (TRIM / name).read_bytes()
    f = tmp_path / name
    f.write_bytes(data[:-40])  # the last line cut, no newline
    n_lines = data.count(b"\n")
    with KbStore(":memory:") as store:
        report = ingest(store, [f], graph=False)
        (bad,) = [p for p in report.problems if p.line == n_lines]
        assert "truncated" in bad.reason and bad.path == str(f)
        assert set(range(1, n_lines)) <= stored_lines(store)


OTHER_KEYS = (
    # Gemini CLI
    "sessionId", "projectHash", "id", "type", "timestamp", "content", "displayContent",
    "toolCalls", "thoughts", "tokens", "model", "$set", "$set.lastUpdated",
    # pi
    "version", "cwd", "modelId", "message", "message.role", "message.content",
    "message.toolCallId", "message.isError", "message.stopReason", "message.usage",
    "message.errorMessage", "message.details", "message.command", "message.exitCode",
    "summary",
    # Antigravity
    "step_index", "source", "status", "created_at", "tool_calls", "thinking", "error",
    "truncated_fields")


def other_samples() -> list[list[bytes]]:
    out = [(TRIM / n).read_bytes().splitlines()
           for n in ("gemini_cli.jsonl", "pi.jsonl", "antigravity.jsonl")]
    for name, n in (("Axe__session.jsonl", 40), ("civ6.ch__session.jsonl", 30),
                    ("Xeus__gemini-session.jsonl", 60)):
        out.append((POOL / name).read_bytes().splitlines()[:n])
    return out


def test_fuzz_other_agent_lines_lose_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                                            ) -> None:
    """The same damage on Gemini CLI, pi and Antigravity lines: nothing raises, every
    line is stored or named, and a file is refused whole only when a cut left (almost)
    nothing of it: a damaged header line costs that line, not the file."""
    monkeypatch.setattr(__import__(__name__, fromlist=["KEYS"]), "KEYS", OTHER_KEYS)
    rng = random.Random(SEED + 1)
    base = other_samples()
    tally: dict[str, int] = {}
    for n in range(max(CASES // 2, 40)):
        data, kind = mutate(rng, rng.choice(base))
        tally[kind] = tally.get(kind, 0) + 1
        f = tmp_path / f"case{n}.jsonl"
        f.write_bytes(data)
        with KbStore(":memory:") as store:
            report = ingest(store, [f], graph=False)
            check_invariants(store, report)
            if report.errors:  # refused whole only when (almost) nothing is left
                assert all(e.path == str(f) for e in report.errors), n
                assert kind == "truncate" and data.count(b"\n") < 2, (
                    n, kind, [str(e) for e in report.errors])
                continue
            assert_every_line_kept(store, report, f, data, (n, kind))
        f.unlink()
    assert len(tally) == 7
