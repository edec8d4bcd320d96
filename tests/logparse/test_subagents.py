"""Delegations to sub-agents (``subagent_failed``, :mod:`logparse.structural`): the rows of
the rule table fire on their examples, and each agent's trimmed lines, read by the real
reader into a real knowledge base, give the signal from the sub-agent's own structure
(``fixtures/structural/make_subagents.py`` says what is real in them)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.graph.store import CallRow, load_rows
from kb.ingest import ingest
from kb.store import KbStore
from logparse.structural import (
    RULES,
    SIGNALS,
    CallFacts,
    Rule,
    call_signals,
    notified_failure,
    subagent_failure,
    task_notification_failure,
)

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "structural"
ROWS = [r for r in RULES if r.signal == "subagent_failed"]


def _calls(tmp_path: Path, name: str) -> list[CallRow]:
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [FIXTURES / name])
        sids = [r[0] for r in store.conn.execute("SELECT session_id FROM sessions").fetchall()]
        calls, _, _ = load_rows(store, sids)
    return calls


def test_the_signal_is_in_the_vocabulary_and_every_agent_has_a_row() -> None:
    assert "subagent_failed" in SIGNALS
    assert {a for r in ROWS for a in r.agents} == {
        "claude-code", "opencode", "codex", "gemini-cli", "antigravity"}


@pytest.mark.parametrize("rule", ROWS, ids=[r.name for r in ROWS])
def test_every_subagent_row_fires_on_its_example(rule: Rule) -> None:
    assert rule.test(rule.example), rule.name
    assert "subagent_failed" in call_signals(rule.example)
    # a row without a real line says so, and says where its shape comes from
    assert rule.source.startswith(("(no real line yet)", "fixtures/structural/subagents_",
                                   "fixtures/claude_record/recorded/"))
    assert subagent_failure(rule.example)


def test_a_delegation_that_worked_has_no_signal() -> None:
    # pool blockchain-dex-events L412: the review sub-agent's report, status completed
    done = CallFacts("claude-code", "task", "completed", output=(
        "Confirmed: tx.to = 1inch v4 router, sender of USDC/WETH swap = 1inch v4 router."),
        command="Code review of all 5 question solutions")
    assert call_signals(done) == ()
    # a report that speaks of errors is still a report (its words are no status)
    assert call_signals(CallFacts("claude-code", "task", "completed",
                                  output="Error: the RPC call failed twice")) == ()
    # a Codex wait that timed out: the sub-agent still runs
    assert call_signals(CallFacts("codex", "wait", "completed", output=(
        '{"status":{},"timed_out":true}'))) == ()


def test_claude_code_lines(tmp_path: Path) -> None:
    tasks = [c for c in _calls(tmp_path, "subagents_claude.jsonl") if c.tool == "task"]
    wrong, review, background, silent = [
        c for c in tasks if c.command and c.command.startswith("Code review")]
    # an agent type that is not there: the call errored
    assert "subagent_failed" in wrong.signals and (wrong.failure or "").startswith(
        "Agent type 'code-reviewer' not found")
    assert review.signals == ()  # the real review came back completed
    # the sidechain ends on an API error: the Task's outcome is the sub-agent's error
    errored, unanswered = [c for c in tasks if c.command and c.command.startswith("Research")]
    assert errored.status == "completed" and errored.child_session_id
    assert "subagent_failed" in errored.signals
    assert "529" in (errored.failure or "") and "ended on an error" in (errored.failure or "")
    # the transcript ends before the last Task's result
    assert set(unanswered.signals) == {"no_result", "subagent_failed"}
    # run in the background: the <task-notification> naming the call says it failed ...
    assert background.signals == ("subagent_failed",)
    assert "API Error: 500" in (background.failure or "")
    # ... and one launched in the background that never reported back has no result
    assert silent.status == "interrupted"
    assert set(silent.signals) == {"no_result", "subagent_failed"}
    assert silent.failure == "the sub-agent never reported back"


def test_a_task_notification_of_a_sub_agent_that_completed_is_no_failure() -> None:
    done = ("<task-notification>\n<task-id>b27a792</task-id>\n<status>completed</status>\n"
            "<summary>Agent \"Explore\" completed</summary>\n</task-notification>")
    assert task_notification_failure(done) == ""
    assert task_notification_failure(done.replace("completed</status>", "killed</status>")) \
        == 'Agent "Explore" completed'
    assert task_notification_failure("please review <status>failed</status>") == ""


def test_opencode_lines(tmp_path: Path) -> None:
    tasks = [c for c in _calls(tmp_path, "subagents_opencode.json") if c.tool == "task"]
    failed, running = tasks
    assert failed.status == "error" and failed.signals == ("subagent_failed",)
    assert (failed.failure or "").startswith("Subagent failed (task_id: ses_099f6fd34ffe4Odh2VDvcdvie8)")
    assert failed.child_session_id == "ses_099f6fd34ffe4Odh2VDvcdvie8"
    assert running.status == "interrupted" and "subagent_failed" in running.signals


def test_codex_lines(tmp_path: Path) -> None:
    calls = _calls(tmp_path, "subagents_codex.jsonl")
    waited, notified = [c for c in calls if c.tool == "spawn_agent"]
    wait = next(c for c in calls if c.tool == "wait")
    assert waited.signals == ()  # spawning worked; the sub-agent failed later
    assert wait.signals == ("subagent_failed",)
    assert wait.failure == "the sub-agent errored: stream disconnected before completion"
    # not waited for: the <subagent_notification> in the next user message tells
    assert notified.signals == ("subagent_failed",)
    assert notified.command == "Draft the README section on listing deadlines."
    assert notified.failure == "the sub-agent ended on an error: You've hit your usage limit."


def test_a_notification_of_a_sub_agent_that_completed_is_no_failure() -> None:
    ok = ('<subagent_notification>\n{"agent_path": "/root/worker", "status": {"completed": '
          '"Done: README updated."}}\n</subagent_notification>')
    assert notified_failure(ok) == ""
    assert notified_failure(ok.replace('{"completed": "Done: README updated."}',
                                       '"not_found"')) == "the sub-agent was not found"
    assert notified_failure("Continue with the README.") == ""


def test_a_notification_summary_costs_linear_time() -> None:
    """The summary was cut out by ``<summary>\\s*(.*?)\\s*</summary>``: a summary of
    whitespace with no closing tag in the 1,500 characters the store hands over cost
    1.7 s a notification (each lazy step ran the spaces again)."""
    from logparse.structural import task_notification_failure
    from tests.timing import best_cpu

    def cpu(n: int) -> float:
        text = "<task-notification>\n<status>failed</status>\n<summary>" + " " * n + "x"
        best, got = best_cpu(lambda: task_notification_failure(text))
        assert got == "failed"
        return best

    small, large = cpu(350), cpu(1400)
    assert large < 9 * max(small, 0.002), (small, large)
    assert task_notification_failure(
        "<task-notification>\n<status>killed</status>\n<summary>  Agent \"x\" was stopped  "
        "</summary>\n</task-notification>") == 'Agent "x" was stopped'


def test_a_task_error_block_costs_linear_time() -> None:
    """opencode's ``<task_error>`` block was cut out by ``<task_error>\\s*(.+?)\\s*
    (?:</task_error>|$)``: whitespace before a last word cost quadratic time (0.3 s at
    6,000 characters, 4 s at 24,000; the store hands over up to 3,000)."""
    from logparse.structural import CallFacts, subagent_failure
    from tests.timing import best_cpu

    def cpu(n: int) -> float:
        f = CallFacts("opencode", "task", "error",
                      error='<task id="ses_1" state="error">\n<task_error>a' + " " * n + "x")
        best, got = best_cpu(lambda: subagent_failure(f))
        assert got.startswith("a")
        return best

    small, large = cpu(1500), cpu(6000)
    assert large < 9 * max(small, 0.002), (small, large)
    assert subagent_failure(CallFacts("opencode", "task", "completed", output=(
        '<task id="ses_01" state="error">\n<task_error>\nTask failed\n</task_error>\n'
        "</task>"))) == "Task failed"
