"""Gemini CLI chat logs (JSON lines): ``~/.gemini/tmp/<project>/chats/session-*.jsonl``.

The first line is the session's header ``{sessionId, projectHash, startTime, lastUpdated,
kind}``; then one record a line: ``user`` (``content``: a list of ``{text}`` parts, with a
``displayContent`` when the CLI sent something else than what it shows), ``gemini`` (the
model's reply: ``content``, ``thoughts``, ``tokens``, ``model`` and ``toolCalls``, each
call with its ``status`` and its ``result[].functionResponse.response`` ``{output}`` or
``{error}``), ``info`` (the CLI's notices: ``Request cancelled.``, authentication) and
``error`` (``[API Error: ...]``).  ``{"$set": {...}}`` lines update the header.
``{"$rewindTo": id}`` (the CLI's ``ChatRecordingService.rewindTo``: the user rewound the
conversation to before message ``id``) takes that message and every later one out of the
conversation; the reader keeps them and records the ordinals taken back in the raw record
of the message the line joins (``$.rewinds``, :attr:`logparse._agentlines.Draft.rewinds`).

A message is written again, whole, under the same ``id`` when it changes (a reply is
written once as its text, then again with its tool calls and their results): the last
record of an id is the message, and every line of it is in its raw record.

**Ordinals**: 1-based over the distinct ids of ``user``, ``gemini`` and ``error`` records,
in file order (a ``user`` record the CLI sent for a tool, its ``displayContent`` the
tool's response, is a ``system`` message: ``System: Please continue.``; each
``functionResponse`` it holds, in ``displayContent`` or ``content``, is context naming the
tool, the call and what it answered).  ``info`` and
``$set`` lines have none: they join the raw record of the message before them (``Request
cancelled.`` marks that message aborted when it is a reply), or of the next one when
none came before.  A call and its result share the
reply's ordinal, as in opencode.

**Sub-agents** (``invoke_agent``, or a tool named after the agent in older CLIs) run a
chat of their own, ``chats/<parent session id>/<agentId>.jsonl``, whose header says
``kind: "subagent"`` and whose ``sessionId`` is the ``agentId`` the call records: the call
names that chat as its child session (a ``task``), and the chat names its parent from
where the CLI keeps it (:func:`parent_session`), as Claude Code's sidechains are linked.

Tools map onto opencode's (:data:`TOOLS`); ``run_shell_command`` becomes ``bash`` with the
exit code from its output (``Exit Code: N``; the CLI leaves the line out when the code is
0, so a shell call that succeeded and printed its ``Process Group PGID`` exited 0).  A
call ``cancelled`` (``[Operation Cancelled] Reason: User denied execution.``) is aborted.
Record types the reader does not know are kept raw and counted (``skipped``).  Messages
leave in file order once :data:`REWRITE_WINDOW` newer ones follow (a message is written
again while it is among the newest); a grown file is read again (no resume point).
"""

from __future__ import annotations

import itertools
import re
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from logparse._agentlines import Draft, iso_ms, json_object, latest_time, tail_records
from logparse._steplines import (
    Drafts,
    records,
    renamed,
    session_name,
    text_parts,
    tool_part,
)
from logparse.models import Problem
from logparse.opencode._lines import (
    first_line,
    head_records,
    json_head,
    open_decoded,
    safe_text,
    sniff_encoding,
)
from logparse.opencode._scan import Event, ExportScanner
from logparse.safe_open import open_regular
from logparse.source import SourceSession, TranscriptReader

TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    # Gemini CLI tool -> (opencode tool, argument renames); others keep their name
    "run_shell_command": ("bash", {"directory": "workdir", "dir_path": "workdir"}),
    "read_file": ("read", {"file_path": "filePath", "absolute_path": "filePath"}),
    "read_many_files": ("read", {}),
    "write_file": ("write", {"file_path": "filePath"}),
    "replace": ("edit", {"file_path": "filePath", "old_string": "oldString",
                         "new_string": "newString", "allow_multiple": "replaceAll"}),
    "grep_search": ("grep", {"dir_path": "path"}),
    "search_file_content": ("grep", {"dir_path": "path"}),
    "glob": ("glob", {"dir_path": "path"}),
    "list_directory": ("list", {"dir_path": "path"}),
    "web_fetch": ("webfetch", {}),
    "google_web_search": ("websearch", {}),
    "write_todos": ("todowrite", {}),
    "invoke_agent": ("task", {}),
    "delegate_to_agent": ("task", {}),
}
"""Gemini CLI tool names (as in ``fixtures/realworld_trim/gemini_cli.jsonl``:
``run_shell_command``, ``read_file``, ``replace``, ``grep_search``, ``list_directory``,
``glob``, ``web_fetch``, ``write_file``, ``invoke_agent``) mapped onto opencode's, so
categories and rules apply."""

