"""Precision and recall of dead ends, causes and untested questions on labelled campaigns.

Tuning campaigns (the rules were developed against them): the Blackwell fixture,
``pgpool`` and ``rustci``.  Held out, written by people who never saw the rules:
``heldout`` (its failures were inspected once during development, so it is no
longer quite blind) and ``blind`` (measured without inspection).  Their figures
are reported and guarded only against regressions.  Run with ``-s`` to see them.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from kb.graph import store as gs
from kb.ingest import ingest
from kb.store import KbStore
from tests.graph_eval.scoring import Score, score

TUNING = ("blackwell", "pgpool", "rustci")
HELD_OUT = ("heldout", "blind")
TARGET = 0.9


def _build(name: str, out: Path, blackwell: Path) -> tuple[Path, dict[str, Any]]:
    if name == "blackwell":
        from fixtures.campaigns.blackwell_labels import LABELS

        manifest = json.loads((blackwell / "manifest.json").read_text())
        return blackwell, LABELS if "labels" not in manifest else manifest["labels"]
    if name == "heldout":
        from fixtures.heldout import build
    elif name == "blind":
        from fixtures.blind import build
    else:
        from fixtures.campaigns import CAMPAIGNS

        build = CAMPAIGNS[name]
    build(out)
    return out, json.loads((out / "manifest.json").read_text())["labels"]


@pytest.fixture(scope="module")
def results(blackwell: Path, tmp_path_factory: pytest.TempPathFactory
            ) -> dict[str, dict[str, Score]]:
    out: dict[str, dict[str, Score]] = {}
    for name in TUNING + HELD_OUT:
        src, labels = _build(name, tmp_path_factory.mktemp(name), blackwell)
        db = tmp_path_factory.mktemp(f"{name}-kb") / "kb.duckdb"
        with KbStore(db) as store:
            ingest(store, [src / "session.jsonl", *sorted(src.glob("session-*.jsonl"))])
            manifest_sid = json.loads((src / "manifest.json").read_text())["session_id"]
            scope = gs.scope_of(store, manifest_sid)
            out[name] = score(labels, gs.approaches(store, [scope]),
                              gs.untested(store, [scope], include_answered=True))
    table = ["", f"{'campaign':<10} {'measure':<14} {'precision':>9} {'recall':>7}"]
    for name, scores in out.items():
        for what, s in scores.items():
            table.append(f"{name:<10} {what:<14} {s.precision:>9.2f} {s.recall:>7.2f}")
    print("\n".join(table))
    for name, scores in out.items():
        for what, s in scores.items():
            for miss in s.misses:
                print(f"  {name}/{what}: {miss}")
    return out


def _total(results: dict[str, dict[str, Score]], names: tuple[str, ...], what: str) -> Score:
    total = Score()
    for n in names:
        total = total + results[n][what]
    return total


@pytest.mark.parametrize("what", ["dead ends", "causes", "shared causes", "untested"])
def test_tuning_campaigns_meet_the_target(results: dict[str, dict[str, Score]],
                                          what: str) -> None:
    s = _total(results, TUNING, what)
    assert s.precision >= TARGET and s.recall >= TARGET, f"{what}: {s}\n" + "\n".join(s.misses)


# What the rules reach on wording nobody tuned them on (first measured 2026-12-02:
# dead ends P 0.78 R 0.58, causes P 0.71 R 0.42, untested 1.00/1.00 over both held-out
# campaigns).  Floors a little below that: a regression guard, not the target.
HELD_OUT_FLOORS = {"dead ends": (0.6, 0.45), "causes": (0.5, 0.3), "untested": (0.9, 0.9)}


@pytest.mark.parametrize("what", list(HELD_OUT_FLOORS))
def test_held_out_campaigns_do_not_regress(results: dict[str, dict[str, Score]],
                                           what: str) -> None:
    """Wording nobody tuned on: reported, and guarded against regressions."""
    s = _total(results, HELD_OUT, what)
    p, r = HELD_OUT_FLOORS[what]
    assert s.precision >= p and s.recall >= r, f"{what}: {s}\n" + "\n".join(s.misses)
