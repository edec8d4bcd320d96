"""``python -m bench loso [--logkb PATH] [--set tune|shared|both] [--json] [--fps]
[--misses]``:
leave-one-session-out precision and causes of the dead ends, and each rule's false
positives across sessions.

Each labelled session of the set(s) is ingested into a fresh knowledge base (as
``../shared/tools/score-labelled/score.py`` does; :func:`bench.labels_misses.prepare`),
its reported dead ends are read with the rule that ended each (``via``) and the kind of
cause chosen (``cause_id``'s ``stated`` / ``error`` / ...), and they are paired with the
labelled ones by the scorer's matching (restated in :mod:`bench.labels_misses`).

Then, for each session, *leave it out*: keep only the dead ends whose rule has a true
hit in at least one **other** session (a rule true here only may be fitted to this
session), and count

* ``precision``: of the kept dead ends, those whose evidence overlaps a labelled one;
* ``recall``: the labelled dead ends whose all-on pair is kept (a label whose pair was
  left out counts missed, even where another kept dead end overlaps it); a line below
  the table gives the recall with the kept dead ends paired with the labels again
  (``rematched``), and one line per agent its recall all on, LOSO and LOAO (a session's
  agent from its label, :func:`bench.labels_bench.agent_of`);
* ``causes``: of the kept matched ones, those whose cause has a label's keyword *and*
  whose cause choice (rule and cause kind) was right in at least one other session; a
  choice right here only counts as wrong (it may be fitted too).

Per rule (``via``) it lists the false positives it makes in every session: a rule whose
false positives span several sessions is a generalisation risk even where its true
positives look good.  ``--fps`` also prints each false positive (session, evidence,
name, cause); ``--misses`` the matched dead ends LOSO leaves out, by rule (the ones a
rule true in another session would have to read).  Never run on ``heldout``: the choice
is not offered.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from bench.labels_bench import agent_of
from bench.labels_misses import _cause_right, _ords, labels, match, prepare, reported

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 80


@dataclass
class Hit:
    """One reported dead end of one session."""

    session: str
    """``set/stem``."""
    rule: str
    """``via`` (``check:failed-check``)."""
    cause_kind: str
    """``cause_id``'s kind (``stated``, ``error``, ...; ``none`` without one)."""
    true: bool
    """Its evidence overlaps a labelled dead end's."""
    matched: bool
    """The one-to-one matching pairs it with a label."""
    cause_right: bool
    """Matched, and its cause has one of the label's keywords."""
    name: str = ""
    cause: str = ""
    ordinals: list[int] = field(default_factory=list)
    agent: str = ""
    """The agent that wrote the session (:func:`bench.labels_bench.agent_of`)."""

    @property
    def choice(self) -> str:
        return f"{self.rule.split(':', 1)[0]}/{self.cause_kind}"


def cause_kind(item: dict[str, Any]) -> str:
    cid = str(item.get("cause_id") or "")
    parts = cid.split(":")
    return parts[1] if len(parts) > 2 and parts[0] == "cause" else "none"


LABELLED_EVIDENCE: dict[str, list[set[int]]] = {}
"""``set/stem``: the ordinals of each labelled dead end, as :func:`session` mapped them
(for :func:`tabulate`'s ``rematched`` recall)."""


def session(logkb: str, which: str, label: Path, source: Path, tmp: Path
            ) -> tuple[int, list[Hit]]:
    """The labelled dead ends of one session, and its reported dead ends as hits."""
    sub = tmp / which
    sub.mkdir(exist_ok=True)
    lab, env, scope, _, lab_de = prepare(logkb, label, source, sub)
    dead = reported(logkb, env, scope)
    LABELLED_EVIDENCE[f"{which}/{label.stem}"] = [set(x) for x in lab_de]
    got = match(lab_de, dead)
    by_rep = {m: n for n, m in got.items()}
    labelled = set().union(*lab_de) if lab_de else set()
    where = f"{which}/{label.stem}"
    hits = []
    for m, it in enumerate(dead):
        n = by_rep.get(m)
        hits.append(Hit(where, str(it.get("via") or "(none)"), cause_kind(it),
                        bool(_ords(it) & labelled), n is not None,
                        n is not None and _cause_right(lab["dead_ends"][n], it),
                        str(it.get("name") or "")[:160], str(it.get("cause") or "")[:160],
                        sorted(_ords(it)), agent_of(lab)))
    return len(lab_de), hits


def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 2) if b else None


