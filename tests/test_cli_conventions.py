"""What a power user expects of the CLI: a current session, literal transcript text,
-h / -n / --db before the command, usage errors that list valid values, not-found exits,
quiet `| head`, a hand-off brief for any session."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kb.exitcodes import ExitCode

from .cli_kb import CURIOUS, FIXTURE, MARKUP, invoke, lines, markup_session, several_sessions

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def many(blackwell_db: Path, realworld: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return several_sessions(blackwell_db, realworld,
                            tmp_path_factory.mktemp("conv") / "kb.duckdb")


@pytest.fixture
def markup_db(tmp_path: Path) -> Path:
    db = tmp_path / "m.duckdb"
    r = invoke("ingest", "--db", str(db), str(markup_session(tmp_path / "m.jsonl")))
    assert r.exit_code == 0, r.stderr
    assert MARKUP in r.stdout  # the ingest summary prints the title literally
    return db


# ------------------------------------------------------------ current session
def test_default_says_which_session_it_chose(many: Path) -> None:
    r = invoke("deadends", "--db", str(many))
    # the latest ingested is a real session without dead ends: the miss says where
    assert "latest ingested" in r.stderr and "of 3 sessions" in r.stderr
    assert "found in ses_e88a22c;" in r.stderr and "--all" in r.stderr


def test_use_makes_a_session_current(many: Path, tmp_path: Path) -> None:
    import shutil

    db = tmp_path / "k.duckdb"
    shutil.copyfile(many, db)
    r = invoke("use", "RTX blackwell", "--db", str(db))  # words of its title
    assert r.exit_code == 0 and r.stdout.startswith(f"now using {FIXTURE[:11]}  ")
    # named by its short id, as `sessions` names it (ux15: the full id, 36 columns)
    said = invoke("use", "--db", str(db)).stdout
    rows = lines(invoke("sessions", "--db", str(db), "--json").stdout)
    short = next(r["short_id"] for r in rows if r["id"] == FIXTURE)
    assert said.startswith(f"{short}  ") and FIXTURE not in said, said
    assert invoke("use", short, "--db", str(db)).exit_code == 0  # and taken back
    dead = invoke("deadends", "--db", str(db), "--json")
    assert {d["session_id"] for d in lines(dead.stdout)} == {FIXTURE}
    assert "current session (`logkb use`)" in dead.stderr
    rows = lines(invoke("sessions", "--db", str(db), "--json").stdout)
    assert [r["id"] for r in rows if r["current"]] == [FIXTURE]
    table = invoke("sessions", "--db", str(db), env={"COLUMNS": "120"}).stdout
    assert next(ln for ln in table.splitlines() if FIXTURE[:11] in ln).startswith("▶")
    # a prefix works too, an unknown one is not found
    assert invoke("use", CURIOUS[:10], "--db", str(db)).exit_code == 0
    assert invoke("use", "--db", str(db), "--json").stdout.count(CURIOUS) == 1
    assert invoke("use", "zzz-nothing", "--db", str(db)).exit_code == ExitCode.NOT_FOUND
    assert invoke("use", "--clear", "--db", str(db)).exit_code == 0
    assert json.loads(invoke("use", "--db", str(db), "--json").stdout)["current"] is None


def test_all_names_each_rows_session(many: Path) -> None:
    r = invoke("deadends", "--all", "--db", str(many), env={"COLUMNS": "200"})
    assert FIXTURE[:11] in r.stdout and FIXTURE not in r.stdout  # by short id


def test_why_with_several_matches_lists_them(many: Path) -> None:
    r = invoke("why", "allreduce", "--session", FIXTURE, "--db", str(many))
    assert r.exit_code == 0
    for name in ("FlashInfer allreduce fusion", "Custom allreduce on PCIe",
                 "Torch symmetric memory allreduce"):
        assert name in r.stdout
    assert "approaches match 'allreduce'" in r.stderr
    one = invoke("why", "NCCL_ALGO=Tree", "--session", FIXTURE, "--db", str(many))
    assert one.stdout.startswith("✘ NCCL_ALGO=Tree")


# ------------------------------------------------------------ literal text
def test_transcript_text_is_printed_literally(markup_db: Path) -> None:
    db = str(markup_db)
    env = {"COLUMNS": "200"}
    for args in (["sessions"], ["events"], ["show", "2"], ["show", "1"],
                 ["search", "bold"], ["query", "SELECT title FROM sessions"],
                 ["handoff"], ["timeline"]):
        out = invoke(*args, "--db", db, env=env).stdout
        if args[0] in ("timeline",):
            continue  # no approaches: nothing of the transcript to show
        assert MARKUP in out, (args, out)
        assert "❌" not in out and "🅱" not in out, args


# ------------------------------------------------------------ conventions
def test_h_db_before_the_command_and_n(many: Path) -> None:
    assert invoke("-h").exit_code == 0 and "Usage" in invoke("events", "-h").stdout
    r = invoke("--db", str(many), "events", "--session", FIXTURE, "-n", "3", "--json")
    assert r.exit_code == 0 and len(lines(r.stdout)) == 3
    r = invoke("--db", str(many), "sessions", "-n", "1", "--json")
    rows = lines(r.stdout)  # one top-level session, with its subagent
    assert [x["id"] for x in rows if x["parent_id"] is None] == [FIXTURE] and len(rows) == 2


def test_invalid_choices_are_usage_errors_listing_the_valid_ones(many: Path) -> None:
    r = invoke("events", "--kind", "comand", "--db", str(many))
    assert r.exit_code == ExitCode.USAGE and "'comand' is not a valid kind" in r.stderr
    assert "command, result" in r.stderr
    r = invoke("events", "--category", "benchmark,bogus", "--db", str(many))
    assert r.exit_code == ExitCode.USAGE and "search, import-check" in r.stderr
    r = invoke("deadends", "--status", "dead", "--db", str(many))
    assert r.exit_code == ExitCode.USAGE and "dead_end, blocked, superseded" in r.stderr
    ok = invoke("deadends", "--status", "blocked", "--session", FIXTURE, "--db", str(many),
                "--json")
    assert {d["status"] for d in lines(ok.stdout)} == {"blocked"}


def test_not_found_exits_6(many: Path, tmp_path: Path) -> None:
    import shutil

    db = tmp_path / "k.duckdb"
    shutil.copyfile(many, db)
    r = invoke("unmark", "--id", "999", "--session", FIXTURE, "--db", str(db))
    assert r.exit_code == ExitCode.NOT_FOUND and "no annotation #999" in r.stderr
    r = invoke("ingest", "/nonexistent", "--db", str(db))
    assert r.exit_code == ExitCode.NOT_FOUND and "/nonexistent" in r.stderr


def test_head_ends_quietly(many: Path) -> None:
    env = dict(os.environ, COLUMNS="80")
    cmd = (f"{sys.executable} -m kb events --db {many} --session {FIXTURE} | head -n 2; "
           "echo rc=${PIPESTATUS[0]}")
    p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True, env=env,
                       timeout=120)
    assert p.stdout.count("\n") == 3 and "rc=0" in p.stdout, p.stdout
    assert "Traceback" not in p.stderr and "BrokenPipe" not in p.stderr, p.stderr


# ------------------------------------------------------------ handoff
def test_handoff_brief_on_the_fixture(many: Path, tmp_path: Path) -> None:
    out = tmp_path / "brief.md"
    r = invoke("handoff", "--session", FIXTURE, "--db", str(many), "-o", str(out))
    assert r.exit_code == 0
    md = out.read_text()
    flat = _flat(md)  # the brief's prose wraps at 80 columns
    assert "## Status" in md and "**89.5 tok/s**" in flat and "Baseline: 81.47" in flat
    assert "Goal: **not met**" in md
    # one row per approach: the goal's todo is not repeated, outcomes do not repeat names
    tried = " ".join(md.split("## What was tried")[1].split("##")[0].split())
    assert tried.count("Measure baseline vs EAGLE-3") == 1
    assert ("- **Baseline with --cuda-graph-max-bs 128** (confirmed): proposed [5222], "
            "tested [5224] — 89.5") in tried
    # the untested question carries its caveat; the last decision is whole
    assert "caveat [5217]: a later check found: Package(s) not found: deep_ep, deepep" in flat
    assert "then the allreduce experiments are worth re-running." in flat
    assert "```sh" in md and "--cuda-graph-max-bs 128" in md.split("## Reproduce")[1]
    assert "torch 2.10.0+cu128" in flat and "root@10.1.230.174" in flat
    brief = json.loads(invoke("handoff", "--session", FIXTURE, "--db", str(many),
                              "--json").stdout)
    assert brief["status"]["best"]["value"] == 89.5 and brief["status"]["goal_met"] is False


def _flat(md: str) -> str:
    """Markdown as one line: wrapped lines (in quotes too) joined again."""
    import re

    return " ".join(re.sub(r"\n(?:> ?)+", "\n", md).split())


def test_handoff_max_tokens_keeps_ordinals(many: Path) -> None:
    full = invoke("handoff", "--session", FIXTURE, "--db", str(many)).stdout
    short = invoke("handoff", "--session", FIXTURE, "--db", str(many), "--max-tokens",
                   "700").stdout
    from kb.handoff import estimate_tokens

    assert estimate_tokens(short) <= 700 < estimate_tokens(full)
    assert "[5216]" in short and "left out to fit --max-tokens" in short


def test_handoff_on_a_real_session_without_dead_ends(many: Path) -> None:
    md = _flat(invoke("handoff", "--session", CURIOUS, "--db", str(many)).stdout)
    assert "No approach was recorded as a dead end." in md
    assert "## What the session did" in md and "files edited:" in md
    assert "How it ended" in md and "Ended at message 40" in md
    assert "Turn the current working tree into a clean set of meaningful commits" in md
