"""``logkb watch``: follow transcript stores and ingest what lands, as it lands.

The watcher waits for file notifications (``watchfiles``: inotify on Linux,
FSEvents on macOS) or, with ``poll``, compares file sizes and mtimes every few
seconds.  Each burst of changes becomes one ordinary incremental ingest: only
new messages are derived, the graph of a session that grew continues where it
stopped.  The knowledge base is opened read-write only for that ingest and
closed again, so the TUI, ``logkb mcp`` and CLI commands keep working beside it.

It survives what live stores do: opencode writing its WAL while we read (an
ingest that fails mid-write is retried on the next change, never fatal), WAL
checkpoints (the database file changes, the ingest finds nothing new), opencode
restarting (new files are found by the next scan), and a store that does not
exist yet (its nearest existing parent is watched until it appears).
SQLite's ``-shm`` index and DuckDB's own files never trigger an ingest.

With a team server (``watch --push``) every ingest that added messages is followed
by a ``logkb push`` of the sessions it touched (with their subagents): their graph
is brought up to date read-write, then what is sent is read read-only.  A push the
server refused or could not take (it is down) is kept and tried again after the
next ingest; a push never stops the watch.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kb.store import KbError, KbStore

Event = dict[str, Any]
"""What the watcher reports: ``{"event": "ingested" | "error" | "watching", …}``."""

_IGNORED_SUFFIXES = ("-shm", ".duckdb", ".duckdb.wal", ".tmp", ".lock", "-journal")


@dataclass
class WatchStats:
    ingests: int = 0
    new_messages: int = 0
    errors: int = 0
    last: float | None = None
    sessions: set[str] = field(default_factory=set)


def _existing_root(p: Path) -> Path:
    """``p`` or its nearest existing ancestor (a store that does not exist yet)."""
    p = p.absolute()
    while not p.exists() and p != p.parent:
        p = p.parent
    return p


def _relevant(changed: str, wanted: Sequence[Path], db: Path) -> bool:
    if changed.endswith(_IGNORED_SUFFIXES) or changed.startswith(str(db)):
        return False
    c = Path(changed)
    return any(c == w or w in c.parents or c in w.parents for w in wanted)


def _fingerprints(paths: Iterable[Path]) -> dict[str, tuple[int, int]]:
    """Size and mtime of every file under ``paths`` (the polling fallback)."""
    out: dict[str, tuple[int, int]] = {}
    for p in paths:
        if p.is_file():
            st = p.stat()
            out[str(p)] = (st.st_size, st.st_mtime_ns)
        elif p.is_dir():
            for dirpath, dirnames, filenames in os.walk(p):
                dirnames[:] = [d for d in dirnames if d not in {".git", "node_modules"}]
                for n in filenames:
                    if n.endswith(_IGNORED_SUFFIXES):
                        continue
                    try:
                        st = os.stat(os.path.join(dirpath, n))
                    except OSError:
                        continue
                    out[os.path.join(dirpath, n)] = (st.st_size, st.st_mtime_ns)
    return out


class Watcher:
    """Ingest ``paths`` into the knowledge base ``db`` whenever they change."""

    def __init__(self, db: str | Path, paths: Sequence[Path], *,
                 on_event: Callable[[Event], None] | None = None,
                 poll: float | None = None, debounce_ms: int = 400,
                 stop: threading.Event | None = None, graph: bool = False) -> None:
        self.db = Path(db).absolute()
        self.paths = [Path(p).absolute() for p in paths]
        self.on_event = on_event or (lambda e: None)
        self.poll = poll
        self.debounce_ms = debounce_ms
        self.stop = stop or threading.Event()
        self.graph = graph
        """Build the graph and the search index after each ingest (else: on demand)."""
        self.stats = WatchStats()
        self.told: set[str] = set()
        """Files reported as not taken (each is reported once)."""
        self.push_to: tuple[str, str | None] | None = None
        """``(server URL, team name)`` to push changed sessions to (``watch --push``)."""
        self.unpushed: set[str] = set()
        """Scopes whose push is owed (changed since, or the last push failed)."""

    # ------------------------------------------------------------- ingest
    def ingest_now(self) -> Event | None:
        """One incremental ingest of whatever exists of ``paths``; reports what it added.

        A stat pass first: only files changed since they were read are opened."""
        from kb.ingest import Seen, ingest, plan

        present = [p for p in self.paths if p.exists()]
        if not present:
            return None
        store: KbStore | None = None
        try:
            seen = None
            if self.db.exists():
                store = KbStore(self.db, read_only=False)
                seen = Seen.load(store)
            found, refused = plan(present, seen, own=self.db)
            for e in refused:  # every file not taken, once, with the reason
                if e.path not in self.told:
                    self.told.add(e.path)
                    self.on_event({"event": "not_taken", "time": time.time(), "path": e.path,
                                   "reason": e.reason, "error": e.is_error})
            if not found:
                return None
            if store is None:
                store = KbStore(self.db, read_only=False)
            # the graph and the search index follow on the first query that reads them:
            # a change is stored (and searchable) without waiting for them
            report = ingest(store, present, inputs=(found, []), seen=seen,
                            graph=self.graph, index=self.graph)
            # named as every other command names them (`sessions`, `ingest`, `search`)
            shorts = store.short_ids()
        except (KbError, OSError) as e:
            self.stats.errors += 1
            ev: Event = {"event": "error", "time": time.time(), "error": str(e)}
            self.on_event(ev)
            return ev
        except Exception as e:  # noqa: BLE001 - a live store mid-write: retry on next change
            self.stats.errors += 1
            ev = {"event": "error", "time": time.time(),
                  "error": f"{type(e).__name__}: {e}", "retry": "on the next change"}
            self.on_event(ev)
            return ev
        finally:
            if store is not None:
                store.close()
        # a message that grew (its call answered since) is updated, not new: it counts too
        new = [s for s in report.sessions if s.new_messages or s.updated_messages]
        if not new and not report.problems:
            return None
        self.stats.ingests += 1
        self.stats.new_messages += sum(s.new_messages for s in new)
        self.stats.sessions.update(s.session_id for s in new)
        self.stats.last = time.time()
        ev = {"event": "ingested", "time": self.stats.last,
              "sessions": [{"id": s.session_id,
                            "short_id": shorts.get(s.session_id, s.session_id),
                            "title": s.title, "messages": s.messages,
                            "new_messages": s.new_messages,
                            "updated_messages": s.updated_messages} for s in new],
              "problems": [str(p) for p in report.problems]}
        self.on_event(ev)
        if self.push_to is not None:
            self.push_now([s.session_id for s in new])
        return ev

    def push_now(self, session_ids: Iterable[str] = ()) -> Event | None:
        """Push the scopes of ``session_ids`` and every scope still owed to the team
        server; reports ``pushed`` (what each scope became) or ``error`` (kept for the
        next time)."""
        from kb.graph import store as gs
        from kb.team import push as tp
        from kb.team.server import TeamError

        if self.push_to is None:
            return None
        url, team = self.push_to
        try:
            with KbStore(self.db, read_only=False) as rw:
                self.unpushed.update(gs.scope_of(rw, sid) for sid in session_ids)
                wanted = sorted(self.unpushed)
                for scope in gs.unbuilt(rw, wanted):
                    gs.rebuild(rw, scope)
            with KbStore(self.db, read_only=True) as store:
                store.reveal_secrets = False  # what leaves the machine is redacted
                chosen, results = tp.push(url, store, wanted, team=team)
        except (KbError, OSError) as e:  # TeamError is a KbError: the server, or the file
            self.stats.errors += 1
            ev: Event = {"event": "error", "time": time.time(), "error": str(e),
                         "retry": "after the next ingest",
                         "push": not isinstance(e, OSError) and isinstance(e, TeamError)}
            self.on_event(ev)
            return ev
        for r in results:
            if r.status != "failed":
                self.unpushed.discard(r.scope)
        ev = {"event": "pushed", "time": time.time(), "team": chosen,
              "scopes": [r.as_json() for r in results]}
        self.on_event(ev)
        return ev

    # -------------------------------------------------------------- loops
    def run(self, duration: float | None = None) -> WatchStats:
        """Ingest once, then on every change until ``stop`` is set (or ``duration`` ends)."""
        if duration is not None:
            timer = threading.Timer(duration, self.stop.set)
            timer.daemon = True
            timer.start()
        self.on_event({"event": "watching", "time": time.time(),
                       "paths": [str(p) for p in self.paths],
                       "mode": "poll" if self.poll else "notify"})
        self.ingest_now()
        if self.poll:
            self._poll_loop(self.poll)
        else:
            try:
                self._notify_loop()
            except (ImportError, OSError):  # no notifications here: poll instead
                self._poll_loop(2.0)
        return self.stats

    def _notify_loop(self) -> None:
        import watchfiles

        while not self.stop.is_set():
            roots = sorted({_existing_root(p) for p in self.paths})
            missing = any(not p.exists() for p in self.paths)
            for changes in watchfiles.watch(
                    *roots, stop_event=self.stop, debounce=self.debounce_ms,
                    rust_timeout=1000, yield_on_timeout=missing, raise_interrupt=False,
                    watch_filter=lambda _c, path: _relevant(path, self.paths, self.db)):
                if changes or missing:
                    self.ingest_now()
                if missing and all(p.exists() for p in self.paths):
                    break  # what we waited for exists now: watch it directly

    def _poll_loop(self, every: float) -> None:
        seen = _fingerprints(self.paths)
        while not self.stop.wait(every):
            now = _fingerprints(self.paths)
            if now != seen:
                seen = now
                self.ingest_now()
