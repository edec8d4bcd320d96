"""Every dead end names the rule that ended it (``via``), and ``bench rule-support``
tallies them by rule (issue 22: which rules hold across sessions)."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from bench.rule_support import Hit, lines, summary, tally
from kb.graph import store as gs
from kb.graph.episodes import Step, episodes, made_by
from kb.graph.switched import switched_episodes
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
    (f,) = episodes(steps, [], more=made_by("switched", switched_episodes(steps)))
    assert (f.rule, f.how) == ("switched", "switched")


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


# (taken away, written again, amended?): lines of the shared and tune sessions
AMENDMENTS = (
    # will-it-rain src/weather.ts: a field added to what it returns, for the next request
    ("return { departureHours, arrivalHours, avgMaxPop, hasSnow, hasIce };",
     "return { departureHours, arrivalHours, avgMaxPop, avgTemp, hasSnow, hasIce };", True),
    # will-it-rain src/discord.ts: a line put into the list of lines
    ("const lines = [title, morningText, eveningText, ...warnings];",
     "const lines = [title, dailyLine, morningText, eveningText, ...warnings];", True),
    # FundWise ROADMAP.md: a sentence re-punctuated and a link to the ADR added to it
    ("The strategic rollout order is locked, even where individual phases run in parallel "
     "for engineering:",
     "The strategic rollout order is locked, even where individual phases run in parallel "
     "for engineering. See [ADR-021](./docs/adr/0021-gtm-rollout-order-split-fundy-fund-mode-"
     "beta.md) for the locked decision:", True),
    # blockchain-dex-events solve.rb: the literal the user asked to make configurable,
    # now only a fallback behind the variable: replaced
    ('"https://polygon-rpc.com/",', 'ENV["POLYGON_RPC_URL"] || "https://polygon-rpc.com/",',
     False),
    # will-it-rain src/config.ts: a field renamed and retyped
    ("departureHour: number;", "departureTime: TimeOfDay;", False),
    # (written, no real line yet) a line commented out is taken away
    ("await sendDiscord(message);", "// await sendDiscord(message);", False),
)


def test_a_line_written_again_begun_as_it_was_is_amended_not_taken() -> None:
    from kb.graph.iteration import taken_away

    for was, now, want in AMENDMENTS:
        assert (not taken_away([was], [now, "unrelated line"])) is want, (was, now)


def test_a_list_grown_at_the_users_request_is_no_rework() -> None:
    from kb.graph.episodes import Said, reworked_episodes

    was, now, _ = AMENDMENTS[1]
    said = [Said("s", 1, "user", "post the forecast to discord", None),
            Said("s", 5, "user", "Now i want to show temperature average of the day", None)]

    def change(o: int, wrote: str, took: str = "") -> Step:
        return Step("s", o, "edit discord.ts", True, False, False, None, target="src/discord.ts",
                    wrote=frozenset({wrote}), took=frozenset({took} - {""}))

    assert reworked_episodes([change(3, was), change(7, now, was)], said) == []
    replaced = "const lines = [title, summary];"
    (f,) = reworked_episodes([change(3, was), change(7, replaced, was)], said)
    assert f.how == "reworked"
