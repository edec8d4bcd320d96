"""Compact, cited answers for an agent asking its knowledge base (the MCP tools).

An agent's context is precious: every answer here is small (capped lists, one
line per item, long text cut with a note saying so) and cites where it comes
from as ``session#ordinal`` so the agent can ask for the events there.  Each call
opens the knowledge base read-only for the moment it reads and closes it again,
so ``logkb ingest`` / ``watch`` in another process are never locked out for long.
A graph that was never derived is derived once, read-write, then read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from kb.records import Measurement
from kb.store import KbStore
from logparse.measure_plumbing import is_plumbing_reading

MAX_ITEMS = 25
"""Longest list an answer carries (the rest is counted, not sent)."""
TEXT_CAP = 400
"""Characters of one command, output or prose excerpt."""


def cite(session_id: str, ordinal: int | None) -> str:
    """``ses_…#5216``: where an answer comes from."""
    return f"{session_id}#{ordinal}" if ordinal is not None else session_id


def _cut(text: str | None, cap: int = TEXT_CAP) -> str | None:
    if text is None:
        return None
    text = text.strip()
    return text if len(text) <= cap else text[:cap - 1] + "…"


def _words(about: str | None) -> list[str]:
    return [w for w in re.split(r"[^\w.+-]+", (about or "").lower()) if len(w) > 1]


