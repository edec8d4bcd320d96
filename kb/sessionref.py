"""How a session is named to a person: a short id, and the command that resumes it.

Short ids work like git's abbreviated hashes: the shortest prefix of a session id
that no other session in the knowledge base shares, never shorter than
:data:`SHORT_MIN` characters.  Every command that takes ``--session`` accepts one
(:meth:`kb.store.KbStore.resolve_session` matches unique prefixes).

Pure: no DuckDB, no rich (``search`` uses it and stays fast).
"""

from __future__ import annotations

import shlex
from collections.abc import Iterable

SHORT_MIN = 7
"""The least characters a short id has (git's default abbreviation)."""


TYPE_TAGS = ("ses_",)
"""Prefixes every id of an agent shares (opencode's ``ses_``): not counted in the minimum,
and optional on input (``e88a22c`` finds ``ses_e88a22c…``)."""


def short_ids(ids: Iterable[str], minimum: int = SHORT_MIN) -> dict[str, str]:
    """Each id's shortest unique prefix among ``ids`` (at least ``minimum`` characters
    after a type tag such as ``ses_``; the whole id when it is that short)."""
    ordered = sorted(set(ids))
    out: dict[str, str] = {}
    for i, sid in enumerate(ordered):
        need = minimum + next((len(t) for t in TYPE_TAGS if sid.startswith(t)), 0)
        for j in (i - 1, i + 1):  # in sorted order the longest common prefix is a neighbour's
            if 0 <= j < len(ordered):
                other = ordered[j]
                common = 0
                for a, b in zip(sid, other):
                    if a != b:
                        break
                    common += 1
                need = max(need, common + 1)
        out[sid] = sid[:need]
    return out


def agent_name(agent: str | None) -> str:
    """The agent column's value (``opencode``, ``claude-code``, ``codex``, ``gemini-cli``,
    ``pi``, ``antigravity``; sessions read before readers named their agent are
    opencode's)."""
    return agent or "opencode"


def resume_argv(agent: str | None, session_id: str, form: str | None = None
                ) -> list[str] | None:
    """The command that continues ``session_id`` in the agent that wrote it, or ``None``
    when the agent has no command line that resumes a session (Antigravity's
    trajectories are exports of an editor's conversations) or the session was read from
    a rewrite (``form`` ``rewrite``: not the agent's own session, it has no id there)."""
    name = agent_name(agent)
    if name in ("antigravity", "unknown") or form == "rewrite":
        return None
    if name == "claude-code":
        return ["claude", "--resume", session_id]
    if name == "codex":
        return ["codex", "resume", session_id]
    if name == "gemini-cli":
        return ["gemini", "--resume", session_id]
    if name == "pi":
        return ["pi", "--session", session_id]
    return ["opencode", "--session", session_id]


def resume_command(agent: str | None, session_id: str, form: str | None = None) -> str | None:
    """:func:`resume_argv` as one shell line (``None`` when there is none)."""
    argv = resume_argv(agent, session_id, form)
    return shlex.join(argv) if argv is not None else None
