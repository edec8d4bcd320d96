"""``logkb tui``: options reach the app, errors map to exit codes, other commands stay light."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.exitcodes import ExitCode

from .conftest import SESSION

ROOT = Path(__file__).resolve().parents[2]


def test_tui_passes_its_options_to_the_app(tui_db: Path, monkeypatch: pytest.MonkeyPatch
                                           ) -> None:
    import tui.app

    seen: dict[str, Any] = {}

    def fake_run(self: tui.app.LogkbApp) -> None:
        seen.update(session=self.start_session, at=self.start_at, theme=self.theme,
                    db=self.lease.path)

    monkeypatch.setattr(tui.app.LogkbApp, "run", fake_run)
    monkeypatch.setattr("kb.cli.tui.on_terminal", lambda: True)
    r = CliRunner().invoke(cli, ["tui", "--db", str(tui_db), "--session", SESSION[:10],
                                 "--at", "5216"], catch_exceptions=False)
    assert r.exit_code == 0, r.output
    assert seen == {"session": SESSION[:10], "at": 5216, "theme": "textual-dark",
                    "db": str(tui_db)}


def test_tui_off_a_terminal_says_so_and_draws_nothing(tui_db: Path) -> None:
    """`logkb tui > file` or in a script drew escape sequences into stderr's file and
    waited for keys that never came (until killed)."""
    r = subprocess.run([sys.executable, "-m", "kb", "tui", "--db", str(tui_db)],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=60)
    assert r.returncode == ExitCode.USAGE, r.stderr[-500:]
    assert r.stderr.startswith("logkb: error: the TUI needs a terminal"), r.stderr[-500:]
    assert "\x1b" not in r.stderr and r.stdout == ""


def test_tui_without_a_knowledge_base(tmp_path: Path) -> None:
    r = CliRunner().invoke(cli, ["tui", "--db", str(tmp_path / "none.duckdb")])
    assert r.exit_code == ExitCode.NOT_FOUND
    assert "no knowledge base" in r.stderr


def test_help_lists_tui() -> None:
    r = CliRunner().invoke(cli, ["--help"])
    assert "\n  tui " in r.output
    r = CliRunner().invoke(cli, ["tui", "--help"])
    assert "terminal UI" in r.output and "--at ORDINAL" in r.output


def test_cli_module_does_not_load_textual() -> None:
    code = "import kb.cli, kb.cli.tui, kb.views, kb.lease, sys; print('textual' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    assert out.stdout.strip() == "False"


def test_tui_package_writes_no_sql() -> None:
    """``tui/`` only shows: no duckdb import, no execute()/sql() calls (queries live in kb)."""
    for path in sorted((ROOT / "tui").rglob("*.py")):
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                names = [a.name for a in node.names] + [getattr(node, "module", "") or ""]
                assert not any(n.split(".")[0] == "duckdb" for n in names), path
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
                assert node.func.attr not in ("execute", "sql", "executemany"), (
                    f"{path}:{node.lineno} runs SQL")
