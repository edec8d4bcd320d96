"""The rules census (``python -m bench rules``) finds the rule tables and sorts
every row by where its example comes from."""

from __future__ import annotations

from bench.rules_census import census
from logparse import structural


def test_census_counts_every_row_of_the_structural_table_once() -> None:
    tables = census()
    names = [(t.module, t.name) for t in tables]
    assert len(names) == len(set(names))
    (rules,) = [t for t in tables if (t.module, t.name) == ("logparse.structural", "RULES")]
    assert rules.rows == len(structural.RULES)
    written = sum(r.source.startswith("(no real line yet)") for r in structural.RULES)
    assert (rules.real, rules.written, rules.unsourced) == (
        len(structural.RULES) - written, written, 0)


def test_every_table_row_is_sorted_into_one_bucket() -> None:
    for t in census():
        assert t.rows == t.real + t.written + t.unsourced > 0
