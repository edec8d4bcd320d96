"""Replay planning: what each recorded command becomes, where it runs, and whether it runs.

Pure: planning reads events and the host map and returns :class:`Step` values;
it never starts a process or touches the network.  For each command event:

1. The command is parsed (:func:`logparse.shell.parse_command`) and classified
   (:func:`logparse.shell.classify_safety`); the class decides whether it may
   run (``read-only`` by default, ``--allow`` opens ``launch``, ``mutating``
   and ``unknown``).
2. Every ssh destination it names, the wrapper chain (``hops``) and nested ssh
   calls inside the remote command (``nested_ssh``) alike, goes through the host
   map.  A destination without an entry makes the step *refused*.
3. The command is rewritten: the first hop becomes replay's own ssh command
   line to the mapped target; deeper hops and nested ssh calls get their
   destination word replaced (at the exact spans the parser reports) by the
   mapped target and its options.  The result is parsed again and every ssh
   it would start is checked against the mapped targets: a command that would
   still reach anything else is refused, never attempted.
4. Commands without ssh run on this machine in the recorded working directory,
   or are skipped when it does not exist here.

Only ``bash`` calls and ``read`` (as ``cat``) are replayed; other tools are
skipped with the reason (see :data:`TOOL_SKIPS`).
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, TypeAlias

from kb import records
from kb.replay.hostmap import LOCAL, HostMap, Target, is_literal_host, is_loopback
from kb.replay.sandbox import Policy, curl_config_paths, policy
from kb.replay.sshexec import NESTED_OPTIONS, client_options, parse_ssh_argv, wrap_remote
from logparse import models
from logparse.shell import ShellInfo, SimpleCommand, SshCall, classify_safety, parse_command
from logparse.shell.netopts import embedded_code, endpoint_host

if TYPE_CHECKING:
    from kb.redact import Redactor

# a plan reads the store's events (kb.records) or the parser's models (tests, benchmarks)
Event: TypeAlias = models.Event | records.Event
Measurement: TypeAlias = models.Measurement | records.Measurement

ALLOWABLE = ("launch", "mutating", "unknown", "host-network")
"""Safety classes ``--allow`` opens, and ``host-network``: launched and unknown steps
keep the machine's network instead of a namespace of their own."""

TOOL_SKIPS = {
    "todowrite": "todowrite recorded the agent's todo list: there is nothing to re-run",
    "todoread": "todoread read the agent's todo list: there is nothing to re-run",
    "task": "task ran a subagent (a conversation with a model): replay cannot re-run it; "
            "replay the subagent's own session instead",
    "edit": "edit changed a file: replay never re-applies edits",
    "write": "write replaced a file: replay never re-applies writes",
    "patch": "patch changed files: replay never re-applies patches",
    "multiedit": "multiedit changed a file: replay never re-applies edits",
    "webfetch": "webfetch reached the internet, which replay does not contact",
    "websearch": "websearch reached the internet, which replay does not contact",
    "grep": "the grep tool's matching rules and output format (ripgrep) have no exact shell "
            "equivalent, so its answer could not be compared; re-run it as a bash grep",
    "glob": "the glob tool's matching rules and output format have no exact shell equivalent, "
            "so its answer could not be compared",
    "list": "the list tool's output format has no exact shell equivalent",
}

#: Options a nested ssh may carry that replay can leave in place: they neither pick the
#: host, user, port or key nor open forwardings.
_HARMLESS_FLAGS = set("1246CknqstTvxXYyAagGKMNf")
_HARMLESS_O = {"stricthostkeychecking", "userknownhostsfile", "batchmode", "connecttimeout",
               "serveraliveinterval", "serveralivecountmax", "loglevel", "compression",
               "requesttty", "forwardagent", "forwardx11", "identitiesonly",
               "globalknownhostsfile", "connectionattempts", "tcpkeepalive",
               "preferredauthentications", "passwordauthentication", "pubkeyauthentication",
               "kbdinteractiveauthentication", "checkhostip", "updatehostkeys",
               "hashknownhosts", "addkeystoagent", "visualhostkey", "escapechar"}

#: Tokens inserted into a command text (nested ssh options and destinations) must be
#: plain words in every quoting context.
_SAFE_TOKEN = re.compile(r"^[A-Za-z0-9@%+=:,./_~-]+$")

#: Programs that only process text: naming a recorded host in their arguments reaches nothing.
_TEXT_TOOLS = {"grep", "egrep", "fgrep", "rg", "ag", "sed", "awk", "gawk", "mawk", "echo",
               "printf", "cat", "head", "tail", "less", "more", "wc", "sort", "uniq", "cut",
               "tr", "jq", "yq", "find", "ls", "test", "[", "[[", "true", "false", "diff",
               "column", "nl", "tac", "rev", "fold", "fmt", "basename", "dirname", "stat",
               "file", "sleep", "date", "seq", "expr", ":"}

_READY_PATTERNS = ("Serving HTTP on", "fired up and ready", "Uvicorn running on",
                   "Application startup complete", "[Ll]istening on",
                   "ready to accept connections", "Server started", "Running on http")


class _Refuse(Exception):
    """This step cannot be rewritten safely; the message says why."""


@dataclass(frozen=True)
class Recorded:
    """What the transcript says the command did."""

    status: str | None
    exit_code: int | None
    output: str
    error_signatures: tuple[str, ...]
    measurements: tuple[Measurement, ...]
    duration_ms: int | None


