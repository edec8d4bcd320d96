"""``logkb push``: a local scope's derived, redacted knowledge onto the team server.

What is sent is read through the local store's read API, already redacted by
its :class:`~kb.redact.Redactor` (hiding, whatever ``--show-secrets`` says):
session rows, message metadata, the typed events, the search units, dead ends
with causes and evidence, untested questions, decisions, measurements and the
knowledge graph.  Raw message JSON only with ``include_raw`` (redacted too).

One scope (a top-level session with its subagents) is one transaction: its
old rows are deleted and the new ones copied in, so a push is idempotent and a
dropped connection leaves the server as it was for that scope.  A push whose
copy is older (fewer messages, or an older last message) than what the pusher
stored before is skipped: it never removes what a newer push stored.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from kb.team.server import TeamError

if TYPE_CHECKING:
    from kb.store import KbStore

TABLES: dict[str, tuple[str, ...]] = {
    "sessions": ("session_id", "parent_id", "agent", "title", "directory", "version",
                 "time_created", "time_updated", "last_activity", "source_form", "complete",
                 "messages", "events", "commands", "spawned_at", "tokens", "cost"),
    "messages": ("session_id", "message_id", "ordinal", "role", "time_created",
                 "time_completed", "agent", "model", "finish", "error", "tokens_input",
                 "tokens_output", "cost", "raw"),
    "events": ("session_id", "ordinal", "seq", "kind", "error_signature", "event"),
    "units": ("session_id", "message_id", "ordinal", "seq", "field", "kind", "tool",
              "category", "host", "time", "text"),
    "items": ("session_id", "kind", "ordinal", "item"),
    "measurements": ("session_id", "ordinal", "value", "unit", "label", "command"),
    "graph_nodes": ("node_id", "type", "data"),
    "graph_edges": ("src", "dst", "type", "data"),
}
"""The pushed tables and their columns (besides team, pusher and scope)."""

RETRIES = 3
"""Attempts per scope when the connection drops."""


@dataclass
class Payload:
    """What one scope sends."""

    scope: str
    title: str | None
    messages: int
    last_time: int | None
    events: int
    raw: bool
    rows: dict[str, list[tuple[Any, ...]]] = field(default_factory=dict)


@dataclass
class Sent:
    """What happened to one scope."""

    scope: str
    status: str
    """``sent``, ``unchanged`` (the server holds this copy), ``older`` (the server holds a
    newer copy: kept), or ``failed``."""
    rows: dict[str, int] = field(default_factory=dict)
    attempts: int = 0
    seconds: float = 0.0
    error: str | None = None
    server: dict[str, Any] | None = None

    def as_json(self) -> dict[str, Any]:
        return {"scope": self.scope, "status": self.status, "rows": self.rows,
                "attempts": self.attempts, "seconds": round(self.seconds, 3),
                "error": self.error, "server": self.server}


# ------------------------------------------------------------------ the local side
def marker(store: KbStore, scope: str) -> tuple[int, int | None, int]:
    """``(messages, last message time, events)`` of a local scope: what tells copies apart."""
    from kb.graph import store as gs

    sids = gs.scope_sessions(store, scope)
    row = store.conn.execute(
        "SELECT (SELECT count(*) FROM messages WHERE session_id IN (SELECT unnest($s))), "
        "(SELECT max(time_created) FROM messages WHERE session_id IN (SELECT unnest($s))), "
        "(SELECT coalesce(sum(event_count), 0) FROM sessions "
        " WHERE session_id IN (SELECT unnest($s)))", {"s": sids}).fetchone()
    assert row is not None
    return int(row[0]), (int(row[1]) if row[1] is not None else None), int(row[2])


_NUL_JSON = re.compile(r"(?<!\\)((?:\\\\)*)\\u0000")


def _json(v: Any) -> str:
    """JSON for a jsonb column (PostgreSQL refuses NUL: it becomes U+FFFD)."""
    s = orjson.dumps(v, default=str).decode()
    return _NUL_JSON.sub(r"\1\\ufffd", s) if "\\u0000" in s else s


def _text(v: Any) -> Any:
    return v.replace("\x00", "\ufffd") if isinstance(v, str) and "\x00" in v else v


_HELD_BACK = {"redacted": "this raw record held a secret logkb could not cut out"}


def _scanned_json(v: Any) -> str:
    """JSON for a raw record, the finder run over its text (safe13): a raw record holds
    what no derived field does (a timestamp, an id, a field the reader does not know,
    ``{"admin_pass": "…"}`` as a key and its value), which the ingest's scan never read,
    so the redactor knows no value of it.  Each finding lies inside a JSON string, so
    the text stays JSON; when it does not, the record is held back whole."""
    from logparse.secrets import redact_text

    s = _json(v)
    hidden = redact_text(s, depth=3)
    if hidden == s:
        return s
    try:
        orjson.loads(hidden)
    except orjson.JSONDecodeError:
        return _json(_HELD_BACK)
    return hidden


def collect(store: KbStore, scope: str, *, include_raw: bool = False) -> Payload:
    """A scope's rows as the server takes them, every text redacted."""
    from kb import views
    from kb.graph import store as gs
    from kb.search.scan import units

    if store.reveal_secrets:
        raise TeamError("refusing to push from a store that reveals secrets")
    hide = store.redactor.hiding()
    sids = gs.scope_sessions(store, scope)
    messages, last_time, event_count = marker(store, scope)
    rows: dict[str, list[tuple[Any, ...]]] = {t: [] for t in TABLES}
    usage = views.session_usage(store)
    title = None
    for s in store.sessions():
        sid = s["session_id"]
        if sid not in sids:
            continue
        if sid == scope:
            title = hide.text(s["title"])
        u = usage.get(sid, {})
        tokens = {k.removeprefix("tokens_"): u.get(k) for k in (
            "tokens_input", "tokens_output", "tokens_reasoning", "tokens_cache_read",
            "tokens_cache_write", "tokens_total", "priced_cost", "unpriced")}
        rows["sessions"].append((
            sid, s["parent_id"], s.get("agent"), _text(hide.text(s["title"])),
            _text(hide.text(s["directory"])), s["version"], s["time_created"],
            s["time_updated"], s["last_activity"], s["source_form"], s["complete"],
            s["messages"], s["events"], s["commands"], s["spawned_at"], _json(tokens),
            u.get("cost")))
    raw_col = "raw" if include_raw else "NULL"
    for sid in sids:
        for m in store.rows(
                "SELECT message_id, ordinal, role, time_created, time_completed, agent, model, "
                f"finish, error, tokens_input, tokens_output, cost, {raw_col} AS raw "
                "FROM messages WHERE session_id = ? ORDER BY ordinal", [sid]):
            raw = m["raw"]
            if raw is not None:
                raw = _scanned_json(hide.value(orjson.loads(raw) if isinstance(raw, str)
                                               else raw))
            rows["messages"].append((
                sid, m["message_id"], m["ordinal"], m["role"], m["time_created"],
                m["time_completed"], m["agent"], _text(m["model"]), m["finish"],
                _text(m["error"]), m["tokens_input"], m["tokens_output"], m["cost"], raw))
        for e in store.events(sid):
            d = e.model_dump()
            if not include_raw:
                d["raw"] = None
            rows["events"].append((sid, e.ordinal, e.seq, d["kind"], _text(e.error_signature),
                                   _scanned_json(d) if include_raw else _json(d)))
        for u in units(store, sid):
            rows["units"].append(tuple(_text(x) for x in u))
    for kind, items in (("deadend", gs.dead_ends(store, [scope])),
                        ("untested", gs.untested(store, [scope])),
                        ("decision", gs.decisions(store, [scope]))):
        for it in hide.value(items):
            ordinal = it.get("proposed_at", it.get("ordinal"))
            rows["items"].append((it.get("session_id"), kind, ordinal, _json(it)))
    from kb import handoff as brief

    # the brief `logkb handoff` prints, so that `handoff --team` answers without the file
    rows["items"].append((scope, "handoff", None, _json(hide.value(brief.brief(store, scope)))))
    for m in hide.value(gs.measurements(store, [scope])):
        rows["measurements"].append((m["session_id"], m["ordinal"], m["value"], m["unit"],
                                     _text(m["label"]), _text(m["command"])))
    g = gs.load_graph(store, [scope])
    for nid, d in g.nodes(data=True):
        rows["graph_nodes"].append((nid, d.get("type"), _json(hide.value(dict(d)))))
    for src, dst, d in g.edges(data=True):
        rows["graph_edges"].append((src, dst, d.get("type"), _json(hide.value(dict(d)))))
    return Payload(scope, title, messages, last_time, event_count, include_raw, rows)


