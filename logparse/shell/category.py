"""Category: what the inner command is for (search, launch, install...).

``_base_category`` classifies one effective command, ``_command_category``
adds what wrappers, backgrounding and file writes imply, and ``_category``
picks the highest-priority category over all commands in :data:`CATEGORIES`
order.  The analysis entry point calls it to fill ``ShellInfo.category``; it
reads only the data model and the shared program knowledge, never the walker.
"""

from __future__ import annotations

from logparse.shell.argv import _basename
from logparse.shell.catrules import (
    SCRIPT_RUNNERS,
    first_operand,
    generic_category,
    rule_category,
    runner_inner,
    script_category,
)
from logparse.shell.model import CATEGORIES, SimpleCommand
from logparse.shell.programs import (
    _BUILD_PROGRAMS,
    _CONTAINERS,
    _SETUP_BUILD,
    _SHELLS,
    _TRIVIAL_BG,
    _VERSION_ARGS,
    PROGRAMS,
    SYSTEMCTL_VERBS,
    TMUX_VERBS,
    Prog,
    _file_writes,
    _first_operand,
    _follow_reason,
    _fuser_kills,
    _in_tmp,
    _is_benchmark,
    _is_python,
    _nvidia_smi_mutation,
    _python_invocation,
    _real_file,
    _server_reason,
    _shell_invocation,
    _tar_mode,
)
from logparse.shell.pycode import _py_code, _python_code_of
from logparse.shell.sedawk import _sed_in_place
from logparse.shell.subcommands import (
    _PIP_READ,
    _PIP_WRITE,
    _PKG_MANAGERS,
    _git_sub,
    _pip_like,
)
from logparse.shell.wrappers import _strip_wrappers

# ---------------------------------------------------------------------------
# Category
# ---------------------------------------------------------------------------

_PRIORITY = {c: i for i, c in enumerate(CATEGORIES)}
_NO_PROG = Prog()

_PRODUCERS = frozenset({"echo", "printf", "cat", ":", "true"})

_DOCKER_VALUE_OPTS = frozenset(
    "-v --volume -w --workdir -e --env -p --publish --name --network --net -u --user "
    "--entrypoint --env-file --mount -l --label --gpus --shm-size --platform --cpus -m "
    "--memory --add-host --ipc --pid --runtime --device --cap-add --cap-drop --security-opt "
    "--ulimit --restart --log-driver --hostname -h --tmpfs --pull".split())
_PKG_HOUSEKEEPING = frozenset({"init", "create", "pack", "publish", "audit", "cache", "config",
                               "login", "logout", "whoami", "version", "unpublish", "deprecate"})
_SCRIPT_VERBS = frozenset({"run", "run-script", "task"})
_NPM_SCRIPT_VERBS = {"test": "test", "t": "test", "tst": "test", "start": "launch"}
_JS_INSTALL = frozenset({"install", "i", "ci", "add", "remove", "rm", "uninstall", "un",
                         "update", "upgrade", "up", "link", "prune", "dedupe", "require"})
_JS_QUERY = frozenset({"ls", "list", "view", "info", "outdated", "why", "show", "licenses"})


def _code_category(code: str) -> str:
    """The category of a command line given as one string (``powershell -Command "..."``)."""
    from logparse.shell.analysis import parse_command  # the entry point sits above this module

    return parse_command(code).category


def _inner_category(cmd: SimpleCommand, inner: tuple[str, ...], code: bool = False) -> str:
    """The category of the command a runner runs (``npx tsc``, ``docker run img sh -c``)."""
    if not inner:
        return "run"
    if code or (len(inner) == 1 and any(c in inner[0] for c in " ;|&\n")):
        cat = _code_category(" ".join(inner))
    else:
        prog = _basename(inner[0])
        cat = _base_category(cmd, prog, inner) or "other"
        if prog.lower().removesuffix(".exe") in _SHELLS:
            mode, k = _shell_invocation(inner)
            if mode == "c" and k is not None:
                cat = _code_category(inner[k])
    return "run" if cat == "other" else cat


