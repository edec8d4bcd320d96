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


def build_server(db: str | Path) -> Any:
    """The MCP server over the knowledge base file ``db`` (not started)."""
    from importlib import metadata

    from mcp.server.mcpserver import MCPServer
    from mcp_types import ToolAnnotations

    from kb.live.answers import Answers
    from kb.search.query import QueryError
    from logparse.kinds import EventKind

    answers = Answers(db)
    kinds_known = [k.value for k in EventKind]
    server = MCPServer("logkb", instructions=INSTRUCTIONS, version=metadata.version("logkb"))
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


HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""The protocol versions the ``mcp`` package negotiates (``mcp_types.version``; a test
checks they agree), the last one offered to a client that asks for another."""


def initialize_result(params: Any) -> dict[str, Any]:
    """What the server answers to ``initialize`` (the ``mcp`` package's own answer, built
    without loading it: a test compares the two)."""
    from importlib import metadata

    asked = params.get("protocolVersion") if isinstance(params, dict) else None
    return {"capabilities": {"prompts": {"listChanged": False},
                             "resources": {"listChanged": False, "subscribe": False},
                             "tools": {"listChanged": False}},
            "instructions": INSTRUCTIONS,
            "protocolVersion": asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1],
            "serverInfo": {"name": "logkb", "version": metadata.version("logkb")}}


def serve(db: str | Path) -> None:
    """Run the server on stdio until the client closes it.

    The ``mcp`` package takes seconds to import on a busy machine, and a client waits
    for the answer to ``initialize`` before anything else: that answer is written at
    once (:func:`initialize_result`), then the package is loaded and given the same
    request, its own answer to it dropped (``LOGKB_MCP_SLOW_START=1``: no fast answer)."""
    import os

    if os.environ.get("LOGKB_MCP_SLOW_START"):
        build_server(db).run("stdio")
        return
    head = b""
    while b"\n" not in head:
        chunk = os.read(0, 65536)
        if not chunk:
            break
        head += chunk
    first = head.split(b"\n", 1)[0]
    drop = None
    try:
        msg = orjson.loads(first)
    except orjson.JSONDecodeError:
        msg = None
    if isinstance(msg, dict) and msg.get("method") == "initialize" and "id" in msg:
        reply = {"jsonrpc": "2.0", "id": msg["id"],
                 "result": initialize_result(msg.get("params"))}
        os.write(1, orjson.dumps(reply) + b"\n")
        drop = msg["id"]
    relay = _Relay(head, drop)
    try:
        build_server(db).run("stdio")
    finally:
        relay.close()


class _Relay:
    """The server's stdin and stdout, spliced: what was read ahead goes in first, and the
    server's answer to the ``initialize`` already answered is dropped on the way out."""

    def __init__(self, head: bytes, drop: Any) -> None:
        import os
        import sys
        import threading

        self.drop = drop
        self.real_in, self.real_out = os.dup(0), os.dup(1)
        r_in, self.w_in = os.pipe()
        self.r_out, w_out = os.pipe()
        os.dup2(r_in, 0)
        os.dup2(w_out, 1)
        os.close(r_in)
        os.close(w_out)
        sys.stdout.flush()
        self._in = threading.Thread(target=self._pump_in, args=(head,), daemon=True)
        self._out = threading.Thread(target=self._pump_out, daemon=True)
        self._in.start()
        self._out.start()

    def _pump_in(self, head: bytes) -> None:
        import os

        try:
            if head:
                os.write(self.w_in, head)
            while chunk := os.read(self.real_in, 65536):
                os.write(self.w_in, chunk)
        except OSError:
            pass
        finally:
            os.close(self.w_in)

    def _pump_out(self) -> None:
        import os

        buf = b""
        while chunk := os.read(self.r_out, 65536):
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if self.drop is not None and self._answers_initialize(line):
                    self.drop = None
                    continue
                os.write(self.real_out, line + b"\n")
        if buf:
            os.write(self.real_out, buf)

    def _answers_initialize(self, line: bytes) -> bool:
        try:
            msg = orjson.loads(line)
        except orjson.JSONDecodeError:
            return False
        return isinstance(msg, dict) and msg.get("id") == self.drop and "method" not in msg

    def close(self) -> None:
        """The server ended: pass on what it wrote last."""
        import os
        import sys

        try:
            sys.stdout.flush()
        except (OSError, ValueError):
            pass
        os.dup2(self.real_out, 1)  # the pipe's last writer goes: the pump sees its end
        self._out.join(5)
