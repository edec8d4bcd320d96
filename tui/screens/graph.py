"""The graph screen: approaches by status, with causes, evidence, pivots and throughput."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from rich.style import Style
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, Header, Static, Tree
from textual.widgets.tree import TreeNode

from kb import views
from kb.render import repeats
from kb.safe_text import visible
from tui.format import DIM, FAIL, STATUS_MARK, STATUS_STYLE, header_id, short
from tui.messages import JumpRequested

GROUPS = (("open", "▶ Open"), ("confirmed", "✔ Confirmed"), ("dead_end", "✘ Dead ends"),
          ("blocked", "⊘ Blocked"), ("superseded", "↷ Superseded"))
"""Approach statuses in the order the tree shows them."""
EXPANDED = ("dead_end", "blocked")
"""Groups whose approaches start expanded (the interesting ones)."""


class FitTree(Tree[dict[str, Any]]):
    """A tree whose labels end in "…" at the pane's width: a long label never scrolls
    the tree sideways (at 80 columns its horizontal scrollbar showed as a stray "▌").
    Cut between clusters (:func:`kb.render.clip`), never inside a ``[redacted:…]``."""

    def render_label(self, node: TreeNode[dict[str, Any]], base_style: Style,
                     style: Style) -> Text:
        from kb.render import clip

        text = super().render_label(node, base_style, style)
        room = self.scrollable_content_region.width
        if room <= 0:
            return text
        depth, up = 0, node.parent
        while up is not None:
            depth, up = depth + 1, up.parent
        # the guides before a label: Textual's _TreeLine._get_guide_width
        guides = (depth if self.show_root else max(0, depth - 1)) * self.guide_depth
        avail = max(1, room - guides)
        return text if text.cell_len <= avail else clip(text, avail)


def _approach_label(a: dict[str, Any], pivot_from: int = 0) -> Text:
    status = a.get("status") or "open"
    t = Text()
    t.append(f"{STATUS_MARK.get(status, '·')} ", style=STATUS_STYLE.get(status, ""))
    t.append(a.get("label") or "?", style="bold")
    ended = a.get("ended")
    span = f"  {a['ordinal']}" + ("…" if ended is None else
                                  "" if ended == a["ordinal"] else f"–{ended}")
    t.append(span, style=DIM)
    if a.get("kind") and a["kind"] != "approach":
        t.append(f"  [{a['kind']}]", style=DIM)
    if pivot_from:
        t.append(f"  ⤳ from {pivot_from} dead end{'s' if pivot_from > 1 else ''}",
                 style="bold #ffd166")
    if a.get("revisit"):
        t.append("  ↺ revisit", style="bold #82aaff")
    return t


def _evidence_label(e: dict[str, Any]) -> Text:
    role = e["role"]
    style = {"ended": FAIL, "tested": "#82aaff", "confirmed": "#7ee787",
             "proposed": "bold", "research": "#7aa2f7"}.get(role, DIM)
    t = Text()
    t.append(f"{e['ordinal']:>6} ", style="bold")
    t.append(f"{role:<9}", style=style)
    if e.get("note"):
        t.append(" " + short(e["note"], 90), style=FAIL if role in ("ended", "tested") and (
            "Error" in e["note"] or "failed" in e["note"] or "DEAD" in e["note"]) else "")
    return t


class GraphScreen(Screen[None]):
    """The knowledge graph of a campaign (a session with its subagents)."""

    HELP = ("Approaches grouped by status; dead ends and blocked approaches under their "
            "causes, each with its evidence (the messages that proposed, tested and ended "
            "it).  The pivot shows which dead ends led to which new approach.  Enter on "
            "evidence, a question or a decision jumps to that message in the timeline; on "
            "an approach it opens or closes it.  The chart is the campaign's throughput "
            "over messages.")
    BINDINGS = [
        Binding("enter", "select", "Open / jump", show=False),
        Binding("e", "expand_all", "Expand all"),
        Binding("t", "chart_span", "Chart span"),
        Binding("escape", "back", "Back"),
    ]

    @dataclass
    class StoryLoaded(Message):
        """The story of an approach was read."""

        node_id: str
        text: str

    def __init__(self, scope: str, *, session_id: str | None = None,
                 ordinal: int | None = None, title: str | None = None) -> None:
        super().__init__()
        self.scope = scope
        self.campaign_title = title
        """The campaign's title (else looked up in the app's session list)."""
        self.session_id = session_id or scope
        self.ordinal = ordinal
        self.view: views.GraphView | None = None
        self.chart_all = False
        """Chart the whole session (``t``) rather than where approaches were tracked."""
        self._approach_nodes: dict[str, TreeNode[dict[str, Any]]] = {}

    def compose(self) -> ComposeResult:
        from tui.widgets.throughput import ThroughputChart

        yield Header()
        with Horizontal(id="graph-main"):
            yield FitTree("knowledge graph", id="graph-tree")
            with VerticalScroll(id="story-pane"):
                yield Static(Text("select an approach", style=DIM), id="story")
        yield ThroughputChart(id="chart")
        yield Static("", id="graph-status", classes="status")
        yield Footer()

    def on_mount(self) -> None:
        """Called when the screen opens: ask the app for the graph (cached or read)."""
        self.sub_title = visible(f"graph · {header_id(self.scope, self.app.short_names)}")  # type: ignore[attr-defined]
        tree = self.query_one(Tree)
        tree.show_root = True
        tree.guide_depth = 3
        tree.focus()
        self.query_one("#graph-status", Static).update(Text("reading the graph…", style=DIM))
        self.app.request_graph(self.scope)  # type: ignore[attr-defined]

    def reload(self) -> None:
        self.app.request_graph(self.scope, force=True)  # type: ignore[attr-defined]

    def graph_ready(self, scope: str, view: views.GraphView) -> None:
        """Called by the app with the scope's graph: build the tree and the chart."""
        if scope != self.scope or view is self.view:
            return  # (the same graph again: keep the tree and the cursor where they are)
        self.view = view
        self._build_tree(view)
        self._plot(view)
        self._status_line()

    def _status_line(self) -> None:
        """The counts under the tree, in the longest wording that fits the width (again
        after a resize: the line fitted to 80 columns was cut at 60)."""
        view = self.view
        if view is None:
            return
        n_app = sum(1 for a in view.approaches if a.get("kind") == "approach")
        dead = sum(1 for a in view.approaches if a["status"] in ("dead_end", "blocked"))
        n_piv = len({(p["ordinal"], p["dst"]) for p in view.pivots})
        untested = len([q for q in _once(view.untested) if q['status'] == 'open'])
        pivots = f"{n_piv} pivot{'s' if n_piv != 1 else ''}"
        never = "" if view.built else " · the graph was never built (run logkb graph)"
        room = max(20, self.app.size.width - 2)

        def n(count: int, word: str, many: str) -> str:  # "1 point", "2 points"
            return f"{count} {word if count == 1 else many}"

        apps = n(n_app, "approach", "approaches")
        points = n(len(view.throughput), "point", "points")
        ends = n(dead, "dead end", "dead ends")  # "1 dead ends/blocked" read wrong
        for line in (f"{apps} · {ends} or blocked · {pivots} · "
                     f"{untested} untested · {len(view.throughput)} throughput "
                     f"{'point' if len(view.throughput) == 1 else 'points'}{never}",
                     f"{apps} · {ends}/blocked · {pivots} · "
                     f"{untested} untested · {points}{never}",
                     f"{apps} · {ends} · {pivots} · {untested} "
                     f"untested{' · not built' if never else ''}"):
            if len(line) <= room:
                break
        self.query_one("#graph-status", Static).update(Text(
            line, style=DIM, no_wrap=True, overflow="ellipsis"))

    # ----------------------------------------------------------------- tree
    def _build_tree(self, view: views.GraphView) -> None:
        tree = self.query_one(Tree)
        tree.clear()
        self._approach_nodes.clear()
        title = self.campaign_title or next((r.get("title") for r in self.app.sessions  # type: ignore
                                    if r["session_id"] == self.scope), None)
        tree.root.set_label(Text(short(title or self.scope, 90), style="bold"))
        tree.root.data = {"kind": "root"}
        by_id = {a["node_id"]: a for a in view.approaches}
        # pivots: one per (ordinal, destination), listing the approaches left behind
        pivots: dict[tuple[int, str], list[dict[str, Any]]] = defaultdict(list)
        for p in view.pivots:
            pivots[(p["ordinal"], p["dst"])].append(p)
        pivot_from = {dst: len(ps) for (_, dst), ps in pivots.items()}
        if pivots:
            group = tree.root.add(Text(f"⤳ Pivots ({len(pivots)})", style="bold #ffd166"),
                                  data={"kind": "group"}, expand=True)
            for (ordinal, dst), ps in sorted(pivots.items()):
                target = by_id.get(dst, {})
                label = Text()
                label.append(f"{ordinal:>6} ", style="bold")
                label.append(f"{len(ps)} dead end{'s' if len(ps) > 1 else ''} → ",
                             style="#ffd166")
                label.append(target.get("label") or dst, style="bold")
                node = group.add(label, data={"kind": "evidence", "session_id":
                                              ps[0]["session_id"], "ordinal": ordinal,
                                              "node_id": dst}, expand=True)
                if ps[0].get("text"):
                    node.add_leaf(Text("“" + short(ps[0]["text"], 110) + "”", style="italic"),
                                  data={"kind": "evidence", "session_id": ps[0]["session_id"],
                                        "ordinal": ordinal})
                for p in ps:
                    src = by_id.get(p["src"], {})
                    node.add_leaf(Text.assemble(("  left: ", DIM), _approach_label(src)),
                                  data={"kind": "approach", "node_id": p["src"]})
        for status, name in GROUPS:
            items = [a for a in view.approaches if (a.get("status") or "open") == status]
            if not items:
                continue
            group = tree.root.add(Text(f"{name} ({len(items)})",
                                       style=STATUS_STYLE.get(status, "bold")),
                                  data={"kind": "group"}, expand=True)
            if status in ("dead_end", "blocked", "superseded"):
                by_cause: dict[str, list[dict[str, Any]]] = defaultdict(list)
                for a in items:
                    by_cause[a.get("cause") or "cause unknown"].append(a)
                for cause, group_items in sorted(by_cause.items(), key=lambda kv: min(
                        a.get("ended") or a["ordinal"] for a in kv[1])):
                    share = f"  ({len(group_items)} share this cause)" if len(
                        group_items) > 1 else ""
                    cnode = group.add(Text.assemble(("cause: ", DIM), (cause, FAIL),
                                                    (share, DIM)),
                                      data={"kind": "cause"}, expand=True)
                    for a in group_items:
                        self._add_approach(cnode, a, pivot_from.get(a["node_id"], 0),
                                           expand=status in EXPANDED)
            else:
                for a in items:
                    self._add_approach(group, a, pivot_from.get(a["node_id"], 0), expand=False)
        questions = _once(view.untested)  # the same call left untested again: one row
        if questions:
            open_q = [q for q in questions if q["status"] == "open"]
            # the answered ones are listed too (dim, "answered at N"): "(0)" over a list
            # of one read as a count that was wrong
            answered = len(questions) - len(open_q)
            count = f"{len(open_q)} open · {answered} answered" if answered else \
                str(len(open_q))
            group = tree.root.add(Text(f"? Untested questions ({count})",
                                       style="bold #ffd166"), data={"kind": "group"},
                                  expand=True)
            for q in questions:
                label = Text()
                label.append(f"{q['ordinal']:>6} ", style="bold")
                label.append(q["question"], style="bold" if q["status"] == "open" else DIM)
                if q.get("count", 1) > 1:
                    label.append(f"  {repeats(q)}", style="#ffd166")
                label.append(f"  — {q['reason']}", style=FAIL)
                if q["status"] != "open":
                    label.append(f"  (answered at {q['answered_at']})", style="#7ee787")
                group.add_leaf(label, data={"kind": "evidence", "session_id": q["session_id"],
                                            "ordinal": q["ordinal"]})
        if view.decisions:
            group = tree.root.add(Text(f"◆ Decisions ({len(view.decisions)})",
                                       style="bold #7ee787"), data={"kind": "group"},
                                  expand=False)
            for d in view.decisions:
                label = Text()
                label.append(f"{d['ordinal']:>6} ", style="bold")
                label.append(short(d.get("label"), 110))
                group.add_leaf(label, data={"kind": "evidence", "session_id": d["session_id"],
                                            "ordinal": d["ordinal"]})
        if not tree.root.children:
            self._say_why_empty(tree, view)
        tree.root.expand()
        self._focus_current()

    def _say_why_empty(self, tree: Tree[dict[str, Any]], view: views.GraphView) -> None:
        """An empty graph says why, in the tree and beside it (a rewrite's graph showed
        its title and nothing else, and "select an approach" with nothing to select)."""
        row = next((r for r in self.app.sessions  # type: ignore[attr-defined]
                    if r["session_id"] == self.scope), None)
        if row is None:  # the session list not read yet (the app opened on a session)
            from kb.errors import KbNotFound

            try:
                with self.app.lease.read() as store:  # type: ignore[attr-defined]
                    row = store.session(self.scope)
            except KbNotFound:  # a campaign's scope is no session
                row = {}
        if row.get("source_form") == "rewrite":
            leaf = "nothing here: a rewrite is text only"
            why = (f"Nothing to show: this session is a rewrite of a "
                   f"{row.get('agent') or 'unknown'} session, not the agent's own output. "
                   "Its messages are kept as text, with no commands and no results, so no "
                   "approach, dead end or check is derived from it.")
        elif not view.built:
            leaf = "nothing here: the graph was never built"
            why = "Nothing to show: the graph was never built (run `logkb graph`)."
        else:
            leaf = "nothing here: no approach, dead end or check found"
            why = ("Nothing to show: no approach, dead end, untested check or decision was "
                   "found in this session's messages.")
        tree.root.add_leaf(Text(leaf, style=DIM), data={"kind": "note"})
        self.query_one("#story", Static).update(Text(why, style=DIM))

    def _add_approach(self, parent: TreeNode[dict[str, Any]], a: dict[str, Any],
                      pivot_from: int, expand: bool) -> None:
        node = parent.add(_approach_label(a, pivot_from),
                          data={"kind": "approach", "node_id": a["node_id"]}, expand=expand)
        self._approach_nodes[a["node_id"]] = node
        for e in a.get("evidence", []):
            node.add_leaf(_evidence_label(e), data={"kind": "evidence", **e})
        if a.get("revisit"):
            node.add_leaf(Text(f"↺ revisit: {a['revisit']}", style="#82aaff"),
                          data={"kind": "note"})
        for r in a.get("risks", []):
            node.add_leaf(Text(f"risk: {r}", style="#ff9e64"), data={"kind": "note"})

    def _focus_current(self) -> None:
        """Put the cursor on the approach the timeline's step belongs to (if any)."""
        if self.view is None or self.ordinal is None:
            return
        hits = views.approaches_at(self.view, self.session_id, self.ordinal) or [
            (a, []) for a in views.approaches_during(self.view, self.session_id, self.ordinal)]
        hits = [(a, r) for a, r in hits if a.get("kind") == "approach"] or hits
        if not hits:
            return
        node = self._approach_nodes.get(hits[-1][0]["node_id"])
        if node is not None:
            node.expand()
            self.call_after_refresh(self._show_node, node)

    def _show_node(self, node: TreeNode[dict[str, Any]]) -> None:
        """Cursor on ``node``, scrolled near the top so its evidence shows below it."""
        tree = self.query_one(Tree)
        tree.move_cursor(node)
        if node.line >= 0:
            tree.scroll_to(y=max(0, node.line - 2), animate=False, immediate=True)

    def find_node(self, predicate: Any) -> TreeNode[dict[str, Any]] | None:
        """The first tree node (depth first) whose data satisfies ``predicate``."""
        stack = [self.query_one(Tree).root]
        while stack:
            node = stack.pop(0)
            if node.data is not None and predicate(node.data):
                return node
            stack = list(node.children) + stack
        return None

    # ----------------------------------------------------------------- story
    @on(Tree.NodeHighlighted)
    def _highlighted(self, event: Tree.NodeHighlighted[dict[str, Any]]) -> None:
        data = event.node.data or {}
        node_id = data.get("node_id")
        if data.get("kind") == "evidence" and node_id is None:
            parent = event.node.parent
            node_id = (parent.data or {}).get("node_id") if parent is not None else None
        if node_id:
            self._load_story(node_id)

    @work(thread=True, exclusive=True, group="story", exit_on_error=False)
    def _load_story(self, node_id: str) -> None:
        from kb.graph import report

        with self.app.lease.read() as store:  # type: ignore[attr-defined]
            story = report.story(store, [self.scope], node_id)
        self.post_message(self.StoryLoaded(node_id, report.story_text(story)))

    def on_graph_screen_story_loaded(self, message: StoryLoaded) -> None:
        """Called when an approach's story arrived: show it beside the tree."""
        self.query_one("#story", Static).update(Text(visible(message.text)))

    # --------------------------------------------------------------- actions
    @on(Tree.NodeSelected)
    def _selected(self, event: Tree.NodeSelected[dict[str, Any]]) -> None:
        data = event.node.data or {}
        if data.get("kind") == "evidence" and data.get("ordinal") is not None:
            self.post_message(JumpRequested(data["session_id"], data["ordinal"]))
        elif data.get("kind") == "approach" and event.node.parent is not None and (
                event.node.parent.data or {}).get("kind") == "evidence":
            # "left:" lines under a pivot: go to that approach in its group
            target = self._approach_nodes.get(data["node_id"])
            if target is not None:
                target.expand()
                self.query_one(Tree).move_cursor(target)

    def action_select(self) -> None:
        self.query_one(Tree).action_select_cursor()

    def action_expand_all(self) -> None:
        self.query_one(Tree).root.expand_all()

    def action_back(self) -> None:
        self.app.pop_screen()

    # ----------------------------------------------------------------- chart
    def _plot(self, view: views.GraphView) -> None:
        from tui.widgets.throughput import ThroughputChart

        mine = [m for m in view.throughput if m["session_id"] == self.scope] or view.throughput
        tracked = [a["ordinal"] for a in view.approaches
                   if a.get("kind") != "goal" and a["session_id"] == self.scope]
        start = None
        if not self.chart_all and tracked and any(m["ordinal"] >= min(tracked) for m in mine):
            start = min(tracked)
            mine = [m for m in mine if m["ordinal"] >= start]
        pivots = [p["ordinal"] for p in view.pivots]
        ends = [a["ended"] for a in view.approaches
                if a["status"] in ("dead_end", "blocked") and a.get("ended") is not None
                and a["session_id"] == self.scope]
        chart = self.query_one(ThroughputChart)
        chart.set_data(mine, pivots=pivots, ends=ends, start=start)
        # one reading (or none) is no series: the rows go to the tree of dead ends
        chart.display = len(mine) >= 2
        self.refresh_bindings()  # the footer offers `t` only with a chart
        self._size_chart()

    def on_resize(self) -> None:
        """Called when the terminal changed size: the chart's share and the status line
        are fitted again."""
        self._size_chart()
        self._status_line()

    def _size_chart(self) -> None:
        """12 rows of chart from 36 rows up; on a smaller terminal a third of it (at least
        7: title, plot and axis), so the tree keeps most of 24 or 20 rows."""
        from tui.widgets.throughput import ThroughputChart

        rows = self.app.size.height
        self.query_one(ThroughputChart).styles.height = 12 if rows >= 36 else max(7, rows // 3)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """``t`` (chart span) is offered only while there is a chart to span."""
        if action == "chart_span":
            from tui.widgets.throughput import ThroughputChart

            return bool(self.query(ThroughputChart) and self.query_one(ThroughputChart).display)
        return True

    def action_chart_span(self) -> None:
        self.chart_all = not self.chart_all
        if self.view is not None:
            self._plot(self.view)


def _once(questions: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The untested questions with the same call left untested again shown once."""
    from kb.graph import store as gs

    return gs.untested_once(questions)
