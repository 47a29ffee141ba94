//! Events the backend sends to the webview, and the sink they go through.
//!
//! Each event is a Rust type with a fixed name ([`Event::NAME`]); the TypeScript side gets both
//! from the generated bindings (`EventPayloads` maps each name to its payload), so an event can't
//! be sent under one name and read under another. The [`EventSink`] trait keeps the senders
//! (the watcher forwarder, the dialog registry) free of Tauri: the app passes a sink that emits
//! to the main window; tests pass one that records.

use std::sync::Mutex;

use gantry_tools::{ApprovalRequest, UserQuestion};
use gantry_watch::{TreeChange, WatchLimit};
use serde::Serialize;

/// A backend-to-webview event.
pub trait Event: Serialize + ts_rs::TS + 'static {
    /// The event's name on the wire (Tauri allows letters, digits, `-`, `/`, `:` and `_`).
    const NAME: &'static str;
}

/// Changes to the open project's visible tree, as the watcher reported them (batched).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TreeChanged {
    /// The project the changes belong to (events of a project since closed are ignored).
    pub project_id: u32,
    /// The changes, in the order they happened.
    pub changes: Vec<TreeChange>,
}

impl Event for TreeChanged {
    const NAME: &'static str = "tree:changed";
}

/// Whether the open project's tree is being kept current.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct TreeStatus {
    /// The project concerned.
    pub project_id: u32,
    /// The watcher's state.
    pub state: WatchState,
}

/// The state of a project's file watcher.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "state")]
pub enum WatchState {
    /// The watcher is starting (it walks the project's shown directories once).
    Starting,
    /// The watcher runs; anything listed before this event should be listed again, since
    /// changes made while the watcher was starting were not reported. Sent again, with `limit`,
    /// if a limit on watched folders is reached later.
    Watching {
        /// Set once a limit on watched folders (the system's inotify limit, or
        /// `GANTRY_WATCH_MAX_WATCHES`) was reached: the folders left over are polled while
        /// shown, and the user should be told how to raise the limit.
        #[serde(skip_serializing_if = "Option::is_none")]
        #[ts(optional)]
        limit: Option<WatchLimit>,
    },
    /// The watcher could not start; the tree is shown but not kept current.
    Failed {
        /// Why, for the user.
        message: String,
    },
}

impl Event for TreeStatus {
    const NAME: &'static str = "tree:status";
}

/// A question for the user that the backend awaits: an approval or an ask_user question.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DialogRequest {
    /// May this tool call run? Answered with `resolve_approval`.
    Approval {
        /// The request's id, unique for the app's lifetime.
        id: u32,
        /// The app's id of the project whose call asks (its windows show the dialog).
        #[serde(rename = "projectId")]
        project_id: u32,
        /// What the engine asks about (boxed: it is much larger than a question).
        request: Box<ApprovalRequest>,
    },
    /// The model asks the user. Answered with `answer_question`.
    Question {
        /// The request's id, unique for the app's lifetime.
        id: u32,
        /// The app's id of the project whose call asks (its windows show the dialog).
        #[serde(rename = "projectId")]
        project_id: u32,
        /// The question and its suggested answers.
        question: UserQuestion,
    },
}

impl DialogRequest {
    /// The request's id.
    pub fn id(&self) -> u32 {
        match self {
            Self::Approval { id, .. } | Self::Question { id, .. } => *id,
        }
    }

    /// The app's id of the project that asks.
    pub fn project_id(&self) -> u32 {
        match self {
            Self::Approval { project_id, .. } | Self::Question { project_id, .. } => *project_id,
        }
    }
}

impl Event for DialogRequest {
    const NAME: &'static str = "dialog:opened";
}

/// A pending dialog ended; the webview removes it from its queue.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DialogClosed {
    /// The request's id.
    pub id: u32,
    /// The app's id of the project that asked.
    pub project_id: u32,
    /// Why it ended.
    pub reason: DialogCloseReason,
}

/// Why a pending dialog ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case")]
pub enum DialogCloseReason {
    /// The user answered.
    Answered,
    /// Nobody answered in time; an approval was denied, a question went unanswered.
    TimedOut,
    /// The turn that asked was cancelled.
    Cancelled,
    /// The window closed; everything pending was denied.
    WindowClosed,
}

impl Event for DialogClosed {
    const NAME: &'static str = "dialog:closed";
}

/// Where events go.
pub trait EventSink: Send + Sync {
    /// Sends one event, already serialised, to the webview. Failures are logged, not returned:
    /// nobody can act on an event that could not be delivered.
    fn send(&self, name: &'static str, payload: serde_json::Value);
}

/// Serialises `event` and sends it through `sink`.
pub fn emit<E: Event>(sink: &dyn EventSink, event: &E) {
    match serde_json::to_value(event) {
        Ok(payload) => sink.send(E::NAME, payload),
        Err(error) => tracing::error!(event = E::NAME, %error, "cannot serialise an event"),
    }
}

/// A sink that keeps what it is sent; for tests.
#[derive(Debug, Default)]
pub struct RecordingSink {
    events: Mutex<Vec<(&'static str, serde_json::Value)>>,
}

impl RecordingSink {
    /// Everything sent so far, oldest first.
    pub fn events(&self) -> Vec<(&'static str, serde_json::Value)> {
        self.events
            .lock()
            .map(|events| events.clone())
            .unwrap_or_default()
    }

    /// The payloads sent under `name`.
    pub fn named(&self, name: &str) -> Vec<serde_json::Value> {
        self.events()
            .into_iter()
            .filter(|(sent, _)| *sent == name)
            .map(|(_, payload)| payload)
            .collect()
    }
}

impl EventSink for RecordingSink {
    fn send(&self, name: &'static str, payload: serde_json::Value) {
        if let Ok(mut events) = self.events.lock() {
            events.push((name, payload));
        }
    }
}
