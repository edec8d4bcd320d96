"""Every way text leaves logkb hides round 9's secrets and shows no raw control sequence
(safe9).

A Claude Code JSONL transcript and a Codex rollout (:mod:`tests.hostile.secret_corpus`:
one secret of every kind, round 9's too: ``aws configure set`` keys, a keypair's byte
array, a BIP-39 phrase, a ``0x`` private key), every event's text also carrying ANSI,
OSC, C1 and bidi controls (:data:`tests.hostile.corpus.HOSTILE`).  The read commands,
MCP and the TUI's first screens are walked by :mod:`tests.hostile.test_secret_outputs`
and :mod:`tests.hostile.test_terminal_new_paths` over the same corpus; here are the exits
they leave out: the Parquet export (raw messages included), the HTML report, the replay
plan, the TUI on the messages holding round 9's kinds, and ``--show-secrets`` as the
one way to see a secret locally.  The team push: :mod:`tests.team.test_team_secrets`.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

from kb.store import KbStore
from tests.hostile import secret_corpus as corpus
from tests.hostile.conftest import ROOT, run_pty
from tests.hostile.corpus import HOSTILE, found_bad
from tests.hostile.test_secret_outputs import leaks

pytestmark = pytest.mark.slow

NEW = {k: corpus.SECRETS[k] for k in ("aws configure secret", "aws configure id",
                                      "aws configure session", "keypair", "mnemonic",
                                      "hex private key")}
"""Round 9's kinds, each as it stands in the transcripts."""
NEW_KINDS = ("[redacted:aws-key]", "[redacted:private-key]", "[redacted:mnemonic]")
CUES = {"mnemonic": "--mnemonic", "hex private key": "--private-key",
        "keypair": "solana/id.json", "aws configure secret": "aws_secret_access_key"}
"""A word of the message holding each secret (to find its ordinal)."""


def build(d: Path) -> tuple[Path, dict[str, str]]:
    """A knowledge base of the corpus' Claude Code and Codex sessions, every event's text
    poisoned with :data:`HOSTILE`; its path and the session ids by agent."""
    mp = pytest.MonkeyPatch()
    mp.setattr(corpus, "WORD", "frobnicate" + HOSTILE)
    try:
        files = [corpus.write_claude(d / "claude.jsonl"),
                 corpus.write_codex(d / "rollout-2025-10-01T10-00-00-codex.jsonl")]
    finally:
        mp.undo()
    db = d / "kb.duckdb"
    for args in (["ingest", "--wait", *map(str, files)], ["deadends", "--all"]):
        r = subprocess.run([sys.executable, "-m", "kb", *args, "--db", str(db)],
                           capture_output=True, timeout=300, cwd=ROOT)
        assert r.returncode in (0, 4), r.stderr[-2000:]
        assert not leaks(r.stdout.decode() + r.stderr.decode())
    with KbStore(db, read_only=True) as store:
        ids = {r["agent"]: r["session_id"] for r in store.sessions() if not r["parent_id"]}
    assert set(ids) == {"claude-code", "codex"}, ids
    return db, ids


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    return build(tmp_path_factory.mktemp("secret-exits"))


def logkb(*args: str, ok: tuple[int, ...] = (0,)) -> str:
    r = subprocess.run([sys.executable, "-m", "kb", *args], capture_output=True,
                       timeout=300, cwd=ROOT)
    assert r.returncode in ok, (args, r.stderr[-2000:])
    return r.stdout.decode() + r.stderr.decode()


def ordinals(db: Path, sid: str) -> dict[str, int]:
    """The first message of ``sid`` holding each of :data:`CUES` (read from the stored
    transcript: only its ordinal leaves this function)."""
    out = {}
    with KbStore(db, read_only=True) as store:
        for name, cue in CUES.items():
            row = store.conn.execute(
                "SELECT min(ordinal) FROM messages WHERE session_id = ? "
                "AND contains(raw::VARCHAR, ?)", [sid, cue]).fetchone()
            assert row and row[0] is not None, (sid, cue)
            out[name] = int(row[0])
    return out


