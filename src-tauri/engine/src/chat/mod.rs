//! A project's chat: its sessions, the one the front end shows, and the turns running in them.
//!
//! The agent loop is the engine's ([`gantry_agent::Session::run_turn`]); this module decides
//! which session a message goes to and forwards the turn's [`TurnEvent`]s to the webview as
//! [`ChatEvent`]s, tagged with the project and the session so a page that shows another session
//! ignores them (or a tab shows them).
//!
//! - **A runtime per open session** (`chat_runtime.rs`): its [`ToolSession`] (id, grants, file
//!   ledger), its engine `Session` and its turn slot. Several sessions of one project run turns
//!   at once, each with its own grants; two turns writing one file meet the ledger, which
//!   refuses the stale write. Going back to a session finds the same runtime while the app runs
//!   (idle ones past a bound are dropped: see [`MAX_IDLE_RUNTIMES`]).
//! - The **shown session** ("current") is the one the front end shows and the commands without a
//!   session id act on; `None` is a fresh chat, whose first message creates its session.
//!   Switching does not stop the turn of the session left.
//! - **One turn at a time per session**: `send` refuses with [`ErrorKind::Busy`] while one runs
//!   (or is queued) in the same session; restores, rewinds and compaction take the same slot.
//!   The slot is freed *before* the final `turn_finished` event is sent, so the webview can send
//!   the next message as soon as it sees the turn end.
//! - **A per-app limit** on turns running at once ([`TurnLimit`], shared by every project): a
//!   turn past it is accepted, reported `queued`, and starts when a turn ends; Stop on a queued
//!   turn ends it without a request to the provider (the message stays, the turn is cancelled).
//! - **Activity** ([`SessionActivity`]): each session is `queued`, `running`, `waiting` (a dialog
//!   of its turn is pending) or `idle`; every change is an event, and the sessions list carries
//!   it.
//! - **What the chat shows** is read from the store, which saves every message as it completes,
//!   so a reloaded page (or a restarted app) shows the same transcript as the engine holds.

use std::sync::{Arc, Mutex, PoisonError};

use gantry_agent::{Message, Provider, Session, TurnEvent};
use gantry_store::{ProjectId, SessionId, Store};
use gantry_tools::{SessionGrant, ToolManager, ToolSession};
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;

use crate::checkpoints::Checkpoints;
use crate::error::{CommandError, ErrorKind};
use crate::events::{Event, EventSink, emit};
use crate::providers::remember_what_it_learned;
use crate::sessions::open_session;

pub mod activity;
pub mod attachments;
mod changes;
pub mod compaction;
pub mod events_log;
pub mod mentions;
mod pages;
#[cfg(test)]
mod parallel_tests;
mod runtime;
pub mod service;
pub mod slash_commands;
pub mod turn_limit;
use activity::TurnPhase;
pub use activity::{
    ActivityApprover, ActivityPrompter, ActivityState, SessionActivities, SessionActivity,
};
pub use changes::{
    AcceptChangesRequest, BranchView, ResendOutcome, ResendRequest, RetryRequest, RevertOutcome,
    SwitchBranchOutcome, SwitchBranchRequest,
};
pub use compaction::{
    COMPACT_AT_SETTING, CompactSettings, EditSummaryRequest, load_compact_setting,
    save_compact_setting,
};
pub use events_log::{EventLog, EventsSince, EventsSinceRequest, TurnReplay};
pub use gantry_agent::ContextUsage;
pub use pages::{
    CLIP_BYTES, HEAD_BYTES, MessagePage, MessageTextRequest, MessagesBeforeRequest, TAIL_MESSAGES,
};
pub use runtime::MAX_IDLE_RUNTIMES;
use runtime::{Hold, Runtime, Runtimes};
pub use turn_limit::{DEFAULT_MAX_TURNS, TurnLimit};

/// The longest message accepted from the webview, in bytes.
const MAX_MESSAGE_BYTES: usize = 1024 * 1024;
/// The longest session title, in characters.
const MAX_TITLE_CHARS: usize = 200;

/// A session in the list.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    /// Its id.
    pub id: String,
    /// Its title (the first line of its first message until renamed).
    pub title: String,
    /// The model it talked to last (or was switched to).
    pub model: Option<String>,
    /// The provider it was switched to; `None`: it follows the active provider.
    pub provider: Option<String>,
    /// How many messages it holds.
    pub message_count: u32,
    /// When it was created, in milliseconds since the epoch.
    pub created_at: i64,
    /// When it last changed, in milliseconds since the epoch.
    pub updated_at: i64,
    /// What it is doing now (a turn queued, running or waiting for the user; idle).
    pub activity: ActivityState,
}

impl From<gantry_store::Session> for SessionSummary {
    fn from(session: gantry_store::Session) -> Self {
        Self {
            id: session.id.to_string(),
            title: session.title,
            model: session.model,
            provider: session.provider,
            message_count: session.message_count,
            created_at: session.created_at.as_millis(),
            updated_at: session.updated_at.as_millis(),
            activity: ActivityState::Idle,
        }
    }
}

/// What the chat panel shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatView {
    /// The current session; `None` for a fresh chat (its first message creates one).
    pub session: Option<SessionSummary>,
    /// Its last messages, oldest first (older ones: `chat_messages_before`).
    pub messages: Vec<Message>,
    /// The ordinal of the first message in `messages` (0: the whole session is there).
    pub first_ordinal: u32,
    /// How many user messages of the session come before the first message.
    pub users_before: u32,
    /// The ordinals of the tool results sent shortened (see `chat_message_text`).
    pub clipped: Vec<u32>,
    /// Whether a turn is running (or queued) in it.
    pub running: bool,
    /// The `seq` of the session's last event when this was read (0: none): events after it
    /// are what the view does not show yet.
    #[ts(type = "number")]
    pub seq: u64,
    /// Where the running turn began, while one runs: the webview shows the messages up to its
    /// user message and replays the turn's events from `chat_events_since`.
    pub turn: Option<TurnReplay>,
    /// The user message of a turn queued behind the app's limit of turns: not stored until the
    /// turn starts, it is shown after `messages` meanwhile.
    pub queued: Option<Message>,
}

/// One event of a running turn.
#[derive(Debug, Clone, PartialEq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ChatEvent {
    /// The project (events of a project since closed are ignored).
    pub project_id: u32,
    /// The session the turn runs in.
    pub session_id: String,
    /// The event's number in its session: 1 for the first, one more for each next (see
    /// [`EventLog`]).
    #[ts(type = "number")]
    pub seq: u64,
    /// What happened.
    pub event: TurnEvent,
    /// When the event is a tool result longer than [`CLIP_BYTES`]: its whole length in bytes.
    /// The event carries its first [`HEAD_BYTES`] only; `chat_message_text` reads the whole one
    /// by its call id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    #[ts(optional, type = "number")]
    pub clipped_bytes: Option<u64>,
}

impl ChatEvent {
    /// Event `event` of a turn of session `session_id` (numbered when the log records it), a
    /// long tool result shortened.
    pub fn new(project_id: u32, session_id: String, event: TurnEvent) -> Self {
        let (event, clipped_bytes) = pages::clip_event(event);
        Self {
            project_id,
            session_id,
            seq: 0,
            event,
            clipped_bytes,
        }
    }
}

