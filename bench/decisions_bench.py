"""``python -m bench decisions [--logkb PATH] [--set shared|tune] [--dump]``: decision
events scored on the hand labels' ``decisions[]``.

A decision event is what a user sees as one: an event of ``logkb events --json`` whose
``classification`` is ``decision`` (the agent's prose, a user's direction-setting prompt).
Recall: labelled decision ordinals (Claude Code / Codex ``decision_lines`` mapped through
``messages.raw $.lines`` as the shared scorer does) with a decision event within one
ordinal.  Firings: decision events (one per ordinal); ``off`` = those more than one ordinal
from any labelled decision (a label names only *key* decisions, so ``off`` is an upper
bound on false firings: ``--dump`` prints them to judge by hand).

Held-out sets are refused: the coordinator measures them.
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

from bench.labels_bench import OWN, POOL, agent_of
from bench.labels_misses import LABELLED, _run


def _labels(which: str) -> list[tuple[str, dict[str, object], Path]]:
    if which == "shared":
        out = []
        for lab in sorted(LABELLED.glob("*.json")):
            d = json.loads(lab.read_text())
            if isinstance(d, dict) and "file" in d:
                out.append((lab.stem, d, LABELLED / str(d["file"])))
        return out
    return [(lab.stem, d, POOL / str(d["file"])) for lab in sorted((OWN / which).glob("*.json"))
            for d in [json.loads(lab.read_text())]]


def _line_map(logkb: str, env: dict[str, str], sid: str | None) -> dict[int, int]:
    where = f"where session_id = '{sid}'" if sid else ""
    out = _run(logkb, env, "query", "select ordinal, json_extract(raw, '$.lines') as lines "
               f"from messages {where}", "--json")
    m: dict[int, int] = {}
    for x in out.splitlines():
        if not x.strip():
            continue
        r = json.loads(x)
        ls = r.get("lines")
        for ln in (json.loads(ls) if isinstance(ls, str) else ls) or []:
            m.setdefault(int(ln), int(r["ordinal"]))
    return m


def score(logkb: str, name: str, lab: dict[str, object], src: Path,
          tmp: Path) -> dict[str, object]:
    d = tmp / name
    d.mkdir()
    copy = shutil.copy(src, d)
    for extra in ("-wal", "-shm"):  # an opencode .db with its journal
        if Path(str(src) + extra).exists():
            shutil.copy(str(src) + extra, d)
    env = dict(os.environ, LOGKB_DB=str(d / "kb.duckdb"), LOGKB_HOME=str(d), NO_COLOR="1")
    _run(logkb, env, "ingest", str(copy))
    sid = lab.get("session_id")
    scope = ["--session", str(sid)] if sid else []
    decs = [int(o) for o in lab.get("decisions") or []]  # type: ignore[attr-defined]
    lines = lab.get("decision_lines")
    if isinstance(lines, list) and len(lines) == len(decs):
        m = _line_map(logkb, env, str(sid) if sid else None)
        decs = [o if ln is None else m.get(int(ln), o) for o, ln in zip(decs, lines)]
    ev = [json.loads(x) for x in _run(logkb, env, "events", *scope, "--json").splitlines()
          if x.strip()]
    fired: dict[int, dict[str, object]] = {}
    for e in ev:
        if e.get("classification") == "decision" and e.get("source") != "synthetic":
            fired.setdefault(int(e["ordinal"]), e)
    near = {o + k for o in decs for k in (-1, 0, 1)}
    found = [o for o in decs if any(o + k in fired for k in (-1, 0, 1))]
    off = {o: e for o, e in fired.items() if o not in near}
    return {"name": name, "agent": agent_of(lab), "decisions": len(decs), "found": len(found),
            "fired": len(fired), "on": len(fired) - len(off),
            "firings": [{"ordinal": o, "kind": e.get("kind"), "on": o in near,
                         "text": str(e.get("text") or "")[:300]}
                        for o, e in sorted(fired.items())]}


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench decisions",
                                 description=__doc__.splitlines()[0])
    ap.add_argument("--logkb", default=str(Path(sys.executable).parent / "logkb"))
    ap.add_argument("--set", choices=("shared", "tune"), action="append")
    ap.add_argument("--dump", action="store_true", help="print every firing (to judge)")
    ap.add_argument("--json", action="store_true", help="one object per session")
    a = ap.parse_args(argv)
    sets = a.set or ["shared", "tune"]
    print(f"{'set':6} {'session':30} {'agent':11} {'dec':>4} {'found':>5} {'recall':>6} "
          f"{'fired':>5} {'off':>4}")
    with tempfile.TemporaryDirectory(prefix="logkb-dec-") as t:
        for s in sets:
            rows = []
            for name, lab, src in _labels(s):
                try:
                    r = score(a.logkb, name, lab, src, Path(t))
                except (RuntimeError, OSError, subprocess.TimeoutExpired) as e:
                    print(f"  error in {name}: {e}", file=sys.stderr)
                    continue
                rows.append(r)
                if a.json:
                    print(json.dumps({"set": s, **r}))
                    continue
                rec = (f"{int(r['found']) / int(r['decisions']):.2f}"  # type: ignore[call-overload]
                       if r["decisions"] else "-")
                print(f"{s:6} {name[:30]:30} {str(r['agent'])[:11]:11} {r['decisions']:>4} "
                      f"{r['found']:>5} {rec:>6} {r['fired']:>5} "
                      f"{int(r['fired']) - int(r['on']):>4}")  # type: ignore[call-overload]
                if a.dump:
                    for f in r["firings"]:  # type: ignore[attr-defined]
                        mark = "+" if f["on"] else "?"
                        txt = " ".join(f["text"].split())[:60]
                        print(f"  {mark} {f['ordinal']:>4} {f['kind'][:8]:8} {txt}")
            if not a.json:
                tot = {k: sum(int(r[k]) for r in rows)  # type: ignore[call-overload]
                       for k in ("decisions", "found", "fired", "on")}
                rec = f"{tot['found'] / tot['decisions']:.2f}" if tot["decisions"] else "-"
                print(f"{s:6} {'ALL':30} {'':11} {tot['decisions']:>4} {tot['found']:>5} "
                      f"{rec:>6} {tot['fired']:>5} {tot['fired'] - tot['on']:>4}")


if __name__ == "__main__":
    main(sys.argv[1:])
