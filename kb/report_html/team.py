"""``logkb report --team``: the report of what a team pushed, read from the team store
through :mod:`kb.team.read` (sessions and items, redacted before they were pushed).

The pages are the local report's (same CSS, script and search): an index of every pushed
session (pusher, agent, title, dates, tokens and cost) and one page per session with its
dead ends grouped by cause, its untested checks, its decisions and its timeline (every
command and result, collapsible, from the pushed events; split over more pages past
:data:`~kb.report_html.build.PAGE_BUDGET`).  The dead-end graph and the throughput plot
stay in the pusher's own report.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import fields
from pathlib import Path
from typing import Any

from kb import views
from kb.records import Event, Measurement, hop, todo
from kb.report_html.build import (
    PAGE_BUDGET,
    STATUS_WORDS,
    Block,
    Written,
    _badge,
    _page,
    chunk,
    page_name,
    timeline_blocks,
    when,
)
from kb.report_html.text import clip, h
from kb.team import read
from logparse.kinds import EventKind

_EVENT = frozenset(f.name for f in fields(Event))
_MEASUREMENT = frozenset(f.name for f in fields(Measurement))


def event_from_json(d: dict[str, Any]) -> Event:
    """An event as pushed (``Event.model_dump()``) back into the store's dataclass."""
    v = {k: d[k] for k in _EVENT if k in d}
    v["kind"] = EventKind(d["kind"])
    v["hops"] = [hop(x) for x in d.get("hops") or []]
    v["measurements"] = [Measurement(**{k: m[k] for k in _MEASUREMENT if k in m})
                         for m in d.get("measurements") or []]
    v["todos"] = [todo(t) for t in d.get("todos") or []]
    v["error_signatures"] = list(d.get("error_signatures") or [])
    return Event(**v)


def _cost(usage: dict[str, Any]) -> str:
    return views.usage_cost_text(usage)


