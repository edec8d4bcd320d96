"""``python -m bench rule-support [--logkb PATH] [--set tune|shared|both] [--check]``:
which dead-end rules hold across sessions and which are fitted to one.

For every labelled session of the set(s) it ingests the transcript into a fresh
knowledge base (as ``../shared/tools/score-labelled/score.py`` does), reads the dead
ends logkb reports with the rule that ended each (``via`` in ``deadends --json``:
``check:failed-check``, ``prose:dead-end``, ...), and sorts each by the scorer's
matching, restated here as ``bench labels-misses`` restates it (the scorer prints only
totals): ``true`` when its evidence overlaps a labelled dead end's (the scorer's
precision), ``extra`` when it overlaps none, ``matched`` when the one-to-one matching
(maximum weight, by evidence overlap) pairs it with a label (the scorer's recall).
``--check`` also runs the scorer itself, as a program, on the same set and fails when
its per-session totals differ from the ones restated here.

Per rule it prints: sessions where it fired (``fired``), true / extra / matched counts,
``tsess``: distinct sessions with at least one true hit, ``xsess``: sessions where
its extras outnumber its trues.  A rule with ``xsess`` >= 2 leaks precision on sessions
nobody tuned on (``LEAK``); one whose true hits all sit in one session is ``fitted``.
The summary line gives the share of true dead ends that come from rules with true hits
in >= 2 and >= 3 sessions.  Never run on ``heldout``: the choice is not offered.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.labels_misses import _ords, examine, labels

ROOT = Path(__file__).resolve().parents[1]


@dataclass
class Hit:
    """One reported dead end, attributed."""

    set: str
    session: str
    rule: str
    name: str
    true: bool
    matched: bool
    ordinals: list[int]


@dataclass
class Rule:
    rule: str
    fired: set[str] = field(default_factory=set)
    true: int = 0
    extra: int = 0
    matched: int = 0
    true_sessions: set[str] = field(default_factory=set)
    per_session: dict[str, list[int]] = field(default_factory=dict)
    """session: [true, extra]"""

    @property
    def extra_sessions(self) -> int:
        return sum(1 for t, x in self.per_session.values() if x > t)

    @property
    def verdict(self) -> str:
        if self.extra_sessions >= 2:
            return "LEAK"
        if len(self.true_sessions) == 1:
            return "fitted"
        if not self.true_sessions:
            return "no true"
        return ""


def attribute(logkb: str, which: str, label: Path, source: Path, tmp: Path
              ) -> tuple[list[Hit], dict[str, int]]:
    """The dead ends logkb reports on one labelled session, each with its rule and
    whether the scorer's matching counts it, and the session's totals as the scorer
    counts them."""
    sub = tmp / which
    sub.mkdir(exist_ok=True)
    r = examine(logkb, label, source, sub, with_views=False)
    dead, lab_de, labelled = r["dead"], r["lab_de"], r["labelled"]
    matched = set(r["got"].values())
    hits = [Hit(which, label.stem, str(it.get("via") or "(none)"), str(it.get("name"))[:120],
                bool(_ords(it) & labelled), m in matched, sorted(_ords(it)))
            for m, it in enumerate(dead)]
    totals = {"dead_ends": len(lab_de), "found": len(r["got"]), "reported": len(dead),
              "reported_true": sum(1 for h in hits if h.true)}
    return hits, totals


def tally(hits: Iterable[Hit]) -> list[Rule]:
    rules: dict[str, Rule] = {}
    for h in hits:
        r = rules.setdefault(h.rule, Rule(h.rule))
        where = f"{h.set}/{h.session}"
        r.fired.add(where)
        tx = r.per_session.setdefault(where, [0, 0])
        if h.true:
            r.true += 1
            r.true_sessions.add(where)
            tx[0] += 1
        else:
            r.extra += 1
            tx[1] += 1
        r.matched += h.matched
    return sorted(rules.values(), key=lambda r: (-r.true, -r.extra, r.rule))


def summary(rules: list[Rule]) -> dict[str, Any]:
    true = sum(r.true for r in rules)
    matched = sum(r.matched for r in rules)

    def share(n: int, of: str) -> float | None:
        total = true if of == "true" else matched
        got = sum(getattr(r, of) for r in rules if len(r.true_sessions) >= n)
        return round(got / total, 2) if total else None

    return {"rules": len(rules), "true": true, "extra": sum(r.extra for r in rules),
            "matched": matched,
            "true_from_2_sessions": share(2, "true"), "true_from_3_sessions": share(3, "true"),
            "matched_from_2_sessions": share(2, "matched"),
            "matched_from_3_sessions": share(3, "matched"),
            "leaks": [r.rule for r in rules if r.verdict == "LEAK"],
            "fitted": [r.rule for r in rules if r.verdict == "fitted"]}


def lines(rules: list[Rule]) -> list[str]:
    out = [f"{'rule':<30} {'fired':>5} {'true':>5} {'extra':>5} {'match':>5} {'tsess':>5} "
           f"{'xsess':>5}  note"]
    for r in rules:
        out.append(f"{r.rule[:30]:<30} {len(r.fired):>5} {r.true:>5} {r.extra:>5} "
                   f"{r.matched:>5} {len(r.true_sessions):>5} {r.extra_sessions:>5}  "
                   f"{r.verdict}")
    s = summary(rules)

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{v:.0%}"

    out.append(f"{'all':<30} {'':>5} {s['true']:>5} {s['extra']:>5} {s['matched']:>5}")
    out.append(f"true dead ends from rules with true hits in >=2 sessions: "
               f"{pct(s['true_from_2_sessions'])}, >=3: {pct(s['true_from_3_sessions'])}")
    out.append(f"matched (recall) from rules with true hits in >=2 sessions: "
               f"{pct(s['matched_from_2_sessions'])}, >=3: {pct(s['matched_from_3_sessions'])}")
    return out


def check(logkb: str, which: str, mine: dict[str, dict[str, int]]) -> list[str]:
    """Where the scorer, run as a program on the set, counts otherwise than here."""
    from bench.labels_bench import SHARED, _own_folder, _score_dir

    with tempfile.TemporaryDirectory(prefix="logkb-support-check-") as tmp:
        folder = SHARED / "realworld" / "labelled" if which == "shared" \
            else _own_folder(which, Path(tmp))
        rows = _score_dir(logkb, folder)
    out = []
    for r in rows:
        name = str(r["name"])
        if "error" in r:
            out.append(f"{which}/{name}: the scorer failed: {r['error']}")
            continue
        ours = mine.get(name)
        theirs = {k: int(str(r[k])) for k in ("dead_ends", "found", "reported", "reported_true")}
        if ours != theirs:
            out.append(f"{which}/{name}: scorer {theirs}, here {ours}")
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench rule-support",
                                 description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--logkb", default=str(ROOT / ".venv" / "bin" / "logkb"))
    ap.add_argument("--set", choices=("tune", "shared", "both"), default="both")
    ap.add_argument("--check", action="store_true",
                    help="also run the scorer and compare its per-session totals")
    ap.add_argument("--json", action="store_true",
                    help="one object per rule, then the summary")
    ap.add_argument("--hits", action="store_true",
                    help="also print every dead end: set, session, rule, true/extra, name")
    ap.add_argument("names", nargs="*", help="label stems (default: all of the set)")
    a = ap.parse_args(argv)
    sets = ("tune", "shared") if a.set == "both" else (a.set,)
    hits: list[Hit] = []
    totals: dict[str, dict[str, dict[str, int]]] = {}
    with tempfile.TemporaryDirectory(prefix="logkb-support-") as tmp:
        for which in sets:
            for lp, sp in labels(which):
                if a.names and lp.stem not in a.names:
                    continue
                try:
                    got, tot = attribute(a.logkb, which, lp, sp, Path(tmp))
                except Exception as exc:  # noqa: BLE001 - one bad session is a line
                    print(f"logkb: error: {which}/{lp.stem}: {str(exc)[:200]}", file=sys.stderr)
                    continue
                hits += got
                totals.setdefault(which, {})[lp.stem] = tot
    rules = tally(hits)
    if a.json:
        for r in rules:
            d = asdict(r)
            d.update(fired=len(r.fired), true_sessions=len(r.true_sessions),
                     extra_sessions=r.extra_sessions, verdict=r.verdict)
            print(json.dumps(d))
        print(json.dumps({"summary": summary(rules)}))
    else:
        if a.hits:
            for h in hits:
                kind = "MATCH" if h.matched else "true " if h.true else "EXTRA"
                print(f"{h.set[:1]} {h.session[:22]:<22} {h.rule[:24]:<24} {kind} "
                      f"{h.name[:23]}")
        for line in lines(rules):
            print(line)
    if a.check:
        bad = [x for which in sets for x in check(a.logkb, which, totals.get(which, {}))
               if not a.names or x.split("/", 1)[1].split(":", 1)[0] in a.names]
        for x in bad:
            print(f"logkb: error: {x}", file=sys.stderr)
        if bad:
            sys.exit(1)
        print("the scorer's totals agree with the attribution", file=sys.stderr)


if __name__ == "__main__":
    main(sys.argv[1:])
