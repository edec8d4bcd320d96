"""Replay test fixtures: loopback-only network, a real sshd, the Blackwell fixture, a guard.

Nothing here may ever contact the transcript's host (10.1.230.174), or anything but
loopback.  Three independent layers make sure of it:

* ``loopback_netns`` (root only): the test process moves into a fresh network
  namespace whose only interface is ``lo``, so every process the tests start
  (sshd, ssh, the nested ssh on the "target") can reach nothing else;
* ``ssh_guard`` (every test): ``subprocess.Popen`` is wrapped; an argv whose ssh
  destination is not loopback, or that names any non-loopback IPv4 address,
  fails the test before the process exists;
* ``LOGKB_REPLAY_LOOPBACK_ONLY=1``: replay's own executor refuses non-loopback
  targets.
"""

from __future__ import annotations

import ctypes
import os
import random
import re
import shlex
import shutil
import subprocess
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.replay.sshd import LoopbackSshd, SshdMissing

RECORDED_HOST = "10.1.230.174"
CLONE_NEWNET = 0x40000000
_IPV4 = re.compile(r"(?<![\w.])(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})(?![\w.])")
# OpenSSH client options that take an argument (from ssh.c's getopt string).
_SSH_ARG_OPTS = set("bcDeEFIiJLlmOoPpQRSWw")


# ---------------------------------------------------------------------------- network
@pytest.fixture(scope="package", autouse=True)
def loopback_netns() -> Iterator[bool]:
    """Run the replay tests in a network namespace with only ``lo`` (when root can)."""
    if os.geteuid() != 0 or not sys.platform.startswith("linux"):
        yield False
        return
    libc = ctypes.CDLL(None, use_errno=True)
    orig = os.open("/proc/self/ns/net", os.O_RDONLY)
    if libc.unshare(CLONE_NEWNET) != 0:
        os.close(orig)
        warnings.warn("could not unshare the network namespace; the argv guard and "
                      "LOGKB_REPLAY_LOOPBACK_ONLY still apply", stacklevel=1)
        yield False
        return
    try:
        _lo_up()
        yield True
    finally:
        if libc.setns(orig, CLONE_NEWNET) != 0:  # pragma: no cover
            warnings.warn("could not return to the original network namespace", stacklevel=1)
        os.close(orig)


def _lo_up() -> None:
    ip = shutil.which("ip") or "/sbin/ip"
    if os.access(ip, os.X_OK):
        subprocess.run([ip, "link", "set", "lo", "up"], check=True)
        return
    import fcntl
    import socket
    import struct

    siocgifflags, siocsifflags, iff_up = 0x8913, 0x8914, 0x1
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        req = struct.pack("16sh", b"lo", 0)
        flags = struct.unpack("16sh", fcntl.ioctl(s, siocgifflags, req))[1]
        fcntl.ioctl(s, siocsifflags, struct.pack("16sh", b"lo", flags | iff_up))


# ---------------------------------------------------------------------------- the guard
def _loopback(host: str) -> bool:
    import ipaddress

    h = host.strip("[]")
    if h == "localhost":
        return True
    try:
        return ipaddress.ip_address(h).is_loopback
    except ValueError:
        return False


def _ssh_dest(argv: list[str]) -> str | None:
    i = 1
    while i < len(argv):
        w = argv[i]
        if w == "--":
            return argv[i + 1] if i + 1 < len(argv) else None
        if w.startswith("-") and len(w) > 1:
            letters = w[1:]
            for k, c in enumerate(letters):
                if c in _SSH_ARG_OPTS:
                    if k == len(letters) - 1:
                        i += 1
                    break
            i += 1
            continue
        return w
    return None


def violations_of(argv: list[str]) -> list[str]:
    """Why this argv must not run (empty: it may)."""
    bad = []
    for word in argv:
        for m in _IPV4.finditer(word):
            if m.group(1) != "127":
                bad.append(f"names the non-loopback address {m.group(0)}")
    prog = os.path.basename(argv[0]) if argv else ""
    if prog == "ssh":
        dest = _ssh_dest(argv)
        host = (dest or "").rpartition("@")[2]
        if not _loopback(host):
            bad.append(f"ssh to a non-loopback destination {dest!r}")
    if prog in ("bash", "sh", "dash") and "-c" in argv:
        from logparse.shell import parse_command

        script = argv[argv.index("-c") + 1]
        info = parse_command(script)
        for cmd in info.commands + info.local_commands:
            if cmd.program == "ssh":
                dest = _ssh_dest(list(cmd.effective_argv))
                if not _loopback((dest or "").rpartition("@")[2]):
                    bad.append(f"a shell script runs ssh to {dest!r}")
    return bad


