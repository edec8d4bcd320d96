"""Generate a large Claude Code transcript or Codex rollout for the agents benchmark.

    python bench/gen_agents.py --lines 100000 --agent claude-code bench/data/claude-100k.jsonl
    python bench/gen_agents.py --lines 100000 --agent codex       bench/data/codex-100k.jsonl

The work is the same as the opencode benchmark's (``bench/gen_session.py``: the Blackwell
campaign's filler routine), written the way each agent writes it:

* Claude Code: one ``user`` line per prompt, one ``assistant`` line per content block (text,
  thinking, tool_use) sharing the response's ``message.id``, one ``user`` line per
  ``tool_result`` with its ``toolUseResult``, ``uuid``/``parentUuid`` chained;
* Codex (0.12x): ``session_meta``, a ``turn_context`` per turn, ``response_item`` messages,
  ``reasoning``, ``function_call`` ``exec_command`` / ``function_call_output`` with the
  ``Chunk ID / Wall time / Process exited with code`` header, ``apply_patch`` custom calls,
  ``update_plan``, and the ``event_msg`` lines (``user_message``, ``agent_message``,
  ``token_count``) that repeat them.

Deterministic for a given ``--seed``; lines are written as they are made.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

from gen_session import generate  # noqa: E402

_TOOLS = {"bash": "Bash", "read": "Read", "edit": "Edit", "write": "Write", "grep": "Grep",
          "glob": "Glob", "todowrite": "TodoWrite", "task": "Task", "webfetch": "WebFetch"}
_KEYS = {"filePath": "file_path", "oldString": "old_string", "newString": "new_string"}


def iso(ms: int | None) -> str:
    return datetime.fromtimestamp((ms or 0) / 1000, UTC).strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"


def _tools(parts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [p for p in parts if p.get("type") == "tool"]


def claude_lines(messages: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    sid = "5e551011-bec4-4b1d-9a3e-0b7c2d3e4f50"
    base = {"isSidechain": False, "userType": "external", "cwd": "/home/dev/eagle3-blackwell",
            "sessionId": sid, "version": "2.1.14", "gitBranch": "main"}
    prev: str | None = None
    n = 0

    def line(kind: str, message: dict[str, Any], ts: int | None, **extra: Any) -> dict[str, Any]:
        nonlocal prev, n
        n += 1
        uuid = f"{n:08x}-0000-4000-8000-{n:012x}"
        rec = {"parentUuid": prev, **base, "type": kind, "message": message, "uuid": uuid,
               "timestamp": iso(ts), **extra}
        prev = uuid
        return rec

    yield {"type": "queue-operation", "operation": "dequeue", "timestamp": iso(0),
           "sessionId": sid}
    for m in messages:
        info, parts = m["info"], m["parts"]
        created = info.get("time", {}).get("created")
        if info.get("role") == "user":
            text = "\n".join(p.get("text", "") for p in parts if p.get("type") == "text")
            yield line("user", {"role": "user", "content": text}, created)
            continue
        mid = "msg_" + info["id"][4:]
        for p in parts:
            typ = p.get("type")
            if typ == "text":
                block: dict[str, Any] = {"type": "text", "text": p.get("text", "")}
            elif typ == "reasoning":
                block = {"type": "thinking", "thinking": p.get("text", ""), "signature": "x"}
            elif typ == "tool":
                inp = {_KEYS.get(k, k): v for k, v in p["state"].get("input", {}).items()}
                block = {"type": "tool_use", "id": p["callID"],
                         "name": _TOOLS.get(p["tool"], p["tool"]), "input": inp}
            else:
                continue
            yield line("assistant", {"model": "claude-opus-4-5-20251101", "id": mid,
                                     "type": "message", "role": "assistant",
                                     "content": [block], "stop_reason": None,
                                     "usage": {"input_tokens": 3, "output_tokens": 120}},
                       created, requestId="req_" + info["id"][4:])
        for p in _tools(parts):
            st = p["state"]
            out = st.get("output") or st.get("error") or ""
            code = (st.get("metadata") or {}).get("exit")
            err = st.get("status") == "error" or (isinstance(code, int) and code != 0)
            if err and isinstance(code, int):
                out = f"Exit code {code}\n{out}"
            yield line("user", {"role": "user", "content": [
                {"tool_use_id": p["callID"], "type": "tool_result", "content": out,
                 "is_error": err}]}, (st.get("time") or {}).get("end"),
                toolUseResult={"stdout": out, "stderr": "", "interrupted": False,
                               "isImage": False})


def codex_lines(messages: Iterator[dict[str, Any]]) -> Iterator[dict[str, Any]]:
    sid = "019b0000-0000-7000-8000-00000000be7c"
    cwd = "/home/dev/eagle3-blackwell"
    yield {"timestamp": iso(0), "type": "session_meta",
           "payload": {"id": sid, "timestamp": iso(0), "cwd": cwd, "originator": "codex-tui",
                       "cli_version": "0.122.0", "source": "cli", "model_provider": "openai"}}

    def rec(ts: int | None, typ: str, payload: dict[str, Any]) -> dict[str, Any]:
        return {"timestamp": iso(ts), "type": typ, "payload": payload}

    for m in messages:
        info, parts = m["info"], m["parts"]
        t = info.get("time", {}).get("created")
        if info.get("role") == "user":
            text = "\n".join(p.get("text", "") for p in parts if p.get("type") == "text")
            yield rec(t, "turn_context", {"cwd": cwd, "approval_policy": "on-request",
                                          "model": "gpt-5.4", "summary": "auto"})
            yield rec(t, "response_item", {"type": "message", "role": "user",
                                           "content": [{"type": "input_text", "text": text}]})
            yield rec(t, "event_msg", {"type": "user_message", "message": text, "images": []})
            continue
        for p in parts:
            typ = p.get("type")
            if typ == "reasoning":
                yield rec(t, "response_item", {"type": "reasoning", "summary": [
                    {"type": "summary_text", "text": p.get("text", "")}], "content": None,
                    "encrypted_content": "gAAAA"})
            elif typ == "text":
                text = p.get("text", "")
                yield rec(t, "response_item", {"type": "message", "role": "assistant",
                                               "content": [{"type": "output_text",
                                                            "text": text}]})
                yield rec(t, "event_msg", {"type": "agent_message", "message": text})
            elif typ == "tool":
                yield from _codex_call(p, rec)
        yield rec(t, "event_msg", {"type": "token_count", "info": {
            "last_token_usage": {"input_tokens": 14000, "output_tokens": 120}}})


def _codex_call(p: dict[str, Any], rec: Any) -> Iterator[dict[str, Any]]:
    st = p["state"]
    inp = st.get("input") or {}
    tm = st.get("time") or {}
    start, end = tm.get("start"), tm.get("end")
    cid = "call_" + p["callID"][-24:]
    out = st.get("output") or st.get("error") or ""
    if p["tool"] in ("edit", "write"):
        path = inp.get("filePath", "file")
        patch = f"*** Begin Patch\n*** Update File: {path}\n@@\n-{inp.get('oldString', '')}\n" \
                f"+{inp.get('newString', inp.get('content', ''))}\n*** End Patch"
        yield rec(start, "response_item", {"type": "custom_tool_call", "status": "completed",
                                           "call_id": cid, "name": "apply_patch",
                                           "input": patch})
        yield rec(end, "response_item", {"type": "custom_tool_call_output", "call_id": cid,
                                          "output": orjson.dumps({"output": out, "metadata": {
                                              "exit_code": 0, "duration_seconds": 0.1}}).decode()})
        return
    if p["tool"] == "todowrite":
        plan = [{"step": t.get("content", ""), "status": t.get("status", "pending")}
                for t in inp.get("todos", [])]
        yield rec(start, "response_item", {"type": "function_call", "name": "update_plan",
                                           "arguments": orjson.dumps({"plan": plan}).decode(),
                                           "call_id": cid})
        yield rec(end, "response_item", {"type": "function_call_output", "call_id": cid,
                                          "output": "Plan updated"})
        return
    cmd = inp.get("command") if p["tool"] == "bash" else (
        f"sed -n '1,200p' {inp.get('filePath')}" if p["tool"] == "read"
        else f"rg -n {inp.get('pattern', 'x')!r}")
    code = (st.get("metadata") or {}).get("exit")
    code = code if isinstance(code, int) else (1 if st.get("status") == "error" else 0)
    wall = ((end or 0) - (start or 0)) / 1000
    yield rec(start, "response_item", {"type": "function_call", "name": "exec_command",
                                       "arguments": orjson.dumps({
                                           "cmd": cmd, "workdir": "/home/dev/eagle3-blackwell",
                                           "yield_time_ms": 1000}).decode(), "call_id": cid})
    yield rec(end, "event_msg", {"type": "exec_command_end", "call_id": cid, "exit_code": code,
                                 "aggregated_output": out[:200]})
    yield rec(end, "response_item", {"type": "function_call_output", "call_id": cid, "output":
                                     f"Chunk ID: {cid[-6:]}\nWall time: {wall:.4f} seconds\n"
                                     f"Process exited with code {code}\nOriginal token count: "
                                     f"{len(out) // 4}\nOutput:\n{out}"})


def write(agent: str, lines: int, seed: int, out: Path) -> int:
    """Write about ``lines`` lines (the last turn is finished); the count written."""
    _builder, stream = generate(10 ** 7, seed)
    conv = claude_lines if agent == "claude-code" else codex_lines
    n = 0
    with out.open("wb") as fh:
        for rec in conv(stream):
            fh.write(orjson.dumps(rec) + b"\n")
            n += 1
            if n >= lines:
                break
    return n


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lines", type=int, required=True)
    ap.add_argument("--agent", choices=("claude-code", "codex"), required=True)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("out", type=Path)
    a = ap.parse_args(argv)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    t = time.perf_counter()
    n = write(a.agent, a.lines, a.seed, a.out)
    print(f"{a.out}: {n} lines, {a.out.stat().st_size / 1e6:.1f} MB in "
          f"{time.perf_counter() - t:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
