"""Source text to words: the tree-sitter parser, character offsets and unquoting.

``_parse_tree`` parses with one tree-sitter-bash parser per thread.  ``_Src``
maps tree-sitter's byte offsets to character offsets, ``_Pieces`` records
where each character of an unquoted or joined string came from, and ``_Ctx``
chains those maps through re-parsed code strings, so a span found at any
nesting depth maps back to exact character offsets in the caller's text.
The unquoters work by node type (``'raw'``, ``"string"``, ``$'ansi-c'``, bare
words, concatenations), never by regular expressions over shell syntax, and
``_Word``/``_join_words`` turn argument nodes into argv strings with their
source maps.  Everything the walker needs to turn nodes into text lives here.
"""

from __future__ import annotations

import threading
from bisect import bisect_left, bisect_right
from itertools import accumulate

import tree_sitter_bash
from tree_sitter import Language, Node, Parser, Tree

from logparse.shell.argv import _names

# ---------------------------------------------------------------------------
# tree-sitter plumbing and character offsets
# ---------------------------------------------------------------------------

_LANGUAGE = Language(tree_sitter_bash.language())
_TLS = threading.local()


def _parse_tree(data: bytes) -> Tree:
    parser = getattr(_TLS, "parser", None)
    if parser is None:
        parser = _TLS.parser = Parser(_LANGUAGE)
    return parser.parse(data)


class _Src:
    """A text being parsed: its UTF-8 bytes and the byte->character mapping."""

    __slots__ = ("text", "data", "starts")

    def __init__(self, text: str) -> None:
        self.text = text
        data = text.encode("utf-8", "surrogatepass")
        self.data = data
        if len(data) == len(text):
            self.starts = None  # ASCII: byte offsets are character offsets
        else:
            lens = [
                1 if c < "\x80" else 2 if c < "\u0800" else 3 if c < "\U00010000" else 4
                for c in text
            ]
            self.starts = list(accumulate(lens, initial=0))

    def c(self, byte: int) -> int:
        starts = self.starts
        if starts is None:
            return byte
        return bisect_left(starts, byte)


class _Pieces:
    """Where each character of an unquoted/joined string came from.

    Pieces are ``(out_start, src_start, out_len, src_len)``.  Either
    ``out_len == src_len`` (a literal run) or ``out_len == 1`` (an escape
    such as ``\\"`` producing one character from ``src_len`` source chars).
    Source positions are character offsets into the text of the context the
    words belong to.
    """

    __slots__ = ("outs", "items", "n", "tail")

    def __init__(self) -> None:
        self.outs: list[int] = []
        self.items: list[tuple[int, int, int, int]] = []
        self.n = 0
        self.tail = 0  # source position just after the last consumed source char

    def lit(self, src: int, length: int) -> None:
        if length > 0:
            self.outs.append(self.n)
            self.items.append((self.n, src, length, length))
            self.n += length
        self.tail = src + length

    def esc(self, src: int, src_len: int) -> None:
        self.outs.append(self.n)
        self.items.append((self.n, src, 1, src_len))
        self.n += 1
        self.tail = src + src_len

    def skip(self, src: int, src_len: int) -> None:
        self.tail = src + src_len

    def extend(self, other: _Pieces) -> None:
        base = self.n
        for o, s, ln, sl in other.items:
            self.outs.append(base + o)
            self.items.append((base + o, s, ln, sl))
        self.n += other.n
        self.tail = other.tail

    def start(self, i: int) -> int:
        if not self.items:
            return self.tail
        k = bisect_right(self.outs, i) - 1
        if k < 0:
            k = 0
        o, s, ln, sl = self.items[k]
        if i >= o + ln:
            return s + sl
        if i < o:
            return s
        return s + (i - o) if ln == sl else s

    def end(self, e: int) -> int:
        if e <= 0 or not self.items:
            return self.start(0)
        k = bisect_right(self.outs, e - 1) - 1
        if k < 0:
            k = 0
        o, s, ln, sl = self.items[k]
        if ln == sl:
            return s + min(e - o, ln)
        return s + sl


class _Ctx:
    """A parse level: its source and how its offsets map to the caller's text."""

    __slots__ = ("src", "text", "parent", "pieces", "nesting")

    def __init__(self, src: _Src, parent: _Ctx | None = None, pieces: _Pieces | None = None) -> None:
        self.src = src
        self.text = src.text
        self.parent = parent
        self.pieces = pieces
        self.nesting: int = 0 if parent is None else parent.nesting + 1

    def span(self, s: int, e: int) -> tuple[int, int]:
        """Map a local ``[s, e)`` span to the outermost text of this context chain."""
        ctx = self
        while ctx.parent is not None:
            p = ctx.pieces
            assert p is not None  # a re-parsed level always maps into its parent
            if e <= s:
                s = e = p.start(s)
            else:
                s, e = p.start(s), p.end(e)
            ctx = ctx.parent
        return s, e

    def node_text(self, node: Node) -> str:
        c = self.src.c
        return self.text[c(node.start_byte) : c(node.end_byte)]


