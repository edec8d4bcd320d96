"""Faults a demanding user's pass found (ux14), each checked as the user meets it."""

from __future__ import annotations

import json
import os
import random
import shutil
from pathlib import Path

import pytest
from rich.cells import cell_len

from tests.cli_kb import invoke, lines

ROOT = Path(__file__).resolve().parents[1]
TRIM = ROOT / "fixtures" / "realworld_trim"
CODEX = TRIM / "codex_same_ms.jsonl"  # a Codex rollout: a 36-character session id


def _ingest(db: Path, *paths: Path) -> None:
    r = invoke("ingest", "--db", str(db), *map(str, paths))
    assert r.exit_code == 0, r.stderr


# ------------------------------------------------------------------ watch
def test_watch_names_sessions_by_their_short_id(tmp_path: Path) -> None:
    """``watch`` said ``019de7fa-55ca-7c71-8bc1-db36480b3ecc: +71 messages`` where
    ``ingest``, ``sessions`` and ``search`` say ``019de7f``; its ``--json`` carries the
    short id beside the id."""
    from tests.live.conftest import logkb

    src = tmp_path / "src"
    src.mkdir()
    shutil.copyfile(CODEX, src / CODEX.name)
    db = tmp_path / "kb.duckdb"
    p = logkb("watch", "--for", "2", "--poll", "0.3", "--db", str(db), str(src),
              env={**os.environ, "COLUMNS": "80"})
    assert p.returncode == 0, p.stderr
    said = [ln for ln in p.stderr.splitlines() if "messages (" in ln]
    r = invoke("sessions", "--db", str(db), "--json")
    (row,) = lines(r.stdout)
    assert said and said[0].startswith(f"{row['short_id']}: +"), p.stderr
    assert row["id"] not in p.stderr and len(row["id"]) == 36, p.stderr
    db.unlink()
    p = logkb("watch", "--json", "--for", "2", "--poll", "0.3", "--db", str(db), str(src))
    ingested = [e for e in lines(p.stdout) if e["event"] == "ingested"]
    assert ingested and ingested[0]["sessions"][0]["short_id"] == row["short_id"], p.stdout
    assert ingested[0]["sessions"][0]["id"] == row["id"]


# ------------------------------------------------------------------ replay
def _replay_session(tmp_path: Path) -> Path:
    """A session in a directory that exists here: two read-only commands, one file read,
    one mutating command, a todo list and an edit."""
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash, todowrite
    from fixtures.opencode_writer import write_jsonl

    work = tmp_path / "work"
    work.mkdir()
    (work / "notes.txt").write_text("hello\n")
    ctx = BuildContext(random.Random(5), directory=str(work), project_id="ef" * 20)
    ctx.files["notes.txt"] = "hello\n"
    s = SessionBuilder(ctx, title="replay counts", start_ms=1_790_000_000_000)
    s.user("look around")
    s.step("Listing.", [bash("ls", "notes.txt\n"), bash("pwd", f"{work}\n")])
    s.step("Reading.", [s.read("notes.txt")])
    s.step("Cleaning.", [bash("rm -f old.log", ""),
                         todowrite([{"content": "x", "status": "pending",
                                     "priority": "high"}])])
    s.step("Editing.", [s.edit("notes.txt", "hello", "bye")])
    s.step("Done.")
    return write_jsonl(s.tree(), tmp_path / "s.jsonl")


