"""A ``wait`` on a yielded code cell reads the cell's end: the ``exec_command`` answer the
script printed (``{"chunk_id", "wall_time_seconds", "exit_code", "original_token_count",
"output"}``).  Its wall time, exit code and token count are the harness's plumbing of the
command, whose own end (``CommandExecution``) reports them on the command: never readings
of the ``wait``.  What the command printed stays the wait's output, and what it measured
(``bench done: 12.5 ops/s``) a reading.

Real lines: ``fixtures/codex_record/recorded/yielded.jsonl`` (Codex 0.171): L22 the
``wait`` on cell 1, L25 its output; L45/L48 the second wait, on a command that exited 3."""

from __future__ import annotations

from pathlib import Path

import orjson

from kb.ingest import ingest
from kb.store import KbStore
from logparse.codex import parse_output

ROOT = Path(__file__).resolve().parents[2]
YIELDED = ROOT / "fixtures" / "codex_record" / "recorded" / "yielded.jsonl"


def _record(n: int) -> dict:
    return orjson.loads(YIELDED.read_bytes().splitlines()[n - 1])


def test_a_waits_output_is_what_the_command_printed() -> None:
    state = parse_output("wait", _record(25)["payload"]["output"])
    assert state["output"].strip() == "bench start\nbench done: 12.5 ops/s"
    meta = state["metadata"]
    assert meta["cellState"] == "completed"
    assert "exit" not in meta and not meta.get("reported")


def test_a_waits_wall_time_is_no_reading(tmp_path: Path) -> None:
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [YIELDED], graph=False)
        rows = store.conn.execute(
            "SELECT tool, status, exit_code, m.label, m.unit, m.value FROM calls, "
            "unnest(measurements) AS u(m) ORDER BY ordinal, m.label").fetchall()
    waits = [r[3:] for r in rows if r[0] == "wait"]
    # the work's reading, read through the wait; no clock, exit or count of the harness
    assert waits == [("bench done", "ops/s", 12.5)]
    # the commands keep their own wall time and exit from their own ends
    bash = [r for r in rows if r[0] == "bash"]
    assert ("wall time", "s", 3.937) in [r[3:] for r in bash]
    assert ("exit", "exit code", 3.0) in [r[3:] for r in bash]
