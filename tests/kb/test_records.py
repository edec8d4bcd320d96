"""The store's read path returns plain records whose JSON is the validated models' JSON."""

from __future__ import annotations

from pathlib import Path

import orjson

from kb.arrow import SCHEMAS
from kb.store import EVENT_FIELDS, KbStore
from logparse.derive import COLUMNS
from logparse.models import Event as ModelEvent


def _as_model(row: tuple) -> ModelEvent:
    """What the store returned before: the row validated into the pydantic model."""
    data = dict(zip(EVENT_FIELDS, row))
    for f in ("input", "hops", "todos", "raw"):
        if isinstance(data[f], str):
            data[f] = orjson.loads(data[f])
    for f in ("hops", "todos", "error_signatures", "measurements"):
        if data[f] is None:
            data[f] = []
    return ModelEvent.model_validate(data)


def test_records_print_the_models_json(blackwell_db: Path) -> None:
    cols = ", ".join(f'"{f}"' for f in EVENT_FIELDS)
    with KbStore(blackwell_db, read_only=True) as store:
        sids = [r["session_id"] for r in store.sessions()]
        events = [e for sid in sids for e in store.events(sid)]
        models = [_as_model(r) for sid in sids for r in store.conn.execute(
            f"SELECT {cols} FROM events WHERE session_id = ? ORDER BY ordinal, seq, sub",
            [sid]).fetchall()]
    kinds = {e.kind for e in events}
    assert {"command", "result", "todo", "decision", "prompt", "subagent"} <= kinds
    assert any(e.hops for e in events) and any(e.measurements for e in events)
    assert len(events) == len(models)
    for e, model in zip(events, models):
        assert e.model_dump_json() == model.model_dump_json(exclude_none=False)
        assert e.model_dump(mode="json") == model.model_dump(mode="json")


def test_store_schemas_follow_the_derived_columns() -> None:
    for name, schema in SCHEMAS.items():
        assert tuple(schema.names) == COLUMNS[name], name
