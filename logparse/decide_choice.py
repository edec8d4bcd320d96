"""Decisions read from the structure of a conversation, not from a phrase of their own.

Two shapes (measured with ``python -m bench decisions``; the table of what the labels'
missed decisions are is in BENCHMARKS.md, "Decision events from structure"):

* **Approval.** A short user reply ("yes please", "ok", "sí", "sim, pode", "好的", "2",
  "1. no 2. no 3. no") right after an assistant reply that ends by asking (a question in
  its last paragraph) or that offers numbered options.  What was decided is what the
  agent proposed, so the decision event's text is the proposal: the option the number
  picks, the numbered questions with their answers, or the proposal's last question.
* **Agent choice.** The agent states the option it takes, in the first person, with the
  alternative it drops ("I'm starting the app on 3001 instead", "Let me use a PHP script
  instead", "I'll keep … as placeholders, rather than inventing …", "I'll use the
  `apply-grant` skill …").  The event carries the chosen option and, where the sentence
  states them, the rejected alternative and the reason.

Rules are data: every row is (name, language, pattern, a real example, where it was said),
each English agent row fires on real lines of at least two sessions, and
``tests/logparse/test_decide_choice.py`` walks them all.  The original prompt or reply
keeps its own event and class: the decision is an event of its own (source ``choice``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from logparse.sentences import SENTENCE_BREAK, split_sentences

# -- approvals ------------------------------------------------------------------------

# (name, language, a short affirmative reply's head, a real reply, where it was said).
# A head is matched at the start of the reply; what may follow is a few words more.
APPROVAL_ROWS: Final[tuple[tuple[str, str, str, str, str], ...]] = (
    ("en-yes", "en",
     r"(?:yes|yeah|yea|yep|yup|sure|ok(?:ay)?|alright|sounds\s+good|go\s+ahead|go\s+for\s+it"
     r"|do\s+it|please\s+do|proceed|lgtm|let['’]?s\s+do\s+it)\b",
     "Yes please",
     "pool/random__session.jsonl ordinals 16 and 33; labelled/stunning-memory ordinal 23; "
     "labelled/k1 ordinal 341"),
    ("es-si", "es",
     r"(?:s[ií]|dale|vale|de\s+acuerdo|adelante|hacelo|hazlo|perfecto|listo)(?![\w])",
     "Perfecto",
     "pool/conversacion-act1-pln__session.jsonl ordinal 44, its opening word ('Perfecto, "
     "formula esta obersavion …' after '¿Querés seguir con las preguntas del notebook?'); "
     "no shorter Spanish approval is in the data"),
    ("pt-sim", "pt",
     r"(?:sim|pode(?:\s+(?:seguir|fazer|sim|ir|retomar))?|beleza|fechado|perfeito|combinado)"
     r"(?![\w])",
     "sim, pode retomar o plano do F1-PBI-1",
     "labelled/pfm-categorization__opencode-session.json ordinal 21"),
    ("zh-hao", "zh",
     r"(?:好的?|可以|行|同意|是的|没问题|就这样|这个方案我(?:基本)?同意)",
     "这个方案我基本同意",
     "pool/matugen-theme-sync__opencode-session.json ordinal 6 (its opening clause)"),
)

_APPROVALS: Final = tuple((name, re.compile(r"\A[^\w一-鿿]{0,4}" + pat, re.IGNORECASE))
                          for name, _, pat, _, _ in APPROVAL_ROWS)
# a reply that is a pick from numbered options: "2", "option 2", "#2", "1. no 2. no 3. no"
_PICK: Final = re.compile(r"\A\W{0,3}(?:option\s*#?|opci[oó]n\s*|op[cç][aã]o\s*|#|选项?\s*)?"
                          r"(\d{1,2})\s*[.)]?\s*\Z", re.IGNORECASE)
_ANSWERS: Final = re.compile(r"(?:^|\s)(\d{1,2})[.)]\s*([^\d\n][^\n]*?)(?=\s+\d{1,2}[.)]\s|\Z)")
_NUMBERED: Final = re.compile(r"^[ \t]*(?:\*\*)?(\d{1,2})[.)](?:\*\*)?[ \t]+(.+)$", re.MULTILINE)
# an open question ("What would you like me to help with?") is not answered by "ok"
_OPEN: Final = re.compile(r"\A(?:so,?\s+)?(?:what|which|where|how|why|who|when|qu[eé]|cu[aá]l"
                          r"|c[oó]mo|d[oó]nde|por\s*qu[eé])\b|什么|哪|怎么|为什么", re.IGNORECASE)

APPROVAL_MAX: Final = 60
"""A reply longer than this (characters; 30 for CJK) gives an instruction of its own."""
_CJK: Final = re.compile(r"[一-鿿]")


def _asks(proposal: str) -> str | None:
    """The question the proposal ends by asking (the last two of its last paragraph), None
    for an open question (what, which, how …) that a "yes" does not answer.  Read in the
    proposal's last 600 characters, from a word's start: a token cut open there would
    show its end, which is no secret the scan knows."""
    whole = proposal.rstrip()
    tail = whole[-600:]
    if len(whole) > 600 and not whole[-601].isspace() and not tail[:1].isspace():
        tail = tail.split(None, 1)[1] if tail.split(None, 1)[1:] else ""
    para = tail.rsplit("\n\n", 1)[-1]
    qs = [q.strip(" \t\n*_>-") for q in split_sentences(para)]
    qs = [q for q in qs if len(q) > 3 and q.rstrip("*_`)").endswith(("?", "？"))]
    if not qs or _OPEN.search(qs[-1]):
        return None
    return " ".join(qs[-2:])  # "Want me to commit it? Something like `session.jsonl`?"


def _options(proposal: str) -> dict[int, str]:
    """The proposal's numbered items (the last list it holds), by number."""
    items: dict[int, str] = {}
    for m in _NUMBERED.finditer(proposal):
        n = int(m.group(1))
        if n == 1:
            items = {}
        items[n] = m.group(2).strip()
    return items


