"""The opencode fixtures against real opencode: shapes, forms, ordinals, determinism.

Reference data: the opencode 1.18.33 recordings in ``shared/realworld/opencode-recorded/selftest``
(tests that need it are skipped where it is absent) and ``fixtures/opencode_recorded/``. Every form
is re-read with plain ``json``/``sqlite3`` -- never with the writer's own code -- and the SQLite
store is opened read-only *with* its WAL (never ``immutable=1``, which hides the newest rows).
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil
import sqlite3
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from fixtures.blackwell.filler import FORBIDDEN
from fixtures.blackwell.story import DEEP_EP_COMMAND, DEEP_EP_OUTPUT, GREP_COMMAND, SED_COMMAND
from fixtures.opencode_builder import (
    BuildContext,
    SessionBuilder,
    bash,
    task,
    todowrite,
    unified_patch,
)
from fixtures.opencode_writer import write_all
from tests.conftest import digests

ROOT = Path(__file__).resolve().parents[2]
SELFTEST = Path("/work/shared/realworld/opencode-recorded/selftest")
PROBE = ROOT / "fixtures" / "opencode_recorded" / "worktree-probe"
OWN_TABLES = ("project", "project_directory", "session", "message", "part", "todo", "migration")
ID_RX = re.compile(r"^(msg|prt|ses)_[0-9a-f]{12}[0-9A-Za-z]{14}$")

needs_selftest = pytest.mark.skipif(
    not SELFTEST.exists(), reason="opencode 1.18.33 recording not available"
)


# --------------------------------------------------------------------------- helpers


def load_json(path: Path) -> Any:
    return json.loads(path.read_bytes())


def connect_ro(db: Path) -> sqlite3.Connection:
    """Read-only, WAL included (``immutable=1`` would silently drop the rows in the WAL)."""
    return sqlite3.connect(f"file:{db}?mode=ro", uri=True)


def sorted_messages(export: dict) -> list[dict]:
    return sorted(export["messages"], key=lambda m: (m["info"]["time"]["created"], m["info"]["id"]))


def key_shapes(export: dict) -> set[tuple]:
    """Key-order signatures of everything in an export (what "same shape" means here)."""
    shapes: set[tuple] = {("session", tuple(export["info"]))}
    for msg in export["messages"]:
        info = msg["info"]
        shapes.add(("message", info["role"], tuple(info)))
        if "tokens" in info:
            shapes.add(("tokens", tuple(info["tokens"]), tuple(info["tokens"]["cache"])))
        for part in msg["parts"]:
            shapes.add(("part", part["type"], tuple(part)))
            if part["type"] == "tool":
                state = part["state"]
                shapes.add(("state", part["tool"], state["status"], tuple(state)))
                shapes.add(("metadata", part["tool"], tuple(state.get("metadata", {}))))
    return shapes


def shape_kind(shape: tuple) -> tuple:
    """What a shape describes (a message role, a part type, a tool state...), without the keys."""
    return shape[:3] if shape[0] == "state" else shape[:2]


def recorded_shapes() -> set[tuple]:
    shapes = key_shapes(load_json(PROBE / "export.json"))
    if SELFTEST.exists():
        for path in SELFTEST.glob("export*.json"):
            shapes |= key_shapes(load_json(path))
    return shapes


def texts_of(msg: dict) -> str:
    """All searchable text of a message: prose, tool inputs, outputs and errors."""
    chunks = []
    for part in msg["parts"]:
        if part["type"] == "text":
            chunks.append(part["text"])
        elif part["type"] == "tool":
            state = part["state"]
            chunks.append(json.dumps(state["input"], ensure_ascii=False))
            chunks.append(state.get("output", "") + state.get("error", ""))
    return "\n".join(chunks)


def tools_of(msg: dict, tool: str) -> list[dict]:
    return [p for p in msg["parts"] if p["type"] == "tool" and p["tool"] == tool]


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def built_with_digests(blackwell_with_digests: tuple[Path, dict[str, str]]
                       ) -> tuple[Path, dict[str, str]]:
    """The run's build (conftest), its digests taken before any reader touched the -shm."""
    return blackwell_with_digests


@pytest.fixture(scope="module")
def built(built_with_digests: tuple[Path, dict[str, str]]) -> Path:
    return built_with_digests[0]


@pytest.fixture(scope="module")
def manifest(built: Path) -> dict:
    return load_json(built / "manifest.json")


@pytest.fixture(scope="module")
def export(built: Path) -> dict:
    return load_json(built / "export.json")


@pytest.fixture(scope="module")
def ordered(export: dict) -> list[dict]:
    return sorted_messages(export)


@pytest.fixture(scope="module")
def child_export(built: Path, manifest: dict) -> dict:
    (cid,) = manifest["child_ids"]
    return load_json(built / f"export-{cid}.json")


