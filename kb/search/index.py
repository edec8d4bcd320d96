"""The full-text index (tantivy) beside the knowledge base: ``kb.duckdb.index/``.

Derived data, never the only copy of anything: every document is a search unit
(:mod:`kb.search.scan`) read from DuckDB, and the directory can be deleted at
any time (the next search or ``logkb rebuild --index`` builds it again).

Freshness is a stamp per session in ``logkb-index.json``: the session's
``ingested_at``, message and event counts (which every ingest that writes the
session changes) and a digest of its messages (id, content digest, ordinal).
:meth:`SearchIndex.sync` brings the index up to the knowledge base: a session
whose stamp did not change is left alone, one that only grew (its old messages
keep their digests and ordinals) gets its new units added, anything else is
indexed again.  The meta file also records the database file's size and mtime,
so a search can tell the index is fresh without opening DuckDB at all.
"""

from __future__ import annotations

import os
import shutil
import threading
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import orjson
import tantivy as tv

from kb.search import query as q
from kb.search.scan import (
    SRC,
    message_stamp,
    patterns,
    session_stamps,
    snippet,
    unit_documents,
    units,
)

if TYPE_CHECKING:
    from kb.store import KbStore

SCHEMA_VERSION = 4
"""Bumped whenever the schema or the tokenizer changes: an older index is rebuilt (3: the
``cjk`` field, the character pairs of Chinese, Japanese and Korean words; 4: the ``glued``
field, words of other scripts written against CJK characters)."""
META = "logkb-index.json"
TOKENIZER = "default"
"""tantivy's own (letters and digits, lowercased, < 40 bytes): a regex tokenizer with
Unicode classes indexed 2.4 MB/s, this one is many times faster."""
INDEX_THREADS = min(2, os.cpu_count() or 1)
"""tantivy's indexing threads.  The index is written when a session's rows are all
stored, so the derive workers are idle by then: on the 100k-message bench session
(291k units, 210 MB of text) two threads index in 3.7 s where one takes 5.8 s."""
WRITER_HEAP = int(os.environ.get("LOGKB_INDEX_HEAP", 48_000_000))
"""Bytes tantivy's writer buffers before it writes a segment (shared by its threads).
96 MB took 70 MB of the 50x home's peak while indexing (issue 28); 48 MB writes more,
smaller segments."""
_STRINGS = ("session", "message_id", "field", "kind", "tool", "category", "host")


class IndexUnavailable(Exception):
    """The index cannot be used now (busy writer, unreadable directory); scan instead."""


def index_dir(db_path: str | Path) -> Path:
    """Where the index of the knowledge base file ``db_path`` lives."""
    return Path(str(db_path) + ".index")


def db_stat(db_path: str | Path) -> str | None:
    """Size and mtime of the database file and its WAL (what any write changes)."""
    parts = []
    for p in (Path(db_path), Path(str(db_path) + ".wal")):
        try:
            st = p.stat()
        except OSError:
            parts.append("-")
            continue
        parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return "/".join(parts) if parts[0] != "-" else None


def _schema() -> tv.Schema:
    sb = tv.SchemaBuilder()
    sb.add_text_field("body", stored=True, tokenizer_name=TOKENIZER)
    # the pairs of each word with a CJK character (kb.search.query.cjk_terms), made before
    # indexing: one value per word, the pairs lowercased and split by spaces; a phrase of
    # a query word's pairs finds it inside a longer run, which ``body`` holds whole
    sb.add_text_field("cjk", stored=False, tokenizer_name="whitespace")
    # a text with a word of another script written against CJK (``我的matugen脚本``: one
    # word to the tokenizer) again, each CJK character set apart (kb.search.query.glued_text)
    sb.add_text_field("glued", stored=False, tokenizer_name=TOKENIZER)
    for name in _STRINGS:
        sb.add_text_field(name, stored=True, tokenizer_name="raw")
    sb.add_integer_field("ordinal", stored=True, indexed=True, fast=True)
    sb.add_integer_field("seq", stored=True, fast=True)
    sb.add_integer_field("src", fast=True)
    sb.add_integer_field("time", stored=True, indexed=True, fast=True)
    return sb.build()


_OPEN: dict[str, SearchIndex] = {}


