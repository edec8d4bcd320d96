"""Safety: whether re-running a command is read-only, a launch, mutating or unknown.

:func:`classify_safety` collects findings for every simple command of a
:class:`ShellInfo` (``_command_safety``: redirections, variables that run
code, wrappers such as ``nohup``, backgrounding) plus every opaque part, and
the worst severity wins.  ``_program_safety`` holds the rules of the programs
that :data:`.programs.PROGRAMS` marks ``"rule"``; every other program is judged
by that one table (:func:`.programs.table_verdict`), and a program that is not
in it is ``unknown`` (default deny).  The long subcommand rules for git, package
managers and containers live in :mod:`.subcommands`.  ``_command_endpoints``
collects the network endpoints a command names outside ssh.
It reads only finished :class:`ShellInfo` values and never imports the
parser or the walker.
"""

from __future__ import annotations

import functools
import re
import shlex

from logparse.shell.argv import _basename, _is_assignment
from logparse.shell.model import SAFETY_CLASSES, Safety, ShellInfo, SimpleCommand
from logparse.shell.netopts import (
    CONFIG_VARIABLES,
    RC_FILE,
    curl_endpoints,
    curl_follows,
    endpoint_host,
    ipv6_of,
    is_proxy_variable,
    join_endpoint,
    proxy_endpoint,
    url_host,
    wget_endpoints,
    wget_follows,
)
from logparse.shell.programs import (
    _BUILD_PROGRAMS,
    _CONTAINERS,
    _LAUNCH,
    _MUT,
    _RO,
    _SHELLS,
    _TRIVIAL_BG,
    _UNK,
    _VERSION_ARGS,
    LOOKUP_VARIABLES,
    PROGRAMS,
    SYSTEMCTL_VERBS,
    TMUX_VERBS,
    _follow_reason,
    _fuser_kills,
    _is_benchmark,
    _is_python,
    _net_device,
    _nvidia_smi_mutation,
    _python_invocation,
    _server_reason,
    _shell_invocation,
    _stdin_redirect,
    _tar_mode,
    _write_verdict,
    table_verdict,
)
from logparse.shell.pycode import _py_code, _python_code_of
from logparse.shell.runtime import HOST_VARIABLES, computed, runtime_host_variable, runtime_hosts
from logparse.shell.sedawk import (
    _awk_effects,
    _awk_program,
    _sed_in_place,
    _sed_script_effects,
    _sed_scripts,
)
from logparse.shell.ssh import _parse_ssh_argv
from logparse.shell.subcommands import (
    _PIP_WRITE,
    _PKG_MANAGERS,
    _container_safety,
    _git_safety,
    _package_safety,
    _pip_like,
    verdict_row,
    verdict_rule,
)
from logparse.shell.wrappers import _strip_wrappers

# ---------------------------------------------------------------------------
# Safety
# ---------------------------------------------------------------------------

_PLAIN_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _evaluated_name(prog: str, args: tuple[str, ...]) -> str | None:
    """Why ``unset`` may run code, or None.

    bash evaluates the subscript of ``NAME[SUB]`` as arithmetic, which expands
    ``$(…)``: ``unset 'a[$(cmd)]'`` runs ``cmd`` (``test -v``/``[[ -v`` are denied in
    :data:`~logparse.shell.programs.PROGRAMS`).  Only plain names are vouched for.
    """
    if prog == "unset":
        for a in args:
            if not a.startswith("-") and not _PLAIN_NAME.fullmatch(a):
                return (f"unset {a[:40]} evaluates an array subscript as arithmetic, "
                        "which can run code")
    return None


