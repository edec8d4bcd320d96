"""The knowledge graph: extraction rules on hand-built rows, then the fixture campaign."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import networkx as nx
import pytest
from click.testing import CliRunner

from kb.cli import cli
from kb.graph import build_graph, extract
from kb.graph import store as gs
from kb.graph.extract import Annotation, CallRow, ProseRow, Verdict
from kb.graph.text import cause_of, split_todo, tokens
from kb.ingest import ingest
from kb.store import KbStore

S = "ses_test"


def todo(o: int, *items: tuple[str, str]) -> CallRow:
    return CallRow(S, o, 1, "todowrite", "todo", f"{len(items)} todos", None, None,
                   "completed", None, todos=tuple(items))


def bash(o: int, cmd: str, *, sigs: tuple[str, ...] = (), exit_code: int = 0,
         status: str = "completed", host: str | None = "gpu", hops: tuple[dict[str, Any], ...]
         = (), category: str = "launch", meas: tuple[tuple[float, str, str], ...] = (),
         tail: str | None = None) -> CallRow:
    if host and not hops:
        hops = ({"host": host, "remote_command": cmd, "nested": False},)
    return CallRow(S, o, 1, "bash", category, f"ssh {host} '{cmd}'", cmd, host, status,
                   exit_code, sigs, meas, hops=hops, output_tail=tail)


def prose(o: int, text: str, cls: str) -> ProseRow:
    return ProseRow(S, o, 0, cls, text, "reply")


def by_name(ex: Any) -> dict[str, Any]:
    return {a.name: a for a in ex.approaches}


# ------------------------------------------------------------------- text rules
def test_split_todo_separates_the_thing_tried_from_what_was_said() -> None:
    t = split_todo("FlashInfer allreduce fusion — DEAD END: JIT cannot build for SM120 (nvcc)")
    assert (t.name, t.note) == ("FlashInfer allreduce fusion",
                                "DEAD END: JIT cannot build for SM120 (nvcc)")
    assert split_todo("Try NCCL_ALGO=Tree").name == "NCCL_ALGO=Tree"
    assert split_todo("Rebuild sgl-kernel for SM120").name == "Rebuild sgl-kernel for SM120"
    assert split_todo("mold — no-go (glibc 2.31)").note == "no-go (glibc 2.31)"


def test_tokens_normalise_spellings() -> None:
    assert "deepep" in tokens("DeepEP") & tokens("import deep_ep")
    assert "sm120" in tokens("compute_120a") & tokens("SM120") & tokens("sm_120")
    assert {"nccl", "tree"} <= tokens("NCCL_ALGO=Tree")


@pytest.mark.parametrize("text, key", [
    ("JIT cannot build for SM120 (nvcc: unsupported gpu architecture compute_120a)",
     "unsupported:sm120"),
    ("KeyError: 12, SM120 missing from torch's lookup table", "unsupported:sm120"),
    ("38 tok/s, 56 simultaneous cross-GPU reads saturate the PCIe switch", "saturation:pcie"),
    ("breaks CUDA graph capture", "incompatible:cudagraph"),
    ("the old ORM is not compatible with async views", "incompatible:asyncviews"),
    ("deep_ep not installed", "missing:deepep"),
    ("OOM during CUDA graph capture (3.4 GiB dispatch workspace)", "oom"),
    ("mold is not packaged because glibc 2.31 is too old", "unsupported:glibc231"),
    ("with the pool: 1200 req/s vs 1500 req/s without it", "slow"),
    ("the striped volume gives 300 IOPS against 500 on one disk", "slow"),
])
def test_causes_reduce_to_roots(text: str, key: str) -> None:
    assert cause_of(text).key == key


def test_a_rate_above_the_one_it_is_compared_with_is_no_slowdown() -> None:
    for text in ("1500 req/s vs 1200 req/s before: a clear win",
                 "900 MB/s against 300 before the change", "2 HTTP/S endpoints vs one"):
        assert cause_of(text).key != "slow", text


# ------------------------------------------------------------------ extraction
def test_todo_lifecycle_dead_end_with_cause_and_evidence() -> None:
    calls = [
        todo(10, ("Try FlashInfer allreduce fusion", "in_progress"),
             ("Try torch symmetric memory", "pending")),
        bash(12, "python -m sglang.launch_server --enable-flashinfer-allreduce-fusion",
             sigs=("nvcc fatal: Unsupported gpu architecture 'compute_120a'",), exit_code=1),
        todo(14, ("FlashInfer allreduce fusion — DEAD END: no SM120 support in the JIT",
                  "cancelled"), ("Try torch symmetric memory", "in_progress")),
        bash(20, "python -m sglang.launch_server --enable-torch-symm-mem",
             sigs=("KeyError: 12",), exit_code=1),
        todo(22, ("FlashInfer allreduce fusion — DEAD END: no SM120 support in the JIT",
                  "cancelled"), ("Torch symmetric memory", "cancelled")),
    ]
    ex = extract(S, [S], calls, [prose(21, "KeyError: 12 means SM120 is missing from torch's "
                                           "lookup table, so that rules it out.", "dead-end")])
    a = by_name(ex)
    fi, sy = a["FlashInfer allreduce fusion"], a["Torch symmetric memory"]
    assert (fi.status, fi.ended, sy.status, sy.ended) == ("dead_end", 14, "dead_end", 21)
    assert fi.cause is not None and sy.cause is not None
    assert fi.cause.key == sy.cause.key == "unsupported:sm120"
    assert [e.ordinal for e in fi.evidence if e.role == "tested"] == [12]
    assert [e.ordinal for e in sy.evidence if e.role == "tested"] == [20]
    g = build_graph(ex)
    cause = "cause:unsupported:sm120"
    assert {u for u, _, d in g.in_edges(cause, data=True)
            if d["type"] == "failed_because"} == {f"approach:{fi.id}", f"approach:{sy.id}"}


def test_cancelled_without_reason_takes_the_cause_from_the_failure() -> None:
    calls = [todo(1, ("Try sccache", "in_progress")),
             bash(3, "cargo build with sccache", category="build",
                  sigs=("error: sccache: incremental compilation is not supported",),
                  exit_code=101),
             todo(5, ("Try sccache", "cancelled"))]
    ex = extract(S, [S], calls, [])
    a = by_name(ex)["Sccache"]
    assert a.status == "dead_end" and a.ended == 5 and a.cause is not None
    assert "not supported" in a.cause.label or "sccache" in a.cause.label.lower()


def test_missing_prerequisite_is_blocked_not_dead() -> None:
    calls = [todo(1, ("Expert Parallelism via DeepEP", "in_progress")),
             bash(2, "python3 -c 'import deep_ep'", category="import-check",
                  sigs=("ModuleNotFoundError: deep_ep",), exit_code=1)]
    ex = extract(S, [S], calls, [prose(3, "DeepEP is not installed, so that's a no-go for now.",
                                       "dead-end")])
    a = by_name(ex)["Expert Parallelism via DeepEP"]
    assert a.status == "blocked" and a.cause is not None and a.cause.kind == "missing"


def test_a_general_remark_ends_nothing_and_negation_is_respected() -> None:
    calls = [todo(1, ("Baseline with --cuda-graph-max-bs 128", "in_progress")),
             bash(2, "python -m sglang.bench_serving", category="benchmark",
                  meas=((89.5, "tok/s", "Output token throughput"),))]
    ex = extract(S, [S], calls, [
        prose(3, "Tuning flags around CUDA 12.8 is a dead end in general.", "dead-end"),
        prose(4, "This is not a dead end for the baseline: 89.5 tok/s.", "conclusion")])
    assert by_name(ex)["Baseline with --cuda-graph-max-bs 128"].status == "open"


def test_dead_end_prose_ends_the_approach_it_names_not_the_next_one() -> None:
    calls = [todo(1, ("Try FlashInfer allreduce fusion", "in_progress"),
                  ("Force custom allreduce on PCIe", "pending"))]
    ex = extract(S, [S], calls, [prose(5, "FlashInfer fusion can't be built here, crossing it "
                                          "off; next is the custom allreduce.", "dead-end")])
    a = by_name(ex)
    assert a["FlashInfer allreduce fusion"].ended == 5
    assert a["Custom allreduce on PCIe"].status == "open"


def test_pivot_links_the_abandoned_to_the_replacement() -> None:
    calls = [todo(1, ("Try A-fusion kernel", "in_progress"), ("Try B-tree algo", "pending")),
             todo(5, ("A-fusion kernel", "cancelled"), ("B-tree algo", "cancelled")),
             todo(9, ("A-fusion kernel", "cancelled"), ("B-tree algo", "cancelled"),
                  ("Expert parallelism", "in_progress"))]
    ex = extract(S, [S], calls, [prose(9, "Stop making the allreduce faster; change the pattern "
                                          "instead.", "pivot")])
    (p,) = ex.pivots
    names = {a.id: a.name for a in ex.approaches}
    assert p.ordinal == 9 and names[p.targets[0]] == "Expert parallelism"
    assert {names[s] for s in p.sources} == {"A-fusion kernel", "B-tree algo"}


def test_nested_ssh_transport_failure_leaves_only_the_nested_question_open() -> None:
    hops = ({"host": "10.1.230.174", "remote_command": "python3 -c \"import deep_ep\"",
             "nested": False},
            {"host": "10.1.230.174", "remote_command": "python3 -c \"import deepep\" 2>&1",
             "nested": True})
    call = bash(5216, "python3 -c \"import deep_ep\"; ssh 10.1.230.174 \"python3 -c ...\"",
                host="10.1.230.174", hops=hops, category="import-check", exit_code=255,
                sigs=("ModuleNotFoundError: deep_ep", "Host key verification failed"),
                tail="ModuleNotFoundError: No module named 'deep_ep'\n---\n"
                     "Host key verification failed.\n")
    ex = extract(S, [S], [call], [])
    (q,) = ex.questions
    assert q.question == "is deepep importable on 10.1.230.174?"
    assert q.reason == "Host key verification failed" and q.answered_at is None


def test_a_later_successful_rerun_answers_the_question() -> None:
    first = bash(3, "nvidia-smi", host="gpu-d", category="search", exit_code=255,
                 sigs=("Could not resolve hostname",))
    again = bash(9, "nvidia-smi", host="gpu-d", category="search")
    aborted = bash(12, "python bench.py", status="aborted", exit_code=None, category="benchmark")
    ex = extract(S, [S], [first, again, aborted], [])
    q1, q2 = ex.questions
    assert q1.answered_at == 9 and q2.answered_at is None
    assert q2.reason == "the tool call was aborted"


def test_annotations_win_over_heuristics() -> None:
    calls = [todo(1, ("Try Postgres JIT off", "in_progress")),
             bash(2, "psql -c 'set jit=off'", category="other")]
    anns = [Annotation(1, S, 2, "dead_end", "planner regressions on reports"),
            Annotation(2, S, 2, "note", "ask the DBA")]
    ex = extract(S, [S], calls, [], anns)
    a = by_name(ex)["Postgres JIT off"]
    assert a.status == "dead_end" and a.annotated and a.notes == ["2: ask the DBA"]
    assert a.cause is not None and "planner" in a.cause.label
    ex2 = extract(S, [S], calls, [], [Annotation(3, S, 2, "confirmed")])
    assert by_name(ex2)["Postgres JIT off"].status == "confirmed"


def test_risk_when_a_new_approach_depends_on_a_failed_family() -> None:
    calls = [todo(1, ("Try FlashInfer allreduce fusion", "in_progress")),
             todo(4, ("FlashInfer allreduce fusion — DEAD END: no SM120 support", "cancelled")),
             todo(8, ("FlashInfer allreduce fusion — DEAD END: no SM120 support", "cancelled"),
                  ("EP with the flashinfer A2A backend", "in_progress"))]
    ex = extract(S, [S], calls, [])
    risks = by_name(ex)["EP with the flashinfer A2A backend"].risks
    assert risks and "SM120 unsupported" in risks[0] and "flashinfer" in risks[0]


def test_replay_verdict_flags_a_revisit() -> None:
    calls = [todo(1, ("DeepEP", "in_progress")),
             bash(2, "python3 -c 'import deep_ep'", category="import-check",
                  sigs=("ModuleNotFoundError: deep_ep",), exit_code=1),
             todo(3, ("DeepEP — abandoned: deep_ep not installed", "cancelled"))]
    ex = extract(S, [S], calls, [], [], [Verdict(S, 2, "now-passes")])
    assert by_name(ex)["DeepEP"].revisit == "replay of message 2: now-passes"


# ------------------------------------------------------------- fixture campaign
SM120 = {"FlashInfer allreduce fusion", "Torch symmetric memory allreduce"}


@pytest.fixture(scope="module")
def deadends(blackwell_db: Path) -> list[dict[str, Any]]:
    r = CliRunner().invoke(cli, ["deadends", "--db", str(blackwell_db), "--json"],
                           catch_exceptions=False)
    assert r.exit_code == 0, r.stderr
    return [json.loads(x) for x in r.stdout.splitlines()]


def test_fixture_dead_ends(deadends: list[dict[str, Any]],
                           blackwell_manifest: dict[str, Any]) -> None:
    names = {d["name"]: d for d in deadends}
    assert set(names) == {"FlashInfer allreduce fusion", "Custom allreduce on PCIe",
                          "NCCL_ALGO=Tree", "Torch symmetric memory allreduce",
                          "Expert Parallelism via DeepEP", "Flashinfer A2A backend"}
    assert names["Expert Parallelism via DeepEP"]["status"] == "blocked"
    assert "not installed" in names["Expert Parallelism via DeepEP"]["cause"]
    assert names["Flashinfer A2A backend"]["cause"] == "out of memory"
    assert names["Custom allreduce on PCIe"]["cause"] == "PCIe saturation"
    assert "CUDA graph" in names["NCCL_ALGO=Tree"]["cause"]
    for d in deadends:
        assert d["cause"] and all({"session_id", "ordinal"} <= set(e) for e in d["evidence"])
    # the messages that tested and ended each allreduce attempt (the manifest's story)
    labels = {"FlashInfer allreduce fusion": "flashinfer_allreduce_fusion",
              "Custom allreduce on PCIe": "custom_allreduce_pcie",
              "NCCL_ALGO=Tree": "nccl_tree", "Torch symmetric memory allreduce": "torch_symm_mem"}
    story = {d["key"]: d for d in blackwell_manifest["dead_ends"]}
    for name, key in labels.items():
        ev = names[name]["evidence"]
        tested = {e["ordinal"] for e in ev if e["role"] == "tested"}
        assert set(story[key]["tested_ordinals"]) <= tested, name
        assert names[name]["ended_at"] == story[key]["ended_ordinal"], name
    # the two SM120 failures share one cause node
    assert len({names[n]["cause_id"] for n in SM120}) == 1
    assert names["FlashInfer allreduce fusion"]["cause_id"] == "cause:unsupported:sm120"


def test_fixture_untested_and_pivot_and_decision(blackwell_db: Path) -> None:
    r = CliRunner().invoke(cli, ["untested", "--db", str(blackwell_db), "--json"])
    items = [json.loads(x) for x in r.stdout.splitlines()]
    assert [(q["ordinal"], q["question"], q["reason"]) for q in items] == [
        (5216, "is deepep importable on 10.1.230.174?", "Host key verification failed")]
    with KbStore(blackwell_db, read_only=True) as store:
        scope = [gs.scope_of(store, store.resolve_session(None))]
        pivots = gs.pivots(store, scope)
        decisions = gs.decisions(store, scope)
        g = gs.load_graph(store, scope)
    assert {p["ordinal"] for p in pivots} == {5214} and len(pivots) == 4
    assert any(d["ordinal"] == 5227 and "CUDA 13" in d["label"] for d in decisions)
    # the subagent's research attaches to the approach it served
    ep = next(n for n, d in g.nodes(data=True) if d.get("label") ==
              "Expert Parallelism via DeepEP")
    assert any(d["type"] == "researched_in" for _, _, d in g.out_edges(ep, data=True))


def test_why_timeline_handoff(blackwell_db: Path, tmp_path: Path) -> None:
    run = CliRunner()
    why = run.invoke(cli, ["why", "deepep", "--db", str(blackwell_db)]).stdout
    assert "Expert Parallelism via DeepEP" in why and "5216" in why
    assert "pivot at 5214" in why and "never answered" in why
    assert run.invoke(cli, ["why", "5061", "--db", str(blackwell_db)]).stdout.startswith(
        "✘ Torch symmetric memory")
    tl = run.invoke(cli, ["timeline", "--db", str(blackwell_db)]).stdout
    assert "FlashInfer allreduce fusion" in tl and "tok/s" in tl and "89.5" in tl
    out = tmp_path / "handoff.md"
    r = run.invoke(cli, ["handoff", "--db", str(blackwell_db), "-o", str(out)])
    assert r.exit_code == 0
    md = out.read_text()
    for section in ("## Goal", "## What was tried", "## Dead ends, by cause",
                    "## Measurements", "## Open and untested", "## Next steps", "## Status"):
        assert section in md
    assert "is deepep importable" in md and "SM120 unsupported" in md


@pytest.mark.parametrize("fmt", ["json", "graphml", "dot", "mermaid"])
def test_graph_exports(blackwell_db: Path, fmt: str) -> None:
    r = CliRunner().invoke(cli, ["graph", "--db", str(blackwell_db), "--format", fmt])
    assert r.exit_code == 0
    text = r.stdout
    if fmt == "json":
        g = nx.node_link_graph(json.loads(text), edges="edges")
        assert any(d.get("type") == "cause" for _, d in g.nodes(data=True))
    elif fmt == "graphml":
        assert ET.fromstring(text).tag.endswith("graphml")
    elif fmt == "dot":
        assert text.startswith("digraph") and "pivot @5214" in text
        assert "cluster_cause" in text and "cluster_legend" in text
    else:
        assert text.startswith("flowchart TB") and "pivot @5214" in text
        assert 'subgraph cause0["cause: ' in text and "classDef dead_end" in text


def test_annotations_survive_reingest(blackwell: Path, blackwell_db_copy: Path) -> None:
    db = str(blackwell_db_copy)
    run = CliRunner()
    r = run.invoke(cli, ["mark", "dead-end", "5224", "gains vanish at bs=4", "--db", db])
    assert r.exit_code == 0, r.stderr
    run.invoke(cli, ["mark", "note", "5216", "retry with ssh -o StrictHostKey", "--db", db])

    def status() -> dict[str, str]:
        items = [json.loads(x) for x in run.invoke(cli, ["deadends", "--db", db, "--json"]).stdout.splitlines()]
        return {d["name"]: d["status"] for d in items}

    assert status()["Baseline with --cuda-graph-max-bs 128"] == "dead_end"
    with KbStore(db) as store:
        ingest(store, [blackwell / "session.jsonl"], force=True)
        gs.rebuild(store, gs.scope_of(store, store.resolve_session(None)), force=True)
    assert status()["Baseline with --cuda-graph-max-bs 128"] == "dead_end"
    listed = [json.loads(x) for x in run.invoke(cli, ["mark", "list", "--db", db, "--json"]).stdout.splitlines()]
    assert [a["kind"] for a in listed] == ["dead_end", "note"]
    run.invoke(cli, ["unmark", "5224", "--db", db])
    assert "Baseline with --cuda-graph-max-bs 128" not in status()


def test_graph_rebuild_is_skipped_when_nothing_changed(blackwell_db_copy: Path) -> None:
    with KbStore(blackwell_db_copy) as store:
        scope = gs.scope_of(store, store.resolve_session(None))
        assert gs.rebuild(store, scope) is False
        assert gs.rebuild(store, scope, force=True) is True


def test_a_graph_derived_with_a_family_off_is_not_current_without_it(
        blackwell_db_copy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """``LOGKB_ABLATE`` (benches only) must not leak into a knowledge base: a graph
    derived with a family switched off is stamped as such, and derived again once read
    without the switch (by ``rebuild`` and by ``rebuild_all``, the ingest's path)."""
    with KbStore(blackwell_db_copy) as store:
        scope = gs.scope_of(store, store.resolve_session(None))
        full = len(gs.dead_ends(store, [scope]))
        for rebuild in (lambda: gs.rebuild(store, scope, force=True),
                        lambda: gs.rebuild_all(store, only=[scope], force=True)):
            monkeypatch.setenv("LOGKB_ABLATE", "structural,prose")
            rebuild()
            assert gs.outdated(store, [scope]) == []  # current under the same switch
            assert len(gs.dead_ends(store, [scope])) < full
            monkeypatch.setenv("LOGKB_ABLATE", "prose")
            assert gs.outdated(store, [scope]) == [scope]  # another switch: not current
            monkeypatch.delenv("LOGKB_ABLATE")
            assert gs.outdated(store, [scope]) == [scope]
            assert gs.unbuilt(store, [scope]) == [scope]
            assert gs.rebuild(store, scope) is True
            assert gs.outdated(store, [scope]) == []
            assert len(gs.dead_ends(store, [scope])) == full


def test_a_grown_session_continues_the_pass(blackwell: Path, tmp_path: Path,
                                            blackwell_manifest: dict[str, Any],
                                            blackwell_db: Path) -> None:
    """Growing a session updates its graph from the new messages only, to the same graph
    (as the run's fresh ingest of the same files, ``blackwell_db``)."""
    lines = (blackwell / "session.jsonl").read_bytes().splitlines(keepends=True)
    part = tmp_path / "grown" / "session.jsonl"
    part.parent.mkdir()
    part.write_bytes(b"".join(lines[:5150]))
    child = sorted(blackwell.glob("session-*.jsonl"))
    with KbStore(tmp_path / "grown.duckdb") as store:
        ingest(store, [part, *child])
        scope = blackwell_manifest["session_id"]
        state = "SELECT marks FROM graph_state WHERE scope = ?"
        before = store.conn.execute(state, [scope]).fetchone()
        part.write_bytes(b"".join(lines))
        ingest(store, [part])
        marks = json.loads(store.conn.execute(state, [scope]).fetchone()[0])
        # the subagent joined its parent's scope once the spawning call arrived
        assert store.conn.execute("SELECT scope FROM graph_state").fetchall() == [(scope,)]
        assert before is not None and json.loads(before[0])[scope][0] == 5150
        assert marks[scope][0] == 5228
        grown = (gs.dead_ends(store, [scope]), gs.untested(store, [scope]),
                 gs.pivots(store, [scope]))
    assert part.read_bytes() == (blackwell / "session.jsonl").read_bytes()
    with KbStore(blackwell_db, read_only=True) as store:
        fresh = (gs.dead_ends(store, [scope]), gs.untested(store, [scope]),
                 gs.pivots(store, [scope]))
    assert grown == fresh
    assert len(grown[0]) == 6


def test_graph_state_refuses_foreign_states(blackwell_db_copy: Path) -> None:
    from kb.graph import state as xstate

    with KbStore(blackwell_db_copy) as store:
        scope = gs.scope_of(store, store.resolve_session(None))
        store.conn.execute("UPDATE graph_state SET state = ?",
                           ['{"codec": "logkb-xstate", "version": 1, "extractor": '
                            '{"$Extractor": {"scope": "%s", "x": {"$os.getcwd": []}}}}' % scope])
        before = sum(xstate.DISCARDED.values())
        # the state is refused and the scope rebuilt from its rows
        assert gs.rebuild(store, scope, force=False) in (True, False)
        g = gs.graph_of(store, scope)
        assert any(d.get("status") == "blocked" for _, d in g.nodes(data=True))
        assert sum(xstate.DISCARDED.values()) > before


# ------------------------------------------------------------ episodes around checks
def edit(o: int, path: str, status: str = "completed") -> CallRow:
    return CallRow(S, o, 1, "edit", "file-edit", path, None, None, status, None)


def local(o: int, cmd: str, *, sigs: tuple[str, ...] = (), exit_code: int | None = 0,
          status: str = "completed", error: str | None = None, tool: str = "bash") -> CallRow:
    return CallRow(S, o, 1, tool, "build", cmd, None, None, status, exit_code, sigs,
                   error=error)


def user(o: int, text: str) -> ProseRow:
    return ProseRow(S, o, 0, "prompt", text, None)


def test_check_key_ignores_flags_paths_and_cd() -> None:
    from kb.graph.episodes import check_key

    assert check_key("bash", "cd /x/y && npm install a b --save") == "npm install a"
    assert check_key("bash", "npm install --save-dev a") == "npm install a"
    assert check_key("bash", "php /tmp/rebuild.php --force") == "php rebuild.php"
    assert check_key("bash", "FOO=1 sudo cargo build --release") == "cargo build"
    assert check_key("edit", "/src/app/main.tsx") == "edit main.tsx"
    # set-up segments are not the check; a wrapper checks the wrapped program's sub-command
    assert check_key("powershell", '$c = Get-Content "C:\\x\\page.txt" -Raw; '
                     'studio wp post create --post_content="$c"') == "studio wp post create"
    assert check_key("bash", "export RUST_LOG=debug; cargo test") == "cargo test"
    assert check_key("bash", "$r = Invoke-WebRequest -Uri http://127.0.0.1:8080/health") \
        == "invoke-webrequest 127.0.0.1:8080/health"
    assert check_key("bash", "docker compose up -d db") == "docker compose up"
    assert check_key("bash", 'php -r "\nrequire \'vendor/autoload.php\';"') == "php require"
    assert check_key("powershell", "$ErrorActionPreference = 'Stop'; npm test") == "npm test"


def test_a_run_the_reply_reads_as_not_working_is_a_failure() -> None:
    """Runs that exit 0 but that the agent reads as wrong ("still just '-'") fail their
    check: three of them, and the check is a dead end; praise of a run is no failure."""
    calls = [local(10, "wp post update 5 --post_content=- < page.html"),
             local(11, "wp post get 5 --field=post_content"),
             local(13, "wp post get 5 --field=post_content"),
             local(15, "wp post get 5 --field=post_content"),
             local(20, "wp post get 5 --field=post_content")]
    rows = [prose(12, "The content is still just \"-\". The stdin pipe is not read.", "plan"),
            prose(14, "Hmm, the update didn't work either.", "plan"),
            prose(16, "The content still shows the old markup.", "plan"),
            prose(21, "Great, the page now renders correctly.", "conclusion")]
    ex = extract(S, [S], calls, rows)
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert len(dead) == 1, [a.name for a in dead]
    ords = {e.ordinal for e in dead[0].evidence}
    assert {11, 13, 15} <= ords and 20 not in ords
    assert "still just" in dead[0].cause_text or "still just" in dead[0].cause.label
    # the same runs read as fine are no dead end
    fine = [prose(o, "The content looks right.", "plan") for o in (12, 14, 16, 21)]
    assert not [a for a in extract(S, [S], calls, fine).approaches if a.status == "dead_end"]


def test_one_run_the_reply_reads_as_failed_then_turns_from_is_given_up() -> None:
    """uicomponents__session-wordpress.json (opencode, shared) #234-#236: a loop of logins
    exits 0, the reply reads it ("None of the common passwords worked.") and turns to
    another way: that check was given up, though it never printed an error.  Read as
    failed without the agent turning away, or read as fine, it is no dead end."""
    calls = [local(234, "# Try common passwords\nforeach($pwd in $passwords) { curl -s "
                        "http://localhost:8882/wp-login.php }"),
             local(236, "Get-ChildItem $env:LOCALAPPDATA\\studio -Recurse")]
    turned = [prose(235, "None of the common passwords worked. Let me try a different "
                         "approach.", "dead-end")]
    dead = [a for a in extract(S, [S], calls, turned).approaches if a.status == "dead_end"]
    assert [a.name for a in dead] == ["`# try` until it works"], [a.name for a in dead]
    assert "None of the common passwords worked" in (dead[0].cause_text or "")
    fine = [prose(235, "All of the common passwords were refused as expected. Let me "
                       "try a different approach.", "dead-end")]
    assert not [a for a in extract(S, [S], calls, fine).approaches if a.status == "dead_end"]


def test_a_run_read_as_failed_after_the_agent_looked_at_what_it_left() -> None:
    """uicomponents__session-wordpress.json (opencode, shared) #66-#69: the update ran
    clean, the agent read what it left, then judged it ("No output suggests the pipe
    isn't working correctly."): the run failed though a read came between.  Not two
    messages further back, not past another run, and not for a reply that only says
    it sees an issue (that is about what it read)."""
    from kb.graph.extract import Extractor

    def judged(calls: list[CallRow], text: str) -> list[int]:
        ex = Extractor(S)
        ex.run(calls, [prose(69, text, "plan")])
        return [s.ordinal for s in ex.steps if s.judged]

    run = local(66, "studio wp post update 5 --post_content=- < page.html")
    read = CallRow(S, 67, 1, "grep", "search", "post_content page.html", None, None,
                   "completed", None)
    verdict = "No output suggests the pipe isn't working correctly. Let me look."
    assert judged([run, read], verdict) == [66]
    assert judged([run._replace(ordinal=67), read._replace(ordinal=68)], verdict) == [67]
    assert judged([run._replace(ordinal=65), read], verdict) == []
    # another run since: the verdict is that run's
    assert judged([run, read, local(68, "studio wp post get 5")], verdict) == [68]
    assert judged([run, local(67, "studio wp post get 5"), read._replace(ordinal=68)],
                  verdict) == [67]
    assert judged([run, read], "I see the issue: the template never reads it.") == []
    assert judged([run._replace(ordinal=68)], "I see the issue: the pipe is empty.") == [68]


def test_a_change_followed_by_the_same_failure_is_a_dead_end_a_slip_is_not() -> None:
    sig = ("error[E0308]: mismatched types",)
    calls = [local(10, "cargo build", sigs=sig, exit_code=101), edit(11, "src/lib.rs"),
             local(12, "cargo build", sigs=sig, exit_code=101), edit(13, "src/lib.rs"),
             local(14, "cargo build", sigs=sig, exit_code=101),
             # a slip: a wrong flag fixed at once
             local(20, "pytest -x --colour", sigs=("error: unrecognized arguments",),
                   exit_code=4), local(21, "pytest -x")]
    ex = extract(S, [S], calls, [prose(15, "This approach is not viable; moving on.",
                                        "dead-end")])
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert len(dead) == 1
    assert "E0308" in dead[0].cause.label
    ords = {e.ordinal for e in dead[0].evidence}
    assert {10, 12, 14} <= ords and not ords & {20, 21}


def test_progress_is_no_failed_attempt() -> None:
    """A different failure after a change is progress: the first one is not evidence."""
    calls = [local(10, "gh repo create x", exit_code=1, sigs=("fatal: not a git repository",)),
             local(11, "git init"),
             local(12, "gh repo create x", sigs=("Host key verification failed",), exit_code=1),
             local(13, "gh repo create x --https", sigs=("GraphQL: Name already exists",),
                   exit_code=1)]
    ex = extract(S, [S], calls, [prose(14, "SSH does not work here, I give up on gh.",
                                        "dead-end")])
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert dead and all(10 not in {e.ordinal for e in a.evidence} for a in dead)


def test_the_user_reporting_the_same_error_refutes_the_fix() -> None:
    err = "Fatal error: Uncaught Error: Class \"alert\" not found in /x/index.php:95"
    calls = [edit(11, "demo/index.php"), local(12, "php -l demo/index.php"),
             edit(21, "demo/index.php")]
    rows = [user(10, "build a demo page"), user(20, err), user(30, f"still: {err}")]
    ex = extract(S, [S], calls, rows)
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    # two fixes the user reports broken: two attempts, one symptom, one cause node
    assert [sorted(e.ordinal for e in a.evidence) for a in dead] == [[11, 20], [21, 30]]
    assert dead[0].cause is dead[1].cause
    assert 'Class "alert" not found' in dead[0].cause.label


def test_a_fix_the_user_reports_unchanged_refutes_it_in_any_language() -> None:
    """A turn that changed files, then a user message that says nothing changed (no
    word of the change, no error): the fix did not take.  A new request naming the same
    file after it, or thanks, refute nothing."""
    calls = [edit(11, "src/hero.tsx"), edit(12, "src/App.tsx")]
    for said in ("nothing changed, the background still covers everything",
                 "CLAUDE parece que arreglo que se vea mejor, pero no resolvio lo de las "
                 "oraciones"):
        rows = [user(10, "limit the aurora background to the hero section"),
                prose(13, "Done: the aurora is now clipped to the hero.", "conclusion"),
                user(40, said)]
        dead = [a for a in extract(S, [S], calls, rows).approaches if a.status == "dead_end"]
        assert len(dead) == 1, said
        assert {11, 12, 40} <= {e.ordinal for e in dead[0].evidence}, said
    for said in ("now add a contact form under the hero in src/App.tsx",
                 "perfect, thanks! nothing changed elsewhere, good"):
        rows = [user(10, "limit the aurora background to the hero section"),
                prose(13, "Done: the aurora is now clipped to the hero.", "conclusion"),
                user(40, said)]
        assert not [a for a in extract(S, [S], calls, rows).approaches
                    if a.status == "dead_end"], said


def test_injected_blocks_beside_the_users_words_report_and_drop_nothing() -> None:
    """What the harness writes into a user record beside the user's words (a reminder, a
    ``!`` command's output, a skill's body) is read by no user-words rule: its "nothing
    changed" refutes no fix, its "don't use" drops no name the reply used."""
    calls = [edit(11, "src/hero.tsx"), edit(12, "src/App.tsx")]
    for said in ("<system-reminder>\nNothing changed in the todo list since the last "
                 "reminder.\n</system-reminder>\nnow add a contact form under the hero",
                 "<bash-stdout>no change, nothing happens</bash-stdout><bash-stderr>"
                 "</bash-stderr>",
                 "<skill>\n<name>review</name>\nDon't use Hero.tsxLegacy; ignore "
                 "src/App.tsx.\n</skill>\nnow add a contact form"):
        rows = [user(10, "limit the aurora background to the hero section"),
                prose(13, "Done: the aurora is now clipped to the hero in src/App.tsx.",
                      "conclusion"),
                user(40, said)]
        assert not [a for a in extract(S, [S], calls, rows).approaches
                    if a.status == "dead_end"], said


def test_reports_again_with_no_change_between_are_one_dead_end() -> None:
    """The user reports the fix broken, the agent only looks (reads a file, answers),
    the user says it is still broken: one dead end, whose cause is the user's complaint
    from the "but" on; a new fix between the reports is an attempt of its own."""
    calls = [edit(11, "src/hero.tsx"), local(21, "cat src/hero.tsx", tool="read")]
    rows = [user(10, "limit the aurora background to the hero section"),
            user(20, "it looks better, but the aurora is still not clipped to the hero"),
            prose(22, "The hero clips it already; it may be your browser cache.", "conclusion"),
            user(30, "no, still the same after a hard reload")]
    dead = [a for a in extract(S, [S], calls, rows).approaches if a.status == "dead_end"]
    assert len(dead) == 1
    assert {11, 20, 30} <= {e.ordinal for e in dead[0].evidence}
    assert dead[0].cause.label.startswith("the aurora is still not clipped"), dead[0].cause.label
    calls[1] = edit(21, "src/App.tsx")
    dead = [a for a in extract(S, [S], calls, rows).approaches if a.status == "dead_end"]
    assert len(dead) == 2


def test_user_questions_and_thanks_refute_nothing() -> None:
    from logparse.prose import refutation_phrase

    assert refutation_phrase("the buttons are dead") == "dead"
    assert refutation_phrase("it still doesn't work") is not None
    assert refutation_phrase("when I click I got: TypeError: x is null") is not None
    assert refutation_phrase("is it working now?") is None
    assert refutation_phrase("works now, thanks") is None
    assert refutation_phrase("looks good, but the footer is missing") is not None
    assert refutation_phrase("add a footer to the page") is None
    # corrections: what the user wanted, or why the agent did not do it that way
    assert refutation_phrase("make it one directional, that what i want") is not None
    assert refutation_phrase("couldnt i do it with the cli, why u didnt do that") is not None
    assert refutation_phrase("why didn't you use the cli?") is not None
    assert refutation_phrase("buttons dont work") == "dont work"
    assert refutation_phrase("now its the same as before") == "same as before"
    assert refutation_phrase("the client works fine") is None
    # what the user pasted after a colon and a blank line is not what the user says; an
    # error pasted there is still a report
    pasted = ("Make the export list each prompt with its reply, like this:\n\n"
              "Prompt #1: build a board\nResponse:\nNothing happens when I press new game.")
    assert refutation_phrase(pasted) is None
    # a complaint after the paste is the user's again
    assert refutation_phrase("Here is what I get:\n\n<html><body></body></html>\n\n"
                             "it still doesn't work") is not None
    assert refutation_phrase("It fails like this:\n\nTraceback (most recent call last):\n"
                             "KeyError: 'x'") is not None


def test_untested_covers_rejections_running_calls_and_cut_replies() -> None:
    from kb.graph.extract import MessageRow

    calls = [local(5, "glob **/mcp.json", tool="glob", status="error", exit_code=None,
                   error="The user rejected permission to use this specific tool call."),
             local(8, "npm install big", status="interrupted", exit_code=None)]
    msgs = [MessageRow(S, 6, "assistant", "length", None, 32000, True, True, False, None,
                       False),
            MessageRow(S, 7, "assistant", "stop", None, 0, True, False, False, None, False),
            MessageRow(S, 9, "assistant", None, None, 0, False, False, True, None, True)]
    ex = extract(S, [S], calls, [], messages=msgs)
    reasons = {q.ordinal: q.reason for q in ex.questions}
    assert "rejected" in reasons[5] and "running" in reasons[8]
    assert "output-token limit" in reasons[6] and "without an answer" in reasons[7]
    # the refusal is also a dead end: the user said no to that approach
    assert any("reject" in (a.cause.label if a.cause else "") for a in ex.approaches)


def test_a_call_record_without_a_finish_is_no_silent_reply() -> None:
    """A Codex call keeps only its record at its own ordinal (its events sit at the
    output's): no finish reason, no text, no call — and still no reply that stopped."""
    from kb.graph.extract import MessageRow

    msgs = [MessageRow(S, 4, "assistant", None, None, None, False, False, False, None, False),
            MessageRow(S, 7, "assistant", "stop", None, 0, True, False, False, None, False)]
    ex = extract(S, [S], [], [], messages=msgs)
    assert [q.ordinal for q in ex.questions] == [7]


def test_a_context_compaction_is_no_silent_reply_and_names_the_turn_it_broke() -> None:
    from kb.graph.extract import MessageRow

    msgs = [MessageRow(S, 463, "user", None, None, None, True, False, False, None, False,
                       compacted=True),
            MessageRow(S, 464, "assistant", "stop", None, 900, True, False, False, None, False,
                       compacted=True)]
    calls = [local(461, "webfetch https://getbootstrap.com/docs/5.3/components/modal/",
                   tool="webfetch")]
    rows = [user(460, "the modal is not working, take the info from the HTML docs"),
            user(468, "ok we are fixing the DEMO on index.php and the MODAL is not working")]
    ex = extract(S, [S], calls, rows, messages=msgs)
    assert not [q for q in ex.questions if q.ordinal in (463, 464)]
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert len(dead) == 1 and "compaction" in dead[0].cause.label


def test_a_network_failure_inside_an_offline_sandbox_leaves_the_question_open() -> None:
    """"Couldn't connect" is a curl's answer, unless the sandbox cut the network: then the
    server was never asked; the escalated rerun answers it."""
    sig = ("Couldn't connect to server",)
    calls = [local(5, "curl -I localhost:3000/a", sigs=sig, exit_code=7)._replace(offline=True),
             local(6, "curl -I localhost:3000/b", sigs=sig, exit_code=7),
             local(9, "node -e 'fetch(url)'", exit_code=1,
                   sigs=("Error: failed to get info about account CQW3…",))._replace(
                       offline=True, output_tail="TypeError: fetch failed\n"),
             local(10, "node -e 'fetch(url)'")]
    ex = extract(S, [S], calls, [])
    qs = {q.ordinal: q for q in ex.questions}
    assert set(qs) == {5, 9}
    assert "no network" in qs[5].reason and qs[5].answered_at is None
    assert qs[9].answered_at == 10


def test_a_check_whose_program_is_missing_and_is_left_is_a_dead_end() -> None:
    calls = [local(98, "npm run lint", exit_code=127, sigs=("command not found: eslint",)),
             local(101, "npx tsc --noEmit")]
    ex = extract(S, [S], calls, [prose(99, "eslint is not installed here, so that check "
                                           "cannot run; tsc will do.", "observation")])
    dead = [a for a in ex.approaches if a.status in ("dead_end", "blocked")]
    assert [(a.name, {e.ordinal for e in a.evidence} >= {98}) for a in dead] == [
        ("`npm run lint` until it works", True)]
    assert "eslint" in dead[0].cause.label


def test_a_single_timeout_is_a_dead_end_only_when_turned_from_and_its_program_hangs_once(
        ) -> None:
    cut = ("Timed out",)
    once = [local(10, "opencode export", status="completed", exit_code=None, sigs=cut),
            local(12, "opencode session list")]
    turn = [prose(11, "The export is interactive, it shows a picker. Let me try a different "
                      "approach instead and pass the session id.", "pivot")]
    ex = extract(S, [S], once, turn)
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert len(dead) == 1 and "timeout" in dead[0].cause.label
    assert "interactive" in (dead[0].cause_text or "")
    # a program that hangs again and again is the environment: its questions stay open
    again = once + [local(20, "opencode run x", exit_code=None, sigs=cut)]
    ex = extract(S, [S], again, turn)
    assert not [a for a in ex.approaches if a.status == "dead_end"]
    assert {10, 20} <= {q.ordinal for q in ex.questions}


def test_a_run_cut_at_a_prompt_and_left_for_another_form_is_a_dead_end() -> None:
    prompt = ("Timed out waiting for interactive input",)
    calls = [local(57, "opencode export", exit_code=None, sigs=prompt),
             local(58, "opencode export ses_1 > out.json")]
    ex = extract(S, [S], calls, [prose(58, "It needs the id to skip the picker.", "plan")])
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert [(a.name, {e.ordinal for e in a.evidence}) for a in dead] == [
        ("`opencode export` until it works", {57, 58})]
    assert "interactive input" in dead[0].cause.label
    # a failure at once in the new form is a story of its own, not this one's end
    slip = [calls[0], local(58, "opencode export ses_1", exit_code=1, sigs=("Error: bad id",)),
            local(59, "opencode export ses_2")]
    assert [{e.ordinal for e in a.evidence} for a in extract(S, [S], slip, []).approaches
            if a.status == "dead_end"] == [{57}]
    # a plain timeout of a program that may just be slow is no dead end by itself
    slow = [local(57, "opencode export", exit_code=None, sigs=("Timed out",)), calls[1]]
    assert not [a for a in extract(S, [S], slow, []).approaches if a.status == "dead_end"]


def _asked(o: int, answer: str) -> CallRow:
    return CallRow(S, o, 1, "question", "other", "Asked 1 question", None, None, "completed",
                   None, (), output_tail=f'User has answered your questions: "{answer}"')


def test_a_failure_the_agent_stops_to_ask_the_user_about_is_a_dead_end() -> None:
    missing = ("Error: /root/data/sessions.db not found",)
    calls = [local(32, "bash sync.sh", exit_code=1, sigs=missing),
             _asked(34, 'There is no sessions.db: which file should I copy?"="opencode.db'),
             edit(35, "sync.sh")]
    ex = extract(S, [S], calls, [])
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert [(a.name, {e.ordinal for e in a.evidence}) for a in dead] == [
        ("`bash sync.sh` until it works", {32, 34})]
    assert "opencode.db" in (dead[0].cause_text or "")
    # asked, then the same check run again and passing: a slip the user helped with
    fixed = calls + [local(36, "bash sync.sh")]
    assert not [a for a in extract(S, [S], fixed, []).approaches if a.status == "dead_end"]
    # a question asked long after the failure, or with no failure before it, ends nothing
    late = [calls[0], _asked(40, 'No sessions.db: which file?"="opencode.db'),
            edit(41, "sync.sh")]
    assert not [a for a in extract(S, [S], late, []).approaches if a.status == "dead_end"]
    assert not [a for a in extract(S, [S], calls[1:], []).approaches
                if a.status == "dead_end"]
    # a question about something else is no answer to the failure
    other = [local(30, "npm test", exit_code=1, sigs=("FAIL src/a.test.ts",)),
             _asked(31, 'Which colour should the header be?"="blue'), edit(32, "header.css")]
    assert not [a for a in extract(S, [S], other, []).approaches if a.status == "dead_end"]


def test_a_change_the_agent_retracts_before_testing_it_is_a_dead_end() -> None:
    calls = [edit(132, "ui/landing.tsx"), edit(133, "ui/landing.tsx"),
             local(134, "npx tsc --noEmit")]
    rows = [prose(133, "Hmm, that probably won't fix the issue since the defaults still come "
                       "from the destructuring.", "dead-end")]
    ex = extract(S, [S], calls, rows)
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert len(dead) == 1 and {132, 133} <= {e.ordinal for e in dead[0].evidence}
    assert "destructuring" in (dead[0].cause_text or "")
    # the same sentence after a check ran is about the check, not an untested change
    ex = extract(S, [S], [edit(132, "ui/landing.tsx"), local(133, "npx tsc --noEmit")],
                 [prose(134, "That won't fix it, since the defaults come from elsewhere.",
                        "dead-end")])
    assert not [a for a in ex.approaches if a.name.startswith("change to")]


def test_a_run_that_worked_but_is_judged_not_worth_it_is_a_dead_end() -> None:
    calls = [local(26, "bin/bench-tasks --n 1000"),
             local(27, "bin/bench-tasks --n 1000 --pool threads"),
             local(28, "cat app/celeryconfig.py", tool="read"),
             # a slip: the script's name mistyped, run right at once
             local(29, "bin/bench-task --n 1000 --concurrency 8", exit_code=127,
                   sigs=("No such file or directory",)),
             local(30, "bin/bench-tasks --n 1000 --concurrency 8")]
    rows = [prose(28, "The thread pool is slower: 100.9 tasks/s against 114.5. Not worth it; "
                      "staying with prefork.", "dead-end"),
            prose(30, "Typo in the script name.", "observation")]
    ex = extract(S, [S], calls, rows)
    dead = [a for a in ex.approaches if a.status in ("dead_end", "blocked")]
    assert [a.name for a in dead] == ["`bin/bench-tasks --n 1000 --pool threads`"]
    assert "slower" in (dead[0].cause_text or "")
    # a turn's closing summary judges many things, not the last run
    ex = extract(S, [S], calls[:2], [prose(28, "Where we stand: every way of making it "
                                               "faster has failed.", "dead-end")])
    assert not [a for a in ex.approaches if a.status == "dead_end"]


def test_a_change_that_breaks_a_passing_check_and_takes_looking_to_mend_is_a_dead_end(
        ) -> None:
    div = ("error: TS17008: JSX element 'div' has no corresponding closing tag",)
    calls = [local(134, "npx tsc --noEmit"), edit(148, "src/App.tsx"),
             edit(152, "src/App.tsx"),
             local(153, "npx tsc --noEmit", exit_code=1, sigs=div),
             edit(157, "src/App.tsx"), local(158, "npx tsc --noEmit"),
             # broken and mended at the next try: a slip; an unused name: tidying
             edit(160, "src/App.tsx"), local(161, "npx tsc --noEmit", exit_code=1, sigs=div),
             local(162, "npx tsc --noEmit"), edit(170, "src/App.tsx"),
             local(171, "npx tsc --noEmit", exit_code=1,
                   sigs=("error: TS6133: 'fixed' is declared but its value is never read",)),
             edit(176, "src/App.tsx"), local(177, "npx tsc --noEmit")]
    ex = extract(S, [S], calls, [])
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert [sorted(e.ordinal for e in a.evidence) for a in dead] == [[148, 152, 153, 157, 158]]
    assert "TS17008" in dead[0].cause.label


def test_the_user_contradicting_a_short_turn_refutes_what_it_checked() -> None:
    calls = [local(209, "webfetch http://localhost:8000/#alert", tool="webfetch")]
    rows = [user(208, "http://localhost:8000/#alert ok look again"),
            prose(210, "The structure appears correct.", "conclusion"),
            user(211, "close X is at the bottom and left no where it should be")]
    ex = extract(S, [S], calls, rows)
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert len(dead) == 1 and {209, 211} <= {e.ordinal for e in dead[0].evidence}


def test_the_user_contradicting_an_answer_refutes_it() -> None:
    rows = [user(228, "i did opencode export ses_0945 but i dont see any file"),
            prose(230, "They're in your project root: session-export.json.", "conclusion"),
            user(231, "no that was an earlier export, tell me how export works")]
    dead = [a for a in extract(S, [S], [], rows).approaches if a.status == "dead_end"]
    assert [a.name for a in dead] == ["the answer to «i did opencode export ses_0945 but i "
                                      "dont see any file»"]
    assert {229, 230, 231} <= {e.ordinal for e in dead[0].evidence}
    # a new complaint about something else contradicts nothing
    rows[2] = user(231, "on the list group the selected item is not visible")
    assert not [a for a in extract(S, [S], [], rows).approaches if a.status == "dead_end"]


def test_an_episode_ends_the_open_approach_it_is_about() -> None:
    calls = [local(26, "bin/bench-tasks --n 1000"),
             local(27, "bin/bench-tasks --n 1000 --pool threads"),
             local(29, "bin/bench-tasks --n 1000 --concurrency 8")]
    rows = [prose(27, "The tasks are I/O-bound, so let me try the thread pool.", "plan"),
            prose(28, "The thread pool is slower: 100.9 tasks/s against 114.5. Not worth it.",
                  "dead-end")]
    ex = extract(S, [S], calls, rows)
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert [a.name for a in dead] == ["Thread pool"]
    assert dead[0].cause.kind == "slow"


def test_a_cancelled_todo_that_gives_no_reason_takes_the_failure_seen_meanwhile() -> None:
    chord = ("NotImplementedError: chords are not supported with task_always_eager",)
    calls = [todo(13, ("Try task_always_eager in the tests", "in_progress")),
             local(15, "pytest tests/test_chords.py", exit_code=1, sigs=chord),
             todo(19, ("Try task_always_eager in the tests", "cancelled"))]
    dead = [a for a in extract(S, [S], calls, []).approaches
            if a.status in ("dead_end", "blocked")]
    assert len(dead) == 1 and "chords are not supported" in dead[0].cause.label


def test_a_correction_after_an_assent_refutes_the_change_before_it() -> None:
    calls = [edit(21, "workspace/sync.sh"), local(24, "git commit -am sync")]
    rows = [user(19, "make it copy the session here and then sync both"), user(23, "yes"),
            user(26, "make it one directional, from opencode to the workspace, that's what "
                     "I want")]
    ex = extract(S, [S], calls, rows)
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert len(dead) == 1 and {21, 26} <= {e.ordinal for e in dead[0].evidence}
    assert "directional" in dead[0].cause.label
    # an instruction is no assent: the report is about its own turn, which ran a commit
    rows[1] = user(23, "update the readme too")
    dead = [a for a in extract(S, [S], calls, rows).approaches if a.status == "dead_end"]
    assert [sorted(e.ordinal for e in a.evidence) for a in dead] == [[24, 26]]
    assert dead[0].name.startswith("`git commit")


def test_errors_inside_a_fetched_html_page_are_read_as_text() -> None:
    from logparse.signals import error_signatures

    page = ("<br />\n<b>Parse error</b>:  syntax error, unexpected token &quot;;&quot;, "
            "expecting &quot;]&quot; in <b>/srv/rebuild.php</b> on line <b>20</b><br />")
    assert error_signatures(page) == [
        'PHP Parse error: syntax error, unexpected token ";", expecting "]"']
    assert error_signatures("<p>All <b>good</b></p>") == []


def test_an_older_extractor_version_is_re_derived_and_annotations_survive(
        blackwell_db_copy: Path) -> None:
    db = str(blackwell_db_copy)
    run = CliRunner()
    assert run.invoke(cli, ["mark", "dead-end", "5224", "gains vanish", "--db", db]
                      ).exit_code == 0
    with KbStore(db) as store:
        scope = gs.scope_of(store, store.resolve_session(None))
        store.conn.execute("UPDATE graph_versions SET extractor_version = 1")
        store.conn.execute("UPDATE graph_nodes SET status = 'open' WHERE type = 'approach'")
        assert gs.outdated(store, [scope]) == [scope]
    items = [json.loads(x) for x in
             run.invoke(cli, ["deadends", "--db", db, "--json"]).stdout.splitlines()]
    assert any(d["status"] == "dead_end" and d["cause"] for d in items)  # re-derived
    assert "Baseline with --cuda-graph-max-bs 128" in {d["name"] for d in items}
    with KbStore(db) as store:
        assert gs.outdated(store, [scope]) == []
        assert gs.derived_version(store, scope) == extract_version()
    r = run.invoke(cli, ["rebuild", "--graph", "--db", db, "--json"])
    assert r.exit_code == 0 and json.loads(r.stdout)["graphs"] == [scope]
    r = run.invoke(cli, ["rebuild", "--graph", "--db", db, "--stale", "--json"])
    assert json.loads(r.stdout)["graphs"] == []


def extract_version() -> int:
    from kb.graph.extract import EXTRACTOR_VERSION

    return EXTRACTOR_VERSION


def test_a_todo_item_completed_later_is_not_the_dead_end_a_sentence_gave_up() -> None:
    """While "Reproduce the failure" is in progress, the agent tries a side idea and gives
    it up in prose; it then completes the item.  The item is confirmed, and the side idea
    is a dead end of its own, with the failing check that ended it as evidence."""
    calls = [
        todo(2, ("Reproduce the failure", "in_progress"), ("Fix the config", "pending")),
        bash(3, "run-tests", sigs=("TimeoutError: task still PENDING",), exit_code=1,
             host=None, category="build"),
        bash(8, "docker run -d redis:7", exit_code=125, host=None, category="launch",
             sigs=("Cannot connect to the Docker daemon",)),
        todo(12, ("Reproduce the failure", "completed"), ("Fix the config", "in_progress")),
    ]
    ex = extract(S, [S], calls, [prose(9, "There is no Docker daemon here, so a second Redis "
                                          "in a container is not viable; dropping it.",
                                       "dead-end")])
    items = by_name(ex)
    assert items["Reproduce the failure"].status == "confirmed"
    side = [a for a in ex.approaches if a.status in ("dead_end", "superseded", "blocked")]
    assert len(side) == 1 and side[0].ended == 9
    assert 8 in {e.ordinal for e in side[0].evidence if e.role == "tested"}


def test_the_store_loads_the_start_of_a_reply_that_judges_a_run() -> None:
    """A plain reply ("The content is still just '-'") is no signal prose, yet the graph
    reads it: the store hands over its start as a ``judge`` row, and only such replies."""
    from kb.graph.store import load_rows
    from kb.store import KbStore

    store = KbStore(":memory:")
    rows = [(1, "The content is still just \"-\". The pipe is not read."),
            (2, "Let me look at the file first."),
            (3, "The content got mangled."),
            (4, "I can't run `opencode export` from here."),
            (5, "Didn't work.")]
    for o, text in rows:
        store.conn.execute(
            "INSERT INTO prose (session_id, ordinal, seq, message_id, kind, source, text,"
            " classification) VALUES ('s', ?, 0, ?, 'decision', 'text', ?, 'plan')",
            [o, f"m{o}", text])
    _, prose, _ = load_rows(store, ["s"])
    assert [(p.ordinal, p.classification) for p in prose] == \
        [(1, "judge"), (3, "judge"), (4, "judge"), (5, "judge")]


def test_lookups_the_agent_then_asks_the_user_about_are_a_dead_end() -> None:
    def look(o: int, term: str) -> CallRow:
        # the search's answer does not hold the term (kb.graph.store: ``absent``)
        return CallRow(S, o, 1, "21st_search", "other", term, None, None, "completed", 0,
                       absent=True)

    question = ('Which component in your bookmarks did you mean by \'interactive slider\'?'
                '"="Interactive Selector')
    calls = [look(78, "interactive slider"), look(79, "slider"), _asked(80, question)]
    ex = extract(S, [S], calls, [])
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert [(a.name, {e.ordinal for e in a.evidence}) for a in dead] == [
        ("looking up «interactive slider»", {78, 79, 80})]
    assert "Interactive Selector" in (dead[0].cause_text or "")
    # a question about something else, or one whose answer alone names the lookup, or
    # one after a run that looks nothing up
    other = [calls[0], _asked(80, 'Which page should the slider go on?"="home')]
    answer = [calls[0], _asked(80, 'Which one?"="interactive slider')]
    built = [local(40, "npm run build"),
             _asked(42, 'The npm run build passes. Deploy to staging or prod?"="staging')]
    # the lookups found what they looked for: the question chooses, nothing was missing
    found = [c._replace(absent=False) for c in calls[:2]] + [calls[2]]
    for rows in (other, answer, built, found):
        assert not [a for a in extract(S, [S], rows, []).approaches if a.status == "dead_end"]
    # one rule with the name a search for a definition did not find (unfound_episodes)
    assert dead[0].via == "unfound:unfound"


def test_guesses_over_several_replies_that_a_finding_refutes_are_a_dead_end() -> None:
    guesses = [prose(575, "The HTML looks correct. The issue might be that the CSS is not "
                          "loaded.", "plan"),
               prose(576, "Maybe the demo uses an older Bootstrap version.", "plan"),
               prose(577, "Or the browser is perhaps loading a cached copy.", "plan"),
               prose(579, "I wonder if the class structure is different in 5.3.3.", "plan")]
    found = prose(580, "I see the issue! Lines 123-126 force a blue background on "
                       ".nav-link.active in the demo CSS.", "conclusion")
    looks = [local(o, f"grep bootstrap demo/index.php -n {o}") for o in (575, 576, 577)]
    ex = extract(S, [S], looks, [*(_hyp(p) for p in guesses), _hyp(found)])
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert [{e.ordinal for e in a.evidence} for a in dead] == [{575, 576, 577, 579, 580}]
    assert "blue background" in (dead[0].cause_text or dead[0].cause.label)
    # two guesses are how debugging starts; a change between them starts a new round
    two = [_hyp(guesses[0]), _hyp(guesses[1]), _hyp(found)]
    assert not [a for a in extract(S, [S], looks, two).approaches if a.status == "dead_end"]
    mended = [*looks, edit(576, "demo/index.php")]
    rows = [*(_hyp(p) for p in guesses), _hyp(found)]
    assert not [a for a in extract(S, [S], mended, rows).approaches
                if a.status == "dead_end"]
    # a change just before the finding tested a guess; a finding that restates a guess
    # proves it right; "I found the file" finds no cause
    tried = [*looks, edit(579, "demo/index.php")]
    right = [*(_hyp(p) for p in guesses[:3]),
             _hyp(prose(580, "Found it: the browser is loading a cached copy.", "plan"))]
    files = [*(_hyp(p) for p in guesses), _hyp(prose(580, "I found the file at demo/x.css.",
                                                      "plan"))]
    for calls, said in ((tried, rows), (looks, right), (looks, files)):
        assert not [a for a in extract(S, [S], calls, said).approaches
                    if a.status == "dead_end"]


def _hyp(p: ProseRow) -> ProseRow:
    return p._replace(classification="hypothesis")


def test_the_store_loads_replies_that_guess_at_a_cause_or_find_it() -> None:
    from kb.graph.store import load_rows
    from kb.store import KbStore

    store = KbStore(":memory:")
    rows = [(1, "Let me look at the file. " * 30 + "The issue might be a stale cache."),
            (2, "Let me look at the file first."),
            (3, "Found it: the CSS overrides the class.")]
    for o, text in rows:
        store.conn.execute(
            "INSERT INTO prose (session_id, ordinal, seq, message_id, kind, source, text,"
            " classification) VALUES ('s', ?, 0, ?, 'decision', 'text', ?, 'plan')",
            [o, f"m{o}", text])
    _, prose_rows, _ = load_rows(store, ["s"])
    assert [(p.ordinal, p.classification) for p in prose_rows
            if p.classification == "hypothesis"] == [(1, "hypothesis"), (3, "hypothesis")]


def test_the_store_loads_what_the_user_answered_a_question_tool() -> None:
    from kb.graph.store import load_rows
    from kb.store import KbStore

    store = KbStore(":memory:")
    for o, tool, status, out in ((1, "question", "completed", 'answered: "Which?"="a.db"'),
                                 (2, "question", "error", "dismissed"),
                                 (3, "bash", "completed", "a long listing " * 20)):
        store.conn.execute(
            "INSERT INTO calls (session_id, ordinal, seq, message_id, tool, category, status,"
            " output) VALUES ('s', ?, 0, ?, ?, 'other', ?, ?)", [o, f"m{o}", tool, status, out])
    calls, _, _ = load_rows(store, ["s"])
    assert [(c.ordinal, c.output_tail) for c in calls] == [
        (1, 'answered: "Which?"="a.db"'), (2, None), (3, None)]


def test_a_claim_of_inability_the_agent_then_disproves_is_a_dead_end() -> None:
    """"I can't run `opencode export` from here", the user answers, and the export runs:
    the claim was the dead end.  A claim the agent does not disprove, or one about what
    it cannot see, is none."""
    calls = [local(14, "opencode export ses_1 > session.json")]
    rows = [prose(10, "I can't read the screenshot. And I can't run `opencode export` from "
                      "here: it is a CLI command.", "plan"),
            user(11, "you have a bash tool, do it yourself"),
            prose(12, "I can't read images, please paste the text.", "plan"),
            user(13, "ok")]
    dead = [a for a in extract(S, [S], calls, rows).approaches if a.status == "dead_end"]
    assert len(dead) == 1, [a.name for a in dead]
    assert "opencode export" in dead[0].name
    assert {10, 11, 14} <= {e.ordinal for e in dead[0].evidence}
    # the cause says what disproved it: the command, and the tool it ran through
    assert "bash tool at #14" in dead[0].cause.label, dead[0].cause.label
    # never disproved: no dead end
    assert not [a for a in extract(S, [S], [local(14, "ls")], rows).approaches
                if a.status == "dead_end"]


def test_a_name_just_written_that_a_search_does_not_find_is_a_dead_end() -> None:
    """The agent writes code calling ``insert_child``, greps for its definition (no files
    found) and rewrites the file: the change assumed an API that is not there.  A search
    for a path, or one that finds something, is none."""
    def grep(o: int, pattern: str, out: str) -> CallRow:
        return CallRow(S, o, 1, "grep", "search", pattern, None, None, "completed", None,
                       output_tail=out)

    calls = [edit(10, "src/html/button_group.php"),
             grep(11, "function insert_child /src/html", "No files found"),
             edit(12, "src/html/button_group.php")]
    dead = [a for a in extract(S, [S], calls, []).approaches if a.status == "dead_end"]
    assert len(dead) == 1 and "insert_child" in dead[0].name
    assert {e.ordinal for e in dead[0].evidence} == {10, 11, 12}
    assert "does not exist" in dead[0].cause.label or "does not exist" in dead[0].cause_text
    found = [calls[0], grep(11, "function insert_child /src/html", "Found 2 matches"),
             calls[2]]
    assert not [a for a in extract(S, [S], found, []).approaches if a.status == "dead_end"]
    paths = [calls[0], grep(11, "C:\\Users\\salma\\Studio", "No files found"), calls[2]]
    assert not [a for a in extract(S, [S], paths, []).approaches if a.status == "dead_end"]
    # a search for a bare name after removing it confirms the removal
    removal = [calls[0], grep(11, "oldHelperFn /src", "No files found"), calls[2]]
    assert not [a for a in extract(S, [S], removal, []).approaches if a.status == "dead_end"]


def test_diagnosis_reads_the_list_after_a_colon_and_the_remedy_a_reply_states() -> None:
    from kb.graph.extract import _diagnosis
    from kb.graph.text import cause_of

    ex = {("s", 5): ["I didn't use it because:\n- you run me through the MCP interface, "
                     "not the terminal"],
          ("s", 8): ["The user is saying the commit is not on GitHub. I need to push the "
                     "commit to the remote."]}
    assert "MCP interface" in (_diagnosis(ex, "s", [5]) or "")
    assert "push the commit" in (_diagnosis(ex, "s", [8]) or "")
    sig = "PHP Parse error: Unclosed '[' does not match ')'"
    assert cause_of("", sig).label.startswith("unbalanced brackets")
    assert cause_of("", "TypeError: x is not a function").label == \
        "TypeError: x is not a function"


def test_a_run_the_reply_says_damaged_the_work_ends_the_change_at_once() -> None:
    """A script that ran cleanly, then "the content got mangled: the regex removed too much
    because it was too greedy": the change is a dead end, with that reason, even though
    the check passes later (the page restored, then done another way)."""
    calls = [edit(10, "opencode/fix_page.php"), local(11, "php fix_page.php"),
             local(12, "wp post get 5"), local(20, "wp post get 5")]
    rows = [prose(13, "The content got mangled. The regex removed too much content because "
                      "it was too greedy.", "plan")]
    dead = [a for a in extract(S, [S], calls, rows).approaches if a.status == "dead_end"]
    assert len(dead) == 1 and "fix_page.php" in dead[0].name
    assert {10, 11, 12, 13} <= {e.ordinal for e in dead[0].evidence}
    assert "greedy" in dead[0].cause_text
    # "the output was truncated" (the tool's display) damages nothing
    for calm in ("The output was truncated and saved to a file.",
                 "Migration finished and no data was lost.",
                 "ESLint didn't find any problems."):
        got = extract(S, [S], calls, [prose(13, calm, "plan")]).approaches
        assert not [a for a in got if a.status == "dead_end"], calm


def test_a_failed_script_replaced_by_a_new_one_of_a_like_name_was_given_up() -> None:
    calls = [edit(10, "tmp/convert_diatext.php"),
             local(11, "php tmp/convert_diatext.php", sigs=("PHP Warning: str_replace",),
                   exit_code=1),
             edit(13, "tmp/convert_diatext2.php"), local(14, "php tmp/convert_diatext2.php")]
    dead = [a for a in extract(S, [S], calls, []).approaches if a.status == "dead_end"]
    assert len(dead) == 1 and dead[0].name.startswith("convert_diatext.php (replaced by")
    assert {10, 11, 13} <= {e.ordinal for e in dead[0].evidence}
    # the same script fixed and run again: no replacement
    fixed = calls[:2] + [edit(13, "tmp/convert_diatext.php"),
                         local(14, "php tmp/convert_diatext.php")]
    assert not [a for a in extract(S, [S], fixed, []).approaches
                if a.status == "dead_end" and "replaced" in a.name]


def test_an_install_between_two_runs_of_a_check_is_a_change_that_did_not_fix() -> None:
    sig = ("error: TS2307: Cannot find module 'three'",)
    calls = [local(10, "npx tsc --noEmit", sigs=sig, exit_code=2),
             local(11, "npm install three"),
             local(12, "npx tsc --noEmit", sigs=sig, exit_code=2)]
    dead = [a for a in extract(S, [S], calls, []).approaches if a.status == "dead_end"]
    assert any("npm install three" in a.name and "did not fix" in a.name for a in dead), \
        [a.name for a in dead]


def test_one_error_reached_by_other_relative_paths_and_cut_elsewhere_is_the_same_error() -> None:
    """Four TS2307 errors about two modules (each reached from two folders), then the same
    two after a code generator ran: the generator did not fix them."""
    mods = ("app/employees/[id]/page.js", "app/employees/page.js")
    before = tuple(f"error: TS2307: Cannot find module '{up}{m}' or its corresponding type "
                   f"declarations."[:96] + "…" for m in mods for up in ("../../../../", "../"))
    after = before[0::2]
    calls = [local(10, "npx tsc --noEmit", sigs=before, exit_code=2),
             local(11, "npx next typegen"),
             local(12, "npx tsc --noEmit", sigs=after, exit_code=2)]
    dead = [a for a in extract(S, [S], calls, []).approaches if a.status == "dead_end"]
    assert [a.name for a in dead] == ["next typegen (did not fix)"]
    # other modules now: the generator fixed those errors (progress, not a dead end)
    moved = tuple(x.replace("employees", "payroll") for x in after)
    calls[2] = local(12, "npx tsc --noEmit", sigs=moved, exit_code=2)
    assert not [a for a in extract(S, [S], calls, []).approaches
                if a.status == "dead_end" and "did not fix" in a.name]


def test_a_cause_is_the_sentence_that_explains_not_the_next_step_with_its_reason() -> None:
    from kb.graph.extract import _diagnosis

    ex = {("s", 8): ["TypeScript is reading stale generated `.next/types` entries for the "
                     "deleted route, so the first run failed. I’m regenerating the route "
                     "types instead of relying on the old cache."]}
    assert "stale generated" in (_diagnosis(ex, "s", [8]) or "")
    # a guess, then the finding: the finding is the cause, the guess none at all
    ex = {("s", 8): ["Maybe the worker runs old code: stale bytecode in the cache."],
          ("s", 11): ["The traceback doesn't go through pipeline/extract.py at all: it is "
                      "the copy under plugins/."]}
    assert "plugins" in (_diagnosis(ex, "s", [8, 11], anchor=[8]) or "")
    assert _diagnosis({("s", 8): ex[("s", 8)]}, "s", [8]) is None


def test_clearing_caches_between_two_runs_of_a_check_is_a_change_that_did_not_fix() -> None:
    sig = ("KeyError: 'event_ts'",)
    run = "bin/airflow tasks test orders_nightly extract_orders 2026-12-03 2>&1 | grep Error"
    for clear in ("find . -name __pycache__ -prune -exec rm -rf {} +; bin/airflow dags "
                  "reserialize", "rm -rf .pytest_cache", "bin/airflow dags reserialize"):
        calls = [local(7, run, sigs=sig), local(8, clear), local(9, run, sigs=sig)]
        dead = [a for a in extract(S, [S], calls, []).approaches if a.status == "dead_end"]
        assert [{e.ordinal for e in a.evidence} for a in dead] == [{7, 8, 9}], clear
    # a look between the runs changes nothing
    calls = [local(7, run, sigs=sig), local(8, "find . -name '*.py' | head"),
             local(9, run, sigs=sig)]
    assert not [a for a in extract(S, [S], calls, []).approaches
                if a.status == "dead_end" and "did not fix" in a.name]


def test_an_error_read_then_a_change_then_the_same_error_is_a_fix_that_did_not_fix() -> None:
    sig = ("KeyError: 'event_ts'",)
    log = CallRow(S, 3, 1, "bash", "search", "grep -n Error incident/attempt-3.log", None, None,
                  "completed", 0, sig)
    calls = [log, edit(6, "pipeline/extract.py"),
             local(7, "bin/airflow tasks test orders_nightly extract_orders", sigs=sig)]
    dead = [a for a in extract(S, [S], calls, []).approaches if a.status == "dead_end"]
    assert [(a.name, {e.ordinal for e in a.evidence}) for a in dead] == [
        ("pipeline/extract.py (did not fix)", {3, 6, 7})]
    # another error at the run, or no change before it: the read says nothing of a fix
    other = [log, edit(6, "pipeline/extract.py"),
             local(7, "bin/airflow tasks test x", sigs=("ValueError: bad date",))]
    unchanged = [log, local(7, "bin/airflow tasks test x", sigs=sig)]
    for rows in (other, unchanged):
        assert not [a for a in extract(S, [S], rows, []).approaches
                    if a.status == "dead_end" and "did not fix" in a.name]


def test_a_run_judged_after_a_look_at_its_logs_is_judged_not_worth_it() -> None:
    calls = [edit(30, "dags/orders_nightly.py"),
             local(31, "bin/airflow dags backfill -s 2026-11-05 orders > /tmp/b.log; "
                       "grep -c retry /tmp/b.log"),
             CallRow(S, 32, 1, "bash", "search", "grep -rho MemoryError logs/", None, None,
                     "completed", 0),
             local(34, "bin/airflow tasks test orders extract 2026-11-05")]
    rows = [prose(33, "Parallel runs make this backfill slower: memory caps the extracts "
                      "at two at a time. Not worth it.", "dead-end")]
    dead = [a for a in extract(S, [S], calls, rows).approaches if a.status == "dead_end"]
    assert [{e.ordinal for e in a.evidence} for a in dead] == [{31, 33}]


def test_the_file_a_shell_command_edits() -> None:
    from kb.graph.extract import _edited_path

    assert _edited_path("cat > src/app.py << 'EOF'\nprint(1)\nEOF") == "src/app.py"
    assert _edited_path("tee config/app.yaml <<EOF") == "config/app.yaml"
    assert _edited_path("sed -i s/a/b/ src/main.rs 2>/dev/null") == "src/main.rs"
    assert _edited_path("sed -i s/a/b/ a.py && npm test") == "a.py"
    assert _edited_path("mkdir -p assets/pieces") == "assets/pieces"


# tune blockchain-dex-events__claude-session.jsonl (trimmed): a review sub-agent (#111
# "Code review of all 5 question solutions") finds Q4's "arb bot" reading wrong; the agent
# takes its own sentence away (#115), far past the take-back span of its writing (#91)
_ARB = ("same address (`0xa5e0…78ff`), which is typical of an arb bot or a smart",
        "contract that holds its own funds and swaps them in a single transaction")


def test_lines_a_review_sends_back_are_the_taken_back_rule() -> None:
    def task(o: int, title: str, tool: str = "task", agent: str = "claude-code",
             delegate: str | None = None) -> CallRow:
        return CallRow(S, o, 1, tool, "other", title, None, None, "completed", None,
                       title=title, agent=agent, delegate=delegate)

    def change(o: int, wrote: tuple[str, ...], took: tuple[str, ...],
               agent: str = "claude-code") -> CallRow:
        return CallRow(S, o, 1, "edit", "file-edit", "q4/README.md", None, None,
                       "completed", None, edit=(frozenset(wrote), frozenset(took)),
                       agent=agent)

    calls = [change(91, _ARB, ()), task(111, "Code review of all 5 question solutions"),
             change(115, ("it is the QuickSwap V2 Router",), _ARB)]
    ex = extract(S, [S], calls, [])
    dead = [a for a in ex.approaches if a.status == "dead_end"]
    assert [(a.via, {e.ordinal for e in a.evidence}) for a in dead] == [
        ("taken_back:taken-back", {91, 115})]
    # Codex: the review is a spawned agent, its findings come back through `wait`
    codex = [change(91, _ARB, (), "codex"),
             task(100, "Review the Q4 README for wrong claims", "spawn_agent", "codex",
                  "agent-7"),
             task(111, "wait", "wait", "codex", "agent-7"),
             change(115, ("it is the QuickSwap V2 Router",), _ARB, "codex")]
    assert [a.via for a in extract(S, [S], codex, []).approaches
            if a.status == "dead_end"] == ["taken_back:taken-back"]
    # a sub-agent asked to build, not to review (uicomponents-wordpress #219 "Create
    # hybrid React entry files"), then a rewrite far past the writing: a refactor
    built = [calls[0], task(111, "Create hybrid React entry files"), calls[2]]
    assert not [a for a in extract(S, [S], built, []).approaches if a.status == "dead_end"]


# shared k1.lib-bootstrap__session-export.json #349 (opencode grep, "No files found") and
# uicomponents__session-export.json #78 (the 21st_search MCP tool's answer): both names
# looked up are not there, and one rule reads both
def test_a_lookup_whose_answer_lacks_its_query_is_absent() -> None:
    from kb.graph.store import load_rows

    store = KbStore(":memory:")
    rows = [(78, "21st_search", "other", "interactive slider",
             "10 result(s) across 21st.dev (metadata only).\n### [component] Slider"),
            (79, "21st_search", "other", "vertical tabs",
             "### [component] Vertical Tabs  [id: 10473]"),
            (80, "bash", "search", "grep -rn foo src", "src/a.py: bar"),
            (81, "grep", "search", "function append_child_at src/html", "No files found")]
    for o, tool, cat, cmd, out in rows:
        store.conn.execute(
            "INSERT INTO calls (session_id, ordinal, seq, message_id, tool, category, command,"
            " status, output) VALUES ('s', ?, 0, ?, ?, ?, ?, 'completed', ?)",
            [o, f"m{o}", tool, cat, cmd, out])
    calls, _, _ = load_rows(store, ["s"])
    assert {c.ordinal: c.absent for c in calls} == {78: True, 79: False, 80: False, 81: True}


# shared soulpass-codex (Codex): `rg -n "STRK|Starknet|…" app/employer/page.tsx` exit 1,
# no output (#190): grep and rg say "nothing matched" by exit code 1, where opencode's
# grep tool prints "No files found" (k1 #349)
def test_a_shell_search_that_exits_1_with_no_output_found_nothing() -> None:
    from kb.graph.extract import Extractor

    def rg(o: int, command: str, exit_code: int, out: str) -> CallRow:
        return CallRow(S, o, 1, "bash", "search", command, None, None, "completed",
                       exit_code, output_tail=out, agent="codex")

    ex = Extractor(S)
    ex.run([rg(190, 'rg -n "STRK|Starknet|Sepolia" app/employer/page.tsx', 1, ""),
            rg(191, "rg -n STRK app/page.tsx", 1, "rg: app/page.tsx: No such file"),
            rg(192, "rg -n STRK app", 0, "app/a.tsx:3: STRK")], [], [])
    assert [o for _, o, _ in ex.unfound] == [190]
    # what it looked for, not its flags or paths
    assert [(o, q) for _, o, q in ex.absent] == [(190, 'rg "STRK|Starknet|Sepolia"')]
    # k1's reading in a Codex session: a name just written, a search for its definition
    # that finds nothing, the same file written again
    calls = [edit(348, "bootstrap/button_group.php")._replace(agent="codex"),
             rg(349, "rg -n 'function append_child_at|function insert_child' vendor/html",
                1, ""),
             edit(353, "bootstrap/button_group.php")._replace(agent="codex")]
    dead = [a for a in extract(S, [S], calls, []).approaches if a.status == "dead_end"]
    assert [(a.via, {e.ordinal for e in a.evidence}) for a in dead] == [
        ("unfound:unfound", {348, 349, 353})]