def test_replay_plan_says_what_its_step_count_counts(tmp_path: Path) -> None:
    """The plan said "7 commands: 3 to run, 4 skipped" (a todo list and an edit counted
    as commands) and "3 steps would run" without saying all three only read.  Now: the
    steps are the recorded tool calls; what would run is counted by safety class, shell
    commands apart from file reads; the calls replay never re-runs by tool; the session
    is named by its short id."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, _replay_session(tmp_path))
    r = invoke("replay", "plan", "--from", "1", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    out = r.stdout.splitlines()
    assert all(cell_len(ln) <= 80 for ln in out), out
    short = lines(invoke("sessions", "--db", str(db), "--json").stdout)[0]["short_id"]
    assert out[0] == f"replay plan · session {short} · messages 1–end", out[:4]
    assert out[1] == "6 steps, one per recorded tool call: 3 would run, 3 skipped", out[:4]
    assert out[2] == "  would run: all 3 read-only (2 shell commands, 1 file read)", out[:4]
    assert out[3] == "  never re-run by replay: 2 (todowrite 1, edit 1)", out[:4]
    assert "3 steps would run (all 3 read-only)" in " ".join(r.stderr.split()), r.stderr
    r = invoke("replay", "plan", "--from", "1", "--allow", "mutating", "--db", str(db),
               env={"COLUMNS": "80"})
    out = r.stdout.splitlines()
    assert out[1] == "6 steps, one per recorded tool call: 4 would run, 2 skipped", out[:4]
    assert out[2] == "  would run: 3 read-only, 1 mutating (3 shell commands, 1 file " \
                     "read)" or out[2:4] == [
        "  would run: 3 read-only, 1 mutating (3 shell commands, 1 file",
        "    read)"], out[:5]
    r = invoke("replay", "plan", "--from", "1", "--db", str(db), "--json")
    assert len(lines(r.stdout)) == 6  # the JSON: one line a step, as before


# ------------------------------------------------------------------ search
@pytest.mark.parametrize("query", [
    "AND", "OR", "NOT", '"', "(", ")", "()", '""', "git OR", "OR git", "AND git",
    "git AND", "git AND AND ls", "git OR OR ls", "(OR)", '"--"'])
def test_search_an_operator_alone_is_a_usage_error(tmp_path: Path, query: str) -> None:
    """``search AND`` and ``search OR`` listed every text of every session (exit 0), as did
    ``git OR`` and ``()``; ``AND git`` quietly searched ``git``; ``""`` said "no match"
    (exit 1), which it could never have found.  Each is a usage error (exit 2) that says
    what is wrong, with a hint to search the word or the character itself."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, CODEX)
    r = invoke("search", "--db", str(db), "--", query)
    assert r.exit_code == 2, (r.exit_code, r.stdout, r.stderr)
    assert r.stdout == ""
    err = r.stderr.splitlines()
    assert err[0].startswith("logkb: error: bad query: "), r.stderr
    assert len(err) == 2 and err[1].startswith("hint: "), r.stderr
    if query in ("AND", "OR", "NOT"):  # the word itself, quoted, is found
        assert f'"{query.lower()}"' in err[1], r.stderr


