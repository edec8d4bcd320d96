"""A design the agent took back on its own (kb.graph.takenback)."""

from __future__ import annotations

import pytest

from kb.graph.episodes import Said, Step, episodes
from kb.graph.takenback import EXAMPLES, TAKEN_LINES, Example, meaningful, taken_back_episodes


def _steps(ex: Example) -> tuple[list[Step], list[Said]]:
    steps = [Step("s", o, f"edit {f}", True, False, False, None, target=f,
                  wrote=frozenset(w), took=frozenset(t), tool="edit")
             for o, f, w, t in ex.changes]
    steps += [Step("s", o, "swift build", False, True, failed, "error: x" if failed else None,
                   command="swift build", tool="bash") for o, failed in ex.runs]
    said = [Said("s", o, "user", "do it another way", None) for o in ex.users]
    return sorted(steps, key=lambda s: s.ordinal), said


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.name)
def test_every_example_reads_as_it_says(ex: Example) -> None:
    assert ex.source, "a row needs the real case it was taken from"
    steps, said = _steps(ex)
    got = taken_back_episodes(steps, said)
    assert bool(got) is ex.taken, ex.source
    if ex.taken:
        (f,) = got
        assert f.how == "taken-back"
        assert f.first == ex.changes[0][0] and f.ended == ex.changes[-1][0]
        assert "took its own lines back" in f.cause_text
        # weighed with the other rules, it is kept (it hides nothing, nothing hides it)
        assert any(e.how == "taken-back" for e in episodes(steps, said, weak=got))


def test_braces_and_blank_lines_say_nothing_of_a_design() -> None:
    assert not meaningful("} else {")
    assert not meaningful("</div>")
    assert meaningful("NSUserNotificationCenter.default.deliver(content)")
    w = ("}", "});", "return x;")
    ex = Example("x", ((1, "a.ts", w, ()), (3, "a.ts", (), w)), False, "synthetic")
    steps, said = _steps(ex)
    steps.append(Step("s", 2, "read a.ts", False, False, False, None, tool="read"))
    assert taken_back_episodes(sorted(steps, key=lambda s: s.ordinal), said) == []
    assert TAKEN_LINES >= 2


def test_a_redesign_redone_is_one_episode() -> None:
    a = ("const h = height ?? window.innerHeight;", "material.uniforms.size.set(w, h);")
    b = ("const h = parent.clientHeight;", "observer.observe(parent);")
    ex = Example("x", ((10, "f.tsx", a, ()), (12, "f.tsx", b, a), (14, "f.tsx", (), b)),
                 True, "synthetic")
    steps, said = _steps(ex)
    steps += [Step("s", 11, "read f.tsx", False, False, False, None, tool="read"),
              Step("s", 13, "read f.tsx", False, False, False, None, tool="read")]
    (f,) = taken_back_episodes(sorted(steps, key=lambda s: s.ordinal), said)
    assert (f.first, f.ended) == (10, 14)