def _program_safety(cmd: SimpleCommand, prog: str, eff: tuple[str, ...]) -> list[tuple[int, str]]:
    """Severity and reasons for one effective command (redirections excluded)."""
    # locals that several branches bind to values of different types
    rest: list[str] | tuple[str, ...]
    mode: str | None
    known: tuple[str, int] | tuple[int, str] | None
    args = eff[1:]
    out: list[tuple[int, str]] = []
    name = eff[0]
    if not prog or "$" in name or "`" in name:
        return [(_UNK, f"the command name {name!r} is computed at run time")]

    server = _server_reason(prog, eff, strict=True)
    if server:
        return [(_LAUNCH, server)]

    named = _evaluated_name(prog, args)
    if named is not None:
        return [(_UNK, named)]

    rule = verdict_rule(prog, args)
    if rule is not None:
        return [rule]

    pip = _pip_like(prog, eff)
    if pip is not None:
        sub = pip[0]
        label = (
            "pip" if prog.startswith("pip") else ("uv pip" if prog == "uv" else f"{prog} -m pip")
        )
        rest = eff[pip[1] + 1 :]
        if sub in ("index", "search") or (
            sub == "list" and any(a in ("-o", "--outdated", "-u", "--uptodate") for a in rest)
        ):
            return [(_UNK, f"{label} {sub} contacts the package index")]
        if any(a.startswith(("--index-url", "--extra-index-url", "-i", "--find-links"))
               for a in rest):
            return [(_UNK, f"{label} {sub} names a package index")]
        if sub in ("show", "list", "freeze", "check", "inspect", "version", "debug", "tree"):
            return [(_RO, f"{label} {sub} only reads")]
        if sub in _PIP_WRITE or sub in ("cache", "config"):
            return [(_MUT, f"{label} {sub} changes installed packages or files")]
        return [(_UNK, f"{label} {sub or '(no subcommand)'} is not recognised")]

    if _is_python(prog):
        mode, code = _python_code_of(cmd, eff)
        if mode in ("c", "heredoc"):
            ok, _imports, safe = _py_code(code or "")
            where = "-c code" if mode == "c" else "code on stdin"
            red = _stdin_redirect(cmd.redirects) if mode == "heredoc" else None
            if red is not None and red.expands and ("$" in (code or "") or "`" in (code or "")):
                return [(_UNK, f"{prog} reads a heredoc the shell expands first")]
            if not ok:
                return [(_UNK, f"{prog} {where} does not parse as Python")]
            if safe:
                return [(_RO, f"{prog} {where} only imports and prints")]
            return [(_UNK, f"{prog} {where} does more than import and print")]
        if mode == "version":
            return [(_RO, f"{prog} --version only reads")]
        if mode == "m":
            mod = _python_invocation(eff)[1] or ""
            after = [a for a in eff[_python_invocation(eff)[2] :] if not a.startswith("-")]
            if mod == "json.tool" and len(after) <= 1:
                return [(_RO, f"{prog} -m json.tool only formats")]
            return [(_UNK, f"{prog} -m {mod} runs a module")]
        if mode == "script":
            return [(_UNK, f"{prog} runs script {code}")]
        if cmd.stdin_pipe:
            return [(_UNK, f"pipes into {prog}")]
        red = _stdin_redirect(cmd.redirects)
        if red is not None:
            return [(_UNK, f"{prog} runs code from {red.target}")]
        return [(_UNK, f"{prog} starts an interactive interpreter")]

    if prog in _SHELLS:
        mode, k = _shell_invocation(eff)
        for a in args[: k or len(args)]:
            if a in ("-i", "-l", "--login", "--rcfile", "--init-file", "--interactive") or (
                a.startswith("-") and not a.startswith("--") and ("i" in a or "l" in a)
            ):
                return [(_UNK, f"{prog} {a} reads start-up files")]
            if a in ("-c",) or not a.startswith(("-", "+")):
                break
        if mode == "c":
            return [(_RO, f"{prog} -c runs the analysed code")] if k is not None else []
        if mode == "script" and k is not None:
            return [(_UNK, f"{prog} runs script {eff[k]}")]
        red = _stdin_redirect(cmd.redirects)
        if red is not None and red.expands and ("$" in (red.heredoc or "") or
                                                "`" in (red.heredoc or "")):
            return [(_UNK, f"{prog} reads a heredoc the shell expands first")]
        if red is not None and red.op in ("<<", "<<-", "<<<"):
            return [
                (_RO, f"{prog} runs the analysed {'herestring' if red.op == '<<<' else 'heredoc'}")
            ]
        if cmd.stdin_pipe:
            return [(_UNK, f"pipes into {prog}")]
        if red is not None:
            return [(_UNK, f"{prog} runs code from {red.target}")]
        return [(_UNK, f"{prog} starts an interactive shell")]

    if prog in (
        "perl",
        "ruby",
        "node",
        "nodejs",
        "php",
        "lua",
        "tclsh",
        "Rscript",
        "julia",
        "deno",
        "bun",
    ):
        if prog == "perl" and any(
            a.startswith("-") and not a.startswith("--") and "i" in a[1:] for a in args
        ):
            return [(_MUT, "perl -i edits files in place")]
        if cmd.stdin_pipe and not args:
            return [(_UNK, f"pipes into {prog}")]
        return [(_UNK, f"{prog} runs code")]

    if prog in ("find", "fd", "fdfind"):
        for a in args:
            if a == "-delete":
                out.append((_MUT, f"{prog} -delete deletes files"))
            elif a in ("-exec", "-execdir", "-ok", "-okdir", "-x", "--exec", "-X",
                       "--exec-batch"):
                out.append((_UNK, f"{prog} {a} runs a command for every file it finds"))
            elif a in ("-fprint", "-fprint0", "-fprintf", "-fls"):
                k = args.index(a)
                target = args[k + 1] if k + 1 < len(args) else ""
                v = _write_verdict(target, f"{prog} {a} writes")
                if v:
                    out.append(v)
        return out or [(_RO, f"{prog} only reads")]

    if prog == "ssh":
        parsed = _parse_ssh_argv(eff)
        if parsed is None:
            if any(a in ("-V", "-G") for a in args):
                return [(_RO, "ssh -V only prints its version")]
            return [(_UNK, "ssh without a destination")]
        for key in (
            "proxycommand",
            "localcommand",
            "knownhostscommand",
            "remotecommand",
            "permitlocalcommand",
        ):
            if key in parsed.oconfig:
                out.append((_UNK, f"ssh -o {key} runs a command that is not analysed"))
        for key in ("pkcs11provider", "securitykeyprovider", "controlmaster", "controlpath",
                    "include", "match"):
            if key in parsed.oconfig:
                out.append((_UNK, f"ssh -o {key} loads code or creates files"))
        opts = parsed.options
        if "-I" in opts or "-O" in opts or "-M" in opts:
            out.append((_UNK, "ssh -I/-O/-M loads a library or controls a master"))
        if "-F" in opts:
            out.append((_UNK, "ssh -F reads an unknown config file"))
        for i in range(len(opts) - 1):
            if opts[i] == "-E":
                v = _write_verdict(opts[i + 1], "ssh -E writes its log to")
                if v:
                    out.append(v)
        tunnel = any(o in opts for o in ("-N", "-f", "-L", "-R", "-D", "-W", "-w"))
        remote = bool(" ".join(eff[parsed.cmd_idx :]))
        if tunnel:
            out.append((_LAUNCH, f"ssh to {parsed.host} opens a tunnel or runs in the background"))
        if not remote and _stdin_redirect(cmd.redirects) is None and not tunnel:
            out.append((_UNK, f"ssh to {parsed.host} opens an interactive session"))
        return out or [(_RO, f"ssh to {parsed.host} runs the analysed remote command")]

    if prog in ("sudo", "doas"):
        if any(a in ("-e", "--edit") for a in args):
            return [(_MUT, f"{prog} -e edits files")]
        if any(
            a in ("-l", "--list", "-v", "--validate", "-V", "--version", "-k", "-K") for a in args
        ):
            return [(_RO, f"{prog} only checks privileges")]
        return [(_UNK, f"{prog} without a command starts a root shell")]

    if prog == "su":
        if any(a in ("-c", "--command") or a.startswith("--command=") for a in args):
            return [(_RO, "su -c runs the analysed code")]
        return [(_UNK, "su starts a shell as another user")]

    if prog == "env":
        rest = list(args)
        k = 0
        while k < len(rest):
            a = rest[k]
            if a in (
                "-i",
                "-0",
                "--null",
                "--ignore-environment",
                "-",
                "-v",
                "--debug",
            ) or _is_assignment(a):
                k += 1
            elif a in ("-u", "--unset") and k + 1 < len(rest):
                k += 2
            elif a.startswith("--unset="):
                k += 1
            else:
                return [(_UNK, f"env {a} is not understood")]
        return [(_RO, "env only prints the environment")]

    if prog in (
        "timeout",
        "nohup",
        "time",
        "nice",
        "stdbuf",
        "setsid",
        "ionice",
        "taskset",
        "numactl",
        "unbuffer",
        "coproc",
        "exec",
        "builtin",
        "command",
        "sshpass",
    ):
        if prog == "command" and any(a in ("-v", "-V") for a in args):
            return [(_RO, "command -v only looks up commands")]
        if prog == "numactl" and any(a in ("-H", "--hardware", "-s", "--show") for a in args):
            return [(_RO, "numactl --hardware only reads")]
        if prog in ("exec", "time", "nice", "command", "builtin") and not args:
            return [(_RO, f"{prog} alone does nothing harmful")]
        if prog in ("taskset", "ionice") and any(a in ("-p", "--pid") for a in args):
            return [(_MUT, f"{prog} -p changes a running process")]
        return [(_UNK, f"{prog} {' '.join(args[:2])} is not understood")]

    if prog == "sleep" and _follow_reason(prog, eff):
        return [(_LAUNCH, "sleep infinity never returns")]

    if prog == "tail":
        follow = _follow_reason(prog, eff)
        return [(_LAUNCH, follow)] if follow else [(_RO, "tail only reads")]

    if prog == "watch":
        return [(_LAUNCH, "watch reruns its command until stopped")]

    if prog == "sed":
        if _sed_in_place(eff):
            return [(_MUT, "sed -i edits files in place")]
        scripts, from_file = _sed_scripts(eff)
        if from_file:
            return [(_UNK, "sed -f runs a script file that is not analysed")]
        effects: set[str] = set()
        for s in scripts:
            effects |= _sed_script_effects(s)
        if "w" in effects:
            return [(_MUT, "sed script writes files (w)")]
        if "e" in effects:
            return [(_UNK, "sed script runs commands (e)")]
        if "?" in effects:
            return [(_UNK, "sed script could not be read")]
        return [(_RO, "sed only prints")]

    if prog in ("awk", "gawk", "mawk", "nawk"):
        program, problem = _awk_program(eff)
        if problem == "edits files in place":
            return [(_MUT, f"{prog} -i inplace edits files in place")]
        if problem:
            return [(_UNK, f"{prog} {problem}")]
        effect = _awk_effects(program or "")
        if effect:
            return [(_UNK, effect)]
        return [(_RO, f"{prog} only reads")]

    if prog == "tee":
        for a in args:
            if a.startswith("-") and a != "-":
                continue
            v = _write_verdict(a, "tee writes to")
            if v:
                out.append(v)
        return out or [(_RO, "tee writes only to /dev/null or a stream")]

    if prog == "trap":
        return [(_RO, "trap runs the analysed code")]

    if prog == "mktemp":
        if any(a in ("-u", "--dry-run") for a in args):
            return [(_RO, "mktemp -u only prints a name")]
        return [(_MUT, "mktemp creates a file")]

    if prog == "date":
        if any(a in ("-s", "--set") or a.startswith("--set=") for a in args):
            return [(_MUT, "date -s sets the clock")]
        return [(_RO, "date only reads")]

    if prog == "hostname":
        if any(not a.startswith("-") for a in args) or any(
            a in ("-b", "-F", "--file", "--boot") for a in args
        ):
            return [(_MUT, "hostname sets the host name")]
        return [(_RO, "hostname only reads")]

    if prog == "dmesg":
        if any(a in ("-c", "-C", "--clear", "--read-clear", "-D", "-E", "-n") for a in args):
            return [(_MUT, "dmesg clears or configures the kernel log")]
        if any(a in ("-w", "--follow", "-W", "--follow-new") for a in args):
            return [(_LAUNCH, "dmesg -w follows the log until stopped")]
        return [(_RO, "dmesg only reads")]

    if prog == "journalctl":
        follow = _follow_reason(prog, eff)
        if follow:
            return [(_LAUNCH, follow)]
        if any(
            a.startswith(("--vacuum", "--rotate", "--flush", "--sync", "--relinquish"))
            for a in args
        ):
            return [(_MUT, "journalctl changes the journal")]
        return [(_RO, "journalctl only reads")]

    if prog == "top":
        if any(a.startswith("-b") or (a.startswith("-") and "b" in a[1:]) for a in args):
            return [(_RO, "top -b only reads")]
        return [(_UNK, "top is interactive")]

    if prog == "ip":
        verbs = {
            "add",
            "del",
            "delete",
            "set",
            "flush",
            "change",
            "replace",
            "append",
            "up",
            "down",
            "save",
            "restore",
            "exec",
            "attach",
            "detach",
        }
        if any(a in verbs for a in args):
            return [(_MUT, "ip changes network configuration")]
        return [(_RO, "ip only shows network state")]

    if prog == "ifconfig":
        operands = [a for a in args if not a.startswith("-")]
        if len(operands) > 1:
            return [(_MUT, "ifconfig changes network configuration")]
        return [(_RO, "ifconfig only shows network state")]

    if prog == "sysctl":
        if any(a in ("-w", "--write", "-p", "--load", "--system") or "=" in a for a in args):
            return [(_MUT, "sysctl changes kernel settings")]
        return [(_RO, "sysctl only reads")]

    if prog == "crontab":
        if args and all(a in ("-l", "--list") or a.startswith("-u") for a in args) and "-l" in args:
            return [(_RO, "crontab -l only reads")]
        return [(_MUT, "crontab changes scheduled jobs")]

    if prog == "ldconfig":
        if "-p" in args or "--print-cache" in args:
            return [(_RO, "ldconfig -p only reads")]
        return [(_MUT, "ldconfig rebuilds the linker cache")]

    if prog == "kill":
        if args and args[0] in ("-0", "-l", "-L", "--list"):
            return [(_RO, f"kill {args[0]} only checks processes")]
        return [(_MUT, "kill sends signals to processes")]

    if prog == "read":
        return [_read_safety(args)]

    if prog == "fuser":
        if _fuser_kills(args):
            return [(_MUT, "fuser -k kills processes")]
        return [(_RO, "fuser only reads")]

    if prog == "nvidia-smi":
        # dmon/pmon sample until stopped, or -c COUNT times: their -c is a count, not
        # --compute-mode, and none of their options changes the GPU (-f writes: below)
        monitor = next((a for a in args if a in ("dmon", "pmon")), None)
        counted = monitor is not None and any(
            a == "-c" and k + 1 < len(args) and args[k + 1].isdigit() and args[k + 1] != "0"
            for k, a in enumerate(args))
        mut = None if monitor else _nvidia_smi_mutation(args)
        if mut:
            return [(_MUT, f"nvidia-smi {mut} changes GPU state")]
        for k, a in enumerate(args):
            if a in ("-f", "--filename") and k + 1 < len(args):
                v = _write_verdict(args[k + 1], "nvidia-smi -f writes")
                if v:
                    out.append(v)
            elif a.startswith("--filename="):
                v = _write_verdict(a.split("=", 1)[1], "nvidia-smi -f writes")
                if v:
                    out.append(v)
        follow = None if counted else _follow_reason(prog, eff)
        if follow:
            out.append((_LAUNCH, follow))
        return out or [(_RO, "nvidia-smi only reads")]

    if prog == "nvcc":
        if args and all(a in _VERSION_ARGS or a == "--list-gpu-arch" for a in args):
            return [(_RO, "nvcc --version only reads")]
        return [(_MUT, "nvcc compiles (writes output files)")]

    if prog in _BUILD_PROGRAMS:
        if args and all(a in _VERSION_ARGS for a in args):
            return [(_RO, f"{prog} --version only reads")]
        return [(_MUT, f"{prog} builds (writes files)")]

    if prog == "git":
        return [_git_safety(eff)]

    if prog in _PKG_MANAGERS or prog in (
        "apt-cache",
        "dpkg",
        "dpkg-query",
        "rpm",
        "uv",
        "cargo",
        "go",
        "apt-mark",
    ):
        return [_package_safety(prog, eff)]

    if prog in _CONTAINERS:
        return [_container_safety(prog, eff)]

    if prog in ("kubectl", "oc"):
        sub = args[0] if args else ""
        if sub in (
            "get",
            "describe",
            "logs",
            "top",
            "version",
            "explain",
            "api-resources",
            "cluster-info",
            "config",
        ):
            if sub == "logs" and any(a in ("-f", "--follow") for a in args):
                return [(_LAUNCH, f"{prog} logs -f follows logs until stopped")]
            return [(_RO, f"{prog} {sub} only reads")]
        if sub == "exec":
            return [(_UNK, f"{prog} exec runs a command that is not analysed")]
        return [(_MUT, f"{prog} {sub} changes the cluster")]

    if prog in ("systemctl", "service"):
        verb = args[0] if prog == "systemctl" and args else (args[1] if len(args) > 1 else "")
        if prog == "systemctl" and not args:
            verb = "list-units"
        known = SYSTEMCTL_VERBS.get(verb)
        if known is not None and known[1] == _RO:
            return [(_RO, f"{prog} {verb} only reads")]
        return [(_MUT, f"{prog} {verb} changes system services")]

    if prog in ("tmux", "screen"):
        if prog == "screen" and any(a == "-c" for a in args):
            return [(_UNK, "screen -c reads a configuration file that can run commands")]
        follow = _follow_reason(prog, eff)
        if follow:
            return [(_LAUNCH, follow)]
        verb = args[0] if args else ""
        known = TMUX_VERBS.get(verb)
        if known is not None:
            sev = known[1]
            return [(sev, f"{prog} {verb} " + {_RO: "only reads", _MUT: "kills sessions",
                                               _UNK: "types into a session"}[sev])]
        if ("-X" in args and "quit" in args) or any(a.startswith("kill-") for a in args):
            return [(_MUT, f"{prog} kills sessions")]
        return [(_UNK, f"{prog} {' '.join(args[:1])} is not understood")]

    if prog == "curl":
        for k, a in enumerate(args):
            tgt = None
            if a in (
                "-o",
                "--output",
                "-D",
                "--dump-header",
                "-c",
                "--cookie-jar",
                "--trace",
                "--trace-ascii",
                "--stderr",
            ) and k + 1 < len(args):
                tgt = args[k + 1]
            elif a in ("-O", "--remote-name", "--remote-name-all", "-J") or (
                a.startswith("-") and not a.startswith("--") and "O" in a[1:]
            ):
                out.append((_MUT, "curl -O saves a file in the current directory"))
            elif a.startswith("-o") and len(a) > 2 and not a.startswith("--"):
                tgt = a[2:]
            elif a.startswith("--output="):
                tgt = a.split("=", 1)[1]
            if tgt is not None:
                v = _write_verdict(tgt, "curl writes")
                if v:
                    out.append(v)
        out.append((_UNK, "curl sends a network request"))
        return out

    if prog == "wget":
        to_stdout = False
        for k, a in enumerate(args):
            if a in ("-O", "--output-document") and k + 1 < len(args):
                tgt = args[k + 1]
                if tgt == "-":
                    to_stdout = True
                else:
                    v = _write_verdict(tgt, "wget writes")
                    if v:
                        return [v]
                    to_stdout = True
            elif a.startswith("-") and not a.startswith("--") and "O" in a[1:] and (
                    a.index("O") < len(a) - 1 or k + 1 < len(args)):
                # -O FILE, -OFILE and clusters: -qO-, -qO FILE
                tgt = a[a.index("O") + 1:] or args[k + 1]
                if tgt == "-" or _write_verdict(tgt, "") is None:
                    to_stdout = True
                else:
                    return [_write_verdict(tgt, "wget writes")]  # type: ignore[list-item]
            elif a == "--spider":
                to_stdout = True
        if to_stdout:
            return [(_UNK, "wget sends a network request")]
        return [(_MUT, "wget downloads files")]

    if prog == "tar":
        mode = _tar_mode(args)
        for k, a in enumerate(args):
            name = a.split("=", 1)[0]
            if name in ("--checkpoint-action", "--to-command", "--use-compress-program",
                        "--info-script", "--new-volume-script", "--rsh-command", "-I",
                        "-F", "--index-file", "--rmt-command") or (
                    a.startswith("-") and not a.startswith("--") and ("I" in a or "F" in a)):
                return [(_UNK, f"tar {name} runs a command or writes a file")]
            prev = args[k - 1] if k > 0 else ""
            if ":" in a and (prev in ("-f", "--file") or (
                    prev.startswith("-") and not prev.startswith("--") and prev.endswith("f"))):
                return [(_UNK, f"tar -f {a} reaches a remote host")]
        if mode == "t":
            return [(_RO, "tar t only lists")]
        if mode == "x":
            return [(_MUT, "tar x extracts files")]
        return [(_MUT, "tar writes an archive")]

    if prog in ("unzip",):
        if any(a in ("-l", "-t", "-v", "-Z", "-p", "-c") for a in args):
            return [(_RO, "unzip -l only lists")]
        return [(_MUT, "unzip extracts files")]

    if prog in ("gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "zstd", "unzstd", "lz4"):
        if any(
            a in ("-c", "--stdout", "-l", "--list", "-t", "--test")
            or (a.startswith("-") and not a.startswith("--") and ("c" in a or "t" in a or "l" in a))
            for a in args
        ):
            return [(_RO, f"{prog} -c writes to stdout")]
        return [(_MUT, f"{prog} replaces files")]

    if prog == "dd":
        for a in args:
            if a.startswith("of="):
                v = _write_verdict(a[3:], "dd writes")
                return [v] if v else [(_RO, "dd writes only to /dev/null or a stream")]
        return [(_RO, "dd writes to stdout")]

    if prog.startswith("mkfs"):
        return [(_MUT, f"{prog} formats a file system")]

    if prog in ("alias",):
        if any("=" in a for a in args):
            return [(_UNK, "alias redefines commands")]
        return [(_RO, "alias only lists aliases")]

    if prog in ("conda", "mamba", "micromamba"):
        return [_package_safety(prog, eff)]

    if prog in ("vim", "vi", "nano", "emacs", "htop", "nvtop"):
        return [(_UNK, f"{prog} is interactive")]

    known = table_verdict(prog, args)
    if known is not None:
        return [known]
    if _is_benchmark(prog, eff):
        return [(_UNK, f"{prog} runs a benchmark")]
    return [(_UNK, f"{prog} is not in the table of known programs")]


def _assigned_names(cmd: SimpleCommand, idx: int, eff: tuple[str, ...]) -> list[str]:
    """Names of the variables a command sets (prefix assignments, env, export...)."""
    words = list(cmd.argv[:idx])
    if eff and _basename(eff[0]) in ("export", "declare", "typeset", "local", "readonly", "env"):
        words.extend(eff[1:])
    names = []
    for w in words:
        if _is_assignment(w):
            name = w.split("=", 1)[0].rstrip("+")
            names.append(name.split("[", 1)[0])
    return names


#: Where a program named by path is a file anyone (a transcript's earlier step, a
#: checked-out repository) may have put there, not the installed program.
_PLANTED_DIRS = ("/tmp/", "/var/tmp/", "/dev/shm/", "/run/user/")


def _planted_program(name: str, prog: str) -> str | None:
    """Why ``name`` (a command word with a ``/``) may not be the program ``prog`` is.

    ``./ls``, ``bin/grep``, ``~/x/cat`` or ``/tmp/x/cat`` run whatever file sits
    there, whatever its name says; the table of programs vouches only for the
    installed ones.  A Python interpreter in a ``bin/`` directory (a virtualenv's)
    is the exception: replaying an import check needs it, and importing the code of
    the working tree is accepted already (the sandbox is the wall behind it).
    """
    if "/" not in name:
        return None
    planted = not name.startswith("/") or name.startswith(_PLANTED_DIRS)
    if not planted:
        return None
    if _is_python(prog) and name.rsplit("/", 2)[-2:-1] == ["bin"]:
        return None
    return f"{name[:60]} runs a file of the working tree or /tmp, not the installed {prog}"


def _command_safety(cmd: SimpleCommand) -> list[tuple[int, str]]:
    """All severity findings for one simple command (redirections included)."""
    idx, wrappers, writes = _strip_wrappers(cmd.argv)
    eff = cmd.argv[idx:]
    found: list[tuple[int, str]] = []
    for r in cmd.redirects:
        if r.writes:
            v = _write_verdict(r.target, "redirects output to")
            if v:
                found.append(v)
        elif r.op in ("<", "<&") and r.target.startswith(("/dev/tcp/", "/dev/udp/")):
            found.append((_UNK, f"reads from {r.target}, a network connection"))
    for t in writes:
        v = _write_verdict(t, "time -o writes")
        if v:
            found.append(v)
    for name in _assigned_names(cmd, idx, eff):
        if name in LOOKUP_VARIABLES or name.startswith(("GIT_", "LD_", "PYTHON", "LUA_INIT_",
                                                         "BASH_FUNC_")):
            found.append((_UNK, f"sets {name}, which changes which program or code runs"))
    if not eff:
        found.append((_RO, "only sets variables"))
        return found
    prog = _basename(eff[0])
    planted = _planted_program(eff[0], prog)
    if planted:
        found.append((_UNK, planted))
    found.extend(_program_safety(cmd, prog, eff))
    if "coproc" in wrappers:
        found.append((_LAUNCH, f"coproc runs {prog} in the background"))
    if "nohup" in wrappers:
        found.append((_LAUNCH, f"nohup keeps {prog} running after the shell exits"))
    elif "setsid" in wrappers:
        found.append((_LAUNCH, f"setsid detaches {prog} from the shell"))
    if cmd.background and prog not in _TRIVIAL_BG:
        found.append((_LAUNCH, f"{prog} runs in the background (&)"))
    if cmd.via:
        found = [(sev, f"{why} (via {cmd.via})") for sev, why in found]
    return found


_URL = re.compile(r"(?i)\b(https?|ftps?|wss?|git|ssh|rsync|sftp|tcp|udp|telnet|redis|"
                  r"postgres(?:ql)?|mysql|mongodb(?:\+srv)?|grpc|amqp|nats|ldaps?|"
                  r"socks[45][ah]?|scp|smb|tftp|dict|gopher|imaps?|pop3s?|smtps?|mqtts?|"
                  r"rtsp|rtmp|hxxp)://"
                  r"(?:[^@/\s'\"]*@)?(\[[^\]]+\]|[^/:\s'\"?#]+)(?::(\d+))?")
_SCP_LIKE = re.compile(r"^(?:[\w.-]+@)?([\w.-]+|\[[0-9a-fA-F:]+\]):(?!//)")
_HOST_OPERAND = frozenset(
    "nc ncat netcat telnet ping ping6 traceroute tracepath mtr dig nslookup host whois "
    "ftp lftp nmap arping fping hping3 nping".split())
_SCP_PROGRAMS = frozenset({"scp", "rsync", "sftp", "git", "sshfs"})
#: Options of curl and wget that take the next word as their value (any other word
#: that is not an option is a URL, a bare host name included).
_URL_VALUES = {
    "curl": frozenset("-o --output -O -D --dump-header -c --cookie-jar -b --cookie -H --header "
                      "-d --data --data-raw --data-binary --data-urlencode --data-ascii -F "
                      "--form --form-string -X --request -u --user -A --user-agent -e "
                      "--referer -T --upload-file -K --config -w --write-out -m --max-time "
                      "--connect-timeout --retry --retry-delay --retry-max-time -x --proxy "
                      "--cacert --cert --key -E --resolve --unix-socket --interface -r "
                      "--range -z --time-cond --output-dir --trace --trace-ascii --stderr "
                      "-Y --speed-limit -y --speed-time --limit-rate --max-filesize -C "
                      "--continue-at --json --url-query -t --telnet-option".split()),
    "wget": frozenset("-O --output-document -o --output-file -a --append-output -P "
                      "--directory-prefix -U --user-agent --header -e --execute -t --tries "
                      "-T --timeout --user --password --post-data --post-file --method "
                      "--body-data -i --input-file -l --level -w --wait -Q --quota "
                      "--load-cookies --save-cookies --referer".split()),
}
_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9-]*")
#: ssh's relatives: their first operand is a host, which the host map does not route.
_SSH_KIN = frozenset("autossh mosh ssh-keyscan ssh-copy-id sftp".split())
_SSH_VALUE_OPTIONS = {
    "": frozenset("-o -i -p -P -F -J -l -b -c -D -E -L -R -S -W -w -B -M -s".split()),
    "sftp": frozenset("-o -i -P -F -J -l -b -c -D -R -S -B -s".split()),  # -p preserves
    "ssh-keyscan": frozenset("-f -p -T -t -O".split()),
}
"""Options of ssh's relatives that take the next word (so it is not the host)."""
#: An IPv4 address (``10.0.0.2``, ``10.0.0.2:80``), alone or after the first ``=`` or ``@``
#: of a word (``--addr=10.0.0.2``, ``root@10.0.0.2``; not ``pkg==1.2.3.4``): whatever
#: program gets it is told to reach that address.
_IP_WORD = re.compile(r"((?:\d{1,3}\.){3}\d{1,3})(?::\d+)?")
_WORD_VALUE = re.compile(r"[=@]")


