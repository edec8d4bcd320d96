"""Answers built on the persisted graph: stories, timelines, hand-off briefs, exports.

Every function takes a :class:`~kb.store.KbStore` and scopes, reads the
persisted graph (never rebuilds it) and returns plain data or text that the CLI
prints and the TUI shows.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from collections.abc import Mapping
from typing import Any

import networkx as nx

from kb.graph import store as gs
from kb.graph.text import short, similarity, tokens
from kb.store import KbNotFound, KbStore
from kb.width import fit_title
from logparse.measure_plumbing import (  # noqa: F401  (re-exported: the old import path)
    PLUMBING_LABELS,
    harness_of_call,
    is_harness_reading,
    is_listing_size,
    is_plumbing,
    is_plumbing_reading,
)

STATUS_MARK = {"dead_end": "✘", "blocked": "⊘", "superseded": "↷", "confirmed": "✔",
               "open": "▶"}
ENDED = ("dead_end", "blocked", "superseded")


# ------------------------------------------------------------------- why
def find_approach(store: KbStore, scopes: list[str], ref: str) -> dict[str, Any]:
    """An approach by name (fuzzy), node id, or by an ordinal it involves."""
    items = gs.approaches(store, scopes)
    if not items:
        raise KbNotFound("the knowledge graph has no approaches yet")
    if ref.startswith("approach:"):
        for a in items:
            if a["node_id"] == ref:
                return a
    if ref.isdigit():
        o = int(ref)
        hits = [a for a in items if any(e["ordinal"] == o for e in a["evidence"])]
        if not hits:
            hits = [a for a in items if a["kind"] == "approach" and a["ordinal"] <= o
                    and (a.get("ended") is None or a["ended"] >= o)]
        if not hits:
            raise KbNotFound(f"no approach involves message {o}")
        return max(hits, key=lambda a: a["ordinal"])
    want = tokens(ref)
    scored = []
    for a in items:
        names = [a["label"], *a.get("aliases", [])]
        score = max(similarity(want, tokens(n)) for n in names)
        if ref.lower() in " ".join(names).lower():
            score += 1
        scored.append((score, a["kind"] == "approach", a))
    scored.sort(key=lambda x: (x[0], x[1]), reverse=True)
    if not scored or scored[0][0] < 0.5:
        raise KbNotFound(f"no approach named like {ref!r}")
    return scored[0][2]


def approach_matches(store: KbStore, scopes: list[str], ref: str) -> list[dict[str, Any]]:
    """The approaches a name-like ``ref`` could mean when it is ambiguous: every one whose
    name or alias contains it (``allreduce`` → the four allreduce approaches); empty when
    ``ref`` names one approach exactly, is an ordinal or a node id, or contains none."""
    if ref.isdigit() or ref.startswith("approach:"):
        return []
    want = ref.lower().strip()
    items = [a for a in gs.approaches(store, scopes) if a["kind"] != "goal"]
    exact = [a for a in items if want in (n.lower() for n in [a["label"], *a.get("aliases", [])])]
    if len(exact) == 1:
        return []
    hits = [a for a in items
            if any(want in n.lower() for n in [a["label"], *a.get("aliases", [])])]
    return sorted(hits, key=lambda a: a["ordinal"]) if len(hits) > 1 else []


def story(store: KbStore, scopes: list[str], ref: str) -> dict[str, Any]:
    """Everything the graph knows of one approach: proposal, tests, end, cause, successors."""
    a = find_approach(store, scopes, ref)
    nid = a["node_id"]
    edges = gs.neighbors(store, scopes, nid)
    replaced_by = [{"name": e["other"].get("label"), "ordinal": e["ordinal"],
                    "text": e.get("text")}
                   for e in edges if e["type"] == "pivoted_to" and e["direction"] == "out"]
    came_from = [{"name": e["other"].get("label"), "ordinal": e["ordinal"],
                  "text": e.get("text")}
                 for e in edges if e["type"] == "pivoted_to" and e["direction"] == "in"]
    experiments = [e["other"] for e in edges if e["type"] == "tested_by"]
    cause_peers: list[str] = []
    if a.get("cause_key"):
        cid = f"cause:{a['cause_key']}"
        cause_peers = [e["other"].get("label") for e in gs.neighbors(store, scopes, cid)
                       if e["type"] == "failed_because" and e["src"] != nid]
    questions = [e["other"] for e in edges if e["type"] == "asks_about"]
    decisions = [e["other"] for e in edges if e["type"] == "about"]
    research = [e["other"] for e in edges if e["type"] == "researched_in"]
    if not replaced_by and a.get("ended") is not None:
        later = [x for x in gs.approaches(store, scopes) if x["kind"] == "approach"
                 and x["session_id"] == a["session_id"] and x["ordinal"] > a["ended"]]
        if later:
            nxt = min(later, key=lambda x: x["ordinal"])
            replaced_by = [{"name": nxt["label"], "ordinal": nxt["ordinal"], "text": None,
                            "inferred": True}]
    return {"approach": a, "experiments": sorted(experiments, key=lambda x: x["ordinal"]),
            "replaced_by": replaced_by, "came_from": came_from, "shares_cause_with":
            cause_peers, "questions": questions, "decisions": decisions,
            "research": research}


def story_text(s: dict[str, Any]) -> str:
    a = s["approach"]
    lines = [f"{STATUS_MARK.get(a['status'], '·')} {a['label']}  [{a['status']}]"]
    if s.get("session"):  # which session answered (`logkb why` sets it)
        at = s["session"]
        title = " ".join((at.get("title") or "").split())
        lines.append(f"  session {at['short_id']}"
                     + (f" ({fit_title(title, 48)})" if title else ""))
    if a.get("aliases"):
        lines.append(f"  also called: {'; '.join(a['aliases'])}")
    lines.append(f"  proposed at message {a['ordinal']} (from {', '.join(a['sources'])})")
    by_pivot: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for c in s["came_from"]:
        by_pivot[c["ordinal"]].append(c)
    for o, group in by_pivot.items():
        said = f': "{short(group[0]["text"], 140)}"' if group[0].get("text") else ""
        lines.append(f"  pivot at {o} from {', '.join(c['name'] for c in group)}{said}")
    for r in s["research"]:
        lines.append(f"  researched in subagent session {r.get('session_id')}: "
                     f"{short(r.get('label') or '', 80)}")
    if s["experiments"]:
        lines.append("  tested by:")
        for x in s["experiments"]:
            outcome = " | ".join(x.get("signatures") or []) or ", ".join(
                f"{m['label']} {m['value']:g} {m['unit']}".strip()
                for m in (x.get("measurements") or [])[:2]) or x.get("status") or ""
            where = f" on {x['host']}" if x.get("host") else ""
            lines.append(f"    {x['ordinal']:>6} {x.get('category', '')}{where}: "
                         f"{short(x.get('label') or '', 70)}")
            if outcome:
                lines.append(f"           → {outcome}")
    # an end read twice in the same words (the file changed again at 120 and at 128) is
    # one line: "ended at 120, 128: changed q3_swap_decoding/README.md"
    told: dict[tuple[str, str], list[int]] = {}
    for e in a["evidence"]:
        if e["role"] in ("ended", "annotated", "confirmed"):
            told.setdefault((e["role"], short(e.get("note") or "", 160)), []).append(
                e["ordinal"])
    for (role, note), ords in told.items():
        lines.append(f"  {role} at {', '.join(map(str, ords))}: {note}")
    if a.get("cause"):
        peers = f" (shared with: {', '.join(s['shares_cause_with'])})" \
            if s["shares_cause_with"] else ""
        lines.append(f"  cause: {a['cause']}{peers}")
    for q in s["questions"]:
        lines.append(f"  never answered: {q.get('label')} ({q.get('reason')}, message "
                     f"{q.get('ordinal')})")
    for r in a.get("risks", []):
        lines.append(f"  risk: {r}")
    if a.get("revisit"):
        lines.append(f"  revisit: {a['revisit']}")
    for n in a.get("notes", []):
        lines.append(f"  note {n}")
    for r in s["replaced_by"]:
        how = "next tried" if r.get("inferred") else "replaced by"
        lines.append(f"  {how}: {r['name']} (at {r['ordinal']})")
    for d in s["decisions"]:
        lines.append(f"  decision at {d['ordinal']}: {short(d.get('label') or '', 120)}")
    return "\n".join(lines)


# -------------------------------------------------------------- deadends
def deadends_text(items: list[dict[str, Any]]) -> str:
    by_cause: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in items:
        by_cause[d["cause"] or "cause unknown"].append(d)
    out = []
    for cause, group in sorted(by_cause.items(), key=lambda kv: min(
            d["ended_at"] or 0 for d in kv[1])):
        share = f"  ({len(group)} dead ends share this cause)" if len(group) > 1 else ""
        out.append(f"{cause}{share}")
        for d in group:
            tested = sorted({e["ordinal"] for e in d["evidence"] if e["role"] == "tested"})
            t = f"tested {', '.join(map(str, tested[:6]))}" if tested else "never tested"
            out.append(f"  {STATUS_MARK.get(d['status'], '·')} {d['name']:<40} "
                       f"{d['status']:<10} {t} · ended {d['ended_at']}")
            if d.get("revisit"):
                out.append(f"      revisit: {d['revisit']}")
        out.append("")
    return "\n".join(out).rstrip()


# -------------------------------------------------------------- timeline
_BLOCKS = "▁▂▃▄▅▆▇█"


_DURATION_UNITS = frozenset({"ns", "µs", "us", "ms", "s", "min", "h"})
_RATE_UNITS = frozenset({"tps", "qps", "IOPS", "TFLOPS", "GFLOPS", "fps"})
_SIZE_UNITS = frozenset({"B", "kB", "KiB", "MB", "MiB", "GB", "GiB", "TB", "TiB", "PB"})
_AGGREGATE_WORDS = ("peak", "max", "min", "total", "stdev", "std")


def _quantity_rank(unit: str, label: str, points: int) -> tuple[int, int, int]:
    """How well a measured quantity shows a session's progress: rates first, then
    latencies and durations, then ratios and sizes, then counts; the most repeated within
    a kind; an aggregate (peak, max, total) after the quantity itself, output before input."""
    if "/" in unit or unit in _RATE_UNITS:
        kind = 3
    elif unit in _DURATION_UNITS:
        kind = 2
    elif unit in _SIZE_UNITS or unit in ("%", "x"):
        kind = 1
    else:
        kind = 0
    low = label.lower()
    bias = ("output" in low) - any(w in low for w in _AGGREGATE_WORDS)
    return kind, points, bias


def dominant_quantity(quantities: list[tuple[str, str, int]]) -> tuple[str, str] | None:
    """The ``(unit, label)`` to chart from ``(unit, label, points)`` rows: what the session
    measured most, preferring rates, latencies and durations (see :func:`_quantity_rank`);
    of two that rank alike, the first in ``quantities`` (the one read first)."""
    if not quantities:
        return None
    unit, label, _ = max(quantities, key=lambda q: _quantity_rank(q[0], q[1], q[2]))
    return unit, label


def measured_quantities(store: KbStore, session_ids: list[str]) -> list[tuple[str, str, int]]:
    """Every quantity the sessions' command results measured, harness plumbing and exit
    codes left out: ``(unit, label, points)``, points counting the messages that
    measured it."""
    listed: dict[tuple[str, str], set[tuple[str, int]]] = {}
    for sid, o, ms in gs.listing_readings(store, session_ids):  # a listing's bare names
        for (lab, u), theirs in zip(ms, harness_of_call(ms), strict=True):
            if theirs and not is_harness_reading(lab, u):
                listed.setdefault((u or "", lab), set()).add((sid, o))
    # a quantity read only as a listing's file sizes (ls -la's "Dockerfile: 687 B") was
    # the series the timeline charted for labelled/pfm-categorization
    return [(u, lab, n) for u, lab, n in gs.measured_quantities(store, session_ids)
            if not is_harness_reading(lab, u) and len(listed.get((u, lab), ())) < n]


def throughput(store: KbStore, scopes: list[str]) -> list[dict[str, Any]]:
    """The scopes' progress series: every reading of the quantity they measured most (a
    rate such as ``tok/s`` or ``req/s``, else a latency or duration, else a size or count;
    see :func:`dominant_quantity`), in order, each with its unit and label."""
    sids = [s for sc in scopes for s in gs.scope_sessions(store, sc)]
    q = dominant_quantity(measured_quantities(store, sids))
    if q is None:
        return []
    unit, label = q
    return [m for m in gs.measurements(store, scopes, unit) if (m["label"] or "") == label]


_HIGHER_UNITS = frozenset({"tps", "qps", "iops", "tflops", "gflops", "fps", "passed",
                           "tests passed", "gbit/s", "mbit/s", "kbit/s", "bit/s"})
_LOWER_UNITS = frozenset({"ns", "µs", "ms", "s", "min", "h", "failed", "errors", "failures",
                          "warnings", "vulnerabilities", "data races", "ns/op", "b/op",
                          "allocs/op", "tsc errors"})


def direction(unit: str) -> int | None:
    """Which way a quantity gets better: ``1`` higher (a rate, tests passed), ``-1``
    lower (a duration, a latency, errors, failures), ``None`` when no side is better
    (a size, a count of things, a percentage, an HTTP status)."""
    u = unit.strip().lower()
    if u in _HIGHER_UNITS or u.endswith(("/s", "/sec")):
        return 1
    if u in _LOWER_UNITS:
        return -1
    return None


NO_TIMELINE = "no approaches or measurements yet"
"""What :func:`timeline_text` returns when there is nothing to chart (a diagnostic)."""


def timeline_text(store: KbStore, scopes: list[str], width: int = 64,
                  start: int | None = None, end: int | None = None) -> str:
    """Approaches as bars and throughput as a sparkline over message ordinals.

    The range defaults to where approaches were tracked (all messages if none)."""
    items = [a for a in gs.approaches(store, scopes) if a["kind"] != "goal"]
    series = throughput(store, scopes)
    asked = (start, end)
    if start is None and items:
        start = min(a["ordinal"] for a in items)
    if start is not None:
        series = [m for m in series if m["ordinal"] >= start]
    if asked[0] is not None:
        # an approach is in the range when it runs into it: `--from 60` showed the one
        # that ended at 59, its axis 52–59 (the range asked for was ignored)
        items = [a for a in items if (a["ended"] if a.get("ended") is not None else (
            a["ordinal"] if a["status"] != "open" else 1 << 62)) >= asked[0]]
    if end is not None:
        series = [m for m in series if m["ordinal"] <= end]
        items = [a for a in items if a["ordinal"] <= end]
    ords = [a["ordinal"] for a in items] + [m["ordinal"] for m in series]
    if not ords:
        if asked != (None, None):  # "yet" said there was nothing at all
            return (f"{NO_TIMELINE.removesuffix(' yet')} in messages "
                    f"{asked[0] or 1}–{asked[1] if asked[1] is not None else 'end'}")
        return NO_TIMELINE
    lo = max(min(ords), asked[0]) if asked[0] is not None else min(ords)
    hi = max(ords + [a.get("ended") or 0 for a in items])
    if asked[1] is not None:
        hi = min(hi, asked[1])
    span = max(1, hi - lo)

    def col(o: int) -> int:  # a bar that began before the range starts at its edge
        return max(0, min(width - 1, int((o - lo) * (width - 1) / span)))

    name_w = min(38, max((len(a["label"]) for a in items), default=10))
    lines = [f"{'messages':<{name_w}} {lo:<{width // 2}}{hi:>{width - width // 2}}"]
    for a in items:
        row = [" "] * width
        start = col(a["ordinal"])
        end = col(a["ended"]) if a.get("ended") is not None else (
            width - 1 if a["status"] == "open" else start)
        for i in range(start, end + 1):
            row[i] = "─"
        row[start] = "●"
        mark = STATUS_MARK.get(a["status"], "·")
        row[end] = mark if a["status"] != "open" else "▶"
        label = short(a["label"], name_w)
        status = a["status"] + (f": {short(a['cause'], 28)}" if a.get("cause") else "")
        lines.append(f"{label:<{name_w}} {''.join(row)} {status}")
    if series:
        cols: dict[int, list[float]] = defaultdict(list)
        for m in series:
            cols[col(m["ordinal"])].append(m["value"])
        vals = [v for vs in cols.values() for v in vs]
        vmin, vmax = min(vals), max(vals)
        row = []
        for i in range(width):
            if i in cols:
                v = max(cols[i])
                k = 0 if vmax == vmin else int((v - vmin) / (vmax - vmin) * (len(_BLOCKS) - 1))
                row.append(_BLOCKS[k])
            else:
                row.append(" ")
        label = short(f"{series[0]['unit']} ({series[0]['label'] or 'throughput'})", name_w)
        lines.append(f"{label:<{name_w}} {''.join(row)} {vmin:g}–{vmax:g}")
        first, last = series[0], series[-1]
        sign = direction(first["unit"] or "")
        if len(series) == 1:
            stats = f"one reading: {first['value']:g} at {first['ordinal']}"
        else:  # "best" only where a side is better: the largest duration is the worst
            best = max(series, key=lambda m: sign * m["value"]) if sign else None
            stats = f"first {first['value']:g} at {first['ordinal']}, " + (
                f"best {best['value']:g} at {best['ordinal']}, " if best else "") + \
                f"last {last['value']:g} at {last['ordinal']}"
        # under the chart when it fits there, else on a line of its own (never cut)
        lines.append(f"{'':<{name_w}} {stats}" if len(stats) <= width + 26 else f"  {stats}")
    return "\n".join(lines)


def timeline_data(store: KbStore, scopes: list[str]) -> dict[str, Any]:
    series = throughput(store, scopes)
    sign = direction(series[0]["unit"] or "") if series else None
    # one reading is no best (the text says "one reading"; kb.handoff says the same)
    best = max(series, key=lambda m: sign * m["value"]) if sign and len(series) >= 2 else None
    return {"approaches": [{"name": a["label"], "status": a["status"], "kind": a["kind"],
                            "start": a["ordinal"], "end": a.get("ended"),
                            "cause": a.get("cause")}
                           for a in gs.approaches(store, scopes)],
            "throughput": series,
            # which way the quantity gets better (1 higher, -1 lower, null: no side), and
            # the best reading where there is a better side
            "direction": sign,
            "best": {"ordinal": best["ordinal"], "value": best["value"]} if best else None}


# --------------------------------------------------------------- handoff
# The hand-off brief lives in kb/handoff.py (data, Markdown, --max-tokens).


# ---------------------------------------------------------------- export
def _scalar_attrs(d: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in d.items():
        if v is None:
            continue
        out[k] = v if isinstance(v, (str, int, float, bool)) else json.dumps(v, default=str)
    return out


def export(g: nx.MultiDiGraph, fmt: str, *, compact: bool = False,
           links: Mapping[str, str] | None = None) -> str:
    """The graph as ``json`` (node-link data; ``compact``: on one line), ``graphml``,
    ``dot`` (Graphviz) or ``mermaid``.  ``links`` (dot only): a URL per node id, which
    Graphviz's SVG output turns into a link (the HTML report's graph)."""
    if fmt == "json":
        return json.dumps(nx.node_link_data(g, edges="edges"), default=str,
                          indent=None if compact else 1,
                          separators=(",", ":") if compact else None)
    if fmt == "graphml":
        h = nx.MultiDiGraph()
        for n, d in g.nodes(data=True):
            h.add_node(n, **_scalar_attrs(d))
        for u, v, d in g.edges(data=True):
            h.add_edge(u, v, **_scalar_attrs(d))
        return "\n".join(nx.generate_graphml(h))
    if fmt == "dot":
        return _dot(g, links)
    if fmt == "mermaid":
        return _mermaid(g)
    raise ValueError(f"unknown format {fmt!r}")


# dot and mermaid are views for people: approaches (coloured by status) with the dead ends
# grouped under their causes, pivots, risks, untested questions and decisions.  Experiments
# are folded into their approach's label ("tested 4126, 4131") and session nodes left out:
# as nodes they are most of the graph and make it a hairball.  json and graphml keep all.
_STATUS_COLORS = {  # status: (fill, border)
    "dead_end": ("#f9d6d5", "#b03a2e"), "blocked": ("#fde8c8", "#ca6f1e"),
    "superseded": ("#e5e7e9", "#7b7d7d"), "confirmed": ("#d4efdf", "#1e8449"),
    "open": ("#d6eaf8", "#2471a3")}
_STATUS_WORDS = {"dead_end": "dead end", "blocked": "blocked", "superseded": "superseded",
                 "confirmed": "confirmed", "open": "open"}
_VIEW_EDGES = {"pivoted_to", "at_risk_from", "asks_about", "about", "researched_in"}


def _view(g: nx.MultiDiGraph) -> dict[str, Any]:
    """What the dot and mermaid views draw: nodes by role, causes with their dead ends."""
    def num(v: Any) -> int | None:
        try:
            return int(v)
        except (TypeError, ValueError):
            return None

    approaches, questions, decisions, sessions = [], [], [], []
    tested: dict[str, list[int]] = defaultdict(list)
    for n, d in g.nodes(data=True):
        t = d.get("type")
        if t == "approach":
            approaches.append(n)
        elif t == "question":
            questions.append(n)
        elif t == "decision":
            decisions.append(n)
    cause_of: dict[str, str] = {}
    for u, v, d in g.edges(data=True):
        t = d.get("type")
        if t == "tested_by" and num(g.nodes[v].get("ordinal")) is not None:
            tested[u].append(num(g.nodes[v].get("ordinal")))  # type: ignore[arg-type]
        elif t == "failed_because" and g.nodes[u].get("type") == "approach":
            cause_of.setdefault(u, v)
        elif t == "researched_in":
            sessions.append(v)
    approaches.sort(key=lambda n: (num(g.nodes[n].get("ordinal")) or 0, n))
    clusters: dict[str, list[str]] = defaultdict(list)
    for a in approaches:
        if a in cause_of:
            clusters[cause_of[a]].append(a)
    edges = [(u, v, d) for u, v, d in g.edges(data=True) if d.get("type") in _VIEW_EDGES]
    return {"approaches": approaches, "questions": questions, "decisions": decisions,
            "sessions": sorted(set(sessions)), "tested": tested, "clusters": clusters,
            "cause_of": cause_of, "edges": edges, "num": num}


def _approach_label(d: dict[str, Any], tested: list[int], num: Any) -> list[str]:
    start, end = num(d.get("ordinal")), num(d.get("ended"))
    span = f"{start}–{end}" if start is not None and end is not None else (
        f"from {start}" if start is not None else "")
    kind = d.get("kind")
    head = ("goal: " if kind == "goal" else "") + short(str(d.get("label") or ""), 48)
    lines = [head]
    meta = [x for x in (span, _STATUS_WORDS.get(d.get("status") or "", "")) if x]
    if meta:
        lines.append(" · ".join(meta))
    if tested:
        t = sorted(set(tested))
        lines.append("tested " + ", ".join(map(str, t[:4])) + (" …" if len(t) > 4 else ""))
    return lines


def _dot_str(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


_SHAPES = {"approach": "box", "cause": "octagon", "experiment": "ellipse",
           "question": "diamond", "decision": "note", "session": "folder"}
_COLORS = {"dead_end": "red", "blocked": "orange", "superseded": "gray", "confirmed": "green",
           "open": "blue"}


def _dot(g: nx.MultiDiGraph, links: Mapping[str, str] | None = None) -> str:
    """Graphviz: dead ends in one cluster per cause, colours by status, a legend."""
    v = _view(g)
    num = v["num"]
    ids: dict[str, str] = {}

    def nid(n: str) -> str:
        return ids.setdefault(n, f"n{len(ids)}")

    def url(n: str) -> str:
        u = (links or {}).get(n)
        return f' URL="{_dot_str(u)}" target="_top"' if u else ""

    out = ["digraph logkb {", "  rankdir=TB; newrank=true; nodesep=0.25; ranksep=0.35;",
           '  graph [fontname="Helvetica" fontsize=11 labeljust=l];',
           '  node [fontname="Helvetica" fontsize=10 shape=box style="rounded,filled" '
           'margin="0.12,0.05"];',
           '  edge [fontname="Helvetica" fontsize=9 color="#555555" arrowsize=0.6];']

    def node(n: str, indent: str = "  ") -> str:
        d = g.nodes[n]
        fill, border = _STATUS_COLORS.get(d.get("status") or "", ("#ffffff", "#555555"))
        label = "\\n".join(_dot_str(x) for x in _approach_label(d, v["tested"].get(n, []),
                                                                 num))
        shape = ' shape=doubleoctagon style="filled"' if d.get("kind") == "goal" else ""
        pen = " penwidth=2" if d.get("annotated") in (True, "True") else ""
        return (f'{indent}{nid(n)} [label="{label}" fillcolor="{fill}" color="{border}"'
                f"{shape}{pen}{url(n)}];")

    for k, (cause, members) in enumerate(sorted(
            v["clusters"].items(), key=lambda kv: min(num(g.nodes[m].get("ended")) or 0
                                                      for m in kv[1]))):
        title = _dot_str(short(str(g.nodes[cause].get("label") or cause), 60))
        out += [f"  subgraph cluster_cause{k} {{",
                f'    label="cause: {title}"; style="rounded,filled"; fillcolor="#fbfbfb"; '
                'color="#b03a2e"; fontcolor="#b03a2e";']
        out += [node(m, "    ") for m in members]
        out.append("  }")
    for a in v["approaches"]:
        if a not in v["cause_of"]:
            out.append(node(a))
    for q in v["questions"]:
        d = g.nodes[q]
        label = _dot_str(f"untested @{d.get('ordinal')}\n{short(str(d.get('label') or ''), 44)}")
        label = label.replace("\\\\n", "\\n")
        out.append(f'  {nid(q)} [label="{label}" shape=diamond style="filled" '
                   f'fillcolor="#fef9e7" color="#b7950b"{url(q)}];')
    for n in v["decisions"]:
        d = g.nodes[n]
        label = _dot_str(f"decision @{d.get('ordinal')}: {short(str(d.get('label') or ''), 50)}")
        out.append(f'  {nid(n)} [label="{label}" shape=note style="filled" '
                   f'fillcolor="#f4ecf7" color="#7d3c98"{url(n)}];')
    for n in v["sessions"]:
        d = g.nodes[n]
        label = _dot_str(f"subagent {str(n)[:16]}…\n{short(str(d.get('label') or ''), 40)}")
        label = label.replace("\\\\n", "\\n")
        out.append(f'  {nid(n)} [label="{label}" shape=folder style="filled" '
                   f'fillcolor="#f2f3f4" color="#7b7d7d"{url(n)}];')
    # pivots go from every approach they ended to the one they started: draw one edge per
    # (pivot, target) from the last ended approach, the others joined by a thin edge
    for u, w, d in v["edges"]:
        if u not in ids or w not in ids:
            continue
        t = d.get("type")
        at = f" @{d['ordinal']}" if d.get("ordinal") is not None else ""
        if t == "pivoted_to":
            attrs = f'label="pivot{at}" color="#ca6f1e" fontcolor="#ca6f1e" penwidth=1.4'
        elif t == "at_risk_from":
            attrs = 'label="risk" style=dashed color="#b03a2e" fontcolor="#b03a2e"'
        elif t == "asks_about":
            attrs = 'style=dotted arrowhead=none color="#b7950b"'
        elif t == "about":
            attrs = 'style=dotted arrowhead=none color="#7d3c98"'
        else:
            attrs = f'label="{t}" style=dotted'
        out.append(f"  {ids[u]} -> {ids[w]} [{attrs}];")
    # time runs down: one row per message that proposed something (approaches, questions,
    # decisions proposed at the same message side by side), rows joined invisibly
    rows: dict[int, list[str]] = defaultdict(list)
    for n in [*v["approaches"], *v["questions"], *v["decisions"]]:
        o = num(g.nodes[n].get("ordinal"))
        if o is not None:
            rows[o].append(ids[n])
    order = sorted(rows)
    for o in order:
        if len(rows[o]) > 1:
            out.append(f"  {{rank=same; {'; '.join(rows[o])};}}")
    for a, b in zip(order, order[1:]):
        out.append(f"  {rows[a][0]} -> {rows[b][0]} [style=invis weight=4];")
    # the legend, one row at the bottom
    legend = []
    out += ["  subgraph cluster_legend {", '    label="legend"; style="rounded"; '
            'color="#aaaaaa"; fontcolor="#555555";']
    for status, (fill, border) in _STATUS_COLORS.items():
        out.append(f'    legend_{status} [label="{_STATUS_WORDS[status]}" fillcolor="{fill}" '
                   f'color="{border}"];')
        legend.append(f"legend_{status}")
    out += ['    legend_q [label="untested question" shape=diamond style="filled" '
            'fillcolor="#fef9e7" color="#b7950b"];',
            '    legend_p [label="pivot →" shape=plain style="" fontcolor="#ca6f1e"];',
            '    legend_r [label="risk ⇢" shape=plain style="" fontcolor="#b03a2e"];',
            '    legend_c [label="red box: dead ends sharing a cause" shape=plain style="" '
            'fontcolor="#b03a2e"];']
    legend += ["legend_q", "legend_p", "legend_r", "legend_c"]
    out.append(f"    {{rank=same; {'; '.join(legend)};}}")
    for first, second in zip(legend, legend[1:]):
        out.append(f"    {first} -> {second} [style=invis];")
    out.append("  }")
    if order:
        out.append(f"  {rows[order[-1]][0]} -> legend_{next(iter(_STATUS_COLORS))} "
                   "[style=invis];")
    out.append("}")
    return "\n".join(out)


def _mermaid(g: nx.MultiDiGraph) -> str:
    """Mermaid: the same view as :func:`_dot` (clusters per cause, classes by status,
    a legend)."""
    v = _view(g)
    num = v["num"]
    ids: dict[str, str] = {}

    def nid(n: str) -> str:
        return ids.setdefault(n, f"n{len(ids)}")

    def text(s: str) -> str:
        return html.escape(s).replace('"', "#quot;")

    out = ["flowchart TB"]
    for status, (fill, border) in _STATUS_COLORS.items():
        out.append(f"  classDef {status} fill:{fill},stroke:{border},color:#111")
    out += ["  classDef question fill:#fef9e7,stroke:#b7950b,color:#111",
            "  classDef decision fill:#f4ecf7,stroke:#7d3c98,color:#111",
            "  classDef subagent fill:#f2f3f4,stroke:#7b7d7d,color:#111"]

    def node(n: str) -> str:
        d = g.nodes[n]
        label = "<br/>".join(text(x) for x in _approach_label(d, v["tested"].get(n, []), num))
        o, c = ("{{", "}}") if d.get("kind") == "goal" else ("(", ")")
        cls = d.get("status") if d.get("status") in _STATUS_COLORS else None
        return f'{nid(n)}{o}"{label}"{c}' + (f":::{cls}" if cls else "")

    for k, (cause, members) in enumerate(sorted(
            v["clusters"].items(), key=lambda kv: min(num(g.nodes[m].get("ended")) or 0
                                                      for m in kv[1]))):
        title = text(short(str(g.nodes[cause].get("label") or cause), 60))
        out.append(f'  subgraph cause{k}["cause: {title}"]')
        out += [f"    {node(m)}" for m in members]
        out.append("  end")
    for a in v["approaches"]:
        if a not in v["cause_of"]:
            out.append(f"  {node(a)}")
    for q in v["questions"]:
        d = g.nodes[q]
        out.append(f'  {nid(q)}{{"untested @{d.get("ordinal")}<br/>'
                   f'{text(short(str(d.get("label") or ""), 44))}"}}:::question')
    for n in v["decisions"]:
        d = g.nodes[n]
        out.append(f'  {nid(n)}>"decision @{d.get("ordinal")}: '
                   f'{text(short(str(d.get("label") or ""), 50))}"]:::decision')
    for n in v["sessions"]:
        d = g.nodes[n]
        out.append(f'  {nid(n)}[("subagent {text(str(n)[:16])}…<br/>'
                   f'{text(short(str(d.get("label") or ""), 40))}")]:::subagent')
    for u, w, d in v["edges"]:
        if u not in ids or w not in ids:
            continue
        t = d.get("type")
        at = f" @{d['ordinal']}" if d.get("ordinal") is not None else ""
        if t == "pivoted_to":
            out.append(f"  {ids[u]} ==>|pivot{at}| {ids[w]}")
        elif t == "at_risk_from":
            out.append(f"  {ids[u]} -.->|risk| {ids[w]}")
        elif t in ("asks_about", "about"):
            out.append(f"  {ids[u]} -.- {ids[w]}")
        else:
            out.append(f"  {ids[u]} -.->|{t}| {ids[w]}")
    out.append('  subgraph legend["legend"]')
    out.append("    direction LR")
    for status in _STATUS_COLORS:
        out.append(f'    legend_{status}("{_STATUS_WORDS[status]}"):::{status}')
    out += ['    legend_q{"untested question"}:::question',
            '    legend_a(" ") ==>|pivot| legend_b(" ")',
            '    legend_c(" ") -.->|risk| legend_d(" ")',
            "  end"]
    return "\n".join(out)
