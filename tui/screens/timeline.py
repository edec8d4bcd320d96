"""The timeline screen of one session: every step in order, with the detail of the selected one."""

from __future__ import annotations

import time
from dataclasses import dataclass
from functools import partial
from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widget import AwaitMount
from textual.widgets import Footer, Header, Input, Select, Static
from textual.worker import get_current_worker

from kb import views
from kb.safe_text import visible, visible_deep
from kb.views import TimelineFilter, TimelineIndex, TimelineRow
from tui.format import DIM, FAIL, header_id, short, when
from tui.messages import AnnotationSaved, JumpRequested
from tui.screens.prompt import ConfirmPrompt, TextPrompt
from tui.widgets.detail import DetailContext, DetailPane
from tui.widgets.timeline_view import PAGE, Key, TimelineView, header_text

SEARCH_DELAY = 0.15
"""Seconds of typing pause before a search runs."""
DETAIL_DELAY = 0.04
"""Seconds the cursor must rest on a row before its detail is read."""


SELECTS = ("#filter-kind", "#filter-category", "#filter-host", "#filter-status")


SEARCH_HINT = "search commands, outputs, prose  (or kind:… cat:… host:… status:failed)"
SEARCH_HINT_SHORT = "kind: cat: host: …"
"""The search box's placeholder where the long one does not fit (at 80 columns the box
showed ``search commands,`` and none of the filters)."""


class SearchInput(Input):
    """The search box: its placeholder is the one that fits it."""

    def on_resize(self) -> None:
        fits = cell_len(SEARCH_HINT) < self.content_size.width
        self.placeholder = SEARCH_HINT if fits else SEARCH_HINT_SHORT


class FilterBar(Horizontal):
    """Search text and the kind / category / host / status filters.

    Built on first use (``/`` or ``f``): four ``Select`` widgets cost a noticeable
    part of the timeline's first paint and most sessions are read without them."""

    def build(self) -> AwaitMount | None:
        """Mount the inputs (the first time); await the result before using them."""
        if self.children:
            return None
        return self.mount_all([
            SearchInput(placeholder=SEARCH_HINT, id="search"),
            Select[str]([], prompt="kind", id="filter-kind"),
            Select[str]([], prompt="category", id="filter-category"),
            Select[str]([], prompt="host", id="filter-host"),
            Select[str]([], prompt="status", id="filter-status")])

    @property
    def built(self) -> bool:
        return bool(self.children)


