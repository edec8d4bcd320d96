"""A remote step runs the recorded program, not one the target's PATH finds first.

Local steps have their ``PATH`` cleaned (``step_environment``: no empty or relative
entry).  On an ssh target the step inherited the target's ``PATH``: ``.``, an empty
entry (``PATH=/usr/bin:`` ends in one) or ``bin`` search the directory the step is in,
and a world-writable directory listed early lets anyone plant ``uname``.  Here a real
sshd on 127.0.0.1 (loopback-only namespace, throwaway keys) gives its sessions such a
``PATH``, and the login shell's ``~/.bashrc`` prepends ``.`` again; the step must run
``/usr/bin/uname`` and ``/usr/bin/hostname``, never the planted ones.  On main the
planted programs answered.
"""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from kb.replay.sandbox import local_bwrap
from kb.replay.sshexec import step_environment
from tests.replay.conftest import RECORDED_HOST, make_session
from tests.replay.sshd import LoopbackSshd


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


def _plant(directory: Path, name: str) -> None:
    directory.mkdir(parents=True, exist_ok=True)
    p = directory / name
    p.write_text(f"#!/bin/sh\necho planted-{name} in {directory}\n")
    p.chmod(0o755)


@pytest.fixture(scope="module")
def planted(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("planted")
    _plant(root / "cwd", "uname")        # found through ".", "" and "bin"-style entries
    _plant(root / "cwd" / "bin", "uname")
    ww = root / "ww"
    _plant(ww, "hostname")                # a world-writable directory listed early
    ww.chmod(0o777)
    hook = root / "lessopen.sh"           # what Debian's ~/.bashrc does: LESSOPEN=lesspipe
    hook.write_text("#!/bin/sh\necho planted-lessopen\n")
    hook.chmod(0o755)
    (root / "cwd" / "notes.txt").write_text("just notes\n")
    return root


@pytest.fixture(scope="module")
def dirty_sshd(tmp_path_factory: pytest.TempPathFactory, planted: Path,
               loopback_netns: bool) -> Iterator[LoopbackSshd]:
    root = Path(tmp_path_factory.mktemp("sshd-path"))
    path = f".:{planted / 'ww'}:bin::/usr/local/bin:/usr/bin:/bin:"
    server = LoopbackSshd(root, env={"PATH": path, "LD_LIBRARY_PATH": ":lib"})
    server.start()
    # the login shell (bash, for ssh commands) sources ~/.bashrc: it prepends "." again
    (server.home / ".bashrc").write_text(
        f'export PATH=".:$PATH"\nexport LESSOPEN="|{planted / "lessopen.sh"} %s"\n')
    try:
        yield server
    finally:
        server.stop()


@pytest.mark.parametrize("remote_sandbox", ["off", "auto"])
def test_a_remote_step_never_runs_a_program_its_path_plants(
        tmp_path: Path, isolated_home: Path, dirty_sshd: LoopbackSshd, planted: Path,
        remote_sandbox: str) -> None:
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "logkb" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(dirty_sshd.config_toml(RECORDED_HOST))
    cwd = planted / "cwd"
    cmd = (f"ssh root@{RECORDED_HOST} 'cd {cwd} && uname -s && hostname && "
           "echo \"path=$PATH\" && echo \"ld=$LD_LIBRARY_PATH\"'")
    db = make_session(tmp_path, [(cmd, "Linux\n", 0)])
    r = run("replay", "run", "--db", str(db), "--from", "1", "--remote-sandbox",
            remote_sandbox, "--json")
    (step,) = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    assert step["action"] == "run", step["reason"]
    out = step["output"] or ""
    assert "planted-" not in out, out
    assert "Linux" in out.split(), out
    path = next(x for x in out.splitlines() if x.startswith("path="))[5:].split(":")
    assert all(p.startswith("/") for p in path), path
    assert str(planted / "ww") not in path, path
    ld = next(x for x in out.splitlines() if x.startswith("ld="))[3:]
    assert ld == "", ld


def test_less_on_a_target_never_runs_the_targets_lessopen(
        tmp_path: Path, isolated_home: Path, dirty_sshd: LoopbackSshd, planted: Path) -> None:
    """``less`` is vetted read-only, yet it runs ``$LESSOPEN`` on the file even into a
    pipe; the target's ``~/.bashrc`` sets it (Debian's lesspipe).  On main it ran."""
    cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "logkb" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(dirty_sshd.config_toml(RECORDED_HOST))
    db = make_session(tmp_path, [(f"ssh root@{RECORDED_HOST} 'less {planted}/cwd/notes.txt'",
                                  "just notes\n", 0)])
    r = run("replay", "run", "--db", str(db), "--from", "1", "--remote-sandbox", "off",
            "--json")
    (step,) = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    assert step["action"] == "run", step["reason"]
    assert "planted-lessopen" not in (step["output"] or ""), step["output"]
    assert "just notes" in (step["output"] or ""), step["output"]


@pytest.mark.skipif(local_bwrap() is None, reason="bwrap does not work here")
def test_less_here_never_runs_this_machines_lessopen(
        tmp_path: Path, isolated_home: Path, planted: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LESSOPEN", f"|{planted / 'lessopen.sh'} %s")
    work = planted / "cwd"
    db = make_session(tmp_path, [("less notes.txt", "just notes\n", 0)], directory=str(work))
    r = run("replay", "run", "--db", str(db), "--from", "1", "--json")
    (step,) = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    assert step["action"] == "run", step["reason"]
    assert "planted-lessopen" not in (step["output"] or ""), step["output"]
    assert step["verdict"] == "same", step


def test_the_local_step_environment_drops_world_writable_path_entries(
        tmp_path: Path) -> None:
    ww = tmp_path / "ww"
    ww.mkdir()
    ww.chmod(0o777)
    assert ww.stat().st_mode & stat.S_IWOTH
    env = step_environment({"PATH": f".:{ww}:/usr/bin::bin", "LD_LIBRARY_PATH": f"{ww}:x"})
    assert env["PATH"] == "/usr/bin"
    assert env["LD_LIBRARY_PATH"] == ""
    env = step_environment({"LESSOPEN": "|lesspipe %s", "DEBUGINFOD_URLS": "https://x"})
    assert env == {"LESSSECURE": "1"}