class Guard:
    def __init__(self) -> None:
        self.spawned: list[list[str]] = []
        self.violations: list[str] = []

    def ssh_spawns(self) -> list[list[str]]:
        return [a for a in self.spawned if a and os.path.basename(a[0]) == "ssh"]


@pytest.fixture(autouse=True)
def ssh_guard(monkeypatch: pytest.MonkeyPatch) -> Iterator[Guard]:
    guard = Guard()
    real = subprocess.Popen

    class GuardedPopen(real):  # type: ignore[misc, valid-type]
        def __init__(self, args, *a, **kw):  # type: ignore[no-untyped-def]
            argv = shlex.split(args) if isinstance(args, str) else [str(x) for x in args]
            bad = violations_of(argv)
            if bad:
                guard.violations.append(f"{argv!r}: {'; '.join(bad)}")
                raise AssertionError(f"refused to start {argv!r}: {'; '.join(bad)}")
            guard.spawned.append(argv)
            super().__init__(args, *a, **kw)

    monkeypatch.setattr(subprocess, "Popen", GuardedPopen)
    monkeypatch.setenv("LOGKB_REPLAY_LOOPBACK_ONLY", "1")
    yield guard
    assert not guard.violations, guard.violations


# ---------------------------------------------------------------------------- sshd
@pytest.fixture(scope="package")
def sshd(tmp_path_factory: pytest.TempPathFactory, loopback_netns: bool
         ) -> Iterator[LoopbackSshd]:
    root = Path(tmp_path_factory.mktemp("sshd"))
    server = LoopbackSshd(root)
    try:
        server.start()
    except (SshdMissing, RuntimeError) as e:
        pytest.fail(str(e))
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def config(isolated_home: Path, sshd: LoopbackSshd) -> Path:
    """config.toml mapping the fixture host to the test sshd (with its key and known_hosts)."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "logkb" / "config.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(sshd.config_toml(RECORDED_HOST))
    return path


# ---------------------------------------------------------------------------- the fixture campaign
@pytest.fixture(scope="package")
def blackwell_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The Blackwell campaign (session.jsonl + its subagent) ingested once."""
    from fixtures.blackwell.story import build_story
    from fixtures.opencode_writer import iter_sessions, write_jsonl
    from kb.ingest import ingest
    from kb.store import KbStore

    root = Path(tmp_path_factory.mktemp("blackwell"))
    tree, _story = build_story()
    paths = [write_jsonl(s, root / f"session-{i}.jsonl") for i, s in enumerate(iter_sessions(tree))]
    db = root / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, paths, graph=False)
    return db


@pytest.fixture
def fixture_db(blackwell_db: Path, tmp_path: Path) -> Path:
    """A private copy of the ingested campaign (runs write to it)."""
    dst = tmp_path / "kb.duckdb"
    shutil.copyfile(blackwell_db, dst)
    return dst


# ---------------------------------------------------------------------------- small sessions
def make_session(tmp_path: Path, calls: list[tuple[str, str, int]], *,
                 directory: str = "/home/dev/eagle3-blackwell", title: str = "replay test"
                 ) -> Path:
    """Ingest a tiny session of bash calls ``(command, output, exit_code)``; returns the db."""
    from fixtures.opencode_builder import BuildContext, SessionBuilder, bash
    from fixtures.opencode_writer import write_jsonl
    from kb.ingest import ingest
    from kb.store import KbStore

    ctx = BuildContext(random.Random(7), directory=directory, project_id="ab" * 20)
    s = SessionBuilder(ctx, title=title, start_ms=1_790_000_000_000)
    s.user("replay these")
    for cmd, out, code in calls:
        s.step("Running:", [bash(cmd, out, exit_code=code)])
    s.step("Done.")
    path = write_jsonl(s.tree(), tmp_path / "small.jsonl")
    db = tmp_path / "small.duckdb"
    with KbStore(db) as store:
        ingest(store, [path], graph=False)
    return db


def ordinals(db: Path) -> list[int]:
    """Ordinals of the command events of the (only) session in ``db``."""
    from kb.store import KbStore

    with KbStore(db, read_only=True) as store:
        sid = store.resolve_session(None)
        return [e.ordinal for e in store.events(sid, kinds=["command"])]
