"""The secrets finder's needle gate in one Aho-Corasick pass (issue 28) finds what the
``in`` checks found: the same findings on every rule's example, the planted secrets of
the hostile corpus and the real sessions' lines."""

from __future__ import annotations

from pathlib import Path

import pytest

from logparse import secrets as finder
from tests.hostile.secret_corpus import SECRETS


def _texts(realworld: Path) -> list[str]:
    texts = []
    for r in finder.rules():
        ex = r.example[0]
        texts += [ex, ex.upper(), ex.lower(), f"line one\n{ex}\nline three", ex[: len(ex) // 2]]
    for name, value in SECRETS.items():
        texts += [f"{name}: {value}", f'{{"output": "{name}={value}\\\\n"}}']
    others = 0
    for f in sorted((realworld / "pool").glob("*.jsonl")):
        for line in f.read_text(encoding="utf-8", errors="replace").splitlines():
            if finder.may_hold_secret(line):
                texts.append(line)
            elif others < 300:
                texts.append(line)
                others += 1
    return texts


def test_one_pass_gate_finds_what_the_in_checks_find(
        realworld: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    texts = _texts(realworld)
    assert finder._needle_finder() is not None  # ahocorasick_rs is a dependency
    gated = [finder.find_secrets(t) for t in texts]
    monkeypatch.setattr(finder, "_needle_finder", lambda: None)
    plain = [finder.find_secrets(t) for t in texts]
    assert gated == plain
    assert sum(map(len, plain)) >= 30  # the texts hold secrets to find
