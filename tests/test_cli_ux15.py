"""Faults a demanding user's pass found (ux15), each checked as the user meets it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from rich.cells import cell_len

from kb.exitcodes import ExitCode
from tests.cli_kb import invoke, lines

ROOT = Path(__file__).resolve().parents[1]
TRIM = ROOT / "fixtures" / "realworld_trim"
CODEX = (TRIM / "codex_same_ms.jsonl", TRIM / "codex_code_mode.jsonl")
PI = TRIM / "pi.jsonl"  # all three real session ids start 019
MATUGEN = TRIM / "matugen_zh.json"
W80 = {"COLUMNS": "80"}


def _ingest(db: Path, *paths: Path) -> None:
    r = invoke("ingest", "--db", str(db), *map(str, paths))
    assert r.exit_code == 0, r.stderr


def _shorts(db: Path) -> dict[str, str]:
    return {r["id"]: r["short_id"]
            for r in lines(invoke("sessions", "--json", "--db", str(db)).stdout)}


# ------------------------------------------------------------------ use
def test_use_takes_a_short_id_and_an_ambiguous_prefix_is_a_usage_error(
        tmp_path: Path) -> None:
    """``logkb use 019`` with three sessions starting 019 was "not found" (exit 6) with
    the three full ids run together; a prefix several sessions share is a usage error
    (exit 2) naming each by its short id and title, with what to do.  ``use`` answers
    with the short id ``sessions`` shows, and takes it back."""
    db = tmp_path / "kb.duckdb"
    _ingest(db, *CODEX, PI)
    shorts = _shorts(db)
    assert len(shorts) == 3 and all(s.startswith("019") for s in shorts.values())
    r = invoke("use", "019", "--db", str(db), env=W80)
    assert r.exit_code == ExitCode.USAGE, (r.exit_code, r.stderr)
    assert r.stderr.startswith("logkb: error: '019' matches 3 sessions: "), r.stderr
    assert all(s in r.stderr for s in shorts.values()), r.stderr
    assert not any(sid in r.stderr for sid in shorts), r.stderr  # short ids, not 36 columns
    assert "\nhint: give more of the id" in r.stderr, r.stderr
    # the same for every command's --session
    r = invoke("events", "--session", "019", "--db", str(db))
    assert r.exit_code == ExitCode.USAGE, r.stderr
    sid, short = next(iter(shorts.items()))
    r = invoke("use", short, "--db", str(db), env=W80)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.startswith(f"now using {short}  ") and sid not in r.stdout, r.stdout
    r = invoke("use", "--db", str(db), env=W80)
    assert r.stdout.startswith(f"{short}  ") and sid not in r.stdout, r.stdout
    assert json.loads(invoke("use", "--json", "--db", str(db)).stdout) \
        == {"current": sid, "short_id": short, "title": json.loads(invoke(
            "sessions", short, "--json", "--db", str(db)).stdout)["title"]}
    # words of a title two sessions share: the same usage error
    r = invoke("use", "zzz-nothing-like-it", "--db", str(db))
    assert r.exit_code == ExitCode.NOT_FOUND, r.stderr


# ------------------------------------------------------------------ ingest
def test_ingest_summary_cuts_the_title_at_a_word_and_keeps_the_counts(
        tmp_path: Path) -> None:
    """The summary line was cut at 80 columns as one string: the title mid-word
    (``Research Visa card part…``) or mid-escape (``\\x1…``), and the parent's id of a
    subagent's line lost.  The id and the counts stay whole, the title is cut at a word
    with ``…``, never inside an escape."""
    title = ("Research Visa card partnerships \x1b[31m for the fund wise roadmap, "
             "with every partner listed")
    data = json.loads(MATUGEN.read_text())
    data["info"]["title"] = title
    src = tmp_path / "titled.json"
    src.write_text(json.dumps(data))
    db = tmp_path / "kb.duckdb"
    shown = set()
    for width in range(60, 101, 2):  # the cut falls on every part of the title
        r = invoke("ingest", "--force", "--db", str(db), str(src),
                   env={"COLUMNS": str(width)})
        assert r.exit_code == 0, r.stderr
        (line,) = r.stdout.splitlines()
        assert cell_len(line) <= width, (width, line)
        assert line.startswith("ses_01fef0a  4 messages, 4 events, "), line
        assert "\x1b" not in line, line
        if "[export] " not in line:
            continue
        said = line.split("[export] ", 1)[1]
        shown.add(said)
        words = said.removesuffix("…").split(" ")
        visible_words = title.replace("\x1b", "\\x1b").split(" ")
        n = len(words)
        assert words[:-1] == visible_words[:n - 1], (width, line)  # whole words
        # the last whole too, but a first word longer than the room
        assert words[-1] == visible_words[n - 1] or (
            n == 1 and visible_words[0].startswith(words[0])), (width, line)
    assert len(shown) > 3, shown


def test_fit_title_never_cuts_inside_an_escape() -> None:
    from kb.width import cells, fit_title

    for cols in range(2, 30):
        got = fit_title("ab\x1b\x1b\x1b\u202e\u202exyz", cols)
        assert cells(got) <= cols, (cols, got)
        body = got.removesuffix("…")
        assert body == "ab\\x1b\\x1b\\x1b\\u202e\\u202exyz"[:len(body)], got
        assert not body.endswith(("\\", "\\x", "\\x1", "\\u", "\\u2", "\\u20", "\\u202"))


# ------------------------------------------------------------------ why
def test_why_answers_from_one_session_and_says_which(realworld: Path, tmp_path: Path) -> None:
    """``why`` is asked about one session (the current one); its story names the session
    that answered (stdout and ``--json``); with ``--all``, a candidate list names each
    row's session, and the example it gives names the session too (``logkb why 13`` in
    the current session is another session's message 13); an ordinal several sessions
    have an approach at is such a list, not one picked across them."""
    pool = realworld / "pool"
    db = tmp_path / "kb.duckdb"
    _ingest(db, pool / "FundWise__claude-session.jsonl",
            pool / "blockchain-dex-events__claude-session.jsonl")
    shorts = {v: k for k, v in _shorts(db).items()}
    assert set(shorts) == {"d4c1bac", "da254fb"}
    assert invoke("use", "d4c1bac", "--db", str(db)).exit_code == 0
    # a name only the other session knows: not answered from it, but pointed at
    r = invoke("why", "Q3", "--db", str(db), env=W80)
    assert r.exit_code == ExitCode.NOT_FOUND and "found in da254fb" in r.stderr, r.stderr
    r = invoke("why", "pnpm", "--db", str(db), env=W80)
    assert r.exit_code == 0, r.stderr
    assert r.stdout.splitlines()[1].startswith("  session d4c1bac (Research Visa"), r.stdout
    assert all(cell_len(ln) <= 80 for ln in r.stdout.splitlines()), r.stdout
    j = json.loads(invoke("why", "pnpm", "--json", "--db", str(db)).stdout)
    assert j["session"] == {"id": shorts["d4c1bac"], "short_id": "d4c1bac",
                            "title": "Research Visa card partnerships for fund wise roadmap"}
    j = json.loads(invoke("why", "Q5", "--all", "--json", "--db", str(db)).stdout)
    assert j["session"]["short_id"] == "da254fb", j["session"]
    # several approaches of another session: the example names it
    r = invoke("why", "Q3", "--all", "--db", str(db), env=W80)
    assert r.exit_code == 0, r.stderr
    assert "`logkb why 13 --session da254fb`" in r.stderr.replace("\n  ", " "), r.stderr
    # message 30 of both sessions: a list naming each, not a story from either
    r = invoke("why", "30", "--all", "--db", str(db), env=W80)
    assert r.exit_code == 0, r.stderr
    rows = r.stdout.splitlines()
    assert rows[0].split()[:2] == ["session", "ordinal"], r.stdout
    assert {ln.split()[0] for ln in rows[1:]} == {"d4c1bac", "da254fb"}, r.stdout
    assert "`logkb why 30 --session " in r.stderr.replace("\n  ", " "), r.stderr
    j = json.loads(invoke("why", "30", "--all", "--json", "--db", str(db)).stdout)
    assert j["ambiguous"] is True
    assert {m["short_id"] for m in j["matches"]} == {"d4c1bac", "da254fb"}


# ------------------------------------------------------------------ sessions
def test_session_detail_keeps_a_long_source_path_whole(tmp_path: Path) -> None:
    """``sessions SESSION`` wrapped the source path at 80 columns mid-name
    (``…/blockchain-dex-events__claude-session.jso`` / ``nl``): pasted, it named no
    file.  Too long for the line, it has a line of its own, whole."""
    deep = tmp_path / "a-rather-long-folder-of-agent-sessions" / "kept-for-the-demanding-user"
    deep.mkdir(parents=True)
    src = deep / "pi-session-of-the-civ6-website.jsonl"
    shutil.copyfile(PI, src)
    db = tmp_path / "kb.duckdb"
    _ingest(db, src)
    r = invoke("sessions", "019ea80", "--db", str(db), env=W80)
    assert r.exit_code == 0, r.stderr
    said = r.stdout.splitlines()
    assert len(str(src)) + 11 > 80
    at = next(i for i, ln in enumerate(said) if ln.startswith("source:"))
    assert said[at].split() == ["source:", "[pi]"], said
    assert said[at + 1] == f"  {src}", said
    assert all(cell_len(ln) <= 80 for i, ln in enumerate(said) if i != at + 1), said
