"""pi coding-agent sessions (format 3): ``~/.pi/agent/sessions/--<cwd>--/<time>_<id>.jsonl``.

The first line is the header ``{"type": "session", "version": 3, "id", "timestamp",
"cwd"}``; then entries linked by ``id``/``parentId`` (a tree: a session branched with
``/tree`` keeps every branch in the file; they are read in file order):
``model_change`` (``provider``, ``modelId``), ``thinking_level_change``, ``message``
(``message.role`` ``user``, ``assistant``, ``toolResult``, ``bashExecution``,
``custom``, ``branchSummary``, ``compactionSummary``), ``compaction`` (``summary``),
``branch_summary``, ``custom``, ``custom_message``, ``label``, ``session_info``.

An assistant message carries ``content`` blocks ``text``, ``thinking`` and ``toolCall``
(``id``, ``name``, ``arguments``), its ``usage`` (``input``, ``output``, ``cacheRead``,
``cacheWrite``, ``cost.total``), ``stopReason`` (``stop``, ``length``, ``toolUse``,
``error``, ``aborted``) and ``errorMessage``.  A ``toolResult`` answers one call
(``toolCallId``) with ``content``, ``isError`` and ``details`` (the bash tool's
truncation, the full output's path).

**Ordinals**: 1-based over the ``user`` and ``assistant`` messages (and the other
message roles and summaries: what pi or an extension sent the model is a ``system``
message whose text is context; a command the user ran, ``bashExecution``, is the user's
message whose part is that ``bash`` call, with its output and exit code),
in file order.  A ``toolResult`` has none: it joins the call it answers, so a call and
its result share the calling message's ordinal, as in Claude Code.  Entries without a message
(``model_change``, ``thinking_level_change``, ``label``...) join the raw record of the
next message.

The bash tool's exit code is its own last line (``Command exited with code N``); a bash
result without ``isError`` exited 0.  Record types the reader does not know are kept raw
and counted (``skipped``).  Messages leave as soon as no call of theirs waits
(:mod:`logparse._steplines`); a grown file is read again (no resume point).
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from logparse._agentlines import (
    Draft,
    LastLine,
    iso_ms,
    json_object,
    latest_time,
    tail_records,
)
from logparse._steplines import (
    Drafts,
    records,
    renamed,
    session_name,
    text_parts,
    tool_part,
)
from logparse.models import Problem
from logparse.opencode._lines import head_records, json_head
from logparse.source import SourceSession, TranscriptReader

TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    "bash": ("bash", {"cwd": "workdir"}),
    "read": ("read", {"path": "filePath", "file_path": "filePath"}),
    "edit": ("edit", {"path": "filePath", "file_path": "filePath", "oldText": "oldString",
                      "newText": "newString"}),
    "write": ("write", {"path": "filePath", "file_path": "filePath"}),
    "grep": ("grep", {}),
    "find": ("glob", {}),
    "ls": ("list", {}),
}
"""pi's built-in tools (``bash``, ``read``, ``edit``, ``write`` in ``civ6.ch__session.jsonl``;
``grep``, ``find``, ``ls``) mapped onto opencode's; others keep their name."""

_EXIT = re.compile(r"(?:^|\n)Command exited with code (-?\d+)\s*$")
_ABORTED = re.compile(r"(?:^|\n)Command aborted\s*$")
_SILENT = frozenset({"model_change", "thinking_level_change", "label", "session_info",
                     "custom"})
"""Entries without anything to show: their lines join the next message's raw record."""
_FINISH = {"stop": "stop", "length": "length", "toolUse": "tool-calls"}


def is_header(obj: Any) -> bool:
    return (isinstance(obj, dict) and obj.get("type") == "session"
            and isinstance(obj.get("version"), int) and "id" in obj
            and "sessionId" not in obj)


_ENTRY_TYPES = _SILENT | {"session", "message", "compaction", "branch_summary",
                          "custom_message"}


def is_entry(obj: Any) -> bool:
    """A pi session entry after the header (``{type, id, parentId, timestamp, ...}``): what
    a session whose header line is lost still holds."""
    return (isinstance(obj, dict) and isinstance(obj.get("type"), str)
            and isinstance(obj.get("id"), str) and "parentId" in obj
            and isinstance(obj.get("timestamp"), str)
            and not any(k in obj for k in ("uuid", "parentUuid", "sessionId", "payload")))


