"""Faults a demanding user's pass found (ux13), each checked as the user meets it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import duckdb
import pytest

from tests.cli_kb import invoke

XEUS = "pool/Xeus__claude-session.jsonl"  # 9 kB, Claude Code
X402 = "pool/privacy-x402__codex-session.jsonl"  # 67 kB, Codex


def _paths(db: str) -> dict[str, list[str]]:
    with duckdb.connect(db, read_only=True) as c:
        return {t: sorted(r[0] for r in c.execute(f"SELECT {col} FROM {t}").fetchall())
                for t, col in (("sources", "path"), ("sessions", "source_path"),
                               ("resume_points", "path"))}


def test_a_relative_path_is_stored_absolute(tmp_path: Path, realworld: Path,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """``cd ~/logs && logkb ingest pool/x.jsonl`` stored ``pool/x.jsonl``: ``sessions ID``
    named a source no other directory finds, ``rebuild --events`` from elsewhere called
    it gone, and an ingest of the same file by another spelling read it again.  The
    path is stored absolute (a link is kept, not resolved)."""
    db = str(tmp_path / "kb.duckdb")
    monkeypatch.chdir(realworld)
    r = invoke("ingest", "--db", db, XEUS)
    assert r.exit_code == 0, r.stderr
    want = str(realworld / XEUS)
    assert _paths(db)["sources"] == [want] and _paths(db)["sessions"] == [want]
    monkeypatch.chdir(tmp_path)
    r = invoke("sessions", "bd4364e", "--db", db, "--json")
    assert json.loads(r.stdout)["source_path"] == want
    r = invoke("ingest", "--db", db, want)  # the same file, spelled another way
    assert r.exit_code == 0 and f"unchanged: {want}" in r.stdout, r.output
    monkeypatch.chdir(realworld / "pool")  # said as typed
    r = invoke("ingest", "--db", db, "../" + XEUS)
    assert r.exit_code == 0 and f"unchanged: ../{XEUS}\n" in r.stdout, r.output
    r = invoke("ingest", "--db", db, "--json", "../" + XEUS)
    assert json.loads(r.stdout)["unchanged"] == [want]


def test_a_path_is_said_as_it_was_typed(tmp_path: Path,
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """With every input stored absolute, ``logkb ingest labelled`` said
    ``not taken: /work/shared/realworld/labelled/k1.json: unrecognised content`` (wrapped
    at 80 columns) for what was typed ``labelled``: on the terminal a path is said as
    the PATH it was found under was typed; ``--json`` keeps it absolute."""
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.txt").write_text("buy milk\n")
    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "kb.duckdb")
    r = invoke("ingest", "--db", db, "notes/todo.txt")
    assert r.exit_code == 3
    assert r.stderr.startswith("logkb: error: notes/todo.txt: not a transcript"), r.stderr
    r = invoke("ingest", "--db", db, "notes")
    assert "not taken: notes/todo.txt: " in r.stderr or \
        "logkb: error: notes/todo.txt: " in r.stderr, r.stderr
    r = invoke("ingest", "--db", db, str(tmp_path / "notes"))  # typed absolute: so said
    assert f"{tmp_path}/notes/todo.txt: " in r.stderr, r.stderr
    r = invoke("ingest", "--db", db, ".")
    assert "notes/todo.txt: " in r.stderr and "./notes" not in r.stderr, r.stderr
    r = invoke("ingest", "--db", db, "--json", "notes/todo.txt")
    got = json.loads(r.stdout)
    assert [e["path"] for e in got["errors"] + got["not_taken"]] == [
        str(tmp_path / "notes" / "todo.txt")]


def test_an_older_relative_row_is_found_from_another_directory(
        tmp_path: Path, realworld: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A knowledge base an older logkb wrote holds ``pool/x.jsonl`` (as typed, from a
    directory it did not record).  Ingesting the file by its absolute path from anywhere
    takes the stored rows for it (unchanged: not read again; its resume point, problems
    and sessions keyed by the absolute path), so the next ingest from any directory
    finds it.  A relative path no input ends with stays as it was."""
    db = str(tmp_path / "kb.duckdb")
    home = tmp_path / "home"  # where the older logkb ran: two files of its own
    (home / "pool").mkdir(parents=True)
    xeus, big = home / XEUS, home / "pool" / "FundWise__claude-session.jsonl"
    shutil.copy2(realworld / XEUS, xeus)
    shutil.copy2(realworld / "pool" / big.name, big)  # large: it keeps a resume point
    for src in (xeus, big):
        assert invoke("ingest", "--db", db, str(src)).exit_code == 0
    with duckdb.connect(db) as c:  # as logkb 0.12 stored them, run in `home`
        for t, col in (("sources", "path"), ("sessions", "source_path"),
                       ("resume_points", "path"), ("problems", "path")):
            c.execute(f"UPDATE {t} SET {col} = replace({col}, ?, '')", [str(home) + os.sep])
        c.execute("INSERT INTO sources SELECT 'elsewhere/gone.jsonl', form, fingerprint, "
                  "sessions, ingested_at FROM sources LIMIT 1")
    assert _paths(db)["resume_points"] == ["pool/FundWise__claude-session.jsonl"]
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    r = invoke("ingest", "--db", db, "--json", str(home / "pool"))
    rep = json.loads(r.stdout)
    assert sorted(rep["unchanged"]) == sorted([str(big), str(xeus)]), rep
    assert rep["sessions"] == []
    got = _paths(db)
    assert got["resume_points"] == [str(big)]
    assert got["sessions"] == sorted([str(big), str(xeus)])
    assert got["sources"] == sorted([str(big), str(xeus), "elsewhere/gone.jsonl"])


