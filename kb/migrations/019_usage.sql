-- Token and cost figures per message as opencode records them.  input, output and
-- cost are columns of `messages`; reasoning and cache tokens are read from the
-- stored message (`raw`), so every session already ingested has them too.
CREATE VIEW message_usage AS
SELECT session_id, ordinal, role, model,
       tokens_input,
       tokens_output,
       TRY_CAST(json_extract_string(raw, '$.info.tokens.reasoning') AS BIGINT)   AS tokens_reasoning,
       TRY_CAST(json_extract_string(raw, '$.info.tokens.cache.read') AS BIGINT)  AS tokens_cache_read,
       TRY_CAST(json_extract_string(raw, '$.info.tokens.cache.write') AS BIGINT) AS tokens_cache_write,
       cost
FROM messages
WHERE role = 'assistant';
