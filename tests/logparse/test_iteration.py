"""User messages that iterate (logparse.iteration): every row's example, and the report rules
(:func:`logparse.prose.refutation_phrase`) reading them, both ways."""

from __future__ import annotations

import pytest

from logparse.iteration import (
    APPROVAL_CUES,
    INSTRUCTION_CUES,
    NAMING_CUES,
    instruction_spans,
    opening_approval,
)
from logparse.prose import refutation_phrase


@pytest.mark.parametrize("cue", INSTRUCTION_CUES, ids=[c.name for c in INSTRUCTION_CUES])
def test_every_instruction_cue_fires_on_its_example(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source and cue.pattern.search(cue.example), cue.name
    assert instruction_spans(cue.example)


@pytest.mark.parametrize("cue", NAMING_CUES, ids=[c.name for c in NAMING_CUES])
def test_every_naming_cue_reports_nothing_on_its_example(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source and cue.pattern.search(cue.example), cue.name
    assert instruction_spans(cue.example) and refutation_phrase(cue.example) is None


@pytest.mark.parametrize("text,phrase", [
    ("the page is blank", "blank"),                     # said of a result: a report
    ("I get a blank page after the deploy", "blank"),   # not a request to build one
    ("fix the broken layout you changed", "broken"),    # "fix" may name the agent's breakage
    ("toas is showing nothing", "nothing"),  # labelled k1.lib-bootstrap__session-export.json
    ("add the missing tests. the page is blank", "blank"),
])
def test_failure_words_said_of_a_result_stay_reports(text: str, phrase: str) -> None:
    assert refutation_phrase(text) == phrase


@pytest.mark.parametrize("text", [
    "now add the missing tests for the parser",
    "ok, also handle the empty state on the dashboard",
    "remove the dead code in utils.ts",
    "write the readme, nothing fancy",
])
def test_a_request_naming_what_it_lacks_reports_nothing(text: str) -> None:
    assert refutation_phrase(text) is None


@pytest.mark.parametrize("cue", APPROVAL_CUES, ids=[c.name for c in APPROVAL_CUES])
def test_every_approval_cue_fires_on_its_example(cue) -> None:  # type: ignore[no-untyped-def]
    assert cue.source and cue.pattern.search(cue.example.lstrip()), cue.name


def test_a_negative_instruction_reports_nothing() -> None:
    # will-it-rain__claude.jsonl:397 (user): a new request with a rule in it
    assert refutation_phrase("I need to get (only if there is) the snow and ice (verglas en "
                             "francais).\nBut don't display if there is no chance") is None
    # pool FundWise__claude-session.jsonl (user, #34, trimmed)
    assert refutation_phrase("Use ZERION_API_KEY or documented optional x402, do not invent "
                             "secrets, run pnpm build, commit the feature") is None


@pytest.mark.parametrize("text,phrase", [
    # uicomponents__session-export.json:166 (user): a subject before the negation
    ("what did u do. now its the same as before aurora goes till the end of home page and "
     "buttons also dont work.", "same as before"),
    ("the buttons also dont work", "dont work"),
    ("dont work", "dont work"),                        # a report with its subject dropped
    # k1.lib-bootstrap__session-export.json (user, #540, trimmed): a verb of state
    ("ok is looking good, but : \n\nyou said that the source is : https://github.com/twbs/"
     "bootstrap/nav.mdx (do not exist in 5.3.8)", "do not exist"),
    ("please don't use the legacy client", "don't use"),   # corrects the approach taken
    ("IT's not working", "not working"),
])
def test_reports_stay_reports(text: str, phrase: str) -> None:
    assert refutation_phrase(text) == phrase


def test_an_opening_approval_accepts_the_turn() -> None:
    # pool conversacion-act1-pln__session.jsonl (user, #25, trimmed): accepted, then an old
    # error the user brings up again
    text = ("PERFECTO CLAUDE, empecemos arreglando el bug que hay en la celda donde se lee el "
            "CSV, te recuerdo el error:\n\nUnicodeDecodeError: 'utf-8' codec can't decode byte")
    assert opening_approval(text) is not None and refutation_phrase(text) is None
    # soulpass__codex-session.jsonl (user, #203, trimmed)
    assert opening_approval("ok good now when i deposit in treasury it says treasury is not "
                            "initialized") is not None


@pytest.mark.parametrize("text", [
    # pool conversacion-act1-pln__session.jsonl (user, #52): the contrast turns back to it
    "Perfecto, pero yo no te dije explicitamente a que se puede deber la discrepancia",
    # uicomponents__session-export.json (user, #228)
    "fantastic. i did opencode export ses_094543c98ffeLpQNuFXFVsZjKq but i dont see any file",
    "great, still not working though",
    "the page is perfect but the button is broken",    # praise not at the opening
])
def test_a_contrast_or_a_late_praise_is_no_opening_approval(text: str) -> None:
    assert opening_approval(text) is None
