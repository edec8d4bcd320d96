"""Rewrites of a session: transcripts an author sanitised or summarised, and generic
role/text chat exports.  Read as what they are: NOT the agent's own output.

The forms met (``../shared/realworld/pool/trade_arena__*``):

- a sanitised Claude Code transcript: a header ``{"type": "sanitization_notice",
  "source": "Claude Code session", "project", "cwd", "sanitizedAt", "removed": [...]}``,
  then flat ``{"type": "message", "role", "timestamp", "text"}`` records (a tool call the
  author kept is only text in them: ``[tool_use:Bash {...}]``) and ``{"type": "title"}``;
- a hand- or LLM-written summary "Codex transcript": a header ``{"type": "session_meta",
  "source": "codex", "sanitization": {...}}`` (no ``payload``: Codex's own has one), then
  ``message`` records as above, ``tool_summary`` (``actions``, ``findings``) and
  ``file_change`` (``path``, ``summary``);
- any JSON-lines chat export of flat ``{"role", "text"|"content"}`` records (``type``
  ``message`` or none), with or without such a header.

**What is read**: each ``user`` or ``assistant`` message record is one message (in file
order, ordinals 1-based), its text one text part; ``system``/``developer`` messages are
user-side text marked synthetic.  The header gives the session's agent (its ``source``:
``Claude Code session`` is ``claude-code``) and what the rewrite says it removed; a
``title`` record the title.  **Nothing is invented**: a call written as text stays text
(no tool call, no exit code, no output), so no command, failure or measurement comes
from a rewrite but what its text says.

**Every line is kept**: the header and titles join the raw record of the next message;
a record of any other type (``tool_summary``, ``file_change``, a message of another role)
is kept the same way and counted (``skipped``); a line that is not a JSON object is a
problem with its text.  The file is read whole (these files are small; no resume point).

The session is marked incomplete (``complete = False``: the rewrite removed the tool
results) and its form is ``rewrite``, which ``sessions``, ``show``, the TUI and every
``--json`` name.  It is named ``<file stem>-<8 hex of the first line>``: a rewrite has no
session id, two files of one name in two folders are two sessions, and the name never
equals the agent's own session id (so a rewrite never replaces the session it rewrote).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from logparse._agentlines import iso_ms
from logparse._steplines import Drafts, records, text_parts
from logparse.models import Problem
from logparse.opencode._lines import first_line, head_records, json_head
from logparse.source import RawMessage, SourceSession, TranscriptReader

FORM = "rewrite"

ROLES = {"user": "user", "human": "user", "assistant": "assistant", "model": "assistant",
         "ai": "assistant", "system": "system", "developer": "system"}
"""A message record's role, as logkb stores it (``system``: user-side text, synthetic)."""

_TEXT_KEYS = ("text", "content")
_TIME_KEYS = ("timestamp", "created_at", "createdAt", "time")
_FOREIGN_KEYS = ("sessionId", "uuid", "parentUuid", "parentId", "payload", "info", "parts",
                 "message", "step_index", "messages")
"""Keys of the agents' own records (Claude Code, Codex, opencode, pi, Antigravity,
Gemini CLI): a record holding one is theirs, damaged perhaps, never a flat export's."""

AGENTS: tuple[tuple[str, str], ...] = (
    ("claude", "claude-code"),
    ("codex", "codex"),
    ("opencode", "opencode"),
    ("gemini", "gemini-cli"),
    ("antigravity", "antigravity"),
)
"""The agent a header's ``source`` names (a word it contains, lower case), first match
wins: ``"Claude Code session"`` (trade_arena__claude-session.jsonl) is ``claude-code``,
``"codex"`` (trade_arena__codex-session.jsonl) ``codex``.  A source naming none of them
(or no header) is ``unknown``."""

UNKNOWN_AGENT = "unknown"


@dataclass(frozen=True, slots=True)
class TextRule:
    """What a rewrite's message text is when it is not the speaker's own words (one row of
    :data:`TEXT_RULES`; ``example`` is a real text, trimmed, that the row matches)."""

    name: str
    role: str
    """The role of the messages the rule reads (``user`` or ``assistant``)."""
    pattern: re.Pattern[str]
    mark: str
    """``call``: a tool call the author kept as text (stored as synthetic text: no call is
    made of it, so it has no status, exit code or output); ``compaction``: the summary
    that replaced the history (a compaction marker, the text synthetic)."""
    example: str
    source: str
    """The line of ``fixtures/realworld_trim`` the example is (trimmed) from."""


