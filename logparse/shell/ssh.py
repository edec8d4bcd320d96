"""OpenSSH command-line parsing, shared by everything that meets an ``ssh`` argv.

``_parse_ssh_argv`` reads ``ssh ...`` with ssh's own getopt rules (clustered
and attached options, ``--``, options after the destination, ``-o Key=Value``,
``ssh://user@host:port``, first value wins) and returns the destination, user,
port, identity, the options in argv form and where the remote command starts;
``_ssh_option_kv`` splits an ``-o`` argument the way ssh's config parser does.
It is a leaf that knows nothing about tree-sitter, so the data model
(``SshCall.jump``), the walker, the wrapper-chain detection and the safety
rules all share one reading of ssh's command line.
"""

from __future__ import annotations

# ---------------------------------------------------------------------------
# ssh option parsing (OpenSSH getopt)
# ---------------------------------------------------------------------------

_SSH_ARG_OPTS = frozenset("BbcDEeFIiJLlmOoPpQRSWw")


def _ssh_option_kv(arg: str) -> tuple[str, str]:
    """Split an ``-o`` argument the way ssh's config parser does."""
    arg = arg.strip()
    k = 0
    while k < len(arg) and arg[k] not in "= \t":
        k += 1
    key = arg[:k].lower()
    value = arg[k:].lstrip(" \t")
    if value.startswith("="):
        value = value[1:].lstrip(" \t")
    return key, value


def _port(value: str | None) -> int | None:
    if value and value.isdigit() and len(value) <= 5 and 0 < int(value) < 65536:
        return int(value)
    return None


class _SshArgs:
    __slots__ = (
        "host",
        "user",
        "port",
        "identity",
        "options",
        "host_idx",
        "cmd_idx",
        "oconfig",
    )
    host: str
    user: str | None
    port: int | None
    identity: str | None
    options: tuple[str, ...]
    host_idx: int
    cmd_idx: int
    oconfig: dict[str, str]


def _parse_ssh_argv(argv: tuple[str, ...] | list[str]) -> _SshArgs | None:
    """Parse ``ssh ...`` (``argv[0]`` is ssh).  ``None`` when there is no destination."""
    n = len(argv)
    res = _SshArgs()
    res.user = res.port = res.identity = None
    res.oconfig = {}
    opts: list[str] = []
    state = {"terminated": False}

    def handle(ch: str, arg: str) -> None:
        opts.append("-" + ch)
        opts.append(arg)
        if ch == "l":
            if res.user is None:
                res.user = arg
        elif ch == "p":
            if res.port is None:
                res.port = _port(arg)
        elif ch == "i":
            if res.identity is None:
                res.identity = arg
        elif ch == "o":
            key, value = _ssh_option_kv(arg)
            res.oconfig.setdefault(key, value)
            if key == "user" and res.user is None:
                res.user = value
            elif key == "port" and res.port is None:
                res.port = _port(value)
            elif key == "identityfile" and res.identity is None:
                res.identity = value

    def getopt(i: int) -> int:
        while i < n:
            a = argv[i]
            if a == "--":
                state["terminated"] = True
                return i + 1
            if len(a) < 2 or a[0] != "-":
                return i
            j = 1
            step = 1
            while j < len(a):
                ch = a[j]
                if ch in _SSH_ARG_OPTS:
                    if j + 1 < len(a):
                        handle(ch, a[j + 1 :])
                    elif i + 1 < n:
                        handle(ch, argv[i + 1])
                        step = 2
                    else:
                        opts.append("-" + ch)  # missing argument: ssh would fail
                    break
                opts.append("-" + ch)
                j += 1
            i += step
        return i

    i = getopt(1)
    if i >= n or not argv[i]:
        return None
    dest = argv[i]
    res.host_idx = i
    if dest.startswith("ssh://"):
        authority = dest[6:].split("/", 1)[0]
        userinfo, at, hostport = authority.rpartition("@")
        if at and userinfo and res.user is None:
            res.user = userinfo.split(";", 1)[0]
        if hostport.startswith("["):
            close = hostport.find("]")
            host = hostport[1:close] if close > 0 else hostport[1:]
            rest = hostport[close + 1 :] if close > 0 else ""
        else:
            host, _, rest = hostport.partition(":")
            rest = ":" + rest if _ else ""
        if rest.startswith(":") and res.port is None:
            res.port = _port(rest[1:])
        res.host = host
    else:
        user, at, host = dest.rpartition("@")
        if at and user and res.user is None:
            res.user = user
        res.host = host if at else dest
    i += 1
    if i < n and not state["terminated"]:
        i = getopt(i)
    res.cmd_idx = i
    res.options = tuple(opts)
    return res
