"""Delegations to sub-agents as steps (kb.graph.delegated, kb.graph.extract): a sub-agent
that failed and was not redone is a dead end whose cause is its own error; one redone at
once is a slip; one with no answer at export is an open question."""

from __future__ import annotations

from pathlib import Path

import kb.graph.store as gs
from kb.graph.delegated import delegated_episodes
from kb.graph.episodes import Step, episodes
from kb.graph.extract import Extraction
from kb.ingest import ingest
from kb.store import KbStore

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "structural"


def _task(o: int, desc: str, failed: bool, sig: str | None = None, rejected: bool = False,
          interrupted: bool = False) -> Step:
    return Step("s", o, f"task {desc}", False, True, failed, sig, rejected, command=desc,
                tool="task", failure=sig or "", interrupted=interrupted)


def test_a_failed_sub_agent_not_redone_is_a_dead_end_with_its_error() -> None:
    sig = "Subagent failed (task_id: ses_1): Rate limit exceeded, please retry later"
    steps = [_task(2, "Explore React source structure", True, sig),
             Step("s", 3, "bash npm", False, True, False, None, command="npm ls", tool="bash")]
    (f,) = delegated_episodes(steps)
    assert f.how == "subagent-failed" and f.cause_text == sig
    assert f.first == 2 and "Explore React source structure" in f.name
    # told once among every rule's episodes
    assert [x.how for x in episodes(steps, [], more=delegated_episodes(steps))
            if x.first == 2] == ["subagent-failed"]


def test_a_result_the_agent_reads_as_failed_is_a_failed_delegation_with_that_cause() -> None:
    """A sub-agent that answered cleanly, then the agent's reply reads its result as not
    having worked (kb.graph.extract's judgement, as of any run): the delegation failed,
    and the agent's reading is its cause, not a bare "the sub-agent failed"."""
    said = "The sub-agent's fix didn't work: the build still fails the same way."
    steps = [_task(2, "Fix the build", False)._replace(failed=True, judged=said),
             Step("s", 3, "bash npm", False, True, False, None, command="npm ls", tool="bash")]
    (f,) = delegated_episodes(steps)
    assert f.how == "subagent-failed" and f.cause_text == said
    assert (2, "tested", said) in f.evidence


def test_a_sub_agent_redone_at_once_is_a_slip() -> None:
    steps = [_task(4, "Code review", True, "Agent type 'code-reviewer' not found."),
             _task(5, "Code review", False)]
    assert delegated_episodes(steps) == []


def test_a_sub_agent_that_never_answered_is_no_dead_end() -> None:
    steps = [_task(7, "Research", True, "the tool call was still running: the sub-agent "
                   "never reported back")]
    assert delegated_episodes(steps) == []


def test_failures_in_a_row_are_one_dead_end() -> None:
    steps = [_task(2, "Research", True, "API Error: 529 Overloaded"),
             _task(3, "Research", True, "API Error: 529 Overloaded"),
             _task(20, "Other", False)]
    (f,) = delegated_episodes(steps)
    assert f.ordinals() == {2, 3, 4}


def test_the_user_refusing_a_delegation_is_told_elsewhere() -> None:
    steps = [_task(2, "Research", True, "rejected", rejected=True),
             _task(3, "Research", True, "stopped", interrupted=True)]
    assert delegated_episodes(steps) == []


def _extraction(tmp_path: Path, name: str) -> Extraction:
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [FIXTURES / name])
        sid = next(r[0] for r in store.conn.execute(
            "SELECT session_id FROM sessions WHERE parent_id IS NULL").fetchall())
        return gs.extract_scope(store, gs.scope_of(store, sid))


def test_claude_code_sub_agents_end_to_end(tmp_path: Path) -> None:
    ex = _extraction(tmp_path, "subagents_claude.jsonl")
    dead = [a for a in ex.approaches if (a.via or "").endswith(":subagent-failed")]
    # the research sub-agent whose session ended on an API error, the review run in the
    # background whose notification says it failed; the wrong agent type redone at once
    # is no dead end
    research, review = dead
    assert "Research Visa crypto card partnerships" in research.name
    assert "529" in (research.cause_text or "")
    assert "Code review" in review.name and "API Error: 500" in (review.cause_text or "")
    # the notification is the agent's record, no user refuting the work
    assert not [a for a in ex.approaches if (a.via or "").startswith("refuted")]
    # the background review and the last Task never answered: questions left open
    asked = [q.question for q in ex.questions if "sub-agent never reported back" in q.reason]
    assert len(asked) == 2 and "Research Visa crypto card partnerships" in asked[-1]


