"""A real PostgreSQL for the team tests: one throwaway cluster per test run on a random
loopback port, a fresh database per test, and local knowledge bases to push.

Without PostgreSQL installed the tests skip on a laptop and FAIL under CI (``CI=true``,
where `.ci/run` installs it)."""

from __future__ import annotations

import itertools
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.cli_kb import invoke
from tests.team import cluster as pg

MEMBERS = {"alice": "gpu", "bob": "gpu", "carol": "blue"}
"""Who is in which team on every test database."""
VALDYUM = "labelled/Valdyum-Labs__codex-session.jsonl"
"""A real session with a dead end (and its cause) and untested questions."""


@pytest.fixture(scope="session")
def cluster() -> Iterator[pg.Cluster]:
    if pg.bindir() is None:
        msg = "PostgreSQL is not installed (apt-get install postgresql)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"{msg}: CI must run the team tests against a real server")
        pytest.skip(msg)
    c = pg.start()
    try:
        yield c
    finally:
        c.stop()


_n = itertools.count()


@pytest.fixture
def server(cluster: pg.Cluster) -> Iterator[dict[str, str]]:
    """A fresh database with the team schema, teams gpu (alice, bob) and blue (carol):
    the URL of each role, ``admin`` the owner's."""
    import psycopg

    name = f"team{os.getpid()}_{next(_n)}"
    with psycopg.connect(cluster.url(), autocommit=True) as conn:
        conn.execute(f"CREATE DATABASE {name}")
    admin = cluster.url("postgres", name)
    for team in sorted(set(MEMBERS.values())):
        r = invoke("team", "init", admin, "--name", team)
        assert r.exit_code == 0, r.stderr
    for role, team in MEMBERS.items():
        r = invoke("team", "add-member", admin, role, "--team-name", team)
        assert r.exit_code == 0, r.stderr
    urls = {role: cluster.url(role, name) for role in (*MEMBERS, "mallory")}
    urls["admin"] = admin
    yield urls
    with psycopg.connect(cluster.url(), autocommit=True) as conn:
        conn.execute(f"DROP DATABASE {name} WITH (FORCE)")


def _built(db: Path) -> Path:
    """``db`` with its graphs derived (as a first `deadends` would)."""
    r = invoke("deadends", "--all", "--db", str(db))
    assert r.exit_code == 0, r.stderr
    return db


@pytest.fixture(scope="session")
def valdyum_db(realworld: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("valdyum") / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), str(realworld / VALDYUM))
    assert r.exit_code == 0, r.stderr
    return _built(db)


@pytest.fixture(scope="session")
def generated(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The same generated session twice: ``full`` (600 messages) and ``older`` (its first
    300), each in a knowledge base of its own."""
    from bench.gen_session import write_jsonl

    d = tmp_path_factory.mktemp("generated")
    out = {}
    for name, n in (("full", 600), ("older", 300)):
        src = d / f"{name}.jsonl"
        write_jsonl(n, 7, src)
        db = d / f"{name}.duckdb"
        r = invoke("ingest", "--db", str(db), str(src))
        assert r.exit_code == 0, r.stderr
        out[name] = _built(db)
    return out


@pytest.fixture(scope="session")
def leaky_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The crafted session that leaks one credential of every kind."""
    from fixtures import secrets_session as fx

    src = tmp_path_factory.mktemp("leaky")
    (src / "work").mkdir()
    fx.write(src, directory=str(src / "work"))
    db = src / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), str(src / "export.json"),
               *map(str, src.glob("export-*.json")))
    assert r.exit_code == 0, r.stderr
    return _built(db)


@pytest.fixture
def copy_db(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A private copy of a knowledge base (a push opens it; tests may run in parallel)."""
    def copy(db: Path, name: str = "kb") -> Path:
        dst = tmp_path / f"{name}.duckdb"
        shutil.copyfile(db, dst)
        return dst
    return copy
