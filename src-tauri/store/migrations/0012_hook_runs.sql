-- Each hook's last run in a project (the Tools panel's and `gantry-cli tools hooks`' "last
-- run"). A hook is known by its file, event, matcher and command, as the hook files hold no
-- ids; a hook edited in its file is a new one. One row per hook, replaced at each run.
CREATE TABLE hook_runs (
    project_id  INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    source_path TEXT    NOT NULL,
    event       TEXT    NOT NULL CHECK (length(event) > 0),
    matcher     TEXT    NOT NULL,
    command     TEXT    NOT NULL,
    finished_at INTEGER NOT NULL,
    result      TEXT    NOT NULL,
    PRIMARY KEY (project_id, source_path, event, matcher, command)
) WITHOUT ROWID;
