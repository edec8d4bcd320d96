"""``--remote-sandbox auto`` decides once per target, and every step re-checks it.

Replay asks each target at the start of a run whether bwrap works there.  A target
where it did must keep it: when bwrap stops working there mid-run (here the first
recorded step breaks it, as an admin or a package upgrade could), a later step is
refused, never run unwrapped.  On main the local-pipeline form (``ssh H '…' | cat``)
fell back to running unwrapped, and a plain ``ssh H '…'`` step failed with exit 1 and
was reported as ``now-fails`` instead of refused.  Against a real sshd on 127.0.0.1
whose sessions find a ``bwrap`` that stops working once a flag file exists.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from kb.cli import cli
from kb.replay.sandbox import local_bwrap
from tests.replay.conftest import RECORDED_HOST, make_session, ordinals
from tests.replay.sshd import LoopbackSshd

pytestmark = pytest.mark.skipif(local_bwrap() is None, reason="bwrap does not work here")


@pytest.fixture
def fickle_sshd(tmp_path: Path, isolated_home: Path, loopback_netns: bool
                ) -> Iterator[tuple[LoopbackSshd, Path]]:
    """An sshd whose sessions run a bwrap that stops working once ``flag`` exists."""
    real = shutil.which("bwrap")
    assert real
    flag = Path(f"/tmp/logkb-test-nobwrap-{secrets.token_hex(4)}")
    bindir = tmp_path / "bin"
    bindir.mkdir()
    shim = bindir / "bwrap"
    shim.write_text(f"#!/bin/sh\n[ -e {flag} ] && exit 1\nexec {real} \"$@\"\n")
    shim.chmod(0o755)
    server = LoopbackSshd(tmp_path / "sshd",
                          env={"PATH": f"{bindir}:{os.environ.get('PATH', '/usr/bin:/bin')}"})
    server.start()
    try:
        cfg = Path(os.environ["XDG_CONFIG_HOME"]) / "logkb" / "config.toml"
        cfg.parent.mkdir(parents=True, exist_ok=True)
        cfg.write_text(server.config_toml(RECORDED_HOST))
        yield server, flag
    finally:
        server.stop()
        flag.unlink(missing_ok=True)


def run(*args: str) -> Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.mark.parametrize("pipeline", [False, True], ids=["ssh", "ssh-into-local-pipe"])
def test_a_target_that_loses_bwrap_mid_run_refuses_the_next_step(
        fickle_sshd: tuple[LoopbackSshd, Path], tmp_path: Path, pipeline: bool) -> None:
    server, flag = fickle_sshd
    planted = server.home / "planted"
    second = f"ssh root@{RECORDED_HOST} 'echo x > \"$HOME/planted\"; echo wrote'"
    if pipeline:
        second += " | cat"
    work = tmp_path / "proj"
    work.mkdir()
    db = make_session(tmp_path, [
        (f"ssh root@{RECORDED_HOST} 'touch {flag}'", "", 0),  # bwrap stops working there
        (second, "wrote\n", 0),
    ], directory=str(work))
    r = run("replay", "run", "--db", str(db), "--from", str(ordinals(db)[0]),
            "--allow", "mutating", "--json")
    steps = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    assert len(steps) == 2, r.output
    assert flag.exists(), steps[0]  # the first step ran (its /tmp is the real one)
    assert not planted.exists(), "the step ran without the sandbox"
    assert steps[1]["verdict"] == "skipped", steps[1]
    assert "bwrap" in steps[1]["reason"], steps[1]["reason"]
