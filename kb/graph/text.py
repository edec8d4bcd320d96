"""Text rules of the knowledge graph: names, tokens, causes, questions.

Everything here is deterministic string work on short texts (todo items, a
sentence of prose, an error signature).  The rules are written for wording that
varies: an approach is matched across snapshots by its *salient tokens*, not by
its exact text, and a cause is reduced to a *root* (``SM120 unsupported``,
``out of memory``, ``deep_ep not installed``) so that dead ends sharing a root
cause share one node.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

# --------------------------------------------------------------------- tokens
_WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+/=-]*")
STOPWORDS = frozenset("""
a an the and or of on in to for with via by at as from into onto vs versus than then
is are be it its this that these those we our us i me my let lets let's try trying tried
test testing check checking use using enable enabling force forcing switch attempt
see look go do does did make new again also just only more less all any some
now still first next step approach option idea plan way""".split())
_VERB_PREFIX = re.compile(
    r"^(?:(?:let'?s|let me|we(?:'ll| will)?|i(?:'ll| will)?|now|next:?|then)\s+)*"
    r"(?:re-?)?(?:try|trying|test|testing|check|checking|evaluate|evaluating|enable|enabling|"
    r"force|forcing|use|using|switch to|switching to|attempt|attempting|investigate|"
    r"investigating|explore|exploring|implement|implementing|add|adding|build|building|"
    r"set up|setup|configure|configuring|benchmark|benchmarking|prototype|prototyping)\b\s*",
    re.I)
STATUS_MARKS = "❌✅✔✘✗⛔🚫"
_STATUS_WORDS = (r"(?:dead[\s-]*end|abandon\w*|blocked|cancel\w*|supersed\w*|dropped|done|"
                 r"works|worked|failed|fails|no[\s-]?go|won'?t work|ruled out|parked|shelved|"
                 r"skip\w*|not needed|obsolete|waiting|[" + STATUS_MARKS + "])")
_ANNOTATION_SPLIT = re.compile(
    r"(?<!\s)\s+(?:—|–|--|\|)\s+"
    r"|(?<!\s)\s+(?:->|=>|→)\s+(?=" + _STATUS_WORDS + ")"
    r"|:\s+(?=[A-Z0-9]|" + _STATUS_WORDS + ")"
    r"|(?<!\s)\s*+\(\s*+(?=" + _STATUS_WORDS + ")"
    r"|(?<!\s)\s++(?=[" + STATUS_MARKS + "])", re.I)
_ARCH = re.compile(r"\b(?:sm_?|compute_)(\d{2,3})[a-z]?\b", re.I)


_NON_ALNUM = re.compile(r"[^a-z0-9]")
_SEPARATORS = re.compile(r"[_.=/+-]+")


def squash(word: str) -> str:
    return _NON_ALNUM.sub("", word.lower())


@lru_cache(maxsize=65536)
def tokens(text: str) -> frozenset[str]:
    """Salient tokens of a name: lowercased, ``_``/``-`` squashed, stopwords dropped.

    ``NCCL_ALGO=Tree`` → {ncclalgotree, nccl, algo, tree}; ``DeepEP`` and
    ``deep_ep`` both give ``deepep``; architectures normalise (``compute_120a``
    → ``sm120``).  Only the first 4,000 characters are read (commands can be
    whole scripts)."""
    out: set[str] = set()
    for w in _WORD.findall(text[:4000].lower()):
        w = w.strip("._-=+/")
        if not w:
            continue
        if w[0] in "sc" and _ARCH.fullmatch(w):
            out.add("sm" + _ARCH.fullmatch(w).group(1))  # type: ignore[union-attr]
            continue
        if _NUMBER.fullmatch(w):
            if len(w) > 1:
                out.add(w)  # "12.8" stays itself: squashed it would be "128"
            continue
        if w.isalnum():
            if w not in STOPWORDS and len(w) > 1:
                out.add(_stem(w))
            continue
        sq = _NON_ALNUM.sub("", w)
        if sq and sq not in STOPWORDS and len(sq) > 1:
            out.add(_stem(sq))
        for p in _SEPARATORS.split(w):
            if p and p not in STOPWORDS and len(p) > 1:
                out.add(_stem(p))
    return frozenset(out)


_NUMBER = re.compile(r"[0-9][0-9.,]*")


def _stem(word: str) -> str:
    """Plural to singular, crudely ("connections" → "connection"; "nsys", "class" kept)."""
    if len(word) > 4 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    """Overlap of two token sets (Szymkiewicz–Simpson: robust to one name being longer)."""
    if not a or not b:
        return 0.0
    return len(a & b) / min(len(a), len(b))


# ---------------------------------------------------------------------- names
@dataclass(frozen=True, slots=True)
class TodoText:
    """A todo item's text split into the thing to try and what was said about it."""

    name: str
    note: str | None


