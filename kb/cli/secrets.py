"""``logkb secrets``: what credentials the transcripts hold, and where (never the values)."""

from __future__ import annotations

from pathlib import Path

import click

from kb.cli.tools import (
    db_option,
    emit_json,
    err,
    handle_errors,
    json_option,
    open_store,
    out,
    plural,
)


@click.command()
@click.option("--session", "-s", "session_id", metavar="ID", default=None,
              help="Only this session (id or unique prefix) [default: every session].")
@db_option
@json_option
@handle_errors
def secrets(session_id: str | None, db: Path | None, as_json: bool) -> None:
    """List the secrets found in the transcripts: kind, where, a masked preview.

    Every other command shows them as [redacted:KIND] unless --show-secrets."""
    from rich.table import Table

    from kb import secrets as found

    with open_store(db) as store:
        sid = store.resolve_session(session_id) if session_id else None
        rows = found.report(store, sid)
        summary = found.counts(store, sid)
        short = store.short_ids()
    if as_json:
        emit_json({"summary": summary, "findings": [
            {"session_id": r["session_id"], "ordinal": r["ordinal"], "seq": r["seq"],
             "field": r["field"], "start": r["start"], "stop": r["stop"], "kind": r["kind"],
             "rule": r["rule"], "preview": r["preview"]} for r in rows]})
        return
    if summary["sessions_unscanned"]:
        err.print(f"{plural(summary['sessions_unscanned'], 'session')} not scanned yet: run "
                  "`logkb ingest` once (meanwhile their text is redacted as it is shown)")
    if not rows:
        err.print("no secrets found")
        return
    # the same finding in one field (a value repeated in a command or its output) is one
    # row with its count, not identical-looking rows
    groups: dict[tuple[str, ...], int] = {}
    for r in rows:
        key = (short.get(r["session_id"], r["session_id"]), str(r["ordinal"]), r["field"],
               r["kind"], r["preview"], r["rule"])
        groups[key] = groups.get(key, 0) + 1
    table = Table(box=None, header_style="bold", pad_edge=False)
    for c in ("session", "ordinal", "field", "kind", "preview", "rule", "n"):
        # at 80 columns the rule and field give way: the preview and the count are what
        # the row is for (an ellipsis there hid the count column altogether)
        table.add_column(c, no_wrap=c not in ("field", "rule"), overflow="ellipsis",
                         justify="right" if c in ("ordinal", "n") else "left")
    for row, n in groups.items():
        table.add_row(*row, str(n))
    out.print(table)
    err.print(f"{plural(len(rows), 'secret')}: " + ", ".join(
        f"{k} {n}" for k, n in summary["kinds"].items()))


COMMANDS = (secrets,)
