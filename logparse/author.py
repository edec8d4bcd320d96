"""Whose words a user message's text is: the human's, or not.

Many rules read what "the user said" (corrections, rejections, refutations, a direction
set, the handoff's goal).  A user-side text of a transcript is often someone else's:

``human``       what the person typed, as the agent took it.
``queued``      what the person typed while the agent worked, handed over mid-turn
                (Claude Code's ``queued_command`` attachment, a ``queue-operation``
                taken off the queue): the human's words, read as such.
``parent``      the prompt of a parent agent: a sub-agent's session (Claude Code
                ``isSidechain``, a Codex ``spawn_agent`` child whose ``session_meta``
                names its ``thread_spawn`` parent, an opencode ``task`` child, a Gemini
                CLI ``kind: "subagent"`` chat) gets its task as a user message.
``harness``     what the agent or its harness wrote into the user side: Claude Code
                ``isMeta`` lines, local slash commands and their output, hooks, reminders;
                Codex context fragments and sub-agent notifications; opencode, pi and
                Antigravity ``synthetic`` parts.
``compaction``  the summary that replaced the history, sent as a user message ("This
                session is being continued from a previous conversation …").

Readers set a part's ``author`` where their own fields say it (the record's flags); the
rest is read from the part's ``synthetic``/``queued`` marks and the session's kind
(:func:`session_author`).  Only :data:`USER_AUTHORS` are the user's words.

Pure: no database, no UI.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

from logparse.request import is_injected

_P = TypeVar("_P")

__all__ = ["AUTHORS", "COMPACTION", "HARNESS", "HUMAN", "PARENT", "QUEUED", "USER_AUTHORS",
           "is_compaction_summary", "part_author", "session_author", "user_words"]

HUMAN = "human"
QUEUED = "queued"
PARENT = "parent"
HARNESS = "harness"
COMPACTION = "compaction"
AUTHORS = (HUMAN, QUEUED, PARENT, HARNESS, COMPACTION)
USER_AUTHORS = (HUMAN, QUEUED)
"""The authors whose text is the user's words (every rule that reads them reads these)."""

COMPACTION_OPENERS = (
    "This session is being continued from a previous conversation",
    # codex-rs core/templates/compact/summary_prefix.md (the history a compaction left)
    "Another language model started to solve this problem and produced a summary",
)
"""How the summary a compaction left opens when an agent sends it as a user message
(Claude Code's before ``isCompactSummary`` marked it, Codex's ``SUMMARY_PREFIX``)."""


def is_compaction_summary(text: str) -> bool:
    """A user-side text that is the summary a compaction left."""
    return text.lstrip()[:120].startswith(COMPACTION_OPENERS)


def session_author(info: dict[str, Any] | None) -> str:
    """Who writes the plain user text of a session: its parent agent for a sub-agent's
    session (a ``parentID``, Codex's ``subagent`` spawn, Gemini CLI's ``kind:
    "subagent"``), else the human."""
    if not isinstance(info, dict):
        return HUMAN
    if isinstance(info.get("parentID"), str) and info["parentID"]:
        return PARENT
    if isinstance(info.get("subagent"), dict) or info.get("kind") == "subagent":
        return PARENT
    return HUMAN


def part_author(part: dict[str, Any], default: str = HUMAN) -> str:
    """The author of a user message's text part (``default``: the session's,
    :func:`session_author`)."""
    said = part.get("author")
    said = said if isinstance(said, str) and said in AUTHORS else None
    text = part.get("text")
    text = text if isinstance(text, str) else ""
    if said == COMPACTION or is_compaction_summary(text):
        return COMPACTION
    # a part a reader marked injected is the harness's whoever the session's author is
    if part.get("synthetic") or part.get("ignored") or is_injected(text):
        return HARNESS
    if said is not None:
        return said
    if part.get("queued"):
        return QUEUED if default == HUMAN else default
    return default


def user_words(prompts: Sequence[_P]) -> list[_P]:
    """Of prompt events (anything with an ``author``), the ones the human wrote
    (:data:`USER_AUTHORS`; a row stored before authors were, by its ``source``); a
    sub-agent's session, which has none, the prompts of the agent that gave it its task.
    Injected text and a compaction's summary never."""
    own = [p for p in prompts if (getattr(p, "author", None) or HUMAN) in USER_AUTHORS
           and getattr(p, "source", "text") == "text"]
    return own or [p for p in prompts if getattr(p, "author", None) == PARENT]
