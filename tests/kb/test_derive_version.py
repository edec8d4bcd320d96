"""Events derived by older rules are derived again from their sources: by the next ingest
of the (unchanged) source, and by ``logkb rebuild --events``; annotations survive."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import duckdb
from click.testing import CliRunner

from kb.cli import cli
from kb.ingest import ingest
from kb.store import KbStore
from logparse.derive import DERIVE_VERSION

EXPORT = Path(__file__).resolve().parents[2] / "fixtures" / "opencode_recorded" / \
    "blank-page" / "export.json"


def _age(db: Path) -> None:
    """What an older logkb left: no version, and a signature today's rules would not write."""
    con = duckdb.connect(str(db))
    con.execute("UPDATE sessions SET derive_version = NULL")
    con.execute("UPDATE calls SET error_signatures = NULL WHERE error_signatures IS NOT NULL")
    con.close()


def _signatures(db: Path) -> int:
    with KbStore(db, read_only=True) as store:
        row = store.conn.execute(
            "SELECT count(*) FROM calls WHERE error_signatures IS NOT NULL").fetchone()
    assert row is not None
    return int(row[0])


def test_an_unchanged_source_is_derived_again_when_its_rules_are_older(tmp_path: Path) -> None:
    src = Path(shutil.copy(EXPORT, tmp_path / "export.json"))
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [src])
    fresh = _signatures(db)
    assert fresh > 0
    run = CliRunner()
    assert run.invoke(cli, ["mark", "dead-end", "8", "types", "--db", str(db)]).exit_code == 0
    _age(db)
    assert _signatures(db) == 0
    with KbStore(db) as store:
        rep = ingest(store, [src])  # the file did not change; the rules did
        assert [s.session_id for s in rep.sessions] and not rep.unchanged
        assert store.derived_by(rep.sessions[0].session_id) == DERIVE_VERSION
    assert _signatures(db) == fresh
    with KbStore(db) as store:  # now current: the next ingest reads nothing
        assert ingest(store, [src]).unchanged == [str(src)]
        marks = store.conn.execute("SELECT count(*) FROM annotations").fetchone()
    assert marks is not None and marks[0] == 1


def test_rebuild_events_derives_stale_sessions_and_names_sources_that_are_gone(
        tmp_path: Path) -> None:
    src = Path(shutil.copy(EXPORT, tmp_path / "export.json"))
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        sid = ingest(store, [src]).sessions[0].session_id
    _age(db)
    run = CliRunner()
    r = run.invoke(cli, ["rebuild", "--events", "--db", str(db), "--json"])
    assert r.exit_code == 0, r.output
    out = json.loads(r.stdout)["events"]
    assert out == {"derive_version": DERIVE_VERSION, "sessions": [sid], "sources_gone": []}
    assert _signatures(db) > 0
    _age(db)
    src.unlink()
    r = run.invoke(cli, ["rebuild", "--events", "--db", str(db), "--json"])
    out = json.loads(r.stdout)["events"]
    assert out["sessions"] == [] and out["sources_gone"] == [
        {"source": str(src), "sessions": [sid]}]
