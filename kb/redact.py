"""The one place secrets are hidden: every text the knowledge base hands out passes here.

A :class:`Redactor` knows every secret the ``secrets`` table points at (the
text itself, read back from the stored rows, plus its JSON-escaped and
-unescaped forms) and replaces each occurrence in any string with
``[redacted:KIND]``, wherever the string came from: an event field, a
session title made of the first prompt, a graph label, a query result.
Because it replaces the *values*, derived text (a command's remote part, a
todo item reused as an approach name, a prompt quoted by a subagent) is
covered without a finding of its own.

:class:`kb.store.KbStore` builds it from its ``secrets`` table
(:func:`kb.store.load_redactor`; this module reads no table and imports nothing of
``kb``) and applies it in its read methods (``rows``, ``events``,
``message``, ``search``, ``query``), :mod:`kb.views` to the timeline and the
graph loader to its inputs, so what reaches the CLI, the TUI, exports and the
handoff brief is already redacted.  ``reveal=True`` (``--show-secrets``, the
TUI's confirmed toggle) turns it into the identity.

Texts cut by SQL (``left(text, 600)``, ``right(output, 400)``) may hold the
head or the tail of a secret; :meth:`Redactor.text` masks those too when told
the text was cut.  While some session has not been scanned yet (a knowledge
base older than the ``secrets`` table, until the next ``logkb ingest``) the
finder itself runs on every text handed out, so nothing leaks meanwhile.
"""

from __future__ import annotations

import dataclasses
import re
from bisect import bisect_right
from collections.abc import Mapping
from itertools import accumulate
from typing import Any

import orjson

from logparse.secrets import placeholder, redact_text

_MIN_PIECE = 4
"""The shortest head or tail of a secret masked at a cut."""
_SHORT = 8
"""Secrets shorter than this (a short password) are replaced only as whole words, so
that ``sshpass -p 1234`` does not hide every 1234 of every benchmark."""
_GLUED_P = r"(?<=-p)(?<![^\s'\"]-p)"
"""After a word's ``-p`` (``mysql -u root -phunter``: ``logkb:mysql-p`` finds the password
glued to its option; review15: a short one stood shown there)."""
_WORD_APART = (r"(?:(?<![A-Za-z0-9_@.-])|" + _GLUED_P + r")(?:(?<=:)()|){}"
               r"(?![A-Za-z0-9_-])(?(1)|(?!@))(?!\.[A-Za-z0-9])")
"""A short secret of letters only (a weak password, ``admin``, safe15) is replaced only
where it stands apart: not inside a name joined by ``-``, ``.`` or ``@`` (``wp-admin``,
``admin@localhost``, ``admin.example``), where the word is a name's piece, no password;
every place a rule finds a password in (``pwd=admin&``, ``is admin.``, ``admin / admin``)
stands apart, and so does a URL's password between ``:`` and ``@`` (``root:admin@host``,
review15: ``admin@localhost``, a login, has no ``:`` before it)."""


_WHOLE_WORD = r"(?:(?<![A-Za-z0-9_])|" + _GLUED_P + r"){}(?![A-Za-z0-9_])"
"""A short secret of other characters: replaced as a whole word (or after ``-p``)."""


