"""``logkb replay``: re-run a campaign's recorded commands and say what changed.

The pieces, each in its own module:

* :mod:`kb.replay.hostmap`        where recorded hosts' commands run now (``--host-map``, config);
* :mod:`kb.replay.plan`    pure planning: parse, classify, map, rewrite, decide run/skip;
* :mod:`kb.replay.sshexec`        running: ssh connection sharing, timeouts, local shells;
* :mod:`kb.replay.compare` normalisation, verdicts and their plain-words explanations;
* this module               the run itself (steps, launches, cleanup), records and history.

Public API: :func:`make_plan`, :func:`execute`, :func:`save_run`, :func:`runs`,
:func:`step_history`, :func:`latest_verdicts`, :func:`step_json`.

Records: every run (``logkb replay run``) is stored (``replay_runs``/``replay_steps``,
docs/schema.md).  A plan (``replay plan``) is not stored: it observed
nothing, and planning only needs the knowledge base read-only.
"""

from __future__ import annotations

import dataclasses
import os
import re
import secrets
import shlex
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from importlib import metadata
from typing import Any

import orjson
import pyarrow as pa

from kb.redact import Redactor
from kb.replay import store as replay_store
from kb.replay.compare import (
    MeasurementPair,
    digest,
    judge,
    normalise,
    pair_measurements,
    read_tool_content,
)
from kb.replay.hostmap import HostMap, Target
from kb.replay.plan import READY_PATTERN, LaunchSpec, Plan, PlanOptions, Step, build_plan
from kb.replay.sandbox import Policy, local_bwrap, refused_on_target, remote_wrapper
from kb.replay.sshexec import (
    DEFAULT_MAX_MEMORY,
    DEFAULT_MAX_OUTPUT,
    NEED_BASH,
    Executor,
    Outcome,
    ReplayRefused,
    net_config_guard,
)
from kb.store import KbStore
from logparse.measure import measurements as find_measurements

LOCAL = "this machine"
"""Where a local step's guard says the client configuration it found is."""

__all__ = ["RunRecord", "StepResult", "VerdictRecord", "execute", "latest_verdicts",
           "make_plan", "new_run_id", "runs", "save_run", "step_history", "step_json"]

DIFFERENT = ("changed", "now-fails", "now-passes", "now-answers")
SAVE_EVERY = 2.0
"""Seconds between saves of a running run (it is always saved at its start and end)."""


def new_run_id(now: datetime | None = None) -> str:
    now = now or datetime.now(UTC)
    return f"{now:%Y%m%dT%H%M%S}-{secrets.token_hex(3)}"


def control_dir_for() -> str:
    """A short, unpredictable path for the control sockets (unix sockets need short paths)."""
    base = "/tmp" if os.path.isdir("/tmp") else os.environ.get("TMPDIR", "/tmp")
    return os.path.join(base, f"logkb-r-{secrets.token_hex(6)}")


def make_plan(store: KbStore, session_id: str, hostmap: HostMap, *, start: int,
              end: int | None = None, only: Sequence[str] = (),
              allow: Sequence[str] = (), timeout: float = 120.0, keep_running: bool = False,
              run_id: str | None = None, sandbox: bool = True, remote_sandbox: str = "auto",
              max_output: int = DEFAULT_MAX_OUTPUT,
              max_memory: int = DEFAULT_MAX_MEMORY) -> Plan:
    """The plan for a session's command events from ``start`` to ``end``.

    Reads the store and nothing else: no process is started, nothing is contacted.
    """
    # run what was recorded; show and store it redacted (issue 14)
    events = store.events(session_id, kinds=["command", "result"], categories=list(only),
                          start=start, end=end, raw=True)
    opts = PlanOptions(allow=frozenset(allow), timeout=timeout, keep_running=keep_running,
                       control_dir=control_dir_for(), sandbox=sandbox,
                       remote_sandbox=remote_sandbox, max_output=max_output,
                       max_memory=max_memory)
    plan = build_plan(session_id, events, hostmap, opts, start=start, end=end)
    hide_secrets(plan, store.redactor)
    plan.run_id = run_id or new_run_id()
    plan.only = tuple(only)
    return plan


