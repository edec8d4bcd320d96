"""Full-text search over the knowledge base: a tantivy index beside the DuckDB file.

:mod:`kb.search.query` reads the query language (pure), :mod:`kb.search.index`
keeps the index (tantivy) and :mod:`kb.search.scan` holds the search units'
SQL and the DuckDB scan that answers when there is no index (and for
``--regex``).  :func:`search` is what ``logkb search`` and the TUI call; this
module imports neither tantivy nor DuckDB until a search runs.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kb.store import KbStore


@dataclass
class Found:
    """What a search found, and how."""

    hits: list[dict[str, Any]]
    engine: str
    """``index`` or ``scan``."""
    notes: list[str] = field(default_factory=list)
    """Why the scan answered, or what the index had to catch up on (for stderr)."""
    sessions: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Every session of the knowledge base: ``{id: {agent, title, top}}`` (``top``: not a
    subagent's), so hits can be named without opening DuckDB; empty when unknown."""


def search(db_path: str | Path, text: str, *, regex: bool = False,
           session_id: str | None = None, limit: int = 50, newest: bool = False,
           reveal: bool = False) -> Found:
    """Search the knowledge base file ``db_path`` (opened read-only only when needed).

    The index answers when it can: at once when the database file did not change
    since it was last synced, else after catching up (:meth:`SearchIndex.sync`).
    ``regex``, or an index that cannot be used, gets the DuckDB scan.  Identical hits
    are one (:func:`distinct`); up to ``limit`` distinct ones are returned."""
    n = limit
    while True:
        found = _search(db_path, text, regex=regex, session_id=session_id, limit=n,
                        newest=newest, reveal=reveal)
        hits = distinct(found.hits)
        if len(hits) >= limit or len(found.hits) < n or n >= 1 << 16:
            found.hits = hits[:limit]
            return found
        n *= 4


