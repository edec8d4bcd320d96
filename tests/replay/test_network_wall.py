"""Issue 24 item 5: launched and unknown steps get a network namespace of their own.

A real listener on this machine's 127.0.0.1 (inside the tests' loopback-only
namespace, which is "the machine" here) must not be reached by a backgrounded step
that builds the address at run time, even with ``--allow unknown,launch``; with
``--allow host-network`` it is reached (so the wall, not a broken step, is what
stopped it).  A server the step launches is still checked on its own port, inside
the step's namespace.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from kb.replay.sandbox import local_bwrap
from tests.replay.conftest import make_session
from tests.replay.sshd import free_port


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    assert local_bwrap() is not None, "bubblewrap must work here (.ci/run installs it)"


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def steps_of(r: Result) -> dict[int, dict]:
    return {s["ordinal"]: s for s in (json.loads(x) for x in r.stdout.splitlines())}


class Listener:
    """A TCP listener on 127.0.0.1 that records what connects to it."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self._stop = threading.Event()
        self._t = threading.Thread(target=self._serve, daemon=True)
        self._t.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with conn:
                conn.settimeout(2)
                try:
                    self.received.append(conn.recv(64))
                except OSError:
                    self.received.append(b"")

    def close(self) -> None:
        self._stop.set()
        self._t.join(2)
        self.sock.close()


def _wait_for(cond, within: float = 5.0) -> bool:  # type: ignore[no-untyped-def]
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if cond():
            return True
        time.sleep(0.1)
    return bool(cond())


def test_backgrounded_unknown_step_does_not_reach_the_machines_loopback(
        tmp_path: Path, isolated_home: Path) -> None:
    listener = Listener()
    try:
        work = tmp_path / "w"
        work.mkdir()
        # the address is built at run time (no literal endpoint for the plan to refuse)
        code = (f"import socket; h = '127.0.0.' + str(1); "
                f"socket.create_connection((h, {listener.port}), 2).sendall(b'reached')")
        cmd = f'python3 -c "{code}" & sleep 1; echo done'
        db = make_session(tmp_path, [(cmd, "done\n", 0)], directory=str(work))

        plan = run("replay", "plan", "--db", str(db), "--from", "1", "--json", "--allow",
                   "unknown,launch")
        (step,) = steps_of(plan).values()
        assert step["action"] == "run", step
        assert "own network namespace" in step["protection"], step["protection"]

        r = run("replay", "run", "--db", str(db), "--from", "1", "--allow",
                "unknown,launch", "--json")
        (res,) = steps_of(r).values()
        assert res["action"] == "run", res
        time.sleep(1.5)
        assert listener.received == [], "a launched step reached the machine's loopback"

        # the same step with --allow host-network reaches it: the wall stopped it above
        r = run("replay", "run", "--db", str(db), "--from", "1", "--allow",
                "unknown,launch,host-network", "--json")
        (res,) = steps_of(r).values()
        assert "network of the machine" in res["protection"], res["protection"]
        assert _wait_for(lambda: b"reached" in listener.received), listener.received
    finally:
        listener.close()


def test_foreground_unknown_step_does_not_reach_the_machines_loopback(
        tmp_path: Path, isolated_home: Path) -> None:
    listener = Listener()
    try:
        work = tmp_path / "w"
        work.mkdir()
        code = (f"import socket; h = '127.0.0.' + str(1); "
                f"socket.create_connection((h, {listener.port}), 2).sendall(b'reached')")
        db = make_session(tmp_path, [(f'python3 -c "{code}"', "", 0)], directory=str(work))
        run("replay", "run", "--db", str(db), "--from", "1", "--allow", "unknown",
            "--json")
        time.sleep(0.5)
        assert listener.received == []
        run("replay", "run", "--db", str(db), "--from", "1", "--allow",
            "unknown,host-network", "--json")
        assert _wait_for(lambda: b"reached" in listener.received), listener.received
    finally:
        listener.close()


def test_a_launched_server_is_checked_on_its_port_inside_its_namespace(
        tmp_path: Path, isolated_home: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    port = free_port()
    cmd = f"python3 -m http.server {port} --bind 127.0.0.1 &"
    db = make_session(tmp_path, [(cmd, "", 0)], directory=str(work))
    t0 = time.monotonic()
    r = run("replay", "run", "--db", str(db), "--from", "1", "--allow", "launch",
            "--keep-running", "--json")
    (res,) = steps_of(r).values()
    try:
        assert res["launch_result"]["ready"] == "port", res
        assert time.monotonic() - t0 < 30
        # up and kept running, yet not on the machine's loopback
        with socket.socket() as s:
            s.settimeout(0.5)
            assert s.connect_ex(("127.0.0.1", port)) != 0
    finally:
        os.killpg(res["launch_result"]["pgid"], signal.SIGTERM)
        shutil.rmtree(res["launch_result"]["dir"], ignore_errors=True)
