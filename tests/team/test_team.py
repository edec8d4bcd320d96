"""The team knowledge base against a real PostgreSQL (issue 25): schema and roles, push
(idempotent, never older over newer, resumable), row-level security, the read path, and
secrets that never reach the server."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import psycopg
import pytest
from rich.cells import cell_len

from kb.store import KbStore
from kb.team import push as tp
from kb.team import read as team_read
from tests.cli_kb import invoke, lines

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DATA_TABLES = tuple(tp.TABLES) + ("scopes",)


def push(url: str, db: Path, *args: str) -> dict[str, Any]:
    r = invoke("push", "--team", url, "--all", "--db", str(db), "--json", *args)
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def value(conn: psycopg.Connection[Any], sql: str) -> Any:
    """The first column of the first row of a query."""
    row = conn.execute(sql.encode()).fetchone()
    assert row is not None
    return row[0]


def counts(url: str, where: str = "TRUE") -> dict[str, int]:
    with psycopg.connect(url) as conn:
        return {t: value(conn, f"SELECT count(*) FROM logkb.{t} WHERE {where}")
                for t in DATA_TABLES}


def scope_of(db: Path) -> str:
    with KbStore(db, read_only=True) as store:
        return store.top_level_ids()[0]


# --------------------------------------------------------------------- schema, roles
def test_init_records_versioned_migrations_and_is_rerunnable(server: dict[str, str]) -> None:
    with psycopg.connect(server["admin"]) as conn:
        rows = conn.execute("SELECT version, name FROM logkb.migrations").fetchall()
        assert rows == [(1, "init")]
        rls: dict[str, bool] = dict(conn.execute(
            "SELECT relname, relrowsecurity FROM pg_class c JOIN pg_namespace n ON "
            "n.oid = c.relnamespace WHERE nspname = 'logkb' AND relkind = 'r'").fetchall())
    assert all(rls[t] for t in DATA_TABLES), rls
    r = invoke("team", "init", server["admin"], "--name", "gpu", "--json")
    assert r.exit_code == 0 and json.loads(r.stdout)["migrations_applied"] == []
    status = json.loads(invoke("team", "status", server["alice"], "--json").stdout)
    assert status["role"] == "alice" and status["teams"] == ["gpu"]


def test_the_readme_two_commands(cluster: Any, valdyum_db: Path, copy_db: Any) -> None:
    """A newcomer with a server: `team init`, then `push`, as the database owner."""
    with psycopg.connect(cluster.url(), autocommit=True) as conn:
        conn.execute("DROP DATABASE IF EXISTS readme WITH (FORCE)")
        conn.execute("CREATE DATABASE readme")
    url = cluster.url("postgres", "readme")
    assert invoke("team", "init", url, "--name", "solo").exit_code == 0
    r = invoke("push", "--all", "--team", url, "--db", str(copy_db(valdyum_db)))
    assert r.exit_code == 0 and "team solo: 1 of 1 session sent" in r.stderr, r.stderr
    local = lines(invoke("deadends", "--all", "--db", str(copy_db(valdyum_db)), "--json").stdout)
    assert len(lines(invoke("deadends", "--team-url", url, "--json").stdout)) == len(local) >= 1


def test_push_then_read_in_the_local_shapes(server: dict[str, str], valdyum_db: Path,
                                            copy_db: Any) -> None:
    db = copy_db(valdyum_db)
    res = push(server["alice"], db)
    assert res["team"] == "gpu" and res["sent"] == 1
    sent = res["scopes"][0]["rows"]
    assert sent["messages"] == 73 and sent["events"] > 0 and sent["items"] > 0
    with psycopg.connect(server["admin"]) as conn:  # no raw transcript unless asked
        assert value(conn, "SELECT count(*) FROM logkb.messages WHERE raw IS NOT NULL") == 0
        assert value(conn, "SELECT count(*) FROM logkb.events WHERE event->'raw' <> "
                           "'null'::jsonb") == 0
    # every row's pusher is the role that connected, never something the client said
    with psycopg.connect(server["admin"]) as conn:
        for t in DATA_TABLES:
            who = conn.execute(f"SELECT DISTINCT pusher::text, team FROM logkb.{t}").fetchall()
            assert who == [("alice", "gpu")], (t, who)
    local = lines(invoke("deadends", "--all", "--db", str(db), "--json").stdout)
    team = lines(invoke("deadends", "--team-url", server["bob"], "--json").stdout)
    assert len(team) == len(local) >= 1  # the same dead ends as the local store, however many
    by_id = {d["id"]: d for d in team}
    for d in local:
        t = by_id[d["id"]]
        assert set(t) == set(d) | {"team", "pusher"}
        assert {k: t[k] for k in d} == d and t["pusher"] == "alice"
    lu = lines(invoke("untested", "--all", "--db", str(db), "--json").stdout)
    tu = lines(invoke("untested", "--team-url", server["bob"], "--json").stdout)
    assert [{k: q[k] for k in lu[0]} for q in tu] == lu
    ls = lines(invoke("sessions", "--db", str(db), "--json").stdout)
    ts = lines(invoke("sessions", "--team-url", server["bob"], "--json").stdout)
    assert set(ts[0]) == set(ls[0]) | {"team", "pusher"}
    assert ts[0]["id"] == ls[0]["id"] and ts[0]["messages"] == ls[0]["messages"]
    # full-text search, then the trigram fallback for a piece of an identifier
    hits = lines(invoke("search", "--team-url", server["bob"], "Get-ChildItem",
                        "--json").stdout)
    local_hits = lines(invoke("search", "--db", str(db), "Get-ChildItem", "--json").stdout)
    assert hits and set(local_hits[0]) <= set(hits[0])
    assert all("get-childitem" in h["text"].lower() for h in hits)
    r = invoke("search", "--team-url", server["bob"], "hildIte", "--json")
    assert lines(r.stdout) and "trigram" in r.stderr
    # a common word: only the first CANDIDATES matches are ranked, and stderr says so
    conn, teams = team_read.open_read(server["bob"], None)
    try:
        many, engine = team_read.search(conn, teams, "Get-ChildItem", limit=50)
        assert engine == "fts" and len(many) >= 3
        team_read.CANDIDATES = 2
        few, engine = team_read.search(conn, teams, "Get-ChildItem", limit=50)
        assert engine == "fts-capped" and len(few) == 2
        assert "ranked the first 2" in invoke("search", "--team-url", server["bob"],
                                              "Get-ChildItem").stderr
    finally:
        team_read.CANDIDATES = 2000
        conn.close()
    # why: across everyone's sessions, with the cause
    word = max(str(local[0]["name"]).replace("`", " ").split(), key=len)
    r = invoke("why", "--team-url", server["bob"], word)
    assert r.exit_code == 0
    assert "seen by 1 person in 1 session; the cause was" in " ".join(r.stdout.split())
    r = invoke("why", "--team-url", server["bob"], "nothing-like-this-was-seen")
    assert r.exit_code == 6 and "nobody in the team has seen" in r.stderr


def test_environment_url_and_text_output(server: dict[str, str], valdyum_db: Path,
                                         copy_db: Any) -> None:
    db = copy_db(valdyum_db)
    r = invoke("push", "--db", str(db), env={"LOGKB_TEAM_URL": server["alice"]})
    assert r.exit_code == 0, r.stderr
    assert "sent 73 messages" in r.stderr and "team gpu: 1 of 1 session sent" in r.stderr
    out = invoke("deadends", "--team", env={"LOGKB_TEAM_URL": server["bob"],
                                             "COLUMNS": "80"}).stdout
    local = lines(invoke("deadends", "--all", "--db", str(db), "--json").stdout)
    assert local and out.count("alice: ") >= len(local) and "dead_end" in out
    assert all(len(x) <= 80 for x in out.splitlines())
    word = max(str(local[0]["name"]).replace("`", " ").split(), key=len)
    for args in (("sessions",), ("untested",), ("search", "Get-ChildItem"), ("why", word)):
        r = invoke(*args, "--team", env={"LOGKB_TEAM_URL": server["bob"], "COLUMNS": "80"})
        assert r.exit_code == 0 and r.stdout.strip(), (args, r.stderr)
        assert all(cell_len(x) <= 80 for x in r.stdout.splitlines()), (args, r.stdout)


# ------------------------------------------------------------------------ idempotence
def test_pushing_again_replaces_in_place(server: dict[str, str], valdyum_db: Path,
                                         copy_db: Any) -> None:
    db = copy_db(valdyum_db)
    push(server["alice"], db)
    first = counts(server["admin"])
    again = push(server["alice"], db)
    assert again["scopes"][0]["status"] == "unchanged" and again["sent"] == 0
    forced = push(server["alice"], db, "--force")
    assert forced["scopes"][0]["status"] == "sent"
    assert counts(server["admin"]) == first


def test_an_older_copy_never_removes_what_a_newer_push_stored(
        server: dict[str, str], generated: dict[str, Path], copy_db: Any) -> None:
    full, older = copy_db(generated["full"], "full"), copy_db(generated["older"], "older")
    assert scope_of(full) == scope_of(older)
    push(server["alice"], full)
    stored = counts(server["admin"])
    res = push(server["alice"], older, "--force")  # not even when forced
    assert res["scopes"][0]["status"] == "older" and res["sent"] == 0
    assert res["scopes"][0]["server"]["messages"] == 600
    assert counts(server["admin"]) == stored
    # the other way round, the newer copy replaces the older one
    with psycopg.connect(server["admin"]) as conn:
        conn.execute("DELETE FROM logkb.scopes")
        for t in tp.TABLES:
            conn.execute(f"DELETE FROM logkb.{t}")
    push(server["alice"], older)
    res = push(server["alice"], full)
    assert res["scopes"][0]["status"] == "sent"
    assert counts(server["admin"]) == stored


# ----------------------------------------------------------------------- concurrency
def test_two_pushers_at_once(server: dict[str, str], valdyum_db: Path,
                             generated: dict[str, Path], copy_db: Any) -> None:
    """Three `logkb push` processes at once: alice and bob, and alice again with the same
    session (serialized by the server: one copy stored)."""
    dbs = {"alice": copy_db(valdyum_db, "a"), "bob": copy_db(generated["full"], "b"),
           "alice2": copy_db(valdyum_db, "a2")}
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    procs = {who: subprocess.Popen(
        [sys.executable, "-m", "kb", "push", "--team", server[who.rstrip("2")], "--all",
         "--force", "--db", str(db), "--json"], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT) for who, db in dbs.items()}
    done = {who: p.communicate(timeout=300) for who, p in procs.items()}
    assert all(p.returncode == 0 for p in procs.values()), {w: e for w, (_, e) in done.items()}
    assert all(json.loads(o)["sent"] == 1 for o, _ in done.values())
    assert counts(server["admin"], "pusher = 'alice'")["messages"] == 73
    assert counts(server["admin"], "pusher = 'bob'")["messages"] == 600
    assert counts(server["admin"])["scopes"] == 2


def test_reads_during_a_push_see_all_or_nothing(server: dict[str, str],
                                                generated: dict[str, Path],
                                                copy_db: Any) -> None:
    db = copy_db(generated["full"])
    push(server["alice"], db)
    whole = counts(server["admin"])
    seen: list[tuple[int, int]] = []
    found: list[int] = []
    stop = threading.Event()

    def reader_loop() -> None:
        with psycopg.connect(server["bob"], autocommit=True) as conn:
            while not stop.is_set():
                row = conn.execute("SELECT (SELECT count(*) FROM logkb.units), "
                                   "(SELECT count(*) FROM logkb.events)").fetchone()
                assert row is not None
                seen.append((row[0], row[1]))
                hits, _ = team_read.search(conn, ["gpu"], "nvidia-smi", limit=5)
                found.append(len(hits))

    reader = threading.Thread(target=reader_loop)
    reader.start()
    try:
        for _ in range(2):
            push(server["alice"], db, "--force")
    finally:
        stop.set()
        reader.join(60)
    assert seen and set(seen) == {(whole["units"], whole["events"])}
    assert set(found) == {5}


# ----------------------------------------------------------------- dropped connection
def _killer(admin: str, table: str, times: int):  # type: ignore[no-untyped-def]
    """An ``on_step`` hook that terminates the pusher's backend (from another
    connection, as an operator or a network failure would) after copying ``table``."""
    state = {"left": times}

    def hook(step: str) -> None:
        if step != table or state["left"] <= 0:
            return
        state["left"] -= 1
        with psycopg.connect(admin, autocommit=True) as conn:
            n = value(conn, "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
                            "WHERE usename = 'alice' AND application_name = 'logkb'")
        assert n == 1
    return hook


def test_a_dropped_connection_mid_push_is_retried(server: dict[str, str],
                                                  generated: dict[str, Path],
                                                  copy_db: Any) -> None:
    db = copy_db(generated["full"])
    with KbStore(db, read_only=True) as store:
        team, res = tp.push(server["alice"], store, [scope_of(db)],
                            on_step=_killer(server["admin"], "units", 1))
    assert team == "gpu" and res[0].status == "sent" and res[0].attempts == 2
    got = counts(server["admin"])
    assert got["messages"] == 600 and got["scopes"] == 1
    # a clean push of the same copy stores exactly that
    push(server["alice"], db, "--force")
    assert counts(server["admin"]) == got


def test_a_push_that_keeps_failing_leaves_nothing_half_done_and_resumes(
        server: dict[str, str], generated: dict[str, Path], valdyum_db: Path,
        copy_db: Any) -> None:
    db = copy_db(generated["full"])
    with KbStore(db, read_only=True) as store:
        _, res = tp.push(server["alice"], store, [scope_of(db)],
                         on_step=_killer(server["admin"], "events", tp.RETRIES))
    assert res[0].status == "failed" and res[0].attempts == tp.RETRIES
    assert "terminat" in (res[0].error or "")
    assert counts(server["admin"]) == {t: 0 for t in DATA_TABLES}  # rolled back whole
    r = invoke("push", "--team", server["alice"], "--all", "--db", str(db))
    assert r.exit_code == 0 and "1 of 1 session sent" in r.stderr
    assert counts(server["admin"])["messages"] == 600
    # resuming after a drop sends only what the server lacks: this copy is there now
    r = invoke("push", "--team", server["alice"], "--all", "--db", str(db))
    assert r.exit_code == 0 and "unchanged on the server; nothing sent" in r.stderr


# ------------------------------------------------------------------------ who may see
def test_a_role_without_rights_cannot_push(server: dict[str, str], valdyum_db: Path,
                                           copy_db: Any) -> None:
    with psycopg.connect(server["admin"], autocommit=True) as conn:
        conn.execute("DROP ROLE IF EXISTS mallory")
        conn.execute("CREATE ROLE mallory LOGIN")
    db = copy_db(valdyum_db)
    r = invoke("push", "--team", server["mallory"], "--all", "--db", str(db))
    assert r.exit_code != 0 and "not a member of any team" in r.stderr
    with psycopg.connect(server["mallory"]) as conn, pytest.raises(
            psycopg.errors.InsufficientPrivilege):
        conn.execute("INSERT INTO logkb.scopes (team, scope, messages, events) "
                     "VALUES ('gpu', 'x', 1, 1)")
        conn.rollback()
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("SELECT * FROM logkb.search_units('x', NULL, 5, false)")
    assert counts(server["admin"])["scopes"] == 0


def test_members_change_only_what_they_pushed(server: dict[str, str], valdyum_db: Path,
                                              copy_db: Any) -> None:
    push(server["alice"], copy_db(valdyum_db))
    before = counts(server["admin"])
    with psycopg.connect(server["bob"]) as conn:
        assert conn.execute("DELETE FROM logkb.events").rowcount == 0
        assert conn.execute("UPDATE logkb.items SET item = '{}'").rowcount == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):  # RLS: pusher is bob
            conn.execute("INSERT INTO logkb.scopes (team, pusher, scope, messages, events) "
                         "VALUES ('gpu', 'alice', 'forged', 1, 1)")
    assert counts(server["admin"]) == before


def test_team_a_cannot_read_team_b(server: dict[str, str], valdyum_db: Path,
                                   copy_db: Any) -> None:
    push(server["alice"], copy_db(valdyum_db))
    r = invoke("deadends", "--team-url", server["carol"], "--team-name", "gpu")
    assert r.exit_code == 6 and "not a member of team 'gpu'" in r.stderr
    r = invoke("deadends", "--team-url", server["carol"], "--json")
    assert r.exit_code == 0 and r.stdout == ""
    assert invoke("search", "--team-url", server["carol"], "Get-ChildItem",
                  "--json").stdout == ""
    with psycopg.connect(server["carol"]) as conn:
        assert counts(server["carol"]) == {t: 0 for t in DATA_TABLES}
        # the search functions (owner's rights, for the indexes) apply the same rule
        assert value(conn, "SELECT count(*) FROM logkb.search_units('Get-ChildItem', "
                           "ARRAY['gpu'], 50, false)") == 0
        assert value(conn, "SELECT count(*) FROM logkb.substring_units('hildIte', "
                           "NULL, 50)") == 0
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            conn.execute("INSERT INTO logkb.scopes (team, scope, messages, events) "
                         "VALUES ('gpu', 'planted', 1, 1)")
    assert counts(server["bob"])["scopes"] == 1  # while gpu's members see it


# --------------------------------------------------------------------------- secrets
def test_a_secret_in_a_pushed_session_never_reaches_the_server(
        server: dict[str, str], leaky_db: Path, copy_db: Any) -> None:
    from fixtures import secrets_session as fx

    db = copy_db(leaky_db)
    # even asked to show secrets and to send raw messages, nothing leaks
    r = invoke("--show-secrets", "push", "--team", server["alice"], "--all",
               "--include-raw", "--db", str(db), "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["sent"] >= 1
    pieces = sorted({p for v in fx.SECRETS.values() for p in (
        [v, v[:10], v[-10:]] if "\n" not in v else [ln for ln in v.split("\n")[1:-1]])})
    with psycopg.connect(server["admin"]) as conn:
        dump = "\n".join(
            value(conn, f"SELECT coalesce(string_agg(t::text, chr(10)), '') "
                        f"FROM logkb.{t} t") for t in DATA_TABLES)
        raw = value(conn, "SELECT count(*) FROM logkb.messages WHERE raw IS NOT NULL")
    assert "[redacted:" in dump and raw > 0  # the raw messages went too, redacted
    leaked = [p for p in pieces if p in dump]
    assert not leaked, leaked
