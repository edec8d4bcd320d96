"""What a new user sees at 80 columns from the CLI (the ux pass over real sessions):
diagnostics fit too, and wrapped transcript text keeps its indent and gutter."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from rich.cells import cell_len

from .cli_kb import invoke

LONG_TITLE = ("i dont wanna use this page http://localhost:3000/employer/employees in "
              "Civitas anymore, move everything to the new dashboard please")
LONG_LINE = "description: " + " ".join(f"word{i}" for i in range(60))


def _session(dst: Path, seed: int, title: str, start_ms: int) -> Path:
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(seed), directory="/home/dev/ux", project_id="ab" * 20)
    s = SessionBuilder(ctx, title=title, start_ms=start_ms)
    s.user("read the skill file " + " ".join(f"please{i}" for i in range(30)))
    s.step("Reading it. " + " ".join(f"because{i}" for i in range(30)),
           [bash("sed -n '1,220p' /Users/dev/.agents/skills/frontend-design-guidelines/"
                 "SKILL.md", f"---\n{LONG_LINE}\n---\n")])
    s.step("Done.")
    return write_jsonl(s.tree(), dst)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("ux80")
    kb = d / "kb.duckdb"
    a = _session(d / "a.jsonl", 1, LONG_TITLE, 1_790_000_000_000)
    b = _session(d / "b.jsonl", 2, LONG_TITLE + " and again", 1_790_100_000_000)
    r = invoke("ingest", "--db", str(kb), str(a), str(b))
    assert r.exit_code == 0, r.stderr
    return kb


def test_which_session_note_fits_80(db: Path) -> None:
    r = invoke("show", "2", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    assert "latest ingested" in r.stderr and "of 2 sessions" in r.stderr
    assert all(cell_len(ln) <= 80 for ln in r.stderr.splitlines()), r.stderr


def test_show_wraps_output_inside_its_gutter(db: Path) -> None:
    r = invoke("show", "2", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(cell_len(ln) <= 80 for ln in lines)
    first = next(i for i, ln in enumerate(lines) if "description: word0" in ln)
    last = next(i for i, ln in enumerate(lines) if "word59" in ln)
    assert last > first  # it wrapped
    assert all(ln.startswith("  │ ") for ln in lines[first:last + 1]), lines[first:last + 1]
    # the command and the prose wrap under their indent, never at column 0
    body = [ln for ln in lines[1:] if ln.strip()]
    assert all(ln.startswith("  ") for ln in body if not ln.startswith(
        ("command", "result", "decision", "prompt"))), body


def test_session_detail_wraps_a_long_title_under_its_field(db: Path) -> None:
    import json

    sid = json.loads(invoke("sessions", "--json", "--db", str(db)).stdout.splitlines()[0])
    r = invoke("sessions", sid["id"], "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(cell_len(ln) <= 80 and ln == ln.rstrip() for ln in lines), lines
    i = next(i for i, ln in enumerate(lines) if ln.startswith("title:"))
    assert lines[i + 1].startswith(" " * 11) and "please6" in lines[i + 1]


def test_the_no_price_note_wraps_at_80(tmp_path: Path) -> None:
    """usage's note naming unpriced models and the prices file ran to 173 columns."""
    from .unpriced import UNPRICED_MODEL, unpriced_scout

    kb = tmp_path / "kb.duckdb"
    assert invoke("ingest", "--db", str(kb), str(unpriced_scout(tmp_path))).exit_code == 0
    r = invoke("usage", "--db", str(kb), env={"COLUMNS": "80",
                                              "XDG_CONFIG_HOME": str(tmp_path / ("a" * 40))})
    assert r.exit_code == 0, r.stderr
    assert UNPRICED_MODEL in r.stderr and "prices.json" in r.stderr
    assert all(cell_len(ln) <= 80 for ln in r.stderr.splitlines()), r.stderr


def test_ingest_at_80_keeps_the_title_with_a_short_id(tmp_path: Path) -> None:
    """At 80 columns the 36-character id of a real session left the agent and title cut
    to nothing (`…  36 new  [claude-c…`); below 120 columns the line names it by its
    short id (the one `logkb sessions` shows), wider by its full id."""
    src = _session(tmp_path / "a.jsonl", 3, LONG_TITLE, 1_790_000_000_000)
    narrow = invoke("ingest", "--db", str(tmp_path / "kb.duckdb"), str(src),
                    env={"COLUMNS": "80"})
    assert narrow.exit_code == 0, narrow.stderr
    (line,) = narrow.stdout.splitlines()
    assert cell_len(line) <= 80 and "[jsonl] read the skill file please0" in line, line
    short = line.split()[0]
    listed = invoke("sessions", "--db", str(tmp_path / "kb.duckdb"), env={"COLUMNS": "80"})
    assert any(ln.startswith(short + " ") for ln in listed.stdout.splitlines())
    wide = invoke("ingest", "--force", "--db", str(tmp_path / "kb.duckdb"), str(src),
                  env={"COLUMNS": "160"})
    assert wide.stdout.split()[0].startswith(short) and len(wide.stdout.split()[0]) > 20


