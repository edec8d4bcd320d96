"""Connecting to the team server, its migrations, teams and members."""

from __future__ import annotations

import os
import re
from typing import Any

from kb.errors import KbError
from kb.migrations import Migration, load

_ROLE = re.compile(r"^[a-z_][a-z0-9_]{0,62}$")

URL_ENV = "LOGKB_TEAM_URL"
TEAM_ENV = "LOGKB_TEAM_NAME"

_SECRETS: set[str] = set()
"""Passwords of the team URLs used in this process: never printed (see :func:`scrub`)."""
_USERINFO_PW = re.compile(r"(?P<head>\b[a-z][a-z0-9+.-]{0,31}://[^:/@?#\s]*):"
                          r"(?P<pw>[^@/?#\s]*)@", re.IGNORECASE)
_PARAM_PW = re.compile(r"(?P<head>(?:[?&]|\b)password\s*=\s*)(?P<pw>'(?:[^'\\]|\\.)*'|"
                       r"[^&\s]*)", re.IGNORECASE)


class TeamError(KbError):
    """The team server refused, or could not be reached."""


class NotMember(TeamError):
    """The role is not a member of the team it asked about."""


def migrations() -> list[Migration]:
    """The server migrations shipped with logkb, in order (numbered and checksummed like
    the local store's: one loader, :func:`kb.migrations.load`)."""
    return load("kb.team.migrations")


def config() -> dict[str, Any]:
    """The ``[team]`` table of the config file (``$XDG_CONFIG_HOME/logkb/config.toml``):
    ``url`` (the server) and ``name`` (the team), each optional; ``{}`` without one."""
    import tomllib

    from kb.paths import config_file

    path = config_file()
    if not path.exists():
        return {}
    try:
        with path.open("rb") as fh:
            table = tomllib.load(fh).get("team", {})
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise TeamError(f"{path}: {scrub(str(e))}") from None
    if not isinstance(table, dict):
        raise TeamError(f"{path}: [team] must be a table")
    for key in ("url", "name"):
        if key in table and not isinstance(table[key], str):
            raise TeamError(f"{path}: [team] {key} must be a string")
    if table.get("url"):
        _remember(table["url"])
    return table


def team_url(url: str | None) -> str:
    """The server to use: ``--team URL``, else ``$LOGKB_TEAM_URL``, else ``url`` in the
    ``[team]`` table of the config file.  Its password is remembered so that no
    message prints it (:func:`scrub`)."""
    url = url or os.environ.get(URL_ENV) or config().get("url")
    if not url:
        from kb.paths import config_file

        raise TeamError(f"no team server: give --team URL, set {URL_ENV}, or put "
                        f"[team] url = \"postgresql://…\" in {config_file()}")
    _remember(url)
    return url


def team_name(name: str | None) -> str | None:
    """The team named: ``--team-name``, else ``$LOGKB_TEAM_NAME``, else ``name`` in the
    config file's ``[team]`` table, else None (your only team; reads: all of yours)."""
    return name or os.environ.get(TEAM_ENV) or config().get("name") or None


def _remember(url: str) -> None:
    for rx in (_USERINFO_PW, _PARAM_PW):
        for m in rx.finditer(url):
            pw = m.group("pw")
            if pw:
                _SECRETS.add(pw)
                from urllib.parse import unquote

                _SECRETS.add(unquote(pw))
                _SECRETS.add(pw.strip("'"))


def redact_url(url: str) -> str:
    """``url`` with its password (in the user part or a ``password=`` parameter) as
    ``***``: the only form of a team URL logkb prints."""
    url = _USERINFO_PW.sub(lambda m: f"{m.group('head')}:***@", url)
    return _PARAM_PW.sub(lambda m: f"{m.group('head')}***", url)


def scrub(text: str) -> str:
    """``text`` without the password of any team URL this process used (a server or a
    driver error may quote the connection string)."""
    text = _USERINFO_PW.sub(lambda m: f"{m.group('head')}:***@", text)
    for pw in sorted((p for p in _SECRETS if p), key=len, reverse=True):
        text = text.replace(pw, "***")
    return text


def connect(url: str, *, autocommit: bool = False) -> Any:
    """A psycopg connection to the team server (errors as :class:`TeamError`)."""
    try:
        import psycopg
    except ImportError:
        raise TeamError("the team commands need psycopg (pip install 'psycopg[binary]')"
                        ) from None

    _remember(url)
    try:
        return psycopg.connect(url, autocommit=autocommit, connect_timeout=10,
                               application_name="logkb")
    except psycopg.Error as e:
        raise TeamError(f"cannot connect to the team server {redact_url(url)}: "
                        f"{_one_line(e)}") from None


def _one_line(e: BaseException) -> str:
    """An error in one line, without any team URL's password."""
    return scrub(" ".join(str(e).split()))


def applied(conn: Any) -> dict[int, str]:
    row = conn.execute("SELECT to_regclass('logkb.migrations')").fetchone()
    if row is None or row[0] is None:
        return {}
    return dict(conn.execute("SELECT version, checksum FROM logkb.migrations").fetchall())


