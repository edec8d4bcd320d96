"""The command line, as a user runs it (click's CliRunner; the TUI is never started)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.exitcodes import ExitCode

ROOT = Path(__file__).resolve().parents[1]
PARENT = "ses_dc9fbdec3ffeiLy3tOV563zFr5"


def lines(text: str) -> list[dict]:
    """JSON lines (the contract for lists, docs/json.md)."""
    return [json.loads(x) for x in text.splitlines() if x.strip()]


def run(*args: str, ok: bool = True) -> click.testing.Result:
    result = CliRunner().invoke(cli, list(args), catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, (result.stdout, result.stderr)
    return result


@pytest.fixture
def db(tmp_path: Path, selftest: Path) -> Path:
    path = tmp_path / "kb.duckdb"
    run("ingest", "--db", str(path), str(selftest / "opencode.db"))
    return path


def test_ingest_json_shape(tmp_path: Path, selftest: Path) -> None:
    r = run("ingest", "--db", str(tmp_path / "k.duckdb"), "--json", str(selftest))
    doc = json.loads(r.stdout)
    assert set(doc) >= {"sessions", "problems"}
    ids = {s["id"] for s in doc["sessions"]}
    assert PARENT in ids
    for s in doc["sessions"]:
        assert set(s) >= {"id", "title", "messages", "events"}
    assert doc["problems"] == []


def test_ingest_default_is_the_opencode_data_dir(isolated_home: Path, selftest: Path) -> None:
    data = isolated_home / ".local" / "share" / "opencode"
    data.mkdir(parents=True)
    for suffix in ("", "-wal", "-shm"):
        (data / f"opencode.db{suffix}").write_bytes((selftest / f"opencode.db{suffix}")
                                                    .read_bytes())
    r = run("ingest", "--json")
    assert len(json.loads(r.stdout)["sessions"]) == 2
    # the default knowledge base lives under LOGKB_HOME (XDG data dir otherwise)
    assert (isolated_home / "logkb" / "kb.duckdb").exists()


def test_ingest_without_data_dir_is_a_usage_error() -> None:
    r = run("ingest", ok=False)
    assert r.exit_code == ExitCode.USAGE
    assert "no agent store found" in r.stderr


def test_not_a_transcript_exit_code(tmp_path: Path) -> None:
    f = tmp_path / "notes.jsonl"
    f.write_text('{"kind": "note", "text": "not a transcript"}\n')
    r = run("ingest", "--db", str(tmp_path / "k.duckdb"), str(f), ok=False)
    assert r.exit_code == ExitCode.NOT_TRANSCRIPT
    assert "not a transcript logkb reads" in r.stderr


def test_problems_exit_code_and_report(tmp_path: Path, selftest: Path) -> None:
    doc = json.loads((selftest / "export.json").read_text())
    f = tmp_path / "s.jsonl"
    f.write_text("\n".join(json.dumps(m) for m in doc["messages"][:3]) + "\nnot json\n")
    r = run("ingest", "--db", str(tmp_path / "k.duckdb"), "--json", str(f), ok=False)
    assert r.exit_code == ExitCode.PROBLEMS
    problem = json.loads(r.stdout)["problems"][0]
    assert problem == {"path": str(f), "line": 4, "record": None,
                       "reason": problem["reason"]}
    assert f"{f}:4" in r.stderr


def test_sessions_and_nesting(db: Path) -> None:
    rows = lines(run("sessions", "--db", str(db), "--json").stdout)
    by_id = {r["id"]: r for r in rows}
    child = next(r for r in rows if r["parent_id"] == PARENT)
    assert by_id[PARENT]["messages"] == 10 and child["spawned_at"] == 4
    table = run("sessions", "--db", str(db)).stdout
    assert "└ " in table and PARENT[:11] in table and PARENT not in table  # short ids


def test_events_json_lines(db: Path) -> None:
    r = run("events", "--db", str(db), "--session", PARENT, "--kind", "command,result",
            "--json")
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    needed = {"session_id", "ordinal", "kind", "tool", "category", "host", "command",
              "remote_command", "status", "exit_code", "error_signature", "measurements",
              "text"}
    assert lines and all(needed <= set(x) for x in lines)
    check = next(x for x in lines if x["kind"] == "result" and x["tool"] == "bash")
    assert check["error_signature"] == "ModuleNotFoundError: deep_ep"
    assert {x["kind"] for x in lines} == {"command", "result"}


def test_events_default_session_and_range(db: Path) -> None:
    r = run("events", "--db", str(db), "--from", "3", "--to", "4", "--json")
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert {x["ordinal"] for x in lines} == {3, 4}
    assert {x["session_id"] for x in lines} == {PARENT}  # the latest top-level session


def test_show(db: Path) -> None:
    r = run("show", "3", "--db", str(db), "--session", PARENT[:12])
    assert "message 3" in r.stdout and "import deep_ep" in r.stdout
    assert "ModuleNotFoundError: deep_ep" in r.stdout
    missing = run("show", "999", "--db", str(db), ok=False)
    assert missing.exit_code == ExitCode.NOT_FOUND


def test_search(db: Path) -> None:
    hits = lines(run("search", "deep_ep", "--db", str(db), "--json").stdout)
    assert {h["field"] for h in hits} >= {"command", "output"}
    assert all(h["session_id"] and h["ordinal"] for h in hits)
    rx = lines(run("search", "--regex", r"import deep_?ep", "--db", str(db),
                     "--json").stdout)
    assert rx
    # best match first by default; --newest orders by time
    newest = lines(run("search", "deep_ep", "--newest", "--db", str(db), "--json").stdout)
    assert {h["ordinal"] for h in newest} == {h["ordinal"] for h in hits}
    times = [h["time"] for h in newest]
    assert times == sorted(times, reverse=True)


def test_query_is_read_only(db: Path) -> None:
    r = run("query", "--db", str(db), "--json", "SELECT count(*) AS n FROM messages")
    assert lines(r.stdout) == [{"n": 13}]
    csv = run("query", "--db", str(db), "--csv", "SELECT 1 AS a, 2 AS b").stdout
    assert csv.splitlines() == ["a,b", "1,2"]
    bad = run("query", "--db", str(db), "DELETE FROM messages", ok=False)
    assert bad.exit_code == ExitCode.USAGE and "read-only" in bad.stderr.lower()


def test_missing_knowledge_base(tmp_path: Path) -> None:
    r = run("sessions", "--db", str(tmp_path / "none.duckdb"), ok=False)
    assert r.exit_code == ExitCode.NOT_FOUND and "logkb ingest" in r.stderr


def all_commands() -> list[tuple[str, click.Command]]:
    out = []

    def walk(group: click.Group, prefix: str) -> None:
        for name, cmd in group.commands.items():
            if cmd.hidden:  # a deprecated flag form (`ModeGroup`'s legacy)
                continue
            out.append((f"{prefix}{name}", cmd))
            if isinstance(cmd, click.Group):
                walk(cmd, f"{prefix}{name} ")

    walk(cli, "")
    return out


def test_every_command_has_help() -> None:
    """Every command and subcommand: `--help` exits 0, describes it, fits 80 columns,
    and its description is its function's docstring (one mechanism: no `help=`)."""
    import inspect

    names = [name for name, _ in all_commands()]
    assert {"replay plan", "replay run", "replay show", "replay compare", "mark dead-end",
            "mark list", "mark link"} <= set(names)
    for name, cmd in [("", cli), *all_commands()]:
        assert cmd.callback is not None, name
        doc = inspect.getdoc(cmd.callback)
        assert doc and inspect.cleandoc(cmd.help or "") == doc, f"{name}: help is not its doc"
        r = CliRunner().invoke(cli, [*name.split(), "--help"], terminal_width=80,
                               env={"COLUMNS": "80"}, catch_exceptions=False)
        assert r.exit_code == 0, (name, r.stderr)
        assert "Usage:" in r.stdout, name
        first = doc.split("\n")[0]
        assert first[:40] in " ".join(r.stdout.split()), f"{name}: no description"
        wide = [line for line in r.stdout.splitlines() if len(line) > 80]
        assert not wide, (name, wide)


