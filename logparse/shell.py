"""Pure shell-command analysis for logkb, built on tree-sitter-bash.

An opencode transcript is full of ``bash`` tool calls, most of them wrapped in
one or more ssh hops::

    ssh root@10.1.230.174 'grep -rn "a2a" /root/sglang/.../server_args.py | head -10'

:func:`parse_command` turns such a command text into a :class:`ShellInfo`:

* ``hops``      the ssh *wrapper chain* (``ssh a 'ssh b "cmd"'`` has two hops),
* ``inner``     the innermost remote command (the text itself without a wrapper),
* ``commands``  every simple command of ``inner`` (recursing into ``$(...)``,
  backticks, subshells, compound statements, pipelines, lists, process
  substitution, ``sh -c``/``bash -c``/``eval`` code strings, ``xargs`` and
  ``find -exec`` targets and the remote commands of nested ssh calls),
* ``nested_ssh`` ssh calls inside ``inner`` that are not the wrapper itself,
* ``category``  what the inner command is for (search, launch, install ...).

:func:`classify_safety` decides whether re-running a command (the replay
feature) is ``read-only``, a ``launch``, ``mutating`` or ``unknown``.

Design rules:

* Shell *syntax* is never parsed with regular expressions: the structure comes
  from the tree-sitter-bash tree, and individual word nodes are unquoted by
  node type (``'raw'``, ``"string"``, ``$'ansi-c'``, bare words, concatenations).
  Expansions (``$X``, ``$(...)``) stay as literal text inside unquoted words.
* Code strings (``bash -c '...'``, ssh remote commands, heredocs fed to a
  shell) are parsed again.  Every unquoting step records where each output
  character came from, so spans of commands and ssh hosts found in re-parsed
  code are exact character offsets into the text the caller sees.
* Nothing here raises: tree-sitter reports syntax errors as ERROR nodes and the
  analyser works on whatever tree it gets, setting ``parse_error``.  Any
  internal failure is caught and reported as an opaque part of the command.
* No I/O and no imports of storage or UI code: this is a leaf module.
"""

from __future__ import annotations

import ast
import functools
import posixpath
import re
import threading
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from itertools import accumulate

import tree_sitter_bash
from tree_sitter import Language, Parser

__all__ = [
    "CATEGORIES",
    "SAFETY_CLASSES",
    "Redirect",
    "Safety",
    "ShellInfo",
    "SimpleCommand",
    "SshCall",
    "classify_safety",
    "parse_command",
]


def _names(words: str) -> frozenset[str]:
    """A frozenset of whitespace-separated names (keeps the big tables compact)."""
    return frozenset(words.split())


CATEGORIES: tuple[str, ...] = (
    "launch",
    "benchmark",
    "install",
    "build",
    "kill",
    "file-edit",
    "import-check",
    "package-query",
    "search",
    "other",
)
"""All categories, highest priority first."""

SAFETY_CLASSES: tuple[str, ...] = ("read-only", "launch", "unknown", "mutating")
"""All safety classes, least severe first."""

_PRIORITY = {c: i for i, c in enumerate(CATEGORIES)}

# Limits that keep pathological input cheap.
_MAX_HOPS = 8
_MAX_DEPTH = 120  # tree depth handled by the recursive walker
_MAX_REPARSE = 64  # code strings re-parsed per analysis
_MAX_CODE_NESTING = 12  # code strings inside code strings


# ---------------------------------------------------------------------------
# Public data model
# ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Redirect:
    """One redirection as written: ``2>&1``, ``> /tmp/log``, ``<<'EOF'``.

    ``op`` is the operator (``>``, ``>>``, ``<``, ``&>``, ``&>>``, ``>&``,
    ``<&``, ``>|``, ``>&-``, ``<<``, ``<<-``, ``<<<``); ``target`` is the
    unquoted destination (a file name, an fd number, the heredoc delimiter or
    the herestring); ``fd`` is the explicit descriptor (``"2"`` in ``2>x``) or
    ``None``.  For heredocs, ``heredoc`` is the body as the reading program
    sees it (tabs stripped for ``<<-``; for an unquoted delimiter the
    backslash escapes ``\\$ \\\\ \\``` are processed and expansions kept as
    text).
    """

    op: str
    target: str
    fd: str | None
    heredoc: str | None = None

    @property
    def writes(self) -> bool:
        """True when the redirection opens ``target`` as a file for writing."""
        if self.op in ("<", "<<", "<<-", "<<<", "<&", ">&-", "<&-"):
            return False
        if self.op in (">&", "<&") or self.op.endswith("&-"):
            return not (self.target.isdigit() or self.target == "-")
        return True


@dataclass(frozen=True, slots=True)
class SimpleCommand:
    """One simple command found in a command text.

    ``argv`` is the unquoted word list as written, leading ``VAR=x``
    assignments included; ``redirects`` are the command's own redirections
    followed by those of enclosing statements (``{ a; b; } > f`` gives both
    ``a`` and ``b`` the ``> f``).  ``background`` is True when the command
    runs under ``&``; ``in_substitution`` when it runs inside ``$(...)``,
    backticks or ``<(...)``/``>(...)``; ``stdin_pipe`` when it reads the
    output of an earlier pipeline stage.  ``start``/``end`` are character
    offsets of the command into the text that was analysed (``ShellInfo.inner``
    for ``ShellInfo.commands``), also for commands found inside re-parsed code
    strings (the span then covers their quoted source).  ``via`` says how the
    command was reached when it is not written directly: ``"bash -c"``,
    ``"eval"``, ``"xargs"``, ``"find -exec"``, ``"ssh HOST"``, ``"heredoc"``...
    """

    argv: tuple[str, ...]
    redirects: tuple[Redirect, ...]
    background: bool
    in_substitution: bool
    start: int
    end: int
    stdin_pipe: bool = False
    via: str = ""

    @property
    def effective_argv(self) -> tuple[str, ...]:
        """``argv`` without leading assignments and wrappers.

        Wrappers are ``sudo``, ``doas``, ``nohup``, ``timeout DUR``,
        ``env [-i] [-u N] [A=B]...``, ``nice [-n N]``, ``ionice``, ``time``,
        ``stdbuf``, ``exec``, ``command``, ``builtin``, ``setsid``,
        ``taskset MASK``, ``numactl ...``, ``sshpass -p X``, ``unbuffer``,
        ``coproc``, ``uv run``, ``conda run``.  A wrapper that has no command
        after it (``sudo -i``, ``env``) *is* the effective command.
        """
        return self.argv[_strip_wrappers(self.argv)[0] :]

    @property
    def program(self) -> str:
        """Basename of the first effective word (``""`` for bare assignments)."""
        eff = self.effective_argv
        return _basename(eff[0]) if eff else ""

    @property
    def wrappers(self) -> tuple[str, ...]:
        """The wrapper programs stripped off, outermost first (``("sudo", "timeout")``)."""
        return _strip_wrappers(self.argv)[1]


@dataclass(frozen=True, slots=True)
class SshCall:
    """One ssh invocation, parsed with OpenSSH's getopt rules.

    ``host`` is the destination host (without ``user@``, ``ssh://`` or port),
    ``user``/``port``/``identity`` come from ``user@``, ``ssh://user@h:port``,
    ``-l``, ``-p``, ``-i`` or ``-o User=/Port=/IdentityFile=`` (first value
    wins, as in ssh).  ``options`` are all options in argv form (``-p``,
    ``2222``, ``-o``, ``StrictHostKeyChecking=no``, ``-t``, ``-t``; attached
    and clustered forms are split).  ``remote_command`` is exactly the string
    ssh sends: the words after the destination, unquoted and joined with
    single spaces, or ``None`` (interactive login or a script on stdin).

    ``host_start``/``host_end`` delimit the destination word as written
    (``root@10.1.230.174``, quotes included if it was quoted) and
    ``start``/``end`` the whole simple command (including wrappers such as
    ``sshpass``/``timeout``), as offsets into the text it was parsed from:
    for ``ShellInfo.hops[0]`` that is ``ShellInfo.text``, for ``hops[k]``
    it is ``hops[k-1].remote_command`` (or ``hops[k-1].stdin_script``); for
    ``ShellInfo.nested_ssh`` it is ``ShellInfo.inner``.

    ``local_suffix`` (hops only) is what follows the ssh command on the same
    statement and runs locally, e.g. ``2>&1 | head -10``.  ``stdin_script``
    is the heredoc/herestring fed to ssh when the remote side runs it as a
    script (``ssh h <<'EOF' ... EOF``, ``ssh h bash -s <<EOF``).
    """

    host: str
    user: str | None
    port: int | None
    identity: str | None
    options: tuple[str, ...]
    remote_command: str | None
    host_start: int
    host_end: int
    start: int
    end: int
    local_suffix: str = ""
    stdin_script: str | None = None

    @property
    def jump(self) -> tuple[str, ...]:
        """Jump hosts from ``-J a,b`` / ``-o ProxyJump=a,b`` (first option wins)."""
        opts = self.options
        for i in range(len(opts) - 1):
            if opts[i] == "-J":
                return tuple(p for p in opts[i + 1].split(",") if p)
            if opts[i] == "-o":
                key, value = _ssh_option_kv(opts[i + 1])
                if key == "proxyjump" and value.lower() != "none":
                    return tuple(p for p in value.split(",") if p)
        return ()

    @property
    def destination(self) -> str:
        """``user@host`` (or ``host``) as ssh resolves it."""
        return f"{self.user}@{self.host}" if self.user else self.host


@dataclass(frozen=True, slots=True)
class ShellInfo:
    """Everything :func:`parse_command` learns about one command text.

    ``hops``/``inner``/``commands``/``nested_ssh``/``category`` are described
    in the module docstring.  ``local_commands`` are the commands of the
    wrapper levels that run outside ``inner`` (the ssh commands themselves with
    their redirections, local pipelines such as ``| head -10``, substitutions
    in ssh arguments); their offsets are into ``text``.  ``parse_error`` is
    True when any level (including re-parsed code strings) had a syntax error.
    ``opaque`` lists parts the analyser could not see through (function
    definitions, syntax errors, nesting limits), one short sentence each;
    :func:`classify_safety` treats each as ``unknown``.
    """

    text: str
    hops: tuple[SshCall, ...]
    inner: str
    commands: tuple[SimpleCommand, ...]
    nested_ssh: tuple[SshCall, ...]
    category: str
    parse_error: bool
    local_commands: tuple[SimpleCommand, ...] = ()
    opaque: tuple[str, ...] = ()

    @property
    def local_suffix(self) -> str:
        """The outermost hop's local suffix (``"| head -10"``), ``""`` without hops."""
        return self.hops[0].local_suffix if self.hops else ""


@dataclass(frozen=True, slots=True)
class Safety:
    """How safe it is to re-run a command: ``cls`` is one of :data:`SAFETY_CLASSES`.

    ``reasons`` are short human sentences naming the pieces that decided the
    class, most severe first (for ``read-only`` a single summary sentence).
    """

    cls: str
    reasons: tuple[str, ...]


# ---------------------------------------------------------------------------
# tree-sitter plumbing and character offsets
# ---------------------------------------------------------------------------

_LANGUAGE = Language(tree_sitter_bash.language())
_TLS = threading.local()


def _parse_tree(data: bytes):
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

    def __init__(self, src: _Src, parent: _Ctx | None = None, pieces: _Pieces | None = None):
        self.src = src
        self.text = src.text
        self.parent = parent
        self.pieces = pieces
        self.nesting = 0 if parent is None else parent.nesting + 1

    def span(self, s: int, e: int) -> tuple[int, int]:
        """Map a local ``[s, e)`` span to the outermost text of this context chain."""
        ctx = self
        while ctx.parent is not None:
            p = ctx.pieces
            if e <= s:
                s = e = p.start(s)
            else:
                s, e = p.start(s), p.end(e)
            ctx = ctx.parent
        return s, e

    def node_text(self, node) -> str:
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


def _dquote_unescape(out: _Out, a: int, b: int, escapable=_DQ_ESCAPABLE) -> None:
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


def _unquote_into(node, ctx: _Ctx, out: _Out) -> None:
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

    def __init__(self, node, ctx: _Ctx) -> None:
        self.node = node
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
            out = _Out(self.ctx.text, True)
            _unquote_into(self.node, self.ctx, out)
            self._pieces = out.pieces
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


# ---------------------------------------------------------------------------
# Wrapper stripping and small argv helpers
# ---------------------------------------------------------------------------


def _basename(word: str) -> str:
    if "/" in word:
        return word.rstrip("/").rsplit("/", 1)[-1] or word
    return word


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    if not eq or not name:
        return False
    if name.endswith("+"):
        name = name[:-1]
    if "[" in name and name.endswith("]"):
        name = name[: name.index("[")]
    return name.isidentifier() and name.isascii()


def _skip_options(
    argv: tuple[str, ...],
    i: int,
    with_arg: str = "",
    long_with_arg: frozenset[str] = frozenset(),
    stop: str = "",
    long_stop: frozenset[str] = frozenset(),
    optional_attached: str = "",
) -> int:
    """Skip getopt-style options from ``argv[i]``; return the first operand index.

    Returns -1 when a ``stop`` option is met (the program does something other
    than run a command).  ``--`` ends the options.
    """
    n = len(argv)
    while i < n:
        a = argv[i]
        if a == "--":
            return i + 1
        if len(a) < 2 or a[0] != "-":
            return i
        if a.startswith("--"):
            name = a.split("=", 1)[0]
            if name in long_stop:
                return -1
            i += 2 if ("=" not in a and name in long_with_arg) else 1
            continue
        j = 1
        consumed_next = False
        while j < len(a):
            ch = a[j]
            if ch in stop:
                return -1
            if ch in optional_attached:
                break
            if ch in with_arg:
                if j == len(a) - 1:
                    consumed_next = True
                break
            j += 1
        i += 2 if consumed_next else 1
    return i


def _wrapper_sudo(argv, i):
    i = _skip_options(
        argv,
        i,
        with_arg="ugpCDrtUTRh",
        long_with_arg=_names(
            "--user --group --prompt --close-from --chdir --role --type --other-user "
            "--command-timeout --host --chroot"
        ),
        stop="elvVKh",
        long_stop=frozenset({"--edit", "--list", "--validate", "--version", "--help"}),
    )
    while 0 <= i < len(argv) and _is_assignment(argv[i]):
        i += 1
    return i


def _wrapper_env(argv, i):
    i = _skip_options(
        argv,
        i,
        with_arg="uCP",
        long_with_arg=frozenset({"--unset", "--chdir"}),
        stop="S",
        long_stop=frozenset({"--split-string", "--help", "--version"}),
    )
    while 0 <= i < len(argv) and (argv[i] == "-" or _is_assignment(argv[i])):
        i += 1
    return i


def _wrapper_timeout(argv, i):
    i = _skip_options(argv, i, with_arg="sk", long_with_arg=frozenset({"--signal", "--kill-after"}))
    return i + 1 if 0 <= i < len(argv) else i  # the duration


def _wrapper_nice(argv, i):
    n = len(argv)
    while i < n:
        a = argv[i]
        if a == "--":
            return i + 1
        if a in ("-n", "--adjustment"):
            i += 2
        elif a.startswith("--adjustment=") or (a.startswith("-n") and len(a) > 2):
            i += 1
        elif len(a) > 1 and a[0] == "-" and a[1:].lstrip("-").isdigit():
            i += 1  # nice -10 cmd
        elif a.startswith("-") and len(a) > 1:
            return -1
        else:
            return i
    return i


def _wrapper_time(argv, i):
    return _skip_options(argv, i, with_arg="of", long_with_arg=frozenset({"--output", "--format"}))


def _wrapper_taskset(argv, i):
    i = _skip_options(argv, i, stop="p", long_stop=frozenset({"--pid", "--help", "--version"}))
    return i + 1 if 0 <= i < len(argv) else i  # the mask / cpu list


def _wrapper_numactl(argv, i):
    return _skip_options(
        argv,
        i,
        with_arg="imNCPpw",
        long_with_arg=frozenset(
            {
                "--interleave",
                "--membind",
                "--cpunodebind",
                "--physcpubind",
                "--preferred",
                "--preferred-many",
                "--weighted-interleave",
            }
        ),
        stop="Hs",
        long_stop=frozenset({"--hardware", "--show", "--help"}),
    )


