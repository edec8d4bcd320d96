"""Claude Code transcripts: ``~/.claude/projects/<project>/<session>.jsonl``.

One JSON record per line.  ``user`` and ``assistant`` lines carry an Anthropic
API ``message`` (``content`` blocks ``text``, ``thinking``, ``tool_use``,
``tool_result``, ``image``) and are linked by ``uuid``/``parentUuid``; each
names its ``sessionId``, ``cwd``, ``gitBranch`` and ``version``.  Other lines
(``summary``, ``system``, ``queue-operation``, ``file-history-snapshot``,
``progress``…) describe the session.

**Ordinals** (see ``docs/schema.md``): 1-based, in file order, over the user
lines that say something (a prompt, hook feedback, a command, a compaction
summary) and the assistant API responses.  One response is often written as
several lines sharing ``message.id`` (one per content block): they are one
message.  A user line that only returns ``tool_result`` blocks has no ordinal
of its own: each result joins the call it answers, so a call and its result
share the calling message's ordinal, as in opencode.  Lines without an ordinal
join the raw record of the next message of their session.

Queued input handed over mid-turn (a ``queued_command`` attachment, or a
``queue-operation`` enqueue with content then ``remove``) is a user message; an
``isMeta`` user line holding only the image or PDF a tool read joins the response
that called the tool.  A record type the reader does not know is kept like the
other lines without an ordinal and counted (``ClaudeCodeReader.skipped``): it never
refuses a file, which is recognised by any of its first records naming a session.

Sessions are split by ``sessionId`` (several sessions concatenated in one file
come apart).  Sub-agent lines (``isSidechain``) form a child session
``<sessionId>:agent-<agentId>`` (or ``:sidechain-<root uuid>`` for old files
without ``agentId``), linked to the ``Task`` call that spawned it through the
result's ``agentId`` or, failing that, its prompt.

The file is read whole (sessions interleave with their sub-agents); memory is
about the size of the converted messages.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import orjson

from logparse._agentlines import (
    HOLD_LIMIT,
    Draft,
    iso_ms,
    json_object,
    latest_time,
    message_id,
    spill_due,
    spilled,
    tail_records,
    turn_stat,
)
from logparse.author import COMPACTION, HARNESS, HUMAN, PARENT, QUEUED, is_compaction_summary
from logparse.models import Problem
from logparse.opencode._lines import (
    LineCursor,
    iter_lines,
    json_head,
    parse_line,
    safe_text,
)
from logparse.request import is_injected, request_text
from logparse.resume import (
    MAX_STATE_BYTES,
    Diverged,
    PrefixIds,
    Resume,
    draft_from,
    draft_ref,
    draft_state,
    lines_from,
    lines_state,
    min_line,
    part_ref,
)
from logparse.source import RawMessage, SourceSession, TranscriptReader

RESUME_VERSION = "claude-code/3"
"""Bumped whenever the reader's state (:meth:`_File.snapshot`) changes meaning."""

MESSAGE_TYPES = frozenset({"user", "assistant"})
OTHER_TYPES = frozenset({"summary", "system", "queue-operation", "file-history-snapshot",
                         "progress", "custom-title", "ai-title", "agent-name", "tag",
                         "last-prompt", "pr-link", "attachment", "mode", "permission-mode",
                         "atis-latch", "api-request", "api-request-blob", "api-request-shape",
                         "tools-used", "cost-state"})
"""Record types this reader knows: read (titles, compaction, API errors, queued prompts)
or kept in the raw record of a message with nothing more to tell (snapshots, modes; and
since 2.1.332 the request each API call was made from, ``api-request`` with its
``api-request-shape`` and ``api-request-blob`` pieces, the running ``cost-state``, the
``tools-used`` tally, ``atis-latch``: recorded by ``fixtures/claude_record``).
Any other type is kept the same way and counted in ``ClaudeCodeReader.skipped``: a
record type never refuses a file."""
DETECT_LINES = 200
"""Records looked at to recognise a transcript (its first lines may all be of types
added since this reader was written)."""
TOOLS = {"Bash": "bash", "Read": "read", "Edit": "edit", "MultiEdit": "multiedit",
         "Write": "write", "Grep": "grep", "Glob": "glob", "LS": "list",
         "WebFetch": "webfetch", "WebSearch": "websearch", "Task": "task", "Agent": "task",
         "TodoWrite": "todowrite", "NotebookEdit": "edit", "NotebookRead": "read",
         "BashOutput": "bashoutput", "KillShell": "killshell", "KillBash": "killshell",
         "AskUserQuestion": "question", "TaskCreate": "todowrite", "TaskUpdate": "todowrite",
         "TaskList": "todoread", "TaskGet": "todoread", "TaskStop": "killshell"}
"""Claude Code's tools by the name the other readers use.  ``TaskCreate``/``TaskUpdate``
(the task list that replaced ``TodoWrite``; 2.1.332 offers no ``TodoWrite``) are
``todowrite`` calls whose ``todos`` is the whole list after the call (:meth:`_Conv.tasks`);
``TaskStop`` stops a background run."""
TASK_LIST_TOOLS = frozenset({"TaskCreate", "TaskUpdate"})
TASK_WINDOW = 32
"""Task calls of one response whose lists wait for their answers; an earlier one stands as
its answer so far says (the work per call stays bounded)."""
_KEYS = {"file_path": "filePath", "notebook_path": "filePath", "old_string": "oldString",
         "new_string": "newString", "replace_all": "replaceAll"}
_EXIT = re.compile(r"^Exit code (-?\d+)")
_ABORT = ("The user doesn't want to proceed", "[Request interrupted by user",
          "The user doesn't want to take this action")


def is_claude_record(obj: Any) -> bool:
    """A record of a Claude Code transcript, whatever its type: a typed record naming its
    session (``sessionId``) or its place in the conversation (``uuid``/``parentUuid``).
    (Gemini CLI names its session too, but never in a typed record.)"""
    if not isinstance(obj, dict) or "info" in obj or "payload" in obj:
        return False
    typ = obj.get("type")
    if not isinstance(typ, str) or not typ:
        return False
    if typ in MESSAGE_TYPES:
        return "sessionId" in obj or "uuid" in obj or "parentUuid" in obj
    return isinstance(obj.get("sessionId"), str) or "parentUuid" in obj or \
        typ in ("summary", "file-history-snapshot")


def record_session(obj: dict[str, Any]) -> str | None:
    """The session a record is of, as the reader keys it: ``sessionId``, or
    ``<sessionId>:agent-<agentId>`` for a sub-agent's (``None``: an old sidechain without
    ``agentId``, whose key is its root's, or no session named)."""
    sid = obj.get("sessionId")
    if not isinstance(sid, str) or not sid:
        return None
    agent = obj.get("agentId")
    side = bool(obj.get("isSidechain"))
    if isinstance(agent, str) and agent and (side or obj.get("type") not in MESSAGE_TYPES):
        return f"{sid}:agent-{agent}"
    return None if side else sid


def queued_prompt(obj: dict[str, Any]) -> str | None:
    """The text of user input typed while the agent worked and handed to it mid-turn:
    an ``attachment`` of type ``queued_command`` (its ``prompt``)."""
    att = obj.get("attachment")
    if not isinstance(att, dict) or att.get("type") != "queued_command":
        return None
    text = _text_of(att.get("prompt"))
    return text if text.strip() else None


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(c.get("text", "") for c in content
                         if isinstance(c, dict) and isinstance(c.get("text"), str))
    return "" if content is None else orjson.dumps(content).decode()


