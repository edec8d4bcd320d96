"""A local step never hands this machine's curl or wget configuration to the client.

curl reads ``~/.netrc`` with ``-n`` (and a ``.curlrc`` unless ``-q`` comes first),
wget reads ``~/.wgetrc`` and ``~/.netrc`` always: logins and headers none of which is
in the transcript.  Before netrc14 a local step with the machine's network
(``--allow host-network``, ``--no-sandbox``, an ssh mapped to ``local``) sent the
planted ``.netrc`` login and the ``.wgetrc`` header to the loopback server below.
Now a sandboxed step sees those files empty (bwrap masks them) and still runs; an
unsandboxed one stops (exit 126, naming the file) before the client starts.

The home directory is the isolated one the tests use; the steps run in it (where an
ssh mapped to ``local`` runs), so the sandbox's read-only view of it holds the files.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from kb.replay.sandbox import git_config_files, local_bwrap, user_net_config
from tests.replay.conftest import RECORDED_HOST, make_session
from tests.replay.httpd import Server

LOGIN, PASSWORD = "alice", "s3cret-netrc14"
HEADER = "X-Planted"


@pytest.fixture(autouse=True)
def _bwrap() -> None:
    assert local_bwrap() is not None, "bubblewrap must work here (.ci/run installs it)"


@pytest.fixture
def server(isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Server]:
    for var in ("CURL_HOME", "WGETRC", "NETRC", "SYSTEM_WGETRC"):
        monkeypatch.delenv(var, raising=False)  # nothing of the machine's
    srv = Server("127.0.0.1", challenge=True)
    (isolated_home / ".netrc").write_text(
        f"machine 127.0.0.1 login {LOGIN} password {PASSWORD}\n")
    (isolated_home / ".netrc").chmod(0o600)
    (isolated_home / ".wgetrc").write_text(f"header = {HEADER}: from-wgetrc\n")
    try:
        yield srv
    finally:
        srv.close()


def _leaked(srv: Server) -> list[str]:
    """What of the planted configuration reached the server."""
    token = base64.b64encode(f"{LOGIN}:{PASSWORD}".encode()).decode()
    out = []
    for h in srv.sent:
        if token in h.get("authorization", ""):
            out.append("the .netrc login")
        if HEADER.lower() in h:
            out.append("the .wgetrc header")
    return out


def _one(tmp_path: Path, home: Path, cmd: str, *opts: str) -> dict:
    db = make_session(tmp_path, [(cmd, "", 0)], directory=str(home))
    r: Result = CliRunner().invoke(cli, ["replay", "run", "--db", str(db), "--from", "1",
                                         *opts, "--json"], catch_exceptions=False)
    (step,) = [json.loads(x) for x in r.stdout.splitlines()]
    return step


CLIENTS = ["curl -s -n {url}", "curl -s --netrc-optional {url}",
           "wget -qO- --max-redirect=0 {url}"]


@pytest.mark.parametrize("template", CLIENTS)
def test_with_host_network_the_sandbox_hides_the_machines_client_config(
        tmp_path: Path, isolated_home: Path, server: Server, template: str) -> None:
    url = f"http://127.0.0.1:{server.port}/start"
    step = _one(tmp_path, isolated_home, template.format(url=url),
                "--allow", "unknown,host-network")
    assert _leaked(server) == [], (template, step)
    assert step["action"] == "run", step
    assert server.hits and server.hits[0] == "/start", server.hits  # it did reach it
    assert PASSWORD not in json.dumps(step)


def test_an_ssh_mapped_to_local_hides_it_too(tmp_path: Path, isolated_home: Path,
                                             server: Server) -> None:
    url = f"http://127.0.0.1:{server.port}/start"
    step = _one(tmp_path, isolated_home,
                f"ssh root@{RECORDED_HOST} 'wget -qO- --max-redirect=0 {url}'",
                "--host-map", f"{RECORDED_HOST}=local", "--allow", "unknown,host-network")
    assert _leaked(server) == [], step
    assert step["action"] == "run" and server.hits, (step, server.hits)


@pytest.mark.parametrize("template", CLIENTS)
def test_without_the_sandbox_the_step_stops_before_the_client(
        tmp_path: Path, isolated_home: Path, server: Server, template: str) -> None:
    url = f"http://127.0.0.1:{server.port}/start"
    step = _one(tmp_path, isolated_home, template.format(url=url),
                "--allow", "unknown", "--no-sandbox")
    assert _leaked(server) == [], (template, step)
    assert server.hits == [], step
    assert step["exit_code"] == 126 and "refused" in step["output"], step
    assert ".netrc" in step["output"] or ".wgetrc" in step["output"], step


def test_without_the_files_an_unsandboxed_client_runs(
        tmp_path: Path, isolated_home: Path, server: Server) -> None:
    for f in (".netrc", ".wgetrc"):
        (isolated_home / f).unlink()
    url = f"http://127.0.0.1:{server.port}/start"
    step = _one(tmp_path, isolated_home, f"curl -s -n {url}", "--allow", "unknown",
                "--no-sandbox")
    assert step["exit_code"] == 0 and "login" in step["output"], step  # the 401 body
    assert server.hits == ["/start"]


def test_the_files_masked_are_the_ones_the_clients_read(
        tmp_path: Path, isolated_home: Path) -> None:
    (isolated_home / ".netrc").write_text("x")
    (isolated_home / ".config").mkdir()
    (isolated_home / ".config" / "curlrc").write_text("x")
    elsewhere = tmp_path / "curlhome"
    elsewhere.mkdir()
    (elsewhere / ".curlrc").write_text("x")
    (tmp_path / "w.rc").write_text("x")
    env = {"HOME": str(isolated_home), "XDG_CONFIG_HOME": str(isolated_home / ".config"),
           "CURL_HOME": str(elsewhere), "WGETRC": str(tmp_path / "w.rc")}
    found = user_net_config(env)
    for f in (isolated_home / ".netrc", isolated_home / ".config" / "curlrc",
              elsewhere / ".curlrc", tmp_path / "w.rc"):
        assert str(f) in found, (f, found)
    # wget's system-wide file (safe15): `$SYSTEM_WGETRC`, and the one it was built with
    (tmp_path / "sys.rc").write_text("x")
    found = user_net_config({**env, "SYSTEM_WGETRC": str(tmp_path / "sys.rc")})
    assert str(tmp_path / "sys.rc") in found
    if Path("/etc/wgetrc").is_file():
        assert "/etc/wgetrc" in found


def test_wgets_system_file_is_masked_or_refused_too(
        tmp_path: Path, isolated_home: Path, server: Server,
        monkeypatch: pytest.MonkeyPatch) -> None:
    """wget reads its system-wide file before the user's (``$SYSTEM_WGETRC``, else
    ``/etc/wgetrc``): a header or a proxy there reached the server from a sandboxed
    step, which masked ``~/.wgetrc`` only (safe15).  Now the sandbox masks it too;
    without the sandbox a step stops when it sets a header, a proxy or a login, and
    runs when it holds Debian's default (``passive_ftp = on``)."""
    for f in (".netrc", ".wgetrc"):
        (isolated_home / f).unlink()
    rc = isolated_home / "system-wgetrc"  # the step runs there: its sandbox shows it
    rc.write_text(f"passive_ftp = on\nheader = {HEADER}: from-system-wgetrc\n")
    monkeypatch.setenv("SYSTEM_WGETRC", str(rc))
    assert str(rc) in user_net_config()
    url = f"http://127.0.0.1:{server.port}/start"
    cmd = f"wget -qO- --max-redirect=0 {url}"
    runs = [tmp_path / n for n in ("a", "b", "c")]
    for d in runs:
        d.mkdir()
    step = _one(runs[0], isolated_home, cmd, "--allow", "unknown,host-network")
    assert step["action"] == "run" and server.hits == ["/start"], (step, server.hits)
    assert _leaked(server) == [], step
    step = _one(runs[1], isolated_home, cmd, "--allow", "unknown", "--no-sandbox")
    assert step["exit_code"] == 126 and "system-wgetrc" in step["output"], step
    assert server.hits == ["/start"], "the unsandboxed wget must not start"
    rc.write_text("passive_ftp = on\n")  # Debian's default: nothing to refuse
    step = _one(runs[2], isolated_home, cmd, "--allow", "unknown", "--no-sandbox")
    assert step["exit_code"] != 126 and server.hits == ["/start", "/start"], step
    assert _leaked(server) == []