impl Event for ChatEvent {
    const NAME: &'static str = "chat:event";
}

/// The argument of `send_message`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SendMessageRequest {
    /// What the user wrote.
    pub text: String,
    /// Files and folders mentioned, images pasted or dropped.
    #[serde(default)]
    pub attachments: Vec<crate::chat::attachments::AttachmentRequest>,
}

/// The argument of the commands that name a session.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct SessionRequest {
    /// The session's id.
    pub id: String,
}

/// The argument of `rename_session`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RenameSessionRequest {
    /// The session's id.
    pub id: String,
    /// Its new title.
    pub title: String,
}

/// A provider and model a session was switched to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelChoice {
    /// The provider's name (saved or preset).
    pub provider: String,
    /// The model.
    pub model: String,
}

/// A project's sessions and turns.
pub struct ProjectChat {
    project_id: u32,
    project: ProjectId,
    store: Store,
    tools: Arc<ToolManager>,
    sink: Arc<dyn EventSink>,
    /// What the project's tool calls changed in its files.
    checkpoints: Checkpoints,
    /// The session the front end shows; `None` for a fresh chat.
    shown: Mutex<Option<String>>,
    /// The open sessions' runtimes (see `chat_runtime.rs` for which are kept).
    runtimes: Mutex<Runtimes>,
    /// Held while a fresh chat's first message creates its session, so a second message sent
    /// meanwhile goes to the same session (and is refused as busy) instead of creating another.
    creating: tokio::sync::Mutex<()>,
    /// The provider and model chosen for a fresh chat, given to its session when its first
    /// message creates it.
    pending_model: Mutex<Option<ModelChoice>>,
    /// The sessions' numbered events, recent ones kept.
    events: Arc<EventLog>,
    /// What each session is doing.
    activities: Arc<SessionActivities>,
    /// The app's limit on turns running at once.
    limit: TurnLimit,
}

impl std::fmt::Debug for ProjectChat {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ProjectChat")
            .field("project_id", &self.project_id)
            .field("current", &self.current_id())
            .finish_non_exhaustive()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Refuses a message that is empty or too long.
fn check_message(text: &str) -> Result<(), CommandError> {
    if text.trim().is_empty() {
        return Err(CommandError::invalid("the message is empty"));
    }
    if text.len() > MAX_MESSAGE_BYTES {
        return Err(CommandError::invalid("the message is over 1 MiB"));
    }
    Ok(())
}

impl ProjectChat {
    /// The chat of store project `project` (app project `project_id`) with its `tools` and
    /// their `checkpoints`. Shows the project's most recent session. Its turns share a limit of
    /// their own until [`ProjectChat::with_turn_limit`] gives it the app's.
    pub async fn open(
        project_id: u32,
        project: ProjectId,
        store: Store,
        tools: Arc<ToolManager>,
        checkpoints: Checkpoints,
        sink: Arc<dyn EventSink>,
    ) -> Result<Self, CommandError> {
        let latest = store
            .sessions()
            .list(project)
            .await?
            .into_iter()
            .next()
            .map(|session| session.id.to_string());
        Ok(Self {
            project_id,
            project,
            store,
            tools,
            activities: Arc::new(SessionActivities::new(project_id, Arc::clone(&sink))),
            sink,
            checkpoints,
            shown: Mutex::new(latest),
            runtimes: Mutex::default(),
            creating: tokio::sync::Mutex::new(()),
            pending_model: Mutex::new(None),
            events: Arc::new(EventLog::default()),
            limit: TurnLimit::default(),
        })
    }

    /// The same chat keeping its sessions' activity in `activities` (shared with the
    /// [`ActivityApprover`] and [`ActivityPrompter`] of its tools, so dialogs count).
    #[must_use]
    pub fn with_activities(mut self, activities: Arc<SessionActivities>) -> Self {
        self.activities = activities;
        self
    }

    /// The same chat with its turns counted against `limit` (the app's, shared by projects).
    #[must_use]
    pub fn with_turn_limit(mut self, limit: TurnLimit) -> Self {
        self.limit = limit;
        self
    }

    /// The database the chat (and the project's policies and audit log) live in.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The project's id in the store.
    pub fn store_project(&self) -> ProjectId {
        self.project
    }

    /// What the project's tool calls changed in its files.
    pub fn checkpoints(&self) -> &Checkpoints {
        &self.checkpoints
    }

    /// What the project's sessions are doing.
    pub fn activities(&self) -> &Arc<SessionActivities> {
        &self.activities
    }

    /// The shown session's id, grants and file ledger; `None` for a fresh chat.
    pub fn current(&self) -> Option<Arc<ToolSession>> {
        self.shown_runtime()
            .map(|runtime| Arc::clone(runtime.tools()))
    }

    fn current_id(&self) -> Option<String> {
        lock(&self.shown).clone()
    }

    /// The runtime of session `id` (made, with no grants, if none is kept); trims the others.
    fn runtime(&self, id: &str) -> Arc<Runtime> {
        let shown = self.current_id();
        let mut runtimes = lock(&self.runtimes);
        let runtime = runtimes.get_or_make(id);
        runtimes.trim(shown.as_deref());
        runtime
    }

    /// The runtime of session `id` if one is kept.
    fn kept(&self, id: &str) -> Option<Arc<Runtime>> {
        lock(&self.runtimes).get(id)
    }

    /// The shown session's runtime; `None` for a fresh chat.
    fn shown_runtime(&self) -> Option<Arc<Runtime>> {
        self.current_id().map(|id| self.runtime(&id))
    }

    /// What the shown session has allowed so far (nothing for a fresh chat).
    pub fn grants(&self) -> Vec<SessionGrant> {
        self.current()
            .map(|session| session.session_grants())
            .unwrap_or_default()
    }

    /// Withdraws one of the shown session's grants; true when it existed.
    pub fn revoke(&self, grant: &SessionGrant) -> bool {
        self.current().is_some_and(|session| session.revoke(grant))
    }

    /// The project's sessions, the most recently updated first, with what each is doing.
    pub async fn sessions(&self) -> Result<Vec<SessionSummary>, CommandError> {
        let sessions = self.store.sessions().list(self.project).await?;
        Ok(sessions
            .into_iter()
            .map(|session| self.summary(session))
            .collect())
    }

    fn summary(&self, session: gantry_store::Session) -> SessionSummary {
        let mut summary = SessionSummary::from(session);
        summary.activity = self.activities.state(&summary.id);
        summary
    }

    /// The shown session and its messages.
    pub async fn view(&self) -> Result<ChatView, CommandError> {
        let Some(id) = self.current_id() else {
            return Ok(ChatView {
                session: None,
                messages: Vec::new(),
                first_ordinal: 0,
                users_before: 0,
                clipped: Vec::new(),
                running: false,
                seq: 0,
                turn: None,
                queued: None,
            });
        };
        let session = self.own_session(&id).await?;
        let (seq, turn) = self.events.position(&id);
        let runtime = self.kept(&id);
        let running = runtime.as_ref().is_some_and(|runtime| runtime.has_turn());
        let turn = turn.filter(|_| running);
        let queued = runtime.and_then(|runtime| runtime.queued_message());
        let page = self
            .tail(session.id, turn.as_ref().map(|turn| turn.first_ordinal))
            .await?;
        // Read before the page: should the turn have started since, its message is stored.
        let stored = page.first_ordinal + u32::try_from(page.messages.len()).unwrap_or(u32::MAX);
        let queued = queued.filter(|_| {
            turn.as_ref()
                .is_some_and(|turn| stored <= turn.first_ordinal)
        });
        Ok(ChatView {
            session: Some(self.summary(session)),
            messages: page.messages,
            first_ordinal: page.first_ordinal,
            users_before: page.users_before,
            clipped: page.clipped,
            running,
            seq,
            turn,
            queued,
        })
    }

