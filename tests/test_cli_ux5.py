"""A demanding new user on three real pool sessions (ux5): what the CLI says is true.

Run as a user runs it: ``logkb`` as a real process, a fresh knowledge base, the pool's
current Claude Code session (blockchain-dex-events, 2.1.146/147) and its Codex session
(Rivo, 0.128).  Each test is a fault found in that pass.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from tests.newcomer_env import home_env, logkb

CLAUDE = "blockchain-dex-events__claude-session.jsonl"
CODEX = "Rivo__codex-session.jsonl"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, realworld: Path) -> tuple[Path, dict[str, str]]:
    d = tmp_path_factory.mktemp("ux5")
    env = home_env(d / "home", LOGKB_DB=str(d / "kb.duckdb"))
    (d / "home").mkdir()
    pool = realworld / "pool"
    r = logkb(["ingest", str(pool / CLAUDE), str(pool / CODEX)], env)
    assert r.returncode == 0, r.stderr
    return d / "kb.duckdb", env


def _handoff(env: dict[str, str], session: str) -> dict:
    r = logkb(["handoff", "--session", session, "--json"], env)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_one_reading_is_no_best_and_nothing_to_reproduce(kb: tuple[Path, dict[str, str]]
                                                        ) -> None:
    """blockchain-dex-events measured its headline quantity once (a duration, whose better
    side is known): a "best" of one reading, its own "baseline" at +0% and a reviewer
    sub-agent's task description fenced as ``sh`` under "Reproduce the best result" told
    the user nothing true.  One reading is the last reading; a best needs two."""
    _, env = kb
    d = _handoff(env, "CoinGecko")
    st = d["status"]
    readings = d["measurements"]
    assert len(readings) == 1 and st["last"] is not None
    assert st["best"] is None and st["baseline"] is None and st["improvement"] is None
    assert d["reproduce"] == []
    r = logkb(["handoff", "--session", "CoinGecko"], env)
    assert r.returncode == 0, r.stderr
    assert "- Best:" not in r.stdout and "- Baseline:" not in r.stdout
    assert "## Reproduce the best result" not in r.stdout
    said = " ".join(r.stdout.split())
    assert "- Last reading: 5 s" in said and "(one reading: no best)" in said



def test_every_command_help_ends_with_examples_that_parse(tmp_path: Path) -> None:
    """``logkb deadends -h`` listed options and no command line to copy: 37 of the 42
    commands (and ``logkb -h`` itself) had no example.  Every visible command's help now ends with ``Examples:``
    (``kb/cli/examples.py``), each example a command line its own parser accepts."""
    import click

    from kb.cli import cli
    from kb.cli.examples import EXAMPLES, commands

    env = home_env(tmp_path)
    listed = commands(cli)
    assert len(listed) >= 40
    for path, cmd in [("", cli), *listed]:
        assert path in EXAMPLES, f"no example for `logkb {path}`"
        r = logkb([*path.split(), "--help"], env)
        assert r.returncode == 0, r.stderr
        tail = re.split(r"\n *Examples:\n", r.stdout, maxsplit=1)
        assert len(tail) == 2, f"`logkb {path} --help` has no Examples: block"
        shown = [ln.strip() for ln in tail[1].splitlines() if ln.strip()]
        assert shown == list(EXAMPLES[path]), shown
        assert all(len(ln) <= 80 for ln in r.stdout.splitlines()), path
        ours = [ln for ln in shown if ln.startswith(f"logkb {path}".rstrip())]
        assert ours, f"no example of `logkb {path}` itself"
        for line in ours:
            import shlex

            words = shlex.split(line)[1:]
            target, args = cmd, words[len(path.split()):]
            while isinstance(target, click.Group) and args and args[0] in target.commands:
                target, args = target.commands[args[0]], args[1:]
            try:  # the help names as `logkb` has them: click caches a command's help
                # option from the first context made for it
                target.make_context(line, args, help_option_names=["-h", "--help"])
            except click.UsageError as e:  # an example that does not parse is a lie
                raise AssertionError(f"{line}: {e.format_message()}") from e


def _bench(dst: Path) -> Path:
    """Three benchmark runs printing a rate (higher is better), then one timing."""
    import random

    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl

    ctx = BuildContext(random.Random(5), directory="/home/dev/b", project_id="ef" * 20)
    s = SessionBuilder(ctx, title="make the server faster", start_ms=1_790_000_000_000)
    s.user("Make the server faster")
    for i, rate in enumerate((812.5, 1204.75, 790.25)):
        s.step(f"Benchmark run {i}.", [bash("wrk -t2 -c10 http://127.0.0.1:8080/",
                                            f"Requests/sec: {rate}\n")])
    s.step("Done.")
    return write_jsonl(s.tree(), dst)


def test_measurements_lists_what_a_session_measured(kb: tuple[Path, dict[str, str]],
                                                    tmp_path: Path) -> None:
    """There was no way to list a session's readings but `show` one message at a time,
    `events --json` or SQL.  `logkb measurements` lists them in the order read, ↑/↓ the
    better side, ★ the best of a quantity read twice or more; harness clocks left out
    (and said on stderr) unless --harness; JSON lines with the same fields."""
    _, env = kb
    # Rivo measured nothing of its own work: its wall times and the file sizes an
    # `ls` listed are the harness's and the tree's (ux11b), shown only with --harness
    r = logkb(["measurements", "--session", "019de7f"], env)
    assert r.returncode == 0, r.stderr
    assert r.stdout == "" and "--harness shows them" in r.stderr
    r = logkb(["measurements", "--session", "019de7f", "--harness"], env)
    assert r.returncode == 0, r.stderr
    rows = r.stdout.splitlines()
    assert rows[0].split()[:3] == ["msg", "value", "unit"]
    assert any(ln.split()[:3] == ["15", "83", "B"] and ".gitignore" in ln for ln in rows)
    assert "wall time" in r.stdout
    assert all(len(ln) <= 80 for ln in rows + r.stderr.splitlines())
    r = logkb(["measurements", "--session", "019de7f", "--harness", "--json"], env)
    assert r.returncode == 0, r.stderr
    got = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert {"session_id", "ordinal", "value", "unit", "label", "direction", "best",
            "command"} <= set(got[0])
    walls = [m for m in got if m["label"] == "wall time"]
    assert walls and all(m["direction"] == -1 and not m["best"] for m in walls)
    # one reading of a duration: its better side is known, but it is no best
    r = logkb(["measurements", "--session", "CoinGecko", "--unit", "s", "--json"], env)
    (five,) = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert (five["value"], five["direction"], five["best"]) == (5, -1, False)

    db = tmp_path / "bench.duckdb"
    benv = {**env, "LOGKB_DB": str(db)}
    assert logkb(["ingest", str(_bench(tmp_path / "b.jsonl"))], benv).returncode == 0
    r = logkb(["measurements", "--unit", "req/s"], benv)
    assert r.returncode == 0, r.stderr
    marked = [ln for ln in r.stdout.splitlines() if "★" in ln]
    assert len(marked) == 1 and "1204.75" in marked[0] and "↑★" in marked[0], r.stdout
    r = logkb(["measurements", "--unit", "tok/s"], benv)
    assert r.returncode == 0 and r.stdout == ""
    assert "no measurements in" in r.stderr and "with unit tok/s" in r.stderr


def test_status_says_the_goal_was_not_judged_not_that_it_is_unknown(
        kb: tuple[Path, dict[str, str]]) -> None:
    """Under a Goal section quoting the first request, the status said "Goal: unknown":
    read as "the goal is unknown".  What is unknown is whether it was met."""
    _, env = kb
    r = logkb(["handoff", "--session", "CoinGecko"], env)
    assert r.returncode == 0, r.stderr
    assert "- Goal: unknown" not in r.stdout
    assert "- Goal: not judged\n" in r.stdout


def test_events_say_which_prompt_was_injected(kb: tuple[Path, dict[str, str]]) -> None:
    """Message 1 of blockchain-dex-events is Claude Code's ``<system-reminder>`` naming
    the session, stored as a synthetic prompt: `events` listed it as the user's prompt."""
    _, env = kb
    r = logkb(["events", "--session", "CoinGecko", "--kind", "prompt", "--to", "2"], env)
    assert r.returncode == 0, r.stderr
    first, second = r.stdout.splitlines()
    assert first.split()[:4] == ["1", "prompt", "injected", "<system-reminder>"], first
    assert "injected" not in second and "new take-home" in second