class Redactor:
    """Replace known secrets in text (the identity when ``reveal``)."""

    def __init__(self, secrets: Mapping[str, str] | None = None, *, reveal: bool = False,
                 scan_all: bool = False) -> None:
        self.reveal = reveal
        """Show secrets as they are (``--show-secrets``)."""
        self.scan_all = scan_all
        """Also run the finder on every text (some session was never scanned)."""
        self.scan_depth = 1
        """Levels of JSON escapes the finder undoes when it runs on every text."""
        forms: dict[str, str] = {}
        for value, kind in (secrets or {}).items():
            for form in _forms(value, kind):
                if len(form) >= _MIN_PIECE:
                    forms.setdefault(form, kind)
        # longest first, so a secret that contains another is replaced whole
        self._values = sorted(((v, k) for v, k in forms.items() if len(v) >= _SHORT),
                              key=lambda kv: -len(kv[0]))
        self._short = [(re.compile(_WORD_APART.format(re.escape(v)) if v.isalpha() else
                                   _WHOLE_WORD.format(re.escape(v))), k)
                       for v, k in sorted(forms.items(), key=lambda kv: -len(kv[0]))
                       if len(v) < _SHORT]

    @property
    def active(self) -> bool:
        """Whether anything could be replaced."""
        return not self.reveal and (bool(self._values) or bool(self._short) or self.scan_all)

    def scanning(self) -> Redactor:
        """This redactor also running the finder on every text (``query``: SQL can cut,
        join or re-escape a stored text so that no known value matches it whole)."""
        if self.reveal or self.scan_all:
            return self
        r = Redactor.__new__(Redactor)
        r.reveal, r.scan_all, r._values, r._short = False, True, self._values, self._short
        r.scan_depth = 3  # JSON in JSON in a raw row: a Codex output is escaped twice
        return r

    def hiding(self) -> Redactor:
        """This redactor with ``reveal`` off (for what is stored, such as the graph)."""
        if not self.reveal:
            return self
        r = Redactor.__new__(Redactor)
        r.reveal, r.scan_all, r._values, r._short = False, self.scan_all, self._values, \
            self._short
        r.scan_depth = self.scan_depth
        return r

    # ------------------------------------------------------------------ text
    def text(self, s: Any, *, cut_head: bool = False, cut_tail: bool = False) -> Any:
        """``s`` with every known secret replaced; ``cut_head``/``cut_tail``: ``s`` was cut
        from a longer text there, so a piece of a secret at that end is masked too."""
        if not isinstance(s, str) or not s or not self.active:
            return s
        if self._holds_value(s):
            for value, kind in self._values:
                if value in s:
                    s = s.replace(value, placeholder(kind))
        for rx, kind in self._short:
            s = rx.sub(placeholder(kind), s)
        if cut_tail:
            s = self._mask_tail(s)
        elif s.endswith(("...", "…")) and self._values:  # shortened for display
            cut = 3 if s.endswith("...") else 1
            s = self._mask_tail(s[:-cut]) + s[-cut:]
        if cut_head:
            s = self._mask_head(s)
        if self.scan_all:
            s = redact_text(s, depth=self.scan_depth)
        return s

    def lines(self, s: Any) -> Any:
        """:meth:`text`, and then each line of a known multi-line secret (a private key, a
        token folded over two lines) masked where it stands alone: a shell parser's
        reasons quote one line of a command as a word ("3rTy7uI9oP2aS4dF6g is not in
        the table of known programs"), where the whole value never matches."""
        s = self.text(s)
        if not isinstance(s, str) or not s or not self.active:
            return s
        for value, kind in self._values:
            if "\n" not in value:
                continue
            for line in value.split("\n"):
                line = line.strip().rstrip("\\")
                if len(line) >= _SHORT and line in s:
                    s = s.replace(line, placeholder(kind))
        return s

    def __getstate__(self) -> dict[str, Any]:
        state = dict(self.__dict__)
        state.pop("_finder", None)  # an automaton does not pickle: built again at use
        return state

    def _holds_value(self, s: str) -> bool:
        """Whether ``s`` holds one of the known values (``False`` only when none of them
        is in it, so the replacing loop would change nothing): one Aho-Corasick pass
        instead of an ``in`` per value (52 on the 50x home, a third of the search
        index's sync; issue 28).  ``True`` when it cannot tell."""
        finder = self.__dict__.get("_finder", _UNBUILT)
        if finder is _UNBUILT:  # built at first use, never pickled (__getstate__)
            finder = self._finder = _finder([v for v, _ in self._values])
        if finder is None:
            return bool(self._values)
        try:
            return bool(finder.find_matches_as_indexes(s))
        except (UnicodeError, ValueError, TypeError):  # lone surrogates: ask each value
            return True

    def _mask_tail(self, s: str) -> str:
        """Mask a tail of ``s`` that is the beginning of a secret."""
        probe = s[-_MIN_PIECE:]
        best = 0
        kind = ""
        for value, k in self._values:
            i = value.find(probe)
            while i != -1:
                piece = value[:i + _MIN_PIECE]
                if len(piece) < len(value) and s.endswith(piece) and len(piece) > best:
                    best, kind = len(piece), k
                i = value.find(probe, i + 1)
        return s[:-best] + placeholder(kind) if best else s

    def _mask_head(self, s: str) -> str:
        """Mask a head of ``s`` that is the end of a secret."""
        probe = s[:_MIN_PIECE]
        best = 0
        kind = ""
        for value, k in self._values:
            i = value.find(probe)
            while i != -1:
                piece = value[i:]
                if i > 0 and s.startswith(piece) and len(piece) > best:
                    best, kind = len(piece), k
                i = value.find(probe, i + 1)
        return placeholder(kind) + s[best:] if best else s

    # -------------------------------------------------------------- structures
    def value(self, obj: Any) -> Any:
        """``obj`` with every string in it redacted (dicts, lists, tuples, named tuples,
        dataclasses and pydantic models are rebuilt; other values are returned as
        they are)."""
        if not self.active:
            return obj
        if isinstance(obj, list) and obj and not isinstance(obj[0], str):
            return [self._walk(o) if self._may_hold(o) else o for o in obj]
        return self._walk(obj) if self._may_hold(obj) else obj

    def row(self, row: Any, parsed: Any) -> Any:
        """``parsed`` (built from the database row ``row``) redacted, when a known secret is
        in one of the row's strings (checked on the row as fetched: cheaper than a walk)."""
        if not self.active:
            return parsed
        if not (self.scan_all or self._short):
            blob = "\0".join(x for x in row if isinstance(x, str))
            if not any(v in blob for v, _ in self._values) and not _cut(blob):
                return parsed
        return self._walk(parsed)

    def _may_hold(self, obj: Any) -> bool:
        """Whether a known secret could be anywhere in ``obj``: its strings joined and
        searched once per secret (cheaper than replacing in every string; most rows hold
        none)."""
        if self.scan_all or self._short:
            return True
        strings: list[str] = []
        _strings(obj, strings)
        blob = "\0".join(strings)
        return any(v in blob for v, _ in self._values) or _cut(blob)

    def rows(self, rows: list[Any], *, cut_head: tuple[str, ...] = (),
             cut_tail: tuple[str, ...] = ()) -> list[Any]:
        """Named tuples with every string redacted; fields named in ``cut_head`` /
        ``cut_tail`` were cut by SQL at that end (see :meth:`text`)."""
        if not self.active:
            return rows
        # most rows hold no secret: the known values and the marks of a text shortened
        # for display are looked for in all the rows' strings at once; a row none of them
        # falls in is kept as it is (its cut fields masked at their end), the others are
        # walked (the graph's rows: 20,000 walks were 13 % of its rebuild)
        walk: set[int] | None = None
        if not (self.scan_all or self._short):
            blobs: list[str] = []
            for row in rows:
                strings: list[str] = []
                for v in row:  # the flat fields at once, the others as _walk goes
                    if type(v) is str:
                        strings.append(v)
                    elif v is not None and type(v) not in _FLAT:
                        _strings(v, strings)
                blobs.append("\0".join(strings))
            everything = "\x01".join(blobs)
            starts = list(accumulate((len(b) + 1 for b in blobs[:-1]), initial=0))
            walk = set()
            for needle in [*(v for v, _ in self._values), "...", "…"]:
                at = everything.find(needle)
                while at != -1:
                    row_at = bisect_right(starts, at) - 1
                    walk.add(row_at)
                    # the next row's start: one hit is enough to walk a row
                    at = everything.find(needle, starts[row_at + 1]) \
                        if row_at + 1 < len(starts) else -1
        out = []
        for i, row in enumerate(rows):
            if walk is not None and i not in walk:
                if cut_head or cut_tail:
                    change = {f: self.text(getattr(row, f), cut_head=True) for f in cut_head}
                    change.update({f: self.text(getattr(row, f), cut_tail=True)
                                   for f in cut_tail})
                    row = row._replace(**change)
                out.append(row)
                continue
            d = {k: self._walk(v) for k, v in row._asdict().items()}
            for f in cut_head:
                d[f] = self.text(d[f], cut_head=True)
            for f in cut_tail:
                d[f] = self.text(d[f], cut_tail=True)
            out.append(type(row)(**d))
        return out

    def _walk(self, obj: Any) -> Any:
        if isinstance(obj, str):
            return self.text(obj)
        if obj is None or isinstance(obj, (int, float, bool, bytes)):
            return obj
        if isinstance(obj, dict):
            return {k: self._walk(v) for k, v in obj.items()}
        if isinstance(obj, list):
            return [self._walk(v) for v in obj]
        if isinstance(obj, tuple):
            items = [self._walk(v) for v in obj]
            return type(obj)(*items) if hasattr(obj, "_fields") else tuple(items)
        if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
            changes = {f.name: self._walk(getattr(obj, f.name))
                       for f in dataclasses.fields(obj) if f.init}
            return dataclasses.replace(obj, **changes)
        copy = getattr(obj, "model_copy", None)  # pydantic models
        if copy is not None and hasattr(obj, "model_fields"):
            return copy(update={name: self._walk(getattr(obj, name))
                                for name in type(obj).model_fields})
        return obj

    def fresh(self, s: str | None, *, depth: int = 1) -> str | None:
        """Text never scanned (a replay's new output, an ingest's diagnostics): known
        secrets and whatever the finder spots (``depth``: levels of JSON escapes it
        undoes) are hidden, whatever ``reveal`` says (it is stored)."""
        if not s:
            return s
        return redact_text(self.hiding().text(s), depth=depth)

    def stream(self) -> StreamRedactor:
        """A redactor for output that arrives in pieces (a replay step's live output)."""
        return StreamRedactor(self)

    # --------------------------------------------------------------------- SQL
    def pattern(self) -> str | None:
        """An RE2 pattern matching any known secret (``None``: nothing to hide)."""
        if self.reveal or not (self._values or self._short):
            return None
        return "|".join([_re2_escape(v) for v, _ in self._values]
                        + [r"(?:\b|-p)" + _re2_escape(_literal(rx)) + r"\b"  # (_GLUED_P)
                           for rx, _ in self._short])


