"""The one door transcript text goes through on its way into the report: made visible
(control characters shown, never emitted), then HTML-escaped.

A transcript holds whatever a tool printed: ESC sequences, C1 controls, bidi overrides
that make a line read differently from what it is, NUL bytes (which XML, and so inline
SVG, refuses).  :func:`visible` shows each as a visible escape (``\\x1b``, ``\\u202e``);
:func:`h` escapes the result for HTML text and attribute values.  When
:mod:`kb.safe_text` (the project's one output sanitizer) is present, :func:`visible` is
its function; the fallback below does the same for the same characters.
"""

from __future__ import annotations

import html
import importlib
import json
import re
from collections.abc import Callable
from typing import Any

_UNSAFE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f"   # C0 controls (ESC, BEL, CR, ...) and DEL; not \t \n
    "\x80-\x9f"                  # C1 controls (CSI \x9b, OSC \x9d, ...)
    "\u061c\u200e\u200f"         # bidi marks
    "\u202a-\u202e"              # bidi embeddings and overrides
    "\u2066-\u2069"              # bidi isolates
    "\ud800-\udfff\ufffe\uffff]")  # lone surrogates and non-characters (not encodable)


def _escape(m: re.Match[str]) -> str:
    n = ord(m.group())
    return f"\\x{n:02x}" if n < 0x100 else f"\\u{n:04x}"


def _fallback_visible(text: str) -> str:
    if not text or _UNSAFE.search(text) is None:
        return text
    return _UNSAFE.sub(_escape, text.replace("\r\n", "\n"))


def _load_visible() -> Callable[[str], str]:
    try:
        shared: Callable[[str], str] = importlib.import_module("kb.safe_text").visible
    except (ImportError, AttributeError):
        return _fallback_visible

    def both(text: str) -> str:  # the shared one, then what HTML/XML also refuse
        return _fallback_visible(shared(text))

    return both


visible: Callable[[str], str] = _load_visible()
"""``text`` with every control character and bidi override shown as an escape."""


def h(value: Any) -> str:
    """Any value as safe HTML text (and attribute value): visible, then escaped."""
    if value is None:
        return ""
    return html.escape(visible(str(value)), quote=True)


def clip(text: str | None, n: int) -> str:
    """``text`` on one line, at most ``n`` characters (an ellipsis when cut)."""
    if not text:
        return ""
    flat = " ".join(text.split())
    return flat if len(flat) <= n else flat[: n - 1] + "…"


def script_json(obj: Any) -> str:
    """JSON to embed in ``<script type="application/json">``: no ``<``, ``>`` or ``&``
    (so no ``</script>`` or ``<!--`` can end or bend the element), strings made visible."""
    text = json.dumps(_visible_deep(obj), ensure_ascii=False, separators=(",", ":"))
    return (text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))


def _visible_deep(obj: Any) -> Any:
    if isinstance(obj, str):
        return visible(obj)
    if isinstance(obj, dict):
        return {str(k): _visible_deep(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_visible_deep(v) for v in obj]
    return obj
