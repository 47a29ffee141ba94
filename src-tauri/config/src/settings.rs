//! `.claude/settings*.json` and `.codex/hooks.json`: read once, for rules and hooks.
//!
//! Claude Code keeps permission rules and hooks in three settings files (the user's, the
//! project's committed one, the project's local one), and their lists add up rather than
//! replace one another. Codex keeps hooks, in the same shape, in `hooks.json` beside its config
//! (the user's and the project's). Each file is parsed here into JSON with its source; the
//! rules and hooks modules read the keys they understand from it.

use serde_json::Value;

use crate::source::{FileText, ReadProblem, read_text};
use crate::{ConfigScope, Locations, SourceFile};

/// The largest settings file read (anything bigger is not configuration written by hand).
pub const MAX_SETTINGS_BYTES: usize = 1024 * 1024;

/// Claude Code's settings files, in the order their lists add up: user, project, local.
pub const CLAUDE_SETTINGS: [(&str, ConfigScope); 3] = [
    ("~/.claude/settings.json", ConfigScope::User),
    (".claude/settings.json", ConfigScope::Project),
    (".claude/settings.local.json", ConfigScope::Local),
];

/// Codex's hook files: user, project.
pub const CODEX_HOOKS: [(&str, ConfigScope); 2] = [
    ("~/.codex/hooks.json", ConfigScope::User),
    (".codex/hooks.json", ConfigScope::Project),
];

/// One settings file that exists.
#[derive(Debug, Clone, PartialEq)]
pub struct SettingsFile {
    /// Where it is and whose.
    pub source: SourceFile,
    /// Its JSON, `Value::Null` when it could not be read or parsed (see `problem`).
    pub json: Value,
    /// What a trust is bound to (empty when unreadable): the SHA-256 of its content, or, when
    /// its hooks run files of the project, a fingerprint of the content and those files
    /// ([`crate::trust::fingerprint`]) — so a commit that changes a hook's script asks again.
    pub sha256: String,
    /// Why it could not be read or parsed.
    pub problem: Option<String>,
}

/// The source of a name from [`CLAUDE_SETTINGS`] or [`CODEX_HOOKS`] (`~/` for the home).
pub fn source_of(at: &Locations, name: &str, scope: ConfigScope) -> Option<SourceFile> {
    match name.strip_prefix("~/") {
        Some(relative) => SourceFile::in_home(at, relative),
        None => Some(SourceFile::in_project(at, name, scope)),
    }
}

/// Claude Code's settings files that exist, user first.
pub fn claude_settings(at: &Locations) -> Vec<SettingsFile> {
    load_all(at, &CLAUDE_SETTINGS)
}

/// Codex's hook files that exist, user first.
pub fn codex_hooks(at: &Locations) -> Vec<SettingsFile> {
    load_all(at, &CODEX_HOOKS)
}

fn load_all(at: &Locations, names: &[(&str, ConfigScope)]) -> Vec<SettingsFile> {
    names
        .iter()
        .filter_map(|(name, scope)| source_of(at, name, *scope))
        .filter_map(|source| load(at, source))
        .collect()
}

/// Reads and parses one settings file; `None` when it does not exist.
pub fn load(at: &Locations, source: SourceFile) -> Option<SettingsFile> {
    match read_text(at, &source, MAX_SETTINGS_BYTES) {
        Ok(None) => None,
        Ok(Some(FileText {
            text,
            truncated,
            sha256,
        })) => {
            let (json, problem) = if truncated {
                (
                    Value::Null,
                    Some(format!(
                        "{} is larger than {} KiB, so it is not read",
                        source.shown,
                        MAX_SETTINGS_BYTES / 1024
                    )),
                )
            } else {
                match serde_json::from_str::<Value>(&text) {
                    Ok(json @ Value::Object(_)) => (json, None),
                    Ok(_) => (
                        Value::Null,
                        Some(format!("{} is not a JSON object", source.shown)),
                    ),
                    Err(error) => (
                        Value::Null,
                        Some(format!("{} is not valid JSON: {error}", source.shown)),
                    ),
                }
            };
            let run_files = crate::trust::hook_run_files(at, &json);
            Some(SettingsFile {
                source,
                sha256: crate::trust::fingerprint(&sha256, &run_files),
                json,
                problem,
            })
        }
        Err(problem) => Some(unreadable(source, &problem)),
    }
}

fn unreadable(source: SourceFile, problem: &ReadProblem) -> SettingsFile {
    SettingsFile {
        source,
        json: Value::Null,
        sha256: String::new(),
        problem: Some(problem.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_three_files_are_read_user_first_with_problems_named() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let (project, home) = (root.join("p"), root.join("h"));
        std::fs::create_dir_all(project.join(".claude")).unwrap();
        std::fs::create_dir_all(home.join(".claude")).unwrap();
        std::fs::write(home.join(".claude/settings.json"), r#"{"permissions":{}}"#).unwrap();
        std::fs::write(project.join(".claude/settings.json"), "{ not json").unwrap();
        std::fs::write(project.join(".claude/settings.local.json"), "[1]").unwrap();
        let at = Locations::new(project, Some(home));
        let files = claude_settings(&at);
        let shown: Vec<_> = files.iter().map(|f| f.source.shown.as_str()).collect();
        assert_eq!(
            shown,
            [
                "~/.claude/settings.json",
                ".claude/settings.json",
                ".claude/settings.local.json"
            ]
        );
        assert!(files[0].problem.is_none());
        assert!(files[0].json.get("permissions").is_some());
        assert!(
            files[1]
                .problem
                .as_deref()
                .unwrap()
                .contains("not valid JSON")
        );
        assert!(
            files[2]
                .problem
                .as_deref()
                .unwrap()
                .contains("not a JSON object")
        );
        assert_eq!(files[2].source.scope, ConfigScope::Local);
        assert!(codex_hooks(&at).is_empty());
    }
}
