"""``python -m bench prose-classes [--logkb PATH] [--set tune|shared|pool|both] [--firings]
[--json] [NAME ...]``: how the assistant's prose is classed, per language, and how many
labelled decisions carry a ``decision`` event.

For every non-held-out session of the sets (``tune``: ``fixtures/labels/tune``; ``shared``:
``../shared/realworld/labelled``; ``pool``: the pool's unlabelled, non-held-out files;
``both``, the default: all three) it ingests the transcript into a fresh knowledge base
and reads the assistant's text events (``kind = 'decision'``, ``source = 'text'``).  Each
text part gets a language (Chinese by its CJK characters, Spanish / Portuguese / English by
their commonest words), then two tables:

* classes per language: the stored class of each text part, and the class
  :func:`logparse.prose.classify_prose` gives each of its sentences;
* labelled decisions per session: the label's ``decisions`` ordinals (mapped through
  ``decision_lines`` and ``messages.raw $.lines`` as the scorer maps dead ends), how many
  land on an assistant text part, and how many of those carry the class ``decision``.

``--firings`` lists every sentence that one of the es/pt/zh rows of the decision, pivot
and conclusion tables classes (row, session, file line or message ordinal, the sentence),
for judging precision by hand.

The held-out transcripts are never ingested: their names are refused here.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import unicodedata
from collections import Counter
from pathlib import Path
from typing import Any

from bench.held_out import held_out
from bench.labels_misses import LABELLED, OWN, POOL, _items, _run, line_map

CLASSES = ("dead-end", "pivot", "decision", "conclusion", "plan", "observation")
LANGS = ("en", "es", "pt", "zh")
WIDTH = 80

_CJK = re.compile(r"[\u4e00-\u9fff]")
_WORDS = {
    "en": re.compile(r"\b(?:the|is|and|to|of|that|this|it|with|for|I|we|let)\b"),
    "es": re.compile(r"\b(?:el|los|las|que|es|está|para|con|una|del|por|lo|voy|ahora|pero"
                     r"|como|más|ya|hay)\b"),
    "pt": re.compile(r"\b(?:não|é|os|as|que|com|um|uma|do|da|para|isso|está|vou|agora|mas"
                     r"|como|mais|já|há|você)\b"),
}
_SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|\n+|(?<=[。！？])")


def language(text: str) -> str:
    """The language of a text part: ``zh`` when CJK characters make a tenth of its
    letters, else the one of en/es/pt whose common words it uses most."""
    letters = sum(ch.isalpha() for ch in text) or 1
    if len(_CJK.findall(text)) * 10 >= letters:
        return "zh"
    score = {k: len(rx.findall(text)) for k, rx in _WORDS.items()}
    best = max(score, key=lambda k: score[k])
    return best if score[best] > 0 else "en"


def sentences(text: str) -> list[str]:
    out = []
    text = re.sub(r"```.*?(?:```|\Z)", " ", text, flags=re.S)
    for s in _SENTENCE.split(text):
        s = s.strip()
        if len(s) >= 4:
            out.append(s)
    return out


def clip(text: str, width: int) -> str:
    """``text`` cut to ``width`` terminal columns (a CJK character takes two, and so does
    one of ambiguous width, such as “ ”: the cut errs on the short side)."""
    out, used = [], 0
    for ch in text:
        w = 2 if unicodedata.east_asian_width(ch) in ("W", "F", "A") else 1
        if used + w > width:
            break
        out.append(ch)
        used += w
    return "".join(out)


def sessions(which: str, names: list[str]) -> list[tuple[str, Path, Path | None]]:
    """(name, transcript, label) of a set; the held-out transcripts are left out."""
    out: list[tuple[str, Path, Path | None]] = []
    if which in ("shared", "both"):
        for p in sorted(LABELLED.glob("*.json")):
            lab = json.loads(p.read_text())
            if "file" in lab:
                out.append((p.stem, LABELLED / lab["file"], p))
    if which in ("tune", "both"):
        for p in sorted((OWN / "tune").glob("*.json")):
            out.append((p.stem, POOL / json.loads(p.read_text())["file"], p))
    if which in ("pool", "both"):
        labelled = {t.name for _, t, _ in out} | {
            json.loads(p.read_text())["file"] for p in (OWN / "tune").glob("*.json")}
        for t in sorted(POOL.glob("*.json*")):
            if t.name not in labelled:
                out.append((t.name.split(".json")[0], t, None))
    out = [s for s in out if not held_out(s[1])]
    if names:
        out = [s for s in out if any(n in s[0] or n in s[1].name for n in names)]
    return out


def examine(logkb: str, name: str, source: Path, label: Path | None, tmp: Path
            ) -> dict[str, Any]:
    from logparse.prose import classify_prose, prose_rule

    d = tmp / name
    d.mkdir()
    src = d / source.name
    src.write_bytes(source.read_bytes())
    if source.suffix == ".db":  # an opencode database keeps its -wal/-shm beside it
        for extra in ("-wal", "-shm"):
            side = source.with_name(source.name + extra)
            if side.exists():
                (d / side.name).write_bytes(side.read_bytes())
    env = dict(os.environ, LOGKB_DB=str(d / "kb.duckdb"), LOGKB_HOME=str(d), NO_COLOR="1")
    _run(logkb, env, "ingest", str(src))
    lab = json.loads(label.read_text()) if label else {}
    sid = lab.get("session_id")
    where = f"AND e.session_id = '{sid}'" if sid else ""
    rows = _items(_run(logkb, env, "query",
                       "SELECT e.ordinal, e.classification AS cls, e.text, "
                       "json_extract(m.raw, '$.lines') AS lines FROM events e JOIN messages m "
                       "ON m.session_id = e.session_id AND m.ordinal = e.ordinal "
                       "WHERE e.kind = 'decision' AND e.source = 'text' "
                       f"AND e.role = 'assistant' {where} ORDER BY e.ordinal, e.seq", "--json"))
    parts: Counter[tuple[str, str]] = Counter()
    sents: Counter[tuple[str, str]] = Counter()
    by_ord: dict[int, set[str]] = {}
    firings: list[dict[str, Any]] = []
    for r in rows:
        text = str(r.get("text") or "")
        lang = language(text)
        parts[(lang, str(r["cls"]))] += 1
        by_ord.setdefault(int(r["ordinal"]), set()).add(str(r["cls"]))
        lines = r.get("lines")
        lines = json.loads(lines) if isinstance(lines, str) else lines
        where_ = f"{source.name}:{lines[0]}" if lines else f"{source.name} #{r['ordinal']}"
        for s in sentences(text):
            cls = classify_prose(s)
            sents[(lang, cls.value)] += 1
            rule = prose_rule(s, cls)
            if rule and rule[:3] in ("es_", "pt_", "zh_") and cls.value in (
                    "decision", "pivot", "conclusion"):
                firings.append({"session": name, "at": where_, "class": cls.value,
                                "rule": rule, "sentence": s})
    out: dict[str, Any] = {"name": name, "parts": parts, "sentences": sents,
                           "firings": firings, "decisions": None}
    if label is not None:
        ords = lab.get("decisions") or []
        lines_ = lab.get("decision_lines") or [None] * len(ords)
        lm = line_map(logkb, env, sid) if any(ln is not None for ln in lines_) else {}
        mapped = [lm.get(int(ln), o) if ln is not None and lm else o for o, ln in zip(ords, lines_)]
        on_text = [o for o in mapped if o in by_ord]
        out["decisions"] = {"labelled": len(mapped), "on_text": len(on_text),
                            "decision": sum(1 for o in on_text if "decision" in by_ord[o])}
    return out


def report(results: list[dict[str, Any]], firings: bool) -> list[str]:
    out: list[str] = []
    head = f"{'lang':<5}{'unit':<10}{'n':>6}" + "".join(f"{c[:8]:>9}" for c in CLASSES)
    out += ["classes of the assistant's prose per language", head, "-" * len(head)]
    for lang in LANGS:
        for unit in ("parts", "sentences"):
            c: Counter[str] = Counter()
            for r in results:
                for (lg, cls), n in r[unit].items():
                    if lg == lang:
                        c[cls] += n
            if not c:
                continue
            out.append(f"{lang:<5}{unit:<10}{sum(c.values()):>6}"
                       + "".join(f"{c[k]:>9}" for k in CLASSES))
    out += ["", "labelled decisions on a decision event, per session",
            f"{'session':<46}{'labelled':>10}{'on text':>10}{'decision':>10}", "-" * 76]
    tot = Counter[str]()
    for r in results:
        d = r["decisions"]
        if d is None:
            continue
        tot.update(d)
        out.append(f"{r['name'][:45]:<46}{d['labelled']:>10}{d['on_text']:>10}"
                   f"{d['decision']:>10}")
    out.append(f"{'all':<46}{tot['labelled']:>10}{tot['on_text']:>10}{tot['decision']:>10}")
    if firings:
        out += ["", "es/pt/zh decision, pivot and conclusion rows that fire"]
        for r in results:
            for f in r["firings"]:
                out.append(clip(f"{f['class']:<11}{f['rule']:<16}{f['at']}", WIDTH))
                out.append("    " + clip(f["sentence"].replace("\n", " "), WIDTH - 4))
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench prose-classes",
                                 description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--logkb", default="logkb", help="the logkb executable")
    ap.add_argument("--set", default="both", choices=("tune", "shared", "pool", "both"))
    ap.add_argument("--firings", action="store_true",
                    help="list every sentence an es/pt/zh decision/pivot/conclusion row classes")
    ap.add_argument("--json", action="store_true")
    ap.add_argument("names", nargs="*", help="only sessions whose name contains one of these")
    a = ap.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="bench-prose-") as tmp:
        results = []
        for name, src, lab in sessions(a.set, a.names):
            print(f"ingesting {name}", file=sys.stderr)
            results.append(examine(a.logkb, name, src, lab, Path(tmp)))
    if a.json:
        for r in results:
            print(json.dumps({"name": r["name"], "decisions": r["decisions"],
                              "parts": {f"{k[0]}:{k[1]}": v for k, v in r["parts"].items()},
                              "sentences": {f"{k[0]}:{k[1]}": v
                                            for k, v in r["sentences"].items()},
                              "firings": r["firings"]}, ensure_ascii=False))
        return
    print("\n".join(report(results, a.firings)))


if __name__ == "__main__":
    main(sys.argv[1:])
