"""The search units in DuckDB: what the index holds, and the scan that answers without it.

A *search unit* is one piece of text with its coordinates: a command, the output
of a call (its error when there is no output), a todo list (the ``todowrite``
items), a prompt or assistant prose, or the text of another event (errors,
compaction summaries).  :data:`UNITS_SQL` is the one definition both the index
(:mod:`kb.search.index` reads it to index) and the scan (:func:`scan`, used by
``--regex`` and whenever there is no usable index) read, so the two cover the
same text with the same fields.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from kb.search.query import Node, QueryError, Text, to_sql

if TYPE_CHECKING:
    import duckdb

    from kb.store import KbStore

_UNIT_BRANCHES = (
    """SELECT session_id, message_id, ordinal, seq, 'command' AS field, 'command' AS kind, tool,
           category, lower(host) AS host, time_start AS time, command AS text{extra}
      FROM calls WHERE command IS NOT NULL AND {where}""",
    """SELECT session_id, message_id, ordinal, seq, 'output', 'result', tool, category,
           lower(host), time_end, coalesce(output, error){extra}
      FROM calls WHERE coalesce(output, error) IS NOT NULL AND {where}""",
    """SELECT session_id, message_id, ordinal, seq, 'todo', 'todo', tool, category, NULL, time_end,
           array_to_string(json_extract_string(input, '$.todos[*].content'), chr(10)){extra}
      FROM calls WHERE tool = 'todowrite' AND input IS NOT NULL AND {where}""",
    """SELECT session_id, message_id, ordinal, seq, 'prose', kind, NULL, NULL, NULL, time,
           text{extra}
      FROM prose WHERE {where}""",
    """SELECT session_id, message_id, ordinal, seq, 'other', kind, NULL, NULL, NULL, time,
           text{extra}
      FROM other_events WHERE text IS NOT NULL AND {where}""")
UNITS_SQL = "\n    UNION ALL\n    ".join(b.replace("{extra}", "") for b in _UNIT_BRANCHES)
"""Every search unit; ``{where}`` restricts each table (``TRUE``, or a session and ordinals)."""

UNIT_COLUMNS = ("session_id", "message_id", "ordinal", "seq", "field", "kind", "tool",
                "category", "host", "time", "text")

SRC = {"prose": 0, "command": 1, "output": 1, "todo": 1, "other": 2}
"""The timeline's row source (prose, calls, other events) of each unit field."""


def units(store: KbStore, session_id: str | list[str] | None = None, after: int | None = None,
          batch: int = 1000) -> Any:
    """Iterate the search units (tuples in :data:`UNIT_COLUMNS` order), a session's only
    when ``session_id`` is given, those past ordinal ``after`` only when it is.  A list of
    sessions is read in one query, session after session in the list's order, each in the
    order of its own query (issue 28: a query per session cost more than its rows)."""
    hide = store.redactor.hiding()  # the index is derived data: it never holds a secret
    for rows in _unit_rows(store, session_id, after, batch):
        if hide.active:
            rows = [(*r[:10], hide.text(r[10])) if r[10] else r for r in rows]
        yield from rows


_IDS = "_logkb_unit_sessions"


def _unit_rows(store: KbStore, session_id: str | list[str] | None, after: int | None,
               batch: int, wrap: Callable[[str], str] = lambda units: units) -> Any:
    """The rows of the query ``wrap`` makes of the units query of ``session_id`` (one
    session, a list of them or all)."""
    if not isinstance(session_id, list):
        where, params = _restrict(session_id, after)
        yield from _fetch(store, wrap(UNITS_SQL.format(where=where)), params * 5, batch)
        return
    if after is not None:
        raise ValueError("a list of sessions is read whole")
    import pyarrow as pa

    # each branch's rows carry their branch and row id: ordered by the list's order, then
    # branch and row id, they come as each session's own query gives them (a scan keeps
    # the order rows were inserted in)
    ordered = "\n    UNION ALL\n    ".join(
        b.replace("{extra}", f", {i} AS _b, rowid AS _r").replace(
            "{where}", f"session_id IN (SELECT sid FROM {_IDS})")
        for i, b in enumerate(_UNIT_BRANCHES))
    sql = (f"SELECT u.* EXCLUDE (_b, _r) FROM ({ordered}) u JOIN {_IDS} i "
           "ON u.session_id = i.sid ORDER BY i.pos, u._b, u._r")
    ids = pa.table({"sid": pa.array(session_id, type=pa.string()),
                    "pos": pa.array(range(len(session_id)), type=pa.int64())})
    cur = store.conn.cursor()
    try:
        cur.register(_IDS, ids)
        cur.execute(wrap(sql))
        while rows := cur.fetchmany(batch):
            yield rows
    finally:
        cur.close()


