"""The team read path: ``sessions``, ``deadends``, ``untested``, ``search``, ``why``,
``handoff`` and ``events`` answered from the server, in the shapes of the local
commands (plus ``team`` and ``pusher``).  Row-level security decides what a member
sees; :func:`open_read` also refuses, by name, a team the role is not a member of.

The API (stable: ``logkb report --team``, the MCP tools and the CLI read through it)::

    conn, teams = open_read(url, team)    # url None: --team > $LOGKB_TEAM_URL > config
    try:
        sessions(conn, teams)              # list of session rows (session_json: --json shape)
        items(conn, teams, "deadend")      # also "untested", "decision", "handoff"
        search(conn, teams, text, limit=50, newest=False)  # (hits, engine)
        why(conn, teams, ref)              # who saw it, in which sessions, the causes
        handoff(conn, teams, session)      # the pushed brief of a session (or the newest)
        events(conn, teams, session, start=, end=, kinds=, limit=)  # (session, events)
        measurements(conn, teams)          # the measurement rows
        resolve(conn, teams, session)      # which pushed session a reference names
    finally:
        conn.close()

Every function takes the connection and the teams :func:`open_read` returned, reads
only (the connection is read-only) and returns plain JSON-able data; errors are
:class:`kb.team.server.TeamError` (:class:`~kb.team.server.NotMember` for a team the
role is not in, :class:`TeamNotFound` for a session nobody pushed)."""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

from kb.errors import KbNotFound
from kb.team import server


class TeamNotFound(server.TeamError, KbNotFound):
    """No pushed session (or brief) matches what was asked (exit 6, as locally)."""


def open_read(url: str | None, team: str | None) -> tuple[Any, list[str]]:
    """A read-only connection to the team server and the teams a read covers."""
    conn = server.connect(server.team_url(url), autocommit=True)
    try:
        conn.execute("SET default_transaction_read_only = on")
        teams = server.read_teams(conn, team)
    except BaseException:
        conn.close()
        raise
    return conn, teams


def _dicts(cur: Any) -> list[dict[str, Any]]:
    names = [d.name for d in cur.description]
    return [dict(zip(names, r)) for r in cur.fetchall()]


def sessions(conn: Any, teams: list[str]) -> list[dict[str, Any]]:
    """Every pushed session the role may read, newest activity first."""
    return _dicts(conn.execute(
        "SELECT team, pusher::text AS pusher, session_id, parent_id, agent, title, directory, "
        "version, time_created, time_updated, last_activity, source_form, complete, messages, "
        "events, commands, spawned_at, tokens, cost FROM logkb.sessions "
        "WHERE team = ANY(%s) "
        "ORDER BY coalesce(last_activity, time_updated, 0) DESC, pusher, session_id",
        [teams]))


def session_json(r: dict[str, Any], short: dict[str, str]) -> dict[str, Any]:
    """A pushed session as `sessions --json` prints a local one (its source path stays on
    the pusher's laptop), with its team and pusher (``short``: the short ids)."""
    from kb.sessionref import resume_command

    sid = r["session_id"]
    return {"id": sid, "short_id": short.get(sid, sid),
            "resume": resume_command(r["agent"], sid, r["source_form"]),
            "parent_id": r["parent_id"], "agent": r["agent"],
            "title": r["title"], "current": False, "messages": r["messages"],
            "events": r["events"], "commands": r["commands"],
            "time_created": r["time_created"], "time_updated": r["time_updated"],
            "last_activity": r["last_activity"], "source_form": r["source_form"],
            "source_path": None, "complete": r["complete"], "spawned_at": r["spawned_at"],
            **_tokens_and_cost(r), "team": r["team"], "pusher": r["pusher"]}


def _tokens_and_cost(r: dict[str, Any]) -> dict[str, Any]:
    """``tokens``, ``cost`` and ``cost_complete`` as the local `sessions --json` has them."""
    u = session_usage(r)
    return {"tokens": {k: u.get("tokens_" + k) for k in (
                "input", "output", "reasoning", "cache_read", "cache_write", "total")},
            "cost": u.get("priced_cost"), "cost_complete": not u.get("unpriced")}


