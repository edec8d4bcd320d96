"""Ingest: inputs → readers → deriver → store, batch by batch.

Idempotent and incremental: a message already stored with the same digest at
the same ordinal is not derived or written again, a session that grew adds only
its new messages, and an input file whose fingerprint (size, mtime, and its WAL
for a database) did not change is not read at all.  An incomplete source (the
run stream) never overwrites a session stored from a complete one.

Nothing read is lost or doubled:

* every message lands once, under the session it names: a session met again
  later in the same input (JSONL lines of sessions A, B, A) continues where it
  stopped, and that is reported;
* a message id met twice in one session is stored once: an identical repeat is
  reported, a repeat with other content is a problem that keeps its raw text;
* a message keeps the id it was first stored under: a Claude Code, Codex, pi or
  Antigravity message (named by its line) read at another line, after a line was added
  or removed before it, is the stored message its own record is (:class:`_Aliases`);
* every batch commits together with its session row, so messages never exist
  without one, and a session's last batch marks its graph as owed
  (``graph_pending``); the graph phase clears the mark when its graph commits, so
  an ingest killed there is finished by the next ingest or graph query.

A grown append-only transcript (Claude Code, Codex, opencode JSONL) is read on from
where its last reading ended (:func:`_resume_input`, migration ``044_resume_offsets``):
only the appended lines and the messages the reader still held back are read and
derived, and the store ends exactly as a whole reading of the grown file leaves it.
Anything the resume point cannot vouch for (a shrunk or rewritten file, another reader
version, a sub-agent or a repeated id in the tail) reads the file whole.

Disk full and file-size limits end the ingest with :class:`~kb.store.KbError`
(exit 1); every committed batch is whole, and the input is read again next time.
"""

from __future__ import annotations

import errno
import gc
import os
import re
import signal
import stat
import sys
import threading
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path

import duckdb
import orjson
import pyarrow as pa

from kb.arrow import ArrowBatch
from kb.derive_pool import DerivePool, LocalDeriver, RemoteDeriver, pool_wanted
from kb.search import after_ingest
from kb.secrets import backfill as backfill_secrets
from kb.secrets import scan_batch, scan_new_sessions, scan_titles
from kb.store import KbError, KbStore
from logparse.author import COMPACTION, HARNESS, part_author, session_author
from logparse.claude_code import (
    HELD,
    MERGED,
    ClaudeCodeReader,
    call_links,
    merge_response,
    response_ids,
)
from logparse.derive_version import DERIVE_VERSION
from logparse.models import Problem, SessionInfo
from logparse.msgkey import (
    LINE_KEYED,
    content_digest,
    id_line,
    line_id,
    own_identity,
    own_key,
    record_index,
    record_keys,
)
from logparse.registry import READERS, Input, discover
from logparse.request import request_text
from logparse.resume import Diverged, Resume, line_start, prefix_hashes
from logparse.safe_open import link_target
from logparse.source import (
    TAIL_RECORDS,
    NotATranscript,
    RawMessage,
    SourceSession,
    TranscriptReader,
    lines_at,
)

BATCH_MESSAGES = 2048
"""Messages derived and written together."""
BATCH_BYTES = 16 << 20
"""... or as many as hold this many bytes of source (their raw JSON): a batch's Arrow
tables and DuckDB's copy of them stay bounded when messages are large (10^6 records of an
unknown type between two Claude Code messages leave as messages of 512 records each:
2,048 of 1,000 records held ~370 MB)."""
COMMIT_BYTES = 64 << 20
"""A transaction holds batches until their messages reach this many bytes of source (or
the session's run ends).  DuckDB logs a small transaction and then checkpoints it into
the last row group, rewriting that group each time; fewer, larger transactions halve
the cost of writing a long session."""

WRITE_MEMORY_LIMIT = "128MB"
"""DuckDB's cache while an ingest reads and writes its inputs (``LOGKB_WRITE_MEMORY_LIMIT``;
80 % of RAM by default).  The writes stream, so a small cache keeps the footprint flat
whatever the input size: at 320 MB each checkpoint's blocks (the big strings written
since the last one) stayed cached, and the 50x home of real sessions peaked at 507-588
MiB; at 128 MB, 379-383 MiB.  Smaller costs CPU (the per-session statements read back
columns the cache dropped: 96 MB took ~20 % more on that home, 128 MB ~10 %), and
blocks of a transaction larger than the cache spill to ``<kb>.duckdb.tmp/`` until it
commits (issue 28, BENCHMARKS.md)."""
LARGE_MEMORY_LIMIT = "320MB"
"""DuckDB's cache while an input large enough for the derive workers is written
(``LOGKB_LARGE_MEMORY_LIMIT``): its transactions hold up to :data:`COMMIT_BYTES` of
source, which spilled at 128 MB (the 40k-message JSONL took 16.4 s instead of 11.0 s,
peaking at 377 MiB instead of 430)."""
CHECKPOINT_THRESHOLD = "1GB"
"""DuckDB checkpoints when a commit leaves its write-ahead log this large (while an
ingest writes; ``LOGKB_CHECKPOINT_THRESHOLD``; DuckDB's default, 16 MB, is set back
after).  A checkpoint rewrites each changed table's last row group whole (up to 122,880
rows: all of ``messages`` on a home of 47k messages), so at 16 MB the 50x home of real
sessions checkpointed 23 times at ~0.45 s of CPU each, ~10 of its 26 s; at 1 GB once,
when the store closes (~2.5 s), its log reaching ~540 MB on disk meanwhile, peak RSS
5-10 MiB higher (issue 28, BENCHMARKS.md).  A large input's 64 MB transactions
checkpoint as before once the log is full: the 40k-message JSONL took the same CPU."""
INDEX_MEMORY_LIMIT = "128MB"
"""DuckDB's cache while the search index reads back what the ingest wrote
(``LOGKB_INDEX_MEMORY_LIMIT``).  The index reads runs of up to 5,000 events
(:data:`kb.search.index.RUN_EVENTS`), which fit: at 160 MB with runs of 20,000 (the
index's query of 20,000 events ran out of memory at 96 MB) the index was the peak of
``ingest --wait`` on the 50x home, ~20 MiB above the writes' (issue 28, BENCHMARKS.md)."""
MEMORY_LIMIT = "160MB"
"""DuckDB's cache for the rest of the ingest (``LOGKB_MEMORY_LIMIT``): the graph sorts
and joins whole runs of sessions (it ran out of memory at 96 MB)."""

Progress = Callable[[int], None]
"""Called with a number of source bytes just processed."""


@dataclass
class SessionReport:
    session_id: str
    title: str | None
    messages: int
    events: int
    new_messages: int
    form: str
    path: str
    parent_id: str | None = None
    kept: int = 0
    """Stored messages this input lacks (an older or shorter copy): kept, never deleted."""
    agent: str | None = None
    """The agent that wrote the session (for a ``rewrite``: the one its header names)."""
    updated_messages: int = 0
    """Messages stored before that this input holds changed or at another place (a call's
    result written since, a line added or removed before it): stored again in place."""
    unchanged_messages: int = 0
    """Messages this input holds as they were stored (derived again only when the rules
    changed: :data:`DERIVE_VERSION`)."""
    conflicts: int = 0
    """Messages this input holds with other content than the stored copy of a session that
    ends with the same record (:func:`_diverged`): the stored one is kept, this one is kept
    raw with a problem naming its file and line."""
    older: bool = False
    """The input is an older copy of the stored session (:func:`_older_copy`); else the
    stored messages it lacks (:attr:`kept`) are another file's of the session."""

    def as_json(self) -> dict[str, object]:
        return {"id": self.session_id, "title": self.title, "messages": self.messages,
                "events": self.events, "new_messages": self.new_messages,
                "updated_messages": self.updated_messages,
                "unchanged_messages": self.unchanged_messages, "form": self.form,
                "agent": self.agent, "path": self.path, "parent_id": self.parent_id,
                "kept": self.kept, "conflicts": self.conflicts}


@dataclass
class IngestReport:
    sessions: list[SessionReport] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    errors: list[NotATranscript] = field(default_factory=list)
    not_taken: list[NotATranscript] = field(default_factory=list)
    """Files a directory walk met that are not transcripts (nor refused by name)."""
    skipped: dict[str, dict[str, int]] = field(default_factory=dict)
    """Per input: records of types its reader does not know, by type (kept raw)."""
    unchanged: list[str] = field(default_factory=list)
    """Inputs skipped because they did not change since the last ingest."""
    graphs: list[str] = field(default_factory=list)
    """Scopes whose knowledge graph was rebuilt."""
    links: list[dict[str, str]] = field(default_factory=list)
    """Inputs reached through a symlink: ``{"path": the link, "target": where it leads}``."""
    resumed: list[str] = field(default_factory=list)
    """Inputs read on from their resume point rather than whole (grown append-only files)."""
    states_discarded: dict[str, int] = field(default_factory=dict)
    """Kept extraction states the graph phase could not use, by reason
    (:data:`kb.graph.state.DISCARDED`): derived again from the rows, and counted."""

    _at: dict[str, int] = field(default_factory=dict, repr=False)
    """Where each session is in :attr:`sessions`."""

    def add(self, rep: SessionReport) -> None:
        """Record a session; a session met again (in another form) is reported once."""
        i = self._at.get(rep.session_id)
        if i is not None:
            was = self.sessions[i]
            rep.new_messages += was.new_messages
            rep.updated_messages += was.updated_messages
            rep.unchanged_messages += was.unchanged_messages
            self.sessions[i] = rep
            return
        self._at[rep.session_id] = len(self.sessions)
        self.sessions.append(rep)

    @property
    def new_messages(self) -> int:
        return sum(s.new_messages for s in self.sessions)

    @property
    def updated_messages(self) -> int:
        return sum(s.updated_messages for s in self.sessions)

    @property
    def unchanged_messages(self) -> int:
        return sum(s.unchanged_messages for s in self.sessions)

    def as_json(self) -> dict[str, object]:
        return {
            "sessions": [s.as_json() for s in self.sessions],
            "problems": [p.model_dump() for p in self.problems],
            "errors": [{"path": e.path, "reason": e.reason} for e in self.errors],
            "not_taken": [{"path": e.path, "reason": e.reason} for e in self.not_taken],
            "skipped": [{"path": p, "records": sum(t.values()), "types": t}
                        for p, t in self.skipped.items()],
            "unchanged": self.unchanged,
            "graphs_rebuilt": self.graphs,
            "links": self.links,
            "resumed": self.resumed,
            "states_discarded": {"count": sum(self.states_discarded.values()),
                                 "reasons": dict(sorted(self.states_discarded.items()))},
        }