def hide_secrets(plan: Plan, redactor: Redactor) -> None:
    """Redact what a plan shows and stores (recorded command and output, the command as
    a person would type it, notes); what it executes (``exec_text``, ``remote``,
    ``stdin``) stays as recorded.  A replay's fresh output is redacted as it arrives."""
    plan.redactor = redactor
    if not redactor.active:
        return
    for st in plan.steps:
        st.recorded_command = redactor.text(st.recorded_command)
        st.run_command = redactor.text(st.run_command)
        # the classifier's reasons quote the command ("sshpass -p PASSWORD is not
        # understood", one line of a private key "is not in the table of known
        # programs"): they were printed, and stored, with the secret in clear
        st.reason = redactor.lines(st.reason)
        st.safety_reasons = tuple(redactor.lines(r) for r in st.safety_reasons)
        st.protection = redactor.lines(st.protection)
        st.notes = [redactor.text(n) for n in st.notes]
        st.recorded = dataclasses.replace(st.recorded, output=redactor.text(st.recorded.output))


# --------------------------------------------------------------------------- results
@dataclass
class StepResult:
    step: Step
    verdict: str = "skipped"
    explanation: str = ""
    revisit: bool = False
    exit_code: int | None = None
    output: str | None = None
    duration_ms: int | None = None
    timed_out: bool = False
    answered: bool | None = None
    recorded_answered: bool | None = None
    measurements: list[MeasurementPair] = field(default_factory=list)
    started_at: datetime | None = None
    launch: dict[str, Any] | None = None
    dropped: int = 0
    """Output bytes beyond ``--max-output``, counted and dropped."""

    @property
    def executed(self) -> bool:
        return self.verdict != "skipped"


@dataclass
class RunRecord:
    run_id: str
    plan: Plan
    started_at: datetime
    finished_at: datetime | None = None
    status: str = "completed"
    results: list[StepResult] = field(default_factory=list)
    yes: bool = False

    @property
    def verdict_counts(self) -> dict[str, int]:
        return dict(Counter(r.verdict for r in self.results))

    @property
    def changed(self) -> bool:
        return any(r.verdict in DIFFERENT for r in self.results)


@dataclass(frozen=True)
class VerdictRecord:
    """The latest executed verdict of one recorded step (for the knowledge graph and the TUI)."""

    ordinal: int
    seq: int
    call_id: str | None
    category: str
    verdict: str
    explanation: str
    revisit: bool
    run_id: str
    finished_at: datetime | None
    exit_code: int | None
    recorded_exit_code: int | None
    measurements: tuple[dict[str, Any], ...]


# --------------------------------------------------------------------------- JSON
def step_json(step: Step, result: StepResult | None = None,
              run_id: str | None = None) -> dict[str, Any]:
    """One step as JSON (``--json``): the plan, and with a result the verdict too."""
    obj: dict[str, Any] = {
        "ordinal": step.ordinal, "seq": step.seq, "call_id": step.call_id, "tool": step.tool,
        "category": step.category, "safety": step.safety if step.info is not None else None,
        "safety_reasons": list(step.safety_reasons), "recorded_host": step.recorded_host,
        "recorded_command": step.recorded_command, "target": step.target,
        "run_command": step.run_command, "cwd": step.cwd, "action": step.action,
        "reason": step.reason, "notes": list(step.notes),
        "unmapped_hosts": list(step.unmapped), "protection": step.protection or None,
        "launch": None if step.launch is None else {
            "port": step.launch.port, "log": step.launch.log, "sleep": step.launch.sleep,
            "ready": step.launch.describe()},
    }
    if result is not None:
        obj.update({
            "run_id": run_id, "verdict": result.verdict, "explanation": result.explanation,
            "revisit": result.revisit, "exit_code": result.exit_code,
            "recorded_exit_code": step.recorded.exit_code, "timed_out": result.timed_out,
            "duration_ms": result.duration_ms, "answered": result.answered,
            "recorded_answered": result.recorded_answered, "output": result.output,
            "measurements": [m.as_json() for m in result.measurements],
            "launch_result": result.launch, "output_dropped": result.dropped,
        })
    return obj


