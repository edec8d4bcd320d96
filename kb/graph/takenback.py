"""The agent takes back a design of its own: structure only, no phrases, any language.

Shape: a change of the agent's wrote lines into a file; a few messages later, with no
user message in between and no failed run in between, a later change of the same file
takes away at least :data:`TAKEN_LINES` of those lines (each one with a few names in it:
code, not a brace or a blank).  Nobody sent it back and nothing failed: the agent read
its own work again (a build's warning, the code around it, a second thought) and gave
that design up (``NSUserNotification`` replaced after the build said it is deprecated; a
``height`` prop replaced by a ``ResizeObserver``).

What it is not, and why:

* after a user message, the same shape is work the user sent back
  (:func:`kb.graph.episodes.reworked_episodes` reads that);
* after a failed run, an edit of the lines just written is a fix of that failure (the
  check and attempt rules read it; a one-step slip fixed at once stays a trap);
* lines rewritten far later are maintenance, not a design given up: the take-back must
  begin within :data:`TAKEN_SPAN` messages of the writing.

One episode per taking change; a later change that takes back lines an earlier taking
change wrote continues its episode (a redesign redone).  The readings are rows of
:data:`EXAMPLES`, real cases (trimmed) that ``tests/kb/test_takenback.py`` walks.

Pure: steps and said in, :class:`~kb.graph.episodes.Found` out.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from kb.graph.episodes import Found, Said, Step, _dedupe
from kb.graph.text import short

TAKEN_LINES = 2
"""Lines of its own writing a change must take away (one line retouched is a tweak)."""
SLIP = 1
"""Calls that must come between the writing and the take-back: the very next call
retouching what was just written is a slip (a trap, not a dead end)."""
TAKEN_SPAN = 16
"""Messages after the writing within which the take-back must begin."""
NAMES = 2
"""Names (identifiers, words of three letters or more) a line taken away must hold to
count: ``}`` or ``</div>`` say nothing of a design."""
_NAME = re.compile(r"[^\W\d]\w{2,}")
_COMMENT = ("//", "#", "/*", "*", "<!--", "--", ";")


def meaningful(line: str) -> bool:
    """A line that says something of a design (``NSUserNotificationCenter.default.deliver
    (content)``), not punctuation or one keyword (``} else {``)."""
    return len(_NAME.findall(line)) >= NAMES


@dataclass(frozen=True)
class Example:
    """A real case (trimmed) the rule must read as it says: the changes (ordinal, file,
    lines written, lines taken away), the runs between them (ordinal, failed), the user's
    messages, and whether a take-back is read."""

    name: str
    changes: tuple[tuple[int, str, tuple[str, ...], tuple[str, ...]], ...]
    taken: bool
    source: str
    runs: tuple[tuple[int, bool], ...] = ()
    users: tuple[int, ...] = ()


_NOTE = ("let content = NSUserNotification()",
         "content.informativeText = \"Focus changed — dictation copied to clipboard.\"",
         "NSUserNotificationCenter.default.deliver(content)")
_PROP = ("const AuroraBackground: React.FC<{ fixed?: boolean; height?: number }> = "
         "({ fixed = true, height }) => {", "const h = height ?? window.innerHeight;")
_NAV = ("$nav_wrapper->set_id($tab_id . '-v-pills-nav');",
        "$nav_wrapper->set_class('nav flex-column nav-pills me-3');")
_ICE = ("const ice = (weatherId >= 600 && weatherId < 700 && weatherId !== 601)",
        ": (weatherId >= 611 && weatherId <= 616) || (h.temp <= 0 && h.pop > 0);")

EXAMPLES: tuple[Example, ...] = (
    Example("a deprecated API taken out after a build that passed",
            ((64, "TextInserter.swift", _NOTE, ()), (76, "TextInserter.swift", (), _NOTE)),
            True, "speakfree__session.jsonl (Claude Code, shared) #64 write, #74 the build "
            "warns the API is deprecated, #76 the edit takes the notification away",
            runs=((74, False),)),
    Example("a prop design replaced after re-reading the code",
            ((196, "starfall-portfolio-landing.tsx", _PROP, ()),
             (199, "starfall-portfolio-landing.tsx", ("heightRef.current = height;",), ()),
             (201, "starfall-portfolio-landing.tsx", ("const h = parent.clientHeight;",),
              _PROP)),
            True, "uicomponents__session-export.json (opencode, shared) #196 a height prop, "
            "#201 'Let me take a cleaner approach' takes it away"),
    Example("lines edited while fixing failed runs",
            ((542, "nav.php", _NAV, ()), (566, "nav.php", (), _NAV)),
            False, "k1.lib-bootstrap__session-export.json (opencode, shared) #542 write, "
            "failed runs between, #566: fixing what failed, not a design given up",
            runs=((548, True), (552, True), (560, False))),
    Example("the very next call retouching what was just written",
            ((99, "weather.ts", _ICE, ()), (100, "weather.ts", ("const ice = isIce(h);",),
                                            _ICE)),
            False, "will-it-rain__claude.jsonl (Claude Code, shared) #99-#100 'that ice "
            "logic is overly convoluted': a slip, a labelled trap"),
    Example("lines taken away after the user spoke",
            ((4, "plan.md", ("- **Bundler**: esbuild (smallest output, fastest build)",
                             "- **No frameworks** — pure Lambda handler, no Express/etc."), ()),
             (9, "plan.md", (), ("- **Bundler**: esbuild (smallest output, fastest build)",
                                 "- **No frameworks** — pure Lambda handler, no Express/etc."))),
            False, "will-it-rain__claude.jsonl (Claude Code, shared) plan v1 rewritten after "
            "the user refused it: the user sent it back (reworked), not the agent",
            runs=((6, False),), users=(5,)),
)
"""Every reading of the rule, each a real case; ``tests/kb/test_takenback.py`` walks them."""


def taken_back_episodes(steps: Sequence[Step], said: Sequence[Said]) -> list[Found]:
    """Designs the agent took back on its own (see the module's docstring)."""
    users: dict[str, list[int]] = {}
    for u in said:
        if u.role == "user" and u.text.strip():
            users.setdefault(u.session_id, []).append(u.ordinal)
    by: dict[str, list[Step]] = {}
    for s in steps:
        by.setdefault(s.session_id, []).append(s)
    out: list[Found] = []
    for sid, mine in by.items():
        mine = sorted(mine, key=lambda s: s.ordinal)
        # the user spoke: a message, or a refusal or a stop of a call (its reason)
        asked = sorted(users.get(sid, []) + [s.ordinal for s in mine
                                             if s.rejected or s.interrupted])
        ordinals = [s.ordinal for s in mine]
        failed = [s.ordinal for s in mine if s.failed and s.check]
        changes = [s for s in mine if s.change and s.target and (s.wrote or s.took)]
        episodes: list[tuple[Found, set[int]]] = []
        for i, c in enumerate(changes):
            took = c.took
            if not took:
                continue
            made = [e for e in changes[:i] if e.target == c.target
                    and e.ordinal < c.ordinal <= e.ordinal + TAKEN_SPAN
                    and not any(e.ordinal < u < c.ordinal for u in asked)
                    and not any(e.ordinal < f <= c.ordinal for f in failed)
                    # the very next call retouching what was just written is a slip
                    and bisect_left(ordinals, c.ordinal) - bisect_right(ordinals, e.ordinal)
                    >= SLIP]
            lost = {ln for e in made for ln in e.wrote & took if meaningful(ln)}
            if len(lost) < TAKEN_LINES:
                continue
            made = [e for e in made if e.wrote & lost]
            # code before comments, the longest first: the design's own lines name it
            lines = sorted(lost, key=lambda x: (x.startswith(_COMMENT), -len(x), x))
            # one design given up over several changes: a change that takes back more of
            # the same writing, or what a take-back of it wrote, continues its episode
            chain = next(((f, w) for f, w in reversed(episodes)
                          if any(e.ordinal in w for e in made)), None)
            if chain is not None:
                chain[0].ended = c.ordinal
                chain[0].evidence = _dedupe(chain[0].evidence + [(c.ordinal, "ended",
                                                                  f"changed {c.target}")])
                chain[1].update([c.ordinal], (e.ordinal for e in made))
                continue
            ran = [(s.ordinal, "tested", s.signature) for s in mine
                   if s.check and made[0].ordinal < s.ordinal < c.ordinal]
            # the design's work: its writing and the changes of the file that followed it
            work = [e for e in changes[:i] if e.target == c.target
                    and made[0].ordinal <= e.ordinal < c.ordinal]
            ev: list[tuple[int, str, str | None]] = [
                (e.ordinal, "tested", f"changed {e.target}") for e in work[-4:]]
            ev += ran[-2:] + [(c.ordinal, "ended", f"changed {c.target}")]
            name = c.target.replace("\\", "/").rsplit("/", 1)[-1]
            f = Found(session_id=sid, name=f"{name}: {short(lines[0], 70)} (taken back)",
                      first=made[0].ordinal, ended=c.ordinal, how="taken-back",
                      cause_text="the agent took its own lines back: "
                                 + "; ".join(f"`{short(x, 80)}`" for x in lines[:3]),
                      evidence=_dedupe(ev))
            episodes.append((f, {c.ordinal} | {e.ordinal for e in made}))
            out.append(f)
    return out
