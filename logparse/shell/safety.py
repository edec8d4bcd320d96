"""Safety: whether re-running a command is read-only, a launch, mutating or unknown.

:func:`classify_safety` collects findings for every simple command of a
:class:`ShellInfo` (``_command_safety``: redirections, variables that run
code, wrappers such as ``nohup``, backgrounding) plus every opaque part, and
the worst severity wins.  ``_program_safety`` holds the per-program rules,
with the read-only and mutating program tables beside it; the long subcommand
rules for git, package managers and containers live in :mod:`.subcommands`.
It reads only finished :class:`ShellInfo` values and never imports the
parser or the walker.
"""

from __future__ import annotations

from logparse.shell.argv import _basename, _is_assignment, _names
from logparse.shell.model import SAFETY_CLASSES, Safety, ShellInfo, SimpleCommand
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
    _follow_reason,
    _fuser_kills,
    _is_benchmark,
    _is_python,
    _nvidia_smi_mutation,
    _python_invocation,
    _server_reason,
    _shell_invocation,
    _stdin_redirect,
    _tar_mode,
    _write_verdict,
    _xargs_target,
)
from logparse.shell.pycode import _py_code, _python_code_of
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
)
from logparse.shell.wrappers import _strip_wrappers

# ---------------------------------------------------------------------------
# Safety
# ---------------------------------------------------------------------------

_RO_PROGRAMS = _names(
    "grep egrep fgrep zgrep ag ack cat zcat bat head less more ls ll tree wc cut tr jq yq "
    "which whereis type df du free ps pgrep pidof nproc lscpu lspci lsblk lsmod lsusb "
    "lsof id whoami groups stat file diff cmp md5sum sha1sum sha224sum sha256sum "
    "sha384sum sha512sum b2sum cksum realpath readlink basename dirname test [ [[ true "
    "false : sleep cd pushd popd dirs export declare typeset local readonly unset set "
    "shopt pwd echo printf uname uptime getconf locale arch tty logname users who w "
    "column nl rev tac fold fmt paste expand unexpand strings nm objdump readelf ldd xxd "
    "od hexdump ss netstat ibv_devinfo ibv_devices ibstat ibstatus printenv seq wait exit "
    "return break continue shift read mapfile readarray ulimit umask hash compgen jobs "
    "history unalias getent ompi_info ucx_info sensors iostat vmstat mpstat pidstat expr "
    "bc dc let comm join look numfmt ts timeout nohup time eval trap nice pstree lslogins "
    "last dmidecode nvidia-debugdump clear reset tput yes fc-list locate apropos man info "
    "whatis help cal factor env xargs builtin exec command stdbuf setsid ionice taskset "
    "numactl unbuffer true sshpass coproc diff3 sdiff zdiff zless zmore bzcat xzcat "
    "lz4cat zstdcat gzcat uniq sort tee mktemp rg awk gawk mawk sed find fd fdfind tail "
    "date hostname dmesg journalctl top ip ifconfig sysctl crontab ldconfig kill fuser "
    "nvidia-smi nvcc git ssh watch su sudo doas source ."
)
"""Programs with a handler or allowed outright (the handler can still raise the severity)."""

