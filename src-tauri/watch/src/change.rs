//! What the watcher reports.

use serde::{Deserialize, Serialize};

/// A change to the visible project tree. Paths are project-relative with forward slashes; the
/// project root is `""`.
///
/// Only paths the tree shows are reported: nothing under a vendor directory or matched by the
/// ignore files. A rename across that line is reported as what the tree sees: renaming `a.log`
/// (ignored) to `a.txt` is `Created { path: "a.txt" }`.
///
/// When a directory appears (created, or renamed into view) its own contents are not reported one
/// by one: the directory is being watched before the event is sent, so a listing made on receipt
/// is complete, and later changes inside it are reported.
///
/// `Created` can name a path that already existed: a file replaced by renaming another over it
/// (how editors save) is reported as created when both steps fall in one debounce interval, and
/// as `Renamed` onto the existing path otherwise. Treat both as "this path now holds a new file".
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(
    tag = "kind",
    rename_all = "snake_case",
    rename_all_fields = "camelCase"
)]
pub enum TreeChange {
    /// A file or directory appeared.
    Created {
        /// Where it appeared.
        path: String,
        /// True for a directory (a link to one is not a directory).
        is_dir: bool,
    },
    /// A file or directory disappeared (deleted, or moved out of the project or out of view).
    Removed {
        /// Where it was.
        path: String,
        /// True for a directory, as far as can be known for something already gone.
        is_dir: bool,
    },
    /// A file's contents or metadata changed.
    Modified {
        /// The file (or directory, for a metadata change).
        path: String,
        /// True for a directory.
        is_dir: bool,
    },
    /// A file or directory was renamed or moved within the visible tree. For a directory a
    /// [`TreeChange::Rescan`] of `to` follows: what happened inside it just after the rename may
    /// not be reported one by one.
    Renamed {
        /// The old path.
        from: String,
        /// The new path.
        to: String,
        /// True for a directory.
        is_dir: bool,
    },
    /// The listing of `path` and everything below it may have changed in ways not reported one by
    /// one: an ignore file there changed, the directory was just renamed, or the operating system
    /// dropped events. List again what is shown of it.
    Rescan {
        /// The directory to list again (`""` for the whole tree).
        path: String,
    },
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn changes_serialise_with_a_snake_case_tag_and_camel_case_fields() {
        let renamed = TreeChange::Renamed {
            from: "a.rs".into(),
            to: "src/a.rs".into(),
            is_dir: false,
        };
        assert_eq!(
            serde_json::to_value(&renamed).unwrap(),
            json!({"kind": "renamed", "from": "a.rs", "to": "src/a.rs", "isDir": false})
        );
        let created = TreeChange::Created {
            path: "src".into(),
            is_dir: true,
        };
        assert_eq!(
            serde_json::to_value(&created).unwrap(),
            json!({"kind": "created", "path": "src", "isDir": true})
        );
        assert_eq!(
            serde_json::to_value(TreeChange::Rescan {
                path: String::new()
            })
            .unwrap(),
            json!({"kind": "rescan", "path": ""})
        );
        let back: TreeChange =
            serde_json::from_value(json!({"kind": "removed", "path": "x", "isDir": false}))
                .unwrap();
        assert_eq!(
            back,
            TreeChange::Removed {
                path: "x".into(),
                is_dir: false
            }
        );
    }
}
