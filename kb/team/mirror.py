"""A read-only local mirror of the team store: what ``logkb tui --team`` opens.

The TUI reads only through :class:`kb.lease.KbLease` and :mod:`kb.views` over a DuckDB
:class:`~kb.store.KbStore`.  Rather than teach every view a second (PostgreSQL)
backend, :func:`build` pulls the pushed sessions the member may read into a fresh
local knowledge base (the local store's own migrations), and the TUI opens that file
with writes refused (:attr:`kb.lease.KbLease.read_only`).

What is rebuilt, from what:

* ``sessions``: the pushed session rows (``source_path`` says who pushed it);
* ``messages``: the pushed message metadata; ``raw`` is the pushed raw JSON when the
  pusher sent ``--include-raw``, else ``{}``; the cache/reasoning token columns, the
  digest and ``inferred`` are not pushed (NULL, 0, false);
* ``calls``/``prose``/``other_events``: rebuilt from the pushed events
  (``Event.model_dump()``) column by column through :data:`logparse.schema.TABLES`
  and the store's Arrow insert path, so that the ``events`` view hands back the same
  events (``todo``/``subagent`` events come back from their calls, as locally; a prose
  row's ``source`` too, ``text`` for a push older than it).  Not
  pushed, so not mirrored: whether a failed
  call's text was its output or its error (both show as the output), an
  ``other_events`` row's ``data`` besides its measurements (unless ``--include-raw``);
* the knowledge graph: the pushed nodes and edges, persisted as built (never derived
  again here: the pusher's graph, dead ends and causes, as the pusher saw them);
* left empty: annotations, replay runs, secrets (the pushed text is redacted already:
  nothing is left to reveal), sources and problems.

Which copy: when several members pushed the same session, the copy with the most
messages (then the newest push) is mirrored, as :func:`kb.team.read.resolve` picks.
"""

from __future__ import annotations

import os
import re
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
import pyarrow as pa

from kb.arrow import SCHEMAS, ArrowBatch
from logparse.schema import TABLES

CALL_KINDS = ("command", "result", "todo", "subagent")
"""Events the ``events`` view makes from a ``calls`` row (``todo``/``subagent`` are made
again from the call: not copied)."""


@dataclass
class Mirror:
    """A mirror file and what went into it."""

    path: Path
    teams: list[str]
    copies: list[tuple[str, str, str]] = field(default_factory=list)
    """``(team, pusher, scope)`` of every pushed copy mirrored."""
    sessions: int = 0
    events: int = 0

    def remove(self) -> None:
        """Delete the mirror (its directory, the file and its write-ahead log)."""
        shutil.rmtree(self.path.parent, ignore_errors=True)


