//! The app's settings: the tunables read once at start ([`Settings`], from the environment),
//! and the settings kept in the store's settings table, each through one typed helper.

pub mod service;
pub mod turn_limit;

use std::time::Duration;

use gantry_store::Store;

use crate::chat::turn_limit::{MAX_MAX_TURNS, MIN_MAX_TURNS};
use crate::dialogs::DEFAULT_DIALOG_TIMEOUT;

/// Tunables, read once at start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// How long an approval or a question waits for the user before it is denied.
    pub dialog_timeout: Duration,
    /// The watcher's debounce interval.
    pub watch_debounce: Duration,
    /// A cap on the watcher's per-folder watches, handled like the system's limit.
    pub watch_max_watches: Option<usize>,
    /// How often folders a limit left unwatched are listed again while shown.
    pub watch_poll_interval: Duration,
    /// How many turns run at once in the whole app (every project); more are queued. `None`:
    /// the stored setting ([`Settings::with_stored`]), else [`crate::chat::DEFAULT_MAX_TURNS`].
    pub max_turns: Option<usize>,
    /// The limit `GANTRY_MAX_TURNS` set, which wins over the stored one at each start (the
    /// Settings dialog says so).
    pub max_turns_from_env: Option<usize>,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            dialog_timeout: DEFAULT_DIALOG_TIMEOUT,
            watch_debounce: Duration::from_millis(50),
            watch_max_watches: None,
            watch_poll_interval: gantry_watch::DEFAULT_POLL_INTERVAL,
            max_turns: None,
            max_turns_from_env: None,
        }
    }
}

impl Settings {
    /// The defaults, overridden by `GANTRY_DIALOG_TIMEOUT_MS`, `GANTRY_WATCH_DEBOUNCE_MS` and
    /// `GANTRY_WATCH_POLL_MS` (positive whole milliseconds), `GANTRY_WATCH_MAX_WATCHES` (a
    /// whole number of folders) and `GANTRY_MAX_TURNS` (turns running at once, 1 to 16; it wins
    /// over the limit saved in the Settings dialog); anything else is ignored with a warning.
    pub fn from_env() -> Self {
        let mut settings = Self::default();
        if let Some(timeout) = millis_from_env("GANTRY_DIALOG_TIMEOUT_MS") {
            settings.dialog_timeout = timeout;
        }
        if let Some(debounce) = millis_from_env("GANTRY_WATCH_DEBOUNCE_MS") {
            settings.watch_debounce = debounce;
        }
        if let Some(poll) = millis_from_env("GANTRY_WATCH_POLL_MS") {
            settings.watch_poll_interval = poll;
        }
        if let Some(cap) = count_from_env("GANTRY_WATCH_MAX_WATCHES") {
            settings.watch_max_watches = Some(cap);
        }
        if let Some(turns) = env_turn_limit(count_from_env("GANTRY_MAX_TURNS")) {
            settings.max_turns = Some(turns);
            settings.max_turns_from_env = Some(turns);
        }
        settings
    }

    /// These settings, with what the environment left unset read from `store`'s settings table
    /// (the turn limit saved in the Settings dialog).
    pub async fn with_stored(mut self, store: &Store) -> Self {
        if self.max_turns.is_none() {
            self.max_turns = turn_limit::stored_max_turns(store).await;
        }
        self
    }

    /// The watcher's options.
    pub fn watch_options(&self) -> gantry_watch::WatchOptions {
        gantry_watch::WatchOptions {
            debounce: self.watch_debounce,
            max_watches: self.watch_max_watches,
            poll_interval: self.watch_poll_interval,
        }
    }
}

/// The turn limit `GANTRY_MAX_TURNS` sets, given the whole number it holds: 0 is ignored with a
/// warning, and a number past the bounds is taken as the bound, so the limit in force and the
/// one the Settings dialog names are the same.
fn env_turn_limit(count: Option<usize>) -> Option<usize> {
    match count? {
        0 => {
            tracing::warn!("ignoring GANTRY_MAX_TURNS=0: at least one turn must run");
            None
        }
        turns => Some(turns.clamp(MIN_MAX_TURNS, MAX_MAX_TURNS)),
    }
}

fn count_from_env(name: &str) -> Option<usize> {
    let value = std::env::var(name).ok()?;
    let count = value.trim().parse::<usize>().ok();
    if count.is_none() {
        tracing::warn!(name, value, "ignoring: not a whole number");
    }
    count
}

fn millis_from_env(name: &str) -> Option<Duration> {
    let value = std::env::var(name).ok()?;
    match value.trim().parse::<u64>() {
        Ok(millis) if millis > 0 => Some(Duration::from_millis(millis)),
        _ => {
            tracing::warn!(
                name,
                value,
                "ignoring: not a positive number of milliseconds"
            );
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_environments_turn_limit_is_kept_within_the_bounds_the_dialog_names() {
        assert_eq!(env_turn_limit(None), None);
        assert_eq!(env_turn_limit(Some(0)), None);
        assert_eq!(env_turn_limit(Some(3)), Some(3));
        assert_eq!(env_turn_limit(Some(32)), Some(MAX_MAX_TURNS));
    }
}
