-- 009_graph_version: which version of the extraction rules derived each scope's graph.
-- A scope derived by older rules (or before this table existed: no row) is re-derived by
-- the next command that reads its graph, and by `logkb rebuild`.

CREATE TABLE graph_versions (
    scope             VARCHAR PRIMARY KEY,
    extractor_version INTEGER NOT NULL,  -- kb.graph.extract.EXTRACTOR_VERSION at derivation
    derived_at        TIMESTAMP NOT NULL
);
