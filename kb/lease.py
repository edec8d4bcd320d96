"""Hold the knowledge base file only while it is used: for long-lived readers (the TUI).

DuckDB lets one process open a file read-write, and while any process holds it
(even read-only) no other process can open it read-write.  A viewer that kept
its connection open for hours would lock ``logkb ingest`` out for hours.  A
:class:`KbLease` opens a read-only connection for a *burst* of queries and
closes it once nobody has used it for ``idle`` seconds, so another process
waits at most about that long (``logkb ingest`` itself waits up to
``LOGKB_LOCK_TIMEOUT`` seconds for a busy file).

* :meth:`KbLease.read` lends a store whose ``conn`` is a private cursor of the
  shared read-only connection (DuckDB connections are not thread-safe, cursors
  are per thread), so worker threads can query at the same time.
* :meth:`KbLease.write` waits for the readers, closes the read-only connection
  and opens the file read-write for one short transaction-sized job (an
  annotation, a graph rebuild), then lets readers reopen read-only.
* When another process holds the file, opening waits, retrying, and reports
  the wait through ``on_busy`` so a UI can say why it is waiting.

This module is pure ``kb``: it knows nothing of Textual.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

import duckdb

from kb.errors import KbReadOnly
from kb.hooks import StoreHooks
from kb.redact import Redactor
from kb.store import KbLocked, KbMissing, KbStore, load_redactor

DEFAULT_IDLE = 2.0
"""Seconds without a query after which the file is released (``LOGKB_TUI_IDLE``)."""


class _Borrowed(KbStore):
    """A :class:`KbStore` over a cursor of a lease's connection (closing it closes the
    cursor only)."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, path: str, read_only: bool,
                 lease: KbLease | None = None) -> None:
        # deliberately not calling KbStore.__init__: the connection is already open
        self.path = path
        self.read_only = read_only
        self.conn = conn
        self.hooks = StoreHooks()
        self._lease = lease
        if lease is not None:
            self.reveal_secrets = lease.reveal_secrets

    @property
    def redactor(self) -> Redactor:
        """The lease's redactor, loaded once per opening of the file."""
        lease = self._lease
        if lease is None:
            return super().redactor
        with lease._cond:
            red = lease._redactor
        if red is None or red.reveal != self.reveal_secrets:
            red = load_redactor(self.conn, reveal=self.reveal_secrets)
            with lease._cond:
                lease._redactor = red
        return red

    def forget_secrets(self, stale: Sequence[str] = ()) -> None:
        if self._lease is not None:
            self._lease._redactor = None
        super().forget_secrets(stale)