def _docker_run_inner(args: tuple[str, ...]) -> tuple[str, ...]:
    """What ``docker run [opts] IMAGE CMD...`` runs in the container (``args`` after ``run``)."""
    i, n = 0, len(args)
    while i < n and args[i].startswith("-"):
        i += 1 if "=" in args[i] or args[i] not in _DOCKER_VALUE_OPTS else 2
    return args[i + 1:]


def _base_category(cmd: SimpleCommand, prog: str, eff: tuple[str, ...]) -> str | None:
    """Category of one effective command, ``None`` when it is neutral glue."""
    sub: str | None  # the subcommand, read by each branch its own way
    args = eff[1:]
    if _server_reason(prog, eff):
        return "launch"
    if _is_benchmark(prog, eff):
        return "benchmark"
    pip = _pip_like(prog, eff)
    if pip is not None:
        sub = pip[0]
        if sub == "wheel":
            return "build"
        if sub in _PIP_WRITE:
            return "install"
        if sub in _PIP_READ:
            return "package-query" if sub != "version" else "search"
        return "other"
    if _is_python(prog):
        mode, code = _python_code_of(cmd, eff)
        if mode in ("c", "heredoc"):
            _, imports, _ = _py_code(code or "")
            if cmd.stdin_pipe and mode == "c":
                return None  # a filter such as json formatting
            return "import-check" if imports else "run"
        if mode == "version":
            return "search"
        if mode == "m":
            mod = _python_invocation(eff)[1] or ""
            if mod == "build":
                return "build"
            if mod in ("json.tool",):
                return None if cmd.stdin_pipe else "search"
            if mod.startswith("torch.distributed"):
                return "launch"
            return rule_category(mod, eff[_python_invocation(eff)[2]:]) or "run"
        if mode == "script":
            script = _python_invocation(eff)[1] or ""
            if _basename(script) == "setup.py":
                rest = eff[_python_invocation(eff)[2] :]
                if any(a in _SETUP_BUILD for a in rest):
                    return "build"
            return "run"
        return "run"
    if prog.startswith("$") and args[:1] == ("=",):
        # PowerShell (Codex on Windows): `$r = Invoke-WebRequest ...` is what it assigns
        return _base_category(cmd, _basename(args[1]), args[1:]) if len(args) > 1 else None
    low = prog.lower().removesuffix(".exe")
    k = runner_inner(prog, eff)
    if k is not None:
        return _inner_category(cmd, eff[k:], code=low in ("powershell", "pwsh", "cmd"))
    if low in _SHELLS and low != prog:  # `"C:/Program Files/Git/bin/bash.exe" -c "..."`
        mode, k2 = _shell_invocation(eff)
        return _inner_category(cmd, (eff[k2],), code=True) if mode == "c" and k2 else "run"
    if prog in _SHELLS:
        mode, _k = _shell_invocation(eff)
        # `bash -c CODE` and `bash <<EOF`: the walker adds the commands the code runs
        return "run" if mode == "script" else None
    if prog in SCRIPT_RUNNERS:
        cat = _script_runner(prog, eff)
        if cat is not None:
            return cat
    if prog in _PKG_MANAGERS:
        mut, ro = _PKG_MANAGERS[prog]
        sub, _ = _first_operand(eff, 1, frozenset({"-n", "--name", "-p", "--prefix", "-c"}))
        if prog in ("conda", "mamba", "micromamba") and sub == "env":
            sub2 = args[1] if len(args) > 1 else ""
            return "package-query" if sub2 in ("list", "export") else "install"
        if sub in mut:
            return "install"
        if sub in ro:
            return "package-query"
        if (
            prog in ("npm", "yarn", "pnpm")
            and sub == "run"
            and len(args) > 1
            and "build" in args[1]
        ):
            return "build"
        if any(a in _VERSION_ARGS for a in args[:1]):
            return "search"
        return rule_category(prog, args) or "other"
    if prog in ("apt-cache", "dpkg-query", "apt-mark"):
        return "package-query"
    if prog == "dpkg":
        if any(
            a in ("-i", "--install", "-r", "--remove", "-P", "--purge", "--configure", "--unpack")
            for a in args
        ):
            return "install"
        return "package-query"
    if prog == "rpm":
        if any(a.startswith("-q") or a == "--query" for a in args):
            return "package-query"
        return "install"
    if prog == "uv":
        sub = args[0] if args else ""
        if sub in ("add", "remove", "sync", "lock", "venv", "tool"):
            return "install"
        if sub == "build":
            return "build"
        if sub == "tree":
            return "package-query"
        if sub in ("--version", "version"):
            return "search"
        return rule_category(prog, args) or "other"
    if prog in ("cargo", "go"):
        sub = args[0] if args else ""
        if sub in ("build", "b", "check"):
            return "build"
        if sub in ("install", "get", "add", "remove", "update", "fetch"):
            return "install"
        if sub == "mod":
            return "package"
        if sub in ("--version", "version", "env", "tree", "metadata", "doc", "list"):
            return "search"
        return rule_category(prog, args) or "other"
    if prog in _BUILD_PROGRAMS:
        if args and all(a in _VERSION_ARGS for a in args):
            return "search"
        return "build"
    if prog in ("torchrun", "deepspeed") or (prog == "accelerate" and args[:1] == ("launch",)):
        return "launch"
    if prog in _CONTAINERS:
        sub = args[0] if args else ""
        if sub == "compose":
            sub2 = args[1] if len(args) > 1 else ""
            return {
                "up": "launch",
                "down": "kill",
                "build": "build",
                "pull": "install",
                "ps": "search",
                "logs": "search",
            }.get(sub2, "other")
        if sub == "run":
            detached = any(
                a == "--detach" or (a.startswith("-") and not a.startswith("--") and "d" in a)
                for a in args[1:]
            )
            return "launch" if detached else _inner_category(cmd, _docker_run_inner(args[1:]))
        if sub in ("rm", "kill", "stop", "rmi"):
            return "kill"
        if sub in ("build", "commit"):
            return "build"
        if sub == "pull":
            return "install"
        if sub in ("ps", "images", "inspect", "logs", "version", "info", "stats", "top", "port"):
            return "search"
        if sub in ("start", "restart"):
            return "launch"
        return rule_category(prog, args) or "other"
    if prog in ("systemctl", "service"):
        verb = args[0] if prog == "systemctl" and args else (args[1] if len(args) > 1 else "")
        if prog == "systemctl" and not args:
            verb = "list-units"
        return SYSTEMCTL_VERBS.get(verb, ("other", 0))[0]
    if prog in ("tmux", "screen"):
        if any(a.startswith("kill-") for a in args) or ("-X" in args and "quit" in args):
            return "kill"
        return TMUX_VERBS.get(args[0] if args else "", ("other", 0))[0]
    if prog == "nvidia-smi":
        if any(a in ("-r", "--gpu-reset") for a in args):
            return "kill"
        if _nvidia_smi_mutation(args):
            return "other"
        return "search"
    if prog == "fuser":
        return "kill" if _fuser_kills(args) else "search"
    if prog == "kill" and args and args[0] in ("-0", "-l", "-L", "--list"):
        return "search"
    if PROGRAMS.get(prog, _NO_PROG).category == "kill":
        return "kill"
    if prog == "sed":
        return "file-edit" if _sed_in_place(eff) else ("search" if not cmd.stdin_pipe else None)
    if prog == "perl":
        if any(a.startswith("-") and not a.startswith("--") and "i" in a[1:] for a in args):
            return "file-edit"
        return "other" if not cmd.stdin_pipe else None
    if prog in ("awk", "gawk") and ("inplace" in args or "--include=inplace" in args):
        return "file-edit"
    if prog == "tee":
        files = [a for a in args if not a.startswith("-")]
        if any(_real_file(f) and not _in_tmp(f) for f in files):
            return "file-edit"
        return None
    if prog == "git":
        sub, _ = _git_sub(eff)
        return rule_category("git", args, sub or "") or "git"
    if prog == "tar":
        return "file" if _tar_mode(args) in ("x", "c") else "search"
    if prog == "unzip":
        return "search" if any(a in ("-l", "-t", "-v", "-Z") for a in args) else "file"
    if prog == "dd":
        return "file-edit"
    if prog in ("echo", "printf", "Write-Output", "Write-Host", "Set-Location", "cls"):
        return None
    cat = rule_category(prog, args)
    if cat is not None:
        return cat
    p = PROGRAMS.get(prog)
    if p is not None:
        if p.filter and cmd.stdin_pipe:
            return None
        return p.category
    if args and args[0] in ("--version", "-V", "--help", "version", "-v", "-h"):
        return "search"
    if "/" in eff[0] or "\\" in eff[0]:
        return "run"  # the project's own program (`./hello.sh`, `bin/airflow dags ...`)
    return generic_category(args) or "other"


