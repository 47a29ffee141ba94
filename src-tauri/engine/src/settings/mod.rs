//! The app's settings: the tunables read once at start ([`Settings`], from the environment),
//! and the settings kept in the store's settings table, each through one typed helper.
//!
//! The settings table holds text under a name. Every setting kept there is declared once below
//! as a [`Setting`] (its name, type, default and bounds), and read and written only through it,
//! so each one is read the same forgiving way (a missing, unreadable or out-of-bounds value is
//! the default, or clamped where the setting says so, never an error that stops the app) and
//! saved the same strict way (a value out of bounds is refused with the setting's message).

pub mod service;
pub mod turn_limit;
pub mod ui;

use std::fmt::Display;
use std::ops::RangeInclusive;
use std::str::FromStr;
use std::time::Duration;

use gantry_store::Store;

use crate::chat::turn_limit::{DEFAULT_MAX_TURNS, MAX_MAX_TURNS, MIN_MAX_TURNS};
use crate::checkpoints::limits::{DEFAULT_MAX_AGE_DAYS, DEFAULT_MAX_MB};
use crate::dialogs::DEFAULT_DIALOG_TIMEOUT;
use crate::error::CommandError;

/// How many turns run at once in the whole app, 1 to 16 (a stored number past them is taken
/// as the bound).
pub const TURN_LIMIT: Setting<usize> = Setting {
    key: "turns.max",
    default: DEFAULT_MAX_TURNS,
    allowed: &[MIN_MAX_TURNS..=MAX_MAX_TURNS],
    refusal: "turns running at once: 1 to 16",
    clamp_stored: true,
};

/// The percent of the context window at which a turn compacts its session first: 0 (never by
/// itself) or 10 to 100 (lower would summarise nearly every turn).
pub const COMPACT_AT_PERCENT: Setting<u8> = Setting {
    key: "chat.compact_at_percent",
    default: gantry_agent::DEFAULT_COMPACT_AT_PERCENT,
    allowed: &[0..=0, 10..=100],
    refusal: "the compaction threshold is 0 (off) or 10 to 100 percent",
    clamp_stored: false,
};

/// The most the checkpoints of one project may take, in MiB (1 MiB to 1 TiB).
pub const CHECKPOINT_MAX_MB: Setting<u32> = Setting {
    key: "checkpoints.max_mb",
    default: DEFAULT_MAX_MB,
    allowed: &[1..=1024 * 1024],
    refusal: "the size limit must be 1 MiB to 1 TiB",
    clamp_stored: false,
};

/// How long checkpoints are kept, in days (0: no age limit; at most 100 years).
pub const CHECKPOINT_MAX_AGE_DAYS: Setting<u32> = Setting {
    key: "checkpoints.max_age_days",
    default: DEFAULT_MAX_AGE_DAYS,
    allowed: &[0..=36_500],
    refusal: "the age limit must be at most 36500 days",
    clamp_stored: false,
};

/// Whether desktop notifications are shown: on unless stored `false`.
pub const NOTIFICATIONS: Setting<bool> = Setting {
    key: "notifications.enabled",
    default: true,
    allowed: &[],
    refusal: "",
    clamp_stored: false,
};

/// A setting kept as text in the store's settings table: its name there, its type `T` (written
/// as `T`'s `Display`, read back with its `FromStr`), its default and the values it may hold.
#[derive(Debug, Clone, Copy)]
pub struct Setting<T: 'static> {
    /// Its name in the settings table.
    pub key: &'static str,
    /// What it is while nothing (usable) is stored.
    pub default: T,
    /// The values it may hold: those in any of these ranges; empty, any value of `T`.
    pub allowed: &'static [RangeInclusive<T>],
    /// What saving a value outside `allowed` is refused with (the user reads it).
    pub refusal: &'static str,
    /// Whether a stored value below or above every range is read as the bound it passed (else
    /// it is ignored, as if unset).
    pub clamp_stored: bool,
}

