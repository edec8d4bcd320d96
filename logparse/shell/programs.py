"""Shared program knowledge: what both classifiers (and the walker) know about programs.

Shells and how they are invoked (``-c``, a script, stdin), Python interpreters
and ``python -m``/``-c``, container runtimes, servers, benchmarks, commands
that run until stopped, build tools, ``tar`` modes, ``nvidia-smi`` settings,
the files a command writes and how severe writing a path is, where the
command run by ``xargs`` or ``find -exec``/``fd -x`` starts, plus the
severity levels ``_RO < _LAUNCH < _UNK < _MUT``.  It is one module below both
:mod:`.category` and :mod:`.safety` so the two classifiers agree by
construction and neither has to import the other.
"""

from __future__ import annotations

import functools
import posixpath
import re

from logparse.shell.argv import _basename, _names, _skip_options
from logparse.shell.model import Redirect, SimpleCommand
from logparse.shell.wrappers import _strip_wrappers

# ---------------------------------------------------------------------------
# Shared program knowledge
# ---------------------------------------------------------------------------

_RO, _LAUNCH, _UNK, _MUT = 0, 1, 2, 3

_TRIVIAL_BG = _names("sleep wait true false : echo printf cd export")

_SERVER_PROGRAMS = _names(
    "uvicorn gunicorn hypercorn daphne text-generation-launcher llama-server tritonserver "
    "trtllm-serve redis-server tensorboard http-server caddy nginx"
)
_SERVE_SUBCOMMANDS = {
    "vllm": ("serve",),
    "sglang": ("serve", "launch"),
    "ollama": ("serve",),
    "jupyter": ("lab", "notebook", "server"),
    "mlflow": ("server", "ui"),
    "lmdeploy": ("serve",),
    "flask": ("run",),
}
_SERVER_MODULE_TAILS = frozenset(
    {"server", "serve", "api_server", "launch_server", "launch_router"}
)
_SERVER_MODULES = frozenset({"uvicorn", "gunicorn", "http.server", "jupyterlab", "notebook"})

_BENCH_PROGRAMS = _names(
    "ab wrk wrk2 hey oha vegeta locust hyperfine sysbench fio genai-perf guidellm "
    "nvbandwidth p2pBandwidthLatencyTest bandwidthTest iperf iperf3 stress-ng"
)

_SHELLS = _names("sh bash zsh dash ksh mksh ash fish")
_PYTHON_RE = re.compile(r"(?:python|pypy)(?:\d+(?:\.\d+)*)?(?:-dbg)?\Z")
_CONTAINERS = frozenset({"docker", "podman", "nerdctl"})


@functools.lru_cache(maxsize=4096)
def _is_python(prog: str) -> bool:
    return _PYTHON_RE.match(prog) is not None


def _shell_invocation(argv: tuple[str, ...]) -> tuple[str, int | None]:
    """How a shell is invoked: ``("c", idx)``, ``("script", idx)``, ``("stdin", None)``."""
    n = len(argv)
    i = 1
    has_c = False
    has_s = False
    while i < n:
        a = argv[i]
        if a in ("--", "-"):
            i += 1
            break
        if a in ("-o", "+o", "-O", "+O", "--rcfile", "--init-file"):
            i += 2
            continue
        if a.startswith("--"):
            i += 1
            continue
        if len(a) > 1 and a[0] in "-+":
            letters = a[1:]
            if a[0] == "-" and "c" in letters:
                has_c = True
            if "s" in letters:
                has_s = True
            i += 2 if ("o" in letters or "O" in letters) else 1
            continue
        break
    if has_c:
        return ("c", i if i < n else None)
    if has_s or i >= n:
        return ("stdin", None)
    return ("script", i)


def _stdin_redirect(redirects: tuple[Redirect, ...]) -> Redirect | None:
    """The redirection that feeds stdin (the last ``<``, ``<<``, ``<<-`` or ``<<<``)."""
    found = None
    for r in redirects:
        if r.op in ("<", "<<", "<<-", "<<<") and r.fd in (None, "0"):
            found = r
    return found


@functools.lru_cache(maxsize=16384)
def _python_invocation(argv: tuple[str, ...]) -> tuple[str, str | None, int]:
    """Decode ``python [opts] (-c CODE | -m MOD | SCRIPT | - ) ...``.

    Returns ``(mode, value, index after the value)`` with mode one of
    ``c``, ``m``, ``script``, ``stdin`` (``-`` or nothing), ``version``.
    """
    n = len(argv)
    i = 1
    while i < n:
        a = argv[i]
        if a == "-":
            return ("stdin", None, i + 1)
        if a in ("--version", "-V", "-VV", "--help", "-h"):
            return ("version", None, i + 1)
        if a.startswith("--"):
            i += 2 if a == "--check-hash-based-pycs" else 1
            continue
        if len(a) > 1 and a[0] == "-":
            j = 1
            step = 1
            while j < len(a):
                ch = a[j]
                if ch in "cm":
                    if j + 1 < len(a):
                        return (ch, a[j + 1 :], i + 1)
                    if i + 1 < n:
                        return (ch, argv[i + 1], i + 2)
                    return (ch, "", i + 1)
                if ch in "XW":
                    if j + 1 == len(a):
                        step = 2
                    break
                if ch in "Vh":
                    return ("version", None, i + 1)
                j += 1
            i += step
            continue
        return ("script", a, i + 1)
    return ("stdin", None, n)


