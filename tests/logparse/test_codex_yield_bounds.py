"""A yielded code cell (``Script running with cell ID N``) holds its message back while
its commands wait for their end, but only within its turn, and only for its own
commands' ends.

Built from the real Codex 0.171 recording ``fixtures/codex_record/recorded/
yielded_abort.jsonl``: L1-L21 is the first turn up to the cell that yields (``echo
server up; sleep 60``, L16/L18) and the agent's next words; L31-L44 is a whole second
turn (``task_started`` ... ``task_complete``) of one cell that completes (L35, its
``CommandExecution`` L37, its output L38)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from logparse import codex
from logparse._agentlines import iso_ms
from logparse.codex import CodexReader
from logparse.models import Problem

ROOT = Path(__file__).resolve().parents[2]
YIELDED_ABORT = ROOT / "fixtures" / "codex_record" / "recorded" / "yielded_abort.jsonl"
CALC = b"python3 -c 'from calc import add; print(add(2, 3))'"
SERVER = b"echo server up; sleep 60"


def _lines() -> list[bytes]:
    return YIELDED_ABORT.read_bytes().splitlines(keepends=True)


def _read(path: Path) -> tuple[CodexReader, list[Any]]:
    reader = CodexReader()
    problems: list[Problem] = []
    msgs = [m for s in reader.sessions(path, problems) for m in s.messages]
    return reader, msgs


def _bash(msgs: list[Any]) -> list[dict[str, Any]]:
    return [p for m in msgs for p in m.parts if p.get("tool") == "bash"]


def test_a_cell_never_waited_on_is_held_no_longer_than_its_turn(tmp_path: Path) -> None:
    # the server's cell yields and nothing ever ends it (no wait, no abort, no end: the
    # file goes on for turns).  Its message waits for the turn, not for the file: the
    # turns after it leave, so a reading holds (and a resume point keeps) little
    lines = _lines()
    turn = lines[30:44]
    body = lines[:21]
    for k in range(40):
        body += [x.replace(b"call_0003", b"call_9%03d" % k)
                 .replace(b"msg_0003", b"msg_9%03d" % k) for x in turn]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(body))
    reader, msgs = _read(path)
    assert reader.resume is not None
    assert len(reader.resume.state["q"]) <= 3, len(reader.resume.state["q"])
    assert not any(b'"open_calls"' in m.raw for m in msgs)
    server, *calcs = _bash(msgs)
    assert server["state"]["input"]["command"] == SERVER.decode()
    assert len(calcs) == 40
    assert all(c["state"]["status"] == "completed" for c in calcs)


def test_a_running_cell_keeps_its_own_end_of_the_same_command(tmp_path: Path) -> None:
    # in the same turn, a second cell runs the server's command line again and it ends
    # (its CommandExecution before the cell's output): that end is the second cell's,
    # never the first cell's run (which still runs)
    lines = _lines()
    again = [x.replace(CALC, SERVER) for x in (lines[34], lines[36], lines[37])]
    body = lines[:21] + again + lines[40:44]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(body))
    _, msgs = _read(path)
    server, second = _bash(msgs)
    assert second["state"]["input"]["command"] == SERVER.decode()
    assert second["state"]["status"] == "completed"
    assert second["state"]["metadata"]["exit"] == 0
    assert second["state"]["metadata"]["answeredBy"] == "exec_command_end"
    assert second["state"]["output"] == "5\n"
    # the server still runs (its cell's state), no exit, no end of its own
    meta = server["state"]["metadata"]
    assert meta["cellState"] == "running" and "exit" not in meta and "answeredBy" not in meta


def test_a_cell_never_waited_on_in_one_long_turn_is_let_go(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # ``codex exec`` runs one turn: the server's cell yields, then the same turn goes on
    # (cells that complete, L35-L41, again and again) and never ends it.  Past YIELD_HOLD
    # messages behind it the cell is let go, its command still running
    monkeypatch.setattr(codex, "YIELD_HOLD", 50)
    lines = _lines()
    body = lines[:21]
    for k in range(40):
        body += [x.replace(b"call_0003", b"call_9%03d" % k)
                 .replace(b"msg_0003", b"msg_9%03d" % k) for x in lines[34:41]]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(body))
    reader, msgs = _read(path)
    assert reader.resume is not None and len(reader.resume.state["q"]) <= 51
    assert not any(b'"open_calls"' in m.raw for m in msgs)
    server, *calcs = _bash(msgs)
    assert server["state"]["metadata"]["cellState"] == "running"
    assert len(calcs) == 40 and all(c["state"]["metadata"]["exit"] == 0 for c in calcs)


def test_a_yielded_cells_later_command_ends_while_another_cell_runs(tmp_path: Path) -> None:
    # a yielded cell still runs: its command may start after a later cell was called and
    # end while that cell runs (the CommandExecution, started after the second cell's
    # call, comes before that cell's output).  The second cell's code never names it:
    # the end is the yielded cell's command's
    lines = _lines()
    end = orjson.loads(lines[27])
    call = orjson.loads(lines[34])
    begun = iso_ms(call["timestamp"])
    assert isinstance(begun, int)
    end["payload"]["started_at_ms"] = begun + 10
    end["payload"]["item"].update(status="completed", exit_code=0,
                                  aggregated_output="server up\nserver done\n")
    body = lines[:21] + [lines[34], orjson.dumps(end) + b"\n", lines[36], lines[37]] \
        + lines[40:44]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(body))
    _, msgs = _read(path)
    server, calc = _bash(msgs)
    assert server["state"]["metadata"]["exit"] == 0
    assert server["state"]["output"] == "server up\nserver done\n"
    assert calc["state"]["metadata"]["exit"] == 0 and calc["state"]["output"] == "5\n"


CLASSIC = ROOT / "fixtures" / "codex_record" / "recorded" / "classic.jsonl"
"""L93 ``exec_command`` ``echo bench start; sleep 40; ...``, L96 its output ``Process
running with session ID 90360``; L29-L33 a call that completes (``call_0004``)."""


@pytest.mark.parametrize("hold", [50, None])
def test_a_run_never_polled_is_let_go_as_a_yielded_cell_is(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, hold: int | None) -> None:
    # a plain exec_command returns while its command runs, and nothing polls or ends it:
    # the turn goes on with calls that complete.  Past YIELD_HOLD messages behind it the
    # run leaves as its output left it (still running), never HOLD_LIMIT (20,000)
    if hold is not None:
        monkeypatch.setattr(codex, "YIELD_HOLD", hold)
    lines = CLASSIC.read_bytes().splitlines(keepends=True)
    body = lines[:96]
    loops = 40 if hold is not None else 600
    for k in range(loops):
        body += [x.replace(b"call_0004", b"call_9%03d" % k).replace(b"fc_0004", b"fc_9%03d" % k)
                 for x in lines[28:33]]
    path = tmp_path / "s.jsonl"
    path.write_bytes(b"".join(body))
    reader, msgs = _read(path)
    bound = codex.YIELD_HOLD
    assert reader.resume is not None and len(reader.resume.state["q"]) <= bound + 1
    assert not reader.resume.state["waiting"]
    assert not any(b'"open_calls"' in m.raw for m in msgs)
    runs = [p for p in _bash(msgs) if "sleep 40" in (p["state"]["input"]["command"] or "")]
    assert len(runs) == 1
    assert runs[0]["state"]["metadata"]["process"] == 90360
    assert "exit" not in runs[0]["state"]["metadata"]
    assert len(_bash(msgs)) == 7 + loops  # (the seven commands of L1-L96, the run last)
