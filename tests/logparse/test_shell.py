"""Tests for logparse.shell: ssh wrapper chains, simple commands, categories, safety."""

from __future__ import annotations

import dataclasses
import random

import pytest

from logparse.shell import (
    CATEGORIES,
    SAFETY_CLASSES,
    Redirect,
    Safety,
    ShellInfo,
    SimpleCommand,
    SshCall,
    classify_safety,
    parse_command,
)

HOST = "root@10.1.230.174"

# The story's commands (messages 5216, 5218, 5219 of the session).
MSG_5216 = (
    "ssh root@10.1.230.174 '/root/ml-env/bin/python3 -c \"import deep_ep; "
    'print(deep_ep.__version__)" 2>&1; echo "---"; ssh root@10.1.230.174 '
    '"/root/ml-env/bin/python3 -c \\"import deepep; print(deepep)\\" 2>&1"\''
)
MSG_5218 = (
    "ssh root@10.1.230.174 'grep -rn \"flashinfer.a2a\\|a2a.flashinfer\\|"
    "MoeA2ABackend.*flashinfer\" /root/sglang/python/sglang/srt/server_args.py | head -10'"
)
MSG_5219 = (
    "ssh root@10.1.230.174 'sed -n \"2195,2220p\" /root/sglang/python/sglang/srt/server_args.py'"
)
LAUNCH = (
    "ssh root@10.1.230.174 'cd /root/sglang && nohup /root/ml-env/bin/python3 -m "
    "sglang.launch_server --model-path /models/Kimi-K2.5 --tp 8 --moe-a2a-backend "
    "flashinfer > /tmp/sglang.log 2>&1 &'"
)
BENCH = (
    "ssh root@10.1.230.174 'cd /root/sglang && /root/ml-env/bin/python3 -m "
    "sglang.bench_serving --backend sglang --num-prompts 50 --random-input 1024 "
    "2>&1 | tail -30'"
)


def argvs(info: ShellInfo) -> list[tuple[str, ...]]:
    return [c.argv for c in info.commands]


# ---------------------------------------------------------------------------
# The story
# ---------------------------------------------------------------------------


def test_5216_one_hop_and_a_nested_ssh():
    info = parse_command(MSG_5216)
    assert not info.parse_error
    assert len(info.hops) == 1
    hop = info.hops[0]
    assert (hop.user, hop.host, hop.port) == ("root", "10.1.230.174", None)
    assert hop.remote_command == info.inner
    assert info.inner.startswith('/root/ml-env/bin/python3 -c "import deep_ep;')
    assert info.inner.endswith('print(deepep)\\" 2>&1"')
    assert MSG_5216[hop.host_start : hop.host_end] == HOST
    assert (hop.start, hop.end) == (0, len(MSG_5216))

    assert len(info.nested_ssh) == 1
    nested = info.nested_ssh[0]
    assert nested.host == "10.1.230.174" and nested.user == "root"
    assert nested.remote_command == (
        '/root/ml-env/bin/python3 -c "import deepep; print(deepep)" 2>&1'
    )
    assert info.inner[nested.host_start : nested.host_end] == HOST
    assert info.inner[nested.start : nested.end].startswith('ssh root@10.1.230.174 "')

    assert argvs(info) == [
        ("/root/ml-env/bin/python3", "-c", "import deep_ep; print(deep_ep.__version__)"),
        ("echo", "---"),
        ("ssh", HOST, '/root/ml-env/bin/python3 -c "import deepep; print(deepep)" 2>&1'),
        ("/root/ml-env/bin/python3", "-c", "import deepep; print(deepep)"),
    ]
    first = info.commands[0]
    assert first.program == "python3"
    assert first.redirects == (Redirect(">&", "1", "2"),)
    remote = info.commands[3]
    assert remote.via == "ssh 10.1.230.174"
    # the span of a command found inside the nested ssh's quoted remote command
    assert info.inner[remote.start : remote.end] == (
        '/root/ml-env/bin/python3 -c \\"import deepep; print(deepep)\\"'
    )
    assert info.category == "import-check"
    assert classify_safety(info).cls == "read-only"


def test_5218_grep_through_ssh():
    info = parse_command(MSG_5218)
    assert [h.destination for h in info.hops] == [HOST]
    assert info.inner == (
        'grep -rn "flashinfer.a2a\\|a2a.flashinfer\\|MoeA2ABackend.*flashinfer" '
        "/root/sglang/python/sglang/srt/server_args.py | head -10"
    )
    grep, head = info.commands
    assert grep.argv == (
        "grep",
        "-rn",
        "flashinfer.a2a\\|a2a.flashinfer\\|MoeA2ABackend.*flashinfer",
        "/root/sglang/python/sglang/srt/server_args.py",
    )
    assert head.argv == ("head", "-10") and head.stdin_pipe
    assert info.category == "search"
    assert classify_safety(info) == Safety(
        "read-only", ("only read-only commands: grep, head, ssh",)
    )


def test_5219_sed_print_range():
    info = parse_command(MSG_5219)
    assert info.inner == 'sed -n "2195,2220p" /root/sglang/python/sglang/srt/server_args.py'
    assert argvs(info) == [
        ("sed", "-n", "2195,2220p", "/root/sglang/python/sglang/srt/server_args.py")
    ]
    assert info.category == "search"
    assert classify_safety(info).cls == "read-only"


def test_story_launch():
    info = parse_command(LAUNCH)
    assert len(info.hops) == 1
    cd, server = info.commands
    assert cd.argv == ("cd", "/root/sglang") and cd.redirects == ()
    assert server.program == "python3"
    assert server.wrappers == ("nohup",)
    assert server.effective_argv[:3] == (
        "/root/ml-env/bin/python3",
        "-m",
        "sglang.launch_server",
    )
    assert server.background
    assert server.redirects == (Redirect(">", "/tmp/sglang.log", None), Redirect(">&", "1", "2"))
    assert info.category == "launch"
    safety = classify_safety(info)
    assert safety.cls == "mutating"  # its log under /tmp is a write
    assert "redirects output to /tmp/sglang.log" in safety.reasons


def test_story_benchmark():
    info = parse_command(BENCH)
    assert info.category == "benchmark"
    assert [c.program for c in info.commands] == ["cd", "python3", "tail"]
    assert classify_safety(info).cls == "unknown"


# ---------------------------------------------------------------------------
# ssh option parsing
# ---------------------------------------------------------------------------

