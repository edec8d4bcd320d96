"""The JSON contract (docs/json.md): a list is JSON lines, a single answer one object, and
every command's shape is golden (tests/golden/json_shapes.json: shape and top-level keys).

A change of shape or keys fails here and must be read in the diff of the golden file
(regenerate it with ``LOGKB_UPDATE_GOLDEN=1``) and in docs/json.md."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from .cli_kb import FIXTURE, invoke, markup_session

GOLDEN = Path(__file__).parent / "golden" / "json_shapes.json"

# command name → (arguments, expected shape); {db} is the knowledge base
CASES: dict[str, tuple[list[str], str]] = {
    "ingest": (["ingest", "{src}"], "object"),
    "sessions": (["sessions"], "lines"),
    "use": (["use", FIXTURE], "object"),  # `use` alone with none chosen: exit 6
    "events": (["events", "--session", FIXTURE, "--from", "5216", "--to", "5216"], "lines"),
    "show": (["show", "5216", "--session", FIXTURE], "object"),
    "search": (["search", "deep_ep", "-n", "3"], "lines"),
    "query": (["query", "SELECT session_id, ordinal FROM messages LIMIT 2"], "lines"),
    "path": (["path"], "object"),
    "deadends": (["deadends", "--session", FIXTURE], "lines"),
    "untested": (["untested", "--session", FIXTURE], "lines"),
    "why": (["why", "DeepEP", "--session", FIXTURE], "object"),
    "why-ambiguous": (["why", "allreduce", "--session", FIXTURE], "object"),
    "timeline": (["timeline", "--session", FIXTURE], "object"),
    "measurements": (["measurements", "--session", FIXTURE, "-n", "3"], "lines"),
    "handoff": (["handoff", "--session", FIXTURE], "object"),
    "graph": (["graph", "--session", FIXTURE], "object"),
    "mark": (["mark", "note", "5216", "checked by hand", "--session", FIXTURE], "object"),
    "mark-list": (["mark", "list"], "lines"),
    "unmark": (["unmark", "5216", "--session", FIXTURE], "object"),
    "replay": (["replay", "plan", "--session", FIXTURE, "--from", "5216", "--to", "5217"], "lines"),
    "replay-history": (["replay", "show", "--session", FIXTURE], "lines"),  # none yet
}


def shape(text: str) -> tuple[str, list[dict]]:
    """``object``: exactly one JSON object on one line; ``lines``: one or more lines, each
    an object (never an array)."""
    rows = [json.loads(x) for x in text.splitlines() if x.strip()]
    if not rows:
        return "lines", rows  # an empty list: no line at all
    assert all(isinstance(r, dict) for r in rows), "a line that is not an object"
    return ("object" if len(rows) == 1 else "lines"), rows


@pytest.fixture(scope="module")
def db(blackwell_db: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    import shutil

    d = tmp_path_factory.mktemp("json")
    dst = d / "kb.duckdb"
    shutil.copyfile(blackwell_db, dst)
    return dst


def _run(name: str, db: Path, tmp_path: Path) -> tuple[str, list[dict]]:
    args, _ = CASES[name]
    src = markup_session(tmp_path / "markup.jsonl")
    argv = [a.replace("{src}", str(src)) for a in args]
    r = invoke(*argv, "--db", str(db), "--json")
    assert r.exit_code == 0, (name, r.stderr)
    return shape(r.stdout)


def test_every_command_has_json() -> None:
    import click

    from tests.test_cli import all_commands

    # every command and subcommand that does something (a group only chooses one)
    without = [n for n, c in all_commands() if not isinstance(c, click.Group)
               and not any(p.name == "as_json" for p in c.params)]
    # interactive, or a protocol server whose stdout is the protocol: nothing to print
    assert without == ["mcp", "tui"]


def test_shapes_match_the_golden_file(db: Path, tmp_path: Path) -> None:
    got: dict[str, dict] = {}
    # mark before mark list and unmark: they read what it wrote
    for name in CASES:
        kind, rows = _run(name, db, tmp_path)
        want_kind = CASES[name][1]
        assert kind == want_kind or (want_kind == "lines" and kind == "object"), (name, kind)
        kind = want_kind
        keys = sorted({k for r in rows for k in r})
        got[name] = {"shape": kind, "keys": keys}
    if os.environ.get("LOGKB_UPDATE_GOLDEN"):
        GOLDEN.write_text(json.dumps(got, indent=1, sort_keys=True) + "\n")
    want = json.loads(GOLDEN.read_text())
    assert got == want


def test_scorer_fields_stay(db: Path) -> None:
    """The labelled-session scorer reads these (../shared/tools/score-labelled)."""
    dead = [json.loads(x) for x in invoke("deadends", "--session", FIXTURE, "--db", str(db),
                                          "--json").stdout.splitlines()]
    assert dead and all({"status", "cause", "evidence"} <= set(d) for d in dead)
    assert all(isinstance(e["ordinal"], int) for d in dead for e in d["evidence"])
    un = [json.loads(x) for x in invoke("untested", "--session", FIXTURE, "--db", str(db),
                                        "--json").stdout.splitlines()]
    assert un and all("ordinal" in u for u in un)