def _ip_of(word: str) -> str | None:
    at = _WORD_VALUE.search(word)
    m = _IP_WORD.fullmatch(word, at.end() if at else 0)
    return m.group(1) if m else None


def _command_endpoints(cmd: SimpleCommand, depth: int = 0) -> list[str]:
    """Network endpoints a command names outside ssh (``HOST:PORT`` or ``HOST``)."""
    return list(_endpoints_cached(cmd, depth))


@functools.lru_cache(maxsize=4096)
def _endpoints_cached(cmd: SimpleCommand, depth: int) -> tuple[str, ...]:
    return tuple(_endpoints_of(cmd, depth))


def _endpoints_of(cmd: SimpleCommand, depth: int) -> list[str]:
    found: list[str] = []
    for r in cmd.redirects:
        ep = _net_device(r.target)
        if ep:
            found.append(ep)
    eff = cmd.effective_argv
    if not eff:
        return found
    prog = _basename(eff[0])
    entry = PROGRAMS.get(prog)
    m: re.Match[str] | None
    if prog == "ssh" or (entry is not None and entry.safety == "ro" and not any(
            sev > _RO for sev, _ in _program_safety(cmd, prog, eff)) and not any(
            name in LOOKUP_VARIABLES for name, _ in _assignments(cmd))):
        return found  # ssh goes through the host map; text tools only print their words
    found.extend(_carried_endpoints(cmd, eff, prog, depth))
    for w in eff[1:]:
        for m in _URL.finditer(w):
            found.append(join_endpoint(m.group(2).strip("[]"), m.group(3)))
    if prog in _SCP_PROGRAMS:
        for w in eff[1:]:
            m = _SCP_LIKE.match(w)
            if m and not w.startswith("-"):
                found.append(m.group(1).strip("[]"))
    for w in eff[1:]:
        ip = _ip_of(w)
        if ip and not ip.startswith("127.") and ip != "0.0.0.0":
            found.append(ip)  # a loopback address or 0.0.0.0 binds, reaches nothing
            continue
        ip6 = ipv6_of(w)
        if ip6 and ip6 not in ("::", "::1") and ip6 not in found:
            found.append(ip6)  # ::1 and :: likewise
    if prog in _HOST_OPERAND or prog in _SSH_KIN:
        skip = False
        for w in eff[1:]:
            if skip:  # the value of an ssh option (-o KEY=VALUE, -i KEY, -p PORT...)
                skip = False
                continue
            if prog in _SSH_KIN and w in _SSH_VALUE_OPTIONS.get(prog, _SSH_VALUE_OPTIONS[""]):
                skip = True
                continue
            if not w.startswith("-") and not w.isdigit():
                found.append(w.rpartition("@")[2])
                break
    if prog == "curl":
        found.extend(curl_endpoints(eff[1:])[0])
    elif prog == "wget":
        found.extend(wget_endpoints(eff[1:])[0])
    elif prog in ("http", "https", "httpie", "aria2c"):
        value = False
        for w in eff[1:]:
            if value:  # the value of an option (a header, a file, a method)
                value = False
                continue
            if w.startswith("-") or "://" in w:
                continue
            host = url_host(w)
            if host and "." in host or host == "localhost":
                found.append(host)
    found.extend(_option_hosts(prog, eff))
    if prog in _CODE_RUNNERS or _is_python(prog):
        if any(sev > _RO for sev, _ in _command_safety(cmd)):
            found.extend(_code_hosts(cmd, prog))
    if prog == "socat":
        for w in eff[1:]:
            kind, colon, rest = w.partition(":")
            if colon and kind.upper().startswith(("TCP", "UDP", "OPENSSL", "SCTP", "DCCP",
                                                   "SOCKS", "PROXY", "UDP-DATAGRAM")):
                m = _SOCAT_ADDR.match(rest)
                if m and m.group(1):
                    host = m.group(1).strip("[]")
                    found.append(join_endpoint(host, m.group(2)))
    return found


