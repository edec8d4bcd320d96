"""Work the agent undid on its own: structure only, no phrases, any language.

A change the agent made, then a check of it, then the agent undoing that change with no
user message between (one after a user message is work the user turned down:
:func:`kb.graph.episodes.undone_episodes` and ``reworked_episodes`` read that).  The
change was a dead end: whatever it tried was given up after the check showed it, and
the transcript's structure says so whatever the agent's words are.  The undo is one of:

* ``restored-text``: an edit of the same file that takes away the meaningful lines the
  change wrote and writes back the meaningful lines it took away (the earlier text);
* ``git-restore-file`` / ``rm-file``: the file restored from git, or deleted, after the
  agent changed or created it (:data:`logparse.redirects.UNDO_RULES`); a file deleted
  is a dead end only when the last run that named it failed (a helper script that
  worked and is cleaned up is no dead end);
* ``package-removed`` / ``package-pinned-back``: a dependency the agent installed,
  uninstalled or pinned to another version.

What it is not, and why:

* an undo with no check between the change and it is a slip retyped (a trap): nothing
  showed the change wrong;
* an undo far from the change (beyond :data:`SPAN` messages) is maintenance.

The readings are rows of :data:`EXAMPLES` (trimmed from real sessions where one exists)
that ``tests/kb/test_reverted.py`` walks.  Pure: steps and said in, :class:`Found` out.
"""

from __future__ import annotations

import os
from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from kb.graph.episodes import _INSTALLS, Found, Said, Step, _dedupe
from kb.graph.takenback import meaningful
from kb.graph.text import short
from logparse.redirects import undone

SPAN = 20
"""Messages after a change within which its undo must come."""


@dataclass(frozen=True)
class Example:
    """A case the rule must read as it says: the steps of one session (``Step`` rows,
    trimmed), the user messages' ordinals, and the ``(first, ended)`` of the dead end it
    must find (``None``: no dead end)."""

    name: str
    steps: tuple[Step, ...]
    users: tuple[int, ...]
    expect: tuple[int, int] | None
    source: str


def _run(o: int, cmd: str, failed: bool, sig: str | None = None) -> Step:
    key = " ".join(cmd.split()[:2])
    return Step("s", o, key, False, True, failed, sig, command=cmd, tool="bash",
                failure=sig or "" if failed else "")


def _edit(o: int, target: str, wrote: Sequence[str], took: Sequence[str] = ()) -> Step:
    return Step("s", o, f"edit {os.path.basename(target)}", True, False, False, None,
                target=target, wrote=frozenset(wrote), took=frozenset(took), tool="edit")


def _install(o: int, cmd: str) -> Step:
    return Step("s", o, " ".join(cmd.split()[:2]), True, True, False, None, command=cmd,
                tool="bash", target=" ".join(cmd.split()[:2]))


