"""Scoring the knowledge graph against a labelled campaign (precision and recall).

Labels (``manifest.json`` → ``labels``) name approaches with aliases, status,
cause keywords and cause groups, the untested questions, pivots and decisions.
A predicted approach matches a labelled one when one of its names shares most
salient tokens with one of the label's names (or contains it); matching is one
to one, best pairs first.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any

from kb.graph.text import similarity, tokens

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
