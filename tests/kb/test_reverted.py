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


def test_a_long_session_costs_linear_time() -> None:
    """Each change looks back only at earlier changes of its own file, and no farther
    than :data:`~kb.graph.reverted.SPAN` (an undo beyond it is maintenance): 20,000
    steps of edits and runs, none undone, took 15 s of CPU when every step copied and
    walked every step before it."""
    import time

    from kb.graph.reverted import _edit, _run

    def cost(n: int) -> float:
        steps = [_edit(o, f"/w/src/f{o % 50}.py", [f"line {o}"], [f"old {o}"]) if o % 2
                 else _run(o, f"pytest -q t{o}", False) for o in range(n)]
        t = time.process_time()
        assert reverted_episodes(steps, []) == []
        return time.process_time() - t

    small, big = cost(5_000), cost(20_000)
    assert big < 1.0 or big < 8 * max(small, 0.01), (small, big)