# ----------------------------------------------------------------- the server side
def server_marker(conn: Any, team: str, scope: str, *, lock: bool = False
                  ) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT messages, last_time, events, raw_included, pushed_at FROM logkb.scopes "
        "WHERE team = %s AND pusher = current_user AND scope = %s"
        + (" FOR UPDATE" if lock else ""), [team, scope]).fetchone()
    if row is None:
        return None
    return {"messages": row[0], "last_time": row[1], "events": row[2], "raw": row[3],
            "pushed_at": row[4].isoformat()}


def verdict(local: tuple[int, int | None, int, bool], srv: dict[str, Any] | None,
            force: bool = False) -> str | None:
    """``older``/``unchanged`` when the push must not (or need not) replace the server's
    copy, else None."""
    if srv is None:
        return None
    messages, last_time, events, raw = local
    if srv["messages"] > messages or (srv["last_time"] or 0) > (last_time or 0):
        return "older"
    if not force and (srv["messages"], srv["last_time"], srv["events"], srv["raw"]) == (
            messages, last_time, events, raw):
        return "unchanged"
    return None


def send(conn: Any, team: str, p: Payload, *, force: bool = False,
         on_step: Callable[[str], None] | None = None) -> Sent:
    """Replace the pusher's rows of one scope in one transaction (or keep a newer copy)."""
    started = time.perf_counter()
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtextextended(%s || current_user, 0))",
                     [f"{team}/{p.scope}/"])
        srv = server_marker(conn, team, p.scope, lock=True)
        why = verdict((p.messages, p.last_time, p.events, p.raw), srv, force)
        if why is not None:
            return Sent(p.scope, why, server=srv, seconds=time.perf_counter() - started)
        for table in TABLES:
            conn.execute(f"DELETE FROM logkb.{table} WHERE team = %s AND "
                         "pusher = current_user AND scope = %s", [team, p.scope])
        conn.execute("DELETE FROM logkb.scopes WHERE team = %s AND pusher = current_user "
                     "AND scope = %s", [team, p.scope])
        counts: dict[str, int] = {}
        for table, cols in TABLES.items():
            data = p.rows.get(table, [])
            counts[table] = len(data)
            if not data:
                continue
            _copy_in(conn, table, cols, team, p.scope, data)
            if on_step is not None:
                on_step(table)
        conn.execute(
            "INSERT INTO logkb.scopes (team, scope, title, messages, last_time, events, "
            "raw_included) VALUES (%s, %s, %s, %s, %s, %s, %s)",
            [team, p.scope, _text(p.title), p.messages, p.last_time, p.events, p.raw])
    return Sent(p.scope, "sent", counts, seconds=time.perf_counter() - started)


