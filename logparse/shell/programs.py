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
from dataclasses import dataclass, replace

from logparse.shell.argv import _basename, _names, _skip_options
from logparse.shell.model import Redirect, SimpleCommand
from logparse.shell.wrappers import _strip_wrappers

# ---------------------------------------------------------------------------
# Shared program knowledge
# ---------------------------------------------------------------------------

_RO, _LAUNCH, _UNK, _MUT = 0, 1, 2, 3

LOOKUP_VARIABLES = frozenset(
    "PATH PYTHONPATH PYTHONHOME PYTHONSTARTUP PYTHONUSERBASE PYTHONINSPECT LD_PRELOAD "
    "LD_LIBRARY_PATH LD_AUDIT GCONV_PATH BASH_ENV ENV SHELLOPTS BASHOPTS PS4 PROMPT_COMMAND "
    "CDPATH FPATH BASH_LOADABLES_PATH HOME XDG_CONFIG_HOME PERL5LIB PERL5OPT RUBYLIB RUBYOPT "
    "NODE_PATH NODE_OPTIONS PAGER MANPAGER EDITOR VISUAL LESSOPEN LESSCLOSE GIT_DIR "
    "GIT_EXEC_PATH GIT_CONFIG GIT_CONFIG_GLOBAL GIT_CONFIG_SYSTEM GIT_SSH GIT_SSH_COMMAND "
    "GIT_EXTERNAL_DIFF GIT_PAGER GIT_EDITOR GIT_ASKPASS GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT "
    "GIT_PROXY_COMMAND SSH_ASKPASS SUDO_ASKPASS TAR_OPTIONS RSYNC_RSH SYSTEMD_PAGER BROWSER "
    "PS1 PS2 PS3 HISTFILE TMPDIR MANOPT OPENSSL_CONF OPENSSL_ENGINES OPENSSL_MODULES "
    "JAVA_TOOL_OPTIONS _JAVA_OPTIONS JDK_JAVA_OPTIONS LUA_INIT LUA_PATH LUA_CPATH HOSTALIASES "
    "TERMINFO TERMINFO_DIRS CURL_HOME WGETRC SYSTEM_WGETRC R_PROFILE R_PROFILE_USER "
    "R_ENVIRON R_ENVIRON_USER PHPRC PHP_INI_SCAN_DIR TCLLIBPATH ZDOTDIR GEM_HOME GEM_PATH "
    "BUNDLE_GEMFILE LESSKEYIN".split())
"""Variables whose value changes which program or code runs (assigning one makes a
command ``unknown``)."""

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


def _first_operand(
    argv: tuple[str, ...], i: int = 1, with_arg: frozenset[str] = frozenset()
) -> tuple[str | None, int]:
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
        return mode in ("m", "script") and value is not None and _bench_hit(value)
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
    """Severity of writing ``target``: None only for /dev/null, the standard streams and fds.

    A write under ``/tmp`` is a write (it can fill the disk or plant a file another
    step reads); ``/dev/tcp/HOST/PORT`` and ``/dev/udp/...`` open a network connection.
    """
    t = target
    if not t or t.isdigit() or t == "-":
        return None
    if t in ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"):
        return None
    if t.startswith(("/dev/fd/", "/proc/self/fd/")) and t.rsplit("/", 1)[-1].isdigit():
        return None
    if t.startswith(("/dev/tcp/", "/dev/udp/")):
        return (_UNK, f"{verb} {t}, a network connection")
    return (_MUT, f"{verb} {t}")


def _net_device(target: str) -> str | None:
    """``HOST:PORT`` when ``target`` is bash's ``/dev/tcp/HOST/PORT`` or ``/dev/udp/...``."""
    if target.startswith(("/dev/tcp/", "/dev/udp/")):
        parts = target.split("/")
        host = parts[3] if len(parts) > 3 else ""
        port = parts[4] if len(parts) > 4 else ""
        return f"{host}:{port}" if port else host
    return None


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


# ---------------------------------------------------------------------------
# The one table of program knowledge
# ---------------------------------------------------------------------------

ANY = None
"""``Prog.flags`` value: every option of the program was checked against its manual
and none executes, writes or reaches the network (it only changes what is read or
printed).  Anything else is an allow-list: an option outside it makes the command
``unknown``."""