TEXT_RULES: tuple[TextRule, ...] = (
    TextRule("tool-use-as-text", "assistant",
             re.compile(r"\A\s*\[tool_use:[^\s\]{]+ .*\]\s*\Z", re.S), "call",
             '[tool_use:Bash {"command":"ls $PROJECT_ROOT/app/src","description":"List app '
             'src directory"}]', "fixtures/realworld_trim/rewrite_claude.jsonl:6"),
    TextRule("claude-compact-summary", "user",
             re.compile(r"\A\s*This session is being continued from a previous conversation "
                        r"that ran out of context\."), "compaction",
             "This session is being continued from a previous conversation that ran out of "
             "context. The summary below covers the earlier portion",
             "fixtures/realworld_trim/rewrite_claude.jsonl:10"),
)
"""Texts of a rewrite that are not the speaker's words, first match wins.  Tested row by
row on ``example`` (both from ``trade_arena__claude-session.jsonl``, an unlabelled pool
file, as trimmed into ``source``)."""


def text_rule(role: str, text: str) -> TextRule | None:
    """The row of :data:`TEXT_RULES` a message's text matches, if any."""
    return next((r for r in TEXT_RULES if r.role == role and r.pattern.search(text)), None)


def is_header(obj: Any) -> bool:
    """A rewrite's header record: a ``sanitization_notice``, or a ``session_meta`` that
    names its source or sanitisation and has no ``payload`` (Codex's own always has one:
    a damaged one is Codex's, not a rewrite)."""
    if not isinstance(obj, dict) or any(k in obj for k in _FOREIGN_KEYS):
        return False
    typ = obj.get("type")
    return typ == "sanitization_notice" or (typ == "session_meta" and any(
        k in obj for k in ("sanitization", "sanitized", "sanitizedAt", "source")))


def message_text(obj: dict[str, Any]) -> str | None:
    """The text of a flat message record (``text``, or ``content`` as a string or a list
    of text blocks), ``None`` when it has none of these."""
    for k in _TEXT_KEYS:
        v = obj.get(k)
        if isinstance(v, str):
            return v
        if isinstance(v, list) and v and all(  # chat blocks; Codex's input_text are its own
                isinstance(b, dict) and b.get("type", "text") == "text" for b in v):
            texts = text_parts(v)
            if texts:
                return "\n".join(texts)
    return None


def is_message(obj: Any) -> bool:
    """A flat message record: ``{"type": "message" (or none), "role", "text"}``."""
    return (isinstance(obj, dict) and obj.get("type") in (None, "message")
            and isinstance(obj.get("role"), str) and message_text(obj) is not None
            and not any(k in obj for k in _FOREIGN_KEYS))


def looks_like_rewrite(objs: list[dict[str, Any]]) -> bool:
    """The first records of a file are a rewrite's: its header among them, or two or more
    flat messages (one when the file holds nothing else) and at most one other record."""
    if any(is_header(o) for o in objs):
        return True
    flat = [o for o in objs if is_message(o)]
    others = len(objs) - len(flat)
    return bool(flat) and others <= 1 and (len(flat) >= 2 or others == 0)


def agent_of(header: dict[str, Any] | None) -> str:
    """The agent a header's ``source`` names (see :data:`AGENTS`)."""
    src = header.get("source") if header else None
    if not isinstance(src, str):
        return UNKNOWN_AGENT
    low = src.lower()
    for word, agent in AGENTS:
        if word in low:
            return agent
    return UNKNOWN_AGENT


def session_id(path: Path) -> str:
    """``<stem>-<8 hex digits of the first line>`` (stable while the file grows)."""
    try:
        head = first_line(path)
    except OSError:
        head = b""
    return f"{path.stem}-{hashlib.blake2b(head.strip(), digest_size=4).hexdigest()}"


