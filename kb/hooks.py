"""What the store publishes when its content changes; the rooms derived from it subscribe.

The store (:mod:`kb.store`) knows nothing of what is derived from its tables: the
knowledge graph, the search index, the replay history.  It publishes two facts and
whoever keeps a derived copy subscribes:

``sessions_replaced(store, session_ids)``
    Sessions' stored messages were written or replaced and the change is committed
    (published once per ingest, after its transactions, so a subscriber may take its
    time and do its work in one go: the search index indexes them in one commit).

``secrets_forgotten(store, session_ids)``
    The findings changed, so every redaction made with the old ones is stale;
    ``session_ids`` are the sessions whose stored text gained findings after something
    was derived from it (published inside the transaction that stores the findings, so
    that what a subscriber drops goes with them: the graph forgets those scopes).

Subscribers are plain functions; :func:`kb.ingest.ingest` subscribes the graph and
the search index to the store it writes.  This module imports nothing of ``kb``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Generic, TypeVar

S = TypeVar("S")
"""The store type (:class:`kb.store.KbStore`), a parameter so that this module needs
no import of it."""


class StoreHooks(Generic[S]):
    """The subscribers of one store."""

    __slots__ = ("_replaced", "_forgotten")

    def __init__(self) -> None:
        self._replaced: list[Callable[[S, Sequence[str]], None]] = []
        self._forgotten: list[Callable[[S, Sequence[str]], None]] = []

    def on_sessions_replaced(self, fn: Callable[[S, Sequence[str]], None]) -> None:
        """Call ``fn`` after committed changes of sessions' messages (registered once)."""
        if fn not in self._replaced:
            self._replaced.append(fn)

    def on_secrets_forgotten(self, fn: Callable[[S, Sequence[str]], None]) -> None:
        """Call ``fn`` whenever the findings change (once)."""
        if fn not in self._forgotten:
            self._forgotten.append(fn)

    def sessions_replaced(self, store: S, session_ids: Sequence[str]) -> None:
        if not session_ids:
            return
        for fn in self._replaced:
            fn(store, session_ids)

    def secrets_forgotten(self, store: S, session_ids: Sequence[str]) -> None:
        for fn in self._forgotten:
            fn(store, session_ids)
