"""A throwaway PostgreSQL cluster on a random loopback port (Debian's ``postgresql``):
``initdb --no-sync`` in a temporary folder, ``pg_ctl start``, and ``stop`` + removal at
the end.  As root, the server runs as the ``postgres`` user (PostgreSQL refuses root).
Used by the team tests and ``python -m bench team``."""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path


def bindir() -> Path | None:
    """Where ``initdb`` and ``pg_ctl`` are (newest Debian version first), or None."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                   key=lambda p: int(p.split("/")[4]) if p.split("/")[4].isdigit() else 0)
    if found:
        return Path(found[-1]).parent
    which = shutil.which("initdb")
    return Path(which).parent if which else None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class Cluster:
    root: Path
    port: int
    bindir: Path

    def url(self, user: str = "postgres", db: str = "postgres") -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{db}"

    def stop(self) -> None:
        _run(self, [str(self.bindir / "pg_ctl"), "-D", str(self.root / "data"), "-m",
                    "immediate", "-w", "stop"], check=False)
        shutil.rmtree(self.root, ignore_errors=True)


def _as_postgres() -> bool:
    return os.geteuid() == 0


def _run(c: Cluster | None, argv: list[str], check: bool = True
         ) -> subprocess.CompletedProcess[str]:
    if _as_postgres():
        argv = ["runuser", "-u", "postgres", "--", *argv]
    return subprocess.run(argv, capture_output=True, text=True, check=check, timeout=120)


def start() -> Cluster:
    """Start a new cluster; raises RuntimeError when PostgreSQL is not installed."""
    bd = bindir()
    if bd is None:
        raise RuntimeError("PostgreSQL is not installed (apt-get install postgresql)")
    root = Path(tempfile.mkdtemp(prefix="logkb-pg-"))
    if _as_postgres():
        pw = pwd.getpwnam("postgres")
        os.chown(root, pw.pw_uid, pw.pw_gid)
    os.chmod(root, 0o700)
    data, sock = root / "data", root
    _run(None, [str(bd / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres",
                "--no-sync", "-E", "UTF8", "--locale", "C"])
    for _attempt in range(5):
        port = free_port()
        c = Cluster(root, port, bd)
        r = _run(c, [str(bd / "pg_ctl"), "-D", str(data), "-l", str(root / "log"), "-w",
                     "-t", "60", "-o",
                     f"-p {port} -k {sock} -c listen_addresses=127.0.0.1 -c fsync=off "
                     f"-c synchronous_commit=off -c full_page_writes=off", "start"],
                 check=False)
        if r.returncode == 0:
            return c
    log = (root / "log").read_text() if (root / "log").exists() else r.stderr
    shutil.rmtree(root, ignore_errors=True)
    raise RuntimeError(f"PostgreSQL did not start: {log[-2000:]}")
