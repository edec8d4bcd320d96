"""The Gemini CLI, pi and Antigravity readers, into a real knowledge base.

Trimmed real lines (``fixtures/realworld_trim/{gemini_cli,pi,antigravity}.jsonl``, see its
README) are read by the real reader into DuckDB; :data:`CASES` says, row by row, what each
call became (tool, status, exit code, the structural signal its own fields give) and which
fixture lines its message holds.  The whole pool files are ingested too: message counts
from the files' own structure, every call answered or named, lines mapped to ordinals.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from kb.graph.store import load_rows
from kb.ingest import ingest
from kb.store import KbStore
from logparse.antigravity import AntigravityReader
from logparse.gemini_cli import GeminiCliReader
from logparse.models import Problem
from logparse.pi import PiReader
from logparse.registry import detect
from logparse.source import TranscriptReader

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"
POOL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld" / "pool"


@dataclass(frozen=True)
class Case:
    """One call of a trimmed file: what the reader made of it."""

    ordinal: int
    tool: str
    status: str
    exit_code: int | None
    signal: str | None
    """The structural signal its fields give (``None``: none)."""
    lines: tuple[int, ...]
    """The fixture lines of the message the call is in (its ``raw.lines``)."""
    source: str
    """Where the call's lines come from."""


CASES: dict[str, tuple[Case, ...]] = {
    "gemini_cli.jsonl": (
        Case(2, "read", "completed", None, None, (4, 5, 6),
             "Axe__session.jsonl:4-6 (a reply written twice under one id, with a $set)"),
        Case(3, "bash", "aborted", None, "rejected_by_user", (7, 8, 9, 10, 11),
             "Axe__session.jsonl:31-35 (run_shell_command cancelled, Request cancelled.)"),
        Case(5, "bash", "completed", 0, None, (15,),
             "Axe__session.jsonl:91 (run_shell_command success, no Exit Code line)"),
        Case(7, "task", "completed", None, None, (18,),
             "Axe__session.jsonl:173 (invoke_agent)"),
        Case(8, "edit", "error", None, "tool_error", (19, 20, 21, 22),
             "Axe__session.jsonl:190-192 (replace status error)"),
    ),
    "pi.jsonl": (
        Case(2, "bash", "completed", 0, None, (5, 6), "civ6.ch__session.jsonl:5-6"),
        Case(3, "bash", "completed", 1, "exit_code", (7, 8),
             "civ6.ch__session.jsonl:49-50 (isError, Command exited with code 1)"),
        Case(4, "edit", "error", None, "tool_error", (9, 10),
             "civ6.ch__session.jsonl:65-66 (edit isError)"),
        Case(5, "bash", "completed", 1, "exit_code", (11, 12),
             "civ6.ch__session.jsonl:75-76 ((no output), exit 1)"),
    ),
    "antigravity.jsonl": (
        Case(2, "list", "completed", None, None, (2, 3, 4, 5),
             "Xeus__gemini-session.jsonl:2-5 (two calls, two steps, a history marker)"),
        Case(6, "bash", "completed", 0, None, (9, 10),
             "Xeus__gemini-session.jsonl:64-65 (RUN_COMMAND completed successfully)"),
        Case(7, "bash", "completed", 1, "exit_code", (11, 12),
             "Xeus__gemini-session.jsonl:66-67 (failed with exit code: 1)"),
        Case(8, "bash", "completed", None, "still_running", (13, 14),
             "Xeus__gemini-session.jsonl:68-69 (RUN_COMMAND status RUNNING)"),
        Case(9, "edit", "error", None, "input_invalid", (15, 16),
             "Xeus__gemini-session.jsonl:204-205 (ERROR_MESSAGE)"),
        Case(11, "grep", "error", None, "tool_error", (18, 19),
             "Xeus__gemini-session.jsonl:406-407 (GREP_SEARCH status ERROR)"),
    ),
}

READER: dict[str, type[TranscriptReader]] = {
    "gemini_cli.jsonl": GeminiCliReader, "pi.jsonl": PiReader,
    "antigravity.jsonl": AntigravityReader}


