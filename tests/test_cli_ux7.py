"""Faults a demanding user pass found (ux7), each checked as a user meets it.

``logkb`` as a real process at 80 columns, a fresh knowledge base holding two of the
pool's sessions: opencode's matugen export (an approach still open at its end) and the
Claude Code session ``random`` (its transcript ends on a user message, one check
unanswered).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.newcomer_env import home_env, logkb

OPENCODE = "matugen-theme-sync__opencode-session.json"
CLAUDE = "random__session.jsonl"
MATUGEN = "ses_01fef0a"
RANDOM = "a263b89"


@pytest.fixture(scope="module")
def kb(tmp_path_factory: pytest.TempPathFactory, realworld: Path) -> tuple[Path, dict[str, str]]:
    d = tmp_path_factory.mktemp("ux7")
    (d / "home").mkdir()
    env = home_env(d / "home", LOGKB_DB=str(d / "kb.duckdb"))
    pool = realworld / "pool"
    r = logkb(["ingest", "--wait", str(pool / OPENCODE), str(pool / CLAUDE)], env)
    assert r.returncode == 0, r.stderr
    return d, env


def test_why_an_ordinal_past_the_end_names_no_message(kb: tuple[Path, dict[str, str]]
                                                      ) -> None:
    """``logkb why 99999`` on a 21-message session told the story of the approach still
    open at its end, as if message 99999 were part of it: past the last message (or 0)
    there is no message, said as ``show`` says it (exit 6, the session's range)."""
    _, env = kb
    inside = logkb(["why", "21", "--session", MATUGEN], env)
    assert inside.returncode == 0, inside.stderr
    for ref in ("99999", "22", "0"):
        r = logkb(["why", ref, "--session", MATUGEN], env)
        assert r.returncode == 6, (ref, r.stdout, r.stderr)
        assert r.stdout == ""
        assert f"session {MATUGEN} has no message {int(ref)} (its messages are 1–21)" \
            in r.stderr, r.stderr
        j = logkb(["why", ref, "--session", MATUGEN, "--json"], env)
        assert j.returncode == 6 and j.stdout == "", j.stdout


LAZY_PLURAL = re.compile(r"\w\(s\)")


def test_handoff_status_counts_in_words_not_with_a_lazy_plural(
        kb: tuple[Path, dict[str, str]]) -> None:
    """The brief's status said "1 check(s) never answered": a count agrees with its noun,
    in the Markdown and in ``--json``."""
    _, env = kb
    r = logkb(["handoff", "--session", RANDOM], env)
    assert r.returncode == 0, r.stderr
    said = " ".join(r.stdout.split())
    assert "1 check never answered" in said, said[:2000]
    assert LAZY_PLURAL.search(said) is None, LAZY_PLURAL.search(said)
    j = logkb(["handoff", "--session", RANDOM, "--json"], env)
    assert j.returncode == 0, j.stderr
    assert LAZY_PLURAL.search(j.stdout) is None, LAZY_PLURAL.search(j.stdout)


def test_no_message_of_kb_or_tui_writes_a_lazy_plural() -> None:
    """``check(s)``, ``todo(s)``, ``annotation(s)``, ``dropped connection(s)`` were said
    to users (the brief, the TUI's unmark notice, ``push``): no string literal of ``kb/``
    or ``tui/`` holds one."""
    import io
    import tokenize

    root = Path(__file__).resolve().parents[1]
    found = []
    for pkg in ("kb", "tui"):
        for f in sorted((root / pkg).rglob("*.py")):
            toks = tokenize.generate_tokens(io.StringIO(f.read_text()).readline)
            for t in toks:
                kinds = {tokenize.STRING, getattr(tokenize, "FSTRING_MIDDLE", -1)}
                if t.type in kinds and not t.string.lstrip("rbuRBU").startswith(('"""', "'''")) \
                        and LAZY_PLURAL.search(t.string):
                    found.append(f"{f.relative_to(root)}:{t.start[0]}: {t.string}")
    assert found == [], found


def test_measurements_miss_is_said_like_the_other_lists(kb: tuple[Path, dict[str, str]]
                                                         ) -> None:
    """``measurements --unit bogus`` said "no measurements in a263b89 in bogus", and a miss
    that another session would hit said "; found in …; use --session …" without the
    ``or --all`` the README promises for commands with ``--all`` (``deadends`` and
    ``untested`` say it, on a ``hint:`` line when it would not fit)."""
    _, env = kb
    r = logkb(["measurements", "--session", RANDOM, "--unit", "bogus"], env)
    assert r.returncode == 0 and r.stdout == "", r.stdout
    said = r.stderr.splitlines()
    assert said[0] == f"no measurements in {RANDOM} with unit bogus", said
    # random's commit read "393 insertions"; matugen read none
    r = logkb(["measurements", "--session", MATUGEN, "--unit", "insertions"], env)
    assert r.returncode == 0 and r.stdout == "", r.stdout
    said = " ".join(r.stderr.split())
    assert said.startswith(f"no measurements in {MATUGEN} with unit insertions"), said
    assert f"found in {RANDOM}; use --session {RANDOM} or --all" in said, said
    for ln in r.stderr.splitlines():
        assert len(ln) <= 80, ln


def test_export_that_fails_leaves_no_folder_behind(kb: tuple[Path, dict[str, str]]) -> None:
    """``logkb export --parquet DIR`` made DIR before it found there was nothing to export
    (no knowledge base, an unknown session): a failed export leaves nothing behind."""
    d, env = kb
    none = {**env, "LOGKB_DB": str(d / "absent" / "kb.duckdb")}
    r = logkb(["export", "--parquet", str(d / "pq-none")], none)
    assert r.returncode == 6, r.stderr
    assert not (d / "pq-none").exists()
    r = logkb(["export", "--parquet", str(d / "pq-bogus"), "--session", "zzzbogus"], env)
    assert r.returncode == 6, r.stderr
    assert not (d / "pq-bogus").exists()
    r = logkb(["export", "--parquet", str(d / "pq" / "deep"), "--session", RANDOM], env)
    assert r.returncode == 0, r.stderr
    assert (d / "pq" / "deep" / "sessions").is_dir()


@pytest.mark.parametrize("args", [
    ["handoff", "--session", RANDOM, "-o", "{d}/no/such/dir/brief.md"],
    ["graph", "--session", RANDOM, "--format", "json", "-o", "{d}/no/such/dir/g.json"],
    ["report", RANDOM, "-o", "{f}/site"],
])
def test_an_output_that_cannot_be_written_is_one_error_naming_it(
        kb: tuple[Path, dict[str, str]], args: list[str]) -> None:
    """``handoff -o DIR/x.md`` into a folder that does not exist printed a Python traceback
    (so did ``graph -o`` and ``report -o`` under a file): one ``logkb: error:`` line naming
    the path and why, exit 1 (failed), nothing on stdout."""
    d, env = kb
    (d / "a-file").write_text("x\n")
    argv = [a.format(d=d, f=d / "a-file") for a in args]
    r = logkb(argv, env)
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "Traceback" not in r.stderr, r.stderr
    assert r.stdout == ""
    errors = [ln for ln in r.stderr.splitlines() if ln.startswith("logkb: error:")]
    assert len(errors) == 1, r.stderr
    assert str(d) in errors[0] and ("No such file or directory" in errors[0]
                                    or "Not a directory" in errors[0]), errors[0]


@pytest.mark.parametrize("command", [
    ["deadends"], ["untested"], ["measurements"], ["why", "index"], ["graph"],
    ["export", "--parquet", "{d}/pq-both"], ["rebuild", "--graph"],
])
def test_session_and_all_together_are_a_usage_error(kb: tuple[Path, dict[str, str]],
                                                    command: list[str]) -> None:
    """``deadends --all --session a263b89`` answered for every session, the ``--session``
    silently dropped (the README writes them ``[--session ID | --all]``, and ``untested
    --open --answered`` is refused the same way): exit 2, saying so."""
    d, env = kb
    argv = [a.format(d=d) for a in command] + ["--session", RANDOM, "--all"]
    r = logkb(argv, env)
    assert r.returncode == 2, (r.returncode, r.stdout[:300], r.stderr)
    assert r.stdout == ""
    assert "logkb: error: --session and --all exclude each other" in r.stderr, r.stderr
    assert not (d / "pq-both").exists()


def test_search_session_and_here_together_are_a_usage_error(kb: tuple[Path, dict[str, str]]
                                                           ) -> None:
    """``search X --session A --here`` searched A and dropped ``--here`` (the README writes
    ``[--session ID | --here]``): exit 2, saying so."""
    _, env = kb
    r = logkb(["search", "dominion", "--session", RANDOM, "--here"], env)
    assert r.returncode == 2, (r.returncode, r.stderr)
    assert r.stdout == ""
    assert "logkb: error: --session and --here exclude each other" in r.stderr, r.stderr
    r = logkb(["search", "dominion", "--session", RANDOM], env)
    assert r.returncode == 0 and RANDOM in r.stdout, r.stderr


def test_a_cell_cut_after_a_wide_character_ends_in_the_ellipsis(
        kb: tuple[Path, dict[str, str]]) -> None:
    """``logkb sessions`` at 80 columns cut the Chinese title of the matugen session as
    "帮我更新一下我的matugen脚 …": a blank before the ``…`` where the next wide
    character did not fit.  The ``…`` follows the text; the blank pads after it, so the
    columns still line up (at every width the table is printed at)."""
    from kb.width import cells

    _, env = kb
    cut_seen = 0
    for columns in range(60, 101):
        r = logkb(["sessions"], {**env, "COLUMNS": str(columns)})
        assert r.returncode == 0, r.stderr
        lines = r.stdout.splitlines()
        row = next(ln for ln in lines if ln.startswith(MATUGEN))
        assert " …" not in row, (columns, row)
        cut_seen += "…" in row
        end = cells(lines[0][:lines[0].index("msgs") + 4])  # "msgs" is right-aligned
        for ln in lines[1:]:
            k = next(i for i in range(len(ln) + 1) if cells(ln[:i]) >= end)
            assert ln[k - 1].isdigit() and (k == len(ln) or not ln[k].isdigit()), (columns, ln)
    assert cut_seen, "the title was never cut"


def test_a_table_never_cuts_a_redaction_marker() -> None:
    """A table cell cut inside a ``[redacted:KIND]`` placeholder showed "[redacted:aw…":
    a cell is cut before the marker, or keeps it whole."""
    from rich.text import Text

    from kb.render import Col, clip, fit

    cell = "token [redacted:aws-key] in the config"
    for width in range(8, 30):
        lines = fit([Col("msg", ["12"]), Col("what", [cell], flex=True, min=1)],
                    width + 5, header=False)
        shown = lines[0].plain
        assert "[redacted:" not in shown or "[redacted:aws-key]" in shown, (width, shown)
        c = clip(Text(cell), width).plain
        assert "[redacted:" not in c or "[redacted:aws-key]" in c, (width, c)


def test_misses_name_the_session_by_its_short_id(kb: tuple[Path, dict[str, str]]) -> None:
    """``replay plan`` past the last command and ``unmark`` of nothing named the session
    by its whole id ("a263b894-c8c2-44af-8845-663362b5a201") where every other message
    uses the short id ``sessions`` shows."""
    _, env = kb
    whole = "a263b894-c8c2-44af-8845-663362b5a201"
    r = logkb(["replay", "plan", "--from", "33", "--session", RANDOM], env)
    assert r.returncode == 0, r.stderr
    assert f"no recorded tool call in {RANDOM} from 33" in r.stderr and whole not in r.stderr
    r = logkb(["unmark", "3", "--session", RANDOM], env)
    assert r.returncode == 6, r.stderr
    assert f"in {RANDOM} " in r.stderr and whole not in r.stderr, r.stderr


@pytest.mark.parametrize("argv, more", [
    (["events", "--session", RANDOM, "-n", "5"], True),
    (["events", "--session", RANDOM, "-n", "500"], False),
    (["sessions", "-n", "1"], True),
    (["sessions", "-n", "2"], False),
    (["search", "index", "-n", "2"], True),
    (["search", "dominion", "-n", "50"], False),
    (["deadends", "--all", "-n", "1"], None),
    (["untested", "--all", "-n", "1"], None),
])
def test_a_list_cut_by_n_says_so(kb: tuple[Path, dict[str, str]], argv: list[str],
                                 more: bool | None) -> None:
    """``-n`` cut events, sessions, search hits, dead ends and untested checks without a
    word (``search`` cuts at 50 by default: a 51st hit was never hinted at), where
    ``measurements`` says "84 more: raise -n".  A list cut short says so on stderr; one
    that fits says nothing of the kind; ``--json`` keeps stderr for errors."""
    _, env = kb
    if more is None:  # more than one item in all: -n 1 cuts the list
        every = logkb(argv[:-2] + ["--json"], env)
        more = len(every.stdout.splitlines()) > 1
    r = logkb(argv, env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip()
    said = re.search(r"^(\d+|more) (more|hits?)?.*raise -n", r.stderr, re.M)
    assert (said is not None) == more, r.stderr
    j = logkb([*argv, "--json"], env)
    assert j.returncode == 0 and "raise -n" not in j.stderr, j.stderr


@pytest.mark.parametrize("argv", [["sessions"], ["search", "x"], ["handoff"]])
def test_no_knowledge_base_is_an_error_then_a_hint(kb: tuple[Path, dict[str, str]],
                                                   argv: list[str]) -> None:
    """With no knowledge base yet, every command said "logkb: error: no knowledge base at
    PATH (run `logkb ingest` first)": what to do in parentheses, where the README promises
    it on a ``hint:`` line of its own, as every other error gives it."""
    d, env = kb
    none = {**env, "LOGKB_DB": str(d / "absent" / "kb.duckdb")}
    r = logkb(argv, none)
    assert r.returncode == 6, r.stderr
    lines = r.stderr.splitlines()
    assert lines[0] == f"logkb: error: no knowledge base at {d / 'absent' / 'kb.duckdb'}", lines
    assert lines[1].startswith("hint: run `logkb ingest` first"), lines
