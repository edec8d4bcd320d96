"""The sandbox: the second wall behind classification, built on bubblewrap (``bwrap``).

Classification (:mod:`logparse.shell`) decides *whether* a step runs; the sandbox
limits what a step that runs can do if the classification was wrong.  Every local
step runs as::

    bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp
          --ro-bind CWD CWD [--ro-bind CONTROL_DIR CONTROL_DIR]
          --unshare-net --unshare-pid --unshare-ipc --die-with-parent
          [--cap-drop ALL] --chdir CWD -- bash -c TEXT

* the root file system is read-only (a write fails with EROFS instead of writing);
* ``/tmp`` is private and discarded at the end of the step;
* the recorded working directory is visible read-only;
* there is no network: a fresh namespace with only its own loopback.  A step that
  runs ssh to a mapped target reaches it through the run's connection-sharing
  socket (a Unix socket in the control directory, bound read-only), which is the
  only way out, and only to mapped targets;
* as root, every capability is dropped (otherwise root could remount ``/``).

What a step is allowed to do widens the wall only where it must (:func:`policy`):
a step allowed with ``--allow mutating`` gets the working directory and the real
``/tmp`` read-write (nothing else); a launch (``--allow launch``) gets its launch
directory read-write and no pid namespace (it outlives the step).  Launched and
unknown steps, like all others, get a network namespace of their own (their own
loopback, nothing of the machine's: a server they start is reachable inside it,
where replay checks its port); only ``--allow host-network`` gives them the
machine's network.

On an ssh target the remote command is wrapped the same way when ``bwrap`` exists
there (``--remote-sandbox auto``, the default; ``require`` refuses the step
without it, ``off`` never wraps).  A remote step keeps the network only when it
starts a nested ssh (rewritten through the host map) or is a launch.
"""

from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

REMOTE_MODES = ("auto", "require", "off")

#: Daemon sockets hidden from every sandbox (a read-only bind still lets a process
#: connect to a Unix socket, and these accept commands that change the machine).
_DAEMON_SOCKETS = ("/run/docker.sock", "/var/run/docker.sock", "/run/containerd",
                   "/run/podman", "/run/crio", "/var/run/crio")
#: Sockets of services that run what a client asks outside any sandbox, with the
#: machine's network: systemd and D-Bus (``systemd-run``, ``busctl call … StartUnit``),
#: the user's own bus and systemd (``/run/user``), screen sessions (``screen -X stuff``),
#: PostgreSQL (``COPY … TO PROGRAM``), MySQL, snapd, libvirt, LXD.  Hidden from every
#: step that is not read-only (read-only programs are vetted: ``systemctl status``
#: keeps working); hidden from all, they would break those checks.
_CONTROL_SOCKETS = ("/run/dbus", "/var/run/dbus", "/run/systemd/private",
                    "/run/systemd/userdb", "/run/user", "/run/screen", "/var/run/screen",
                    "/run/postgresql", "/var/run/postgresql", "/run/mysqld",
                    "/var/run/mysqld", "/run/snapd.socket", "/run/snapd-snap.socket",
                    "/run/libvirt", "/var/run/libvirt", "/var/snap/lxd/common/lxd",
                    "/run/lxd", "/run/k3s", "/run/buildkit")
#: What this machine's curl and wget read on their own, none of it in the transcript:
#: ``.curlrc`` (``url``, ``proxy``, ``location``, ``header``, ``netrc`` lines), a
#: ``.wgetrc`` (proxies, headers, ``user``/``password``) and ``.netrc`` (logins sent to
#: whatever host they name).  Masked (``/dev/null``) in every local step that is not
#: read-only, so a replayed client starts from its defaults (netrc14).
_CURL_DIRS = ("CURL_HOME", "XDG_CONFIG_HOME", "~/.config", "~")
_CURL_NAMES = (".curlrc", "curlrc")
#: wget's system-wide file (safe15): ``$SYSTEM_WGETRC`` when it names a file, else the
#: one it was built with (``/etc/wgetrc`` on Debian and Fedora, ``/usr/local/etc/wgetrc``
#: built from source), read before the user's; it can set ``http_proxy``, ``header``,
#: ``user``/``password`` as a ``.wgetrc`` does.  curl reads no system-wide file (its
#: ``.curlrc`` and ``.netrc`` are the home directory's only: strace of curl 7.88).
SYSTEM_WGETRC = ("/etc/wgetrc", "/usr/local/etc/wgetrc")
#: A git command that reaches a remote (safe15), named anywhere in a step (a word scan,
#: as for curl: code handed to another program counts), or a URL git fetches for
#: another program (``pip install git+https://…``).
GIT_NET = re.compile(r"(?<![\w.-])git(?![\w.-])[^\n;&|]{0,200}?(?<![\w-])(?:clone|fetch|pull"
                     r"|push|ls-remote|remote|submodule|archive|lfs|fetch-pack|send-pack)"
                     r"(?![\w-])|(?<![\w.-])git\+[a-z]+://|(?<![\w.-])git://")