def tiny_tree(seed: int = 7) -> dict:
    """A hand-built two-turn session using every tool shape the builder offers."""
    ctx = BuildContext(random.Random(seed), directory="/srv/campaign", project_id="ab" * 20)
    ctx.files["notes/log.md"] = "# log\n- started\n"
    s = SessionBuilder(ctx, title="Tiny", start_ms=1_790_000_000_000)
    s.user("Is DeepEP usable here?")
    s.step(
        "Plan:",
        [todowrite([{"content": "Check DeepEP", "status": "in_progress", "priority": "high"}])],
    )
    s.step("Checking:", [bash("python3 -c 'import deep_ep'", "ModuleNotFoundError\n", exit_code=1)])

    def child(c: SessionBuilder) -> None:
        c.step("Grepping.", [bash("grep -rn a2a srv", "srv/a.py:2:a2a\n")])
        c.step("The a2a backends are deepep and flashinfer.")

    s.step("Research:", [task("Research EP flags", "Find the a2a backends", child)])
    s.step("Noting it.", [s.edit("notes/log.md", "- started", "- started\n- no deep_ep")])
    s.step("Done for now.")
    s.user("Write a plan file and read the log.")
    s.step(
        "Writing.", [s.write("notes/plan.md", "# plan\n- try flashinfer\n"), s.read("notes/log.md")]
    )
    s.step("Decision: go with flashinfer.")
    return s.tree()


# --------------------------------------------------------------------------- SQLite store


@needs_selftest
def test_db_ddl_equals_the_recorded_1_18_33_ddl(built: Path) -> None:
    ours = connect_ro(built / "data/opencode/opencode.db")
    real = connect_ro(SELFTEST / "opencode.db")
    q = "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY rowid"
    assert ours.execute(q).fetchall() == real.execute(q).fetchall()
    for table in OWN_TABLES:
        q = "SELECT sql FROM sqlite_master WHERE name = ?"
        assert ours.execute(q, (table,)).fetchone() == real.execute(q, (table,)).fetchone()
    migrations = "SELECT id FROM migration ORDER BY rowid"
    assert ours.execute(migrations).fetchall() == real.execute(migrations).fetchall()


def test_db_is_wal_and_its_newest_rows_live_only_in_the_wal(built: Path, manifest: dict) -> None:
    db = built / "data/opencode/opencode.db"
    header = db.read_bytes()[:100]
    assert header[:16] == b"SQLite format 3\x00"
    assert header[18:20] == b"\x02\x02"  # WAL read/write versions
    wal = Path(f"{db}-wal")
    assert wal.stat().st_size > 32 and Path(f"{db}-shm").exists()
    total = manifest["message_count"] + sum(manifest["child_message_counts"].values())
    con = connect_ro(db)
    assert con.execute("PRAGMA journal_mode").fetchone() == ("wal",)
    assert con.execute("SELECT count(*) FROM message").fetchone() == (total,)
    # a reader that ignores the WAL loses the end of the session
    frozen = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    assert frozen.execute("SELECT count(*) FROM message").fetchone()[0] < total


def test_db_rows_rebuild_the_export_exactly(built: Path, manifest: dict) -> None:
    con = connect_ro(built / "data/opencode/opencode.db")
    for sid in [manifest["session_id"], *manifest["child_ids"]]:
        name = "export.json" if sid == manifest["session_id"] else f"export-{sid}.json"
        exported = load_json(built / name)
        rows = con.execute(
            "SELECT id, session_id, time_created, data FROM message WHERE session_id = ? "
            "ORDER BY time_created, id",
            (sid,),
        ).fetchall()
        parts: dict[str, list] = {}
        for pid, mid, psid, data in con.execute(
            "SELECT id, message_id, session_id, data FROM part WHERE session_id = ? "
            "ORDER BY message_id, id",
            (sid,),
        ):
            parts.setdefault(mid, []).append(
                {**json.loads(data), "id": pid, "sessionID": psid, "messageID": mid}
            )
        rebuilt = [
            {
                "info": {**json.loads(data), "id": mid, "sessionID": msid},
                "parts": parts.get(mid, []),
            }
            for mid, msid, _t, data in rows
        ]
        # equal *with key order* (json.dumps keeps insertion order)
        assert json.dumps(rebuilt) == json.dumps(exported["messages"])
        assert all(
            created == m["info"]["time"]["created"]
            for (_i, _s, created, _d), m in zip(rows, rebuilt, strict=True)
        )
        srow = con.execute(
            "SELECT parent_id, title, version, slug FROM session WHERE id = ?", (sid,)
        ).fetchone()
        info = exported["info"]
        assert srow == (info.get("parentID"), info["title"], info["version"], info["slug"])
    project = con.execute("SELECT id, worktree, vcs FROM project").fetchall()
    assert project == [(manifest["project_id"], manifest["directory"], "git")]


def test_db_todo_rows_are_the_final_todo_list(built: Path, manifest: dict) -> None:
    con = connect_ro(built / "data/opencode/opencode.db")
    rows = con.execute(
        "SELECT content, status, priority FROM todo WHERE session_id = ? ORDER BY position",
        (manifest["session_id"],),
    ).fetchall()
    last = manifest["todo_snapshots"][-1]["todos"]
    assert rows == [(t["content"], t["status"], t["priority"]) for t in last]


