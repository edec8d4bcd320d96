"""Running replay steps: the system OpenSSH client with connection sharing, or a local shell.

One ssh *master* per target (``ssh -M -N -f`` with ``ControlPersist``) is
started on first use; every step then runs as a multiplexed session over its
``ControlPath`` socket (``-S``), so a run of many steps pays for one
handshake per target.  Sockets live in a private directory (mode 700) made
for the run and removed at the end, after each master is closed with
``ssh -O exit``.

Every process runs in its own process group (``start_new_session``); a step
that outlives its timeout has its group killed, and the remote side runs
under ``timeout`` (see :func:`wrap_remote`) so nothing keeps running on the
target either.  Output (stdout and stderr merged, as the agent saw it) is
handed to a callback as it arrives and kept whole.

Safety by construction: :meth:`Executor.ssh_argv` builds every ssh command
line and refuses a destination that is not one of the run's mapped targets
(and, with ``LOGKB_REPLAY_LOOPBACK_ONLY=1``, one that is not loopback; that mode
also passes ``-F /dev/null`` so no ssh_config entry can redirect a target)
before any argv exists.  Nothing here decides *what* to run: that is the plan's job
(:mod:`kb.replay.plan`), which never runs anything.
"""

from __future__ import annotations

import codecs
import math
import os
import re
import selectors
import shlex
import shutil
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from kb.replay.hostmap import Target, is_loopback
from kb.replay.sandbox import (
    GIT_NET,
    Policy,
    local_argv,
    refused_on_target,
    remote_probe,
    remote_wrapper,
)
from logparse.shell import parse_command

LOOPBACK_ENV = "LOGKB_REPLAY_LOOPBACK_ONLY"

#: Options of every ssh client replay starts: never prompt, never forward, never run
#: local commands from the user's ssh config, no pty, quiet about known-hosts updates.
CLIENT_OPTIONS: tuple[str, ...] = (
    "-T", "-x", "-a",
    "-o", "BatchMode=yes",
    "-o", "ConnectTimeout=15",
    "-o", "ClearAllForwardings=yes",
    "-o", "PermitLocalCommand=no",
    "-o", "LogLevel=ERROR",
)
MASTER_OPTIONS: tuple[str, ...] = (
    "-o", "ServerAliveInterval=15",
    "-o", "ServerAliveCountMax=4",
    "-o", "ControlPersist=600",
)
#: Options an ssh that runs *on a target* (a nested ssh) gets besides the target's own.
NESTED_OPTIONS: tuple[str, ...] = ("-o", "BatchMode=yes")

# OpenSSH's getopt string: letters followed by ':' take an argument.
_SSH_GETOPT = "1246ab:c:e:fgi:kl:m:no:p:qstvxAB:CD:E:F:GI:J:KL:MNO:P:Q:R:S:TVw:W:XYy"
_SSH_ARG = {c for i, c in enumerate(_SSH_GETOPT) if i + 1 < len(_SSH_GETOPT)
            and _SSH_GETOPT[i + 1] == ":" and c != ":"}


class ReplayRefused(Exception):
    """A command line would reach a host the run did not map: it is never started."""


@dataclass(frozen=True)
class SshArgv:
    """An ssh command line taken apart with OpenSSH's option rules."""

    options: tuple[tuple[str, str | None], ...]
    destination: str | None
    command: tuple[str, ...]

    @property
    def host(self) -> str | None:
        if self.destination is None:
            return None
        d = self.destination
        if d.startswith("ssh://"):
            d = d[6:]
        d = d.rpartition("@")[2]
        if d.startswith("["):
            return d[1:].partition("]")[0]
        if d.count(":") == 1:
            return d.partition(":")[0]
        return d

    def option_values(self, letter: str) -> list[str]:
        return [v or "" for k, v in self.options if k == letter]


def parse_ssh_argv(argv: Iterable[str]) -> SshArgv:
    """Options, destination and remote command of ``ssh …`` (argv[0] is the program)."""
    words = list(argv)[1:]
    opts: list[tuple[str, str | None]] = []
    dest: str | None = None
    i = 0
    while i < len(words):
        w = words[i]
        if w == "--":
            i += 1
            if dest is None and i < len(words):
                dest = words[i]
                i += 1
            break
        if w.startswith("-") and len(w) > 1:
            j = 1
            while j < len(w):
                c = w[j]
                if c in _SSH_ARG:
                    val = w[j + 1:]
                    if not val:
                        i += 1
                        val = words[i] if i < len(words) else ""
                    opts.append((c, val))
                    break
                opts.append((c, None))
                j += 1
            i += 1
            continue
        if dest is None:
            dest = w
            i += 1
            continue  # OpenSSH parses options after the destination too
        break
    return SshArgv(tuple(opts), dest, tuple(words[i:]))