@pytest.fixture(scope="module")
def trimmed(tmp_path_factory: pytest.TempPathFactory) -> KbStore:
    store = KbStore(tmp_path_factory.mktemp("kb") / "kb.duckdb")
    rep = ingest(store, [TRIM / name for name in CASES])
    assert [str(p) for p in rep.problems] == [] and rep.skipped == {}
    return store


def _session(store: KbStore, name: str) -> str:
    row = store.conn.execute("SELECT session_id FROM sessions WHERE source_path = ?",
                             [str(TRIM / name)]).fetchone()
    assert row is not None, name
    return str(row[0])


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_case_reads_as_its_row_says(trimmed: KbStore, name: str) -> None:
    sid = _session(trimmed, name)
    calls, _, _ = load_rows(trimmed, [sid])
    for case in CASES[name]:
        assert case.source
        got = [c for c in calls if c.ordinal == case.ordinal and c.tool == case.tool]
        assert got, (name, case)
        c = got[0]
        assert (c.status, c.exit_code) == (case.status, case.exit_code), (name, case)
        assert (case.signal in c.signals) if case.signal else not c.signals, (name, case, c)
        lines = trimmed.conn.execute(
            "SELECT json_extract(raw, '$.lines') FROM messages WHERE session_id = ? AND "
            "ordinal = ?", [sid, case.ordinal]).fetchone()
        assert lines is not None and tuple(json.loads(lines[0])) == case.lines, (name, case)


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_line_of_a_trimmed_file_is_in_one_message(trimmed: KbStore, name: str) -> None:
    sid = _session(trimmed, name)
    rows = trimmed.conn.execute(
        "SELECT json_extract(raw, '$.lines') FROM messages WHERE session_id = ? "
        "ORDER BY ordinal", [sid]).fetchall()
    lines = [n for (r,) in rows for n in json.loads(r)]
    total = len((TRIM / name).read_text(encoding="utf-8").splitlines())
    assert lines == list(range(1, total + 1))  # each once, in file order
    assert detect(TRIM / name) is READER[name]


def test_prompts_errors_and_models(trimmed: KbStore) -> None:
    q = trimmed.conn.execute
    gem = _session(trimmed, "gemini_cli.jsonl")
    # "System: Please continue." after a shell call is the CLI's, not the user's
    assert q("SELECT ordinal, source FROM prose WHERE session_id = ? AND kind = 'prompt' "
             "ORDER BY ordinal", [gem]).fetchall() == [(1, "text"), (4, "text")]
    assert q("SELECT m.role, e.text, e.data ->> '$.source' FROM messages m JOIN other_events e "
             "USING (session_id, ordinal) WHERE session_id = ? AND e.kind = 'context' "
             "ORDER BY e.seq", [gem]).fetchall() == [
        ("system", "System: Please continue.", "user/displayContent"),
        ("system", "run_shell_command run_shell_command_1778085979224_0: Output: (empty)\n"
         "Process Group PGID: 14630", "user/displayContent/functionResponse")]
    errors = q("SELECT ordinal, text FROM events WHERE session_id = ? AND kind = 'error' "
               "ORDER BY ordinal", [gem]).fetchall()
    assert [o for o, _ in errors] == [3, 9]
    assert errors[0][1] == "MessageAbortedError: Request cancelled."
    assert errors[1][1].startswith("APIError: [API Error: You have exhausted")
    # usage: Gemini's input less its cached part; pi's cache reads and writes apart
    assert q("SELECT model, tokens_input, tokens_output, tokens_cache_read FROM messages "
             "WHERE session_id = ? AND ordinal = 2", [gem]).fetchone() == (
        "gemini-3-flash-preview", 15903, 147, 0)
    pi = _session(trimmed, "pi.jsonl")
    assert q("SELECT model, tokens_input, tokens_output, tokens_cache_read, "
             "tokens_cache_write FROM messages WHERE session_id = ? AND ordinal = 2",
             [pi]).fetchone() == ("claude-sonnet-4-6", 3, 135, 1668, 344)
    ag = _session(trimmed, "antigravity.jsonl")
    kinds = q("SELECT ordinal, kind FROM events WHERE session_id = ? AND kind IN "
              "('prompt', 'compaction') ORDER BY ordinal, seq", [ag]).fetchall()
    assert (5, "compaction") in kinds  # the CHECKPOINT step
    # the user's words without the IDE's metadata
    first = q("SELECT source, text FROM prose WHERE session_id = ? AND ordinal = 4 AND "
              "kind = 'prompt' ORDER BY seq", [ag]).fetchall()
    assert first[0] == ("text", "we need something unique , and usefull , you bring that to "
                                "me and it approved from my side")
    assert first[1][0] == "synthetic" and "ADDITIONAL_METADATA>" in first[1][1]
    # the system's messages to the model are no user prompts: system messages whose text
    # is context (tests/kb/test_antigravity_steps.py)
    assert q("SELECT count(*) FROM prose WHERE session_id = ? AND ordinal IN (3, 5)",
             [ag]).fetchone() == (0,)
    assert q("SELECT ordinal, role FROM messages WHERE session_id = ? AND role <> 'assistant' "
             "ORDER BY ordinal", [ag]).fetchall() == [
        (1, "user"), (3, "system"), (4, "user"), (5, "system"), (10, "user")]


