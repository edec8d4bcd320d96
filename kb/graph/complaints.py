"""One user report, several complaints: which of a turn's changes each complaint is about.

A user often answers a turn that fixed several things with one message that says several of
them still do not work ("keep all of them centred, now some are not and the buttons still
dont show ui … and bg still overflows").  Each complaint refutes the change made for it:
one dead end per complaint, not one for the message.

A report is cut into complaints by the rows of :data:`SPLITS` (numbered or bulleted items,
sentences, clauses joined by "and"), each with a real example;
``tests/kb/test_complaints.py`` walks them.  A complaint is about a change when it shares
a *distinctive* word with what the change wrote, took away or touched: a word of at least
:data:`MIN_WORD` letters that no more than half of the turn's changes share (``overflow``
names the one edit that wrote ``overflow-hidden``; ``bg`` names every Tailwind edit).  A
complaint that names no change stays with the rest of the turn.

Pure: texts and token sets in, groups of ordinals out (:mod:`kb.graph.episodes` makes
the dead ends).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from kb.graph.text import tokens
from logparse.sentences import SENTENCE_BREAK


@dataclass(frozen=True)
class SplitRule:
    """Where one complaint of a user message ends and the next begins."""

    name: str
    pattern: re.Pattern[str]
    """Matches the boundary between two complaints (what it matches is dropped)."""
    example: tuple[str, int]
    """A real user message (trimmed) and how many parts this row alone cuts it into."""
    source: str


SPLITS: tuple[SplitRule, ...] = (
    SplitRule(
        "numbered or bulleted items",
        re.compile(r"(?:^|(?<!\s)[^\S\n]*\n)\s*(?:\d{1,2}[.)]|[-*•])\s+"),
        ("couple updates on q2 before q3:\n\n1. no more \"DEX Trades\" tab on etherscan. "
         "replace the \"DEX Trades\" section in the README with \"Token Transfers (ERC-20)\"."
         "\n2. reframe the 3 sections as three different angles on the same swap, NOT "
         "redundant decoders", 3),
        "pool blockchain-dex-events__claude-session.jsonl (user, Q2 README)"),
    SplitRule(
        "sentences and lines",
        SENTENCE_BREAK,
        ("what did u do. now its the same as before aurora goes till the end of home page "
         "and buttons also dont work.limit aurora bg to only above the navbar and fix it.", 2),
        "uicomponents__session-export.json #166 (user)"),
    SplitRule(
        "clauses joined by 'and'",
        re.compile(r",?(?<!\s)\s+and\s+(?=\S)", re.I),
        ("section titles are good but keep all of them centred, now some are not and the "
         "buttons still dont show ui for those categoires and arent clickable and bg still "
         "overflows limit it on homepage till the navbar", 4),
        "uicomponents__session-export.json #192 (user)"),
)
"""The cuts, coarsest first: every part one row leaves is cut again by the next."""

MIN_WORD = 4
"""Letters of a word that can name a change (``bg``, ``ui``, ``px`` name nothing)."""
MAX_PARTS = 12
"""Complaints read of one message at most (a pasted log is no list of complaints)."""


def complaints(text: str) -> list[str]:
    """The complaints of a user message: its parts by every row of :data:`SPLITS`, the
    empty ones left out."""
    parts = [text[:3000]]
    for rule in SPLITS:
        parts = [p for part in parts for p in rule.pattern.split(part)]
    out = [p.strip(" \t,;:") for p in parts]
    return [p for p in out if p][:MAX_PARTS]


def by_complaint(text: str, changes: Sequence[tuple[int, frozenset[str]]]
                 ) -> list[tuple[str, list[int]]]:
    """The changes of a turn (``(ordinal, tokens)``) each complaint of a report is about:
    ``(complaint, ordinals)`` for the complaints that name some change by a distinctive
    word, each change given to the one complaint that names it (named by two, it stays
    with the rest).  ``[]`` when the report is one complaint, or when fewer than two
    groups would come of it (the complaints named together all the turn did)."""
    parts = complaints(text)
    if len(parts) < 2 or len(changes) < 2:
        return []
    seen = Counter(t for _, toks in changes for t in toks)
    most = max(1, len(changes) // 2)
    words = [{t for t in tokens(part) if len(t) >= MIN_WORD and not t.isdigit()}
             for part in parts]
    named: dict[int, list[int]] = {}  # change → the complaints that name it
    for o, toks in changes:
        named[o] = [i for i, w in enumerate(words) if any(seen[t] <= most for t in w & toks)]
    groups: list[tuple[str, list[int]]] = []
    for i, part in enumerate(parts):
        # a change two complaints name (a rewrite that touched titles and buttons) is
        # about neither alone: it stays with the rest of the turn
        mine = [o for o, _ in changes if named[o] == [i]]
        if mine:
            groups.append((part, mine))
    rest = [o for o, _ in changes if len(named[o]) != 1]
    if len(groups) + (1 if rest else 0) < 2:
        return []
    return groups
