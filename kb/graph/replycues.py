"""What an agent's reply says of its own work, as rows of short language-aware cues.

The episode rules of :mod:`kb.graph.episodes` read structure (a guess, then a finding with
nothing changed between; a claim of inability, then the user's answer, then the agent
doing it; a run, then a reply that reads it as having damaged the work).  What they need
from the words is small: that a sentence *guesses* at a cause, *states* the cause found,
*claims* the agent cannot do something, or reads a run as having *not worked* or having
*damaged* what it worked on.  These ideas are the same in every language the pool has
(English, Spanish, Portuguese, Chinese), so each is a table of rows, one or more per
language, each with a real line (or, where the pool has none yet, a line said so).

The rows read by the store's SQL (``HYPOTHESIS``, ``FOUND``, ``CANNOT``, ``JUDGED``)
are RE2 patterns as well as Python ones: no lookaround, and no ``\\b`` next to a letter
that may be outside ASCII (RE2's ``\\b`` is ASCII-only: ``funcionó\\b`` never matches
there).  ``tests/kb/test_replycues.py`` walks every row, in Python and in DuckDB.

Pure: no database, no IO.
"""

from __future__ import annotations

import re

from logparse.structural import Cue

_F = re.I

# ----------------------------------------------------------------- a guess at a cause
HYPOTHESIS_CUES: tuple[Cue, ...] = (
    Cue("en-might-be", re.compile(
        r"\b(?:the )?(?:issue|problem|cause|culprit|bug) (?:might|may|could) be\b", _F),
        "The HTML looks correct. The issue might be that Bootstrap 5's nav-underline styling "
        "requires some specific setup.",
        "k1.lib-bootstrap__session-export.json (opencode, shared) #575 (assistant)"),
    Cue("en-maybe-perhaps", re.compile(
        r"\bmaybe (?:the|there|it|this)\b|\bperhaps\b|\bI suspect\b"
        r"|\bI wonder (?:if|whether)\b", _F),
        "Let me check if maybe there's a CSS caching issue or maybe I should verify what the "
        "actual Bootstrap CSS does with nav-underline.",
        "k1.lib-bootstrap__session-export.json (opencode, shared) #579 (assistant)"),
    Cue("en-probably-likely", re.compile(
        r"\b(?:it|that|this)(?:'s|’s| is) (?:probably|likely|possibly)\b"
        r"|\bthe (?:issue|problem) is (?:likely|probably|possibly)\b", _F),
        "This is likely a JavaScript error that occurs when Bootstrap is trying to "
        "initialize the modal.",
        "k1.lib-bootstrap__session-export.json (opencode, shared) #482 (assistant)"),
    Cue("es-probablemente", re.compile(
        r"\b(?:eso|esto|el\s+problema|la\s+causa)\s+(?:muy\s+)?(?:probablemente|quiz[aá]s"
        r"|seguramente)|\b(?:el\s+problema|la\s+causa)\s+(?:puede|podr[ií]a)\s+ser\b"
        r"|\b(?:tal\s+vez|quiz[aá]s)\s+(?:el|la|sea|haya|est[eé])\s|\bsospecho\s+que\b", _F),
        "Eso probablemente está rompiendo la tokenización de spaCy.",
        "pool conversacion-act1-pln__session.jsonl (Claude Code, tune) (assistant, on the "
        "latin-1 file)"),
    Cue("pt-provavelmente", re.compile(
        r"\b(?:isso|isto|o\s+problema|a\s+causa)\s+(?:[eé]\s+)?(?:provavelmente|talvez)"
        r"|\b(?:o\s+problema|a\s+causa)\s+(?:pode|poderia)\s+ser\b"
        r"|\btalvez\s+(?:o|a|seja|haja|esteja)\s|\bsuspeito\s+que\b"
        r"|\bprovavelmente\s+(?:um|uma|o|a|seja)\s", _F),
        "Isso é uma inconsistência de organização de pastas vs. namespace — provavelmente "
        "um arquivo mal posicionado (deveria estar em `SyntheticData/`).",
        "pfm-categorization__opencode-session.json (opencode, shared) (assistant)"),
)
"""A sentence that guesses at a cause ("the issue might be …", "Eso probablemente está
rompiendo …", "可能是 …").  Read with :data:`FOUND_CUES` by
``kb.graph.episodes.guess_episodes`` (guesses a finding refutes) and
``dropped_episodes`` (a guess acted on, then dismissed)."""

