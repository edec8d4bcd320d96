"""Damage and look-alikes for the Gemini CLI, pi and Antigravity readers.

Each trimmed real file (``fixtures/realworld_trim``) is damaged the ways files are: a
header line lost, cut or invalid; a stray line before it; a cut last line; invalid JSON or
a non-UTF-8 byte mid-file; the header alone; a huge line.  The good records are stored
and every bad line is a problem naming the file and line.  Look-alikes (a log that numbers
its steps, records of the other agents) are not read as these forms; two Antigravity
exports of one name are two sessions and one conversation under two names is one.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kb.ingest import ingest
from kb.store import KbStore
from logparse.registry import detect
from logparse.source import NotATranscript
from tests.kb.test_ingest_fuzz_agents import stored_lines
from tests.kb.test_other_agents import gemini_json_chat

TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"
POOL = Path(__file__).resolve().parents[2].parent / "shared" / "realworld" / "pool"
FORMS = {"gemini_cli.jsonl": "gemini-cli", "pi.jsonl": "pi", "antigravity.jsonl": "antigravity"}


def _damaged(lines: list[bytes], how: str) -> bytes:
    if how == "header-invalid":
        return b"{oops\n" + b"".join(lines[1:])
    if how == "header-cut":
        return lines[0][:40] + b"\n" + b"".join(lines[1:])
    if how == "header-lost":
        return b"".join(lines[1:])
    if how == "stray-first-line":
        return b"npm WARN something\n" + b"".join(lines)
    if how == "unrelated-first-object":
        return b'{"hello": "world"}\n' + b"".join(lines)
    if how == "invalid-mid":
        return b"".join(lines[:3]) + b"{not json\n" + b"".join(lines[3:])
    if how == "non-utf8-mid":
        return b"".join(lines[:3]) + lines[3].replace(b'":"', b'":"\xff', 1) + b"".join(lines[4:])
    if how == "last-cut":
        return b"".join(lines)[:-30]
    if how == "huge-line":
        big = lines[2].rstrip(b"\n")[:-1] + b', "pad": "' + b"y" * (70 << 20) + b'"}\n'
        return b"".join(lines[:2]) + big + b"".join(lines[3:])
    raise AssertionError(how)


DAMAGE = ("header-invalid", "header-cut", "header-lost", "stray-first-line",
          "unrelated-first-object", "invalid-mid", "non-utf8-mid", "last-cut", "huge-line")


@pytest.mark.parametrize("how", DAMAGE)
@pytest.mark.parametrize("name", sorted(FORMS))
def test_damage_costs_only_the_damaged_line(tmp_path: Path, name: str, how: str) -> None:
    lines = (TRIM / name).read_bytes().splitlines(keepends=True)
    with KbStore(":memory:") as whole:
        ingest(whole, [TRIM / name], graph=False)
        want = whole.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    f = tmp_path / name
    data = _damaged(lines, how)
    f.write_bytes(data)
    src = f.read_bytes()
    assert detect(f).form == FORMS[name]
    with KbStore(":memory:") as store:
        report = ingest(store, [f], graph=False)
        assert not report.errors, [str(e) for e in report.errors]
        got = store.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        # a damaged line that was a message's only record costs that message alone (an
        # Antigravity file has no header: its first line is the user's first step)
        lossy = how in ("non-utf8-mid", "last-cut") or (
            name == "antigravity.jsonl" and how.startswith("header-"))
        assert got >= want - (1 if lossy else 0), (got, want)
        named = {p.line for p in report.problems if p.line is not None}
        for p in report.problems:
            assert p.path == str(f) and p.line is not None, str(p)
        have = stored_lines(store)
        n_lines = [i for i, ln in enumerate(data.split(b"\n"), 1) if ln.strip()]
        assert [i for i in n_lines if i not in have and i not in named] == []
        bad_line = {"header-invalid": 1, "header-cut": 1, "stray-first-line": 1,
                    "invalid-mid": 4, "last-cut": len(n_lines)}.get(how)
        if bad_line is not None:
            assert bad_line in named, [str(p) for p in report.problems]
    assert f.read_bytes() == src  # the source is never modified


@pytest.mark.parametrize("name", sorted(FORMS))
def test_the_header_alone_or_an_empty_file(tmp_path: Path, name: str) -> None:
    first = (TRIM / name).read_bytes().splitlines(keepends=True)[0]
    f = tmp_path / name
    f.write_bytes(first)
    with KbStore(":memory:") as store:
        report = ingest(store, [f], graph=False)
        assert not report.errors
        lines = stored_lines(store) | {p.line for p in report.problems}
        assert 1 in lines  # stored (a trajectory's first step is a message) or named
    f.write_bytes(b"")
    with pytest.raises(NotATranscript, match="empty file"):
        detect(f)


LOOK_ALIKES = {
    "a training log numbering its steps": (
        b'{"step_index": 0, "type": "TRAIN", "loss": 1.5}\n'
        b'{"step_index": 1, "type": "EVAL", "loss": 1.2}\n'),
    "a record with a session id and a project hash among Claude Code's": (
        b'{"type":"user","uuid":"u1","sessionId":"s","message":{"role":"user","content":"hi"}'
        b',"timestamp":"2026-05-06T16:09:29.426Z","parentUuid":null,"cwd":"/x"}\n'),
    "messages of another tool with ids and timestamps": (
        b'{"id":"1","timestamp":"2026-05-06T16:09:29Z","type":"user","content":"a",'
        b'"role":"user"}\n{"id":"2","timestamp":"2026-05-06T16:09:30Z","type":"gemini",'
        b'"content":"b","role":"model"}\n'),
    "a tree of entries with parent ids of another tool": (
        b'{"type":"node","id":"a","parentId":null,"timestamp":"t"}\n'
        b'{"type":"node","id":"b","parentId":"a","timestamp":"t"}\n'),
}


@pytest.mark.parametrize("what", sorted(LOOK_ALIKES))
def test_look_alikes_are_not_read_as_the_new_forms(tmp_path: Path, what: str) -> None:
    f = tmp_path / "x.jsonl"
    f.write_bytes(LOOK_ALIKES[what])
    try:
        form = detect(f).form
    except NotATranscript:
        form = None
    assert form not in ("gemini-cli", "pi", "antigravity"), (what, form)


@pytest.mark.parametrize("name", ["trade_arena__claude-session.jsonl",
                                  "trade_arena__codex-session.jsonl"])
def test_the_sanitised_rewrites_are_read_as_rewrites(name: str) -> None:
    assert detect(POOL / name).form == "rewrite"


@pytest.mark.parametrize("named", [True, False], ids=["conversation-id", "digest"])
def test_antigravity_sessions_are_named_by_content(tmp_path: Path, named: bool) -> None:
    """The export has no session field: a trajectory is the conversation its background
    tasks name (``task id: <conversation>/task-70``), else named by a digest of its first
    step.  One conversation under two names is one session, two conversations exported
    under one name (in two folders) are two."""
    conv = b"e951b17f-edd0-4326-a7e1-049fac618e6b"
    lines = (TRIM / "antigravity.jsonl").read_bytes().splitlines(keepends=True)
    if not named:
        lines = [ln.replace(b"task id: " + conv, b"task id: (elsewhere)") for ln in lines]
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, same = tmp_path / "a" / "trajectory.jsonl", tmp_path / "b" / "renamed.jsonl"
    one.write_bytes(b"".join(lines))
    same.write_bytes(b"".join(lines[:-4]))
    other = tmp_path / "b" / "trajectory.jsonl"  # another conversation, the same name
    other.write_bytes(lines[0].replace(b"<USER_REQUEST>\\n", b"<USER_REQUEST>\\nAlso: ")
                      + b"".join(ln.replace(conv, conv[::-1]) for ln in lines[1:]))
    with KbStore(":memory:") as store:
        ingest(store, [one, same], graph=False)
        assert store.conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 1
        sid = store.conn.execute("SELECT session_id FROM sessions").fetchone()[0]
        assert sid == conv.decode() if named else sid.startswith("ag-")
        n = store.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        ingest(store, [other], graph=False)
        assert store.conn.execute("SELECT count(*) FROM sessions").fetchone()[0] == 2
        assert store.conn.execute("SELECT count(*) FROM messages").fetchone()[0] == 2 * n


def _cut_after_last_call(name: str) -> tuple[bytes, str]:
    """The trimmed file ending right after its last call, before the call's result (a
    Gemini CLI reply written while its call still ran: the call has no status yet)."""
    import json

    lines = (TRIM / name).read_bytes().splitlines(keepends=True)
    if name == "pi.jsonl":
        return b"".join(lines[:-1]), "bash"
    if name == "antigravity.jsonl":
        at = max(i for i, ln in enumerate(lines)
                 if b'"PLANNER_RESPONSE"' in ln and b'"tool_calls"' in ln)
        return b"".join(lines[:at + 1]), "grep"
    at = max(i for i, ln in enumerate(lines) if b'"toolCalls"' in ln and b'"replace"' in ln)
    rec = json.loads(lines[at])
    for tc in rec["toolCalls"]:
        tc.pop("result", None)
        tc["status"] = "executing"
    return b"".join(lines[:at]) + json.dumps(rec).encode() + b"\n", "edit"


@pytest.mark.parametrize("name", sorted(FORMS))
def test_a_call_without_result_at_the_end_is_no_result(tmp_path: Path, name: str) -> None:
    """The file ends before a call's result: the call is interrupted, its signal is
    ``no_result`` and ``logkb untested`` lists it (an open question)."""
    import json

    from kb.graph.store import load_rows
    from tests.cli_kb import invoke

    data, tool = _cut_after_last_call(name)
    f = tmp_path / name
    f.write_bytes(data)
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [f], graph=False)
        (sid,) = [r[0] for r in store.conn.execute("SELECT session_id FROM sessions").fetchall()]
        calls, _, _ = load_rows(store, [sid])
    last = calls[-1]
    assert (last.tool, last.status, last.signals) == (tool, "interrupted", ("no_result",))
    r = invoke("untested", "--db", str(db), "--session", sid, "--json")
    assert r.exit_code == 0, r.stderr
    rows = [json.loads(x) for x in r.stdout.splitlines() if x.strip()]
    assert any(row["ordinal"] == last.ordinal for row in rows), rows


def _gemini_json_chat() -> bytes:
    """The trimmed Gemini CLI log as the older single-JSON chat, with JSON.stringify's
    indent of 2."""
    import json

    return json.dumps(gemini_json_chat(), indent=2).encode()


@pytest.mark.parametrize("how", ["cut", "flipped-byte", "invalid-element", "one-line-cut"])
def test_a_damaged_gemini_json_chat_keeps_what_the_damage_spares(tmp_path: Path,
                                                                  how: str) -> None:
    """A ``session-*.json`` chat cut short or damaged inside one message: the messages
    before the damage (and after it, when reading can resume) are stored, and the damage is
    a problem naming its byte offset; it was one 'not valid JSON' and nothing stored."""
    doc = _gemini_json_chat()
    mid = doc.index(b'"type": "gemini"', len(doc) // 2)
    data = {"cut": doc[: len(doc) * 3 // 4],
            "flipped-byte": doc[:mid] + b"\x00" + doc[mid + 1:],
            "invalid-element": doc.replace(b'"type": "info"', b'"type": info', 1),
            "one-line-cut": doc.replace(b"\n", b"").replace(b"  ", b"")[: len(doc) // 2]}[how]
    f = tmp_path / "session-2026-05-06T16-08-808bbe03.json"
    whole = tmp_path / "whole.json"
    whole.write_bytes(doc)
    f.write_bytes(data)
    with KbStore(":memory:") as store:
        ingest(store, [whole], graph=False)
        want = store.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
    with KbStore(":memory:") as store:
        report = ingest(store, [f], graph=False)
        assert not report.errors
        got = store.conn.execute("SELECT count(*) FROM messages").fetchone()[0]
        (bad,) = [p for p in report.problems if p.path == str(f)]
        assert bad.record is not None and bad.record.startswith("byte ")
        assert got >= {"cut": 5, "flipped-byte": want - 1, "invalid-element": want - 1,
                       "one-line-cut": 3}[how], (got, want, str(bad))


def test_an_antigravity_call_never_run_is_not_answered_by_the_next_turn(tmp_path: Path) -> None:
    """A planner response whose ``run_command`` got no step (cancelled), the user's next
    input, a new call of the same tool and its step: the step answers the new call; the
    first ends without a result (no_result), not with the next turn's output."""
    import json

    from kb.graph.store import load_rows

    at = "2026-06-18T22:17:25Z"

    def step(i: int, typ: str, **kw: object) -> str:
        return json.dumps({"step_index": i, "source": "MODEL", "type": typ, "status": "DONE",
                           "created_at": at, **kw})

    def call(cmd: str) -> list[dict[str, object]]:
        return [{"name": "run_command", "args": {"CommandLine": json.dumps(cmd)}}]

    f = tmp_path / "t.jsonl"
    f.write_text("\n".join([
        step(0, "USER_INPUT", content="<USER_REQUEST>\nbuild it\n</USER_REQUEST>"),
        step(1, "PLANNER_RESPONSE", content="Building.", tool_calls=call("npm run build")),
        step(2, "USER_INPUT", content="<USER_REQUEST>\nno, test it\n</USER_REQUEST>"),
        step(3, "PLANNER_RESPONSE", content="Testing.", tool_calls=call("npm test")),
        step(4, "RUN_COMMAND", content="The command failed with exit code: 1\nOutput:\nFAIL\n"),
    ]) + "\n")
    with KbStore(":memory:") as store:
        ingest(store, [f], graph=False)
        (sid,) = [r[0] for r in store.conn.execute("SELECT session_id FROM sessions").fetchall()]
        calls, _, _ = load_rows(store, [sid])
    got = {c.ordinal: (c.status, c.exit_code, c.signals) for c in calls}
    assert got == {2: ("interrupted", None, ("no_result",)),
                   4: ("completed", 1, ("exit_code",))}, got


