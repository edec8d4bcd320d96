"""Derivation in worker processes, so that it runs on every core and beside the writes.

Ingest is CPU-bound and single-threaded in Python: a message is read and parsed,
derived (shell parsing, error signatures, measurements, prose classes), turned
into Arrow columns, scanned for secrets and written.  Only a small part of the
derivation is sequential: a message's ordinal, the order check, the first and
last time, the skip test of an incremental ingest and the turn state (whether the
message before called a tool), :meth:`~logparse.derive.Deriver.step`.  The rest
needs nothing but the message (:meth:`~logparse.derive.Deriver.derive_at`), so a
large input runs the sequential part here and sends the messages to derive, a
batch at a time and in turn, to :data:`WORKERS` worker processes
(``python -m kb.derive_pool``); each answers with the batch's Arrow tables and
the secrets they hold.  The ingesting process reads the next batch and writes the
previous ones meanwhile, in order, so the rows are those inline derivation gives
(``tests/kb/test_derive_pool.py``).

Two derivers, one interface (what :mod:`kb.ingest` calls):

* :class:`LocalDeriver` derives in the calling process (small inputs: starting the
  workers costs ~0.3 s);
* :class:`RemoteDeriver` sends the messages to the :class:`DerivePool` workers.

``add`` a message, ``submit`` the batch when :attr:`pending` says it is full (or
the session's run ends), and write each :class:`~kb.arrow.ArrowBatch` that
``results`` hands back, in order.  ``LOGKB_DERIVE_POOL`` = ``0`` never starts a
worker, ``1`` uses the workers for every input, unset uses them for inputs of at
least :data:`POOL_MIN_BYTES` on a machine with more than one CPU.

The protocol is length-prefixed pickles over each worker's stdin and stdout, one
request at a time: the ingesting process reads a worker's answer before it sends
that worker anything else, so neither side can block the other on a full pipe.  A
worker ends when its stdin closes (the ingesting process ended, even by ``kill
-9``).  A worker that dies or fails makes the ingest fail with
:class:`DeriveWorkerError`: batches already committed are whole, and the next
ingest carries on (as after any crash).
"""

from __future__ import annotations

import gc
import os
import pickle
import signal
import struct
import subprocess
import sys
import traceback
from collections import deque
from typing import IO, TYPE_CHECKING, Any

import orjson
import pyarrow as pa

from kb.arrow import ArrowBatch, to_arrow_batch
from kb.errors import KbError
from kb.secrets import batch_findings
from logparse.models import Problem
from logparse.source import RawMessage

if TYPE_CHECKING:
    # imported where a message is derived: a re-run with nothing changed never loads
    # the rules (~0.1 s of CPU)
    from logparse.derive import Deriver

POOL_MIN_BYTES = 64 << 20
"""Inputs at least this large are derived in the workers (when there is a second CPU):
below it, starting them costs more than they save."""
SEND_MESSAGES = 256
"""Messages sent to a worker at a time (a batch goes in several): the worker holds them
parsed, ~10× their size, and smaller requests start the workers sooner."""
WORKERS = int(os.environ.get("LOGKB_DERIVE_WORKERS", "2"))
"""Worker processes (``LOGKB_DERIVE_WORKERS``): two keep two cores busy while the
ingesting process (about half a core: reading, DuckDB, the index) takes its share."""

_LEN = struct.Struct("<Q")


class DeriveWorkerError(KbError):
    """A derive worker died or failed; nothing of the batches in flight was written."""


def pool_wanted(size: int) -> bool:
    """Whether an input of ``size`` bytes is derived in the workers."""
    mode = os.environ.get("LOGKB_DERIVE_POOL", "")
    if mode == "0":
        return False
    if mode == "1":
        return True
    return size >= POOL_MIN_BYTES and (os.cpu_count() or 1) > 1


# ------------------------------------------------------------------ derivers
class LocalDeriver:
    """A :class:`~logparse.derive.Deriver` in this process, behind the pool's interface."""

    def __init__(self, session_id: str, source: str, known: dict[str, tuple[int, int]],
                 author: str = "human") -> None:
        from logparse.derive import Deriver

        self._d = Deriver(session_id, source, known, author)
        self._done: deque[ArrowBatch] = deque()

    def add(self, msg: RawMessage, dg: int) -> None:
        self._d.add(msg, dg)

    @property
    def pending(self) -> int:
        """Messages added and derived since the last :meth:`submit` (skipped ones not)."""
        return len(self._d.batch)

    def submit(self) -> None:
        """End the batch: its rows become Arrow tables."""
        b = self._d.take()
        if len(b) or b.calls or b.prose or b.other:
            arrow = to_arrow_batch(b)
            arrow.times = (self._d.first_time, self._d.last_time)
            self._done.append(arrow)

    def results(self, wait: bool = False) -> list[ArrowBatch]:  # noqa: ARG002
        """Batches ready to write, oldest first (here: all of them, at once)."""
        out = list(self._done)
        self._done.clear()
        return out

    def close(self) -> None:
        pass

    def sequence(self) -> dict[str, Any]:
        return self._d.sequence()

    def resume_sequence(self, s: dict[str, Any]) -> None:
        self._d.resume_sequence(s)

    # the deriver's state, as ingest reads it
    problems = property(lambda self: self._d.problems,
                        lambda self, v: setattr(self._d, "problems", v))
    out_of_order = property(lambda self: self._d.out_of_order)
    keep = property(lambda self: self._d.keep)
    skipped_ids = property(lambda self: self._d.skipped_ids)
    derived = property(lambda self: self._d.derived)
    first_time = property(lambda self: self._d.first_time)
    last_time = property(lambda self: self._d.last_time)


