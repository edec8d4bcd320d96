"""What every transcript reader hands to the deriver: sessions of raw messages.

A reader turns one input (a file or a directory) into :class:`SourceSession`
objects.  Messages are streamed when the form allows it (JSONL, the run stream),
so memory stays bounded by one batch rather than one file.  Anything a reader
cannot parse becomes a :class:`~logparse.models.Problem` carrying the raw bytes,
so nothing read is ever dropped.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar

from logparse.models import Problem


class LogparseError(Exception):
    """Base of every error logparse raises."""


class NotATranscript(LogparseError):
    """The input is not a transcript form logkb knows."""

    def __init__(self, path: str | Path, reason: str, agent: str | None = None) -> None:
        super().__init__(f"{path}: not a transcript logkb reads ({reason})")
        self.path = str(path)
        self.reason = reason
        self.agent = agent
        """What the input looks like when the refusal names it (another agent's log, a
        damaged or rewritten transcript): an error even inside a directory."""
        self.walked = False
        """Met while walking a directory (not named by the user)."""

    @property
    def is_error(self) -> bool:
        """An error (exit 3) rather than a file a directory walk passed over."""
        return self.agent is not None or not self.walked


@dataclass(slots=True)
class RawMessage:
    """One opencode message as read: ``info`` plus its ordered ``parts``."""

    info: dict[str, Any]
    """The message info (``id``, ``role``, ``time`` …) exactly as stored."""
    parts: list[dict[str, Any]]
    """Parts sorted by part id (the order opencode shows them in)."""
    raw: bytes
    """The JSON of ``{"info", "parts"}`` as read (the JSONL line itself when there is one)."""
    line: int | None = None
    """1-based line of the source file (JSONL forms)."""
    record: str | None = None
    """Record id in the source (the message id for the database and the tree)."""
    inferred: bool = False
    """True for a user message whose place logkb inferred (run stream)."""
    verbatim: bool = False
    """True when ``info`` and ``parts`` are exactly what parsing ``raw`` gives (``raw``
    alone then carries the message to another process)."""


@dataclass(slots=True)
class SourceSession:
    """A session found in an input, with its messages (possibly a lazy stream)."""

    session_id: str
    form: str
    path: str
    messages: Iterable[RawMessage]
    info: dict[str, Any] | None = None
    complete: bool = True
    """False when the form cannot show every message (run stream)."""
    agent: str = "opencode"
    """The agent that wrote the session: ``opencode``, ``claude-code`` or ``codex``."""
    named: bool = True
    """False when the input does not name its session and the id was made from its first
    record (an Antigravity trajectory cut before it names its conversation): a stored copy
    that does name it lists this id in its info's ``aliases``, and this copy is stored
    with it (:func:`kb.ingest.same_session`)."""


TAIL_RECORDS = 16
"""Lines at a file's end a line-based reader's :meth:`TranscriptReader.ends_at` reads (the
latest time among their records is when the copy ends: a clock stepped back, or records
written out of order, still end it)."""


class TranscriptReader(ABC):
    """One storage form of opencode sessions."""

    form: ClassVar[str]
    """Short name: ``export``, ``jsonl``, ``sqlite``, ``tree``, ``run``."""
    description: ClassVar[str]
    agent: ClassVar[str] = "opencode"
    """The agent whose transcripts this reader reads."""
    skipped: dict[str, int]
    """Records of the input last read whose type this reader does not know, by type.
    They are kept in the raw record of a message (never dropped) and refuse nothing;
    ingest reports them per file.  Empty for forms without record types."""

    def __init__(self) -> None:
        self.skipped = {}

    @classmethod
    @abstractmethod
    def detect(cls, path: Path, head: bytes) -> bool:
        """Cheaply tell whether ``path`` is in this form (``head`` = its first bytes).

        Must not parse the whole input."""

    @abstractmethod
    def sessions(
        self, path: Path, problems: list[Problem], session_ids: frozenset[str] | None = None
    ) -> Iterator[SourceSession]:
        """Yield the sessions of ``path``; append what cannot be read to ``problems``."""

    @classmethod
    def ends_at(cls, path: Path, session_id: str) -> int | None:
        """When session ``session_id`` ends in the file at ``path``: the time of its last
        record (epoch ms), read from the file's end without reading it whole.  A copy
        whose session ends before the stored session's last message is an older copy
        (a snapshot taken before it went on: ``kb.ingest``).  ``None``: the form cannot
        tell cheaply (nothing is then known older)."""
        return None

    @classmethod
    def records_end(cls, records: Sequence[Any], session_id: str) -> int | None:
        """:meth:`ends_at` read from a copy's last records (parsed, in file order: at
        most :data:`logparse._agentlines.TAIL_RECORDS`) rather than from its file: when
        a copy a store kept the records of ended (``kb.ingest``, for a copy stored
        before the store kept its end).  ``None``: the form cannot tell."""
        return None


def message_sort_key(info: dict[str, Any]) -> tuple[int, str]:
    """Chronological order of opencode messages: ``time.created`` then id."""
    t = info.get("time")
    created = t.get("created") if isinstance(t, dict) else None
    if not isinstance(created, (int, float)):
        created = 0
    mid = info.get("id")
    return (int(created), mid if isinstance(mid, str) else "")


def lines_at(path: str | Path, wanted: Iterable[int],
             start: tuple[int, int] | None = None) -> dict[int, bytes]:
    """The lines ``wanted`` of a line-based transcript (JSONL), numbered and cut as its
    readers number and cut them (without the newline); a line the file does not have
    (or a blank one) is missing from the answer.  Reads the file up to the last line
    wanted (from ``start`` = ``(byte offset, line number)`` when no line before it is
    wanted); a path that cannot be read answers nothing."""
    from logparse.opencode._lines import iter_lines  # the readers' own numbering

    want = set(wanted)
    if not want:
        return {}
    last = max(want)
    out: dict[int, bytes] = {}
    try:
        if start is not None and min(want) < start[1]:
            start = None
        for n, body, _ in iter_lines(Path(path), None, start):
            if n in want:
                out[n] = body
            if n >= last:
                break
    except OSError:
        return out
    return out
