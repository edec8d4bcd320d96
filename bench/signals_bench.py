"""``python -m bench signals``: the coverage matrix of structural signals × agents.

For every agent logkb reads and every signal of issue 22's vocabulary, whether the agent's
record of it is mapped by a rule row with an example (``R`` a real line of that agent,
``r`` a rule all agents share whose real line is another agent's, ``s`` an example built
from the agent's source), never written by that agent (``-``, with the source that says
why in :data:`logparse.coverage.NEVER`), or a gap (``GAP``).  The table is data
(:mod:`logparse.coverage`); ``tests/logparse/test_coverage.py`` fails on any gap.

Exit status 0 with no gap, 1 with gaps (grep-like).  ``--json`` prints the cells.
"""

from __future__ import annotations

import argparse
import json
import sys

from logparse.coverage import CELLS, NEVER, VOCABULARY, cell_example, gaps_before, matrix
from logparse.structural import AGENTS

_SHORT = {"opencode": "opencode", "claude-code": "claude", "codex": "codex",
          "gemini-cli": "gemini", "pi": "pi", "antigravity": "antigrav"}


def render() -> str:
    m = matrix()
    lines = [f"{'signal':<21}" + "".join(f"{_SHORT[a]:>9}" for a in AGENTS)]
    for s in VOCABULARY:
        lines.append(f"{s:<21}" + "".join(f"{m[(a, s)]:>9}" for a in AGENTS))
    gaps = sum(v == "GAP" for v in m.values())
    counts = {k: sum(v == k for v in m.values()) for k in ("R", "r", "s", "-")}
    lines.append("")
    lines.append(f"R real line {counts['R']}  r shared rule {counts['r']}  "
                 f"s from source {counts['s']}  - never written {counts['-']}")
    lines.append(f"gaps: {gaps} (before xsig: {gaps_before()})")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench signals",
                                 description="the structural signals x agents matrix")
    ap.add_argument("--json", action="store_true", help="print the cells as JSON")
    args = ap.parse_args(argv)
    m = matrix()
    if args.json:
        cells = {(c.agent, c.signal): c for c in CELLS}
        never = {(n.agent, n.signal): n for n in NEVER}
        out = []
        for (a, s), v in m.items():
            c, n = cells.get((a, s)), never.get((a, s))
            out.append({"agent": a, "signal": s, "status": v,
                        "record": c.record if c else None,
                        "rules": list(c.rules) if c else [],
                        "never": n.why if n else None,
                        "source": n.source if n else (cell_example(c)[1] if c else None),
                        "mapped_by": c.since or None if c else None})
        print(json.dumps({"cells": out, "gaps": sum(v == "GAP" for v in m.values()),
                          "gaps_before": gaps_before()}, indent=1))
    else:
        print(render())
    sys.exit(1 if any(v == "GAP" for v in m.values()) else 0)


if __name__ == "__main__":
    main(sys.argv[1:])
