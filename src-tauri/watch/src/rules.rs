//! The rule of `gantry_tools::walk::project_walker`, as a question about one path.
//!
//! The walker answers "what is in this directory"; the watcher also needs "is this path shown"
//! for paths that may be gone (a removed file cannot be walked to). This matcher reads the same
//! files with the same `ignore` primitives and combines them the way the walker does (ignore
//! 0.4's `Ignore::matched_ignore` with `require_git(false)`, `parents(true)`, hidden files shown,
//! no global gitignore), plus the walker's vendor-directory filter:
//!
//! - a path is hidden if any directory on the way to it is hidden (the walker never descends into
//!   a hidden directory, so a `!pattern` below it cannot bring anything back);
//! - a directory named in `VENDOR_DIRS` is hidden;
//! - otherwise the ignore files decide. For each kind of file (`.ignore`, `.gitignore`,
//!   `.git/info/exclude`) the nearest directory whose file has an opinion on the path wins, from
//!   the path's own directory up through the project root and the root's own parents; then
//!   `.ignore` beats `.gitignore`, which beats the exclude file.
//!
//! The `rules_agree` tests hold this to the walker's answers on a tree of corner cases.
//! Compiled ignore files are cached per directory; [`IgnoreRules::forget`] drops them when an
//! ignore file changes.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use gantry_tools::walk::is_vendor_dir;
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// File names whose change alters which paths are shown in their directory and below.
pub(crate) fn is_rule_file(name: &OsStr) -> bool {
    name == ".gitignore" || name == ".ignore" || name == ".git"
}

/// Answers whether project paths are shown, caching the compiled ignore files.
#[derive(Debug)]
pub(crate) struct IgnoreRules {
    root: PathBuf,
    levels: HashMap<PathBuf, Arc<Level>>,
}

/// The compiled ignore files of one directory.
#[derive(Debug)]
struct Level {
    dot_ignore: Gitignore,
    git_ignore: Gitignore,
    git_exclude: Gitignore,
}

/// The verdict of one kind of ignore file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Verdict {
    Silent,
    Ignore,
    Show,
}

impl<T> From<Match<T>> for Verdict {
    fn from(found: Match<T>) -> Self {
        match found {
            Match::None => Self::Silent,
            Match::Ignore(_) => Self::Ignore,
            Match::Whitelist(_) => Self::Show,
        }
    }
}

impl IgnoreRules {
    /// Rules for the project at `root`, which must be canonical (as the walker's paths are).
    pub(crate) fn new(root: PathBuf) -> Self {
        Self {
            root,
            levels: HashMap::new(),
        }
    }

    /// True when the project tree shows `rel` (a project-relative path; `is_dir` says whether it
    /// is, or was, a directory). The root is always shown.
    pub(crate) fn is_visible(&mut self, rel: &Path, is_dir: bool) -> bool {
        let parts: Vec<&OsStr> = rel
            .components()
            .filter_map(|component| match component {
                Component::Normal(part) => Some(part),
                _ => None,
            })
            .collect();
        let mut abs = self.root.clone();
        for (index, part) in parts.iter().enumerate() {
            abs.push(part);
            let as_dir = is_dir || index + 1 < parts.len();
            if as_dir && is_vendor_dir(part) {
                return false;
            }
            if self.is_ignored(&abs, as_dir) {
                return false;
            }
        }
        true
    }

    /// Drops the cached ignore files of the project directory `rel_dir` and of every directory
    /// below it, so they are read again when next needed.
    pub(crate) fn forget(&mut self, rel_dir: &Path) {
        let dir = self.root.join(rel_dir);
        self.levels.retain(|cached, _| !cached.starts_with(&dir));
    }

    /// Whether the ignore files alone hide the absolute path `abs` (its ancestors not considered).
    fn is_ignored(&mut self, abs: &Path, is_dir: bool) -> bool {
        let (mut by_ignore, mut by_gitignore, mut by_exclude) =
            (Verdict::Silent, Verdict::Silent, Verdict::Silent);
        let mut dir = abs.parent();
        while let Some(current) = dir {
            let level = self.level(current);
            if by_ignore == Verdict::Silent {
                by_ignore = level.dot_ignore.matched(abs, is_dir).into();
            }
            if by_gitignore == Verdict::Silent {
                by_gitignore = level.git_ignore.matched(abs, is_dir).into();
            }
            if by_exclude == Verdict::Silent {
                by_exclude = level.git_exclude.matched(abs, is_dir).into();
            }
            dir = current.parent();
        }
        [by_ignore, by_gitignore, by_exclude]
            .into_iter()
            .find(|verdict| *verdict != Verdict::Silent)
            == Some(Verdict::Ignore)
    }

    /// The compiled ignore files of the absolute directory `dir`, from the cache or the disk.
    fn level(&mut self, dir: &Path) -> Arc<Level> {
        if let Some(level) = self.levels.get(dir) {
            return Arc::clone(level);
        }
        let level = Arc::new(Level {
            dot_ignore: compile(dir, &dir.join(".ignore")),
            git_ignore: compile(dir, &dir.join(".gitignore")),
            git_exclude: match git_exclude_file(dir) {
                Some(file) => compile(dir, &file),
                None => Gitignore::empty(),
            },
        });
        self.levels.insert(dir.to_path_buf(), Arc::clone(&level));
        level
    }
}

