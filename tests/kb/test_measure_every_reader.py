"""Every reader hands its tool results, failed ones included, and the agent's stated
result to measurement extraction (issue 22 item 5): the same story told in each agent's
own records (``fixtures/measure/reader_probe.py``, written from each reader's documented
shape, no transcript) gives the same readings in ``logkb events --json``, at the ordinal
of the call or of the final message, and none of the ids, line numbers, versions, dates
or ports its outputs hold.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from fixtures.measure import reader_probe as probe
from tests.cli_kb import invoke, lines


def _events(src: Path, tmp: Path) -> list[dict]:
    db = str(tmp / "kb.duckdb")
    r = invoke("ingest", "--db", db, str(src))
    assert r.exit_code == 0, r.output
    r = invoke("events", "--json", "--db", db)
    assert r.exit_code == 0, r.output
    return lines(r.output)


def _readings(events: list[dict], **where: str) -> list[set[tuple[float, str]]]:
    return [{(m["value"], m["unit"]) for m in e["measurements"]} for e in events
            if all(e.get(k) == v for k, v in where.items())]


@pytest.mark.parametrize("name", sorted(probe.SESSIONS))
def test_every_reader_measures_its_results_and_the_stated_result(
        tmp_path: Path, name: str) -> None:
    src = probe.write_all(tmp_path / "src")[name]
    events = _events(src, tmp_path)
    runs = _readings(events, kind="result", command="pytest -q")
    assert len(runs) == 1 and set(probe.TEST_RUN) | {(1.0, "exit code")} <= runs[0]
    # the exit code once, though the output states it too (Gemini CLI's "Exit Code: 1")
    run = next(e for e in events if e["kind"] == "result" and e["command"] == "pytest -q")
    assert [m["unit"] for m in run["measurements"]].count("exit code") == 1
    curl = _readings(events, kind="result", command="curl -sI http://127.0.0.1:8000/")
    assert len(curl) == 1 and probe.HTTP_503 in curl[0]
    if not name.startswith("codex"):  # a failed fetch: its status is in its error
        fetch = [e for e in events if e["kind"] == "result" and e["status"] == "error"
                 and e["tool"] in ("webfetch", "fetch")]
        assert len(fetch) == 1
        assert {(m["value"], m["unit"]) for m in fetch[0]["measurements"]} == {probe.FETCH_404}
    if name.startswith("gemini"):  # a read_file the CLI cut says the file's length
        assert _readings(events, kind="result", tool="read") == [{(5755.0, "lines")}]
    for cmd, _, want in probe.COUNTS:  # the command's own lines, not its reader's fields
        got = _readings(events, kind="result", command=cmd)
        units = {u for _, u in want}  # (Codex adds its wall time and token count)
        assert len(got) == 1 and {r for r in got[0] if r[1] in units} == set(want), (cmd, got)
        assert (0.0, "exit code") not in got[0]
    last = max(e["ordinal"] for e in events)
    stated = _readings(events, kind="decision", text=probe.FINAL)
    assert len(stated) == 1 and set(probe.STATED) <= stated[0]
    assert any(e["ordinal"] == last and e.get("text") == probe.FINAL for e in events)
    # the look around reached extraction too, and gave none of its hits, line numbers,
    # hashes or token counter
    assert len([e for e in events if e["kind"] == "result"
                and e["command"] == probe.LOOK_CMD]) == 1
    every = {m["value"] for e in events for m in e["measurements"]}
    assert not every & set(probe.NEVER), sorted(every & set(probe.NEVER))


def test_a_failed_write_measures_no_size_it_did_not_write(tmp_path: Path) -> None:
    # Claude Code refused the write (the file was not read first): nothing was written,
    # so the content's length is no reading (labelled/speakfree__session.jsonl, the
    # ``<tool_use_error>`` of two Write calls)
    from logparse.derive import call_measurements
    refused = "<tool_use_error>File has not been read yet. Read it first before writing to it.</tool_use_error>"
    assert call_measurements("write", "edit", {"filePath": "/w/a.json", "content": "x" * 195},
                             None, {}, refused) is None
    # a failed listing's error is not its listing: no "files listed" of an error line
    # (labelled/Valdyum-Labs__codex-session.jsonl, a sandboxed ``rg --files``)
    err = ('execution error: Io(Custom { kind: Other, error: "windows sandbox: '
           'CreateProcessWithLogonW failed: 1056" })')
    assert call_measurements("bash", "search", {"command": "rg --files"}, None, {}, err) is None
