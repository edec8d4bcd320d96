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
    """The knowledge base (and DuckDB's .wal) in a folder ingested is logkb's own file,
    no transcript: "not taken: …/kb.duckdb: unrecognised content" on every ingest."""
    _session(tmp_path)
    db = tmp_path / "kb.duckdb"
    for _ in range(2):
        r = invoke("ingest", "--db", str(db), str(tmp_path))
        assert r.exit_code == 0, r.stderr
        assert "kb.duckdb" not in r.stderr, r.stderr
    (tmp_path / "notes.txt").write_text("not a transcript\n")
    r = invoke("ingest", "--db", str(db), str(tmp_path))
    assert "notes.txt" in r.stderr  # what is not logkb's own is still reported
