//! The app's limit on turns running at once, shared by every open project.
//!
//! A turn takes a permit when it starts and gives it back when it ends. A turn sent while every
//! permit is taken is accepted (the message's session id comes back at once), reported
//! `queued`, and starts when a permit frees, in the order the turns were sent. Compaction and
//! restores do not take a permit: they are short, and the user waits for them.
//!
//! The limit changes while the app runs ([`TurnLimit::set_max`]). Raising it adds permits, so
//! queued turns start at once. Lowering it never stops a running turn: the permits that are
//! free are taken away now, and the rest are owed (a debt) and forgotten as their turns end
//! instead of going back to the pool, so no queued turn starts until the running ones are
//! under the new limit.

use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// How many turns run at once unless configured otherwise (`GANTRY_MAX_TURNS`, or the setting).
pub const DEFAULT_MAX_TURNS: usize = 4;

/// The fewest turns the limit lets run at once (a limit of 0 would run nothing).
pub const MIN_MAX_TURNS: usize = 1;

/// The most turns the limit lets run at once, whatever was asked for.
pub const MAX_MAX_TURNS: usize = 16;

/// The limit on concurrent turns; clones share the same permits (and a change of the limit).
#[derive(Debug, Clone)]
pub struct TurnLimit {
    shared: Arc<Shared>,
}

#[derive(Debug)]
struct Shared {
    permits: Arc<Semaphore>,
    /// The limit and the permits still owed; changed only with this lock held.
    count: Mutex<Count>,
}

#[derive(Debug, Clone, Copy)]
struct Count {
    max: usize,
    /// Permits held by running turns that are forgotten, not given back, when those turns end
    /// (the limit was lowered below the turns that were running).
    owed: usize,
}

impl Default for TurnLimit {
    fn default() -> Self {
        Self::new(DEFAULT_MAX_TURNS)
    }
}

/// A running turn's place under the limit; dropping it (the turn ended) frees the place, unless
/// the limit was lowered meanwhile and the place is owed.
#[derive(Debug)]
pub struct TurnPermit {
    permit: Option<OwnedSemaphorePermit>,
    shared: Arc<Shared>,
}

impl Drop for TurnPermit {
    fn drop(&mut self) {
        let Some(permit) = self.permit.take() else {
            return;
        };
        let mut count = self.shared.count();
        if count.owed > 0 {
            count.owed -= 1;
            permit.forget();
        } else {
            // Given back while the lock is held, so `running` never counts it twice.
            drop(permit);
        }
    }
}

impl TurnLimit {
    /// At most `max` turns at once, clamped to `1..=16`.
    pub fn new(max: usize) -> Self {
        let max = clamp(max);
        Self {
            shared: Arc::new(Shared {
                permits: Arc::new(Semaphore::new(max)),
                count: Mutex::new(Count { max, owed: 0 }),
            }),
        }
    }

    /// The most turns that run at once.
    pub fn max(&self) -> usize {
        self.shared.count().max
    }

    /// How many turns hold a permit now (more than [`TurnLimit::max`] for a while after the
    /// limit was lowered under the turns that were running).
    pub fn running(&self) -> usize {
        let count = self.shared.count();
        (count.max + count.owed).saturating_sub(self.shared.permits.available_permits())
    }

    /// Changes the limit to `max` (clamped to `1..=16`) at once, and returns it. Raised, queued
    /// turns start now; lowered, running turns go on, and no queued turn starts until fewer
    /// than `max` run.
    pub fn set_max(&self, max: usize) -> usize {
        let max = clamp(max);
        let mut count = self.shared.count();
        if max > count.max {
            let more = max - count.max;
            // What is owed is forgiven first; the rest are new places.
            let forgiven = more.min(count.owed);
            count.owed -= forgiven;
            self.shared.permits.add_permits(more - forgiven);
        } else {
            let fewer = count.max - max;
            let taken = self.shared.permits.forget_permits(fewer);
            count.owed += fewer - taken;
        }
        count.max = max;
        max
    }

    /// A permit if one is free now (the turn starts at once), else `None` (it queues).
    pub(crate) fn try_start(&self) -> Option<TurnPermit> {
        let permit = Arc::clone(&self.shared.permits).try_acquire_owned().ok()?;
        Some(self.wrap(permit))
    }

    /// Waits for a permit, first come first served.
    pub(crate) async fn wait(&self) -> Option<TurnPermit> {
        let permit = Arc::clone(&self.shared.permits)
            .acquire_owned()
            .await
            .ok()?;
        Some(self.wrap(permit))
    }

