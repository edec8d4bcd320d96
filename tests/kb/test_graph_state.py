"""The extractor's kept state is data (:mod:`kb.graph.state`), never a pickle.

- every type an :class:`~kb.graph.extract.Extractor` attribute or a record field may
  hold can be encoded (a rule that adds state of a new type fails here at once);
- the state after a real session's extraction round-trips exactly;
- a session that grew resumes from its kept state to the answers a fresh ingest of the
  whole session gives (dead ends, untested, measurements), on the shared labelled set;
- a corrupt or hostile state row is derived again, counted, never an error.
"""

from __future__ import annotations

import ast
import dataclasses
import inspect
import json
import shutil
import sys
import types
import typing
from collections import Counter
from pathlib import Path
from typing import Any

import orjson
import pytest

from kb.graph import state as xstate
from kb.graph import store as gs
from kb.graph.extract import Extractor
from kb.ingest import ingest
from kb.store import KbStore

SHARED = {"k1": "labelled/k1.lib-bootstrap__session-export.json",
          "uicomponents-wordpress": "labelled/uicomponents__session-wordpress.json",
          "soulpass": "labelled/soulpass__codex-session.jsonl"}
"""The shared labelled set: two ``opencode export`` files and a Codex JSONL."""


# ------------------------------------------------------------------ encodable types
_BUILTIN = {str, int, float, bool, type(None), list, tuple, dict, set, frozenset, Counter}


def _attribute_hints() -> dict[str, Any]:
    """``self.NAME: TYPE`` annotations in the extractor's methods, evaluated."""
    tree = ast.parse(inspect.getsource(Extractor))
    out: dict[str, Any] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Attribute) \
                and isinstance(node.target.value, ast.Name) and node.target.value.id == "self":
            out[node.target.attr] = eval(ast.unparse(node.annotation), vars(sys.modules["kb.graph.extract"]))  # noqa: S307
    return out


def _unencodable(hint: Any, seen: set[Any]) -> list[str]:
    """The types in a type hint the codec cannot keep (recursing into records' fields)."""
    if hint is Any or hint in seen:
        return []
    seen.add(hint)
    origin = typing.get_origin(hint)
    if origin is not None:
        if origin in (typing.Union, types.UnionType):
            return [u for a in typing.get_args(hint) for u in _unencodable(a, seen)]
        args = [a for a in typing.get_args(hint) if a is not Ellipsis]
        bad = [] if origin in _BUILTIN else [repr(origin)]
        return bad + [u for a in args for u in _unencodable(a, seen)]
    if hint in _BUILTIN:
        return []
    if hint not in xstate.RECORDS:
        return [getattr(hint, "__qualname__", repr(hint))]
    return [u for h in typing.get_type_hints(hint).values() for u in _unencodable(h, seen)]


def test_every_extractor_attribute_type_can_be_kept() -> None:
    """An attribute a rule adds to the extractor (annotated where it is set) is kept
    without touching the codec when its type is made of builtins and of
    :data:`kb.graph.state.RECORDS`; a new record type must be added there."""
    hints = _attribute_hints()
    assert {"approaches", "questions", "steps", "said", "last_call", "probes"} <= set(hints)
    bad = {name: u for name, h in hints.items() if (u := _unencodable(h, set()))}
    assert not bad, f"types kb.graph.state cannot keep (add records to RECORDS): {bad}"
    for cls in xstate.RECORDS:
        assert dataclasses.is_dataclass(cls) or hasattr(cls, "_fields"), cls


def test_a_value_of_an_unknown_type_is_refused_by_name() -> None:
    ex = Extractor("s")
    ex.approaches = [object()]  # type: ignore[list-item]
    with pytest.raises(xstate.StateError, match="builtins.object cannot be kept"):
        xstate.dump(xstate.Kept(ex, Counter(), 0))
    ex = Extractor("s")
    new = {("a", 1): [frozenset({"x"}), Counter(b=2), float("inf"), (None, 2.5, True)]}
    ex.new_rule_state = new  # type: ignore[attr-defined]
    back = xstate.load(xstate.dump(xstate.Kept(ex, Counter(make=4), 9)), "s")
    assert back is not None  # a new attribute: kept as it is
    assert _canon(back.extractor.new_rule_state) == _canon(new)  # type: ignore[attr-defined]
    assert back.commands == Counter(make=4) and back.calls == 9


