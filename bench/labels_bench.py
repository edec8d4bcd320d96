"""``python -m bench labels [--logkb PATH] [--set tune|heldout|shared|all]``: extraction
scored on hand labels, pooled per label set and per agent.

Three sets: ``shared`` is ``../shared/realworld/labelled/`` (the project's tuning set),
``tune`` and ``heldout`` are the blind labels of pool sessions kept in
``fixtures/labels/`` (written by a labeller who saw only the transcript and the schema,
checked by a second one).  Rules are tuned on ``shared`` and ``tune`` only; ``heldout``
measures whether they generalise.

The scoring itself is ``../shared/tools/score-labelled/score.py``, run as a program: it
shares no code with logkb.  For our own labels it runs on a temporary folder laid out like
``labelled/`` (the label beside a link to its pool transcript).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
SCORER = SHARED / "tools" / "score-labelled" / "score.py"
POOL = SHARED / "realworld" / "pool"
OWN = ROOT / "fixtures" / "labels"


def agent_of(label: dict[str, object]) -> str:
    fmt = str(label.get("format", "")).lower()
    name = str(label.get("file", "")).lower()
    for agent, marks in (("antigravity", ("antigravity",)), ("gemini-cli", ("gemini-cli",)),
                         ("pi", ("pi-coding-agent",))):
        if any(m in fmt for m in marks):
            return agent
    if "codex" in fmt or "codex" in name:
        return "codex"
    if "claude" in fmt or "claude" in name or name.endswith(".jsonl"):
        return "claude-code"
    return "opencode"


def _score_dir(logkb: str, labelled: Path) -> list[dict[str, object]]:
    """Run the scorer on a folder laid out like ``labelled/`` (a private copy of the
    scorer sits in the folder's ``tools/`` so that its relative path finds it)."""
    with tempfile.TemporaryDirectory(prefix="logkb-labels-") as tmp:
        top = Path(tmp)
        tool = top / "tools" / "score-labelled"
        tool.mkdir(parents=True)
        shutil.copy(SCORER, tool / "score.py")
        (top / "realworld").mkdir()
        os.symlink(labelled, top / "realworld" / "labelled")
        p = subprocess.run([sys.executable, str(tool / "score.py"), "--logkb", logkb, "--json"],
                           capture_output=True, text=True, check=False)
        if p.returncode != 0:
            raise SystemExit(f"bench labels: the scorer failed: {p.stderr.strip()[-400:]}")
        return [json.loads(x) for x in p.stdout.splitlines() if x.strip()]


def _own_folder(which: str, tmp: Path) -> Path:
    """Our labels of set ``which`` beside links to their pool transcripts."""
    out = tmp / which
    out.mkdir()
    for lab in sorted((OWN / which).glob("*.json")):
        data = json.loads(lab.read_text())
        src = POOL / str(data["file"])
        if src.name == lab.name:  # the scorer would read the label as the transcript
            raise SystemExit(f"bench labels: rename {lab}: it has its transcript's name")
        shutil.copy(lab, out / lab.name)
        if not (out / src.name).exists():
            os.symlink(src, out / src.name)
    return out


def _label_agents(folder: Path) -> dict[str, str]:
    return {p.stem: agent_of(json.loads(p.read_text())) for p in folder.glob("*.json")
            if "file" in json.loads(p.read_text())}


def pooled(rows: list[dict[str, object]]) -> dict[str, float | None]:
    def tot(k: str) -> int:
        return sum(int(r.get(k, 0)) for r in rows if "error" not in r)  # type: ignore[call-overload]

    def ratio(a: str, b: str) -> float | None:
        return round(tot(a) / tot(b), 2) if tot(b) else None

    return {"sessions": len(rows), "dead_ends": tot("dead_ends"), "recall": ratio("found", "dead_ends"),
            "precision": ratio("reported_true", "reported"), "causes": ratio("causes_right", "found"),
            "untested": ratio("untested_found", "untested"),
            "measurements": ratio("measurements_found", "measurements"),
            "traps": ratio("traps_reported", "traps")}


def table(name: str, rows: list[dict[str, object]], agents: dict[str, str]) -> list[str]:
    out = []
    groups: dict[str, list[dict[str, object]]] = {"all": rows}
    for r in rows:
        groups.setdefault(agents.get(str(r["name"]), "?"), []).append(r)
    for g, rs in groups.items():
        p = pooled(rs)

        def f(v: object) -> str:
            return "-" if v is None else f"{v:.2f}"

        out.append(f"{name:8} {g:12} {p['sessions']:>3} {p['dead_ends']:>4} {f(p['recall']):>6} "
                   f"{f(p['precision']):>6} {f(p['causes']):>6} {f(p['untested']):>6} "
                   f"{f(p['measurements']):>6} {f(p['traps']):>6}")
    errors = [r for r in rows if "error" in r]
    out += [f"  error in {r['name']}: {r['error']}" for r in errors]
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench labels", description=__doc__.splitlines()[0])
    ap.add_argument("--logkb", default=str(ROOT / ".venv" / "bin" / "logkb"))
    ap.add_argument("--set", choices=("shared", "tune", "heldout", "all"), default="all")
    ap.add_argument("--json", action="store_true", help="one object per session")
    a = ap.parse_args(argv)
    sets = ("shared", "tune", "heldout") if a.set == "all" else (a.set,)
    print(f"{'set':8} {'agent':12} {'n':>3} {'DE':>4} {'recall':>6} {'prec':>6} {'cause':>6} "
          f"{'untest':>6} {'measur':>6} {'traps':>6}")
    with tempfile.TemporaryDirectory(prefix="logkb-own-") as tmp:
        for s in sets:
            folder = SHARED / "realworld" / "labelled" if s == "shared" else _own_folder(s, Path(tmp))
            rows = _score_dir(a.logkb, folder)
            if a.json:
                for r in rows:
                    print(json.dumps({"set": s, **r}))
                continue
            for line in table(s, rows, _label_agents(folder)):
                print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
