"""Tokens and cost (issue 27): exact per real session against an independent count of the
file, and a price table that never turns an unknown model into $0."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from kb.usage import PRICES, MessageUsage, Price, load_prices, message_cost, model_key, totals
from tests.cli_kb import invoke
from tests.kb.usage_count import CLAUDE, CODEX, KEYS, OPENCODE, REAL, claude_cost, count_file
from tests.unpriced import UNPRICED_MODEL, unpriced_scout

ALL = [*CLAUDE, *CODEX, *OPENCODE]


def _usage(tmp: Path, path: Path) -> dict[str, dict[str, int]]:
    db = str(tmp / "kb.duckdb")
    r = invoke("ingest", "--db", db, str(path))
    assert r.exit_code in (0, 4), r.stderr
    r = invoke("usage", "--db", db, "--by", "session", "--json")
    assert r.exit_code == 0, r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    return {row["key"]: {k: row[k] for k in KEYS} for row in rows}


def test_every_real_claude_code_codex_and_opencode_file_is_counted() -> None:
    assert (len(CLAUDE), len(CODEX), len(OPENCODE)) == (9, 7, 11)  # held-out files left out
    assert all(p.exists() for p in ALL)


@pytest.mark.parametrize("path", ALL, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_tokens_per_session_equal_an_independent_count(tmp_path: Path, path: Path) -> None:
    """Per session, exact: logkb's input, output, cache read and cache write equal a count
    of the raw lines by ``tests/kb/usage_count.py`` (no logkb code); a session logkb adds
    (none of these files has one with tokens) holds no tokens."""
    want = {sid: c for sid, c in count_file(path).items() if any(c.values())}
    got = _usage(tmp_path, path)
    assert {sid: got.get(sid) for sid in want} == want
    assert all(not any(c.values()) for sid, c in got.items() if sid not in want)


OPUS_45 = [REAL / "labelled" / "will-it-rain__claude.jsonl",
           *REAL.glob("claude-code/*/transcript.jsonl")]


@pytest.mark.parametrize("path", OPUS_45, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_claude_cost_prices_one_hour_cache_writes_apart(tmp_path: Path, path: Path,
                                                        monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """Anthropic's list price for claude-opus-4-5, USD per million tokens (input, output,
    cache read, 5-minute write at 1.25x input, 1-hour write at 2x): will-it-rain's 402,504
    cache writes are all one-hour ($10.03, as ccusage; $8.52 at the 5-minute rate)."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    want = claude_cost(path, {"claude-opus-4-5-20251101": (5, 25, 0.5, 6.25, 10)})
    db = str(tmp_path / "kb.duckdb")
    assert invoke("ingest", "--db", db, str(path)).exit_code == 0
    rows = [json.loads(x) for x in invoke("usage", "--db", db, "--by", "session",
                                          "--json").stdout.splitlines()]
    assert {r["key"]: r["cost"] for r in rows} == {k: pytest.approx(v, abs=1e-6)
                                                   for k, v in want.items()}


# ccusage 20.0.24's cost of real sessions, one per model priced from its embedded LiteLLM
# table (``ccusage claude|codex session --json --offline``, docs/usage-vs-ccusage.md);
# tune and shared files only, never a held-out one (bench.held_out).
CCUSAGE_COSTS = {
    "pool/random__session.jsonl": ("claude-opus-4-6", 0.6113),
    "pool/FundWise__claude-session.jsonl": ("claude-opus-4-7", 5.9422),
    "labelled/speakfree__session.jsonl": ("claude-sonnet-4-6", 2.6931),
    "pool/privacy-x402__codex-session.jsonl": ("gpt-5.3-codex", 0.0410),
    "labelled/Trezo-Ai__codex-session.jsonl": ("gpt-5.4", 0.3619),
    "pool/scout__codex-session.jsonl": ("gpt-5.5", 0.2408),
}


