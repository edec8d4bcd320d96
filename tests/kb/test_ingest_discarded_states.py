"""What logkb does not understand is counted: a kept extraction state it could not use
(``kb.graph.state.DISCARDED``) shows in ``logkb ingest``'s summary and ``--json``."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from kb.cli import cli
from kb.store import KbStore
from tests.hostile import secret_corpus as corpus


def _ingest(db: Path, src: Path, *args: str) -> tuple[str, str]:
    r = CliRunner().invoke(cli, ["ingest", "--db", str(db), "--wait", *args, str(src)],
                           catch_exceptions=False)
    assert r.exit_code == 0, (r.stdout, r.stderr)
    return r.stdout, r.stderr


def _grow(tmp_path: Path) -> tuple[Path, list[str]]:
    full = corpus.write_claude(tmp_path / "full.jsonl").read_text().splitlines(True)
    # cut after a call's result: a call cut from its result is a message the grown file
    # updates, and an updated message derives the graph again (no kept state resumed)
    cut = next(i for i in range(len(full) // 2, len(full))
               if '"tool_result"' in full[i - 1] and '"assistant"' in full[i])
    src = tmp_path / "s.jsonl"
    src.write_text("".join(full[:cut]))
    return src, full


def _spoil(db: Path) -> None:
    with KbStore(db) as store:
        n = store.conn.execute("SELECT count(*) FROM graph_state").fetchone()
        assert n and n[0] >= 1, "the first ingest keeps an extraction state"
        store.conn.execute("UPDATE graph_state SET state = ?", ['{"codec": "pickle"}'])


def test_ingest_counts_the_kept_states_it_discarded(tmp_path: Path) -> None:
    src, full = _grow(tmp_path)
    db = tmp_path / "kb.duckdb"
    _, first = _ingest(db, src)
    assert "discarded" not in first, first  # nothing to say when all was understood
    _spoil(db)
    src.write_text("".join(full))  # the session grew: its kept state would be resumed
    _, second = _ingest(db, src)
    lines = [ln for ln in second.splitlines() if "extraction state" in ln]
    assert lines and "1 kept extraction state discarded" in lines[0], second
    assert "unreadable" in lines[0] and max(map(len, second.splitlines())) <= 80, second


def test_ingest_json_counts_the_kept_states_it_discarded(tmp_path: Path) -> None:
    src, full = _grow(tmp_path)
    db = tmp_path / "kb.duckdb"
    out, _ = _ingest(db, src, "--json")
    assert json.loads(out)["states_discarded"] == {"count": 0, "reasons": {}}
    _spoil(db)
    src.write_text("".join(full))
    out, _ = _ingest(db, src, "--json")
    got = json.loads(out)["states_discarded"]
    assert got["count"] == 1 and sum(got["reasons"].values()) == 1, got
    assert all(r.startswith("unreadable") for r in got["reasons"]), got
