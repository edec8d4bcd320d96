"""``claude -p --verbose --output-format stream-json`` output as a user saves it (``>
run.jsonl``): the real CLI's output of ``fixtures/claude_record`` (campaign
``task_stream``: two runs of one session, a scripted model on loopback)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from kb.cli import cli
from logparse.claude_code import ClaudeCodeReader
from logparse.claude_stream import ClaudeStreamReader
from logparse.derive import COLUMNS, derive_session
from logparse.models import Problem
from logparse.registry import detect

C = {name: i for i, name in enumerate(COLUMNS["calls"])}
M = {name: i for i, name in enumerate(COLUMNS["messages"])}
REC = Path(__file__).resolve().parents[2] / "fixtures" / "claude_record" / "recorded" / \
    "task_stream"
STREAM = REC / "stream-json" / "run.jsonl"
SID = "1bd7c159-c5a4-41c4-9442-0674bdca85e4"
TRANSCRIPT = REC / "-srv-campaign" / f"{SID}.jsonl"


def read(path: Path = STREAM) -> tuple[list[Any], list[Problem], dict[str, int]]:
    problems: list[Problem] = []
    reader = ClaudeStreamReader()
    out = []
    for src in reader.sessions(path, problems):
        msgs = list(src.messages)
        batch, _ = derive_session(src.session_id, src.path, iter(msgs))
        out.append((src, msgs, batch))
    return out, problems, reader.skipped


def test_recognised_by_its_shape_not_its_name(tmp_path: Path) -> None:
    assert detect(STREAM) is ClaudeStreamReader
    assert detect(TRANSCRIPT) is ClaudeCodeReader
    renamed = tmp_path / f"{SID}.jsonl"  # named as a transcript is
    renamed.write_bytes(STREAM.read_bytes())
    assert detect(renamed) is ClaudeStreamReader


def test_messages_calls_results_and_errors() -> None:
    sessions, problems, skipped = read()
    assert problems == [] and skipped == {}
    ((src, msgs, batch),) = sessions
    assert src.session_id == SID and src.agent == "claude-code" and not src.complete
    # each run's prompt is not in the stream: its init stands for it, inferred
    assert [m.inferred for m in msgs if m.info["role"] == "user"] == [True, True]
    assert len(msgs) == 12  # as many as the transcript: the ordinals are the same
    runs = [(c[C["command"]], c[C["exit_code"]]) for c in batch.calls
            if c[C["tool"]] == "bash" and c[C["status"]] == "completed"]
    assert runs == [("python3 -c 'import calc; print(calc.mul(6, 7))'", 1),
                    ("python3 -c 'import calc; print(calc.mul(6, 7))'", 0)]
    (rm,) = [c for c in batch.calls if c[C["command"]] == "rm -rf build"]
    assert rm[C["status"]] == "error" and "denied" in rm[C["error"]]
    errors = [m for m in batch.messages if m[M["error"]]]
    assert [m[M["error"]] for m in errors] == ["APIError"]
    assert "529" in json.dumps(msgs[-1].info["error"])
    # the task list as Claude Code numbered it (a failed create takes no number)
    todos = [[t["content"] for t in json.loads(c[C["input"]])["todos"]]
             for c in batch.calls if c[C["tool"]] == "todowrite"]
    assert todos[-1] == ["Add mul", "Check mul", "Clean build"]
    # a record written while its response streamed: its token counts are not the reply's
    assert all(m[M["tokens_output"]] in (None, 0) for m in batch.messages)


def test_the_result_records_are_the_session_s_own_figures() -> None:
    ((src, _, _),) = read()[0]
    rec = src.info["recorded"]
    results = [json.loads(x) for x in STREAM.read_text().splitlines()
               if json.loads(x).get("type") == "result"]
    assert rec["runs"] == 2 and rec["errors"] == 1
    assert rec["cost"] == results[-1]["total_cost_usd"]  # Claude Code's total so far
    assert rec["durationMs"] == sum(r["duration_ms"] for r in results)
    assert rec["turns"] == sum(r["num_turns"] for r in results)
    assert rec["tokens"]["input"] == sum(r["usage"]["input_tokens"] for r in results)
    assert rec["lastError"] == 529


def test_an_unknown_record_type_is_kept_raw_and_counted(tmp_path: Path) -> None:
    lines = STREAM.read_text().splitlines(keepends=True)
    odd = json.dumps({"type": "stream_event", "session_id": SID, "uuid": "u-1",
                      "parent_tool_use_id": None, "event": {"type": "ping"}}) + "\n"
    f = tmp_path / "run.jsonl"
    f.write_text(lines[0] + odd + "".join(lines[1:]))
    sessions, problems, skipped = read(f)
    assert problems == [] and skipped == {"stream_event": 1}
    kept = sorted(n for _, msgs, _ in sessions for m in msgs
                  for n in json.loads(m.raw)["lines"])
    assert kept == list(range(1, len(lines) + 2))


def test_beside_its_transcript_in_either_order(tmp_path: Path) -> None:
    db = str(tmp_path / "a.duckdb")
    run = CliRunner().invoke
    first = run(cli, ["ingest", "--db", db, "--json", str(STREAM)])
    assert first.exit_code == 0, first.stderr
    then = run(cli, ["ingest", "--db", db, "--json", str(TRANSCRIPT)])
    (s,) = json.loads(then.stdout)["sessions"]
    assert s["messages"] == 12 and s["form"] == "claude-code"  # the transcript replaces it
    db2 = str(tmp_path / "b.duckdb")
    run(cli, ["ingest", "--db", db2, str(TRANSCRIPT)])
    after = run(cli, ["ingest", "--db", db2, "--json", str(STREAM)])
    assert after.exit_code == 0 and json.loads(after.stdout)["problems"] == []


def test_the_agent_s_own_cost_is_shown_where_cost_is(tmp_path: Path) -> None:
    """Claude Code's own count of a session (a transcript's last ``cost-state``, a
    stream's ``result`` records) was read and dropped; ``sessions SESSION`` and ``usage
    --by session`` show it beside logkb's own pricing."""
    run = CliRunner().invoke
    states = [json.loads(x) for x in TRANSCRIPT.read_text().splitlines()
              if '"cost-state"' in x]
    for src, form in ((TRANSCRIPT, "cost-state"), (STREAM, "result")):
        db = str(tmp_path / f"{form}.duckdb")
        assert run(cli, ["ingest", "--db", db, str(src)]).exit_code == 0
        doc = json.loads(run(cli, ["sessions", "--db", db, SID, "--json"]).stdout)
        assert doc["recorded"]["by"] == form
        want = states[-1]["totalCostUSD"] if form == "cost-state" else 0.05544
        assert abs(doc["recorded"]["cost"] - want) < 1e-9
        text = run(cli, ["sessions", "--db", db, SID]).stdout
        assert f"${want:.2f} by the agent" in text
        (row,) = [json.loads(x) for x in run(
            cli, ["usage", "--db", db, "--by", "session", "--json"]).stdout.splitlines()]
        assert row["key"] == SID and abs(row["recorded_cost"] - want) < 1e-9
        table = run(cli, ["usage", "--db", db, "--by", "session"]).stdout
        assert "agent's" in table.splitlines()[0]


