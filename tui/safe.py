"""The TUI's last guard: no control character of transcript text reaches the terminal.

Widgets make the text they show visible (:func:`kb.safe_text.visible`) where they
build it, so widths count the escapes; :func:`safe_update` then goes over every
strip of every screen update before it is written (``LogkbApp._display``), so a
text path a widget missed is shown as ``\\x1b]52;…`` all the same, never obeyed.
"""

from __future__ import annotations

from typing import Any

from textual.strip import Strip

from kb.safe_text import UNSAFE, visible_segments


def safe_strip(strip: Strip) -> Strip:
    """``strip`` with the text of its segments made visible (the same strip when clean)."""
    for text, _style, control in strip:
        if control is None and text and UNSAFE.search(text) is not None:
            return Strip(list(visible_segments(strip)))
    return strip


def _safe_line(line: Any) -> Any:
    if isinstance(line, Strip):
        return safe_strip(line)
    return [safe_strip(s) for s in line]


def safe_update(update: Any) -> Any:
    """A compositor update (whole lines or chops of lines) with every strip made safe."""
    strips = getattr(update, "strips", None)
    if isinstance(strips, list):
        update.strips = [_safe_line(line) for line in strips]
    chops = getattr(update, "chops", None)
    if chops is not None:
        update.chops = [{x: (safe_strip(s) if s is not None else None) for x, s in c.items()}
                        for c in chops]
    return update
