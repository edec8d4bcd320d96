"""The sessions screen: every session, subagents nested under their parents."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.coordinate import Coordinate
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from kb import views
from kb.safe_text import visible_deep
from kb.sessionref import agent_name, short_ids
from tui.format import DIM, FAIL, short, when
from tui.messages import JumpRequested, SessionsLoaded

UNCOUNTED = "–"
"""The dead-end count of a session whose knowledge graph is not built yet (opening the
session builds it; ``logkb deadends --all`` builds every one)."""


def tree_order(rows: list[dict[str, Any]]) -> list[tuple[dict[str, Any], int]]:
    """Sessions in display order with their depth: parents, each followed by its children."""
    ids = {r["session_id"] for r in rows}
    children: dict[str | None, list[dict[str, Any]]] = {}
    for r in rows:
        parent = r["parent_id"] if r["parent_id"] in ids else None
        children.setdefault(parent, []).append(r)
    out: list[tuple[dict[str, Any], int]] = []

    def add(r: dict[str, Any], depth: int) -> None:
        out.append((r, depth))
        for c in sorted(children.get(r["session_id"], []),
                        key=lambda c: (c.get("spawned_at") or 0, c["session_id"])):
            if depth < 32:
                add(c, depth + 1)

    for r in children.get(None, []):
        add(r, 0)
    return out


NUMBERS = ("msgs", "cmds", "fail", "dead", "tokens", "cost")
"""The sessions table's columns of numbers (right-aligned)."""