EXAMPLES: tuple[Example, ...] = (
    Example("restored-text", (
        _edit(10, "src/alert.php", ["$this->prepend_child($heading);"],
              ["$this->append_child($heading);"]),
        _run(11, "php -l src/alert.php", True, "Call to undefined method prepend_child()"),
        _edit(13, "src/alert.php", ["$this->append_child($heading);"],
              ["$this->prepend_child($heading);"])), (), (10, 13),
        "shape of k1.lib-bootstrap__session-export.json (append_child / prepend_child)"),
    Example("restored-text after a user message is the user's (reworked)", (
        _edit(10, "src/alert.php", ["$this->prepend_child($heading);"],
              ["$this->append_child($heading);"]),
        _run(11, "php -l src/alert.php", False),
        _edit(13, "src/alert.php", ["$this->append_child($heading);"],
              ["$this->prepend_child($heading);"])), (12,), None, "(constructed)"),
    Example("restored-text with no check between is a slip", (
        _edit(10, "src/alert.php", ["$this->prepend_child($heading);"],
              ["$this->append_child($heading);"]),
        _edit(11, "src/alert.php", ["$this->append_child($heading);"],
              ["$this->prepend_child($heading);"])), (), None, "(constructed)"),
    Example("git-restore-file", (
        _edit(20, "src/weather.ts", ["const avg = (a + b) / 2;"]),
        _run(21, "npm test", True, "AssertionError: expected 3 to equal 4"),
        _run(22, "git checkout -- src/weather.ts", False)), (), (20, 22),
        "(no real line yet) a file restored after its test failed"),
    Example("rm-file of a script whose run failed", (
        _edit(30, "convert.php", ["$doc = new DOMDocument();"]),
        _run(31, "php convert.php", True, "PHP Fatal error: Class DOMDocument not found"),
        _run(33, "rm convert.php", False)), (), (30, 33),
        "(no real line yet) a script given up and deleted"),
    Example("rm-file: the cause is the deleted script's own run", (
        _edit(342, "uploads/rebuild-elo.php", ["$data = json_decode($raw, true);"]),
        _run(351, 'curl -s -b cookies.txt "http://localhost:8882/wp-content/uploads/'
                  'rebuild-elo.php" 2>&1', True, "PHP Parse error: Unclosed '[' does not "
                                                  "match ')'"),
        _edit(353, "uploads/rebuild-elo2.php", ["$data = json_decode($raw, true);"]),
        _run(357, 'curl -s -b cookies.txt "http://localhost:8882/wp-content/uploads/'
                  'rebuild-elo2.php" 2>&1', True, "PHP Fatal error: Failed opening required "
                                                  "'../../../wp-load.php'"),
        _run(359, 'curl -s -b cookies.txt "http://localhost:8882/wp-content/uploads/'
                  'rebuild-elo2.php" 2>&1', False),
        _run(360, 'Remove-Item "C:\\Users\\salma\\Studio\\21st-showcase\\wp-content'
                  '\\uploads\\rebuild-elo.php" -ErrorAction SilentlyContinue', False)), (),
        (342, 360), "uicomponents__session-wordpress.json ordinals 342-360 (trimmed)"),
    Example("rm-file of a helper that worked is cleaning up", (
        _edit(30, "probe.py", ["print(requests.get(URL).status_code)"]),
        _run(31, "python probe.py", False),
        _run(32, "rm probe.py", False)), (), None,
        "shape of will-it-rain__claude.jsonl (rm -f of a probe after it ran)"),
    Example("package-removed", (
        _install(40, "npm install react-icons"),
        _run(41, "npm run build", True, "Module not found: react-icons/hi2"),
        _run(43, "npm uninstall react-icons", False)), (), (40, 43),
        "(no real line yet) a dependency the agent added, then removed"),
    Example("package-pinned-back", (
        _install(50, "npm install three"),
        _run(51, "npm run build", True, "export 'Geometry' was not found in 'three'"),
        _run(52, "npm install three@0.124.0", False)), (), (50, 52),
        "(no real line yet) a dependency downgraded after the build failed"),
)
"""Every reading of the rule, with a case each (see :class:`Example`)."""


def _restores(c1: Step, c2: Step) -> bool:
    """``c2`` takes away every meaningful line ``c1`` wrote and writes back exactly the
    meaningful lines ``c1`` took away, nothing new (a fix that writes other lines is a
    fix, not an undo)."""
    wrote = {x for x in c1.wrote if meaningful(x)}
    took = {x for x in c1.took if meaningful(x)}
    return bool(wrote) and wrote <= c2.took and {x for x in c2.wrote if meaningful(x)} == took


