"""The ``logkb replay`` command (registered on the group in :mod:`kb.cli`).

stdout carries data (the plan, verdicts, history; ``--json``: one object per
step or run per line); the output of running commands is streamed to stderr
as it arrives, with progress and notes.  Never imports Textual.
"""

from __future__ import annotations

import functools
import sys
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from kb.cli.tools import (
    LEGACY,
    ORDINAL,
    ModeGroup,
    check_range,
    db_option,
    deprecated,
    emit_json,
    err,
    fail,
    handle_errors,
    json_option,
    note,
    open_store,
    out,
    plural,
    resolve,
    session_option,
)
from kb.exitcodes import ExitCode
from kb.paths import config_file
from kb.replay.hostmap import HostMapError, build_host_map, is_literal_host, load_config

EXIT_EPILOG = """\b
Exit codes: 0 every executed step is `same` (or plan only) · 1 failed,
interrupted, or every step was refused · 2 usage · 5 knowledge base busy
· 6 not found · 7 some verdict differs (changed, now-fails, now-passes,
now-answers)."""

EPILOG = """\b
Host map: --host-map OLD=NEW, NEW being user@host[:port], an ssh config alias
or `local`; or the [hosts] table of ~/.config/logkb/config.toml:
    [hosts]
    "10.1.230.174" = "gpu-staging"
    [hosts."root@10.1.230.175"]
    target = "root@127.0.0.1:2222"
    identity = "~/.ssh/replay_key"
    options = ["StrictHostKeyChecking=yes"]
A recorded host without an entry is never contacted: confirm it with
--host-map H=H, --yes, or a yes on a terminal.  A target without a user keeps
the recorded one.  Nested ssh calls inside remote commands go through the map
too; a step that would reach an unmapped host is refused.

\b
Safety: a step is read-only only when every part of it is known to be (one
table of programs, their allowed options, no executing expansion, no write but
to /dev/null, Python only as allow-listed forms); read-only steps run by
default; --allow launch,mutating,unknown opens the other classes.  A step that
names a network endpoint outside ssh (/dev/tcp, a URL, nc HOST) is refused.
Local steps run inside bubblewrap (read-only root, private /tmp, no network:
launched and unknown steps too, unless --allow host-network); remote ones too
when the target has bwrap (--remote-sandbox).  Output is kept
up to --max-output per step; runs are saved step by step.

\b
Runs (`replay run`) are stored (see `replay show`); plans are not.

""" + EXIT_EPILOG


def _plan_options(fn: Any, *, legacy: bool = False) -> Any:
    """The options ``replay plan`` and ``replay run`` share (the plan is what runs)."""
    for deco in reversed((
        session_option,
        click.option("--from", "start", type=ORDINAL, metavar="N", required=not legacy,
                     help="First message ordinal to replay."),
        click.option("--to", "end", type=ORDINAL, metavar="M",
                     help="Last ordinal [default: the end]."),
        click.option("--only", "only", multiple=True, metavar="CATEGORIES",
                     help="Only commands of these categories (comma-separated or "
                          "repeated): search, test, build, lint, typecheck, git, http, "
                          "run, launch, benchmark, ... (the values of `logkb events "
                          "--category`)"),
        click.option("--host-map", "host_maps", multiple=True, metavar="OLD=NEW",
                     help="Run recorded host OLD's commands on NEW (user@host[:port], an "
                          "ssh alias, or local). Repeatable; wins over the config file."),
        click.option("--allow", "allow", multiple=True, metavar="CLASSES",
                     help="Also run these safety classes: launch, mutating, unknown "
                          "(comma-separated). read-only always runs. host-network: "
                          "launched and unknown steps use this machine's network, not "
                          "their own."),
        click.option("--timeout", type=click.FloatRange(min=0.1), default=120.0,
                     show_default=True, metavar="S",
                     help="Seconds per step (launches: the wait for readiness)."),
        click.option("--keep-running", is_flag=True,
                     help="Leave launched processes running at the end (default: stop "
                          "them)."),
        click.option("--no-sandbox", is_flag=True,
                     help="Run local steps without bubblewrap (classification is then the "
                          "only wall). Without it, `run` refuses when bwrap does not work "
                          "here."),
        click.option("--remote-sandbox", type=click.Choice(["auto", "require", "off"]),
                     default="auto", show_default=True,
                     help="Wrap remote commands in bwrap on the target: auto (when it has "
                          "bwrap), require (refuse steps on targets without it), off."),
        click.option("--max-output", type=click.IntRange(min=1024), default=1 << 20,
                     show_default=True, metavar="BYTES",
                     help="Output kept per step; the rest is counted and dropped (a step "
                          "that keeps printing far beyond it is stopped)."),
        click.option("--max-memory", type=click.IntRange(min=1 << 20), default=4 << 30,
                     show_default=True, metavar="BYTES",
                     help="Memory (data segment) a step may use."),
        click.option("--yes", "-y", is_flag=True,
                     help="Confirm contacting recorded hosts that have no host-map entry, "
                          "as recorded."),
        db_option,
        json_option,
        handle_errors,
    )):
        fn = deco(fn)
    return fn