def test_timeline_json_has_no_best_of_one_reading(kb: tuple[Path, dict[str, str]]) -> None:
    """The text said "one reading: 5 at 111" while --json named that reading the best."""
    _, env = kb
    r = logkb(["timeline", "--session", "CoinGecko", "--json"], env)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert len(d["throughput"]) == 1 and d["direction"] == -1 and d["best"] is None


def test_claude_codes_note_on_a_cut_output_is_no_result(realworld: Path,
                                                        tmp_path: Path) -> None:
    """conversacion-act1-pln (the largest pool file a user may read here): Claude Code
    cut a tool output and said so (``<persisted-output> Output too large (34.2KB)``);
    that size of the harness's cut was the brief's "Last reading" and its only
    "Measurements (throughput)".  It is the harness's reading, like Codex's wall time."""
    env = home_env(tmp_path / "home", LOGKB_DB=str(tmp_path / "kb.duckdb"))
    (tmp_path / "home").mkdir(exist_ok=True)
    src = realworld / "pool" / "conversacion-act1-pln__session.jsonl"
    assert logkb(["ingest", str(src)], env).returncode == 0
    d = json.loads(logkb(["handoff", "--json"], env).stdout)
    said = [m["label"] for m in d["measurements"]] + [(d["status"]["last"] or {}).get("label")]
    assert "Output too large" not in said, said
    r = logkb(["measurements", "--harness", "--json"], env)
    assert any(json.loads(ln)["label"] == "Output too large" for ln in r.stdout.splitlines())
    r = logkb(["measurements", "--json"], env)
    assert all(json.loads(ln)["label"] != "Output too large" for ln in r.stdout.splitlines())


