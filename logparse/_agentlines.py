"""What the Claude Code and Codex readers share: building opencode-shaped messages
from JSON lines.

Both agents write one JSON record per line, and a message logkb numbers (an
ordinal) may need records from later lines: a tool call's result arrives after
the call.  A :class:`Draft` collects the lines of one message; an
:class:`Ordered` queue hands drafts to the deriver in order, holding back a
draft while it still waits for a result (or for more lines of the same API
response), so messages always leave in ordinal order.

A draft becomes a :class:`~logparse.source.RawMessage` in opencode's
``{info, parts}`` shape, so :mod:`logparse.derive` types it unchanged.  Its
``raw`` keeps every source line the message was built from (lines without an
ordinal of their own included), so nothing read is lost, and it changes when
the message changes (a call that got its result), which incremental ingest
relies on.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import orjson

from logparse.safe_open import open_regular
from logparse.source import TAIL_RECORDS, RawMessage

HOLD_LIMIT = 20000
"""Drafts held back at most; past it the oldest leaves as it is (its open calls
become interrupted), so memory stays bounded whatever the input."""


SPILL_LINES = 512
SPILL_BYTES = 256 << 10
"""Lines without an ordinal a reader holds for a message at most (records of types it
does not know, bookkeeping), or as many as hold :data:`SPILL_BYTES`: past it they leave
as a message of their own (:func:`spilled`), so memory stays bounded however many such
records stand between two messages (10^6 held ~730 MB in the Claude Code reader and made
one raw JSON of 180 MB that DuckDB could not allocate; messages of 1,000 such records,
180 KB each, still failed DuckDB's commit at 2*10^6 under the ingest's 320 MB cache).
The real transcripts of the pool hold at most ~120 such lines in a row (Claude Code's
``progress`` records and snapshots)."""


def spill_due(held: list[tuple[int, bytes]]) -> bool:
    """Whether the lines ``held`` are to leave as a message of their own (their bytes are
    counted every 64 lines: amortised O(1) a line)."""
    n = len(held)
    return n >= SPILL_LINES or (n % 64 == 0 and n > 0
                                and sum(len(b) for _, b in held) >= SPILL_BYTES)


def spilled(held: list[tuple[int, bytes]], session_id: str, **info: Any) -> Draft:
    """A message made of the lines ``held`` (role ``system``, no parts: its raw JSON holds
    them), its id from its first line, its time the last one's (``None``: none; a reader
    gives it the time before).  ``info``: more fields of the message's info."""
    n = held[0][0]
    try:
        last = orjson.loads(held[-1][1])
    except orjson.JSONDecodeError:
        last = None
    ts = iso_ms(last.get("timestamp")) if isinstance(last, dict) else None
    d = Draft({"id": message_id(n), "sessionID": session_id, "role": "system",
               "time": {"created": ts}, "spilled": True, **info}, None, n)
    for ln, b in held:
        d.add_line(ln, b)
    return d


def json_object(value: Any) -> dict[str, Any]:
    """``value`` when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


def iso_ms(value: Any) -> int | None:
    """An ISO-8601 timestamp (``2025-11-22T21:03:06.396Z``) or epoch number as epoch ms."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return int(value if value > 1e11 else value * 1000)
    if not isinstance(value, str) or not value:
        return None
    try:
        return int(datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp() * 1000)
    except ValueError:
        return None


TAIL_SCAN = 1 << 20
"""Bytes from a file's end :func:`tail_records` reads at most (a last line longer: unknown)."""