def _first_operand(argv: tuple[str, ...], i: int = 1, with_arg: frozenset[str] = frozenset()):
    """The first argument after ``i`` that does not start with ``-`` (and its index)."""
    n = len(argv)
    while i < n:
        a = argv[i]
        if a == "--":
            return (argv[i + 1], i + 1) if i + 1 < n else (None, n)
        if a.startswith("-") and len(a) > 1:
            i += 2 if a in with_arg else 1
            continue
        return a, i
    return None, n


_BUILD_PROGRAMS = _names(
    "make gmake cmake ninja meson bazel scons gcc g++ cc c++ clang clang++ nvcc ld ar "
    "rustc javac mvn gradle cythonize"
)
_VERSION_ARGS = frozenset({"--version", "-V", "-v", "--help", "-h", "version", "-version"})

_SETUP_BUILD = _names("build build_ext install develop bdist_wheel sdist bdist build_py egg_info")


def _module_is_server(mod: str) -> bool:
    if mod in _SERVER_MODULES:
        return True
    return (
        "launch_server" in mod
        or "api_server" in mod
        or mod.rsplit(".", 1)[-1] in _SERVER_MODULE_TAILS
    )


def _server_reason(prog: str, eff: tuple[str, ...], strict: bool = False) -> str | None:
    """Why ``eff`` starts a (known) server, or None.

    ``strict`` (used for safety) only accepts server modules and programs:
    a script or ``-c`` code that mentions ``launch_server`` could do anything.
    """
    if _is_python(prog):
        mode, value, _ = _python_invocation(eff)
        if mode == "m" and value and _module_is_server(value):
            return f"{prog} -m {value} starts a server"
        if strict:
            return None
        if mode == "script" and value and "launch_server" in _basename(value):
            return f"{prog} {_basename(value)} starts a server"
        if mode == "c" and value and "launch_server" in value:
            return f"{prog} -c code starts a server"
        return None
    subs = _SERVE_SUBCOMMANDS.get(prog)
    if subs and len(eff) > 1 and eff[1] in subs:
        return f"{prog} {eff[1]} starts a server"
    if prog in _SERVER_PROGRAMS or "launch_server" in prog:
        return f"{prog} starts a server"
    return None


def _follow_reason(prog: str, eff: tuple[str, ...]) -> str | None:
    """Why ``eff`` runs until stopped (``tail -f``, ``watch``, ``journalctl -f``...)."""
    args = eff[1:]
    if prog == "tail":
        for a in args:
            if a in ("--follow", "--retry") or a.startswith("--follow="):
                return "tail -f follows the file until stopped"
            if len(a) > 1 and a[0] == "-" and a[1] != "-" and ("f" in a or "F" in a):
                return "tail -f follows the file until stopped"
        return None
    if prog == "watch":
        return "watch reruns its command until stopped"
    if prog == "journalctl" and any(a in ("-f", "--follow") for a in args):
        return "journalctl -f follows the journal until stopped"
    if prog in _CONTAINERS and len(args) > 1 and args[0] == "logs":
        if any(a in ("-f", "--follow") for a in args):
            return f"{prog} logs -f follows the logs until stopped"
    if prog == "nvidia-smi":
        for a in args:
            if a in ("-l", "--loop", "-lms", "--loop-ms", "dmon", "pmon") or a.startswith(
                ("--loop=", "--loop-ms=")
            ):
                return "nvidia-smi loops until stopped"
    if prog == "tmux" and args and args[0] in ("new", "new-session") and "-d" in args:
        return "tmux new -d starts a detached session"
    if prog == "screen" and any(a.startswith("-d") and "m" in a for a in args):
        return "screen -dm starts a detached session"
    if prog == "sleep" and args and args[0] in ("infinity", "inf"):
        return "sleep infinity never returns"
    return None


def _fuser_kills(args: tuple[str, ...]) -> bool:
    return any(
        a == "--kill" or (a.startswith("-") and not a.startswith("--") and "k" in a[1:])
        for a in args
    )


def _bench_hit(word: str) -> bool:
    w = _basename(word).lower()
    return "bench" in w or w.endswith("_perf") or w.endswith("_perf_mpi")


