"""``logkb report --team`` (issue 27): the HTML report rendered from the team store's read
path, against a real PostgreSQL (tests/team's throwaway cluster)."""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest

from kb.team import read as team_read
from tests.cli_kb import invoke, lines

pytestmark = pytest.mark.slow


def team_read_items(url: str, kind: str) -> list[dict[str, Any]]:
    conn, teams = team_read.open_read(url, None)
    try:
        return team_read.items(conn, teams, kind)
    finally:
        conn.close()


def test_report_from_the_team_store(server: dict[str, str], valdyum_db: Path, copy_db: Any,
                                    tmp_path: Path) -> None:
    db = copy_db(valdyum_db)
    r = invoke("push", "--team", server["alice"], "--all", "--db", str(db), "--json")
    assert r.exit_code == 0, r.stderr
    local = lines(invoke("sessions", "--db", str(db), "--json").stdout)[0]
    dead = lines(invoke("deadends", "--all", "--db", str(db), "--json").stdout)
    # the team's session list has the local tokens and cost (gpt-5.5: $0.6142, ccusage's)
    (ts,) = lines(invoke("sessions", "--team-url", server["bob"], "--json").stdout)
    assert {k: ts[k] for k in ("tokens", "cost", "cost_complete")} == {
        k: local[k] for k in ("tokens", "cost", "cost_complete")}
    r = invoke("sessions", "--team-url", server["bob"], env={"COLUMNS": "80"})
    assert all(len(line) <= 80 for line in r.stdout.splitlines())
    assert round(local["cost"], 4) == 0.6142 and "$0.61" in r.stdout
    out = tmp_path / "site"
    r = invoke("report", "--team-url", server["bob"], "-o", str(out), "--json")
    assert r.exit_code == 0, r.stderr
    res = json.loads(r.stdout)
    assert res["sessions"] == 1 and Path(res["index"]).is_file()
    index = Path(res["index"]).read_text()
    assert local["id"] in index and "alice" in index
    assert "$0.61" in index and "unknown" not in index
    assert local["tokens"]["total"] and "k</td>" in index
    page = Path(res["pages"][1]["path"]).read_text()
    assert f"Dead ends ({len(dead)})" in page
    for d in dead:
        assert html.escape(d["cause"] or "(cause not found)", quote=False)[:30] in page
    # the timeline: every command of the session, from the pushed events
    cmds = lines(invoke("events", "--db", str(db), "--kind", "command", "--json").stdout)
    assert cmds and 'id="timeline"' in page
    pages = "".join(Path(p["path"]).read_text() for p in res["pages"][1:])
    for c in cmds:
        assert f'id="m{c["ordinal"]}"' in pages
    # evidence links lead to their messages in the timeline
    linked = 0
    for d in dead:
        for e in d["evidence"]:
            o = e["ordinal"] if isinstance(e, dict) else e
            if f'id="m{o}"' in page:
                assert f'href="#m{o}"' in page
                linked += 1
    assert linked
    decisions = [d for d in team_read_items(server["bob"], "decision")]
    assert f"Decisions ({len(decisions)})" in page
    # offline: nothing loads from anywhere but the page itself
    for text in (index, page):
        assert not re.search(r'(src|href)="(https?:)?//', text)
    # another team sees none of it
    r = invoke("report", "--team-url", server["carol"], "-o", str(tmp_path / "blue"),
               "--json")
    assert r.exit_code == 0, r.stderr
    assert json.loads(r.stdout)["sessions"] == 0
