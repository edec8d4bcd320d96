"""``python -m bench extract``: extraction scores per agent on the hand-labelled real sessions.

Runs ``../shared/tools/score-labelled/score.py --json`` (it shares no code with logkb: it
ingests each labelled file with the ``logkb`` command and scores its output) and pools its
rows per agent: dead-end recall and precision, causes right, hard untested questions found,
measurements found, and traps reported as dead ends.  ``--labelled DIR`` scores the labels
of another folder (label files that name their data file, the data file beside them).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCORE = ROOT.parent / "shared" / "tools" / "score-labelled" / "score.py"
AGENT_OF = {"opencode": "opencode", "claude": "Claude Code", "codex": "Codex"}


def agent_of(label: dict[str, object]) -> str:
    """The agent a label's transcript comes from, read from its format field."""
    fmt = str(label.get("format", "")).lower() + " " + str(label.get("file", "")).lower()
    for key, name in AGENT_OF.items():
        if key in fmt:
            return name
    return "opencode"


def run_score(logkb: str, labelled: Path | None) -> list[dict[str, object]]:
    script = SCORE
    tmp = None
    if labelled is not None:
        # a copy of the scorer reading another folder (it takes no option for that)
        tmp = tempfile.mkdtemp(prefix="bench-extract-")
        text = SCORE.read_text(encoding="utf-8").replace(
            'LABELLED = os.path.normpath(os.path.join(HERE, "..", "..", "realworld", '
            '"labelled"))', f"LABELLED = {str(labelled)!r}")
        script = Path(tmp) / "score.py"
        script.write_text(text, encoding="utf-8")
    p = subprocess.run([sys.executable, str(script), "--logkb", logkb, "--json"],
                       capture_output=True, text=True, check=True)
    return [json.loads(line) for line in p.stdout.splitlines() if line.strip()]


def pooled(rows: list[dict[str, object]], labels: Path) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        if "error" in r:
            print(f"bench extract: {r['name']}: {r['error']}", file=sys.stderr)
            continue
        label = json.loads((labels / f"{r['name']}.json").read_text(encoding="utf-8"))
        for agent in (agent_of(label), "all"):
            acc = out.setdefault(agent, {})
            for k, v in r.items():
                if isinstance(v, int):
                    acc[k] = acc.get(k, 0) + v
    return out


def _f(n: int, d: int) -> str:
    return f"{n / d:.2f}" if d else "-"


def table(pools: dict[str, dict[str, int]]) -> str:
    lines = [f"{'agent':12} {'recall':>7} {'prec':>6} {'causes':>7} {'untested':>9} "
             f"{'measures':>9} {'traps':>6}"]
    for agent in ("opencode", "Claude Code", "Codex", "all"):
        a = pools.get(agent)
        if not a:
            continue
        lines.append(
            f"{agent:12} {_f(a['found'], a['dead_ends']):>7} "
            f"{_f(a['reported_true'], a['reported']):>6} {_f(a['causes_right'], a['found']):>7} "
            f"{_f(a['untested_found'], a['untested']):>9} "
            f"{_f(a['measurements_found'], a['measurements']):>9} "
            f"{_f(a['traps_reported'], a['traps']):>6}")
    return "\n".join(lines)


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench extract", description=__doc__.splitlines()[0])
    ap.add_argument("--logkb", default=os.environ.get("LOGKB", "logkb"),
                    help="the logkb command to score (default: logkb on PATH, or $LOGKB)")
    ap.add_argument("--labelled", type=Path, default=None,
                    help="a folder of labels to score instead of the shared labelled set")
    ap.add_argument("--json", action="store_true", help="print the pooled figures as JSON")
    a = ap.parse_args(argv)
    labels = a.labelled or SCORE.parents[2] / "realworld" / "labelled"
    pools = pooled(run_score(a.logkb, a.labelled), labels)
    if a.json:
        print(json.dumps(pools))
    else:
        print(table(pools))
