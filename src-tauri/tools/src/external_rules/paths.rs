//! `Read(...)` and `Edit(...)` rules of Claude Code: gitignore patterns anchored at a folder.
//!
//! The settings parser ([`gantry-config`'s permissions module]) turns what was written into a
//! base folder and a gitignore pattern, as documented (`shared/reference/extensibility-specs.md`
//! §6): `//abs` is anchored at `/`, `~/x` at the home, `/x` at the settings file's root (the
//! project for project and local files, `~/.claude` for the user's), `./x` and `x` at the
//! project. A pattern without a slash matches at any depth (`Read(.env)`), as in gitignore. A
//! file matches when it or one of its folders matches (`Read(./secrets)` covers every file
//! below `secrets`). A path outside the base never matches.

use std::path::{Component, Path, PathBuf};

use ignore::gitignore::GitignoreBuilder;

/// A path pattern ready to match.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PathPattern {
    /// The folder the pattern is anchored at (absolute).
    pub base: PathBuf,
    /// The gitignore pattern.
    pub glob: String,
}

impl PathPattern {
    /// True when `path` (absolute) or one of its folders below the base matches.
    pub fn matches(&self, path: &Path, is_dir: bool) -> bool {
        let path = normalize(path);
        if !path.starts_with(&self.base) {
            return false;
        }
        let mut builder = GitignoreBuilder::new(&self.base);
        if builder.add_line(None, &self.glob).is_err() {
            return false;
        }
        let Ok(matcher) = builder.build() else {
            return false;
        };
        matcher
            .matched_path_or_any_parents(&path, is_dir)
            .is_ignore()
    }
}

/// Why `glob` cannot be a gitignore pattern of a rule, or `None` when it can.
pub fn glob_problem(glob: &str) -> Option<String> {
    if glob.trim().is_empty() {
        return Some("the path is empty".into());
    }
    if glob.starts_with('!') {
        return Some("a negated pattern (`!`) is not a rule".into());
    }
    let mut builder = GitignoreBuilder::new("/");
    match builder.add_line(None, glob) {
        Ok(_) => builder
            .build()
            .err()
            .map(|error| format!("`{glob}` is not a pattern: {error}")),
        Err(error) => Some(format!("`{glob}` is not a pattern: {error}")),
    }
}

/// `path` with `.` and `..` components resolved lexically (no file system access).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(base: &str, glob: &str) -> PathPattern {
        PathPattern {
            base: base.into(),
            glob: glob.into(),
        }
    }

    #[test]
    fn bad_patterns_say_why() {
        assert!(glob_problem("src/**").is_none());
        assert!(glob_problem("!x").is_some());
        assert!(glob_problem("[z-a]").is_some());
        assert!(glob_problem("{a").is_some());
        assert!(glob_problem(" ").is_some());
    }

    #[test]
    fn anchored_any_depth_and_folder_patterns() {
        // (base, glob, path, matches)
        let table = [
            ("/p", ".env", "/p/.env", true),
            ("/p", ".env", "/p/a/b/.env", true),
            ("/p", "/.env", "/p/a/.env", false),
            ("/p", "/.env", "/p/.env", true),
            ("/p", "/secrets/**", "/p/secrets/a/b.txt", true),
            ("/p", "/secrets/**", "/p/other/secrets/a", false),
            ("/p", "/secrets", "/p/secrets/key.pem", true),
            ("/p", "src/**/*.rs", "/p/src/a/b.rs", true),
            ("/p", "**/src/**", "/p/x/src/y.rs", true),
            ("/", "/etc/passwd", "/etc/passwd", true),
            ("/h/.claude", "/x", "/p/x", false),
            ("/p", "/a/../b", "/p/b", false),
            ("/p", "*.key", "/p/a/../k.key", true),
        ];
        for (base, glob, path, expected) in table {
            assert_eq!(
                pattern(base, glob).matches(Path::new(path), false),
                expected,
                "{base} {glob} {path}"
            );
        }
    }
}
