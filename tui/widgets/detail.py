"""``DetailPane``: everything about one step of the timeline.

Why the step was taken (the prose before it), what ran (the command
syntax-highlighted, the ssh wrapper and each remote command apart), what came
back (status, error signatures highlighted in the output, measurements), the
todo list at that moment, the approaches it is evidence of, its subagent
session, its annotations and how replays of it fared.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.padding import Padding
from rich.rule import Rule
from rich.style import Style
from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from kb.records import Event, SshHop
from kb.safe_text import visible_deep
from kb.views import StepDetail
from tui.format import (
    CLASS_STYLE,
    DIM,
    FAIL,
    MEASURE,
    STATUS_MARK,
    STATUS_STYLE,
    VERDICT_STYLE,
    short,
    when,
)

HEAD_LINES, TAIL_LINES = 12, 28
"""Output lines shown around the cut when the output is long (``o`` shows all)."""
SYNTAX_THEME = "monokai"
REWOUND = f"{DIM} italic"
"""A message the user rewound away from (Gemini CLI's ``$rewindTo``)."""


@dataclass
class DetailContext:
    """What the graph and the annotations say about a step (filled in by the screen)."""

    approaches: list[tuple[dict[str, Any], list[str]]] = field(default_factory=list)
    """Approaches the step is evidence of, with its roles."""
    during: list[dict[str, Any]] = field(default_factory=list)
    """Approaches being worked on at the time."""
    annotations: list[dict[str, Any]] = field(default_factory=list)
    children: list[dict[str, Any]] = field(default_factory=list)
    """Subagent sessions spawned at this message (``session_id``, ``title``)."""
    questions: list[dict[str, Any]] = field(default_factory=list)
    """Untested questions raised by this step."""
    rewound: dict[str, Any] | None = None
    """The rewind that took the message back (:meth:`kb.store.KbStore.rewound`), if any."""


def section(title: str) -> Rule:
    return Rule(Text(title, style="bold"), align="left", style=DIM)


def bash(code: str, indent: int = 4) -> Padding:
    return Padding(Syntax(code, "bash", theme=SYNTAX_THEME, word_wrap=True,
                          background_color="default"), (0, 0, 0, indent))


def hop_line(hop: SshHop, index: int) -> Text:
    t = Text("  ")
    parts = ["ssh"]
    if hop.port:
        parts.append(f"-p {hop.port}")
    if hop.identity:
        parts.append(f"-i {hop.identity}")
    parts += [f"-o {o}" for o in hop.options]
    parts.append(f"{hop.user + '@' if hop.user else ''}{hop.host}")
    if hop.nested:
        t.append("└ nested ", style="bold #ff9e64")
        t.append(" ".join(parts), style="bold #ffcb6b")
        t.append("  (runs inside the remote command above, on that host)", style=DIM)
    else:
        t.append(f"hop {index + 1}  " if index else "wrapper  ", style=DIM)
        t.append(" ".join(parts), style="bold #ffcb6b")
    return t


def highlight_output(text: str, signatures: list[str], measured: list[str]) -> Text:
    """``text`` with error signatures in red (their lines tinted) and measured labels in blue."""
    out = Text(text, style="#c0c6d4")
    needles: list[str] = []
    for sig in signatures:
        head, _, tail = sig.partition(": ")
        needles += [sig, head] + ([tail] if tail else [])
    needles = [n for n in dict.fromkeys(needles) if n and len(n) >= 3]
    if needles:
        pattern = re.compile("|".join(re.escape(n) for n in needles))
        offset = 0
        for line in text.splitlines(keepends=True):
            if pattern.search(line):
                out.stylize("on #3b1519", offset, offset + len(line.rstrip("\n")))
            offset += len(line)
        out.highlight_regex(pattern, style=FAIL)
    for label in measured:
        if label:
            out.highlight_words([label], style=MEASURE)
    return out


def cut(text: str, full: bool) -> tuple[str, int]:
    """The output to show and how many lines were left out."""
    lines = text.splitlines()
    if full or len(lines) <= HEAD_LINES + TAIL_LINES + 1:
        return text.rstrip("\n"), 0
    hidden = len(lines) - HEAD_LINES - TAIL_LINES
    return "\n".join(lines[:HEAD_LINES] + [f"… {hidden} more lines (o shows all) …"]
                     + lines[-TAIL_LINES:]), hidden


def prose_block(e: Event) -> RenderableType:
    if e.kind == "prompt":  # under its "Prompt" heading: "prompt" again said nothing
        if e.source != "synthetic":
            return Text(e.text or "")
        # as its timeline row says: the agent or its IDE put it in the user's turn
        return Group(Text("injected (not typed by the user)", style=DIM), Text(e.text or ""))
    head = Text()
    head.append(f"{e.kind.value}", style="bold")
    if e.classification:
        head.append(f" · {e.classification}", style=CLASS_STYLE.get(e.classification, ""))
    if e.prose_role:
        head.append(f" · {e.prose_role}", style=DIM)
    return Group(head, Text(e.text or ""))


def command_block(cmd: Event, full: bool = False) -> list[RenderableType]:
    out: list[RenderableType] = []
    head = Text()
    head.append(cmd.tool or "?", style="bold")
    if cmd.category:
        head.append(f" · {cmd.category}", style="#89ddff")
    if cmd.host:
        head.append(f" · on {cmd.user + '@' if cmd.user else ''}{cmd.host}", style="#ffcb6b")
    elif cmd.tool == "bash":
        head.append(" · local", style=DIM)
    if cmd.workdir:
        head.append(f" · in {cmd.workdir}", style=DIM)
    out.append(head)
    if cmd.tool == "bash" and cmd.hops:
        for i, hop in enumerate(cmd.hops):
            out.append(hop_line(hop, i))
            if hop.remote_command:
                out.append(bash(hop.remote_command, 6 if hop.nested else 4))
        rec = Text("  recorded: ", style=DIM)
        rec.append(cmd.command or "", style=DIM)
        if not full:  # one line; `o` shows it whole
            rec.no_wrap, rec.overflow = True, "ellipsis"
        out.append(rec)
    elif cmd.tool == "bash":
        out.append(bash(cmd.command or "", 2))
    elif cmd.tool == "todowrite":
        out.append(Text(cmd.command or "", style=DIM))
    elif cmd.input:
        import orjson

        shown = {k: v for k, v in cmd.input.items() if k != "todos"}
        out.append(Syntax(orjson.dumps(shown, option=orjson.OPT_INDENT_2).decode(), "json",
                          theme=SYNTAX_THEME, word_wrap=True, background_color="default"))
    else:
        out.append(Text(cmd.command or ""))
    return out


def command_line(cmd: Event) -> Text:
    """The command in one line: tool, category, where, and what ran (the innermost remote
    command of an ssh wrapper), cut with an ellipsis."""
    t = Text(no_wrap=True, overflow="ellipsis")
    t.append(cmd.tool or "?", style="bold")
    if cmd.category:
        t.append(f" · {cmd.category}", style="#89ddff")
    if cmd.host:
        t.append(f" · on {cmd.user + '@' if cmd.user else ''}{cmd.host}", style="#ffcb6b")
    ran = cmd.remote_command or cmd.command or cmd.text or ""
    if cmd.hops and cmd.hops[-1].remote_command:
        ran = cmd.hops[-1].remote_command if not cmd.hops[-1].nested else (
            cmd.hops[0].remote_command or ran)
    t.append("  $ ", style=DIM)
    t.append(" ".join(ran.split()))
    return t


def result_block(res: Event, full: bool) -> list[RenderableType]:
    out: list[RenderableType] = []
    failed = (res.status != "completed" or res.exit_code not in (None, 0)
              or bool(res.error_signatures))
    line = Text()
    line.append(res.status or "?", style=FAIL if res.status != "completed" else "#7ee787")
    if res.exit_code is not None:
        line.append(f" · exit {res.exit_code}", style=FAIL if res.exit_code else "#7ee787")
    if res.duration_ms is not None:
        line.append(f" · {res.duration_ms / 1000:.1f}s", style=DIM)
    if failed:
        line.append("  FAILED", style=FAIL)
    out.append(line)
    for sig in res.error_signatures:
        out.append(Text.assemble(("  ✘ ", FAIL), (sig, FAIL)))
    for m in res.measurements:
        out.append(Text.assemble(("  ◆ ", MEASURE), (str(m), MEASURE)))
    text, _hidden = cut(res.output or "", full)
    if text:
        out.append(highlight_output(text, res.error_signatures,
                                    [m.label for m in res.measurements]))
    return out


def todo_block(todos: list[Any]) -> list[RenderableType]:
    marks = {"completed": ("✔", "#7ee787"), "cancelled": ("✘", DIM),
             "in_progress": ("▶", "bold #ffd166"), "pending": ("·", "")}
    out: list[RenderableType] = []
    for item in todos:
        glyph, style = marks.get(item.status, ("·", ""))
        t = Text(f"  {glyph} ", style=style)
        t.append(item.content, style=DIM if item.status in ("completed", "cancelled") else "")
        out.append(t)
    return out


def _step_block(d: StepDetail, calls: dict[int, list[Event]], seq: int, what: str,
                full: bool, mark: str = "") -> list[RenderableType]:
    """One step of the message in full: a call's command and result, or a piece of prose."""
    parts: list[RenderableType] = []
    if what == "call":
        group = calls[seq]
        cmd = next((e for e in group if e.kind == "command"), None)
        res = next((e for e in group if e.kind == "result"), None)
        if cmd is not None and res is not None and not full:
            # what ran in one line and what came back right under it, so the exit code
            # and the first error show at 80×24 without scrolling; the command in full
            # (ssh hops, nested commands) follows
            parts.append(section(f"{mark}Command"))
            parts.append(command_line(cmd))
            parts.append(section(f"{mark}Result"))
            parts.extend(result_block(res, full))
            parts.append(section("Command in full"))
            parts.extend(command_block(cmd, full))
            return parts
        if cmd is not None:
            parts.append(section(f"{mark}Command"))
            parts.extend(command_block(cmd, full))
        if res is not None:
            parts.append(section(f"{mark}Result"))
            parts.extend(result_block(res, full))
        return parts
    e = next(x for x in d.events if x.seq == seq and x.kind.value == what)
    if e.kind in ("prompt", "decision"):
        title = "Prompt" if e.kind == "prompt" else (
            "Why" if e.prose_role == "rationale" else "Said")
        parts.append(section(f"{mark}{title}"))
        parts.append(prose_block(e))
    else:
        parts.append(section(f"{mark}{e.kind.value.capitalize()}"))
        parts.append(Text(e.reason or "", style=DIM))
        if e.kind == "stat" and e.measurements:  # its reading, not only its name
            for m in e.measurements:
                parts.append(Text.assemble(("  ◆ ", MEASURE), (str(m), MEASURE)))
        else:
            parts.append(Text(e.text or (str(e.raw) if e.raw is not None else "")))
    return parts


def _step_line(d: StepDetail, calls: dict[int, list[Event]], seq: int, what: str) -> Text:
    """One other step of the message, on one line."""
    t = Text("  ", no_wrap=True, overflow="ellipsis")
    if what == "call":
        group = calls[seq]
        cmd = next((e for e in group if e.kind == "command"), None)
        res = next((e for e in group if e.kind == "result"), None)
        failed = res is not None and (res.status != "completed" or (res.exit_code or 0) != 0
                                      or bool(res.error_signatures))
        t.append(f"{(cmd or group[0]).tool or 'call'} ", style="bold")
        line = ((cmd.remote_command or cmd.command or cmd.text or "") if cmd is not None
                else "")
        t.append(short(" ".join(line.split()), 200))
        if res is not None:
            t.append(f"  {res.status or ''}", style=FAIL if failed else DIM)
        return t
    e = next(x for x in d.events if x.seq == seq and x.kind.value == what)
    t.append(f"{'prompt' if e.kind == 'prompt' else e.kind.value} ", style="bold")
    said = (", ".join(str(m) for m in e.measurements[:3])
            if e.kind == "stat" and e.measurements else e.text or e.reason or "")
    t.append(short(" ".join(said.split()), 200), style=DIM)
    return t


def render_detail(d: StepDetail, ctx: DetailContext, *, full: bool = False
                  ) -> RenderableType:
    """The whole detail of one step as one renderable."""
    msg = d.message
    parts: list[RenderableType] = []
    head = Text()
    head.append(f"message {d.ordinal}", style="bold")
    rewound = ctx.rewound
    if rewound:  # first: the pane is narrow at 80 columns and the head wraps
        head.append(" · rewound", style=REWOUND)
    head.append(f" · {msg.get('role') or '?'}")
    if msg.get("time_created"):
        head.append(f" · {when(msg['time_created'], seconds=True)}", style=DIM)
    for k in ("agent", "model"):
        if msg.get(k):
            head.append(f" · {msg[k]}", style=DIM)
    if msg.get("error"):
        head.append(f" · ERROR {msg['error']}", style=FAIL)
    parts.append(head)
    if rewound:  # Gemini CLI's /rewind: the user took this message back
        parts.append(Text(f"(rewound after message {rewound['at']}: the user took this "
                          "message back)", style=REWOUND))

    # the rationale that led here when this message has none of its own
    own_prose = [e for e in d.events if e.kind in ("decision", "prompt")]
    if d.rationale and not own_prose:
        parts.append(section("Why (said earlier)"))
        for e in d.rationale:
            parts.append(Text(f"message {e.ordinal}", style=DIM))
            parts.append(prose_block(e))
    # every step of the message in order; the selected one is marked
    focus = {(e.seq, e.kind.value) for e in d.focus}
    calls: dict[int, list[Event]] = {}
    order: list[tuple[int, str]] = []
    for e in d.events:
        if e.kind in ("command", "result", "todo", "subagent"):
            if e.seq not in calls:
                order.append((e.seq, "call"))
            calls.setdefault(e.seq, []).append(e)
        else:
            order.append((e.seq, e.kind.value))
    def is_selected(seq: int, what: str) -> bool:
        return any(f[0] == seq and (what == "call") == (f[1] in (
            "command", "result", "todo", "subagent")) for f in focus)

    # the selected step first and in full (a message may make many calls: the one chosen
    # in the timeline is the one shown), the message's other steps below, one line each
    chosen = [(seq, what) for seq, what in order if is_selected(seq, what)] or order[:1]
    if not any(what == "call" for _, what in chosen):
        # prose or a prompt: the message in order, all of it (what it led to matters)
        for seq, what in order:
            mark = "▶ " if (seq, what) in chosen and len(order) > 1 else ""
            parts.extend(_step_block(d, calls, seq, what, full, mark=mark))
        chosen = order
    else:
        # the prose right before the call is why it was made: shown in full above it
        first = min(seq for seq, what in chosen if what == "call")
        why = [(seq, what) for seq, what in order
               if what == "decision" and seq < first][-1:]
        # the call first (its result in view at 80×24), then the prose that led to it
        for seq, what in chosen + why:
            parts.extend(_step_block(d, calls, seq, what, full,
                                     mark="▶ " if (seq, what) in chosen else ""))
        chosen = why + chosen
    others = [x for x in order if x not in chosen]
    if others:
        parts.append(section(f"Also in message {d.ordinal} ({len(others)} more step"
                             f"{'s' if len(others) != 1 else ''})"))
        for seq, what in others:
            parts.append(_step_line(d, calls, seq, what))

    if ctx.questions:
        parts.append(section("Left untested"))
        for q in ctx.questions:
            parts.append(Text.assemble(("  ? ", "bold #ffd166"), (q["question"], "bold"),
                                       (f"  — {q['reason']}", FAIL)))
    if ctx.approaches or ctx.during:
        parts.append(section("Approach"))
        for a, roles in ctx.approaches:
            parts.append(approach_line(a, f"{', '.join(roles)} here"))
        for a in ctx.during:
            if all(a["node_id"] != b["node_id"] for b, _ in ctx.approaches):
                parts.append(approach_line(a, "under way"))
    if d.todos:
        parts.append(section(f"Todo list at message {d.todos_at}"))
        parts.extend(todo_block(d.todos))
    children = ctx.children
    if children:
        parts.append(section("Subagent"))
        for c in children:
            t = Text("  ")
            click = Style.from_meta({"@click": f"screen.open_session({c['session_id']!r})"})
            t.append(f"{c['session_id']}", style=Style.parse("bold #7aa2f7 underline") + click)
            t.append(f"  {c.get('title') or ''}", style="")
            t.append("   (s or a click opens it)", style=DIM)
            parts.append(t)
    if ctx.annotations:
        parts.append(section("Annotations"))
        for a in ctx.annotations:
            parts.append(Text(f"  #{a['id']} {a['kind']}"
                              f"{': ' + a['value'] if a.get('value') else ''}"))
    if d.replays:
        parts.append(section("Replays of this step"))
        for r in reversed(d.replays):
            parts.append(replay_line(r))
    return Group(*parts)


def approach_line(a: dict[str, Any], why: str) -> Text:
    status = a.get("status") or "open"
    t = Text("  ")
    t.append(f"{STATUS_MARK.get(status, '·')} ", style=STATUS_STYLE.get(status, ""))
    t.append(a.get("label") or "?", style="bold")
    t.append(f"  [{status}]", style=STATUS_STYLE.get(status, ""))
    t.append(f"  {why}", style=DIM)
    if a.get("cause"):
        t.append(f"  cause: {a['cause']}", style=FAIL)
    return t


def replay_line(r: dict[str, Any]) -> Text:
    started = r.get("run_started_at") or r.get("started_at")
    t = Text("  ")
    t.append(f"{started:%Y-%m-%d %H:%M} " if started else "", style=DIM)
    v = r.get("verdict") or "?"
    t.append(f"{v:<11}", style=VERDICT_STYLE.get(v, ""))
    if r.get("target"):
        t.append(f" on {r['target']}", style="#ffcb6b")
    if r.get("exit_code") is not None:
        t.append(f" exit {r['exit_code']}")
    text = r.get("explanation") or r.get("reason")
    if text:
        t.append(f"  {text}", style=DIM)
    return t


def output_diff(recorded: str, new: str) -> Text:
    """A unified diff of a step's recorded output against a replay's, coloured."""
    out = Text()
    lines = list(difflib.unified_diff(recorded.splitlines(), new.splitlines(),
                                      "recorded", "replay", lineterm="", n=2))
    if not lines:
        out.append("(no difference)", style=DIM)
        return out
    for ln in lines:
        style = ("#7ee787" if ln.startswith("+") else "#ff6b6b" if ln.startswith("-")
                 else "#82aaff" if ln.startswith("@@") else DIM)
        out.append(ln + "\n", style=style)
    return out


class DetailPane(VerticalScroll, can_focus=True):
    """A scrollable view of one step (``render_detail``)."""

    DEFAULT_CSS = """
    DetailPane { background: $surface; padding: 0 1; }
    DetailPane > Static { width: 1fr; }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:  # noqa: A002
        super().__init__(id=id, classes=classes)
        self.detail: StepDetail | None = None
        self.context = DetailContext()
        self.full = False

    def compose(self) -> ComposeResult:
        yield Static(Text("select a step", style=DIM), id="detail-body")

    def show(self, detail: StepDetail, context: DetailContext) -> None:
        same = (self.detail is not None and (self.detail.session_id, self.detail.ordinal,
                                             self.detail.seq, self.detail.src)
                == (detail.session_id, detail.ordinal, detail.seq, detail.src))
        # transcript text shown as escapes before it is laid out (tui.safe guards the rest)
        self.detail, self.context = visible_deep(detail), visible_deep(context)
        if not same:
            self.full = False
        self._paint()
        if not same:
            self.scroll_home(animate=False)

    def toggle_full(self) -> None:
        self.full = not self.full
        self._paint()

    def clear(self, message: str = "") -> None:
        self.detail = None
        self.query_one("#detail-body", Static).update(Text(message, style=DIM))

    def _paint(self) -> None:
        if self.detail is None:
            return
        self.query_one("#detail-body", Static).update(
            render_detail(self.detail, self.context, full=self.full))

    @property
    def text(self) -> str:
        """The pane's content as plain text (for tests)."""
        if self.detail is None:
            return ""
        return plain(render_detail(self.detail, self.context, full=self.full),
                     max(40, self.size.width or 100))


def plain(renderable: RenderableType, width: int = 100) -> str:
    """A renderable as plain text."""
    import io

    from rich.console import Console

    console = Console(width=width, file=io.StringIO(), color_system=None, record=True)
    console.print(renderable)
    return console.export_text()
