"""A request the agent misread: structure only, no phrases, any language.

Shape: a user asks for something (``can you export this session on this folder, and push
to git?``); the agent works a turn and stops; the user's next message asks about the same
thing again (``use the export session to a MD is enough …?``): it shares a *distinctive*
word with the request (``export``) that none of the turn's work touched (no command,
file or line the agent wrote holds it), and right after it the agent does what that word
names with work of another kind than the turn's (``opencode export`` after ``git add`` /
``git commit`` / ``git push``).  Nothing failed: the agent did another thing than was
asked and reported it done; only the user's restatement tells.

What it is not, and why:

* a word the turn's work did touch: the agent did that part, the user only speaks of it
  again;
* a word the agent's later work does not touch either: the user's message is news or a
  question, not a request taken up again;
* later work of a kind the turn already did (the same command again): a fix of the
  turn's own work, which the check, attempt and refutation rules read;
* a message that says one word of the request again (``commit it`` after ``fix the bug
  and commit``): the next step asked for, not the request restated;
* long messages (a pasted spec, a log): two of them share words by chance.

The cause is the user's restatement, normalised.  The readings are rows of
:data:`EXAMPLES`, real cases (trimmed) that ``tests/kb/test_misread.py`` walks.

Pure: steps and said in, :class:`~kb.graph.episodes.Found` out.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

from kb.graph.episodes import Found, Said, Step, _dedupe
from kb.graph.text import short, tokens
from logparse.request import INTERRUPT_MARK, request_text

MIN_WORK = 2
"""Calls the agent made between the request and the restatement (less is no turn of work
done instead)."""
MAX_WORDS = 60
"""Words of a request or restatement at most: longer ones (a spec, a pasted log) share
words by chance."""
MIN_LETTERS = 5
"""Letters of a word that can name what was asked (``push``, ``page`` name too little)."""
MIN_SHARED = 2
"""Words of the request the next message must say again to restate it (``commit it`` after
``fix it and commit`` is the next step asked for, not the request restated)."""
REDO_WINDOW = 6
"""Messages after the restatement within which the agent takes the missed thing up."""


def _words(text: str) -> frozenset[str]:
    """The words of a message that can name a thing asked for: letters only, long enough."""
    return frozenset(t for t in tokens(text[:1500]) if len(t) >= MIN_LETTERS and t.isalpha())


def _touched(s: Step) -> frozenset[str]:
    """Every word a call's work holds: its command, its file, the lines it wrote or took."""
    return tokens(" ".join((s.command, s.target, *sorted(s.wrote)[:40], *sorted(s.took)[:40])))


def _family(s: Step) -> str:
    """The kind of work a call is: its program and sub-command (``git commit``,
    ``opencode export``), or its tool (``edit``)."""
    return " ".join(s.key.split()[:2]) if s.key else s.tool


@dataclass(frozen=True)
class Example:
    """A real case (trimmed): the request, the calls of the turn (ordinal, key, command),
    the restatement, the calls after it, and whether a misread is read."""

    name: str
    request: tuple[int, str]
    turn: tuple[tuple[int, str, str], ...]
    again: tuple[int, str]
    after: tuple[tuple[int, str, str], ...]
    misread: bool
    source: str


_K1_TURN = ((607, "git status", "git status"),
            (608, "git add", "git add composer.json demo/index.php src/klan1/html/componentes/"),
            (609, "git commit", "git commit -m \"Bootstrap 5 Nav component complete rewrite\""),
            (610, "git push", "git push"))
_K1_ASK = (606, "can you export this session on this folder, and push to git ? I need to "
                "continuew on another machine with opencode")
_K1_AGAIN = (612, "use the export session to a MD is enough to continue en another machine ? "
                  "or is better the use the CLI to export the session to a JSON ?")

