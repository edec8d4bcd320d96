"""Which text of an episode is its cause, when the first candidate says nothing of why.

Two mistakes the cause rules made on real sessions, each answered by structure first:

* **A user message that only tells the agent to go on** ("claude continua" after the
  user stopped the turn) was quoted as the cause of the stopped work.  :data:`GO_ON`
  says which openings of a user message only say "go on" (per language, each with a
  real example); :func:`what_user_said` takes them away, and an empty rest says
  nothing: the stop itself is the cause.
* **A user message about another target** ended a change ("about the look of
  index.php, …" after a fix of ``card.php``; "you said the source is … nav.mdx (do not
  exist)" after a fix of ``nav.php``) and was quoted as the cause, while the agent had
  stated the root of its own change in the same messages ("The issue was that in the
  card constructor, the body div was created but never appended").  When the user's
  message names files and none of the change's, :func:`own_root` returns that
  statement; :data:`OTHER_TARGET` holds the real cases.
* **A finding that ended a round of guesses, and the agent went on guessing** ("I see
  the issue. … The issue is that the inner HTML content is not being rendered properly.",
  then "The problem might be …", "Maybe the issue is …" for forty more messages, until
  "The issue was that calling `set_id('demoModal')` after construction …") was quoted as
  the cause of the guessing.  A guess after a finding, in the same turn, makes the
  finding one more guess: :func:`concluded_finding` returns the finding the turn ends
  on (:data:`CONCLUDED` holds the real case).

``tests/kb/test_causechoice.py`` walks the tables.  Pure: no IO.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

from kb.graph.rootcause import NAMING, Later, plain, stated_roots, unnarrated
from kb.graph.text import short, tokens
from logparse.patternrow import PatternRow


@dataclass(frozen=True)
class GoOn(PatternRow):
    """An opening of a user message that only tells the agent to go on."""

    name: str
    lang: str
    pattern: str
    """Matched at the start of the message."""
    example: str
    """A real user message (trimmed) that opens with it."""
    rest: str
    """What :func:`what_user_said` leaves of the example."""
    source: str


_ADDRESSEE = r"(?:(?:claude|codex|gemini|opencode)\s*[,:]?\s+)?"
"""The agent's name before the cue ("claude continua")."""

GO_ON: tuple[GoOn, ...] = (
    GoOn("continua", "es", _ADDRESSEE + r"(?:contin[uú]a|continuar|sigue|segu[ií])\b[\s.,!:;-]*",
         "claude continua", "",
         "pool/conversacion-act1-pln__session.jsonl line 305 (after «[Request interrupted "
         "by user]» at line 303, during WebFetch calls)"),
    GoOn("continue", "en", _ADDRESSEE + r"(?:continue|go on|keep going|carry on|proceed)\b"
         r"[\s.,!:;-]*",
         "continue the site doesnt work", "the site doesnt work",
         "labelled/uicomponents__session-wordpress.json #186 (after a `studio status` run "
         "the user aborted)"),
)
"""Openings that only say "go on"; what follows them is what the user said."""


def what_user_said(text: str) -> str:
    """A user message without an opening of :data:`GO_ON`: "" when it only says go on."""
    t = " ".join(text.split())
    for row in GO_ON:
        m = row.regex.match(t)
        if m:
            return t[m.end():].strip()
    return t


_FILE = re.compile(
    r"(?<![\w/.-])(?:[\w.-]*/)*([\w-][\w.-]*\.(?:php|py|ipynb|tsx?|jsx?|mjs|cjs|mdx?|json"
    r"|css|scss|html?|rs|go|rb|java|kt|swift|c|h|cc|cpp|hpp|cs|vue|svelte|ya?ml|toml|sh"
    r"|ps1|sql|lua|ex|exs|dart))\b", re.I)
"""A file named in a text (its base name)."""


def files_named(text: str) -> frozenset[str]:
    """The base names of the files a text names, lowercased."""
    return frozenset(m.group(1).lower() for m in _FILE.finditer(text))


@dataclass(frozen=True)
class OtherTarget:
    """A change the user's next message does not speak of, and the root the agent
    stated about the change before it."""

    name: str
    files: tuple[str, ...]
    """The files the change touched."""
    user: str
    """The user's message that ended it (trimmed)."""
    said: tuple[str, ...]
    """The agent's messages between the change and the user's message (trimmed)."""
    root: str
    """The start of what :func:`own_root` returns."""
    source: str


