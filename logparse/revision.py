"""How an agent takes back what it said: the sentences, pure, any agent.

Two shapes, read from the prose and reasoning every reader stores as ``decision`` events
(Claude Code ``thinking``, Codex ``reasoning`` summaries, opencode ``reasoning`` parts,
Gemini CLI ``thoughts``, pi ``thinking``, Antigravity planner text; encrypted reasoning
has no text and says nothing here):

* **reversed**: in one block the agent states a limiting belief ("the database only
  stores current ratings without historical data, so I'll skip that visualization"),
  then a later sentence of the same block opens with a row of :data:`REVERSALS` that
  turns it round ("Actually, I can reconstruct rating history from the game_players
  table since each game records pre_rating and post_rating values").  The two share
  what they are about (two words or a name), the claim limits (:data:`LIMITING`) and the
  revision names something concrete (:func:`names`: a backticked span, a snake_case,
  dotted or path-like name) that :mod:`kb.graph.revised` checks against the calls.
* **reread**: a sentence of the agent quotes a quantity (``Only 391 bytes length,
  which is way too small.``); a later sentence names the same quantity again with a
  row of :data:`REREADS`, a reason it was read wrong ("The output had 391 length earlier
  because the grep/stats were counting something differently.").

The cause of either is the reason the revision gives (:func:`reason`: the ``since`` /
``because`` / ``the real problem is`` clause), else the revision itself.

Rows only where the data holds a real case: the pool's Spanish, Portuguese and Chinese
sessions have no reasoning that revises itself in these shapes, so no row of theirs is
here (a row with no real example is a guess).  ``tests/logparse/test_revision.py`` walks
the rows.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from logparse.patternrow import PatternRow
from logparse.sentences import claim_sentences

__all__ = ["LIMITING", "REREADS", "REVERSALS", "REVISES_SQL", "QUOTES_SQL", "Cue",
           "Reversal", "names", "quantities", "reason", "reread", "reversals", "sentences",
           "stems"]


@dataclass(frozen=True)
class Cue(PatternRow):
    """A sentence that takes back what the agent said, in one language."""

    name: str
    lang: str
    pattern: str
    """Python regex; ``sql`` is the looser RE2 form the store filters with."""
    sql: str
    example: str
    """A real sentence of an agent the pattern matches (trimmed)."""
    source: str


REVERSALS: tuple[Cue, ...] = (
    Cue("actually-can", "en",
        r"^\W*actually,?\s+(?:I|we|you|it|this|that|there|the [\w-]+)(?:\s+\w+)?\s+"
        r"(?:can|could|does|do|has|have)(?![\w'’])(?!\s+not\b)",
        r"\bactually,?\s+(?:I|we|you|it|this|that|there|the [\w-]+)(?:\s+\w+)?\s+"
        r"(?:can|could|does|do|has|have)\b",
        "Actually, I can reconstruct rating history from the game_players table since "
        "each game records pre_rating and post_rating values.",
        "pool civ6.ch__session.jsonl:53 (ordinal 22, pi thinking)"),
)
"""A sentence that turns a limiting belief of the same block round: what was not
possible, not there or not done is (the claim before it must limit, :data:`LIMITING`)."""

REREADS: tuple[Cue, ...] = (
    Cue("earlier-because", "en",
        r"\b(?:earlier|before|previously)\b[^.;]{0,40}\bbecause\b",
        r"\b(?:earlier|before|previously)\b[^.;]{0,40}\bbecause\b",
        "The output had 391 length earlier because the grep/stats were counting something "
        "differently.",
        "labelled/uicomponents__session-wordpress.json (ordinal 391, reasoning)"),
    Cue("misread", "en",
        r"\b(?:I|we)\s+(?:\w+\s+)?(?:misread|misinterpreted|misunderstood)\b",
        r"\b(?:I|we)\s+(?:\w+\s+)?(?:misread|misinterpreted|misunderstood)\b",
        "Wait, I think I misread the layout.",
        "labelled/uicomponents__session-export.json (ordinal 194, reasoning)"),
)
"""A sentence that says why a value quoted earlier was read wrong."""

LIMITING = re.compile(
    r"\b(?:not|no|never|only|without|cannot|can't|can’t|couldn't|doesn't|don't|isn't|"
    r"aren't|won't|skip|lacks?|missing|none|unavailable)\b|n[’']t\b", re.I)
"""A claim that limits: something is not possible, not there, only partly there, or is
skipped (``only stores current ratings without historical data, so I'll skip``)."""

_QUANTITY = re.compile(
    r"(?<![\w.])(\d{2,}(?:\.\d+)?)\s*(?:bytes?|kb|mb|chars?|characters?|length|lines?|rows?"
    r"|items?|results?|files?|ms|errors?|tests?)\b", re.I)
"""A number the agent read with its unit (``391 bytes``, ``424 length``)."""
QUOTES_SQL = (r"(?i)\d\d\s*(?:bytes?|kb|mb|chars?|characters?|length|lines?|rows?|items?"
              r"|results?|files?|ms|errors?|tests?)\b")
"""The store's filter of the replies that may quote a quantity (RE2)."""
REVISES_SQL = "(?i)" + "|".join(f"(?:{c.sql})" for c in REVERSALS + REREADS)
"""The store's filter of the replies that may revise (RE2: no look-around)."""

HEAD = 6000
"""Characters of a block read."""
_PLAN = re.compile(r"^\W*(?:let me|let[’']s|now (?:i|let)|first|next|i need to|i should"
                   r"|actually,? let)\b", re.I)
"""A sentence that tells what the agent does next: it plans, it claims nothing."""
_IF = re.compile(r"^\W*(?:if|unless|when|whether)\b", re.I)
_NAME = re.compile(r"`([^`\n]{3,60})`|(?<![\w$])([A-Za-z_$][\w$]*(?:[_./\\:-][\w$]+)+)")
_WORD = re.compile(r"[^\W\d_]{5,}")
_STOP = frozenset("""about above after again against because before being below between
could doesn't during every having their there these those through under until where
which while would should actually already really simply thing things still other think
maybe probably issue problem realizing realize""".split())
_REASON = re.compile(r"\b(?:since|because|given that)\s+(.{12,}?)(?=[.;!?](?:\s|$)|$)"
                     r"|\bthe (?:real|actual) (?:problem|issue|cause) (?:is|was)\s+"
                     r"(.{8,}?)(?=[.;!?](?:\s|$)|$)", re.I)
CLAIM_BACK = 6
"""Sentences before a revision read for the claim it turns round."""
SHARED = 2
"""Words or names a claim and its revision must share (one shared word is chance)."""


def sentences(text: str) -> list[str]:
    """The sentences of a block (bullets and emphasis stripped), the short ones dropped."""
    return claim_sentences(text, HEAD)


def _asserts(s: str) -> bool:
    return not (_PLAN.match(s) or _IF.match(s) or s.rstrip().endswith("?"))


def names(text: str) -> frozenset[str]:
    """The concrete names a sentence holds: backticked spans, snake_case, dotted or
    path-like names (``game_players``, ``pre_rating``), lowercased."""
    out = set()
    for m in _NAME.finditer(text):
        name = (m.group(1) or m.group(2) or "").strip(". ").lower()
        if len(name) >= 4:
            out.add(name)
    return frozenset(out)


def stems(text: str) -> frozenset[str]:
    """The words of five letters or more, cut to five (``ratings``/``rating`` agree)."""
    return frozenset(w.lower()[:5] for w in _WORD.findall(text) if w.lower() not in _STOP)


def reason(revision: str) -> str:
    """The reason a revision gives (its ``since`` / ``because`` / ``the real problem
    is`` clause), else the revision itself."""
    m = _REASON.search(revision)
    if m is None:
        return revision.strip()
    return (m.group(1) or m.group(2) or "").strip().rstrip(".")


@dataclass(frozen=True)
class Reversal:
    """A claim of a block and the later sentence of the same block that turns it round."""

    cue: str
    claim: str
    revision: str
    names: frozenset[str]
    """The concrete names the revision holds (what the calls around it may touch)."""
    subject: frozenset[str]
    """What claim and revision share."""


def reversal_cue(sentence: str) -> Cue | None:
    """The row of :data:`REVERSALS` a sentence opens with, else ``None``."""
    return next((c for c in REVERSALS if c.regex.search(sentence)), None)


@lru_cache(maxsize=4096)
def reversals(text: str) -> tuple[Reversal, ...]:
    """The claims of a block that a later sentence of it turns round (see the module's
    docstring): the claim asserts and limits, the revision names something concrete, and
    the two share :data:`SHARED` words or names."""
    ss = sentences(text)
    out = []
    for i, s in enumerate(ss):
        cue = reversal_cue(s)
        if cue is None:
            continue
        revision = " ".join(ss[i:i + 2])
        named = names(revision)
        if not named:
            continue
        about = stems(revision) | named
        for claim in reversed(ss[max(0, i - CLAIM_BACK):i]):
            if not _asserts(claim) or not LIMITING.search(claim) or reversal_cue(claim):
                continue
            shared = (stems(claim) | names(claim)) & about
            if len(shared) >= SHARED:
                out.append(Reversal(cue.name, claim, revision, named, frozenset(shared)))
                break
    return tuple(out)


def quantities(sentence: str) -> frozenset[str]:
    """The numbers a sentence quotes with a unit (``391`` of ``391 bytes length``)."""
    return frozenset(m.group(1) for m in _QUANTITY.finditer(sentence))


@lru_cache(maxsize=4096)
def quoted(text: str) -> tuple[tuple[str, str], ...]:
    """``(value, sentence)`` for every quantity a block's asserting sentences quote."""
    return tuple((v, s) for s in sentences(text) if _asserts(s) for v in sorted(quantities(s)))


def reread(text: str, value: str) -> tuple[Cue, str] | None:
    """The sentence of a block that names ``value`` again with a row of :data:`REREADS`
    (a reason it was read wrong), and the row; else ``None``."""
    at = re.compile(rf"(?<![\w.]){re.escape(value)}(?![\w.])")
    for s in sentences(text):
        if not at.search(s):
            continue
        cue = next((c for c in REREADS if c.regex.search(s)), None)
        if cue is not None:
            return cue, s
    return None
