-- 001_init: the team knowledge base on PostgreSQL (docs: README "Share with your team").
-- Every data row carries its team and its pusher (current_user at insert, never sent by
-- the client).  Row-level security: a member reads the rows of their teams and changes
-- only the rows they pushed.  Never edit an applied migration; add a new one.

CREATE SCHEMA IF NOT EXISTS logkb;
CREATE EXTENSION IF NOT EXISTS pg_trgm;

DO $$
BEGIN
    IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'logkb_member') THEN
        CREATE ROLE logkb_member NOLOGIN;
    END IF;
END
$$;

CREATE TABLE logkb.teams (
    team       text PRIMARY KEY,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE logkb.members (
    team     text NOT NULL REFERENCES logkb.teams ON DELETE CASCADE,
    member   name NOT NULL,
    added_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team, member)
);

-- the teams of the role asking (members' own rows only, through RLS below)
CREATE FUNCTION logkb.my_teams() RETURNS SETOF text
    LANGUAGE sql STABLE AS $$ SELECT team FROM logkb.members WHERE member = current_user $$;

-- one row per pushed scope (a top-level session with its subagents): what the last push
-- stored, so that an older copy never replaces a newer one
CREATE TABLE logkb.scopes (
    team         text NOT NULL,
    pusher       name NOT NULL DEFAULT current_user,
    scope        text NOT NULL,
    title        text,
    messages     integer NOT NULL,   -- messages of every session of the scope
    last_time    bigint,             -- newest message time (epoch ms)
    events       integer NOT NULL,
    raw_included boolean NOT NULL DEFAULT false,
    pushed_at    timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (team, pusher, scope)
);

CREATE TABLE logkb.sessions (
    team          text NOT NULL,
    pusher        name NOT NULL DEFAULT current_user,
    scope         text NOT NULL,
    session_id    text NOT NULL,
    parent_id     text,
    agent         text,
    title         text,
    directory     text,
    version       text,
    time_created  bigint,
    time_updated  bigint,
    last_activity bigint,
    source_form   text,
    complete      boolean,
    messages      integer,
    events        integer,
    commands      integer,
    spawned_at    integer,
    tokens        jsonb,
    cost          double precision,
    PRIMARY KEY (team, pusher, session_id)
);

CREATE TABLE logkb.messages (
    team           text NOT NULL,
    pusher         name NOT NULL DEFAULT current_user,
    scope          text NOT NULL,
    session_id     text NOT NULL,
    message_id     text NOT NULL,
    ordinal        integer NOT NULL,
    role           text,
    time_created   bigint,
    time_completed bigint,
    agent          text,
    model          text,
    finish         text,
    error          text,
    tokens_input   bigint,
    tokens_output  bigint,
    cost           double precision,
    raw            jsonb             -- only with `logkb push --include-raw` (redacted)
);

-- the typed events as `logkb events --json` prints them (redacted)
CREATE TABLE logkb.events (
    team            text NOT NULL,
    pusher          name NOT NULL DEFAULT current_user,
    scope           text NOT NULL,
    session_id      text NOT NULL,
    ordinal         integer NOT NULL,
    seq             integer NOT NULL,
    kind            text NOT NULL,
    error_signature text,
    event           jsonb NOT NULL
);

-- the search units of `logkb search` (kb/search/scan.py), redacted
CREATE TABLE logkb.units (
    team       text NOT NULL,
    pusher     name NOT NULL DEFAULT current_user,
    scope      text NOT NULL,
    session_id text NOT NULL,
    message_id text,
    ordinal    integer,
    seq        integer,
    field      text,
    kind       text,
    tool       text,
    category   text,
    host       text,
    time       bigint,
    text       text NOT NULL,
    tsv        tsvector GENERATED ALWAYS AS (to_tsvector('simple', text)) STORED
);
CREATE INDEX units_fts ON logkb.units USING gin (tsv);
CREATE INDEX units_trgm ON logkb.units USING gin (text gin_trgm_ops);

-- what the knowledge graph concluded, as `deadends`/`untested` --json print it
CREATE TABLE logkb.items (
    team       text NOT NULL,
    pusher     name NOT NULL DEFAULT current_user,
    scope      text NOT NULL,
    session_id text,
    kind       text NOT NULL,        -- deadend | untested | decision
    ordinal    integer,
    item       jsonb NOT NULL
);

CREATE TABLE logkb.measurements (
    team       text NOT NULL,
    pusher     name NOT NULL DEFAULT current_user,
    scope      text NOT NULL,
    session_id text NOT NULL,
    ordinal    integer,
    value      double precision,
    unit       text,
    label      text,
    command    text
);

CREATE TABLE logkb.graph_nodes (
    team    text NOT NULL,
    pusher  name NOT NULL DEFAULT current_user,
    scope   text NOT NULL,
    node_id text NOT NULL,
    type    text,
    data    jsonb NOT NULL
);

CREATE TABLE logkb.graph_edges (
    team   text NOT NULL,
    pusher name NOT NULL DEFAULT current_user,
    scope  text NOT NULL,
    src    text NOT NULL,
    dst    text NOT NULL,
    type   text,
    data   jsonb NOT NULL
);

GRANT USAGE ON SCHEMA logkb TO logkb_member;
GRANT SELECT ON logkb.teams, logkb.members TO logkb_member;
GRANT EXECUTE ON FUNCTION logkb.my_teams() TO logkb_member;
ALTER TABLE logkb.members ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_rows ON logkb.members FOR SELECT USING (member = current_user);

DO $$
DECLARE t text;
BEGIN
    FOREACH t IN ARRAY ARRAY['scopes', 'sessions', 'messages', 'events', 'units', 'items',
                             'measurements', 'graph_nodes', 'graph_edges'] LOOP
        EXECUTE format('CREATE INDEX %I ON logkb.%I (team, pusher, scope)', t || '_owner', t);
        EXECUTE format('GRANT SELECT, INSERT, UPDATE, DELETE ON logkb.%I TO logkb_member', t);
        EXECUTE format('ALTER TABLE logkb.%I ENABLE ROW LEVEL SECURITY', t);
        EXECUTE format('CREATE POLICY team_reads ON logkb.%I FOR SELECT '
                       'USING (team IN (SELECT logkb.my_teams()))', t);
        EXECUTE format('CREATE POLICY pusher_inserts ON logkb.%I FOR INSERT '
                       'WITH CHECK (pusher = current_user AND team IN (SELECT logkb.my_teams()))', t);
        EXECUTE format('CREATE POLICY pusher_updates ON logkb.%I FOR UPDATE '
                       'USING (pusher = current_user AND team IN (SELECT logkb.my_teams())) '
                       'WITH CHECK (pusher = current_user AND team IN (SELECT logkb.my_teams()))', t);
        EXECUTE format('CREATE POLICY pusher_deletes ON logkb.%I FOR DELETE '
                       'USING (pusher = current_user AND team IN (SELECT logkb.my_teams()))', t);
    END LOOP;
END
$$;
CREATE INDEX events_sig ON logkb.events (error_signature) WHERE error_signature IS NOT NULL;
CREATE INDEX items_kind ON logkb.items (kind, team);

-- Search.  Under row-level security PostgreSQL evaluates the policy before any qual whose
-- operator is not leakproof, and `@@` and ILIKE are not: the GIN indexes would never be
-- used.  These functions run as the owner and apply the same rule themselves (the
-- teams of the role that logged in), so the indexes answer.
CREATE FUNCTION logkb.search_units(query text, teams text[], lim integer, newest boolean,
                                   candidates integer DEFAULT 2000)
    RETURNS TABLE (team text, pusher text, session_id text, message_id text,
                   ordinal integer, seq integer, field text, kind text, tool text,
                   category text, host text, "time" bigint, text text, score real,
                   capped boolean)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    -- ranked among the first `candidates` matches the index gives (a common word matches
    -- hundreds of thousands of units; ranking them all costs a second)
    WITH q AS (SELECT websearch_to_tsquery('simple', query) AS q),
    m AS MATERIALIZED (
        SELECT u.* FROM logkb.units u, q
         WHERE u.tsv @@ q.q
           AND u.team IN (SELECT mb.team FROM logkb.members mb
                           WHERE mb.member = session_user)
           AND (teams IS NULL OR u.team = ANY (teams))
         LIMIT candidates)
    SELECT m.team, m.pusher::text, m.session_id, m.message_id, m.ordinal, m.seq, m.field,
           m.kind, m.tool, m.category, m.host, m.time, m.text, ts_rank(m.tsv, q.q),
           (SELECT count(*) FROM m) >= candidates
      FROM m, q
     ORDER BY CASE WHEN newest THEN 0 ELSE ts_rank(m.tsv, q.q) END DESC,
              m.time DESC NULLS LAST
     LIMIT lim
$$;

CREATE FUNCTION logkb.substring_units(needle text, teams text[], lim integer)
    RETURNS TABLE (team text, pusher text, session_id text, message_id text,
                   ordinal integer, seq integer, field text, kind text, tool text,
                   category text, host text, "time" bigint, text text, score real)
    LANGUAGE sql STABLE SECURITY DEFINER SET search_path = pg_catalog, public AS $$
    SELECT u.team, u.pusher::text, u.session_id, u.message_id, u.ordinal, u.seq, u.field,
           u.kind, u.tool, u.category, u.host, u.time, u.text, NULL::real
      FROM logkb.units u
     WHERE u.text ILIKE '%' || replace(replace(replace(needle, '\', '\\'), '%', '\%'),
                                       '_', '\_') || '%'
       AND u.team IN (SELECT m.team FROM logkb.members m WHERE m.member = session_user)
       AND (teams IS NULL OR u.team = ANY (teams))
     ORDER BY u.time DESC NULLS LAST
     LIMIT lim
$$;

REVOKE ALL ON FUNCTION logkb.search_units(text, text[], integer, boolean, integer),
                       logkb.substring_units(text, text[], integer) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION logkb.search_units(text, text[], integer, boolean, integer),
                          logkb.substring_units(text, text[], integer) TO logkb_member;
