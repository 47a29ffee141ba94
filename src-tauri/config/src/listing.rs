//! Listing the folders commands, skills and agents live in, with the same care as reading.
//!
//! A project folder is resolved through the project's confinement (a `.claude/skills` that is
//! a symlink out of the project lists nothing; a skill folder linked to `../../.agents/skills/x`
//! stays inside and is listed). A user folder is the user's own, but never a secret store.
//! Listings are bounded in depth and count, and sorted so discovery is deterministic.

use std::path::{Path, PathBuf};

use crate::source::in_secret_store;
use crate::{ConfigScope, Locations};

/// The most entries one folder listing returns.
pub const MAX_ENTRIES: usize = 500;

/// One entry of a folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// Its file name.
    pub name: String,
    /// Its path as found (under the folder listed, not resolved).
    pub path: PathBuf,
    /// Its real location (symlinks followed, confined for a project folder).
    pub real: PathBuf,
    /// True for a folder.
    pub is_dir: bool,
}

/// The real location of `path` when it may be read for `scope`: inside the project for a
/// project or local path, outside the secret stores for a user path; `None` otherwise or when
/// it does not exist.
pub fn real_location(at: &Locations, scope: ConfigScope, path: &Path) -> Option<PathBuf> {
    match scope {
        ConfigScope::Project | ConfigScope::Local => {
            let relative = path.strip_prefix(&at.project).ok()?;
            let project = gantry_tools::ProjectRoot::new(&at.project).ok()?;
            let resolved = project.resolve(&relative.to_string_lossy()).ok()?;
            resolved
                .path()
                .exists()
                .then(|| resolved.path().to_path_buf())
        }
        ConfigScope::User => {
            let real = std::fs::canonicalize(path).ok()?;
            (!in_secret_store(at, &real)).then_some(real)
        }
    }
}

/// The entries of folder `dir` (a path as found) for `scope`, sorted by name; empty when the
/// folder is missing, leads where it may not, or cannot be read. Entries whose own target may
/// not be read (a link out of the project) are left out.
pub fn list(at: &Locations, scope: ConfigScope, dir: &Path) -> Vec<Entry> {
    let Some(real_dir) = real_location(at, scope, dir) else {
        return Vec::new();
    };
    let Ok(listing) = std::fs::read_dir(&real_dir) else {
        return Vec::new();
    };
    let mut entries: Vec<Entry> = listing
        .filter_map(Result::ok)
        .take(MAX_ENTRIES)
        .filter_map(|entry| {
            let name = entry.file_name().to_str()?.to_owned();
            let path = dir.join(&name);
            let real = real_location(at, scope, &path)?;
            let is_dir = std::fs::metadata(&real).ok()?.is_dir();
            Some(Entry {
                name,
                path,
                real,
                is_dir,
            })
        })
        .collect();
    entries.sort_by(|a, b| a.name.cmp(&b.name));
    entries
}

/// The Markdown files under `dir`, recursively (at most `depth` folders down), each with its
/// path relative to `dir` without `.md` and with `/` between folders (`frontend/review`).
pub fn markdown_files(
    at: &Locations,
    scope: ConfigScope,
    dir: &Path,
    depth: usize,
) -> Vec<(String, Entry)> {
    let mut found = Vec::new();
    collect_markdown(at, scope, dir, "", depth, &mut found);
    found
}

fn collect_markdown(
    at: &Locations,
    scope: ConfigScope,
    dir: &Path,
    prefix: &str,
    depth: usize,
    found: &mut Vec<(String, Entry)>,
) {
    for entry in list(at, scope, dir) {
        if found.len() >= MAX_ENTRIES {
            return;
        }
        if entry.name.starts_with('.') {
            continue;
        }
        if entry.is_dir {
            if depth > 0 {
                let prefix = format!("{prefix}{}/", entry.name);
                collect_markdown(at, scope, &entry.path, &prefix, depth - 1, found);
            }
        } else if let Some(stem) = entry.name.strip_suffix(".md") {
            found.push((format!("{prefix}{stem}"), entry));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn project_listing_stays_inside_and_recurses() {
        let dir = tempfile::tempdir().unwrap();
        let root = std::fs::canonicalize(dir.path()).unwrap();
        let project = root.join("proj");
        let outside = root.join("outside");
        std::fs::create_dir_all(project.join(".claude/commands/frontend")).unwrap();
        std::fs::create_dir_all(&outside).unwrap();
        std::fs::write(outside.join("x.md"), "x").unwrap();
        std::fs::write(project.join(".claude/commands/a.md"), "a").unwrap();
        std::fs::write(project.join(".claude/commands/frontend/b.md"), "b").unwrap();
        std::fs::write(project.join(".claude/commands/notes.txt"), "n").unwrap();
        std::os::unix::fs::symlink(&outside, project.join(".claude/commands/out")).unwrap();
        std::os::unix::fs::symlink(outside.join("x.md"), project.join(".claude/commands/x.md"))
            .unwrap();
        let at = Locations::new(&project, Some(root.join("home")));
        let names: Vec<String> = markdown_files(
            &at,
            ConfigScope::Project,
            &project.join(".claude/commands"),
            3,
        )
        .into_iter()
        .map(|(name, _)| name)
        .collect();
        assert_eq!(names, ["a", "frontend/b"]);
    }
}
