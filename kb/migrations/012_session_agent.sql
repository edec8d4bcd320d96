-- 012_session_agent: which agent wrote each session (opencode, claude-code, codex).
-- Documented in docs/schema.md.  Never edit an applied migration; add a new one.

ALTER TABLE sessions ADD COLUMN agent VARCHAR DEFAULT 'opencode';
UPDATE sessions SET agent = 'opencode' WHERE agent IS NULL;
