"""Tokens and cost (issue 27): exact per real session against an independent count of the
file, and a price table that never turns an unknown model into $0."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.usage import PRICES, MessageUsage, Price, load_prices, message_cost, model_key, totals
from tests.cli_kb import invoke

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld"
CLAUDE = sorted([*REAL.glob("pool/*claude*.jsonl"), *REAL.glob("labelled/*claude*.jsonl"),
                 REAL / "labelled" / "speakfree__session.jsonl",
                 REAL / "pool" / "random__session.jsonl",
                 REAL / "pool" / "conversacion-act1-pln__session.jsonl"])
CLAUDE = [p for p in CLAUDE if "trade_arena" not in p.name]  # a rewrite, not Claude Code's
CODEX = sorted(p for p in [*REAL.glob("pool/*codex*.jsonl"), *REAL.glob("labelled/*codex*.jsonl")]
               if "trade_arena" not in p.name)


def claude_count(path: Path) -> dict[str, int]:
    """Claude Code: one usage per response (``message.id`` and ``requestId``), from its last
    streamed line; sidechain lines belong to subagents."""
    last: dict[tuple[str, str], dict[str, int]] = {}
    for line in path.read_bytes().splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        m = d.get("message") if isinstance(d, dict) else None
        if d.get("type") != "assistant" or d.get("isSidechain") or not isinstance(m, dict):
            continue
        if isinstance(m.get("usage"), dict):
            last[(str(m.get("id")), str(d.get("requestId")))] = m["usage"]
    keys = {"input": "input_tokens", "output": "output_tokens",
            "cache_read": "cache_read_input_tokens", "cache_write": "cache_creation_input_tokens"}
    return {k: sum(int(u.get(v) or 0) for u in last.values()) for k, v in keys.items()}


def codex_count(path: Path) -> dict[str, int]:
    """Codex: the running total of the last ``token_count`` event (input includes its cached
    part; output includes reasoning)."""
    total: dict[str, int] = {}
    for line in path.read_bytes().splitlines():
        try:
            d = json.loads(line)
        except ValueError:
            continue
        p = d.get("payload") if isinstance(d, dict) else None
        if d.get("type") == "event_msg" and isinstance(p, dict) and p.get("type") == "token_count" \
                and isinstance(p.get("info"), dict):
            total = p["info"].get("total_token_usage") or total
    cached = int(total.get("cached_input_tokens") or 0)
    return {"input": int(total.get("input_tokens") or 0) - cached, "cache_read": cached,
            "output": int(total.get("output_tokens") or 0)}


def _usage(tmp: Path, path: Path) -> dict[str, int]:
    db = str(tmp / "kb.duckdb")
    r = invoke("ingest", "--db", db, str(path))
    assert r.exit_code in (0, 4), r.stderr
    r = invoke("usage", "--db", db, "--by", "session", "--json")
    assert r.exit_code == 0, r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    sid = [s for s in (json.loads(x) for x in invoke("sessions", "--db", db, "--json")
                       .stdout.splitlines()) if not s.get("parent_id")]
    top = {s["id"] for s in sid}
    out = {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}
    for row in rows:
        if row["key"] in top:
            for k in out:
                out[k] += row[k]
    return out


@pytest.mark.parametrize("path", CLAUDE, ids=lambda p: p.name)
def test_claude_code_tokens_equal_an_independent_count(tmp_path: Path, path: Path) -> None:
    assert _usage(tmp_path, path) == claude_count(path)


@pytest.mark.parametrize("path", CODEX, ids=lambda p: p.name)
def test_codex_tokens_equal_the_agents_running_total(tmp_path: Path, path: Path) -> None:
    want = codex_count(path)
    got = _usage(tmp_path, path)
    assert {k: got[k] for k in want} == want


def test_a_dated_model_takes_its_price_and_a_newer_one_does_not() -> None:
    assert model_key("anthropic/claude-opus-4-5-20251101") == "claude-opus-4-5"
    assert model_key("claude-opus-4-6") == "claude-opus-4-6"  # never priced as claude-opus-4
    m = MessageUsage("s", "claude-code", "claude-opus-4-6", 0, input=10, output=10)
    assert message_cost(m, PRICES) is None
    m = MessageUsage("s", "claude-code", "claude-opus-4-5-20251101", 0, input=1_000_000,
                     output=1_000_000, cache_read=1_000_000, cache_write=1_000_000)
    p = PRICES["claude-opus-4-5"]
    assert message_cost(m, PRICES) == pytest.approx(p.input + p.output + p.cache_read
                                                    + p.cache_write)  # type: ignore[operator]


def test_a_recorded_cost_is_kept_and_unknown_stays_unknown() -> None:
    rows = [MessageUsage("a", "opencode", "some-model", 1_000, input=5, recorded_cost=0.25),
            MessageUsage("b", "codex", "gpt-9", 2_000, input=5, output=5)]
    (day,) = totals(rows, "day", PRICES)
    assert day.cost == 0.25 and day.unpriced == 1
    assert day.as_json()["cost_complete"] is False


def test_a_user_price_file_prices_a_new_model(tmp_path: Path) -> None:
    f = tmp_path / "prices.json"
    f.write_text(json.dumps({"gpt-9": {"input": 1, "output": 2}}))
    prices = load_prices(f)
    assert prices["gpt-9"] == Price(1.0, 2.0, None, None, "user")
    m = MessageUsage("b", "codex", "gpt-9", 0, input=1_000_000, output=1_000_000,
                     cache_read=1_000_000)
    assert message_cost(m, prices) == pytest.approx(1 + 2 + 1)  # cached input at input rate
    f.write_text("{not json")
    with pytest.raises(ValueError, match="not a price table"):
        load_prices(f)


def test_five_hour_blocks_start_at_the_hour_of_their_first_message() -> None:
    h = 3_600_000
    t0 = 1_790_000_000_000 - 1_790_000_000_000 % h + 20 * 60_000  # 20 minutes past an hour
    rows = [MessageUsage("s", None, None, t, output=1) for t in (t0, t0 + 4 * h, t0 + 5 * h)]
    groups = totals(rows, "block", PRICES)
    assert [g.messages for g in groups] == [2, 1]


def test_usage_cli_at_80_columns_names_unpriced_models(tmp_path: Path) -> None:
    path = REAL / "labelled" / "will-it-rain__claude.jsonl"
    db = str(tmp_path / "kb.duckdb")
    assert invoke("ingest", "--db", db, str(path)).exit_code == 0
    r = invoke("usage", "--db", db, "--by", "session", env={"COLUMNS": "80"})
    assert r.exit_code == 0
    assert all(len(line) <= 80 for line in r.stdout.splitlines())
    assert "$" in r.stdout and "total" in r.stdout
    r = invoke("usage", "--db", db, "--prices", str(tmp_path / "missing.json"))
    assert r.exit_code == 2 and "not a price table" in r.stderr
