"""The replay panel: plan a range of recorded steps, confirm, and watch them run.

Planning is pure (:func:`kb.replay.make_plan`, read-only store) and runs every
time the form changes.  Nothing runs until ``e`` and a confirmation; the run
(:func:`kb.replay.execute`) streams each step's output into the panel as it
arrives, then gives its verdict and a diff against the recorded output, and is
stored like a ``logkb replay run`` run.  Recorded hosts go through the host
map (the form's entries win over ``~/.config/logkb/config.toml``); a host with
no entry is never contacted.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from rich.console import Group, RenderableType
from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Header, Input, Static

from kb.safe_text import visible
from tui.format import DIM, FAIL, SAFETY_STYLE, VERDICT_STYLE, header_id, short
from tui.screens.prompt import ConfirmPrompt
from tui.widgets.detail import bash, output_diff, replay_line, section

StepKey = tuple[int, int]


@dataclass
class ReplayForm:
    """What the form asks for (parsed from its inputs)."""

    start: int
    end: int | None = None
    host_map: tuple[str, ...] = ()
    only: tuple[str, ...] = ()
    allow: tuple[str, ...] = ()


def tilde(text: str) -> str:
    """``text`` with the home directory written ``~`` (shorter, and the same for everyone)."""
    import os

    home = os.path.expanduser("~")
    return text.replace(home, "~") if home not in ("", "/") else text


FIELD_HELP = {
    "replay-from": "from: the first message ordinal to replay",
    "replay-to": "to: the last message ordinal (empty: to the end)",
    "replay-hosts": "host map: 10.1.230.174=local or 10.1.230.174=user@host:port, "
                    "comma-separated",
    "replay-only": "only: categories, comma-separated (test,build,benchmark,…)",
    "replay-allow": "allow: launch,mutating,unknown (read-only always runs)",
}
"""What a field of the replay form takes, shown under the form while it has the cursor:
each fits 78 columns (an 80-column terminal less the form's padding)."""


def _split(text: str) -> tuple[str, ...]:
    return tuple(v.strip() for v in text.replace(" ", ",").split(",") if v.strip())


# The step table: (key, header).  Its columns fit the table's own width (step_widths):
# beside the side panel (80 columns and wider) the table has three fifths of the screen;
# narrower (NARROW), the side panel goes under the table and the table has it all.  At 80
# columns, with fixed widths, a long plan showed msg, category, safety, action and
# "targe": the command was out of view; at 60 the action showed only "s" of "skip".
COLUMNS = (("msg", "msg"), ("cat", "category"), ("safety", "safety"), ("action", "action"),
           ("target", "target"), ("verdict", "verdict"), ("cmd", "command"))
NARROW = 80
SIDE_BY_SIDE = (3, 5)
"""The table's share of the width beside the side panel (``#replay-steps`` is 3fr of 5)."""
# narrow: (key, least, most) in the order a column gets more room (the least keeps its
# header and its words whole: "read-only", "skip"); the command takes the rest.  What does
# not fit goes, in DROP order: the side panel's first line says category and safety too.
_NARROW_WIDTHS = (("msg", 4, 5), ("action", 6, 6), ("cmd", 12, 20), ("target", 6, 16),
                  ("verdict", 7, 11), ("safety", 9, 9), ("cat", 8, 12))
DROP = ("cat", "safety")


def step_widths(width: int) -> dict[str, int | None]:
    """The columns shown and their widths in a table ``width`` columns wide: each column's
    padding (one cell each side) and a vertical scrollbar (2) kept out, the action word
    ("skip", "run") always whole, the rest shared in order of use, the command taking what
    is left."""
    keys = [key for key, _, _ in _NARROW_WIDTHS]
    least = {key: n for key, n, _ in _NARROW_WIDTHS}
    for gone in DROP:
        if sum(least[k] + 2 for k in keys) + 2 <= width:
            break
        keys.remove(gone)
    got = {key: least[key] for key in keys}
    spare = width - 2 - sum(n + 2 for n in got.values())
    for key, low, most in _NARROW_WIDTHS:
        if key in got:
            more = max(0, min(most - low, spare))
            got[key] += more
            spare -= more
    got["cmd"] += max(0, spare)
    return {key: got[key] for key, _ in COLUMNS if key in got}


class ReplayScreen(Screen[None]):
    """Plan, confirm and run a replay of a range of recorded steps."""

    HELP = ("The plan lists every recorded command in the range: where it would run (the "
            "host map sends a recorded host to another ssh target or to `local`), its "
            "safety class, and whether it runs or is skipped and why.  Only read-only "
            "steps run unless `allow` names launch, mutating or unknown; a host without a "
            "host-map entry is never contacted (write HOST=HOST to confirm it as recorded). "
            "`e` runs the plan after a confirmation; output streams per step, then the "
            "verdict and a diff against the recording.  Past runs of the selected step are "
            "listed under it.")
    BINDINGS = [
        Binding("h", "focus_form('#replay-hosts')", "Host map"),
        Binding("f", "focus_form('#replay-from')", "Range"),
        Binding("a", "focus_form('#replay-allow')", "Allow", show=False),
        Binding("p", "plan", "Plan"),
        Binding("e", "execute", "Execute"),
        Binding("escape", "back", "Back"),
        # at 80 columns the footer ends "? Help  q Quit" (it cut "^r Refres", then quit)
        Binding("ctrl+r", "app.refresh", "Refresh", show=False),
    ]

    @dataclass
    class Planned(Message):
        """A plan was made (or could not be: ``error``)."""

        plan: Any
        error: str | None = None

    @dataclass
    class StepStarted(Message):
        key: StepKey

    @dataclass
    class StepOutput(Message):
        key: StepKey
        text: str

    @dataclass
    class StepFinished(Message):
        key: StepKey
        result: Any

    @dataclass
    class RunFinished(Message):
        record: Any
        saved: bool
        error: str | None = None

    @dataclass
    class HistoryLoaded(Message):
        key: StepKey
        rows: list[dict[str, Any]] = field(default_factory=list)

    def __init__(self, session_id: str, start: int, end: int | None = None) -> None:
        super().__init__()
        self.session_id = session_id
        self.start = start
        self.end = end
        self.plan: Any = None
        self.running = False
        self.outputs: dict[StepKey, list[str]] = {}
        self.results: dict[StepKey, Any] = {}
        self.histories: dict[StepKey, list[dict[str, Any]]] = {}
        self.current: StepKey | None = None
        """The step that is running."""
        self.current_view: StepKey | None = None
        """The step shown in the side panel."""
        self.record: Any = None
        self.widths: dict[str, int | None] = {}
        """The step table's column widths (by key) as laid out now."""

    def compose(self) -> ComposeResult:
        yield Header()
        with Horizontal(id="replay-form"):
            yield Input(str(self.start), placeholder="from", id="replay-from", type="integer")
            yield Input("" if self.end is None else str(self.end), placeholder="to (end)",
                        id="replay-to", type="integer")
            # a field's name fits its box at 80 columns; its format shows under the form
            # while it has the cursor (FIELD_HELP): "host map: 10.1.230.174=local or …"
            # was cut to "host map: 1" and "allow: launch,…" to "allow: launc"
            yield Input(placeholder="host map", id="replay-hosts")
            yield Input(placeholder="only", id="replay-only")
            yield Input(placeholder="allow", id="replay-allow")
        yield Static("", id="replay-help")
        yield Static("", id="replay-summary")
        with Horizontal(id="replay-main"):
            yield DataTable(id="replay-steps", cursor_type="row", zebra_stripes=True)
            with VerticalScroll(id="replay-side"):
                yield Static(Text("planning…", style=DIM), id="replay-step")
        yield Static("", id="replay-status", classes="status")
        yield Footer()

    def on_mount(self) -> None:
        """Called when the panel opens: plan straight away (planning runs nothing)."""
        self.sub_title = visible(  # cut as the other headers are
            f"replay · {header_id(self.session_id, self.app.short_names)}")  # type: ignore[attr-defined]
        table = self.query_one(DataTable)
        self._columns(self.app.size.width)
        table.focus()
        self.action_plan()

    def on_resize(self, event: Any) -> None:
        """Called when the terminal changes size: narrow, the table takes the whole width."""
        self._columns(event.size.width)

    def _columns(self, width: int) -> None:
        """The step table's columns for a terminal ``width`` columns wide (again when the
        widths change: each cell is cut to its column with an ellipsis)."""
        narrow = width < NARROW
        self.set_class(narrow, "-narrow")
        table_width = width if narrow else width * SIDE_BY_SIDE[0] // SIDE_BY_SIDE[1]
        widths = step_widths(table_width)
        if widths == self.widths:
            return
        self.widths = widths
        table = self.query_one(DataTable)
        row = table.cursor_row
        table.clear(columns=True)
        for key, label in COLUMNS:
            if key in widths:
                table.add_column(label, key=key, width=widths[key])
        if self.plan is not None:
            for s in self.plan.steps:
                table.add_row(*self._cells(s), key=f"{s.ordinal}:{s.seq}")
            if self.plan.steps:
                table.move_cursor(row=min(row, len(self.plan.steps) - 1))

    # ----------------------------------------------------------------- form
    def form(self) -> ReplayForm:
        def val(sel: str) -> str:
            return self.query_one(sel, Input).value.strip()

        start = int(val("#replay-from")) if val("#replay-from").lstrip("-").isdigit() \
            else self.start
        end = int(val("#replay-to")) if val("#replay-to").lstrip("-").isdigit() else None
        return ReplayForm(start, end, _split(val("#replay-hosts")), _split(val("#replay-only")),
                          _split(val("#replay-allow")))

    @on(Input.Submitted)
    def _form_submitted(self, event: Input.Submitted) -> None:
        self.action_plan()
        self.query_one(DataTable).focus()

    def action_plan(self) -> None:
        if self.running:
            self.notify("a run is in progress", timeout=2)
            return
        self.query_one("#replay-summary", Static).update(Text("planning…", style=DIM))
        self._plan(self.form())

    @work(thread=True, exclusive=True, group="replay-plan", exit_on_error=False)
    def _plan(self, form: ReplayForm) -> None:
        from kb.paths import config_file
        from kb.replay.hostmap import HostMapError, build_host_map, load_config
        from kb.replay.plan import ALLOWABLE
        from kb.replay.run import make_plan

        try:
            bad = [a for a in form.allow if a not in ALLOWABLE]
            if bad:
                raise ValueError(f"allow takes {', '.join(ALLOWABLE)}; not {', '.join(bad)}")
            hostmap = build_host_map(form.host_map, load_config(config_file()))
            with self.app.lease.read() as store:  # type: ignore[attr-defined]
                plan = make_plan(store, self.session_id, hostmap, start=form.start,
                                 end=form.end, only=form.only, allow=form.allow)
        except (HostMapError, ValueError) as e:
            self.post_message(self.Planned(None, str(e)))
            return
        self.post_message(self.Planned(plan))

    def on_replay_screen_planned(self, message: Planned) -> None:
        """Called when a plan is ready: list its steps, say what will run where."""
        if message.error:
            self.query_one("#replay-summary", Static).update(Text(message.error, style=FAIL))
            return
        plan = message.plan
        self.plan = plan
        self.outputs.clear()
        self.results.clear()
        self.record = None
        table = self.query_one(DataTable)
        table.clear()
        for s in plan.steps:
            table.add_row(*self._cells(s), key=f"{s.ordinal}:{s.seq}")
        self._summary()
        if plan.steps:
            table.move_cursor(row=0)
            self._select((plan.steps[0].ordinal, plan.steps[0].seq))
        else:
            self.query_one("#replay-step", Static).update(Text(
                "no recorded commands in this range", style=DIM))

    def _cells(self, s: Any) -> tuple[Any, ...]:
        res = self.results.get((s.ordinal, s.seq))
        if (s.ordinal, s.seq) == self.current and self.running and res is None:
            verdict = Text("running…", style="bold #ffd166")
        elif res is not None:
            verdict = Text(res.verdict, style=VERDICT_STYLE.get(res.verdict, ""))
        else:
            verdict = Text("")
        safety = s.safety if s.info is not None else "–"
        target = s.target or (f"{s.unmapped[0]}?" if s.unmapped else "")
        w = self.widths

        def cut(key: str, text: str) -> str:  # to its column, with an ellipsis
            return short(text, w.get(key) or 200)

        verdict.truncate(w.get("verdict") or 200, overflow="ellipsis")
        cells = {"msg": Text(str(s.ordinal)), "cat": Text(cut("cat", s.category or "")),
                 "safety": Text(cut("safety", safety), style=SAFETY_STYLE.get(safety, DIM)),
                 "action": Text(s.action, style="bold #7ee787" if s.runs else DIM),
                 "target": Text(cut("target", target), style="#ffcb6b" if s.runs else DIM),
                 "verdict": verdict, "cmd": Text(cut("cmd", s.recorded_command))}
        return tuple(cells[key] for key in w)

    def _summary(self) -> None:
        plan = self.plan
        if plan is None:
            return
        n_run = sum(s.runs for s in plan.steps)
        t = Text()
        rng = f"{plan.start}–{plan.end}" if plan.end is not None else f"{plan.start}–end"
        # counted as `logkb replay plan` counts them: steps are recorded tool calls (an
        # edit or a todo list is no command), what runs by safety class
        from kb.replay.plan import step_counts

        head, *more = step_counts(plan.steps, executing=True)
        t.append(f"plan · messages {rng} · {head.split(': ')[0]}: ", style="bold")
        t.append(f"{n_run} to run", style="bold #7ee787" if n_run else DIM)
        t.append(f", {len(plan.steps) - n_run} skipped", style=DIM)
        for line in more:
            t.append(f" · {line}", style=DIM)
        for key, e in plan.hostmap.entries.items():
            t.append(f" · {key} → {e.target.label} ({e.source})", style="#ffcb6b")
        if plan.unmapped:
            t.append(f" · unmapped, never contacted: {', '.join(plan.unmapped)} "
                     f"(map it above, or HOST=HOST to confirm it)", style=FAIL)
        if self.record is not None:
            counts = ", ".join(f"{n} {v}" for v, n in sorted(self.record.verdict_counts.items()))
            t.append(f" · run {self.record.run_id}: {counts}", style="bold")
        self.query_one("#replay-summary", Static).update(t)

    # ----------------------------------------------------------------- side
    @on(DataTable.RowHighlighted)
    def _row(self, event: DataTable.RowHighlighted) -> None:
        if event.row_key.value:
            o, s = event.row_key.value.split(":")
            self._select((int(o), int(s)))

    def _select(self, key: StepKey) -> None:
        self.current_view = key
        self._paint_step()
        if key not in self.histories:
            self._load_history(key)

    @work(thread=True, exclusive=True, group="replay-history", exit_on_error=False)
    def _load_history(self, key: StepKey) -> None:
        from kb.replay.run import step_history

        with self.app.lease.read() as store:  # type: ignore[attr-defined]
            rows = [r for r in step_history(store, self.session_id, key[0])
                    if r["seq"] == key[1]]
        self.post_message(self.HistoryLoaded(key, rows))

    def on_replay_screen_history_loaded(self, message: HistoryLoaded) -> None:
        """Called when a step's past runs were read."""
        self.histories[message.key] = message.rows
        if self.current_view == message.key:
            self._paint_step()

    def _step(self, key: StepKey) -> Any:
        if self.plan is None:
            return None
        return next((s for s in self.plan.steps if (s.ordinal, s.seq) == key), None)

    def _paint_step(self) -> None:
        key = self.current_view
        step = self._step(key) if key else None
        if step is None:
            return
        self.query_one("#replay-step", Static).update(self.step_view(step))

    def step_view(self, s: Any) -> RenderableType:
        """Everything about one planned step: plan, live output, verdict, diff, history."""
        parts: list[RenderableType] = []
        head = Text()
        head.append(f"message {s.ordinal}", style="bold")
        head.append(f" · {s.tool} · {s.category}")
        if s.info is not None:
            head.append(f" · {s.safety}", style=SAFETY_STYLE.get(s.safety, ""))
        parts.append(head)
        parts.append(section("Recorded"))
        if s.recorded_host:
            parts.append(Text(f"  on {s.recorded_host}", style="#ffcb6b"))
        parts.append(bash(s.recorded_command, 2))
        parts.append(section("Plan"))
        verb = "runs" if s.runs else "skipped"
        parts.append(Text.assemble((f"  {verb.upper()} ", "bold #7ee787" if s.runs else FAIL),
                                   (f"on {s.target}" if s.target else "", "#ffcb6b")))
        parts.append(Text(f"  {tilde(s.reason)}", style="" if s.runs else DIM))
        if s.run_command:
            parts.append(Text("  will run:" if s.runs else "  would run:", style=DIM))
            parts.append(bash(s.run_command, 4))
            if s.cwd:
                parts.append(Text(f"  in {tilde(s.cwd)}", style=DIM))
        if s.info is not None and s.safety_reasons:
            parts.append(Text(f"  safety: {'; '.join(s.safety_reasons[:4])}", style=DIM))
        if s.launch is not None:
            parts.append(Text(f"  launch: {s.launch.describe()}", style=DIM))
        for note in s.notes:
            parts.append(Text(f"  note: {tilde(note)}", style=DIM))
        key = (s.ordinal, s.seq)
        out = "".join(self.outputs.get(key, []))
        res = self.results.get(key)
        if out or (self.running and key == self.current):
            parts.append(section("Output (live)" if res is None else "Output"))
            parts.append(Text(out[-6000:] or "(waiting for output…)", style="#c0c6d4"))
        if res is not None and res.executed:
            parts.append(section("Verdict"))
            parts.append(Text.assemble((f"  {res.verdict}", VERDICT_STYLE.get(res.verdict, "")),
                                       (f"  exit {res.exit_code} (recorded "
                                        f"{s.recorded.exit_code})", DIM)))
            parts.append(Text(f"  {res.explanation}"))
            for m in res.measurements[:6]:
                parts.append(Text(f"  {m}", style="#82aaff"))
            parts.append(section("Diff against the recorded output"))
            parts.append(output_diff(s.recorded.output or "", res.output or ""))
        hist = self.histories.get(key)
        if hist:
            parts.append(section(f"Past replays of this step ({len(hist)})"))
            for r in reversed(hist):
                parts.append(replay_line(r))
        elif hist is not None:
            parts.append(Text("never replayed before", style=DIM))
        return Group(*parts)

    # ------------------------------------------------------------- execute
    def action_execute(self) -> None:
        plan = self.plan
        if plan is None or self.running:
            return
        n = sum(s.runs for s in plan.steps)
        if not n:
            self.notify("nothing in this plan would run"
                        + (f": {', '.join(plan.unmapped)} has no host-map entry"
                           if plan.unmapped else ""), severity="warning", timeout=5)
            return
        targets = sorted({s.target for s in plan.steps if s.runs and s.target})

        def done(yes: bool | None) -> None:
            if yes:
                self._start_run()

        self.app.push_screen(ConfirmPrompt(
            f"Run {n} step{'s' if n != 1 else ''} on {', '.join(targets)}? "
            f"{len(plan.steps) - n} are skipped.", yes="Run"), done)

    def _start_run(self) -> None:
        self.running = True
        self.outputs.clear()
        self.results.clear()
        self.query_one("#replay-status", Static).update(Text(
            "running… output streams into the panel", style="bold #ffd166"))
        self._execute(self.plan)

    @work(thread=True, exclusive=True, group="replay-run", exit_on_error=False)
    def _execute(self, plan: Any) -> None:
        from kb.replay.run import execute, save_run

        def key(step: Any) -> StepKey:
            return (step.ordinal, step.seq)

        def output(step: Any, text: str) -> None:
            self.post_message(self.StepOutput(key(step), text))

        try:
            record = execute(
                plan, on_start=lambda s: self.post_message(self.StepStarted(key(s))),
                on_output=output,
                on_done=lambda r: self.post_message(self.StepFinished(key(r.step), r)),
                on_note=lambda m: self.app.call_from_thread(self.notify, m,
                                                            severity="warning"))
        except Exception as e:  # noqa: BLE001 - reported in the panel
            self.post_message(self.RunFinished(None, False, f"{type(e).__name__}: {e}"))
            return
        saved, error = False, None
        try:
            with self.app.lease.write() as store:  # type: ignore[attr-defined]
                save_run(store, record)
            saved = True
        except Exception as e:  # noqa: BLE001
            error = f"the run could not be stored: {e}"
        self.post_message(self.RunFinished(record, saved, error))

    def on_replay_screen_step_started(self, message: StepStarted) -> None:
        """Called when a step starts running: follow it."""
        self.current = message.key
        self._refresh_row(message.key)
        table = self.query_one(DataTable)
        try:
            table.move_cursor(row=table.get_row_index(f"{message.key[0]}:{message.key[1]}"))
        except Exception:  # noqa: BLE001
            pass

    def on_replay_screen_step_output(self, message: StepOutput) -> None:
        """Called when a running step printed something."""
        self.outputs.setdefault(message.key, []).append(message.text)
        if self.current_view == message.key:
            self._paint_step()

    def on_replay_screen_step_finished(self, message: StepFinished) -> None:
        """Called when a step finished (or was skipped): its verdict."""
        self.results[message.key] = message.result
        if message.result.output and not self.outputs.get(message.key):
            self.outputs[message.key] = [message.result.output]
        self._refresh_row(message.key)
        if self.current_view == message.key:
            self._paint_step()

    def on_replay_screen_run_finished(self, message: RunFinished) -> None:
        """Called when the run ended: summary, and the stored run in the history."""
        self.running = False
        self.current = None
        self.record = message.record
        if message.error:
            self.notify(message.error, severity="error", timeout=8)
        status = Text()
        if message.record is not None:
            status.append(f"run {message.record.run_id} finished", style="bold")
            status.append(" · stored" if message.saved else " · not stored", style=DIM)
            self.histories.clear()
        self.query_one("#replay-status", Static).update(status)
        self._summary()
        if self.plan is not None:
            for s in self.plan.steps:
                self._refresh_row((s.ordinal, s.seq))
        key = self.current_view
        if key is not None:
            self._select(key)

    def _refresh_row(self, key: StepKey) -> None:
        step = self._step(key)
        if step is None:
            return
        table = self.query_one(DataTable)
        cells = self._cells(step)
        row_key = f"{key[0]}:{key[1]}"
        try:
            for col, value in zip(self.widths, cells):
                table.update_cell(row_key, col, value)
        except Exception:  # noqa: BLE001 - the plan was replaced meanwhile
            pass

    def on_descendant_focus(self, event: Any) -> None:
        """Called when a widget gets the cursor: a field of the form shows its format."""
        self._field_help(event.widget.id)

    def on_descendant_blur(self, event: Any) -> None:
        """Called when a widget loses the cursor: the format line goes with it."""
        if self.focused is None or self.focused is event.widget:
            self._field_help(None)

    def _field_help(self, field_id: str | None) -> None:
        help_line = self.query_one("#replay-help", Static)
        text = FIELD_HELP.get(field_id or "")
        help_line.display = text is not None
        if text is not None:
            help_line.update(Text(text, style=DIM, overflow="ellipsis", no_wrap=True))

    def action_focus_form(self, selector: str) -> None:
        """Type into a field of the form; enter re-plans, escape returns to the steps."""
        self.query_one(selector, Input).focus()

    def action_back(self) -> None:
        if isinstance(self.focused, Input):
            self.query_one(DataTable).focus()
            return
        if self.running:
            self.notify("a replay is running; it stops by itself (each step has a timeout)",
                        severity="warning", timeout=4)
            return
        self.app.pop_screen()
