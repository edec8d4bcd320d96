"""Real Codex 0.171.0 rollouts recorded on loopback (``fixtures/codex_record``): the real
CLI ran the commands, patches and code cells a scripted model asked for.  Each structure
Codex writes today is read by the real reader into a real knowledge base and becomes
the signals the agent's own fields say; nothing is counted as a record of an unknown type.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from logparse.codex import CodexReader, item_end, parse_output
from logparse.models import Problem

ROOT = Path(__file__).resolve().parents[2]
RECORDED = ROOT / "fixtures" / "codex_record" / "recorded"
CLASSIC = RECORDED / "classic.jsonl"
CODEMODE = RECORDED / "codemode.jsonl"
TUI = RECORDED / "tui.jsonl"
MCP = RECORDED / "mcp.jsonl"
YIELDED = RECORDED / "yielded.jsonl"
YIELDED_ABORT = RECORDED / "yielded_abort.jsonl"
MIDCALL = {"classic": 101, "codemode": 79}
"""The mid-call copies were the first N lines of each recording (see the README)."""


def _prefix(tmp: Path, src: Path, n: int) -> Path:
    lines = src.read_bytes().splitlines(keepends=True)
    out = tmp / f"{src.stem}-midcall.jsonl"
    out.write_bytes(b"".join(lines[:n]))
    return out


def _read(path: Path) -> dict[str, Any]:
    from kb.graph.store import load_rows
    from kb.ingest import ingest
    from kb.store import KbStore

    with KbStore(path.parent / f"{path.stem}.duckdb") as store:
        ingest(store, [path])
        con = store.conn
        sids = [r[0] for r in con.execute("SELECT session_id FROM sessions").fetchall()]
        rows, _, _ = load_rows(store, sids)
        calls: dict[int, list[Any]] = {}
        for r in rows:
            calls.setdefault(r.ordinal, []).append(r)
        return {
            "calls": calls,
            "outputs": {(o, q): out for o, q, out in con.execute(
                "SELECT ordinal, seq, output FROM calls").fetchall()},
            "ran_ms": {(o, q): ms for o, q, ms in con.execute(
                "SELECT ordinal, seq, time_end - time_start FROM calls").fetchall()},
            "lines": {o: orjson.loads(raw)["lines"] for o, raw in con.execute(
                "SELECT ordinal, raw FROM messages").fetchall()},
            "errors": dict(con.execute("SELECT ordinal, error FROM messages "
                                       "WHERE error IS NOT NULL").fetchall()),
            "prompts": con.execute("SELECT ordinal, source, left(text, 40) FROM prose "
                                   "WHERE kind = 'prompt' ORDER BY ordinal").fetchall(),
        }


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    tmp = tmp_path_factory.mktemp("recorded")
    out = {}
    for name, src in (("classic", CLASSIC), ("codemode", CODEMODE)):
        whole = tmp / src.name
        whole.write_bytes(src.read_bytes())
        out[name] = _read(whole)
        out[f"{name}-midcall"] = _read(_prefix(tmp, src, MIDCALL[name]))
    for name, src in (("tui", TUI), ("mcp", MCP), ("yielded", YIELDED),
                      ("yielded_abort", YIELDED_ABORT)):
        (tmp / src.name).write_bytes(src.read_bytes())
        out[name] = _read(tmp / src.name)
    return out


def _one(kb: dict[str, Any], ordinal: int) -> Any:
    (row,) = kb["calls"][ordinal]
    return row


@pytest.mark.parametrize("path", [CLASSIC, CODEMODE, TUI, MCP, YIELDED, YIELDED_ABORT],
                         ids=["classic", "codemode", "tui", "mcp", "yielded", "yielded_abort"])
def test_every_record_is_understood(path: Path) -> None:
    reader = CodexReader()
    problems: list[Problem] = []
    counts = [sum(1 for _ in session.messages) for session in reader.sessions(path, problems)]
    assert len(counts) == 1 and counts[0] > 10
    assert reader.skipped == {}  # token_usage_record, thread_settings_applied,
    assert problems == []        # additional_tools, item_completed: all known


def test_command_execution_item_is_the_exec_end() -> None:
    # Codex 0.17x writes no exec_command_end: item_completed carries the run's end
    p = {"type": "item_completed", "item": {
        "type": "CommandExecution", "id": "exec-1", "command": ["/bin/bash", "-lc", "true"],
        "status": "failed", "aggregated_output": "x\n", "exit_code": 2,
        "duration": {"secs": 0, "nanos": 5}}}
    end = item_end(p)
    assert end["type"] == "exec_command_end" and end["call_id"] == "exec-1"
    assert end["exit_code"] == 2 and end["aggregated_output"] == "x\n"
    assert item_end({"type": "item_completed", "item": {"type": "AgentMessage"}})["type"] \
        == "item_completed"


def test_classic_update_plan_is_a_todo_list(kb: dict[str, dict[str, Any]]) -> None:
    c = kb["classic"]
    first, last = _one(c, 5), _one(c, 15)
    assert first.tool == last.tool == "todowrite"
    assert first.todos == (("Run the test", "in_progress"), ("Fix add", "pending"),
                           ("Re-run the test", "pending"))
    assert {st for _, st in last.todos} == {"completed"}


def test_classic_failing_test_then_fix(kb: dict[str, dict[str, Any]]) -> None:
    c = kb["classic"]
    first, patch, again = _one(c, 8), _one(c, 11), _one(c, 13)
    assert (first.command, first.exit_code, first.signals) == (
        "python3 test_calc.py", 1, ("exit_code",))
    assert first.failure is None and "AssertionError" in first.signatures[0]
    assert (patch.tool, patch.status, patch.signals) == ("apply_patch", "completed", ())
    assert (again.exit_code, again.signals) == (0, ())
    ls = _one(c, 18)
    assert (ls.exit_code, ls.signals) == (2, ("exit_code",))
    bad_patch = _one(c, 21)
    assert (bad_patch.status, bad_patch.signals) == ("error", ("tool_error",))


def test_classic_sandbox_denial_escalation_and_no_network(
        kb: dict[str, dict[str, Any]]) -> None:
    c = kb["classic"]
    denied, escalated, curl = _one(c, 26), _one(c, 29), _one(c, 32)
    assert set(denied.signals) == {"exit_code", "sandbox_denied"}
    assert "Read-only file system" in (denied.failure or "")
    # `codex exec` runs with approval never: the escalation is refused by the policy
    assert escalated.status == "error"
    assert set(escalated.signals) == {"tool_error", "escalation_requested"}
    assert set(curl.signals) == {"exit_code", "sandbox_denied"} and curl.exit_code == 7


def test_classic_aborted_turn(kb: dict[str, dict[str, Any]]) -> None:
    c = kb["classic"]
    run, poll = _one(c, 37), _one(c, 40)
    # the run the poll waited on was terminated with the turn: stopped by the user, its
    # output so far kept (not a run that completed)
    assert run.command.startswith("echo bench start") and run.exit_code is None
    assert (run.status, run.signals) == ("aborted", ("interrupted",))
    assert run.output_tail == "bench start\n"
    assert (poll.tool, poll.status, poll.signals) == ("write_stdin", "aborted",
                                                      ("interrupted",))
    # L106, after turn_aborted: the killed run's CommandExecution (exit -1, 7.97 s) is its
    # end: it joins the run's message and says how long the run went (not the 1 s the
    # call waited before it returned); -1 is Codex's kill, no exit of the command
    assert 106 in c["lines"][37]
    assert c["ran_ms"][(37, run.seq)] == 7965
    synthetic = [t for _, s, t in c["prompts"] if s == "synthetic"]
    assert any(t.startswith("<turn_aborted>") for t in synthetic)
    assert not any(t.startswith("<turn_aborted>") for _, s, t in c["prompts"] if s == "text")


def test_codemode_cell_commands_take_their_command_execution(
        kb: dict[str, dict[str, Any]]) -> None:
    m = kb["codemode"]
    (first,) = m["calls"][5]
    assert (first.command, first.exit_code, first.signals) == (
        "python3 test_calc.py", 1, ("exit_code",))
    # the output is the run's, not the cell's JSON of it (no chunk_id, no token count)
    assert [(v, u) for v, u, *_ in first.measurements] == [(1.0, "exit code")]
    patch, test, ls = m["calls"][8]
    assert patch.tool == "apply_patch" and patch.status == "completed"
    # its answer is the FileChange item the cell's patch completed with
    assert m["outputs"][(8, patch.seq)].startswith("Success. Updated the following files:")
    assert (test.command, test.exit_code, test.signals) == ("python3 test_calc.py", 0, ())
    assert (ls.command, ls.exit_code, ls.signals) == ("ls fixtures_dir", 2, ("exit_code",))


def test_codemode_denial_escalation_and_thrown_cell(kb: dict[str, dict[str, Any]]) -> None:
    m = kb["codemode"]
    assert set(_one(m, 13).signals) == {"exit_code", "sandbox_denied"}
    escalated = _one(m, 16)
    # "Script failed ... Script error:\napproval policy is Never; reject command"
    assert escalated.status == "error" and escalated.exit_code is None
    assert set(escalated.signals) == {"tool_error", "escalation_requested"}
    threw = _one(m, 19)  # the command worked, the script threw after it
    assert (threw.command, threw.exit_code, threw.signals) == ("true", 0, ())


def test_codemode_yielded_cell_and_aborted_wait(kb: dict[str, dict[str, Any]]) -> None:
    m = kb["codemode"]
    running = _one(m, 24)
    assert running.command.startswith("echo bench start")
    # the cell yielded (``Script running with cell ID 1``); the wait on it was aborted by
    # the user, and L84, after turn_aborted, is its command's CommandExecution
    # (``exec-<uuid>``, exit -1): the command was stopped, not left running
    assert (running.status, running.signals) == ("aborted", ("interrupted",))
    assert running.exit_code is None and running.output_tail == "bench start\n"
    assert 84 in m["lines"][24] and m["ran_ms"][(24, running.seq)] == 8176
    wait = _one(m, 27)
    assert (wait.tool, wait.status, wait.signals) == ("wait", "aborted", ("interrupted",))
    # the wait polls the cell's run (as write_stdin polls a process): the user's stop is
    # counted once, on the run
    assert wait.poll and not running.poll
    assert m["errors"].get(27) == "MessageAbortedError"


def test_codemode_cell_whose_patches_fail(kb: dict[str, dict[str, Any]]) -> None:
    # one patch's failure caught and printed, the next refused by the approval settings:
    # "Script failed", the text() output, then "Script error:\npatch rejected: ..."
    first, second = kb["codemode"]["calls"][35]
    assert first.tool == second.tool == "apply_patch"
    assert first.status == second.status == "error"
    assert first.signals == second.signals == ("tool_error",)
    assert second.error.startswith("patch rejected: writing outside of the project")


@pytest.mark.parametrize(("name", "ordinal", "tool"),
                         [("classic-midcall", 39, "write_stdin"),
                          ("codemode-midcall", 26, "wait")])
def test_call_copied_mid_call_has_no_result(kb: dict[str, dict[str, Any]], name: str,
                                            ordinal: int, tool: str) -> None:
    call = _one(kb[name], ordinal)
    assert (call.tool, call.status, call.signals) == (tool, "interrupted", ("no_result",))


def test_cell_output_heads() -> None:
    ok = parse_output("exec", [{"type": "input_text", "text":
                                "Script completed\nWall time 0.5 seconds\nOutput:\n"},
                               {"type": "input_text", "text": "1 passed"}])
    assert ok["status"] == "completed" and ok["metadata"]["cellState"] == "completed"
    assert ok["metadata"]["reported"] == []
    failed = parse_output("exec", [
        {"type": "input_text", "text": "Script failed\nWall time 0.0 seconds\nOutput:\n"},
        {"type": "input_text", "text": "Script error:\napproval policy is Never; reject "
                                       "command"}])
    assert failed["status"] == "error"
    assert failed["error"].startswith("approval policy is Never; reject command")
    said = parse_output("exec", [
        {"type": "input_text", "text": "Script failed\nWall time 0.0 seconds\nOutput:\n"},
        {"type": "input_text", "text": "caught: apply_patch verification failed"},
        {"type": "input_text", "text": "Script error:\npatch rejected: writing outside"}])
    assert said["error"] == "patch rejected: writing outside"
    assert said["output"] == "caught: apply_patch verification failed"
    running = parse_output("exec", "Script running with cell ID 1\nWall time 1.5 seconds\n"
                                   "Output:\n")
    assert running["metadata"]["cellState"] == "running"
    assert running["metadata"]["cellId"] == "1"


def test_tui_plan_in_a_cell_is_a_todo_list(kb: dict[str, dict[str, Any]]) -> None:
    plan = _one(kb["tui"], 5)  # tools.update_plan({...}) inside an exec cell
    assert plan.tool == "todowrite"
    assert plan.todos == (("Write the note", "in_progress"), ("Check it", "pending"))


def test_tui_approvals_declined_by_esc_and_granted(kb: dict[str, dict[str, Any]]) -> None:
    t = kb["tui"]
    # the TUI's "No, and tell Codex what to do differently (esc)" ends the turn: Codex
    # answers the call "aborted by user after Ns" and writes turn_aborted
    declined = _one(t, 8)
    assert declined.status == "aborted"
    assert set(declined.signals) == {"interrupted", "escalation_requested"}
    granted = _one(t, 12)
    assert (granted.status, granted.exit_code) == ("completed", 0)
    assert granted.signals == ("escalation_requested",)
    patch = _one(t, 15)  # a patch outside the workspace, its approval declined
    assert (patch.tool, patch.status, patch.signals) == ("apply_patch", "aborted",
                                                         ("interrupted",))
    assert {o for o, e in t["errors"].items() if e == "MessageAbortedError"} == {8, 15, 19}
    # the <turn_aborted> note is a developer message in 0.171: never a prompt
    assert [s for _, s, _ in t["prompts"]] == ["synthetic", "text", "text", "text", "text"]


def test_mcp_tools_called_from_cells(kb: dict[str, dict[str, Any]]) -> None:
    m = kb["mcp"]
    ok, missing = _one(m, 5), _one(m, 8)
    assert (ok.tool, ok.status, ok.signals) == ("mcp__notes__lookup", "completed", ())
    assert m["outputs"][(5, ok.seq)] == "add(a, b) returns a + b"  # not the cell's JSON
    # McpToolCall status failed, result isError: the tool's own error
    assert (missing.status, missing.signals) == ("error", ("tool_error",))
    assert missing.error == "no note named 'nope'"
    guarded, after = m["calls"][11]  # one cell: a refused MCP call, then a command
    assert (guarded.tool, guarded.status, guarded.signals) == (
        "mcp__guarded__lookup", "error", ("tool_error",))
    assert guarded.error == "MCP tool call requires approval, but approval policy is never"
    assert (after.command, after.exit_code) == ("echo after", 0)


def test_yielded_cells_take_their_commands_ends(kb: dict[str, dict[str, Any]]) -> None:
    # yielded.jsonl: each cell returns ``Script running with cell ID 1`` after 1 s; the
    # command's CommandExecution (``exec-<uuid>``, L24 and L47) comes before the ``wait``
    # that reads ``Script completed``: the command ended, with its exit code and output
    y = kb["yielded"]
    bench, check = _one(y, 5), _one(y, 13)
    assert (bench.status, bench.exit_code, bench.signals) == ("completed", 0, ())
    assert "bench done: 12.5 ops/s" in (bench.output_tail or "")
    assert 24 in y["lines"][5] and y["ran_ms"][(5, bench.seq)] == 3936
    assert (check.status, check.exit_code) == ("completed", 3)
    assert set(check.signals) == {"exit_code"}
    assert "check failed: 2 mismatches" in (check.output_tail or "")
    assert 47 in y["lines"][13]
    assert all(_one(y, o).tool == "wait" and _one(y, o).poll for o in (8, 16))


def test_a_turn_aborted_under_two_cells(kb: dict[str, dict[str, Any]]) -> None:
    # yielded_abort.jsonl: a cell yields (the server, ``sleep 60``), a second cell runs the
    # load test, the user interrupts: the second cell is answered ``aborted by user after
    # 3.6s``, then turn_aborted (L27) and each run's CommandExecution (L28, L29, exit -1)
    a = kb["yielded_abort"]
    server, load = _one(a, 5), _one(a, 8)
    assert (server.status, server.exit_code, server.output_tail) == ("aborted", None,
                                                                     "server up\n")
    assert 28 in a["lines"][5] and a["ran_ms"][(5, server.seq)] == 4563
    assert (load.status, load.exit_code, load.output_tail) == ("aborted", None,
                                                               "load start\n")
    assert load.error == "aborted by user after 3.6s"
    assert 29 in a["lines"][8] and 29 not in a["lines"][5]