@pytest.mark.parametrize("name", sorted(CASES))
def test_bad_and_unknown_lines_are_named_and_kept(tmp_path: Path, name: str) -> None:
    f = tmp_path / name
    shutil.copy(TRIM / name, f)
    total = len(f.read_text(encoding="utf-8").splitlines())
    with f.open("a", encoding="utf-8") as out:
        out.write('{"type": "brand-new-type", "id": "x", "step_index": 99}\n')
        out.write("{not json\n")
    problems: list[Problem] = []
    reader = READER[name]()
    msgs = [m for s in reader.sessions(f, problems) for m in s.messages]
    assert [(p.line, p.path) for p in problems] == [(total + 2, str(f))]
    assert "not valid JSON" in problems[0].reason and problems[0].raw == "{not json"
    assert sum(reader.skipped.values()) == 1  # the unknown record, kept raw
    assert total + 1 in json.loads(msgs[-1].raw)["lines"]


# ------------------------------------------------------------ the whole pool files
POOL_FILES = {
    # file -> (messages, calls): counted from each file's own structure
    "Axe__session.jsonl": "gemini-cli",
    "civ6.ch__session.jsonl": "pi",
    "Xeus__gemini-session.jsonl": "antigravity",
}


def _counts(path: Path) -> tuple[int, int]:
    """(messages, calls) from the file's records, without the reader."""
    msgs: set[str] = set()
    calls = 0
    n_msgs = 0
    for raw in path.read_bytes().splitlines():
        o = json.loads(raw)
        if "projectHash" in o or o.get("type") in ("user", "gemini", "error", "info"):
            if o.get("type") in ("user", "gemini", "error"):
                msgs.add(o["id"])
        elif o.get("type") == "message":
            n_msgs += o["message"]["role"] != "toolResult"
            calls += sum(c.get("type") == "toolCall" for c in o["message"]["content"])
        elif "step_index" in o:
            n_msgs += o["type"] in ("USER_INPUT", "SYSTEM_MESSAGE", "CHECKPOINT",
                                    "PLANNER_RESPONSE")
            calls += len(o.get("tool_calls") or [])
    if msgs:  # Gemini CLI: the calls of each id's last version
        last: dict[str, int] = {}
        for raw in path.read_bytes().splitlines():
            o = json.loads(raw)
            if o.get("type") == "gemini":
                last[o["id"]] = len(o.get("toolCalls") or [])
        return len(msgs), sum(last.values())
    return n_msgs, calls