# ---------------------------------------------------------------------------
# Unquoting word nodes
# ---------------------------------------------------------------------------

_EXPANSIONS = frozenset(
    {
        "simple_expansion",
        "expansion",
        "command_substitution",
        "process_substitution",
        "arithmetic_expansion",
    }
)
_REDIRECTS = frozenset({"file_redirect", "heredoc_redirect", "herestring_redirect"})
_LEAVES = _names(
    "word raw_string number ansi_c_string string_content variable_name file_descriptor "
    "heredoc_start heredoc_end heredoc_content test_operator special_variable_name"
)
_DQ_ESCAPABLE = frozenset('"\\$`')


class _Out:
    """Accumulates unquoted text and (optionally) its pieces."""

    __slots__ = ("parts", "pieces", "text")

    def __init__(self, text: str, with_pieces: bool) -> None:
        self.parts: list[str] = []
        self.pieces = _Pieces() if with_pieces else None
        self.text = text

    def lit(self, a: int, b: int) -> None:
        if b > a:
            self.parts.append(self.text[a:b])
            if self.pieces is not None:
                self.pieces.lit(a, b - a)

    def esc(self, ch: str, src: int, src_len: int) -> None:
        self.parts.append(ch)
        if self.pieces is not None:
            self.pieces.esc(src, src_len)

    def skip(self, src: int, src_len: int) -> None:
        if self.pieces is not None:
            self.pieces.skip(src, src_len)

    def value(self) -> str:
        return "".join(self.parts)


def _bare_unescape(out: _Out, a: int, b: int) -> None:
    """A bare word: ``\\x`` -> ``x``; backslash-newline disappears."""
    text = out.text
    i = a
    while True:
        j = text.find("\\", i, b)
        if j < 0:
            out.lit(i, b)
            return
        out.lit(i, j)
        if j + 1 >= b:
            out.lit(j, b)
            return
        nxt = text[j + 1]
        if nxt == "\n":
            out.skip(j, 2)
        else:
            out.esc(nxt, j, 2)
        i = j + 2


def _dquote_unescape(out: _Out, a: int, b: int, escapable: frozenset[str] = _DQ_ESCAPABLE) -> None:
    """Inside double quotes: ``\\" \\\\ \\$ \\``` unescape, backslash-newline vanishes."""
    text = out.text
    i = a
    while True:
        j = text.find("\\", i, b)
        if j < 0:
            out.lit(i, b)
            return
        out.lit(i, j)
        if j + 1 >= b:
            out.lit(j, b)
            return
        nxt = text[j + 1]
        if nxt == "\n":
            out.skip(j, 2)
        elif nxt in escapable:
            out.esc(nxt, j, 2)
        else:
            out.lit(j, j + 2)
        i = j + 2


_ANSI_SIMPLE = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_HEX = frozenset("0123456789abcdefABCDEF")
_OCT = frozenset("01234567")


def _ansi_c_unescape(out: _Out, a: int, b: int) -> None:
    """Decode the body of ``$'...'``."""
    text = out.text
    i = a
    while True:
        j = text.find("\\", i, b)
        if j < 0:
            out.lit(i, b)
            return
        out.lit(i, j)
        if j + 1 >= b:
            out.lit(j, b)
            return
        c = text[j + 1]
        if c in _ANSI_SIMPLE:
            out.esc(_ANSI_SIMPLE[c], j, 2)
            i = j + 2
            continue
        if c in _OCT:
            k = j + 1
            while k < b and k < j + 4 and text[k] in _OCT:
                k += 1
            out.esc(chr(int(text[j + 1 : k], 8) & 0xFF), j, k - j)
            i = k
            continue
        if c in "xuU":
            width = {"x": 2, "u": 4, "U": 8}[c]
            k = j + 2
            while k < b and k < j + 2 + width and text[k] in _HEX:
                k += 1
            if k == j + 2:
                out.lit(j, j + 2)
                i = j + 2
                continue
            code = int(text[j + 2 : k], 16)
            out.esc(chr(code) if code <= 0x10FFFF else "\ufffd", j, k - j)
            i = k
            continue
        if c == "c" and j + 2 < b:
            out.esc(chr(ord(text[j + 2]) & 0x1F), j, 3)
            i = j + 3
            continue
        out.lit(j, j + 2)
        i = j + 2


