"""Rewrites of a session (:mod:`logparse.rewrite`) on trimmed real lines: told from the
agents' own logs, every line kept, nothing invented."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from logparse.models import Problem
from logparse.registry import detect
from logparse.rewrite import (
    AGENTS,
    TEXT_RULES,
    RewriteReader,
    TextRule,
    agent_of,
    is_header,
    text_rule,
)
from logparse.source import NotATranscript, RawMessage, SourceSession

ROOT = Path(__file__).resolve().parents[2]
TRIM = ROOT / "fixtures" / "realworld_trim"
CLAUDE = TRIM / "rewrite_claude.jsonl"
CODEX = TRIM / "rewrite_codex.jsonl"


def read(path: Path) -> tuple[RewriteReader, list[tuple[SourceSession, list[RawMessage]]],
                              list[Problem]]:
    reader = RewriteReader()
    problems: list[Problem] = []
    got = [(s, list(s.messages)) for s in reader.sessions(path, problems)]
    return reader, got, problems


# --------------------------------------------------------------------- detection
@pytest.mark.parametrize("path", [CLAUDE, CODEX], ids=lambda p: p.name)
def test_the_rewrites_are_detected_as_rewrites(path: Path) -> None:
    assert detect(path) is RewriteReader


@pytest.mark.parametrize("name", ["claude_2_1.jsonl", "codex_code_mode.jsonl",
                                  "gemini_cli.jsonl", "pi.jsonl", "antigravity.jsonl"])
def test_the_agents_own_logs_are_not_rewrites(name: str) -> None:
    assert detect(TRIM / name).form != "rewrite"


@pytest.mark.parametrize("line", [
    # a Codex rollout whose session_meta lost its payload object: Codex's, refused by name
    '{"type":"session_meta","payload":"cut","timestamp":"2026-05-01T07:00:00Z"}',
    # a Codex bare-item message (input_text blocks are Codex's own)
    '{"type":"message","role":"user","content":[{"type":"input_text","text":"hi"}]}',
    # a Claude Code line naming its session
    '{"type":"message","role":"user","text":"hi","sessionId":"s1"}',
])
def test_damaged_agent_logs_are_not_rewrites(tmp_path: Path, line: str) -> None:
    f = tmp_path / "x.jsonl"
    f.write_text(line + "\n", encoding="utf-8")
    try:
        form = detect(f).form
    except NotATranscript:
        form = None
    assert form != "rewrite"


def test_a_flat_role_text_export_without_header_is_a_rewrite(tmp_path: Path) -> None:
    """The generic shape (made-up lines: the pool has no headerless export): role and
    text or content, type ``message`` or none; its agent is unknown."""
    f = tmp_path / "chat.jsonl"
    f.write_text('{"role":"user","content":"make the build faster"}\n'
                 '{"role":"assistant","content":[{"type":"text","text":"Cached deps."}]}\n',
                 encoding="utf-8")
    assert detect(f) is RewriteReader
    _, got, problems = read(f)
    assert problems == []
    (src, msgs), = got
    assert src.agent == "unknown" and src.form == "rewrite"
    assert [(m.info["role"], m.parts[0]["text"]) for m in msgs] == [
        ("user", "make the build faster"), ("assistant", "Cached deps.")]


@pytest.mark.parametrize(("source", "agent"), [
    ("Claude Code session", "claude-code"),  # trade_arena__claude-session.jsonl
    ("codex", "codex"),                      # trade_arena__codex-session.jsonl
    ("opencode", "opencode"), ("Gemini CLI", "gemini-cli"), ("Antigravity", "antigravity"),
    ("some other tool", "unknown"),
])
def test_the_agent_is_the_one_the_header_names(source: str, agent: str) -> None:
    assert agent_of({"type": "sanitization_notice", "source": source}) == agent


def test_every_agent_row_is_named_by_its_word() -> None:
    for word, agent in AGENTS:
        assert agent_of({"source": f"a {word.title()} session"}) == agent


def test_the_real_headers_are_headers() -> None:
    for path in (CLAUDE, CODEX):
        first = json.loads(path.read_bytes().split(b"\n", 1)[0])
        assert is_header(first), path.name


# ------------------------------------------------------------------- text rules
@pytest.mark.parametrize("rule", TEXT_RULES, ids=lambda r: r.name)
def test_every_text_rule_matches_its_real_example(rule: TextRule) -> None:
    assert text_rule(rule.role, rule.example) is rule
    path, line = rule.source.rsplit(":", 1)
    record = json.loads((ROOT / path).read_text("utf-8").splitlines()[int(line) - 1])
    assert record["role"] == rule.role and rule.example in record["text"]
    other = "user" if rule.role == "assistant" else "assistant"
    assert text_rule(other, rule.example) is None


def test_ordinary_text_matches_no_text_rule() -> None:
    for role, text in [("assistant", "Let me explore the project structure first."),
                       ("assistant", "I ran [tool_use:Bash {...}] and it failed."),
                       ("user", "This session is fine, continue.")]:
        assert text_rule(role, text) is None


# ------------------------------------------------------------- every line kept
def _lines(path: Path) -> set[int]:
    return {n for n, line in enumerate(path.read_bytes().splitlines(), 1) if line.strip()}


def _kept(msgs: list[RawMessage]) -> set[int]:
    return {n for m in msgs for n in json.loads(m.raw)["lines"]}


def test_the_claude_rewrite_keeps_every_line_and_invents_no_call() -> None:
    reader, got, problems = read(CLAUDE)
    assert problems == [] and reader.skipped == {}
    (src, msgs), = got
    assert src.agent == "claude-code" and src.complete is False and src.info is not None
    assert src.info["title"] == "Create competitive trading agent landing pages"
    assert src.info["rewrite"]["header"] == "sanitization_notice"
    assert "full file contents from tool results" in src.info["rewrite"]["removed"]
    assert _kept(msgs) == _lines(CLAUDE)  # header and titles in the messages' raw records
    assert [m.info["role"] for m in msgs] == ["user", "assistant", "assistant", "assistant",
                                             "user", "user", "assistant"]
    parts = [p for m in msgs for p in m.parts]
    assert not [p for p in parts if p["type"] == "tool"]  # a call written as text stays text
    calls = [p for p in parts if p["type"] == "text" and "[tool_use:" in p["text"]]
    assert len(calls) == 2 and all(p.get("synthetic") for p in calls)
    summary = msgs[5]
    assert [p["type"] for p in summary.parts] == ["compaction", "text"]
    assert summary.parts[1]["synthetic"] is True
    assert all(m.info["mode"] == "rewrite" for m in msgs)
    # a whole text: never "a reply still being written"
    assert all(m.info["time"]["completed"] for m in msgs if m.info["role"] == "assistant")
    # the prompts and the agent's own words are not synthetic
    assert not msgs[0].parts[0].get("synthetic") and not msgs[1].parts[0].get("synthetic")


def test_the_codex_summary_counts_what_it_does_not_read() -> None:
    reader, got, problems = read(CODEX)
    assert problems == []
    assert reader.skipped == {"tool_summary": 2, "file_change": 1}
    (src, msgs), = got
    assert src.agent == "codex" and len(msgs) == 6 and src.info is not None
    assert _kept(msgs) == _lines(CODEX)
    assert src.info["rewrite"]["purpose"].startswith("Sanitized project-only Codex")
    assert not [p for m in msgs for p in m.parts if p["type"] != "text"]


def test_a_bad_line_and_an_unknown_record_are_kept(tmp_path: Path) -> None:
    f = tmp_path / "r.jsonl"
    shutil.copy(CODEX, f)
    with f.open("a", encoding="utf-8") as out:
        out.write("{not json\n")
        out.write('{"type":"brand_new_record","x":1}\n')
        out.write('{"type":"message","role":"tool","text":"exit 0"}\n')
    reader, got, problems = read(f)
    (_, msgs), = got
    assert [(p.line, p.raw) for p in problems] == [(11, "{not json")]
    assert reader.skipped == {"tool_summary": 2, "file_change": 1, "brand_new_record": 1,
                              "message/tool": 1}
    assert _kept(msgs) | {11} == _lines(f)  # the last lines join the last message


def test_the_session_is_named_after_the_file_and_its_first_line(tmp_path: Path) -> None:
    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    shutil.copy(CLAUDE, a / "claude-session.jsonl")
    shutil.copy(CODEX, b / "claude-session.jsonl")
    ids = {next(iter(RewriteReader().sessions(d / "claude-session.jsonl", []))).session_id
           for d in (a, b)}
    assert len(ids) == 2 and all(i.startswith("claude-session-") for i in ids)
    with (a / "claude-session.jsonl").open("a", encoding="utf-8") as out:  # it grows
        out.write('{"type":"title","title":"later"}\n')
    again = next(iter(RewriteReader().sessions(a / "claude-session.jsonl", []))).session_id
    assert again in ids