    /// The events of session `id` after `after` (see [`EventLog::since`]).
    pub async fn events_since(&self, id: &str, after: u64) -> Result<EventsSince, CommandError> {
        self.own_session(id).await?;
        Ok(self.events.since(id, after))
    }

    /// The session `id` if it belongs to this project; [`ErrorKind::NotFound`] otherwise.
    async fn own_session(&self, id: &str) -> Result<gantry_store::Session, CommandError> {
        let not_found = || CommandError::new(ErrorKind::NotFound, format!("no session {id}"));
        let parsed: SessionId = id.parse().map_err(|_| not_found())?;
        match self.store.sessions().get(parsed).await? {
            Some(session) if session.project_id == self.project => Ok(session),
            _ => Err(not_found()),
        }
    }

    /// Shows session `id` (a fresh chat for `None`). A turn running in the session left goes
    /// on; the session shown keeps the grants it had while the app runs (none at first).
    pub async fn switch(&self, id: Option<String>) -> Result<ChatView, CommandError> {
        if let Some(id) = &id {
            self.own_session(id).await?;
        }
        lock(&self.shown).clone_from(&id);
        match &id {
            Some(id) => drop(self.runtime(id)),
            None => lock(&self.runtimes).trim(None),
        }
        *lock(&self.pending_model) = None;
        self.view().await
    }

    /// The provider and model the current session was switched to (for a fresh chat: chosen
    /// for its first message); `None` when it follows the active provider.
    pub async fn model_choice(&self) -> Result<Option<ModelChoice>, CommandError> {
        let Some(id) = self.current_id() else {
            return Ok(lock(&self.pending_model).clone());
        };
        let session = self.own_session(&id).await?;
        Ok(session
            .provider
            .zip(session.model)
            .map(|(provider, model)| ModelChoice { provider, model }))
    }

    /// Switches the current session to `choice` from its next message on (a fresh chat keeps
    /// it for the session its first message creates); `None` returns it to the active provider.
    pub async fn choose_model(&self, choice: Option<ModelChoice>) -> Result<(), CommandError> {
        let Some(id) = self.current_id() else {
            *lock(&self.pending_model) = choice;
            return Ok(());
        };
        let session = self.own_session(&id).await?;
        self.store
            .sessions()
            .switch_model(
                session.id,
                choice.as_ref().map(|choice| choice.provider.as_str()),
                choice
                    .as_ref()
                    .map(|choice| choice.model.as_str())
                    .or(session.model.as_deref()),
            )
            .await
            .map_err(CommandError::from)
    }

    /// Renames session `id`.
    pub async fn rename(&self, id: &str, title: &str) -> Result<SessionSummary, CommandError> {
        let title = title.trim();
        if title.is_empty() || title.chars().count() > MAX_TITLE_CHARS {
            return Err(CommandError::invalid(format!(
                "a session's title must be 1 to {MAX_TITLE_CHARS} characters"
            )));
        }
        let session = self.own_session(id).await?;
        let sessions = self.store.sessions();
        sessions.rename(session.id, title).await?;
        let renamed = sessions.get(session.id).await?;
        renamed
            .map(|session| self.summary(session))
            .ok_or_else(|| CommandError::new(ErrorKind::NotFound, format!("no session {id}")))
    }

    /// Deletes session `id` (its messages, audit rows and checkpoints; the contents no other
    /// checkpoint needs are deleted in the background) after stopping its turn; deleting the
    /// shown session leaves a fresh chat.
    pub async fn delete(&self, id: &str) -> Result<ChatView, CommandError> {
        let session = self.own_session(id).await?;
        if let Some(runtime) = self.kept(id) {
            runtime.cancel();
            runtime.wait_for_stop().await;
        }
        lock(&self.runtimes).remove(id);
        if self.current_id().as_deref() == Some(id) {
            self.switch(None).await?;
        }
        self.store.sessions().delete(session.id).await?;
        self.checkpoints.collect_in_background();
        self.view().await
    }

    /// Stops the shown session's turn, if any (its stream and its tools; its pending dialogs
    /// are withdrawn; a queued turn ends without a request).
    pub fn cancel(&self) {
        if let Some(id) = self.current_id()
            && let Some(runtime) = self.kept(&id)
        {
            runtime.cancel();
        }
    }

    /// Stops the turn of session `id`, if one runs or is queued; [`ErrorKind::NotFound`] for a
    /// session of another project.
    pub async fn cancel_session(&self, id: &str) -> Result<(), CommandError> {
        self.own_session(id).await?;
        if let Some(runtime) = self.kept(id) {
            runtime.cancel();
        }
        Ok(())
    }

    /// Stops every turn of the project (it is closing).
    pub fn cancel_all(&self) {
        for runtime in lock(&self.runtimes).all() {
            runtime.cancel();
        }
    }

    /// Whether a turn is running (or queued) in the shown session.
    pub fn is_running(&self) -> bool {
        self.current_id()
            .and_then(|id| self.kept(&id))
            .is_some_and(|runtime| runtime.has_turn())
    }

    /// The project's sessions that are not idle (queued, running, waiting), by id.
    pub fn busy_sessions(&self) -> Vec<SessionActivity> {
        self.activities.active()
    }

    /// Starts a turn with `text` in the current session (creating one for a fresh chat), talking
    /// to `provider`. Returns the session's id at once; the turn reports through events.
    pub async fn send(&self, text: &str, provider: Provider) -> Result<String, CommandError> {
        self.send_with(Message::user(text), provider).await
    }

    /// [`ProjectChat::send`] for a user `message` with attachments (built by
    /// [`crate::chat::attachments`]). A message with images is refused before anything is sent when
    /// the provider's model does not accept images ([`gantry_agent::ProviderFlags::images`]).
    /// Past the app's turn limit the turn is queued (and the id still comes back at once).
    pub async fn send_with(
        &self,
        message: Message,
        provider: Provider,
    ) -> Result<String, CommandError> {
        if message.attachments.is_empty() {
            check_message(&message.content)?;
        } else if message.content.len() > MAX_MESSAGE_BYTES {
            return Err(CommandError::invalid("the message is over 1 MiB"));
        }
        if message.attachments.iter().any(|a| a.is_image()) && !provider.flags().images {
            return Err(CommandError::invalid(format!(
                "{} ({}) does not accept images: remove the image, or choose a model that \
                 accepts them (or turn on \"accepts images\" for this provider in the settings)",
                provider.config().model,
                provider.config().name,
            )));
        }
        let runtime = self.runtime_for_message(&provider).await?;
        runtime.wait_for_stop().await;
        let cancel = CancellationToken::new();
        let permit = self.limit.try_start();
        let phase = if permit.is_some() {
            TurnPhase::Running
        } else {
            TurnPhase::Queued
        };
        runtime.claim(&self.activities, Hold::Turn(phase), cancel.clone())?;
        if phase == TurnPhase::Queued {
            runtime.queue_message(message.clone());
        }
        match self
            .start_turn(&runtime, message, provider, cancel, permit)
            .await
        {
            Ok(()) => Ok(runtime.id().to_owned()),
            Err(error) => {
                runtime.release(&self.activities);
                Err(error)
            }
        }
    }