@dataclass(frozen=True)
class LaunchSpec:
    """How to tell that a launched process is up."""

    port: int | None
    check_host: str
    log: str | None
    sleep: float | None
    tail: int
    note: str = ""

    def describe(self) -> str:
        if self.port:
            how = f"ready when port {self.port} answers on the target's {self.check_host}"
        elif self.sleep:
            how = f"ready after the recorded sleep ({self.sleep:g} s, at most the timeout)"
        else:
            how = "ready when its output shows a start-up line"
        if self.log:
            how += f"; log {self.log}"
        return how + (f" ({self.note})" if self.note else "")


@dataclass
class Step:
    """One command event of the plan, with everything needed to run and judge it."""

    ordinal: int
    seq: int
    call_id: str | None
    tool: str
    category: str
    recorded_command: str
    recorded_host: str | None
    recorded_hosts: tuple[str, ...]
    workdir: str | None
    recorded: Recorded
    safety: str = "unknown"
    safety_reasons: tuple[str, ...] = ()
    info: ShellInfo | None = None
    target: str | None = None
    """Where it runs: a target label, ``local`` or ``None`` (not decided: skipped early)."""
    targets: tuple[Target, ...] = ()
    """ssh targets this machine connects to for the step (their masters are needed)."""
    run_command: str | None = None
    """The command as a person would type it (without replay's connection-sharing options)."""
    exec_text: str | None = None
    """The exact shell text run on this machine (local steps and local pipelines)."""
    exec_text_walled: str | None = None
    """A local pipeline's text for a target where bwrap worked when the run started
    (``--remote-sandbox auto``): the remote part re-checks it and is refused, never
    run unwrapped, when it is gone."""
    remote: str | None = None
    """The exact command the target runs (ssh steps)."""
    stdin: str | None = None
    ssh_target: Target | None = None
    cwd: str | None = None
    launch: LaunchSpec | None = None
    action: str = "skip"
    reason: str = ""
    notes: list[str] = field(default_factory=list)
    unmapped: tuple[str, ...] = ()
    sandbox: Policy | None = None
    """The bwrap wall of the step (None: classification only)."""
    protection: str = ""
    """In words: which wall protects the step (``sandboxed: …`` or ``classification only``)."""

    @property
    def runs(self) -> bool:
        return self.action == "run"


@dataclass
class PlanOptions:
    allow: frozenset[str] = frozenset()
    timeout: float = 120.0
    control_dir: str = "/tmp/logkb-replay"
    keep_running: bool = False
    sandbox: bool = True
    """Wrap local steps in bwrap (False: ``--no-sandbox``)."""
    remote_sandbox: str = "auto"
    """``auto`` | ``require`` | ``off``: bwrap on ssh targets (:mod:`kb.replay.sandbox`)."""
    max_output: int = 1 << 20
    """Bytes of output kept per step (``--max-output``)."""
    max_memory: int = 4 << 30
    """Data segment limit per step (RLIMIT_DATA / ``ulimit -d``)."""


@dataclass
class Plan:
    session_id: str
    start: int
    end: int | None
    steps: list[Step]
    hostmap: HostMap
    options: PlanOptions
    control: dict[str, str] = field(default_factory=dict)
    """Target label → its control socket path."""
    targets: dict[str, Target] = field(default_factory=dict)
    """ssh targets this machine connects to (label → target): one master each."""
    run_id: str = ""
    short_id: str = ""
    """How a person names the session (``logkb sessions``' short id), when known."""
    only: tuple[str, ...] = ()
    redactor: Redactor | None = None
    """What the plan shows and stores is redacted with (set by ``hide_secrets``)."""

    @property
    def unmapped(self) -> list[str]:
        seen: list[str] = []
        for s in self.steps:
            for h in s.unmapped:
                if h not in seen:
                    seen.append(h)
        return seen

    def ctl(self, target: Target) -> str:
        return self.control[target.label]

    @property
    def allowed_hosts(self) -> set[str]:
        """Hosts a step may contact: the ssh targets of the host map."""
        return {e.target.host for e in self.hostmap.entries.values() if not e.target.is_local}


# --------------------------------------------------------------------------- counts
def step_counts(steps: Sequence[Step], *, executing: bool = False) -> list[str]:
    """What the plan's steps are, counted: every recorded tool call from --from on is a
    step, so "33 commands: 0 to run" counted edits, web searches and todo lists as
    commands, and "12 steps would run" did not say that all twelve only read.  The
    first line counts the steps, those that run and those skipped; then what would run
    by safety class (shell commands apart from file reads, replayed as `cat`), and the
    calls replay never re-runs, by tool."""
    from collections import Counter

    verb = "to run" if executing else "would run"
    runs = [s for s in steps if s.runs]
    lines = [f"{_plural(len(steps), 'step')}, one per recorded tool call: "
             f"{len(runs)} {verb}, {len(steps) - len(runs)} skipped"]
    if runs:
        reads = sum(s.tool == "read" for s in runs)
        what = [_plural(len(runs) - reads, "shell command")] if len(runs) > reads else []
        what += [_plural(reads, "file read")] if reads else []
        lines.append(f"{verb}: {by_safety(runs)} ({', '.join(what)})")
    never = Counter(s.tool for s in steps if s.info is None)
    if never:
        top = never.most_common(4)
        lines.append(f"never re-run by replay: {sum(never.values())} ("
                     + ", ".join(f"{t} {n}" for t, n in top)
                     + (", …" if len(never) > len(top) else "") + ")")
    return lines


