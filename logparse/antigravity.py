"""Google Antigravity trajectories exported as JSON lines: one step a line,
``{step_index, source, type, status, created_at, content, ...}``.

Every step type is mapped on purpose (:data:`STEP_ROLES` says what each is):

* ``USER_INPUT`` (``source`` ``USER_EXPLICIT``) is the user's: ``<USER_REQUEST>`` their
  words, ``<ADDITIONAL_METADATA>`` and the like the IDE's (a synthetic part).
* ``PLANNER_RESPONSE`` is the model's turn (``content``, ``thinking`` and ``tool_calls``,
  each ``{name, args}`` with every argument value JSON-encoded as a string).
* The steps that execute those calls follow in order, one step a call (``RUN_COMMAND``,
  ``VIEW_FILE``, ``CODE_ACTION``, ``LIST_DIRECTORY``, ``GENERIC``...: :data:`STEP_OF_TOOL`,
  and :data:`TOOL_STEPS` for the Cortex step types of tools the pool does not show), their
  ``content`` opening with ``Created At:``/``Completed At:`` and their ``status``
  ``DONE``, ``ERROR`` or ``RUNNING`` (moved to the background).  An ``ERROR_MESSAGE``
  step (``error``) is a call the tool refused to parse.
* What the system sends the model (``source`` ``SYSTEM``) is no user's word:
  ``SYSTEM_MESSAGE`` (a background task's or a sub-agent's report, a timer, a notice),
  ``EPHEMERAL_MESSAGE``, ``KNOWLEDGE_ARTIFACTS``, ``MEMORY`` and ``CHECKPOINT`` (a
  compaction summary) become ``system`` messages whose text is ``context``
  (:data:`SYSTEM_STEPS`); ``CONVERSATION_HISTORY`` is a marker.
The export cuts long fields (``truncated_fields``); what is cut is not in the file.

**Ordinals**: 1-based over the ``USER_INPUT``, system and ``PLANNER_RESPONSE`` steps in
file order (and an ``ERROR_MESSAGE`` or a tool step that answers no call).  A tool step
has none: it joins the planner response whose call it answers, so a call and its result
share that ordinal, as in Claude Code.  A call still waiting when the user speaks again is
never answered (it ends without a result).  ``CONVERSATION_HISTORY`` lines join the next
message.

``run_command`` becomes ``bash`` with the exit code its step states (``The command
completed successfully`` is 0, ``The command failed with exit code: N``).  The file names
no session: the session is the conversation it names (its background tasks' and
artifacts' folder id), else named after its first step (:func:`trajectory_id`).  Step
types the reader does not know are kept raw and counted (``skipped``).  Messages leave
as soon as no call of theirs waits (:mod:`logparse._steplines`); a grown file is read
again (no resume point).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from logparse._agentlines import Draft, LastLine, iso_ms, latest_time, tail_records
from logparse._steplines import Drafts, records, renamed, tool_part
from logparse.models import Problem
from logparse.opencode._lines import head_records, json_head, open_decoded
from logparse.source import SourceSession, TranscriptReader

TOOLS: dict[str, tuple[str, dict[str, str]]] = {
    "run_command": ("bash", {"CommandLine": "command", "Cwd": "workdir"}),
    "view_file": ("read", {"AbsolutePath": "filePath"}),
    "write_to_file": ("write", {"TargetFile": "filePath", "CodeContent": "content"}),
    "replace_file_content": ("edit", {"TargetFile": "filePath", "TargetContent": "oldString",
                                      "ReplacementContent": "newString"}),
    "multi_replace_file_content": ("edit", {"TargetFile": "filePath"}),
    "list_dir": ("list", {"DirectoryPath": "path"}),
    "grep_search": ("grep", {"Query": "pattern", "SearchPath": "path"}),
    "find_by_name": ("glob", {"Pattern": "pattern", "SearchDirectory": "path"}),
    "search_web": ("websearch", {}),
    "read_url_content": ("webfetch", {"Url": "url"}),
    "invoke_subagent": ("task", {}),
}
"""Antigravity tools (as in ``fixtures/realworld_trim/antigravity.jsonl``) mapped onto
opencode's; others (``manage_task``, ``schedule``, ``ask_question``...) keep their name."""

