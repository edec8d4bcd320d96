"""Planning: host maps, rewriting, classification, the plan for --from 5214 (nothing runs)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.replay.hostmap import HostMap, HostMapError, build_host_map, parse_target
from kb.replay.plan import Plan, PlanOptions, build_plan
from logparse.models import Event, SshHop
from tests.replay.conftest import RECORDED_HOST, Guard

TARGET = "root@127.0.0.1:2222"
DEEP_EP = ("ssh root@10.1.230.174 '/root/ml-env/bin/python3 -c \"import deep_ep; "
           "print(deep_ep.__version__)\" 2>&1; echo \"---\"; ssh root@10.1.230.174 "
           "\"/root/ml-env/bin/python3 -c \\\"import deepep; print(deepep)\\\" 2>&1\"'")


def run(*args: str) -> object:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def plan_for(commands: list[str], hostmap: HostMap, *, allow: tuple[str, ...] = (),
             workdir: str = "/nonexistent/workdir") -> Plan:
    events = []
    for i, cmd in enumerate(commands, start=1):
        events.append(Event(session_id="s", ordinal=i, seq=0, kind="command", message_id=f"m{i}",
                            tool="bash", command=cmd, workdir=workdir, category="other",
                            hops=[SshHop(host=RECORDED_HOST)] if RECORDED_HOST in cmd else []))
    opts = PlanOptions(allow=frozenset(allow), control_dir="/tmp/logkb-r-test")
    return build_plan("s", events, hostmap, opts, start=1, end=None)


# ---------------------------------------------------------------------------- host maps
def test_parse_targets() -> None:
    t = parse_target("root@127.0.0.1:2222")
    assert (t.kind, t.user, t.host, t.port) == ("ssh", "root", "127.0.0.1", 2222)
    assert t.label == "root@127.0.0.1:2222" and t.destination == "root@127.0.0.1"
    assert t.ssh_options() == ["-p", "2222"]
    assert parse_target("local").is_local
    alias = parse_target("gpu-box")
    assert (alias.host, alias.user, alias.port) == ("gpu-box", None, None)
    v6 = parse_target("me@[::1]:2200")
    assert (v6.host, v6.port, v6.label) == ("::1", 2200, "me@[::1]:2200")
    assert parse_target("ssh://u@h.example:22").port == 22
    assert parse_target("h").with_user("root").destination == "root@h"
    for bad in ("-oProxyCommand=x", "root@h:99999", "a b", "root@", "@h", "h:port"):
        with pytest.raises(HostMapError):
            parse_target(bad)


def test_host_map_from_cli_and_config() -> None:
    config = {"hosts": {
        "10.1.230.174": {"target": TARGET, "identity": "/k", "options": ["IdentitiesOnly=yes"]},
        "root@10.0.0.9": "gpu-b",
    }}
    hm = build_host_map(["10.9.9.9=" + TARGET], config)
    e = hm.lookup("10.1.230.174", "root")
    assert e is not None and e.source == "config" and e.target.identity == "/k"
    assert hm.lookup("10.0.0.9", "root").target.host == "gpu-b"  # type: ignore[union-attr]
    assert hm.lookup("10.0.0.9", "ubuntu") is None  # the key names the user
    # a CLI target that a config entry describes inherits its key and options
    cli_e = hm.lookup("10.9.9.9")
    assert cli_e is not None and cli_e.target.identity == "/k"
    assert cli_e.source == "--host-map"
    # the command line wins for the same key
    hm2 = build_host_map(["10.1.230.174=local"], config)
    assert hm2.lookup("10.1.230.174").target.is_local  # type: ignore[union-attr]
    for bad in ("nohost", "=x", "a=", "-x=y"):
        with pytest.raises(HostMapError):
            build_host_map([bad], {})
    with pytest.raises(HostMapError):
        build_host_map([], {"hosts": {"h": {"target": "x", "bogus": 1}}})
    with pytest.raises(HostMapError):
        build_host_map([], {"hosts": {"h": {"target": "x", "options": ["-oProxyCommand x"]}}})


# ---------------------------------------------------------------------------- rewriting
def test_nested_ssh_rewritten_at_its_exact_span() -> None:
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    step = plan_for([DEEP_EP], hm).steps[0]
    assert step.action == "run", step.reason
    assert step.target == TARGET and step.ssh_target is not None
    assert RECORDED_HOST not in (step.remote or "")
    assert RECORDED_HOST not in (step.run_command or "")
    # the nested ssh now goes to the target (with BatchMode, port) and the rest is untouched
    assert ('echo "---"; ssh -o BatchMode=yes -p 2222 root@127.0.0.1 "/root/ml-env/bin/python3 '
            '-c \\"import deepep; print(deepep)\\" 2>&1"') in step.remote  # type: ignore[operator]
    assert step.remote.startswith('/root/ml-env/bin/python3 -c "import deep_ep;')  # type: ignore[union-attr]


def test_unmapped_nested_host_refuses_the_step() -> None:
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    cmd = f"ssh root@{RECORDED_HOST} 'ls /; ssh root@10.9.9.9 uptime'"
    step = plan_for([cmd], hm).steps[0]
    assert step.action == "skip"
    assert "10.9.9.9" in step.reason and "no host-map entry" in step.reason
    assert step.unmapped == ("10.9.9.9",)


def test_multi_hop_chain_and_nested_options() -> None:
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}", "bastion=root@127.0.0.2",
                         "inner=root@127.0.0.3"], {})
    step = plan_for(["ssh bastion 'ssh inner \"ssh 10.1.230.174 uptime\"'"], hm).steps[0]
    assert step.action == "run", step.reason
    assert step.target == "root@127.0.0.2"
    remote = step.remote or ""
    assert "bastion" not in remote and "inner" not in remote and RECORDED_HOST not in remote
    assert "127.0.0.3" in remote and "127.0.0.1" in remote
    # options that pick another host, port or key, or forward, are refused in nested calls
    for opt in ("-p 22", "-J jump", "-o ProxyCommand=nc", "-L 1:h:2", "-F cfg"):
        bad = plan_for([f"ssh {RECORDED_HOST} 'ssh {opt} {RECORDED_HOST} ls'"], hm).steps[0]
        assert bad.action == "skip", opt
        assert "cannot map it safely" in bad.reason or "jumps" in bad.reason, bad.reason


def test_naming_the_recorded_host_outside_ssh_is_refused() -> None:
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    cmd = f"ssh root@{RECORDED_HOST} 'curl -s http://{RECORDED_HOST}:30000/health'"
    step = plan_for([cmd], hm, allow=("unknown",)).steps[0]
    assert step.action == "skip"
    # a URL is a network endpoint outside ssh: refused even with --allow unknown
    assert f"reaches {RECORDED_HOST}:30000 directly" in step.reason
    cmd = f"ssh root@{RECORDED_HOST} 'python3 client.py --server {RECORDED_HOST}'"
    step = plan_for([cmd], hm, allow=("unknown",)).steps[0]
    assert step.action == "skip"
    # named as an address it is an endpoint; as a name, a recorded host: refused either way
    assert (f"names the recorded host {RECORDED_HOST}" in step.reason
            or f"reaches {RECORDED_HOST} directly" in step.reason), step.reason
    # text tools may mention it (a grep for the address reaches nothing)
    ok = plan_for([f"ssh root@{RECORDED_HOST} 'grep -rn {RECORDED_HOST} /etc/hosts'"], hm)
    assert ok.steps[0].action == "run", ok.steps[0].reason


def test_nested_ssh_to_a_local_mapping_is_refused() -> None:
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}", "10.9.9.9=local"], {})
    step = plan_for([f"ssh {RECORDED_HOST} 'ssh 10.9.9.9 ls'"], hm).steps[0]
    assert step.action == "skip" and "maps to local" in step.reason


def test_unsafe_characters_in_a_nested_target_are_refused() -> None:
    hm = HostMap()
    hm.add(RECORDED_HOST, parse_target(TARGET, options=["UserKnownHostsFile=/tmp/a b'c"]),
           "config")
    step = plan_for([DEEP_EP], hm).steps[0]
    assert step.action == "skip" and "quoted command safely" in step.reason


def test_local_pipeline_after_ssh() -> None:
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    step = plan_for([f"ssh root@{RECORDED_HOST} 'cat /etc/os-release' | head -3"], hm).steps[0]
    assert step.action == "run", step.reason
    assert step.exec_text is not None and step.exec_text.endswith("| head -3")
    assert "-S /tmp/logkb-r-test/t0" in step.exec_text
    assert step.run_command == ("ssh -p 2222 root@127.0.0.1 'cat /etc/os-release' | head -3")


# ---------------------------------------------------------------------------- the CLI plan
def test_plan_from_5214_lists_maps_classifies_and_explains_everything(
        fixture_db: Path, ssh_guard: Guard) -> None:
    r = run("replay", "plan", "--db", str(fixture_db), "--from", "5214", "--host-map",
            f"{RECORDED_HOST}={TARGET}", "--json")
    assert r.exit_code == 0, r.stderr  # type: ignore[attr-defined]
    steps = [json.loads(line) for line in r.stdout.splitlines()]  # type: ignore[attr-defined]
    assert [s["ordinal"] for s in steps] == [5214, 5215, 5216, 5217, 5218, 5219, 5220, 5221,
                                             5222, 5223, 5224, 5227]
    for s in steps:
        assert {"ordinal", "category", "safety", "recorded_host", "target", "run_command",
                "action", "reason"} <= set(s)
        assert s["reason"], s
        assert s["action"] in ("run", "skip")
        assert "verdict" not in s  # nothing was executed
        if s["tool"] == "bash":
            assert s["recorded_host"] == f"root@{RECORDED_HOST}"
            assert s["target"] == TARGET
            assert s["safety"] in ("read-only", "launch", "mutating", "unknown")
            assert s["safety_reasons"]
            assert s["run_command"].startswith("ssh -p 2222 root@127.0.0.1 ")
            assert RECORDED_HOST not in s["run_command"]
    by = {s["ordinal"]: s for s in steps}
    assert {o for o, s in by.items() if s["action"] == "run"} == {5216, 5217, 5218, 5219}
    assert by[5220]["safety"] == "mutating" and "--allow mutating" in by[5220]["reason"]
    assert by[5221]["launch"]["port"] == 30000
    assert by[5224]["safety"] == "unknown" and "--allow unknown" in by[5224]["reason"]
    assert "todo list" in by[5214]["reason"] and "subagent" in by[5215]["reason"]
    # nothing ran: planning starts no process at all (no ssh, no shell)
    assert ssh_guard.spawned == []

    text = run("replay", "plan", "--db", str(fixture_db), "--from", "5214", "--host-map",
               f"{RECORDED_HOST}={TARGET}")
    out = text.stdout  # type: ignore[attr-defined]
    for o in by:
        assert f"  {o}  " in out
    assert "will run: ssh -p 2222 root@127.0.0.1 '/root/ml-env/bin/python3" in out
    assert "nothing was executed" in text.stderr  # type: ignore[attr-defined]
    assert ssh_guard.spawned == []


def test_plan_without_a_map_refuses_the_recorded_host(fixture_db: Path, ssh_guard: Guard
                                                      ) -> None:
    r = run("replay", "plan", "--db", str(fixture_db), "--from", "5216", "--to", "5219")
    out = r.stdout  # type: ignore[attr-defined]
    assert r.exit_code == 0  # type: ignore[attr-defined]
    assert f"unmapped: {RECORDED_HOST}" in out
    assert out.count("no host-map entry for 10.1.230.174") == 4
    assert "unmapped, not contacted" in out
    # even with --execute nothing is contacted (stdin is not a terminal, no --yes)
    r2 = run("replay", "run", "--db", str(fixture_db), "--from", "5216", "--to", "5219",
             "--json")
    # every step refused: nothing ran, which is not a success (issue 13)
    assert r2.exit_code == 1  # type: ignore[attr-defined]
    verdicts = [json.loads(x)["verdict"] for x in r2.stdout.splitlines()]  # type: ignore[attr-defined]
    assert verdicts == ["skipped"] * 4
    assert ssh_guard.ssh_spawns() == []


def test_usage_errors(fixture_db: Path) -> None:
    assert run("replay", "--db", str(fixture_db)).exit_code == 2  # type: ignore[attr-defined]
    r = run("replay", "plan", "--db", str(fixture_db), "--from", "1", "--allow", "everything")
    assert r.exit_code == 2  # type: ignore[attr-defined]
    r = run("replay", "plan", "--db", str(fixture_db), "--from", "1", "--host-map", "nonsense")
    assert r.exit_code == 2  # type: ignore[attr-defined]
    r = run("replay", "plan", "--db", str(fixture_db), "--session", "nope", "--from", "1")
    assert r.exit_code == 6  # type: ignore[attr-defined]


def test_replay_cli_does_not_import_textual() -> None:
    import subprocess
    import sys

    code = ("import sys; from kb.cli import cli; "
            "from click.testing import CliRunner; CliRunner().invoke(cli, ['replay', '--help']); "
            "assert not [m for m in sys.modules if m.startswith('textual')], 'textual imported'")
    subprocess.run([sys.executable, "-c", code], check=True)
