"""``rebuild --json`` reports the extractor version the graphs it derived carry: under
the bench-only ``LOGKB_ABLATE`` that is the ablation's stamp
(:func:`kb.graph.ablate.stamp`), not the full rules' version."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.graph import store as gs
from kb.graph.extract import EXTRACTOR_VERSION
from kb.ingest import ingest
from kb.store import KbStore
from tests.cli_kb import invoke

HELLO = (Path(__file__).resolve().parents[2].parent / "shared" / "realworld" / "claude-code"
         / "hello-world-script" / "transcript.jsonl")


@pytest.mark.parametrize("off", ["", "prose", "structural,user-cues"])
def test_rebuild_json_shows_the_stamp_the_graph_carries(tmp_path: Path, off: str) -> None:
    db = tmp_path / "kb.duckdb"
    with KbStore(db) as store:
        ingest(store, [HELLO])
    env = {"LOGKB_ABLATE": off} if off else {}
    r = invoke("rebuild", "--graph", "--db", str(db), "--json", env=env)
    assert r.exit_code == 0, r.stderr
    out = json.loads(r.stdout)
    (scope,) = out["graphs"]
    with KbStore(db) as store:
        carried = gs.derived_version(store, scope)
    assert out["extractor_version"] == carried
    assert (carried == EXTRACTOR_VERSION) == (not off)
    r = invoke("rebuild", "--graph", "--db", str(db), env=env)
    assert r.exit_code == 0
    if off:
        assert f"families off: {off.replace(',', ', ')}" in r.stderr
