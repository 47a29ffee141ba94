-- Checkpoints: what each tool call of a session changed in the project's files, so that any of it
-- can be undone, and restores, which are recorded the same way so that they can be undone too.
-- File contents are not kept here: they are content-addressed, compressed blobs in the data
-- folder (checkpoints/<project id>/), named by the SHA-256 a state's `*_hash` column holds.
--
-- A file state is one of: 'absent' (no file), 'kept' (a regular file whose content is in the
-- blob `hash`, with its permission bits and size) or 'unkept' (a regular file too large to keep:
-- mode and size only, so the change is listed but cannot be undone).

-- One restore: Gantry writing files back (a file, a hunk, a turn, the session, a rewind of the
-- conversation, the undo of an earlier restore, a return to an earlier version).
CREATE TABLE checkpoint_restores (
    id         INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    session_id INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    kind       TEXT    NOT NULL
               CHECK (kind IN ('file', 'hunk', 'turn', 'session', 'rewind', 'undo', 'branch')),
    label      TEXT    NOT NULL,
    created_at INTEGER NOT NULL
);

-- The later part of a conversation set aside when the user edited an earlier message and sent it
-- again ("Edit and resend from here"): its messages (from `from_ordinal` on) and its file changes
-- are kept so the user can return to it. `restore_id` is the restore that took the files back
-- to `from_ordinal` when it was set aside.
CREATE TABLE session_branches (
    id           INTEGER PRIMARY KEY,
    session_id   INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    from_ordinal INTEGER NOT NULL CHECK (from_ordinal >= 0),
    title        TEXT    NOT NULL,
    restore_id   INTEGER REFERENCES checkpoint_restores (id) ON DELETE SET NULL,
    created_at   INTEGER NOT NULL
);
CREATE INDEX session_branches_by_session ON session_branches (session_id, from_ordinal);

-- The messages of a set-aside branch, as they were in `messages`.
CREATE TABLE branch_messages (
    id                INTEGER PRIMARY KEY,
    branch_id         INTEGER NOT NULL REFERENCES session_branches (id) ON DELETE CASCADE,
    ordinal           INTEGER NOT NULL,
    role              TEXT    NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content           TEXT,
    tool_calls        TEXT    CHECK (tool_calls IS NULL OR json_valid(tool_calls)),
    tool_call_id      TEXT,
    reasoning         TEXT,
    prompt_tokens     INTEGER,
    completion_tokens INTEGER,
    status            TEXT    NOT NULL CHECK (status IN ('complete', 'cancelled', 'error')),
    created_at        INTEGER NOT NULL,
    UNIQUE (branch_id, ordinal)
);

-- One file changed by one tool call (`call_id`) or one restore (`restore_id`), in the turn that
-- the user message at ordinal `turn` started. `branch_id` is NULL on the conversation's live
-- line. `reverted_by` names the restore that undid it.
CREATE TABLE checkpoint_changes (
    id           INTEGER PRIMARY KEY,
    project_id   INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    session_id   INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    branch_id    INTEGER REFERENCES session_branches (id) ON DELETE CASCADE,
    turn         INTEGER NOT NULL CHECK (turn >= 0),
    call_id      TEXT,
    restore_id   INTEGER REFERENCES checkpoint_restores (id) ON DELETE CASCADE,
    tool         TEXT    NOT NULL,
    path         TEXT    NOT NULL CHECK (length(path) > 0),
    before_state TEXT    NOT NULL CHECK (before_state IN ('absent', 'kept', 'unkept')),
    before_hash  TEXT,
    before_mode  INTEGER,
    before_size  INTEGER,
    after_state  TEXT    NOT NULL CHECK (after_state IN ('absent', 'kept', 'unkept')),
    after_hash   TEXT,
    after_mode   INTEGER,
    after_size   INTEGER,
    reverted_by  INTEGER REFERENCES checkpoint_restores (id) ON DELETE SET NULL,
    created_at   INTEGER NOT NULL,
    CHECK ((call_id IS NULL) <> (restore_id IS NULL)),
    CHECK ((before_state = 'kept') = (before_hash IS NOT NULL)),
    CHECK ((after_state = 'kept') = (after_hash IS NOT NULL))
);
CREATE INDEX checkpoint_changes_by_session ON checkpoint_changes (session_id, branch_id, id);
CREATE INDEX checkpoint_changes_by_project ON checkpoint_changes (project_id, created_at);
