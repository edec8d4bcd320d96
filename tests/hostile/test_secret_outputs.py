"""No output shows a secret of the hostile corpus (issue 24, item 2).

The corpus (:mod:`tests.hostile.secret_corpus`) leaks every kind issue 24 found shown by
default, in opencode, Claude Code, Codex, Gemini CLI, pi and Antigravity sessions.  Every
read command, every graph export, ``query`` over the raw rows, the MCP tools and the TUI
are scanned for the secrets, their pieces and their JSON-escaped forms.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.store import KbStore
from tests.hostile import secret_corpus as corpus

PIECES = corpus.pieces()
FORMS = sorted({f for p in PIECES for f in (p, json.dumps(p)[1:-1],
                                            json.dumps(json.dumps(p))[1:-1])})


def leaks(text: str) -> list[str]:
    return [p for p in FORMS if p in text]


def run(*args: str) -> click.testing.Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 4), (args, result.stdout, result.stderr)  # 4: nothing found
    return result


@pytest.fixture(scope="module")
def hostile_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("hostile-secrets")
    files = corpus.write_all(src)
    db = src / "kb.duckdb"
    r = run("ingest", "--db", str(db), *map(str, files))
    assert not leaks(r.stdout + r.stderr)
    return db


@pytest.fixture(scope="module")
def sessions(hostile_db: Path) -> dict[str, str]:
    with KbStore(hostile_db, read_only=True) as store:
        rows = store.sessions()
    out = {r["agent"]: r["session_id"] for r in rows if not r["parent_id"]}
    assert set(out) == {"opencode", "claude-code", "codex", "gemini-cli", "pi",
                        "antigravity"}, rows
    return out


def test_the_raw_rows_hold_the_secrets(hostile_db: Path) -> None:
    """The corpus does leak: the stored transcript keeps them (lossless), escaped twice for
    Codex outputs."""
    with KbStore(hostile_db, read_only=True) as store:
        raw = store.conn.execute("SELECT string_agg(raw::VARCHAR, ' ') FROM messages").fetchone()
    assert raw and all(p in raw[0] or json.dumps(p)[1:-1] in raw[0] for p in PIECES)
    # a Codex output: JSON in JSON, its line breaks escaped twice (backslash, backslash, n)
    assert "\\\\n" + corpus.KEY.split("\n")[1] in raw[0]


def _outputs(db: Path, sessions: dict[str, str]) -> dict[str, str]:
    d = ["--db", str(db)]
    with KbStore(db, read_only=True) as store:
        last = dict(store.conn.execute(
            "SELECT session_id, max(ordinal) FROM messages GROUP BY 1").fetchall())
    cmds: dict[str, list[str]] = {
        "sessions": ["sessions"], "sessions-json": ["sessions", "--json"],
        "handoff": ["handoff"], "deadends": ["deadends", "--all", "--json"],
        "deadends-text": ["deadends", "--all"], "untested": ["untested", "--all", "--json"],
        "why": ["why", corpus.WORD, "--json"], "search": ["search", corpus.WORD, "--json"],
        "search-text": ["search", corpus.WORD],
        "search-cjk": ["search", corpus.CJK_WORD, "--json"],
        "search-cjk-text": ["search", corpus.CJK_WORD],
        "graph-json": ["graph", "--all", "--format", "json"],
        "graph-dot": ["graph", "--all", "--format", "dot"],
        "graph-mermaid": ["graph", "--all", "--format", "mermaid"],
        "graph-graphml": ["graph", "--all", "--format", "graphml"],
        "query-raw": ["query", "--json", "--limit", "5000",
                      "SELECT raw::VARCHAR AS r FROM messages"],
        "query-raw-cut": ["query", "--json", "--limit", "5000",
                          "SELECT substr(raw::VARCHAR, 30) AS r FROM messages"],
        "query-calls": ["query", "--json", "--limit", "5000", "SELECT * FROM calls"],
        "query-prose": ["query", "--csv", "--limit", "5000", "SELECT * FROM prose"],
        "query-events": ["query", "--json", "--limit", "5000", "SELECT * FROM events"],
        "query-sessions": ["query", "SELECT title, info FROM sessions"],
    }
    for agent, sid in sessions.items():
        cmds[f"events-{agent}"] = ["events", "-s", sid, "--json"]
        cmds[f"events-text-{agent}"] = ["events", "-s", sid]
        cmds[f"timeline-{agent}"] = ["timeline", "-s", sid, "--json"]
        cmds[f"handoff-{agent}"] = ["handoff", "-s", sid]
        cmds[f"handoff-json-{agent}"] = ["handoff", "-s", sid, "--json"]
        cmds[f"deadends-{agent}"] = ["deadends", "-s", sid]
        cmds[f"untested-{agent}"] = ["untested", "-s", sid]
        cmds[f"beyond-{agent}"] = ["show", str(last[sid] + 1), "-s", sid]  # not found
        for n in range(1, last[sid] + 1):  # every message (range(1, 40) missed Codex's last)
            cmds[f"show-{agent}-{n}"] = ["show", str(n), "--full", "-s", sid]
            cmds[f"show-json-{agent}-{n}"] = ["show", str(n), "--json", "-s", sid]
    out = {}
    for name, args in cmds.items():
        r = CliRunner().invoke(cli, [*args, *d], catch_exceptions=False)
        out[name] = r.stdout + r.stderr
    return out


def test_no_read_command_shows_a_secret(hostile_db: Path, sessions: dict[str, str]) -> None:
    outs = _outputs(hostile_db, sessions)
    bad = {name: leaks(text) for name, text in outs.items() if leaks(text)}
    assert not bad, bad
    # and they did show the events, with placeholders where the secrets were
    for agent in sessions:
        assert corpus.WORD in outs[f"events-{agent}"] and "[redacted:" in outs[
            f"events-{agent}"], agent
    assert "[redacted:" in outs["query-raw"] and "[redacted:" in outs["query-calls"]
    shown = [name for name in outs if name.startswith("show-") and "not found" in outs[name]]
    assert not shown, shown  # every `show` showed a message
    # and the paths that carry transcript text since the review of d2d8812..main were
    # reached, with placeholders where the secrets were: the question a session ends on
    # (the hand-off's `asked`), a CJK search hit, a failed sub-agent's error (Claude Code
    # Task, background <task-notification>, Codex wait and <subagent_notification>), a
    # failure line ("... failed: why"), a rewound Gemini CLI branch, a revised belief
    for agent in ("claude-code", "codex"):
        assert "waiting for the user" in outs[f"handoff-{agent}"], outs[f"handoff-{agent}"]
        asked = json.loads(outs[f"handoff-json-{agent}"])["status"]["asked"]
        assert asked and "[redacted:" in asked["text"], asked
    assert corpus.CJK_WORD in outs["search-cjk"] and "[redacted:" in outs["search-cjk"]
    assert corpus.CJK_WORD in outs["search-cjk-text"]
    for agent in ("claude-code", "codex"):
        assert "sub-agent" in outs[f"deadends-{agent}"] + outs[f"untested-{agent}"], agent
    assert any('"rewound": {' in outs[name] or '"rewound":{' in outs[name]
               for name in outs if name.startswith("show-json-gemini-cli-"))
    assert "the belief" in outs["deadends-pi"], outs["deadends-pi"]


def test_mcp_answers_show_no_secret(hostile_db: Path, sessions: dict[str, str]) -> None:
    from tests.live.conftest import McpClient

    client = McpClient(hostile_db)
    try:
        answers = [client.call("search", query=corpus.WORD), client.call("deadends"),
                   client.call("search", query=corpus.CJK_WORD),
                   client.call("untested"),
                   # an answer or a not-found error (isError): either is scanned
                   client.request("tools/call", {"name": "why",
                                                 "arguments": {"name": corpus.WORD}})]
        for sid in sessions.values():
            answers.append(client.call("events", session=sid))
            answers.append(client.call("handoff", session=sid))
    finally:
        client.close()
    text = json.dumps(answers)
    assert corpus.WORD in text and not leaks(text), leaks(text)


def test_the_tui_shows_no_secret(hostile_db: Path, sessions: dict[str, str]) -> None:
    from tests.kb.test_secrets import _tui_texts

    placeholders = 0
    for sid in sessions.values():
        texts = asyncio.run(_tui_texts(hostile_db, sid, [2, 5, 9, 14]))
        for ordinal, text in texts.items():
            assert not leaks(text), (sid, ordinal, leaks(text))
            placeholders += text.count("[redacted:")
    assert placeholders  # the screens did show where the secrets were
