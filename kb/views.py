"""Read-side queries for the TUI that :class:`~kb.store.KbStore` does not answer.

The TUI never writes SQL: every question it asks that the store and the graph
modules lack lives here, as one intention-named function with parameterized
SQL.  The central one is the *timeline index* of a session: the sort keys of
every row the timeline shows under a filter, fetched in one columnar query so
that a 100k-message session is indexed in well under a second and every
navigation (jump to an ordinal, next failure, next decision) is a binary search
in memory.  Rows themselves are fetched a page at a time (:func:`timeline_rows`)
for the lines on screen.

A timeline row is one *step*: a prompt or a piece of prose, a tool call (its
``command`` and ``result`` events shown as one line, with the result's status),
or another event (error, compaction, attachment, raw).  ``logkb events`` lists
the same events one per line.

Every function takes a store whose ``conn`` may be a per-thread cursor (see
:mod:`kb.lease`); nothing here writes.

The graph modules are imported inside the functions that need them: they pull in
networkx and the extractor (~0.3 s), which the timeline's first paint should not
wait for.
"""

from __future__ import annotations

import bisect
import re
from array import array
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import orjson

from kb.records import Event, Measurement, TodoItem
from kb.store import KbStore
from logparse.measure_plumbing import harness_of_call

if TYPE_CHECKING:
    from kb.usage import MessageUsage

# ------------------------------------------------------------------ row model
ROW_PROSE, ROW_CALL, ROW_OTHER = 0, 1, 2
"""``src`` of a timeline row: which table it comes from (prose, calls, other_events)."""

FAILURE = 1
"""A call that failed (status not completed, non-zero exit, or an error signature) or an
assistant error."""
DECISION = 2
"""Prose that decides something: classified decision, pivot, dead-end or conclusion."""
DEAD_END = 4
"""Prose classified as a dead end."""
MEASURED = 8
"""A call whose result carries measurements."""
PIVOT = 16
"""Prose classified as a pivot."""
PROMPT = 32
"""A user prompt."""

DECISION_CLASSES = ("decision", "pivot", "dead-end", "conclusion")
KINDS = ("prompt", "decision", "command", "result", "todo", "subagent", "error",
         "compaction", "attachment", "raw", "stat", "context")
STATUSES = ("failed", "ok", "completed", "error", "aborted", "interrupted")
"""Status filter values: ``failed``/``ok`` are derived; the rest are recorded statuses."""

_FAILED_CALL = ("(status <> 'completed' OR coalesce(exit_code, 0) <> 0 "
                "OR len(coalesce(error_signatures, [])) > 0)")


@dataclass(frozen=True)
class TimelineFilter:
    """What the timeline shows.  Empty tuples and an empty text mean "everything"."""

    kinds: tuple[str, ...] = ()
    """Event kinds (``command``/``result`` both select tool calls)."""
    categories: tuple[str, ...] = ()
    """Tool-call categories (search, import-check, benchmark, …); selects calls only."""
    hosts: tuple[str, ...] = ()
    """First ssh hop of a call; ``local`` selects calls without ssh."""
    statuses: tuple[str, ...] = ()
    """``failed``, ``ok`` or a recorded call status (completed, error, aborted, interrupted)."""
    classes: tuple[str, ...] = ()
    """Prose classifications (plan, observation, conclusion, pivot, dead-end, decision)."""
    text: str = ""
    """Case-insensitive substring of a command, an output or prose."""

    @property
    def is_empty(self) -> bool:
        return not (self.kinds or self.categories or self.hosts or self.statuses
                    or self.classes or self.text)

    @classmethod
    def parse(cls, query: str, base: TimelineFilter | None = None) -> TimelineFilter:
        """Read ``kind:command cat:benchmark host:10.1.230.174 status:failed words``.

        Prefixes: ``kind:``, ``cat:``/``category:``, ``host:``, ``status:``, ``class:``;
        values may be comma-separated.  Other words form the search text.  Fields not
        named in ``query`` are taken from ``base``."""
        names = {"kind": "kinds", "kinds": "kinds", "cat": "categories",
                 "category": "categories", "host": "hosts", "status": "statuses",
                 "class": "classes"}
        found: dict[str, list[str]] = {}
        words = []
        for token in query.split():
            key, sep, value = token.partition(":")
            if sep and key.lower() in names and value:
                found.setdefault(names[key.lower()], []).extend(
                    v for v in value.split(",") if v)
            else:
                words.append(token)
        b = base or cls()
        return cls(
            kinds=tuple(found.get("kinds", b.kinds)),
            categories=tuple(found.get("categories", b.categories)),
            hosts=tuple(found.get("hosts", b.hosts)),
            statuses=tuple(found.get("statuses", b.statuses)),
            classes=tuple(found.get("classes", b.classes)),
            text=" ".join(words))

    def unknown(self) -> str | None:
        """What the filter asks that no step can carry, said (``kind: 'prose' is not a
        kind; valid: prompt, …``): a kind or a category not known.  ``None``: none."""
        from logparse.kinds import Category, EventKind

        for name, what, asked, valid in (
                ("kind", "kind", self.kinds, [k.value for k in EventKind]),
                ("cat", "category", self.categories, [c.value for c in Category])):
            bad = [v for v in asked if v.lower() not in valid]
            if bad:
                return f"{name}: {bad[0]!r} is not a {what}; valid: {', '.join(valid)}"
        return None

    def describe(self) -> str:
        """The filter as the query syntax :meth:`parse` reads."""
        parts = [f"{k}:{','.join(v)}" for k, v in (
            ("kind", self.kinds), ("cat", self.categories), ("host", self.hosts),
            ("status", self.statuses), ("class", self.classes)) if v]
        if self.text:
            parts.append(self.text)
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class TimelineRow:
    """One line of the timeline (a step), as :func:`timeline_rows` returns it."""

    ordinal: int
    seq: int
    src: int
    """:data:`ROW_PROSE`, :data:`ROW_CALL` or :data:`ROW_OTHER`."""
    kind: str
    """prompt, decision, command (a tool call), todo, subagent, error, compaction, …"""
    flags: int
    tool: str | None = None
    category: str | None = None
    classification: str | None = None
    host: str | None = None
    status: str | None = None
    exit_code: int | None = None
    signature: str | None = None
    """The first error signature of a call's result."""
    signatures: int = 0
    measurement: str | None = None
    """The first measurement of a call's result, as text."""
    measurements: int = 0
    text: str = ""
    """A command (the remote command when ssh-wrapped), prose, or an event's text."""
    child_session_id: str | None = None
    time: int | None = None

    @property
    def key(self) -> tuple[int, int, int]:
        return (self.ordinal, self.seq, self.src)

    @property
    def failed(self) -> bool:
        return bool(self.flags & FAILURE)


