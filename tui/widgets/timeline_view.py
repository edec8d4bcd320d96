"""``TimelineView``: a virtualised list of a session's steps (Line API, like toolong's LogLines).

Only the lines on screen are rendered.  Their rows come from a page cache fed by a
*loader* (called in a thread worker with a row range) and the order, count and
navigation flags of all rows come from a :class:`kb.views.TimelineIndex` held in
memory, so a 100k-message session scrolls like a 100-message one: nothing is
measured up front (Textual's ``DataTable`` measures every cell) and a missing
page is drawn as placeholders (ordinal known, text pending) until it arrives.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass, field

from rich.cells import cell_len, set_cell_size
from rich.segment import Segment
from rich.style import Style
from textual import events, work
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from kb.safe_text import visible
from kb.views import (
    DEAD_END,
    DECISION,
    FAILURE,
    MEASURED,
    PIVOT,
    PROMPT,
    ROW_CALL,
    TimelineIndex,
    TimelineRow,
)
from tui.format import CATEGORY_STYLE, CLASS_STYLE, KIND_BADGE, MARK, status_word

Key = tuple[int, int, int]
Loader = Callable[[TimelineIndex, int, int], dict[Key, TimelineRow]]

PAGE = 128
"""Rows fetched per page."""
CACHE_PAGES = 48
"""Pages kept (LRU); ~6k rows."""


def columns_for(width: int) -> tuple[bool, bool]:
    """Which optional columns rows drawn ``width`` cells wide have: (category, host)."""
    return width >= 64, width >= 100  # the category stays at 80 columns (76 drawn)


def header_text(width: int) -> str:
    """The column header that lines up with rows drawn ``width`` cells wide."""
    mid, wide = columns_for(width)
    head = f"{'msg':>6}   {'kind':<8} "
    if mid:
        head += f"{'category':<13} "
    if wide:
        head += f"{'host':<13} "
    return head + f"{'status':<8} what"


class TimelineView(ScrollView, can_focus=True):
    """The rows of one session, one per step, with a cursor."""

    COMPONENT_CLASSES = {
        "timeline--cursor", "timeline--failure", "timeline--dead-end", "timeline--measured",
        "timeline--pivot", "timeline--prompt", "timeline--loading", "timeline--dim",
        "timeline--range",
    }
    DEFAULT_CSS = """
    TimelineView {
        background: $surface;
        overflow-x: hidden;
        & > .timeline--cursor { background: $accent 45%; text-style: bold; }
        &:focus > .timeline--cursor { background: $accent 70%; }
        & > .timeline--failure { background: $error 18%; }
        & > .timeline--dead-end { background: $error 30%; }
        & > .timeline--measured { color: $text; }
        & > .timeline--pivot { background: $warning 22%; }
        & > .timeline--prompt { background: $primary 18%; }
        & > .timeline--loading { color: $text-muted; }
        & > .timeline--dim { color: $text-muted; }
        & > .timeline--range { background: $secondary 25%; }
    }
    """
    BINDINGS = [
        Binding("up,k", "cursor(-1)", "Up", show=False),
        Binding("down,j", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First", show=False),
        Binding("end", "edge(1)", "Last", show=False),
        Binding("enter", "select", "Detail", show=False),
    ]

    cursor: reactive[int] = reactive(-1, init=False, always_update=True)
    """Position of the selected row (-1: no rows)."""

    @dataclass
    class Highlighted(Message):
        """The cursor moved to another row."""

        view: TimelineView
        position: int
        key: Key

        @property
        def control(self) -> TimelineView:
            return self.view

    @dataclass
    class Selected(Message):
        """Enter (or a double click) on a row."""

        view: TimelineView
        position: int
        key: Key

        @property
        def control(self) -> TimelineView:
            return self.view

    @dataclass
    class PagesLoaded(Message):
        """Rows for some pages arrived from the loader."""

        generation: int
        pages: list[int]
        rows: dict[Key, TimelineRow] = field(default_factory=dict)
        error: str | None = None

    def __init__(self, loader: Loader, *, name: str | None = None, id: str | None = None,  # noqa: A002
                 classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self._loader = loader
        self.index: TimelineIndex | None = None
        self.session_id: str | None = None
        self.marks: dict[int, str] = {}
        """ordinal → graph mark (dead_end, blocked, confirmed, untested, pivot)."""
        self.range_start: int | None = None
        """Position where a range selection started (``v``), or None."""
        self._rows: dict[Key, TimelineRow] = {}
        self._told_width = -1
        self._pages: OrderedDict[int, None] = OrderedDict()
        self._generation = 0
        self._loading = False
        self._fetch_scheduled = False
        self._line_cache: LRUCache[tuple[object, ...], Strip] = LRUCache(1024)
        self._styles: dict[str, Style] = {}
        self.pages_loaded = 0
        """Pages fetched since the index was set (for tests and benchmarks)."""

    # ----------------------------------------------------------------- data
    @staticmethod
    def position_for(index: TimelineIndex, ordinal: int | None = None,
                     key: Key | None = None) -> int:
        """Where :meth:`set_index` puts the cursor: on ``key``, else ``ordinal``, else top."""
        if len(index) == 0:
            return -1
        if key is not None:
            return index.position_of(key[0], key[1], key[2])
        if ordinal is not None:
            return index.position_of(ordinal)
        return 0

    @staticmethod
    def pages_around(index: TimelineIndex, pos: int, height: int) -> list[int]:
        """The pages a view of ``height`` lines centred on ``pos`` shows (to prefetch them
        with the index, saving a round trip before the first paint)."""
        if len(index) == 0:
            return []
        height = max(height, 10)
        lo = max(0, pos - height)
        hi = min(len(index) - 1, pos + height)
        return list(range(lo // PAGE, hi // PAGE + 1))

    def set_index(self, index: TimelineIndex, *, ordinal: int | None = None,
                  key: Key | None = None, center: bool = True,
                  prefetched: tuple[list[int], dict[Key, TimelineRow]] | None = None
                  ) -> None:
        """Show ``index``; put the cursor on ``key``/``ordinal`` (nearest row) or the top.

        ``prefetched`` are pages already read with the index (see :meth:`pages_around`)."""
        self.index = index
        self.session_id = index.session_id
        self._generation += 1
        self._rows.clear()
        self._pages.clear()
        self._line_cache.clear()
        self._loading = False
        self.pages_loaded = 0
        self.range_start = None
        if prefetched is not None:
            pages, rows = prefetched
            self._rows.update(rows)
            for p in pages:
                self._pages[p] = None
            self.pages_loaded = len(pages)
        self.virtual_size = Size(self.scrollable_content_region.width, len(index))
        pos = self.position_for(index, ordinal, key)
        if pos < 0:
            self.cursor = -1
        else:
            self.cursor = pos
            if self.container_size.height > 0:
                # scroll now, so a fetch is for the rows that will show
                self._scroll_to_cursor(center and pos > 0)
            # and again once laid out, if a first layout moved it (the size bounds scroll_y)
            self.call_after_refresh(self._keep_cursor_visible, center and pos > 0)
        self.refresh()
        self._schedule_fetch()

    def set_marks(self, marks: dict[int, str]) -> None:
        self.marks = marks
        self._line_cache.clear()
        self.refresh()

    def row_at(self, pos: int) -> TimelineRow | None:
        if self.index is None or not 0 <= pos < len(self.index):
            return None
        return self._rows.get(self.index.key(pos))

    @property
    def current_key(self) -> Key | None:
        if self.index is None or not 0 <= self.cursor < len(self.index):
            return None
        return self.index.key(self.cursor)

    @property
    def current_row(self) -> TimelineRow | None:
        return self.row_at(self.cursor)

    def visible_loaded(self) -> bool:
        """Whether every row on screen has its data (first paint is complete)."""
        if self.index is None:
            return False
        top = round(self.scroll_y)
        stop = min(len(self.index), top + max(1, self.scrollable_content_region.height))
        return all(self.index.key(p) in self._rows for p in range(top, stop))

    # --------------------------------------------------------------- cursor
    def move_to(self, pos: int, *, center: bool = False) -> None:
        if self.index is None or len(self.index) == 0:
            return
        pos = max(0, min(pos, len(self.index) - 1))
        self.cursor = pos
        self._scroll_to_cursor(center)

    def _scroll_to_cursor(self, center: bool) -> None:
        h = self.scrollable_content_region.height
        if h <= 0:
            self.call_after_refresh(self._scroll_to_cursor, center)
            return
        pos = self.cursor
        if center:
            self.scroll_to(y=max(0, pos - h // 2), animate=False, immediate=True)
        elif pos < self.scroll_y:
            self.scroll_to(y=pos, animate=False, immediate=True)
        elif pos >= self.scroll_y + h:
            self.scroll_to(y=pos - h + 1, animate=False, immediate=True)

    def _keep_cursor_visible(self, center: bool) -> None:
        h = self.scrollable_content_region.height
        if h > 0 and self.scroll_y <= self.cursor < self.scroll_y + h:
            return
        self._scroll_to_cursor(center)

    def watch_cursor(self, old: int, new: int) -> None:
        self._line_cache.clear()
        self.refresh()
        key = self.current_key
        if key is not None:
            self.post_message(self.Highlighted(self, new, key))

    def action_cursor(self, delta: int) -> None:
        self.move_to(self.cursor + delta)

    def action_page(self, direction: int) -> None:
        h = max(1, self.scrollable_content_region.height - 1)
        self.move_to(self.cursor + direction * h)

    def action_edge(self, end: int) -> None:
        if self.index is not None:
            self.move_to(len(self.index) - 1 if end else 0)

    def action_select(self) -> None:
        key = self.current_key
        if key is not None:
            self.post_message(self.Selected(self, self.cursor, key))

    def on_click(self, event: events.Click) -> None:
        """Called when a row is clicked: select it (double click: open its detail)."""
        if self.index is None:
            return
        offset = event.get_content_offset(self)
        if offset is None:
            return
        pos = round(self.scroll_y) + offset.y
        if 0 <= pos < len(self.index):
            self.move_to(pos)
            if event.chain >= 2:
                self.action_select()

    # -------------------------------------------------------------- loading
    def watch_scroll_y(self, old: float, new: float) -> None:
        super().watch_scroll_y(old, new)
        self._schedule_fetch()

    def on_resize(self, event: events.Resize) -> None:
        """Called when the widget changes size: the virtual width follows it (never wider
        than the rows are drawn, so no horizontal scrollbar takes a row)."""
        if self.index is not None:
            self.virtual_size = Size(self.scrollable_content_region.width, len(self.index))
        self._line_cache.clear()
        self._schedule_fetch()
        self.call_after_refresh(self._say_width)

    @dataclass
    class WidthChanged(Message):
        """The width rows are drawn at changed (the header must follow it)."""

        width: int

    def _say_width(self) -> None:
        width = self.scrollable_content_region.width
        if width != self._told_width:
            self._told_width = width
            self.post_message(self.WidthChanged(width))

    def _schedule_fetch(self) -> None:
        if not self._fetch_scheduled:
            self._fetch_scheduled = True
            self.call_later(self._fetch_visible)

    def _fetch_visible(self) -> None:
        self._fetch_scheduled = False
        if self.index is None or self._loading or len(self.index) == 0:
            return
        n = len(self.index)
        top = round(self.scroll_y)
        h = max(self.scrollable_content_region.height, 1)
        lo = max(0, top - PAGE // 2)
        hi = min(n, top + h + PAGE // 2)
        wanted = [p for p in range(lo // PAGE, (hi - 1) // PAGE + 1) if p not in self._pages]
        # pages on screen first, so the visible lines fill in before the margins
        first = top // PAGE
        wanted.sort(key=lambda p: abs(p - first))
        if wanted:
            self._loading = True
            self._load_pages(self._generation, self.index, wanted)

    @work(thread=True, group="timeline-pages", exit_on_error=False,
          description="load timeline pages")
    def _load_pages(self, generation: int, index: TimelineIndex, pages: list[int]) -> None:
        rows: dict[Key, TimelineRow] = {}
        error = None
        try:
            lo, hi = min(pages), max(pages)
            rows = self._loader(index, lo * PAGE, (hi + 1) * PAGE)
        except Exception as e:  # noqa: BLE001 - shown to the user, never crashes the view
            error = str(e)
        self.post_message(self.PagesLoaded(generation, pages, rows, error))

    def on_timeline_view_pages_loaded(self, message: TimelineView.PagesLoaded) -> None:
        """Called when a page fetch finished: cache its rows and repaint (the message
        bubbles on: the screen learns that rows are on screen)."""
        if message.generation != self._generation:
            return
        self._loading = False
        if message.error:
            self.notify(f"could not read the timeline: {message.error}", severity="error")
            return
        self._rows.update(message.rows)
        for p in message.pages:
            self._pages[p] = None
            self._pages.move_to_end(p)
        self.pages_loaded += len(message.pages)
        self._evict()
        self._line_cache.clear()
        self.refresh()
        self._schedule_fetch()

    def _evict(self) -> None:
        if self.index is None:
            return
        visible = round(self.scroll_y) // PAGE
        while len(self._pages) > CACHE_PAGES:
            page = next(iter(self._pages))
            if abs(page - visible) <= 1:
                self._pages.move_to_end(page)
                continue
            del self._pages[page]
            for pos in range(page * PAGE, min(len(self.index), (page + 1) * PAGE)):
                self._rows.pop(self.index.key(pos), None)

    # ------------------------------------------------------------ rendering
    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = Style.parse(name) if name else Style()
            self._styles[name] = style
        return style

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._line_cache.clear()

    def render_line(self, y: int) -> Strip:
        width = self.scrollable_content_region.width
        if width != self._told_width:  # e.g. the vertical scrollbar came or went
            self._say_width()
        pos = round(self.scroll_y) + y
        if self.index is None or pos >= len(self.index):
            return Strip.blank(width, self.rich_style)
        key = self.index.key(pos)
        row = self._rows.get(key)
        in_range = (self.range_start is not None
                    and min(self.range_start, self.cursor) <= pos
                    <= max(self.range_start, self.cursor))
        cache_key = (key, width, pos == self.cursor, in_range, row is None,
                     self.marks.get(key[0]), self.has_focus)
        strip = self._line_cache.get(cache_key)
        if strip is None:
            strip = self._render_row(pos, key, row, width, in_range)
            self._line_cache[cache_key] = strip
        if row is None:
            self._schedule_fetch()
        return strip

    def _render_row(self, pos: int, key: Key, row: TimelineRow | None, width: int,
                    in_range: bool) -> Strip:
        assert self.index is not None
        flags = self.index.flags[pos]
        base = self.rich_style
        mark = self.marks.get(key[0])
        if pos == self.cursor:
            base += self.get_component_rich_style("timeline--cursor")
        elif in_range:
            base += self.get_component_rich_style("timeline--range")
        elif flags & DEAD_END or mark in ("dead_end", "blocked"):
            base += self.get_component_rich_style("timeline--dead-end")
        elif flags & FAILURE:
            base += self.get_component_rich_style("timeline--failure")
        elif flags & PIVOT or mark == "pivot":
            base += self.get_component_rich_style("timeline--pivot")
        elif flags & PROMPT:
            base += self.get_component_rich_style("timeline--prompt")
        dim = self.get_component_rich_style("timeline--dim", partial=True)
        segs: list[Segment] = []

        def add(text: str, style: Style | None = None) -> None:
            segs.append(Segment(visible(text), base + style if style else base))

        add(f"{key[0]:>6} ", self._style("bold"))
        if mark in MARK:
            glyph, mstyle = MARK[mark]
            add(glyph, self._style(mstyle))
        else:
            add(" ")
        add(" ")
        if row is None:
            add("…", self.get_component_rich_style("timeline--loading", partial=True))
            return Strip(segs).adjust_cell_length(width, base)
        kind = row.kind
        add(f"{kind:<8}"[:8], self._style(KIND_BADGE.get(kind, "")))
        add(" ")
        mid, wide = columns_for(width)
        if mid:
            if row.src == ROW_CALL:
                cat = row.category or ""
                add(f"{cat:<13}"[:13], self._style(CATEGORY_STYLE.get(cat, "")))
            else:
                cls = row.classification or ""
                add(f"{cls:<13}"[:13], dim + self._style(CLASS_STYLE.get(cls, ""))
                    if cls in ("plan", "observation") else self._style(CLASS_STYLE.get(cls, "")))
            add(" ")
        if wide:
            host = row.host or ("local" if row.tool == "bash" else "")
            add(f"{host:<13}"[:13], dim if host == "local" else self._style("#ffcb6b"))
            add(" ")
        if row.src == ROW_CALL:
            word, sstyle = status_word(row.status, row.exit_code, bool(flags & FAILURE))
            add(f"{word:<8}"[:8], self._style(sstyle))
        else:
            add(" " * 8)
        add(" ")
        measured = ""
        if row.signature:
            more = f" +{row.signatures - 1}" if row.signatures > 1 else ""
            add(f"✘ {row.signature}{more}", self._style("bold #ff6b6b"))
            add("  ")
        elif row.measurement and (flags & MEASURED):
            more = f" +{row.measurements - 1}" if row.measurements > 1 else ""
            measured = visible(f"◆ {row.measurement}{more}")
        text_style = None
        if kind == "decision" and not flags & (DECISION | PIVOT):
            text_style = dim
        elif kind == "prompt":
            text_style = self._style("bold")
        text = visible(row.text)
        if measured:
            # the command first, what it measured after it: the text is cut to leave the
            # reading room where the row has it (the detail pane has both whole)
            room = width - Strip(segs).cell_length - cell_len(measured) - 2
            if room >= 12 and cell_len(text) > room:
                text = set_cell_size(text, room - 1) + "…"
        add(text, text_style)
        if measured:
            add("  ")
            add(measured, self._style("bold #82aaff"))
        strip = Strip(segs)
        if strip.cell_length > width > 1:  # cut: say so (the detail pane has it whole)
            strip = Strip([*strip.crop(0, width - 1), Segment("…", base + dim)])
        return strip.adjust_cell_length(width, base)
