"""Every command the README shows in a shell block runs, doctest-style (issue 26).

The fenced ``sh`` blocks of README.md are read; every line that starts with ``logkb`` or
``.venv/bin/logkb`` is run as a real process of this worktree's code:

* ``.venv/bin/logkb …`` lines are the demo's: they run on a knowledge base holding the
  fixture campaign (``LOGKB_DB``, as ``make demo`` sets it up);
* ``logkb …`` lines are "your own sessions": they run in a fresh HOME whose Claude Code,
  Codex and opencode folders hold real sessions, with no ``LOGKB_DB`` (the default
  knowledge base, as a newcomer has it).

``logkb tui`` runs in a real terminal (tmux, 80×24) and must draw its first screen.  A
command the README shows that does not exist, or an option it does not take, fails here.
"""

from __future__ import annotations

import re
import shlex
import shutil
from pathlib import Path

import pytest

from tests.newcomer_env import ROOT, Tmux, fake_home, home_env, logkb, logkb_argv

README = ROOT / "README.md"
EXPECTED_EXIT: dict[str, set[int]] = {}
"""Commands whose documented exit code is not 0 (by their first word); none today."""


def readme_commands() -> list[tuple[str, list[str]]]:
    """``(kind, argv after logkb)`` for every logkb line of the README's ``sh`` blocks;
    kind is ``demo`` (``.venv/bin/logkb``) or ``own`` (``logkb``)."""
    text = README.read_text()
    out = []
    for block in re.findall(r"```(?:sh|bash|shell)\n(.*?)```", text, re.S):
        block = re.sub(r"\\\n\s*", " ", block)  # continued lines are one command
        for line in block.splitlines():
            line = re.split(r"\s{2,}#|\s+#\s", line.strip(), maxsplit=1)[0].strip()
            for part in re.split(r"\s*(?:&&|;)\s*", line):
                m = re.match(r"(\.venv/bin/logkb|logkb)\s+(.*)", part)
                if not m:
                    continue
                argv = shlex.split(m.group(2))
                if argv[0] in TEAM or "--team" in argv:
                    continue  # they need a server: tests/team runs them against a real one
                out.append(("demo" if m.group(1).startswith(".venv") else "own", argv))
    return out


TEAM = ("team", "push")
"""Commands of "Share with your team": they talk to a PostgreSQL server, so
``tests/team/test_team.py`` runs them (the two commands, then every ``--team`` read)
against a throwaway cluster instead."""


COMMANDS = readme_commands()


def test_the_readme_has_both_paths() -> None:
    kinds = {k for k, _ in COMMANDS}
    assert kinds == {"demo", "own"}
    own = [argv for k, argv in COMMANDS if k == "own"]
    assert own[0] == ["ingest"]  # no path: the agents' default folders
    assert ["sessions"] in own and ["deadends"] in own and ["tui"] in own
    # the two commands at the top are kept
    assert README.read_text().startswith("# logkb\n\n```sh\nmake demo ")
    assert "\nmake test " in README.read_text()


@pytest.fixture(scope="module")
def demo_env(blackwell_db: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    base = tmp_path_factory.mktemp("readme-demo")
    db = base / "kb.duckdb"
    shutil.copyfile(blackwell_db, db)
    (base / "home").mkdir()
    return home_env(base / "home", LOGKB_DB=str(db))


@pytest.fixture(scope="module")
def own_env(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    return home_env(fake_home(tmp_path_factory.mktemp("readme-own")))


def test_every_readme_command_runs(demo_env: dict[str, str], own_env: dict[str, str],
                                   tmp_path: Path) -> None:
    assert len(COMMANDS) >= 10
    for kind, argv in COMMANDS:  # in README order: the own path starts with its ingest
        env = demo_env if kind == "demo" else own_env
        if argv[0] == "tui":
            _tui_draws(argv, env, tmp_path, kind)
            continue
        r = logkb(argv, env, cwd=tmp_path)
        want = EXPECTED_EXIT.get(argv[0], {0})
        assert r.returncode in want, (kind, argv, r.returncode, r.stderr)
        assert "Traceback" not in r.stderr, (argv, r.stderr)
        if argv[0] != "handoff":  # an answer: data, or a line saying there is none
            assert r.stdout.strip() or r.stderr.strip(), (kind, argv)
    assert (tmp_path / "brief.md").read_text().startswith("#")  # handoff -o brief.md


def _tui_draws(argv: list[str], env: dict[str, str], cwd: Path, kind: str) -> None:
    if shutil.which("tmux") is None:
        pytest.fail("tmux is needed to run the README's `logkb tui` (Debian package tmux)")
    term = Tmux(f"readme-{kind}", env)
    try:
        term.start(logkb_argv(argv), (80, 24), cwd)
        needles = ("We have 8x RTX",) if kind == "demo" else ("claude-code", "codex")
        pane = term.wait_for(*needles)
        assert "Traceback" not in pane
        term.keys("q")
    finally:
        term.close()
