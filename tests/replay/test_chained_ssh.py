"""Issue 8: a command chaining several ssh calls keeps every host it reaches."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kb.cli import cli
from tests.replay.conftest import make_session


def _events(db: Path, *args: str) -> list[dict]:
    r = CliRunner().invoke(cli, ["events", "--db", str(db), "--kind", "command", "--json",
                                 *args], catch_exceptions=False)
    assert r.exit_code == 0, r.stderr
    return [json.loads(x) for x in r.stdout.splitlines()]


def test_chained_ssh_calls_give_the_host_and_every_remote_command(tmp_path: Path,
                                                                    isolated_home: Path) -> None:
    same = "ssh root@10.1.230.174 'nvidia-smi' && ssh root@10.1.230.174 'df -h'"
    mixed = "ssh root@10.0.0.5 uptime; ssh ubuntu@10.0.0.6 'free -g'"
    local = "ls /tmp"
    db = make_session(tmp_path, [(same, "", 0), (mixed, "", 0), (local, "", 0)])
    evs = {e["command"]: e for e in _events(db)}
    one = evs[same]
    assert one["host"] == "10.1.230.174" and one["user"] == "root"
    assert one["remote_command"] == "nvidia-smi\ndf -h"
    assert [h["remote_command"] for h in one["hops"]] == ["nvidia-smi", "df -h"]
    two = evs[mixed]
    assert two["host"] == "10.0.0.5"
    assert [h["host"] for h in two["hops"]] == ["10.0.0.5", "10.0.0.6"]
    # events --host finds the command by any host it reaches
    assert [e["command"] for e in _events(db, "--host", "10.0.0.6")] == [mixed]
    assert [e["command"] for e in _events(db, "--host", "10.0.0.5")] == [mixed]
    assert [e["command"] for e in _events(db, "--host", "10.1.230.174")] == [same]
    assert _events(db, "--host", "10.9.9.9") == []
