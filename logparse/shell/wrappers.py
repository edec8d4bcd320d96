"""Wrapper stripping: finding the command behind ``sudo``, ``env``, ``timeout``...

``_strip_wrappers`` (cached) walks past leading assignments and wrapper
programs (``sudo``, ``doas``, ``nohup``, ``timeout DUR``, ``env``, ``nice``,
``time``, ``taskset``, ``numactl``, ``sshpass``, ``uv run``, ``conda run``
...), each read with its own option rules, and returns the index of the
effective command, the wrappers it stripped and the files the wrappers write
(``time -o``).  It backs :attr:`SimpleCommand.effective_argv`, the walker's
detection of code strings and ssh calls, and both classifiers, so it sits
below the data model with nothing but :mod:`.argv` beneath it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable

from logparse.shell.argv import _basename, _is_assignment, _names, _skip_options

# ---------------------------------------------------------------------------
# Wrapper stripping
# ---------------------------------------------------------------------------


def _wrapper_sudo(argv: tuple[str, ...], i: int) -> int:
    i = _skip_options(
        argv,
        i,
        with_arg="ugpCDrtUTRh",
        long_with_arg=_names(
            "--user --group --prompt --close-from --chdir --role --type --other-user "
            "--command-timeout --host --chroot"
        ),
        stop="elvVKh",
        long_stop=frozenset({"--edit", "--list", "--validate", "--version", "--help"}),
    )
    while 0 <= i < len(argv) and _is_assignment(argv[i]):
        i += 1
    return i


def _wrapper_env(argv: tuple[str, ...], i: int) -> int:
    i = _skip_options(
        argv,
        i,
        with_arg="uCP",
        long_with_arg=frozenset({"--unset", "--chdir"}),
        stop="S",
        long_stop=frozenset({"--split-string", "--help", "--version"}),
    )
    while 0 <= i < len(argv) and (argv[i] == "-" or _is_assignment(argv[i])):
        i += 1
    return i


def _wrapper_timeout(argv: tuple[str, ...], i: int) -> int:
    i = _skip_options(argv, i, with_arg="sk", long_with_arg=frozenset({"--signal", "--kill-after"}))
    return i + 1 if 0 <= i < len(argv) else i  # the duration


def _wrapper_nice(argv: tuple[str, ...], i: int) -> int:
    n = len(argv)
    while i < n:
        a = argv[i]
        if a == "--":
            return i + 1
        if a in ("-n", "--adjustment"):
            i += 2
        elif a.startswith("--adjustment=") or (a.startswith("-n") and len(a) > 2):
            i += 1
        elif len(a) > 1 and a[0] == "-" and a[1:].lstrip("-").isdigit():
            i += 1  # nice -10 cmd
        elif a.startswith("-") and len(a) > 1:
            return -1
        else:
            return i
    return i


def _wrapper_time(argv: tuple[str, ...], i: int) -> int:
    return _skip_options(argv, i, with_arg="of", long_with_arg=frozenset({"--output", "--format"}))


def _wrapper_taskset(argv: tuple[str, ...], i: int) -> int:
    i = _skip_options(argv, i, stop="p", long_stop=frozenset({"--pid", "--help", "--version"}))
    return i + 1 if 0 <= i < len(argv) else i  # the mask / cpu list


def _wrapper_numactl(argv: tuple[str, ...], i: int) -> int:
    return _skip_options(
        argv,
        i,
        with_arg="imNCPpw",
        long_with_arg=frozenset(
            {
                "--interleave",
                "--membind",
                "--cpunodebind",
                "--physcpubind",
                "--preferred",
                "--preferred-many",
                "--weighted-interleave",
            }
        ),
        stop="Hs",
        long_stop=frozenset({"--hardware", "--show", "--help"}),
    )


def _wrapper_command(argv: tuple[str, ...], i: int) -> int:
    return _skip_options(argv, i, stop="vV")


def _simple(
    with_arg: str = "",
    long_with_arg: tuple[str, ...] = (),
    stop: str = "",
    long_stop: tuple[str, ...] = (),
) -> Callable[[tuple[str, ...], int], int]:
    lwa, ls = frozenset(long_with_arg), frozenset(long_stop)

    def f(argv: tuple[str, ...], i: int) -> int:
        return _skip_options(argv, i, with_arg, lwa, stop, ls)

    return f


_WRAPPERS = {
    "sudo": _wrapper_sudo,
    "doas": _simple(with_arg="uC", stop="L"),
    "nohup": _simple(long_stop=("--help", "--version")),
    "timeout": _wrapper_timeout,
    "env": _wrapper_env,
    "nice": _wrapper_nice,
    "ionice": _simple(
        with_arg="cn",
        long_with_arg=("--class", "--classdata"),
        stop="p",
        long_stop=("--pid", "--pgid", "--uid"),
    ),
    "time": _wrapper_time,
    "stdbuf": _simple(with_arg="ioe", long_with_arg=("--input", "--output", "--error")),
    "exec": _simple(with_arg="a"),
    "command": _wrapper_command,
    "builtin": _simple(),
    "setsid": _simple(),
    "taskset": _wrapper_taskset,
    "numactl": _wrapper_numactl,
    "sshpass": _simple(with_arg="pfdP"),
    "unbuffer": _simple(),
    "coproc": _simple(),
}

_UV_RUN_ARGS = _names(
    "--with --with-requirements --with-editable --python --project --directory --package "
    "--extra --group --index --index-url --extra-index-url --env-file"
)
_CONDA_RUN_ARGS = frozenset({"--name", "--prefix", "--cwd"})


@functools.lru_cache(maxsize=16384)
def _strip_wrappers(argv: tuple[str, ...]) -> tuple[int, tuple[str, ...], tuple[str, ...]]:
    """Return ``(index of the effective command, wrappers, files written by wrappers)``."""
    i = 0
    n = len(argv)
    wrappers: list[str] = []
    writes: list[str] = []
    while i < n and _is_assignment(argv[i]):
        i += 1
    for _ in range(32):
        if i >= n:
            break
        prog = _basename(argv[i])
        nxt = -1
        name = prog
        if prog in _WRAPPERS:
            nxt = _WRAPPERS[prog](argv, i + 1)
            if prog == "time":
                for k in range(i + 1, nxt if nxt > 0 else n):
                    a = argv[k]
                    if a in ("-o", "--output") and k + 1 < n:
                        writes.append(argv[k + 1])
                    elif a.startswith("--output="):
                        writes.append(a.split("=", 1)[1])
                    elif a.startswith("-o") and len(a) > 2:
                        writes.append(a[2:])
        elif prog == "uv" and i + 1 < n and argv[i + 1] == "run":
            nxt = _skip_options(argv, i + 2, with_arg="p", long_with_arg=_UV_RUN_ARGS)
            name = "uv run"
        elif prog in ("conda", "mamba", "micromamba") and i + 1 < n and argv[i + 1] == "run":
            nxt = _skip_options(argv, i + 2, with_arg="np", long_with_arg=_CONDA_RUN_ARGS)
            name = f"{prog} run"
        else:
            break
        if nxt < 0 or nxt >= n:
            break  # the wrapper is the command (sudo -i, env, time alone)
        wrappers.append(name)
        i = nxt
    return i, tuple(wrappers), tuple(writes)