_READ_FLAGS = frozenset("r s e".split())
_READ_VALUES = frozenset("d n N t p i u".split())


def _read_safety(args: tuple[str, ...]) -> tuple[int, str]:
    """``read`` assigns what it reads to names: read-only when every name is a plain
    identifier that is not upper-case (``while read -r line``): a subscript
    (``read 'a[$(id)]'``) is evaluated as arithmetic, which runs code, and an upper-case
    name can be one that steers lookup (``read PATH``) or the shell (``IFS``, ``PS4``)."""
    unknown = (_UNK, "read assigns to names, which can evaluate array subscripts or "
                     "change a variable that steers the shell")
    names: list[str] = []
    k = 0
    while k < len(args):
        a = args[k]
        if a == "--":
            names.extend(args[k + 1:])
            break
        if not a.startswith("-") or a == "-":
            names.append(a)
            k += 1
            continue
        j = 1
        while j < len(a):
            c = a[j]
            if c in _READ_FLAGS:
                j += 1
                continue
            if c in _READ_VALUES or c == "a":
                val = a[j + 1:] or (args[k + 1] if k + 1 < len(args) else "")
                if not a[j + 1:]:
                    k += 1
                if c == "a":
                    names.append(val)
                break
            return unknown
        k += 1
    for n in names:
        if not (n.isidentifier() and n.isascii()) or n.isupper() or n in LOOKUP_VARIABLES:
            return unknown
    return (_RO, "read only assigns to plain names")


