//! Project-relative paths as the webview spells them: forward slashes, no `..`.
//!
//! Parsing is lexical only; [`crate::confine`] then checks the parsed path against the file system.

use std::path::{Component, Path, PathBuf};

use crate::error::{Result, TreeError};

/// A project-relative path that cannot climb out of the project lexically: it is not absolute
/// and has no `..`. The empty path is the project root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct RelPath {
    /// Normal components joined with `/`; empty for the root.
    text: String,
}

impl RelPath {
    /// Parses `rel`. Empty components and `.` are dropped (`"./src//lib"` is `"src/lib"`);
    /// an absolute path or a `..` anywhere is [`TreeError::OutsideProject`].
    pub(crate) fn parse(rel: &str) -> Result<Self> {
        let outside = || TreeError::OutsideProject {
            path: rel.to_owned(),
        };
        if rel.starts_with('/') {
            return Err(outside());
        }
        let mut parts = Vec::new();
        for part in rel.split('/') {
            match part {
                "" | "." => {}
                ".." => return Err(outside()),
                _ if is_one_normal_component(part) => parts.push(part),
                // A drive prefix or a platform separator inside one part (on Windows).
                _ => return Err(outside()),
            }
        }
        Ok(Self {
            text: parts.join("/"),
        })
    }

    /// True for the project root.
    pub(crate) fn is_root(&self) -> bool {
        self.text.is_empty()
    }

    /// The components, outermost first.
    pub(crate) fn parts(&self) -> impl Iterator<Item = &str> {
        self.text.split('/').filter(|part| !part.is_empty())
    }

    /// The path of the child `name` of this directory.
    pub(crate) fn child(&self, name: &str) -> String {
        if self.is_root() {
            name.to_owned()
        } else {
            format!("{}/{name}", self.text)
        }
    }

    /// The path as a relative `Path` (empty for the root).
    pub(crate) fn to_path(&self) -> PathBuf {
        self.parts().collect()
    }
}

/// True when `part` is exactly one ordinary path component on this platform.
fn is_one_normal_component(part: &str) -> bool {
    let mut components = Path::new(part).components();
    matches!(
        (components.next(), components.next()),
        (Some(Component::Normal(_)), None)
    )
}

/// A relative `Path` (as produced by stripping the project root) in the webview's spelling:
/// forward slashes, non-UTF-8 bytes replaced.
pub(crate) fn to_slash_string(rel: &Path) -> String {
    let mut text = String::new();
    for component in rel.components() {
        if let Component::Normal(part) = component {
            if !text.is_empty() {
                text.push('/');
            }
            text.push_str(&part.to_string_lossy());
        }
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn root_spellings_are_the_root() {
        for spelling in ["", ".", "./", "/.", "//"] {
            if spelling.starts_with('/') {
                assert!(RelPath::parse(spelling).is_err(), "{spelling:?}");
                continue;
            }
            let parsed = RelPath::parse(spelling).unwrap();
            assert!(parsed.is_root(), "{spelling:?}");
            assert_eq!(parsed.parts().count(), 0);
        }
    }

    #[test]
    fn redundant_separators_and_dots_are_dropped() {
        let parsed = RelPath::parse("./src//watch/./lib.rs/").unwrap();
        assert!(!parsed.is_root());
        assert_eq!(
            parsed.parts().collect::<Vec<_>>(),
            ["src", "watch", "lib.rs"]
        );
        assert_eq!(parsed.to_path(), PathBuf::from("src/watch/lib.rs"));
        assert_eq!(parsed.child("x"), "src/watch/lib.rs/x");
        assert_eq!(RelPath::parse(".").unwrap().child("x"), "x");
    }

    #[test]
    fn climbing_and_absolute_paths_are_outside() {
        for rel in ["..", "../x", "src/../../x", "src/..", "/etc", "/"] {
            let err = RelPath::parse(rel).unwrap_err();
            assert!(
                matches!(&err, TreeError::OutsideProject { path } if path == rel),
                "{rel:?}: {err:?}"
            );
        }
    }

    #[test]
    fn names_that_merely_contain_dots_are_fine() {
        let parsed = RelPath::parse("..hidden/a..b/.env").unwrap();
        assert_eq!(parsed.child("x"), "..hidden/a..b/.env/x");
    }

    #[test]
    fn slash_strings_use_forward_slashes() {
        assert_eq!(to_slash_string(Path::new("a/b/c.rs")), "a/b/c.rs");
        assert_eq!(to_slash_string(Path::new("")), "");
        assert_eq!(to_slash_string(Path::new("./a")), "a");
    }
}