class SearchIndex:
    """One tantivy index directory and its freshness stamps."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.meta_path = path / META
        self.meta = self._read_meta()
        if self.meta.get("version") != SCHEMA_VERSION:
            self._reset()
        self.schema = _schema()
        try:
            self.index = tv.Index(self.schema, path=str(path), reuse=True)
        except Exception:  # an unreadable or foreign directory: start again
            self._reset()
            self.index = tv.Index(self.schema, path=str(path), reuse=True)
        self._lock = threading.Lock()  # the TUI's workers may sync from two threads

    def _writer(self) -> tv.IndexWriter:
        try:
            return self.index.writer(heap_size=WRITER_HEAP, num_threads=INDEX_THREADS)
        except ValueError as e:  # another process holds the writer lock
            raise IndexUnavailable(f"the search index is busy: {e}") from None

    @classmethod
    def for_db(cls, db_path: str | Path) -> SearchIndex:
        """The index of ``db_path`` (created empty when missing); cached per process, and
        reopened when another process rebuilt it or reloaded when it committed."""
        path = index_dir(db_path)
        cached = _OPEN.get(str(path))
        if cached is not None:
            meta = cached._read_meta()
            if meta.get("generation") == cached.meta.get("generation") and meta:
                if meta != cached.meta:
                    cached.meta = meta
                    cached.index.reload()
                return cached
        try:
            idx = cls(path)
        except OSError as e:
            raise IndexUnavailable(f"{path}: {e}") from None
        _OPEN[str(path)] = idx
        return idx

    # ------------------------------------------------------------ freshness
    def _read_meta(self) -> dict[str, Any]:
        try:
            meta = orjson.loads(self.meta_path.read_bytes())
        except (OSError, orjson.JSONDecodeError):
            return {}
        return meta if isinstance(meta, dict) else {}

    def _write_meta(self) -> None:
        tmp = self.meta_path.with_suffix(".tmp")
        tmp.write_bytes(orjson.dumps(self.meta))
        os.replace(tmp, self.meta_path)

    def _reset(self) -> None:
        shutil.rmtree(self.path, ignore_errors=True)
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(self.path, 0o700)  # the index holds the (redacted) text: the owner's alone
        self.meta = {"version": SCHEMA_VERSION, "generation": os.urandom(8).hex(),
                     "sessions": {}, "db_stat": None}
        self._write_meta()

    def fresh_for(self, db_path: str | Path) -> bool:
        """True when the database file did not change since the index was last synced."""
        stat = db_stat(db_path)
        return stat is not None and self.meta.get("db_stat") == stat

    def sync(self, store: KbStore, only: Iterable[str] | None = None,
             progress: Callable[[str], None] | None = None) -> dict[str, int]:
        """Bring the index up to ``store`` (every session, or those in ``only``).

        Returns how many sessions were ``unchanged``, ``grown`` or ``reindexed`` and
        how many ``units`` were added.  Records the database file's stat when every
        session was looked at, so the next search can skip the check."""
        with self._lock:
            return self._sync(store, only, progress)

    def _sync(self, store: KbStore, only: Iterable[str] | None,
              progress: Callable[[str], None] | None) -> dict[str, int]:
        stamps = session_stamps(store)
        known: dict[str, Any] = self.meta.setdefault("sessions", {})
        wanted = list(stamps) if only is None else [s for s in only if s in stamps]
        gone = [s for s in known if s not in stamps] if only is None else []
        report = {"unchanged": 0, "grown": 0, "reindexed": 0, "removed": len(gone), "units": 0}
        work: list[tuple[str, int | None, list[int]]] = []
        for sid in wanted:
            old = known.get(sid)
            if old is not None and old.get("session") == stamps[sid]:
                report["unchanged"] += 1
                continue
            full = message_stamp(store, sid)
            if old is not None and old.get("messages") == full:
                old["session"] = stamps[sid]
                report["unchanged"] += 1
                continue
            after = None
            if old is not None and old.get("messages"):
                upto = old["messages"][1]
                if message_stamp(store, sid, upto=upto) == old["messages"]:
                    after = upto
            work.append((sid, after, full))
        if work or gone:
            writer = self._writer()
            try:
                for sid in gone:
                    writer.delete_documents_by_term("session", sid)
                    known.pop(sid, None)
                events = {sid: int(st[2] or 0) for sid, st in stamps.items()}
                for group, after in _runs(work, events):
                    # sessions indexed whole go in one query per run of them (a query per
                    # session cost more than its rows: issue 28), in the same order
                    for sid in group:
                        if progress:
                            progress(sid)
                        if after is None:
                            writer.delete_documents_by_term("session", sid)
                    # one session alone: its own query, streamed
                    which: str | list[str] = group if len(group) > 1 else group[0]
                    docs = unit_documents(store, which, after)
                    if docs is None:  # secrets to hide: built here from the hidden texts
                        docs = (orjson.dumps(unit_document(r)).decode()
                                for r in units(store, which, after))
                    report["units"] += _add(writer, docs)
                    report["grown" if after is not None else "reindexed"] += len(group)
                for sid, _, full in work:
                    known[sid] = {"session": stamps[sid], "messages": full}
                writer.commit()
                writer.wait_merging_threads()
            except BaseException:
                writer.rollback()
                self.meta = self._read_meta()
                raise
            self.index.reload()
        # who each session is (agent, title, top-level): hits name their session without
        # the search opening DuckDB (kb.search.Found.sessions)
        self.meta["labels"] = store.session_labels()
        if only is None and store.path != ":memory:":
            self.meta["db_stat"] = db_stat(store.path)
        else:
            self.meta["db_stat"] = None
        self._write_meta()
        return report

    def rebuild(self, store: KbStore, progress: Callable[[str], None] | None = None
                ) -> dict[str, int]:
        """Throw the index away and index every session again."""
        self._reset()
        self.index = tv.Index(self.schema, path=str(self.path), reuse=False)
        return self.sync(store, progress=progress)

    # ---------------------------------------------------------------- search
    def to_query(self, node: q.Node) -> tv.Query:
        """The tantivy query for a parsed query."""
        s = self.schema
        if isinstance(node, q.Everything):
            return tv.Query.all_query()
        if isinstance(node, q.Text):
            ws = list(node.words)
            if not ws:
                return tv.Query.empty_query()
            clauses = q.text_parts(node)
            if len(clauses) > 1:
                return tv.Query.boolean_query([(tv.Occur.Must, self.to_query(c))
                                               for c in clauses])
            if q.has_cjk(ws[0]):  # one word with a CJK character: its pairs in a row
                pairs = q.bigrams(ws[0])
                if len(ws[0]) < 2:  # one character: in any pair
                    return tv.Query.regex_query(s, "cjk", f".?{_re_escape(ws[0])}.?")
                if len(pairs) == 1:
                    return tv.Query.term_query(s, "cjk", pairs[0])
                return tv.Query.phrase_query(s, "cjk", [*pairs])
            # the words in ``body`` or, written against CJK characters, in ``glued``: the
            # better of the two scores (a text with both would otherwise count twice)
            return tv.Query.disjunction_max_query([self._words("body", ws, node.prefix),
                                                   self._words("glued", ws, node.prefix)])
        if isinstance(node, q.Match):
            if node.field == "session":
                alts = [tv.Query.regex_query(s, "session", _re_escape(v) + ".*")
                        for v in node.values]
            else:
                alts = [tv.Query.term_query(s, node.field, v) for v in node.values]
            one = alts[0] if len(alts) == 1 else tv.Query.boolean_query(
                [(tv.Occur.Should, a) for a in alts])
            return tv.Query.const_score_query(one, 0.0)
        if isinstance(node, q.Range):
            return tv.Query.const_score_query(tv.Query.range_query(
                s, node.field, tv.FieldType.Integer,
                node.low if node.low is not None else -(2 ** 63),
                node.high if node.high is not None else 2 ** 63 - 1), 0.0)
        if isinstance(node, q.Not):
            return tv.Query.boolean_query([(tv.Occur.Must, tv.Query.all_query()),
                                           (tv.Occur.MustNot, self.to_query(node.child))])
        if isinstance(node, q.And):
            parts = [(tv.Occur.MustNot, self.to_query(c.child)) if isinstance(c, q.Not)
                     else (tv.Occur.Must, self.to_query(c)) for c in node.children]
            if all(o == tv.Occur.MustNot for o, _ in parts):
                parts.append((tv.Occur.Must, tv.Query.all_query()))
            return tv.Query.boolean_query(parts)
        if isinstance(node, q.Or):
            return tv.Query.boolean_query([(tv.Occur.Should, self.to_query(c))
                                           for c in node.children])
        raise TypeError(node)  # pragma: no cover

    def _words(self, field: str, ws: list[str], prefix: bool) -> tv.Query:
        """``ws`` in a row in ``field`` (the last a prefix with ``prefix``)."""
        s = self.schema
        if prefix:
            if len(ws) == 1:
                return tv.Query.regex_query(s, field, _re_escape(ws[0]) + ".*")
            pattern: list[str | tuple[int, str]] = [_re_escape(w) for w in ws[:-1]]
            return tv.Query.regex_phrase_query(s, field, pattern + [_re_escape(ws[-1]) + ".*"])
        if len(ws) == 1:
            return tv.Query.term_query(s, field, ws[0])
        words: list[str | tuple[int, str]] = [*ws]
        return tv.Query.phrase_query(s, field, words)

    def search(self, node: q.Node, *, limit: int = 50, newest: bool = False
               ) -> list[dict[str, Any]]:
        """The best ``limit`` units for ``node``: BM25 order, or newest first."""
        query = self.to_query(node)
        searcher = self.index.searcher()
        if newest or not q.has_text(node):
            res = searcher.search(query, limit, count=False, order_by_field="time")
        else:
            res = searcher.search(query, limit, count=False)
        terms = q.text_terms(node)
        pats = patterns(terms)
        out = []
        for score, addr in res.hits:
            doc = searcher.doc(addr)
            hit = _hit(doc)
            hit["score"] = None if (newest or not terms) else round(float(score), 4)
            # tantivy's SnippetGenerator costs 1-2 ms per long output; one regex pass is
            # ~50x cheaper and highlights the same words the scan's snippets do
            hit["snippet"], hit["highlights"] = snippet(hit["text"] or "", pats)
            out.append(hit)
        return out

    def keys(self, node: q.Node, cap: int = 200_000) -> list[tuple[int, int, int]] | None:
        """``(ordinal, seq, src)`` of every unit matching ``node``; ``None`` past ``cap``
        (the caller scans instead)."""
        query = self.to_query(node)
        searcher = self.index.searcher()
        res = searcher.search(query, cap + 1, count=False)
        hits = [a for _, a in res.hits]
        if len(hits) > cap:
            return None
        if not hits:
            return []
        ords = searcher.fast_field_values("ordinal", hits)
        seqs = searcher.fast_field_values("seq", hits)
        srcs = searcher.fast_field_values("src", hits)
        return sorted({(int(o), int(s), int(r))  # type: ignore[arg-type]
                       for o, s, r in zip(ords, seqs, srcs)})


def _re_escape(word: str) -> str:
    return "".join("\\" + c if c in r"\.+*?()|[]{}^$#&-~" else c for c in word)


def unit_document(row: tuple[Any, ...]) -> dict[str, Any]:
    """The index's document of a search unit (a row of :func:`~kb.search.scan.units`);
    :func:`~kb.search.scan.unit_documents` writes the same ones in SQL."""
    sid, mid, ordinal, seq, field, kind, tool, category, host, time, text = row
    doc: dict[str, Any] = {"body": text or "", "session": sid, "message_id": mid,
                           "field": field, "kind": kind, "ordinal": ordinal, "seq": seq,
                           "src": SRC[field], "time": time or 0}
    if tool:
        doc["tool"] = tool
    if category:
        doc["category"] = category
    if host:
        doc["host"] = host
    cjk = q.cjk_terms(text or "")
    if cjk:
        doc["cjk"] = cjk
    glued = q.glued_text(text or "")
    if glued:
        doc["glued"] = glued
    return doc


RUN_EVENTS = 5_000
"""Events of the sessions indexed whole read in one query at most: the query sorts its
rows (into the order of each session's own query), so a run holds them all; a session
larger than this is read alone, streamed by its own query.  20,000 needed a 160 MB
DuckDB cache, and ``ingest --wait`` peaked there on the 50x home; 5,000 fit in 96 MB
(``kb.ingest.INDEX_MEMORY_LIMIT``; issue 28, BENCHMARKS.md)."""


def _runs(work: list[tuple[str, int | None, list[int]]], events: dict[str, int]
          ) -> Iterator[tuple[list[str], int | None]]:
    """``work`` as runs: consecutive sessions indexed whole together (up to
    :data:`RUN_EVENTS` events: ``events`` by session), each one grown past an ordinal
    alone."""
    group: list[str] = []
    size = 0
    for sid, after, _ in work:
        n = events.get(sid, 0)
        if group and (after is not None or size + n > RUN_EVENTS):
            yield group, None
            group, size = [], 0
        if after is not None:
            yield [sid], after
            continue
        group.append(sid)
        size += n
    if group:
        yield group, None


def _add(writer: tv.IndexWriter, docs: Iterable[str]) -> int:
    # one JSON document per unit: about twice as fast as building tantivy Documents
    n = 0
    add = writer.add_json
    for doc in docs:
        add(doc)
        n += 1
    return n


def _hit(doc: tv.Document) -> dict[str, Any]:
    d = doc.to_dict()

    def one(name: str) -> Any:
        v = d.get(name)
        return v[0] if v else None

    return {"session_id": one("session"), "message_id": one("message_id"),
            "ordinal": one("ordinal"), "seq": one("seq"), "field": one("field"),
            "kind": one("kind"), "tool": one("tool"), "category": one("category"),
            "host": one("host"), "time": one("time") or None, "text": one("body")}
