"""``logkb export --parquet DIR``: the knowledge base as Hive-partitioned Parquet, read
back with DuckDB (from the local store, and from the team server)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import duckdb
import pytest

from kb.team import export as ex
from tests.cli_kb import invoke, lines

pytestmark = pytest.mark.slow


def read(dst: Path, table: str, sql: str = "SELECT * FROM t") -> list[dict[str, Any]]:
    con = duckdb.connect()
    con.execute(f"CREATE VIEW t AS SELECT * FROM read_parquet('{dst}/{table}/**/*.parquet', "
                "hive_partitioning = true)")
    cur = con.execute(sql)
    names = [d[0] for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def test_the_local_store_reads_back_as_it_was(valdyum_db: Path, copy_db: Any,
                                              tmp_path: Path) -> None:
    db = copy_db(valdyum_db)
    dst = tmp_path / "pq"
    r = invoke("export", "--parquet", str(dst), "--all", "--db", str(db), "--json")
    assert r.exit_code == 0, r.stderr
    rows = json.loads(r.stdout)["rows"]
    sessions = lines(invoke("sessions", "--db", str(db), "--json").stdout)
    s = sessions[0]
    # Hive partitions: team=…/date=… (the day the session started, UTC)
    files = sorted(p.relative_to(dst).parts[:3] for p in dst.rglob("*.parquet"))
    assert {f[0] for f in files} == {t for t in ex.TABLES if rows[t]}
    assert all(f[1] == "team=local" and f[2].startswith("date=20") for f in files)
    got = read(dst, "sessions")
    assert len(got) == 1 and got[0]["session_id"] == s["id"]
    assert got[0]["messages"] == s["messages"] == rows["messages"]
    assert got[0]["team"] == "local" and str(got[0]["date"]) == files[0][2][len("date="):]
    events = lines(invoke("events", "--db", str(db), "--json").stdout)
    assert read(dst, "events", "SELECT count(*) AS n FROM t")[0]["n"] == len(events)
    kinds = read(dst, "events", "SELECT ordinal, seq, event FROM t ORDER BY ordinal, seq")
    assert [(k["ordinal"], json.loads(k["event"])["kind"]) for k in kinds] == \
        [(e["ordinal"], e["kind"]) for e in events]
    dead = lines(invoke("deadends", "--all", "--db", str(db), "--json").stdout)
    back = [json.loads(d["item"]) for d in read(dst, "deadends")]
    assert sorted(back, key=lambda d: d["id"]) == sorted(dead, key=lambda d: d["id"])
    unt = lines(invoke("untested", "--all", "--db", str(db), "--json").stdout)
    assert len(read(dst, "untested")) == len(unt) >= 1
    ms = read(dst, "measurements", "SELECT sum(value) AS v, count(*) AS n FROM t")[0]
    assert ms["n"] == rows["measurements"] >= 1
    # the text of the messages, as search sees it
    hits = lines(invoke("search", "--db", str(db), "Get-ChildItem", "--json").stdout)
    found = read(dst, "units", "SELECT ordinal FROM t WHERE text ILIKE '%get-childitem%'")
    assert {h["ordinal"] for h in hits} <= {u["ordinal"] for u in found}
    # exporting again replaces the folders, it does not add to them
    assert invoke("export", "--parquet", str(dst), "--all", "--db", str(db)).exit_code == 0
    assert len(read(dst, "sessions")) == 1


def test_no_secret_reaches_the_export(leaky_db: Path, copy_db: Any, tmp_path: Path) -> None:
    from fixtures import secrets_session as fx

    dst = tmp_path / "pq"
    r = invoke("--show-secrets", "export", "--parquet", str(dst), "--all", "--include-raw",
               "--db", str(copy_db(leaky_db)))
    assert r.exit_code == 0, r.stderr
    dump = "\n".join(json.dumps(read(dst, t), default=str) for t in ex.TABLES
                     if (dst / t).exists())
    assert "[redacted:" in dump
    pieces = sorted({p for v in fx.SECRETS.values() for p in (
        [v, v[:10], v[-10:]] if "\n" not in v else [ln for ln in v.split("\n")[1:-1]])})
    leaked = [p for p in pieces if p in dump or json.dumps(p)[1:-1] in dump]
    assert not leaked, leaked


def test_export_from_the_team(server: dict[str, str], valdyum_db: Path, copy_db: Any,
                              tmp_path: Path) -> None:
    db = copy_db(valdyum_db)
    assert invoke("push", "--team", server["alice"], "--all", "--db", str(db)).exit_code == 0
    local, team = tmp_path / "local", tmp_path / "team"
    assert invoke("export", "--parquet", str(local), "--all", "--db", str(db)).exit_code == 0
    r = invoke("export", "--parquet", str(team), "--team-url", server["bob"], "--json")
    assert r.exit_code == 0, r.stderr
    for t in ex.TABLES:
        if not (local / t).exists():
            assert not (team / t).exists()
            continue
        typed = ex.COLUMNS.get(t, ex.COLUMNS["items"])
        order = ", ".join(f'"{c}"' for c, _ in typed)
        pick = f"SELECT {order} FROM t ORDER BY {order}"
        json_cols = [c for c, typ in typed if typ == "j"]  # jsonb orders keys its own way

        def parsed(rows: list[dict[str, Any]], js: list[str] = json_cols
                   ) -> list[dict[str, Any]]:
            return sorted(({k: json.loads(v) if k in js and v else v
                            for k, v in r.items()} for r in rows), key=repr)
        assert parsed(read(team, t, pick)) == parsed(read(local, t, pick)), t
    who = read(team, "sessions", "SELECT DISTINCT team, pusher FROM t")
    assert who == [{"team": "gpu", "pusher": "alice"}]
    r = invoke("export", "--parquet", str(tmp_path / "carol"), "--team-url", server["carol"],
               "--json")
    assert r.exit_code == 0 and sum(json.loads(r.stdout)["rows"].values()) == 0
