//! The watcher's options, and what it reports when it cannot watch every shown directory.
//!
//! inotify costs one kernel watch per directory, and the user's watches are capped by
//! `fs.inotify.max_user_watches` (8,192 on many systems, shared by every program the user runs).
//! When a watch is refused with `ENOSPC` (notify's [`ErrorKind::MaxFilesWatch`]) the directories
//! left over are not silently dropped: they are polled while the tree shows them, and a
//! [`WatchLimit`] tells the front end what happened. [`WatchOptions::max_watches`] is a cap of
//! our own that behaves exactly like the system's limit, so the fallback can be tested (and a
//! user can keep Gantry's share of the limit small).

use std::time::Duration;

use notify_debouncer_full::notify::{self, ErrorKind};
use serde::{Deserialize, Serialize};

/// How often the directories that could not be watched are listed again, by default.
pub const DEFAULT_POLL_INTERVAL: Duration = Duration::from_secs(2);

/// How a [`crate::TreeWatcher`] runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WatchOptions {
    /// Changes are reported this long after they happen; bursts to one path within it merge.
    pub debounce: Duration,
    /// At most this many per-directory watches; reaching it is handled as the system's limit
    /// is. `None`: only the system's limit applies.
    pub max_watches: Option<usize>,
    /// How often the shown directories that could not be watched are listed again.
    pub poll_interval: Duration,
}

impl WatchOptions {
    /// Options with `debounce`, no cap of our own and the default poll interval.
    pub fn new(debounce: Duration) -> Self {
        Self {
            debounce,
            max_watches: None,
            poll_interval: DEFAULT_POLL_INTERVAL,
        }
    }
}

/// The watcher reached a limit on watched directories; those left over are polled while shown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
pub struct WatchLimit {
    /// Directories watched by the operating system.
    pub watched: usize,
    /// Shown directories that could not be watched (polled while the tree shows them).
    pub unwatched: usize,
    /// The cap of our own that was reached, or `None` when the system refused
    /// (`fs.inotify.max_user_watches`).
    pub cap: Option<usize>,
}

/// Whether a refused watch means a limit on watches was reached (rather than, say, a directory
/// that vanished meanwhile).
pub(crate) fn is_limit(error: &notify::Error) -> bool {
    match &error.kind {
        ErrorKind::MaxFilesWatch => true,
        // notify maps ENOSPC itself; an io error carrying it means the same.
        ErrorKind::Io(io) => io.raw_os_error() == Some(ENOSPC),
        _ => false,
    }
}

/// `ENOSPC` on Linux ("no space left on device"), what `inotify_add_watch` answers at the limit.
const ENOSPC: i32 = 28;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_systems_refusal_is_a_limit_and_other_errors_are_not() {
        assert!(is_limit(&notify::Error::new(ErrorKind::MaxFilesWatch)));
        assert!(is_limit(&notify::Error::io(
            std::io::Error::from_raw_os_error(ENOSPC)
        )));
        assert!(!is_limit(&notify::Error::io(std::io::Error::from(
            std::io::ErrorKind::NotFound
        ))));
        assert!(!is_limit(&notify::Error::path_not_found()));
        assert!(!is_limit(&notify::Error::generic("other")));
    }

    #[test]
    fn a_limit_crosses_to_the_webview_in_camel_case() {
        let limit = WatchLimit {
            watched: 3,
            unwatched: 7,
            cap: None,
        };
        assert_eq!(
            serde_json::to_value(&limit).unwrap(),
            serde_json::json!({"watched": 3, "unwatched": 7, "cap": null})
        );
    }
}
