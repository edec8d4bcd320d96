"""A throwaway OpenSSH server on 127.0.0.1 for the replay tests and the replay benchmark.

``LoopbackSshd(root).start()`` makes host and user keys in ``root``, writes an
``sshd_config`` (``ListenAddress 127.0.0.1``, a free port, ``AuthorizedKeysFile``
in ``root``, ``StrictModes no``, ``UsePAM no``, keys only) and runs
``/usr/sbin/sshd -D -f config -E log``.  It authenticates the current user.

Sessions get ``HOME`` set to an empty directory in ``root`` (``SetEnv``), so the
login shell's start-up files (``~/.bashrc`` is sourced for ssh commands) do not
weigh on the measurements: what is left is ssh and the command itself.

``stop()`` kills it.  A missing ``sshd`` is an error with a clear message, never
a skip: CI installs ``openssh-server``.
"""

from __future__ import annotations

import getpass
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

SSHD_CANDIDATES = ("/usr/sbin/sshd", "/usr/local/sbin/sshd", "/sbin/sshd")


class SshdMissing(RuntimeError):
    pass


def find_sshd() -> str:
    for c in SSHD_CANDIDATES:
        if os.access(c, os.X_OK):
            return c
    found = shutil.which("sshd")
    if found:
        return os.path.abspath(found)
    raise SshdMissing("OpenSSH server not found (/usr/sbin/sshd): the replay tests need a real "
                      "sshd on loopback; install it with `apt-get install openssh-server "
                      "openssh-client` (.ci/run does)")


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LoopbackSshd:
    def __init__(self, root: Path, env: dict[str, str] | None = None) -> None:
        self.root = Path(root)
        self.env = dict(env or {})
        """More variables sshd sets in every session (``SetEnv``, after ``HOME``)."""
        self.port = 0
        self.user = getpass.getuser()
        self.proc: subprocess.Popen[bytes] | None = None

    # ------------------------------------------------------------------ paths
    @property
    def log(self) -> Path:
        return self.root / "sshd.log"

    @property
    def key(self) -> Path:
        return self.root / "id_ed25519"

    @property
    def known_hosts(self) -> Path:
        return self.root / "known_hosts"

    @property
    def home(self) -> Path:
        return self.root / "home"

    @property
    def target(self) -> str:
        return f"{self.user}@127.0.0.1:{self.port}"

    def client_options(self) -> list[str]:
        """ssh ``-o`` options (Key=Value) a client needs to trust and reach this server."""
        return ["StrictHostKeyChecking=yes", f"UserKnownHostsFile={self.known_hosts}",
                "GlobalKnownHostsFile=/dev/null", "IdentitiesOnly=yes"]

    def ssh_argv(self) -> list[str]:
        """``ssh`` with everything needed to log in (append the command)."""
        argv = ["ssh", "-T", "-o", "BatchMode=yes", "-p", str(self.port), "-i", str(self.key)]
        for o in self.client_options():
            argv += ["-o", o]
        return argv + [f"{self.user}@127.0.0.1"]

    def config_toml(self, recorded_host: str = "10.1.230.174") -> str:
        opts = ", ".join(f'"{o}"' for o in self.client_options())
        return (f'[hosts."{recorded_host}"]\ntarget = "{self.target}"\n'
                f'identity = "{self.key}"\noptions = [{opts}]\n')

    # --------------------------------------------------------------- lifecycle
    def start(self) -> LoopbackSshd:
        sshd = find_sshd()
        self.root.mkdir(parents=True, exist_ok=True)
        self.home.mkdir(exist_ok=True)
        for name in ("host_ed25519", "id_ed25519"):
            p = self.root / name
            if not p.exists():
                subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "logkb-test",
                                "-f", str(p)], check=True, stdout=subprocess.DEVNULL)
        (self.root / "authorized_keys").write_bytes((self.root / "id_ed25519.pub").read_bytes())
        os.chmod(self.root / "authorized_keys", 0o600)
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)
        last = ""
        for _attempt in range(5):
            self.port = free_port()
            cfg = self.root / "sshd_config"
            cfg.write_text("\n".join([
                f"Port {self.port}",
                "ListenAddress 127.0.0.1",
                f"HostKey {self.root / 'host_ed25519'}",
                f"PidFile {self.root / 'sshd.pid'}",
                f"AuthorizedKeysFile {self.root / 'authorized_keys'}",
                "StrictModes no",
                "UsePAM no",
                "PubkeyAuthentication yes",
                "PasswordAuthentication no",
                "KbdInteractiveAuthentication no",
                "PermitRootLogin prohibit-password",
                f"AllowUsers {self.user}",
                "UseDNS no",
                "MaxSessions 200",
                "MaxStartups 200",
                "PrintMotd no",
                "PrintLastLog no",
                "PermitUserRC no",
                "X11Forwarding no",
                "AllowTcpForwarding no",
                " ".join(["SetEnv", f"HOME={self.home}",
                          *(f"{k}={v}" for k, v in self.env.items())]),
                "LogLevel INFO",
                "",
            ]))
            self.log.write_text("")
            self.proc = subprocess.Popen([sshd, "-D", "-f", str(cfg), "-E", str(self.log)],
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.STDOUT, start_new_session=True)
            deadline = time.monotonic() + 10
            while time.monotonic() < deadline:
                if self.proc.poll() is not None:
                    break
                if "Server listening" in self.log.read_text(errors="replace"):
                    host_pub = (self.root / "host_ed25519.pub").read_text().split()
                    self.known_hosts.write_text(
                        f"[127.0.0.1]:{self.port} {host_pub[0]} {host_pub[1]}\n")
                    self._check_login()
                    return self
                time.sleep(0.02)
            last = self.log.read_text(errors="replace")
            self.stop()
            if "Address already in use" not in last:
                break
        raise RuntimeError(f"sshd did not start on 127.0.0.1:{self.port}:\n{last}")

    def _check_login(self) -> None:
        """One real login, so a server that refuses this user says why, once, clearly."""
        r = subprocess.run(self.ssh_argv() + ["true"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            log = self.log.read_text(errors="replace")
            self.stop()
            raise RuntimeError(f"the test sshd refuses {self.user}: {r.stderr.strip()}\n"
                               f"sshd log:\n{log}")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, 15)
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, 9)
                self.proc.wait()
        self.proc = None

    def __enter__(self) -> LoopbackSshd:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ---------------------------------------------------------------- counting
    def handshakes(self) -> int:
        """Successful logins so far ("Accepted publickey" lines of the log)."""
        return self.log.read_text(errors="replace").count("Accepted publickey")
