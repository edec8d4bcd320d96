"""Events as the knowledge base returns them: frozen dataclasses, no pydantic.

The read path (``logkb events``, ``show``, the TUI, replay plans) gets these
from :meth:`kb.store.KbStore.events`.  They have the fields, the field order
and the JSON form of the validated models in :mod:`logparse.models` (which the
deriver and the parsing tests use), so ``events --json`` prints the same bytes;
building them costs a fraction of a model validation and loading them costs no
pydantic import.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import orjson

from logparse.kinds import EventKind


@dataclass(frozen=True, slots=True)
class Measurement:
    """A number a command reported: ``89.5 tok/s Output token throughput``."""

    value: float
    unit: str
    label: str

    def __str__(self) -> str:
        v = f"{number(self.value)} {self.unit}{gloss(self.value, self.unit)}".strip()
        return f"{self.label}: {v}" if self.label else v


def number(value: float) -> str:
    """A reading's value as shown: ``:g``, but a whole number of seven digits or more in
    full (a turn of ``1234567`` ms, never ``1.23457e+06``)."""
    v = f"{value:g}"
    if "e+" in v and float(value).is_integer() and abs(value) < 1e15:
        v = f"{value:.0f}"
    return v


def gloss(value: float, unit: str | None) -> str:
    """What a duration the agent clocked in milliseconds reads as to a person, for display
    after the reading (``187258 ms`` → ``" (3.1 min)"``); ``""`` below a second, for
    other units and in every ``--json``.  The reading keeps the agent's unit (labellers
    copy ``durationMs`` as ms); this is no second reading."""
    if unit != "ms" or not isinstance(value, (int, float)) or abs(value) < 1000:
        return ""
    s = value / 1000
    if abs(s) < 60:
        return f" ({s:.1f} s)"
    if abs(s) < 3600:
        return f" ({s / 60:.1f} min)"
    return f" ({s / 3600:.1f} h)"


@dataclass(frozen=True, slots=True)
class SshHop:
    """One ssh hop of a command: ``ssh [-p PORT] [-i KEY] [USER@]HOST 'REMOTE'``."""

    host: str
    user: str | None = None
    port: int | None = None
    identity: str | None = None
    options: list[str] = field(default_factory=list)
    remote_command: str | None = None
    nested: bool = False
    """True when this ssh runs *inside* the remote command of the previous hop."""


@dataclass(frozen=True, slots=True)
class TodoItem:
    content: str
    status: str
    priority: str | None = None


@dataclass(frozen=True, slots=True)
class Event:
    """One typed event (see :class:`logparse.models.Event` for what each field means)."""

    session_id: str
    ordinal: int
    seq: int
    kind: EventKind
    message_id: str
    part_id: str | None = None
    role: str | None = None
    time: int | None = None
    tool: str | None = None
    call_id: str | None = None
    category: str | None = None
    command: str | None = None
    input: dict[str, Any] | None = None
    host: str | None = None
    user: str | None = None
    port: int | None = None
    remote_command: str | None = None
    hops: list[SshHop] = field(default_factory=list)
    workdir: str | None = None
    status: str | None = None
    exit_code: int | None = None
    output: str | None = None
    duration_ms: int | None = None
    error_signature: str | None = None
    error_signatures: list[str] = field(default_factory=list)
    measurements: list[Measurement] = field(default_factory=list)
    title: str | None = None
    text: str | None = None
    classification: str | None = None
    prose_role: str | None = None
    todos: list[TodoItem] = field(default_factory=list)
    child_session_id: str | None = None
    raw: Any = None
    reason: str | None = None
    source: str | None = None
    author: str | None = None

    def model_dump(self, mode: str = "json") -> dict[str, Any]:
        """The event as JSON-ready values (what the pydantic model's dump gives)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        out["kind"] = self.kind.value
        out["hops"] = [_plain(h) for h in self.hops]
        out["measurements"] = [_plain(m) for m in self.measurements]
        out["todos"] = [_plain(t) for t in self.todos]
        return out

    def model_dump_json(self, exclude_none: bool = False) -> str:
        """One line of compact JSON, byte for byte what ``events --json`` always printed."""
        data = self.model_dump()
        if exclude_none:
            data = {k: v for k, v in data.items() if v is not None}
        return orjson.dumps(data).decode()


def _plain(obj: Any) -> dict[str, Any]:
    return {f.name: getattr(obj, f.name) for f in fields(obj)}


_HOP_FIELDS = frozenset(f.name for f in fields(SshHop))


def hop(d: dict[str, Any]) -> SshHop:
    """A hop from its stored JSON (unknown keys ignored, as the model does)."""
    return SshHop(**{k: v for k, v in d.items() if k in _HOP_FIELDS})


def todo(d: dict[str, Any]) -> TodoItem:
    """A todo item from the stored ``todowrite`` input."""
    p = d.get("priority")
    return TodoItem(content=str(d.get("content", "")), status=str(d.get("status", "")),
                    priority=None if p is None else str(p))