def tail_records(path: Path) -> list[Any]:
    """The last :data:`TAIL_RECORDS` whole JSON records of the JSON-lines file at ``path``
    (parsed, in file order; a last line not written whole yet and other undecodable lines
    are left out), read from its end without reading it whole: none when it is not a
    file, or a last line is longer than :data:`TAIL_SCAN`."""
    try:
        with open_regular(path) as f:  # a file replaced by a FIFO since: no wait
            size = f.seek(0, 2)
            f.seek(max(0, size - TAIL_SCAN))
            tail = f.read(TAIL_SCAN)
    except OSError:
        return []
    lines = tail.split(b"\n")
    if size > len(tail):
        lines = lines[1:]  # (the first one read from its middle)
    out: list[Any] = []
    for body in lines[-TAIL_RECORDS:]:
        try:
            out.append(orjson.loads(body))
        except orjson.JSONDecodeError:
            continue  # empty, or a last line not written whole yet
    return out


def latest_time(records: Iterable[Any], accept: Callable[[dict[str, Any]], bool] | None = None,
                when: Callable[[dict[str, Any]], int | None] | None = None) -> int | None:
    """The latest ``timestamp`` (epoch ms; ``when``: another reading of a record's time) of
    the ``records`` that are objects ``accept`` takes; ``None``: none has one."""
    end = None
    for obj in records:
        if isinstance(obj, dict) and (accept is None or accept(obj)) and (t := (
                iso_ms(obj.get("timestamp")) if when is None else when(obj))) is not None:
            end = t if end is None else max(end, t)  # (a clock stepped back: the latest)
    return end


def line_digest(body: bytes) -> str:
    """A line's digest (a resumed reading keeps it for the line read last)."""
    return hashlib.blake2b(body, digest_size=16).hexdigest()


class LastLine:
    """The line read last, to tell a line written twice in a row (a copy, a sync or a
    retried write doubled it) from the next line: the Codex, pi and Antigravity readers
    read such a line once and keep it raw.  Only the last line is kept, so memory does
    not grow with the file; a reading resumed at an offset starts from the digest of the
    line read last before it (:meth:`resume`)."""

    __slots__ = ("body", "_resumed")

    def __init__(self) -> None:
        self.body: bytes | None = None
        """The line read last (``None``: none yet)."""
        self._resumed: str | None = None

    def repeats(self, body: bytes) -> bool:
        """Whether ``body`` is the line read just before it; either way it is the line
        read last now."""
        last, self.body = self.body, body
        if last is None and self._resumed is not None:
            resumed, self._resumed = self._resumed, None
            return line_digest(body) == resumed
        return body == last

    def digest(self) -> str | None:
        """The digest of the line read last, for a resumed reading (:meth:`resume`)."""
        return None if self.body is None else line_digest(self.body)

    def resume(self, digest: str | None) -> None:
        """Go on from a reading whose line read last had ``digest``."""
        self._resumed = digest


class Draft:
    """One message being built: its info, parts and the source lines behind it."""

    __slots__ = ("info", "parts", "bodies", "lines", "open", "key", "line", "at_end", "links",
                 "rewinds")

    def __init__(self, info: dict[str, Any], key: str | None = None,
                 line: int | None = None) -> None:
        self.info = info
        self.line = line
        """The line of the record the message is (problems are reported there)."""
        self.parts: list[dict[str, Any]] = []
        self.bodies: list[bytes] = []
        self.lines: list[int] = []
        self.open = 0
        """Calls still waiting for their result (the draft is held back meanwhile)."""
        self.key = key
        """What further lines of the same message are recognised by (an API response id)."""
        self.at_end: dict[str, Any] | None = None
        """What the reader gave the message because the file ended after it (no line of
        its own): in the raw JSON, so the message changes when the file grows."""
        self.links: dict[str, list[int]] | None = None
        """Lines of other messages whose content this message took in (a poll's output
        read into the run it polls): in the raw JSON, so the message changes with them."""
        self.rewinds: list[dict[str, Any]] | None = None
        """The user rewound the conversation right after this message (Gemini CLI's
        ``$rewindTo``): each ``{"to", "from", "through", "line"}``, the messages
        ``from``-``through`` (ordinals, this one last) taken back; in the raw JSON
        (``$.rewinds``), where :func:`kb.store.KbStore.rewound` reads them."""

    def link(self, kind: str, line: int) -> None:
        if self.links is None:
            self.links = {}
        self.links.setdefault(kind, []).append(line)

    def add_line(self, line: int, body: bytes) -> None:
        self.lines.append(line)
        self.bodies.append(body)

    def message(self) -> RawMessage:
        tokens = self.info.get("tokens")
        raw = (b'{"lines":' + orjson.dumps(self.lines) + b',"records":['
               + b",".join(self.bodies) + b"]"
               + (b',"open_calls":' + str(self.open).encode() if self.open else b"")
               # the usage read (a Codex token_count is a line of another message): the
               # message_usage view finds cache and reasoning tokens at $.tokens
               + (b',"tokens":' + orjson.dumps(tokens) if isinstance(tokens, dict) else b"")
               + (b',"at_end":' + orjson.dumps(self.at_end) if self.at_end else b"")
               + (b',"linked":' + orjson.dumps(self.links) if self.links else b"")
               + (b',"rewinds":' + orjson.dumps(self.rewinds) if self.rewinds else b"")
               + b"}")
        return RawMessage(info=self.info, parts=self.parts, raw=raw,
                          line=self.line or (self.lines[0] if self.lines else None))


