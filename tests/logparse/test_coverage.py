"""The coverage matrix of structural signals × agents (:mod:`logparse.coverage`): every
cell is mapped by rows whose example of that agent's record gives the signal, or listed as
never written with the agent's source; and the records mapped by this matrix's rows reach
the readers' fields, per agent, on trimmed lines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench.signals_bench import render
from logparse.coverage import (
    CELLS,
    NEVER,
    NO_REAL_LINE,
    VOCABULARY,
    cell_example,
    cell_problem,
    matrix,
)
from logparse.structural import (
    AGENTS,
    API_ERROR_RULES,
    TURN_RULES,
    TURN_SIGNALS,
    MessageFacts,
    api_error_kind,
    message_signals,
)
from tests.logparse import test_claude_code as cc
from tests.logparse import test_codex as cx


def test_every_cell_is_mapped_with_an_example_or_never_written() -> None:
    m = matrix()
    assert len(m) == len(AGENTS) * len(VOCABULARY)
    gaps = [k for k, v in m.items() if v == "GAP"]
    assert gaps == [], gaps


@pytest.mark.parametrize("cell", CELLS, ids=[f"{c.agent}:{c.signal}" for c in CELLS])
def test_every_mapped_cell_reads_its_agents_record(cell) -> None:  # type: ignore[no-untyped-def]
    assert cell.agent in AGENTS and cell.signal in VOCABULARY and cell.rules and cell.record
    assert cell_problem(cell) is None, cell_problem(cell)
    _, source = cell_example(cell)
    assert source, "every example names where it comes from"


def test_cells_and_never_rows_do_not_overlap_and_never_rows_cite_a_source() -> None:
    cells = [(c.agent, c.signal) for c in CELLS]
    never = [(n.agent, n.signal) for n in NEVER]
    assert len(cells) == len(set(cells)) and len(never) == len(set(never))
    assert not set(cells) & set(never)
    for n in NEVER:
        assert n.agent in AGENTS and n.signal in VOCABULARY
        assert n.why and n.source and not n.source.startswith(NO_REAL_LINE)


def test_the_bench_prints_the_matrix_in_80_columns() -> None:
    text = render()
    assert all(len(ln) <= 80 for ln in text.splitlines())
    assert "gaps: 0" in text
    assert all(s in text for s in VOCABULARY)


@pytest.mark.parametrize("rule", TURN_RULES, ids=[r.name for r in TURN_RULES])
def test_every_turn_rule_fires_on_its_example(rule) -> None:  # type: ignore[no-untyped-def]
    assert rule.signal in TURN_SIGNALS and rule.source
    assert rule.example.agent in rule.agents
    assert rule.test(rule.example)
    assert rule.signal in message_signals(rule.example)


@pytest.mark.parametrize("row", API_ERROR_RULES, ids=[r.name for r in API_ERROR_RULES])
def test_every_api_error_kind_reads_its_example(row) -> None:  # type: ignore[no-untyped-def]
    assert api_error_kind(row.example) == row.kind


def test_the_same_ending_is_the_same_signal_whatever_the_agent() -> None:
    # an opencode reply cut at the limit and Claude Code's max_tokens (read as length)
    assert message_signals(MessageFacts("assistant", error="MessageOutputLengthError")) == \
        message_signals(MessageFacts("assistant", finish="length")) == ("truncated",)
    # a Codex turn_aborted and opencode's aborted message
    assert message_signals(MessageFacts(
        "assistant", error="MessageAbortedError: turn aborted: interrupted")) == \
        message_signals(MessageFacts("assistant", error="MessageAbortedError: Aborted")) == \
        ("aborted_turn",)
    # a call Antigravity could not parse is no provider error
    assert message_signals(MessageFacts(
        "assistant", error="ToolCallError: There was a problem parsing the tool call.")) == \
        ("input_invalid",)
    assert api_error_kind("APIError: stream disconnected before completion") == "overload"
    assert api_error_kind("APIError: something odd") == "other"


# ------------------------------------------------------------------ readers, per agent
def test_claude_code_max_tokens_is_a_reply_cut_at_the_limit(tmp_path: Path) -> None:
    rec = cc.line("assistant", [{"type": "text", "text": "Here is the full list:\n1."}])
    rec["message"]["stop_reason"] = "max_tokens"
    f = cc.transcript(tmp_path, [cc.line("user", "list every file"), rec])
    sessions, problems = cc.read(f)
    batch, probs, _ = sessions[cc.SID]
    assert problems == [] and probs == []
    assert batch.messages[1][cc.M["finish"]] == "length"


def test_codex_error_event_is_the_failed_reply(tmp_path: Path) -> None:
    f = cx.rollout(tmp_path, [
        cx.meta(), cx.user("deploy it"),
        {"timestamp": "2025-10-01T10:00:03Z", "type": "event_msg",
         "payload": {"type": "error", "message": "You've hit your usage limit. Try again "
                     "later.", "codex_error_info": "usage_limit_exceeded"}}])
    ((_, batch, probs),), _ = cx.read(f)
    assert probs == []
    failed = batch.messages[-1]
    assert failed[2] == "assistant" and failed[8] == "APIError"
    text = next(r for r in batch.other if r[0] == failed[1])
    assert api_error_kind(json.dumps(text, default=str)) == "quota"


def test_codex_patch_apply_end_false_fails_the_edit(tmp_path: Path) -> None:
    # soulpass__codex-session.jsonl L115-118's shape, the patch_apply_end failed
    patch = "*** Begin Patch\n*** Update File: src/app.ts\n@@\n-a\n+b\n*** End Patch"
    f = cx.rollout(tmp_path, [
        cx.meta(), cx.user("fix it"),
        cx.item({"type": "custom_tool_call", "name": "apply_patch", "call_id": "c1",
                 "input": patch, "status": "completed"}),
        {"timestamp": "2025-10-01T10:00:02Z", "type": "event_msg",
         "payload": {"type": "patch_apply_end", "call_id": "c1", "success": False,
                     "stdout": "", "stderr": "Failed to write file src/app.ts: Permission "
                     "denied (os error 13)"}},
        cx.item({"type": "custom_tool_call_output", "call_id": "c1",
                 "output": json.dumps({"output": "", "metadata": {"exit_code": 0,
                                                                 "duration_seconds": 0.0}})})])
    ((_, batch, probs),), _ = cx.read(f)
    assert probs == []
    call = cx._calls(batch)["c1"]
    assert call["status"] == "error"


FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "structural"


def _rows(tmp_path: Path, name: str):  # type: ignore[no-untyped-def]
    from kb.graph.store import load_rows
    from kb.ingest import ingest
    from kb.store import KbStore

    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [FIXTURES / name])
        sids = [r[0] for r in store.conn.execute("SELECT session_id FROM sessions").fetchall()]
        return load_rows(store, sids)


def test_opencode_cut_runs_reach_the_rules(tmp_path: Path) -> None:
    # fixtures/structural/make_cut_calls.py: uicomponents__session-wordpress.json
    calls, _, messages = _rows(tmp_path, "opencode_cut.json")
    sigs = [c.signals for c in calls]
    assert sum("timed_out" in s for s in sigs) == 3  # one of them cut as well
    assert sum("truncated" in s for s in sigs) == 1
    assert sum("interrupted" in s for s in sigs) == 1
    aborted = [m for m in messages if m.error and m.error.startswith("MessageAbortedError")]
    assert aborted and all(message_signals(MessageFacts(m.role, m.finish, m.error))
                           == ("aborted_turn",) for m in aborted)


def test_pi_cut_output_reaches_the_rules(tmp_path: Path) -> None:
    # fixtures/structural/make_cut_calls.py: civ6.ch__session.jsonl lines 1-8
    calls, _, _ = _rows(tmp_path, "pi_cut.jsonl")
    assert any("truncated" in c.signals for c in calls), [c.signals for c in calls]


def test_saved_output_names_the_file_the_whole_output_went_to() -> None:
    from logparse.structural import saved_output

    assert saved_output("<persisted-output>\nOutput too large (34.2KB). Full output saved to: "
                        "/Users/f/.claude/projects/a32c/tool-results/biuphzf91.txt\n\n"
                        "Preview (first 2KB):\n") == \
        "/Users/f/.claude/projects/a32c/tool-results/biuphzf91.txt"
    assert saved_output("...output truncated...\n\nFull output saved to: C:\\Users\\s\\tool_f6"
                        "\n\nStarting") == "C:/Users/s/tool_f6"
    assert saved_output("x\n\n[Showing lines 12794-13366 of 13366 (50.0KB limit). Full output: "
                        "/tmp/pi-bash-21c6.log]") == "/tmp/pi-bash-21c6.log"
    assert saved_output("all good") is None


def _claude_brief(tmp_path: Path, read_it: bool):  # type: ignore[no-untyped-def]
    from kb.handoff import brief
    from kb.ingest import ingest
    from kb.store import KbStore

    # pool conversacion-act1-pln__session.jsonl L28-30: a cut output, then its file read
    path = ("/Users/francobertoldi/.claude/projects/-Users-francobertoldi-Unir/a32c9b72/"
            "tool-results/biuphzf91.txt")
    cut = (f"<persisted-output>\nOutput too large (34.2KB). Full output saved to: {path}\n\n"
           "Preview (first 2KB):\n   0   1\n0  Criterio  Puntos\n...\n</persisted-output>")
    recs = [cc.line("user", "lee la rubrica"),
            cc.line("assistant", [cc.use("t1", "Bash", command="python3 -c \"import pandas as "
                                         "pd; print(pd.read_excel('Rubrica.xlsx'))\"")]),
            cc.line("user", [cc.result("t1", cut)])]
    if read_it:
        recs += [cc.line("assistant", [cc.use("t2", "Read", file_path=path)]),
                 cc.line("user", [cc.result("t2", "     1\t   0   1\n     2\t0  Criterio")])]
    recs.append(cc.line("assistant", [{"type": "text", "text": "La rúbrica tiene 12 criterios."}]))
    tmp_path.mkdir()
    f = cc.transcript(tmp_path, recs)
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [f])
        sid = store.conn.execute("SELECT session_id FROM sessions").fetchone()[0]
        return brief(store, sid)


def test_a_cut_output_whose_file_was_read_is_answered(tmp_path: Path) -> None:
    left = _claude_brief(tmp_path / "left", read_it=False)
    assert [q["reason"] for q in left["open"]["untested"]] == [
        "the tool cut the output: the agent saw only part of the answer"]
    read = _claude_brief(tmp_path / "read", read_it=True)
    assert read["open"]["untested"] == []


def test_a_codex_mcp_start_up_error_is_no_failed_reply(tmp_path: Path) -> None:
    # codex-rs sends EventMsg::Error "MCP client for `x` failed to start" outside a turn
    f = cx.rollout(tmp_path, [
        cx.meta(), cx.user("hi"),
        {"timestamp": "2025-10-01T10:00:02Z", "type": "event_msg",
         "payload": {"type": "error", "message": "MCP client for `superteam` failed to "
                     "start: request timed out"}},
        cx.say("hello")])
    ((_, batch, probs),), _ = cx.read(f)
    assert probs == [] and [m[8] for m in batch.messages] == [None, None]


def test_escalation_requests_of_codex_and_claude_code_reach_the_rules(tmp_path: Path) -> None:
    from kb.graph.store import load_rows
    from kb.ingest import ingest
    from kb.store import KbStore

    # older Codex builds: with_escalated_permissions (codex-rs shell tool arguments)
    f = cx.rollout(tmp_path, [
        cx.meta(), cx.user("run the tests"),
        cx.item({"type": "function_call", "name": "shell", "call_id": "e1", "arguments":
                 json.dumps({"command": ["bash", "-lc", "npm test"],
                             "with_escalated_permissions": True,
                             "justification": "needs network"})}),
        cx.item({"type": "function_call_output", "call_id": "e1",
                 "output": json.dumps({"output": "ok\n", "metadata": {
                     "exit_code": 0, "duration_seconds": 0.5}})})])
    # Claude Code: Bash dangerouslyDisableSandbox
    c = cc.transcript(tmp_path, [
        cc.line("user", "install it"),
        cc.line("assistant", [cc.use("d1", "Bash", command="npm install",
                                     dangerouslyDisableSandbox=True)]),
        cc.line("user", [cc.result("d1", "added 3 packages")])], name="c.jsonl")
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [f, c])
        sids = [r[0] for r in store.conn.execute("SELECT session_id FROM sessions").fetchall()]
        calls, _, _ = load_rows(store, sids)
    assert sorted((c.agent, "escalation_requested" in c.signals) for c in calls) == [
        ("claude-code", True), ("codex", True)]