def tabulate(results: dict[str, tuple[int, list[Hit]]],
             support: dict[str, tuple[int, list[Hit]]] | None = None,
             agents: dict[str, str] | None = None,
             labelled: dict[str, list[set[int]]] | None = None) -> dict[str, Any]:
    """All-on and leave-one-session-out precision, recall and causes of ``results``'
    sessions; per rule its true hits and false positives with the sessions they span.
    A rule (a cause choice) is supported by its true hits (right causes) in the sessions
    of ``support`` (default ``results``) other than the one left out (``loso``), or in
    the sessions of other agents than its own (``loao``).  ``agents``: the agent of each
    session (default: its hits' own), for the recall per agent (``agents`` of each row).
    ``labelled``: each session's labelled dead ends (their ordinals); with it the left-out
    rows also give ``rematched``, the recall when the kept dead ends are paired with the
    labels again (``recall`` keeps the all-on pairs, so a label whose pair was left out
    counts missed even where another kept dead end overlaps it)."""
    total = sum(n for n, _ in results.values())
    every = [h for _, hs in results.values() for h in hs]
    agent_of_session = {s: (agents or {}).get(s) or next((h.agent for h in hs if h.agent),
                                                          "") or "?"
                        for s, (_, hs) in results.items()}
    labelled_by_agent: dict[str, int] = {}
    for s, (n, _) in results.items():
        a = agent_of_session[s]
        labelled_by_agent[a] = labelled_by_agent.get(a, 0) + n

    def per_agent(kept: Iterable[Hit]) -> dict[str, dict[str, Any]]:
        """Recall per agent: the labelled dead ends of its sessions ``kept`` match."""
        found: dict[str, int] = {}
        for h in kept:
            if h.matched:
                a = agent_of_session.get(h.session, "?")
                found[a] = found.get(a, 0) + 1
        return {a: {"labels": n, "found": found.get(a, 0),
                    "recall": _ratio(found.get(a, 0), n)}
                for a, n in sorted(labelled_by_agent.items())}

    def left_out(by: str) -> dict[str, Any]:
        """Keep a dead end only where its rule is true in another session (``by`` =
        ``session``) or in a session of another agent (``agent``); its cause counts
        only where its choice is right there too."""
        def key(h: Hit) -> str:
            return h.session if by == "session" else h.agent or h.session

        true_in: dict[str, set[str]] = {}
        right_in: dict[str, set[str]] = {}
        for h in (h for _, hs in (support or results).values() for h in hs):
            if h.true:
                true_in.setdefault(h.rule, set()).add(key(h))
            if h.cause_right:
                right_in.setdefault(h.choice, set()).add(key(h))
        kept = [h for h in every if true_in.get(h.rule, set()) - {key(h)}]
        found = sum(h.matched for h in kept)
        # the kept dead ends paired with the labels again, one to one: a label whose
        # pair was left out may pair with another kept dead end that overlaps it
        rematched = sum(len(match(ev, [{"evidence": h.ordinals} for h in kept
                                       if h.session == s]))
                        for s, ev in (labelled or {}).items() if s in results)
        right = sum(h.cause_right and bool(right_in.get(h.choice, set()) - {key(h)})
                    for h in kept)
        true = sum(h.true for h in kept)
        return {"reported": len(kept), "true": true, "found": found,
                "causes_right": right, "precision": _ratio(true, len(kept)),
                "recall": _ratio(found, total), "causes": _ratio(right, found),
                "agents": per_agent(kept),
                "rematched": _ratio(rematched, total) if labelled else None}

    found = sum(h.matched for h in every)
    rules: dict[str, dict[str, Any]] = {}
    for h in every:
        r = rules.setdefault(h.rule, {"rule": h.rule, "fired": set(), "true": 0, "fp": 0,
                                      "matched": 0, "causes_right": 0, "fp_sessions": set(),
                                      "true_sessions": set()})
        r["fired"].add(h.session)
        r["matched"] += h.matched
        r["causes_right"] += h.cause_right
        if h.true:
            r["true"] += 1
            r["true_sessions"].add(h.session)
        else:
            r["fp"] += 1
            r["fp_sessions"].add(h.session)
    rows = []
    for r in rules.values():
        ts, fs = r.pop("true_sessions"), r.pop("fp_sessions")
        fired = r.pop("fired")
        verdict = ("RISK" if len(fs) >= 2 and len(ts) <= 1 else
                   "leaks" if len(fs) >= 2 else
                   "fitted" if len(ts) == 1 else "no true" if not ts else "")
        rows.append({**r, "fired": len(fired), "true_sessions": len(ts),
                     "fp_sessions": sorted(fs), "verdict": verdict})
    rows.sort(key=lambda r: (-len(r["fp_sessions"]), -r["fp"], -r["true"], r["rule"]))
    choices: dict[str, dict[str, Any]] = {}
    for h in every:
        if not h.matched:
            continue
        c = choices.setdefault(h.choice, {"choice": h.choice, "matched": 0, "right": 0,
                                          "right_sessions": set(), "wrong_sessions": set()})
        c["matched"] += 1
        c["right"] += h.cause_right
        c["right_sessions" if h.cause_right else "wrong_sessions"].add(h.session)
    choice_rows = [{**c, "right_sessions": sorted(c["right_sessions"]),
                    "wrong_sessions": sorted(c["wrong_sessions"])} for c in choices.values()]
    choice_rows.sort(key=lambda c: (-(c["matched"] - c["right"]), c["choice"]))
    return {
        "sessions": len(results), "dead_ends": total,
        "full": {"reported": len(every), "true": sum(h.true for h in every),
                 "found": found, "causes_right": sum(h.cause_right for h in every),
                 "precision": _ratio(sum(h.true for h in every), len(every)),
                 "recall": _ratio(found, total),
                 "causes": _ratio(sum(h.cause_right for h in every), found),
                 "agents": per_agent(every)},
        "loso": left_out("session"),
        "loao": left_out("agent"),
        "rules": rows,
        "choices": choice_rows,
    }


