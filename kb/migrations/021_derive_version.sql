-- 021_derive_version: the version of the rules that derived a session's events
-- (logparse.derive.DERIVE_VERSION: error signatures, measurements, prose classes, the
-- shell parse).  NULL: derived before versions were kept.  A session derived by older
-- rules is derived again from its source by the next ingest of that source, and by
-- `logkb rebuild --events`.
ALTER TABLE sessions ADD COLUMN derive_version INTEGER;