def _session_pages(r: dict[str, Any], name: str, usage: dict[str, Any],
                   dead: list[dict[str, Any]], untested: list[dict[str, Any]],
                   decisions: list[dict[str, Any]], blocks: list[Block]
                   ) -> list[tuple[str, str]]:
    """``(file name, html)`` of a session's page and its timeline pages."""
    sid = r["session_id"]
    rows: list[tuple[int, str, str, str]] = []
    # the timeline: on this page when it fits, else on pages of its own
    total = sum(len(b.html.encode("utf-8")) for b in blocks)
    pages = [blocks] if total <= PAGE_BUDGET * 0.8 else [[], *chunk(blocks, PAGE_BUDGET)]
    names = [name if k == 0 else name.removesuffix(".html") + f".t{k}.html"
             for k in range(len(pages))]
    page_of = {b.ordinal: names[k] for k, p in enumerate(pages) for b in p}

    def link(o: Any) -> str:
        """Message ``o`` linked to its place in the timeline (plain when it shows none)."""
        if not isinstance(o, int) or o not in page_of:
            return h(str(o))
        here = "" if page_of[o] == name else page_of[o]
        return f'<a href="{h(here)}#m{o}">{o}</a>'

    parts = [f"<h1>{h(clip(r.get('title') or '(untitled)', 200))}</h1>",
             f'<p class="meta">{h(r.get("agent") or "")} · pushed by {h(r["pusher"])} '
             f'to {h(r["team"])} · {h(sid)} · {h(when(r.get("time_created")))} → '
             f'{h(when(r.get("last_activity") or r.get("time_updated")))}</p>',
             '<div class="figs">' + "".join(
                 f'<div class="fig"><b>{h(v)}</b><span>{h(k)}</span></div>' for k, v in (
                     ("messages", f"{r.get('messages') or 0:,}"),
                     ("commands", f"{r.get('commands') or 0:,}"),
                     ("tokens", views.usage_tokens_text(usage) or "not recorded"),
                     ("cost", _cost(usage)))) + "</div>"]
    by_cause: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for d in dead:
        by_cause[d.get("cause") or "(cause not found)"].append(d)
    parts.append(f"<h2>Dead ends ({len(dead)})</h2>")
    if not dead:
        parts.append('<p class="note">None found.</p>')
    for i, (cause, ds) in enumerate(sorted(by_cause.items())):
        parts.append(f'<details class="dead" id="c{i}" open><summary><b>{h(cause)}</b> '
                     f'({len(ds)})</summary><ul>')
        for j, d in enumerate(ds):
            aid = f"d{i}-{j}"
            ev = ", ".join(link(e.get("ordinal") if isinstance(e, dict) else e)
                           for e in (d.get("evidence") or [])[:12])
            parts.append(f'<li id="{aid}">{_badge(d.get("status"))} {h(d.get("name") or "")}'
                         + (f' <span class="note">messages {ev}</span>' if ev else "")
                         + (f'<div class="note">{h(clip(d.get("why") or "", 400))}</div>'
                            if d.get("why") else "") + "</li>")
            rows.append((0, aid, "dead end", clip(f"{d.get('name')} {cause}", 400)))
        parts.append("</ul></details>")
    parts.append(f"<h2>Untested ({len(untested)})</h2>")
    if untested:
        parts.append("<ul>")
        for k, q in enumerate(untested):
            qid = f"q{k}"
            parts.append(f'<li id="{qid}">[{link(q.get("ordinal"))}] '
                         f'{h(clip(q.get("question") or "", 400))} <span class="note">'
                         f'{h(STATUS_WORDS.get(q.get("status") or "", ""))} '
                         f'{h(q.get("reason") or "")}</span></li>')
            rows.append((0, qid, "untested", clip(str(q.get("question")), 400)))
        parts.append("</ul>")
    else:
        parts.append('<p class="note">None found.</p>')
    parts.append(f"<h2>Decisions ({len(decisions)})</h2>")
    if decisions:
        parts.append("<ul>" + "".join(
            f'<li>[{link(d.get("ordinal"))}] {h(clip(d.get("text") or d.get("label") or "", 400))}</li>'
            for d in decisions) + "</ul>")
    else:
        parts.append('<p class="note">None found.</p>')
    # the timeline (laid out above: the links to its messages need their pages)
    parts.append('<h2 id="timeline">Timeline</h2><p class="note">Every prompt, reply and '
                 "command with its result, in order; click a command to see it whole.</p>")
    if len(pages) > 1:
        parts.append('<div class="pages">' + "".join(
            f'<a href="{h(names[k])}#timeline">messages {p[0].ordinal}–{p[-1].ordinal}</a>'
            for k, p in enumerate(pages) if p) + "</div>")
    parts += [b.html for b in pages[0]]
    rows += [(0, a, kind, clip(t, 200)) for b in pages[0] for a, kind, t in b.rows]
    title = r.get("title") or sid
    crumb = h(clip(title, 60))
    out = [(name, _page(clip(title, 80), crumb, "".join(parts),
                        ["" if k == 0 else names[k] for k in range(len(pages))], rows,
                        "Search this session…"))]
    for k in range(1, len(pages)):
        body = (f'<h1><a href="{h(name)}">{h(clip(title, 200))}</a></h1>'
                f'<h2 id="timeline">Timeline, messages {pages[k][0].ordinal}–'
                f'{pages[k][-1].ordinal}</h2>' + "".join(b.html for b in pages[k]))
        rows_k = [(0, a, kind, clip(t, 200)) for b in pages[k] for a, kind, t in b.rows]
        out.append((names[k], _page(f"{clip(title, 80)} ({k})", crumb, body, [""], rows_k,
                                    "Search this page…")))
    return out


