"""Whose words a user message's text is (logparse.author), per agent, on trimmed real lines
(fixtures/authors/README.md names each line's source)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from logparse.author import (
    COMPACTION,
    HARNESS,
    HUMAN,
    PARENT,
    QUEUED,
    part_author,
    session_author,
)
from logparse.derive import COLUMNS, Deriver
from logparse.registry import discover
from tests.conftest import REALWORLD

ROOT = Path(__file__).resolve().parents[2]
AUTHORS = ROOT / "fixtures" / "authors"


def prompts(path: Path) -> list[tuple[str, str, str, str]]:
    """``(session, author, source, text)`` of every prompt the file's sessions derive."""
    out = []
    for inp in discover(path):
        assert hasattr(inp, "reader"), inp
        for src in inp.reader().sessions(inp.path, [], None):
            d = Deriver(src.session_id, src.path, None, session_author(src.info))
            d.add_all(src.messages)
            for row in d.take().prose:
                r = dict(zip(COLUMNS["prose"], row, strict=True))
                if r["kind"] == "prompt":
                    out.append((src.session_id, r["author"], r["source"], r["text"]))
    return out


def authors(path: Path) -> list[tuple[str, str]]:
    return [(a, t[:40]) for _, a, _, t in prompts(path)]


def test_claude_skill_args_are_the_humans_its_body_the_harness() -> None:
    # a slash command whose arguments are the user's request; the skill's body (isMeta)
    got = authors(AUTHORS / "claude_skill.jsonl")
    assert [a for a, _ in got] == [HUMAN, HARNESS]


def test_claude_compaction_and_local_command_are_not_the_users() -> None:
    got = prompts(AUTHORS / "claude_compact.jsonl")
    # the caveat, /compact with no arguments, its output: the harness's, injected
    assert [a for _, a, _, _ in got] == [HARNESS, HARNESS, HARNESS]
    assert all(s == "synthetic" for _, _, s, _ in got)
    # the summary (isCompactSummary) is no prompt at all
    assert not any(t.startswith("This session is being continued") for *_, t in got)


def test_claude_summary_without_its_flag_is_the_compactions(tmp_path: Path) -> None:
    # an older build wrote the summary as a plain user line: its opener says what it is
    line = json.loads((AUTHORS / "claude_compact.jsonl").read_text().splitlines()[0])
    line.pop("isCompactSummary", None)
    f = tmp_path / "s.jsonl"
    f.write_text(json.dumps(line) + "\n")
    got = prompts(f)
    assert [(a, s) for _, a, s, _ in got] == [(COMPACTION, "synthetic")]


def test_claude_sidechain_prompt_is_the_parent_agents() -> None:
    got = prompts(AUTHORS / "claude_sidechain.jsonl")
    assert [(a, s) for _, a, s, _ in got] == [(PARENT, "text")]
    assert got[0][3].startswith("Find every caller of calc.divide")


def test_codex_context_is_the_harness_the_request_the_humans() -> None:
    got = authors(AUTHORS / "codex_context.jsonl")
    assert got[0][0] == HARNESS and got[0][1].startswith("<environment_context>")
    assert got[1][0] == HUMAN and got[1][1].startswith("Set up ZenMux")


def test_codex_subagent_task_is_the_parent_agents() -> None:
    # codex_subagents: rollouts written from codex-rs's shapes (no real one may be read)
    sessions = ROOT / "fixtures" / "codex_subagents" / "sessions"
    got = prompts(sessions)
    child = [(a, t) for sid, a, s, t in got if s == "text" and a == PARENT]
    assert any(t.startswith("Run `cargo test -p ledger`") for _, t in child)
    # the context injected into a child stays the harness's, never the parent's
    assert all(a == HARNESS for _, a, _, t in got if t.lstrip().startswith("<environment"))


def test_claude_queued_input_is_the_humans_a_notification_the_harness() -> None:
    # the reader's own part for input handed over mid-turn (queued_command, a removed
    # queue-operation): no allowed real file holds one, so the part itself is read
    assert part_author({"type": "text", "text": "also check the logs", "queued": True}) == QUEUED
    assert part_author({"type": "text", "text": "<task-notification>\n<task-id>x</task-id>",
                        "queued": True}) == HARNESS
    assert part_author({"type": "text", "text": "go on", "queued": True}, PARENT) == PARENT


def test_session_author_from_the_agents_own_fields() -> None:
    assert session_author({"id": "a"}) == HUMAN
    assert session_author({"id": "a", "parentID": "p"}) == PARENT  # opencode, Claude Code
    assert session_author({"id": "a", "subagent": {"parent": "p"}}) == PARENT  # Codex
    assert session_author({"id": "a", "kind": "subagent"}) == PARENT  # Gemini CLI
    assert session_author({"id": "a", "kind": "main"}) == HUMAN


@pytest.mark.skipif(not (REALWORLD / "labelled").is_dir(), reason="no shared realworld set")
def test_opencode_synthetic_continue_is_the_harness() -> None:
    # opencode's own "Continue if you have next steps" after a compaction (synthetic part)
    got = prompts(REALWORLD / "labelled" / "uicomponents__session-export.json")
    cont = [a for _, a, _, t in got if t.startswith("Continue if you have next steps")]
    assert cont and set(cont) == {HARNESS}
    assert sum(a == HUMAN for _, a, _, _ in got) == 32


def test_derived_rules_never_read_other_authors_words() -> None:
    # a direction set in a sub-agent's task is its parent's, no user decision
    from logparse.source import RawMessage

    def msg(i: int, role: str, text: str) -> RawMessage:
        info = {"id": f"m{i}", "role": role, "time": {"created": i}}
        return RawMessage(info=info, parts=[{"type": "text", "id": f"p{i}", "text": text}],
                          raw=b"{}")

    said = "let's use option a"
    for author, cls in ((HUMAN, "decision"), (PARENT, None)):
        d = Deriver("s", "x", None, author)
        d.add_all([msg(1, "user", said)])
        rows = [dict(zip(COLUMNS["prose"], r, strict=True)) for r in d.take().prose]
        assert [(r["author"], r["classification"]) for r in rows] == [(author, cls)]


def test_user_words_prefer_the_human_then_the_parent() -> None:
    from types import SimpleNamespace as P

    from logparse.author import user_words

    env = P(author=HARNESS, source="synthetic", text="<environment_context>")
    task = P(author=PARENT, source="text", text="Run the tests")
    said = P(author=HUMAN, source="text", text="fix it")
    old = P(author=None, source="text", text="stored before 049")
    assert user_words([env, task, said]) == [said]
    assert user_words([env, task]) == [task]  # a sub-agent's session: its task
    assert user_words([env]) == []
    assert user_words([old]) == [old]