def loopback_only() -> bool:
    return os.environ.get(LOOPBACK_ENV, "") not in ("", "0", "no", "false")


def client_options(ctl: str | None = None) -> list[str]:
    """The options every ssh client replay starts from this machine gets (``-S ctl`` too)."""
    opts = ["-F", "/dev/null"] if loopback_only() else []  # no ssh_config may redirect it
    opts += CLIENT_OPTIONS
    if ctl is not None:
        opts += ["-S", ctl]
    return opts


#: Shell text (POSIX sh, dash, bash, zsh) that cleans the target's search paths before
#: anything is looked up, as :func:`step_environment` cleans this machine's: ``PATH``
#: keeps its absolute entries that are not world-writable (``.``, an empty entry and
#: ``bin`` search the directory the step is in; anyone can plant ``ls`` in a ``/tmp``
#: listed early), ``LD_LIBRARY_PATH`` its absolute ones.  It runs first, so ``bash``,
#: ``timeout`` and ``bwrap`` are found on the cleaned ``PATH`` too.  The variables of
#: :data:`_PROGRAM_STEERING` go as well (a vetted ``less`` ran ``$LESSOPEN``).
CLEAN_PATH = (
    "_lkn='\n'; _lkp=$PATH:; _lkq=; set --; while [ -n \"$_lkp\" ]; do "
    "_lkd=${_lkp%%:*}; _lkp=${_lkp#*:}; case $_lkd in /*) set -- \"$@\" \"$_lkd\";; esac; "
    "done; _lkw=; for _lkf in /usr/bin/find /bin/find; do if [ -x \"$_lkf\" ]; then "
    "_lkw=$(\"$_lkf\" -H \"$@\" -maxdepth 0 -perm -0002 -print 2>/dev/null); break; fi; "
    "done; for _lkd in \"$@\"; do case \"$_lkn$_lkw$_lkn\" in *\"$_lkn$_lkd$_lkn\"*) ;; "
    "*) _lkq=${_lkq:+$_lkq:}$_lkd;; esac; done; PATH=$_lkq; export PATH; "
    "if [ -n \"${LD_LIBRARY_PATH+x}\" ]; then _lkp=$LD_LIBRARY_PATH:; _lkq=; "
    "while [ -n \"$_lkp\" ]; do _lkd=${_lkp%%:*}; _lkp=${_lkp#*:}; case $_lkd in /*) "
    "_lkq=${_lkq:+$_lkq:}$_lkd;; esac; done; LD_LIBRARY_PATH=$_lkq; export "
    "LD_LIBRARY_PATH; fi; set --; unset LESSOPEN LESSCLOSE DEBUGINFOD_URLS; "
    "LESSSECURE=1; export LESSSECURE; ")

NEED_BASH = ("command -v bash >/dev/null 2>&1 || { echo 'logkb: bash is not available on "
             "this target; replay runs remote steps with bash only' >&2; exit 126; }; ")
"""Shell text that stops a remote step (exit 126) on a target without bash."""