class RemoteDeriver:
    """A session derived in the workers.  The sequential part of derivation (ordinals, the
    order check, times, the skip test, the turn state: :meth:`Deriver.step`) runs here;
    each batch of messages to derive goes to the next worker with the place of each
    message, and the answers come back in order."""

    def __init__(self, pool: DerivePool, session_id: str, source: str,
                 known: dict[str, tuple[int, int]], author: str = "human") -> None:
        self._pool = pool
        self._key = pool.new_key()
        self._ident = (session_id, source, author)
        from logparse.derive import Deriver

        self._seq = Deriver(session_id, source, known, author)
        self._items: list[tuple[Any, ...]] = []
        self._pending = 0
        self._slots: deque[_Slot] = deque()
        self.problems: list[Problem] = []
        self.derived = 0

    def add(self, msg: RawMessage, dg: int) -> None:
        place = self._seq.step(msg, dg)
        if place is None:  # unchanged since it was stored
            return
        ordinal, prev_had_tool = place
        if msg.verbatim:  # the worker parses the bytes again: cheaper than pickling dicts
            head: tuple[Any, Any] = (None, None)
        else:
            head = (msg.info, msg.parts)
        self._items.append((*head, msg.raw, msg.line, msg.record, msg.inferred, dg, ordinal,
                            prev_had_tool, self._seq.proposal_before))
        self._pending += 1
        if len(self._items) >= SEND_MESSAGES:
            self._send()

    @property
    def pending(self) -> int:
        """Messages to derive added since the last :meth:`submit`."""
        return self._pending

    def submit(self) -> None:
        """End the batch (what was not sent yet goes now)."""
        self._send()
        self._pending = 0

    def _send(self) -> None:
        if not self._items:
            return
        slot = _Slot((self._seq.first_time, self._seq.last_time))
        self._slots.append(slot)
        self.derived += len(self._items)
        self._pool.send(("batch", self._key, self._ident, self._items), slot)
        self._items = []

    def results(self, wait: bool = False) -> list[ArrowBatch]:
        """Batches answered so far, oldest first; with ``wait``, every batch sent."""
        out = []
        while self._slots:
            slot = self._slots[0]
            if slot.reply is None:
                if not wait:
                    break
                self._pool.receive(slot.worker)
                continue
            self._slots.popleft()
            reply = slot.reply
            self.problems.extend(reply["problems"])
            tables = {name: pa.ipc.open_stream(buf).read_all()
                      for name, buf in reply["tables"].items()}
            if tables:
                out.append(ArrowBatch(tables, reply["lost"], slot.times, reply["findings"]))
        return out

    def close(self) -> None:
        self.results(wait=True)
        self._pool.close_session(self._key)

    def sequence(self) -> dict[str, Any]:
        return self._seq.sequence()

    def resume_sequence(self, s: dict[str, Any]) -> None:
        self._seq.resume_sequence(s)

    # the sequential state, as ingest reads it
    out_of_order = property(lambda self: self._seq.out_of_order)
    keep = property(lambda self: self._seq.keep)
    skipped_ids = property(lambda self: self._seq.skipped_ids)
    first_time = property(lambda self: self._seq.first_time)
    last_time = property(lambda self: self._seq.last_time)


class _Slot:
    """A batch sent to a worker, and its answer once read."""

    __slots__ = ("reply", "times", "worker")

    def __init__(self, times: tuple[int | None, int | None]) -> None:
        self.times = times
        self.worker = -1
        self.reply: dict[str, Any] | None = None


