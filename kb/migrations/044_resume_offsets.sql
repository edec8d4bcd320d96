-- 044_resume_offsets (issue 28): where the next ingest of an append-only transcript
-- (Claude Code, Codex, opencode JSONL) may continue reading instead of reading the
-- file whole again, and what the reader and the deriver need there.  A row is only a
-- hint: the ingest checks it against the file (size, inode, hashes of the first bytes
-- and of the bytes before the offset), the reader version and the stored session, and
-- reads the file whole whenever anything does not match.
CREATE TABLE resume_points (
    path VARCHAR PRIMARY KEY,
    session_id VARCHAR NOT NULL,
    form VARCHAR NOT NULL,
    reader VARCHAR NOT NULL,          -- the reader and the version of its state
    derive_version INTEGER NOT NULL,
    dev UBIGINT NOT NULL,
    ino UBIGINT NOT NULL,
    byte_offset BIGINT NOT NULL,      -- the first line not read whole starts here
    line INTEGER NOT NULL,            -- ... and has this number
    first_line INTEGER NOT NULL,      -- the smallest line the reader state holds
    first_offset BIGINT,              -- ... starts here (NULL: line 1, read from the start)
    head_hash VARCHAR NOT NULL,
    window_hash VARCHAR NOT NULL,     -- of the 64 KiB before byte_offset
    reader_state VARCHAR NOT NULL,    -- JSON, typed by the reader (logparse/resume.py)
    prefix_ids BLOB NOT NULL,         -- sorted 64-bit hashes of ids met before the offset
    end_problems VARCHAR NOT NULL,    -- JSON [[line, reason]]: reported because the file ended
    ordinal INTEGER NOT NULL,         -- messages stored before the first one read again
    last_key_time BIGINT NOT NULL,    -- the deriver's order check: the last message's key
    last_key_id VARCHAR NOT NULL,
    first_time BIGINT,
    last_time BIGINT,
    prev_had_tool BOOLEAN NOT NULL,
    out_of_order BOOLEAN NOT NULL,
    first_prompt VARCHAR,
    recorded_at TIMESTAMP NOT NULL DEFAULT now()
);
