-- Gantry's first schema. Times are milliseconds since the Unix epoch (UTC); ids are SQLite rowids.
-- Deleting a project or a session deletes everything that hangs off it (ON DELETE CASCADE), and
-- nothing here refers to files on disk except by path: no row deletion ever touches a folder.

CREATE TABLE projects (
    id             INTEGER PRIMARY KEY,
    root           TEXT    NOT NULL UNIQUE,    -- canonical absolute path of the project folder
    name           TEXT    NOT NULL,
    created_at     INTEGER NOT NULL,
    last_opened_at INTEGER NOT NULL
);

-- The user's explicit policy choices per project (gantry_tools::PolicySet); a tool without a row
-- follows its permission level's default.
CREATE TABLE tool_policies (
    project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    tool       TEXT    NOT NULL,
    policy     TEXT    NOT NULL CHECK (policy IN ('disabled', 'ask', 'auto')),
    PRIMARY KEY (project_id, tool)
) WITHOUT ROWID;

-- Project MCP config files the user approved, with the hash of the content they saw: a changed
-- file is no longer approved.
CREATE TABLE mcp_approvals (
    project_id   INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    path         TEXT    NOT NULL,
    content_hash TEXT    NOT NULL,
    approved_at  INTEGER NOT NULL,
    PRIMARY KEY (project_id, path)
) WITHOUT ROWID;

-- Model providers. The API key is never here: only which keychain entry holds it, and the name of
-- the environment variable to fall back to.
CREATE TABLE providers (
    name             TEXT    PRIMARY KEY,
    base_url         TEXT    NOT NULL,
    model            TEXT    NOT NULL,
    api_key_env      TEXT,
    context_window   INTEGER CHECK (context_window IS NULL OR context_window > 0),
    keychain_service TEXT    NOT NULL,
    keychain_account TEXT    NOT NULL,
    created_at       INTEGER NOT NULL,
    updated_at       INTEGER NOT NULL
);

CREATE TABLE sessions (
    id         INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    title      TEXT    NOT NULL,
    model      TEXT,
    created_at INTEGER NOT NULL,
    updated_at INTEGER NOT NULL
);
CREATE INDEX sessions_by_project ON sessions (project_id, updated_at DESC);

-- An OpenAI-style transcript, one row per message, numbered from 0 within its session.
CREATE TABLE messages (
    id                INTEGER PRIMARY KEY,
    session_id        INTEGER NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
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
    UNIQUE (session_id, ordinal)
);

-- One row per dispatched tool call. Arguments are stored after redaction.
CREATE TABLE audit_log (
    id              INTEGER PRIMARY KEY,
    project_id      INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    session_id      INTEGER REFERENCES sessions (id) ON DELETE CASCADE,
    tool            TEXT    NOT NULL,
    level           TEXT    CHECK (level IS NULL OR level IN ('safe', 'sensitive', 'dangerous')),
    arguments       TEXT    NOT NULL CHECK (json_valid(arguments)),
    decision        TEXT    NOT NULL,
    decided_by      TEXT    NOT NULL,
    decision_detail TEXT,
    outcome         TEXT    NOT NULL,
    duration_ms     INTEGER NOT NULL,
    result_excerpt  TEXT    NOT NULL,
    started_at      INTEGER NOT NULL
);
CREATE INDEX audit_by_project ON audit_log (project_id, started_at DESC, id DESC);
CREATE INDEX audit_by_session ON audit_log (session_id);