def by_safety(runs: Sequence[Step]) -> str:
    """The steps that run by safety class: ``all 12 read-only``, ``12 read-only, 4
    mutating``."""
    from collections import Counter

    by = Counter(s.safety for s in runs)
    order = ("read-only", "launch", "mutating", "unknown")
    return ("all " if len(by) == 1 else "") + ", ".join(
        f"{by[k]} {k}" for k in sorted(by, key=lambda k: (
            order.index(k) if k in order else len(order), k)))


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


# --------------------------------------------------------------------------- entry point
def build_plan(session_id: str, events: Sequence[Event], hostmap: HostMap,
               options: PlanOptions, *, start: int, end: int | None) -> Plan:
    """Plan every command event of ``events`` (command and result events of a session)."""
    plan = Plan(session_id, start, end, [], hostmap, options)
    results = {(e.ordinal, e.seq): e for e in events if e.kind == "result"}
    commands = [e for e in events if e.kind == "command"]
    known = _known_hosts(commands, hostmap)
    for ev in commands:
        res = results.get((ev.ordinal, ev.seq))
        step = _new_step(ev, res)
        _plan_step(step, ev, plan, known)
        plan.steps.append(step)
    return plan


def _known_hosts(commands: Iterable[Event], hostmap: HostMap) -> set[str]:
    hosts = {k.rpartition("@")[2].rsplit(":", 1)[0] for k in hostmap.entries}
    for ev in commands:
        for hop in ev.hops:
            hosts.add(hop.host)
        if ev.host:
            hosts.add(ev.host)
    return {h for h in hosts if h and h != LOCAL}


def _new_step(ev: Event, res: Event | None) -> Step:
    rec = Recorded(
        status=res.status if res else None,
        exit_code=res.exit_code if res else None,
        output=(res.output or "") if res else "",
        error_signatures=tuple(res.error_signatures) if res else (),
        measurements=tuple(res.measurements) if res else (),
        duration_ms=res.duration_ms if res else None)
    hops = ev.hops
    rhost = None
    if hops and not hops[0].nested:
        h = hops[0]
        rhost = (f"{h.user}@" if h.user else "") + h.host + (f":{h.port}" if h.port else "")
    hosts = tuple(dict.fromkeys(h.host for h in hops))
    return Step(ordinal=ev.ordinal, seq=ev.seq, call_id=ev.call_id, tool=ev.tool or "",
                category=ev.category or "other", recorded_command=ev.command or "",
                recorded_host=rhost, recorded_hosts=hosts, workdir=ev.workdir, recorded=rec)


def _plan_step(step: Step, ev: Event, plan: Plan, known: set[str]) -> None:
    tool = step.tool
    if tool == "read":
        text = _read_as_shell(ev)
        if text is None:
            step.reason = "the read call has no file path"
            return
        step.notes.append("the read tool is replayed as its shell equivalent; the recorded "
                          "line numbers are stripped before comparing")
    elif tool == "bash":
        text = step.recorded_command
    else:
        step.reason = TOOL_SKIPS.get(tool, f"the {tool} tool is not a shell command: "
                                           "replay runs only bash (and read as cat)")
        return
    if not text.strip():
        step.reason = "the recorded command is empty"
        return
    info = parse_command(text)
    step.info = info
    safety = classify_safety(info)
    step.safety, step.safety_reasons = safety.cls, safety.reasons
    blockers: list[str] = []
    if safety.cls != "read-only" and safety.cls not in plan.options.allow:
        blockers.append(f"{safety.cls}: {'; '.join(safety.reasons[:3])} "
                        f"(runs only with --allow {safety.cls})")
    try:
        _refuse_endpoints(safety.endpoints, text)
        _refuse_embedded(info)
        if safety.cls == "mutating":
            _refuse_wide_workdir(step, info)
        if safety.blind:
            raise _Refuse(f"refused: {safety.blind[0]}, so where it connects cannot be "
                          "checked against the host map")
        _route(step, info, plan, known)
        if safety.cls == "mutating":
            _refuse_wide_cwd(step)
    except _Refuse as r:
        blockers.append(str(r))
    if blockers:
        step.action = "skip"
        step.reason = "; ".join(blockers)
        return
    step.action = "run"
    why = ("read-only: runs by default" if safety.cls == "read-only"
           else f"{safety.cls}: allowed by --allow {safety.cls}")
    step.reason = why
    _protect(step, info, plan)
    exposed = _exposed_bind(step, info, plan)
    if exposed:
        step.action = "skip"
        step.reason = exposed
        return
    follows = list(safety.follows) + _embedded_follows(info)
    rc = _curlrc_here() if step.exec_text is not None and _reads_curlrc(info) else None
    if rc:
        follows.append(f"curl reads {rc}, which can turn --location on")
    open_net = _network_beyond_step(step, info, plan) if follows else None
    if open_net:
        step.action = "skip"
        step.reason = (f"refused: {follows[0]}, and {open_net}; a redirect could reach a "
                       "host the host map never checked (add --max-redirs 0 / "
                       "--max-redirect=0, or replay it in its own network namespace)")


def _reads_curlrc(info: ShellInfo) -> bool:
    """Whether a curl of the step reads the default config file (no ``-q`` first)."""
    for cmd in info.commands + info.local_commands:
        eff = cmd.effective_argv
        if eff and os.path.basename(eff[0]) == "curl" and (
                len(eff) < 2 or eff[1] not in ("-q", "--disable")):
            return True
    return False