STEP_OF_TOOL: dict[str, str] = {
    "run_command": "RUN_COMMAND", "view_file": "VIEW_FILE", "write_to_file": "CODE_ACTION",
    "replace_file_content": "CODE_ACTION", "multi_replace_file_content": "CODE_ACTION",
    "list_dir": "LIST_DIRECTORY", "grep_search": "GREP_SEARCH", "search_web": "SEARCH_WEB",
    "read_url_content": "READ_URL_CONTENT", "invoke_subagent": "INVOKE_SUBAGENT",
    "ask_question": "ASK_QUESTION",
}
"""The step type that executes a call of each tool (``GENERIC`` for the others: ``schedule``,
``manage_task``, ``manage_subagents``, ``list_permissions``); an ``ERROR_MESSAGE`` answers
any.  A step answers the first waiting call whose tool it executes."""

OPEN_TOOL_STEPS = frozenset({"GENERIC", "MCP_TOOL", "TOOL_CALL"})
"""Step types that execute a call of a tool :data:`STEP_OF_TOOL` does not name (the pool's
``schedule``, ``manage_task``... run as ``GENERIC``); such a call is also answered by the
step type named after it (``command_status``: ``COMMAND_STATUS``)."""
TOOL_STEPS = frozenset(STEP_OF_TOOL.values()) | OPEN_TOOL_STEPS | {
    "FIND", "CODEBASE_SEARCH", "VIEW_CODE_ITEM", "VIEW_FILE_OUTLINE", "COMMAND_STATUS",
    "SEND_COMMAND_INPUT", "BROWSER_SUBAGENT", "GENERATE_IMAGE", "NOTIFY_USER",
    "TASK_BOUNDARY", "SEARCH"}
"""Step types that execute a call of the model's: the ones the pool shows, and the other
Cortex step types of tools (``find_by_name``, ``codebase_search``, ``command_status``,
``notify_user``, ``task_boundary``...)."""
SYSTEM_STEPS = frozenset({"SYSTEM_MESSAGE", "EPHEMERAL_MESSAGE", "KNOWLEDGE_ARTIFACTS",
                          "MEMORY", "CHECKPOINT"})
"""Steps the system adds for the model (``source`` ``SYSTEM``): a ``system`` message whose
text is context, never a user's prompt."""
STEP_ROLES: dict[str, str] = {
    "USER_INPUT": "user", "PLANNER_RESPONSE": "assistant", "CONVERSATION_HISTORY": "marker",
    "ERROR_MESSAGE": "result", **{t: "result" for t in TOOL_STEPS},
    **{t: "system" for t in SYSTEM_STEPS}}
"""What each step type the reader knows becomes: the user's message, the model's, a
call's result (or, answering none, a message of its own), a system message, a marker
(its line joins the next message).  Any other type is kept raw and counted."""
_KNOWN = frozenset(STEP_ROLES)
_STAMPS = re.compile(r"\A(?:Created At: (\S+)\n)?(?:Completed At: (\S+)\n)?")
_RAN = re.compile(r"\A\s*The command (?:completed successfully|failed with exit code: (-?\d+))"
                  r"\.?\s*\n\s*(?:Output:[ \t]*\n?[ \t]*)?")
_STEP_ERROR = re.compile(r"\A\s*Encountered error in step execution: ")
_REQUEST = re.compile(r"<USER_REQUEST>\n?(.*?)(?:\n?</USER_REQUEST>|\Z)", re.S)
"""The user's words (the export may cut the field before the closing tag)."""


def is_step(obj: Any) -> bool:
    return (isinstance(obj, dict) and "step_index" in obj and isinstance(obj.get("type"), str)
            and obj["type"].isupper())


def is_known_step(obj: Any) -> bool:
    """A step of a type this reader knows, as the export writes it (an integer
    ``step_index``, a ``source``): what detection asks of one of the first records, so a
    log that merely numbers its steps in upper-case types is not taken for a trajectory."""
    return (is_step(obj) and obj["type"] in _KNOWN and isinstance(obj["step_index"], int)
            and not isinstance(obj["step_index"], bool) and isinstance(obj.get("source"), str))


