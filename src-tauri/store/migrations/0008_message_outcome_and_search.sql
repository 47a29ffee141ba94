-- A tool message keeps its call's outcome (the observation's metadata: kind, decision, duration,
-- diff, sandbox state, level) as JSON, so a restored tool card is the one shown live. Rows from
-- before stay NULL and restore from their text as they did.
ALTER TABLE messages ADD COLUMN outcome TEXT CHECK (outcome IS NULL OR json_valid(outcome));
ALTER TABLE branch_messages ADD COLUMN outcome TEXT CHECK (outcome IS NULL OR json_valid(outcome));

-- Full-text search over the live messages of every session: a message's text, and for an
-- assistant message the names and arguments of its tool calls. One row per message, its rowid
-- the message's id, kept in sync by the triggers below (set-aside branches are not searched).
CREATE VIRTUAL TABLE messages_fts USING fts5 (
    body,
    tokenize = 'unicode61 remove_diacritics 2'
);

-- What a message is found by: its text and its tool calls' names and arguments.
CREATE VIEW messages_fts_source AS
SELECT m.id AS id,
       trim(COALESCE(m.content, '') || ' ' || COALESCE((
           SELECT group_concat(COALESCE(json_extract(call.value, '$.function.name'), '') || ' ' ||
                               COALESCE(json_extract(call.value, '$.function.arguments'), ''), ' ')
           FROM json_each(m.tool_calls) AS call
       ), '')) AS body
FROM messages AS m
WHERE m.role IN ('user', 'assistant', 'tool');

INSERT INTO messages_fts (rowid, body) SELECT id, body FROM messages_fts_source;

CREATE TRIGGER messages_fts_insert AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts (rowid, body)
    SELECT id, body FROM messages_fts_source WHERE id = new.id;
END;

CREATE TRIGGER messages_fts_delete AFTER DELETE ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
END;

CREATE TRIGGER messages_fts_update AFTER UPDATE OF content, tool_calls ON messages BEGIN
    DELETE FROM messages_fts WHERE rowid = old.id;
    INSERT INTO messages_fts (rowid, body)
    SELECT id, body FROM messages_fts_source WHERE id = new.id;
END;
