"""Plain-terminal rendering of events and sessions for the CLI (the TUI has its own widgets).

Everything returns :mod:`rich` renderables or strings; the CLI decides where
they go (stdout for data).  Transcript text is made visible here
(:func:`kb.safe_text.visible`: control characters and bidi overrides shown as
escapes) before it is measured, so the escapes count in the widths; the
console is the last guard.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, Group, RenderableType, RenderResult
from rich.segment import Segment
from rich.style import Style
from rich.text import Text

from kb.records import Event
from kb.safe_text import visible
from kb.sessionref import agent_name

KIND_STYLE = {
    "prompt": "bold cyan", "command": "bold", "result": "green", "decision": "magenta",
    "todo": "yellow", "subagent": "blue", "error": "bold red", "compaction": "dim",
    "attachment": "dim", "raw": "red", "stat": "dim", "context": "dim",
}
CLASS_STYLE = {"dead-end": "bold red", "pivot": "bold yellow", "decision": "bold green",
               "conclusion": "green", "plan": "cyan", "observation": "white"}


def when(ms: int | None) -> str:
    if not ms:
        return ""
    return datetime.fromtimestamp(ms / 1000).strftime("%Y-%m-%d %H:%M")


def first_line(text: str | None, width: int = 100) -> str:
    if not text:
        return ""
    text = visible(text)
    line = text.strip().splitlines()[0] if text.strip() else ""
    return line if len(line) <= width else line[: width - 1] + "…"


def where(e: Event) -> str:
    if not e.host:
        return ""
    user = f"{e.user}@" if e.user else ""
    port = f":{e.port}" if e.port else ""
    return f"{user}{e.host}{port}"


def one_per_decision(evs: Sequence[Event]) -> list[Event]:
    """``evs`` with each decision listed once: the choice read from the agent's words
    (``source`` ``choice``, "Chose: X (not: Y)", :mod:`logparse.decide_choice`) shares its
    message part with those words, a ``decision`` event too, and stands in their place
    (Rivo's message 5 was listed as its words and again as the choice read from them).
    A choice read from a prompt the user approved stays beside that prompt; every other
    event is kept, in order."""
    chosen = {(e.ordinal, e.seq, e.part_id) for e in evs
              if e.kind == "decision" and e.source == "choice"}
    return [e for e in evs if not (e.kind == "decision" and e.source != "choice"
                                   and (e.ordinal, e.seq, e.part_id) in chosen)]


def event_line(e: Event, width: int = 100) -> Text:
    """One compact line per event (``logkb events``)."""
    t = Text()
    t.append(f"{e.ordinal:>6} ", style="bold")
    t.append(f"{e.kind.value:<10} ", style=KIND_STYLE.get(e.kind.value, ""))
    if e.kind in ("command", "result", "todo", "subagent"):
        t.append(f"{e.tool or '':<9} ", style="dim")
        t.append(f"{e.category or '':<13} ", style="cyan")
    if e.kind == "command":
        if e.host:
            t.append(visible(f"[{where(e)}] "), style="yellow")
        t.append(first_line(e.remote_command or e.command, width))
    elif e.kind == "result":
        ok = e.status == "completed" and (e.exit_code in (None, 0)) and not e.error_signatures
        t.append(f"{e.status or ''}", style="green" if ok else "red")
        if e.exit_code is not None:
            t.append(f" exit {e.exit_code}", style="green" if e.exit_code == 0 else "red")
        if e.error_signatures:
            t.append(visible("  " + " | ".join(e.error_signatures)), style="bold red")
        if e.measurements:
            t.append(visible("  " + ", ".join(str(m) for m in e.measurements[:3])),
                     style="bold blue")
        if not e.error_signatures and not e.measurements:
            t.append("  " + first_line(e.output, width - 20), style="dim")
    elif e.kind == "decision":
        t.append(f"{e.classification or '':<12} ", style=CLASS_STYLE.get(e.classification or "",
                                                                     ""))
        t.append(first_line(e.text, width))
    elif e.kind == "todo":
        active = [i for i in e.todos if i.status not in ("completed", "cancelled")]
        t.append(f"{len(e.todos)} items, {len(active)} open")
    elif e.kind == "subagent":
        t.append(visible(f"{e.text or ''} → {e.child_session_id or '?'}"))
    elif e.kind == "stat" and e.measurements:  # what the agent's clock or counter read
        t.append(visible(", ".join(str(m) for m in e.measurements[:3])), style="bold blue")
    else:
        if e.kind == "prompt" and e.author in ("parent", "compaction"):
            # a parent agent's task, a compaction's summary: never the user's words
            t.append("parent agent " if e.author == "parent" else "summary ", style="dim")
        elif e.kind == "prompt" and e.source == "synthetic":
            # put in the user's turn by the agent or its IDE, never the user's words
            t.append("injected ", style="dim")
        t.append(first_line(e.text or e.reason, width))
    return t


def event_block(e: Event, full: bool = False, max_lines: int = 40) -> RenderableType:
    """A readable block for one event (``logkb show``)."""
    head = Text()
    head.append(f"{e.kind.value}", style=KIND_STYLE.get(e.kind.value, ""))
    if e.tool:
        head.append(f" · {e.tool}")
    if e.category and e.kind in ("command", "result"):
        head.append(f" · {e.category}", style="cyan")
    if e.classification:
        head.append(f" · {e.classification}", style=CLASS_STYLE.get(e.classification, ""))
    if e.prose_role:
        head.append(f" · {e.prose_role}", style="dim")
    body: list[RenderableType] = [head]
    if e.kind == "command":
        if e.hops:
            for i, hop in enumerate(e.hops):
                kind = "nested ssh" if hop.nested else f"ssh hop {i + 1}"
                target = f"{hop.user + '@' if hop.user else ''}{hop.host}"
                target += f":{hop.port}" if hop.port else ""
                body.append(Indented(Text.assemble((f"{kind}: ", "dim"),
                                                   (visible(target), "yellow")), "  "))
                if hop.remote_command:
                    body.append(Indented(Text("$ " + visible(hop.remote_command)), "    "))
            body.append(Indented(Text.assemble(("recorded: ", "dim"), visible(e.command or "")),
                                 "  "))
        else:
            # "$ " is a shell's prompt: an edit's file or a sub-agent's task ran in none
            prompt = "$ " if e.tool == "bash" else ""
            body.append(Indented(Text(prompt + visible(e.command or "")), "  "))
        if e.child_session_id and e.tool != "task":  # (a task has its subagent event)
            body.append(Indented(Text(visible(f"→ child session {e.child_session_id}")),
                                 "  "))
    elif e.kind == "result":
        line = Text("  ")
        line.append(f"{e.status}", style="green" if e.status == "completed" else "red")
        if e.exit_code is not None:
            line.append(f" · exit {e.exit_code}")
        if e.duration_ms is not None:
            line.append(f" · {e.duration_ms / 1000:.1f}s", style="dim")
        body.append(line)
        for s in e.error_signatures:
            body.append(Indented(Text.assemble(("signature: ", "dim"), (visible(s), "bold red")),
                                 "  "))
        for m in e.measurements:
            body.append(Indented(Text.assemble(("measured: ", "dim"),
                                               (visible(str(m)), "bold blue")), "  "))
        out = visible(e.output or "")
        lines = out.splitlines()
        if not full and len(lines) > max_lines:
            shown = lines[: max_lines // 2] + [f"… {len(lines) - max_lines} more lines "
                                               "(--full shows all) …"] + lines[-max_lines // 2:]
        else:
            shown = lines
        if shown:
            body.append(Indented(_highlight("\n".join(shown),
                                            [visible(s) for s in e.error_signatures]),
                                 "  │ ", style="dim"))
    elif e.kind == "todo":
        for item in e.todos:
            mark = {"completed": "✔", "cancelled": "✘", "in_progress": "▶"}.get(item.status, "·")
            body.append(Indented(Text(visible(f"{mark} [{item.status}] {item.content}")), "  "))
    elif e.kind == "subagent":
        body.append(Indented(Text(visible(f"{e.text or ''} → child session "
                                          f"{e.child_session_id or '?'}")), "  "))
    elif e.kind == "stat" and e.measurements:
        for m in e.measurements:
            body.append(Indented(Text.assemble(("measured: ", "dim"),
                                               (visible(str(m)), "bold blue")), "  "))
    else:
        text = e.text or ""
        if e.kind == "raw":
            text = f"{e.reason}\n{e.raw}"
        body.append(Indented(Text(visible(text)), "  "))
    return Group(*body)


_CHUNK = 8192
"""Characters of one line :class:`Indented` wraps at a time."""


class Indented:
    """``renderable`` drawn ``prefix`` narrower, ``prefix`` before every line it takes,
    the lines it wraps onto too (a long output line stays inside its ``│`` gutter)."""

    def __init__(self, renderable: RenderableType, prefix: str, style: str = "") -> None:
        self.renderable, self.prefix, self.style = renderable, prefix, style

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        inner = max(8, options.max_width - cell_len(self.prefix))
        lead = Segment(self.prefix, Style.parse(self.style) if self.style else None)
        parts: list[RenderableType] = [self.renderable]
        if isinstance(self.renderable, Text) and ("\n" in self.renderable.plain or len(
                self.renderable.plain) > _CHUNK):
            # line by line: rich splits one text of N lines in O(N × length), so a
            # pasted log of 40,000 lines took minutes (a text's spans follow its lines);
            # a line longer than _CHUNK wraps onto N lines of its own, so it goes in chunks
            parts = [piece for line in self.renderable.split("\n", allow_blank=True)
                     for piece in _chunks(line)]
        for part in parts:
            for line in console.render_lines(part, options.update_width(inner), pad=False):
                yield from _rstrip([lead, *line])  # no trailing spaces: the wrap leaves them
                yield Segment.line()


def _chunks(line: Text) -> Iterator[Text]:
    """``line`` in pieces of at most :data:`_CHUNK` characters, cut after a space where
    there is one in the second half of the piece (a word is cut only when it is long)."""
    plain, start, cuts = line.plain, 0, []
    while len(plain) - start > _CHUNK:
        cut = plain.rfind(" ", start + _CHUNK // 2, start + _CHUNK)
        start = cut + 1 if cut >= 0 else start + _CHUNK
        cuts.append(start)
    yield from (line.divide(cuts) if cuts else [line])  # one pass, not one per piece


def _rstrip(segments: list[Segment]) -> list[Segment]:
    """``segments`` (one line) without the spaces at its end."""
    out = list(segments)
    while out and out[-1].control is None:
        text = out[-1].text.rstrip()
        if text:
            out[-1] = Segment(text, out[-1].style)
            break
        out.pop()
    return out


def _highlight(text: str, signatures: list[str]) -> Text:
    t = Text(text, style="dim")
    for sig in signatures:
        needle = sig.split(": ", 1)[-1] if ": " in sig else sig
        for token in {needle, sig}:
            if token:
                t.highlight_words([token], style="bold red")
    return t


# ------------------------------------------------------------------ fitting
@dataclass
class Col:
    """One column of a :func:`fit` table."""

    name: str
    """The header."""
    values: Sequence[str | Text]
    """One cell per row (transcript text stays literal: cells are never parsed as markup)."""
    align: str = "<"
    """``<`` or ``>``."""
    flex: bool = False
    """Takes the width the others leave, truncated with an ellipsis."""
    drop: int = 0
    """Columns with a higher number are dropped first when the width is short; 0: never."""
    min: int = 12
    """The least width a flex column is given before other columns are dropped."""
    style: str = ""


def fit(cols: list[Col], width: int, *, header: bool = True, gap: int = 2) -> list[Text]:
    """Rows of a table that fit ``width`` cells: fixed columns as wide as their widest cell,
    the flex column takes the rest; cells too long end in ``…``; columns with ``drop`` go
    (highest first) while the flex column would be narrower than its ``min``."""
    cols = [Col(c.name, [_visible_cell(v) for v in c.values], c.align, c.flex, c.drop, c.min,
                c.style) for c in cols]

    def natural(c: Col) -> int:
        cells = [cell_len(v.plain if isinstance(v, Text) else v) for v in c.values]
        return max([cell_len(c.name) if header else 0, *cells, 1])

    while True:
        fixed = sum(natural(c) for c in cols if not c.flex)
        room = width - fixed - gap * (len(cols) - 1)
        flex = next((c for c in cols if c.flex), None)
        need = flex.min if flex is not None else 0
        droppable = [c for c in cols if c.drop]
        if (room >= need and (flex is not None or room >= 0)) or not droppable:
            break
        cols.remove(max(droppable, key=lambda c: c.drop))
    widths = []
    for c in cols:
        if c.flex:
            widths.append(max(1, min(natural(c), room)))
        else:
            widths.append(natural(c))
    if flex is None and room < 0:
        # no flex column: squeeze the widest one
        k = max(range(len(cols)), key=lambda i: widths[i])
        widths[k] = max(1, widths[k] + room)
    n = max((len(c.values) for c in cols), default=0)
    lines: list[Text] = []
    if header:
        lines.append(_row([Text(c.name, style="bold") for c in cols], cols, widths, gap))
    for i in range(n):
        cells = []
        for c in cols:
            v = c.values[i] if i < len(c.values) else ""
            cells.append(v.copy() if isinstance(v, Text) else Text(str(v), style=c.style))
        lines.append(_row(cells, cols, widths, gap))
    return lines


def _visible_cell(v: str | Text) -> str | Text:
    """A cell with its control characters shown as escapes (a styled cell keeps the style
    of its start when it had any)."""
    if isinstance(v, Text):
        if visible(v.plain) == v.plain:
            return v
        style = v.spans[0].style if v.spans else v.style
        return Text(visible(v.plain), style=style)
    return visible(str(v))


def _cut_cell(cell: Text, width: int) -> None:
    """``cell`` cut to ``width`` cells, in place, its styles kept, ending in ``…``: cut
    between clusters (:func:`kb.width.cut`), so never inside a ``[redacted:KIND]`` marker
    nor with a blank before the ``…`` where a wide character did not fit (rich's
    ``truncate`` did both)."""
    from kb.width import ELLIPSIS, cut

    if cell_len(cell.plain) <= width:
        return
    head = cut(cell.plain, width - 1).rstrip() if width > 1 else ""
    while head and cell_len(head) > width - 1:  # rich counts a cluster wider: shorter
        head = head[:-1].rstrip()
    cell.right_crop(len(cell.plain) - len(head))
    if width > 0:
        cell.append(ELLIPSIS)


def _row(cells: list[Text], cols: list[Col], widths: list[int], gap: int) -> Text:
    line = Text(no_wrap=True, end="")
    last = len(cells) - 1
    for k, (cell, c, w) in enumerate(zip(cells, cols, widths)):
        _cut_cell(cell, w)
        pad = w - cell.cell_len
        if c.align == ">":
            line.append(" " * pad)
            line.append_text(cell)
        else:
            line.append_text(cell)
            if k != last:
                line.append(" " * pad)
        if k != last:
            line.append(" " * gap)
    line.rstrip()
    return line


def clip(text: str | Text, width: int) -> Text:
    """One line, cut to ``width`` cells with an ellipsis."""
    t = _visible_cell(text)
    t = t.copy() if isinstance(t, Text) else Text(t)
    t.no_wrap = True
    _cut_cell(t, width)
    return t


def wrap_lines(text: str, width: int) -> list[str]:
    """Prose lines wrapped to ``width`` columns (:func:`kb.width.wrap`: wide text breaks
    between its characters), continuation lines indented under the first line's text."""
    from kb.width import wrap

    out: list[str] = []
    for line in visible(text).splitlines() or [""]:
        if cell_len(line) <= width:
            out.append(line)
            continue
        indent = len(line) - len(line.lstrip(" "))
        hang = " " * min(indent + 4, width // 3)
        out.extend(wrap(line.strip(), width, " " * indent, hang))
    return out


# ------------------------------------------------------------------ sessions
def short_when(ms: int | None) -> str:
    if not ms:
        return ""
    return datetime.fromtimestamp(ms / 1000).strftime("%m-%d %H:%M")


def sessions_lines(rows: list[dict[str, Any]], width: int, *, current: str | None = None,
                   usage: dict[str, dict[str, Any]] | None = None,
                   short: dict[str, str] | None = None) -> list[Text]:
    """The session list as lines that fit ``width``: subagent sessions under their
    parents, ``▶`` marking the current session (``logkb use``), each named by its short
    id (``short``: id → shortest unique prefix) and its agent."""
    from kb.views import usage_cost_text, usage_tokens_text

    usage = usage or {}
    short = short or {}
    by_parent: dict[str | None, list[dict[str, Any]]] = {}
    ids = {r["session_id"] for r in rows}
    for r in rows:
        parent = r["parent_id"] if r["parent_id"] in ids else None
        by_parent.setdefault(parent, []).append(r)
    ordered: list[tuple[dict[str, Any], int]] = []

    def add(r: dict[str, Any], depth: int) -> None:
        ordered.append((r, depth))
        for child in by_parent.get(r["session_id"], []):
            add(child, depth + 1)

    for r in by_parent.get(None, []):
        add(r, 0)
    marks, sids, agents, titles, whens, msgs, cmds, toks, costs, forms = (
        [] for _ in range(10))
    for r, depth in ordered:
        marks.append(Text("▶", style="bold green") if r["session_id"] == current else "")
        sids.append(("  " * depth + "└ " if depth else "")
                    + short.get(r["session_id"], r["session_id"]))
        agents.append(agent_name(r.get("agent")))
        title = Text(visible(" ".join((r["title"] or "").split())))
        if r.get("spawned_at"):
            title.append(f" (from message {r['spawned_at']})", style="dim")
        titles.append(title)
        whens.append(short_when(r["last_activity"] or r["time_updated"]))
        msgs.append(str(r["messages"]))
        cmds.append(str(r["commands"]))
        u = usage.get(r["session_id"], {})
        toks.append(usage_tokens_text(u))
        costs.append(usage_cost_text(u))
        forms.append(r["source_form"] + ("" if r["complete"] else "*"))
    cols = [Col("", marks), Col("session", sids), Col("agent", agents),
            Col("title", titles, flex=True, min=24),
            Col("when", whens, drop=3), Col("msgs", msgs, ">"), Col("cmds", cmds, ">", drop=4),
            Col("tokens", toks, ">", drop=2), Col("cost", costs, ">", drop=1),
            # a rewrite (not the agent's own output) keeps the column that says so
            Col("form", forms, drop=0 if any(f.startswith("rewrite") for f in forms) else 5)]
    if current is None:
        cols = cols[1:]
    return fit(cols, width, gap=1 if width < 100 else 2)


# ------------------------------------------------------------------ the graph
STATUS_MARK = {"dead_end": "✘", "blocked": "⊘", "superseded": "↷", "confirmed": "✔",
               "open": "▶"}
STATUS_STYLE = {"dead_end": "red", "blocked": "yellow", "superseded": "dim",
                "confirmed": "green", "open": "cyan"}


def deadends_lines(items: list[dict[str, Any]], width: int, *, sessions: bool = False
                   ) -> list[Text]:
    """Dead ends grouped under their causes (earliest cause first), one row each that fits
    ``width``; with ``sessions`` every row names its session (``--all``)."""
    by_cause: dict[str, list[dict[str, Any]]] = {}
    for d in items:
        by_cause.setdefault(d["cause"] or "cause unknown", []).append(d)
    groups = sorted(by_cause.items(), key=lambda kv: min(d["ended_at"] or 0 for d in kv[1]))
    rows: list[dict[str, Any]] = [d for _, g in groups for d in g]
    tested = []
    for d in rows:
        t = sorted({e["ordinal"] for e in d["evidence"] if e["role"] == "tested"})
        more = f" +{len(t) - 4}" if len(t) > 4 else ""
        tested.append(("tested " + ", ".join(map(str, t[:4])) + more) if t else "never tested")
    cols = [Col("", [Text("  " + STATUS_MARK.get(d["status"], "·"),
                          style=STATUS_STYLE.get(d["status"], "")) for d in rows]),
            Col("name", [d["name"] for d in rows], flex=True, min=18),
            Col("status", [d["status"] for d in rows]),
            # where it ended before where it was tested: the tested lists are ragged
            # ("tested 97, 101, 104, 109 +3" beside "never tested"), and in the middle
            # they left a gap of 20 columns in most rows while the name was cut
            Col("ended", [f"ended {d['ended_at']}" if d["ended_at"] is not None else ""
                          for d in rows]),
            Col("tested", tested, drop=2)]
    if sessions:
        cols.insert(1, Col("session", [d.get("session_id") or "" for d in rows], drop=1))
    body = fit(cols, width, header=False)
    out: list[Text] = []
    k = 0
    heads = _cause_heads([c for c, _ in groups], width)
    for cause, group in groups:
        share = f"  ({len(group)} dead ends share this cause)" if len(group) > 1 else ""
        *first, last = heads[cause]
        out += [Text(line, style="bold") for line in first]
        out.append(clip(Text.assemble((last, "bold"), (share, "dim")), width))
        for d in group:
            out.append(body[k])
            k += 1
            if d.get("revisit"):
                out.append(clip(Text(visible(f"      revisit: {d['revisit']}"),
                                     style="yellow"), width))
        out.append(Text(""))
    while out and not out[-1].plain:
        out.pop()
    return out


def _cause_heads(causes: list[str], width: int, most: int = 3) -> dict[str, list[str]]:
    """Each cause's heading: one line cut to ``width``; causes whose cut lines are alike
    (three "a review (…) found it wrong: took away …" of one session) wrap, up to
    ``most`` lines, so that the headings of different causes differ."""
    from collections import Counter

    from kb.width import fit, wrap

    one = {c: fit(" ".join(visible(c).split()), width) for c in causes}
    alike = Counter(one.values())
    heads: dict[str, list[str]] = {}
    for c in causes:
        if alike[one[c]] < 2:
            heads[c] = [one[c]]
            continue
        lines = wrap(" ".join(visible(c).split()), width)
        if len(lines) > most:
            lines = lines[:most - 1] + [fit(" ".join(lines[most - 1:]), width)]
        heads[c] = lines
    return heads


def untested_lines(items: list[dict[str, Any]], width: int, *, sessions: bool = False
                   ) -> list[Text]:
    """Untested questions, one row each that fits ``width``; a call left untested more
    than once (``count``) says how often and at which ordinals (:func:`repeats`)."""
    cols = [Col("ordinal", [str(q["ordinal"]) for q in items], ">"),
            Col("question", [q["question"] for q in items], flex=True, min=20),
            Col("again", [Text(repeats(q), style="yellow") for q in items]),
            Col("reason", [Text(q["reason"] or "", style="red") for q in items], drop=2),
            # never dropped: without it an answered question reads as never answered
            Col("state", [("" if q["status"] == "open" else f"answered at {q['answered_at']}")
                          for q in items])]
    if sessions:
        cols.insert(0, Col("session", [q.get("session_id") or "" for q in items], drop=1))
    if not any(c for c in cols[-1].values):
        cols.pop()
    if not any(q.get("count", 1) > 1 for q in items):
        cols = [c for c in cols if c.name != "again"]
    return fit(cols, width, header=False)


REPEATS_SHOWN = 6
"""Ordinals a repeated untested call lists in full; past that, the first ones and the last."""


def repeats(q: dict[str, Any]) -> str:
    """``×2 at 41, 57`` for a call left untested more than once (``""`` for one left once):
    the count, and the ordinals (the first three and the last past :data:`REPEATS_SHOWN`)."""
    n = int(q.get("count") or 1)
    if n < 2:
        return ""
    ords = [str(o) for o in q.get("ordinals") or [q.get("ordinal")]]
    if len(ords) > REPEATS_SHOWN:
        ords = [*ords[:3], "…", ords[-1]]
    return f"×{n} at {', '.join(ords)}"


def candidates_lines(items: list[dict[str, Any]], width: int, *,
                     sessions: bool = False) -> list[Text]:
    """Approaches a name could mean (``logkb why allreduce``).  ``sessions``: they come
    from several sessions (``--all``), so each row's session (as given: a short id) comes
    first and stays at any width (an ordinal means nothing without it)."""
    cols = [Col("ordinal", [str(a["ordinal"]) for a in items], ">"),
            Col("", [Text(STATUS_MARK.get(a["status"], "·"),
                          style=STATUS_STYLE.get(a["status"], "")) for a in items]),
            Col("name", [a["label"] for a in items], flex=True, min=20),
            Col("status", [a["status"] for a in items]),
            Col("cause", [a.get("cause") or "" for a in items], drop=1)]
    if sessions:
        cols.insert(0, Col("session", [a.get("session_id") or "" for a in items]))
    return fit(cols, width, header=True)
