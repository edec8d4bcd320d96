"""The extractor's kept state as data: a typed, versioned JSON codec.

A session that only grew resumes its extraction where the last pass stopped
(:func:`kb.graph.store.rebuild`): the :class:`~kb.graph.extract.Extractor` fed to the
last message is kept in ``graph_state.state``.  It is kept as JSON that a person can
read (``SELECT state FROM graph_state``) and that cannot run code: decoding builds
only the record types of :data:`RECORDS` and the tagged builtins below, and anything
else (an unknown tag, a field a record does not have, a version of another codec)
makes :func:`load` return ``None`` - the caller derives the state again from the rows.

The form::

    {"codec": "logkb-xstate", "version": 1,
     "records": {"Approach": ["id", "name", ...], "Step": [...], ...},
     "extractor": {"$Extractor": {"scope": ..., "approaches": [...], ...}},
     "commands": {"$Counter": [["make", 12], ...]}, "calls": 488}

JSON strings, integers, finite floats, booleans, ``null`` and arrays (lists) are
themselves; every other value is an object with a single ``$tag`` key::

    {"$tuple": [...]}  {"$set": [...]}  {"$frozenset": [...]}  {"$Counter": [[k, n], ...]}
    {"$dict": {"key": ...}}  {"$items": [[key, value], ...]}  (keys that are not strings)
    {"$float": "inf"}  {"$Step": [...]}  (a record: its values in the order ``records``
    names its fields; a state written before a field was added or moved is read by name)

Fields are not listed here: a record's are its dataclass fields or NamedTuple fields,
the extractor's are its ``__getstate__()`` (its ``__dict__`` less the indexes it builds
again).  So an attribute a rule adds to the extractor is kept without touching this
module, as long as its value is made of the builtins above and of :data:`RECORDS`;
``tests/kb/test_graph_state.py`` fails at once for an attribute whose type is not.
Decoding checks the form, not every value's type: a state that decodes but breaks
the rules (a hand-edited row) makes them raise, and :mod:`kb.graph.store` then derives
it again from every row (:data:`DISCARDED` counts both kinds).

**Resumed = derived again.**  A first pass (:meth:`~kb.graph.extract.Extractor.run`)
looks ahead once: the command tokens too frequent in the whole scope to name an approach
(``Extractor.common``).  A state resumed with other rows after it would keep the tokens
of the rows it had seen, and could then find other approaches than a pass over every
row (one more dead end on a real session, ``uicomponents-wordpress``).  So the state
keeps the token counts that decided them (``commands``, ``calls``), :meth:`Kept.resume`
counts the new calls in, and a state whose look-ahead would now differ is not resumed:
the caller derives it again from every row (:data:`LOOKAHEAD_CHANGED` counts them).
"""

from __future__ import annotations

import dataclasses
import gc
import math
from collections import Counter
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import orjson

from kb.graph.episodes import Found, Probe, Said, Step
from kb.graph.extract import (
    Approach,
    CallRow,
    Decision,
    Evidence,
    Extractor,
    MessageRow,
    Pivot,
    ProseRow,
    Question,
)
from kb.graph.text import Cause, tokens

CODEC = "logkb-xstate"
VERSION = 1
"""Bumped when the form above changes (a state of another version is derived again)."""

LOOKAHEAD_CHANGED = 0
"""States not resumed because a first pass over every row would look ahead otherwise."""

RECORDS: tuple[type, ...] = (Approach, Evidence, Question, Pivot, Decision, CallRow,
                             ProseRow, MessageRow, Step, Said, Probe, Found, Cause)
"""Every record type a kept state may hold: dataclasses and NamedTuples, by class name
(the allow-list; :class:`~kb.graph.extract.Extractor` itself is the root)."""


class StateError(ValueError):
    """A value that is not part of an extractor state (encoding), or a kept state that
    does not decode to one."""


def _fields(cls: type) -> tuple[str, ...]:
    if dataclasses.is_dataclass(cls):
        return tuple(f.name for f in dataclasses.fields(cls))
    named = getattr(cls, "_fields", None)
    if isinstance(named, tuple) and issubclass(cls, tuple):
        return named
    raise TypeError(f"{cls.__qualname__} is neither a dataclass nor a NamedTuple")


_BY_TYPE: dict[type, tuple[str, tuple[str, ...], bool]] = {
    cls: ("$" + cls.__name__, _fields(cls), issubclass(cls, tuple)) for cls in RECORDS}
