"""Iteration, not correction: the structure that tells a user building on the agent's work
from a user sending it back.

Users iterate: a new requirement, a refinement, "continue".  The episode rules of
:mod:`kb.graph.episodes` read a dead end where the work of a turn was given up (the user
said it is wrong and the agent took its lines back) and must not read one where the work
stayed and grew.  What tells them apart here is structure, not phrases:

* **kept lines** (:func:`extends`, :func:`taken_away`): an edit that takes a line of the
  agent's own earlier writing away and writes it back with more on it (``const lines =
  [title, morningText, …]`` → ``const lines = [title, dailyLine, morningText, …]``) kept that
  line: the earlier change is still in the file;
* **tests follow the code** (:data:`TEST_PATHS`): expectations rewritten in a test file
  record a change of behaviour made elsewhere; alone they send nothing back;
* **a whole file written again** (:data:`REWRITE_KEEPS`): a rewrite that keeps nearly all
  of the agent's own lines is a revision of that file, not its replacement;
* **turns that only looked** (:data:`LOOK_ONLY`): a turn whose runs only inspected (``git
  status``, ``git log``, ``ls``) made nothing a report could find broken: only its answer,
  which the user contradicts by speaking of what was asked;
* **a provider pause** (:data:`TRANSIENT_API_ERRORS`): a quota or overload that answered a
  request before any work began cut no line of work (the request stays an open question);
* **shared words** (:data:`FUNCTION_WORDS`): a report is about the request before it when
  they share a word that names something, not "not" or "maybe".

Every table row carries a real example (trimmed), walked by ``tests/kb/test_iteration.py``.
Pure: no database, no UI.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from difflib import SequenceMatcher
from typing import NamedTuple

# ----------------------------------------------------------------- kept lines
KEEP = 0.9
"""Share of an old line's characters, in order, that a written line must hold for the old
line to have been kept (extended) rather than taken away."""


HEAD = 16
"""Characters at the start of a line an extension keeps as they were: more goes into the
statement (``[title, dailyLine, …]``), it is not wrapped into another one
(``"https://polygon-rpc.com/"`` → ``ENV.fetch("POLYGON_RPC_URL", "https://…")`` changes
what the line does)."""


def extends(old: str, new: str) -> bool:
    """Whether ``new`` is ``old`` with more written into it: it starts as ``old`` does
    (:data:`HEAD`), at least :data:`KEEP` of ``old``'s characters survive in order, and
    ``new`` is no shorter."""
    if len(new) < len(old) or not old or new[:HEAD] != old[:HEAD]:
        return False
    sm = SequenceMatcher(None, old, new, autojunk=False)
    if sm.real_quick_ratio() * (len(old) + len(new)) < 2 * KEEP * len(old):
        return False
    return sum(b.size for b in sm.get_matching_blocks()) >= KEEP * len(old)


def taken_away(lines: Iterable[str], wrote: Iterable[str]) -> set[str]:
    """Of ``lines`` an edit took away, those it did not write back extended.

    :func:`extends` pair by pair, but only over pairs that open alike (:data:`HEAD`),
    with each written line's index built once (a rewrite of a thousand indented lines
    compared them all, a matcher built for each pair) and a pair skipped when its
    characters alone could not hold :data:`KEEP` of the old line."""
    gone = set(lines)
    by_head: dict[str, list[str]] = {}
    for x in gone:
        if x:
            by_head.setdefault(x[:HEAD], []).append(x)
    sm = SequenceMatcher(None, autojunk=False)
    for w in {w for w in wrote if w}:
        olds = [x for x in by_head.get(w[:HEAD], ()) if x in gone and len(x) <= len(w)]
        if not olds:
            continue
        sm.set_seq2(w)
        for x in olds:
            sm.set_seq1(x)
            # quick_ratio: the characters the two share, an upper bound of what matches
            if sm.quick_ratio() * (len(x) + len(w)) >= 2 * KEEP * len(x) and \
                    sum(b.size for b in sm.get_matching_blocks()) >= KEEP * len(x):
                gone.discard(x)
    return gone


# ----------------------------------------------------------------- tests follow the code
class PathRule(NamedTuple):
    name: str
    pattern: re.Pattern[str]
    example: str
    """A real path (trimmed) the rule matches."""
    source: str


TEST_PATHS: tuple[PathRule, ...] = (
    PathRule("js-test-suffix", re.compile(r"\.(?:test|spec)\.[cm]?[jt]sx?$", re.I),
             "tests/discord.test.ts", "will-it-rain__claude.jsonl:426 (Write, ordinal 107)"),
    PathRule("tests-dir", re.compile(r"(?:^|/)(?:tests?|__tests__|spec)/", re.I),
             "tests/weather.test.ts", "will-it-rain__claude.jsonl:431 (Edit, ordinal 109)"),
    PathRule("python-test", re.compile(r"(?:^|/)test_\w+\.py$|_test\.py$", re.I),
             "tests/logparse/test_structural.py", "logkb's own tree (convention of pytest)"),
)
"""Paths of test files: their expectations follow the code they test."""


def is_test_path(path: str) -> bool:
    p = path.replace("\\", "/")
    return any(r.pattern.search(p) for r in TEST_PATHS)


# ----------------------------------------------------------------- whole rewrites
REWRITE_KEEPS = 0.9
"""A whole file written again that keeps this share of the agent's own earlier lines of it
revised that file (``widgets.css`` rewritten with 203 of its 222 lines: light-mode colours
dropped on request); less, and the file was replaced."""


# ----------------------------------------------------------------- turns that only looked
class Look(NamedTuple):
    name: str
    pattern: re.Pattern[str]
    """Matches a check key (:func:`kb.graph.episodes.check_key`)."""
    example: str
    source: str


LOOK_ONLY: tuple[Look, ...] = (
    Look("git-read", re.compile(r"^git (?:status|log|diff|show|branch|remote|rev-parse|"
                                r"ls-files|blame|describe|shortlog|reflog)\b"),
         "git log", "k1.lib-bootstrap__session-export.json (bash `git log --oneline -3`, 439)"),
    Look("listing", re.compile(r"^(?:ls|dir|pwd|tree|which|where|get-childitem|gci|"
                               r"test-path|stat|wc|du|df)\b"),
         "test-path", "uicomponents__session-wordpress.json (bash `Test-Path -LiteralPath`, "
                      "134)"),
    Look("reading", re.compile(r"^(?:cat|head|tail|less|more|get-content|type|grep|rg|"
                               r"select-string|findstr|find)\b"),
         "cat permissions.swift", "speakfree__session.jsonl (Bash `cat …/Permissions.swift`, "
                                  "86)"),
    Look("processes", re.compile(r"^(?:lsof|ps|pgrep|pidof|netstat|ss|get-process|tasklist)\b"),
         "lsof", "soulpass__codex-session.jsonl (exec `lsof -nP -iTCP:3000 -sTCP:LISTEN`, 152)"),
    Look("status", re.compile(r"^[\w.-]+ status\b"),
         "studio status", "uicomponents__session-wordpress.json (bash `studio status "
                          "--path=…`, 185)"),
)
"""Checks that only look at the state (they answer, they change and test nothing)."""


def looks_only(key: str) -> bool:
    return any(r.pattern.search(key) for r in LOOK_ONLY)


# ----------------------------------------------------------------- provider pauses
class ApiErrorKind(NamedTuple):
    name: str
    kind: str
    """``quota`` (an overload would be another kind, once a real line shows one): errors
    that pass with time, not with another approach."""
    pattern: re.Pattern[str]
    example: str
    source: str


TRANSIENT_API_ERRORS: tuple[ApiErrorKind, ...] = (
    ApiErrorKind("claude-usage-limit", "quota",
                 re.compile(r"hit your (?:usage )?limit|usage limit|rate[ _-]?limit"
                            r"|\b429\b|quota (?:exceeded|exhausted)", re.I),
                 "You've hit your limit · resets 7pm (America/Mendoza)",
                 "pool conversacion-act1-pln__session.jsonl (assistant API error, 170); also "
                 "will-it-rain__claude.jsonl (162)"),
)
"""Provider errors that a wait cures.  An error that says the request can never work as
made (an unknown model, a plan without that model) is no pause: it is not listed here."""


def transient_api_error(text: str) -> str | None:
    """The kind of a provider error that passes with time, else ``None``."""
    for k in TRANSIENT_API_ERRORS:
        if k.pattern.search(text[:600]):
            return k.kind
    return None


# ----------------------------------------------------------------- shared words
IDENTIFIER = re.compile(r"(?<![\w$])[A-Za-z_$][\w$]*?(?:_[A-Za-z0-9]\w*|[a-z0-9][A-Z]\w*)")
"""A name from code: snake_case or camelCase (``prepend_child``, ``setHeading``).  A report
that names one the turn's changes wrote speaks of that work ("prepend_child DO not exist"
after ``$this->prepend_child($heading)`` went into alert.php), whatever else it says."""


def identifiers(text: str) -> set[str]:
    """The code names (:data:`IDENTIFIER`) of a text, lowercased, ``$`` dropped."""
    return {m.group().lstrip("$").lower() for m in IDENTIFIER.finditer(text[:4000])}


FUNCTION_WORDS = frozenset("""
not no nor but if so maybe perhaps could would should can may might will shall must need
needs want wants get gets got getting have has had having be been being was were am
there here what which who whom whose when where why how all each every both few more most
other such own same very too also just only then than now please pls ok okay yes yeah
something anything nothing everything one ones thing things way better good well really
que de la el en los las un una por para con es lo se del al como pero mas más ya si
""".split())
"""Words too general to tie a report to the request before it ("model is not working,
maybe …" shares only "not" and "maybe" with "please remove MENU …, it seems is not …")."""
