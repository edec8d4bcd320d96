"""Events of one place come out in one order, whatever order they were stored in."""

from __future__ import annotations

from pathlib import Path

from kb.store import KbStore
from tests.cli_kb import invoke

REAL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld" / "labelled"


def test_a_choice_follows_the_prose_it_was_read_from(tmp_path: Path) -> None:
    """Valdyum-Labs' "I'll use the `apply-grant` skill" is a prose decision and a
    ``choice`` event in the same part.  Stored in the other order (as a team mirror may
    fill its tables), the choice still comes second."""
    db = tmp_path / "kb.duckdb"
    r = invoke("ingest", "--db", str(db), str(REAL / "Valdyum-Labs__codex-session.jsonl"))
    assert r.exit_code == 0, r.stderr
    with KbStore(str(db)) as store:
        sid = store.sessions()[0]["session_id"]
        before = [(e.ordinal, e.seq, e.source, e.text) for e in store.events(sid)]
        pairs = [i for i in range(1, len(before)) if before[i][2] == "choice"
                 and before[i][:2] == before[i - 1][:2]]
        assert pairs, "no choice shares its place with its prose"
        # store the rows again, choices first
        store.conn.execute("CREATE TEMP TABLE p AS SELECT * FROM prose")
        store.conn.execute("DELETE FROM prose")
        store.conn.execute("INSERT INTO prose SELECT * FROM p "
                           "ORDER BY coalesce(source, '') = 'choice' DESC")
        after = [(e.ordinal, e.seq, e.source, e.text) for e in store.events(sid)]
    assert after == before