@click.group(cls=ModeGroup, epilog=EXIT_EPILOG)
def replay() -> None:
    """Re-run a session's recorded commands and say what changed.

    \b
    logkb replay plan --from N     what would run, where, and why (runs nothing)
    logkb replay run --from N      run the allowed steps, store the run, verdicts
    logkb replay show              the stored runs of the session
    logkb replay compare ORDINAL   one step's verdict in every stored run
    `logkb replay --from N` is `logkb replay plan --from N`.
    """


@replay.command("plan", epilog=EPILOG)
@_plan_options
def replay_plan(**kw: Any) -> None:
    """Print the plan: nothing is executed.

    For each command from --from on: the recorded command, where it will run, the
    exact command, its safety class and whether it will run or be skipped, and why.
    """
    _plan_or_run(execute=False, **kw)


@replay.command("run", epilog=EPILOG)
@_plan_options
def replay_run(**kw: Any) -> None:
    """Run the plan's allowed steps and give each a verdict.

    ssh with one shared connection per target; launches start in the background,
    are waited for, and stopped at the end.  Each step is compared with its
    recording after normalising timestamps, PIDs, addresses and the like: same,
    changed, now-fails, now-passes, now-answers (the recorded step never
    answered, e.g. ssh failed), skipped.  The run is stored (`replay show`).
    """
    _plan_or_run(execute=True, **kw)


@replay.command("show")
@session_option
@db_option
@json_option
@handle_errors
def replay_show(session_id: str | None, db: Path | None, as_json: bool) -> None:
    """List the session's stored runs: when, range, verdicts, status, targets."""
    _history(db, session_id, None, as_json)


@replay.command("compare")
@click.argument("ordinal", type=int)
@session_option
@db_option
@json_option
@handle_errors
def replay_compare(ordinal: int, session_id: str | None, db: Path | None,
                   as_json: bool) -> None:
    """How the step at ORDINAL compared with its recording in every stored run."""
    _history(db, session_id, ordinal, as_json)


@replay.command(LEGACY, hidden=True, epilog=EPILOG)
@functools.partial(_plan_options, legacy=True)
@click.option("--execute", is_flag=True, help="Deprecated: `replay run`.")
@click.option("--history", type=int, is_flag=False, flag_value=0, default=None,
              metavar="[ORDINAL]", help="Deprecated: `replay show` / `replay compare`.")
def replay_legacy(execute: bool, history: int | None, **kw: Any) -> None:
    """The flag form: `replay --from N` is the plan; --execute and --history are
    deprecated (`replay run`, `replay show`, `replay compare`)."""
    if history is not None:
        new = f"logkb replay compare {history}" if history else "logkb replay show"
        deprecated("logkb replay --history", new)
        _history(kw["db"], kw["session_id"], history or None, kw["as_json"])
        return
    if kw["start"] is None:
        raise click.UsageError("--from N is required (`logkb replay plan --from N`)")
    if execute:
        deprecated("logkb replay --execute", "logkb replay run")
    _plan_or_run(execute=execute, **kw)


