"""``python -m bench ablate [--logkb PATH] [--set tune|shared|both] [--json]``: what each
family of dead-end rules carries, measured by switching it off.

The dead-end rules fall into families by what they read (:mod:`kb.graph.ablate`):
``structural`` (calls and results), ``user-acts`` (what the user did: a refused or stopped
call, work taken back right after the user spoke), ``user-cues`` (what the user said),
``prose`` (the agent's own sentences), ``delegated`` and ``rewound``.  Each labelled
session of the set(s) is ingested once into a fresh knowledge base (as
``../shared/tools/score-labelled/score.py`` does); then its knowledge graph is derived
again (``logkb rebuild --graph``) with everything on, with each family switched off in
turn (``LOGKB_ABLATE=FAMILY``, read only by the extractor for this bench), and with
only ``structural`` on.  Each time the reported dead ends are matched one-to-one with
the labelled ones by evidence overlap (the scorer's matching, restated as
``bench labels-misses`` restates it).

Per family it prints: ``only``, the labelled dead ends found with everything on and
lost when the family is off (what nothing else finds); ``extras``, the reported dead
ends that match no label which go away with it; ``tsess``, the sessions where one of its
rules' dead ends is true; and recall / precision with it off.  The ``alone`` row is
``structural`` with every other family off; ``no-phrases`` has only the families that
read words off (``user-cues``, ``prose``): what structure finds, the agent's and the
user's acts included.  Last, *leave one session out*: the recall
counting only the matches of rules whose true hits span two sessions or more (a rule
that holds in one session only may be fitted to it); then per agent (read from each
session's knowledge base) the recall all on, leave-one-session-out (rules true in two
sessions of the set, and in two of that agent's), structural alone and with no phrases.  Never run on ``heldout``: the choice is not offered.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.labels_misses import _items, _ords, _run, labels, match, prepare, reported
from kb.graph.ablate import ENV, FAMILIES, family_of

ROOT = Path(__file__).resolve().parents[1]

FULL = "full"
ALONE = "alone"
"""The configuration with only ``structural`` on."""
NO_PHRASES = "no-phrases"
"""The configuration with the families that read words (``user-cues``, ``prose``) off:
every rule that reads structure (calls, results, the user's acts, sub-agents, rewinds)."""
PHRASES = ("user-cues", "prose")


def configs() -> dict[str, str]:
    """Configuration name: the value of ``LOGKB_ABLATE``."""
    out = {FULL: ""}
    out.update({fam: fam for fam in FAMILIES})
    out[ALONE] = ",".join(f for f in FAMILIES if f != "structural")
    out[NO_PHRASES] = ",".join(PHRASES)
    return out


@dataclass
class Run:
    """One session under one configuration."""

    reported: int
    true: int
    matched: set[int]
    """Indices of the labelled dead ends the matching pairs."""
    hits: list[tuple[str, bool, bool]] = field(default_factory=list)
    """``(via, true, matched)`` of each reported dead end."""
    agent: str = ""
    """The agent that wrote the session."""


def session(logkb: str, label: Path, source: Path, tmp: Path,
            which: dict[str, str]) -> tuple[int, dict[str, Run]]:
    """The labelled dead ends of one session, and its run under each configuration."""
    _, env, scope, _, lab_de = prepare(logkb, label, source, tmp, drop=(ENV,))
    labelled = set().union(*lab_de) if lab_de else set()
    agent = next((str(r.get("agent")) for r in _items(_run(
        logkb, env, "query", "select agent from sessions where parent_id is null "
        "order by agent limit 1", "--json")) if r.get("agent")), "")
    runs: dict[str, Run] = {}
    for name, switch in which.items():
        if FULL in runs and not set(switch.split(",")) & {
                family_of(v.split(":")[0]) for v, _, _ in runs[FULL].hits}:
            # no dead end of everything-on came from a family it switches off: those
            # rules found nothing, hid nothing, so the run is everything-on's
            runs[name] = runs[FULL]
            continue
        e = dict(env, **{ENV: switch}) if switch else env
        _run(logkb, e, "rebuild", "--graph", *scope)
        dead = reported(logkb, e, scope)
        got = match(lab_de, dead)
        paired = set(got.values())
        hits = [(str(it.get("via") or "(none)"), bool(_ords(it) & labelled), m in paired)
                for m, it in enumerate(dead)]
        runs[name] = Run(len(dead), sum(1 for h in hits if h[1]), set(got), hits, agent)
    return len(lab_de), runs


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 2) if b else None


