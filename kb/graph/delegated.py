"""Delegations that failed: work handed to a sub-agent whose own structure says it failed.

Every agent can hand a piece of work to a sub-agent (Claude Code ``Task``/``Agent``,
opencode ``task``, Codex ``spawn_agent``/``wait``, Gemini CLI ``invoke_agent``,
Antigravity ``invoke_subagent``).  The extractor makes each delegation a step
(:meth:`kb.graph.extract.Extractor._delegation`) whose outcome comes from the sub-agent's
own fields (:func:`logparse.structural.subagent_failed`): the call errored, the
sub-agent's session ended on an error, the collab status says ``errored``.

A delegation that failed and was not redone is a dead end whose cause is the sub-agent's
error (the same delegation failing again and again is one).  A Codex sub-agent is named by
its thread id (or agent path): its ``spawn_agent`` (failed when the child's own rollout
ended on an error, or a ``<subagent_notification>`` said so) and the ``wait`` that reports
it ``errored`` are one delegation, told once however far apart they are
(:func:`collab_agent`).  One redone at once by a delegation that worked (a wrong agent type retyped) is a
slip, not a dead end; one that never answered (no result at export) is an open question
(see untested), not a dead end; one the user refused or stopped is told by the rules of
rejected and stopped work.

Pure: steps in, :class:`~kb.graph.episodes.Found` out.
"""

from __future__ import annotations

import re
from typing import Any

import orjson

from kb.graph.episodes import Found, Step
from kb.graph.text import short

AGENT_KEY = "task agent "
"""How the key of a step that concerns one named Codex sub-agent starts."""

REDO_WINDOW = 4
"""Messages after a failed delegation in which a delegation that worked redoes it."""

_UNANSWERED = ("Timed out", "the tool call was")
"""Failures that answered nothing (see :data:`kb.graph.episodes._UNANSWERED`)."""


def collab_agent(tool: str, output: str | None, child: str | None) -> str | None:
    """The Codex sub-agent a collab call concerns: a ``spawn_agent``'s child (its linked
    session, else the ``agent_id``/``task_name`` it answered); the one a ``wait`` (or
    ``wait_agent``, ``send_input``, ...) reports ``errored`` or ``not_found``, else the only
    one it reports on; ``None`` when the output names none (plain text, a refusal)."""
    doc: Any = None
    text = (output or "").lstrip()
    if text.startswith("{"):
        try:
            doc = orjson.loads(text)
        except orjson.JSONDecodeError:
            doc = None
    if tool == "spawn_agent":
        if child:
            return child
        if isinstance(doc, dict):
            for k in ("agent_id", "task_name"):
                if isinstance(doc.get(k), str) and doc[k]:
                    return str(doc[k])
        return None
    status = doc.get("status") if isinstance(doc, dict) else None
    if not isinstance(status, dict) or not status:
        return None
    failed = [k for k, v in status.items() if v == "not_found"
              or (isinstance(v, dict) and "errored" in v)]
    if failed:
        return str(sorted(failed)[0])
    return str(next(iter(status))) if len(status) == 1 else None


def _delegations(steps: list[Step]) -> list[Step]:
    return [s for s in steps if s.tool == "task" and s.check and not s.rejected
            and not s.interrupted]


def delegated_episodes(steps: list[Step]) -> list[Found]:
    """Dead ends of delegations whose sub-agent failed and were not redone."""
    out: list[Found] = []
    run: list[Step] = []

    def close(told: str = "") -> None:
        if not run:
            return
        first, last = run[0], run[-1]
        told = told or first.command
        # a result that came back clean but that the agent's next reply read as failed
        # (kb.graph.extract's judgement) has that reading as its cause
        cause = next((s.signature or s.failure or s.judged for s in reversed(run)
                      if s.signature or s.failure or s.judged), "the sub-agent failed")
        out.append(Found(
            session_id=first.session_id,
            name=f"delegating «{short(told, 70)}» to a sub-agent" if told
            else "a task delegated to a sub-agent",
            first=first.ordinal, ended=last.ordinal + 1, how="subagent-failed",
            cause_text=cause, signature=last.signature,
            evidence=[(s.ordinal, "tested", s.signature or s.failure or s.judged or None)
                      for s in run]
            + [(last.ordinal + 1, "ended", None)]))
        run.clear()

    mine = _delegations(steps)
    named: dict[tuple[str, str], list[Step]] = {}
    for s in mine:
        if s.key.startswith(AGENT_KEY):
            named.setdefault((s.session_id, s.key), []).append(s)
    for chain in named.values():
        # one sub-agent: its spawn, its waits, its notification; failed unless the last
        # word on it worked (a wait that found it completed)
        run.extend(s for s in chain if s.failed
                   and not (s.signature or "").startswith(_UNANSWERED))
        if run and chain[-1].failed:
            close(next((s.command for s in chain if s.command), ""))
        run.clear()
    for s in mine:
        if s.key.startswith(AGENT_KEY):
            continue
        if run and (s.session_id != run[-1].session_id or s.key != run[-1].key
                    or s.ordinal - run[-1].ordinal > REDO_WINDOW):
            close()
        if s.failed and not (s.signature or "").startswith(_UNANSWERED):
            run.append(s)
        elif not s.failed:
            run.clear()  # redone at once, and it worked: a slip
    close()
    return sorted(out, key=lambda f: (f.session_id, f.first))


_ERROR_CLASS = re.compile(r"^\s*\w*(?:Error|Exception):\s*")


def told_once(found: list[Found], steps: list[Step]) -> list[Found]:
    """``found`` without the provider error a sub-agent's own session ended on when the
    delegation that spawned it already reports it (a Claude Code ``Task``'s sidechain, an
    opencode ``task``'s child session, a Codex sub-agent's rollout: the child's session is
    in the parent's scope, so the same failure would be told twice, once in each
    session).  The delegation's dead end keeps the child's error as its cause and as the
    note of its evidence.  The child's other dead ends (a run of its own that failed)
    stay."""
    children = {c for s in _delegations(steps) if s.failed
                for c in (s.child, s.key[len(AGENT_KEY):] if s.key.startswith(AGENT_KEY)
                          else "") if c}
    if not children:
        return found
    told = [f.cause_text.lower() for f in found if f.how == "subagent-failed"]

    def repeated(f: Found) -> bool:
        if f.how != "api-error" or f.session_id not in children:
            return False
        notes = [n for _, _, n in f.evidence if n] or [f.cause_text]
        keys = [k for k in (_ERROR_CLASS.sub("", n).strip().lower()[:60] for n in notes)
                if k]  # an error with no message repeats nothing ("" is in every text)
        return any(k in t for k in keys for t in told)

    return [f for f in found if not repeated(f)]
