"""The typed event model that logkb derives from a transcript.

Every message of a session gets an *ordinal* (its 1-based chronological
position, user and assistant messages both counted) and yields zero or more
events.  The kinds:

``prompt``      a user's text.
``command``     a tool call (tool name, full input; for ``bash`` the command
                text with its ssh wrapper parsed apart).
``result``      what the tool call returned (status, exit code, output, error
                signature, measurements).  One per command.
``decision``    assistant prose (or reasoning), classified.
``todo``        a ``todowrite`` snapshot of the todo list.
``subagent``    a ``task`` call that spawned a child session.
``error``       an assistant error (aborted, context overflow, API error) or a
                retried provider call.
``compaction``  a compaction request or the summary that replaced history.
``attachment``  a file or ``@agent`` mention attached to a prompt.
``raw``         a part logkb does not understand, kept verbatim with a reason.

These pydantic models are the public, typed view of an event (what
``logkb events --json`` prints and what tests compare).  The ingest hot path
stores the same fields column-wise (see :mod:`logparse.derive`) because building
a validated model per event would dominate ingest time.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

# the kinds live in a module without pydantic, so that readers of the knowledge base
# (kb.records) can use them without loading the models
from logparse.kinds import Category, EventKind, ProseClass, Status

__all__ = ["Category", "Event", "EventKind", "Measurement", "Problem", "ProseClass",
           "SessionInfo", "SshHop", "Status", "TodoItem"]


class Measurement(BaseModel):
    """A number a command reported: ``89.5 tok/s Output token throughput``."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    value: float
    unit: str
    label: str

    def __str__(self) -> str:
        v = f"{self.value:g}"
        return f"{self.label}: {v} {self.unit}".strip() if self.label else f"{v} {self.unit}"


class SshHop(BaseModel):
    """One ssh hop of a command: ``ssh [-p PORT] [-i KEY] [USER@]HOST 'REMOTE'``."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    host: str
    user: str | None = None
    port: int | None = None
    identity: str | None = None
    options: list[str] = Field(default_factory=list)
    remote_command: str | None = None
    nested: bool = False
    """True when this ssh runs *inside* the remote command of the previous hop
    as one command among others (not as the whole remote command)."""


class TodoItem(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)

    content: str
    status: str
    priority: str | None = None


class Event(BaseModel):
    """One typed event.  Fields not relevant to a kind are ``None``."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    session_id: str
    ordinal: int
    seq: int
    """Position of the event within its message (0-based)."""
    kind: EventKind
    message_id: str
    part_id: str | None = None
    role: str | None = None
    time: int | None = None
    """Epoch milliseconds (tool start, text start, or message creation)."""

    # command / result
    tool: str | None = None
    call_id: str | None = None
    category: str | None = None
    command: str | None = None
    input: dict[str, Any] | None = None
    host: str | None = None
    user: str | None = None
    port: int | None = None
    remote_command: str | None = None
    hops: list[SshHop] = Field(default_factory=list)
    workdir: str | None = None
    status: str | None = None
    exit_code: int | None = None
    output: str | None = None
    duration_ms: int | None = None
    error_signature: str | None = None
    error_signatures: list[str] = Field(default_factory=list)
    measurements: list[Measurement] = Field(default_factory=list)
    title: str | None = None

    # prose, prompts, errors, compaction
    text: str | None = None
    classification: str | None = None
    prose_role: str | None = None
    """``rationale`` (prose before a tool call in the same step),
    ``conclusion`` (first prose after a result) or ``reply``."""

    # todo / subagent
    todos: list[TodoItem] = Field(default_factory=list)
    child_session_id: str | None = None

    # raw
    raw: Any = None
    reason: str | None = None

    # prompt / decision
    source: str | None = None
    """Who wrote a prompt's or a decision's text: ``text`` (the user or the model),
    ``reasoning``, ``synthetic`` (injected by the agent or its IDE: context, caveats,
    reminders, a rewrite's call kept as text) or ``ignored``; ``None`` for other kinds."""
    author: str | None = None
    """Who wrote a prompt's text (:mod:`logparse.author`): ``human``, ``queued`` (the
    human's, handed over mid-turn), ``parent`` (a parent agent's task), ``harness``
    (injected) or ``compaction`` (the summary that replaced the history); ``None`` for
    other kinds."""


class SessionInfo(BaseModel):
    """What logkb keeps about a session (a top-level session or a subagent child)."""

    model_config = ConfigDict(defer_build=True)

    session_id: str
    title: str | None = None
    slug: str | None = None
    parent_id: str | None = None
    directory: str | None = None
    project_id: str | None = None
    version: str | None = None
    time_created: int | None = None
    time_updated: int | None = None
    source_kind: str
    source_path: str
    complete: bool = True
    """False when the source cannot show every message (the ``run --format json``
    stream has no user messages; logkb infers their places)."""
    info: dict[str, Any] | None = None
    agent: str = "opencode"
    """The agent that wrote it: ``opencode``, ``claude-code`` or ``codex``."""


class Problem(BaseModel):
    """Something logkb could not read or type.  The record itself is still stored raw."""

    model_config = ConfigDict(defer_build=True)

    path: str
    line: int | None = None
    record: str | None = None
    reason: str
    raw: str | None = Field(default=None, exclude=True)
    """The record's text when it could not be stored as a message (bad line, bad row)."""
    message_id: str | None = Field(default=None, exclude=True)
    """The stored message a derivation problem is about: kept while that message is
    unchanged (a re-ingest does not derive it again, so cannot report it again)."""
    notice: bool = Field(default=False, exclude=True)
    """Worth saying but not a problem with the data (opencode's own ``Exporting session:``
    status line saved before its export): reported as a note, exit code unchanged."""

    def __str__(self) -> str:
        where = self.path
        if self.line is not None:
            where += f":{self.line}"
        if self.record:
            where += f" [{self.record}]"
        return f"{where}: {self.reason}"