# --------------------------------------------------------------------------- export / jsonl


def test_export_is_two_space_json_with_trailing_newline(built: Path, manifest: dict) -> None:
    for path in [
        built / "export.json",
        *(built / f"export-{c}.json" for c in manifest["child_ids"]),
    ]:
        raw = path.read_bytes()
        obj = json.loads(raw)
        assert list(obj) == ["info", "messages"]
        assert raw == (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()


def test_key_orders_match_real_opencode_exports(export: dict, child_export: dict) -> None:
    ours = key_shapes(export) | key_shapes(child_export)
    real = recorded_shapes()
    kinds = {shape_kind(s) for s in real}
    assert {s for s in ours if shape_kind(s) in kinds} - real == set()
    # everything the recordings show a shape for is compared (only tools they lack are not)
    assert {shape_kind(s) for s in ours} - kinds <= {("tool-free",)}
    # the id keys always come last, in opencode's order
    for msg in export["messages"]:
        assert list(msg["info"])[-2:] == ["id", "sessionID"]
        for part in msg["parts"]:
            assert list(part)[-3:] == ["id", "sessionID", "messageID"]


@needs_selftest
def test_session_info_shape_matches_the_recording(export: dict, child_export: dict) -> None:
    real = load_json(SELFTEST / "export.json")["info"]
    real_child = load_json(next(SELFTEST.glob("export-ses_*.json")))["info"]
    assert list(export["info"]) == list(real)
    assert list(child_export["info"]) == list(real_child)
    assert export["info"]["version"] == real["version"] == "1.18.33"


def test_jsonl_holds_the_export_messages(built: Path, export: dict, manifest: dict) -> None:
    lines = [json.loads(line) for line in (built / "session.jsonl").read_text().splitlines()]
    assert json.dumps(lines) == json.dumps(export["messages"])
    for cid in manifest["child_ids"]:
        child = [json.loads(x) for x in (built / f"session-{cid}.jsonl").read_text().splitlines()]
        assert child == load_json(built / f"export-{cid}.json")["messages"]


# --------------------------------------------------------------------------- run stream


def test_run_stream_covers_every_assistant_step_and_nothing_else(built: Path, export: dict) -> None:
    events = [json.loads(line) for line in (built / "run.jsonl").read_text().splitlines()]
    sid = export["info"]["id"]
    roles = {m["info"]["id"]: m["info"]["role"] for m in export["messages"]}
    parts = {p["id"]: p for m in export["messages"] for p in m["parts"]}
    assert {e["type"] for e in events} == {"step_start", "text", "tool_use", "step_finish"}
    assert all(list(e) == ["type", "timestamp", "sessionID", "part"] for e in events)
    assert all(e["sessionID"] == sid and e["part"]["sessionID"] == sid for e in events)
    assert all(roles[e["part"]["messageID"]] == "assistant" for e in events)  # no user messages
    for e in events:  # the same part as in the export (key order aside)
        assert e["part"] == parts[e["part"]["id"]]
    by_message: dict[str, list] = {}
    for e in events:
        by_message.setdefault(e["part"]["messageID"], []).append(e)
    steps = [m for m in export["messages"] if m["info"]["role"] == "assistant"]
    assert list(by_message) == [m["info"]["id"] for m in steps]  # every step, in order
    for msg in steps:
        evs = by_message[msg["info"]["id"]]
        kinds = Counter(e["type"] for e in evs)
        assert kinds["step_start"] == kinds["step_finish"] == 1
        assert evs[0]["type"] == "step_start" and evs[-1]["type"] == "step_finish"
        assert [e["timestamp"] for e in evs] == sorted(e["timestamp"] for e in evs)
        wanted = [
            p["id"]
            for p in msg["parts"]
            if p["type"] in ("step-start", "text", "tool", "step-finish")
        ]
        assert sorted(e["part"]["id"] for e in evs) == sorted(wanted)


@needs_selftest
def test_run_stream_part_key_orders_match_the_recording(built: Path) -> None:
    def shapes(path: Path) -> set[tuple]:
        out = set()
        for line in path.read_text().splitlines():
            e = json.loads(line)
            out.add((e["type"], e["part"].get("tool"), tuple(e["part"])))
        return out

    real = shapes(SELFTEST / "run.jsonl") | shapes(PROBE / "run.jsonl")
    ours = shapes(built / "run.jsonl")
    real_kinds = {s[:2] for s in real}
    assert {s for s in ours if s[:2] in real_kinds} - real == set()


# --------------------------------------------------------------------------- gen-B JSON tree


def test_legacy_tree_layout_and_content(built: Path, manifest: dict, export: dict) -> None:
    storage = built / "legacy/opencode/storage"
    assert (storage / "migration").read_text() == "2"
    assert (
        load_json(storage / "project" / f"{manifest['project_id']}.json")["worktree"]
        == manifest["directory"]
    )
    for sid in [manifest["session_id"], *manifest["child_ids"]]:
        raw = (storage / "session" / manifest["project_id"] / f"{sid}.json").read_bytes()
        assert not raw.endswith(b"\n")
        session = json.loads(raw)
        assert session["id"] == sid and session["version"] == "1.1.65"
        assert list(session)[:5] == ["id", "slug", "version", "projectID", "directory"]
    msg_files = sorted((storage / "message" / manifest["session_id"]).glob("*.json"))
    assert [p.stem for p in msg_files] == sorted(m["info"]["id"] for m in export["messages"])
    for msg in export["messages"][5210:5222]:
        mid = msg["info"]["id"]
        legacy = load_json(storage / "message" / manifest["session_id"] / f"{mid}.json")
        assert list(legacy)[:3] == ["id", "sessionID", "role"]
        files = sorted((storage / "part" / mid).glob("*.json"))
        assert [p.stem for p in files] == [p["id"] for p in msg["parts"]]
        for path, part in zip(files, msg["parts"], strict=True):
            old = load_json(path)
            assert list(old)[:4] == ["id", "sessionID", "messageID", "type"]
            assert old["type"] == part["type"]
            if part["type"] == "tool":
                assert old["tool"] == part["tool"] and old["callID"] == part["callID"]
                if part["tool"] == "bash":
                    assert old["state"]["output"] == part["state"]["output"]
                    assert old["state"]["title"] == part["state"]["input"]["description"]
                if part["tool"] == "task":
                    child = part["state"]["metadata"]["sessionId"]
                    assert old["state"]["output"].startswith(f"task_id: {child} (for resuming")
                if part["tool"] == "todowrite":
                    todos = old["state"]["input"]["todos"]
                    assert [t["id"] for t in todos] == [str(i + 1) for i in range(len(todos))]
    todo = load_json(storage / "todo" / f"{manifest['session_id']}.json")
    assert [t["content"] for t in todo] == [
        t["content"] for t in manifest["todo_snapshots"][-1]["todos"]
    ]


# --------------------------------------------------------------------------- the story


def test_export_messages_are_already_in_ordinal_order(export: dict, ordered: list[dict]) -> None:
    assert [m["info"]["id"] for m in ordered] == [m["info"]["id"] for m in export["messages"]]


def test_manifest_basics(manifest: dict, export: dict) -> None:
    assert manifest["message_count"] == len(export["messages"])
    assert manifest["session_id"] == export["info"]["id"]
    assert ID_RX.match(manifest["session_id"])
    for key, element in manifest["story"].items():
        msg = export["messages"][element["ordinal"] - 1]
        assert msg["info"]["id"] == element["message_id"], key
    days = (manifest["time"]["last"] - manifest["time"]["first"]) / 86_400_000
    assert 18 <= days <= 24  # about three weeks


def test_story_ordinals_5214_to_5219(
    ordered: list[dict], manifest: dict, child_export: dict
) -> None:
    story = manifest["story"]
    assert [
        story[k]["ordinal"]
        for k in (
            "insight",
            "research_task",
            "deep_ep_check",
            "double_check",
            "flashinfer_a2a_grep",
            "flashinfer_a2a_sed",
        )
    ] == [5214, 5215, 5216, 5217, 5218, 5219]

    insight = ordered[5214 - 1]
    text = texts_of(insight)
    assert "*number* of allreduces" in text and "122" in text and "24.4 ms" in text
    assert "stop making allreduce faster, change the pattern" in text
    (todo,) = tools_of(insight, "todowrite")
    todos = todo["state"]["input"]["todos"]
    dead = [t for t in todos if "DEAD END" in t["content"]]
    assert len(dead) == 4 and all(t["status"] == "cancelled" for t in dead)
    assert {
        "content": "Expert Parallelism via DeepEP",
        "status": "in_progress",
        "priority": "high",
    } in todos

    (call,) = tools_of(ordered[5215 - 1], "task")
    child_id = call["state"]["metadata"]["sessionId"]
    assert child_id == manifest["child_ids"][0] == child_export["info"]["id"]
    assert call["state"]["output"].startswith(
        f'<task id="{child_id}" state="completed">\n<task_result>\n'
    )
    assert call["state"]["output"].endswith("\n</task_result>\n</task>")
    assert child_export["info"]["parentID"] == manifest["session_id"]
    assert (
        child_export["info"]["title"]
        == f"{call['state']['input']['description']} (@general subagent)"
    )
    child_msgs = child_export["messages"]
    assert "moe_a2a_backend" in tools_of(child_msgs[1], "bash")[0]["state"]["input"]["command"]
    assert "sed -n" in tools_of(child_msgs[2], "bash")[0]["state"]["input"]["command"]
    answer = child_msgs[-1]
    assert answer["info"]["finish"] == "stop"
    for needle in ("`deepep`", "`flashinfer`", "ep_size = tp_size", "tensor parallelism"):
        assert needle in texts_of(answer)

    check = ordered[5216 - 1]
    assert check["parts"][1]["text"].startswith(
        "Excellent research. EP with deepep looks promising"
    )
    (bash_part,) = tools_of(check, "bash")
    assert bash_part["state"]["input"]["command"] == DEEP_EP_COMMAND
    assert bash_part["state"]["output"] == DEEP_EP_OUTPUT
    assert bash_part["state"]["metadata"]["exit"] == 255

    assert "not found" in texts_of(ordered[5217 - 1])
    grep = ordered[5218 - 1]
    assert (
        grep["parts"][1]["text"] == "DeepEP is not installed. Let me check flashinfer A2A backend:"
    )
    assert tools_of(grep, "bash")[0]["state"]["input"]["command"] == GREP_COMMAND
    assert (
        tools_of(grep, "bash")[0]["state"]["output"]
        == '2197:        if self.moe_a2a_backend == "flashinfer":\n'
    )
    sed = tools_of(ordered[5219 - 1], "bash")[0]["state"]
    assert sed["input"]["command"] == SED_COMMAND
    assert sed["output"].splitlines()[2] == '        if self.moe_a2a_backend == "flashinfer":'
    assert len(sed["output"].splitlines()) == 26


def test_story_after_5219(ordered: list[dict], manifest: dict) -> None:
    story = manifest["story"]
    oom = ordered[story["a2a_launch_oom"]["ordinal"] - 1]
    command = tools_of(oom, "bash")[0]["state"]["input"]["command"]
    assert "--moe-a2a-backend flashinfer" in command and "nohup" in command and "sleep" in command
    assert "torch.OutOfMemoryError: CUDA out of memory." in texts_of(oom)
    assert 5219 < story["a2a_launch_oom"]["ordinal"] < story["a2a_launch_oom"]["ended_ordinal"]

    bench = ordered[story["cuda_graph_max_bs_benchmark"]["ordinal"] - 1]
    out = tools_of(bench, "bash")[0]["state"]["output"]
    assert "sglang.bench_serving" in tools_of(bench, "bash")[0]["state"]["input"]["command"]
    assert re.search(r"Output token throughput \(tok/s\):\s+89\.50\b", out)
    assert re.search(r"Median TPOT \(ms\):\s+11\.17\b", out)
    launch = ordered[story["cuda_graph_max_bs_benchmark"]["ordinal"] - 2]
    assert "--cuda-graph-max-bs 128" in texts_of(launch)

    decision = ordered[story["cuda13_decision"]["ordinal"] - 1]
    assert decision["parts"][1]["text"].startswith("Decision: upgrade the box to CUDA 13")
    assert tools_of(decision, "todowrite")
    last = ordered[-1]
    assert story["final_message"]["ordinal"] == len(ordered) == manifest["message_count"]
    assert last["info"]["role"] == "assistant" and last["info"]["finish"] == "stop"


def test_dead_ends_and_measurement(ordered: list[dict], manifest: dict) -> None:
    keys = [d["key"] for d in manifest["dead_ends"]]
    assert keys == [
        "flashinfer_allreduce_fusion",
        "custom_allreduce_pcie",
        "nccl_tree",
        "torch_symm_mem",
    ]
    for dead in manifest["dead_ends"]:
        assert 4000 <= min(dead["tested_ordinals"]) < dead["ended_ordinal"] < 5214
        tested = "\n".join(texts_of(ordered[o - 1]) for o in dead["tested_ordinals"])
        assert dead["signature"] in tested, dead["key"]
        (todo,) = tools_of(ordered[dead["ended_ordinal"] - 1], "todowrite")
        assert any(
            t["status"] == "cancelled" and "DEAD END" in t["content"]
            for t in todo["state"]["input"]["todos"]
        )
    fusion, custom, tree, symm = (
        "\n".join(texts_of(ordered[o - 1]) for o in d["tested_ordinals"])
        for d in manifest["dead_ends"]
    )
    assert "compute_120a" in fusion and "Traceback" in fusion
    assert re.search(r"Output token throughput \(tok/s\):\s+38\.\d\d", custom)
    assert "NCCL_ALGO=Tree" in tree and "RuntimeError" in tree and "Capture cuda graph" in tree
    assert symm.rstrip().splitlines()[-3] == "KeyError: 12"
    assert "56 simultaneous cross-GPU reads" in texts_of(
        ordered[manifest["dead_ends"][1]["ended_ordinal"] - 1]
    )

    m = manifest["story"]["eagle3_measurement"]
    base = texts_of(ordered[m["baseline_ordinal"] - 1])
    spec = texts_of(ordered[m["spec_ordinal"] - 1])
    assert re.search(r"Output token throughput \(tok/s\):\s+82\.\d\d", base)
    assert re.search(r"Output token throughput \(tok/s\):\s+54\.\d\d", spec)
    profile = texts_of(ordered[manifest["story"]["verify_profile"]["ordinal"] - 1])
    assert "122" in profile and "200.3" in profile and "24.44" in profile
    snapshots = [s["ordinal"] for s in manifest["todo_snapshots"]]
    assert len(snapshots) >= 6 and snapshots == sorted(snapshots)
    found = [i + 1 for i, msg in enumerate(ordered) if tools_of(msg, "todowrite")]
    assert found == snapshots


def test_filler_is_neutral(ordered: list[dict], manifest: dict) -> None:
    story = set(manifest["story_ordinals"])
    offenders = []
    for ordinal, msg in enumerate(ordered, start=1):
        if ordinal in story:
            continue
        text = texts_of(msg)
        hit = FORBIDDEN.search(text)
        if hit:
            offenders.append((ordinal, hit.group(0)))
        for value in re.findall(r"Output token throughput \(tok/s\):\s+([\d.]+)", text):
            assert 80.0 <= float(value) <= 83.5, ordinal
    assert offenders == []
    # the story itself does use that vocabulary
    assert any(FORBIDDEN.search(texts_of(ordered[o - 1])) for o in story)


def test_turn_structure(export: dict, child_export: dict) -> None:
    for session in (export, child_export):
        msgs = session["messages"]
        assert msgs[0]["info"]["role"] == "user"
        user = None
        for prev, msg in zip([None, *msgs], msgs, strict=False):
            info = msg["info"]
            assert ID_RX.match(info["id"]) and info["sessionID"] == session["info"]["id"]
            if info["role"] == "user":
                if prev is not None:
                    assert prev["info"]["role"] == "assistant" and prev["info"]["finish"] == "stop"
                user = info["id"]
                continue
            assert info["parentID"] == user
            types = [p["type"] for p in msg["parts"]]
            assert types[0] == "step-start" and "step-finish" in types
            finish = next(p for p in msg["parts"] if p["type"] == "step-finish")
            assert finish["reason"] == info["finish"]
            assert finish["tokens"] == info["tokens"] and finish["cost"] == info["cost"]
            assert info["finish"] == ("tool-calls" if "tool" in types else "stop")
            part_ids = [p["id"] for p in msg["parts"]]
            assert part_ids == sorted(part_ids)
        ids = [m["info"]["id"] for m in msgs]
        assert ids == sorted(ids)
        times = [m["info"]["time"]["created"] for m in msgs]
        assert times == sorted(times)
    # session ids are descending: the child (created later) sorts before its parent
    assert child_export["info"]["id"] < export["info"]["id"]


def test_sizes_are_realistic(export: dict) -> None:
    sizes = [
        len(p["state"].get("output", ""))
        for m in export["messages"]
        for p in m["parts"]
        if p["type"] == "tool"
    ]
    small = sum(1 for s in sizes if 100 <= s <= 3_000 or s < 100)
    assert small / len(sizes) > 0.8
    assert sum(1 for s in sizes if 10_000 <= s <= 30_000) >= 20
    assert max(sizes) <= 30_000  # under opencode's metadata.output cut, so nothing is truncated


# --------------------------------------------------------------------------- determinism


@pytest.mark.slow
def test_a_second_build_from_the_command_line_is_byte_identical(
    tmp_path: Path, built_with_digests: tuple[Path, dict[str, str]]
) -> None:
    out = tmp_path / "cli"
    proc = subprocess.run(
        [sys.executable, "-m", "fixtures.blackwell.build", str(out)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert "MB in" in proc.stderr
    first = built_with_digests[1]
    second = digests(out)
    assert sorted(second) == sorted(first)
    assert [name for name in first if first[name] != second[name]] == []


# --------------------------------------------------------------------------- small hand-built trees


def test_tiny_tree_in_all_forms(tmp_path: Path) -> None:
    tree = tiny_tree()
    files = write_all(tree, tmp_path)
    exported = load_json(tmp_path / "export.json")
    assert exported == {"info": tree["info"], "messages": tree["messages"]}
    (child,) = tree["children"]
    assert files["children"] == {
        child["info"]["id"]: {
            "export": f"export-{child['info']['id']}.json",
            "jsonl": f"session-{child['info']['id']}.jsonl",
        }
    }
    con = connect_ro(tmp_path / files["db"])
    assert con.execute("SELECT count(*) FROM message").fetchone() == (
        len(tree["messages"]) + len(child["messages"]),
    )
    assert con.execute(
        "SELECT parent_id FROM session WHERE id = ?", (child["info"]["id"],)
    ).fetchone() == (tree["info"]["id"],)
    assert con.execute("SELECT content, status FROM todo").fetchall() == [
        ("Check DeepEP", "in_progress")
    ]
    events = [json.loads(x) for x in (tmp_path / "run.jsonl").read_text().splitlines()]
    assert {e["part"]["sessionID"] for e in events} == {tree["info"]["id"]}
    user = exported["messages"][0]["info"]
    assert [d["file"] for d in user["summary"]["diffs"]] == ["notes/log.md"]
    second_user = exported["messages"][6]["info"]
    assert [(d["file"], d["status"]) for d in second_user["summary"]["diffs"]] == [
        ("notes/plan.md", "added")
    ]
    storage = tmp_path / files["legacy_storage"]
    legacy_user = load_json(storage / "message" / tree["info"]["id"] / f"{user['id']}.json")
    diff = legacy_user["summary"]["diffs"][0]
    assert (
        diff["before"] == "# log\n- started\n"
        and diff["after"] == "# log\n- started\n- no deep_ep\n"
    )
    assert write_all(tiny_tree(), tmp_path / "again") == {**files}
    for name in ("export.json", "session.jsonl", "run.jsonl", "data/opencode/opencode.db-wal"):
        assert (tmp_path / name).read_bytes() == (tmp_path / "again" / name).read_bytes()


def test_builder_reproduces_recorded_tool_outputs() -> None:
    """Read/edit/write/todowrite/patch texts equal what opencode 1.18.33 itself produced."""
    probe = load_json(PROBE / "export.json")
    recorded = {
        p["callID"]: p for m in probe["messages"] for p in m["parts"] if p["type"] == "tool"
    }
    ctx = BuildContext(random.Random(1), directory="/srv/campaign", project_id="x" * 40)
    ctx.files["notes/campaign-log.md"] = "# notes\n\n## Log\n- 10-26 08:45: started\n"
    ctx.files["scripts/launch_tp8.sh"] = (
        "#!/usr/bin/env bash\n# Baseline server\nexec python3 -m sglang.launch_server \\\n"
        "  --mem-fraction-static 0.85 \\\n  --port 30000\n"
    )
    s = SessionBuilder(ctx, title="probe", start_ms=1_796_214_165_000)
    calls = [
        s.read("notes/campaign-log.md"),
        s.edit(
            "notes/campaign-log.md",
            "- 10-26 08:45: started",
            "- 10-26 08:45: started\n- 10-27 09:10: baseline 81.9 tok/s",
        ),
        s.edit("scripts/launch_tp8.sh", "0.85", "0.84"),
        s.write("scripts/bench_bs1.sh", "#!/usr/bin/env bash\necho bench\n"),
    ]
    for call, real in zip(calls, sorted(recorded.values(), key=lambda p: p["id"]), strict=False):
        state = real["state"]
        assert (call.tool, call.input, call.output, call.title) == (
            real["tool"],
            state["input"],
            state["output"],
            state["title"],
        )
        assert call.metadata == state["metadata"]
    user = probe["messages"][0]["info"]["summary"]["diffs"]
    before = "# notes\n\n## Log\n- 10-26 08:45: started\n"
    after = before + "- 10-27 09:10: baseline 81.9 tok/s\n"
    assert (
        unified_patch("notes/campaign-log.md", "notes/campaign-log.md", before, after, tabs=True)
        == user[0]["patch"]
    )
    todos = [
        {"content": "A", "status": "completed", "priority": "high"},
        {"content": "B", "status": "cancelled", "priority": "low"},
    ]
    call = todowrite(todos)
    assert call.title == "1 todos" and call.output == json.dumps(todos, indent=2)


@needs_selftest
def test_tiny_tree_matches_selftest_shapes(tmp_path: Path) -> None:
    tree = tiny_tree()
    write_all(tree, tmp_path)
    ours = key_shapes(load_json(tmp_path / "export.json"))
    real = recorded_shapes()
    kinds = {shape_kind(s) for s in real}
    assert {s for s in ours if shape_kind(s) in kinds} - real == set()
    real_db = connect_ro(SELFTEST / "opencode.db")
    ours_db = connect_ro(tmp_path / "data/opencode/opencode.db")
    q = "SELECT name, sql FROM sqlite_master ORDER BY rowid"
    assert ours_db.execute(q).fetchall() == real_db.execute(q).fetchall()


# --------------------------------------------------------------------------- benchmark generator


@pytest.mark.parametrize("form", ["jsonl", "export"])
def test_gen_session(tmp_path: Path, form: str) -> None:
    out = tmp_path / f"s.{form}"
    subprocess.run(
        [sys.executable, "bench/gen_session.py", "--messages", "700", "--form", form, str(out)],
        cwd=ROOT,
        check=True,
        capture_output=True,
    )
    if form == "jsonl":
        msgs = [json.loads(line) for line in out.read_text().splitlines()]
    else:
        raw = out.read_bytes()
        obj = json.loads(raw)
        assert raw == (json.dumps(obj, indent=2, ensure_ascii=False) + "\n").encode()
        msgs = obj["messages"]
        assert obj["info"]["tokens"]["output"] == sum(
            m["info"]["tokens"]["output"] for m in msgs if m["info"]["role"] == "assistant"
        )
    assert len(msgs) == 700
    assert msgs[0]["info"]["role"] == "user" and msgs[-1]["info"]["finish"] == "stop"
    assert not any(FORBIDDEN.search(texts_of(m)) for m in msgs[1:])


# --------------------------------------------------------------------------- real opencode, offline
#
# When the opencode-record tool has installed real opencode builds (~/.cache/opencode-record/<v>/),
# the real CLI reads what the writer produced. It runs in a private network namespace
# (``unshare -n``: loopback only) so it can reach nothing; without that isolation these tests skip.

RECORD_HOME = Path.home() / ".cache" / "opencode-record"


def opencode_binary(version: str) -> Path:
    """The real opencode build; CI (``LOGKB_REQUIRE_OPENCODE=1``, set by ``.ci/run``, which
    installs the builds) fails rather than skips when it or the offline namespace is missing."""
    unavailable = pytest.fail if os.environ.get("LOGKB_REQUIRE_OPENCODE") else pytest.skip
    binary = RECORD_HOME / version / "node_modules" / "opencode-linux-x64" / "bin" / "opencode"
    if not binary.exists():
        unavailable(f"opencode {version} not installed (see .ci/run)")
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        unavailable("no network namespace available to run opencode offline")
    return binary


def run_opencode(version: str, data: Path, project_id: str, tmp: Path, *args: str) -> str:
    """Run ``opencode <args>`` with ``data`` as ``XDG_DATA_HOME``, offline; returns stdout."""
    binary = opencode_binary(version)
    work, home = tmp / "oc-work", tmp / "oc-home"
    work.mkdir(parents=True)
    home.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@localhost"]
    subprocess.run(["git", "init", "-q"], cwd=work, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "init"], cwd=work, check=True)
    (work / ".git" / "opencode").write_text(project_id)  # opencode's cached project id
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "XDG_DATA_HOME": str(data),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_STATE_HOME": str(home / ".state"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
    }
    stdout = tmp / "oc-stdout"
    with stdout.open("wb") as fh:  # not a pipe: opencode truncates large exports into pipes
        proc = subprocess.run(
            ["unshare", "-n", str(binary), *args],
            cwd=work,
            env=env,
            stdout=fh,
            stderr=subprocess.PIPE,
            text=True,
            timeout=300,
        )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return stdout.read_text()


def copy_data(src: Path, dst: Path) -> Path:
    shutil.copytree(src, dst / "opencode")
    return dst


def test_real_opencode_1_18_33_exports_the_tiny_db_byte_identically(tmp_path: Path) -> None:
    tree = tiny_tree()
    write_all(tree, tmp_path / "forms")
    data = copy_data(tmp_path / "forms" / "data" / "opencode", tmp_path / "data")
    for session in (tree, tree["children"][0]):
        sid = session["info"]["id"]
        name = "export.json" if session is tree else f"export-{sid}.json"
        out = run_opencode("1.18.33", data, "ab" * 20, tmp_path / sid, "export", sid)
        assert out == (tmp_path / "forms" / name).read_text()


@pytest.mark.slow
def test_real_opencode_1_18_33_exports_the_campaign_db_byte_identically(
    built: Path, manifest: dict, tmp_path: Path
) -> None:
    data = copy_data(built / "data" / "opencode", tmp_path / "data")
    out = run_opencode(
        "1.18.33", data, manifest["project_id"], tmp_path, "export", manifest["session_id"]
    )
    assert out == (built / "export.json").read_text()


def test_real_opencode_1_1_65_reads_the_legacy_tree(tmp_path: Path) -> None:
    tree = tiny_tree()
    write_all(tree, tmp_path / "forms")
    storage = tmp_path / "forms" / "legacy" / "opencode" / "storage"
    data = copy_data(storage.parent, tmp_path / "data")
    sid = tree["info"]["id"]
    out = run_opencode("1.1.65", data, "ab" * 20, tmp_path / "run", "export", sid)
    exported = json.loads(out[out.index("{") :])
    assert exported["info"] == load_json(next(storage.glob(f"session/*/{sid}.json")))
    assert [m["info"]["id"] for m in exported["messages"]] == [
        m["info"]["id"] for m in tree["messages"]
    ]
    for msg in exported["messages"]:
        mid = msg["info"]["id"]
        assert msg["info"] == load_json(storage / "message" / sid / f"{mid}.json")
        assert msg["parts"] == [
            load_json(p) for p in sorted((storage / "part" / mid).glob("*.json"))
        ]


def test_real_opencode_1_2_6_migrates_the_legacy_tree(tmp_path: Path) -> None:
    """1.2.x imports a gen-B tree into SQLite on first start (the one-time JSON migration)."""
    tree = tiny_tree()
    write_all(tree, tmp_path / "forms")
    data = copy_data(tmp_path / "forms" / "legacy" / "opencode", tmp_path / "data")
    sid = tree["info"]["id"]
    out = run_opencode("1.2.6", data, "ab" * 20, tmp_path / "run", "export", sid)
    exported = json.loads(out[out.index("{") :])
    assert len(exported["messages"]) == len(tree["messages"])
    con = connect_ro(data / "opencode" / "opencode.db")
    total = len(tree["messages"]) + len(tree["children"][0]["messages"])
    assert con.execute("SELECT count(*) FROM message").fetchone() == (total,)
    assert con.execute("SELECT count(*) FROM todo").fetchone() == (1,)
