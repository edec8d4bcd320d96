"""Rows whose written example gave way to a real line (``fixtures/examples/lines.txt``):
each row names the line's source, its example is the line (or a command in it), and the
row reads it."""

from __future__ import annotations

import importlib
from pathlib import Path

import pytest

from logparse.shell.catrules import rule_category

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "examples" / "lines.txt"


def _entries() -> list[tuple[str, str, str]]:
    out = []
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        key, source, text = line.split("\t", 2)
        out.append((key, source, text))
    return out


def _row(key: str):  # type: ignore[no-untyped-def]
    where, name = key.split(":", 1)
    module, table = where.rsplit(".", 1)
    rows = getattr(importlib.import_module(module), table)
    for row in rows:
        if getattr(row, "name", None) == name:
            return row
        programs = getattr(row, "programs", frozenset())
        if name in programs and row.example.split()[0] == name:
            return row
    raise AssertionError(f"{key}: no such row")


@pytest.mark.parametrize(("key", "source", "text"), _entries(), ids=[e[0] for e in _entries()])
def test_every_stored_line_is_its_rows_example(key: str, source: str, text: str) -> None:
    row = _row(key)
    assert row.source.startswith(source), (row.source, source)
    assert not row.source.startswith(("(no real line yet)", "not in the data"))
    assert "/heldout/" not in source and "realworld_trim" not in source
    if hasattr(row, "pattern"):  # a cue: its example is the line, and it fires on it
        assert row.example == text
        assert row.pattern.search(text) is not None
    else:  # a command rule: its example is the command the line gives
        assert row.example in text
        words = tuple(row.example.split())
        assert rule_category(words[0], words[1:]) == row.category


def test_no_held_out_pool_file_is_a_source() -> None:
    from bench.held_out import STEMS

    for _, source, _ in _entries():
        assert not any(stem in source for stem in STEMS), source
