"""Secrets found in the stored text: scanning at ingest, the ``secrets`` table, reports.

The finder is :mod:`logparse.secrets` (pure); this module decides what text is
scanned and stores the findings.  Scanning is two passes: DuckDB runs
:data:`logparse.secrets.PREFILTERS` (RE2) over the rows just written, and only
the texts it matches come back to Python for the rules.  The stored text is
never changed: :mod:`kb.redact` hides the findings on the way out (the store reads
them back: :func:`kb.store.secret_values`).

A session is scanned batch by batch while it is ingested; a session stored
before this table existed, or scanned with an older rule set
(``secret_scans.ruleset``), is scanned whole by :func:`backfill` at the end of
the next ingest.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import pyarrow as pa
import pyarrow.compute as pc

from logparse import secrets as finder
from logparse.memo import Memo, memo, text_key

if TYPE_CHECKING:
    from kb.arrow import ArrowBatch
    from kb.store import KbStore
    from logparse.derive import Batch

_SCHEMA = pa.schema([("session_id", pa.string()), ("ordinal", pa.int32()),
                     ("seq", pa.int32()), ("message_id", pa.string()),
                     ("field", pa.string()), ("start", pa.int32()), ("stop", pa.int32()),
                     ("kind", pa.string()), ("rule", pa.string())])


def _candidates(store: KbStore, session_id: str, ordinal_range: tuple[int, int] | None,
                message_ids: Sequence[str] | None) -> list[tuple[Any, ...]]:
    """Rows whose text the prefilter matches: (ordinal, seq, message_id, field, text)."""
    from kb.store import SECRET_FIELDS
    parts: list[str] = []
    params: dict[str, Any] = {"s": session_id}
    params.update({f"p{i}": p for i, p in enumerate(finder.PREFILTERS)})
    matches = " OR ".join(f"regexp_matches(t, $p{i})" for i in range(len(finder.PREFILTERS)))
    where = "session_id = $s"
    if ordinal_range is not None:
        where += " AND ordinal BETWEEN $lo AND $hi"
        params["lo"], params["hi"] = ordinal_range
    if message_ids is not None:
        ids = pa.table({"message_id": pa.array(list(message_ids), type=pa.string())})  # noqa
        where += " AND message_id IN (SELECT message_id FROM ids)"
    for field, (table, expr) in SECRET_FIELDS.items():
        parts.append(f"SELECT ordinal, seq, message_id, '{field}', t FROM (SELECT ordinal, seq, "
                     f"message_id, {expr} AS t FROM {table} WHERE {where}) "
                     f"WHERE {matches}")
    return store.conn.execute(" UNION ALL ".join(parts), params).fetchall()


_SECRETS: Memo[tuple[finder.Finding, ...]] = memo("secrets")


def find_secrets(text: str) -> tuple[finder.Finding, ...]:
    """:func:`logparse.secrets.find_secrets`, memoised (a text repeated in a session, or in
    many, is read once: :mod:`logparse.memo`)."""
    return _SECRETS.get(text_key(text), lambda: tuple(finder.find_secrets(text)))


def _findings(rows: Iterable[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """``(ordinal, seq, message_id, field, start, stop, kind, rule)`` of every secret in the
    candidate texts ``(ordinal, seq, message_id, field, text)``."""
    return [(ordinal, seq, mid, field, f.start, f.end, f.kind, f.rule)
            for ordinal, seq, mid, field, text in rows for f in find_secrets(text)]


def _store_findings(store: KbStore, session_id: str, rows: Iterable[tuple[Any, ...]],
                    found: list[tuple[Any, ...]] | None = None) -> int:
    """Store the secrets of the candidate ``rows`` (or those ``found`` in them already)."""
    return _insert(store, [(session_id, *f)
                           for f in (found if found is not None else _findings(rows))])


def _insert(store: KbStore, found: list[tuple[Any, ...]]) -> int:
    """Store secrets found (rows of ``secrets``, the session id first): how many."""
    if found:
        cols = list(zip(*found))
        tbl = pa.Table.from_arrays(  # noqa: F841 (scanned by name below)
            [pa.array(c, type=f.type) for c, f in zip(cols, _SCHEMA)], schema=_SCHEMA)
        store.conn.execute("INSERT INTO secrets SELECT * FROM tbl")
        store.forget_secrets()
    return len(found)


def _scan_state(store: KbStore, session_id: str) -> str | None:
    row = store.conn.execute("SELECT ruleset FROM secret_scans WHERE session_id = ?",
                             [session_id]).fetchone()
    return row[0] if row else None


def _mark(store: KbStore, session_id: str) -> None:
    store.conn.execute(
        "INSERT OR REPLACE INTO secret_scans SELECT ?, ?, count(*), now() FROM secrets "
        "WHERE session_id = ?", [session_id, finder.RULESET, session_id])


def scan_batch(store: KbStore, session_id: str, batch: Batch | ArrowBatch) -> int:
    """Find the secrets of a batch of messages just written (ingest calls this once per
    batch, in the batch's transaction).  Findings of replaced messages went with them
    (:meth:`KbStore.delete_messages`)."""
    from kb.arrow import ArrowBatch, to_arrow_batch

    arrow = batch if isinstance(batch, ArrowBatch) else to_arrow_batch(batch)
    if not arrow:
        return 0
    first = _scan_state(store, session_id) != finder.RULESET
    if first:
        lo = min(pc.min(t.column("ordinal")).as_py() for t in arrow.tables.values())
        hi = max(pc.max(t.column("ordinal")).as_py() for t in arrow.tables.values())
        others = store.conn.execute(
            "SELECT count(*) FROM messages WHERE session_id = ? AND ordinal NOT BETWEEN ? AND ?",
            [session_id, lo, hi]).fetchone()
        if others and others[0]:
            return 0  # stored before it was scanned: backfill() scans the whole session
    if arrow.findings is not None:  # found by the derive worker
        n = _store_findings(store, session_id, (), arrow.findings)
    else:
        n = _store_findings(store, session_id, _batch_candidates(arrow))
    if first or n:  # once, after the findings (in the batch's transaction)
        _mark(store, session_id)
    return n


def scan_titles(store: KbStore, session_ids: Sequence[str]) -> int:
    """Find the secrets of the sessions' titles as stored now (safe14: a Claude Code
    ``summary`` line or an opencode title holds text no message does, and the title is
    shown by ``sessions``, the hand-off, the report, the TUI and pushed): the findings of
    a title that changed go first.  Ingest calls it after it writes a session's row."""
    ids = pa.table({"sid": pa.array(list(session_ids), type=pa.string())})  # noqa: F841
    store.conn.execute("DELETE FROM secrets WHERE field = 'sessions.title' AND session_id IN "
                       "(SELECT sid FROM ids)")
    rows = store.conn.execute(
        "SELECT session_id, title FROM sessions WHERE title IS NOT NULL AND session_id IN "
        "(SELECT sid FROM ids)").fetchall()
    return _insert(store, [(sid, 0, 0, "", "sessions.title", f.start, f.end, f.kind, f.rule)
                           for sid, title in rows if finder.may_hold_secret(title)
                           for f in find_secrets(title)])