"""``type -> (tag, fields, is a NamedTuple)``."""
_BY_NAME: dict[str, type] = {cls.__name__: cls for cls in RECORDS}
assert len(_BY_NAME) == len(RECORDS), "two record types share a class name"
_SCHEMA = {cls.__name__: list(fields) for cls, (_, fields, _) in _BY_TYPE.items()}
"""The fields of every record, in the order a record's array holds them (written at the
head of every state, so a state stays readable by name after a field is added)."""
_PLAIN = frozenset({str, int, bool, type(None)})
_PLAIN_JSON = frozenset({str, int, bool, float, type(None)})


# ------------------------------------------------------------------- encoding
def _sorted(items: list[Any]) -> list[Any]:
    """A set's members in a fixed order (the same state gives the same bytes)."""
    if all(type(x) is str for x in items):
        return sorted(items)
    try:
        return sorted(items, key=orjson.dumps)
    except TypeError:
        return items


def _enc(v: Any) -> Any:
    t = type(v)
    if t in _PLAIN:
        return v
    if t is float:
        return v if math.isfinite(v) else {"$float": repr(v)}
    if t is list:
        return [x if type(x) in _PLAIN else _enc(x) for x in v]
    rec = _BY_TYPE.get(t)
    if rec is not None:  # a record: its fields' values in the order of _SCHEMA
        tag, fields, named = rec
        values = v if named else [getattr(v, f) for f in fields]
        return {tag: [x if type(x) in _PLAIN else _enc(x) for x in values]}
    if t is tuple:
        return {"$tuple": [x if type(x) in _PLAIN else _enc(x) for x in v]}
    if t is dict:
        if all(type(k) is str for k in v):
            return {"$dict": {k: x if type(x) in _PLAIN else _enc(x) for k, x in v.items()}}
        return {"$items": [[_enc(k), _enc(x)] for k, x in v.items()]}
    if t is set or t is frozenset:
        return {"$" + t.__name__: _sorted([x if type(x) in _PLAIN else _enc(x) for x in v])}
    if t is Counter:
        return {"$Counter": [[_enc(k), n] for k, n in v.items()]}
    raise StateError(f"a {t.__module__}.{t.__qualname__} cannot be kept in an extractor "
                     f"state: add it to kb.graph.state.RECORDS if it is a record")


# ------------------------------------------------------------------ the kept state
def command_tokens(calls: Iterable[CallRow]) -> Counter[str]:
    """The command tokens :meth:`Extractor.run` counts over a scope's calls."""
    df: Counter[str] = Counter()
    for c in calls:
        df.update(tokens(c.remote_command or c.command or ""))
    return df