#: Clients whose words name where they connect (their endpoints are read above).
_NET_CLIENTS = (_HOST_OPERAND | _SSH_KIN | _SCP_PROGRAMS
                | frozenset("curl wget socat http https httpie aria2c openssl".split()))
_CARRIED_DEPTH = 2
_OPTION_VALUE = re.compile(r"^-{1,2}[\w-]+=")
_KEY_PREFIX = re.compile(r"^(?:[\w.-]+=)+")


def _carried_endpoints(cmd: SimpleCommand, eff: tuple[str, ...], prog: str,
                       depth: int) -> list[str]:
    """Endpoints of the command a program is handed to run, in its words or option
    values: ``flock L nc evil 80``, ``strace -o x nc evil 80``, ``busybox nc evil 80``,
    ``tar -I 'nc evil 80'``, ``--to-command='nc evil 80'``, ``env -S 'nc evil 80'``,
    ``script -c``, ``LESSOPEN='|nc evil 80 %s' less``: a host the text names is an
    endpoint whatever program is handed it (a vetted read-only program only prints its
    words, and is not read here)."""
    if depth >= _CARRIED_DEPTH:
        return []

    found: list[str] = []
    for i, w in enumerate(eff[1:], start=1):
        if _basename(w) in _NET_CLIENTS and _basename(w) != prog:
            sub = SimpleCommand(argv=eff[i:], redirects=(), background=False,
                                in_substitution=False, start=0, end=0)
            found.extend(_command_endpoints(sub, depth + 1))
            break
    words = list(eff[1:]) + [val for _name, val in _assignments(cmd)]
    for w in words:
        found.extend(_code_word_endpoints(w, depth))
    return found