def test_search_operators_with_words_on_each_side_still_answer(tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    _ingest(db, CODEX)
    for q in ("ls OR nothingatall", "NOT kind:prompt", "(ls)", "ls AND NOT kind:prompt",
              '"init"', "nothingatall OR init"):
        r = invoke("search", "--db", str(db), "-n", "1", q)
        assert r.exit_code == 0, (q, r.stderr)
    r = invoke("search", "--db", str(db), "--json", "AND")
    assert r.exit_code == 2 and r.stdout == "", r.output
    with pytest.raises(Exception) as e:
        from kb.search.query import parse

        parse("git OR")
    assert json.dumps(str(e.value))  # a QueryError, said in words


# ------------------------------------------------------------------ filtered misses
def test_a_filtered_miss_says_what_was_asked_and_hints_only_true_places(
        tmp_path: Path) -> None:
    """``deadends --status blocked`` in a session with dead ends but none blocked said "no
    dead ends found" and "found in 808bbe0; use --session 808bbe0", where there were dead
    ends but none blocked either; ``untested --answered`` said "no untested questions" in
    a session with open ones.  The message names the filter; the hint names only a
    session the same filter finds something in."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, TRIM / "gemini_cli.jsonl", CODEX)  # dead ends in the first only
    r = invoke("deadends", "--status", "blocked", "--session", "019c5b3", "--db", str(db))
    assert r.exit_code == 0 and r.stdout == "", r.output
    assert r.stderr.startswith("no blocked approaches found in 019c5b3"), r.stderr
    assert "808bbe0" not in r.stderr, r.stderr
    r = invoke("deadends", "--session", "019c5b3", "--db", str(db))
    assert "no dead ends found in 019c5b3" in r.stderr and "808bbe0" in r.stderr, r.stderr
    r = invoke("untested", "--answered", "--session", "019c5b3", "--db", str(db))
    assert r.exit_code == 0 and r.stdout == "", r.output
    assert r.stderr.startswith("no answered untested questions in 019c5b3"), r.stderr
    assert "found in" not in r.stderr, r.stderr
    assert invoke("untested", "--session", "019c5b3", "--db", str(db)).stdout  # it has some


# ------------------------------------------------------------------ search: what the index lacks
HASH = "0367f4f328678305d283ed8fc7b71866df5f0523e7efa3ef00bb3abc2b77e541"


def _hash_session(tmp_path: Path) -> Path:
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(7), directory="/home/dev/tx", project_id="ab" * 20)
    s = SessionBuilder(ctx, title="send the payment", start_ms=1_790_000_000_000)
    s.user("send it")
    s.step("Sending.", [bash("stellar tx send", f"submitted: tx {HASH}\nfee => 100\n")])
    s.step("Done.")
    return write_jsonl(s.tree(), tmp_path / "s.jsonl")


@pytest.mark.parametrize("query", [HASH, HASH[:48], "=>"])
def test_search_finds_what_the_index_does_not_keep(tmp_path: Path, query: str) -> None:
    """A pasted transaction hash (64 hex digits: longer than the index keeps) said "no
    match" (exit 1) though the output held it, as did ``=>`` (no letter or digit).  Such
    a plain query is answered by scanning the text for it as typed, and stderr says so."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, _hash_session(tmp_path))
    r = invoke("search", "--db", str(db), "--", query)
    assert r.exit_code == 0, (r.stdout, r.stderr)
    assert query[:20] in r.stdout, r.stdout
    assert "scanned the text" in r.stderr, r.stderr
    assert all(cell_len(ln) <= 80 for ln in r.stderr.splitlines()), r.stderr
    r = invoke("search", "--db", str(db), "--json", "--", query)
    assert [h["ordinal"] for h in lines(r.stdout)] == [2], r.stdout
    r = invoke("search", "--db", str(db), "--", "f" * 64)  # still a miss where there is none
    assert r.exit_code == 1, r.output


# ------------------------------------------------------------------ rebuild
def test_rebuild_of_a_session_that_is_not_there_fails_before_any_work(
        tmp_path: Path) -> None:
    """``rebuild --events --session nosuch`` said "derived again the events of 0 sessions"
    and exited 0 (a mistyped id did nothing, silently); without --events it derived the
    events of every stale session first, then failed.  The session is resolved first:
    not found, exit 6, nothing done."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, CODEX)
    for extra in (["--events"], [], ["--index"]):
        r = invoke("rebuild", "--session", "nosuch", *extra, "--db", str(db))
        assert r.exit_code == 6, (extra, r.output)
        assert "derived" not in r.stderr and "search index" not in r.stderr, r.stderr
        assert r.stderr.startswith("logkb: error: no session 'nosuch'"), r.stderr
    r = invoke("rebuild", "--session", "019c5b3", "--events", "--db", str(db), "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["events"]["sessions"] == [], r.output


# ------------------------------------------------------------------ timeline
def test_timeline_width_is_the_chart_asked_for(tmp_path: Path, realworld: Path) -> None:
    """``timeline --width 60`` at 80 columns cut every line at 80: the chart the user asked
    for was cut away ("messages    5…").  An explicit --width prints the chart whole;
    without it the lines fit the terminal as before."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, realworld / "pool" / "Rivo__codex-session.jsonl")
    r = invoke("timeline", "--width", "60", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    head = r.stdout.splitlines()[0]
    assert head.startswith("messages") and not head.endswith("…"), head
    assert cell_len(head) > 80 and head.split()[-1].isdigit(), head  # the last ordinal
    r = invoke("timeline", "--db", str(db), env={"COLUMNS": "80"})
    assert all(cell_len(ln) <= 80 for ln in r.stdout.splitlines()), r.stdout


# ------------------------------------------------------------------ modes and ranges
@pytest.mark.parametrize(("args", "said"), [
    (["replay", "plna", "--from", "1"], "No such command 'plna'. Did you mean 'plan'?"),
    (["mark", "deadend", "5", "x"], "No such command 'deadend'. Did you mean 'dead-end'?"),
    (["mark", "bogus", "5"], "No such command 'bogus'."),
    (["nosuch"], "No such command 'nosuch'.")])
def test_a_mistyped_mode_is_named(tmp_path: Path, args: list[str], said: str) -> None:
    """``replay plna --from 1`` said "Got unexpected extra argument (plna)" and ``mark
    bogus 5`` "'bogus' is not a valid integer": a word where a mode goes went to the old
    flag form.  It is a usage error that names the word, the nearest mode and them all;
    the hint points at the commands."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, CODEX)
    r = invoke(*args, "--db", str(db))
    assert r.exit_code == 2, r.output
    assert r.stderr.startswith(f"logkb: error: {said}"), r.stderr
    assert "-h shows its commands" in r.stderr, r.stderr
    r = invoke("mark", "5", "--note", "old form", "--db", str(db))  # the old form still works
    assert r.exit_code == 0 and "deprecated" in r.stderr, r.output


def test_replay_from_past_the_end_is_not_found(tmp_path: Path) -> None:
    """``replay --from 5200`` in a session of 6 messages said "no command events in 019c5b3
    from 5200" and exited 0; ``show 5200`` says the session has no message 5200 (exit 6):
    so does replay now."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, CODEX)
    r = invoke("replay", "plan", "--from", "5200", "--db", str(db))
    assert r.exit_code == 6, r.output
    assert "session 019c5b3 has no message 5200 (its messages are 1–6)" in r.stderr


def test_timeline_from_keeps_to_the_range_asked(tmp_path: Path, realworld: Path) -> None:
    """``timeline --from 60`` in Rivo's session (one approach, 52–59) drew 52–59: the
    range asked for was ignored; ``--from 1 --to 10`` said "no approaches or measurements
    yet", as if there were none at all.  An approach is shown when it runs into the
    range, the axis starts where asked, and an empty range says which."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, realworld / "pool" / "Rivo__codex-session.jsonl")
    whole = invoke("timeline", "--db", str(db), env={"COLUMNS": "80"}).stdout.splitlines()
    assert whole[0].split()[1:] == ["52", "59"], whole
    r = invoke("timeline", "--from", "60", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0 and r.stdout == "", r.output
    assert r.stderr.strip() == "no approaches or measurements in messages 60–end", r.stderr
    r = invoke("timeline", "--from", "1", "--to", "10", "--db", str(db))
    assert r.stderr.strip() == "no approaches or measurements in messages 1–10", r.stderr
    r = invoke("timeline", "--from", "55", "--db", str(db), env={"COLUMNS": "80"})
    assert r.stdout.splitlines()[0].split()[1:] == ["55", "59"], r.stdout
    assert len(r.stdout.splitlines()) == 2, r.stdout  # the approach that runs into it


def test_events_from_past_the_end_says_so(tmp_path: Path) -> None:
    """``events --from 99999`` said "no events in 019c5b3 match", as a filter that missed
    would: it says the range starts past the session's end (still exit 0, as every list
    that is empty)."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, CODEX)
    r = invoke("events", "--from", "99999", "--db", str(db))
    assert r.exit_code == 0 and r.stdout == "", r.output
    assert "--from 99999 is past its end: its messages are 1–6" in r.stderr, r.stderr


def test_search_here_says_which_session_it_chose(tmp_path: Path) -> None:
    """``search --here`` with no current session searched the latest ingested one without
    a word, where every other command about "the" session says on stderr which one."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, TRIM / "gemini_cli.jsonl")
    _ingest(db, CODEX)
    r = invoke("search", "--here", "--db", str(db), "ls")
    assert r.exit_code == 0, r.output
    assert "session 019c5b3" in r.stderr and "the latest ingested" in r.stderr, r.stderr