@dataclass(frozen=True, slots=True)
class Prog:
    """What one program is for and what re-running it can do.

    ``category`` is the program's base category (``None``: neutral glue such as
    ``echo`` or ``cd``); ``filter`` marks text filters, which are neutral when they
    read a pipe.  ``safety`` is ``"ro"`` (read-only when its options and operands
    pass), ``"mut"`` (changes the machine: ``reason`` says how), ``"unk"`` (cannot be
    vouched for: ``reason`` says why) or ``"rule"`` (a per-program rule in
    :mod:`.safety` decides).  For ``"ro"`` programs, ``flags`` is :data:`ANY` or the
    allow-list of options (exact words; ``--long=`` forms match by name; short
    clusters letter by letter), ``deny`` names options that make it unknown even so,
    and ``max_operands`` bounds the operands (``xxd IN OUT`` writes ``OUT``).
    """

    category: str | None = "other"
    safety: str = "ro"
    reason: str = ""
    filter: bool = False
    flags: frozenset[str] | None = ANY
    deny: frozenset[str] = frozenset()
    max_operands: int | None = None
    writes: frozenset[str] = frozenset()
    """Options that write a file (``sort -o``): the command is ``mutating``."""
    values: frozenset[str] = frozenset()
    """Options that take the next word as their value (for counting operands)."""


PROGRAMS: dict[str, Prog] = {}
"""Program name → :class:`Prog`: the only place categories and safety learn about a
program (rules for complex programs are keyed by the names marked ``"rule"``)."""


def _add(names: str, **kw: object) -> None:
    for n in names.split():
        PROGRAMS[n] = Prog(**kw)  # type: ignore[arg-type]


def _f(words: str) -> frozenset[str]:
    return frozenset(words.split())


# Read-only programs whose every option only changes what is read or printed.
_add("grep egrep fgrep zgrep rg ag ack cat zcat bzcat xzcat lz4cat zstdcat gzcat head wc "
     "cut tr jq column nl rev tac fold fmt paste expand unexpand strings uniq sort od hexdump "
     "xxd cmp diff", category="search", filter=True)
_add("ls tree which whereis type df du free ps pgrep pidof nproc lscpu lspci lsblk lsmod "
     "lsusb lsof id whoami groups stat file realpath readlink basename dirname md5sum "
     "sha1sum sha224sum sha256sum sha384sum sha512sum b2sum cksum pwd uname uptime getconf "
     "locale arch tty logname users who w nm objdump readelf ss netstat ibv_devinfo "
     "ibv_devices ibstat ibstatus printenv getent ompi_info ucx_info sensors iostat vmstat "
     "mpstat pidstat pstree lslogins last dmidecode fc-list locate whatis apropos cal "
     "factor comm join look numfmt expr seq diff3 zdiff lsattr getfacl nvidia-bug-report.sh "
     "ldd", category="search")
_add("echo true false : sleep cd pushd popd dirs wait exit return break continue shift "
     "ulimit umask jobs clear reset tput yes test [ [[ set shopt unset export history hash "
     "compgen printf", category=None)
# allow-lists and deny-lists where options (or operands) execute, write or use the network
PROGRAMS["printf"] = Prog(None, deny=_f("-v"))
# -v NAME[SUB] evaluates SUB as arithmetic, which runs $(…) (bash 5.2)
for _n in ("test", "[", "[["):
    PROGRAMS[_n] = Prog(None, deny=_f("-v"))
PROGRAMS["hash"] = Prog(None, flags=_f("-r -d -l -t"))
PROGRAMS["compgen"] = Prog(None, flags=_f("-a -b -c -d -e -f -g -j -k -s -u -v"))
PROGRAMS["history"] = Prog(None, flags=_f("-c -d -s -p"))
PROGRAMS["xxd"] = Prog("search", filter=True, max_operands=1,
                       values=_f("-l -s -c -g -o -n -len -seek -cols -groupsize -name"))
PROGRAMS["uniq"] = Prog("search", filter=True, max_operands=1,
                        values=_f("-f -s -w --skip-fields --skip-chars --check-chars"))
PROGRAMS["sort"] = Prog("search", filter=True, deny=_f("--compress-program"),
                        writes=_f("-o --output"))