# ----------------------------------------------------------------- the cause found
FOUND_CUES: tuple[Cue, ...] = (
    Cue("en-the-issue-is", re.compile(
        r"\bthe (?:real |actual |root )?(?:issue|problem|cause|culprit|bug) (?:was|is)\b", _F),
        "The issue is that inside the collapse section, there's a `use k1\\lib\\html\\button "
        "as btn;`",
        "k1.lib-bootstrap__session-export.json (opencode, shared) #114 (assistant)"),
    Cue("en-found-it", re.compile(
        r"\bfound (?:it|the (?:real |actual |root )?(?:issue|problem|cause|culprit|bug))\b"
        r"|\bturns out\b|\bI see the (?:issue|problem)\b", _F),
        "Found the issue! The demo has custom CSS that's overriding Bootstrap's nav styling:",
        "k1.lib-bootstrap__session-export.json (opencode, shared) #580 (assistant)"),
    Cue("es-lo-que-pasa", re.compile(
        r"\b(?:el|la)\s+(?:verdadero\s+|real\s+)?(?:problema|causa|error)\s+(?:es|era|est[aá])\s"
        r"|\blo\s+que\s+pasa\s+es\b|\bencontr[eé]\s+(?:el\s+problema|la\s+causa)"
        r"|\bresulta\s+que\b|\bya\s+veo\s+(?:el\s+problema|lo\s+que\s+pasa)", _F),
        "El archivo muy probablemente **es UTF-8**, no latin-1. Lo que pasa es:",
        "pool conversacion-act1-pln__session.jsonl (Claude Code, tune) (assistant)"),
    Cue("zh-found", re.compile(r"问题(?:在于|出在|是)|原因(?:是|在于)|找到(?:了)?(?:问题|原因)|原来是"),
        "关键问题是第 6 行：\n\n```toml\npost_hook = \"gsettings ... gtk-theme adw-gtk3-dark "
        "...\"\n```",
        "matugen-theme-sync__opencode-session.json (opencode, tune) #2 (the sub-agent's "
        "assessment the task returned)"),
)
"""A sentence that states the cause found.  Python also drops a match followed by
:data:`FOUND_NOT_AFTER` ("the issue is likely …", "the problem is now fixed")."""

FOUND_NOT_AFTER = re.compile(r"\A\s*(?:likely|probably|possibly|that we|how|now|fixed|solved"
                             r"|resolved|gone)\b", re.I)
"""After a finding's words: not a cause stated (a guess, or news that it is fixed)."""
FOUND_GUARDED = frozenset({"en-the-issue-is", "es-lo-que-pasa"})
"""The rows of :data:`FOUND_CUES` that :data:`FOUND_NOT_AFTER` guards ("the issue is
likely …"; not "I see the issue now")."""

# ----------------------------------------------------------------- a claim of inability
CANNOT_CUES: tuple[Cue, ...] = (
    Cue("en-i-cannot", re.compile(
        r"\b(?:I can'?t|I cannot|I'?m unable to|I am unable to|I'?m not able to"
        r"|I don'?t have (?:access|the ability|a way))\b", _F),
        "I can't run `opencode export` from here — it's a CLI command you'd run in your own "
        "terminal",
        "uicomponents__session-export.json (opencode, shared) #53 (assistant; its mojibake dash "
        "written as —)"),
)
"""A claim of inability ("I can't run `opencode export` from here").  Python drops one
about perceiving (:data:`CANNOT_NOT_AFTER`): that one is no claim a run can refute."""

CANNOT_NOT_AFTER = re.compile(
    r"\A\s*(?:\w+\s+)?(?:read|see|view|open|browse|verify|watch|display|visually|tell|know"
    r"|find|guarantee|just|easily|be\s+sure|ver|leer|saber|garantizar|asegurar|ler|abrir"
    r"|visualizar|看到|看|查看|读取|确定|保证)(?:\W|$)", re.I)