@dataclass(repr=False)
class TimelineIndex:
    """The sort keys and flags of every row a filtered timeline shows, in order.

    Positions are row numbers in the timeline; everything here is in memory and
    O(log n)."""

    def __repr__(self) -> str:  # short: Textual's workers repr() their arguments
        return (f"TimelineIndex({self.session_id!r}, {len(self)} rows, "
                f"filter={self.filter.describe()!r})")

    session_id: str
    filter: TimelineFilter
    ordinals: array  # array('i')
    seqs: array
    srcs: array  # array('b')
    flags: array  # array('B')
    max_ordinal: int = 0
    """The session's last ordinal (filtered or not)."""
    _flag_positions: dict[int, list[int]] = field(default_factory=dict, repr=False)

    def __len__(self) -> int:
        return len(self.ordinals)

    def key(self, pos: int) -> tuple[int, int, int]:
        return (self.ordinals[pos], self.seqs[pos], self.srcs[pos])

    def position_of(self, ordinal: int, seq: int | None = None, src: int | None = None
                    ) -> int:
        """The row of ``ordinal`` (its first row, or the exact ``seq``/``src``), or the
        nearest row after it; the last row when ``ordinal`` is past the end.  -1 when empty."""
        n = len(self.ordinals)
        if n == 0:
            return -1
        pos = bisect.bisect_left(self.ordinals, ordinal)
        if seq is not None:
            end = bisect.bisect_right(self.ordinals, ordinal)
            for p in range(pos, end):
                if self.seqs[p] == seq and (src is None or self.srcs[p] == src):
                    return p
            for p in range(pos, end):  # same seq, other table (a call's prose sibling)
                if self.seqs[p] >= seq:
                    return p
        return min(pos, n - 1)

    def contains(self, ordinal: int) -> bool:
        pos = bisect.bisect_left(self.ordinals, ordinal)
        return pos < len(self.ordinals) and self.ordinals[pos] == ordinal

    def positions(self, flag: int) -> list[int]:
        """Rows carrying ``flag`` (computed once per flag)."""
        got = self._flag_positions.get(flag)
        if got is None:
            got = [i for i, f in enumerate(self.flags) if f & flag]
            self._flag_positions[flag] = got
        return got

    def next_with(self, pos: int, flag: int, forward: bool = True) -> int | None:
        """The next (or previous) row after ``pos`` that carries ``flag``."""
        rows = self.positions(flag)
        if forward:
            i = bisect.bisect_right(rows, pos)
            return rows[i] if i < len(rows) else None
        i = bisect.bisect_left(rows, pos)
        return rows[i - 1] if i > 0 else None


def _in(col: str, values: Sequence[str], params: dict[str, Any], prefix: str) -> str:
    names = []
    for i, v in enumerate(values):
        name = f"{prefix}{i}"
        params[name] = v
        names.append(f"${name}")
    return f"{col} IN ({', '.join(names)})"


@dataclass
class _Where:
    """The filter's conditions on one table and the parameters they name."""

    parts: list[str] = field(default_factory=list)
    params: dict[str, Any] = field(default_factory=dict)

    @property
    def sql(self) -> str:
        return "".join(f" AND {p}" for p in self.parts)

    def add(self, part: str) -> None:
        self.parts.append(part)

    def any_of(self, col: str, values: Sequence[str], prefix: str) -> str:
        return _in(col, values, self.params, prefix)


