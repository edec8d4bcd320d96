"""Records no reader turned into anything: each is now the event it is.

* pi's ``bashExecution`` message (the user ran ``!cmd``: pi's ``BashExecutionMessage``
  ``command``, ``output``, ``exitCode``, ``cancelled``, ``truncated``) is a ``bash``
  command of the user's message, with its output and exit code (a cancelled one aborted).
  The lines around it are the real ones of ``fixtures/realworld_trim/pi.jsonl`` (from the
  tune pool's ``civ6.ch__session.jsonl``, which holds no ``bashExecution``); the entry is
  written in pi's format, its output is made up.
* Gemini CLI's user record whose ``displayContent`` (or ``content``) holds a tool's
  ``functionResponse`` (``fixtures/realworld_trim/gemini_cli.jsonl`` line 16) is a system
  message whose context names the tool, the call and what it answered."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import orjson
import pytest

from kb.ingest import ingest
from kb.store import KbStore

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"


def _bash(eid: str, parent: str, at: str, **fields: Any) -> bytes:
    msg = {"role": "bashExecution", "command": "go test ./...", "timestamp": 1780935300000,
           **fields}
    return orjson.dumps({"type": "message", "id": eid, "parentId": parent,
                         "timestamp": at, "message": msg}) + b"\n"


def _pi(tmp: Path, *extra: bytes) -> Path:
    lines = (TRIM / "pi.jsonl").read_bytes().splitlines(keepends=True)
    path = tmp / "pi.jsonl"
    path.write_bytes(b"".join(lines[:4]) + b"".join(extra) + b"".join(lines[4:]))
    return path


def _calls(store: KbStore) -> list[tuple[Any, ...]]:
    return store.conn.execute(
        "SELECT c.ordinal, m.role, c.tool, c.status, c.exit_code, c.output, e.command "
        "FROM calls c JOIN messages m USING (session_id, ordinal) "
        "JOIN events e ON e.session_id = c.session_id AND e.ordinal = c.ordinal "
        "AND e.kind = 'command' AND e.call_id = c.call_id "
        "WHERE m.role = 'user' ORDER BY c.ordinal").fetchall()


def test_a_pi_bash_execution_is_a_command_with_its_output_and_exit_code(
        tmp_path: Path) -> None:
    failed = _bash("b0000001", "23c39ce5", "2026-06-08T16:13:58.000Z",
                   output="--- FAIL: TestLogin (0.00s)\nFAIL\n", exitCode=1,
                   cancelled=False, truncated=False)
    passed = _bash("b0000002", "b0000001", "2026-06-08T16:13:59.000Z",
                   command="go vet ./...", output="", exitCode=0, cancelled=False,
                   truncated=False, excludeFromContext=True)
    stopped = _bash("b0000003", "b0000002", "2026-06-08T16:13:59.500Z",
                    command="go run ./cmd/server", output="listening on :8080\n",
                    cancelled=True, truncated=False)
    with KbStore(tmp_path / "kb.duckdb") as store:
        rep = ingest(store, [_pi(tmp_path, failed, passed, stopped)], graph=False)
        calls = _calls(store)
        raw = store.conn.execute("SELECT count(*) FROM events WHERE kind = 'raw'"
                                 ).fetchone()[0]
    assert not rep.skipped and raw == 0
    assert [(c[2], c[3], c[4], c[6]) for c in calls] == [
        ("bash", "completed", 1, "go test ./..."),
        ("bash", "completed", 0, "go vet ./..."),
        ("bash", "aborted", None, "go run ./cmd/server")]
    assert "FAIL: TestLogin" in calls[0][5]


def _gemini(tmp: Path, rec: dict[str, Any] | None = None) -> Path:
    lines = (TRIM / "gemini_cli.jsonl").read_bytes().splitlines(keepends=True)
    if rec is not None:
        lines.insert(16, orjson.dumps(rec) + b"\n")
    path = tmp / "gemini.jsonl"
    path.write_bytes(b"".join(lines))
    return path


@pytest.mark.parametrize("where", ["displayContent", "content"])
def test_a_gemini_function_response_in_a_user_record_is_context(
        tmp_path: Path, where: str) -> None:
    rec = None
    if where == "content":  # a tool's response sent as the user record's content
        rec = {"id": "0c1d2e3f-0000-4000-8000-00000000f00d",
               "timestamp": "2026-05-06T16:47:10.000Z", "type": "user",
               "content": [{"functionResponse": {
                   "id": "read_file_1778086000000_0", "name": "read_file",
                   "response": {"error": "File not found: settings.gradle.kts"}}}]}
    with KbStore(tmp_path / "kb.duckdb") as store:
        rep = ingest(store, [_gemini(tmp_path, rec)], graph=False)
        rows = store.conn.execute(
            "SELECT m.role, e.kind, e.text FROM events e JOIN messages m "
            "USING (session_id, ordinal) WHERE e.text LIKE '%run_shell_command_1778085979224_0%'"
            " OR e.text LIKE '%read_file_1778086000000_0%' ORDER BY ALL").fetchall()
        raw = store.conn.execute("SELECT count(*) FROM events WHERE kind = 'raw'"
                                 ).fetchone()[0]
    assert not rep.skipped and raw == 0
    shown = ("system", "context", "run_shell_command run_shell_command_1778085979224_0: "
             "Output: (empty)\nProcess Group PGID: 14630")
    assert shown in rows
    if where == "content":
        assert ("system", "context", "read_file read_file_1778086000000_0: File not found: "
                "settings.gradle.kts") in rows
