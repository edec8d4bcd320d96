"""The brief is the same every time it is computed: a team push stores it, and
``handoff --team-url`` must equal the local one computed again later.  Command kinds
with as many commands (Valdyum-Labs: one ``file`` and one ``http`` call) came in
DuckDB's order of the day."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli_kb import invoke

LABELLED = Path(__file__).resolve().parents[2].parent / "shared" / "realworld" / "labelled"


def test_command_kinds_with_as_many_commands_come_by_name(tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), str(LABELLED / "Valdyum-Labs__codex-session.jsonl"))
    assert r.exit_code == 0, r.stderr
    cats = json.loads(invoke("handoff", "--db", str(db), "--json").stdout)["activity"][
        "categories"]
    keys = [(-c["commands"], c["category"]) for c in cats]
    assert keys == sorted(keys) and len({n for n, _ in keys}) < len(keys)  # ties exist
