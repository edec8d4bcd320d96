"""The reply cue tables (:mod:`kb.graph.replycues`): every row fires on its own example, in
Python and in DuckDB's RE2 (the store selects prose with the joined rows), and each rule
fires on a second real line from another session than the one its rows were written on."""

from __future__ import annotations

import duckdb
import pytest

from kb.graph.episodes import Step, damage_episodes
from kb.graph.extract import (
    CANNOT,
    FOUND,
    HYPOTHESIS,
    JUDGED_FAILED,
    _guess_sentences,
    _judged_failed,
)
from kb.graph.replycues import (
    CANNOT_CUES,
    CANNOT_NOT_AFTER,
    DESTROYED_CUES,
    FOUND_CUES,
    FOUND_GUARDED,
    FOUND_NOT_AFTER,
    GATES,
    HYPOTHESIS_CUES,
    JUDGED_CUES,
    first_match,
)
from logparse.structural import Cue

TABLES = {"hypothesis": HYPOTHESIS_CUES, "found": FOUND_CUES, "cannot": CANNOT_CUES,
          "judged": JUDGED_CUES, "destroyed": DESTROYED_CUES}
SQL = {"hypothesis": HYPOTHESIS, "found": FOUND, "cannot": CANNOT, "judged": JUDGED_FAILED}
"""The tables the store's SQL reads, as it reads them (joined, with ``(?i)``)."""
ROWS = [(t, c) for t, cues in TABLES.items() for c in cues]


@pytest.fixture(scope="module")
def con() -> duckdb.DuckDBPyConnection:
    return duckdb.connect()


@pytest.mark.parametrize("table,cue", ROWS, ids=[f"{t}:{c.name}" for t, c in ROWS])
def test_every_row_fires_on_its_example(table: str, cue: Cue,
                                        con: duckdb.DuckDBPyConnection) -> None:
    assert cue.pattern.search(cue.example), (table, cue.name)
    assert cue.source
    if table in SQL:
        # the store's SQL must select the same prose the Python rule reads
        for pattern in (cue.pattern.pattern, SQL[table]):
            got = con.execute("SELECT regexp_matches(?, ?)",
                              [cue.example, "(?i)" + pattern]).fetchone()
            assert got is not None and got[0], (table, cue.name, "RE2")


GATED = [c for c in (*FOUND_CUES, *CANNOT_CUES) if c.name in GATES]


def test_gates_name_rows() -> None:
    names = {c.name for cues in TABLES.values() for c in cues}
    assert set(GATES) <= names
    assert {c.name for c in (*FOUND_CUES, *CANNOT_CUES)} <= set(GATES)


@pytest.mark.parametrize("cue", GATED, ids=[c.name for c in GATED])
def test_a_gate_holds_what_its_row_matches(cue: Cue) -> None:
    """The gate's words are in the match itself (not merely around it), and a text
    without them is not read: the same answer as the row's regex alone."""
    m = cue.pattern.search(cue.example)
    assert m is not None
    assert any(k in m.group(0).lower() for k in GATES[cue.name]), cue.name
    cues = (cue,)
    assert first_match(cues, cue.example) is not None
    # the words gone (each replaced by a letter-free placeholder): nothing to find
    text = cue.example.lower()
    for k in GATES[cue.name]:
        text = text.replace(k, "#")
    assert cue.pattern.search(text) is None, cue.name
    assert first_match(cues, text) is None
    # a letter re.IGNORECASE folds differently turns the gate off, not the row
    assert first_match(cues, cue.example + " \u017f") is not None


def test_every_row_rests_on_a_real_line() -> None:
    """A language gets a row when a real session says the idea in it (cues14 dropped the
    Spanish, Portuguese and Chinese rows written with no real line); English has one in
    every table (``judged``: kb.graph.extract.JUDGED_FAILED, beside the rows)."""
    for table, cues in TABLES.items():
        langs = {c.name.split("-", 1)[0] for c in cues}
        if table == "judged":
            langs.add("en")
        assert "en" in langs, table
        for c in cues:
            assert not c.source.startswith("(no real line"), (table, c.name)


# ----------------------------------------------------------------- guesses and findings
def kinds(text: str) -> list[str]:
    return [k for _, k in _guess_sentences(text)]


