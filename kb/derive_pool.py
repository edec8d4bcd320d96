"""Derivation in a second process, so that reading and writing overlap with it.

Ingest is CPU-bound and single-threaded in Python: a message is read and parsed,
derived (shell parsing, error signatures, measurements, prose classes), turned
into Arrow columns and written.  The derivation and the Arrow conversion are the
larger half and need nothing from the knowledge base, so a large input sends its
messages, a batch at a time, to one worker process (``python -m kb.derive_pool``)
that keeps a :class:`~logparse.derive.Deriver` per session and answers each batch
with its Arrow tables.  The ingesting process reads the next batch and writes the
previous one meanwhile.  Ordinals, the turn state and everything else sequential
stay inside each session's one deriver, which sees the messages in the order it
would inline, so the rows are the same (``tests/kb/test_derive_pool.py``).

Two derivers, one interface (what :mod:`kb.ingest` calls):

* :class:`LocalDeriver` derives in the calling process (small inputs: starting a
  worker costs ~0.3 s);
* :class:`RemoteDeriver` sends the messages to the :class:`DerivePool` worker.

``add`` a message, ``submit`` the batch when :attr:`pending` says it is full (or
the session's run ends), and write each :class:`~kb.store.ArrowBatch` that
``results`` hands back, in order.  ``LOGKB_DERIVE_POOL`` = ``0`` never starts a
worker, ``1`` uses one for every input, unset uses one for inputs of at least
:data:`POOL_MIN_BYTES` on a machine with more than one CPU.

The protocol is length-prefixed pickles over the worker's stdin and stdout, one
request at a time: the ingesting process reads the answer to a batch before it
sends anything else, so neither side can block the other on a full pipe, and the
worker derives batch *k* + 1 while its caller writes batch *k*.  The worker ends when its stdin closes (the ingesting process ended, even by
``kill -9``).  A worker that dies or fails makes the ingest fail with
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
from typing import IO, Any

import orjson
import pyarrow as pa

from kb.errors import KbError
from kb.store import ArrowBatch, to_arrow_batch
from logparse.derive import Deriver
from logparse.models import Problem
from logparse.source import RawMessage

POOL_MIN_BYTES = 16 << 20
"""Inputs at least this large are derived in the worker (when there is a second CPU)."""

_LEN = struct.Struct("<Q")


class DeriveWorkerError(KbError):
    """The derive worker died or failed; nothing of the batch in flight was written."""


def pool_wanted(size: int) -> bool:
    """Whether an input of ``size`` bytes is derived in the worker."""
    mode = os.environ.get("LOGKB_DERIVE_POOL", "")
    if mode == "0":
        return False
    if mode == "1":
        return True
    return size >= POOL_MIN_BYTES and (os.cpu_count() or 1) > 1


# ------------------------------------------------------------------ derivers
class LocalDeriver:
    """A :class:`~logparse.derive.Deriver` in this process, behind the pool's interface."""

    def __init__(self, session_id: str, source: str, known: dict[str, tuple[int, int]]) -> None:
        self._d = Deriver(session_id, source, known)
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

    # the deriver's state, as ingest reads it
    problems = property(lambda self: self._d.problems,
                        lambda self, v: setattr(self._d, "problems", v))
    out_of_order = property(lambda self: self._d.out_of_order)
    skipped_ids = property(lambda self: self._d.skipped_ids)
    derived = property(lambda self: self._d.derived)
    first_time = property(lambda self: self._d.first_time)
    last_time = property(lambda self: self._d.last_time)


class RemoteDeriver:
    """A session's deriver in the worker.  The state it reports (:attr:`problems`,
    :attr:`first_time` …) is the deriver's after the last batch answered."""

    def __init__(self, pool: DerivePool, session_id: str, source: str,
                 known: dict[str, tuple[int, int]]) -> None:
        self._pool = pool
        self._key = pool.open(session_id, source, known)
        self._known = known
        self._ordinal = 0
        self._items: list[tuple[Any, ...]] = []
        self._pending = 0
        self._sent = 0
        self._done: deque[ArrowBatch] = deque()
        self.problems: list[Problem] = []
        self.out_of_order = False
        self.skipped_ids: list[str] = []
        self.derived = 0
        self.first_time: int | None = None
        self.last_time: int | None = None

    def add(self, msg: RawMessage, dg: int) -> None:
        # the deriver's own skip test (same id, digest and ordinal as stored), so that a
        # batch holds as many derived messages as it would inline
        self._ordinal += 1
        if self._known.get(msg.info["id"]) != (dg, self._ordinal):
            self._pending += 1
        if msg.verbatim:  # the worker parses the bytes again: cheaper than pickling dicts
            self._items.append((None, None, msg.raw, msg.line, msg.record, msg.inferred, dg))
        else:
            self._items.append((msg.info, msg.parts, msg.raw, msg.line, msg.record,
                                msg.inferred, dg))

    @property
    def pending(self) -> int:
        return self._pending

    def submit(self) -> None:
        if not self._items:
            return
        self._pool.send(("batch", self._key, self._items), self)
        self._sent += 1
        self._items, self._pending = [], 0

    def results(self, wait: bool = False) -> list[ArrowBatch]:
        """Batches answered so far, oldest first; with ``wait``, every batch sent."""
        while wait and self._sent:
            self._pool.receive()
        out = list(self._done)
        self._done.clear()
        return out

    def _answered(self, reply: dict[str, Any]) -> None:
        self._sent -= 1
        self.problems.extend(reply["problems"])
        self.skipped_ids.extend(reply["skipped_ids"])
        self.out_of_order = reply["out_of_order"]
        self.derived = reply["derived"]
        self.first_time, self.last_time = reply["first_time"], reply["last_time"]
        tables = {name: pa.ipc.open_stream(buf).read_all()
                  for name, buf in reply["tables"].items()}
        if tables:
            self._done.append(ArrowBatch(tables, reply["lost"], (self.first_time, self.last_time)))

    def close(self) -> None:
        self.results(wait=True)
        self._pool.close_session(self._key)