def test_opencode_sub_agents_end_to_end(tmp_path: Path) -> None:
    ex = _extraction(tmp_path, "subagents_opencode.json")
    (a,) = [a for a in ex.approaches if (a.via or "").endswith(":subagent-failed")]
    assert "Explore React source structure" in a.name
    assert a.cause is not None and "Rate limit exceeded" in (a.cause_text or a.cause.label)
    (q,) = [q for q in ex.questions if "sub-agent never reported back" in q.reason]
    assert "Create hybrid React entry files" in q.question


def test_codex_sub_agents_end_to_end(tmp_path: Path) -> None:
    ex = _extraction(tmp_path, "subagents_codex.jsonl")
    # one waited for (its wait says errored), one not (its notification says errored):
    # two sub-agents, two dead ends
    waited, notified = [a for a in ex.approaches
                        if (a.via or "").endswith(":subagent-failed")]
    assert "stream disconnected" in (waited.cause_text or "")
    assert "Draft the README section" in notified.name
    assert "usage limit" in (notified.cause_text or "")


def test_a_codex_sub_agent_beside_plain_text_outputs_builds(tmp_path: Path) -> None:
    """The spawn_agent's notification lookup read every call's output as JSON (DuckDB
    evaluates a correlated subquery's expression for every row, whatever the CASE around
    it says): one shell run printing plain text beside a spawn_agent made the graph of
    the session fail ("Malformed JSON"), so no dead end of it was shown."""
    import json

    ts = "2025-10-01T10:00:01.000Z"
    recs = [{"timestamp": ts, "type": "session_meta", "payload": {
        "id": "019a0000-0000-7000-8000-0000000000d5", "timestamp": ts, "cwd": "/w",
        "cli_version": "0.46.0"}}]

    def item(payload: dict) -> None:
        recs.append({"timestamp": ts, "type": "response_item", "payload": payload})

    item({"type": "message", "role": "user",
          "content": [{"type": "input_text", "text": "Check the listings API."}]})
    item({"type": "function_call", "name": "shell", "call_id": "c1",
          "arguments": json.dumps({"command": ["bash", "-lc", "ls"], "workdir": "/w"})})
    item({"type": "function_call_output", "call_id": "c1", "output": json.dumps(
        {"output": "plain text, no JSON\n", "metadata": {"exit_code": 0}})})
    item({"type": "function_call", "name": "spawn_agent", "call_id": "c2",
          "arguments": json.dumps({"message": "Check the listings API"})})
    item({"type": "function_call_output", "call_id": "c2",
          "output": json.dumps({"agent_id": "019a3f53-0a2b"})})
    item({"type": "message", "role": "user", "content": [{"type": "input_text", "text": (
        '<subagent_notification>\n{"agent_id": "019a3f53-0a2b", "status": {"errored": '
        '"You\'ve hit your usage limit."}}\n</subagent_notification>')}]})
    item({"type": "message", "role": "assistant",
          "content": [{"type": "output_text", "text": "The sub-agent failed."}]})
    path = tmp_path / "rollout-2025-10-01T10-00-00-mixed.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in recs))
    ex = _extraction(tmp_path, str(path))
    (dead,) = [a for a in ex.approaches if (a.via or "").endswith(":subagent-failed")]
    assert "usage limit" in (dead.cause_text or ""), dead


def test_collab_agent_names_the_sub_agent_a_codex_call_concerns() -> None:
    from kb.graph.delegated import collab_agent

    child = "019f6a10-8d4f-7c52-a1b3-6f8e2d3c4b02"
    assert collab_agent("spawn_agent", '{"agent_id": "019f", "nickname": "E"}', child) == child
    assert collab_agent("spawn_agent", '{"agent_id": "019f", "nickname": "E"}', None) == "019f"
    assert collab_agent("spawn_agent", '{"task_name": "/root/lint"}', None) == "/root/lint"
    assert collab_agent("spawn_agent", "Agent depth limit reached.", None) is None
    waited = ('{"status": {"019a": {"completed": "ok"}, "019b": {"errored": "stream '
              'disconnected"}}, "timed_out": false}')
    assert collab_agent("wait", waited, None) == "019b"
    assert collab_agent("wait", '{"status": {"019a": "not_found"}}', None) == "019a"
    assert collab_agent("wait", '{"status": {}, "timed_out": true}', None) is None
    assert collab_agent("wait", "plain text", None) is None


