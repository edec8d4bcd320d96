"""``python -m bench labels-metrics [--set tune|shared] [--logkb PATH] [NAME ...]``: the
labelled measurements logkb misses, and the measurements it reports that no label has.

For each label (``fixtures/labels/tune/*.json`` with its transcript in
``../shared/realworld/pool/``, or ``../shared/realworld/labelled/*.json``) the transcript is
ingested with the ``logkb`` command into a temporary store, the label's ordinals are mapped
to logkb's the way ``../shared/tools/score-labelled/score.py`` does (through the file lines
each stored message names, when the label's dead ends carry lines; that code is read, not
imported), and a labelled metric counts as found when its value is a measurement of
``events --json`` within one message.  Printed per session:

* ``MISS``: a labelled metric not found (value, unit, label) with the text around the value
  in that message (``[out]`` a tool's output, ``[txt]`` prose, ``[cmd]`` a command, ``[-]``
  not in any event's text: an agent's own field);
* ``EXTRA`` (with ``--extras``): a measurement logkb reports at an ordinal where no labelled
  metric within one message has that value, to judge precision by eye.

``--kinds`` prints the misses grouped by the structure they come in (a heuristic reading of
the line around the value, for counting before and after a change).  ``--json`` prints one
object per miss or extra.  Never run it on the held-out labels: they are not offered.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from bench.labels_bench import OWN, POOL, SHARED, agent_of
from bench.labels_misses import _items

ROOT = Path(__file__).resolve().parents[1]
LABELLED = SHARED / "realworld" / "labelled"
WIDTH = 80


def label_paths(which: str) -> list[tuple[Path, Path]]:
    """``(label, transcript)`` of the set ``which`` (``tune`` or ``shared``)."""
    out = []
    if which == "tune":
        for lab in sorted((OWN / "tune").glob("*.json")):
            out.append((lab, POOL / str(json.loads(lab.read_text())["file"])))
    else:
        for lab in sorted(LABELLED.glob("*.json")):
            data = json.loads(lab.read_text())
            if "file" in data:
                out.append((lab, LABELLED / str(data["file"])))
    return out


def _num(v: Any) -> float | None:
    try:
        return float(str(v).replace(",", ""))
    except ValueError:
        return None


class Store:
    """One transcript ingested into a store of its own in ``tmp``."""

    def __init__(self, logkb: list[str], src: Path, tmp: Path) -> None:
        self.logkb = logkb
        d = tmp / src.stem
        d.mkdir()
        copy = Path(shutil.copy(src, d))
        for extra in ("-shm", "-wal"):  # an opencode database's companions
            side = src.with_name(src.name + extra)
            if side.exists():
                shutil.copy(side, d)
        self.env = dict(os.environ, LOGKB_DB=str(d / "kb.duckdb"), LOGKB_HOME=str(d),
                        NO_COLOR="1")
        self.run("ingest", str(copy))

    def run(self, *args: str) -> str:
        p = subprocess.run([*self.logkb, *args], capture_output=True, text=True,
                           env=self.env, timeout=900, check=False)
        if p.returncode not in (0, 4):
            raise SystemExit(f"bench labels-metrics: logkb {' '.join(args)[:60]} exited "
                             f"{p.returncode}: {p.stderr.strip()[-300:]}")
        return p.stdout

    def line_map(self, sid: str | None) -> Callable[[int, int | None], int]:
        """score.py's mapping: a label's file line to the ordinal of the message that names
        it, else the label's ordinal."""
        where = f"where session_id = '{sid}'" if sid else ""
        rows = _items(self.run("query", "select ordinal, json_extract(raw, '$.lines') as "
                               f"lines from messages {where}", "--json"))
        line2ord: dict[int, int] = {}
        for r in rows:
            ls = r.get("lines")
            for ln in (json.loads(ls) if isinstance(ls, str) else ls) or []:
                line2ord.setdefault(int(ln), int(r["ordinal"]))
        return lambda o, ln: line2ord.get(int(ln), o) if ln is not None else o

    def events(self, sid: str | None) -> list[dict[str, Any]]:
        scope = ["--session", sid] if sid else []
        return [json.loads(x) for x in self.run("events", *scope, "--json").splitlines()
                if x.strip()]