def _where(f: TimelineFilter, indexed: bool = False, hidden: str | None = None
           ) -> tuple[_Where, _Where, _Where]:
    """Conditions (beyond session and ordinal range) for prose, calls and other_events.

    ``indexed``: the search index answered the text, its rows are in ``_hits`` (the index
    holds text with its secrets taken out); ``hidden``: the pattern of known secrets, which
    a scan's match must not need.
    Each table gets its own parameters: DuckDB refuses named parameters a query
    does not use."""
    prose, calls, other = _Where(), _Where(), _Where()
    false = "FALSE"
    if f.kinds:
        kinds = set(f.kinds)
        pk = sorted(k for k in kinds if k in ("prompt", "decision"))
        prose.add(prose.any_of("kind", pk, "pk") if pk else false)
        if not kinds & {"command", "result"}:
            tools = [t for k, t in (("todo", "todowrite"), ("subagent", "task")) if k in kinds]
            calls.add(calls.any_of("tool", tools, "ct") if tools else false)
        ok = sorted(k for k in kinds if k not in ("prompt", "decision", "command", "result",
                                                  "todo", "subagent"))
        other.add(other.any_of("kind", ok, "ok") if ok else false)
    if f.categories:
        calls.add(calls.any_of("category", f.categories, "cc"))
        prose.add(false)
        other.add(false)
    if f.hosts:
        hosts = [h for h in f.hosts if h != "local"]
        parts = [calls.any_of("host", hosts, "ch")] if hosts else []
        if "local" in f.hosts:
            parts.append("host IS NULL")
        calls.add("(" + " OR ".join(parts) + ")")
        prose.add(false)
        other.add(false)
    if f.statuses:
        parts = []
        recorded = [s for s in f.statuses if s not in ("failed", "ok")]
        if recorded:
            parts.append(calls.any_of("status", recorded, "cs"))
        if "failed" in f.statuses:
            parts.append(_FAILED_CALL)
        if "ok" in f.statuses:
            parts.append(f"NOT {_FAILED_CALL}")
        calls.add("(" + " OR ".join(parts) + ")")
        prose.add(false)
        other.add("kind = 'error'" if "failed" in f.statuses else false)
    if f.classes:
        prose.add(prose.any_of("classification", f.classes, "pc"))
        calls.add(false)
        other.add(false)
    if f.text and indexed:
        for w, src in ((prose, 0), (calls, 1), (other, 2)):
            w.add(f"(ordinal, seq) IN (SELECT ordinal, seq FROM _hits WHERE src = {src})")
    elif f.text:
        # no index: RE2's case-insensitive literal match scans 3-5x faster than ILIKE here
        for w in (prose, calls, other):
            w.params["q"] = "(?i)" + re.escape(f.text)
        def m(col: str) -> str:  # with secrets, a match must not need them (issue 14)
            if hidden is None:
                return f"regexp_matches({col}, $q)"
            return (f"(regexp_matches({col}, $q) AND "
                    f"regexp_matches(regexp_replace({col}, $h, chr(0), 'g'), $q))")

        if hidden is not None:
            for w in (prose, calls, other):
                w.params["h"] = hidden
        prose.add(m("text"))
        calls.add(f"({m('command')} OR {m('coalesce(output, error)')} OR {m('title')})")
        other.add(m("coalesce(text, '')"))
    return prose, calls, other


def _search_hits(store: KbStore, session_id: str, text: str) -> Any:
    """The timeline rows (``ordinal, seq, src``) whose text matches ``text`` by the search
    index (the last word a prefix: search as you type), as an Arrow table; ``None`` when
    the index cannot answer (the caller scans)."""
    try:
        import pyarrow as pa

        from kb.search.index import SearchIndex
        from kb.search.query import And, Match, parse

        if store.path == ":memory:":
            return None
        idx = SearchIndex.for_db(store.path)
        if not idx.fresh_for(store.path):
            idx.sync(store)
        keys = idx.keys(And((parse(text, prefix_last=True), Match("session", (session_id,)))))
    except Exception:  # noqa: BLE001 - whatever the index's trouble, the scan answers
        return None
    if keys is None:
        return None
    cols = list(zip(*keys)) if keys else [(), (), ()]
    return pa.table({"ordinal": pa.array(cols[0], pa.int32()),
                     "seq": pa.array(cols[1], pa.int32()), "src": pa.array(cols[2], pa.int8())})


_FLAGS_PROSE = (f"(CASE WHEN classification IN ('decision', 'pivot', 'dead-end', 'conclusion') "
                f"THEN {DECISION} ELSE 0 END + CASE WHEN classification = 'dead-end' "
                f"THEN {DEAD_END} ELSE 0 END + CASE WHEN classification = 'pivot' "
                f"THEN {PIVOT} ELSE 0 END + CASE WHEN kind = 'prompt' THEN {PROMPT} ELSE 0 END)")
_FLAGS_CALL = (f"(CASE WHEN {_FAILED_CALL} THEN {FAILURE} ELSE 0 END + "
               f"CASE WHEN len(coalesce(measurements, [])) > 0 THEN {MEASURED} ELSE 0 END)")
_FLAGS_OTHER = f"(CASE WHEN kind = 'error' THEN {FAILURE} ELSE 0 END)"
_ONE_PROSE_ROW = ("QUALIFY row_number() OVER (PARTITION BY ordinal, seq ORDER BY "
                  "(kind = 'decision' AND source = 'choice') DESC) = 1")
"""One prose row per ``(ordinal, seq)``, the key a timeline row is read by: the choice
read from the agent's words ("Chose: X") shares its part's seq with those words and
stands in their place, as in ``logkb events`` (:func:`kb.render.one_per_decision`); two
rows under one key showed the choice twice at one ordinal (Civitas message 99)."""


def timeline_index(store: KbStore, session_id: str,
                   where: TimelineFilter | None = None) -> TimelineIndex:
    """Index the rows of a session's timeline under the filter ``where`` (one columnar
    query)."""
    f = where or TimelineFilter()
    # the index holds text without its secrets: revealing them is the scan's job
    hits = (_search_hits(store, session_id, f.text)
            if f.text and not store.redactor.reveal else None)
    wp, wc, wo = _where(f, indexed=hits is not None,
                        hidden=store.redactor.pattern() if f.text else None)
    params: dict[str, Any] = {"s": session_id, **wp.params, **wc.params, **wo.params}
    sql = f"""
        SELECT ordinal, seq, 0::TINYINT AS src, {_FLAGS_PROSE}::UTINYINT AS flags
          FROM prose WHERE session_id = $s{wp.sql} {_ONE_PROSE_ROW}
        UNION ALL
        SELECT ordinal, seq, 1::TINYINT, {_FLAGS_CALL}::UTINYINT
          FROM calls WHERE session_id = $s{wc.sql}
        UNION ALL
        SELECT ordinal, seq, 2::TINYINT, {_FLAGS_OTHER}::UTINYINT
          FROM other_events WHERE session_id = $s{wo.sql}
        ORDER BY 1, 2, 3"""
    # a private cursor: ``sql()`` refuses a connection with an unfinished ``execute()``
    cur = store.conn.cursor()
    try:
        if hits is not None:
            cur.register("_hits", hits)
        tbl = cur.sql(sql, params=params).to_arrow_table()
    finally:
        cur.close()
    cols = []
    for name, code in (("ordinal", "i"), ("seq", "i"), ("src", "b"), ("flags", "B")):
        col = tbl.column(name).combine_chunks()
        a = array(code)
        if len(col):
            width = a.itemsize
            a.frombytes(col.buffers()[1][col.offset * width:(col.offset + len(col)) * width])
        cols.append(a)
    return TimelineIndex(session_id, f, cols[0], cols[1], cols[2], cols[3],
                         max_ordinal=store.max_ordinal(session_id))


