"""``logkb watch`` keeps the knowledge base current while a transcript grows."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from tests.conftest import SELFTEST
from tests.live.conftest import LOGKB, logkb, session_lines

WAIT = 30.0
"""Bound on how long a new message may take to show up (it takes about a second)."""


def _wait_for(pred: Callable[[], bool], what: str) -> None:
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.3)
    raise AssertionError(f"not within {WAIT:g}s: {what}")


def _event_count(db: Path) -> int:
    if not db.exists():
        return 0
    p = logkb("events", "--json", "--db", str(db), check=False)
    return len(p.stdout.splitlines()) if p.returncode == 0 else 0


def _messages(db: Path) -> int:
    p = logkb("sessions", "--json", "--db", str(db), check=False)
    if p.returncode != 0 or not p.stdout.strip():
        return 0
    rows = json.loads(p.stdout) if p.stdout.lstrip().startswith("[") else [
        json.loads(x) for x in p.stdout.splitlines()]
    return sum(r["messages"] for r in rows)


@pytest.fixture
def watcher(tmp_path: Path) -> Iterator[Callable[..., subprocess.Popen[str]]]:
    procs: list[subprocess.Popen[str]] = []

    def start(*args: str) -> subprocess.Popen[str]:
        p = subprocess.Popen([*LOGKB, "watch", "--json", *args], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
        procs.append(p)
        return p

    yield start
    for p in procs:
        p.terminate()
        p.wait(10)


@pytest.mark.parametrize("mode", [[], ["--poll", "0.5"]], ids=["notify", "poll"])
def test_appended_messages_show_up_without_another_ingest(
        tmp_path: Path, watcher: Callable[..., subprocess.Popen[str]], mode: list[str]) -> None:
    lines = session_lines(SELFTEST / "export.json")
    src = tmp_path / "live"
    src.mkdir()
    db = tmp_path / "kb.duckdb"
    proc = watcher("--db", str(db), *mode, str(src))
    f = src / "session.jsonl"
    f.write_text("\n".join(lines[:4]) + "\n")
    _wait_for(lambda: _messages(db) == 4, "the first 4 messages")
    before = _event_count(db)
    with f.open("a") as fh:
        fh.write("\n".join(lines[4:]) + "\n")
    _wait_for(lambda: _messages(db) == len(lines), f"all {len(lines)} messages")
    assert _event_count(db) > before
    # the graph was derived as part of the watch's ingest
    dead = [json.loads(x) for x in logkb("deadends", "--json", "--db", str(db)).stdout.splitlines()]
    assert any("deepep" in d["name"].lower() for d in dead)
    proc.terminate()
    out, _ = proc.communicate(timeout=10)
    events = [json.loads(x) for x in out.splitlines()]
    assert events[0]["event"] == "watching"
    ingested = [e for e in events if e["event"] == "ingested"]
    assert sum(s["new_messages"] for e in ingested for s in e["sessions"]) == len(lines)


def test_a_store_that_does_not_exist_yet_is_waited_for(
        tmp_path: Path, watcher: Callable[..., subprocess.Popen[str]]) -> None:
    lines = session_lines(SELFTEST / "export.json")
    store = tmp_path / "later" / "opencode"
    db = tmp_path / "kb.duckdb"
    watcher("--db", str(db), str(store))
    time.sleep(1.0)
    store.mkdir(parents=True)
    (store / "s.jsonl").write_text("\n".join(lines) + "\n")
    _wait_for(lambda: _messages(db) == len(lines), "the session in the new directory")


def test_watch_for_stops_by_itself_and_reports_json(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "s.jsonl").write_text("\n".join(session_lines(SELFTEST / "export.json")) + "\n")
    t0 = time.monotonic()
    p = logkb("watch", "--json", "--for", "2", "--db", str(tmp_path / "kb.duckdb"), str(src))
    assert time.monotonic() - t0 < 30
    kinds = [json.loads(x)["event"] for x in p.stdout.splitlines()]
    assert kinds[:2] == ["watching", "ingested"]
    assert p.stderr == ""


def test_watch_leaves_the_knowledge_base_to_readers_between_ingests(
        tmp_path: Path, watcher: Callable[..., subprocess.Popen[str]]) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "s.jsonl").write_text("\n".join(session_lines(SELFTEST / "export.json")) + "\n")
    db = tmp_path / "kb.duckdb"
    watcher("--db", str(db), str(src))
    _wait_for(lambda: _messages(db) > 0, "the first ingest")
    # a writer (an annotation) gets the file while the watcher idles
    p = logkb("mark", "note", "2", "while watching", "--db", str(db), check=False)
    assert p.returncode == 0, p.stderr


def test_watch_stderr_fits_80_columns_and_skips_its_own_knowledge_base(
        tmp_path: Path) -> None:
    """What ``watch`` says on stderr is wrapped at ``$COLUMNS`` at word ends, continuation
    lines indented (rich cut "a regular / file" past 80 columns, a blank at the line
    end), and the knowledge base it writes, kept in the folder it watches, is no
    transcript it reports as "not taken" (nor its write-ahead log)."""
    import os

    src = tmp_path / "a-folder-with-a-rather-long-name-to-push-lines-past-eighty-cols"
    src.mkdir()
    (src / "s.jsonl").write_text("\n".join(session_lines(SELFTEST / "export.json")) + "\n")
    os.mkfifo(src / "pipe.jsonl")
    db = src / "kb.duckdb"
    p = logkb("watch", "--for", "2", "--db", str(db), str(src),
              env={**os.environ, "COLUMNS": "80"})
    lines = p.stderr.splitlines()
    assert any("FIFO" in ln for ln in lines), p.stderr
    assert all(len(ln) <= 80 and ln == ln.rstrip() for ln in lines), lines
    assert not any("kb.duckdb" in ln for ln in lines), lines
    fifo = next(i for i, ln in enumerate(lines) if "not taken" in ln)
    assert lines[fifo + 1].startswith("  "), lines  # one message, its rest indented