def reverted_episodes(steps: list[Step], said: Sequence[Said]) -> list[Found]:
    """Changes the agent undid itself after a check, with no user message between."""
    users: dict[str, list[int]] = {}
    for x in said:
        if x.role == "user":
            users.setdefault(x.session_id, []).append(x.ordinal)
    for v in users.values():
        v.sort()
    by_sid: dict[str, list[Step]] = {}
    for s in steps:
        by_sid.setdefault(s.session_id, []).append(s)
    out: list[Found] = []
    for sid, ss in by_sid.items():
        us = users.get(sid, [])

        def spoke(a: int, b: int, us: list[int] = us) -> bool:
            i = bisect_left(us, a + 1)
            return i < len(us) and us[i] < b

        used: set[int] = set()
        edits: dict[str, list[Step]] = {}
        """Target: the changes of it so far, in order (what an undo looks back at)."""
        for j, u in enumerate(ss):
            hits = _undoes(u, ss, j, edits)
            if u.change and u.target:
                edits.setdefault(u.target, []).append(u)
            for c, how in hits:
                if c.ordinal in used or u.ordinal - c.ordinal > SPAN \
                        or spoke(c.ordinal, u.ordinal):
                    continue
                checks = [x for x in ss[:j] if x.check and c.ordinal < x.ordinal < u.ordinal
                          and not (u.check and x.ordinal == u.ordinal)]
                if not checks:
                    continue  # nothing showed it wrong: a slip retyped
                if how == "rm-file" and not _last_failed(c, checks):
                    continue  # a helper that worked, cleaned up
                used.add(c.ordinal)
                # the runs of the file itself, where any ran it (the others between are
                # other work: a second script's own failure is not this one's cause)
                name = os.path.basename(c.target) if c.target else ""
                checks = [x for x in checks if name and name in x.command] or checks
                failed = [x for x in checks if x.failed]
                cause = (failed[-1].signature or failed[-1].failure) if failed else None
                what = c.target or c.key
                ev: list[tuple[int, str, str | None]] = [
                    (c.ordinal, "tested", f"changed {what}")]
                ev += [(x.ordinal, "tested", x.signature or x.failure or None)
                       for x in checks[-4:]]
                ev.append((u.ordinal, "ended", f"undone ({how}): "
                           f"{short(u.command or 'the earlier text written back', 100)}"))
                out.append(Found(
                    session_id=sid, name=f"{short(what, 70)} (undone by the agent)",
                    first=c.ordinal, ended=u.ordinal, how="reverted",
                    cause_text=cause or f"the agent undid it ({how}) after checking it",
                    signature=failed[-1].signature if failed else None,
                    evidence=_dedupe(ev)))
    return out


def _undoes(u: Step, steps: Sequence[Step], j: int,
            edits: dict[str, list[Step]]) -> list[tuple[Step, str]]:
    """The earlier changes ``u`` (``steps[j]``) undoes, each with the reading
    (:data:`EXAMPLES`); ``edits``: the changes before it by target.  Text written back
    undoes the last change that it restores within :data:`SPAN` (one farther is
    maintenance): the walk back stops there, so a long session costs linear time."""
    out: list[tuple[Step, str]] = []
    if u.change and u.target and not u.check:
        for c in reversed(edits.get(u.target, ())):
            if u.ordinal - c.ordinal > SPAN:
                break
            if _restores(c, u):
                out.append((c, "restored-text"))
                break
    undos = undone(u.command) if u.command else []
    if undos:
        before = steps[:j]  # an undoing command is rare: the steps before it are read
        for rule, t in undos:
            if rule.undoes == "file":
                mine = [c for c in before if c.change and c.target and not c.check
                        and os.path.basename(c.target) == t]
            elif rule.undoes == "package":
                mine = [c for c in before if c.command and t and t in c.command
                        and _INSTALLS.search(c.command) and not undone(c.command)
                        and not c.failed]
            else:
                continue  # the whole tree reset: which change it undoes is not told
            if mine:
                out.append((mine[0], rule.name))
    return out


def _last_failed(c: Step, checks: Sequence[Step]) -> bool:
    """The last run that named the file ``c`` changed failed."""
    name = os.path.basename(c.target)
    named = [x for x in checks if name and name in x.command]
    return bool(named) and named[-1].failed