_CODE_CHARS = frozenset(" \t\n;|&")
_QUOTED_CODE = re.compile(r"""(['"])([^'"\n]{3,400}?)\1""")
_ADDRESS_KIND = re.compile(r"^(?:EXEC|SYSTEM|exec|system):")


def _code_word_endpoints(word: str, depth: int) -> list[str]:
    """Endpoints of a word read as shell code (an option's value, a variable's, a
    string literal in a program's code: ``system("nc evil 80")``)."""
    if not _CODE_CHARS.intersection(word):
        return []
    from logparse.shell.analysis import parse_command

    found: list[str] = []
    codes = [word] + [m.group(2) for m in _QUOTED_CODE.finditer(word)
                      if _CODE_CHARS.intersection(m.group(2))]
    for code in codes:
        code = _OPTION_VALUE.sub("", code, count=1)
        code = _KEY_PREFIX.sub("", _ADDRESS_KIND.sub("", code)).lstrip("|:!")
        for c in parse_command(code).commands:
            found.extend(_command_endpoints(c, depth + 1))
    return found


#: Programs that run the code they read on standard input (``echo 'cmd' | sh``,
#: ``at now <<< cmd``, ``source /dev/stdin``).
_STDIN_SHELLS = frozenset("sh bash dash zsh ksh mksh ash busybox at batch source .".split())


def _fed_code_endpoints(cmds: list[SimpleCommand]) -> list[str]:
    """Endpoints in text a shell runs without the text showing it as a command: a
    shell fed on stdin or from ``<(…)``, or told ``-c "$(…)"``: every word of the
    step (``echo 'nc evil 80' | sh``) is read as code."""
    fed = False
    for c in cmds:
        eff = c.effective_argv
        if not eff or _basename(eff[0]) not in _STDIN_SHELLS:
            continue
        ops = [a for a in eff[1:] if not a.startswith("-")]
        if c.stdin_pipe or any(r.op == "<<<" for r in c.redirects) or not ops or any(
                a.startswith(("/dev/stdin", "/dev/fd/", "/proc/self/fd/")) or "$(" in a
                or "`" in a for a in eff[1:]):
            fed = True
            break
    if not fed:
        return []
    found: list[str] = []
    for c in cmds:
        words = list(c.argv[1:]) + [r.target for r in c.redirects if r.op == "<<<"]
        if c.program in ("echo", "printf") and len(c.argv) > 2:
            words.append(" ".join(c.argv[1:]))  # echo nc evil 80: the words are the code
        for w in words:
            found.extend(_code_word_endpoints(w, 0))
    return found


_SOCAT_ADDR = re.compile(r"(\[[^\]]*\]|[^:,]*)(?::([^:,]*))?")

#: Clients told the host by an option (``psql -h db``, ``mysql --host=db``, ``openssl
#: s_client -connect db:443``): the value is where they connect.
_HOST_OPTIONS: dict[str, frozenset[str]] = {
    **dict.fromkeys(("psql", "pg_dump", "pg_dumpall", "pg_restore", "pg_isready",
                     "createdb", "dropdb", "vacuumdb", "reindexdb", "clusterdb", "pgbench",
                     "mysql", "mariadb", "mysqladmin", "mysqldump", "mysqlshow",
                     "mysqlcheck", "redis-cli", "valkey-cli", "clickhouse-client",
                     "memtier_benchmark", "redis-benchmark"), frozenset({"-h", "--host"})),
    **dict.fromkeys(("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport",
                     "mongostat", "mongotop"), frozenset({"--host"})),
    "openssl": frozenset({"-connect", "-host", "-proxy"}),
    "cqlsh": frozenset(),
}
#: libpq/conninfo words naming the host (``psql "host=db dbname=x"``).
_CONNINFO_HOST = re.compile(r"(?:^|\s)(?:host|hostaddr)\s*=\s*([^\s,]+)")
#: Programs that run code a string names (``-c``, ``-e``, a heredoc): a quoted host
#: literal in code that is not read-only is where the code connects.
_CODE_RUNNERS = frozenset("node nodejs deno bun perl ruby php lua luajit Rscript julia "
                          "tclsh wish irb".split())
_QUOTED = re.compile(r"""(['"])([^'"\s]{1,253})\1""")
_HOST_LITERAL = re.compile(r"(?:[A-Za-z0-9-]{1,63}\.){1,10}[A-Za-z][A-Za-z0-9-]{1,62}"
                           r"(?::\d{1,5})?")
_HOST_TUPLE = re.compile(r"""\(\s{0,8}(['"])([A-Za-z0-9_.-]{1,253})\1\s{0,8},\s{0,8}\d{1,5}\s{0,8}\)""")
#: Last labels of file names, modules and attributes, not of hosts (``'c.json'``).
_NOT_TLDS = frozenset(
    "json jsonl py pyc pyi txt csv tsv log yaml yml toml md rst sh bash js mjs cjs ts tsx "
    "jsx html htm css cfg ini conf xml so dll dylib gz tgz bz2 xz zst tar zip whl egg pt "
    "pth bin npy npz pkl pickle h5 hdf5 onnx safetensors ckpt lock c h cc cpp hpp rs go "
    "java class jar rb pl pm php lua r pem key crt csr der db sqlite sqlite3 parquet arrow "
    "feather png jpg jpeg gif svg pdf ipynb env out err tmp bak orig diff patch mod sum "
    "cuda cu cuh version path join items keys values format encode decode".split())


