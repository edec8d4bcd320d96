"""``python -m bench loso``: leave-one-session-out precision and causes, and each rule's
false positives across sessions."""

from __future__ import annotations

import pytest

from bench.loso_bench import (
    Hit,
    cause_kind,
    choice_lines,
    fp_lines,
    left_out,
    lines,
    main,
    miss_lines,
    rule_lines,
    tabulate,
)


def _hit(session: str, rule: str, *, true: bool, matched: bool = False,
         right: bool = False, kind: str = "error") -> Hit:
    return Hit(session, rule, kind, true, matched, right, "name", "cause", [1, 2])


def test_cause_kind_reads_the_cause_id() -> None:
    assert cause_kind({"cause_id": "cause:stated:a-b"}) == "stated"
    assert cause_kind({"cause_id": "cause:error:x"}) == "error"
    assert cause_kind({"cause_id": None}) == "none"


def test_a_rule_true_in_one_session_only_is_left_out_there() -> None:
    res = {
        "tune/a": (2, [_hit("tune/a", "check:failed-check", true=True, matched=True,
                            right=True),
                       _hit("tune/a", "prose:dead-end", true=True, matched=True,
                            right=True, kind="stated"),
                       _hit("tune/a", "check:failed-check", true=False)]),
        "tune/b": (1, [_hit("tune/b", "check:failed-check", true=True, matched=True,
                            right=True),
                       _hit("tune/b", "prose:dead-end", true=False)]),
    }
    t = tabulate(res)
    assert t["full"]["reported"] == 5 and t["full"]["true"] == 3
    assert t["full"]["precision"] == 0.6 and t["full"]["causes"] == 1.0
    # prose is true in tune/a only: left out there; its false positive in tune/b stays
    # (it is true in another session), so LOSO keeps 4 of 5, 2 of them true
    lo = t["loso"]
    assert lo["reported"] == 4 and lo["true"] == 2 and lo["precision"] == 0.5
    assert lo["found"] == 2 and lo["recall"] == round(2 / 3, 2)
    assert lo["causes_right"] == 2 and lo["causes"] == 1.0
    rows = {r["rule"]: r for r in t["rules"]}
    assert rows["check:failed-check"]["fp"] == 1
    assert rows["check:failed-check"]["fp_sessions"] == ["tune/a"]
    assert rows["prose:dead-end"]["verdict"] == "fitted"


def test_a_cause_choice_right_in_one_session_only_counts_wrong() -> None:
    res = {
        "s/a": (1, [_hit("s/a", "check:x", true=True, matched=True, right=True,
                         kind="stated")]),
        "s/b": (1, [_hit("s/b", "check:x", true=True, matched=True, right=True)]),
    }
    lo = tabulate(res)["loso"]
    assert lo["found"] == 2 and lo["causes_right"] == 0
    # support from another set's sessions counts
    more = {"t/c": (1, [_hit("t/c", "check:x", true=True, matched=True, right=True,
                             kind="stated"),
                        _hit("t/c", "check:x", true=True, matched=True, right=True)])}
    lo = tabulate(res, {**res, **more})["loso"]
    assert lo["causes_right"] == 2


def test_fps_spanning_sessions_are_a_risk_and_lines_fit() -> None:
    res = {f"s/{n}": (1, [_hit(f"s/{n}", "claim:claim", true=False)]) for n in "abc"}
    res["s/d"] = (1, [_hit("s/d", "claim:claim", true=True, matched=True)])
    t = tabulate(res)
    row = t["rules"][0]
    assert row["rule"] == "claim:claim" and row["verdict"] == "RISK"
    assert len(row["fp_sessions"]) == 3
    out = lines("x", t) + rule_lines(t) + choice_lines(t) + fp_lines(h for _, hs in res.values()
                                                        for h in hs)
    assert all(len(x) <= 80 for x in out)


