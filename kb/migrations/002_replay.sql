-- 002_replay: `logkb replay --execute` runs and their steps.
-- Documented in docs/schema.md ("Replay").  Never edit an applied migration; add a new one.

-- One row per executed replay run (plans without --execute are not stored).
CREATE TABLE replay_runs (
    run_id          VARCHAR PRIMARY KEY, -- sortable: UTC start time + random suffix
    session_id      VARCHAR NOT NULL,
    started_at      TIMESTAMP NOT NULL,  -- UTC
    finished_at     TIMESTAMP,           -- UTC; NULL only if the run never finished
    range_from      INTEGER NOT NULL,    -- --from
    range_to        INTEGER,             -- --to (NULL: to the end of the session)
    only_categories VARCHAR[],           -- --only
    targets         JSON NOT NULL,       -- {recorded host: {"target", "source"}} as mapped
    options         JSON NOT NULL,       -- {"allow", "timeout", "keep_running", "yes"}
    status          VARCHAR NOT NULL,    -- completed | interrupted
    step_count      INTEGER NOT NULL,    -- command events in range
    executed_count  INTEGER NOT NULL,    -- steps that ran
    verdicts        JSON NOT NULL,       -- {"same": 3, "now-fails": 1, ...}
    logkb_version   VARCHAR
);

-- One row per command event of a run (skipped ones included, with the reason).
CREATE TABLE replay_steps (
    run_id                 VARCHAR NOT NULL,
    session_id             VARCHAR NOT NULL,
    ordinal                INTEGER NOT NULL, -- the message of the recorded command
    seq                    INTEGER NOT NULL, -- its part position in the message
    call_id                VARCHAR,
    tool                   VARCHAR NOT NULL,
    category               VARCHAR NOT NULL,
    safety                 VARCHAR,          -- read-only | launch | mutating | unknown (NULL: not a shell command)
    safety_reasons         VARCHAR[],
    recorded_host          VARCHAR,          -- first ssh hop as recorded (user@host[:port]); NULL: local
    target                 VARCHAR,          -- where it ran: a target label or 'local'
    run_command            VARCHAR,          -- the command as run (without connection-sharing options)
    action                 VARCHAR NOT NULL, -- run | skip
    reason                 VARCHAR NOT NULL, -- why it ran or was skipped
    verdict                VARCHAR NOT NULL, -- same | changed | now-fails | now-passes | now-answers | skipped
    explanation            VARCHAR,          -- the verdict in plain words
    revisit                BOOLEAN NOT NULL, -- the conclusion drawn from the step may no longer hold
    exit_code              INTEGER,          -- NULL: not run, or timed out
    recorded_exit_code     INTEGER,
    timed_out              BOOLEAN NOT NULL,
    answered               BOOLEAN,          -- the replay got an answer (no transport failure)
    recorded_answered      BOOLEAN,          -- the recorded step got one
    output                 VARCHAR,          -- whole output (stdout+stderr) of the replay
    output_digest          VARCHAR,          -- sha256[:16] of the normalised output
    recorded_output_digest VARCHAR,          -- sha256[:16] of the normalised recorded output
    measurements           STRUCT(label VARCHAR, unit VARCHAR, old DOUBLE, new DOUBLE, ratio DOUBLE)[],
    started_at             TIMESTAMP,        -- UTC
    duration_ms            BIGINT,
    launch                 JSON,             -- launches: {"pgid", "ready", "log", "stopped", ...}
    PRIMARY KEY (run_id, ordinal, seq)
);
