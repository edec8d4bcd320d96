-- 006_problem_message: the message a derivation problem is about.  A re-ingest skips
-- unchanged messages without deriving them again, so their problems are kept rather
-- than replaced; problems of the input itself (unreadable lines, damage, duplicates)
-- have no message and are replaced on every read of the input.

ALTER TABLE problems ADD COLUMN message_id VARCHAR;
