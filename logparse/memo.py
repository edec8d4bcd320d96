"""Content-keyed memos for the pure functions of a text that derivation runs.

Real sessions repeat themselves: the same ``git status``, the same test output, the
same "Let me check the file" between calls, the same tool output in a resumed or
forked session.  The rules that read a text (prose classes, measurements, error
signatures, the secrets finder) are pure functions of it, so a text seen before gets
the answer it got then instead of the regexes again (issue 28).

A memo is keyed by the text itself, or for a long text by its length and a 128-bit
BLAKE2b digest of its UTF-8 bytes (so the memo does not hold long outputs alive);
it holds at most :data:`MAX_ENTRIES` answers and forgets the oldest first.  Answers
must be immutable (tuples, frozen dataclasses, strings): every caller shares them.

``LOGKB_DERIVE_MEMO=0`` turns every memo off (each call computes), which is how the
tests prove a memo changes nothing (``tests/logparse/test_memo.py``).
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

R = TypeVar("R")

MAX_ENTRIES = 16_384
"""Answers one memo holds (the oldest go first)."""
LONG = 256
"""Texts longer than this are keyed by their digest, not held: a memo holds at most
:data:`MAX_ENTRIES` keys of a few hundred bytes (about 5 MB) besides its answers."""

ENABLED = os.environ.get("LOGKB_DERIVE_MEMO", "1") != "0"
"""Whether memos remember (``LOGKB_DERIVE_MEMO=0``: never)."""


_LAST: tuple[str, Hashable] = ("", "")
"""The last long text keyed and its key: a tool's output is keyed by four or five rules
in a row (error signatures, measurements, compiler errors, listings), and hashing it
each time was ~3 % of deriving the 40k-message JSONL.  Matched by identity (the same
``str`` object, which this reference keeps alive), so an equal text merely rehashes."""


def text_key(text: str) -> Hashable:
    """The key of a text: itself when short, else its length and BLAKE2b-128 digest."""
    global _LAST
    if len(text) <= LONG:
        return text
    last = _LAST  # one read: another thread may replace it
    if last[0] is text:
        return last[1]
    data = text.encode("utf-8", "surrogatepass")
    key = (len(text), hashlib.blake2b(data, digest_size=16).digest())
    _LAST = (text, key)
    return key


class Memo(Generic[R]):
    """Answers of a pure function, by key, at most :data:`MAX_ENTRIES` of them."""

    __slots__ = ("_d", "hits", "misses", "max_entries")

    def __init__(self, max_entries: int = MAX_ENTRIES) -> None:
        self._d: dict[Hashable, R] = {}
        self.hits = 0
        self.misses = 0
        self.max_entries = max_entries

    def get(self, key: Hashable, compute: Callable[[], R]) -> R:
        """The answer for ``key``, computing it with ``compute()`` the first time."""
        if not ENABLED:
            return compute()
        d = self._d
        try:
            v = d[key]
        except KeyError:
            pass
        else:
            self.hits += 1
            return v
        self.misses += 1
        v = compute()
        if len(d) >= self.max_entries:
            del d[next(iter(d))]  # the oldest
        d[key] = v
        return v

    def clear(self) -> None:
        self._d.clear()
        self.hits = self.misses = 0

    def __len__(self) -> int:
        return len(self._d)


MEMOS: dict[str, Memo[object]] = {}
"""Every memo by name (statistics for the benchmark, ``clear`` for tests)."""


def memo(name: str, max_entries: int = MAX_ENTRIES) -> Memo[R]:
    """A new memo, listed in :data:`MEMOS`."""
    m: Memo[R] = Memo(max_entries)
    MEMOS[name] = m  # type: ignore[assignment]
    return m


def clear_all() -> None:
    """Forget every answer (tests)."""
    for m in MEMOS.values():
        m.clear()


def stats() -> dict[str, tuple[int, int]]:
    """``name -> (hits, misses)`` of every memo."""
    return {n: (m.hits, m.misses) for n, m in MEMOS.items()}