SSH_FORMS = [
    # (command, host, user, port, identity, remote_command)
    ("ssh h ls", "h", None, None, None, "ls"),
    ("ssh root@h ls", "h", "root", None, None, "ls"),
    ("ssh -p 2222 root@h ls", "h", "root", 2222, None, "ls"),
    ("ssh -p2222 root@h ls", "h", "root", 2222, None, "ls"),
    ("ssh -l alice h ls", "h", "alice", None, None, "ls"),
    ("ssh -lalice h ls", "h", "alice", None, None, "ls"),
    ("ssh -i ~/.ssh/id_ed25519 root@h ls", "h", "root", None, "~/.ssh/id_ed25519", "ls"),
    ("ssh -i/k/key root@h ls", "h", "root", None, "/k/key", "ls"),
    ("ssh -o User=bob -o Port=2200 h ls", "h", "bob", 2200, None, "ls"),
    ("ssh -oUser=bob -oPort=2200 h ls", "h", "bob", 2200, None, "ls"),
    ("ssh -o 'User bob' h ls", "h", "bob", None, None, "ls"),
    ("ssh -o IdentityFile=/k h ls", "h", None, None, "/k", "ls"),
    ("ssh -oStrictHostKeyChecking=no root@h ls", "h", "root", None, None, "ls"),
    ("ssh -tt root@h 'top -bn1'", "h", "root", None, None, "top -bn1"),
    ("ssh -AqT -p 22 root@h uptime", "h", "root", 22, None, "uptime"),
    ("ssh -4 -C root@h uptime", "h", "root", None, None, "uptime"),
    ("ssh -qp2222 root@h uptime", "h", "root", 2222, None, "uptime"),
    ("ssh ssh://bob@h:2201 uptime", "h", "bob", 2201, None, "uptime"),
    ("ssh ssh://h uptime", "h", None, None, None, "uptime"),
    ("ssh ssh://bob@[fe80::1]:2202 uptime", "fe80::1", "bob", 2202, None, "uptime"),
    # options after the destination are still ssh options (ssh restarts getopt)
    ("ssh h -p 2222 -l carl uptime", "h", "carl", 2222, None, "uptime"),
    # -- ends the options: the rest is the remote command
    ("ssh -- h -p 1 x", "h", None, None, None, "-p 1 x"),
    ("ssh h -- ls -la", "h", None, None, None, "ls -la"),
    # the first user wins, as in ssh
    ("ssh -l first second@h ls", "h", "first", None, None, "ls"),
    ("ssh second@h -l first ls", "h", "second", None, None, "ls"),
    # remote words are joined with single spaces, exactly what ssh sends
    ("ssh h ls   -la  '/a b'", "h", None, None, None, "ls -la /a b"),
    ("ssh h 'echo \"$HOME\"' '|' wc -c", "h", None, None, None, 'echo "$HOME" | wc -c'),
    ('ssh h "ls \\"x\\""', "h", None, None, None, 'ls "x"'),
    ('ssh "root@h" ls', "h", "root", None, None, "ls"),
    ("ssh user@name@h ls", "h", "user@name", None, None, "ls"),
    ("ssh -J jump root@h ls", "h", "root", None, None, "ls"),
    (
        "ssh -F /dev/null -E /tmp/log -b 10.0.0.1 -c aes128-ctr root@h ls",
        "h",
        "root",
        None,
        None,
        "ls",
    ),
    ("sshpass -p s3cret ssh root@h ls", "h", "root", None, None, "ls"),
    ("sshpass -ps3cret ssh -p 2 root@h ls", "h", "root", 2, None, "ls"),
    ("timeout 10 ssh root@h ls", "h", "root", None, None, "ls"),
    ("env LC_ALL=C ssh root@h ls", "h", "root", None, None, "ls"),
    ("SSH_AUTH_SOCK=/x ssh root@h ls", "h", "root", None, None, "ls"),
    ("/usr/bin/ssh root@h ls", "h", "root", None, None, "ls"),
]


@pytest.mark.parametrize(("text", "host", "user", "port", "identity", "remote"), SSH_FORMS)
def test_ssh_forms(text, host, user, port, identity, remote):
    info = parse_command(text)
    assert len(info.hops) == 1, info
    hop = info.hops[0]
    assert (hop.host, hop.user, hop.port, hop.identity, hop.remote_command) == (
        host,
        user,
        port,
        identity,
        remote,
    )
    assert info.inner == remote
    # the host span is the destination word exactly as written
    word = text[hop.host_start : hop.host_end]
    assert " " not in word
    if word.startswith("ssh://"):
        assert host in word
    else:
        assert word.strip('"').endswith(host)
        assert word.strip('"') == (f"{user}@{host}" if user and "@" in word else host) or (
            "@" in word and word.endswith(host)
        )
    # the whole command (wrappers included) is the span of the call
    assert (hop.start, hop.end) == (0, len(text))


def test_ssh_options_are_normalised():
    info = parse_command("ssh -p2222 -AqT -oStrictHostKeyChecking=no -i k root@h ls")
    assert info.hops[0].options == (
        "-p",
        "2222",
        "-A",
        "-q",
        "-T",
        "-o",
        "StrictHostKeyChecking=no",
        "-i",
        "k",
    )


def test_ssh_jump_hosts():
    info = parse_command("ssh -J alice@bastion:2222,relay root@h 'nvidia-smi'")
    hop = info.hops[0]
    assert len(info.hops) == 1  # jump hosts are not wrapper hops: the command runs on h
    assert hop.jump == ("alice@bastion:2222", "relay")
    assert hop.host == "h" and hop.remote_command == "nvidia-smi"
    assert parse_command("ssh -o ProxyJump=j1 h ls").hops[0].jump == ("j1",)


@pytest.mark.parametrize(
    "text",
    [
        "ssh root@h",  # interactive login
        "ssh -p 2222 root@h",
        "ssh -N -L 8080:localhost:30000 root@h",
        "ssh -V",
        "ssh",
        "ssh h 'ls' &",  # backgrounded: not a wrapper
        "ssh h ls; echo done",  # a list: not a single wrapper
        "echo x | ssh h 'cat > /tmp/x'",  # ssh is not first in the pipeline
    ],
)
def test_not_a_wrapper(text):
    info = parse_command(text)
    assert info.hops == ()
    assert info.inner == text


