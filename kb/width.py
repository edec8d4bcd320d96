"""The one terminal-width counter: how many columns text takes once shown.

Every plain-text path that fits a line to the terminal (``search``'s hits, the
hand-off's brief and its headings) measures and cuts with these functions, so
they agree with each other and with what the terminal draws.  The rule:

- a character :data:`kb.safe_text.UNSAFE` matches (a control character, a bidi
  override, an invisible character) is shown as its escape
  (:func:`kb.safe_text.visible`): ``\\x1b`` takes four columns, ``\\u202e`` six,
  a tag character ``\\U000e0041`` ten;
- combining marks (Mn, Me: Thai vowel signs, accents, the keycap ``U+20E3``),
  format characters (Cf: ZWJ, ZWNJ), variation selectors and
  the medial and final Hangul jamo take none;
- East Asian Wide and Fullwidth characters (CJK, kana, hangul syllables, most
  emoji) take two;
- an emoji sequence takes two however long it is: a ZWJ sequence (a family), an
  emoji with a skin-tone modifier, a character with the emoji variation selector
  ``U+FE0F`` (``❤️``, ``1️⃣``), a flag (a pair of regional indicators);
- anything else one.

Rich (15) measures the same way, so what the TUI and the rich tables show agrees
(``tests/test_width.py`` checks that on hostile strings).  Import-light on purpose
(``re`` and :mod:`unicodedata` only): ``logkb search`` prints without rich.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator

from kb.safe_text import JOINERS, UNSAFE, lone_joiner, visible

ZWJ = "\u200d"
VS16 = "\ufe0f"
ELLIPSIS = "…"

_PLAIN = re.compile(r"[\x20-\x7e]*\Z")
_UNUSUAL = re.compile(r"[^\x20-\x7e]")
_SEQUENCE = re.compile("[\u200c\u200d\ufe0f\U0001f1e6-\U0001f1ff\U0001f3fb-\U0001f3ff]")
"""A character that makes a sequence: its width is not the sum of its characters'."""

_MARKER = re.compile(r"\[redacted:[a-z0-9-]{1,40}\]")
"""A redacted secret's placeholder (:func:`logparse.secrets.placeholder`): one cluster, so
a cut keeps it whole or drops it whole (never ``[redacted:aws-`` on a screen)."""

_WIDTH: dict[str, int] = {}
"""A character's columns on its own (memo)."""


def char_cells(ch: str) -> int:
    """Columns one character takes on its own (see the module's rule)."""
    got = _WIDTH.get(ch)
    if got is None:
        got = _WIDTH[ch] = _char_cells(ch)
    return got


def _char_cells(ch: str) -> int:
    n = ord(ch)
    if 0x20 <= n < 0x7f:
        return 1
    if UNSAFE.match(ch):
        return 4 if n < 0x100 else 6 if n < 0x10000 else 10
    if ch in "\t\n":
        return 1
    if unicodedata.category(ch) in ("Mn", "Me", "Cf") or unicodedata.combining(ch):
        return 0
    if 0x1160 <= n <= 0x11ff or 0xd7b0 <= n <= 0xd7ff:  # hangul medial vowels, finals
        return 0
    return 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _is_regional(ch: str) -> bool:
    return "\U0001f1e6" <= ch <= "\U0001f1ff"


def _is_modifier(ch: str) -> bool:
    return "\U0001f3fb" <= ch <= "\U0001f3ff"


def _is_emoji(ch: str) -> bool:
    """Whether ``ch`` may stand in an emoji ZWJ sequence (a symbol: ``👩``, ``🔥``, ``♀``)."""
    return unicodedata.category(ch) in ("So", "Sk")


def clusters(text: str) -> Iterator[tuple[int, int, int]]:
    """``text`` as the runs a terminal draws as one: ``(start, end, columns)`` each, every
    index covered once.  A run is a character with the zero-width ones after it (marks,
    joiners, selectors), an emoji ZWJ sequence, or a flag; a cut between runs never
    splits what is drawn as one."""
    i, n = 0, len(text)
    while i < n:
        start, ch = i, text[i]
        if ch == "[":
            m = _MARKER.match(text, i)
            if m:  # a placeholder: drawn as one
                i = m.end()
                yield start, i, i - start
                continue
        w = char_cells(ch)
        i += 1
        if UNSAFE.match(ch):  # shown as its own escape: nothing joins it
            yield start, i, w
            continue
        if _is_regional(ch) and i < n and _is_regional(text[i]):
            w, i = 2, i + 1  # a flag
        while i < n:
            nxt = text[i]
            if nxt == ZWJ and w == 2 and i + 1 < n and _is_emoji(text[i + 1]):
                i += 2  # an emoji ZWJ sequence: the joined emoji is drawn inside this one
                continue
            if nxt == VS16:
                if w == 1:
                    w = 2  # emoji presentation: two columns
                i += 1
                continue
            if _is_modifier(nxt) and w == 2:
                w, i = 2, i + 1  # a skin tone drawn on the emoji before it
                continue
            if nxt in JOINERS and not lone_joiner(text, i) or (
                    nxt not in JOINERS and not UNSAFE.match(nxt) and char_cells(nxt) == 0):
                i += 1
                continue
            break
        yield start, i, w