def _restrict(session_id: str | None, after: int | None) -> tuple[str, list[Any]]:
    """The ``{where}`` of :data:`UNITS_SQL` for a session and past an ordinal, and its
    parameters (for one of the five tables)."""
    conds: list[str] = []
    params: list[Any] = []
    if session_id is not None:
        conds.append("session_id = ?")
        params.append(session_id)
    if after is not None:
        conds.append("ordinal > ?")
        params.append(after)
    return " AND ".join(conds) or "TRUE", params


def _fetch(store: KbStore, sql: str, params: list[Any], batch: int) -> Any:
    """The rows of ``sql``, ``batch`` at a time, on a cursor of their own."""
    cur = store.conn.cursor()
    try:
        cur.execute(sql, params)
        while rows := cur.fetchmany(batch):
            yield rows
    finally:
        cur.close()


_DOCUMENT_SQL = """
    SELECT left(doc, -1) || coalesce(',"tool":' || to_json(nullif(tool, '')), '')
           || coalesce(',"category":' || to_json(nullif(category, '')), '')
           || coalesce(',"host":' || to_json(nullif(host, '')), '')
           || coalesce(',"cjk":' || to_json({cjk}), '')
           || coalesce(',"glued":' || to_json({glued}), '') || '}}'
      FROM (SELECT tool, category, host, text, json_object(
                'body', coalesce(text, ''), 'session', session_id, 'message_id', message_id,
                'field', field, 'kind', kind, 'ordinal', ordinal, 'seq', seq,
                'src', CASE field {src} END, 'time', coalesce(time, 0))::VARCHAR AS doc
              FROM ({units}))"""


def unit_documents(store: KbStore, session_id: str | list[str], after: int | None = None,
                   batch: int = 1000) -> Any:
    """The index's JSON document of each search unit of a session (past ordinal ``after``
    when it is given; of each session of a list, in its order), written by DuckDB: a quarter
    of the time of building each one in Python from :func:`units`.  ``None`` when the store
    knows secrets to hide: the index never holds one, so those sessions' units go through
    :func:`units`, which hides them."""
    if store.redactor.hiding().active:
        return None
    from kb.search.query import cjk_terms_sql, glued_text_sql

    src = " ".join(f"WHEN '{f}' THEN {n}" for f, n in SRC.items())
    # the pairs of the words in Chinese, Japanese or Korean (kb.search.query.cjk_terms)
    cjk = cjk_terms_sql("text").replace("{", "{{").replace("}", "}}")
    glued = glued_text_sql("text").replace("{", "{{").replace("}", "}}")
    sql = _DOCUMENT_SQL.replace("{cjk}", cjk).replace("{glued}", glued)
    return (doc for rows in _unit_rows(
        store, session_id, after, batch, lambda units: sql.format(src=src, units=units))
        for (doc,) in rows)


def _check_regex(store: KbStore, regex: str) -> None:
    """Refuse, as a :class:`QueryError` (a usage error), a regular expression that Python
    (the highlights) or RE2 (DuckDB's scan: no look-around, no back-references) cannot
    read."""
    import duckdb

    try:
        re.compile(regex)
    except re.error as e:
        raise QueryError(f"bad regular expression {regex!r}: {e}") from None
    cur = store.conn.cursor()
    try:
        cur.execute("SELECT regexp_matches('', ?)", [regex])
    except duckdb.Error as e:
        why = str(e).removeprefix("Invalid Input Error: ")
        raise QueryError(f"bad regular expression {regex!r} (RE2): {why}") from None
    finally:
        cur.close()


