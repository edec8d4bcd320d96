"""An older copy of an Antigravity trajectory (exported while a command still ran, or
before the trajectory went on) changes nothing stored: not a call's result, not its exit
code, not a message; with or without ``--force``, in any order.

A trajectory's steps carry ``created_at`` (and a tool step's content its ``Completed
At:``), not a ``timestamp``: :meth:`AntigravityReader.ends_at` reads them from the
file's tail.  The steps are the trimmed real ones of
``fixtures/realworld_trim/antigravity.jsonl`` followed by a synthetic planner response
and the ``RUN_COMMAND`` step of its call, built as the reader reads them (no held-out
line is read)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kb.ingest import ingest
from kb.store import KbStore
from logparse.antigravity import AntigravityReader

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim" / "antigravity.jsonl"
STEPS: list[dict[str, Any]] = [json.loads(x) for x in TRIM.read_text("utf-8").splitlines()]


def _planner(i: int, at: str, cmd: str) -> dict[str, Any]:
    return {"step_index": i, "source": "MODEL", "type": "PLANNER_RESPONSE", "status": "DONE",
            "created_at": at, "content": f"I will run `{cmd}` to check the build.",
            "tool_calls": [{"name": "run_command", "args": {
                "CommandLine": json.dumps(cmd), "Cwd": json.dumps("d:\\smoothop\\Xeus")}}]}


def _ran(i: int, at: str, done: str | None, code: int = 1) -> dict[str, Any]:
    if done is None:  # exported while the command ran (moved to the background)
        return {"step_index": i, "source": "MODEL", "type": "RUN_COMMAND", "status": "RUNNING",
                "created_at": at, "content": f"Created At: {at}\nTool is running as a "
                "background command (task id: placeholder)."}
    return {"step_index": i, "source": "MODEL", "type": "RUN_COMMAND", "status": "DONE",
            "created_at": at, "content": f"Created At: {at}\nCompleted At: {done}\nThe "
            f"command failed with exit code: {code}.\nOutput:\nerror TS2307: Cannot find "
            "module 'next'\n"}


CMD = "npm run build"
PLAN = _planner(500, "2026-06-18T23:20:00Z", CMD)
DONE = _ran(501, "2026-06-18T23:20:02Z", "2026-06-18T23:21:40Z")
RUNNING = _ran(501, "2026-06-18T23:20:02Z", None)
LATER = [_planner(502, "2026-06-18T23:22:00Z", "npm install next"),
         _ran(503, "2026-06-18T23:22:01Z", "2026-06-18T23:22:30Z", 0)]


def _write(path: Path, steps: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(s) + "\n" for s in steps), encoding="utf-8")
    return path


def _state(store: KbStore) -> dict[str, Any]:
    con = store.conn
    return {
        "messages": con.execute("SELECT session_id, message_id, ordinal, raw::VARCHAR "
                                "FROM messages ORDER BY ALL").fetchall(),
        "calls": con.execute("SELECT session_id, call_id, status, exit_code, output "
                             "FROM calls ORDER BY ALL").fetchall(),
        "title": con.execute("SELECT session_id, title FROM sessions ORDER BY 1").fetchall(),
    }


def test_ends_at_reads_created_and_completed_times(tmp_path: Path) -> None:
    from logparse._agentlines import iso_ms

    newer = _write(tmp_path / "n.jsonl", [*STEPS, PLAN, DONE])
    older = _write(tmp_path / "o.jsonl", [*STEPS, PLAN, RUNNING])
    assert AntigravityReader.ends_at(newer, "x") == iso_ms("2026-06-18T23:21:40Z")
    assert AntigravityReader.ends_at(older, "x") == iso_ms("2026-06-18T23:20:02Z")


@pytest.mark.parametrize("force", [False, True], ids=["plain", "force"])
@pytest.mark.parametrize("went_on", [False, True], ids=["same-last-step", "went-on"])
def test_an_older_copy_keeps_the_finished_command(
        tmp_path: Path, went_on: bool, force: bool) -> None:
    newer = _write(tmp_path / "newer.jsonl", [*STEPS, PLAN, DONE, *(LATER if went_on else [])])
    older = _write(tmp_path / "older.jsonl", [*STEPS, PLAN, RUNNING])
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [newer], graph=False)
        before = _state(store)
        (ran,) = [c for c in before["calls"] if c[4] and "TS2307" in c[4] and c[3] != 0]
        assert ran[2:4] == ("completed", 1)
        rep = ingest(store, [older], graph=False, force=force)
        assert _state(store) == before, "an older copy changed a finished command"
        (s,) = rep.sessions
        assert s.updated_messages == 0 and s.new_messages == 0


def test_the_newer_copy_after_the_older_takes_the_result(tmp_path: Path) -> None:
    newer = _write(tmp_path / "newer.jsonl", [*STEPS, PLAN, DONE])
    older = _write(tmp_path / "older.jsonl", [*STEPS, PLAN, RUNNING])
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [older], graph=False)
        ingest(store, [newer], graph=False)
        after = _state(store)
    with KbStore(tmp_path / "alone.duckdb") as store:
        ingest(store, [newer], graph=False)
        alone = _state(store)
    assert [c[1:] for c in after["calls"]] == [c[1:] for c in alone["calls"]]
    assert len(after["messages"]) == len(alone["messages"])