def _agent(o: int, failed: bool, sig: str, command: str = "") -> Step:
    return Step("p", o, "task agent 019b", False, True, failed, sig, command=command,
                tool="task", failure=sig)


def test_a_codex_spawn_and_its_wait_are_one_delegation_however_far_apart() -> None:
    steps = [_agent(4, True, "the sub-agent ended on an error: APIError: "
             "stream disconnected", "Run the ledger tests"),
             _task(5, "Other", False), _task(9, "Other", False),
             _agent(20, True, "the sub-agent errored: stream disconnected")]
    (f,) = delegated_episodes(steps)
    assert f.ordinals() == {4, 20, 21} and "Run the ledger tests" in f.name
    assert f.cause_text == "the sub-agent errored: stream disconnected"


def test_the_child_s_provider_error_the_delegation_reports_is_told_once() -> None:
    from kb.graph.delegated import told_once
    from kb.graph.episodes import Found

    steps = [Step("p", 4, "task agent c", False, True, True, "x", tool="task")]
    spawn = Found("p", "delegating", 4, 5, "subagent-failed", "the sub-agent ended on an "
                  "error: APIError: stream disconnected before completion")
    cut = Found("c", "work cut by a provider error", 2, 5, "api-error",
                "the model's provider answered with an error",
                evidence=[(5, "ended", "APIError: stream disconnected before completion")])
    own = Found("c", "cargo test", 2, 3, "failed-check", "error[E0425]")
    other = Found("c", "cut again", 7, 9, "api-error", "quota",
                  evidence=[(9, "ended", "APIError: You've hit your usage limit")])
    assert told_once([spawn, cut, own, other], steps) == [spawn, own, other]
    assert told_once([cut], steps) == [cut]  # no delegation reports it: still told


def test_a_child_error_with_no_message_is_no_repeat_of_another() -> None:
    """A provider error whose message is empty ("APIError: ") says nothing the
    delegation's cause could repeat: it is still told (its empty key is in every text)."""
    from kb.graph.delegated import told_once
    from kb.graph.episodes import Found

    steps = [Step("p", 4, "task agent c", False, True, True, "x", tool="task")]
    spawn = Found("p", "delegating", 4, 5, "subagent-failed", "the sub-agent ended on an "
                  "error: quota exceeded")
    bare = Found("c", "work cut by a provider error", 2, 5, "api-error", "APIError:",
                 evidence=[(5, "ended", "APIError: ")])
    assert told_once([spawn, bare], steps) == [spawn, bare]


def test_codex_spawned_child_that_errored_is_one_dead_end_of_the_parent(
        tmp_path: Path) -> None:
    """fixtures/codex_subagents: the parent spawns an agent whose rollout ends on a stream
    error; with its wait (which says errored) and without it (the parent never waited),
    the scope tells the failure once, as the parent's delegation."""
    from fixtures.codex_subagents.make import CHILD_V1, PARENT_V1

    day = FIXTURES.parent / "codex_subagents" / "sessions" / "2026" / "07" / "11"
    (parent,) = day.glob(f"rollout-*-{PARENT_V1}.jsonl")
    (child,) = day.glob(f"rollout-*-{CHILD_V1}.jsonl")
    cut = tmp_path / "cut" / parent.name
    cut.parent.mkdir()
    lines = parent.read_text().splitlines(keepends=True)
    at = next(i for i, x in enumerate(lines) if '"name": "wait"' in x)
    cut.write_text("".join(lines[:at]))
    for n, paths in enumerate(([parent, child], [cut, child])):
        with KbStore(tmp_path / f"kb{n}.duckdb") as store:
            ingest(store, paths)
            ex = gs.extract_scope(store, gs.scope_of(store, PARENT_V1))
        dead = [(a.session_id, a.via) for a in ex.approaches if a.status == "dead_end"]
        assert dead == [(PARENT_V1, "delegated:subagent-failed")], (n, dead)
        (a,) = [a for a in ex.approaches if a.status == "dead_end"]
        assert "cargo test -p ledger" in a.name
        assert "stream disconnected" in (a.cause_text or "")


