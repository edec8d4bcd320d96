"""Answers built on the persisted graph: stories, timelines, hand-off briefs, exports.

Every function takes a :class:`~kb.store.KbStore` and scopes, reads the
persisted graph (never rebuilds it) and returns plain data or text that the CLI
prints and the TUI shows.
"""

from __future__ import annotations

import html
import json
from collections import defaultdict
from typing import Any

import networkx as nx

from kb.graph import store as gs
from kb.graph.text import short, similarity, tokens
from kb.store import KbNotFound, KbStore

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
    for e in a["evidence"]:
        if e["role"] in ("ended", "annotated", "confirmed"):
            lines.append(f"  {e['role']} at {e['ordinal']}: {short(e.get('note') or '', 160)}")
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
    measured most, preferring rates, latencies and durations (see :func:`_quantity_rank`)."""
    if not quantities:
        return None
    unit, label, _ = max(quantities, key=lambda q: _quantity_rank(q[0], q[1], q[2]))
    return unit, label


def measured_quantities(store: KbStore, session_ids: list[str]) -> list[tuple[str, str, int]]:
    """Every quantity the sessions' command results measured: ``(unit, label, points)``,
    points counting the messages that measured it."""
    rows = store.conn.execute("""
        SELECT m.unit, coalesce(m.label, ''), count(DISTINCT (session_id, ordinal)) FROM (
          SELECT session_id, ordinal, unnest(measurements) AS m FROM calls
          WHERE session_id IN (SELECT unnest($sids)) AND len(measurements) > 0)
        GROUP BY ALL""", {"sids": session_ids}).fetchall()
    return [(u or "", lab, int(n)) for u, lab, n in rows]


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


def timeline_text(store: KbStore, scopes: list[str], width: int = 64,
                  start: int | None = None, end: int | None = None) -> str:
    """Approaches as bars and throughput as a sparkline over message ordinals.

    The range defaults to where approaches were tracked (all messages if none)."""
    items = [a for a in gs.approaches(store, scopes) if a["kind"] != "goal"]
    series = throughput(store, scopes)
    if start is None and items:
        start = min(a["ordinal"] for a in items)
    if start is not None:
        series = [m for m in series if m["ordinal"] >= start]
    if end is not None:
        series = [m for m in series if m["ordinal"] <= end]
        items = [a for a in items if a["ordinal"] <= end]
    ords = [a["ordinal"] for a in items] + [m["ordinal"] for m in series]
    if not ords:
        return "no approaches or measurements yet"
    lo = min(ords)
    hi = max(ords + [a.get("ended") or 0 for a in items])
    span = max(1, hi - lo)

    def col(o: int) -> int:
        return min(width - 1, int((o - lo) * (width - 1) / span))

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
        firsts = series[0], max(series, key=lambda m: m["value"]), series[-1]
        lines.append(f"{'':<{name_w}} first {firsts[0]['value']:g} at {firsts[0]['ordinal']}, "
                     f"best {firsts[1]['value']:g} at {firsts[1]['ordinal']}, "
                     f"last {firsts[2]['value']:g} at {firsts[2]['ordinal']}")
    return "\n".join(lines)


def timeline_data(store: KbStore, scopes: list[str]) -> dict[str, Any]:
    return {"approaches": [{"name": a["label"], "status": a["status"], "kind": a["kind"],
                            "start": a["ordinal"], "end": a.get("ended"),
                            "cause": a.get("cause")}
                           for a in gs.approaches(store, scopes)],
            "throughput": throughput(store, scopes)}


# --------------------------------------------------------------- handoff
def handoff_markdown(store: KbStore, scope: str) -> str:
    scopes = [scope]
    info = store.session(scope)
    prompt = store.events(scope, kinds=["prompt"], limit=1)
    items = gs.approaches(store, scopes)
    dead = gs.dead_ends(store, scopes)
    questions = gs.untested(store, scopes)
    decisions = gs.decisions(store, scopes)
    pivots = gs.pivots(store, scopes)
    series = throughput(store, scopes)
    out = [f"# Hand-off: {info['title'] or scope}", "",
           f"Session `{scope}` · {info['messages']} messages · "
           f"{info['commands']} commands · source {info['source_form']}", ""]
    out += ["## Goal", "", short(prompt[0].text or "", 1200) if prompt else "(no prompt)", ""]
    tried = [a for a in items if a["kind"] == "approach"]
    out += ["## What was tried", "", "| approach | status | proposed | tested | ended | "
            "outcome |", "|---|---|---|---|---|---|"]
    for a in tried:
        tested = sorted({e["ordinal"] for e in a["evidence"] if e["role"] == "tested"})
        outcome = a.get("cause") or next((e.get("note") for e in reversed(a["evidence"])
                                          if e["role"] in ("tested", "confirmed")
                                          and e.get("note")), "") or ""
        out.append(f"| {_md(a['label'])} | {a['status']} | {a['ordinal']} | "
                   f"{', '.join(map(str, tested[:5]))} | {a.get('ended') or ''} | "
                   f"{_md(short(outcome, 90))} |")
    out.append("")
    if pivots:
        out += ["## Pivots", ""]
        label = {a["node_id"]: a["label"] for a in items}  # pivots join approaches
        for p in pivots:
            out.append(f"- message {p['ordinal']}: {label.get(p['src'], p['src'])} → "
                       f"{label.get(p['dst'], p['dst'])}")
        out.append("")
    out += ["## Dead ends, by cause", ""]
    by_cause: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in dead:
        by_cause[d["cause"] or "cause unknown"].append(d)
    for cause, group in by_cause.items():
        out.append(f"### {cause}")
        for d in group:
            ended = next((e for e in d["evidence"] if e["role"] == "ended"), None)
            tested = sorted({e["ordinal"] for e in d["evidence"] if e["role"] == "tested"})
            out.append(f"- **{_md(d['name'])}** ({d['status']}): tested at "
                       f"{', '.join(map(str, tested)) or '-'}, ended at {d['ended_at']}"
                       + (f" — {_md(short(ended['note'], 160))}" if ended and ended.get(
                           "note") else ""))
            for r in d.get("risks", []):
                out.append(f"  - risk: {_md(r)}")
        out.append("")
    if series:
        out += ["## Measurements (throughput)", "", "| message | value | label |", "|---|---|---|"]
        keep = _key_points(series)
        for m in keep:
            out.append(f"| {m['ordinal']} | {m['value']:g} {m['unit']} | {_md(m['label'] or '')} |")
        out.append("")
    risky = [a for a in tried if a["status"] == "open" and a.get("risks")]
    out += ["## Open and untested", ""]
    for q in questions:
        out.append(f"- untested (message {q['ordinal']}): {q['question']} — {q['reason']}")
    for a in [a for a in items if a["status"] == "open"]:
        out.append(f"- open: {_md(a['label'])} (since {a['ordinal']})")
    for a in risky:
        for r in a["risks"]:
            out.append(f"  - risk: {_md(r)}")
    out.append("")
    if decisions:
        d = decisions[-1]
        out += ["## Last decision", "", f"Message {d['ordinal']}: {d['label']}", ""]
    return "\n".join(out)


def _key_points(series: list[dict[str, Any]], limit: int = 15) -> list[dict[str, Any]]:
    """A few measurements that tell the story: first, changes, best, last."""
    if len(series) <= limit:
        return series
    keep = {0, len(series) - 1, max(range(len(series)), key=lambda i: series[i]["value"]),
            min(range(len(series)), key=lambda i: series[i]["value"])}
    changes = sorted(range(1, len(series)), key=lambda i: -abs(
        series[i]["value"] - series[i - 1]["value"]))
    for i in changes:
        if len(keep) >= limit:
            break
        keep.add(i)
    return [series[i] for i in sorted(keep)]


def _md(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


# ---------------------------------------------------------------- export
def _scalar_attrs(d: dict[str, Any]) -> dict[str, Any]:
    out = {}
    for k, v in d.items():
        if v is None:
            continue
        out[k] = v if isinstance(v, (str, int, float, bool)) else json.dumps(v, default=str)
    return out


def export(g: nx.MultiDiGraph, fmt: str) -> str:
    if fmt == "json":
        return json.dumps(nx.node_link_data(g, edges="edges"), default=str, indent=1)
    if fmt == "graphml":
        h = nx.MultiDiGraph()
        for n, d in g.nodes(data=True):
            h.add_node(n, **_scalar_attrs(d))
        for u, v, d in g.edges(data=True):
            h.add_edge(u, v, **_scalar_attrs(d))
        return "\n".join(nx.generate_graphml(h))
    if fmt == "dot":
        return _dot(g)
    if fmt == "mermaid":
        return _mermaid(g)
    raise ValueError(f"unknown format {fmt!r}")


_SHAPES = {"approach": "box", "cause": "octagon", "experiment": "ellipse",
           "question": "diamond", "decision": "note", "session": "folder"}
_COLORS = {"dead_end": "red", "blocked": "orange", "superseded": "gray", "confirmed": "green",
           "open": "blue"}


def _dot(g: nx.MultiDiGraph) -> str:
    ids = {n: f"n{i}" for i, n in enumerate(g.nodes)}
    out = ["digraph logkb {", "  rankdir=LR;", '  node [fontname="Helvetica"];']
    for n, d in g.nodes(data=True):
        label = short(str(d.get("label") or n), 60).replace('"', '\\"')
        extra = f' color="{_COLORS[d["status"]]}"' if d.get("status") in _COLORS else ""
        out.append(f'  {ids[n]} [label="{label}" shape={_SHAPES.get(d.get("type"), "box")}'
                   f'{extra}];')
    for u, v, d in g.edges(data=True):
        lab = d.get("type", "")
        if d.get("ordinal") is not None:
            lab += f" @{d['ordinal']}"
        out.append(f'  {ids[u]} -> {ids[v]} [label="{lab}"];')
    out.append("}")
    return "\n".join(out)


def _mermaid(g: nx.MultiDiGraph) -> str:
    ids = {n: f"n{i}" for i, n in enumerate(g.nodes)}
    shape = {"approach": ("[", "]"), "cause": ("{{", "}}"), "experiment": ("(", ")"),
             "question": ("{", "}"), "decision": (">", "]"), "session": ("[(", ")]")}
    out = ["flowchart LR"]
    for n, d in g.nodes(data=True):
        o, c = shape.get(d.get("type"), ("[", "]"))
        label = html.escape(short(str(d.get("label") or n), 60)).replace('"', "#quot;")
        status = f" ({d['status']})" if d.get("status") in _COLORS else ""
        out.append(f'  {ids[n]}{o}"{label}{status}"{c}')
    for u, v, d in g.edges(data=True):
        lab = d.get("type", "")
        if d.get("ordinal") is not None:
            lab += f" @{d['ordinal']}"
        out.append(f"  {ids[u]} -->|{lab}| {ids[v]}")
    return "\n".join(out)
