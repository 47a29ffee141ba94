//! One row of the project tree, and the order rows are shown in.

use std::fs::FileType;

use serde::{Deserialize, Serialize};

/// What a tree entry is. Links are never followed, so a link to a directory is a `Symlink`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    /// A regular file (or anything else that is neither a directory nor a link).
    File,
    /// A directory; its children come from another [`crate::ProjectTree::children`] call.
    Dir,
    /// A symbolic link, shown but not followed.
    Symlink,
}

impl EntryKind {
    /// The kind of an entry whose (not followed) file type is `file_type`.
    pub(crate) fn of(file_type: FileType) -> Self {
        if file_type.is_symlink() {
            Self::Symlink
        } else if file_type.is_dir() {
            Self::Dir
        } else {
            Self::File
        }
    }
}

/// A child of a listed directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct TreeEntry {
    /// The file name.
    pub name: String,
    /// The project-relative path, with forward slashes.
    pub path: String,
    /// File, directory or link.
    pub kind: EntryKind,
    /// The size in bytes, for files only.
    pub size: Option<u64>,
}

/// Sorts entries as the tree shows them: directories first, then by name without regard to case
/// (ties broken by the exact name, so the order is total and stable across calls).
pub(crate) fn sort_entries(entries: &mut [TreeEntry]) {
    entries.sort_by_cached_key(|entry| {
        (
            entry.kind != EntryKind::Dir,
            entry.name.to_lowercase(),
            entry.name.clone(),
        )
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(name: &str, kind: EntryKind) -> TreeEntry {
        TreeEntry {
            name: name.to_owned(),
            path: name.to_owned(),
            kind,
            size: (kind == EntryKind::File).then_some(0),
        }
    }

    #[test]
    fn directories_come_first_then_names_ignoring_case() {
        let mut entries = vec![
            entry("b.rs", EntryKind::File),
            entry("Zeta", EntryKind::Dir),
            entry("A.md", EntryKind::File),
            entry("link", EntryKind::Symlink),
            entry("alpha", EntryKind::Dir),
            entry("a.md", EntryKind::File),
        ];
        sort_entries(&mut entries);
        let names: Vec<_> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["alpha", "Zeta", "A.md", "a.md", "b.rs", "link"]);
    }

    #[test]
    fn entries_serialise_for_the_webview() {
        let json = serde_json::to_value(entry("Cargo.toml", EntryKind::File)).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"name": "Cargo.toml", "path": "Cargo.toml", "kind": "file", "size": 0})
        );
        let json = serde_json::to_value(entry("src", EntryKind::Dir)).unwrap();
        assert_eq!(json["kind"], "dir");
        assert_eq!(json["size"], serde_json::Value::Null);
        let back: TreeEntry = serde_json::from_value(json).unwrap();
        assert_eq!(back, entry("src", EntryKind::Dir));
    }
}
