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
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

WORD = re.compile(r"[^\W_]+")
"""A word: letters and digits, as tantivy's default tokenizer splits text."""
MAX_WORD = 40
"""Longer words (in UTF-8 bytes: hashes, base64) are not indexed (the tokenizer's limit)."""

TEXT_FILTERS = {"session": "session", "kind": "kind", "tool": "tool", "host": "host",
                "cat": "category", "category": "category", "field": "field"}
"""Filter names the user may write → the field they filter."""
RANGE_FILTERS = {"ordinal": "ordinal", "time": "time"}
FIELDS = ("command", "output", "prose", "todo", "other")
"""What a search unit is: a command, its output, prose, a todo list, other event text."""


class QueryError(ValueError):
    """The query cannot be read (unbalanced parentheses, a bad range…)."""


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
    """The indexed words of ``text``, lowercased (what the tokenizer makes of it)."""
    return [w.lower() for w in WORD.findall(text) if len(w.encode()) < MAX_WORD]


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


def _is_plain(text: str) -> bool:
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
    if _is_plain(text):
        return Text(tuple(words(text)), prefix=prefix_last and not text[-1].isspace())
    return _Parser(_tokens(text)).parse()


def _tokens(text: str) -> list[tuple[str, object]]:
    out: list[tuple[str, object]] = []
    pos = 0
    while pos < len(text):
        m = _TOKEN.match(text, pos)
        if m is None:  # pragma: no cover - the word alternative matches anything else
            raise QueryError(f"cannot read the query at {text[pos:]!r}")
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
            raise QueryError("unbalanced ')' in the query")
        return node

    def or_(self) -> Node:
        parts = [self.and_()]
        while self.peek() == "or":
            self.i += 1
            parts.append(self.and_())
        return parts[0] if len(parts) == 1 else Or(tuple(parts))

    def and_(self) -> Node:
        parts: list[Node] = []
        while self.peek() not in (None, "rp", "or"):
            if self.peek() == "and":
                self.i += 1
                continue
            parts.append(self.unary())
        if not parts:
            return Everything()
        return parts[0] if len(parts) == 1 else And(tuple(parts))

    def unary(self) -> Node:
        if self.peek() == "not":
            self.i += 1
            if self.peek() in (None, "rp", "or"):
                raise QueryError("NOT needs something to negate")
            return Not(self.unary())
        return self.atom()

    def atom(self) -> Node:
        kind, value = self.toks[self.i]
        if kind == "lp":
            self.i += 1
            node = self.or_()
            if self.peek() != "rp":
                raise QueryError("unbalanced '(' in the query")
            self.i += 1
            return node
        if kind in ("text", "filter"):
            self.i += 1
            assert isinstance(value, (Text, Match, Range))
            return value
        if kind == "rp":
            raise QueryError("unbalanced ')' in the query")
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
    if python:
        body = r"[\W_]+".join(re.escape(w) for w in t.words)
        return rf"(?i)(?<![^\W_]){body}" + ("" if t.prefix else r"(?![^\W_])")
    body = f"{_NW}+".join(re.escape(w) for w in t.words)
    tail = "" if t.prefix else f"(?:{_NW}|$)"
    return f"(?i)(?:^|{_NW}){body}{tail}"


def to_sql(node: Node, params: list[object]) -> str:
    """A DuckDB condition over the search units (``text``, ``session_id``, ``kind``, …)."""
    if isinstance(node, Everything):
        return "TRUE"
    if isinstance(node, Text):
        params.append(text_regex(node))
        return "regexp_matches(text, ?)"
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