def _depth_at(text: str, i: int) -> int:
    return text.count("(", 0, i) - text.count(")", 0, i)


def split_todo(text: str) -> TodoText:
    """``"FlashInfer allreduce fusion — DEAD END: no SM120"`` → name + note.

    Separators: a dash or bar, an arrow or colon followed by a status word, an
    opening parenthesis followed by one, or a status mark (❌ ✅ …).  A leading
    mark (``"❌ PgBouncer pooling: locks break"``) belongs to the note."""
    t = " ".join(text.split())
    lead = ""
    while t and t[0] in STATUS_MARKS:
        lead += t[0]
        t = t[1:].lstrip()
    name, note = t, None
    for m in _ANNOTATION_SPLIT.finditer(t):
        if m.start() >= 3 and _depth_at(t, m.start()) == 0:
            name, note = t[: m.start()], t[m.end():].strip()
            if m.group(0).strip().startswith("(") and note.endswith(")"):
                note = note[:-1]
            break
    if lead:
        note = f"{lead} {note}" if note else lead
    if item_kind(t) == "approach":
        name = _VERB_PREFIX.sub("", name)
        name = re.sub(r"^(?:the|a|an)\s+", "", name, flags=re.I)
    name = name.strip(" .:;-")
    name = name[:1].upper() + name[1:] if name else t
    return TodoText(name=name, note=note or None)


_GOAL_VERB = re.compile(r"\b(?:make|get|have)\b", re.I)
_GOAL_END = re.compile(r"\b(?:faster|profitable|work|pass|green|fast)\b", re.I)
_GOAL_WORD = re.compile(r"\bgoal\b", re.I)


def _is_goal(text: str) -> bool:
    """``goal`` named, or make/get/have followed on its line by an end (``get X to pass``).
    One scan: the first verb of a line leaves the most of it to find an end in (a single
    ``verb.*end`` pattern tried every verb against the rest of the line, quadratic on a
    long line of them)."""
    if _GOAL_WORD.search(text):
        return True
    for line in text.split("\n"):
        v = _GOAL_VERB.search(line)
        if v is not None and _GOAL_END.search(line, v.end()) is not None:
            return True
    return False
_TASK = re.compile(r"^(?:re-?)?(?:measure|profile|benchmark|record|document|write|read|"
                   r"review|summari[sz]e|collect|gather|snapshot|back ?up|update|upgrade|"
                   r"rebuild|install|clean|verify|confirm|report|commit|push)\b", re.I)


def item_kind(text: str) -> str:
    """``goal``, ``task`` (a step of work) or ``approach`` (a thing to try)."""
    if _is_goal(text) and not _VERB_PREFIX.match(text):
        return "goal"
    if _TASK.match(text.strip()):
        return "task"
    return "approach"


_ANNOUNCE = re.compile(
    r"(?:^|[.!:\n][^\S\n]*|\b(?:so|now|next)\s+)"
    r"(?:let(?:'s| me| us)|i(?:'ll| will)|we(?:'ll| will)|time to|moving on to|next(?: up)?:?)\s+"
    r"(?:(?:also|now|quickly|first|then)\s+)?"
    r"(?P<verb>(?:re-?)?(?:try|test|evaluate|enable|force|switch to|attempt|explore|prototype|"
    r"go with|check))\s+"
    r"(?:(?:whether|if)\s+)?(?P<what>[^.:;!?\n]{3,90})", re.I)
_CHECKABLE = re.compile(r"\b(?:backend|flag|option|mode|algorithm|algo|kernel|fusion|path)\b",
                        re.I)
_TRAILING = re.compile(r"(?<!\s)\s+(?:instead|next|now|first|again|too|as well|here|there|quickly|"
                       r"to see.*|to check.*|to find.*|so that.*|which.*|that.*|and see.*|"
                       r"on the box.*|on .* box.*)$", re.I)


_NOT_A_NAME = re.compile(r"^(?:from|on|at|in|to|with|again|it|this|that|them|out|there|here|"
                         r"running|whether|if|and|or|but|so|one|something|anything)\b", re.I)


