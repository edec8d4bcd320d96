"""``python -m bench loso-metrics [--logkb PATH] [--set tune|shared|both] [--json]
[--families]``: leave-one-session-out recall of the labelled measurements, and each
measurement family's extras across sessions.

Each labelled session of the set(s) is ingested into a store of its own and its labels'
ordinals mapped the way ``bench labels-metrics`` (and ``score.py``) map them; a labelled
metric is *found* when an event within one message carries a measurement of its value.
The measurement that found it names its **family**: where it was read (the tool whose
output it came from, ``bash``, ``read``, ``webfetch``, ...; or the event's kind for prose,
``text``, ``stat``, ``retry``) and its canonical unit (``passed``, ``s``, ``HTTP``,
``lines``).  A family is the nearest thing to a rule the events show: the rules are
generic per shape, so a family true in one session only is a shape only that session has
(or a rule fitted to it).

Then, for each session, *leave it out*: a found metric counts only when its family also
finds a labelled metric in at least one **other** session (``loso``).  Per family
(``--families``) it prints the sessions where it finds a labelled value (``tsess``), its
true hits, its *extras* (measurements at ordinals where no labelled metric within one
message has the value: not all wrong, the labels are not exhaustive) and ``xsess``, the
sessions where its extras outnumber its trues.  ``fitted`` marks a family whose true hits
all sit in one session.  Never run on ``heldout``: the choice is not offered.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from collections import Counter, defaultdict
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.labels_bench import agent_of
from bench.labels_metrics import Store, _num, label_paths

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 80


def family(event: dict[str, Any], unit: str) -> str:
    """``source:unit``: the tool whose output held the reading, else the event's kind."""
    src = event.get("tool") or event.get("kind") or "?"
    return f"{src}:{unit or '-'}"


def examine(logkb: list[str], label_path: Path, src: Path, tmp: Path) -> dict[str, Any]:
    """One session: each labelled metric with the family that found it (or None), and
    the extras per family."""
    lab = json.loads(label_path.read_text())
    store = Store(logkb, src, tmp)
    sid = lab.get("session_id")
    at = store.line_map(sid) if any("lines" in dl for dl in lab["dead_ends"]) else (
        lambda o, ln: o)
    got: dict[int, dict[float, str]] = {}
    every: list[tuple[int, float, str]] = []
    for e in store.events(sid):
        o = e.get("ordinal")
        if not isinstance(o, int):
            continue
        for mm in e.get("measurements") or []:
            v = _num(mm.get("value") if isinstance(mm, dict) else mm)
            if v is None:
                continue
            fam = family(e, str(mm.get("unit", "")) if isinstance(mm, dict) else "")
            got.setdefault(o, {}).setdefault(round(v, 3), fam)
            every.append((o, round(v, 3), fam))
    mets = [m for m in lab.get("metrics", []) if _num(m.get("value")) is not None]
    rows, covered = [], set()
    for m in mets:
        o = at(m["ordinal"], m.get("line"))
        v = round(float(_num(m["value"]) or 0), 3)
        fam = next((got[o + k][v] for k in (0, -1, 1) if v in got.get(o + k, {})), None)
        covered.update((o + k, v) for k in (-1, 0, 1))
        rows.append({"ordinal": o, "value": m["value"], "unit": m.get("unit", ""),
                     "label": m.get("label", ""), "family": fam})
    extras = Counter(f for o, v, f in dict.fromkeys(every) if (o, v) not in covered)
    return {"name": f"{label_path.parent.name}/{label_path.stem}", "agent": agent_of(lab),
            "metrics": rows, "extras": dict(extras)}