def _plan_or_run(*, session_id: str | None, start: int, end: int | None,
                 only: tuple[str, ...], host_maps: tuple[str, ...], execute: bool,
                 allow: tuple[str, ...], timeout: float, keep_running: bool,
                 no_sandbox: bool, remote_sandbox: str, max_output: int, max_memory: int,
                 yes: bool, db: Path | None, as_json: bool) -> None:
    from kb.replay.plan import ALLOWABLE
    from kb.replay.run import execute as run_plan
    from kb.replay.run import make_plan, save_run

    check_range(start, end)

    allowed = _split(allow)
    bad = [a for a in allowed if a not in ALLOWABLE]
    if bad:
        raise click.UsageError(f"--allow takes {', '.join(ALLOWABLE)}; not {', '.join(bad)}")
    try:
        hostmap = build_host_map(host_maps, load_config(config_file()))
    except HostMapError as e:
        raise click.UsageError(str(e)) from None
    cats = _split(only)

    with open_store(db) as store:
        sid = resolve(store, session_id)
        last = store.max_ordinal(sid)
        if start > last:  # "no command events … from 5200" and exit 0 named no message
            name = store.short_ids().get(sid, sid)
            fail(f"session {name} has no message {start} "
                 f"({f'its messages are 1–{last}' if last else 'it has no messages'})",
                 ExitCode.NOT_FOUND)

        def plan_now() -> Any:
            return make_plan(store, sid, hostmap, start=start, end=end, only=cats,
                             allow=allowed, timeout=timeout, keep_running=keep_running,
                             sandbox=not no_sandbox, remote_sandbox=remote_sandbox,
                             max_output=max_output, max_memory=max_memory)

        plan = plan_now()
        name = store.short_ids().get(sid, sid)
        if plan.unmapped and (execute or yes):
            confirmed = []
            for host in plan.unmapped:
                if not is_literal_host(host):
                    continue  # built at run time: a yes cannot say where it goes
                if yes or (not as_json and sys.stdin.isatty() and sys.stderr.isatty()
                           and click.confirm(f"{host} has no host-map entry. Contact it as "
                                             "recorded?", default=False, err=True)):
                    if hostmap.confirm(host):
                        confirmed.append(host)
            if confirmed:
                plan = plan_now()
        plan.short_id = name

    if not plan.steps:
        err.print(f"no recorded tool call in {name} from {start}"
                  f"{' to ' + str(end) if end is not None else ''}: nothing to replay",
                  highlight=False)
        return
    if as_json and not execute:
        for s in plan.steps:
            from kb.replay.run import step_json
            emit_json(step_json(s))
        return
    if not as_json:
        _print_plan(plan, executing=execute)
    if not execute:
        from kb.replay.plan import by_safety

        n = sum(s.runs for s in plan.steps)
        note("plan only: nothing was executed, and no step would run (each "
             "`skipped:` line says why; --allow, --host-map or --yes open them)."
             if n == 0 else
             f"plan only: nothing was executed. {n} step{'s' if n != 1 else ''} would "
             f"run ({by_safety([s for s in plan.steps if s.runs])}); "
             "`logkb replay run` runs them.", wrap=True)
        return
    from kb.replay.sandbox import local_bwrap

    if not no_sandbox and local_bwrap() is None:
        note("replay: bubblewrap (bwrap) is missing or does not work here, so local "
             "steps cannot be sandboxed; install it (apt-get install bubblewrap) or "
             "pass --no-sandbox", wrap=True)
        sys.exit(int(ExitCode.FAILED))

    def save(rec: Any, new: Any) -> None:  # step by step: an interrupted run keeps its steps
        with open_store(db, read_only=False) as st:
            save_run(st, rec, new)

    record = _execute(plan, run_plan, as_json, yes, save)
    with open_store(db, read_only=False) as store:
        revisits = _mark_graph(store, sid)
    for line in revisits:
        err.print(line, highlight=False)
    counts = record.verdict_counts
    summary = ", ".join(f"{v} {k}" for k, v in sorted(counts.items(), key=lambda kv: kv[0]))
    err.print(f"run {record.run_id} stored: {summary or 'nothing ran'}"
              f"{' (interrupted)' if record.status == 'interrupted' else ''}", highlight=False)
    if record.status == "interrupted":
        sys.exit(int(ExitCode.FAILED))
    if counts and set(counts) == {"skipped"}:
        # asked to run, and every step was refused: that is not success
        err.print(f"logkb: error: nothing ran: all {counts['skipped']} "
                  f"step{'s were' if counts['skipped'] != 1 else ' was'} refused "
                  "(the plan's `skipped:` lines say why; --allow, --host-map or --yes "
                  "open them)", highlight=False)
        sys.exit(int(ExitCode.FAILED))
    if record.changed:
        sys.exit(int(ExitCode.REPLAY_CHANGED))


def _mark_graph(store: Any, session_id: str) -> list[str]:
    """Fold the run's verdicts into the knowledge graph (if it was built) and say which
    ended approaches the replay brings back into question."""
    from kb.graph import store as gs

    scope = gs.scope_of(store, session_id)
    if not gs.built(store, scope):
        return []
    gs.rebuild(store, scope)
    return [f"knowledge graph: {a['label']} ({a['status'].replace('_', ' ')}: "
            f"{a.get('cause') or 'no cause'}) may have come back — {a['revisit']}"
            for a in gs.approaches(store, [scope])
            if a.get("revisit") and a["status"] in ("dead_end", "blocked")
            and a["revisit"].startswith("replay")]