def _curlrc_here() -> str | None:
    """The curl config file this machine's curl would read (``$CURL_HOME``,
    ``$XDG_CONFIG_HOME``, the home directory), None when there is none."""
    return next((f for f in curl_config_paths(os.environ, [os.path.expanduser("~")])
                 if os.path.isfile(f)), None)


_EMBED_DEPTH = 3
"""Levels of code handed on (code that hands code to a program…) replay reads."""


def _embedded(info: ShellInfo, depth: int = 0
              ) -> Iterator[tuple[str, str, ShellInfo, int]]:
    """``(program, code, parsed code, depth)`` of the code each command hands to a program
    that runs it (:func:`~logparse.shell.netopts.embedded_code`), and of the code that
    code hands on, depth first; the code at :data:`_EMBED_DEPTH` is the last given."""
    for cmd in info.commands + info.local_commands:
        eff = cmd.effective_argv
        if not eff:
            continue
        prog = os.path.basename(eff[0])
        for code in embedded_code(cmd.argv, prog):
            inner = parse_command(code)
            yield prog, code, inner, depth
            if depth < _EMBED_DEPTH:
                yield from _embedded(inner, depth + 1)


def _embedded_follows(info: ShellInfo) -> list[str]:
    """Redirect-following clients in the code a command hands to a program."""
    return [why for _prog, _code, inner, depth in _embedded(info)
            if depth < _EMBED_DEPTH for why in classify_safety(inner).follows]


def _network_beyond_step(step: Step, info: ShellInfo, plan: Plan) -> str | None:
    """Why a step may reach hosts other than its own loopback (None: it cannot).

    Only a step in a network namespace of its own reaches nothing it did not start: a
    local step under bwrap without ``--allow host-network``, and the remote part of a
    step only with ``--remote-sandbox require`` (``auto`` runs it unwrapped on a target
    without bwrap) and no nested ssh (which keeps the target's network)."""
    opts = plan.options
    pol = step.sandbox
    if step.exec_text is not None:
        if not opts.sandbox:
            return "it runs without a sandbox (--no-sandbox)"
        if pol is None or pol.network:
            return "it runs with this machine's network (--allow host-network)"
        if step.ssh_target is None and not step.targets and not info.hops:
            return None
    if opts.remote_sandbox != "require":
        return (f"on the target it runs without its own network namespace unless bwrap "
                f"wraps it (--remote-sandbox {opts.remote_sandbox}, not require)")
    if (pol is None or pol.network or len(info.hops) > 1 or bool(info.nested_ssh)
            or step.launch is not None and "host-network" in opts.allow):
        return "on the target it keeps the target's network (a nested ssh or a launch)"
    return None


_DEV_NET = re.compile(r"/dev/(?:tcp|udp)/([^/\s'\"]+)")


def _refuse_embedded(info: ShellInfo) -> None:
    """Judge the code a command hands to a program that runs it (``git -c
    core.fsmonitor=…``, ``ssh -o ProxyCommand=…``, ``rsync -e …``) like the command:
    an endpoint outside the host map or a destination nobody can tell refuses the step."""
    for prog, code, inner, depth in _embedded(info):
        if depth >= _EMBED_DEPTH:
            raise _Refuse("refused: code passed to a program is nested too deeply")
        found = classify_safety(inner)
        try:
            _refuse_endpoints(found.endpoints, code)
        except _Refuse as r:
            raise _Refuse(f"{r} (in code {prog} runs: {code[:60]})") from None
        if found.blind:
            raise _Refuse(f"refused: code {prog} runs ({code[:60]}) {found.blind[0]}")


def _refuse_endpoints(endpoints: Sequence[str], text: str) -> None:
    """Refuse a step that names a network endpoint outside ssh (the host map only maps ssh)."""
    eps = list(endpoints)
    eps += [m.group(1) for m in _DEV_NET.finditer(text)]  # also where the parse failed
    for ep in eps:
        host = endpoint_host(ep)
        if host and (host == "localhost" or is_loopback(host) or host == "0.0.0.0"):
            continue
        raise _Refuse(f"refused: it reaches {ep} directly, not through ssh and the host map "
                      "(replay maps only ssh destinations)")


#: Directories a mutating step never gets read-write, whatever its recorded working
#: directory: the whole system, and what is below them is the machine's, not a project's.
_SYSTEM_DIRS = frozenset("/ /bin /boot /dev /etc /home /lib /lib32 /lib64 /libx32 /media "
                         "/mnt /opt /proc /root /run /sbin /srv /sys /usr /var /tmp "
                         "/usr/local /usr/bin /usr/lib /usr/share /var/lib /var/log".split())


def _wide_workdir(wd: str) -> bool:
    """Whether ``wd`` is too wide to open for writing: a system directory, the home
    directory or one of its ancestors (``~/.bashrc``, ``~/.ssh`` and ``~/.curlrc`` would
    be writable, and outlive the replay)."""
    real = os.path.realpath(wd)
    if real in _SYSTEM_DIRS:
        return True
    home = os.path.realpath(os.path.expanduser("~"))
    return real == home or home.startswith(real.rstrip("/") + "/")


def _refuse_wide_workdir(step: Step, info: ShellInfo) -> None:
    """A mutating step runs with its working directory writable: refuse it when that
    directory is the machine's rather than a project's (a transcript chooses its
    ``cwd``; ``/`` or ``~`` would turn --allow mutating into the whole system)."""
    if info.hops:
        return  # runs on a target (or in the home a local mapping chose)
    wd = step.workdir
    if wd and os.path.isdir(wd) and _wide_workdir(wd):
        raise _Refuse(f"refused: its working directory {wd} is a system or home directory; "
                      "--allow mutating opens only a project directory for writing")