def _author(obj: dict[str, Any], text: str, parent: str | None, human: str = HUMAN) -> str:
    """Who wrote a user line's text, by the record's own flags (:mod:`logparse.author`):
    ``isMeta`` (a skill's body, a slash command's expansion), the harness's wrappers and
    a slash command with no words of the user's are the harness's; the summary a
    compaction left (``isCompactSummary``, or its opener in builds without the flag) the
    compaction's; a sub-agent's line (``isSidechain``: the ``Task`` prompt) its parent
    agent's; else the human's (``human``: queued input's is ``queued``)."""
    if obj.get("isCompactSummary") or is_compaction_summary(text):
        return COMPACTION
    if obj.get("isMeta") or is_injected(text):
        return HARNESS
    if text.lstrip().startswith(("<command-name>", "<command-message>")) \
            and not request_text(text):
        return HARNESS  # a slash command with no words of the user's (``/compact``)
    if obj.get("isSidechain") or parent:
        return PARENT
    return human


def tool_input(name: str, inp: Any) -> dict[str, Any]:
    if not isinstance(inp, dict):
        return {"input": inp}
    out: dict[str, Any] = {_KEYS.get(k) or k: v for k, v in inp.items()}
    if name == "TodoWrite" and isinstance(inp.get("todos"), list):
        out["todos"] = [{"content": str(t.get("content", "")), "status": t.get("status"),
                         "priority": t.get("priority"), "activeForm": t.get("activeForm")}
                        for t in inp["todos"] if isinstance(t, dict)]
    return out


class ClaudeCodeReader(TranscriptReader):
    form = "claude-code"
    agent = "claude-code"
    description = "Claude Code transcript JSONL (~/.claude/projects/<project>/<session>.jsonl)"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        return any(is_claude_record(o) for o in json_head(path, head, DETECT_LINES))

    @classmethod
    def ends_at(cls, path: Path, session_id: str) -> int | None:
        return cls.records_end(tail_records(path), session_id)

    @classmethod
    def records_end(cls, records: Sequence[Any], session_id: str) -> int | None:
        return latest_time(records, lambda obj: record_session(obj) == session_id)

    resume: Resume | None = None
    """Where a reading of the file grown since may continue (set once the file was read
    to its end, if it holds one session and no sub-agent)."""
    resume_mark: str | None = None
    """The first message given after the point :attr:`resume` continues from."""

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None,
        resume: Resume | None = None,
    ) -> Iterator[SourceSession]:
        """With ``resume``: the file read on from there (:class:`Diverged` when the grown
        file needs what the state does not hold: read it whole)."""
        self.skipped = {}
        self.resume = None
        self.resume_mark = None
        f = _File(path, problems, self.skipped, self, resume)
        if resume is not None:
            if resume.reader != RESUME_VERSION:
                raise Diverged("another reader version")
            main: _Conv | None = f.restore(resume)
        else:
            main = f.first_main()
        if main is not None:
            stream = f.stream(main)
            if session_ids is None or main.key in session_ids:
                yield SourceSession(session_id=main.key, form=self.form, path=f.path,
                                    messages=stream, info=main.info, agent=self.agent)
            for _ in stream:  # drain what the consumer did not read
                pass
        f.finish()
        for c in f.convs.values():
            if c is main or not c.drafts or (session_ids is not None
                                              and c.key not in session_ids):
                continue
            if resume is not None:
                raise Diverged("a sub-agent or another session in the appended lines")
            yield SourceSession(session_id=c.key, form=self.form, path=f.path,
                                messages=c.messages(), info=c.info, agent=self.agent)
        for c in f.convs.values():  # lines no message could take: named, kept raw
            if session_ids is not None and c.key not in session_ids:
                continue
            for n, body in c.leftovers():
                problems.append(Problem(path=f.path, line=n, raw=safe_text(body),
                                        reason="a record of a session without a message "
                                               "to keep it; kept raw"))
        self.resume = f.point()