# --------------------------------------------------------------------------- execution
OutputSink = Callable[[Step, str], None]


Saver = Callable[["RunRecord", Sequence["StepResult"]], None]


def execute(plan: Plan, *, on_start: Callable[[Step], object] | None = None,
            on_output: OutputSink | None = None,
            on_done: Callable[[StepResult], object] | None = None,
            on_note: Callable[[str], None] | None = None, yes: bool = False,
            save: Saver | None = None) -> RunRecord:
    """Run the plan's ``run`` steps in order, judge each, stop launches, close connections.

    ``save(record, new_results)`` is called when the run starts (status
    ``running``), after every step and at the end, so an interrupted run keeps
    what it did.  Local steps run in bwrap unless the plan says ``--no-sandbox``
    (:class:`ReplayRefused` when bwrap does not work here).
    """
    run_id = plan.run_id
    record = RunRecord(run_id, plan, datetime.now(UTC), yes=yes, status="running")
    allowed = [e.target for e in plan.hostmap.entries.values()]
    opts = plan.options
    bwrap = local_bwrap() if opts.sandbox else None
    if opts.sandbox and bwrap is None:
        raise ReplayRefused("bubblewrap (bwrap) is missing or does not work here: local "
                            "steps cannot be sandboxed; install it (apt-get install "
                            "bubblewrap) or pass --no-sandbox")
    executor = Executor(opts.control_dir, allowed, bwrap=bwrap,
                        remote_sandbox=opts.remote_sandbox, max_output=opts.max_output,
                        max_memory=opts.max_memory)
    saved = 0
    last = 0.0

    def checkpoint(force: bool = True) -> None:
        # at most every SAVE_EVERY seconds while steps run (opening the store costs
        # ~0.2 s), always at the start and the end: a killed run loses only its last
        # few seconds
        nonlocal saved, last
        now = time.monotonic()
        if save is not None and (force or now - last >= SAVE_EVERY):
            save(record, record.results[saved:])
            saved = len(record.results)
            last = now
    launches: list[_Launch] = []
    note = on_note or (lambda _m: None)
    executor.open()
    checkpoint()
    try:
        # one shared connection per target, opened before the first step so step
        # durations measure the commands (and a target that cannot be reached says so once)
        needed: dict[str, Target] = {}
        for step in plan.steps:
            if step.runs:
                for t in step.targets:
                    needed.setdefault(t.label, t)
        for label, t in needed.items():
            try:
                error = executor.ensure_master(t, plan.ctl(t))
            except ReplayRefused as e:
                error = str(e)  # the step itself is refused the same way below
            if error:
                note(f"cannot connect to {label}: {error}")
        for step in plan.steps:
            if not step.runs:
                res = StepResult(step, "skipped", step.reason)
            else:
                if on_start:
                    on_start(step)
                stream = _redactor(plan).stream()
                sink = (lambda text, s=step, r=stream: on_output(s, r.feed(text))
                        ) if on_output else None
                try:
                    res = _run_step(plan, step, executor, launches, sink)
                except ReplayRefused as e:
                    step.action, step.reason = "skip", str(e)
                    res = StepResult(step, "skipped", str(e))
                if on_output:
                    tail = stream.close()
                    if tail:
                        on_output(step, tail)
            record.results.append(res)
            checkpoint(force=False)
            if on_done:
                on_done(res)
        record.status = "completed"
    except KeyboardInterrupt:
        record.status = "interrupted"
        done = {(r.step.ordinal, r.step.seq) for r in record.results}
        for step in plan.steps:
            if (step.ordinal, step.seq) not in done:
                step.action, step.reason = "skip", "the run was interrupted before this step"
                record.results.append(StepResult(step, "skipped", step.reason))
    finally:
        try:
            _finish_launches(plan, executor, launches, note)
        finally:
            executor.close()
            record.finished_at = datetime.now(UTC)
            if record.status == "running":
                record.status = "interrupted"  # an exception other than Ctrl-C
            checkpoint()
    return record