impl<T> Setting<T>
where
    T: Copy + PartialOrd + FromStr + Display,
{
    /// The value in force: the stored one, else the default (see [`Setting::stored`]).
    pub async fn load(&self, store: &Store) -> T {
        self.stored(store).await.unwrap_or(self.default)
    }

    /// The stored value, if one was saved and reads as a `T` within the bounds (or clamped into
    /// them, for a setting that clamps); a store that cannot be read, or a value that does not
    /// read or is out of bounds, is `None`, with a warning.
    pub async fn stored(&self, store: &Store) -> Option<T> {
        let key = self.key;
        let text = match store.settings().get(key).await {
            Ok(text) => text?,
            Err(error) => {
                tracing::warn!(%error, key, "cannot read the setting; using its default");
                return None;
            }
        };
        let Ok(value) = text.trim().parse::<T>() else {
            tracing::warn!(
                key,
                value = text,
                "ignoring a stored setting that does not read"
            );
            return None;
        };
        if self.allows(value) {
            return Some(value);
        }
        if self.clamp_stored
            && let Some(bound) = self.nearest_bound(value)
        {
            return Some(bound);
        }
        tracing::warn!(key, %value, "ignoring a stored setting out of its bounds");
        None
    }

    /// `value` if the setting may hold it, else the refusal the user reads.
    pub fn check(&self, value: T) -> Result<T, CommandError> {
        if self.allows(value) {
            Ok(value)
        } else {
            Err(CommandError::invalid(self.refusal))
        }
    }

    /// Saves `value` (after [`Setting::check`]) and returns it.
    pub async fn save(&self, store: &Store, value: T) -> Result<T, CommandError> {
        let value = self.check(value)?;
        store.settings().set(self.key, &value.to_string()).await?;
        Ok(value)
    }

    fn allows(&self, value: T) -> bool {
        self.allowed.is_empty() || self.allowed.iter().any(|range| range.contains(&value))
    }

    /// The lowest of the bounds for a `value` below them all, the highest for one above them
    /// all; `None` for one between two ranges (or with no bounds).
    fn nearest_bound(&self, value: T) -> Option<T> {
        let starts = self.allowed.iter().map(|range| *range.start());
        let lowest = starts.reduce(|low, start| if start < low { start } else { low })?;
        let ends = self.allowed.iter().map(|range| *range.end());
        let highest = ends.reduce(|high, end| if end > high { end } else { high })?;
        if value < lowest {
            Some(lowest)
        } else if value > highest {
            Some(highest)
        } else {
            None
        }
    }
}

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
            self.max_turns = TURN_LIMIT.stored(store).await;
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
    use crate::error::ErrorKind;

    /// A setting with a gap in its bounds, clamped when stored past them.
    const SPACED: Setting<u32> = Setting {
        key: "test.spaced",
        default: 7,
        allowed: &[0..=0, 5..=9],
        refusal: "0, or 5 to 9",
        clamp_stored: true,
    };

    /// A switch: any value of its type, on unless stored off.
    const SWITCH: Setting<bool> = Setting {
        key: "test.switch",
        default: true,
        allowed: &[],
        refusal: "",
        clamp_stored: false,
    };

    async fn store() -> (Store, tempfile::TempDir) {
        let data = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        (store, data)
    }

    async fn stored_as(store: &Store, key: &str, text: &str) {
        store.settings().set(key, text).await.unwrap();
    }

    #[tokio::test]
    async fn a_missing_value_is_the_default() {
        let (store, _data) = store().await;
        assert_eq!(SPACED.stored(&store).await, None);
        assert_eq!(SPACED.load(&store).await, 7);
        assert!(SWITCH.load(&store).await);
        assert_eq!(TURN_LIMIT.stored(&store).await, None);
        assert_eq!(COMPACT_AT_PERCENT.load(&store).await, 80);
        assert_eq!(CHECKPOINT_MAX_MB.load(&store).await, DEFAULT_MAX_MB);
        assert_eq!(
            CHECKPOINT_MAX_AGE_DAYS.load(&store).await,
            DEFAULT_MAX_AGE_DAYS
        );
    }

    #[tokio::test]
    async fn a_stored_value_that_does_not_read_is_the_default() {
        let (store, _data) = store().await;
        for text in ["seven", "", "-1", "6.5", "5 6"] {
            stored_as(&store, SPACED.key, text).await;
            assert_eq!(SPACED.stored(&store).await, None, "{text:?}");
            assert_eq!(SPACED.load(&store).await, 7, "{text:?}");
        }
        stored_as(&store, SPACED.key, " 8\n").await;
        assert_eq!(
            SPACED.load(&store).await,
            8,
            "white space around it is fine"
        );
        stored_as(&store, SWITCH.key, "false").await;
        assert!(!SWITCH.load(&store).await);
        stored_as(&store, SWITCH.key, "off").await;
        assert!(SWITCH.load(&store).await, "only `false` turns it off");
    }

    #[tokio::test]
    async fn a_stored_value_out_of_bounds_is_clamped_or_ignored() {
        let (store, _data) = store().await;
        for (text, read) in [("12", Some(9)), ("3", None), ("0", Some(0)), ("5", Some(5))] {
            stored_as(&store, SPACED.key, text).await;
            assert_eq!(SPACED.stored(&store).await, read, "{text:?}");
        }
        stored_as(&store, CHECKPOINT_MAX_MB.key, "0").await;
        assert_eq!(CHECKPOINT_MAX_MB.load(&store).await, DEFAULT_MAX_MB);
        stored_as(&store, COMPACT_AT_PERCENT.key, "5").await;
        assert_eq!(COMPACT_AT_PERCENT.load(&store).await, 80);
        stored_as(&store, COMPACT_AT_PERCENT.key, "300").await;
        assert_eq!(COMPACT_AT_PERCENT.load(&store).await, 80);
    }

    #[tokio::test]
    async fn saving_refuses_a_value_out_of_bounds_and_keeps_the_stored_one() {
        let (store, _data) = store().await;
        assert_eq!(SPACED.save(&store, 5).await.unwrap(), 5);
        for refused in [1, 4, 10, u32::MAX] {
            let error = SPACED.save(&store, refused).await.unwrap_err();
            assert_eq!(error.kind, ErrorKind::InvalidInput, "{refused}");
            assert_eq!(error.message, "0, or 5 to 9");
            assert_eq!(SPACED.stored(&store).await, Some(5), "{refused}");
        }
        for accepted in [0, 9] {
            assert_eq!(SPACED.save(&store, accepted).await.unwrap(), accepted);
            assert_eq!(SPACED.load(&store).await, accepted);
        }
        assert!(!SWITCH.save(&store, false).await.unwrap());
        assert!(!SWITCH.load(&store).await);
    }

    #[test]
    fn the_apps_settings_allow_their_defaults_and_refuse_as_the_dialog_says() {
        assert!(TURN_LIMIT.check(TURN_LIMIT.default).is_ok());
        assert!(COMPACT_AT_PERCENT.check(COMPACT_AT_PERCENT.default).is_ok());
        assert!(CHECKPOINT_MAX_MB.check(CHECKPOINT_MAX_MB.default).is_ok());
        assert!(
            CHECKPOINT_MAX_AGE_DAYS
                .check(CHECKPOINT_MAX_AGE_DAYS.default)
                .is_ok()
        );
        let refusal = |error: CommandError| (error.kind, error.message);
        assert_eq!(
            refusal(TURN_LIMIT.check(MAX_MAX_TURNS + 1).unwrap_err()),
            (
                ErrorKind::InvalidInput,
                format!("turns running at once: {MIN_MAX_TURNS} to {MAX_MAX_TURNS}")
            )
        );
        for percent in [1, 9, 101] {
            assert!(COMPACT_AT_PERCENT.check(percent).is_err(), "{percent}");
        }
        assert!(CHECKPOINT_MAX_MB.check(0).is_err());
        assert!(CHECKPOINT_MAX_MB.check(1024 * 1024 + 1).is_err());
        assert!(CHECKPOINT_MAX_AGE_DAYS.check(36_501).is_err());
        assert!(CHECKPOINT_MAX_AGE_DAYS.check(0).is_ok());
        let keys = [
            TURN_LIMIT.key,
            COMPACT_AT_PERCENT.key,
            CHECKPOINT_MAX_MB.key,
            CHECKPOINT_MAX_AGE_DAYS.key,
            NOTIFICATIONS.key,
        ];
        let distinct: std::collections::HashSet<_> = keys.iter().collect();
        assert_eq!(distinct.len(), keys.len(), "{keys:?}");
    }

    #[test]
    fn the_environments_turn_limit_is_kept_within_the_bounds_the_dialog_names() {
        assert_eq!(env_turn_limit(None), None);
        assert_eq!(env_turn_limit(Some(0)), None);
        assert_eq!(env_turn_limit(Some(3)), Some(3));
        assert_eq!(env_turn_limit(Some(32)), Some(MAX_MAX_TURNS));
    }
}