def _strings(obj: Any, out: list[str]) -> None:
    if isinstance(obj, str):
        out.append(obj)
    elif obj is None or type(obj) in _FLAT:
        return
    elif isinstance(obj, dict):
        for v in obj.values():
            _strings(v, out)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            _strings(v, out)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            _strings(getattr(obj, f.name), out)
    elif hasattr(obj, "model_fields"):
        for name in type(obj).model_fields:
            _strings(getattr(obj, name), out)


_FLAT = frozenset({int, float, bool, bytes, frozenset, set})
"""Field types :meth:`Redactor._walk` returns as they are (no string inside is replaced)."""


_UNBUILT = object()


def _finder(values: list[str]) -> Any:
    """An Aho-Corasick automaton over ``values`` (``None``: none, or no
    ``ahocorasick_rs``)."""
    if not values:
        return None
    try:
        import ahocorasick_rs
    except ImportError:  # pragma: no cover - the ``in`` checks give the same answer
        return None
    return ahocorasick_rs.AhoCorasick(values, matchkind=ahocorasick_rs.MatchKind.Standard)


def _cut(s: str) -> bool:
    """Whether ``s`` may hold a text shortened for display (which can end in a piece of a
    secret)."""
    return "..." in s or "…" in s


_WORD_ENDS = ((*_WORD_APART.split("{}"),), (*_WHOLE_WORD.split("{}"),))
"""What stands around the secret in a short-secret pattern (:data:`_WORD_APART`, or a
whole word)."""


