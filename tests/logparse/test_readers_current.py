"""What current agents write (Claude Code 2.1.x, Codex 0.14x), on trimmed real lines
(``fixtures/realworld_trim``, see its README for what each line is and what was changed)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from logparse._codecell import cell_calls, cell_strings, js_literal, resolve
from logparse.claude_code import ClaudeCodeReader
from logparse.codex import CodexReader
from logparse.derive import derive_session, to_events
from logparse.models import Problem
from logparse.registry import FOREIGN, detect
from logparse.source import NotATranscript, RawMessage, TranscriptReader

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"


def read(reader: TranscriptReader, path: Path) -> tuple[dict[str, list[RawMessage]],
                                                        list[Problem]]:
    problems: list[Problem] = []
    out = {s.session_id: list(s.messages) for s in reader.sessions(path, problems)}
    return out, problems


# ---------------------------------------------------------------- Claude Code
def test_claude_code_2_1_file_is_read_whatever_its_record_types() -> None:
    f = TRIM / "claude_2_1.jsonl"
    first = json.loads(f.read_text(encoding="utf-8").splitlines()[0])
    assert first["type"] == "permission-mode"
    assert detect(f) is ClaudeCodeReader
    reader = ClaudeCodeReader()
    sessions, problems = read(reader, f)
    assert problems == []
    (msgs,) = sessions.values()
    # prompt; one API response (lines 8-16, the PDF the Read returned joined it);
    # the queued prompt handed over mid-turn; the API error
    assert [m.info["role"] for m in msgs] == ["user", "assistant", "user", "assistant"]
    resp = msgs[1]
    assert json.loads(resp.raw)["lines"][-9:] == list(range(8, 17))
    assert [p["mime"] for p in resp.parts if p["type"] == "file"] == ["application/pdf"]
    queued = msgs[2].parts[0]
    assert queued["queued"] and queued["text"].startswith("have everything indexed")
    assert msgs[3].info["error"]["name"] == "APIError"
    # the unknown type is counted, and its line kept raw in the last message
    assert reader.skipped == {"brand-new-type": 1}
    assert 20 in json.loads(msgs[3].raw)["lines"]
    # usage: input without the cache, cache read and write apart
    tokens = resp.info["tokens"]
    assert set(tokens) == {"input", "output", "cache"}
    # the one-hour cache's part of the writes, where the usage splits them (2.1.x does)
    assert set(tokens["cache"]) == {"read", "write", "write_1h"}
    assert 0 <= tokens["cache"]["write_1h"] <= tokens["cache"]["write"]
    assert json.loads(resp.raw)["tokens"] == tokens


def test_a_queued_prompt_that_was_dequeued_is_not_doubled(tmp_path: Path) -> None:
    """enqueue + dequeue: the prompt arrives as the next user line, once."""
    lines = (TRIM / "claude_2_1.jsonl").read_text(encoding="utf-8").splitlines()
    lines[17] = lines[17].replace('"remove"', '"dequeue"')
    f = tmp_path / "t.jsonl"
    f.write_text("\n".join(lines[:18]) + "\n", encoding="utf-8")
    (msgs,), _ = (lambda s: (list(s[0].values()), s[1]))(read(ClaudeCodeReader(), f))
    assert [m.info["role"] for m in msgs] == ["user", "assistant"]


# ---------------------------------------------------------------------- Codex
def test_codex_code_mode_cell_becomes_its_inner_commands() -> None:
    f = TRIM / "codex_code_mode.jsonl"
    sessions, problems = read(CodexReader(), f)
    assert problems == []
    (sid, msgs), = sessions.items()
    batch, probs = derive_session(sid, str(f), msgs)
    assert probs == []
    ev = [e for e in to_events(sid, batch) if e.kind == "result"]
    assert [(e.tool, e.command, e.exit_code, e.duration_ms) for e in ev] == [
        ("bash", "ls -la ~/.config/opencode", 0, 52),
        ("bash", "test -f ~/.config/opencode/opencode.jsonc && sed -n '1,220p' "
                 "~/.config/opencode/opencode.jsonc || true", 1, 52)]
    assert ev[0].output and ev[0].output.startswith("total 96")
    # linked to the cell, whose code is kept
    parts = [p for m in msgs for p in m.parts if p["type"] == "tool"]
    assert [p["state"]["metadata"]["cell"] for p in parts] == ["call_cell1"] * 2
    assert "tools.exec_command" in parts[0]["state"]["metadata"]["cellCode"]
    assert parts[1]["state"]["metadata"]["cellOutput"].startswith("total 96")  # the cell's text()


def test_codex_token_usage_per_model_call() -> None:
    f = TRIM / "codex_code_mode.jsonl"
    (msgs,), _ = (lambda s: (list(s[0].values()), s[1]))(read(CodexReader(), f))
    lines = [json.loads(x) for x in f.read_text(encoding="utf-8").splitlines()]
    lasts = [o["payload"]["info"]["last_token_usage"] for o in lines
             if o["payload"].get("type") == "token_count"]
    assert lasts[0] == lasts[1]  # Codex wrote the first event twice: counted once
    got = [m.info["tokens"] for m in msgs if "tokens" in m.info]
    assert [t["input"] + t["cache"]["read"] for t in got] == [lasts[0]["input_tokens"],
                                                               lasts[2]["input_tokens"]]
    assert [t["output"] for t in got] == [lasts[0]["output_tokens"], lasts[2]["output_tokens"]]
    assert [t["reasoning"] for t in got] == [lasts[0]["reasoning_output_tokens"],
                                             lasts[2]["reasoning_output_tokens"]]


@pytest.mark.parametrize(("code", "calls"), [
    ('const r = await tools.exec_command({cmd:"echo oi","workdir":"/tmp",}); text(r.output);',
     [("exec_command", {"cmd": "echo oi", "workdir": "/tmp"})]),
    ("await tools.exec_command({cmd: 'it\\'s', n: -1.5e3, h: 0x1f, ok: true, no: null})",
     [("exec_command", {"cmd": "it's", "n": -1500.0, "h": 31, "ok": True, "no": None})]),
    ("const p = await tools.apply_patch(`*** Begin Patch\n*** End Patch`);",
     [("apply_patch", "*** Begin Patch\n*** End Patch")]),
    ('const r = await tools.web__run({search_query: [{q: "duckdb json"}]}); // tools.x(1)\n'
     'const s = "tools.nope()";', [("web__run", {"search_query": [{"q": "duckdb json"}]})]),
    ("tools.exec_command({cmd: `ls ${dir}`, timeout: 5 * 60})",
     [("exec_command", {"cmd": {"$expr": "`ls ${dir}`"}, "timeout": {"$expr": "5 * 60"}})]),
    ('const cmd = "make test";\nawait tools.exec_command({cmd, /* c */ yield_time_ms: 1})',
     [("exec_command", {"cmd": "make test", "yield_time_ms": 1})]),
    ("await Promise.all([tools.exec_command({cmd: 'a'}), tools.write_stdin({session_id: 3})])",
     [("exec_command", {"cmd": "a"}), ("write_stdin", {"session_id": 3})]),
    ("await tools.exec_command({cmd: 'unterminated", [("exec_command",
                                                        {"$expr": "{cmd: 'unterminated"})]),
])
def test_code_cell_arguments(code: str, calls: list[tuple[str, Any]]) -> None:
    names = cell_strings(code)
    assert [(c.tool, resolve(c.args, names)) for c in cell_calls(code)] == calls


def test_js_literal_never_raises() -> None:
    for text in ["{", "}", "[1,", "'", "`${", "{a:}", "{,}", "\\u12", "'\\u12'", "{a: b c}"]:
        assert js_literal(text) is not None


# ---------------------------------------------------------- other agents
def test_every_foreign_form_is_refused_by_name(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    """Every row of the table (none today: the sanitised rewrites are read), and a made-up
    row that shows a row refuses its form by name."""
    import logparse.registry as registry

    made_up = registry.Foreign("a made-up agent's log", "not read (a test row)",
                               lambda o: o.get("type") == "made-up-agent-record",
                               '{"type":"made-up-agent-record","v":1}')
    rows = (*FOREIGN, made_up)
    monkeypatch.setattr(registry, "FOREIGN", rows)
    for i, row in enumerate(rows):
        f = tmp_path / f"x{i}.jsonl"
        f.write_text(row.example + "\n", encoding="utf-8")
        with pytest.raises(NotATranscript) as e:
            detect(f)
        assert e.value.agent == row.what and row.what in e.value.reason
        assert [r for r in rows if r.test(json.loads(row.example))][0] is row


def test_codex_rollout_opening_with_records_of_a_new_type(tmp_path: Path) -> None:
    """No record type refuses a rollout: 25 records of an unknown type before session_meta."""
    src = (TRIM / "codex_code_mode.jsonl").read_text(encoding="utf-8")
    new = '{"timestamp":"2026-07-11T17:18:23.000Z","type":"brand_new_header","payload":{}}\n'
    f = tmp_path / "rollout.jsonl"
    f.write_text(new * 25 + src, encoding="utf-8")
    assert detect(f) is CodexReader
    reader = CodexReader()
    sessions, problems = read(reader, f)
    assert problems == [] and reader.skipped == {"brand_new_header": 25}
    (sid, msgs), = sessions.items()
    assert sid == "019f522f-ea1b-7622-b951-584ce660e69d" and len(msgs) == 5
    assert json.loads(msgs[0].raw)["lines"][0] == 1  # the new records kept raw


def test_a_queued_prompt_pulled_back_and_sent_again_is_one_message(tmp_path: Path) -> None:
    """enqueue + remove, then a user line saying the same: that line is the message."""
    lines = (TRIM / "claude_2_1.jsonl").read_text(encoding="utf-8").splitlines()
    queued = json.loads(lines[16])["content"]
    said = json.loads(lines[2])
    said.update(uuid="0c0c0c0c-aaaa-4bbb-8ccc-000000000001", message={
        "role": "user", "content": queued})
    f = tmp_path / "t.jsonl"
    f.write_text("\n".join(lines[:18] + [json.dumps(said)]) + "\n", encoding="utf-8")
    (msgs,), _ = (lambda s: (list(s[0].values()), s[1]))(read(ClaudeCodeReader(), f))
    assert [m.info["role"] for m in msgs] == ["user", "assistant", "user"]
    assert not msgs[2].parts[0].get("queued") and 18 in json.loads(msgs[2].raw)["lines"]


def test_a_queued_command_attachment_is_the_prompt_once(tmp_path: Path) -> None:
    """remove, then the ``queued_command`` attachment that hands it over: one prompt.
    (No pool file has one; the record is written in the shape Claude Code 2.1 uses.)"""
    lines = (TRIM / "claude_2_1.jsonl").read_text(encoding="utf-8").splitlines()
    enq = json.loads(lines[16])
    att = {"type": "attachment", "attachment": {"type": "queued_command",
                                                "prompt": enq["content"]},
           "uuid": "0c0c0c0c-aaaa-4bbb-8ccc-000000000002", "sessionId": enq["sessionId"],
           "timestamp": enq["timestamp"], "parentUuid": None, "isSidechain": False}
    f = tmp_path / "t.jsonl"
    f.write_text("\n".join(lines[:18] + [json.dumps(att)] + lines[18:]) + "\n",
                 encoding="utf-8")
    (msgs,), _ = (lambda s: (list(s[0].values()), s[1]))(read(ClaudeCodeReader(), f))
    assert [m.info["role"] for m in msgs] == ["user", "assistant", "user", "assistant"]
    assert msgs[2].parts[0]["queued"] and json.loads(msgs[2].raw)["lines"][-2:] == [18, 19]
