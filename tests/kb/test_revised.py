"""A belief the agent revises in its own reasoning, or a value it read wrong
(kb.graph.revised): the real cases, and what each structural check keeps out."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from kb.graph.episodes import Said, Step, episodes
from kb.graph.revised import ACTED, SEEN, SPAN, revised_episodes
from tests.logparse.test_revision import CIV6


def _run(o: int, command: str) -> Step:
    return Step("s", o, command.split()[0], False, True, False, None, command=command,
                tool="bash")


@dataclass(frozen=True)
class Case:
    name: str
    calls: tuple[tuple[int, str], ...]
    said: tuple[tuple[int, str, str], ...]
    """``(ordinal, signal, text)`` of the blocks the store loads."""
    found: tuple[int, int] | None
    """``(first, ended)`` of the dead end read, ``None`` when nothing is."""
    cause: str
    source: str


# pool civ6.ch__session.jsonl, logkb ordinals (pi): #18 `\d game_players`, #22 the
# thinking and the query of pre_rating_overall it led to
CIV6_CALLS = ((16, "ls /home/selim/Documents/Code/civ6.ch/internal/db/migrations/"),
              (18, 'psql civ6 -c "\\d players" && psql civ6 -c "\\d game_players"'),
              (22, "psql civ6 -c \"SELECT gp.player_id, g.date, gp.pre_rating_overall, "
                   "gp.post_rating_overall FROM game_players gp JOIN games g\""))
# labelled uicomponents__session-wordpress.json #387-#391 (opencode reasoning)
WP_CALLS = ((387, "$r = curl -sL 'http://localhost:8882/' Write-Host \"Length: $($r.Length)\""),
            (388, "$r = curl -sL 'http://localhost:8882/' $r[0..500] -join ''"),
            (390, "curl -sL 'http://localhost:8882/' -o page-output.html"),
            (391, "$r = curl -sL -b cookies.txt 'http://localhost:8882/wp-admin/post.php'"))
WP_SAID = ((388, "quotes", "Only 391 bytes length, which is way too small."),
           (390, "revises", "Wait, the total was 391 length. That means the body is "
                            "essentially empty."),
           (391, "revises", "The page IS rendering properly now! The output had 391 length "
                            "earlier because the grep/stats were counting something "
                            "differently."))

CASES = (
    Case("a belief turned round, grounded and acted on", CIV6_CALLS,
         ((22, "revises", CIV6),), (22, 22), "pre_rating",
         "pool civ6.ch__session.jsonl:53"),
    Case("what it names was never touched before: thinking out loud",
         tuple(c for c in CIV6_CALLS if c[0] != 18), ((22, "revises", CIV6),), None, "",
         "pool civ6.ch__session.jsonl:53 without #18"),
    Case("nothing was done on the revised belief: thinking out loud",
         tuple(c for c in CIV6_CALLS if c[0] != 22), ((22, "revises", CIV6),), None, "",
         "pool civ6.ch__session.jsonl:53 without #22"),
    Case("a quantity read again with the reason it was read wrong", WP_CALLS, WP_SAID,
         (388, 391), "counting something differently",
         "labelled/uicomponents__session-wordpress.json #388, #391"),
    Case("nothing looked at again between the reading and the reason",
         tuple(c for c in WP_CALLS if c[0] <= 388 - 1), WP_SAID, None, "",
         "labelled/uicomponents__session-wordpress.json without #388-#391's calls"),
    Case("the quantity was not read off a result (no call just before)",
         tuple(c for c in WP_CALLS if c[0] > 388), WP_SAID, None, "",
         "labelled/uicomponents__session-wordpress.json without #387-#388's calls"),
)


def _case(c: Case) -> tuple[list[Step], list[Said]]:
    steps = [_run(o, cmd) for o, cmd in c.calls]
    said = [Said("s", o, "assistant", t, sig) for o, sig, t in c.said]
    return steps, said


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_every_case_reads_as_it_says(case: Case) -> None:
    assert case.source
    steps, said = _case(case)
    got = revised_episodes(steps, said)
    if case.found is None:
        assert got == []
        return
    (f,) = got
    assert (f.how, f.first, f.ended) == ("revised", *case.found)
    assert case.cause in f.cause_text and case.cause in (f.why or "")
    # evidence: the claim's ordinal and the revision's
    assert f.ordinals() == set(case.found)
    # weighed with the other rules, it is kept (it hides nothing, nothing hides it here)
    assert any(e.how == "revised" for e in episodes(steps, said, weak=got))


def test_the_windows_bound_the_calls() -> None:
    steps, said = _case(CASES[0])
    # the call that showed game_players long before: not in front of the agent any more
    far = [s._replace(ordinal=22 - SEEN - 1) if s.ordinal == 18 else s for s in steps]
    assert revised_episodes(far, said) == []
    # the query long after: not done on the revised belief
    late = [s._replace(ordinal=22 + ACTED + 1) if s.ordinal == 22 else s for s in steps]
    assert revised_episodes(late, said) == []
    # a read of the table counts as having seen it (lookups)
    no_run = [s for s in steps if s.ordinal != 18]
    assert revised_episodes(no_run, said, [("s", 18, "\\d game_players")])


def test_a_value_read_again_far_later_is_another_reading() -> None:
    steps, said = _case(CASES[3])
    # (#390 says the value again after a call too: the window runs from the last reading)
    moved = [x._replace(ordinal=390 + SPAN + 1) if x.ordinal == 391 else x for x in said]
    steps = steps + [_run(390 + SPAN + 1, "curl -sL http://localhost:8882/")]
    assert revised_episodes(steps, moved) == []


def test_other_sessions_do_not_mix() -> None:
    steps, said = _case(CASES[0])
    other = [s._replace(session_id="t") for s in steps if s.ordinal == 18]
    steps = [s for s in steps if s.ordinal != 18] + other
    assert revised_episodes(steps, said) == []