# --------------------------------------------------------------- real sessions
def _canon(obj: Any) -> Any:
    """Plain values that tell a tuple from a list and a set from a frozenset."""
    if isinstance(obj, Extractor):
        return ("Extractor", {k: _canon(v) for k, v in obj.__getstate__().items()})
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return (type(obj).__name__, [(f.name, _canon(getattr(obj, f.name)))
                                     for f in dataclasses.fields(obj)])
    if isinstance(obj, tuple):
        return (type(obj).__name__, [_canon(x) for x in obj])
    if isinstance(obj, list):
        return ("list", [_canon(x) for x in obj])
    if isinstance(obj, (set, frozenset)):
        return (type(obj).__name__, sorted((_canon(x) for x in obj), key=repr))
    if isinstance(obj, dict):
        return (type(obj).__name__, [(_canon(k), _canon(v)) for k, v in obj.items()])
    return (type(obj).__name__, obj)


def _cut(src: Path, dst: Path, drop: int) -> None:
    """``src`` without its last ``drop`` messages (an export) or lines (JSONL)."""
    if src.suffix == ".json":
        doc = json.loads(src.read_bytes())
        doc["messages"] = doc["messages"][:len(doc["messages"]) - drop]
        dst.write_bytes(orjson.dumps(doc))
    else:
        lines = src.read_bytes().splitlines(keepends=True)
        dst.write_bytes(b"".join(lines[:len(lines) - drop]))


def _kept(store: KbStore) -> str:
    row = store.conn.execute("SELECT state FROM graph_state").fetchone()
    assert row is not None
    return str(row[0])


def _answers(store: KbStore, scope: str) -> bytes:
    return orjson.dumps({"dead_ends": gs.dead_ends(store, [scope]),
                         "untested": gs.untested(store, [scope]),
                         "measurements": gs.measurements(store, [scope])},
                        option=orjson.OPT_NON_STR_KEYS, default=str)


@pytest.fixture(scope="module")
def shared_fresh(realworld: Path, tmp_path_factory: pytest.TempPathFactory
                 ) -> dict[str, tuple[str, bytes, str]]:
    """Per shared session: its scope, the answers of a fresh ingest, its kept state."""
    out = {}
    for name, rel in SHARED.items():
        db = tmp_path_factory.mktemp("fresh") / "kb.duckdb"
        with KbStore(db) as store:
            ingest(store, [realworld / rel], index=False)
            (scope,) = gs.scopes(store)
            state = _kept(store)
            out[name] = (scope, _answers(store, scope), state)
    return out


@pytest.mark.parametrize("name", SHARED)
def test_a_real_sessions_state_round_trips(name: str, realworld: Path, tmp_path: Path,
                                           shared_fresh: dict[str, tuple[str, bytes, str]]
                                           ) -> None:
    scope, _, kept = shared_fresh[name]
    doc = json.loads(kept)  # JSON a person can read, no code
    assert doc["codec"] == xstate.CODEC and list(doc["extractor"]) == ["$Extractor"]
    k = xstate.load(kept, scope)
    assert k is not None and k.extractor.steps and k.extractor.said
    assert xstate.dump(k) == kept  # the same bytes again: sets are kept in order
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [realworld / SHARED[name]], graph=False, index=False)
        calls, prose, msgs = gs.load_rows(store, gs.scope_sessions(store, scope))
    fresh = xstate.Kept.first_pass(scope, calls, prose, msgs)
    back = xstate.load(xstate.dump(fresh), scope)
    assert back is not None and _canon(back.extractor) == _canon(fresh.extractor)
    assert (back.commands, back.calls) == (fresh.commands, len(calls))
    # the look-ahead the state keeps decides the common tokens as Extractor.run does
    ex = Extractor(scope)
    ex.run(calls, prose, msgs)
    assert xstate.common_tokens(back.commands, back.calls) == ex.common


