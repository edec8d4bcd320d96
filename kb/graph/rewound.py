"""The branch the user rewound away from (Gemini CLI's ``/rewind``: ``$rewindTo``).

A rewind is the user's structural undo: the conversation goes back to before a message,
and what was done from there on is taken back (the reader keeps those messages and marks
them, :mod:`logparse.gemini_cli`).  The work of that branch is a dead end whose cause is
the rewind itself; like work the user sent back or turned away from, it is the weakest
reading (:func:`kb.graph.episodes.episodes` ``weak``): a failure the branch ran into
already tells it.
"""

from __future__ import annotations

from collections.abc import Sequence

from kb.graph.episodes import Found, Step

BRANCH_WORK = 4
"""The last steps of a rewound branch its dead end names as evidence."""


def rewound_episodes(steps: list[Step], rewinds: Sequence[tuple[str, int, int]]
                     ) -> list[Found]:
    """One dead end per rewind ``(session, first, at)`` whose branch (messages ``first``
    to ``at``) did any work: its last steps, ended by the rewind after ``at``."""
    out: list[Found] = []
    for sid, first, at in rewinds:
        work = [s for s in steps if s.session_id == sid and first <= s.ordinal <= at]
        if not work:
            continue  # nothing ran: only words were taken back
        last = work[-BRANCH_WORK:]
        ev: list[tuple[int, str, str | None]] = [(s.ordinal, "tested", None) for s in last]
        ev.append((at, "ended", f"the user rewound the conversation to before message "
                                f"{first}"))
        out.append(Found(
            session_id=sid, name=f"the branch the user rewound (`{last[-1].key}`)",
            first=last[0].ordinal, ended=at, how="rewound",
            cause_text=f"the user rewound the conversation to before message {first}: "
                       "this branch was taken back",
            evidence=ev))
    return out
