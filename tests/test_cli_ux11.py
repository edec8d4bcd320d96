"""A demanding user's pass (round 11): what the CLI says, and where."""

from __future__ import annotations

import random
from pathlib import Path

from .cli_kb import invoke


def _session(tmp: Path) -> Path:
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(4), directory="/home/dev/p", project_id="ab" * 20)
    s = SessionBuilder(ctx, title="ux", start_ms=1_790_000_000_000)
    s.user("list the files")
    s.step("Listing.", [bash("ls", "src\n")])
    return write_jsonl(s.tree(), tmp / "s.jsonl")


def test_ingest_of_the_folder_holding_the_knowledge_base_does_not_report_it(
        tmp_path: Path) -> None:
    """The knowledge base (DuckDB's .wal, the search index's folder) in a folder ingested
    is logkb's own, no transcript: "not taken: …/kb.duckdb: unrecognised content" on
    every ingest, and a line for each file of the index."""
    from kb.search.index import index_dir

    _session(tmp_path)
    db = tmp_path / "kb.duckdb"
    for _ in range(2):
        r = invoke("ingest", "--db", str(db), str(tmp_path))
        assert r.exit_code == 0, r.stderr
        assert "kb.duckdb" not in r.stderr, r.stderr
    # a search builds the index beside it (DB.index/): its files are logkb's own too
    assert invoke("search", "files", "--db", str(db)).exit_code == 0
    assert index_dir(db).is_dir() and any(index_dir(db).iterdir())
    r = invoke("ingest", "--db", str(db), str(tmp_path))
    assert r.exit_code == 0 and "kb.duckdb" not in r.stderr, r.stderr
    (tmp_path / "notes.txt").write_text("not a transcript\n")
    r = invoke("ingest", "--db", str(db), str(tmp_path))
    assert "notes.txt" in r.stderr  # what is not logkb's own is still reported


def test_a_miss_and_its_hint_share_a_line_only_when_they_fit_80_columns(
        capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """``miss`` measured the line with ``len``: a title in CJK (two columns a character)
    and its hint were put on one line 100 columns wide.  It counts terminal cells."""
    from kb.cli import tools
    from kb.width import cells

    monkeypatch.setenv("COLUMNS", "200")  # the console's own wrap is not what is tested
    wide = "no measurements in 帮我更新一下我的脚本让它"
    hint = "found in 019ea80; use --session 019ea80"
    assert len(wide) + len(hint) + 3 <= 80 < cells(wide) + cells(hint) + 3
    tools.miss(wide, hint)
    lines = capsys.readouterr().err.splitlines()
    assert lines == [wide, f"hint: {hint}"], lines
    tools.miss("no measurements in ses_0aaca56", hint)  # narrow: one line, as before
    assert capsys.readouterr().err.splitlines() == [
        f"no measurements in ses_0aaca56 ({hint})"]


def test_the_readmes_exit_codes_hold_for_an_empty_answer(tmp_path: Path) -> None:
    """README "Exit codes": ``search`` that finds nothing exits 1 (like grep); the list
    commands print nothing, say why on stderr and exit 0; an unknown approach is 6."""
    db = tmp_path / "kb.duckdb"
    assert invoke("ingest", "--wait", "--db", str(db), str(_session(tmp_path))).exit_code == 0
    r = invoke("search", "zzqqxxnothing", "--db", str(db))
    assert r.exit_code == 1 and r.stdout == "" and r.stderr, r.stderr
    for cmd in (["deadends"], ["untested"], ["measurements"], ["mark", "list"],
                ["events", "--kind", "todo"]):
        r = invoke(*cmd, "--db", str(db))
        assert r.exit_code == 0 and r.stdout == "" and r.stderr.strip(), (cmd, r.stderr)
    assert invoke("why", "no-such-approach", "--db", str(db)).exit_code == 6
    assert invoke("show", "99", "--db", str(db)).exit_code == 6
    assert invoke("events", "--kind", "bogus", "--db", str(db)).exit_code == 2