def _is_benchmark(prog: str, eff: tuple[str, ...]) -> bool:
    low = prog.lower()
    if low in _BENCH_PROGRAMS or _bench_hit(prog) or "nccl-tests" in eff[0]:
        return True
    if low.startswith("ib_") and (low.endswith("_bw") or low.endswith("_lat")):
        return True
    if _is_python(prog):
        mode, value, _ = _python_invocation(eff)
        return mode in ("m", "script") and bool(value) and _bench_hit(value)
    if prog in _SHELLS:
        mode, k = _shell_invocation(eff)
        return mode == "script" and k is not None and _bench_hit(eff[k])
    if prog in ("vllm", "sglang") and len(eff) > 1 and eff[1] == "bench":
        return True
    if prog in ("cargo",) and len(eff) > 1 and eff[1] == "bench":
        return True
    if prog in ("torchrun", "mpirun", "mpiexec", "deepspeed", "srun", "accelerate"):
        return any(_bench_hit(a) for a in eff[1:] if not a.startswith("-"))
    if prog == "go" and len(eff) > 1 and eff[1] == "test":
        return any(a.startswith("-bench") for a in eff[2:])
    if prog == "pytest" or (_is_python(prog) and "pytest" in eff):
        return any(a.startswith("--benchmark") for a in eff)
    return False


def _write_verdict(target: str, verb: str) -> tuple[int, str] | None:
    """Severity of writing ``target``: None when harmless (/dev/null, /tmp, an fd)."""
    t = target
    if not t or t.isdigit() or t == "-":
        return None
    if t in ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero"):
        return None
    if t.startswith(("/dev/fd/", "/proc/self/fd/")):
        return None
    if "$" in t or "`" in t:
        if t.startswith("/tmp/") and ".." not in t:
            return (_UNK, f"{verb} {t}, a path computed at run time")
        return (_MUT, f"{verb} {t}")
    norm = posixpath.normpath(t)
    if norm.startswith("/tmp/") or norm.startswith("//tmp/"):
        return None
    return (_MUT, f"{verb} {t}")


def _file_writes(cmd: SimpleCommand) -> list[str]:
    """Files the command's redirections (and ``time -o``) open for writing."""
    out = [r.target for r in cmd.redirects if r.writes]
    out.extend(_strip_wrappers(cmd.argv)[2])
    return out


def _real_file(target: str) -> bool:
    return (
        bool(target) and not target.isdigit() and target != "-" and not target.startswith("/dev/")
    )


def _in_tmp(target: str) -> bool:
    return posixpath.normpath(target).startswith("/tmp/")


def _tar_mode(args: tuple[str, ...]) -> str | None:
    for a in args:
        if a in ("--extract", "--get"):
            return "x"
        if a in ("--create", "--append", "--update", "--concatenate", "--delete"):
            return "c"
        if a == "--list":
            return "t"
    if args:
        first = args[0].lstrip("-")
        if not args[0].startswith("--"):
            for ch in first:
                if ch in "xcruA":
                    return "x" if ch == "x" else "c"
                if ch == "t":
                    return "t"
    for a in args:
        if a.startswith("-") and not a.startswith("--"):
            for ch in a[1:]:
                if ch in "xcruA":
                    return "x" if ch == "x" else "c"
                if ch == "t":
                    return "t"
    return None


_NVSMI_MUT = _names(
    "-r --gpu-reset -pm --persistence-mode -pl --power-limit -c --compute-mode -e "
    "--ecc-config -p --reset-ecc-errors -ac --applications-clocks -rac "
    "--reset-applications-clocks -lgc --lock-gpu-clocks -rgc --reset-gpu-clocks -lmc "
    "--lock-memory-clocks -rmc --reset-memory-clocks -mig --multi-instance-gpu -am "
    "--accounting-mode -caa --clear-accounted-apps -cc --cuda-clocks -acp "
    "--auto-boost-permission --auto-boost-default --gom -dm --driver-model -fdm "
    "--force-driver-model -ai -cgi -cci -dgi -dci drain"
)


def _nvidia_smi_mutation(args: tuple[str, ...]) -> str | None:
    for a in args:
        key = a.split("=", 1)[0]
        if key in _NVSMI_MUT:
            return key
    return None


def _xargs_target(argv: tuple[str, ...]) -> int | None:
    k = _skip_options(
        argv,
        1,
        with_arg="adEILnPs",
        long_with_arg=frozenset(
            {
                "--arg-file",
                "--delimiter",
                "--max-lines",
                "--max-args",
                "--max-procs",
                "--max-chars",
                "--process-slot-var",
            }
        ),
        optional_attached="eil",
    )
    if 0 < k < len(argv):
        return k
    return None


def _exec_targets(argv: tuple[str, ...], prog: str) -> list[tuple[int, int]]:
    """Word ranges of ``find -exec CMD ... ;`` / ``fd -x CMD`` targets."""
    out = []
    n = len(argv)
    i = 1
    if prog == "find":
        starts = ("-exec", "-execdir", "-ok", "-okdir")
    else:
        starts = ("-x", "--exec", "-X", "--exec-batch")
    while i < n:
        if argv[i] in starts:
            a = i + 1
            j = a
            while j < n:
                if prog == "find" and (
                    argv[j] == ";" or (argv[j] == "+" and j > a and argv[j - 1] == "{}")
                ):
                    break
                if prog != "find" and argv[j] == ";":
                    break
                j += 1
            if prog == "find" and j < n and argv[j] == "+":
                b = j
            else:
                b = j
            if b > a:
                out.append((a, b))
            i = j + 1
        else:
            i += 1
    return out
