//! The project tree shown in Gantry's left panel, from the engine side.
//!
//! Two jobs, one rule. [`ProjectTree::children`] lists one directory's immediate children, so
//! opening a repository of a hundred thousand files costs one directory read, and the webview asks
//! for more only as the user expands folders. [`TreeWatcher`] keeps that view current: it reports
//! files created, removed, modified and renamed by any program as typed [`TreeChange`]s on a tokio
//! channel, a few tens of milliseconds after they happen.
//!
//! Both obey the rule of `gantry_tools::walk`: what the project's `.gitignore`/`.ignore` files
//! exclude, and the vendor directories (`node_modules/`, `target/`, ...), are not shown, so the tree
//! the user sees and the files the tools search agree. Listings use that crate's walker directly.
//! The watcher also has to judge paths that no longer exist (a removed file cannot be walked), so
//! `rules` restates the same rule as a matcher over the same ignore files, and a test
//! (`rules_agree`) holds the two to the same answers on a tree full of corner cases.
//!
//! Paths are project-relative with forward slashes. Nothing here follows a symbolic link: links are
//! listed as links, and a path that reaches through one is refused, so no listing and no watch ever
//! leaves the project.

mod backend;
mod change;
mod classify;
mod confine;
mod entry;
mod error;
mod limit;
mod poll;
mod relpath;
mod rules;
#[cfg(test)]
mod rules_agree;
mod tree;
mod watcher;
mod watches;
mod worker;

pub use change::TreeChange;
pub use entry::{EntryKind, TreeEntry};
pub use error::{Result, TreeError};
pub use limit::{DEFAULT_POLL_INTERVAL, WatchLimit, WatchOptions};
pub use tree::ProjectTree;
pub use watcher::TreeWatcher;
