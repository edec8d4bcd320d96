"""The knowledge base and its index are the owner's alone; query never shows a secret
hidden in JSON escaped twice (issue 24)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from kb.store import KbStore


def _mode(p: Path) -> int:
    return stat.S_IMODE(os.stat(p).st_mode)


def test_a_new_knowledge_base_is_0600_in_a_0700_directory(tmp_path: Path,
                                                          monkeypatch: pytest.MonkeyPatch) -> None:
    home = tmp_path / "logkb-home"
    monkeypatch.setenv("LOGKB_HOME", str(home))
    monkeypatch.delenv("LOGKB_DB", raising=False)
    with KbStore() as store:
        db = Path(store.path)
    assert _mode(home) == 0o700 and _mode(db) == 0o600
    from kb.search.index import SearchIndex, index_dir

    idx = index_dir(db)
    SearchIndex(idx)
    assert _mode(idx) == 0o700


def test_a_knowledge_base_in_a_shared_folder_leaves_the_folder_alone(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``LOGKB_DB=/tmp/kb.duckdb`` made /tmp 0700 (every other user and service lost
    /tmp): only logkb's own directory, or one it creates, is made private."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    os.chmod(shared, 0o1777)
    monkeypatch.setenv("LOGKB_HOME", str(tmp_path / "logkb-home"))
    monkeypatch.setenv("LOGKB_DB", str(shared / "kb.duckdb"))
    with KbStore() as store:
        db = Path(store.path)
    assert _mode(shared) == 0o1777 and _mode(db) == 0o600
    with KbStore(shared / "other.duckdb"):
        pass
    assert _mode(shared) == 0o1777
    monkeypatch.setenv("LOGKB_HOME", str(shared))  # even named as logkb's home
    monkeypatch.delenv("LOGKB_DB")
    with KbStore():
        pass
    assert _mode(shared) == 0o1777


def test_query_hides_a_key_escaped_twice(tmp_path: Path) -> None:
    body = "MIIEvQIBADANBgkqhkiG9w0BAQEFAASC" + "BKcwggSjAgEAAoIBAQC7VJTUt9Us8cKj"
    key = ("-----BEGIN RSA " + "PRIVATE KEY-----\n" + body + "\n-----END RSA "
           + "PRIVATE KEY-----")
    twice = json.dumps(json.dumps({"output": key}))
    with KbStore(tmp_path / "kb.duckdb") as store:
        res = store.query(f"SELECT {_sql(twice)} AS raw, substr({_sql(twice)}, 40) AS cut")
    shown = json.dumps(res.rows)
    assert body not in shown and body[:32] not in shown and "[redacted:" in shown


def _sql(s: str) -> str:
    return "'" + s.replace("'", "''") + "'"


def test_an_older_world_readable_knowledge_base_is_tightened(tmp_path: Path) -> None:
    db = tmp_path / "kb.duckdb"
    with KbStore(db):
        pass
    os.chmod(db, 0o644)  # as an older logkb left it
    with KbStore(db) as store:
        store.conn.execute("CHECKPOINT")
    assert _mode(db) == 0o600