def distinct(hits: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """``hits`` with each text said once, in order: a hit of the same text as one before
    it in the same message (a prose part and its copy in an output), or a todo list the
    session wrote again with the same items (each snapshot differs only by the items'
    status, which is not searched: will-it-rain's plan came back seven times as seven
    identical hits), is folded into one: the earliest, in the place of the best ranked
    (identical texts score alike, in no fixed order), listing in ``same_at`` the other
    ordinals its text was found at; distinct texts all stay."""
    out: list[dict[str, Any]] = []
    first: dict[tuple[Any, ...], int] = {}
    for h in hits:
        words = " ".join((h.get("text") or "").split())
        whose = (h.get("team"), h.get("pusher"), h["session_id"])  # a team's: per pusher
        key: tuple[Any, ...] = ((*whose, "todo", words) if h.get("field") == "todo"
                                else (*whose, h["ordinal"], words))
        at = first.get(key)
        if at is None:
            h["same_at"] = []
            first[key] = len(out)
            out.append(h)
            continue
        kept = out[at]
        if h["ordinal"] == kept["ordinal"] or h["ordinal"] in kept["same_at"]:
            continue
        if h["ordinal"] < kept["ordinal"]:
            # the group's hit is its earliest (equal scores come in no fixed order)
            h["same_at"] = [*kept["same_at"], kept["ordinal"]]
            out[at] = h
        else:
            kept["same_at"].append(h["ordinal"])
    for h in out:
        h["same_at"].sort()
    return out


def _search(db_path: str | Path, text: str, *, regex: bool, session_id: str | None,
            limit: int, newest: bool, reveal: bool) -> Found:
    """One search of up to ``limit`` hits, identical ones included (:func:`search`)."""
    from kb.errors import KbError, KbMissing
    from kb.search.query import And, Match, parse

    db_path = Path(db_path)
    if not db_path.exists():
        raise KbMissing(f"no knowledge base at {db_path}")
    node = None if regex else parse(text)
    notes: list[str] = []
    literal = None if regex else unindexed(text)
    if literal is not None:  # the index cannot hold it: the scan looks for the text as typed
        notes.append(literal)
        node = None
        regex, text = True, "(?i)" + re.escape(text.strip())
    # the index holds text with its secrets taken out: revealing them is the scan's job
    if node is not None and not reveal:
        try:
            from kb.search.index import SearchIndex

            idx = SearchIndex.for_db(db_path)
            if session_id is None and idx.fresh_for(db_path):
                return Found(idx.search(node, limit=limit, newest=newest), "index",
                             sessions=dict(idx.meta.get("labels") or {}))
            with _store(db_path) as store:
                if session_id is not None:
                    session_id = store.resolve_session(session_id)
                rep = idx.sync(store)
            if rep["reindexed"] or rep["grown"]:
                n, u = rep["reindexed"], rep["units"]
                notes.append(f"search index: {n} session{'s' * (n != 1)} indexed, "
                             f"{rep['grown']} grown, {u} unit{'s' * (u != 1)} added")
            if session_id is not None:
                node = And((node, Match("session", (session_id,))))
            return Found(idx.search(node, limit=limit, newest=newest), "index", notes,
                         sessions=dict(idx.meta.get("labels") or {}))
        except KbError:
            raise
        except Exception as e:  # noqa: BLE001 - the scan answers whatever went wrong
            notes.append(f"search index unavailable ({e}); scanning instead")
    from kb.search.scan import scan

    with _store(db_path, reveal) as store:
        if session_id is not None:
            session_id = store.resolve_session(session_id)
        if node is None:
            hits = scan(store, regex=text, limit=limit, session_id=session_id)
        else:
            if session_id is not None:
                node = And((node, Match("session", (session_id,))))
            hits = scan(store, node, limit=limit)
        labels = store.session_labels()
    return Found(hits, "scan", notes, sessions=labels)


def unindexed(text: str) -> str | None:
    """Why the index cannot answer the plain query ``text`` (no syntax): a word longer
    than it keeps (a hash, a base64 run) or no word at all (``-``, ``=>``); ``None`` when
    it can.  The hash a user pasted said "no match" (exit 1) where the text held it."""
    from kb.search.query import CJK, MAX_WORD, WORD, is_plain

    t = text.strip()
    if not t or not is_plain(t):
        return None
    long = [w for w in WORD.findall(t) if len(w.encode()) >= MAX_WORD and not CJK.search(w)]
    if long:
        w = long[0]
        return f"search: {w[:12]}… is too long for the index: scanned the text for it"
    if not WORD.search(t):
        return "search: no letter or digit for the index: scanned the text for the query"
    return None


def _store(db_path: Path, reveal: bool = False) -> KbStore:
    from kb.store import KbStore

    return KbStore(db_path, read_only=True, reveal_secrets=reveal)


INDEX_RETRY_MEMORY_LIMIT = "1GB"
"""DuckDB's cache when the index, reading back what an ingest wrote under the ingest's
small cache (``kb.ingest.INDEX_MEMORY_LIMIT``), ran out of it: a single event of a
12 MB line needs a 128 MiB buffer (``LOGKB_INDEX_RETRY_MEMORY_LIMIT``)."""


def after_ingest(store: KbStore, session_ids: Sequence[str]) -> None:
    """Index what an ingest just wrote of ``session_ids`` in one commit (subscribed by
    :mod:`kb.ingest` to the store's ``sessions_replaced``, :mod:`kb.hooks`).

    Never fails the ingest: a problem is reported on stderr and the index is
    marked stale, so the next search or ``logkb rebuild --index`` repairs it."""
    only = list(session_ids)
    if store.path == ":memory:" or not only:
        return
    try:
        import duckdb

        from kb.search.index import SearchIndex

        short = False
        try:
            SearchIndex.for_db(store.path).sync(store, only=only)
        except duckdb.OutOfMemoryException:
            short = True  # (out of the handler: its traceback lets the writer lock go)
        if short:
            # a text larger than the ingest's small cache holds (a 12 MB line): once
            # more with room for it, rather than leave the index to the next search
            import gc
            import os

            gc.collect()
            store.set_memory_limit(os.environ.get("LOGKB_INDEX_RETRY_MEMORY_LIMIT",
                                                  INDEX_RETRY_MEMORY_LIMIT))
            SearchIndex.for_db(store.path).sync(store, only=only)
    except Exception as e:  # noqa: BLE001
        why = (str(e).strip().splitlines() or [type(e).__name__])[0]  # one line
        print(f"logkb: search index not updated ({why}); the next search rebuilds it",
              file=sys.stderr)
        try:
            from kb.search.index import META, index_dir

            (index_dir(store.path) / META).unlink(missing_ok=True)
        except OSError:
            pass
