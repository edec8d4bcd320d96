"""An explanation a later probe or the user's evidence disproved (kb.graph.disproved)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from kb.graph import store as gs
from kb.graph.disproved import (
    CLAIMS,
    CLAIMS_SQL,
    EVIDENCE,
    FLIPS,
    Claim,
    Evidence,
    Flip,
    claim_rule,
    claims,
    disproved_episodes,
    evidence_kind,
    reports,
    turned_round,
)
from kb.graph.episodes import Said, Step, episodes
from kb.ingest import ingest
from kb.store import KbStore
from tests.timing import best_cpu


@pytest.mark.parametrize("row", CLAIMS, ids=lambda c: f"{c.lang}:{c.name}")
def test_every_claim_row_reads_its_real_example(row: Claim) -> None:
    assert row.source and row.lang, "a row needs its language and the real line it is from"
    assert row.regex.search(row.example), row.source
    assert claim_rule(row.example) is not None
    assert claims(row.example)
    # the store filters replies with the same rows, in DuckDB's own regex engine
    with duckdb.connect() as conn:
        got = conn.execute("SELECT regexp_matches(?, ?)", [row.example, CLAIMS_SQL]).fetchall()
    assert got == [(True,)], row.name


@pytest.mark.parametrize("row", FLIPS, ids=lambda f: f"{f.lang}:{f.name}")
def test_every_flip_row_turns_its_real_example_round(row: Flip) -> None:
    claim, later = row.example
    got = turned_round(claim, later)
    assert got is not None and got[0] is row, row.source
    # the same statement said again is no contradiction
    assert turned_round(claim, claim) is None


@pytest.mark.parametrize("row", EVIDENCE, ids=lambda e: e.name)
def test_every_evidence_row_reads_its_real_example(row: Evidence) -> None:
    assert row.source
    assert evidence_kind(row.example) == row.name


def test_plans_questions_and_conditions_explain_nothing() -> None:
    assert claim_rule("Let me check why the build is probably failing.") is None
    assert claim_rule("Is it because of the cache?") is None
    # soulpass: a condition, then the later check (k1.lib-bootstrap, #492 / #512)
    assert turned_round("If the element isn't found, it throws this error.",
                        "If the element with `id=\"demoModal\"` is found, but something is "
                        "wrong with how Bootstrap is trying to access it") is None
    # an auxiliary is no predicate ("isn't being swapped" … "is being interpolated")
    assert turned_round("The issue is likely that the placeholder isn't being swapped out.",
                        "On line 48, `{$modal_body}` is being interpolated directly.") is None
    # a state reached, whoever changed it, disproves nothing
    assert turned_round("The most likely cause is that the worker is not running.",
                        "The worker is running now.") is None
    # a later guess disproves nothing
    assert turned_round("the program id is not deployed on the selected cluster",
                        "The program is probably deployed.") is None


def test_a_question_with_still_reports_nothing() -> None:
    # speakfree (Claude Code, shared), a user's question, not a report of a symptom
    assert reports("would the audio still be retrievable?") == []
    got = reports("section titles are good but keep all of them centred, now some are not and "
                  "the buttons still dont show ui for those categoires and arent clickable and "
                  "bg still overflows limit it on homepage till the navbar")
    assert "bg still overflows limit it on homepage till the navbar" in got


# -------------------------------------------------------------------- episodes
_SOULPASS_297 = (
    "The wallet simulation message means the transaction is now reaching the wallet, but the "
    "on-chain instruction is invalid. The most likely causes are either the program id is not "
    "deployed on the selected cluster, or the configured USDC mint is not a Token-2022 mint "
    "while the Anchor account requires `token_2022::Token2022`. I’m checking the devnet "
    "accounts directly.")
_SOULPASS_302 = (
    "The program is deployed, but the configured mint is the problem: `Gh9Zw...KGtKJr` is "
    "owned by the legacy SPL Token program (`Tokenkeg...`), while the Civitas program’s "
    "`initialize_vault` instruction requires a Token-2022 mint (`TokenzQd...`). That mismatch "
    "is enough to make wallet simulation fail.")
_PROBE = "node -e \"const c=new Connection('https://api.devnet.solana.com'); c.getAccountInfo\""


def _run(o: int, command: str, failed: bool = False) -> Step:
    return Step("s", o, "node", False, True, failed, "fetch failed" if failed else None,
                command=command, tool="bash")


def test_an_explanation_the_probe_turned_round() -> None:
    """soulpass (Codex, shared) #297 guesses, #299/#301 query devnet, #302 turns it round."""
    said = [Said("s", 296, "user", "still at the vault Simulation failed", None),
            Said("s", 297, "assistant", _SOULPASS_297, "explains"),
            Said("s", 302, "assistant", _SOULPASS_302, "explains")]
    steps = [_run(299, _PROBE, failed=True), _run(301, _PROBE)]
    (f,) = disproved_episodes(steps, said)
    assert f.how == "disproved" and (f.first, f.ended) == (297, 302)
    assert f.ordinals() == {297, 301, 302}
    assert "not deployed" in f.name
    assert f.cause_text.startswith("The program is deployed")
    # weighed with the other rules it is kept: it hides nothing, nothing hides it
    assert any(e.how == "disproved" for e in episodes(steps, said, weak=[f]))


