"""The sweep (safe11): each common secret shape today's agents print, in a Claude Code,
a Codex and an opencode session (a tool's input, its output, the assistant's text), is
walked through ingest and every output path, and never shows: ``show`` (text and
JSON), ``events --json``, search snippets, the hand-off, the Parquet export and the
payload ``push`` sends (raw messages included), the HTML report, the MCP tools and the
TUI.  Near-secret text (git SHAs, UUIDs, sha256 digests, transaction signatures after a
keypair's cue, a base64 image in Markdown or dumped at 76 columns, code that reads a
password from a variable, ``ADMIN_PASS=${ADMIN_PASS}``) still shows.

Every value is random of the right shape (:mod:`tests.hostile.sweep_corpus`)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.store import KbStore
from tests.hostile import sweep_corpus as corpus

PIECES = corpus.pieces()


def leaks(text: str) -> list[str]:
    return [p for p in PIECES if p in text]


def run(*args: str) -> str:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    assert result.exit_code in (0, 4), (args, result.stdout, result.stderr)
    return result.stdout + result.stderr


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("sweep")
    files = corpus.write_all(src)
    path = src / "kb.duckdb"
    out = run("ingest", "--db", str(path), *map(str, files))
    assert not leaks(out)
    return path


@pytest.fixture(scope="module")
def sessions(db: Path) -> dict[str, tuple[str, int]]:
    """``agent → (session id, last ordinal)``."""
    with KbStore(db, read_only=True) as store:
        last = dict(store.conn.execute(
            "SELECT session_id, max(ordinal) FROM messages GROUP BY 1").fetchall())
        out = {r["agent"]: (r["session_id"], last[r["session_id"]])
               for r in store.sessions() if not r["parent_id"]}
    assert set(out) == {"claude-code", "codex", "opencode"}, out
    return out


def test_the_store_holds_every_secret(db: Path) -> None:
    """The corpus does leak: every piece is in the stored rows (lossless)."""
    with KbStore(db, read_only=True) as store:
        row = store.conn.execute("SELECT string_agg(raw::VARCHAR, ' ') FROM messages").fetchone()
    assert row is not None
    # a wrapped one by its first piece (`keypair narrow`: 16 characters a line)
    missing = [n for n, v in corpus.SECRETS.items()
               if v.split("\n")[0] not in row[0] and json.dumps(v)[1:40] not in row[0]
               and v[:16] not in row[0]]
    assert not missing, missing


def _cli_outputs(db: Path, sessions: dict[str, tuple[str, int]], out: Path) -> dict[str, str]:
    d = ["--db", str(db)]
    texts: dict[str, str] = {}
    for agent, (sid, last) in sessions.items():
        texts[f"events-{agent}"] = run("events", "-s", sid, "--json", *d)
        texts[f"events-text-{agent}"] = run("events", "-s", sid, *d)
        texts[f"handoff-{agent}"] = run("handoff", "-s", sid, *d)
        texts[f"handoff-json-{agent}"] = run("handoff", "-s", sid, "--json", *d)
        texts[f"timeline-{agent}"] = run("timeline", "-s", sid, "--json", *d)
        for n in range(1, last + 1):
            texts[f"show-{agent}-{n}"] = run("show", str(n), "--full", "-s", sid, *d)
            texts[f"show-json-{agent}-{n}"] = run("show", str(n), "--json", "-s", sid, *d)
    for word in (corpus.WORD, "Signature", "WALLET", "password"):
        texts[f"search-{word}"] = run("search", word, "--json", *d)
        texts[f"search-text-{word}"] = run("search", word, *d)
    texts["deadends"] = run("deadends", "--all", "--json", *d)
    texts["graph"] = run("graph", "--all", "--format", "json", *d)
    texts["query-raw"] = run("query", "--json", "--limit", "5000",
                             "SELECT raw::VARCHAR AS r FROM messages", *d)
    # the Parquet export (what `push` sends), raw messages included
    run("export", "--parquet", str(out / "parquet"), "--all", "--include-raw", *d)
    import duckdb

    con = duckdb.connect()
    for f in sorted((out / "parquet").rglob("*.parquet")):
        rows = con.execute(f"SELECT * FROM read_parquet('{f}')").fetchall()
        texts[f"parquet-{f.relative_to(out)}"] = json.dumps(rows, default=str)
    con.close()
    # the static HTML report
    run("report", "--all", "-o", str(out / "site"), *d)
    for f in sorted((out / "site").rglob("*")):
        if f.is_file():
            texts[f"report-{f.relative_to(out)}"] = f.read_text("utf-8", errors="replace")
    return texts


def test_no_output_path_shows_a_secret(db: Path, sessions: dict[str, tuple[str, int]],
                                       tmp_path: Path) -> None:
    texts = _cli_outputs(db, sessions, tmp_path)
    # and the push payload, built as `logkb push` builds it (no server needed)
    from kb.team.push import collect

    with KbStore(db, read_only=True) as store:
        for agent, (sid, _) in sessions.items():
            p = collect(store, sid, include_raw=True)
            texts[f"push-{agent}"] = json.dumps(p.rows, default=str)
    bad = {name: leaks(t)[:3] for name, t in texts.items() if leaks(t)}
    assert not bad, bad
    # they did show the events, with placeholders where the secrets were
    for agent in sessions:
        assert corpus.WORD in texts[f"events-{agent}"]
        assert texts[f"events-{agent}"].count("[redacted:") >= len(corpus.SECRETS), agent
    assert any(name.startswith("parquet-") and "[redacted:" in t for name, t in texts.items())
    assert any(name.startswith("report-") and "[redacted:" in t for name, t in texts.items())
    assert "[redacted:" in texts["search-WALLET"] and "[redacted:" in texts["query-raw"]


def _strings(obj: object) -> list[str]:
    if isinstance(obj, str):
        return [obj]
    if isinstance(obj, dict):
        return [s for v in obj.values() for s in _strings(v)]
    if isinstance(obj, list):
        return [s for v in obj for s in _strings(v)]
    return []


def test_near_secrets_still_show(db: Path, sessions: dict[str, tuple[str, int]]) -> None:
    """Git SHAs, UUIDs, digests, signatures (after a keypair's cue too), a base64 image,
    a public key and code reading a password stay in the events of every agent."""
    for agent, (sid, _) in sessions.items():
        out = run("events", "-s", sid, "--json", "--db", str(db))
        shown = "\n".join(s for line in out.splitlines() if line.startswith("{")
                          for s in _strings(json.loads(line)))
        missing = [n for n, v in corpus.SHOWN.items() if v not in shown]
        assert not missing, (agent, missing)


def test_mcp_answers_show_no_secret(db: Path, sessions: dict[str, tuple[str, int]]) -> None:
    from tests.live.conftest import McpClient

    client = McpClient(db)
    try:
        answers = [client.call("search", query=corpus.WORD),
                   client.call("search", query="WALLET")]
        for sid, _ in sessions.values():
            answers += [client.call("events", session=sid), client.call("handoff", session=sid)]
    finally:
        client.close()
    text = json.dumps(answers)
    assert corpus.WORD in text and not leaks(text), leaks(text)


def test_the_tui_shows_no_secret(db: Path, sessions: dict[str, tuple[str, int]]) -> None:
    from tests.kb.test_secrets import _tui_texts

    sid, last = sessions["claude-code"]
    texts = asyncio.run(_tui_texts(db, sid, list(range(2, last, 7))))
    for ordinal, text in texts.items():
        assert not leaks(text), (ordinal, leaks(text))
    assert any("[redacted:" in t for t in texts.values())