#: The clients that read per-user network configuration on the target, the files they
#: read (shell words, expanded there) and what on their command line turns the config
#: file off (curl: ``-q`` first).  A ``~/.curlrc`` can add ``url``, ``proxy``,
#: ``location``, ``header`` and ``netrc``; a ``~/.wgetrc`` a proxy or credentials;
#: ``~/.netrc`` logins sent to whatever host it names.  None of it is in the
#: transcript, so neither the host map nor the redactor ever saw it (safe14).
USER_NET_CONFIG: tuple[tuple[str, tuple[str, ...], tuple[str, ...], str], ...] = (
    ("curl", ('"${CURL_HOME:+$CURL_HOME/.curlrc}"',
              '"${XDG_CONFIG_HOME:-$HOME/.config}/curlrc"', '"$HOME/.curlrc"'),
     ('"$HOME/.netrc"',), r"-q|--disable"),
    ("wget", ('"${WGETRC:-$HOME/.wgetrc}"', '"$HOME/.netrc"'), (), ""),
)
_NETRC_OPT = re.compile(r"(?<!\S)(?:-n|--netrc(?:-optional|-file)?)(?![^\s=])")
#: wget's system-wide file (safe15), read before the user's: ``$SYSTEM_WGETRC`` or the
#: one wget was built with.  Debian's holds ``passive_ftp = on``, so a wget step stops
#: only when it sets what adds an endpoint or a credential: a proxy, a header, a login
#: or password, a body, a cookie file, a client certificate, an input list, a base URL
#: (wget reads a setting's name in any case, ``_`` and ``-`` left out).
SYSTEM_NET_CONFIG = ('"${SYSTEM_WGETRC:-}"', "/etc/wgetrc", "/usr/local/etc/wgetrc")
_SYSTEM_WGETRC_KEYS = (r"^[[:space:]]*[A-Za-z_-]*(proxy|header|user|passw|cookie|certif"
                       r"|privatekey|private_key|private-key|post|body|method|input|base"
                       r"|bindaddress|bind_address|bind-address)[A-Za-z_-]*[[:space:]]*=")


#: What of git's configuration outside the repository redirects a network command or
#: adds credentials to it (safe15): ``url.<x>.insteadOf``/``pushInsteadOf``, a proxy,
#: an extra header, a credential helper or name, ``core.sshCommand``/``gitProxy``/
#: ``askPass``, and an include (it could hold any of them).  ``git config`` names keys
#: in lower case (a subsection as written).
_GIT_CONFIG_KEYS = (r"^(url\..*\.(push)?insteadof|https?(\..*)?\.(proxy|extraheader)"
                    r"|credential(\..*)?\.(helper|username)|core\.(sshcommand|gitproxy|askpass)"
                    r"|include(if\..*)?\.path)$")
#: git's own environment from the target's login shell (``~/.bashrc``), none of it in
#: the transcript: configuration in the environment, the ssh and proxy programs.
_GIT_ENV = ("GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "GIT_SSH", "GIT_SSH_COMMAND",
            "GIT_PROXY_COMMAND", "GIT_ASKPASS")


def git_config_guard(text: str, where: str = "this target") -> str:
    """Shell text for a step that runs a network git command (safe15): git then reads no
    system-wide configuration (``GIT_CONFIG_NOSYSTEM=1``: ``/etc/gitconfig``) and none
    from the login environment (:data:`_GIT_ENV` unset), and the step stops (exit 126,
    naming the setting's section and name, never its value or URL) when the user's
    global configuration (``~/.gitconfig``, ``$XDG_CONFIG_HOME/git/config``) holds one of
    :data:`_GIT_CONFIG_KEYS`: ``url.<x>.insteadOf`` sent a replayed ``git fetch`` to
    another host, ``http.proxy`` through a proxy, ``credential.helper`` added the
    target's stored login.  The global file is not turned off (``GIT_CONFIG_GLOBAL=
    /dev/null``) because its ``safe.directory`` lets a check run in a repository another
    user owns, and git before 2.32 ignores that variable.  Empty for any other step (a
    sandboxed local step sees those files empty instead: :attr:`Policy.git_net`)."""
    if not GIT_NET.search(text):
        return ""
    return (f"export GIT_CONFIG_NOSYSTEM=1; unset {' '.join(_GIT_ENV)}; "
            "if command -v git >/dev/null 2>&1; then k=$(git config --global --name-only "
            f"--get-regexp '{_GIT_CONFIG_KEYS}' 2>/dev/null | head -n 1); "
            'if [ -n "$k" ]; then echo "logkb: refused: ${k%%.*}.*.${k##*.} in the git '
            f'configuration of the user on {where} can redirect git or add credentials; '
            'replay does not run it there" >&2; exit 126; fi; fi; ')


