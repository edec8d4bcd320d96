"""Messages that cross screens (widget-specific ones are nested in their widget).

Workers post these from their threads; handlers run on the UI thread.  Names are
past tense: they say what happened, not what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from textual.message import Message

from kb.views import GraphView


@dataclass
class SessionsLoaded(Message):
    """The session list (and per-session counts) was read."""

    rows: list[dict[str, Any]]
    counts: dict[str, dict[str, int | None]]
    usage: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Token and cost sums per session (:func:`kb.views.session_usage`)."""
    current: str | None = None
    """The current session (``logkb use``)."""


@dataclass
class GraphLoaded(Message):
    """The knowledge graph of a scope was read (rebuilt first when it was stale)."""

    scope: str
    view: GraphView
    rebuilt: bool = False


@dataclass
class JumpRequested(Message):
    """Someone picked a message to look at (graph evidence, a subagent link, the palette)."""

    session_id: str
    ordinal: int | None = None


@dataclass
class AnnotationSaved(Message):
    """An annotation was written and the graph rebuilt."""

    session_id: str
    ordinal: int | None
    kind: str
    removed: int = 0


@dataclass
class StoreBusy(Message):
    """Another process holds the knowledge base; a worker is waiting for it."""

    text: str


@dataclass
class DataRefreshed(Message):
    """``ctrl+r``: the knowledge base was released; screens should read it again."""

    quiet: bool = False
    """True when the app saw another process write the file (no key was pressed)."""
