"""The one output sanitizer: transcript text never drives the terminal.

A transcript holds whatever a tool printed, a web page said or a user pasted,
so its text may carry terminal control sequences: OSC 52 (sets the clipboard),
OSC 0 (the window title), CSI (moves the cursor, clears the screen), C1
controls (``\\x9b`` is a one-byte CSI on some terminals), bidirectional
overrides and invisible characters (zero-width spaces, Unicode tags) that make a
line read differently from what it is.  Every
human-facing text path (CLI tables and prose, ``search``, ``handoff``, graph
exports, the TUI) passes its text through :func:`visible`, which shows each
such character as a visible escape (``\\x1b]52;…``, ``\\u202e``, ``\\U000e0041``) and never
emits it.  JSON output keeps the exact text, each such character written as a
JSON ``\\u`` escape (:func:`json_text`): the same value for a program, inert on
a terminal (JSON encoders escape C0 controls only, never DEL, C1 or bidi).

Kept as they are: newline and tab.  A carriage return before a newline is
dropped (CRLF line ends); any other carriage return is shown as ``\\r``.

Import-light on purpose (``re`` only): ``logkb search`` prints without rich.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

UNSAFE_CHARS = (
    "\x00-\x08\x0b-\x1f\x7f"      # C0 controls (ESC, BEL, CR, ...) and DEL; not \t \n
    "\x80-\x9f"                    # C1 controls (CSI \x9b, OSC \x9d, ST \x9c, ...)
    "\u061c\u200e\u200f"           # bidi marks (ALM, LRM, RLM)
    "\u202a-\u202e"                # bidi embeddings and overrides (LRE RLE PDF LRO RLO)
    "\u2066-\u2069"                # bidi isolates (LRI RLI FSI PDI)
    # invisible characters that make a line read as another (a command copied from the
    # screen is not the one shown); ZWJ and ZWNJ by their neighbours (JOINERS below)
    "\u00ad\u034f\u115f\u1160\u17b4\u17b5\u180e"  # soft hyphen, CGJ, fillers, …
    "\u200b\u2028\u2029\u2060-\u2064\u206a-\u206f"  # ZWSP, LS, PS, WJ, invisible ops
    "\u3164\ufeff\uffa0\ufff9-\ufffb"  # Hangul filler, BOM, interlinear annotations
    "\U000e0000-\U000e007f"        # tag characters (invisible ASCII)
)
JOINERS = "\u200c\u200d"
"""ZWNJ and ZWJ: kept between two characters beyond ASCII (an emoji sequence, a script
that needs them), shown as escapes next to ASCII or at an end (``r\\u200dm`` reads
as ``rm`` but is not)."""
UNSAFE = re.compile(f"[{UNSAFE_CHARS}]|(?<![^\\x00-\\x7f])[{JOINERS}]|[{JOINERS}](?![^\\x00-\\x7f])")
"""One character that must not reach a terminal as it is (a joiner by its neighbours;
matched alone, any joiner is)."""


def lone_joiner(text: str, i: int) -> bool:
    """Whether ``text[i]`` is a joiner that :func:`visible` shows as an escape."""
    return text[i] in JOINERS and UNSAFE.match(text, i) is not None


def _escape(m: re.Match[str]) -> str:
    c = m.group()
    n = ord(c)
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}" if n < 0x10000 else f"\\U{n:08x}"


def visible(text: str) -> str:
    """``text`` with every control character, ESC sequence introducer and bidi override
    shown as a visible escape (``\\x1b``, ``\\x9b``, ``\\u202e``); idempotent."""
    if not text or UNSAFE.search(text) is None:
        return text
    return UNSAFE.sub(_escape, text.replace("\r\n", "\n"))


def _json_escape(m: re.Match[str]) -> str:
    n = ord(m.group())
    if n < 0x10000:
        return f"\\u{n:04x}"
    n -= 0x10000  # beyond the BMP: JSON spells it as a surrogate pair
    return f"\\u{0xd800 + (n >> 10):04x}\\u{0xdc00 + (n & 0x3ff):04x}"


def json_text(text: str) -> str:
    """Serialized JSON ``text`` with every character :data:`UNSAFE` matches written as
    a ``\\uXXXX`` escape.  Such a character can only stand inside a JSON string
    (JSON's own whitespace is space, tab, newline), where the escape decodes to the
    same character: the value is unchanged, but a terminal never sees C1 controls,
    DEL or bidi overrides that ``--json`` piped to it would otherwise carry."""
    if not text or UNSAFE.search(text) is None:
        return text
    return UNSAFE.sub(_json_escape, text)


def is_safe(text: str) -> bool:
    """Whether ``text`` can be written to a terminal as it is."""
    return UNSAFE.search(text) is None


def visible_value(obj: Any) -> Any:
    """``obj`` with every string in it (in dicts, lists and tuples) made :func:`visible`."""
    if isinstance(obj, str):
        return visible(obj)
    if isinstance(obj, dict):
        return {visible_value(k): visible_value(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [visible_value(v) for v in obj]
    if isinstance(obj, tuple) and not hasattr(obj, "_fields"):
        return tuple(visible_value(v) for v in obj)
    return obj


def visible_segments(segments: Iterable[Any]) -> Iterable[Any]:
    """Rich/Textual segments with their text made :func:`visible` (control segments,
    the renderer's own cursor moves, are kept)."""
    from rich.segment import Segment

    for seg in segments:
        text, style, control = seg
        if control is None and text and UNSAFE.search(text) is not None:
            yield Segment(visible(text), style, control)
        else:
            yield seg


KEEP = frozenset({"session_id", "parent_id", "child_session_id", "node_id", "id", "scope",
                  "src", "dst", "key", "run_id"})
"""Fields :func:`visible_deep` leaves alone: identifiers the TUI looks things up by."""


def visible_deep(obj: Any, keep: frozenset[str] = KEEP) -> Any:
    """``obj`` with every string in it made :func:`visible` (dicts, lists, tuples, named
    tuples, dataclasses and pydantic models are rebuilt; fields and keys named in ``keep``
    are kept as they are).  For data a screen shows as a whole (the TUI's detail pane, its
    graph): its widths then count the escapes.  The same object when nothing is unsafe."""
    import dataclasses

    if isinstance(obj, str):
        return visible(obj)
    if obj is None or isinstance(obj, (int, float, bool, bytes)):
        return obj
    if isinstance(obj, dict):
        return {k: (v if k in keep else visible_deep(v, keep)) for k, v in obj.items()}
    if isinstance(obj, list):
        return [visible_deep(v, keep) for v in obj]
    if isinstance(obj, tuple):
        if hasattr(obj, "_fields"):
            fields = obj._asdict()  # type: ignore[attr-defined]  # a named tuple
            return type(obj)(**{k: (v if k in keep else visible_deep(v, keep))
                                for k, v in fields.items()})
        return tuple(visible_deep(v, keep) for v in obj)
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        changes = {f.name: visible_deep(getattr(obj, f.name), keep)
                   for f in dataclasses.fields(obj) if f.init and f.name not in keep}
        return dataclasses.replace(obj, **changes)
    copy = getattr(obj, "model_copy", None)  # pydantic models
    if copy is not None and hasattr(obj, "model_fields"):
        return copy(update={name: visible_deep(getattr(obj, name), keep)
                            for name in type(obj).model_fields if name not in keep})
    return obj