def step_time(step: dict[str, Any]) -> int | None:
    """When a step was last written: its ``created_at``, or the ``Completed At:`` its
    content opens with (a command that ran on finished after the step was created)."""
    created = iso_ms(step.get("created_at"))
    content = step.get("content")
    m = _STAMPS.match(content) if isinstance(content, str) else None
    done = iso_ms(m.group(2)) if m and m.group(2) else None
    return max((t for t in (created, done) if t is not None), default=None)


def decoded_args(args: Any) -> dict[str, Any]:
    """A call's arguments with each JSON-encoded value decoded (``"\\"npm test\\""`` is
    ``npm test``); a value that is not JSON stays as it is."""
    if not isinstance(args, dict):
        return {"input": args}
    out: dict[str, Any] = {}
    for k, v in args.items():
        if isinstance(v, str):
            try:
                v = orjson.loads(v)
            except orjson.JSONDecodeError:
                pass
        out[str(k)] = v
    return out


def step_result(typ: str, status: Any, content: str) -> dict[str, Any]:
    """A tool step as opencode tool-state fields: status, output or error, exit, times."""
    m = _STAMPS.match(content)
    start, end = (iso_ms(m.group(1)), iso_ms(m.group(2))) if m else (None, None)
    text = content[m.end():] if m else content
    meta: dict[str, Any] = {"antigravityStatus": status}
    state: dict[str, Any] = {"metadata": meta, "time": {"start": start, "end": end}}
    if status == "ERROR" or _STEP_ERROR.match(text):
        state.update(status="error", error=text.strip())
        return state
    if status == "RUNNING":  # moved to the background: the step returned while it ran
        meta["background"] = True
    if typ == "RUN_COMMAND":
        r = _RAN.match(text)
        if r:
            meta["exit"] = int(r.group(1)) if r.group(1) else 0
            text = text[r.end():]
    state.update(status="completed", output=text)
    return state


_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_CONVERSATION = re.compile(
    rf"task id: ({_UUID})/task-\d|brain(?:\\\\|\\|/)+({_UUID})(?:\\\\|\\|/)")
"""Where a trajectory names its conversation: the id of a background task it started
(``task id: <conversation>/task-14``), the folder of its own artifacts
(``.gemini/antigravity/brain/<conversation>/implementation_plan.md``, JSON-escaped or
not)."""
_NAMING_BYTES = 4 << 20
_NAME_SPAN = 256
"""Longer than any match of :data:`_CONVERSATION` (a path's separators may be escaped)."""


def conversation_id(path: Path) -> str | None:
    """The conversation a trajectory names in its first 4 MiB: the id named most often
    (an artifact of another conversation read once does not name this one).  A head that
    names none (a 10 MB command output before the first background task) is read on, 4
    MiB at a time, to the first stretch that names one: one huge step must not turn the
    conversation into a session of its own."""
    votes: dict[str, int] = {}
    tail = ""  # a name cut by the end of a stretch is read whole with the next one
    with open_decoded(path) as f:  # a regular file only, BOM or UTF-16 as the reader reads
        while not votes:
            chunk = f.read(_NAMING_BYTES)
            if not chunk:
                break
            text = tail + chunk.decode("utf-8", "replace")
            for m in _CONVERSATION.finditer(text):
                uid = m.group(1) or m.group(2)
                votes[uid] = votes.get(uid, 0) + 1
            tail = text[-_NAME_SPAN:]
    return max(votes, key=lambda u: votes[u]) if votes else None


def first_step_id(first: dict[str, Any]) -> str:
    """The id of a trajectory that names no conversation: a digest of its first step."""
    digest = hashlib.sha256(orjson.dumps(first, option=orjson.OPT_SORT_KEYS)).hexdigest()
    return f"ag-{digest[:20]}"


def trajectory_id(first: dict[str, Any], path: Path | None = None) -> str:
    """The session id of a trajectory: the conversation's own id where the trajectory
    names it (:func:`conversation_id`), else a digest of its first step (the file names
    none: :func:`first_step_id`), so copies of one conversation under any name are one
    session and two exports that happen to share a file name are two (its short id tells
    them apart).  A copy cut before the conversation is named gets the digest; the whole
    copy lists it in its info's ``aliases`` and the store keeps the two as one session
    (:func:`kb.ingest.same_session`)."""
    named = conversation_id(path) if path is not None else None
    return named if named is not None else first_step_id(first)


