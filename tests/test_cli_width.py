"""Every table fits the terminal: COLUMNS=80 and COLUMNS=200 (piped output: $COLUMNS,
else 160).  Cells are cut with an ellipsis; only prose wraps."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from rich.cells import cell_len

from .cli_kb import CURIOUS, FIXTURE, invoke, several_sessions

COMMANDS = [
    ("sessions",),
    ("events", "--session", FIXTURE, "--from", "5210", "--to", "5228"),
    ("events", "--session", CURIOUS),
    ("show", "5216", "--session", FIXTURE),
    ("search", "deep_ep", "-n", "20"),
    ("deadends", "--session", FIXTURE),
    ("deadends", "--all"),
    ("untested", "--session", FIXTURE),  # open and answered questions alike
    ("why", "DeepEP", "--session", FIXTURE),
    ("why", "allreduce", "--session", FIXTURE),
    ("timeline", "--session", FIXTURE),
    ("replay", "--session", FIXTURE, "--from", "5214"),
]


@pytest.fixture(scope="module")
def db(blackwell_db: Path, realworld: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return several_sessions(blackwell_db, realworld,
                            tmp_path_factory.mktemp("width") / "kb.duckdb")


@pytest.mark.parametrize("columns", [80, 200])
@pytest.mark.parametrize("args", COMMANDS, ids=lambda a: " ".join(a[:2]))
def test_every_line_fits(db: Path, args: tuple[str, ...], columns: int) -> None:
    r = invoke(*args, "--db", str(db), env={"COLUMNS": str(columns)})
    assert r.exit_code == 0, r.stderr
    assert r.stdout.strip(), args
    too_long = [ln for ln in r.stdout.splitlines() if cell_len(ln) > columns]
    assert not too_long, too_long[:3]


def test_piped_without_columns_is_160(db: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    r = invoke("events", "--session", CURIOUS, "--db", str(db))
    widths = [cell_len(ln) for ln in r.stdout.splitlines()]
    assert max(widths) <= 160 and max(widths) > 100  # real sessions have long commands


def test_sessions_does_not_wrap_titles_one_word_a_line(db: Path) -> None:
    r = invoke("sessions", "--db", str(db), env={"COLUMNS": "80"})
    rows = r.stdout.splitlines()
    # a header and one line per session (3 top-level + 1 subagent), nothing wrapped
    assert len(rows) == 5, rows
    campaign = next(ln for ln in rows if FIXTURE[:11] in ln)
    assert "We have 8x RTX" in campaign and "…" in campaign


def test_wide_terminal_shows_more_columns(db: Path) -> None:
    narrow = invoke("sessions", "--db", str(db), env={"COLUMNS": "80"}).stdout
    wide = invoke("sessions", "--db", str(db), env={"COLUMNS": "200"}).stdout
    assert "form" not in narrow.splitlines()[0] and "form" in wide.splitlines()[0]
    assert "jsonl" in wide


def test_events_lines_keep_the_ordinal_and_cut_the_command(db: Path) -> None:
    r = invoke("events", "--session", FIXTURE, "--from", "5216", "--to", "5216", "--kind",
               "command", "--db", str(db), env={"COLUMNS": "80"})
    (line,) = r.stdout.splitlines()
    assert line.lstrip().startswith("5216") and line.endswith("…")
    assert cell_len(line) == 80


def test_why_wraps_prose_under_its_indent(db: Path) -> None:
    r = invoke("why", "DeepEP", "--session", FIXTURE, "--db", str(db),
               env={"COLUMNS": "80"})
    text = r.stdout
    assert "pivot at 5214" in text
    # the session that answered is named by its short id and the head of its title (a
    # first prompt, cut with …: ux15); the story's prose after it is not cut
    session, text = text.split("\n", 2)[1], text.split("\n", 2)[0] + "\n" + \
        text.split("\n", 2)[2]
    assert session.startswith("  session ses_e88a22c ("), session
    # the subagent's session by its short id, as `sessions` names it (ux15)
    sub = json.loads(invoke("why", "DeepEP", "--session", FIXTURE, "--json", "--db",
                            str(db)).stdout)["research"][0]["session_id"]
    assert len(sub) > 20 and sub not in text and f"subagent session {sub[:11]}" in text
    # the pivot quote continues on the next lines, indented, nothing cut
    assert "Stepping back from the" in text and "…" not in text.split("researched")[0][:-200]
