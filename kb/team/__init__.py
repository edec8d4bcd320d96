"""The team knowledge base: what sessions taught, shared on a PostgreSQL server.

:mod:`kb.team.server` connects, applies the versioned migrations in
``kb/team/migrations`` and manages teams and members; :mod:`kb.team.push`
sends a local session's derived, redacted knowledge (read through the local
store's read API, never the raw transcript unless asked); :mod:`kb.team.read`
answers ``sessions``, ``deadends``, ``untested``, ``search`` and ``why`` from
the server in the local commands' shapes.

Who sees what is the server's job: every row carries its team and its pusher
(``current_user`` when inserted) and row-level security lets a member read their
teams' rows and change only what they pushed.  psycopg is imported only here.
"""
