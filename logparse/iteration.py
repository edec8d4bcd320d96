"""User messages that iterate on the work rather than reject it.

Users build on what the agent just did: they accept it and ask for the next thing ("Perfecto,
empecemos arreglando el bug …"), or add an instruction to a new request ("But don't display
if there is no chance").  Such a message may hold words the refutation rules read as a report
("don't display", a pasted error), yet it says nothing against the last turn.  Two shapes,
each a table of rows with a real example (``tests/logparse/test_iteration.py`` walks them):

* :data:`INSTRUCTION_CUES`: a negative imperative at the start of a clause ("don't display
  …", "do not invent …"): an instruction about what to build, not a report that something
  does not work (a report names what fails: "the buttons don't show");
* :data:`APPROVAL_CUES`: an approval that opens the message ("Perfecto, …", "fantastic.",
  "ok good now …"): the last turn was accepted, and what follows is news or a new request
  unless a contrast ("but", "pero") turns back to it.

Pure: no database, no UI.
"""

from __future__ import annotations

import re

from logparse.structural import Cue

# ----------------------------------------------------------------- instructions
INSTRUCTION_CUES: tuple[Cue, ...] = (
    Cue("en-dont-verb", re.compile(
        r"(?:^|(?<=[.!?;:\n,]))[^\S\n]*(?:(?:but|and|so|please|pls|just|then|also|ok|okay)\s+)*"
        r"(?:don'?t|dont|do\s+not|never)\s+(?!(?:work|exist|seem|appear|happen)\w*\b|use\b)"
        r"[a-z]\w*", re.I),
        "I need to get (only if there is) the snow and ice (verglas en francais).\n"
        "But don't display if there is no chance",
        "will-it-rain__claude.jsonl:397 (user)"),
)
"""A negative imperative ("don't display …"): what the user wants built, said as a rule.
"Don't work", "(do not exist)" and "don't use X" are left to the report rules: a verb of
state with its subject dropped is a report ("prepend_child … (do not exist)"), and "don't
use X" corrects the approach the agent took."""


def instruction_spans(text: str) -> list[tuple[int, int]]:
    """Where ``text`` gives a negative instruction, or names what to build by what it
    lacks (start and end of each), for the report rules to skip."""
    out: list[tuple[int, int]] = []
    for cue in INSTRUCTION_CUES + NAMING_CUES:
        out += [(m.start(), m.end()) for m in cue.pattern.finditer(text)]
    return sorted(out)

NAMING_CUES: tuple[Cue, ...] = (
    Cue("en-build-the-missing", re.compile(
        r"(?:^|(?<=[.!?;:\n,]))[^\S\n]*(?:(?:but|and|so|please|pls|just|then|also|now|ok"
        r"|okay|can\s+you|could\s+you)\s+)*"
        r"(?:add|create|implement|write|build|make|generate|include|fill(?:\s+in)?|populate"
        r"|handle|cover|support|document|list|detect|flag|log|skip|ignore|remove|delete|drop"
        r"|clean\s+up|prune|strip)\s+(?:[\w'-]+\s+){0,6}?"
        r"(?:the|a|an|any|all|every|each|those|these|its|their)\s+"
        r"(?:missing|empty|blank|dead|broken|wrong|incorrect)\s+[a-z][\w-]*", re.I),
        "Let me first read a few existing files to understand the pattern, then create "
        "proposal files for the missing Bootstrap components.",
        "labelled/k1.lib-bootstrap__session-export.json:5769 (reasoning; "
        "fixtures/examples/lines.txt)"),
    Cue("en-nothing-else", re.compile(
        r"\bnothing\s+(?:else|more|fancy|special|extra)\b", re.I),
        "3. some kind of simlpe animation so it's to make it mezmerizing\nnothing else for now",
        "pool random__session.jsonl:3 (user)"),
)
"""Words the report rules read as a failure ("missing", "empty", "dead", "nothing") used
to say what to build: as the attribute of what an imperative asks for ("add the missing
tests", "handle the empty state", "remove the dead code"), or to close a request
("nothing else for now").  A report says them of a result ("the page is blank", "toas is
showing nothing"), which stays one; "fix"/"check" are not among the verbs (the user may
name what the agent broke)."""


# ----------------------------------------------------------------- approvals
APPROVAL_CUES: tuple[Cue, ...] = (
    Cue("en-opening-praise", re.compile(
        r"^\W*(?:perfect|great|excellent|fantastic|awesome|thanks|thank\s+you)\b", re.I),
        "fantastic. i did opencode export ses_094543c98ffeLpQNuFXFVsZjKq but i dont see any "
        "file",
        "uicomponents__session-export.json (user, ordinal 228)"),
    Cue("en-ok-good", re.compile(r"^\W*ok(?:ay)?[,\s]+(?:good|great|perfect|nice)\b", re.I),
        "ok good now when i deposit in treasury first of all it says treasury is not "
        "initialized then t.serialize is not a function",
        "soulpass__codex-session.jsonl (user, ordinal 203)"),
    Cue("es-perfecto", re.compile(
        r"^\W*(?:perfecto|excelente|genial|gracias|muy\s+bien)\b", re.I),
        "PERFECTO CLAUDE, empecemos arreglando el bug que hay en la celda donde se lee el "
        "CSV, te recuerdo el error:",
        "pool conversacion-act1-pln__session.jsonl (user, ordinal 25)"),
)
"""An approval that opens a user message: the turn before it was accepted."""

CONTRAST = re.compile(r"(?i)\b(?:but|however|though|pero|sin\s+embargo|mas|por[ée]m|still"
                      r"|sigue|todav[ií]a|ainda)\b|でも|けど|但是?|不过")
"""A word that turns from the approval back to a problem with the same work."""


def opening_approval(text: str) -> re.Match[str] | None:
    """The approval a message opens with, when no contrast word follows it; else ``None``."""
    head = text.lstrip()[:200]
    for cue in APPROVAL_CUES:
        m = cue.pattern.search(head)
        if m is not None:
            return None if CONTRAST.search(text[:2000], m.end()) else m
    return None
