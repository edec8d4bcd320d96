-- 047_xstate_graph_state: the extractor's kept state as JSON (kb.graph.state), no longer
-- a pickle.  The pickled rows are dropped: each scope's state is derived again from its
-- rows by the next pass over it (as an EXTRACTOR_VERSION bump does); its graph stays.

DROP TABLE graph_state;
CREATE TABLE graph_state (
    scope VARCHAR PRIMARY KEY,
    marks JSON NOT NULL,   -- {session_id: [last ordinal read, digest sum up to it]}
    state VARCHAR NOT NULL -- the extractor as typed JSON text: {"codec": "logkb-xstate", ...}
    -- (VARCHAR, not JSON: DuckDB would parse a 20 MB state on every write, 0.2-0.6 s)
);