def test_an_explanation_the_probe_confirmed_is_no_dead_end() -> None:
    confirmed = ("The program is not deployed on devnet: getAccountInfo returned null, so "
                 "that is the problem.")
    said = [Said("s", 297, "assistant", _SOULPASS_297, "explains"),
            Said("s", 302, "assistant", confirmed, "explains")]
    assert disproved_episodes([_run(301, _PROBE)], said) == []


def test_a_state_the_agent_changed_is_no_statement_disproved() -> None:
    said = [Said("s", 10, "assistant", "The most likely cause is that the worker is not "
                 "running on this host.", "explains"),
            Said("s", 14, "assistant", "The worker is running now, but the queue is the "
                 "problem.", "explains")]
    steps = [Step("s", 12, "systemctl start", False, True, False, None,
                  command="systemctl start worker", tool="bash"),
             _run(13, "systemctl status worker")]
    assert disproved_episodes(steps, said) == []
    # nothing learnt in between: two sentences of one thought
    assert disproved_episodes([], said[:1] + [said[1]._replace(ordinal=11)]) == []


_CONV_80 = (
    "No necesariamente raro. Tené en cuenta que:\n\n1. **Son comentarios de redes sociales**, "
    "no textos formales. Muchos son frases cortas, sin puntos ni estructura gramatical clara."
    "\n2. **spaCy detecta oraciones por puntuación y sintaxis**. Si un comentario no tiene "
    "punto, spaCy lo trata como una sola oración aunque tenga varias ideas.\n\nPor ejemplo, "
    "`\"sos un idiota no te quiero ver más\"` para spaCy es una sola oración porque no hay "
    "punto que la separe.")
_CONV_81 = ("por ejemplo\n['c', 'r', 'i', 's', 't', 'i', 'n', 'a', ' ', 'c', 'i', 'f', 'u', 'e', "
            "'n', 't', 'e', 's', ' ', 'p', 'o', 'd', 'r', 'í', '\\xad', 'a', ' ', 'h', 'a', 'b', "
            "'e', 'r', ' ', 's', 'i', 'd', 'o', '.', ' ', 'p', 'o', 'd', 'r', 'í', '\\xad', 'a']")
_CONV_82 = (
    "Mirá los caracteres `\\xad` que aparecen por todo el texto. Eso es el **soft hyphen** "
    "(`U+00AD`) que vimos antes. Está insertado dentro de las palabras.\n\nEso probablemente "
    "está rompiendo la tokenización de spaCy. Si spaCy no tokeniza bien las palabras, tampoco "
    "puede detectar correctamente los límites de oración.\n\nEl dataset tiene problemas de "
    "encoding que no se resuelven solo con `encoding='latin-1'`.")


def test_an_explanation_the_users_pasted_output_replaced() -> None:
    """conversacion-act1-pln (Claude Code, tune) #80 explains the one-sentence lists by
    missing punctuation, #81 the user prints a comment, #82 another cause."""
    said = [Said("s", 79, "user", "el output de eso me da lista de largo 1 todas, raro no?",
                 None),
            Said("s", 80, "assistant", _CONV_80, "explains"),
            Said("s", 81, "user", _CONV_81, None),
            Said("s", 82, "assistant", _CONV_82, "explains")]
    (f,) = disproved_episodes([], said)
    assert (f.first, f.ended) == (80, 82) and f.ordinals() == {80, 81, 82}
    assert "para spaCy es una sola" in f.name
    assert "tokenización de spaCy" in f.cause_text and "#81" in f.cause_text
    # output pasted after a change the agent made on the explanation tells how the change
    # went (the next problem), not whether the explanation held
    edit = Step("s", 80, "edit nb.py", True, False, False, None, target="nb.py", tool="edit")
    assert disproved_episodes([edit], said) == []
    # the reply that says the output confirms the explanation keeps it
    agreed = said[:3] + [Said("s", 82, "assistant", "Exacto, eso confirma que no hay "
                              "puntos: spaCy lo trata como una sola oración porque no hay "
                              "punto.", "explains")]
    assert disproved_episodes([], agreed) == []


