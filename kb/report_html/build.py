"""Gather a report's sessions through the store's read API and write its pages.

Everything shown comes from :class:`~kb.store.KbStore` reads that redact (``sessions``,
``events``) or is redacted here with the store's redactor (the persisted graph, whose
rows the graph queries hand out as stored); a store that reveals secrets is refused.
Every text goes through :func:`kb.report_html.text.h` (visible, then escaped).

Pages: ``index.html`` (the sessions), one page per session (``s-ID.html``: the story of
a top-level session, its dead-end graph and its timeline) and, when the timeline would
make that page heavier than :data:`PAGE_BUDGET`, timeline pages ``s-ID.tN.html`` of
about that size each.  Long outputs are cut (head and tail kept) and say by how much.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import networkx as nx

from kb import usage as u
from kb import views
from kb.graph import report as graph_report
from kb.graph import store as gs
from kb.records import Event
from kb.redact import Redactor
from kb.report_html.assets import CSS, JS
from kb.report_html.svg import dot_svg, throughput_svg
from kb.report_html.text import clip, h, script_json
from kb.store import KbStore
from logparse.author import user_words

PAGE_BUDGET = 1_500_000
"""Bytes of timeline one page carries at most (the issue's limit is 2 MB a page)."""
INDEX_BUDGET = 450_000
"""Bytes of search index a session's first page embeds for the whole session."""
OUTPUT_HEAD, OUTPUT_TAIL = 2000, 600
"""Characters of a long command output kept from its start and its end."""
PROSE_MAX = 6000
COMMAND_MAX = 4000
OTHER_MAX = 1500

CALL_KINDS = frozenset({"command", "result", "todo", "subagent"})
STATUS_WORDS = {"dead_end": "dead end", "blocked": "blocked", "superseded": "superseded",
                "confirmed": "confirmed", "open": "open", "answered": "answered"}


# ------------------------------------------------------------------ helpers
def page_name(session_id: str, chunk: int = 0) -> str:
    """The file of a session's page (``chunk`` > 0: its N-th timeline page)."""
    safe = re.sub(r"[^A-Za-z0-9_-]", "_", session_id)[:80]
    if safe != session_id:
        safe += "-" + hashlib.blake2b(session_id.encode(), digest_size=4).hexdigest()
    return f"s-{safe}.html" if chunk == 0 else f"s-{safe}.t{chunk}.html"


def when(ms: int | None) -> str:
    if not ms:
        return ""
    return datetime.fromtimestamp(ms / 1000, tz=UTC).strftime("%Y-%m-%d %H:%M")


def cost_text(t: u.Total | None) -> str:
    """``$3.20``, ``≥$3.20`` (some messages unpriced), ``unknown`` or empty (no tokens)."""
    if t is None or not t.messages:
        return ""
    if t.unpriced and not t.cost:
        return "unknown"
    text = f"${t.cost:,.2f}" if t.cost >= 0.01 or not t.cost else "<$0.01"
    return f"≥{text}" if t.unpriced else text


def _badge(status: str | None) -> str:
    if not status:
        return ""
    return f'<span class="badge {h(status)}">{h(STATUS_WORDS.get(status, status))}</span>'


def _cut(text: str, limit: int, head: int | None = None, tail: int = 0) -> str:
    """``text`` escaped, cut to about ``limit`` characters (``head`` from the start and
    ``tail`` from the end when given) with a note of what is not shown."""
    if len(text) <= limit:
        return h(text)
    head = limit if head is None else head
    gone = len(text) - head - tail
    note = f'<span class="cut">\n… {gone:,} characters not shown …\n</span>'
    return h(text[:head]) + note + (h(text[-tail:]) if tail else "")


# ------------------------------------------------------------------ the site
@dataclass
class SessionLayout:
    """Where a session's messages are: which page holds which ordinal."""

    session_id: str
    ordinals: list[int] = field(default_factory=list)
    """Ordinals with a step shown, ascending."""
    chunk_of: list[int] = field(default_factory=list)
    """The page (0: the session page) of each ordinal in :attr:`ordinals`."""

    def page(self, ordinal: int) -> tuple[str, int] | None:
        if not self.ordinals:
            return None
        i = min(bisect.bisect_left(self.ordinals, ordinal), len(self.ordinals) - 1)
        return page_name(self.session_id, self.chunk_of[i]), self.ordinals[i]


@dataclass
class Site:
    """Every session of the report and where its messages live."""

    layouts: dict[str, SessionLayout] = field(default_factory=dict)

    def href(self, session_id: str | None, ordinal: int | None, here: str = "") -> str:
        """A link to message ``ordinal`` of a session (the nearest shown one after it);
        empty when that session is not in the report."""
        if session_id is None or ordinal is None:
            return ""
        lay = self.layouts.get(session_id)
        got = lay.page(int(ordinal)) if lay else None
        if got is None:
            return ""
        page, o = got
        return f"{'' if page == here else page}#m{o}"


def _link(site: Site, here: str, session_id: str | None, ordinal: Any, text: str = "") -> str:
    label = h(text or f"@{ordinal}")
    url = site.href(session_id, ordinal, here)
    return f'<a href="{h(url)}">{label}</a>' if url else label


# --------------------------------------------------------------- timeline
@dataclass
class Block:
    """One message's steps as HTML, with its search rows ``(anchor, kind, text)``."""

    ordinal: int
    html: str
    rows: list[tuple[str, str, str]]


def _call_line(cmd: Event | None, res: Event | None) -> str:
    ev = cmd or res
    if ev is None:
        return ""
    if ev.kind == "subagent" or (ev.tool == "task" and ev.title):
        return ev.title or ev.command or ""
    text = ev.remote_command if ev.host and ev.remote_command else (ev.command or ev.title or "")
    first = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    return f"{ev.host}: {first}" if ev.host and ev.remote_command else first


def _outcome(cmd: Event | None, res: Event | None) -> tuple[str, str, bool]:
    """``(css class, text, failed)`` of a call's result."""
    r = res or cmd
    if r is None or (res is None and cmd is not None and cmd.status is None):
        return "", "no result", False
    failed = (r.status not in (None, "completed") or (r.exit_code or 0) != 0
              or bool(r.error_signatures))
    if failed:
        bits = [f"exit {r.exit_code}" if r.exit_code not in (None, 0) else (r.status or "")]
        if r.error_signatures:
            bits.append(r.error_signatures[0])
        return "bad", "✘ " + " · ".join(b for b in bits if b), True
    if r.measurements:
        return "m", "✓ " + str(r.measurements[0]), False
    return "ok", "✓", False


def _call_html(o: int, seq: int, cmd: Event | None, res: Event | None,
               child_page: str | None) -> tuple[str, tuple[str, str, str]]:
    ev = cmd or res
    assert ev is not None
    kind = {"todo": "todo", "subagent": "subagent"}.get(ev.kind, ev.category or ev.tool or "call")
    if ev.tool == "todowrite":
        kind = "todo"
    elif ev.tool == "task":
        kind = "subagent"
    line = _call_line(cmd, res)
    cls, outcome, failed = _outcome(cmd, res)
    aid = f"s{o}-{seq}"
    body: list[str] = []
    full = (ev.command or "") if ev.kind != "subagent" else ""
    if ev.host:
        body.append(f'<div class="note">on {h(ev.host)}</div>')
    if full:
        body.append(f'<pre class="cmd">{_cut(full, COMMAND_MAX)}</pre>')
    todos = (cmd.todos if cmd else []) or (res.todos if res else [])
    if todos:
        body.append("<ul>" + "".join(f"<li>[{h(t.status)}] {h(t.content)}</li>"
                                     for t in todos) + "</ul>")
    if child_page:
        body.append(f'<div><a href="{h(child_page)}">open the subagent session →</a></div>')
    r = res or cmd
    if r is not None:
        if r.measurements:
            ms = ", ".join(str(m) for m in r.measurements[:8])
            more = f" (+{len(r.measurements) - 8} more)" if len(r.measurements) > 8 else ""
            body.append(f'<div class="note">measured: {h(ms)}{more}</div>')
        if r.error_signatures:
            body.append(f'<div class="note res bad">{h(" | ".join(r.error_signatures))}</div>')
        if r.output:
            body.append(f'<pre>{_cut(r.output, OUTPUT_HEAD + OUTPUT_TAIL, OUTPUT_HEAD, OUTPUT_TAIL)}'
                        "</pre>")
        meta = [x for x in (r.status, f"exit {r.exit_code}" if r.exit_code is not None else "",
                            f"{r.duration_ms / 1000:.1f} s" if r.duration_ms else "",
                            when(r.time)) if x]
        if meta:
            body.append(f'<div class="note">{h(" · ".join(meta))}</div>')
    html = (f'<details class="st call{" fail" if failed else ""}" id="{aid}"><summary>'
            f'<span class="o">{o}</span><span class="k">{h(kind)}</span>'
            f'<code>{h(clip(line, 200))}</code>'
            f'<span class="res {cls}">{h(outcome)}</span></summary>{"".join(body)}</details>')
    search = f"{line} {outcome if failed or cls == 'm' else ''}".strip()
    return html, (aid, kind, search)


def _prose_html(ev: Event) -> tuple[str, tuple[str, str, str]]:
    aid = f"s{ev.ordinal}-{ev.seq}"
    text = ev.text or ""
    label = "prompt" if ev.kind == "prompt" else (ev.classification or "said")
    cls = "prompt" if ev.kind == "prompt" else f"c-{ev.classification or 'none'}"
    stamp = f' <span class="note">{h(when(ev.time))}</span>' if ev.kind == "prompt" else ""
    html = (f'<div class="st prose {h(cls)}" id="{aid}"><span class="o">{ev.ordinal}</span>'
            f'<span class="k">{h(label)}</span>{_cut(text, PROSE_MAX)}{stamp}</div>')
    return html, (aid, label, text)


def _other_html(ev: Event) -> tuple[str, tuple[str, str, str]]:
    aid = f"s{ev.ordinal}-{ev.seq}"
    text = ev.text or ev.reason or ""
    bad = " fail" if ev.kind == "error" else ""
    html = (f'<div class="st prose other{bad}" id="{aid}"><span class="o">{ev.ordinal}</span>'
            f'<span class="k">{h(ev.kind)}</span>{_cut(text, OTHER_MAX)}</div>')
    return html, (aid, str(ev.kind), text)


def timeline_blocks(events: Iterable[Event], child_pages: Mapping[str, str]) -> list[Block]:
    """The session's messages as HTML blocks, one per message with a step to show."""
    by_msg: dict[int, list[Event]] = defaultdict(list)
    for e in events:
        by_msg[e.ordinal].append(e)
    blocks: list[Block] = []
    for o in sorted(by_msg):
        parts: list[str] = []
        rows: list[tuple[str, str, str]] = []
        calls: dict[int, dict[str, Event]] = {}
        order: list[tuple[int, str, Event]] = []
        for e in by_msg[o]:
            if e.kind in CALL_KINDS:
                slot = calls.setdefault(e.seq, {})
                if not slot:
                    order.append((e.seq, "call", e))
                slot["res" if e.kind == "result" else "cmd"] = e
            else:
                order.append((e.seq, "one", e))
        for seq, what, e in order:
            if what == "call":
                slot = calls[seq]
                cmd, res = slot.get("cmd"), slot.get("res")
                child = (cmd or res).child_session_id if (cmd or res) else None  # type: ignore[union-attr]
                html, row = _call_html(o, seq, cmd, res, child_pages.get(child or ""))
            elif e.kind in ("prompt", "decision"):
                if not (e.text or "").strip():
                    continue
                html, row = _prose_html(e)
            else:
                html, row = _other_html(e)
            parts.append(html)
            rows.append(row)
        if parts:
            blocks.append(Block(o, f'<section class="msg" id="m{o}">{"".join(parts)}</section>',
                                rows))
    return blocks


def chunk(blocks: Sequence[Block], budget: int) -> list[list[Block]]:
    """Consecutive blocks in pages of at most ``budget`` bytes (a bigger block alone)."""
    pages: list[list[Block]] = [[]]
    size = 0
    for b in blocks:
        n = len(b.html.encode("utf-8"))
        if pages[-1] and size + n > budget:
            pages.append([])
            size = 0
        pages[-1].append(b)
        size += n
    return pages


# ------------------------------------------------------------------ story
@dataclass
class Story:
    """What the graph knows of a scope, redacted."""

    goal: str
    approaches: list[dict[str, Any]]
    dead_ends: list[dict[str, Any]]
    untested: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    pivots: list[dict[str, Any]]
    throughput: list[dict[str, Any]]
    graph: nx.MultiDiGraph


def gather_story(store: KbStore, scope: str, red: Redactor) -> Story:
    view = views.graph_view(store, scope)
    g = gs.load_graph(store, [scope])
    clean = nx.MultiDiGraph()
    for n, d in g.nodes(data=True):
        clean.add_node(n, **red.value(dict(d)))
    for a, b, d in g.edges(data=True):
        clean.add_edge(a, b, **red.value(dict(d)))
    goals = [a for a in view.approaches if a.get("kind") == "goal"]
    if goals:
        goal = str(goals[0]["label"])
    else:
        # the first words the human wrote (not the context the agent injected first)
        prompt = user_words(store.events(scope, kinds=["prompt"], sources=["text"]))
        goal = clip(prompt[0].text, 400) if prompt else ""
    return Story(goal=red.text(goal),
                 approaches=red.value([a for a in view.approaches if a.get("kind") != "goal"]),
                 dead_ends=red.value(view.dead_ends), untested=red.value(view.untested),
                 decisions=red.value(view.decisions), pivots=red.value(view.pivots),
                 throughput=red.value(view.throughput), graph=clean)


def _story_html(story: Story, site: Site, here: str) -> tuple[str, list[tuple[str, str, str]]]:
    """The story sections and their search rows."""
    out: list[str] = []
    rows: list[tuple[str, str, str]] = []

    def link(sid: str | None, o: Any, text: str = "") -> str:
        return _link(site, here, sid, o, text)

    if story.goal:
        out.append(f'<p id="goal"><b>Goal:</b> {h(story.goal)}</p>')
    # approaches
    out.append('<h2 id="approaches">Approaches</h2>')
    if story.approaches:
        out.append('<div class="scroll"><table><tr><th>status</th><th>approach</th>'
                   '<th class="n">from</th><th class="n hide-s">to</th><th>tested at</th>'
                   '<th class="hide-s">outcome</th></tr>')
        for i, a in enumerate(story.approaches):
            sid = a.get("session_id")
            tested = sorted({e["ordinal"] for e in a.get("evidence", [])
                             if e.get("role") == "tested"})
            shown = ", ".join(link(sid, t, str(t)) for t in tested[:8])
            if len(tested) > 8:
                shown += f" … ({len(tested)})"
            outcome = a.get("cause") or next(
                (e.get("note") for e in reversed(a.get("evidence", []))
                 if e.get("role") in ("tested", "confirmed") and e.get("note")), "") or ""
            aid = f"a{i}"
            out.append(f'<tr id="{aid}"><td>{_badge(a.get("status"))}</td><td>{h(a["label"])}</td>'
                       f'<td class="n">{link(sid, a.get("ordinal"), str(a.get("ordinal")))}</td>'
                       f'<td class="n hide-s">{link(sid, a.get("ended"), str(a.get("ended"))) if a.get("ended") is not None else ""}</td>'
                       f'<td>{shown}</td><td class="hide-s">{h(clip(outcome, 160))}</td></tr>')
            rows.append((aid, "approach", f"{a['label']} {STATUS_WORDS.get(a.get('status') or '', '')}"))
        out.append("</table></div>")
    else:
        out.append('<p class="note">No approaches recognised.</p>')
    # dead ends by cause
    out.append('<h2 id="dead-ends">Dead ends, by cause</h2>')
    by_cause: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in story.dead_ends:
        by_cause[d.get("cause") or "cause unknown"].append(d)
    if not by_cause:
        out.append('<p class="note">No dead ends.</p>')
    for k, (cause, group) in enumerate(sorted(by_cause.items(), key=lambda kv: min(
            d.get("ended_at") or 0 for d in kv[1]))):
        share = f" · {len(group)} dead ends share it" if len(group) > 1 else ""
        out.append(f'<section class="cause" id="cause{k}"><h3>{h(cause)}<span class="note">'
                   f"{h(share)}</span></h3>")
        for j, d in enumerate(group):
            did = f"de{k}-{j}"
            sid = d.get("session_id")
            ev = "".join(
                f"<li>{h(e['role'])} at {link(e.get('session_id'), e.get('ordinal'), str(e.get('ordinal')))}"
                f"{': ' + h(clip(e.get('note'), 240)) if e.get('note') else ''}</li>"
                for e in d.get("evidence", []))
            extra = "".join(f'<div class="why">risk: {h(r)}</div>' for r in d.get("risks") or [])
            if d.get("revisit"):
                extra += f'<div class="why">revisit: {h(d["revisit"])}</div>'
            out.append(f'<details class="deadend" id="{did}"><summary>{_badge(d.get("status"))} '
                       f'{h(d["name"])} <span class="note">ended at '
                       f'{h(d.get("ended_at"))}</span></summary>'
                       + (f'<div class="why">why: {h(d["why"])}</div>' if d.get("why") else "")
                       + f'<div class="why">evidence:</div><ul class="evidence">{ev}</ul>{extra}'
                       "</details>")
            rows.append((did, "dead end", f"{d['name']} {cause} {d.get('why') or ''}"))
        out.append("</section>")
    # the graph
    out.append('<h2 id="graph">Dead-end graph</h2>')
    links = {}
    for n, d in story.graph.nodes(data=True):
        url = site.href(d.get("session_id"), d.get("ordinal"), here)
        if url and d.get("type") in ("approach", "question", "decision"):
            links[n] = url
    has_nodes = any(d.get("type") == "approach" for _, d in story.graph.nodes(data=True))
    svg = dot_svg(graph_report.export(story.graph, "dot", links=links)) if has_nodes else None
    if svg:
        out.append('<figure class="graphbox"><button type="button" class="zoom">actual size'
                   f"</button>{svg}</figure>")
    elif has_nodes:
        out.append('<p class="note">Graphviz (<code>dot</code>) is not installed: the graph '
                   "is left out (the dead ends above list the same).</p>")
    else:
        out.append('<p class="note">Nothing to draw.</p>')
    # untested
    out.append('<h2 id="untested">Untested checks</h2>')
    if story.untested:
        out.append('<div class="scroll"><table><tr><th class="n">at</th><th>check</th>'
                   "<th>why no answer</th><th>status</th></tr>")
        for i, q in enumerate(story.untested):
            sid = q.get("session_id")
            ans = (f" at {link(sid, q.get('answered_at'), str(q.get('answered_at')))}"
                   if q.get("answered_at") is not None else "")
            qid = f"q{i}"
            out.append(f'<tr id="{qid}"><td class="n">{link(sid, q.get("ordinal"), str(q.get("ordinal")))}</td>'
                       f'<td>{h(q.get("question"))}'
                       + (f'<div class="note">{h(clip(q.get("command"), 160))}</div>'
                          if q.get("command") else "")
                       + f'</td><td>{h(q.get("reason"))}</td><td>{_badge(q.get("status"))}{ans}</td></tr>')
            rows.append((qid, "untested", f"{q.get('question')} {q.get('reason')}"))
        out.append("</table></div>")
    else:
        out.append('<p class="note">None.</p>')
    # measurements
    out.append('<h2 id="measurements">Measurements</h2>')
    series = story.throughput
    if series:
        unit = series[0].get("unit") or ""
        label = series[0].get("label") or "throughput"
        best = max(series, key=lambda m: m["value"])
        out.append(f'<p>{h(label)} ({h(unit)}), {len(series)} readings: first '
                   f'{series[0]["value"]:g} at {link(series[0]["session_id"], series[0]["ordinal"], str(series[0]["ordinal"]))}, '
                   f'best {best["value"]:g} at {link(best["session_id"], best["ordinal"], str(best["ordinal"]))}, '
                   f'last {series[-1]["value"]:g} at {link(series[-1]["session_id"], series[-1]["ordinal"], str(series[-1]["ordinal"]))}.</p>')
        out.append("<figure>" + throughput_svg(
            series, lambda s, o: site.href(s, o, here)) + "</figure>")
    else:
        out.append('<p class="note">No measurements.</p>')
    # decisions and pivots
    out.append('<h2 id="decisions">Decisions and pivots</h2>')
    items = [("decision", d.get("session_id"), d.get("ordinal"), d.get("label") or "")
             for d in story.decisions]
    items += [("pivot", p.get("session_id"), p.get("ordinal"), p.get("text") or "")
              for p in story.pivots]
    seen: set[tuple[str, Any]] = set()
    lis = []
    for i, (kind, sid, o, text) in enumerate(sorted(items, key=lambda x: x[2] or 0)):
        if (kind, o) in seen:
            continue
        seen.add((kind, o))
        lis.append(f'<li id="d{i}"><b>{h(kind)}</b> at {link(sid, o, str(o))}: {h(clip(text, 600))}</li>')
        rows.append((f"d{i}", kind, text))
    out.append(f"<ul>{''.join(lis)}</ul>" if lis else '<p class="note">None recorded.</p>')
    return "".join(out), rows


# ------------------------------------------------------------------ pages
def _page(title: str, crumb: str, body: str, pages: Sequence[str],
          rows: Sequence[tuple[int, str, str, str]], placeholder: str) -> str:
    index = script_json({"pages": list(pages), "rows": [list(r) for r in rows]})
    return ("<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\">"
            '<meta name="viewport" content="width=device-width,initial-scale=1">'
            '<meta name="referrer" content="no-referrer">'
            "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
            "style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:\">"
            f"<title>{h(title)}</title><style>{CSS}</style></head><body>"
            f'<header class="top"><a href="index.html">logkb report</a>'
            f'<span class="crumb">{crumb}</span><div class="search">'
            f'<input id="q" type="search" autocomplete="off" placeholder="{h(placeholder)}" '
            f'aria-label="{h(placeholder)}"><ol id="results"></ol></div></header>'
            f"<main>{body}</main>"
            f'<script type="application/json" id="search-index">{index}</script>'
            f"<script>{JS}</script></body></html>\n")


def _figures(info: Mapping[str, Any], total: u.Total | None, extra: Sequence[tuple[str, str]]
             ) -> str:
    figs = [("messages", f"{info.get('messages') or 0:,}"),
            ("commands", f"{info.get('commands') or 0:,}"), *extra]
    if total is not None and total.messages:
        figs += [("tokens in", views.tokens_text(total.input)),
                 ("tokens out", views.tokens_text(total.output)),
                 ("cache read", views.tokens_text(total.cache_read)),
                 ("cache write", views.tokens_text(total.cache_write)),
                 ("cost", cost_text(total))]
    else:
        figs.append(("tokens", "not recorded"))
    return ('<div class="figs">' + "".join(f'<div class="fig"><b>{h(v)}</b><span>{h(k)}</span>'
                                           "</div>" for k, v in figs) + "</div>")


def _meta(info: Mapping[str, Any]) -> str:
    bits = [info.get("agent") or "agent unknown", info["session_id"]]
    span = " → ".join(x for x in (when(info.get("time_created")),
                                  when(info.get("last_activity") or info.get("time_updated")))
                      if x)
    if span:
        bits.append(span + " UTC")
    if info.get("directory"):
        bits.append(str(info["directory"]))
    return f'<p class="meta">{" · ".join(h(b) for b in bits)}</p>'


@dataclass
class Written:
    """A page the report wrote."""

    path: Path
    bytes: int
    session_id: str | None = None


def _index_rows(rows: Sequence[tuple[str, str, str]], limit: int) -> list[tuple[str, str, str]]:
    return [(a, k, clip(t, limit)) for a, k, t in rows]


def build_report(store: KbStore, scopes: Sequence[str], out_dir: Path,
                 prices: Mapping[str, u.Price] | None = None,
                 page_budget: int = PAGE_BUDGET,
                 progress: Callable[[str, int, int], None] | None = None) -> list[Written]:
    """Write the report of ``scopes`` (top-level sessions, each with its subagents) into
    ``out_dir``; the pages written, index first.  ``progress`` is told ``(what, done,
    of)`` as each session's timeline is laid out, then as its pages are written."""
    tell = progress if progress is not None else (lambda what, done, of: None)
    if store.reveal_secrets:
        raise ValueError("a report is for sharing: it is always redacted "
                         "(leave out --show-secrets)")
    red = store.redactor.hiding()
    prices = prices if prices is not None else u.load_prices()
    infos = {s["session_id"]: s for s in store.sessions()}
    members = {sc: gs.scope_sessions(store, sc) for sc in scopes}
    all_ids = [s for sc in scopes for s in members[sc]]
    totals = {t.key: t for t in u.totals(views.usage_messages(store, all_ids), "session",
                                         prices)}
    # timelines first: where every message lives decides every link
    site = Site()
    blocks: dict[str, list[list[Block]]] = {}
    for n, sid in enumerate(all_ids):
        tell("reading timelines", n, len(all_ids))
        evs = store.events(sid)
        children = {e.child_session_id: page_name(e.child_session_id) for e in evs
                    if e.child_session_id and e.child_session_id in infos
                    and e.child_session_id in all_ids}
        bl = timeline_blocks(evs, children)
        total = sum(len(b.html.encode("utf-8")) for b in bl)
        pages = [bl] if total <= page_budget * 0.8 else chunk(bl, page_budget)
        if len(pages) > 1:
            pages = [[], *pages]  # the session page keeps the story; the timeline moves out
        blocks[sid] = pages
        lay = SessionLayout(sid)
        for k, page in enumerate(pages):
            for b in page:
                lay.ordinals.append(b.ordinal)
                lay.chunk_of.append(k)
        site.layouts[sid] = lay
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Written] = []
    index_rows: list[str] = []
    search: list[tuple[int, str, str, str]] = []
    index_pages: list[str] = []
    grand = u.grand_total(totals.values())
    n = 0
    for sc in scopes:
        story = gather_story(store, sc, red)
        for sid in members[sc]:
            tell("writing pages", n, len(all_ids))
            n += 1
            info = infos.get(sid, {"session_id": sid})
            written += _session_pages(sid, info, sc, story if sid == sc else None, blocks[sid],
                                      site, totals.get(sid), infos, members[sc], out_dir)
            sub = sid != sc
            dead = f"{len(story.dead_ends)}" if not sub else ""
            title = info.get("title") or "(untitled)"
            index_rows.append(
                f'<tr class="{"sub" if sub else ""}"><td><a href="{h(page_name(sid))}">'
                f'{"↳ " if sub else ""}{h(clip(title, 110))}</a><div class="note">'
                f'<span class="show-s">{h(info.get("agent") or "")} · </span>{h(sid)}</div></td>'
                f'<td class="hide-s">{h(info.get("agent") or "")}</td>'
                f'<td class="hide-s d">{h(when(info.get("time_created")))}</td>'
                f'<td class="hide-s d">{h(when(info.get("last_activity") or info.get("time_updated")))}</td>'
                f'<td class="n hide-s">{info.get("messages") or 0:,}</td><td class="n">{dead}</td>'
                f'<td class="n">{h(views.tokens_text(totals[sid].tokens) if sid in totals else "")}</td>'
                f'<td class="n">{h(cost_text(totals.get(sid)))}</td></tr>')
            index_pages.append(page_name(sid))
            words = " ".join([title, sid, str(info.get("agent") or ""),
                              *(d["name"] + " " + (d.get("cause") or "")
                                for d in (story.dead_ends if not sub else []))])
            search.append((len(index_pages) - 1, "", "subagent" if sub else "session",
                           clip(words, 400)))
    body = ("<h1>Sessions</h1>"
            f'<p class="meta">{len(scopes)} session{"s" if len(scopes) != 1 else ""}'
            f" · written {h(datetime.now(UTC).strftime('%Y-%m-%d %H:%M'))} UTC by logkb · "
            "secrets redacted</p>"
            '<div class="scroll"><table><tr><th>session</th><th class="hide-s">agent</th>'
            '<th class="hide-s">started</th><th class="hide-s">last activity</th>'
            '<th class="n hide-s">messages</th><th class="n">dead ends</th><th class="n">tokens</th>'
            '<th class="n">cost</th></tr>' + "".join(index_rows)
            + f'<tr class="total"><td>total</td><td class="hide-s"></td><td class="hide-s"></td>'
              f'<td class="hide-s"></td><td class="n hide-s">'
              f'{sum(int(infos.get(s, {}).get("messages") or 0) for s in all_ids):,}</td>'
              f'<td></td><td class="n">{h(views.tokens_text(grand.tokens) if grand.messages else "")}'
              f'</td><td class="n">{h(cost_text(grand))}</td></tr></table></div>'
            '<p class="note">Tokens: input + output + cache read + cache write as the agents '
            "recorded them; cost from the recorded cost or logkb's price table (≥: some "
            "models have no price).</p>")
    index_html = _page("logkb report", "sessions", body, index_pages, search,
                       "Search sessions…")
    path = out_dir / "index.html"
    path.write_text(index_html, encoding="utf-8")
    tell("writing pages", len(all_ids), len(all_ids))
    return [Written(path, len(index_html.encode("utf-8"))), *written]