def test_leave_one_agent_out_needs_support_from_another_agent() -> None:
    def hit(session: str, agent: str) -> Hit:
        return Hit(session, "check:failed-check", "error", True, True, True, "n", "c", [1],
                   agent)

    res = {"s/a": (1, [hit("s/a", "codex")]), "s/b": (1, [hit("s/b", "codex")]),
           "s/c": (1, [hit("s/c", "opencode")])}
    t = tabulate(res)
    assert t["loso"]["found"] == 3
    # the two Codex sessions hold each other up by session, not by agent: only the
    # opencode session's support is another agent's
    assert t["loao"]["found"] == 3
    res = {"s/a": (1, [hit("s/a", "codex")]), "s/b": (1, [hit("s/b", "codex")])}
    t = tabulate(res)
    assert t["loso"]["found"] == 2 and t["loao"]["found"] == 0


def test_heldout_is_not_offered() -> None:
    for which in ("heldout", "all"):
        with pytest.raises(SystemExit):
            main(["--set", which])


def test_recall_per_agent_counts_each_agents_labels_all_on_and_left_out() -> None:
    def hit(session: str, rule: str, agent: str, matched: bool) -> Hit:
        return Hit(session, rule, "error", True, matched, False, "n", "c", [1], agent)

    res = {
        "s/a": (2, [hit("s/a", "check:x", "codex", True), hit("s/a", "prose:y", "codex", True)]),
        "s/b": (1, [hit("s/b", "check:x", "opencode", True)]),
        "s/c": (1, [hit("s/c", "check:x", "opencode", True)]),
        "s/d": (3, []),  # labelled, nothing found: its agent comes from ``agents``
    }
    t = tabulate(res, agents={"s/d": "claude-code"})
    assert t["full"]["agents"] == {
        "claude-code": {"labels": 3, "found": 0, "recall": 0.0},
        "codex": {"labels": 2, "found": 2, "recall": 1.0},
        "opencode": {"labels": 2, "found": 2, "recall": 1.0}}
    # prose:y is true in s/a only: LOSO leaves it out there; check:x holds elsewhere
    assert t["loso"]["agents"]["codex"] == {"labels": 2, "found": 1, "recall": 0.5}
    # check:x is true for opencode and codex: each keeps it by the other agent
    assert t["loao"]["agents"]["opencode"]["found"] == 2
    out = lines("x", t)
    assert any(line.startswith("codex") and "1.00   0.50" in line for line in out)
    assert all(len(line) <= 80 for line in out)


def test_left_out_rows_pair_the_kept_dead_ends_with_the_labels_again() -> None:
    def hit(session: str, rule: str, ords: list[int], matched: bool) -> Hit:
        return Hit(session, rule, "error", True, matched, False, "n", "c", ords, "codex")

    # s/a's one label overlaps a fitted rule's dead end (its all-on pair) and a kept one
    res = {"s/a": (1, [hit("s/a", "prose:y", [3, 4], True),
                       hit("s/a", "check:x", [4, 5], False)]),
           "s/b": (1, [hit("s/b", "check:x", [9], True)])}
    t = tabulate(res, labelled={"s/a": [{3, 4}], "s/b": [{9}]})
    assert t["loso"]["recall"] == 0.5  # the all-on pair of s/a was left out
    assert t["loso"]["rematched"] == 1.0  # check:x pairs with it again
    assert tabulate(res)["loso"]["rematched"] is None
    assert any(line.startswith("re-paired") for line in lines("x", t))


def test_misses_are_the_matched_dead_ends_of_rules_true_in_one_session() -> None:
    hits = [_hit("tune/a", "check:failed-check", true=True, matched=True),
            _hit("tune/b", "check:failed-check", true=True, matched=True),
            _hit("tune/a", "misread:misread", true=True, matched=True),
            _hit("tune/a", "misread:misread", true=True, matched=False),
            _hit("tune/b", "guess:guesses", true=False, matched=False)]
    # check holds in two sessions; misread's matched one is left out, its unmatched
    # duplicate is no label lost; guess matched nothing
    assert [(h.session, h.rule) for h in left_out(hits)] == [("tune/a", "misread:misread")]
    out = miss_lines(hits)
    assert out[0].startswith("LOSO leaves out 1 ")
    assert out[1] == "misread:misread (1)" and "tune/a" in out[2]
    assert all(len(x) <= 80 for x in out)