REWRITE_WINDOW = 8
"""Messages held back besides the newest: the CLI writes a message again while it is the
last one (its tool calls, their results, its tokens), never after newer ones in the pool;
a message further back is handed out and a later version of it is a problem."""
_LEFT_IDS = 256
"""How many ids of messages handed out are remembered (to name a rewrite that came late)."""
RECORD_TYPES = frozenset({"user", "gemini", "info", "error"})
_CHAT_OPENS = re.compile(rb'\{\s*"(?:sessionId|projectHash)"\s*:')
"""How a single-JSON chat opens (the CLI writes ``sessionId`` first, then ``projectHash``):
another JSON document that merely holds those keys deeper down is not one."""
_RECORD_START = re.compile(rb'\{\s*"id"\s*:\s*"[^"\\]*"\s*,\s*"timestamp"\s*:')
"""Where a message of a chat's ``messages`` list starts (its ``id``, then its ``timestamp``:
a tool call or a function response opens with an ``id`` too, not with both)."""
_TRAILER = r"(?:\n(?:Signal|Background PIDs|Process Group PGID): [^\n]*)*\n*\Z"
"""The fields the shell tool writes after ``Exit Code`` (and after the command's output)."""
_EXIT = re.compile(r"^Exit Code: (-?\d+)[ \t]*" + _TRAILER, re.M)
_NO_EXIT = re.compile(r"^(?:Exit Code: \(none\)[ \t]*|Signal: (?!\(none\))\S[^\n]*)" + _TRAILER,
                      re.M)
_SHELL_SHAPE = re.compile(r"^(?:Command: |Output: )|^Process Group PGID: ", re.M)
_CANCELLED = "Request cancelled."
_TODO_STATUS = {"pending": "pending", "in_progress": "in_progress", "completed": "completed",
                "cancelled": "cancelled"}


def is_header(obj: Any) -> bool:
    """The first line of a Gemini CLI chat log (no ``type``: Claude Code's records have
    one; no ``messages``: that is a whole chat of the older single-JSON form)."""
    return (isinstance(obj, dict) and "type" not in obj and isinstance(obj.get("sessionId"), str)
            and "projectHash" in obj and "messages" not in obj)


def parent_session(path: Path, header: dict[str, Any]) -> str | None:
    """The session a sub-agent chat (``kind: "subagent"``) belongs to: the folder the CLI
    keeps it in, ``chats/<parent session id>/<id>.json[l]`` (``None`` for a main chat, or
    a chat moved out of that layout: the parent's call still names it)."""
    if header.get("kind") != "subagent":
        return None
    folder = path.parent
    if folder.parent.name != "chats" or not folder.name or folder.name == "chats":
        return None
    return folder.name


_FOREIGN_KEYS = ("uuid", "parentUuid", "parentId", "sessionId", "message", "payload", "parts",
                 "info", "role", "step_index")
"""Keys of the other agents' records (Claude Code, Codex, opencode, pi, Antigravity): a
record holding one is not a Gemini CLI message."""


def is_record(obj: Any) -> bool:
    """A Gemini CLI message record (``{id, timestamp, type, content, ...}``), or a ``$set``
    update of the header: what a chat log whose header line is lost still holds."""
    if not isinstance(obj, dict):
        return False
    if set(obj) == {"$set"}:
        return isinstance(obj["$set"], dict)
    if set(obj) == {"$rewindTo"}:
        return isinstance(obj["$rewindTo"], str)
    typ = obj.get("type")
    return (isinstance(typ, str) and typ in RECORD_TYPES and isinstance(obj.get("id"), str)
            and isinstance(obj.get("timestamp"), str) and "content" in obj
            and not any(k in obj for k in _FOREIGN_KEYS))


