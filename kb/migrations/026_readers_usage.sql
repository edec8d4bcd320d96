-- Token usage of Claude Code and Codex messages, as opencode's.  Their stored message
-- (`raw`) is the source lines, with the usage the reader read at `$.tokens` (a Codex
-- token_count event is a line of another message); opencode's is at `$.info.tokens`.
-- Claude Code's input now excludes the cache (as opencode's does): cache reads and
-- writes are their own columns.
CREATE OR REPLACE VIEW message_usage AS
SELECT session_id, ordinal, role, model,
       tokens_input,
       tokens_output,
       TRY_CAST(COALESCE(json_extract_string(raw, '$.info.tokens.reasoning'),
                         json_extract_string(raw, '$.tokens.reasoning')) AS BIGINT)   AS tokens_reasoning,
       TRY_CAST(COALESCE(json_extract_string(raw, '$.info.tokens.cache.read'),
                         json_extract_string(raw, '$.tokens.cache.read')) AS BIGINT)  AS tokens_cache_read,
       TRY_CAST(COALESCE(json_extract_string(raw, '$.info.tokens.cache.write'),
                         json_extract_string(raw, '$.tokens.cache.write')) AS BIGINT) AS tokens_cache_write,
       cost
FROM messages
WHERE role = 'assistant';
