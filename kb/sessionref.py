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


def short_ids(ids: Iterable[str], minimum: int = SHORT_MIN, *,
              subagents: bool = False) -> dict[str, str]:
    """Each id's shortest unique prefix among ``ids`` (at least ``minimum`` characters
    after a type tag such as ``ses_``; the whole id when it is that short).

    ``subagents``: a Claude Code sub-agent's id is its session's id, a colon and its own
    (``<session>:agent-<id>``), so no prefix of the session's id is unique and both were
    named in full (46 characters and more in an 80-column table).  Instead the session
    is named by the shortest prefix unique among the sessions (ids before any colon) and
    a sub-agent by that, a colon and the shortest unique prefix of its own part, its
    :data:`SUBAGENT_TAGS` left off: ``d4c1bac:a06052d``.
    :meth:`kb.store.KbStore.resolve_session` reads both back."""
    if not subagents:
        return _prefixes(ids, minimum, TYPE_TAGS)
    ordered = set(ids)
    tops = _prefixes({s.partition(":")[0] for s in ordered}, minimum, TYPE_TAGS)
    rests: dict[str, set[str]] = {}
    for sid in ordered:
        top, colon, rest = sid.partition(":")
        if colon:
            rests.setdefault(top, set()).add(rest)
    own: dict[str, dict[str, str]] = {}
    for top, rs in rests.items():
        bare = {r: _untagged(r) for r in rs}
        if len(set(bare.values())) < len(bare):  # two differ only by their tag: keep it
            bare = {r: r for r in rs}
        cut = _prefixes(bare.values(), minimum, ())
        own[top] = {r: cut[b] for r, b in bare.items()}
    out: dict[str, str] = {}
    for sid in ordered:
        top, colon, rest = sid.partition(":")
        out[sid] = f"{tops[top]}:{own[top][rest]}" if colon else tops[sid]
    return out


def _untagged(own: str) -> str:
    return next((own[len(t):] for t in SUBAGENT_TAGS if own.startswith(t) and own[len(t):]),
                own)


SUBAGENT_TAGS = ("agent-", "sidechain-")
"""How the own part of a Claude Code sub-agent's id starts: left off its short id, and
optional on input (``d4c1bac:a06052d`` finds ``d4c1bac0-…:agent-a06052d…``)."""


def _prefixes(ids: Iterable[str], minimum: int, tags: tuple[str, ...]) -> dict[str, str]:
    ordered = sorted(set(ids))
    out: dict[str, str] = {}
    for i, sid in enumerate(ordered):
        need = minimum + next((len(t) for t in tags if sid.startswith(t)), 0)
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