class SessionsScreen(Screen[None]):
    """Every session in the knowledge base; enter opens its timeline."""

    HELP = ("Every ingested session, newest activity first; subagent sessions sit under "
            "the session that spawned them.  Type to filter (title, id, agent, "
            "directory); enter opens the timeline.")
    BINDINGS = [
        Binding("slash", "focus_filter", "Filter", key_display="/"),
        Binding("enter", "open", "Open", show=True, priority=False),
        Binding("escape", "clear_filter", "Clear filter", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[dict[str, Any]] = []
        self.counts: dict[str, dict[str, int | None]] = {}
        self.usage: dict[str, dict[str, Any]] = {}
        self.current: str | None = None
        self.narrow = False
        self.title_width = 42
        self.columns: list[str] = []

    def compose(self) -> ComposeResult:
        yield Header()
        yield Input(placeholder="filter sessions: title, id, agent or directory…", id="session-filter")
        yield DataTable(id="sessions", cursor_type="row", zebra_stripes=True)
        yield Static("", id="sessions-status", classes="status")
        yield Footer()

    def on_mount(self) -> None:
        """Called when the screen is shown first: set up the table and read the sessions."""
        self.sub_title = "sessions"
        table = self.query_one(DataTable)
        # fit the terminal: below 120 columns the id column goes (the timeline's title
        # bar shows it) and times lose their year; the title takes what is left
        width = self.app.size.width
        self.narrow = width < 120
        fixed = [("agent", "agent", 11), ("msgs", "msgs", 5), ("cmds", "cmds", 5),
                 ("fail", "fail", 4), ("dead", "dead", 4), ("tokens", "tokens", 6),
                 ("cost", "cost", 8),
                 ("last activity" if not self.narrow else "last", "last",
                  16 if not self.narrow else 11)]
        if self.narrow:  # the CLI's `logkb sessions` has them; the agent matters more
            fixed = [f for f in fixed if f[1] not in ("cmds", "cost")]
        self.columns = ["title", *(key for _, key, _ in fixed)]
        used = sum(w for _, _, w in fixed) + 2 * (len(fixed) + 1) + 2
        self.title_width = 42 if not self.narrow else max(18, width - used)
        for label, key, w in (("session", "title", self.title_width), *fixed):
            # counts right-aligned, header and all, as `logkb sessions` prints them
            table.add_column(Text(label, justify="right") if key in NUMBERS else label,
                             key=key, width=w)
        if not self.narrow:
            self.columns.append("id")
            table.add_column("id", key="id", width=None)
        table.focus()
        self.reload()

    def reload(self) -> None:
        self.query_one("#sessions-status", Static).update(Text("reading sessions…", style=DIM))
        self._load()

    @work(thread=True, exclusive=True, group="sessions", exit_on_error=False)
    def _load(self) -> None:
        with self.app.lease.read() as store:  # type: ignore[attr-defined]
            rows = store.sessions()
            counts = views.session_counts(store)
            usage = views.session_usage(store)
            current = store.current_session()
        self.post_message(SessionsLoaded(visible_deep(rows), counts, usage, current))

    def on_sessions_loaded(self, message: SessionsLoaded) -> None:
        """Called when the session list arrived: fill the table (the app keeps a copy too)."""
        self.rows, self.counts = message.rows, message.counts
        self.usage, self.current = message.usage, message.current
        self._fill()

    @on(Input.Changed, "#session-filter")
    def _filter_changed(self, event: Input.Changed) -> None:
        self._fill()

    @on(Input.Submitted, "#session-filter")
    def _filter_submitted(self, event: Input.Submitted) -> None:
        self.query_one(DataTable).focus()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        needle = self.query_one("#session-filter", Input).value.strip().lower()
        keep = table.cursor_row
        old_key = None
        if table.row_count and 0 <= keep < table.row_count:
            old_key = table.coordinate_to_cell_key(Coordinate(keep, 0)).row_key.value
        table.clear()
        shown = 0
        shorts = short_ids(r["session_id"] for r in self.rows)
        for r, depth in tree_order(self.rows):
            # what the row shows is what a filter finds: the agent column too ("codex")
            hay = " ".join([*(str(r.get(k) or "") for k in ("title", "session_id",
                                                           "directory")),
                            agent_name(r.get("agent"))])
            if needle and needle not in hay.lower():
                continue
            shown += 1
            c = self.counts.get(r["session_id"], {})
            prefix = "  " * depth + ("└ " if depth else "")
            if r["session_id"] == self.current:
                prefix = "▶ " + prefix
            title = Text(prefix, style="bold #7ee787" if r["session_id"] == self.current
                         else DIM)
            # narrow: no id column, so its "*" (an incomplete source) follows the title
            star = " *" if self.narrow and not r["complete"] else ""
            if r.get("source_form") == "rewrite":  # not the agent's own output: said
                star = " [rewrite]" + star
            title.append(short(r["title"] or "(untitled)", self.title_width - len(prefix)
                               - len(star)
                               - (len(f" ←{r['spawned_at']}") if r.get("spawned_at") else 0)),
                         style="bold" if depth == 0 else "")
            if star:
                title.append(star, style=DIM)
            if r.get("spawned_at"):
                title.append(f" ←{r['spawned_at']}", style=DIM)
            dead = c.get("dead_ends")
            fail = c.get("failures") or 0
            u = self.usage.get(r["session_id"], {})
            tokens = views.usage_tokens_text(u)
            last = when(r["last_activity"] or r["time_updated"])
            by_key = {
                "title": title, "agent": Text(agent_name(r.get("agent")), style=DIM),
                "msgs": Text(str(r["messages"])), "cmds": Text(str(r["commands"])),
                "fail": Text(str(fail), style=FAIL if fail else DIM),
                "dead": Text(UNCOUNTED if dead is None else str(dead),
                             style=FAIL if dead else DIM),
                "tokens": Text(tokens, style=DIM),
                "cost": Text(views.usage_cost_text(u), style=DIM),
                "last": Text(last[5:] if self.narrow else last),
                "id": Text(shorts.get(r["session_id"], r["session_id"])
                           + ("" if r["complete"] else " *"), style=DIM)}
            for k in NUMBERS:
                by_key[k].justify = "right"
            table.add_row(*(by_key[k] for k in self.columns), key=r["session_id"])
        if old_key is not None:
            try:
                table.move_cursor(row=table.get_row_index(old_key))
            except Exception:  # noqa: BLE001 - the row was filtered away
                pass
        self.query_one("#sessions-status", Static).update(Text(
            self._status(shown, needle), style=DIM, no_wrap=True, overflow="ellipsis"))

    def _status(self, shown: int, needle: str) -> str:
        """The line under the table: the count, and what the marks on screen mean (only
        the marks some row shows), as long as the width allows."""
        total = len(self.rows)
        parts = [f"{shown} of {total} sessions" if needle else f"{total} sessions",
                 "enter opens"]
        marks = []
        if any(r["session_id"] == self.current for r in self.rows):
            marks.append(("▶ current (logkb use)", "▶ current"))
        if any(self.counts.get(r["session_id"], {}).get("dead_ends") is None
               for r in self.rows):
            marks.append((f"dead {UNCOUNTED}: not counted until opened",
                           f"{UNCOUNTED} not counted yet"))
        if any(not r["complete"] for r in self.rows):
            marks.append(("* the source cannot show every message", "* partial source"))
        if any(r.get("source_form") == "rewrite" for r in self.rows):
            marks.append(("[rewrite] not the agent's own output", "[rewrite] not its own"))
        width = max(20, self.app.size.width - 2)
        for form in (0, 1):
            line = " · ".join(parts + [m[form] for m in marks])
            if len(line) <= width:
                break
        return line

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """Called when a session row is chosen (enter or click): open its timeline."""
        if event.row_key.value is not None:
            self.post_message(JumpRequested(str(event.row_key.value)))

    def action_open(self) -> None:
        table = self.query_one(DataTable)
        if table.row_count:
            key = table.coordinate_to_cell_key(Coordinate(table.cursor_row, 0)).row_key.value
            if key is not None:
                self.post_message(JumpRequested(str(key)))

    def action_focus_filter(self) -> None:
        self.query_one("#session-filter", Input).focus()

    def action_clear_filter(self) -> None:
        inp = self.query_one("#session-filter", Input)
        inp.value = ""
        self.query_one(DataTable).focus()
