-- Small pieces of state the knowledge base keeps for its user, key → value.
-- 'current_session': the session `logkb use` chose; commands without --session
-- default to it (else to the latest ingested top-level session).
CREATE TABLE kb_settings (
    key        VARCHAR PRIMARY KEY,
    value      VARCHAR,
    updated_at TIMESTAMP DEFAULT current_timestamp
);
