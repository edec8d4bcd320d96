"""``python -m bench labels-misses [--logkb PATH] [--set tune|shared] [--causes] [NAME ...]``:
the labelled dead ends logkb misses, and the dead ends it reports that match no label.

For each label it ingests the label's transcript into a fresh knowledge base (as
``../shared/tools/score-labelled/score.py`` does), maps the label's file lines to logkb's
ordinals through ``messages.raw $.lines`` the way the scorer does (its logic restated
here, not imported), matches labelled and reported dead ends one-to-one by evidence
overlap (maximum weight matching), then prints:

* ``MISS``: each labelled dead end no reported one matched: name, kind, cause keywords
  and a one-line view of each evidence message (role, tool, command, exit code, first
  error line or first words);
* ``EXTRA``: each reported dead end that overlaps no labelled one;
* with ``--causes``, ``CAUSE``: matched ones whose cause misses every keyword.

It runs logkb only as a program (``LOGKB_DB`` per label); no logkb code is imported.
Never run it on ``heldout`` (the coordinator measures it): the choice is not offered.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, NamedTuple

import networkx as nx

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
LABELLED = SHARED / "realworld" / "labelled"
POOL = SHARED / "realworld" / "pool"
OWN = ROOT / "fixtures" / "labels"
WIDTH = 78


def _run(logkb: str, env: dict[str, str], *args: str) -> str:
    p = subprocess.run([logkb, *args], capture_output=True, text=True, env=env, timeout=900,
                       check=False)
    if p.returncode not in (0, 4):
        raise RuntimeError(f"logkb {' '.join(args)[:60]} exited {p.returncode}: "
                           f"{p.stderr.strip()[-200:]}")
    return p.stdout


def _items(out: str) -> list[dict[str, Any]]:
    out = out.strip()
    try:
        v = json.loads(out)
    except json.JSONDecodeError:
        return [json.loads(x) for x in out.splitlines() if x.strip()]
    if isinstance(v, dict):
        for key in ("deadends", "dead_ends", "approaches", "items", "untested", "questions", "rows"):
            if isinstance(v.get(key), list):
                return list(v[key])
        return [v]
    return v if isinstance(v, list) else [v]


def _ords(item: dict[str, Any]) -> set[int]:
    got = (e.get("ordinal") if isinstance(e, dict) else e for e in item.get("evidence") or [])
    return {int(o) for o in got if o is not None}


def labels(which: str) -> list[tuple[Path, Path]]:
    """(label, transcript) pairs of a set."""
    if which == "shared":
        out = []
        for p in sorted(LABELLED.glob("*.json")):
            lab = json.loads(p.read_text())
            if "file" in lab:
                out.append((p, LABELLED / lab["file"]))
        return out
    return [(p, POOL / json.loads(p.read_text())["file"]) for p in sorted((OWN / which).glob("*.json"))]


def _one_line(text: str | None) -> str:
    for ln in (text or "").splitlines():
        ln = ln.strip()
        if ln:
            return ln
    return ""


_ERR = re.compile(r"error|fail|denied|not found|cannot|can't|refused|invalid|exception|traceback"
                  r"|fatal|rejected|interrupted|aborted|timed out", re.I)


_CD = re.compile(r"""^\s*(?:cd\s+(?:"[^"]*"|'[^']*'|\S+)\s*(?:&&|;)\s*)+""")


def _first_error(output: str | None) -> str:
    for ln in (output or "").splitlines():
        if _ERR.search(ln):
            return ln.strip()
    return ""


