"""Readings a tool's own summary line gives, through the readers that wrap it (meas14):
a Gemini CLI shell result holding a Gradle build that kotlinc failed, and pi's read cut
with its ``[N more lines in file …]`` note, ingested and read back from ``events --json``.

The records follow each reader's shape (``fixtures/realworld_trim/gemini_cli.jsonl`` and
``pi.jsonl``); the Gradle and kotlinc lines are public ones (the rows of
:mod:`logparse.measure_kinds` and :mod:`logparse.measure_summaries` name them), the pi
read is ``pool/civ6.ch__session.jsonl:20-21`` cut.  Ids, times and paths are made up.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from logparse.measure_plumbing import is_harness_reading
from tests.cli_kb import invoke, lines

GRADLE = ("> Task :app:compileDebugKotlin FAILED\n"
          "e: file:///builds/app/src/main/java/com/nima/mymood/screens/DayScreen.kt:180:72 "
          "Unresolved reference: baseline_show_chart_24\n"
          "e: file:///builds/app/src/main/java/com/nima/mymood/screens/MenuScreen.kt:763:40 "
          "Unresolved reference: baseline_show_chart_24\n\n"
          "FAILURE: Build failed with an exception.\n\nBUILD FAILED in 18s\n"
          "25 actionable tasks: 3 executed, 22 up-to-date")


def _events(src: Path, tmp: Path) -> list[dict[str, Any]]:
    db = str(tmp / "kb.duckdb")
    r = invoke("ingest", "--db", db, str(src))
    assert r.exit_code == 0, r.output
    r = invoke("events", "--json", "--db", db)
    assert r.exit_code == 0, r.output
    return lines(r.output)


def _write(path: Path, records: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_a_gemini_cli_gradle_build_gives_its_errors_and_task_counts(tmp_path: Path) -> None:
    out = f"Output: {GRADLE}\nExit Code: 1\nProcess Group PGID: 14630"
    call = {"id": "run_shell_command_1_0", "name": "run_shell_command",
            "args": {"command": "./gradlew assembleDebug"}, "status": "success",
            "timestamp": "2026-05-06T16:10:02.000Z",
            "result": [{"functionResponse": {"id": "run_shell_command_1_0",
                                             "name": "run_shell_command",
                                             "response": {"output": out}}}]}
    src = _write(tmp_path / "session-2026-05-06T16-08-808bbe03.jsonl", [
        {"sessionId": "808bbe03-0000-4000-8000-000000000001", "projectHash": "ab12",
         "startTime": "2026-05-06T16:08:46.181Z", "lastUpdated": "2026-05-06T16:08:46.182Z",
         "kind": "main"},
        {"id": "u1", "timestamp": "2026-05-06T16:09:29.426Z", "type": "user",
         "content": [{"text": "Build the debug APK."}]},
        {"id": "g1", "timestamp": "2026-05-06T16:09:32.964Z", "type": "gemini", "content": "",
         "model": "gemini-3-flash-preview", "toolCalls": [call]},
    ])
    events = _events(src, tmp_path)
    run = [e for e in events if e["kind"] == "result" and e["command"] == "./gradlew assembleDebug"]
    assert len(run) == 1
    got = {(m["value"], m["unit"]) for m in run[0]["measurements"]}
    assert {(2.0, "errors"), (25.0, "tasks"), (3.0, "tasks"), (22.0, "tasks"), (18.0, "s"),
            (1.0, "exit code")} <= got, sorted(got)
    # the diagnostics' line and column numbers and the process group are no readings
    assert not {v for v, _ in got} & {180.0, 72.0, 763.0, 40.0, 14630.0}, sorted(got)


def test_a_pi_read_cut_by_its_note_gives_the_lines_left_and_the_length(
        tmp_path: Path) -> None:
    shown = ("import { verify, hash } from '@node-rs/argon2';\n\n\n"
             "[61 more lines in file. Use offset=11 to continue.]")
    path = "/home/u/civ6.ch/web/src/routes/login/+page.server.ts"
    src = _write(tmp_path / "2026-06-08T16-12-41_019ea801-f510-7d77-a631-019d14a93b3b.jsonl", [
        {"type": "session", "version": 3, "id": "019ea801-f510-7d77-a631-019d14a93b3b",
         "timestamp": "2026-06-08T16:12:41.000Z", "cwd": "/home/u/civ6.ch"},
        {"type": "message", "id": "a1", "parentId": None, "timestamp": "2026-06-08T16:13:57.006Z",
         "message": {"role": "user", "content": [{"type": "text", "text": "Check the login."}],
                     "timestamp": 1780935237002}},
        {"type": "message", "id": "a2", "parentId": "a1", "timestamp": "2026-06-08T16:14:27.472Z",
         "message": {"role": "assistant", "content": [
             {"type": "toolCall", "id": "toolu_1", "name": "read",
              "arguments": {"path": path, "limit": 10}}],
             "api": "anthropic-messages", "provider": "anthropic",
             "model": "claude-sonnet-4-6", "stopReason": "toolUse",
             "timestamp": 1780935267380}},
        {"type": "message", "id": "a3", "parentId": "a2", "timestamp": "2026-06-08T16:14:27.477Z",
         "message": {"role": "toolResult", "toolCallId": "toolu_1", "toolName": "read",
                     "content": [{"type": "text", "text": shown}], "isError": False,
                     "timestamp": 1780935267477}},
    ])
    events = _events(src, tmp_path)
    reads = [e for e in events if e["kind"] == "result" and e["tool"] == "read"]
    assert len(reads) == 1
    got = {(m["value"], m["unit"]) for m in reads[0]["measurements"]}
    assert got == {(61.0, "lines"), (71.0, "lines")}, sorted(got)
    # both are what the tool saw of the file, not a result of the work: lists of
    # measurements leave them out unless asked (as a read file's length)
    assert all(is_harness_reading(m["label"], m["unit"]) for m in reads[0]["measurements"])


def test_a_spelled_duration_is_one_reading_and_a_setting_none() -> None:
    from logparse.measure import measurement_tuples

    def got(text: str, prose: bool = False) -> set[tuple[float, str]]:
        return {(v, u) for v, u, _ in measurement_tuples(text, prose)}

    # was "4 min" alone: the seconds were dropped
    assert got("Total duration: 4 min 23 sec") == {(263.0, "s")}
    assert got("(Simulation time: 0 hr 14 min 23 sec)") == {(863.0, "s")}
    assert got("Elapsed: 2 minutes and 5.5 seconds") == {(125.5, "s")}
    assert got("  --timeout 2 minutes 30 seconds") == set()
    assert got("sleep 1 min 30 sec") == set()