def rewrite_info(header: dict[str, Any] | None) -> dict[str, Any]:
    """What the header says of the rewrite (kept in the session's info as ``rewrite``)."""
    if header is None:
        return {"header": None}
    out: dict[str, Any] = {"header": header.get("type")}
    for k in ("source", "project", "purpose", "sanitizedAt", "createdAt"):
        if isinstance(header.get(k), str):
            out[k] = header[k]
    san = header.get("sanitization")
    removed = header.get("removed")
    if isinstance(san, dict):
        removed = san.get("removed", removed)
        if isinstance(san.get("notes"), str):
            out["notes"] = san["notes"]
    if isinstance(removed, list):
        out["removed"] = [str(r) for r in removed]
    return out


class RewriteReader(TranscriptReader):
    form = FORM
    agent = UNKNOWN_AGENT
    description = ("a sanitised or summarised rewrite of a session, or a flat role/text "
                   "chat export (not the agent's own output)")

    @classmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        return looks_like_rewrite(list(json_head(path, head, 5)))

    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        self.skipped = {}
        sid = session_id(path)
        if session_ids is not None and sid not in session_ids:
            return
        header = next((o for o in head_records(path, 5) if is_header(o)), None)
        reading = _Reading(self, path, problems, sid)
        messages = list(reading.messages())  # read whole: the title may come last
        info: dict[str, Any] = {"id": sid, "rewrite": rewrite_info(reading.header or header)}
        if reading.title:
            info["title"] = reading.title
        first = next((m.info["time"]["created"] for m in messages
                      if m.info["time"].get("created") is not None), None)
        created = iso_ms((reading.header or {}).get("createdAt")) or first
        info["time"] = {"created": created}
        yield SourceSession(session_id=sid, form=self.form, path=str(path),
                            messages=messages, info=info, complete=False,
                            agent=agent_of(reading.header or header))


class _Reading:
    def __init__(self, owner: RewriteReader, path: Path, problems: list[Problem],
                 sid: str) -> None:
        self.owner = owner
        self.path = path
        self.d = Drafts(sid, path, problems, "rewritten session")
        self.header: dict[str, Any] | None = None
        self.title: str | None = None

    def messages(self) -> Iterator[RawMessage]:
        # held to the end: no message leaves before the whole file is read
        return self.d.read(records(self.path, self.d.problems, "rewritten session"),
                           self._record, stream=False)

    def _skip(self, key: str) -> None:
        self.owner.skipped[key] = self.owner.skipped.get(key, 0) + 1

    def _record(self, n: int, body: bytes, obj: dict[str, Any]) -> None:
        typ = obj.get("type")
        if is_header(obj) and self.header is None:
            self.header = obj
            self.d.extra(n, body)
        elif typ == "title" and isinstance(obj.get("title"), str):
            self.title = obj["title"]
            self.d.extra(n, body)
        elif is_message(obj) and obj["role"].lower() in ROLES:
            self._message(n, body, obj, ROLES[obj["role"].lower()])
        else:  # kept raw (in the next message's record) and counted
            if typ in (None, "message") and isinstance(obj.get("role"), str):
                key = f"message/{obj['role']}"
            else:
                key = typ if isinstance(typ, str) else f"<{type(typ).__name__}>"
            self._skip(key)
            self.d.extra(n, body)

    def _message(self, n: int, body: bytes, obj: dict[str, Any], role: str) -> None:
        ts = next((iso_ms(obj[k]) for k in _TIME_KEYS if k in obj), None)
        text = message_text(obj) or ""
        d = self.d.new(n, body, "assistant" if role == "assistant" else "user", ts)
        d.info["mode"] = FORM  # every message says where it was read (`show`, the TUI)
        if role == "assistant":  # a whole text, not a reply still being written
            d.info["time"]["completed"] = d.info["time"]["created"]
        part: dict[str, Any] = {"type": "text", "id": f"L{n}", "text": text,
                                "time": {"start": ts}}
        rule = text_rule(role, text)
        if rule is not None and rule.mark == "compaction":
            d.parts.append({"type": "compaction", "id": f"L{n}.c", "auto": True})
        if role == "system" or rule is not None:
            part["synthetic"] = True
        d.parts.append(part)