def looks_like_chat(objs: list[dict[str, Any]]) -> bool:
    """The first records of a file are a Gemini CLI chat log's: its header among them, or
    (the header line lost or damaged) two or more Gemini CLI records, a message among them,
    and at most one other record."""
    if any(is_header(o) for o in objs):
        return True
    ours = [o for o in objs if is_record(o)]
    return len(ours) >= 2 and len(objs) - len(ours) <= 1 and any(
        o.get("type") in ("user", "gemini") for o in ours)


def shell_exit(status: Any, text: str) -> int | None:
    """The exit code of a ``run_shell_command`` result: its ``Exit Code: N`` line, else 0 for
    a call that succeeded with the tool's own result layout (older CLIs print every field,
    ``Exit Code: (none)`` included; newer ones leave out the fields that say nothing, the
    exit code 0 among them).  Only the tool's own trailer counts (the fields after the
    command's output): an ``Exit Code: N`` line the command printed is output."""
    m = _EXIT.search(text)
    if m:
        return int(m.group(1))
    if _NO_EXIT.search(text):  # "Exit Code: (none)", or a signal ended it
        return None
    if status == "success" and _SHELL_SHAPE.search(text[:2000]):
        return 0
    return None


_BODY_TAIL = re.compile(r"(?:\nStderr: \(empty\)[ \t]*)?(?:\nError: \(none\)[ \t]*)?"
                        r"(?:\nExit Code: [^\n]*)?"
                        r"(?:\n(?:Signal|Background PIDs|Process Group PGID): [^\n]*)*\n*\Z")
"""The shell tool's fields after the command's output (``Error: (none)``, ``Exit Code``,
``Signal``, ``Background PIDs``, ``Process Group PGID``)."""
_COMMAND_HEAD = 20_000
"""How far into a result the ``Output:`` field is looked for after a ``Command:`` field (a
command spelt over many lines)."""


def shell_body(text: str) -> tuple[int, int] | None:
    """Where the command's own output lies in a ``run_shell_command`` result: after the
    tool's ``Command:``/``Directory:`` fields and ``Output:`` (older CLIs: ``Stdout:``, then
    ``Stderr:``), before its trailing fields (the codes, the process group, an empty
    ``Stderr: (empty)`` or ``Error: (none)``); ``(empty)`` is no output.
    None when the result is not in the tool's layout.  What a measurement rule reads
    (``state.metadata.body``), as the Codex and Antigravity readers cut their tools'
    headers off: ``Output: 123 src/a.kt`` is ``wc -l``'s line, ``Process Group PGID:
    14630`` no line of a listing."""
    field = next((f for f in ("Output: ", "Stdout: ") if text.startswith(f)), None)
    if field is not None:
        start = len(field)
    elif text.startswith("Command: "):
        found = [(i, f) for f in ("\nOutput: ", "\nStdout: ")
                 if (i := text.find(f, 0, _COMMAND_HEAD)) != -1]
        if not found:
            return None
        i, f = min(found)
        start = i + len(f)
    else:
        return None
    cut = max(start, len(text) - 600)
    m = _BODY_TAIL.search(text, cut)
    end = m.start() if m else len(text)
    if text[start:end].strip() == "(empty)":
        end = start
    return start, end


def _response_text(result: Any) -> tuple[str | None, str | None]:
    """``(output, error)`` of a call's ``result`` (a list of ``functionResponse`` parts)."""
    outs: list[str] = []
    errs: list[str] = []
    for r in result if isinstance(result, list) else []:
        fr = json_object(json_object(r).get("functionResponse"))
        resp = fr.get("response")
        if isinstance(resp, dict):
            if isinstance(resp.get("error"), str):
                errs.append(resp["error"])
            elif isinstance(resp.get("output"), str):
                outs.append(resp["output"])
            elif resp:
                outs.append(orjson.dumps(resp).decode())
        elif isinstance(resp, str):
            outs.append(resp)
    return ("\n".join(outs) if outs else None), ("\n".join(errs) if errs else None)