def _script_runner(prog: str, eff: tuple[str, ...]) -> str | None:
    """``npm run lint``, ``npm test``, ``pnpm build``, ``just check``, ``make test``; None
    when the subcommand is the package manager's own (``npm install``: decided below)."""
    args = eff[1:]
    sub = first_operand(args)
    if prog in ("make", "gmake"):
        if not sub or "=" in sub:
            return None  # the default target: a build
        cat = script_category(sub)
        return cat if cat not in ("run", "launch") else None
    if prog in ("just", "task"):
        return script_category(sub) if sub else "run"
    if sub in _SCRIPT_VERBS:
        rest = args[args.index(sub) + 1:]
        name = first_operand(rest)
        return script_category(name) if name else "search"  # `npm run`: lists the scripts
    if prog in ("npm", "pnpm", "yarn", "bun") and sub in _PKG_HOUSEKEEPING:
        return "package"
    if prog == "npm" and sub in _NPM_SCRIPT_VERBS:
        return _NPM_SCRIPT_VERBS[sub]
    if prog in ("pnpm", "yarn", "bun", "composer"):
        if not sub and prog == "yarn":
            return "install"  # bare `yarn` installs
        if sub in _JS_INSTALL:
            return "install"
        if sub in _JS_QUERY:
            return "package-query"
        if sub in ("test", "t"):
            return "test"
        if not sub or sub in ("exec", "dlx", "x", "create", "init", "pack", "publish", "audit",
                              "cache", "config", "login", "version", "why", "help",
                              "dump-autoload", "dumpautoload"):
            return None
        if prog == "bun" and (sub.endswith((".ts", ".js", ".mjs", ".tsx")) or "/" in sub):
            return "run"  # `bun scripts/x.ts`
        return script_category(sub)
    return None


