"""Shared test fixtures: an isolated home, the real-world samples, the fixture campaign."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
REALWORLD = SHARED / "realworld"
SELFTEST = REALWORLD / "opencode-recorded" / "selftest"


def isolate_home(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point HOME, the XDG folders and logkb's own at ``home`` (created)."""
    home.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(home / ".local" / "share"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.delenv("LOGKB_DB", raising=False)
    monkeypatch.setenv("LOGKB_HOME", str(home / "logkb"))
    monkeypatch.setenv("LOGKB_LOCK_TIMEOUT", "2")
    return home


@pytest.fixture(scope="session", autouse=True)
def new_db_template(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """An empty knowledge base, migrated once per run through the production path, that
    every new knowledge base of the run starts as a copy of (``$LOGKB_NEW_DB_TEMPLATE``,
    inherited by the CLI's subprocesses): the migrations cost 0.2-0.3 s per new store, a
    copy a few ms.  ``tests/kb/test_store.py`` migrates without it and checks that a copy
    equals a freshly migrated store."""
    from kb.store import TEMPLATE_ENV, KbStore

    path = tmp_path_factory.mktemp("template") / "template.duckdb"
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv(TEMPLATE_ENV, raising=False)
        KbStore(path).close()
        mp.setenv(TEMPLATE_ENV, str(path))
        yield path


@pytest.fixture(autouse=True)
def isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Nothing a test runs may touch the real ~/.local/share or ~/.config."""
    return isolate_home(tmp_path / "home", monkeypatch)


@pytest.fixture(scope="module")
def module_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The isolated home for module-scoped fixtures (set up before a test's own)."""
    with pytest.MonkeyPatch.context() as mp:
        yield isolate_home(tmp_path_factory.mktemp("module-home") / "home", mp)


@pytest.fixture(scope="session")
def realworld() -> Path:
    if not REALWORLD.is_dir():
        pytest.fail(f"the shared real-world samples are missing: {REALWORLD}")
    return REALWORLD


@pytest.fixture(scope="session")
def selftest(realworld: Path) -> Path:
    return SELFTEST


@pytest.fixture(scope="session")
def open_pool(realworld: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A copy of ``../shared/realworld/pool`` without its held-out files (left out by
    name, never opened): what a test that takes the whole pool walks.  The suites meant to
    read every pool file (``tests/kb/test_realworld_all.py`` and its kin) read the pool."""
    from bench.held_out import held_out

    dst = tmp_path_factory.mktemp("pool") / "pool"
    shutil.copytree(realworld / "pool", dst,
                    ignore=lambda _d, names: [n for n in names if held_out(Path(n))])
    return dst


def _fast_tmp(factory: pytest.TempPathFactory, name: str) -> Path:
    """A scratch directory on tmpfs when there is one (the fixture writes ~26k files)."""
    import tempfile

    shm = Path("/dev/shm")
    if shm.is_dir() and os.access(shm, os.W_OK):
        return Path(tempfile.mkdtemp(prefix=f"logkb-{name}-", dir=shm))
    return factory.mktemp(name)


def digests(root: Path) -> dict[str, str]:
    """The SHA-256 of every file under ``root``, by relative path."""
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


# ---------------------------------------------------------------- pytest-xdist
# Under ``-n 2`` every worker is a session of its own: a session-scoped fixture would
# build the same expensive thing once per worker.  The few that cost seconds are built
# once per run by whichever worker asks first, under a file lock in the directory every
# worker's base temp lives in, and each worker takes a private copy of the result, so
# no two processes ever share a file a test may open for writing.
SHARED_LIST = "logkb-shared-dirs.txt"
"""In the run's shared directory: the scratch directories outside it (tmpfs) to remove
when the run ends (by the controller, after every worker has finished)."""


def xdist_worker(config: pytest.Config) -> str | None:
    """This process's xdist worker id (``gw0``...), None when not a worker."""
    workerinput = getattr(config, "workerinput", None)
    return None if workerinput is None else str(workerinput["workerid"])


TERMINAL_ENV = ("COLUMNS", "LINES")
"""Set to 80 and 24 in every xdist worker's environment (execnet's doing) although the
controller may have neither: the CLI then renders 80 columns where a serial run's piped
output has 160, and tests that read what a command printed see other text."""


@pytest.hookimpl(optionalhook=True)
def pytest_configure_node(node: Any) -> None:
    """(xdist controller) Hand each worker the controller's own terminal variables."""
    node.workerinput["logkb_terminal_env"] = {k: os.environ.get(k) for k in TERMINAL_ENV}


def pytest_configure(config: pytest.Config) -> None:
    """(xdist worker) Give the tests the environment a serial run would have."""
    workerinput = getattr(config, "workerinput", None)
    if workerinput is None:
        return
    for key, value in workerinput.get("logkb_terminal_env", {}).items():
        if value is None:
            os.environ.pop(key, None)
        else:
            os.environ[key] = value


def built_once(factory: pytest.TempPathFactory, config: pytest.Config, name: str,
               build: Callable[[Path], None], *, fast: bool = False) -> Path:
    """``build(dir)`` run once per test run across every xdist worker; the directory it
    filled (complete: a worker waits for another's build on the lock).  Outside xdist, a
    directory of this session's own.  ``fast``: on tmpfs when there is one."""
    if xdist_worker(config) is None:
        out = _fast_tmp(factory, name) if fast else factory.mktemp(name)
        build(out)
        return out
    import fcntl

    shared = factory.getbasetemp().parent
    done = shared / f"{name}.built"
    with open(shared / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            return Path(done.read_text())
        if fast:
            out = _fast_tmp(factory, name)
            with open(shared / SHARED_LIST, "a") as f:
                f.write(f"{out}\n")
        else:
            out = shared / name
            out.mkdir()
        build(out)
        done.write_text(str(out))
        return out


def pytest_sessionfinish(session: pytest.Session) -> None:
    """The controller of an xdist run removes the shared tmpfs directories."""
    config = session.config
    if xdist_worker(config) is not None or not config.pluginmanager.has_plugin("dsession"):
        return
    basetemp = config._tmp_path_factory.getbasetemp()  # type: ignore[attr-defined]
    listed = basetemp / SHARED_LIST
    if listed.exists():
        for line in listed.read_text().splitlines():
            if line.startswith("/dev/shm/"):
                shutil.rmtree(line, ignore_errors=True)


@pytest.fixture(scope="session")
def blackwell_with_digests(tmp_path_factory: pytest.TempPathFactory,
                           pytestconfig: pytest.Config
                           ) -> Iterator[tuple[Path, dict[str, str]]]:
    """The Blackwell campaign fixture in every form (built once per test run), with the
    digests of its files taken at once, before any reader touches the SQLite ``-shm``
    (the fixture tests compare them with a second build).  Under xdist one worker
    builds it and every worker reads a private copy."""
    from fixtures.blackwell.build import build

    def build_with_digests(out: Path) -> None:
        build(out / "out")
        (out / "digests.json").write_text(json.dumps(digests(out / "out")))

    built = built_once(tmp_path_factory, pytestconfig, "blackwell", build_with_digests,
                       fast=True)
    if xdist_worker(pytestconfig) is None:
        out = built / "out"
        yield out, json.loads((built / "digests.json").read_text())
        if str(built).startswith("/dev/shm/"):
            shutil.rmtree(built, ignore_errors=True)
        return
    mine = _fast_tmp(tmp_path_factory, "blackwell-copy")
    out = Path(shutil.copytree(built / "out", mine / "out", symlinks=True))
    yield out, json.loads((built / "digests.json").read_text())
    if str(mine).startswith("/dev/shm/"):
        shutil.rmtree(mine, ignore_errors=True)


@pytest.fixture(scope="session")
def blackwell(blackwell_with_digests: tuple[Path, dict[str, str]]) -> Path:
    """The Blackwell campaign fixture in every form (built once per test run)."""
    return blackwell_with_digests[0]


@pytest.fixture(scope="session")
def blackwell_manifest(blackwell: Path) -> dict[str, Any]:
    return json.loads((blackwell / "manifest.json").read_text())


@pytest.fixture(scope="session")
def blackwell_db(blackwell: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A knowledge base holding the fixture session (JSONL form) and its subagent session.

    Shared by the whole run: tests must not write to it (copy it first)."""
    from kb.ingest import ingest
    from kb.store import KbStore

    db = tmp_path_factory.mktemp("kb") / "blackwell.duckdb"
    with KbStore(db) as store:
        report = ingest(store, [blackwell / "session.jsonl",
                                *sorted(blackwell.glob("session-*.jsonl"))])
        assert report.problems == [] and report.errors == []
    return db


@pytest.fixture
def blackwell_db_copy(blackwell_db: Path, tmp_path: Path) -> Path:
    """A private copy of the fixture knowledge base that a test may change."""
    dst = tmp_path / "kb.duckdb"
    shutil.copyfile(blackwell_db, dst)
    return dst
