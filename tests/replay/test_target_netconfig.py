"""A replayed curl or wget on an ssh target never reads that target's per-user network
config (safe14).

``~/.curlrc`` can add ``location``, ``url``, ``proxy`` or ``header`` lines and
``netrc``; ``~/.netrc`` and ``~/.wgetrc`` add logins: none of it is in the transcript,
so neither the host map nor the redactor saw it.  With ``--remote-sandbox off`` (and
``auto`` on a target without bwrap) the step ran with the target's network, and curl
followed the redirect its curlrc asked for to a host the plan never checked, or sent
the target's ``.netrc`` login.  Now such a step stops on the target (exit 126, a
message naming the file) before the client starts; ``curl -q`` (no curlrc) still runs.
The target is the real loopback sshd of the replay tests; its ``HOME`` is planted.
"""

from __future__ import annotations

import json
import random
import string
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from tests.replay.conftest import RECORDED_HOST, make_session
from tests.replay.httpd import Server
from tests.replay.sshd import LoopbackSshd


@pytest.fixture
def servers() -> Iterator[tuple[Server, Server]]:
    other = Server("127.0.0.2")  # "another host": a loopback address the test owns
    first = Server("127.0.0.1", location=f"http://127.0.0.2:{other.port}/elsewhere")
    try:
        yield first, other
    finally:
        first.close()
        other.close()


@pytest.fixture
def planted(sshd: LoopbackSshd) -> Iterator[Path]:
    """The target's home; what a test plants there is removed after it (the sshd is
    shared by the package's tests)."""
    before = set(sshd.home.iterdir())
    try:
        yield sshd.home
    finally:
        for p in set(sshd.home.iterdir()) - before:
            p.unlink()


def _step(tmp_path: Path, cmd: str, mode: str) -> dict:
    work = tmp_path / "w"
    work.mkdir(exist_ok=True)
    db = make_session(tmp_path, [(f"ssh root@{RECORDED_HOST} '{cmd}'", "", 0)],
                      directory=str(work))
    r = CliRunner().invoke(cli, ["replay", "run", "--db", str(db), "--from", "1", "--allow",
                                 "unknown", "--remote-sandbox", mode, "--json"],
                           catch_exceptions=False)
    (step,) = [json.loads(x) for x in r.stdout.splitlines()]
    return step


def test_a_curlrc_on_the_target_stops_curl(tmp_path: Path, config: Path, planted: Path,
                                           servers: tuple[Server, Server]) -> None:
    first, other = servers
    (planted / ".curlrc").write_text("location\n")
    url = f"http://127.0.0.1:{first.port}/start"
    step = _step(tmp_path, f"curl -s {url}", "off")
    assert other.hits == [], "curl on the target followed the redirect its curlrc asked for"
    assert first.hits == [], step
    assert step["exit_code"] == 126 and ".curlrc" in step["output"], step
    assert "refused" in step["output"], step
    # curl -q reads no curlrc: it runs, reaches the first server only, follows nothing
    step = _step(tmp_path, f"curl -q -s {url}", "off")
    assert step["exit_code"] == 0 and "moved" in step["output"], step
    assert first.hits == ["/start"] and other.hits == []


@pytest.mark.parametrize("mode", ["off", "auto"])
def test_a_netrc_on_the_target_stops_wget_and_curl_netrc(
        tmp_path: Path, config: Path, planted: Path, servers: tuple[Server, Server],
        mode: str) -> None:
    first, other = servers
    pw = "".join(random.Random(14).choices(string.ascii_letters + string.digits, k=14))
    (planted / ".netrc").write_text(f"machine 127.0.0.1 login admin password {pw}\n")
    (planted / ".netrc").chmod(0o600)
    url = f"http://127.0.0.1:{first.port}/start"
    for cmd in (f"wget -qO- --max-redirect=0 {url}", f"curl -q -n -s {url}"):
        step = _step(tmp_path, cmd, mode)
        assert first.hits == [] and other.hits == [], (cmd, first.hits)
        assert step["exit_code"] == 126 and ".netrc" in step["output"], (cmd, step)
        assert pw not in json.dumps(step)
    step = _step(tmp_path, "echo ran here", mode)  # no client: the target runs it
    assert step["exit_code"] == 0 and "ran here" in step["output"], step
