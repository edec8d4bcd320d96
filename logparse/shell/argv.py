"""Small argv helpers shared by every layer of the shell analyser.

``_names`` builds the compact name tables the program knowledge is written in;
``_basename`` and ``_is_assignment`` answer the first two questions every argv
reader asks (which program is this, is this word a ``VAR=x`` assignment), and
``_skip_options`` skips getopt-style options up to the first operand.  They
live in their own leaf module because the wrapper stripper, the word layer,
the walker and both classifiers need them, and none of those should have to
import another just to get them.
"""

from __future__ import annotations

# ---------------------------------------------------------------------------
# Small argv helpers
# ---------------------------------------------------------------------------


def _names(words: str) -> frozenset[str]:
    """A frozenset of whitespace-separated names (keeps the big tables compact)."""
    return frozenset(words.split())


def _basename(word: str) -> str:
    if "/" in word:
        return word.rstrip("/").rsplit("/", 1)[-1] or word
    return word


def _is_assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    if not eq or not name:
        return False
    if name.endswith("+"):
        name = name[:-1]
    if "[" in name and name.endswith("]"):
        name = name[: name.index("[")]
    return name.isidentifier() and name.isascii()


def _skip_options(
    argv: tuple[str, ...],
    i: int,
    with_arg: str = "",
    long_with_arg: frozenset[str] = frozenset(),
    stop: str = "",
    long_stop: frozenset[str] = frozenset(),
    optional_attached: str = "",
) -> int:
    """Skip getopt-style options from ``argv[i]``; return the first operand index.

    Returns -1 when a ``stop`` option is met (the program does something other
    than run a command).  ``--`` ends the options.
    """
    n = len(argv)
    while i < n:
        a = argv[i]
        if a == "--":
            return i + 1
        if len(a) < 2 or a[0] != "-":
            return i
        if a.startswith("--"):
            name = a.split("=", 1)[0]
            if name in long_stop:
                return -1
            i += 2 if ("=" not in a and name in long_with_arg) else 1
            continue
        j = 1
        consumed_next = False
        while j < len(a):
            ch = a[j]
            if ch in stop:
                return -1
            if ch in optional_attached:
                break
            if ch in with_arg:
                if j == len(a) - 1:
                    consumed_next = True
                break
            j += 1
        i += 2 if consumed_next else 1
    return i
