"""A transcript with one huge line (a 12 MB text: a pasted log, a file read whole) is
indexed by the ingest that stores it.  The index reads back what was written under the
ingest's small DuckDB cache (``kb.ingest.INDEX_MEMORY_LIMIT``), which one such event
outgrows (``failed to allocate data of size 128.0 MiB``): the sync is tried once more
with room for it (``kb.search.INDEX_RETRY_MEMORY_LIMIT``), so a search finds the session
without rebuilding, and a failure would be said on one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.ingest import ingest
from kb.search.index import SearchIndex
from kb.store import KbStore

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim" / "claude_2_1.jsonl"


def test_a_huge_line_is_indexed_by_its_ingest(tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    lines = TRIM.read_bytes().splitlines(keepends=True)
    mid = next(i for i, x in enumerate(lines) if b'"type":"text","text":"' in x)
    lines[mid] = lines[mid].replace(b'"type":"text","text":"',
                                    b'"type":"text","text":"' + b"pasted log line " * (12 << 16), 1)
    path = tmp_path / "huge.jsonl"
    path.write_bytes(b"".join(lines))
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        rep = ingest(store, [path], graph=False)
        (s,) = rep.sessions
    err = capsys.readouterr().err
    assert "search index not updated" not in err, err
    index = SearchIndex.for_db(db)
    assert s.session_id in index.meta.get("sessions", {})
