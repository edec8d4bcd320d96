"""Round 10 readers of measurements: amounts of money, keys named with their unit,
compound durations written with a space, a Codex command's wall time as an engineer
quotes it, the length of a file Claude Code's ``Read`` showed whole and (plumbing) the
share of Codex's rate-limit window a turn ended at.  Each case is a real line (trimmed)
where one exists, with where it comes from; the negatives are what the readers must never
take (a shell's ``$1``, a timestamp, a setting, a read with a limit)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kb.graph.report import is_plumbing
from logparse.codex import CodexReader, parse_output
from logparse.derive import call_measurements, derive_session, to_events
from logparse.measure import measurement_tuples, numbered_length
from logparse.measure_plumbing import is_plumbing_reading


def _got(text: str, prose: bool = False) -> set[tuple[float, str]]:
    return {(v, u) for v, u, _ in measurement_tuples(text, prose)}


@pytest.mark.parametrize(("text", "prose", "want"), [
    # pool/blockchain-dex-events__claude-session.jsonl:271 and :443
    ("  USDC out:  3184.355095 USDC ($3184.36)", False, (3184.36, "USD")),
    ("  USDC out:  3184.355095 USDC ($3184.35)", False, (3184.355095, "USDC")),
    # pool/FundWise__claude-session.jsonl:18 (a research subagent's answer)
    ("Solana Frontier Hackathon, Germany-only, 10,000 USDG prize pool, winners May 27",
     False, (10000.0, "USDG")),
    # pool/Rivo__codex-session.jsonl:162 (the agent's answer)
    ("The live Agentic Engineering listing is still active: 200 USDG cheque size, global",
     True, (200.0, "USDG")),
    ("Each request costs $0.02, so the run cost $1,204.50 in total.", True, (1204.5, "USD")),
    ("paid 0.5 SOL for rent", True, (0.5, "SOL")),
])
def test_amounts_of_money(text: str, prose: bool, want: tuple[float, str]) -> None:
    assert want in _got(text, prose)


@pytest.mark.parametrize("text", [
    'echo "$1 and $2"',            # a shell's positional parameters
    "price: ${PRICE}",
    "x402 v1.2 USD",              # a version
    "export const FEE = $5;",     # a bare "$5": no cents, no thousands
    'src/pricing.ts:12:  const PRICE = "$0.02"; // 12.50 USDC',  # a grep hit of source
    "perl -pe 's/v(\\d+)/$1.0/' VERSION",   # a replacement's group, then its text
])
def test_what_is_no_amount(text: str) -> None:
    assert not any(u in ("USD", "USDC") for _, u in _got(text))


@pytest.mark.parametrize(("text", "want"), [
    ('{"latency_ms": 123, "ok": true}', (123.0, "ms")),
    ('  "elapsed_ms": 12.5,', (12.5, "ms")),
    ('  "response_time_ms": 33,', (33.0, "ms")),
    # a Claude Code Task's toolUseResult (pool/FundWise__claude-session.jsonl:18, trimmed)
    ('{"status":"completed","totalDurationMs":134003,"totalTokens":35378}', (134003.0, "ms")),
    ("size_kb: 12", (12.0, "kB")),
    ("duration_seconds = 4.5", (4.5, "s")),
])
def test_a_key_named_with_its_unit(text: str, want: tuple[float, str]) -> None:
    assert want in _got(text)


@pytest.mark.parametrize(("text", "absent"), [
    ('"timestamp_ms": 1776680519000,', 1776680519000.0),   # a moment
    ('"startedAtMs": 1776680519,', 1776680519.0),
    ('"retryInMs": 561.1,', 561.1),                          # a backoff: a setting
    ('"timeoutMs": 5000,', 5000.0),
    ("max_ms: 40", 40.0),
    ('"interval_seconds": 30', 30.0),
    # an editor's or a client's config as `cat` shows it: how long to hold back, set
    ('{"debounceMs": 300, "semi": true}', 300.0),
    ('  "throttle_ms": 250,', 250.0),
])
def test_a_unit_named_key_that_is_no_reading(text: str, absent: float) -> None:
    assert absent not in {v for v, _ in _got(text)}


@pytest.mark.parametrize(("text", "want"), [
    ("Done in 2m 3s", 123.0),
    ("Duration: 1h 2m 5s", 3725.0),
    ("took 1m 30s", 90.0),
    ("Done in 2m3s", 123.0),
])
def test_compound_durations_with_a_space(text: str, want: float) -> None:
    assert (want, "s") in _got(text)


def test_a_compound_setting_is_still_no_reading() -> None:
    assert not _got("timeout 1m 30s") and not _got("--interval 2m 3s")


def test_codex_wall_time_to_four_significant_figures() -> None:
    # labelled/soulpass__codex-session.jsonl:232 (head of the output, trimmed)
    out = parse_output("bash", "Chunk ID: 8058ba\nWall time: 18.1554 seconds\nProcess exited "
                               "with code 0\nOriginal token count: 528\nOutput:\n\n> build\n")
    meta = out["metadata"]
    assert meta["reported"][0] == {"value": 18.16, "unit": "s", "label": "wall time"}
    assert meta["duration_seconds"] == 18.1554  # the run's own time keeps every digit


def _codex_stats(tmp_path: Path, records: list[dict[str, Any]]) -> list[tuple[float, str, str]]:
    f = tmp_path / "rollout.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in records))
    got = []
    for s in CodexReader().sessions(f, []):
        batch, _ = derive_session("s", str(f), s.messages)
        got += [(m.value, m.unit, m.label) for e in to_events("s", batch)
                if str(e.kind) == "stat" for m in e.measurements]
    return got


def _tc(total: int, used: float, limit_id: str = "codex") -> dict[str, Any]:
    # pool/Rivo__codex-session.jsonl:169 and pool/privacy-x402__codex-session.jsonl:40
    # (token_count, usage trimmed)
    return {"timestamp": "2026-05-02T13:01:24.204Z", "type": "event_msg", "payload": {
        "type": "token_count", "info": {"total_token_usage": {"total_tokens": total},
                                        "last_token_usage": {"total_tokens": total}},
        "rate_limits": {"limit_id": limit_id, "limit_name": None,
                        "primary": {"used_percent": used, "window_minutes": 10080,
                                    "resets_at": 1778265007}, "secondary": None}}}


def test_codex_rate_limit_is_plumbing_read_once_a_turn(tmp_path: Path) -> None:
    ts = "2026-05-02T13:00:00.000Z"
    meta = {"timestamp": ts, "type": "session_meta",
            "payload": {"id": "019a0000-0000-7000-8000-000000000001", "timestamp": ts,
                        "cwd": "/w", "cli_version": "0.128.0"}}
    user = {"timestamp": ts, "type": "response_item", "payload": {
        "type": "message", "role": "user", "content": [{"type": "input_text", "text": "go"}]}}
    done = {"timestamp": ts, "type": "event_msg", "payload": {"type": "task_complete"}}
    got = _codex_stats(tmp_path, [meta, user, _tc(100, 11.0), _tc(200, 12.0),
                                  _tc(300, 0.0, "codex_bengalfox"), done])
    # the account's window at the turn's end; a model's own limit is not the account's
    assert (12.0, "%", "rate limit used (7-day window)") in got
    assert not any(u == "%" and v in (11.0, 0.0) for v, u, _ in got)
    assert all(is_plumbing_reading(u, lab) for _, u, lab in got)  # never shown as work


# pool/random__session.jsonl:23 (the tail of a Read of index.html, trimmed)
_READ = ("     1→<!DOCTYPE html>\n     2→<html lang=\"en\">\n   310→</script>\n   311→\n"
         "   312→</body>\n   313→</html>\n   314→\n\n<system-reminder>\nWhenever you read a "
         "file took 12 ms\n</system-reminder>\n")


def test_the_length_of_a_file_read_whole() -> None:
    assert numbered_length(_READ) == 313
    got = call_measurements("read", None, {"filePath": "/home/x/random/index.html"}, _READ, {})
    assert got == [{"value": 313.0, "unit": "lines", "label": "index.html length"}]
    # what a tool saw of the files: stored with its event, never a measurement of the work
    assert is_plumbing("index.html length", "lines")


def test_a_read_in_part_gives_no_length() -> None:
    assert call_measurements("read", None, {"filePath": "/x/a.ts", "limit": 10}, _READ, {}) \
        is None
    assert numbered_length("    11→const a = 1\n    12→const b = 2\n") is None  # an offset
    cut = "".join(f"{n:>6}→line\n" for n in (1, 2, 1999, 2000))
    assert numbered_length(cut) is None  # the tool's default cut, not the file's end


# pool/matugen-theme-sync__opencode-session.json, message 16 (a jq answer, trimmed)
_JQ = ('{\n  "id": "ses_01fef0af4ffeU094uhehXXAP63",\n  "title": "New session - '
       '2026-08-08T06:30:35.531Z",\n  "message_count": 15,\n  "roles": [\n    "user",\n'
       '    "assistant"\n  ]\n}\n')


def test_a_json_answer_of_a_search_gives_its_counted_fields() -> None:
    cmd = "jq '{id: .info.id, message_count: (.messages | length)}' session.json"
    got = call_measurements("bash", "search", {"command": cmd}, _JQ, {})
    assert got == [{"value": 15.0, "unit": "", "label": "message_count"}]
    # a manifest's version, port and timeout are no readings
    manifest = '{"name": "x", "version": "1.2.3", "port": 8080, "timeout": 30}'
    assert not call_measurements("bash", "search", {"command": "cat package.json"},
                                 manifest, {})
    # nor is a search's listing that is no JSON
    assert not call_measurements("bash", "search", {"command": "rg -n count src"},
                                 'src/a.py:12:    "count": 15,\n', {})


def test_an_amount_reader_is_linear_on_a_long_run_of_thousands() -> None:
    # "1,000,000,…" with a currency code elsewhere and none after the run: every comma
    # must not start a new scan of the run to its end (quadratic before)
    from tests.timing import best_cpu

    def cost(n: int) -> float:
        text = "USD 1" + ",000" * n + "x"
        return best_cpu(lambda: measurement_tuples(text), runs=2)[0]
    small, large = cost(2000), cost(8000)
    assert large < max(0.05, small * 8)


@pytest.mark.parametrize("text", [
    # Node's fs.Stats as JSON (`node -e 'console.log(JSON.stringify(fs.statSync(f)))'`):
    # its *Ms keys are moments, epoch milliseconds
    '{"size":120,"atimeMs":1712345678000.5,"mtimeMs":1712345678901.123}',
    '{"timeMs": 1712345678901}',
    '{"elapsed_seconds": 1712345678}',
    '{"y_ms": 123456789012345678901234567890}',   # no run lasts 10^18 years
])
def test_a_unit_named_key_holding_an_epoch_is_no_reading(text: str) -> None:
    assert not {u for _, u in _got(text)} & {"ms", "s", "µs", "ns"}


@pytest.mark.parametrize(("text", "want"), [
    # pool/blockchain-dex-events__claude-session.jsonl:271: the dollars are the USDC's
    ("  USDC out:  3184.355095 USDC ($3184.36)", {(3184.355095, "USDC", "USDC out"),
                                                  (3184.36, "USD", "USDC out")}),
    ("Balance: 12.5 USDC, 0.3 SOL", {(12.5, "USDC", "Balance"), (0.3, "SOL", "Balance")}),
])
def test_an_amount_after_another_is_labelled_by_their_subject(
        text: str, want: set[tuple[float, str, str]]) -> None:
    # never "USDC out: 3184.355095 USDC": the amount before it is no name of it
    assert set(measurement_tuples(text)) == want


# `rg --json` (ripgrep 14's JSON lines, trimmed): its stats count the search's hits
_RG_JSON = (
    '{"type":"begin","data":{"path":{"text":"src/a.py"}}}\n'
    '{"type":"match","data":{"path":{"text":"src/a.py"},"lines":{"text":"x = 1\\n"},'
    '"line_number":12,"absolute_offset":340,"submatches":[]}}\n'
    '{"data":{"elapsed_total":{"human":"0.004218s","nanos":4218062,"secs":0},"stats":'
    '{"bytes_printed":250,"bytes_searched":1200,"matched_lines":1,"matches":1,'
    '"searches":1,"searches_with_match":1}},"type":"summary"}\n')


@pytest.mark.parametrize(("cmd", "output"), [
    ("rg --json -e 'x = ' src", _RG_JSON),
    # a grep's hits in JSON lines are lines of files, not an answer
    ("grep -h count data/events.jsonl", '{"event": "sync", "count": 5}\n'
                                        '{"event": "push", "count": 7}\n'),
])
def test_a_grep_printing_json_gives_no_count(cmd: str, output: str) -> None:
    assert not call_measurements("bash", "search", {"command": cmd}, output, {})


@pytest.mark.parametrize("bad", [5, "abc", [{"value": "x", "unit": 5}],
                                 [{"value": 1e400, "unit": "ms", "label": "a"}], [None]])
@pytest.mark.parametrize("typ", ["retry", "stat"])
def test_a_part_carrying_odd_readings_derives_without_them(typ: str, bad: Any) -> None:
    # an opencode export's retry part is handed on as the file has it: a "measurements"
    # field of any shape must not stop the session's derivation
    from logparse.source import RawMessage
    msgs = [RawMessage({"id": "m1", "role": "user", "time": {"created": 1}},
                       [{"type": "text", "id": "p1", "text": "hi"}], b"{}"),
            RawMessage({"id": "m2", "role": "assistant", "time": {"created": 2}},
                       [{"type": typ, "id": "p2", "attempt": 1, "error": {}, "text": "t",
                         "measurements": bad, "time": {"created": 2}}], b"{}")]
    batch, _ = derive_session("s", "src", msgs)
    assert not [m for e in to_events("s", batch) for m in e.measurements]
