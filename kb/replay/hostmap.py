"""Host maps for ``logkb replay``: where a recorded host's commands run now.

A transcript names the hosts its commands ran on (``ssh root@10.1.230.174
'…'``).  Replay never contacts such a host on its own: every recorded host goes
through a *host map* entry, which names a :class:`Target`:

* ``user@host[:port]`` (``[v6addr]:port`` for IPv6 with a port), or a bare
  ``host[:port]`` (the recorded user is kept), or ``ssh://user@host:port``;
* an ssh config alias (``gpu-box``; ssh resolves it from ``~/.ssh/config``);
* ``local``: run on this machine, without ssh.

Entries come from ``--host-map OLD=NEW`` and from the ``[hosts]`` table of
``~/.config/logkb/config.toml`` (:func:`kb.paths.config_file`)::

    [hosts]
    "10.1.230.174" = "gpu-staging"              # just the target

    [hosts."root@10.1.230.175"]                 # a key may carry the user
    target = "root@127.0.0.1:2222"
    identity = "~/.ssh/replay_key"              # ssh -i
    options = ["StrictHostKeyChecking=yes",     # ssh -o, for this target
               "UserKnownHostsFile=~/.ssh/known_hosts.replay"]

``--host-map`` wins over the file for the same key.  A target named on the
command line picks up ``identity``/``options`` from a config entry whose
``target`` is the same string, so a key can live in the file while the mapping
is chosen per run.  A recorded host with no entry is *unmapped*: the plan
refuses its steps until the user maps it or confirms it explicitly
(``--host-map H=H``, ``--yes`` or a yes on a terminal).

This module is pure (parsing only; reading the config file is the only I/O).
"""

from __future__ import annotations

import ipaddress
import re
import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

LOCAL = "local"

_HOST = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.%-]*$")
_USER = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
_OPTION = re.compile(r"^[A-Za-z][A-Za-z0-9]*[= ]\S.*$")


class HostMapError(ValueError):
    """A host map entry or the config file could not be understood."""


@dataclass(frozen=True)
class Target:
    """Where replayed commands run: an ssh destination or this machine."""

    kind: str  # "ssh" | "local"
    host: str = ""
    user: str | None = None
    port: int | None = None
    identity: str | None = None
    options: tuple[str, ...] = ()
    """ssh ``-o`` options (``Key=Value``) for this target."""
    spec: str = ""
    """The target as written."""

    @property
    def is_local(self) -> bool:
        return self.kind == "local"

    @property
    def label(self) -> str:
        if self.is_local:
            return LOCAL
        host = f"[{self.host}]" if ":" in self.host and self.port else self.host
        return (f"{self.user}@" if self.user else "") + host + (
            f":{self.port}" if self.port else "")

    @property
    def destination(self) -> str:
        """What ssh gets as its destination word (the port goes in ``-p``)."""
        return f"{self.user}@{self.host}" if self.user else self.host

    def ssh_options(self) -> list[str]:
        """The ssh argv options that reach this target (``-p``, ``-i``, ``-o``)."""
        opts: list[str] = []
        if self.port:
            opts += ["-p", str(self.port)]
        if self.identity:
            opts += ["-i", self.identity]
        for o in self.options:
            opts += ["-o", o]
        return opts

    def with_user(self, user: str | None) -> Target:
        """This target with the recorded user when the map did not name one."""
        if self.is_local or self.user or not user:
            return self
        return replace(self, user=user)


@dataclass(frozen=True)
class HostEntry:
    """One host-map entry: the recorded key, its target and where it came from."""

    key: str
    target: Target
    source: str  # "--host-map" | "config" | "confirmed"

    @property
    def identity(self) -> bool:
        """True when the entry maps the recorded host to itself (an explicit confirmation)."""
        t = self.target
        key_host = self.key.rpartition("@")[2]
        return not t.is_local and t.host == key_host and t.port is None


def parse_target(spec: str, *, identity: str | None = None,
                 options: Iterable[str] = ()) -> Target:
    """Parse ``user@host[:port]``, ``host``, an ssh alias, ``ssh://…`` or ``local``."""
    s = spec.strip()
    if not s:
        raise HostMapError("empty target")
    opts = tuple(_check_option(o) for o in options)
    if s == LOCAL:
        return Target("local", spec=s)
    if s.startswith("ssh://"):
        s = s[len("ssh://"):].rstrip("/")
    user, at, rest = s.rpartition("@")
    if not at:
        user, rest = "", s
    elif not user:
        raise HostMapError(f"bad target {spec!r}: empty user")
    port: int | None = None
    if rest.startswith("["):
        host, close, tail = rest[1:].partition("]")
        if not close:
            raise HostMapError(f"bad target {spec!r}: unclosed [")
        if tail:
            if not tail.startswith(":"):
                raise HostMapError(f"bad target {spec!r}")
            port = _port(tail[1:], spec)
        _check_ip6(host, spec)
    elif rest.count(":") == 1:
        host, _, p = rest.partition(":")
        port = _port(p, spec)
    elif rest.count(":") > 1:
        host = rest
        _check_ip6(host, spec)
    else:
        host = rest
    if ":" not in host and not _HOST.match(host):
        raise HostMapError(f"bad host in target {spec!r}")
    if user and not _USER.match(user):
        raise HostMapError(f"bad user in target {spec!r}")
    if identity is not None and (not identity or identity.startswith("-")):
        raise HostMapError(f"bad identity {identity!r} for target {spec!r}")
    return Target("ssh", host=host, user=user or None, port=port, identity=identity,
                  options=opts, spec=spec)