def _refuse_wide_cwd(step: Step) -> None:
    """The directory a mutating step gets read-write is where it runs here: for an ssh
    mapped to ``local`` that is the home directory, which is never opened (on main it
    was: ``ssh gpu 'echo x >> .bashrc'`` with ``gpu=local`` wrote ``~/.bashrc``)."""
    if step.exec_text is None or not step.cwd or not os.path.isdir(step.cwd):
        return
    if _wide_workdir(step.cwd):
        raise _Refuse(f"refused: it would run in {step.cwd}, a system or home directory; "
                      "--allow mutating opens only a project directory for writing")


def _protect(step: Step, info: ShellInfo, plan: Plan) -> None:
    """Decide the sandbox of a step that runs, and say it in the plan."""
    opts = plan.options
    launch = step.launch is not None
    if step.exec_text is not None:  # runs on this machine (maybe with ssh inside)
        if not opts.sandbox:
            step.protection = "classification only (--no-sandbox)"
            return
        step.sandbox = policy(step.safety, opts.allow, launch=launch, cwd=step.cwd,
                              text=step.exec_text)
        step.protection = f"sandboxed here by bwrap: {step.sandbox.describe()}"
        if step.ssh_target is not None:
            step.protection += ("; its remote part " + _remote_words(opts.remote_sandbox))
        return
    nested = bool(info.nested_ssh) or len(info.hops) > 1
    step.sandbox = policy(step.safety, opts.allow, launch=launch, cwd=None,
                          text=(step.remote or "") + "\n" + (step.stdin or ""),
                          nested_ssh=nested, remote=True)
    if opts.remote_sandbox == "off":
        step.sandbox = None
    step.protection = (f"on {step.target}: " + _remote_words(opts.remote_sandbox)
                       + (f" ({step.sandbox.describe()})" if step.sandbox else ""))


def _remote_words(mode: str) -> str:
    return {"auto": "sandboxed by bwrap if the target has it, else classification only",
            "require": "sandboxed by bwrap (refused if the target has none)",
            "off": "classification only (--remote-sandbox off)"}[mode]


# --------------------------------------------------------------------------- routing
def _route(step: Step, info: ShellInfo, plan: Plan, known: set[str]) -> None:
    """Decide where the step runs and build its exact command lines (raises _Refuse)."""
    opts = plan.options
    unmapped: list[str] = []
    hops = info.hops
    if info.parse_error and ("ssh" in info.text):
        raise _Refuse("the command does not parse cleanly and mentions ssh: replay cannot be "
                      "sure where it would connect; refused")
    if not hops:
        # Runs on this machine; nested ssh calls connect from here.
        reached: list[Target] = []
        new_inner, display = _rewrite_calls(info.inner, info.nested_ssh, plan, True, unmapped,
                                            reached)
        _refuse_unmapped(step, unmapped)
        _note_nested(step, info, plan, True)
        step.target = LOCAL
        step.exec_text, step.run_command = new_inner, display
        step.targets = tuple(reached)
        _check_reach(step, new_inner, plan, known)
        wd = step.workdir
        if not wd or not os.path.isdir(wd):
            raise _Refuse(f"local command: the recorded working directory "
                          f"{wd or '(none)'} does not exist here")
        step.cwd = wd
        step.launch = _launch_spec(step, info, step.exec_text)
        return

    first = hops[0]
    entry = plan.hostmap.lookup(first.host, first.user, first.port)
    if entry is None:
        unmapped.append(first.host)
    # deeper levels first: they run on the first target (remote context)
    remote_ctx = entry is None or not entry.target.is_local
    levels = _levels(info)
    reached = []
    new_code, disp_code = _rewrite_chain(info, levels, plan, remote_ctx, unmapped, reached)
    _refuse_unmapped(step, unmapped)
    assert entry is not None
    _note_nested(step, info, plan, entry.target.is_local)
    target = entry.target.with_user(first.user)
    if entry.identity:
        target = _as_recorded(target, first)
    if first.options:
        step.notes.append(f"recorded ssh options {' '.join(first.options)} are not used: "
                          "the target's options come from the host map")
    local_extra = [c for c in info.local_commands if c.program != "ssh"]
    stdin_fed = first.stdin_script is not None
    remote_cmd = first.remote_command if stdin_fed else new_code
    stdin = new_code if stdin_fed else None
    if stdin_fed and first.remote_command is None:
        remote_cmd = None
    src = entry.source
    if target.is_local:
        step.target = LOCAL
        home = str(Path.home())
        if stdin_fed:
            raise _Refuse("a script fed to ssh on stdin cannot be run locally")
        body = shlex.join(["bash", "-c", new_code])
        step.exec_text = info.text[:first.start] + body + info.text[first.end:]
        step.run_command = info.text[:first.start] + shlex.join(
            ["bash", "-c", disp_code]) + info.text[first.end:]
        step.cwd = home
        step.notes.append(f"{first.host} maps to local ({src}): runs here in {home}")
        step.targets = tuple(reached)
        _check_reach(step, step.exec_text, plan, known)
        step.launch = _launch_spec(step, info, new_code)
        if step.launch and local_extra:
            raise _Refuse("a launch with a local pipeline is not supported")
        return

    plan.targets.setdefault(target.label, target)
    ctl = plan.control.setdefault(
        target.label, os.path.join(opts.control_dir, f"t{len(plan.control)}"))
    step.target = target.label
    step.ssh_target = target
    step.targets = (target,)
    note = (f"{first.host} → {target.label} ({src})" if not entry.identity
            else f"{first.host} as recorded (confirmed by {src})")
    step.notes.append(note)
    shown = ["ssh", *target.ssh_options(), target.destination]
    if remote_cmd is not None:
        shown.append(disp_code if not stdin_fed else remote_cmd)
    if local_extra or (first.local_suffix and not stdin_fed):
        if stdin_fed:
            raise _Refuse("an ssh fed by a heredoc and followed by a local pipeline is not "
                          "supported")
        full = ["ssh", *client_options(ctl), "-o", "ControlMaster=no",
                *target.ssh_options(), target.destination]
        check = info.text[:first.start] + shlex.join(full + [new_code]) + info.text[first.end:]
        remote_pol = policy(step.safety, opts.allow, launch=False, cwd=None, text=new_code,
                            nested_ssh=len(info.hops) > 1 or bool(info.nested_ssh),
                            remote=True)
        step.exec_text = (info.text[:first.start]
                          + shlex.join(full + [wrap_remote(new_code, opts.timeout,
                                                           sandbox=remote_pol,
                                                           mode=opts.remote_sandbox,
                                                           max_memory=opts.max_memory)])
                          + info.text[first.end:])
        if opts.remote_sandbox == "auto":
            step.exec_text_walled = (
                info.text[:first.start]
                + shlex.join(full + [wrap_remote(new_code, opts.timeout, sandbox=remote_pol,
                                                 mode="require", probed=True,
                                                 max_memory=opts.max_memory)])
                + info.text[first.end:])
        step.run_command = info.text[:first.start] + shlex.join(shown) + info.text[first.end:]
        wd = step.workdir
        step.cwd = wd if wd and os.path.isdir(wd) else None  # else the run's scratch dir
        step.notes.append("the local part (" + " | ".join(
            shlex.join(c.argv) for c in local_extra)[:80] + ") runs here, in "
            + (step.cwd or "a scratch directory"))
        _check_reach(step, check, plan, known)
        if _launch_spec(step, info, new_code) is not None:
            raise _Refuse("a launch with a local pipeline is not supported")
        return
    step.remote, step.stdin = remote_cmd, stdin
    step.run_command = shlex.join(shown)
    if stdin_fed:
        step.run_command += " <<'EOF'\n" + disp_code + ("" if disp_code.endswith("\n")
                                                        else "\n") + "EOF"
    check = shlex.join(["ssh", target.destination] + ([remote_cmd] if remote_cmd else []))
    _check_reach(step, check, plan, known)
    if stdin is not None:
        _check_reach(step, stdin, plan, known)
    step.launch = _launch_spec(step, info, new_code)