def test_a_gemini_chat_in_both_forms_is_stored_once(tmp_path: Path) -> None:
    """The same chat as a JSON-lines log and as the older ``session-*.json`` (a folder may
    hold both): one session with each message once, in either order of ingest.  Message
    ids were lines in one form and positions in the other, so the second added copies."""
    f = tmp_path / "session-2026-05-06T16-08-808bbe03.json"
    f.write_bytes(_gemini_json_chat())
    with KbStore(":memory:") as store:
        ingest(store, [TRIM / "gemini_cli.jsonl"], graph=False)
        want = store.conn.execute("SELECT message_id, ordinal, role FROM messages "
                                  "ORDER BY ordinal").fetchall()
        ingest(store, [f], graph=False)
        assert store.conn.execute("SELECT message_id, ordinal, role FROM messages "
                                  "ORDER BY ordinal").fetchall() == want
    with KbStore(":memory:") as store:
        ingest(store, [f, TRIM / "gemini_cli.jsonl"], graph=False)
        assert store.conn.execute("SELECT message_id, ordinal, role FROM messages "
                                  "ORDER BY ordinal").fetchall() == want


@pytest.mark.parametrize(("name", "field", "value"), [
    ("gemini_cli.jsonl", "sessionId", ""), ("pi.jsonl", "id", None), ("pi.jsonl", "id", 7)])