def test_the_progress_counts_only_what_is_read(tmp_path: Path, realworld: Path) -> None:
    """The bar's total was every input found, the unchanged ones too (not opened: the bar
    jumped by their size at once), and a Codex rollout advanced it by its messages' raw
    bytes, past its total (324.7/320.4 kB).  Now the total is what is read, and the bar
    ends at it."""
    from kb.ingest import Seen, ingest, input_size, plan, to_read
    from kb.store import KbStore

    x402, xeus = realworld / X402, realworld / XEUS
    with KbStore(tmp_path / "kb.duckdb", read_only=False) as store:
        ingest(store, [xeus], graph=False, index=False)
        seen = Seen.load(store)
        found, _ = plan([xeus, x402], seen, own=store.path)
        reading = to_read(found, seen)
        assert [i.path for i in reading] == [x402]
        assert to_read(found, seen, force=True) == found
        assert to_read(found, seen, filtered=True) == found
        steps: list[int] = []
        ingest(store, [xeus, x402], progress=steps.append, inputs=(found, []), seen=seen,
               graph=False, index=False)
        assert sum(steps) == sum(input_size(i) for i in reading) == x402.stat().st_size
        assert all(n > 0 for n in steps) and len(steps) > 1  # it moves as it reads


def test_the_graph_bar_moves_as_each_session_is_derived(tmp_path: Path, realworld: Path
                                                        ) -> None:
    """``logkb rebuild`` over 20 sessions (2,687 messages, one chunk) showed
    ``deriving knowledge graphs 0/2687 messages`` for 13 s, then ended: the bar was told
    once per chunk.  Each session's graph now tells its share as it is derived."""
    from kb.graph import store as gs
    from kb.ingest import ingest
    from kb.store import KbStore

    with KbStore(tmp_path / "kb.duckdb", read_only=False) as store:
        ingest(store, [realworld / XEUS, realworld / X402], graph=False, index=False)
        scopes = gs.scopes(store)
        sizes = gs.scope_sizes(store, scopes)
        steps: list[int] = []
        done, left = gs.rebuild_many(store, scopes, force=True, progress=steps.append)
        assert sorted(done) == sorted(scopes) and left == [] and len(scopes) == 2
        assert sum(steps) == sum(sizes.values())
        assert len([n for n in steps if n > 0]) >= 2 * len(scopes), steps
        steps.clear()  # up to date: nothing derived, the whole told all the same
        gs.rebuild_many(store, scopes, force=False, progress=steps.append)
        assert sum(steps) == sum(sizes.values())


