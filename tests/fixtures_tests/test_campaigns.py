"""The labelled campaigns (``fixtures.campaigns``): they build, are deterministic, and every label
points at a message that really says what the label claims.

Everything is re-read from the written files with plain ``json``/``sqlite3``; ordinals are
recomputed here by sorting the export's messages by ``(time.created, id)``.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from fixtures.campaigns import CAMPAIGNS, blackwell_labels, pgpool_world, rustci_world
from fixtures.campaigns._story import ABORTED, STATUSES

ROOT = Path(__file__).resolve().parents[2]
NAMES = sorted(CAMPAIGNS)
FORBIDDEN = {"pgpool": pgpool_world.FORBIDDEN, "rustci": rustci_world.FORBIDDEN}
#: The approaches that must share one root cause in each campaign (the brief's shared causes).
SHARED = {
    "pgpool": ["PgBouncer transaction pooling", "Persistent connections (CONN_MAX_AGE)"],
    "rustci": ["mold linker", "cranelift codegen backend"],
    "blackwell": ["FlashInfer allreduce fusion", "Torch symmetric memory allreduce"],
}


# --------------------------------------------------------------------------- helpers


def digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def ordered(export: dict[str, Any]) -> list[dict[str, Any]]:
    return sorted(export["messages"], key=lambda m: (m["info"]["time"]["created"], m["info"]["id"]))


def tools(msg: dict[str, Any]) -> list[dict[str, Any]]:
    return [p for p in msg["parts"] if p["type"] == "tool"]


def texts_of(msg: dict[str, Any]) -> str:
    """Everything a reader sees in a message: prose, tool inputs, outputs and errors."""
    chunks = []
    for part in msg["parts"]:
        if part["type"] == "text":
            chunks.append(part["text"])
        elif part["type"] == "tool":
            state = part["state"]
            chunks.append(json.dumps(state["input"], ensure_ascii=False))
            chunks.append(state.get("output", "") + state.get("error", ""))
            chunks.append(str(state.get("metadata", {}).get("output", "")))
    return "\n".join(chunks)


def prose_of(msg: dict[str, Any]) -> str:
    """What the agent *says*: text parts and the todo items it writes."""
    chunks = [p["text"] for p in msg["parts"] if p["type"] == "text"]
    for part in tools(msg):
        if part["tool"] == "todowrite":
            chunks += [t["content"] for t in part["state"]["input"]["todos"]]
    return "\n".join(chunks)


def has(text: str, words: list[str]) -> bool:
    low = text.lower()
    return any(w.lower() in low for w in words)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, dict[str, str]]]:
    out = {}
    for name in NAMES:
        path = CAMPAIGNS[name](tmp_path_factory.mktemp(name))
        out[name] = (path, digests(path))  # before anything opens the db (-shm)
    return out


@pytest.fixture(scope="module")
def loaded(built: dict[str, tuple[Path, dict[str, str]]]) -> dict[str, dict[str, Any]]:
    out = {}
    for name, (path, _d) in built.items():
        manifest = json.loads((path / "manifest.json").read_bytes())
        export = json.loads((path / "export.json").read_bytes())
        out[name] = {
            "path": path,
            "manifest": manifest,
            "export": export,
            "ordered": ordered(export),
        }
    return out


@pytest.fixture(scope="module")
def blackwell() -> dict[str, Any]:
    """The Blackwell story tree (played in memory; no need to write its 130 MB of forms)."""
    from fixtures.blackwell.story import build_story

    tree, story = build_story()
    return {
        "export": tree,
        "ordered": ordered(tree),
        "story": story,
        "manifest": {"labels": blackwell_labels.LABELS, "story_ordinals": sorted(story.ordinals)},
    }


def every(loaded: dict[str, dict[str, Any]], blackwell: dict[str, Any]) -> list[tuple[str, dict]]:
    return [*sorted(loaded.items()), ("blackwell", blackwell)]


# --------------------------------------------------------------------------- building


@pytest.mark.parametrize("name", NAMES)
def test_builds_every_form(name: str, loaded: dict[str, dict[str, Any]]) -> None:
    c = loaded[name]
    path, manifest, msgs = c["path"], c["manifest"], c["export"]["messages"]
    for rel in (
        "export.json",
        "session.jsonl",
        "run.jsonl",
        "manifest.json",
        "data/opencode/opencode.db",
        "legacy/opencode/storage",
    ):
        assert (path / rel).exists(), rel
    for cid in manifest["child_ids"]:
        assert (path / f"export-{cid}.json").is_file()
        assert (path / f"session-{cid}.jsonl").is_file()
    assert manifest["message_count"] == len(msgs)
    assert 300 <= len(msgs) <= 900
    lines = (path / "session.jsonl").read_bytes().splitlines()
    assert len(lines) == len(msgs)
    db = sqlite3.connect(f"file:{path / 'data/opencode/opencode.db'}?mode=ro", uri=True)
    try:
        (rows,) = db.execute(
            "select count(*) from message where session_id = ?", [manifest["session_id"]]
        ).fetchone()
    finally:
        db.close()
    assert rows == len(msgs)


@pytest.mark.parametrize("name", NAMES)
def test_export_order_is_ordinal_order(name: str, loaded: dict[str, dict[str, Any]]) -> None:
    c = loaded[name]
    assert [m["info"]["id"] for m in c["ordered"]] == [
        m["info"]["id"] for m in c["export"]["messages"]
    ]


def test_a_second_build_from_the_command_line_is_byte_identical(
    tmp_path: Path, built: dict[str, tuple[Path, dict[str, str]]]
) -> None:
    subprocess.run(
        [sys.executable, "-m", "fixtures.campaigns", str(tmp_path)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    for name in NAMES:
        first = built[name][1]
        second = digests(tmp_path / name)
        assert sorted(second) == sorted(first)
        assert [f for f in first if first[f] != second[f]] == [], name


@pytest.mark.parametrize("name", NAMES)
def test_turns_are_well_formed(name: str, loaded: dict[str, dict[str, Any]]) -> None:
    msgs = loaded[name]["ordered"]
    assert msgs[0]["info"]["role"] == "user"
    for prev, msg in zip(msgs, msgs[1:], strict=False):
        info = msg["info"]
        if info["role"] == "user":
            p = prev["info"]
            assert p["role"] == "assistant"
            assert (
                p.get("finish") == "stop" or p.get("error", {}).get("name") == "MessageAbortedError"
            )
        else:
            if prev["info"]["role"] == "assistant":
                assert prev["info"].get("finish") == "tool-calls", "a stop step ends the turn"
            types = [part["type"] for part in msg["parts"]]
            assert types[0] == "step-start"
            if "error" not in info:
                assert "step-finish" in types
                assert info["finish"] == ("tool-calls" if "tool" in types else "stop")


# --------------------------------------------------------------------------- labels


def test_labels_are_well_formed(loaded: dict[str, dict[str, Any]], blackwell: dict) -> None:
    for name, c in every(loaded, blackwell):
        labels = c["manifest"]["labels"]
        n = len(c["ordered"])
        names = [a["name"] for a in labels["approaches"]]
        assert len(names) == len(set(names)), name
        assert len(names) >= 6 if name != "rustci" else len(names) >= 7
        for a in labels["approaches"]:
            assert a["status"] in STATUSES, (name, a["name"])
            assert a["aliases"], a["name"]
            assert all(1 <= o <= n for o in a["tested_ordinals"])
            if a["status"] == "open":
                assert a["ended_ordinal"] is None
            else:
                assert 1 <= a["ended_ordinal"] <= n and a["cause_keywords"], a["name"]
                if a["status"] != "confirmed":  # a confirmed one may be re-measured later
                    assert all(o <= a["ended_ordinal"] for o in a["tested_ordinals"]), a["name"]
        for p in labels["pivots"]:
            assert set(p["from"]) <= set(names) and p["to"] in names
        assert labels["decisions"] and labels["untested"] and labels["pivots"]


def test_statuses_cover_every_fate(loaded: dict[str, dict[str, Any]]) -> None:
    for name, c in loaded.items():
        statuses = {a["status"] for a in c["manifest"]["labels"]["approaches"]}
        want = {"dead_end", "blocked", "superseded", "confirmed"} | (
            {"open"} if name == "rustci" else set()
        )
        assert want <= statuses, name
    assert len(loaded["pgpool"]["manifest"]["labels"]["untested"]) >= 3


def test_shared_root_causes(loaded: dict[str, dict[str, Any]], blackwell: dict) -> None:
    for name, c in every(loaded, blackwell):
        by_name = {a["name"]: a for a in c["manifest"]["labels"]["approaches"]}
        groups = {by_name[n]["cause_group"] for n in SHARED[name]}
        assert len(groups) == 1 and None not in groups, name
        others = [a["cause_group"] for a in by_name.values() if a["name"] not in SHARED[name]]
        assert groups.isdisjoint(others), name


def test_tested_ordinals_hold_tool_calls_about_the_approach(
    loaded: dict[str, dict[str, Any]], blackwell: dict
) -> None:
    for name, c in every(loaded, blackwell):
        msgs = c["ordered"]
        for a in c["manifest"]["labels"]["approaches"]:
            mentions = 0
            for o in a["tested_ordinals"]:
                msg = msgs[o - 1]
                assert msg["info"]["role"] == "assistant", (name, a["name"], o)
                assert tools(msg), (name, a["name"], o)
                mentions += has(texts_of(msg), a["aliases"])
            if name == "blackwell":  # not written for these labels: one mention suffices
                assert mentions >= 1 or not a["tested_ordinals"], a["name"]
            else:
                assert mentions == len(a["tested_ordinals"]), (name, a["name"])
            if a["status"] != "open" or name == "rustci":
                assert a["tested_ordinals"] or a["status"] == "open", a["name"]


def test_ended_ordinals_say_why(loaded: dict[str, dict[str, Any]], blackwell: dict) -> None:
    for name, c in every(loaded, blackwell):
        msgs = c["ordered"]
        for a in c["manifest"]["labels"]["approaches"]:
            if a["ended_ordinal"] is None:
                continue
            msg = msgs[a["ended_ordinal"] - 1]
            assert msg["info"]["role"] == "assistant"
            assert has(texts_of(msg), a["aliases"]), (name, a["name"])
            assert has(prose_of(msg), a["cause_keywords"]), (name, a["name"])


def test_untested_checks_never_answered(loaded: dict[str, dict[str, Any]], blackwell: dict) -> None:
    for name, c in every(loaded, blackwell):
        msgs = c["ordered"]
        for u in c["manifest"]["labels"]["untested"]:
            msg = msgs[u["ordinal"] - 1]
            assert has(texts_of(msg), u["keywords"]), (name, u)
            hits = [
                p
                for p in tools(msg)
                if has(
                    p["state"].get("output", "") + p["state"].get("error", ""), u["reason_keywords"]
                )
            ]
            assert hits, (name, u)
            for part in hits:
                state = part["state"]
                meta = state.get("metadata", {})
                assert state["status"] == "error" or meta.get("exit") not in (0,), (name, u)


def test_pivots_and_decisions(loaded: dict[str, dict[str, Any]], blackwell: dict) -> None:
    for name, c in every(loaded, blackwell):
        msgs = c["ordered"]
        labels = c["manifest"]["labels"]
        by_name = {a["name"]: a for a in labels["approaches"]}
        for p in labels["pivots"]:
            prose = prose_of(msgs[p["ordinal"] - 1])
            assert has(prose, by_name[p["to"]]["aliases"]), (name, p)
            for old in p["from"]:
                ended = by_name[old]["ended_ordinal"]
                assert ended is not None and ended <= p["ordinal"], (name, old)
            assert all(o >= p["ordinal"] for o in by_name[p["to"]]["tested_ordinals"])
        for d in labels["decisions"]:
            prose = prose_of(msgs[d["ordinal"] - 1])
            assert prose.startswith("Decision:"), (name, d)
            assert all(k.lower() in prose.lower() for k in d["keywords"]), (name, d)
        superseded = [a for a in labels["approaches"] if a["status"] == "superseded"]
        for a in superseded:
            assert a["ended_ordinal"] in {d["ordinal"] for d in labels["decisions"]}, a["name"]


def test_labels_avoid_the_blackwell_wording(loaded: dict[str, dict[str, Any]]) -> None:
    for name, c in loaded.items():
        for msg in c["ordered"]:
            assert "DEAD END" not in texts_of(msg), name


# --------------------------------------------------------------------------- wording devices


def test_traps_are_where_the_manifest_says(loaded: dict[str, dict[str, Any]]) -> None:
    kinds = set()
    for name, c in loaded.items():
        labels = c["manifest"]["labels"]
        for trap in c["manifest"]["traps"]:
            kinds.add(trap["kind"])
            msg = c["ordered"][trap["ordinal"] - 1]
            assert trap["phrase"] in texts_of(msg), (name, trap)
            if trap["kind"] == "silent_cancel":
                (a,) = [a for a in labels["approaches"] if a["ended_ordinal"] == trap["ordinal"]]
                (item,) = [
                    t
                    for p in tools(msg)
                    if p["tool"] == "todowrite"
                    for t in p["state"]["input"]["todos"]
                    if t["content"] == trap["phrase"]
                ]
                assert item["status"] == "cancelled"
                assert not has(item["content"], a["cause_keywords"])
                text = "\n".join(p["text"] for p in msg["parts"] if p["type"] == "text")
                assert has(text, a["cause_keywords"])
    assert {"negation", "silent_cancel", "renamed_todo"} <= kinds


def test_todo_items_are_renamed_as_they_evolve(loaded: dict[str, dict[str, Any]]) -> None:
    snaps = loaded["rustci"]["manifest"]["todo_snapshots"]
    contents = [[t["content"] for t in s["todos"]] for s in snaps]
    first = next(i for i, c in enumerate(contents) if "Try mold linker" in c)
    later = next(i for i, c in enumerate(contents) if "mold \u2014 no-go (glibc 2.31)" in c)
    assert first < later


def test_aborted_and_timed_out_calls_look_like_opencode(loaded: dict[str, dict[str, Any]]) -> None:
    aborted = timed = 0
    for c in loaded.values():
        for i, msg in enumerate(c["ordered"]):
            for part in tools(msg):
                state = part["state"]
                if state.get("error") == ABORTED:
                    aborted += 1
                    info = msg["info"]
                    assert info["error"]["name"] == "MessageAbortedError"
                    assert "finish" not in info
                    assert "step-finish" not in [p["type"] for p in msg["parts"]]
                    assert c["ordered"][i + 1]["info"]["role"] == "user"
                if "exceeding timeout" in state.get("output", ""):
                    timed += 1
                    assert state["metadata"]["exit"] is None
                    assert state["output"].endswith("</bash_metadata>")
    assert aborted >= 1 and timed >= 1


def test_routine_is_neutral(loaded: dict[str, dict[str, Any]]) -> None:
    for name, c in loaded.items():
        story = set(c["manifest"]["story_ordinals"])
        offenders = []
        for ordinal, msg in enumerate(c["ordered"], start=1):
            if ordinal in story:
                continue
            hit = FORBIDDEN[name].search(texts_of(msg))
            if hit:
                offenders.append((ordinal, hit.group(0)))
        assert offenders == [], name
        assert any(FORBIDDEN[name].search(texts_of(c["ordered"][o - 1])) for o in story)
        assert len(story) < len(c["ordered"]) / 3, name  # mostly routine


def test_tool_outputs_have_realistic_sizes(loaded: dict[str, dict[str, Any]]) -> None:
    for name, c in loaded.items():
        sizes = [len(p["state"].get("output", "")) for m in c["ordered"] for p in tools(m)]
        assert max(sizes) <= 30_000, name
        assert sum(1 for s in sizes if s <= 3_000) / len(sizes) > 0.75, name
        assert sum(1 for s in sizes if s >= 8_000) >= 3, name


# --------------------------------------------------------------------------- blackwell


def test_blackwell_labels_agree_with_its_story(blackwell: dict) -> None:
    story = blackwell["story"]
    by_name = {a["name"]: a for a in blackwell_labels.LABELS["approaches"]}
    for dead in story.dead_ends:
        (a,) = [
            a
            for a in by_name.values()
            if a["name"].lower().startswith(dead["label"].split(" (")[0].lower()[:12])
        ]
        assert set(dead["tested_ordinals"]) <= set(a["tested_ordinals"])
        assert a["ended_ordinal"] == dead["ended_ordinal"]
    el = story.elements
    assert blackwell_labels.LABELS["pivots"][0]["ordinal"] == el["insight"]["ordinal"]
    assert blackwell_labels.LABELS["decisions"][0]["ordinal"] == el["cuda13_decision"]["ordinal"]
    assert blackwell_labels.LABELS["untested"][0]["ordinal"] == el["deep_ep_check"]["ordinal"]
    a2a = by_name[blackwell_labels.A2A]
    assert a2a["tested_ordinals"] == [el["a2a_launch_oom"]["ordinal"]]
    assert a2a["ended_ordinal"] == el["a2a_launch_oom"]["ended_ordinal"]
    assert (
        el["cuda_graph_max_bs_benchmark"]["ordinal"]
        in by_name[blackwell_labels.GRAPH_BS]["tested_ordinals"]
    )


def test_blackwell_labels_go_into_a_manifest(tmp_path: Path) -> None:
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps({"format": "logkb-fixture-manifest/1", "story": {}}))
    blackwell_labels.add_labels(path)
    manifest = json.loads(path.read_text())
    assert manifest["labels"] == json.loads(json.dumps(blackwell_labels.LABELS))
    assert re.match(r"^logkb-graph-labels/\d+$", manifest["labels_format"])
