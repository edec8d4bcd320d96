"""tmux and screen start a command: it is judged like the command, not as a launch.

``tmux new -d 'rm -rf x'`` and ``screen -dm rm -rf x`` were planned as ``launch``
(a detached session) without reading what the session runs, so ``--allow launch``
ran ``rm``.  On main the real tmux, replayed with ``--allow launch --no-sandbox``,
ran the command; now the step is ``mutating`` and refused.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from logparse.shell import classify_safety, parse_command
from tests.replay.conftest import make_session, ordinals


@pytest.mark.parametrize(("text", "cls"), [
    ("tmux new -d 'rm -rf build'", "mutating"),
    ("tmux new-session -d -s w -c /srv 'rm -rf build'", "mutating"),
    ("tmux new-window 'curl -o x http://127.0.0.1/'", "mutating"),
    ("tmux split-window -h 'eval $CMD'", "unknown"),
    ("screen -dm rm -rf build", "mutating"),
    ("screen -dmS w bash -c 'rm -rf build'", "mutating"),
    ("screen -c screenrc -dm nvidia-smi", "unknown"),
    ("tmux new -d -s w 'nvidia-smi -l 1'", "launch"),
    ("screen -dmS w python3 -m http.server 8000", "launch"),
    ("tmux new -d", "launch"),
])
def test_what_a_session_runs_is_judged(text: str, cls: str) -> None:
    s = classify_safety(parse_command(text))
    assert s.cls == cls, (text, s.reasons)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_a_tmux_session_never_runs_a_command_launch_does_not_allow(
        tmp_path: Path, isolated_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    sock_dir = tmp_path / "tmux"
    sock_dir.mkdir()
    monkeypatch.setenv("TMUX_TMPDIR", str(sock_dir))  # a server of its own, never the user's
    work = tmp_path / "proj"
    work.mkdir()
    victim = work / "victim"
    victim.write_text("keep me\n")
    db = make_session(tmp_path, [("tmux new -d -s logkbtest 'rm -f victim'", "", 0)],
                      directory=str(work))
    try:
        r = CliRunner().invoke(cli, ["replay", "run", "--db", str(db), "--from",
                                     str(ordinals(db)[0]), "--allow", "launch",
                                     "--no-sandbox", "--json"], catch_exceptions=False)
        (step,) = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
        assert step["safety"] == "mutating" and step["verdict"] == "skipped", step
        assert victim.exists(), "the session's command ran"
    finally:
        subprocess.run(["tmux", "kill-server"], capture_output=True, timeout=10,
                       env={"TMUX_TMPDIR": str(sock_dir), "PATH": "/usr/bin:/bin"})