    /// The runtime a message goes to: the shown session's, or for a fresh chat a new session's
    /// (created now, with the model chosen for it, and shown unless another was shown since).
    async fn runtime_for_message(&self, provider: &Provider) -> Result<Arc<Runtime>, CommandError> {
        if let Some(runtime) = self.shown_runtime() {
            return Ok(runtime);
        }
        let _creating = self.creating.lock().await;
        if let Some(runtime) = self.shown_runtime() {
            return Ok(runtime);
        }
        let options = compaction::session_options(&self.store).await;
        let session =
            open_session(&self.tools, &self.store, provider.clone(), options, None).await?;
        let id = session.id().to_owned();
        let pending = lock(&self.pending_model).take();
        if let (Some(choice), Ok(parsed)) = (pending, id.parse::<SessionId>()) {
            self.store
                .sessions()
                .switch_model(parsed, Some(&choice.provider), Some(&choice.model))
                .await?;
        }
        let tools = Arc::clone(session.tool_session());
        let runtime = Arc::new(Runtime::new(id.clone(), tools, Some(session)));
        lock(&self.runtimes).insert(Arc::clone(&runtime));
        lock(&self.shown).get_or_insert(id);
        Ok(runtime)
    }

    /// Makes `slot` hold `runtime`'s engine session (loading it with the runtime's grants and
    /// ledger), with the options the settings say.
    async fn load_session(
        &self,
        runtime: &Runtime,
        slot: &mut Option<Session>,
        provider: &Provider,
    ) -> Result<(), CommandError> {
        if slot.is_none() {
            let options = compaction::session_options(&self.store).await;
            let resume = Some(Arc::clone(runtime.tools()));
            let session =
                open_session(&self.tools, &self.store, provider.clone(), options, resume).await?;
            *slot = Some(session);
        }
        Ok(())
    }

