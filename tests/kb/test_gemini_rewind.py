"""Gemini CLI's ``$rewindTo``: the messages the user rewound past stay stored, marked, and
the brief's goal, ``show`` and the untested checks of the brief treat them as taken back.

``fixtures/gemini_rewind/session-rewind.jsonl`` is built from Gemini CLI's source
(``ChatRecordingService.rewindTo`` appends ``{"$rewindTo": id}``; loading drops that
message and every later one), not from a real transcript: see its README.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kb.store import KbStore
from tests.cli_kb import invoke
from tests.timing import best_cpu

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "gemini_rewind" / \
    "session-rewind.jsonl"


def _ingest(src: Path, tmp: Path) -> Path:
    db = tmp / "kb.duckdb"
    r = invoke("ingest", "--wait", "--json", "--db", str(db), str(src))
    assert r.exit_code == 0, r.output
    return db


@pytest.fixture(scope="module")
def db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _ingest(FIXTURE, tmp_path_factory.mktemp("rewind"))


def _sid(db: Path) -> str:
    with KbStore(db, read_only=True) as store:
        return str(store.sessions()[0]["session_id"])


def test_the_rewound_messages_stay_stored_and_marked(db: Path) -> None:
    with KbStore(db, read_only=True) as store:
        sid = _sid(db)
        assert store.max_ordinal(sid) == 6  # nothing is lost
        rewound = store.rewound(sid)
        # "$rewindTo": "u1" after message 3: the first prompt and both replies taken back
        assert sorted(rewound) == [1, 2, 3]
        assert rewound[2] == {"at": 3, "line": 8, "to": "u1"}
        raw = store.conn.execute("SELECT raw FROM messages WHERE session_id = ? AND "
                                 "ordinal = 3", [sid]).fetchone()[0]
        assert json.loads(raw)["rewinds"] == [
            {"to": "u1", "from": 1, "through": 3, "line": 8, "found": True}]


def test_the_rewind_line_is_read_not_counted_as_unknown(db: Path) -> None:
    r = invoke("ingest", "--force", "--json", "--db", str(db), str(FIXTURE))
    assert r.exit_code == 0, r.output
    assert "NoneType" not in r.output and "$rewindTo" not in r.output


def test_show_says_a_message_was_rewound(db: Path) -> None:
    sid = _sid(db)
    r = invoke("show", "2", "--session", sid, "--db", str(db), env={"COLUMNS": "80"})
    assert "(rewound after message 3: the user took this message back)" in r.stdout
    assert r.stdout.startswith("message 2 · rewound · assistant")
    assert all(len(x) <= 80 for x in r.stdout.splitlines())
    r = invoke("show", "5", "--session", sid, "--db", str(db))
    assert "rewound" not in r.stdout
    got = json.loads(invoke("show", "2", "--json", "--session", sid, "--db", str(db)).stdout)
    assert got["rewound"] == {"at": 3, "line": 8, "to": "u1"}
    got = json.loads(invoke("show", "5", "--json", "--session", sid, "--db", str(db)).stdout)
    assert got["rewound"] is None


def test_the_goal_is_what_the_user_asked_after_the_rewind(db: Path) -> None:
    d = json.loads(invoke("handoff", "--json", "--session", _sid(db), "--db", str(db)).stdout)
    assert d["goal"]["ordinal"] == 4
    assert "five slowest tests" in d["goal"]["text"]
    assert all(q["ordinal"] > 3 for q in d["open"]["untested"])


def test_a_rewind_to_an_unknown_message_takes_back_everything(tmp_path: Path) -> None:
    lines = FIXTURE.read_text().splitlines()
    src = tmp_path / "session-unknown.jsonl"
    src.write_text("\n".join(x.replace('"$rewindTo": "u1"', '"$rewindTo": "nope"')
                             for x in lines) + "\n")
    db = _ingest(src, tmp_path)
    with KbStore(db, read_only=True) as store:
        assert sorted(store.rewound(_sid(db))) == [1, 2, 3]


def test_no_rewind_no_mark(tmp_path: Path) -> None:
    src = tmp_path / "session-plain.jsonl"
    src.write_text("\n".join(x for x in FIXTURE.read_text().splitlines()
                             if "$rewindTo" not in x) + "\n")
    db = _ingest(src, tmp_path)
    with KbStore(db, read_only=True) as store:
        assert store.rewound(_sid(db)) == {}
    d = json.loads(invoke("handoff", "--json", "--db", str(db)).stdout)
    assert d["goal"]["ordinal"] == 1
    shutil.rmtree(tmp_path / "kb.duckdb.index", ignore_errors=True)


def test_the_rewound_branch_is_a_dead_end_the_user_took_back(db: Path) -> None:
    items = [json.loads(x) for x in invoke("deadends", "--json", "--session", _sid(db),
                                           "--db", str(db)).stdout.splitlines() if x]
    rewound = [d for d in items if d.get("via") == "rewound:rewound"]
    assert len(rewound) == 1, items
    d = rewound[0]
    assert d["status"] == "dead_end" and "pytest" in d["name"]
    assert "rewound the conversation to before message 1" in d["cause"]
    assert {e["ordinal"] for e in d["evidence"]} <= {1, 2, 3}
    # the work after the rewind is no part of it
    assert not any(e["ordinal"] > 3 for x in items for e in x["evidence"]
                   if x.get("via") == "rewound:rewound")


def _many_rewinds(tmp: Path, n: int) -> float:
    """CPU seconds of :meth:`KbStore.rewound` over ``n`` messages, then ``n`` rewinds to an
    id the file never wrote (each takes every message back)."""

    lines = [FIXTURE.read_text().splitlines()[0]]
    for i in range(n):
        lines.append(json.dumps({"id": f"u{i}", "timestamp": "2026-11-02T09:00:05.000Z",
                                 "type": "user", "content": [{"text": f"step {i}"}]}))
    lines += [json.dumps({"$rewindTo": f"nowhere-{i}"}) for i in range(n)]
    src = tmp / f"session-2026-11-02T09-00-{n}.jsonl"
    src.write_text("\n".join(lines) + "\n")
    db = _ingest(src, tmp)
    with KbStore(db, read_only=True) as store:
        sid = str(store.sessions()[0]["session_id"])
        best, got = best_cpu(lambda: store.rewound(sid))
    assert sorted(got) == list(range(1, n + 1)) and got[1]["to"] == "nowhere-0"
    return best


def test_rewound_costs_linear_time_in_the_rewinds(tmp_path: Path) -> None:
    """Each ordinal taken back is marked once: every rewind walked its whole range
    (n rewinds of n messages: n * n marks; 4,000 of each cost 16 million)."""
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    small = _many_rewinds(tmp_path / "a", 500)
    large = _many_rewinds(tmp_path / "b", 2000)
    assert large < 9 * max(small, 0.005), (small, large)


def test_the_briefs_title_is_not_a_rewound_prompt(db: Path, tmp_path: Path) -> None:
    """The session is named by its first prompt (Gemini CLI records no title); the one
    the user rewound away from names it in no brief: ingest stores the kept prompt as
    the title, and a store made before it did (titled by the rewound prompt) gets the
    goal asked after the rewind as the brief's title."""
    sid = _sid(db)
    d = json.loads(invoke("handoff", "--json", "--session", sid, "--db", str(db)).stdout)
    assert d["session"]["title"].startswith("Goal: find the five slowest tests")
    assert d["session"]["title_rewound"] is False
    old = tmp_path / "old.duckdb"
    shutil.copy(db, old)
    with KbStore(old) as store:
        store.conn.execute("UPDATE sessions SET title = ? WHERE session_id = ?", [
            "Goal: make the test suite faster by running it in parallel with "
            "pytest-xdist.", sid])
    d = json.loads(invoke("handoff", "--json", "--session", sid, "--db", str(old)).stdout)
    assert d["session"]["title_rewound"] is True
    for kb in (db, old):
        md = invoke("handoff", "--session", sid, "--db", str(kb)).stdout
        head = md.splitlines()[0]
        assert "find the five slowest tests" in head, head
        assert "pytest-xdist" not in head and "make the test suite faster" not in md.split(
            "## Status")[0]


