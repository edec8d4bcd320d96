-- 020_raw_text: `messages.raw` is VARCHAR, no longer JSON.  Every message's raw text
-- is valid JSON already (a reader stores a record only once it parsed), and a JSON
-- column makes DuckDB parse every value again on insert: about a fifth of an
-- ingest's CPU.  The text is unchanged; the JSON functions take VARCHAR as they are
-- (`json_extract_string(raw, '$.info.id')`, `message_usage`), and `raw::JSON` gives
-- the JSON type where it matters.  Documented in docs/schema.md.
ALTER TABLE messages ALTER COLUMN raw TYPE VARCHAR;
