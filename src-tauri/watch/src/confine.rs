//! Keeping a project path inside the project on the file system.
//!
//! [`crate::relpath::RelPath`] already refuses `..` and absolute paths; what is left is a symbolic
//! link on the way. Each component is looked at without following it (`lstat`), so a link to
//! `/etc` cannot smuggle a listing out of the project, and a link that stays inside is refused
//! too: the tree shows links as links and lists their targets where they really live.

use std::io::ErrorKind;
use std::path::{Path, PathBuf};

use crate::error::{Result, TreeError};
use crate::relpath::RelPath;

/// Resolves `rel` against the canonical project `root` to a directory that is really inside it:
/// every component exists, none is a symbolic link, and the last is a directory. `spelled` is the
/// path as the caller wrote it, for error messages.
pub(crate) fn resolve_dir(root: &Path, rel: &RelPath, spelled: &str) -> Result<PathBuf> {
    let mut abs = root.to_path_buf();
    for part in rel.parts() {
        abs.push(part);
        let metadata = match std::fs::symlink_metadata(&abs) {
            Ok(metadata) => metadata,
            Err(err) => return Err(lookup_error(err, spelled)),
        };
        let kind = metadata.file_type();
        if kind.is_symlink() {
            return Err(symlink_error(root, &abs, spelled));
        }
        if !kind.is_dir() {
            return Err(TreeError::NotADirectory {
                path: spelled.to_owned(),
            });
        }
    }
    Ok(abs)
}

/// The error for a component that could not be looked at.
fn lookup_error(err: std::io::Error, spelled: &str) -> TreeError {
    let path = spelled.to_owned();
    match err.kind() {
        ErrorKind::NotFound => TreeError::NotFound { path },
        ErrorKind::NotADirectory => TreeError::NotADirectory { path },
        _ => TreeError::Io { path, source: err },
    }
}

/// The error for a symbolic link met at `link`: [`TreeError::OutsideProject`] when it resolves
/// outside `root`, [`TreeError::Symlink`] otherwise (inside, or dangling).
fn symlink_error(root: &Path, link: &Path, spelled: &str) -> TreeError {
    let path = spelled.to_owned();
    match link.canonicalize() {
        Ok(target) if !target.starts_with(root) => TreeError::OutsideProject { path },
        _ => TreeError::Symlink { path },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::write(root.join("src/lib.rs"), "").unwrap();
        (dir, root)
    }

    fn resolve(root: &Path, rel: &str) -> Result<PathBuf> {
        resolve_dir(root, &RelPath::parse(rel).unwrap(), rel)
    }

    #[test]
    fn real_directories_resolve_under_the_root() {
        let (_dir, root) = project();
        assert_eq!(resolve(&root, "").unwrap(), root);
        assert_eq!(resolve(&root, "src/deep").unwrap(), root.join("src/deep"));
    }

    #[test]
    fn missing_and_non_directories_are_told_apart() {
        let (_dir, root) = project();
        assert!(matches!(
            resolve(&root, "nope"),
            Err(TreeError::NotFound { .. })
        ));
        assert!(matches!(
            resolve(&root, "src/lib.rs"),
            Err(TreeError::NotADirectory { .. })
        ));
        assert!(matches!(
            resolve(&root, "src/lib.rs/below"),
            Err(TreeError::NotADirectory { .. })
        ));
    }

    #[cfg(unix)]
    #[test]
    fn links_are_never_followed() {
        use std::os::unix::fs::symlink;

        let (_dir, root) = project();
        let outside = tempfile::tempdir().unwrap();
        symlink(outside.path(), root.join("out")).unwrap();
        symlink(root.join("src"), root.join("in")).unwrap();
        symlink(root.join("gone"), root.join("dangling")).unwrap();
        assert!(matches!(
            resolve(&root, "out"),
            Err(TreeError::OutsideProject { .. })
        ));
        assert!(matches!(
            resolve(&root, "out/x"),
            Err(TreeError::OutsideProject { .. })
        ));
        assert!(matches!(
            resolve(&root, "in/deep"),
            Err(TreeError::Symlink { .. })
        ));
        assert!(matches!(
            resolve(&root, "dangling"),
            Err(TreeError::Symlink { .. })
        ));
    }
}
