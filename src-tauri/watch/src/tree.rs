//! Listing the project one directory at a time.

use std::path::{Path, PathBuf};

use gantry_tools::walk::project_walker;

use crate::confine::resolve_dir;
use crate::entry::{EntryKind, TreeEntry, sort_entries};
use crate::error::{Result, TreeError};
use crate::relpath::RelPath;
use crate::rules::IgnoreRules;

/// A project's file tree, listed lazily: each call reads one directory.
///
/// Cheap to clone. Methods do blocking file I/O; from async code call them in
/// `tokio::task::spawn_blocking`.
#[derive(Debug, Clone)]
pub struct ProjectTree {
    root: PathBuf,
}

impl ProjectTree {
    /// Opens the project at `root`, which must be a directory. The root is resolved once
    /// (symbolic links included); every later path is confined to it.
    pub fn new(root: impl AsRef<Path>) -> Result<Self> {
        Ok(Self {
            root: canonical_root(root.as_ref())?,
        })
    }

    /// The canonical project root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The immediate children of the project directory `rel` (`""` or `"."` for the root), sorted
    /// directories first, then by name ignoring case.
    ///
    /// Children hidden by the project's ignore files (including those of `rel`'s parents and the
    /// root) or named in the vendor-directory list are left out. Costs one read of that one
    /// directory plus its ancestors' ignore files, however large the project.
    ///
    /// Errors: [`TreeError::OutsideProject`] for an absolute path, a `..`, or a symbolic link that
    /// leads out; [`TreeError::Symlink`] for a link that stays inside (links are not followed);
    /// [`TreeError::NotFound`], [`TreeError::NotADirectory`]; [`TreeError::Ignored`] for a
    /// directory the tree does not show; [`TreeError::Io`] when the directory cannot be read.
    pub fn children(&self, rel: &str) -> Result<Vec<TreeEntry>> {
        let parsed = RelPath::parse(rel)?;
        let dir = resolve_dir(&self.root, &parsed, rel)?;
        if !IgnoreRules::new(self.root.clone()).is_visible(&parsed.to_path(), true) {
            return Err(TreeError::Ignored {
                path: rel.to_owned(),
            });
        }
        let mut entries = Vec::new();
        for item in project_walker(&dir).max_depth(Some(1)).build() {
            let entry = match item {
                Ok(entry) => entry,
                Err(err) if err.depth().unwrap_or(0) == 0 => {
                    return Err(TreeError::Io {
                        path: rel.to_owned(),
                        source: err
                            .into_io_error()
                            .unwrap_or_else(|| std::io::Error::other("cannot list directory")),
                    });
                }
                Err(err) => {
                    tracing::warn!(dir = rel, error = %err, "skipping an unreadable tree entry");
                    continue;
                }
            };
            if entry.depth() == 0 {
                continue;
            }
            let Some(file_type) = entry.file_type() else {
                continue;
            };
            let kind = EntryKind::of(file_type);
            let name = entry.file_name().to_string_lossy().into_owned();
            let size = match kind {
                EntryKind::File => entry.metadata().ok().map(|metadata| metadata.len()),
                EntryKind::Dir | EntryKind::Symlink => None,
            };
            entries.push(TreeEntry {
                path: parsed.child(&name),
                name,
                kind,
                size,
            });
        }
        sort_entries(&mut entries);
        Ok(entries)
    }
}

/// Resolves a project root given by the caller to a canonical directory.
pub(crate) fn canonical_root(root: &Path) -> Result<PathBuf> {
    let canonical = root.canonicalize().map_err(|source| TreeError::Root {
        path: root.to_path_buf(),
        source,
    })?;
    if !canonical.is_dir() {
        return Err(TreeError::RootNotADirectory {
            path: root.to_path_buf(),
        });
    }
    Ok(canonical)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_root_or_a_file_root_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert!(matches!(
            ProjectTree::new(dir.path().join("nope")),
            Err(TreeError::Root { .. })
        ));
        std::fs::write(dir.path().join("file"), "").unwrap();
        assert!(matches!(
            ProjectTree::new(dir.path().join("file")),
            Err(TreeError::RootNotADirectory { .. })
        ));
    }

    #[test]
    fn the_root_is_canonical() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("p")).unwrap();
        let tree = ProjectTree::new(dir.path().join("p/../p/.")).unwrap();
        assert_eq!(tree.root(), dir.path().canonicalize().unwrap().join("p"));
    }
}
