"""Helpers for the live tests: a knowledge base holding an earlier campaign, an MCP client."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import SELFTEST

LOGKB = [sys.executable, "-m", "kb"]


def logkb(*args: str, check: bool = True, **kw: Any) -> subprocess.CompletedProcess[str]:
    p = subprocess.run([*LOGKB, *args], capture_output=True, text=True, timeout=120, **kw)
    if check and p.returncode not in (0, 4):
        raise AssertionError(f"logkb {' '.join(args)} exited {p.returncode}: {p.stderr}")
    return p


def _ingest_earlier(db: Path) -> Path:
    logkb("ingest", "--db", str(db), str(SELFTEST / "export.json"),
          *[str(p) for p in sorted(SELFTEST.glob("export-*.json"))])
    return db


@pytest.fixture
def earlier_kb(tmp_path: Path) -> Path:
    """A knowledge base holding the recorded self-test campaign (DeepEP abandoned)."""
    return _ingest_earlier(tmp_path / "kb" / "kb.duckdb")


@pytest.fixture(scope="module")
def earlier_kb_shared(tmp_path_factory: pytest.TempPathFactory, module_home: Path) -> Path:
    """:func:`earlier_kb` once per module, for tests that only read it."""
    return _ingest_earlier(tmp_path_factory.mktemp("earlier") / "kb.duckdb")


def session_lines(export: Path) -> list[str]:
    """The messages of an opencode export as JSONL lines ({info, parts} per line)."""
    d = json.loads(export.read_text())
    return [json.dumps({"info": m["info"], "parts": m["parts"]}) for m in d["messages"]]


class McpClient:
    """A minimal MCP client speaking newline-delimited JSON-RPC to ``logkb mcp``."""

    def __init__(self, db: Path) -> None:
        self.proc = subprocess.Popen([*LOGKB, "mcp", "--db", str(db)], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.next_id = 0
        init = self.request("initialize", {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": {"name": "logkb-tests", "version": "0"}})
        assert init["serverInfo"]["name"] == "logkb"
        self.notify("notifications/initialized")

    def notify(self, method: str, params: dict[str, Any] | None = None) -> None:
        msg: dict[str, Any] = {"jsonrpc": "2.0", "method": method}
        if params is not None:
            msg["params"] = params
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
        self.next_id += 1
        msg: dict[str, Any] = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(msg) + "\n")
        self.proc.stdin.flush()
        while True:
            line = self.proc.stdout.readline()
            assert line, f"logkb mcp closed stdout: {self.proc.stderr.read() if self.proc.stderr else ''}"
            reply = json.loads(line)
            if reply.get("id") == self.next_id:
                assert "error" not in reply, reply
                return reply["result"]

    def call(self, tool: str, **arguments: Any) -> Any:
        result = self.request("tools/call", {"name": tool, "arguments": arguments})
        assert not result.get("isError"), result
        return json.loads(result["content"][0]["text"])

    def close(self) -> None:
        if self.proc.stdin:
            self.proc.stdin.close()
        try:
            self.proc.wait(10)
        except subprocess.TimeoutExpired:
            self.proc.kill()


@pytest.fixture(scope="module")
def mcp_client(earlier_kb_shared: Path) -> Iterator[McpClient]:
    """One server per module over :func:`earlier_kb_shared` (its tools only read)."""
    c = McpClient(earlier_kb_shared)
    yield c
    c.close()