def call_part(tc: dict[str, Any], ts: int | None) -> dict[str, Any]:
    """One ``toolCalls`` entry as an opencode tool part, with its result when it has one."""
    name = str(tc.get("name") or "unknown")
    tool, keys = TOOLS.get(name, (name, {}))
    agent = tc.get("agentId") if isinstance(tc.get("agentId"), str) and tc["agentId"] else None
    if agent is not None:  # a sub-agent's run, whatever the tool is called
        tool = "task"
    inp = renamed(tc.get("args"), keys)
    if tool == "todowrite" and isinstance(inp.get("todos"), list):
        inp["todos"] = [{"content": str(t.get("description", "")),
                         "status": _TODO_STATUS.get(str(t.get("status")), str(t.get("status")))}
                        for t in inp["todos"] if isinstance(t, dict)]
    if name != tool:
        inp["geminiTool"] = name
    cid = str(tc.get("id") or f"{name}@{ts}")
    part = tool_part(cid, tool, inp, ts, tc.get("description")
                     if isinstance(tc.get("description"), str) else None)
    state = part["state"]
    meta = state["metadata"]
    if agent is not None:
        meta["agentId"] = agent
        meta["sessionId"] = agent  # the sub-agent's chat: its sessionId is this agentId
    status = tc.get("status")
    out, err = _response_text(tc.get("result"))
    if status is None and out is None and err is None:
        return part  # no result: the call never finished (interrupted)
    state["time"]["end"] = iso_ms(tc.get("timestamp")) or ts
    meta["geminiStatus"] = status
    if status == "cancelled":
        text = err or out or "cancelled"
        state.update(status="error", error=f"aborted: {text}")
    elif status == "error" or (err is not None and out is None):
        state.update(status="error", error=err or out or "error")
    elif status in ("success", None):
        state.update(status="completed", output=out if out is not None else "")
    else:  # a status this reader does not know: the call stays open, its result kept
        meta["output"] = out if out is not None else err
        return part
    if tool == "bash":
        code = shell_exit(status, out or err or "")
        if code is not None:
            meta["exit"] = code
        body = shell_body(out) if out is not None and state.get("output") == out else None
        if body is not None and body != (0, len(out or "")):
            meta["body"] = list(body)
    return part


class GeminiCliReader(TranscriptReader):
    form = "gemini-cli"
    agent = "gemini-cli"
    description = "Gemini CLI chat log JSONL (~/.gemini/tmp/<project>/chats)"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        return looks_like_chat(list(json_head(path, head, 5)))

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
        header: dict[str, Any] | None = None
        for obj in head_records(path, 5):
            if is_header(obj):
                header = obj
                break
        sid = session_name(header["sessionId"], path.stem, problems, path, "Gemini CLI chat"
                           ) if header else path.stem
        if session_ids is not None and sid not in session_ids:
            return
        info: dict[str, Any] = {"id": sid}
        if header:
            info.update(projectHash=header.get("projectHash"), kind=header.get("kind"),
                        time={"created": iso_ms(header.get("startTime")),
                              "updated": iso_ms(header.get("lastUpdated"))})
            parent = parent_session(path, header)
            if parent is not None and parent != sid:
                info["parentID"] = parent
        chat = _Chat(self, path, problems, sid, info)
        yield SourceSession(session_id=sid, form=self.form, path=str(path),
                            messages=chat.messages(records(path, problems, "Gemini CLI chat")),
                            info=info, agent=self.agent)


