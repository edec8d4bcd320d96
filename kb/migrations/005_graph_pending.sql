-- 005_graph_pending: sessions whose knowledge graph is owed.  Ingest writes a row in
-- the same transaction that completes a session's messages; rebuilding the session's
-- scope deletes it once the graph has committed.  A row left behind (an ingest killed
-- during the graph phase, or run with the graph off) makes the next ingest or graph
-- query rebuild that scope, even when the input did not change.

-- no key: a plain append is the cheapest write per session; readers use DISTINCT
CREATE TABLE graph_pending (
    session_id VARCHAR NOT NULL,
    since      TIMESTAMP NOT NULL
);