def announced(text: str) -> list[str]:
    """Things the prose says it will try: ``Let me check flashinfer A2A backend:``."""
    out = []
    for m in _ANNOUNCE.finditer(text):
        if _NOT_A_NAME.match(m.group("what").strip(" `*\"'")):
            continue  # "I'll try from there": a place, not a thing to try
        if m.group("verb").lower() == "check" and not _CHECKABLE.search(m.group("what")):
            continue  # "let me check the log" is routine; "check the X backend" is a trial
        what = _TRAILING.sub("", m.group("what").strip(" `*\"'"))
        what = re.sub(r"^(?:the|a|an|our|this|that)\s+", "", what, flags=re.I).strip(" `")
        if len(tokens(what)) >= 1 and len(what) >= 3:
            out.append(what)
    return out


# --------------------------------------------------------------------- causes
_MISSING = re.compile(
    r"(?:No module named ['\"]?(?P<mod>[\w.]+)|ModuleNotFoundError:?\s*(?P<mod2>[\w.]+)"
    r"|(?<![\w.-])(?P<mod3>[\w.-]+)\s+(?:is\s+|was\s+)?not installed|not installed(?::\s*(?P<mod4>[\w.-]+))?"
    r"|Package\(s\) not found:?\s*(?P<mod5>[\w.-]+)|(?<![\w.-])(?P<mod6>[\w.-]+):\s*command not found"
    r"|missing (?:dependency|package|module):?\s*(?P<mod7>[\w.-]+)"
    r"|No matching distribution found for (?P<mod8>[\w.-]+))", re.I)
_NOT_A_MODULE = frozenset("""a an the it its this that which is was here there yet still also
blocked module package anything nothing something one driver library so and but not""".split())
_UNSUPPORTED = re.compile(
    r"unsupported|not supported|no (?:[\w.-]+ ){0,2}support|doesn'?t support|does not support|"
    r"lacks? (?:[\w.-]+ )?support|support (?:for [\w.-]+ )?is missing|"
    r"cannot build|can'?t build|can'?t compile|cannot compile|missing from|not in (?:the )?"
    r"(?:\w+ )?(?:lookup )?table|not (?:yet )?(?:available|implemented) for|too (?:old|new)|"
    r"isn'?t supported|no kernels? for|not compiled for|incompatible with", re.I)
_UNBALANCED = re.compile(
    r"Unclosed '[\[({]'|was never closed|unmatched '[\])}]'|does not match '[\])}]'"
    r"|Unexpected token '?[\])}]|expected '[\])}]'|mismatched (?:brackets|parenthes\w+|braces)"
    r"|unbalanced (?:brackets|parenthes\w+|braces)", re.I)
"""Parsers' words for a bracket opened and not closed (PHP, Python, JS, Rust)."""
_OOM = re.compile(r"out of memory|\bOOM\b|OutOfMemoryError|memory exhausted|oom-kill", re.I)
_SATURATE = re.compile(r"saturat|contention|bandwidth[- ]bound|congest", re.I)
_BUS = re.compile(r"\b(PCIe|NVLink|network|disk|memory bus|QPI|UPI|Infiniband|IB)\b", re.I)
_INCOMPATIBLE = re.compile(
    r"\b(?:breaks?|broke|incompatible with|not compatible with|conflicts? with"
    r"|fails? (?:during|in|under))\s+(?:the\s+|a\s+)?"
    r"(?P<what>[A-Za-z][\w.+-]*(?:\s+(?!capture|mode|support|when|because|on|in|with|for|and"
    r"|or|but|so)[A-Za-z][\w.+-]*){0,2})", re.I)
_SLOW = re.compile(r"slower|regress|worse than|no (?:faster|gain|speedup|improvement)|"
                   r"lower throughput", re.I)
_RATES = re.compile(r"\b(\d+(?:\.\d+)?)\s*(?:[A-Za-z]+/s(?:ec)?|[A-Z]?QPS|IOPS)\b[^.;\n]*?"
                    r"\b(?:vs\.?|versus|against|compared (?:to|with))\s+[^\d\n]{0,30}?"
                    r"(\d+(?:\.\d+)?)", re.I)
"""A rate set against another (``89.5 tok/s vs 120``, ``1200 req/s against 1500``)."""


def _slower(text: str) -> bool:
    """Whether a text says something ran slower: in words, or a rate below the one it is
    compared with (a rate above it is a gain)."""
    if _SLOW.search(text):
        return True
    return any(float(m.group(1)) < float(m.group(2)) for m in _RATES.finditer(text))