def net_config_guard(text: str, where: str = "this target") -> str:
    """Shell text that stops a remote step (exit 126) when it runs curl or wget and the
    target holds a per-user file that client reads (:data:`USER_NET_CONFIG`): it could
    send the target's credentials or reach an endpoint the plan never checked.  Empty
    when the step runs neither (a word scan, so code handed to another program counts
    too); curl with ``-q`` first everywhere skips its curlrc (not ``~/.netrc`` when
    ``--netrc`` asks for it).  A local step run without the sandbox (``--no-sandbox``)
    starts with it too (``where``: ``this machine``); in the sandbox bwrap masks the
    files instead (:func:`kb.replay.sandbox.user_net_config`)."""
    files: list[str] = []
    for prog, config, netrc, off in USER_NET_CONFIG:
        uses = [m.end() for m in re.finditer(rf"(?<![\w.-]){prog}(?![\w.-])", text)]
        if not uses:
            continue
        disabled = bool(off) and all(re.match(rf"[ \t]+(?:{off})(?!\S)", text[i:])
                                     for i in uses)
        if not disabled:
            files += config
        if netrc and (not disabled or _NETRC_OPT.search(text)):
            files += netrc
    system = git_config_guard(text, where)
    if re.search(r"(?<![\w.-])wget(?![\w.-])", text):
        system += (f'for f in {" ".join(SYSTEM_NET_CONFIG)}; do if [ -n "$f" ] && [ -f "$f" ] '
                  f"&& grep -Eiq '{_SYSTEM_WGETRC_KEYS}' \"$f\" 2>/dev/null; then echo "
                  f'"logkb: refused: $f on {where} sets a proxy, a header or a login for '
                  'wget; replay does not run it there" >&2; exit 126; fi; done; ')
    if not files:
        return system
    names = " ".join(dict.fromkeys(files))
    return (f'for f in {names}; do if [ -n "$f" ] && [ -e "$f" ]; then echo "logkb: refused: '
            f'$f on {where} can add endpoints or credentials to curl or wget; replay '
            'does not run them there" >&2; exit 126; fi; done; ') + system


def wrap_remote(command: str | None, timeout: float, *, sandbox: Policy | None = None,
                mode: str = "off", max_memory: int | None = None,
                probed: bool = False, root: bool | None = None, scan: str = "") -> str:
    """The string sent to the target: ``command`` under the login shell, killed after ``timeout``.

    ``timeout`` (coreutils) kills the whole remote process group, so a step that
    times out leaves nothing behind; without ``timeout`` on the target the
    command runs unwrapped.  ``None`` means a script on stdin (``bash -s``).
    The step runs under ``bash`` whatever the target's login shell (``$SHELL``) is:
    the recorded command is bash, and classification read it as bash (dash or zsh
    would expand it otherwise); a target without bash refuses the step (exit 126).
    With ``sandbox`` the command runs inside bwrap on the target
    (:func:`kb.replay.sandbox.remote_wrapper`, ``mode`` auto/require/off), and
    ``max_memory`` bounds its data segment (``ulimit -d``).  A step that runs curl or
    wget stops first (exit 126) when the target holds a config file they read
    (:func:`net_config_guard`; ``scan``: the script a ``None`` command reads on stdin).
    """
    limit = max(1, math.ceil(timeout)) + 1
    run = ("$t bash -s" if command is None
           else f"$t bash --norc -c {shlex.quote(command)}")
    head = (CLEAN_PATH + NEED_BASH + net_config_guard(command if command is not None else scan)
            + f"t=; command -v timeout >/dev/null 2>&1 && t='timeout -k 5 {limit}'; "
            "unset BASH_ENV ENV; ")
    if max_memory:
        head += f"ulimit -d {max(1, max_memory // 1024)} 2>/dev/null; "
    if sandbox is not None and mode != "off":
        return head + remote_wrapper(sandbox, mode, run, probed=probed, root=root)
    return head + f"exec {run}"


DEFAULT_MAX_OUTPUT = 1 << 20
"""Bytes of a step's output that are kept (``--max-output``); the rest is counted."""
RUNAWAY_FACTOR = 64
"""A step still printing after ``RUNAWAY_FACTOR`` times the cap is stopped."""
DEFAULT_MAX_MEMORY = 4 << 30
"""Data segment limit of a step (RLIMIT_DATA; ``--max-memory``)."""


@dataclass
class Outcome:
    """What one process did."""

    exit_code: int | None
    output: str
    duration_ms: int
    timed_out: bool = False
    started_at: float = 0.0
    dropped: int = 0
    """Output bytes counted and dropped beyond the cap."""
    runaway: bool = False
    """The step was stopped because it kept printing far beyond the cap."""


def _limits(max_memory: int | None) -> Callable[[], None] | None:
    if not max_memory:
        return None

    def apply() -> None:  # runs in the child before exec
        import resource

        for lim, value in ((resource.RLIMIT_DATA, max_memory), (resource.RLIMIT_CORE, 0)):
            try:
                soft, hard = resource.getrlimit(lim)
                cap = value if hard == resource.RLIM_INFINITY else min(value, hard)
                resource.setrlimit(lim, (cap, hard))
            except (ValueError, OSError):
                pass
    return apply


