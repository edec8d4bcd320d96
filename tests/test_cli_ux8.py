"""Faults the ux7 user pass found and left (ux8), each checked as a user meets it.

``logkb`` as a real process at 80 columns, a fresh knowledge base holding three of the
pool's sessions: opencode's matugen export, the Claude Code session ``random`` and the
rewrite ``trade_arena__codex-session.jsonl`` (an author's rewrite: no calls, nothing to
resume).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.newcomer_env import home_env, logkb

OPENCODE = "matugen-theme-sync__opencode-session.json"
CLAUDE = "random__session.jsonl"
REWRITE = "trade_arena__codex-session.jsonl"
MATUGEN = "ses_01fef0a"
RANDOM = "a263b89"
RANDOM_ID = "a263b894-c8c2-44af-8845-663362b5a201"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, realworld: Path) -> tuple[Path, dict[str, str]]:
    d = tmp_path_factory.mktemp("ux8")
    (d / "home").mkdir()
    env = home_env(d / "home", LOGKB_DB=str(d / "kb.duckdb"))
    pool = realworld / "pool"
    r = logkb(["ingest", "--wait", str(pool / OPENCODE), str(pool / CLAUDE), str(pool / REWRITE)],
              env)
    assert r.returncode == 0, r.stderr
    return d, env


def test_a_name_that_does_not_exist_is_one_exit_code(kb: tuple[Path, dict[str, str]]) -> None:
    """``why NAME`` with a name nothing is known about exited 1 where ``why 99999`` (an
    ordinal past the end), ``why approach:N``, ``show 99999`` and ``sessions BOGUS`` exit
    6: a thing named that does not exist is "not found" (6) for every command, as the
    README's exit-code table says; 1 stays a search's no match."""
    _, env = kb
    for argv in (["why", "zzz-no-such-approach", "--session", RANDOM],
                 ["why", "zzz-no-such-approach", "--session", RANDOM, "--json"],
                 ["why", "zzz-no-such-approach", "--all"],
                 ["why", "99999", "--session", RANDOM],
                 ["show", "99999", "--session", RANDOM],
                 ["sessions", "zzzbogus"],
                 ["replay", "compare", "99999", "--session", RANDOM]):
        r = logkb(argv, env)
        assert r.returncode == 6, (argv, r.returncode, r.stderr)
        assert r.stdout == "", (argv, r.stdout)
    r = logkb(["why", "zzz-no-such-approach", "--session", RANDOM], env)
    assert r.stderr.startswith("logkb: nothing known about 'zzz-no-such-approach'"), r.stderr
    assert "hint:" in r.stderr
    r = logkb(["replay", "compare", "99999", "--session", RANDOM], env)
    assert RANDOM_ID not in r.stderr and RANDOM in r.stderr, r.stderr
    # a search that matches nothing is not a name: grep's 1
    assert logkb(["search", "zzzqqqxyz"], env).returncode == 1


@pytest.mark.parametrize("argv", [
    ["events"], ["timeline"], ["replay", "plan"], ["replay", "run"], ["replay"],
])
def test_an_empty_range_is_a_usage_error(kb: tuple[Path, dict[str, str]],
                                         argv: list[str]) -> None:
    """``events --from 5 --to 2`` said "no events in a263b89 match" and exited 0, as if
    the messages held nothing: a range whose start is after its end is a mistake on the
    command line, said on one line naming both values (exit 2), nothing run."""
    _, env = kb
    r = logkb([*argv, "--from", "5", "--to", "2", "--session", RANDOM], env)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == ""
    first = r.stderr.splitlines()[0]
    assert first.startswith("logkb: error: --from 5 is after --to 2"), r.stderr
    ok = logkb([*argv[:1], "--from", "5", "--to", "5", "--session", RANDOM], env)
    assert ok.returncode == 0, ok.stderr


def test_resume_of_a_rewrite_names_it_by_its_short_id(kb: tuple[Path, dict[str, str]]
                                                      ) -> None:
    """``resume`` on a rewrite said "trade_arena__codex-session-dba07dc1 was read from a
    rewrite …", the whole id, where ``sessions`` and every other message show the short
    id: the refusal names the session as ``sessions`` does."""
    _, env = kb
    listed = logkb(["sessions"], env)
    assert listed.returncode == 0, listed.stderr
    row = next(ln for ln in listed.stdout.splitlines() if "rewrite" in ln)
    short = row.split()[0]
    whole = "trade_arena__codex-session-dba07dc1"
    assert short != whole
    r = logkb(["resume", short], env)
    assert r.returncode == 6, r.stderr
    first = r.stderr.splitlines()[0]
    assert first.startswith(f"logkb: error: {short} was read from a rewrite"), r.stderr
    assert whole not in r.stderr, r.stderr


def _one_message(stderr: str, start: str) -> list[str]:
    """The lines of the stderr message that begins ``start``: its first line and the
    continuation lines indented under it."""
    lines = stderr.splitlines()
    i = next(i for i, ln in enumerate(lines) if ln.startswith(start))
    j = i + 1
    while j < len(lines) and lines[j].startswith("  "):
        j += 1
    return lines[i:j]


def _wrapped_as_one_message(stderr: str, start: str, whole: str) -> None:
    """A note longer than the width wraps at word ends within 80 columns, its
    continuation lines indented under it (one message, as ``logkb: error:`` wraps on a
    terminal): never a line ending in a blank, never a line that reads as a new one."""
    from kb.width import cells

    msg = _one_message(stderr, start)
    assert len(msg) > 1, stderr
    assert all(cells(ln) <= 80 and ln == ln.rstrip() for ln in msg), msg
    # (a word longer than a line, a path, breaks where the line is full)
    assert "".join("".join(msg).split()) == "".join(whole.split()), msg
    assert msg[0].startswith(whole[:20]), msg


def test_replay_plan_note_wraps_as_one_message(kb: tuple[Path, dict[str, str]]) -> None:
    """``replay plan``'s closing note was hard-wrapped mid-sentence by the console: "…
    (each `skipped:` line " then "says why; …" at the start of a line of its own, a
    blank at the end of the first."""
    _, env = kb
    r = logkb(["replay", "plan", "--from", "1", "--session", RANDOM], env)
    assert r.returncode == 0, r.stderr
    _wrapped_as_one_message(
        r.stderr, "plan only:", "plan only: nothing was executed, and no step would run "
        "(each `skipped:` line says why; --allow, --host-map or --yes open them).")


def test_usage_price_note_wraps_as_one_message(tmp_path: Path) -> None:
    """``usage``'s note naming unpriced models wrapped mid-sentence, its second line
    reading as a new message."""
    from tests.unpriced import UNPRICED_MODEL, unpriced_scout

    (tmp_path / "user").mkdir()
    env = home_env(tmp_path / "user", LOGKB_DB=str(tmp_path / "kb.duckdb"),
                   XDG_CONFIG_HOME=str(tmp_path / ("a" * 40)))
    assert logkb(["ingest", str(unpriced_scout(tmp_path))], env).returncode == 0
    r = logkb(["usage"], env)
    assert r.returncode == 0, r.stderr
    path = tmp_path / ("a" * 40) / "logkb" / "prices.json"
    _wrapped_as_one_message(r.stderr, "no price for", f"no price for {UNPRICED_MODEL}: add "
                            f"them to {path} (USD per million tokens)")


def test_export_says_the_session_count_once(kb: tuple[Path, dict[str, str]]) -> None:
    """``export`` said "exported 1 session to DIR: 1 session, 33 messages, …": the count
    of sessions twice.  It is said once, before the folder."""
    d, env = kb
    r = logkb(["export", "--parquet", str(d / "pq-once"), "--session", RANDOM], env)
    assert r.returncode == 0, r.stderr
    said = " ".join(r.stderr.split())
    assert said.startswith("exported 1 session to "), said
    assert said.count("session") == 1, said
    assert "messages" in said and "events" in said, said