def _measure_text(m: dict[str, Any] | None) -> str | None:
    if not m:
        return None
    value = m["value"]
    # a row's summary: a duration of ten seconds or more to the second (27.999 s as 28 s;
    # the detail pane shows the value as measured)
    if m.get("unit") in ("s", "sec") and isinstance(value, (int, float)) and abs(value) >= 10:
        value = round(value)
    return str(Measurement(value, m["unit"], m.get("label") or ""))


def _stat_text(data: str | None) -> str:
    """A stat event's readings (its ``data``'s ``measurements``) as :class:`Measurement`
    prints them, the first three; ``""`` when it has none."""
    try:
        ms = orjson.loads(data) if data else None
    except orjson.JSONDecodeError:
        return ""
    if not isinstance(ms, list):
        return ""
    return ", ".join(str(Measurement(float(m["value"]), m.get("unit") or "", m.get("label") or ""))
                     for m in ms[:3] if isinstance(m, dict)
                     and isinstance(m.get("value"), (int, float)))


def _first_line(text: str | None, width: int = 300) -> str:
    if not text:
        return ""
    for line in text.splitlines():
        if line.strip():
            line = line.strip()
            return line if len(line) <= width else line[: width - 1] + "…"
    return ""


_KEY = 1 << 20
"""``ordinal * _KEY + seq`` identifies a row of one table (seq is a part's position)."""


def timeline_rows(store: KbStore, index: TimelineIndex, start: int, stop: int
                  ) -> dict[tuple[int, int, int], TimelineRow]:
    """The rows at positions ``start``..``stop - 1`` of ``index``, keyed by row key.

    Fetched by key within the ordinal range they span, so the filter (a search
    over every output, say) is not evaluated again for each page."""
    n = len(index)
    start, stop = max(0, start), min(stop, n)
    if start >= stop:
        return {}
    keys: dict[int, list[int]] = {ROW_PROSE: [], ROW_CALL: [], ROW_OTHER: []}
    for p in range(start, stop):
        keys[index.srcs[p]].append(index.ordinals[p] * _KEY + index.seqs[p])
    base: dict[str, Any] = {"s": index.session_id, "lo": index.ordinals[start],
                            "hi": index.ordinals[stop - 1]}
    where = ("WHERE session_id = $s AND ordinal BETWEEN $lo AND $hi "
             f"AND ordinal::BIGINT * {_KEY} + seq IN (SELECT unnest($k))")
    out: dict[tuple[int, int, int], TimelineRow] = {}
    cur = store.conn

    def line(text: str | None) -> str:  # redacted before the first line is cut from it
        return _first_line(red.text(text, cut_tail=True))

    red = store.redactor
    if keys[ROW_PROSE]:
        for o, s, kind, cls, text, meas, flags, t in cur.execute(
                # text the agent or its IDE put in the user's turn (a <system-reminder>,
                # a caveat) is no prompt of the user's: its row says so
                # (a parent agent's task, a compaction's summary: logparse.author)
                f"SELECT ordinal, seq, kind, CASE WHEN kind = 'prompt' AND author = 'parent' "
                f"THEN 'parent' WHEN kind = 'prompt' AND author = 'compaction' THEN 'summary' "
                f"WHEN kind = 'prompt' AND source = "
                f"'synthetic' THEN 'injected' ELSE classification END, left(text, 600), "
                f"measurements[1], {_FLAGS_PROSE}::UTINYINT, time FROM prose {where} "
                f"{_ONE_PROSE_ROW}",
                {**base, "k": keys[ROW_PROSE]}).fetchall():
            out[(o, s, ROW_PROSE)] = TimelineRow(
                o, s, ROW_PROSE, kind, flags, classification=cls, text=line(text),
                measurement=_measure_text(meas), time=t)
    if keys[ROW_CALL]:
        for (o, s, tool, cat, host, status, code, sig, nsig, meas, cmd, remote, title,
             child, flags, t) in cur.execute(
                f"SELECT ordinal, seq, tool, category, host, status, exit_code, "
                f"error_signatures[1], len(coalesce(error_signatures, [])), measurements, "
                f"left(command, 600), "
                f"left(remote_command, 600), left(title, 300), child_session_id, "
                f"{_FLAGS_CALL}::UTINYINT, time_start FROM calls {where}",
                {**base, "k": keys[ROW_CALL]}).fetchall():
            kind = {"todowrite": "todo", "task": "subagent"}.get(tool, "command")
            text = remote if host and remote else cmd
            if kind == "subagent" and title:
                text = title
            # the summary says what the work measured: the harness's readings of every
            # call (Codex's wall time, a cut output's size) stay in the detail and --json,
            # never ahead of the command
            # (a listing's file sizes too: of the tree, not of the work; none left, none shown)
            theirs = harness_of_call([(m["label"] or "", m["unit"]) for m in meas or ()])
            work = [m for m, h in zip(meas or (), theirs, strict=True) if not h]
            out[(o, s, ROW_CALL)] = TimelineRow(
                o, s, ROW_CALL, kind, flags, tool=tool, category=cat, host=host,
                status=status, exit_code=code, signature=sig, signatures=nsig,
                measurement=_measure_text(work[0] if work else None),
                measurements=len(work), text=line(text),
                child_session_id=child, time=t)
    if keys[ROW_OTHER]:
        for o, s, kind, text, reason, stat, flags, t in cur.execute(
                f"SELECT ordinal, seq, kind, left(text, 600), reason, CASE WHEN kind = "
                f"'stat' THEN json_extract(data, '$.measurements')::VARCHAR END, "
                f"{_FLAGS_OTHER}::UTINYINT, time FROM other_events {where}",
                {**base, "k": keys[ROW_OTHER]}).fetchall():
            # a stat event (a turn's clock, a token counter) is its reading: "turn
            # duration: 187258 ms (3.1 min)", as `events` and `show` print it
            read = _stat_text(stat)
            out[(o, s, ROW_OTHER)] = TimelineRow(
                o, s, ROW_OTHER, kind, flags, text=line(read or text or reason), time=t)
    return out


