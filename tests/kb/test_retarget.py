"""Every kind of target and every reading of :mod:`kb.graph.retarget`, on its example."""

from __future__ import annotations

import pytest

from kb.graph.ablate import family_of
from kb.graph.retarget import EXAMPLES, TARGETS, Example, Target, retarget_episodes


@pytest.mark.parametrize("t", TARGETS, ids=[t.kind for t in TARGETS])
def test_target(t: Target) -> None:
    assert t.read(t.example) == t.expect
    assert t.source


@pytest.mark.parametrize("ex", EXAMPLES, ids=[e.name for e in EXAMPLES])
def test_example(ex: Example) -> None:
    got = retarget_episodes(list(ex.steps))
    if ex.expect is None:
        assert got == [], [(f.first, f.ended, f.name) for f in got]
    else:
        assert [(f.first, f.ended) for f in got] == [ex.expect]
        assert got[0].how == "retargeted" and got[0].cause_text


def test_the_rule_is_structural() -> None:
    assert family_of("retarget:retargeted") == "structural"
