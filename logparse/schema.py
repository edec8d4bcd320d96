"""The event schema, declared once.

:data:`EVENT` is an event as the knowledge base hands it out; :data:`TABLES` are the
rows the deriver writes (one table per kind of part).  The copies are generated from
here or checked against it by ``tests/kb/test_event_schema.py``:

* generated: :data:`logparse.derive.COLUMNS`, :data:`kb.arrow.SCHEMAS` (the Arrow
  form of a batch) and :data:`kb.store.EVENT_FIELDS` (the read path's column list);
* checked: :class:`logparse.models.Event` (pydantic, the deriver's and the tests'),
  :class:`kb.records.Event` (what the read path returns), the tables the migrations
  create and the ``events`` view (``kb/migrations``: a new field is a new migration).

Types are logical: ``str``, ``json`` (JSON text; a ``JSON`` column), ``i32``,
``i64``, ``f64``, ``bool``, ``str[]`` and ``measurements`` (a list of ``(value,
unit, label)``).  Adding a field: add it here, then to the two classes and a
migration; the test names whichever copy is missing it.  Pure data: no imports.
"""

from __future__ import annotations

EVENT: tuple[tuple[str, str], ...] = (
    ("session_id", "str"), ("ordinal", "i32"), ("seq", "i32"), ("kind", "str"),
    ("message_id", "str"), ("part_id", "str"), ("role", "str"), ("time", "i64"),
    ("tool", "str"), ("call_id", "str"), ("category", "str"), ("command", "str"),
    ("input", "json"), ("host", "str"), ("user", "str"), ("port", "i32"),
    ("remote_command", "str"), ("hops", "json"), ("workdir", "str"), ("status", "str"),
    ("exit_code", "i32"), ("output", "str"), ("duration_ms", "i64"),
    ("error_signature", "str"), ("error_signatures", "str[]"),
    ("measurements", "measurements"), ("title", "str"), ("text", "str"),
    ("classification", "str"), ("prose_role", "str"), ("todos", "json"),
    ("child_session_id", "str"), ("raw", "json"), ("reason", "str"), ("source", "str"),
    ("author", "str"),
)
"""``(field, type)`` of an event, in order (the ``events`` view also has ``sub``, the
position of an event within its part, for ordering)."""

TABLES: dict[str, tuple[tuple[str, str], ...]] = {
    "messages": (
        ("message_id", "str"), ("ordinal", "i32"), ("role", "str"), ("time_created", "i64"),
        ("time_completed", "i64"), ("agent", "str"), ("model", "str"), ("finish", "str"),
        ("error", "str"), ("tokens_input", "i64"), ("tokens_output", "i64"),
        ("cost", "f64"), ("tokens_cache_read", "i64"), ("tokens_cache_write", "i64"),
        ("tokens_reasoning", "i64"), ("inferred", "bool"), ("digest", "i64"), ("raw", "str"),
        ("tokens_cache_write_1h", "i64")),
    "calls": (
        ("ordinal", "i32"), ("seq", "i32"), ("message_id", "str"), ("part_id", "str"),
        ("call_id", "str"), ("tool", "str"), ("category", "str"), ("command", "str"),
        ("input", "json"), ("host", "str"), ("user", "str"), ("port", "i32"),
        ("remote_command", "str"), ("hops", "json"), ("workdir", "str"), ("status", "str"),
        ("exit_code", "i32"), ("output", "str"), ("error", "str"), ("time_start", "i64"),
        ("time_end", "i64"), ("title", "str"), ("error_signatures", "str[]"),
        ("measurements", "measurements"), ("child_session_id", "str")),
    "prose": (
        ("ordinal", "i32"), ("seq", "i32"), ("message_id", "str"), ("part_id", "str"),
        ("kind", "str"), ("source", "str"), ("time", "i64"), ("text", "str"),
        ("classification", "str"), ("prose_role", "str"), ("measurements", "measurements"),
        ("author", "str")),
    "other": (
        ("ordinal", "i32"), ("seq", "i32"), ("message_id", "str"), ("part_id", "str"),
        ("kind", "str"), ("time", "i64"), ("text", "str"), ("data", "json"),
        ("reason", "str")),
}
"""The derived rows of a batch, per table (``other`` is stored as ``other_events``), in
the order the deriver builds them; every stored table has ``session_id`` first."""

TABLE_NAMES: dict[str, str] = {"messages": "messages", "calls": "calls", "prose": "prose",
                               "other": "other_events"}
"""Batch table → stored table."""


def names(fields: tuple[tuple[str, str], ...]) -> tuple[str, ...]:
    return tuple(name for name, _ in fields)