PROGRAMS["file"] = Prog("search", writes=_f("-C --compile"))
PROGRAMS["tree"] = Prog("search", writes=_f("-o -R"))
PROGRAMS["ag"] = Prog("search", filter=True, deny=_f("--pager"))
PROGRAMS["ack"] = Prog("search", filter=True, deny=_f("--pager"))
PROGRAMS["rg"] = Prog("search", filter=True, deny=_f("--pre --pre-glob"))
PROGRAMS["ldd"] = Prog("search", "unk", "ldd can run the program it inspects")
# --diff-program runs the program it names (found with `diff3 --help`, run by redteam 13)
PROGRAMS["sdiff"] = Prog("search", writes=_f("-o --output"), deny=_f("--diff-program"))
PROGRAMS["diff3"] = Prog("search", deny=_f("--diff-program"))
# zstdcat is zstd -dcf: -o still writes the file it names
PROGRAMS["zstdcat"] = Prog("search", filter=True,
                           writes=_f("-o --output-dir-flat --output-dir-mirror"))
PROGRAMS["bat"] = Prog("search", filter=True, deny=_f("--pager --paging"))
PROGRAMS["less"] = Prog("search", filter=True, flags=_f(
    "-N -S -R -r -F -X -n -i -I -M -m -E -e -f -s -~ --chop-long-lines --raw-control-chars "
    "-+S --quit-if-one-screen --no-init --LINE-NUMBERS --line-numbers"))
PROGRAMS["more"] = Prog("search", filter=True, flags=_f("-d -f -l -c -p -s -u"))
PROGRAMS["man"] = Prog("search", flags=_f("-k -f -w -W -a -s --where --path --apropos "
                                          "--whatis"))
PROGRAMS["info"] = Prog("search", flags=_f("-w --where --index-search --node -n -f "
                                           "--file"))
PROGRAMS["help"] = Prog("search")
PROGRAMS["yq"] = Prog("search", filter=True, writes=_f("-i --inplace --in-place"))
PROGRAMS["jq"] = Prog("search", filter=True)
PROGRAMS["zgrep"] = Prog("search", filter=True)
PROGRAMS["printenv"] = Prog("search")
PROGRAMS["readelf"] = Prog("search")
# --plugin loads a shared library into the process (code of the file's choosing)
PROGRAMS["objdump"] = Prog("search", deny=_f("--plugin"))
PROGRAMS["nm"] = Prog("search", deny=_f("--plugin"))
PROGRAMS["dmidecode"] = Prog("search", writes=_f("--dump-bin"))
PROGRAMS["ss"] = Prog("search", writes=_f("-D --diag"))
PROGRAMS["nvidia-bug-report.sh"] = Prog("search", "mut", "nvidia-bug-report.sh writes "
                                        "nvidia-bug-report.log.gz in the current directory")
PROGRAMS["bc"] = Prog(None, "unk", "bc reads and runs a program")
PROGRAMS["dc"] = Prog(None, "unk", "dc can run shell commands (!)")

# Shell builtins that run strings as code or assign through subscripts: never read-only.
for _name, _why in (
    ("eval", "eval runs a string as code"),
    ("source", "source runs a script file"),
    (".", ". runs a script file"),
    ("xargs", "xargs builds commands from its input"),
    ("let", "let evaluates arithmetic, which can run code through array subscripts"),
    ("declare", "declare can evaluate arithmetic and array subscripts"),
    ("typeset", "typeset can evaluate arithmetic and array subscripts"),
    ("local", "local can evaluate arithmetic and array subscripts"),
    ("readonly", "readonly can evaluate array subscripts"),
    ("read", "read assigns to names, which can evaluate array subscripts"),
    ("mapfile", "mapfile can run a callback (-C) and assigns through subscripts"),
    ("readarray", "readarray can run a callback (-C) and assigns through subscripts"),
    ("enable", "enable can load a builtin from a shared library"),
    ("complete", "complete registers commands to run"),
    ("alias", "alias redefines commands"),
    ("unalias", "unalias changes how commands are looked up"),
    ("trap", "trap runs code on a signal"),
    ("exec", "exec replaces the shell"),
    ("fc", "fc re-runs history"),
    ("coproc", "coproc starts a background command"),
    ("disown", "disown keeps jobs running"),
    ("caller", "caller is only meaningful in a function"),
):
    PROGRAMS[_name] = Prog(None, "unk", _why)
PROGRAMS["read"] = Prog(None, "rule")  # read-only with plain lower-case names (.safety)
PROGRAMS["exec"] = Prog(None, "rule")
PROGRAMS["trap"] = Prog(None, "rule")
PROGRAMS["alias"] = Prog(None, "rule")