class _File:
    """One transcript file read line by line.  Its first main session is streamed; the
    others (sub-agents, further sessions) are held until the end of the file."""

    def __init__(self, path: Path, problems: list[Problem],
                 skipped: dict[str, int] | None = None, owner: ClaudeCodeReader | None = None,
                 resume: Resume | None = None) -> None:
        self.path = str(path)
        self.problems = problems
        self.skipped: dict[str, int] = {} if skipped is None else skipped
        """Records of types this reader does not know, by type (kept raw)."""
        self.owner = owner
        self.cursor = LineCursor()
        self.resuming = resume is not None
        self.lines = iter_lines(path, self.cursor,
                                (resume.offset, resume.line) if resume is not None else None)
        self._snap: tuple[int, int, bytes, int, int] | None = None
        """(offset, line, state JSON, first line referred to, problems before the end)"""
        self.convs: dict[str, _Conv] = {}
        self.side_root: dict[str, str] = {}  # sidechain uuid -> its session key
        self.loose: list[tuple[int, bytes, dict[str, Any]]] = []  # lines before any session
        self.current: _Conv | None = None
        self.main: _Conv | None = None
        self.done = False

    def first_main(self) -> _Conv | None:
        """Read until the first line of a (non-sidechain) session; that session."""
        for n, body, nl in self.lines:
            if not nl:
                self._snap = (-1, 0, b"", 0, 0)  # not read whole before the session: no resume
            self._checked(n, body, nl)
            if self.main is not None:
                return self.main
        self.done = True
        return None

    def stream(self, main: _Conv) -> Iterator[Any]:
        yield from main.ready()
        for n, body, nl in self.lines:
            if not nl:  # the last line, perhaps not written whole: read again next time
                self.snapshot(main)
            self._checked(n, body, nl)
            if len(main.drafts) > 1:
                if self._snap is None:
                    yield from main.ready()
                else:
                    yield from self._marked(main.ready())
        self.done = True
        self.snapshot(main)
        yield from self._marked(main.messages())

    def _marked(self, messages: Iterator[Any]) -> Iterator[Any]:
        owner = self.owner
        if owner is None or owner.resume_mark is not None:
            yield from messages
            return
        for m in messages:
            if owner.resume_mark is None:
                owner.resume_mark = m.info["id"]
            yield m

    # -- resume-at-offset ------------------------------------------------------------
    def snapshot(self, main: _Conv) -> None:
        """The state a reading of the grown file continues from (taken once, before the
        line not read whole or at the file's end, before the end's flush)."""
        if self._snap is not None:
            return
        self._snap = (-1, 0, b"", 0, 0)  # taken (or refused): once
        if not self.cursor.ok or len(self.convs) != 1 or self.side_root or self.loose \
                or self.current is not main or main.task_calls:
            return  # (a task call not answered yet: the next reading is whole)
        c = main
        drafts = list(c.drafts)
        try:
            tools = []
            for cid, part in c.tools.items():
                ref = part_ref(drafts, part)
                if ref is None:
                    return
                tools.append([cid, ref])
            titles = []
            for t, leaf in c.titles:
                if leaf in c.seen:
                    mine = True
                elif leaf in c.prefix_leaves:
                    mine = True
                elif c.prefix is not None and c.prefix.maybe(leaf):
                    return  # cannot tell: the next reading is whole
                else:
                    mine = False
                titles.append([t, leaf, mine])
            state = {
                "key": c.key, "parent": c.parent,
                "drafts": [draft_state(d) for d in drafts],
                "by_mid": [[m, draft_ref(drafts, d)] for m, d in c.by_mid.items()],
                "tools": tools,
                "tool_draft": [[cid, draft_ref(drafts, d)] for cid, d in c.tool_draft.items()],
                "extra_lines": lines_state(c.extra_lines), "extra_parts": c.extra_parts,
                "failed": lines_state([(n, b) for n, b, _ in c.failed]),
                "info": c.info, "titles": titles, "root_prompt": c.root_prompt,
                "last_assistant": draft_ref(drafts, c.last_assistant),
                "last_time": c.last_time, "queued": c.queued,
                "removed": None if c.removed is None else
                [c.removed[0], c.removed[1].decode("utf-8"), c.removed[3]],
                "skipped": dict(self.skipped), "tasks": c.task_list}
            blob = orjson.dumps(state)
        except (TypeError, ValueError, UnicodeDecodeError):
            return
        if len(blob) > MAX_STATE_BYTES:
            return
        lines = [n for d in drafts for n in d.lines] + [n for n, _ in c.extra_lines] + \
            [n for n, _, _ in c.failed] + ([c.removed[0]] if c.removed else [])
        offset, line = self.cursor.at
        self._snap = (offset, line, blob, min_line(lines), len(self.problems))

    def point(self) -> Resume | None:
        """Where the next reading may continue (``None``: read whole)."""
        snap = self._snap
        main = self.main
        if snap is None or snap[0] < 0 or main is None or len(self.convs) != 1:
            return None
        offset, line, blob, first, end_from = snap
        ids = main.prefix.plus(main.seen) if main.prefix is not None else \
            PrefixIds.of(main.seen)
        return Resume(reader=RESUME_VERSION, offset=offset, line=line,
                      state=orjson.loads(blob), session_id=main.key, ids=ids.blob(),
                      first_line=first,
                      end_problems=[(p.line, p.reason) for p in self.problems[end_from:]
                                    if p.message_id is None])

    def restore(self, r: Resume) -> _Conv:
        """The session of a reading that continues at ``r``."""
        s = r.state
        c = _Conv(s["key"], s["parent"])
        drafts = [draft_from(d) for d in s["drafts"]]
        c.drafts.extend(drafts)
        c.by_mid = {m: drafts[i] for m, i in s["by_mid"]}
        c.tools = {cid: drafts[i].parts[j] for cid, (i, j) in s["tools"]}
        c.tool_draft = {cid: drafts[i] for cid, i in s["tool_draft"]}
        c.extra_lines, c.extra_parts = lines_from(s["extra_lines"]), s["extra_parts"]
        c.failed = [(n, b, orjson.loads(b)) for n, b in lines_from(s["failed"])]
        c.info = s["info"]
        c.titles = [(t, leaf) for t, leaf, _ in s["titles"]]
        c.prefix_leaves = {leaf for _, leaf, mine in s["titles"] if mine}
        c.root_prompt = s["root_prompt"]
        la = s["last_assistant"]
        c.last_assistant = drafts[la] if la is not None else None
        c.last_time, c.queued = s["last_time"], s["queued"]
        rm = s["removed"]
        if rm is not None:
            body = str(rm[1]).encode("utf-8")
            c.removed = (int(rm[0]), body, orjson.loads(body), rm[2])
        c.prefix = PrefixIds(r.ids)
        c.task_list = s["tasks"]
        self.skipped.update(s["skipped"])
        self.convs = {c.key: c}
        self.main = self.current = c
        return c

    def finish(self) -> None:
        if not self.done:
            for n, body, nl in self.lines:
                self._checked(n, body, nl)
            self.done = True
        for n, body, _ in self.loose:  # a file of summaries only, say: reported, not lost
            self.problems.append(Problem(path=self.path, line=n, raw=safe_text(body),
                                         reason="a record outside any session"))
        self.loose = []

    def _checked(self, n: int, body: bytes, nl: bool) -> None:
        """One line; a record whose fields have types the reader cannot use is named (file
        and line, its text kept with the problem) and the reading goes on."""
        try:
            self._line(n, body, nl)
        except (TypeError, ValueError, AttributeError, KeyError, OverflowError) as e:
            self.problems.append(Problem(
                path=self.path, line=n, raw=safe_text(body),
                reason=f"a Claude Code record of an unexpected shape ({type(e).__name__}: "
                       f"{str(e)[:120]}); kept raw"))

    def _line(self, n: int, body: bytes, nl: bool) -> None:
        obj, reason = parse_line(body, nl)
        if obj is None:
            self.problems.append(Problem(path=self.path, line=n, reason=reason or "unreadable",
                                         raw=safe_text(body)))
            return
        if reason:
            self.problems.append(Problem(path=self.path, line=n, reason=reason))
            body = orjson.dumps(obj)
        if not isinstance(obj, dict):
            self.problems.append(Problem(path=self.path, line=n, raw=safe_text(body),
                                         reason="not a Claude Code record (a JSON object)"))
            return
        self._record(n, body, obj)

    known = OTHER_TYPES
    """Record types that are not counted in :attr:`skipped`."""

    def _record(self, n: int, body: bytes, obj: dict[str, Any]) -> None:
        """One record (``body`` the line it was read from, kept raw)."""
        sid = obj.get("sessionId")
        typ = obj.get("type")
        if typ in MESSAGE_TYPES and isinstance(sid, str) and sid:
            key = sid
            side = bool(obj.get("isSidechain"))
            if side:
                agent = obj.get("agentId")
                if isinstance(agent, str) and agent:
                    key = f"{sid}:agent-{agent}"
                else:
                    parent = obj.get("parentUuid")
                    key = (self.side_root.get(parent) if isinstance(parent, str) else None
                           ) or f"{sid}:sidechain-{str(obj.get('uuid', n))[:8]}"
                if isinstance(obj.get("uuid"), str):
                    self.side_root[obj["uuid"]] = key
            conv = self.convs.get(key)
            if conv is None:
                if self.resuming:
                    raise Diverged("a sub-agent or another session in the appended lines")
                conv = self.convs[key] = _Conv(key, sid if key != sid else None)
                for item in self.loose:
                    conv.other(*item)
                self.loose = []
            if not side:
                self.current = conv
                if self.main is None:
                    self.main = conv
            had_root = conv.root_prompt
            conv.line(n, body, obj)
            if side and had_root is None and conv.root_prompt is not None:
                parent_conv = self.convs.get(sid)
                if parent_conv is not None:  # link the Task call that spawned it
                    parent_conv.link_child(conv.root_prompt, key)
        elif isinstance(typ, str):
            if typ not in self.known and typ not in MESSAGE_TYPES:
                self.skipped[typ] = self.skipped.get(typ, 0) + 1
            target = None
            if isinstance(sid, str):
                agent = obj.get("agentId")
                if isinstance(agent, str) and agent:
                    # a sub-agent's own file (``<session>/subagents/agent-<id>.jsonl``,
                    # 2.1.332) holds its attachments and API requests too
                    target = self.convs.get(f"{sid}:agent-{agent}")
                target = target or self.convs.get(sid)
            target = target or self.current
            if target is None:
                self.loose.append((n, body, obj))
            else:
                target.other(n, body, obj)
                target.spill()
        else:
            self.problems.append(Problem(path=self.path, line=n, raw=safe_text(body),
                                         reason="a JSON object without a record type"))


