"""A host the shell builds at run time is never contacted, whatever --allow says.

``H=10.1.230.174; ssh root@$H 'nvidia-smi'``, ``scp x ${USER}@${HOST}:``, ``git clone
"$URL"``: the host map is keyed by the host the text names, and these name none.
On main only consent guarded them: ``--allow mutating`` ran the scp and the clone,
``--yes`` crashed on ``$H`` (HostMapError) and the copy tools, git, httpie, package
indexes, database URIs and ``DOCKER_HOST=$H`` ran with ``--allow``.  Now each is
refused in the plan with why (``replay run`` exits 1: nothing ran), unless an ssh
destination is mapped explicitly (``--host-map '$H=TARGET'``).  A real listener on the
tests' loopback, with the sandbox off and every ``--allow``, is never reached.
"""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from kb.replay.hostmap import HostMap, build_host_map, is_literal_host
from tests.replay.conftest import RECORDED_HOST, make_session
from tests.replay.sshd import LoopbackSshd
from tests.replay.test_network_wall import Listener, _wait_for
from tests.replay.test_plan import plan_for

ALL = ("launch", "mutating", "unknown", "host-network")


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def steps_of(r: Result) -> list[dict]:
    return [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]


def _proj(tmp_path: Path) -> str:
    (tmp_path / "proj").mkdir(exist_ok=True)
    return str(tmp_path / "proj")


BUILT = [
    "scp x ${USER}@${HOST}:",
    "scp x $H:/tmp",
    "scp \"$SRC\" /tmp/y",
    "rsync -e ssh . \"$DEST\"",
    "rsync -a . $H:/x",
    "rsync -av \"$SRC/\" /srv/y/",
    "sshfs $H:/ /mnt",
    "rsync -a . rsync://$H/mod",
    "scp x scp://$H/tmp",
    "sftp $H",
    "git clone $URL",
    "git clone --depth 1 \"$URL\" /tmp/x",
    "git fetch \"$REMOTE\"",
    "git push $R main",
    "git pull $R",
    "git submodule add $U",
    "git clone ssh://$H/srv/repo.git",
    "http GET $URL",
    "http $H:8000/health",
    "aria2c $URL",
    "curl \"$URL\"",
    "curl http://$IP:8000/health",
    "curl -x $P http://127.0.0.1/",
    "wget -e https_proxy=$P http://127.0.0.1/",
    "nc -z $H 22",
    "ping -c1 \"$H\"",
    "dig @$NS example.org",
    "psql \"$DSN\" -c 'select 1'",
    "PGHOST=$H psql -c 'select 1'",
    "psql -tAh $H -c 'select 1'",
    "psql -tA \"$DSN\"",
    "redis-cli -u $REDIS_URL ping",
    "mongosh \"$MONGO_URI\"",
    "DOCKER_HOST=$H docker info",
    "export DOCKER_HOST=tcp://$H:2375; docker info",
    "pip install --index-url $IDX foo",
    "uv pip install --index-url \"$IDX\" x",
    "python3 -m pip install -i $I x",
    "npm install --registry $REG",
    f"ssh root@{RECORDED_HOST} 'scp /etc/hostname $H:/tmp/'",
    f"ssh root@{RECORDED_HOST} \"H=10.0.0.5; rsync -a . \\$H:/x\"",
]


@pytest.mark.parametrize("command", BUILT)
def test_a_host_built_at_run_time_is_refused_whatever_allow_says(
        command: str, tmp_path: Path) -> None:
    hm = build_host_map([f"{RECORDED_HOST}=root@127.0.0.1"])
    (step,) = plan_for([command], hm, allow=ALL, workdir=_proj(tmp_path)).steps
    assert step.action == "skip", (step.action, step.reason)
    assert "computed at run time" in step.reason, step.reason


RUNTIME_SSH = [
    "H=10.1.230.174; ssh root@$H 'nvidia-smi'",
    "ssh \"$TARGET\" nvidia-smi",
    "ssh $(cat host.txt) uptime",
    "ssh `cat host.txt` uptime",
    "ssh root@${HOSTS[0]} uptime",
    "ssh gpu-$N uptime",
    "ssh {a,b} uptime",
    f"ssh root@{RECORDED_HOST} 'ssh $H uptime'",
]


@pytest.mark.parametrize("command", RUNTIME_SSH)
def test_an_ssh_destination_built_at_run_time_cannot_be_confirmed(command: str) -> None:
    hm = build_host_map([f"{RECORDED_HOST}=root@127.0.0.1"])
    (step,) = plan_for([command], hm, allow=ALL).steps
    assert step.action == "skip" and step.unmapped, step.reason
    assert "computed at run time" in step.reason and "--yes does not" in step.reason
    for host in step.unmapped:
        if host != RECORDED_HOST:
            assert not is_literal_host(host)
            assert HostMap().confirm(host) is False  # what --yes does: nothing


