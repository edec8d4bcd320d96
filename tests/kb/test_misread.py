"""A request the agent misread (kb.graph.misread)."""

from __future__ import annotations

import pytest

from kb.graph.episodes import Said, Step, episodes
from kb.graph.misread import EXAMPLES, MAX_WORDS, Example, misread_episodes


def _run(o: int, key: str, command: str) -> Step:
    return Step("s", o, key, False, True, False, None, command=command, tool="bash")


def _case(ex: Example) -> tuple[list[Step], list[Said]]:
    steps = [_run(o, k, c) for o, k, c in ex.turn + ex.after]
    said = [Said("s", o, "user", t, None) for o, t in (ex.request, ex.again)]
    return sorted(steps, key=lambda s: s.ordinal), said


@pytest.mark.parametrize("ex", EXAMPLES, ids=lambda e: e.name)
def test_every_example_reads_as_it_says(ex: Example) -> None:
    assert ex.source, "a row needs the real case it was taken from"
    steps, said = _case(ex)
    got = misread_episodes(steps, said)
    assert bool(got) is ex.misread, ex.source
    if ex.misread:
        (f,) = got
        assert f.how == "misread"
        assert f.first == ex.request[0] and f.said_at == ex.again[0]
        # the cause is the user's restatement, and it names what was left undone
        assert "export" in f.cause_text and "asked again" in f.cause_text
        assert {ex.request[0], ex.again[0]} <= f.ordinals()
        # weighed with the other rules, it is kept (it hides nothing, nothing hides it)
        assert any(e.how == "misread" for e in episodes(steps, said, weak=got))


def test_the_same_work_again_is_a_fix_not_another_reading() -> None:
    ex = EXAMPLES[0]
    # after the question the agent pushes again: the work of the turn, not the export
    after = ((613, "git push", "git push --force  # export"),)
    steps, said = _case(Example("x", ex.request, ex.turn, ex.again, after, False, "synthetic"))
    assert misread_episodes(steps, said) == []


def test_a_failure_the_user_answers_is_for_the_failure_rules() -> None:
    ex = EXAMPLES[0]
    steps, said = _case(ex)
    last = max(s.ordinal for s in steps if s.ordinal < ex.again[0])
    steps = [s._replace(failed=True, signature="error: x") if s.ordinal == last else s
             for s in steps]
    assert misread_episodes(steps, said) == []


def test_long_messages_share_words_by_chance() -> None:
    ex = EXAMPLES[0]
    long_again = (ex.again[0], ex.again[1] + " word" * MAX_WORDS)
    steps, said = _case(Example("x", ex.request, ex.turn, long_again, ex.after, False,
                                "synthetic"))
    assert misread_episodes(steps, said) == []


def test_one_word_again_is_the_next_step_not_a_restatement() -> None:
    ex = EXAMPLES[0]
    # "export it": the request's one word again, then the export; no restatement
    steps, said = _case(Example("x", ex.request, ex.turn, (ex.again[0], "now export it"),
                                ex.after, False, "synthetic"))
    assert misread_episodes(steps, said) == []


def test_the_records_of_a_stop_are_no_request() -> None:
    ex = EXAMPLES[0]
    mark = "[Request interrupted by user for tool use]"
    steps, _ = _case(ex)
    said = [Said("s", o, "user", mark, None) for o in (ex.request[0], ex.again[0])]
    # two stops share their words; the later work happens to name one of them
    steps.append(_run(ex.after[-1][0] + 1, "curl request", "curl -X POST request interrupted"))
    assert misread_episodes(steps, said) == []


def test_words_are_read_in_every_alphabet_of_the_pool() -> None:
    from kb.graph.misread import _terms
    # accented letters stay in their word; Han and Katakana runs are read as pairs, the
    # hiragana particles every sentence shares are not
    assert {"exporta", "sesión"} <= _terms("exporta la sesión")
    assert {"导出", "会话"} <= _terms("导出这个会话")
    assert {"セッ", "ショ"} <= _terms("このセッションを")
    assert not any("の" in t or "を" in t for t in _terms("このセッションを"))
    # a path's and a command's words are the same words as a request's
    assert {"session", "export"} <= _terms("opencode export > session-export.json")


def test_a_request_said_again_whole_in_another_script_is_read() -> None:
    # the same request twice, the reply between made no call (as EXAMPLES' uicomponents
    # row, in Chinese): the request's words are pairs of characters
    said = [Said("s", 1, "user", "导出这个会话到文件夹", None),
            Said("s", 3, "user", "导出这个会话到文件夹", None)]
    (f,) = misread_episodes([], said)
    assert f.first == 1 and f.said_at == 3 and 2 in f.ordinals()


def test_a_message_said_again_after_a_turn_of_work_says_go_on() -> None:
    # the fixture campaign's steering ("sounds good, continue" twice, a benchmark run
    # between): the turn worked, the message restates no request
    said = [Said("s", 10, "user", "sounds good, continue", None),
            Said("s", 14, "user", "sounds good, continue", None)]
    steps = [_run(11, "git diff", "git diff"), _run(12, "pip list", "pip list"),
             _run(13, "python3 sglang.bench_serving", "python3 -m sglang.bench_serving")]
    assert misread_episodes(steps, said) == []
    # with no call between, the same words again are the request not done
    assert [f.how for f in misread_episodes([], said)] == ["misread"]
