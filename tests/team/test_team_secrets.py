"""A team push of a Claude Code and a Codex session that leak one secret of every kind,
round 9's too (``aws configure set`` keys, a keypair's byte array, a BIP-39 phrase, a
``0x`` private key), sends none of them to the real PostgreSQL server: every row of
every table of the team schema is read back and scanned (safe9).  The opencode
fixture's push is :func:`tests.team.test_team.test_a_secret_in_a_pushed_session_never_reaches_the_server`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.cli_kb import invoke
from tests.hostile.test_secret_exits import NEW_KINDS, build
from tests.hostile.test_secret_outputs import leaks

pytestmark = pytest.mark.slow


def test_a_push_sends_no_secret_of_any_kind(server: dict[str, str], tmp_path: Path,
                                           copy_db: Any) -> None:
    (tmp_path / "src").mkdir()
    db, ids = build(tmp_path / "src")
    db = copy_db(db)
    # even asked to show secrets and to send the raw messages, nothing leaks
    r = invoke("--show-secrets", "push", "--team", server["alice"], "--all",
               "--include-raw", "--db", str(db), "--json")
    assert r.exit_code == 0, r.stderr
    assert not leaks(r.stdout + r.stderr)
    assert json.loads(r.stdout)["sent"] == 2
    with psycopg.connect(server["admin"]) as conn:
        tables = [t for (t,) in conn.execute(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = 'logkb' "
            "AND table_type = 'BASE TABLE' ORDER BY 1").fetchall()]
        dump = ""
        for t in tables:
            row = conn.execute(f"SELECT coalesce(string_agg(t::text, chr(10)), '') "
                               f"FROM logkb.{t} t".encode()).fetchone()
            dump += (row[0] if row else "") + "\n"
        raw = conn.execute("SELECT count(*) FROM logkb.messages WHERE raw IS NOT NULL"
                           ).fetchone()
    assert {"messages", "events", "sessions"} <= set(tables), tables
    assert raw and raw[0] > 0  # the raw messages went too, redacted
    assert not leaks(dump), leaks(dump)
    for kind in NEW_KINDS:
        assert kind in dump, kind
    # what the team reads back is what was sent: redacted, whatever the reader asks
    for sid in ids.values():
        r = invoke("--show-secrets", "handoff", "--team-url", server["bob"], "-s", sid,
                   "--json")
        assert r.exit_code == 0, r.stderr
        assert not leaks(r.stdout + r.stderr) and "[redacted:" in r.stdout


def test_a_push_of_raw_records_sends_no_secret_no_derived_field_held(
        server: dict[str, str], tmp_path: Path) -> None:
    """A raw record's secret in a field no derived text reads (a timestamp, an unknown
    field, ``{"admin_pass": …}``) went to the server with `push --include-raw` (safe13)."""
    from tests.hostile.test_secret_rules_safe13 import RAW_PW, write_raw_leaks

    src = write_raw_leaks(tmp_path / "claude.jsonl")
    db = tmp_path / "kb.duckdb"
    assert invoke("ingest", str(src), "--db", str(db)).exit_code in (0, 4)  # 4: a bad line
    r = invoke("push", "--team", server["alice"], "--all", "--include-raw", "--db", str(db))
    assert r.exit_code == 0, r.stderr
    assert RAW_PW not in r.stdout + r.stderr
    with psycopg.connect(server["admin"]) as conn:
        dump = "\n".join(str(conn.execute(f"SELECT * FROM logkb.{t}".encode()).fetchall())
                         for t in ("messages", "events", "sessions", "items"))
    assert "[redacted:" in dump and RAW_PW not in dump
