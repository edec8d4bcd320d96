"""The one-pass gate scan of :mod:`logparse.signals` finds exactly what the ``in`` checks do."""

from __future__ import annotations

import random

import pytest

from logparse import signals
from logparse.signals import _GATES, _present_gates, error_signatures


def _by_in(text: str) -> list[tuple[str, tuple[str, ...]]]:
    return [g for g in _GATES if g[0] in text]


def _texts() -> list[str]:
    rng = random.Random(11)
    tokens = [g for g, _ in _GATES] + ["ror", "RRO", "onnec", "timed", "imeoutx", "\n", " ",
                                       "é", "日本", "E", ":", "xx", "Trace"]
    out = ["", "clean output\n", "E: Unable to locate package foo",
           "ERRORError errorRROR", "timed out\nTIMEOUT imeout", "\nE: x\n"]
    for _ in range(2000):
        out.append("".join(rng.choice(tokens) for _ in range(rng.randrange(1, 12))))
    return out


def test_present_gates_match_the_in_checks() -> None:
    assert signals._GATE_FINDER is not None  # the matcher is installed (a dependency)
    for text in _texts():
        assert _present_gates(text) == _by_in(text), text


def test_text_the_matcher_refuses_falls_back() -> None:
    text = "lone surrogate \ud800 then Permission denied and Killed"
    assert _present_gates(text) == _by_in(text)


def test_signatures_unchanged_without_the_matcher(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts() + ["Traceback (most recent call last):\n  File x\nValueError: bad\n",
                        "ssh: connect to host h port 22: No route to host\n"]
    fast = [error_signatures(t) for t in texts]
    monkeypatch.setattr(signals, "_GATE_FINDER", None)
    assert [error_signatures(t) for t in texts] == fast
