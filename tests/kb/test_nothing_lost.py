"""No ingest deletes a stored message, for the newest readers (rvsafe2 review): a Gemini
CLI session with a ``$rewindTo``, Antigravity and pi sessions, Codex sub-agent child
sessions, each met again in an older or shorter copy after the longer one (at its own
path and at another), and a child ingested before its parent then again older.

Only trimmed fixtures here (``fixtures/realworld_trim``, ``fixtures/gemini_rewind``,
``fixtures/codex_subagents``): no held-out transcript is read."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from fixtures.codex_subagents.make import CHILD_V1, PARENT_V1
from kb.ingest import ingest
from kb.store import KbStore
from logparse.antigravity import conversation_id
from tests.kb.test_codex_subagents import rollout

FIX = Path(__file__).resolve().parents[2] / "fixtures"
FORMS = {
    "gemini-rewind": FIX / "gemini_rewind" / "session-rewind.jsonl",
    "gemini-cli": FIX / "realworld_trim" / "gemini_cli.jsonl",
    "antigravity": FIX / "realworld_trim" / "antigravity.jsonl",
    "pi": FIX / "realworld_trim" / "pi.jsonl",
    "codex-child": rollout(CHILD_V1),
    "codex-parent": rollout(PARENT_V1),
}


def _stored(store: KbStore) -> dict[tuple[str, str], tuple[int, str | None]]:
    """Every stored message: its ordinal and its text as stored."""
    rows = store.conn.execute(
        "SELECT m.session_id, m.message_id, m.ordinal, string_agg(e.text, '|' ORDER BY e.seq)"
        " FROM messages m LEFT JOIN events e ON e.session_id = m.session_id"
        " AND e.ordinal = m.ordinal GROUP BY ALL").fetchall()
    return {(s, m): (o, t) for s, m, o, t in rows}


def _cut(src: Path, dst: Path, keep: int) -> Path:
    lines = src.read_bytes().splitlines(keepends=True)
    dst.write_bytes(b"".join(lines[:keep]))
    return dst


@pytest.mark.parametrize("same_path", [True, False], ids=["same-path", "other-path"])
@pytest.mark.parametrize("form", sorted(FORMS))
def test_an_older_copy_after_the_longer_loses_nothing(
        tmp_path: Path, form: str, same_path: bool) -> None:
    src = FORMS[form]
    n = len(src.read_bytes().splitlines())
    newer = tmp_path / ("a" + src.suffix)
    shutil.copyfile(src, newer)
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [newer], graph=True)
        before = _stored(store)
        rewound = {s: store.rewound(s) for s, _ in before}
        assert before
        for keep in (n * 2 // 3, n // 3, 2):  # ever shorter snapshots
            older = newer if same_path else tmp_path / f"older-{keep}{src.suffix}"
            _cut(src, older, keep)
            ingest(store, [older], graph=True)
            after = _stored(store)
            lost = {k: v for k, v in before.items() if k not in after}
            assert not lost, (form, keep, sorted(lost)[:5])
            changed = {k for k, v in before.items() if after[k] != v}
            assert not changed, (form, keep, sorted(changed)[:5])
            assert {s: store.rewound(s) for s, _ in before} == rewound, (form, keep)
            sessions = {s for s, _ in after}
            if form == "antigravity" and conversation_id(older) is None:
                # a copy cut before the trajectory names its conversation is a session
                # of its own (`ag-` and a digest of its first step): nothing lost, but
                # one conversation stored twice (left alone, said in rvsafe2's report)
                continue
            assert sessions == {s for s, _ in before}, (form, keep, sessions)  # met again


def test_a_child_before_its_parent_then_older_copies_loses_nothing(tmp_path: Path) -> None:
    child, parent = rollout(CHILD_V1), rollout(PARENT_V1)
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [child], graph=True)
        ingest(store, [parent], graph=True)
        before = _stored(store)
        link = store.conn.execute("SELECT session_id, parent_id FROM sessions ORDER BY 1"
                                  ).fetchall()
        assert (CHILD_V1, PARENT_V1) in link
        for src in (child, parent):  # each again, shorter, at another path
            n = len(src.read_bytes().splitlines())
            ingest(store, [_cut(src, tmp_path / f"old-{src.name}", n // 2)], graph=True)
        after = _stored(store)
        assert not [k for k in before if k not in after]
        assert {k for k, v in before.items() if after[k] != v} == set()
        assert store.conn.execute("SELECT session_id, parent_id FROM sessions ORDER BY 1"
                                  ).fetchall() == link
