//! One open session's runtime — its grants and file ledger, its engine session, its turn — and
//! the project's set of them.
//!
//! **Keeping memory bounded.** A runtime is kept while it is in use: it is the session the
//! front end shows, or its turn is queued or running (or a restore or compaction holds it), or
//! someone holds it for a moment. Up to [`MAX_IDLE_RUNTIMES`] other runtimes are kept too, so
//! that going back to a session (a tab) finds its grants and ledger; past that, the least
//! recently used idle one is dropped, its grants and its loaded transcript with it (the
//! transcript is in the store; the grants are asked for again).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use gantry_agent::{Message, Session};
use gantry_tools::ToolSession;
use tokio_util::sync::CancellationToken;

use super::activity::{SessionActivities, TurnPhase};
use super::lock;
use crate::error::{CommandError, ErrorKind};

/// How many idle runtimes that are not shown are kept (see the module's doc).
pub const MAX_IDLE_RUNTIMES: usize = 8;

/// What holds a session's turn slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Hold {
    /// A turn (or a compaction), queued or running.
    Turn(TurnPhase),
    /// A restore of files (a revert, a rewind, a version brought back).
    Restore,
}

#[derive(Debug)]
struct Held {
    hold: Hold,
    cancel: CancellationToken,
}

/// One session's runtime.
pub(crate) struct Runtime {
    id: String,
    tools: Arc<ToolSession>,
    /// The engine's session, once a message was sent in it (held by a running turn).
    pub(crate) engine: Arc<tokio::sync::Mutex<Option<Session>>>,
    held: Mutex<Option<Held>>,
    /// The user message of a turn queued behind the app's limit (not stored until it starts).
    queued: Mutex<Option<Message>>,
}

impl Runtime {
    /// The runtime of session `tools` (its id must be set), with `engine` loaded or not.
    pub(crate) fn new(id: String, tools: Arc<ToolSession>, engine: Option<Session>) -> Self {
        Self {
            id,
            tools,
            engine: Arc::new(tokio::sync::Mutex::new(engine)),
            held: Mutex::new(None),
            queued: Mutex::new(None),
        }
    }

    /// The session's id.
    pub(crate) fn id(&self) -> &str {
        &self.id
    }

    /// Its grants and file ledger.
    pub(crate) fn tools(&self) -> &Arc<ToolSession> {
        &self.tools
    }

    /// Takes the session's turn slot for `hold`, or says it is busy.
    pub(crate) fn claim(
        &self,
        activities: &SessionActivities,
        hold: Hold,
        cancel: CancellationToken,
    ) -> Result<(), CommandError> {
        {
            let mut held = lock(&self.held);
            if held.is_some() {
                return Err(CommandError::new(
                    ErrorKind::Busy,
                    "a turn is running in this session: wait for it or stop it",
                ));
            }
            *held = Some(Held { hold, cancel });
        }
        if let Hold::Turn(phase) = hold {
            activities.set_turn(&self.id, Some(phase));
        }
        Ok(())
    }

    /// Keeps the user message of the turn now queued, to show until the turn starts.
    pub(crate) fn queue_message(&self, message: Message) {
        *lock(&self.queued) = Some(message);
    }

    /// The user message of the turn queued in this session, while it waits.
    pub(crate) fn queued_message(&self) -> Option<Message> {
        lock(&self.queued).clone()
    }

    /// The queued turn stopped waiting (it starts, or ends unstarted): its message is the
    /// turn's own from now on.
    pub(crate) fn unqueue(&self) {
        lock(&self.queued).take();
    }

    /// A queued turn got its slot under the app's limit.
    pub(crate) fn started(&self, activities: &SessionActivities) {
        let changed = match lock(&self.held).as_mut() {
            Some(held) if held.hold == Hold::Turn(TurnPhase::Queued) => {
                held.hold = Hold::Turn(TurnPhase::Running);
                true
            }
            _ => false,
        };
        if changed {
            activities.set_turn(&self.id, Some(TurnPhase::Running));
        }
    }

    /// Frees the turn slot.
    pub(crate) fn release(&self, activities: &SessionActivities) {
        self.unqueue();
        let released = lock(&self.held).take();
        if matches!(
            released,
            Some(Held {
                hold: Hold::Turn(_),
                ..
            })
        ) {
            self.tools.end_turn_rules();
            activities.set_turn(&self.id, None);
        }
    }

    /// What holds the slot now.
    pub(crate) fn hold(&self) -> Option<Hold> {
        lock(&self.held).as_ref().map(|held| held.hold)
    }

    /// Whether a turn (queued or running) holds the slot.
    pub(crate) fn has_turn(&self) -> bool {
        matches!(self.hold(), Some(Hold::Turn(_)))
    }

