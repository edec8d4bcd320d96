"""Every reading of :mod:`kb.graph.reverted`, walked on its example."""

from __future__ import annotations

import pytest

from kb.graph.ablate import family_of
from kb.graph.episodes import Said
from kb.graph.reverted import EXAMPLES, Example, reverted_episodes


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_example(ex: Example) -> None:
    said = [Said("s", o, "user", "do it another way", None) for o in ex.users]
    got = reverted_episodes(list(ex.steps), said)
    if ex.expect is None:
        assert got == [], [(f.first, f.ended, f.name) for f in got]
    else:
        assert [(f.first, f.ended) for f in got] == [ex.expect]
        assert got[0].how == "reverted"
        assert got[0].ended in got[0].ordinals()


def test_every_example_has_a_source() -> None:
    assert all(e.source for e in EXAMPLES)
    assert len({e.name for e in EXAMPLES}) == len(EXAMPLES)


def test_the_rule_is_structural() -> None:
    assert family_of("reverted:reverted") == "structural"


def test_evidence_and_cause_are_the_files_own_runs() -> None:
    ex = next(e for e in EXAMPLES if e.name.startswith("rm-file: the cause"))
    (f,) = reverted_episodes(list(ex.steps), [])
    assert f.ordinals() == {342, 351, 360}
    assert f.signature is not None and "Unclosed" in f.signature
