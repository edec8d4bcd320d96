"""``logkb measurements``: what a session's command results measured, as a list.

The readings were only reachable through ``show`` one message at a time, ``events
--json`` or SQL; the handoff and the timeline show one quantity of them.  This lists them
all, in the order they were read, each with the direction that makes it better and the
best of each quantity marked (only where a side is better and it was read twice).
The readings an agent's harness takes of every call (wall time, a sub-agent's run time,
exit codes: :func:`logparse.measure_plumbing.is_harness_reading`) and what a tool saw of
the files (an ``ls -la`` listing's sizes, ``6148 B .DS_Store``) are left out unless
``--harness``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

from kb.cli.graph import all_option, one_or_all
from kb.cli.tools import (
    db_option,
    elsewhere_hint,
    emit_lines,
    handle_errors,
    json_option,
    limit_option,
    miss,
    note,
    open_store,
    out,
    paged,
    plural,
    resolve,
    session_option,
    split,
)


def readings(store: Any, scopes: list[str], units: list[str], harness: bool
             ) -> tuple[list[dict[str, Any]], int]:
    """The scopes' readings (``harness``: with the harness's own) and how many of the
    harness's were left out.  Each has ``direction`` (1 higher is better, -1 lower, None
    neither) and ``best``: the best reading of its quantity (unit and label), where a
    side is better and the quantity was read at least twice."""
    from kb.graph import store as gs
    from kb.graph.report import direction
    from logparse.measure_plumbing import harness_of_call

    rows = gs.measurements(store, scopes, units or None)
    calls: dict[tuple[str, int, str], list[dict[str, Any]]] = {}
    for m in rows:  # a call's readings are judged together (a listing's bare names)
        calls.setdefault((m["session_id"], m["ordinal"], m["command"] or ""), []).append(m)
    harness_ids = {id(m) for ms in calls.values() for m, h in zip(
        ms, harness_of_call([(m["label"] or "", m["unit"]) for m in ms]), strict=True) if h}
    kept: list[dict[str, Any]] = []
    by: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for m in rows:
        theirs = id(m) in harness_ids
        if theirs and not harness:
            continue
        m["direction"] = direction(m["unit"] or "")
        m["best"] = False
        kept.append(m)
        if not theirs:  # the harness's clock times a different command each time: no best
            by.setdefault((m["unit"] or "", m["label"] or ""), []).append(m)
    for (unit, _), ms in by.items():
        sign = direction(unit)
        if sign is not None and len(ms) >= 2:
            max(ms, key=lambda m: sign * m["value"])["best"] = True
    return kept, len(rows) - len(kept)


@click.command()
@session_option
@all_option
@click.option("--unit", "units", multiple=True, metavar="UNIT",
              help="Only readings in UNIT (s, ms, tok/s, passed, B, …; repeatable or "
                   "comma-separated).")
@click.option("--harness", is_flag=True,
              help="Also the readings the agent's harness takes of every call (wall "
                   "time, a sub-agent's run time, exit codes) and the file sizes a "
                   "listing showed (ls -l).")
@limit_option()
@db_option
@json_option
@handle_errors
def measurements(session_id: str | None, all_scopes: bool, units: tuple[str, ...],
                 harness: bool, limit: int | None, db: Path | None, as_json: bool) -> None:
    """What the session's command results measured, in the order they were read.

    Each reading: its message ordinal, value and unit, what it measures and the command.
    ↑ higher is better, ↓ lower is better (a duration, errors), nothing where neither
    side is (a size, a count); ★ the best reading of a quantity read twice or more."""
    from kb.graph import store as gs

    one_or_all(session_id, all_scopes)
    wanted = split(units)
    with open_store(db) as store:
        scopes = (gs.scopes(store) if all_scopes
                  else [gs.scope_of(store, resolve(store, session_id))])
        rows, left_out = readings(store, scopes, wanted, harness)
        names = store.short_ids()
        hint = None
        if not rows and not all_scopes:
            hint = elsewhere_hint(store, scopes[0], lambda other: bool(readings(
                store, [gs.scope_of(store, other)], wanted, harness)[0]))
    shown = rows[:limit] if limit is not None else rows
    if as_json:
        emit_lines({"session_id": m["session_id"], "ordinal": m["ordinal"],
                    "value": m["value"], "unit": m["unit"], "label": m["label"],
                    "direction": m["direction"], "best": m["best"],
                    "command": m["command"]} for m in shown)
    elif shown:
        with paged():
            for line in _lines(shown, names if all_scopes else None, out.width):
                out.print(line, no_wrap=True, crop=True, markup=False, highlight=False)
    if not shown:
        where = "the knowledge base" if all_scopes else names.get(scopes[0], scopes[0])
        miss(f"no measurements in {where}" + (
            f" with unit {', '.join(wanted)}" if wanted else ""),
            f"{hint} or --all" if hint else None)
    if left_out and not as_json:
        note(f"{plural(left_out, 'harness reading')} (wall time, exit codes, listed "
             "file sizes, …) left out: --harness shows them", wrap=True)
    if limit is not None and len(rows) > len(shown) and not as_json:
        note(f"{len(rows) - len(shown)} more: raise -n")


def _lines(rows: list[dict[str, Any]], names: dict[str, str] | None, width: int
           ) -> list[str]:
    """The readings as fitted rows: [session] ordinal, value, unit, ↑/↓ and ★, what it
    measures and the command; what measures and the command share what is left."""
    from kb.records import gloss, number
    from kb.width import cells, fit

    def col(values: list[str], cap: int) -> int:
        return min(cap, max(cells(v) for v in values))

    sess = [names.get(m["session_id"], m["session_id"]) for m in rows] if names else []
    ords = [str(m["ordinal"]) for m in rows]
    vals = [number(m["value"]) for m in rows]
    # a duration clocked in ms reads as seconds or minutes beside it (the unit column)
    units = [f"{m['unit'] or ''}{gloss(m['value'], m['unit'])}" for m in rows]
    head = ["msg", "value", "unit"]
    ws = [col(ords + [head[0]], 8), col(vals + [head[1]], 14), col(units + [head[2]], 14)]
    sw = col(sess, 11) if sess else 0
    used = (sw + 2 if sess else 0) + ws[0] + 2 + ws[1] + 1 + ws[2] + 1 + 2 + 1
    room = max(20, width - used - 2)
    mw = min(col([m["label"] or "" for m in rows] + ["measures"], 36), max(10, room * 2 // 5))
    cw = max(10, room - mw)
    out = [(f"{'session':<{sw}}  " if sess else "")
           + f"{head[0]:>{ws[0]}}  {head[1]:>{ws[1]}} {head[2]:<{ws[2]}}    "
           + f"{'measures':<{mw}}  command"]
    for i, m in enumerate(rows):
        mark = {1: "↑", -1: "↓"}.get(m["direction"], " ") + ("★" if m["best"] else " ")
        label = fit(" ".join((m["label"] or "").split()), mw)
        command = fit(" ".join((m["command"] or "").split()), cw)
        line = ((fit(sess[i], sw) + " " * (sw - cells(fit(sess[i], sw))) + "  ") if sess
                else "")
        unit = fit(units[i], ws[2])
        line += (f"{ords[i]:>{ws[0]}}  {fit(vals[i], ws[1]):>{ws[1]}} "
                 f"{unit}{' ' * (ws[2] - cells(unit))} {mark} "
                 f"{label}{' ' * (mw - cells(label))}  {command}")
        out.append(line.rstrip())
    return out


COMMANDS = (measurements,)
