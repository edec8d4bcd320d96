"""The sentences that take back what an agent said (logparse.revision)."""

from __future__ import annotations

import duckdb
import pytest

from logparse.revision import (
    QUOTES_SQL,
    REREADS,
    REVERSALS,
    REVISES_SQL,
    Cue,
    names,
    quantities,
    quoted,
    reason,
    reread,
    reversals,
)

# pool civ6.ch__session.jsonl:53 (pi thinking), trimmed to its two paragraphs
CIV6 = (
    "I'll need to create the route files for the profile page since they don't exist yet, "
    "then build out the server-side logic to fetch all the necessary data. For the rating "
    "chart, I'm realizing the database only stores current ratings without historical "
    "data, so I'll skip that visualization for now unless I can derive something useful "
    "from the existing schema.\n\n"
    "Actually, I can reconstruct rating history from the game_players table since each "
    "game records pre_rating and post_rating values. So I'll be able to show how a "
    "player's rating changed over time by pulling those records in chronological order.")


def _re2(pattern: str, text: str) -> bool:
    """The store's filter, run where the store runs it (DuckDB's RE2)."""
    with duckdb.connect() as conn:
        row = conn.execute("SELECT regexp_matches(?, ?)", [text, pattern]).fetchone()
    assert row is not None
    return bool(row[0])


@pytest.mark.parametrize("cue", REVERSALS + REREADS, ids=lambda c: c.name)
def test_every_row_reads_its_real_example(cue: Cue) -> None:
    assert cue.source and cue.lang, "a row needs the real case it was taken from"
    assert cue.regex.search(cue.example), cue.source
    # the store loads the block the row reads (its looser RE2 form finds it too)
    assert _re2(REVISES_SQL, cue.example), cue.source


def test_a_limiting_belief_turned_round_in_the_same_block() -> None:
    (r,) = reversals(CIV6)
    assert r.claim.startswith("For the rating chart") and "only stores" in r.claim
    assert r.revision.startswith("Actually, I can reconstruct rating history")
    assert {"game_players", "pre_rating", "post_rating"} <= r.names
    assert {"ratin", "histo"} <= r.subject
    # the cause is the revision's reason, not the revision's narration
    assert reason(r.revision) == "each game records pre_rating and post_rating values"


def test_the_revision_must_come_after_the_claim() -> None:
    claim, revision = CIV6.split("\n\n")
    assert reversals(f"{revision}\n\n{claim}") == ()


def test_thinking_out_loud_is_no_reversal() -> None:
    # real reasoning (labelled k1 #157, uicomponents-wordpress #236): a plan followed by
    # "Actually, I can't …", and "Actually, I can …" after a plan, not a belief
    assert reversals("Let me check if the base library (k1lib.html) was changed or not. "
                     "Actually, I can't check that directly because it's a different repo. "
                     "But the demo is using classes like `k1lib\\html\\button`.") == ()
    assert reversals("Actually, let me try to use the WordPress REST API without "
                     "authentication - some endpoints might be public. Actually, I can "
                     "write a .php file to the WordPress installation.") == ()


def test_a_revision_that_names_nothing_concrete_is_not_read() -> None:
    claim = CIV6.split("\n\n")[0]
    assert reversals(f"{claim}\n\nActually, I can reconstruct rating history from the "
                     "games, since each game records the ratings before and after.") == ()


def test_a_claim_that_limits_nothing_is_not_turned_round() -> None:
    assert reversals("The database stores current ratings and historical data for every "
                     "player.\n\nActually, I can reconstruct rating history from the "
                     "game_players table since each game records pre_rating values.") == ()


def test_a_quantity_read_again_with_the_reason() -> None:
    # labelled uicomponents-wordpress #388 then #391 (opencode reasoning)
    claim = ("Only 391 bytes length, which is way too small. This means the page is "
             "essentially empty.")
    assert quantities(claim) == {"391"}
    assert quoted(claim) == (("391", "Only 391 bytes length, which is way too small."),)
    assert _re2(QUOTES_SQL, claim)
    later = ("The page IS rendering properly now! The output had 391 length earlier "
             "because the grep/stats were counting something differently.")
    hit = reread(later, "391")
    assert hit is not None and hit[0].name == "earlier-because"
    assert reason(hit[1]) == "the grep/stats were counting something differently"
    # the same number as part of another (3910, 391.5) is not the value read again
    assert reread(later.replace("391 length", "3910 length"), "391") is None
    # the value said again with no reason (#390 "Wait, the total was 391 length.")
    assert reread("Wait, the total was 391 length. That means the body is empty.",
                  "391") is None


def test_names_are_concrete() -> None:
    assert names("the `game_players` table and post_rating, not the games") == {
        "game_players", "post_rating"}
    assert names("I can reconstruct rating history from the games") == frozenset()
