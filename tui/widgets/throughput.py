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
        self._args: tuple[Sequence[int], Sequence[int], int | None] = ((), (), None)

    def on_resize(self) -> None:
        """Called when the widget changed size: the title is fitted again."""
        if self.series:
            pivots, ends, start = self._args
            self.set_data(self.series, pivots=pivots, ends=ends, start=start)

    def set_data(self, series: list[dict[str, Any]], *, pivots: Sequence[int] = (),
                 ends: Sequence[int] = (), start: int | None = None) -> None:
        """Plot ``series`` (rows with ``ordinal``, ``value``, ``unit``, ``label``); marks
        before ``start`` (when the series was cut there) are left out."""
        self.series = series
        self._args = (pivots, ends, start)
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
        from kb.graph.report import direction

        # "best" only where a side is better (the largest duration is the worst one)
        sign = direction(unit or "")
        best = max(series, key=lambda m: sign * m["value"]) if sign else series[-1]
        other = "whole session" if start is not None else "campaign only"
        # plotext draws no title wider than the plot: the legend goes first, then the label
        room = max(10, (self.size.width or self.app.size.width) - 8)
        head = f"{label} ({unit}) · {'best' if sign else 'last'} {best['value']:g} at " \
            f"{best['ordinal']}"
        for title in (f"{head} · yellow pivot, red dead end · t: {other}",
                      f"{head} · yellow pivot, red dead end", head,
                      f"{label[:max(1, room - len(head) + len(label) - 1)]}…"
                      f"{head[len(label):]}"):
            if len(title) <= room:
                break
        plt.title(title)
        plt.xlabel("message")
        a, z = min(xs), max(xs)  # ordinals are whole numbers: no "4035.0" on the axis
        ticks = sorted({round(a + (z - a) * i / 4) for i in range(5)})
        plt.xticks(ticks, [str(t) for t in ticks])
        self.refresh()
