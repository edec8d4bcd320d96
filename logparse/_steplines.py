"""What the Gemini CLI, pi and Antigravity readers share: records of a JSON-lines file
turned into drafts in file order, handed out as they are done.

A record may change a message met earlier (Gemini CLI writes a message again, with its
tool calls, under the same id; a pi or Antigravity tool result completes a call of an
earlier line), so a draft is held while a call of it waits for its result, and the
newest drafts are held (``keep``: one, or the few a reader may still rewrite); the rest
leave in file order as soon as they are done, so memory stays bounded by the drafts
held, never by the file (:class:`~logparse._agentlines.Ordered`, as in the Claude Code
reader).  A file that grew is read whole again (no resume point: see
:mod:`logparse.resume`).

Lines without an ordinal of their own (headers, updates, markers) join the raw record of
the next message (the last one at the end of the file), as in the Codex reader; a bad
line is a :class:`~logparse.models.Problem` naming the file and line, with its text.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from logparse._agentlines import SPILL_LINES, Draft, Ordered, message_id, spill_due, spilled
from logparse.models import Problem
from logparse.opencode._lines import json_records, safe_text
from logparse.source import RawMessage

SHAPE_ERRORS = (TypeError, ValueError, AttributeError, KeyError, OverflowError, IndexError)
"""What reading a record of an unexpected shape raises: named, the record kept raw."""


def records(path: Path, problems: list[Problem], what: str
            ) -> Iterator[tuple[int, bytes, dict[str, Any]]]:
    """``(line, body, record)`` for every line that is a JSON object; any other line is a
    problem with its line number and text (``what`` names the form in the reason)."""
    spath = str(path)
    # every line that parses: one that is no object is named below, after its salvage
    for n, body, obj, reason in json_records(path, problems, lambda _: True, "JSON"):
        if reason:  # salvaged invalid UTF-8: the record stored is the repaired one
            problems.append(Problem(path=spath, line=n, reason=reason))
            body = orjson.dumps(obj)
        if not isinstance(obj, dict):
            problems.append(Problem(path=spath, line=n, raw=safe_text(body),
                                    reason=f"not a {what} record (a JSON object)"))
            continue
        yield n, body, obj


class Drafts:
    """The messages of one file, in file order, with the lines that have no ordinal."""

    def __init__(self, sid: str, path: Path, problems: list[Problem], what: str,
                 keep: int = 1, gone: Callable[[Draft], None] | None = None) -> None:
        self.sid = sid
        self.path = str(path)
        self.problems = problems
        self.what = what
        self.q = Ordered()
        self.keep = keep
        """The newest drafts held whatever they wait for (a later record may change them)."""
        self.gone = gone
        """Called with each draft as it leaves (a reader drops what still points at it)."""
        self.pending: list[tuple[int, bytes]] = []
        self.model: str | None = None
        self.cwd: str | None = None

    @property
    def tail(self) -> Draft | None:
        return self.q.tail

    def new(self, n: int, body: bytes, role: str, ts: int | None,
            suffix: str = "", mid: str | None = None) -> Draft:
        """A message whose record is line ``n``; the lines waiting join it first.  Its id
        is ``mid`` when given (ids sort in file order), else one from the line."""
        info: dict[str, Any] = {"id": mid or message_id(n, suffix), "sessionID": self.sid,
                                "role": role, "time": {"created": ts}}
        if self.model and role == "assistant":
            info["modelID"] = self.model
        if self.cwd:
            info["path"] = {"cwd": self.cwd}
        d = Draft(info, line=n)
        for ln, b in self.pending:
            d.add_line(ln, b)
        self.pending = []
        d.add_line(n, body)
        self.q.add(d)
        return d

    def extra(self, n: int, body: bytes) -> None:
        """A line without an ordinal: it joins the next message (past
        :data:`~logparse._agentlines.SPILL_LINES` such lines, they are a message)."""
        self.pending.append((n, body))
        if spill_due(self.pending):
            self.q.add(spilled(self.pending, self.sid))
            self.pending = []

    def attach(self, n: int, body: bytes) -> Draft | None:
        """A line without an ordinal that joins the message before it (the next one if
        none); past :data:`~logparse._agentlines.SPILL_LINES` lines in that message, it
        opens a message of its own that the next such lines join (memory stays bounded).
        The message it joined."""
        tail = self.q.tail
        if tail is None:
            self.extra(n, body)
        elif len(tail.lines) < SPILL_LINES:
            tail.add_line(n, body)
        else:
            tail = spilled([(n, body)], self.sid)
            self.q.add(tail)
        return tail

    def shape_error(self, n: int, body: bytes, e: Exception) -> None:
        self.problems.append(Problem(
            path=self.path, line=n, raw=safe_text(body),
            reason=f"a {self.what} record of an unexpected shape ({type(e).__name__}: "
                   f"{str(e)[:120]}); kept raw"))

    def read(self, recs: Iterator[tuple[int, bytes, dict[str, Any]]],
             handle: Callable[[int, bytes, dict[str, Any]], None], *,
             stream: bool = True) -> Iterator[RawMessage]:
        """The messages of ``recs`` (:func:`records`), each record given to ``handle``: a
        record of an unexpected shape is a problem and joins the next message raw.  Done
        messages leave as they are done (:meth:`ready`) unless ``stream`` is false, when
        all of them leave at the end."""
        for n, body, obj in recs:
            try:
                handle(n, body, obj)
            except SHAPE_ERRORS as e:
                self.shape_error(n, body, e)
                self.extra(n, body)
            if stream:
                yield from self.ready()
        yield from self.finish()

    def ready(self) -> Iterator[RawMessage]:
        """The messages done so far (no call of theirs waiting, not among the newest
        ``keep``), in file order."""
        for d in self.q.take(self.keep):
            if self.gone is not None:
                self.gone(d)
            yield d.message()

    def finish(self) -> Iterator[RawMessage]:
        tail = self.q.tail
        if tail is not None:
            for ln, b in self.pending:
                tail.add_line(ln, b)
        else:  # no message to keep them: each named, its text kept with the problem
            for ln, b in self.pending:
                self.problems.append(Problem(path=self.path, line=ln, raw=safe_text(b),
                                             reason=f"a record of a {self.what} without any "
                                                    "message; kept raw"))
        self.pending = []
        yield from self.q.flush()


def session_name(value: Any, fallback: str, problems: list[Problem], path: Path,
                 what: str) -> str:
    """The session id a header gives, when it is a non-empty string; else ``fallback`` (from
    the file's name), and a problem naming the header (an id of ``null`` or ``""`` would
    otherwise make every such file one session)."""
    if isinstance(value, str) and value.strip():
        return value
    problems.append(Problem(path=str(path), record="header",
                            reason=f"the {what} header names no session id ({value!r:.40}); "
                                   f"the session is named after the file: {fallback}"))
    return fallback


def text_parts(content: Any) -> list[str]:
    """The texts of a content list (``[{"text": ...}]``) or a string."""
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    return [c["text"] for c in content if isinstance(c, dict) and isinstance(c.get("text"), str)]


def tool_part(call_id: str, tool: str, inp: dict[str, Any], ts: int | None,
              title: str | None = None) -> dict[str, Any]:
    """An opencode tool part, ``running`` until its result arrives."""
    return {"type": "tool", "id": call_id, "callID": call_id, "tool": tool,
            "state": {"status": "running", "input": inp, "title": title,
                      "time": {"start": ts}, "metadata": {}}}


def renamed(args: Any, keys: dict[str, str]) -> dict[str, Any]:
    """A call's arguments with the agent's key names mapped to opencode's (``file_path``
    to ``filePath``); other keys kept as they are."""
    if not isinstance(args, dict):
        return {"input": args}
    return {keys.get(str(k), str(k)): v for k, v in args.items()}