#: git's configuration outside a repository: the system's, the user's (both places).
#: ``url.<x>.insteadOf``, ``http.proxy`` and ``credential.helper`` there send a network
#: git command elsewhere or add this machine's stored login to it (safe15).
GIT_SYSTEM_CONFIG = ("/etc/gitconfig", "/usr/local/etc/gitconfig")
_MAX_SCAN = 2000
"""Entries looked at under a /tmp path before binding it (sockets in it are masked)."""


@dataclass(frozen=True)
class Policy:
    """How wide the sandbox of one step is."""

    writable: tuple[str, ...] = ()
    """Paths bound read-write (``--allow mutating``: the working directory and /tmp)."""
    network: bool = False
    """Keep the machine's network namespace (remote steps with a nested ssh; launched and
    unknown steps with ``--allow host-network``)."""
    detached: bool = False
    """No pid namespace: the step's processes outlive it (launches)."""
    visible: tuple[str, ...] = ()
    """Existing paths under /tmp the command names: bound read-only into the private /tmp."""
    vetted: bool = False
    """A read-only step: its programs are vetted, so service sockets stay visible."""
    git_net: bool = False
    """The step runs a network git command (:data:`GIT_NET`): git's configuration
    outside the repository is masked (:func:`git_config_files`, safe15)."""

    def describe(self) -> str:
        bits = ["read-only root", "private /tmp" if "/tmp" not in self.writable
                else "/tmp writable"]
        other = [w for w in self.writable if w != "/tmp"]
        if other:
            bits.append("writable " + ", ".join(other))
        bits.append("network of the machine" if self.network
                    else "own network namespace (own loopback only)")
        return ", ".join(bits)


_TMP_PATH = re.compile(r"/tmp/[A-Za-z0-9._/+=@%:,~-]+")


def tmp_paths(text: str) -> tuple[str, ...]:
    """Paths under /tmp that a command text names (to show them in the private /tmp)."""
    out: list[str] = []
    for m in _TMP_PATH.finditer(text):
        p = os.path.normpath(m.group(0).rstrip(".,:"))
        if p.startswith("/tmp/") and ".." not in p and p not in out:
            out.append(p)
    return tuple(out[:64])


def policy(cls: str, allowed: frozenset[str], *, launch: bool, cwd: str | None,
           text: str = "", nested_ssh: bool = False, remote: bool = False) -> Policy:
    """The sandbox for a step of class ``cls`` that ``allowed`` lets run."""
    writable: tuple[str, ...] = ()
    if cls == "mutating" and "mutating" in allowed:
        writable = tuple(p for p in (cwd, "/tmp") if p)
    host_net = "host-network" in allowed and (launch or cls == "unknown")
    return Policy(writable=writable, network=host_net or (remote and nested_ssh),
                  detached=launch, visible=tmp_paths(text), vetted=cls == "read-only",
                  git_net=GIT_NET.search(text) is not None)


def curl_config_paths(env: Mapping[str, str], homes: Sequence[str]) -> list[str]:
    """Where curl looks for its config file, in its order (``$CURL_HOME``,
    ``$XDG_CONFIG_HOME``, ``~/.config``, the home directory: each of ``homes``), each
    directory with both names (:data:`_CURL_NAMES`); whether they exist is not asked."""
    dirs: list[str] = []
    for d in _CURL_DIRS:
        if d.startswith("~"):
            dirs += [h + d[1:] for h in homes]
        elif env.get(d):
            dirs.append(env[d])
    return [os.path.join(d, n) for d in dirs for n in _CURL_NAMES]


def user_net_config(environ: Mapping[str, str] | None = None) -> list[str]:
    """The files this machine's curl and wget would read for a step started with
    ``environ`` (this process's by default) that exist: each ``.curlrc``/``curlrc`` curl
    looks for (``$CURL_HOME``, ``$XDG_CONFIG_HOME``, ``~/.config``, the home directory),
    ``$WGETRC`` and ``~/.wgetrc``, wget's system-wide file (``$SYSTEM_WGETRC``,
    ``/etc/wgetrc``: :data:`SYSTEM_WGETRC`), ``~/.netrc`` (``$NETRC`` too); the home
    directory is ``$HOME`` and the password database's (the clients fall back to it)."""
    env = os.environ if environ is None else environ
    homes = [h for h in (env.get("HOME"), _pw_home()) if h]
    files = curl_config_paths(env, homes)
    files += [f for f in (env.get("WGETRC"), env.get("NETRC"), env.get("SYSTEM_WGETRC"))
              if f]
    files += list(SYSTEM_WGETRC)
    files += [os.path.join(h, n) for h in homes for n in (".wgetrc", ".netrc")]
    return _existing(files)