def test_old_flag_forms_still_work_with_a_note(db: Path) -> None:
    """`replay --execute|--history` and `mark ORDINAL --KIND` work for one more release,
    saying on stderr what to type instead; `replay --from N` is the plan, no note."""
    d = ["--db", str(db)]
    plan = run("replay", "--from", "1", "--json", *d)
    assert plan.stdout == run("replay", "plan", "--from", "1", "--json", *d).stdout
    assert "deprecated" not in plan.stderr
    old = run("replay", "--history", *d)
    assert "`logkb replay show`" in old.stderr and "deprecated" in old.stderr
    old = run("mark", "3", "--note", "by the old form", "--json", *d)
    assert "`logkb mark note ORDINAL TEXT`" in old.stderr
    made = json.loads(old.stdout)
    assert (made["kind"], made["ordinal"], made["value"]) == ("note", 3, "by the old form")
    listed = lines(run("mark", "--list", "--json", *d).stdout)
    assert listed == lines(run("mark", "list", "--json", *d).stdout)
    assert [(a["kind"], a["value"]) for a in listed] == [("note", "by the old form")]
    assert run("mark", "3", *d, ok=False).exit_code == ExitCode.USAGE
    assert run("replay", *d, ok=False).exit_code == ExitCode.USAGE
    # the global option between the group and its subcommand chooses no form
    assert "deprecated" not in run("replay", "--show-secrets", "show", *d).stderr
    assert "deprecated" in run("mark", "--show-secrets", "--list", *d).stderr
    bare = run("replay", ok=False)
    assert bare.exit_code == ExitCode.USAGE and "plan, run, show, compare" in bare.stderr


def test_readme_mentions_every_command() -> None:
    readme = (ROOT / "README.md").read_text()
    for name, _ in all_commands():
        assert re.search(rf"logkb {re.escape(name)}\b", readme), name