def test_local_suffix_and_local_commands():
    text = "ssh -p 2222 root@h 'cat /etc/os-release' 2>&1 | head -5"
    info = parse_command(text)
    hop = info.hops[0]
    assert hop.local_suffix == "2>&1 | head -5"
    assert info.local_suffix == "2>&1 | head -5"
    assert argvs(info) == [("cat", "/etc/os-release")]
    local = [c.argv for c in info.local_commands]
    assert local[1] == ("head", "-5")
    assert local[0][0] == "ssh"
    assert info.local_commands[0].redirects == (Redirect(">&", "1", "2"),)
    for cmd in info.local_commands:
        assert text[cmd.start : cmd.end] in text


def test_two_hops():
    text = "ssh a 'ssh b \"cat /x\"'"
    info = parse_command(text)
    assert [h.host for h in info.hops] == ["a", "b"]
    assert info.hops[0].remote_command == 'ssh b "cat /x"'
    assert info.hops[1].remote_command == "cat /x"
    assert info.inner == "cat /x"
    # hop spans are offsets into the text each hop was parsed from
    assert text[info.hops[0].host_start : info.hops[0].host_end] == "a"
    r0 = info.hops[0].remote_command
    assert r0[info.hops[1].host_start : info.hops[1].host_end] == "b"
    # local commands of deeper hops are mapped back into the original text
    assert [text[c.start : c.end] for c in info.local_commands] == [
        text,
        'ssh b "cat /x"',
    ]


def test_three_hops_with_ports_and_quotes():
    text = 'ssh -p 2201 u1@h1 "ssh -p 2202 u2@h2 \'ssh u3@h3 \\"nvidia-smi -L\\"\'" | tail -3'
    info = parse_command(text)
    assert [(h.user, h.host, h.port) for h in info.hops] == [
        ("u1", "h1", 2201),
        ("u2", "h2", 2202),
        ("u3", "h3", None),
    ]
    assert info.inner == "nvidia-smi -L"
    assert info.hops[0].local_suffix == "| tail -3"
    assert info.category == "search"


def test_heredoc_fed_to_remote_shell_is_the_inner_command():
    text = "ssh root@h bash -s <<'EOF'\ncd /root\nrm -rf build\nEOF"
    info = parse_command(text)
    hop = info.hops[0]
    assert hop.remote_command == "bash -s"
    assert hop.stdin_script == "cd /root\nrm -rf build\n"
    assert info.inner == hop.stdin_script
    assert argvs(info) == [("cd", "/root"), ("rm", "-rf", "build")]
    assert classify_safety(info).cls == "mutating"
    info2 = parse_command("ssh root@h <<EOF\nnvidia-smi\nEOF")
    assert info2.hops[0].remote_command is None
    assert info2.inner == "nvidia-smi\n"


def test_nested_ssh_spans_through_bash_c():
    inner = "ls; bash -c 'ssh -p 2 u@box \"rm -rf /data\"'"
    info = parse_command(inner)
    assert info.hops == ()
    (nested,) = info.nested_ssh
    assert (nested.user, nested.host, nested.port) == ("u", "box", 2)
    assert nested.remote_command == "rm -rf /data"
    assert inner[nested.host_start : nested.host_end] == "u@box"
    assert inner[nested.start : nested.end] == 'ssh -p 2 u@box "rm -rf /data"'
    rm = info.commands[-1]
    assert rm.argv == ("rm", "-rf", "/data")
    assert inner[rm.start : rm.end] == "rm -rf /data"
    assert rm.via == "ssh box"
    assert classify_safety(info).cls == "mutating"


def test_nested_ssh_spans_with_escapes_and_double_quotes():
    inner = 'echo start; eval "ssh \\"root@10.0.0.9\\" uptime"'
    info = parse_command(inner)
    (nested,) = info.nested_ssh
    assert nested.host == "10.0.0.9"
    assert inner[nested.host_start : nested.host_end] == '\\"root@10.0.0.9\\"'


def test_nested_ssh_in_substitution_and_chain():
    inner = "for h in a b; do ssh $h 'hostname'; done; x=$(ssh c uptime)"
    info = parse_command(inner)
    assert [n.host for n in info.nested_ssh] == ["$h", "c"]
    assert [inner[n.host_start : n.host_end] for n in info.nested_ssh] == ["$h", "c"]
    assert info.commands[-1].argv == ("uptime",) and info.commands[-1].in_substitution


# ---------------------------------------------------------------------------
# Simple commands: unquoting, redirects, structure
# ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("echo 'a b' \"c d\" e\\ f", ("echo", "a b", "c d", "e f")),
        ('echo "a \\" \\\\ \\$ \\` \\x"', ("echo", 'a " \\ $ ` \\x')),
        ('echo "$HOME/x" ${Y} $(pwd)', ("echo", "$HOME/x", "${Y}", "$(pwd)")),
        ("echo a'b'\"c\"d", ("echo", "abcd")),
        ("echo $'a\\nb\\tc\\x41\\u00e9\\101'", ("echo", "a\nb\tcAéA")),
        ('echo "line1\\\nline2"', ("echo", "line1line2")),
        ("echo a\\\nb", ("echo", "ab")),
        ("grep -E 'x|y' *.py", ("grep", "-E", "x|y", "*.py")),
        ("A=1 B='x y' make -j8", ("A=1", "B=x y", "make", "-j8")),
        (
            "find . -name '*.so' -exec ls -l {} \\;",
            ("find", ".", "-name", "*.so", "-exec", "ls", "-l", "{}", ";"),
        ),
        ("echo {a,b}", ("echo", "{a,b}")),
        ("echo é ü", ("echo", "é", "ü")),
        ("python3 - <<EOF\nprint(1)\nEOF", ("python3", "-")),
        ("export A=1 B", ("export", "A=1", "B")),
        ("[[ -f /x ]]", ("[[", "-f", "/x", "]]")),
    ],
)
def test_argv_unquoting(text, argv):
    info = parse_command(text)
    assert info.commands[0].argv == argv


def test_redirect_forms():
    info = parse_command("cmd 2>/dev/null >>/tmp/o &>/tmp/all 1>&2 2>&- < in >| clob")
    assert info.commands[0].redirects == (
        Redirect(">", "/dev/null", "2"),
        Redirect(">>", "/tmp/o", None),
        Redirect("&>", "/tmp/all", None),
        Redirect(">&", "2", "1"),
        Redirect(">&-", "", "2"),
        Redirect("<", "in", None),
        Redirect(">|", "clob", None),
    )
    assert [r.writes for r in info.commands[0].redirects] == [
        True,
        True,
        True,
        False,
        False,
        False,
        True,
    ]


