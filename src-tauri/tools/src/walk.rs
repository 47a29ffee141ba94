//! Which files of a project Gantry looks at.
//!
//! Every listing of a project (glob_search, grep_search, the project tree in the app) skips the
//! same things: what the project's `.gitignore`/`.ignore` files exclude, and the vendor and build
//! directories below, which hold nothing a model should read and can dwarf the sources. Keeping
//! the rule in one place means the tree the user sees and the files the tools search agree.

use std::path::Path;

/// Directory names skipped everywhere, whatever the ignore files say.
pub const VENDOR_DIRS: &[&str] = &[
    ".git",
    "node_modules",
    "target",
    "__pycache__",
    ".venv",
    "venv",
    ".tox",
    "dist",
    "build",
];

/// True when a directory with this file name is one of [`VENDOR_DIRS`].
pub fn is_vendor_dir(name: &std::ffi::OsStr) -> bool {
    VENDOR_DIRS.iter().any(|vendor| name == *vendor)
}

/// A walker over `start` (a directory inside a project) that honours the ignore files of `start`
/// and of its parent directories (so a listing of `src/` still obeys the root `.gitignore`) and
/// skips [`VENDOR_DIRS`]. Hidden files are included (`.github/`, `.env.example` are real project
/// files); symlinks are not followed, so a walk never leaves the project.
pub fn project_walker(start: &Path) -> ignore::WalkBuilder {
    let mut builder = ignore::WalkBuilder::new(start);
    builder
        .hidden(false)
        .follow_links(false)
        .git_ignore(true)
        .git_exclude(true)
        .git_global(false)
        .ignore(true)
        .parents(true)
        // Honour .gitignore even when the project is not (yet) a git repository.
        .require_git(false)
        .filter_entry(|entry| {
            !(entry.file_type().is_some_and(|kind| kind.is_dir())
                && is_vendor_dir(entry.file_name()))
        });
    builder
}