def _capped(items: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    limit = max(1, min(limit, 200))
    out: dict[str, Any] = {"items": items[:limit], "count": len(items)}
    if len(items) > limit:
        out["more"] = len(items) - limit
    return out


class Answers:
    """Answers over one knowledge base file."""

    def __init__(self, db: str | Path, *, wait: float | None = None) -> None:
        self.path = str(db)
        self.wait = wait

    # ------------------------------------------------------------- access
    @contextmanager
    def _store(self) -> Iterator[KbStore]:
        store = KbStore(self.path, read_only=True, lock_timeout=self.wait)
        try:
            yield store
        finally:
            store.close()

    @contextmanager
    def _graph(self, session: str | None, all_sessions: bool
               ) -> Iterator[tuple[KbStore, list[str]]]:
        """A read-only store and the graph scopes asked for (derived first if never built)."""
        from kb.graph import store as gs

        with self._store() as store:
            wanted = (gs.scopes(store) if all_sessions
                      else [gs.scope_of(store, store.resolve_session(session))])
            missing = gs.unbuilt(store, wanted)  # never built, or owed by a broken ingest
        if missing:
            with KbStore(self.path, read_only=False, lock_timeout=self.wait) as rw:
                _, left = gs.rebuild_many(rw, missing)  # small scopes together
                for s in left:
                    gs.rebuild(rw, s)
        with self._store() as store:
            yield store, wanted

    # ------------------------------------------------------------ answers
    def search(self, query: str, *, session: str | None = None,
               limit: int = 10) -> dict[str, Any]:
        """Commands, outputs and prose matching ``query`` (the full-text index), best first."""
        from kb.search import search as run_search

        found = run_search(self.path, query, session_id=session,
                           limit=max(1, min(limit, 50)) + 1)
        items = [{"cite": cite(h["session_id"], h["ordinal"]), "field": h["field"],
                  "kind": h.get("kind"),
                  "text": _cut(h.get("snippet") or h.get("text") or "", 240)}
                 for h in found.hits]
        return _capped(items, limit)

    def deadends(self, about: str | None = None, *, session: str | None = None,
                 all_sessions: bool = True, limit: int = 10) -> dict[str, Any]:
        """Approaches that ended, with cause and evidence; ``about`` filters by words."""
        from kb.graph import store as gs

        with self._graph(session, all_sessions and session is None) as (store, scopes):
            items = gs.dead_ends(store, scopes)
        return _deadend_answers(items, about, limit)

    def why(self, name: str, *, session: str | None = None,
            all_sessions: bool = True) -> dict[str, Any]:
        """One approach's story: proposed, tested, outcome, why it ended, what replaced it."""
        from kb.graph import report

        with self._graph(session, all_sessions and session is None) as (store, scopes):
            story = report.story(store, scopes, name)
        a = story["approach"]
        # which session answered (every session is asked unless one is named), cited as
        # the other tools cite: session#ordinal
        return {"session": a.get("session_id"),
                "cite": f"{a.get('session_id')}#{a.get('ordinal')}", **_compact_story(story)}

    def untested(self, *, session: str | None = None, all_sessions: bool = True,
                 answered: bool = False, limit: int = 20) -> dict[str, Any]:
        """Checks whose result never answered them (transport failures, aborts, timeouts)."""
        from kb.graph import store as gs

        with self._graph(session, all_sessions and session is None) as (store, scopes):
            items = gs.untested(store, scopes, include_answered=answered)
        return _untested_answers(items, limit)

    def handoff(self, *, session: str | None = None, max_tokens: int = 1500) -> dict[str, Any]:
        """The Markdown brief of one session, fitted to about ``max_tokens`` tokens (what a
        successor can look up first is dropped first; ordinals stay cited)."""
        from kb import handoff as brief

        with self._graph(session, False) as (store, scopes):
            data = brief.brief(store, scopes[0])
        return {"session": scopes[0],
                "markdown": brief.markdown(data, max_tokens=max(100, max_tokens))}

    def events(self, *, session: str | None = None, start: int | None = None,
               end: int | None = None, kinds: list[str] | None = None,
               limit: int = 40) -> dict[str, Any]:
        """A range of one session's typed events, one compact line each."""
        with self._store() as store:
            sid = store.resolve_session(session)
            evs = store.events(sid, kinds=kinds or (), start=start, end=end,
                               limit=max(1, min(limit, 200)) + 1)
        return {"session": sid, **_capped([_event(e) for e in evs], limit)}


class TeamAnswers:
    """The same answers from the team server (``logkb mcp --team``): what every member
    pushed, each item with its ``pusher``; ``why`` answers who saw an error or a name
    across everyone's sessions and the causes (the team ``why``).  Each call opens a
    read-only connection for the moment it reads."""

    def __init__(self, url: str | None, team: str | None = None) -> None:
        from kb.team import server

        self.url = server.team_url(url)
        self.team = team

    @contextmanager
    def _read(self) -> Iterator[tuple[Any, list[str]]]:
        from kb.team import read

        conn, teams = read.open_read(self.url, self.team)
        try:
            yield conn, teams
        finally:
            conn.close()

    def _scoped(self, conn: Any, teams: list[str], session: str | None,
                items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if session is None:
            return items
        from kb.team import read

        at = read.resolve(conn, teams, session)
        return [d for d in items if d.get("pusher") == at["pusher"]
                and d.get("session_id") in _scope_sessions(conn, at)]

    def search(self, query: str, *, session: str | None = None,
               limit: int = 10) -> dict[str, Any]:
        """Commands, outputs and prose matching ``query`` (full text on the server)."""
        from kb.team import read

        with self._read() as (conn, teams):
            n = max(1, min(limit, 50)) + 1
            hits, _ = read.search(conn, teams, query, limit=n if session is None else 500)
            if session is not None:
                at = read.resolve(conn, teams, session)
                hits = [h for h in hits if h["session_id"] == at["session_id"]
                        and h["pusher"] == at["pusher"]][:n]
        items = [{"cite": cite(h["session_id"], h["ordinal"]), "field": h["field"],
                  "kind": h.get("kind"), "pusher": h["pusher"],
                  "text": _cut(h.get("snippet") or h.get("text") or "", 240)} for h in hits]
        return _capped(items, limit)

    def deadends(self, about: str | None = None, *, session: str | None = None,
                 all_sessions: bool = True, limit: int = 10) -> dict[str, Any]:
        """Everyone's dead ends, with cause, evidence and who pushed them."""
        from kb.team import read

        with self._read() as (conn, teams):
            items = self._scoped(conn, teams, session, read.items(conn, teams, "deadend"))
        return _deadend_answers(items, about, limit)

    def why(self, name: str, *, session: str | None = None,
            all_sessions: bool = True) -> dict[str, Any]:
        """Who in the team saw ``name`` (an error, an approach), in which sessions, and
        the causes the matching dead ends ended with."""
        from kb.team import read

        with self._read() as (conn, teams):
            w = read.why(conn, teams, name)
        w["answer"] = read.why_text(w).split("\n", 1)[0]
        return _compact_story(w)

    def untested(self, *, session: str | None = None, all_sessions: bool = True,
                 answered: bool = False, limit: int = 20) -> dict[str, Any]:
        """Everyone's checks whose result never answered them."""
        from kb.team import read

        with self._read() as (conn, teams):
            items = self._scoped(conn, teams, session, read.items(conn, teams, "untested"))
        if not answered:
            items = [q for q in items if q.get("status") == "open"]
        return _untested_answers(items, limit)

    def handoff(self, *, session: str | None = None, max_tokens: int = 1500) -> dict[str, Any]:
        """The brief of one pushed session (the newest without ``session``)."""
        from kb import handoff as brief
        from kb.team import read

        with self._read() as (conn, teams):
            data = read.handoff(conn, teams, session)
        who = {"team": data.pop("team"), "pusher": data.pop("pusher")}
        return {"session": data["session"]["id"], **who,
                "markdown": brief.markdown(data, max_tokens=max(100, max_tokens))}

    def events(self, *, session: str | None = None, start: int | None = None,
               end: int | None = None, kinds: list[str] | None = None,
               limit: int = 40) -> dict[str, Any]:
        """A range of one pushed session's typed events, one compact line each."""
        from types import SimpleNamespace

        from kb.team import read

        with self._read() as (conn, teams):
            at, evs = read.events(conn, teams, session, start=start, end=end, kinds=kinds,
                                  limit=max(1, min(limit, 200)) + 1)
        shown = []
        for e in evs:
            ms = [str(Measurement(m["value"], m.get("unit") or "", m.get("label") or ""))
                  for m in e.get("measurements") or [] if isinstance(m, dict)
                  and not is_plumbing_reading(m.get("unit"), m.get("label"))]
            shown.append(_event(SimpleNamespace(**{**e, "measurements": ms})))
        return {"session": at["session_id"], "pusher": at["pusher"], **_capped(shown, limit)}


def _scope_sessions(conn: Any, at: dict[str, Any]) -> set[str]:
    from kb.team import read

    return read.scope_sessions(conn, at)


def _deadend_answers(items: list[dict[str, Any]], about: str | None,
                     limit: int) -> dict[str, Any]:
    """Dead ends as an agent gets them: those mentioning ``about``'s words, best first."""
    words = _words(about)
    scored = []
    for d in items:
        hay = " ".join([d.get("name") or "", d.get("cause") or "",
                        " ".join(d.get("aliases") or []),
                        " ".join(e.get("note") or "" for e in d.get("evidence") or [])]
                       ).lower()
        hits = sum(1 for w in words if w in hay)
        if words and not hits:
            continue
        scored.append((-hits, d))
    scored.sort(key=lambda t: t[0])
    out = [{
        "name": d["name"], "status": d["status"], "cause": d.get("cause"),
        "cite": cite(d["session_id"], d.get("ended_at") or d.get("proposed_at")),
        "evidence": sorted({e["ordinal"] for e in d.get("evidence") or []
                            if e.get("ordinal") is not None}),
        "revisit": d.get("revisit"),
    } | ({"pusher": d["pusher"]} if "pusher" in d else {}) for _, d in scored]
    return _capped(out, limit)


def _untested_answers(items: list[dict[str, Any]], limit: int) -> dict[str, Any]:
    out = [{"cite": cite(q["session_id"], q["ordinal"]), "question": q["question"],
            "reason": q["reason"], "status": q["status"],
            "answered_at": q.get("answered_at"), "host": q.get("host")}
           | ({"pusher": q["pusher"]} if "pusher" in q else {}) for q in items]
    return _capped(out, limit)


def _event(e: Any) -> dict[str, Any]:
    kind = str(getattr(e, "kind", ""))
    d: dict[str, Any] = {"ordinal": e.ordinal, "kind": kind.rsplit(".", 1)[-1].lower()}
    for key in ("tool", "category", "host", "status", "exit_code", "error_signature",
                "classification"):
        v = getattr(e, key, None)
        if v not in (None, "", []):
            d[key] = str(v) if key != "exit_code" else v
    for key in ("command", "text", "output"):
        v = _cut(getattr(e, key, None), 300 if key == "output" else TEXT_CAP)
        if v:
            d[key] = v
    # the agent's plumbing (a token counter) is no measurement of the work (issue 22)
    ms = [m for m in getattr(e, "measurements", None) or []
          if not is_plumbing_reading(getattr(m, "unit", None), getattr(m, "label", None))]
    if ms:
        d["measurements"] = [str(m) for m in ms[:5]]
    return d


def _compact_story(s: dict[str, Any]) -> dict[str, Any]:
    """The story without the long lists an agent does not need."""
    out: dict[str, Any] = {}
    for key, value in s.items():
        if isinstance(value, list):
            out[key] = value[:MAX_ITEMS]
            if len(value) > MAX_ITEMS:
                out[f"{key}_more"] = len(value) - MAX_ITEMS
        elif isinstance(value, str):
            out[key] = _cut(value, 1000)
        else:
            out[key] = value
    return out