def test_the_stored_title_is_not_a_rewound_prompt(db: Path) -> None:
    """Gemini CLI records no title: the session is named by its first prompt, unless the
    user rewound away from it; then by the first prompt the conversation kept.  Nothing
    is lost: the rewound prompt stays stored, word for word."""
    with KbStore(db, read_only=True) as store:
        sid = _sid(db)
        title = store.session(sid)["title"]
        assert title.startswith("Goal: find the five slowest tests"), title
        assert store.max_ordinal(sid) == 6
        (text,) = [e.text for e in store.events(sid, kinds=["prompt"], sources=["text"])
                   if e.ordinal == 1]
        assert "pytest-xdist" in (text or "")


def test_a_rewind_past_a_later_prompt_keeps_the_first_as_title(tmp_path: Path) -> None:
    head = FIXTURE.read_text().splitlines()[0]
    ts = "2026-11-02T09:00:05.000Z"

    def user(mid: str, text: str) -> str:
        return json.dumps({"id": mid, "timestamp": ts, "type": "user",
                           "content": [{"text": text}]})

    def reply(mid: str, text: str) -> str:
        return json.dumps({"id": mid, "timestamp": ts, "type": "gemini", "content": text,
                           "model": "gemini-3-flash-preview"})

    src = tmp_path / "session-2026-11-02T09-00-later.jsonl"
    src.write_text("\n".join([head, user("u1", "List the slow tests."), reply("g1", "ok"),
                              user("u2", "Now install pytest-xdist."), reply("g2", "ok"),
                              json.dumps({"$rewindTo": "u2"}),
                              user("u3", "Profile the database tests."),
                              reply("g3", "ok")]) + "\n")
    db = _ingest(src, tmp_path)
    with KbStore(db, read_only=True) as store:
        sid = _sid(db)
        assert sorted(store.rewound(sid)) == [3, 4]
        assert store.session(sid)["title"] == "List the slow tests."
    # every prompt taken back, none after: the title is still the first (nothing better)
    src.write_text("\n".join([head, user("u1", "List the slow tests."), reply("g1", "ok"),
                              json.dumps({"$rewindTo": "u1"})]) + "\n")
    (tmp_path / "all").mkdir()
    db = _ingest(src, tmp_path / "all")
    with KbStore(db, read_only=True) as store:
        assert store.session(_sid(db))["title"] == "List the slow tests."