def _redactor(plan: Plan) -> Redactor:
    return plan.redactor or Redactor()


def _run_step(plan: Plan, step: Step, ex: Executor, launches: list[_Launch],
              sink: Callable[[str], None] | None) -> StepResult:
    started = datetime.now(UTC)
    timeout = plan.options.timeout
    launch_state = None
    launch_info = None
    if step.launch is not None:
        out, launch_state, launch_info = _start_launch(plan, step, ex, launches, sink)
    elif step.ssh_target is not None and step.exec_text is None:
        out = ex.run_ssh(step.ssh_target, plan.ctl(step.ssh_target), step.remote,
                         stdin=step.stdin, timeout=timeout, on_output=sink,
                         sandbox=step.sandbox)
    else:
        assert step.exec_text is not None
        text = step.exec_text
        walled = step.ssh_target is not None and step.exec_text_walled is not None and (
            ex.ensure_master(step.ssh_target, plan.ctl(step.ssh_target)) is None
            and ex.target_has_bwrap(step.ssh_target, plan.ctl(step.ssh_target)))
        if walled:  # bwrap worked there when the run started: the step re-checks it
            assert step.exec_text_walled is not None
            text = step.exec_text_walled
        if not plan.options.sandbox:  # no bwrap to mask this machine's client config
            text = net_config_guard(text, LOCAL) + text
        out = ex.run_local(text, cwd=step.cwd or ex.scratch, timeout=timeout,
                           targets=[(t, plan.ctl(t)) for t in step.targets], on_output=sink,
                           sandbox=step.sandbox if plan.options.sandbox else None)
        gone = refused_on_target(out.output) if step.ssh_target is not None else None
        if gone and (walled or plan.options.remote_sandbox == "require"):
            raise ReplayRefused(gone)
    if step.ssh_target is not None and step.exec_text is None and step.sandbox is not None:
        has = ex.remote_bwrap.get(step.ssh_target.label)
        if has is not None:  # what the probe found on the target, for the record
            step.protection = (f"on {step.target}: sandboxed by bwrap "
                               f"({step.sandbox.describe()})" if has else
                               f"on {step.target}: classification only (no working bwrap "
                               "there)")
    out = dataclasses.replace(out, output=_redactor(plan).fresh(out.output) or "")
    rec = step.recorded
    hosts = set(step.recorded_hosts) | plan.allowed_hosts
    jd = judge(category=step.category, info=step.info, command=step.recorded_command,
               old_output=rec.output, old_exit=rec.exit_code, old_status=rec.status,
               old_signatures=rec.error_signatures, new_output=out.output,
               new_exit=out.exit_code, timed_out=out.timed_out, hosts=hosts,
               launch_state=launch_state, tool=step.tool, timeout=timeout)
    pairs = pair_measurements(rec.measurements, find_measurements(out.output))
    explanation = jd.explanation
    if out.dropped:
        explanation += (f" Output capped at {plan.options.max_output} bytes: {out.dropped} more "
                        "bytes were counted and dropped"
                        + ("; the step was stopped because it kept printing." if out.runaway
                           else "."))
    return StepResult(step, jd.verdict, explanation, jd.revisit, out.exit_code, out.output,
                      out.duration_ms, out.timed_out, jd.answered, jd.recorded_answered,
                      pairs, started, launch_info, out.dropped)


