"""Imports run one way (logparse → kb → tui) and CLI commands never load Textual."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def loaded_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\n"
                          "print('\\n'.join(sys.modules))"],
                         capture_output=True, text=True, check=True, cwd=ROOT)
    return set(out.stdout.split())


def test_store_and_cli_do_not_load_textual() -> None:
    mods = loaded_after("import kb.store, kb.cli, kb.ingest")
    assert "textual" not in mods


def test_logparse_loads_neither_storage_nor_ui() -> None:
    mods = loaded_after("import logparse.derive, logparse.registry")
    assert not {"duckdb", "textual", "kb", "tui"} & mods


def test_cli_commands_do_not_load_textual(tmp_path: Path) -> None:
    code = (
        "from click.testing import CliRunner\n"
        "from kb.cli import cli\n"
        f"r = CliRunner().invoke(cli, ['sessions', '--db', {str(tmp_path / 'x.duckdb')!r}])\n"
    )
    assert "textual" not in loaded_after(code)


def test_import_contracts() -> None:
    lint = Path(sys.executable).parent / "lint-imports"
    r = subprocess.run([str(lint)], capture_output=True, text=True, cwd=ROOT)
    assert r.returncode == 0, r.stdout + r.stderr
