"""A request the agent misread: structure only, no phrases, any language.

Shape: a user asks for something (``can you export this session on this folder, and push
to git?``); the agent replies and stops; the user's next message asks for the same thing
again (``use the export session to a MD is enough …?``): it shares *distinctive* words
with the request (``export``, ``session``) that none of the turn's work touched (no
command, file or line the agent wrote holds them).  Nothing failed: the agent did
another thing than was asked, or nothing, and stopped; only the user's restatement
tells.  Two things tell a restatement from news or a question, whichever comes:

* right after it the agent does what those words name with work of another kind than
  the turn's (``opencode export`` after ``git add`` / ``git commit`` / ``git push``);
* the user says the request again nearly whole and the replies between made no call at
  all (``export the session`` twice); after a turn of work the same message again says
  go on (``sounds good, continue``), it restates nothing.

A compaction in the turn makes the cause the context the replies lost.

What it is not, and why:

* a word the turn's work did touch: the agent did that part, the user only speaks of it
  again;
* a word the agent's later work does not touch either, in a message that is not the
  request again nearly whole: the user's message is news, a question or the user's own
  try (``se me ocurre esto …`` after ``¿cómo puedo crear una lista …?``), not a request
  taken up again;
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

from kb.graph.episodes import LOST_TASK, Found, Said, Step, _dedupe
from kb.graph.text import short, tokens
from logparse.request import INTERRUPT_MARK, request_text

MIN_WORK = 2
"""Calls the agent made between the request and the restatement for later work of another
kind to tell that the turn did something else instead (less: only a request said again
whole tells)."""
MAX_WORDS = 60
"""Words of a request or restatement at most: longer ones (a spec, a pasted log) share
words by chance."""
MIN_LETTERS = 5
"""Letters of a word that can name what was asked (``push``, ``page`` name too little)."""
MIN_SHARED = 2
"""Words of the request the next message must say again, untouched by the turn's work, to
restate it (``commit it`` after ``fix it and commit`` is the next step asked for, not the
request restated)."""
REDO_WINDOW = 6
"""Messages after the restatement within which the agent takes the missed thing up."""


_WORD = re.compile(r"[^\W\d_]+")
"""A run of letters in any alphabet (``sesión``, ``export``)."""
_CJK = re.compile(r"[\u4e00-\u9fff\u30a0-\u30ff\uff66-\uff9f]{2,}")
"""A run of Han or Katakana characters: written without spaces, read as pairs (a
Chinese or Japanese request has no words to split; ``导出会话`` gives ``导出``, ``出会``,
``会话``).  Hiragana are left out: they are the particles every sentence shares."""


def _terms(text: str) -> frozenset[str]:
    """The words of a text in any language of the pool: letter runs of
    :data:`MIN_LETTERS` or more, and the character pairs of Han and Katakana runs."""
    low = text.lower()
    out = {w for w in _WORD.findall(low) if len(w) >= MIN_LETTERS and not _CJK.search(w)}
    for run in _CJK.findall(low):
        out.update(run[i:i + 2] for i in range(len(run) - 1))
    return frozenset(out)


def _words(text: str) -> frozenset[str]:
    """The words of a message that can name a thing asked for (:func:`_terms`)."""
    return _terms(text[:1500])


def _touched(s: Step) -> frozenset[str]:
    """Every word a call's work holds: its command, its file, the lines it wrote or took."""
    return _terms(" ".join((s.command, s.target, *sorted(s.wrote)[:40], *sorted(s.took)[:40])))


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
    Example("the same request again after replies that made no call",
            (30, "export the session"), (), (32, "export the session"), (),
            True, "uicomponents__session-export.json (opencode, shared) #30 asks for an "
                  "export, #31 a reply with no call, #32 the same words again; the export "
                  "came at #61"),
    Example("a follow-up with the user's own try shares the request's words",
            (118, "claude como puedo crear una lista de palabras de odio y otra de no odio "
                  "usando .is_alpha"), (),
            (120, "se me ocurre esto\nfor comentario_odio in comentarios_odio:\n    "
                  "palabras_odio.insert(token for token in comentario_odio if "
                  "token.is_alpha)"), (),
            False, "conversacion-act1-pln__session.jsonl (Claude Code, tune) #118 asks how, "
                   "#119 a hint, #120 the user's attempt: news, not the request again"),
)
"""Every reading of the rule, each a real case; ``tests/kb/test_misread.py`` walks them."""


