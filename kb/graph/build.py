"""The networkx graph of an extraction: pure, no IO.

Node ids are typed prefixes so one graph can hold several scopes:
``session:<id>``, ``approach:<id>``, ``cause:<key>``, ``experiment:<session>:<ordinal>:<seq>``,
``question:<id>``, ``decision:<session>:<ordinal>``.  Edge ``type`` attributes:
``contains``, ``spawned``, ``tested_by``, ``failed_because``, ``failed_with``,
``pivoted_to``, ``decided``, ``raised``, ``asks_about``, ``researched_in``,
``at_risk_from``, ``related``.
"""

from __future__ import annotations

from typing import Any

import networkx as nx

from kb.graph.extract import Approach, Extraction


def approach_node(a: Approach) -> dict[str, Any]:
    return {
        "type": "approach", "label": a.name, "status": a.status, "kind": a.kind,
        "session_id": a.session_id, "ordinal": a.first, "ended": a.ended,
        "aliases": a.aliases, "sources": sorted(a.sources), "todo_status": a.todo_status,
        "cause": a.cause.label if a.cause else None,
        "cause_key": a.cause.key if a.cause else None,
        "cause_kind": a.cause.kind if a.cause else None,
        "end_text": a.end_text, "cause_text": a.cause_text,
        "evidence": [{"session_id": e.session_id, "ordinal": e.ordinal, "role": e.role,
                      "note": e.note} for e in sorted(a.evidence,
                                                      key=lambda e: (e.ordinal, e.role))],
        "research": a.research, "risks": a.risks, "revisit": a.revisit, "notes": a.notes,
        "annotated": a.annotated, "via": getattr(a, "via", None),
    }


def build_graph(ex: Extraction, sessions: dict[str, dict[str, Any]] | None = None
                ) -> nx.MultiDiGraph:
    """One scope's knowledge graph."""
    g = nx.MultiDiGraph(scope=ex.scope)
    sessions = sessions or {}
    for sid in ex.sessions:
        info = sessions.get(sid, {})
        g.add_node(f"session:{sid}", type="session", label=info.get("title") or sid,
                   session_id=sid, parent_id=info.get("parent_id"), status=None,
                   ordinal=info.get("spawned_at"))
    for sid in ex.sessions:
        parent = sessions.get(sid, {}).get("parent_id")
        if parent and f"session:{parent}" in g:
            g.add_edge(f"session:{parent}", f"session:{sid}", type="spawned",
                       ordinal=sessions[sid].get("spawned_at"))
    for key, cause in ex.causes.items():
        g.add_node(f"cause:{key}", type="cause", label=cause.label, kind=cause.kind,
                   status=None, session_id=None, ordinal=None)
    for a in ex.approaches:
        nid = f"approach:{a.id}"
        g.add_node(nid, **approach_node(a))
        g.add_edge(f"session:{a.session_id}", nid, type="contains", ordinal=a.first)
        if a.cause is not None and f"cause:{a.cause.key}" in g:
            g.add_edge(nid, f"cause:{a.cause.key}", type="failed_because", ordinal=a.ended,
                       text=a.end_text)
        for e in a.experiments:
            xid = f"experiment:{e.session_id}:{e.ordinal}:{e.seq}"
            if xid not in g:
                g.add_node(xid, type="experiment", label=(e.remote_command or e.command
                                                          or e.tool)[:200],
                           status=e.status, session_id=e.session_id, ordinal=e.ordinal,
                           host=e.host, category=e.category, exit_code=e.exit_code,
                           signatures=list(e.signatures),
                           measurements=[{"value": v, "unit": u, "label": lab}
                                         for v, u, lab in e.measurements])
            g.add_edge(nid, xid, type="tested_by", ordinal=e.ordinal)
            if a.cause is not None and e.signatures and f"cause:{a.cause.key}" in g \
                    and e.ordinal <= (a.ended or e.ordinal):
                g.add_edge(xid, f"cause:{a.cause.key}", type="failed_with",
                           ordinal=e.ordinal, signature=e.signatures[0])
        for child in a.research:
            if f"session:{child}" in g:
                g.add_edge(nid, f"session:{child}", type="researched_in")
    by_id = {a.id: a for a in ex.approaches}
    for a in ex.approaches:
        for risk in a.risks:
            for b in ex.approaches:
                if b is not a and risk.startswith(f"{b.name} ended here"):
                    g.add_edge(f"approach:{a.id}", f"approach:{b.id}", type="at_risk_from",
                               text=risk)
    for p in ex.pivots:
        for s in p.sources:
            for t in p.targets:
                g.add_edge(f"approach:{s}", f"approach:{t}", type="pivoted_to",
                           ordinal=p.ordinal, session_id=p.session_id, text=p.text)
    for d in ex.decisions:
        did = f"decision:{d.session_id}:{d.ordinal}"
        g.add_node(did, type="decision", label=d.text, status=None, session_id=d.session_id,
                   ordinal=d.ordinal)
        g.add_edge(f"session:{d.session_id}", did, type="decided", ordinal=d.ordinal)
        for aid in d.approach_ids:
            g.add_edge(did, f"approach:{aid}", type="about", ordinal=d.ordinal)
    for q in ex.questions:
        qid = f"question:{q.id}"
        g.add_node(qid, type="question", label=q.question, reason=q.reason,
                   status="answered" if q.answered_at is not None else "open",
                   answered_at=q.answered_at, session_id=q.session_id, ordinal=q.ordinal,
                   host=q.host, command=q.command)
        g.add_edge(f"session:{q.session_id}", qid, type="raised", ordinal=q.ordinal)
        if q.approach_id in by_id:
            g.add_edge(qid, f"approach:{q.approach_id}", type="asks_about")
    for a_id, b_id, text in ex.links:
        g.add_edge(f"approach:{a_id}", f"approach:{b_id}", type="related", text=text)
    return g