def _literal(rx: re.Pattern[str]) -> str:
    """The secret a short-secret pattern was built from."""
    body = rx.pattern
    for head, tail in _WORD_ENDS:
        if body.startswith(head) and body.endswith(tail):
            body = body[len(head):-len(tail)]
            break
    return re.sub(r"\\(.)", r"\1", body, flags=re.S)


_SHELL_SPLIT = re.compile(r"[&;|()<>`]+")
"""Where a shell ends an unquoted word."""


_LINE_SPLIT = re.compile(r"\r?\n|(?:\\{1,8}r)?\\{1,8}n")
"""A line break, as is or JSON-escaped (bounded runs: linear on a run of backslashes)."""
_LINE_MARKS = re.compile(r"(?:(?:>|#|//)[ \t]*){1,4}")
"""A quote's or a comment's marks starting a line of a wrapped secret (rsafe11)."""
_LINE_PIECE = 16
"""The shortest line of a multi-line secret hidden where it stands alone."""
_KEY_PIECE = re.compile(r"[A-Za-z0-9+/=]+")
"""A short line of a key's body (base64 or base58)."""


def _unmarked(line: str) -> str:
    """A line without the quote's or comment's marks it starts with."""
    m = _LINE_MARKS.match(line)
    return line[m.end():] if m else line