def _session_pages(sid: str, info: Mapping[str, Any], scope: str, story: Story | None,
                   pages: list[list[Block]], site: Site, total: u.Total | None,
                   infos: Mapping[str, Mapping[str, Any]], members: Sequence[str],
                   out_dir: Path) -> list[Written]:
    here = page_name(sid)
    title = str(info.get("title") or "(untitled)")
    names = [page_name(sid, k) for k in range(len(pages))]
    nav_pages = []
    for k, page in enumerate(pages):
        if not page:
            continue
        label = f"messages {page[0].ordinal}–{page[-1].ordinal}"
        nav_pages.append((k, label))

    def nav(current: int) -> str:
        if len(pages) == 1:
            return ""
        return '<div class="pages">' + "".join(
            f"<span>{h(label)}</span>" if k == current else
            f'<a href="{h(names[k])}#timeline">{h(label)}</a>' for k, label in nav_pages) + "</div>"

    rows_all: list[tuple[int, str, str, str]] = []
    for k, page in enumerate(pages):
        for b in page:
            rows_all += [(k, a, kind, text) for a, kind, text in b.rows]
    written: list[Written] = []
    # the session page
    extra: list[tuple[str, str]] = []
    if story is not None:
        extra = [("dead ends", str(len(story.dead_ends))),
                 ("untested", str(sum(1 for q in story.untested if q.get("status") == "open")))]
    parts = [f"<h1>{h(title)}</h1>", _meta(info), _figures(info, total, extra)]
    if sid != scope:
        parent = infos.get(scope, {})
        parts.append(f'<p>Subagent of <a href="{h(page_name(scope))}">'
                     f'{h(clip(str(parent.get("title") or scope), 100))}</a>; the story of the '
                     "campaign is on its page.</p>")
    story_rows: list[tuple[str, str, str]] = []
    if story is not None:
        html, story_rows = _story_html(story, site, here)
        parts.append(html)
        subs = [m for m in members if m != sid]
        if subs:
            parts.append('<h2 id="subagents">Subagents</h2><ul>' + "".join(
                f'<li><a href="{h(page_name(m))}">{h(clip(str(infos.get(m, {}).get("title") or m), 120))}'
                f'</a> <span class="note">{h(m)}</span></li>' for m in subs) + "</ul>")
    parts.append('<h2 id="timeline">Timeline</h2>')
    parts.append('<p class="note">Every prompt, reply and command with its result, in order; '
                 "click a command to see it whole with its output (long outputs are cut in the "
                 "middle: <code>logkb show N</code> has them all).</p>")
    first = pages[0]
    if first:
        parts.append(nav(0) + "".join(b.html for b in first) + nav(0))
    else:
        parts.append(nav(-1))
    # search: the story, and every step of the session (texts cut to fit)
    rows = [(0, a, k, clip(t, 300)) for a, k, t in story_rows]
    n = max(1, len(rows_all))
    limit = max(40, min(200, INDEX_BUDGET // n - 30))
    rows += [(k, a, kind, clip(t, limit)) for k, a, kind, t in rows_all]
    page_urls = ["" if k == 0 else names[k] for k in range(len(pages))]
    crumb = h(clip(title, 80))
    html = _page(title, crumb, "".join(parts), page_urls, rows, "Search this session…")
    path = out_dir / here
    path.write_text(html, encoding="utf-8")
    written.append(Written(path, len(html.encode("utf-8")), sid))
    for k in range(1, len(pages)):
        page = pages[k]
        body = (f'<h1><a href="{h(here)}">{h(title)}</a></h1>{_meta(info)}'
                f'<h2 id="timeline">Timeline, {h(dict(nav_pages).get(k, ""))}</h2>'
                + nav(k) + "".join(b.html for b in page) + nav(k))
        urls = [names[j] if j != k else "" for j in range(len(pages))]
        rows_k = [(k, a, kind, clip(t, 200)) for b in page for a, kind, t in b.rows]
        html = _page(f"{title} ({k})", crumb, body, urls, rows_k, "Search this page…")
        path = out_dir / names[k]
        path.write_text(html, encoding="utf-8")
        written.append(Written(path, len(html.encode("utf-8")), sid))
    return written