def test_the_report_says_how_far_it_is(tmp_path: Path, realworld: Path) -> None:
    """``logkb report --all`` over 20 sessions wrote for 10 s with nothing on the
    terminal.  The pages say their progress, session by session, to the CLI's bar."""
    from kb.graph import store as gs
    from kb.ingest import ingest
    from kb.report_html import build_report
    from kb.store import KbStore

    db = tmp_path / "kb.duckdb"
    with KbStore(db, read_only=False) as store:
        ingest(store, [realworld / XEUS, realworld / X402], index=False)
    told: list[tuple[str, int, int]] = []
    with KbStore(db, read_only=True) as store:
        pages = build_report(store, gs.scopes(store), tmp_path / "site",
                             progress=lambda what, n, of: told.append((what, n, of)))
    assert len(pages) == 3
    assert [t for t in told if t[0] == "reading timelines"] == [
        ("reading timelines", 0, 2), ("reading timelines", 1, 2)]
    assert told[-1] == ("writing pages", 2, 2) and ("writing pages", 1, 2) in told


def test_a_filter_value_nothing_carries_is_a_usage_error(tmp_path: Path, realworld: Path
                                                         ) -> None:
    """``search`` labels its hits ``prose``/``output``, so a user types ``kind:prose``:
    no kind is ``prose`` (it is a field), and the search said ``no match`` (exit 1),
    as it did for ``cat:bogus``.  Like ``events --kind nope`` it is a usage error now
    (exit 2) that lists the valid values."""
    db = str(tmp_path / "kb.duckdb")
    assert invoke("ingest", "--db", db, str(realworld / XEUS)).exit_code == 0
    r = invoke("search", "--db", db, "kind:prose hello")
    assert r.exit_code == 2 and r.stdout == ""
    assert "kind: 'prose' is not a kind; valid: prompt, command, result" in r.stderr
    assert "(prose is a field: field:prose)" in r.stderr
    r = invoke("search", "--db", db, "cat:bogus hello")
    assert r.exit_code == 2 and "valid: search, import-check" in r.stderr
    r = invoke("search", "--db", db, "field:bogus hello")
    assert r.exit_code == 2 and "valid: command, output, prose, todo, other" in r.stderr
    assert invoke("search", "--db", db, "kind:prompt,decision hello").exit_code == 0
    assert invoke("search", "--db", db, "kind:stat hello").exit_code == 1


def test_the_bar_on_a_terminal_counts_the_files_read(tmp_path: Path, realworld: Path
                                                     ) -> None:
    """On a terminal: an ingest of a file read before and a new one counted both in its
    total (77.1 kB, the unchanged 9.6 kB at once); now ``reading 1 file`` of 67.5 kB.
    ``--wait``'s graphs then showed under the full byte count (``992.2/992.2 kB 1.3
    MB/s``): a phase of its own now, with its time."""
    import re

    from tests.test_cli_ux2 import on_tty

    db = str(tmp_path / "kb.duckdb")
    assert invoke("ingest", "--db", db, str(realworld / XEUS)).exit_code == 0
    shown = on_tty(["ingest", "--progress", "--wait", str(realworld / XEUS),
                    str(realworld / X402), "--db", db], {"NO_COLOR": "1"}).decode()
    assert "reading 1 file " in shown and "/67.5 kB" in shown, shown[-600:]
    assert "77.1 kB" not in shown and "reading 2 files" not in shown
    derive = [ln for ln in re.split(r"[\r\n]|\x1b\[2K", shown)
              if ln.startswith("deriving knowledge graphs")]
    assert derive and not any("kB" in ln for ln in derive), derive
    assert all(re.search(r"\d:\d\d:\d\d\s*$", ln) for ln in derive), derive


def test_which_session_is_said_in_80_columns(tmp_path: Path, realworld: Path) -> None:
    """With an opencode session chosen (``logkb use``: an 11-column id ``ses_01fef0a``),
    every command about it said ``session ses_01fef0a 帮我更新一下… — the current session
    (`logkb use`), of 2 sessions`` in 84 columns at ``COLUMNS=80``: the title had its
    12-column floor and the line ran over.  Too narrow for both, the line says the
    session and the title, the next why."""
    from rich.cells import cell_len

    db = str(tmp_path / "kb.duckdb")
    mat = realworld / "pool" / "matugen-theme-sync__opencode-session.json"
    assert invoke("ingest", "--db", db, str(mat), str(realworld / XEUS)).exit_code == 0
    assert invoke("use", "--db", db, "ses_01fef0a").exit_code == 0
    w80 = {"COLUMNS": "80"}
    for args in (["events", "-n", "1"], ["mark", "note", "2", "looked"], ["deadends"]):
        r = invoke(*args, "--db", db, env=w80)
        said = r.stderr.splitlines()
        assert all(cell_len(ln) <= 80 for ln in said), said
        assert said[0].startswith("session ses_01fef0a 帮我"), said
        assert said[1] == "  — the current session (`logkb use`), of 2 sessions", said
    r = invoke("events", "-n", "1", "--db", db, env={"COLUMNS": "120"})
    assert r.stderr.splitlines()[0].endswith(
        " — the current session (`logkb use`), of 2 sessions"), r.stderr