def _code_hosts(cmd: SimpleCommand, prog: str) -> list[str]:
    """Hosts named as string literals in code handed to an interpreter (``-c``/``-e``
    words and heredoc bodies): ``socket.create_connection(('db.internal', 5432))``,
    ``net.connect(5432, 'db.internal')``."""
    texts = [w for w in cmd.effective_argv[1:] if "'" in w or '"' in w]
    texts += [r.heredoc for r in cmd.redirects if r.heredoc]
    found: list[str] = []
    for text in texts:
        for m in _HOST_TUPLE.finditer(text):
            found.append(m.group(2))
        for m in _QUOTED.finditer(text):
            lit = m.group(2)
            ip = _IP_WORD.fullmatch(lit)
            if ip:  # '10.0.0.1', "10.0.0.1:80"
                if not ip.group(1).startswith("127.") and ip.group(1) != "0.0.0.0":
                    found.append(ip.group(1))
                continue
            ip6 = ipv6_of(lit)
            if ip6:  # '2001:db8::1'
                if ip6 not in ("::", "::1"):
                    found.append(ip6)
                continue
            if not _HOST_LITERAL.fullmatch(lit):
                continue
            host = lit.rsplit(":", 1)[0] if ":" in lit else lit
            if host.rsplit(".", 1)[-1].lower() in _NOT_TLDS:
                continue
            found.append(lit)
    return [h for h in dict.fromkeys(found)
            if h.split(":", 1)[0] not in ("localhost", "0.0.0.0")]


def _option_hosts(prog: str, eff: tuple[str, ...]) -> list[str]:
    """Hosts given to a client by a host option or a conninfo word."""
    names = _HOST_OPTIONS.get(prog)
    if names is None:
        return []
    found: list[str] = []
    for i, w in enumerate(eff[1:], start=1):
        val = None
        if w in names and i + 1 < len(eff):
            val = eff[i + 1]
        elif w.startswith("--") and w.split("=", 1)[0] in names and "=" in w:
            val = w.split("=", 1)[1]
        elif len(w) > 2 and w[:2] in names and not w.startswith("--"):
            val = w[2:]  # -hdb.internal
        if val:
            found.append(val.split(",")[0])
        for m in _CONNINFO_HOST.finditer(w):
            found.append(m.group(1))
    return found


def _assignments(cmd: SimpleCommand) -> list[tuple[str, str]]:
    """``(name, value)`` of every variable a command sets (prefix words, ``export``,
    ``env``, ``declare``…)."""
    idx = _strip_wrappers(cmd.argv)[0]
    words = list(cmd.argv[:idx])
    eff = cmd.argv[idx:]
    if eff and _basename(eff[0]) in ("export", "declare", "typeset", "local", "readonly", "env"):
        words.extend(eff[1:])
    out = []
    for w in words:
        if _is_assignment(w):
            name, _, val = w.partition("=")
            out.append((name.rstrip("+"), val))
    return out


def _command_blind(cmd: SimpleCommand) -> list[str]:
    """Why the hosts a command reaches cannot be read from its text (empty: they can)."""
    eff = cmd.effective_argv
    out: list[str] = []
    if not eff:
        return out
    prog = _basename(eff[0])
    row = verdict_row(prog, eff[1:])
    if row is not None and row.blind:
        out.append(f"{row.reason}, at an address this machine's configuration holds")
    if prog == "curl":
        out.extend(curl_endpoints(eff[1:])[1])
    elif prog == "wget":
        out.extend(wget_endpoints(eff[1:])[1])
    elif not _command_endpoints(cmd) and not any(
            a.startswith(("/", "./", "../", "~", "file:")) for a in eff[2:]):
        # a remote the machine's configuration names (origin, the package index): the
        # text shows no host the host map could check (with an explicit URL it does)
        for _sev, why in _program_safety(cmd, prog, eff):
            if why.endswith(_IMPLICIT_REMOTE):
                out.append(f"{why} configured on this machine (no host in the text)")
    return out


def _command_follows(cmd: SimpleCommand) -> str | None:
    """Why a command follows an HTTP redirect to wherever the server says (None: no)."""
    eff = cmd.effective_argv
    if not eff:
        return None
    prog = _basename(eff[0])
    if prog == "curl" and curl_follows(eff[1:]):
        return "curl -L follows a redirect to whatever host the server names"
    if prog == "wget" and wget_follows(eff[1:]):
        return ("wget follows a redirect to whatever host the server names "
                "(unless --max-redirect=0)")
    if prog in ("http", "https", "httpie") and any(
            w in ("--follow", "-F") or (w.startswith("-") and not w.startswith("--")
                                        and "F" in w[1:]) for w in eff[1:]):
        return f"{prog} --follow follows a redirect to whatever host the server names"
    if prog in ("curl", "wget", "http", "https", "httpie", "ssh"):
        return None
    entry = PROGRAMS.get(prog)
    if entry is not None and entry.safety == "ro":
        return None  # a vetted read-only program prints its words, fetches nothing
    for w in eff[1:]:
        m = _HTTP_URL.search(w)
        if m:  # git, pip, aria2c, python's urllib: most HTTP clients follow by default
            return (f"{prog} fetches {m.group(0)[:40]} and may follow a redirect to "
                    "whatever host the server names")
    return None


_HTTP_URL = re.compile(r"(?i)\b(?:https?|ftps?)://[^\s'\"]+")


_IMPLICIT_REMOTE = ("contacts a remote repository", "contacts the package index",
                    "contacts the package registry")


def _proxy_findings(cmds: list[SimpleCommand]) -> tuple[list[str], list[str]]:
    """Endpoints (and blind reasons) of the proxy and config variables the text sets."""
    eps: list[str] = []
    blind: list[str] = []
    clients = any(_basename(c.effective_argv[0]) in ("curl", "wget")
                  for c in cmds if c.effective_argv)
    for cmd in cmds:
        for name, val in _assignments(cmd):
            why_h = runtime_host_variable(name, val)
            if why_h:
                blind.append(why_h)
                continue
            if name in HOST_VARIABLES:
                host = url_host(val.split(",")[0].strip())
                if host:  # DOCKER_HOST=tcp://h:2375, PGHOST=h (a socket directory: none)
                    eps.append(host)
                continue
            if is_proxy_variable(name):
                if "$" in val or "`" in val:
                    blind.append(f"sets {name} to a value computed at run time")
                    continue
                ep = proxy_endpoint(val)
                if ep:
                    eps.append(ep)
            elif clients and name in CONFIG_VARIABLES:
                blind.append(f"sets {name}, so curl or wget reads a config file "
                             "(a proxy, URLs) the text does not show")
        if clients:
            for t in [r.target for r in cmd.redirects if r.writes] + list(cmd.argv[1:]):
                if RC_FILE.search(t):
                    blind.append(f"writes {t[-40:]}, which curl or wget reads its "
                                 "options from")
                    break
    return eps, blind


#: Programs that stop reading options at their first operand or code (a word after it
#: cannot become an option), or whose options only change what is printed.
_NO_PERMUTE = frozenset("printf echo test [ [[ python python3 bash sh dash zsh ksh env "
                        "sudo doas timeout nice ionice stdbuf taskset numactl nohup time "
                        "command builtin exec setsid unbuffer read ssh tail".split())