class GeminiChatJsonReader(TranscriptReader):
    """The older form of the same chats: one JSON document ``{sessionId, projectHash,
    startTime, lastUpdated, messages: [...]}`` (``session-*.json``), its messages the
    records the JSON-lines form writes one a line.  The ``lines`` of a message's raw record
    are then the 1-based positions of its records in ``messages``."""

    form = "gemini-json"
    agent = "gemini-cli"
    description = "Gemini CLI chat JSON (~/.gemini/tmp/<project>/chats/session-*.json)"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        h = head.lstrip()
        if _CHAT_OPENS.match(h) is None or b'"projectHash"' not in h or b'"messages"' not in h:
            return False
        try:  # one JSON record on the first line: the JSON-lines form (or one line of JSON)
            first = orjson.loads(first_line(path))
        except orjson.JSONDecodeError:
            return True
        return isinstance(first, dict) and isinstance(first.get("messages"), list)

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        """The document is scanned as an opencode export is (:mod:`logparse.opencode._scan`):
        a message at a time, so a cut or damaged chat keeps every message the damage does
        not touch, and the damage is a problem naming its byte offset."""
        self.skipped = {}
        spath = str(path)
        with open_regular(path) as raw:
            enc, bom = sniff_encoding(raw.read(4))
        f = open_decoded(path)
        try:
            scanner = ExportScanner(f, base=bom if enc == "utf-8" else 0,
                                    msg_start=_RECORD_START)
            try:
                scanner.skip_prefix()
            except ValueError as e:
                problems.append(Problem(path=spath, reason=f"not a Gemini CLI chat: {e}"))
                return
            events = scanner.events()
            head: dict[str, Any] = {}
            first: Event | None = None
            for ev in events:
                if ev.kind == "key" and ev.key is not None:
                    head[ev.key] = ev.value
                elif ev.kind == "damage":
                    problems.append(_damage(spath, ev))
                elif ev.kind == "message":
                    first = ev
                    break
            sid = session_name(head.get("sessionId"), path.stem, problems, path,
                               "Gemini CLI chat")
            if session_ids is not None and sid not in session_ids:
                return
            info: dict[str, Any] = {
                "id": sid, "projectHash": head.get("projectHash"), "kind": head.get("kind"),
                "time": {"created": iso_ms(head.get("startTime")),
                         "updated": iso_ms(head.get("lastUpdated"))}}
            parent = parent_session(path, head)
            if parent is not None and parent != sid:
                info["parentID"] = parent
            chat = _Chat(self, path, problems, sid, info)
            yield SourceSession(
                session_id=sid, form=self.form, path=spath, info=info, agent=self.agent,
                messages=chat.messages(_doc_records(spath, problems, first, events)))
        finally:
            f.close()


def _damage(spath: str, ev: Event) -> Problem:
    span = f"bytes {ev.offset}-{ev.end}" if ev.end is not None else f"byte {ev.offset}"
    return Problem(path=spath, record=f"byte {ev.offset}", raw=safe_text(ev.raw),
                   reason=f"damaged Gemini CLI chat at {span}: {ev.reason}")


def _doc_records(spath: str, problems: list[Problem], first: Event | None,
                 events: Iterator[Event]) -> Iterator[tuple[int, bytes, dict[str, Any]]]:
    """``(position, record, object)`` of each element of ``messages`` read, in order (the
    position counts the elements read: a damaged one is a problem at its byte offset)."""
    i = 0
    for ev in itertools.chain([first] if first is not None else [], events):
        if ev.kind == "damage":
            problems.append(_damage(spath, ev))
        elif ev.kind == "message":
            i += 1
            if isinstance(ev.value, dict):
                yield i, orjson.dumps(ev.value), ev.value
            else:
                problems.append(Problem(path=spath, record=f"messages[{i - 1}]",
                                        raw=orjson.dumps(ev.value).decode(),
                                        reason="not a Gemini CLI message (a JSON object)"))