@pytest.mark.parametrize("name", sorted(POOL_FILES))
def test_whole_pool_file(tmp_path: Path, name: str) -> None:
    path = POOL / name
    if not path.is_file():
        pytest.fail(f"the shared pool is missing: {path}")
    with KbStore(tmp_path / "kb.duckdb") as store:
        rep = ingest(store, [path], graph=False)
        assert [str(p) for p in rep.problems] == [] and rep.skipped == {}
        q = store.conn.execute
        (sid, agent), = q("SELECT session_id, agent FROM sessions").fetchall()
        assert agent == POOL_FILES[name]
        messages, calls = _counts(path)
        assert q("SELECT count(*) FROM messages").fetchone() == (messages,)
        assert q("SELECT count(*) FROM calls").fetchone() == (calls,)
        # every call got its result (none left running when the file ends)
        assert q("SELECT count(*) FROM calls WHERE status = 'interrupted'").fetchone() == (0,)
        # every line of the file is in exactly one message, in file order
        rows = q("SELECT json_extract(raw, '$.lines') FROM messages ORDER BY ordinal").fetchall()
        lines = [n for (r,) in rows for n in json.loads(r)]
        assert lines == list(range(1, len(path.read_bytes().splitlines()) + 1))
        # shell calls carry the exit code the agent's own fields state
        codes = dict(q("SELECT coalesce(exit_code, -999), count(*) FROM calls WHERE tool = "
                       "'bash' GROUP BY ALL").fetchall())
        assert codes.get(0, 0) > 0
        failed = q("SELECT count(*) FROM calls WHERE status IN ('error', 'aborted')").fetchone()
        assert failed is not None and failed[0] > 0
        calls_rows, _, _ = load_rows(store, [sid])
        assert any(c.signals for c in calls_rows)


def gemini_json_chat() -> dict[str, object]:
    """The trimmed Gemini CLI log as the older single-JSON chat (``session-*.json``): its
    header's fields and ``messages``, each id once in its last version."""
    rows = [json.loads(x) for x in (TRIM / "gemini_cli.jsonl").read_text("utf-8").splitlines()]
    msgs: list[dict[str, object]] = []
    at: dict[object, int] = {}
    for r in rows[1:]:
        if "$set" in r:
            continue
        if r["id"] in at:
            msgs[at[r["id"]]] = r
        else:
            at[r["id"]] = len(msgs)
            msgs.append(r)
    return {**rows[0], "messages": msgs}


def test_the_older_single_json_chat_reads_as_its_lines_do(tmp_path: Path) -> None:
    """A ``session-*.json`` chat (the same records in one ``messages`` list, each id once,
    written with JSON.stringify's indent) gives the calls and messages its JSON-lines
    form gives; a message's ``lines`` are its positions in ``messages``."""
    from logparse.gemini_cli import GeminiChatJsonReader

    doc = gemini_json_chat()
    f = tmp_path / "session-2026-05-06T16-08-808bbe03.json"
    f.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert detect(f) is GeminiChatJsonReader
    one = tmp_path / "one-line.json"  # without an indent: one line, still the JSON form
    one.write_text(json.dumps(doc), encoding="utf-8")
    assert detect(one) is GeminiChatJsonReader

    def rows_of(path: Path) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
        with KbStore(tmp_path / f"{path.name}.duckdb") as store:
            rep = ingest(store, [path], graph=False)
            assert [str(p) for p in rep.problems] == [] and rep.skipped == {}
            q = store.conn.execute
            return (q("SELECT ordinal, tool, status, exit_code, output, error FROM calls "
                      "ORDER BY ALL").fetchall(),
                    q("SELECT ordinal, role, model, error, json_extract(raw, '$.lines') "
                      "FROM messages ORDER BY ordinal").fetchall())

    calls, messages = rows_of(f)
    want_calls, want_messages = rows_of(TRIM / "gemini_cli.jsonl")
    assert calls == want_calls
    assert [m[:4] for m in messages] == [m[:4] for m in want_messages]
    assert [json.loads(str(m[4])) for m in messages][:3] == [[1], [2], [3, 4]]