def test_a_claude_code_task_child_s_api_error_is_told_once(tmp_path: Path) -> None:
    """fixtures/structural/subagents_claude.jsonl: the research sub-agent's sidechain ends
    on an API error (529) and its Task is answered with it.  One failure, one dead end:
    the parent's delegation, whose cause is the child's error; the child's own provider
    error is not told again."""
    ex = _extraction(tmp_path, "subagents_claude.jsonl")
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    told = [a for a in dead if "529" in (a.cause_text or "")]
    assert [(a.via, "Research Visa" in a.name) for a in told] == [
        ("delegated:subagent-failed", True)], [(a.session_id, a.via) for a in dead]
    assert not [a for a in dead if ":agent-" in a.session_id]


def test_a_task_child_named_by_its_session_is_told_once() -> None:
    """A Claude Code Task (or opencode task) names its child by the linked session, not
    by a Codex agent key: the child's provider error it reports is still told once."""
    from kb.graph.delegated import told_once
    from kb.graph.episodes import Found

    steps = [Step("p", 4, "task research visa", False, True, True, "x", tool="task",
                  child="p:agent-a06")]
    spawn = Found("p", "delegating", 4, 5, "subagent-failed", "the sub-agent ended on an "
                  "error: APIError: API Error: 529 Overloaded")
    cut = Found("p:agent-a06", "work cut by a provider error", 1, 2, "api-error",
                "the model's provider answered with an error",
                evidence=[(2, "ended", "APIError: API Error: 529 Overloaded")])
    assert told_once([spawn, cut], steps) == [spawn]
    ok = [Step("p", 4, "task research visa", False, True, False, None, tool="task",
               child="p:agent-a06")]
    assert told_once([cut], ok) == [cut]  # the delegation did not report it failed


def test_an_opencode_task_child_s_error_is_told_once(tmp_path: Path) -> None:
    """subagents_opencode.json with the child session its failed task names, exported
    beside it (built from opencode's format: the child's reply ends on the APIError the
    task reports): one dead end, the parent's delegation."""
    import json

    d = json.loads((FIXTURES / "subagents_opencode.json").read_text())
    parent, child = d["info"]["id"], "ses_099f6fd34ffe4Odh2VDvcdvie8"
    t = d["messages"][1]["info"]["time"]["created"]
    kid = {"info": {"id": child, "parentID": parent, "title": "Explore React source "
                    "structure (@explore subagent)", "directory": d["info"]["directory"],
                    "projectID": "global", "version": "1.18.1",
                    "time": {"created": t + 10, "updated": t + 900}},
           "messages": [
               {"info": {"id": "msg_c1", "sessionID": child, "role": "user",
                         "time": {"created": t + 10}},
                "parts": [{"type": "text", "id": "prt_c1", "sessionID": child,
                           "messageID": "msg_c1",
                           "text": "Explore the React/Vite project thoroughly."}]},
               {"info": {"id": "msg_c2", "sessionID": child, "role": "assistant",
                         "parentID": "msg_c1", "modelID": "deepseek-v4-flash-free",
                         "providerID": "opencode", "mode": "explore",
                         "time": {"created": t + 20},
                         "error": {"name": "APIError", "data": {
                             "message": "Rate limit exceeded, please retry later"}}},
                "parts": []}]}
    (tmp_path / "parent.json").write_text(json.dumps(d))
    (tmp_path / "child.json").write_text(json.dumps(kid))
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [tmp_path / "parent.json", tmp_path / "child.json"])
        ex = gs.extract_scope(store, gs.scope_of(store, parent))
    dead = [(a.session_id, a.via) for a in ex.approaches if a.status == "dead_end"]
    assert dead == [(parent, "delegated:subagent-failed")], dead
    (a,) = [a for a in ex.approaches if a.status == "dead_end"]
    assert "Rate limit exceeded" in (a.cause_text or "")