class _Chat:
    def __init__(self, owner: TranscriptReader, path: Path, problems: list[Problem], sid: str,
                 info: dict[str, Any]) -> None:
        self.owner = owner
        self.path = path
        self.info = info
        self.d = Drafts(sid, path, problems, "Gemini CLI chat", keep=REWRITE_WINDOW,
                        gone=self._gone)
        self.by_id: dict[str, Draft] = {}
        """The messages held, by the CLI's id (a record of one of them rewrites it)."""
        self.left: deque[str] = deque(maxlen=_LEFT_IDS)
        self.left_ids: set[str] = set()
        """The ids of the last messages handed out (a record of one is written too late)."""
        self.count = 0
        self.ordinal_of: dict[str, int] = {}
        """The ordinal of every message id seen (what a ``$rewindTo`` names)."""

    def messages(self, recs: Iterator[tuple[int, bytes, dict[str, Any]]]) -> Iterator[Any]:
        return self.d.read(recs, self._record)

    def _gone(self, d: Draft) -> None:
        mid = d.info.get("geminiId")
        if isinstance(mid, str) and self.by_id.get(mid) is d:
            del self.by_id[mid]
            if len(self.left) == self.left.maxlen:
                self.left_ids.discard(self.left[0])
            self.left.append(mid)
            self.left_ids.add(mid)

    def _skip(self, key: str) -> None:
        self.owner.skipped[key] = self.owner.skipped.get(key, 0) + 1

    def _attach(self, n: int, body: bytes) -> Draft | None:
        """A line without an ordinal: into the message before it (the next one if none;
        past :data:`~logparse._agentlines.SPILL_LINES` of them, a message of their own)."""
        return self.d.attach(n, body)

    def _record(self, n: int, body: bytes, obj: dict[str, Any]) -> None:
        typ = obj.get("type")
        if is_header(obj):
            self._attach(n, body)
            return
        if typ is None and isinstance(obj.get("$rewindTo"), str):
            self._rewind(n, body, obj["$rewindTo"])
            return
        if typ is None and isinstance(obj.get("$set"), dict):
            upd = obj["$set"]
            if isinstance(upd.get("lastUpdated"), str):
                self.info.setdefault("time", {})["updated"] = iso_ms(upd["lastUpdated"])
            self._attach(n, body)
            return
        if typ == "info":
            tail = self._attach(n, body)
            if tail is not None and tail.info["role"] == "assistant" and \
                    str(obj.get("content", "")).strip() == _CANCELLED:
                tail.info["error"] = {"name": "MessageAbortedError",
                                      "data": {"message": _CANCELLED}}
            return
        if typ not in ("user", "gemini", "error"):
            self._skip(typ if isinstance(typ, str) else f"<{type(typ).__name__}>")
            self._attach(n, body)
            return
        mid = obj.get("id")
        ts = iso_ms(obj.get("timestamp"))
        d = self.by_id.get(mid) if isinstance(mid, str) else None
        if d is None and isinstance(mid, str) and mid in self.left_ids:
            self.d.problems.append(Problem(
                path=str(self.path), line=n,
                reason=f"Gemini CLI message {mid} written again after {REWRITE_WINDOW} newer "
                       "ones; this version is kept as a message of its own"))
        if d is None:
            # numbered in order of first appearance: the JSON-lines log and the older
            # single-JSON chat give a message one id, so a chat kept in both forms is
            # stored once
            self.count += 1
            d = self.d.new(n, body, "user" if typ == "user" else "assistant", ts,
                           mid=f"{self.count:09d}")
            if isinstance(mid, str):
                self.by_id[mid] = d
                self.ordinal_of.setdefault(mid, self.count)
        else:  # the same message written again: the last version holds
            d.add_line(n, body)
            d.parts = []
            d.info.pop("error", None)
        d.info["geminiId"] = mid
        if typ == "user":
            self._user(d, n, obj, ts)
        elif typ == "gemini":
            self._reply(d, n, obj, ts)
        else:  # an API error the CLI wrote in place of a reply
            text = " ".join(text_parts(obj.get("content"))).strip() or "error"
            d.info["error"] = {"name": "APIError", "data": {"message": text}}

    def _rewind(self, n: int, body: bytes, target: str) -> None:
        """``{"$rewindTo": id}``: the user went back to before message ``id`` (the CLI's
        ``/rewind``, or Esc twice), taking it and every message after it out of the
        conversation (an id it does not know: every message).  They stay stored; the
        message the line joins (the last one) records which were taken back
        (:attr:`Draft.rewinds`)."""
        tail = self._attach(n, body)
        first = self.ordinal_of.get(target, 1)
        if tail is None or first > self.count:
            return
        if tail.rewinds is None:
            tail.rewinds = []
        tail.rewinds.append({"to": target, "from": first, "through": self.count,
                             "line": n, "found": target in self.ordinal_of})

    def _user(self, d: Draft, n: int, obj: dict[str, Any], ts: int | None) -> None:
        # sent for the user, not typed: a displayContent of tool responses ("System: Please
        # continue." after a shell command the user ran), or tool responses as content
        shown = obj.get("displayContent")
        content = obj.get("content")
        items = content if isinstance(content, list) else [{"text": content}]
        answers = [p for p in (shown if isinstance(shown, list) else [])
                   if isinstance(p, dict) and isinstance(p.get("functionResponse"), dict)]
        injected = bool(answers) or any(
            isinstance(c, dict) and isinstance(c.get("functionResponse"), dict) for c in items)
        # the CLI's own message to the model is a system message: its text is context
        d.info["role"] = "system" if injected else "user"
        for i, c in enumerate(items):
            pid = f"L{n}.{i}"
            if isinstance(c, dict) and isinstance(c.get("text"), str):
                part: dict[str, Any] = {"type": "text", "id": pid, "text": c["text"],
                                        "time": {"start": ts}}
                if injected:
                    part.update(type="context", source="user/displayContent")
                d.parts.append(part)
            elif isinstance(c, dict) and isinstance(c.get("functionResponse"), dict):
                d.parts.append(_answer(pid, c["functionResponse"], "user/functionResponse",
                                       ts))
            elif isinstance(c, dict) and ("inlineData" in c or "fileData" in c):
                data = json_object(c.get("inlineData") or c.get("fileData"))
                d.parts.append({"type": "file", "id": pid,
                                "mime": str(data.get("mimeType") or "file"),
                                "filename": str(data.get("fileUri") or data.get("mimeType")
                                                or "")[:200]})
            else:
                d.parts.append({"type": "gemini:part", "id": pid, "value": c})
        for i, p in enumerate(answers):  # what the CLI showed: the tools' responses
            d.parts.append(_answer(f"L{n}.d{i}", p["functionResponse"],
                                   "user/displayContent/functionResponse", ts))

    def _reply(self, d: Draft, n: int, obj: dict[str, Any], ts: int | None) -> None:
        if isinstance(obj.get("model"), str):
            d.info["modelID"] = obj["model"]
        tokens = obj.get("tokens")
        if isinstance(tokens, dict):
            d.info["tokens"] = usage(tokens)
        for i, t in enumerate(obj.get("thoughts") or []):
            if isinstance(t, dict):
                text = "\n".join(str(t[k]) for k in ("subject", "description")
                                 if isinstance(t.get(k), str) and t[k])
                if text:
                    d.parts.append({"type": "reasoning", "id": f"L{n}.r{i}", "text": text,
                                    "time": {"start": iso_ms(t.get("timestamp")) or ts}})
        text = "\n".join(text_parts(obj.get("content")))
        if text.strip():
            d.parts.append({"type": "text", "id": f"L{n}.t", "text": text,
                            "time": {"start": ts}})
        for tc in obj.get("toolCalls") or []:
            if isinstance(tc, dict):
                d.parts.append(call_part(tc, ts))
            else:
                d.parts.append({"type": "gemini:call", "id": f"L{n}.c", "value": tc})


