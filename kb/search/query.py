"""The search language of ``logkb search`` and the TUI, read into a small tree.

Pure Python (no tantivy, no DuckDB): :func:`parse` turns the text a user typed
into nodes that :mod:`kb.search.index` turns into a tantivy query and
:func:`to_sql` into the equivalent DuckDB condition (the scan used when there
is no index), so both answer the same question.

The language:

- Words written together are a **phrase**: ``KeyError: 12`` and ``Host key
  verification failed`` match those words in that order, whatever punctuation
  or spaces lie between them; case does not matter.  A word is a run of
  letters and digits (tantivy's default tokenizer: ``10.1.230.174`` is four words
  in a row, and ``deep_ep`` is two, so it also matches ``deep-ep``; words longer
  than 40 bytes, hashes mostly, are not indexed).  ``"quotes"`` make a phrase explicit.
- A trailing ``*`` makes the last word a **prefix**: ``flashinf*``, ``"import deep*"``.
- **Boolean**: ``AND`` (also what separates clauses by default), ``OR``, ``NOT``
  and parentheses; ``-"phrase"``, ``-(…)`` and ``-field:value`` negate (a bare
  ``-word`` stays a word: commands are full of ``-c`` and ``--force``).
- **Field filters**: ``session:`` (id or prefix), ``kind:`` (command, result,
  prompt, decision, todo, error, …), ``tool:``, ``host:``, ``cat:``/``category:``,
  ``field:`` (command, output, prose, todo, other), comma-separated values are
  alternatives; ``ordinal:5214``, ``ordinal:5200..5300``, ``ordinal:>=5214``,
  ``time:2026-01-05``, ``time:2026-01-05..2026-01-07``, ``time:>1767600000000``.
- A query without any of this syntax is one phrase, exactly what earlier
  versions' substring search answered for whole words.
- **Chinese, Japanese and Korean** are written without spaces: a word with a CJK
  character in it (:data:`CJK`) matches anywhere inside a longer run of letters
  (``数据库`` finds ``连接数据库失败``).  The index holds the character pairs (bigrams)
  of such words (:func:`cjk_terms`) and asks for the query word's pairs in a row; the
  scan asks for the word as a substring.  Such a word is a clause of its own: the
  words around it are not a phrase with it.  A word of another script written against
  CJK characters is a word of its own: ``matugen`` finds ``我的matugen脚本`` (the index's
  ``glued`` field, :func:`glued_text`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

from logparse.kinds import Category, EventKind

WORD = re.compile(r"[^\W_]+")
"""A word: letters and digits, as tantivy's default tokenizer splits text."""
MAX_WORD = 40
"""Longer words (in UTF-8 bytes: hashes, base64) are not indexed (the tokenizer's limit)."""
_CJK_RANGES = ((0x3040, 0x30FF), (0x31F0, 0x31FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
               (0xAC00, 0xD7AF), (0xF900, 0xFAFF), (0xFF66, 0xFF9F), (0x20000, 0x2FA1F))
"""Kana, CJK ideographs (with extension A, compatibility and the supplementary planes),
Hangul syllables and half-width katakana: scripts written without spaces between words."""
CJK_CLASS = "".join(f"{chr(a)}-{chr(b)}" for a, b in _CJK_RANGES)
"""The character class (without brackets) for Python's :mod:`re`."""
CJK_CLASS_RE2 = "".join(f"\\x{{{a:x}}}-\\x{{{b:x}}}" for a, b in _CJK_RANGES)
"""The same class for RE2 (DuckDB)."""
CJK = re.compile(f"[{CJK_CLASS}]")

TEXT_FILTERS = {"session": "session", "kind": "kind", "tool": "tool", "host": "host",
                "cat": "category", "category": "category", "field": "field"}
"""Filter names the user may write → the field they filter."""
RANGE_FILTERS = {"ordinal": "ordinal", "time": "time"}
FIELDS = ("command", "output", "prose", "todo", "other")
"""What a search unit is: a command, its output, prose, a todo list, other event text."""


_VALID: dict[str, tuple[str, ...]] = {
    "kind": tuple(k.value for k in EventKind), "category": tuple(c.value for c in Category),
    "field": FIELDS}
"""The values a filter can match (``tool:``, ``host:`` and ``session:`` take any)."""


class QueryError(ValueError):
    """The query cannot be read (unbalanced parentheses, a bad range…); ``hint``: what
    to type instead, when there is something."""

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.hint = hint


# ---------------------------------------------------------------------- nodes
@dataclass(frozen=True)
class Text:
    """Words in this order (a phrase; one word is a term); ``prefix``: the last is a prefix."""

    words: tuple[str, ...]
    prefix: bool = False


@dataclass(frozen=True)
class Match:
    """A field equal to one of ``values`` (``session`` matches a prefix)."""

    field: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class Range:
    """An integer field within ``[low, high]`` (``None``: unbounded)."""

    field: str
    low: int | None
    high: int | None


@dataclass(frozen=True)
class And:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Or:
    children: tuple[Node, ...]


@dataclass(frozen=True)
class Not:
    child: Node


@dataclass(frozen=True)
class Everything:
    """No condition at all (an empty query)."""


Node = Text | Match | Range | And | Or | Not | Everything


def words(text: str) -> list[str]:
    """The indexed words of ``text``, lowercased (what the tokenizer makes of it; a word
    with a CJK character is kept whatever its length: its pairs are indexed)."""
    return [w.lower() for w in WORD.findall(text)
            if len(w.encode()) < MAX_WORD or CJK.search(w)]


def has_cjk(word: str) -> bool:
    """Whether ``word`` has a Chinese, Japanese or Korean character in it."""
    return CJK.search(word) is not None


def bigrams(word: str) -> list[str]:
    """The overlapping character pairs of ``word``, lowercased (itself when shorter)."""
    w = word.lower()
    return [w] if len(w) < 2 else [w[i:i + 2] for i in range(len(w) - 1)]


def cjk_terms(text: str) -> list[str] | None:
    """What the index's ``cjk`` field holds of ``text``: for each word with a CJK character
    in it, its pairs (:func:`bigrams`) joined by spaces (one value per word, so that no
    pair spans two words); ``None`` when there is none.  The same as the SQL
    :func:`cjk_terms_sql` makes of it."""
    if text.isascii() or not CJK.search(text):
        return None
    # the words, then those with a CJK character: a pattern for a word with one in it
    # (``[^\\W_]*[CJK][^\\W_]*``) runs over a long word without any from each of its
    # characters (quadratic: 40,000 letters of base64 beside one cost 13 s)
    return [" ".join(bigrams(w)) for w in WORD.findall(text.lower())
            if CJK.search(w)] or None


def cjk_terms_sql(col: str) -> str:
    """:func:`cjk_terms` in DuckDB's SQL, of the text column ``col`` (NULL without CJK)."""
    # (text all ASCII, most of it, is told at once: its bytes are its characters)
    return (f"CASE WHEN strlen({col}) <> length({col}) AND "
            f"regexp_matches({col}, '[{CJK_CLASS_RE2}]') THEN list_transform("
            f"regexp_extract_all(lower({col}), '[\\pL\\pN]*[{CJK_CLASS_RE2}][\\pL\\pN]*'), "
            "lambda w: CASE WHEN length(w) < 2 THEN w ELSE array_to_string(list_transform("
            "range(1, length(w)), lambda i: substr(w, i, 2)), ' ') END) END")


_LATIN = f"[^\\W_{CJK_CLASS}]"
"""A letter or digit of a script written with spaces (Python's :mod:`re`)."""
_GLUED = re.compile(f"[{CJK_CLASS}]{_LATIN}|{_LATIN}[{CJK_CLASS}]")
_LATIN_RE2 = f"[^\\pM\\pP\\pS\\pZ\\pC{CJK_CLASS_RE2}]"
"""The same for RE2 (a letter or digit: neither a mark, punctuation, symbol, separator
nor other; RE2 cannot subtract classes)."""


def glued_text(text: str) -> str | None:
    """What the index's ``glued`` field holds of ``text`` whose words of other scripts are
    written against Chinese, Japanese or Korean (``我的matugen脚本``): the text with each
    CJK character set apart by spaces, so that ``matugen`` is a word there (the ``body``
    field's tokenizer keeps ``我的matugen脚本`` one word); ``None`` for any other text.  The
    same as the SQL :func:`glued_text_sql` makes of it."""
    if text.isascii() or not _GLUED.search(text):
        return None
    return CJK.sub(r" \g<0> ", text)


def glued_text_sql(col: str) -> str:
    """:func:`glued_text` in DuckDB's SQL, of the text column ``col``."""
    return (f"CASE WHEN strlen({col}) <> length({col}) AND regexp_matches({col}, "
            f"'[{CJK_CLASS_RE2}]{_LATIN_RE2}|{_LATIN_RE2}[{CJK_CLASS_RE2}]') THEN "
            f"regexp_replace({col}, '([{CJK_CLASS_RE2}])', ' \\1 ', 'g') END")


def text_parts(t: Text) -> list[Text]:
    """The clauses ``t`` is answered as: each run of words without a CJK character a
    phrase (the last keeps ``prefix``), each word with one a clause of its own (a
    substring of a word: its pairs in a row)."""
    if not any(has_cjk(w) for w in t.words):
        return [t]
    out: list[Text] = []
    run: list[str] = []
    for w in t.words:
        if has_cjk(w):
            if run:
                out.append(Text(tuple(run)))
                run = []
            out.append(Text((w,)))
        else:
            run.append(w)
    if run:
        out.append(Text(tuple(run), prefix=t.prefix))
    return out


def has_text(node: Node) -> bool:
    """Whether ``node`` asks for words (not only filters), so ranking and snippets apply."""
    if isinstance(node, Text):
        return True
    if isinstance(node, (And, Or)):
        return any(has_text(c) for c in node.children)
    if isinstance(node, Not):
        return False
    return False


def text_terms(node: Node) -> list[Text]:
    """The positive text clauses of ``node`` (what a snippet highlights)."""
    if isinstance(node, Text):
        return [node]
    if isinstance(node, (And, Or)):
        return [t for c in node.children for t in text_terms(c)]
    return []


# --------------------------------------------------------------------- tokens
_NAMES = "|".join(sorted(TEXT_FILTERS.keys() | RANGE_FILTERS.keys()))
_TOKEN = re.compile(r'''
    (?P<ws>\s+)
  | (?P<neg>-)(?=["(]|(?i:{_NAMES}):)
  | (?P<lp>\()
  | (?P<rp>\))
  | (?P<quote>"(?P<qtext>[^"]*)"(?P<qstar>\*)?)
  | (?P<filter>(?P<fname>[A-Za-z]+):(?P<fvalue>"[^"]*"|[^\s()]+))
  | (?P<word>[^\s()"]+)
'''.replace("{_NAMES}", _NAMES), re.VERBOSE)

_OPS = {"AND", "OR", "NOT"}
_EXAMPLE = {"AND": "deepep AND timeout", "OR": "deep_ep OR deepep"}
_PAREN_HINT = ('close each "(" with a ")", or find the character itself: '
               '--regex "[()]"')


def is_plain(text: str) -> bool:
    """No syntax at all: the whole query is one phrase."""
    if any(c in text for c in '"()'):
        return False
    for tok in text.split():
        if tok in _OPS or tok.endswith("*"):
            return False
        name, sep, value = tok.partition(":")
        if sep and value and name.lstrip("-").lower() in TEXT_FILTERS | RANGE_FILTERS:
            return False
    return True


def parse(text: str, *, prefix_last: bool = False) -> Node:
    """Read a query.  ``prefix_last``: the last word of a plain query is a prefix
    (search as you type)."""
    text = text.strip()
    if not text:
        return Everything()
    if is_plain(text):
        return Text(tuple(words(text)), prefix=prefix_last and not text[-1].isspace())
    return _Parser(_tokens(text)).parse()


def _tokens(text: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # only a quote that no other closes is left for no alternative
            raise QueryError('a " has no closing "',
                             hint="close the phrase (\"a phrase\"), or find the "
                                  "character itself: --regex '\"'")
        pos = m.end()
        kind = m.lastgroup
        if kind == "ws":
            continue
        if kind == "neg":
            out.append(("not", None))
        elif kind in ("lp", "rp"):
            out.append((kind, None))
        elif m.group("quote") is not None:
            qtext = m.group("qtext").rstrip()
            if not words(qtext):  # "" or "--": a phrase of no words matched nothing
                raise QueryError(f"{m.group(0)} has no word to search for (a word is "
                                 "letters and digits)",
                                 hint="--regex finds any characters")
            out.append(("text", Text(tuple(words(qtext)),
                                     prefix=bool(m.group("qstar")) or qtext.endswith("*"))))
        elif m.group("filter") is not None and (
                m.group("fname").lower() in TEXT_FILTERS | RANGE_FILTERS):
            value = m.group("fvalue")
            if value.startswith('"'):
                value = value[1:-1]
            out.append(("filter", _filter(m.group("fname").lower(), value)))
        else:
            word = m.group(0)
            if word in _OPS:
                out.append((word.lower(), None))
            else:
                out.append(("word", word))
    return out


def _filter(name: str, value: str) -> Node:
    if name in RANGE_FILTERS:
        field = RANGE_FILTERS[name]
        return _range(field, value)
    field = TEXT_FILTERS[name]
    values = tuple(v.strip() for v in value.split(",") if v.strip())
    if field != "session":
        values = tuple(v.lower() for v in values)
    if not values:
        raise QueryError(f"{name}: needs a value")
    valid = _VALID.get(field)
    bad = [v for v in values if valid is not None and v not in valid]
    if bad:  # a value nothing carries matched nothing, silently (exit 1: "no match")
        also = (f" ({bad[0]} is a field: field:{bad[0]})"
                if field == "kind" and bad[0] in FIELDS else "")
        raise QueryError(f"{name}: {bad[0]!r} is not a {field}; valid: "
                         f"{', '.join(valid or ())}{also}")
    return Match(field, values)


def _range(field: str, value: str) -> Range:
    def num(v: str, end: bool) -> int:
        v = v.strip()
        if re.fullmatch(r"-?\d+", v) and not (field == "time" and re.fullmatch(r"\d{4}", v)):
            return int(v)
        if field != "time":
            raise QueryError(f"{field}: {v!r} is not a number")
        try:
            if re.fullmatch(r"\d{4}-\d{2}-\d{2}", v):
                d = date.fromisoformat(v) + timedelta(days=1 if end else 0)
                t = datetime(d.year, d.month, d.day)
                return int(t.timestamp() * 1000) - (1 if end else 0)
            return int(datetime.fromisoformat(v).timestamp() * 1000)
        except ValueError:
            raise QueryError(f"time: {v!r} is neither epoch ms nor an ISO date") from None

    for op in (">=", "<=", ">", "<"):
        if value.startswith(op):
            n = num(value[len(op):], end=op in ("<=", ">"))
            return {">=": Range(field, n, None), ">": Range(field, n + 1, None),
                    "<=": Range(field, None, n), "<": Range(field, None, n - 1)}[op]
    if ".." in value:
        lo, hi = value.split("..", 1)
        return Range(field, num(lo, False) if lo else None, num(hi, True) if hi else None)
    return Range(field, num(value, False), num(value, True))


class _Parser:
    """or := and (OR and)* ; and := unary (AND? unary)* ; unary := NOT unary | atom."""

    def __init__(self, tokens: list[tuple[str, object]]) -> None:
        self.toks = tokens
        self.i = 0

    def peek(self) -> str | None:
        return self.toks[self.i][0] if self.i < len(self.toks) else None

    def parse(self) -> Node:
        node = self.or_()
        if self.peek() is not None:
            raise QueryError("unbalanced ')' in the query", hint=_PAREN_HINT)
        return node

    def operand(self, op: str) -> None:
        """``AND``/``OR`` with nothing on one side: an operator alone matched every text
        (``AND``, ``git OR``) or quietly went away (``AND foo``); now a usage error."""
        raise QueryError(f"{op} needs a word on each side ({_EXAMPLE[op]})",
                         hint=f'to find the word itself, quote it: \'"{op.lower()}"\'')

    def or_(self) -> Node:
        parts = [self.and_("OR" if self.peek() == "or" else None)]
        while self.peek() == "or":
            self.i += 1
            parts.append(self.and_("OR"))
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def and_(self, op: str | None = None) -> Node:
        """``op``: the operator before (or after) this clause, which needs it not empty."""
        parts: list[Node] = []
        while self.peek() not in (None, "rp", "or"):
            if self.peek() == "and":
                self.i += 1
                if not parts or self.peek() in (None, "rp", "or", "and"):
                    self.operand("AND")
                continue
            parts.append(self.unary())
        if not parts:
            if op is not None:
                self.operand(op)
            if self.peek() == "rp" and self.i and self.toks[self.i - 1][0] == "lp":
                raise QueryError("( ) holds nothing to search for",
                                 hint='to find the characters themselves: --regex "\\(\\)"')
            return Everything()
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def unary(self) -> Node:
        if self.peek() == "not":
            self.i += 1
            if self.peek() in (None, "rp", "or"):
                raise QueryError("NOT needs something to leave out "
                                 "(NOT kind:prompt)",
                                 hint='to find the word itself, quote it: \'"not"\'')
            return Not(self.unary())
        return self.atom()

    def atom(self) -> Node:
        kind, value = self.toks[self.i]
        if kind == "lp":
            self.i += 1
            node = self.or_()
            if self.peek() != "rp":
                raise QueryError("unbalanced '(' in the query", hint=_PAREN_HINT)
            self.i += 1
            return node
        if kind in ("text", "filter"):
            self.i += 1
            assert isinstance(value, (Text, Match, Range))
            return value
        if kind == "rp":
            raise QueryError("unbalanced ')' in the query", hint=_PAREN_HINT)
        # a run of bare words is one phrase; a word ending in * closes it as a prefix
        run: list[str] = []
        prefix = False
        while self.peek() == "word":
            w = str(self.toks[self.i][1])
            self.i += 1
            if w.endswith("*"):
                run += words(w[:-1])
                prefix = True
                break
            run += words(w)
        return Text(tuple(run), prefix=prefix)


# ------------------------------------------------------------------------ SQL
_NW = r"[^\pL\pN]"


def text_regex(t: Text, python: bool = False) -> str:
    """The RE2 pattern (case-insensitive) that matches what the index matches for ``t``;
    ``python``: the same for Python's :mod:`re`, with lookarounds so that a match spans
    the words only."""
    if not t.words:
        return r"[^\s\S]"  # matches nothing, like an empty phrase in the index
    parts = text_parts(t)
    if len(parts) > 1:  # (highlights; the scan asks for each part: to_sql)
        return "(?i)" + "|".join(f"(?:{text_regex(p, python)[4:]})" for p in parts)
    if has_cjk(t.words[0]):  # a CJK word: anywhere inside a word
        return "(?i)" + re.escape(t.words[0])
    # a word ends at a character that is no letter or digit, or at a CJK one (the index's
    # ``glued`` field: ``matugen`` inside ``我的matugen脚本``)
    if python:
        body = r"[\W_]+".join(re.escape(w) for w in t.words)
        return rf"(?i)(?<!{_LATIN}){body}" + ("" if t.prefix else rf"(?!{_LATIN})")
    body = f"{_NW}+".join(re.escape(w) for w in t.words)
    edge = f"{_NW}|[{CJK_CLASS_RE2}]"
    tail = "" if t.prefix else f"(?:{edge}|$)"
    return f"(?i)(?:^|{edge}){body}{tail}"


def to_sql(node: Node, params: list[object]) -> str:
    """A DuckDB condition over the search units (``text``, ``session_id``, ``kind``, …)."""
    if isinstance(node, Everything):
        return "TRUE"
    if isinstance(node, Text):
        parts = []
        for p in text_parts(node):
            params.append(text_regex(p))
            parts.append("regexp_matches(text, ?)")
        return parts[0] if len(parts) == 1 else "(" + " AND ".join(parts) + ")"
    if isinstance(node, Match):
        col = {"session": "session_id"}.get(node.field, node.field)
        if node.field == "session":
            parts = []
            for v in node.values:
                params.append(v.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
                              + "%")
                parts.append("session_id LIKE ? ESCAPE '\\'")
            return "(" + " OR ".join(parts) + ")"
        params.extend(node.values)
        return f"coalesce({col}, '') IN ({', '.join('?' * len(node.values))})"
    if isinstance(node, Range):
        col = node.field
        parts = []
        if node.low is not None:
            params.append(node.low)
            parts.append(f"coalesce({col}, 0) >= ?")
        if node.high is not None:
            params.append(node.high)
            parts.append(f"coalesce({col}, 0) <= ?")
        return "(" + " AND ".join(parts or ["TRUE"]) + ")"
    if isinstance(node, And):
        return "(" + " AND ".join(to_sql(c, params) for c in node.children) + ")"
    if isinstance(node, Or):
        return "(" + " OR ".join(to_sql(c, params) for c in node.children) + ")"
    if isinstance(node, Not):
        return f"(NOT {to_sql(node.child, params)})"
    raise TypeError(node)  # pragma: no cover