def fingerprint(path: Path) -> str | None:
    """Size and mtime of a file (and of its WAL); ``None`` for directories.  Two stats,
    no open: what a re-run with nothing changed costs per file."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    parts = [f"{st.st_size}:{st.st_mtime_ns}"]
    try:
        wal = os.stat(f"{path}-wal")
        parts.append(f"{wal.st_size}:{wal.st_mtime_ns}")
    except OSError:
        pass
    return "/".join(parts)


_FORMS: dict[str, type[TranscriptReader]] = {r.form: r for r in READERS}


@dataclass
class Seen:
    """What the knowledge base holds of its inputs, read once per ingest: the stat pass
    compares each file against it (no query, no open per unchanged file)."""

    sources: dict[str, tuple[str, str]]
    """path → (form, fingerprint) as last ingested."""
    stale: frozenset[str]
    """Sources of sessions derived by older rules (read again whatever their stat)."""
    resumable: frozenset[str] = frozenset()
    """Sources with a resume point (a grown one is read on from there)."""

    @classmethod
    def load(cls, store: KbStore) -> Seen:
        return cls(store.sources(), frozenset(p for p, _ in store.stale_sources(DERIVE_VERSION)),
                   frozenset(store.resume_paths()))

    def unchanged(self, path: Path, fp: str | None) -> bool:
        spath = str(path)
        row = self.sources.get(spath)
        return fp is not None and row is not None and row[1] == fp and spath not in self.stale

    def known(self, path: Path) -> type[TranscriptReader] | None:
        """The reader of a file ingested before and unchanged since (see
        :func:`logparse.registry.discover`)."""
        row = self.sources.get(str(path))
        if row is None or not self.unchanged(path, fingerprint(path)):
            return None
        return _FORMS.get(row[0])


def plan(paths: Sequence[Path], seen: Seen | None = None, own: str | Path | None = None
         ) -> tuple[list[Input], list[NotATranscript]]:
    """The inputs found under ``paths`` (files are detected by content; with ``seen``, a
    file ingested before and unchanged since is taken without being opened).  ``own``:
    the knowledge base being written; it, its write-ahead log and its search index,
    found in a folder searched, are no transcript to report."""
    inputs: list[Input] = []
    errors: list[NotATranscript] = []
    seen_files: set[tuple[int, int]] = set()
    known = seen.known if seen is not None else None
    mine, index = _own_files(own)
    for p in paths:
        # absolute (links kept, not resolved): the path is the input's key in the store,
        # and `sessions`, `rebuild` and the TUI open it again from any directory
        for found in discover(Path(os.path.abspath(p)), known):
            if isinstance(found, NotATranscript):
                real = os.path.realpath(found.path)
                if real not in mine and not (index and real.startswith(index)):
                    errors.append(found)
                continue
            try:  # the same file reached twice (a link, a path given twice): read once
                st = os.stat(found.path)
                key = (st.st_dev, st.st_ino)
            except OSError:
                inputs.append(found)
                continue
            if key not in seen_files:
                seen_files.add(key)
                inputs.append(found)
    return inputs, errors


def adopt_relative(store: KbStore, inputs: Sequence[Input]) -> bool:
    """Store the inputs an older logkb recorded by a relative path (as typed, from the
    directory it ran in) by the absolute path ``inputs`` name them by: the file counts
    as ingested (unchanged, resumable, its problems its own) whatever the directory.

    A relative path names an input that is the one it reaches from here, else the one
    input whose path ends with it (the directory it ran in is not recorded); no such
    input, or several: the row stays as it is.  ``True`` when a row moved (what was
    loaded of the store's inputs, :class:`Seen`, is stale)."""
    rel = store.relative_sources()
    if not rel:
        return False
    paths = {str(i.path) for i in inputs}
    moves: dict[str, str] = {}
    for r in rel:
        here = os.path.abspath(r)
        if here in paths:
            moves[r] = here
            continue
        tail = os.sep + os.path.normpath(r)
        hits = [p for p in paths if p.endswith(tail)]
        if len(hits) == 1:
            moves[r] = hits[0]
    taken = Counter(moves.values())  # two stored paths, one file: both stay
    moves = {k: v for k, v in moves.items() if taken[v] == 1}
    store.move_sources(moves)
    return bool(moves)


def to_read(inputs: Sequence[Input], seen: Seen | None, *, force: bool = False,
            filtered: bool = False) -> list[Input]:
    """The inputs an ingest will open: not those unchanged since they were read (all
    of them with ``force`` or a session filter, ``filtered``, as :func:`ingest` does)."""
    if seen is None or force or filtered:
        return list(inputs)
    return [i for i in inputs if not seen.unchanged(i.path, fingerprint(i.path))]


def _own_files(db: str | Path | None) -> tuple[frozenset[str], str]:
    """The files a knowledge base at ``db`` is kept in (the file and DuckDB's ``.wal``),
    and the folder of its search index with a separator after it (``DB.index/``:
    :func:`kb.search.index.index_dir`, not imported here: it loads tantivy)."""
    if db is None or str(db) == ":memory:":
        return frozenset(), ""
    base = os.path.realpath(db)
    return frozenset({base, base + ".wal"}), base + ".index" + os.sep


def input_size(inp: Input) -> int:
    try:
        st = os.stat(inp.path)
    except OSError:
        return 0
    if not stat.S_ISREG(st.st_mode):
        return 0
    try:
        return st.st_size + os.stat(f"{inp.path}-wal").st_size
    except OSError:
        return st.st_size


def ingest(store: KbStore, paths: Sequence[Path], *, session_ids: Iterable[str] | None = None,
           progress: Progress | None = None, force: bool = False, graph: bool = True,
           index: bool = True, inputs: tuple[list[Input], list[NotATranscript]] | None = None,
           seen: Seen | None = None, phase: Callable[[str], None] | None = None
           ) -> IngestReport:
    """Ingest every transcript under ``paths`` into ``store``.

    ``graph`` / ``index``: bring the knowledge graph and the search index up to date
    before returning.  Without, they are owed (``graph_pending``; the index finds itself
    stale) and the first query that reads them builds them: the ingest returns when
    messages and events are committed.  ``seen``: the store's inputs as read before
    ``inputs`` were planned with it (:func:`plan`).  ``phase``: told what the ingest does
    once every input is read (``"deriving knowledge graphs"``), for a progress display."""
    if index:
        _subscribe(store)
    else:
        store.hooks.on_secrets_forgotten(_forget_graphs)
    with _write_errors(store):
        return _ingest(store, paths, session_ids=session_ids, progress=progress, force=force,
                       graph=graph, inputs=inputs, seen=seen, phase=phase)


def _subscribe(store: KbStore) -> None:
    """What is derived from the store follows what an ingest changes: the search index
    each session written, the graph the sessions whose secrets were found late (it is
    rebuilt for every changed session at the end of the ingest)."""
    store.hooks.on_sessions_replaced(after_ingest)
    store.hooks.on_secrets_forgotten(_forget_graphs)


def _forget_graphs(store: KbStore, session_ids: Sequence[str]) -> None:
    if session_ids:
        from kb.graph.store import forget_sessions

        forget_sessions(store, session_ids)


def _ingest(store: KbStore, paths: Sequence[Path], *, session_ids: Iterable[str] | None,
            progress: Progress | None, force: bool, graph: bool,
            inputs: tuple[list[Input], list[NotATranscript]] | None,
            seen: Seen | None, phase: Callable[[str], None] | None = None) -> IngestReport:
    report = IngestReport()
    store.set_memory_limit(os.environ.get("LOGKB_WRITE_MEMORY_LIMIT", WRITE_MEMORY_LIMIT))
    threshold = store.checkpoint_threshold()
    store.set_checkpoint_threshold(os.environ.get("LOGKB_CHECKPOINT_THRESHOLD",
                                                  CHECKPOINT_THRESHOLD))
    if seen is None:
        seen = Seen.load(store)
    found, errors = inputs if inputs is not None else plan(paths, None if force else seen,
                                                           own=store.path)
    if adopt_relative(store, found):
        seen = Seen.load(store)
    for e in errors:
        (report.errors if e.is_error else report.not_taken).append(e)
    wanted = frozenset(session_ids) if session_ids else None
    pool = DerivePool()  # its worker starts with the first large input
    group = _Group()  # small new sessions, written together
    try:
        for inp in found:
            _ingest_input(store, inp, wanted, report, progress, force, pool, seen, group)
        group.flush(store)
    finally:
        pool.close()
        # the index reads back what was written in runs of sessions small enough for a
        # cache smaller than the writes' (a connection a failure invalidated refuses
        # it: the failure is what is raised)
        with suppress(duckdb.Error):
            store.set_memory_limit(os.environ.get("LOGKB_INDEX_MEMORY_LIMIT",
                                                  INDEX_MEMORY_LIMIT))
            store.set_checkpoint_threshold(threshold)
    # the search index follows the sessions written (_subscribe), in one commit (one per
    # session cost 90 ms each: 10,000 one-message files took 15 minutes); a search finds
    # it stale if this ingest dies before it, and syncs
    if report.sessions:
        store.sessions_replaced([s.session_id for s in report.sessions])
        store.link_children()
    report.links = [{"path": str(i.path), "target": t} for i in found
                    if (t := link_target(i.path)) is not None]
    rescanned = backfill_secrets(store)  # sessions stored before they were scanned
    pa.default_memory_pool().release_unused()
    with suppress(duckdb.Error):  # the graph sorts and joins whole runs of sessions
        store.set_memory_limit(os.environ.get("LOGKB_MEMORY_LIMIT", MEMORY_LIMIT))
    if graph:
        # the sessions this ingest changed, any whose graph an earlier ingest owes, and
        # those whose secrets were found only now (their graph holds the text unredacted)
        owed = sorted({s.session_id for s in report.sessions} | set(store.graph_pending())
                      | set(rescanned))
        if owed:
            from kb.graph import state as xstate
            from kb.graph.store import rebuild_all

            before = dict(xstate.DISCARDED)
            if phase is not None:
                phase("deriving knowledge graphs")
            report.graphs = rebuild_all(store, only=owed)
            report.states_discarded = {r: n - before.get(r, 0)
                                       for r, n in xstate.DISCARDED.items()
                                       if n > before.get(r, 0)}
    if report.sessions:  # titles as stored (session_summary): hidden here, all at once
        hide = store.redactor
        for rep in report.sessions:
            rep.title = hide.value(rep.title)
    return report


_WRITE_ERRNOS = {errno.ENOSPC: "the disk is full", errno.EFBIG: "a file-size limit was hit",
                 errno.EDQUOT: "the disk quota is exhausted"}
_WRITE_WORDS = (("no space left", "the disk is full"), ("file too large",
                "a file-size limit was hit (ulimit -f)"), ("quota", "the disk quota is exhausted"))


@contextmanager
def _write_errors(store: KbStore) -> Iterator[None]:
    """Disk full or a file-size limit: one clear :class:`KbError` instead of a traceback.

    ``SIGXFSZ`` (``ulimit -f``) would kill the process outright; ignored, the write
    fails with ``EFBIG`` instead and is reported like a full disk.  DuckDB commits
    batch by batch, so the knowledge base keeps every batch that committed."""
    old = None
    if hasattr(signal, "SIGXFSZ") and threading.current_thread() is threading.main_thread():
        old = signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    try:
        yield
    except OSError as e:
        if e.errno in _WRITE_ERRNOS:
            raise KbError(f"ingest stopped: {_WRITE_ERRNOS[e.errno]} ({e.filename or store.path}: "
                          f"{e.strerror}); what committed is consistent, ingest again once "
                          "there is room") from None
        raise
    except duckdb.Error as e:
        text = str(e).lower()
        for word, what in _WRITE_WORDS:
            if word in text:
                raise KbError(f"ingest stopped: {what} while writing {store.path} "
                              f"({str(e).splitlines()[0][:200]}); what committed is "
                              "consistent, ingest again once there is room") from None
        raise
    finally:
        if old is not None:
            signal.signal(signal.SIGXFSZ, old)


@dataclass
class _Session:
    """One session being ingested from one input (it may come in several runs)."""

    src: SourceSession
    known: dict[str, tuple[int, int]]
    deriver: LocalDeriver | RemoteDeriver
    seen: dict[str, tuple[int, str]] = field(default_factory=dict)
    """message id → (digest, where it was read), for duplicates."""
    first_prompt: str | None = None
    """The user's first prompt the conversation kept: what the title falls back to."""
    prompt_at: int = 0
    """The place of ``first_prompt`` among the messages read (the reader's ordinal)."""
    taken_back: str | None = None
    """The first prompt the user rewound away from (Gemini CLI's ``$rewindTo``): the
    title only when no prompt came after the rewind (:func:`_rewound_from`)."""
    read: int = 0
    """Messages of the source read so far."""
    runs: int = 0
    open_tx: bool = False
    """A transaction holds batches written and not yet committed."""
    tx_bytes: int = 0
    times: tuple[int | None, int | None] = (None, None)
    """The derived first and last message time as of the last batch written."""
    grouped: bool = False
    """New and small so far: written with the ingest's :class:`_Group` when it ends."""
    size: int = 0
    """Bytes of source read (the messages' raw JSON)."""
    batch_bytes: int = 0
    """Bytes of source read since the last batch ended (:data:`BATCH_BYTES`)."""
    watch: TranscriptReader | None = None
    """The reader, when it can say where a later reading may resume (``resume_mark``)."""
    mark: tuple[dict[str, object], str | None] | None = None
    """The deriver's sequence and the first prompt before the reader's ``resume_mark``."""
    lines_from: tuple[int, int] | None = None
    """Resumed: ``(byte offset, line)`` of the first line the reader state held (records
    of held messages are looked up from there, not from the file's start)."""
    end: int | None = None
    """When the copy read ends (:func:`_copy_end`): written in the session's info under
    :data:`ENDS`, never into the reader's own (its resume state keeps that)."""
    aliases: _Aliases | None = None
    """A line-keyed session with stored messages: what a message read at another line is
    stored as (:class:`_Aliases`)."""
    stored: dict[str, tuple[int, int]] | None = None
    """The stored messages' digests and ordinals when :attr:`known` forgot the digests
    (derived by older rules): what tells an unchanged message from an updated one."""
    new: int = 0
    """Messages read that were not stored."""
    updated: int = 0
    """Messages read that were stored with other content or at another ordinal."""
    unchanged: int = 0
    """Messages read as they were stored."""
    older: bool = False
    """An older copy of a stored session (it ends before the stored session's last
    message: :func:`_older_copy`): every stored message it holds is kept as stored."""
    was: SessionInfo | None = None
    """An older copy's session row as stored before it was read: kept (its title, times
    and source: the copy's are the session's past)."""
    together: bool = False
    """A copy of a stored session that ends with the same record as the copy stored
    (:data:`ENDS`): neither says it is the newer, so a message it holds with other content
    (:func:`_diverged`) is a conflict: the stored one stays, this one is kept raw."""
    conflicts: int = 0
    """Messages of a copy that ends together whose content diverged from the stored."""
    responses: _Responses | None = None
    """A Claude Code session with stored messages: the API responses another copy holds
    part of (:class:`_Responses`)."""


@dataclass
class _Responses:
    """The stored message each Claude Code API response is, whatever file holds it.

    A session resumed into a new file writes a response again (its ``message.id``), a
    content block a line: the reader makes the lines of one response in one file one
    message, and the ingest makes the copies in two files one: a message read whose
    response a stored message holds, each holding blocks the other lacks, is that message
    with the records of both, each once (:func:`logparse.claude_code.merge_response`).
    Never a block either copy has is dropped, whichever file is read first or again.

    Linear: a message read as it is stored costs nothing; the stored responses are
    indexed (one query) only for a message not stored under its id, read from another
    file than the stored session's (a grown file adds its own responses)."""

    store: KbStore
    sid: str
    path: str
    other_file: bool
    """The input is not the file the session was last stored from."""
    index: dict[str, str] | None = None
    """API response id → the stored message holding it."""
    calls: tuple[dict[str, str], dict[str, str]] | None = None
    """Tool call id → the stored message holding the call, and the one holding its
    result (:meth:`KbStore.call_ids`)."""

    def merged(self, msg: RawMessage, mid: str, stored: tuple[int, int] | None,
               dg: int, seen: dict[str, tuple[int, str]]
               ) -> tuple[str, RawMessage | None] | None:
        """``msg`` (read as ``mid``; ``stored``: the digest and ordinal stored under it)
        and the stored message holding part of its response: ``(id, msg)`` of that
        message, ``msg`` merged with it, or, when it holds all of ``msg`` and more of the
        response, ``(id, None)``: kept as stored; ``None``: nothing to merge."""
        if msg.info.get("role") != "assistant":
            return None
        if stored is not None:
            if stored[0] == dg:
                return None
            target = mid
        else:
            if not self.other_file:
                return None
            try:
                doc = orjson.loads(msg.raw)
            except orjson.JSONDecodeError:
                return None
            recs = doc.get("records") if isinstance(doc, dict) else None
            if not isinstance(recs, list):
                return None
            ids = response_ids(recs)
            waiting, answered = call_links(recs)
            if not (ids or waiting or answered):
                return None
            if self.index is None:
                self.index = self.store.response_ids(self.sid)
            found = {self.index[i] for i in ids if i in self.index}
            if waiting or answered:
                # a call whose result a stored message holds, a result whose call one does
                # (the session split between them): one message, as in one file
                if self.calls is None:
                    self.calls = self.store.call_ids(self.sid)
                made, results = self.calls
                found.update(results[c] for c in waiting if c in results)
                found.update(made[c] for c in answered if c in made)
            if len(found) != 1:
                return None
            target = found.pop()
            if target in seen:
                return None
        raw = self.store.stored_raw(self.sid, target)
        if raw is None:
            return None
        how, out = merge_response(raw, msg.raw, self.path, target)
        if how == MERGED and out is not None:
            return target, out
        return (target, None) if how == HELD else None


ALIAS_LOOKUPS = 8
"""Stored messages whose content key :class:`_Aliases` compares one at a time (a grown
file's last message, changed since it was stored) before it indexes the session's."""


@dataclass
class _Aliases:
    """The stored message each message of a line-keyed form is (Claude Code, Codex, pi,
    Antigravity: :data:`logparse.msgkey.LINE_KEYED`), whatever line it is read at.

    Their ids are line numbers: a line added or removed before a message gives it another
    id in a later reading (a rewritten file, a copy with a line dropped or a summary
    inserted, an older copy merged), and stored under it the message would be there
    twice.  A message's stored id stays the one it was first stored under: a message read
    under another id whose content key (its own record's: :func:`logparse.msgkey.own_key`)
    is the own record of a stored message is that message (an alias): it is kept or
    replaced in place as any known message is.  One whose own record a stored message
    holds as another's (a call's result that lost its call) is a piece of it: the stored
    message is kept as it is.  A new message whose line id names another stored message
    takes its line id and its key (``-`` and 8 hex digits): the stored one is kept.

    Linear: a message whose id and digest are stored, or met once every stored message was
    read, costs nothing; the session's records are indexed once, by one streamed read,
    only when a message is not one of those (a grown file's changed last message is
    compared alone first, :data:`ALIAS_LOOKUPS`).  The index holds an integer a record."""

    store: KbStore
    sid: str
    known: dict[str, tuple[int, int]]
    after: int = 0
    """Only messages after this ordinal are indexed (a resumed reading's tail)."""
    own: dict[int, str] | None = None
    """Own record's key → the stored message."""
    more: dict[int, list[str]] = field(default_factory=dict)
    """Further stored messages with an own record of the same key."""
    held: dict[int, str] = field(default_factory=dict)
    """Key of any other record → the stored message holding it."""
    mine: dict[str, int | frozenset[int]] = field(default_factory=dict)
    """Stored message → the key (or keys: an alias's records) of its own record."""
    pieced: set[int] = field(default_factory=set)
    """Own keys of stored messages a piece of which this reading met (read as them)."""
    cursor: dict[int, int] = field(default_factory=dict)
    """Own record's key → how many of its stored messages (``own``, then ``more``) this
    reading has read: the next one is looked for from there (linear in a session of one
    record written many times, a legacy Codex ``continue``)."""
    ident: dict[int, list[str]] = field(default_factory=dict)
    """A Codex own record's identity (:func:`logparse.msgkey.codex_identity`) → the stored
    messages whose own record has it, in their order: what a record rewritten (other
    content, so another key) is found by, at its line or moved to another."""
    ident_at: dict[int, int] = field(default_factory=dict)
    """Identity → how many of :attr:`ident`'s messages this reading has passed (as
    :attr:`cursor`): of records sharing one, the first unread is the one next in order."""
    keyed: dict[str, int | None] = field(default_factory=dict)
    """Stored messages read from lines (their raw JSON holds records) → their
    :func:`~logparse.msgkey.content_digest`."""
    claimed: int = 0
    """Stored messages this reading has met (under their own id or an alias)."""
    lookups: int = 0
    renamed: int = 0
    """Messages stored under an id their line did not give them."""

    def _index(self) -> dict[int, str]:
        if self.own is None:
            own: dict[int, str] = {}
            for mid, raw in self.store.stored_raws(self.sid, self.after):
                mid = sys.intern(mid)
                mine, others, idents = record_index(raw, id_line(mid))
                for ident in idents:
                    self.ident.setdefault(ident, []).append(mid)
                if mine:
                    self.keyed[mid] = content_digest(raw)
                    self.mine[mid] = mine[0] if len(mine) == 1 else frozenset(mine)
                for k in mine:
                    first = own.setdefault(k, mid)
                    if first != mid:
                        self.more.setdefault(k, []).append(mid)
                for k in others:
                    self.held.setdefault(k, mid)
            self.own = own
        return self.own

    def _holds(self, mid: str, key: int) -> bool:
        """Whether ``key`` is the key of the stored message ``mid``'s own record."""
        mine = self.mine.get(mid)
        return mine == key if isinstance(mine, int) else mine is not None and key in mine

    def _unread(self, key: int, first: str, seen: dict[str, tuple[int, str]]) -> str | None:
        """The first stored message whose own record has ``key`` that this reading has not
        read (``None``: every one is read).  Amortised O(1): the cursor only moves on."""
        more = self.more.get(key, ())
        i = self.cursor.get(key, 0)
        while i <= len(more):
            h = first if i == 0 else more[i - 1]
            if h not in seen:
                self.cursor[key] = i
                return h
            i += 1
        self.cursor[key] = i
        return None

    def moved(self, mid: str, msg: RawMessage) -> bool:
        """Whether the stored message ``mid`` is ``msg`` as it is, read at other lines
        (nothing of it to keep: it is replaced in place, its lines are the new ones)."""
        dg = self.keyed.get(mid)
        return dg is not None and dg == content_digest(msg.raw)

    def _rewritten(self, msg: RawMessage, seen: dict[str, tuple[int, str]]) -> str | None:
        """The stored message whose own record ``msg``'s is, rewritten (other content, so
        another key), at its line or moved to another: a Codex record with the same time,
        type, ids, ``ordinal`` and kind (:func:`logparse.msgkey.codex_identity`), the way a
        Claude Code record keeps its ``uuid`` when it changes.  It is that message changed
        (replaced under its id, as a changed Claude Code record is), never a new one beside
        it that would count its calls, dead ends and prompt twice.  Of stored messages
        sharing the identity (one kind in one millisecond), the first this reading has not
        read.  ``None``: none."""
        ident = own_identity(msg.raw, msg.line)
        mids = self.ident.get(ident) if ident is not None else None
        if not mids or ident is None:
            return None
        i = self.ident_at.get(ident, 0)
        while i < len(mids) and mids[i] in seen:
            i += 1
        self.ident_at[ident] = i
        return mids[i] if i < len(mids) else None

    def resolve(self, msg: RawMessage, dg: int, seen: dict[str, tuple[int, str]]
                ) -> tuple[str, bool]:
        """The id ``msg`` is stored under (``dg``: its digest; ``seen``: ids read so far),
        and whether the stored message is kept as it is."""
        mid: str = msg.info["id"]
        known = self.known
        stored = known.get(mid)
        if stored is not None and stored[0] == dg and mid not in seen:
            return mid, False  # as stored
        if stored is None and self.claimed >= len(known):
            return mid, False  # every stored message is read already: a new one
        key = own_key(msg.raw, msg.line)
        if key is None:
            return mid, False
        if stored is not None and mid not in seen and self.own is None and \
                self.lookups < ALIAS_LOOKUPS:
            self.lookups += 1
            raw = self.store.stored_raw(self.sid, mid)
            if raw is not None and key in record_keys(raw, id_line(mid))[0]:
                return mid, False  # the same message, changed (a grown file's last)
        own = self._index()
        first = own.get(key)
        if first is not None:
            if mid not in seen and self._holds(mid, key):
                return mid, False
            got = self._unread(key, first, seen)
            if got is not None:
                if got != mid:
                    self.renamed += 1
                return got, False
            if key in self.pieced:  # its piece was read as it: the rest, stored once
                self.renamed += first != mid
                return first, False
            # every stored message of this record was read already in this reading: the
            # same record at one more line (a legacy Codex prompt typed again, no time in
            # it) is one more message, as a single reading of the file stores it
        elif (whole := self.held.get(key)) is not None:
            self.renamed += whole != mid
            mine = self.mine.get(whole)
            if isinstance(mine, int):
                self.pieced.add(mine)
            elif mine is not None:
                self.pieced.update(mine)
            return whole, True
        if (was := self._rewritten(msg, seen)) is not None:
            self.renamed += was != mid
            return was, False  # its record rewritten (and moved): the message, changed
        if stored is not None and mid in self.keyed:
            # a new message at a line whose id a stored (other) message has: named to sort
            # (ids break ties of time) after that message when this reading met it before
            # (a line removed before it), else before it (a line added: it comes later),
            # so a second reading of the same file finds every message in its place
            self.renamed += 1
            tail = f"{key:016x}"
            line = id_line(mid)
            base = mid if mid in seen or not line else line_id(line - 1)
            return next((c for c in (f"{base}-{tail[:8]}", f"{base}-{tail}")
                         if c not in known), f"{base}-{tail}-{self.renamed}"), False
        return mid, False


GROUP_SESSIONS = 512
"""Small new sessions written together in one transaction (see :class:`_Group`)."""
GROUP_BYTES = 16 << 20
"""... or as many as hold this many bytes of source."""


@dataclass
class _Group:
    """Small sessions not stored before, written together: their rows with one INSERT
    per table, their session rows, secrets and graph marks with one statement each, and
    the inputs they came from recorded in the same transaction (an input is recorded
    as read only once what it holds has committed).  A directory of 10,000 one-message
    files paid ~20 statements and two commits per file before.

    A session goes here when nothing of it is stored (no session row, no message) and
    it fits one batch; anything else takes the session-by-session path.  A session met
    again while its group is pending flushes the group first, so the next copy sees it
    stored (and nothing stored is ever deleted: :func:`_open_session`)."""

    stored: tuple[set[str], set[str]] | None = None
    """:meth:`KbStore.stored_ids` as read at the first session opened."""
    written: set[str] = field(default_factory=set)
    """Sessions this ingest opened (stored since, or pending here)."""
    tables: dict[str, list[pa.Table]] = field(default_factory=dict)
    infos: list[SessionInfo] = field(default_factory=list)
    reports: list[SessionReport] = field(default_factory=list)
    pending: set[str] = field(default_factory=set)
    sources: list[tuple[str, str, str, list[str]]] = field(default_factory=list)
    problem_paths: list[str] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    resume: list[tuple[str, dict[str, object] | None]] = field(default_factory=list)
    """Inputs' resume points (``None``: forget it), written with what they continue."""
    size: int = 0

    def fresh(self, store: KbStore, sid: str) -> bool:
        """Nothing of session ``sid`` is stored, nor opened by this ingest."""
        if self.stored is None:
            self.stored = store.stored_ids()
        return sid not in self.written and sid not in self.stored[0] \
            and sid not in self.stored[1]

    def add(self, store: KbStore, batches: list[ArrowBatch], info: SessionInfo,
            rep: SessionReport, size: int) -> None:
        sid = info.session_id
        for b in batches:
            for name, tbl in b.tables.items():
                self.tables.setdefault(name, []).append(tbl.append_column(
                    "session_id", pa.array([sid] * tbl.num_rows, type=pa.string())))
        self.size += size
        self.infos.append(info)
        self.reports.append(rep)
        self.pending.add(sid)
        if len(self.infos) >= GROUP_SESSIONS or self.size >= GROUP_BYTES:
            self.flush(store)

    def add_input(self, spath: str, form: str, fp: str | None, sessions: list[str],
                  problems: list[Problem], replace_problems: bool) -> None:
        if fp is not None:
            self.sources.append((spath, form, fp, sessions))
        if replace_problems:
            self.problem_paths.append(spath)
            self.problems.extend(problems)

    def flush(self, store: KbStore) -> None:
        if not self.infos and not self.sources and not self.problem_paths and not self.resume:
            return
        # one chunk per table: DuckDB scanned 512 one-row chunks ten times slower
        tables = {name: pa.concat_tables(ts).combine_chunks()
                  for name, ts in self.tables.items()}
        sids = [i.session_id for i in self.infos]
        with store.transaction():
            if self.infos:
                store.write_new_sessions(tables, self.infos, DERIVE_VERSION)
                scan_new_sessions(store, ArrowBatch(tables, []), sids)
                scan_titles(store, sids)
            store.record_sources(self.sources, self.problem_paths, self.problems)
            store.save_resume_points(self.resume)
        if sids:
            counts = store.session_counts(sids)
            for rep in self.reports:
                rep.title, rep.messages, rep.events = counts[rep.session_id]
        self.tables, self.infos, self.reports, self.pending = {}, [], [], set()
        self.sources, self.problem_paths, self.problems, self.size = [], [], [], 0
        self.resume = []
        del tables
        pa.default_memory_pool().release_unused()  # Arrow's allocator keeps what it freed


class _Counted:
    """The progress of one input, in bytes of the file: what the readers report (the
    messages' raw bytes, which a form may store larger or smaller than the file holds
    them) is capped at the file's size, and the rest is counted when the input is done:
    the bar ends at its total, never past it."""

    def __init__(self, progress: Progress, size: int) -> None:
        self.progress, self.size, self.done = progress, size, 0

    def __call__(self, n: int) -> None:
        n = min(n, self.size - self.done)
        if n > 0:
            self.done += n
            self.progress(n)

    def finish(self) -> None:
        self(self.size - self.done)


def _ingest_input(store: KbStore, inp: Input, wanted: frozenset[str] | None,
                  report: IngestReport, progress: Progress | None, force: bool,
                  pool: DerivePool | None = None, seen: Seen | None = None,
                  group: _Group | None = None) -> None:
    counted = _Counted(progress, input_size(inp)) if progress is not None else None
    if _read_input(store, inp, wanted, report, counted, force, pool, seen, group) \
            and counted is not None:
        counted.finish()


def _read_input(store: KbStore, inp: Input, wanted: frozenset[str] | None,
                report: IngestReport, progress: Progress | None, force: bool,
                pool: DerivePool | None = None, seen: Seen | None = None,
                group: _Group | None = None) -> bool:
    """Ingest one input; ``False`` when it was not read (unchanged since: see
    :func:`to_read`)."""
    spath = str(inp.path)
    fp = fingerprint(inp.path)
    if seen is None:
        seen = Seen.load(store)
    if not force and wanted is None and seen.unchanged(inp.path, fp):
        report.unchanged.append(spath)
        return False
    if not force and wanted is None and spath in seen.resumable and spath not in seen.stale \
            and inp.form in RESUMABLE and _resume_input(store, inp, report, progress, fp, pool):
        return True
    problems: list[Problem] = []
    reader = inp.reader()
    # a point is kept for a file worth it (a small one is read whole as fast) and replaced
    # (or forgotten) where there was one
    resumable = inp.form in RESUMABLE and wanted is None and (
        spath in seen.resumable or input_size(inp) >= RESUME_MIN_BYTES)
    opened: list[_Session] = []
    # a form whose sessions may come back later in the input (JSONL) keeps each
    # session open to the end of the input; other forms close a session when it ends
    repeats = getattr(reader, "sessions_may_repeat", False)
    open_: dict[str, _Session] = {}
    owner: dict[str, str] | None = {} if repeats else None
    done: list[str] = []
    kept: list[str] = []  # unchanged messages: their stored problems stay
    remote = pool if pool is not None and pool_wanted(_new_bytes(inp, seen)) else None
    if remote is not None:  # transactions of 64 MB of source: see LARGE_MEMORY_LIMIT
        store.set_memory_limit(os.environ.get("LOGKB_LARGE_MEMORY_LIMIT", LARGE_MEMORY_LIMIT))
    gc_was_enabled = gc.isenabled()
    gc.disable()  # derivation allocates millions of small tuples and no cycles
    try:
        for src in reader.sessions(inp.path, problems, wanted):
            same_session(store, src, group)
            st = open_.get(src.session_id)
            if st is None:
                st = _open_session(store, src, problems, remote, group)
                if st is None:
                    continue
                open_[src.session_id] = st
                opened.append(st)
                if resumable:
                    st.watch = reader
            _feed(store, st, src, problems, progress, owner)
            if not repeats:
                _close_session(store, open_.pop(src.session_id), problems, report, done, kept,
                               group=group)
        for st in list(open_.values()):
            _close_session(store, st, problems, report, done, kept, group=group)
    except NotATranscript as e:
        report.errors.append(e)
        for st in open_.values():  # what was read stays, under a session row
            _close_session(store, st, problems, report, done, kept, complete=False)
        if resumable:
            store.save_resume_point(spath, None)
        return True
    except BaseException:
        for st in open_.values():  # batches not committed go; committed ones are whole
            _rollback(store, st)
        raise
    finally:
        if gc_was_enabled:
            gc.enable()
        if remote is not None:
            with suppress(duckdb.Error):
                store.set_memory_limit(
                    os.environ.get("LOGKB_WRITE_MEMORY_LIMIT", WRITE_MEMORY_LIMIT))
    if reader.skipped:
        report.skipped[spath] = dict(reader.skipped)
    problems[:] = _hidden(store, problems)
    report.problems.extend(problems)
    recorded = fp if fp is not None and wanted is None else None
    if group is not None and group.pending.intersection(done):
        # sessions of this input wait in the group: the input is recorded with them
        if kept:
            store.replace_problems(spath, problems, kept)
        group.add_input(spath, inp.form, recorded, done, problems, not kept)
        if resumable:  # with the sessions it continues, when the group commits
            group.resume.append((spath, _resume_row(inp, reader, opened)))
        return True
    point = _resume_row(inp, reader, opened) if resumable else None
    with store.transaction():  # one commit, not one per statement
        store.replace_problems(spath, problems, kept)
        if recorded is not None:
            store.record_source(spath, inp.form, recorded, done)
        if resumable:  # last: a point is only kept once what it continues is stored
            store.save_resume_point(spath, point)
    return True


RESUMABLE = frozenset({"claude-code", "codex", "jsonl"})
"""Append-only forms whose readers say where a reading of the grown file may continue."""
RESUME_MIN_BYTES = 256 << 10
"""Files smaller than this keep no resume point: read whole, they cost about what a
resumed reading does, and a directory of many small files pays no statement for one."""

_INT64 = (-(1 << 63), 1 << 63)


def _hidden(store: KbStore, problems: list[Problem]) -> list[Problem]:
    """``problems`` with their diagnostics redacted (safe13): a reason may quote the
    record it is about (an exception's text, a header's value), and it is printed on
    stderr, put in ``--json`` and stored.  The record's own text (``raw``) is kept as it
    was read, as every stored text is (outputs redact it)."""
    hide = store.redactor
    out = []
    for p in problems:
        reason = hide.fresh(p.reason, depth=2) or p.reason
        record = hide.fresh(p.record, depth=2)
        out.append(p if (reason, record) == (p.reason, p.record)
                   else p.model_copy(update={"reason": reason, "record": record}))
    return out


def _resume_row(inp: Input, reader: TranscriptReader, opened: list[_Session]
                ) -> dict[str, object] | None:
    """The resume point a reading leaves (see migration 044), or ``None``: the file's next
    reading is whole (several sessions, renumbered, a message kept from another copy ...)."""
    r: Resume | None = getattr(reader, "resume", None)
    if r is None or len(opened) != 1 or r.offset < RESUME_MIN_BYTES:
        return None
    st = opened[0]
    d = st.deriver
    if st.src.session_id != r.session_id or d.out_of_order or d.keep or not st.src.complete:
        return None
    seq, first_prompt = st.mark if st.mark is not None else (d.sequence(), st.first_prompt)
    for key in ("last_key_time", "first_time", "last_time"):
        v = seq[key]
        if v is not None and not (isinstance(v, int) and _INT64[0] <= v < _INT64[1]):
            return None
    hashes = prefix_hashes(inp.path, r.offset)
    try:
        fst = os.stat(inp.path)
    except OSError:
        return None
    if hashes is None or fst.st_size < r.offset:
        return None
    first = r.first_line or r.line
    return {"session_id": r.session_id, "form": inp.form, "reader": r.reader,
            "derive_version": DERIVE_VERSION, "dev": fst.st_dev, "ino": fst.st_ino,
            "byte_offset": r.offset, "line": r.line, "first_line": first,
            "first_offset": line_start(inp.path, r.offset, r.line, first),
            "head_hash": hashes[0], "window_hash": hashes[1],
            "reader_state": orjson.dumps(r.state).decode(), "prefix_ids": r.ids,
            "end_problems": orjson.dumps(r.end_problems or []).decode(),
            "ordinal": seq["ordinal"], "last_key_time": seq["last_key_time"],
            "last_key_id": seq["last_key_id"], "first_time": seq["first_time"],
            "last_time": seq["last_time"], "prev_had_tool": seq["prev_had_tool"],
            "out_of_order": seq["out_of_order"], "first_prompt": first_prompt,
            "proposal": seq.get("proposal")}


def _resume_input(store: KbStore, inp: Input, report: IngestReport, progress: Progress | None,
                  fp: str | None, pool: DerivePool | None) -> bool:
    """Ingest a grown append-only file by reading on from where its last reading ended
    (its resume point); ``False`` (nothing stored) when the point does not hold for the
    file as it is: the caller reads it whole.  The store after it equals the store after
    a whole reading of the grown file."""
    spath = str(inp.path)
    row = store.resume_point(spath)
    if row is None or row["form"] != inp.form or row["derive_version"] != DERIVE_VERSION:
        return False
    try:
        fst = os.stat(inp.path)
    except OSError:
        return False
    offset = int(row["byte_offset"])
    if fst.st_size < offset or fst.st_dev != row["dev"] or fst.st_ino != row["ino"]:
        return False  # shrank, or another file now: read whole
    if prefix_hashes(inp.path, offset) != (row["head_hash"], row["window_hash"]):
        return False  # rewritten
    sid = str(row["session_id"])
    stored = store.stored_session(sid)
    if stored is None or not stored.complete or store.derived_by(sid) != DERIVE_VERSION:
        return False
    ordinal = int(row["ordinal"])
    if ordinal and store.message_at(sid, ordinal) != row["last_key_id"]:
        return False  # the session was stored from elsewhere since
    end = [(e[0], str(e[1])) for e in orjson.loads(row["end_problems"])]
    point = Resume(reader=str(row["reader"]), offset=offset, line=int(row["line"]),
                   state=orjson.loads(row["reader_state"]), ids=bytes(row["prefix_ids"]),
                   session_id=sid, first_line=int(row["first_line"]), end_problems=end)
    reader = inp.reader()
    problems: list[Problem] = []
    try:  # the tail is read whole before anything is stored: a divergence costs nothing
        got = [(src, list(src.messages))
               for src in reader.sessions(inp.path, problems, None, resume=point)]  # type: ignore[call-arg]
    except (Diverged, ValueError, OSError):
        return False
    if len(got) > 1 or (got and got[0][0].session_id != sid):
        return False
    if got:
        src, msgs = got[0]
    else:
        src, msgs = SourceSession(session_id=sid, form=inp.form, path=spath, messages=[],
                                  agent=reader.agent), []
    src.messages = msgs
    known = store.known_messages_after(sid, ordinal, [m.info["id"] for m in msgs])
    if any(o <= ordinal for _, o in known.values()):
        return False  # a message id of the tail repeats one before it: read whole
    size = sum(len(m.raw) for m in msgs)
    author = session_author(src.info)
    deriver = (pool.deriver(sid, spath, known, author) if pool is not None and pool_wanted(size)
               else LocalDeriver(sid, spath, known, author))
    deriver.resume_sequence({k: row[k] for k in (
        "ordinal", "last_key_time", "last_key_id", "first_time", "last_time",
        "prev_had_tool", "out_of_order", "proposal")})
    st = _Session(src=src, known=known, deriver=deriver, first_prompt=row["first_prompt"],
                  end=_copy_end(src),  # the grown file ends later: the next copy's measure
                  watch=reader, lines_from=None if row["first_offset"] is None else
                  (int(row["first_offset"]), int(row["first_line"])),
                  aliases=_Aliases(store, sid, known, after=ordinal)
                  if known and inp.form in LINE_KEYED else None)
    if progress:
        progress(offset)
    done: list[str] = []
    kept: list[str] = []
    gc_was_enabled = gc.isenabled()
    gc.disable()
    try:
        _feed(store, st, src, problems, progress, None)
        _close_session(store, st, problems, report, done, kept)
    except BaseException:
        _rollback(store, st)
        raise
    finally:
        if gc_was_enabled:
            gc.enable()
    if reader.skipped:
        report.skipped[spath] = dict(reader.skipped)
    unchanged = set(kept)
    store.replace_problems_after(spath, point.line, end,
                                 [m for m in st.seen if m not in unchanged],
                                 _hidden(store, problems))
    report.problems.extend(store.input_problems(spath))
    if fp is not None:
        store.record_source(spath, inp.form, fp, done)
    store.save_resume_point(spath, _resume_row(inp, reader, [st]))
    report.resumed.append(spath)
    return True


def _new_bytes(inp: Input, seen: Seen) -> int:
    """Bytes an input grew by since it was last read (all of it if it is new, shrank, or
    was derived by older rules): what decides whether the derive workers start.  100
    messages appended to a 460 MB session waited ~2 s for a worker to start."""
    size = input_size(inp)
    spath = str(inp.path)
    row = seen.sources.get(spath)
    if row is None or spath in seen.stale:
        return size
    try:
        before = sum(int(part.split(":")[0]) for part in row[1].split("/"))
    except ValueError:
        return size
    return size - before if size >= before else size


def same_session(store: KbStore, src: SourceSession, group: _Group | None = None) -> None:
    """Store ``src`` with the stored copy of the same session known by another id: a
    copy that does not name its session (``named`` false: an Antigravity trajectory cut
    before it names its conversation) joins the stored session whose info lists its id
    in ``aliases``, and a copy that names it joins a stored session under one of its
    ``aliases`` (the cut copy stored first: the whole one extends it, nothing stored is
    deleted).  ``src.session_id`` (and its info's ``id``) become the stored id.

    A copy that names a stored session whose aliases it shares none of is another
    session that names it (an Antigravity conversation that read this one's artifacts
    before it named itself): it is stored under its first alias, never with the stored
    messages (their ids, line numbers, would meet other content).  A copy that names a
    session not stored joins a stored one that lists one of its aliases: the same first
    step, stored under another id while it named another conversation."""
    info = src.info if isinstance(src.info, dict) else {}
    aliases = [a for a in info.get("aliases") or () if isinstance(a, str)] \
        if isinstance(info.get("aliases"), list) else []
    if src.named and not aliases:
        return
    sid = src.session_id
    if group is not None and (group.pending or group.infos):
        group.flush(store)  # a copy met earlier in this ingest is stored first
    if store.holds_session(sid):
        theirs = store.session_aliases(sid) if src.named and aliases else None
        if theirs and not set(theirs) & set(aliases):
            src.session_id = aliases[0]
            if "id" in info:
                info["id"] = aliases[0]
        return
    if src.named:
        # the cut copy stored under its alias, or a copy stored under another id that
        # shares our first step (it named another conversation then, or it was named
        # by it: one first step is one conversation)
        found = next((a for a in aliases if store.holds_session(a)), None) or next(
            (s for s in (store.session_aliased(a, src.agent) for a in aliases) if s), None)
    else:
        found = store.session_aliased(sid, src.agent)
    if found is None:
        return
    src.session_id = found
    if "id" in info:
        info["id"] = found


def _open_session(store: KbStore, src: SourceSession, problems: list[Problem],
                  pool: DerivePool | None = None, group: _Group | None = None
                  ) -> _Session | None:
    sid = src.session_id
    if group is not None:
        if sid in group.pending:  # met again: what the group holds is stored first
            group.flush(store)
        if pool is None and group.fresh(store, sid):
            group.written.add(sid)
            return _Session(src=src, known={},
                            deriver=LocalDeriver(sid, src.path, {}, session_author(src.info)),
                            grouped=True, end=_copy_end(src))
        group.written.add(sid)
    stored = store.stored_session(sid)
    if stored is not None and stored.complete and not src.complete:
        _check_partial(store, src, problems)
        return None
    if stored is not None and src.complete and not stored.complete:
        # a complete source after a run stream: the stream's inferred user messages were
        # placeholders for the real ones it lacked; every message the agent wrote stays
        with store.transaction():
            store.delete_inferred(sid)
    # what is stored already, session row or not (an interrupted ingest leaves messages
    # without one): those rows are kept or replaced, never written twice
    known = store.known_messages(sid)
    digests = None
    if known and (store.derived_by(sid) or 1) < DERIVE_VERSION:
        # derived by older rules: every message read again is derived again (its rows
        # replaced); annotations and replay runs are kept, the graph follows
        digests = known
        known = {mid: (-1, ordinal) for mid, (_, ordinal) in known.items()}
    author = session_author(src.info)
    deriver = (pool.deriver(sid, src.path, known, author) if pool is not None
               else LocalDeriver(sid, src.path, known, author))
    end = _copy_end(src)
    was = store.stored_info(sid) if known else None
    stored_end = _stored_end(store, was) if was is not None else None
    older = bool(known) and _older_copy(store, src, end, stored_end)
    together = bool(known) and not older and end is not None and stored_end == end
    return _Session(src=src, known=known, deriver=deriver, stored=digests, older=older, end=end,
                    was=was if older else None, together=together,
                    aliases=_Aliases(store, sid, known) if known and src.form in LINE_KEYED
                    else None,
                    responses=_Responses(store, sid, src.path, was.source_path != src.path)
                    if was is not None and src.form == ClaudeCodeReader.form else None)


ENDS = "logkbEndsAt"
"""The session info key under which the ingest keeps when the copy stored ends (its
last record's time, epoch ms: :func:`_copy_end`): a later copy that ends at the same
time ends with the same record (:attr:`_Session.together`)."""


def _copy_end(src: SourceSession) -> int | None:
    """When the session ends in ``src`` (its last record was written, epoch ms): the
    reader's :meth:`~logparse.source.TranscriptReader.ends_at`, an opencode session's
    ``time.updated``; ``None``: the form cannot tell."""
    reader = _FORMS.get(src.form)
    if reader is None:
        return None
    end = reader.ends_at(Path(src.path), src.session_id)
    if end is None and src.agent == "opencode" and src.complete:
        # an opencode session (export, storage tree, opencode.db) says when it was last
        # updated: after its last message's last part (every real export's is)
        t = src.info.get("time") if isinstance(src.info, dict) else None
        up = t.get("updated") if isinstance(t, dict) else None
        end = up if isinstance(up, int) and not isinstance(up, bool) else None
    return end


def _stored_end(store: KbStore, was: SessionInfo) -> int | None:
    """When the copy stored of session ``was`` ended (epoch ms; ``None``: unknown): what
    its info keeps under :data:`ENDS`, else, for a session stored before the ingest kept
    it (logkb before round 14: no :data:`ENDS`; an unchanged file is never read again to
    add it), what the stored copy tells: an opencode session's ``time.updated``, a
    line-based form's last stored lines read as its reader reads a file's end
    (:meth:`~logparse.source.TranscriptReader.records_end`).  Without it a copy ending
    with the same record would overwrite a message it says otherwise."""
    info = was.info if isinstance(was.info, dict) else {}
    end = info.get(ENDS)
    if isinstance(end, int) and not isinstance(end, bool):
        return end
    if was.agent == "opencode":
        if not was.complete:
            return None
        t = info.get("time")
        up = t.get("updated") if isinstance(t, dict) else None
        return up if isinstance(up, int) and not isinstance(up, bool) else None
    reader = _FORMS.get(was.source_kind or "")
    if reader is None:
        return None
    records = store.last_records(was.session_id)
    if not records:
        return None
    # the lines a file's end is read from (:data:`TAIL_RECORDS`, the newline after the
    # last one counted as a file's is): of the stored copy, the last it holds
    last = records[-1][0] - TAIL_RECORDS + 2
    return reader.records_end([r for n, r in records if n >= last], was.session_id)


def _older_copy(store: KbStore, src: SourceSession, end: int | None,
                stored_end: int | None = None) -> bool:
    """Whether ``src`` is an older copy of its stored session: a file whose session ends
    (its last record was written: ``end``) before the stored session's last message, or
    before the copy stored ended (``stored_end``: a command that finished since), a
    snapshot taken before the session went on (a Codex rollout, a Claude Code transcript,
    a pi, Gemini CLI or Antigravity session: :meth:`~logparse.source.TranscriptReader.
    ends_at`; an opencode session by its ``time.updated``).  Each message
    it holds is an earlier state of a stored one (the agent only appends, or rewrites a
    record in place), so it changes none: the newest content stays, never shorter nor
    without its result, and the session keeps its title.  Copies that end together
    (neither says it is older) keep each stored message a message of theirs diverges
    from (:attr:`_Session.together`); a later state of it (more records) is read."""
    if end is None:
        return False
    last = store.last_message_time(src.session_id)
    ends = [t for t in (last, stored_end) if t is not None]
    return bool(ends) and end < max(ends)


def _feed(store: KbStore, st: _Session, src: SourceSession, problems: list[Problem],
          progress: Progress | None, owner: dict[str, str] | None) -> None:
    sid = src.session_id
    deriver = st.deriver
    seen = st.seen
    st.runs += 1
    if src.info and not st.src.info:
        st.src.info = src.info
    resumed = st.runs > 1
    watch = st.watch
    aliases = st.aliases
    from logparse.derive import digest  # the rules load with the first input to derive
    for msg in src.messages:
        st.read += 1
        mid = msg.info["id"]
        if watch is not None and st.mark is None and mid == watch.resume_mark:  # type: ignore[attr-defined]
            st.mark = (deriver.sequence(), st.first_prompt)
        where = _place(msg)
        dg = digest(msg.raw)
        keep = False
        if aliases is not None:
            mid, keep = aliases.resolve(msg, dg, seen)
            msg.info["id"] = mid
        merged = False
        if st.responses is not None:
            hit = st.responses.merged(
                msg, mid, (st.known if st.stored is None else st.stored).get(mid), dg, seen)
            if hit is not None:  # a response another file holds part of: one message
                mid, both = hit
                msg.info["id"] = mid
                if both is None:
                    keep = True  # the stored message holds all of it, and more
                else:
                    msg, keep, merged = both, False, True
                    dg = digest(msg.raw)
        if resumed:
            resumed = False
            problems.append(Problem(
                path=src.path, line=msg.line, record=mid,
                reason=f"session {sid} continues here after messages of other sessions "
                       f"(interleaved input); its {len(seen)} earlier messages are kept and "
                       "this run is added to them"))
        prev = seen.get(mid)
        if prev is not None:
            if prev[0] == dg:
                problems.append(Problem(
                    path=src.path, line=msg.line, record=mid,
                    reason=f"message {mid} repeats {prev[1]} exactly; stored once"))
            else:
                problems.append(Problem(
                    path=src.path, line=msg.line, record=mid, raw=_text(msg.raw),
                    reason=f"message id {mid} was read at {prev[1]} with other content; "
                           "the first is stored, this one is kept raw here"))
            continue
        if owner is not None:
            other = owner.setdefault(mid, sid)
            if other != sid:
                problems.append(Problem(
                    path=src.path, line=msg.line, record=mid, raw=_text(msg.raw),
                    reason=f"message id {mid} of session {sid} was read before under "
                           f"session {other}; stored there, this one is kept raw here"))
                continue
        seen[mid] = (dg, where)
        stored = st.known.get(mid)
        if aliases is not None and stored is not None:
            aliases.claimed += 1
        # what is stored of it, its digest known though the rules changed (``known``
        # then forgot the digests: :attr:`_Session.stored`)
        was = stored if st.stored is None else st.stored.get(mid)
        if keep:
            deriver.keep.add(mid)  # a piece of a stored message: kept as stored
        elif merged:
            pass  # the stored records and this copy's: nothing of either is lost
        elif stored is not None and was is not None and was[0] != dg and (
                st.older or (not (aliases is not None and aliases.moved(mid, msg))
                             and _later_stored(store, sid, msg, src.path, st.lines_from,
                                               stored[1]))):
            # an older copy's earlier state, or its cut, of a message stored whole: kept
            # as stored (derived by older rules, its rows stay theirs rather than the
            # newest content be lost)
            deriver.keep.add(mid)
        elif st.together and stored is not None and was is not None and was[0] != dg \
                and _diverged(store.stored_raw(sid, mid), msg.raw):
            # copies that end with the same record, this message other in each (one was
            # edited or compacted): neither is known newer; the stored one stays, this
            # one is kept raw with the problem
            deriver.keep.add(mid)
            st.conflicts += 1
            problems.append(Problem(
                path=src.path, line=msg.line, record=mid, raw=_text(msg.raw),
                reason=f"message {mid} differs from the stored copy of session {sid}, "
                       "which ends with the same record; the stored one is kept, this "
                       "one is kept raw here"))
        skipped = len(deriver.skipped_ids)
        deriver.add(msg, dg)
        if was is None:
            st.new += 1
        elif len(deriver.skipped_ids) > skipped or (st.stored is not None and was[0] == dg):
            st.unchanged += 1  # as stored (derived again only if the rules changed)
        else:
            st.updated += 1
        if st.first_prompt is None and msg.info.get("role") == "user":
            st.first_prompt = _prompt_text(msg.parts)
            st.prompt_at = st.read
        elif st.first_prompt is not None and st.src.agent == "gemini-cli" \
                and b'"rewinds":' in msg.raw and _rewound_from(msg.raw) <= st.prompt_at:
            # the user rewound to before the prompt the title would come from: the
            # title is the first prompt after the rewind (the message stays stored)
            st.taken_back = st.taken_back or st.first_prompt
            st.first_prompt = None
        st.size += len(msg.raw)
        if progress:
            progress(len(msg.raw))
        st.batch_bytes += len(msg.raw)
        if deriver.pending >= BATCH_MESSAGES or st.batch_bytes >= BATCH_BYTES:
            st.batch_bytes = 0
            _flush(store, st, problems)
    if st.grouped:
        return  # written with the group when the session ends
    _flush(store, st, problems, wait=True)
    _commit(store, st)


def _shift(old: object, new: object) -> int:
    """How many lines further the incoming copy of a message holds its first record than
    the stored copy does (a line added or removed before it: :class:`_Aliases`)."""
    if isinstance(old, list) and isinstance(new, list) and old and new and \
            isinstance(old[0], int) and isinstance(new[0], int):
        return new[0] - old[0]
    return 0


_GROWING = ("records", "parts")
"""The lists a message's raw JSON grows by as its agent writes it (Claude Code and Codex
records, opencode parts)."""


def _later_stored(store: KbStore, sid: str, msg: RawMessage, path: str,
                  lines_from: tuple[int, int] | None = None, ordinal: int = 0) -> bool:
    """Whether the stored copy of ``msg`` is a later state of it: the same records or
    parts and more after them (a snapshot cut inside the message).  Such a message is
    kept as stored: an older copy never takes away what a newer one stored.

    Not so when the input at ``path`` holds every record the stored copy has beyond the
    incoming ones, each at its own line: the stored copy was read from a file that ended
    there (a reader gives the last message the records after it), and the grown file
    gives those records to a later message.  Nothing stored is lost by deriving the
    message again: its other records are in the input, and stored with their message.

    A line added or removed before the message moves its records: the stored lines are
    compared where the input holds them (:func:`_shift`)."""
    raw = store.stored_raw(sid, msg.info["id"])
    if raw is None:
        return False
    try:
        old, new = orjson.loads(raw), orjson.loads(msg.raw)
    except orjson.JSONDecodeError:
        return False
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return False
    for key in _GROWING:
        a, b = old.get(key), new.get(key)
        if isinstance(a, list) and isinstance(b, list):
            if a == b:  # the same records: is the incoming copy's file cut right after it?
                return _cut_after(old, new)
            if len(b) > len(a) and b[: len(a)] == a:
                return _taken_later(store, sid, ordinal, new.get("lines"), b, len(a),
                                    _shift(old.get("lines"), new.get("lines")))
            if not (len(b) < len(a) and a[: len(b)] == b):
                return False
            return not _moved_on(old.get("lines"), a, len(b), path, lines_from,
                                 _shift(old.get("lines"), new.get("lines")))
    return False


def _diverged(old_raw: bytes | str | None, new_raw: bytes) -> bool:
    """Whether the incoming copy of a message says something else than the stored copy,
    neither being a later state of the other: its records (a line-based form's: the
    agent's own lines) are not the stored ones, nor those with more after them, nor a
    beginning of them; an opencode message's parts (by id) change a text other than by
    growing, a finished call's result, or a part goes missing.  Where the lines stand
    (``lines``), what a file's end gave it (``open_calls``) and the like never count."""
    if old_raw is None:
        return False
    try:
        old, new = orjson.loads(old_raw), orjson.loads(new_raw)
    except orjson.JSONDecodeError:
        return False
    if not (isinstance(old, dict) and isinstance(new, dict)):
        return False
    a, b = old.get("records"), new.get("records")
    if isinstance(a, list) and isinstance(b, list):
        n = min(len(a), len(b))
        return a[:n] != b[:n]
    a, b = old.get("parts"), new.get("parts")
    if not (isinstance(a, list) and isinstance(b, list)):
        return False
    mine = {p.get("id"): p for p in b if isinstance(p, dict)}
    for p in a:
        if not isinstance(p, dict):
            continue
        q = mine.get(p.get("id"))
        if q is None:
            return True  # a part of the stored message this copy lacks
        if p == q:
            continue
        s, t = p.get("text"), q.get("text")
        if isinstance(s, str) and isinstance(t, str) and not (
                s.startswith(t) or t.startswith(s)):
            return True
        ps, qs = p.get("state"), q.get("state")
        if isinstance(ps, dict) and isinstance(qs, dict) and \
                ps.get("status") in _FINISHED and qs.get("status") in _FINISHED and \
                any(ps.get(k) != qs.get(k) for k in ("output", "error", "input")):
            return True
    return False


_FINISHED = ("completed", "error")


_AT_END = ("open_calls", "at_end")
"""What a reader gives a message because its file ended right after it
(:class:`logparse._agentlines.Draft`): calls still waiting for their results, what the
end of the file told (a Codex ``token_count``)."""


def _cut_after(old: dict[str, object], new: dict[str, object]) -> bool:
    """Whether the incoming copy of a message whose records are the stored ones was read
    from a file that ended right after it (more of its calls wait than the stored copy's,
    it took the file's end) while the stored copy was read from one that went on: an
    older snapshot, cut before the calls' results were written (a Codex output is a line
    of its own).  Deriving it again would store its calls as never answered next to the
    answers stored with later messages."""
    waiting, answered = new.get("open_calls"), old.get("open_calls") or 0
    if isinstance(waiting, int) and isinstance(answered, int) and waiting > answered:
        return True
    return any(k in new and k not in old for k in _AT_END)


def _taken_later(store: KbStore, sid: str, ordinal: int, lines: object,
                 records: list[object], kept: int, shift: int = 0) -> bool:
    """Whether the records the incoming copy of a message has beyond the stored ones are
    each stored, at the same line, with a later message: the incoming file ends there (a
    reader gives the last message the records after it) and the stored copy was read
    from one that went on, where they joined the next messages.  Taking them into this
    message again would store them twice."""
    if not (isinstance(lines, list) and len(lines) == len(records)):
        return False
    extra = lines[kept:]
    if not extra or not all(isinstance(n, int) and not isinstance(n, bool) for n in extra):
        return False
    found = store.records_after(sid, ordinal, [n - shift for n in extra])
    return all(n - shift in found and found[n - shift] == r
               for n, r in zip(extra, records[kept:]))


def _moved_on(lines: object, records: list[object], kept: int, path: str,
              lines_from: tuple[int, int] | None = None, shift: int = 0) -> bool:
    """Whether the file at ``path`` has each of the stored ``records`` after the first
    ``kept`` at the line the stored copy read it from (``lines``, one a record)."""
    if not (isinstance(lines, list) and len(lines) == len(records)):
        return False  # not a line-based message (an opencode export's parts)
    extra = lines[kept:]
    if not extra or not all(isinstance(n, int) and not isinstance(n, bool) for n in extra):
        return False
    extra = [n + shift for n in extra]
    found = lines_at(path, extra, lines_from)
    for n, rec in zip(extra, records[kept:]):
        body = found.get(n)
        if body is None:
            return False
        try:
            if orjson.loads(body) != rec:
                return False
        except orjson.JSONDecodeError:
            return False
    return True


def _place(msg: RawMessage) -> str:
    if msg.line is not None:
        return f"line {msg.line}"
    return f"record {msg.record}" if msg.record else "an earlier record"


def _text(raw: bytes) -> str:
    return raw[: 1 << 20].decode("utf-8", errors="replace")


def _close_session(store: KbStore, st: _Session, problems: list[Problem],
                   report: IngestReport, done: list[str], kept: list[str],
                   complete: bool | None = None, group: _Group | None = None) -> None:
    src = st.src
    sid = src.session_id
    deriver = st.deriver
    if st.grouped and group is not None and complete is None and not st.open_tx:
        deriver.submit()
        batches = deriver.results(wait=True)
        if not deriver.out_of_order:
            info = _session_info(src, (deriver.first_time, deriver.last_time),
                                 st.first_prompt or st.taken_back, problems, st.end)
            for b in batches:
                _lost(src.path, b.lost, problems)
            deriver.close()
            problems.extend(deriver.problems)
            deriver.problems = []
            kept.extend(deriver.skipped_ids)
            done.append(sid)
            rep = SessionReport(session_id=sid, title=info.title, messages=0, events=0,
                                new_messages=st.new, updated_messages=st.updated,
                                unchanged_messages=st.unchanged, form=src.form, path=src.path,
                                parent_id=info.parent_id, agent=src.agent)
            report.add(rep)
            group.add(store, batches, info, rep, st.size)  # counts: once written
            return
        early = batches  # out of order: renumbered after writing, session by session
    else:
        early = []
    complete = src.complete if complete is None else complete
    _commit(store, st)  # batches of a run the input's damage cut short
    with store.transaction():  # the last batch commits with the session row
        for b in early:
            _write(store, st, b, problems, final=True)
        _flush(store, st, problems, final=True)
        # messages stored from another copy that this one lacks (an older snapshot, an
        # export taken before the session went on): an ingest never deletes a message
        lacked = sum(1 for m in st.known if m not in st.seen)
        if deriver.out_of_order or (lacked and deriver.derived):
            store.renumber(sid)  # the union, in the agent's own time order
            store.forget_resume_points(sid, str(src.path), 0)
        store.realign(sid)
        info = _session_info(src, (deriver.first_time, deriver.last_time),
                             st.first_prompt or st.taken_back,
                             problems, st.end)
        if st.was is not None:
            info = st.was  # an older copy: its title, times, source are the session's past
        store.upsert_session(info, DERIVE_VERSION)
        scan_titles(store, [sid])
        store.mark_graph_pending(sid)
    deriver.close()
    problems.extend(deriver.problems)
    deriver.problems = []
    kept.extend(deriver.skipped_ids)
    row = store.session_summary(sid)
    done.append(sid)
    report.add(SessionReport(session_id=sid, title=row["title"], messages=row["messages"],
                             events=row["events"], new_messages=st.new,
                             updated_messages=st.updated, unchanged_messages=st.unchanged,
                             form=src.form, path=src.path, parent_id=info.parent_id,
                             kept=lacked, agent=src.agent, conflicts=st.conflicts,
                             older=st.older))


def _flush(store: KbStore, st: _Session, problems: list[Problem], final: bool = False,
           wait: bool = False) -> None:
    """End the pending batch and write every batch derived so far (with ``wait`` or
    ``final``: every batch), each together with the session row (messages never exist
    without one, even if the ingest dies before the session ends)."""
    deriver = st.deriver
    deriver.submit()
    for batch in deriver.results(wait=wait or final):
        _write(store, st, batch, problems, final)


def _write(store: KbStore, st: _Session, batch: ArrowBatch, problems: list[Problem],
           final: bool) -> None:
    sid = st.src.session_id
    st.grouped = False  # grown past one batch: written session by session
    known = st.known
    replace = [m for m in batch.message_ids() if m in known] if known else []
    st.times = batch.times
    if not final and not st.open_tx:
        store.begin()
        st.open_tx = True
    # final: inside the transaction that writes the session row
    if replace:  # in the transaction that replaces them
        store.forget_resume_points(sid, str(st.src.path), min(known[m][1] for m in replace))
    lost = store.write_batch(sid, batch, replace)
    scan_batch(store, sid, batch)  # the secrets the batch holds
    if not final:
        st.tx_bytes += batch.source_bytes()
        if st.tx_bytes >= COMMIT_BYTES:
            _commit(store, st)
    _lost(st.src.path, lost, problems)


def _lost(path: str, lost: Iterable[tuple[str, str, str, str]], problems: list[Problem]) -> None:
    for mid, table, column, value in lost:
        problems.append(Problem(path=path, record=mid, message_id=mid,
                                reason=f"{table}.{column} cannot hold {value}; stored as NULL "
                                       "(kept in the message's raw JSON)"))


def _commit(store: KbStore, st: _Session) -> None:
    """Commit the batches written since the last commit, with the session row (messages
    never exist without one, even if the ingest dies before the session ends)."""
    if not st.open_tx:
        return
    try:
        store.upsert_session(st.was or _session_info(st.src, st.times,
                                                     st.first_prompt or st.taken_back, None,
                                                     st.end),
                             DERIVE_VERSION)
        scan_titles(store, [st.src.session_id])
        store.commit()
    except BaseException:
        _rollback(store, st)
        raise
    st.open_tx, st.tx_bytes = False, 0


def _rollback(store: KbStore, st: _Session) -> None:
    if st.open_tx:
        st.open_tx, st.tx_bytes = False, 0
        try:
            store.rollback()
        except duckdb.Error:  # the failed statement may have ended it already
            pass


def _check_partial(store: KbStore, src: SourceSession,
                   problems: list[Problem]) -> SessionReport | None:
    """A run stream of a session already stored completely: report what it would add."""
    known = store.known_messages(src.session_id)
    extra = [m for m in src.messages if not m.inferred and m.info["id"] not in known]
    if extra and src.form in LINE_KEYED:
        # ids are lines of another file (a Claude Code stream-json beside its transcript):
        # a message is stored when its own record is, under whatever id
        held: set[int] = set()
        for _, raw in store.stored_raws(src.session_id, 0):
            mine, others = record_keys(raw)
            held.update(mine, others)
        extra = [m for m in extra if own_key(m.raw, m.line) not in held]
    if extra:
        where = "its transcript" if src.agent == "claude-code" else \
            "opencode.db or an export"
        problems.append(Problem(
            path=src.path, record=src.session_id,
            reason=f"the run stream has {len(extra)} messages that session {src.session_id} "
                   f"(stored from a complete source) lacks; ingest the session from {where} "
                   "to place them"))
    return None


def _rewound_from(raw: bytes) -> int:
    """The first message a Gemini CLI ``$rewindTo`` took back (a rewind to an id it does
    not know takes back from the first), read from the raw record of the message the
    rewind followed (``$.rewinds``, :attr:`logparse._agentlines.Draft.rewinds`); past
    every message when the record holds none."""
    none = 1 << 62
    try:
        doc = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return none
    rewinds = doc.get("rewinds") if isinstance(doc, dict) else None
    if not isinstance(rewinds, list):
        return none
    return min((r["from"] for r in rewinds
                if isinstance(r, dict) and isinstance(r.get("from"), int)), default=none)


def _prompt_text(parts: list[dict[str, object]]) -> str | None:
    """The user's own words in a message (what a title falls back to): the file open in
    the IDE, reminders and other injected text left out (:func:`request_text`)."""
    for p in parts:
        # (a compaction's summary, as what was injected, names no session; a part a
        # reader marked synthetic is the harness's: logparse.author.part_author)
        if isinstance(p, dict) and p.get("type") == "text" \
                and part_author(p) not in (HARNESS, COMPACTION):
            text = p.get("text")
            if isinstance(text, str) and (own := request_text(text)):
                return own
    return None


_PLACEHOLDER_TITLE = re.compile(
    r"(?:New|Child) session - \d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z")
"""opencode's title of a session whose title was never made (``New session - <ISO time>``):
cut at 80 columns, every such session read the same."""


_INFO_STR = (("title", "title"), ("slug", "slug"), ("parentID", "parent_id"),
             ("directory", "directory"), ("projectID", "project_id"), ("version", "version"))


def _session_info(src: SourceSession, derived_times: tuple[int | None, int | None],
                  first_prompt: str | None, problems: list[Problem] | None,
                  end: int | None = None) -> SessionInfo:
    """The session row (``derived_times``: the first and last message times seen so far,
    for a source without them).  A field of the wrong type is left out (and reported when
    ``problems`` is given); the session's raw info keeps it.  ``end``: when the copy
    read ends, kept in the info under :data:`ENDS`."""
    first_time, last_time = derived_times
    info = src.info if isinstance(src.info, dict) else {}
    if end is not None:
        info = {**info, ENDS: end}
    fields: dict[str, str | None] = {}
    bad: list[str] = []
    for key, col in _INFO_STR:
        v = info.get(key)
        if v is None or isinstance(v, str):
            fields[col] = v
        else:
            bad.append(f"{key} is {type(v).__name__}, expected a string")
            fields[col] = None
    t = info.get("time")
    if t is not None and not isinstance(t, dict):
        bad.append(f"time is {type(t).__name__}, expected an object")
    t = t if isinstance(t, dict) else {}
    times: dict[str, int | None] = {}
    for key in ("created", "updated"):
        v = t.get(key)
        ok = isinstance(v, (int, float)) and not isinstance(v, bool) and \
            -(1 << 63) <= v < (1 << 63)
        if v is not None and not ok:
            bad.append(f"time.{key} is not a 64-bit integer ({str(v)[:40]})")
        times[key] = int(v) if ok else None  # type: ignore[arg-type]
    if bad and problems is not None:
        for b in bad:
            problems.append(Problem(path=src.path, record=src.session_id,
                                    reason=f"session info: {b}; not used (kept in the "
                                           "session's raw info)"))
    title = fields["title"]
    if title and _PLACEHOLDER_TITLE.fullmatch(title):
        title = None  # opencode's stand-in until a title is made: the prompt says more
    if not title and first_prompt:
        line = first_prompt.strip().splitlines()[0] if first_prompt.strip() else ""
        title = line if len(line) <= 80 else line[:77] + "..."
    return SessionInfo(
        session_id=src.session_id, title=title or None, slug=fields["slug"],
        parent_id=fields["parent_id"], directory=fields["directory"],
        project_id=fields["project_id"], version=fields["version"],
        time_created=times["created"] or first_time,
        time_updated=times["updated"] or last_time,
        source_kind=src.form, source_path=src.path, complete=src.complete,
        info=info or None, agent=src.agent)
