-- 017_secret_scans: which sessions were scanned for secrets, with which rule set.
-- A session missing here (ingested before 016) or scanned with an older rule set is
-- rescanned by the next `logkb ingest`; until then its text is redacted by running
-- the finder on what is shown.  Graphs derived before secrets were redacted are
-- dropped so that they are derived again from redacted text.

CREATE TABLE secret_scans (
    session_id VARCHAR PRIMARY KEY,
    ruleset    VARCHAR NOT NULL,   -- logparse.secrets.RULESET at the scan
    findings   INTEGER NOT NULL,
    scanned_at TIMESTAMP NOT NULL
);

DELETE FROM graph_builds;
DELETE FROM graph_state;
