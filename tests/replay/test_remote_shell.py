"""A remote step runs under bash, whatever the target's login shell says.

The recorded command is bash and classification read it as bash; run by dash or
zsh it would be expanded otherwise.  A real sshd on 127.0.0.1 sets ``SHELL`` to
dash in every session (``SetEnv``, as a target whose login shell is dash would),
and the step must still see bash.
"""

from __future__ import annotations

import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from tests.replay.conftest import RECORDED_HOST, Guard, make_session
from tests.replay.sshd import LoopbackSshd

DASH = shutil.which("dash") or "/bin/dash"


@pytest.fixture
def dash_sshd(tmp_path: Path, isolated_home: Path, loopback_netns: bool
              ) -> Iterator[LoopbackSshd]:
    assert os.access(DASH, os.X_OK), "dash is needed to stand for a non-bash login shell"
    server = LoopbackSshd(tmp_path / "sshd", env={"SHELL": DASH}).start()
    try:
        cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "logkb" / "config.toml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        cfg.write_text(server.config_toml(RECORDED_HOST))
        yield server
    finally:
        server.stop()


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("mode", ["off", "auto"])
def test_a_remote_step_runs_under_bash_when_the_login_shell_is_dash(
        tmp_path: Path, dash_sshd: LoopbackSshd, ssh_guard: Guard, mode: str) -> None:
    h = f"ssh root@{RECORDED_HOST}"
    calls = [(f"{h} 'echo \"shell=$SHELL bash=${{BASH_VERSION:-none}}\"'", "", 0),
             (f"{h} <<'EOF'\necho \"stdin bash=${{BASH_VERSION:-none}}\"\nEOF", "", 0)]
    db = make_session(tmp_path, calls)
    r = run("replay", "run", "--db", str(db), "--from", "1", "--remote-sandbox", mode,
            "--json")
    steps = [json.loads(x) for x in r.stdout.splitlines()]
    assert [s["action"] for s in steps] == ["run", "run"], steps
    out = [s["output"] for s in steps]
    assert f"shell={DASH}" in out[0], out  # the target's shell really is dash
    assert "bash=none" not in out[0] and "bash=" in out[0], out
    assert "bash=none" not in out[1] and "stdin bash=" in out[1], out


def test_a_target_without_bash_refuses_the_step(tmp_path: Path, isolated_home: Path,
                                                loopback_netns: bool, ssh_guard: Guard
                                                ) -> None:
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    server = LoopbackSshd(tmp_path / "sshd", env={"PATH": str(empty)}).start()
    try:
        cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "logkb" / "config.toml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        cfg.write_text(server.config_toml(RECORDED_HOST))
        db = make_session(tmp_path, [(f"ssh root@{RECORDED_HOST} 'echo hi'", "hi\n", 0)])
        r = run("replay", "run", "--db", str(db), "--from", "1", "--remote-sandbox", "off",
                "--json")
        (step,) = [json.loads(x) for x in r.stdout.splitlines()]
        assert step["exit_code"] == 126, step
        assert "bash is not available" in step["output"], step
    finally:
        server.stop()
