-- MCP servers the user switched off in one project ("this project does not start it"), by the
-- server's configured name. A row means off; switching it on again deletes the row. A server's
-- own "disabled": true in the user's file is the switch for every project and is not kept here.
CREATE TABLE mcp_disabled_servers (
    project_id  INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name        TEXT    NOT NULL CHECK (length(name) > 0),
    disabled_at INTEGER NOT NULL,
    PRIMARY KEY (project_id, name)
) WITHOUT ROWID;