class TimelineScreen(Screen[None]):
    """One session, one row per step; the detail of the selected step below."""

    HELP = ("One row per step: a prompt, a piece of prose, a tool call (command and result "
            "on one line) or another event.  Red rows failed, dark red rows are where an "
            "approach ended as a dead end, blue ◆ figures are measurements, yellow rows are "
            "pivots.  The mark after the ordinal comes from the knowledge graph: ✘ dead "
            "end, ⊘ blocked, ↷ superseded, ✔ confirmed, ? left untested, ⤳ pivot; your "
            "annotations: ✎ note, ↺ revisit, ◇ hypothesis.  `:` jumps to a "
            "message, `/` searches as you type (prefixes kind: cat: host: status: class: "
            "filter), `v` starts a range for `r` (replay).")
    # the footer shows what fits 80 columns, `?` (every key) and `esc` among it: with
    # `:`, `f`, `d` and `x` shown too, help, back and quit were the keys cut off
    BINDINGS = [
        Binding("question_mark", "app.help", "Help", key_display="?"),
        Binding("colon", "jump", "Jump", key_display=":", show=False),
        Binding("slash", "search", "Search", key_display="/"),
        Binding("f", "filters", "Filters", show=False),
        Binding("n", "next(1, 'failure')", "Next fail"),
        Binding("N", "next(-1, 'failure')", "Prev fail", show=False),
        Binding("d", "next(1, 'decision')", "Next decision", show=False),
        Binding("D", "next(-1, 'decision')", "Prev decision", show=False),
        Binding("g", "graph", "Graph"),
        Binding("r", "replay", "Replay"),
        Binding("escape", "back", "Back"),
        Binding("ctrl+r", "app.refresh", "Refresh", show=False),  # q Quit fits after Back
        Binding("v", "range", "Range", show=False),
        Binding("x", "annotate('dead_end')", "Dead end", show=False),
        Binding("c", "annotate('confirmed')", "Confirmed", show=False),
        Binding("a", "annotate('note')", "Note", show=False),
        Binding("u", "unannotate", "Unmark", show=False),
        Binding("s", "subagent", "Subagent", show=False),
        Binding("o", "full_output", "Full output", show=False),
        Binding("z", "zoom", "Zoom detail", show=False),
        Binding("y", "copy('command')", "Copy", show=False),
        Binding("Y", "copy('output')", "Copy output", show=False),
        Binding("p", "pager", "Pager", show=False),
        Binding("e", "editor", "Editor", show=False),
        Binding("tab", "switch_pane", "Pane", show=False),
    ]

    @dataclass
    class IndexLoaded(Message):
        """The timeline index (rows under the filter) was read, with the first rows."""

        index: TimelineIndex
        ordinal: int | None
        key: Key | None
        seconds: float
        prefetched: tuple[list[int], dict[Key, TimelineRow]] | None = None

    @dataclass
    class SessionRead(Message):
        """The session's summary and its filter values were read (after the first rows)."""

        info: dict[str, Any] | None
        facets: views.Facets | None

    @dataclass
    class DetailLoaded(Message):
        """The detail of a step was read."""

        key: Key
        detail: views.StepDetail
        annotations: list[dict[str, Any]]

    def __init__(self, session_id: str, ordinal: int | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.start_ordinal = ordinal
        self.filter = TimelineFilter()
        self.info: dict[str, Any] | None = None
        self.facets: views.Facets | None = None
        self.graph: views.GraphView | None = None
        self._search_timer: Timer | None = None
        self._detail_timer: Timer | None = None
        self._graph_requested = False
        self._setting_selects = False
        self.index_seconds = 0.0
        """How long the last index query took (diagnostics)."""
        self._detail_pending: Key | None = None
        self._search_pending = False
        self._pending_jump: int | None = None
        self.last_copied: str | None = None
        """What ``y``/``Y`` put on the clipboard last (for tests: OSC 52 is write-only)."""

    # --------------------------------------------------------------- layout
    def compose(self) -> ComposeResult:
        yield Header()
        yield Static("", id="session-title")
        yield FilterBar(id="filter-bar")
        yield Static(self._columns(), id="timeline-columns")
        yield TimelineView(self._rows, id="timeline")
        yield DetailPane(id="detail")
        yield Input(placeholder="go to message (ordinal)", id="jump", type="integer")
        yield Static("", id="timeline-status", classes="status")
        yield Footer()

    @staticmethod
    def _columns(width: int = 120) -> Text:
        return Text(header_text(width), style="bold", no_wrap=True, overflow="ellipsis")

    def on_timeline_view_width_changed(self, message: TimelineView.WidthChanged) -> None:
        """Called when the rows' width changed: the header shows the same columns."""
        self.query_one("#timeline-columns", Static).update(self._columns(message.width))

    def on_mount(self) -> None:
        """Called when the screen opens: read the index (the rows come page by page)."""
        # an id is the transcript's own text; its short id, as `logkb sessions` shows it
        self.sub_title = visible(header_id(self.session_id, self.app.short_names))  # type: ignore[attr-defined]
        self.query_one(TimelineView).focus()
        self._load_index(self.filter, self.start_ordinal, None)

    def busy(self) -> bool:
        """Whether something the user asked for is still on its way (tests, benchmarks)."""
        view = self.query_one(TimelineView)
        return (self._search_pending or self._detail_pending is not None
                or view.index is None or view.index.filter != self.filter
                or (len(view.index) > 0 and not view.visible_loaded()))

    def on_screen_resume(self) -> None:
        """Called when the screen is shown again (after the graph or a replay): the step's
        detail may have news (annotations, replay runs)."""
        key = self.query_one(TimelineView).current_key
        if key is not None and self.query_one(DetailPane).detail is not None:
            self._load_detail(key)

    def reload(self) -> None:
        """Read everything again (``ctrl+r``), keeping the selected step."""
        view = self.query_one(TimelineView)
        self.info = None
        self.facets = None
        self._graph_requested = False
        self._load_index(self.filter, None, view.current_key)

    # ---------------------------------------------------------------- index
    def _load_index(self, f: TimelineFilter, ordinal: int | None, key: Key | None) -> None:
        """Read the index under ``f`` (and the rows the view will show first) in a worker."""
        height = self.query_one(TimelineView).scrollable_content_region.height or 40
        self.run_worker(partial(self._read_index, f, ordinal, key, height), thread=True,
                        exclusive=True, group="timeline-index", exit_on_error=False,
                        description=f"index {f.describe()!r}")

    def _read_index(self, f: TimelineFilter, ordinal: int | None, key: Key | None,
                    height: int) -> None:
        t0 = time.perf_counter()
        with self.app.lease.read() as store:  # type: ignore[attr-defined]
            index = views.timeline_index(store, self.session_id, f)
            if get_current_worker().is_cancelled:
                return
            pages = TimelineView.pages_around(
                index, TimelineView.position_for(index, ordinal, key), height)
            rows = (views.timeline_rows(store, index, pages[0] * PAGE, (pages[-1] + 1) * PAGE)
                    if pages else {})
        if get_current_worker().is_cancelled:
            return
        self.post_message(self.IndexLoaded(index, ordinal, key, time.perf_counter() - t0,
                                           (pages, rows)))
        if self.info is None or self.facets is None:
            with self.app.lease.read() as store:  # type: ignore[attr-defined]
                info = store.session(self.session_id)
                info = {**info, "usage": views.session_usage(
                    store, [self.session_id]).get(self.session_id, {}),
                    # the messages the user rewound past (Gemini CLI's /rewind), read once:
                    # the detail pane marks them
                    "rewound": store.rewound(self.session_id)}
                facets = views.facets(store, self.session_id)
            self.post_message(self.SessionRead(visible_deep(info), visible_deep(facets)))

    def on_timeline_screen_session_read(self, message: SessionRead) -> None:
        """Called when the session's summary arrived: title line and filter choices."""
        self.info, self.facets = message.info, message.facets
        self._show_title()
        self._fill_selects()
        pane = self.query_one(DetailPane)
        if pane.detail is not None and (message.info or {}).get("rewound"):  # came after it
            pane.show(pane.detail, self._detail_context(pane.detail, pane.context.annotations))

    def on_timeline_screen_index_loaded(self, message: IndexLoaded) -> None:
        """Called when the index arrived: show it, keeping the cursor where it was."""
        if message.index.filter != self.filter:
            return  # a newer filter is on its way
        self.index_seconds = message.seconds
        view = self.query_one(TimelineView)
        view.set_index(message.index, ordinal=message.ordinal, key=message.key,
                       prefetched=message.prefetched)
        if self._pending_jump is not None:
            ordinal, self._pending_jump = self._pending_jump, None
            self.jump(ordinal)
        if not self._graph_requested:
            self._graph_requested = True  # after the first rows: the graph may rebuild
            self.app.request_graph(self.scope)  # type: ignore[attr-defined]
        if len(message.index) == 0:
            self._detail_pending = None
            bad = self.filter.unknown()  # `kind:prose` matched nothing, silently
            self.query_one(DetailPane).clear("no step matches the filter"
                                             + (f"\n{bad}" if bad else ""))
        self._show_status()

    def _rows(self, index: TimelineIndex, start: int, stop: int
              ) -> dict[Key, TimelineRow]:
        """The view's loader (runs in its worker thread)."""
        with self.app.lease.read() as store:  # type: ignore[attr-defined]
            return views.timeline_rows(store, index, start, stop)

    @property
    def scope(self) -> str:
        return self.app.scope_for(self.session_id)  # type: ignore[attr-defined]

    # --------------------------------------------------------------- detail
    @on(TimelineView.Highlighted)
    def _highlighted(self, message: TimelineView.Highlighted) -> None:
        self._show_status()
        if self._detail_timer is not None:
            self._detail_timer.stop()
        key = message.key
        self._detail_pending = key
        self._detail_timer = self.set_timer(DETAIL_DELAY, lambda: self._load_detail(key))

    @on(TimelineView.Selected)
    def _selected(self, message: TimelineView.Selected) -> None:
        self.query_one(DetailPane).focus()

    @work(thread=True, exclusive=True, group="detail", exit_on_error=False,
          description="load step detail")
    def _load_detail(self, key: Key) -> None:
        from kb.graph import store as gs
        from kb.replay.run import step_history

        with self.app.lease.read() as store:  # type: ignore[attr-defined]
            detail = views.step_detail(store, self.session_id, *key)
            if get_current_worker().is_cancelled:
                return
            detail.replays = [r for r in step_history(store, self.session_id, key[0])
                              if r["seq"] == key[1]]
            notes = [a for a in gs.annotations(store, self.session_id) if a["ordinal"] == key[0]]
        if not get_current_worker().is_cancelled:
            self.post_message(self.DetailLoaded(key, detail, notes))

    def on_timeline_screen_detail_loaded(self, message: DetailLoaded) -> None:
        """Called when a step's detail arrived: show it with what the graph says of it."""
        view = self.query_one(TimelineView)
        if view.current_key != message.key:
            return
        if self._detail_pending == message.key:
            self._detail_pending = None
        self.query_one(DetailPane).show(message.detail, self._detail_context(message.detail,
                                                                      message.annotations))

    def _detail_context(self, d: views.StepDetail, annotations: list[dict[str, Any]]
                 ) -> DetailContext:
        ctx = DetailContext(annotations=annotations,
                            rewound=((self.info or {}).get("rewound") or {}).get(d.ordinal))
        titles = {r["session_id"]: r.get("title") for r in self.app.sessions}  # type: ignore
        for e in d.focus if d.src == views.ROW_CALL else d.events:
            if e.child_session_id and all(c["session_id"] != e.child_session_id
                                          for c in ctx.children):
                ctx.children.append({"session_id": e.child_session_id,
                                     "title": titles.get(e.child_session_id) or e.text})
        if self.graph is not None:
            ctx.approaches = views.approaches_at(self.graph, self.session_id, d.ordinal)
            ctx.during = views.approaches_during(self.graph, self.session_id, d.ordinal)
            ctx.questions = [q for q in self.graph.untested
                             if q["session_id"] == self.session_id
                             and q["ordinal"] == d.ordinal]
        return ctx

    def graph_ready(self, scope: str, view: views.GraphView) -> None:
        """Called by the app when the scope's graph was read: marks and approaches."""
        if scope != self.scope:
            return
        self.graph = view
        marks = {o: m for (sid, o), m in views.marks(view).items() if sid == self.session_id}
        self.query_one(TimelineView).set_marks(marks)
        pane = self.query_one(DetailPane)
        if pane.detail is not None:
            pane.show(pane.detail, self._detail_context(pane.detail, pane.context.annotations))

    # --------------------------------------------------------------- status
    def _show_title(self) -> None:
        """The title bar: the session's title, then its size, tokens, cost and dates.

        The figures come first when the width is short: the title is cut (it is in the
        session list in full), then the dates lose their year, then they go."""
        if self.info is None:
            return
        i = self.info
        width = max(20, (self.size.width or self.app.size.width) - 2)  # the bar's padding
        lead = Text()
        if i.get("parent_id"):
            lead.append(f"↳ subagent of {i['parent_id']} (message {i.get('spawned_at')})  ",
                        style="#7aa2f7")
        if i.get("source_form") == "rewrite":  # read, but not what the agent wrote
            lead.append(f"[rewrite of a {i.get('agent') or 'unknown'} session]  ",
                        style="#ffcb6b")
        u = i.get("usage") or {}
        cost = views.usage_cost_text(u)
        money = ([f"{views.usage_tokens_text(u)} tokens",
                  "cost unknown" if cost == "unknown" else cost]
                 if u.get("tokens_total") else [])
        start, end = when(i["time_created"]), when(i["last_activity"])
        n, c = i["messages"], i["commands"]

        def count(k: int, one: str) -> str:
            return f"{k} {one if k == 1 else one + 's'}"

        title = " ".join((i["title"] or "(untitled)").split())
        choices = [
            [count(n, "message"), count(c, "command"), *money, f"{start} → {end}"],
            [count(n, "msg"), count(c, "cmd"), *money, f"{start[5:]} → {end[5:]}"],
            [count(n, "msg"), count(c, "cmd"), *money],
            [count(n, "msg"), *money]]
        for parts in choices:
            facts = "  ·  " + " · ".join(p for p in parts if p.strip(" →"))
            room = width - lead.cell_len - cell_len(facts)
            if room >= min(24, cell_len(title)):
                break
        t = lead
        t.append(short(title, max(8, room)), style="bold")
        t.append(facts, style=DIM)
        self.query_one("#session-title", Static).update(t)

    def on_resize(self) -> None:
        """Called when the terminal changed size: the title bar fits it again."""
        self._show_title()

    def _show_status(self) -> None:
        view = self.query_one(TimelineView)
        ix = view.index
        t = Text()
        if ix is None:
            t.append("reading…", style=DIM)
        else:
            key = view.current_key
            if key is not None:
                t.append(f"message {key[0]}", style="bold")
                t.append(f" of {ix.max_ordinal} · row {view.cursor + 1}/{len(ix)}", style=DIM)
            else:
                t.append("no rows", style=DIM)
            fails = len(ix.positions(views.FAILURE))
            t.append(f" · {fails} failed", style=FAIL if fails else DIM)
            if not ix.filter.is_empty:
                t.append(f" · filter: {ix.filter.describe()}", style="bold #ffd166")
            if view.range_start is not None and key is not None:
                a = ix.key(view.range_start)[0]
                lo, hi = sorted((a, key[0]))
                t.append(f" · range {lo}–{hi} (r replays it)", style="bold #c792ea")
        self.query_one("#timeline-status", Static).update(t)

    # --------------------------------------------------------------- filter
    def _fill_selects(self) -> None:
        f = self.facets
        if f is None or not self.query_one(FilterBar).built:
            return
        self._setting_selects = True
        try:
            for sel_id, values in (("#filter-kind", f.kinds), ("#filter-category", f.categories),
                                   ("#filter-host", f.hosts), ("#filter-status", f.statuses)):
                sel = self.query_one(sel_id, Select)
                sel.set_options([(f"{v} ({n})", v) for v, n in values])
        finally:
            self._setting_selects = False

    @on(Input.Changed, "#search")
    def _search_changed(self, event: Input.Changed) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_pending = True
        self._search_timer = self.set_timer(SEARCH_DELAY, self._apply_filter)

    @on(Input.Submitted, "#search")
    def _search_submitted(self, event: Input.Submitted) -> None:
        if self._search_timer is not None:
            self._search_timer.stop()
        self._apply_filter()
        self.query_one(TimelineView).focus()

    @on(Select.Changed)
    def _select_changed(self, event: Select.Changed) -> None:
        if not self._setting_selects:
            self._apply_filter()

    def _current_filter(self) -> TimelineFilter:
        if not self.query_one(FilterBar).built:
            return self.filter

        def sel(sel_id: str) -> tuple[str, ...]:
            box = self.query_one(sel_id, Select)
            return () if box.is_blank() else (str(box.value),)

        base = TimelineFilter(kinds=sel("#filter-kind"), categories=sel("#filter-category"),
                              hosts=sel("#filter-host"), statuses=sel("#filter-status"))
        return TimelineFilter.parse(self.query_one("#search", Input).value, base)

    def _apply_filter(self) -> None:
        self._search_pending = False
        self.set_filter(self._current_filter())

    def set_filter(self, f: TimelineFilter) -> None:
        """Show only the rows ``f`` selects (keeps the selected step when it still shows)."""
        if f == self.filter:
            return
        self.filter = f
        view = self.query_one(TimelineView)
        self._load_index(f, None, view.current_key)

    def clear_filter(self) -> None:
        if self.query_one(FilterBar).built:
            self._setting_selects = True
            try:
                for sel_id in SELECTS:
                    self.query_one(sel_id, Select).clear()
            finally:
                self._setting_selects = False
            self.query_one("#search", Input).value = ""
        if self._search_timer is not None:
            self._search_timer.stop()
        self._search_pending = False
        self.set_filter(TimelineFilter())

    # -------------------------------------------------------------- actions
    def jump(self, ordinal: int) -> None:
        """Put the cursor on message ``ordinal`` (its first row, or the next one shown)."""
        view = self.query_one(TimelineView)
        ix = view.index
        if ix is None:  # the index is on its way: go there when it comes
            self._pending_jump = ordinal
            return
        if not ix.contains(ordinal):
            if ordinal > ix.max_ordinal:  # "showing the next one" showed the last
                self.notify(f"message {ordinal} is past the end (the last is "
                            f"{ix.max_ordinal}); showing the last step", timeout=3)
            elif ix.filter.is_empty:
                self.notify(f"message {ordinal} has no step; showing the next one",
                            timeout=3)
            else:
                self.notify(f"message {ordinal} is hidden by the filter; showing the "
                            "nearest step", timeout=3)
        view.move_to(ix.position_of(ordinal), center=True)
        view.focus()

    def action_jump(self) -> None:
        box = self.query_one("#jump", Input)
        box.value = ""
        self.add_class("-jumping")
        box.focus()

    @on(Input.Submitted, "#jump")
    def _jump_submitted(self, event: Input.Submitted) -> None:
        self.remove_class("-jumping")
        value = event.value.strip()
        if value.lstrip("-").isdigit():
            self.jump(int(value))
        self.query_one(TimelineView).focus()

    async def _open_filter_bar(self) -> None:
        pending = self.query_one(FilterBar).build()
        if pending is not None:
            await pending
            self._fill_selects()
            if not self.filter.is_empty:  # set by the palette, say: show it in the box
                self.query_one("#search", Input).value = self.filter.describe()
        self.add_class("-filtering")

    async def action_search(self) -> None:
        await self._open_filter_bar()
        self.query_one("#search", Input).focus()

    async def action_filters(self) -> None:
        bar = self.query_one(FilterBar)
        if (self.has_class("-filtering") and bar.built
                and not self.query_one("#search", Input).has_focus):
            self.remove_class("-filtering")
            self.query_one(TimelineView).focus()
            return
        await self._open_filter_bar()
        self.query_one("#filter-kind", Select).focus()

    def action_next(self, direction: int, what: str) -> None:
        view = self.query_one(TimelineView)
        ix = view.index
        if ix is None:
            return
        flag = views.FAILURE if what == "failure" else views.DECISION
        pos = ix.next_with(view.cursor, flag, forward=direction > 0)
        if pos is None:
            self.notify(f"no {'later' if direction > 0 else 'earlier'} {what}", timeout=2)
            return
        view.move_to(pos, center=True)

    def action_range(self) -> None:
        view = self.query_one(TimelineView)
        view.range_start = None if view.range_start is not None else view.cursor
        view.refresh()
        self._show_status()

    def _range(self) -> tuple[int, int | None]:
        view = self.query_one(TimelineView)
        key = view.current_key
        assert key is not None and view.index is not None
        if view.range_start is None:
            return key[0], None
        a = view.index.key(view.range_start)[0]
        lo, hi = sorted((a, key[0]))
        return lo, hi

    def action_graph(self) -> None:
        from tui.screens.graph import GraphScreen

        key = self.query_one(TimelineView).current_key
        title = (self.info or {}).get("title") if self.scope == self.session_id else None
        self.app.push_screen(GraphScreen(self.scope, session_id=self.session_id,
                                         ordinal=key[0] if key else None, title=title))

    def action_replay(self) -> None:
        from tui.screens.replay import ReplayScreen

        if self.app.refused_write("replay"):  # type: ignore[attr-defined]
            return
        if self.query_one(TimelineView).current_key is None:
            return
        start, end = self._range()
        self.app.push_screen(ReplayScreen(self.session_id, start, end))

    def action_subagent(self) -> None:
        pane = self.query_one(DetailPane)
        if pane.context.children:
            self.post_message(JumpRequested(pane.context.children[0]["session_id"]))
        else:
            self.notify("this step spawned no subagent", timeout=2)

    def action_open_session(self, session_id: str) -> None:
        """Open another session's timeline (the subagent links in the detail)."""
        self.post_message(JumpRequested(session_id))

    def action_full_output(self) -> None:
        self.query_one(DetailPane).toggle_full()

    # ---------------------------------------------------- copy, pager, editor
    def _selected_parts(self) -> tuple[str | None, str | None, str | None]:
        """The selected step's command (or prose), output, and the file it touched."""
        pane = self.query_one(DetailPane)
        d = pane.detail
        if d is None:
            return None, None, None
        cmd = next((e for e in d.focus if e.kind == "command"), None)
        res = next((e for e in d.focus if e.kind == "result"), None)
        prose = next((e for e in d.focus if e.kind in ("prompt", "decision")), None)
        command = (cmd.command or cmd.text) if cmd is not None else (
            prose.text if prose is not None else None)
        output = res.output if res is not None else (
            prose.text if prose is not None else None)
        path = None
        if cmd is not None and isinstance(cmd.input, dict):
            path = cmd.input.get("filePath") or cmd.input.get("path")
        return command, output, path

    def action_copy(self, what: str) -> None:
        """``y``: copy the selected command (or prose); ``Y``: its output (OSC 52)."""
        command, output, _ = self._selected_parts()
        text = command if what == "command" else output
        if not text:
            self.notify(f"this step has no {what} to copy", timeout=2)
            return
        self.app.copy_to_clipboard(text)
        self.last_copied = text
        lines = text.count("\n") + 1
        self.notify(f"copied the {what} ({lines} line{'s' if lines != 1 else ''})", timeout=2)

    def action_pager(self) -> None:
        """``p``: the selected step's whole output in ``$PAGER`` (``less -R`` by default)."""
        import os
        import shlex

        _, output, _ = self._selected_parts()
        if not output:
            self.notify("this step has no output", timeout=2)
            return
        cmd = shlex.split(os.environ.get("PAGER") or "less -R")
        self._run_outside(cmd, stdin=output)

    def action_editor(self) -> None:
        """``e``: the file the selected call read or edited (else the transcript) in
        ``$EDITOR``."""
        import os
        import shlex
        from pathlib import Path

        _, _, path = self._selected_parts()
        info = self.info or {}
        if path:
            p = Path(path)
            if not p.is_absolute() and info.get("directory"):
                p = Path(info["directory"]) / p
        elif info.get("source_path"):
            p = Path(info["source_path"])
        else:
            self.notify("no file to open for this step", timeout=2)
            return
        if not p.exists():
            self.notify(f"{p} is not on this machine", severity="warning", timeout=3)
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        self._run_outside([*shlex.split(editor), str(p)])

    def _run_outside(self, cmd: list[str], stdin: str | None = None) -> None:
        """Run a terminal program (pager, editor) with the TUI suspended."""
        import subprocess

        from textual.app import SuspendNotSupported

        try:
            with self.app.suspend():
                subprocess.run(cmd, input=stdin.encode() if stdin is not None else None,
                               check=False)
        except SuspendNotSupported:
            self.notify("this terminal cannot suspend the TUI", severity="warning")
        except OSError as e:
            self.notify(f"{cmd[0]}: {e}", severity="error")

    def action_zoom(self) -> None:
        self.toggle_class("-zoom")

    def action_switch_pane(self) -> None:
        view, pane = self.query_one(TimelineView), self.query_one(DetailPane)
        (pane if view.has_focus else view).focus()

    def action_back(self) -> None:
        if self.has_class("-jumping"):
            self.remove_class("-jumping")
            self.query_one(TimelineView).focus()
        elif self.has_class("-filtering"):
            self.remove_class("-filtering")
            self.query_one(TimelineView).focus()
        elif not self.filter.is_empty:
            self.clear_filter()
        elif self.query_one(TimelineView).range_start is not None:
            self.action_range()
        elif self.has_class("-zoom"):
            self.remove_class("-zoom")
        elif any(isinstance(s, TimelineScreen) for s in self.app.screen_stack[:-1]):
            self.app.pop_screen()  # back to where we came from (a session, the graph)
        else:
            self.app.show_sessions()  # type: ignore[attr-defined]

    # ---------------------------------------------------------- annotations
    def action_annotate(self, kind: str) -> None:
        if self.app.refused_write("annotate"):  # type: ignore[attr-defined]
            return
        key = self.query_one(TimelineView).current_key
        if key is None:
            return
        ordinal = key[0]
        if kind == "confirmed":
            self._annotate(ordinal, kind, None)
            return
        question = {"dead_end": f"Message {ordinal}: why is this approach a dead end?",
                    "note": f"Note on message {ordinal}:"}[kind]

        def done(value: str | None) -> None:
            if value:
                self._annotate(ordinal, kind, value)

        self.app.push_screen(TextPrompt(question), done)

    def action_unannotate(self) -> None:
        if self.app.refused_write("annotate"):  # type: ignore[attr-defined]
            return
        key = self.query_one(TimelineView).current_key
        if key is None:
            return
        ordinal = key[0]

        def done(yes: bool | None) -> None:
            if yes:
                self._unannotate(ordinal)

        self.app.push_screen(ConfirmPrompt(f"Remove every annotation of message {ordinal}?"),
                             done)

    @work(thread=True, exclusive=True, group="annotate", exit_on_error=False)
    def _annotate(self, ordinal: int, kind: str, value: str | None) -> None:
        from kb.graph import store as gs

        with self.app.lease.write() as store:  # type: ignore[attr-defined]
            gs.annotate(store, self.session_id, ordinal, kind, value)
            gs.rebuild(store, gs.scope_of(store, self.session_id))
        self.app._own_write()  # type: ignore[attr-defined]  # not news from elsewhere
        self.post_message(AnnotationSaved(self.session_id, ordinal, kind))

    @work(thread=True, exclusive=True, group="annotate", exit_on_error=False)
    def _unannotate(self, ordinal: int) -> None:
        from kb.graph import store as gs

        with self.app.lease.write() as store:  # type: ignore[attr-defined]
            n = gs.unannotate(store, self.session_id, ordinal)
            gs.rebuild(store, gs.scope_of(store, self.session_id))
        self.app._own_write()  # type: ignore[attr-defined]  # not news from elsewhere
        self.post_message(AnnotationSaved(self.session_id, ordinal, "remove", removed=n))

    def on_annotation_saved(self, message: AnnotationSaved) -> None:
        """Called when an annotation was written: re-read the graph and the step."""
        if message.kind == "remove":
            many = "annotation" if message.removed == 1 else "annotations"
            self.notify(f"removed {message.removed} {many} of message {message.ordinal}",
                        timeout=3)
        else:
            self.notify(f"message {message.ordinal} marked {message.kind.replace('_', ' ')}",
                        timeout=3)
        self.app.request_graph(self.scope, force=True)  # type: ignore[attr-defined]
        key = self.query_one(TimelineView).current_key
        if key is not None:
            self._load_detail(key)