def looks_like_session(objs: list[dict[str, Any]]) -> bool:
    """The first records of a file are a pi session's: its header among them, or (the
    header line lost or damaged) two or more pi entries, one of a type pi writes among
    them, and at most one other record."""
    if any(is_header(o) for o in objs):
        return True
    ours = [o for o in objs if is_entry(o)]
    return len(ours) >= 2 and len(objs) - len(ours) <= 1 and any(
        o["type"] in _ENTRY_TYPES for o in ours)


_FILE_ID = re.compile(r"_([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\Z")
"""The session id at the end of a session file's name (``<time>_<id>.jsonl``)."""


def file_session_id(path: Path) -> str:
    """The session id a file's name holds, else its name (for a file whose header is
    lost)."""
    m = _FILE_ID.search(path.stem)
    return m.group(1) if m else path.stem


def bash_result(text: str, is_error: bool) -> tuple[int | None, bool]:
    """``(exit code, aborted)`` of a bash result: its ``Command exited with code N`` line;
    0 when the tool did not call it an error."""
    m = _EXIT.search(text[-400:])
    if m:
        return int(m.group(1)), False
    if _ABORTED.search(text[-200:]):
        return None, True
    return (None if is_error else 0), False


class PiReader(TranscriptReader):
    form = "pi"
    agent = "pi"
    description = "pi coding-agent session JSONL (~/.pi/agent/sessions)"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        return looks_like_session(list(json_head(path, head, 5)))

    @classmethod
    def ends_at(cls, path: Path, session_id: str) -> int | None:
        return cls.records_end(tail_records(path), session_id)  # one session a file

    @classmethod
    def records_end(cls, records: Sequence[Any], session_id: str) -> int | None:
        return latest_time(records)

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        self.skipped = {}
        header = next((o for o in head_records(path, 5) if is_header(o)), None)
        sid = session_name(header["id"], file_session_id(path), problems, path, "pi session"
                           ) if header else file_session_id(path)
        if session_ids is not None and sid not in session_ids:
            return
        info: dict[str, Any] = {"id": sid}
        if header:
            info.update(directory=header.get("cwd") if isinstance(header.get("cwd"), str)
                        else None, version=f"session format {header.get('version')}",
                        time={"created": iso_ms(header.get("timestamp"))})
        yield SourceSession(session_id=sid, form=self.form, path=str(path),
                            messages=_Session(self, path, problems, sid, header).messages(),
                            info=info, agent=self.agent)


