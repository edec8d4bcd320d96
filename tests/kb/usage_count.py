"""An independent count of the tokens in the real files, per session: a few lines per agent
reading the raw records, sharing nothing with ``logparse`` or ``kb`` (issue 27).

Every count uses logkb's semantics (``kb/usage.py``): ``input`` is the input not read from a
cache, ``cache_read``/``cache_write`` the cached parts, ``output`` every generated token.

- Claude Code: one usage per response, keyed by ``message.id`` and ``requestId``, from the
  response's **last** streamed line (earlier lines carry partial output counts).
- Codex: the difference between successive distinct ``total_token_usage`` running totals of
  ``token_count`` events, summed; repeated events with an unchanged total (rate-limit
  updates) add nothing.  ``input_tokens`` includes the cached part, subtracted here.
- opencode: each assistant message's own ``tokens`` (``input``, ``output``,
  ``cache.read``, ``cache.write``) from an export or from the SQLite store's ``message`` rows.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from bench.held_out import held_out

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld"
KEYS = ("input", "output", "cache_read", "cache_write")


def _native(p: Path) -> bool:
    """An agent's own file (trade_arena is an author's rewrite), never a held-out one
    (``bench.held_out``: helpers run this file; the coordinator alone reads those)."""
    return "trade_arena" not in p.name and not held_out(p)


CLAUDE = sorted(p for p in [*REAL.glob("pool/*claude*.jsonl"), *REAL.glob("labelled/*claude*.jsonl"),
                            REAL / "labelled" / "speakfree__session.jsonl",
                            REAL / "pool" / "random__session.jsonl",
                            REAL / "pool" / "conversacion-act1-pln__session.jsonl",
                            *REAL.glob("claude-code/*/transcript.jsonl")] if _native(p))
CODEX = sorted(p for p in [*REAL.glob("pool/*codex*.jsonl"), *REAL.glob("labelled/*codex*.jsonl"),
                           *REAL.glob("codex/*.jsonl")] if _native(p))
OPENCODE = sorted([*REAL.glob("opencode/*.json"), *REAL.glob("pool/*opencode*.json"),
                   *(REAL / "labelled" / n for n in (
                       "k1.lib-bootstrap__session-export.json",
                       "pfm-categorization__opencode-session.json",
                       "uicomponents__session-export.json",
                       "uicomponents__session-wordpress.json",
                       "stunning-memory__opencode.db")),
                   REAL / "opencode-recorded" / "selftest" / "opencode.db"])
"""Every Claude Code, Codex and opencode file of ``../shared/realworld`` (the selftest's
exports are copies of its store's sessions, so the store stands for them)."""


def _lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_bytes().splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        if isinstance(d, dict):
            out.append(d)
    return out


def _zero() -> dict[str, int]:
    return dict.fromkeys(KEYS, 0)


def claude(path: Path) -> dict[str, dict[str, int]]:
    last: dict[tuple[str, str, str], dict[str, Any]] = {}
    for d in _lines(path):
        m = d.get("message")
        if d.get("type") == "assistant" and isinstance(m, dict) \
                and isinstance(m.get("usage"), dict):
            last[(str(d.get("sessionId")), str(m.get("id")), str(d.get("requestId")))] = m["usage"]
    out: dict[str, dict[str, int]] = {}
    for (sid, _, _), u in last.items():
        c = out.setdefault(sid, _zero())
        c["input"] += int(u.get("input_tokens") or 0)
        c["output"] += int(u.get("output_tokens") or 0)
        c["cache_read"] += int(u.get("cache_read_input_tokens") or 0)
        c["cache_write"] += int(u.get("cache_creation_input_tokens") or 0)
    return out


def claude_cost(path: Path, rates: dict[str, tuple[float, float, float, float, float]]
                ) -> dict[str, float]:
    """Per session, USD: each response's last usage line priced by its model's rates
    ``(input, output, cache read, 5-minute cache write, 1-hour cache write)`` per million
    tokens, the one-hour part of the cache writes from ``cache_creation``."""
    last: dict[tuple[str, str, str], tuple[str, dict[str, Any]]] = {}
    for d in _lines(path):
        m = d.get("message")
        if d.get("type") == "assistant" and isinstance(m, dict) \
                and isinstance(m.get("usage"), dict):
            last[(str(d.get("sessionId")), str(m.get("id")), str(d.get("requestId")))] = (
                str(m.get("model")), m["usage"])
    out: dict[str, float] = {}
    for (sid, _, _), (model, u) in last.items():
        n = [int(u.get(k) or 0) for k in ("input_tokens", "output_tokens",
                                           "cache_read_input_tokens",
                                           "cache_creation_input_tokens")]
        hour = int((u.get("cache_creation") or {}).get("ephemeral_1h_input_tokens") or 0)
        if not any(n):
            continue
        i, o, r, w5, w1 = rates[model]
        out[sid] = out.get(sid, 0.0) + (n[0] * i + n[1] * o + n[2] * r + (n[3] - hour) * w5
                                        + hour * w1) / 1e6
    return out


def codex(path: Path) -> dict[str, dict[str, int]]:
    sid = ""
    c = _zero()
    prev = {"input_tokens": 0, "cached_input_tokens": 0, "output_tokens": 0}
    for d in _lines(path):
        p = d.get("payload")
        if not isinstance(p, dict):
            continue
        if d.get("type") == "session_meta" and not sid:
            sid = str(p.get("id"))
        info = p.get("info")
        if d.get("type") == "event_msg" and p.get("type") == "token_count" \
                and isinstance(info, dict) and isinstance(info.get("total_token_usage"), dict):
            tot = info["total_token_usage"]
            delta = {k: int(tot.get(k) or 0) - prev[k] for k in prev}
            prev = {k: int(tot.get(k) or 0) for k in prev}
            c["input"] += delta["input_tokens"] - delta["cached_input_tokens"]
            c["cache_read"] += delta["cached_input_tokens"]
            c["output"] += delta["output_tokens"]
    return {sid: c}


def _opencode_message(out: dict[str, dict[str, int]], sid: str, info: dict[str, Any]) -> None:
    if info.get("role") != "assistant":
        return
    t: dict[str, Any] = info["tokens"] if isinstance(info.get("tokens"), dict) else {}
    cache: dict[str, Any] = t["cache"] if isinstance(t.get("cache"), dict) else {}
    c = out.setdefault(sid, _zero())
    c["input"] += int(t.get("input") or 0)
    c["output"] += int(t.get("output") or 0)
    c["cache_read"] += int(cache.get("read") or 0)
    c["cache_write"] += int(cache.get("write") or 0)


def opencode(path: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    if path.suffix == ".db":
        with tempfile.TemporaryDirectory() as tmp:  # the -wal holds rows: open a copy
            for side in ("", "-wal", "-shm"):
                if (src := path.with_name(path.name + side)).exists():
                    shutil.copyfile(src, Path(tmp) / ("o.db" + side))
            con = sqlite3.connect(Path(tmp) / "o.db")
            try:
                for sid, data in con.execute("SELECT session_id, data FROM message"):
                    _opencode_message(out, sid, json.loads(data))
            finally:
                con.close()
        return out
    export = json.loads(path.read_bytes())
    for m in export["messages"]:
        _opencode_message(out, str(m["info"].get("sessionID") or export["info"]["id"]),
                          m["info"])
    return out


def count_file(path: Path) -> dict[str, dict[str, int]]:
    """``{session id: {input, output, cache_read, cache_write}}`` of one real file."""
    if path in CLAUDE:
        return claude(path)
    if path in CODEX:
        return codex(path)
    return opencode(path)