# ------------------------------------------------------------------- facets
@dataclass(frozen=True)
class Facets:
    """The values a session's timeline can be filtered by, with row counts."""

    kinds: list[tuple[str, int]]
    categories: list[tuple[str, int]]
    hosts: list[tuple[str, int]]
    statuses: list[tuple[str, int]]
    classes: list[tuple[str, int]]


def facets(store: KbStore, session_id: str) -> Facets:
    """Distinct kinds, categories, hosts, statuses and prose classes of a session."""
    cur = store.conn
    p = {"s": session_id}
    kinds = cur.execute("""
        SELECT kind, count(*) FROM (
            SELECT kind FROM prose WHERE session_id = $s
            UNION ALL SELECT CASE tool WHEN 'todowrite' THEN 'todo' WHEN 'task' THEN 'subagent'
                             ELSE 'command' END FROM calls WHERE session_id = $s
            UNION ALL SELECT kind FROM other_events WHERE session_id = $s)
        GROUP BY 1 ORDER BY 2 DESC, 1""", p).fetchall()
    cats = cur.execute("SELECT category, count(*) FROM calls WHERE session_id = $s "
                       "GROUP BY 1 ORDER BY 2 DESC, 1", p).fetchall()
    hosts = cur.execute("SELECT coalesce(host, 'local'), count(*) FROM calls "
                        "WHERE session_id = $s GROUP BY 1 ORDER BY 2 DESC, 1", p).fetchall()
    st = cur.execute(f"""
        SELECT 'failed', count(*) FILTER (WHERE {_FAILED_CALL}) FROM calls WHERE session_id = $s
        UNION ALL
        SELECT 'ok', count(*) FILTER (WHERE NOT {_FAILED_CALL}) FROM calls WHERE session_id = $s
        UNION ALL
        SELECT * FROM (SELECT status, count(*) FROM calls WHERE session_id = $s
                       GROUP BY 1 ORDER BY 2 DESC, 1)""", p).fetchall()
    classes = cur.execute("SELECT classification, count(*) FROM prose WHERE session_id = $s "
                          "AND classification IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1",
                          p).fetchall()
    return Facets([tuple(r) for r in kinds], [tuple(r) for r in cats],
                  [tuple(r) for r in hosts], [tuple(r) for r in st if r[1]],
                  [tuple(r) for r in classes])


# ----------------------------------------------------------------- sessions
def session_counts(store: KbStore) -> dict[str, dict[str, int | None]]:
    """Per session: failed calls, and dead ends (``None`` when its graph was never built)."""
    out: dict[str, dict[str, int | None]] = {}
    for sid, failures in store.conn.execute(
            f"SELECT session_id, count(*) FILTER (WHERE {_FAILED_CALL}) FROM calls "
            "GROUP BY 1").fetchall():
        out[sid] = {"failures": int(failures), "dead_ends": None}
    built = store.conn.execute("""
        WITH RECURSIVE tree(session_id, scope) AS (
            SELECT session_id, session_id FROM sessions
             WHERE session_id IN (SELECT scope FROM graph_builds)
            UNION SELECT s.session_id, t.scope FROM sessions s
             JOIN tree t ON s.parent_id = t.session_id)
        SELECT t.session_id, count(n.node_id) FROM tree t
        LEFT JOIN graph_nodes n ON n.scope = t.scope AND n.session_id = t.session_id
             AND n.type = 'approach' AND n.status IN ('dead_end', 'blocked')
        GROUP BY 1""").fetchall()
    for sid, dead in built:
        out.setdefault(sid, {"failures": 0, "dead_ends": None})["dead_ends"] = int(dead)
    return out


def session_usage(store: KbStore, session_ids: Sequence[str] | None = None
                  ) -> dict[str, dict[str, Any]]:
    """Per session: the token counts its agent recorded (sums over its assistant messages;
    ``None`` where nothing was recorded), ``cost`` as recorded (opencode), and what
    :mod:`kb.usage` makes of them: ``tokens_total`` (input, output, cache read and write),
    ``priced_cost`` (recorded cost, else the model's list price; ``None``: unknown) and
    ``unpriced`` (messages whose model has no price, so ``priced_cost`` is a lower bound).
    ``session_ids``: only those sessions."""
    from kb import usage as u

    cols = ("tokens_input", "tokens_output", "tokens_reasoning", "tokens_cache_read",
            "tokens_cache_write", "cost")
    where, params = "", []
    if session_ids is not None:
        where = "WHERE session_id IN (SELECT unnest(?))"
        params = [list(session_ids)]
    rows = store.conn.execute(
        f"SELECT session_id, {', '.join(f'sum({c})' for c in cols)} FROM message_usage "
        f"{where} GROUP BY 1", params).fetchall()
    out = {r[0]: dict(zip(cols, r[1:])) for r in rows}
    try:
        prices = u.load_prices()
    except ValueError:  # a broken user price file: `logkb usage` says so; here, list prices
        prices = dict(u.PRICES)
    for t in u.totals(usage_messages(store, session_ids), "session", prices):
        if t.key in out:
            out[t.key] |= {"tokens_total": t.tokens,
                           "priced_cost": None if t.unpriced and not t.cost else t.cost,
                           "unpriced": t.unpriced}
    return out