def migrate(conn: Any) -> list[Migration]:
    """Apply every pending migration, each with its record in one transaction (under an
    advisory lock, so two `team init` at once apply each migration once)."""
    done_now: list[Migration] = []
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(7312091)")
        conn.execute("CREATE SCHEMA IF NOT EXISTS logkb")
        conn.execute("CREATE TABLE IF NOT EXISTS logkb.migrations (version integer PRIMARY "
                     "KEY, name text NOT NULL, checksum text NOT NULL, applied_at timestamptz "
                     "NOT NULL DEFAULT now())")
        done = applied(conn)
        for m in migrations():
            if m.version in done:
                if done[m.version] != m.checksum:
                    raise TeamError(f"team migration {m.version:03d}_{m.name} changed after "
                                    "it was applied")
                continue
            with conn.transaction():
                conn.execute(m.sql.encode())
                conn.execute("INSERT INTO logkb.migrations (version, name, checksum) "
                             "VALUES (%s, %s, %s)", [m.version, m.name, m.checksum])
            done_now.append(m)
    return done_now


def init(url: str, team: str) -> dict[str, Any]:
    """Create or upgrade the schema, and the team ``team`` with the connected role (the
    database's owner) as its first member."""
    import psycopg

    conn = connect(url)
    try:
        try:
            done = migrate(conn)
            with conn.transaction():
                conn.execute("INSERT INTO logkb.teams (team) VALUES (%s) "
                             "ON CONFLICT DO NOTHING", [team])
                # whoever creates the team is in it: a team of one pushes at once
                conn.execute("INSERT INTO logkb.members (team, member) VALUES (%s, "
                             "current_user) ON CONFLICT DO NOTHING", [team])
        except psycopg.Error as e:
            raise TeamError(f"team init failed: {_one_line(e)}") from None
        version = max(applied(conn), default=0)
        user = current_user(conn)
    finally:
        conn.close()
    return {"team": team, "migrations_applied": [f"{m.version:03d}_{m.name}" for m in done],
            "schema_version": version, "owner": user}


def add_member(url: str, team: str, role: str, password: str | None = None) -> dict[str, Any]:
    """Make ``role`` a member of ``team`` (creating the login role when it does not exist)."""
    import psycopg
    from psycopg import sql

    if not _ROLE.match(role):
        raise TeamError(f"{role!r} is not a role name logkb creates (lower case letters, "
                        "digits and _)")
    conn = connect(url)
    try:
        try:
            with conn.transaction():
                if conn.execute("SELECT to_regclass('logkb.teams')").fetchone()[0] is None:
                    raise TeamError("the server has no logkb schema (run `logkb team init`)")
                if not conn.execute("SELECT 1 FROM logkb.teams WHERE team = %s",
                                    [team]).fetchone():
                    raise TeamError(f"no team {team!r} on the server (`logkb team init URL "
                                    f"--name {team}` creates it)")
                exists = conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s",
                                      [role]).fetchone() is not None
                if not exists:
                    q = sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(role))
                    if password:
                        q = sql.SQL("{} PASSWORD {}").format(q, sql.Literal(password))
                    conn.execute(q)
                elif password:
                    conn.execute(sql.SQL("ALTER ROLE {} PASSWORD {}").format(
                        sql.Identifier(role), sql.Literal(password)))
                conn.execute(sql.SQL("GRANT logkb_member TO {}").format(sql.Identifier(role)))
                conn.execute("INSERT INTO logkb.members (team, member) VALUES (%s, %s) "
                             "ON CONFLICT DO NOTHING", [team, role])
        except psycopg.Error as e:
            raise TeamError(f"add-member failed: {_one_line(e)}") from None
    finally:
        conn.close()
    return {"team": team, "member": role, "created": not exists}


def my_teams(conn: Any) -> list[str]:
    """The teams of the connected role."""
    import psycopg

    try:
        return [r[0] for r in conn.execute(
            "SELECT team FROM logkb.members WHERE member = current_user ORDER BY team")]
    except psycopg.errors.UndefinedTable:
        raise TeamError("the server has no logkb schema (run `logkb team init`)") from None
    except psycopg.errors.InsufficientPrivilege:
        raise NotMember("this role is not a member of any team on the server (ask for "
                        "`logkb team add-member`)") from None


def choose_team(conn: Any, team: str | None) -> str:
    """The team to push to: the one named (if a member), else the only one."""
    team = team_name(team)
    mine = my_teams(conn)
    if team is not None:
        if team not in mine:
            raise NotMember(f"not a member of team {team!r} on this server")
        return team
    if not mine:
        raise NotMember("this role is not a member of any team on the server (ask for "
                        "`logkb team add-member`)")
    if len(mine) > 1:
        raise TeamError(f"member of {len(mine)} teams ({', '.join(mine)}): name one with "
                        f"--team-name or {TEAM_ENV}")
    return mine[0]


def read_teams(conn: Any, team: str | None) -> list[str]:
    """The teams a read covers: the one named (if a member), else all of the role's."""
    team = team_name(team)
    mine = my_teams(conn)
    if team is not None:
        if team not in mine:
            raise NotMember(f"not a member of team {team!r}: its rows are not yours to read")
        return [team]
    if not mine:
        raise NotMember("this role is not a member of any team on the server (ask for "
                        "`logkb team add-member`)")
    return mine


def current_user(conn: Any) -> str:
    """The role the connection logged in as."""
    return str(conn.execute("SELECT current_user").fetchone()[0])