def _answer(pid: str, fr: dict[str, Any], source: str, ts: int | None) -> dict[str, Any]:
    """A ``functionResponse`` the CLI sent the model (or showed) in a user record: context
    naming the tool, the call and what it answered (``output`` or ``error``)."""
    resp = fr.get("response")
    if isinstance(resp, dict):
        said = resp.get("output") if "output" in resp else resp.get("error", resp)
    else:
        said = resp
    text = said if isinstance(said, str) else orjson.dumps(said).decode()
    head = " ".join(str(x) for x in (fr.get("name"), fr.get("id")) if isinstance(x, str))
    return {"type": "context", "id": pid, "text": f"{head}: {text}" if head else text,
            "source": source, "callID": fr.get("id") if isinstance(fr.get("id"), str)
            else None, "time": {"start": ts}}


def usage(tokens: dict[str, Any]) -> dict[str, Any]:
    """Gemini's ``tokens`` as opencode's: ``input`` less its cached part (``cache.read``),
    ``thoughts`` as reasoning."""

    def num(k: str) -> int:
        v = tokens.get(k)
        return v if isinstance(v, int) and not isinstance(v, bool) else 0

    cached = num("cached")
    return {"input": max(num("input") - cached, 0), "output": num("output"),
            "reasoning": num("thoughts"), "cache": {"read": cached, "write": 0},
            "total": num("total")}
