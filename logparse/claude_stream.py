"""``claude -p --verbose --output-format stream-json`` output, saved with ``> run.jsonl``.

One JSON object per line: ``system`` (``subtype`` ``init`` opens each run: the working
directory, the model, ``claude_code_version``), ``assistant`` and ``user`` (an Anthropic
API ``message`` as in a transcript, with ``session_id``, ``uuid``, ``parent_tool_use_id``
and, on a tool's answer, ``tool_use_result``), and ``result`` closing each run
(``total_cost_usd``, ``duration_ms``, ``duration_api_ms``, ``num_turns``, ``is_error``,
``usage``).  Recognised by that shape, never by the file's name.

The records are read by the Claude Code reader (:mod:`logparse.claude_code`) once their
names are a transcript's (``session_id`` → ``sessionId``, ``tool_use_result`` →
``toolUseResult``, ``is_api_error_message`` → ``isApiErrorMessage`` …), so calls, answers,
denials, task lists and API errors mean the same in both.  What differs:

* The prompts are not in the stream (unless ``--replay-user-messages``): each run's
  ``init`` stands for its prompt, an inferred user message without text (as opencode's
  run stream), and the session is incomplete: a transcript of it, read later, replaces
  it.
* An ``assistant`` record is written before its response ended (``stop_reason`` null,
  ``output_tokens`` the streamed 1), so its token counts are not kept; the ``result``
  records are the session's own figures (session info ``recorded``: the cost Claude Code
  counted, ``total_cost_usd``, the total so far of a session a ``--resume`` continued;
  wall and API time, turns, the runs, those that ended in error, and the tokens, summed
  over the runs).
* A sub-agent's records (``parent_tool_use_id`` set) form the child session
  ``<session>:agent-<call id>``.

Unknown record types are kept raw and counted (``skipped``), as in a transcript.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any, TypeGuard

from logparse.claude_code import OTHER_TYPES, ClaudeCodeReader, _Conv, _File
from logparse.models import Problem
from logparse.opencode._lines import json_head, safe_text
from logparse.resume import Resume
from logparse.source import RawMessage, SourceSession

STREAM_TYPES = frozenset({"system", "assistant", "user", "result"})
_NAMES = {"session_id": "sessionId", "tool_use_result": "toolUseResult",
          "is_api_error_message": "isApiErrorMessage", "api_error_status": "apiErrorStatus",
          "api_error_type": "apiErrorType"}
"""stream-json field names → the transcript's."""


def is_stream_record(obj: Any) -> bool:
    """A record of ``--output-format stream-json``: a typed record naming its session as
    ``session_id`` (a transcript says ``sessionId``)."""
    typ = obj.get("type") if isinstance(obj, dict) else None
    return isinstance(typ, str) and typ in STREAM_TYPES \
        and isinstance(obj.get("session_id"), str) and "sessionId" not in obj \
        and (obj.get("subtype") == "init" or "parent_tool_use_id" in obj
             or (obj.get("type") == "result" and "num_turns" in obj))


def _amount(v: Any) -> TypeGuard[int | float]:
    """A figure a ``result`` may hold: a non-negative number, not a bool (JSON's
    ``true`` is an ``int`` to Python)."""
    return isinstance(v, (int, float)) and not isinstance(v, bool) and v >= 0


def _tokens(usage: Any) -> dict[str, int]:
    out: dict[str, int] = {}
    if isinstance(usage, dict):
        for src, dst in (("input_tokens", "input"), ("output_tokens", "output"),
                         ("cache_read_input_tokens", "cache_read"),
                         ("cache_creation_input_tokens", "cache_write")):
            v = usage.get(src)
            if _amount(v) and isinstance(v, int):  # a count of tokens: whole
                out[dst] = v
    return out


def _title(result: Any) -> str | None:
    """A run's ``result`` (its last reply) as a session's title: its first line that says
    something, cut to 80 columns as a title from a prompt is (``kb.ingest``)."""
    if not isinstance(result, str):
        return None
    line = next((x.strip() for x in result.splitlines() if x.strip()), "")
    return (line if len(line) <= 80 else line[:77] + "...") or None