class _Session:
    def __init__(self, owner: PiReader, path: Path, problems: list[Problem], sid: str,
                 header: dict[str, Any] | None) -> None:
        self.owner = owner
        self.path = path
        self.d = Drafts(sid, path, problems, "pi session", gone=self._gone)
        if header and isinstance(header.get("cwd"), str):
            self.d.cwd = header["cwd"]
        self.calls: dict[str, tuple[Draft, dict[str, Any]]] = {}
        self.last = LastLine()
        """The entry read last: the same entry written twice in a row is read once (its
        line holds its id: the same line is the same entry)."""

    def messages(self) -> Iterator[Any]:
        return self.d.read(records(self.path, self.d.problems, "pi session"), self._record)

    def _gone(self, d: Draft) -> None:
        """A message left while a call of it still waited (held too long): a later result
        of that call is one without its call."""
        if d.open > 0:
            for cid in [c for c, (dd, _) in self.calls.items() if dd is d]:
                del self.calls[cid]

    def _skip(self, key: str) -> None:
        self.owner.skipped[key] = self.owner.skipped.get(key, 0) + 1

    def _record(self, n: int, body: bytes, obj: dict[str, Any]) -> None:
        typ = obj.get("type")
        ts = iso_ms(obj.get("timestamp"))
        eid = obj.get("id")
        if isinstance(eid, str) and typ != "session":
            if self.last.repeats(body):  # the same entry written twice in a row (a
                self.d.extra(n, body)  # copy, a sync): the first stands, kept raw
                return
        if typ == "session":
            self.d.extra(n, body)
        elif typ == "model_change":
            if isinstance(obj.get("modelId"), str):
                self.d.model = obj["modelId"]
            self.d.extra(n, body)
        elif typ in _SILENT:
            self.d.extra(n, body)
        elif typ == "message":
            self._message(n, body, json_object(obj.get("message")), ts)
        elif typ in ("compaction", "branch_summary"):
            # pi's summary of what it compacted or of a branch left: the harness's
            d = self.d.new(n, body, "system", ts)
            if typ == "compaction":
                d.parts.append({"type": "compaction", "id": f"L{n}.c", "auto": True})
            summary = obj.get("summary")
            if isinstance(summary, str) and summary:
                d.parts.append(_context(f"L{n}", summary, typ, ts))
        elif typ == "custom_message":  # an extension's message to the model
            d = self.d.new(n, body, "system", ts)
            for i, text in enumerate(text_parts(obj.get("content"))):
                d.parts.append(_context(f"L{n}.{i}", text, typ, ts))
        else:  # kept raw (in the next message's record) and counted
            self._skip(typ if isinstance(typ, str) else f"<{type(typ).__name__}>")
            self.d.extra(n, body)

    def _message(self, n: int, body: bytes, m: dict[str, Any], ts: int | None) -> None:
        role = m.get("role")
        if role == "toolResult":
            self._result(n, body, m, ts)
        elif role == "assistant":
            self._assistant(n, body, m, ts)
        elif role == "user":
            d = self.d.new(n, body, "user", ts)
            self._content(d, n, m.get("content"), ts, synthetic=False)
        elif role in ("custom", "branchSummary", "compactionSummary"):
            # an extension's message, a summary: sent to the model, not said by the user
            d = self.d.new(n, body, "system", ts)
            if role == "compactionSummary":
                d.parts.append({"type": "compaction", "id": f"L{n}.c", "auto": True})
            text = m.get("summary") if isinstance(m.get("summary"), str) else None
            if text:
                d.parts.append(_context(f"L{n}", text, f"message/{role}", ts))
            self._content(d, n, m.get("content"), ts, synthetic=True,
                          source=f"message/{role}")
        elif role == "bashExecution":
            # the user ran a command (``!cmd``; ``!!cmd`` kept out of the model's context):
            # the user's message, its one part the command with its output and exit code
            d = self.d.new(n, body, "user", ts)
            d.parts.append(user_command(f"L{n}", m, ts))
        else:
            self._skip(f"message/{role}" if isinstance(role, str) else "message/<no role>")
            self.d.extra(n, body)

    def _content(self, d: Draft, n: int, content: Any, ts: int | None, synthetic: bool,
                 source: str | None = None) -> None:
        """The blocks of a user-side message; a system message's (``source``: what sent
        it) texts are context."""
        items = content if isinstance(content, list) else [{"type": "text", "text": content}] \
            if isinstance(content, str) else []
        for i, c in enumerate(items):
            pid = f"L{n}.{i}"
            if not isinstance(c, dict):
                d.parts.append({"type": "pi:block", "id": pid, "value": c})
            elif c.get("type") == "text" and source is not None:
                d.parts.append(_context(pid, str(c.get("text", "")), source, ts))
            elif c.get("type") == "text":
                part: dict[str, Any] = {"type": "text", "id": pid, "text": str(c.get("text", "")),
                                        "time": {"start": ts}}
                if synthetic:
                    part["synthetic"] = True
                d.parts.append(part)
            elif c.get("type") == "image":
                d.parts.append({"type": "file", "id": pid,
                                "mime": str(c.get("mimeType") or "image"), "filename": "image"})
            else:
                d.parts.append({"type": f"pi:block/{c.get('type')}", "id": pid, "block": c})

    def _assistant(self, n: int, body: bytes, m: dict[str, Any], ts: int | None) -> None:
        if isinstance(m.get("model"), str):
            self.d.model = m["model"]
        d = self.d.new(n, body, "assistant", ts)
        if isinstance(m.get("provider"), str):
            d.info["providerID"] = m["provider"]
        u = m.get("usage")
        if isinstance(u, dict):
            d.info["tokens"] = usage(u)
            cost = json_object(u.get("cost")).get("total")
            if isinstance(cost, (int, float)) and not isinstance(cost, bool):
                d.info["cost"] = float(cost)
        stop = m.get("stopReason")
        if isinstance(stop, str):
            d.info["finish"] = _FINISH.get(stop, stop)
        err = m.get("errorMessage") if isinstance(m.get("errorMessage"), str) else None
        if stop == "aborted":
            d.info["error"] = {"name": "MessageAbortedError",
                               "data": {"message": err or "aborted"}}
        elif stop == "error" or err:
            d.info["error"] = {"name": "APIError", "data": {"message": err or "error"}}
        for i, c in enumerate(m.get("content") or []):
            pid = f"L{n}.{i}"
            if not isinstance(c, dict):
                d.parts.append({"type": "pi:block", "id": pid, "value": c})
                continue
            ct = c.get("type")
            if ct == "text":
                d.parts.append({"type": "text", "id": pid, "text": str(c.get("text", "")),
                                "time": {"start": ts}})
            elif ct == "thinking":
                d.parts.append({"type": "reasoning", "id": pid,
                                "text": str(c.get("thinking", "")), "time": {"start": ts}})
            elif ct == "toolCall":
                name = str(c.get("name") or "unknown")
                tool, keys = TOOLS.get(name, (name, {}))
                inp = renamed(c.get("arguments"), keys)
                if name != tool:
                    inp["piTool"] = name
                cid = str(c.get("id") or pid)
                part = tool_part(cid, tool, inp, ts)
                d.parts.append(part)
                d.open += 1
                self.calls[cid] = (d, part)
            else:
                d.parts.append({"type": f"pi:block/{ct}", "id": pid, "block": c})

    def _result(self, n: int, body: bytes, m: dict[str, Any], ts: int | None) -> None:
        cid = m.get("toolCallId")
        found = self.calls.pop(cid, None) if isinstance(cid, str) else None
        if found is None:  # a result without its call: a message of its own, kept
            d = self.d.new(n, body, "assistant", ts)
            name = str(m.get("toolName") or "unknown")
            tool, _ = TOOLS.get(name, (name, {}))
            part = tool_part(str(cid or f"L{n}"), tool, {}, ts)
            part["state"]["metadata"]["callNotFound"] = True
            d.parts.append(part)
        else:
            d, part = found
            d.open -= 1
            d.add_line(n, body)
        state = part["state"]
        meta = state["metadata"]
        state["time"]["end"] = ts
        text = "\n".join(text_parts(m.get("content")))
        is_error = m.get("isError") is True
        details = m.get("details")
        if isinstance(details, dict) and details:
            meta["details"] = details
        if part["tool"] == "bash":
            code, aborted = bash_result(text, is_error)
            if aborted:
                state.update(status="error", error=f"aborted: {text}")
                return
            if code is not None:
                meta["exit"] = code
                state.update(status="completed", output=text)
                tail = _EXIT.search(text, max(0, len(text) - 400))
                if tail:  # the command's own output ends before the tool's exit line
                    meta["body"] = [0, tail.start()]
                return
        if is_error:
            state.update(status="error", error=text or "error")
        else:
            state.update(status="completed", output=text)