def test_a_reading_without_a_label_leaves_no_double_space(realworld: Path,
                                                          tmp_path: Path) -> None:
    """random__session: the brief said ``Last reading: 2 files changed  [19]`` and
    ``- [19] 2 files changed `` (a reading with no label: two spaces, a trailing one).
    A commit's count of files is no measured result: the status now says none was
    recorded (tests/kb/test_handoff_status.py checks an unlabelled reading's line)."""
    env = home_env(tmp_path / "home", LOGKB_DB=str(tmp_path / "kb.duckdb"))
    (tmp_path / "home").mkdir(exist_ok=True)
    assert logkb(["ingest", str(realworld / "pool" / "random__session.jsonl")],
                 env).returncode == 0
    r = logkb(["handoff"], env)
    assert r.returncode == 0, r.stderr
    assert "2 files changed" not in r.stdout
    assert "- No throughput measurement was recorded." in r.stdout
    assert not [ln for ln in r.stdout.splitlines() if ln.startswith("- ") and (
        ln.endswith(" ") or "  [" in ln)]


def test_show_prompts_with_dollar_only_what_a_shell_ran(kb: tuple[Path, dict[str, str]]
                                                        ) -> None:
    """`show 30` printed an edit's file as ``$ /Users/…/README.md`` and `show 111` the
    reviewer sub-agent's description as ``$ Code review of all 5 question solutions``:
    no shell ran either.  ``$`` stays for shell calls (``bash``, every agent's)."""
    _, env = kb
    for ordinal, text in (("30", "/Users/shijie/Documents/Personal/blockchain-dex-events/"),
                          ("111", "Code review of all 5 question solutions")):
        r = logkb(["show", ordinal, "--session", "CoinGecko"], env)
        assert r.returncode == 0, r.stderr
        flat = " ".join(r.stdout.split())
        assert text in flat and f"$ {text}" not in flat, r.stdout
    r = logkb(["show", "3", "--session", "CoinGecko"], env)
    assert "$ ls -la /Users/shijie/Documents/Personal && pwd" in r.stdout


def test_files_edited_are_named_from_the_working_directory(
        kb: tuple[Path, dict[str, str]]) -> None:
    """Twelve absolute paths under /Users/shijie/Documents/Personal ran the brief's
    "files edited" to 86-93 columns a line (a code span is never broken)."""
    _, env = kb
    r = logkb(["handoff", "--session", "CoinGecko"], env)
    assert r.returncode == 0, r.stderr
    part = r.stdout.split("## What the session did", 1)[1].split("How it ended", 1)[0]
    flat = " ".join(part.split())
    assert "files edited in `/Users/shijie/Documents/Personal`:" in flat, part
    assert "`blockchain-dex-events/SOLUTIONS.md`" in flat
    assert all(len(ln) <= 80 for ln in part.splitlines()), part
    d = _handoff(env, "CoinGecko")  # JSON keeps the paths whole
    assert all(f.startswith("/Users/shijie/") for f in d["activity"]["files_edited"])


def test_deadends_headings_that_cut_alike_are_told_apart(
        kb: tuple[Path, dict[str, str]]) -> None:
    """Three causes of blockchain-dex-events begin "a review («Code review of all 5
    question solutions») found it wrong: took away …": cut to 80 columns, three groups
    had the same heading, as if the grouping had failed.  Those headings wrap (up to
    three lines) until they differ."""
    _, env = kb
    r = logkb(["deadends", "--session", "CoinGecko"], env)
    assert r.returncode == 0, r.stderr
    heads = []
    for block in r.stdout.split("\n\n"):
        lines = block.splitlines()
        heads.append(tuple(ln for ln in lines[:next(
            i for i, ln in enumerate(lines) if ln.startswith("  ✘"))]))
    review = [h for h in heads if h[0].startswith("a review («Code review")]
    assert len(review) == 3 and len(set(review)) == 3, review
    assert all(len(h) == 1 for h in heads if h not in review)  # the others stay one line
    assert all(len(ln) <= 80 for ln in r.stdout.splitlines())