class KbLease:
    """Lend short-lived access to one knowledge base file to many threads."""

    def __init__(self, path: str | Path, *, idle: float | None = None,
                 wait: float | None = None,
                 on_busy: Callable[[str], object] | None = None) -> None:
        self.path = str(path)
        if idle is None:
            idle = float(os.environ.get("LOGKB_TUI_IDLE", DEFAULT_IDLE))
        if wait is None:
            wait = float(os.environ.get("LOGKB_LOCK_TIMEOUT", "15"))
        self.idle = idle
        """Seconds of disuse after which the connection is closed (0: after every burst)."""
        self.wait = wait
        """Seconds to wait for a file another process holds before :class:`KbLocked`."""
        self.on_busy = on_busy
        """Called (from a worker thread) with a message when opening has to wait."""
        self.memory = self.path == ":memory:"
        self._cond = threading.Condition()
        self._store: KbStore | None = None
        self._users = 0
        self._writing = False
        self._last_use = 0.0
        self._timer: threading.Timer | None = None
        self._closed = False
        self.opens = 0
        """How many times the file was opened (for tests and the status line)."""
        self.reveal_secrets = False
        """Stores lent show secrets as stored (the TUI's toggle, after it asked)."""
        self._redactor: Redactor | None = None
        self.read_only: str | None = None
        """Why nothing may be written (a team mirror), else None: :meth:`write` raises
        :class:`~kb.errors.KbReadOnly` with it."""
        if not self.memory and not Path(self.path).exists():
            raise KbMissing(f"no knowledge base at {self.path}")
        self._seen = self.stamp()
        """The file's :meth:`stamp` when this lease last let go of it (or was made)."""
        self._elsewhere = False
        """Whether the file changed while this lease did not hold it, seen at an open."""

    # ---------------------------------------------------------------- state
    @property
    def held(self) -> bool:
        """Whether this process holds the file open right now."""
        return self._store is not None

    def _open(self, read_only: bool) -> KbStore:
        if not self.memory and self.stamp() != self._seen:
            self._elsewhere = True  # written while released: by another process
        deadline = time.monotonic() + self.wait
        told = False
        while True:
            try:
                store = KbStore(self.path, read_only=read_only and not self.memory,
                                lock_timeout=min(0.5, self.wait))
                self.opens += 1
                return store
            except KbLocked as e:
                if time.monotonic() >= deadline:
                    raise
                if not told and self.on_busy is not None:
                    self.on_busy(f"{e}; waiting up to {self.wait:g}s")
                    told = True

    def _close_store(self) -> None:
        self._redactor = None  # another process may ingest while the file is released
        if self._store is not None and not self.memory:
            self._store.close()
            self._store = None
            self._seen = self.stamp()

    def changed_elsewhere(self) -> bool:
        """Whether another process wrote the file since the last call (a cheap ``stat``
        while released).  What this lease wrote itself (a graph rebuilt, an annotation, a
        migration, the checkpoint of closing) is never counted: while it holds the file
        no other process can write it, so the file as it was when the lease let go of it
        is this process's own."""
        with self._cond:
            changed = self._elsewhere or (
                not self.memory and self._store is None and not self._writing
                and self.stamp() != self._seen)
            self._elsewhere = False
            if changed and self._store is None and not self._writing:
                self._seen = self.stamp()
            return changed

    def _schedule_release(self) -> None:
        if self.memory:
            return
        if self._timer is not None:
            self._timer.cancel()
        if self.idle <= 0:
            self._close_store()
            return
        self._timer = threading.Timer(self.idle, self._release_if_idle)
        self._timer.daemon = True
        self._timer.start()

    def _release_if_idle(self) -> None:
        with self._cond:
            if self._users == 0 and not self._writing and (
                    time.monotonic() - self._last_use >= self.idle - 0.01):
                self._close_store()

    def stamp(self) -> tuple[tuple[int, int], ...]:
        """Size and mtime of the file and its WAL: changes when any process writes.

        A cheap ``stat``, so a viewer can poll it to notice a ``logkb ingest`` or
        ``logkb watch`` in another process without opening the file."""
        out = []
        for p in (self.path, self.path + ".wal"):
            try:
                st = os.stat(p)
            except OSError:
                out.append((-1, -1))
            else:
                out.append((st.st_size, st.st_mtime_ns))
        return tuple(out)

    def release(self) -> None:
        """Close the file now if no query is running (``ctrl+r`` and tests)."""
        with self._cond:
            if self._users == 0 and not self._writing:
                self._close_store()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            if self._timer is not None:
                self._timer.cancel()
            while self._users or self._writing:
                self._cond.wait(0.1)
            if self._store is not None:
                self._store.close()
                self._store = None

    # ---------------------------------------------------------------- leases
    @contextmanager
    def read(self) -> Iterator[KbStore]:
        """A read-only store for this thread; the file stays open while any is lent."""
        with self._cond:
            while self._writing:
                self._cond.wait()
            if self._closed:
                raise RuntimeError("the lease is closed")
            if self._store is None:
                self._store = self._open(read_only=True)
            self._users += 1
            cur = self._store.conn.cursor()
        try:
            yield _Borrowed(cur, self.path, read_only=not self.memory, lease=self)
        finally:
            try:
                cur.close()
            finally:
                with self._cond:
                    self._users -= 1
                    self._last_use = time.monotonic()
                    if self._users == 0:
                        self._schedule_release()
                    self._cond.notify_all()

    @contextmanager
    def write(self) -> Iterator[KbStore]:
        """The file read-write, alone: for one short job (annotate, rebuild the graph).

        Raises :class:`~kb.errors.KbReadOnly` when the lease is :attr:`read_only`."""
        if self.read_only is not None:
            raise KbReadOnly(self.read_only)
        with self._cond:
            while self._writing or self._users:
                self._cond.wait()
            self._writing = True
            if self._timer is not None:
                self._timer.cancel()
        try:
            if self.memory:
                if self._store is None:
                    self._store = self._open(read_only=False)
                self._redactor = None
                yield self._store
            else:
                self._close_store()
                store = self._open(read_only=False)
                try:
                    yield store
                finally:
                    store.close()
                    self._seen = self.stamp()
        finally:
            with self._cond:
                self._writing = False
                self._last_use = time.monotonic()
                self._cond.notify_all()