def session_usage(r: dict[str, Any]) -> dict[str, Any]:
    """A pushed session's tokens and cost as :func:`kb.views.session_usage` gives a local
    one's (a push records the total, the priced cost and the unpriced count in ``tokens``;
    an older push only the parts and the recorded cost)."""
    t = r.get("tokens") or {}
    parts = [t.get(k) or 0 for k in ("input", "output", "cache_read", "cache_write")]
    out: dict[str, Any] = {"tokens_" + k: v for k, v in t.items()}
    out["tokens_total"] = t.get("total", sum(parts))
    out["priced_cost"] = t.get("priced_cost", r.get("cost"))
    out["unpriced"] = t.get("unpriced", 0)
    out["cost"] = r.get("cost")
    return out


def session_events(conn: Any, teams: list[str], pusher: str, session_id: str
                   ) -> list[dict[str, Any]]:
    """One pushed session's events (``Event.model_dump()`` as pushed: redacted, no raw
    unless the pusher sent it), in timeline order."""
    rows = conn.execute(
        "SELECT event FROM logkb.events WHERE team = ANY(%s) AND pusher = %s "
        "AND session_id = %s ORDER BY ordinal, seq", [teams, pusher, session_id]).fetchall()
    return [r[0] for r in rows]


def scope_sessions(conn: Any, at: dict[str, Any]) -> set[str]:
    """The sessions of one pushed scope (``at``: a :func:`resolve` answer)."""
    rows = conn.execute("SELECT session_id FROM logkb.sessions WHERE team = %s AND "
                        "pusher = %s AND scope = %s",
                        [at["team"], at["pusher"], at["scope"]]).fetchall()
    return {r[0] for r in rows}


def items(conn: Any, teams: list[str], kind: str) -> list[dict[str, Any]]:
    """Dead ends (``deadend``), untested questions (``untested``) or decisions, each the
    local command's object plus its team and pusher."""
    rows = conn.execute(
        "SELECT item, team, pusher::text FROM logkb.items WHERE team = ANY(%s) AND kind = %s "
        "ORDER BY pusher, scope, ordinal NULLS LAST", [teams, kind]).fetchall()
    return [{**item, "team": team, "pusher": pusher} for item, team, pusher in rows]


UNIT_COLUMNS = ("session_id", "message_id", "ordinal", "seq", "field", "kind", "tool",
                "category", "host", "time", "text")
CANDIDATES = 2000
"""Full-text matches ranked at most: past that the first ones the index gives are."""
_IDENT = re.compile(r"^[\w.:/@-]+$")


def search(conn: Any, teams: list[str], text: str, *, limit: int = 50,
           newest: bool = False) -> tuple[list[dict[str, Any]], str]:
    """Full-text search (``websearch_to_tsquery`` on the GIN index) over the search
    units; a substring match through the trigram index when full text finds nothing (an
    identifier, a piece of a path or an error code).  Returns the hits (the local hit
    shape plus team and pusher; identical texts said once, as locally:
    :func:`kb.search.distinct`) and the engine that answered: ``fts``, ``fts-capped``
    (more than :data:`CANDIDATES` matches: the first ones the index gave were ranked)
    or ``trigram``."""
    cols = ", ".join((*UNIT_COLUMNS, "team", "pusher", "score"))
    wanted, limit = limit, limit * 4  # identical hits fold into one (kb.search.distinct)
    hits = _dicts(conn.execute(
        f"SELECT {cols}, capped FROM logkb.search_units(%s, %s, %s, %s, %s)",
        [text, teams, limit, newest, CANDIDATES]))
    engine = "fts"
    capped = [h.pop("capped") for h in hits]
    if any(capped):
        engine = "fts-capped"
    if not hits and len(text.strip()) >= 3:
        hits = _dicts(conn.execute(
            f"SELECT {cols} FROM logkb.substring_units(%s, %s, %s)",
            [text.strip(), teams, limit]))
        engine = "trigram"
    pats = _patterns(text)
    from kb.search import distinct
    from kb.search.scan import snippet

    hits = distinct(hits)[:wanted]
    for h in hits:
        h["score"] = float(h["score"]) if h["score"] is not None else None
        h["snippet"], h["highlights"] = snippet(h["text"] or "", pats)
    return hits, engine


