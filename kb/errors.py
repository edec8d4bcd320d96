"""The errors logkb's store raises (apart from :mod:`kb.store`, so that commands can map
them to exit codes without loading DuckDB)."""

from __future__ import annotations


class KbError(Exception):
    """Base of the errors logkb's store raises."""


class KbLocked(KbError):
    """Another process holds the knowledge base file."""


class KbReadOnly(KbError):
    """The knowledge base is open read-only (a team mirror): nothing may be written."""


class KbMissing(KbError):
    """There is no knowledge base file yet."""

    hint = "run `logkb ingest` first (or name another with --db or LOGKB_DB)"
    """What to do about it (the CLI's ``hint:`` line)."""


class KbNotFound(KbError):
    """A session or message that was asked for does not exist."""


class KbAmbiguous(KbNotFound):
    """A session named by a prefix or title words several sessions share: a usage error
    (exit 2, as a bad option), with what to do about it.  A :class:`KbNotFound`, so every
    caller that looks elsewhere on a miss still does."""

    hint = "give more of the id or of the title (`logkb sessions` lists the short ids)"
