"""The blind 'edge' campaign: it builds, it is deterministic, and its labels point where they say.

Every labelled ordinal is checked against the written ``export.json`` (messages sorted by
(time.created, id), 1-based), so a label can only pass if the message at that position really
holds what the label claims.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from fixtures.blind import build

TRANSPORT = ("Connection timed out", "Permission denied (publickey", "Connection refused")
TIMEOUT = "terminated command after exceeding timeout"
ABORTED = "Tool execution aborted"


def _messages(outdir: Path) -> list[dict[str, Any]]:
    export = json.loads((outdir / "export.json").read_text())
    return sorted(export["messages"], key=lambda m: (m["info"]["time"]["created"], m["info"]["id"]))


def _text(msg: dict[str, Any]) -> str:
    """Everything a reader of the message sees: prose, tool inputs, outputs, errors."""
    out = []
    for part in msg["parts"]:
        if part["type"] == "text":
            out.append(part["text"])
        elif part["type"] == "tool":
            state = part["state"]
            out.append(json.dumps(state.get("input", {}), ensure_ascii=False))
            out.append(state.get("output", ""))
            out.append(state.get("error", ""))
            out.append(str((state.get("metadata") or {}).get("output", "")))
    return "\n".join(out)


def _prose(msg: dict[str, Any]) -> str:
    return "\n".join(p["text"] for p in msg["parts"] if p["type"] == "text")


def _has(text: str, words: list[str]) -> bool:
    low = text.lower()
    return any(w.lower() in low for w in words)


def _commands(msg: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    return [
        (p["state"]["input"]["command"], p["state"])
        for p in msg["parts"]
        if p["type"] == "tool" and p["tool"] == "bash"
    ]


def _failed(state: dict[str, Any]) -> bool:
    out = state.get("output", "") or ""
    return state["status"] == "error" or any(sig in out for sig in TRANSPORT) or TIMEOUT in out


@pytest.fixture(scope="module")
def edge(
    tmp_path_factory: pytest.TempPathFactory,
) -> tuple[Path, dict[str, Any], list[dict[str, Any]]]:
    outdir = tmp_path_factory.mktemp("blind-edge")
    manifest_path = build(outdir)
    manifest = json.loads(manifest_path.read_text())
    return outdir, manifest, _messages(outdir)


@pytest.fixture(scope="module")
def at(edge):
    _outdir, _manifest, msgs = edge

    def get(ordinal: int) -> dict[str, Any]:
        assert 1 <= ordinal <= len(msgs), ordinal
        return msgs[ordinal - 1]

    return get


# --------------------------------------------------------------------------- build


def test_builds_every_form(edge) -> None:
    outdir, manifest, msgs = edge
    for rel in ("export.json", "session.jsonl", "run.jsonl", "manifest.json"):
        assert (outdir / rel).is_file(), rel
    assert (outdir / "data" / "opencode" / "opencode.db").is_file()
    assert (outdir / "legacy" / "opencode" / "storage" / "session").is_dir()
    export = json.loads((outdir / "export.json").read_text())
    assert manifest["session_id"] == export["info"]["id"]
    assert manifest["message_count"] == len(msgs)
    assert 400 <= len(msgs) <= 800
    assert len(manifest["children"]) == 1
    for child in manifest["children"]:
        assert (outdir / f"export-{child}.json").is_file()
    lines = (outdir / "session.jsonl").read_text().splitlines()
    assert len(lines) == len(msgs)


def test_deterministic(edge, tmp_path: Path) -> None:
    outdir, _manifest, _msgs = edge
    build(tmp_path)
    names = sorted(p.name for p in outdir.glob("*.json*"))
    assert names == sorted(p.name for p in tmp_path.glob("*.json*"))
    for name in names:
        assert (outdir / name).read_bytes() == (tmp_path / name).read_bytes(), name
    for rel in ("data/opencode/opencode.db", "data/opencode/opencode.db-wal"):
        assert (outdir / rel).read_bytes() == (tmp_path / rel).read_bytes(), rel


def test_mostly_routine_with_real_output(edge) -> None:
    _outdir, _manifest, msgs = edge
    bash_calls = [state for m in msgs for _cmd, state in _commands(m)]
    assert len(bash_calls) > 350
    sizes = sorted(len(s.get("output", "")) for s in bash_calls)
    assert sizes[len(sizes) // 2] > 300  # typical output is a screenful, not a one-liner
    assert sum(1 for m in msgs if m["info"]["role"] == "user") >= 15


# --------------------------------------------------------------------------- approaches


def test_approach_mix(edge) -> None:
    labels = edge[1]["labels"]
    approaches = labels["approaches"]
    assert len(approaches) >= 7
    statuses = [a["status"] for a in approaches]
    for status in ("dead_end", "blocked", "superseded", "open"):
        assert status in statuses, status
    assert statuses.count("confirmed") >= 2
    groups: dict[str, int] = {}
    for a in approaches:
        if a["status"] in ("confirmed", "open"):
            assert a["cause_keywords"] == [] and a["cause_group"] is None, a["name"]
        else:
            assert a["cause_keywords"] and a["cause_group"], a["name"]
        if a["status"] == "dead_end":
            groups[a["cause_group"]] = groups.get(a["cause_group"], 0) + 1
        if a["status"] == "open":
            assert a["ended_ordinal"] is None
        else:
            assert a["ended_ordinal"] is not None, a["name"]
    assert max(groups.values()) >= 2, groups


def test_approach_ordinals(edge, at) -> None:
    for a in edge[1]["labels"]["approaches"]:
        names = [a["name"], *a["aliases"]]
        assert a["tested_ordinals"], a["name"]
        for o in a["tested_ordinals"]:
            assert _has(_text(at(o)), names), (a["name"], o)
        end = a["ended_ordinal"]
        if end is None:
            continue
        assert max(a["tested_ordinals"]) <= end, a["name"]
        assert _has(_text(at(end)), names), (a["name"], end)
        if a["status"] == "confirmed":
            assert re.search(r"\d+(\.\d+)?\s*(%|ms)", _prose(at(end))), (a["name"], end)
        else:
            where = a.get("explained_ordinal", end)
            assert where >= end
            assert _has(_prose(at(where)), a["cause_keywords"]), (a["name"], where)
            assert _has(_prose(at(where)), names), (a["name"], where)


def test_cancelled_todo_explained_later(edge, at) -> None:
    late = [a for a in edge[1]["labels"]["approaches"] if "explained_ordinal" in a]
    assert late
    for a in late:
        end = at(a["ended_ordinal"])
        todo = [p for p in end["parts"] if p["type"] == "tool" and p["tool"] == "todowrite"]
        assert todo, a["name"]
        items = todo[0]["state"]["input"]["todos"]
        cancelled = [
            t for t in items if t["status"] == "cancelled" and _has(t["content"], a["aliases"])
        ]
        assert cancelled and not _has(cancelled[0]["content"], a["cause_keywords"])
        assert not _has(_prose(end), a["cause_keywords"])
        assert a["explained_ordinal"] == a["ended_ordinal"] + 2


def test_shared_cause_is_spelled_out_in_both(edge, at) -> None:
    approaches = edge[1]["labels"]["approaches"]
    by_group: dict[str, list[dict[str, Any]]] = {}
    for a in approaches:
        if a["status"] == "dead_end":
            by_group.setdefault(a["cause_group"], []).append(a)
    shared = [g for g in by_group.values() if len(g) >= 2]
    assert shared
    for group in shared:
        for a in group:
            prose = _prose(at(a.get("explained_ordinal", a["ended_ordinal"])))
            assert all(k.lower() in prose.lower() for k in group[0]["cause_keywords"]), a["name"]


# --------------------------------------------------------------------------- untested / answered


def test_untested_checks(edge, at) -> None:
    labels = edge[1]["labels"]
    untested = labels["untested"]
    transport = timed = 0
    for u in untested:
        msg = at(u["ordinal"])
        text = _text(msg)
        assert all(k.lower() in text.lower() for k in u["keywords"]), u
        assert _has(text, u["reason_keywords"]), u
        failed = [(cmd, st) for cmd, st in _commands(msg) if _failed(st)]
        assert failed, u
        for _cmd, st in failed:
            out = st.get("output", "") or ""
            if any(sig in out for sig in TRANSPORT):
                transport += 1
            if TIMEOUT in out:
                assert st["metadata"]["exit"] is None
                timed += 1
            if st["status"] == "error":
                assert st["error"] == ABORTED
                assert msg["info"]["error"]["name"] == "MessageAbortedError"
                timed += 1
    assert transport >= 2 and timed >= 1
    # one nested ssh: the bastion's own part answered before the hop to the node failed
    nested = [u for u in untested if "publickey" in _text(at(u["ordinal"]))]
    assert nested and "bastion-01" in _text(at(nested[0]["ordinal"]))


def test_untested_never_rerun(edge, at) -> None:
    _outdir, manifest, msgs = edge
    for u in manifest["labels"]["untested"]:
        for cmd, st in _commands(at(u["ordinal"])):
            if not _failed(st):
                continue
            for later in msgs[u["ordinal"] :]:
                for other, ost in _commands(later):
                    assert not (other == cmd and not _failed(ost)), (u, cmd)


def test_transport_failure_rerun_is_answered(edge, at) -> None:
    labels = edge[1]["labels"]
    answered = labels["answered_after_retry"]
    assert answered
    untested = {u["ordinal"] for u in labels["untested"]}
    for a in answered:
        assert a["failed_ordinal"] not in untested
        failed = [(c, s) for c, s in _commands(at(a["failed_ordinal"])) if _failed(s)]
        assert failed and any(sig in failed[0][1]["output"] for sig in TRANSPORT)
        rerun = dict(_commands(at(a["rerun_ordinal"])))
        assert failed[0][0] in rerun and not _failed(rerun[failed[0][0]])
        assert a["rerun_ordinal"] > a["failed_ordinal"]


def test_every_failed_check_is_labelled(edge) -> None:
    _outdir, manifest, msgs = edge
    labels = manifest["labels"]
    known = {u["ordinal"] for u in labels["untested"]}
    known |= {a["failed_ordinal"] for a in labels["answered_after_retry"]}
    found = {i for i, m in enumerate(msgs, start=1) if any(_failed(st) for _c, st in _commands(m))}
    assert found == known


# --------------------------------------------------------------------------- pivots, decisions, alarms


def test_pivots(edge, at) -> None:
    labels = edge[1]["labels"]
    names = {a["name"]: [a["name"], *a["aliases"]] for a in labels["approaches"]}
    assert labels["pivots"]
    for p in labels["pivots"]:
        prose = _prose(at(p["ordinal"]))
        assert all(_has(prose, names[f]) for f in p["from"]), p
        assert _has(prose, names[p["to"]]), p
        for f in p["from"]:
            ended = next(a for a in labels["approaches"] if a["name"] == f)["ended_ordinal"]
            assert ended < p["ordinal"]


def test_decisions(edge, at) -> None:
    decisions = edge[1]["labels"]["decisions"]
    assert len(decisions) >= 1
    for d in decisions:
        prose = _prose(at(d["ordinal"]))
        assert all(k.lower() in prose.lower() for k in d["keywords"]), d
        assert "decision" in prose.lower()


def test_superseded_by_a_decision(edge) -> None:
    labels = edge[1]["labels"]
    decided = {d["ordinal"] for d in labels["decisions"]}
    for a in labels["approaches"]:
        if a["status"] == "superseded":
            assert a["ended_ordinal"] in decided


def test_false_alarm_is_not_an_ending(edge, at) -> None:
    labels = edge[1]["labels"]
    alarms = labels["false_alarms"]
    assert alarms
    for fa in alarms:
        prose = _prose(at(fa["ordinal"]))
        assert all(k.lower() in prose.lower() for k in fa["keywords"])
        approach = next(a for a in labels["approaches"] if a["name"] == fa["approach"])
        assert approach["ended_ordinal"] > fa["ordinal"]


def test_todos_evolve(edge) -> None:
    _outdir, _manifest, msgs = edge
    snapshots = [
        p["state"]["input"]["todos"]
        for m in msgs
        for p in m["parts"]
        if p["type"] == "tool" and p["tool"] == "todowrite"
    ]
    assert len(snapshots) >= 8
    contents = [{t["content"] for t in s} for s in snapshots]
    assert contents[0] != contents[-1]
    assert any(t["status"] == "cancelled" for s in snapshots for t in s)
    first = {t["content"] for t in snapshots[0]}
    assert "Measure TLS handshake from bastion" in first
    assert all("Measure TLS handshake from bastion" not in c for c in contents[-3:])  # reworded