def git_config_files(environ: Mapping[str, str] | None = None) -> list[str]:
    """The files outside a repository this machine's git reads for a step started with
    ``environ`` that exist (safe15): ``$GIT_CONFIG_SYSTEM`` or ``/etc/gitconfig``,
    ``$GIT_CONFIG_GLOBAL``, ``~/.gitconfig`` and ``$XDG_CONFIG_HOME/git/config``
    (``~/.config/git/config``), the home directory ``$HOME`` and the password
    database's."""
    env = os.environ if environ is None else environ
    homes = [h for h in (env.get("HOME"), _pw_home()) if h]
    files = [f for f in (env.get("GIT_CONFIG_SYSTEM"), env.get("GIT_CONFIG_GLOBAL")) if f]
    files += list(GIT_SYSTEM_CONFIG)
    files += [os.path.join(h, ".gitconfig") for h in homes]
    xdg = [env["XDG_CONFIG_HOME"]] if env.get("XDG_CONFIG_HOME") else []
    files += [os.path.join(d, "git", "config") for d in xdg + [os.path.join(h, ".config")
                                                              for h in homes]]
    return _existing(files)


def _existing(files: list[str]) -> list[str]:
    """The regular files of ``files`` that exist, made absolute, each once, in order."""
    out: list[str] = []
    for f in files:
        f = os.path.abspath(f)
        if os.path.isfile(f) and f not in out:
            out.append(f)
    return out


def _pw_home() -> str | None:
    import pwd

    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:
        return None


def _sockets_under(path: str) -> list[str] | None:
    """Unix sockets at or under ``path`` (a bounded walk), None when there are too many
    entries to tell.  A socket a step may connect to is a door out of the sandbox (a
    tmux server types what it is sent into a shell outside)."""
    import stat

    try:
        st = os.lstat(path)
    except OSError:
        return []
    if stat.S_ISSOCK(st.st_mode):
        return [path]
    if not stat.S_ISDIR(st.st_mode):
        return []
    found: list[str] = []
    seen = 0
    for root, dirs, files in os.walk(path):
        for name in dirs + files:
            seen += 1
            if seen > _MAX_SCAN:
                return None
            full = os.path.join(root, name)
            try:
                if stat.S_ISSOCK(os.lstat(full).st_mode):
                    found.append(full)
            except OSError:
                continue
    return found


@functools.lru_cache(maxsize=1)
def local_bwrap() -> str | None:
    """The bwrap binary when it works here (a probe run), else None."""
    path = shutil.which("bwrap")
    if path is None:
        return None
    try:
        r = subprocess.run([path, *_base_args(), "--", "true"], stdin=subprocess.DEVNULL,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=20)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return path if r.returncode == 0 else None


def _base_args() -> list[str]:
    args = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-ipc",
            "--unshare-uts"]
    if os.geteuid() == 0:
        args += ["--cap-drop", "ALL"]
    return args


def local_argv(bwrap: str, pol: Policy, cwd: str, argv: list[str], *,
               readonly: tuple[str, ...] = ()) -> list[str]:
    """``argv`` wrapped in bwrap with ``pol``, run in ``cwd``."""
    args = [bwrap, *_base_args()]
    if "/tmp" in pol.writable:
        args += ["--bind", "/tmp", "/tmp"]
    else:
        args += ["--tmpfs", "/tmp"]
    for sock in _DAEMON_SOCKETS:
        if os.path.realpath(sock) != sock:
            continue  # through a symlink (/var/run -> /run): its real path is listed
        if os.path.exists(sock) and not os.path.isdir(sock):
            args += ["--ro-bind", "/dev/null", sock]
        elif os.path.isdir(sock):
            args += ["--tmpfs", sock]
    if not pol.vetted:
        for sock in _CONTROL_SOCKETS:
            if os.path.realpath(sock) != sock:
                continue  # through a symlink (/var/run -> /run): its real path is listed
            if os.path.isdir(sock):
                args += ["--tmpfs", sock]
            elif os.path.exists(sock):
                args += ["--ro-bind", "/dev/null", sock]
    binds: list[str] = []
    masks: list[str] = []
    for p in (cwd, *readonly):
        if p and os.path.exists(p) and p not in binds:
            binds.append(p)
    if cwd and cwd.startswith(("/tmp/", "/run/", "/var/run/", "/dev/shm/")):
        masks.extend(_sockets_under(cwd) or [])  # where servers keep theirs (tmux-UID)
    if not pol.vetted:  # the machine's client configuration (after the binds: on top)
        masks.extend(user_net_config())
        if pol.git_net:  # and git's, for a network git command (safe15)
            masks.extend(git_config_files())
    for p in pol.visible:  # /tmp paths the command names: never a socket in them
        socks = _sockets_under(p) if os.path.exists(p) else None
        if socks is None or p in binds or (socks and socks[0] == p):
            continue
        binds.append(p)
        masks.extend(socks)
    for p in binds:
        args += ["--bind" if p in pol.writable else "--ro-bind", p, p]
    for sock in masks:
        args += ["--ro-bind", "/dev/null", sock]
    for p in pol.writable:
        if p not in binds and p != "/tmp" and os.path.exists(p):
            args += ["--bind", p, p]
    if not pol.network:
        args += ["--unshare-net"]
    if not pol.detached:
        args += ["--unshare-pid", "--die-with-parent"]
    args += ["--chdir", cwd, "--", *argv]
    return args