def _patterns(text: str) -> list[tuple[re.Pattern[str], str]]:
    """What to highlight: the query's words (operators and quotes left out)."""
    words = [w for w in re.findall(r"[^\s\"()]+", text)
             if w.lower() not in ("or", "and") and not w.startswith("-")]
    if _IDENT.match(text.strip()):
        words = [text.strip()]
    return [(re.compile(re.escape(w), re.IGNORECASE), "") for w in words]


def why(conn: Any, teams: list[str], ref: str, *, limit: int = 20) -> dict[str, Any]:
    """Who saw ``ref`` (an error, a name) across everyone's sessions, and the causes the
    dead ends it matches ended with: "seen by N people in M sessions; the cause was …"."""
    like = "%" + re.sub(r"([\\%_])", r"\\\1", ref.strip()) + "%"
    seen: list[tuple[str, str, str, list[int]]] = []
    for fn, args in (("search_units", [ref, teams, 5000, False, 5000]),
                     ("substring_units", [ref.strip(), teams, 5000])):
        if seen:
            break  # the substring scan only when full text finds nothing
        seen += conn.execute(
            f"SELECT team, pusher, session_id, array_agg(DISTINCT ordinal) "
            f"FROM logkb.{fn}({', '.join(['%s'] * len(args))}) "
            "WHERE field IN ('output', 'other') GROUP BY 1, 2, 3", args).fetchall()
    dead = conn.execute(
        "SELECT item, team, pusher::text FROM logkb.items WHERE team = ANY(%s) AND "
        "kind = 'deadend' AND (concat_ws(' ', item->>'name', item->>'cause', item->>'why') "
        "ILIKE %s OR to_tsvector('simple', concat_ws(' ', item->>'name', item->>'cause', "
        "item->>'why')) @@ websearch_to_tsquery('simple', %s)) "
        "ORDER BY pusher, scope, ordinal", [teams, like, ref]).fetchall()
    deadends = [{**item, "team": team, "pusher": pusher} for item, team, pusher in dead]
    sightings: dict[tuple[str, str, str], set[int]] = {}
    for team, pusher, sid, ordinals in seen:
        sightings.setdefault((team, pusher, sid), set()).update(o for o in ordinals if o)
    for d in deadends:
        ords = {e["ordinal"] for e in d.get("evidence", []) if e.get("ordinal")}
        sightings.setdefault((d["team"], d["pusher"], d["session_id"]), set()).update(ords)
    causes = Counter((d.get("cause"), d.get("why")) for d in deadends if d.get("cause"))
    people = sorted({p for _, p, _ in sightings})
    return {
        "ref": ref, "people": len(people), "sessions": len(sightings), "pushers": people,
        "causes": [{"cause": c, "why": w, "count": n} for (c, w), n in causes.most_common()],
        "seen": [{"team": t, "pusher": p, "session_id": s, "ordinals": sorted(o)[:limit]}
                 for (t, p, s), o in sorted(sightings.items())],
        "deadends": deadends,
    }


def why_text(w: dict[str, Any]) -> str:
    """The answer of :func:`why` in words."""
    n, m = w["people"], w["sessions"]
    if not m:
        return f"nobody in the team has seen {w['ref']!r}"
    head = (f"{w['ref']!r} was seen by {n} {'person' if n == 1 else 'people'} in {m} "
            f"session{'' if m == 1 else 's'}")
    if w["causes"]:
        top = w["causes"][0]
        head += f"; the cause was {top['cause']}"
        if len(w["causes"]) > 1:
            head += f" (and {len(w['causes']) - 1} other cause" \
                    f"{'' if len(w['causes']) == 2 else 's'})"
    else:
        head += "; no dead end names a cause"
    lines = [head]
    for s in w["seen"]:
        shown = ", ".join(str(o) for o in s["ordinals"][:8])
        lines.append(f"  {s['pusher']} in {s['session_id']}: messages {shown}"
                     + (" …" if len(s["ordinals"]) > 8 else ""))
    for d in w["deadends"]:
        lines.append(f"  dead end ({d['pusher']}): {d['name']} [{d['status']}]"
                     + (f": {d['cause']}" if d.get("cause") else ""))
    return "\n".join(lines)