def loso(sessions: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Per session ``(n, found, loso)``, and per family its support."""
    where: dict[str, set[str]] = defaultdict(set)
    trues: Counter[str] = Counter()
    for s in sessions:
        for m in s["metrics"]:
            if m["family"]:
                where[m["family"]].add(s["name"])
                trues[m["family"]] += 1
    rows = []
    for s in sessions:
        found = [m for m in s["metrics"] if m["family"]]
        kept = [m for m in found if where[m["family"]] - {s["name"]}]
        rows.append({"name": s["name"], "agent": s["agent"], "n": len(s["metrics"]),
                     "found": len(found), "loso": len(kept),
                     "fitted": sorted({m["family"] for m in found} - {m["family"] for m in kept})})
    fams: dict[str, Any] = {}
    for f in sorted(set(where) | {f for s in sessions for f in s["extras"]}):
        per = {s["name"]: (sum(1 for m in s["metrics"] if m["family"] == f),
                           s["extras"].get(f, 0)) for s in sessions}
        fams[f] = {"tsess": len(where[f]), "true": trues[f],
                   "extra": sum(x for _, x in per.values()),
                   "xsess": sum(1 for t, x in per.values() if x > t)}
    return rows, fams


def table(rows: list[dict[str, Any]]) -> list[str]:
    out = [f"{'session':40} {'agent':11} {'n':>4} {'found':>5} {'loso':>5}"]
    for r in rows:
        out.append(f"{r['name'][:40]:40} {r['agent'][:11]:11} {r['n']:>4} {r['found']:>5} "
                   f"{r['loso']:>5}")
        if r["fitted"]:
            out.append(f"  only here: {', '.join(r['fitted'])}"[:WIDTH])
    for agent in sorted({r["agent"] for r in rows}) + ["all"]:
        sel = [r for r in rows if agent in ("all", r["agent"])]
        n = sum(r["n"] for r in sel)
        f = sum(r["found"] for r in sel)
        k = sum(r["loso"] for r in sel)
        out.append(f"{'pooled ' + agent:52} {n:>4} {f / n if n else 0:>5.2f} "
                   f"{k / n if n else 0:>5.2f}")
    return out


def fam_table(fams: dict[str, Any]) -> list[str]:
    out = [f"{'family (source:unit)':36} {'tsess':>5} {'true':>5} {'extra':>6} {'xsess':>5}"]
    for f, d in sorted(fams.items(), key=lambda kv: (-kv[1]["true"], -kv[1]["extra"])):
        mark = " fitted" if d["tsess"] == 1 else (" LEAK" if d["xsess"] >= 2 and
                                                   d["extra"] > d["true"] else "")
        out.append(f"{f[:36]:36} {d['tsess']:>5} {d['true']:>5} {d['extra']:>6} "
                   f"{d['xsess']:>5}{mark}")
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench loso-metrics",
                                 description="Leave-one-session-out recall of the labelled "
                                 "measurements, and each family's extras.")
    ap.add_argument("--set", choices=("tune", "shared", "both"), default="both")
    ap.add_argument("--logkb", help="the logkb command (default: this tree's `python -m kb`)")
    ap.add_argument("--families", action="store_true", help="print each family's support")
    ap.add_argument("--json", action="store_true", help="one object per session, then families")
    ap.add_argument("--jobs", type=int, default=2, help="sessions ingested at once")
    a = ap.parse_args(argv)
    logkb = [a.logkb] if a.logkb else [sys.executable, "-P", "-m", "kb"]
    if not a.logkb:
        os.environ["PYTHONPATH"] = str(ROOT)
    sets = ("tune", "shared") if a.set == "both" else (a.set,)
    pairs = [p for s in sets for p in label_paths(s)]
    with tempfile.TemporaryDirectory(prefix="logkb-loso-metrics-") as tmp:
        def one(i_pair: tuple[int, tuple[Path, Path]]) -> dict[str, Any]:
            i, (lab, src) = i_pair
            d = Path(tmp) / str(i)
            d.mkdir()
            return examine(logkb, lab, src, d)
        with ThreadPoolExecutor(max(1, a.jobs)) as ex:
            sessions = list(ex.map(one, enumerate(pairs)))
    rows, fams = loso(sessions)
    if a.json:
        for s, r in zip(sessions, rows):
            print(json.dumps({**r, "metrics": s["metrics"], "extras": s["extras"]}))
        print(json.dumps({"families": fams}))
        return
    print("\n".join(table(rows)))
    if a.families:
        print()
        print("\n".join(fam_table(fams)))


if __name__ == "__main__":
    main(sys.argv[1:])