def test_events_host_local_are_the_calls_run_without_ssh(tmp_path: Path, realworld: Path
                                                         ) -> None:
    """The TUI's filter reads ``host:local`` as the calls run without ssh (its host list
    says ``local``); ``events --host local`` found nothing (``no events in … match``)."""
    db = str(tmp_path / "kb.duckdb")
    assert invoke("ingest", "--db", db, str(realworld / X402)).exit_code == 0
    every = [json.loads(x) for x in invoke("events", "--db", db, "--json").stdout.splitlines()]
    calls = [e for e in every if e["kind"] in ("command", "result") and not e["host"]]
    r = invoke("events", "--db", db, "--json", "--host", "local")
    got = [json.loads(x) for x in r.stdout.splitlines()]
    assert r.exit_code == 0 and calls and got == calls
    r = invoke("events", "--db", db, "--json", "--host", "local,nowhere.example")
    assert [json.loads(x) for x in r.stdout.splitlines()] == calls
    r = invoke("events", "--db", db, "--host", "nowhere.example")
    assert r.exit_code == 0 and r.stdout == "" and "match" in r.stderr


def test_a_query_error_is_one_line_and_a_hint(tmp_path: Path, realworld: Path) -> None:
    """DuckDB's error came as it writes it: the error, ``Did you mean "prose"?`` on a line
    with no label, a blank line and the query with a caret under the place, in a pipe
    too.  It is one ``logkb: error:`` line saying where (line, column) and the
    suggestion as the hint; a terminal gets the query line and its caret after them
    (tests/test_cli_ux2.py)."""
    db = str(tmp_path / "kb.duckdb")
    assert invoke("ingest", "--db", db, str(realworld / XEUS)).exit_code == 0
    r = invoke("query", "--db", db, "select * from nope")
    assert r.exit_code == 2 and r.stdout == ""
    assert r.stderr.splitlines() == [
        "logkb: error: query failed: Catalog Error: Table with name nope does not exist! "
        "(line 1, column 15)", 'hint: Did you mean "prose"?'], r.stderr
    r = invoke("query", "--db", db, "select 1 frm x")
    assert r.exit_code == 2 and r.stderr.splitlines() == [
        'logkb: error: cannot parse the query: Parser Error: syntax error at or near "x" '
        "(line 1, column 14)"], r.stderr


def test_an_error_nothing_expected_is_one_line_naming_file_and_line(tmp_path: Path,
                                                                    realworld: Path) -> None:
    """``LOGKB_LOCK_TIMEOUT=abc logkb sessions`` printed a 30-line traceback.  What nothing
    handles is one ``logkb: error:`` line with the exception and the line of logkb's own
    code it came from, and a hint; ``LOGKB_DEBUG=1`` shows the traceback."""
    import re
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    db = tmp_path / "kb.duckdb"
    assert invoke("ingest", "--db", str(db), str(realworld / XEUS)).exit_code == 0
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONPATH": str(root),
           "HOME": str(tmp_path), "LOGKB_DB": str(db), "LOGKB_LOCK_TIMEOUT": "abc",
           "LOGKB_WRITE_MEMORY_LIMIT": "lots"}
    for args in (["sessions"], ["ingest", "--force", str(realworld / XEUS)]):
        p = subprocess.run([sys.executable, "-P", "-m", "kb", *args], env=env,
                           capture_output=True, text=True, timeout=120)
        said = p.stderr.splitlines()
        assert p.returncode == 1 and len(said) == 2, p.stderr
        assert re.fullmatch(r"logkb: error: \w+: .+ \(kb/[\w/]+\.py:\d+\)", said[0]), said
        assert said[1].startswith("hint: LOGKB_DEBUG=1 logkb")
    p = subprocess.run([sys.executable, "-P", "-m", "kb", "sessions"],
                       env={**env, "LOGKB_DEBUG": "1"}, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 1 and "Traceback (most recent call last)" in p.stderr