_ENTITY = re.compile(
    r"\b(?:sm_?\d{2,3}[a-z]?|compute_\d{2,3}[a-z]?|[A-Z][A-Za-z]*\d+[A-Za-z0-9.]*|"
    r"[A-Za-z]+ ?\d+(?:\.\d+)+|[A-Z]{2,}[A-Za-z0-9]*|Blackwell|Hopper|Ampere|ROCm|arm64|"
    r"aarch64|musl|Windows|macOS)\b")
_GENERIC_ENTITIES = frozenset({"JIT", "CUDA", "GPU", "GPUS", "API", "OK", "DEAD", "END", "OOM",
                               "NVCC", "PCIE", "IO", "CPU", "NCCL", "GIB", "GB", "MB", "MS",
                               "HTTP", "HTTPS", "URL", "JSON", "SQL", "CLI"})
"""Words too general to be the thing a cause is about (units, device kinds, formats)."""
_ABBREVIATION = re.compile(r"[A-Z]{1,3}|[A-Z]\d[A-Z]")
"""Short acronyms (``TP``, ``EP``) and letter-digit-letter ones (``A2A``, ``P2P``) name
a mode or a protocol, not the platform something is unsupported on."""


@dataclass(frozen=True, slots=True)
class Cause:
    """A normalised cause: ``key`` identifies the root shared by several dead ends."""

    key: str
    label: str
    kind: str
    """``unsupported``, ``missing``, ``oom``, ``saturation``, ``incompatible``, ``slow``,
    ``transport``, ``error`` or ``stated``."""


def _entity(text: str) -> str | None:
    arch = _ARCH.search(text)
    if arch:
        return f"SM{arch.group(1)}"
    for m in _ENTITY.finditer(text):
        e = m.group(0)
        if e.upper() in _GENERIC_ENTITIES or _ABBREVIATION.fullmatch(e) \
                or re.search(r"(?:Error|Exception)\b", e):
            continue
        if re.fullmatch(r"\d+", e):
            continue
        return e
    return None


def cause_of(text: str, signature: str | None = None) -> Cause:
    """The root cause a dead-end note, a concluding sentence or an error signature states."""
    both = f"{text} {signature or ''}"
    m = _MISSING.search(both)
    if m:
        mods = [g.strip(".,;:'\"") for g in m.groups() if g]
        mods = [g for g in mods if g.lower() not in _NOT_A_MODULE]
        if not mods and signature:
            sm = _MISSING.search(signature)
            mods = [g.strip(".,;:'\"") for g in (sm.groups() if sm else ()) if g]
        if mods:
            return Cause(key=f"missing:{squash(mods[0])}", label=f"{mods[0]} not installed",
                         kind="missing")
        return Cause(key="missing:prerequisite", label="a prerequisite is not installed",
                     kind="missing")
    if _OOM.search(both):
        return Cause(key="oom", label="out of memory", kind="oom")
    if _UNSUPPORTED.search(both):
        ent = _entity(both)
        if ent:
            return Cause(key=f"unsupported:{squash(ent)}", label=f"{ent} unsupported",
                         kind="unsupported")
    if _SATURATE.search(both):
        bus = _BUS.search(both)
        what = bus.group(1) if bus else "interconnect"
        return Cause(key=f"saturation:{squash(what)}", label=f"{what} saturation",
                     kind="saturation")
    m = _INCOMPATIBLE.search(both)
    if m:
        what = m.group("what")
        return Cause(key=f"incompatible:{squash(what)}", label=f"incompatible with {what}",
                     kind="incompatible")
    if _slower(both):
        return Cause(key="slow", label="slower than the baseline", kind="slow")
    if signature:
        label = f"unbalanced brackets: {signature}" if _UNBALANCED.search(signature) \
            else signature
        return Cause(key=f"error:{squash(signature)[:60]}", label=label, kind="error")
    label = short(text, 80)
    return Cause(key=f"stated:{'-'.join(sorted(tokens(label)))[:80]}", label=label,
                 kind="stated")


_VERSIONED = re.compile(r"\b([A-Za-z][A-Za-z_+-]{1,20})[ -]?v?(\d+\.\d+(?:\.\d+)?)\+?\b")


def version_entity(text: str) -> str | None:
    """A named platform at a version (``glibc 2.31``, ``driver 470.x``), if a text gives one."""
    m = _VERSIONED.search(text)
    if m and m.group(1).lower() not in ("version", "v", "step", "at", "of", "to", "from", "is"):
        return f"{m.group(1)} {m.group(2)}"
    arch = _ARCH.search(text)
    return f"SM{arch.group(1)}" if arch else None