def _dicts(cur: Any) -> list[dict[str, Any]]:
    names = [d.name for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def copies(conn: Any, teams: list[str]) -> list[dict[str, Any]]:
    """The pushed scopes to mirror: one copy per scope (most messages, newest push)."""
    return _dicts(conn.execute(
        "SELECT DISTINCT ON (scope) team, pusher::text AS pusher, scope FROM logkb.scopes "
        "WHERE team = ANY(%s) ORDER BY scope, messages DESC, pushed_at DESC", [teams]))


_PREFIX = "logkb-team-"
_OWNED = re.compile(re.escape(_PREFIX) + r"(\d+)-")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # another user's process
    return True


def sweep(directory: str | Path | None = None) -> list[Path]:
    """Delete the mirrors left by processes that are gone (a ``tui --team`` killed before
    its ``finally`` ran); a mirror's folder names the process that made it.  Returns
    what was deleted."""
    base = Path(directory or tempfile.gettempdir())
    gone: list[Path] = []
    try:
        entries = list(base.iterdir())
    except OSError:
        return gone
    for d in entries:
        m = _OWNED.match(d.name)
        try:
            if m is None or not d.is_dir() or d.stat().st_uid != os.getuid():
                continue
        except OSError:
            continue
        if not _alive(int(m.group(1))):
            shutil.rmtree(d, ignore_errors=True)
            if not d.exists():
                gone.append(d)
    return gone


def build(conn: Any, teams: list[str], *, directory: str | Path | None = None,
          on_step: Callable[[str], None] | None = None) -> Mirror:
    """Pull what the role may read of ``teams`` into a new local knowledge base in a
    private temporary directory; the caller deletes it (:meth:`Mirror.remove`).  Mirrors
    that killed processes left behind are swept first (:func:`sweep`)."""
    from kb.store import KbStore

    sweep(directory)
    tmp = Path(tempfile.mkdtemp(prefix=f"{_PREFIX}{os.getpid()}-", dir=directory))
    out = Mirror(tmp / "team.duckdb", teams)
    try:
        with KbStore(out.path, lock_timeout=0) as store:
            seen: set[str] = set()
            for c in copies(conn, teams):
                at = (c["team"], c["pusher"], c["scope"])
                if on_step is not None:
                    on_step(f"{c['pusher']}/{c['scope']}")
                n, e = _copy_scope(conn, store, at, seen)  # a failure removes it all
                out.copies.append(at)
                out.sessions += n
                out.events += e
    except BaseException:
        out.remove()
        raise
    return out


def _copy_scope(conn: Any, store: Any, at: tuple[str, str, str], seen: set[str]
                ) -> tuple[int, int]:
    """One pushed scope into the mirror: ``(sessions, events)`` copied."""
    from logparse.secrets import RULESET

    where = "WHERE team = %s AND pusher = %s AND scope = %s"
    sessions = [s for s in _dicts(conn.execute(
        f"SELECT * FROM logkb.sessions {where} ORDER BY session_id", list(at)))
        if s["session_id"] not in seen]
    sids = [s["session_id"] for s in sessions]
    seen.update(sids)
    messages: dict[str, list[dict[str, Any]]] = {sid: [] for sid in sids}
    for m in _dicts(conn.execute(
            f"SELECT * FROM logkb.messages {where} ORDER BY session_id, ordinal", list(at))):
        if m["session_id"] in messages:
            messages[m["session_id"]].append(m)
    events: dict[str, list[dict[str, Any]]] = {sid: [] for sid in sids}
    for (sid, ev) in conn.execute(
            f"SELECT session_id, event FROM logkb.events {where} ORDER BY session_id, "
            "ordinal, seq", list(at)).fetchall():
        if sid in events:
            events[sid].append(ev)
    total = 0
    for sid in sids:
        store.write_batch(sid, ArrowBatch(_tables(messages[sid], events[sid]), []))
        total += len(events[sid])
    team, pusher, _ = at
    for s in sessions:
        store.conn.execute(
            "INSERT INTO sessions (session_id, parent_id, title, directory, version, "
            "time_created, time_updated, source_form, source_path, complete, message_count, "
            "event_count, ingested_at, info, agent) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, now(), ?, ?)",
            [s["session_id"], s["parent_id"], s["title"], s["directory"], s["version"],
             s["time_created"], s["time_updated"], s["source_form"] or "team",
             f"team {team}, pushed by {pusher}", bool(s["complete"]),
             s["messages"] or 0, s["events"] or 0,
             orjson.dumps({"team": team, "pusher": pusher}).decode(), s["agent"]])
        # the text is redacted already: nothing to scan (and no finder run over it all)
        store.conn.execute("INSERT INTO secret_scans VALUES (?, ?, 0, now())",
                           [s["session_id"], RULESET])
    if sids:
        _graph(conn, store, at)
    return len(sids), total


def _tables(messages: list[dict[str, Any]], events: list[dict[str, Any]]
            ) -> dict[str, pa.Table]:
    """A session's pushed messages and events as the Arrow tables the deriver would have
    handed the store (:data:`kb.arrow.SCHEMAS`)."""
    rows: dict[str, list[dict[str, Any]]] = {"messages": [], "calls": [], "prose": [],
                                             "other": []}
    for m in messages:
        raw = m.get("raw")
        rows["messages"].append({
            **m, "inferred": False, "digest": 0,
            "raw": orjson.dumps(raw).decode() if raw is not None else "{}"})
    calls: dict[tuple[int, int], dict[str, Any]] = {}
    for e in events:
        kind = e["kind"]
        if kind in CALL_KINDS:
            if kind not in ("command", "result"):
                continue
            c = calls.setdefault((e["ordinal"], e["seq"]), {})
            for k in ("ordinal", "seq", "message_id", "part_id", "call_id", "tool",
                      "category", "command", "host", "user", "port", "remote_command",
                      "workdir", "title", "child_session_id"):
                if c.get(k) is None:
                    c[k] = e.get(k)
            if kind == "command":
                c["time_start"] = e.get("time")
                c["input"] = _json(e.get("input"))
                c["hops"] = _json(e.get("hops") or None)
            else:
                c["time_end"] = e.get("time")
                c.update(status=e.get("status"), exit_code=e.get("exit_code"),
                         output=e.get("output"),
                         error_signatures=e.get("error_signatures") or None,
                         measurements=e.get("measurements") or None)
        elif e.get("role") is not None:
            # a push from before events carried their source has none: ``text``
            rows["prose"].append({**e, "source": e.get("source") or "text",
                                  "measurements": e.get("measurements") or None})
        else:
            data = e.get("raw")
            if data is None and e.get("measurements"):
                data = {"measurements": e["measurements"]}
            rows["other"].append({**e, "data": _json(data)})
    for c in calls.values():
        c.setdefault("status", "completed")  # a command whose result was not pushed
        rows["calls"].append(c)
    out = {}
    for name, dicts in rows.items():
        if not dicts:
            continue
        cols = [col for col, _ in TABLES[name]]
        out[name] = pa.Table.from_pylist([{c: d.get(c) for c in cols} for d in dicts],
                                         schema=SCHEMAS[name])
    return out


def _json(v: Any) -> str | None:
    return None if v is None else orjson.dumps(v).decode()


def _graph(conn: Any, store: Any, at: tuple[str, str, str]) -> None:
    """The pushed graph of a scope, persisted as the pusher built it and marked current
    (the TUI never derives it again from the mirror's partial rows)."""
    import networkx as nx

    from kb.graph import store as gs

    scope = at[2]
    g = nx.MultiDiGraph()
    where = "WHERE team = %s AND pusher = %s AND scope = %s"
    for nid, data in conn.execute(
            f"SELECT node_id, data FROM logkb.graph_nodes {where}", list(at)).fetchall():
        if nid not in g:
            g.add_node(nid, **data)
    for src, dst, data in conn.execute(
            f"SELECT src, dst, data FROM logkb.graph_edges {where}", list(at)).fetchall():
        g.add_edge(src, dst, **data)
    fp, messages = gs.fingerprint(store, gs.scope_sessions(store, scope))
    gs.persist(store, scope, g, fp, messages)
    gs.stamp_version(store, scope)