class _Conv:
    """One session (or sub-agent) being converted."""

    def __init__(self, key: str, parent: str | None) -> None:
        self.key = key
        self.parent = parent
        self.drafts: deque[Draft] = deque()
        self.by_mid: dict[str, Draft] = {}
        self.tools: dict[str, dict[str, Any]] = {}
        self.tool_draft: dict[str, Draft] = {}
        self.extra_lines: list[tuple[int, bytes]] = []
        self.extra_parts: list[dict[str, Any]] = []
        self.failed: list[tuple[int, bytes, dict[str, Any]]] = []
        """API error records (``system``/``api_error``) not yet followed by an answer."""
        self.seen: set[str] = set()
        self.info: dict[str, Any] = {"id": key}
        if parent:
            self.info["parentID"] = parent
        self.titles: list[tuple[str, str]] = []
        self.root_prompt: str | None = None
        self.last_assistant: Draft | None = None
        self.last_time = 0
        self.queued: str | None = None  # user input enqueued, not yet handed over
        self.removed: tuple[int, bytes, dict[str, Any], str] | None = None
        """Queued input taken off the queue, not yet known to be a message of its own."""
        self.prefix: PrefixIds | None = None
        """Resumed: hashes of the uuids met before the offset (:attr:`seen` has the rest)."""
        self.prefix_leaves: set[str] = set()
        """Resumed: title leaves met before the offset."""
        self.task_list: dict[str, dict[str, Any]] = {}
        """The session's task list (``TaskCreate``/``TaskUpdate``) by task id, in order,
        after the calls answered so far (:meth:`task_answered`)."""
        self.task_calls: list[dict[str, Any]] = []
        """Task calls from the first one not answered yet on, in call order."""
        self.task_outcome: dict[str, tuple[bool, str | None]] = {}
        """Of the calls in :attr:`task_calls` answered: succeeded?, the id a create got."""
        self.task_response: Draft | None = None
        """The response the calls in :attr:`task_calls` belong to."""

    # -- lines ---------------------------------------------------------------
    def other(self, n: int, body: bytes, obj: dict[str, Any]) -> None:
        typ = obj.get("type")
        prompt = queued_prompt(obj) if typ == "attachment" else None
        if typ == "queue-operation":
            op = obj.get("operation")
            content = _text_of(obj.get("content")) if obj.get("content") is not None else ""
            if op == "enqueue":
                self.queued = content if content.strip() else None
            elif op == "dequeue":  # handed over as the next user line
                self.queued = None
            elif op == "remove" and self.queued:
                # taken off the queue: handed over mid-turn (then no user line says it)
                # or pulled back to be typed again (then the next user line does); which
                # one shows at the next message line
                self.flush_queued()
                self.removed = (n, body, obj, self.queued)
                self.queued = None
                return
        if prompt is not None:  # handed over mid-turn: a prompt of its own
            if self.removed is not None and self.removed[3] == prompt:
                self.extra_lines.append(self.removed[:2])
                self.removed = None
            if obj.get("uuid") not in self.seen:
                self._not_before(obj.get("uuid"))
                if isinstance(obj.get("uuid"), str):
                    self.seen.add(obj["uuid"])
                self._queued_message(n, body, obj, prompt)
                return
        self.extra_lines.append((n, body))
        if typ == "cost-state":
            self.info["recorded"] = cost_state(obj)
        elif typ == "summary" and isinstance(obj.get("summary"), str):
            self.titles.append((obj["summary"], str(obj.get("leafUuid", ""))))
        elif typ in ("custom-title", "ai-title"):
            t = obj.get("customTitle") or obj.get("title") or obj.get("aiTitle")
            if isinstance(t, str):
                self.info["title"] = t
        elif typ == "system":
            sub = obj.get("subtype")
            content = _text_of(obj.get("content"))
            if sub == "compact_boundary":
                meta = json_object(obj.get("compactMetadata"))
                self.extra_parts.append({"type": "compaction", "id": obj.get("uuid"),
                                         "auto": meta.get("trigger") == "auto",
                                         "text": content or "conversation compacted"})
            elif sub == "turn_duration" and isinstance(obj.get("durationMs"), (int, float)) \
                    and not isinstance(obj.get("durationMs"), bool) and obj["durationMs"] > 0:
                self.extra_parts.append(turn_stat(obj["durationMs"], obj.get("uuid")))
            elif sub == "api_error" or obj.get("level") == "error":
                self.extra_lines.pop()  # the failed request's own message takes it
                self.failed.append((n, body, obj))
                self.extra_parts.append({"type": "retry", "id": obj.get("uuid"),
                                         "attempt": obj.get("retryAttempt"),
                                         "measurements": retry_readings(obj),
                                         "error": {"data": {"message": content
                                                            or _api_error_text(obj) or sub,
                                                            **_api_status(obj)}},
                                         "time": {"created": iso_ms(obj.get("timestamp"))}})

    def spill(self) -> None:
        """Held lines past :data:`~logparse._agentlines.SPILL_LINES` leave as a message of
        their own, made of the records it holds (nothing read is dropped; their types are
        counted as ever)."""
        if spill_due(self.extra_lines):
            self.drafts.append(spilled(self.extra_lines, self.key, uuid=""))
            self.extra_lines = []

    def _not_before(self, uuid: Any) -> None:
        """Resumed: a uuid that may have been met before the offset cannot be told from one
        that was not; the file is read whole."""
        if self.prefix is not None and isinstance(uuid, str) and self.prefix.maybe(uuid):
            raise Diverged(f"uuid {uuid} may repeat a line before the offset")

    def _queued_message(self, n: int, body: bytes, obj: dict[str, Any], prompt: str) -> None:
        ts = iso_ms(obj.get("timestamp"))
        d = self._new(n, body, "user", ts, obj)
        d.parts.append({"type": "text", "id": f"{n}.0", "text": prompt,
                        "time": {"start": ts}, "queued": True,
                        # (a background task's note is handed over queued too)
                        "author": _author({}, prompt, self.parent, QUEUED)})

    def flush_queued(self, said: str | None = None) -> None:
        """A prompt taken off the queue becomes a message unless ``said`` (the next user
        line's text) is that prompt."""
        if self.removed is None:
            return
        n, body, obj, prompt = self.removed
        self.removed = None
        if said is not None and said.strip() == prompt.strip():
            self.extra_lines.append((n, body))
        else:
            self._queued_message(n, body, obj, prompt)

    def line(self, n: int, body: bytes, obj: dict[str, Any]) -> None:
        uuid = obj.get("uuid")
        if isinstance(uuid, str):
            if uuid in self.seen:  # a line written twice (resume): the first one stands
                self.extra_lines.append((n, body))
                return
            if self.prefix is not None:
                self._not_before(uuid)
            self.seen.add(uuid)
        if self.removed is not None:
            msg = obj.get("message")
            said = _text_of(msg.get("content")) if isinstance(msg, dict) and \
                obj.get("type") == "user" else None
            self.flush_queued(said)
        for k_src, k_dst in (("cwd", "directory"), ("version", "version"),
                             ("gitBranch", "gitBranch"), ("slug", "slug")):
            v = obj.get(k_src)
            if isinstance(v, str) and v and k_dst not in self.info:
                self.info[k_dst] = v
        ts = iso_ms(obj.get("timestamp"))
        t = self.info.setdefault("time", {"created": ts, "updated": ts})
        if ts is not None:
            if t.get("created") is None:
                t["created"] = ts
            t["updated"] = ts
        msg = json_object(obj.get("message"))
        if obj.get("type") == "assistant":
            self._assistant(n, body, obj, msg, ts)
        else:
            self._user(n, body, obj, msg, ts)

    def _new(self, n: int, body: bytes, role: str, ts: int | None, obj: dict[str, Any],
             key: str | None = None) -> Draft:
        uuid = obj["uuid"] if isinstance(obj.get("uuid"), str) else ""
        info: dict[str, Any] = {"id": message_id(n, uuid[:8]), "sessionID": self.key,
                                "role": role, "time": {"created": ts}, "uuid": uuid}
        if isinstance(obj.get("cwd"), str):
            info["path"] = {"cwd": obj["cwd"]}
        if role != "assistant":
            self._unanswered()
            if self.task_calls:  # no answer comes after the next prompt
                self._task_settle()
        d = Draft(info, key, n)
        for ln, b in self.extra_lines:
            d.add_line(ln, b)
        self.extra_lines = []
        for ln, b, _ in self.failed:
            d.add_line(ln, b)
        self.failed = []
        d.add_line(n, body)
        if self.extra_parts:
            if role == "assistant":
                d.parts.extend(self.extra_parts)
            else:
                d.parts.extend(p for p in self.extra_parts
                               if p["type"] in ("compaction", "stat")
                               or p["type"].startswith("claude:"))
            self.extra_parts = []
        self.drafts.append(d)
        return d

    def _assistant(self, n: int, body: bytes, obj: dict[str, Any], msg: dict[str, Any],
                   ts: int | None) -> None:
        mid = msg.get("id") if isinstance(msg.get("id"), str) else None
        d = self.by_mid.get(mid) if mid else None
        if d is None:
            d = self._new(n, body, "assistant", ts, obj, mid)
            if mid:
                self.by_mid[mid] = d
        else:
            for ln, b in self.extra_lines:
                d.add_line(ln, b)
            self.extra_lines = []
            d.add_line(n, body)
        info = d.info
        if isinstance(msg.get("model"), str):
            info["modelID"] = msg["model"]
        if isinstance(msg.get("stop_reason"), str):
            # a reply cut at the output limit is opencode's ``length`` (what the turn rules
            # read, logparse.structural.TURN_RULES); other reasons are kept as written
            info["finish"] = _FINISH.get(msg["stop_reason"], msg["stop_reason"])
        if ts is not None:
            info["time"]["completed"] = ts
        usage = msg.get("usage")
        if isinstance(usage, dict):
            # the last streamed line of a response carries its final usage; the cached
            # parts stay apart from input, as opencode records them
            def count(key: str) -> int | None:
                v = usage.get(key)
                return v if isinstance(v, int) and not isinstance(v, bool) else None

            info["tokens"] = {"input": count("input_tokens"), "output": count("output_tokens"),
                              "cache": {"read": count("cache_read_input_tokens"),
                                        "write": count("cache_creation_input_tokens")}}
            # the part of the writes to the one-hour cache (billed at 2x input, the
            # five-minute cache at 1.25x)
            split = usage.get("cache_creation")
            if isinstance(split, dict):
                hour = split.get("ephemeral_1h_input_tokens")
                if isinstance(hour, int) and not isinstance(hour, bool):
                    info["tokens"]["cache"]["write_1h"] = hour
        if obj.get("isApiErrorMessage") or obj.get("error"):
            info["error"] = {"name": "APIError",
                             "data": {"message": _text_of(msg.get("content"))[:2000]
                                      or str(obj.get("error"))}}
            status = obj.get("apiErrorStatus")  # 2.1.332: the HTTP status and error type
            if isinstance(status, int) and not isinstance(status, bool):
                info["error"]["data"]["statusCode"] = status
            if isinstance(obj.get("apiErrorType"), str):
                info["error"]["data"]["type"] = obj["apiErrorType"]
        content = msg.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        part: dict[str, Any] | None
        for i, b in enumerate(content if isinstance(content, list) else []):
            pid = f"{n}.{i}"
            if not isinstance(b, dict):
                d.parts.append({"type": "claude:block", "id": pid, "value": b})
                continue
            bt = b.get("type")
            if bt == "text":
                d.parts.append({"type": "text", "id": pid, "text": b.get("text") or "",
                                "time": {"start": ts}})
            elif bt == "thinking":
                d.parts.append({"type": "reasoning", "id": pid, "text": b.get("thinking") or "",
                                "time": {"start": ts}})
            elif bt == "redacted_thinking":
                continue  # encrypted: nothing to read (kept in raw)
            elif bt in ("tool_use", "server_tool_use"):
                name = str(b.get("name") or "")
                tool = TOOLS.get(name) or (name if name.startswith("mcp__") else name.lower())
                cid = b["id"] if isinstance(b.get("id"), str) else pid
                part = {"type": "tool", "id": cid, "callID": cid, "tool": tool,
                        "state": {"status": "running", "input": tool_input(name, b.get("input")),
                                  "time": {"start": ts}, "metadata": {"claudeTool": name}}}
                if tool == "task":
                    part["state"]["title"] = json_object(b.get("input")).get("description")
                d.parts.append(part)
                if name in TASK_LIST_TOOLS:
                    self.task_called(part, d)
                self.tools[cid] = part
                self.tool_draft[cid] = d
                d.open += 1
            elif bt == "web_search_tool_result":
                part = self.tools.get(str(b.get("tool_use_id")))
                if part is not None:
                    self._answer(part, b, None, ts)
            else:
                d.parts.append({"type": f"claude:block/{bt}", "id": pid, "block": b})
        self.last_assistant = d

    def _user(self, n: int, body: bytes, obj: dict[str, Any], msg: dict[str, Any],
              ts: int | None) -> None:
        content = msg.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else (
            content if isinstance(content, list) else [])
        results = [b for b in blocks if isinstance(b, dict) and b.get("type") == "tool_result"]
        rest = [b for b in blocks if not (isinstance(b, dict) and b.get("type") == "tool_result")]
        holder: Draft | None = None
        for b in results:
            cid = str(b.get("tool_use_id"))
            part = self.tools.get(cid)
            if part is None:  # a result whose call is not in this file
                part = {"type": "tool", "id": cid, "callID": cid, "tool": "unknown",
                        "state": {"status": "running", "input": {}, "time": {"start": ts},
                                  "metadata": {}}}
                target = self.last_assistant
                if target is None:
                    # the file opens with results (their calls in the file before: a
                    # session split between calls and results): one message holds them
                    # all, as the response that made the calls holds them in one file
                    target = self.last_assistant = self._new(n, body, "assistant", ts, obj)
                target.parts.append(part)
                target.open += 1
                self.tools[cid] = part
                self.tool_draft[cid] = target
            self._answer(part, b, obj.get("toolUseResult"), ts, denial(obj))
            if part["state"]["metadata"].get("claudeTool") in TASK_LIST_TOOLS:
                self.task_answered(part, obj.get("toolUseResult"))
            d = self.tool_draft.get(cid)
            if d is not None:
                d.open -= 1
                holder = holder or d
        if results and not rest:
            target = holder or self.drafts[-1]
            if n not in target.lines:
                for ln, b2 in self.extra_lines:
                    target.add_line(ln, b2)
                self.extra_lines = []
                target.add_line(n, body)
            return
        if obj.get("isMeta") and not results and rest and self.last_assistant is not None \
                and all(isinstance(b, dict) and b.get("type") in ("image", "document")
                        for b in rest):
            # a file a tool read (a PDF, an image), sent as a meta user line in the middle
            # of the response that called the tool: part of that response, not a prompt
            target = self.last_assistant
            for ln, b2 in self.extra_lines:
                target.add_line(ln, b2)
            self.extra_lines = []
            target.add_line(n, body)
            for i, b in enumerate(rest):
                src = json_object(b.get("source"))
                target.parts.append({"type": "file", "id": f"{n}.{i}",
                                     "mime": src.get("media_type") or b.get("type"),
                                     "filename": src.get("url") or b.get("type")})
            return
        if obj.get("isCompactSummary"):  # the summary that replaced the history
            d = self._new(n, body, "assistant", ts, obj)
            d.info["summary"] = True
            d.info["mode"] = "compaction"
            d.parts.append({"type": "text", "id": f"{n}.0", "text": _text_of(content),
                            "time": {"start": ts}})
            return
        d = self._new(n, body, "user", ts, obj)
        for i, b in enumerate(rest):
            pid = f"{n}.{i}"
            if not isinstance(b, dict):
                d.parts.append({"type": "claude:block", "id": pid, "value": b})
                continue
            bt = b.get("type")
            if bt == "text":
                text = b.get("text") or ""
                part = {"type": "text", "id": pid, "text": text, "time": {"start": ts},
                        "author": _author(obj, text, self.parent)}
                if obj.get("isMeta") or is_injected(text):
                    part["synthetic"] = True
                d.parts.append(part)
                if self.root_prompt is None and self.parent:
                    self.root_prompt = text
            elif bt in ("image", "document"):
                src = json_object(b.get("source"))
                d.parts.append({"type": "file", "id": pid,
                                "mime": src.get("media_type") or bt,
                                "filename": src.get("url") or bt})
            else:
                d.parts.append({"type": f"claude:block/{bt}", "id": pid, "block": b})

    def _answer(self, part: dict[str, Any], block: dict[str, Any], tur: Any,
                ts: int | None, denied: str | None = None) -> None:
        state = part["state"]
        text = _text_of(block.get("content"))
        meta = state["metadata"]
        state["time"]["end"] = ts
        if denied is not None:
            # the permission check said no before the tool ran (a rule, a hook, the user
            # at the prompt): the line's own fields say so, whatever the text
            meta["denied"] = denied
            state.update(status="error", error=f"denied ({denied}): {text}")
            return
        if isinstance(tur, dict):
            for k in ("agentId", "totalDurationMs", "totalTokens", "totalToolUseCount",
                      "interrupted", "returnCodeInterpretation", "filePath", "type"):
                if k in tur:
                    meta[k] = tur[k]
            meta["reported"] = reported(part["tool"], tur)
            if not meta["reported"]:
                del meta["reported"]
            if part["tool"] == "task" and isinstance(tur.get("agentId"), str):
                sid = self.parent or self.key
                meta["sessionId"] = f"{sid}:agent-{tur['agentId']}"
        aborted = tur.get("interrupted") is True if isinstance(tur, dict) else False
        if block.get("is_error") or aborted:
            if aborted or text.startswith(_ABORT):
                state.update(status="error", error=f"aborted: {text}" if
                             "aborted" not in text.lower() else text)
            else:
                state.update(status="error", error=text)
            m = _EXIT.match(text)
            if m:  # Bash: a non-zero exit is a result, not a tool failure
                meta["exit"] = int(m.group(1))
                state.update(status="completed", output=text)
                state.pop("error", None)
                # the command's own output follows the tool's "Exit code N" line: what
                # the measurement rules read (a failed `wc -l`'s count is its first line)
                meta["body"] = [min(len(text), m.end() + 1), len(text)]
        else:
            state.update(status="completed", output=text)
            if part["tool"] == "bash":
                bg = tur.get("backgroundTaskId") if isinstance(tur, dict) else None
                if isinstance(bg, str) and bg:
                    # started in the background: its exit comes later, in a
                    # <task-notification> naming the call (kb.graph.store reads it)
                    meta["background"] = bg
                else:
                    meta["exit"] = 0

    def task_called(self, part: dict[str, Any], response: Draft) -> None:
        """A ``TaskCreate``/``TaskUpdate`` call: its ``todos`` are the task list after it,
        as far as the answers so far tell (:meth:`_task_lists`).  The calls of an earlier
        response than ``response`` are settled first: Claude Code sends every answer of a
        response before the next request, so what has none by now gets none."""
        if self.task_calls and self.task_response is not response:
            self._task_settle()
        self.task_response = response
        self.task_calls.append(part)
        if len(self.task_calls) > TASK_WINDOW:  # a response of very many task calls
            self.task_calls, head = self.task_calls[1:], self.task_calls[0]
            ok, tid = self.task_outcome.pop(head["callID"], (True, None))
            if ok:
                self._task_apply(self.task_list, head, tid)
            head["state"]["input"]["todos"] = task_items(self.task_list)
        self._task_lists()

    def task_answered(self, part: dict[str, Any], tur: Any) -> None:
        """A task call answered: one that succeeded changes the list (a create takes the
        number its result gave, ``toolUseResult.task.id``), one that failed (invalid input,
        refused) leaves it as it was.  Claude Code numbers only the creates that
        succeeded, so a failed create shifts no later number."""
        state = part["state"]
        task = tur.get("task") if isinstance(tur, dict) else None
        tid = task.get("id") if isinstance(task, dict) else None
        tid = str(tid) if isinstance(tid, (str, int)) and not isinstance(tid, bool) \
            and str(tid) else None
        self.task_outcome[part["callID"]] = (state.get("status") == "completed", tid)
        self._task_lists()

    def _task_lists(self) -> None:
        """The task list after each task call, in call order: the answered calls at the
        head fold into :attr:`task_list`; a call not answered yet counts as succeeding
        (answers of parallel calls come in any order)."""
        calls = self.task_calls
        while calls and calls[0]["callID"] in self.task_outcome:
            p = calls.pop(0)
            ok, tid = self.task_outcome.pop(p["callID"])
            if ok:
                self._task_apply(self.task_list, p, tid)
            p["state"]["input"]["todos"] = task_items(self.task_list)
        if not calls:
            return
        tasks = {k: dict(v) for k, v in self.task_list.items()}
        for p in calls:
            ok, tid = self.task_outcome.get(p["callID"], (True, None))
            if ok:
                self._task_apply(tasks, p, tid)
            p["state"]["input"]["todos"] = task_items(tasks)

    def _task_settle(self) -> None:
        """Task calls no answer will come to any more (a prompt came first): they stand as
        they are (one not answered counts as succeeding), and the list goes on from them
        (so a call left unanswered never makes every later one recount the list)."""
        for p in self.task_calls:
            ok, tid = self.task_outcome.pop(p["callID"], (True, None))
            if ok:
                self._task_apply(self.task_list, p, tid)
            p["state"]["input"]["todos"] = task_items(self.task_list)
        self.task_calls = []
        self.task_outcome = {}

    @staticmethod
    def _task_apply(tasks: dict[str, dict[str, Any]], part: dict[str, Any],
                    tid: str | None) -> None:
        """One task call applied to ``tasks``.  Claude Code numbers a session's tasks from
        1 (``Task #1 created``); an update names its ``taskId``, a status of ``deleted``
        drops the task."""
        name = part["state"]["metadata"].get("claudeTool")
        inp = part["state"]["input"]
        if name == "TaskCreate":
            if tid is None:
                ids = [int(k) for k in tasks if k.isdigit()]
                tid = str(max(ids, default=0) + 1)
            tasks[tid] = {"content": str(inp.get("subject") or inp.get("description") or ""),
                          "status": "pending", "activeForm": inp.get("activeForm")}
            return
        tid = str(inp.get("taskId") or "")
        item = tasks.get(tid)
        if item is None and tid:
            item = tasks[tid] = {"content": f"task #{tid}", "status": "pending",
                                 "activeForm": None}
        if item is not None:
            if inp.get("status") == "deleted":
                del tasks[tid]
            else:
                if isinstance(inp.get("status"), str):
                    item["status"] = inp["status"]
                if isinstance(inp.get("subject"), str):
                    item["content"] = inp["subject"]

    # -- results ---------------------------------------------------------------
    def link_child(self, prompt: str, child: str) -> None:
        """A sub-agent started with ``prompt``: the open Task call that asked it spawned it."""
        for part in self.tools.values():
            if part["tool"] == "task" and "sessionId" not in part["state"]["metadata"] \
                    and part["state"]["input"].get("prompt") == prompt:
                part["state"]["metadata"]["sessionId"] = child
                return

    def ready(self) -> Iterator[Any]:
        """Messages that can leave: done (no call waiting) and not the newest."""
        q = self.drafts
        while len(q) > 1 and (q[0].open <= 0 or len(q) > HOLD_LIMIT):
            yield self._emit(q.popleft())

    def _emit(self, d: Draft) -> Any:
        if d.key and self.by_mid.get(d.key) is d:
            del self.by_mid[d.key]
        if self.last_assistant is d:
            self.last_assistant = None
        for cid in [c for c, dd in self.tool_draft.items() if dd is d]:
            del self.tool_draft[cid]
            self.tools.pop(cid, None)
        t = d.info["time"]
        c = t.get("created")
        if not isinstance(c, int) or c < self.last_time:
            t["created"] = self.last_time
        else:
            self.last_time = c
        if len(self.drafts) == 0:
            self.info.update(self.session_info())
        return d.message()

    def session_info(self) -> dict[str, Any]:
        info = dict(self.info)
        if "title" not in info and self.titles:
            mine = [t for t, leaf in self.titles if leaf in self.seen or self._met_before(leaf)]
            info["title"] = (mine or [self.titles[-1][0]])[-1]
        if self.parent and "title" not in info and self.root_prompt:
            first = self.root_prompt.strip().splitlines()[0] if self.root_prompt.strip() else ""
            info["title"] = first[:80] or None
        return info

    def _met_before(self, leaf: str) -> bool:
        if leaf in self.prefix_leaves:
            return True
        if self.prefix is not None and self.prefix.maybe(leaf):
            raise Diverged(f"title leaf {leaf} may be a line before the offset")
        return False

    def _unanswered(self) -> None:
        """API errors that no answer followed (the user spoke next, or the file ends):
        the request failed, so they become the assistant message that failed, as
        opencode records a provider error (``error`` APIError, one retry part each)."""
        if not self.failed:
            return
        n, _, first = self.failed[0]
        last = self.failed[-1][2]
        uuid = first["uuid"] if isinstance(first.get("uuid"), str) else ""
        info: dict[str, Any] = {
            "id": message_id(n, uuid[:8]), "sessionID": self.key, "role": "assistant",
            "time": {"created": iso_ms(first.get("timestamp")),
                     "completed": iso_ms(last.get("timestamp"))},
            "uuid": uuid, "error": {"name": "APIError", "data": {
                "message": (_api_error_text(last) or "provider error")[:2000],
                **_api_status(last)}}}
        d = Draft(info, None, n)
        for ln, b, _ in self.failed:
            d.add_line(ln, b)
        d.parts.extend(p for p in self.extra_parts if p["type"] == "retry")
        self.extra_parts = [p for p in self.extra_parts if p["type"] != "retry"]
        self.failed = []
        self.drafts.append(d)

    def messages(self) -> Iterator[Any]:
        self.flush_queued()
        if self.failed and (not self.drafts or self.drafts[-1].info["role"] != "assistant"):
            self._unanswered()
        if self.extra_lines and self.drafts:  # trailing lines join the last message
            for ln, b in self.extra_lines:
                self.drafts[-1].add_line(ln, b)
            self.extra_lines = []
        if self.failed and self.drafts:
            for ln, b, _ in self.failed:
                self.drafts[-1].add_line(ln, b)
            self.failed = []
        if self.extra_parts and self.drafts:
            last = self.drafts[-1]
            last.parts.extend(p for p in self.extra_parts if last.info["role"] == "assistant"
                              or p["type"] == "compaction" or p["type"].startswith("claude:"))
            self.extra_parts = []
        while self.drafts:
            yield self._emit(self.drafts.popleft())

    def leftovers(self) -> list[tuple[int, bytes]]:
        """Lines read for this session that no message took (it has none left to join)."""
        out, self.extra_lines = self.extra_lines, []
        return out