def views(logkb: str, env: dict[str, str], sid: str | None) -> dict[int, str]:
    """A one-line view of every message: role, tools, commands, exit codes, errors, words."""
    where = f"where session_id = '{sid}'" if sid else ""
    rows = _items(_run(logkb, env, "query",
                       "select ordinal, seq, role, kind, tool, command, exit_code, status, "
                       "error_signature, substr(output, 1, 4000) as output, "
                       f"substr(text, 1, 600) as text from events {where} order by ordinal, seq",
                       "--json"))
    out: dict[int, list[str]] = {}
    role: dict[int, str] = {}
    for r in rows:
        o = int(r["ordinal"])
        role.setdefault(o, str(r.get("role") or "?"))
        parts = out.setdefault(o, [])
        if r.get("tool"):
            bit = str(r["tool"])
            if r.get("command"):
                bit += " `" + _CD.sub("", _one_line(r["command"]))[:60] + "`"
            if r.get("exit_code") is not None:
                bit += f" exit {r['exit_code']}"
            elif r.get("status") not in (None, "completed"):
                bit += f" [{r['status']}]"
            err = r.get("error_signature") or _first_error(r.get("output"))
            if err and (r.get("exit_code") not in (None, 0) or r.get("status") not in
                        (None, "completed") or r.get("error_signature")):
                bit += ": " + _one_line(err)[:80]
            parts.append(bit)
        elif r.get("text") and len(parts) < 2:
            t = _one_line(r["text"])
            if t and t != "(no content)":
                parts.append(f"[{r.get('kind')}] " + t[:100])
    return {o: f"{role[o]}: " + " | ".join(p) for o, p in out.items()}


def line_map(logkb: str, env: dict[str, str], sid: str | None) -> dict[int, int]:
    """The scorer's mapping: a file line to the first ordinal whose message names it."""
    where = f"where session_id = '{sid}'" if sid else ""
    rows = _items(_run(logkb, env, "query", "select ordinal, json_extract(raw, '$.lines') as lines "
                                            f"from messages {where}", "--json"))
    out: dict[int, int] = {}
    for r in rows:
        ls = r.get("lines")
        for ln in (json.loads(ls) if isinstance(ls, str) else ls) or []:
            out.setdefault(int(ln), int(r["ordinal"]))
    return out


class Prepared(NamedTuple):
    """One labelled session ingested into a knowledge base of its own."""

    label: dict[str, Any]
    env: dict[str, str]
    """The environment whose ``LOGKB_DB`` is that knowledge base."""
    scope: list[str]
    """``--session ID`` when the label names the session."""
    at: Callable[[int, int | None], int]
    """A labelled ordinal (and file line, when the label gives one) as logkb's ordinal."""
    lab_de: list[set[int]]
    """Each labelled dead end's evidence, as logkb's ordinals."""


def prepare(logkb: str, label: Path, source: Path, tmp: Path, *,
            drop: tuple[str, ...] = ()) -> Prepared:
    """Copy ``source`` into ``tmp``, ingest it (with the variables in ``drop`` unset) and
    map the label's evidence to logkb's ordinals through the lines each message names."""
    lab = json.loads(label.read_text())
    d = tmp / label.stem
    d.mkdir()
    src = d / source.name
    src.write_bytes(source.read_bytes())
    env = dict(os.environ, LOGKB_DB=str(d / "kb.duckdb"), LOGKB_HOME=str(d), NO_COLOR="1")
    for name in drop:
        env.pop(name, None)
    _run(logkb, env, "ingest", str(src))
    sid = lab.get("session_id")
    scope = ["--session", sid] if sid else []
    lm = line_map(logkb, env, sid) if any("lines" in dl for dl in lab["dead_ends"]) else {}

    def at(o: int, ln: int | None) -> int:
        return lm.get(int(ln), o) if ln is not None and lm else o

    lab_de = [{at(o, ln) for o, ln in zip(dl["evidence"],
                                          dl.get("lines") or [None] * len(dl["evidence"]))}
              for dl in lab["dead_ends"]]
    return Prepared(lab, env, scope, at, lab_de)


def reported(logkb: str, env: dict[str, str], scope: list[str]) -> list[dict[str, Any]]:
    """What ``deadends --json`` reports as a dead end (blocked and superseded ones too)."""
    return [i for i in _items(_run(logkb, env, "deadends", *scope, "--json"))
            if str(i.get("status", "")).replace("-", "_") in ("dead_end", "blocked", "superseded")]


def match(lab_de: Sequence[set[int]], dead: Sequence[dict[str, Any]]) -> dict[int, int]:
    """Label index: reported index, one-to-one by maximum evidence overlap (as the
    scorer pairs them)."""
    g = nx.Graph()
    for n, ev in enumerate(lab_de):
        for m, it in enumerate(dead):
            w = len(ev & _ords(it))
            if w:
                g.add_edge(("L", n), ("R", m), weight=w)
    pairs = [(a, b) if a[0] == "L" else (b, a)
             for a, b in nx.max_weight_matching(g, maxcardinality=True)]
    return {n: m for (_, n), (_, m) in pairs}


