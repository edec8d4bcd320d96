"""``logkb query`` reaches only the knowledge base (issue 14).

Each refused statement is refused with a usage error that says why, and
leaves no file written or read.  Statements that could try the network
(INSTALL, an http read) run in a fresh network namespace (``unshare -n``).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import click
import pytest
from click.testing import CliRunner

from fixtures import secrets_session as fx
from kb.cli import cli
from kb.exitcodes import ExitCode

CANARY = "canary-7f3e9a1c-the-sandbox-read-me"


def run(*args: str) -> click.testing.Result:
    return CliRunner().invoke(cli, list(args), catch_exceptions=False)


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    src = tmp_path_factory.mktemp("sandbox")
    fx.write(src)
    path = src / "kb.duckdb"
    r = run("ingest", "--db", str(path), str(src / "export.json"))
    assert r.exit_code == 0, r.stderr
    return path


@pytest.fixture
def area(tmp_path: Path) -> Path:
    """A folder with a file a query must not read; nothing may appear in it."""
    (tmp_path / "canary.csv").write_text(f"secret\n{CANARY}\n")
    return tmp_path


REFUSED = [
    ("COPY (SELECT * FROM calls) TO '{d}/out.csv'", "COPY"),
    ("COPY calls FROM '{d}/canary.csv'", "COPY"),
    ("EXPORT DATABASE '{d}/dump'", "EXPORT"),
    ("ATTACH '{d}/other.duckdb' AS o", "ATTACH"),
    ("DETACH o", "DETACH"),
    ("SET threads = 1", "SET"),
    ("SET enable_external_access = true", "SET"),
    ("RESET threads", "SET"),
    ("USE main", "SET"),
    ("PRAGMA version", "PRAGMA"),
    ("PRAGMA enable_profiling", "PRAGMA"),
    ("CALL pragma_version()", "CALL"),
    ("CHECKPOINT", "CALL"),
    ("LOAD json", "LOAD"),
    ("CREATE TABLE t AS SELECT 1", "CREATE"),
    ("CREATE TEMP TABLE t AS SELECT * FROM calls", "CREATE"),
    ("CREATE VIEW v AS SELECT 1", "CREATE"),
    ("INSERT INTO annotations (session_id, kind) VALUES ('x', 'note')", "INSERT"),
    ("UPDATE calls SET output = ''", "UPDATE"),
    ("DELETE FROM messages", "DELETE"),
    ("DROP TABLE calls", "DROP"),
    ("BEGIN TRANSACTION", "TRANSACTION"),
    ("VACUUM", "VACUUM"),
    ("SELECT 1; COPY (SELECT 1) TO '{d}/two.csv'", "COPY"),
    ("SELECT 1; SET threads = 1", "SET"),
    ("EXPLAIN ANALYZE COPY (SELECT 1) TO '{d}/explained.csv'", "COPY"),
]


@pytest.mark.parametrize("sql,kind", REFUSED, ids=[k + ":" + s[:30] for s, k in REFUSED])
def test_refused_statements(db: Path, area: Path, sql: str, kind: str) -> None:
    before = sorted(p.name for p in area.iterdir())
    r = run("query", "--db", str(db), sql.format(d=area))
    assert r.exit_code == ExitCode.USAGE, (r.stdout, r.stderr)
    assert f"refused: {kind} statement" in r.stderr and "read-only" in r.stderr
    assert r.stdout == ""
    assert sorted(p.name for p in area.iterdir()) == before  # nothing written


READS = [
    "SELECT * FROM read_csv('{d}/canary.csv')",
    "SELECT * FROM read_csv('/etc/shadow')",
    "SELECT * FROM read_text('{d}/canary.csv')",
    "SELECT * FROM read_blob('{d}/canary.csv')",
    "SELECT * FROM glob('/root/**')",
    "SELECT * FROM glob('{d}/*')",
    "SELECT * FROM sniff_csv('{d}/canary.csv')",
    "SELECT * FROM read_json_auto('{d}/canary.csv')",
    "SELECT * FROM parquet_metadata('{d}/canary.csv')",
    "SELECT * FROM '{d}/canary.csv'",
    "SELECT * FROM query('COPY (SELECT 1) TO ''{d}/q.csv''')",
    "WITH x AS (SELECT * FROM read_csv('{d}/canary.csv')) SELECT * FROM x",
]


@pytest.mark.parametrize("sql", READS)
def test_no_file_outside_the_knowledge_base_is_read(db: Path, area: Path, sql: str) -> None:
    before = sorted(p.name for p in area.iterdir())
    r = run("query", "--db", str(db), "--json", sql.format(d=area))
    assert r.exit_code == ExitCode.USAGE, (r.stdout, r.stderr)
    assert CANARY not in r.stdout + r.stderr and "canary.csv\"" not in r.stdout
    assert "query failed" in r.stderr
    assert sorted(p.name for p in area.iterdir()) == before


NETWORK = [
    ("INSTALL httpfs", "refused: LOAD statement"),
    ("FORCE INSTALL httpfs", "refused: LOAD statement"),
    ("SELECT * FROM read_csv('http://127.0.0.1:9/x.csv')", "query failed"),
    ("SELECT * FROM read_csv('https://example.invalid/x.csv')", "query failed"),
    ("SELECT * FROM read_parquet('s3://bucket/x.parquet')", "query failed"),
]


@pytest.mark.parametrize("sql,said", NETWORK)
def test_no_extension_install_and_no_network(db: Path, sql: str, said: str) -> None:
    # in a network namespace of its own: even a bug could not reach anything
    probe = subprocess.run(["unshare", "-n", "true"], capture_output=True)
    assert probe.returncode == 0, f"the test needs `unshare -n`: {probe.stderr!r}"
    logkb = Path(sys.executable).with_name("logkb")
    r = subprocess.run(["unshare", "-n", str(logkb), "query", "--db", str(db), sql],
                       capture_output=True, text=True, timeout=60,
                       env={**os.environ, "LOGKB_LOCK_TIMEOUT": "2"})
    assert r.returncode == ExitCode.USAGE, (r.stdout, r.stderr)
    assert said in r.stderr


def test_reads_of_the_knowledge_base_work(db: Path) -> None:
    d = ["--db", str(db)]
    assert [json.loads(x) for x in run("query", *d, "--json",
                                       "SELECT count(*) AS n FROM sessions").stdout
            .splitlines()] == [{"n": 1}]
    for sql in ("WITH c AS (SELECT tool FROM calls) SELECT DISTINCT tool FROM c",
                "EXPLAIN SELECT * FROM calls", "DESCRIBE calls", "SHOW TABLES",
                "SUMMARIZE messages", "FROM prose LIMIT 1", "SELECT 1; SELECT 2"):
        r = run("query", *d, sql)
        assert r.exit_code == 0, (sql, r.stderr)


def test_row_limit_says_how_many_rows_were_left(db: Path) -> None:
    r = run("query", "--db", str(db), "SELECT * FROM range(15000)")
    assert r.exit_code == 0  # a table for a person: the first 100 rows
    assert "14900 more rows not shown (15000 in all" in r.stderr
    r = run("query", "--db", str(db), "--json", "SELECT * FROM range(15000)")
    assert r.exit_code == 0  # a program reads JSON: every row, nothing left out
    assert len(r.stdout.splitlines()) == 15000 and "not shown" not in r.stderr
    r = run("query", "--db", str(db), "--json", "--limit", "100", "SELECT * FROM range(15000)")
    assert len(r.stdout.splitlines()) == 100  # JSON lines, one row each
    assert "14900 more rows not shown (15000 in all" in r.stderr
    r = run("query", "--db", str(db), "--csv", "--limit", "5", "SELECT * FROM range(7)")
    assert r.stdout.splitlines() == ["range", "0", "1", "2", "3", "4"]
    assert "2 more rows" in r.stderr


def test_statement_timeout_interrupts(db: Path) -> None:
    r = run("query", "--db", str(db), "--timeout", "0.5",
            "SELECT sum(a.range * b.range) FROM range(200000) a, range(200000) b")
    assert r.exit_code == ExitCode.USAGE
    assert "ran longer than 0.5s and was stopped" in r.stderr


def test_query_results_are_redacted_unless_asked(db: Path) -> None:
    sql = "SELECT command, output, input FROM calls ORDER BY ordinal, seq"
    hidden = run("query", "--db", str(db), "--json", "--limit", "1000", sql).stdout
    assert "[redacted:aws-key]" in hidden
    for v in fx.SECRETS.values():
        assert v not in hidden and json.dumps(v)[1:-1] not in hidden
    shown = run("query", "--db", str(db), "--json", "--show-secrets", sql).stdout
    assert fx.SECRETS["aws-key"] in shown
