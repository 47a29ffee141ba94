//! A project's chat: its sessions, the one the front end shows, and the turns running in them.
//!
//! The agent loop is the engine's ([`gantry_agent::Session::run_turn`]); this module decides
//! which session a message goes to and forwards the turn's [`TurnEvent`]s to the webview as
//! [`ChatEvent`]s, tagged with the project and the session so a page that shows another session
//! ignores them (or a tab shows them).
//!
//! - **A runtime per open session** (`runtime.rs`): its [`ToolSession`] (id, grants, file
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
use gantry_tools::{ExternalRule, SessionGrant, ToolManager, ToolSession};
use serde::{Deserialize, Serialize};
use tokio::sync::{OwnedMappedMutexGuard, OwnedMutexGuard};
use tokio_util::sync::CancellationToken;

use crate::chat::drive::{TurnSetting, drive_turn};
use crate::chat::session_hooks::{EndReason, session_end};
use crate::checkpoints::Checkpoints;
use crate::config::hooks::ProjectHooks;
use crate::error::{CommandError, ErrorKind};
use crate::events::{Event, EventSink, emit};
use crate::sessions::start_session;

pub mod activity;
pub mod attachments;
mod changes;
pub mod compaction;
pub mod drive;
pub mod events_log;
pub mod hooks;
pub mod mentions;
mod pages;
#[cfg(test)]
mod parallel_tests;
mod runtime;
pub mod service;
pub mod session_hooks;
pub mod slash;
pub mod slash_files;
pub mod slash_shell;
#[cfg(test)]
mod slash_shell_tests;
#[cfg(test)]
mod slash_tests;
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
    CompactSettings, EditSummaryRequest, load_compact_setting, save_compact_setting,
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
    /// Its last messages, oldest first (older ones come a page at a time, before an ordinal).
    pub messages: Vec<Message>,
    /// The ordinal of the first message in `messages` (0: the whole session is there).
    pub first_ordinal: u32,
    /// How many user messages of the session come before the first message.
    pub users_before: u32,
    /// The ordinals of the tool results sent shortened (their whole text is read on demand).
    pub clipped: Vec<u32>,
    /// Whether a turn is running (or queued) in it.
    pub running: bool,
    /// The `seq` of the session's last event when this was read (0: none): events after it
    /// are what the view does not show yet.
    #[ts(type = "number")]
    pub seq: u64,
    /// Where the running turn began, while one runs: the webview shows the messages up to its
    /// user message and replays the turn's events that follow it (read by their `seq`).
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
    /// The event carries its first [`HEAD_BYTES`] only; the whole one is read on demand by its
    /// call id.
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

/// A message the user sends: its text and what is attached.
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