def test_heredoc_and_herestring():
    info = parse_command("cat <<'EOF' > /root/x.py\nprint('$HOME')\nEOF")
    (cat,) = info.commands
    assert cat.redirects[0] == Redirect("<<", "EOF", None, "print('$HOME')\n")
    assert cat.redirects[1] == Redirect(">", "/root/x.py", None)
    info = parse_command("cat <<-EOF\n\tindented \\$x\n\tEOF")
    assert info.commands[0].redirects[0].heredoc == "indented $x\n"
    info = parse_command('bash <<< "ls /"')
    assert info.commands[0].redirects == (Redirect("<<<", "ls /", None),)


def test_structure_flags_and_spans():
    text = "a | b & c && (d; { e; }) || f $(g `h`) <(i) ; j &"
    info = parse_command(text)
    by = {c.argv[0]: c for c in info.commands}
    assert sorted(by) == list("abcdefghij")
    assert by["a"].background and by["b"].background and by["b"].stdin_pipe
    assert not by["a"].stdin_pipe and not by["c"].background
    assert by["g"].in_substitution and by["h"].in_substitution and by["i"].in_substitution
    assert not by["f"].in_substitution
    assert by["j"].background
    for c in info.commands:
        assert text[c.start : c.end].startswith(c.argv[0])


def test_commands_inside_control_flow():
    text = (
        "if [ -d /x ]; then cat /x/a; else ls /; fi; for f in $(ls); do wc -l $f; done; "
        "while read l; do echo $l; done < /etc/hosts; case $x in a) df;; *) du;; esac; "
        "until false; do sleep 1; done"
    )
    progs = [c.program for c in parse_command(text).commands]
    for p in ["[", "cat", "ls", "wc", "read", "echo", "df", "du", "false", "sleep"]:
        assert p in progs, p


def test_code_strings_and_targets_are_followed():
    info = parse_command(
        "sh -c 'ls /a' && bash -lc \"grep x /b\" && eval 'df -h' && su -c 'id' bob && "
        "find / -name x -execdir stat {} + && ls | xargs -n1 -I{} wc -l {} && "
        "docker exec -it ctr nvidia-smi -L && watch -n 1 nvidia-smi"
    )
    got = [(c.argv, c.via) for c in info.commands if c.via]
    assert (("ls", "/a"), "sh -c") in got
    assert (("grep", "x", "/b"), "bash -c") in got
    assert (("df", "-h"), "eval") in got
    assert (("id",), "su -c") in got
    assert (("stat", "{}"), "find -exec") in got
    assert (("wc", "-l", "{}"), "xargs") in got
    assert (("nvidia-smi", "-L"), "docker exec") in got
    assert (("nvidia-smi",), "watch") in got


def test_wrappers_and_effective_argv():
    cases = {
        "sudo -u bob -E rm x": ("rm", ("sudo",)),
        "nohup python3 x.py": ("python3", ("nohup",)),
        "timeout -s KILL 10 make": ("make", ("timeout",)),
        "env -i A=1 B=2 ls": ("ls", ("env",)),
        "nice -n 10 ionice -c3 tar cf x": ("tar", ("nice", "ionice")),
        "time -p ls": ("ls", ("time",)),
        "stdbuf -oL python -u s.py": ("python", ("stdbuf",)),
        "exec ls": ("ls", ("exec",)),
        "command ls": ("ls", ("command",)),
        "CUDA_VISIBLE_DEVICES=0,1 TORCH_CUDA_ARCH_LIST=12.0 python setup.py install": (
            "python",
            (),
        ),
        "numactl --cpunodebind=0 --membind 0 taskset -c 0-7 ./bench": (
            "bench",
            ("numactl", "taskset"),
        ),
        "setsid nohup sudo -E env X=1 /usr/bin/python3 -m x": (
            "python3",
            ("setsid", "nohup", "sudo", "env"),
        ),
        "uv run --with rich python -c 'print(1)'": ("python", ("uv run",)),
        "conda run -n base pip list": ("pip", ("conda run",)),
        "sudo -i": ("sudo", ()),
        "env": ("env", ()),
        "command -v python3": ("command", ()),
        "X=1": ("", ()),
    }
    for text, (program, wrappers) in cases.items():
        cmd = parse_command(text).commands[0]
        assert (cmd.program, cmd.wrappers) == (program, wrappers), text


def test_dataclasses_are_frozen_slotted_tuples():
    info = parse_command(MSG_5216)
    for obj in (
        info,
        info.hops[0],
        info.commands[0],
        info.commands[0].redirects[0],
        classify_safety(info),
    ):
        assert dataclasses.is_dataclass(obj)
        assert not hasattr(obj, "__dict__")
        with pytest.raises(dataclasses.FrozenInstanceError):
            obj.__setattr__(dataclasses.fields(obj)[0].name, None)
    assert isinstance(info.commands, tuple) and isinstance(info.hops, tuple)
    assert isinstance(info.commands[0].argv, tuple)
    assert isinstance(info.hops[0].options, tuple)
    assert hash(info) == hash(parse_command(MSG_5216))


def test_parse_command_is_cached():
    text = "ls -la /some/unique/path/for/cache/test"
    assert parse_command(text) is parse_command(text)
    assert parse_command.cache_info().maxsize == 65536


# ---------------------------------------------------------------------------
# Categories
# ---------------------------------------------------------------------------

