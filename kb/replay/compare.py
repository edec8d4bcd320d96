"""Comparing a replayed step with its recording: normalisation, verdicts, plain words.

Verdicts:

``same``         the normalised outputs match and the step succeeded or failed as before;
``changed``      it succeeded (or failed) as before but says something different;
``now-fails``    it succeeded when recorded and fails now (or could not run at all now);
``now-passes``   it failed when recorded and succeeds now;
``now-answers``  the recorded step never answered its question (ssh could not connect,
                 quoting broke the wrapper, the tool was aborted or timed out), and now it
                 did;
``skipped``      it was not run (the reason says why).

Normalisation removes what differs between any two runs: timestamps, dates,
durations, PIDs, hex addresses, IP addresses, temp paths, memory figures,
ephemeral ports and the host names themselves.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from kb import records
from logparse import models
from logparse.shell import ShellInfo, SimpleCommand
from logparse.signals import error_signatures

# the measurements of the store's recorded event or of the parser (a fresh output)
Measurement = models.Measurement | records.Measurement

VERDICTS = ("same", "changed", "now-fails", "now-passes", "now-answers", "skipped")

# ------------------------------------------------------------------ normalisation
_NORMALISERS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, f), r) for p, r, f in (
        # ISO / log timestamps, dates, clock times
        (r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?", "<TIME>", 0),
        (r"\b\d{4}[-/]\d{2}[-/]\d{2}\b", "<DATE>", 0),
        (r"\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun),? +(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)"
         r" +\d{1,2}\b", "<DATE>", 0),
        (r"\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) +\d{1,2}\b", "<DATE>", 0),
        (r"\b\d{1,2}:\d{2}:\d{2}(\.\d+)?\b", "<TIME>", 0),
        (r"\b\d{1,3}:\d{2}(?=[<\],\s])", "<DUR>", 0),
        # addresses and ids
        (r"\b0x[0-9a-fA-F]{4,}\b", "<ADDR>", 0),
        (r"\b(\d{1,3}\.){3}\d{1,3}\b", "<IP>", 0),
        (r"(?<![\w:])([0-9a-fA-F]{1,4}:){2,7}[0-9a-fA-F]{1,4}(?![\w:])", "<IP>", 0),
        (r"\b(pid|PID|Pid|process|Process|thread|tid)([ =:#]+)\d+", r"\1\2<PID>", 0),
        (r"\[\d{2,7}\]", "[<PID>]", 0),
        (r"\bport \d{2,5}\b", "port <PORT>", 0),
        # temp paths
        (r"(/tmp|/var/tmp|/var/folders|/private/var/folders|/dev/shm)/[^\s'\":,;)\]]+",
         r"\1/<TMP>", 0),
        # memory figures and durations
        (r"\b\d+(\.\d+)?\s?(B|KB|MB|GB|TB|KiB|MiB|GiB|TiB|kB)\b", "<MEM>", 0),
        (r"\b\d+(\.\d+)?\s?(ns|us|µs|ms|s|sec|secs|seconds|min|mins|minutes|h|hrs|hours)\b",
         "<DUR>", 0),
        (r"\b\d+(\.\d+)?(it/s|s/it)\b", "<RATE>", 0),
    ))
_LINE_NO = re.compile(r"^\d+: ", re.M)


def normalise(text: str, hosts: Iterable[str] = ()) -> str:
    """``text`` with run-specific details replaced by placeholders, trailing space trimmed."""
    t = text.replace("\r\n", "\n").replace("\r", "\n")
    for h in sorted({h for h in hosts if h and len(h) > 2}, key=len, reverse=True):
        t = re.sub(r"(?<![\w.-])" + re.escape(h) + r"(?![\w-])", "<HOST>", t)
    for pat, rep in _NORMALISERS:
        t = pat.sub(rep, t)
    lines = [ln.rstrip() for ln in t.split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    while lines and not lines[0]:
        lines.pop(0)
    return "\n".join(lines)


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def read_tool_content(output: str) -> str:
    """The file text of a recorded ``read`` tool output (tags and line numbers removed)."""
    m = re.search(r"<content>\n?(.*?)\n*(\((Showing lines|End of file)[^\n]*\))?\n*</content>",
                  output, re.S)
    body = m.group(1) if m else output
    return _LINE_NO.sub("", body)


# ------------------------------------------------------------------ failures
_TRANSPORT: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p, re.I), why) for p, why in (
        (r"Host key verification failed", "Host key verification failed"),
        (r"Permission denied \((publickey|password|keyboard-interactive|gssapi)[^)]*\)",
         "Permission denied (publickey)"),
        (r"ssh: connect to host \S+ port \d+: ([^\n]+)", "ssh could not connect"),
        (r"ssh: Could not resolve hostname", "Could not resolve hostname"),
        (r"Connection timed out during banner exchange", "Connection timed out"),
        (r"kex_exchange_identification", "the ssh handshake failed"),
        (r"Connection closed by \S+ port \d+", "Connection closed by the remote host"),
        (r"Too many authentication failures", "Too many authentication failures"),
        (r"\b(ssh|sshpass|autossh|mosh)\b: (command )?not found", "the ssh wrapper is missing"),
        (r"command not found: (ssh|sshpass)\b", "the ssh wrapper is missing"),
        (r"unexpected EOF while looking for matching", "a quoting error broke the command"),
        (r"syntax error near unexpected token", "a quoting error broke the command"),
        (r"Unterminated quoted string", "a quoting error broke the command"),
        (r"bash tool terminated command after exceeding timeout", "the tool timed out"),
        (r"Command (execution )?timed out", "the tool timed out"),
        (r"Tool execution (was )?aborted", "the tool call was aborted"),
    ))
#: A tool's own error message (``grep: x: No such file or directory``, ``bash: line 1: y:
#: command not found``) or a Python traceback; plain text that merely mentions an error
#: (a grep hit on "ERROR") does not count.
_FAILURE_LINE = re.compile(
    r"^(?:[^\s:]+: )+(?:.*: )?(?:No such file or directory|command not found|"
    r"cannot access|can't read|cannot open|Permission denied|Is a directory)|"
    r"^Traceback \(most recent call last\)", re.M)


def unanswered(output: str, signatures: Sequence[str] = (), status: str | None = None,
               timed_out: bool = False) -> str | None:
    """Why a step did not answer its question (a transport/quoting failure), else None."""
    if timed_out:
        return "it timed out"
    if status in ("aborted", "interrupted"):
        return f"the tool call was {status}"
    hay = output + "\n" + "\n".join(signatures)
    for pat, why in _TRANSPORT:
        m = pat.search(hay)
        if m:
            return why if why != "ssh could not connect" else f"ssh could not connect ({m.group(1).strip()})"
    return None


def failure(output: str, exit_code: int | None, signatures: Sequence[str] = (),
            status: str | None = None) -> str | None:
    """A short description of how the step failed, or None if it succeeded."""
    sigs = list(signatures) or error_signatures(output)
    m = _FAILURE_LINE.search(output)
    line = (output[output.rfind("\n", 0, m.start()) + 1:].split("\n", 1)[0].strip()[:160]
            if m else None)
    if sigs:
        # a tool's own line says more than a generic signature ("No such file or directory")
        return line if line and sigs[0] in line else sigs[0]
    if status == "error":
        return "the tool reported an error"
    if line:
        return line
    if exit_code not in (0, None):
        return f"exit {exit_code}"
    return None


# ------------------------------------------------------------------ measurements
@dataclass(frozen=True)
class MeasurementPair:
    label: str
    unit: str
    old: float | None
    new: float | None

    @property
    def ratio(self) -> float | None:
        if self.old in (None, 0) or self.new is None:
            return None
        return self.new / self.old

    def as_json(self) -> dict[str, object]:
        r = self.ratio
        return {"label": self.label, "unit": self.unit, "old": self.old, "new": self.new,
                "ratio": round(r, 4) if r is not None else None}

    def __str__(self) -> str:
        def f(v: float | None) -> str:
            return "–" if v is None else f"{v:g}"
        r = self.ratio
        ratio = f" ({r:.2f}×)" if r is not None else ""
        return f"{self.label or '(value)'}: {f(self.old)} → {f(self.new)} {self.unit}".rstrip() + ratio


def pair_measurements(old: Sequence[Measurement], new: Sequence[Measurement]
                      ) -> list[MeasurementPair]:
    """Match old and new measurements by label and unit, in order of appearance."""
    pool: dict[tuple[str, str], list[Measurement]] = {}
    for m in new:
        pool.setdefault((m.label, m.unit), []).append(m)
    out: list[MeasurementPair] = []
    for m in old:
        cands = pool.get((m.label, m.unit))
        n = cands.pop(0) if cands else None
        out.append(MeasurementPair(m.label, m.unit, m.value, n.value if n else None))
    for (label, unit), rest in pool.items():
        for n in rest:
            out.append(MeasurementPair(label, unit, None, n.value))
    return out


# ------------------------------------------------------------------ verdicts
@dataclass(frozen=True)
class Judgement:
    verdict: str
    explanation: str
    revisit: bool
    answered: bool | None
    recorded_answered: bool | None
    recorded_failure: str | None
    new_failure: str | None


def judge(*, category: str, info: ShellInfo | None, command: str,
          old_output: str, old_exit: int | None, old_status: str | None,
          old_signatures: Sequence[str], new_output: str, new_exit: int | None,
          timed_out: bool, hosts: Iterable[str] = (), launch_state: str | None = None,
          tool: str = "bash", timeout: float | None = None) -> Judgement:
    """The verdict for one executed step, with its plain-words explanation."""
    hosts = list(hosts)
    what = describe(category, info, command)
    old_unans = unanswered(old_output, old_signatures, old_status)
    new_unans = unanswered(new_output, (), None, timed_out)
    if timed_out and timeout is not None:
        new_unans = f"it timed out after {timeout:g} s"
    old_fail = failure(old_output, old_exit, old_signatures, old_status)
    if launch_state is not None:
        new_fail = (None if launch_state in ("port", "log", "slept", "alive") else
                    {"exited": "it exited before it was ready",
                     "timeout": "it did not become ready in time"}.get(launch_state,
                                                                          launch_state))
        if new_fail is None and launch_state == "exited":
            new_fail = "it exited"
    else:
        new_fail = None if timed_out else failure(new_output, new_exit)
        if timed_out:
            new_fail = new_unans
    if tool == "read":
        old_cmp, new_cmp = normalise(read_tool_content(old_output), hosts), normalise(
            new_output, hosts)
    else:
        old_cmp, new_cmp = normalise(old_output, hosts), normalise(new_output, hosts)

    def j(verdict: str, text: str, revisit: bool = False) -> Judgement:
        return Judgement(verdict, text, revisit, new_unans is None, old_unans is None,
                         old_fail, new_fail)

    if old_unans and not new_unans:
        answered = _answer_summary(new_output, new_fail)
        partial = _partial_answer(old_output, old_fail, old_unans)
        nested = ""
        if partial and info is not None and info.nested_ssh and info.hops:
            names = ", ".join(dict.fromkeys(c.host for c in info.nested_ssh))
            nested = f": the nested ssh to {names} never ran its command"
        return j("now-answers",
                 f"When recorded, {what} never fully answered its question ({old_unans}"
                 f"{nested}{partial}). Now it ran through: {answered}. Look at this answer: "
                 "the conclusion recorded after the step was drawn without it.", True)
    if new_unans and not old_unans:
        return j("now-fails",
                 f"{_cap(what)} answered when recorded"
                 f"{' (' + old_fail + ')' if old_fail else ''}, but the replay did not get an "
                 f"answer: {new_unans}. Nothing is known about its current state.")
    if launch_state is not None:
        return _launch_verdict(j, what, old_fail, new_fail, launch_state)
    same_text = old_cmp == new_cmp
    same_exit = (old_exit == new_exit) or (old_exit is None and new_exit == 0)
    if same_text and (same_exit or (old_fail is None) == (new_fail is None)):
        return j("same", f"{_cap(what)} gives the same result as when recorded"
                 f"{' (it still fails: ' + old_fail + ')' if old_fail else ''}: what was "
                 "concluded from it still holds.")
    if old_fail is None and new_fail is not None:
        return j("now-fails",
                 f"{_cap(what)} succeeded when recorded and now fails with {_q(new_fail)}: "
                 "conclusions built on it may no longer hold (or the target differs from the "
                 "recorded host).")
    if old_fail is not None and new_fail is None:
        return j("now-passes",
                 f"{_cap(what)} failed with {_q(old_fail)} when recorded and now passes: the "
                 "conclusion drawn from it may no longer hold"
                 f"{_dead_end_hint(category)}.", True)
    diff = _first_difference(old_cmp, new_cmp)
    if old_fail is not None:
        text = (f"{_cap(what)} failed when recorded ({_q(old_fail)}) and still fails, but "
                f"differently: now {_q(new_fail or 'exit ' + str(new_exit))}. The reason it "
                "fails has changed; re-check what was concluded from it.")
        return j("changed", text, True)
    return j("changed", f"{_cap(what)} still succeeds but now says something different ({diff}): "
             "re-read it before relying on the recorded conclusion.")


def _launch_verdict(j: Callable[..., Judgement], what: str, old_fail: str | None,
                    new_fail: str | None,
                    state: str) -> Judgement:
    how = {"port": "its port answered", "log": "it logged that it is ready",
           "slept": "it was still running after the recorded wait",
           "alive": "it was still running after a short wait"}.get(state, state)
    if old_fail is None and new_fail is None:
        return j("same", f"{_cap(what)} came up as when recorded ({how}).")
    if old_fail is None:
        return j("now-fails", f"{_cap(what)} came up when recorded and now does not: {new_fail}.")
    if new_fail is None:
        return j("now-passes", f"{_cap(what)} failed when recorded ({_q(old_fail)}) and now "
                 f"comes up ({how}): the dead end it led to may have come back to life; "
                 "revisit it.", True)
    return j("same" if old_fail == new_fail else "changed",
             f"{_cap(what)} failed when recorded ({_q(old_fail)}) and still does not come up "
             f"({new_fail}).")


def _dead_end_hint(category: str) -> str:
    if category in ("import-check", "package-query"):
        return ": the dead end it led to may have come back to life; revisit it"
    if category in ("build", "install", "launch", "test", "typecheck", "lint", "deploy"):
        return ": what failed then works now; revisit the decision that followed"
    return "; revisit it"


def _answer_summary(output: str, fail: str | None) -> str:
    if fail:
        return f"it now fails with {_q(fail)}"
    first = next((ln.strip() for ln in output.splitlines() if ln.strip()), "")
    return f"it now succeeds ({_q(first[:100])})" if first else "it now succeeds, printing nothing"


def _partial_answer(output: str, fail: str | None, why: str) -> str:
    if fail and why not in fail and not any(p.search(fail) for p, _ in _TRANSPORT):
        return f"; the part that did run reported {_q(fail)}"
    return ""


def _first_difference(a: str, b: str) -> str:
    al, bl = a.split("\n"), b.split("\n")
    for x, y in zip(al, bl, strict=False):
        if x != y:
            return f"now {_q(y.strip()[:80])} where it said {_q(x.strip()[:80])}"
    if len(al) != len(bl):
        return f"{len(bl)} lines now, {len(al)} when recorded"
    return "the output differs"


def _q(text: str) -> str:
    return f"“{text}”"


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


# ------------------------------------------------------------------ describing a step
_IMPORT = re.compile(r"\b(?:import\s+([\w.]+)|from\s+([\w.]+)\s+import)")


def describe(category: str, info: ShellInfo | None, command: str) -> str:
    """A short noun phrase for a step: ``the import check of deep_ep``."""
    cmds = list(info.commands) if info is not None else []
    if category == "import-check":
        mods: list[str] = []
        for c in cmds:
            eff = c.effective_argv
            if "-c" in eff:
                code = eff[eff.index("-c") + 1] if eff.index("-c") + 1 < len(eff) else ""
                for m in _IMPORT.finditer(code):
                    name = m.group(1) or m.group(2)
                    if name not in mods:
                        mods.append(name)
        if mods:
            return "the import check of " + _and(mods)
    main = _main_command(category, cmds)
    short = _short(main) if main else _short_text(command)
    noun = {"search": "the search", "package-query": "the package query",
            "launch": "the launch of", "benchmark": "the benchmark", "build": "the build",
            "install": "the install", "kill": "the kill", "import-check": "the import check",
            "file-edit": "the edit", "file": "the file operation", "test": "the test run",
            "typecheck": "the type check", "lint": "the lint", "git": "the git command",
            "package": "the package command", "http": "the request", "run": "the run",
            "deploy": "the deploy"}.get(category, "the command")
    return f"{noun} {short}"


def _main_command(category: str, cmds: list[SimpleCommand]) -> SimpleCommand | None:
    skip = {"ssh", "echo", "cd", "sleep", "head", "tail", "true", "printf", "wc", "sort"}
    for c in cmds:
        if c.program and c.program not in skip:
            return c
    return cmds[0] if cmds else None


def _short(cmd: SimpleCommand) -> str:
    words = list(cmd.effective_argv)
    text = " ".join(words)
    if len(text) > 70:
        text = text[:67] + "…"
    return f"`{text}`"


def _short_text(text: str) -> str:
    t = " ".join(text.split())
    return f"`{t[:67] + '…' if len(t) > 70 else t}`"


def _and(items: Sequence[str]) -> str:
    items = list(items)
    if len(items) == 1:
        return items[0]
    return ", ".join(items[:-1]) + " and " + items[-1]
