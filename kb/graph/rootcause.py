"""A root cause the agent states later: after it looked again, in the same turn.

An episode's cause is first what ended it: the concrete error of the failing run, the
API error, the user's correction.  Often the agent only finds the root afterwards:
the user says the vault "still fails at simulation", the agent queries the accounts
and then writes "the configured mint is the problem: … owned by the legacy SPL Token
program".  That statement is the cause; the first error stays as evidence.

Structure first: the statement must come after the episode ended, before the user
speaks again (the same turn of work), after the agent ran at least one step since the
end (it looked before it said), and it must name something the episode is about
(its check, error, files).  Phrases last: :data:`ROOT_STATEMENTS` says which
sentences state a root, one row per phrase family and language, each with a real
example (``tests/kb/test_rootcause.py`` walks them).

Pure: no IO (see :mod:`kb.graph.extract`, which calls :func:`later_root`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from kb.graph.text import short, tokens
from logparse.patternrow import PatternRow
from logparse.sentences import split_sentences


@dataclass(frozen=True)
class RootRule(PatternRow):
    """One family of sentences that state a root cause."""

    name: str
    lang: str
    tier: int
    """3: it says it names the root ("the issue was …", "… is the problem");
    2: it states one ("… requires …", "… has no …")."""
    pattern: str
    example: str
    """A real sentence of an agent that the pattern matches."""
    source: str
    """Where the example comes from (transcript and message)."""


ROOT_STATEMENTS: tuple[RootRule, ...] = (
    RootRule(
        "x-is-the-problem", "en", 3,
        r"\b(?:is|was|are|were) (?:the|our) (?:real |actual |root |underlying )?"
        r"(?:problem|issue|culprit|cause|blocker)\b",
        "The program is deployed, but the configured mint is the problem: `Gh9Zw...KGtKJr` "
        "is owned by the legacy SPL Token program (`Tokenkeg...`), while the Civitas "
        "program’s `initialize_vault` instruction requires a Token-2022 mint (`TokenzQd...`).",
        "labelled/soulpass__codex-session.jsonl, ordinal 302 (line 608)"),
    RootRule(
        "the-problem-is", "en", 3,
        r"\bthe (?:real |actual |root |underlying )?(?:issue|problem|cause|culprit|bug|reason)"
        r"(?: with [^;:\n]{1,80}?)? (?:is|was)\b(?! (?:likely|probably|possibly|that we|how|now|fixed|solved|resolved"
        r"|gone)\b)",
        "The issue with `$content.Length` being 356 was that `studio wp` outputs the content "
        "to stderr when `$()` captures it, and the `2>&1` redirect was including the "
        "spinner/status in the variable too.",
        "labelled/uicomponents__session-wordpress.json (an assistant reply)"),
    RootRule(
        "root-cause", "en", 3, r"\broot[- ]cause\b|\bturns out\b",
        "The root cause is that once `link_value_obj` is established, any attribute "
        "modifications get routed to the linked object instead of the wrapper.",
        "labelled/k1.lib-bootstrap__session-export.json (an assistant reply)"),
    RootRule(
        "thats-why", "en", 3, r"\bthat(?:'|’)?s why\b|\bthis is why\b",
        "That's why the close button still appears - it's a child element that remains "
        "alongside the value content.",
        "labelled/k1.lib-bootstrap__session-export.json (an assistant reply)"),
    RootRule(
        "because", "en", 2, r"\b(?:because|caused by|due to)\b",
        "I didn't use it because: I didn't know you were using the opencode CLI",
        "labelled/uicomponents__session-export.json (an assistant reply)"),
    RootRule(
        "requires", "en", 2,
        r"\b(?:requires?|expects?|only accepts?|needs? to be|must be)\b"
        r"|\b(?:has|have) no\b|\b(?:doesn'?t|does not|isn'?t|is not) (?:exist|supported|defined"
        r"|registered|installed|available)\b",
        "The program is deployed, but the configured mint is the problem: `Gh9Zw...KGtKJr` "
        "is owned by the legacy SPL Token program (`Tokenkeg...`), while the Civitas "
        "program’s `initialize_vault` instruction requires a Token-2022 mint (`TokenzQd...`).",
        "labelled/soulpass__codex-session.jsonl, ordinal 302 (line 608)"),
    RootRule(
        "porque", "pt", 2, r"\b(?:porque|pois|devido a)\b",
        "nunca passa pelo merge, porque não tem contraparte macro no core banking.",
        "labelled/pfm-categorization__opencode-session.json (a design note the agent wrote)"),
)
"""Sentences that state a root cause, strongest first within a language."""

GUESS = re.compile(r"\b(?:maybe|perhaps|possibly|probably|likely|I suspect|I think|I guess"
                   r"|seems?|appears? to|parece|parecer"
                   r"|quizás|quizas|tal vez|talvez|provavelmente|probablemente)\b"
                   r"|\b(?:might|could|may) be\b|\bas if\b|\?\s*$", re.I)
"""A guess ("the most likely causes are …"), wherever the hedge stands: not a root the
agent found (:mod:`kb.graph.extract` ranks a guessed diagnosis below a stated one)."""
_HEDGED = GUESS
_CONDITIONAL = re.compile(r"^(?:(?:but|and|so|then),? )?(?:if|unless|in (?:that|this|which) case"
                          r"|otherwise)\b", re.I)
"""A sentence that states what would hold under a condition ("In that case, the navbar
needs to be inside the wrapper.", "But if we move `nav` to `/componentes`, the demo will
break because …"): a branch of the agent's thinking, not a root it found."""
_DOING = re.compile(r"(?:let me|let[’']s|i[’']?ll|i will|i[’']m going|i am going|we[’']ll)\s"
                    r"|(?:i|we) (?:should|need to|have to|must) (?:first )?(?:check|verify|look"
                    r"|see|test|confirm|find out|investigate|read|debug)\b", re.I)
"""A sentence that tells what the agent does next ("I should check whether `generate()`
is corrupting the state, or if the issue is …": it plans a look, it found nothing yet)."""

LATER = 10
NAMING = 4
"""Letters of a word of a subject that can name what a statement is about."""
"""Messages after an episode's end in which a later statement of its root is looked for."""


@dataclass(frozen=True)
class Later:
    """A root cause stated after an episode ended."""

    ordinal: int
    text: str
    tier: int
    rule: str


def root_tier(sentence: str) -> tuple[int, str] | None:
    """The tier and rule of the strongest row of :data:`ROOT_STATEMENTS` a sentence
    matches, unless it guesses or plans."""
    if _HEDGED.search(sentence) or _DOING.match(sentence) or _CONDITIONAL.match(sentence):
        return None
    best: tuple[int, str] | None = None
    for rule in ROOT_STATEMENTS:
        if rule.regex.search(sentence) and (best is None or rule.tier > best[0]):
            best = (rule.tier, rule.name)
    return best


def later_root(explanations: dict[tuple[str, int], list[str]], session_id: str, ended: int,
               subject: frozenset[str], user_ordinals: Iterable[int],
               step_ordinals: Iterable[int], window: int = LATER, *,
               said: bool = False) -> Later | None:
    """The agent's statement of the root cause of an episode that ended at ``ended``:
    in the messages after it up to the next user message (at most ``window``), after at
    least one step the agent ran since the end, naming something of ``subject``.  The
    strongest statement wins, then the one naming most of the subject, then the first.

    ``said``: ``ended`` is a message of the agent that said something (a first
    diagnosis), not a run: the steps of that message ran after its prose, so they count
    as looking again."""
    users = sorted(o for o in user_ordinals if o > ended)
    stop = min([ended + window, *(o - 1 for o in users)])
    steps = sorted(o for o in step_ordinals if ended - (1 if said else 0) < o <= stop)
    if not steps:
        return None
    best: tuple[tuple[int, int, int], Later] | None = None
    for o, sentence, found in stated_roots(explanations, session_id,
                                           range(steps[0] + 1, stop + 1)):
        # a word that can name something ("but", "ui" name nothing)
        about = sum(1 for t in tokens(sentence) & subject if len(t) >= NAMING)
        if not about:
            continue
        key = (found[0], min(about, 3), -o)
        if best is None or key > best[0]:
            best = (key, Later(o, short(sentence, 240), found[0], found[1]))
    return best[1] if best else None


def stated_roots(explanations: dict[tuple[str, int], list[str]], session_id: str,
                 ordinals: Iterable[int]) -> Iterator[tuple[int, str, tuple[int, str]]]:
    """``(ordinal, sentence, (tier, rule))`` for each sentence of the agent's prose in
    ``ordinals`` that states a root (:func:`root_tier`), in order, without its Markdown."""
    for o in ordinals:
        for text in explanations.get((session_id, o), []):
            for sentence in split_sentences(text):
                # "1. **Section centering** — 4 h2s lost …": a list item under a bold
                # heading says it as plainly as a sentence
                sentence = plain(sentence.strip(" -*•#>"))
                if len(sentence) < 24:
                    continue
                found = root_tier(sentence)
                if found is not None:
                    yield o, sentence, found


@dataclass(frozen=True)
class ReadingRule:
    """How the message of an edit that acts on a review names the finding it acts on."""

    name: str
    reading: str
    """The agent's reading of the review (its messages between the review and the edit)."""
    redo: str
    """The prose of the message that makes the edit."""
    finding: str
    """What :func:`review_finding` returns for them (a part of it)."""
    source: str


REVIEW_READINGS: tuple[ReadingRule, ...] = (
    ReadingRule(
        "heading-names-finding",
        "Acting on the findings now. Quick disposition before I commit:\n\n"
        "- **Critical #1 (Q4 arb-bot mis-ID)** — fix.\n"
        "- **Important #2 (Q3 rounding `$3184.36` vs `$3,184.35`)** — fix; switch to "
        "integer-truncation to match Etherscan.\n"
        "- **Important #4 (Q3 `$16.81` date-sensitive)** — fix; soften to a qualified "
        "phrasing.",
        "Now Q3's rounding fix:",
        "Q3 rounding `$3184.36` vs `$3,184.35`) — fix; switch to integer-truncation",
        "pool/blockchain-dex-events__claude-session.jsonl #115 (the agent's disposition of "
        "a code review) and #118 (the edit of solve.rb)"),
    ReadingRule(
        "redo-states-finding",
        "Acting on the findings now.",
        "Found a more substantive issue while filling in the placeholder — my manual "
        "transcription of `amount_in_with_fee` in the worked-example block has a typo. "
        "Should be `1,151,347,322,395,962,217,625`, not `1,151,347,322,396,002,217,625`.",
        "my manual transcription of `amount_in_with_fee` in the worked-example block has a "
        "typo",
        "pool/blockchain-dex-events__claude-session.jsonl #128 (an edit of the README after "
        "the review)"),
)
"""What names the finding an edit after a review acts on, one row per kind of message
(``tests/kb/test_rootcause.py`` walks them): a heading ("Now Q3's rounding fix:") names
the item of the agent's reading of the review that shares at least :data:`NAMED` naming
words with it, and no other as many; a message that opens with a statement of what is
wrong ("… has a typo.") states the finding itself."""

NAMED = 2
_HEADING = re.compile(r"^(?:[^.!?]|[.!?](?=\S)){4,100}:$")
_GENERIC = frozenset({"fix", "fixe", "fixed", "fixing", "issue", "problem", "change",
                      "update", "finding", "review", "important", "critical", "minor"})
"""Words a heading and a finding share whatever the finding (its verb, its severity)."""
_PLAN_START = re.compile(r"^(?:let me|let[’']s|i[’']?ll|i will|i need to|now|next|first|then"
                         r"|done|good|great|perfect|ok|okay)\b", re.I)


def _opening_sentence(text: str) -> str:
    for sentence in split_sentences(text.strip()):
        sentence = plain(sentence.strip(" -*•#>"))
        if sentence:
            return sentence
    return ""


def review_finding(explanations: dict[tuple[str, int], list[str]], session_id: str,
                   review: int, redos: Iterable[int]) -> str | None:
    """The findings of a review that the edits at ``redos`` act on, as the agent names
    them (:data:`REVIEW_READINGS`): for each edit's message, the item of the agent's
    reading of the review (its messages since ``review``) that the message's heading
    names, else the statement the message opens with; ``None`` when no message names
    one.  Several edits, several findings, joined by " · "."""
    found: list[str] = []
    for o in sorted(set(redos)):
        texts = [t for t in explanations.get((session_id, o), []) if t.strip()]
        if not texts:
            continue
        opening = _opening_sentence(texts[0])
        if _HEADING.match(opening):
            named = tokens(opening) - _GENERIC
            scored: list[tuple[int, str]] = []
            for r in range(review + 1, o):
                for text in explanations.get((session_id, r), []):
                    for line in text.splitlines():
                        item = plain(line.strip(" -*•#>"))
                        if len(item) < 16 or _HEADING.match(item):
                            continue
                        scored.append((len(named & tokens(item)), item))
            scored.sort(key=lambda x: -x[0])
            if scored and scored[0][0] >= NAMED and (len(scored) == 1
                                                     or scored[1][0] < scored[0][0]):
                found.append(short(scored[0][1], 240))
        elif len(opening) >= 24 and not (_PLAN_START.match(opening) or GUESS.search(opening)
                                         or _DOING.match(opening)
                                         or _CONDITIONAL.match(opening)):
            found.append(short(unnarrated(opening) or opening, 240))
    return " · ".join(dict.fromkeys(found)) or None


@dataclass(frozen=True)
class Narration(PatternRow):
    """A lead-in of a reply that announces a finding without stating it."""

    name: str
    pattern: str
    """Matched at the start of the text (after what an earlier row took away)."""
    example: str
    source: str


NARRATION: tuple[Narration, ...] = (
    Narration(
        "finding-heading",
        r"(?:(?:ah|aha|ok|okay|now|so|great|perfect)[,!.]?\s+)?(?:I (?:can )?see|I found|found"
        r"|I'?ve found|I understand|I get it|got it)(?: (?:it|the|what'?s|what is|now))?"
        r"(?: (?:real |actual |root )?(?:issue|problem|bug|culprit|cause|error))?(?: now)?"
        r"(?: here)?\s*[.!:—–-]+\s*",
        "I see the issue! Look at lines 123-126: ```css",
        "labelled/k1.lib-bootstrap__session-export.json (an assistant reply)"),
    Narration(
        "look-at", r"(?:let'?s )?(?:look|looking) at (?:lines? [\d\s,-]+|the [^:.]{1,60}):\s*",
        "Look at lines 123-126: ```css",
        "labelled/k1.lib-bootstrap__session-export.json (an assistant reply)"),
    Narration(
        "in-x-we-have", r"in [^\s,:]{1,80},? (?:we have|there is|there's|I see)\s*:\s*",
        "In modal.php, we have:1. `$this->set_value($html_modal);` - this sets the value "
        "directly on the modal div2.",
        "labelled/k1.lib-bootstrap__session-export.json (an assistant reply)"),
    Narration(
        "interjection",
        r"(?:wait|hmm+|actually|ok|okay|alright|oh|well)\s*[,.!:—–-]+\s+",
        "Actually, this won't work because the admin-ajax.php requires authentication "
        "(wp_ajax_ prefix only works for logged-in users).",
        "labelled/uicomponents__session-wordpress.json (an assistant reply; also «OK, I can "
        "see the content is there.» there, «Wait, maybe the issue is …» and «Hmm, that "
        "probably won't fix the issue …» in labelled/uicomponents__session-export.json)"),
    Narration(
        "interjection-ah", r"(?:ah|aha)\s*[,.!:—–-]+\s+",
        "Ah, the issue is that in PHP, if you have `use k1\\lib\\html\\bootstrap\\badge;` "
        "and then you try to use the class `badge` in your code, PHP thinks you're",
        "labelled/k1.lib-bootstrap__session-export.json (an assistant reply; also «Ah, I see "
        "the issue. My regex replacement was …» in labelled/uicomponents__session-wordpress"
        ".json)"),
)
"""Lead-ins that announce a finding ("I see the issue!", "Look at lines 123-126:"): a
cause is never one of them (see :func:`unnarrated`)."""

_MARKUP = re.compile(r"\*\*|^(?:#{1,6}\s+|>\s*|(?:[-*•+]|\d+[.)])\s+|[❌✅✔✓✗✘⚠️]+\s*)+")
"""Markdown a reply dresses a sentence in: emphasis, a heading, a quote, a list mark, a
check mark ("1. **Section titles not centered**: …", "- ❌ **Footer** is missing")."""


def plain(text: str) -> str:
    """A sentence without the Markdown of :data:`_MARKUP` (code spans stay: they name
    things); leading list marks and check marks go however many there are."""
    t = _MARKUP.sub("", text.strip())
    t = _MARKUP.sub("", t.strip())  # "- ❌ **x**": the mark, then what it uncovered
    return " ".join(t.split())


_NOT_A_STATEMENT = re.compile(r"^(?:```|\d+[.)]\s|[-*•]\s|`[^`]*`\s*$)")
"""What is left after a lead-in when it only points at code: a fence, a list, a name."""


_FINDING_HEADING = next(row for row in NARRATION if row.name == "finding-heading")


def announces(sentence: str) -> bool:
    """A sentence that is nothing but a finding heading ("Found the issue!", "I see the
    problem now."): the sentence after it states what was found."""
    t = " ".join(plain(sentence).split())
    m = _FINDING_HEADING.regex.match(t)
    return m is not None and m.end() > 0 and not t[m.end():].strip(" .!:")


def unnarrated(text: str) -> str:
    """A cause text without the lead-ins of :data:`NARRATION`; empty when nothing but a
    lead-in (or the code or list it points at) is left."""
    t = " ".join(text.split())
    changed = True
    while changed:
        changed = False
        for row in NARRATION:
            m = row.regex.match(t)
            if m and m.end() > 0:
                t, changed = t[m.end():], True
    if t == " ".join(text.split()):
        return text
    return "" if len(t) < 16 or _NOT_A_STATEMENT.match(t) else t