def test_the_explanation_a_user_report_of_the_same_symptom_refutes() -> None:
    """uicomponents (opencode, shared) #167 diagnoses the overflow, #192 "bg still
    overflows", #195 the canvas size instead."""
    said = [Said("s", 166, "user", "now its the same as before aurora goes till the end", None),
            Said("s", 167, "assistant",
                 "The parent div has `className=\"relative h-dvh\"` - no overflow hidden. So "
                 "even though the parent is 100vh, the canvas spills out. The simplest fix: "
                 "add `overflow-hidden` to the wrapper div.", "explains"),
            Said("s", 171, "assistant", "The buttons should work (they just don't do "
                 "anything because onClick is undefined).", "explains"),
            Said("s", 192, "user", "section titles are good but keep all of them centred and "
                 "bg still overflows limit it on homepage till the navbar", None),
            Said("s", 195, "assistant", "**BG overflow** — The Three.js canvas uses "
                 "`window.innerHeight` which may exceed the hero wrapper's `h-dvh`.",
                 "explains")]
    steps = [Step("s", 168, "edit App.tsx", True, False, False, None, target="App.tsx",
                  tool="edit")]
    (f,) = disproved_episodes(steps, said)
    assert f.ordinals() == {167, 192, 195}
    assert "canvas spills out" in f.name
    assert "bg still overflows" in f.cause_text


# -------------------------------------------------------------------- the store
_REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld" / "labelled"


def test_the_store_feeds_the_rule_the_replies_that_explain(tmp_path: Path) -> None:
    """The real soulpass rollout (Codex, shared) ingested into DuckDB: the reply at #297
    reaches the rule through the store's filter, and the graph tells its dead end."""
    src = _REAL / "soulpass__codex-session.jsonl"
    if not src.is_file():
        pytest.skip(f"no labelled sessions at {_REAL}")
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [src])
        (sid,) = [r[0] for r in store.conn.execute("SELECT session_id FROM sessions").fetchall()]
        found = [d for d in gs.dead_ends(store, [gs.scope_of(store, sid)])
                 if "not deployed" in str(d.get("name"))]
    assert len(found) == 1, found
    (d,) = found
    assert {297, 301, 302} <= {int(e["ordinal"]) for e in d["evidence"]}
    assert "deployed" in str(d.get("cause")).lower()


def _long_session(n: int) -> tuple[list[Step], list[Said]]:
    """``n`` rounds of: an explanation, a failing check, the user's pasted traceback and
    a reply that explains it otherwise (each round a dead end of its own)."""
    steps, said = [], []
    for i in range(n):
        o = i * 4
        said.append(Said("s", o, "assistant", f"The most likely cause is that worker{i % 7} "
                         f"is not deployed on cluster {i}. This is because config{i} is "
                         "stale.", "explains"))
        steps.append(Step("s", o + 1, f"pytest t{i}", False, True, i % 2 == 0, None,
                          command=f"pytest t{i}"))
        said.append(Said("s", o + 2, "user", f"still broken for worker{i % 7}\n```\n"
                         "Traceback (most recent call last)\n```", "refute"))
        said.append(Said("s", o + 3, "assistant", f"The worker{i % 7} is deployed, because "
                         f"config{i} lacks a key.", "explains"))
    return steps, said


def _cpu(n: int) -> tuple[float, int]:
    """The rule's best CPU time of three runs on a session of ``n`` rounds
    (:func:`tests.timing.best_cpu`: the cyclic collector off)."""
    steps, said = _long_session(n)
    return best_cpu(lambda: len(disproved_episodes(steps, said)))


def test_the_rule_costs_linear_time_in_the_session_length() -> None:
    """Each pair of replies and each user message is read against its window (bisected
    ordinals), not against every step and message of the session: 4x the session costs
    about 4x (the scans it had cost 14x: 0.19 s at 500 rounds, 7.0 s at 4,000)."""
    small, n_small = _cpu(500)
    large, n_large = _cpu(2000)
    assert n_small == 2 * 500 - 10 and n_large == 2 * 2000 - 10  # the work is all there
    assert large < 9 * max(small, 0.005), (small, large)