def _short(text: str, n: int = 200) -> str:
    """``text`` on one line, cut to ``n`` characters with ``…`` after it.  The cut never
    ends inside a word: a token cut open is no longer the secret the scan found in the
    reply (nor one a rule finds alone), and its head would show at default settings."""
    text = " ".join(text.split())
    if len(text) <= n:
        return text
    head = text[:n - 1]
    if text[n - 1] != " ":  # inside a word: it goes whole
        head = head.rsplit(" ", 1)[0] if " " in head else ""
    return head.rstrip() + "…"


def approval(reply: str, proposal: str | None) -> tuple[str, str] | None:
    """(row name, the decision's text) when ``reply`` (a user's prompt) approves what the
    assistant's reply before it (``proposal``) asked or offered, else None."""
    if not proposal:
        return None
    r = reply.strip()
    limit = 30 if _CJK.search(r) else APPROVAL_MAX
    if not r or len(r) > limit or r.startswith("<") or r.endswith(("?", "？")):
        return None
    options = _options(proposal)
    m = _PICK.match(r)
    if m and int(m.group(1)) in options:
        n = int(m.group(1))
        return "numbered-pick", f"Chose option {n}: {_short(options[n])}"
    answers = _ANSWERS.findall(r)
    if len(answers) >= 2 and all(int(n) in options for n, _ in answers):
        parts = [f"{n}. {_short(options[int(n)], 80)} → {a.strip()}" for n, a in answers]
        return "numbered-answers", "Answered: " + "; ".join(parts)
    asked = _asks(proposal)
    if asked is None:
        return None
    for name, rx in _APPROVALS:
        if rx.match(r):
            return name, f"Approved: {_short(asked)}"
    return None


# -- the agent's own choice ------------------------------------------------------------

_ME: Final = (r"(?:I['’]ll|I\s+will|I['’]m|I\s+am|let\s+me|let['’]s|we['’]ll|we\s+will"
              r"|we['’]re)")

# (name, language, pattern, a real line it fires on, where: at least two sessions)
AGENT_CHOICE_ROWS: Final[tuple[tuple[str, str, str, str, str], ...]] = (
    ("instead", "en",
     _ME + r"\s+(?:\w+\s+){0,3}?(?:use|using|go\s+with|going\s+with|switch(?:ing)?\s+to"
     r"|start(?:ing)?|take|taking|try|trying|pass|passing|copy|copying|make"
     r"|making)\b[^.!?\n]{0,160}?"
     r"\binstead\b",
     "Port 3000 is occupied outside the sandbox. I’m starting the app on 3001 instead.",
     "labelled/soulpass__codex-session.jsonl ordinals 146 and 302; labelled/uicomponents__"
     "session-wordpress.json ordinal 29; labelled/uicomponents__session-export.json ordinal "
     "201"),
    ("will-use", "en", r"\b(?:I|we)(?:['’]ll|\s+will)\s+use\b",
     "I’ll use the `apply-grant` skill for the grant workflow, then verify the current "
     "SolAUDD grant details",
     "pool/Rivo__codex-session.jsonl ordinals 5 and 62; labelled/Valdyum-Labs ordinal 3; "
     "pool/random__session.jsonl ordinal 6"),
    ("am-using", "en", r"(?:^|[.:;!]\s+|\bso\s+)(?:I['’]m|we['’]re)\s+using\b",
     "The bundled export script itself is hitting a Git Bash signal-pipe permission error, "
     "so I’m using its documented fallback",
     "labelled/Valdyum-Labs ordinal 68; labelled/Trezo-Ai ordinal 3"),
    ("rather-than", "en", r"\b(?:I|we)(?:['’]ll|\s+will|['’]m|\s+am|['’]re)\s+[^.!?\n]{0,120}"
     r"\brather\s+than\b",
     "I’ll keep anything personal that I can’t infer as placeholders, rather than inventing "
     "wallet, Telegram, or X details.",
     "pool/Rivo__codex-session.jsonl ordinal 19; labelled/soulpass ordinal 199"),
)

