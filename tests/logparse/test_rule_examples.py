"""Rows whose written example gave way to a real line (``fixtures/examples/lines.txt``):
each row names the line's source, its example is the line (or a command or output in
it), and the row reads it."""

from __future__ import annotations

import importlib
import json
from pathlib import Path
from typing import Any

import pytest

from logparse.redirects import undone
from logparse.shell.catrules import rule_category

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "examples" / "lines.txt"


def _entries() -> list[tuple[str, str, str]]:
    out = []
    for line in FIXTURE.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        key, source, text = line.split("\t", 2)
        # a line holding newlines or control characters is stored as a JSON string
        out.append((key, source, json.loads(text) if text.startswith('"') else text))
    return out


def _row(key: str) -> Any:
    where, name = key.split(":", 1)
    module, table = where.rsplit(".", 1)
    for row in getattr(importlib.import_module(module), table):
        if getattr(row, "name", None) == name:
            return row
        if name in getattr(row, "programs", ()) and row.example.split()[0] == name:
            return row
    raise AssertionError(f"{key}: no such row")


@pytest.mark.parametrize(("key", "source", "text"), _entries(), ids=[e[0] for e in _entries()])
def test_every_stored_line_is_its_rows_example(key: str, source: str, text: str) -> None:
    row = _row(key)
    assert row.source.startswith(source), (row.source, source)
    assert "fixtures/examples/lines.txt" in row.source or ":" in row.source
    if hasattr(row, "test"):  # a call rule: the line is the call's output or error
        assert text in (row.example.output, row.example.error)
        assert row.test(row.example), key
    elif hasattr(row, "undoes"):  # an undo rule: the line is the command run
        assert row.example == text
        assert any(r is row for r, _ in undone(text)), key
    elif hasattr(row, "pattern"):  # a cue: the line is its example, and it fires on it
        assert row.example == text
        assert row.pattern.search(text) is not None
    else:  # a command rule: its example is the command the line gives
        assert row.example in text
        words = tuple(row.example.split())
        assert rule_category(words[0], words[1:]) == row.category


def test_no_held_out_file_is_a_source() -> None:
    from bench.held_out import STEMS

    for _, source, _ in _entries():
        assert not any(stem in source for stem in STEMS), source
        assert "heldout" not in source and "blind" not in source
        assert "realworld_trim" not in source  # three of them are trimmed held-out files
