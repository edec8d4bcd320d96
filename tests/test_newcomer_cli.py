"""What a newcomer meets first on the command line (issue 26): short ids, the agent of every
session and the command that resumes it, a search that says what it searched and what it
did not find, `why` about nothing, one voice for errors, plurals, `secrets --session`, the
`Exporting session:` line, `use` with unquoted words."""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

import pytest

from kb.exitcodes import ExitCode
from kb.sessionref import resume_command, short_ids
from tests.cli_kb import FIXTURE, invoke, lines, markup_session

POOL = Path(__file__).resolve().parents[1].parent / "shared" / "realworld" / "pool"
CLAUDE = POOL.parent / "claude-code" / "hello-world-script" / "transcript.jsonl"
CODEX = POOL / "privacy-x402__codex-session.jsonl"
OPENCODE = POOL / "matugen-theme-sync__opencode-session.json"


# ------------------------------------------------------------------ short ids
def test_short_ids_are_the_shortest_unique_prefix_of_at_least_7() -> None:
    got = short_ids(["ses_e88a22cffffeAAA", "ses_e88a22cfaaaaBBB", "ses_1234567890",
                     "019aad50-a7e6-7422", "019aad51-0000", "de3b8b19-5bc0"])
    assert got["ses_e88a22cffffeAAA"] == "ses_e88a22cff"  # 12 shared, one more
    assert got["ses_e88a22cfaaaaBBB"] == "ses_e88a22cfa"
    assert got["ses_1234567890"] == "ses_1234567"  # ses_ is not counted in the 7
    assert got["019aad50-a7e6-7422"] == "019aad50"
    assert got["de3b8b19-5bc0"] == "de3b8b1"
    assert short_ids(["abc"]) == {"abc": "abc"}


