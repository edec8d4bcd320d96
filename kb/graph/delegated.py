"""Delegations that failed: work handed to a sub-agent whose own structure says it failed.

Every agent can hand a piece of work to a sub-agent (Claude Code ``Task``/``Agent``,
opencode ``task``, Codex ``spawn_agent``/``wait``, Gemini CLI ``invoke_agent``,
Antigravity ``invoke_subagent``).  The extractor makes each delegation a step
(:meth:`kb.graph.extract.Extractor._delegation`) whose outcome comes from the sub-agent's
own fields (:func:`logparse.structural.subagent_failed`): the call errored, the
sub-agent's session ended on an error, the collab status says ``errored``.

A delegation that failed and was not redone is a dead end whose cause is the sub-agent's
error (the same delegation failing again and again is one).  One redone at once by a delegation that worked (a wrong agent type retyped) is a
slip, not a dead end; one that never answered (no result at export) is an open question
(see untested), not a dead end; one the user refused or stopped is told by the rules of
rejected and stopped work.

Pure: steps in, :class:`~kb.graph.episodes.Found` out.
"""

from __future__ import annotations

from kb.graph.episodes import Found, Step
from kb.graph.text import short

REDO_WINDOW = 4
"""Messages after a failed delegation in which a delegation that worked redoes it."""

_UNANSWERED = ("Timed out", "the tool call was")
"""Failures that answered nothing (see :data:`kb.graph.episodes._UNANSWERED`)."""


def _delegations(steps: list[Step]) -> list[Step]:
    return [s for s in steps if s.tool == "task" and s.check and not s.rejected
            and not s.interrupted]


def delegated_episodes(steps: list[Step]) -> list[Found]:
    """Dead ends of delegations whose sub-agent failed and were not redone."""
    out: list[Found] = []
    run: list[Step] = []

    def close() -> None:
        if not run:
            return
        first, last = run[0], run[-1]
        cause = next((s.signature or s.failure for s in reversed(run)
                      if s.signature or s.failure), "the sub-agent failed")
        out.append(Found(
            session_id=first.session_id,
            name=f"delegating «{short(first.command, 70)}» to a sub-agent" if first.command
            else "a task delegated to a sub-agent",
            first=first.ordinal, ended=last.ordinal + 1, how="subagent-failed",
            cause_text=cause, signature=last.signature,
            evidence=[(s.ordinal, "tested", s.signature or s.failure or None) for s in run]
            + [(last.ordinal + 1, "ended", None)]))
        run.clear()

    for s in _delegations(steps):
        if run and (s.session_id != run[-1].session_id or s.key != run[-1].key
                    or s.ordinal - run[-1].ordinal > REDO_WINDOW):
            close()
        if s.failed and not (s.signature or "").startswith(_UNANSWERED):
            run.append(s)
        elif not s.failed:
            run.clear()  # redone at once, and it worked: a slip
    close()
    return out