def scan_new_sessions(store: KbStore, batch: ArrowBatch, session_ids: Sequence[str]) -> int:
    """Find the secrets of many sessions written together for the first time (ingest's
    group of small new sessions, :mod:`kb.ingest`): ``batch`` holds every row of them,
    each table with its ``session_id`` column.  One prefilter pass for the whole group;
    every session is marked scanned with the current rule set.  Call it in the group's
    transaction, after its rows are written."""
    found = _insert(store, [(row[0], *f) for row in _batch_candidates(batch, ("session_id",))
                            for f in _findings([row[1:]])])
    ids = pa.table({"sid": pa.array(list(session_ids), type=pa.string())})  # noqa: F841
    store.conn.execute(
        "INSERT OR REPLACE INTO secret_scans SELECT ids.sid, ?, count(s.session_id), now() "
        "FROM ids LEFT JOIN secrets s ON s.session_id = ids.sid GROUP BY ids.sid",
        [finder.RULESET])
    return found


_BATCH_FIELDS = (("calls", "command", "calls.command"), ("calls", "input", "calls.input"),
                 ("calls", "output", "calls.output"), ("calls", "error", "calls.error"),
                 ("calls", "title", "calls.title"), ("prose", "text", "prose.text"),
                 ("other", "text", "other_events.text"), ("other", "data", "other_events.data"))


def batch_findings(batch: ArrowBatch) -> list[tuple[Any, ...]]:
    """The secrets in a batch's texts (the derive worker finds them in its batches); what
    :func:`scan_batch` stores when :attr:`~kb.arrow.ArrowBatch.findings` holds it."""
    return _findings(_batch_candidates(batch))


