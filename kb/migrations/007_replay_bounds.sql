-- 007_replay_bounds: what bounded and protected each replayed step.
-- Documented in docs/schema.md ("Replay").  Never edit an applied migration; add a new one.

-- Output beyond --max-output is counted and dropped (output keeps the first bytes);
-- sandbox says which wall protected the step ("sandboxed here by bwrap: …",
-- "classification only (--no-sandbox)", …).  replay_runs.status gains `running`
-- (a run is saved step by step; a run killed outright stays `running`).
ALTER TABLE replay_steps ADD COLUMN output_dropped BIGINT;
ALTER TABLE replay_steps ADD COLUMN sandbox VARCHAR;
