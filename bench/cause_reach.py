"""``python -m bench cause-reach [--logkb PATH] [--set tune|shared|both] [--json]``:
where each matched labelled dead end's cause keywords lie, to tell a cause choice that
could be right from one no choice of the text can make right.

Each labelled session is ingested as ``bench loso`` does
(:func:`bench.labels_misses.prepare`); its reported dead ends are paired with the
labelled ones by the scorer's matching.  For each matched labelled dead end, a keyword of
its cause (``cause_keywords``, as ``../shared/tools/score-labelled/score.py`` judges) is
looked for in the three texts issue 22 names as a cause:

* ``error``: an error line (:data:`bench.labels_misses._ERR`, ANSI stripped) of a tool
  result in the labelled evidence span;
* ``user``: the user's words in the span or the :data:`USER_AFTER` messages after it;
* ``root``: a sentence of the agent that states a root
  (:func:`kb.graph.rootcause.root_tier`) in the span or the
  :data:`kb.graph.rootcause.LATER` messages after it.

A wrong cause whose keywords are in none of them is out of reach of any choice among
those texts: the label's cause is the labeller's reading (or the agent said it in passing,
hedged, in another language).  Never run on ``heldout``: the choice is not offered.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

from bench.labels_misses import _ERR, _cause_right, _run, labels, match, prepare, reported
from bench.loso_bench import cause_kind
from kb.graph.rootcause import LATER, root_tier
from logparse.sentences import split_sentences

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 80
USER_AFTER = 2
"""Messages after a labelled span in which the user's words may still be its cause."""
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


def reach(keywords: Iterable[str], events: Iterable[dict[str, Any]], lo: int, hi: int
          ) -> frozenset[str]:
    """Which of ``error``, ``user``, ``root`` hold a keyword for a labelled dead end
    whose evidence spans ordinals ``lo`` to ``hi`` (``events``: rows with ``ordinal``,
    ``role``, ``kind``, ``output``, ``text``)."""
    kws = [k.lower() for k in keywords if k]
    found: set[str] = set()

    def has(text: str) -> bool:
        t = text.lower()
        return any(k in t for k in kws)

    for e in events:
        o = int(e["ordinal"])
        if e.get("kind") == "result":
            if lo <= o <= hi and any(_ERR.search(ln) and has(ln) for ln in
                                     _ANSI.sub("", e.get("output") or "").splitlines()):
                found.add("error")
        elif e.get("role") == "user":
            if lo <= o <= hi + USER_AFTER and has(e.get("text") or ""):
                found.add("user")
        elif e.get("role") == "assistant" and lo <= o <= hi + LATER:
            if any(has(s) and root_tier(s) for s in split_sentences(e.get("text") or "")):
                found.add("root")
    return frozenset(found)


def session(logkb: str, which: str, label: Path, source: Path, tmp: Path
            ) -> list[dict[str, Any]]:
    """One row per matched labelled dead end of a session."""
    sub = tmp / which
    sub.mkdir(exist_ok=True)
    lab, env, scope, _, lab_de = prepare(logkb, label, source, sub)
    dead = reported(logkb, env, scope)
    got = match(lab_de, dead)
    sid = lab.get("session_id")
    where = f" where session_id = '{sid}'" if sid else ""
    out = _run(logkb, env, "query", "--json",
               "select ordinal, role, kind, coalesce(output, '') as output, "
               f"coalesce(text, '') as text from events{where} order by ordinal, seq")
    events = [json.loads(ln) for ln in out.splitlines() if ln.strip()]
    rows = []
    for n, m in sorted(got.items()):
        dl, it = lab["dead_ends"][n], dead[m]
        span = lab_de[n]
        rows.append({"session": f"{which}/{label.stem}", "name": str(dl.get("name"))[:120],
                     "keywords": dl.get("cause_keywords") or [],
                     "choice": f"{str(it.get('via') or '(none)').split(':', 1)[0]}/"
                               f"{cause_kind(it)}",
                     "right": _cause_right(dl, it),
                     "reach": sorted(reach(dl.get("cause_keywords") or [], events,
                                           min(span), max(span))),
                     "cause": str(it.get("cause") or "")[:160]})
    return rows


def tabulate(rows: list[dict[str, Any]]) -> list[tuple[str, int, int]]:
    """``(where, right, wrong)`` per combination of places a keyword lies."""
    c: Counter[tuple[str, bool]] = Counter()
    for r in rows:
        c[("+".join(r["reach"]) or "nowhere", bool(r["right"]))] += 1
    keys = sorted({k for k, _ in c}, key=lambda k: (-(c[(k, True)] + c[(k, False)]), k))
    return [(k, c[(k, True)], c[(k, False)]) for k in keys]


def lines(rows: list[dict[str, Any]]) -> list[str]:
    out = [f"{'keyword lies in':<24} {'right':>5} {'wrong':>5}"]
    for k, right, wrong in tabulate(rows):
        out.append(f"{k:<24} {right:>5} {wrong:>5}")
    out.append("")
    out.append("wrong causes (session, choice, keywords: where)")
    for r in rows:
        if r["right"]:
            continue
        out.append(f"  {r['session'][-28:]} {r['choice']} {r['keywords']}: "
                   f"{'+'.join(r['reach']) or 'nowhere'}"[:WIDTH])
        out.append(f"    got {r['cause']}"[:WIDTH])
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench cause-reach",
                                 description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--logkb", default=str(ROOT / ".venv" / "bin" / "logkb"))
    ap.add_argument("--set", choices=("tune", "shared", "both"), default="both")
    ap.add_argument("--jobs", type=int, default=2, help="sessions ingested at once")
    ap.add_argument("--json", action="store_true", help="one object per matched dead end")
    a = ap.parse_args(argv)
    sets = ("tune", "shared") if a.set == "both" else (a.set,)
    rows: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory(prefix="logkb-reach-") as tmp:
        for s in sets:
            def one(p: tuple[Path, Path], s: str = s) -> list[dict[str, Any]]:
                try:
                    return session(a.logkb, s, p[0], p[1], Path(tmp))
                except Exception as exc:  # noqa: BLE001 - one bad session is a line
                    print(f"logkb: error: {s}/{p[0].stem}: {str(exc)[:200]}",
                          file=sys.stderr)
                    return []

            with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
                for got in pool.map(one, labels(s)):
                    rows.extend(got)
    if a.json:
        for r in rows:
            print(json.dumps(r))
        return
    for line in lines(rows):
        print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
