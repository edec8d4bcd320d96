-- 032_extract2_stat_events: a `stat` event (the agent's own record of a turn's duration:
-- Claude Code's system/turn_duration, Codex's task_complete) carries its measurements in
-- its data, like a compaction; the events view shows them.  The view is otherwise 011's.
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
       NULL::JSON AS raw, NULL::VARCHAR AS reason
FROM calls
UNION ALL
SELECT session_id, ordinal, seq, 1, 'result', message_id, part_id, 'assistant', time_end,
       tool, call_id, category, command, NULL, host, "user", port, remote_command, hops, workdir,
       status, exit_code, coalesce(output, error), time_end - time_start,
       error_signatures[1], error_signatures, measurements,
       title, NULL, NULL, NULL, NULL, child_session_id, NULL, NULL
FROM calls
UNION ALL
SELECT session_id, ordinal, seq, 2, 'todo', message_id, part_id, 'assistant', time_end,
       tool, call_id, category, command, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       status, NULL, NULL, NULL, NULL, NULL, NULL,
       title, NULL, NULL, NULL, json_extract(input, '$.todos'), NULL, NULL, NULL
FROM calls WHERE tool = 'todowrite'
UNION ALL
SELECT session_id, ordinal, seq, 2, 'subagent', message_id, part_id, 'assistant', time_start,
       tool, call_id, category, command, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       status, NULL, NULL, NULL, NULL, NULL, NULL,
       title, title, NULL, NULL, NULL, child_session_id, NULL, NULL
FROM calls WHERE tool = 'task'
UNION ALL
SELECT session_id, ordinal, seq, 0, kind, message_id, part_id,
       CASE WHEN kind = 'prompt' THEN 'user' ELSE 'assistant' END, time,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL, measurements,
       NULL, text, classification, prose_role, NULL, NULL, NULL, NULL
FROM prose
UNION ALL
SELECT session_id, ordinal, seq, 0, kind, message_id, part_id, NULL, time,
       NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
       NULL, NULL, NULL, NULL, NULL, NULL,
       CASE WHEN kind IN ('compaction', 'error', 'stat')
            THEN TRY_CAST(json_extract(data, '$.measurements')
                          AS STRUCT(value DOUBLE, unit VARCHAR, label VARCHAR)[]) END,
       NULL, text, NULL, NULL, NULL, NULL, data, reason
FROM other_events;
