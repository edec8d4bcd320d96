-- 001_init: sessions, messages and the typed event tables, plus the `events` view.
-- Documented in docs/schema.md.  Never edit an applied migration; add a new one.

CREATE TABLE sessions (
    session_id    VARCHAR PRIMARY KEY,
    parent_id     VARCHAR,          -- the session that spawned this one (subagent)
    title         VARCHAR,
    slug          VARCHAR,
    directory     VARCHAR,
    project_id    VARCHAR,
    version       VARCHAR,          -- opencode version that created it
    time_created  BIGINT,           -- epoch ms
    time_updated  BIGINT,
    source_form   VARCHAR NOT NULL, -- export | jsonl | sqlite | tree | run
    source_path   VARCHAR NOT NULL,
    complete      BOOLEAN NOT NULL, -- false: the source cannot show every message (run stream)
    message_count INTEGER NOT NULL DEFAULT 0,
    event_count   INTEGER NOT NULL DEFAULT 0,
    ingested_at   TIMESTAMP NOT NULL,
    info          JSON              -- the session info as the source had it
);

CREATE TABLE messages (
    session_id     VARCHAR NOT NULL,
    message_id     VARCHAR NOT NULL,
    ordinal        INTEGER NOT NULL, -- 1-based chronological position in the session
    role           VARCHAR,
    time_created   BIGINT,
    time_completed BIGINT,
    agent          VARCHAR,
    model          VARCHAR,
    finish         VARCHAR,
    error          VARCHAR,          -- assistant error name (MessageAbortedError, ...)
    tokens_input   BIGINT,
    tokens_output  BIGINT,
    cost           DOUBLE,
    inferred       BOOLEAN NOT NULL, -- a user message placed by inference (run stream)
    digest         BIGINT NOT NULL,  -- change detection for incremental ingest
    raw            JSON NOT NULL     -- {"info", "parts"} exactly as read
);

-- One row per tool call: the `command` and `result` events.
CREATE TABLE calls (
    session_id       VARCHAR NOT NULL,
    ordinal          INTEGER NOT NULL,
    seq              INTEGER NOT NULL, -- part position in the message
    message_id       VARCHAR NOT NULL,
    part_id          VARCHAR,
    call_id          VARCHAR,
    tool             VARCHAR NOT NULL,
    category         VARCHAR NOT NULL,
    command          VARCHAR,          -- bash: the command; other tools: the main argument
    input            JSON,             -- full tool input
    host             VARCHAR,          -- first ssh hop
    "user"           VARCHAR,
    port             INTEGER,
    remote_command   VARCHAR,          -- what the first ssh hop runs remotely
    hops             JSON,             -- every ssh hop, nested ones flagged
    workdir          VARCHAR,
    status           VARCHAR NOT NULL, -- completed | error | aborted | interrupted
    exit_code        INTEGER,
    output           VARCHAR,
    error            VARCHAR,          -- the tool's error text (status error/aborted)
    time_start       BIGINT,
    time_end         BIGINT,
    title            VARCHAR,
    error_signatures VARCHAR[],
    measurements     STRUCT(value DOUBLE, unit VARCHAR, label VARCHAR)[],
    child_session_id VARCHAR           -- task: the subagent session it spawned
);

-- User prompts and assistant prose.
CREATE TABLE prose (
    session_id     VARCHAR NOT NULL,
    ordinal        INTEGER NOT NULL,
    seq            INTEGER NOT NULL,
    message_id     VARCHAR NOT NULL,
    part_id        VARCHAR,
    kind           VARCHAR NOT NULL, -- prompt | decision
    source         VARCHAR NOT NULL, -- text | reasoning | synthetic | ignored
    time           BIGINT,
    text           VARCHAR NOT NULL,
    classification VARCHAR,          -- plan | observation | conclusion | pivot | dead-end | decision
    prose_role     VARCHAR,          -- rationale | conclusion | reply
    measurements   STRUCT(value DOUBLE, unit VARCHAR, label VARCHAR)[]
);

-- Errors, compaction, attachments, subagent requests and raw (untyped) parts.
CREATE TABLE other_events (
    session_id VARCHAR NOT NULL,
    ordinal    INTEGER NOT NULL,
    seq        INTEGER NOT NULL,
    message_id VARCHAR NOT NULL,
    part_id    VARCHAR,
    kind       VARCHAR NOT NULL,
    time       BIGINT,
    text       VARCHAR,
    data       JSON,
    reason     VARCHAR            -- kind raw: why logkb could not type it
);

-- What the last ingest of each input could not read or type (current state per input).
CREATE TABLE problems (
    path    VARCHAR NOT NULL,
    line    INTEGER,
    record  VARCHAR,
    reason  VARCHAR NOT NULL,
    raw     VARCHAR              -- the record's text when it is stored nowhere else
);

-- Inputs already ingested, so an unchanged file is not read again.
CREATE TABLE sources (
    path        VARCHAR PRIMARY KEY,
    form        VARCHAR NOT NULL,
    fingerprint VARCHAR NOT NULL,
    sessions    VARCHAR[] NOT NULL,
    ingested_at TIMESTAMP NOT NULL
);

CREATE VIEW events AS
SELECT session_id, ordinal, seq, 0 AS sub, 'command' AS kind, message_id, part_id,
       'assistant' AS role, time_start AS time, tool, call_id, category, command, input,
       host, "user", port, remote_command, hops, workdir,
       NULL::VARCHAR AS status, NULL::INTEGER AS exit_code, NULL::VARCHAR AS output,
       NULL::BIGINT AS duration_ms, NULL::VARCHAR AS error_signature,
       NULL::VARCHAR[] AS error_signatures,
       NULL::STRUCT(value DOUBLE, unit VARCHAR, label VARCHAR)[] AS measurements,
       title, NULL::VARCHAR AS text, NULL::VARCHAR AS classification,
       NULL::VARCHAR AS prose_role, NULL::JSON AS todos, child_session_id,
       NULL::JSON AS raw, NULL::VARCHAR AS reason
FROM calls
UNION ALL
SELECT session_id, ordinal, seq, 1, 'result', message_id, part_id, 'assistant', time_end,
       tool, call_id, category, command, NULL, host, "user", port, remote_command, hops, workdir,
       status, exit_code, coalesce(output, error), time_end - time_start,
       error_signatures[1], error_signatures, measurements,
       title, NULL, NULL, NULL, NULL, child_session_id, NULL, NULL
FROM calls
UNION ALL
SELECT session_id, ordinal, seq, 2, 'todo', message_id, part_id, 'assistant', time_end,
       tool, call_id, category, command, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       status, NULL, NULL, NULL, NULL, NULL, NULL,
       title, NULL, NULL, NULL, json_extract(input, '$.todos'), NULL, NULL, NULL
FROM calls WHERE tool = 'todowrite'
UNION ALL
SELECT session_id, ordinal, seq, 2, 'subagent', message_id, part_id, 'assistant', time_start,
       tool, call_id, category, command, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       status, NULL, NULL, NULL, NULL, NULL, NULL,
       title, title, NULL, NULL, NULL, child_session_id, NULL, NULL
FROM calls WHERE tool = 'task'
UNION ALL
SELECT session_id, ordinal, seq, 0, kind, message_id, part_id,
       CASE WHEN kind = 'prompt' THEN 'user' ELSE 'assistant' END, time,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, measurements,
       NULL, text, classification, prose_role, NULL, NULL, NULL, NULL
FROM prose
UNION ALL
SELECT session_id, ordinal, seq, 0, kind, message_id, part_id, NULL, time,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, text, NULL, NULL, NULL, NULL, data, reason
FROM other_events;