# ----------------------------------------------------------------- a run read as failed
JUDGED_CUES: tuple[Cue, ...] = (
    Cue("en-none-worked", re.compile(
        r"\bnone of (?:the |my |these |those |them\b)?(?:\w+ ){0,2}?(?:worked|succeeded"
        r"|matched|helped|did anything)\b|\bneither (?:\w+ ){0,3}?(?:worked|succeeded)\b"
        r"|\bno luck\b", _F),
        "None of the common passwords worked.",
        "uicomponents__session-wordpress.json (opencode, shared) #235 (assistant, after the "
        "loop of login attempts exited 0)"),
    Cue("en-way-too-small", re.compile(
        r"\b(?:way|much|far) too (?:small|short)\b|\b(?:that|this|it) (?:seems|looks)"
        r" (?:wrong|off|broken)\b", _F),
        "The content length is only 356 chars - that's way too short.",
        "uicomponents__session-wordpress.json (opencode, shared) #81 (assistant, after "
        "`studio wp post get` exited 0; #86 'That seems wrong.', #388 'way too small')"),
)
"""The reply after a run that reads it as not having done what it should: the English
readings no other reply rule shares (the rest: ``kb.graph.extract.JUDGED_FAILED``, whose
words the other rules of the reply share), and the other languages."""

# ----------------------------------------------------------------- a run that damaged the work
DESTROYED_CUES: tuple[Cue, ...] = (
    Cue("en-mangled", re.compile(
        r"\b(?:mangled|corrupted|wiped|garbled|clobbered|destroyed|blanked|lost|overwritten)\b"
        r"|\b(?:removed|deleted|stripped|cut|replaced)\s+(?:way\s+)?too\s+much\b", _F),
        "The content got mangled.",
        "uicomponents__session-wordpress.json (opencode, shared) #85 (assistant, after the "
        "fix_page.php run)"),
)
"""A reply's words for a run that damaged what it worked on ("mangled", "overwritten";
"deleted" or "emptied" alone are said as often of what the agent meant to do)."""


# ----------------------------------------------------------------- keyword gates
GATES: dict[str, tuple[str, ...]] = {
    # FOUND_CUES: every match holds one of these (lower-cased)
    "en-the-issue-is": ("issue", "problem", "caus", "culprit", "bug"),
    "en-found-it": ("found", "turns out", "issue", "problem"),
    "es-lo-que-pasa": ("problem", "caus", "erro", "pasa", "resulta"),
    "zh-found": ("问题", "原因", "原来是"),
    # CANNOT_CUES
    "en-i-cannot": ("i can", "unable", "not able", "i don"),
}
"""For the rows read most often (a sentence of every reply, every claim), words that
every match of the row holds, lower-cased: a text holding none of them is not scanned
(the row's regex would find nothing).  ``tests/kb/test_replycues.py`` checks each row's
example holds one."""

_FOLDS_TO_ASCII = frozenset("\u017f\u212a\u0130\u0131")
"""Letters ``re.IGNORECASE`` matches to an ASCII one that ``str.lower`` does not lower to
it (long s, the Kelvin sign, dotted and dotless i): a text holding one is not gated."""


def _gates(text: str) -> str | None:
    """``text`` lower-cased for the gates, or None when they may not be trusted."""
    if not text.isascii() and not _FOLDS_TO_ASCII.isdisjoint(text):
        return None
    return text.lower()


def joined(cues: tuple[Cue, ...]) -> str:
    """The rows as one alternation (an RE2 pattern for the store's SQL)."""
    return "|".join(f"(?:{c.pattern.pattern})" for c in cues)


_GUARD_WINDOW = 200
"""How far after a cue its guard reads."""


def first_match(cues: tuple[Cue, ...], text: str, not_after: re.Pattern[str] | None = None,
                guarded: frozenset[str] | None = None) -> re.Match[str] | None:
    """The earliest match of any row in ``text``, skipping one that ``not_after``
    matches right after (only for the rows named in ``guarded``, when given)."""
    best: re.Match[str] | None = None
    low = _gates(text)
    for cue in cues:
        keys = GATES.get(cue.name)
        if keys is not None and low is not None and not any(k in low for k in keys):
            continue  # no word every match holds: nothing to find
        guard = not_after if guarded is None or cue.name in guarded else None
        for m in cue.pattern.finditer(text):
            # the guard reads the words right after the cue (anchored ``\A`` on a window:
            # a pattern starting ``\s*`` is quadratic wherever it is searched)
            if guard is not None and guard.match(text[m.end():m.end() + _GUARD_WINDOW]):
                continue
            if best is None or m.start() < best.start():
                best = m
            break
    return best
