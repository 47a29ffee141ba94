//! Which project files wait for the user's trust, bound to their content.
//!
//! What a project's own files can widen — allow rules, hooks (programs that run outside the
//! sandbox), `allowed-tools` of a command, MCP servers, worktree set-up commands — applies only
//! once the user trusted those files as they are now. A trust is bound to a file's SHA-256, so a
//! pulled commit that changes a hook asks again. The user's own files (`~/.claude/...`) need no
//! trust. The engine keeps the approvals (the store); this crate only asks
//! [`TrustedFiles::covers`].

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::source::hex_sha256;
use crate::{Locations, SourceFile};

/// The folders where projects keep their hook scripts; every file in them counts in the
/// fingerprint of a settings file with hooks, however the command names it.
pub const HOOK_FOLDERS: [&str; 2] = [".claude/hooks", ".codex/hooks"];

/// The most files of one project counted into a fingerprint (a hooks folder is a few scripts).
const MAX_RUN_FILES: usize = 256;

/// An in-project file a hook runs, with its content's hash (`None`: missing or unreadable).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RunFile {
    /// The path relative to the project root.
    pub path: String,
    /// Its SHA-256 (hex).
    pub sha256: Option<String>,
}

/// What approving a file with hash `file_sha256` whose hooks run `files` binds to: the file's
/// own hash when it runs none, else a hash of it with every file's path and hash.
pub fn fingerprint(file_sha256: &str, files: &[RunFile]) -> String {
    if files.is_empty() {
        return file_sha256.to_owned();
    }
    let mut text = format!("gantry-config-trust-v1\n{file_sha256}\n");
    for file in files {
        text.push_str(&file.path);
        text.push('\0');
        text.push_str(file.sha256.as_deref().unwrap_or("missing"));
        text.push('\n');
    }
    hex_sha256(text.as_bytes())
}

/// The in-project files the hooks of a settings file (`json`) run: every file of the
/// [`HOOK_FOLDERS`] when the file has any hook, and each word of a hook's `command` or `args`
/// that names a file of the project (`$CLAUDE_PROJECT_DIR`/`$GANTRY_PROJECT_DIR` read as the
/// root, quotes removed). Sorted, without repeats.
pub fn hook_run_files(at: &Locations, json: &Value) -> Vec<RunFile> {
    let words = hook_command_words(json);
    if words.is_empty() {
        return Vec::new();
    }
    let root = &at.project;
    let mut paths: BTreeSet<PathBuf> = BTreeSet::new();
    for folder in HOOK_FOLDERS {
        collect_files(&root.join(folder), &mut paths);
    }
    for word in words {
        let word = substitute_project_dir(&word, root);
        if word.is_empty() || word.starts_with('-') || word.contains('$') {
            continue;
        }
        let candidate = root.join(&word);
        if candidate.is_file() {
            paths.insert(candidate);
        }
    }
    paths
        .into_iter()
        .filter_map(|path| {
            // Symlinks are followed: what runs is the target, and it counts only inside.
            let real = path.canonicalize().ok()?;
            let relative = real.strip_prefix(root).ok()?.to_string_lossy().into_owned();
            Some(RunFile {
                path: relative,
                sha256: std::fs::read(&real).ok().map(|bytes| hex_sha256(&bytes)),
            })
        })
        .take(MAX_RUN_FILES)
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// The words of every hook's `command` and `args` in `json` (`{"hooks": {event: [{hooks:
/// [{command, args}]}]}}`), split at blanks and shell operators, quotes removed.
fn hook_command_words(json: &Value) -> Vec<String> {
    let Some(events) = json.get("hooks").and_then(Value::as_object) else {
        return Vec::new();
    };
    let handlers = events
        .values()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(|group| group.get("hooks").and_then(Value::as_array))
        .flatten();
    let mut words = Vec::new();
    for handler in handlers {
        if let Some(command) = handler.get("command").and_then(Value::as_str) {
            words.extend(
                command
                    .split(|c: char| c.is_whitespace() || ";&|()<>`".contains(c))
                    .map(|word| word.replace(['"', '\''], ""))
                    .filter(|word| !word.is_empty()),
            );
        }
        if let Some(args) = handler.get("args").and_then(Value::as_array) {
            words.extend(args.iter().filter_map(Value::as_str).map(str::to_owned));
        }
    }
    words
}

/// `word` with a leading project-dir variable replaced by nothing (the path is then relative to
/// the root), `./` dropped.
fn substitute_project_dir(word: &str, root: &Path) -> String {
    let mut rest = word;
    for variable in [
        "${CLAUDE_PROJECT_DIR}",
        "$CLAUDE_PROJECT_DIR",
        "${GANTRY_PROJECT_DIR}",
        "$GANTRY_PROJECT_DIR",
    ] {
        if let Some(after) = rest.strip_prefix(variable) {
            rest = after;
            break;
        }
    }
    if let Ok(relative) = Path::new(rest).strip_prefix(root) {
        return relative.to_string_lossy().into_owned();
    }
    rest.trim_start_matches('/')
        .trim_start_matches("./")
        .to_owned()
}

/// Every regular file under `folder` (not following symlinked folders), up to the cap.
fn collect_files(folder: &Path, into: &mut BTreeSet<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(folder) else {
        return;
    };
    for entry in entries.flatten() {
        if into.len() >= MAX_RUN_FILES {
            return;
        }
        let path = entry.path();
        match entry.file_type() {
            Ok(kind) if kind.is_dir() => collect_files(&path, into),
            Ok(_) if path.is_file() => {
                into.insert(path);
            }
            _ => {}
        }
    }
}

/// The project files the user trusted, each with the content hash they saw.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TrustedFiles {
    approved: BTreeSet<(PathBuf, String)>,
}

