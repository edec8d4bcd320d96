-- 030_usage_tokens: cache reads, cache writes and reasoning tokens are columns of
-- `messages`, derived from every agent's own fields (Claude Code's usage, Codex's
-- token_count events, opencode's tokens), no longer read from opencode's raw shape only.
-- Rows derived before this migration keep NULL there; the view falls back to the raw
-- fields for them (opencode's `$.info.tokens`, the Claude Code and Codex readers' `$.tokens`) (the next ingest of their source derives them again).
ALTER TABLE messages ADD COLUMN tokens_cache_read BIGINT;
ALTER TABLE messages ADD COLUMN tokens_cache_write BIGINT;
ALTER TABLE messages ADD COLUMN tokens_reasoning BIGINT;

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
       cost
FROM messages
WHERE role = 'assistant';
