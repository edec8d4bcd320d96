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
    note,
    open_store,
    out,
    plural,
)

PREVIEW_WIDTH = 12
"""Columns of the preview column: a masked head and the length, ``ghp_…(40)``."""


@click.command()
@click.option("--session", "-s", "session_id", metavar="ID", default=None,
              help="Only this session (id or unique prefix) [default: every session].")
@db_option
@json_option
@handle_errors
def secrets(session_id: str | None, db: Path | None, as_json: bool) -> None:
    """List the secrets found in the transcripts: kind, where, a masked preview.

    Every other command shows them as [redacted:KIND] unless --show-secrets."""
    from kb import secrets as found
    from kb.render import Col, clip, fit

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
        note(f"{plural(summary['sessions_unscanned'], 'session')} not scanned yet: run "
             "`logkb ingest` once (meanwhile their text is redacted as it is shown)", wrap=True)
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
    # the table fits the width: the rule takes what is left (cut, or dropped first), the
    # preview is cut to PREVIEW_WIDTH -- a private key's ("-----BEGIN OPENSSH PRIVATE
    # KEY-----…(329)") took the room of the field, and rows differing only by field looked
    # like duplicates -- and the count is never the column that goes
    keys = list(groups)
    cols = [Col("session", [k[0] for k in keys]), Col("ordinal", [k[1] for k in keys], ">"),
            Col("field", [k[2] for k in keys]), Col("kind", [k[3] for k in keys]),
            Col("preview", [clip(k[4], PREVIEW_WIDTH) for k in keys]),
            Col("rule", [k[5] for k in keys], flex=True, min=8, drop=1),
            Col("n", [str(groups[k]) for k in keys], ">")]
    for line in fit(cols, out.width):
        out.print(line, no_wrap=True, crop=True)
    err.print(f"{plural(len(rows), 'secret')}: " + ", ".join(
        f"{k} {n}" for k, n in summary["kinds"].items()))


COMMANDS = (secrets,)
