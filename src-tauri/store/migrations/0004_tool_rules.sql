-- Rules that last (gantry_tools::ToolRule): per project, "always allow" or "always refuse" a
-- tool, or one command key (`cargo test`) or path glob (`notes/**`) of it. A NULL pattern is the
-- whole tool. The audit log names the rule that decided a call as `decided_by = 'rule:<id>'`.
CREATE TABLE tool_rules (
    id         INTEGER PRIMARY KEY,
    project_id INTEGER NOT NULL REFERENCES projects (id) ON DELETE CASCADE,
    tool       TEXT    NOT NULL CHECK (length(tool) > 0),
    pattern    TEXT    CHECK (pattern IS NULL OR length(pattern) > 0),
    action     TEXT    NOT NULL CHECK (action IN ('allow', 'deny')),
    created_at INTEGER NOT NULL
);
-- One rule per (project, tool, pattern, action); NULL patterns compare equal here.
CREATE UNIQUE INDEX tool_rules_unique ON tool_rules (project_id, tool, ifnull(pattern, ''), action);
