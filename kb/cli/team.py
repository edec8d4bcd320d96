"""The team commands: ``team init``, ``team add-member``, ``team status``, ``push``, and
``--team`` on ``sessions``, ``deadends``, ``untested``, ``search``, ``why`` and
``handoff``.  The server: ``--team URL`` (``--team-url`` on the read commands), else
``$LOGKB_TEAM_URL``, else ``[team] url`` in the config file; its password is never
printed.

psycopg is imported inside the commands, so the rest of the CLI never loads it."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

from kb.cli.tools import (
    NBSP,
    db_option,
    emit_json,
    emit_lines,
    fail,
    handle_errors,
    json_option,
    note,
    out,
    paged,
    plural,
    say,
    session_option,
    width,
)
from kb.exitcodes import ExitCode

URL_HELP = ("Team server (a PostgreSQL URL) [default: env LOGKB_TEAM_URL, else [team] url "
            "in ~/.config/logkb/config.toml].")
TEAM_NAME_HELP = ("Team on the server [default: env LOGKB_TEAM_NAME, else [team] name in "
                  "the config file, else your only team (reads: all of your teams)].")


def team_name_option(fn: Any) -> Any:
    return click.option("--team-name", "team_name", metavar="NAME", default=None,
                        help=TEAM_NAME_HELP)(fn)


# ----------------------------------------------------------------------- team group
TEAM_JSON = "logkb.team_json"
"""``ctx.meta`` key: ``logkb team --json SUBCOMMAND`` (the same as the subcommand's)."""


def _json_wanted(as_json: bool) -> bool:
    ctx = click.get_current_context(silent=True)
    return as_json or bool(ctx is not None and ctx.meta.get(TEAM_JSON))


@click.group()
@json_option
@click.pass_context
def team(ctx: click.Context, as_json: bool) -> None:
    """Share what your sessions taught with your team, on a PostgreSQL server.

    \b
    logkb team init postgresql://owner@db/logkb --name gpu   (once, as the owner)
    logkb team add-member postgresql://owner@db/logkb alice --team-name gpu
    LOGKB_TEAM_URL=postgresql://alice@db/logkb logkb push --all
    logkb deadends --team ; logkb search --team 'NCCL timeout'"""
    if as_json:
        ctx.meta[TEAM_JSON] = True


@team.command("init")
@click.argument("url", required=False)
@click.option("--name", "name", default="default", show_default=True, metavar="TEAM",
              help="The team to create (more teams: run init again with another name).")
@json_option
@handle_errors
def team_init(url: str | None, name: str, as_json: bool) -> None:
    """Create or upgrade the team schema (versioned migrations), the logkb_member role,
    the row-level security policies, and a team.  Run it as the database's owner."""
    from kb.team import server

    res = server.init(server.team_url(url), name)
    if _json_wanted(as_json):
        emit_json(res)
        return
    applied = res["migrations_applied"]
    say(f"team {name!r} ready (schema version {res['schema_version']}"
        + (f"; applied {', '.join(applied)}" if applied else "; schema up to date") + ")")
    note("add members with `logkb team add-member URL ROLE --team-name "
         f"{name}`")


@team.command("add-member")
@click.argument("url", required=False)
@click.argument("role")
@team_name_option
@click.option("--password", default=None, metavar="PW",
              help="Password of the login role (set on creation or changed).")
@json_option
@handle_errors
def team_add_member(url: str | None, role: str, team_name: str | None, password: str | None,
                    as_json: bool) -> None:
    """Make ROLE a member of a team (creating the login role if it does not exist).

    A member reads every row of their teams and changes only the rows they pushed.
    Run it as the database's owner."""

    from kb.team import server

    name = server.team_name(team_name) or "default"
    res = server.add_member(server.team_url(url), name, role, password)
    if _json_wanted(as_json):
        emit_json(res)
    else:
        say(f"{role} is a member of team {name!r}"
            + (" (login role created)" if res["created"] else ""))


@team.command("status")
@click.argument("url", required=False)
@json_option
@handle_errors
def team_status(url: str | None, as_json: bool) -> None:
    """Which teams you are in on the server, and how much of theirs you can read."""
    from kb.team import read, server

    conn = server.connect(server.team_url(url), autocommit=True)
    try:
        user = server.current_user(conn)
        teams = server.my_teams(conn)
        counts = read.counts(conn) if teams else {}
    finally:
        conn.close()
    if _json_wanted(as_json):
        emit_json({"role": user, "teams": teams, "rows": counts})
        return
    say(f"{user}: member of {', '.join(teams) if teams else 'no team'}")
    if counts:
        say(", ".join(f"{n} {t}" for t, n in counts.items()))


# ------------------------------------------------------------------------------ push
@click.command()
@click.option("--team", "url", metavar="URL", default=None, help=URL_HELP)
@team_name_option
@session_option
@click.option("--all", "all_scopes", is_flag=True, help="Every top-level session.")
@click.option("--include-raw", is_flag=True,
              help="Also send each message's raw JSON (redacted); off by default: the "
                   "raw transcript stays on this machine.")
@click.option("--force", is_flag=True,
              help="Send even when the server already holds this copy.")
@db_option
@json_option
@handle_errors
def push(url: str | None, team_name: str | None, session_id: str | None, all_scopes: bool,
         include_raw: bool, force: bool, db: Path | None, as_json: bool) -> None:
    """Send what a session taught (redacted) to the team server.

    Sends session metadata, message metadata, the typed events, search text, dead
    ends with causes and evidence, untested questions, decisions, measurements and
    the knowledge graph of a session with its subagents; secrets are redacted
    before anything leaves.  Pushing again replaces that session's rows in one
    transaction; an older copy never replaces a newer one; a dropped connection is
    retried and what was sent is reported."""
    from kb.cli.graph import graph_store
    from kb.team import push as tp
    from kb.team import server

    target = server.team_url(url)
    results: list[tp.Sent] = []

    def progress(s: tp.Sent) -> None:
        if not as_json:
            note(_sent_line(s))

    with graph_store(db, session_id, all_scopes) as (store, scopes):
        store.reveal_secrets = False  # what leaves the machine is redacted, always
        chosen, results = tp.push(target, store, scopes, team=team_name,
                                  include_raw=include_raw, force=force, progress=progress)
    sent = [r for r in results if r.status == "sent"]
    rows = sum(sum(r.rows.values()) for r in sent)
    if as_json:
        emit_json({"team": chosen, "scopes": [r.as_json() for r in results],
                   "sent": len(sent), "rows": rows})
    else:
        note(f"team {chosen}: {len(sent)} of {plural(len(results), 'session')} sent "
             f"({plural(rows, 'row')})")
    if any(r.status == "failed" for r in results):
        sys.exit(int(ExitCode.FAILED))


def _sent_line(s: Any) -> str:
    if s.status == "sent":
        n = s.rows
        retry = (f", after {plural(s.attempts - 1, 'dropped connection')}"
                 if s.attempts > 1 else "")
        return (f"{s.scope}: sent {plural(n.get('messages', 0), 'message')}, "
                f"{plural(n.get('events', 0), 'event')}, "
                f"{plural(n.get('items', 0), 'finding')} in "
                f"{s.seconds:.1f}s{retry}")
    if s.status == "older":
        return (f"{s.scope}: kept the server's newer copy "
                f"({plural(s.server['messages'], 'message')}); "
                "nothing sent")
    if s.status == "unchanged":
        return f"{s.scope}: unchanged on the server; nothing sent (--force sends again)"
    return f"{s.scope}: FAILED after {s.attempts} attempts: {s.error}"


# ------------------------------------------------------------ --team on read commands
def _team_params() -> list[click.Option]:
    return [
        click.Option(["--team", "team_flag"], is_flag=True,
                     help="Answer from the team server (--team-url, else env "
                          "LOGKB_TEAM_URL, else [team] url in the config file)."),
        click.Option(["--team-url", "team_url"], metavar="URL", default=None,
                     help="Team server to answer from (implies --team)."),
        click.Option(["--team-name", "team_name"], metavar="NAME", default=None,
                     help="Only this team's rows [default: all of your teams]."),
    ]


def _team_sessions(conn: Any, teams: list[str], kw: dict[str, Any]) -> None:
    from kb.render import sessions_lines
    from kb.team import read

    rows = read.sessions(conn, teams)
    if kw.get("limit") is not None:
        rows = rows[:kw["limit"]]
    if kw["as_json"]:
        from kb.sessionref import short_ids

        short = short_ids(r["session_id"] for r in rows)
        emit_lines(read.session_json(r, short) for r in rows)
        return
    if not rows:
        note(f"no sessions pushed to {', '.join(teams)} yet (`logkb push`)")
        return
    shown = [{**r, "title": f"{r['pusher']} · {r['title'] or ''}",
              "source_path": None} for r in rows]
    from kb.team.read import session_usage

    usage = {r["session_id"]: session_usage(r) for r in rows}
    with paged():
        for line in sessions_lines(shown, out.width, usage=usage):
            out.print(line, no_wrap=True, crop=True)


def _team_items(kind: str) -> Callable[[Any, list[str], dict[str, Any]], None]:
    def run(conn: Any, teams: list[str], kw: dict[str, Any]) -> None:
        from kb.render import deadends_lines, untested_lines
        from kb.team import read

        items = read.items(conn, teams, kind)
        if kind == "deadend" and kw.get("statuses"):
            items = [d for d in items if d["status"] in kw["statuses"]]
        if kind == "untested":
            if kw.get("open_only") and kw.get("answered"):
                raise click.UsageError("--open and --answered exclude each other")
            if kw.get("open_only"):
                items = [q for q in items if q["status"] == "open"]
            if kw.get("answered"):
                items = [q for q in items if q["status"] != "open"]
        if kw.get("limit") is not None:
            items = items[:kw["limit"]]
        if kw["as_json"]:
            emit_lines(items)
            return
        if not items:
            note(f"no {'dead ends' if kind == 'deadend' else 'untested questions'} in "
                 f"team {', '.join(teams)}")
            return
        lines = deadends_lines if kind == "deadend" else untested_lines
        # who pushed it shows even where the session column does not fit
        text = "name" if kind == "deadend" else "question"
        shown = [{**d, "session_id": f"{d['pusher']}:{d['session_id']}",
                  text: f"{d['pusher']}: {d[text]}"} for d in items]
        with paged():
            for line in lines(shown, out.width, sessions=True):
                out.print(line, no_wrap=True, crop=True)
    return run


def _team_search(conn: Any, teams: list[str], kw: dict[str, Any]) -> None:
    from kb.team import read

    if kw.get("regex"):
        raise click.UsageError("--regex is not supported with --team (full text and "
                               "substring search are)")
    hits, engine = read.search(conn, teams, kw["text"], limit=kw["limit"],
                               newest=kw["newest"])
    if engine == "trigram" and hits:
        sys.stderr.write("no full-text match; substring matches (trigram index)\n")
    elif engine == "fts-capped":
        sys.stderr.write(f"more than {read.CANDIDATES} matches: ranked the first "
                         f"{read.CANDIDATES} (narrow the query for the best of all)\n")
    if not hits:
        sys.stderr.write(f"logkb: no match for {kw['text']!r} in the sessions of "
                         f"{', '.join(teams)}\n")
        sys.exit(int(ExitCode.NO_MATCH))
    from kb.safe_text import visible
    from kb.sessionref import resume_command, short_ids

    agents = {r["session_id"]: r["agent"] for r in read.sessions(conn, teams)}
    short = short_ids(agents)
    if kw["as_json"]:  # the local hit's shape: who the session is, how to resume it
        emit_lines(h | {"short_id": short.get(h["session_id"], h["session_id"]),
                        "agent": agents.get(h["session_id"]) or "opencode",
                        "resume": resume_command(agents.get(h["session_id"]), h["session_id"])}
                   for h in hits)
        return
    cols = width()
    lines = []
    for h in hits:
        sid = short.get(h["session_id"], h["session_id"])
        head = visible(f"{h['pusher']}:{sid} {h['ordinal']:>6} {h['field']:<7} ")
        room = max(20, cols - len(head))
        snippet = visible(" ".join(h["snippet"].split("\n")))
        if len(snippet) > room:
            snippet = snippet[:room - 1] + "…"
        lines.append(head + snippet + "\n")
    sys.stdout.write("".join(lines))


def _team_why(conn: Any, teams: list[str], kw: dict[str, Any]) -> None:
    from kb.render import wrap_lines
    from kb.team import read

    w = read.why(conn, teams, kw["ref"])
    if kw["as_json"]:
        emit_json(w)
    if not w["sessions"]:  # like the local `why`: nothing known is not found (6)
        if not kw["as_json"]:
            sys.stderr.write(f"logkb: {read.why_text(w)}\n")
        sys.exit(int(ExitCode.NOT_FOUND))
    if kw["as_json"]:
        return
    for line in wrap_lines(read.why_text(w), out.width):
        say(line)


def _team_report(conn: Any, teams: list[str], kw: dict[str, Any]) -> None:
    """``report --team``: the report of what the team pushed (kb.report_html.team)."""
    from kb.report_html.team import build_team_report

    pages = build_team_report(conn, teams, kw["out_dir"], list(kw.get("sessions") or ()))
    if kw["as_json"]:
        emit_json({"index": str(pages[0].path), "sessions": len(pages) - 1,
                   "pages": [{"path": str(p.path), "bytes": p.bytes, "session_id": p.session_id}
                             for p in pages]})
        return
    say(str(pages[0].path))
    note(f"wrote {plural(len(pages), 'page')} for "
         f"{plural(len(pages) - 1, 'team session')}: open {pages[0].path}",
         wrap=True)


def _team_handoff(conn: Any, teams: list[str], kw: dict[str, Any]) -> None:
    """The brief its pusher pushed, as the local `handoff` prints it (JSON: plus team and
    pusher; Markdown: the same text, who pushed it on stderr)."""
    from kb import handoff as brief
    from kb.cli.tools import write_text
    from kb.team import read

    data = read.handoff(conn, teams, kw.get("session_id"))
    exact = kw["as_json"] or kw.get("fmt") == "json"
    who = {"team": data.pop("team"), "pusher": data.pop("pusher")}
    if exact:  # the cap counts the team and the pusher too
        text, over = brief.render(data | who, max_tokens=kw.get("max_tokens"), form="json")
    else:
        note(f"pushed by {who['pusher']} to team {who['team']}")
        text, over = brief.render(data, max_tokens=kw.get("max_tokens"))
    write_text(text, kw.get("output"), exact=exact)
    if over:
        from kb.cli.graph import over_budget

        over_budget(over, kw["max_tokens"])


READERS: dict[str, Callable[[Any, list[str], dict[str, Any]], None]] = {
    "sessions": _team_sessions, "deadends": _team_items("deadend"),
    "untested": _team_items("untested"), "search": _team_search, "why": _team_why,
    "report": _team_report, "handoff": _team_handoff}
"""The read commands that take ``--team``, and how each answers from the server."""


def attach(cli: click.Group) -> None:
    """Give the read commands ``--team``/``--team-url``/``--team-name``: with either,
    the command answers from the team server instead of the local knowledge base."""
    for name, reader in READERS.items():
        cmd = cli.commands[name]
        if any(p.name == "team_flag" for p in cmd.params):
            continue
        cmd.params.extend(_team_params())
        cmd.callback = _dispatch(cmd.callback, reader)


def _dispatch(local: Any, reader: Callable[[Any, list[str], dict[str, Any]], None]) -> Any:
    @functools.wraps(local)
    def run(*args: Any, team_flag: bool, team_url: str | None, team_name: str | None,
            **kw: Any) -> Any:
        if not team_flag and not team_url:
            if team_name:
                raise click.UsageError("--team-name needs --team")
            return local(*args, **kw)
        return _team_read(reader, team_url, team_name, kw)
    return run


@handle_errors
def _team_read(reader: Callable[[Any, list[str], dict[str, Any]], None], url: str | None,
               team_name: str | None, kw: dict[str, Any]) -> None:
    from kb.team import read, server

    try:
        conn, teams = read.open_read(url, team_name)
    except server.NotMember as e:
        fail(str(e), ExitCode.NOT_FOUND)
    try:
        reader(conn, teams, kw)
    finally:
        conn.close()


# ---------------------------------------------------------------------------- export
@click.command()
@click.option("--parquet", "parquet", type=click.Path(path_type=Path, file_okay=False),
              required=True, metavar="DIR",
              help="Write Hive-partitioned Parquet (by team and date) under DIR.")
@session_option
@click.option("--all", "all_scopes", is_flag=True,
              help="Every top-level session [default with --team]. ")
@click.option("--include-raw", is_flag=True,
              help="Also each message's raw JSON (redacted).")
@click.option("--team", "team_flag", is_flag=True,
              help="Export what you may read on the team server instead (--team-url, else "
                   "env LOGKB_TEAM_URL, else [team] url in the config file).")
@click.option("--team-url", metavar="URL", default=None,
              help="Team server to export from (implies --team).")
@team_name_option
@db_option
@json_option
@handle_errors
def export(parquet: Path, session_id: str | None, all_scopes: bool, include_raw: bool,
           team_flag: bool, team_url: str | None, team_name: str | None, db: Path | None,
           as_json: bool) -> None:
    """Write the knowledge base as Parquet, readable by DuckDB, ClickHouse, Spark, Trino.

    One folder per table (sessions, messages, events, units, deadends, untested,
    decisions, measurements, graph_nodes, graph_edges), partitioned as
    team=NAME/date=YYYY-MM-DD/ by the day each session started.  What is written
    is what `logkb push` would send: derived and redacted.  Without --team the
    team is --team-name (default "local")."""
    from kb.team import export as ex

    if team_flag or team_url:
        from kb.team import read, server

        try:
            conn, teams = read.open_read(team_url, team_name)
        except server.NotMember as e:
            fail(str(e), ExitCode.NOT_FOUND)
        try:
            parquet.mkdir(parents=True, exist_ok=True)  # once there is something to write
            rows = ex.team(conn, teams, parquet)
        finally:
            conn.close()
        source = f"team {', '.join(teams)}"
    else:
        from kb.cli.graph import graph_store

        with graph_store(db, session_id, all_scopes) as (store, scopes):
            store.reveal_secrets = False  # what is exported is redacted, always
            parquet.mkdir(parents=True, exist_ok=True)  # once there is something to write
            rows = ex.local(store, scopes, parquet, team=team_name or "local",
                            include_raw=include_raw)
        source = plural(rows.get("sessions") or len(scopes), "session")
    if as_json:
        emit_json({"dir": str(parquet), "rows": rows})
        return
    # the sessions are counted once: in what was exported ("1 session"), not again after
    said = ", ".join(plural(n, *ROW_NOUNS.get(t, (t, t))).replace(" ", NBSP)
                     for t, n in rows.items()
                     if n and not (t == "sessions" and not source.startswith("team ")))
    note(f"exported {source} to {parquet}" + (f": {said}" if said else ""), wrap=True)


# What a row of each exported table is, said in words: (one, many).
ROW_NOUNS = {"sessions": ("session", "sessions"), "messages": ("message", "messages"),
             "events": ("event", "events"), "units": ("unit", "units"),
             "deadends": ("dead end", "dead ends"),
             "untested": ("untested check", "untested checks"),
             "decisions": ("decision", "decisions"),
             "measurements": ("measurement", "measurements"),
             "graph_nodes": ("graph node", "graph nodes"),
             "graph_edges": ("graph edge", "graph edges")}


COMMANDS = (team, push, export)