# --------------------------------------------------------------------------- launches
@dataclass
class _Launch:
    step: Step
    target: Target | None  # None: local
    cwd: str | None
    pgid: int
    dir: str
    grp: str = "-"
    stopped: bool = False


def _launch_dir(plan: Plan, step: Step) -> str:
    tag = plan.run_id if step.ssh_target is None else (
        f"{plan.run_id}-{os.path.basename(plan.ctl(step.ssh_target))}")
    return f"/tmp/logkb-launch-{tag}"


def _script(plan: Plan, step: Step, ex: Executor, text: str, timeout: float,
            sandbox: Policy | None = None) -> Outcome:
    """Run one of replay's own scripts for a launch (``sandbox``: the launch itself)."""
    if step.ssh_target is not None and step.exec_text is None:
        return ex.run_ssh(step.ssh_target, plan.ctl(step.ssh_target), text, timeout=timeout,
                          wrap=False)
    return ex.run_local(text, cwd=step.cwd or ex.scratch, timeout=timeout,
                        targets=[(t, plan.ctl(t)) for t in step.targets], sandbox=sandbox)


def _start_launch(plan: Plan, step: Step, ex: Executor, launches: list[_Launch],
                  sink: Callable[[str], None] | None) -> tuple[Outcome, str, dict[str, Any]]:
    spec: LaunchSpec = step.launch  # type: ignore[assignment]
    remote = step.ssh_target is not None and step.exec_text is None
    cmd = step.remote if remote else step.exec_text
    assert cmd is not None
    ex.check_text(cmd)
    d = _launch_dir(plan, step)
    log = f"{d}/{step.ordinal}-{step.seq}.log"
    q = shlex.quote
    launched = f"bash -c {q(cmd)}"  # bash, like the recorded command, whatever $SHELL is
    local_wall = None
    pol = step.sandbox
    if remote and pol is not None and plan.options.remote_sandbox != "off":
        assert step.ssh_target is not None
        tgt, ctl = step.ssh_target, plan.ctl(step.ssh_target)
        probed = ex.ensure_master(tgt, ctl) is None and ex.target_has_bwrap(tgt, ctl)
        launched = "sh -c " + q(remote_wrapper(pol, plan.options.remote_sandbox, launched,
                                               probed=probed))
    elif not remote and plan.options.sandbox and pol is not None:
        os.makedirs(d, mode=0o700, exist_ok=True)  # bound read-write into the sandbox
        local_wall = Policy(writable=(*pol.writable, d), network=pol.network, detached=True,
                            visible=pol.visible, git_net=pol.git_net)
    start = (
        (NEED_BASH + net_config_guard(cmd) if remote else "") +
        (net_config_guard(cmd, LOCAL) if not remote and local_wall is None else "") +
        f"d={q(d)}; mkdir -m 700 \"$d\" 2>/dev/null; "
        f"if [ ! -d \"$d\" ] || [ ! -O \"$d\" ]; then echo \"logkb: cannot use $d\" >&2; exit 3; fi; "
        f"if command -v setsid >/dev/null 2>&1; then s=setsid; g=-; else s=; g=; fi; "
        f"$s {launched} > {q(log)} 2>&1 < /dev/null & p=$!; "
        # wait (briefly) until setsid has made the new process group, so that the
        # readiness check and the stop see it
        f"i=0; while ! kill -0 $g$p 2>/dev/null && [ $i -lt 100 ]; do sleep 0.02; "
        f"i=$((i+1)); done; echo \"logkb-pid=$p logkb-group=$g\"")
    t0 = datetime.now(UTC)
    started = _script(plan, step, ex, start, 30, sandbox=local_wall)
    m = re.search(r"logkb-pid=(\d+) logkb-group=(-?)", started.output)
    info: dict[str, Any] = {"dir": d, "step_log": log, "log": spec.log}
    if not m:
        info["ready"] = "not started"
        return Outcome(started.exit_code, started.output, started.duration_ms,
                       started.timed_out, started.started_at), "not started", info
    pgid = int(m.group(1))
    grp = m.group(2)  # "-": a process group of its own (setsid); "": just the process
    info["pgid"] = pgid
    info["group"] = bool(grp)
    launches.append(_Launch(step, step.ssh_target if remote else None, step.cwd, pgid, d,
                            grp))
    timeout = plan.options.timeout
    if spec.port:
        wait, end_state = timeout, "timeout"
    elif spec.sleep:
        wait, end_state = min(spec.sleep, timeout), "slept"
    else:
        wait, end_state = min(timeout, 10.0), "alive"
    limit = max(1, int(wait / 0.2))
    checks = []
    if spec.port:
        host, port = spec.check_host, spec.port
        probe = (f"if command -v bash >/dev/null 2>&1; then "
                 f"$n bash -c {q(f'exec 3<>/dev/tcp/{host}/{port}')} 2>/dev/null && r=port; "
                 f"elif command -v python3 >/dev/null 2>&1; then $n python3 -c "
                 f"{q(f'import socket; socket.create_connection(({host!r}, {port}), 1)')} "
                 f"2>/dev/null && r=port; fi")
        if pol is not None and not pol.network and (remote or local_wall is not None):
            # the launch has a network namespace of its own: its port is checked inside
            # it, entered through one of the launch's processes (nsenter needs the right
            # to; without it the log or the process still tells)
            checks.append(
                f"for q in $(pgrep -g {pgid} 2>/dev/null) {pgid}; do "
                f"n=\"nsenter -t $q -n\"; $n true 2>/dev/null || continue; {probe}; "
                f"[ -n \"$r\" ] && break; done; n=")
            files = " ".join(q(f) for f in (log, spec.log) if f)
            checks.append(f"grep -E -q {q(READY_PATTERN)} {files} 2>/dev/null && r=log")
        else:
            checks.append(f"n=; {probe}")
    elif not spec.sleep:
        files = " ".join(q(f) for f in (log, spec.log) if f)
        checks.append(f"grep -E -q {q(READY_PATTERN)} {files} 2>/dev/null && r=log")
    ready = (
        f"pg={pgid}; i=0; r=; while :; do "
        f"if ! kill -0 {grp}$pg 2>/dev/null; then r=exited; fi; "
        + "".join(f"[ -z \"$r\" ] && {{ {c}; }}; " for c in checks)
        + f"if [ -n \"$r\" ]; then echo \"logkb-ready=$r\"; exit 0; fi; "
        f"i=$((i+1)); if [ $i -ge {limit} ]; then echo \"logkb-ready={end_state}\"; exit 0; fi; "
        f"sleep 0.2; done")
    waited = _script(plan, step, ex, ready, wait + 15)
    m2 = re.search(r"logkb-ready=(\w+)", waited.output)
    state = m2.group(1) if m2 else ("timeout" if waited.timed_out else "unknown")
    info["ready"] = state
    tail = spec.tail or 40
    capture = f"cat {q(log)} 2>/dev/null"
    if spec.log:
        capture += (f"; if [ -f {q(spec.log)} ]; then echo {q('==> ' + spec.log + ' <==')}; "
                    f"tail -n {tail} {q(spec.log)}; fi")
    got = _script(plan, step, ex, capture, 30)
    if sink and got.output:
        sink(got.output)
    dur = int((datetime.now(UTC) - t0).total_seconds() * 1000)
    return Outcome(0 if state in ("port", "log", "slept", "alive") else 1, got.output, dur,
                   False, started.started_at), state, info