def _note_nested(step: Step, info: ShellInfo, plan: Plan, from_here: bool) -> None:
    calls = list(info.hops[1:]) + list(info.nested_ssh)
    for call in calls:
        e = plan.hostmap.lookup(call.host, call.user, call.port)
        if e is None:
            continue
        where = "from this machine" if from_here else "from the target"
        note = (f"nested ssh to {call.host} → {e.target.with_user(call.user).label} "
                f"({e.source}), connecting {where}")
        if note not in step.notes:
            step.notes.append(note)


def _refuse_unmapped(step: Step, unmapped: list[str]) -> None:
    if not unmapped:
        return
    hosts = list(dict.fromkeys(unmapped))
    step.unmapped = tuple(hosts)
    names = ", ".join(hosts)
    built = [h for h in hosts if not is_literal_host(h)]
    if built:
        raise _Refuse(f"refused: {runtime_host_advice(built[0])}")
    first = hosts[0]
    raise _Refuse(
        f"refused: no host-map entry for {names}; map it (--host-map {first}=TARGET) or "
        f"confirm it as recorded (--host-map {first}={first} or --yes)")


def runtime_host_advice(host: str) -> str:
    """What the plan says of an ssh destination the shell builds at run time."""
    head = (f"the ssh destination {host} is computed at run time, so no host-map entry "
            "can be checked against it and --yes does not confirm it")
    if any(c.isspace() for c in host) or host.startswith("-"):
        return head + "; replay the step with the host written out"
    return head + f"; map it explicitly (--host-map {shlex.quote(host + '=TARGET')})"


def _levels(info: ShellInfo) -> list[str]:
    """The text each hop's spans refer to: ``text``, then each hop's code."""
    levels = [info.text]
    for h in info.hops:
        levels.append(h.stdin_script if h.stdin_script is not None else (h.remote_command or ""))
    return levels


def _rewrite_chain(info: ShellInfo, levels: list[str], plan: Plan, remote_ctx: bool,
                   unmapped: list[str], reached: list[Target]) -> tuple[str, str]:
    """The first hop's code with every deeper hop and nested ssh rewritten (exact, display)."""
    n = len(info.hops)
    # The innermost level holds the nested calls; it runs where the last hop lands.
    inner_local = not remote_ctx and n == 1
    exact, shown = _rewrite_calls(levels[n], info.nested_ssh, plan, inner_local, unmapped,
                                  reached)
    for k in range(n - 1, 0, -1):
        hop = info.hops[k]
        text = levels[k]
        ctx_local = not remote_ctx and k == 1
        child_changed = exact != levels[k + 1]
        if child_changed and hop.stdin_script is not None:
            raise _Refuse("a nested ssh fed by a heredoc cannot be rewritten safely")
        new_exact = _replace_host(text, hop, plan, ctx_local, unmapped, reached, display=False,
                                  body=exact if child_changed else None)
        new_shown = _replace_host(text, hop, plan, ctx_local, unmapped, reached, display=True,
                                  body=shown if child_changed else None)
        if child_changed and not unmapped:
            again = parse_command(new_exact)
            if not again.hops or (again.hops[0].remote_command or "") != exact:
                raise _Refuse("the ssh chain could not be rewritten safely")
        exact, shown = new_exact, new_shown
    return exact, shown


