"""``logkb mcp``: the knowledge base as read-only Model Context Protocol tools, over stdio.

An agent in opencode or Claude Code calls these to learn what was already tried
and why it failed, in its own session and in earlier campaigns.  Every tool is
read-only (it opens the knowledge base read-only per call), answers compactly
and cites ``session#ordinal``.  stdout is the protocol: nothing else may print
there, so diagnostics go to stderr.

The ``mcp`` package is imported only here, inside :func:`serve`'s module, so no
other command pays for it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson

from kb.errors import KbError, KbLocked, KbMissing, KbNotFound

INSTRUCTIONS = (
    "logkb knows what earlier agent sessions tried, what failed and why. Before trying an "
    "approach, ask `deadends` with words about it; `why` tells one approach's story; "
    "`untested` lists checks that never really ran; `search` finds commands, outputs and "
    "prose; `events` reads a range of one session; `handoff` is a brief of a session. "
    "Answers cite session#ordinal.")


def _text(obj: Any) -> str:
    return orjson.dumps(obj, option=orjson.OPT_NON_STR_KEYS, default=str).decode()


HINTS = {
    "session": "Pass a session id or a unique prefix of one, as cited before the '#' in "
               "the answers of search, deadends or untested; or leave session out for "
               "every session (the latest for events and handoff).",
    "why": "Name an approach as deadends lists it (its name, or a few of its words), or "
           "an ordinal of a message it involves; call deadends to see the names.",
    "query": "Use plain words, an exact phrase in double quotes, or field filters such as "
             "host:NAME kind:result tool:bash.",
    "busy": "Another logkb process is writing the knowledge base; call again in a moment.",
    "missing": "Run `logkb ingest` (or `logkb watch`) to build the knowledge base first.",
}
"""What an agent can do about each kind of failure (the text after the error)."""


def tool_error(e: Exception, tool: str) -> Exception:
    """The error a tool answers with (``isError: true``): what went wrong, then what the
    agent can do about it."""
    from mcp.server.mcpserver.exceptions import ToolError

    text = str(e)
    if isinstance(e, KbMissing):
        hint = HINTS["missing"]
    elif isinstance(e, KbLocked):
        hint = HINTS["busy"]
    elif isinstance(e, KbNotFound) and tool == "why" and "session" not in text:
        hint = HINTS["why"]
    elif isinstance(e, KbNotFound):
        hint = HINTS["session"] if "session" in text else ""
    elif tool == "search":
        text, hint = f"bad query: {text}", HINTS["query"]
    else:
        hint = ""
    return ToolError(f"{text}. {hint}".strip() if hint else text)


LOG_LEVELS = ("WARNING", "INFO", "DEBUG")
"""The SDK's log level by ``logkb mcp``'s ``-v`` count: warnings and errors alone by
default (the SDK's own default, INFO, wrote a block to stderr for every tool call that
answered with an error, which an agent's client shows its user or keeps in a log)."""


def build_server(db: str | Path, team: tuple[str | None, str | None] | None = None,
                 verbose: int = 0) -> Any:
    """The MCP server over the knowledge base file ``db`` (not started); with ``team``
    (``(url, team name)``, either None for the default) over the team server instead.
    ``verbose``: 0 logs warnings and errors on stderr, 1 adds INFO, 2 DEBUG."""
    from importlib import metadata

    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    from kb.live.answers import Answers, TeamAnswers
    from kb.search.query import QueryError
    from logparse.kinds import EventKind

    answers: Answers | TeamAnswers = Answers(db) if team is None else TeamAnswers(*team)
    kinds_known = [k.value for k in EventKind]
    server = MCPServer("logkb", instructions=INSTRUCTIONS, version=metadata.version("logkb"),
                       log_level=LOG_LEVELS[max(0, min(verbose, 2))])  # type: ignore[arg-type]
    ro = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                         open_world_hint=False)

    def guarded(fn: Any, **kwargs: Any) -> str:
        """The answer, or an error the agent can act on (``isError: true``; the server
        keeps serving)."""
        kinds = kwargs.get("kinds")
        bad = [k for k in kinds or [] if k not in kinds_known]
        if bad:
            raise tool_error(ValueError(
                f"unknown event kind {', '.join(map(repr, bad))}; kinds are "
                f"{', '.join(kinds_known)}"), fn.__name__)
        try:
            return _text(fn(**kwargs))
        except (KbError, QueryError) as e:  # not found, busy, …: an error answer, not a crash
            raise tool_error(e, fn.__name__) from None

    @server.tool(annotations=ro, structured_output=False)
    def search(query: str, session: str | None = None, limit: int = 10) -> str:
        """Find commands, tool outputs and prose across sessions, newest first.

        query: words or an exact phrase (e.g. "Host key verification failed").
        session: a session id or unique prefix to search only that session.
        """
        return guarded(answers.search, query=query, session=session, limit=limit)

    @server.tool(annotations=ro, structured_output=False)
    def deadends(about: str | None = None, session: str | None = None,
                 limit: int = 10) -> str:
        """Approaches that were abandoned or failed, with their root cause and evidence.

        about: words naming an approach, component or error (e.g. "DeepEP", "redis cache");
        only dead ends mentioning them are returned. Without session, every session is
        searched (earlier campaigns included).
        """
        return guarded(answers.deadends, about=about, session=session, limit=limit)

    @server.tool(annotations=ro, structured_output=False)
    def why(name: str, session: str | None = None) -> str:
        """The story of one approach: proposed, tested, outcome, why it ended, successor.

        name: the approach's name (fuzzy) or an ordinal it involves.
        """
        return guarded(answers.why, name=name, session=session)

    @server.tool(annotations=ro, structured_output=False)
    def untested(session: str | None = None, answered: bool = False, limit: int = 20) -> str:
        """Checks whose question never got an answer (ssh failures, aborts, timeouts)."""
        return guarded(answers.untested, session=session, answered=answered, limit=limit)

    @server.tool(annotations=ro, structured_output=False)
    def handoff(session: str | None = None, max_tokens: int = 1500) -> str:
        """A Markdown brief of a session (goal, tried, dead ends, open questions, next steps)."""
        return guarded(answers.handoff, session=session, max_tokens=max_tokens)

    @server.tool(annotations=ro, structured_output=False)
    def events(session: str | None = None, start: int | None = None, end: int | None = None,
               kinds: list[str] | None = None, limit: int = 40) -> str:
        """A range of one session's typed events (command, result, decision, todo, …)."""
        return guarded(answers.events, session=session, start=start, end=end, kinds=kinds,
                       limit=limit)

    return server


def serve(db: str | Path, team: tuple[str | None, str | None] | None = None,
          verbose: int = 0) -> None:
    """Run the server on stdio until the client closes it (the SDK alone; ``logkb mcp``
    answers ``initialize`` first through :mod:`kb.live.mcp_front`)."""
    build_server(db, team, verbose).run("stdio")