def counts(conn: Any) -> dict[str, Any]:
    """How many rows of each kind the role can read (``team status``)."""
    tbls = ("scopes", "sessions", "events", "units", "items")
    row = conn.execute("SELECT " + ", ".join(
        f"(SELECT count(*) FROM logkb.{t})" for t in tbls)).fetchone()
    return dict(zip(tbls, row))


def resolve(conn: Any, teams: list[str], session: str | None) -> dict[str, Any]:
    """The pushed session ``session`` names (its id or a unique prefix of one; None: the
    top-level session with the newest activity): ``{team, pusher, session_id, scope}``.
    When several members pushed the same session, the copy with the most messages
    (then the newest push) answers."""
    rows = _dicts(conn.execute(
        "SELECT s.team, s.pusher::text AS pusher, s.session_id, s.scope, s.parent_id "
        "FROM logkb.sessions s JOIN logkb.scopes c USING (team, pusher, scope) "
        "WHERE s.team = ANY(%s) AND (%s::text IS NULL AND s.parent_id IS NULL OR "
        "s.session_id LIKE %s) "
        "ORDER BY CASE WHEN %s::text IS NULL THEN coalesce(s.last_activity, s.time_updated, "
        "0) ELSE 0 END DESC, s.session_id = %s DESC, c.messages DESC, c.pushed_at DESC",
        [teams, session, _prefix(session) if session else None, session, session or ""]))
    if not rows:
        what = f"no pushed session matches {session!r}" if session else "no session pushed"
        raise TeamNotFound(f"{what} in team {', '.join(teams)}")
    if session is not None and rows[0]["session_id"] != session:
        ids = sorted({r["session_id"] for r in rows})
        if len(ids) > 1:
            raise TeamNotFound(f"{session!r} names {len(ids)} pushed sessions "
                               f"({', '.join(ids[:4])}{', …' if len(ids) > 4 else ''}): "
                               "give more of the id")
    r = rows[0]
    return {k: r[k] for k in ("team", "pusher", "session_id", "scope")}


def _prefix(session: str | None) -> str:
    return re.sub(r"([\\%_])", r"\\\1", session or "") + "%"


def handoff(conn: Any, teams: list[str], session: str | None) -> dict[str, Any]:
    """The brief ``logkb handoff --json`` prints for the scope of ``session``, as its
    pusher pushed it (plus ``team`` and ``pusher``)."""
    at = resolve(conn, teams, session)
    row = conn.execute(
        "SELECT item FROM logkb.items WHERE team = %s AND pusher = %s AND scope = %s AND "
        "kind = 'handoff'", [at["team"], at["pusher"], at["scope"]]).fetchone()
    if row is None:
        raise TeamNotFound(f"{at['scope']} was pushed without its brief (by an older logkb):"
                           " push it again with `logkb push --force`")
    return {**row[0], "team": at["team"], "pusher": at["pusher"]}


def events(conn: Any, teams: list[str], session: str | None, *, start: int | None = None,
           end: int | None = None, kinds: list[str] | None = None, limit: int | None = None
           ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """A range of one pushed session's typed events (``logkb events --json`` objects,
    ``raw`` left out unless pushed with ``--include-raw``): ``(resolve(...), events)``."""
    at = resolve(conn, teams, session)
    rows = conn.execute(
        "SELECT event FROM logkb.events WHERE team = %s AND pusher = %s AND session_id = %s "
        "AND (%s::int IS NULL OR ordinal >= %s) AND (%s::int IS NULL OR ordinal <= %s) "
        "AND (%s::text[] IS NULL OR lower(kind) = ANY(%s)) ORDER BY ordinal, seq "
        "LIMIT %s",
        [at["team"], at["pusher"], at["session_id"], start, start, end, end,
         [k.lower() for k in kinds] if kinds else None,
         [k.lower() for k in kinds] if kinds else None, limit]).fetchall()
    return at, [r[0] for r in rows]


def measurements(conn: Any, teams: list[str]) -> list[dict[str, Any]]:
    """Every measurement the role may read (value, unit, label, command, where)."""
    return _dicts(conn.execute(
        "SELECT team, pusher::text AS pusher, session_id, ordinal, value, unit, label, "
        "command FROM logkb.measurements WHERE team = ANY(%s) "
        "ORDER BY pusher, session_id, ordinal", [teams]))