def _command_category(cmd: SimpleCommand) -> str | None:
    idx, wrappers, _ = _strip_wrappers(cmd.argv)
    eff = cmd.argv[idx:]
    if not eff:
        return None
    prog = _basename(eff[0])
    cat = _base_category(cmd, prog, eff)
    if cat not in ("launch",):
        if _follow_reason(prog, eff) and prog != "sleep":
            cat = "launch"
        elif "nohup" in wrappers or "setsid" in wrappers:
            cat = "launch"
        elif cmd.background and prog not in _TRIVIAL_BG:
            cat = "launch"
    if cat is None or cat == "search":
        # PowerShell's `2>$null` and cmd's `>NUL` discard, like /dev/null
        writes = [t for t in _file_writes(cmd) if _real_file(t)
                  and t.lower() not in ("$null", "nul")]
        if writes:
            outside = any(not _in_tmp(t) for t in writes)
            if prog in _PRODUCERS or (outside and (cat == "search" or PROGRAMS.get(prog, _NO_PROG).filter)):
                cat = "file-edit"
    return cat


_GLUE = frozenset("sleep wait date true false cd pwd export set unset source . which type "
                  "command test [ read clear exit".split())
"""Programs whose run does nothing a check would: an ``other`` of theirs is no run."""


def _category(commands: tuple[SimpleCommand, ...]) -> str:
    best: str | None = None
    echo = ran = False
    for cmd in commands:
        cat = _command_category(cmd)
        if cat is None:
            if cmd.program in ("echo", "printf"):
                echo = True
            continue
        if cat == "other" and cmd.argv:
            idx = _strip_wrappers(cmd.argv)[0]
            ran = ran or (idx < len(cmd.argv) and _basename(cmd.argv[idx]) not in _GLUE)
        if best is None or _PRIORITY[cat] < _PRIORITY[best]:
            best = cat
    if best is None:
        return "search" if echo else "other"
    if best == "search" and ran:
        # a program run, then greps of what it printed (`bin/airflow dags backfill > log;
        # grep -c retry log`): the run is what the line does
        return "other"
    return best
