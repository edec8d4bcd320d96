-- 039_report2_cache_write_1h: the part of a message's cache writes that went to the
-- one-hour prompt cache (Claude Code's `usage.cache_creation.ephemeral_1h_input_tokens`),
-- billed at another rate than the five-minute cache (Anthropic: 2x input against 1.25x).
-- `tokens_cache_write` stays the whole; rows derived before this migration keep NULL
-- here (priced as five-minute writes) until their source is derived again
-- (logparse DERIVE_VERSION 9 does that on the next ingest).
ALTER TABLE messages ADD COLUMN tokens_cache_write_1h BIGINT;

CREATE OR REPLACE VIEW message_usage AS
SELECT session_id, ordinal, role, model,
       tokens_input,
       tokens_output,
       coalesce(tokens_reasoning,
                TRY_CAST(COALESCE(json_extract_string(raw, '$.info.tokens.reasoning'),
                                 json_extract_string(raw, '$.tokens.reasoning')) AS BIGINT))   AS tokens_reasoning,
       coalesce(tokens_cache_read,
                TRY_CAST(COALESCE(json_extract_string(raw, '$.info.tokens.cache.read'),
                                 json_extract_string(raw, '$.tokens.cache.read')) AS BIGINT))  AS tokens_cache_read,
       coalesce(tokens_cache_write,
                TRY_CAST(COALESCE(json_extract_string(raw, '$.info.tokens.cache.write'),
                                 json_extract_string(raw, '$.tokens.cache.write')) AS BIGINT)) AS tokens_cache_write,
       cost,
       tokens_cache_write_1h
FROM messages
WHERE role = 'assistant';
