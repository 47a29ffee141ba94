//! Events the engine sends to the front end, typed from end to end, and the sink they go through.
//!
//! Each event is a Rust type with a fixed name ([`Event::NAME`]); every kind is one variant of
//! [`EngineEvent`], declared once in [`engine_events!`]'s list, which also gives the event's
//! name, its project and its payload. The TypeScript side gets names and payloads from the
//! generated bindings (`EventPayloads` maps each name to its payload), so an event can't be sent
//! under one name and read under another, and nothing reads an event back out of JSON by name:
//! whoever watches the events (the desktop notifications) matches on [`EngineEvent`]. The
//! [`EventSink`] trait keeps the senders free of Tauri: the app passes a sink that serialises
//! each event for the windows that show its project; tests pass one that records.

use std::sync::Mutex;

use crate::chat::ChatEvent;
use crate::chat::activity::SessionActivity;
use crate::mcp::events::{McpNoticeEvent, ToolsChanged};

use gantry_tools::{ApprovalRequest, UserQuestion};
use gantry_watch::{TreeChange, WatchLimit};
use serde::{Deserialize, Serialize};

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

/// A question for the user that the engine awaits: an approval or an ask_user question. The one
/// event that brings it to the webview; it is known by its session and call id (see
/// [`DialogRequest::key`]), and answered by them.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "snake_case", tag = "kind")]
pub enum DialogRequest {
    /// May this tool call run? Answered by the user's decision on the call.
    Approval {
        /// The app's id of the project whose call asks (its windows show the dialog).
        #[serde(rename = "projectId")]
        project_id: u32,
        /// What the engine asks about, with the call's id and session (boxed: it is much larger
        /// than a question).
        request: Box<ApprovalRequest>,
    },
    /// The model asks the user. Answered by the user's answer (or dismissal) for the call.
    Question {
        /// The app's id of the project whose call asks (its windows show the dialog).
        #[serde(rename = "projectId")]
        project_id: u32,
        /// The question and its suggested answers, with the call's id and session.
        question: UserQuestion,
    },
}

/// Which call a dialog is for: its session (none for a call outside a session) and the model's
/// id of the call.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct DialogKey {
    /// The session whose call asks.
    pub session_id: Option<String>,
    /// The model's `tool_call_id`.
    pub call_id: String,
}

impl DialogRequest {
    /// The session and call the request is for.
    pub fn key(&self) -> DialogKey {
        let (session_id, call_id) = match self {
            Self::Approval { request, .. } => (&request.session_id, &request.call_id),
            Self::Question { question, .. } => (&question.session_id, &question.call_id),
        };
        DialogKey {
            session_id: session_id.clone(),
            call_id: call_id.clone(),
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
    /// The app's id of the project that asked.
    pub project_id: u32,
    /// The session whose call asked.
    pub session_id: Option<String>,
    /// The call's id.
    pub call_id: String,
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

/// Declares [`EngineEvent`], one variant per kind of event, with its name, project and payload.
macro_rules! engine_events {
    ($($(#[$doc:meta])* $variant:ident($payload:ty),)*) => {
        /// Every event the engine sends to the front end.
        #[derive(Debug, Clone)]
        pub enum EngineEvent {
            $($(#[$doc])* $variant($payload),)*
        }

        impl EngineEvent {
            /// The event's name on the wire.
            pub fn name(&self) -> &'static str {
                match self {
                    $(Self::$variant(_) => <$payload as Event>::NAME,)*
                }
            }

            /// The app's id of the project the event is about.
            pub fn project_id(&self) -> u32 {
                match self {
                    $(Self::$variant(event) => event.project(),)*
                }
            }

            /// The event's payload, serialised for the webview.
            pub fn payload(&self) -> Result<serde_json::Value, serde_json::Error> {
                match self {
                    $(Self::$variant(event) => serde_json::to_value(event),)*
                }
            }

            /// Shows every kind of event to `kinds` (the TypeScript contract lists them).
            pub fn each_kind(kinds: &mut impl EventKinds) {
                $(kinds.kind::<$payload>();)*
            }
        }

        $(impl From<$payload> for EngineEvent {
            fn from(event: $payload) -> Self {
                Self::$variant(event)
            }
        })*
    };
}

engine_events! {
    /// The open project's visible tree changed.
    TreeChanged(TreeChanged),
    /// Whether the project's tree is kept current.
    TreeStatus(TreeStatus),
    /// An approval or a question waits for the user.
    DialogOpened(DialogRequest),
    /// A dialog ended.
    DialogClosed(DialogClosed),
    /// Something happened in a turn of a session.
    Chat(ChatEvent),
    /// A session's activity changed (queued, running, waiting, idle).
    Activity(SessionActivity),
    /// The project's set of tools changed.
    ToolsChanged(ToolsChanged),
    /// An MCP server told Gantry something.
    McpNotice(McpNoticeEvent),
}

/// What every event names: the project it is about.
pub trait ProjectEvent {
    /// The app's id of the project.
    fn project(&self) -> u32;
}

macro_rules! project_events {
    ($($payload:ty),*) => {
        $(impl ProjectEvent for $payload {
            fn project(&self) -> u32 {
                self.project_id
            }
        })*
    };
}

project_events!(
    TreeChanged,
    TreeStatus,
    DialogClosed,
    ChatEvent,
    SessionActivity,
    ToolsChanged,
    McpNoticeEvent
);

impl ProjectEvent for DialogRequest {
    fn project(&self) -> u32 {
        self.project_id()
    }
}

/// Something that lists the kinds of events ([`EngineEvent::each_kind`]).
pub trait EventKinds {
    /// One kind of event.
    fn kind<E: Event>(&mut self);
}

/// Where events go.
pub trait EventSink: Send + Sync {
    /// Sends one event to the front end. Failures are logged, not returned: nobody can act on an
    /// event that could not be delivered.
    fn send(&self, event: EngineEvent);
}

/// Sends `event` through `sink`.
pub fn emit(sink: &dyn EventSink, event: impl Into<EngineEvent>) {
    sink.send(event.into());
}

/// A sink that keeps what it is sent; for tests.
#[derive(Debug, Default)]
pub struct RecordingSink {
    events: Mutex<Vec<EngineEvent>>,
}

impl RecordingSink {
    /// Everything sent so far, oldest first, as the webview receives it: name and payload.
    pub fn events(&self) -> Vec<(&'static str, serde_json::Value)> {
        self.sent()
            .iter()
            .map(|event| (event.name(), event.payload().unwrap_or_default()))
            .collect()
    }

    /// Everything sent so far, oldest first.
    pub fn sent(&self) -> Vec<EngineEvent> {
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
    fn send(&self, event: EngineEvent) {
        if let Ok(mut events) = self.events.lock() {
            events.push(event);
        }
    }
}
