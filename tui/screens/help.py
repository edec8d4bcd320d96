"""The help overlay (``?``): what the screen below shows and every key it takes."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen, Screen
from textual.widgets import Static

GENERAL = ("logkb reads the knowledge base in short bursts and lets go of the file when "
           "idle, so `logkb ingest` can run in another terminal; ctrl+r reads again.  "
           "ctrl+p opens the command palette.  The mouse works too: click rows, scroll, "
           "click footer keys.")


class HelpScreen(ModalScreen[None]):
    """Keys and a short explanation of the screen below."""

    BINDINGS = [Binding("escape,question_mark,q", "dismiss", "Close")]

    def __init__(self, below: Screen[object]) -> None:
        super().__init__()
        self.below = below

    def compose(self) -> ComposeResult:
        with VerticalScroll(classes="dialog help", id="help-scroll"):
            yield Static(self._content(), id="help-body")

    def on_mount(self) -> None:
        """Called when the overlay opens: focus it, so arrows and page keys scroll it."""
        self.query_one("#help-scroll").focus()

    def _content(self) -> Table:
        below = self.below
        title = below.sub_title or type(below).__name__
        keys = Table(box=None, show_header=False, padding=(0, 2, 0, 0))
        for _ in range(2):
            keys.add_column(style="bold #ffd166", no_wrap=True, min_width=7)
            keys.add_column(min_width=20)
        seen: set[str] = set()
        bindings: list[Binding] = []
        for b in [*getattr(type(below), "BINDINGS", []), *type(self.app).BINDINGS]:
            bindings.append(b if isinstance(b, Binding) else Binding(*b))
        pairs: list[tuple[str, str]] = []
        for b in bindings:
            if b.description and b.description not in seen:
                seen.add(b.description)
                pairs.append((b.key_display or b.key.replace(",", " / "), b.description))
        pairs.append(("ctrl+p", "command palette"))
        half = (len(pairs) + 1) // 2
        for i in range(half):
            right = pairs[i + half] if i + half < len(pairs) else ("", "")
            keys.add_row(*pairs[i], *right)
        outer = Table(box=None, show_header=False, expand=True)
        outer.add_column()
        outer.add_row(Text(f"Help · {title}", style="bold"))
        helptext = getattr(type(below), "HELP", "")
        if helptext:
            outer.add_row(Text(helptext))
        outer.add_row(Text(""))
        outer.add_row(keys)
        outer.add_row(Text(""))
        outer.add_row(Text(GENERAL, style="#8b9bb4"))
        outer.add_row(Text("escape closes", style="#8b9bb4"))
        return outer

    async def action_dismiss(self, result: None = None) -> None:
        self.dismiss(None)