CATEGORY_CASES = [
    # search
    (MSG_5218, "search"),
    (MSG_5219, "search"),
    ("rg -n 'def forward' /root/sglang | head", "search"),
    ("ls -la /models/ && du -sh /models/*", "search"),
    ("find / -name 'libnccl*' 2>/dev/null | head -5", "search"),
    ("nvidia-smi --query-gpu=name,memory.used --format=csv", "search"),
    ("nvcc --version", "search"),
    ("git -C /root/sglang log --oneline -5", "git"),
    ("git diff HEAD~1 -- python/", "git"),
    ("ps aux | grep sglang | grep -v grep", "search"),
    ("tail -n 100 /tmp/sglang.log | grep -i error", "search"),
    ("cat /proc/meminfo | head -3", "search"),
    ("echo $CUDA_HOME", "search"),
    ("which python3; python3 --version", "search"),
    ("sleep 120; tail -5 /tmp/sglang.log", "search"),
    ("jq '.model' /tmp/config.json", "search"),
    ("awk '/tok\\/s/ {print $NF}' /tmp/bench.log", "search"),
    # import-check
    (MSG_5216, "import-check"),
    (
        "python -c 'import torch; print(torch.__version__, torch.cuda.is_available())'",
        "import-check",
    ),
    ("/root/ml-env/bin/python3 -c 'from flashinfer import comm'", "import-check"),
    ('python3.12 -c "import sgl_kernel" 2>&1 | tail -1', "import-check"),
    ("python3 - <<'EOF'\nimport triton\nprint(triton.__version__)\nEOF", "import-check"),
    # package-query
    ("pip show flashinfer-python", "package-query"),
    ("pip list 2>/dev/null | grep -i torch", "package-query"),
    ("/root/ml-env/bin/python3 -m pip freeze | grep nccl", "package-query"),
    ("uv pip list", "package-query"),
    ("conda list | grep cuda", "package-query"),
    ("dpkg -l | grep nvidia", "package-query"),
    ("apt list --installed 2>/dev/null | grep cuda", "package-query"),
    # install
    ("pip install flashinfer-python==0.2.5", "install"),
    ("/root/ml-env/bin/python3 -m pip install -U 'sglang[all]'", "install"),
    ("cd /root/sglang && pip install -e 'python[all]' 2>&1 | tail -3", "install"),
    ("uv pip install deep_ep", "install"),
    ("apt-get install -y libnuma-dev", "install"),
    ("conda install -c nvidia cuda-toolkit", "install"),
    ("pip uninstall -y vllm", "install"),
    # launch
    (LAUNCH, "launch"),
    ("python -m sglang.launch_server --model-path /m --port 30000", "launch"),
    ("vllm serve /models/x --tp 8", "launch"),
    ("python3 -m http.server 8000", "launch"),
    ("uvicorn app:app --port 8000", "launch"),
    ("nohup ./run.sh > /tmp/run.log 2>&1 &", "launch"),
    ("python3 train.py > /tmp/train.log 2>&1 &", "launch"),
    ("tail -f /tmp/sglang.log", "launch"),
    ("torchrun --nproc-per-node 8 serve.py", "launch"),
    # benchmark
    (BENCH, "benchmark"),
    ("python3 -m sglang.bench_one_batch --model /m --batch 1", "benchmark"),
    ("python3 benchmark/kernels/bench_moe.py", "benchmark"),
    ("vllm bench serve --model x", "benchmark"),
    ("./build/all_reduce_perf -b 8 -e 1G -f 2 -g 8", "benchmark"),
    ("mpirun -np 8 /opt/nccl-tests/build/all_reduce_perf -b 8M", "benchmark"),
    ("ab -n 100 -c 10 http://localhost:30000/health", "benchmark"),
    ("wrk -t4 -c64 http://localhost:8000/", "benchmark"),
    # build
    ("cd /root/DeepEP && TORCH_CUDA_ARCH_LIST=12.0 python setup.py install", "build"),
    ("make -j$(nproc)", "build"),
    ("cmake -B build -S . && ninja -C build", "build"),
    ("nvcc -arch=sm_120 kernel.cu -o kernel", "build"),
    ("pip wheel . -w dist", "build"),
    ("cargo build --release", "build"),
    # kill
    ("pkill -f sglang.launch_server", "kill"),
    ("kill -9 12345", "kill"),
    ("ps aux | grep sglang | awk '{print $2}' | xargs kill -9", "kill"),
    ("rm -rf /root/.cache/flashinfer", "file"),
    ("fuser -k 30000/tcp", "kill"),
    ("docker rm -f sglang", "kill"),
    ("nvidia-smi --gpu-reset -i 0", "kill"),
    ("killall python3; sleep 2", "kill"),
    # file-edit
    ("sed -i 's/foo/bar/' /root/sglang/python/sglang/srt/server_args.py", "file-edit"),
    ("cat > /tmp/test.py <<'EOF'\nprint(1)\nEOF", "file-edit"),
    ("echo 'export X=1' >> ~/.bashrc", "file-edit"),
    ("printf 'a\\n' | tee /root/conf.txt", "file-edit"),
    ("cd /root/sglang && git apply /tmp/fix.patch", "file-edit"),
    ("patch -p1 < /tmp/fix.patch", "file-edit"),
    ("perl -pi -e 's/a/b/' f.py", "file-edit"),
    ("nvidia-smi topo -m > /root/topo.txt", "file-edit"),
    ("cp /tmp/a.py /root/sglang/a.py", "file"),
    # other
    ("python3 /tmp/test_allreduce.py", "run"),
    ("curl -s http://localhost:30000/get_model_info", "http"),
    ("cd /root", "other"),
    ("sleep 60", "other"),
    ("bash /root/run_experiment.sh", "run"),
    ("", "other"),
]


@pytest.mark.parametrize(("text", "category"), CATEGORY_CASES)
def test_category(text, category):
    assert parse_command(text).category == category


def test_category_priority():
    # launch beats everything; file-edit beats file; a program run beats the searches
    # around it (they read what it printed), glue (sleep, cd, which) does not
    assert parse_command("pkill -f x; nohup python -m sglang.launch_server &").category == "launch"
    assert parse_command("sed -i s/a/b/ f; rm -f g").category == "file-edit"
    assert parse_command("pkill -f x; rm -f g").category == "kill"
    assert parse_command("pip install x && python -c 'import x'").category == "install"
    assert parse_command("ls; python3 run.py").category == "run"
    assert parse_command("ls; frobnicate --now").category == "other"
    assert parse_command("bin/airflow dags backfill -s 2026-11-05 orders > /tmp/b.log 2>&1; "
                         "grep -c 'up for retry' /tmp/b.log").category == "run"
    assert parse_command("sleep 30; tail -n 50 /tmp/server.log").category == "search"
    assert parse_command("cd /srv/app && which node && ls").category == "search"
    assert set(CATEGORIES) == {
        "search", "import-check", "package-query", "install", "launch", "benchmark", "build",
        "kill", "file-edit", "other",  # the GPU campaigns' categories, kept
        "deploy", "test", "typecheck", "lint", "file", "git", "package", "http", "run",
    }


def test_category_of_scripts_mentioning_launch_server():
    assert parse_command("python3 -c 'from sglang import launch_server'").category == "launch"
    assert parse_command("python3 ./my_launch_server.py").category == "launch"


def test_herestring_and_empty_remote_command():
    info = parse_command("ssh h bash <<< 'ls /'")
    assert info.hops[0].remote_command == "bash"
    assert info.hops[0].stdin_script == "ls /"
    assert info.inner == "ls /"
    info = parse_command("ssh h ''")
    assert info.hops == ()  # ssh runs a login shell for an empty command
    assert info.nested_ssh[0].remote_command is None
    assert classify_safety(info).cls == "unknown"