_AGENT: Final = tuple((name, re.compile(pat, re.IGNORECASE | re.MULTILINE))
                      for name, _, pat, _, _ in AGENT_CHOICE_ROWS)
_LEAD: Final = re.compile(_ME + r"\s+(?:also\s+|now\s+|just\s+)?", re.IGNORECASE)
_CLAUSE_END: Final = (r"(?=[;:]\s|,\s+(?:so|then|and\s+then|and\s+I|which|because|since)\b"
                      r"|\s+so\s+(?:that|the|it|we|I)\b|[.!?]?\Z)")
_REJECTED: Final = re.compile(r"\b(?:instead\s+of|rather\s+than)\s+(.+?)" + _CLAUSE_END,
                              re.IGNORECASE)
_BECAUSE: Final = re.compile(r"\b(?:because|since|so\s+that|as\s+it)\s+(.+?)(?=[.!?]?\Z)",
                             re.IGNORECASE)
_SO: Final = re.compile(r"^(.{8,}?)(?<!\s),?\s+so\s+" + _ME, re.IGNORECASE)
"""A sentence's chosen part before "…, so I'll"; the clause may end only where a
whitespace run starts, so a long run is not scanned again from each of its characters."""
_TRAIL: Final = re.compile(r"(?<![\s,;:—–-])[\s,;:—–-]*\b(?:instead|instead\s+of\s+.*|rather\s+than\s+.*"
                           r"|because\s+.*|since\s+.*|so\s+that\s+.*)\Z",
                           re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Choice:
    """What the agent chose, what it dropped and why, as far as its sentence says."""
    rule: str
    chosen: str
    rejected: str | None
    reason: str | None

    def text(self) -> str:
        out = f"Chose: {self.chosen}"
        if self.rejected:
            out += f" (not: {self.rejected})"
        if self.reason:
            out += f"; because {self.reason}"
        return out


def agent_choice(text: str) -> Choice | None:
    """The choice the agent's reply ``text`` states in the first person, else None (read
    in its first 3,000 characters, to a word's end: a token cut open there would show its
    head, which is no secret the scan knows)."""
    head = text[:3000]
    if len(text) > 3000 and not text[3000].isspace() and not text[2999].isspace():
        head = head.rsplit(None, 1)[0] if head.split(None, 1)[1:] else ""
    for name, rx in _AGENT:
        m = rx.search(head)
        if m is None:
            continue
        sentence = _sentence_at(head, m.start(), m.end())
        start = sentence.lower().find(m.group().strip().lower()[:12])
        said = sentence[max(start, 0):]
        so = _SO.match(sentence)
        lead = _LEAD.search(said)
        if name in ("instead", "rather-than"):  # the clause the alternative belongs to
            leads = list(_LEAD.finditer(m.group()))
            at = said.find(m.group())
            if leads and at >= 0:
                lead = _LEAD.search(said, at + leads[-1].start())
        chosen = said[lead.end():] if lead and lead.start() < 30 or name in (
            "instead", "rather-than") and lead else said
        chosen = _cut(chosen)
        chosen = _TRAIL.sub("", chosen.strip(" .:;,")).strip(" .:;,")
        rej = _REJECTED.search(sentence)
        why = _BECAUSE.search(said)
        reason = why.group(1) if why else (so.group(1) if so else None)
        if reason and reason[:2].istitle():  # "The script fails, so I'm …": "the script …"
            reason = reason[0].lower() + reason[1:]
        if not chosen:
            continue
        return Choice(name, _short(chosen, 160),
                      _short(rej.group(1).strip(" .:;,"), 120) if rej else None,
                      _short(reason.strip(" .:;,"), 160) if reason else None)
    return None


_CUT: Final = re.compile(r"[;:]\s|,\s+(?:so|then|and\s+then|and\s+I|which|because|since)\b"
                        r"|(?<!\s)(?:\s+so\s+(?:that|the|it|we|I)\b|,?\s+then\s)", re.IGNORECASE)
r"""Where a chosen option's clause ends.  A whitespace run is entered only at its first
character (``(?<!\s)``): the leftmost match is the same, and a long run is not scanned
again from each of its characters."""


def _cut(chosen: str) -> str:
    """The chosen option without the clauses after it (what comes next, why)."""
    m = _CUT.search(chosen)
    return chosen[:m.start()] if m else chosen


def _sentence_at(text: str, start: int, end: int) -> str:
    """The sentence of ``text`` that holds ``text[start:end]``."""
    a = 0
    for m in SENTENCE_BREAK.finditer(text):
        if m.end() <= start:
            a = m.end()
        elif m.start() >= end:
            return text[a:m.start()].strip()
    return text[a:].strip()