_MUT_PROGRAMS = {
    "rm": "deletes files",
    "rmdir": "deletes directories",
    "unlink": "deletes files",
    "shred": "destroys files",
    "mv": "moves files",
    "cp": "copies files",
    "mkdir": "creates directories",
    "touch": "creates or touches files",
    "chmod": "changes file permissions",
    "chown": "changes file ownership",
    "chgrp": "changes file groups",
    "chattr": "changes file attributes",
    "setfacl": "changes file ACLs",
    "ln": "creates links",
    "truncate": "truncates files",
    "install": "installs files",
    "rsync": "copies files",
    "scp": "copies files",
    "sftp": "transfers files",
    "pkill": "kills processes",
    "killall": "kills processes",
    "xkill": "kills windows",
    "reboot": "reboots the machine",
    "shutdown": "shuts the machine down",
    "poweroff": "powers the machine off",
    "halt": "halts the machine",
    "init": "changes the run level",
    "telinit": "changes the run level",
    "mount": "mounts file systems",
    "umount": "unmounts file systems",
    "swapon": "changes swap",
    "swapoff": "changes swap",
    "useradd": "changes users",
    "userdel": "changes users",
    "usermod": "changes users",
    "groupadd": "changes groups",
    "groupdel": "changes groups",
    "passwd": "changes passwords",
    "chpasswd": "changes passwords",
    "chsh": "changes login shells",
    "visudo": "edits sudoers",
    "modprobe": "loads kernel modules",
    "insmod": "loads kernel modules",
    "rmmod": "unloads kernel modules",
    "ufw": "changes the firewall",
    "nft": "changes the firewall",
    "iptables": "changes the firewall",
    "ip6tables": "changes the firewall",
    "patch": "patches files",
    "zip": "writes an archive",
    "mkfifo": "creates a fifo",
    "mknod": "creates a device node",
    "wipefs": "wipes file systems",
    "fdisk": "partitions disks",
    "parted": "partitions disks",
    "sgdisk": "partitions disks",
    "update-alternatives": "changes system alternatives",
    "add-apt-repository": "changes package sources",
    "apt-key": "changes package keys",
    "sudoedit": "edits files",
    "ssh-keygen": "writes ssh keys",
    "ssh-copy-id": "installs ssh keys",
    "at": "schedules commands",
    "batch": "schedules commands",
    "tc": "changes traffic control",
    "renice": "changes process priorities",
    "chrt": "changes scheduling",
    "dpkg-reconfigure": "reconfigures packages",
    "dkms": "builds kernel modules",
}


