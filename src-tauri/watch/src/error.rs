//! The crate's error type.

use std::path::PathBuf;

/// Everything that can go wrong while listing or watching a project tree.
///
/// Variants that concern a project path carry it project-relative, as the caller spelled it, so a
/// message can be shown to the user as is.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    /// The project root could not be resolved (it does not exist, or cannot be read).
    #[error("cannot open the project root {}: {source}", path.display())]
    Root {
        /// The root as given.
        path: PathBuf,
        /// What the file system said.
        #[source]
        source: std::io::Error,
    },
    /// The project root exists but is not a directory.
    #[error("the project root {} is not a directory", path.display())]
    RootNotADirectory {
        /// The root as given.
        path: PathBuf,
    },
    /// The path is absolute, climbs with `..`, or reaches outside the project through a
    /// symbolic link.
    #[error("{path:?} leads outside the project")]
    OutsideProject {
        /// The path as given.
        path: String,
    },
    /// The path goes through a symbolic link that stays inside the project; the tree does not
    /// follow links (the link's target is listed where it really lives).
    #[error("{path:?} goes through a symbolic link, which the project tree does not follow")]
    Symlink {
        /// The path as given.
        path: String,
    },
    /// Nothing exists at the path.
    #[error("{path:?} does not exist in the project")]
    NotFound {
        /// The path as given.
        path: String,
    },
    /// The path names a file, not a directory.
    #[error("{path:?} is not a directory")]
    NotADirectory {
        /// The path as given.
        path: String,
    },
    /// The path exists but the project's ignore rules or the vendor-directory list hide it.
    #[error("{path:?} is hidden by the project's ignore rules")]
    Ignored {
        /// The path as given.
        path: String,
    },
    /// Reading the file system failed.
    #[error("cannot read {path:?}: {source}")]
    Io {
        /// The project-relative path being read.
        path: String,
        /// What the file system said.
        #[source]
        source: std::io::Error,
    },
    /// A watcher was asked to debounce or poll over a zero interval, which would spin.
    #[error("the debounce and poll intervals must be longer than zero")]
    InvalidDebounce,
    /// The operating system refused to watch a directory (for the root) or to start a watcher.
    #[error("cannot watch {}: {source}", path.display())]
    Watch {
        /// The directory that could not be watched.
        path: PathBuf,
        /// What notify said.
        #[source]
        source: notify_debouncer_full::notify::Error,
    },
    /// The watcher's worker thread could not be started.
    #[error("cannot start the watcher thread: {0}")]
    Thread(#[source] std::io::Error),
}

/// `Result` with [`TreeError`] as the error.
pub type Result<T, E = TreeError> = std::result::Result<T, E>;