def test_the_export_holds_no_secret_even_asked_to_show_them(
        kb: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    import duckdb

    db, _ = kb
    dst = tmp_path / "pq"
    logkb("--show-secrets", "export", "--parquet", str(dst), "--all", "--include-raw",
          "--db", str(db))
    tables = sorted({p.relative_to(dst).parts[0] for p in dst.rglob("*.parquet")})
    assert {"messages", "events", "units", "sessions"} <= set(tables), tables
    con = duckdb.connect()
    dump = "\n".join(con.execute(
        f"SELECT coalesce(string_agg(t::VARCHAR, chr(10)), '') FROM read_parquet("
        f"'{dst}/{t}/**/*.parquet', hive_partitioning = true, union_by_name = true) t"
    ).fetchone()[0] for t in tables)
    assert not leaks(dump), leaks(dump)
    for kind in NEW_KINDS:  # the messages holding them were exported, redacted
        assert kind in dump, kind


def test_the_html_report_holds_no_secret_and_no_control(
        kb: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    db, _ = kb
    out = tmp_path / "site"
    said = logkb("report", "-o", str(out), "--all", "--db", str(db))
    assert not leaks(said)
    files = [p for p in out.rglob("*") if p.is_file()]
    assert len(files) >= 2, files
    text = ""
    for p in files:
        data = p.read_bytes()
        assert found_bad(data) == [], (p.name, found_bad(data))
        assert not leaks(data.decode("utf-8", "replace")), (p.name, leaks(data.decode()))
        text += data.decode("utf-8", "replace")
    assert "[redacted:" in text and "frobnicate" in text
    # asked to show secrets, the report refuses (it is a file that travels)
    r = subprocess.run([sys.executable, "-m", "kb", "--show-secrets", "report", "-o",
                        str(tmp_path / "x"), "--all", "--db", str(db)], capture_output=True,
                       timeout=300, cwd=ROOT)
    assert r.returncode == 2 and not (tmp_path / "x" / "index.html").exists()


def test_the_replay_plan_holds_no_secret(kb: tuple[Path, dict[str, str]]) -> None:
    db, ids = kb
    for sid in ids.values():
        for fmt in ((), ("--json",)):
            said = logkb("replay", "plan", "--from", "1", "-s", sid, *fmt, "--db", str(db))
            assert not leaks(said), (sid, fmt, leaks(said))
            for kind in NEW_KINDS:
                assert kind in said, (sid, fmt, kind, said[:2000])


def test_plan_and_report_on_a_terminal_show_controls_as_escapes(
        kb: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    db, ids = kb
    d = ["--db", str(db)]
    cmds = [["replay", "plan", "--from", "1", "-s", sid, *d] for sid in ids.values()]
    cmds += [["report", "-o", str(tmp_path / "site"), "--all", *d]]
    code, data = run_pty([sys.executable, "-m", "tests.hostile.pty_driver",
                          orjson.dumps(cmds).decode()], env={"HOME": str(tmp_path)})
    assert code == 0, data[-2000:]
    chunks = data.split(b"@@@ end ")
    assert len(chunks) == len(cmds) + 1, data[-2000:]
    for args, chunk in zip(cmds, chunks):
        assert not found_bad(chunk, allow_own=True), (args[:3], chunk[:400])
        assert b"driver:" not in chunk and not leaks(chunk.decode("utf-8", "replace"))
    # the plans did carry the poisoned text, shown as escapes
    assert any(rb"\x1b]52;" in c for c in chunks[:2]), chunks[0][:2000]


def test_show_secrets_is_the_one_way_to_see_them(kb: tuple[Path, dict[str, str]]) -> None:
    db, ids = kb
    for sid in ids.values():
        hidden = logkb("events", "-s", sid, "--json", "--db", str(db))
        shown = logkb("--show-secrets", "events", "-s", sid, "--json", "--db", str(db))
        assert not leaks(hidden)
        for name, value in NEW.items():
            assert json.dumps(value)[1:-1] in shown, (sid, name)
        at = ordinals(db, sid)
        for name in CUES:
            full = logkb("show", str(at[name]), "--full", "-s", sid, "--db", str(db))
            assert not leaks(full) and "[redacted:" in full, (sid, name)
            full = logkb("--show-secrets", "show", str(at[name]), "--full", "-s", sid,
                         "--db", str(db))
            flat = "".join(full.replace("│", "").split())  # a long line is wrapped
            assert "".join(NEW[name].split()) in flat, (sid, name, full)


def test_the_tui_hides_them_and_shows_them_only_when_asked(
        kb: tuple[Path, dict[str, str]]) -> None:
    from tests.kb.test_secrets import _tui_text, _tui_texts

    db, ids = kb
    for sid in ids.values():
        at = ordinals(db, sid)
        texts = asyncio.run(_tui_texts(db, sid, sorted(set(at.values()))))
        for ordinal, text in texts.items():
            assert not leaks(text), (sid, ordinal, leaks(text))
            assert "[redacted:" in text, (sid, ordinal)
            assert not [c for c in text if c in HOSTILE and not c.isprintable()], ordinal
    sid = ids["claude-code"]
    revealed = asyncio.run(_tui_text(db, sid, ordinals(db, sid)["mnemonic"], reveal=True))
    assert corpus.MNEMONIC in revealed


def test_mcp_answers_hide_them_even_when_the_server_was_started_to_show_them(
        kb: tuple[Path, dict[str, str]], monkeypatch: pytest.MonkeyPatch) -> None:
    """An MCP answer goes to an agent and from there to a model's provider: it leaves the
    machine, so ``logkb --show-secrets mcp`` still answers redacted (the real server over
    stdio; every event of both sessions, past the default limit that stops short of round
    9's kinds)."""
    from tests.live import conftest as live

    db, ids = kb
    monkeypatch.setattr(live, "LOGKB", [*live.LOGKB, "--show-secrets"])
    client = live.McpClient(db)
    try:
        answers = [client.call("search", query="cast", limit=50),
                   client.call("search", query="configure", limit=50),
                   client.call("deadends", limit=50), client.call("untested", limit=50)]
        for sid in ids.values():
            answers.append(client.call("events", session=sid, limit=1000))
            answers.append(client.call("handoff", session=sid, max_tokens=20000))
    finally:
        client.close()
    text = json.dumps(answers, ensure_ascii=False)
    assert not leaks(text), leaks(text)
    for kind in NEW_KINDS:
        assert kind in text, kind
