"""git forms that read, but run a program the repository's own config names.

A replayed step reads a repository the transcript worked in: its ``.git/config`` is
the transcript's, not the user's.  ``log.showSignature`` + ``gpg.program`` makes a
plain ``git log`` run a program for every signed commit; ``core.fsmonitor`` makes
``git ls-files``, ``git grep``, ``git check-ignore``, ``git describe --dirty`` and
``git submodule status`` run one when they refresh the index; ``git stash list -p``
runs the diff drivers ``.gitattributes`` names.  Every row of
``GIT_CONFIG_CODE`` is checked against the real git (the form really runs the
program), then classified (never read-only), and a whole replay of ``git log`` in
such a repository runs nothing, even with ``--no-sandbox``.
"""

from __future__ import annotations

import json
import os
import shlex
import shutil
import subprocess
from pathlib import Path

import pytest
from click.testing import CliRunner

from kb.cli import cli
from logparse.shell import classify_safety, parse_command
from logparse.shell.subcommands import GIT_CONFIG_CODE, GitConfigCode
from tests.replay.conftest import make_session, ordinals

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _git(repo: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=repo, check=True, capture_output=True,
                   env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null",
                        "GIT_CONFIG_NOSYSTEM": "1"})


def hostile_repo(root: Path, sentinel: Path) -> Path:
    """A repository whose config runs ``evil`` (it touches ``sentinel``) from git's
    signature check and fsmonitor hook, with one signed commit."""
    repo = root / "repo"
    repo.mkdir()
    evil = root / "evil"
    evil.write_text(f"#!/bin/sh\necho ran >> {shlex.quote(str(sentinel))}\n"
                    "cat >/dev/null\nexit 1\n")
    evil.chmod(0o755)
    _git(repo, "init", "-q", ".")
    _git(repo, "config", "user.email", "a@b.c")
    _git(repo, "config", "user.name", "a")
    (repo / "f").write_text("a TODO\n")
    _git(repo, "add", "f")
    _git(repo, "commit", "-qm", "one")
    body = subprocess.run(["git", "cat-file", "commit", "HEAD"], cwd=repo, check=True,
                          capture_output=True, text=True).stdout
    head, _, msg = body.partition("\n\n")
    head += "\ngpgsig -----BEGIN PGP SIGNATURE-----\n \n abc\n -----END PGP SIGNATURE-----"
    signed = subprocess.run(["git", "hash-object", "-t", "commit", "-w", "--stdin"], cwd=repo,
                            input=f"{head}\n\n{msg}", check=True, capture_output=True,
                            text=True).stdout.strip()
    _git(repo, "update-ref", "HEAD", signed)
    (repo / ".gitattributes").write_text("f diff=evil\n")
    _git(repo, "config", "diff.evil.textconv", str(evil))
    (repo / "f").write_text("a TODO\nmore\n")
    _git(repo, "stash", "-q")
    _git(repo, "config", "log.showSignature", "true")
    _git(repo, "config", "gpg.program", str(evil))
    _git(repo, "config", "core.fsmonitor", str(evil))
    return repo


def runs_program(repo: Path, sentinel: Path, command: str) -> bool:
    sentinel.unlink(missing_ok=True)
    subprocess.run(["bash", "-c", command], cwd=repo, capture_output=True,
                   stdin=subprocess.DEVNULL,
                   env={**os.environ, "GIT_CONFIG_GLOBAL": "/dev/null",
                        "GIT_CONFIG_NOSYSTEM": "1"})
    return sentinel.exists()


@pytest.mark.parametrize("row", GIT_CONFIG_CODE, ids=[r.example for r in GIT_CONFIG_CODE])
def test_every_row_runs_a_program_and_is_never_read_only(row: GitConfigCode,
                                                         tmp_path: Path) -> None:
    sentinel = tmp_path / "ran"
    repo = hostile_repo(tmp_path, sentinel)
    assert runs_program(repo, sentinel, row.example), (
        f"{row.example} did not run {row.config}: the row is not real")
    s = classify_safety(parse_command(row.example))
    assert s.cls == "unknown" and row.reason in s.reasons, (row.example, s.reasons)
    for opt in row.unless:
        safe = f"{row.example} {opt}"
        assert not runs_program(repo, sentinel, safe), safe
        assert classify_safety(parse_command(safe)).cls == "read-only", safe


@pytest.mark.parametrize("text", ["git rev-parse HEAD", "git describe --always",
                                  "git ls-tree HEAD", "git cat-file -p HEAD",
                                  "git branch", "git config --get user.name",
                                  "git log --oneline --no-show-signature",
                                  "git stash list"])
def test_what_stays_read_only_runs_nothing(text: str, tmp_path: Path) -> None:
    sentinel = tmp_path / "ran"
    repo = hostile_repo(tmp_path, sentinel)
    assert classify_safety(parse_command(text)).cls == "read-only", text
    assert not runs_program(repo, sentinel, text), text


def test_replay_of_git_log_in_a_hostile_repo_runs_nothing(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch
                                                          ) -> None:
    """End to end, the sandbox off (the wall that is left is classification): on main
    the recorded ``git log --oneline`` ran the repository's gpg.program."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", "/dev/null")
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    sentinel = tmp_path / "ran"
    repo = hostile_repo(tmp_path, sentinel)
    db = make_session(tmp_path, [("git log --oneline", "abc1234 one\n", 0),
                                 ("git ls-files", "f\n", 0)], directory=str(repo))
    sentinel.unlink(missing_ok=True)
    first = ordinals(db)[0]
    r = CliRunner().invoke(cli, ["replay", "run", "--from", str(first), "--no-sandbox",
                                 "--json", "--db", str(db)], catch_exceptions=False)
    steps = [json.loads(x) for x in r.stdout.splitlines() if x.startswith("{")]
    assert len(steps) == 2, r.output
    for s in steps:
        assert s["verdict"] == "skipped" and s["safety"] == "unknown", s
    assert not sentinel.exists(), "the repository's program ran"
