"""A Codex session whose calls all run inside code-mode cells gets the dead ends of the
same story told with plain calls.

Codex 0.14x wraps every tool call in an ``exec`` cell (JavaScript calling
``tools.exec_command(...)``); the command's exit code and output then live in its
``exec_command_end`` event, and the cell's own output says only whether the script
completed.  Older builds write a ``function_call`` and its ``function_call_output``
(``Process exited with code N``).  The dead-end engine must not care which: each story
below is trimmed real lines (``fixtures/structural/``: Trezo-Ai's cargo runs, the
escalated rerun the user stopped, soulpass's ``npm run dev`` rejected, scout's
``apply_patch`` rejected, ``update_plan`` steps dropped), and :func:`to_cells` writes the
same calls as cells the way ``fixtures/realworld_trim/codex_code_mode.jsonl`` shows them.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from kb.graph import store as gs
from kb.ingest import ingest
from kb.store import KbStore

STRUCTURAL = Path(__file__).resolve().parents[2] / "fixtures" / "structural"

_EXIT = re.compile(r"(?:^|\n)(?:Exit code: |Process exited with code )(-?\d+)")
_BODY = re.compile(r"(?:^|\n)Output:\n")
_CELL_TOOLS = {"exec_command", "shell", "update_plan", "apply_patch"}


def _body(output: str) -> str:
    m = _BODY.search(output)
    return output[m.end():] if m else output


def to_cells(lines: list[str]) -> list[str]:
    """The plain calls of ``lines`` as one-call code-mode cells: the call as
    ``tools.NAME(args)`` in an ``exec`` cell, its ``exec_command_end`` (moved, or made
    from the output's exit code) before the cell's output, and the cell's output as
    Codex writes it (``Script completed`` / ``Script failed`` with ``Script error:``)."""
    recs = [json.loads(ln) for ln in lines if ln.strip()]
    cells: set[str] = set()
    ends: dict[str, dict[str, Any]] = {}
    for r in recs:
        p = r.get("payload") or {}
        if r["type"] == "response_item" and p.get("type") in ("function_call",
                                                               "custom_tool_call") \
                and p.get("name") in _CELL_TOOLS:
            cells.add(p["call_id"])
        if r["type"] == "event_msg" and p.get("type") == "exec_command_end":
            ends[p["call_id"]] = r
    out: list[dict[str, Any]] = []
    for r in recs:
        p = r.get("payload") or {}
        cid = p.get("call_id")
        if cid not in cells:
            out.append(r)
            continue
        if r["type"] == "event_msg":
            continue  # moved in front of the cell's output
        if p.get("type") in ("function_call", "custom_tool_call"):
            arg = json.loads(p["arguments"]) if p.get("type") == "function_call" \
                else p["input"]
            code = f"const r = await tools.{p['name']}({json.dumps(arg)});\ntext(r.output);"
            out.append({**r, "payload": {"type": "custom_tool_call", "status": "completed",
                                         "call_id": cid, "name": "exec", "input": code}})
            continue
        text = p["output"] if isinstance(p["output"], str) else str(p["output"])
        end = ends.get(cid)
        m = _EXIT.search(text)
        if end is None and m:
            cmd = json.loads(next(x["payload"]["arguments"] for x in recs if (
                x.get("payload") or {}).get("call_id") == cid and x["payload"].get(
                    "type") == "function_call"))["cmd"]
            end = {"timestamp": r["timestamp"], "type": "event_msg", "payload": {
                "type": "exec_command_end", "call_id": cid, "command": ["/bin/zsh", "-lc", cmd],
                "aggregated_output": _body(text), "exit_code": int(m.group(1)),
                "status": "completed" if m.group(1) == "0" else "failed"}}
        if end is not None:
            out.append({**end, "payload": {**end["payload"], "call_id": f"exec_{cid}"}})
        if text.startswith("aborted"):
            cell = text  # the user stopped the cell: Codex says so as for a plain call
        elif end is not None and end["payload"].get("status") != "declined" or \
                p.get("type") == "function_call_output" and _BODY.search(text) or \
                text == "Plan updated":
            cell = f"Script completed\nWall time 0.1 seconds\nOutput:\n{_body(text)}"
        else:  # the tool refused (a rejected approval): the script threw
            cell = f"Script failed\nWall time 0.0 seconds\nOutput:\nScript error:\n{text}"
        out.append({**r, "payload": {"type": "custom_tool_call_output", "call_id": cid,
                                     "output": [{"type": "input_text", "text": cell}]}})
    return [json.dumps(x) for x in out]


def to_shell(lines: list[str], json_output: bool) -> list[str]:
    """The ``exec_command`` calls of ``lines`` as older builds wrote them: a ``shell``
    call with an argv (``["bash", "-lc", CMD]``; ``with_escalated_permissions`` where
    the call asked for ``sandbox_permissions``), answered once the command ended (no
    ``exec_command_end`` event, no poll) by ``{"output", "metadata": {"exit_code"}}``
    (``json_output``) or by ``Exit code: N`` / ``Wall time`` / ``Output:`` text."""
    recs = [json.loads(ln) for ln in lines if ln.strip()]
    ends = {r["payload"]["call_id"]: r["payload"] for r in recs
            if r["type"] == "event_msg" and r["payload"].get("type") == "exec_command_end"}
    shells: set[str] = set()
    out: list[dict[str, Any]] = []
    for r in recs:
        p = r.get("payload") or {}
        cid = p.get("call_id")
        if r["type"] == "response_item" and p.get("type") == "function_call" and \
                p.get("name") == "exec_command":
            a = json.loads(p["arguments"])
            args: dict[str, Any] = {"command": ["bash", "-lc", a["cmd"]],
                                    "workdir": a.get("workdir"), "timeout_ms": 120000}
            if a.get("sandbox_permissions") == "require_escalated":
                args.update(with_escalated_permissions=True,
                            justification=a.get("justification", ""))
            shells.add(cid)
            out.append({**r, "payload": {"type": "function_call", "name": "shell",
                                         "arguments": json.dumps(args), "call_id": cid}})
            continue
        if cid in shells and r["type"] == "event_msg":
            continue  # older builds kept no exec_command_end
        if cid in shells and p.get("type") == "function_call_output":
            text = p["output"]
            end = ends.get(cid)
            m = _EXIT.search(text)
            code = end.get("exit_code") if end is not None else (
                int(m.group(1)) if m else None)
            body = end.get("aggregated_output", "") if end is not None else _body(text)
            if code is not None and (end is None or end.get("status") != "declined"):
                text = json.dumps({"output": body, "metadata": {
                    "exit_code": code, "duration_seconds": 0.4}}) if json_output else \
                    f"Exit code: {code}\nWall time: 0.4 seconds\nOutput:\n{body}"
            out.append({**r, "payload": {**p, "output": text}})
            continue
        out.append(r)
    return [json.dumps(x) for x in out]


def _dead_ends(tmp: Path, name: str, lines: list[str]) -> list[tuple[Any, ...]]:
    src = tmp / f"{name}.jsonl"
    src.write_text("\n".join(lines) + "\n")
    with KbStore(tmp / f"{name}.duckdb") as store:
        ingest(store, [src])
        (sid,) = store.conn.execute("SELECT session_id FROM sessions").fetchone()
        got = gs.dead_ends(store, [sid])
    return sorted((d.get("via"), d.get("status"), d.get("name"), d.get("cause"),
                   tuple(sorted((e["ordinal"], e["role"]) for e in d.get("evidence") or [])))
                  for d in got)


def _runs(tmp: Path, name: str) -> list[tuple[Any, ...]]:
    """The shell runs that exited with a code: ordinal, status, exit code."""
    with KbStore(tmp / f"{name}.duckdb") as store:
        return store.conn.execute(
            "SELECT ordinal, status, exit_code FROM calls WHERE tool = 'bash' "
            "AND exit_code IS NOT NULL AND exit_code >= 0 ORDER BY ordinal").fetchall()


def _story(name: str, drop: tuple[str, ...] = ()) -> list[str]:
    """A fixture's lines without those holding any of ``drop`` (a ``write_stdin`` poll,
    an MCP call: shapes a one-call cell does not tell the same way)."""
    return [ln for ln in (STRUCTURAL / name).read_text().splitlines()
            if ln.strip() and not any(d in ln for d in drop)]


STORIES = (
    # a cargo run that failed, a sandboxed rerun without network, the rerun asked for
    # outside the sandbox that the user stopped (turn_aborted), then a new request
    ("escalated-then-stopped", "codex.jsonl", ("write_stdin", "call_cXY1uIHFM0gOQhz5THka3Zzw")),
    # a plan, its dev-server run rejected, the plan dropped, a patch rejected, a failed run
    ("rejected-and-dropped", "codex_approvals.jsonl", ("call_mcp1",)),
)


@pytest.mark.parametrize("story", STORIES, ids=[s[0] for s in STORIES])
def test_cells_get_the_dead_ends_of_plain_calls(story: tuple[str, str, tuple[str, ...]],
                                                tmp_path: Path) -> None:
    _, fixture, drop = story
    plain = _story(fixture, drop)
    cells = to_cells(plain)
    assert sum('"name": "exec"' in ln for ln in cells) >= 3  # the calls are cells now
    assert not any('"type": "function_call"' in ln and '"exec_command"' in ln
                   for ln in cells)
    want = _dead_ends(tmp_path, "plain", plain)
    assert want, "the plain story holds dead ends"
    assert _dead_ends(tmp_path, "cells", cells) == want


@pytest.mark.parametrize("json_output", [True, False], ids=["metadata-json", "exit-code-text"])
@pytest.mark.parametrize("story", STORIES, ids=[s[0] for s in STORIES])
def test_older_shell_calls_get_the_dead_ends_of_exec_command(
        story: tuple[str, str, tuple[str, ...]], json_output: bool, tmp_path: Path) -> None:
    """The same stories as the ``shell`` calls of older builds: their exit code is in the
    call's output, not in an event."""
    _, fixture, drop = story
    plain = _story(fixture, drop)
    older = to_shell(plain, json_output)
    assert not any('"exec_command_end"' in ln for ln in older if '"shell"' in ln)
    assert sum('"name": "shell"' in ln for ln in older) >= 2
    want = _dead_ends(tmp_path, "plain", plain)
    assert _dead_ends(tmp_path, "older", older) == want
    # a run that printed "error: …" and exited 101 is a command that failed, whichever
    # way its exit code came (not a tool that failed in one shape only)
    assert _runs(tmp_path, "older") == _runs(tmp_path, "plain")