EXAMPLES: tuple[Example, ...] = (
    Example("a session export handled as a commit and a push",
            _K1_ASK, _K1_TURN, _K1_AGAIN,
            ((613, "opencode --help", "opencode --help 2>&1 | head -50"),
             (614, "opencode export", "opencode export 2>&1")),
            True, "k1.lib-bootstrap__session-export.json (opencode, shared) #606 asks for an "
                  "export and a push, #607-#610 commit and push only, #612 asks about the "
                  "export again, #614 `opencode export`"),
    Example("the restated word was taken up by the turn already",
            _K1_ASK, _K1_TURN + ((611, "opencode export", "opencode export 2>&1"),),
            _K1_AGAIN, ((614, "opencode export", "opencode export --md 2>&1"),),
            False, "k1.lib-bootstrap__session-export.json, counterfactual: had the turn run "
                   "`opencode export`, the user's question is about work done"),
    Example("the restated word is never taken up",
            _K1_ASK, _K1_TURN, _K1_AGAIN,
            ((613, "opencode --help", "opencode --help 2>&1 | head -50"),),
            False, "k1.lib-bootstrap__session-export.json, cut at #613: nothing done about "
                   "the export yet, a question answered is no misread"),
)
"""Every reading of the rule, each a real case; ``tests/kb/test_misread.py`` walks them."""


def misread_episodes(steps: Sequence[Step], said: Sequence[Said]) -> list[Found]:
    """Requests the agent misread (see the module's docstring)."""
    users: dict[str, list[Said]] = {}
    for u in said:
        if u.role != "user" or u.text.startswith(INTERRUPT_MARK):
            continue  # (the agent's record of a stop: no words of the user's)
        asked = request_text(u.text)  # without what was injected into it
        if asked:
            users.setdefault(u.session_id, []).append(u._replace(text=asked))
    by: dict[str, list[Step]] = {}
    for s in steps:
        by.setdefault(s.session_id, []).append(s)
    out: list[Found] = []
    for sid, us in users.items():
        mine = sorted(by.get(sid, []), key=lambda s: s.ordinal)
        ordinals = [s.ordinal for s in mine]
        us = sorted(us, key=lambda u: u.ordinal)
        for k in range(len(us) - 1):
            ask, again = us[k], us[k + 1]
            if again.error or any(len(x.text.split()) > MAX_WORDS for x in (ask, again)):
                continue
            turn = mine[bisect_right(ordinals, ask.ordinal):bisect_left(ordinals, again.ordinal)]
            if len(turn) < MIN_WORK or turn[-1].failed:
                continue  # no work done instead; or a failure the user answers
            shared = _words(ask.text) & _words(again.text)
            if len(shared) < MIN_SHARED:
                continue  # one word again is the next step asked for, not a restatement
            touched = frozenset().union(*(_touched(s) for s in turn))
            missed = shared - touched
            if not missed:
                continue
            end = min(us[k + 2].ordinal if k + 2 < len(us) else 1 << 31,
                      again.ordinal + REDO_WINDOW + 1)
            after = mine[bisect_right(ordinals, again.ordinal):bisect_left(ordinals, end)]
            kinds = list(dict.fromkeys(_family(s) for s in turn))
            redo = next((s for s in after if _family(s) not in kinds
                         and missed & _touched(s)), None)
            if redo is None:
                continue
            what = sorted(missed & _touched(redo))
            ev: list[tuple[int, str, str | None]] = [(ask.ordinal, "proposed", short(ask.text, 200))]
            ev += [(s.ordinal, "tested", short(s.command, 120) or f"changed {s.target}")
                   for s in turn[:2] + turn[2:][-2:]]
            ev += [(again.ordinal, "ended", short(again.text, 200)),
                   (redo.ordinal, "ended", f"redone: {short(redo.command, 120)}")]
            out.append(Found(
                session_id=sid,
                name=f"«{short(ask.text, 50)}» handled as {', '.join(kinds[-3:])} "
                     "(misread request)",
                first=ask.ordinal, ended=redo.ordinal, how="misread",
                cause_text=f"the request was misread ({', '.join(what[:3])} left undone); "
                           f"the user asked again: «{short(_plain(again.text), 200)}»",
                why=short(again.text, 240), evidence=_dedupe(ev), said_at=again.ordinal))
    return out


_SPACE = re.compile(r"\s+")


def _plain(text: str) -> str:
    """A message on one line, its blanks squashed."""
    return _SPACE.sub(" ", text).strip()