def _spellings(v: float) -> list[str]:
    """How a value may be written: ``1484``, ``1,484``, ``0.0509``, ``2.70``."""
    out = []
    if v == int(v):
        n = int(v)
        out += [f"{n:,}", str(n)]
    else:
        s = repr(v)
        out += [s, s.lstrip("0") if s.startswith("0.") else s]
    return list(dict.fromkeys(out))


_FIELDS = (("output", "out"), ("text", "txt"), ("command", "cmd"))


def context(events: Iterable[dict[str, Any]], value: float, width: int = 150) -> tuple[str, str]:
    """Where ``value`` shows in these events: ``(field tag, the text around it)``."""
    for e in events:
        for field, tag in _FIELDS:
            text = e.get(field)
            if not isinstance(text, str) or not text:
                continue
            for s in _spellings(value):
                for m in re.finditer(r"(?<![\w.])" + re.escape(s) + r"(?![\d])", text):
                    a = max(0, m.start() - width // 2)
                    snippet = text[a:m.end() + width // 2]
                    return tag, " ".join(snippet.split())
    return "-", ""


def analyse(logkb: list[str], label_path: Path, src: Path, tmp: Path) -> dict[str, Any]:
    """The misses and extras of one label."""
    lab = json.loads(label_path.read_text())
    store = Store(logkb, src, tmp)
    sid = lab.get("session_id")
    at = store.line_map(sid) if any("lines" in dl for dl in lab["dead_ends"]) else (
        lambda o, ln: o)
    ev = store.events(sid)
    by_ord: dict[int, list[dict[str, Any]]] = {}
    got: dict[int, dict[float, dict[str, Any]]] = {}
    for e in ev:
        o = e.get("ordinal")
        if not isinstance(o, int):
            continue
        by_ord.setdefault(o, []).append(e)
        for mm in e.get("measurements") or []:
            v = _num(mm.get("value") if isinstance(mm, dict) else mm)
            if v is not None:
                got.setdefault(o, {}).setdefault(round(v, 3), {**mm, "tool": e.get("tool"),
                                                               "kind": e.get("kind")})
    mets = [m for m in lab.get("metrics", []) if _num(m.get("value")) is not None]
    misses, covered = [], set()
    for m in mets:
        o = at(m["ordinal"], m.get("line"))
        v = round(float(_num(m["value"]) or 0), 3)
        hit = [o + k for k in (-1, 0, 1) if v in got.get(o + k, {})]
        for k in (-1, 0, 1):
            covered.add((o + k, v))
        if hit:
            continue
        near = [e for k in (0, -1, 1) for e in by_ord.get(o + k, [])]
        tag, ctx = context(near, v)
        misses.append({"ordinal": o, "line": m.get("line"), "value": m["value"],
                       "unit": m.get("unit", ""), "label": m.get("label", ""), "where": tag,
                       "context": ctx, "kind": kind_of(tag, ctx, str(m.get("unit", "")),
                                                       str(m.get("label", "")))})
    extras = [{"ordinal": o, "value": v, "unit": mm.get("unit", ""), "label": mm.get("label", ""),
               "tool": mm.get("tool"), "kind": mm.get("kind")}
              for o, vals in sorted(got.items()) for v, mm in vals.items()
              if (o, v) not in covered]
    return {"name": label_path.stem, "agent": agent_of(lab), "metrics": len(mets),
            "found": len(mets) - len(misses), "misses": misses, "extras": extras}


# The structure a missed value comes in, read from the label's unit and words and the text
# around the value (first match wins).  ``never`` marks what issue 22 item 5 keeps out of
# measurements (token counters, ids and line numbers, ls entry and grep hit counts).
KINDS: tuple[tuple[str, str], ...] = (
    ("token counter (never)", r"\btokens?\b|context.window"),
    ("id, line number, block, log index (never)", r"\b(?:line|column|position|block|log index"
                                                  r"|error code|json-rpc|base units|integer)\b"),
    ("grep hit or ls entry count (never)", r"\b(?:grep|matches|occurrences|entries)\b"),
    ("exit code (agent field)", r"\bexit code\b"),
    ("agent timing field (turn, session, call)", r"\b(?:wall time|turn|session|duration"
                                                        r"|elapsed|retry|subagent)\b"),
    ("test-runner summary", r"\b(?:passed|failed|passing|failing|tests?)\b"),
    ("HTTP status", r"\bHTTP\b|\bstatus\b"),
    ("package-manager summary", r"\b(?:packages?|gems?|vulnerabilit\w+)\b"),
    ("file size or line count", r"\b(?:bytes|lines|chars|KB|MB|kB|size|length)\b"),
    ("rate or percentage", r"%|\bpercent\b|/s\b"),
    ("money or domain value in text", r"\b(?:USD|USDG|AUDD|WETH|USDC|MANA|WMATIC|points)\b"),
)


def kind_of(tag: str, ctx: str, unit: str, label: str) -> str:
    """The structure of a miss: by what its label measures, then where its value shows."""
    where = {"-": "no text", "txt": "prose", "out": "tool result"}.get(tag, "command")
    probe = f"{unit} | {label}"
    for name, rx in KINDS:
        if re.search(rx, probe, re.I):
            return f"{name} [{where}]"
    return f"other count [{where}]"


def _wrap(prefix: str, text: str) -> list[str]:
    room = WIDTH - len(prefix)
    return [prefix + text[i:i + room] for i in range(0, min(len(text), 3 * room), room)] or []


def show(r: dict[str, Any], extras: bool) -> list[str]:
    out = [f"== {r['name']} ({r['agent']}): {r['found']}/{r['metrics']} found"]
    for m in r["misses"]:
        ln = f" L{m['line']}" if m["line"] is not None else ""
        out.append(f"MISS #{m['ordinal']}{ln} {m['value']} {m['unit']}: {m['label']}"[:WIDTH])
        out += _wrap(f"   [{m['where']}] ", m["context"])
    if extras:
        for x in r["extras"]:
            what = x["tool"] or x["kind"]
            out.append(f"EXTRA #{x['ordinal']} {x['value']:g} {x['unit']} "
                       f"({x['label']}) [{what}]"[:WIDTH])
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench labels-metrics",
                                 description="The labelled measurements logkb misses "
                                 "(MISS) and the ones it reports that no label has (EXTRA).")
    ap.add_argument("--set", choices=("tune", "shared"), default="tune",
                    help="our pool labels (tune) or ../shared/realworld/labelled (shared)")
    ap.add_argument("--logkb", help="the logkb command (default: this tree's `python -m kb`)")
    ap.add_argument("--extras", action="store_true", help="also list unlabelled measurements")
    ap.add_argument("--kinds", action="store_true", help="count the misses per structure")
    ap.add_argument("--json", action="store_true", help="one object per session")
    ap.add_argument("names", nargs="*", help="label stems to run (default: all of the set)")
    a = ap.parse_args(argv)
    logkb = [a.logkb] if a.logkb else [sys.executable, "-P", "-m", "kb"]
    if not a.logkb:
        os.environ["PYTHONPATH"] = str(ROOT)
    kinds: Counter[str] = Counter()
    per_agent: dict[str, list[int]] = {}
    with tempfile.TemporaryDirectory(prefix="logkb-metrics-") as tmp:
        for lab, src in label_paths(a.set):
            if a.names and lab.stem not in a.names:
                continue
            r = analyse(logkb, lab, src, Path(tmp))
            acc = per_agent.setdefault(r["agent"], [0, 0])
            acc[0] += r["found"]
            acc[1] += r["metrics"]
            kinds.update(m["kind"] for m in r["misses"])
            if a.json:
                print(json.dumps(r))
            elif not a.kinds:
                print("\n".join(show(r, a.extras)))
    if a.json:
        return
    if a.kinds:
        print(f"{'misses by structure':60} {'n':>4}")
        for k, n in kinds.most_common():
            print(f"{k:60} {n:>4}")
    tot = [sum(v[0] for v in per_agent.values()), sum(v[1] for v in per_agent.values())]
    for agent, (f, n) in sorted(per_agent.items()) + [("all", (tot[0], tot[1]))]:
        print(f"{agent:12} {f:>4}/{n:<4} {f / n if n else 0:.2f}")


if __name__ == "__main__":
    main(sys.argv[1:])