def test_a_local_network_git_step_reads_none_of_this_machines_git_config(
        tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sandboxed local ``git ls-remote`` read this machine's ``~/.gitconfig``: its
    ``url.<x>.insteadOf`` sent it to another port (and a credential helper there would
    add the stored login).  Now the sandbox masks git's configuration outside the
    repository for a network git command (safe15); unsandboxed, the step stops."""
    from tests.replay.test_target_gitconfig import Listener

    for var in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    first, other = Listener("127.0.0.1"), Listener("127.0.0.2")
    try:
        (isolated_home / ".gitconfig").write_text(
            f'[url "git://127.0.0.2:{other.port}/"]\n'
            f"\tinsteadOf = git://127.0.0.1:{first.port}/\n")
        assert str(isolated_home / ".gitconfig") in git_config_files()
        cmd = f"git ls-remote git://127.0.0.1:{first.port}/repo.git"
        runs = [tmp_path / n for n in ("a", "b")]
        for d in runs:
            d.mkdir()
        step = _one(runs[0], isolated_home, cmd, "--allow", "unknown,host-network")
        assert step["action"] == "run" and other.hits == 0, (step, other.hits)
        assert first.hits == 1, step["output"]  # it went where the transcript says
        step = _one(runs[1], isolated_home, cmd, "--allow", "unknown", "--no-sandbox")
        assert step["exit_code"] == 126 and "refused" in step["output"], step
        assert other.hits == 0 and first.hits == 1
    finally:
        first.close()
        other.close()


def test_a_sandboxed_network_git_step_reads_no_git_config_from_the_environment(
        tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """git reads configuration from the environment too (``GIT_CONFIG_COUNT``/
    ``GIT_CONFIG_KEY_0``, ``GIT_CONFIG_PARAMETERS``): an unsandboxed or remote step
    unsets them (:data:`kb.replay.sshexec._GIT_ENV`), and a sandboxed local one let this
    machine's ``url.<x>.insteadOf`` send ``git ls-remote`` to another port (review15)."""
    from tests.replay.test_target_gitconfig import Listener

    for var in ("GIT_CONFIG_GLOBAL", "GIT_CONFIG_SYSTEM", "XDG_CONFIG_HOME"):
        monkeypatch.delenv(var, raising=False)
    first, other = Listener("127.0.0.1"), Listener("127.0.0.2")
    try:
        monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
        monkeypatch.setenv("GIT_CONFIG_KEY_0", f"url.git://127.0.0.2:{other.port}/.insteadOf")
        monkeypatch.setenv("GIT_CONFIG_VALUE_0", f"git://127.0.0.1:{first.port}/")
        cmd = f"git ls-remote git://127.0.0.1:{first.port}/repo.git"
        step = _one(tmp_path, isolated_home, cmd, "--allow", "unknown,host-network")
        assert step["action"] == "run" and other.hits == 0, (step, other.hits)
        assert first.hits == 1, step["output"]  # it went where the transcript says
    finally:
        first.close()
        other.close()
