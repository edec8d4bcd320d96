"""``logkb watch`` and ``logkb mcp``: the knowledge base kept current, and asked by agents."""

from __future__ import annotations

import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import click

from kb.cli.tools import db_option, err, handle_errors, json_option, note, plural
from kb.paths import default_db


def _default_stores() -> list[Path]:
    """The agents' own stores on this machine (what `logkb ingest` with no PATH reads)."""
    from logparse.registry import default_dirs

    return list(default_dirs())


@click.command()
@click.argument("paths", nargs=-1, type=click.Path(path_type=Path))
@click.option("--poll", type=click.FloatRange(min=0.1), default=None, metavar="SECONDS",
              help="Poll every SECONDS instead of waiting for file notifications.")
@click.option("--debounce", type=click.IntRange(min=0), default=400, show_default=True,
              metavar="MS", help="Wait this long after a change for the writer to settle.")
@click.option("--for", "duration", type=click.FloatRange(min=0.1), default=None,
              metavar="SECONDS", help="Stop after SECONDS (for scripts) [default: until ^C].")
@click.option("--push", "push", is_flag=True,
              help="Also push every session that changed to the team server (redacted, "
                   "as `logkb push` does).")
@click.option("--team", "team_url", metavar="URL", default=None,
              help="Team server for --push [default: env LOGKB_TEAM_URL, else [team] url "
                   "in the config file].")
@click.option("--team-name", metavar="NAME", default=None,
              help="Team to push to [default: env LOGKB_TEAM_NAME, else the config's, "
                   "else your only team].")
@db_option
@json_option
@handle_errors
def watch(paths: tuple[Path, ...], poll: float | None, debounce: int, duration: float | None,
          push: bool, team_url: str | None, team_name: str | None, db: Path | None,
          as_json: bool) -> None:
    """Follow transcript stores and ingest new messages as they land.

    PATHS are what `logkb ingest` takes (an opencode data directory, an
    opencode.db, transcript files or folders); without PATHS, the folders `logkb
    ingest` reads (opencode's data directory, ~/.claude/projects,
    ~/.codex/sessions, ~/.gemini/tmp, ~/.pi/agent/sessions, as their variables
    move them).  A path that does not exist yet is waited for.  On a terminal a
    status line shows progress on stderr; --json prints one JSON object per
    event on stdout (watching, ingested, pushed, not_taken, error).  With --push,
    each ingest that added messages is followed by a push of those sessions to
    the team server; a failed push is tried again after the next ingest.  Stop
    with ^C.
    """
    import orjson

    from kb.live.watch import Watcher
    from kb.safe_text import json_text

    targets = list(paths) or _default_stores()
    stop = threading.Event()
    status = err.is_terminal and not as_json
    if not as_json:  # a mistyped path was waited for in silence (a pipe showed nothing)
        for p in paths:
            if not p.exists():
                note(f"watch: {p}: does not exist yet; waiting for it", wrap=True)

    def on_event(ev: dict[str, Any]) -> None:
        if as_json:
            sys.stdout.write(json_text(orjson.dumps(ev, default=str).decode()) + "\n")
            sys.stdout.flush()
            return
        # each a message wrapped at the width at word ends, its continuation lines
        # indented (the console's own wrap cut words and left blanks at line ends)
        if ev["event"] == "error":
            note(f"logkb: error: watch: {ev['error']}", wrap=True)
        elif ev["event"] == "not_taken":
            note(f"watch: not taken: {ev['path']}: {ev['reason']}", wrap=True)
        elif ev["event"] == "pushed" and not status:
            from kb.cli.team import _sent_line
            from kb.team.push import Sent

            for sc in ev["scopes"]:
                sent = Sent(sc["scope"], sc["status"], sc["rows"], sc["attempts"],
                            sc["seconds"], sc["error"], sc["server"])
                note(f"push to {ev['team']}: {_sent_line(sent)}", wrap=True)
        elif ev["event"] == "ingested" and not status:
            for s in ev["sessions"]:
                upd = f", {s['updated_messages']} updated" if s.get("updated_messages") else ""
                note(f"{s.get('short_id') or s['id']}: "
                     f"+{plural(s['new_messages'], 'message')}{upd} "
                     f"({s['messages']} in all)", wrap=True)
        if status:
            st = watcher.stats
            last = time.strftime("%H:%M:%S", time.localtime(st.last)) if st.last else "—"
            line = (f"watching {len(targets)} path{'s' * (len(targets) != 1)} · "
                    f"{plural(st.ingests, 'ingest')} · "
                    f"{plural(st.new_messages, 'new message')} · "
                    + (f"{len(watcher.unpushed)} to push · " if watcher.push_to else "")
                    + f"{plural(len(st.sessions), 'session')} · last {last}")
            err.file.write("\r\x1b[K" + line[: max(20, err.width - 1)])
            err.file.flush()

    watcher = Watcher(db if db is not None else default_db(), targets, on_event=on_event,
                      poll=poll, debounce_ms=debounce, stop=stop)
    if push or team_url or team_name:
        if not push:
            raise click.UsageError("--team/--team-name need --push")
        from kb.team import server

        watcher.push_to = (server.team_url(team_url), team_name)  # none named: fail now
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        watcher.run(duration)
    except KeyboardInterrupt:
        stop.set()
    if status:
        err.file.write("\n")


@click.command()
@click.option("--team", "team_flag", is_flag=True,
              help="Answer from the team server (--team-url, else env LOGKB_TEAM_URL, "
                   "else [team] url in the config file).")
@click.option("--team-url", metavar="URL", default=None,
              help="Team server to answer from (implies --team).")
@click.option("--team-name", metavar="NAME", default=None,
              help="Only this team's rows [default: all of your teams].")
@click.option("-v", "--verbose", count=True,
              help="Log more on stderr: -v each request's notes (INFO), -vv DEBUG "
                   "[default: warnings and errors only].")
@db_option
@handle_errors
def mcp(team_flag: bool, team_url: str | None, team_name: str | None, verbose: int,
        db: Path | None) -> None:
    """Serve the knowledge base to agents as read-only MCP tools over stdio.

    Tools: search, deadends, why, untested, handoff, events.  Configure it in
    opencode.json as {"mcp": {"logkb": {"type": "local", "command": ["logkb",
    "mcp"]}}}; see the README for Claude Code.  With --team the tools answer
    from what the team pushed (each item names its pusher; why says who saw an
    error and the causes).
    """
    from kb.live.mcp_front import serve  # answers `initialize` before the SDK is loaded

    team = None
    if team_flag or team_url:
        from kb.team import server

        team = (server.team_url(team_url), team_name)  # no server named: fail now
    elif team_name:
        raise click.UsageError("--team-name needs --team")
    serve(db if db is not None else default_db(), team, verbose)


COMMANDS = (watch, mcp)