def test_an_antigravity_session_has_no_resume_command(tmp_path: Path) -> None:
    """Antigravity has no command line that continues a conversation: `resume` says so
    (exit 6) instead of printing another agent's command, and `sessions --json` holds
    null."""
    import os
    import subprocess
    import sys

    env = dict(os.environ, LOGKB_DB=str(tmp_path / "kb.duckdb"), LOGKB_HOME=str(tmp_path),
               NO_COLOR="1")
    src = POOL / "Xeus__gemini-session.jsonl"

    def kb(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "kb", *args], env=env, text=True,
                              capture_output=True, check=False)

    assert kb("ingest", str(src)).returncode == 0
    r = kb("resume")
    assert r.returncode == 6, r
    assert "cannot be resumed" in r.stderr and "opencode" not in r.stdout
    rows = [json.loads(x) for x in kb("sessions", "--json").stdout.splitlines()]
    assert [x["resume"] for x in rows] == [None]


# ------------------------------------------------------------ Gemini CLI sub-agents
SUBAGENT = TRIM / "gemini_chats" / "chats" / "808bbe03-132f-4378-a7ad-2375f4375231"
"""A sub-agent chat where the CLI keeps it (``chats/<parent session id>/<agentId>.jsonl``),
made from the real ``invoke_agent`` record of ``Axe__session.jsonl:173`` (see the README)."""
PARENT_SID = "808bbe03-132f-4378-a7ad-2375f4375231"


def _links(store: KbStore) -> tuple[list[tuple[object, ...]], list[tuple[object, ...]]]:
    q = store.conn.execute
    return (q("SELECT session_id, parent_id, agent FROM sessions ORDER BY ALL").fetchall(),
            q("SELECT session_id, tool, input ->> '$.geminiTool', child_session_id FROM calls "
              "WHERE child_session_id IS NOT NULL ORDER BY ALL").fetchall())


@pytest.mark.parametrize("layout", ["chats", "moved"])
def test_a_gemini_sub_agent_chat_is_linked_to_its_call(tmp_path: Path, layout: str) -> None:
    """The ``invoke_agent`` call names the sub-agent's chat (its ``agentId`` is the chat's
    ``sessionId``), and the chat names its parent: from the folder the CLI keeps it in, or,
    moved out of it, from the call that started it (as Claude Code sidechains and
    opencode child sessions are linked)."""
    chats = tmp_path / "chats"
    (chats / PARENT_SID).mkdir(parents=True)
    shutil.copy(TRIM / "gemini_cli.jsonl", chats / "session-2026-05-06T16-08-808bbe03.jsonl")
    child = (chats / PARENT_SID if layout == "chats" else tmp_path) / "v6r2l5.jsonl"
    shutil.copy(SUBAGENT / "v6r2l5.jsonl", child)
    with KbStore(tmp_path / "kb.duckdb") as store:
        rep = ingest(store, [chats / "session-2026-05-06T16-08-808bbe03.jsonl", child],
                     graph=False)
        assert [str(p) for p in rep.problems] == [] and rep.skipped == {}
        sessions, calls = _links(store)
        assert sessions == [(PARENT_SID, None, "gemini-cli"),
                            ("v6r2l5", PARENT_SID, "gemini-cli")]
        assert calls == [(PARENT_SID, "task", "invoke_agent", "v6r2l5")]
        # the sub-agent's own calls are its session's
        assert store.conn.execute("SELECT tool, status FROM calls WHERE session_id = "
                                  "'v6r2l5' ORDER BY ALL").fetchall() == [
            ("glob", "completed"), ("grep", "completed")]


def test_a_gemini_sub_agent_chat_alone_names_its_parent(tmp_path: Path) -> None:
    problems: list[Problem] = []
    (s,) = GeminiCliReader().sessions(SUBAGENT / "v6r2l5.jsonl", problems)
    assert [m.info["role"] for m in s.messages] == ["user", "assistant", "assistant"]
    assert problems == [] and s.info is not None and s.info["parentID"] == PARENT_SID
    # the same chat outside the CLI's folders names no parent (its call still does)
    f = tmp_path / "v6r2l5.jsonl"
    shutil.copy(SUBAGENT / "v6r2l5.jsonl", f)
    (s,) = GeminiCliReader().sessions(f, problems)
    assert s.info is not None and "parentID" not in s.info
    # a main chat in a folder of that shape is no sub-agent's
    assert not any("parentID" in (x.info or {}) for x in GeminiCliReader().sessions(
        TRIM / "gemini_cli.jsonl", problems))
