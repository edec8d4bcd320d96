"""The held-out campaign (``fixtures.heldout``): it builds, it is deterministic, and its labels say
what the messages at their ordinals actually contain.

Everything is re-read from the written files with plain ``json``/``sqlite3``; ordinals are
recomputed here from ``export.json`` (sort by ``(time.created, id)``), never taken from the builder.
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

from fixtures.heldout import build

#: Run names that stand for an approach in tool calls that test it without naming it.
EVIDENCE = {
    "pin NCCL_IB_HCA to the InfiniBand rails": (
        "r24-nccl",
        "r25-ibpin",
        "ibv_devinfo",
        "all_reduce_perf",
    ),
    "DeepSpeed ZeRO-3": ("r25z",),
    "lower learning rate (1e-5, warmup 500)": ("r26-lowlr",),
    "fp32 gradient reduction + clipping at 1.0": ("r27-fp32clip",),
}
ENDED = ("dead_end", "blocked", "superseded")


def digests(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


def load(path: Path) -> Any:
    return json.loads(path.read_bytes())


def message_text(msg: dict) -> str:
    """Everything a reader of the message sees: texts, tool inputs, outputs and errors."""
    out = []
    for part in msg["parts"]:
        if part["type"] == "text":
            out.append(part["text"])
        elif part["type"] == "tool":
            state = part["state"]
            out.append(json.dumps(state.get("input", {}), ensure_ascii=False))
            out.append(state.get("output", ""))
            out.append(state.get("error", ""))
            meta = state.get("metadata") or {}
            if isinstance(meta.get("output"), str):
                out.append(meta["output"])
    return "\n".join(out)


def prose(msg: dict) -> str:
    return "\n".join(p["text"] for p in msg["parts"] if p["type"] == "text")


def has_any(text: str, words: list[str] | tuple[str, ...]) -> bool:
    low = text.lower()
    return any(w.lower() in low for w in words)


def bash_calls(msg: dict) -> list[dict]:
    return [p["state"] for p in msg["parts"] if p["type"] == "tool" and p["tool"] == "bash"]


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    out = build(tmp_path_factory.mktemp("heldout"))
    return out, digests(out)


@pytest.fixture(scope="module")
def out(built: tuple[Path, dict[str, str]]) -> Path:
    return built[0]


@pytest.fixture(scope="module")
def manifest(out: Path) -> dict:
    return load(out / "manifest.json")


@pytest.fixture(scope="module")
def labels(manifest: dict) -> dict:
    return manifest["labels"]


@pytest.fixture(scope="module")
def export(out: Path) -> dict:
    return load(out / "export.json")


@pytest.fixture(scope="module")
def ordered(export: dict) -> list[dict]:
    return sorted(export["messages"], key=lambda m: (m["info"]["time"]["created"], m["info"]["id"]))


@pytest.fixture(scope="module")
def at(ordered: list[dict]):
    def get(ordinal: int) -> dict:
        assert 1 <= ordinal <= len(ordered), ordinal
        return ordered[ordinal - 1]

    return get


@pytest.fixture(scope="module")
def approaches(labels: dict) -> dict[str, dict]:
    return {a["name"]: a for a in labels["approaches"]}


def names_of(a: dict) -> list[str]:
    return [a["name"], *a["aliases"]]


# --------------------------------------------------------------------------- build and forms


def test_every_form_is_written(out: Path, manifest: dict) -> None:
    for rel in (
        "export.json",
        "session.jsonl",
        "run.jsonl",
        "manifest.json",
        "data/opencode/opencode.db",
        "legacy/opencode/storage/migration",
    ):
        assert (out / rel).is_file(), rel
    for cid in manifest["child_ids"]:
        assert (out / f"export-{cid}.json").is_file()
        assert (out / f"session-{cid}.jsonl").is_file()
    lines = (out / "session.jsonl").read_text().splitlines()
    assert len(lines) == manifest["message_count"]
    db = sqlite3.connect(f"file:{out / 'data/opencode/opencode.db'}?mode=ro", uri=True)
    try:
        (n,) = db.execute(
            "SELECT count(*) FROM message WHERE session_id = ?", (manifest["session_id"],)
        ).fetchone()
    finally:
        db.close()
    assert n == manifest["message_count"]


def test_size_and_shape(export: dict, manifest: dict, ordered: list[dict]) -> None:
    n = len(export["messages"])
    assert 400 <= n <= 800
    assert manifest["message_count"] == n
    assert [m["info"]["id"] for m in export["messages"]] == [m["info"]["id"] for m in ordered]
    users = [m for m in ordered if m["info"]["role"] == "user"]
    assert manifest["user_message_count"] == len(users) >= 15
    # mostly routine work: a clear majority of steps are tool calls that carry no label
    labelled = {o for a in manifest["labels"]["approaches"] for o in a["tested_ordinals"]}
    assert len(labelled) < n / 5
    outputs = [len(s.get("output", "")) for m in ordered for s in bash_calls(m)]
    assert len(outputs) > 350 and sum(outputs) / len(outputs) > 300


def test_build_is_deterministic(built: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    _, first = built
    again = build(tmp_path / "again")
    assert digests(again) == first


def test_command_line_build_matches(built: tuple[Path, dict[str, str]], tmp_path: Path) -> None:
    _, first = built
    dest = tmp_path / "cli"
    subprocess.run(
        [sys.executable, "-m", "fixtures.heldout", str(dest)],
        check=True,
        capture_output=True,
        cwd=Path(__file__).resolve().parents[2],
    )
    assert digests(dest) == first


# --------------------------------------------------------------------------- label coverage


def test_label_inventory(labels: dict) -> None:
    rows = labels["approaches"]
    assert len(rows) >= 7
    by_status: dict[str, list[dict]] = {}
    for a in rows:
        by_status.setdefault(a["status"], []).append(a)
        if a["status"] in ENDED:
            assert a["cause_keywords"] and isinstance(a["cause_group"], str), a["name"]
            assert a["ended_ordinal"] is not None
        else:
            assert a["cause_keywords"] == [] and a["cause_group"] is None, a["name"]
        if a["status"] == "open":
            assert a["ended_ordinal"] is None
        assert a["tested_ordinals"] == sorted(a["tested_ordinals"]) and a["tested_ordinals"]
    assert len(by_status["dead_end"]) >= 2
    groups = [a["cause_group"] for a in by_status["dead_end"]]
    assert any(groups.count(g) >= 2 for g in groups), "two dead ends must share a root cause"
    assert by_status["blocked"] and by_status["superseded"] and by_status["open"]
    assert len(by_status["confirmed"]) >= 2
    assert len(labels["untested"]) >= 2 and labels["pivots"] and labels["decisions"]


def test_tested_ordinals_point_at_the_approach(labels: dict, at) -> None:
    for a in labels["approaches"]:
        words = names_of(a) + list(EVIDENCE.get(a["name"], ()))
        for o in a["tested_ordinals"]:
            msg = at(o)
            assert msg["info"]["role"] == "assistant", (a["name"], o)
            assert any(p["type"] == "tool" for p in msg["parts"]), (a["name"], o)
            assert has_any(message_text(msg), words), (a["name"], o)


def test_endings_and_causes(labels: dict, at) -> None:
    for a in labels["approaches"]:
        if a["ended_ordinal"] is None:
            continue
        end = at(a["ended_ordinal"])
        assert has_any(message_text(end), names_of(a)), a["name"]
        assert a["ended_ordinal"] >= max(a["tested_ordinals"]) or a["status"] == "confirmed"
        if a["status"] in ENDED:
            cause_msgs = [at(o) for o in a.get("cause_ordinals", [a["ended_ordinal"]])]
            assert any(has_any(prose(m), a["cause_keywords"]) for m in cause_msgs), a["name"]
            assert all(has_any(message_text(m), names_of(a)) for m in cause_msgs), a["name"]
            assert min(a.get("cause_ordinals", [a["ended_ordinal"]])) >= a["ended_ordinal"]
        if a["status"] == "confirmed":
            # a measurement: a number with its unit in the prose of the ending message
            assert re.search(r"\d[\d,.]* ?(tok/s/gpu|GB/s)|loss \d\.\d+", prose(end)), a["name"]


def test_shared_root_cause_is_stated_for_both(labels: dict, at) -> None:
    dead = [a for a in labels["approaches"] if a["status"] == "dead_end"]
    groups: dict[str, list[dict]] = {}
    for a in dead:
        groups.setdefault(a["cause_group"], []).append(a)
    shared = [g for g in groups.values() if len(g) >= 2]
    assert shared
    for group in shared:
        common = set.intersection(*(set(k.lower() for k in a["cause_keywords"]) for a in group))
        assert common, "approaches sharing a root cause share cause keywords"
        for a in group:
            texts = [prose(at(o)) for o in a.get("cause_ordinals", [a["ended_ordinal"]])]
            assert any(has_any(t, sorted(common)) for t in texts), a["name"]


def test_superseded_ends_at_a_later_decision(labels: dict, approaches: dict) -> None:
    decisions = {d["ordinal"] for d in labels["decisions"]}
    for a in approaches.values():
        if a["status"] == "superseded":
            assert a["ended_ordinal"] in decisions
            pivot_from = [p for p in labels["pivots"] if a["name"] in p["from"]]
            assert pivot_from and approaches[pivot_from[0]["to"]]["status"] == "confirmed"


# --------------------------------------------------------------------------- untested questions


def test_untested_questions(labels: dict, at, ordered: list[dict]) -> None:
    reasons = set()
    for u in labels["untested"]:
        msg = at(u["ordinal"])
        calls = [s for s in bash_calls(msg) if has_any(s["input"]["command"], u["keywords"])]
        assert calls, u
        (call,) = calls
        assert all(k.lower() in call["input"]["command"].lower() for k in u["keywords"]), u
        result = call.get("output", "") + call.get("error", "")
        assert has_any(result, u["reason_keywords"]), u
        failed = call["status"] == "error" or call["metadata"].get("exit") in (None, 255)
        assert failed, u
        reasons.add(
            "aborted"
            if call["status"] == "error"
            else "timeout"
            if call["metadata"].get("exit") is None
            else "transport"
        )
        # never answered: the same command does not complete later
        for later in ordered[u["ordinal"] :]:
            for s in bash_calls(later):
                assert s["input"]["command"] != call["input"]["command"], (u, later["info"]["id"])
    assert {"aborted", "transport"} <= reasons


def test_aborted_call_has_opencode_shape(labels: dict, at) -> None:
    aborted = [at(u["ordinal"]) for u in labels["untested"] if "aborted" in u["reason_keywords"]]
    assert aborted
    for msg in aborted:
        (state,) = [p["state"] for p in msg["parts"] if p["type"] == "tool"]
        assert state["status"] == "error" and state["error"] == "Tool execution aborted"
        assert "output" not in state and state["time"]["end"] >= state["time"]["start"]
        assert msg["info"]["error"]["name"] == "MessageAbortedError"
        assert not any(p["type"] == "step-finish" for p in msg["parts"])


def test_transport_failure_rerun_is_not_untested(manifest: dict, labels: dict, at) -> None:
    untested = {u["ordinal"] for u in labels["untested"]}
    cases = manifest["negatives"]["answered_transport_failures"]
    assert cases
    for case in cases:
        assert case["ordinal"] not in untested
        (fail,) = bash_calls(at(case["ordinal"]))
        assert fail["metadata"]["exit"] == 255 and has_any(fail["output"], case["reason_keywords"])
        reruns = [
            s
            for s in bash_calls(at(case["rerun_ordinal"]))
            if s["input"]["command"] == fail["input"]["command"]
        ]
        assert reruns and reruns[0]["metadata"]["exit"] == 0
        assert case["rerun_ordinal"] > case["ordinal"]
        assert all(k in fail["input"]["command"] for k in case["keywords"])


# --------------------------------------------------------------------------- pivots, decisions, wording


def test_pivots(labels: dict, approaches: dict, at) -> None:
    for p in labels["pivots"]:
        msg = at(p["ordinal"])
        text = prose(msg)
        assert msg["info"]["role"] == "assistant"
        assert has_any(text, names_of(approaches[p["to"]])), p
        for name in p["from"]:
            assert has_any(text, names_of(approaches[name])), (p, name)
            assert min(approaches[name]["tested_ordinals"]) < p["ordinal"]


def test_decisions(labels: dict, at) -> None:
    for d in labels["decisions"]:
        text = prose(at(d["ordinal"]))
        assert re.search(r"decision:|we're going with|going with", text, re.I), d
        assert all(k.lower() in text.lower() for k in d["keywords"]), d


def test_false_alarm_and_negations(
    manifest: dict, approaches: dict, at, ordered: list[dict]
) -> None:
    negatives = manifest["negatives"]
    for fa in negatives["false_alarms"]:
        text = prose(at(fa["ordinal"]))
        assert re.search(r"not a dead end", text, re.I)
        assert approaches[fa["approach"]]["status"] == "confirmed"
        assert fa["ordinal"] < approaches[fa["approach"]]["ended_ordinal"]
    for ne in negatives["negated_endings"]:
        text = prose(at(ne["ordinal"]))
        assert re.search(r"not the end of|not ruled out|isn't out", text, re.I)
        assert has_any(text, names_of(approaches[ne["approach"]]))
    everything = "\n".join(prose(m) for m in ordered).lower()
    assert everything.count("dead end") == 1, "the only 'dead end' is the negated false alarm"
    for phrase in ("that's a bust", "back to the drawing board", "shelving", "forget it", "✗"):
        assert phrase in everything, phrase


def test_todo_lists_evolve(ordered: list[dict]) -> None:
    snaps = [
        p["state"]["input"]["todos"]
        for m in ordered
        for p in m["parts"]
        if p["type"] == "tool" and p["tool"] == "todowrite"
    ]
    assert len(snaps) >= 8
    history: dict[str, list[str]] = {}
    for snap in snaps:
        for item in snap:
            history.setdefault(item["content"], []).append(item["status"])
    cancelled = [c for c, sts in history.items() if "cancelled" in sts]
    assert len(cancelled) >= 3
    # some cancelled item carries no reason in its own text
    assert any(not re.search(r"because|bust|driver|slower|oom|blocked", c, re.I) for c in cancelled)
    # statuses flip back (in_progress -> pending) and items get reworded
    assert any("in_progress" in sts and sts[-1] == "pending" for sts in history.values())
    assert len(history) > max(len(s) for s in snaps) + 5