# Programs with a rule of their own in .safety (the category comes from .category).
_add("python python3 sh bash zsh dash ksh mksh ash fish perl ruby node nodejs php lua tclsh "
     "Rscript julia deno bun find fd fdfind ssh sudo doas su env timeout nohup time nice "
     "stdbuf setsid ionice taskset numactl unbuffer command builtin sshpass tail watch sed "
     "awk gawk mawk nawk tee mktemp date hostname dmesg journalctl top ip ifconfig sysctl "
     "crontab ldconfig kill fuser nvidia-smi nvcc git curl wget tar unzip gzip gunzip bzip2 "
     "bunzip2 xz unxz zstd unzstd lz4 dd conda mamba micromamba kubectl oc systemctl service "
     "tmux screen pip pip3 uv cargo go apt-cache dpkg dpkg-query rpm apt-mark docker podman "
     "nerdctl vim vi nano emacs htop nvtop", safety="rule")
for _n in ("sed", "awk", "gawk", "mawk", "nawk", "tail", "tee"):
    PROGRAMS[_n] = Prog("search", "rule", filter=True)
PROGRAMS["kill"] = Prog("kill", "rule")
PROGRAMS["fuser"] = Prog("search", "rule")
for _n in ("find", "fd", "fdfind", "nvidia-smi", "dmesg", "journalctl", "top", "ip",
           "ifconfig", "date", "hostname", "htop", "nvtop"):
    PROGRAMS[_n] = Prog("search", "rule")
PROGRAMS["env"] = Prog("search", "rule")
PROGRAMS["command"] = Prog("search", "rule")
PROGRAMS["numactl"] = Prog("search", "rule")
for _n in ("ssh", "timeout", "nohup", "time", "nice", "stdbuf", "setsid", "ionice", "taskset",
           "unbuffer", "builtin", "sshpass", "sudo", "doas", "su"):
    PROGRAMS[_n] = Prog(None, "rule")
for _n in ("vim", "vi", "nano", "emacs", "dd"):
    PROGRAMS[_n] = Prog("file-edit", "rule")

# Network clients: never read-only; the endpoints they name go through the host map.
_add("nc ncat netcat socat telnet ftp sftp lftp ping ping6 traceroute tracepath mtr dig "
     "nslookup host whois http https httpie aria2c", category="other", safety="unk",
     reason="contacts the network")

# Programs that change the machine.
for _names_, _why in (
    ("rm unlink", "deletes files"), ("rmdir", "deletes directories"),
    ("shred", "destroys files"), ("mv", "moves files"), ("cp rsync scp", "copies files"),
    ("mkdir", "creates directories"), ("touch", "creates or touches files"),
    ("chmod", "changes file permissions"), ("chown", "changes file ownership"),
    ("chgrp", "changes file groups"), ("chattr", "changes file attributes"),
    ("setfacl", "changes file ACLs"), ("ln", "creates links"),
    ("truncate", "truncates files"), ("install", "installs files"),
    ("pkill killall", "kills processes"), ("xkill", "kills windows"),
    ("reboot", "reboots the machine"), ("shutdown", "shuts the machine down"),
    ("poweroff", "powers the machine off"), ("halt", "halts the machine"),
    ("init telinit", "changes the run level"), ("mount", "mounts file systems"),
    ("umount", "unmounts file systems"), ("swapon swapoff", "changes swap"),
    ("useradd userdel usermod", "changes users"), ("groupadd groupdel", "changes groups"),
    ("passwd chpasswd", "changes passwords"), ("chsh", "changes login shells"),
    ("visudo", "edits sudoers"), ("modprobe insmod", "loads kernel modules"),
    ("rmmod", "unloads kernel modules"),
    ("ufw nft iptables ip6tables", "changes the firewall"), ("patch", "patches files"),
    ("zip", "writes an archive"), ("mkfifo", "creates a fifo"),
    ("mknod", "creates a device node"), ("wipefs", "wipes file systems"),
    ("fdisk parted sgdisk", "partitions disks"),
    ("update-alternatives", "changes system alternatives"),
    ("add-apt-repository", "changes package sources"), ("apt-key", "changes package keys"),
    ("sudoedit", "edits files"), ("ssh-keygen", "writes ssh keys"),
    ("ssh-copy-id", "installs ssh keys"), ("at batch", "schedules commands"),
    ("tc", "changes traffic control"), ("renice", "changes process priorities"),
    ("chrt", "changes scheduling"), ("dpkg-reconfigure", "reconfigures packages"),
    ("dkms", "builds kernel modules"), ("nvidia-debugdump", "writes a debug dump"),
    ("updatedb", "rebuilds the locate database"), ("ed ex", "edits files"),
    ("split csplit", "writes files"),
):
    for _n in _names_.split():
        PROGRAMS[_n] = Prog("other", "mut", _why)