class AntigravityReader(TranscriptReader):
    form = "antigravity"
    agent = "antigravity"
    description = "Google Antigravity trajectory exported as JSONL (one step a line)"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        return any(is_known_step(o) for o in json_head(path, head, 5))

    @classmethod
    def ends_at(cls, path: Path, session_id: str) -> int | None:
        return cls.records_end(tail_records(path), session_id)  # one trajectory a file

    @classmethod
    def records_end(cls, records: Sequence[Any], session_id: str) -> int | None:
        return latest_time(records, is_step, step_time)

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        self.skipped = {}
        first = next((o for o in head_records(path, 5) if is_step(o)), None)
        sid = trajectory_id(first, path) if first is not None else path.stem
        cut_id = first_step_id(first) if first is not None else None
        if session_ids is not None and sid not in session_ids and cut_id not in session_ids:
            return
        info: dict[str, Any] = {"id": sid, "time": {
            "created": iso_ms(first.get("created_at")) if first else None}}
        if cut_id is not None and cut_id != sid:  # a copy cut before the naming step
            info["aliases"] = [cut_id]
        yield SourceSession(session_id=sid, form=self.form, path=str(path),
                            messages=_Trajectory(self, path, problems, sid).messages(),
                            info=info, agent=self.agent, named=sid != cut_id)


_CORTEX_STEP = {"find_by_name": "FIND", "mcp_tool": "MCP_TOOL"}
"""Cortex step types not named after their tool (the pool holds neither)."""


def expected_steps(name: str) -> frozenset[str]:
    """The step types that may execute a call of tool ``name``: the one
    :data:`STEP_OF_TOOL` names, else a generic step or the type named after the tool."""
    step = STEP_OF_TOOL.get(name)
    if step is not None:
        return frozenset({step})
    return OPEN_TOOL_STEPS | {name.upper(), _CORTEX_STEP.get(name, "GENERIC")}