impl TrustedFiles {
    /// Nothing trusted (a project opened for the first time).
    pub fn none() -> Self {
        Self::default()
    }

    /// The files approved, as `(path, sha256)` pairs.
    pub fn from_approvals(approvals: impl IntoIterator<Item = (PathBuf, String)>) -> Self {
        Self {
            approved: approvals.into_iter().collect(),
        }
    }

    /// Records one approval.
    pub fn approve(&mut self, path: PathBuf, sha256: String) {
        self.approved.insert((path, sha256));
    }

    /// True when what `file` (with content `sha256`) widens may apply: a user file always, a
    /// project file when approved with exactly this content.
    pub fn covers(&self, file: &SourceFile, sha256: &str) -> bool {
        !file.scope.needs_trust()
            || self
                .approved
                .contains(&(file.path.clone(), sha256.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ConfigScope;
    use serde_json::json;

    #[test]
    fn a_change_to_a_hook_script_changes_the_fingerprint() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        std::fs::create_dir_all(root.join(".claude/hooks")).unwrap();
        std::fs::create_dir_all(root.join("tools")).unwrap();
        std::fs::write(root.join(".claude/hooks/block-rm.sh"), "exit 2").unwrap();
        std::fs::write(root.join("tools/check.py"), "print(1)").unwrap();
        let at = Locations::new(&root, None);
        let settings = json!({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
            {"type": "command", "command": "\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/block-rm.sh"},
            {"type": "command", "command": "python3 tools/check.py --strict"}
        ]}]}});
        let files = hook_run_files(&at, &settings);
        let paths: Vec<_> = files.iter().map(|file| file.path.as_str()).collect();
        assert_eq!(paths, [".claude/hooks/block-rm.sh", "tools/check.py"]);
        let before = fingerprint("abc", &files);
        assert_ne!(before, "abc");
        std::fs::write(root.join("tools/check.py"), "print(2)").unwrap();
        assert_ne!(fingerprint("abc", &hook_run_files(&at, &settings)), before);
        // Without hooks, the fingerprint is the file's own hash.
        assert!(hook_run_files(&at, &json!({"permissions": {}})).is_empty());
        assert_eq!(fingerprint("abc", &[]), "abc");
    }

    #[test]
    fn a_project_file_is_covered_only_with_the_content_approved() {
        let at = Locations::new("/p", Some("/h".into()));
        let project = SourceFile::in_project(&at, ".claude/settings.json", ConfigScope::Project);
        let user = SourceFile::in_home(&at, ".claude/settings.json").unwrap();
        let mut trusted = TrustedFiles::none();
        assert!(trusted.covers(&user, "any"));
        assert!(!trusted.covers(&project, "abc"));
        trusted.approve(project.path.clone(), "abc".into());
        assert!(trusted.covers(&project, "abc"));
        assert!(!trusted.covers(&project, "changed"));
    }
}
