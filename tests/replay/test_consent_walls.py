"""What ``--allow`` is not: consent to write the home directory, or to reach hosts.

``--allow mutating`` opens a project directory and ``/tmp``, never ``/`` or the home
directory, wherever the step lands: an ssh mapped to ``local`` runs in the home
directory here, and an ssh session on a target starts in the home directory there
(on main both were bound read-write).  ``--allow unknown,host-network`` gives a step
the machine's network, but a host the text names is still an endpoint outside the
host map, whatever program or language names it.  Against the real sshd and bwrap.
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from kb.replay.sandbox import local_bwrap
from tests.replay.conftest import RECORDED_HOST, make_session, ordinals
from tests.replay.sshd import LoopbackSshd
from tests.replay.test_plan import plan_for

needs_bwrap = pytest.mark.skipif(local_bwrap() is None, reason="bwrap does not work here")


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def steps_of(r: Result) -> list[dict]:
    return [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]


@needs_bwrap
def test_an_ssh_mapped_to_local_never_writes_the_home_directory(
        tmp_path: Path, isolated_home: Path) -> None:
    home = Path.home()
    planted = home / ".bashrc"
    work = tmp_path / "proj"
    work.mkdir()
    db = make_session(tmp_path, [(f"ssh root@{RECORDED_HOST} 'echo pwned >> .bashrc'", "", 0)],
                      directory=str(work))
    r = run("replay", "run", "--db", str(db), "--from", str(ordinals(db)[0]),
            "--host-map", f"{RECORDED_HOST}=local", "--allow", "mutating", "--json")
    (step,) = steps_of(r)
    assert not planted.exists(), "the home directory was written"
    assert step["verdict"] == "skipped" and "home directory" in step["reason"], step


@needs_bwrap
def test_a_remote_mutating_step_never_writes_the_login_directory(
        tmp_path: Path, config: Path, sshd: LoopbackSshd) -> None:
    """The ssh session starts in the user's home directory on the target (sshd's chdir):
    a mutating step gets /tmp there, as the plan says, not the home directory."""
    name = f"logkb-planted-{secrets.token_hex(4)}"
    login_dir = Path(os.path.expanduser(f"~{sshd.user}"))
    planted = login_dir / name
    db = make_session(tmp_path, [(f"ssh root@{RECORDED_HOST} 'echo x > {name}; "
                                  f"echo y > /tmp/{name}; cat /tmp/{name}'", "y\n", 0)])
    try:
        r = run("replay", "run", "--db", str(db), "--from", str(ordinals(db)[0]),
                "--allow", "mutating", "--json")
        (step,) = steps_of(r)
        assert step["action"] == "run", step
        assert not planted.exists(), f"{planted} was written on the target"
        assert "Read-only file system" in (step["output"] or ""), step["output"]
        assert "y" in (step["output"] or "").split(), step["output"]  # /tmp still is writable
    finally:
        planted.unlink(missing_ok=True)
        Path(f"/tmp/{name}").unlink(missing_ok=True)


ALL = ("unknown", "host-network", "launch", "mutating")


@pytest.mark.parametrize("command", [
    "python3 -c \"import socket; socket.create_connection(('db.internal', 5432))\"",
    "python3 -c \"import http.client as h; h.HTTPConnection('db.internal').request('GET', '/')\"",
    "python3 - <<'EOF'\nimport socket\nsocket.create_connection(('db.internal', 80))\nEOF",
    "node -e \"require('net').connect(5432, 'db.internal')\"",
    "perl -MIO::Socket -e 'IO::Socket::INET->new(\"db.internal:5432\")'",
    "ruby -rsocket -e 'TCPSocket.new(\"db.internal\", 80)'",
    "psql -h db.internal -c 'select 1'",
    "psql --host=db.internal -c 'select 1'",
    "psql 'postgresql://app@db.internal/app' -c 'select 1'",
    "mysql -h db.internal -e 'select 1'",
    "redis-cli -h db.internal ping",
    "openssl s_client -connect db.internal:443",
    "mongosh --host db.internal",
    "nmap -p 22 db.internal",
    "traceroute db.internal",
    "ssh-keyscan db.internal",
    "node -e \"require('net').connect(80, '10.0.0.1')\"",
    "perl -MIO::Socket -e 'IO::Socket::INET->new(\"10.0.0.1:80\")'",
    "python3 -c \"import socket; socket.create_connection(('2001:db8::1', 80))\"",
])
def test_a_named_host_is_refused_whatever_allow_says(command: str) -> None:
    from kb.replay.hostmap import build_host_map

    plan = plan_for([command], build_host_map([], {}), allow=ALL, workdir="/")
    (step,) = plan.steps
    assert step.action == "skip", (command, step.safety, step.reason)
    assert any(h in step.reason for h in ("db.internal", "10.0.0.1", "2001:db8::1")), (
        step.reason)


@pytest.mark.parametrize("command", [
    "python3 -c \"import socket; socket.create_connection(('127.0.0.1', 5432))\"",
    "python3 -c \"import os.path; print(os.path.sep)\"",
    "psql -h localhost -c 'select 1'",
    "redis-cli -h 127.0.0.1 ping",
    "node -e \"console.log(require('path').join('a.b', 'c.json'))\"",
])
def test_loopback_and_dotted_names_that_are_no_hosts_still_run(command: str,
                                                               tmp_path: Path) -> None:
    from kb.replay.hostmap import build_host_map

    plan = plan_for([command], build_host_map([], {}), allow=ALL, workdir=str(tmp_path))
    (step,) = plan.steps
    assert step.action == "run", (command, step.reason)


@pytest.mark.parametrize("sandboxed", [True, False], ids=["bwrap", "no-sandbox"])
def test_this_machines_exported_functions_never_replace_a_vetted_program(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandboxed: bool) -> None:
    """A read-only ``ls`` is vetted as the program ls: a function exported in the
    environment replay runs in (``BASH_FUNC_ls%%``), or ``xtrace`` with a ``PS4`` that
    holds ``$(…)``, must not run code instead (on main both did, bwrap or not)."""
    from kb.replay.sandbox import Policy
    from kb.replay.sshexec import Executor

    if sandboxed and local_bwrap() is None:
        pytest.skip("bwrap does not work here")
    seen = tmp_path / "seen"
    seen.mkdir()
    monkeypatch.setenv("BASH_FUNC_ls%%", "() { echo FUNCTION-RAN; }")
    monkeypatch.setenv("SHELLOPTS", "xtrace")
    monkeypatch.setenv("PS4", "$(echo PS4-RAN >&2)+ ")
    with Executor(tmp_path / "ctl", [], bwrap=local_bwrap() if sandboxed else None) as ex:
        out = ex.run_local("ls", cwd=str(seen), timeout=30,
                           sandbox=Policy(vetted=True) if sandboxed else None)
    assert "FUNCTION-RAN" not in out.output and "PS4-RAN" not in out.output, out.output
    assert out.exit_code == 0, out.output


@pytest.mark.parametrize(("command", "refused"), [
    ("python3 -m http.server 8000", True),  # binds every interface by default
    ("python3 -m http.server --bind 0.0.0.0 8000", True),
    ("uvicorn app:app --host 0.0.0.0 --port 8000", True),
    ("gunicorn -b :8000 app:app", True),
    ("python3 -m http.server --bind 127.0.0.1 8000", False),
    ("uvicorn app:app --host 127.0.0.1 --port 8000", False),
])
def test_a_launch_with_host_network_never_serves_the_local_network(
        command: str, refused: bool, tmp_path: Path) -> None:
    """--allow launch,host-network lets a server be reached from later steps, not from
    the local network: on main ``python3 -m http.server`` served the working directory
    on every interface.  In its own namespace (no host-network) it may bind anything."""
    from kb.replay.hostmap import build_host_map

    work = tmp_path / "proj"
    work.mkdir()
    wide = plan_for([command], build_host_map([], {}), allow=ALL, workdir=str(work))
    (step,) = wide.steps
    assert (step.action == "skip") == refused, (command, step.reason)
    if refused:
        assert "every interface" in step.reason or "listen on" in step.reason, step.reason
    own = plan_for([command], build_host_map([], {}), allow=("launch", "unknown"),
                   workdir=str(work))
    assert own.steps[0].action == "run", (command, own.steps[0].reason)


@pytest.mark.parametrize("sandboxed", [True, False], ids=["bwrap", "no-sandbox"])
@pytest.mark.parametrize("path", [":{}", "{}:", ".:{}", "bin:{}"])
def test_a_relative_path_entry_never_finds_the_repositorys_programs(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, sandboxed: bool, path: str) -> None:
    """``PATH=/usr/bin:`` (an empty entry: the working directory) made a vetted ``ls``
    run an executable ``ls`` of the recorded repository, bwrap or not."""
    from kb.replay.sshexec import Executor

    if sandboxed and local_bwrap() is None:
        pytest.skip("bwrap does not work here")
    from kb.replay.sandbox import Policy

    repo = tmp_path / "repo"
    (repo / "bin").mkdir(parents=True)
    for fake in (repo / "ls", repo / "bin" / "ls"):
        fake.write_text("#!/bin/sh\necho REPO-LS-RAN\n")
        fake.chmod(0o755)
    monkeypatch.setenv("PATH", path.format("/usr/bin:/bin"))
    with Executor(tmp_path / "ctl", [], bwrap=local_bwrap() if sandboxed else None) as ex:
        out = ex.run_local("ls", cwd=str(repo), timeout=30,
                           sandbox=Policy(vetted=True) if sandboxed else None)
    assert "REPO-LS-RAN" not in out.output, out.output
    assert "bin" in out.output.split(), out.output


@pytest.mark.parametrize("command", ["kubectl get pods -A", "oc get pods",
                                     "aws s3 ls", "gcloud compute instances list",
                                     "az vm list", "terraform plan", "helm list",
                                     "getent hosts build-server.internal"])
def test_a_remote_only_this_machines_config_names_is_refused_whatever_allow_says(
        command: str, tmp_path: Path) -> None:
    """kubectl's cluster, a cloud CLI's API and the resolver are hosts the text never
    shows: with --allow unknown,host-network they ran (and reached them) on main."""
    from kb.replay.hostmap import build_host_map

    plan = plan_for([command], build_host_map([], {}), allow=ALL, workdir=str(tmp_path))
    (step,) = plan.steps
    assert step.action == "skip", (command, step.reason)
    assert "configuration holds" in step.reason, step.reason