def short(text: str, width: int = 100) -> str:
    t = " ".join(text.split())
    return t if len(t) <= width else t[: width - 1] + "…"


def sentence_bounds(text: str, i: int) -> tuple[int, int]:
    """Where the sentence of ``text`` around index ``i`` starts and ends (its full stop
    included)."""
    start = max(text.rfind(". ", 0, i), text.rfind("\n", 0, i)) + 1
    ends = [j for j in (text.find(". ", i), text.find("\n", i)) if j >= 0]
    return start, min(ends) + 1 if ends else len(text)


def sentence_with(text: str, phrase: str) -> str:
    """The sentence of ``text`` that contains ``phrase``."""
    i = text.lower().find(phrase.lower())
    if i < 0:
        return short(text, 200)
    start, end = sentence_bounds(text, i)
    return short(text[start:end].strip(), 240)


def lead_up(text: str, phrase: str) -> str:
    """The sentence of ``text`` that contains ``phrase``, after the sentence before it in
    its paragraph when that one reports what happened ("The export is interactive. Let me
    pass the id instead.")."""
    i = text.lower().find(phrase.lower())
    if i < 0:
        return short(text, 240)
    turn = sentence_with(text, phrase)
    para = max(text.rfind("\n", 0, i), -1) + 1
    start = text.rfind(". ", para, i)
    if start < 0:
        return turn
    before = text[para:start + 1]
    prev = before[before.rfind(". ") + 2 if ". " in before else 0:].strip()
    if len(prev) < 12 or _PLAN.match(prev):
        return turn
    return short(f"{prev} {turn}", 300)


_PLAN = re.compile(r"^(?:let me|let's|i'll|i will|i need|i should|now|next|ok|okay|good|great)\b",
                   re.I)
_CLAUSE = re.compile(r";|\s[—–]\s|\s--\s|,?(?<!\s)\s+but\s|,?(?<!\s)\s+however\s|,\s+so\s",
                     re.I)


def clause_with(text: str, phrase: str) -> str:
    """The clause of the sentence holding ``phrase``: "X is a dead end; Y unblocks it" → X."""
    sentence = sentence_with(text, phrase)
    i = sentence.lower().find(phrase.lower())
    if i < 0:
        return sentence
    start = 0
    for m in _CLAUSE.finditer(sentence):
        if m.end() <= i:
            start = m.end()
        elif m.start() >= i + len(phrase):
            return sentence[start:m.start()].strip()
    return sentence[start:].strip()


_FORWARD = re.compile(r"\b(?:next(?: up)?|then|instead|moving on|let'?s|let me|switch(?:ing)? to|"
                      r"now (?:try|on to)|on to)\b", re.I)


def before_forward(sentence: str) -> str:
    """The part of a sentence before it turns to what comes next."""
    m = _FORWARD.search(sentence)
    return sentence[: m.start()] if m and m.start() > 0 else sentence


RETEST = re.compile(r"\b(?:re-?test|retry|re-?try|revisit|re-?check|re-?measure|again)\b", re.I)


# -------------------------------------------------------------------- questions
TRANSPORT_SIGNATURES = ("Host key verification failed", "Connection timed out",
                        "Connection refused", "Permission denied (publickey)",
                        "Could not resolve hostname", "No route to host",
                        "Connection closed by remote host", "Connection reset")
_PY_IMPORT = re.compile(r"(?:^|[;\s\"'])(?:import\s+([\w.]+)|from\s+([\w.]+)\s+import)")


def transport_failure(signatures: list[str]) -> str | None:
    for s in signatures:
        for t in TRANSPORT_SIGNATURES:
            if s.startswith(t):
                return s
        if s.startswith("command not found: ") and s.split(": ", 1)[1] in (
                "ssh", "sshpass", "scp", "rsync", "mosh"):
            return s
    return None


def question_of(command: str, host: str | None) -> str:
    """What a check asks, in words: ``is deepep importable on 10.1.230.174?``."""
    mods = [a or b for a, b in _PY_IMPORT.findall(command)]
    where = f" on {host}" if host else ""
    if mods and ("python" in command and " -c" in command):
        return f"is {', '.join(dict.fromkeys(mods))} importable{where}?"
    return f"what does `{short(command, 90)}` report{where}?"
