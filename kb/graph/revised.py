"""A belief the agent revises in its own reasoning, or a value it read wrong.

Structure first, then a cue (the sentences: :mod:`logparse.revision`):

* **reversed**: one block of the agent's reasoning or prose states a limiting belief and
  a later sentence of it turns the belief round ("…only stores current ratings without
  historical data, so I'll skip that visualization" … "Actually, I can reconstruct
  rating history from the game_players table since each game records pre_rating and
  post_rating values").  The revision must name something concrete that a call of the
  last :data:`SEEN` messages touched (the agent had it in front of it: ``\\d
  game_players``) *and* that a call of the next :data:`ACTED` messages works on (the
  agent acted on the revised belief: the query of ``pre_rating_overall``).  Without
  both it is thinking out loud: a reasoning model turns over a dozen ideas a block, and
  one it never acted on nor grounded ends nothing.
* **reread**: a block right after a call (:data:`AFTER_CALL`) quotes a quantity
  (``Only 391 bytes length, which is way too small.``); a block within :data:`SPAN`
  messages, after at least one more call, names the same quantity again with the reason
  it was read wrong ("The output had 391 length earlier because the grep/stats were
  counting something differently.").

The dead end is the belief (or the reading); its cause is the reason the revision gives;
the evidence is the claim's ordinal and the revision's.  ``how="revised"``: a weak
reading (it hides nothing, and another rule's episode on the same messages hides it),
its cause taken as it is (no later root).

Measured before it was wired in (BENCHMARKS.md, "xrevise"): over every usable real
session it fires twice, each a real revision; looser variants fired up to 98 times at
about one in six.  ``tests/kb/test_revised.py`` walks the real cases.

Pure: steps, said and lookups in, :class:`~kb.graph.episodes.Found` out.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from kb.graph.episodes import Found, Said, Step, _dedupe
from kb.graph.text import short
from logparse.revision import quoted, reason, reread, reversals

SEEN = 8
"""Messages before a revision within which a call must have touched what it names."""
ACTED = 3
"""Messages after a revision within which a call must work on what it names."""
AFTER_CALL = 2
"""Messages after a call within which a block quoting a quantity read that call."""
SPAN = 25
"""Messages after a quoted quantity within which the agent may read it again."""


def _calls(steps: Sequence[Step], lookups: Sequence[tuple[str, int, str]]
           ) -> dict[str, tuple[list[int], list[str]]]:
    """Per session: the ordinals of its calls (sorted) and what each touched, lowercased
    (command, target, check key; a read's or a search's command)."""
    rows: dict[str, list[tuple[int, str]]] = {}
    for s in steps:
        rows.setdefault(s.session_id, []).append(
            (s.ordinal, f"{s.command} {s.target} {s.key}".lower()))
    for sid, o, what in lookups:
        rows.setdefault(sid, []).append((o, what.lower()))
    out = {}
    for sid, got in rows.items():
        got.sort()
        out[sid] = ([o for o, _ in got], [t for _, t in got])
    return out


def _touched(calls: tuple[list[int], list[str]], lo: int, hi: int,
             names: frozenset[str]) -> int | None:
    """The first call with ``lo <= ordinal <= hi`` whose text holds one of ``names``."""
    at, text = calls
    for i in range(bisect_left(at, lo), bisect_right(at, hi)):
        if any(n in text[i] for n in names):
            return at[i]
    return None


def revised_episodes(steps: Sequence[Step], said: Sequence[Said],
                     lookups: Sequence[tuple[str, int, str]] = ()) -> list[Found]:
    """Beliefs revised in the same block, and quantities read again with the reason they
    were read wrong (see the module's docstring)."""
    calls = _calls(steps, lookups)
    out: list[Found] = []
    by_sid: dict[str, list[Said]] = {}
    for x in said:
        if x.signal in ("revises", "quotes"):
            by_sid.setdefault(x.session_id, []).append(x)
    for sid, mine in by_sid.items():
        mine.sort(key=lambda x: x.ordinal)
        mine_calls = calls.get(sid, ([], []))
        out += _reversed(sid, mine, mine_calls)
        out += _reread(sid, mine, mine_calls)
    out.sort(key=lambda f: (f.session_id, f.first))
    return out


def _reversed(sid: str, said: list[Said], calls: tuple[list[int], list[str]]) -> list[Found]:
    out: list[Found] = []
    for x in said:
        if x.signal != "revises":
            continue
        for r in reversals(x.text):
            seen = _touched(calls, x.ordinal - SEEN, x.ordinal - 1, r.names)
            acted = _touched(calls, x.ordinal, x.ordinal + ACTED, r.names)
            if seen is None or acted is None:
                continue
            why = reason(r.revision)
            out.append(Found(
                session_id=sid, name=f"the belief «{short(r.claim, 80)}»",
                first=x.ordinal, ended=x.ordinal, how="revised",
                cause_text=f"{short(why, 200)} (revised: {short(r.claim, 100)})",
                why=short(why, 200),
                evidence=_dedupe([(x.ordinal, "proposed", short(r.claim, 200))])))
            break
    return out


def _reread(sid: str, said: list[Said], calls: tuple[list[int], list[str]]) -> list[Found]:
    out: list[Found] = []
    at = calls[0]
    done: set[int] = set()
    for i, a in enumerate(said):
        if a.signal not in ("quotes", "revises"):
            continue  # (a block that revises may quote too)
        # a call of an earlier message (the block's own calls come after its prose)
        j = bisect_left(at, a.ordinal)
        if j == 0 or a.ordinal - at[j - 1] > AFTER_CALL:
            continue  # no call just before it: the quantity was not read off a result
        for value, claim in quoted(a.text):
            for b in said[i + 1:]:
                if b.ordinal - a.ordinal > SPAN:
                    break
                if b.signal != "revises" or b.ordinal == a.ordinal or b.ordinal in done:
                    continue
                k = bisect_left(at, a.ordinal)
                if not (k < len(at) and at[k] < b.ordinal):
                    continue  # nothing was looked at again in between
                hit = reread(b.text, value)
                if hit is None:
                    continue
                why = reason(hit[1])
                done.add(b.ordinal)
                out.append(Found(
                    session_id=sid, name=f"the reading «{short(claim, 80)}»",
                    first=a.ordinal, ended=b.ordinal, how="revised",
                    cause_text=f"{short(why, 200)} (read wrong: {short(claim, 100)})",
                    why=short(why, 200),
                    evidence=_dedupe([(a.ordinal, "proposed", short(claim, 200)),
                                      (b.ordinal, "ended", short(hit[1], 200))])))
                break
    return out
