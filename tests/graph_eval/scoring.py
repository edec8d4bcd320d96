"""Scoring the knowledge graph against a labelled campaign (precision and recall).

Labels (``manifest.json`` → ``labels``) name approaches with aliases, status,
cause keywords and cause groups, the untested questions, pivots and decisions.
A predicted approach matches a labelled one when one of its names shares most
salient tokens with one of the label's names (or contains it); matching is one
to one, best pairs first.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

# The scorer shares no code with the extractor: its own crude tokens for name matching.
_STOP = frozenset("""a an the and or of on in to for with via by at as from into vs is are be
it this that we try trying test use using enable switch""".split())


def tokens(text: str) -> frozenset[str]:
    """Lowercased words of a name, each also squashed (``deep_ep`` → ``deepep``)."""
    out: set[str] = set()
    for w in re.findall(r"[a-z0-9][a-z0-9_.=+/-]*", text.lower()):
        w = w.strip("._-=+/")
        parts = [p for p in re.split(r"[_.=+/-]+", w) if p]
        for t in [re.sub(r"[^a-z0-9]", "", w), *parts]:
            if len(t) > 1 and t not in _STOP:
                out.add(t[:-1] if len(t) > 4 and t.endswith("s") else t)
    return frozenset(out)


def similarity(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0

ENDED = ("dead_end", "blocked", "superseded")


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    misses: list[str] = field(default_factory=list)

    @property
    def precision(self) -> float:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else 1.0

    @property
    def recall(self) -> float:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else 1.0

    def __add__(self, other: Score) -> Score:
        return Score(self.tp + other.tp, self.fp + other.fp, self.fn + other.fn,
                     self.misses + other.misses)

    def __str__(self) -> str:
        return f"P={self.precision:.2f} R={self.recall:.2f} (tp {self.tp}, fp {self.fp}, fn {self.fn})"


def _names(item: dict[str, Any], label: bool) -> list[str]:
    if label:
        return [item["name"], *item.get("aliases", [])]
    return [item["label"], *item.get("aliases", [])]


def _match_score(pred: dict[str, Any], lab: dict[str, Any]) -> float:
    best = 0.0
    for p in _names(pred, False):
        for q in _names(lab, True):
            if len(q) >= 4 and q.lower() in p.lower():
                best = max(best, 1.0)
            best = max(best, similarity(tokens(p), tokens(q)))
    return best


def match(preds: list[dict[str, Any]], labels: list[dict[str, Any]],
          threshold: float = 0.5) -> dict[int, int]:
    """label index → prediction index, one to one, best pairs first."""
    pairs = sorted(((_match_score(p, lab), i, j) for j, p in enumerate(preds)
                    for i, lab in enumerate(labels)), reverse=True)
    used_p: set[int] = set()
    out: dict[int, int] = {}
    for s, i, j in pairs:
        if s < threshold:
            break
        if i in out or j in used_p:
            continue
        out[i] = j
        used_p.add(j)
    return out


def score(labels: dict[str, Any], approaches: list[dict[str, Any]],
          questions: list[dict[str, Any]]) -> dict[str, Score]:
    """Dead ends, their causes and cause groups, and untested questions."""
    preds = [a for a in approaches if a["kind"] != "goal"]
    labs = labels["approaches"]
    m = match(preds, labs)
    dead, cause, groups, untested = Score(), Score(), Score(), Score()
    matched_pred = {j: i for i, j in m.items()}
    for i, lab in enumerate(labs):
        j = m.get(i)
        pred_ended = j is not None and preds[j]["status"] in ENDED
        if lab["status"] in ENDED:
            if pred_ended:
                dead.tp += 1
                text = f"{preds[j].get('cause') or ''} {preds[j].get('end_text') or ''}".lower()
                kws = [k.lower() for k in lab.get("cause_keywords", [])]
                if not kws or any(k in text for k in kws):
                    cause.tp += 1
                else:
                    cause.fp += 1
                    cause.fn += 1
                    cause.misses.append(f"cause of {lab['name']}: {text[:100]!r} lacks {kws}")
            else:
                dead.fn += 1
                cause.fn += 1
                state = preds[j]["status"] if j is not None else "not found"
                dead.misses.append(f"missed dead end {lab['name']} ({state})")
    for j, p in enumerate(preds):
        if p["status"] in ENDED and (j not in matched_pred
                                     or labs[matched_pred[j]]["status"] not in ENDED):
            dead.fp += 1
            dead.misses.append(f"false dead end {p['label']} ({p.get('cause')})")
    # cause groups: pairs of labelled dead ends that share a root cause
    ended = [(i, lab) for i, lab in enumerate(labs) if lab["status"] in ENDED and i in m
             and preds[m[i]]["status"] in ENDED]
    for (i, a), (k, b) in combinations(ended, 2):
        same_label = bool(a.get("cause_group")) and a.get("cause_group") == b.get("cause_group")
        same_pred = preds[m[i]].get("cause_key") == preds[m[k]].get("cause_key")
        if same_label and same_pred:
            groups.tp += 1
        elif same_label:
            groups.fn += 1
            groups.misses.append(f"{a['name']} and {b['name']} should share a cause")
        elif same_pred:
            groups.fp += 1
            groups.misses.append(f"{a['name']} and {b['name']} wrongly share a cause")
    # untested questions, by ordinal
    open_q = [q for q in questions if q["status"] == "open"]
    want = {u["ordinal"]: u for u in labels.get("untested", [])}
    got = {q["ordinal"] for q in open_q}
    for o, u in want.items():
        if o in got:
            untested.tp += 1
        else:
            untested.fn += 1
            untested.misses.append(f"missed untested question at {o} ({u['keywords']})")
    for q in open_q:
        if q["ordinal"] not in want:
            untested.fp += 1
            untested.misses.append(f"false untested question at {q['ordinal']}: {q['question']}")
    return {"dead ends": dead, "causes": cause, "shared causes": groups,
            "untested": untested}


# ------------------------------------------------------ hand-labelled real sessions
@dataclass
class Labelled:
    """Figures of one hand-labelled real session (``../shared/realworld/labelled``)."""

    name: str
    dead_ends: int = 0
    found: int = 0
    reported: int = 0
    reported_true: int = 0
    causes_right: int = 0
    hard_untested: int = 0
    untested_found: int = 0
    traps: int = 0
    traps_reported: int = 0
    misses: list[str] = field(default_factory=list)

    def __add__(self, o: Labelled) -> Labelled:
        return Labelled("total", *(getattr(self, f) + getattr(o, f) for f in (
            "dead_ends", "found", "reported", "reported_true", "causes_right",
            "hard_untested", "untested_found", "traps", "traps_reported")),
            misses=self.misses + o.misses)

    @property
    def recall(self) -> float:
        return self.found / self.dead_ends if self.dead_ends else 1.0

    @property
    def precision(self) -> float:
        return self.reported_true / self.reported if self.reported else 1.0

    @property
    def causes(self) -> float:
        return self.causes_right / self.found if self.found else 1.0

    @property
    def untested(self) -> float:
        return self.untested_found / self.hard_untested if self.hard_untested else 1.0

    @property
    def trap_rate(self) -> float:
        return self.traps_reported / self.traps if self.traps else 0.0


def _ordinals(item: dict[str, Any]) -> set[int]:
    return {e["ordinal"] if isinstance(e, dict) else e for e in item.get("evidence") or []}


def score_labelled(label: dict[str, Any], dead_ends: list[dict[str, Any]],
                   untested: list[dict[str, Any]], name: str) -> Labelled:
    """Dead ends matched one to one by evidence-ordinal overlap (maximum weight matching);
    a cause is right when it holds one of the label's ``cause_keywords``; hard untested
    questions by ordinal; traps are labelled non-dead-end failures a dead end cites."""
    import networkx as nx

    dead = [d for d in dead_ends if d.get("status") in ENDED]
    g = nx.Graph()
    for i, lab in enumerate(label["dead_ends"]):
        for j, d in enumerate(dead):
            w = len(set(lab["evidence"]) & _ordinals(d))
            if w:
                g.add_edge(("L", i), ("R", j), weight=w)
    pairs = [(a, b) if a[0] == "L" else (b, a)
             for a, b in nx.max_weight_matching(g, maxcardinality=True)]
    matched = {a[1]: b[1] for a, b in pairs}
    out = Labelled(name, dead_ends=len(label["dead_ends"]), found=len(pairs),
                   reported=len(dead))
    for i, lab in enumerate(label["dead_ends"]):
        j = matched.get(i)
        if j is None:
            out.misses.append(f"{name}: missed dead end {lab['evidence']} {lab['name'][:60]!r}")
            continue
        text = " ".join(str(dead[j].get(k) or "") for k in ("cause", "why")).lower()
        if any(k.lower() in text for k in lab.get("cause_keywords") or []):
            out.causes_right += 1
        else:
            out.misses.append(f"{name}: cause of {lab['name'][:40]!r}: {text[:80]!r} lacks "
                              f"{lab['cause_keywords']}")
    labelled = {o for lab in label["dead_ends"] for o in lab["evidence"]}
    traps = set(label.get("false_positive_traps") or [])
    out.reported_true = sum(1 for d in dead if _ordinals(d) & labelled)
    out.traps = len(traps)
    out.traps_reported = sum(1 for d in dead if _ordinals(d) & traps)
    hard = [u for u in label.get("untested", []) if u.get("hard", True)]
    got = {u.get("ordinal") for u in untested}
    out.hard_untested = len(hard)
    out.untested_found = sum(1 for u in hard if u["ordinal"] in got)
    out.misses += [f"{name}: missed hard untested {u['ordinal']} ({u['kind']})"
                   for u in hard if u["ordinal"] not in got]
    return out
