"""Every dead end names the rule that ended it (``via``), and ``bench rule-support``
tallies them by rule (issue 22: which rules hold across sessions)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from bench.rule_support import Hit, lines, summary, tally
from kb.graph import store as gs
from kb.graph.episodes import Step, episodes
from kb.ingest import ingest
from kb.store import KbStore

LABELLED = Path(__file__).resolve().parents[2].parent / "shared" / "realworld" / "labelled"
_VIA = re.compile(r"^(?:[a-z_]+:[a-z-]+|todo:(?:cancelled|dead-note|blocked-note|plan-dropped)"
                  r"|prose:dead-end|annotation)$")


def test_an_episode_names_the_rule_that_read_it() -> None:
    url = "curl -fsSL https://www.solana.new/setup.sh | bash"
    steps = [Step("s", 8, "bash curl", False, True, True, None, command=f'bash -lc "{url}"',
                  failure="execvpe(/bin/bash) failed: No such file or directory"),
             Step("s", 47, "bash.exe curl", False, True, False, None,
                  command=f"& 'C:\\Program Files\\Git\\bin\\bash.exe' -lc \"{url}\"")]
    (f,) = episodes(steps, [])
    assert (f.rule, f.how) == ("replaced_run", "replaced-run")


def test_dead_ends_of_a_real_session_carry_their_rule(tmp_path: Path) -> None:
    src = tmp_path / "Trezo-Ai__codex-session.jsonl"
    shutil.copy(LABELLED / src.name, src)
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [src], index=False)
        dead = gs.dead_ends(store, gs.scopes(store))
    assert dead
    assert all(d["via"] and _VIA.match(d["via"]) for d in dead), [d["via"] for d in dead]
    assert any(d["via"].startswith("check:") for d in dead)


def _hit(session: str, rule: str, true: bool, matched: bool = False) -> Hit:
    return Hit("tune", session, rule, "x", true, matched, [1])


def test_support_by_rule_and_the_leak_and_fitted_verdicts() -> None:
    hits = [_hit("a", "check:failed-check", True, True), _hit("b", "check:failed-check", True),
            _hit("c", "check:failed-check", True, True),
            _hit("a", "reworked:reworked", True, True), _hit("b", "reworked:reworked", False),
            _hit("c", "reworked:reworked", False), _hit("c", "reworked:reworked", False),
            _hit("a", "claim:claim", True, True), _hit("a", "claim:claim", True)]
    rules = {r.rule: r for r in tally(hits)}
    check, rework, claim = (rules["check:failed-check"], rules["reworked:reworked"],
                            rules["claim:claim"])
    assert (len(check.fired), check.true, check.extra, check.matched) == (3, 3, 0, 2)
    assert len(check.true_sessions) == 3 and check.verdict == ""
    assert (rework.true, rework.extra, rework.extra_sessions, rework.verdict) == (1, 3, 2, "LEAK")
    assert claim.verdict == "fitted"
    s = summary(list(rules.values()))
    # 3 of the 6 true come from a rule with true hits in >= 3 sessions, 3 + 0 in >= 2
    assert (s["true"], s["true_from_2_sessions"], s["true_from_3_sessions"]) == (6, 0.5, 0.5)
    assert s["leaks"] == ["reworked:reworked"] and s["fitted"] == ["claim:claim"]
    out = lines(list(rules.values()))
    assert all(len(x) <= 80 for x in out)
    assert any(x.startswith("reworked:reworked") and x.endswith("LEAK") for x in out)
