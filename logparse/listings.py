"""How many things a listing command listed: commits, changed paths, files, processes.

A listing prints one thing a line (``git log --oneline``, ``git status --short``,
``find``, ``rg --files``, ``pgrep``); the number of its lines is a count the
run measured ("27 commits since April", "4 dirty paths", "14 Swift files").  What ``ls`` listed is no
such count (how many entries a folder has is no result of the work: issue 22 item 5, a
negative row of :data:`logparse.measure_kinds.KINDS`).  Each rule is
a row of :data:`LISTINGS` with a real, trimmed example; ``tests/logparse/test_listings.py``
walks them.  A listing piped on (``| head``, ``| grep``, ``| wc``) or cut by the tool
(Codex's ``Total output lines``) counts nothing: its lines are not the things.

A line counts only when it has the listing's own shape (an abbreviated hash first for
``git log --oneline``, a two-letter status for ``git status --short``, a PID for
``pgrep``, a path under one of ``find``'s starting points): what an earlier command of
the same line printed (``git status --short && echo --- && git log --oneline -5``, a
server started with ``&`` before ``pgrep``) is no commit, path or process of it.

Pure: no database, no UI.  A rule that raises is a bug a test shows.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["LISTINGS", "Listing", "find_roots", "listing_count"]

_MAX_LINES = 5000


@dataclass(frozen=True)
class Listing:
    name: str
    command: re.Pattern[str]
    """Matches the listing segment of the command line (after the last ``&&``/``;``)."""
    unit: str
    keep: Callable[[str, str], bool]
    """Whether an output line is one listed thing (given the line and the listing's
    command segment, quotes masked)."""
    example_command: str
    example_output: str
    example_count: int
    source: str


def _any(line: str, seg: str) -> bool:
    return bool(line.strip())


_ONELINE = re.compile(r"^[*|\\/ ]*[0-9a-f]{7,40}\b")
"""``git log --oneline`` (``--graph`` too): an abbreviated hash opens the line."""
_SHORT_STATUS = re.compile(r"^(?:[ MTADRCU?!]{2} \S|[12u] [.MTADRCU]{2} |[?!] \S)")
"""``git status --short``/``--porcelain``: ``XY path`` (``##`` is the branch line);
``--porcelain=v2``: ``1 .M …``, ``2 R. …``, ``u UU …``, ``? path`` (``#`` headers)."""
_PID_LINE = re.compile(r"^\s*\d+(?:\s|$)")
"""``pgrep`` (``-l``, ``-a``): a PID opens the line."""


def _commit(line: str, seg: str) -> bool:
    return _ONELINE.match(line) is not None


def _status_path(line: str, seg: str) -> bool:
    return _SHORT_STATUS.match(line) is not None


def _pid(line: str, seg: str) -> bool:
    return _PID_LINE.match(line) is not None


@lru_cache(maxsize=256)
def find_roots(seg: str) -> tuple[str, ...] | None:
    """The starting points of a ``find`` segment (``.`` when it names none, as GNU find
    does), each cut at its first masked quote or glob: a path it prints starts with one.
    None when one is known only to the shell (``~``, ``$HOME``, a quoted name)."""
    words = seg.split()[1:]
    while words and words[0] in ("-H", "-L", "-P"):
        words = words[1:]
    roots = []
    for w in words:
        if w.startswith(("-", "(", "\\(", "!")):
            break
        root = re.split(r"''|[*?\[]", w, maxsplit=1)[0]
        if not root or root.startswith(("~", "$", "%")):
            return None
        roots.append(root)
    return tuple(roots) or (".",)


def _found_path(line: str, seg: str) -> bool:
    roots = find_roots(seg)
    return bool(line.strip()) and (roots is None or line.startswith(roots))


LISTINGS: tuple[Listing, ...] = (
    Listing("git-log-oneline", re.compile(r"^git\b(?:\s+-C\s+\S+)?\s+log\b.*--oneline"),
            "commits", _commit,
            "git log --oneline -20",
            "2406dea fix(ui): updated dashboard getting-started cards\n"
            "ac184b8 covers keeps the same aspect ratio and framing\n"
            "3cb08b9 refactor: builds a buyer facing filename by unlocks/dwnlaod APIs\n",
            3, "pool Rivo__codex-session.jsonl:52 (trimmed to 3 of 20)"),
    Listing("git-status-short",
            re.compile(r"^git\b(?:\s+-C\s+\S+)?\s+status\b.*(?:--short|--porcelain|\s-s\b|\s-sb\b)"),
            "paths", _status_path,
            "git status --short",
            " M client/components/Navbar.tsx\n?? client/app/docs/content.ts\n"
            "?? client/app/docs/page.tsx\n?? client/doc.md\n",
            4, "labelled Valdyum-Labs__codex-session.jsonl:62"),
    Listing("find", re.compile(r"^find\s(?!.*\s-(?:exec|execdir|ok|okdir|printf|fprintf|ls|fls"
                               r"|print0|fprint|fprint0|delete)\b)"), "paths", _found_path,
            'find /tmp/open-wispr/Sources -name "*.swift"',
            "/tmp/open-wispr/Sources/OpenWispr/main.swift\n"
            "/tmp/open-wispr/Sources/OpenWisprLib/AppDelegate.swift\n",
            2, "labelled speakfree__session.jsonl:252 (trimmed to 2 of 14)"),
    Listing("files-listing", re.compile(r"^(?:rg\s+(?:.*\s)?--files\b|fd\b|git\s+ls-files\b)"),
            "files", _any,
            "rg --files",
            "Anchor.toml\nREADME.md\nvercel.json\nCargo.toml\nprograms\\ripple\\src\\lib.rs\n",
            5, "pool Rivo__codex-session.jsonl:51 (trimmed to 5 of 66)"),
    Listing("pgrep", re.compile(r"^pgrep\s"), "processes", _pid,
            "pgrep -l whisper-server",
            "84848 whisper-server\n84885 whisper-server\n",
            2, "labelled speakfree__session.jsonl:61"),
)

_SPLIT = re.compile(r"&&|\|\||;|\n")
_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"' + r"|'[^']*'")
_ORDER_ONLY = re.compile(r"^\s*sort(?:\s+-[a-zA-Z]+)*\s*$")
_NOISE = re.compile(r"^\s*\d?>\s*/dev/null\s*$|\s\d?>&?\d?\s*/dev/null|\s2>&1")


def listing_count(command: str | None, output: str) -> tuple[float, str, str] | None:
    """``(count, unit, rule name)`` of a listing command's output, else None."""
    if not command or not output.strip() or output.startswith("Total output lines:"):
        return None
    masked = _QUOTED.sub("''", command)
    last = _SPLIT.split(masked.strip())[-1]
    stages = [s for s in last.split("|")]
    # what runs after the listing may only reorder it (`| sort`)
    if any(not _ORDER_ONLY.match(s) for s in stages[1:]):
        return None
    seg = _NOISE.sub(" ", stages[0]).strip()
    if seg.startswith("cd "):
        return None
    for rule in LISTINGS:
        if rule.command.search(seg):
            lines = output.splitlines()
            if len(lines) > _MAX_LINES or "truncated" in output[-300:]:
                return None
            n = sum(1 for ln in lines if rule.keep(ln, seg))
            return (float(n), rule.unit, rule.name) if n else None
    return None
