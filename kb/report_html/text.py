"""The one door transcript text goes through on its way into the report: made visible
(control characters shown, never emitted), then HTML-escaped.

A transcript holds whatever a tool printed: ESC sequences, C1 controls, bidi overrides
that make a line read differently from what it is, NUL bytes (which XML, and so inline
SVG, refuses).  :func:`visible` shows each as a visible escape (``\\x1b``, ``\\u202e``);
:func:`h` escapes the result for HTML text and attribute values.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

from kb.safe_text import visible as safe_visible

_NOT_XML = re.compile("[\ud800-\udfff\ufffe\uffff]")
"""Lone surrogates and non-characters: not encodable, and refused by XML (inline SVG)."""


def _escape(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def visible(text: str) -> str:
    """``text`` with every control character and bidi override shown as an escape (the
    project's one sanitizer, :func:`kb.safe_text.visible`), and what XML refuses too."""
    text = safe_visible(text)
    return _NOT_XML.sub(_escape, text) if _NOT_XML.search(text) else text


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