def usage_cost_text(usage: dict[str, Any]) -> str:
    """A session's cost from :func:`session_usage`: ``$3.20``, ``≥$3.20`` (some messages
    unpriced), ``unknown`` (none priced), empty when no tokens were recorded."""
    if not usage.get("tokens_total"):
        return ""
    cost, unpriced = usage.get("priced_cost"), usage.get("unpriced") or 0
    if cost is None:
        return "unknown"
    text = f"${cost:,.2f}" if cost >= 0.01 or not cost else "<$0.01"
    return f"≥{text}" if unpriced else text


def usage_tokens_text(usage: dict[str, Any]) -> str:
    """A session's tokens from :func:`session_usage` (input, output and cache), short."""
    n = usage.get("tokens_total")
    return tokens_text(n) if n else ""


def usage_messages(store: KbStore, session_ids: Sequence[str] | None = None
                   ) -> list[MessageUsage]:
    """Every assistant message's tokens and recorded cost, with its session's agent and
    its time (``session_ids``: only those sessions)."""
    from kb.usage import MessageUsage

    where, params = "", []
    if session_ids is not None:
        where = "WHERE u.session_id IN (SELECT unnest(?))"
        params = [list(session_ids)]
    rows = store.conn.execute(
        "SELECT u.session_id, s.agent, u.model, m.time_created, "
        "coalesce(u.tokens_input, 0), coalesce(u.tokens_output, 0), "
        "coalesce(u.tokens_cache_read, 0), coalesce(u.tokens_cache_write, 0), "
        "coalesce(u.tokens_reasoning, 0), u.cost, coalesce(u.tokens_cache_write_1h, 0) "
        "FROM message_usage u JOIN messages m USING (session_id, ordinal) "
        f"LEFT JOIN sessions s USING (session_id) {where} "
        "ORDER BY m.time_created NULLS LAST, u.session_id, u.ordinal", params).fetchall()
    return [MessageUsage(*r) for r in rows]


def tokens_text(n: int | None) -> str:
    """``1.2M``, ``35k``, ``512``: a token count in a few characters."""
    if n is None:
        return ""
    for size, suffix in ((1_000_000_000, "G"), (1_000_000, "M"), (1_000, "k")):
        if abs(n) >= size:
            v = n / size
            return f"{v:.1f}{suffix}" if v < 10 else f"{v:.0f}{suffix}"
    return str(n)


def cost_text(c: float | None) -> str:
    """``$318.68``; empty when the provider recorded no cost."""
    if not c:
        return ""
    return f"${c:,.2f}" if c >= 0.01 else "<$0.01"


# ----------------------------------------------------------------- the graph
def built_scopes(store: KbStore) -> set[str]:
    """The scopes whose knowledge graph has been built (at least once)."""
    return {str(r[0]) for r in store.conn.execute("SELECT scope FROM graph_builds").fetchall()}


def graph_fresh(store: KbStore, scope: str) -> bool:
    """Whether the persisted graph of ``scope`` was built from what the store holds now."""
    from kb.graph import store as gs  # deferred: networkx and the extractor load slowly

    row = store.conn.execute("SELECT fingerprint FROM graph_builds WHERE scope = ?",
                             [scope]).fetchone()
    if row is None:
        return False
    fp, _ = gs.fingerprint(store, gs.scope_sessions(store, scope))
    return bool(row[0] == fp)


@dataclass
class GraphView:
    """Everything the graph screen shows of one scope (a campaign and its subagents)."""

    scope: str
    approaches: list[dict[str, Any]]
    dead_ends: list[dict[str, Any]]
    untested: list[dict[str, Any]]
    pivots: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    causes: list[dict[str, Any]]
    throughput: list[dict[str, Any]]
    built: bool = True
    annotations: list[dict[str, Any]] = field(default_factory=list)
    """Hand-made annotations (``logkb mark``, ``x``/``c``/``a`` in the TUI) of the scope."""


def graph_view(store: KbStore, scope: str) -> GraphView:
    """Read the persisted graph of ``scope`` (empty when it was never built)."""
    from kb.graph import store as gs

    built = store.conn.execute("SELECT count(*) FROM graph_builds WHERE scope = ?",
                               [scope]).fetchone()
    scopes = [scope]
    return GraphView(
        scope=scope, approaches=gs.approaches(store, scopes), dead_ends=gs.dead_ends(store, scopes),
        untested=gs.untested(store, scopes, include_answered=True), pivots=gs.pivots(store, scopes),
        decisions=gs.decisions(store, scopes), causes=gs.causes(store, scopes),
        throughput=throughput(store, scope), built=bool(built and built[0]),
        annotations=[a for sid in gs.scope_sessions(store, scope)
                     for a in gs.annotations(store, sid)])


def throughput(store: KbStore, scope: str, cap: int = 2000) -> list[dict[str, Any]]:
    """The scope's progress series as :func:`kb.graph.report.throughput` chooses it (the
    quantity the session measured most: a rate, else a latency or a duration, else a size
    or a count), thinned to about ``cap`` points (every k-th, and the best one kept) in SQL.

    ``report.throughput`` brings every reading with its command into Python: a generated
    100k-message session has 427k ``token/s`` readings (0.5 GB, 1.4 s)."""
    from kb.graph import report as graph_report
    from kb.graph import store as gs

    sids = gs.scope_sessions(store, scope)
    q = graph_report.dominant_quantity(graph_report.measured_quantities(store, sids))
    if q is None:
        return []
    rows = store.conn.execute("""
        WITH s AS (
          SELECT session_id, ordinal, seq, m.value AS value, m.unit AS unit,
                 m.label AS label FROM (
            SELECT session_id, ordinal, seq, unnest(measurements) AS m FROM calls
            WHERE session_id IN (SELECT unnest($sids)) AND len(measurements) > 0)
          WHERE m.unit = $unit AND coalesce(m.label, '') = $label)
        SELECT session_id, ordinal, value, unit, label FROM s
        QUALIFY row_number() OVER (ORDER BY session_id, ordinal, seq)
                % greatest(1, count(*) OVER () // $cap) = 0
             OR value = max(value) OVER ()
        ORDER BY session_id, ordinal, seq""",
        {"sids": sids, "cap": max(1, cap), "unit": q[0], "label": q[1]}).fetchall()
    return [{"session_id": s, "ordinal": o, "value": v, "unit": u, "label": lab}
            for s, o, v, u, lab in rows]


