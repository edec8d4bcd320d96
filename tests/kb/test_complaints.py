"""One user report, several complaints (kb.graph.complaints): a dead end per complaint."""

from __future__ import annotations

import pytest

from kb.graph.complaints import SPLITS, by_complaint, complaints
from kb.graph.episodes import Said, Step, episodes, refuted_episodes
from kb.graph.text import tokens


@pytest.mark.parametrize("rule", SPLITS, ids=lambda r: r.name)
def test_every_split_rule_cuts_its_real_example(rule) -> None:  # type: ignore[no-untyped-def]
    text, parts = rule.example
    assert rule.source and text
    assert len([p for p in rule.pattern.split(text) if p.strip()]) == parts, rule.name


REPORT = SPLITS[-1].example[0]
"""uicomponents #192: titles not centred, the buttons, the background still overflowing."""


def _edit(o: int, target: str, wrote: str, took: str = "") -> Step:
    return Step("s", o, f"edit {target}", True, False, False, None, target=target,
                wrote=frozenset(wrote.split()), took=frozenset(took.split()))


# uicomponents #166-#192, trimmed: the turn after «aurora goes till the end of home page
# and buttons also dont work …» changed the hero wrapper, rewrote the landing page, gave
# the section titles a pill, and recoloured the footer
TURN = [_edit(168, "src/App.tsx", 'className="relative h-dvh overflow-hidden">',
              'className="relative h-dvh">'),
        _edit(171, "ui/starfall-portfolio-landing.tsx",
              "<h1 className={title}> <Button onClick={ctaButtons.primary.onClick}> bg-white/60"),
        _edit(174, "src/App.tsx", 'className="inline-block rounded-full px-4 py-1.5 bg-gradient"'),
        _edit(177, "ui/footer-column.tsx", 'className="bg-[#f5f7fa] dark:bg-[#171716]"'),
        _edit(181, "ui/footer-column.tsx", "text-[#111] dark:text-[#f6f3ec]")]


def test_complaints_of_one_report() -> None:
    assert complaints(REPORT) == [
        "section titles are good but keep all of them centred, now some are not",
        "the buttons still dont show ui for those categoires", "arent clickable",
        "bg still overflows limit it on homepage till the navbar"]
    assert complaints("the build still fails") == ["the build still fails"]


def test_each_complaint_takes_the_change_only_it_names() -> None:
    groups = by_complaint(REPORT, [(w.ordinal, frozenset().union(
        tokens(w.target), *(tokens(x) for x in w.wrote | w.took))) for w in TURN])
    # "overflows" names the one edit that wrote overflow-hidden; the landing-page rewrite
    # wrote both a title and buttons: two complaints name it, so it stays with the rest
    assert groups == [("bg still overflows limit it on homepage till the navbar", [168])]


def test_a_report_of_one_complaint_is_one_dead_end() -> None:
    assert by_complaint("the background still overflows", [(1, frozenset({"overflow"})),
                                                           (2, frozenset({"footer"}))]) == []
    # complaints that name nothing the turn changed do not cut it
    assert by_complaint("it is ugly. and slow", [(1, frozenset({"overflow"})),
                                                 (2, frozenset({"footer"}))]) == []


def test_a_refuted_turn_gives_a_dead_end_per_complaint() -> None:
    said = [Said("s", 166, "user", "what did u do. now its the same as before aurora goes "
                 "till the end of home page and buttons also dont work.", "same as before"),
            Said("s", 192, "user", REPORT, "still dont show")]
    found = refuted_episodes(TURN, said)
    assert sorted(sorted(f.ordinals()) for f in found) == [[168, 192],
                                                           [171, 174, 177, 181, 192]]
    piece = next(f for f in found if f.first == 168)
    assert piece.how == "refuted" and "overflows" in piece.cause_text
    # both survive the weighing of every episode
    assert len([f for f in episodes(TURN, said) if f.how == "refuted"]) == 2


def test_a_report_of_one_complaint_keeps_one_dead_end() -> None:
    said = [Said("s", 166, "user", "limit the aurora bg to the hero", None),
            Said("s", 192, "user", "bg still overflows the navbar", "still")]
    (f,) = refuted_episodes(TURN, said)
    assert f.ordinals() == {168, 171, 174, 177, 181, 192}


def test_each_piece_ends_with_its_own_complaint() -> None:
    # what the agent says later is read against the piece's own complaint, not the others'
    said = [Said("s", 166, "user", "what did u do. now its the same as before aurora goes "
                 "till the end of home page and buttons also dont work.", "same as before"),
            Said("s", 192, "user", REPORT, "still dont show")]
    found = refuted_episodes(TURN, said)
    ends = {f.first: [n for o, role, n in f.evidence if role == "ended"] for f in found}
    assert ends[168] == ["bg still overflows limit it on homepage till the navbar"]
    assert ends[171] == ["section titles are good but keep all of them centred, now some "
                         "are not; the buttons still dont show ui for those categoires; "
                         "arent clickable"]


@pytest.mark.parametrize(("compacted", "lost"), [(167, False), (185, True)])
def test_a_compaction_is_the_cause_only_when_nothing_was_done_after_it(
        compacted: int, lost: bool) -> None:
    # uicomponents #167: the context was compacted, then the agent went on editing; the
    # user complains of that work, not of a lost task.  One after the last edit (k1 #463:
    # "I haven't done any work in this session yet") lost the task.
    said = [Said("s", 166, "user", "limit the aurora bg to the hero", None),
            Said("s", compacted, "assistant", "", "compaction"),
            Said("s", 192, "user", "bg still overflows the navbar", "still")]
    (f,) = refuted_episodes(TURN, said)
    assert f.cause_text.startswith("a context compaction") is lost
    assert "bg still overflows" in f.cause_text