    /// Whether the slot is held by something that was told to stop.
    pub(crate) fn stopping(&self) -> bool {
        lock(&self.held)
            .as_ref()
            .is_some_and(|held| held.cancel.is_cancelled())
    }

    /// Tells the turn holding the slot, if any, to stop.
    pub(crate) fn cancel(&self) {
        if let Some(held) = lock(&self.held).as_ref() {
            held.cancel.cancel();
        }
    }

    /// Waits (two seconds at most) for a turn that was told to stop, so a message sent right
    /// after Stop is not refused as busy.
    pub(crate) async fn wait_for_stop(&self) {
        for _ in 0..100 {
            if !self.stopping() {
                return;
            }
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
}

struct Kept {
    runtime: Arc<Runtime>,
    used: u64,
}

/// A project's runtimes, by session id.
#[derive(Default)]
pub(crate) struct Runtimes {
    kept: HashMap<String, Kept>,
    clock: u64,
}

impl Runtimes {
    /// The runtime of session `id`, made (with no grants) if none is kept.
    pub(crate) fn get_or_make(&mut self, id: &str) -> Arc<Runtime> {
        if let Some(runtime) = self.get(id) {
            return runtime;
        }
        let runtime = Arc::new(Runtime::new(
            id.to_owned(),
            Arc::new(ToolSession::new(id)),
            None,
        ));
        self.insert(Arc::clone(&runtime));
        runtime
    }

    /// The runtime of session `id`, if kept.
    pub(crate) fn get(&mut self, id: &str) -> Option<Arc<Runtime>> {
        self.clock += 1;
        let clock = self.clock;
        self.kept.get_mut(id).map(|kept| {
            kept.used = clock;
            Arc::clone(&kept.runtime)
        })
    }

    /// Keeps `runtime`.
    pub(crate) fn insert(&mut self, runtime: Arc<Runtime>) {
        self.clock += 1;
        let used = self.clock;
        self.kept
            .insert(runtime.id().to_owned(), Kept { runtime, used });
    }

    /// Forgets session `id`'s runtime (the session was deleted).
    pub(crate) fn remove(&mut self, id: &str) -> Option<Arc<Runtime>> {
        self.kept.remove(id).map(|kept| kept.runtime)
    }

    /// Every kept runtime.
    pub(crate) fn all(&self) -> Vec<Arc<Runtime>> {
        self.kept
            .values()
            .map(|kept| Arc::clone(&kept.runtime))
            .collect()
    }

    /// Drops the least recently used idle runtimes past [`MAX_IDLE_RUNTIMES`], never the one of
    /// session `shown`, one with its slot held, or one someone holds.
    pub(crate) fn trim(&mut self, shown: Option<&str>) {
        let mut idle: Vec<(u64, String)> = self
            .kept
            .iter()
            .filter(|(id, kept)| {
                Some(id.as_str()) != shown
                    && kept.runtime.hold().is_none()
                    && Arc::strong_count(&kept.runtime) == 1
            })
            .map(|(id, kept)| (kept.used, id.clone()))
            .collect();
        if idle.len() <= MAX_IDLE_RUNTIMES {
            return;
        }
        idle.sort();
        let excess = idle.len() - MAX_IDLE_RUNTIMES;
        for (_, id) in idle.into_iter().take(excess) {
            self.kept.remove(&id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::RecordingSink;

    #[test]
    fn idle_runtimes_past_the_bound_are_dropped_least_recently_used_first() {
        let activities = SessionActivities::new(1, Arc::new(RecordingSink::default()));
        let mut runtimes = Runtimes::default();
        let busy = runtimes.get_or_make("busy");
        busy.claim(
            &activities,
            Hold::Turn(TurnPhase::Running),
            CancellationToken::new(),
        )
        .unwrap();
        drop(busy);
        let first = runtimes.get_or_make("0");
        first.tools().approve_tool("write_file");
        drop(first);
        for n in 1..=MAX_IDLE_RUNTIMES + 3 {
            runtimes.get_or_make(&n.to_string());
        }
        // "0" is used again: "1" and "2" are now the least recently used.
        assert!(runtimes.get("0").is_some());
        let held = runtimes.get("3");
        runtimes.trim(Some("4"));
        assert!(runtimes.get("busy").is_some(), "its turn runs");
        let kept = runtimes.get("0").unwrap();
        assert_eq!(kept.tools().granted().len(), 1, "same grants");
        assert!(runtimes.get("1").is_none() && runtimes.get("2").is_none());
        assert!(runtimes.get("3").is_some() && runtimes.get("4").is_some());
        drop(held);
        // A second claim of a held slot is refused as busy.
        let busy = runtimes.get("busy").unwrap();
        let refused = busy
            .claim(&activities, Hold::Restore, CancellationToken::new())
            .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::Busy);
    }
}