def marks(view: GraphView) -> dict[tuple[str, int], str]:
    """``(session, ordinal) → mark`` for the timeline: where approaches ended or were
    confirmed (``dead_end``, ``blocked``, ``confirmed``), where a question went unanswered
    (``untested``) and where the campaign pivoted (``pivot``)."""
    out: dict[tuple[str, int], str] = {}
    for a in view.approaches:
        for e in a.get("evidence", []):
            key = (e["session_id"], e["ordinal"])
            if e["role"] == "ended" and a["status"] in ("dead_end", "blocked", "superseded"):
                out[key] = a["status"]
            elif e["role"] in ("confirmed", "annotated") and a["status"] == "confirmed":
                out.setdefault(key, "confirmed")
    for q in view.untested:
        if q["status"] == "open":
            out.setdefault((q["session_id"], q["ordinal"]), "untested")
    for p in view.pivots:
        out[(p["session_id"], p["ordinal"])] = "pivot"
    # annotations win: the user said so (a dead end or confirmation by hand is already an
    # "annotated" evidence above; notes, hypotheses and revisits get their own marks)
    for a in view.annotations:
        if a.get("ordinal") is None:
            continue
        key = (a["session_id"], a["ordinal"])
        kind = a["kind"]
        if kind == "dead_end":
            out[key] = "dead_end"
        elif kind == "confirmed":
            out[key] = "confirmed"
        elif kind in ("note", "revisit", "hypothesis"):
            out.setdefault(key, kind)
    return out


def approaches_at(view: GraphView, session_id: str, ordinal: int
                  ) -> list[tuple[dict[str, Any], list[str]]]:
    """Approaches a step is evidence of, with its roles (proposed, tested, ended, …)."""
    out = []
    for a in view.approaches:
        roles = [e["role"] for e in a.get("evidence", [])
                 if e["session_id"] == session_id and e["ordinal"] == ordinal]
        if roles:
            out.append((a, sorted(set(roles), key=roles.index)))
    return out


def approaches_during(view: GraphView, session_id: str, ordinal: int
                      ) -> list[dict[str, Any]]:
    """Approaches (not goals or tasks) being worked on at ``ordinal``."""
    return [a for a in view.approaches
            if a.get("kind") == "approach" and a["session_id"] == session_id
            and a["ordinal"] <= ordinal and (a.get("ended") is None or a["ended"] >= ordinal)]


# ------------------------------------------------------------------ detail
@dataclass
class StepDetail:
    """Everything the detail pane shows for one timeline row."""

    session_id: str
    ordinal: int
    seq: int
    src: int
    message: dict[str, Any]
    """The message (role, time, agent, model, finish, error, tokens)."""
    events: list[Event]
    """All events of the message, in order."""
    focus: list[Event]
    """The events of the selected row (a call's command and result, or one prose event)."""
    rationale: list[Event]
    """Prose that led to the step: earlier prose of the same message, or the latest prose
    before it in the same turn."""
    todos: list[TodoItem]
    todos_at: int | None
    """The ordinal of the todo snapshot shown (the latest at or before the step)."""
    replays: list[dict[str, Any]] = field(default_factory=list)
    """Past replay runs of this step, newest first."""


def todo_at(store: KbStore, session_id: str, ordinal: int
            ) -> tuple[int | None, list[TodoItem]]:
    """The latest todo snapshot at or before ``ordinal``: its ordinal and items."""
    row = store.conn.execute(
        "SELECT ordinal, json_extract(input, '$.todos') FROM calls WHERE session_id = ? "
        "AND tool = 'todowrite' AND ordinal <= ? ORDER BY ordinal DESC, seq DESC LIMIT 1",
        [session_id, ordinal]).fetchone()
    if row is None:
        return None, []
    items = store.redactor.value(orjson.loads(row[1]) if row[1] else [])
    todos = [TodoItem(content=str(i.get("content", "")), status=str(i.get("status", "")),
                      priority=i.get("priority")) for i in items or [] if isinstance(i, dict)]
    return int(row[0]), todos


def prose_before(store: KbStore, session_id: str, ordinal: int, seq: int) -> list[Event]:
    """The latest assistant prose before ``(ordinal, seq)`` that is not behind a prompt."""
    row = store.conn.execute(
        "SELECT ordinal, seq FROM prose WHERE session_id = $s AND kind = 'decision' "
        "AND (ordinal < $o OR (ordinal = $o AND seq < $q)) AND ordinal > coalesce(("
        "  SELECT max(ordinal) FROM prose WHERE session_id = $s AND kind = 'prompt' "
        "  AND ordinal <= $o), 0) ORDER BY ordinal DESC, seq DESC LIMIT 1",
        {"s": session_id, "o": ordinal, "q": seq}).fetchone()
    if row is None:
        return []
    return [e for e in store.events(session_id, kinds=["decision"], start=row[0], end=row[0])
            if e.seq == row[1]]