class DerivePool:
    """One worker process (started on first use) and the batches in flight to it."""

    def __init__(self) -> None:
        self._proc: subprocess.Popen[bytes] | None = None
        self._keys = 0
        self._waiting: deque[RemoteDeriver] = deque()

    @property
    def in_flight(self) -> int:
        return len(self._waiting)

    def deriver(self, session_id: str, source: str,
                known: dict[str, tuple[int, int]]) -> RemoteDeriver:
        return RemoteDeriver(self, session_id, source, known)

    def _start(self) -> subprocess.Popen[bytes]:
        if self._proc is None:
            env = dict(os.environ)
            root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
            env["PYTHONPATH"] = os.pathsep.join(p for p in (root, env.get("PYTHONPATH")) if p)
            self._proc = subprocess.Popen(
                [sys.executable, "-m", "kb.derive_pool"], stdin=subprocess.PIPE,
                stdout=subprocess.PIPE, env=env)
        return self._proc

    def open(self, session_id: str, source: str, known: dict[str, tuple[int, int]]) -> int:
        self._keys += 1
        self._write(("open", self._keys, session_id, source, known))
        return self._keys

    def close_session(self, key: int) -> None:
        self._write(("close", key))

    def send(self, request: tuple[Any, ...], who: RemoteDeriver) -> None:
        self._write(request)
        self._waiting.append(who)

    def receive(self) -> None:
        """Read the oldest answer and hand it to its deriver."""
        proc = self._start()
        assert proc.stdout is not None
        reply = _read(proc.stdout)
        if reply is None:
            code = proc.wait()
            raise DeriveWorkerError(f"the derive worker ended (exit {code}); what "
                                    "committed is consistent, ingest again")
        if "error" in reply:
            raise DeriveWorkerError(f"the derive worker failed:\n{reply['error']}")
        self._waiting.popleft()._answered(reply)

    def _write(self, request: tuple[Any, ...]) -> None:
        # one request at a time: the worker reads only when it has answered, so a request
        # written while an answer is pending could fill both pipes and block both sides
        while self._waiting:
            self.receive()
        proc = self._start()
        assert proc.stdin is not None
        try:
            _send(proc.stdin, request)
        except (BrokenPipeError, OSError):
            code = proc.wait()
            raise DeriveWorkerError(f"the derive worker ended (exit {code}); what "
                                    "committed is consistent, ingest again") from None

    def close(self) -> None:
        """Stop the worker (it ends by itself when its stdin closes)."""
        proc, self._proc = self._proc, None
        self._waiting.clear()
        if proc is None:
            return
        try:
            assert proc.stdin is not None
            proc.stdin.close()
        except OSError:
            pass
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


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
    problems0, skipped0 = len(d.problems), len(d.skipped_ids)
    for info, parts, raw, line, record, inferred, dg in items:
        if info is None:
            obj = orjson.loads(raw)
            info, parts = obj["info"], obj["parts"]
        d.add(RawMessage(info=info, parts=parts, raw=raw, line=line, record=record,
                         inferred=inferred), dg)
    arrow = to_arrow_batch(d.take())
    return {"tables": {name: _ipc(t) for name, t in arrow.tables.items()},
            "lost": arrow.lost, "problems": d.problems[problems0:],
            "skipped_ids": d.skipped_ids[skipped0:], "out_of_order": d.out_of_order,
            "derived": d.derived, "first_time": d.first_time, "last_time": d.last_time}


def serve(inp: IO[bytes], out: IO[bytes]) -> None:
    """Answer requests until ``inp`` ends: ``open``/``batch``/``close`` (see the module)."""
    derivers: dict[int, Deriver] = {}
    while (req := _read(inp)) is not None:
        op = req[0]
        if op == "open":
            _, key, session_id, source, known = req
            derivers[key] = Deriver(session_id, source, known)
        elif op == "close":
            derivers.pop(req[1], None)
            gc.collect()  # collection is off while deriving (see main)
        elif op == "batch":
            try:
                reply = _derive(derivers[req[1]], req[2])
            except Exception:  # noqa: BLE001 - reported to the ingesting process
                reply = {"error": traceback.format_exc()}
            _send(out, reply)


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the ingesting process decides
    gc.disable()  # as inline: derivation allocates millions of small tuples and no cycles
    # the answers get stdout's pipe to themselves: whatever else prints goes to stderr
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(2, 1)
    serve(sys.stdin.buffer, out)


if __name__ == "__main__":
    main()