def _program_safety(cmd: SimpleCommand, prog: str, eff: tuple[str, ...]) -> list[tuple[int, str]]:
    """Severity and reasons for one effective command (redirections excluded)."""
    args = eff[1:]
    out: list[tuple[int, str]] = []
    name = eff[0]
    if not prog or "$" in name or "`" in name:
        return [(_UNK, f"the command name {name!r} is computed at run time")]

    server = _server_reason(prog, eff, strict=True)
    if server:
        return [(_LAUNCH, server)]

    pip = _pip_like(prog, eff)
    if pip is not None:
        sub = pip[0]
        label = (
            "pip" if prog.startswith("pip") else ("uv pip" if prog == "uv" else f"{prog} -m pip")
        )
        if sub in (
            "show",
            "list",
            "freeze",
            "check",
            "index",
            "inspect",
            "version",
            "help",
            "debug",
            "search",
            "tree",
        ):
            return [(_RO, f"{label} {sub} only reads")]
        if sub in _PIP_WRITE or sub in ("cache", "config"):
            return [(_MUT, f"{label} {sub} changes installed packages or files")]
        return [(_UNK, f"{label} {sub or '(no subcommand)'} is not recognised")]

    if _is_python(prog):
        mode, code = _python_code_of(cmd, eff)
        if mode in ("c", "heredoc"):
            ok, _imports, safe = _py_code(code or "")
            where = "-c code" if mode == "c" else "code on stdin"
            if not ok:
                return [(_UNK, f"{prog} {where} does not parse as Python")]
            if safe:
                return [(_RO, f"{prog} {where} only imports and prints")]
            return [(_UNK, f"{prog} {where} does more than import and print")]
        if mode == "version":
            return [(_RO, f"{prog} --version only reads")]
        if mode == "m":
            mod = _python_invocation(eff)[1] or ""
            if mod == "json.tool":
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
        if mode == "c":
            return [(_RO, f"{prog} -c runs the analysed code")] if k is not None else []
        if mode == "script":
            return [(_UNK, f"{prog} runs script {eff[k]}")]
        red = _stdin_redirect(cmd.redirects)
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

    if prog in ("source", "."):
        target = args[0] if args else ""
        if target.endswith("/bin/activate") or target == "activate":
            return [(_RO, f"{prog} {target} activates a virtualenv")]
        return [(_UNK, f"{prog} runs script {target or '(none)'}")]

    if prog == "eval":
        return [(_RO, "eval runs the analysed code")] if args else []

    if prog == "xargs":
        if _xargs_target(eff) is None:
            return [(_UNK, "xargs with no command")]
        return [(_RO, "xargs runs the analysed command")]

    if prog in ("find", "fd", "fdfind"):
        for a in args:
            if a == "-delete":
                out.append((_MUT, f"{prog} -delete deletes files"))
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
        opts = parsed.options
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

    if prog == "rg":
        if any(a == "--pre" or a.startswith("--pre=") for a in args):
            return [(_UNK, "rg --pre runs a preprocessor command")]
        return [(_RO, "rg only reads")]

    if prog == "sort":
        for k, a in enumerate(args):
            if a == "-o" or a == "--output":
                v = _write_verdict(args[k + 1] if k + 1 < len(args) else "", "sort -o writes")
                if v:
                    out.append(v)
            elif a.startswith("--output="):
                v = _write_verdict(a.split("=", 1)[1], "sort -o writes")
                if v:
                    out.append(v)
            elif a.startswith("-o") and len(a) > 2:
                v = _write_verdict(a[2:], "sort -o writes")
                if v:
                    out.append(v)
            elif a.startswith("--compress-program"):
                out.append((_UNK, "sort --compress-program runs a command"))
        return out or [(_RO, "sort only reads")]

    if prog == "uniq":
        operands = [a for a in args if not a.startswith("-") or a == "-"]
        if len(operands) >= 2:
            v = _write_verdict(operands[1], "uniq writes")
            if v:
                return [v]
        return [(_RO, "uniq only reads")]

    if prog == "tee":
        for a in args:
            if a.startswith("-") and a != "-":
                continue
            v = _write_verdict(a, "tee writes to")
            if v:
                out.append(v)
        return out or [(_RO, "tee writes only to /tmp or /dev")]

    if prog == "mktemp":
        for k, a in enumerate(args):
            target = None
            if a in ("-p", "--tmpdir") and k + 1 < len(args):
                target = args[k + 1].rstrip("/") + "/x"
            elif a.startswith("--tmpdir="):
                target = a.split("=", 1)[1].rstrip("/") + "/x"
            elif not a.startswith("-") and "/" in a:
                target = a
            if target:
                v = _write_verdict(target, "mktemp creates")
                if v:
                    return [v]
        return [(_RO, "mktemp creates a file in /tmp")]

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

    if prog == "fuser":
        if _fuser_kills(args):
            return [(_MUT, "fuser -k kills processes")]
        return [(_RO, "fuser only reads")]

    if prog == "nvidia-smi":
        mut = _nvidia_smi_mutation(args)
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
        follow = _follow_reason(prog, eff)
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
        if verb in (
            "status",
            "show",
            "cat",
            "is-active",
            "is-enabled",
            "is-failed",
            "list-units",
            "list-unit-files",
            "list-timers",
            "list-sockets",
            "list-dependencies",
            "--version",
            "help",
        ):
            return [(_RO, f"{prog} {verb} only reads")]
        return [(_MUT, f"{prog} {verb} changes system services")]

    if prog in ("tmux", "screen"):
        follow = _follow_reason(prog, eff)
        if follow:
            return [(_LAUNCH, follow)]
        if args and args[0] in (
            "ls",
            "list-sessions",
            "list-windows",
            "list-panes",
            "capture-pane",
            "has-session",
            "-ls",
            "-list",
            "display-message",
        ):
            return [(_RO, f"{prog} {args[0]} only reads")]
        if any(a.startswith("kill-") for a in args) or ("-X" in args and "quit" in args):
            return [(_MUT, f"{prog} kills sessions")]
        if args and args[0] in ("send-keys", "send"):
            return [(_UNK, f"{prog} send-keys types into a session")]
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
            elif a.startswith("-O") and len(a) > 2:
                tgt = a[2:]
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
                return [v] if v else [(_RO, "dd writes only to /tmp or /dev/null")]
        return [(_RO, "dd writes to stdout")]

    if prog in _MUT_PROGRAMS:
        return [(_MUT, f"{prog} {_MUT_PROGRAMS[prog]}")]
    if prog.startswith("mkfs"):
        return [(_MUT, f"{prog} formats a file system")]

    if prog in ("alias",):
        if any("=" in a for a in args):
            return [(_UNK, "alias redefines commands")]
        return [(_RO, "alias only lists aliases")]

    if prog in ("conda", "mamba", "micromamba"):
        return [_package_safety(prog, eff)]

    if prog in ("vim", "vi", "nano", "emacs", "htop", "nvtop", "less"):
        if prog == "less":
            return [(_RO, "less only reads")]
        return [(_UNK, f"{prog} is interactive")]

    if prog in _RO_PROGRAMS:
        return [(_RO, f"{prog} only reads")]

    if (
        args
        and all(a in ("--version", "-V", "--help", "version") for a in args)
        and "/" not in name
    ):
        return [(_RO, f"{prog} {args[0]} only prints information")]
    if _is_benchmark(prog, eff):
        return [(_UNK, f"{prog} runs a benchmark")]
    return [(_UNK, f"{prog} is not a known read-only command")]


