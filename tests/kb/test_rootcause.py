"""Causes from evidence: a root the agent states later wins over the first error
(kb.graph.rootcause), and an episode's own explanation of its error labels the cause."""

from __future__ import annotations

import pytest

from kb.graph.extract import _cause
from kb.graph.rootcause import NARRATION, ROOT_STATEMENTS, later_root, root_tier, unnarrated
from kb.graph.text import tokens


@pytest.mark.parametrize("rule", ROOT_STATEMENTS, ids=lambda r: r.name)
def test_every_root_rule_reads_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    assert rule.example and rule.source, f"{rule.name}: a rule needs a real example"
    assert rule.regex.search(rule.example), rule.name
    found = root_tier(rule.example)
    assert found is not None and found[0] >= rule.tier


MINT = ROOT_STATEMENTS[0].example
GUESS = ("The most likely causes are either the program id is not deployed on the selected "
         "cluster, or the configured USDC mint is not a Token-2022 mint.")
SUBJECT = tokens("vault initialization failed Simulation failed initialize_vault mint")


def test_the_root_stated_after_the_agent_looked_again_wins() -> None:
    # soulpass (Codex, shared) #296-#302: the user says the vault still fails to
    # simulate; the agent guesses (#297), queries the accounts (#299, #301), then says
    # the mint is the problem (#302)
    said = {("s", 297): [GUESS], ("s", 302): [MINT]}
    later = later_root(said, "s", 296, SUBJECT, user_ordinals=[296, 320],
                       step_ordinals=[299, 301, 305])
    assert later is not None and later.ordinal == 302 and later.tier == 3
    assert "legacy SPL Token" in later.text


def test_a_guess_is_no_root() -> None:
    assert root_tier(GUESS) is None
    assert later_root({("s", 297): [GUESS]}, "s", 296, SUBJECT, [296], [299]) is None


def test_the_root_must_come_in_the_same_turn_after_a_look() -> None:
    said = {("s", 302): [MINT]}
    # the user spoke again before it: another turn, another question
    assert later_root(said, "s", 296, SUBJECT, user_ordinals=[296, 300],
                      step_ordinals=[299, 301]) is None
    # nothing was run since the end: the agent did not look again
    assert later_root(said, "s", 296, SUBJECT, user_ordinals=[296],
                      step_ordinals=[290]) is None
    # about something else than the episode
    assert later_root(said, "s", 296, tokens("docker compose port"), [296], [299]) is None


def test_an_episode_that_explains_its_error_labels_the_cause_with_it() -> None:
    # soulpass #299: a devnet query in the sandbox, then the same query escalated
    sig = ("Error: failed to get info about account CQW3TnN4X6iG2potguVv2hCKfk4f9tf8PMG7dTV6e24y: "
           "TypeError: fetch failed")
    text = f"the sandbox has no network access ({sig})"
    assert _cause(text, sig).label == text
    # a cause text that is the error itself stays the error
    assert _cause(sig, sig).label == sig


@pytest.mark.parametrize("row", NARRATION, ids=lambda r: r.name)
def test_every_narration_row_reads_its_real_example(row) -> None:  # type: ignore[no-untyped-def]
    assert row.example and row.source, f"{row.name}: a row needs a real example"
    assert row.regex.match(row.example), row.name


def test_a_cause_is_never_a_narration_heading() -> None:
    # k1 (opencode, shared) #419, #484, #579: findings that open with a heading
    assert unnarrated("I see the issue.") == ""
    assert unnarrated("I see the issue! Look at lines 123-126: ```css") == ""
    assert unnarrated(NARRATION[2].example) == ""  # a pointer at code, no statement
    assert unnarrated("I see the issue - if you don't call set_header(), the body is never "
                      "appended to the card!").startswith("if you don't call set_header()")
    # a text without a lead-in is kept as it is
    assert unnarrated("PHP Fatal error: Class \"alert\" not found") == \
        "PHP Fatal error: Class \"alert\" not found"


def test_a_hedged_root_is_a_guess_wherever_the_hedge_stands() -> None:
    # uicomponents-wordpress (opencode, shared) #142, after the user's report at #132
    assert root_tier("Actually, you know what - maybe the issue is about the Dia Text inline "
                     "block inside the paragraph containing the text cycle.") is None
    # will-it-rain (Claude Code, shared) #46: an impression of the symptom, not its root
    assert root_tier("Vitest seems to have no output at all.") is None