/// Compiles the ignore file `file` with patterns relative to `dir`; a missing or unreadable file,
/// or a bad pattern, counts as no opinion (as in the walker).
fn compile(dir: &Path, file: &Path) -> Gitignore {
    if !file.is_file() {
        return Gitignore::empty();
    }
    let mut builder = GitignoreBuilder::new(dir);
    // Partial errors (a bad glob on one line) keep the good lines, as in the walker.
    let _ = builder.add(file);
    builder.build().unwrap_or_else(|_| Gitignore::empty())
}

/// The `info/exclude` file of the git repository whose top directory is `dir`, if `dir` holds a
/// `.git` directory, or a `.git` file pointing at a worktree's git directory (whose `commondir`
/// holds the shared `info/exclude`).
fn git_exclude_file(dir: &Path) -> Option<PathBuf> {
    let dot_git = dir.join(".git");
    let kind = std::fs::metadata(&dot_git).ok()?.file_type();
    if kind.is_dir() {
        return Some(dot_git.join("info/exclude"));
    }
    let pointer = std::fs::read_to_string(&dot_git).ok()?;
    let git_dir = PathBuf::from(pointer.lines().next()?.strip_prefix("gitdir: ")?);
    let common = std::fs::read_to_string(git_dir.join("commondir")).ok()?;
    let common = common.lines().next()?;
    let common_dir = if common.starts_with('.') {
        git_dir.join(common)
    } else {
        PathBuf::from(common)
    };
    Some(common_dir.join("info/exclude"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, IgnoreRules) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        for (path, text) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        (dir, IgnoreRules::new(root))
    }

    #[test]
    fn root_rules_reach_into_subdirectories() {
        let (_dir, mut rules) = project(&[(".gitignore", "*.log\n/secret/\n")]);
        assert!(!rules.is_visible(Path::new("src/debug.log"), false));
        assert!(!rules.is_visible(Path::new("secret"), true));
        assert!(!rules.is_visible(Path::new("secret/key.pem"), false));
        // Anchored to the root: a `secret` directory deeper down is shown.
        assert!(rules.is_visible(Path::new("src/secret"), true));
        assert!(rules.is_visible(Path::new("src/main.rs"), false));
        // The root is always shown.
        assert!(rules.is_visible(Path::new(""), true));
    }

    #[test]
    fn directory_only_patterns_need_a_directory() {
        let (_dir, mut rules) = project(&[(".gitignore", "out/\n")]);
        assert!(!rules.is_visible(Path::new("out"), true));
        assert!(rules.is_visible(Path::new("out"), false));
    }

    #[test]
    fn vendor_directories_are_hidden_but_files_of_that_name_are_not() {
        let (_dir, mut rules) = project(&[]);
        assert!(!rules.is_visible(Path::new("node_modules"), true));
        assert!(!rules.is_visible(Path::new("web/node_modules/x/index.js"), false));
        assert!(!rules.is_visible(Path::new(".git/config"), false));
        assert!(rules.is_visible(Path::new("docs/build"), false));
    }

    #[test]
    fn dot_ignore_beats_gitignore_and_nearer_files_beat_farther() {
        let (_dir, mut rules) = project(&[
            (".gitignore", "*.gen\n*.tmp\n"),
            ("keep/.ignore", "!*.gen\n"),
            ("sub/.gitignore", "!*.tmp\n"),
        ]);
        assert!(!rules.is_visible(Path::new("a.gen"), false));
        assert!(rules.is_visible(Path::new("keep/a.gen"), false));
        assert!(rules.is_visible(Path::new("sub/a.tmp"), false));
        assert!(!rules.is_visible(Path::new("other/a.tmp"), false));
    }

    #[test]
    fn nothing_comes_back_from_inside_a_hidden_directory() {
        let (_dir, mut rules) = project(&[(".gitignore", "gen/\n"), ("gen/.gitignore", "!*\n")]);
        assert!(!rules.is_visible(Path::new("gen/a.rs"), false));
    }

    #[test]
    fn forgetting_rereads_changed_ignore_files() {
        let (dir, mut rules) = project(&[("src/.gitignore", "*.bak\n")]);
        assert!(!rules.is_visible(Path::new("src/a.bak"), false));
        std::fs::write(dir.path().join("src/.gitignore"), "").unwrap();
        // Cached: still the old answer.
        assert!(!rules.is_visible(Path::new("src/a.bak"), false));
        rules.forget(Path::new("src"));
        assert!(rules.is_visible(Path::new("src/a.bak"), false));
    }

    #[test]
    fn a_repository_exclude_file_counts() {
        let (_dir, mut rules) = project(&[(".git/info/exclude", "*.local\n")]);
        assert!(!rules.is_visible(Path::new("settings.local"), false));
        assert!(rules.is_visible(Path::new("settings.json"), false));
    }

    #[test]
    fn rule_files_are_recognised_by_name() {
        assert!(is_rule_file(OsStr::new(".gitignore")));
        assert!(is_rule_file(OsStr::new(".ignore")));
        assert!(!is_rule_file(OsStr::new("gitignore")));
    }
}