def tabulate(results: dict[str, tuple[int, dict[str, Run]]]) -> dict[str, Any]:
    """Per family: only / extras / tsess / recall and precision with it off; the
    leave-one-session-out recall; the full and structural-alone scores."""
    total = sum(n for n, _ in results.values())

    def score(cfg: str) -> tuple[float | None, float | None, int, int, int]:
        found = sum(len(r[cfg].matched) for _, r in results.values())
        rep = sum(r[cfg].reported for _, r in results.values())
        tru = sum(r[cfg].true for _, r in results.values())
        return _ratio(found, total), _ratio(tru, rep), found, rep, tru

    fams: dict[str, dict[str, Any]] = {}
    for fam in list(FAMILIES) + [ALONE, NO_PHRASES]:
        only = sum(len(r[FULL].matched - r[fam].matched) for _, r in results.values())
        gained = sum(len(r[fam].matched - r[FULL].matched) for _, r in results.values())
        extras = sum((r[FULL].reported - r[FULL].true) - (r[fam].reported - r[fam].true)
                     for _, r in results.values())
        mine = {"structural"} if fam == ALONE else \
            set(FAMILIES) - set(PHRASES) if fam == NO_PHRASES else {fam}
        tsess = sorted(name for name, (_, r) in results.items()
                       if any(t and family_of(v.split(":")[0]) in mine
                              for v, t, _ in r[FULL].hits))
        rec, prec, found, rep, tru = score(fam)
        fams[fam] = {"only": only, "gained_when_off": gained, "extras": extras,
                     "tsess": len(tsess), "true_sessions": tsess, "recall_off": rec,
                     "precision_off": prec, "found_off": found, "reported_off": rep,
                     "true_off": tru}
    # leave one session out: a rule counts only where its true hits span >= 2 sessions
    spans: dict[str, set[str]] = {}
    for name, (_, r) in results.items():
        for via, true, _ in r[FULL].hits:
            if true:
                spans.setdefault(via.split(":")[0], set()).add(name)
    held = {rule for rule, ss in spans.items() if len(ss) >= 2}
    kept = sum(1 for _, r in results.values() for via, _, m in r[FULL].hits
               if m and via.split(":")[0] in held)
    one = sorted(rule for rule, ss in spans.items() if len(ss) == 1)
    rec, prec, found, rep, tru = score(FULL)
    agents: dict[str, dict[str, Any]] = {}
    for n, r in results.values():
        a = agents.setdefault(r[FULL].agent or "?", {
            "dead_ends": 0, "loso_found": 0, "found": 0, "alone_found": 0,
            "no_phrases_found": 0})
        a["dead_ends"] += n
        a["found"] += len(r[FULL].matched)
        a["alone_found"] += len(r[ALONE].matched)
        a["no_phrases_found"] += len(r[NO_PHRASES].matched)
        a["loso_found"] += sum(1 for via, _, m in r[FULL].hits
                               if m and via.split(":")[0] in held)
    for who, a in agents.items():
        # leave one session out among this agent's sessions only: a rule counts where its
        # true hits span two of them (the pooled figure lets another agent's session vouch)
        own: dict[str, set[str]] = {}
        for name, (_, r) in results.items():
            if (r[FULL].agent or "?") == who:
                for via, true, _ in r[FULL].hits:
                    if true:
                        own.setdefault(via.split(":")[0], set()).add(name)
        a["agent_loso_found"] = sum(
            1 for _, r in results.values() if (r[FULL].agent or "?") == who
            for via, _, m in r[FULL].hits if m and len(own.get(via.split(":")[0], ())) >= 2)
        for k in ("loso", "agent_loso", "alone", "no_phrases"):
            a[f"{k}_recall"] = _ratio(a[f"{k}_found"], a["dead_ends"])
        a["recall"] = _ratio(a["found"], a["dead_ends"])
    return {"sessions": len(results), "dead_ends": total,
            "full": {"recall": rec, "precision": prec, "found": found, "reported": rep,
                     "true": tru},
            "families": fams, "loso_recall": _ratio(kept, total), "loso_found": kept,
            "one_session_rules": one, "agents": dict(sorted(agents.items())),
            "rules": {rule: len(ss) for rule, ss in sorted(spans.items())}}