class _StreamFile(_File):
    known = OTHER_TYPES | {"result"}

    def __init__(self, path: Path, problems: list[Problem], skipped: dict[str, int],
                 owner: ClaudeCodeReader) -> None:
        super().__init__(path, problems, skipped, owner)
        self.held: dict[str, tuple[int, bytes, dict[str, Any]]] = {}
        """A run's ``init`` whose prompt is placed when the run's next record comes."""
        self.inferred: set[str] = set()
        """Ids of the user messages that stand for a prompt the stream does not hold."""
        self.figures: dict[str, dict[str, Any]] = {}
        self.prompted: set[str] = set()
        """Sessions whose stream holds a prompt's own words (``--replay-user-messages``):
        the title comes from it, as a transcript's does."""
        self.titles: dict[str, str] = {}
        """A session's first run that ended well: its reply, what the title falls back
        to when the stream holds no prompt."""

    def _record(self, n: int, body: bytes, obj: dict[str, Any]) -> None:
        sid = obj.get("session_id")
        if not isinstance(sid, str) or not sid or "sessionId" in obj:
            super()._record(n, body, obj)
            return
        typ = obj.get("type")
        rec = {_NAMES.get(k, k): v for k, v in obj.items() if k != "session_id"}
        rec["sessionId"] = sid
        held = self.held.pop(sid, None)
        if typ == "system" and obj.get("subtype") == "init":
            if held is not None:  # a run that wrote nothing after its init
                self._prompt(*held, None)
            if isinstance(obj.get("claude_code_version"), str):
                rec["version"] = obj["claude_code_version"]
            self.held[sid] = (n, body, rec)
            return
        if held is not None:
            if typ == "user" and _said(rec):  # --replay-user-messages: the prompt itself
                self.prompted.add(sid)
                super()._record(held[0], held[1], {"type": "system", "sessionId": sid,
                                                   "subtype": "init"})
            else:
                self._prompt(*held, rec.get("timestamp"))
        if typ in ("assistant", "user"):
            parent = obj.get("parent_tool_use_id")
            if isinstance(parent, str) and parent:
                rec["isSidechain"] = True
                rec["agentId"] = parent
            msg = rec.get("message")
            if typ == "assistant" and isinstance(msg, dict) and msg.get("stop_reason") is None:
                # written while the response streamed: its usage is not the response's
                rec["message"] = {k: v for k, v in msg.items() if k != "usage"}
        elif typ == "result":
            self._result(sid, obj)
        super()._record(n, body, rec)

    def _prompt(self, n: int, body: bytes, init: dict[str, Any], ts: Any) -> None:
        """The user message a run's ``init`` stands for (its text is not in the stream)."""
        rec = {"type": "user", "sessionId": init["sessionId"], "uuid": init.get("uuid"),
               "cwd": init.get("cwd"), "version": init.get("version"), "timestamp": ts,
               "message": {"role": "user", "content": []}}
        super()._record(n, body, rec)
        conv = self.convs.get(init["sessionId"])
        if conv is not None and conv.drafts and conv.drafts[-1].line == n:
            self.inferred.add(conv.drafts[-1].info["id"])
            if isinstance(init.get("model"), str):
                conv.info.setdefault("model", init["model"])

    def _result(self, sid: str, obj: dict[str, Any]) -> None:
        f = self.figures.setdefault(sid, {"by": "result", "runs": 0, "errors": 0})
        f["runs"] += 1
        if obj.get("is_error") is True:
            f["errors"] += 1
            # what ended it, by kind (its ``result`` text is the reply: not kept here)
            status = obj.get("api_error_status")
            f["lastError"] = status if isinstance(status, int) and _amount(status) \
                else str(obj.get("subtype") or "error")[:80]
        elif sid not in self.titles and (title := _title(obj.get("result"))):
            self.titles[sid] = title
        cost = obj.get("total_cost_usd")
        if _amount(cost):
            f["cost"] = float(cost)  # Claude Code's total so far (a resume continues it)
        for src, dst in (("duration_ms", "durationMs"), ("duration_api_ms", "apiDurationMs"),
                         ("num_turns", "turns")):
            v = obj.get(src)
            if _amount(v):
                f[dst] = f.get(dst, 0) + v
        toks = f.setdefault("tokens", {})
        for k, v in _tokens(obj.get("usage")).items():
            toks[k] = toks.get(k, 0) + v
        conv = self.convs.get(sid)
        if conv is not None:
            conv.info["recorded"] = f

    def stream(self, main: _Conv) -> Iterator[Any]:
        """The first session's messages as the file is read (memory bounded by what a
        message holds, not by the file); the runs' ends are placed before its last."""
        yield from main.ready()
        for n, body, nl in self.lines:
            self._checked(n, body, nl)
            if len(main.drafts) > 1:
                yield from main.ready()
        self.done = True
        self._runs_end()
        yield from main.messages()

    def finish(self) -> None:
        super().finish()
        self._runs_end()

    def _runs_end(self) -> None:
        """What the end of the stream settles: a run cut after its ``init`` gets its
        prompt, each session its figures and, without a prompt, its title."""
        for sid, held in list(self.held.items()):  # a run cut after its init
            del self.held[sid]
            self._prompt(*held, None)
        for sid, f in self.figures.items():
            conv = self.convs.get(sid)
            if conv is not None:
                conv.info["recorded"] = f
        # the prompts are not in the stream: what the first run that ended well replied
        # names the session (``logkb sessions``, the TUI), as a prompt names a transcript;
        # a prompt the stream holds names it (the ingest's fallback), and a transcript read
        # later replaces it all
        for sid, title in self.titles.items():
            conv = self.convs.get(sid)
            if conv is not None and sid not in self.prompted:
                conv.info.setdefault("title", title)


