-- 048_rv8_resume_proposal: the deriver's last assistant reply at a resume point (what a
-- short user reply after it approves: logparse.decide_choice.approval), so that a file
-- read on from its resume point derives what a whole reading derives.  The points kept
-- so far lack it: they are dropped (a point is only a hint; the next ingest of each
-- file reads it whole and leaves a new one).
DELETE FROM resume_points;
ALTER TABLE resume_points ADD COLUMN proposal VARCHAR;