_CODE_VARIABLES = _names(
    "BASH_ENV ENV PS1 PS2 PS3 PS4 PROMPT_COMMAND SHELLOPTS BASHOPTS LD_PRELOAD LD_AUDIT "
    "GIT_SSH_COMMAND GIT_SSH GIT_EXTERNAL_DIFF GIT_PAGER GIT_EDITOR GIT_ASKPASS "
    "GIT_CONFIG_PARAMETERS GIT_CONFIG_COUNT GIT_PROXY_COMMAND SSH_ASKPASS SUDO_ASKPASS "
    "PAGER MANPAGER EDITOR VISUAL BROWSER LESSOPEN LESSCLOSE PERL5OPT NODE_OPTIONS "
    "PYTHONSTARTUP TAR_OPTIONS RSYNC_RSH SYSTEMD_PAGER"
)
"""Variables whose value is run as code (or loads code) by the shell or common tools."""


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
        elif r.op == "<" and r.target and ("$" in r.target or "`" in r.target):
            pass
    for t in writes:
        v = _write_verdict(t, "time -o writes")
        if v:
            found.append(v)
    for name in _assigned_names(cmd, idx, eff):
        if name in _CODE_VARIABLES or name.startswith("GIT_CONFIG_"):
            found.append((_UNK, f"sets {name}, which can make programs run other code"))
    if not eff:
        found.append((_RO, "only sets variables"))
        return found
    prog = _basename(eff[0])
    found.extend(_program_safety(cmd, prog, eff))
    if "nohup" in wrappers:
        found.append((_LAUNCH, f"nohup keeps {prog} running after the shell exits"))
    elif "setsid" in wrappers:
        found.append((_LAUNCH, f"setsid detaches {prog} from the shell"))
    if cmd.background and prog not in _TRIVIAL_BG:
        found.append((_LAUNCH, f"{prog} runs in the background (&)"))
    if cmd.via:
        found = [(sev, f"{why} (via {cmd.via})") for sev, why in found]
    return found


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
    for cmd in info.commands + info.local_commands:
        findings.extend(_command_safety(cmd))
    for note in info.opaque:
        findings.append((_UNK, note))
    if info.parse_error and not info.opaque:
        findings.append((_UNK, "the command does not parse cleanly"))
    if not findings:
        return Safety("read-only", ("the command is empty",))
    worst = max(sev for sev, _ in findings)
    if worst == _RO:
        progs = []
        for cmd in info.commands + info.local_commands:
            p = cmd.program or "assignment"
            if p not in progs:
                progs.append(p)
        return Safety("read-only", (f"only read-only commands: {', '.join(progs)}",))
    reasons: list[str] = []
    for sev in range(worst, _RO, -1):
        for s, why in findings:
            if s == sev and why not in reasons:
                reasons.append(why)
    return Safety(SAFETY_CLASSES[worst], tuple(reasons))