@pytest.mark.parametrize("command", [
    "curl http://127.0.0.1:$PORT/health",
    "curl -H \"Authorization: Bearer $TOKEN\" http://127.0.0.1:8000/",
    "rsync -a \"/srv/$NAME/\" /tmp/y/",
    "rsync -a ./$NAME /tmp/y/",
    "git push origin \"$BRANCH\"",
    "git clone /srv/repo.git \"$DIR\"",
    "psql -h 127.0.0.1 -U \"$PGUSER\" -c 'select 1'",
    "psql -h 127.0.0.1 -tAc 'SELECT count(*) FROM t'",
    "psql -h 127.0.0.1 -p \"$PGPORT\" -c 'select 1'",
    "DOCKER_HOST=unix:///run/user/$UID/docker.sock docker info",
    "pip install --index-url http://127.0.0.1:8080/simple \"$PKG\"",
])
def test_a_computed_word_that_is_not_the_host_still_runs(command: str, tmp_path: Path) -> None:
    """Too strict hurts users too: a computed port, token, path, branch or package."""
    hm = build_host_map([])
    (step,) = plan_for([command], hm, allow=("launch", "mutating", "unknown"),
                       workdir=_proj(tmp_path)).steps
    assert step.action == "run", step.reason


def test_yes_refuses_a_computed_ssh_destination_and_exits_1(
        tmp_path: Path, isolated_home: Path) -> None:
    """On main ``--yes`` crashed here (HostMapError on ``$H``); now the step is refused."""
    db = make_session(tmp_path, [("H=127.0.0.1; ssh root@$H uptime", "", 0)])
    r = CliRunner().invoke(cli, ["replay", "run", "--db", str(db), "--from", "1", "--yes",
                                 "--allow", ",".join(ALL), "--json"])
    assert r.exit_code == 1, r.output
    (step,) = steps_of(r)
    assert step["verdict"] == "skipped", step
    assert "computed at run time" in step["reason"], step["reason"]
    assert "HostMapError" not in r.output


def test_a_computed_ssh_destination_mapped_explicitly_runs(
        tmp_path: Path, config: Path, sshd: LoopbackSshd) -> None:
    db = make_session(tmp_path, [("H=gpu-box; ssh root@$H 'echo mapped-$((6*7))'",
                                  "mapped-42\n", 0)], directory=str(tmp_path))
    before = sshd.handshakes()
    r = run("replay", "run", "--db", str(db), "--from", "1", "--host-map",
            f"$H={sshd.target}", "--json")
    (step,) = steps_of(r)
    assert step["action"] == "run", step["reason"]
    assert "mapped-42" in (step["output"] or ""), step
    assert sshd.handshakes() > before


@pytest.mark.parametrize("remote", [False, True])
def test_no_connection_to_a_computed_host_even_unsandboxed_with_every_allow(
        tmp_path: Path, config: Path, remote: bool) -> None:
    """The listener stands for the unmapped host.  On main the scp and the clone
    reached it (the sandbox off, ``--allow mutating``), here and on the target."""
    listener = Listener()
    try:
        work = tmp_path / "w"
        work.mkdir()
        p = listener.port
        cmds = [
            f"H=127.0.0.1; scp -P {p} -o BatchMode=yes -o ConnectTimeout=3 "
            f"-o StrictHostKeyChecking=no /etc/hostname root@$H:/tmp/x",
            f"U=http://127.0.0.1:{p}/r.git; git clone -q \"$U\" clone-x",
        ]
        if remote:
            cmds = [f"ssh root@{RECORDED_HOST} {shlex.quote(c)}" for c in cmds]
        db = make_session(tmp_path, [(c, "", 0) for c in cmds], directory=str(work))
        r = run("replay", "run", "--db", str(db), "--from", "1", "--no-sandbox",
                "--remote-sandbox", "off", "--yes", "--allow", ",".join(ALL), "--json",
                "--timeout", "10")
        steps = steps_of(r)
        assert len(steps) == 2
        for s in steps:
            assert s["verdict"] == "skipped" and "computed at run time" in s["reason"], s
        assert r.exit_code == 1
        assert not _wait_for(lambda: bool(listener.received), within=1.0), \
            f"a computed host was reached: {listener.received}"
    finally:
        listener.close()