def _grow(src: Path, work: Path, db: Path, drop: int) -> tuple[KbStore, list[str]]:
    """A store that ingested ``src`` less its last ``drop`` units (graph and kept state
    built), then ``src`` whole without the graph; and where Extractor.run will be logged."""
    _cut(src, work, drop)
    store = KbStore(db)
    ingest(store, [work], index=False)
    shutil.copyfile(src, work)
    ingest(store, [work], graph=False, index=False)
    return store, []


GROWN = [("k1", 1), ("k1", 120), ("uicomponents-wordpress", 1),
         ("uicomponents-wordpress", 150), ("soulpass", 1), ("soulpass", 300)]
"""``(session, units dropped)``: the last message or a large part of the session."""


@pytest.mark.parametrize(("name", "drop"), GROWN)
def test_a_grown_session_resumes_to_the_fresh_answers(
        name: str, drop: int, realworld: Path, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch, shared_fresh: dict[str, tuple[str, bytes, str]]
        ) -> None:
    """The graph updated from the kept state is the graph of a fresh ingest.  Resumed
    where the look-ahead of a first pass is unchanged (the last message of
    ``uicomponents-wordpress``), derived again where it is not (``k1``'s last call makes
    ``export`` a common token) or where the stored messages changed (a Codex file cut
    mid-turn: its last message is read again)."""
    src = realworld / SHARED[name]
    scope, fresh, _ = shared_fresh[name]
    store, runs = _grow(src, tmp_path / src.name, tmp_path / "kb.duckdb", drop)
    with store:
        run = Extractor.run

        def logged(self: Extractor, *a: Any, **kw: Any) -> None:
            runs.append(self.scope)
            run(self, *a, **kw)

        monkeypatch.setattr(Extractor, "run", logged)
        changed, discarded = xstate.LOOKAHEAD_CHANGED, sum(xstate.DISCARDED.values())
        gs.rebuild_all(store)
        assert _answers(store, scope) == fresh
        assert sum(xstate.DISCARDED.values()) == discarded
        if (name, drop) == ("uicomponents-wordpress", 1):
            assert runs == []  # resumed
        if name == "k1":
            assert runs == [scope] and xstate.LOOKAHEAD_CHANGED == changed + 1


def test_resuming_without_the_look_ahead_would_change_the_answers(
        realworld: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        shared_fresh: dict[str, tuple[str, bytes, str]]) -> None:
    """Why :meth:`kb.graph.state.Kept.resume` checks the look-ahead: fed with the common
    tokens of its first pass, the grown session finds other dead ends than a fresh pass
    (a REST attempt ended at 375)."""
    src = realworld / SHARED["uicomponents-wordpress"]
    scope, fresh, _ = shared_fresh["uicomponents-wordpress"]
    store, _ = _grow(src, tmp_path / src.name, tmp_path / "kb.duckdb", 150)
    with store:
        def fed_as_it_was(self: xstate.Kept, calls: Any, prose: Any, msgs: Any) -> bool:
            self.extractor.feed(calls, prose, msgs)
            return True

        monkeypatch.setattr(xstate.Opened, "grows_alike", lambda self, calls: True)
        monkeypatch.setattr(xstate.Kept, "resume", fed_as_it_was)
        gs.rebuild_all(store)
        grown = json.loads(_answers(store, scope))

    def ends(answers: dict[str, Any]) -> set[tuple[str, object]]:
        return {(d["name"], d.get("ended_at")) for d in answers["dead_ends"]}

    assert ends(grown) != ends(json.loads(fresh))
    assert len(ends(grown) - ends(json.loads(fresh))) >= 1


# ---------------------------------------------------------------- hostile rows
def _doc(body: str, records: str | None = None, scope: str = "scope-x") -> str:
    """A state document around an extractor's JSON body (the head as :func:`dump`
    writes it unless ``records`` says otherwise)."""
    head = records if records is not None else json.dumps(xstate._SCHEMA)
    if '"common"' not in body:
        body += ', "common": {"$frozenset": []}'
    return ('{"codec": "logkb-xstate", "version": 1, "records": %s, "extractor": '
            '{"$Extractor": {"scope": "%s"%s}}, "commands": {"$Counter": []}, "calls": 0}'
            % (head, scope, body))


