"""A long text (a pasted log of thousands of lines) is shown in time linear in its length.

rich splits one text into lines with ``str.partition`` over what is left, so a text of
N lines costs O(N × length): ``logkb show`` of a 4 MB output took 25 s, one of 50 MB
did not finish.  :class:`kb.render.Indented` renders a text line by line.  The cost is
compared with itself (4x the lines may cost at most 8x the time: linear is 4x,
quadratic 16x), as ``test_linear_time`` does, so a busy machine cannot fail it.
"""

from __future__ import annotations

import io
import time

from rich.console import Console
from rich.text import Text

from kb.render import Indented


def _render(renderable: object, width: int = 80) -> str:
    buf = io.StringIO()
    Console(file=buf, width=width, color_system=None, legacy_windows=False).print(
        renderable, soft_wrap=False)
    return buf.getvalue()


def _log(lines: int) -> Text:
    """A log whose lines wrap (rich then draws it as one segment of many lines)."""
    return Text("\n".join(f"line {i} " + "word " * 20 for i in range(lines)))


def test_a_text_of_many_lines_costs_time_linear_in_its_lines() -> None:
    costs = []
    for n in (5000, 20000):
        t0 = time.process_time()
        out = _render(Indented(_log(n), "  │ "))
        costs.append(time.process_time() - t0)
        assert out.count("\n") == 2 * n  # each wraps once
    assert costs[1] <= 8 * max(costs[0], 0.05), costs


def test_line_by_line_draws_what_the_whole_text_drew() -> None:
    text = Text("first line with an Error: here\n\nthird, a long line " + "x" * 150
                + "\nlast", style="dim")
    text.highlight_words(["Error: here"], style="bold red")
    shown = _render(Indented(text, "  │ "))
    assert shown.splitlines()[0] == "  │ first line with an Error: here"
    assert shown.splitlines()[1] == "  │"
    assert all(len(x) <= 80 for x in shown.splitlines())
    assert shown.splitlines()[-1] == "  │ last"
    assert shown.count("\n") == 6  # the long line wraps onto three


def test_one_very_long_line_costs_time_linear_in_its_length() -> None:
    costs = []
    for n in (500_000, 4_000_000):  # 8x the length: linear costs 8x, quadratic 64x
        t0 = time.process_time()
        out = _render(Indented(Text("word " * (n // 5)), "  │ "))
        costs.append(time.process_time() - t0)
        assert out.count("word") == n // 5
    assert costs[1] <= 20 * max(costs[0], 0.05), costs
