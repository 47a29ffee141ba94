//! What each session of a project is doing — queued, running, waiting for the user, idle — for
//! the sessions list and the tabs, and the [`SessionActivity`] event sent on every change.
//!
//! The state is derived from two things: the session's turn (queued behind the app's limit, or
//! running; set by the chat as turns start and end) and the dialogs its turn has pending
//! (counted by [`ActivityApprover`] and [`ActivityPrompter`], which wrap the project's approver
//! and prompter). A running turn with a pending approval or question is `waiting`. Only
//! sessions that are not idle are kept, so the map stays as small as the number of live turns.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use async_trait::async_trait;
use gantry_tools::{
    ApprovalDecision, ApprovalRequest, Approver, PromptError, UserPrompter, UserQuestion,
};
use serde::{Deserialize, Serialize};

use super::lock;
use crate::events::{Event, EventSink, emit};

/// What a session is doing.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum ActivityState {
    /// No turn runs in it.
    #[default]
    Idle,
    /// A turn was sent and waits for one of the app's turn slots (see `GANTRY_MAX_TURNS`).
    Queued,
    /// A turn runs in it.
    Running,
    /// Its turn waits for the user: an approval or a question of this session is pending.
    Waiting,
}

/// A session's activity changed (event `session:activity`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionActivity {
    /// The project (events of a project since closed are ignored).
    pub project_id: u32,
    /// The session.
    pub session_id: String,
    /// What it does now.
    pub state: ActivityState,
}

impl Event for SessionActivity {
    const NAME: &'static str = "session:activity";
}

/// Where a session's turn is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TurnPhase {
    /// Waiting for a slot under the app's limit.
    Queued,
    /// Running (or compacting).
    Running,
}

#[derive(Debug, Default, Clone, Copy)]
struct Entry {
    turn: Option<TurnPhase>,
    waiting: u32,
}

impl Entry {
    fn state(self) -> ActivityState {
        match (self.turn, self.waiting) {
            (Some(TurnPhase::Queued), _) => ActivityState::Queued,
            (_, 1..) => ActivityState::Waiting,
            (Some(TurnPhase::Running), 0) => ActivityState::Running,
            (None, 0) => ActivityState::Idle,
        }
    }
}

/// The activity of a project's sessions.
pub struct SessionActivities {
    project_id: u32,
    sink: Arc<dyn EventSink>,
    sessions: Mutex<HashMap<String, Entry>>,
}

impl std::fmt::Debug for SessionActivities {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SessionActivities")
            .field("project_id", &self.project_id)
            .field("sessions", &*lock(&self.sessions))
            .finish_non_exhaustive()
    }
}

impl SessionActivities {
    /// The activities of app project `project_id`, announced through `sink`.
    pub fn new(project_id: u32, sink: Arc<dyn EventSink>) -> Self {
        Self {
            project_id,
            sink,
            sessions: Mutex::default(),
        }
    }

    /// What session `id` is doing.
    pub fn state(&self, id: &str) -> ActivityState {
        lock(&self.sessions)
            .get(id)
            .copied()
            .unwrap_or_default()
            .state()
    }

    /// The sessions that are not idle, by id.
    pub fn active(&self) -> Vec<SessionActivity> {
        let mut active: Vec<SessionActivity> = lock(&self.sessions)
            .iter()
            .map(|(id, entry)| self.event(id, entry.state()))
            .filter(|activity| activity.state != ActivityState::Idle)
            .collect();
        active.sort_by(|a, b| a.session_id.cmp(&b.session_id));
        active
    }

    /// Session `id`'s turn is now `phase` (`None`: it ended).
    pub(crate) fn set_turn(&self, id: &str, phase: Option<TurnPhase>) {
        self.change(id, |entry| entry.turn = phase);
    }

    /// Counts a pending dialog of session `id` until the guard is dropped.
    pub fn waiting(self: &Arc<Self>, id: &str) -> WaitingGuard {
        self.change(id, |entry| entry.waiting += 1);
        WaitingGuard {
            activities: Arc::clone(self),
            id: id.to_owned(),
        }
    }

    fn event(&self, id: &str, state: ActivityState) -> SessionActivity {
        SessionActivity {
            project_id: self.project_id,
            session_id: id.to_owned(),
            state,
        }
    }

    /// Applies `change` to session `id` and announces the new state if it differs. The event is
    /// sent under the lock, so the events of one session arrive in the order of the changes.
    fn change(&self, id: &str, change: impl FnOnce(&mut Entry)) {
        let mut sessions = lock(&self.sessions);
        let entry = sessions.entry(id.to_owned()).or_default();
        let before = entry.state();
        change(entry);
        let after = entry.state();
        if entry.turn.is_none() && entry.waiting == 0 {
            sessions.remove(id);
        }
        if before != after {
            emit(self.sink.as_ref(), self.event(id, after));
        }
    }
}

/// A pending dialog of one session; dropping it (answered, timed out, withdrawn) uncounts it.
#[derive(Debug)]
pub struct WaitingGuard {
    activities: Arc<SessionActivities>,
    id: String,
}

impl Drop for WaitingGuard {
    fn drop(&mut self) {
        self.activities.change(&self.id, |entry| {
            entry.waiting = entry.waiting.saturating_sub(1)
        });
    }
}

/// An [`Approver`] that marks the asking session `waiting` while the question is open.
pub struct ActivityApprover {
    /// Who answers.
    pub inner: Arc<dyn Approver>,
    /// Where the session's state is kept.
    pub activities: Arc<SessionActivities>,
}

#[async_trait]
impl Approver for ActivityApprover {
    async fn decide(&self, request: ApprovalRequest) -> ApprovalDecision {
        let _waiting = request
            .session_id
            .as_deref()
            .map(|id| self.activities.waiting(id));
        self.inner.decide(request).await
    }
}

/// A [`UserPrompter`] that marks the asking session `waiting` while the question is open.
pub struct ActivityPrompter {
    /// Who answers.
    pub inner: Arc<dyn UserPrompter>,
    /// Where the session's state is kept.
    pub activities: Arc<SessionActivities>,
}

#[async_trait]
impl UserPrompter for ActivityPrompter {
    async fn ask(&self, question: UserQuestion) -> Result<String, PromptError> {
        let _waiting = question
            .session_id
            .as_deref()
            .map(|id| self.activities.waiting(id));
        self.inner.ask(question).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::events::RecordingSink;

    #[test]
    fn the_state_follows_the_turn_and_its_dialogs_and_each_change_is_announced_once() {
        let sink = Arc::new(RecordingSink::default());
        let activities = Arc::new(SessionActivities::new(3, sink.clone()));
        activities.set_turn("a", Some(TurnPhase::Queued));
        activities.set_turn("a", Some(TurnPhase::Running));
        let first = activities.waiting("a");
        let second = activities.waiting("a");
        assert_eq!(activities.state("a"), ActivityState::Waiting);
        assert_eq!(activities.state("b"), ActivityState::Idle);
        assert_eq!(activities.active().len(), 1);
        drop(first);
        assert_eq!(activities.state("a"), ActivityState::Waiting, "one left");
        drop(second);
        activities.set_turn("a", None);
        let states: Vec<String> = sink
            .named(SessionActivity::NAME)
            .iter()
            .map(|event| {
                assert_eq!(event["projectId"], 3);
                assert_eq!(event["sessionId"], "a");
                event["state"].as_str().unwrap().to_owned()
            })
            .collect();
        assert_eq!(states, ["queued", "running", "waiting", "running", "idle"]);
        assert!(activities.active().is_empty(), "idle sessions are not kept");
    }
}
