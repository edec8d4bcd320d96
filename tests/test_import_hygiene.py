"""Imports run one way (logparse → kb → tui) and CLI commands never load Textual."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

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


def test_a_derive_worker_loads_no_database() -> None:
    """A derive worker only derives: the database engine would cost it ~30 MB more."""
    mods = loaded_after("import kb.derive_pool")
    assert not {"duckdb", "textual", "tantivy"} & mods


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


# ------------------------------------------------------------------ start-up
HEAVY = ("pydantic", "logparse.derive", "logparse.models", "logparse.shell",
         "logparse.signals", "tree_sitter", "textual")
"""What a read command must not load: the derive pipeline, pydantic, the UI."""


@pytest.fixture(scope="module")
def small_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from kb.ingest import ingest
    from kb.store import KbStore
    from tests.conftest import SELFTEST

    db = tmp_path_factory.mktemp("hygiene") / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [SELFTEST / "export.json"])
    return db


def _invoke(args: list[str]) -> set[str]:
    code = ("from click.testing import CliRunner\n"
            "from kb.cli import cli\n"
            f"r = CliRunner().invoke(cli, {args!r})\n"
            "assert r.exit_code == 0, (r.exit_code, r.output)\n")
    return loaded_after(code)


@pytest.mark.parametrize("args", [["sessions"], ["show", "3"], ["events", "--json"],
                                  ["search", "deep_ep"], ["search", "kind:command"],
                                  ["deadends"]])
def test_read_commands_load_neither_the_deriver_nor_pydantic(small_db: Path,
                                                             args: list[str]) -> None:
    mods = _invoke([*args, "--db", str(small_db)])
    assert not set(HEAVY) & mods, sorted(set(HEAVY) & mods)


def test_a_fresh_search_needs_neither_duckdb_nor_rich(small_db: Path) -> None:
    _invoke(["search", "deep_ep", "--db", str(small_db)])  # brings the index up to date
    mods = _invoke(["search", "deep_ep", "--db", str(small_db)])
    assert "tantivy" in mods
    assert not {"duckdb", "pyarrow", "rich"} & mods


def _entry(args: list[str], home: Path) -> tuple[str, set[str]]:
    code = (f"import sys; sys.argv = ['logkb', *{args!r}]\n"
            "import kb.__main__ as m; m.main()\n"
            "print('\\0'.join(sys.modules), file=sys.stderr)")
    env = {**os.environ, "XDG_CACHE_HOME": str(home)}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       check=True, cwd=ROOT, env=env)
    return r.stdout, set(r.stderr.split("\0"))


def test_version_and_help_do_not_load_click(tmp_path: Path) -> None:
    from kb import __version__

    out, mods = _entry(["--version"], tmp_path)
    assert out == f"logkb, version {__version__}\n" and "click" not in mods
    first, mods = _entry(["--help"], tmp_path)  # renders with click, caches
    assert "click" in mods
    again, mods = _entry(["--help"], tmp_path)
    assert again == first and "click" not in mods
    assert "Usage: logkb" in first and "search" in first
    by_click = subprocess.run(
        [sys.executable, "-c", "import sys; sys.argv = ['logkb', '--help']\n"
         "from kb.cli import cli; cli(prog_name='logkb')"], capture_output=True, text=True,
        check=True, cwd=ROOT, env={**os.environ, "XDG_CACHE_HOME": str(tmp_path)}).stdout
    assert first == by_click


def test_version_matches_the_package_metadata() -> None:
    import tomllib

    from kb import __version__

    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert __version__ == meta["project"]["version"]


# ------------------------------------------------------------------ no pickles
PICKLERS = {"pickle", "_pickle", "cPickle", "shelve", "marshal", "dill", "cloudpickle",
            "joblib"}
PICKLE_ALLOWED = {"kb/derive_pool.py": "ingest <-> its own derive workers over pipes "
                                       "(never data read from disk or a store)"}
"""The only module of ``kb/`` that may pickle, and why."""


def test_kb_keeps_no_pickles() -> None:
    """Nothing ``kb/`` stores or reads back is pickled (a knowledge base may come from
    someone else, and a pickle may run any code): the extractor's kept state is JSON
    (:mod:`kb.graph.state`).  Only the derive pool's pipes to its own workers pickle."""
    import ast

    found = {}
    for path in sorted((ROOT / "kb").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            if any(n.split(".")[0] in PICKLERS for n in names):
                found[path.relative_to(ROOT).as_posix()] = getattr(node, "lineno", 0)
    assert set(found) == set(PICKLE_ALLOWED), found


def test_no_source_compiles_with_a_warning() -> None:
    """No module holds an invalid escape sequence (``"\\s"`` in a docstring): Python 3.12
    prints a SyntaxWarning for it to the user's terminal whenever the module is compiled
    (no cached bytecode: a fresh install, a read-only one), and later versions refuse it."""
    import warnings

    bad = []
    for top in ("logparse", "kb", "tui", "bench"):
        for path in sorted((ROOT / top).rglob("*.py")):
            with warnings.catch_warnings():
                warnings.simplefilter("error")
                try:
                    compile(path.read_text(encoding="utf-8"), str(path), "exec")
                except SyntaxError as e:
                    bad.append(f"{path.relative_to(ROOT)}:{e.lineno}: {e.msg}")
    assert not bad, bad
