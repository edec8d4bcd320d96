"""The Arrow form of a batch of derived rows: what the store inserts, built in the
ingesting process or in a derive worker (:mod:`kb.derive_pool`), which needs nothing of
the database to build it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from logparse.schema import TABLE_NAMES
from logparse.schema import TABLES as _COLUMNS

if TYPE_CHECKING:
    from logparse.derive import Batch

_MEAS = pa.list_(pa.struct([("value", pa.float64()), ("unit", pa.string()),
                            ("label", pa.string())]))
_S, _I32, _I64 = pa.string(), pa.int32(), pa.int64()
ARROW_TYPES: dict[str, pa.DataType] = {
    "str": _S, "json": _S, "i32": _I32, "i64": _I64, "f64": pa.float64(), "bool": pa.bool_(),
    "str[]": pa.list_(_S), "measurements": _MEAS}
"""Logical type of :mod:`logparse.schema` → its Arrow type (JSON travels as text)."""
SCHEMAS: dict[str, pa.Schema] = {
    name: pa.schema([(col, ARROW_TYPES[typ]) for col, typ in cols])
    for name, cols in _COLUMNS.items()}
"""The Arrow form of each table of a batch, generated from :data:`logparse.schema.TABLES`
(the deriver's own module would load pydantic into every read command)."""
TABLES = TABLE_NAMES


_ARROW_ERRORS = (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError, TypeError, ValueError)


def _to_arrow(name: str, rows: list[tuple[Any, ...]],
              lost: list[tuple[str, str, str, str]] | None = None) -> pa.Table:
    """Rows as an Arrow table.  A value that does not fit its column (the deriver should
    never hand one over, but a batch must never be lost to one) becomes NULL and is
    listed in ``lost`` as ``(message_id, table, column, value)``."""
    schema = SCHEMAS[name]
    cols = list(zip(*rows)) if rows else [()] * len(schema)
    arrays = []
    for c, f in zip(cols, schema):
        try:
            arrays.append(pa.array(c, type=f.type))
        except _ARROW_ERRORS:
            arrays.append(_salvage_column(name, f, c, rows, lost))
    return pa.Table.from_arrays(arrays, schema=schema)


def _salvage_column(name: str, f: pa.Field, values: Sequence[Any],
                    rows: list[tuple[Any, ...]], lost: list[tuple[str, str, str, str]] | None
                    ) -> pa.Array:
    mid_at = SCHEMAS[name].names.index("message_id")
    out: list[Any] = []
    for v, row in zip(values, rows):
        try:
            pa.array([v], type=f.type)
        except _ARROW_ERRORS:
            if lost is not None:
                lost.append((str(row[mid_at]), TABLES[name], f.name, repr(v)[:120]))
            v = None
        out.append(v)
    return pa.array(out, type=f.type)


@dataclass
class ArrowBatch:
    """A batch of derived rows as the Arrow tables that are inserted (one per table of
    :data:`SCHEMAS` that has rows), built in the ingesting process or in the derive
    worker (:mod:`kb.derive_pool`)."""

    tables: dict[str, pa.Table]
    lost: list[tuple[str, str, str, str]]
    """Values that did not fit their column and are NULL: ``(message_id, table, column,
    value)`` (the message's raw JSON keeps them)."""
    times: tuple[int | None, int | None] = (None, None)
    """The deriver's first and last message time once it derived the batch."""
    findings: list[tuple[Any, ...]] | None = None
    """The secrets in the batch's texts when the derive worker found them already
    (:func:`kb.secrets.batch_findings`); ``None``: the store looks."""

    def __len__(self) -> int:
        t = self.tables.get("messages")
        return t.num_rows if t is not None else 0

    def __bool__(self) -> bool:
        return bool(self.tables)

    def source_bytes(self) -> int:
        """Bytes of source (the messages' raw JSON) the batch holds."""
        t = self.tables.get("messages")
        if t is None:
            return 0
        n = pc.sum(pc.binary_length(t.column("raw"))).as_py()
        return int(n or 0)

    def message_ids(self) -> list[str]:
        """The ids of the messages the batch holds."""
        t = self.tables.get("messages")
        return t.column("message_id").to_pylist() if t is not None else []


def to_arrow_batch(batch: Batch) -> ArrowBatch:
    """The rows of a :class:`~logparse.derive.Batch` as Arrow tables."""
    lost: list[tuple[str, str, str, str]] = []
    tables = {name: _to_arrow(name, rows, lost) for name, rows in batch.tables() if rows}
    return ArrowBatch(tables, lost)
