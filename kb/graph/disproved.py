"""An explanation the agent gave that a later probe or the user's evidence disproved.

The agent states why something happens ("the program id is not deployed on the selected
cluster", "son comentarios de redes sociales, sin puntos"), and a later result says
otherwise, often with no failing check in between.  Two shapes, structure first:

* **contradicted**: a reply that explains (a sentence of :data:`CLAIMS`) holds a
  statement that a later reply of the agent turns round on the same subject (a row of
  :data:`FLIPS`: "the program id is not deployed" … "The program is deployed, but the
  configured mint is the problem"), with something learnt in between (a check's result,
  a user message) and nothing changed on that subject in between (a state the agent
  changed is not a statement disproved: "not running" … start … "running").
* **replaced**: a reply that explains; the user answers it with evidence (a row of
  :data:`EVIDENCE`: pasted output, a report that the symptom persists); the agent's next
  reply explains the same subject by another cause (it shares the subject, it does not
  restate the first cause, it does not say the evidence confirms it).  Output pasted
  after a change the agent made on the explanation tells how the change went (the next
  problem), not whether the explanation held.

The episodes are ``how="disproved"``; :mod:`kb.graph.extract` weighs them as a weak
reading (they hide no other episode) and takes their cause as it is (no later root).

An explanation the next probe confirms is not a dead end: the later reply must turn the
statement round, or give another cause.  The cause of the dead end is what disproved it:
the later statement (or the new cause), short, with the evidence's ordinal.

Every table is rows with a language and a real example (trimmed);
``tests/kb/test_disproved.py`` walks them.  Pure: steps and said in, Found out.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property, lru_cache

from kb.graph.episodes import Found, Said, Step, _dedupe
from kb.graph.rootcause import GUESS
from kb.graph.text import short, tokens
from logparse.patternrow import PatternRow
from logparse.sentences import claim_sentences
from logparse.structural import still_broken_phrase


# ----------------------------------------------------------------- what explains
@dataclass(frozen=True)
class Claim(PatternRow):
    """A family of sentences that state or guess a cause, in one language."""

    name: str
    lang: str
    pattern: str
    example: str
    """A real sentence of an agent the pattern matches (trimmed)."""
    source: str


CLAIMS: tuple[Claim, ...] = (
    Claim("likely-cause", "en",
          r"\b(?:most |more )?(?:likely|probable|possible) (?:causes?|reasons?|culprits?"
          r"|explanations?)\b",
          "The most likely causes are either the program id is not deployed on the selected "
          "cluster, or the configured USDC mint is not a Token-2022 mint",
          "labelled/soulpass__codex-session.jsonl:598 (ordinal 297)"),
    Claim("because", "en", r"\bbecause\b|\bcaused by\b|\bdue to\b",
          "This is because Composer scripts require the `scripts` key, not `extra`.",
          "labelled/k1.lib-bootstrap__session-export.json (ordinal 101)"),
    Claim("which-means", "en", r"\b(?:which|this|that) means\b",
          "\"Cannot use k1\\lib\\html\\button as button because the name is already in use\" - "
          "this means there's already a `button` class being used somewhere.",
          "labelled/k1.lib-bootstrap__session-export.json (ordinal 108)"),
    Claim("the-issue-is", "en",
          r"\bthe (?:real |actual |root )?(?:issue|problem|cause|culprit|reason) (?:is|was)\b",
          "So the issue is that when the demo page loads, PHP parses the file from top to "
          "bottom.",
          "labelled/k1.lib-bootstrap__session-export.json (ordinal 115)"),
    Claim("x-is-the-problem", "en",
          r"\b(?:is|was|are|were) (?:the|our) (?:real |actual |root )?(?:problem|issue|culprit"
          r"|cause)\b",
          "The program is deployed, but the configured mint is the problem: `Gh9Zw...KGtKJr` "
          "is owned by the legacy SPL Token program (`Tokenkeg...`)",
          "labelled/soulpass__codex-session.jsonl:608 (ordinal 302)"),
    Claim("so-then", "en", r"(?:^|[.!?]\s+)So,? (?:even though|although|when|the|this|that|it)\b",
          "So even though the parent is 100vh, the canvas spills out.",
          "labelled/uicomponents__session-export.json (ordinal 167, reasoning)"),
    Claim("hedged", "en",
          r"\b(?:probably|likely)\b|\b(?:might|may|could) (?:be|exceed|cause|break|not)\b",
          "The Three.js canvas uses `window.innerHeight` which may exceed the hero wrapper's "
          "`h-dvh`.",
          "labelled/uicomponents__session-export.json (ordinal 195)"),
    Claim("porque", "es/pt", r"\bporque\b|\bdebido a\b|\bse debe a\b|\bdevido a\b",
          "para spaCy es una sola oración porque no hay punto que la separe.",
          "pool conversacion-act1-pln__session.jsonl:240 (ordinal 80)"),
    Claim("eso-confirma", "es/pt",
          r"\b(?:eso|esto|isso|isto) (?:confirma|significa|explica|indica)\b",
          "Entonces eso confirma que los `SHY` que ves en la interfaz del notebook son la "
          "**representación visual** del carácter soft hyphen (`\\u00AD`).",
          "pool conversacion-act1-pln__session.jsonl:211 (ordinal 68)"),
    Claim("el-problema", "es/pt",
          r"\b(?:el|o) problema (?:que [^.\n]{0,80})?(?:no )?(?:es|está|era|é)\b"
          r"|\b(?:la|a) causa (?:es|era|é)\b",
          "El problema que se ve en la imagen (`asíSHY`, `parecíSHYa`) no es de spaCy, es "
          "del **dataset**",
          "pool conversacion-act1-pln__session.jsonl (ordinal 66)"),
    Claim("es-solo", "es/pt", r"\b(?:es|son|é|são) (?:solo|s[oó]lo|simplemente|apenas)\b",
          "Es solo cómo el notebook/terminal las renderiza.",
          "pool conversacion-act1-pln__session.jsonl:211 (ordinal 68)"),
    Claim("probablemente", "es/pt",
          r"\b(?:probablemente|seguramente|quiz[aá]s|tal vez|provavelmente|talvez)\b",
          "Eso probablemente está rompiendo la tokenización de spaCy.",
          "pool conversacion-act1-pln__session.jsonl:244 (ordinal 82)"),
)
"""Sentences that explain: they state or guess why something happens."""

HEAD = 3000
"""Characters of a reply read for its claims."""
CLAIMS_SQL = "(?i)" + "|".join(f"(?:{c.pattern})" for c in CLAIMS)
"""Every row of :data:`CLAIMS` as one pattern (the store's filter of the replies it
loads for this rule; the rows use no look-around, so DuckDB's RE2 reads them)."""
_DOING = re.compile(r"^\W*(?:let me|let[’']s|i[’']?ll|i will|i[’']m going|i am going|"
                    r"voy a|vamos a|vou|i need to|i[’']m wondering|i wonder)\b", re.I)
"""A sentence that tells what the agent does next, not why something happens."""
_IF = re.compile(r"^\W*(?:if|unless|when|whether|si|se|cuando|quando)\b", re.I)
"""A conditional ("If the element isn't found, it throws"): it states nothing."""


def _asserts(sentence: str) -> bool:
    """A sentence that states something: not a plan, a question or a conditional."""
    return not (_DOING.match(sentence) or _IF.match(sentence)
                or sentence.rstrip().endswith("?"))


def sentences(text: str) -> list[str]:
    """The sentences of a reply (bullets and emphasis stripped)."""
    return claim_sentences(text, HEAD)


def claim_rule(sentence: str) -> Claim | None:
    """The row of :data:`CLAIMS` a sentence matches, unless it plans or asks."""
    if not _asserts(sentence):
        return None
    for c in CLAIMS:
        if c.regex.search(sentence):
            return c
    return None


@lru_cache(maxsize=8192)
def claims(text: str) -> tuple[str, ...]:
    """The sentences of a reply that explain (rows of :data:`CLAIMS`)."""
    return tuple(s for s in sentences(text) if claim_rule(s) is not None)


# ----------------------------------------------------------------- what turns it round
@dataclass(frozen=True)
class Flip:
    """A statement, and the later statement on the same subject that turns it round.

    ``said`` may capture the predicate as group ``w``; ``against`` then holds ``{w}``,
    filled with it.  The subject is the words before each match in its sentence."""

    name: str
    lang: str
    said: str
    against: str
    example: tuple[str, str]
    """A real statement and the real later statement that turned it round."""
    source: str

    @cached_property
    def said_regex(self) -> re.Pattern[str]:
        return re.compile(self.said, re.I)

    def against_regex(self, w: str | None) -> re.Pattern[str]:
        return _against(self.against, re.escape(w) if w else "")


@lru_cache(maxsize=4096)
def _against(pattern: str, w: str) -> re.Pattern[str]:
    return re.compile(pattern.replace("{w}", w), re.I)


FLIPS: tuple[Flip, ...] = (
    Flip("not-then-is", "en",
         r"\b(?:is|are|was|were)(?:n'?t| not) (?:(?:yet|even|actually|really|quite) )?"
         r"(?P<w>(?!(?:being|been|able|going|just|only|also|always|very|sure|that|the|this"
         r"|there|here|actually|really|quite)\b)[a-z][\w-]{3,})",
         r"\b(?:is|are|was|were) (?:(?:already|actually|indeed|in fact|definitely|properly"
         r"|correctly) )?{w}\b",
         ("The most likely causes are either the program id is not deployed on the selected "
          "cluster, or the configured USDC mint is not a Token-2022 mint",
          "The program is deployed, but the configured mint is the problem: `Gh9Zw...KGtKJr` "
          "is owned by the legacy SPL Token program (`Tokenkeg...`)"),
         "labelled/soulpass__codex-session.jsonl:598 then :608 (ordinals 297, 302)"),
    Flip("fine-then-broken", "es/pt",
         r"\b(?:est[aá]n?|estaban?|estão|son|es|são) (?:bien|bem|correct[oa]s?|cert[oa]s?)\b",
         r"\b(?:tiene|tienen|ten[ií]an?|hay|tem|têm|tinha) (?:\w+ )?problemas?\b"
         r"|\b(?:est[aá]n?|estaban?|estão) (?:mal|rot[oa]s?|errad[oa]s?|quebrad[oa]s?)\b",
         ("Es decir, las palabras en el dataset están bien: `así`, `parecía`, etc.",
          "El dataset tiene problemas de encoding que no se resuelven solo con "
          "`encoding='latin-1'`."),
         "pool conversacion-act1-pln__session.jsonl:211 then :244 (ordinals 68, 82)"),
)
"""Statements and what turns each round, one row per language family."""

_VAGUE = frozenset(tokens("""issue issues problem problems cause causes culprit reason likely
most either also just still only actually even some this that these those there here
el la los las un una es son está están eso esto que del de en por para con problema
causa dice todo también"""))
"""Words that name no subject of their own."""
SUBJECT = 90
"""Characters before a statement read for its subject."""


def _subject(sentence: str, start: int) -> frozenset[str]:
    head = sentence[max(0, start - SUBJECT):start]
    # the subject of the clause the statement ends, not the sentence before it
    head = re.split(r"[:;,(]|\b(?:either|or|and|but|pero|y|o|mas)\b", head)[-1]
    return frozenset(t for t in tokens(head) if len(t) >= 2) - _VAGUE


@dataclass(frozen=True)
class Statement:
    """A statement of a reply that a row of :data:`FLIPS` could turn round."""

    flip: Flip
    w: str | None
    subject: frozenset[str]
    sentence: str


def _statements_of(claim: str) -> list[Statement]:
    if not _asserts(claim):
        return []  # a condition states nothing
    out = []
    for flip in FLIPS:
        for m in flip.said_regex.finditer(claim):
            subject = _subject(claim, m.start())
            if subject:
                out.append(Statement(flip, m.groupdict().get("w"), subject, claim))
    return out


@lru_cache(maxsize=4096)
def statements(text: str) -> tuple[Statement, ...]:
    """The statements of a reply that a later one could turn round."""
    return tuple(st for c in sentences(text) for st in _statements_of(c))


@lru_cache(maxsize=4096)
def assertions(text: str) -> tuple[str, ...]:
    """The sentences of a reply that assert (no plan, question, condition or guess)."""
    return tuple(s for s in sentences(text) if _asserts(s) and not GUESS.search(s))


_NOW = re.compile(r"\b(?:now|ahora|agora|finally|por fin|finalmente)\b|もう|现在|已经", re.I)
"""A later statement of a state reached ("the worker is running now"): the state changed
(the user may have changed it), no statement was disproved."""


def _turns(st: Statement, later: str) -> bool:
    if _NOW.search(later):
        return False
    return any(st.subject & _subject(later, n.start())
               for n in st.flip.against_regex(st.w).finditer(later))


def turned_round(earlier: str, later: str) -> tuple[Flip, str, str] | None:
    """The first statement of reply ``earlier`` that reply ``later`` turns round on the
    same subject: its row of :data:`FLIPS`, the statement and the later sentence that
    does it; else ``None``.  A later guess disproves nothing, and a plan or a condition
    states nothing (:func:`assertions`)."""
    for st in statements(earlier):
        if st.flip.against_regex(st.w).search(later) is None:
            continue  # (most pairs end here, on one search of the whole reply)
        for sentence in assertions(later):
            if _turns(st, sentence):
                return st.flip, st.sentence, sentence
    return None


# ----------------------------------------------------------------- the user's evidence
@dataclass(frozen=True)
class Evidence:
    """A user message that brings evidence about what the agent explained."""

    name: str
    test: Callable[[str], bool]
    example: str
    source: str


_OUTPUT = re.compile(r"```|Traceback \(most recent call last\)|\x1b?\[\d{1,2}m-{8,}|^-{20,}$",
                     re.M)


def _pasted_error(text: str) -> bool:
    """An error or output pasted into the message: a fence, a traceback, coloured output."""
    return _OUTPUT.search(text[:4000]) is not None


def _pasted_data(text: str) -> bool:
    """A long message of few letters: a dump of values the user printed."""
    head = text[:4000]
    return len(head) >= 120 and sum(c.isalpha() for c in head) < len(head) * 0.5


_STILL = re.compile(r"\bstill\b|\bsigue\b|\btodav[ií]a\b|\bainda\b|\bcontin[uú]a\b|まだ|还是|仍然",
                    re.I)
"""The user's word for a symptom still there (narrower than
:data:`logparse.structural.PERSIST`: "the same design" is no report)."""


def _persists(text: str) -> bool:
    """The user says the symptom is still there ("bg still overflows", "sigue igual")."""
    return bool(_STILL.search(text[:2000])) or still_broken_phrase(text) is not None


EVIDENCE: tuple[Evidence, ...] = (
    Evidence("pasted-error", _pasted_error,
             "claude me ayudas a arreglar este error:\n\x1b[31m-----------------------------"
             "----------------------------------------------\nTypeError      Traceback",
             "pool conversacion-act1-pln__session.jsonl (ordinal 99, user)"),
    Evidence("pasted-data", _pasted_data,
             "por ejemplo\n['c', 'r', 'i', 's', 't', 'i', 'n', 'a', ' ', 'c', 'i', 'f', 'u', "
             "'e', 'n', 't', 'e', 's', ' ', 'p', 'o', 'd', 'r', 'í', '\\xad', 'a', ' ', 'h', "
             "'a', 'b', 'e', 'r', ' ', 's', 'i', 'd', 'o', ' ', 'l', 'a', ' ', 'p', 'r', 'e']",
             "pool conversacion-act1-pln__session.jsonl:243 (ordinal 81, user)"),
    Evidence("still-there", _persists,
             "section titles are good but keep all of them centred, now some are not and the "
             "buttons still dont show ui for those categoires and arent clickable and bg "
             "still overflows limit it on homepage till the navbar",
             "labelled/uicomponents__session-export.json (ordinal 192, user)"),
)
"""User messages that bring evidence on an explanation."""


def evidence_kind(text: str) -> str | None:
    """The row of :data:`EVIDENCE` a user message is, else ``None``."""
    for e in EVIDENCE:
        if e.test(text):
            return e.name
    return None


# ----------------------------------------------------------------- the episodes
SPAN = 20
"""Messages after an explanation within which a later statement may turn it round."""
ANSWER = 2
"""Messages between an explanation and the user message that answers it."""
REPLY = 4
"""Messages after the user's evidence within which the agent explains again."""
SUBJECT_SHARED = 2
"""Words the new explanation must share with the first one's reply (the same subject)."""
RESTATED = 0.5
"""Share of the first cause's words that, found in the new reply, make it a restatement."""
_CONFIRM = re.compile(r"\b(?:confirms?|confirmed|as (?:I|we) (?:said|expected|suspected)"
                      r"|exactly|confirma|confirmado|como (?:te )?(?:dije|esperaba|sospechaba)"
                      r"|exacto|exatamente)\b", re.I)
"""A reply that says the evidence confirms the explanation (at its opening)."""
_ACTS = re.compile(r"\b(?:kill|pkill|restart|start|stop|reload|install|uninstall|reset|deploy"
                   r"|rm|mv|create|init|enable|disable|launchctl|systemctl)\b", re.I)


def _between(ordinals: Sequence[int], lo: int, hi: int) -> bool:
    """Whether sorted ``ordinals`` hold one with ``lo < ordinal < hi`` (a bisection)."""
    i = bisect_right(ordinals, lo)
    return i < len(ordinals) and ordinals[i] < hi


def _changed_subject(steps: Sequence[Step], at: Sequence[int], lo: int, hi: int,
                     subject: frozenset[str]) -> bool:
    """A change or a state-changing run with ``lo < ordinal < hi`` touched the subject
    (``steps`` sorted by ordinal, ``at`` their ordinals: only the window is read)."""
    for s in steps[bisect_right(at, lo):bisect_left(at, hi)]:
        if s.change or _ACTS.search(s.command or ""):
            if subject & tokens(f"{s.target} {s.command}"):
                return True
    return False


def disproved_episodes(steps: Sequence[Step], said: Sequence[Said]) -> list[Found]:
    """Explanations a later statement turned round, or that the user's evidence made the
    agent replace (see the module's docstring)."""
    by_steps: dict[str, list[Step]] = {}
    for s in steps:
        by_steps.setdefault(s.session_id, []).append(s)
    by_said: dict[str, list[Said]] = {}
    for x in said:
        if x.role == "user" or x.signal == "explains":
            by_said.setdefault(x.session_id, []).append(x)
    out: list[Found] = []
    for sid, mine in by_said.items():
        mine.sort(key=lambda x: x.ordinal)
        run = sorted(by_steps.get(sid, []), key=lambda s: s.ordinal)
        out += _contradicted(sid, mine, run)
        out += _replaced(sid, mine, run)
    out.sort(key=lambda f: (f.session_id, f.first))
    return out


def _contradicted(sid: str, said: list[Said], steps: list[Step]) -> list[Found]:
    out: list[Found] = []
    told = [x for x in said if x.signal == "explains"]
    # sorted ordinals, read by bisection: a pair of replies costs no scan of the session
    at = [s.ordinal for s in steps]
    checks = [s.ordinal for s in steps if s.check]
    learnt = sorted(checks + [x.ordinal for x in said if x.role == "user"])
    done: set[int] = set()
    for i, a in enumerate(told):
        if a.ordinal in done or not statements(a.text):
            continue
        for b in told[i + 1:]:
            if b.ordinal - a.ordinal > SPAN:
                break
            if b.ordinal == a.ordinal:
                continue
            if not _between(learnt, a.ordinal, b.ordinal):
                continue  # nothing learnt in between (a check's result, a user message)
            turned = turned_round(a.text, b.text)
            if turned is None:
                continue
            hit = turned[1:]
            subject = tokens(hit[0]) - _VAGUE
            if _changed_subject(steps, at, a.ordinal, b.ordinal, subject):
                continue
            last = bisect_left(checks, b.ordinal) - 1
            probe = [checks[last]] if last >= 0 and checks[last] > a.ordinal else []
            ev: list[tuple[int, str, str | None]] = [(a.ordinal, "proposed", short(hit[0], 200))]
            ev += [(o, "tested", None) for o in probe]
            ev.append((b.ordinal, "ended", short(hit[1], 200)))
            out.append(Found(
                session_id=sid, name=f"the explanation «{short(hit[0], 80)}»",
                first=a.ordinal, ended=b.ordinal, how="disproved",
                cause_text=f"{short(hit[1], 200)} (disproved: {short(hit[0], 100)})",
                why=hit[1], evidence=_dedupe(ev)))
            done.add(a.ordinal)
            break
    return out


_CLAUSE = re.compile(r"[.;!?\n]+|,\s+|(?:(?<![^\S\n])[^\S\n]+|(?<=[^\S\n]\n))"
                     r"(?:and|but|pero|y|mas|e)(?:[^\S\n]+|(?=\n))", re.I)
"""Where a clause ends: punctuation or a line's end, a comma, a conjunction (a run of
blanks is tried from its start only, and never across a line: linear time)."""


def _persisting(clause: str) -> frozenset[str]:
    """The words right after the word for "still" in a report: what persists."""
    m = _STILL.search(clause)
    if m is None:
        return frozenset()
    for word in clause[m.end():].split()[:3]:
        got = tokens(word) - _VAGUE - _NEGATIONS
        if got:
            return got
    return frozenset()


_NEGATIONS = frozenset(tokens("dont don't doesnt doesn't not no isnt isn't cant can't arent "
                              "aren't won't wont"))


def reports(text: str) -> list[str]:
    """The clauses of a user's report that say what is still there ("bg still overflows
    limit it on homepage till the navbar"), each once; a question ("would the audio still
    be retrievable?") reports nothing."""
    head = text[:2000]
    starts = [m.start() for m in _STILL.finditer(head)]
    phrase = still_broken_phrase(head)
    if phrase and head.find(phrase) >= 0:
        starts.append(head.find(phrase))
    bounds = [0, *(b.end() for b in _CLAUSE.finditer(head)), len(head)]
    out: list[str] = []
    for at in sorted(set(starts)):
        lo = max(b for b in bounds if b <= at)
        hi = next((b.start() for b in _CLAUSE.finditer(head, at) if b.start() > at), len(head))
        if head[hi:hi + 1] == "?":
            continue
        clause = short(head[lo:hi].strip(), 120)
        if clause and clause not in out:
            out.append(clause)
    return out


def _replaced(sid: str, said: list[Said], steps: list[Step]) -> list[Found]:
    out: list[Found] = []
    # ``said`` is sorted by ordinal: the turn a report answers is read back to the user
    # message before it, the reply forward over :data:`REPLY` messages, the changes by
    # bisection (no scan of the whole session per user message)
    edits = [s.ordinal for s in steps if s.change]
    users = [j for j, x in enumerate(said) if x.role == "user"]
    for k, i in enumerate(users):
        u = said[i]
        kind = evidence_kind(u.text)
        if kind is None:
            continue
        since = users[k - 1] + 1 if k else 0
        prev = said[users[k - 1]].ordinal if k else -1
        turn = [x for x in said[since:i] if x.signal == "explains" and x.ordinal > prev]
        nxt = said[users[k + 1]].ordinal if k + 1 < len(users) else None
        after = []
        for x in said[i + 1:]:
            if x.ordinal - u.ordinal > REPLY:
                break
            if x.signal == "explains" and x.ordinal > u.ordinal \
                    and (nxt is None or x.ordinal < nxt):
                after.append(x)
        if kind == "still-there":
            # the report names what persists: the explanation of that in the turn it
            # answers (however long the turn was), and the reply's new one of it
            for clause in reports(u.text):
                about = tokens(clause) - _VAGUE
                # what persists ("overflows" of "bg still overflows") must be named
                what = _persisting(clause) or about
                # the diagnosis opens the turn; what follows it does the work
                mine = [x for x in turn if what & tokens(x.text)][:1]
                again = sorted((x for x in after if what & tokens(" ".join(claims(x.text)))),
                               key=lambda x: (len(about & tokens(" ".join(claims(x.text)))),
                                              -x.ordinal))
                if mine and again:
                    f = _disproved(sid, mine[-1], u, again[-1], kind, clause, about)
                    if f is not None and not any(g.session_id == sid and g.first == f.first
                                                 and g.ended == f.ended for g in out):
                        out.append(f)
        else:
            # pasted output answers the reply just before it; after a change the agent
            # made on it, a new error is the next problem (progress), not a disproof
            before = [x for x in turn if u.ordinal - x.ordinal <= ANSWER]
            if before and after and not _between(edits, before[-1].ordinal - 1, u.ordinal):
                f = _disproved(sid, before[-1], u, after[0], kind, "", frozenset())
                if f is not None:
                    out.append(f)
    return out


def _disproved(sid: str, a: Said, u: Said, r: Said, kind: str, clause: str,
               about: frozenset[str]) -> Found | None:
    """The episode of explanation ``a`` that the user's evidence ``u`` made the agent
    replace by reply ``r``, unless ``r`` confirms or restates it."""
    if _CONFIRM.search(r.text.lstrip()[:200]):
        return None
    first = claims(a.text)
    new = claims(r.text)
    if not first or not new:
        return None
    said_before = tokens(a.text) - _VAGUE
    said_after = tokens(r.text) - _VAGUE
    if len(said_before & said_after) < SUBJECT_SHARED:
        return None
    # the first cause: the claim nearest what the evidence is about
    near = about or said_after | tokens(u.text)
    cause = max(first, key=lambda c: len(tokens(c) & near))
    other = max(new, key=lambda c: len(tokens(c) & (about or said_before)))
    words = tokens(cause) - _VAGUE
    if not words or len(words & (tokens(other) if about else said_after)) \
            >= len(words) * RESTATED:
        return None  # the first cause restated: the same explanation, kept
    why = f"the user: «{clause}»" if clause else short(other, 200)
    return Found(
        session_id=sid, name=f"the explanation «{short(cause, 80)}»",
        first=a.ordinal, ended=r.ordinal, how="disproved",
        cause_text=f"{why} (after the user's evidence, #{u.ordinal})",
        why=why, evidence=_dedupe([(a.ordinal, "proposed", short(cause, 200)),
                                   (u.ordinal, "tested", kind),
                                   (r.ordinal, "ended", short(other, 200))]))
