-- 004_graph_state: where the extraction pass of each scope stopped, so a session that
-- grew continues the pass with its new messages instead of re-reading everything.

CREATE TABLE graph_state (
    scope VARCHAR PRIMARY KEY,
    marks JSON NOT NULL,   -- {session_id: [last ordinal read, digest sum up to it]}
    state BLOB NOT NULL    -- the extractor, pickled (loaded only with logkb's own classes)
);