def _batch_candidates(batch: ArrowBatch, lead: tuple[str, ...] = ()) -> list[tuple[Any, ...]]:
    """The batch's texts the prefilter matches, read from the batch's Arrow tables with
    Arrow's RE2 (the engine DuckDB's ``regexp_matches`` uses on the stored tables); in
    field order, then row order; ``lead`` names columns put before each row (the session
    of a group's rows).

    Every text column of the batch is matched in one call: Arrow compiles the pattern
    on each call, about 0.9 ms for this one, which was 70 % of the prefilter's time
    when each column of each 256-message batch had its own call."""
    cols: list[tuple[pa.Table, str, str]] = []
    for table, column, field in _BATCH_FIELDS:
        tbl = batch.tables.get(table)
        if tbl is not None and tbl.num_rows:
            cols.append((tbl, column, field))
    if not cols:
        return []
    texts = pa.concat_arrays([c for tbl, column, _ in cols for c in tbl.column(column).chunks])
    matched = pc.match_substring_regex(texts, finder.PREFILTERS[0])
    for pattern in finder.PREFILTERS[1:]:  # apart: each its own automaton (their doc)
        matched = pc.or_(matched, pc.match_substring_regex(texts, pattern))
    hit = pc.fill_null(pc.and_(pc.not_equal(texts, ""), matched), False)
    out: list[tuple[Any, ...]] = []
    at = 0
    for tbl, column, field in cols:
        mask = hit.slice(at, tbl.num_rows)
        at += tbl.num_rows
        picked = tbl.filter(mask)
        if not picked.num_rows:
            continue
        out += zip(*(picked.column(c).to_pylist() for c in lead),
                   picked.column("ordinal").to_pylist(), picked.column("seq").to_pylist(),
                   picked.column("message_id").to_pylist(), [field] * picked.num_rows,
                   picked.column(column).to_pylist())
    return out


def backfill(store: KbStore) -> list[str]:
    """Scan every session not scanned with the current rule set; the sessions scanned."""
    todo = [r[0] for r in store.conn.execute(
        "SELECT s.session_id FROM sessions s LEFT JOIN secret_scans c USING (session_id) "
        "WHERE c.ruleset IS DISTINCT FROM ? ORDER BY 1", [finder.RULESET]).fetchall()]
    for sid in todo:
        with store.transaction():
            store.conn.execute("DELETE FROM secrets WHERE session_id = ?", [sid])
            if _store_findings(store, sid, _candidates(store, sid, None, None)):
                # what was derived from the text before it was redacted (the graph) goes
                # with this transaction: the subscribers drop it
                store.forget_secrets([sid])
            _mark(store, sid)
    if todo:
        store.forget_secrets()
    return todo


def report(store: KbStore, session_id: str | None = None) -> list[dict[str, Any]]:
    """What was found where: one row per finding with a masked preview, in transcript
    order.  Never the secret itself."""
    from kb.store import SECRET_FIELDS
    where = "WHERE s.session_id = $s" if session_id else ""
    params = {"s": session_id} if session_id else {}
    parts = []
    for field, (table, expr) in SECRET_FIELDS.items():
        parts.append(
            f"SELECT s.session_id, s.ordinal, s.seq, s.field, s.start, s.stop, s.kind, s.rule, "
            f"substring(t.x, s.start + 1, s.stop - s.start) AS value FROM secrets s "
            f"JOIN (SELECT session_id, ordinal, seq, {expr} AS x FROM {table}) t "
            "ON t.session_id = s.session_id AND t.ordinal = s.ordinal AND t.seq = s.seq "
            f"AND s.field = '{field}' {where}")
    cur = store.conn.execute(
        f"SELECT * FROM ({' UNION ALL '.join(parts)}) ORDER BY session_id, ordinal, seq, field, "
        "start", params)
    names = [d[0] for d in cur.description]
    rows = []
    for r in cur.fetchall():
        d = dict(zip(names, r))
        d["preview"] = finder.mask(d.pop("value") or "")
        rows.append(d)
    return rows


def counts(store: KbStore, session_id: str | None = None) -> dict[str, Any]:
    """Sessions scanned, not yet scanned, and findings by kind (of ``session_id`` only
    when it is given)."""
    from kb.store import unscanned_sessions
    where, params = ("WHERE session_id = ?", [session_id]) if session_id else ("", [])
    kinds = dict(store.conn.execute(
        f"SELECT kind, count(*) FROM secrets {where} GROUP BY 1 ORDER BY 2 DESC, 1",
        params).fetchall())
    scanned = store.conn.execute("SELECT count(*) FROM secret_scans WHERE ruleset = ?",
                                 [finder.RULESET]).fetchone()
    return {"ruleset": finder.RULESET, "sessions_scanned": int(scanned[0]) if scanned else 0,
            "sessions_unscanned": unscanned_sessions(store.conn), "kinds": kinds}