class Ordered:
    """Drafts in ordinal order; a draft leaves once it and every draft before it are done.

    The newest draft is always held (lines without an ordinal that follow it may
    still join it), so :meth:`ready` never hands out the tail; :meth:`flush` does."""

    def __init__(self) -> None:
        self._q: deque[Draft] = deque()
        self.last_time = 0

    def __len__(self) -> int:
        return len(self._q)

    @property
    def tail(self) -> Draft | None:
        return self._q[-1] if self._q else None

    @property
    def head(self) -> Draft | None:
        return self._q[0] if self._q else None

    def add(self, draft: Draft) -> None:
        # ordinals follow the file; a clock that steps back must not reorder them
        t = draft.info.get("time")
        if isinstance(t, dict):
            created = t.get("created")
            if not isinstance(created, int) or created < self.last_time:
                t["created"] = self.last_time
            else:
                self.last_time = created
        self._q.append(draft)

    def ready(self) -> Iterator[RawMessage]:
        q = self._q
        while len(q) > 1 and (q[0].open <= 0 or len(q) > HOLD_LIMIT):
            yield q.popleft().message()

    def flush(self) -> Iterator[RawMessage]:
        while self._q:
            yield self._q.popleft().message()

    def take(self, keep: int = 1) -> Iterator[Draft]:
        """The drafts that can leave, as :meth:`ready` hands them out but unmade, while
        more than ``keep`` are held (the newest ``keep`` stay: a later line may still
        change them)."""
        q = self._q
        while len(q) > max(keep, 0) and (q[0].open <= 0 or len(q) > HOLD_LIMIT):
            yield q.popleft()


def dumps_line(obj: Any) -> bytes:
    """A record re-serialised (for a salvaged line whose bytes are not valid UTF-8)."""
    return orjson.dumps(obj)


ID_DIGITS = 9
"""Digits of the line a message id opens with (:func:`message_id`,
:func:`logparse.msgkey.id_line` reads it back)."""


def message_id(line: int, suffix: str = "") -> str:
    """Message ids sort in file order (the deriver checks order by time, then id)."""
    return f"{line:0{ID_DIGITS}d}" + (f"-{suffix}" if suffix else "")


def turn_stat(duration_ms: float, part_id: str | None) -> dict[str, Any]:
    """A ``stat`` part: what the agent's own clock says a turn took (Claude Code's
    ``system``/``turn_duration`` ``durationMs``, Codex's ``task_complete`` ``duration_ms``),
    kept where the record stands, in the agent's unit."""
    return {"type": "stat", "id": part_id, "text": "turn duration",
            "measurements": [{"value": float(duration_ms), "unit": "ms",
                              "label": "turn duration"}]}