def examine(logkb: str, label: Path, source: Path, tmp: Path, *, with_views: bool = True
            ) -> dict[str, Any]:
    """Ingest one labelled session and pair what logkb reports with the label, as the
    scorer does (one-to-one by evidence overlap, :mod:`bench.rule_support` too)."""
    lab, env, scope, at, lab_de = prepare(logkb, label, source, tmp)
    sid = lab.get("session_id")
    dead = reported(logkb, env, scope)
    got = match(lab_de, dead)
    labelled = set().union(*lab_de) if lab_de else set()
    traps = {at(o, ln) for o, ln in zip(lab.get("false_positive_traps") or [],
                                        lab.get("false_positive_trap_lines") or [None] * 10**4)}
    return {"name": label.stem, "label": lab, "lab_de": lab_de, "dead": dead, "got": got,
            "labelled": labelled, "traps": traps,
            "views": views(logkb, env, sid) if with_views else {}}


def _cause_right(dl: dict[str, Any], it: dict[str, Any]) -> bool:
    text = json.dumps([it.get(k) for k in ("cause", "cause_id", "cause_text", "reason", "why")]).lower()
    return any(k.lower() in text for k in dl.get("cause_keywords") or [])


def report(r: dict[str, Any], causes: bool) -> list[str]:
    lab, dead, got, vw = r["label"], r["dead"], r["got"], r["views"]
    true = sum(1 for it in dead if _ords(it) & r["labelled"])
    out = [f"== {r['name']}: found {len(got)}/{len(lab['dead_ends'])}, reported {len(dead)} "
           f"({true} true)"]

    def show(ordinals: set[int]) -> None:
        for o in sorted(ordinals):
            trap = " TRAP" if o in r["traps"] else ""
            out.append(f"    {o:>4}{trap} {vw.get(o, '(no message)')}"[:WIDTH + 40])

    for n, dl in enumerate(lab["dead_ends"]):
        if n in got:
            if causes and not _cause_right(dl, dead[got[n]]):
                out.append(f"  CAUSE {dl['name'][:70]}")
                out.append(f"    want {dl.get('cause_keywords')}; got "
                           f"{str(dead[got[n]].get('cause'))[:90]}")
            continue
        out.append(f"  MISS  {dl['name'][:90]}")
        out.append(f"    kind: {dl.get('kind')}; keywords {dl.get('cause_keywords')}")
        show(r["lab_de"][n])
    for it in dead:
        if _ords(it) & r["labelled"]:
            continue
        out.append(f"  EXTRA {str(it.get('name'))[:70]} [{it.get('status')}]")
        out.append(f"    cause: {str(it.get('cause'))[:100]}")
        show(_ords(it))
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(prog="python -m bench labels-misses",
                                 description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--logkb", default=str(ROOT / ".venv" / "bin" / "logkb"))
    ap.add_argument("--set", choices=("shared", "tune"), default="tune")
    ap.add_argument("--causes", action="store_true", help="also matched ones with a wrong cause")
    ap.add_argument("names", nargs="*", help="label stems (default: all of the set)")
    a = ap.parse_args(argv)
    pairs = [(lp, sp) for lp, sp in labels(a.set) if not a.names or lp.stem in a.names]
    miss = found = total = 0
    with tempfile.TemporaryDirectory(prefix="logkb-misses-") as tmp:
        for lp, sp in pairs:
            try:
                r = examine(a.logkb, lp, sp, Path(tmp))
            except Exception as exc:  # noqa: BLE001 - one bad session is a line, not the end
                print(f"== {lp.stem}: error: {str(exc)[:200]}")
                continue
            total += len(r["label"]["dead_ends"])
            found += len(r["got"])
            miss += len(r["label"]["dead_ends"]) - len(r["got"])
            for line in report(r, a.causes):
                print(line)
            sys.stdout.flush()
    print(f"-- {a.set}: {found}/{total} found, {miss} missed")


if __name__ == "__main__":
    main(sys.argv[1:])