def lines(name: str, t: dict[str, Any]) -> list[str]:
    def f(v: float | None) -> str:
        return "-" if v is None else f"{v:.2f}"

    full = t["full"]
    out = [f"{name}: {t['sessions']} sessions, {t['dead_ends']} labelled dead ends; "
           f"all on: recall {f(full['recall'])}, precision {f(full['precision'])}",
           f"{'family off':<12} {'only':>5} {'extras':>6} {'tsess':>5} {'recall':>6} "
           f"{'prec':>6} {'found':>5} {'report':>6}"]
    for fam, r in t["families"].items():
        label = "structural*" if fam == ALONE else "no-phrases*" if fam == NO_PHRASES \
            else fam
        out.append(f"{label:<12} {r['only']:>5} {r['extras']:>6} {r['tsess']:>5} "
                   f"{f(r['recall_off']):>6} {f(r['precision_off']):>6} "
                   f"{r['found_off']:>5} {r['reported_off']:>6}")
    out.append("structural*: structural alone (every other family off; 'only' = what")
    out.append("  the others find that structure does not)")
    out.append("no-phrases*: the families that read words (user-cues, prose) off")
    out.append(f"leave-one-session-out recall (rules with true hits in >=2 sessions): "
               f"{f(t['loso_recall'])} ({t['loso_found']}/{t['dead_ends']})")
    if t["agents"]:
        out.append(f"{'agent':<12} {'labels':>6} {'recall':>6} {'loso':>6} {'own':>6} "
                   f"{'alone':>6} {'no-phr':>6}")
        for name, a in t["agents"].items():
            out.append(f"{name:<12} {a['dead_ends']:>6} {f(a['recall']):>6} "
                       f"{f(a['loso_recall']):>6} {f(a['agent_loso_recall']):>6} "
                       f"{f(a['alone_recall']):>6} {f(a['no_phrases_recall']):>6}")
        out.append("loso: rules true in >=2 sessions of the set; own: in >=2 of the agent's")
    if t["one_session_rules"]:
        out.append("rules true in one session only: " + ", ".join(t["one_session_rules"]))
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench ablate",
                                 description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--logkb", default=str(ROOT / ".venv" / "bin" / "logkb"))
    ap.add_argument("--set", choices=("tune", "shared", "both"), default="both")
    ap.add_argument("--jobs", type=int, default=2, help="sessions derived at once")
    ap.add_argument("--json", action="store_true", help="one object per set")
    ap.add_argument("names", nargs="*", help="label stems (default: all of the set)")
    a = ap.parse_args(argv)
    sets = ("tune", "shared") if a.set == "both" else (a.set,)
    which = configs()
    every: dict[str, tuple[int, dict[str, Run]]] = {}
    with tempfile.TemporaryDirectory(prefix="logkb-ablate-") as tmp:
        for s in sets:
            pairs = [(lp, sp) for lp, sp in labels(s) if not a.names or lp.stem in a.names]
            if not pairs:
                raise SystemExit(f"logkb: error: no labelled session in set {s}")
            sub = Path(tmp) / s
            sub.mkdir()

            def one(p: tuple[Path, Path], sub: Path = sub, s: str = s
                    ) -> tuple[str, tuple[int, dict[str, Run]] | None]:
                try:
                    return p[0].stem, session(a.logkb, p[0], p[1], sub, which)
                except Exception as exc:  # noqa: BLE001 - one bad session is a line
                    print(f"logkb: error: {s}/{p[0].stem}: {str(exc)[:200]}",
                          file=sys.stderr)
                    return p[0].stem, None

            with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
                results = {f"{s}/{n}": r for n, r in pool.map(one, pairs) if r is not None}
            every.update(results)
            t = tabulate(results)
            if a.json:
                print(json.dumps({"set": s, **t}))
            else:
                for line in lines(s, t):
                    print(line)
                print()
            sys.stdout.flush()
    if len(sets) > 1:
        t = tabulate(every)
        if a.json:
            print(json.dumps({"set": "both", **t}))
        else:
            for line in lines("tune+shared", t):
                print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