def _wrapper_command(argv, i):
    return _skip_options(argv, i, stop="vV")


def _simple(with_arg="", long_with_arg=(), stop="", long_stop=()):
    lwa, ls = frozenset(long_with_arg), frozenset(long_stop)

    def f(argv, i):
        return _skip_options(argv, i, with_arg, lwa, stop, ls)

    return f


_WRAPPERS = {
    "sudo": _wrapper_sudo,
    "doas": _simple(with_arg="uC", stop="L"),
    "nohup": _simple(long_stop=("--help", "--version")),
    "timeout": _wrapper_timeout,
    "env": _wrapper_env,
    "nice": _wrapper_nice,
    "ionice": _simple(
        with_arg="cn",
        long_with_arg=("--class", "--classdata"),
        stop="p",
        long_stop=("--pid", "--pgid", "--uid"),
    ),
    "time": _wrapper_time,
    "stdbuf": _simple(with_arg="ioe", long_with_arg=("--input", "--output", "--error")),
    "exec": _simple(with_arg="a"),
    "command": _wrapper_command,
    "builtin": _simple(),
    "setsid": _simple(),
    "taskset": _wrapper_taskset,
    "numactl": _wrapper_numactl,
    "sshpass": _simple(with_arg="pfdP"),
    "unbuffer": _simple(),
    "coproc": _simple(),
}

_UV_RUN_ARGS = _names(
    "--with --with-requirements --with-editable --python --project --directory --package "
    "--extra --group --index --index-url --extra-index-url --env-file"
)
_CONDA_RUN_ARGS = frozenset({"--name", "--prefix", "--cwd"})


@functools.lru_cache(maxsize=16384)
def _strip_wrappers(argv: tuple[str, ...]) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
    """Return ``(index of the effective command, wrappers, files written by wrappers)``."""
    i = 0
    n = len(argv)
    wrappers: list[str] = []
    writes: list[str] = []
    while i < n and _is_assignment(argv[i]):
        i += 1
    for _ in range(32):
        if i >= n:
            break
        prog = _basename(argv[i])
        nxt = -1
        name = prog
        if prog in _WRAPPERS:
            nxt = _WRAPPERS[prog](argv, i + 1)
            if prog == "time":
                for k in range(i + 1, nxt if nxt > 0 else n):
                    a = argv[k]
                    if a in ("-o", "--output") and k + 1 < n:
                        writes.append(argv[k + 1])
                    elif a.startswith("--output="):
                        writes.append(a.split("=", 1)[1])
                    elif a.startswith("-o") and len(a) > 2:
                        writes.append(a[2:])
        elif prog == "uv" and i + 1 < n and argv[i + 1] == "run":
            nxt = _skip_options(argv, i + 2, with_arg="p", long_with_arg=_UV_RUN_ARGS)
            name = "uv run"
        elif prog in ("conda", "mamba", "micromamba") and i + 1 < n and argv[i + 1] == "run":
            nxt = _skip_options(argv, i + 2, with_arg="np", long_with_arg=_CONDA_RUN_ARGS)
            name = f"{prog} run"
        else:
            break
        if nxt < 0 or nxt >= n:
            break  # the wrapper is the command (sudo -i, env, time alone)
        wrappers.append(name)
        i = nxt
    return i, tuple(wrappers), tuple(writes)


# ---------------------------------------------------------------------------
# ssh option parsing (OpenSSH getopt)
# ---------------------------------------------------------------------------

_SSH_ARG_OPTS = frozenset("BbcDEeFIiJLlmOoPpQRSWw")


def _ssh_option_kv(arg: str) -> tuple[str, str]:
    """Split an ``-o`` argument the way ssh's config parser does."""
    arg = arg.strip()
    k = 0
    while k < len(arg) and arg[k] not in "= \t":
        k += 1
    key = arg[:k].lower()
    value = arg[k:].lstrip(" \t")
    if value.startswith("="):
        value = value[1:].lstrip(" \t")
    return key, value


def _port(value: str | None) -> int | None:
    if value and value.isdigit() and len(value) <= 5 and 0 < int(value) < 65536:
        return int(value)
    return None


class _SshArgs:
    __slots__ = (
        "host",
        "user",
        "port",
        "identity",
        "options",
        "host_idx",
        "cmd_idx",
        "oconfig",
    )


def _parse_ssh_argv(argv: tuple[str, ...] | list[str]) -> _SshArgs | None:
    """Parse ``ssh ...`` (``argv[0]`` is ssh).  ``None`` when there is no destination."""
    n = len(argv)
    res = _SshArgs()
    res.user = res.port = res.identity = None
    res.oconfig = {}
    opts: list[str] = []
    state = {"terminated": False}

    def handle(ch: str, arg: str) -> None:
        opts.append("-" + ch)
        opts.append(arg)
        if ch == "l":
            if res.user is None:
                res.user = arg
        elif ch == "p":
            if res.port is None:
                res.port = _port(arg)
        elif ch == "i":
            if res.identity is None:
                res.identity = arg
        elif ch == "o":
            key, value = _ssh_option_kv(arg)
            res.oconfig.setdefault(key, value)
            if key == "user" and res.user is None:
                res.user = value
            elif key == "port" and res.port is None:
                res.port = _port(value)
            elif key == "identityfile" and res.identity is None:
                res.identity = value

    def getopt(i: int) -> int:
        while i < n:
            a = argv[i]
            if a == "--":
                state["terminated"] = True
                return i + 1
            if len(a) < 2 or a[0] != "-":
                return i
            j = 1
            step = 1
            while j < len(a):
                ch = a[j]
                if ch in _SSH_ARG_OPTS:
                    if j + 1 < len(a):
                        handle(ch, a[j + 1 :])
                    elif i + 1 < n:
                        handle(ch, argv[i + 1])
                        step = 2
                    else:
                        opts.append("-" + ch)  # missing argument: ssh would fail
                    break
                opts.append("-" + ch)
                j += 1
            i += step
        return i

    i = getopt(1)
    if i >= n or not argv[i]:
        return None
    dest = argv[i]
    res.host_idx = i
    if dest.startswith("ssh://"):
        authority = dest[6:].split("/", 1)[0]
        userinfo, at, hostport = authority.rpartition("@")
        if at and userinfo and res.user is None:
            res.user = userinfo.split(";", 1)[0]
        if hostport.startswith("["):
            close = hostport.find("]")
            host = hostport[1:close] if close > 0 else hostport[1:]
            rest = hostport[close + 1 :] if close > 0 else ""
        else:
            host, _, rest = hostport.partition(":")
            rest = ":" + rest if _ else ""
        if rest.startswith(":") and res.port is None:
            res.port = _port(rest[1:])
        res.host = host
    else:
        user, at, host = dest.rpartition("@")
        if at and user and res.user is None:
            res.user = user
        res.host = host if at else dest
    i += 1
    if i < n and not state["terminated"]:
        i = getopt(i)
    res.cmd_idx = i
    res.options = tuple(opts)
    return res


# ---------------------------------------------------------------------------
# The walker
# ---------------------------------------------------------------------------

_SHELLS = _names("sh bash zsh dash ksh mksh ash fish")
_PYTHON_RE = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*)?(?:-dbg)?\Z")
_CONTAINERS = frozenset({"docker", "podman", "nerdctl"})


@functools.lru_cache(maxsize=4096)
def _is_python(prog: str) -> bool:
    return _PYTHON_RE.match(prog) is not None


def _shell_invocation(argv: tuple[str, ...]) -> tuple[str, int | None]:
    """How a shell is invoked: ``("c", idx)``, ``("script", idx)``, ``("stdin", None)``."""
    n = len(argv)
    i = 1
    has_c = False
    has_s = False
    while i < n:
        a = argv[i]
        if a in ("--", "-"):
            i += 1
            break
        if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if a.startswith("--"):
            i += 1
            continue
        if len(a) > 1 and a[0] in "-+":
            letters = a[1:]
            if a[0] == "-" and "c" in letters:
                has_c = True
            if "s" in letters:
                has_s = True
            i += 2 if ("o" in letters or "O" in letters) else 1
            continue
        break
    if has_c:
        return ("c", i if i < n else None)
    if has_s or i >= n:
        return ("stdin", None)
    return ("script", i)


def _stdin_redirect(redirects: tuple[Redirect, ...]) -> Redirect | None:
    """The redirection that feeds stdin (the last ``<``, ``<<``, ``<<-`` or ``<<<``)."""
    found = None
    for r in redirects:
        if r.op in ("<", "<<", "<<-", "<<<") and r.fd in (None, "0"):
            found = r
    return found


class _Analysis:
    """Mutable state of one analysis (shared by all levels and walkers)."""

    __slots__ = ("error", "opaque", "reparses")

    def __init__(self) -> None:
        self.error = False
        self.opaque: list[str] = []
        self.reparses = 0

    def note(self, msg: str) -> None:
        if msg not in self.opaque:
            self.opaque.append(msg)