def test_titled_by_its_first_run_s_reply_else_by_its_prompt(tmp_path: Path) -> None:
    """The stream holds no prompt: the session had no title (``sessions``, the TUI).  It
    is named by the reply of its first run that ended well (the second run's ``API
    Error: 529`` names nothing); a prompt the stream holds (``--replay-user-messages``)
    names it as a transcript's first prompt does."""
    ((src, _, _),) = read()[0]
    assert src.info["title"] == "calc.mul is in place and returns 42 for 6 * 7."
    lines = STREAM.read_text().splitlines(keepends=True)
    said = json.dumps({"type": "user", "session_id": SID, "uuid": "u-prompt",
                       "parent_tool_use_id": None,
                       "message": {"role": "user", "content": "Add mul to calc"}}) + "\n"
    f = tmp_path / "run.jsonl"
    f.write_text(lines[0] + said + "".join(lines[1:]))
    ((src, _, _),) = read(f)[0]
    assert "title" not in src.info
    db = str(tmp_path / "a.duckdb")
    for path, title in ((STREAM, "calc.mul is in place and returns 42 for 6 * 7."),
                        (f, "Add mul to calc")):
        r = CliRunner().invoke(cli, ["ingest", "--db", db, "--force", "--json", str(path)])
        assert r.exit_code == 0, r.stderr
        assert json.loads(r.stdout)["sessions"][0]["title"] == title


def test_a_long_reply_is_cut_as_a_long_prompt_is(tmp_path: Path) -> None:
    results = [json.loads(x) for x in STREAM.read_text().splitlines()]
    first = next(r for r in results if r.get("type") == "result")
    first["result"] = "\n\n" + "word " * 40 + "\nsecond line"
    f = tmp_path / "run.jsonl"
    f.write_text("".join(json.dumps(r if r.get("type") != "result" or r.get("is_error")
                                    else first) + "\n" for r in results))
    ((src, _, _),) = read(f)[0]
    assert src.info["title"] == ("word " * 40)[:77] + "..."


def test_the_stream_is_read_as_it_goes_not_whole(tmp_path: Path, monkeypatch: Any) -> None:
    # the recorded stream's first run, then 40 further runs of the session: the first
    # message leaves before the reader has read a tenth of the file (memory bounded by
    # a message, not by the file: ``python -m bench readers --only claude-stream``)
    import logparse.claude_code as cc

    lines = STREAM.read_bytes().splitlines(keepends=True)
    path = tmp_path / "runs.jsonl"
    with path.open("wb") as f:
        for k in range(41):
            for body in lines:
                if k:
                    body = body.replace(b'"uuid":"', f'"uuid":"r{k}-'.encode()).replace(
                        b'"id":"', f'"id":"r{k}-'.encode())
                f.write(body)
    total = sum(1 for _ in path.open("rb"))
    read_lines = [0]
    real = cc.iter_lines

    def counted(*a: Any, **kw: Any) -> Any:
        for item in real(*a, **kw):
            read_lines[0] += 1
            yield item

    monkeypatch.setattr(cc, "iter_lines", counted)
    src = next(iter(ClaudeStreamReader().sessions(path, [])))
    first = next(iter(src.messages))
    assert first.info["role"] == "user" and read_lines[0] < total // 10
    whole, problems, _ = read(path)
    assert not problems and len(whole) == 1
    assert len(whole[0][1]) == 41 * len(read()[0][0][1])
