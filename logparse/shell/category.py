"""Category: what the inner command is for (search, launch, install...).

``_base_category`` classifies one effective command, ``_command_category``
adds what wrappers, backgrounding and file writes imply, and ``_category``
picks the highest-priority category over all commands in :data:`CATEGORIES`
order.  The analysis entry point calls it to fill ``ShellInfo.category``; it
reads only the data model and the shared program knowledge, never the walker.
"""

from __future__ import annotations

from logparse.shell.argv import _basename
from logparse.shell.model import CATEGORIES, SimpleCommand
from logparse.shell.programs import (
    _BUILD_PROGRAMS,
    _CONTAINERS,
    _SETUP_BUILD,
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
    _tar_mode,
)
from logparse.shell.pycode import _py_code, _python_code_of
from logparse.shell.sedawk import _sed_in_place
from logparse.shell.subcommands import (
    _GIT_EDIT,
    _GIT_READ,
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
            return "import-check" if imports else "other"
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
            return "other"
        if mode == "script":
            script = _python_invocation(eff)[1] or ""
            if _basename(script) == "setup.py":
                rest = eff[_python_invocation(eff)[2] :]
                if any(a in _SETUP_BUILD for a in rest):
                    return "build"
            return "other"
        return "other"
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
        return "other"
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
        return "search" if sub in ("--version", "version") else "other"
    if prog in ("cargo", "go"):
        sub = args[0] if args else ""
        if sub in ("build", "b", "check"):
            return "build"
        if sub in ("install", "get", "add"):
            return "install"
        return "search" if sub in ("--version", "version", "env") else "other"
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
            return "launch" if detached else "other"
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
        return "other"
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
        if sub in _GIT_EDIT:
            return "file-edit"
        if sub in _GIT_READ or sub in ("branch", "tag", "remote", "config", "worktree"):
            return "search"
        return "other"
    if prog == "tar":
        return "file-edit" if _tar_mode(args) in ("x", "c") else "search"
    if prog == "unzip":
        return "search" if any(a in ("-l", "-t", "-v", "-Z") for a in args) else "file-edit"
    if prog == "dd":
        return "file-edit"
    if prog in ("curl", "wget"):
        return "other"
    if prog in ("echo", "printf"):
        return None
    p = PROGRAMS.get(prog)
    if p is not None:
        if p.filter and cmd.stdin_pipe:
            return None
        return p.category
    if args and args[0] in ("--version", "-V", "--help", "version"):
        return "search"
    return "other"


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
        writes = [t for t in _file_writes(cmd) if _real_file(t)]
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
