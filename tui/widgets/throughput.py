"""``ThroughputChart``: a campaign's throughput over message ordinals (plotext).

Points are the session's throughput measurements; vertical lines mark pivots
(yellow) and the messages where approaches ended as dead ends (red), so the
effect of each turn of the campaign is visible at a glance.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from textual_plotext import PlotextPlot


class ThroughputChart(PlotextPlot):
    """Throughput (``tok/s``) against message ordinal, with pivots and dead ends marked."""

    DEFAULT_CSS = """
    ThroughputChart { height: 12; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self.series: list[dict[str, Any]] = []

    def set_data(self, series: list[dict[str, Any]], *, pivots: Sequence[int] = (),
                 ends: Sequence[int] = (), start: int | None = None) -> None:
        """Plot ``series`` (rows with ``ordinal``, ``value``, ``unit``, ``label``); marks
        before ``start`` (when the series was cut there) are left out."""
        self.series = series
        plt = self.plt
        plt.clear_figure()
        if not series:
            plt.title("no throughput measurements in this campaign")
            self.refresh()
            return
        xs = [m["ordinal"] for m in series]
        ys = [m["value"] for m in series]
        unit = series[0]["unit"]
        label = series[0]["label"] or "throughput"
        plt.scatter(xs, ys, marker="braille", color="cyan")
        lo = start if start is not None else min(xs)
        for o in sorted(set(ends)):
            if o >= lo:
                plt.vline(o, "red")
        for o in sorted(set(pivots)):
            if o >= lo:
                plt.vline(o, "yellow")
        best = max(series, key=lambda m: m["value"])
        other = "whole session" if start is not None else "campaign only"
        plt.title(f"{label} ({unit}) · best {best['value']:g} at {best['ordinal']} · "
                  f"yellow pivot, red dead end · t: {other}")
        plt.xlabel("message")
        self.refresh()
