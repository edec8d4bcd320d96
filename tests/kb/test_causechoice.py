"""Which text is an episode's cause (kb.graph.causechoice): a user message that only says
"go on" is none, and a user message about another target loses to the root the agent
stated about its own change.  Each table row is a real, trimmed case."""

from __future__ import annotations

import pytest

from kb.graph.causechoice import (
    CONCLUDED,
    GO_ON,
    OTHER_TARGET,
    Concluded,
    GoOn,
    OtherTarget,
    concluded_finding,
    files_named,
    other_target,
    own_root,
    what_user_said,
)
from kb.graph.episodes import Said, Step, stopped_episodes
from kb.graph.text import tokens


@pytest.mark.parametrize("row", GO_ON, ids=lambda r: r.name)
def test_every_go_on_row_reads_its_real_example(row: GoOn) -> None:
    assert row.example and row.source
    assert row.regex.match(row.example), row.name
    assert what_user_said(row.example) == row.rest


@pytest.mark.parametrize("text", [
    "no, use the pooled connection instead",
    "continuous integration is red again",  # a word that starts like the cue
    "proceeding like this wiped the page",
])
def test_a_message_that_says_something_is_kept(text: str) -> None:
    assert what_user_said(text) == text


@pytest.mark.parametrize("row", OTHER_TARGET, ids=lambda r: r.name)
def test_every_other_target_row_finds_the_agents_root(row: OtherTarget) -> None:
    assert row.source and row.said
    files = files_named(" ".join(row.files))
    assert files and other_target(row.user, files), row.name
    said = {("s", 10 + i): [t] for i, t in enumerate(row.said)}
    found = own_root(said, "s", 10, 10 + len(row.said), files, row.user)
    assert found is not None and found.text.startswith(row.root), row.name
    assert found.tier == 3


def test_a_user_message_about_the_same_file_keeps_its_words() -> None:
    row = OTHER_TARGET[0]
    files = files_named(" ".join(row.files))
    user = "card.php still renders nothing inside the card"
    said = {("s", 10 + i): [t] for i, t in enumerate(row.said)}
    assert not other_target(user, files)
    assert own_root(said, "s", 10, 10 + len(row.said), files, user) is None


def test_a_user_message_naming_no_file_keeps_its_words() -> None:
    row = OTHER_TARGET[0]
    files = files_named(" ".join(row.files))
    said = {("s", 10 + i): [t] for i, t in enumerate(row.said)}
    assert own_root(said, "s", 10, 10 + len(row.said), files, "that is not what I asked") is None


def test_a_guess_about_the_own_file_is_no_root() -> None:
    files = frozenset({"card.php"})
    said = {("s", 10): ["The issue might be that the card body is never appended."]}
    assert own_root(said, "s", 10, 11, files, "now fix index.php colours") is None


def _webfetch(o: int) -> Step:
    return Step(session_id="s", ordinal=o, key="webfetch spacy.io/api", change=False,
                check=True, failed=False, signature=None, tool="webfetch")


def test_a_stopped_turn_answered_with_go_on_has_no_user_cause() -> None:
    # conversacion-act1-pln (Claude Code, pool) lines 299-305: two WebFetch calls, the
    # user stops the turn, then writes "claude continua"
    said = [Said("s", 98, "user", "Claude contame sobre los tipos de NER que existen en spaCy", None),
            Said("s", 103, "user", "[Request interrupted by user]", signal="stopped"),
            Said("s", 104, "user", "claude continua", None)]
    found = stopped_episodes([_webfetch(99), _webfetch(101)], said)
    assert len(found) == 1
    assert "continua" not in found[0].cause_text
    assert found[0].cause_text == "the user stopped the turn (`webfetch spacy.io/api`)"
    assert found[0].why is None


def test_a_stopped_turn_keeps_what_the_user_said_after_go_on() -> None:
    said = [Said("s", 98, "user", "build the site", None),
            Said("s", 103, "user", "[Request interrupted by user]", signal="stopped"),
            Said("s", 104, "user", "continue the site doesnt work", None)]
    found = stopped_episodes([_webfetch(99), _webfetch(101)], said)
    assert found[0].cause_text == "the user stopped the turn: the site doesnt work"


def test_no_cause_opens_with_a_narration_lead_in() -> None:
    # k1.lib-bootstrap (opencode, shared): causes that opened with "Ah, the issue is …"
    # and "I see the issue - `VARIANT_OUTLINE_PRIMARY` doesn't exist …"
    from kb.graph.extract import Approach, Extractor
    from kb.graph.text import Cause

    ex = Extractor("s")
    shared = Cause(key="php-use", label="Ah, the issue is that in PHP, if you have `use k1\\lib"
                   "\\html\\bootstrap\\badge;` and then you try to use the class `badge`",
                   kind="stated")
    plain_cause = Cause(key="outline", label="`VARIANT_OUTLINE_PRIMARY` doesn't exist as a "
                        "constant because outline is handled by the `$outline` parameter",
                        kind="stated")
    for i, c in enumerate([shared, shared, plain_cause]):
        a = Approach(id=f"a{i}", name=f"a{i}", session_id="s", first=i)
        a.cause = c
        ex.approaches.append(a)
    ex._unnarrate()
    a0, a1, a2 = ex.approaches
    assert a0.cause is not None and a0.cause.label.startswith("The issue is that in PHP")
    assert a0.cause is a1.cause and a0.cause.key == "php-use"  # still one cause node
    assert a2.cause is plain_cause


def test_a_bare_type_signature_is_labelled_by_its_message() -> None:
    # uicomponents-wordpress (opencode, shared) #82: the signature names only the type;
    # the cause reads the message too, and keeps the signature's key (its group)
    from kb.graph.extract import _cause

    line = ("MethodInvocationException: Exception calling \"Substring\" with \"2\" "
            "argument(s): \"Index and length must refer to a location within the string.\"")
    c = _cause(line, "MethodInvocationException")
    assert (c.key, c.label, c.kind) == ("error:methodinvocationexception", line, "error")
    # a signature with its message is its own label, as before
    c = _cause("TypeError: fetch failed", "TypeError: fetch failed")
    assert c.label == "TypeError: fetch failed" and c.kind == "error"


@pytest.mark.parametrize("row", CONCLUDED, ids=lambda r: r.name)
def test_every_concluded_row_takes_the_finding_the_turn_ends_on(row: Concluded) -> None:
    assert row.source
    ended = row.said[0][0] - 1
    got = concluded_finding(row.said, ended, [row.said[-1][0] + 1], tokens(row.subject))
    assert got is not None and got.startswith(row.concluded), got
    # the user spoke before the guessing went on: the turn ended, the first finding stands
    assert concluded_finding(row.said, ended, [row.said[0][0] + 1],
                             tokens(row.subject)) is None


def test_a_finding_no_guess_follows_stands() -> None:
    said = [(581, "found", "The issue was lines 123-126 were forcing a blue background on "
             "active nav links, which looked wrong for underline style.")]
    assert concluded_finding(said, 580, [582], tokens("nav underline active")) is None


def test_guessing_that_ends_on_no_finding_keeps_the_first() -> None:
    row = CONCLUDED[0]
    said = [x for x in row.said if x[0] <= 526]  # the last word is a guess
    assert concluded_finding(said, said[0][0] - 1, [531], tokens(row.subject)) is None


def test_a_concluding_finding_about_nothing_of_the_episode_is_no_cause() -> None:
    row = CONCLUDED[0]
    said = [*row.said[:-1], (530, "found", "The issue was the weather over the harbour.")]
    assert concluded_finding(said, said[0][0] - 1, [531], tokens(row.subject)) is None