class _Walker:
    """Collects simple commands and ssh calls from a tree."""

    def __init__(self, an: _Analysis, skip: tuple | None = None) -> None:
        self.an = an
        self.commands: list[SimpleCommand] = []
        self.nested: list[SshCall] = []
        self.skip = skip  # (ctx, start_byte, end_byte) of a wrapper ssh command
        self.heredoc_pieces: dict[int, tuple[Redirect, str, _Pieces]] = {}

    # -- generic traversal -------------------------------------------------

    def walk(self, node, ctx, bg=False, subst=False, pipe=False, oredir=(), via="", depth=0):
        if depth > _MAX_DEPTH:
            self.an.note("the command is nested too deeply to analyse completely")
            return
        t = node.type
        if t == "command":
            self._command(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t == "redirected_statement":
            self._redirected(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t == "pipeline":
            self._pipeline(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t in ("command_substitution", "process_substitution"):
            for ch in node.children:
                if ch.is_named:
                    self.walk(ch, ctx, False, True, False, (), via, depth + 1)
        elif t == "function_definition":
            name = node.child_by_field_name("name")
            fname = ctx.node_text(name) if name is not None else "?"
            self.an.note(f"defines shell function {fname}")
            self._children(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t in ("declaration_command", "unset_command", "test_command"):
            self._pseudo_command(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t in ("variable_assignment", "variable_assignments"):
            self._pseudo_command(node, ctx, bg, subst, pipe, oredir, via, depth)
        elif t == "comment":
            return
        elif t == "ERROR":
            self.an.error = True
            self._children(node, ctx, bg, subst, pipe, oredir, via, depth)
        else:
            self._children(node, ctx, bg, subst, pipe, oredir, via, depth)

    def _children(self, node, ctx, bg, subst, pipe, oredir, via, depth):
        children = node.children
        last = len(children) - 1
        for i, ch in enumerate(children):
            if not ch.is_named:
                continue
            cbg = bg or (i < last and children[i + 1].type == "&")
            self.walk(ch, ctx, cbg, subst, pipe, oredir, via, depth + 1)

    def _scan(self, node, ctx, bg, subst, via, depth):
        """Walk a non-statement node (argument, redirect) for substitutions."""
        if depth > _MAX_DEPTH:
            self.an.note("the command is nested too deeply to analyse completely")
            return
        t = node.type
        if t in _LEAVES:
            return
        if t in ("command_substitution", "process_substitution"):
            self.walk(node, ctx, False, True, False, (), via, depth + 1)
        elif t in (
            "command",
            "pipeline",
            "list",
            "redirected_statement",
            "subshell",
            "compound_statement",
        ):
            # commands tree-sitter attaches to a heredoc (`cat <<EOF | grep x`)
            self.walk(node, ctx, bg, subst, True, (), via, depth + 1)
        elif t == "ERROR":
            self.an.error = True
            self.walk(node, ctx, bg, subst, False, (), via, depth + 1)
        else:
            for ch in node.children:
                if ch.is_named:
                    self._scan(ch, ctx, bg, subst, via, depth + 1)

    def _pipeline(self, node, ctx, bg, subst, pipe, oredir, via, depth):
        seen_bar = False
        for ch in node.children:
            if not ch.is_named:
                if ch.type in ("|", "|&"):
                    seen_bar = True
                continue
            self.walk(ch, ctx, bg, subst, pipe or seen_bar, oredir, via, depth + 1)

    def _redirected(self, node, ctx, bg, subst, pipe, oredir, via, depth):
        body = node.child_by_field_name("body")
        reds: list[Redirect] = []
        red_nodes = []
        for ch in node.children:
            if ch.type in _REDIRECTS:
                red_nodes.append(ch)
                reds.extend(self._redirect(ch, ctx))
        extra: list[_Word] = []
        if body is not None and body.type == "command" and red_nodes:
            # tree-sitter drops a lone `-` before a heredoc (`python3 - <<EOF`)
            c = ctx.src.c
            extra = self._gap_words(ctx, c(body.end_byte), c(red_nodes[0].start_byte))
        if body is not None:
            if body.type == "command":
                self._command(
                    body, ctx, bg, subst, pipe, tuple(reds) + tuple(oredir), via, depth + 1, extra
                )
            else:
                self._walk_last(body, ctx, bg, subst, pipe, oredir, tuple(reds), via, depth + 1)
        for ch in node.children:
            if ch is body or ch.type == "comment":
                continue
            if ch.type in _REDIRECTS:
                self._scan(ch, ctx, bg, subst, via, depth + 1)
            elif ch.is_named and body is None:
                self.walk(ch, ctx, bg, subst, pipe, oredir, via, depth + 1)

    def _walk_last(self, node, ctx, bg, subst, pipe, oredir, reds, via, depth):
        """Walk ``node`` giving ``reds`` to its last command only.

        tree-sitter-bash attaches the redirections of ``a && b > f`` and
        ``a | b > f`` to the whole list/pipeline; bash binds them to ``b``.
        """
        t = node.type
        if depth > _MAX_DEPTH:
            self.an.note("the command is nested too deeply to analyse completely")
            return
        if t not in ("list", "pipeline"):
            if t == "command":
                self._command(node, ctx, bg, subst, pipe, reds + tuple(oredir), via, depth)
            else:
                self.walk(node, ctx, bg, subst, pipe, reds + tuple(oredir), via, depth)
            return
        children = node.children
        last = max((i for i, ch in enumerate(children) if ch.is_named), default=-1)
        seen_bar = False
        for i, ch in enumerate(children):
            if not ch.is_named:
                if ch.type in ("|", "|&"):
                    seen_bar = True
                continue
            p = pipe or (seen_bar and t == "pipeline")
            if i == last:
                self._walk_last(ch, ctx, bg, subst, p, oredir, reds, via, depth + 1)
            else:
                self.walk(ch, ctx, bg, subst, p, oredir, via, depth + 1)

    def _gap_words(self, ctx, a: int, b: int) -> list[_Word]:
        text = ctx.text
        words: list[_Word] = []
        i = a
        while i < b:
            while i < b and text[i] in " \t":
                i += 1
            if i < b and text[i] == "\\" and i + 1 < b and text[i + 1] == "\n":
                i += 2
                continue
            j = i
            while j < b and text[j] not in " \t\n":
                j += 1
            if j > i:
                if text[i] == "#":
                    break
                words.append(_BareWord(ctx, i, j))
            i = j if j > i else i + 1
        return words

    # -- redirections ------------------------------------------------------

    def _redirect(self, node, ctx) -> list[Redirect]:
        t = node.type
        if t == "file_redirect":
            op = ""
            fd = None
            target_nodes = []
            for ch in node.children:
                ct = ch.type
                if ct == "file_descriptor":
                    fd = ctx.node_text(ch)
                elif not ch.is_named:
                    op += ct
                elif ct != "comment":
                    target_nodes.append(ch)
            target = "".join(_Word(n, ctx).value for n in target_nodes)
            return [Redirect(op or ">", target, fd)]
        if t == "herestring_redirect":
            words = [_Word(ch, ctx) for ch in node.named_children if ch.type != "file_descriptor"]
            target = "".join(w.value for w in words)
            fd = None
            for ch in node.children:
                if ch.type == "file_descriptor":
                    fd = ctx.node_text(ch)
            red = Redirect("<<<", target, fd)
            if len(words) == 1:
                self.heredoc_pieces[id(red)] = (red, target, words[0].pieces())
            return [red]
        # heredoc_redirect
        op = "<<"
        fd = None
        delim = ""
        quoted = False
        body_node = None
        extra: list[Redirect] = []
        for ch in node.children:
            ct = ch.type
            if ct in ("<<", "<<-"):
                op = ct
            elif ct == "file_descriptor":
                fd = ctx.node_text(ch)
            elif ct == "heredoc_start":
                raw = ctx.node_text(ch)
                quoted = any(q in raw for q in "'\"\\")
                delim = raw.replace("'", "").replace('"', "").replace("\\", "")
            elif ct == "heredoc_body":
                body_node = ch
            elif ct in _REDIRECTS:
                extra.extend(self._redirect(ch, ctx))
        body = ""
        pieces = None
        if body_node is not None:
            body, pieces = _heredoc_value(body_node, ctx, quoted, op == "<<-")
        red = Redirect(op, delim, fd, body)
        if pieces is not None:
            self.heredoc_pieces[id(red)] = (red, body, pieces)
        return [red] + extra

    # -- commands ----------------------------------------------------------

    def _words(self, node, ctx) -> tuple[list[_Word], list]:
        words: list[_Word] = []
        reds = []
        src = ctx.src
        data = src.data
        prev = -1
        glue = False
        for ch in node.children:
            ct = ch.type
            sb = ch.start_byte
            if prev >= 0 and sb != prev:
                gap = data[prev:sb]
                glue = gap == b"\\\n"
                if gap != b" " and gap.strip(b" \t\\\n"):
                    words.extend(self._gap_words(ctx, src.c(prev), src.c(sb)))
            else:
                glue = False
            prev = ch.end_byte
            if ct in _REDIRECTS:
                reds.append(ch)
            elif ct == "comment":
                continue
            elif ch.is_named:
                word = _Word(ch, ctx)
                if glue and words and ct != "variable_assignment":
                    last = words[-1]
                    parts = last.parts if isinstance(last, _GluedWord) else [last]
                    words[-1] = _GluedWord(parts + [word])
                else:
                    words.append(word)
        return words, reds

    def _command(self, node, ctx, bg, subst, pipe, oredir, via, depth, extra_words=()):
        words, red_nodes = self._words(node, ctx)
        if extra_words:
            words.extend(extra_words)
        reds: list[Redirect] = []
        for r in red_nodes:
            reds.extend(self._redirect(r, ctx))
        redirects = tuple(reds) + tuple(oredir)
        c = ctx.src.c
        s, e = ctx.span(c(node.start_byte), c(node.end_byte))
        argv = tuple(w.value for w in words)
        cmd = SimpleCommand(argv, redirects, bg, subst, s, e, pipe, via)
        self.commands.append(cmd)
        is_wrapper = (
            self.skip is not None
            and self.skip[0] is ctx
            and self.skip[1] == node.start_byte
            and self.skip[2] == node.end_byte
        )
        if not is_wrapper:
            self._follow(cmd, words, ctx, bg, subst, pipe, via, depth)
        for ch in node.children:
            if ch.is_named and ch.type != "comment":
                self._scan(ch, ctx, bg, subst, via, depth + 1)

    def _pseudo_command(self, node, ctx, bg, subst, pipe, oredir, via, depth):
        """declaration/unset/test commands and bare assignments as simple commands."""
        t = node.type
        words: list[_Word] = []
        argv: list[str] = []
        for ch in node.children:
            if ch.type == "comment":
                continue
            if t == "variable_assignments" and ch.type == "variable_assignment":
                w = _Word(ch, ctx)
                words.append(w)
                argv.append(w.value)
            elif not ch.is_named:
                argv.append(ch.type)
            elif t == "test_command":
                argv.extend(self._test_words(ch, ctx))
            else:
                w = _Word(ch, ctx)
                words.append(w)
                argv.append(w.value)
        if t == "variable_assignment":
            argv = [_Word(node, ctx).value]
        c = ctx.src.c
        s, e = ctx.span(c(node.start_byte), c(node.end_byte))
        self.commands.append(SimpleCommand(tuple(argv), tuple(oredir), bg, subst, s, e, pipe, via))
        self._scan(node, ctx, bg, subst, via, depth + 1)

    def _test_words(self, node, ctx) -> list[str]:
        t = node.type
        if t in (
            "word",
            "string",
            "raw_string",
            "concatenation",
            "ansi_c_string",
            "number",
            "simple_expansion",
            "expansion",
            "command_substitution",
        ):
            return [_Word(node, ctx).value]
        if not node.children:
            return [ctx.node_text(node)]
        out: list[str] = []
        for ch in node.children:
            out.extend(self._test_words(ch, ctx) if ch.is_named else [ch.type])
        return out

    # -- following commands into code strings and targets -----------------

    def _follow(self, cmd: SimpleCommand, words: list[_Word], ctx, bg, subst, pipe, via, depth):
        argv = cmd.argv
        if not argv:
            return
        idx = _strip_wrappers(argv)[0]
        if idx >= len(argv):
            return
        eff = argv[idx:]
        ew = words[idx:]
        prog = _basename(eff[0])
        if prog in _SHELLS:
            mode, k = _shell_invocation(eff)
            if mode == "c" and k is not None:
                self._code(ew[k], None, ctx, bg, subst, pipe, f"{prog} -c", depth)
            elif mode == "stdin":
                self._stdin_code(cmd, ctx, bg, subst, prog, depth)
        elif prog == "eval" and len(ew) > 1:
            code, pieces = _join_words(ew[1:])
            self._code(None, (code, pieces), ctx, bg, subst, pipe, "eval", depth)
        elif prog == "su":
            for k in range(1, len(eff)):
                if eff[k] in ("-c", "--command") and k + 1 < len(eff):
                    self._code(ew[k + 1], None, ctx, bg, subst, pipe, "su -c", depth)
                    break
                if eff[k].startswith("--command="):
                    self.an.note("su --command= code is not analysed")
        elif prog == "trap" and len(eff) > 2 and not eff[1].startswith("-"):
            self._code(ew[1], None, ctx, bg, subst, False, "trap", depth)
        elif prog == "watch":
            k = _skip_options(
                eff,
                1,
                with_arg="nq",
                long_with_arg=frozenset({"--interval", "--equexit"}),
                optional_attached="d",
            )
            if 0 < k < len(eff):
                code, pieces = _join_words(ew[k:])
                self._code(None, (code, pieces), ctx, bg, subst, False, "watch", depth)
        elif prog == "xargs":
            k = _xargs_target(eff)
            if k is not None:
                self._synthetic(ew[k:], ctx, bg, subst, "xargs", depth)
        elif prog in ("find", "fd", "fdfind"):
            for a, b in _exec_targets(eff, prog):
                self._synthetic(ew[a:b], ctx, bg, subst, f"{prog} -exec", depth)
        elif prog in _CONTAINERS and len(eff) > 2 and eff[1] == "exec":
            k = _skip_options(
                eff,
                2,
                with_arg="euw",
                long_with_arg=frozenset(
                    {"--env", "--env-file", "--user", "--workdir", "--detach-keys"}
                ),
            )
            if 0 < k < len(eff) - 1:
                self._synthetic(ew[k + 1 :], ctx, bg, subst, f"{prog} exec", depth)
        elif prog == "ssh":
            self._ssh(cmd, eff, ew, ctx, bg, subst, depth)

    def _synthetic(self, words: list[_Word], ctx, bg, subst, via, depth):
        if not words or depth > _MAX_DEPTH:
            return
        s = ctx.span(words[0].start, words[0].end)[0]
        e = ctx.span(words[-1].start, words[-1].end)[1]
        argv = tuple(w.value for w in words)
        cmd = SimpleCommand(argv, (), bg, subst, s, max(s, e), False, via)
        self.commands.append(cmd)
        self._follow(cmd, words, ctx, bg, subst, False, via, depth + 1)

    def _stdin_code(self, cmd: SimpleCommand, ctx, bg, subst, prog, depth):
        red = _stdin_redirect(cmd.redirects)
        if red is None or red.op == "<":
            return
        entry = self.heredoc_pieces.get(id(red))
        if entry is None:
            self.an.note(f"{prog} reads code from stdin that is not analysed")
            return
        via = "herestring" if red.op == "<<<" else "heredoc"
        self._code(None, entry[1:], ctx, bg, subst, False, via, depth)

    def _code(self, word, joined, ctx, bg, subst, pipe, via, depth):
        """Parse a code string (a word or a joined/heredoc text) as shell code."""
        an = self.an
        if ctx.nesting >= _MAX_CODE_NESTING or an.reparses >= _MAX_REPARSE:
            an.note(f"code passed to {via} is nested too deeply to analyse")
            return
        if word is not None:
            code, pieces = word.value, word.pieces()
        else:
            code, pieces = joined
        if not code.strip():
            return
        an.reparses += 1
        sub = _Ctx(_Src(code), ctx, pieces)
        tree = _parse_tree(sub.src.data)
        root = tree.root_node
        if root.has_error:
            an.error = True
            an.note(f"the code passed to {via} does not parse cleanly")
        self.walk(root, sub, bg, subst, pipe, (), via, depth + 1)

    def _ssh(self, cmd, eff, ew, ctx, bg, subst, depth):
        parsed = _parse_ssh_argv(eff)
        if parsed is None:
            return
        hw = ew[parsed.host_idx]
        hs, he = ctx.span(hw.start, hw.end)
        remote_words = ew[parsed.cmd_idx :]
        remote = None
        joined = None
        if remote_words:
            joined = _join_words(remote_words)
            remote = joined[0] or None  # ssh runs a login shell for an empty command
            if remote is None:
                joined = None
        stdin_script, stdin_entry = self._ssh_stdin(cmd, remote)
        call = SshCall(
            parsed.host,
            parsed.user,
            parsed.port,
            parsed.identity,
            parsed.options,
            remote,
            hs,
            he,
            cmd.start,
            cmd.end,
            "",
            stdin_script,
        )
        self.nested.append(call)
        via = f"ssh {parsed.host}"
        if stdin_entry is not None:
            self._code(None, stdin_entry, ctx, bg, subst, False, via, depth)
        elif joined is not None:
            self._code(None, joined, ctx, bg, subst, False, via, depth)

    def _ssh_stdin(self, cmd: SimpleCommand, remote: str | None):
        """The heredoc a remote shell runs as its script, if any."""
        red = _stdin_redirect(cmd.redirects)
        if red is None or red.op == "<":
            return None, None
        if remote is not None:
            head = remote.split()
            if not head:
                return None, None
            k = 0
            while k < len(head) and _is_assignment(head[k]):
                k += 1
            if k >= len(head) or _basename(head[k]) not in _SHELLS:
                return None, None
            if _shell_invocation(tuple(head[k:]))[0] != "stdin":
                return None, None
        entry = self.heredoc_pieces.get(id(red))
        if entry is None:
            return None, None
        return entry[1], entry[1:]


def _heredoc_value(body_node, ctx: _Ctx, quoted: bool, strip_tabs: bool) -> tuple[str, _Pieces]:
    """The text a program reads from a heredoc, with its source map."""
    c = ctx.src.c
    a, b = c(body_node.start_byte), c(body_node.end_byte)
    text = ctx.text
    out = _Out(text, True)
    if strip_tabs:
        # tree-sitter starts the body after the first line's tabs and ends it
        # with the tabs that precede the delimiter; drop leading tabs per line
        i = a
        while i < b:
            j = text.find("\n", i, b)
            line_end = b if j < 0 else j + 1
            k = i
            while k < line_end and text[k] == "\t":
                k += 1
            if quoted:
                out.lit(k, line_end)
            else:
                _dquote_unescape(out, k, line_end, frozenset("\\$`"))
            i = line_end
        # trailing tabs before the delimiter line are not content
        return out.value().rstrip("\t"), out.pieces
    if quoted:
        out.lit(a, b)
    else:
        _dquote_unescape(out, a, b, frozenset("\\$`"))
    return out.value(), out.pieces


def _xargs_target(argv: tuple[str, ...]) -> int | None:
    k = _skip_options(
        argv,
        1,
        with_arg="adEILnPs",
        long_with_arg=frozenset(
            {
                "--arg-file",
                "--delimiter",
                "--max-lines",
                "--max-args",
                "--max-procs",
                "--max-chars",
                "--process-slot-var",
            }
        ),
        optional_attached="eil",
    )
    if 0 < k < len(argv):
        return k
    return None


def _exec_targets(argv: tuple[str, ...], prog: str) -> list[tuple[int, int]]:
    """Word ranges of ``find -exec CMD ... ;`` / ``fd -x CMD`` targets."""
    out = []
    n = len(argv)
    i = 1
    if prog == "find":
        starts = ("-exec", "-execdir", "-ok", "-okdir")
    else:
        starts = ("-x", "--exec", "-X", "--exec-batch")
    while i < n:
        if argv[i] in starts:
            a = i + 1
            j = a
            while j < n:
                if prog == "find" and (
                    argv[j] == ";" or (argv[j] == "+" and j > a and argv[j - 1] == "{}")
                ):
                    break
                if prog != "find" and argv[j] == ";":
                    break
                j += 1
            if prog == "find" and j < n and argv[j] == "+":
                b = j
            else:
                b = j
            if b > a:
                out.append((a, b))
            i = j + 1
        else:
            i += 1
    return out


# ---------------------------------------------------------------------------
# Wrapper-chain detection and the analysis entry point
# ---------------------------------------------------------------------------


def _single_statement(root):
    """The only statement of a parse tree, or None (several, backgrounded, none)."""
    stmt = None
    for ch in root.children:
        t = ch.type
        if t == "comment":
            continue
        if not ch.is_named:
            if t == "&":
                return None
            continue
        if stmt is not None:
            return None
        stmt = ch
    return stmt


def _find_wrapper(root, ctx: _Ctx, an: _Analysis):
    """If the tree is one ssh wrapper, return ``(call, stmt, cmd_node, code, pieces)``."""
    text = ctx.text
    if "ssh" not in text and "\\" not in text and "'" not in text and '"' not in text:
        return None  # fast path: no word can unquote to "ssh"
    stmt = _single_statement(root)
    if stmt is None:
        return None
    node = stmt
    outer_reds = []
    for _ in range(8):
        if node.type == "pipeline":
            named = [ch for ch in node.children if ch.is_named]
            if not named:
                return None
            node = named[0]
        elif node.type == "redirected_statement":
            body = node.child_by_field_name("body")
            if body is None:
                return None
            outer_reds.extend(ch for ch in node.children if ch.type in _REDIRECTS)
            node = body
        else:
            break
    if node.type != "command":
        return None
    w = _Walker(an)
    words, red_nodes = w._words(node, ctx)
    argv = tuple(x.value for x in words)
    idx = _strip_wrappers(argv)[0]
    if idx >= len(argv) or _basename(argv[idx]) != "ssh":
        return None
    eff = argv[idx:]
    ew = words[idx:]
    parsed = _parse_ssh_argv(eff)
    if parsed is None:
        return None
    reds: list[Redirect] = []
    for r in list(red_nodes) + outer_reds:
        reds.extend(w._redirect(r, ctx))
    probe = SimpleCommand(argv, tuple(reds), False, False, 0, 0)
    remote_words = ew[parsed.cmd_idx :]
    remote = None
    if remote_words:
        remote, pieces = _join_words(remote_words)
        remote = remote or None  # ssh runs a login shell for an empty command
    stdin_script, entry = w._ssh_stdin(probe, remote)
    if entry is not None:
        code, pieces = entry
    elif remote is not None:
        code = remote
    else:
        return None
    c = ctx.src.c
    hw = ew[parsed.host_idx]
    cs, ce = c(node.start_byte), c(node.end_byte)
    suffix = ctx.text[ce : c(stmt.end_byte)].strip()
    call = SshCall(
        parsed.host,
        parsed.user,
        parsed.port,
        parsed.identity,
        parsed.options,
        remote,
        hw.start,
        hw.end,
        cs,
        ce,
        suffix,
        stdin_script,
    )
    return call, stmt, node, code, pieces


def _analyse(text: str) -> ShellInfo:
    try:
        return _analyse_unsafe(text)
    except Exception as exc:  # never raise: report what could not be analysed
        return ShellInfo(
            text=text,
            hops=(),
            inner=text,
            commands=(),
            nested_ssh=(),
            category="other",
            parse_error=True,
            local_commands=(),
            opaque=(f"internal error while analysing the command ({type(exc).__name__})",),
        )


def _dedupe(commands: list[SimpleCommand]) -> tuple[SimpleCommand, ...]:
    seen = set()
    out = []
    for cmd in commands:
        key = (cmd.argv, cmd.start, cmd.end)
        if key in seen:
            continue
        seen.add(key)
        out.append(cmd)
    return tuple(out)


def _analyse_unsafe(text: str) -> ShellInfo:
    an = _Analysis()
    src = _Src(text)
    chain_ctx = _Ctx(src)  # maps the current level to `text`
    hops: list[SshCall] = []
    local: list[SimpleCommand] = []
    level_src = src
    tree = _parse_tree(src.data)
    for _level in range(_MAX_HOPS + 1):
        root = tree.root_node
        if root.has_error:
            an.error = True
        local_ctx = _Ctx(level_src)
        found = _find_wrapper(root, local_ctx, an)
        if found is None:
            break
        if _level == _MAX_HOPS:
            an.note(f"more than {_MAX_HOPS} ssh hops; the rest is analysed as one command")
            break
        call, stmt, cmd_node, code, pieces = found
        hops.append(call)
        lw = _Walker(an, skip=(chain_ctx, cmd_node.start_byte, cmd_node.end_byte))
        lw.walk(stmt, chain_ctx)
        local.extend(lw.commands)
        level_src = _Src(code)
        chain_ctx = _Ctx(level_src, chain_ctx, pieces)
        tree = _parse_tree(level_src.data)
    inner = level_src.text
    root = tree.root_node
    w = _Walker(an)
    w.walk(root, _Ctx(level_src))
    if root.has_error or an.error:
        an.error = True
        an.note("the command does not parse cleanly")
    commands = _dedupe(w.commands)
    return ShellInfo(
        text=text,
        hops=tuple(hops),
        inner=inner,
        commands=commands,
        nested_ssh=tuple(w.nested),
        category=_category(commands),
        parse_error=an.error,
        local_commands=_dedupe(local),
        opaque=tuple(an.opaque),
    )


@functools.lru_cache(maxsize=65536)
def _parse_cached(text: str) -> ShellInfo:
    return _analyse(text)


def parse_command(text: str) -> ShellInfo:
    """Analyse a shell command text.  Cached (LRU, 65536 entries); never raises.

    Non-``str`` input is coerced (bytes are decoded with ``surrogateescape``,
    ``None`` becomes ``""``).
    """
    if not isinstance(text, str):
        if isinstance(text, (bytes, bytearray)):
            text = bytes(text).decode("utf-8", "surrogateescape")
        elif text is None:
            text = ""
        else:
            text = str(text)
    return _parse_cached(text)


parse_command.cache_info = _parse_cached.cache_info  # type: ignore[attr-defined]
parse_command.cache_clear = _parse_cached.cache_clear  # type: ignore[attr-defined]


# ---------------------------------------------------------------------------
# Shared program knowledge
# ---------------------------------------------------------------------------

_RO, _LAUNCH, _UNK, _MUT = 0, 1, 2, 3

_TRIVIAL_BG = _names("sleep wait true false : echo printf cd export")

_SERVER_PROGRAMS = _names(
    "uvicorn gunicorn hypercorn daphne text-generation-launcher llama-server tritonserver "
    "trtllm-serve redis-server tensorboard http-server caddy nginx"
)
_SERVE_SUBCOMMANDS = {
    "vllm": ("serve",),
    "sglang": ("serve", "launch"),
    "ollama": ("serve",),
    "jupyter": ("lab", "notebook", "server"),
    "mlflow": ("server", "ui"),
    "lmdeploy": ("serve",),
    "flask": ("run",),
}
_SERVER_MODULE_TAILS = frozenset(
    {"server", "serve", "api_server", "launch_server", "launch_router"}
)
_SERVER_MODULES = frozenset({"uvicorn", "gunicorn", "http.server", "jupyterlab", "notebook"})

_BENCH_PROGRAMS = _names(
    "ab wrk wrk2 hey oha vegeta locust hyperfine sysbench fio genai-perf guidellm "
    "nvbandwidth p2pBandwidthLatencyTest bandwidthTest iperf iperf3 stress-ng"
)


@functools.lru_cache(maxsize=16384)
def _python_invocation(argv: tuple[str, ...]) -> tuple[str, str | None, int]:
    """Decode ``python [opts] (-c CODE | -m MOD | SCRIPT | - ) ...``.

    Returns ``(mode, value, index after the value)`` with mode one of
    ``c``, ``m``, ``script``, ``stdin`` (``-`` or nothing), ``version``.
    """
    n = len(argv)
    i = 1
    while i < n:
        a = argv[i]
        if a == "-":
            return ("stdin", None, i + 1)
        if a in ("--version", "-V", "-VV", "--help", "-h"):
            return ("version", None, i + 1)
        if a.startswith("--"):
            i += 2 if a == "--check-hash-based-pycs" else 1
            continue
        if len(a) > 1 and a[0] == "-":
            j = 1
            step = 1
            while j < len(a):
                ch = a[j]
                if ch in "cm":
                    if j + 1 < len(a):
                        return (ch, a[j + 1 :], i + 1)
                    if i + 1 < n:
                        return (ch, argv[i + 1], i + 2)
                    return (ch, "", i + 1)
                if ch in "XW":
                    if j + 1 == len(a):
                        step = 2
                    break
                if ch in "Vh":
                    return ("version", None, i + 1)
                j += 1
            i += step
            continue
        return ("script", a, i + 1)
    return ("stdin", None, n)


def _first_operand(argv: tuple[str, ...], i: int = 1, with_arg: frozenset[str] = frozenset()):
    """The first argument after ``i`` that does not start with ``-`` (and its index)."""
    n = len(argv)
    while i < n:
        a = argv[i]
        if a == "--":
            return (argv[i + 1], i + 1) if i + 1 < n else (None, n)
        if a.startswith("-") and len(a) > 1:
            i += 2 if a in with_arg else 1
            continue
        return a, i
    return None, n


_PIP_GLOBAL_ARGS = _names(
    "--python --log --proxy --cache-dir --timeout --retries --cert --client-cert "
    "--exists-action --trusted-host --keyring-provider"
)


def _pip_sub(argv: tuple[str, ...], i: int) -> str | None:
    """The pip subcommand in ``argv[i:]`` (``--version`` counts as ``version``)."""
    for a in argv[i:]:
        if a in ("--version", "-V"):
            return "version"
        if not a.startswith("-"):
            break
    sub, _ = _first_operand(argv, i, _PIP_GLOBAL_ARGS)
    return sub


def _pip_like(prog: str, eff: tuple[str, ...]) -> tuple[str, int] | None:
    """If ``eff`` runs pip (``pip``, ``pip3``, ``python -m pip``, ``uv pip``): ``(sub, idx)``."""
    if prog == "pip" or (prog.startswith("pip") and prog[3:].replace(".", "").isdigit()):
        return (_pip_sub(eff, 1) or ""), 1
    if _is_python(prog):
        mode, value, k = _python_invocation(eff)
        if mode == "m" and value == "pip":
            return (_pip_sub(eff, k) or ""), k
        return None
    if prog == "uv" and len(eff) > 1 and eff[1] == "pip":
        return (_pip_sub(eff, 2) or ""), 2
    return None


_PIP_READ = _names(
    "show list freeze check index inspect debug help search version tree config cache"
)
_PIP_WRITE = frozenset({"install", "uninstall", "download", "wheel", "sync", "compile"})

_PKG_MANAGERS: dict[str, tuple[frozenset[str], frozenset[str]]] = {}
for _progs, _mut, _ro in (
    (
        ("apt", "apt-get", "aptitude"),
        "install remove purge upgrade full-upgrade dist-upgrade update autoremove reinstall "
        "build-dep satisfy clean autoclean download source markauto",
        "list show search policy depends rdepends showsrc changelog madison check",
    ),
    (
        ("yum", "dnf", "microdnf", "zypper"),
        "install remove erase update upgrade reinstall downgrade autoremove groupinstall "
        "makecache clean in rm up",
        "list info search provides repolist check-update history se if",
    ),
    (("apk",), "add del upgrade update fix", "info search list policy"),
    (
        ("brew",),
        "install uninstall remove upgrade update reinstall link unlink tap cleanup",
        "list info search outdated config deps leaves",
    ),
    (("snap",), "install remove refresh", "list info find"),
    (
        ("conda", "mamba", "micromamba"),
        "install remove uninstall create update upgrade clean",
        "list info search",
    ),
    (
        ("npm", "yarn", "pnpm"),
        "install i ci add remove uninstall rm un update upgrade link publish prune dedupe",
        "ls list view info outdated why",
    ),
    (("gem",), "install uninstall update", "list search info env"),
    (("pipx",), "install uninstall upgrade inject reinstall upgrade-all", "list"),
):
    for _n in _progs:
        _PKG_MANAGERS[_n] = (frozenset(_mut.split()), frozenset(_ro.split()))

_BUILD_PROGRAMS = _names(
    "make gmake cmake ninja meson bazel scons gcc g++ cc c++ clang clang++ nvcc ld ar "
    "rustc javac mvn gradle cythonize"
)
_VERSION_ARGS = frozenset({"--version", "-V", "-v", "--help", "-h", "version", "-version"})

_SETUP_BUILD = _names("build build_ext install develop bdist_wheel sdist bdist build_py egg_info")


def _module_is_server(mod: str) -> bool:
    if mod in _SERVER_MODULES:
        return True
    return (
        "launch_server" in mod
        or "api_server" in mod
        or mod.rsplit(".", 1)[-1] in _SERVER_MODULE_TAILS
    )


def _server_reason(prog: str, eff: tuple[str, ...], strict: bool = False) -> str | None:
    """Why ``eff`` starts a (known) server, or None.

    ``strict`` (used for safety) only accepts server modules and programs:
    a script or ``-c`` code that mentions ``launch_server`` could do anything.
    """
    if _is_python(prog):
        mode, value, _ = _python_invocation(eff)
        if mode == "m" and value and _module_is_server(value):
            return f"{prog} -m {value} starts a server"
        if strict:
            return None
        if mode == "script" and value and "launch_server" in _basename(value):
            return f"{prog} {_basename(value)} starts a server"
        if mode == "c" and value and "launch_server" in value:
            return f"{prog} -c code starts a server"
        return None
    subs = _SERVE_SUBCOMMANDS.get(prog)
    if subs and len(eff) > 1 and eff[1] in subs:
        return f"{prog} {eff[1]} starts a server"
    if prog in _SERVER_PROGRAMS or "launch_server" in prog:
        return f"{prog} starts a server"
    return None


def _follow_reason(prog: str, eff: tuple[str, ...]) -> str | None:
    """Why ``eff`` runs until stopped (``tail -f``, ``watch``, ``journalctl -f``...)."""
    args = eff[1:]
    if prog == "tail":
        for a in args:
            if a in ("--follow", "--retry") or a.startswith("--follow="):
                return "tail -f follows the file until stopped"
            if len(a) > 1 and a[0] == "-" and a[1] != "-" and ("f" in a or "F" in a):
                return "tail -f follows the file until stopped"
        return None
    if prog == "watch":
        return "watch reruns its command until stopped"
    if prog == "journalctl" and any(a in ("-f", "--follow") for a in args):
        return "journalctl -f follows the journal until stopped"
    if prog in _CONTAINERS and len(args) > 1 and args[0] == "logs":
        if any(a in ("-f", "--follow") for a in args):
            return f"{prog} logs -f follows the logs until stopped"
    if prog == "nvidia-smi":
        for a in args:
            if a in ("-l", "--loop", "-lms", "--loop-ms", "dmon", "pmon") or a.startswith(
                ("--loop=", "--loop-ms=")
            ):
                return "nvidia-smi loops until stopped"
    if prog == "tmux" and args and args[0] in ("new", "new-session") and "-d" in args:
        return "tmux new -d starts a detached session"
    if prog == "screen" and any(a.startswith("-d") and "m" in a for a in args):
        return "screen -dm starts a detached session"
    if prog == "sleep" and args and args[0] in ("infinity", "inf"):
        return "sleep infinity never returns"
    return None


def _fuser_kills(args: tuple[str, ...]) -> bool:
    return any(
        a == "--kill" or (a.startswith("-") and not a.startswith("--") and "k" in a[1:])
        for a in args
    )


def _bench_hit(word: str) -> bool:
    w = _basename(word).lower()
    return "bench" in w or w.endswith("_perf") or w.endswith("_perf_mpi")


def _is_benchmark(prog: str, eff: tuple[str, ...]) -> bool:
    low = prog.lower()
    if low in _BENCH_PROGRAMS or _bench_hit(prog) or "nccl-tests" in eff[0]:
        return True
    if low.startswith("ib_") and (low.endswith("_bw") or low.endswith("_lat")):
        return True
    if _is_python(prog):
        mode, value, _ = _python_invocation(eff)
        return mode in ("m", "script") and bool(value) and _bench_hit(value)
    if prog in _SHELLS:
        mode, k = _shell_invocation(eff)
        return mode == "script" and k is not None and _bench_hit(eff[k])
    if prog in ("vllm", "sglang") and len(eff) > 1 and eff[1] == "bench":
        return True
    if prog in ("cargo",) and len(eff) > 1 and eff[1] == "bench":
        return True
    if prog in ("torchrun", "mpirun", "mpiexec", "deepspeed", "srun", "accelerate"):
        return any(_bench_hit(a) for a in eff[1:] if not a.startswith("-"))
    if prog == "go" and len(eff) > 1 and eff[1] == "test":
        return any(a.startswith("-bench") for a in eff[2:])
    if prog == "pytest" or (_is_python(prog) and "pytest" in eff):
        return any(a.startswith("--benchmark") for a in eff)
    return False


def _write_verdict(target: str, verb: str) -> tuple[int, str] | None:
    """Severity of writing ``target``: None when harmless (/dev/null, /tmp, an fd)."""
    t = target
    if not t or t.isdigit() or t == "-":
        return None
    if t in ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"):
        return None
    if t.startswith(("/dev/fd/", "/proc/self/fd/")):
        return None
    if "$" in t or "`" in t:
        if t.startswith("/tmp/") and ".." not in t:
            return (_UNK, f"{verb} {t}, a path computed at run time")
        return (_MUT, f"{verb} {t}")
    norm = posixpath.normpath(t)
    if norm.startswith("/tmp/") or norm.startswith("//tmp/"):
        return None
    return (_MUT, f"{verb} {t}")


def _file_writes(cmd: SimpleCommand) -> list[str]:
    """Files the command's redirections (and ``time -o``) open for writing."""
    out = [r.target for r in cmd.redirects if r.writes]
    out.extend(_strip_wrappers(cmd.argv)[2])
    return out


def _real_file(target: str) -> bool:
    return (
        bool(target) and not target.isdigit() and target != "-" and not target.startswith("/dev/")
    )


def _in_tmp(target: str) -> bool:
    return posixpath.normpath(target).startswith("/tmp/")


# ---------------------------------------------------------------------------
# Python -c code inspection
# ---------------------------------------------------------------------------

_PY_PURE_BUILTINS = _names(
    "print len str repr type dir hasattr isinstance sorted list tuple bool int float hex "
    "sum min max any all enumerate zip range format round abs set dict id callable chr "
    "ord reversed frozenset bin oct ascii issubclass"
)
_PY_PURE_METHODS = _names(
    "items keys values get split rsplit strip lstrip rstrip join format startswith "
    "endswith lower upper count index find splitlines is_available device_count "
    "get_device_name get_device_capability get_device_properties current_device "
    "is_initialized version find_spec python_version python_implementation machine node "
    "release architecture getenv dumps isdigit isalpha zfill ljust rjust center title "
    "as_tuple is_built get_arch_list cuda_version nccl_version"
)
_PY_DANGEROUS_ROOTS = _names(
    "os shutil subprocess pathlib socket signal ctypes builtins io tempfile pickle "
    "marshal multiprocessing threading asyncio posix glob sqlite3 urllib requests http "
    "pty fcntl resource"
)


def _py_root(node) -> str | None:
    while isinstance(node, ast.Attribute):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _py_call_ok(node: ast.Call) -> bool:
    f = node.func
    if isinstance(f, ast.Name):
        ok = f.id in _PY_PURE_BUILTINS
    elif isinstance(f, ast.Attribute):
        root = _py_root(f)
        dotted = ast.unparse(f) if root else ""
        if dotted in (
            "sys.stdin.read",
            "sys.stdin.readlines",
            "sys.stdin.readline",
            "json.load",
            "json.loads",
            "json.dumps",
        ):
            ok = dotted != "json.load" or (
                len(node.args) == 1 and ast.unparse(node.args[0]) == "sys.stdin"
            )
        else:
            ok = (
                f.attr in _PY_PURE_METHODS
                and root not in _PY_DANGEROUS_ROOTS
                and _py_expr_ok(f.value)
            )
    else:
        ok = False
    return (
        ok
        and all(_py_expr_ok(a) for a in node.args)
        and all(_py_expr_ok(k.value) for k in node.keywords)
    )


def _py_expr_ok(node) -> bool:
    if node is None:
        return True
    if isinstance(node, (ast.Constant, ast.Name)):
        return True
    if isinstance(node, ast.Attribute):
        return _py_expr_ok(node.value)
    if isinstance(node, ast.Call):
        return _py_call_ok(node)
    if isinstance(node, ast.JoinedStr):
        return all(_py_expr_ok(v) for v in node.values)
    if isinstance(node, ast.FormattedValue):
        return _py_expr_ok(node.value) and _py_expr_ok(node.format_spec)
    if isinstance(node, (ast.Tuple, ast.List, ast.Set)):
        return all(_py_expr_ok(e) for e in node.elts)
    if isinstance(node, ast.Dict):
        return all(_py_expr_ok(k) for k in node.keys) and all(_py_expr_ok(v) for v in node.values)
    if isinstance(node, ast.Subscript):
        return _py_expr_ok(node.value) and _py_expr_ok(node.slice)
    if isinstance(node, ast.Slice):
        return _py_expr_ok(node.lower) and _py_expr_ok(node.upper) and _py_expr_ok(node.step)
    if isinstance(node, ast.Starred):
        return _py_expr_ok(node.value)
    if isinstance(node, ast.BinOp):
        return _py_expr_ok(node.left) and _py_expr_ok(node.right)
    if isinstance(node, ast.UnaryOp):
        return _py_expr_ok(node.operand)
    if isinstance(node, ast.BoolOp):
        return all(_py_expr_ok(v) for v in node.values)
    if isinstance(node, ast.Compare):
        return _py_expr_ok(node.left) and all(_py_expr_ok(c) for c in node.comparators)
    if isinstance(node, ast.IfExp):
        return _py_expr_ok(node.test) and _py_expr_ok(node.body) and _py_expr_ok(node.orelse)
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
        elts = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
        return all(_py_expr_ok(e) for e in elts) and all(
            _py_target_ok(g.target) and _py_expr_ok(g.iter) and all(_py_expr_ok(i) for i in g.ifs)
            for g in node.generators
        )
    return False


def _py_target_ok(node) -> bool:
    if isinstance(node, ast.Name):
        return True
    if isinstance(node, (ast.Tuple, ast.List)):
        return all(_py_target_ok(e) for e in node.elts)
    return False


def _py_stmt_ok(node) -> bool:
    if isinstance(node, (ast.Import, ast.ImportFrom, ast.Pass)):
        return True
    if isinstance(node, ast.Expr):
        return _py_expr_ok(node.value)
    if isinstance(node, ast.Assign):
        return all(_py_target_ok(t) for t in node.targets) and _py_expr_ok(node.value)
    if isinstance(node, ast.If):
        return _py_expr_ok(node.test) and all(map(_py_stmt_ok, node.body + node.orelse))
    if isinstance(node, ast.For):
        return (
            _py_target_ok(node.target)
            and _py_expr_ok(node.iter)
            and all(map(_py_stmt_ok, node.body + node.orelse))
        )
    if isinstance(node, ast.Try):
        return all(map(_py_stmt_ok, node.body + node.orelse + node.finalbody)) and all(
            _py_expr_ok(h.type) and all(map(_py_stmt_ok, h.body)) for h in node.handlers
        )
    return False


@functools.lru_cache(maxsize=4096)
def _py_code(code: str) -> tuple[bool, bool, bool]:
    """``(parses, imports something, read-only)`` for Python source text.

    Read-only means: only imports, ``print(...)`` and other calls of a small
    allowlist of side-effect-free functions, names, attributes, constants,
    simple assignments, ``if``/``for``/``try`` made of the same.  (Importing a
    module runs its code; that is accepted.)
    """
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return (False, "import " in code, False)
    imports = False
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            imports = True
            break
    try:
        safe = all(_py_stmt_ok(s) for s in tree.body)
    except RecursionError:
        safe = False
    return (True, imports, safe)


def _python_code_of(cmd: SimpleCommand, eff: tuple[str, ...]) -> tuple[str, str | None]:
    """``(mode, code)`` where code is the ``-c`` string or the heredoc on stdin."""
    mode, value, _ = _python_invocation(eff)
    if mode == "c":
        return mode, value or ""
    if mode == "stdin":
        red = _stdin_redirect(cmd.redirects)
        if red is not None and red.op in ("<<", "<<-"):
            return "heredoc", red.heredoc or ""
        if red is not None and red.op == "<<<":
            return "heredoc", red.target
    return mode, value


# ---------------------------------------------------------------------------
# Category
# ---------------------------------------------------------------------------

_SEARCH_PROGRAMS = _names(
    "grep egrep fgrep zgrep rg ag ack cat zcat bat head tail less more ls ll find fd "
    "fdfind tree wc awk gawk mawk jq yq nvidia-smi pwd which whereis type du df ps pgrep "
    "pidof stat file env printenv lsof ss netstat uname hostname nproc lscpu lspci lsblk "
    "lsmod dmesg journalctl uptime id whoami date realpath readlink basename dirname "
    "md5sum sha1sum sha256sum sha512sum diff cmp strings nm objdump readelf ldd "
    "ibv_devinfo ibv_devices ibstat ibstatus free top htop nvtop ulimit getconf locale "
    "column xxd od hexdump ompi_info ucx_info sensors iostat vmstat mpstat tac nl sort "
    "uniq cut tr sed numactl ip ifconfig getent dmidecode lsusb nvidia-debugdump "
    "nvidia-bug-report.sh command"
)
_FILTERS = _names(
    "grep egrep fgrep rg sed awk gawk mawk head tail sort uniq cut tr wc jq yq column tee "
    "less more cat nl tac xxd od strings fold fmt paste rev ts"
)
_NEUTRAL = _names(
    "echo printf cd pushd popd sleep true false : export set unset source . wait exit "
    "return local declare typeset readonly read shift trap shopt alias unalias eval xargs "
    "clear history umask break continue ssh exec hash mapfile readarray let test [ [["
)
_PRODUCERS = frozenset({"echo", "printf", "cat", ":", "true"})
_EDIT_PROGRAMS = _names(
    "patch cp mv ln mkdir touch chmod chown chgrp truncate install vim vi nano emacs ed "
    "dd rsync scp unzip tar"
)
_KILL_PROGRAMS = _names("kill pkill killall rm rmdir unlink shred xkill")
_GIT_EDIT = _names(
    "apply am checkout switch restore reset stash cherry-pick merge rebase pull revert mv rm clean"
)
_GIT_READ = _names(
    "log show diff status grep blame rev-parse describe ls-files ls-tree ls-remote "
    "cat-file rev-list shortlog reflog whatchanged name-rev merge-base count-objects "
    "check-ignore for-each-ref show-ref var diff-tree diff-files diff-index cherry "
    "version help --version"
)


def _git_sub(eff: tuple[str, ...]) -> tuple[str | None, int]:
    n = len(eff)
    i = 1
    while i < n:
        a = eff[i]
        if a in (
            "-C",
            "-c",
            "--git-dir",
            "--work-tree",
            "--namespace",
            "--super-prefix",
            "--config-env",
        ):
            i += 2
            continue
        if a == "--version":
            return a, i
        if a.startswith("-"):
            i += 1
            continue
        return a, i
    return None, n


def _base_category(cmd: SimpleCommand, prog: str, eff: tuple[str, ...]) -> str | None:
    """Category of one effective command, ``None`` when it is neutral glue."""
    args = eff[1:]
    if _server_reason(prog, eff):
        return "launch"
    if _is_benchmark(prog, eff):
        return "benchmark"
    pip = _pip_like(prog, eff)
    if pip is not None:
        sub = pip[0]
        if sub == "wheel":
            return "build"
        if sub in _PIP_WRITE:
            return "install"
        if sub in _PIP_READ:
            return "package-query" if sub != "version" else "search"
        return "other"
    if _is_python(prog):
        mode, code = _python_code_of(cmd, eff)
        if mode in ("c", "heredoc"):
            _, imports, _ = _py_code(code or "")
            if cmd.stdin_pipe and mode == "c":
                return None  # a filter such as json formatting
            return "import-check" if imports else "other"
        if mode == "version":
            return "search"
        if mode == "m":
            mod = _python_invocation(eff)[1] or ""
            if mod == "build":
                return "build"
            if mod in ("json.tool",):
                return None if cmd.stdin_pipe else "search"
            if mod.startswith("torch.distributed"):
                return "launch"
            return "other"
        if mode == "script":
            script = _python_invocation(eff)[1] or ""
            if _basename(script) == "setup.py":
                rest = eff[_python_invocation(eff)[2] :]
                if any(a in _SETUP_BUILD for a in rest):
                    return "build"
            return "other"
        return "other"
    if prog in _PKG_MANAGERS:
        mut, ro = _PKG_MANAGERS[prog]
        sub, _ = _first_operand(eff, 1, frozenset({"-n", "--name", "-p", "--prefix", "-c"}))
        if prog in ("conda", "mamba", "micromamba") and sub == "env":
            sub2 = args[1] if len(args) > 1 else ""
            return "package-query" if sub2 in ("list", "export") else "install"
        if sub in mut:
            return "install"
        if sub in ro:
            return "package-query"
        if (
            prog in ("npm", "yarn", "pnpm")
            and sub == "run"
            and len(args) > 1
            and "build" in args[1]
        ):
            return "build"
        if any(a in _VERSION_ARGS for a in args[:1]):
            return "search"
        return "other"
    if prog in ("apt-cache", "dpkg-query", "apt-mark"):
        return "package-query"
    if prog == "dpkg":
        if any(
            a in ("-i", "--install", "-r", "--remove", "-P", "--purge", "--configure", "--unpack")
            for a in args
        ):
            return "install"
        return "package-query"
    if prog == "rpm":
        if any(a.startswith("-q") or a == "--query" for a in args):
            return "package-query"
        return "install"
    if prog == "uv":
        sub = args[0] if args else ""
        if sub in ("add", "remove", "sync", "lock", "venv", "tool"):
            return "install"
        if sub == "build":
            return "build"
        if sub == "tree":
            return "package-query"
        return "search" if sub in ("--version", "version") else "other"
    if prog in ("cargo", "go"):
        sub = args[0] if args else ""
        if sub in ("build", "b", "check"):
            return "build"
        if sub in ("install", "get", "add"):
            return "install"
        return "search" if sub in ("--version", "version", "env") else "other"
    if prog in _BUILD_PROGRAMS:
        if args and all(a in _VERSION_ARGS for a in args):
            return "search"
        return "build"
    if prog in ("torchrun", "deepspeed") or (prog == "accelerate" and args[:1] == ("launch",)):
        return "launch"
    if prog in _CONTAINERS:
        sub = args[0] if args else ""
        if sub == "compose":
            sub2 = args[1] if len(args) > 1 else ""
            return {
                "up": "launch",
                "down": "kill",
                "build": "build",
                "pull": "install",
                "ps": "search",
                "logs": "search",
            }.get(sub2, "other")
        if sub == "run":
            detached = any(
                a == "--detach" or (a.startswith("-") and not a.startswith("--") and "d" in a)
                for a in args[1:]
            )
            return "launch" if detached else "other"
        if sub in ("rm", "kill", "stop", "rmi"):
            return "kill"
        if sub in ("build", "commit"):
            return "build"
        if sub == "pull":
            return "install"
        if sub in ("ps", "images", "inspect", "logs", "version", "info", "stats", "top", "port"):
            return "search"
        if sub in ("start", "restart"):
            return "launch"
        return "other"
    if prog in ("systemctl", "service"):
        verb = args[0] if prog == "systemctl" and args else (args[1] if len(args) > 1 else "")
        if verb in ("start", "restart", "reload", "enable"):
            return "launch"
        if verb in ("stop", "kill", "disable", "mask"):
            return "kill"
        if verb in (
            "status",
            "show",
            "cat",
            "is-active",
            "is-enabled",
            "is-failed",
            "list-units",
            "list-unit-files",
            "list-timers",
        ):
            return "search"
        return "other"
    if prog in ("tmux", "screen"):
        if any(a.startswith("kill-") for a in args) or ("-X" in args and "quit" in args):
            return "kill"
        if args and args[0] in ("ls", "list-sessions", "capture-pane", "has-session"):
            return "search"
        if prog == "screen" and args and args[0] in ("-ls", "-list"):
            return "search"
        return "other"
    if prog == "nvidia-smi":
        if any(a in ("-r", "--gpu-reset") for a in args):
            return "kill"
        if _nvidia_smi_mutation(args):
            return "other"
        return "search"
    if prog == "fuser":
        return "kill" if _fuser_kills(args) else "search"
    if prog == "kill" and args and args[0] in ("-0", "-l", "-L", "--list"):
        return "search"
    if prog in _KILL_PROGRAMS:
        return "kill"
    if prog == "sed":
        return "file-edit" if _sed_in_place(eff) else ("search" if not cmd.stdin_pipe else None)
    if prog == "perl":
        if any(a.startswith("-") and not a.startswith("--") and "i" in a[1:] for a in args):
            return "file-edit"
        return "other" if not cmd.stdin_pipe else None
    if prog in ("awk", "gawk") and ("inplace" in args or "--include=inplace" in args):
        return "file-edit"
    if prog == "tee":
        files = [a for a in args if not a.startswith("-")]
        if any(_real_file(f) and not _in_tmp(f) for f in files):
            return "file-edit"
        return None
    if prog == "git":
        sub, _ = _git_sub(eff)
        if sub in _GIT_EDIT:
            return "file-edit"
        if sub in _GIT_READ or sub in ("branch", "tag", "remote", "config", "worktree"):
            return "search"
        return "other"
    if prog in _EDIT_PROGRAMS:
        if prog == "tar":
            return "file-edit" if _tar_mode(args) in ("x", "c") else "search"
        if prog == "unzip":
            return "search" if any(a in ("-l", "-t", "-v", "-Z") for a in args) else "file-edit"
        return "file-edit"
    if prog in ("curl", "wget"):
        return "other"
    if prog in ("echo", "printf"):
        return None
    if prog in _FILTERS and cmd.stdin_pipe and prog not in ("tail",):
        return None
    if prog == "tail" and cmd.stdin_pipe:
        return None
    if prog in _SEARCH_PROGRAMS:
        return "search"
    if prog in _NEUTRAL:
        return None
    if args and args[0] in ("--version", "-V", "--help", "version"):
        return "search"
    return "other"


def _command_category(cmd: SimpleCommand) -> str | None:
    idx, wrappers, _ = _strip_wrappers(cmd.argv)
    eff = cmd.argv[idx:]
    if not eff:
        return None
    prog = _basename(eff[0])
    cat = _base_category(cmd, prog, eff)
    if cat not in ("launch",):
        if _follow_reason(prog, eff) and prog != "sleep":
            cat = "launch"
        elif "nohup" in wrappers or "setsid" in wrappers:
            cat = "launch"
        elif cmd.background and prog not in _TRIVIAL_BG:
            cat = "launch"
    if cat is None or cat == "search":
        writes = [t for t in _file_writes(cmd) if _real_file(t)]
        if writes:
            outside = any(not _in_tmp(t) for t in writes)
            if prog in _PRODUCERS or (outside and (cat == "search" or prog in _FILTERS)):
                cat = "file-edit"
    return cat


def _category(commands: tuple[SimpleCommand, ...]) -> str:
    best: str | None = None
    echo = False
    for cmd in commands:
        cat = _command_category(cmd)
        if cat is None:
            if cmd.program in ("echo", "printf"):
                echo = True
            continue
        if best is None or _PRIORITY[cat] < _PRIORITY[best]:
            best = cat
    if best is None:
        return "search" if echo else "other"
    return best


# ---------------------------------------------------------------------------
# Safety
# ---------------------------------------------------------------------------

_RO_PROGRAMS = _names(
    "grep egrep fgrep zgrep ag ack cat zcat bat head less more ls ll tree wc cut tr jq yq "
    "which whereis type df du free ps pgrep pidof nproc lscpu lspci lsblk lsmod lsusb "
    "lsof id whoami groups stat file diff cmp md5sum sha1sum sha224sum sha256sum "
    "sha384sum sha512sum b2sum cksum realpath readlink basename dirname test [ [[ true "
    "false : sleep cd pushd popd dirs export declare typeset local readonly unset set "
    "shopt pwd echo printf uname uptime getconf locale arch tty logname users who w "
    "column nl rev tac fold fmt paste expand unexpand strings nm objdump readelf ldd xxd "
    "od hexdump ss netstat ibv_devinfo ibv_devices ibstat ibstatus printenv seq wait exit "
    "return break continue shift read mapfile readarray ulimit umask hash compgen jobs "
    "history unalias getent ompi_info ucx_info sensors iostat vmstat mpstat pidstat expr "
    "bc dc let comm join look numfmt ts timeout nohup time eval trap nice pstree lslogins "
    "last dmidecode nvidia-debugdump clear reset tput yes fc-list locate apropos man info "
    "whatis help cal factor env xargs builtin exec command stdbuf setsid ionice taskset "
    "numactl unbuffer true sshpass coproc diff3 sdiff zdiff zless zmore bzcat xzcat "
    "lz4cat zstdcat gzcat uniq sort tee mktemp rg awk gawk mawk sed find fd fdfind tail "
    "date hostname dmesg journalctl top ip ifconfig sysctl crontab ldconfig kill fuser "
    "nvidia-smi nvcc git ssh watch su sudo doas source ."
)
"""Programs with a handler or allowed outright (the handler can still raise the severity)."""

_MUT_PROGRAMS = {
    "rm": "deletes files",
    "rmdir": "deletes directories",
    "unlink": "deletes files",
    "shred": "destroys files",
    "mv": "moves files",
    "cp": "copies files",
    "mkdir": "creates directories",
    "touch": "creates or touches files",
    "chmod": "changes file permissions",
    "chown": "changes file ownership",
    "chgrp": "changes file groups",
    "chattr": "changes file attributes",
    "setfacl": "changes file ACLs",
    "ln": "creates links",
    "truncate": "truncates files",
    "install": "installs files",
    "rsync": "copies files",
    "scp": "copies files",
    "sftp": "transfers files",
    "pkill": "kills processes",
    "killall": "kills processes",
    "xkill": "kills windows",
    "reboot": "reboots the machine",
    "shutdown": "shuts the machine down",
    "poweroff": "powers the machine off",
    "halt": "halts the machine",
    "init": "changes the run level",
    "telinit": "changes the run level",
    "mount": "mounts file systems",
    "umount": "unmounts file systems",
    "swapon": "changes swap",
    "swapoff": "changes swap",
    "useradd": "changes users",
    "userdel": "changes users",
    "usermod": "changes users",
    "groupadd": "changes groups",
    "groupdel": "changes groups",
    "passwd": "changes passwords",
    "chpasswd": "changes passwords",
    "chsh": "changes login shells",
    "visudo": "edits sudoers",
    "modprobe": "loads kernel modules",
    "insmod": "loads kernel modules",
    "rmmod": "unloads kernel modules",
    "ufw": "changes the firewall",
    "nft": "changes the firewall",
    "iptables": "changes the firewall",
    "ip6tables": "changes the firewall",
    "patch": "patches files",
    "zip": "writes an archive",
    "mkfifo": "creates a fifo",
    "mknod": "creates a device node",
    "wipefs": "wipes file systems",
    "fdisk": "partitions disks",
    "parted": "partitions disks",
    "sgdisk": "partitions disks",
    "update-alternatives": "changes system alternatives",
    "add-apt-repository": "changes package sources",
    "apt-key": "changes package keys",
    "sudoedit": "edits files",
    "ssh-keygen": "writes ssh keys",
    "ssh-copy-id": "installs ssh keys",
    "at": "schedules commands",
    "batch": "schedules commands",
    "tc": "changes traffic control",
    "renice": "changes process priorities",
    "chrt": "changes scheduling",
    "dpkg-reconfigure": "reconfigures packages",
    "dkms": "builds kernel modules",
}


def _tar_mode(args: tuple[str, ...]) -> str | None:
    for a in args:
        if a in ("--extract", "--get"):
            return "x"
        if a in ("--create", "--append", "--update", "--concatenate", "--delete"):
            return "c"
        if a == "--list":
            return "t"
    if args:
        first = args[0].lstrip("-")
        if not args[0].startswith("--"):
            for ch in first:
                if ch in "xcruA":
                    return "x" if ch == "x" else "c"
                if ch == "t":
                    return "t"
    for a in args:
        if a.startswith("-") and not a.startswith("--"):
            for ch in a[1:]:
                if ch in "xcruA":
                    return "x" if ch == "x" else "c"
                if ch == "t":
                    return "t"
    return None


_NVSMI_MUT = _names(
    "-r --gpu-reset -pm --persistence-mode -pl --power-limit -c --compute-mode -e "
    "--ecc-config -p --reset-ecc-errors -ac --applications-clocks -rac "
    "--reset-applications-clocks -lgc --lock-gpu-clocks -rgc --reset-gpu-clocks -lmc "
    "--lock-memory-clocks -rmc --reset-memory-clocks -mig --multi-instance-gpu -am "
    "--accounting-mode -caa --clear-accounted-apps -cc --cuda-clocks -acp "
    "--auto-boost-permission --auto-boost-default --gom -dm --driver-model -fdm "
    "--force-driver-model -ai -cgi -cci -dgi -dci drain"
)


def _nvidia_smi_mutation(args: tuple[str, ...]) -> str | None:
    for a in args:
        key = a.split("=", 1)[0]
        if key in _NVSMI_MUT:
            return key
    return None


def _sed_in_place(argv: tuple[str, ...]) -> bool:
    for a in argv[1:]:
        if a == "--":
            break
        if a.startswith("--in-place") or a == "-i":
            return True
        if a.startswith("-") and not a.startswith("--"):
            for ch in a[1:]:
                if ch == "i":
                    return True
                if ch in "efl":
                    break
    return False


def _sed_scripts(argv: tuple[str, ...]) -> tuple[list[str], bool]:
    """The sed scripts of a command line and whether a script file (-f) is used."""
    scripts: list[str] = []
    from_file = False
    explicit = False
    n = len(argv)
    i = 1
    operands: list[str] = []
    while i < n:
        a = argv[i]
        if a == "--":
            operands.extend(argv[i + 1 :])
            break
        if a.startswith("--"):
            if a.startswith("--expression="):
                scripts.append(a.split("=", 1)[1])
                explicit = True
            elif a == "--expression" and i + 1 < n:
                scripts.append(argv[i + 1])
                explicit = True
                i += 1
            elif a.startswith("--file"):
                from_file = True
                if "=" not in a:
                    i += 1
            elif a == "--line-length":
                i += 1
            i += 1
            continue
        if len(a) > 1 and a[0] == "-":
            j = 1
            while j < len(a):
                ch = a[j]
                if ch in "efl":
                    val = a[j + 1 :]
                    if not val and i + 1 < n:
                        i += 1
                        val = argv[i]
                    if ch == "e":
                        scripts.append(val)
                        explicit = True
                    elif ch == "f":
                        from_file = True
                    break
                j += 1
            i += 1
            continue
        operands.append(a)
        i += 1
    if not explicit and not from_file and operands:
        scripts.append(operands[0])
    return scripts, from_file


def _sed_script_effects(script: str) -> set[str]:
    """Effects of a sed script: ``w`` (writes files), ``e`` (runs commands), ``?`` (unreadable)."""
    effects: set[str] = set()
    s = script
    n = len(s)
    i = 0

    def skip_regex(i: int, delim: str) -> int:
        while i < n and s[i] != delim:
            if s[i] == "\\":
                i += 1
            elif s[i] == "\n":
                return -1
            i += 1
        return i + 1 if i < n else -1

    def address(i: int) -> int:
        if i < n and s[i].isdigit():
            while i < n and (s[i].isdigit() or s[i] == "~"):
                i += 1
        elif i < n and s[i] == "$":
            i += 1
        elif i < n and s[i] == "/":
            i = skip_regex(i + 1, "/")
            if i < 0:
                return -1
            while i < n and s[i] in "IM":
                i += 1
        elif i + 1 < n and s[i] == "\\":
            i = skip_regex(i + 2, s[i + 1])
            if i < 0:
                return -1
            while i < n and s[i] in "IM":
                i += 1
        return i

    def to_eol(i: int) -> int:
        j = s.find("\n", i)
        return n if j < 0 else j

    guard = 0
    while i < n:
        guard += 1
        if guard > 100000:
            effects.add("?")
            break
        while i < n and s[i] in " \t\n;":
            i += 1
        if i >= n:
            break
        i = address(i)
        if i < 0:
            effects.add("?")
            break
        while i < n and s[i] in " \t":
            i += 1
        if i < n and s[i] == ",":
            i += 1
            while i < n and s[i] in " \t":
                i += 1
            if i < n and s[i] in "+~":
                i += 1
                while i < n and s[i].isdigit():
                    i += 1
            else:
                i = address(i)
                if i < 0:
                    effects.add("?")
                    break
        while i < n and s[i] in " \t!":
            i += 1
        if i >= n:
            break
        c = s[i]
        if c in "{}":
            i += 1
        elif c == "#":
            i = to_eol(i)
        elif c in "aic":
            i = i + 1
            while True:
                j = to_eol(i)
                if j > 0 and j < n and s[j - 1] == "\\":
                    i = j + 1
                    continue
                i = j
                break
        elif c in ":btT":
            i += 1
            while i < n and s[i] not in ";\n":
                i += 1
        elif c in "rR":
            i = to_eol(i)
        elif c in "wW":
            effects.add("w")
            i = to_eol(i)
        elif c == "e":
            effects.add("e")
            i = to_eol(i)
        elif c in "sy":
            if i + 1 >= n or s[i + 1] in "\n\\":
                effects.add("?")
                break
            delim = s[i + 1]
            i = skip_regex(i + 2, delim)
            if i < 0:
                effects.add("?")
                break
            # replacement may span escaped newlines
            while i < n and s[i] != delim:
                if s[i] == "\\":
                    i += 1
                i += 1
            if i >= n:
                effects.add("?")
                break
            i += 1
            if c == "s":
                while i < n and s[i] not in ";\n}":
                    f = s[i]
                    if f == "w":
                        effects.add("w")
                        i = to_eol(i)
                        break
                    if f == "e":
                        effects.add("e")
                    elif f not in "gpiImM0123456789 \t":
                        effects.add("?")
                    i += 1
        elif c in "pPdDnNgGhHxlqQzF=LvuU":
            i += 1
            while i < n and (s[i].isdigit() or s[i] in " \t"):
                i += 1
        else:
            effects.add("?")
            break
    return effects


_AWK_PRINT_REDIRECT = re.compile(r"\bprintf?\b[^;{}\n]*>")


def _awk_program(argv: tuple[str, ...]) -> tuple[str | None, str | None]:
    """``(program text, problem)`` for an awk command line."""
    n = len(argv)
    i = 1
    while i < n:
        a = argv[i]
        if a == "--":
            i += 1
            break
        if a in ("-f", "--file", "-E", "--exec") or a.startswith(("--file=", "--exec=")):
            return None, "reads its program from a file"
        if a.startswith("-f") or a.startswith("-E"):
            return None, "reads its program from a file"
        if a in ("-i", "--include", "-l", "--load") and i + 1 < n:
            if argv[i + 1] == "inplace":
                return None, "edits files in place"
            i += 2
            continue
        if a in ("-F", "-v", "--assign", "--field-separator") and i + 1 < n:
            i += 2
            continue
        if a.startswith("-") and len(a) > 1:
            if a in ("-iinplace", "--include=inplace"):
                return None, "edits files in place"
            i += 1
            continue
        break
    if i >= n:
        return None, "has no program"
    return argv[i], None


def _awk_effects(program: str) -> str | None:
    if "system" in program:
        return "awk program runs commands (system)"
    if "|" in program.replace("||", ""):
        return "awk program pipes to or from commands"
    if _AWK_PRINT_REDIRECT.search(program):
        return "awk program writes to files"
    return None


def _program_safety(cmd: SimpleCommand, prog: str, eff: tuple[str, ...]) -> list[tuple[int, str]]:
    """Severity and reasons for one effective command (redirections excluded)."""
    args = eff[1:]
    out: list[tuple[int, str]] = []
    name = eff[0]
    if not prog or "$" in name or "`" in name:
        return [(_UNK, f"the command name {name!r} is computed at run time")]

    server = _server_reason(prog, eff, strict=True)
    if server:
        return [(_LAUNCH, server)]

    pip = _pip_like(prog, eff)
    if pip is not None:
        sub = pip[0]
        label = (
            "pip" if prog.startswith("pip") else ("uv pip" if prog == "uv" else f"{prog} -m pip")
        )
        if sub in (
            "show",
            "list",
            "freeze",
            "check",
            "index",
            "inspect",
            "version",
            "help",
            "debug",
            "search",
            "tree",
        ):
            return [(_RO, f"{label} {sub} only reads")]
        if sub in _PIP_WRITE or sub in ("cache", "config"):
            return [(_MUT, f"{label} {sub} changes installed packages or files")]
        return [(_UNK, f"{label} {sub or '(no subcommand)'} is not recognised")]

    if _is_python(prog):
        mode, code = _python_code_of(cmd, eff)
        if mode in ("c", "heredoc"):
            ok, _imports, safe = _py_code(code or "")
            where = "-c code" if mode == "c" else "code on stdin"
            if not ok:
                return [(_UNK, f"{prog} {where} does not parse as Python")]
            if safe:
                return [(_RO, f"{prog} {where} only imports and prints")]
            return [(_UNK, f"{prog} {where} does more than import and print")]
        if mode == "version":
            return [(_RO, f"{prog} --version only reads")]
        if mode == "m":
            mod = _python_invocation(eff)[1] or ""
            if mod == "json.tool":
                return [(_RO, f"{prog} -m json.tool only formats")]
            return [(_UNK, f"{prog} -m {mod} runs a module")]
        if mode == "script":
            return [(_UNK, f"{prog} runs script {code}")]
        if cmd.stdin_pipe:
            return [(_UNK, f"pipes into {prog}")]
        red = _stdin_redirect(cmd.redirects)
        if red is not None:
            return [(_UNK, f"{prog} runs code from {red.target}")]
        return [(_UNK, f"{prog} starts an interactive interpreter")]

    if prog in _SHELLS:
        mode, k = _shell_invocation(eff)
        if mode == "c":
            return [(_RO, f"{prog} -c runs the analysed code")] if k is not None else []
        if mode == "script":
            return [(_UNK, f"{prog} runs script {eff[k]}")]
        red = _stdin_redirect(cmd.redirects)
        if red is not None and red.op in ("<<", "<<-", "<<<"):
            return [
                (_RO, f"{prog} runs the analysed {'herestring' if red.op == '<<<' else 'heredoc'}")
            ]
        if cmd.stdin_pipe:
            return [(_UNK, f"pipes into {prog}")]
        if red is not None:
            return [(_UNK, f"{prog} runs code from {red.target}")]
        return [(_UNK, f"{prog} starts an interactive shell")]

    if prog in (
        "perl",
        "ruby",
        "node",
        "nodejs",
        "php",
        "lua",
        "tclsh",
        "Rscript",
        "julia",
        "deno",
        "bun",
    ):
        if prog == "perl" and any(
            a.startswith("-") and not a.startswith("--") and "i" in a[1:] for a in args
        ):
            return [(_MUT, "perl -i edits files in place")]
        if cmd.stdin_pipe and not args:
            return [(_UNK, f"pipes into {prog}")]
        return [(_UNK, f"{prog} runs code")]

    if prog in ("source", "."):
        target = args[0] if args else ""
        if target.endswith("/bin/activate") or target == "activate":
            return [(_RO, f"{prog} {target} activates a virtualenv")]
        return [(_UNK, f"{prog} runs script {target or '(none)'}")]

    if prog == "eval":
        return [(_RO, "eval runs the analysed code")] if args else []

    if prog == "xargs":
        if _xargs_target(eff) is None:
            return [(_UNK, "xargs with no command")]
        return [(_RO, "xargs runs the analysed command")]

    if prog in ("find", "fd", "fdfind"):
        for a in args:
            if a == "-delete":
                out.append((_MUT, f"{prog} -delete deletes files"))
            elif a in ("-fprint", "-fprint0", "-fprintf", "-fls"):
                k = args.index(a)
                target = args[k + 1] if k + 1 < len(args) else ""
                v = _write_verdict(target, f"{prog} {a} writes")
                if v:
                    out.append(v)
        return out or [(_RO, f"{prog} only reads")]

    if prog == "ssh":
        parsed = _parse_ssh_argv(eff)
        if parsed is None:
            if any(a in ("-V", "-G") for a in args):
                return [(_RO, "ssh -V only prints its version")]
            return [(_UNK, "ssh without a destination")]
        for key in (
            "proxycommand",
            "localcommand",
            "knownhostscommand",
            "remotecommand",
            "permitlocalcommand",
        ):
            if key in parsed.oconfig:
                out.append((_UNK, f"ssh -o {key} runs a command that is not analysed"))
        opts = parsed.options
        if "-F" in opts:
            out.append((_UNK, "ssh -F reads an unknown config file"))
        for i in range(len(opts) - 1):
            if opts[i] == "-E":
                v = _write_verdict(opts[i + 1], "ssh -E writes its log to")
                if v:
                    out.append(v)
        tunnel = any(o in opts for o in ("-N", "-f", "-L", "-R", "-D", "-W", "-w"))
        remote = bool(" ".join(eff[parsed.cmd_idx :]))
        if tunnel:
            out.append((_LAUNCH, f"ssh to {parsed.host} opens a tunnel or runs in the background"))
        if not remote and _stdin_redirect(cmd.redirects) is None and not tunnel:
            out.append((_UNK, f"ssh to {parsed.host} opens an interactive session"))
        return out or [(_RO, f"ssh to {parsed.host} runs the analysed remote command")]

    if prog in ("sudo", "doas"):
        if any(a in ("-e", "--edit") for a in args):
            return [(_MUT, f"{prog} -e edits files")]
        if any(
            a in ("-l", "--list", "-v", "--validate", "-V", "--version", "-k", "-K") for a in args
        ):
            return [(_RO, f"{prog} only checks privileges")]
        return [(_UNK, f"{prog} without a command starts a root shell")]

    if prog == "su":
        if any(a in ("-c", "--command") or a.startswith("--command=") for a in args):
            return [(_RO, "su -c runs the analysed code")]
        return [(_UNK, "su starts a shell as another user")]

    if prog == "env":
        rest = list(args)
        k = 0
        while k < len(rest):
            a = rest[k]
            if a in (
                "-i",
                "-0",
                "--null",
                "--ignore-environment",
                "-",
                "-v",
                "--debug",
            ) or _is_assignment(a):
                k += 1
            elif a in ("-u", "--unset") and k + 1 < len(rest):
                k += 2
            elif a.startswith("--unset="):
                k += 1
            else:
                return [(_UNK, f"env {a} is not understood")]
        return [(_RO, "env only prints the environment")]

    if prog in (
        "timeout",
        "nohup",
        "time",
        "nice",
        "stdbuf",
        "setsid",
        "ionice",
        "taskset",
        "numactl",
        "unbuffer",
        "coproc",
        "exec",
        "builtin",
        "command",
        "sshpass",
    ):
        if prog == "command" and any(a in ("-v", "-V") for a in args):
            return [(_RO, "command -v only looks up commands")]
        if prog == "numactl" and any(a in ("-H", "--hardware", "-s", "--show") for a in args):
            return [(_RO, "numactl --hardware only reads")]
        if prog in ("exec", "time", "nice", "command", "builtin") and not args:
            return [(_RO, f"{prog} alone does nothing harmful")]
        if prog in ("taskset", "ionice") and any(a in ("-p", "--pid") for a in args):
            return [(_MUT, f"{prog} -p changes a running process")]
        return [(_UNK, f"{prog} {' '.join(args[:2])} is not understood")]

    if prog == "tail":
        follow = _follow_reason(prog, eff)
        return [(_LAUNCH, follow)] if follow else [(_RO, "tail only reads")]

    if prog == "watch":
        return [(_LAUNCH, "watch reruns its command until stopped")]

    if prog == "sed":
        if _sed_in_place(eff):
            return [(_MUT, "sed -i edits files in place")]
        scripts, from_file = _sed_scripts(eff)
        if from_file:
            return [(_UNK, "sed -f runs a script file that is not analysed")]
        effects: set[str] = set()
        for s in scripts:
            effects |= _sed_script_effects(s)
        if "w" in effects:
            return [(_MUT, "sed script writes files (w)")]
        if "e" in effects:
            return [(_UNK, "sed script runs commands (e)")]
        if "?" in effects:
            return [(_UNK, "sed script could not be read")]
        return [(_RO, "sed only prints")]

    if prog in ("awk", "gawk", "mawk", "nawk"):
        program, problem = _awk_program(eff)
        if problem == "edits files in place":
            return [(_MUT, f"{prog} -i inplace edits files in place")]
        if problem:
            return [(_UNK, f"{prog} {problem}")]
        effect = _awk_effects(program or "")
        if effect:
            return [(_UNK, effect)]
        return [(_RO, f"{prog} only reads")]

    if prog == "rg":
        if any(a == "--pre" or a.startswith("--pre=") for a in args):
            return [(_UNK, "rg --pre runs a preprocessor command")]
        return [(_RO, "rg only reads")]

    if prog == "sort":
        for k, a in enumerate(args):
            if a == "-o" or a == "--output":
                v = _write_verdict(args[k + 1] if k + 1 < len(args) else "", "sort -o writes")
                if v:
                    out.append(v)
            elif a.startswith("--output="):
                v = _write_verdict(a.split("=", 1)[1], "sort -o writes")
                if v:
                    out.append(v)
            elif a.startswith("-o") and len(a) > 2:
                v = _write_verdict(a[2:], "sort -o writes")
                if v:
                    out.append(v)
            elif a.startswith("--compress-program"):
                out.append((_UNK, "sort --compress-program runs a command"))
        return out or [(_RO, "sort only reads")]

    if prog == "uniq":
        operands = [a for a in args if not a.startswith("-") or a == "-"]
        if len(operands) >= 2:
            v = _write_verdict(operands[1], "uniq writes")
            if v:
                return [v]
        return [(_RO, "uniq only reads")]

    if prog == "tee":
        for a in args:
            if a.startswith("-") and a != "-":
                continue
            v = _write_verdict(a, "tee writes to")
            if v:
                out.append(v)
        return out or [(_RO, "tee writes only to /tmp or /dev")]

    if prog == "mktemp":
        for k, a in enumerate(args):
            target = None
            if a in ("-p", "--tmpdir") and k + 1 < len(args):
                target = args[k + 1].rstrip("/") + "/x"
            elif a.startswith("--tmpdir="):
                target = a.split("=", 1)[1].rstrip("/") + "/x"
            elif not a.startswith("-") and "/" in a:
                target = a
            if target:
                v = _write_verdict(target, "mktemp creates")
                if v:
                    return [v]
        return [(_RO, "mktemp creates a file in /tmp")]

    if prog == "date":
        if any(a in ("-s", "--set") or a.startswith("--set=") for a in args):
            return [(_MUT, "date -s sets the clock")]
        return [(_RO, "date only reads")]

    if prog == "hostname":
        if any(not a.startswith("-") for a in args) or any(
            a in ("-b", "-F", "--file", "--boot") for a in args
        ):
            return [(_MUT, "hostname sets the host name")]
        return [(_RO, "hostname only reads")]

    if prog == "dmesg":
        if any(a in ("-c", "-C", "--clear", "--read-clear", "-D", "-E", "-n") for a in args):
            return [(_MUT, "dmesg clears or configures the kernel log")]
        if any(a in ("-w", "--follow", "-W", "--follow-new") for a in args):
            return [(_LAUNCH, "dmesg -w follows the log until stopped")]
        return [(_RO, "dmesg only reads")]

    if prog == "journalctl":
        follow = _follow_reason(prog, eff)
        if follow:
            return [(_LAUNCH, follow)]
        if any(
            a.startswith(("--vacuum", "--rotate", "--flush", "--sync", "--relinquish"))
            for a in args
        ):
            return [(_MUT, "journalctl changes the journal")]
        return [(_RO, "journalctl only reads")]

    if prog == "top":
        if any(a.startswith("-b") or (a.startswith("-") and "b" in a[1:]) for a in args):
            return [(_RO, "top -b only reads")]
        return [(_UNK, "top is interactive")]

    if prog == "ip":
        verbs = {
            "add",
            "del",
            "delete",
            "set",
            "flush",
            "change",
            "replace",
            "append",
            "up",
            "down",
            "save",
            "restore",
            "exec",
            "attach",
            "detach",
        }
        if any(a in verbs for a in args):
            return [(_MUT, "ip changes network configuration")]
        return [(_RO, "ip only shows network state")]

    if prog == "ifconfig":
        operands = [a for a in args if not a.startswith("-")]
        if len(operands) > 1:
            return [(_MUT, "ifconfig changes network configuration")]
        return [(_RO, "ifconfig only shows network state")]

    if prog == "sysctl":
        if any(a in ("-w", "--write", "-p", "--load", "--system") or "=" in a for a in args):
            return [(_MUT, "sysctl changes kernel settings")]
        return [(_RO, "sysctl only reads")]

    if prog == "crontab":
        if args and all(a in ("-l", "--list") or a.startswith("-u") for a in args) and "-l" in args:
            return [(_RO, "crontab -l only reads")]
        return [(_MUT, "crontab changes scheduled jobs")]

    if prog == "ldconfig":
        if "-p" in args or "--print-cache" in args:
            return [(_RO, "ldconfig -p only reads")]
        return [(_MUT, "ldconfig rebuilds the linker cache")]

    if prog == "kill":
        if args and args[0] in ("-0", "-l", "-L", "--list"):
            return [(_RO, f"kill {args[0]} only checks processes")]
        return [(_MUT, "kill sends signals to processes")]

    if prog == "fuser":
        if _fuser_kills(args):
            return [(_MUT, "fuser -k kills processes")]
        return [(_RO, "fuser only reads")]

    if prog == "nvidia-smi":
        mut = _nvidia_smi_mutation(args)
        if mut:
            return [(_MUT, f"nvidia-smi {mut} changes GPU state")]
        for k, a in enumerate(args):
            if a in ("-f", "--filename") and k + 1 < len(args):
                v = _write_verdict(args[k + 1], "nvidia-smi -f writes")
                if v:
                    out.append(v)
            elif a.startswith("--filename="):
                v = _write_verdict(a.split("=", 1)[1], "nvidia-smi -f writes")
                if v:
                    out.append(v)
        follow = _follow_reason(prog, eff)
        if follow:
            out.append((_LAUNCH, follow))
        return out or [(_RO, "nvidia-smi only reads")]

    if prog == "nvcc":
        if args and all(a in _VERSION_ARGS or a == "--list-gpu-arch" for a in args):
            return [(_RO, "nvcc --version only reads")]
        return [(_MUT, "nvcc compiles (writes output files)")]

    if prog in _BUILD_PROGRAMS:
        if args and all(a in _VERSION_ARGS for a in args):
            return [(_RO, f"{prog} --version only reads")]
        return [(_MUT, f"{prog} builds (writes files)")]

    if prog == "git":
        return [_git_safety(eff)]

    if prog in _PKG_MANAGERS or prog in (
        "apt-cache",
        "dpkg",
        "dpkg-query",
        "rpm",
        "uv",
        "cargo",
        "go",
        "apt-mark",
    ):
        return [_package_safety(prog, eff)]

    if prog in _CONTAINERS:
        return [_container_safety(prog, eff)]

    if prog in ("kubectl", "oc"):
        sub = args[0] if args else ""
        if sub in (
            "get",
            "describe",
            "logs",
            "top",
            "version",
            "explain",
            "api-resources",
            "cluster-info",
            "config",
        ):
            if sub == "logs" and any(a in ("-f", "--follow") for a in args):
                return [(_LAUNCH, f"{prog} logs -f follows logs until stopped")]
            return [(_RO, f"{prog} {sub} only reads")]
        if sub == "exec":
            return [(_UNK, f"{prog} exec runs a command that is not analysed")]
        return [(_MUT, f"{prog} {sub} changes the cluster")]

    if prog in ("systemctl", "service"):
        verb = args[0] if prog == "systemctl" and args else (args[1] if len(args) > 1 else "")
        if prog == "systemctl" and not args:
            verb = "list-units"
        if verb in (
            "status",
            "show",
            "cat",
            "is-active",
            "is-enabled",
            "is-failed",
            "list-units",
            "list-unit-files",
            "list-timers",
            "list-sockets",
            "list-dependencies",
            "--version",
            "help",
        ):
            return [(_RO, f"{prog} {verb} only reads")]
        return [(_MUT, f"{prog} {verb} changes system services")]

    if prog in ("tmux", "screen"):
        follow = _follow_reason(prog, eff)
        if follow:
            return [(_LAUNCH, follow)]
        if args and args[0] in (
            "ls",
            "list-sessions",
            "list-windows",
            "list-panes",
            "capture-pane",
            "has-session",
            "-ls",
            "-list",
            "display-message",
        ):
            return [(_RO, f"{prog} {args[0]} only reads")]
        if any(a.startswith("kill-") for a in args) or ("-X" in args and "quit" in args):
            return [(_MUT, f"{prog} kills sessions")]
        if args and args[0] in ("send-keys", "send"):
            return [(_UNK, f"{prog} send-keys types into a session")]
        return [(_UNK, f"{prog} {' '.join(args[:1])} is not understood")]

    if prog == "curl":
        for k, a in enumerate(args):
            tgt = None
            if a in (
                "-o",
                "--output",
                "-D",
                "--dump-header",
                "-c",
                "--cookie-jar",
                "--trace",
                "--trace-ascii",
                "--stderr",
            ) and k + 1 < len(args):
                tgt = args[k + 1]
            elif a in ("-O", "--remote-name", "--remote-name-all", "-J") or (
                a.startswith("-") and not a.startswith("--") and "O" in a[1:]
            ):
                out.append((_MUT, "curl -O saves a file in the current directory"))
            elif a.startswith("-o") and len(a) > 2 and not a.startswith("--"):
                tgt = a[2:]
            elif a.startswith("--output="):
                tgt = a.split("=", 1)[1]
            if tgt is not None:
                v = _write_verdict(tgt, "curl writes")
                if v:
                    out.append(v)
        out.append((_UNK, "curl sends a network request"))
        return out

    if prog == "wget":
        to_stdout = False
        for k, a in enumerate(args):
            if a in ("-O", "--output-document") and k + 1 < len(args):
                tgt = args[k + 1]
                if tgt == "-":
                    to_stdout = True
                else:
                    v = _write_verdict(tgt, "wget writes")
                    if v:
                        return [v]
                    to_stdout = True
            elif a.startswith("-O") and len(a) > 2:
                tgt = a[2:]
                if tgt == "-" or _write_verdict(tgt, "") is None:
                    to_stdout = True
                else:
                    return [_write_verdict(tgt, "wget writes")]  # type: ignore[list-item]
            elif a == "--spider":
                to_stdout = True
        if to_stdout:
            return [(_UNK, "wget sends a network request")]
        return [(_MUT, "wget downloads files")]

    if prog == "tar":
        mode = _tar_mode(args)
        if mode == "t":
            return [(_RO, "tar t only lists")]
        if mode == "x":
            return [(_MUT, "tar x extracts files")]
        return [(_MUT, "tar writes an archive")]

    if prog in ("unzip",):
        if any(a in ("-l", "-t", "-v", "-Z", "-p", "-c") for a in args):
            return [(_RO, "unzip -l only lists")]
        return [(_MUT, "unzip extracts files")]

    if prog in ("gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4"):
        if any(
            a in ("-c", "--stdout", "-l", "--list", "-t", "--test")
            or (a.startswith("-") and not a.startswith("--") and ("c" in a or "t" in a or "l" in a))
            for a in args
        ):
            return [(_RO, f"{prog} -c writes to stdout")]
        return [(_MUT, f"{prog} replaces files")]

    if prog == "dd":
        for a in args:
            if a.startswith("of="):
                v = _write_verdict(a[3:], "dd writes")
                return [v] if v else [(_RO, "dd writes only to /tmp or /dev/null")]
        return [(_RO, "dd writes to stdout")]

    if prog in _MUT_PROGRAMS:
        return [(_MUT, f"{prog} {_MUT_PROGRAMS[prog]}")]
    if prog.startswith("mkfs"):
        return [(_MUT, f"{prog} formats a file system")]

    if prog in ("alias",):
        if any("=" in a for a in args):
            return [(_UNK, "alias redefines commands")]
        return [(_RO, "alias only lists aliases")]

    if prog in ("conda", "mamba", "micromamba"):
        return [_package_safety(prog, eff)]

    if prog in ("vim", "vi", "nano", "emacs", "htop", "nvtop", "less"):
        if prog == "less":
            return [(_RO, "less only reads")]
        return [(_UNK, f"{prog} is interactive")]

    if prog in _RO_PROGRAMS:
        return [(_RO, f"{prog} only reads")]

    if (
        args
        and all(a in ("--version", "-V", "--help", "version") for a in args)
        and "/" not in name
    ):
        return [(_RO, f"{prog} {args[0]} only prints information")]
    if _is_benchmark(prog, eff):
        return [(_UNK, f"{prog} runs a benchmark")]
    return [(_UNK, f"{prog} is not a known read-only command")]


def _git_safety(eff: tuple[str, ...]) -> tuple[int, str]:
    sub, k = _git_sub(eff)
    rest = eff[k + 1 :]
    for a in eff[1:k]:
        if a == "-c" or a.startswith(("--config-env", "--exec-path")):
            return (_UNK, f"git {a} can make git run other commands")
    if (
        any(
            a in ("-O", "--open-files-in-pager") or a.startswith("--open-files-in-pager=")
            for a in rest
        )
        and sub == "grep"
    ):
        return (_UNK, "git grep -O runs a pager command")
    if any(a.startswith("--output") for a in rest):
        return (_MUT, f"git {sub} --output writes a file")
    if sub is None:
        return (_RO, "git alone only prints help")
    if sub in _GIT_READ:
        if sub == "reflog" and rest and rest[0] not in ("show",) and not rest[0].startswith("-"):
            return (_MUT, f"git reflog {rest[0]} changes the repository")
        return (_RO, f"git {sub} only reads")
    if sub == "branch":
        flags = [a for a in rest if a.startswith("-")]
        operands = [a for a in rest if not a.startswith("-")]
        listing = any(f in ("--list", "-l") for f in flags)
        mutating = any(
            f
            in (
                "-d",
                "-D",
                "-m",
                "-M",
                "-c",
                "-C",
                "--delete",
                "--move",
                "--copy",
                "-f",
                "--force",
                "-u",
                "--set-upstream-to",
                "--unset-upstream",
                "--edit-description",
            )
            or f.startswith("--set-upstream-to=")
            for f in flags
        )
        if not mutating and (listing or not operands):
            return (_RO, "git branch only lists branches")
        return (_MUT, "git branch changes branches")
    if sub == "tag":
        if not rest or any(a in ("-l", "--list") for a in rest):
            return (_RO, "git tag only lists tags")
        return (_MUT, "git tag changes tags")
    if sub == "stash":
        if rest and rest[0] in ("list", "show"):
            return (_RO, f"git stash {rest[0]} only reads")
        return (_MUT, "git stash changes the working tree")
    if sub == "remote":
        if not rest or rest[0] in ("-v", "--verbose", "show", "get-url"):
            return (_RO, "git remote only reads")
        return (_MUT, "git remote changes remotes")
    if sub == "config":
        if any(
            a in ("--get", "--get-all", "--list", "-l", "--get-regexp", "--show-origin")
            for a in rest
        ) or (
            len([a for a in rest if not a.startswith("-")]) == 1
            and not any(
                a in ("--unset", "--unset-all", "--add", "--replace-all", "--edit", "-e")
                for a in rest
            )
        ):
            return (_RO, "git config only reads")
        return (_MUT, "git config changes settings")
    if sub in ("worktree", "submodule") and rest and rest[0] in ("list", "status", "summary"):
        return (_RO, f"git {sub} {rest[0]} only reads")
    if sub in (
        "commit",
        "push",
        "checkout",
        "switch",
        "restore",
        "reset",
        "clean",
        "pull",
        "merge",
        "rebase",
        "apply",
        "am",
        "cherry-pick",
        "revert",
        "fetch",
        "clone",
        "init",
        "add",
        "rm",
        "mv",
        "gc",
        "prune",
        "submodule",
        "worktree",
        "notes",
        "bisect",
        "update-index",
        "update-ref",
        "filter-branch",
        "lfs",
        "sparse-checkout",
        "format-patch",
        "repack",
        "symbolic-ref",
        "commit-tree",
        "checkout-index",
        "read-tree",
        "write-tree",
        "replace",
        "maintenance",
    ):
        return (_MUT, f"git {sub} changes the repository")
    return (_UNK, f"git {sub} is not recognised")


def _package_safety(prog: str, eff: tuple[str, ...]) -> tuple[int, str]:
    args = eff[1:]
    if prog == "dpkg":
        if (
            args
            and all(
                a
                in (
                    "-l",
                    "-L",
                    "-s",
                    "-S",
                    "-p",
                    "--list",
                    "--listfiles",
                    "--status",
                    "--search",
                    "--print-architecture",
                    "--get-selections",
                    "--print-avail",
                    "--version",
                )
                or not a.startswith("-")
                for a in args
            )
            and args[0].startswith("-")
        ):
            return (_RO, "dpkg query only reads")
        return (_MUT, "dpkg changes installed packages")
    if prog in ("apt-cache", "dpkg-query"):
        return (_RO, f"{prog} only reads")
    if prog == "apt-mark":
        if args and args[0].startswith("show"):
            return (_RO, "apt-mark show only reads")
        return (_MUT, "apt-mark changes package state")
    if prog == "rpm":
        if args and (args[0].startswith("-q") or args[0] == "--query"):
            return (_RO, "rpm -q only reads")
        return (_MUT, "rpm changes installed packages")
    if prog == "uv":
        sub = args[0] if args else ""
        if sub in ("--version", "version", "tree", "help") or (
            sub == "python" and args[1:2] == ("list",)
        ):
            return (_RO, f"uv {sub} only reads")
        if sub in (
            "add",
            "remove",
            "sync",
            "lock",
            "venv",
            "tool",
            "build",
            "init",
            "cache",
            "publish",
            "python",
            "self",
        ):
            return (_MUT, f"uv {sub} changes packages or files")
        return (_UNK, f"uv {sub} is not recognised")
    if prog in ("cargo", "go"):
        sub = args[0] if args else ""
        if sub in ("--version", "version", "env", "tree", "metadata", "list", "doc"):
            return (_RO, f"{prog} {sub} only reads")
        if sub in (
            "build",
            "b",
            "install",
            "get",
            "add",
            "new",
            "init",
            "update",
            "clean",
            "mod",
            "fmt",
            "fix",
            "publish",
            "uninstall",
        ):
            return (_MUT, f"{prog} {sub} writes files")
        return (_UNK, f"{prog} {sub} runs code")
    mut, ro = _PKG_MANAGERS.get(prog, (frozenset(), frozenset()))
    sub, _ = _first_operand(eff, 1, frozenset({"-n", "--name", "-p", "--prefix", "-c"}))
    if prog in ("conda", "mamba", "micromamba"):
        if sub == "env":
            sub2 = args[1] if len(args) > 1 else ""
            if sub2 in ("list", "export"):
                return (_RO, f"{prog} env {sub2} only reads")
            return (_MUT, f"{prog} env {sub2} changes environments")
        if sub in ("activate", "deactivate"):
            return (_RO, f"{prog} {sub} only changes the shell environment")
        if sub == "config" and any(a in ("--show", "--get", "--show-sources") for a in args):
            return (_RO, f"{prog} config --show only reads")
    if sub in ro:
        return (_RO, f"{prog} {sub} only reads")
    if sub in mut:
        return (_MUT, f"{prog} {sub} changes installed packages")
    if args and args[0] in _VERSION_ARGS:
        return (_RO, f"{prog} {args[0]} only prints information")
    return (_UNK, f"{prog} {sub or ''} is not recognised".replace("  ", " "))


def _container_safety(prog: str, eff: tuple[str, ...]) -> tuple[int, str]:
    args = eff[1:]
    sub = args[0] if args else ""
    if sub in (
        "ps",
        "images",
        "inspect",
        "version",
        "info",
        "top",
        "port",
        "history",
        "--version",
        "search",
        "diff",
    ):
        return (_RO, f"{prog} {sub} only reads")
    if sub == "stats":
        if "--no-stream" in args:
            return (_RO, f"{prog} stats --no-stream only reads")
        return (_LAUNCH, f"{prog} stats runs until stopped")
    if sub == "logs":
        if any(a in ("-f", "--follow") for a in args):
            return (_LAUNCH, f"{prog} logs -f follows the logs until stopped")
        return (_RO, f"{prog} logs only reads")
    if sub in ("image", "container", "network", "volume", "system", "compose", "context"):
        sub2 = args[1] if len(args) > 1 else ""
        if sub2 in ("ls", "list", "inspect", "ps", "logs", "df", "info", "config", "show"):
            return (_RO, f"{prog} {sub} {sub2} only reads")
        return (_MUT, f"{prog} {sub} {sub2} changes containers".replace("  ", " "))
    if sub == "exec":
        if any(a in ("-d", "--detach") for a in args[1:4]):
            return (_LAUNCH, f"{prog} exec -d starts a background process")
        return (_RO, f"{prog} exec runs the analysed command")
    if sub in (
        "run",
        "rm",
        "kill",
        "stop",
        "start",
        "restart",
        "pull",
        "push",
        "build",
        "rmi",
        "tag",
        "commit",
        "cp",
        "create",
        "load",
        "save",
        "import",
        "export",
        "rename",
        "update",
        "pause",
        "unpause",
        "prune",
        "login",
        "logout",
    ):
        return (_MUT, f"{prog} {sub} changes containers or images")
    return (_UNK, f"{prog} {sub} is not recognised")


_CODE_VARIABLES = _names(
    "BASH_ENV ENV PS1 PS2 PS3 PS4 PROMPT_COMMAND SHELLOPTS BASHOPTS LD_PRELOAD LD_AUDIT "
    "GIT_SSH_COMMAND GIT_SSH GIT_EXTERNAL_DIFF GIT_PAGER GIT_EDITOR GIT_ASKPASS "
    "GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_PROXY_COMMAND SSH_ASKPASS SUDO_ASKPASS "
    "PAGER MANPAGER EDITOR VISUAL BROWSER LESSOPEN LESSCLOSE PERL5OPT NODE_OPTIONS "
    "PYTHONSTARTUP TAR_OPTIONS RSYNC_RSH SYSTEMD_PAGER"
)
"""Variables whose value is run as code (or loads code) by the shell or common tools."""


def _assigned_names(cmd: SimpleCommand, idx: int, eff: tuple[str, ...]) -> list[str]:
    """Names of the variables a command sets (prefix assignments, env, export...)."""
    words = list(cmd.argv[:idx])
    if eff and _basename(eff[0]) in ("export", "declare", "typeset", "local", "readonly", "env"):
        words.extend(eff[1:])
    names = []
    for w in words:
        if _is_assignment(w):
            name = w.split("=", 1)[0].rstrip("+")
            names.append(name.split("[", 1)[0])
    return names


def _command_safety(cmd: SimpleCommand) -> list[tuple[int, str]]:
    """All severity findings for one simple command (redirections included)."""
    idx, wrappers, writes = _strip_wrappers(cmd.argv)
    eff = cmd.argv[idx:]
    found: list[tuple[int, str]] = []
    for r in cmd.redirects:
        if r.writes:
            v = _write_verdict(r.target, "redirects output to")
            if v:
                found.append(v)
        elif r.op == "<" and r.target and ("$" in r.target or "`" in r.target):
            pass
    for t in writes:
        v = _write_verdict(t, "time -o writes")
        if v:
            found.append(v)
    for name in _assigned_names(cmd, idx, eff):
        if name in _CODE_VARIABLES or name.startswith("GIT_CONFIG_"):
            found.append((_UNK, f"sets {name}, which can make programs run other code"))
    if not eff:
        found.append((_RO, "only sets variables"))
        return found
    prog = _basename(eff[0])
    found.extend(_program_safety(cmd, prog, eff))
    if "nohup" in wrappers:
        found.append((_LAUNCH, f"nohup keeps {prog} running after the shell exits"))
    elif "setsid" in wrappers:
        found.append((_LAUNCH, f"setsid detaches {prog} from the shell"))
    if cmd.background and prog not in _TRIVIAL_BG:
        found.append((_LAUNCH, f"{prog} runs in the background (&)"))
    if cmd.via:
        found = [(sev, f"{why} (via {cmd.via})") for sev, why in found]
    return found


def classify_safety(info: ShellInfo) -> Safety:
    """Decide whether re-running ``info.text`` is safe.

    Every simple command (``info.commands``, which already includes
    substitutions, ``sh -c``/``eval`` code, ``xargs``/``find -exec`` targets
    and nested ssh remote commands, plus ``info.local_commands`` around the
    ssh wrapper chain) is classified on its own; the result is the worst
    class by severity ``read-only < launch < unknown < mutating``.  Anything
    the analyser could not see through (``info.opaque``: syntax errors,
    function definitions, nesting limits) counts as ``unknown``.
    """
    findings: list[tuple[int, str]] = []
    for cmd in info.commands + info.local_commands:
        findings.extend(_command_safety(cmd))
    for note in info.opaque:
        findings.append((_UNK, note))
    if info.parse_error and not info.opaque:
        findings.append((_UNK, "the command does not parse cleanly"))
    if not findings:
        return Safety("read-only", ("the command is empty",))
    worst = max(sev for sev, _ in findings)
    if worst == _RO:
        progs = []
        for cmd in info.commands + info.local_commands:
            p = cmd.program or "assignment"
            if p not in progs:
                progs.append(p)
        return Safety("read-only", (f"only read-only commands: {', '.join(progs)}",))
    reasons: list[str] = []
    for sev in range(worst, _RO, -1):
        for s, why in findings:
            if s == sev and why not in reasons:
                reasons.append(why)
    return Safety(SAFETY_CLASSES[worst], tuple(reasons))