def _port(text: str, spec: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise HostMapError(f"bad port in target {spec!r}")
    return int(text)


def _check_ip6(host: str, spec: str) -> None:
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        raise HostMapError(f"bad address in target {spec!r}") from None


def _check_option(o: Any) -> str:
    if not isinstance(o, str) or not _OPTION.match(o.strip()):
        raise HostMapError(f"bad ssh option {o!r} (want Key=Value)")
    return o.strip()


def is_loopback(host: str) -> bool:
    """True for ``localhost``, 127.0.0.0/8 and ::1."""
    h = host.strip("[]").lower()
    if h in ("localhost", "localhost.localdomain", "ip6-localhost"):
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


@dataclass
class HostMap:
    """Recorded host (or ``user@host``) → :class:`HostEntry`."""

    entries: dict[str, HostEntry] = field(default_factory=dict)

    def lookup(self, host: str, user: str | None = None,
               port: int | None = None) -> HostEntry | None:
        """The entry for a recorded destination, most specific key first."""
        keys = []
        if port:
            if user:
                keys.append(f"{user}@{host}:{port}")
            keys.append(f"{host}:{port}")
        if user:
            keys.append(f"{user}@{host}")
        keys.append(host)
        for k in keys:
            if k in self.entries:
                return self.entries[k]
        return None

    def add(self, key: str, target: Target, source: str) -> None:
        self.entries[key] = HostEntry(key, target, source)

    def confirm(self, host: str) -> bool:
        """Map ``host`` to itself (the user said yes to contacting it as recorded).

        Only a host the text names can be confirmed: one built at run time (``$H``,
        ``$(cat host.txt)``, ``h*``) is whatever the shell holds when the step runs,
        so a yes cannot say where it goes; it is mapped explicitly or refused
        (False)."""
        if host in self.entries:
            return True
        if not is_literal_host(host):
            return False
        self.add(host, parse_target(host), "confirmed")
        return True


def is_literal_host(host: str) -> bool:
    """Whether ``host`` is a host name or address as written (``gpu-1``, ``10.0.0.2``,
    ``2001:db8::1``), not one the shell builds at run time (``$H``, `` `cat h` ``)."""
    if _HOST.match(host):
        return True
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def load_config(path: Path) -> dict[str, Any]:
    """The parsed config file, ``{}`` when it does not exist."""
    if not path.exists():
        return {}
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise HostMapError(f"{path}: {e}") from None


def _config_entries(config: Mapping[str, Any]) -> list[tuple[str, Target]]:
    hosts = config.get("hosts", {})
    if not isinstance(hosts, dict):
        raise HostMapError("[hosts] must be a table")
    found = []
    for key, value in hosts.items():
        if isinstance(value, str):
            found.append((key, parse_target(value)))
        elif isinstance(value, dict):
            unknown = set(value) - {"target", "identity", "options"}
            if unknown:
                raise HostMapError(f"[hosts.{key!r}]: unknown keys {sorted(unknown)}")
            spec = value.get("target", key)
            opts = value.get("options", [])
            if not isinstance(spec, str) or not isinstance(opts, list):
                raise HostMapError(f"[hosts.{key!r}]: target must be a string, "
                                   "options a list of strings")
            found.append((key, parse_target(spec, identity=value.get("identity"),
                                            options=opts)))
        else:
            raise HostMapError(f"[hosts]: bad entry for {key!r}")
    return found


def build_host_map(cli: Iterable[str], config: Mapping[str, Any] | None = None) -> HostMap:
    """The host map from ``--host-map OLD=NEW`` values and a parsed config file."""
    hm = HostMap()
    from_config = _config_entries(config or {})
    by_target = {t.spec: t for _, t in from_config}
    for key, target in from_config:
        hm.add(_check_key(key), target, "config")
    for item in cli:
        old, eq, new = item.partition("=")
        if not eq or not old.strip() or not new.strip():
            raise HostMapError(f"bad --host-map {item!r} (want OLD=NEW)")
        target = parse_target(new)
        known = by_target.get(new.strip())
        if known is not None and not target.is_local:
            target = replace(target, identity=known.identity, options=known.options)
        hm.add(_check_key(old.strip()), target, "--host-map")
    return hm


def _check_key(key: str) -> str:
    if not key or any(c.isspace() for c in key) or key.startswith("-"):
        raise HostMapError(f"bad recorded host {key!r}")
    return key
