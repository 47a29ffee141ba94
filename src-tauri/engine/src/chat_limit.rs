//! The app's limit on turns running at once, shared by every open project.
//!
//! A turn takes a permit when it starts and gives it back when it ends. A turn sent while every
//! permit is taken is accepted (the message's session id comes back at once), reported
//! `queued`, and starts when a permit frees, in the order the turns were sent. Compaction and
//! restores do not take a permit: they are short, and the user waits for them.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How many turns run at once unless configured otherwise (`GANTRY_MAX_TURNS`).
pub const DEFAULT_MAX_TURNS: usize = 4;

/// The limit on concurrent turns; clones share the same permits.
#[derive(Debug, Clone)]
pub struct TurnLimit {
    permits: Arc<Semaphore>,
    max: usize,
}

impl Default for TurnLimit {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_TURNS)
    }
}

impl TurnLimit {
    /// At most `max` turns at once (at least one).
    pub fn new(max: usize) -> Self {
        let max = max.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            permits: Arc::new(Semaphore::new(max)),
            max,
        }
    }

    /// The most turns that run at once.
    pub fn max(&self) -> usize {
        self.max
    }

    /// How many turns hold a permit now.
    pub fn running(&self) -> usize {
        self.max.saturating_sub(self.permits.available_permits())
    }

    /// A permit if one is free now (the turn starts at once), else `None` (it queues).
    pub(crate) fn try_start(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.permits).try_acquire_owned().ok()
    }

    /// Waits for a permit, first come first served.
    pub(crate) async fn wait(&self) -> Option<OwnedSemaphorePermit> {
        Arc::clone(&self.permits).acquire_owned().await.ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn permits_are_counted_and_given_back() {
        let limit = TurnLimit::new(2);
        let shared = limit.clone();
        let first = limit.try_start().unwrap();
        let second = shared.try_start().unwrap();
        assert_eq!(limit.running(), 2);
        assert!(limit.try_start().is_none(), "a third waits");
        drop(first);
        assert_eq!(shared.running(), 1);
        let third = limit.wait().await;
        assert!(third.is_some());
        drop((second, third));
        assert_eq!(limit.running(), 0);
        assert_eq!(TurnLimit::new(0).max(), 1, "a limit of 0 would run nothing");
    }
}