def _forms(value: str, kind: str = "") -> set[str]:
    """A secret as it may appear: as found, JSON-escaped (in JSON columns and raw
    messages) and JSON-unescaped (found inside JSON text, shown after parsing)."""
    forms = {value}
    # a shell splits an unquoted word at its metacharacters, and what read the command
    # as a shell would (a replay plan's safety line) shows the parts: each is the secret
    # too (the caller drops parts shorter than ``_MIN_PIECE``)
    forms.update(p for p in _SHELL_SPLIT.split(value) if p)
    # a token wrapped over lines (a keypair, a PEM body, a folded token): a title or a
    # description that joins the lines with a blank shows each line's piece (safe11);
    # each token-like piece is the secret too (a line with a blank, a PEM header or a
    # phrase's words, is not: it would hide ordinary text)
    if "\n" in value:
        pieces = (p.strip(" \t") for p in _LINE_SPLIT.split(value))
        pieces = (_unmarked(p) for p in pieces)
        forms.update(p for p in pieces if len(p) >= _LINE_PIECE and " " not in p)
        if kind == "private-key":  # a key wrapped into many short lines (safe13): a
            # replay plan's command words show each; a piece mixing two kinds of
            # characters is the key too (a short one replaced only as a whole word)
            for line in _LINE_SPLIT.split(value):
                piece = _unmarked(line.strip(" \t")).strip(" \t\"'`,+|\\")
                if len(piece) >= _MIN_PIECE and _KEY_PIECE.fullmatch(piece) and sum(
                        (any(c.isdigit() for c in piece), any(c.isupper() for c in piece),
                         any(c.islower() for c in piece))) >= 2:
                    forms.add(piece)
    escaped = value
    for _ in range(3):  # JSON in JSON: a Codex output is stored escaped twice in raw
        escaped = orjson.dumps(escaped).decode()[1:-1]
        forms.add(escaped)
    if "\\" in value:
        try:
            unescaped = orjson.loads(f'"{value}"')
            if isinstance(unescaped, str):
                forms.add(unescaped)
        except orjson.JSONDecodeError:
            pass
    return forms


def _re2_escape(s: str) -> str:
    out = []
    for ch in s:
        if ch.isalnum() or ch == "_":
            out.append(ch)
        elif ch.isprintable() and ord(ch) < 128 and ch != " ":
            out.append("\\" + ch)
        else:
            out.append(f"\\x{{{ord(ch):x}}}")
    return "".join(out)


class StreamRedactor:
    """Redact a stream line by line: a piece is held until its line ends, and a PEM
    private key block is held until its END line, then shown as one placeholder."""

    def __init__(self, redactor: Redactor) -> None:
        self._r = redactor
        self._buf = ""
        self._key: list[str] | None = None

    def feed(self, chunk: str) -> str:
        """What can be shown of the stream so far."""
        self._buf += chunk
        lines = self._buf.split("\n")
        self._buf = lines.pop()
        return "".join(self._line(line + "\n") for line in lines)

    def close(self) -> str:
        """The rest of the stream (an unterminated key block is still hidden)."""
        rest, self._buf = self._buf, ""
        out = self._line(rest) if rest else ""
        if self._key is not None:
            self._key = None
            out += placeholder("private-key") + "\n"
        return out

    def _line(self, line: str) -> str:
        if self._key is not None:
            self._key.append(line)
            if "-----END" in line:
                block, self._key = "".join(self._key), None
                return self._r.fresh(block) or ""
            return ""
        if "PRIVATE KEY" in line and "-----BEGIN" in line and "-----END" not in line:
            self._key = [line]
            return ""
        return self._r.fresh(line) or ""