def _f(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def lines(name: str, t: dict[str, Any]) -> list[str]:
    full, lo = t["full"], t["loso"]
    out = [f"{name}: {t['sessions']} sessions, {t['dead_ends']} labelled dead ends",
           f"{'':<8} {'prec':>5} {'recall':>6} {'causes':>6} {'reported':>8} {'true':>5} "
           f"{'found':>5} {'right':>5}"]
    for label, s in (("all on", full), ("LOSO", lo), ("LOAO", t["loao"])):
        out.append(f"{label:<8} {_f(s['precision']):>5} {_f(s['recall']):>6} "
                   f"{_f(s['causes']):>6} {s['reported']:>8} {s['true']:>5} "
                   f"{s['found']:>5} {s['causes_right']:>5}")
    if lo.get("rematched") is not None:
        out.append(f"re-paired after leaving out: LOSO recall {_f(lo['rematched'])}, "
                   f"LOAO {_f(t['loao']['rematched'])}")
    out.append(f"{'recall of':<12} {'labels':>6} {'all on':>6} {'LOSO':>6} {'LOAO':>6}")
    for a, row in full.get("agents", {}).items():
        lo_a, la_a = lo["agents"].get(a, {}), t["loao"]["agents"].get(a, {})
        out.append(f"{a[:12]:<12} {row['labels']:>6} {_f(row['recall']):>6} "
                   f"{_f(lo_a.get('recall')):>6} {_f(la_a.get('recall')):>6}")
    return out


def rule_lines(t: dict[str, Any]) -> list[str]:
    """Rules with a false positive, most sessions first (80 columns)."""
    out = [f"{'rule (via)':<30} {'fired':>5} {'true':>4} {'tsess':>5} {'fp':>3} "
           f"{'fsess':>5} {'match':>5} {'cause':>5}  note"]
    for r in t["rules"]:
        if not r["fp"]:
            continue
        out.append(f"{r['rule'][:30]:<30} {r['fired']:>5} {r['true']:>4} "
                   f"{r['true_sessions']:>5} {r['fp']:>3} {len(r['fp_sessions']):>5} "
                   f"{r['matched']:>5} {r['causes_right']:>5}  {r['verdict']}"[:WIDTH])
        for s in r["fp_sessions"]:
            out.append(f"    fp in {s}"[:WIDTH])
    out.append("RISK: false positives in >= 2 sessions, true hits in <= 1; leaks:")
    out.append("  false positives in >= 2 sessions (LOSO keeps a rule only where it is")
    out.append("  true in another session)")
    return out


def choice_lines(t: dict[str, Any]) -> list[str]:
    """Cause choices (rule/cause kind) of matched dead ends, most wrong first."""
    out = [f"{'cause choice (rule/kind)':<34} {'matched':>7} {'right':>5} "
           f"{'rsess':>5} {'wsess':>5}  note"]
    for c in t["choices"]:
        rs = len(c["right_sessions"])
        note = "fitted" if rs == 1 else "never right" if not rs else ""
        out.append(f"{c['choice'][:34]:<34} {c['matched']:>7} {c['right']:>5} {rs:>5} "
                   f"{len(c['wrong_sessions']):>5}  {note}"[:WIDTH])
    out.append("LOSO counts a right cause only when its choice is right in another")
    out.append("  session too (a choice right in one session only may be fitted)")
    return out


def fp_lines(hits: Iterable[Hit]) -> list[str]:
    out = []
    for h in hits:
        if h.true:
            continue
        ev = ",".join(str(o) for o in h.ordinals[:6])
        out.append(f"FP {h.session} [{h.rule}] #{ev}"[:WIDTH])
        out.append(f"   name:  {h.name}"[:WIDTH])
        out.append(f"   cause: {h.cause}"[:WIDTH])
    return out


def left_out(hits: Iterable[Hit]) -> list[Hit]:
    """The matched dead ends LOSO leaves out: their rule is true in no other session
    (what a rule must generalise to keep), in session and transcript order."""
    hits = list(hits)
    true_in: dict[str, set[str]] = {}
    for h in hits:
        if h.true:
            true_in.setdefault(h.rule, set()).add(h.session)
    return sorted((h for h in hits if h.matched
                   and not true_in.get(h.rule, set()) - {h.session}),
                  key=lambda h: (h.rule, h.session, h.ordinals[:1]))


def miss_lines(hits: Iterable[Hit]) -> list[str]:
    """:func:`left_out` by rule: each rule's count and sessions, then every dead end
    (session, agent, evidence, name), 80 columns."""
    gone = left_out(hits)
    out = [f"LOSO leaves out {len(gone)} matched dead ends (rule true in one session):"]
    by: dict[str, list[Hit]] = {}
    for h in gone:
        by.setdefault(h.rule, []).append(h)
    for rule, hs in sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0])):
        out.append(f"{rule} ({len(hs)})"[:WIDTH])
        for h in hs:
            ev = ",".join(str(o) for o in h.ordinals[:4])
            out.append(f"  {h.session} [{h.agent or '?'}] #{ev} {h.name}"[:WIDTH])
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench loso",
                                 description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--logkb", default=str(ROOT / ".venv" / "bin" / "logkb"))
    ap.add_argument("--set", choices=("tune", "shared", "both"), default="both")
    ap.add_argument("--jobs", type=int, default=2, help="sessions ingested at once")
    ap.add_argument("--json", action="store_true",
                    help="one object per set (and one for both), with the rules")
    ap.add_argument("--fps", action="store_true",
                    help="also print every false positive (with --json: every dead end)")
    ap.add_argument("--misses", action="store_true",
                    help="also print the matched dead ends LOSO leaves out, by rule")
    ap.add_argument("names", nargs="*", help="label stems (default: all of the set)")
    a = ap.parse_args(argv)
    sets = ("tune", "shared") if a.set == "both" else (a.set,)
    every: dict[str, tuple[int, list[Hit]]] = {}
    agents: dict[str, str] = {}
    per_set: dict[str, dict[str, tuple[int, list[Hit]]]] = {}
    with tempfile.TemporaryDirectory(prefix="logkb-loso-") as tmp:
        for s in sets:
            pairs = [(lp, sp) for lp, sp in labels(s) if not a.names or lp.stem in a.names]
            agents.update((f"{s}/{lp.stem}", agent_of(json.loads(lp.read_text())))
                          for lp, _ in pairs)

            def one(p: tuple[Path, Path], s: str = s
                    ) -> tuple[str, tuple[int, list[Hit]] | None]:
                try:
                    return f"{s}/{p[0].stem}", session(a.logkb, s, p[0], p[1], Path(tmp))
                except Exception as exc:  # noqa: BLE001 - one bad session is a line
                    print(f"logkb: error: {s}/{p[0].stem}: {str(exc)[:200]}",
                          file=sys.stderr)
                    return f"{s}/{p[0].stem}", None

            with ThreadPoolExecutor(max_workers=max(1, a.jobs)) as pool:
                per_set[s] = {n: r for n, r in pool.map(one, pairs) if r is not None}
            every.update(per_set[s])
    # support is counted across every session measured, so a set's LOSO figure keeps
    # a rule true in a session of the other set
    pooled = tabulate(every, agents=agents, labelled=LABELLED_EVIDENCE)
    outs = [(s, tabulate(per_set[s], every, agents, LABELLED_EVIDENCE)) for s in sets]
    if len(sets) > 1:
        outs.append(("tune+shared", pooled))
    if a.json:
        for name, t in outs:
            print(json.dumps({"set": name, **t}))
        if a.fps:
            for _, hs in every.values():
                for h in hs:
                    print(json.dumps({"hit": asdict(h)}))
        return
    for name, t in outs:
        for line in lines(name, t):
            print(line)
        print()
    for line in rule_lines(pooled):
        print(line)
    print()
    for line in choice_lines(pooled):
        print(line)
    if a.fps:
        print()
        for line in fp_lines(h for _, hs in every.values() for h in hs):
            print(line)
    if a.misses:
        print()
        for line in miss_lines(h for _, hs in every.values() for h in hs):
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
