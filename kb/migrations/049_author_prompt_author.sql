-- 049_author_prompt_author: who wrote a prompt's text (logparse.author): `human`, `queued`
-- (the human's, handed over mid-turn), `parent` (a parent agent's task in a sub-agent's
-- session: Claude Code isSidechain, a Codex spawn_agent child, an opencode task child, a
-- Gemini CLI sub-agent chat), `harness` (injected: isMeta, slash commands, hooks, Codex
-- context, synthetic parts) or `compaction` (the summary that replaced the history).
-- Read from the agent's own fields by each reader.  Every rule that reads the user's
-- words reads `human` and `queued` only.  Rows derived before this migration keep NULL
-- (read as their `source` says) until derived again (DERIVE_VERSION 71 does that on the
-- next ingest).  The events view is 046's plus `author` (NULL for every other kind).
ALTER TABLE prose ADD COLUMN author VARCHAR;

CREATE OR REPLACE VIEW events AS
SELECT session_id, ordinal, seq, 0 AS sub, 'command' AS kind, message_id, part_id,
       'assistant' AS role, time_start AS time, tool, call_id, category, command, input,
       host, "user", port, remote_command, hops, workdir,
       NULL::VARCHAR AS status, NULL::INTEGER AS exit_code, NULL::VARCHAR AS output,
       NULL::BIGINT AS duration_ms, NULL::VARCHAR AS error_signature,
       NULL::VARCHAR[] AS error_signatures,
       NULL::STRUCT(value DOUBLE, unit VARCHAR, label VARCHAR)[] AS measurements,
       title, NULL::VARCHAR AS text, NULL::VARCHAR AS classification,
       NULL::VARCHAR AS prose_role, NULL::JSON AS todos, child_session_id,
       NULL::JSON AS raw, NULL::VARCHAR AS reason,
       NULL::VARCHAR AS source, NULL::VARCHAR AS author
FROM calls
UNION ALL
SELECT session_id, ordinal, seq, 1, 'result', message_id, part_id, 'assistant', time_end,
       tool, call_id, category, command, NULL, host, "user", port, remote_command, hops, workdir,
       status, exit_code, coalesce(output, error), time_end - time_start,
       error_signatures[1], error_signatures, measurements,
       title, NULL, NULL, NULL, NULL, child_session_id, NULL, NULL, NULL, NULL
FROM calls
UNION ALL
SELECT session_id, ordinal, seq, 2, 'todo', message_id, part_id, 'assistant', time_end,
       tool, call_id, category, command, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       status, NULL, NULL, NULL, NULL, NULL, NULL,
       title, NULL, NULL, NULL, json_extract(input, '$.todos'), NULL, NULL, NULL, NULL, NULL
FROM calls WHERE tool = 'todowrite'
UNION ALL
SELECT session_id, ordinal, seq, 2, 'subagent', message_id, part_id, 'assistant', time_start,
       tool, call_id, category, command, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       status, NULL, NULL, NULL, NULL, NULL, NULL,
       title, title, NULL, NULL, NULL, child_session_id, NULL, NULL, NULL, NULL
FROM calls WHERE tool = 'task'
UNION ALL
SELECT session_id, ordinal, seq, 0, kind, message_id, part_id,
       CASE WHEN kind = 'prompt' THEN 'user' ELSE 'assistant' END, time,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, measurements,
       NULL, text, classification, prose_role, NULL, NULL, NULL, NULL, source, author
FROM prose
UNION ALL
SELECT session_id, ordinal, seq, 0, kind, message_id, part_id, NULL, time,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL,
       CASE WHEN kind IN ('compaction', 'error', 'stat')
            THEN TRY_CAST(json_extract(data, '$.measurements')
                          AS STRUCT(value DOUBLE, unit VARCHAR, label VARCHAR)[]) END,
       NULL, text, NULL, NULL, NULL, NULL, data, reason, NULL, NULL
FROM other_events;
