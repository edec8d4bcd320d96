"""Hosts a command builds at run time: refused by replay whatever ``--allow`` says.

Replay reaches a recorded host only through the host map, and the host map is keyed
by the host the text names.  When the text does not name it -- ``H=10.1.230.174; scp
x root@$H:``, ``rsync -a . "$DEST"``, ``git clone "$URL"``, ``http GET $URL``,
``psql "$DSN"``, ``DOCKER_HOST=$H docker info`` -- nobody can check it against the
map: the value is whatever the shell (or the target's environment) holds when the
step runs.  Such a step is *blind* (:attr:`Safety.blind`): refused with the reason,
even with ``--allow``, unless it is an ssh whose computed destination the user maps
explicitly (``--host-map '$H=TARGET'``, :mod:`kb.replay.plan`).

A word is *computed* when it holds a parameter expansion or command substitution
(``$``, a backquote) or a glob or brace the shell expands (``*``, ``?``, ``{a,b}``).
Each rule reads the host position of one family of clients: the operands of the
copy tools that take ``HOST:PATH`` (scp, rsync, sshfs), the repository of git's
network subcommands, the URL of httpie and aria2c, the URI of database clients, and
variables that tell a client its server.  Pure.
"""

from __future__ import annotations

import re

from logparse.shell.argv import _basename, _names

_COMPUTED = re.compile(r"[$`*?]|\{[^{},]*,")  # a brace list: `{` then `,` before `}`


def computed(word: str) -> bool:
    """Whether the shell builds ``word`` when the step runs (``$H``, `` `cat h` ``,
    ``h*``, ``{a,b}``): the text does not say what it will be."""
    return _COMPUTED.search(word) is not None


def _host_part(word: str) -> str:
    """The part of an operand or URL that can name a host: after a scheme's ``://``, up
    to the first ``/`` (``$D/x`` can be ``h:/x``; ``/srv/$D`` and ``./$D`` are local
    paths; ``http://$H/p`` names its host in ``$H``)."""
    return word.split("://", 1)[-1].split("/", 1)[0]


#: Options that take the next word as their value, per copy tool (so it is no operand).
_COPY_VALUES: dict[str, frozenset[str]] = {
    "scp": _names("-c -D -F -i -J -l -o -P -S -X"),
    "sshfs": _names("-o -p -F"),
    "rsync": _names(
        "-e --rsh --rsync-path -f --filter --exclude --include --exclude-from "
        "--include-from --files-from -T --temp-dir --partial-dir --compare-dest "
        "--copy-dest --link-dest --backup-dir --suffix --chmod --chown --usermap "
        "--groupmap --timeout --contimeout --port --address --sockopts --out-format "
        "--log-file --log-file-format --max-size --min-size --bwlimit -B --block-size "
        "--password-file --max-delete --modify-window --iconv --checksum-choice "
        "--compress-choice --compress-level --skip-compress --info --debug --protocol "
        "--write-batch --read-batch --only-write-batch -M --remote-option --stop-after "
        "--stop-at --outbuf --max-alloc --early-input --zc --cc"),
}

#: git subcommands that contact the repository their first operand names.
_GIT_REMOTE_FIRST = _names("clone fetch pull push ls-remote")
#: Options of those subcommands that take the next word as their value.
_GIT_VALUES = _names(
    "-o --origin -b --branch -u --upload-pack --receive-pack --exec --reference "
    "--reference-if-able --separate-git-dir --depth --shallow-since --shallow-exclude "
    "-c --config --template -j --jobs --filter --server-option --bundle-uri "
    "--ref-format --negotiation-tip --deepen --recurse-submodules-default --refmap "
    "--push-option --repo -s --strategy -X --strategy-option --cleanup --gpg-sign "
    "--signed --force-with-lease")
_GIT_GLOBAL_VALUES = _names("-C -c --git-dir --work-tree --namespace --super-prefix "
                            "--config-env --exec-path")

#: Database clients whose operands (or the option named) can be a URI or conninfo.
_DB_URI_OPERAND = _names("psql pg_dump pg_dumpall pg_restore pg_isready createdb dropdb "
                         "vacuumdb reindexdb clusterdb pgbench mongo mongosh mongodump "
                         "mongorestore mongoexport mongostat mongotop")
_DB_URI_OPTIONS = {
    **dict.fromkeys(("psql", "pg_dump", "pg_dumpall", "pg_restore", "pg_isready",
                     "createdb", "dropdb", "vacuumdb", "reindexdb", "clusterdb", "pgbench"),
                    _names("-d --dbname -h --host")),
    **dict.fromkeys(("mongo", "mongosh", "mongodump", "mongorestore", "mongoexport",
                     "mongostat", "mongotop"), _names("--host --uri")),
    **dict.fromkeys(("redis-cli", "valkey-cli", "redis-benchmark"), _names("-u -h")),
    **dict.fromkeys(("mysql", "mariadb", "mysqladmin", "mysqldump", "mysqlshow",
                     "mysqlcheck"), _names("-h --host")),
    "clickhouse-client": _names("-h --host"),
    "openssl": _names("-connect -host"),
}
#: Database client options that take a value but name no server (their value is no
#: operand): ``psql -c SQL``, ``-f FILE``, ``-U USER``...
_DB_VALUES = _names("-c --command -f --file -U --username -o --output -v --set "
                    "--variable -L --log-file -F --field-separator -R --record-separator "
                    "-P --pset -T --table-attr --eval -a -n --schema -t -j --jobs "
                    "-W --password -s --sleep -p --port")
#: psql's options that take no value, which a cluster joins before one that does
#: (``psql -tAc 'SELECT count(*) FROM t'``: the SQL is ``-c``'s value, no operand).
_DB_FLAGS = frozenset("aAbeEHlnqsStxXwWz01")