#: Programs that stop reading options at their first operand (POSIX getopt, gawk's
#: ``+`` option list), with their options that take the next word as a value: a word
#: after the first operand (``awk '{print}' *``: the program text) is no option.
_OPTIONS_END_AT_OPERAND: dict[str, frozenset[str]] = dict.fromkeys(
    ("awk", "gawk", "mawk", "nawk"),
    frozenset("-F -f -e -v -W -i -l -E --field-separator --file --source --assign "
              "--include --load --exec".split()))
_SUBSTITUTION = re.compile(r"\$\((?!\()|`")  # $(…) and `…`, not $((…))
_GLOB_START = re.compile(r"^[*?\[]")
_FOR_LIST = re.compile(r"\bfor\s+([A-Za-z_]\w*)\s+in\s+([^;\n]*)")


def _data_variables(info: ShellInfo, cmds: list[SimpleCommand]) -> set[str]:
    """Names the step fills with data it reads when it runs: ``read`` and ``mapfile``
    names, ``x=$(…)``, and ``for x in`` over a substitution or a glob."""
    names: set[str] = set()
    for c in cmds:
        eff = c.effective_argv
        prog = _basename(eff[0]) if eff else ""
        if prog in ("read", "mapfile", "readarray"):
            names.update(a for a in eff[1:] if a.isidentifier())
        for name, val in _assignments(c):
            if "$(" in val or "`" in val:
                names.add(name)
    for m in _FOR_LIST.finditer(info.text):
        # `for f in logs/*` yields words that start with logs/: no option
        if any(_SUBSTITUTION.search(t) or _GLOB_START.match(t.lstrip("'\""))
               for t in m.group(2).split()):
            names.add(m.group(1))
    return names


def _source_of(span: str, reparsed: bool) -> str:
    """The command's source as the shell read it: a command re-parsed from a code
    string (``bash -c '…'``, an ssh remote command) has the string's quotes around it."""
    if reparsed:
        try:
            words = shlex.split(span)
        except ValueError:
            return span
        if len(words) == 1:
            return words[0]
    return span


def _bare_glob(src: str) -> bool:
    """Whether ``src`` has a word that starts with an unquoted ``*``, ``?`` or ``[``
    (the shell expands it; ``'*.py'`` and ``"*"`` it does not, nor the ``[`` command)."""
    quote = ""
    start = True
    i = 0
    n = len(src)
    while i < n:
        ch = src[i]
        if quote:
            if ch == quote:
                quote = ""
            elif ch == "\\" and quote == '"':
                i += 1
        elif ch == "\\":
            i += 1
            start = False
        elif ch in "'\"":
            quote = ch
            start = False
        elif ch in " \t\n;|&()<>":
            start = True
        else:
            if start and ch in "*?[" and not (
                    ch == "[" and (i + 1 >= n or src[i + 1] in " \t[")):
                return True
            start = False
        i += 1
    return False


def _option_injection(info: ShellInfo, cmds: list[SimpleCommand]) -> list[tuple[int, str]]:
    """A word that can expand to an option of a program whose options execute or write:
    a glob at the start of a word (a file named ``-o`` or ``--pre=sh``: ``sort *``,
    ``find * …``), a command substitution (``find . $(cat f)``), or a variable filled
    from data (``read x < f; find . $x``).  Before ``--`` such a word is whatever the
    repository or the data say, so the command is ``unknown``."""
    data = _data_variables(info, cmds)
    pats = [re.compile(r"\$\{?" + re.escape(n) + r"(?!\w)") for n in sorted(data)]
    out: list[tuple[int, str]] = []
    for c in cmds:
        eff = c.effective_argv
        if not eff:
            continue
        prog = _basename(eff[0])
        entry = PROGRAMS.get(prog)
        if entry is None or prog in _NO_PERMUTE or _is_python(prog):
            continue
        if not (entry.safety == "rule" or entry.deny or entry.writes
                or entry.max_operands is not None or entry.flags is not None):
            continue  # every option only changes what is read or printed
        src = None
        stop = _OPTIONS_END_AT_OPERAND.get(prog)
        value = False
        for w in eff[1:]:
            if w == "--":
                break
            if _GLOB_START.match(w):
                if src is None:
                    text = info.inner if c in info.commands else info.text
                    src = _source_of(text[c.start:c.end], bool(c.via))
                if not _bare_glob(src):
                    continue  # quoted ('*.py'): the program gets it as written
                out.append((_UNK, f"{prog} {w[:30]}: a glob at the start of a word can "
                                  "expand to a file named like an option"))
                break
            if _SUBSTITUTION.search(w) or any(p.search(w) for p in pats):
                out.append((_UNK, f"{prog} {w[:30]}: a word built from data at run time "
                                  "can be any option"))
                break
            if stop is not None:
                if not value and (not w.startswith("-") or w == "-"):
                    break  # the first operand: what follows is read as operands only
                value = w in stop
    return out


def classify_safety(info: ShellInfo) -> Safety:
    """Decide whether re-running ``info.text`` is safe.

    Every simple command (``info.commands``, which already includes
    substitutions, ``sh -c``/``eval`` code, ``xargs``/``find -exec`` targets
    and nested ssh remote commands, plus ``info.local_commands`` around the
    ssh wrapper chain) is classified on its own; the result is the worst
    class by severity ``read-only < launch < unknown < mutating``.  Anything
    the analyser could not see through (``info.opaque``: syntax errors,
    function definitions, nesting limits) counts as ``unknown``.
    """
    findings: list[tuple[int, str]] = []
    endpoints: list[str] = []
    blind: list[str] = []
    cmds = list(info.commands + info.local_commands)
    proxies, blind = _proxy_findings(cmds)
    follows: list[str] = []
    for ep in _fed_code_endpoints(cmds):
        if ep not in proxies:
            proxies.append(ep)
    for cmd in cmds:
        why_f = _command_follows(cmd)
        if why_f and why_f not in follows:
            follows.append(why_f)
        findings.extend(_command_safety(cmd))
        for ep in _command_endpoints(cmd) + proxies:
            if computed(endpoint_host(ep)):
                ep_why = (f"{cmd.program or 'it'} reaches {ep[:40]}, a host computed at "
                          "run time")
                if ep_why not in blind:
                    blind.append(ep_why)
            elif ep not in endpoints:
                endpoints.append(ep)
        for why in _command_blind(cmd) + runtime_hosts(cmd.effective_argv):
            if why not in blind:
                blind.append(why)
    for ep in endpoints:
        findings.append((_UNK, f"reaches {ep} over the network"))
    for why in blind:
        findings.append((_UNK, why))
    findings.extend(_option_injection(info, cmds))
    for note in info.opaque:
        findings.append((_UNK, note))
    if info.parse_error and not info.opaque:
        findings.append((_UNK, "the command does not parse cleanly"))
    eps = tuple(endpoints)
    if not findings:
        return Safety("read-only", ("the command is empty",))
    worst = max(sev for sev, _ in findings)
    if worst == _RO:
        progs = []
        for cmd in info.commands + info.local_commands:
            p = cmd.program or "assignment"
            if p not in progs:
                progs.append(p)
        return Safety("read-only", (f"only read-only commands: {', '.join(progs)}",), eps,
                      follows=tuple(follows))
    reasons: list[str] = []
    for sev in range(worst, _RO, -1):
        for s, why in findings:
            if s == sev and why not in reasons:
                reasons.append(why)
    return Safety(SAFETY_CLASSES[worst], tuple(reasons), eps, tuple(blind), tuple(follows))
