"""A replayed network git command on an ssh target never follows that target's own git
configuration to another host or to its stored logins (safe15).

``~/.gitconfig`` and ``/etc/gitconfig`` can hold ``url.<x>.insteadOf`` (a ``git
fetch`` of the recorded URL goes elsewhere), ``http.proxy`` (through a proxy the plan
never checked) and ``credential.helper`` (the target's stored login is sent): none of it
is in the transcript, so neither the host map nor the redactor saw it.  Before safe15 a
replayed ``git ls-remote git://…`` on the loopback target below went to the other
port its ``insteadOf`` named.  Now the step stops on the target (exit 126, naming the setting,
not its value) before git starts, reads no ``/etc/gitconfig`` (``GIT_CONFIG_NOSYSTEM``),
and a step with no network git command, or a config with none of those settings, runs.
The target is the real loopback sshd of the replay tests; its ``HOME`` is planted.
"""

from __future__ import annotations

import json
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.replay.test_target_netconfig import _step, planted  # noqa: F401


class Listener:
    """A TCP port on a loopback address that counts the connections it is offered and
    closes each (git's own protocol, ``git://``: no HTTP redirect the plan refuses)."""

    def __init__(self, host: str) -> None:
        self.sock = socket.create_server((host, 0))
        self.port = self.sock.getsockname()[1]
        self.hits = 0
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self) -> None:
        while True:
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            self.hits += 1
            conn.close()

    def close(self) -> None:
        self.sock.close()


@pytest.fixture
def servers() -> Iterator[tuple[Listener, Listener]]:
    first, other = Listener("127.0.0.1"), Listener("127.0.0.2")
    try:
        yield first, other
    finally:
        first.close()
        other.close()

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")

PW = "gitcred-Qm7x2Lp9"


def _gitconfig(home: Path, text: str) -> None:
    (home / ".gitconfig").write_text(text)


@pytest.mark.parametrize("mode", ["off", "auto"])
def test_insteadof_on_the_target_stops_a_network_git(
        tmp_path: Path, config: Path, planted: Path,  # noqa: F811
        servers: tuple[Listener, Listener], mode: str) -> None:  # noqa: F811
    first, other = servers
    _gitconfig(planted, f'[url "git://127.0.0.2:{other.port}/"]\n'
                        f"\tinsteadOf = git://127.0.0.1:{first.port}/\n")
    step = _step(tmp_path, f"git ls-remote git://127.0.0.1:{first.port}/repo.git", mode)
    assert other.hits == 0, "git on the target followed its insteadOf to another host"
    assert first.hits == 0, step
    assert step["exit_code"] == 126 and "refused" in step["output"], step
    assert "url.*.insteadof" in step["output"] and "127.0.0.2" not in step["output"], step


@pytest.mark.parametrize("setting", ["proxy", "credential"])
def test_a_proxy_or_a_credential_helper_stops_it_too(
        tmp_path: Path, config: Path, planted: Path,  # noqa: F811
        servers: tuple[Listener, Listener], setting: str) -> None:  # noqa: F811
    first, other = servers
    if setting == "proxy":
        _gitconfig(planted, f"[http]\n\tproxy = http://127.0.0.2:{other.port}\n")
    else:
        _gitconfig(planted, "[credential]\n\thelper = \"!f() { echo username=admin; "
                            f'echo password={PW}; }}; f"\n')
    step = _step(tmp_path, f"git ls-remote git://127.0.0.1:{first.port}/repo.git", "off")
    assert first.hits == 0 and other.hits == 0, step
    assert step["exit_code"] == 126 and "refused" in step["output"], step
    assert PW not in json.dumps(step)


def test_other_git_steps_and_harmless_configs_run(
        tmp_path: Path, config: Path, planted: Path,  # noqa: F811
        servers: tuple[Listener, Listener]) -> None:  # noqa: F811
    first, other = servers
    _gitconfig(planted, f'[url "git://127.0.0.2:{other.port}/"]\n'
                        f"\tinsteadOf = git://127.0.0.1:{first.port}/\n")
    # no network git command: the target's config cannot send it anywhere
    step = _step(tmp_path, "git --version", "off")
    assert step["exit_code"] == 0 and "git version" in step["output"], step
    # a config with a name and an e-mail address only: git runs, to the recorded host
    _gitconfig(planted, "[user]\n\tname = dev\n\temail = dev@example.invalid\n")
    step = _step(tmp_path, f"git ls-remote git://127.0.0.1:{first.port}/repo.git", "off")
    assert step["exit_code"] not in (None, 0, 126) and "refused" not in step["output"], step
    assert first.hits == 1 and other.hits == 0, step