def test_use_answers_in_one_line_that_fits(db: Path, tmp_path: Path) -> None:
    """`logkb use` printed a real session's full id and title on one 92-column line."""
    import shutil

    kb = tmp_path / "kb.duckdb"
    shutil.copyfile(db, kb)
    first = invoke("sessions", "--json", "--db", str(kb)).stdout.splitlines()[0]
    for args in (("use", first.split('"id":"')[1][:12]), ("use",)):
        r = invoke(*args, "--db", str(kb), env={"COLUMNS": "80"})
        assert r.exit_code == 0, r.stderr
        (line,) = r.stdout.splitlines()
        assert cell_len(line) <= 80 and line.endswith("…"), line


def test_secrets_lists_a_repeated_finding_once_with_its_count(tmp_path: Path) -> None:
    """A value repeated in one output (real: a Solana constant five times in message
    305 of a Codex session) gave identical-looking rows, and the rule column folded."""
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    line = 'export API_KEY="a8f3k2m9x7q1w5e6r4t0y8u2i3o9p1z7"\n'
    ctx = BuildContext(random.Random(5), directory="/home/dev/ux", project_id="cd" * 20)
    s = SessionBuilder(ctx, title="keys", start_ms=1_790_000_000_000)
    s.user("show the env file")
    s.step("Reading it.", [bash("cat .env", line * 3)])
    s.step("Done.")
    kb = tmp_path / "kb.duckdb"
    assert invoke("ingest", "--db", str(kb), str(write_jsonl(s.tree(), tmp_path / "k.jsonl"))
                  ).exit_code == 0
    r = invoke("secrets", "--db", str(kb), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    rows = r.stdout.splitlines()
    assert "a8f3k2m9x7q1" not in r.stdout
    found = [ln for ln in rows[1:] if "calls.output" in ln]
    assert len(found) == 1 and found[0].split()[-1] == "3", rows
    assert all(cell_len(ln) <= 80 and ln == ln.rstrip() for ln in rows), rows


def test_secrets_keeps_preview_and_count_at_80(tmp_path: Path) -> None:
    """At 80 columns the rule and field give way; the masked preview and the count of a
    repeated finding stay whole (an ellipsis hid the count column altogether)."""
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(7), directory="/home/dev/ux", project_id="cd" * 20)
    s = SessionBuilder(ctx, title="tokens", start_ms=1_790_000_000_000)
    s.user("print the env")
    token = "ghp_" + "A1b2C3d4E5" * 4 + "ZZ"
    s.step("Looking.", [bash("env", f"GH={token}\nAGAIN={token}\nAWS=AKIAIOSFODNN7EXAMPLE\n")])
    kb = tmp_path / "kb.duckdb"
    assert invoke("ingest", "--db", str(kb), str(write_jsonl(s.tree(), tmp_path / "s.jsonl"))
                  ).exit_code == 0
    r = invoke("secrets", "--db", str(kb), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    lines = r.stdout.splitlines()
    assert all(cell_len(ln) <= 80 for ln in lines), r.stdout
    assert lines[0].split()[-1] == "n", lines[0]
    gh = next(ln for ln in lines if "github-token" in ln)
    assert "ghp_…(46)" in gh and gh.split()[-1] == "2", gh
    assert "AKIA…(20)" in r.stdout and token not in r.stdout


def test_search_miss_hints_fit_80(db: Path) -> None:
    """The spellings tried for a miss made an 89-column hint line."""
    r = invoke("search", "zzqq_no_such_thing_at_all", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 1, r.stderr
    assert "hint: tried 'zzqqnosuchthingatall'" in r.stderr
    assert all(cell_len(ln) <= 80 for ln in r.stderr.splitlines()), r.stderr


def test_untested_says_answered_at_80() -> None:
    """At 80 columns the state column went first: a check answered by a later run read
    as one never answered."""
    from kb.render import untested_lines

    q = {"ordinal": 23, "question": "what does `sed -n '1,220p' app/employer/page.tsx` "
         "report? " * 2, "reason": "the command still ran when its output came back",
         "status": "answered", "answered_at": 37}
    lines = [t.plain for t in untested_lines([q, {**q, "ordinal": 24, "status": "open",
                                                   "answered_at": None}], 80)]
    assert all(cell_len(ln) <= 80 for ln in lines), lines
    assert lines[0].rstrip().endswith("answered at 37") and "answered" not in lines[1], lines


def test_resume_quotes_the_directory_it_names(tmp_path: Path) -> None:
    """A transcript names the directory: printed bare, `(run it in /tmp/a b;$(…))` was
    one paste away from running what the transcript put there."""
    from fixtures.opencode_builder import BuildContext, SessionBuilder
    from fixtures.opencode_writer import write_export

    where = "/tmp/a b;$(touch x)"
    ctx = BuildContext(random.Random(8), directory=where, project_id="bb" * 20)
    s = SessionBuilder(ctx, title="dir", start_ms=1_790_000_000_000)
    s.user("hello")
    s.step("Hello.")
    kb = tmp_path / "kb.duckdb"
    assert invoke("ingest", "--db", str(kb), str(write_export(s.tree(), tmp_path / "s.json"))
                  ).exit_code == 0
    r = invoke("resume", "--db", str(kb))
    assert r.exit_code == 0, r.stderr
    assert "(run it in '/tmp/a b;$(touch x)')" in r.stderr, r.stderr


def test_a_second_ingest_of_the_agents_folders_is_quiet(tmp_path: Path) -> None:
    """`logkb ingest` with no path, run again: a line per unchanged file (paths past 80
    columns) on top of the per-agent counts that already say it."""
    from tests.newcomer_env import fake_home, home_env, logkb

    home = fake_home(tmp_path)
    env = home_env(home)
    assert logkb(["ingest"], env).returncode == 0
    r = logkb(["ingest"], env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "", r.stdout
    assert f"Claude Code: {home / '.claude/projects'}: 0 sessions read, 1 input unchanged" in (
        r.stderr)
    # a path named on the command line is still answered for
    src = next((home / ".claude" / "projects").rglob("*.jsonl"))
    r = logkb(["ingest", str(src)], env)
    assert r.returncode == 0 and f"unchanged: {src}" in r.stdout, (r.stdout, r.stderr)


def test_show_0_is_a_usage_error_not_a_pointer_elsewhere(db: Path) -> None:
    """Ordinals start at 1; `show 0` said "found in <another session>; use --session …",
    and that session said the same of the first."""
    r = invoke("show", "0", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 2, (r.exit_code, r.stderr)
    assert "found in" not in r.stderr and "is not a whole number of 1 or more" in r.stderr, r.stderr


@pytest.mark.parametrize("command", ["sessions", "events", "deadends", "untested"])
def test_limit_0_is_a_usage_error(db: Path, command: str) -> None:
    """`sessions -n 0` said "no sessions yet (run `logkb ingest`)" over a knowledge base
    of two; `search -n 0` was already refused."""
    r = invoke(command, "-n", "0", "--db", str(db))
    assert r.exit_code == 2 and "is not a whole number of 1 or more" in r.stderr, (r.exit_code, r.stderr)


def test_an_empty_timeline_says_so_on_stderr(db: Path) -> None:
    """"no approaches or measurements yet" went to stdout, as if it were the chart."""
    r = invoke("timeline", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    assert r.stdout == "" and "no approaches or measurements yet" in r.stderr


def test_graph_summary_is_data_and_its_hint_a_diagnostic(db: Path) -> None:
    r = invoke("graph", "--db", str(db))
    assert r.exit_code == 0, r.stderr
    assert r.stdout.count("\n") == 1 and "1 node, 0 edges: 1 session" in r.stdout, r.stdout
    assert "--format json|graphml|dot|mermaid" in r.stderr and "--format" not in r.stdout


def test_opencode_placeholder_title_gives_way_to_the_prompt(tmp_path: Path) -> None:
    """Two real opencode sessions whose title was never made listed as "New session -
    2026-08-0…" and "New session - 2026-07-3…" at 80 columns: nothing to tell them by."""
    import json

    from fixtures.opencode_builder import BuildContext, SessionBuilder
    from fixtures.opencode_writer import write_export

    ctx = BuildContext(random.Random(9), directory="/home/dev/ux", project_id="ab" * 20)
    s = SessionBuilder(ctx, title="New session - 2026-08-08T06:30:35.531Z",
                       start_ms=1_790_000_000_000)
    s.user("Read SPEC.md and improve it for other agents\nsecond line")
    s.step("Reading.")
    kb = tmp_path / "kb.duckdb"
    assert invoke("ingest", "--db", str(kb), str(write_export(s.tree(), tmp_path / "s.json"))
                  ).exit_code == 0
    row = json.loads(invoke("sessions", "--json", "--db", str(kb)).stdout.splitlines()[0])
    assert row["title"] == "Read SPEC.md and improve it for other agents", row["title"]


def test_usage_by_session_names_sessions_by_short_id(db: Path) -> None:
    """`usage --by session` cut the full id to 12 characters (`33c772d9-b32`), a name
    no other command shows; the short id is what `sessions` lists and --session takes."""
    import json

    short = {r["id"]: r["short_id"] for r in map(json.loads, invoke(
        "sessions", "--json", "--db", str(db)).stdout.splitlines())}
    r = invoke("usage", "--by", "session", "--db", str(db), env={"COLUMNS": "80"})
    assert r.exit_code == 0, r.stderr
    keys = [ln.split()[0] for ln in r.stdout.splitlines()[1:-1]]
    assert keys and set(keys) <= set(short.values()), (keys, short)