def _copy_in(conn: Any, table: str, cols: Sequence[str], team: str, scope: str,
             data: Iterable[tuple[Any, ...]]) -> None:
    """COPY into a temporary table, then INSERT … SELECT (PostgreSQL refuses COPY into a
    table with row-level security to anyone but its owner)."""
    all_cols = ", ".join(("team", "scope", *(f'"{c}"' for c in cols)))
    tmp = f"_push_{table}"
    conn.execute(f"CREATE TEMP TABLE IF NOT EXISTS {tmp} ON COMMIT DROP AS "
                 f"SELECT {all_cols} FROM logkb.{table} WITH NO DATA")
    with conn.cursor() as cur, cur.copy(f"COPY {tmp} ({all_cols}) FROM STDIN") as cp:
        for row in data:
            cp.write_row((team, scope, *row))
    conn.execute(f"INSERT INTO logkb.{table} ({all_cols}) SELECT {all_cols} FROM {tmp}")
    conn.execute(f"DROP TABLE {tmp}")


def push(url: str, store: KbStore, scopes: Sequence[str], *, team: str | None = None,
         include_raw: bool = False, force: bool = False,
         on_step: Callable[[str], None] | None = None,
         progress: Callable[[Sent], None] | None = None) -> tuple[str, list[Sent]]:
    """Push some scopes, each in its own transaction; a dropped connection is reopened and
    the scope sent again (up to :data:`RETRIES` attempts).  Returns the team and what
    happened to each scope."""
    import psycopg

    from kb.team import server

    conn = server.connect(url)
    out: list[Sent] = []
    try:
        team = server.choose_team(conn, team)
        conn.rollback()
        for scope in scopes:
            messages, last_time, events = marker(store, scope)
            try:
                srv = server_marker(conn, team, scope)
                conn.rollback()
            except psycopg.OperationalError:
                srv = None
                conn = _reconnect(conn, url)
            skip = verdict((messages, last_time, events, include_raw), srv, force)
            if skip is not None:
                res = Sent(scope, skip, server=srv)
            else:
                payload = collect(store, scope, include_raw=include_raw)
                res = Sent(scope, "failed")
                for attempt in range(1, RETRIES + 1):
                    try:
                        res = send(conn, team, payload, force=force, on_step=on_step)
                        res.attempts = attempt
                        break
                    except psycopg.OperationalError as e:
                        res = Sent(scope, "failed", attempts=attempt,
                                   error=server.scrub(" ".join(str(e).split())))
                        conn = _reconnect(conn, url)
                    except psycopg.errors.InsufficientPrivilege as e:
                        raise TeamError(f"the server refused the push of {scope}: "
                                        f"{server.scrub(' '.join(str(e).split()))}") from None
            out.append(res)
            if progress is not None:
                progress(res)
    finally:
        conn.close()
    return team, out


def _reconnect(conn: Any, url: str) -> Any:
    from kb.team import server

    try:
        conn.close()
    except Exception:  # noqa: BLE001 - it is gone already
        pass
    return server.connect(url)