@pytest.fixture(scope="module")
def agents_db(blackwell_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The fixture campaign, a real Claude Code session and a real Codex session."""
    db = tmp_path_factory.mktemp("agents") / "kb.duckdb"
    shutil.copyfile(blackwell_db, db)
    r = invoke("ingest", "--db", str(db), str(CLAUDE), str(CODEX))
    assert r.exit_code == 0, r.stderr
    # the search index is built by the first search, which says so on stderr: build it
    # here, so that no test's stderr depends on which test of the module ran first
    # (under pytest-xdist the module's tests are spread over the workers)
    r = invoke("rebuild", "--index", "--all", "--db", str(db))
    assert r.exit_code == 0, r.stderr
    return db


def test_sessions_table_fits_80_columns_with_short_ids_and_agents(agents_db: Path) -> None:
    r = invoke("sessions", "--db", str(agents_db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    rows = r.stdout.splitlines()
    assert rows[0].split()[:3] == ["session", "agent", "title"]
    assert all(len(x) <= 80 for x in rows)
    assert FIXTURE not in r.stdout and "ses_e88a22c " in r.stdout
    assert {"opencode", "claude-code", "codex"} <= set(r.stdout.split())


def test_every_session_names_its_resume_command(agents_db: Path) -> None:
    rows = lines(invoke("sessions", "--db", str(agents_db), "--json").stdout)
    by_agent = {r["agent"] or "opencode": r for r in rows if r["parent_id"] is None}
    assert by_agent["claude-code"]["resume"] == f"claude --resume {by_agent['claude-code']['id']}"
    assert by_agent["codex"]["resume"] == f"codex resume {by_agent['codex']['id']}"
    assert by_agent["opencode"]["resume"] == f"opencode --session {FIXTURE}"
    for r in rows:
        assert r["id"].startswith(r["short_id"]) and len(r["short_id"]) >= 7
    # the table's detail of one session, asked for by its short id without `ses_`
    detail = invoke("sessions", "e88a22c", "--db", str(agents_db))
    assert detail.exit_code == 0, detail.stderr
    assert f"resume:    opencode --session {FIXTURE}" in detail.stdout
    assert "agent:     opencode" in detail.stdout


def test_short_ids_are_accepted_as_input(agents_db: Path) -> None:
    codex = next(r for r in lines(invoke("sessions", "--db", str(agents_db), "--json").stdout)
                 if r["agent"] == "codex")
    r = invoke("events", "--session", codex["short_id"], "-n", "1", "--json",
               "--db", str(agents_db))
    assert r.exit_code == 0 and lines(r.stdout)[0]["session_id"] == codex["id"]
    r = invoke("show", "5216", "--session", "e88a22c", "--db", str(agents_db))
    assert r.exit_code == 0 and "Host key verification failed" in r.stdout


def test_resume_prints_and_only_runs_with_exec(agents_db: Path, tmp_path: Path) -> None:
    claude = next(r for r in lines(invoke("sessions", "--db", str(agents_db), "--json").stdout)
                  if r["agent"] == "claude-code")
    r = invoke("resume", claude["short_id"], "--db", str(agents_db))
    assert r.exit_code == 0 and r.stdout.strip() == f"claude --resume {claude['id']}"
    # --exec runs the agent itself (os.execvp): a stand-in `claude` on PATH records its argv
    import subprocess
    import sys

    bindir = tmp_path / "bin"
    bindir.mkdir()
    record = tmp_path / "argv.txt"
    fake = bindir / "claude"
    fake.write_text(f"#!/bin/sh\necho \"$@\" > {record}\n")
    fake.chmod(fake.stat().st_mode | stat.S_IXUSR)
    env = dict(os.environ, PATH=f"{bindir}:{os.environ['PATH']}",
               PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    p = subprocess.run([sys.executable, "-m", "kb", "resume", claude["short_id"], "--exec",
                        "--db", str(agents_db)], capture_output=True, text=True, env=env,
                       timeout=60)
    assert p.returncode == 0, p.stderr
    assert record.read_text().split() == ["--resume", claude["id"]]
    # no agent on PATH: an error that says what to do, nothing run
    p = subprocess.run([sys.executable, "-m", "kb", "resume", claude["short_id"], "--exec",
                        "--db", str(agents_db)], capture_output=True, text=True,
                       env=dict(env, PATH="/nonexistent"), timeout=60)
    assert p.returncode == ExitCode.NOT_FOUND
    assert p.stderr.startswith("logkb: error: claude is not on PATH") and "hint:" in p.stderr
    assert resume_command("codex", "x y") == "codex resume 'x y'"


# -------------------------------------------------------------------- search
def test_search_help_says_it_searches_every_session() -> None:
    text = invoke("search", "--help").stdout
    assert "EVERY session" in text and "--here" in text and "--session" in text


def test_search_hits_name_session_agent_and_ordinal(agents_db: Path) -> None:
    r = invoke("search", "Host key verification failed", "--db", str(agents_db),
               env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    head, hit = r.stdout.splitlines()[:2]
    assert head.startswith("ses_e88a22c  opencode  We have 8x RTX PRO 6000")
    assert hit.split()[:2] == ["5216", "output"]
    assert all(len(x) <= 80 for x in r.stdout.splitlines())
    js = lines(invoke("search", "Host key verification failed", "--json",
                      "--db", str(agents_db)).stdout)
    assert js[0]["short_id"] == "ses_e88a22c" and js[0]["agent"] == "opencode"
    assert js[0]["resume"] == f"opencode --session {FIXTURE}"


def test_search_narrows_with_session_and_here(agents_db: Path, tmp_path: Path) -> None:
    everywhere = lines(invoke("search", "git", "--json", "-n", "200",
                              "--db", str(agents_db)).stdout)
    assert len({h["session_id"] for h in everywhere}) >= 2
    db = tmp_path / "kb.duckdb"
    shutil.copyfile(agents_db, db)
    assert invoke("use", "e88a22c", "--db", str(db)).exit_code == 0
    here = lines(invoke("search", "git", "--here", "--json", "-n", "200",
                        "--db", str(db)).stdout)
    assert here and {h["session_id"] for h in here} == {FIXTURE}
    one = lines(invoke("search", "git", "--session", "e88a22c", "--json", "-n", "200",
                       "--db", str(db)).stdout)
    assert {h["session_id"] for h in one} == {FIXTURE}


def test_search_miss_exits_1_with_a_hint(agents_db: Path) -> None:
    r = invoke("search", "zzyzx-never-said", "--db", str(agents_db))
    assert r.exit_code == 1 and r.stdout == ""
    assert r.stderr.startswith("logkb: no match for 'zzyzx-never-said' in 3 sessions")
    assert "hint:" in r.stderr and "--regex" in r.stderr and "tried" in r.stderr
    # a spelling that would match is named
    r = invoke("search", "flashinf", "--db", str(agents_db))
    assert r.exit_code == 1 and "logkb search 'flashinf*'" in r.stderr
    r = invoke("search", "zzyzx", "--here", "--db", str(agents_db))
    assert r.exit_code == 1 and "in session " in r.stderr


def test_why_about_nothing_known_exits_6(agents_db: Path) -> None:
    r = invoke("why", "nonexistent-error", "--session", "e88a22c", "--db", str(agents_db))
    assert r.exit_code == 6 and r.stdout == ""
    assert r.stderr.startswith("logkb: nothing known about 'nonexistent-error'")
    assert "hint:" in r.stderr
    ok = invoke("why", "DeepEP", "--session", "e88a22c", "--db", str(agents_db))
    assert ok.exit_code == 0 and "DeepEP" in ok.stdout


# ------------------------------------------------------------------ one voice
@pytest.mark.parametrize("args", [
    ("events", "--kind", "bogus"),
    ("show", "999999"),
    ("search", "a("),
    ("nosuchcommand",),
    ("sessions", "--bogus-flag"),
    ("use", "zzz-nothing-like-it"),
])
def test_errors_speak_in_one_voice(agents_db: Path, args: tuple[str, ...]) -> None:
    r = invoke(*args, "--db", str(agents_db)) if args[0] != "nosuchcommand" else \
        invoke("--db", str(agents_db), *args)
    assert r.exit_code in (ExitCode.USAGE, ExitCode.NOT_FOUND), (r.exit_code, r.stderr)
    errors = [x for x in r.stderr.splitlines() if "rror" in x]
    assert errors and all(x.startswith("logkb: error: ") for x in errors), r.stderr
    assert "Error:" not in r.stderr and "Usage:" not in r.stderr


def test_plurals_and_the_exporting_session_line(tmp_path: Path) -> None:
    saved = tmp_path / "saved.json"  # `opencode export ID > f 2>&1` keeps its status line
    sid = json.loads(OPENCODE.read_bytes())["info"]["id"]
    saved.write_bytes(f"Exporting session: {sid}\n".encode() + OPENCODE.read_bytes())
    r = invoke("ingest", "--db", str(tmp_path / "kb.duckdb"), str(saved))
    assert r.exit_code == 0, r.stderr
    assert "note:" in r.stderr and "Exporting session:" in r.stderr
    assert "1 session, " in r.stderr and "0 problems" in r.stderr
    assert "1 sessions" not in r.stderr


def test_secrets_of_one_session_count_only_that_session(tmp_path: Path) -> None:
    from fixtures import secrets_session

    src = tmp_path / "leaky"
    src.mkdir()
    secrets_session.write(src)
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), str(src / "export.json"),
               str(markup_session(tmp_path / "m.jsonl")))
    assert r.exit_code == 0, r.stderr
    everything = json.loads(invoke("secrets", "--json", "--db", str(db)).stdout)
    assert everything["summary"]["kinds"]
    leaky = json.loads((src / "export.json").read_text())["info"]["id"]
    clean = next(r["id"] for r in lines(invoke("sessions", "--json", "--db", str(db)).stdout)
                 if r["id"] != leaky and r["parent_id"] is None)
    one = json.loads(invoke("secrets", "--session", clean, "--json", "--db", str(db)).stdout)
    assert one["findings"] == [] and one["summary"]["kinds"] == {}
    table = invoke("secrets", "--session", clean, "--db", str(db))
    assert "no secrets found" in table.stderr and "secret(s)" not in table.stderr


def test_use_takes_unquoted_words_as_one_title(agents_db: Path, tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    shutil.copyfile(agents_db, db)
    r = invoke("use", "RTX", "PRO", "6000", "--db", str(db))
    assert r.exit_code == 0, r.stderr
    assert json.loads(invoke("use", "--json", "--db", str(db)).stdout)["current"] == FIXTURE


def test_a_subagents_session_resumes_the_one_that_spawned_it() -> None:
    """Claude Code and Codex resume a conversation, not a sidechain in it (opencode resumes
    any session by its id)."""
    from kb.cli.read import _resume_ids

    rows = [{"session_id": "top", "parent_id": None, "agent": "claude-code"},
            {"session_id": "side", "parent_id": "top", "agent": "claude-code"},
            {"session_id": "deeper", "parent_id": "side", "agent": "claude-code"},
            {"session_id": "ses_p", "parent_id": None, "agent": None},
            {"session_id": "ses_c", "parent_id": "ses_p", "agent": None}]
    assert _resume_ids(rows) == {"top": "top", "side": "top", "deeper": "top",
                                 "ses_p": "ses_p", "ses_c": "ses_c"}
