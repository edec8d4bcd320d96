"""``logkb usage``: tokens and cost per session, day, week, month or 5-hour block."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from kb.cli.tools import (
    db_option,
    emit_lines,
    fail,
    handle_errors,
    json_option,
    note,
    open_store,
    out,
    paged,
    table,
)
from kb.exitcodes import ExitCode

if TYPE_CHECKING:
    from kb.usage import Price


def prices_or_fail(prices_file: Path | None) -> dict[str, Price]:
    """The price table (``--prices FILE`` over logkb's own); a bad file is a usage
    error that names it."""
    from kb import usage as u

    try:
        return u.load_prices(prices_file)
    except ValueError as e:
        fail(str(e), ExitCode.USAGE)


def _cost(total_cost: float, unpriced: int) -> str:
    if unpriced and not total_cost:
        return "unknown"
    text = f"${total_cost:,.2f}" if total_cost >= 0.01 or not total_cost else "<$0.01"
    return f"≥{text}" if unpriced else text


@click.command()
@click.option("--by", "by", type=click.Choice(["session", "day", "week", "month", "block"]),
              default="day", show_default=True,
              help="Group by session, UTC day, ISO week, month, or 5-hour block.")
@click.option("--session", "session_ids", multiple=True, metavar="ID",
              help="Only this session (id or unique prefix; repeatable).")
@click.option("--prices", "prices_file", type=click.Path(dir_okay=False, path_type=Path),
              default=None,
              help="A JSON price table over the shipped one (default "
                   "$XDG_CONFIG_HOME/logkb/prices.json when it exists).")
@db_option
@json_option
@handle_errors
def usage(by: str, session_ids: tuple[str, ...], prices_file: Path | None, db: Path | None,
          as_json: bool) -> None:
    """Tokens (input, output, cache read, cache write) and cost, grouped.

    The cost is what the agent recorded (opencode), else the model's list price
    from logkb's table; a model without a price is unknown, never $0, and a total
    that includes one is shown as a lower bound (≥).  By session, "agent's" is
    the whole session's cost as Claude Code itself counted it (its cost-state,
    or a stream-json run's result), where it did."""
    from kb import usage as u
    from kb import views

    prices = prices_or_fail(prices_file)
    with open_store(db) as store:
        ids = [store.resolve_session(s) for s in session_ids] if session_ids else None
        rows = views.usage_messages(store, ids)
        titles = {r["session_id"]: r["title"] for r in store.sessions()} if by == "session" else {}
        short = store.short_ids() if by == "session" else {}
        recorded = store.recorded_figures(ids) if by == "session" else {}
    groups = u.totals(rows, by, prices)
    if by == "session":  # a session whose agent counted it but wrote no per-message usage
        have = {g.key for g in groups}
        groups += [u.Total(sid) for sid in recorded if sid not in have]
    total = u.grand_total(groups)

    def agent_cost(key: str) -> float | None:
        v = recorded.get(key, {}).get("cost")
        return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None

    if as_json:
        emit_lines(g.as_json() | ({"title": titles.get(g.key),
                                   "recorded_cost": agent_cost(g.key)}
                                  if by == "session" else {})
                   for g in groups)
        return
    if not groups:
        note("no token counts recorded (run `logkb ingest` first?)")
        return
    from kb.views import tokens_text

    own = any(agent_cost(g.key) is not None for g in groups)
    cols: list[tuple[str, dict[str, Any]]] = [
        (by, {"min": 10}), ("input", {"justify": "right"}), ("output", {"justify": "right"}),
        ("cache rd", {"justify": "right"}), ("cache wr", {"justify": "right"}),
        ("total", {"justify": "right"}), ("cost", {"justify": "right"})]
    if own:
        cols.append(("agent's", {"justify": "right"}))
    t = table(cols)
    for g in [*groups, total]:
        # the short id `logkb sessions` shows and --session takes (a cut full id was not)
        key = short.get(g.key, g.key[:12]) if by == "session" and g is not total else g.key
        mine = agent_cost(g.key) if g is not total else None
        t.add_row(key, tokens_text(g.input), tokens_text(g.output), tokens_text(g.cache_read),
                  tokens_text(g.cache_write), tokens_text(g.tokens), _cost(g.cost, g.unpriced),
                  *([_cost(mine, 0) if mine is not None else ""] if own else []))
    with paged():
        out.print(t)
    unpriced = sorted({m.model or "(no model)" for m in rows
                       if u.message_cost(m, prices) is None})
    if unpriced:
        note(f"no price for {', '.join(unpriced)}: add them to {u.user_prices_path()} "
             "(USD per million tokens)", wrap=True)


COMMANDS = (usage,)
