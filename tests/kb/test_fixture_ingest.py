"""The fixture campaign through the whole ingest path: every form, the story, idempotence."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.ingest import ingest
from kb.store import KbStore
from logparse.models import Event


def story_view(events: list[Event]) -> list[tuple[Any, ...]]:
    """What must be identical between forms (prompts aside: the run stream has none)."""
    return [(e.ordinal, e.seq, e.kind.value, e.tool, e.category, e.host, e.remote_command,
             e.status, e.exit_code, tuple(e.error_signatures), e.classification)
            for e in events if e.kind != "prompt"]


@pytest.fixture(scope="module")
def forms(blackwell: Path, blackwell_manifest: dict[str, Any],
          tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[Event]]:
    sid = blackwell_manifest["session_id"]
    inputs = {
        "export": [blackwell / "export.json"],
        "jsonl": [blackwell / "session.jsonl"],
        "sqlite": [blackwell / "data" / "opencode" / "opencode.db"],
        "tree": [blackwell / "legacy" / "opencode" / "storage"],
        "run": [blackwell / "run.jsonl"],
    }
    out = {}
    for form, paths in inputs.items():
        db = tmp_path_factory.mktemp(form) / "kb.duckdb"
        with KbStore(db) as store:
            report = ingest(store, paths, graph=False)
            assert report.problems == [] and report.errors == [], form
            assert {s.form for s in report.sessions} == {form}
            out[form] = store.events(sid)
    return out


def test_every_form_gives_identical_events(forms: dict[str, list[Event]]) -> None:
    reference = story_view(forms["export"])
    assert len(reference) > 10_000
    for form, events in forms.items():
        assert story_view(events) == reference, form


def test_prompts_are_known_except_in_the_run_stream(forms: dict[str, list[Event]],
                                                    blackwell_manifest: dict[str, Any]) -> None:
    users = blackwell_manifest["user_message_count"]
    for form, events in forms.items():
        prompts = [e for e in events if e.kind == "prompt"]
        assert len(prompts) == (0 if form == "run" else users), form


def test_events_from_5214_are_the_recorded_commands(blackwell_db: Path, blackwell: Path,
                                                    blackwell_manifest: dict[str, Any]) -> None:
    r = CliRunner().invoke(cli, ["events", "--db", str(blackwell_db), "--from", "5214",
                                 "--kind", "command", "--json"])
    assert r.exit_code == 0, r.stderr
    got = [json.loads(x) for x in r.stdout.splitlines()]
    export = json.loads((blackwell / "export.json").read_text())
    messages = sorted(export["messages"], key=lambda m: (m["info"]["time"]["created"],
                                                         m["info"]["id"]))
    recorded = [(i + 1, p["tool"], p["state"]["input"].get("command"))
                for i, m in enumerate(messages) if i + 1 >= 5214
                for p in m["parts"] if p["type"] == "tool"]
    assert [(e["ordinal"], e["tool"]) for e in got] == [(o, t) for o, t, _ in recorded]
    bash = [e for e in got if e["tool"] == "bash"]
    assert bash and all(e["host"] == "10.1.230.174" and e["user"] == "root" for e in bash)
    assert [e["command"] for e in bash] == [c for _, t, c in recorded if t == "bash"]
    check = next(e for e in bash if e["ordinal"] == 5216)
    assert check["remote_command"].startswith("/root/ml-env/bin/python3 -c \"import deep_ep;")
    nested = [h for h in check["hops"] if h["nested"]]
    assert nested and nested[0]["host"] == "10.1.230.174"
    assert "import deepep" in nested[0]["remote_command"]
    r = CliRunner().invoke(cli, ["events", "--db", str(blackwell_db), "--from", "5216",
                                 "--to", "5216", "--kind", "result", "--json"])
    (result,) = [json.loads(x) for x in r.stdout.splitlines()]
    assert result["error_signatures"] == ["ModuleNotFoundError: deep_ep",
                                          "Host key verification failed"]
    assert result["exit_code"] == 255 and result["category"] == "import-check"


def test_story_measurements(blackwell_db: Path) -> None:
    with KbStore(blackwell_db, read_only=True) as store:
        bench = store.events(store.resolve_session(None), kinds=["result"], start=5224,
                             end=5224)[0]
    got = {(m.label, m.unit): m.value for m in bench.measurements}
    assert got[("Output token throughput", "tok/s")] == 89.5
    assert got[("Median TPOT", "ms")] == 11.17


def test_ingesting_the_fixture_twice_changes_nothing(blackwell_db_copy: Path,
                                                     blackwell: Path) -> None:
    with KbStore(blackwell_db_copy) as store:
        before = store.conn.execute("SELECT count(*), sum(digest) FROM messages").fetchone()
        events = store.conn.execute("SELECT count(*) FROM events").fetchone()
        report = ingest(store, [blackwell / "session.jsonl"], force=True)
        assert report.new_messages == 0
        assert store.conn.execute("SELECT count(*), sum(digest) FROM messages"
                                  ).fetchone() == before
        assert store.conn.execute("SELECT count(*) FROM events").fetchone() == events