/// A session and the title it is renamed to.
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
    /// The open sessions' runtimes (see `runtime.rs` for which are kept).
    runtimes: Mutex<Runtimes>,
    /// Held while a fresh chat's first message creates its session, so a second message sent
    /// meanwhile goes to the same session (and is refused as busy) instead of creating another.
    creating: tokio::sync::Mutex<()>,
    /// The provider and model chosen for a fresh chat, given to its session when its first
    /// message creates it.
    pending_model: Mutex<Option<ModelChoice>>,
    /// The last expanded command's prompt and its `allowed-tools`: they apply to the turn that
    /// sends exactly that prompt ([`slash_shell`]).
    pending_turn_rules: Mutex<Option<(String, Vec<ExternalRule>)>>,
    /// The sessions' numbered events, recent ones kept.
    events: Arc<EventLog>,
    /// What each session is doing.
    activities: Arc<SessionActivities>,
    /// The app's limit on turns running at once.
    limit: TurnLimit,
    /// The project's hooks (UserPromptSubmit, Stop), once given.
    hooks: Option<Arc<ProjectHooks>>,
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
            pending_turn_rules: Mutex::new(None),
            events: Arc::new(EventLog::default()),
            limit: TurnLimit::default(),
            hooks: None,
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

    /// Runs the project's hooks around its turns (UserPromptSubmit, Stop).
    #[must_use]
    pub fn with_hooks(mut self, hooks: Arc<ProjectHooks>) -> Self {
        self.hooks = Some(hooks);
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
            .map(|session| session.granted())
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
    pub async fn set_model(&self, choice: Option<ModelChoice>) -> Result<(), CommandError> {
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
        if let Some(hooks) = &self.hooks {
            hooks.forget(id);
            session_end(hooks, id, EndReason::Clear).await;
        }
        self.checkpoints.collect_in_background();
        self.view().await
    }

    /// Runs the SessionEnd hooks (reason `other`) of every session this chat started or
    /// resumed, in the background: the project closes.
    pub fn end_sessions_in_background(&self) {
        let Some(hooks) = self.hooks.clone() else {
            return;
        };
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        runtime.spawn(async move {
            for id in hooks.take_started() {
                session_end(&hooks, &id, EndReason::Other).await;
            }
        });
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
        // A command's allowed-tools apply to the turn its prompt starts; dropped at its end.
        runtime
            .tools()
            .set_turn_rules(self.take_turn_rules(&message.content));
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
            start_session(&self.tools, &self.store, provider.clone(), options, None).await?;
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
                start_session(&self.tools, &self.store, provider.clone(), options, resume).await?;
            *slot = Some(session);
        }
        Ok(())
    }

    /// `runtime`'s engine session, loaded if need be and talking to `provider`, held (its slot
    /// locked) for one turn or compaction.
    async fn session_for(
        &self,
        runtime: &Runtime,
        provider: Provider,
    ) -> Result<OwnedMappedMutexGuard<Option<Session>, Session>, CommandError> {
        let mut slot = Arc::clone(&runtime.engine).lock_owned().await;
        self.load_session(runtime, &mut slot, &provider).await?;
        let mut session = OwnedMutexGuard::try_map(slot, Option::as_mut)
            .map_err(|_| CommandError::internal("the session went away"))?;
        session.set_provider(provider);
        Ok(session)
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
        let mut session = self.session_for(runtime, provider).await?;
        // A settings file edited since the last turn applies from this one on.
        crate::config::rules::reload_external_rules(&self.store, self.project, &self.tools).await;
        // A skill added since the project opened brings the skill tool from this turn on.
        if let Err(error) = crate::config::skills::register_when_found(&self.tools).await {
            tracing::warn!(%error, "could not register the skill tool");
        }
        // The compaction setting applies from the next turn on, also to a loaded session.
        session.set_compact_at_percent(
            compaction::session_options(&self.store)
                .await
                .compact_at_percent,
        );
        let session_id = runtime.id().to_owned();
        let ordinal = u32::try_from(session.transcript().len()).unwrap_or(u32::MAX);
        self.events.begin_turn(&session_id, ordinal);
        let deliver = {
            let sink = Arc::clone(&self.sink);
            let log = Arc::clone(&self.events);
            let project_id = self.project_id;
            let mut release = TurnRelease {
                log: Arc::clone(&self.events),
                runtime: Arc::clone(runtime),
                activities: Arc::clone(&self.activities),
                session_id: session_id.clone(),
                released: false,
            };
            move |event: TurnEvent| {
                let finished = matches!(event, TurnEvent::TurnFinished { .. });
                let event = log.record(ChatEvent::new(project_id, session_id.clone(), event));
                if finished {
                    release.once();
                }
                emit(sink.as_ref(), event);
            }
        };
        let store = self.store.clone();
        let checkpoints = self.checkpoints.clone();
        let hooks = self.hooks.clone();
        let limit = self.limit.clone();
        let activities = Arc::clone(&self.activities);
        let queued = Arc::clone(runtime);
        tokio::spawn(async move {
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
            // Cancelled while queued: the turn saves the message and ends at once, before any
            // request. Every event of the turn is out before a queued turn takes the permit.
            let setting = TurnSetting {
                store: &store,
                checkpoints: &checkpoints,
                hooks: hooks.as_deref(),
            };
            drive_turn(&mut session, message, &cancel, setting, deliver).await;
            drop(permit);
            drop(session);
        });
        Ok(())
    }
}

/// Frees a turn's slot exactly once: when its last event (`turn_finished`) is delivered, or
/// when its delivery ends without one.
struct TurnRelease {
    log: Arc<EventLog>,
    runtime: Arc<Runtime>,
    activities: Arc<SessionActivities>,
    session_id: String,
    released: bool,
}

impl TurnRelease {
    fn once(&mut self) {
        if !self.released {
            self.released = true;
            self.log.end_turn(&self.session_id);
            self.runtime.release(&self.activities);
        }
    }
}

impl Drop for TurnRelease {
    fn drop(&mut self) {
        self.once();
    }
}

#[cfg(test)]
mod hook_tests;
#[cfg(test)]
mod tests;