class DerivePool:
    """The worker processes (started on first use) and the batch each one is deriving.

    Batches go to the workers in turn.  A worker reads a request only once it answered
    the one before, so nothing is written to a worker whose answer is pending: that could
    fill both pipes and block both sides."""

    def __init__(self, workers: int = WORKERS) -> None:
        self._n = max(1, workers)
        self._procs: list[subprocess.Popen[bytes]] = []
        self._pending: list[_Slot | None] = []
        self._next = 0
        self._keys = 0

    def deriver(self, session_id: str, source: str,
                known: dict[str, tuple[int, int]], author: str = "human") -> RemoteDeriver:
        return RemoteDeriver(self, session_id, source, known, author)

    def new_key(self) -> int:
        self._keys += 1
        return self._keys

    def _start(self) -> None:
        if self._procs:
            return
        env = dict(os.environ)
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
        for _ in range(self._n):
            # -P: ``-m`` would put the working directory first on the path, and a worker
            # started in another logkb checkout would import that tree's rules
            self._procs.append(subprocess.Popen(
                [sys.executable, "-P", "-m", "kb.derive_pool"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, env=env))
            self._pending.append(None)

    def send(self, request: tuple[Any, ...], slot: _Slot) -> None:
        """Send a batch to the next worker (once it answered its last one)."""
        self._start()
        w = self._next
        self._next = (w + 1) % self._n
        self._write(w, request)
        slot.worker = w
        self._pending[w] = slot

    def close_session(self, key: int) -> None:
        for w in range(len(self._procs)):
            self._write(w, ("close", key))

    def receive(self, w: int) -> None:
        """Read worker ``w``'s answer into its slot."""
        slot = self._pending[w]
        if slot is None:
            return
        proc = self._procs[w]
        assert proc.stdout is not None
        reply = _read(proc.stdout)
        if reply is None:
            code = proc.wait()
            raise DeriveWorkerError(f"a derive worker ended (exit {code}); what committed "
                                    "is consistent, ingest again")
        if "error" in reply:  # a traceback may quote the record it failed on (safe13)
            from logparse.secrets import redact_text

            raise DeriveWorkerError(
                f"a derive worker failed:\n{redact_text(str(reply['error']), depth=2)}")
        self._pending[w] = None
        slot.reply = reply

    def _write(self, w: int, request: tuple[Any, ...]) -> None:
        self.receive(w)
        proc = self._procs[w]
        assert proc.stdin is not None
        try:
            _send(proc.stdin, request)
        except (BrokenPipeError, OSError):
            code = proc.wait()
            raise DeriveWorkerError(f"a derive worker ended (exit {code}); what committed "
                                    "is consistent, ingest again") from None

    def close(self) -> None:
        """Stop the workers (each ends by itself when its stdin closes)."""
        procs, self._procs, self._pending = self._procs, [], []
        for proc in procs:
            # stdout too: a worker still writing an answer nobody reads (the ingest
            # failed meanwhile) gets a broken pipe instead of blocking
            for f in (proc.stdin, proc.stdout):
                try:
                    if f is not None:
                        f.close()
                except OSError:
                    pass
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _send(f: IO[bytes], obj: Any) -> None:
    data = pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL)
    f.write(_LEN.pack(len(data)))
    f.write(data)
    f.flush()


def _read(f: IO[bytes]) -> Any:
    head = f.read(_LEN.size)
    if len(head) < _LEN.size:
        return None
    (n,) = _LEN.unpack(head)
    if n > 1 << 40:
        raise DeriveWorkerError(f"the derive worker's answer is garbled ({head!r})")
    data = f.read(n)
    if len(data) < n:
        return None
    return pickle.loads(data)


# ------------------------------------------------------------------ the worker
def _ipc(tbl: pa.Table) -> pa.Buffer:
    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, tbl.schema) as w:
        w.write_table(tbl)
    return sink.getvalue()


def _derive(d: Deriver, items: list[tuple[Any, ...]]) -> dict[str, Any]:
    for info, parts, raw, line, record, inferred, dg, ordinal, prev_had_tool, prop in items:
        if info is None:
            obj = orjson.loads(raw)
            info, parts = obj["info"], obj["parts"]
        d.derive_at(RawMessage(info=info, parts=parts, raw=raw, line=line, record=record,
                               inferred=inferred), dg, ordinal, prev_had_tool, prop)
    arrow = to_arrow_batch(d.take())
    problems, d.problems = d.problems, []
    return {"tables": {name: _ipc(t) for name, t in arrow.tables.items()},
            "lost": arrow.lost, "findings": batch_findings(arrow) if arrow else None,
            "problems": problems}


def serve(inp: IO[bytes], out: IO[bytes]) -> None:
    """Answer requests until ``inp`` ends: ``batch`` (derive these messages at these places
    and answer with the rows) and ``close`` (forget a session)."""
    from logparse.derive import Deriver

    derivers: dict[int, Deriver] = {}
    while (req := _read(inp)) is not None:
        if req[0] == "close":
            if derivers.pop(req[1], None) is not None:
                gc.collect()  # collection is off while deriving (see main)
            continue
        _, key, (session_id, source, author), items = req
        d = derivers.get(key)
        if d is None:
            d = derivers[key] = Deriver(session_id, source, None, author)
        try:
            reply = _derive(d, items)
        except Exception:  # noqa: BLE001 - reported to the ingesting process
            reply = {"error": traceback.format_exc()}
        _send(out, reply)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the ingesting process decides
    gc.disable()  # as inline: derivation allocates millions of small tuples and no cycles
    # the answers get stdout's pipe to themselves: whatever else prints goes to stderr
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    try:
        serve(sys.stdin.buffer, out)
    except BrokenPipeError:  # the ingesting process stopped reading: it ended or failed
        pass


if __name__ == "__main__":
    main()