def _finish_launches(plan: Plan, ex: Executor, launches: list[_Launch],
                     note: Callable[[str], None]) -> None:
    dirs: dict[str, Step] = {}
    for la in launches:
        dirs.setdefault(la.dir, la.step)
        if plan.options.keep_running:
            where = la.target.label if la.target else "this machine"
            note(f"left running: message {la.step.ordinal} on {where}: process group "
                 f"{la.pgid}, output in {la.dir}; stop it with `kill -TERM {la.grp}{la.pgid}` "
                 "there")
            continue
        p = f"{la.grp}{la.pgid}"
        stop = (f"kill -TERM {p} 2>/dev/null; i=0; while kill -0 {p} 2>/dev/null "
                f"&& [ $i -lt 30 ]; do sleep 0.1; i=$((i+1)); done; "
                f"kill -KILL {p} 2>/dev/null; true")
        try:
            _script(plan, la.step, ex, stop, 20)
            la.stopped = True
        except ReplayRefused:
            pass
    if not plan.options.keep_running:
        for d, step in dirs.items():
            try:
                _script(plan, step, ex, f"rm -rf {shlex.quote(d)}", 20)
            except ReplayRefused:
                pass


# --------------------------------------------------------------------------- records
_MEAS_TYPE = pa.list_(pa.struct([("label", pa.string()), ("unit", pa.string()),
                                 ("old", pa.float64()), ("new", pa.float64()),
                                 ("ratio", pa.float64())]))


