//! Building throwaway projects on the real file system.

use std::path::{Path, PathBuf};

/// A project in a temporary directory, removed on drop.
pub struct Project {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

impl Project {
    /// A project holding `files` (`(path, contents)`; a path ending in `/` is an empty directory).
    pub fn new(files: &[(&str, &str)]) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        let project = Self { _dir: dir, root };
        for (path, text) in files {
            if let Some(dir) = path.strip_suffix('/') {
                project.mkdir(dir);
            } else {
                project.write(path, text);
            }
        }
        project
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The absolute path of the project path `rel`.
    pub fn path(&self, rel: &str) -> PathBuf {
        self.root.join(rel)
    }

    /// Writes a file, creating its parent directories.
    pub fn write(&self, rel: &str, text: &str) {
        let path = self.path(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    /// Creates a directory and its parents.
    pub fn mkdir(&self, rel: &str) {
        std::fs::create_dir_all(self.path(rel)).unwrap();
    }

    /// Renames within the project.
    pub fn rename(&self, from: &str, to: &str) {
        std::fs::rename(self.path(from), self.path(to)).unwrap();
    }

    /// Removes a file.
    pub fn remove(&self, rel: &str) {
        std::fs::remove_file(self.path(rel)).unwrap();
    }
}
