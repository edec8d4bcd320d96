"""Execution against a real sshd on 127.0.0.1: verdicts, sharing, launches, timeouts, records."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
from pathlib import Path

from click.testing import CliRunner, Result

from kb.cli import cli
from kb.exitcodes import ExitCode
from kb.replay.run import latest_verdicts
from kb.store import KbStore
from tests.replay.conftest import RECORDED_HOST, Guard, make_session, ordinals
from tests.replay.sshd import LoopbackSshd, free_port


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def steps_of(r: Result) -> dict[int, dict]:
    return {s["ordinal"]: s for s in (json.loads(x) for x in r.stdout.splitlines())}


def port_open(port: int) -> bool:
    with socket.socket() as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


def no_process(marker: str, within: float = 5.0) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if subprocess.run(["pgrep", "-f", marker], stdout=subprocess.DEVNULL).returncode != 0:
            return True
        time.sleep(0.1)
    return False


def test_guard_refuses_a_non_loopback_ssh(ssh_guard: Guard) -> None:
    try:
        subprocess.Popen(["ssh", f"root@{RECORDED_HOST}", "true"])
    except AssertionError as e:
        assert RECORDED_HOST in str(e)
    else:  # pragma: no cover
        raise AssertionError("the guard let an ssh to the recorded host start")
    assert ssh_guard.violations
    ssh_guard.violations.clear()


def test_network_namespace_has_only_loopback(loopback_netns: bool) -> None:
    if not loopback_netns:
        return  # not root: the argv guard and LOGKB_REPLAY_LOOPBACK_ONLY still hold
    assert [name for _, name in socket.if_nameindex()] == ["lo"]
    with socket.socket() as s:
        s.settimeout(1)
        assert s.connect_ex((RECORDED_HOST, 22)) != 0  # unreachable: no route at all


def test_fixture_read_only_steps_over_ssh(fixture_db: Path, config: Path, sshd: LoopbackSshd,
                                          ssh_guard: Guard) -> None:
    before = sshd.handshakes()
    r = run("replay", "run", "--db", str(fixture_db), "--from", "5214", "--json")
    assert r.exit_code == ExitCode.REPLAY_CHANGED, r.stderr
    steps = steps_of(r)
    assert set(steps) == {5214, 5215, 5216, 5217, 5218, 5219, 5220, 5221, 5222, 5223, 5224,
                          5227}
    ran = {o for o, s in steps.items() if s["action"] == "run"}
    assert ran == {5216, 5217, 5218, 5219}
    for o, s in steps.items():
        assert {"verdict", "exit_code", "recorded_exit_code", "output", "measurements",
                "run_id"} <= set(s)
        if o not in ran:
            assert s["verdict"] == "skipped" and s["output"] is None
    # 5216: the deep_ep import check no longer finds /root/ml-env, and its nested ssh,
    # which never answered when recorded (host key verification), now runs
    s = steps[5216]
    assert s["verdict"] == "now-answers"
    assert s["recorded_answered"] is False and s["answered"] is True and s["revisit"] is True
    assert s["recorded_exit_code"] == 255
    assert s["output"].count("/root/ml-env/bin/python3: No such file or directory") == 2
    assert "Host key verification failed" in s["explanation"]
    assert "never fully answered" in s["explanation"]
    assert "the nested ssh to 10.1.230.174 never ran its command" in s["explanation"]
    assert "deep_ep" in s["explanation"]
    # 5217: pip show failed then too, now for another reason
    assert steps[5217]["verdict"] in ("changed", "now-fails")
    assert "No such file or directory" in steps[5217]["explanation"]
    # 5218/5219: the grep and sed of server_args.py worked when recorded, now fail
    assert steps[5218]["verdict"] == "now-fails"
    assert steps[5219]["verdict"] == "now-fails"
    assert "server_args.py: No such file or directory" in steps[5219]["explanation"]
    # connection sharing: one handshake for the four steps, one for the nested ssh
    # that 5216 runs on the target itself
    assert sshd.handshakes() - before == 2
    ssh = ssh_guard.ssh_spawns()
    assert sum(1 for a in ssh if "-M" in a) == 1
    assert sum(1 for a in ssh if "-O" in a and "exit" in a) == 1
    # the control directory is gone
    ctl = next(a[a.index("-S") + 1] for a in ssh if "-S" in a)
    assert not Path(ctl).parent.exists()

    # the run is stored, and visible in the history
    with KbStore(fixture_db, read_only=True) as store:
        sid = store.resolve_session(None)
        latest = latest_verdicts(store, sid)
    assert latest[5216].verdict == "now-answers" and latest[5216].revisit
    assert latest[5218].verdict == "now-fails"
    assert 5220 not in latest  # skipped steps say nothing about the world
    h = run("replay", "show", "--db", str(fixture_db))
    assert h.exit_code == 0
    assert s["run_id"] in h.stdout and "1 now-answers" in h.stdout and "4/12 run" in h.stdout
    h2 = run("replay", "compare", "5216", "--db", str(fixture_db), "--json")
    rows = [json.loads(x) for x in h2.stdout.splitlines()]
    assert [x["verdict"] for x in rows] == ["now-answers"]
    assert rows[0]["recorded_answered"] is False


def test_history_shows_how_a_step_evolved(fixture_db: Path, config: Path) -> None:
    for _ in range(2):
        r = run("replay", "run", "--db", str(fixture_db), "--from", "5218", "--to", "5218")
        assert r.exit_code == ExitCode.REPLAY_CHANGED, r.stderr
        assert "NOW-FAILS" in r.stdout
        assert "grep: /root/sglang/python/sglang/srt/server_args.py" in r.stderr  # streamed
    h = run("replay", "compare", "5218", "--db", str(fixture_db))
    lines = [ln for ln in h.stdout.splitlines() if "now-fails" in ln]
    assert len(lines) == 2
    assert "succeeded when recorded and now fails" in h.stdout
    runs = run("replay", "show", "--db", str(fixture_db), "--json")
    assert len(runs.stdout.splitlines()) == 2
    doc = json.loads(runs.stdout.splitlines()[0])
    assert doc["verdicts"] == {"now-fails": 1} and doc["status"] == "completed"
    assert doc["targets"][RECORDED_HOST]["target"].endswith(f"@127.0.0.1:{config.read_text().split(':')[1].split(chr(34))[0]}")


def test_connection_sharing_one_handshake_for_many_steps(tmp_path: Path, config: Path,
                                                         sshd: LoopbackSshd) -> None:
    calls = [(f"ssh root@{RECORDED_HOST} 'echo step {i}; uname -s'", f"step {i}\nLinux\n", 0)
             for i in range(8)]
    db = make_session(tmp_path, calls)
    before = sshd.handshakes()
    t0 = time.monotonic()
    r = run("replay", "run", "--db", str(db), "--from", "1", "--json")
    elapsed = time.monotonic() - t0
    assert r.exit_code == 0, (r.stdout, r.stderr)
    verdicts = [s["verdict"] for s in steps_of(r).values()]
    assert verdicts == ["same"] * 8
    assert sshd.handshakes() - before == 1
    assert elapsed < 10


def test_launch_waits_for_readiness_and_is_stopped(tmp_path: Path, config: Path,
                                                   ssh_guard: Guard) -> None:
    port = free_port()
    log = f"/tmp/logkb-replay-test-http-{port}.log"
    cmd = (f"ssh root@{RECORDED_HOST} 'nohup python3 -m http.server {port} --bind 127.0.0.1 "
           f"> {log} 2>&1 & sleep 30; tail -n 5 {log}'")
    db = make_session(tmp_path, [(cmd, f"Serving HTTP on 127.0.0.1 port {port} "
                                       f"(http://127.0.0.1:{port}/) ...\n", 0)])
    plan = run("replay", "plan", "--db", str(db), "--from", "1", "--json")
    (step,) = steps_of(plan).values()
    # its log under /tmp is a write: mutating (it was `launch` before /tmp counted)
    assert step["safety"] == "mutating" and step["action"] == "skip"
    assert "--allow mutating" in step["reason"]
    assert step["launch"]["port"] == port and step["launch"]["log"] == log

    t0 = time.monotonic()
    r = run("replay", "run", "--db", str(db), "--from", "1", "--allow",
            "launch,mutating", "--json")
    assert time.monotonic() - t0 < 20  # ready on the port, not after the recorded sleep 30
    assert r.exit_code == 0, (r.stdout, r.stderr)
    (res,) = steps_of(r).values()
    assert res["verdict"] == "same", res["reason"]
    assert res["launch_result"]["ready"] == "port"
    assert res["launch_result"]["pgid"] > 0
    assert "came up as when recorded" in res["explanation"]
    # stopped at the end of the run: the port is closed, the server gone
    assert not port_open(port)
    assert no_process(f"http.server {port}")
    # the launch directory on the target is gone too
    assert not Path(res["launch_result"]["dir"]).exists()
    os.unlink(log) if os.path.exists(log) else None

    # --keep-running leaves it up (on the target's own network with host-network; without
    # it, the server is up in a namespace of its own: tests/replay/test_network_wall.py)
    r = run("replay", "run", "--db", str(db), "--from", "1", "--allow",
            "launch,mutating,host-network", "--keep-running", "--json")
    (res,) = steps_of(r).values()
    try:
        assert res["verdict"] == "same"
        assert port_open(port)
        assert "left running" in r.stderr
    finally:
        os.killpg(res["launch_result"]["pgid"], signal.SIGTERM)
        shutil.rmtree(res["launch_result"]["dir"], ignore_errors=True)
    assert no_process(f"http.server {port}")
    if os.path.exists(log):
        os.unlink(log)


def test_timeout_kills_the_step_on_both_ends(tmp_path: Path, config: Path) -> None:
    remote = f"ssh root@{RECORDED_HOST} 'sleep 31.7; echo done'"
    local = "sleep 31.8; echo done"
    work = tmp_path / "work"
    work.mkdir()
    db = make_session(tmp_path, [(remote, "done\n", 0), (local, "done\n", 0)],
                      directory=str(work))
    t0 = time.monotonic()
    r = run("replay", "run", "--db", str(db), "--from", "1", "--timeout", "1", "--json")
    assert time.monotonic() - t0 < 10
    assert r.exit_code == ExitCode.REPLAY_CHANGED
    for s in steps_of(r).values():
        assert s["timed_out"] is True and s["exit_code"] is None
        assert s["verdict"] == "now-fails"
        assert "timed out after 1 s" in s["explanation"]
    assert no_process("sleep 31.7")
    assert no_process("sleep 31.8")


def test_local_targets(tmp_path: Path, isolated_home: Path) -> None:
    work = tmp_path / "proj"
    work.mkdir()
    (work / "notes.txt").write_text("hello from the workdir\n")
    calls = [("cat notes.txt", "hello from the workdir\n", 0),
             ("ls missing-file", "ls: cannot access 'missing-file': No such file or directory\n",
              2),
             (f"ssh root@{RECORDED_HOST} 'cat notes.txt'", "hello from the workdir\n", 0)]
    db = make_session(tmp_path, calls, directory=str(work))
    o = ordinals(db)
    r = run("replay", "run", "--db", str(db), "--from", "1", "--json")
    steps = steps_of(r)
    # local commands run in the recorded working directory
    assert steps[o[0]]["target"] == "local" and steps[o[0]]["cwd"] == str(work)
    assert steps[o[0]]["verdict"] == "same"
    assert steps[o[1]]["verdict"] == "same"  # it failed then and fails the same way now
    # the ssh step is refused: the host is not mapped
    assert steps[o[2]]["verdict"] == "skipped" and "no host-map entry" in steps[o[2]]["reason"]
    assert r.exit_code == 0
    # mapped to local, the remote command runs here (in the home directory, like ssh)
    (isolated_home / "notes.txt").write_text("hello from the workdir\n")
    r = run("replay", "run", "--db", str(db), "--from", str(o[2]), "--host-map",
            f"{RECORDED_HOST}=local", "--json")
    (s,) = steps_of(r).values()
    assert s["target"] == "local" and s["verdict"] == "same", s
    # a missing working directory skips local commands, with the reason
    db2 = make_session(tmp_path / "b", [("cat notes.txt", "x\n", 0)],
                       directory=str(tmp_path / "gone"))
    r = run("replay", "run", "--db", str(db2), "--from", "1", "--json")
    (s,) = steps_of(r).values()
    assert s["verdict"] == "skipped"
    assert "working directory" in s["reason"] and "does not exist here" in s["reason"]


def test_yes_confirms_a_recorded_host_as_recorded(tmp_path: Path, sshd: LoopbackSshd,
                                                  isolated_home: Path) -> None:
    opts = " ".join(f"-o {o}" for o in sshd.client_options())
    cmd = (f"ssh -p {sshd.port} -i {sshd.key} {opts} {sshd.user}@127.0.0.1 "
           "'echo confirmed'")
    db = make_session(tmp_path, [(cmd, "confirmed\n", 0)])
    r = run("replay", "run", "--db", str(db), "--from", "1", "--json")
    (s,) = steps_of(r).values()
    assert s["verdict"] == "skipped" and "no host-map entry for 127.0.0.1" in s["reason"]
    r = run("replay", "run", "--db", str(db), "--from", "1", "--yes", "--json")
    (s,) = steps_of(r).values()
    assert s["verdict"] == "same", s
    assert s["target"] == f"{sshd.user}@127.0.0.1:{sshd.port}"


def test_text_output_streams_to_stderr_and_keeps_stdout_for_data(fixture_db: Path,
                                                                 config: Path) -> None:
    r = run("replay", "run", "--db", str(fixture_db), "--from", "5219", "--to", "5219")
    assert r.exit_code == ExitCode.REPLAY_CHANGED
    assert "sed: can't read" in r.stderr and "── 5219 on" in r.stderr
    assert "NOW-FAILS" in r.stdout and "sed: can't read" in r.stdout  # in the explanation
    assert "stored" in r.stderr


def test_local_launch_ready_after_the_recorded_sleep_and_stopped(tmp_path: Path,
                                                                 isolated_home: Path) -> None:
    work = tmp_path / "w"
    work.mkdir()
    log = tmp_path / "launch.log"
    cmd = f"nohup sleep 61.3 > {log} 2>&1 & sleep 1; echo started"
    db = make_session(tmp_path, [(cmd, "started\n", 0)], directory=str(work))
    r = run("replay", "run", "--db", str(db), "--from", "1", "--allow",
            "launch,mutating", "--json")
    (s,) = steps_of(r).values()
    assert s["target"] == "local" and s["launch"] and s["launch"]["sleep"] == 1.0, s
    assert s["launch_result"]["ready"] == "slept", s
    assert s["verdict"] == "same", s["explanation"]
    assert no_process("sleep 61.3")  # stopped at the end of the run
    assert r.exit_code == 0


def test_an_unreachable_target_is_one_failed_connection_not_an_answer(
        tmp_path: Path, sshd: LoopbackSshd, isolated_home: Path, ssh_guard: Guard) -> None:
    wrong = tmp_path / "wrong_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(wrong)],
                   check=True)
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "logkb" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(sshd.config_toml(RECORDED_HOST).replace(str(sshd.key), str(wrong)))
    calls = [(f"ssh root@{RECORDED_HOST} 'echo {i}'", f"{i}\n", 0) for i in range(3)]
    db = make_session(tmp_path, calls)
    r = run("replay", "run", "--db", str(db), "--from", "1", "--json")
    assert r.exit_code == ExitCode.REPLAY_CHANGED
    for s in steps_of(r).values():
        assert s["verdict"] == "now-fails" and s["answered"] is False
        assert "Permission denied" in s["explanation"]
        assert "Nothing is known about its current state" in s["explanation"]
    assert "cannot connect to" in r.stderr
    # one attempt (the master), not one per step
    assert sum(1 for a in ssh_guard.ssh_spawns() if "-M" in a) == 1
    assert len([a for a in ssh_guard.ssh_spawns() if "-M" not in a and "-O" not in a]) == 0


def test_only_filters_categories(fixture_db: Path) -> None:
    r = run("replay", "plan", "--db", str(fixture_db), "--from", "5214", "--only", "search,kill",
            "--json")
    assert [json.loads(x)["ordinal"] for x in r.stdout.splitlines()] == [5218, 5219, 5220]


def test_local_parts_nested_ssh_and_heredocs_share_the_connection(
        tmp_path: Path, config: Path, sshd: LoopbackSshd) -> None:
    work = tmp_path / "w"
    work.mkdir()
    calls = [
        (f"sleep 0.1 && ssh root@{RECORDED_HOST} 'echo nested'", "nested\n", 0),
        (f"ssh root@{RECORDED_HOST} 'printf \"a\\nb\\nc\\n\"' | head -2", "a\nb\n", 0),
        (f"ssh root@{RECORDED_HOST} bash -s <<'EOF'\necho from-heredoc\nuname -s\nEOF",
         "from-heredoc\nLinux\n", 0),
    ]
    db = make_session(tmp_path, calls, directory=str(work))
    before = sshd.handshakes()
    r = run("replay", "run", "--db", str(db), "--from", "1", "--json")
    steps = list(steps_of(r).values())
    assert [s["verdict"] for s in steps] == ["same"] * 3, [s["reason"] for s in steps]
    assert steps[0]["target"] == "local" and steps[0]["cwd"] == str(work)
    assert RECORDED_HOST not in steps[0]["run_command"]
    assert steps[1]["run_command"].endswith("| head -2")
    assert steps[2]["run_command"].endswith("<<'EOF'\necho from-heredoc\nuname -s\nEOF")
    assert sshd.handshakes() - before == 1
    assert r.exit_code == 0