def user_command(pid: str, m: dict[str, Any], ts: int | None) -> dict[str, Any]:
    """A ``bashExecution`` message (pi's ``BashExecutionMessage``: ``command``, ``output``,
    ``exitCode``, ``cancelled``, ``truncated``, ``fullOutputPath``) as a ``bash`` call the
    user ran: completed with its output and exit code, or aborted when cancelled."""
    cmd = m.get("command") if isinstance(m.get("command"), str) else ""
    out = m.get("output") if isinstance(m.get("output"), str) else ""
    part = tool_part(pid, "bash", {"command": cmd}, ts)
    state = part["state"]
    meta = state["metadata"]
    meta["userRan"] = True
    if m.get("excludeFromContext") is True:
        meta["excludeFromContext"] = True
    for key in ("truncated", "fullOutputPath"):
        if m.get(key) not in (None, False):
            meta[key] = m[key]
    state["time"]["end"] = ts
    code = m.get("exitCode")
    if m.get("cancelled") is True:
        state.update(status="error", error=f"aborted: {out}" if out else "aborted")
        return part
    if isinstance(code, int) and not isinstance(code, bool):
        meta["exit"] = code
    state.update(status="completed", output=out)
    return part


def _context(pid: str, text: str, source: str, ts: int | None) -> dict[str, Any]:
    """A text pi sent the model for an extension or a summary (a ``system`` message's)."""
    return {"type": "context", "id": pid, "text": text, "source": source,
            "time": {"start": ts}}


def usage(u: dict[str, Any]) -> dict[str, Any]:
    """pi's ``usage`` as opencode's ``tokens`` (its ``input`` excludes the cache already)."""

    def num(k: str) -> int:
        v = u.get(k)
        return v if isinstance(v, int) and not isinstance(v, bool) else 0

    return {"input": num("input"), "output": num("output"), "reasoning": 0,
            "cache": {"read": num("cacheRead"), "write": num("cacheWrite")},
            "total": num("totalTokens")}