OTHER_TARGET: tuple[OtherTarget, ...] = (
    OtherTarget(
        "card-body", ("src/klan1/html/bootstrap/card.php",),
        "about the look of index.php, I would like to be nice, but now is too colorful, I "
        "wuold like to repect the bootstrap standars and bse colors",
        ("Now let me commit and push the fix.",
         "Done. The issue was that in the card constructor, the body div was created but "
         "never appended to the card. Fixed by adding `$this->append_child($this->body);` "
         "in the constructor."),
        "The issue was that in the card constructor, the body div was created",
        "labelled/k1.lib-bootstrap__session-export.json #379 (edit of card.php), #382, "
        "#383 (the user)"),
    OtherTarget(
        "nav-append-li", ("src/klan1/html/bootstrap/nav.php",),
        "ok is looking good, but : you said that the source is : https://github.com/twbs/"
        "bootstrap/blob/v5.3.8/site/src/content/docs/components/nav.mdx (do not exist) and "
        "is : https://github.com/twbs/bootstrap/blob/v5.3.8/site/src/content/docs/components/"
        "navs-tabs.mdx",
        ("Fixed. The issue was in `nav.php` - it was passing `'nav-item'` as the **value** "
         "(inner text) instead of as the **class**. The first parameter of `append_li()` is "
         "the value, second is class.",
         "Fixed. The issue was that `append_li('nav-item')` was treating 'nav-item' as the "
         "text content of the li, not as a CSS class."),
        "The issue was that `append_li('nav-item')` was treating 'nav-item' as the text",
        "labelled/k1.lib-bootstrap__session-export.json #537 (edit of nav.php), #538, #539, "
        "#540 (the user)"),
)
"""Real changes ended by a user message about another target; :func:`own_root` finds
the agent's root for each."""

_WORD = re.compile(r"[a-z0-9_]+")


def other_target(user: str, files: frozenset[str]) -> bool:
    """The user's message names files, and none of ``files`` (base names, lowercased)."""
    named = files_named(user)
    return bool(files) and bool(named) and not named & files


def own_root(explanations: dict[tuple[str, int], list[str]], session_id: str,
             first: int, ended: int, files: frozenset[str], user: str) -> Later | None:
    """The root the agent stated about its own change (``files``) in the messages
    ``first`` to before ``ended``, when the user's message at ``ended`` speaks of another
    target (:func:`other_target`): a sentence that says it names the root (tier 3 of
    :data:`kb.graph.rootcause.ROOT_STATEMENTS`, never a guess) and names one of the
    files or its stem.  The last such sentence wins (the agent's final word on it)."""
    if not other_target(user, files):
        return None
    stems = {f.rsplit(".", 1)[0] for f in files} | set(files)
    best: Later | None = None
    for o, sentence, found in stated_roots(explanations, session_id, range(first, ended)):
        if found[0] < 3:
            continue
        if not (set(_WORD.findall(sentence.lower())) & stems
                or files_named(sentence) & files):
            continue
        best = Later(o, short(sentence, 240), found[0], found[1])
    return best


TURN = 60
"""Messages after a finding in which the same turn's guessing and conclusion are read."""


@dataclass(frozen=True)
class Concluded:
    """A round of guesses whose finding the agent went on guessing after, and the finding
    the turn ended on."""

    name: str
    said: tuple[tuple[int, str, str], ...]
    """``(ordinal, signal, sentence)`` of the agent after the first finding (trimmed)."""
    subject: str
    """Words of the episode (its guesses)."""
    concluded: str
    """The start of what :func:`concluded_finding` returns."""
    source: str


CONCLUDED: tuple[Concluded, ...] = (
    Concluded(
        "modal-set-id",
        ((491, "found", "I see the issue now. The `set_attrib` on the modal calls like "
          "`$this->set_attrib('data-bs-backdrop', 'static')` go through `this_link`"),
         (515, "hypothesis", "Let me think about another possibility - maybe the issue is "
          "that when `link_value_obj` is used, the ID is lost"),
         (525, "found", "Found it! The `link_value_obj` mechanism routes all `set_id` calls "
          "to the linked `modal-body` div instead of the outer modal"),
         (526, "hypothesis", "Actually, I think the issue might be with how PHP processes the "
          "file."),
         (530, "found", "The issue was that calling `set_id('demoModal')` **after** "
          "construction with `link_value_obj` caused the ID to be placed on the wrong element "
          "(the body div instead of the outer modal div).")),
        "The error TypeError: Can only call Element.querySelector is a JavaScript error; the "
        "modal HTML structure; set_value and link_value_obj in modal.php",
        "The issue was that calling `set_id('demoModal')` after construction",
        "labelled/k1.lib-bootstrap__session-export.json #486 (the first finding), #489-#526 "
        "(more findings and guesses, one turn), #530 (the conclusion), #531 (the user)"),
)
"""Real rounds of guesses the agent went on with after its first finding."""


def concluded_finding(said: Iterable[tuple[int, str, str]], ended: int,
                      user_ordinals: Iterable[int], subject: frozenset[str]) -> str | None:
    """The finding a turn of guessing ends on, when the agent guessed again after the
    finding at ``ended`` before the user spoke (``said``: the agent's ``(ordinal,
    signal, sentence)``, signals ``hypothesis`` and ``found``): the last finding after
    the last guess, within :data:`TURN` messages, that names a word of ``subject``;
    ``None`` when no guess followed the finding (it stands) or no finding ends the turn."""
    users = sorted(o for o in user_ordinals if o > ended)
    stop = min([ended + TURN, *(o - 1 for o in users)])
    mine = sorted((x for x in said if ended < x[0] <= stop), key=lambda x: x[0])
    guessed = [o for o, signal, _ in mine if signal == "hypothesis"]
    if not guessed:
        return None
    best = None
    for o, signal, sentence in mine:
        if signal != "found" or o <= guessed[-1]:
            continue
        text = plain(unnarrated(sentence) or sentence)
        if any(len(t) >= NAMING for t in tokens(text) & subject):
            best = short(text, 240)
    return best