def scan(store: KbStore, node: Node | None = None, *, regex: str | None = None,
         session_id: str | None = None, limit: int = 50) -> list[dict[str, Any]]:
    """The units matching ``node`` (or the regular expression ``regex``), newest first."""
    params: list[Any] = []
    if regex is not None:
        _check_regex(store, regex)
        cond = "regexp_matches(text, ?)"
        params.append(regex)
        if session_id is not None:
            cond += " AND session_id = ?"
            params.append(session_id)
    else:
        assert node is not None
        cond = to_sql(node, params)
    sql = (f"SELECT {', '.join(UNIT_COLUMNS)} FROM ({UNITS_SQL.format(where='TRUE')}) "
           f"WHERE {cond} ORDER BY coalesce(time, 0) DESC, session_id, ordinal DESC, seq DESC, "
           f"field LIMIT {int(limit)}")
    cur: duckdb.DuckDBPyConnection = store.conn.cursor()
    try:
        rows = cur.execute(sql, params).fetchall()
    finally:
        cur.close()
    pats = patterns([] if node is None else _terms(node), regex)
    red = store.redactor
    out = []
    for r in rows:
        hit = dict(zip(UNIT_COLUMNS, r))
        text = hit["text"] or ""
        shown = red.text(text) if red.active else text
        if shown != text and pats and not any(p.search(shown) for p, _ in pats):
            continue  # found only by a secret: not unless revealing (then shown == text)
        hit["text"] = shown
        hit["score"] = None
        hit["snippet"], hit["highlights"] = snippet(hit["text"] or "", pats)
        out.append(hit)
    return out


def _terms(node: Node) -> list[Text]:
    from kb.search.query import text_terms

    return text_terms(node)


Patterns = list[tuple[re.Pattern[str], str]]


def patterns(terms: list[Text], pattern: str | None = None) -> Patterns:
    """What :func:`snippet` looks for: each text clause's pattern and its first word."""
    from kb.search.query import text_regex

    if pattern:
        return [(re.compile(pattern), "")]
    return [(re.compile(text_regex(t, python=True)), t.words[0]) for t in terms if t.words]


def snippet(text: str, pats: Patterns, width: int = 160) -> tuple[str, list[tuple[int, int]]]:
    """A one-line piece of ``text`` around the first match, and the matches' spans in it."""
    low = text.lower()
    aligned = len(low) == len(text)
    first = None
    for p, word in pats:
        m = _first_match(p, text, low if aligned else "", word)
        if m is not None and (first is None or m < first):
            first = m
    if first is None:
        line = text.strip().split("\n", 1)[0] if text.strip() else ""
        return line[:width], []
    start = max(0, first - width // 4)
    # start on a word boundary when one is near
    space = text.rfind(" ", max(0, start - 15), first)
    if space >= 0 and first - space < width // 2:
        start = space + 1
    piece = text[start:start + width]
    spans = sorted(m.span() for p, _ in pats for m in p.finditer(piece) if m.end() > m.start())
    flat = piece.replace("\n", " ")
    if start:
        flat = "…" + flat
        spans = [(a + 1, b + 1) for a, b in spans]
    return flat, spans


def _first_match(p: re.Pattern[str], text: str, low: str, word: str) -> int | None:
    """Where ``p`` first matches: candidates found by a plain find of its first word (C
    speed), each confirmed by the pattern; a full regex search when that cannot be used."""
    if not word or not low:
        m = p.search(text)
        return m.start() if m else None
    i = low.find(word)
    while i >= 0:
        if p.match(text, i):
            return i
        i = low.find(word, i + 1)
    return None


def session_stamps(store: KbStore) -> dict[str, list[Any]]:
    """``session → [ingested_at, messages, events]``: changes whenever an ingest writes it."""
    cur = store.conn.cursor()
    try:
        return {sid: [str(at), n, e] for sid, at, n, e in cur.execute(
            "SELECT session_id, ingested_at, message_count, event_count FROM sessions"
        ).fetchall()}
    finally:
        cur.close()


def message_stamp(store: KbStore, session_id: str, upto: int | None = None) -> list[int]:
    """``[count, max ordinal, xor of hash(id, digest, ordinal)]`` of a session's messages
    (those up to ordinal ``upto``): equal stamps mean the same messages at the same places."""
    sql = ("SELECT count(*), coalesce(max(ordinal), 0), "
           "coalesce(bit_xor(hash(message_id, digest, ordinal)), 0) FROM messages "
           "WHERE session_id = ?")
    params: list[Any] = [session_id]
    if upto is not None:
        sql += " AND ordinal <= ?"
        params.append(upto)
    cur = store.conn.cursor()
    try:
        row = cur.execute(sql, params).fetchone()
    finally:
        cur.close()
    assert row is not None
    return [int(row[0]), int(row[1]), int(row[2])]