def common_tokens(commands: Counter[str], calls: int) -> frozenset[str]:
    """``Extractor.common`` of a first pass over ``calls`` calls whose command tokens
    are ``commands`` (as :meth:`Extractor.run` decides it; a test holds them equal)."""
    floor = max(3, calls // 200)
    return frozenset(t for t, n in commands.items() if n > floor)


@dataclass
class Kept:
    """An extractor fed to some message, and what its first pass looked ahead at."""

    extractor: Extractor
    commands: Counter[str]
    """The command tokens of every call it was fed (:func:`command_tokens`)."""
    calls: int

    @classmethod
    def first_pass(cls, scope: str, calls: list[CallRow], prose: list[ProseRow],
                   messages: list[MessageRow]) -> Kept:
        """A scope's extractor run over all its rows (:meth:`Extractor.run`)."""
        ex = Extractor(scope)
        ex.run(calls, prose, messages)
        return cls(ex, command_tokens(calls), len(calls))

    def resume(self, calls: list[CallRow], prose: list[ProseRow],
               messages: list[MessageRow]) -> bool:
        """Feed the rows that came since; False (and not fed) when a first pass over
        every row would set other common tokens than this state's first pass did: the
        state must be derived again for the same result."""
        global LOOKAHEAD_CHANGED
        commands = self.commands + command_tokens(calls)  # (drops no count: all > 0)
        if common_tokens(commands, self.calls + len(calls)) != self.extractor.common:
            LOOKAHEAD_CHANGED += 1
            return False
        self.commands, self.calls = commands, self.calls + len(calls)
        self.extractor.feed(calls, prose, messages)
        return True


def encode(kept: Kept) -> dict[str, Any]:
    """The state as plain JSON values (raises :class:`StateError` for a value of a type
    that has no place in a state)."""
    attrs = kept.extractor.__getstate__()
    return {"codec": CODEC, "version": VERSION, "records": _SCHEMA,
            "extractor": {"$Extractor": {k: _enc(v) for k, v in attrs.items()}},
            "commands": _enc(Counter(kept.commands)), "calls": kept.calls}


@contextmanager
def _no_gc() -> Iterator[None]:
    """The cyclic collector paused: a state is ~10^5 new containers that hold no cycle,
    and the passes it would run over them cost 2-3x the decoding itself."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


def dump(kept: Kept) -> str:
    """The kept form of a state: :func:`encode` as JSON text."""
    with _no_gc():
        return orjson.dumps(encode(kept)).decode()


# ------------------------------------------------------------------- decoding
def _records(schema: Any) -> dict[str, tuple[type, list[str] | None]]:
    """``tag -> (record type, field names)`` of a state's head; the names are ``None``
    where they are the type's own, in its order (the common case: built positionally)."""
    if type(schema) is not dict:
        raise StateError("no record schema in the state")
    out: dict[str, tuple[type, list[str] | None]] = {}
    for name, fields in schema.items():
        cls = _BY_NAME.get(name)
        if cls is None:
            raise StateError(f"unknown record {name!r}")
        if type(fields) is not list or not set(fields) <= set(_SCHEMA[name]) \
                or len(set(fields)) != len(fields):
            raise StateError(f"{name}: fields that are not {name}'s")
        out["$" + name] = (cls, None if fields == _SCHEMA[name] else fields)
    return out


def _decoder(records: dict[str, tuple[type, list[str] | None]]) -> Any:
    """The decoding walk of a state whose records are ``records``."""

    def dec(v: Any) -> Any:
        t = type(v)
        if t is list:
            return [x if type(x) in _PLAIN_JSON else dec(x) for x in v]
        if t is not dict:
            return v  # str, int, float, bool, None
        if len(v) != 1:
            raise StateError("an object with more than one key")
        ((tag, body),) = v.items()
        rec = records.get(tag)
        if rec is not None:
            cls, names = rec
            values = [x if type(x) in _PLAIN_JSON else dec(x) for x in _array(body)]
            try:
                if names is None:
                    return cls(*values)
                if len(values) != len(names):
                    raise StateError(f"{tag}: {len(values)} values for {len(names)} fields")
                return cls(**dict(zip(names, values)))
            except TypeError as e:  # too many values, or a field without default missing
                raise StateError(f"{tag}: {e}") from e
        if tag == "$tuple":
            return tuple([x if type(x) in _PLAIN_JSON else dec(x) for x in _array(body)])
        if tag == "$dict":
            if type(body) is not dict:
                raise StateError("$dict holds no object")
            return {k: x if type(x) in _PLAIN_JSON else dec(x) for k, x in body.items()}
        if tag == "$items":
            return {_key(dec(k)): dec(x) for k, x in _pairs(body)}
        if tag == "$set":
            return {_key(dec(x)) for x in _array(body)}
        if tag == "$frozenset":
            return frozenset([_key(dec(x)) for x in _array(body)])
        if tag == "$Counter":
            return Counter({_key(dec(k)): _count(n) for k, n in _pairs(body)})
        if tag == "$float":
            if body not in ("inf", "-inf", "nan"):
                raise StateError(f"not a float: {body!r}")
            return float(body)
        raise StateError(f"unknown tag {tag!r}")

    return dec


def _array(body: Any) -> list[Any]:
    if type(body) is not list:
        raise StateError("a tagged collection that holds no array")
    return body


def _pairs(body: Any) -> list[tuple[Any, Any]]:
    body = _array(body)
    if not all(type(p) is list and len(p) == 2 for p in body):
        raise StateError("pairs that are not [key, value]")
    return [(p[0], p[1]) for p in body]


def _key(k: Any) -> Any:
    """A set member or a dict key: it must hash (a list or dict decoded there never
    came from :func:`dump`)."""
    try:
        hash(k)
    except TypeError as e:
        raise StateError(f"an unhashable key: {type(k).__name__}") from e
    return k


def _count(n: Any) -> int:
    if type(n) is not int:
        raise StateError("a Counter's count that is not an integer")
    return n


def decode(doc: Any, scope: str | None = None) -> Kept:
    """The state a :func:`encode` document holds (:class:`StateError` when it holds
    none: another codec or version, an unknown tag, a field no record has, a scope
    that is not ``scope``)."""
    if type(doc) is not dict or doc.get("codec") != CODEC or doc.get("version") != VERSION:
        raise StateError("not a kept extractor state of this version")
    root = doc.get("extractor")
    if type(root) is not dict or list(root) != ["$Extractor"] \
            or type(root["$Extractor"]) is not dict:
        raise StateError("no extractor in the state")
    dec = _decoder(_records(doc.get("records")))
    attrs = {k: dec(v) for k, v in root["$Extractor"].items()}
    if type(attrs.get("scope")) is not str or (scope is not None and attrs["scope"] != scope):
        raise StateError("the state of another scope")
    # a fresh extractor first: an attribute the rules added since the state was kept
    # starts from its initial value
    ex = Extractor(attrs["scope"])
    for k, v in attrs.items():
        have = ex.__dict__.get(k)
        if have is not None and v is not None and type(v) is not type(have):
            raise StateError(f"Extractor.{k}: a {type(v).__name__}, not a "
                             f"{type(have).__name__}")
    ex.__dict__.update(attrs)
    commands, calls = dec(doc.get("commands")), doc.get("calls")
    if type(commands) is not Counter or type(calls) is not int \
            or not all(type(k) is str for k in commands):
        raise StateError("no command tokens in the state")
    return Kept(ex, commands, calls)


@dataclass
class Opened:
    """A kept state read as far as its look-ahead: enough to tell whether it may be
    resumed before the extractor itself is decoded (most of the cost)."""

    doc: dict[str, Any]
    scope: str | None
    commands: Counter[str]
    calls: int
    common: frozenset[str]

    def grows_alike(self, calls: list[CallRow]) -> bool:
        """Would a first pass over the rows it was fed and ``calls`` set the same common
        tokens as its first pass did (:meth:`Kept.resume`)?  Counted when not."""
        global LOOKAHEAD_CHANGED
        now = common_tokens(self.commands + command_tokens(calls), self.calls + len(calls))
        if now != self.common:
            LOOKAHEAD_CHANGED += 1
            return False
        return True

    def load(self) -> Kept | None:
        """The whole state, or ``None`` (counted) when it does not decode."""
        try:
            with _no_gc():
                return decode(self.doc, self.scope)
        except (StateError, RecursionError) as e:
            discard(f"unreadable: {type(e).__name__}")
            return None


def open_state(data: bytes | bytearray | memoryview | str | None, scope: str | None = None
               ) -> Opened | None:
    """A kept state parsed and its look-ahead decoded (:class:`Opened`), or ``None``
    (counted) when ``data`` is no state of this form: corrupt, hostile, pickled."""
    if data is None:
        return None
    try:
        with _no_gc():
            doc = orjson.loads(bytes(data) if isinstance(data, memoryview) else data)
            if type(doc) is not dict or doc.get("codec") != CODEC \
                    or doc.get("version") != VERSION:
                raise StateError("not a kept extractor state of this version")
            dec = _decoder(_records(doc.get("records")))
            root = doc.get("extractor")
            body = root.get("$Extractor") if type(root) is dict else None
            if type(body) is not dict:
                raise StateError("no extractor in the state")
            commands, calls, common = (dec(doc.get("commands")), doc.get("calls"),
                                       dec(body.get("common")))
    except (orjson.JSONDecodeError, StateError, RecursionError) as e:
        discard(f"unreadable: {type(e).__name__}")
        return None
    if type(commands) is not Counter or type(calls) is not int \
            or type(common) is not frozenset \
            or not all(type(k) is str for k in commands) \
            or not all(type(k) is str for k in common):
        discard("unreadable: no look-ahead")
        return None
    return Opened(doc, scope, commands, calls, common)


def load(data: bytes | bytearray | memoryview | str | None, scope: str | None = None
         ) -> Kept | None:
    """The state kept as ``data`` by :func:`dump`, or ``None`` (counted) when ``data`` is
    not one (corrupt, hostile, of an older form, pickled): the caller derives it again."""
    opened = open_state(data, scope)
    return opened.load() if opened is not None else None


DISCARDED: Counter[str] = Counter()
"""Kept states this process could not use, by reason (derived again from the rows)."""


def discard(reason: str) -> None:
    """Count a kept state that was not used (:data:`DISCARDED`): never an error to the
    user, the state is derived again from the rows."""
    DISCARDED[reason] += 1
