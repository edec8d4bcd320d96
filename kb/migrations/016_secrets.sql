-- 016_secrets: where the stored text holds credentials (found at ingest by
-- logparse.secrets).  The text itself stays as it was read (the store is lossless);
-- every read path redacts these spans unless asked to reveal them (kb.redact).
-- Documented in docs/schema.md ("Secrets").  Never edit an applied migration.

CREATE TABLE secrets (
    session_id VARCHAR NOT NULL,
    ordinal    INTEGER NOT NULL,  -- the message (follows renumbering like the event tables)
    seq        INTEGER NOT NULL,  -- the part in the message
    message_id VARCHAR NOT NULL,
    field      VARCHAR NOT NULL,  -- calls.command | calls.input | calls.output | calls.error |
                                  -- calls.title | prose.text | other_events.text | other_events.data
    "start"    INTEGER NOT NULL,  -- character offsets of the secret in that field's text
    stop       INTEGER NOT NULL,
    kind       VARCHAR NOT NULL,  -- aws-key, github-token, openai-key, private-key, password, ...
    rule       VARCHAR NOT NULL   -- the rule that found it (a detect-secrets detector or logkb:...)
);