def test_a_header_without_a_session_id_names_the_session_after_its_file(
        tmp_path: Path, name: str, field: str, value: object) -> None:
    """A header whose id is empty, null or not a string: two such files were one session
    (``""`` or ``"None"``); each is now named after its file, and the header is named."""
    import json

    lines = (TRIM / name).read_bytes().splitlines(keepends=True)
    head = json.loads(lines[0])
    head[field] = value
    files = []
    for stem in ("a", "b"):
        f = tmp_path / f"{stem}.jsonl"
        f.write_bytes(json.dumps(head).encode() + b"\n" + b"".join(lines[1:]))
        files.append(f)
    with KbStore(":memory:") as store:
        report = ingest(store, files, graph=False)
        assert sorted(r[0] for r in store.conn.execute(
            "SELECT session_id FROM sessions").fetchall()) == ["a", "b"]
        assert sorted(p.path for p in report.problems if p.record == "header") == sorted(
            map(str, files))


def test_an_export_holding_gemini_keys_is_read_as_an_export(tmp_path: Path) -> None:
    """A pretty-printed opencode export whose first message holds a tool input with
    ``projectHash`` and ``messages`` keys (a session about Gemini CLI's files) is an
    export, not a Gemini CLI single-JSON chat (which opens with its own header keys)."""
    import json

    src = (POOL.parent / "opencode" /
           "session__quiet-meadow__ses_39c0a3da8ffeFQWvKTGUJWivpv.json")
    doc = json.loads(src.read_text("utf-8"))
    doc["info"]["gemini"] = {"projectHash": "ab" * 32, "messages": []}
    f = tmp_path / "export.json"
    f.write_text(json.dumps(doc, indent=2), encoding="utf-8")
    assert b'"projectHash"' in f.read_bytes()[:8192]
    assert detect(f).form == "export"


@pytest.mark.parametrize("command", ["untested", "deadends"])
def test_a_miss_in_a_new_agents_session_says_where_in_80_columns(tmp_path: Path,
                                                                 command: str) -> None:
    """`untested`/`deadends` on the pi session (it has none) says which session has some,
    every line within 80 columns (the UUID-like short ids made it 83 on one line)."""
    from tests.cli_kb import invoke

    db = str(tmp_path / "kb.duckdb")
    r = invoke("ingest", "--db", db, "--wait", str(TRIM / "gemini_cli.jsonl"),
               str(TRIM / "pi.jsonl"))
    assert r.exit_code == 0, r.stderr
    r = invoke(command, "--db", db, "--session", "019ea801")
    assert r.stdout == "" and "found in 808bbe0; use --session 808bbe0" in r.stderr, r.stderr
    assert max(len(line) for line in r.stderr.splitlines()) <= 80, r.stderr
