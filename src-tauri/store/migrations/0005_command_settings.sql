-- What a project chose for the commands run_command starts (gantry_tools::SandboxSettings and
-- the PassList): whether they may use the network, the folders outside the project they may
-- write to, and the environment variables they receive on purpose although they look secret.
-- Values of variables are never stored: only their names.
CREATE TABLE command_network (
    project_id INTEGER PRIMARY KEY REFERENCES projects (id) ON DELETE CASCADE,
    enabled    INTEGER NOT NULL CHECK (enabled IN (0, 1))
);

CREATE TABLE command_writable_paths (
    project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    path       TEXT    NOT NULL CHECK (substr(path, 1, 1) = '/'),
    added_at   INTEGER NOT NULL,
    PRIMARY KEY (project_id, path)
) WITHOUT ROWID;

CREATE TABLE command_env_pass (
    project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    name       TEXT    NOT NULL CHECK (length(name) > 0),
    added_at   INTEGER NOT NULL,
    PRIMARY KEY (project_id, name)
) WITHOUT ROWID;
