"""Exit codes: logkb's contract with scripts (documented in the README)."""

from __future__ import annotations

from enum import IntEnum


class ExitCode(IntEnum):
    OK = 0
    """Everything asked for was done."""
    FAILED = 1
    """An unexpected error (a bug or an environment problem); the message says which."""
    NO_MATCH = 1
    """A search found nothing (like grep's 1; an alias of :attr:`FAILED`).  A thing named that
    does not exist (a session, a message, an approach for ``why``) is :attr:`NOT_FOUND`."""
    USAGE = 2
    """Bad command line (click's own usage errors use 2 as well)."""
    NOT_TRANSCRIPT = 3
    """An input is not a transcript logkb reads (nothing was read from it)."""
    PROBLEMS = 4
    """Ingested, but some records could not be read or typed (they are stored raw)."""
    LOCKED = 5
    """The knowledge base is held by another process for longer than the wait allows."""
    NOT_FOUND = 6
    """No knowledge base yet, or the session/message asked for does not exist."""
    REPLAY_CHANGED = 7
    """Replay ran, and at least one step's verdict is not ``same``."""
    OVER_BUDGET = 8
    """``handoff --max-tokens N``: even the brief's skeleton (its goal and status) is
    longer than N tokens; the skeleton is printed all the same, and stderr says so."""