def _rewrite_calls(text: str, calls: Sequence[SshCall], plan: Plan, local_ctx: bool,
                   unmapped: list[str], reached: list[Target]) -> tuple[str, str]:
    """Replace the destination of each ssh call in ``text`` by its mapped target."""
    exact = shown = text
    for call in sorted(calls, key=lambda c: c.host_start, reverse=True):
        exact = _replace_host(exact, call, plan, local_ctx, unmapped, reached, display=False)
        shown = _replace_host(shown, call, plan, local_ctx, unmapped, reached, display=True)
    return exact, shown


def _replace_host(text: str, call: SshCall, plan: Plan, local_ctx: bool,
                  unmapped: list[str], reached: list[Target], *, display: bool,
                  body: str | None = None) -> str:
    entry = plan.hostmap.lookup(call.host, call.user, call.port)
    if entry is None:
        unmapped.append(call.host)
        return text
    _check_nested_options(call, entry.identity)
    target = entry.target.with_user(call.user)
    if target.is_local:
        raise _Refuse(f"the nested ssh to {call.host} maps to local: replay cannot turn a "
                      "nested ssh into a local command; map it to an ssh target")
    if local_ctx:
        if target not in reached:
            reached.append(target)
        plan.targets.setdefault(target.label, target)
        ctl = plan.control.setdefault(
            target.label, os.path.join(plan.options.control_dir, f"t{len(plan.control)}"))
        base: list[str] = [] if display else [*client_options(ctl), "-o",
                                             "ControlMaster=no"]
    else:
        base = list(NESTED_OPTIONS)
    tokens = base + target.ssh_options() + [target.destination]
    for tok in tokens:
        if not _SAFE_TOKEN.match(tok):
            raise _Refuse(f"the host-map entry for {call.host} has {tok!r}, which cannot be "
                          "put into a quoted command safely")
    new = " ".join(tokens)
    if body is None:
        return text[:call.host_start] + new + text[call.host_end:]
    return text[:call.host_start] + new + " " + shlex.quote(body) + text[call.end:]


def _as_recorded(target: Target, hop: SshCall) -> Target:
    """A host confirmed as recorded keeps the recorded port, key and harmless -o options."""
    opts = list(target.options)
    o = hop.options
    for i in range(len(o) - 1):
        if o[i] == "-o" and o[i + 1].split("=", 1)[0].strip().lower() in _HARMLESS_O:
            opts.append(o[i + 1])
    return replace(target, port=target.port or hop.port,
                   identity=target.identity or hop.identity, options=tuple(opts))


def _check_nested_options(call: SshCall, as_recorded: bool = False) -> None:
    opts = call.options
    i = 0
    while i < len(opts):
        o = opts[i]
        if as_recorded and o in ("-p", "-i", "-l") and i + 1 < len(opts):
            i += 2
            continue
        o = opts[i]
        if o == "-o" and i + 1 < len(opts):
            key = opts[i + 1].split("=", 1)[0].split(" ", 1)[0].strip().lower()
            if key not in _HARMLESS_O:
                raise _Refuse(f"the ssh to {call.host} sets -o {opts[i + 1]}: replay "
                              "cannot map it safely")
            i += 2
            continue
        if o.startswith("-") and len(o) == 2 and o[1] in _HARMLESS_FLAGS:
            i += 1
            continue
        raise _Refuse(f"the ssh to {call.host} uses {o}, which picks its own host, user, port, "
                      "key or forwarding: replay cannot map it safely")
    if call.jump:
        raise _Refuse(f"the ssh to {call.host} jumps through {','.join(call.jump)}")


def _check_reach(step: Step, text: str, plan: Plan, known: set[str]) -> None:
    """Parse the rewritten command again: every ssh it starts must go to a mapped target."""
    info = parse_command(text)
    allowed = plan.allowed_hosts
    for h in info.hops + info.nested_ssh:
        if h.host not in allowed:
            raise _Refuse(f"refused: after rewriting, the command would still reach {h.host}")
    for cmd in info.commands + info.local_commands:
        prog = cmd.program
        if prog == "ssh":
            parsed = parse_ssh_argv(cmd.effective_argv)
            if parsed.host not in allowed:
                raise _Refuse(f"refused: an ssh in the command would reach {parsed.host}, "
                              "which is not a mapped target")
            continue
        if prog in _TEXT_TOOLS:
            continue
        for word in cmd.argv:
            for host in known:
                if host not in allowed and _mentions(word, host):
                    raise _Refuse(f"refused: {prog} names the recorded host {host} "
                                  f"({word[:60]}); replay rewrites only ssh destinations")


def _mentions(word: str, host: str) -> bool:
    return re.search(r"(?<![\w.-])" + re.escape(host) + r"(?![\w-]|\.\w)", word) is not None


