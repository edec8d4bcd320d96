"""A replayed curl or wget never follows a redirect off the loopback server it names.

The plan checks every host a step names against the host map, but ``curl -L`` and
wget (which follows redirects unless ``--max-redirect=0``) go where the *server*
says next.  Here a real HTTP server on 127.0.0.1 (inside the tests' loopback-only
namespace) answers 302 to a second server the test owns on 127.0.0.2, standing for
any other host.  Wherever the step would keep a network beyond its own namespace
(``--allow host-network``, ``--no-sandbox``, a target without a guaranteed bwrap),
the redirect-following step is refused and the second server is never contacted;
the same request without following runs and reaches the first server (so the wall,
not a broken step, stopped it).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from kb.replay.sandbox import local_bwrap
from tests.replay.conftest import RECORDED_HOST, Guard, make_session
from tests.replay.httpd import Server


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    assert local_bwrap() is not None, "bubblewrap must work here (.ci/run installs it)"



@pytest.fixture
def servers(isolated_home: Path, monkeypatch: pytest.MonkeyPatch
            ) -> Iterator[tuple[Server, Server]]:
    monkeypatch.delenv("CURL_HOME", raising=False)  # no curlrc of the machine's
    other = Server("127.0.0.2")  # "another host": a loopback address the test owns
    first = Server("127.0.0.1", location=f"http://127.0.0.2:{other.port}/elsewhere")
    try:
        yield first, other
    finally:
        first.close()
        other.close()


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def steps_of(r: Result) -> list[dict]:
    return [json.loads(x) for x in r.stdout.splitlines()]


def _one(tmp_path: Path, cmd: str, *opts: str) -> dict:
    work = tmp_path / "w"
    work.mkdir(exist_ok=True)
    db = make_session(tmp_path, [(cmd, "", 0)], directory=str(work))
    (step,) = steps_of(run("replay", "run", "--db", str(db), "--from", "1", *opts,
                           "--json"))
    return step


FOLLOWING = ["curl -sS -L {url}", "curl -fsSL {url}", "curl --location-trusted -s {url}",
             "wget -qO- {url}", "wget -q -O - {url}",
             # any other HTTP client (urllib follows a 302 by default)
             "python3 -c \"import urllib.request as u; print(u.urlopen('{url}').read())\""]
NOT_FOLLOWING = ["curl -sS {url}", "curl -sSL --max-redirs 0 {url}",
                 "wget -qO- --max-redirect=0 {url}", "wget -qO- -e max_redirect=0 {url}"]


@pytest.mark.parametrize("template", FOLLOWING)
@pytest.mark.parametrize("opts", [("--allow", "unknown,host-network"),
                                  ("--allow", "unknown", "--no-sandbox")],
                         ids=["host-network", "no-sandbox"])
def test_a_redirect_following_client_is_refused_with_the_machines_network(
        tmp_path: Path, servers: tuple[Server, Server], template: str,
        opts: tuple[str, ...]) -> None:
    first, other = servers
    step = _one(tmp_path, template.format(url=f"http://127.0.0.1:{first.port}/start"), *opts)
    assert other.hits == [], "the replayed client followed the redirect to another host"
    assert step["action"] == "skip", step
    assert "redirect" in step["reason"], step["reason"]
    assert first.hits == []


@pytest.mark.parametrize("template", NOT_FOLLOWING)
def test_a_client_that_does_not_follow_runs_and_stays_on_its_host(
        tmp_path: Path, servers: tuple[Server, Server], template: str) -> None:
    first, other = servers
    step = _one(tmp_path, template.format(url=f"http://127.0.0.1:{first.port}/start"),
                "--allow", "unknown,host-network")
    assert step["action"] == "run", step
    assert first.hits == ["/start"], first.hits  # the machine's loopback was reached
    assert other.hits == []


def test_in_its_own_namespace_a_following_client_runs_and_reaches_nothing(
        tmp_path: Path, servers: tuple[Server, Server]) -> None:
    first, other = servers
    step = _one(tmp_path, f"curl -sL http://127.0.0.1:{first.port}/start", "--allow",
                "unknown")
    assert step["action"] == "run", step
    assert "own network namespace" in step["protection"], step["protection"]
    assert first.hits == [] and other.hits == []


def test_on_a_target_a_following_client_needs_a_required_sandbox(
        tmp_path: Path, config: Path, ssh_guard: Guard,
        servers: tuple[Server, Server]) -> None:
    """The test sshd's machine is this one: its 127.0.0.1 serves the redirect."""
    first, other = servers
    url = f"http://127.0.0.1:{first.port}/start"
    for mode in ("off", "auto"):
        step = _one(tmp_path, f"ssh root@{RECORDED_HOST} 'curl -sL {url}'", "--allow",
                    "unknown", "--remote-sandbox", mode)
        assert other.hits == [], (mode, "the target followed the redirect")
        assert step["action"] == "skip", (mode, step)
        assert "redirect" in step["reason"], step["reason"]
    assert other.hits == [] and first.hits == []
    # without -L it runs unwrapped on the target and reaches only the first server
    step = _one(tmp_path, f"ssh root@{RECORDED_HOST} 'curl -s {url}'", "--allow",
                "unknown", "--remote-sandbox", "off")
    assert step["action"] == "run", step
    assert "moved" in step["output"], step
    assert first.hits == ["/start"] and other.hits == []


def test_a_curlrc_here_counts_as_following(tmp_path: Path, isolated_home: Path,
                                           servers: tuple[Server, Server]) -> None:
    """curl reads ~/.curlrc unless -q comes first: ``location`` there follows too."""
    first, other = servers
    (isolated_home / ".curlrc").write_text("location\n")
    url = f"http://127.0.0.1:{first.port}/start"
    step = _one(tmp_path, f"curl -s {url}", "--allow", "unknown,host-network")
    assert other.hits == [], "curl followed the redirect its curlrc asked for"
    assert step["action"] == "skip" and ".curlrc" in step["reason"], step
    step = _one(tmp_path, f"curl -q -s {url}", "--allow", "unknown,host-network")
    assert step["action"] == "run", step
    assert first.hits == ["/start"] and other.hits == []