def _naive(dt: datetime | None) -> datetime | None:
    return dt.astimezone(UTC).replace(tzinfo=None) if dt is not None else None


def save_run(store: KbStore, record: RunRecord,
             results: Sequence[StepResult] | None = None) -> None:
    """Store (or update) a run and the steps in ``results`` (default: all of them).

    One transaction, Arrow inserts; the run row is replaced, so calling it after
    every step keeps the stored run current.
    """
    new = record.results if results is None else list(results)
    plan = record.plan
    try:
        version = metadata.version("logkb")
    except metadata.PackageNotFoundError:  # pragma: no cover
        version = None
    targets = {k: {"target": e.target.label, "source": e.source}
               for k, e in plan.hostmap.entries.items()}
    options = {"allow": sorted(plan.options.allow), "timeout": plan.options.timeout,
               "keep_running": plan.options.keep_running, "yes": record.yes,
               "sandbox": plan.options.sandbox, "remote_sandbox": plan.options.remote_sandbox,
               "max_output": plan.options.max_output}
    executed = sum(1 for r in record.results if r.executed)
    run_tbl = pa.table({
        "run_id": [record.run_id], "session_id": [plan.session_id],
        "started_at": pa.array([_naive(record.started_at)], pa.timestamp("us")),
        "finished_at": pa.array([_naive(record.finished_at)], pa.timestamp("us")),
        "range_from": pa.array([plan.start], pa.int32()),
        "range_to": pa.array([plan.end], pa.int32()),
        "only_categories": pa.array([list(plan.only)], pa.list_(pa.string())),
        "targets": [orjson.dumps(targets).decode()],
        "options": [orjson.dumps(options).decode()],
        "status": [record.status],
        "step_count": pa.array([len(record.results)], pa.int32()),
        "executed_count": pa.array([executed], pa.int32()),
        "verdicts": [orjson.dumps(record.verdict_counts).decode()],
        "logkb_version": [version],
    })
    rows: dict[str, list[Any]] = {k: [] for k in (
        "run_id", "session_id", "ordinal", "seq", "call_id", "tool", "category", "safety",
        "safety_reasons", "recorded_host", "target", "run_command", "action", "reason",
        "verdict", "explanation", "revisit", "exit_code", "recorded_exit_code", "timed_out",
        "answered", "recorded_answered", "output", "output_digest", "recorded_output_digest",
        "measurements", "started_at", "duration_ms", "launch", "output_dropped", "sandbox")}
    hide = _redactor(plan).hiding().text  # stored: never with secrets, even when shown
    hide_lines = _redactor(plan).hiding().lines  # reasons quote single lines of a command
    for r in new:
        s = r.step
        hosts = set(s.recorded_hosts) | plan.allowed_hosts
        old = read_tool_content(s.recorded.output) if s.tool == "read" else s.recorded.output
        vals = {
            "run_id": record.run_id, "session_id": plan.session_id, "ordinal": s.ordinal,
            "seq": s.seq, "call_id": s.call_id, "tool": s.tool, "category": s.category,
            "safety": s.safety if s.info is not None else None,
            "safety_reasons": [hide_lines(x) for x in s.safety_reasons],
            "recorded_host": s.recorded_host,
            "target": s.target, "run_command": hide(s.run_command), "action": s.action,
            "reason": hide_lines(s.reason), "verdict": r.verdict, "explanation": hide(r.explanation),
            "revisit": r.revisit, "exit_code": r.exit_code,
            "recorded_exit_code": s.recorded.exit_code, "timed_out": r.timed_out,
            "answered": r.answered, "recorded_answered": r.recorded_answered,
            "output": r.output,
            "output_digest": digest(normalise(r.output, hosts)) if r.output is not None else None,
            "recorded_output_digest": digest(normalise(old, hosts)),
            "measurements": [m.as_json() for m in r.measurements],
            "started_at": _naive(r.started_at), "duration_ms": r.duration_ms,
            "launch": orjson.dumps(r.launch).decode() if r.launch is not None else None,
            "output_dropped": r.dropped, "sandbox": s.protection or None,
        }
        for k, v in vals.items():
            rows[k].append(v)
    types = {"ordinal": pa.int32(), "seq": pa.int32(), "exit_code": pa.int32(),
             "recorded_exit_code": pa.int32(), "duration_ms": pa.int64(),
             "safety_reasons": pa.list_(pa.string()), "measurements": _MEAS_TYPE,
             "started_at": pa.timestamp("us"), "revisit": pa.bool_(), "timed_out": pa.bool_(),
             "output_dropped": pa.int64(),
             "answered": pa.bool_(), "recorded_answered": pa.bool_()}
    step_tbl = pa.table({k: pa.array(v, types.get(k, pa.string())) for k, v in rows.items()})
    replay_store.write_run(store, record.run_id, run_tbl, step_tbl if new else None)