# --------------------------------------------------------------------------- read tool
def _read_as_shell(ev: Event) -> str | None:
    inp = ev.input or {}
    path = inp.get("filePath") or inp.get("path") or ev.command
    if not isinstance(path, str) or not path:
        return None
    offset, limit = inp.get("offset"), inp.get("limit")
    if isinstance(offset, int) or isinstance(limit, int):
        first = offset if isinstance(offset, int) and offset > 0 else 1
        last = f"{first + limit - 1}" if isinstance(limit, int) and limit > 0 else "$"
        return f"sed -n {shlex.quote(f'{first},{last}p')} -- {shlex.quote(path)}"
    return f"cat -- {shlex.quote(path)}"


# --------------------------------------------------------------------------- launches
def _launch_spec(step: Step, info: ShellInfo, code: str) -> LaunchSpec | None:
    """Readiness hints when the step starts a long-running process, else None."""
    bg = [c for c in info.commands
          if c.background or {"nohup", "setsid"} & set(c.wrappers)]
    if not bg and step.category != "launch" and step.safety != "launch":
        return None
    cands: list[SimpleCommand] = bg or list(info.commands)
    port, host, note = _port_of(cands)
    log = None
    for c in bg:
        for r in c.redirects:
            if r.writes and r.target not in ("/dev/null",) and not r.target.isdigit():
                log = r.target
                break
        if log:
            break
    sleep = None
    tail = 40
    for c in info.commands:
        eff = c.effective_argv
        if c.program == "sleep" and len(eff) > 1 and sleep is None and not c.background:
            sleep = _seconds(eff[1])
        if c.program == "tail" and log and log in eff:
            for i, a in enumerate(eff):
                if a == "-n" and i + 1 < len(eff) and eff[i + 1].isdigit():
                    tail = int(eff[i + 1])
                elif re.fullmatch(r"-n?\d+", a):
                    tail = int(a.lstrip("-n"))
    return LaunchSpec(port=port, check_host=host, log=log, sleep=sleep, tail=tail, note=note)


def _port_of(cmds: Sequence[SimpleCommand]) -> tuple[int | None, str, str]:
    host = "127.0.0.1"
    note = ""
    port: int | None = None
    for c in cmds:
        eff = list(c.effective_argv)
        for i, a in enumerate(eff):
            val = None
            if a in ("--port", "--http-port", "--listen-port", "--server.port") and i + 1 < len(eff):
                val = eff[i + 1]
            elif a.startswith(("--port=", "--http-port=", "--server.port=")):
                val = a.split("=", 1)[1]
            if val and val.isdigit() and port is None:
                port = int(val)
            if a in ("--host", "--bind", "-b") and i + 1 < len(eff):
                host = eff[i + 1]
            elif a.startswith(("--host=", "--bind=")):
                host = a.split("=", 1)[1]
        if port is None and "http.server" in eff:
            k = eff.index("http.server") + 1
            while k < len(eff):
                a = eff[k]
                if a in ("-b", "--bind", "-d", "--directory", "-p", "--protocol"):
                    k += 2
                    continue
                if a.isdigit():
                    port = int(a)
                    break
                k += 1
            if port is None:
                port = 8000
    if host in ("0.0.0.0", "::", "[::]", "*", "") or host.startswith("127.") or host in (
            "localhost", "::1"):
        host = "::1" if host in ("::1",) else (host if host.startswith("127.") else "127.0.0.1")
    else:
        if port is not None:
            note = f"it binds {host}; readiness is checked on loopback only, so by log or sleep"
        port = None
        host = "127.0.0.1"
    return port, host, note


_BIND_OPTIONS = ("--host", "--bind", "-b", "--listen", "--address", "--ip")
_WILDCARDS = ("0.0.0.0", "::", "[::]", "*", "")


def _exposed_bind(step: Step, info: ShellInfo, plan: Plan) -> str | None:
    """Why a launch would serve this machine's network (None: it would not).

    A launch with the machine's network (``--allow host-network`` or ``--no-sandbox``)
    that listens on every interface or a non-loopback address serves its working
    directory, or whatever it serves, to the local network: ``python3 -m http.server``
    binds every interface unless ``--bind`` says otherwise."""
    if step.launch is None or step.exec_text is None:
        return None
    if plan.options.sandbox and step.sandbox is not None and not step.sandbox.network:
        return None  # its own network namespace: nobody outside reaches it
    for c in info.commands:
        eff = list(c.effective_argv)
        binds: list[str] = []
        for i, a in enumerate(eff):
            if a in _BIND_OPTIONS and i + 1 < len(eff):
                binds.append(eff[i + 1])
            elif a.startswith(tuple(o + "=" for o in _BIND_OPTIONS if o.startswith("--"))):
                binds.append(a.split("=", 1)[1])
        if "http.server" in eff and not binds:
            binds.append("0.0.0.0")  # its default: every interface
        for b in binds:
            host = b.rsplit(":", 1)[0] if b.count(":") == 1 else b
            if host in _WILDCARDS or not (host == "localhost" or is_loopback(host.strip("[]"))):
                return (f"refused: it would listen on {b or 'every interface'} with this "
                        "machine's network, serving the local network; bind it to "
                        "127.0.0.1 or replay it in its own network namespace (without "
                        "--allow host-network)")
    return None


def _seconds(text: str) -> float | None:
    m = re.fullmatch(r"(\d+(?:\.\d+)?)([smhd]?)", text)
    if not m:
        return None
    return float(m.group(1)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(2)]


READY_PATTERN = "|".join(_READY_PATTERNS)
