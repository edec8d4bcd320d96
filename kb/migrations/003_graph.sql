-- 003_graph: the persisted knowledge graph and the annotations that steer it.

-- Derived: rebuilt per scope (a top-level session and its subagent sessions).
CREATE TABLE graph_nodes (
    scope      VARCHAR NOT NULL,
    node_id    VARCHAR NOT NULL,
    type       VARCHAR NOT NULL, -- session | approach | cause | experiment | question | decision
    label      VARCHAR,
    status     VARCHAR,          -- approach: open | confirmed | dead_end | blocked | superseded
    session_id VARCHAR,
    ordinal    INTEGER,
    data       JSON NOT NULL     -- every attribute of the node
);

CREATE TABLE graph_edges (
    scope   VARCHAR NOT NULL,
    src     VARCHAR NOT NULL,
    dst     VARCHAR NOT NULL,
    type    VARCHAR NOT NULL,
    ordinal INTEGER,
    data    JSON NOT NULL
);

CREATE TABLE graph_builds (
    scope       VARCHAR PRIMARY KEY,
    built_at    TIMESTAMP NOT NULL,
    messages    INTEGER NOT NULL,
    fingerprint VARCHAR NOT NULL   -- what the graph was built from; unchanged = not rebuilt
);

-- Written by people (`logkb mark`): kept apart from derived data, never touched by
-- ingest or rebuilds, and applied after the heuristics so they always win.
CREATE SEQUENCE annotation_ids START 1;
CREATE TABLE annotations (
    id         INTEGER PRIMARY KEY DEFAULT nextval('annotation_ids'),
    session_id VARCHAR NOT NULL,
    ordinal    INTEGER,
    kind       VARCHAR NOT NULL, -- dead_end | confirmed | hypothesis | link | note | revisit
    value      VARCHAR,
    target     VARCHAR,
    created_at TIMESTAMP NOT NULL DEFAULT now()
);