class _Trajectory:
    def __init__(self, owner: AntigravityReader, path: Path, problems: list[Problem],
                 sid: str) -> None:
        self.owner = owner
        self.path = path
        self.d = Drafts(sid, path, problems, "Antigravity trajectory", gone=self._gone)
        self.waiting: list[tuple[Draft, dict[str, Any], frozenset[str]]] = []
        """Calls of planner responses not answered yet, in order, with the step types
        that may execute each."""
        self.last = LastLine()
        """The line read last: the same step written twice in a row is read once."""

    def messages(self) -> Iterator[Any]:
        return self.d.read(records(self.path, self.d.problems, "Antigravity step"), self._step)

    def _gone(self, d: Draft) -> None:
        """A draft left while a call of it still waited (held too long): a later step
        answers no call of it."""
        if d.open > 0:
            self.waiting = [w for w in self.waiting if w[0] is not d]

    def _step(self, n: int, body: bytes, obj: dict[str, Any]) -> None:
        if self.last.repeats(body) and isinstance(obj.get("step_index"), int):
            self.d.extra(n, body)  # a step written twice in a row: kept raw, read once
            return
        typ = obj.get("type")
        ts = iso_ms(obj.get("created_at"))
        raw_content = obj.get("content")
        content = raw_content if isinstance(raw_content, str) else ""
        cut = obj.get("truncated_fields")
        role = STEP_ROLES.get(typ) if isinstance(typ, str) else None
        if role == "user":
            # a new turn: a call still waiting was never run (cancelled, the editor
            # closed); a later step answers a call of this turn, not that one
            for waiting, _, _ in self.waiting:
                waiting.open -= 1
            self.waiting.clear()
            d = self.d.new(n, body, "user", ts)
            m = _REQUEST.search(content)
            ask = m.group(1) if m else content
            d.parts.append({"type": "text", "id": f"L{n}", "text": ask, "time": {"start": ts}})
            rest = (content[:m.start()] + content[m.end():]).strip() if m else ""
            if rest:  # <ADDITIONAL_METADATA>: the IDE's, not the user's words
                d.parts.append({"type": "text", "id": f"L{n}.m", "text": rest,
                                "synthetic": True, "time": {"start": ts}})
        elif role == "system":
            # the system's, not the user's: a task's report, a timer, a notice, a summary
            d = self.d.new(n, body, "system", ts)
            if typ == "CHECKPOINT":
                d.parts.append({"type": "compaction", "id": f"L{n}.c", "auto": True})
            d.parts.append({"type": "context", "id": f"L{n}", "text": content,
                            "source": typ, "time": {"start": ts}})
        elif role == "assistant":
            self._planner(n, body, obj, ts, content)
        elif role == "marker":
            self.d.extra(n, body)
        elif role == "result":
            part = self._answer(n, body, obj, str(typ), ts, content)
            if cut and part is not None:  # the export cut the step's output
                part["state"]["metadata"]["truncatedFields"] = cut
            return
        else:  # kept raw (in the next message's record) and counted
            key = typ if isinstance(typ, str) else f"<{type(typ).__name__}>"
            self.owner.skipped[key] = self.owner.skipped.get(key, 0) + 1
            self.d.extra(n, body)
            return
        if cut and self.d.tail is not None:  # the step's own message (the newest)
            self.d.tail.info.setdefault("truncatedFields", {})[str(n)] = cut

    def _planner(self, n: int, body: bytes, obj: dict[str, Any], ts: int | None,
                 content: str) -> None:
        d = self.d.new(n, body, "assistant", ts)
        thinking = obj.get("thinking")
        if isinstance(thinking, str) and thinking.strip():
            d.parts.append({"type": "reasoning", "id": f"L{n}.r", "text": thinking,
                            "time": {"start": ts}})
        if content.strip():
            d.parts.append({"type": "text", "id": f"L{n}.t", "text": content,
                            "time": {"start": ts}})
        for i, tc in enumerate(obj.get("tool_calls") or []):
            if not isinstance(tc, dict):
                d.parts.append({"type": "antigravity:call", "id": f"L{n}.{i}", "value": tc})
                continue
            name = str(tc.get("name") or "unknown")
            tool, keys = TOOLS.get(name, (name, {}))
            args = decoded_args(tc.get("args"))
            title = args.pop("toolSummary", None)
            action = args.pop("toolAction", None)
            inp = renamed(args, keys)
            if name != tool:
                inp["antigravityTool"] = name
            part = tool_part(f"L{n}.{i}", tool, inp, ts,
                             str(action or title) if (action or title) else None)
            d.parts.append(part)
            d.open += 1
            self.waiting.append((d, part, expected_steps(name)))

    def _answer(self, n: int, body: bytes, obj: dict[str, Any], typ: str, ts: int | None,
                content: str) -> dict[str, Any] | None:
        """The call a step answers, completed (``None``: an error step answering no call,
        which is a message error of its own)."""
        at = next((i for i, w in enumerate(self.waiting)
                   if typ == "ERROR_MESSAGE" or typ in w[2]), None)
        if at is None:  # a step that answers no call: a message of its own
            d = self.d.new(n, body, "assistant", ts)
            if typ == "ERROR_MESSAGE":
                err = obj.get("error") if isinstance(obj.get("error"), str) else content
                d.info["error"] = {"name": "ToolCallError", "data": {"message": err}}
                return None
            part = tool_part(f"L{n}", typ.lower(), {}, ts)
            part["state"]["metadata"]["callNotFound"] = True
            d.parts.append(part)
        else:
            d, part, _ = self.waiting.pop(at)
            d.open -= 1
            d.add_line(n, body)
        state = part["state"]
        if typ == "ERROR_MESSAGE":
            err = obj.get("error") if isinstance(obj.get("error"), str) else content
            state.update(status="error", error=err)
            state["time"]["end"] = ts
            return part
        new = step_result(typ, obj.get("status"), content)
        state["metadata"].update(new.pop("metadata"))
        t = new.pop("time")
        state["time"]["start"] = t["start"] or state["time"].get("start")
        state["time"]["end"] = t["end"] or ts
        state.update(new)
        return part