def test_category_is_about_the_inner_command():
    # the local `| head` and the ssh itself do not make this a search
    assert parse_command("ssh h 'pip install x' 2>&1 | tail -2").category == "install"
    assert parse_command("ssh h 'pkill -f sglang' | cat").category == "kill"


# ---------------------------------------------------------------------------
# Safety
# ---------------------------------------------------------------------------

SAFETY_CASES = [
    # smuggling attempts
    ("ls; rm -rf /x", "mutating"),
    ("ls && rm x", "mutating"),
    ("ls || rm x", "mutating"),
    ("echo $(rm -rf /x)", "mutating"),
    ("echo `rm x`", "mutating"),
    ('echo "$(rm x)"', "mutating"),
    ("cat x | sh", "unknown"),
    ("curl -s http://x/install.sh | bash", "unknown"),
    ("cat x.py | python3", "unknown"),
    ("find . | xargs rm", "mutating"),
    ("find . -print0 | xargs -0 -n1 rm -f", "mutating"),
    ("find . | xargs", "unknown"),
    ("find . -exec rm {} \\;", "mutating"),
    ("find . -name '*.pyc' -delete", "mutating"),
    ("find . -exec sh -c 'rm \"$1\"' _ {} \\;", "mutating"),
    ("bash -c 'rm x'", "mutating"),
    ('sh -c "ls; rm x"', "mutating"),
    ('eval "rm x"', "mutating"),
    ("eval $CMD", "unknown"),
    ("ssh host 'rm -rf /x'", "mutating"),
    ("ssh h 'ssh h2 \"rm x\"'", "mutating"),
    ("ssh h 'ls' && ssh h2 'rm x'", "mutating"),
    ("ssh h 'ls' > /root/out.txt", "mutating"),
    ("ssh h ls | sh", "unknown"),
    ('grep "rm -rf" f', "read-only"),
    ("echo 'rm -rf /'", "read-only"),
    ("python3 -c \"import os; os.remove('x')\"", "unknown"),
    ("python3 -c \"__import__('os').system('rm x')\"", "unknown"),
    ("echo hi > /etc/passwd", "mutating"),
    ("echo hi >> ~/.bashrc", "mutating"),
    ("echo hi > /tmp/x", "mutating"),  # /tmp is a write too
    ("echo hi > /tmp/../etc/passwd", "mutating"),
    ("echo hi > relative.txt", "mutating"),
    ("echo hi > /tmp/$NAME", "mutating"),
    ("ls 2>/dev/null >&2", "read-only"),
    ("nohup python -m sglang.launch_server --model-path /m > /tmp/log 2>&1 &", "mutating"),
    ("nohup python -m sglang.launch_server --model-path /m > /dev/null 2>&1 &", "launch"),
    ("nohup python3 my_server.py > /tmp/log 2>&1 &", "mutating"),
    ("$(echo rm) x", "unknown"),
    ("$CMD x", "unknown"),
    ("FOO=1 rm x", "mutating"),
    ("sudo rm x", "mutating"),
    ("timeout 5 rm x", "mutating"),
    ("env -i rm x", "mutating"),
    ("nice -n 5 rm x", "mutating"),
    ("cat > /root/x <<EOF\nhello\nEOF", "mutating"),
    ("cat > /tmp/x.py <<EOF\nprint(1)\nEOF", "mutating"),
    ("cat <<EOF\n$(rm -rf /x)\nEOF", "mutating"),
    ("bash <<'EOF'\nrm x\nEOF", "mutating"),
    ("bash <<'EOF'\nls /\nEOF", "read-only"),
    ("python3 - <<'EOF'\nimport os\nos.system('x')\nEOF", "unknown"),
    ("f() { ls; }; f", "unknown"),
    ("echo 'unterminated", "unknown"),
    ("trap 'rm -f /x' EXIT; ls", "mutating"),
    ("ls | tee /etc/x", "mutating"),
    ("ls | tee /tmp/x", "mutating"),
    ("diff <(ls /a) <(ls /b)", "read-only"),
    ("ls > >(rm x)", "mutating"),
    ("source /root/ml-env/bin/activate && pip list", "unknown"),  # activate can be anything
    ("source ./evil.sh", "unknown"),
    ("sed -n '1,5p; 10w /etc/x' f", "mutating"),
    ("sed -n '1e rm x' f", "unknown"),
    ("sed 's/a/b/w /root/out' f", "mutating"),
    ("sed -ne 's/a/b/p' f", "read-only"),
    ("sed -in 's/a/b/' f", "mutating"),
    ("awk '{system(\"rm \" $1)}' f", "unknown"),
    ("awk '{print > \"/etc/x\"}' f", "unknown"),
    ("awk '$3 > 5 {print $1}' f", "read-only"),
    ("ssh -o ProxyCommand='rm -rf /' h ls", "unknown"),
    ("rg --pre ./evil x", "unknown"),
    ("sort -o /root/sorted f", "mutating"),
    ("uniq in out", "mutating"),
    ("xargs -a /tmp/list rm", "mutating"),
    ("time -o /etc/x ls", "mutating"),
    ("git -C /r status && git log -1", "unknown"),  # core.fsmonitor, filters
    ("git -C /r log -1 --no-show-signature && git rev-parse HEAD", "read-only"),
    ("git -C /r log -1 && git rev-parse HEAD", "unknown"),  # log.showSignature
    ("git branch --list", "read-only"),
    ("git branch new-feature", "mutating"),
    ("git checkout -- .", "mutating"),
    ("git stash", "mutating"),
    # quoting and path tricks on the command name
    ("\\rm x", "mutating"),
    ("r\\m x", "mutating"),
    ("'r'm x", "mutating"),
    ('"rm" -rf /x', "mutating"),
    ("/bin/rm x", "mutating"),
    ("command rm x", "mutating"),
    ("builtin eval 'rm x'", "mutating"),
    ("exec 3>/etc/x", "mutating"),
    ("exec > /tmp/log 2>&1", "mutating"),
    ("cat <<EOF | sh\nrm x\nEOF", "unknown"),
    ("sh < script.sh", "unknown"),
    ("bash <<< 'rm x'", "mutating"),
    ("python3 <<< \"import os; os.system('x')\"", "unknown"),
    ("echo ${x:-$(rm x)}", "mutating"),
    ("echo $(( $(rm y) + 1 ))", "mutating"),
    ("a[$(rm z)]=1", "mutating"),
    ("docker exec ctr rm -rf /data", "mutating"),
    ("docker exec ctr nvidia-smi", "read-only"),
    ("watch rm x", "mutating"),
    ("kubectl exec pod -- rm x", "unknown"),
    ("awk '{print | \"sh\"}' f", "unknown"),
    # environment variables that run code
    ("PS4='$(rm -rf /x)' bash -xc ls", "unknown"),
    ("export BASH_ENV=/tmp/x; bash -c ls", "unknown"),
    ("GIT_EXTERNAL_DIFF='rm x' git diff", "unknown"),
    ("env LESSOPEN='|rm x %s' less f", "unknown"),
    ("git -c core.fsmonitor='rm x' status", "unknown"),
    ("git log -p --output=/root/x", "mutating"),
    ("CUDA_VISIBLE_DEVICES=0,1 python3 -c 'import torch'", "read-only"),
    ("export PATH=/usr/local/cuda/bin:$PATH && nvcc --version", "unknown"),  # PATH
    # a script or -c code that only mentions launch_server is not a trusted launch
    ("python3 -c \"import os; os.system('rm -rf /') # launch_server\"", "unknown"),
    ("python3 ./my_launch_server.py &", "unknown"),
    # read-only allowlist
    ("ls -la /models", "read-only"),
    ("cat /etc/os-release; uname -a; hostname; whoami; id; pwd; date", "read-only"),
    ("head -50 f && tail -n 20 f && wc -l f", "read-only"),
    ("nvidia-smi", "read-only"),
    ("nvidia-smi --query-gpu=index,memory.used --format=csv,noheader", "read-only"),
    ("nvidia-smi topo -m", "read-only"),
    ("nvcc --version", "read-only"),
    ("python3 -c 'import torch; print(torch.__version__)'", "read-only"),
    (
        "python3 -c 'import torch; print(torch.cuda.is_available(), torch.cuda.device_count())'",
        "read-only",
    ),
    ("python3 -c 'from sglang.srt import server_args'", "read-only"),
    ("python3 --version", "read-only"),
    ("pip show torch && pip list && pip freeze", "read-only"),
    ("python3 -m pip show flashinfer", "read-only"),
    ("curl -s x | python3 -m json.tool", "unknown"),
    (
        "ps aux | grep -v grep | grep sglang | awk '{print $2}' | sort -n | uniq | cut -c1-5",
        "read-only",
    ),
    ("df -h && du -sh /root && free -g && nproc && lscpu | head", "read-only"),
    ("which nvcc; type python3; command -v pip", "read-only"),
    ("stat /x; file /x; md5sum /x; sha256sum /x; realpath x; readlink -f x", "read-only"),
    ("test -f /x && echo yes || echo no", "read-only"),
    ("[ -d /x ] && [[ -n $Y ]]", "read-only"),
    ("cd /root && export X=1 && Y=2", "read-only"),
    ("sleep 30; true; false", "read-only"),
    ("ss -ltnp | grep 30000", "read-only"),
    ("env | sort", "read-only"),
    ("printenv PATH", "read-only"),
    ("jq '.x' f.json", "read-only"),
    ("find /root -name '*.py' -newer /tmp/x", "read-only"),
    ("find . -exec grep -l x {} +", "unknown"),
    ("git rev-parse HEAD", "read-only"),
    ("dpkg -l | grep cuda", "read-only"),
    ("echo $((1+2))", "read-only"),
    ("printf '%s\\n' a b", "read-only"),
    ("ssh root@h 'nvidia-smi' 2>&1 | head -5", "read-only"),
    ("tail -100 /tmp/x.log", "read-only"),
    # launch
    ("tail -f /tmp/sglang.log", "launch"),
    ("watch -n 1 nvidia-smi", "launch"),
    ("nvidia-smi -l 1", "launch"),
    ("python3 -m sglang.launch_server --model-path /m", "launch"),
    ("ls &", "launch"),
    ("sleep 5 &", "read-only"),
    ("ssh -N -L 8000:localhost:8000 h", "launch"),
    # mutating
    ("rmdir x; mv a b; cp a b; mkdir -p d; touch f", "mutating"),
    ("chmod +x run.sh", "mutating"),
    ("ln -s a b", "mutating"),
    ("dd if=/dev/zero of=/dev/sda bs=1M", "mutating"),
    ("dd if=/dev/zero of=/tmp/blob bs=1M count=1", "mutating"),
    ("truncate -s 0 /var/log/x", "mutating"),
    ("pkill -f sglang", "mutating"),
    ("killall python", "mutating"),
    ("fuser -k 30000/tcp", "mutating"),
    ("kill -9 1234", "mutating"),
    ("kill -0 1234", "read-only"),
    ("pip install x", "mutating"),
    ("pip download torch", "mutating"),
    ("apt-get update && apt-get install -y x", "mutating"),
    ("git commit -am x && git push", "mutating"),
    ("git reset --hard HEAD", "mutating"),
    ("sed -i 's/a/b/' f", "mutating"),
    ("systemctl restart nvidia-fabricmanager", "mutating"),
    ("systemctl status nvidia-fabricmanager", "read-only"),
    ("reboot", "mutating"),
    ("docker run --rm -it img bash", "mutating"),
    ("docker ps -a", "unknown"),  # asks the daemon (issue 24)
    ("make -j8", "mutating"),
    ("wget https://x/y.tar.gz", "mutating"),
    ("curl -o /root/x.tar.gz https://x", "mutating"),
    ("curl -s -o /dev/null -w '%{http_code}' http://localhost:30000/health", "unknown"),
    ("tar xzf x.tar.gz", "mutating"),
    ("tar tzf x.tar.gz", "read-only"),
    ("unzip x.zip", "mutating"),
    ("nvidia-smi -r -i 0", "mutating"),
    ("nvidia-smi -pm 1", "mutating"),
    ("nvidia-smi -pl 300", "mutating"),
    ("perl -pi -e 's/a/b/' f", "mutating"),
    ("shred -u secret", "mutating"),
    # unknown
    ("python3 script.py", "unknown"),
    ("bash script.sh", "unknown"),
    ("./run.sh", "unknown"),
    ("python3", "unknown"),
    ("curl http://localhost:30000/health", "unknown"),
    ("python3 -m sglang.bench_serving --num-prompts 10", "unknown"),
    ("sudo -i", "unknown"),
    ("ssh root@h", "unknown"),
    ("top", "unknown"),
    ("alias ls='rm -rf'", "unknown"),
    ("perl -e 'print 1'", "unknown"),
]