    fn wrap(&self, permit: OwnedSemaphorePermit) -> TurnPermit {
        TurnPermit {
            permit: Some(permit),
            shared: Arc::clone(&self.shared),
        }
    }
}

impl Shared {
    fn count(&self) -> MutexGuard<'_, Count> {
        self.count.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

fn clamp(max: usize) -> usize {
    max.clamp(MIN_MAX_TURNS, MAX_MAX_TURNS)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::test_support::stays_for;

    /// How long a turn queued behind a running one is watched for starting too soon.
    const QUEUED_WINDOW: Duration = Duration::from_millis(50);

    /// Whether `wait` gives a permit within a moment.
    async fn starts_soon(limit: &TurnLimit) -> Option<TurnPermit> {
        tokio::time::timeout(Duration::from_millis(50), limit.wait())
            .await
            .ok()
            .flatten()
    }

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
        assert_eq!(TurnLimit::new(100).max(), MAX_MAX_TURNS);
    }

    #[tokio::test]
    async fn raising_the_limit_starts_a_queued_turn_at_once() {
        let limit = TurnLimit::new(1);
        let _running = limit.try_start().unwrap();
        let queued = tokio::spawn({
            let limit = limit.clone();
            async move { limit.wait().await }
        });
        stays_for(QUEUED_WINDOW, "queued behind the running turn", || {
            !queued.is_finished()
        })
        .await;
        assert_eq!(limit.set_max(2), 2);
        let started = tokio::time::timeout(Duration::from_secs(5), queued)
            .await
            .unwrap()
            .unwrap();
        assert!(
            started.is_some(),
            "the queued turn started without the first one ending"
        );
        assert_eq!((limit.max(), limit.running()), (2, 2));
        assert!(limit.try_start().is_none(), "two run, no third");
    }

    #[tokio::test]
    async fn lowering_the_limit_lets_running_turns_finish_and_holds_the_queue() {
        let limit = TurnLimit::new(3);
        let mut running: Vec<TurnPermit> = (0..3).map(|_| limit.try_start().unwrap()).collect();
        assert_eq!(limit.set_max(1), 1);
        assert_eq!(limit.max(), 1);
        assert_eq!(limit.running(), 3, "the running turns go on");

        // Two turns end: their places are owed and go nowhere.
        running.pop();
        assert_eq!(limit.running(), 2);
        assert!(limit.try_start().is_none());
        running.pop();
        assert_eq!(limit.running(), 1);
        assert!(
            starts_soon(&limit).await.is_none(),
            "one still runs: at the limit"
        );

        // The last one ends: one place under a limit of one.
        running.pop();
        assert_eq!(limit.running(), 0);
        let next = limit.try_start().expect("one runs again");
        assert!(limit.try_start().is_none(), "and only one");
        drop(next);
        assert_eq!(limit.running(), 0);
    }

    #[tokio::test]
    async fn lowering_takes_free_places_now_and_raising_forgives_what_is_owed() {
        let limit = TurnLimit::new(4);
        let first = limit.try_start().unwrap();
        let second = limit.try_start().unwrap();
        // Two free places are taken at once, one more is owed by the running turns.
        limit.set_max(1);
        assert!(limit.try_start().is_none());
        assert_eq!(limit.running(), 2);
        // Raising by one forgives the debt: the two running turns are within a limit of two.
        limit.set_max(2);
        assert!(limit.try_start().is_none(), "two run under a limit of two");
        drop(first);
        let third = limit.try_start().expect("a place came back");
        assert_eq!(limit.running(), 2);
        drop((second, third));
        assert_eq!(limit.running(), 0);
        let all: Vec<TurnPermit> = std::iter::from_fn(|| limit.try_start()).collect();
        assert_eq!(all.len(), 2, "exactly the limit's places remain");
    }

    #[tokio::test]
    async fn a_lowered_limit_is_clamped_and_a_raised_one_too() {
        let limit = TurnLimit::new(2);
        assert_eq!(limit.set_max(0), MIN_MAX_TURNS);
        assert_eq!(limit.set_max(1000), MAX_MAX_TURNS);
        let all: Vec<TurnPermit> = std::iter::from_fn(|| limit.try_start()).collect();
        assert_eq!(all.len(), MAX_MAX_TURNS);
        assert_eq!(limit.running(), MAX_MAX_TURNS);
    }
}
