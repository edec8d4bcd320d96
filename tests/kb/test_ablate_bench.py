"""``python -m bench ablate``: families switched off by ``LOGKB_ABLATE``, and the table."""

from __future__ import annotations

import pytest

from bench.ablate_bench import ALONE, FULL, NO_PHRASES, Run, configs, tabulate
from kb.graph.ablate import ENV, FAMILIES, family_of, off, switched_off
from kb.graph.episodes import Found, made_by


def _found(rule: str) -> Found:
    return Found("s", "x", 1, 2, "how", "cause", evidence=[(1, "tested", None)], rule=rule)


def test_every_rule_has_one_family() -> None:
    rules = [r for rs in FAMILIES.values() for r in rs]
    assert len(rules) == len(set(rules))
    assert family_of("check:failed-check") == "structural"
    assert family_of("prose:dead-end") == "prose"
    assert family_of("annotation") == "other"
    # read from edits only (kb.graph.takenback): structure, whatever its name says
    assert family_of("taken_back:taken-back") == "structural"


def test_switch_is_off_unless_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv(ENV, raising=False)
    assert switched_off() == frozenset() and not off("check")
    assert len(made_by("check", [_found("")])) == 1


def test_switch_drops_the_family(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ENV, "structural, prose")
    assert off("check") and off("prose:dead-end") and not off("refuted")
    assert made_by("check", [_found("")]) == []
    assert len(made_by("refuted", [_found("")])) == 1


def test_configs_switch_each_family_and_keep_structure_alone() -> None:
    c = configs()
    assert c[FULL] == "" and all(c[f] == f for f in FAMILIES)
    assert "structural" not in c[ALONE].split(",")
    assert set(c[ALONE].split(",")) == set(FAMILIES) - {"structural"}
    assert set(c[NO_PHRASES].split(",")) == {"user-cues", "prose"}


def test_tabulate_counts_only_extras_and_one_session_rules() -> None:
    full = Run(3, 2, {0, 1}, [("check:failed-check", True, True),
                              ("prose:dead-end", True, True),
                              ("prose:dead-end", False, False)])
    no_prose = Run(1, 1, {0}, [("check:failed-check", True, True)])
    other = Run(2, 2, {0}, [("check:failed-check", True, True),
                            ("refuted:refuted", True, False)])
    runs = {f: full for f in configs()}
    runs["prose"] = no_prose
    runs[ALONE] = no_prose
    t = tabulate({"a/one": (2, runs), "b/two": (1, {f: other for f in configs()})})
    assert t["dead_ends"] == 3 and t["full"]["found"] == 3
    p = t["families"]["prose"]
    assert p["only"] == 1 and p["extras"] == 1 and p["tsess"] == 1
    assert p["recall_off"] == round(2 / 3, 2)
    # check holds in two sessions, prose in one: leave-one-session-out keeps check only
    assert t["loso_found"] == 2 and "prose" in t["one_session_rules"]
    # no agent read: one row for both sessions
    assert t["agents"]["?"]["dead_ends"] == 3 and t["agents"]["?"]["loso_found"] == 2
    assert t["agents"]["?"]["agent_loso_found"] == 2


def test_per_agent_leave_one_session_out_counts_the_agents_own_sessions() -> None:
    def run(agent: str) -> Run:
        return Run(1, 1, {0}, [("check:failed-check", True, True)], agent)

    t = tabulate({f"s/{n}": (1, {f: run(agent) for f in configs()})
                  for n, agent in (("a", "codex"), ("b", "opencode"), ("c", "opencode"))})
    # check holds in three sessions: pooled, each agent's match counts; among Codex
    # sessions alone it holds in one, so Codex's own figure does not count it
    codex, opencode = t["agents"]["codex"], t["agents"]["opencode"]
    assert codex["loso_found"] == 1 and codex["agent_loso_found"] == 0
    assert opencode["loso_found"] == opencode["agent_loso_found"] == 2
    assert opencode["alone_recall"] == opencode["no_phrases_recall"] == 1.0
