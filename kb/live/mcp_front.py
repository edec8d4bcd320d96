"""The front door of ``logkb mcp``: answer ``initialize`` at once, serve with the SDK.

The MCP SDK takes seconds to import (its protocol types are thousands of
pydantic models: 2.7 s on a loaded machine), and an agent's client may give up
on a server that does not answer ``initialize`` in time.  So the front answers
the handshake itself, with exactly what the SDK's server answers (a test
compares the two), while a thread imports the SDK and builds the server; then
it hands the SDK the same ``initialize`` (its reply is dropped, the client
already has one) and relays every later line both ways through pipes standing
in for fds 0 and 1.  Nothing here imports the SDK, DuckDB or the store.

``LOGKB_MCP_FRONT=0`` turns the front off (the SDK answers everything itself).
"""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

HANDSHAKE_VERSIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25")
"""Protocol revisions the SDK negotiates through ``initialize``
(``mcp_types.version.HANDSHAKE_PROTOCOL_VERSIONS``; a test keeps the two equal)."""

CAPABILITIES = {"prompts": {"listChanged": False},
                "resources": {"listChanged": False, "subscribe": False},
                "tools": {"listChanged": False}}
"""What the SDK's server declares (a test compares the front's answer with the SDK's)."""

INSTRUCTIONS = (
    "logkb knows what earlier agent sessions tried, what failed and why. Before trying an "
    "approach, ask `deadends` with words about it; `why` tells one approach's story; "
    "`untested` lists checks that never really ran; `search` finds commands, outputs and "
    "prose; `events` reads a range of one session; `handoff` is a brief of a session. "
    "Answers cite session#ordinal.")
"""``kb.live.mcp.INSTRUCTIONS`` without importing it (it loads the store)."""


def initialize_result(params: dict[str, Any]) -> dict[str, Any]:
    """The ``initialize`` result the SDK's server would give for ``params``."""
    from importlib import metadata

    asked = params.get("protocolVersion")
    version = asked if asked in HANDSHAKE_VERSIONS else HANDSHAKE_VERSIONS[-1]
    return {"capabilities": CAPABILITIES, "instructions": INSTRUCTIONS,
            "protocolVersion": version,
            "serverInfo": {"name": "logkb", "version": metadata.version("logkb")}}


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


def serve(db: str | Path, team: tuple[str | None, str | None] | None = None,
          verbose: int = 0) -> None:
    """Serve the knowledge base ``db`` (or the team server: ``team``, see
    :func:`kb.live.mcp.build_server`) over stdio, answering ``initialize`` at once;
    ``verbose`` is the SDK's log level (:data:`kb.live.mcp.LOG_LEVELS`)."""
    if os.environ.get("LOGKB_MCP_FRONT") == "0":
        from kb.live.mcp import serve as sdk_serve

        sdk_serve(db, team, verbose)
        return
    built: dict[str, Any] = {}

    def build() -> None:
        try:
            from kb.live.mcp import build_server

            built["server"] = build_server(db, team, verbose)
        except BaseException as e:  # noqa: BLE001 - re-raised in the main thread
            built["error"] = e

    builder = threading.Thread(target=build, name="logkb-mcp-import", daemon=True)
    builder.start()

    real_in, real_out = os.dup(0), os.dup(1)
    reader = os.fdopen(real_in, "rb")
    first = reader.readline()
    init_id: Any = None
    if first:
        try:
            msg = json.loads(first)
        except ValueError:
            msg = None
        if isinstance(msg, dict) and msg.get("method") == "initialize" and "id" in msg:
            init_id = msg["id"]
            reply = {"jsonrpc": "2.0", "id": init_id,
                     "result": initialize_result(msg.get("params") or {})}
            _write_all(real_out, (json.dumps(reply, separators=(",", ":")) + "\n").encode())

    # the SDK reads fd 0 and writes fd 1: pipes the relays feed and drain
    in_r, in_w = os.pipe()
    out_r, out_w = os.pipe()
    os.dup2(in_r, 0)
    os.dup2(out_w, 1)
    os.close(in_r)
    os.close(out_w)

    def pump_in() -> None:
        try:
            if first:
                _write_all(in_w, first)
            while True:
                line = reader.readline()
                if not line:
                    break
                _write_all(in_w, line)
        except OSError:
            pass
        finally:
            os.close(in_w)

    def pump_out() -> None:
        dropped = init_id is None
        with os.fdopen(out_r, "rb") as src:
            while True:
                line = src.readline()
                if not line:
                    break
                if not dropped:
                    try:
                        reply = json.loads(line)
                    except ValueError:
                        reply = None
                    if isinstance(reply, dict) and reply.get("id") == init_id and (
                            "result" in reply or "error" in reply):
                        dropped = True  # the client has its answer already
                        continue
                try:
                    _write_all(real_out, line)
                except OSError:
                    break

    threading.Thread(target=pump_in, name="logkb-mcp-in", daemon=True).start()
    out_thread = threading.Thread(target=pump_out, name="logkb-mcp-out", daemon=True)
    out_thread.start()
    builder.join()
    if "error" in built:
        raise built["error"]
    try:
        built["server"].run("stdio")
    finally:
        os.close(1)  # the SDK is done: let the relay drain and stop
        out_thread.join(timeout=1)  # its last lines; a dup the SDK kept may hold the pipe