def _split(values: tuple[str, ...]) -> list[str]:
    return [v.strip() for item in values for v in item.split(",") if v.strip()]


# ---------------------------------------------------------------------------- printing
def _print_plan(plan: Any, *, executing: bool) -> None:
    from rich.cells import cell_len

    steps = plan.steps
    rng = f"{plan.start}–{plan.end}" if plan.end is not None else f"{plan.start}–end"
    from kb.replay.plan import step_counts

    counts, *parts = step_counts(steps, executing=executing)
    head = f"replay plan · session {plan.short_id or plan.session_id} · messages {rng}"
    if cell_len(f"{head} · {counts}") <= out.width:
        _say(f"{head} · {counts}")
    else:  # the counts are what the line is for: never the part cut off
        _say(head)
        _say(counts)
    import textwrap

    from rich.text import Text

    for part in parts:
        for line in textwrap.wrap(part, width=out.width, initial_indent="  ",
                                  subsequent_indent="    ", break_on_hyphens=False):
            out.print(Text(line), no_wrap=True, crop=True)
    for key, e in plan.hostmap.entries.items():
        _say(f"host map: {key} → {e.target.label} ({e.source})")
    for h in plan.unmapped:
        if not is_literal_host(h):
            from kb.replay.plan import runtime_host_advice

            _say(f"unmapped: {h} — its steps are refused: {runtime_host_advice(h)}")
            continue
        _say(f"unmapped: {h} — its steps are refused; map it with --host-map {h}=TARGET or "
             f"confirm it (--host-map {h}={h}, --yes)")
    _say("")
    for s in steps:
        head = f"{s.ordinal:>6}  {s.tool}  {s.category}"
        if s.info is not None:
            head += f"  {s.safety}"
        head += f"  {s.action.upper()}"
        if s.target:
            head += f"  on {s.target}"
            if s.recorded_host and s.target != s.recorded_host:
                head += f" (recorded {s.recorded_host})"
        elif s.unmapped:
            head += f"  on {s.recorded_host or s.unmapped[0]}: unmapped, not contacted"
        _say(head)
        pad = " " * 8
        _say(f"{pad}recorded: {_one_line(s.recorded_command)}")
        if s.run_command:
            _say(f"{pad}{'will run' if s.runs else 'would run'}: {_one_line(s.run_command)}")
            if s.cwd:
                _say(f"{pad}in:       {s.cwd}")
        if s.info is not None and s.safety_reasons:
            _say(f"{pad}safety:   {s.safety} — {'; '.join(s.safety_reasons[:4])}")
        if s.protection:
            _say(f"{pad}wall:     {s.protection}")
        _say(f"{pad}{'why' if s.runs else 'skipped'}:{' ' * (6 if s.runs else 2)}{s.reason}")
        if s.launch is not None and s.runs:
            _say(f"{pad}launch:   in the background, {s.launch.describe()}; "
                 + ("left running at the end" if plan.options.keep_running
                    else "stopped at the end of the run"))
        for remark in s.notes:
            _say(f"{pad}note:     {remark}")
    _say("")


def _execute(plan: Any, run_plan: Any, as_json: bool, yes: bool, save: Any) -> Any:
    from kb.replay.run import step_json

    def on_start(step: Any) -> None:
        if not as_json:
            err.print(f"── {step.ordinal} on {step.target} ──", highlight=False)

    def on_output(step: Any, text: str) -> None:
        if not as_json:
            from kb.safe_text import visible

            sys.stderr.write(visible(text))  # what it prints is shown, never obeyed
            sys.stderr.flush()

    def on_done(res: Any) -> None:
        if as_json:
            emit_json(step_json(res.step, res, plan.run_id))
            sys.stdout.flush()
            return
        if not res.executed:
            return
        s = res.step
        bits = []
        if res.timed_out:
            bits.append("timed out")
        else:
            bits.append(f"exit {res.exit_code}")
        bits.append(f"recorded {s.recorded.exit_code if s.recorded.exit_code is not None else '–'}")
        if res.duration_ms is not None:
            bits.append(f"{res.duration_ms / 1000:.2f} s")
        _say(f"{s.ordinal:>6}  {res.verdict.upper()}  ({', '.join(bits)})")
        _say(f"        {res.explanation}")
        shown = [m for m in res.measurements if m.old is not None and m.new is not None][:6]
        for m in shown:
            _say(f"        {m}")
        if res.launch and res.launch.get("pgid"):
            _say(f"        launch: ready={res.launch.get('ready')}, process group "
                 f"{res.launch.get('pgid')}")

    def on_note(msg: str) -> None:
        err.print(msg, highlight=False)

    if not as_json:
        _say(f"running {plural(sum(s.runs for s in plan.steps), 'step')} · run {plan.run_id}")
    return run_plan(plan, on_start=on_start, on_output=on_output, on_done=on_done,
                    on_note=on_note, yes=yes, save=save)


