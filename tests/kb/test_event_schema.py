"""One event schema (logparse/schema.py): every copy is generated from it or agrees with it.

The copies: the deriver's row columns, the Arrow schemas of a batch, the store's event
field list (generated), the pydantic model, the read-side record, the tables the
migrations create and the ``events`` view (checked here against a freshly migrated
knowledge base).  A field added in one place and not another fails with its name.
"""

from __future__ import annotations

import dataclasses

import pytest

from kb import records
from kb.arrow import ARROW_TYPES, SCHEMAS
from kb.arrow import TABLES as STORED
from kb.store import EVENT_FIELDS, KbStore
from logparse import models, schema
from logparse.derive import COLUMNS

SQL_TYPES = {"str": "VARCHAR", "json": "JSON", "i32": "INTEGER", "i64": "BIGINT",
             "f64": "DOUBLE", "bool": "BOOLEAN", "str[]": "VARCHAR[]",
             "measurements": 'STRUCT("value" DOUBLE, unit VARCHAR, "label" VARCHAR)[]'}
"""Logical type → the DuckDB type of its column."""

VIEW_ONLY = ("sub",)
"""Columns of the ``events`` view that are no field (ordering within a part)."""


def _columns(store: KbStore, relation: str) -> list[tuple[str, str]]:
    return [(r[0], r[1]) for r in store.conn.execute(f"DESCRIBE {relation}").fetchall()]


def disagreements(event: tuple[tuple[str, str], ...],
                  tables: dict[str, tuple[tuple[str, str], ...]]) -> list[str]:
    """Every copy that differs from the declaration ``event`` / ``tables``."""
    out: list[str] = []
    names = schema.names(event)

    def differ(copy: str, got: object, want: object) -> None:
        if got != want:
            out.append(f"{copy}: {got} != {want}")

    differ("kb.store.EVENT_FIELDS", EVENT_FIELDS, names)
    differ("kb.records.Event", tuple(f.name for f in dataclasses.fields(records.Event)), names)
    differ("logparse.models.Event", tuple(models.Event.model_fields), names)
    with KbStore(":memory:") as store:
        view = [c for c in _columns(store, "events") if c[0] not in VIEW_ONLY]
        differ("the events view", view, [(n, SQL_TYPES[t]) for n, t in event])
        for name, cols in tables.items():
            differ(f"logparse.derive.COLUMNS[{name!r}]", COLUMNS.get(name), schema.names(cols))
            arrow = SCHEMAS.get(name)
            differ(f"kb.arrow.SCHEMAS[{name!r}]",
                   None if arrow is None else [(f.name, f.type) for f in arrow],
                   [(n, ARROW_TYPES[t]) for n, t in cols])
            # rows are inserted by name: the table's column order is free (a migration
            # can only add columns at the end), its names and types are not
            stored = _columns(store, STORED[name])
            differ(f"the {STORED[name]} table", sorted(stored),
                   sorted([("session_id", "VARCHAR")] + [(n, SQL_TYPES[t]) for n, t in cols]))
    return out


def test_every_copy_agrees_with_the_declaration() -> None:
    assert disagreements(schema.EVENT, schema.TABLES) == []


@pytest.mark.parametrize("where", ["event", "calls"])
def test_a_field_declared_but_not_copied_is_named(where: str) -> None:
    """The check can fail: a field declared and not added everywhere names each copy."""
    event, tables = schema.EVENT, dict(schema.TABLES)
    if where == "event":
        event = (*event, ("exit_signal", "str"))
    else:
        tables["calls"] = (*tables["calls"], ("exit_signal", "str"))
    found = disagreements(event, tables)
    if where == "event":
        assert {d.split(":")[0] for d in found} == {
            "kb.store.EVENT_FIELDS", "kb.records.Event", "logparse.models.Event",
            "the events view"}
    else:
        assert {d.split(":")[0] for d in found} == {
            "logparse.derive.COLUMNS['calls']", "kb.arrow.SCHEMAS['calls']", "the calls table"}