HOSTILE = {
    "not json": "\x00\x01pickle?",
    "a pickle": "\x80\x05\x95\x1b\x00\x00\x00\x00\x00\x00\x00\x8c\x02os\x94\x8c\x06getcwd",
    "another codec": '{"codec": "pickle", "version": 1, "extractor": {}}',
    "another version": _doc("").replace('"version": 1', '"version": 0'),
    "unknown tag": _doc(', "approaches": [{"$os.system": ["id"]}]'),
    "unknown record": _doc("", records='{"Popen": ["args"]}'),
    "a field no record has": _doc(', "pivots": [{"$Pivot": ["S", 1]}]',
                                  records='{"Pivot": ["session_id", "__class__"]}'),
    "too many values": _doc(', "pivots": [{"$Pivot": ["S", 1, "t", [], [], 9, 9]}]'),
    "two keys": _doc(', "links": [{"$tuple": [], "$set": []}]'),
    "another scope": _doc("", scope="someone else"),
    "wrong type of attribute": _doc(', "approaches": "x"'),
    "deep nesting": _doc(', "links": ' + "[" * 5000 + "]" * 5000),
    "unhashable set member": _doc(', "common": {"$frozenset": [[1]]}'),
    "no look-ahead": _doc("").replace('"commands": {"$Counter": []}', '"commands": 3'),
}


def test_a_document_built_as_the_hostile_ones_loads() -> None:
    """The hostile cases below differ from a state that loads only where they say."""
    k = xstate.load(_doc(', "pivots": [{"$Pivot": ["S", 1, "t", [], []]}]'), "scope-x")
    assert k is not None and k.extractor.pivots[0].text == "t"
    k = xstate.load(_doc(', "pivots": [{"$Pivot": ["t", "S", [], 1, []]}]',
                         records='{"Pivot": ["text", "session_id", "sources", "ordinal", '
                                 '"targets"]}'), "scope-x")  # fields in another order
    assert k is not None and k.extractor.pivots[0].ordinal == 1


@pytest.mark.parametrize("case", HOSTILE)
def test_a_hostile_state_is_refused_and_counted(case: str) -> None:
    before = sum(xstate.DISCARDED.values())
    assert xstate.load(HOSTILE[case], "scope-x") is None
    assert sum(xstate.DISCARDED.values()) == before + 1


def _poisoned(kept: str) -> str:
    """A state that decodes (right tags, right fields) but whose values have the wrong
    shape: every approach's tokens are a number."""
    doc = json.loads(kept)
    tokens = doc["records"]["Approach"].index("tokens")
    for a in doc["extractor"]["$Extractor"]["approaches"]:
        a["$Approach"][tokens] = 7
    return json.dumps(doc)


@pytest.mark.parametrize("grow", [False, True], ids=["finish", "resume"])
def test_a_corrupt_state_row_is_derived_again(
        grow: bool, realworld: Path, tmp_path: Path,
        shared_fresh: dict[str, tuple[str, bytes, str]]) -> None:
    """A state that decodes but breaks the rules (fed the last message, or only finished
    as after a mark) is derived again from every row: same answers, counted, no error."""
    src = realworld / SHARED["uicomponents-wordpress"]
    work = tmp_path / src.name
    _cut(src, work, 1 if grow else 0)
    scope, fresh, kept = shared_fresh["uicomponents-wordpress"]
    with KbStore(tmp_path / "kb.duckdb") as store:
        ingest(store, [work], index=False)
        state = _kept(store)
        assert xstate.load(_poisoned(state), scope) is not None  # it does decode
        store.conn.execute("UPDATE graph_state SET state = ?", [_poisoned(state)])
        before = sum(xstate.DISCARDED.values())
        if grow:
            shutil.copyfile(src, work)
            ingest(store, [work], index=False)
        else:  # nothing new: the kept state is only finished (as after `logkb mark`)
            gs.extract_scope(store, scope)
            gs.rebuild(store, scope, force=False)
        assert sum(xstate.DISCARDED.values()) > before
        assert _answers(store, scope) == fresh
        assert _kept(store) == kept  # derived again, and kept again