def task_items(tasks: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    """A task list as ``todowrite`` items, in the order the tasks were created."""
    return [{"content": t["content"], "status": t["status"], "priority": None,
             "activeForm": t["activeForm"]} for t in tasks.values()]


def denial(obj: dict[str, Any]) -> str | None:
    """How the permission check refused the call a ``tool_result`` line answers, from the
    line's own fields (2.1.332): ``toolDenialKind`` (``permission-rule``, ...), else the
    source of a ``permissionDecision`` whose decision is ``reject``; ``None`` when the
    call was allowed (or the line is older than these fields)."""
    kind = obj.get("toolDenialKind")
    if isinstance(kind, str) and kind:
        return kind
    dec = obj.get("permissionDecision")
    if isinstance(dec, dict) and dec.get("decision") in ("reject", "deny"):
        src = dec.get("source")
        return src if isinstance(src, str) and src else "denied"
    return None


_SUBAGENT_STATS = (("totalDurationMs", "ms", "subagent duration"),
                   ("totalToolUseCount", "tool uses", "subagent tool uses"),
                   ("totalTokens", "tokens", "subagent tokens"))
"""What a Task result (``toolUseResult``) reports of the sub-agent's run."""


def reported(tool: str, tur: dict[str, Any]) -> list[dict[str, Any]]:
    """What a tool result's own fields (``toolUseResult``) report as measurements: a read
    file's length (``file.totalLines``), a sub-agent's run time, tool uses and tokens."""
    out: list[dict[str, Any]] = []
    if tool == "task":
        for key, unit, label in _SUBAGENT_STATS:
            v = tur.get(key)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
                out.append({"value": float(v), "unit": unit, "label": label})
    f = tur.get("file")
    if tool == "read" and isinstance(f, dict):
        v = f.get("totalLines")
        if isinstance(v, int) and not isinstance(v, bool) and v > 0:
            name = str(f.get("filePath") or "").replace("\\", "/").rsplit("/", 1)[-1]
            out.append({"value": float(v), "unit": "lines", "label": f"{name} length".strip()})
    return out


_FINISH = {"max_tokens": "length", "model_context_window_exceeded": "length"}
"""Anthropic stop reasons that say the reply was cut (the Messages API's ``max_tokens``;
``model_context_window_exceeded`` of newer models), as opencode names it."""


_RETRY_FIELDS = (("retryAttempt", "attempts", "API retry attempt"),
                 ("maxRetries", "retries", "API max retries"),
                 ("retryInMs", "ms", "API retry in"))
"""What an ``api_error`` record says of the harness's retries of the failed request."""


def retry_readings(obj: dict[str, Any]) -> list[dict[str, Any]]:
    """The harness's retry of a failed API request (``system``/``api_error``): which
    attempt it was, of how many, and the wait before the next (to 0.1 ms: ``561.1``):
    plumbing (:mod:`logparse.measure_plumbing`), never a reading of the work."""
    out: list[dict[str, Any]] = []
    for key, unit, label in _RETRY_FIELDS:
        v = obj.get(key)
        if isinstance(v, (int, float)) and not isinstance(v, bool) and v > 0:
            out.append({"value": round(float(v), 1), "unit": unit, "label": label})
    return out


def _api_status(obj: dict[str, Any]) -> dict[str, int]:
    """``{"statusCode": N}`` from an ``api_error`` record's ``error.status`` (the HTTP
    status of the failed request, in opencode's field name), else ``{}``."""
    err = obj.get("error")
    status = err.get("status") if isinstance(err, dict) else None
    if isinstance(status, int) and not isinstance(status, bool):
        return {"statusCode": status}
    return {}


def _api_error_text(obj: dict[str, Any]) -> str:
    """The provider's message of an ``api_error`` record (``error.error.error.message``,
    with its HTTP status), else ``""``."""
    err = obj.get("error")
    status = err.get("status") if isinstance(err, dict) else None
    while isinstance(err, dict) and not isinstance(err.get("message"), str):
        err = err.get("error")
    text = err["message"] if isinstance(err, dict) else ""
    if text and isinstance(status, int) and not isinstance(status, bool):
        return f"{status}: {text}"
    return text


def _num(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


_COST_STATE = (("totalCostUSD", "cost"), ("totalDuration", "durationMs"),
               ("totalAPIDuration", "apiDurationMs"), ("totalLinesAdded", "linesAdded"),
               ("totalLinesRemoved", "linesRemoved"))
"""What a ``cost-state`` record says of the session so far, by the name logkb keeps it
under (the session info's ``recorded``)."""


def cost_state(obj: dict[str, Any]) -> dict[str, Any]:
    """The session's own running figures from a ``cost-state`` record (2.1.332): what
    Claude Code counted the session cost (USD, its own price table, the runs a
    ``--resume`` continued included), its wall and API time and the lines it changed.
    The last record of a session is its figures (each one is the total so far)."""
    out: dict[str, Any] = {"by": "cost-state"}
    for src, dst in _COST_STATE:
        v = _num(obj.get(src))
        if v is not None and v >= 0:
            out[dst] = v
    if obj.get("hasUnknownModelCost") is True:
        out["unknownModelCost"] = True
    return out


def response_ids(records: Sequence[Any]) -> set[str]:
    """The API response ids (``message.id``) of the assistant records among ``records``."""
    out: set[str] = set()
    for r in records:
        if isinstance(r, dict) and r.get("type") == "assistant":
            m = r.get("message")
            if isinstance(m, dict) and isinstance(m.get("id"), str) and m["id"]:
                out.add(m["id"])
    return out


def call_links(records: Sequence[Any]) -> tuple[set[str], set[str]]:
    """``(open, answered)``: the ids of the tool calls (``tool_use``) among ``records``
    whose result is not among them, and of the results (``tool_result``) among them whose
    call is not: where a session split over two files joins across them (the call written
    before the file ended, its result the first line of the next)."""
    calls, results = _calls(records)
    return calls - results, results - calls


def _calls(records: Sequence[Any]) -> tuple[set[str], set[str]]:
    """``(calls, results)``: the ids of the tool calls among ``records`` and of the calls
    their results answer."""
    calls: set[str] = set()
    results: set[str] = set()
    for r in records:
        m = r.get("message") if isinstance(r, dict) else None
        content = m.get("content") if isinstance(m, dict) else None
        if not isinstance(content, list):
            continue
        typ = r.get("type")
        for b in content:
            if not isinstance(b, dict):
                continue
            if typ == "assistant" and b.get("type") in ("tool_use", "server_tool_use") \
                    and isinstance(b.get("id"), str):
                calls.add(b["id"])
            elif typ == "user" and b.get("type") == "tool_result" \
                    and isinstance(b.get("tool_use_id"), str):
                results.add(b["tool_use_id"])
    return calls, results


def _links(record: Any, ids: set[str]) -> bool:
    """Whether ``record`` holds a call or a result of one of the calls ``ids``."""
    m = record.get("message") if isinstance(record, dict) else None
    content = m.get("content") if isinstance(m, dict) else None
    return isinstance(content, list) and any(
        isinstance(b, dict) and (b.get("id") in ids or b.get("tool_use_id") in ids)
        for b in content)


def _identity(record: Any) -> bytes:
    """What tells one record from another across copies of a file: its ``uuid`` (a line
    copied into another file keeps it), else the whole record."""
    uuid = record.get("uuid") if isinstance(record, dict) else None
    if isinstance(uuid, str) and uuid:
        return b"u:" + uuid.encode()
    return b"r:" + orjson.dumps(record, option=orjson.OPT_SORT_KEYS)


def _timed(pairs: list[tuple[int, Any]]) -> list[tuple[int, int, Any]]:
    """``(time, line, record)``: a record without a ``timestamp`` takes the next timed
    record's (it is written just before what it belongs to), the last ones the one before."""
    out: list[tuple[int, int, Any]] = []
    nxt: int | None = None
    for n, r in reversed(pairs):
        t = iso_ms(r.get("timestamp")) if isinstance(r, dict) else None
        nxt = t if t is not None else nxt
        out.append((nxt if nxt is not None else -1, n, r))
    out.reverse()
    last = -1
    for i, (t, n, r) in enumerate(out):
        if t < 0:
            out[i] = (last, n, r)
        else:
            last = t
    return out


HELD = "held"
""":func:`merge_response`: the stored copy holds every record of the incoming one, and
blocks of the response it lacks (an earlier state of it, or a part of what was merged)."""
MERGED = "merged"
""":func:`merge_response`: each copy holds blocks of the response the other lacks."""


def merge_response(stored: bytes | str, incoming: bytes, path: str,
                   message_id_: str) -> tuple[str, RawMessage | None]:
    """One API response whose lines two copies hold (a session resumed into a new file
    writes the same ``message.id`` again, a content block a line), or whose tool call one
    copy holds and the call's result the other (a session split between a call and its
    result: the result line is the next file's first, read there as a message of its own,
    a call of an unknown tool).  :data:`MERGED` and the message read from the records of
    both, each once (the same ``uuid``, or the same record), in time order (each copy's
    own order kept), under ``message_id_``, when each copy holds blocks of it the other
    lacks (a call, a result); :data:`HELD` when the stored copy holds every record of the
    incoming one and blocks it lacks (nothing to read from it); ``""`` otherwise (neither
    a response id in common nor a call one answers, the incoming copy a later state of
    it, records that read as more than one message: the ingest's other rules decide)."""
    none = ("", None)
    try:
        old, new = orjson.loads(stored), orjson.loads(incoming)
    except orjson.JSONDecodeError:
        return none
    pairs: list[list[tuple[int, Any]]] = []
    for doc in (old, new):
        lines = doc.get("lines") if isinstance(doc, dict) else None
        recs = doc.get("records") if isinstance(doc, dict) else None
        if not (isinstance(lines, list) and isinstance(recs, list) and len(lines) == len(recs)
                and all(isinstance(n, int) and not isinstance(n, bool) for n in lines)):
            return none
        pairs.append(list(zip(lines, recs)))
    a, b = pairs
    shared = response_ids([r for _, r in a]) & response_ids([r for _, r in b])
    # a call one copy holds and its result the other (either maybe holding both: a merge
    # of them stored)
    (calls_a, results_a), (calls_b, results_b) = (
        _calls([r for _, r in a]), _calls([r for _, r in b]))
    linked = (calls_a & results_b) | (calls_b & results_a)
    if not shared and not linked:
        return none

    def block(r: Any) -> bool:
        m = r.get("message") if isinstance(r, dict) and r.get("type") == "assistant" else None
        return (isinstance(m, dict) and m.get("id") in shared) or (
            bool(linked) and _links(r, linked))

    have: dict[bytes, int] = {}
    for _, r in a:
        k = _identity(r)
        have[k] = have.get(k, 0) + 1
    extra: list[tuple[int, Any]] = []
    for n, r in b:
        k = _identity(r)
        if have.get(k, 0) > 0:
            have[k] -= 1
        else:
            extra.append((n, r))
    mine = {_identity(r) for _, r in b}
    if not any(block(r) and _identity(r) not in mine for _, r in a):
        return none  # the incoming copy holds every block the stored one has
    if not extra:
        return HELD, None
    if not any(block(r) for _, r in extra):
        return none
    # both hold blocks the other lacks: merged by time, each copy's order kept
    x, y = _timed(a), _timed(extra)
    merged: list[tuple[int, Any]] = []
    i = j = 0
    while i < len(x) or j < len(y):
        if j >= len(y) or (i < len(x) and x[i][0] <= y[j][0]):
            merged.append((x[i][1], x[i][2]))
            i += 1
        else:
            merged.append((y[j][1], y[j][2]))
            j += 1
    # read as one file (the lines of two files share numbers: read at their places in
    # the merge, stored at their own)
    problems: list[Problem] = []
    f = _File(Path(path), problems)
    f.lines = iter([(i, orjson.dumps(r), True) for i, (_, r) in enumerate(merged, 1)])
    main = f.first_main()
    if main is None:
        return none
    out = list(f.stream(main))
    if len(out) != 1 or out[0].info.get("role") != "assistant" or problems:
        return none
    msg = out[0]
    doc = orjson.loads(msg.raw)
    if doc.get("lines") != list(range(1, len(merged) + 1)):
        return none  # a record the reading left out: nothing merged rather than lost
    doc["lines"] = [n for n, _ in merged]
    msg.info["id"] = message_id_
    msg.raw = orjson.dumps(doc)
    msg.line = merged[0][0]
    return MERGED, msg
