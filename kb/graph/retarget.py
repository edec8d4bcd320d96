"""A target given up for another after it failed: structure only, no phrases.

An *attempt* is a run of one program on one *target* (a URL's host, a package).  When a
target's runs failed, and the very next run of the same program (within
:data:`WINDOW` messages) works on a different target of the same kind, while the
failed target is never run successfully again, the agent replaced that approach to the
same goal with another (an API endpoint that answered "deprecated" swapped for an RPC
node; a package that would not install swapped for another): the failed target was a
dead end.  The complement of :func:`kb.graph.episodes.replaced_run_episodes` (the same
target run another way).

What it is not, and why:

* a run of the same target that works later means the target was made to work: a slip
  or a fix, no dead end;
* a run of another program, or with no target of the same kind, is other work;
* one target among several in one run says nothing of which one failed.

Kinds of target are rows of :data:`TARGETS`; the readings are rows of :data:`EXAMPLES`
(trimmed from real sessions where one exists) that ``tests/kb/test_retarget.py`` walks.
Pure: steps in, :class:`~kb.graph.episodes.Found` out.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from kb.graph.episodes import Found, Step, _dedupe
from kb.graph.text import short

WINDOW = 8
"""Messages after the failed run within which the run on another target must come."""


@dataclass(frozen=True)
class Target:
    """A kind of target: how to read it off a command, with a real command."""

    kind: str
    read: Callable[[str], frozenset[str]]
    example: str
    expect: frozenset[str]
    source: str


_HOST = re.compile(r"(?<![\w.-])https?://([^/\s\"'?:#]+)")
_INSTALL = re.compile(r"\b(?:npm|pnpm|yarn|bun)\s+(?:install|add|i)\s+((?:-{1,2}[\w-]+\s+)*)"
                      r"(?P<p>@?[a-z][\w/.-]*)|\bpip3?\s+install\s+(?:-\S+\s+)*"
                      r"(?P<q>[A-Za-z][\w.-]*)")


def _hosts(command: str) -> frozenset[str]:
    return frozenset(h.lower() for h in _HOST.findall(command[:600]))


def _packages(command: str) -> frozenset[str]:
    out = set()
    for m in _INSTALL.finditer(command[:600]):
        out.add((m.group("p") or m.group("q") or "").lower())
    return frozenset(x for x in out if x)


TARGETS: tuple[Target, ...] = (
    Target("host", _hosts,
           'curl -s "https://api.polygonscan.com/api?module=contract&action=getsourcecode'
           '&address=0xa5e0829caced8ffdd4de3c43696c57f7d7a678ff"',
           frozenset({"api.polygonscan.com"}),
           "blockchain-dex-events__claude-session.jsonl ordinal 113 (bash)"),
    Target("package", _packages, "npm install --save-dev vite-plugin-pwa",
           frozenset({"vite-plugin-pwa"}), "(no real line yet) an npm install"),
)
"""What a run can be an attempt on, one row a kind."""


@dataclass(frozen=True)
class Example:
    """Steps of one session (trimmed) and the ``(first, ended)`` of the dead end the rule
    must find (``None``: none)."""

    name: str
    steps: tuple[Step, ...]
    expect: tuple[int, int] | None
    source: str


def _run(o: int, cmd: str, failed: bool, sig: str | None = None) -> Step:
    key = " ".join(cmd.split()[:2])
    return Step("s", o, key, False, True, failed, sig, command=cmd, tool="bash",
                failure=(sig or "") if failed else "")


EXAMPLES: tuple[Example, ...] = (
    Example("host replaced", (
        _run(113, 'curl -s "https://api.polygonscan.com/api?module=contract&action='
                  'getsourcecode&address=0xa5e0"', True,
             "the server answered with an error: You are using a deprecated V1 endpoint"),
        _run(114, "curl -s -X POST https://polygon-bor-rpc.publicnode.com -H "
                  "\"Content-Type: application/json\" -d '{\"method\":\"eth_call\"}'",
             False)), (113, 114),
        "blockchain-dex-events__claude-session.jsonl ordinals 113-114"),
    Example("host made to work later is a fix", (
        _run(10, "curl -s https://api.example.org/v1/items", True, "HTTP 500"),
        _run(11, "curl -s https://mirror.example.net/v1/items", False),
        _run(14, "curl -s https://api.example.org/v1/items?page=2", False)), None,
        "(constructed)"),
    Example("another program is other work", (
        _run(10, "curl -s https://api.example.org/v1/items", True, "HTTP 500"),
        _run(11, "wget https://mirror.example.net/items.json", False)), None,
        "(constructed)"),
    Example("package replaced", (
        _run(20, "npm install react-icons-hi2", True, "npm ERR! 404 Not Found"),
        _run(21, "npm install react-icons", False)), (20, 21),
        "(no real line yet) a package that does not exist, swapped for one that does"),
    Example("several targets in the failed run", (
        _run(30, "curl https://a.example.org https://b.example.org", True, "HTTP 500"),
        _run(31, "curl https://c.example.org", False)), None, "(constructed)"),
)
"""Every reading of the rule, with a case each."""


def retarget_episodes(steps: list[Step]) -> list[Found]:
    """Targets given up for another target of the same kind after they failed."""
    by_sid: dict[str, list[Step]] = {}
    for s in steps:
        if s.check and s.command and not s.interrupted:
            by_sid.setdefault(s.session_id, []).append(s)
    out: list[Found] = []
    for sid, runs in by_sid.items():
        done: set[tuple[str, str]] = set()
        for i, f in enumerate(runs):
            if not f.failed:
                continue
            prog = f.key.split(" ", 1)[0]
            for t in TARGETS:
                mine = t.read(f.command)
                if len(mine) != 1 or (t.kind, next(iter(mine))) in done:
                    continue
                (was,) = mine
                later = runs[i + 1:]
                if any(was in t.read(x.command) for x in later if not x.failed):
                    continue  # made to work: a slip or a fix
                nxt = next((x for x in later if x.key.split(" ", 1)[0] == prog
                            and t.read(x.command)), None)
                if nxt is None or nxt.ordinal - f.ordinal > WINDOW or nxt.failed \
                        or was in t.read(nxt.command):
                    continue
                fails = [x for x in runs[:i + 1] if x.failed and was in t.read(x.command)
                         and f.ordinal - x.ordinal <= 4 * WINDOW]
                done.add((t.kind, was))
                now = ", ".join(sorted(t.read(nxt.command)))
                cause = f.signature or f.failure or "it failed"
                out.append(Found(
                    session_id=sid, name=f"{t.kind} {short(was, 60)} (replaced by {now})",
                    first=fails[0].ordinal, ended=nxt.ordinal, how="retargeted",
                    cause_text=cause, signature=f.signature,
                    evidence=_dedupe([(x.ordinal, "tested", x.signature or x.failure or None)
                                      for x in fails[-4:]]
                                     + [(nxt.ordinal, "ended",
                                         f"{t.kind} {short(now, 60)} instead: "
                                         f"{short(nxt.command, 80)}")])))
    return out