@pytest.mark.parametrize("name", sorted(CCUSAGE_COSTS))
def test_current_models_cost_what_ccusage_says(tmp_path: Path, name: str,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))  # no user prices
    model, cost = CCUSAGE_COSTS[name]
    db = str(tmp_path / "kb.duckdb")
    assert invoke("ingest", "--db", db, str(REAL / name)).exit_code == 0
    (row,) = [json.loads(x) for x in invoke("usage", "--db", db, "--by", "session",
                                             "--json").stdout.splitlines()]
    assert model in row["models"]
    assert round(row["cost"], 4) == cost


def test_a_dated_model_takes_its_price_and_a_newer_one_does_not() -> None:
    assert model_key("anthropic/claude-opus-4-5-20251101") == "claude-opus-4-5"
    assert model_key("claude-opus-4-6") == "claude-opus-4-6"  # never priced as claude-opus-4
    assert PRICES["claude-opus-4-6"] != PRICES["claude-opus-4"]
    m = MessageUsage("s", "claude-code", "claude-opus-4-9", 0, input=10, output=10)
    assert message_cost(m, PRICES) is None
    m = MessageUsage("s", "claude-code", "claude-opus-4-5-20251101", 0, input=1_000_000,
                     output=1_000_000, cache_read=1_000_000, cache_write=1_000_000)
    p = PRICES["claude-opus-4-5"]
    assert p.cache_read is not None and p.cache_write is not None
    assert message_cost(m, PRICES) == pytest.approx(p.input + p.output + p.cache_read
                                                    + p.cache_write)


@pytest.mark.parametrize("model", sorted(PRICES))
def test_every_model_in_the_price_table_has_a_cost(model: str) -> None:
    """Each row prices every kind of token (dated; a provider prefix and a release date
    on the model name change nothing)."""
    p = PRICES[model]
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", p.as_of)
    m = MessageUsage("s", None, f"provider/{model}-20990101", 0, input=1_000_000,
                     output=1_000_000, cache_read=1_000_000, cache_write=2_000_000,
                     cache_write_1h=1_000_000)
    cost = message_cost(m, PRICES)
    assert cost is not None and cost > p.input + p.output


def test_one_hour_cache_writes_take_their_own_rate(tmp_path: Path) -> None:
    m = MessageUsage("s", "claude-code", "claude-opus-4-5", 0, cache_write=3_000_000,
                     cache_write_1h=1_000_000)
    assert message_cost(m, PRICES) == pytest.approx(2 * 6.25 + 10.0)
    f = tmp_path / "prices.json"
    f.write_text(json.dumps({"claude-opus-4-5": {"input": 1, "output": 2,
                                                 "cache_write": 3, "cache_write_1h": 7}}))
    assert message_cost(m, load_prices(f)) == pytest.approx(2 * 3 + 7)
    f.write_text(json.dumps({"claude-opus-4-5": {"input": 1, "output": 2, "cache_write": 3}}))
    assert message_cost(m, load_prices(f)) == pytest.approx(3 * 3)  # no 1h rate: the 5m one


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