def run_process(argv: list[str], *, timeout: float, cwd: str | None = None,
                stdin: str | None = None, on_output: Callable[[str], None] | None = None,
                env: dict[str, str] | None = None, max_output: int | None = None,
                max_memory: int | None = None) -> Outcome:
    """Run ``argv`` in its own process group with stdout+stderr merged, streamed and kept.

    After ``timeout`` seconds the group gets SIGTERM, then SIGKILL.  When the
    process has exited but something it started in the background still holds
    the output pipe, reading stops half a second later and the group is killed.
    """
    started = time.time()
    t0 = time.monotonic()
    try:
        proc = subprocess.Popen(
            argv, stdin=subprocess.PIPE if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=cwd, env=env,
            start_new_session=True, preexec_fn=_limits(max_memory))
    except OSError as e:
        return Outcome(127, f"logkb: cannot start {argv[0]}: {e}\n", 0, False, started)
    if stdin is not None:
        assert proc.stdin is not None
        threading.Thread(target=_feed, args=(proc.stdin, stdin), daemon=True).start()
    assert proc.stdout is not None
    fd = proc.stdout.fileno()
    os.set_blocking(fd, False)
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    chunks: list[bytes] = []
    deadline = t0 + timeout
    pidfd = _pidfd(proc.pid)  # wakes the loop the moment the process exits
    try:
        return _collect(proc, fd, pidfd, decoder, chunks, deadline, on_output, t0, started,
                        max_output)
    except BaseException:  # Ctrl-C or a failing callback: leave nothing running
        _killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        raise
    finally:
        if pidfd is not None:
            os.close(pidfd)


def _collect(proc: subprocess.Popen[bytes], fd: int, pidfd: int | None,
             decoder: codecs.IncrementalDecoder, chunks: list[bytes], deadline: float,
             on_output: Callable[[str], None] | None, t0: float, started: float,
             max_output: int | None = None) -> Outcome:
    timed_out = False
    kept = 0
    dropped = 0
    runaway = False
    exited_at: float | None = None
    eof = False
    with selectors.DefaultSelector() as sel:
        sel.register(fd, selectors.EVENT_READ, "out")
        if pidfd is not None:
            sel.register(pidfd, selectors.EVENT_READ, "exit")
        while True:
            now = time.monotonic()
            if exited_at is None and proc.poll() is not None:
                exited_at = now
                if pidfd is not None:
                    sel.unregister(pidfd)
            if eof and exited_at is not None:
                break
            if exited_at is not None and now - exited_at > 0.5:
                _killpg(proc.pid, signal.SIGKILL)  # a background child holds the pipe
                break
            if now >= deadline:
                timed_out = True
                break
            if eof and pidfd is None:
                time.sleep(0.001)
                continue
            for key, _ in sel.select(min(deadline - now, 0.25)):
                if key.data != "out":
                    continue
                try:
                    data = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                if not data:
                    eof = True
                    sel.unregister(fd)
                    continue
                if max_output is not None and kept + len(data) > max_output:
                    room = max(0, max_output - kept)
                    dropped += len(data) - room
                    data = data[:room]
                    if dropped > RUNAWAY_FACTOR * max_output and not runaway:
                        runaway = True  # printing without end: stop it, keep what it said
                        _killpg(proc.pid, signal.SIGKILL)
                if not data:
                    continue
                kept += len(data)
                chunks.append(data)
                if on_output is not None:
                    text = decoder.decode(data)
                    if text:
                        on_output(text)
    if timed_out:
        _killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(1.0)
        except subprocess.TimeoutExpired:
            pass
        _killpg(proc.pid, signal.SIGKILL)
        rest = b"".join(_drain(fd))
        if max_output is not None:
            room = max(0, max_output - kept)
            dropped += max(0, len(rest) - room)
            rest = rest[:room]
        chunks.append(rest)
    try:
        proc.wait(5.0)
    except subprocess.TimeoutExpired:
        _killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    assert proc.stdout is not None
    proc.stdout.close()
    if on_output is not None:
        tail = decoder.decode(b"", final=True)
        if tail:
            on_output(tail)
    rc = proc.returncode
    code = None if timed_out else (rc if rc >= 0 else 128 - rc)
    return Outcome(code, b"".join(chunks).decode("utf-8", "replace"),
                   int((time.monotonic() - t0) * 1000), timed_out, started, dropped, runaway)


