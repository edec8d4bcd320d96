"""A user's direction-setting prompt: the message where the person at the keyboard chooses
the way forward (picks one of the options the agent offered, says "use X instead", "no,
let's do Y", approves the proposed plan).  Such a prompt is stored with classification
``decision``, the class the agent's own decisions carry, so ``logkb events`` and the
timeline's decision flag show who set the direction and when.

Rules are data: each row is (name, pattern, example), the example quoted from a real
transcript (file:line or ordinal), and ``tests/logparse/test_decide.py`` walks them all.
Measured with ``python -m bench decisions`` on the shared and tune labels; every row was
judged by hand on its firings there (rows below 80% true were dropped).
"""

from __future__ import annotations

import re
from typing import Final

# (name, pattern, a real prompt it fires on: where it was said)
USER_DECISION_ROWS: Final[tuple[tuple[str, str, str, str], ...]] = (
    ("lets-do",
     r"\blet'?s\s+(?:do|go\s+with|use|switch\s+to|stick\s+with|pick|choose|keep|go\s+for)\b",
     "Yes let's do small.en It says it's waiting for accessibiltiy.",
     "labelled/speakfree__session.jsonl ordinal 85; pool/blockchain-dex-events ordinal 40"),
    ("use-approach",
     r"\b(?:use|go\s+with|take|pick|choose)\s+(?:the\s+)?(?:[\w-]+\s+){0,2}"
     r"(?:approach|option|route|variant|strategy)\b",
     "use hybrid approach",
     "labelled/uicomponents__session-wordpress.json ordinal 217"),
    ("option-letter",
     r"\b(?:use|go\s+with|take|pick|choose|prefer|want)\s+(?:the\s+)?option\s*#?\s*[a-d1-4]\b"
     r"|^[^\w\n]{0,8}option\s*#?\s*[a-d1-4]\b",
     "for you earlier question use option a but for date using normal input",
     "labelled/uicomponents__session-export.json ordinal 15"),
    ("pt-vamos",
     r"\bvamos\s+(?:usar|ignorar|seguir\s+com|manter|trocar|adotar|optar)\b",
     "Uma decisão importante, vamos ignorar os dois projetos existentes",
     "labelled/pfm-categorization__opencode-session.json ordinal 16"),
)

_COMPILED: Final = tuple((name, re.compile(pat, re.IGNORECASE | re.MULTILINE))
                         for name, pat, _, _ in USER_DECISION_ROWS)

_SENTENCE_END: Final = re.compile(r"[.!?\n]")
# a prompt longer than this is a task statement or a paste, not a choice
_MAX = 600


def user_decision(text: str) -> str | None:
    """The row naming why ``text`` (a user's prompt) sets the direction, else None."""
    if len(text) > _MAX or text.lstrip().startswith("<"):
        return None
    for name, rx in _COMPILED:
        for m in rx.finditer(text):
            end = _SENTENCE_END.search(text, m.end())
            if end is None or end.group() != "?":  # "should we use option a?" asks
                return name
    return None


# The agent's own words announcing a change of direction it has settled on (prose the
# classifier called a plan, an observation or a conclusion; a pivot or a dead end keeps its
# class).  Judged on every firing over shared+tune: 3 of 3 on a labelled decision; a row
# for "I'm doing X instead" was tried and dropped (1 of 2).
AGENT_DECISION_ROWS: Final[tuple[tuple[str, str, str, str], ...]] = (
    ("switching",
     r"\b(?:I|we)(?:['’]m|['’]re|\s+am|\s+are)\s+switching\b"
     r"|\b(?:I|we)(?:['’]ll|\s+will)\s+switch\s+(?:to|over)\b",
     "I’m switching the grant application target to the `Kosh AI` project.",
     "labelled/Trezo-Ai__codex-session.jsonl ordinal 78; labelled/Valdyum-Labs ordinal 21; "
     "labelled/soulpass ordinal 312"),
)

_AGENT: Final = tuple((name, re.compile(pat, re.IGNORECASE))
                      for name, pat, _, _ in AGENT_DECISION_ROWS)
_UPGRADES: Final = frozenset({None, "plan", "observation", "conclusion"})


def agent_decision(text: str, cls: str | None) -> str | None:
    """The row naming why the agent's ``text`` (classed ``cls``) states a decision, else
    None (a pivot or a dead end keeps its class: they outrank a decision)."""
    if cls not in _UPGRADES:
        return None
    for name, rx in _AGENT:
        if rx.search(text):
            return name
    return None


# The agent's tools whose answer is the user's choice: (name, tool, the answer's opening,
# a real answer, where).  Tool names as the readers store them (Claude Code's
# AskUserQuestion is opencode's ``question``, ExitPlanMode is ``exitplanmode``).
CHOICE_ROWS: Final[tuple[tuple[str, str, str, str, str], ...]] = (
    ("answered-question", "question", r"\AUser has answered your questions?:\s*",
     'User has answered your questions: "Which database file should I commit to GitHub?"='
     '"opencode.db"',
     "labelled/stunning-memory__opencode.db ordinal 34; labelled/will-it-rain__claude.jsonl "
     "line 9"),
    ("plan-approved", "exitplanmode", r"\AUser has approved your plan\b",
     "User has approved your plan. You can now start coding.",
     "labelled/will-it-rain__claude.jsonl ordinal 13 (line 33)"),
)

_CHOICES: Final = {tool: (name, re.compile(pat)) for name, tool, pat, _, _ in CHOICE_ROWS}
_TAIL = "You can now continue with the user's answers in mind"
"""What Claude Code appends to the answers (cut off, with its full stops; a string, not a
pattern: ``\\s*…\\Z`` searched is quadratic on a run of spaces)."""
_CHOICE_MAX = 4000


def choice_text(tool: str, status: str | None, output: str | None,
                plan: object = None) -> str | None:
    """What the user chose through an agent's tool (their answers to its questions, the plan
    they approved), as the text of a decision event; None when the call chose nothing
    (not completed, rejected, another tool)."""
    row = _CHOICES.get(tool.lower())
    if row is None or status != "completed" or not output:
        return None
    name, rx = row
    m = rx.match(output)
    if m is None:
        return None
    if name == "plan-approved":
        body = plan if isinstance(plan, str) and plan.strip() else output[m.end():]
        return ("Plan approved: " + body.strip())[:_CHOICE_MAX]
    return ("Chose: " + _without_tail(output[m.end():]).strip())[:_CHOICE_MAX]


def _without_tail(text: str) -> str:
    body = text.rstrip()
    body = body[:-1] if body.endswith(".") else body
    if not body.endswith(_TAIL):
        return text
    body = body[:-len(_TAIL)].rstrip()
    return body[:-1] if body.endswith(".") else body
