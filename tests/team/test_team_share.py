"""Sharing with the team beyond push and the read commands (issue 25): the config file
and its precedence, passwords never printed, ``handoff --team``, the MCP tools with
``--team`` and ``watch --push``, against the real PostgreSQL of the conftest."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.cli_kb import invoke, lines
from tests.live.conftest import McpClient, session_lines

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]


def write_config(home: Path, url: str, name: str | None = None) -> Path:
    cfg = home / ".config" / "logkb" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'[team]\nurl = "{url}"\n' + (f'name = "{name}"\n' if name else ""))
    return cfg


def role(url: str | None = None, env: dict[str, str] | None = None) -> str:
    r = invoke("team", "status", *([url] if url else []), "--json", env=env)
    assert r.exit_code == 0, r.stderr
    return str(json.loads(r.stdout)["role"])


# ------------------------------------------------------------------- config, secrets
def test_the_url_comes_from_the_flag_else_the_environment_else_the_config(
        server: dict[str, str], isolated_home: Path) -> None:
    r = invoke("team", "status", env={"LOGKB_TEAM_URL": None})  # type: ignore[dict-item]
    assert r.exit_code != 0 and "config.toml" in r.stderr and "LOGKB_TEAM_URL" in r.stderr
    write_config(isolated_home, server["carol"])
    assert role(env={"LOGKB_TEAM_URL": None}) == "carol"  # type: ignore[dict-item]
    assert role(env={"LOGKB_TEAM_URL": server["bob"]}) == "bob"
    assert role(server["alice"], env={"LOGKB_TEAM_URL": server["bob"]}) == "alice"
    # the read commands too: --team with nothing else reads the configured server
    r = invoke("sessions", "--team", "--json", env={"LOGKB_TEAM_URL": None})  # type: ignore[dict-item]
    assert r.exit_code == 0, r.stderr
    # and the team name: `--team-name` > $LOGKB_TEAM_NAME > [team] name
    write_config(isolated_home, server["bob"], name="blue")
    r = invoke("deadends", "--team", env={"LOGKB_TEAM_URL": None})  # type: ignore[dict-item]
    assert r.exit_code == 6 and "not a member of team 'blue'" in r.stderr
    r = invoke("deadends", "--team", "--json", env={"LOGKB_TEAM_URL": None,  # type: ignore[dict-item]
                                                    "LOGKB_TEAM_NAME": "gpu"})
    assert r.exit_code == 0, r.stderr


def test_a_password_in_the_url_is_never_printed(server: dict[str, str], cluster: Any,
                                                isolated_home: Path, valdyum_db: Path,
                                                copy_db: Any) -> None:
    secret = "Hunter2-pa55word"
    good = server["alice"].replace("alice@", f"alice:{secret}@")  # trust auth: accepted
    assert role(good) == "alice"
    dead = f"postgresql://alice:{secret}@127.0.0.1:{cluster.port}/no_such_db"
    bad = f"postgresql://alice:{secret}@127.0.0.1:{cluster.port}/x?no_such_option=1"
    param = f"host=127.0.0.1 port={cluster.port} user=alice password={secret} dbname=nope"
    db = copy_db(valdyum_db)
    runs = [invoke("team", "status", u) for u in (dead, bad, param)]
    runs += [invoke("push", "--all", "--team", bad, "--db", str(db)),
             invoke("deadends", "--team-url", dead),
             invoke("search", "--team-url", param, "x", "--json"),
             invoke("team", "init", bad, "--json")]
    write_config(isolated_home, bad)
    runs.append(invoke("why", "--team", "x", env={"LOGKB_TEAM_URL": None}))  # type: ignore[dict-item]
    for r in runs:
        assert r.exit_code != 0
        assert "logkb: error:" in r.stderr, r.stderr
        assert secret not in r.stderr + r.stdout, r.stderr
    assert "alice:***@" in runs[0].stderr  # which server failed, without its password
    # the watcher's error events too
    p = subprocess.run([sys.executable, "-m", "kb", "watch", "--json", "--for", "3",
                        "--push", "--team", dead, "--db", str(isolated_home / "w.duckdb"),
                        str(ROOT / "tests")], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
    assert secret not in p.stdout + p.stderr


# --------------------------------------------------------------------------- handoff
def test_handoff_from_the_team_is_the_local_brief(server: dict[str, str], valdyum_db: Path,
                                                   copy_db: Any) -> None:
    db = copy_db(valdyum_db)
    r = invoke("push", "--team", server["alice"], "--all", "--db", str(db))
    assert r.exit_code == 0, r.stderr
    scope = lines(invoke("sessions", "--db", str(db), "--json").stdout)[0]["id"]
    local = json.loads(invoke("handoff", "--session", scope, "--db", str(db), "--json").stdout)
    r = invoke("handoff", "--team-url", server["bob"], "--json")
    assert r.exit_code == 0, r.stderr
    team = json.loads(r.stdout)
    assert team.pop("team") == "gpu" and team.pop("pusher") == "alice"
    assert team == local
    for args in ((), ("--max-tokens", "300")):
        md_local = invoke("handoff", "--session", scope, "--db", str(db), *args).stdout
        r = invoke("handoff", "--team-url", server["bob"], "--session", scope[:12], *args)
        assert r.exit_code == 0 and r.stdout == md_local
        assert "pushed by alice to team gpu" in r.stderr
    r = invoke("handoff", "--team-url", server["bob"], "--session", "ses_nobody_pushed")
    assert r.exit_code == 6 and "no pushed session matches" in r.stderr
    r = invoke("handoff", "--team-url", server["carol"])  # another team's brief: not there
    assert r.exit_code == 6 and "no session pushed" in r.stderr


# ------------------------------------------------------------------------------- MCP
class TeamMcp(McpClient):
    """``logkb mcp --team-url URL`` spoken to as an agent would."""

    def __init__(self, url: str) -> None:  # noqa: D107 - McpClient's, another command line
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "kb", "mcp", "--team-url", url], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)}, cwd=ROOT)
        self.next_id = 0
        init = self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "logkb-tests", "version": "0"}})
        assert init["serverInfo"]["name"] == "logkb"
        self.notify("notifications/initialized")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait(20)


def test_the_mcp_tools_answer_from_the_team(server: dict[str, str], valdyum_db: Path,
                                            copy_db: Any) -> None:
    db = copy_db(valdyum_db)
    assert invoke("push", "--team", server["alice"], "--all", "--db", str(db)).exit_code == 0
    local = lines(invoke("deadends", "--all", "--db", str(db), "--json").stdout)
    client = TeamMcp(server["bob"])
    try:
        got = client.call("deadends")
        assert got["count"] == len(local) >= 1
        assert {d["name"] for d in got["items"]} == {d["name"] for d in local}
        assert all(d["pusher"] == "alice" and "#" in d["cite"] for d in got["items"])
        hits = client.call("search", query="Get-ChildItem")
        assert hits["count"] >= 1 and hits["items"][0]["pusher"] == "alice"
        sid, _, ordinal = hits["items"][0]["cite"].partition("#")
        evs = client.call("events", session=sid, start=int(ordinal), end=int(ordinal))
        assert evs["session"] == sid and evs["items"]
        assert all(e["ordinal"] == int(ordinal) for e in evs["items"])
        word = max(str(local[0]["name"]).replace("`", " ").split(), key=len)
        why = client.call("why", name=word)
        assert why["people"] == 1 and why["answer"].startswith(f"{word!r} was seen by 1 person")
        assert isinstance(client.call("untested")["items"], list)
        brief = client.call("handoff", max_tokens=100_000)
        assert brief["pusher"] == "alice" and brief["markdown"].startswith("#")
        local_md = invoke("handoff", "--db", str(db), "--session", brief["session"],
                          "--max-tokens", "100000").stdout
        assert brief["markdown"].strip() == local_md.strip()
        bad = client.request("tools/call", {"name": "events",
                                            "arguments": {"session": "ses_nobody"}})
        assert bad["isError"] is True and "no pushed session" in bad["content"][0]["text"]
    finally:
        client.close()
    carol = TeamMcp(server["carol"])  # another team sees none of it
    try:
        assert carol.call("deadends")["count"] == 0
    finally:
        carol.close()


# ------------------------------------------------------------------------ watch --push
def _wait_for(pred: Callable[[], bool], what: str, timeout: float = 90.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.5)
    raise AssertionError(f"not within {timeout:g}s: {what}")


def test_watch_push_sends_sessions_as_they_change(server: dict[str, str], selftest: Path,
                                                  tmp_path: Path) -> None:
    msgs = session_lines(selftest / "export.json")
    src = tmp_path / "live"
    src.mkdir()
    f = src / "session.jsonl"
    f.write_text("\n".join(msgs[:4]) + "\n")
    db = tmp_path / "kb.duckdb"

    def on_server() -> int:
        with psycopg.connect(server["admin"]) as conn:
            row = conn.execute("SELECT coalesce(sum(messages), 0) FROM logkb.scopes "
                               "WHERE pusher = 'alice'").fetchone()
        return int(row[0]) if row else 0

    proc = subprocess.Popen(
        [sys.executable, "-m", "kb", "watch", "--json", "--poll", "0.5", "--push",
         "--db", str(db), str(src)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env={**os.environ, "PYTHONPATH": str(ROOT),
                        "LOGKB_TEAM_URL": server["alice"]}, cwd=ROOT)
    try:
        _wait_for(lambda: on_server() == 4, "the first 4 messages on the server")
        with f.open("a") as fh:
            fh.write("\n".join(msgs[4:]) + "\n")
        _wait_for(lambda: on_server() == len(msgs), f"all {len(msgs)} messages pushed")
    finally:
        proc.terminate()
        out, errs = proc.communicate(timeout=30)
    events = [json.loads(x) for x in out.splitlines()]
    pushed = [e for e in events if e["event"] == "pushed"]
    assert len(pushed) >= 2 and all(e["team"] == "gpu" for e in pushed), (out, errs)
    assert [s["status"] for e in pushed for s in e["scopes"]].count("sent") >= 2
    # what the server holds is what the local knowledge base derived from the whole session
    local = lines(invoke("deadends", "--all", "--db", str(db), "--json").stdout)
    team = lines(invoke("deadends", "--team-url", server["bob"], "--json").stdout)
    assert any("deepep" in d["name"].lower() for d in team)
    assert sorted(d["name"] for d in team) == sorted(d["name"] for d in local)


def test_watch_push_keeps_what_the_server_could_not_take(tmp_path: Path, selftest: Path,
                                                         cluster: Any) -> None:
    """A server that is not there: the watch goes on ingesting, says so, keeps it owed."""
    src = tmp_path / "src"
    src.mkdir()
    (src / "s.jsonl").write_text("\n".join(session_lines(selftest / "export.json")) + "\n")
    dead = f"postgresql://alice@127.0.0.1:{cluster.port}/no_such_database"
    p = subprocess.run([sys.executable, "-m", "kb", "watch", "--json", "--for", "3", "--push",
                        "--team", dead, "--db", str(tmp_path / "kb.duckdb"), str(src)],
                       capture_output=True, text=True, timeout=120, cwd=ROOT,
                       env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert p.returncode == 0, p.stderr
    events = [json.loads(x) for x in p.stdout.splitlines()]
    kinds = [e["event"] for e in events]
    assert kinds[:3] == ["watching", "ingested", "error"], kinds
    assert events[2]["push"] is True and "no_such_database" in events[2]["error"]
