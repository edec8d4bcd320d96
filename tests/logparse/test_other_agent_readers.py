"""How the Gemini CLI, pi and Antigravity readers read a call's result: one row per shape,
each from a real line (trimmed) or the tool's own source layout, walked by one test.  The
only real Gemini CLI and Antigravity files are held out: their rows are written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from logparse.antigravity import STEP_OF_TOOL, decoded_args, step_result
from logparse.antigravity import TOOLS as AG_TOOLS
from logparse.gemini_cli import TOOLS as GEMINI_TOOLS
from logparse.gemini_cli import shell_body, shell_exit
from logparse.pi import TOOLS as PI_TOOLS
from logparse.pi import bash_result

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"

GEMINI_SHELL = (  # (status, llmContent, exit code, where it comes from)
    ("success", "Output: (empty)\nProcess Group PGID: 7", 0,
     "(no real line yet) newer CLI layout, fields that say nothing left out"),
    ("success", "Command: ls\nDirectory: (root)\nOutput: a\nError: (none)\nExit Code: 2\n"
     "Signal: (none)\nBackground PIDs: (none)\nProcess Group PGID: 7", 2,
     "(no real line yet) older CLI layout, every field printed"),
    ("success", "Command: sleep 9\nDirectory: (root)\nOutput: (empty)\nError: (none)\n"
     "Exit Code: (none)\nSignal: 15\nBackground PIDs: (none)\nProcess Group PGID: 7", None,
     "(no real line yet) older CLI layout, a run a signal ended"),
    ("cancelled", "[Operation Cancelled] Reason: User denied execution.", None,
     "(no real line yet) the user denied the call"),
    ("success", "Output: ./run.sh\nExit Code: 3\nretrying\nProcess Group PGID: 7", 0,
     "(no real line yet) newer CLI layout, the command printed an Exit Code line"),
    ("success", "Command: ./run.sh\nDirectory: (root)\nOutput: Exit Code: (none)\nSignal: 9\n"
     "done\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\n"
     "Process Group PGID: 7", 0,
     "(no real line yet) older CLI layout, the command printed the tool's own fields"),
)


@pytest.mark.parametrize("status, text, code, source", GEMINI_SHELL)
def test_gemini_shell_exit(status: str, text: str, code: int | None, source: str) -> None:
    assert source and shell_exit(status, text) == code


GEMINI_BODIES = ("", "a", "", None, "./run.sh\nExit Code: 3\nretrying",
                 "Exit Code: (none)\nSignal: 9\ndone")
GEMINI_STDOUT = (  # (llmContent, what the command printed, where it comes from)
    ("Command: wc -l a.kt\nDirectory: (root)\nStdout:   12 a.kt\nStderr: (empty)\n"
     "Error: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\n"
     "Process Group PGID: 7", "  12 a.kt",
     "(no real line yet) the first CLIs' layout (shell.ts: Stdout and Stderr apart)"),
    ("Command: make\nDirectory: (root)\nStdout: (empty)\nStderr: make: *** No rule\n"
     "Error: (none)\nExit Code: 2\nSignal: (none)\nBackground PIDs: (none)\n"
     "Process Group PGID: 7", "(empty)\nStderr: make: *** No rule",
     "(no real line yet) the first CLIs' layout, a command that wrote to stderr"),
)
"""What the command printed in each :data:`GEMINI_SHELL` result (None: not the shell
tool's layout): what the measurement rules read of it."""


@pytest.mark.parametrize("row, body", list(zip(GEMINI_SHELL, GEMINI_BODIES, strict=True)))
def test_gemini_shell_body(row: tuple[str, str, int | None, str], body: str | None) -> None:
    text = row[1]
    span = shell_body(text)
    assert (text[span[0]:span[1]] if span else None) == body


@pytest.mark.parametrize("text, body, source", GEMINI_STDOUT)
def test_gemini_shell_body_of_the_first_layout(text: str, body: str, source: str) -> None:
    span = shell_body(text)
    assert source and span is not None and text[span[0]:span[1]] == body


PI_BASH = (  # (text, isError, (exit, aborted), source)
    ("(no output)\n\nCommand exited with code 1", True, (1, False),
     "pool civ6.ch__session.jsonl:76"),
    ("/home/selim/Documents/Code/civ6.ch/go.sum\n", False, (0, False),
     "pool civ6.ch__session.jsonl:6"),
    ("npm run dev output\n\nCommand aborted", True, (None, True),
     "(no real line yet) pi bash tool, the user pressed Esc"),
    ("Command timed out after 30 seconds", True, (None, False),
     "(no real line yet) pi bash tool timeout"),
)


@pytest.mark.parametrize("text, is_error, want, source", PI_BASH)
def test_pi_bash_result(text: str, is_error: bool, want: tuple[int | None, bool],
                        source: str) -> None:
    assert source and bash_result(text, is_error) == want


AG_STEPS: tuple[tuple[str, str, str, dict[str, Any], str], ...] = (
    ("RUN_COMMAND", "DONE", "Created At: 2026-06-18T22:41:10Z\nCompleted At: 2026-06-18T22:41:17Z"
     "\n\n\t\t\t\tThe command completed successfully.\n\t\t\t\tOutput:\n\t\t\t\tUsage: x\n",
     {"status": "completed", "exit": 0, "output": "Usage: x\n"},
     "(no real line yet) RUN_COMMAND done, exit 0"),
    ("RUN_COMMAND", "DONE", "Created At: 2026-06-18T22:41:18Z\nCompleted At: 2026-06-18T22:41:22Z"
     "\n\n\t\t\t\tThe command failed with exit code: 1\n\t\t\t\tOutput:\n\t\t\t\tCould not create",
     {"status": "completed", "exit": 1, "output": "Could not create"},
     "(no real line yet) RUN_COMMAND done, exit 1"),
    ("RUN_COMMAND", "RUNNING", "Created At: 2026-06-18T22:41:24Z\nTool is running as a "
     "background task with task id: 0000aaaa/task-7\n",
     {"status": "completed", "exit": None, "background": True},
     "(no real line yet) RUN_COMMAND still running"),
    ("GREP_SEARCH", "ERROR", "Created At: 2026-06-18T23:13:00Z\nCompleted At: 2026-06-18T23:13:00Z"
     "\nEncountered error in step execution: exec: \"grep\": executable file not found in %PATH%",
     {"status": "error", "exit": None},
     "(no real line yet) GREP_SEARCH status ERROR"),
)


@pytest.mark.parametrize("typ, status, content, want, source", AG_STEPS)
def test_antigravity_step_result(typ: str, status: str, content: str, want: dict[str, Any],
                                 source: str) -> None:
    assert source
    st = step_result(typ, status, content)
    assert st["status"] == want["status"]
    assert st["metadata"].get("exit") == want["exit"]
    assert st["metadata"].get("background", False) == want.get("background", False)
    if "output" in want:
        assert st["output"] == want["output"]
    assert st["time"]["start"] is not None
    assert "Created At" not in (st.get("output") or st.get("error") or "")


def test_antigravity_arguments_are_decoded() -> None:
    # written: run_command's args, every value JSON-encoded (no tune or shared file is an
    # Antigravity trajectory)
    args = {"CommandLine": "\"npx create-next-app@latest --help\"",
            "Cwd": "\"d:\\\\work\\\\site\"", "WaitMsBeforeAsync": "8000", "Bad": "{x"}
    assert decoded_args(args) == {"CommandLine": "npx create-next-app@latest --help",
                                  "Cwd": "d:\\work\\site", "WaitMsBeforeAsync": 8000,
                                  "Bad": "{x"}


def test_tool_tables_name_opencode_tools() -> None:
    """Every mapped tool is one the deriver has a category for (or bash)."""
    from logparse.derive import _TOOL_CATEGORY

    for table in (GEMINI_TOOLS, PI_TOOLS, AG_TOOLS):
        for name, (tool, keys) in table.items():
            assert tool == "bash" or tool in _TOOL_CATEGORY, name
            assert all(isinstance(k, str) and isinstance(v, str) for k, v in keys.items())
    assert set(STEP_OF_TOOL) <= set(AG_TOOLS) | {"ask_question"}


# what pi or an extension sends the model: (entry written from the real user line 4 of
# fixtures/realworld_trim/pi.jsonl with its type changed, as pi's session format 3 writes
# it; the pool holds none), the parts the system message holds
PI_SYSTEM = (
    ({"type": "compaction", "summary": "S", "firstKeptEntryId": "23c39ce5",
      "tokensBefore": 50000}, ["compaction", "context"], "compaction"),
    ({"type": "branch_summary", "summary": "S", "fromId": "23c39ce5"}, ["context"],
     "branch_summary"),
    ({"type": "custom_message", "customType": "note", "content": "S", "display": True},
     ["context"], "custom_message"),
    ({"type": "message", "message": {"role": "custom", "customType": "note", "content": "S",
                                     "display": True, "timestamp": 1780935237002}},
     ["context"], "message/custom"),
    ({"type": "message", "message": {"role": "compactionSummary", "summary": "S",
                                     "tokensBefore": 50000, "timestamp": 1780935237002}},
     ["compaction", "context"], "message/compactionSummary"),
)


@pytest.mark.parametrize(("entry", "parts", "source"), PI_SYSTEM)
def test_pi_sends_the_model_system_messages(tmp_path: Path, entry: dict[str, Any],
                                            parts: list[str], source: str) -> None:
    from logparse.models import Problem
    from logparse.pi import PiReader

    lines = (TRIM / "pi.jsonl").read_text(encoding="utf-8").splitlines()[:4]
    user = json.loads(lines[3])
    sysline = {k: user[k] for k in ("id", "parentId", "timestamp")} | entry
    sysline["id"] = "5ec0ffee"
    f = tmp_path / "pi.jsonl"
    f.write_text("\n".join([*lines, json.dumps(sysline)]) + "\n", encoding="utf-8")
    problems: list[Problem] = []
    reader = PiReader()
    msgs = [m for s in reader.sessions(f, problems) for m in s.messages]
    assert problems == [] and reader.skipped == {}
    assert [m.info["role"] for m in msgs] == ["user", "system"]
    assert [p["type"] for p in msgs[1].parts] == parts
    assert msgs[1].parts[-1]["text"] == "S" and msgs[1].parts[-1]["source"] == source


@pytest.mark.parametrize("name, fields", [
    ("gemini_cli.jsonl", ("Output: ", "Process Group PGID: ")),
    ("pi.jsonl", ("Command exited with code ",)),
])
def test_real_shell_results_mark_what_the_command_printed(name: str, fields: tuple[str, ...]) -> None:
    # the trimmed real results (the Gemini CLI trim; civ6.ch__session.jsonl:66 and 76):
    # the span the measurement rules read (``metadata.body``) holds none of the tool's own
    # fields, and the fields are all that lies outside it
    from logparse.derive import derive_session, to_events
    from logparse.registry import detect
    path = TRIM / name
    problems: list[Any] = []
    marked = 0
    for session in detect(path)().sessions(path, problems):
        for msg in session.messages:
            for part in msg.parts:
                state = part.get("state") or {}
                span = (state.get("metadata") or {}).get("body")
                if part.get("tool") != "bash" or span is None:
                    continue
                marked += 1
                out = state["output"]
                body, rest = out[span[0]:span[1]], out[:span[0]] + out[span[1]:]
                assert not any(f in body for f in fields), body
                assert any(f in rest for f in fields) and not rest.strip("\n").count("\n") > 2
        batch, _ = derive_session(session.session_id, str(path), session.messages)
        readings = [m for e in to_events(session.session_id, batch) for m in e.measurements]
        assert not [m for m in readings if m.unit == "exit code" and m.value == 0]
        assert 14630.0 not in {m.value for m in readings}  # a process group id
    assert marked >= 1
