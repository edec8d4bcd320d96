"""The two pictures of a session page, as inline SVG: the throughput plot (drawn here)
and the dead-end graph (laid out by Graphviz ``dot -Tsvg`` from the same dot text
``logkb graph --format dot`` writes)."""

from __future__ import annotations

import re
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from kb.report_html.text import h, visible


def _fmt(v: float) -> str:
    return f"{v:,.0f}" if abs(v) >= 100 else f"{v:.3g}"


def throughput_svg(series: Sequence[Mapping[str, Any]], href: Callable[[str, int], str],
                   width: int = 760, height: int = 240) -> str:
    """A line over message ordinals of the readings in ``series`` (``ordinal``,
    ``value``, ``unit``, ``label``, ``session_id``); first, best and last marked and linked
    to their messages (``href(session_id, ordinal)``)."""
    pts = [m for m in series if m.get("value") is not None]
    if not pts:
        return ""
    left, right, top, bottom = 64, 16, 14, 34
    xs = [int(m["ordinal"]) for m in pts]
    ys = [float(m["value"]) for m in pts]
    x0, x1 = min(xs), max(xs)
    y0, y1 = min(0.0, min(ys)), max(ys)
    if y1 == y0:
        y1 = y0 + 1
    if x1 == x0:
        x1 = x0 + 1
    pw, ph = width - left - right, height - top - bottom

    def X(o: float) -> float:
        return left + (o - x0) * pw / (x1 - x0)

    def Y(v: float) -> float:
        return top + ph - (v - y0) * ph / (y1 - y0)

    unit = str(pts[0].get("unit") or "")
    label = str(pts[0].get("label") or "throughput")
    out = [f'<svg class="plot" viewBox="0 0 {width} {height}" role="img" '
           f'aria-label="{h(label)} ({h(unit)}) over messages" '
           'xmlns="http://www.w3.org/2000/svg">']
    for k in range(5):  # horizontal grid with values
        v = y0 + (y1 - y0) * k / 4
        y = Y(v)
        out.append(f'<line x1="{left}" x2="{width - right}" y1="{y:.1f}" y2="{y:.1f}" '
                   'class="grid"/>')
        out.append(f'<text x="{left - 6}" y="{y + 4:.1f}" text-anchor="end">{_fmt(v)}</text>')
    for k in range(5):
        o = x0 + (x1 - x0) * k / 4
        out.append(f'<text x="{X(o):.1f}" y="{height - 16}" text-anchor="middle">'
                   f'{o:.0f}</text>')
    out.append(f'<text x="{left + pw / 2:.1f}" y="{height - 2}" text-anchor="middle" '
               'class="axis">message</text>')
    out.append(f'<text x="12" y="{top + ph / 2:.1f}" text-anchor="middle" class="axis" '
               f'transform="rotate(-90 12 {top + ph / 2:.1f})">{h(unit)}</text>')
    line = " ".join(f"{X(o):.1f},{Y(v):.1f}" for o, v in zip(xs, ys))
    out.append(f'<polyline points="{line}" class="series"/>')
    if len(pts) <= 300:
        for o, v in zip(xs, ys):
            out.append(f'<circle cx="{X(o):.1f}" cy="{Y(v):.1f}" r="2" class="dot">'
                       f'<title>{_fmt(v)} {h(unit)} at message {o}</title></circle>')
    best = max(range(len(pts)), key=lambda i: ys[i])
    names: dict[int, list[str]] = {}
    for i, name in ((0, "first"), (best, "best"), (len(pts) - 1, "last")):
        names.setdefault(i, []).append(name)
    for i, words in names.items():
        name = ", ".join(words)
        m = pts[i]
        x, y = X(xs[i]), Y(ys[i])
        anchor = "end" if x > width - 120 else "start"
        dx = -6 if anchor == "end" else 6
        out.append(f'<a href="{h(href(str(m.get("session_id") or ""), xs[i]))}">'
                   f'<circle cx="{x:.1f}" cy="{y:.1f}" r="4.5" class="key {" ".join(words)}"/>'
                   f'<text x="{x + dx:.1f}" y="{max(y - 7, 10):.1f}" text-anchor="{anchor}" '
                   f'class="keylabel">{name} {_fmt(ys[i])} @{xs[i]}</text></a>')
    out.append("</svg>")
    return "".join(out)


_SVG_START = re.compile(r"<svg\b")


def dot_svg(dot_text: str, timeout: float = 60) -> str | None:
    """``dot_text`` laid out by Graphviz as an ``<svg>`` element to inline (its XML
    prologue, doctype and comments dropped); ``None`` when ``dot`` is not installed."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    done = subprocess.run([exe, "-Tsvg"], input=visible(dot_text).encode("utf-8"),
                          capture_output=True, timeout=timeout, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"dot failed: {done.stderr.decode('utf-8', 'replace')[:300]}")
    svg = done.stdout.decode("utf-8", "replace")
    m = _SVG_START.search(svg)
    if m is None:
        raise RuntimeError("dot wrote no <svg>")
    svg = re.sub(r"<!--.*?-->", "", svg[m.start():], flags=re.S)
    # one point a pixel (labels at 10 px) at actual size; the page fits it to its width
    def size(m: re.Match[str]) -> str:
        return (f'<svg class="graph" width="{float(m.group(1)):.0f}" '
                f'height="{float(m.group(2)):.0f}"')

    return re.sub(r'<svg width="([\d.]+)pt" height="([\d.]+)pt"', size, svg, count=1)