def build_team_report(conn: Any, teams: list[str], out_dir: Path,
                      session_ids: list[str] | None = None) -> list[Written]:
    """Write the team's report into ``out_dir`` (``session_ids``: only those, by id or
    prefix); returns the pages written, the index first."""
    out_dir.mkdir(parents=True, exist_ok=True)
    sessions = read.sessions(conn, teams)
    if session_ids:
        sessions = [s for s in sessions
                    if any(s["session_id"].startswith(p) for p in session_ids)]
    dead: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for d in read.items(conn, teams, "deadend"):
        dead[(d["pusher"], d.get("session_id") or "")].append(d)
    untested: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for q in read.items(conn, teams, "untested"):
        untested[(q["pusher"], q.get("session_id") or "")].append(q)
    decisions: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for d in read.items(conn, teams, "decision"):
        decisions[(d["pusher"], d.get("session_id") or "")].append(d)
    written: list[Written] = []
    index_rows, pages, search = [], [], []
    tokens_total, cost_total, unpriced = 0, 0.0, 0
    for r in sessions:
        sid, key = r["session_id"], (r["pusher"], r["session_id"])
        usage = read.session_usage(r)
        tokens_total += usage.get("tokens_total") or 0
        if usage.get("priced_cost") is not None:
            cost_total += usage["priced_cost"]
        if usage.get("tokens_total") and (usage.get("priced_cost") is None
                                          or usage.get("unpriced")):
            unpriced += 1
        name = page_name(f"{r['pusher']}-{sid}")
        evs = [event_from_json(e) for e in read.session_events(conn, teams, r["pusher"], sid)]
        for file, html in _session_pages(r, name, usage, dead[key], untested[key],
                                         decisions[key], timeline_blocks(evs, {})):
            (out_dir / file).write_text(html, encoding="utf-8")
            written.append(Written(out_dir / file, len(html.encode("utf-8")), sid))
        title = r.get("title") or "(untitled)"
        index_rows.append(
            f'<tr><td><a href="{h(name)}">{h(clip(title, 110))}</a><div class="note">'
            f'{h(r["pusher"])} · {h(sid)}</div></td>'
            f'<td class="hide-s">{h(r.get("agent") or "")}</td>'
            f'<td class="hide-s d">{h(when(r.get("time_created")))}</td>'
            f'<td class="hide-s d">{h(when(r.get("last_activity") or r.get("time_updated")))}'
            f'</td><td class="n">{len(dead[key])}</td>'
            f'<td class="n">{h(views.usage_tokens_text(usage))}</td>'
            f'<td class="n">{h(_cost(usage))}</td></tr>')
        pages.append(name)
        search.append((len(pages) - 1, "", "session", clip(" ".join(
            [title, sid, r["pusher"], *(d.get("name", "") + " " + (d.get("cause") or "")
                                        for d in dead[key])]), 400)))
    total_cost = _cost({"tokens_total": tokens_total,
                        "priced_cost": cost_total if cost_total or not unpriced else None,
                        "unpriced": unpriced})
    body = ("<h1>Team sessions</h1>"
            f'<p class="meta">{len(sessions)} session{"s" if len(sessions) != 1 else ""} '
            f"pushed to {h(', '.join(teams))} · secrets redacted before the push</p>"
            '<div class="scroll"><table><tr><th>session</th><th class="hide-s">agent</th>'
            '<th class="hide-s">started</th><th class="hide-s">last activity</th>'
            '<th class="n">dead ends</th><th class="n">tokens</th><th class="n">cost</th></tr>'
            + "".join(index_rows)
            + '<tr class="total"><td>total</td><td class="hide-s"></td><td class="hide-s">'
              f'</td><td class="hide-s"></td><td></td><td class="n">'
              f'{h(views.tokens_text(tokens_total) if tokens_total else "")}</td>'
              f'<td class="n">{h(total_cost)}</td></tr></table></div>')
    index = _page("logkb team report", "team sessions", body, pages, search,
                  "Search sessions…")
    (out_dir / "index.html").write_text(index, encoding="utf-8")
    return [Written(out_dir / "index.html", len(index.encode("utf-8"))), *written]