def step_detail(store: KbStore, session_id: str, ordinal: int, seq: int, src: int
                ) -> StepDetail:
    """The message of a timeline row with the row's events, rationale and todo list."""
    msg = store.message(session_id, ordinal)
    events: list[Event] = msg.pop("events")
    if src == ROW_CALL:
        focus = [e for e in events if e.seq == seq and e.kind in (
            "command", "result", "todo", "subagent")]
    elif src == ROW_PROSE:
        focus = [e for e in events if e.seq == seq and e.kind in ("prompt", "decision")]
    else:
        focus = [e for e in events if e.seq == seq and e.kind not in (
            "prompt", "decision", "command", "result", "todo", "subagent")]
    rationale: list[Event] = []
    if src == ROW_CALL:
        rationale = [e for e in events if e.kind == "decision" and e.seq < seq]
        if not rationale:
            rationale = prose_before(store, session_id, ordinal, seq)
    at, todos = todo_at(store, session_id, ordinal)
    return StepDetail(session_id, ordinal, seq, src, msg, events, focus, rationale, todos, at)


def calls_elsewhere(store: KbStore, session_id: str, ordinal: int, limit: int = 5
                    ) -> list[tuple[int, str]]:
    """``(ordinal, command)`` of the calls message ``ordinal`` made that are stored with
    another message: a Codex rollout writes parallel calls as records of their own, and
    each call is kept with the message its result came in, so the message that made it
    holds no event (its raw records name the call's id)."""
    rows = store.conn.execute(
        "SELECT c.ordinal, coalesce(c.remote_command, c.command, c.tool, '') FROM calls c "
        "JOIN messages m ON m.session_id = c.session_id AND m.ordinal = ? "
        "WHERE c.session_id = ? AND c.ordinal <> m.ordinal AND length(c.call_id) >= 8 "
        "AND contains(m.raw, c.call_id) ORDER BY c.ordinal, c.seq LIMIT ?",
        [ordinal, session_id, limit]).fetchall()
    return [(int(o), store.redactor.text(str(c))) for o, c in rows]


def flags_text(flags: int) -> list[str]:
    """Names of the flags set in ``flags`` (for tests and debugging)."""
    names = ((FAILURE, "failure"), (DECISION, "decision"), (DEAD_END, "dead-end"),
             (MEASURED, "measured"), (PIVOT, "pivot"), (PROMPT, "prompt"))
    return [n for bit, n in names if flags & bit]


# ------------------------------------------------------------------ the handoff's facts
def host_counts(store: KbStore, sid: str, limit: int = 8) -> list[tuple[str, Any, int]]:
    """``(host, a user, commands)`` of the hosts the session's commands ran on, most
    used first."""
    return [(h, u, int(n)) for h, u, n in store.conn.execute(
        "SELECT host, any_value(user), count(*) FROM calls WHERE session_id = ? AND host "
        "IS NOT NULL GROUP BY host ORDER BY count(*) DESC LIMIT ?", [sid, limit]).fetchall()]


def command_texts(store: KbStore, sid: str) -> list[str]:
    """Every command of the session as it ran (the remote command of an ssh)."""
    return [str(c) for (c,) in store.conn.execute(
        "SELECT coalesce(remote_command, command) FROM calls WHERE session_id = ? AND "
        "command IS NOT NULL", [sid]).fetchall()]


def package_outputs(store: KbStore, sid: str) -> list[str]:
    """Outputs of package queries, import checks and installs (< 200 kB), in order."""
    return [str(o) for (o,) in store.conn.execute(
        "SELECT output FROM calls WHERE session_id = ? AND category IN "
        "('package-query', 'import-check', 'install') AND output IS NOT NULL AND "
        "length(output) < 200000 ORDER BY ordinal, seq", [sid]).fetchall()]


def category_counts(store: KbStore, sid: str) -> list[tuple[str | None, int, int]]:
    """``(category, commands, failed)``, most commands first, ties by name (a stable
    order: the brief pushed to a team must equal the one computed again later)."""
    return [(c, int(n), int(f)) for c, n, f in store.conn.execute(
        "SELECT category, count(*), count(*) FILTER (WHERE status <> 'completed' OR "
        "coalesce(exit_code, 0) <> 0) FROM calls WHERE session_id = ? GROUP BY 1 "
        "ORDER BY 2 DESC, 1 NULLS LAST", [sid]).fetchall()]


def file_edits(store: KbStore, sid: str) -> list[tuple[str | None, str | None]]:
    """``(path, patch text)`` of the session's file edits, newest first."""
    return [(p, t) for p, t in store.conn.execute(
        "SELECT coalesce(json_extract_string(input, '$.filePath'), "
        "json_extract_string(input, '$.path')), json_extract_string(input, '$.patchText') "
        "FROM calls WHERE session_id = ? AND category = 'file-edit' "
        "ORDER BY ordinal DESC, seq DESC", [sid]).fetchall()]


def how_it_ended(store: KbStore, sid: str) -> tuple[Any, Any, Any]:
    """The last message ``(ordinal, role, finish, error, error text)`` (the text: the
    agent's own record of the error, its last ``error`` event, e.g. "APIError: You've hit
    your limit"), the last thing the assistant decided ``(ordinal, text)`` (its reply
    text; reasoning only if there is none), and ``(max ordinal of a compaction,)``; each
    ``None`` when there is none."""
    last = store.conn.execute(
        "SELECT ordinal, role, finish, error, CASE WHEN error IS NOT NULL THEN ("
        "SELECT e.text FROM other_events e WHERE e.session_id = m.session_id "
        "AND e.ordinal = m.ordinal AND e.kind = 'error' ORDER BY e.seq DESC LIMIT 1) END "
        "FROM messages m WHERE session_id = ? ORDER BY ordinal DESC LIMIT 1",
        [sid]).fetchone()
    prose = store.conn.execute(
        "SELECT ordinal, text FROM prose WHERE session_id = ? AND kind = 'decision' AND "
        "length(trim(text)) > 0 ORDER BY source = 'text' DESC, ordinal DESC, seq DESC "
        "LIMIT 1", [sid]).fetchone()
    compacted = store.conn.execute(
        "SELECT max(ordinal) FROM other_events WHERE session_id = ? AND kind = 'compaction'",
        [sid]).fetchone()
    return last, prose, compacted