def _pidfd(pid: int) -> int | None:
    try:
        return os.pidfd_open(pid)  # Linux 5.3+
    except (AttributeError, OSError):
        return None


def _feed(pipe: IO[bytes], text: str) -> None:
    try:
        pipe.write(text.encode())
        pipe.close()
    except OSError:
        pass


def _drain(fd: int) -> list[bytes]:
    out = []
    end = time.monotonic() + 0.5
    while time.monotonic() < end:
        try:
            data = os.read(fd, 65536)
        except BlockingIOError:
            time.sleep(0.02)
            continue
        except OSError:
            break
        if not data:
            break
        out.append(data)
    return out


def _killpg(pgid: int, sig: int) -> None:
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


LOCAL_SHELL = shutil.which("bash") or "/bin/sh"

#: Variables of this machine's environment that change what bash runs before or
#: around the step: start-up files, shell options (``xtrace`` with a ``PS4`` that
#: holds ``$(…)`` runs it), ``cd``'s search path.  Classification read the command
#: as plain bash, so the step's shell gets none of them.
_SHELL_STEERING = frozenset({"BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS", "PS4", "CDPATH",
                             "GLOBIGNORE", "PROMPT_COMMAND", "BASH_XTRACEFD"})


#: Variables of the machine's environment that make a vetted read-only program run
#: another: ``less`` runs ``$LESSOPEN`` (Debian's ``lesspipe``, set by ``~/.bashrc``) on
#: the recorded repository's file even into a pipe, and binutils fetch debug info from
#: ``$DEBUGINFOD_URLS``.  Gone from every step's environment, here and on a target, and
#: ``LESSSECURE=1`` keeps ``less`` from any command of its own.
_PROGRAM_STEERING = frozenset({"LESSOPEN", "LESSCLOSE", "DEBUGINFOD_URLS"})


