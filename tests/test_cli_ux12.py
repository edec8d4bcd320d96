"""Faults a demanding user's pass found (ux12), each checked as the user meets it: the
commands in a pipe at ``COLUMNS=80``."""

from __future__ import annotations

from pathlib import Path

from rich.cells import cell_len

from tests.cli_kb import invoke


def test_ingest_notes_fit_the_columns_a_pipe_is_given(tmp_path: Path, realworld: Path
                                                      ) -> None:
    """``COLUMNS=80 logkb ingest … 2>&1 | less``: the note on a rewrite ran to 185 columns
    and the skipped records to 121 (one line each, for a terminal only).  With the width
    said they wrap under their label at word ends; without it they stay one line (what
    reads a pipe then is a program: ``grep note:``), as an error and a ``problem:
    FILE:LINE:`` line always do in a pipe (tests/test_cli_ux2.py)."""
    src = realworld / "pool" / "trade_arena__codex-session.jsonl"
    r = invoke("ingest", "--db", str(tmp_path / "a.duckdb"), str(src),
               env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    err = r.stderr.splitlines()
    assert all(cell_len(ln) <= 80 for ln in err), err
    at = next(i for i, ln in enumerate(err) if ln.startswith("note: "))
    assert err[at + 1].startswith("  ") and not err[at + 1].startswith("   ")
    said = " ".join(" ".join(err).split())
    assert f"note: {src}: a rewrite of a codex session, not the agent's own output" in said
    assert f"{src}: skipped 8 records of 2 unknown types (kept raw)" in said
    r = invoke("ingest", "--db", str(tmp_path / "b.duckdb"), str(src), env={"COLUMNS": ""})
    (note,) = [ln for ln in r.stderr.splitlines() if ln.startswith("note: ")]
    assert note.endswith("with no tool calls or outputs")
    assert f"{src}: skipped 8 records of 2 unknown types (kept raw): " in r.stderr


def _fits(text: str, cols: int = 80) -> list[str]:
    lines = text.splitlines()
    assert all(cell_len(ln) <= cols for ln in lines), [ln for ln in lines
                                                        if cell_len(ln) > cols]
    return lines


def test_the_notes_a_user_meets_fit_80_columns(tmp_path: Path, realworld: Path) -> None:
    """Piped at ``COLUMNS=80``: ``use`` with none chosen said 82 columns, ``why`` of an
    unknown name a 111-column hint, ``measurements`` its harness note in 96, and ``resume``
    the directory to run in (a path with spaces) in 82.  Each fits now; the path is whole
    on a line of its own (wrapped at its spaces it would no longer paste)."""
    db = str(tmp_path / "kb.duckdb")
    da = realworld / "pool" / "blockchain-dex-events__claude-session.jsonl"
    r = invoke("ingest", "--db", db, str(da))
    assert r.exit_code == 0, r.stderr
    w80 = {"COLUMNS": "80"}
    r = invoke("use", "--db", db, env=w80)
    assert r.exit_code == 6 and _fits(r.stderr) == [
        "no current session: commands use the latest ingested (`logkb use ID` sets one)"]
    r = invoke("why", "zzzz-nothing", "--db", db, env=w80)
    assert r.exit_code == 6
    said = _fits(r.stderr)
    at = next(i for i, ln in enumerate(said) if ln.startswith("hint: "))
    assert said[at + 1].startswith("  ")
    assert "`logkb search zzzz-nothing` looks in the transcripts" in " ".join(
        " ".join(said).split())
    r = invoke("measurements", "--db", db, env=w80)
    assert r.exit_code == 0 and "harness readings" in r.stderr
    assert "--harness shows them" in " ".join(_fits(r.stderr))
    assert _fits(invoke("resume", "--db", db, env=w80).stderr) == [
        "(run it in /Users/shijie/Documents/Personal)"]  # short: one line, as before
    speak = realworld / "labelled" / "speakfree__session.jsonl"
    assert invoke("ingest", "--db", db, str(speak)).exit_code == 0
    r = invoke("resume", "7d48b15", "--db", db, env=w80)
    assert r.exit_code == 0 and r.stdout.startswith("claude --resume 7d48b15")
    assert _fits(r.stderr) == [
        "run it in:",
        "  '/Users/mikemorgenstern/TIDR Dropbox/TIDR Team Folder/RG Collab Admin'"]


def test_a_graph_derived_in_a_pipe_leaves_no_blank_line(tmp_path: Path,
                                                         realworld: Path) -> None:
    """Over 1,000 messages the graphs are derived under a progress bar; in a pipe rich
    drew no bar but left an empty line on stderr when it stopped ("\\n" before ``no dead
    ends found in …``)."""
    lab = realworld / "labelled"
    db = str(tmp_path / "kb.duckdb")
    r = invoke("ingest", "--db", db, str(lab / "k1.lib-bootstrap__session-export.json"),
               str(lab / "uicomponents__session-wordpress.json"))  # 619 + 393 messages
    assert r.exit_code == 0, r.stderr
    r = invoke("rebuild", "--graph", "--all", "--db", db)
    assert r.exit_code == 0, r.stderr
    (said,) = r.stderr.splitlines()  # no empty line before it
    assert said.startswith("derived 2 knowledge graphs"), r.stderr


def test_a_path_watch_waits_for_is_said(tmp_path: Path) -> None:
    """``watch MISTYPED`` waited in silence in a pipe (and on a terminal said only
    "watching 1 path"): a path that does not exist is said once, and waited for."""
    gone = tmp_path / "no-such-store"
    r = invoke("watch", "--for", "0.2", "--db", str(tmp_path / "kb.duckdb"), str(gone))
    assert r.exit_code == 0, r.stderr
    assert r.stderr.splitlines()[0] == f"watch: {gone}: does not exist yet; waiting for it"


def test_an_ordinal_or_a_count_that_is_not_one_is_said_plainly(tmp_path: Path) -> None:
    """Click's words were "'abc' is not a valid integer range" and "0 is not in the range
    x>=1"; ``events --from -1`` was taken (and matched every message)."""
    db = str(tmp_path / "kb.duckdb")
    for args, opt, value in ((["show", "abc"], "'ORDINAL'", "'abc'"),
                             (["show", "0"], "'ORDINAL'", "'0'"),
                             (["events", "--from", "-1"], "'--from'", "'-1'"),
                             (["replay", "plan", "--from", "0"], "'--from'", "'0'"),
                             (["sessions", "-n", "0"], "'-n' / '--limit'", "'0'")):
        r = invoke(*args, "--db", db)
        assert r.exit_code == 2, (args, r.stderr)
        assert r.stderr.splitlines()[0] == (
            f"logkb: error: Invalid value for {opt}: {value} is not a whole number of 1 "
            "or more"), r.stderr


def test_one_session_indexed_is_said_in_the_singular(tmp_path: Path, realworld: Path
                                                      ) -> None:
    db = str(tmp_path / "kb.duckdb")
    src = realworld / "pool" / "Xeus__claude-session.jsonl"
    assert invoke("ingest", "--db", db, str(src)).exit_code == 0
    r = invoke("search", "zzqqxx-nothing", "--db", db)
    assert r.exit_code == 1
    assert r.stderr.splitlines()[0].startswith("search index: 1 session indexed, 0 grown, ")


def test_annotations_are_said_by_short_id_and_what_they_say(tmp_path: Path,
                                                            realworld: Path) -> None:
    """``mark`` answered "annotation #2: link at - in bd4364e0-…" (the whole id, and a
    link said nothing of what it linked); ``mark list`` printed "#1 <whole id> 1 note x "
    (a blank at the end); a message past the end was named by the whole id too."""
    db = str(tmp_path / "kb.duckdb")
    assert invoke("ingest", "--db", db,
                  str(realworld / "pool" / "Xeus__claude-session.jsonl")).exit_code == 0
    r = invoke("mark", "note", "1", "look here", "--db", db)
    assert r.exit_code == 0 and r.stdout == "annotation #1 in bd4364e: note at 1: look here\n"
    r = invoke("mark", "link", "1", "2", "--db", db)
    assert r.stdout == "annotation #2 in bd4364e: link: 1 → 2\n"
    r = invoke("mark", "list", "--db", db)
    assert r.stdout.splitlines() == ["#1 bd4364e note at 1: look here",
                                     "#2 bd4364e link: 1 → 2"]
    r = invoke("mark", "dead-end", "99", "why", "--db", db)
    assert r.exit_code == 6
    assert r.stderr == ("logkb: error: session bd4364e has no message 99 (its messages are "
                        "1–2)\n")


def test_ingest_wait_says_what_it_does_after_the_last_input(tmp_path: Path,
                                                           realworld: Path) -> None:
    """``ingest --wait`` on a terminal: after the last input the graphs were derived (13 s
    of 35 over the labelled set) under a bar stuck at "ingesting … 0:00:01"."""
    from tests.test_cli_ux2 import on_tty

    src = realworld / "pool" / "blockchain-dex-events__claude-session.jsonl"
    shown = on_tty(["ingest", "--progress", "--wait", str(src), "--db",
                    str(tmp_path / "kb.duckdb")], {"NO_COLOR": "1"}).decode()
    assert "reading 1 file" in shown and "deriving knowledge graphs" in shown, shown[-600:]
    assert "1 session, 132 messages" in shown


def test_a_query_too_wide_for_its_columns_prints_records(tmp_path: Path,
                                                          realworld: Path) -> None:
    """``query 'select * from sessions'`` at 80 columns folded each of 20 names down its
    column (``se ss io n_``): 358 lines for 3 rows.  Too wide, each row is a record, one
    column a line (psql's expanded display); a narrow result stays a table."""
    db = str(tmp_path / "kb.duckdb")
    src = realworld / "pool" / "Xeus__claude-session.jsonl"
    assert invoke("ingest", "--db", db, str(src)).exit_code == 0
    r = invoke("query", "select * from sessions", "--db", db, env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    shown = _fits(r.stdout)
    assert shown[0] == "-[ row 1 ]-"
    assert shown[1].split() == ["session_id", "bd4364e2-acaa-41bd-bc5f-d1e080a052b9"]
    assert any(ln.split()[:2] == ["agent", "claude-code"] for ln in shown)
    r = invoke("query", "select agent, count(*) n from sessions group by 1", "--db", db,
               env={"COLUMNS": "80"})
    assert r.stdout.split() == ["agent", "n", "claude-code", "1"]


def test_a_listing_s_file_size_is_no_series_to_chart(tmp_path: Path, realworld: Path
                                                     ) -> None:
    """labelled/pfm-categorization measured nothing but the sizes its ``ls -la`` listed;
    ``timeline`` charted "B (Dockerfile) 687–687" (the one name without an extension,
    not known for a listing's) as the session's series."""
    db = str(tmp_path / "kb.duckdb")
    src = realworld / "labelled" / "pfm-categorization__opencode-session.json"
    assert invoke("ingest", "--db", db, str(src)).exit_code == 0
    for args in (["timeline"], ["timeline", "--json"], ["handoff"]):
        r = invoke(*args, "--db", db, env={"COLUMNS": "80"})
        assert r.exit_code == 0, r.stderr
        assert "B (Dockerfile)" not in r.stdout and "687" not in r.stdout, args
