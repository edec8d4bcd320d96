"""Families of dead-end rules, and switching a family off to measure what it carries.

Every dead end names the rule that ended it (``via`` = ``rule:how``, see
:attr:`kb.graph.episodes.Found.rule`).  The rules fall into *families* by what they
read:

* ``structural``: the agent's calls and their results only (exit codes, error
  signatures, the agent's own failure records, its todo list, targets of runs and
  edits): a check that kept failing, a way replaced by another on the same target, the
  agent's own lines taken back by a later change of the same file (``taken_back``,
  :mod:`kb.graph.takenback`: edits only, no phrase);
* ``user-acts``: what the user *did*, read from structure (a refused or stopped call, a
  stopped turn, lines the agent takes back or undoes right after a user message);
* ``user-cues``: what the user *said*, read from short cues (a failure report, a reply
  that admits the user's correction, a request restated, a name set aside);
* ``prose``: the agent's own sentences (a dead-end phrase, a claim taken back, a guess
  dismissed, a hypothesis disproved or revised, a review's findings);
* ``delegated``: a sub-agent's own failure record;
* ``rewound``: a branch the user rewound away from.

``LOGKB_ABLATE=FAMILY[,FAMILY…]`` switches families off: their rules find nothing, so
what another rule finds on the same evidence is reported instead.  It exists for
``python -m bench ablate`` and its tests only (it is no user feature, and nothing but the
bench sets it): the knowledge base a switch derived must be derived again without it, so
a graph derived under it is stamped with another version (:func:`stamp`), which a read
without the same switch takes for outdated.
"""

from __future__ import annotations

import os

ENV = "LOGKB_ABLATE"
"""The environment variable naming the families switched off (comma separated)."""

FAMILIES: dict[str, tuple[str, ...]] = {
    "structural": ("attempt", "check", "api_error", "unfound", "replaced", "workaround",
                   "switched", "escalated", "dropped_option", "merged_stderr", "seen", "todo",
                   "taken_back"),
    "user-acts": ("rejected", "stopped", "reworked", "undone"),
    "user-cues": ("refuted", "admitted", "redirected", "user_dropped", "misread"),
    "prose": ("prose", "retracted", "claim", "superseded", "dropped", "guess", "damage",
              "disproved", "revised"),
    "delegated": ("delegated",),
    "rewound": ("rewound",),
}
"""Family: the rules in it (the ``rule`` of :class:`kb.graph.episodes.Found`, or the
first part of an approach's ``via``: ``prose:dead-end``, ``todo:cancelled``)."""

_FAMILY_OF = {rule: fam for fam, rules in FAMILIES.items() for rule in rules}


def family_of(rule: str) -> str:
    """The family of a rule (``via``'s first part); ``other`` for one no family names
    (an annotation)."""
    return _FAMILY_OF.get(rule.split(":", 1)[0], "other")


def switched_off() -> frozenset[str]:
    """The families ``LOGKB_ABLATE`` switches off (none unless a bench set it)."""
    raw = os.environ.get(ENV, "")
    return frozenset(x.strip() for x in raw.split(",") if x.strip())


def off(rule: str) -> bool:
    """Whether the family of ``rule`` is switched off."""
    gone = switched_off()
    return bool(gone) and family_of(rule) in gone


def stamp(version: int) -> int:
    """The extractor version to record for a graph derived now: ``version`` with every
    family on; with some off, a negative number naming them (``-(version * 64 + mask)``,
    one bit a family of :data:`FAMILIES`), so that a graph derived under a switch is never
    taken for one the full rules derived, nor for one another switch derived."""
    gone = switched_off()
    mask = sum(1 << n for n, fam in enumerate(FAMILIES) if fam in gone)
    return version if not mask else -(version * 64 + mask)