@pytest.mark.parametrize(("text", "cls"), SAFETY_CASES)
def test_safety(text, cls):
    safety = classify_safety(parse_command(text))
    assert safety.cls == cls, safety
    assert safety.cls in SAFETY_CLASSES
    assert safety.reasons and all(isinstance(r, str) and r for r in safety.reasons)


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("ls; rm -rf /x", "rm deletes files"),
        ("cat x | sh", "pipes into sh"),
        ("echo hi > /etc/x", "redirects output to /etc/x"),
        ("find . | xargs rm", "rm deletes files (via xargs)"),
        ("bash -c 'rm x'", "rm deletes files (via bash -c)"),
        ("$CMD x", "the command name '$CMD' is computed at run time"),
        ("f() { :; }", "defines shell function f"),
        ("python3 app.py", "python3 runs script app.py"),
        ("pip install x", "pip install changes installed packages or files"),
        ("git push", "git push changes the repository"),
        ("tail -f /tmp/log", "tail -f follows the file until stopped"),
        ("python3 -m x.y &", "python3 runs in the background (&)"),
    ],
)
def test_safety_reasons(text, reason):
    assert reason in classify_safety(parse_command(text)).reasons


def test_safety_worst_wins_and_reasons_are_ordered():
    safety = classify_safety(parse_command("tail -f /tmp/x & python3 s.py; rm y"))
    assert safety.cls == "mutating"
    assert safety.reasons[0] == "rm deletes files"
    assert "python3 runs script s.py" in safety.reasons
    assert "tail -f follows the file until stopped" in safety.reasons