def cells(text: str) -> int:
    """The columns ``text`` takes on a terminal once shown (see the module's rule).
    Printable ASCII takes one column each and is not looked at further (the hand-off's
    fit measures every line dozens of times)."""
    if text.isascii() and text.isprintable():
        return len(text)
    if _SEQUENCE.search(text) is None:  # only the characters other than printable ASCII
        return len(text) + sum(char_cells(ch) - 1 for ch in _UNUSUAL.findall(text))
    return sum(w for _, _, w in clusters(text))


def cut(text: str, cols: int) -> str:
    """The longest head of ``text`` that fits ``cols`` columns, cut between clusters
    (:func:`clusters`: never inside a character's marks, an emoji sequence or a
    ``[redacted:KIND]`` placeholder)."""
    if cols <= 0:
        return ""
    if text.isascii() and text.isprintable():
        if "[redacted:" in text:
            for m in _MARKER.finditer(text, 0, cols + 40):
                if m.start() < cols < m.end():
                    return text[:m.start()]
        return text[:cols]
    used = 0
    for start, _end, w in clusters(text):
        used += w
        if used > cols:
            return text[:start]
    return text


def fit(text: str, cols: int) -> str:
    """``text`` when it fits ``cols`` columns, else its head cut to ``cols - 1`` with
    ``…`` after it (trailing spaces before the ``…`` dropped)."""
    if cells(text) <= cols:
        return text
    return cut(text, cols - 1).rstrip() + ELLIPSIS


_WORDS = re.compile(r"\S+")


def _pieces(word: str) -> list[tuple[str, int, bool]]:
    """``word`` as what a line may break between: each wide cluster on its own, the
    narrow runs between them whole: ``(text, columns, wide)`` each."""
    out: list[tuple[str, int, bool]] = []
    run, run_w = "", 0
    for start, end, c in clusters(word):
        if c >= 2:
            if run:
                out.append((run, run_w, False))
                run, run_w = "", 0
            out.append((word[start:end], c, True))
        else:
            run, run_w = run + word[start:end], run_w + c
    if run:
        out.append((run, run_w, False))
    return out


def wrap(text: str, width: int, indent: str = "", hang: str = "") -> list[str]:
    """``text`` (one line) wrapped to ``width`` columns: ``indent`` before the first line,
    ``hang`` before the others.  Lines break at spaces and between wide (CJK)
    characters, which have no spaces to break at; a word longer than a line breaks
    between clusters (:func:`clusters`) where the line is full.  The spaces between
    two words on one line are kept as written (a tree drawing's ``src/  # comment``,
    aligned columns); those where a line breaks and at the ends of lines are dropped."""
    lines: list[str] = []
    hang_w = cells(hang)
    cur, used, empty = indent, cells(indent), True

    def newline() -> None:
        nonlocal cur, used, empty
        lines.append(cur.rstrip())
        cur, used, empty = hang, hang_w, True

    prev = 0
    for m in _WORDS.finditer(text):
        word = m.group()
        w = cells(word)
        # the spaces before it as written (other whitespace, a line break: one space)
        blank = text[prev:m.start()]
        gap = 0 if empty else len(blank) if blank.strip(" ") == "" else 1
        prev = m.end()
        if used + gap + w <= width:
            cur, used, empty = cur + " " * gap + word, used + gap + w, False
            continue
        gap = min(gap, 1)  # where it does not fit, a break (or one space) will do
        pieces = [(word, w, False)] if _PLAIN.match(word) else _pieces(word)
        for piece, pw, wide in pieces:
            if used + gap + pw > width and not empty and (wide or hang_w + pw <= width):
                newline()
                gap = 0
            if used + gap + pw <= width or empty and hang_w + pw <= width:
                cur, used, empty = cur + " " * gap + piece, used + gap + pw, False
                gap = 0
                continue
            for start, end, c in clusters(piece):  # longer than a line: cut where full
                if used + gap + c > width and not empty:
                    newline()
                    gap = 0
                cur, used, empty = cur + " " * gap + piece[start:end], used + gap + c, False
                gap = 0
    lines.append(cur.rstrip())
    return lines


_PARTIAL_ESCAPE = re.compile(r"\\(?:x[0-9a-f]?|u[0-9a-f]{0,3}|U[0-9a-f]{0,7})?$")
"""The head of an escape :func:`kb.safe_text.visible` writes (``\\x1``, ``\\u20``)
at the end of a cut: what was cut is dropped with it."""


def fit_title(text: str, cols: int) -> str:
    """A title (or any one-line prose) as one line of at most ``cols`` columns: its
    whitespace runs made one space and its control characters shown as escapes; when
    too long, cut at the last space of the head that fits with ``…`` after it (a CJK
    title, with no spaces, between its characters), never inside an escape, so
    ``Research Visa card…``, never ``Research Visa card part…`` nor ``…\\x1…``.  A
    head whose last space leaves more than half of ``cols`` unused is cut mid-word."""
    text = visible(" ".join(text.split()))
    if cells(text) <= cols:
        return text
    if cols <= 1:
        return ELLIPSIS[:max(cols, 0)]
    head = cut(text, cols - 1)
    space = head.rfind(" ")
    if space > 0 and cells(head[:space]) >= (cols - 1) // 2 and text[len(head)] != " ":
        head = head[:space]
    head = _PARTIAL_ESCAPE.sub("", head).rstrip()
    return head + ELLIPSIS