def _unquote_into(node: Node, ctx: _Ctx, out: _Out) -> None:
    """Append the unquoted value of a word-like node."""
    t = node.type
    c = ctx.src.c
    s, e = c(node.start_byte), c(node.end_byte)
    text = ctx.text
    if t == "word":
        _bare_unescape(out, s, e)
    elif t == "raw_string":
        if e - s >= 2 and text[e - 1] == "'":
            out.skip(s, 1)
            out.lit(s + 1, e - 1)
            out.skip(e - 1, 1)
        else:  # unterminated (error recovery)
            out.skip(s, 1)
            out.lit(s + 1, e)
    elif t in ("string", "translated_string"):
        a = s + (2 if t == "translated_string" else 1)
        b = e - 1 if e - 1 >= a and text[e - 1] == '"' else e
        out.skip(s, a - s)
        pos = a
        for ch in node.children:
            if ch.type in _EXPANSIONS:
                cs, ce = c(ch.start_byte), c(ch.end_byte)
                k = max(cs, pos)
                while k < ce and text[k] not in "$`":
                    k += 1
                if k >= ce:
                    continue
                _dquote_unescape(out, pos, k)
                out.lit(k, ce)
                pos = ce
        if pos < b:
            _dquote_unescape(out, pos, b)
        out.skip(b, e - b)
    elif t == "ansi_c_string":
        b = e - 1 if e - 2 >= s + 1 and text[e - 1] == "'" else e
        out.skip(s, 2)
        _ansi_c_unescape(out, s + 2, b)
        out.skip(b, e - b)
    elif t == "concatenation":
        pos = s
        for ch in node.children:
            cs = c(ch.start_byte)
            if cs > pos:
                _bare_unescape(out, pos, cs)
            _unquote_into(ch, ctx, out)
            pos = c(ch.end_byte)
        if pos < e:
            _bare_unescape(out, pos, e)
    elif t == "variable_assignment":
        value = node.child_by_field_name("value")
        if value is None:
            out.lit(s, e)
        else:
            vs = c(value.start_byte)
            out.lit(s, vs)
            _unquote_into(value, ctx, out)
    elif t == "command_name":
        named = node.named_children
        if len(named) == 1:
            _unquote_into(named[0], ctx, out)
        else:
            out.lit(s, e)
    else:
        # numbers, expansions, substitutions, brace expressions, test operators:
        # literal text
        out.lit(s, e)


class _Word:
    """An argv word: its unquoted value, its node and its local span."""

    __slots__ = ("node", "ctx", "value", "start", "end", "_pieces")

    def __init__(self, node: Node, ctx: _Ctx) -> None:
        self.node: Node | None = node
        self.ctx = ctx
        src = ctx.src
        if src.starts is None:
            s, e = node.start_byte, node.end_byte
        else:
            s, e = src.c(node.start_byte), src.c(node.end_byte)
        self.start = s
        self.end = e
        self._pieces: _Pieces | None = None
        t = node.type
        text = ctx.text
        if t == "word":
            value = text[s:e]
            if "\\" not in value:
                self.value = value
                return
        elif t == "raw_string" and e - s >= 2 and text[e - 1] == "'":
            self.value = text[s + 1 : e - 1]
            return
        out = _Out(text, False)
        _unquote_into(node, ctx, out)
        self.value = out.value()

    def pieces(self) -> _Pieces:
        if self._pieces is None:
            assert self.node is not None  # words without a node set their pieces
            out = _Out(self.ctx.text, True)
            _unquote_into(self.node, self.ctx, out)
            self._pieces = out.pieces
        assert self._pieces is not None
        return self._pieces


class _BareWord(_Word):
    """A word recovered from text tree-sitter dropped (``python3 - <<EOF``)."""

    __slots__ = ()

    def __init__(self, ctx: _Ctx, a: int, b: int) -> None:
        self.node = None
        self.ctx = ctx
        self.start, self.end = a, b
        out = _Out(ctx.text, True)
        _bare_unescape(out, a, b)
        self.value = out.value()
        self._pieces = out.pieces


class _GluedWord(_Word):
    """Words tree-sitter split at a backslash-newline that bash glues (``a\\<nl>b``)."""

    __slots__ = ("parts",)

    def __init__(self, parts: list[_Word]) -> None:
        self.parts = parts
        self.node = None
        self.ctx = parts[0].ctx
        self.start, self.end = parts[0].start, parts[-1].end
        self.value = "".join(p.value for p in parts)
        self._pieces = None

    def pieces(self) -> _Pieces:
        if self._pieces is None:
            pieces = _Pieces()
            for p in self.parts:
                pieces.extend(p.pieces())
            self._pieces = pieces
        return self._pieces


def _join_words(words: list[_Word]) -> tuple[str, _Pieces]:
    """Join word values with single spaces, keeping the source map."""
    pieces = _Pieces()
    parts = []
    for i, w in enumerate(words):
        if i:
            parts.append(" ")
            pieces.esc(pieces.tail, 0)
        parts.append(w.value)
        pieces.extend(w.pieces())
    return "".join(parts), pieces
