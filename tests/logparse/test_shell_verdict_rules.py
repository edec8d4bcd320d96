"""Issue 24 item 5: program forms that look read-only but change state, never end or
contact endpoints outside the host map.  One test walks every rule row."""

from __future__ import annotations

import pytest

from logparse.shell import classify_safety, parse_command
from logparse.shell.subcommands import VERDICT_RULES

_CLS = {"mut": "mutating", "launch": "launch", "unk": "unknown"}


@pytest.mark.parametrize("rule", VERDICT_RULES, ids=[r.example for r in VERDICT_RULES])
def test_every_verdict_rule(rule):
    assert rule.source  # "not in the data": no tune or shared transcript runs the form
    s = classify_safety(parse_command(rule.example))
    assert s.cls == _CLS[rule.severity], (rule.example, s.reasons)
    assert rule.reason in s.reasons


@pytest.mark.parametrize(("text", "cls"), [
    # the probes of issue 24
    ("ss -K dst 10.0.0.1", "mutating"),
    ("ss -tK state established", "mutating"),
    ("sensors -s", "mutating"),
    ("nvidia-smi nvlink -sc 0bz", "mutating"),
    ("nvidia-smi -i 0 -c EXCLUSIVE_PROCESS", "mutating"),
    ("nvidia-smi --compute-mode=1", "mutating"),
    ("nvidia-smi conf-compute -srs 1", "mutating"),
    ("nvidia-smi conf-compute -scc 1", "mutating"),
    ("ip monitor", "launch"),
    ("ip -o mon link", "launch"),
    ("kubectl get pods", "unknown"),
    ("kubectl -n kube-system get pods", "unknown"),
    ("docker ps", "unknown"),
    ("podman images", "unknown"),
    ("getent hosts foo", "unknown"),
    ("getent ahostsv4 example.internal", "unknown"),
    # and what stays read-only
    ("ss -tlnp", "read-only"),
    ("sensors", "read-only"),
    ("sensors -u", "read-only"),
    ("nvidia-smi nvlink -s", "read-only"),
    ("nvidia-smi conf-compute -f", "read-only"),
    ("nvidia-smi --query-gpu=name --format=csv", "read-only"),
    ("ip -s link", "read-only"),
    ("ip addr show", "read-only"),
    ("kubectl version --client", "read-only"),
    ("docker --version", "read-only"),
    ("getent passwd root", "read-only"),
])
def test_issue_24_probes(text, cls):
    s = classify_safety(parse_command(text))
    assert s.cls == cls, (text, s.reasons)