def runs(store: KbStore, session_id: str | None = None) -> list[dict[str, Any]]:
    """Stored runs, newest first."""
    out = []
    for d in replay_store.run_rows(store, session_id):
        for k in ("targets", "options", "verdicts"):
            if isinstance(d[k], str):
                d[k] = orjson.loads(d[k])
        out.append(d)
    return out


def step_history(store: KbStore, session_id: str, ordinal: int) -> list[dict[str, Any]]:
    """How one recorded step fared in every stored run, oldest first."""
    out = []
    for d in replay_store.step_rows(store, session_id, ordinal):
        if isinstance(d.get("launch"), str):
            d["launch"] = orjson.loads(d["launch"])
        out.append(d)
    return out


_PRIORITY = {"now-passes": 5, "now-answers": 4, "now-fails": 3, "changed": 2, "same": 1}


def latest_verdicts(store: KbStore, session_id: str) -> dict[int, VerdictRecord]:
    """The most recent executed verdict per ordinal of a session (skips ignored).

    When a message holds several commands, the most significant verdict of the
    latest run that executed any of them wins (``now-passes`` > ``now-answers``
    > ``now-fails`` > ``changed`` > ``same``).
    """
    rows = replay_store.executed_steps(store, session_id)
    out: dict[int, VerdictRecord] = {}
    latest_run: dict[int, str] = {}
    for (ordinal, seq, call_id, cat, verdict, expl, revisit, run_id, fin, code, rcode,
         meas) in rows:
        if ordinal in latest_run and latest_run[ordinal] != run_id:
            continue
        rec = VerdictRecord(ordinal, seq, call_id, cat, verdict, expl or "", bool(revisit),
                            run_id, fin, code, rcode, tuple(meas or ()))
        prev = out.get(ordinal)
        if prev is None or _PRIORITY.get(verdict, 0) > _PRIORITY.get(prev.verdict, 0):
            out[ordinal] = rec
        latest_run[ordinal] = run_id
    return out
