-- What a message is for: 'summary' marks the model's summary of everything before it
-- (compaction). Requests send the latest summary instead of the messages before it; those stay.
ALTER TABLE messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'normal'
    CHECK (kind IN ('normal', 'summary'));
-- A set-aside version of the conversation keeps its summaries as summaries.
ALTER TABLE branch_messages ADD COLUMN kind TEXT NOT NULL DEFAULT 'normal'
    CHECK (kind IN ('normal', 'summary'));
