"""A replay that now passes a check which killed an approach puts it back in question."""

from __future__ import annotations

import json
import random
from pathlib import Path

from click.testing import CliRunner

from kb.cli import cli
from kb.graph import store as gs
from kb.ingest import ingest
from kb.store import KbStore


def campaign(tmp_path: Path) -> Path:
    """A tiny campaign: fastjson blocked because `import json` failed when recorded."""
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash, todowrite
    from fixtures.opencode_writer import write_jsonl

    work = tmp_path / "proj"
    work.mkdir()
    ctx = BuildContext(random.Random(3), directory=str(work), project_id="cd" * 20)
    s = SessionBuilder(ctx, title="revisit", start_ms=1_790_000_000_000)
    s.user("Can we use the json module here?")
    s.step("Plan:", [todowrite([{"content": "Try the json module", "status": "in_progress",
                                 "priority": "high"}])])
    s.step("Is it importable?", [bash("python3 -c 'import json'",
                                      "Traceback (most recent call last):\n  File \"<string>\", "
                                      "line 1, in <module>\nModuleNotFoundError: No module named "
                                      "'json'\n", exit_code=1)])
    s.step("Not installed here.", [todowrite([{"content": "json module — blocked: not installed",
                                               "status": "cancelled", "priority": "high"}])])
    s.step("Stopping here.")
    path = write_jsonl(s.tree(), tmp_path / "s.jsonl")
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [path])
    return db


def test_now_passing_check_flags_the_dead_end_for_revisit(tmp_path: Path) -> None:
    db = campaign(tmp_path)
    run = CliRunner()
    before = [json.loads(x) for x in run.invoke(cli, ["deadends", "--db", str(db), "--json"]).stdout.splitlines()]
    assert [(d["name"], d["status"], d["revisit"]) for d in before] == [
        ("Json module", "blocked", None)]
    r = run.invoke(cli, ["replay", "run", "--db", str(db), "--from", "1"])
    assert r.exit_code == 7, r.output  # the verdict differs from the recording
    assert "Json module (blocked: json not installed) may have come back" in r.stderr
    after = [json.loads(x) for x in run.invoke(cli, ["deadends", "--db", str(db), "--json"]).stdout.splitlines()]
    assert after[0]["revisit"].startswith("replay of message 3: now-passes")
    with KbStore(db, read_only=True) as store:
        scope = gs.scopes(store)[0]
        (a,) = [x for x in gs.approaches(store, [scope]) if x["label"] == "Json module"]
        assert a["status"] == "blocked"  # the heuristics' verdict stands; the flag is added
