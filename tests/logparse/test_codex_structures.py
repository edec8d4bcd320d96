"""Codex structures the real pool files hold no line of (approvals denied, patches denied,
a read-only sandbox, MCP tool errors, ``<skill>`` context, plan changes), on
``fixtures/structural/codex_approvals.jsonl``: real lines of the pool and labelled rollouts
answered as codex-rs answers them (see ``fixtures/structural/README.md``).  Each is read by
the real reader into a real knowledge base and must become its structural signal, its
dead end, and no gap of ``python -m bench codex-audit``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from bench.codex_structures import Stored, check, read_rollout
from logparse.codex import REJECTED, mcp_error, parse_output

ROOT = Path(__file__).resolve().parents[2]
FIXTURE = ROOT / "fixtures" / "structural" / "codex_approvals.jsonl"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    from kb.graph import store as gs
    from kb.graph.store import load_rows
    from kb.ingest import ingest
    from kb.store import KbStore

    with KbStore(tmp_path_factory.mktemp("kb") / "kb.duckdb") as store:
        ingest(store, [FIXTURE])
        con = store.conn
        sids = [r[0] for r in con.execute("SELECT session_id FROM sessions").fetchall()]
        rows, _, _ = load_rows(store, sids)
        return {
            "prompts": con.execute("SELECT ordinal, source, text FROM prose "
                                   "WHERE kind = 'prompt' ORDER BY ordinal").fetchall(),
            "calls": {r.ordinal: r for r in rows},
            "title": (con.execute("SELECT title FROM sessions").fetchone() or ("",))[0],
            "dead": gs.dead_ends(store, gs.ensure_built(store, sids[0], False)),
        }


def test_injected_skill_is_no_prompt(kb: dict[str, Any]) -> None:
    sources = [(o, s) for o, s, _ in kb["prompts"]]
    assert sources == [(1, "synthetic"), (2, "synthetic"), (3, "text")]
    assert kb["title"].startswith("Set up ZenMux")  # not "<skill>"


def test_denied_approval_is_a_rejection(kb: dict[str, Any]) -> None:
    run = kb["calls"][7]
    assert run.tool == "bash" and run.status == "error"
    assert {"rejected_by_user", "escalation_requested"} <= set(run.signals)
    patch = kb["calls"][11]
    assert patch.tool == "apply_patch" and "rejected_by_user" in patch.signals


def test_read_only_sandbox_is_a_denial(kb: dict[str, Any]) -> None:
    assert {"exit_code", "sandbox_denied"} <= set(kb["calls"][13].signals)


def test_mcp_error_from_its_end_event(kb: dict[str, Any]) -> None:
    mcp = kb["calls"][15]
    assert mcp.tool == "superteam__get_listing" and mcp.status == "error"
    assert "tool_error" in mcp.signals


def test_plan_steps_dropped_without_a_request_are_dead_ends(kb: dict[str, Any]) -> None:
    plans = [r for r in kb["calls"].values() if r.todos is not None]
    assert [len(p.todos or ()) for p in plans] == [3, 2]
    dropped = [d for d in kb["dead"] if "dropped from the plan" in (d.get("cause") or "")]
    assert {d["name"] for d in dropped} >= {
        "Start the Civitas-Sol dev server on localhost:3000"}
    rejected = [d for d in kb["dead"] if "rejected" in (d.get("cause") or "")]
    assert rejected  # the denied patch


def test_the_structure_audit_finds_no_gap(kb: dict[str, Any], tmp_path: Path) -> None:
    from bench.codex_structures import read_stored
    from kb.ingest import ingest
    from kb.store import KbStore

    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [FIXTURE])
    s = read_stored(db)
    s.deadend_ordinals = {e["ordinal"] for d in kb["dead"] for e in d["evidence"]}
    s.open_ordinals = {7, 11, 15, 16}
    kinds = {g["kind"] for g in check(read_rollout(FIXTURE), s)}
    # the read-only cargo test, tried once and left, is the one candidate to judge
    assert kinds <= {"failing-end-unreported"}


def test_the_audit_names_what_logkb_would_miss() -> None:
    r = read_rollout(FIXTURE)
    s = Stored(prompts={1: ("synthetic", "<environment_context>"), 2: ("text", "<skill>"),
                        3: ("text", "Set up ZenMux")},
               signals={7: ("exit_code",), 11: (), 13: ("exit_code",), 15: ()},
               calls=[], aborted=set(), compactions=0, deadend_ordinals=set(),
               open_ordinals=set())
    kinds = [g["kind"] for g in check(r, s)]
    assert "injected-as-prompt" in kinds and "prompt-duplicated" in kinds
    assert kinds.count("signal-missed") >= 4  # two denials, the sandbox, the escalation
    assert "mcp-error-missed" in kinds and "plan-missing" in kinds


@pytest.mark.parametrize("text", [
    "exec command rejected by user", "patch rejected by user",
    "user rejected MCP tool call",
    "This action was rejected due to unacceptable risk. Reason: deletes the home folder",
    "approval policy is never; reject command — you should not ask for escalated "
    "permissions if the approval policy is never"])
def test_codex_refusals_are_failed_calls(text: str) -> None:
    assert REJECTED.match(text)
    state = parse_output("bash", text)
    assert state["status"] == "error" and state["error"] == text


def test_a_run_printing_the_words_is_no_refusal() -> None:
    out = "Exit code: 0\nWall time: 0.1 seconds\nOutput:\nexec command rejected by user\n"
    assert parse_output("bash", out)["status"] == "completed"


def test_mcp_error_shapes() -> None:
    assert mcp_error({"result": {"Err": "timed out"}}) == "timed out"
    assert mcp_error({"result": {"Ok": {"content": [{"type": "text", "text": "no such repo"}],
                                        "isError": True}}}) == "no such repo"
    assert mcp_error({"result": {"Ok": {"content": [], "isError": False}}}) is None


def test_an_mcp_call_written_only_as_its_end_event(tmp_path: Path) -> None:
    """A rollout whose MCP call is only an ``mcp_tool_call_end`` event (no function call
    item) still gets the call, failed."""
    from kb.ingest import ingest
    from kb.store import KbStore

    lines = FIXTURE.read_text().splitlines()
    keep = [x for x in lines if '"call_mcp1"' not in x or "mcp_tool_call_end" in x]
    src = tmp_path / "mcp_only.jsonl"
    src.write_text("\n".join(keep) + "\n")
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [src])
        got = store.conn.execute("SELECT tool, status, error FROM calls "
                                 "WHERE tool LIKE 'superteam%'").fetchall()
    assert got == [("superteam__get_listing", "error",
                    "tool call failed for `superteam/get_listing`: request timed out")]


def test_the_census_counts_each_failure_structure_and_its_fate(
        kb: dict[str, Any], tmp_path: Path) -> None:
    """``python -m bench codex-audit --census`` (the BENCHMARKS table of Codex failure
    structures): per structure, how many the rollout holds, how many carry their signal,
    and what became of each."""
    from bench.codex_structures import FAILURE_STRUCTURES, census
    from kb.ingest import ingest
    from kb.store import KbStore

    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [FIXTURE])
    table = census(FIXTURE, db, [{"evidence": [{"ordinal": e["ordinal"]}
                                               for e in d["evidence"]]} for d in kb["dead"]],
                   [{"ordinal": o} for o in (7, 11, 15, 16)])
    assert set(table) == set(FAILURE_STRUCTURES)
    # the denied escalated run, the read-only cargo test: each mapped to its signal
    assert table["escalation requested"]["n"] == table["escalation requested"]["mapped"] >= 1
    assert table["sandbox denied"]["n"] == table["sandbox denied"]["mapped"] == 1
    assert table["exit code != 0"]["n"] == table["exit code != 0"]["mapped"] >= 1
    # the plan's dev-server step dropped and its curl step replaced
    assert table["plan step dropped"]["n"] == 2
    assert all(v["n"] == 0 for k, v in table.items() if k in (
        "error event", "stream_error event", "spawn_agent/wait errored", "code cell threw"))
    for v in table.values():  # every failure has one fate (an escalation that ran: none)
        fates = sum(x for k, x in v.items() if k in ("dead end", "slip", "probe", "open",
                                                     "none", "before any item"))
        assert fates <= v["n"]
