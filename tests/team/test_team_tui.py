"""``logkb tui --team`` (issue 25): the TUI opens the team store read-only, through a
local mirror of what the member may read (kb/team/mirror.py), against a real
PostgreSQL."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest

from kb import views
from kb.graph import store as gs
from kb.store import KbStore
from kb.team import mirror as tm
from kb.team import read as team_read
from tests.cli_kb import invoke

pytestmark = pytest.mark.slow


def push(url: str, db: Path) -> None:
    r = invoke("push", "--team", url, "--all", "--db", str(db), "--json")
    assert r.exit_code == 0, r.stderr


def build(url: str, tmp: Path) -> tm.Mirror:
    conn, teams = team_read.open_read(url, None)
    try:
        return tm.build(conn, teams, directory=tmp)
    finally:
        conn.close()


def shown(store: KbStore, sid: str) -> dict[str, Any]:
    """What the TUI shows of a session: its row, its events, its timeline rows, its
    facets and its dead ends."""
    scope = gs.scope_of(store, sid)
    index = views.timeline_index(store, sid)
    row = {k: v for k, v in store.session(sid).items()
           if k not in ("source_path", "ingested_at", "info", "slug", "project_id",
                        "derive_version")}
    return {"session": row,
            "events": [e.model_dump() for e in store.events(sid)],
            "timeline": views.timeline_rows(store, index, 0, len(index)),
            "facets": views.facets(store, sid),
            "dead_ends": gs.dead_ends(store, [scope]),
            "untested": gs.untested(store, [scope])}


@pytest.mark.parametrize("which", ["valdyum", "generated", "leaky"])
def test_the_mirror_shows_what_the_local_store_shows(
        which: str, server: dict[str, str], request: pytest.FixtureRequest, copy_db: Any,
        tmp_path: Path) -> None:
    src = (request.getfixturevalue("generated")["full"] if which == "generated"
           else request.getfixturevalue(f"{which}_db"))
    db = copy_db(src)
    push(server["alice"], db)
    m = build(server["bob"], tmp_path)  # a teammate's view
    try:
        assert m.path.exists() and m.sessions >= 1
        with KbStore(db, read_only=True) as local, KbStore(m.path, read_only=True) as mine:
            sids = [s["session_id"] for s in local.sessions()]
            if which == "valdyum":  # a real session with dead ends (generated: none)
                assert any(gs.dead_ends(local, [s]) for s in local.top_level_ids())
            assert [s["session_id"] for s in mine.sessions()] == sids
            for sid in sids:
                want, got = shown(local, sid), shown(mine, sid)
                assert got["dead_ends"] == want["dead_ends"]
                for key in want:
                    assert got[key] == want[key], key
                assert views.graph_fresh(mine, gs.scope_of(mine, sid))  # never rebuilt
            if which == "leaky":  # the mirror holds the redacted text, no secret
                from fixtures import secrets_session as fx

                with KbStore(db, read_only=True, reveal_secrets=True) as shows:
                    assert shown(shows, sids[0])["events"] != shown(mine, sids[0])["events"]
                mine.reveal_secrets = True  # asking changes nothing: there is none to show
                dump = json.dumps([shown(mine, s)["events"] for s in sids])
                assert "[redacted:" in dump
                assert not [v for v in fx.SECRETS.values() if v[-10:] in dump]
    finally:
        m.remove()
    assert not m.path.parent.exists()
    # carol (team blue) may read none of it
    m = build(server["carol"], tmp_path)
    try:
        assert m.sessions == 0
    finally:
        m.remove()


def test_the_tui_opens_the_mirror_read_only_at_80x24(
        server: dict[str, str], valdyum_db: Path, copy_db: Any, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from tests.tui.conftest import screen_text, settle
    from tui.app import make_app
    from tui.screens import GraphScreen, SessionsScreen, TimelineScreen

    monkeypatch.setenv("TZ", "UTC")
    db = copy_db(valdyum_db)
    push(server["alice"], db)
    with KbStore(db, read_only=True) as local:
        sid = local.top_level_ids()[0]
        title = local.session_title(sid) or ""
        ended = [d["name"] for d in gs.dead_ends(local, [sid])]
    assert ended
    m = build(server["bob"], tmp_path)

    async def run() -> None:
        app = make_app(m.path, read_only="this is a read-only copy of team gpu")
        async with app.run_test(size=(80, 24), notifications=True) as running:
            pilot: Any = running
            await settle(pilot)
            assert isinstance(app.screen, SessionsScreen)
            assert title[:20] in screen_text(pilot)
            await pilot.press("enter")
            await settle(pilot)
            assert isinstance(app.screen, TimelineScreen) and app.screen.session_id == sid
            # writing is refused, and said
            await pilot.press("x")
            await settle(pilot)
            said = [n.message for n in app._notifications]
            assert any("read-only copy of team gpu" in s for s in said), said
            await pilot.press("r")
            await settle(pilot)
            assert isinstance(app.screen, TimelineScreen)  # no replay screen
            assert sum("cannot replay" in n.message for n in app._notifications) == 1
            await pilot.press("ctrl+s")
            await settle(pilot)
            assert any("no secret to show" in n.message for n in app._notifications)
            assert not app.lease.reveal_secrets
            await pilot.press("g")
            await settle(pilot)
            assert isinstance(app.screen, GraphScreen)
            text = screen_text(pilot)
            assert any(name[:24] in text for name in ended), text
        assert app.lease.opens >= 1

    try:
        asyncio.run(run())
        with KbStore(m.path, read_only=True) as store:  # nothing was written
            assert store.conn.execute("SELECT count(*) FROM annotations").fetchone() == (0,)
            assert store.conn.execute("SELECT count(*) FROM replay_runs").fetchone() == (0,)
    finally:
        m.remove()


def test_tui_team_with_a_dead_server_fails_clearly(cluster: Any) -> None:
    import socket

    with socket.socket() as s:  # a loopback port nobody listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    url = f"postgresql://alice:hunter2pw@127.0.0.1:{port}/logkb"
    for args in (("tui", "--team", url), ("tui", "--team-url", url)):
        r = invoke(*args)
        assert r.exit_code == 1, (r.exit_code, r.stderr)
        assert r.stderr.startswith("logkb: error: cannot connect to the team server "
                                   f"postgresql://alice:***@127.0.0.1:{port}/logkb"), r.stderr
        assert "hunter2pw" not in r.stderr + r.stdout
    r = invoke("tui", "--team", env={"LOGKB_TEAM_URL": url})
    assert r.exit_code == 1 and "cannot connect" in r.stderr and "hunter2pw" not in r.stderr
    r = invoke("tui", "--team-name", "gpu")
    assert r.exit_code == 2 and "--team-name needs --team" in r.stderr


def test_a_killed_tui_teams_mirror_is_swept_by_the_next(server: dict[str, str],
                                                        tmp_path: Path) -> None:
    """kill -9 runs no ``finally``: the next mirror deletes what a dead process left
    (the folder names its process) and keeps a live one's."""
    import subprocess
    import sys

    made = subprocess.run(
        [sys.executable, "-c", "import os, tempfile, pathlib, sys; "
         f"d = tempfile.mkdtemp(prefix=f'logkb-team-{{os.getpid()}}-', dir={str(tmp_path)!r}); "
         "pathlib.Path(d, 'team.duckdb').write_bytes(b'x'); print(d); sys.stdout.flush(); "
         "os.kill(os.getpid(), 9)"], capture_output=True, text=True)
    assert made.returncode == -9
    left = Path(made.stdout.strip())
    assert (left / "team.duckdb").exists()
    live = tmp_path / f"logkb-team-{os.getpid()}-live"
    live.mkdir()
    other = tmp_path / "logkb-teams-notes"  # not a mirror
    other.mkdir()
    m = build(server["bob"], tmp_path)
    try:
        assert not left.exists()
        assert live.is_dir() and other.is_dir() and m.path.parent.exists()
        assert m.path.parent.name.startswith(f"logkb-team-{os.getpid()}-")
    finally:
        m.remove()
    assert not m.path.parent.exists()
