//! From notify's vocabulary to the tree's, without touching the file system.
//!
//! notify describes what the kernel saw (a `Create(Folder)`, a `Modify(Name(From))` whose `To`
//! never came because the file left the watched tree, ...). This module reduces each debounced
//! event to what happened to the tree, with project-relative paths, and leaves every question
//! that needs the disk or the ignore rules to [`crate::worker`].

use std::path::{Path, PathBuf};

use notify_debouncer_full::notify::event::{ModifyKind, RemoveKind, RenameMode};
use notify_debouncer_full::notify::{Event, EventKind};

/// One debounced event, reduced. Paths are relative to the project root (empty for the root).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RawChange {
    /// Something is now at `path` (created, or moved in from outside the watched tree). Whether
    /// it is a directory is for the disk to say: the path may be stale (see [`crate::worker`]).
    Appeared { path: PathBuf },
    /// Nothing is at `path` any more (deleted, or moved out of the watched tree). `dir_hint` is
    /// what the event said about its kind, if anything.
    Gone {
        path: PathBuf,
        dir_hint: Option<bool>,
    },
    /// The contents or metadata at `path` changed.
    Changed { path: PathBuf },
    /// A rename whose both ends are in the watched tree.
    Moved { from: PathBuf, to: PathBuf },
    /// A rename of which only one end is known: appeared if `path` exists now, gone otherwise.
    Renamed { path: PathBuf },
    /// The watcher lost events; everything must be looked at again.
    Rescan,
}

impl RawChange {
    /// The project paths this change touches.
    pub(crate) fn paths(&self) -> Vec<&Path> {
        match self {
            Self::Appeared { path }
            | Self::Gone { path, .. }
            | Self::Changed { path }
            | Self::Renamed { path } => vec![path],
            Self::Moved { from, to } => vec![from, to],
            Self::Rescan => Vec::new(),
        }
    }
}

/// Reduces `event` (with absolute paths) to a change of the project at the canonical `root`, or
/// `None` for events that change nothing in the tree (reads, opens, closes) or lie outside it.
pub(crate) fn classify(event: &Event, root: &Path) -> Option<RawChange> {
    if event.need_rescan() {
        return Some(RawChange::Rescan);
    }
    let first = event.paths.first().and_then(|path| relative(path, root));
    match event.kind {
        EventKind::Create(_) => Some(RawChange::Appeared { path: first? }),
        EventKind::Remove(kind) => Some(RawChange::Gone {
            path: first?,
            dir_hint: match kind {
                RemoveKind::Folder => Some(true),
                RemoveKind::File => Some(false),
                RemoveKind::Any | RemoveKind::Other => None,
            },
        }),
        EventKind::Modify(ModifyKind::Name(mode)) => match mode {
            RenameMode::Both => {
                let to = event.paths.get(1).and_then(|path| relative(path, root));
                match (first, to) {
                    (Some(from), Some(to)) => Some(RawChange::Moved { from, to }),
                    (Some(from), None) => Some(RawChange::Gone {
                        path: from,
                        dir_hint: None,
                    }),
                    (None, Some(to)) => Some(RawChange::Appeared { path: to }),
                    (None, None) => None,
                }
            }
            RenameMode::From => Some(RawChange::Gone {
                path: first?,
                dir_hint: None,
            }),
            RenameMode::To => Some(RawChange::Appeared { path: first? }),
            RenameMode::Any | RenameMode::Other => Some(RawChange::Renamed { path: first? }),
        },
        EventKind::Modify(_) => Some(RawChange::Changed { path: first? }),
        EventKind::Access(_) | EventKind::Any | EventKind::Other => None,
    }
}

/// `path` relative to `root`, or `None` when it lies outside.
fn relative(path: &Path, root: &Path) -> Option<PathBuf> {
    path.strip_prefix(root).ok().map(Path::to_path_buf)
}

#[cfg(test)]
mod tests {
    use super::*;
    use notify_debouncer_full::notify::event::{AccessKind, CreateKind, DataChange, Flag};

    const ROOT: &str = "/project";

    fn event(kind: EventKind, paths: &[&str]) -> Event {
        paths.iter().fold(Event::new(kind), |event, path| {
            event.add_path(PathBuf::from(path))
        })
    }

    fn classify_at_root(event: &Event) -> Option<RawChange> {
        classify(event, Path::new(ROOT))
    }

    #[test]
    fn creations_and_removals_are_told_apart_and_removals_keep_their_kind() {
        assert_eq!(
            classify_at_root(&event(
                EventKind::Create(CreateKind::Folder),
                &["/project/src"]
            )),
            Some(RawChange::Appeared { path: "src".into() })
        );
        assert_eq!(
            classify_at_root(&event(EventKind::Create(CreateKind::Any), &["/project/a"])),
            Some(RawChange::Appeared { path: "a".into() })
        );
        assert_eq!(
            classify_at_root(&event(
                EventKind::Remove(RemoveKind::File),
                &["/project/src/a.rs"]
            )),
            Some(RawChange::Gone {
                path: "src/a.rs".into(),
                dir_hint: Some(false)
            })
        );
    }

    #[test]
    fn renames_become_moves_or_one_sided_changes() {
        let both = EventKind::Modify(ModifyKind::Name(RenameMode::Both));
        assert_eq!(
            classify_at_root(&event(both, &["/project/a", "/project/b/a"])),
            Some(RawChange::Moved {
                from: "a".into(),
                to: "b/a".into()
            })
        );
        // Moved out of the project: only the old path is ours.
        assert_eq!(
            classify_at_root(&event(both, &["/project/a", "/elsewhere/a"])),
            Some(RawChange::Gone {
                path: "a".into(),
                dir_hint: None
            })
        );
        assert_eq!(
            classify_at_root(&event(both, &["/elsewhere/a", "/project/a"])),
            Some(RawChange::Appeared { path: "a".into() })
        );
        let from = EventKind::Modify(ModifyKind::Name(RenameMode::From));
        assert!(matches!(
            classify_at_root(&event(from, &["/project/a"])),
            Some(RawChange::Gone { .. })
        ));
        let to = EventKind::Modify(ModifyKind::Name(RenameMode::To));
        assert!(matches!(
            classify_at_root(&event(to, &["/project/a"])),
            Some(RawChange::Appeared { .. })
        ));
        let any = EventKind::Modify(ModifyKind::Name(RenameMode::Any));
        assert_eq!(
            classify_at_root(&event(any, &["/project/a"])),
            Some(RawChange::Renamed { path: "a".into() })
        );
    }

    #[test]
    fn reads_and_outside_paths_change_nothing() {
        let read = EventKind::Access(AccessKind::Any);
        assert_eq!(classify_at_root(&event(read, &["/project/a"])), None);
        let write = EventKind::Modify(ModifyKind::Data(DataChange::Any));
        assert_eq!(classify_at_root(&event(write, &["/projectile/a"])), None);
        assert_eq!(
            classify_at_root(&event(write, &["/project/a"])),
            Some(RawChange::Changed { path: "a".into() })
        );
    }

    #[test]
    fn lost_events_ask_for_a_rescan() {
        let overflow = Event::new(EventKind::Other).set_flag(Flag::Rescan);
        assert_eq!(classify_at_root(&overflow), Some(RawChange::Rescan));
        assert!(RawChange::Rescan.paths().is_empty());
        let moved = RawChange::Moved {
            from: "a".into(),
            to: "b".into(),
        };
        assert_eq!(moved.paths(), [Path::new("a"), Path::new("b")]);
    }
}
