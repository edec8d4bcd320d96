-- 043_annotation_message: an annotation names its message by id as well as by ordinal, so
-- that it follows the message when a later ingest renumbers the session (out-of-order
-- input, an older copy's union).  Existing rows take the id of the message at their
-- ordinal today.
ALTER TABLE annotations ADD COLUMN message_id VARCHAR;
UPDATE annotations SET message_id = m.message_id FROM messages m
WHERE m.session_id = annotations.session_id AND m.ordinal = annotations.ordinal;