def _history(db: Path | None, session_id: str | None, ordinal: int | None,
             as_json: bool) -> None:
    from kb.replay.run import runs, step_history

    with open_store(db) as store:
        sid = store.resolve_session(session_id)
        name = store.short_ids().get(sid, sid)
        if ordinal is not None:
            last = store.max_ordinal(sid)
            if ordinal < 1 or ordinal > last:  # no such message: not found, as `show`
                fail(f"session {name} has no message {ordinal} "
                     f"({f'its messages are 1–{last}' if last else 'it has no messages'})",
                     ExitCode.NOT_FOUND)
        if ordinal is None:
            rows = runs(store, sid)
            if as_json:
                for r in rows:
                    emit_json(_jsonable(r))
                return
            if not rows:
                err.print(f"no replay runs stored for {name}", highlight=False)
                return
            for r in rows:
                rng = f"{r['range_from']}–{r['range_to'] if r['range_to'] is not None else 'end'}"
                targets = ", ".join(f"{k}→{v['target']}" for k, v in r["targets"].items())
                verdicts = ", ".join(f"{n} {v}" for v, n in sorted(r["verdicts"].items()))
                _say(f"{r['run_id']}  {_when(r['started_at'])}  {rng}  "
                     f"{r['executed_count']}/{r['step_count']} run: {verdicts}  "
                     f"[{r['status']}]  {targets}")
            return
        rows = step_history(store, sid, ordinal)
    if as_json:
        for r in rows:
            emit_json(_jsonable(r))
        return
    if not rows:
        err.print(f"message {ordinal} has not been replayed in {name}", highlight=False)
        return
    first = rows[0]
    _say(f"{ordinal} · {first['category']} · {_one_line(first['run_command'] or '')}")
    for r in rows:
        code = "timed out" if r["timed_out"] else f"exit {r['exit_code']}"
        extra = (f"{code} (recorded {r['recorded_exit_code']})" if r["verdict"] != "skipped"
                 else "")
        dur = f"{r['duration_ms'] / 1000:.2f} s" if r["duration_ms"] is not None else ""
        _say(f"  {_when(r['run_started_at'])}  {r['run_id']}  {r['verdict']:<11} {extra}  "
             f"{dur}  {r['target'] or ''}".rstrip())
        text = r["explanation"] or r["reason"]
        if text:
            _say(f"      {text}")
        ratios = [m for m in (r["measurements"] or []) if m.get("ratio") is not None][:4]
        for m in ratios:
            _say(f"      {m['label']}: {m['old']:g} → {m['new']:g} {m['unit']} "
                 f"({m['ratio']:.2f}×)")


def _jsonable(r: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in r.items()}


def _when(dt: Any) -> str:
    return dt.strftime("%Y-%m-%d %H:%M:%S") if isinstance(dt, datetime) else str(dt or "")


def _one_line(text: str) -> str:
    return text.replace("\n", " ⏎ ")


def _say(text: str) -> None:
    """A line of the plan that fits the width: a step's head is cut with an ellipsis,
    a ``label: value`` line (commands) wraps under its value."""
    import re

    from rich.cells import cell_len
    from rich.text import Text

    from kb.safe_text import visible

    text = visible(text)
    w = out.width
    if cell_len(text) <= w:
        out.print(Text(text), no_wrap=True, crop=True)
        return
    m = re.match(r"^( *[a-z ]+: *)", text)
    if not m or len(m.group(1)) > w // 2:
        out.print(Text(text, no_wrap=True), no_wrap=True, overflow="ellipsis", crop=True)
        return
    label = m.group(1)
    hang = " " * len(label)
    rest = text[len(label):]
    if label.strip() in ("recorded:", "will run:", "would run:", "in:"):
        # a command: every character matters, so it is cut at the width, not at words
        first = True
        while rest:
            room = w - len(hang)
            piece, rest = rest[:room], rest[room:]
            out.print(Text((label if first else hang) + piece), no_wrap=True, crop=True)
            first = False
        return
    import textwrap

    for line in textwrap.wrap(rest, width=w, initial_indent=label, subsequent_indent=hang,
                              break_on_hyphens=False):
        out.print(Text(line), no_wrap=True, crop=True)