def misread_episodes(steps: Sequence[Step], said: Sequence[Said]) -> list[Found]:
    """Requests the agent misread (see the module's docstring)."""
    users: dict[str, list[Said]] = {}
    aborted: set[tuple[str, int]] = set()
    compacted: set[tuple[str, int]] = set()
    for u in said:
        if u.signal in ("aborted", "stopped"):
            aborted.add((u.session_id, u.ordinal))
        elif u.signal == "compaction":
            compacted.add((u.session_id, u.ordinal))
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
            if again.ordinal - ask.ordinal < 2 or any(
                    (sid, o) in aborted for o in range(ask.ordinal, again.ordinal + 1)):
                continue  # no reply between, or one the user stopped to re-send
            turn = mine[bisect_right(ordinals, ask.ordinal):bisect_left(ordinals, again.ordinal)]
            if turn and turn[-1].failed:
                continue  # a failure the user answers
            shared = _words(ask.text) & _words(again.text)
            if len(shared) < MIN_SHARED:
                continue  # one word again is the next step asked for, not a restatement
            touched = frozenset().union(*(_touched(s) for s in turn))
            missed = shared - touched
            if len(missed) < MIN_SHARED:
                continue
            end = min(us[k + 2].ordinal if k + 2 < len(us) else 1 << 31,
                      again.ordinal + REDO_WINDOW + 1)
            after = mine[bisect_right(ordinals, again.ordinal):bisect_left(ordinals, end)]
            kinds = list(dict.fromkeys(_family(s) for s in turn))
            redo = next((s for s in after if _family(s) not in kinds
                         and missed & _touched(s)), None)
            if len(turn) < MIN_WORK:
                redo = None  # a turn that only answered did no work of another kind
            if redo is None and (turn or not _repeats(ask.text, again.text)):
                # news or a question: neither taken up nor the request again after replies
                # that did nothing (a message said again after a turn of work says go on)
                continue
            what = sorted(missed & _touched(redo) if redo is not None else missed)
            ev: list[tuple[int, str, str | None]] = [(ask.ordinal, "proposed", short(ask.text, 200))]
            ev += [(s.ordinal, "tested", short(s.command, 120) or f"changed {s.target}")
                   for s in turn[:2] + turn[2:][-2:]]
            ev += [(o, "tested", None) for o in range(ask.ordinal + 1, again.ordinal)
                   if not turn]
            ev += [(again.ordinal, "ended", short(again.text, 200))]
            if redo is not None:
                ev.append((redo.ordinal, "ended", f"redone: {short(redo.command, 120)}"))
            out.append(Found(
                session_id=sid,
                name=f"«{short(ask.text, 50)}» handled as {', '.join(kinds[-3:]) or 'a reply'} "
                     "(misread request)",
                first=ask.ordinal, ended=redo.ordinal if redo else again.ordinal, how="misread",
                cause_text=f"{LOST_TASK}: the replies lost the task"
                if any((sid, o) in compacted for o in range(ask.ordinal, again.ordinal))
                else f"the request was misread ({', '.join(what[:3])} left undone); "
                     f"the user asked again: «{short(_plain(again.text), 200)}»",
                why=short(again.text, 240), evidence=_dedupe(ev), said_at=again.ordinal))
    return out


def _repeats(ask: str, again: str) -> bool:
    """Whether ``again`` says most of ``ask`` again (and little else)."""
    a, b = _terms(ask[:400]) | tokens(ask[:400]), _terms(again[:400]) | tokens(again[:400])
    return len(a & b) >= max(2, 0.75 * max(len(a), len(b)))


_SPACE = re.compile(r"\s+")


def _plain(text: str) -> str:
    """A message on one line, its blanks squashed."""
    return _SPACE.sub(" ", text).strip()