def _cluster_tail(word: str, flags: frozenset[str]) -> str | None:
    """The option ending a cluster of value-less ``flags`` (``-tAc`` -> ``-c``)."""
    if len(word) > 2 and word[0] == "-" and word[1] != "-" and all(
            c in flags for c in word[1:-1]):
        return "-" + word[-1]
    return None

#: Clients whose operands are URLs (httpie: an optional METHOD first).
_URL_OPERAND = _names("http https httpie aria2c")

#: Package managers' options naming the index or registry they fetch from.
_INDEX_OPTIONS = {
    **dict.fromkeys(("pip", "pip3", "uv", "pipx", "poetry", "pdm"),
                    _names("-i --index-url --extra-index-url --index -f --find-links "
                           "--trusted-host --proxy --default-index")),
    **dict.fromkeys(("npm", "npx", "yarn", "pnpm", "bun"), _names("--registry --proxy "
                                                                   "--https-proxy")),
    "cargo": _names("--index --registry"),
    "gem": _names("--source -s --clear-sources --http-proxy -p"),
}

#: Variables that tell a client which server to reach (``DOCKER_HOST``, ``PGHOST``).
HOST_VARIABLES = _names("DOCKER_HOST CONTAINER_HOST PGHOST PGHOSTADDR MYSQL_HOST "
                        "VAULT_ADDR CONSUL_HTTP_ADDR NOMAD_ADDR ETCDCTL_ENDPOINTS "
                        "DATABASE_URL REDIS_URL MONGODB_URI")


def _operands(words: tuple[str, ...], values: frozenset[str],
              flags: frozenset[str] = frozenset()) -> list[str]:
    """The operands of ``words`` (after the program), skipping option values (also of
    an option ending a cluster of value-less ``flags``)."""
    out: list[str] = []
    skip = False
    only = False
    for w in words:
        if skip:
            skip = False
            continue
        if only or not w.startswith("-") or w == "-":
            out.append(w)
        elif w == "--":
            only = True
        elif w in values or _cluster_tail(w, flags) in values:
            skip = True
    return out


def runtime_hosts(eff: tuple[str, ...]) -> list[str]:
    """Why the host a command reaches is computed at run time (empty: the text names it
    or names none).  ``eff`` is the command's effective argv."""
    if not eff:
        return []
    prog = _basename(eff[0])
    args = eff[1:]
    out: list[str] = []
    if prog in _COPY_VALUES:
        for w in _operands(args, _COPY_VALUES[prog]):
            if computed(_host_part(w)):
                out.append(f"{prog}'s operand {w[:40]} is computed at run time (it can "
                           "be HOST:PATH)")
                break
    elif prog == "git":
        k = 1
        while k < len(eff) and eff[k].startswith("-"):
            k += 2 if eff[k] in _GIT_GLOBAL_VALUES else 1
        sub = eff[k] if k < len(eff) else ""
        rest = eff[k + 1:]
        target: str | None = None
        if sub in _GIT_REMOTE_FIRST:
            ops = _operands(rest, _GIT_VALUES)
            target = ops[0] if ops else None
        elif sub == "submodule" and rest[:1] == ("add",):
            ops = _operands(rest[1:], _GIT_VALUES)
            target = ops[0] if ops else None
        for w in rest:
            if w.startswith(("--remote=", "--repo=")):
                target = w.split("=", 1)[1]
        if target is not None and computed(_host_part(target)):
            out.append(f"git {sub} reaches the repository {target[:40]}, which is computed "
                       "at run time")
    elif prog in _URL_OPERAND:
        ops = _operands(args, frozenset())
        if prog != "aria2c" and ops and re.fullmatch(r"[A-Z]+", ops[0]):
            ops = ops[1:]  # httpie's METHOD
        urls = ops if prog == "aria2c" else ops[:1]
        for w in urls:
            if computed(_host_part(w)):
                out.append(f"{prog}'s URL {w[:40]} is computed at run time")
                break
    if prog in _INDEX_OPTIONS or (prog == "python" or prog.startswith("python3")) and (
            "pip" in args[:2]):
        names = _INDEX_OPTIONS.get(prog, _INDEX_OPTIONS["pip"])
        for i, w in enumerate(args):
            name, eq, v = w.partition("=")
            val = args[i + 1] if w in names and i + 1 < len(args) else (
                v if eq and name in names else None)
            if val is not None and computed(_host_part(val)):
                out.append(f"{prog} {name} {val[:40]} names a package index computed at "
                           "run time")
                break
    if prog in _DB_URI_OPTIONS:
        names = _DB_URI_OPTIONS[prog]
        vals: list[str] = []
        for i, w in enumerate(args):
            name, eq, v = w.partition("=")
            if (w in names or _cluster_tail(w, _DB_FLAGS) in names) and i + 1 < len(args):
                vals.append(args[i + 1])
            elif eq and name in names:
                vals.append(v)
            elif len(w) > 2 and w[:2] in names and not w.startswith("--"):
                vals.append(w[2:])
        if prog in _DB_URI_OPERAND:
            vals += _operands(args, _DB_VALUES | names, _DB_FLAGS)
        for v in vals:
            if computed(v):
                out.append(f"{prog} connects to {v[:40]}, which is computed at run time")
                break
    return out


def runtime_host_variable(name: str, value: str) -> str | None:
    """Why setting ``name`` to ``value`` sends a client to a host computed at run time."""
    scheme, sep, rest = value.partition("://")
    if (sep and scheme.lower() in ("unix", "npipe")) or value.startswith("/"):
        return None  # a socket or a socket directory (PGHOST=/run/postgresql)
    if name in HOST_VARIABLES and computed(value):
        return f"sets {name} to a value computed at run time (where a client connects)"
    return None
