"""Readers against real opencode data: the four real exports and a session real opencode 1.18 wrote."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import orjson
import pytest

from logparse.derive import derive_session, to_events
from logparse.models import Event, Problem
from logparse.opencode import ExportReader, JsonlReader, RunStreamReader, SqliteReader, TreeReader
from logparse.registry import detect, discover
from logparse.source import NotATranscript, SourceSession

PARENT = "ses_dc9fbdec3ffeiLy3tOV563zFr5"
CHILD = "ses_dc9fbd402ffeP8aYsH636IxT7s"


def read_all(path: Path, session_ids: frozenset[str] | None = None
             ) -> tuple[dict[str, list[Event]], list[Problem]]:
    """Detect, read and derive every session of ``path``."""
    reader = detect(path)()
    problems: list[Problem] = []
    out: dict[str, list[Event]] = {}
    for src in reader.sessions(path, problems, session_ids):
        batch, probs = derive_session(src.session_id, src.path, src.messages)
        problems.extend(probs)
        out[src.session_id] = to_events(src.session_id, batch)
    return out, problems


def signature(events: list[Event]) -> list[tuple[object, ...]]:
    """What must agree between forms (prompts excluded: the run stream has none)."""
    return [(e.ordinal, e.kind.value, e.tool, e.category, e.command, e.host, e.status,
             e.exit_code, tuple(e.error_signatures), e.output, e.text, e.child_session_id)
            for e in events if e.kind != "prompt"]


# ------------------------------------------------------------------- real exports
def real_exports(realworld: Path) -> list[Path]:
    files = sorted((realworld / "opencode").glob("*.json"))
    assert len(files) == 4
    return files


def test_real_exports_are_detected_as_exports(realworld: Path) -> None:
    for f in real_exports(realworld):
        assert detect(f) is ExportReader, f


@pytest.mark.parametrize("name", ["jolly-eagle", "nimble-pixel", "quiet-meadow",
                                  "curious-sailor"])
def test_real_export_ingests_every_message_and_call(realworld: Path, name: str) -> None:
    (f,) = (realworld / "opencode").glob(f"*{name}*.json")
    doc = json.loads(f.read_text())
    sessions, problems = read_all(f)
    assert problems == []
    (sid,) = sessions
    assert sid == doc["info"]["id"]
    events = sessions[sid]
    tool_parts = [p for m in doc["messages"] for p in m["parts"] if p["type"] == "tool"]
    commands = [e for e in events if e.kind == "command"]
    results = [e for e in events if e.kind == "result"]
    assert len(commands) == len(results) == len(tool_parts)
    assert [c.call_id for c in commands] == [p["callID"] for p in tool_parts]
    # ordinals are positions in (time.created, id) order
    order = sorted(doc["messages"], key=lambda m: (m["info"]["time"]["created"],
                                                   m["info"]["id"]))
    pos = {m["info"]["id"]: i + 1 for i, m in enumerate(order)}
    assert all(e.ordinal == pos[e.message_id] for e in events)
    prompts = [e for e in events if e.kind == "prompt" and e.text]
    users = [m for m in doc["messages"] if m["info"]["role"] == "user"]
    assert len(prompts) >= len(users) - sum(1 for u in users if not u["parts"])


def test_real_exports_statuses_and_links(realworld: Path) -> None:
    by_name = {}
    for f in real_exports(realworld):
        sessions, _ = read_all(f)
        by_name[f.name.split("__")[1]] = next(iter(sessions.values()))
    jolly = by_name["jolly-eagle"]
    task = next(e for e in jolly if e.kind == "subagent")
    assert task.child_session_id == "ses_39b5d3ed8ffea9fQ9vQMuZnTtO"
    # nimble-pixel: a user interrupt (MessageAbortedError) on an assistant message
    errors = [e for e in by_name["nimble-pixel"] if e.kind == "error"]
    assert any("MessageAbortedError" in (e.text or "") for e in errors)
    # quiet-meadow: an aborted task call and an errored glob
    qm = [e for e in by_name["quiet-meadow"] if e.kind == "result"]
    assert any(e.status == "aborted" and e.tool == "task" for e in qm)
    assert any(e.status == "error" and e.tool == "glob" for e in qm)
    assert any(e.kind == "todo" and e.todos for e in by_name["quiet-meadow"])
    # curious-sailor: the /compact request and the summary that replaced history
    comp = [e for e in by_name["curious-sailor"] if e.kind == "compaction"]
    assert len(comp) >= 2 and any(len(e.text or "") > 200 for e in comp)


# ----------------------------------------------------------- recorded by opencode
def test_selftest_forms_detected(selftest: Path) -> None:
    assert detect(selftest / "opencode.db") is SqliteReader
    assert detect(selftest / "export.json") is ExportReader
    assert detect(selftest / "run.jsonl") is RunStreamReader


def test_selftest_every_form_gives_the_same_events(selftest: Path) -> None:
    db, p1 = read_all(selftest / "opencode.db")
    ex, p2 = read_all(selftest / "export.json")
    run, p3 = read_all(selftest / "run.jsonl")
    child, p4 = read_all(selftest / f"export-{CHILD}.json")
    assert p1 == p2 == p3 == p4 == []
    assert set(db) == {PARENT, CHILD}, "the database holds the parent and its subagent"
    assert signature(db[PARENT]) == signature(ex[PARENT]) == signature(run[PARENT])
    assert signature(db[CHILD]) == signature(child[CHILD])
    task = next(e for e in db[PARENT] if e.kind == "subagent")
    assert task.child_session_id == CHILD
    check = next(e for e in db[PARENT] if e.kind == "result" and e.tool == "bash")
    assert check.exit_code == 1
    assert check.error_signatures == ["ModuleNotFoundError: deep_ep"]
    # the WAL holds most rows: every message must be there
    assert max(e.ordinal for e in db[PARENT]) == 10


def test_run_stream_infers_user_turns(selftest: Path) -> None:
    reader = RunStreamReader()
    problems: list[Problem] = []
    (src,) = list(reader.sessions(selftest / "run.jsonl", problems))
    assert not src.complete
    msgs = list(src.messages)
    assert [m.info["role"] for m in msgs] == ["user"] + ["assistant"] * 5 + ["user"] + \
        ["assistant"] * 3
    assert [m.inferred for m in msgs].count(True) == 2
    export = json.loads((selftest / "export.json").read_text())
    assert [m.info["id"] for m in msgs if not m.inferred] == [
        m["info"]["id"] for m in export["messages"] if m["info"]["role"] == "assistant"]


def _digest(paths: list[Path]) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in paths if p.exists()}


def test_sqlite_is_read_without_modification(selftest: Path, tmp_path: Path) -> None:
    files = []
    for suffix in ("", "-wal", "-shm"):
        src = selftest / f"opencode.db{suffix}"
        shutil.copyfile(src, tmp_path / src.name)
        files.append(tmp_path / src.name)
    before = _digest(files)
    sessions, problems = read_all(tmp_path / "opencode.db")
    assert problems == [] and len(sessions[PARENT]) > 10
    assert _digest(files) == before


def test_sqlite_without_shm_in_readonly_dir_is_still_read(selftest: Path,
                                                          tmp_path: Path) -> None:
    ro = tmp_path / "ro"
    ro.mkdir()
    for suffix in ("", "-wal"):
        shutil.copyfile(selftest / f"opencode.db{suffix}", ro / f"opencode.db{suffix}")
    ro.chmod(0o555)
    try:
        sessions, problems = read_all(ro / "opencode.db")
    finally:
        ro.chmod(0o755)
    assert problems == []
    assert max(e.ordinal for e in sessions[PARENT]) == 10


def test_session_filter(selftest: Path) -> None:
    sessions, _ = read_all(selftest / "opencode.db", frozenset({CHILD}))
    assert set(sessions) == {CHILD}


# -------------------------------------------------------------------- tree form
def write_tree(export: Path, root: Path, project: str = "proj1") -> Path:
    """The pre-1.2 storage tree holding one exported session (opencode's layout)."""
    doc = json.loads(export.read_text())
    storage = root / "storage"
    info = doc["info"]
    (storage / "session" / project).mkdir(parents=True)
    (storage / "session" / project / f"{info['id']}.json").write_text(json.dumps(info))
    for m in doc["messages"]:
        mi = m["info"]
        d = storage / "message" / info["id"]
        d.mkdir(parents=True, exist_ok=True)
        (d / f"{mi['id']}.json").write_text(json.dumps(mi, indent=2))
        pd = storage / "part" / mi["id"]
        pd.mkdir(parents=True, exist_ok=True)
        for p in m["parts"]:
            (pd / f"{p['id']}.json").write_text(json.dumps(p, indent=2))
    return storage


def test_tree_form_matches_export(selftest: Path, tmp_path: Path) -> None:
    storage = write_tree(selftest / "export.json", tmp_path)
    assert detect(tmp_path / "storage") is TreeReader
    assert [type(i) for i in discover(tmp_path)] and all(
        not isinstance(i, NotATranscript) for i in discover(tmp_path))
    tree, problems = read_all(storage)
    ex, _ = read_all(selftest / "export.json")
    assert problems == []
    assert signature(tree[PARENT]) == signature(ex[PARENT])


def test_tree_bad_file_is_reported_by_path(selftest: Path, tmp_path: Path) -> None:
    storage = write_tree(selftest / "export.json", tmp_path)
    victim = sorted((storage / "part").glob("*/*.json"))[3]
    victim.write_text('{"type": "text", "text": "cut off')
    tree, problems = read_all(storage)
    assert len(problems) == 1
    assert problems[0].path == str(victim) and "not valid JSON" in problems[0].reason
    assert problems[0].raw == '{"type": "text", "text": "cut off'
    assert max(e.ordinal for e in tree[PARENT]) == 10


# ----------------------------------------------------------------- bad JSONL input
def jsonl_lines(export: Path) -> list[bytes]:
    doc = json.loads(export.read_text())
    return [orjson.dumps(m) for m in doc["messages"]]


def test_jsonl_bad_lines_are_reported_and_the_rest_is_kept(selftest: Path,
                                                            tmp_path: Path) -> None:
    lines = jsonl_lines(selftest / "export.json")
    msgs = [json.loads(x) for x in lines]
    # an unknown part type and a tool part without state, inside otherwise good messages
    msgs[1]["parts"].append({"type": "hologram", "id": "prt_zzz1", "sessionID": PARENT,
                             "messageID": msgs[1]["info"]["id"], "beam": 3})
    tool = next(p for p in msgs[2]["parts"] if p["type"] == "tool")
    del tool["state"]
    good = [orjson.dumps(m) for m in msgs]
    bad_utf8 = good[4].replace(b'"text":"', b'"text":"\xff\xfe', 1)
    assert bad_utf8 != good[4]
    body = (good[0] + b"\n" + b"this is not json\n" + good[1] + b"\n" + good[2] + b"\n"
            + good[3] + b"\n" + bad_utf8 + b"\n" + b"\n".join(good[5:]) + b"\n"
            + good[5][:40])  # truncated last line, no newline
    f = tmp_path / "session.jsonl"
    f.write_bytes(body)
    assert detect(f) is JsonlReader
    sessions, problems = read_all(f)
    by_line = {p.line: p for p in problems}
    assert "not valid JSON" in by_line[2].reason and by_line[2].raw == "this is not json"
    assert "unknown part type 'hologram'" in by_line[3].reason
    assert by_line[3].record == "prt_zzz1"
    assert "tool part without state" in by_line[4].reason
    assert "invalid UTF-8" in by_line[6].reason
    last = len(body.splitlines())
    assert "truncated" in by_line[last].reason
    assert all(p.path == str(f) for p in problems)
    events = sessions[PARENT]
    # every good message is stored: 10 messages, the salvaged UTF-8 one included
    assert max(e.ordinal for e in events) == 10
    assert len({e.message_id for e in events}) >= 9
    raw = [e for e in events if e.kind == "raw"]
    assert {r.reason for r in raw} == {"unknown part type 'hologram'",
                                       "tool part without state"}
    assert raw[0].raw["beam"] == 3  # kept verbatim


def test_jsonl_first_line_damaged_is_still_detected(selftest: Path, tmp_path: Path) -> None:
    lines = jsonl_lines(selftest / "export.json")
    f = tmp_path / "s.jsonl"
    f.write_bytes(b"{garbage\n" + b"\n".join(lines) + b"\n")
    assert detect(f) is JsonlReader


def test_jsonl_with_two_sessions(selftest: Path, tmp_path: Path) -> None:
    f = tmp_path / "both.jsonl"
    f.write_bytes(b"\n".join(jsonl_lines(selftest / "export.json")
                             + jsonl_lines(selftest / f"export-{CHILD}.json")) + b"\n")
    sessions, problems = read_all(f)
    assert problems == [] and set(sessions) == {PARENT, CHILD}


# ------------------------------------------------------------- other agents and garbage
@pytest.mark.parametrize("rel, form", [
    ("claude-code/hello-world-script/transcript.jsonl", "claude-code"),
    ("claude-code/python-to-rust-port/transcript.jsonl", "claude-code"),
    ("codex/exported-session.jsonl", "codex"),
    ("labelled/soulpass__codex-session.jsonl", "codex"),
])
def test_other_agents_are_read(realworld: Path, rel: str, form: str) -> None:
    assert detect(realworld / rel).form == form


def test_garbage_is_not_a_transcript(tmp_path: Path) -> None:
    for name, data in [("a.bin", b"\x00\x01\x02garbage"), ("b.json", b"[1, 2, 3]"),
                       ("c.txt", b"hello\nworld\n"), ("empty.jsonl", b"")]:
        f = tmp_path / name
        f.write_bytes(data)
        with pytest.raises(NotATranscript):
            detect(f)


# The tree the walk below is run over: named copies of realworld samples (never the
# pool, which holds the held-out files) and of fixtures/realworld_trim, trimmed lines
# of one file per other agent's form.
WALKED = {
    "selftest": "opencode-recorded/selftest",  # a db and its -shm/-wal, a run stream,
    # two exports, and the recorder's meta.json and requests.log beside them
    "opencode/session__jolly-eagle__ses_39b5d713cffeRgAoxPIwS3Plus.json":
        "opencode/session__jolly-eagle__ses_39b5d713cffeRgAoxPIwS3Plus.json",
    "opencode/session__nimble-pixel__ses_39b4c1891ffezxPVc5OPmcqF33.json":
        "opencode/session__nimble-pixel__ses_39b4c1891ffezxPVc5OPmcqF33.json",
    "claude-code/hello-world-script/transcript.jsonl":
        "claude-code/hello-world-script/transcript.jsonl",
    # the labelled tuning set's README, a label file (not a session) and its opencode.db
    **{f"labelled/{n}": f"labelled/{n}" for n in (
        "README.md", "stunning-memory.json", "stunning-memory__opencode.db",
        "stunning-memory__opencode.db-shm", "stunning-memory__opencode.db-wal")},
}
TRIM = Path(__file__).resolve().parents[2] / "fixtures" / "realworld_trim"
TRIMS = ("README.md", "matugen_zh.json", "codex_code_mode.jsonl", "rewrite_claude.jsonl",
         "rewrite_codex.jsonl", "gemini_cli.jsonl", "pi.jsonl", "antigravity.jsonl",
         "gemini_chats")  # a Gemini CLI sub-agent's chat, two directories down


def test_discover_walks_a_directory_and_skips_non_transcripts(
        realworld: Path, tmp_path: Path) -> None:
    copies = [(realworld / src, dst) for dst, src in WALKED.items()]
    for src, dst in copies + [(TRIM / name, f"trim/{name}") for name in TRIMS]:
        (tmp_path / dst).parent.mkdir(parents=True, exist_ok=True)
        if src.is_dir():
            shutil.copytree(src, tmp_path / dst)
        else:
            shutil.copyfile(src, tmp_path / dst)
    walked = list(discover(tmp_path))
    found = {str(i.path.relative_to(tmp_path)): i.form for i in walked
             if not isinstance(i, NotATranscript)}
    # every form at its place: opencode's export, database (the selftest's opencode.db
    # and a database under another name) and run stream; Claude Code, Codex, and a
    # sub-agent's chat two directories down; a database's -shm and -wal are not inputs
    assert found == {
        "selftest/opencode.db": "sqlite", "selftest/run.jsonl": "run",
        "selftest/export.json": "export",
        "selftest/export-ses_dc9fbd402ffeP8aYsH636IxT7s.json": "export",
        **{k: "export" for k in WALKED if k.startswith("opencode/")},
        "claude-code/hello-world-script/transcript.jsonl": "claude-code",
        "labelled/stunning-memory__opencode.db": "sqlite",
        "trim/matugen_zh.json": "export",
        "trim/codex_code_mode.jsonl": "codex",
        # the authors' rewrites of a Claude Code and a Codex session are read as what
        # they are, and the other agents' logs each by its own reader
        "trim/rewrite_claude.jsonl": "rewrite", "trim/rewrite_codex.jsonl": "rewrite",
        "trim/gemini_cli.jsonl": "gemini-cli", "trim/pi.jsonl": "pi",
        "trim/antigravity.jsonl": "antigravity",
        "trim/gemini_chats/chats/808bbe03-132f-4378-a7ad-2375f4375231/v6r2l5.jsonl":
            "gemini-cli",
    }
    refused = {str(Path(i.path).relative_to(tmp_path)): i for i in walked
               if isinstance(i, NotATranscript)}
    # every file not taken is listed (a walk passes over them: not errors)
    assert sorted(refused) == ["labelled/README.md", "labelled/stunning-memory.json",
                               "selftest/meta.json", "selftest/requests.log",
                               "trim/README.md"]
    assert all(r.walked and not r.is_error for r in refused.values())


def test_source_session_is_streamed(selftest: Path, tmp_path: Path) -> None:
    f = tmp_path / "s.jsonl"
    f.write_bytes(b"\n".join(jsonl_lines(selftest / "export.json")) + b"\n")
    src = next(iter(JsonlReader().sessions.__call__(f, [])))
    assert isinstance(src, SourceSession)
    assert not isinstance(src.messages, list)