# ---------------------------------------------------------------------------
# Robustness
# ---------------------------------------------------------------------------

NASTY = [
    "",
    " ",
    "\n\n",
    "\x00",
    "\x00ls\x00",
    "'",
    '"',
    "`",
    "\\",
    "$(",
    "$((",
    "${",
    "<<",
    "<<EOF",
    "cat <<EOF",
    "ssh",
    "ssh -p",
    "ssh -o",
    "ssh --",
    "ssh ''",
    "ssh h ''",
    "ssh h 'ssh'",
    "ssh ssh://",
    "ssh ssh://[::1",
    "ssh @h ls",
    "ssh h 'unterminated",
    'ssh h "a \\"b',
    "ssh " * 40 + "h ls",
    "ssh h " * 20 + "ls",
    "(((((((((((",
    "$(" * 400,
    "`" * 301,
    "'" * 1001,
    "a|" * 3000,
    "{ " * 500,
    "if then fi",
    "case x in",
    "for ; do done",
    "\ud800 ssh h ls",
    "é ssh h 'ls é 😀'",
    "ssh h $'\\x41\\u00e9\\U0001F600\\777'",
    "cat <<-EOF\n\tx\n\tEOF",
    "x=$(",
    "\x1b[31mred\x1b[0m",
    "bash -c",
    "eval",
    "find . -exec",
    "xargs",
    "sudo",
    "env -S 'rm x'",
    "timeout",
    "python -c",
    "python -m",
    "sed -e",
    "sed 's/a",
    "awk",
    "git",
    'eval \'eval "eval \\"eval ls\\""\'',
    'bash -c "bash -c \'bash -c \\"bash -c ls\\"\'"',
    "echo " + "x" * 100_000,
    "ls;\n" * 20_000,
    "#!/bin/bash\nset -euo pipefail\n" + "echo $((i+1)) > /tmp/x\n" * 2000,
]


def _check_invariants(info: ShellInfo) -> None:
    assert isinstance(info, ShellInfo)
    assert info.category in CATEGORIES
    assert not any("internal error" in o for o in info.opaque), info.opaque
    for cmd in info.commands:
        assert isinstance(cmd, SimpleCommand)
        assert 0 <= cmd.start <= cmd.end <= len(info.inner)
    for call in info.nested_ssh:
        assert isinstance(call, SshCall)
        assert 0 <= call.host_start <= call.host_end <= len(info.inner)
    for cmd in info.local_commands:
        assert 0 <= cmd.start <= cmd.end <= len(info.text)
    safety = classify_safety(info)
    assert safety.cls in SAFETY_CLASSES
    if info.parse_error:
        assert safety.cls != "read-only"


@pytest.mark.parametrize("text", NASTY, ids=range(len(NASTY)))
def test_never_raises_on_nasty_input(text):
    _check_invariants(parse_command(text))


def test_never_raises_on_random_input():
    rng = random.Random(20240518)
    alphabet = list("ab $()`'\"\\|&;<>{}[]#!*?~=\n\t-019") + [
        "ssh ",
        "bash -c ",
        "<<EOF\n",
        "\nEOF\n",
        "$'",
        "eval ",
        "xargs ",
        "-exec ",
        "sudo ",
        "ssh -p ",
        "ssh://",
        "@",
        "é",
        "\x00",
    ]
    for _ in range(1500):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(1, 60)))
        _check_invariants(parse_command(text))
    for _ in range(200):
        raw = bytes(rng.randrange(256) for _ in range(rng.randint(1, 120)))
        _check_invariants(parse_command(raw.decode("utf-8", "surrogateescape")))
        _check_invariants(parse_command(raw))  # bytes are accepted too


def test_non_str_input():
    assert parse_command(None).commands == ()  # type: ignore[arg-type]
    assert parse_command(b"ls /").commands[0].argv == ("ls", "/")  # type: ignore[arg-type]


def test_parse_error_is_reported_but_best_effort():
    info = parse_command("ls /a; rm -rf /b; echo 'oops")
    assert info.parse_error
    assert ("rm", "-rf", "/b") in argvs(info)
    assert classify_safety(info).cls == "mutating"
    info = parse_command("ssh h 'echo \"unterminated'")
    assert info.parse_error


def test_huge_script_has_all_commands():
    text = "\n".join(f"echo {i} > /dev/null" for i in range(3000))
    info = parse_command(text)
    assert len(info.commands) == 3000
    assert info.commands[-1].argv == ("echo", "2999")
    assert classify_safety(info).cls == "read-only"


def test_spans_with_non_ascii_text():
    text = "echo 'héllo 😀'; ssh -p 2 ü@höst 'ls /ä'"
    info = parse_command(text)
    assert info.hops == ()
    assert [text[c.start : c.end] for c in info.commands[:2]] == [
        "echo 'héllo 😀'",
        "ssh -p 2 ü@höst 'ls /ä'",
    ]
    (nested,) = info.nested_ssh
    assert text[nested.host_start : nested.host_end] == "ü@höst"
    assert text[info.commands[2].start : info.commands[2].end] == "ls /ä"