for _n in "pkill killall xkill".split():
    PROGRAMS[_n] = replace(PROGRAMS[_n], category="kill")
for _n in "patch ed ex sudoedit".split():
    PROGRAMS[_n] = replace(PROGRAMS[_n], category="file-edit")
# files and directories removed, moved, copied, created (issue 23: `rm` was `kill`)
for _n in ("rm rmdir unlink shred cp mv ln mkdir touch chmod chown chgrp truncate install "
           "rsync scp zip split csplit mkfifo").split():
    PROGRAMS[_n] = replace(PROGRAMS[_n], category="file")
for _n in ("tar", "unzip"):
    PROGRAMS[_n] = Prog("file", "rule")
# network clients that speak HTTP (the rest stay `other`)
for _n in ("http", "https", "httpie", "aria2c"):
    PROGRAMS[_n] = replace(PROGRAMS[_n], category="http")

def _option_name(arg: str) -> str:
    return arg.split("=", 1)[0] if arg.startswith("--") else arg


def table_verdict(prog: str, args: tuple[str, ...]) -> tuple[int, str] | None:
    """Severity and reason from :data:`PROGRAMS` for a program without a rule.

    ``None`` when the program is not in the table or has a rule of its own.
    """
    p = PROGRAMS.get(prog)
    if p is None or p.safety == "rule":
        return None
    if p.safety == "mut":
        return (_MUT, f"{prog} {p.reason}")
    if p.safety == "unk":
        return (_UNK, p.reason if p.reason.startswith(prog) else f"{prog} {p.reason}")
    operands = 0
    ended = False
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if not ended and a in p.values:
            skip = True
            continue
        if not ended and a == "--":
            ended = True
            continue
        if ended or a == "-" or len(a) < 2 or a[0] not in "-+":
            operands += 1
            continue
        if a[0] == "+":
            if p.flags is ANY and prog in ("set", "shopt"):
                continue
            return (_UNK, f"{prog} {a} runs a command of {prog}")
        name = _option_name(a)
        opts = [name] if a.startswith("--") else [f"-{c}" for c in a[1:]]
        if name in p.writes or any(o in p.writes for o in opts):
            return (_MUT, f"{prog} {a} writes a file")
        if name in p.deny or any(o in p.deny for o in opts):
            return (_UNK, f"{prog} {a} can run commands, write files or use the network")
        if p.flags is not ANY and a not in p.flags and name not in p.flags and not all(
                o in p.flags for o in opts):
            return (_UNK, f"{prog} {a} is not an option known to be read-only")
    if p.max_operands is not None and operands > p.max_operands:
        return (_MUT, f"{prog} with {operands} operands writes the last one")
    return (_RO, f"{prog} only reads")


SYSTEMCTL_VERBS: dict[str, tuple[str, int]] = {}
"""systemctl (and ``service NAME VERB``) verbs → (category, severity): read by both."""
for _verbs, _cat, _sev in (
    ("status show cat is-active is-enabled is-failed is-system-running list-units "
     "list-unit-files list-timers list-sockets list-dependencies list-jobs list-machines "
     "list-automounts list-paths get-default show-environment --version help", "search", _RO),
    ("start restart reload enable try-restart reload-or-restart reenable", "launch", _MUT),
    ("stop kill disable mask", "kill", _MUT),
    ("daemon-reload reset-failed unmask set-default set-environment edit revert preset "
     "isolate link freeze thaw clean set-property", "other", _MUT),
):
    for _v in _verbs.split():
        SYSTEMCTL_VERBS[_v] = (_cat, _sev)

TMUX_VERBS: dict[str, tuple[str, int]] = {}
"""tmux/screen first words → (category, severity): read by both."""
for _verbs, _cat, _sev in (
    ("ls list-sessions list-windows list-panes capture-pane has-session -ls -list "
     "display-message list-clients list-buffers show-options show-buffer", "search", _RO),
    ("kill-session kill-server kill-window kill-pane", "kill", _MUT),
    ("send-keys send", "other", _UNK),
):
    for _v in _verbs.split():
        TMUX_VERBS[_v] = (_cat, _sev)