def _said(rec: dict[str, Any]) -> bool:
    """A user record with something of its own (not only tools' answers)."""
    msg = rec.get("message")
    content = msg.get("content") if isinstance(msg, dict) else None
    if isinstance(content, str):
        return bool(content.strip())
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") != "tool_result" for b in content)


class ClaudeStreamReader(ClaudeCodeReader):
    form = "claude-stream"
    agent = "claude-code"
    description = "claude -p --output-format stream-json output (JSONL)"

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        return any(is_stream_record(o) for o in json_head(path, head, 20))

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None,
        resume: Resume | None = None,
    ) -> Iterator[SourceSession]:
        """Every session of the file: the first streamed as the file is read, the others
        (sub-agents, further runs of another session) held until its end."""
        self.skipped = {}
        self.resume = None
        self.resume_mark = None
        f = _StreamFile(path, problems, self.skipped, self)
        main = f.first_main()
        if main is not None:
            stream = f.stream(main)
            if session_ids is None or main.key in session_ids:
                yield SourceSession(session_id=main.key, form=self.form, path=f.path,
                                    messages=_marked(stream, f.inferred), info=main.info,
                                    agent=self.agent, complete=False)
            for _ in stream:  # drain what the consumer did not read
                pass
        f.finish()
        for c in f.convs.values():
            if c is main or not c.drafts or (session_ids is not None
                                              and c.key not in session_ids):
                continue
            yield SourceSession(session_id=c.key, form=self.form, path=f.path,
                                messages=_marked(c.messages(), f.inferred), info=c.info,
                                agent=self.agent, complete=False)
        for c in f.convs.values():
            if session_ids is not None and c.key not in session_ids:
                continue
            for n, body in c.leftovers():
                problems.append(Problem(path=f.path, line=n, raw=safe_text(body),
                                        reason="a record of a session without a message "
                                               "to keep it; kept raw"))


def _marked(messages: Iterator[RawMessage], inferred: set[str]) -> Iterator[RawMessage]:
    for m in messages:
        if m.info.get("id") in inferred:
            m.inferred = True
        yield m