@pytest.fixture
def two_sessions(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """will-it-rain (claude-opus-4-5: priced) and scout's Codex session with a model no
    price table has; no user price file."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    db = str(tmp_path / "kb.duckdb")
    r = invoke("ingest", "--db", db, str(REAL / "labelled" / "will-it-rain__claude.jsonl"),
               str(unpriced_scout(tmp_path)))
    assert r.exit_code == 0, r.stderr
    return db


def test_sessions_show_tokens_and_cost_at_80_columns(two_sessions: str) -> None:
    r = invoke("sessions", "--db", two_sessions, env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(len(line) <= 80 for line in lines)
    assert "tokens" in lines[0] and "cost" in lines[0]
    rain = next(line for line in lines if line.startswith("33c772d"))
    scout = next(line for line in lines if line.startswith("019f522"))
    # cache reads and writes count: 185 + 2,271 + 11,895,589 + 402,504
    assert "12M" in rain and "$10.03" in rain
    assert "159k" in scout and "unknown" in scout and "$0" not in scout
    r = invoke("sessions", "--db", two_sessions, "--json")
    rows = {s["id"]: s for s in map(json.loads, r.stdout.splitlines())}
    rain_json = rows["33c772d9-b322-4f61-a37d-7d5634a80b45"]
    assert rain_json["tokens"]["total"] == 185 + 2_271 + 11_895_589 + 402_504
    assert rain_json["cost"] == pytest.approx(10.030535, abs=1e-6)
    assert rain_json["cost_complete"] is True
    scout_json = rows["019f522f-ea1b-7622-b951-584ce660e69d"]
    assert scout_json["cost"] is None and scout_json["cost_complete"] is False
    r = invoke("sessions", "--db", two_sessions, "019f522")
    assert "cost:      unknown" in r.stdout and "tokens:    159k" in r.stdout


def test_a_user_price_file_prices_the_session_list(two_sessions: str, tmp_path: Path) -> None:
    f = tmp_path / "config" / "logkb" / "prices.json"
    f.parent.mkdir(parents=True)
    f.write_text(json.dumps({UNPRICED_MODEL: {"input": 1, "output": 2, "cache_read": 0.5}}))
    r = invoke("sessions", "--db", two_sessions, "--json")
    scout = next(s for s in map(json.loads, r.stdout.splitlines()) if s["id"].startswith("019f"))
    # 22,122 in, 2,095 out, 134,656 cache read (USD per million tokens)
    assert scout["cost"] == pytest.approx((22_122 * 1 + 2_095 * 2 + 134_656 * 0.5) / 1e6)


def test_handoff_has_a_tokens_and_cost_line(two_sessions: str) -> None:
    r = invoke("handoff", "--db", two_sessions, "--session", "33c772d")
    assert r.exit_code == 0, r.stderr
    assert ("Tokens: 12M (185 in, 2.3k out, 12M cache read, 403k cache write) · cost $10.03"
            in r.stdout)
    r = invoke("handoff", "--db", two_sessions, "--session", "019f522")
    assert "Tokens: 159k (22k in, 2.1k out, 135k cache read) · cost unknown" in r.stdout
    r = invoke("handoff", "--db", two_sessions, "--session", "019f522", "--json")
    s = json.loads(r.stdout)["session"]
    assert s["tokens_total"] == 22_122 + 2_095 + 134_656 and s["cost"] is None


def test_usage_by_session_names_sessions_with_subagents_by_short_id(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Claude Code sub-agent's id is its session's and its own (``<session>:agent-<id>``):
    no prefix of the session's id was unique, so both rows showed the full id (46
    characters and more) and cramped every other column at 80."""
    from kb.store import KbStore

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    fixtures = Path(__file__).resolve().parents[2] / "fixtures"
    db = str(tmp_path / "kb.duckdb")
    r = invoke("ingest", "--db", db, str(fixtures / "structural" / "subagents_claude.jsonl"),
               str(fixtures / "claude_record" / "recorded" / "fix_divide" / "-srv-campaign"))
    assert r.exit_code == 0, r.stderr
    for env in ({"COLUMNS": "80"}, None):  # a terminal of 80, and piped
        r = invoke("usage", "--db", db, "--by", "session", env=env)
        assert r.exit_code == 0, r.stderr
        lines = r.stdout.splitlines()
        assert all(len(line) <= 80 for line in lines)
        assert lines[0].split()[:8] == ["session", "input", "output", "cache", "rd",
                                        "cache", "wr", "total"]
        keys = [line.split()[0] for line in lines[1:-1]]
        assert sorted(keys) == ["2f96946", "2f96946:adbea13", "d4c1bac",
                                "d4c1bac:a06052d"]
    with KbStore(Path(db), read_only=True) as store:  # each reads back as its session
        for sid, short in store.short_ids().items():
            assert store.resolve_session(short) == sid