def test_guesses_and_findings_of_another_session_than_k1() -> None:
    # speakfree__session.jsonl:10 (Claude Code, shared): the guess the dropped rule reads
    assert kinds("There are two whisper-server processes running (84168 and 84237) — "
                 "that's likely the issue. Let me kill both and start fresh with one.") \
        == ["hypothesis"]
    # civ6.ch__session.jsonl #28 (pi, tune): a cause stated
    assert kinds("Wait, the issue is that `{@const maxTotal ...}` is inside `{#if "
                 "data.victoryStats.length > 0}` but") == ["found"]
    # conversacion-act1-pln__session.jsonl (Claude Code, tune): Spanish, both
    assert kinds("Eso probablemente está rompiendo la tokenización de spaCy.") \
        == ["hypothesis"]
    assert "found" in kinds("El archivo muy probablemente **es UTF-8**, no latin-1. "
                            "Lo que pasa es:\n\n- Con `encoding='utf-8'` (default) falla")


def test_a_finding_that_is_only_a_guess_or_news_is_no_finding() -> None:
    assert first_match(FOUND_CUES, "The issue is likely the cache.", FOUND_NOT_AFTER,
                       FOUND_GUARDED) is None
    assert first_match(FOUND_CUES, "The problem is now fixed.", FOUND_NOT_AFTER,
                       FOUND_GUARDED) is None
    # "I see the issue now" states it (k1 #116)
    assert first_match(FOUND_CUES, "I see the issue now. Looking at line 253",
                       FOUND_NOT_AFTER, FOUND_GUARDED) is not None


# ----------------------------------------------------------------- claims of inability
def claim(text: str) -> str | None:
    m = first_match(CANNOT_CUES, text, CANNOT_NOT_AFTER)
    return m.group() if m else None


def test_a_claim_of_another_session_than_uicomponents() -> None:
    # uicomponents__session-wordpress.json #232 (opencode, shared): another export, other work
    assert claim("But first, I can't create pages via REST API without authentication. "
                 "Let me check if I can query the site.") == "I can't"
    # privacy-x402__codex-session.jsonl #13 (Codex, tune): "can't determine" is a claim too
    assert claim("Since I can't determine the desired language and project goals from the "
                 "repository, I need to ask") == "I can't"


def test_a_claim_about_perceiving_is_no_claim_a_run_refutes() -> None:
    # k1.lib-bootstrap__session-export.json #205, #235 (opencode, shared)
    assert claim("I can't read PDFs. Please describe what issues you're seeing") is None
    assert claim("But I can't see the user's screen.") is None
    assert claim("No puedo ver la pantalla del usuario.") is None


# ----------------------------------------------------------------- a run that damaged the work
def test_a_run_read_as_damaging_in_another_session_than_the_wordpress_one() -> None:
    # k1.lib-bootstrap__session-export.json #595 (opencode, shared): the edit's result read
    assert first_match(DESTROYED_CUES, "The file got corrupted with a partial edit. Let me "
                       "rewrite it completely:") is not None
    # uicomponents__session-wordpress.json #72: the same idea, other words than #85's
    assert first_match(DESTROYED_CUES, "The post content got corrupted. Let me restore it "
                       "with the corrected content using file input:") is not None
    assert first_match(DESTROYED_CUES, "I deleted the old file as planned.") is None


def test_rows_written_with_no_real_line_are_gone() -> None:
    """The Spanish, Portuguese and Chinese "did not work" and "damaged" rows had written
    examples only; no tune or shared session says these ideas in those languages, so
    they were dropped (cues14): their lines read as nothing now."""
    for text in ("Los reemplazos no funcionaron: el archivo sigue igual.",
                 "A substituição não funcionou: o conteúdo continua vazio.",
                 "替换没有生效，内容还是空的。"):
        assert not _judged_failed(text), text
    steps = [Step("s", 10, "write fix.php", True, False, False, None, target="fix.php"),
             Step("s", 11, "php fix.php", False, True, False, None, command="php fix.php",
                  judged="O conteúdo foi corrompido: a regex removeu demais.")]
    assert damage_episodes(steps) == []


def test_none_of_them_worked_and_way_too_short_read_the_run_as_failed() -> None:
    # uicomponents__session-wordpress.json (opencode, shared): a loop of logins exited 0
    # (#234), the reply (#235) reads it; a read back of the post (#80, #85, #387)
    for text in ("None of the common passwords worked.",
                 "The content length is only 356 chars - that's way too short.",
                 "That seems wrong.", "Only 391 bytes length, which is way too small."):
        assert _judged_failed(text), text
        # the store's SQL selects the same prose (RE2: its \w is ASCII only)
        got = duckdb.connect().execute("SELECT regexp_matches(?, ?)",
                                       [text, "(?i)" + JUDGED_FAILED]).fetchone()
        assert got is not None and got[0], text
    # what reads as fine stays fine: a run whose result none of this judges
    for text in ("None of the tests failed.", "The summary is short and clear.",
                 "That seems right.", "Neither file changed, as expected."):
        assert not _judged_failed(text), text