    /// Starts the turn whose slot `runtime` holds: at once with `permit`, else once the app's
    /// limit gives one (or, cancelled while queued, without asking the provider anything).
    async fn start_turn(
        &self,
        runtime: &Arc<Runtime>,
        message: Message,
        provider: Provider,
        cancel: CancellationToken,
        permit: Option<turn_limit::TurnPermit>,
    ) -> Result<(), CommandError> {
        let mut slot = Arc::clone(&runtime.engine).lock_owned().await;
        self.load_session(runtime, &mut slot, &provider).await?;
        let Some(session) = slot.as_mut() else {
            return Err(CommandError::internal("the session went away"));
        };
        session.set_provider(provider);
        // The compaction setting applies from the next turn on, also to a loaded session.
        session.set_compact_at_percent(
            compaction::session_options(&self.store)
                .await
                .compact_at_percent,
        );
        let session_id = runtime.id().to_owned();
        let ordinal = u32::try_from(session.transcript().len()).unwrap_or(u32::MAX);
        self.checkpoints.begin_turn(&session_id, ordinal);
        self.events.begin_turn(&session_id, ordinal);

        let (sender, mut receiver) = unbounded_channel();
        let forward = {
            let sink = Arc::clone(&self.sink);
            let runtime = Arc::clone(runtime);
            let activities = Arc::clone(&self.activities);
            let log = Arc::clone(&self.events);
            let project_id = self.project_id;
            async move {
                let mut released = false;
                while let Some(event) = receiver.recv().await {
                    let finished = matches!(event, TurnEvent::TurnFinished { .. });
                    let event = log.record(ChatEvent::new(project_id, session_id.clone(), event));
                    if finished && !released {
                        log.end_turn(&session_id);
                        runtime.release(&activities);
                        released = true;
                    }
                    emit(sink.as_ref(), event);
                }
                if !released {
                    log.end_turn(&session_id);
                    runtime.release(&activities);
                }
            }
        };
        let store = self.store.clone();
        let limit = self.limit.clone();
        let activities = Arc::clone(&self.activities);
        let queued = Arc::clone(runtime);
        tokio::spawn(async move {
            let forwarding = tokio::spawn(forward);
            let permit = match permit {
                Some(permit) => Some(permit),
                None => {
                    let waited = tokio::select! {
                        biased;
                        () = cancel.cancelled() => None,
                        permit = limit.wait() => permit,
                    };
                    queued.unqueue();
                    if waited.is_some() {
                        queued.started(&activities);
                    }
                    waited
                }
            };
            drop(queued);
            match slot.as_mut() {
                Some(session) => {
                    // Cancelled while queued: the turn saves the message and ends at once,
                    // before any request.
                    let outcome = session.run_turn_with(message, &cancel, sender).await;
                    tracing::info!(reason = outcome.reason.as_str(), "turn ended");
                    // Every event of the turn is out before a queued turn takes the permit.
                    let _ = forwarding.await;
                    drop(permit);
                    remember_what_it_learned(&store, session.provider()).await;
                }
                None => {
                    drop(sender);
                    let _ = forwarding.await;
                }
            }
            drop(slot);
        });
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use crate::project::open::{People, open_tools};
    use gantry_agent::{ProviderConfig, ProviderOptions};
    use gantry_scripted_provider::{Expect, Script, ScriptedProvider, Turn};
    use serde_json::json;

    use super::*;
    use crate::events::RecordingSink;

    struct Rig {
        _dirs: (tempfile::TempDir, tempfile::TempDir),
        sink: Arc<RecordingSink>,
        chat: ProjectChat,
        store: Store,
        provider: gantry_scripted_provider::Handle,
    }

    async fn rig(turns: Vec<Turn>) -> Rig {
        let project = tempfile::tempdir().unwrap();
        let data = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let opened = open_tools(store.clone(), project.path(), People::default())
            .await
            .unwrap();
        let sink = Arc::new(RecordingSink::default());
        let chat = ProjectChat::open(
            7,
            opened.project.id,
            store.clone(),
            Arc::new(opened.manager),
            opened.checkpoints,
            sink.clone(),
        )
        .await
        .unwrap();
        let provider = ScriptedProvider::start(Script::new(turns)).await.unwrap();
        Rig {
            _dirs: (project, data),
            sink,
            chat,
            store,
            provider,
        }
    }

    impl Rig {
        fn provider(&self) -> Provider {
            self.provider_with_window(32_000)
        }

        fn provider_with_window(&self, window: u32) -> Provider {
            let config = ProviderConfig::new(
                "scripted",
                self.provider.base_url(),
                "scripted-model",
                None,
                window,
            );
            Provider::new(config, None, ProviderOptions::default()).unwrap()
        }

        /// The turn events sent so far, as JSON.
        fn events(&self) -> Vec<serde_json::Value> {
            self.sink.named(ChatEvent::NAME)
        }

        async fn finished(&self, turns: usize) -> Vec<serde_json::Value> {
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let events = self.events();
                let done = events
                    .iter()
                    .filter(|event| event["event"]["type"] == "turn_finished")
                    .count();
                if done >= turns {
                    return events;
                }
                assert!(Instant::now() < deadline, "{events:?}");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_turn_streams_events_tagged_with_its_session_and_is_saved() {
        let rig = rig(vec![Turn::text("Hello there.")]).await;
        assert_eq!(rig.chat.view().await.unwrap().session, None);
        let id = rig.chat.send("hi", rig.provider()).await.unwrap();
        let events = rig.finished(1).await;
        assert!(
            events
                .iter()
                .all(|event| event["projectId"] == 7 && event["sessionId"] == id.as_str())
        );
        let text: String = events
            .iter()
            .filter(|event| event["event"]["type"] == "text_delta")
            .map(|event| event["event"]["text"].as_str().unwrap().to_owned())
            .collect();
        assert_eq!(text, "Hello there.");
        assert_eq!(
            events[0]["event"],
            json!({"type": "turn_started", "sessionId": id})
        );

        let view = rig.chat.view().await.unwrap();
        assert_eq!(view.session.as_ref().unwrap().id, id);
        assert_eq!(view.session.unwrap().title, "hi");
        assert_eq!(view.messages.len(), 2);
        assert_eq!(view.messages[1].content, "Hello there.");
        assert!(!view.running);
        rig.provider.verify().unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn one_turn_at_a_time_and_stop_ends_it() {
        let rig = rig(vec![Turn::hang(), Turn::text("Back.")]).await;
        rig.chat.send("wait", rig.provider()).await.unwrap();
        let busy = rig.chat.send("again", rig.provider()).await.unwrap_err();
        assert_eq!(busy.kind, ErrorKind::Busy);
        assert!(rig.chat.is_running());
        // Stop once the hanging request is at the provider (a stop before it is sent would leave
        // the hanging reply queued for the next message).
        rig.provider
            .wait_for_requests(1, Duration::from_secs(10))
            .await
            .unwrap();
        rig.chat.cancel();
        let events = rig.finished(1).await;
        let last = &events.last().unwrap()["event"];
        assert_eq!(last["type"], "turn_finished");
        assert_eq!(last["reason"], "cancelled");
        // Right after the stop, the next message is accepted (not refused as busy).
        rig.chat
            .send("are you back?", rig.provider())
            .await
            .unwrap();
        rig.finished(2).await;
        assert_eq!(
            rig.chat
                .view()
                .await
                .unwrap()
                .messages
                .last()
                .unwrap()
                .content,
            "Back."
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sessions_switch_rename_and_delete_within_their_project_only() {
        let rig = rig(vec![
            Turn::text("One."),
            Turn::text("Two.").expect(Expect::new().message_count(2)),
        ])
        .await;
        let first = rig.chat.send("first", rig.provider()).await.unwrap();
        rig.finished(1).await;
        rig.chat.switch(None).await.unwrap();
        let second = rig.chat.send("second", rig.provider()).await.unwrap();
        rig.finished(2).await;
        assert_ne!(first, second);
        let listed: Vec<String> = rig
            .chat
            .sessions()
            .await
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(listed, [second.clone(), first.clone()]);

        let view = rig.chat.switch(Some(first.clone())).await.unwrap();
        assert_eq!(view.messages[1].content, "One.");
        let renamed = rig.chat.rename(&first, "  Better title ").await.unwrap();
        assert_eq!(renamed.title, "Better title");
        assert_eq!(
            rig.chat.rename(&first, "   ").await.unwrap_err().kind,
            ErrorKind::InvalidInput
        );

        // Ids that are not this project's sessions are not found, whatever they look like.
        let other = rig.store.projects().open(rig._dirs.1.path()).await.unwrap();
        let foreign = rig
            .store
            .sessions()
            .create(other.id, "x", None)
            .await
            .unwrap();
        for id in [
            foreign.id.to_string(),
            "999".into(),
            "abc".into(),
            String::new(),
        ] {
            assert_eq!(
                rig.chat.switch(Some(id.clone())).await.unwrap_err().kind,
                ErrorKind::NotFound,
                "{id}"
            );
            assert_eq!(
                rig.chat.delete(&id).await.unwrap_err().kind,
                ErrorKind::NotFound,
                "{id}"
            );
        }

        // Deleting the current session leaves a fresh chat.
        let after = rig.chat.delete(&first).await.unwrap();
        assert_eq!(after.session, None);
        let left: Vec<String> = rig
            .chat
            .sessions()
            .await
            .unwrap()
            .into_iter()
            .map(|s| s.id)
            .collect();
        assert_eq!(left, [second]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_restored_tool_message_keeps_its_outcome_and_events_are_numbered() {
        let rig = rig(vec![write("w1", "v1\n"), Turn::text("Wrote it.")]).await;
        rig.chat
            .tools
            .set_policy("write_file", gantry_tools::Policy::Auto)
            .unwrap();
        let id = rig.chat.send("write a.txt", rig.provider()).await.unwrap();
        let events = rig.finished(1).await;
        let seqs: Vec<u64> = events
            .iter()
            .map(|event| event["seq"].as_u64().unwrap())
            .collect();
        let expected: Vec<u64> = (1..=u64::try_from(seqs.len()).unwrap()).collect();
        assert_eq!(seqs, expected, "numbered from 1 without gaps");

        // What the card showed live is what the stored message restores.
        let view = rig.chat.view().await.unwrap();
        assert_eq!(view.seq, *seqs.last().unwrap());
        assert_eq!(view.turn, None);
        let tool = view
            .messages
            .iter()
            .find(|message| message.role == gantry_agent::Role::Tool)
            .unwrap();
        let outcome = tool.outcome.as_ref().expect("the outcome is kept");
        let live = events
            .iter()
            .find(|event| event["event"]["type"] == "tool_result")
            .unwrap();
        let observation = &live["event"]["observation"];
        assert_eq!(observation["kind"], "ok");
        assert_eq!(
            serde_json::to_value(&outcome.decision).unwrap(),
            observation["decision"]
        );
        assert_eq!(outcome.decision.kind, gantry_tools::DecisionKind::Auto);
        assert_eq!(Some(outcome.duration_ms), observation["duration"].as_u64());
        assert_eq!(outcome.diff.as_deref(), observation["diff"].as_str());
        assert!(outcome.diff.as_deref().unwrap().contains("+v1"));
        assert_eq!(
            outcome.level,
            Some(gantry_tools::PermissionLevel::Sensitive)
        );

        // A webview that missed events asks for them; too old a seq is a gap.
        let since = rig.chat.events_since(&id, 2).await.unwrap();
        assert!(since.complete);
        assert_eq!(since.events.len(), seqs.len() - 2);
        assert_eq!(since.events[0].seq, 3);
        assert!(!rig.chat.events_since(&id, 10_000).await.unwrap().complete);
        assert_eq!(
            rig.chat.events_since("999", 0).await.unwrap_err().kind,
            ErrorKind::NotFound
        );
        rig.provider.verify().unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_long_session_opens_at_its_tail_and_pages_back_with_long_results_shortened() {
        use gantry_store::{NewMessage, Role as StoredRole};
        let rig = rig(vec![]).await;
        let session = rig
            .store
            .sessions()
            .create(rig.chat.store_project(), "long", None)
            .await
            .unwrap();
        // 1,000 turns of user, a call, its result (a long one every other turn), answer.
        let long = "line of output\n".repeat(1000);
        let mut transcript = Vec::new();
        for turn in 0..1000 {
            let id = format!("call_{turn}");
            transcript.push(NewMessage::text(
                StoredRole::User,
                format!("question {turn}"),
            ));
            transcript.push(NewMessage {
                tool_calls: Some(json!([{"id": id, "type": "function",
                    "function": {"name": "read_file", "arguments": "{}"}}])),
                ..NewMessage::text(StoredRole::Assistant, "")
            });
            let result = if turn % 2 == 0 {
                long.clone()
            } else {
                "short".to_owned()
            };
            transcript.push(NewMessage {
                tool_call_id: Some(id),
                ..NewMessage::text(StoredRole::Tool, result)
            });
            transcript.push(NewMessage::text(
                StoredRole::Assistant,
                format!("answer {turn}"),
            ));
        }
        rig.store
            .sessions()
            .append_messages(session.id, &transcript)
            .await
            .unwrap();
        let id = session.id.to_string();

        let view = rig.chat.switch(Some(id.clone())).await.unwrap();
        let first = view.first_ordinal;
        assert!(first > 0 && first <= 4000 - TAIL_MESSAGES, "{first}");
        assert_eq!(view.messages.len(), 4000 - first as usize);
        assert_ne!(view.messages[0].role, gantry_agent::Role::Tool);
        assert_eq!(view.users_before, first.div_ceil(4));
        assert_eq!(view.messages.last().unwrap().content, "answer 999");
        // The long results (turns 0, 2, 4…: ordinal 4t + 2) are shortened, the short ones not.
        assert!(!view.clipped.is_empty());
        for ordinal in &view.clipped {
            assert_eq!(ordinal % 8, 2, "{ordinal}");
            let message = &view.messages[(ordinal - first) as usize];
            assert!(
                message.content.len() <= HEAD_BYTES,
                "{}",
                message.content.len()
            );
            assert!(long.starts_with(&message.content));
        }
        let full = rig
            .chat
            .message_text(&id, Some(view.clipped[0]), None)
            .await
            .unwrap();
        assert_eq!(full, long);

        // Scrolling up: the page before, then the rest at once (a search hit far up).
        let page = rig.chat.messages_before(&id, first, 100).await.unwrap();
        assert!(page.first_ordinal < first && first - page.first_ordinal >= 100);
        assert_eq!(page.messages.len(), (first - page.first_ordinal) as usize);
        assert_eq!(page.users_before, page.first_ordinal.div_ceil(4));
        let rest = rig
            .chat
            .messages_before(&id, page.first_ordinal, 20_000)
            .await
            .unwrap();
        assert_eq!(rest.first_ordinal, 0);
        assert_eq!(rest.users_before, 0);
        assert_eq!(rest.messages[0].content, "question 0");
        assert_eq!(rest.clipped[0], 2);

        assert_eq!(
            rig.chat
                .message_text(&id, Some(40_000), None)
                .await
                .unwrap_err()
                .kind,
            ErrorKind::NotFound
        );
        assert_eq!(
            rig.chat
                .messages_before("999", 10, 10)
                .await
                .unwrap_err()
                .kind,
            ErrorKind::NotFound
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_running_turn_is_replayed_from_its_first_event() {
        let rig = rig(vec![Turn::text("First."), Turn::hang()]).await;
        let id = rig.chat.send("one", rig.provider()).await.unwrap();
        rig.finished(1).await;
        rig.chat.send("two", rig.provider()).await.unwrap();
        rig.provider
            .wait_for_requests(2, Duration::from_secs(10))
            .await
            .unwrap();
        let view = rig.chat.view().await.unwrap();
        assert!(view.running);
        let turn = view.turn.expect("a running turn says where it began");
        assert_eq!(turn.first_ordinal, 2);
        let replay = rig
            .chat
            .events_since(&id, turn.start_seq - 1)
            .await
            .unwrap();
        assert!(replay.complete);
        assert_eq!(
            replay.events[0].event,
            TurnEvent::TurnStarted {
                session_id: id.clone()
            }
        );
        assert_eq!(replay.events[0].seq, turn.start_seq);
        rig.chat.cancel();
        rig.finished(2).await;
        assert_eq!(rig.chat.view().await.unwrap().turn, None);
    }

    fn write(id: &str, content: &str) -> Turn {
        Turn::tool_calls(vec![gantry_scripted_provider::ToolCall::new(
            id,
            "write_file",
            json!({"path": "a.txt", "content": content}),
        )])
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn edit_and_resend_rewinds_the_files_and_sets_the_rest_aside_as_a_version() {
        let rig = rig(vec![
            write("w1", "v1\n"),
            Turn::text("One."),
            write("w2", "v2\n"),
            Turn::text("Two."),
            write("w3", "v3\n"),
            Turn::text("Three."),
        ])
        .await;
        rig.chat
            .tools
            .set_policy("write_file", gantry_tools::Policy::Auto)
            .unwrap();
        let file = rig._dirs.0.path().join("a.txt");
        rig.chat.send("first", rig.provider()).await.unwrap();
        rig.finished(1).await;
        rig.chat.send("second", rig.provider()).await.unwrap();
        rig.finished(2).await;
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "v2\n");
        let changes = rig.chat.changes().await.unwrap();
        assert_eq!(changes.turns.len(), 2);

        // The user edited the file since: the rewind refuses and nothing happens.
        std::fs::write(&file, "mine\n").unwrap();
        let mut request = ResendRequest {
            user_index: 1,
            text: "second, edited".into(),
            on_conflict: crate::checkpoints::OnConflict::Refuse,
            dropped_attachments: Vec::new(),
        };
        let refused = rig.chat.resend(&request, rig.provider()).await.unwrap();
        assert!(!refused.report.applied);
        assert_eq!(refused.session_id, None);
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "mine\n");
        assert_eq!(rig.chat.view().await.unwrap().messages.len(), 8);

        request.on_conflict = crate::checkpoints::OnConflict::Overwrite;
        let resent = rig.chat.resend(&request, rig.provider()).await.unwrap();
        assert!(resent.report.applied, "{resent:?}");
        rig.finished(3).await;
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "v3\n");
        let view = rig.chat.view().await.unwrap();
        let users: Vec<&str> = view
            .messages
            .iter()
            .filter(|message| message.role == gantry_agent::Role::User)
            .map(|message| message.content.as_str())
            .collect();
        assert_eq!(users, ["first", "second, edited"]);
        assert_eq!(view.messages.last().unwrap().content, "Three.");
        let branches = rig.chat.branches().await.unwrap();
        assert_eq!(branches.len(), 1);
        assert_eq!(
            (branches[0].user_index, branches[0].title.as_str()),
            (1, "second")
        );
        assert_eq!(branches[0].message_count, 4);
        // The live changes are the first turn's and the new one's.
        let turns: Vec<String> = rig
            .chat
            .changes()
            .await
            .unwrap()
            .turns
            .iter()
            .map(|turn| turn.title.clone())
            .collect();
        assert_eq!(turns, ["first", "second, edited"]);

        // Back to the version set aside: its file and its messages.
        let back = rig
            .chat
            .return_to_branch(&SwitchBranchRequest {
                branch_id: branches[0].id.clone(),
                on_conflict: crate::checkpoints::OnConflict::Refuse,
            })
            .await
            .unwrap();
        assert!(back.report.applied, "{back:?}");
        assert_eq!(std::fs::read_to_string(&file).unwrap(), "v2\n");
        assert_eq!(back.chat.messages.last().unwrap().content, "Two.");
        let branches = rig.chat.branches().await.unwrap();
        assert_eq!(branches.len(), 1);
        assert_eq!(branches[0].title, "second, edited");
        let changes = rig.chat.changes().await.unwrap();
        assert_eq!(changes.files.len(), 1);
        assert!(changes.reverted_calls.is_empty(), "{changes:?}");
        assert_eq!(changes.turns.len(), 2);
        rig.provider.verify().unwrap();
    }

    /// The text of a recorded request's messages, by role.
    fn request_messages(request: &serde_json::Value) -> Vec<(String, String)> {
        request["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|message| {
                (
                    message["role"].as_str().unwrap_or_default().to_owned(),
                    message["content"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn compact_asks_for_a_summary_and_later_requests_continue_from_it() {
        let rig = rig(vec![
            Turn::text("One."),
            Turn::text("NOTES: the user said first; the model said One.").expect(
                Expect::new()
                    .last_role("user")
                    .last_contains("Summarise the conversation so far")
                    .any_contains("first")
                    .absent("/tools"),
            ),
            Turn::text("Two.").expect(
                Expect::new()
                    .message_count(2)
                    .any_contains("NOTES: the user said first"),
            ),
        ])
        .await;
        let nothing = rig.chat.compact(rig.provider()).await.unwrap_err();
        assert_eq!(
            nothing.kind,
            ErrorKind::InvalidInput,
            "a fresh chat: {nothing:?}"
        );
        rig.chat.send("first", rig.provider()).await.unwrap();
        rig.finished(1).await;
        let view = rig.chat.compact(rig.provider()).await.unwrap();
        assert_eq!(view.messages.len(), 3);
        assert!(view.messages[2].is_summary());
        assert_eq!(
            view.messages[2].content,
            "NOTES: the user said first; the model said One."
        );
        let events = rig.events();
        let kinds: Vec<&str> = events
            .iter()
            .filter_map(|event| event["event"]["type"].as_str())
            .collect();
        assert!(kinds.contains(&"compaction_started"), "{kinds:?}");
        assert!(kinds.contains(&"compacted"), "{kinds:?}");
        let context = events
            .iter()
            .rev()
            .find(|event| event["event"]["type"] == "context")
            .unwrap();
        assert_eq!(context["event"]["usage"]["summarisedMessages"], 3);

        // The user corrects the summary; the next request sends the corrected text.
        let edited = rig
            .chat
            .edit_summary(&EditSummaryRequest {
                ordinal: 2,
                text: "NOTES: the user said first (corrected)".into(),
            })
            .await
            .unwrap();
        assert_eq!(
            edited.messages[2].content,
            "NOTES: the user said first (corrected)"
        );
        let refused = rig
            .chat
            .edit_summary(&EditSummaryRequest {
                ordinal: 0,
                text: "rewrite history".into(),
            })
            .await
            .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::InvalidInput);

        rig.chat.send("second", rig.provider()).await.unwrap();
        rig.finished(2).await;
        let requests = rig.provider.requests();
        let last = request_messages(requests[2].body.as_ref().unwrap());
        assert_eq!(last[0].0, "system");
        assert!(
            last[0].1.contains("NOTES: the user said first (corrected)"),
            "{last:?}"
        );
        assert_eq!(last[1], ("user".to_owned(), "second".to_owned()));
        // Everything stays stored.
        let view = rig.chat.view().await.unwrap();
        let texts: Vec<&str> = view.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(
            texts,
            [
                "first",
                "One.",
                "NOTES: the user said first (corrected)",
                "second",
                "Two."
            ]
        );
        rig.provider.verify().unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_turn_compacts_first_when_its_request_would_pass_the_threshold() {
        let long = "word ".repeat(6_000); // about 7,500 tokens
        let rig = rig(vec![
            Turn::text("Ack."),
            Turn::text("NOTES: a long text was pasted.")
                .expect(Expect::new().last_contains("Summarise the conversation so far")),
            Turn::text("Done.").expect(
                Expect::new()
                    .message_count(2)
                    .any_contains("NOTES: a long text was pasted."),
            ),
        ])
        .await;
        rig.store
            .settings()
            .set(COMPACT_AT_SETTING, "50")
            .await
            .unwrap();
        rig.chat
            .send(&long, rig.provider_with_window(16_000))
            .await
            .unwrap();
        rig.finished(1).await;
        rig.chat
            .send("next", rig.provider_with_window(16_000))
            .await
            .unwrap();
        let events = rig.finished(2).await;
        let started = events
            .iter()
            .find(|event| event["event"]["type"] == "compaction_started")
            .unwrap();
        assert_eq!(started["event"]["automatic"], true);
        let view = rig.chat.view().await.unwrap();
        let kinds: Vec<bool> = view.messages.iter().map(Message::is_summary).collect();
        assert_eq!(
            kinds,
            [false, false, true, false, false],
            "summary before the new message"
        );
        assert_eq!(view.messages[3].content, "next");
        // The gauge of the last request counts the summary, not the long text.
        let context = events
            .iter()
            .rev()
            .find(|event| event["event"]["type"] == "context")
            .unwrap();
        assert!(
            context["event"]["usage"]["transcriptTokens"]
                .as_u64()
                .unwrap()
                < 100,
            "{context}"
        );
        assert_eq!(context["event"]["usage"]["compactAtTokens"], 8_000);
        rig.provider.verify().unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_tool_result_too_large_for_the_window_is_cut_head_and_tail() {
        let rig = rig(vec![
            Turn::tool_calls(vec![gantry_scripted_provider::ToolCall::new(
                "c1",
                "read_file",
                json!({"path": "big.txt", "limit": 2000}),
            )]),
            Turn::text("Read it.").expect(
                Expect::new()
                    .last_role("tool")
                    .last_contains("characters to save context]")
                    .last_contains("line 0001")
                    .last_contains("line 1999"),
            ),
            Turn::text("Still here."),
        ])
        .await;
        let lines: String = (0..2000)
            .map(|n| format!("line {n:04} {}\n", "x".repeat(190)))
            .collect();
        std::fs::write(rig.chat.tools.root().join("big.txt"), lines).unwrap();
        rig.chat
            .send("read big.txt", rig.provider_with_window(16_000))
            .await
            .unwrap();
        let events = rig.finished(1).await;
        let finished = &events.last().unwrap()["event"];
        assert_eq!(finished["reason"], "completed", "{events:?}");
        assert!(
            events
                .iter()
                .any(|event| event["event"]["type"] == "context_shortened"),
            "the request was fitted"
        );
        // The stored result is whole (the view sends it shortened); the session goes on.
        let view = rig.chat.view().await.unwrap();
        assert_eq!(view.clipped, [2]);
        assert!(view.messages[2].content.len() <= HEAD_BYTES);
        let id = view.session.as_ref().unwrap().id.clone();
        assert!(
            rig.chat
                .message_text(&id, Some(2), None)
                .await
                .unwrap()
                .len()
                > 300_000
        );
        // The live event carried the result's head and its whole length; the card reads the
        // whole one by its call id.
        let result = events
            .iter()
            .find(|event| event["event"]["type"] == "tool_result")
            .unwrap();
        assert!(result["clippedBytes"].as_u64().unwrap() > 300_000);
        let head = result["event"]["observation"]["text"].as_str().unwrap();
        assert!(head.len() <= HEAD_BYTES && head.contains("line 0000"));
        let call = result["event"]["id"].as_str().unwrap();
        assert!(
            rig.chat
                .message_text(&id, None, Some(call))
                .await
                .unwrap()
                .len()
                > 300_000
        );
        assert!(
            events
                .iter()
                .filter(|event| event["event"]["type"] != "tool_result")
                .all(|event| event.get("clippedBytes").is_none())
        );
        rig.chat
            .send("and now?", rig.provider_with_window(16_000))
            .await
            .unwrap();
        rig.finished(2).await;
        assert_eq!(
            rig.chat
                .view()
                .await
                .unwrap()
                .messages
                .last()
                .unwrap()
                .content,
            "Still here."
        );
        rig.provider.verify().unwrap();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_compaction_threshold_is_0_or_10_to_100_and_defaults_to_80() {
        let rig = rig(vec![]).await;
        assert_eq!(
            load_compact_setting(&rig.store).await.compact_at_percent,
            80
        );
        for refused in [5, 101] {
            let error = save_compact_setting(
                &rig.store,
                CompactSettings {
                    compact_at_percent: refused,
                },
            )
            .await
            .unwrap_err();
            assert_eq!(error.kind, ErrorKind::InvalidInput, "{refused}");
        }
        for accepted in [0, 10, 65, 100] {
            let saved = save_compact_setting(
                &rig.store,
                CompactSettings {
                    compact_at_percent: accepted,
                },
            )
            .await
            .unwrap();
            assert_eq!(saved.compact_at_percent, accepted);
        }
        // A value that is not a percent (written by hand) falls back to the default.
        rig.store
            .settings()
            .set(COMPACT_AT_SETTING, "lots")
            .await
            .unwrap();
        assert_eq!(
            load_compact_setting(&rig.store).await.compact_at_percent,
            80
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn attachments_reach_the_provider_and_stay_with_the_message() {
        let rig = rig(vec![Turn::text("Seen.")]).await;
        let image = crate::chat::attachments::prepare_image_bytes(
            "dot.png",
            &[
                0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 0x0d, 0x49, 0x48, 0x44,
                0x52, 0, 0, 0, 1, 0, 0, 0, 1, 8, 6, 0, 0, 0, 0x1f, 0x15, 0xc4, 0x89, 0, 0, 0, 0x0a,
                0x49, 0x44, 0x41, 0x54, 0x78, 0x9c, 0x63, 0, 1, 0, 0, 5, 0, 1, 0x0d, 0x0a, 0x2d,
                0xb4, 0, 0, 0, 0, 0x49, 0x45, 0x4e, 0x44, 0xae, 0x42, 0x60, 0x82,
            ],
        )
        .unwrap();
        let file = gantry_agent::Attachment::File {
            path: "notes.md".into(),
            text: "[file: notes.md | lines 1-1/1]\n1: remember the milk".into(),
        };
        let message = Message::user("look").with_attachments(vec![file, image.clone()]);
        rig.chat.send_with(message, rig.provider()).await.unwrap();
        rig.finished(1).await;
        let requests = rig.provider.chat_requests();
        let body = requests[0].body.as_ref().unwrap();
        let user = &body["messages"][1];
        assert_eq!(user["role"], "user");
        assert!(
            user["content"][0]["text"]
                .as_str()
                .unwrap()
                .contains("1: remember the milk")
        );
        assert!(
            user["content"][1]["image_url"]["url"]
                .as_str()
                .unwrap()
                .starts_with("data:image/png;base64,iVBOR")
        );
        // Stored with the message and shown again.
        let view = rig.chat.view().await.unwrap();
        assert_eq!(view.messages[0].attachments.len(), 2);
        assert_eq!(view.messages[0].attachments[1], image);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn retry_and_resend_keep_the_attachments_the_user_did_not_remove() {
        let rig = rig(vec![
            Turn::text("One."),
            Turn::text("Again."),
            Turn::text("Edited."),
        ])
        .await;
        let file = |name: &str| gantry_agent::Attachment::File {
            path: name.into(),
            text: format!("[file: {name} | lines 1-1/1]\n1: the text of {name}"),
        };
        let message = Message::user("look").with_attachments(vec![file("a.md"), file("b.md")]);
        rig.chat.send_with(message, rig.provider()).await.unwrap();
        rig.finished(1).await;
        let user_text = |request: usize| {
            let requests = rig.provider.chat_requests();
            let body = requests[request].body.clone().unwrap();
            body["messages"][1]["content"].to_string()
        };
        assert!(user_text(0).contains("the text of a.md") && user_text(0).contains("b.md"));

        // Retry sends the message as it was, attachments included.
        let retried = rig
            .chat
            .retry(crate::checkpoints::OnConflict::Refuse, rig.provider())
            .await
            .unwrap();
        assert!(retried.report.applied, "{retried:?}");
        rig.finished(2).await;
        let retried = user_text(1);
        assert!(
            retried.contains("the text of a.md") && retried.contains("the text of b.md"),
            "{retried}"
        );

        // Edited, with the first attachment removed: the second goes along.
        let request = ResendRequest {
            user_index: 0,
            text: "look again".into(),
            on_conflict: crate::checkpoints::OnConflict::Refuse,
            dropped_attachments: vec![0],
        };
        let resent = rig.chat.resend(&request, rig.provider()).await.unwrap();
        assert!(resent.report.applied, "{resent:?}");
        rig.finished(3).await;
        let edited = user_text(2);
        assert!(edited.contains("look again"), "{edited}");
        assert!(!edited.contains("the text of a.md"), "{edited}");
        assert!(edited.contains("the text of b.md"), "{edited}");
        let view = rig.chat.view().await.unwrap();
        assert_eq!(view.messages[0].attachments, vec![file("b.md")]);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_image_for_a_model_without_images_is_refused_before_sending() {
        let rig = rig(vec![Turn::text("never")]).await;
        let mut config = rig.provider().config().clone();
        config.flags.images = false;
        let blind = Provider::new(config, None, ProviderOptions::default()).unwrap();
        let image = gantry_agent::Attachment::Image {
            name: "x.png".into(),
            mime: "image/png".into(),
            data: "AAAA".into(),
            width: 1,
            height: 1,
        };
        let refused = rig
            .chat
            .send_with(Message::user("see").with_attachments(vec![image]), blind)
            .await
            .unwrap_err();
        assert_eq!(refused.kind, ErrorKind::InvalidInput);
        assert!(
            refused.message.contains("does not accept images"),
            "{refused:?}"
        );
        assert!(rig.provider.chat_requests().is_empty());
        assert!(!rig.chat.is_running());
    }
}
