"""The adversarial corpus: commands disguised as checks, each with the class it must get.

``adversarial.jsonl`` (one object per line: ``class``, ``command``, ``why`` and, for
commands that reach the network outside ssh, ``endpoint``) covers the classes of
issue 9: Python that rebinds names, bash features that execute strings, lookups
that can be hijacked, programs whose flags execute or write, writes under /tmp,
network that bypasses the host map, and the read-only checks that must keep
running.  Every command is classified; a command with an endpoint must also be
refused by the plan, whatever ``--allow`` says.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kb.replay.hostmap import build_host_map
from logparse.shell import SAFETY_CLASSES, classify_safety, parse_command
from tests.replay.conftest import RECORDED_HOST
from tests.replay.test_plan import plan_for

CORPUS = [json.loads(line) for line in
          (Path(__file__).with_name("adversarial.jsonl")).read_text().splitlines() if line]


def test_the_corpus_is_large_and_covers_every_class() -> None:
    assert len(CORPUS) >= 200
    assert {r["class"] for r in CORPUS} == set(SAFETY_CLASSES)
    assert len({r["command"] for r in CORPUS}) == len(CORPUS)
    assert sum(1 for r in CORPUS if r["class"] != "read-only") >= 200


@pytest.mark.parametrize("row", CORPUS, ids=[f"{i}" for i in range(len(CORPUS))])
def test_classified_as_expected(row: dict[str, str]) -> None:
    safety = classify_safety(parse_command(row["command"]))
    assert safety.cls == row["class"], (row["command"], row["why"], safety.reasons)
    assert safety.reasons
    if "endpoint" in row:
        assert row["endpoint"] in safety.endpoints, (row["command"], safety.endpoints)


@pytest.mark.parametrize("row", [r for r in CORPUS if "endpoint" in r],
                         ids=lambda r: r["endpoint"])
def test_network_outside_ssh_is_refused_even_when_allowed(row: dict[str, str]) -> None:
    hm = build_host_map([f"{RECORDED_HOST}=root@127.0.0.1:2222"], {})
    step = plan_for([row["command"]], hm, allow=("launch", "mutating", "unknown",
                                                 "host-network"), workdir="/").steps[0]
    assert step.action == "skip", (row["command"], step.reason)
    assert "refused" in step.reason


def test_nothing_but_read_only_runs_by_default() -> None:
    hm = build_host_map([f"{RECORDED_HOST}=root@127.0.0.1:2222"], {})
    plan = plan_for([r["command"] for r in CORPUS], hm, workdir="/")
    for row, step in zip(CORPUS, plan.steps, strict=True):
        if row["class"] != "read-only":
            assert step.action == "skip", row["command"]
