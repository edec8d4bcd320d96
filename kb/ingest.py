"""Ingest: inputs → readers → deriver → store, one transaction per session.

Idempotent and incremental: a message already stored with the same digest at
the same ordinal is not derived or written again, a session that grew adds only
its new messages, and an input file whose fingerprint (size, mtime, and its WAL
for a database) did not change is not read at all.  An incomplete source (the
run stream) never overwrites a session stored from a complete one.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from kb.secrets import backfill as backfill_secrets
from kb.secrets import scan_batch
from kb.store import KbStore
from logparse.derive import Deriver
from logparse.models import Problem, SessionInfo
from logparse.registry import Input, discover
from logparse.source import NotATranscript, SourceSession

BATCH_MESSAGES = 2048

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

    def as_json(self) -> dict[str, object]:
        return {"id": self.session_id, "title": self.title, "messages": self.messages,
                "events": self.events, "new_messages": self.new_messages, "form": self.form,
                "path": self.path, "parent_id": self.parent_id}


@dataclass
class IngestReport:
    sessions: list[SessionReport] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    errors: list[NotATranscript] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    """Inputs skipped because they did not change since the last ingest."""
    graphs: list[str] = field(default_factory=list)
    """Scopes whose knowledge graph was rebuilt."""

    def add(self, rep: SessionReport) -> None:
        """Record a session; a session met again (in another form) is reported once."""
        for i, old in enumerate(self.sessions):
            if old.session_id == rep.session_id:
                rep.new_messages += old.new_messages
                self.sessions[i] = rep
                return
        self.sessions.append(rep)

    @property
    def new_messages(self) -> int:
        return sum(s.new_messages for s in self.sessions)

    def as_json(self) -> dict[str, object]:
        return {
            "sessions": [s.as_json() for s in self.sessions],
            "problems": [p.model_dump() for p in self.problems],
            "errors": [{"path": e.path, "reason": e.reason} for e in self.errors],
            "unchanged": self.unchanged,
            "graphs_rebuilt": self.graphs,
        }


def fingerprint(path: Path) -> str | None:
    """Size and mtime of a file (and of its WAL); ``None`` for directories."""
    if not path.is_file():
        return None
    parts = []
    for p in (path, Path(str(path) + "-wal")):
        if p.exists():
            st = p.stat()
            parts.append(f"{st.st_size}:{st.st_mtime_ns}")
    return "/".join(parts)


def plan(paths: Sequence[Path]) -> tuple[list[Input], list[NotATranscript]]:
    """The inputs found under ``paths`` (files are detected by content)."""
    inputs: list[Input] = []
    errors: list[NotATranscript] = []
    seen: set[Path] = set()
    for p in paths:
        for found in discover(p):
            if isinstance(found, NotATranscript):
                errors.append(found)
            elif found.path.resolve() not in seen:
                seen.add(found.path.resolve())
                inputs.append(found)
    return inputs, errors


def input_size(inp: Input) -> int:
    if inp.path.is_file():
        size = inp.path.stat().st_size
        wal = Path(str(inp.path) + "-wal")
        return size + (wal.stat().st_size if wal.exists() else 0)
    return 0


def ingest(store: KbStore, paths: Sequence[Path], *, session_ids: Iterable[str] | None = None,
           progress: Progress | None = None, force: bool = False, graph: bool = True,
           inputs: tuple[list[Input], list[NotATranscript]] | None = None) -> IngestReport:
    """Ingest every transcript under ``paths`` into ``store``."""
    report = IngestReport()
    # DuckDB caches written blocks up to its memory limit (80% of RAM by default); an
    # ingest streams, so a modest cache keeps its footprint flat whatever the input size
    store.conn.execute("SET memory_limit = ?", [os.environ.get("LOGKB_MEMORY_LIMIT", "512MB")])
    found, errors = inputs if inputs is not None else plan(paths)
    report.errors.extend(errors)
    wanted = frozenset(session_ids) if session_ids else None
    for inp in found:
        _ingest_input(store, inp, wanted, report, progress, force)
    store.link_children()
    rescanned = backfill_secrets(store)  # sessions stored before they were scanned
    if graph and (report.sessions or rescanned):
        from kb.graph.store import rebuild_all

        report.graphs = rebuild_all(
            store, only=[s.session_id for s in report.sessions] + rescanned)
    return report


def _ingest_input(store: KbStore, inp: Input, wanted: frozenset[str] | None,
                  report: IngestReport, progress: Progress | None, force: bool) -> None:
    spath = str(inp.path)
    fp = fingerprint(inp.path)
    if fp is not None and not force and wanted is None and store.source_fingerprint(spath) == fp:
        report.unchanged.append(spath)
        if progress:
            progress(input_size(inp))
        return
    problems: list[Problem] = []
    reader = inp.reader()
    sessions: list[str] = []
    gc_was_enabled = gc.isenabled()
    gc.disable()  # derivation allocates millions of small tuples and no cycles
    try:
        for src in reader.sessions(inp.path, problems, wanted):
            rep = _ingest_session(store, src, problems, progress)
            if rep is not None:
                report.add(rep)
                sessions.append(rep.session_id)
    except NotATranscript as e:
        report.errors.append(e)
        return
    finally:
        if gc_was_enabled:
            gc.enable()
    store.replace_problems(spath, problems)
    report.problems.extend(problems)
    if fp is not None and wanted is None:
        store.record_source(spath, inp.form, fp, sessions)


def _ingest_session(store: KbStore, src: SourceSession, problems: list[Problem],
                    progress: Progress | None) -> SessionReport | None:
    sid = src.session_id
    stored = store.stored_session(sid)
    if stored is not None and stored.complete and not src.complete:
        return _check_partial(store, src, problems)
    replace_all = stored is not None and src.complete and not stored.complete
    if replace_all:
        with store.transaction():
            store.delete_session(sid)
    # what is stored already, session row or not (an interrupted ingest leaves messages
    # without one): those rows are kept or replaced, never written twice
    known = store.known_messages(sid)
    deriver = Deriver(sid, src.path, known)
    seen: set[str] = set()
    first_prompt: str | None = None
    # one transaction per batch, not per session: DuckDB keeps a transaction's rows in
    # memory until it commits, and a session can be far larger than memory should be
    for msg in src.messages:
        seen.add(msg.info["id"])
        deriver.add(msg)
        if first_prompt is None and msg.info.get("role") == "user":
            first_prompt = _prompt_text(msg.parts)
        if progress:
            progress(len(msg.raw))
        if len(deriver.batch) >= BATCH_MESSAGES:
            _flush(store, sid, deriver, known)
    _flush(store, sid, deriver, known)
    with store.transaction():
        removed = [m for m in known if m not in seen] if src.complete else []
        if removed:
            store.delete_messages(sid, removed)
        if deriver.out_of_order or removed:
            store.renumber(sid)
        info = _session_info(src, deriver, first_prompt)
        store.upsert_session(info)
    problems.extend(deriver.problems)
    row = store.session(sid)
    return SessionReport(session_id=sid, title=row["title"], messages=row["messages"],
                         events=row["events"], new_messages=deriver.derived, form=src.form,
                         path=src.path, parent_id=info.parent_id)


def _flush(store: KbStore, sid: str, deriver: Deriver, known: dict[str, tuple[int, int]]) -> None:
    batch = deriver.take()
    if not len(batch) and not batch.calls and not batch.prose and not batch.other:
        return
    replace = [row[0] for row in batch.messages if row[0] in known] if known else []
    with store.transaction():
        store.write_batch(sid, batch, replace)
        scan_batch(store, sid, batch)  # issue 14: the secrets the batch holds


def _check_partial(store: KbStore, src: SourceSession,
                   problems: list[Problem]) -> SessionReport | None:
    """A run stream of a session already stored completely: report what it would add."""
    known = store.known_messages(src.session_id)
    extra = [m.info["id"] for m in src.messages if not m.inferred and m.info["id"] not in known]
    if extra:
        problems.append(Problem(
            path=src.path, record=src.session_id,
            reason=f"the run stream has {len(extra)} messages that session {src.session_id} "
                   "(stored from a complete source) lacks; ingest the session from opencode.db "
                   "or an export to place them"))
    return None


def _prompt_text(parts: list[dict[str, object]]) -> str | None:
    for p in parts:
        if isinstance(p, dict) and p.get("type") == "text" and not p.get("synthetic"):
            text = p.get("text")
            if isinstance(text, str) and text.strip():
                return text
    return None


def _session_info(src: SourceSession, deriver: Deriver, first_prompt: str | None) -> SessionInfo:
    info = src.info or {}
    t = info.get("time") if isinstance(info.get("time"), dict) else {}
    title = info.get("title")
    if not title and first_prompt:
        line = first_prompt.strip().splitlines()[0]
        title = line if len(line) <= 80 else line[:77] + "..."
    return SessionInfo(
        session_id=src.session_id, title=title, slug=info.get("slug"),
        parent_id=info.get("parentID"), directory=info.get("directory"),
        project_id=info.get("projectID"), version=info.get("version"),
        time_created=t.get("created") or deriver.first_time,
        time_updated=t.get("updated") or deriver.last_time,
        source_kind=src.form, source_path=src.path, complete=src.complete,
        info=info or None)