def step_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The environment a local step's bash starts with: this machine's, without what
    steers bash, without exported functions (``BASH_FUNC_ls%%=() {…}`` would make
    the vetted ``ls`` of a read-only step run the function's code), without what makes
    a vetted program run another (:data:`_PROGRAM_STEERING`) and without the relative
    and world-writable entries of ``PATH`` and ``LD_LIBRARY_PATH``."""
    env = {k: v for k, v in environ.items()
           if k not in _SHELL_STEERING and k not in _PROGRAM_STEERING
           and not k.startswith("BASH_FUNC_")}
    env["LESSSECURE"] = "1"
    for name in _SEARCH_PATHS:
        if name in env:  # an empty or relative entry searches the working directory
            env[name] = ":".join(p for p in env[name].split(":")
                                 if p.startswith("/") and not _world_writable(p))
    return env


def _world_writable(path: str) -> bool:
    """Whether anyone may add files to ``path`` (a program planted in a ``/tmp`` listed
    early in ``PATH`` would run for the vetted one)."""
    try:
        return bool(os.stat(path).st_mode & 0o002)
    except OSError:
        return False


#: Search paths whose empty or relative entries (``PATH=/usr/bin:`` ends in one) find
#: programs and libraries in the step's working directory: a recorded repository with
#: an executable ``ls`` would run it for a vetted ``ls``.
_SEARCH_PATHS = ("PATH", "LD_LIBRARY_PATH")


class Executor:
    """Masters, step processes and cleanup for one replay run.

    ``allowed`` are the ssh targets the run may contact (from the host map);
    ``control_dir`` is the private directory for the control sockets (it must
    not exist yet: it is created with mode 700).
    """

    def __init__(self, control_dir: str | Path, allowed: Iterable[Target], *,
                 bwrap: str | None = None, remote_sandbox: str = "off",
                 max_output: int | None = DEFAULT_MAX_OUTPUT,
                 max_memory: int | None = DEFAULT_MAX_MEMORY) -> None:
        self.control_dir = Path(control_dir)
        self.allowed = {t.host for t in allowed if not t.is_local}
        self.masters: dict[str, tuple[Target, str]] = {}
        self.master_errors: dict[str, str] = {}
        self._opened = False
        self.bwrap = bwrap
        """The local bwrap (None: ``--no-sandbox``, steps run unwrapped)."""
        self.remote_sandbox = remote_sandbox
        self.remote_root: dict[str, bool] = {}
        self.remote_bwrap: dict[str, bool] = {}
        """Target label → whether bwrap works there (probed once per target)."""
        self.max_output = max_output
        self.max_memory = max_memory

    # ------------------------------------------------------------------ setup
    def open(self) -> None:
        self.control_dir.mkdir(mode=0o700)  # fails if it exists: never reuse a planted dir
        os.chmod(self.control_dir, 0o700)
        (self.control_dir / "work").mkdir(mode=0o700)
        self._opened = True

    def __enter__(self) -> Executor:
        self.open()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def scratch(self) -> str:
        return str(self.control_dir / "work")

    # ------------------------------------------------------------- the guard
    def check_destination(self, host: str | None) -> None:
        """Refuse any destination that is not a mapped target (before an argv exists)."""
        if host is None or host not in self.allowed:
            raise ReplayRefused(f"refused: {host or 'no host'} is not a mapped target of this run")
        if loopback_only() and not is_loopback(host):
            raise ReplayRefused(f"refused: {host} is not loopback ({LOOPBACK_ENV} is set)")

    def check_argv(self, argv: list[str]) -> None:
        """Re-check a finished ssh argv (defence in depth: it was built by :meth:`ssh_argv`)."""
        if Path(argv[0]).name != "ssh":
            return
        parsed = parse_ssh_argv(argv)
        self.check_destination(parsed.host)
        for k, v in parsed.options:
            if k in "JW" or (k == "o" and v and v.split("=", 1)[0].strip().lower()
                             in ("proxycommand", "proxyjump", "hostname")):
                raise ReplayRefused(f"refused: ssh option -{k} {v} could reach another host")

    def check_text(self, text: str) -> None:
        """Check every ssh that a shell text would start, at any depth (nested included)."""
        info = parse_command(text)
        if info.opaque and "ssh" in text:
            raise ReplayRefused("refused: the command cannot be fully analysed and mentions ssh")
        for cmd in info.commands + info.local_commands:
            if cmd.program == "ssh":
                self.check_argv(list(cmd.effective_argv))

    def ssh_argv(self, target: Target, ctl: str, remote: str | None, *,
                 master: bool = False, control: str | None = None) -> list[str]:
        """The ssh command line for ``target`` (a step, the master, or ``-O control``)."""
        self.check_destination(target.host)
        argv = ["ssh", *client_options(ctl)]
        if control is not None:
            argv += ["-O", control]
        elif master:
            argv += ["-M", "-N", "-f", *MASTER_OPTIONS]
        else:
            argv += ["-o", "ControlMaster=no"]
        argv += [*target.ssh_options(), target.destination]
        if remote is not None and not master and control is None:
            argv.append(remote)
        self.check_argv(argv)
        return argv

    # ---------------------------------------------------------------- masters
    def ensure_master(self, target: Target, ctl: str) -> str | None:
        """Start the shared connection to ``target``; the error text if it failed."""
        key = target.label
        if key in self.masters:
            return None
        if key in self.master_errors:
            return self.master_errors[key]
        argv = self.ssh_argv(target, ctl, None, master=True)
        log = self.control_dir / f"master-{len(self.masters) + len(self.master_errors)}.log"
        with log.open("wb") as fh:
            try:
                proc = subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                      stderr=fh, timeout=60, start_new_session=True)
                rc = proc.returncode
            except subprocess.TimeoutExpired:
                rc = None
        if rc == 0 and Path(ctl).exists():
            self.masters[key] = (target, ctl)
            return None
        text = log.read_text(errors="replace").strip()
        msg = text or (f"ssh to {target.label} timed out" if rc is None
                       else f"ssh to {target.label} failed (exit {rc})")
        self.master_errors[key] = msg
        if Path(ctl).exists():  # half-started master: ask it to go
            self._exit_master(target, ctl)
        return msg

    def _exit_master(self, target: Target, ctl: str) -> None:
        try:
            argv = self.ssh_argv(target, ctl, None, control="exit")
            subprocess.run(argv, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL, timeout=10)
        except (subprocess.TimeoutExpired, ReplayRefused, OSError):
            pass

    # ------------------------------------------------------------------ steps
    def target_has_bwrap(self, target: Target, ctl: str) -> bool:
        """Whether bwrap works on ``target`` (asked once, over the shared connection)."""
        if target.label not in self.remote_bwrap:
            argv = self.ssh_argv(target, ctl, remote_probe())
            out = run_process(argv, timeout=30, max_output=4096)
            last = out.output.strip().rsplit("\n", 1)[-1]
            self.remote_bwrap[target.label] = last.startswith("bwrap uid=")
            self.remote_root[target.label] = last == "bwrap uid=0"
        return self.remote_bwrap[target.label]

    def run_ssh(self, target: Target, ctl: str, remote: str | None, *, timeout: float,
                stdin: str | None = None, wrap: bool = True,
                on_output: Callable[[str], None] | None = None,
                sandbox: Policy | None = None) -> Outcome:
        """Run ``remote`` on ``target`` over its shared connection.

        With ``sandbox`` (and ``--remote-sandbox`` not ``off``) the command runs
        inside bwrap on the target when bwrap works there; ``require`` refuses
        the step (:class:`ReplayRefused`) when it does not.
        """
        err = self.ensure_master(target, ctl)
        if err is not None:
            return Outcome(255, err + "\n", 0, False, time.time())
        if remote is not None:
            self.check_text(remote)
        if stdin is not None:
            self.check_text(stdin)
        mode = self.remote_sandbox if sandbox is not None else "off"
        if mode != "off" and not self.target_has_bwrap(target, ctl):
            if mode == "require":
                raise ReplayRefused(f"refused: bwrap is not available on {target.label} "
                                    "(--remote-sandbox require)")
            mode = "off"
        # probed: the step re-checks bwrap on the target and refuses when it is gone;
        # root is asked there too, never taken from the probe (the user may differ)
        payload = (wrap_remote(remote, timeout, sandbox=sandbox, mode=mode,
                               max_memory=self.max_memory, probed=mode != "off",
                               scan=stdin or "")
                   if wrap else remote)
        argv = self.ssh_argv(target, ctl, payload)
        out = run_process(argv, timeout=timeout, stdin=stdin, on_output=on_output,
                          max_output=self.max_output)
        gone = refused_on_target(out.output) if mode != "off" else None
        if gone and out.exit_code == 126:
            raise ReplayRefused(gone)
        if wrap and out.exit_code == 124 and out.duration_ms >= timeout * 1000:
            out.exit_code, out.timed_out = None, True  # the remote `timeout` fired first
        return out

    def run_local(self, text: str, *, cwd: str, timeout: float,
                  targets: Iterable[tuple[Target, str]] = (),
                  on_output: Callable[[str], None] | None = None,
                  sandbox: Policy | None = None, binds: Iterable[str] = ()) -> Outcome:
        """Run ``text`` with bash on this machine; ``targets`` it reaches get their masters first.

        With ``sandbox`` and a local bwrap the shell runs inside bwrap
        (:func:`kb.replay.sandbox.local_argv`); the control directory is bound
        read-only so an ssh to a mapped target goes through its shared connection,
        the only way out of the sandbox's empty network.  ``None`` runs replay's
        own scripts (readiness checks, stopping launches) unwrapped.
        """
        self.check_text(text)
        for target, ctl in targets:
            err = self.ensure_master(target, ctl)
            if err is not None:
                return Outcome(255, err + "\n", 0, False, time.time())
        argv = [LOCAL_SHELL, "-c", text]
        env = step_environment(os.environ)
        if sandbox is not None and self.bwrap is not None:
            if sandbox.git_net:  # git reads none of this machine's config (safe15): the
                # sandbox masks the files too, which git older than 2.32 fails on; nor
                # the configuration in the environment, as unsandboxed (review15)
                env.update(GIT_CONFIG_NOSYSTEM="1", GIT_CONFIG_GLOBAL="/dev/null")
                for name in _GIT_ENV:
                    env.pop(name, None)
            argv = local_argv(self.bwrap, sandbox, cwd, argv,
                              readonly=(str(self.control_dir), *binds))
        return run_process(argv, cwd=cwd, timeout=timeout, on_output=on_output, env=env,
                           max_output=self.max_output if sandbox is not None else None,
                           max_memory=self.max_memory if sandbox is not None else None)

    # ---------------------------------------------------------------- cleanup
    def close(self) -> None:
        for target, ctl in list(self.masters.values()):
            self._exit_master(target, ctl)
        self.masters.clear()
        if self._opened:
            shutil.rmtree(self.control_dir, ignore_errors=True)
            self._opened = False