def remote_wrapper(pol: Policy, mode: str, run: str, *, probed: bool = False,
                   root: bool | None = None) -> str:
    """Shell text for the target: ``run`` (a shell command) inside bwrap when possible.

    ``mode`` ``auto`` runs it unwrapped when the target has no working bwrap,
    ``require`` refuses (exit 126 with a message), ``off`` never wraps;
    ``probed`` skips the check on the target (the executor asked it once already).
    """
    if mode == "off":
        return run
    flags = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-ipc"]
    flags += ["--bind", "/tmp", "/tmp"] if "/tmp" in pol.writable else ["--tmpfs", "/tmp"]
    if not pol.network:
        flags.append("--unshare-net")
    if not pol.detached:
        flags += ["--unshare-pid", "--die-with-parent"]
    fixed = " ".join(shlex.quote(f) for f in flags)
    if pol.visible and "/tmp" not in pol.writable:
        paths = " ".join(shlex.quote(p) for p in pol.visible)
        fixed += ' $v'
        run_v = f'v=; for p in {paths}; do [ -e "$p" ] && v="$v --ro-bind $p $p"; done; '
    else:
        run_v = ""
    hidden = _DAEMON_SOCKETS + (() if pol.vetted else _CONTROL_SOCKETS)
    socks = " ".join(shlex.quote(p) for p in hidden)
    fixed += ' $h'
    # (a path through a symlink, /var/run -> /run, is left to its real path's entry)
    run_v = (f'h=; for p in {socks}; do [ -e "$p" ] || continue; '
             f'[ "$(readlink -f "$p" 2>/dev/null || echo "$p")" = "$p" ] || continue; '
             f'if [ -d "$p" ]; then h="$h --tmpfs $p"; else h="$h --ro-bind /dev/null $p"; '
             f'fi; done; ') + run_v
    # the login directory of an ssh session is the home directory: never writable (a
    # mutating step gets /tmp only, as the plan says), or ~/.bashrc would outlive it
    cwd_bind = '--ro-bind "$PWD" "$PWD"'
    caps = ('c=; [ "$(id -u)" = 0 ] && c="--cap-drop ALL"; ' if root is None
            else ('c="--cap-drop ALL"; ' if root else "c=; "))
    probe = "command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev true " \
            ">/dev/null 2>&1"
    wrapped = f'{caps}{run_v}exec bwrap {fixed} $c {cwd_bind} --chdir "$PWD" -- {run}'
    if probed:
        # the executor found a working bwrap on this target when the run started: the
        # step re-checks it here, now, and is refused (never run unwrapped) when it is
        # gone; whether to drop capabilities is asked now too (the user may differ)
        missing = (f"echo '{BWRAP_GONE} any more (it was when the run started)' >&2; "
                   "exit 126")
    elif mode == "require":
        missing = f"echo '{BWRAP_GONE} (--remote-sandbox require)' >&2; exit 126"
    else:
        missing = f"exec {run}"
    return f"if {probe}; then {wrapped}; else {missing}; fi"


BWRAP_GONE = "logkb: bwrap is not available on this target"
"""What the target prints when a step that must run in bwrap there cannot (exit 126):
replay reports the step refused."""


def refused_on_target(output: str) -> str | None:
    """The refusal a remote wrapper printed (None: it ran)."""
    for line in output.splitlines():
        if line.startswith(BWRAP_GONE):
            return "refused: " + line.removeprefix("logkb: ")
    return None


def remote_probe() -> str:
    """A command that prints ``bwrap uid=N`` on a target where bwrap works, else ``none``."""
    return ("if command -v bwrap >/dev/null 2>&1 && bwrap --ro-bind / / --dev /dev true "
            ">/dev/null 2>&1; then echo \"bwrap uid=$(id -u)\"; else echo none; fi")
