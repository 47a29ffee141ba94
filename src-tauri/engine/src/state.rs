//! A window's state behind the commands: the project it shows (with its chat), over what the
//! app's windows share ([`AppShared`]: the store, the pending dialogs, the settings). The
//! windows themselves are listed in [`crate::windows`].
//!
//! Everything here is plain Rust over the engine crates — no Tauri types — so the behaviour of
//! every command is unit-tested without a window; `commands/` only unwraps Tauri's arguments
//! and calls in.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gantry_agent::ContextUsage;
use gantry_store::{Secrets, Store};
use gantry_tools::ApprovalDecision;
use gantry_watch::TreeEntry;
use serde::{Deserialize, Serialize};

use crate::attachments::{
    self, AttachmentRequest, MAX_IMAGES, MAX_MENTIONS, MentionPathRequest, MentionTarget,
    PrepareImageRequest,
};
use crate::audit_view::{AuditEntryView, AuditExport, AuditRequest, DEFAULT_VIEW_LIMIT};
use crate::chat::limit::{MAX_MAX_TURNS, MIN_MAX_TURNS};
use crate::chat::{
    BranchView, ChatView, CompactSettings, DEFAULT_MAX_TURNS, EditSummaryRequest, ResendOutcome,
    ResendRequest, RetryRequest, RevertOutcome, SendMessageRequest, SessionActivity,
    SessionSummary, SwitchBranchOutcome, SwitchBranchRequest, TurnLimit,
};
use crate::checkpoints::{
    ChangesView, CheckpointLimits, CheckpointSettings, RevertRequest, SaveCheckpointSettingsRequest,
};
use crate::dialogs::{DEFAULT_DIALOG_TIMEOUT, DialogRegistry, QuestionAnswer};
use crate::error::CommandError;
use crate::events::{DialogRequest, EventSink, TreeStatus};
use crate::local_servers::{self, LocalServer};
use crate::mentions::{MentionCompletions, MentionQuery};
use crate::model_choice::{self, ChooseModelRequest, ListModelsRequest, ModelChoices};
use crate::preview::{FilePreview, read_preview};
use crate::project::{OpenProject, ProjectInfo, watch_in_background};
use crate::project_commands::{
    CommandSettingsView, RuleView, SaveCommandSettingsRequest, SaveRuleRequest,
};
use crate::provider_settings::{
    self, ProbeProviderRequest, ProviderProbe, ProviderSettings, SaveProviderRequest,
};
use crate::session_tabs::{self, SessionTabs};
use crate::slash_commands::{self, ExpandCommandRequest, SlashCommandView};
use crate::tool_panel::{self, GrantView, SetToolPolicyRequest};
use crate::turn_limit::{SaveTurnLimitRequest, TurnLimitSettings};

/// The longest path accepted from the webview, in bytes.
const MAX_PATH_BYTES: usize = 4096;

/// The local model servers found, for the welcome screen and the empty chat.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LocalServers {
    /// Whether a provider was chosen already.
    pub configured: bool,
    /// The servers that answered, in probing order (Ollama, LM Studio, llama.cpp).
    pub servers: Vec<LocalServer>,
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
    /// the stored setting ([`Settings::with_stored`]), else [`DEFAULT_MAX_TURNS`].
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
            self.max_turns = crate::turn_limit::stored_max_turns(store).await;
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

/// What the webview shows when it (re)loads.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LaunchState {
    /// The open project, if any.
    pub project: Option<ProjectInfo>,
    /// Why the folder named on the command line could not be opened (until a project opens).
    pub error: Option<LaunchError>,
    /// The user's languages as the system gives them (BCP 47 tags, preferred first: on Linux
    /// from `LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`), which the UI follows unless the user
    /// chose a language. Read here rather than from the webview, whose idea of the language
    /// depends on which locales the C library has installed.
    pub system_languages: Vec<String>,
}

/// A folder that could not be opened at launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct LaunchError {
    /// The folder as given.
    pub path: String,
    /// Why it could not be opened.
    pub message: String,
}

/// A project opened before, for the welcome screen.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct RecentProject {
    /// The folder's name.
    pub name: String,
    /// Its absolute path.
    pub path: String,
    /// When it was last opened, in milliseconds since the epoch.
    pub last_opened_at: i64,
    /// Whether the folder is still there.
    pub exists: bool,
}

/// How long a setting must stay put before it is saved.
const SETTING_SETTLE: Duration = Duration::from_millis(250);

/// How many recent projects the welcome screen lists.
const RECENT_PROJECTS: usize = 12;

/// The argument of `open_project`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct OpenProjectRequest {
    /// The folder, as an absolute path.
    pub path: String,
}

/// The argument of `open_project_window`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct OpenProjectWindowRequest {
    /// The folder, as an absolute path; none to let the user pick one.
    #[serde(default)]
    #[ts(optional)]
    pub path: Option<String>,
}

/// The argument of `list_dir`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ListDirRequest {
    /// The directory, project-relative (`""` for the root).
    pub path: String,
}

/// What every window of the app shares: the database and the keychain, the settings, the
/// pending dialogs, where events go, and the counters behind project ids and settled settings.
pub struct AppShared {
    sink: Arc<dyn EventSink>,
    settings: Settings,
    store: Store,
    secrets: Secrets,
    dialogs: Arc<DialogRegistry>,
    /// The limit on turns running at once, shared by every project opened.
    turns: TurnLimit,
    next_project_id: AtomicU32,
    setting_generation: Arc<AtomicU32>,
}

impl AppShared {
    /// The shared part of an app remembering in `store` and sending events through `sink`.
    pub fn new(sink: Arc<dyn EventSink>, settings: Settings, store: Store) -> Self {
        let dialogs = Arc::new(DialogRegistry::new(sink.clone(), settings.dialog_timeout));
        Self {
            turns: TurnLimit::new(settings.max_turns.unwrap_or(DEFAULT_MAX_TURNS)),
            sink,
            settings,
            store,
            secrets: Secrets::new(),
            dialogs,
            next_project_id: AtomicU32::new(0),
            setting_generation: Arc::new(AtomicU32::new(0)),
        }
    }

    /// Gantry's database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The pending approvals and questions of every window.
    pub fn dialogs(&self) -> &Arc<DialogRegistry> {
        &self.dialogs
    }

    /// Saves the app setting `name` once it has stayed the same for a moment (dragging a
    /// window's edge sends many sizes; the last one is kept). Needs a tokio runtime.
    pub fn save_setting_when_settled(&self, name: &'static str, value: String) {
        let generation = self.setting_generation.fetch_add(1, Ordering::Relaxed) + 1;
        let latest = Arc::clone(&self.setting_generation);
        let store = self.store.clone();
        tokio::spawn(async move {
            tokio::time::sleep(SETTING_SETTLE).await;
            if latest.load(Ordering::Relaxed) != generation {
                return;
            }
            if let Err(error) = store.settings().set(name, &value).await {
                tracing::warn!(%error, "cannot remember the window's size");
            }
        });
    }
}

/// One window's state: the project it shows (none on the welcome screen) over what all windows
/// share. Every command of a window goes through its `AppState`.
pub struct AppState {
    shared: Arc<AppShared>,
    project: Mutex<Option<Arc<OpenProject>>>,
    launch_error: Mutex<Option<LaunchError>>,
}

impl std::fmt::Debug for AppState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AppState")
            .field("settings", &self.shared.settings)
            .field("project", &self.current().ok().map(|p| p.info().clone()))
            .finish_non_exhaustive()
    }
}

impl AppState {
    /// The state of an app's only window, with no project open, remembering in `store` and
    /// sending events through `sink`.
    pub fn new(sink: Arc<dyn EventSink>, settings: Settings, store: Store) -> Self {
        Self::in_app(Arc::new(AppShared::new(sink, settings, store)))
    }

    /// The state of a new window of the app whose windows share `shared`, on the welcome
    /// screen.
    pub fn in_app(shared: Arc<AppShared>) -> Self {
        Self {
            shared,
            project: Mutex::new(None),
            launch_error: Mutex::new(None),
        }
    }

    /// Gantry's database.
    pub fn store(&self) -> &Store {
        &self.shared.store
    }

    /// Saves the app setting `name` once it has stayed the same for a moment (see
    /// [`AppShared::save_setting_when_settled`]).
    pub fn save_setting_when_settled(&self, name: &'static str, value: String) {
        self.shared.save_setting_when_settled(name, value);
    }

    /// The pending approvals and questions of every window.
    pub fn dialogs(&self) -> &Arc<DialogRegistry> {
        &self.shared.dialogs
    }

    /// The approvals and questions of the window's project waiting for the user, oldest first
    /// (none on the welcome screen).
    pub fn pending_dialogs(&self) -> Vec<DialogRequest> {
        self.current()
            .map(|project| self.shared.dialogs.pending(project.info().id))
            .unwrap_or_default()
    }

    /// The user's decision on a pending approval of the window's project.
    pub fn resolve_approval(
        &self,
        id: u32,
        decision: ApprovalDecision,
    ) -> Result<(), CommandError> {
        let project = self.current()?;
        self.shared
            .dialogs
            .resolve_approval(project.info().id, id, decision)
    }

    /// The user's answer to a pending question of the window's project.
    pub fn answer_question(&self, id: u32, answer: QuestionAnswer) -> Result<(), CommandError> {
        let project = self.current()?;
        self.shared
            .dialogs
            .answer_question(project.info().id, id, answer)
    }

    /// The open project, or [`crate::error::ErrorKind::NoProject`].
    pub fn current(&self) -> Result<Arc<OpenProject>, CommandError> {
        self.project
            .lock()
            .ok()
            .and_then(|project| project.clone())
            .ok_or_else(CommandError::no_project)
    }

    /// What the webview shows on load.
    pub fn launch_state(&self) -> LaunchState {
        LaunchState {
            project: self.current().ok().map(|project| project.info().clone()),
            error: self
                .launch_error
                .lock()
                .ok()
                .and_then(|error| error.clone()),
            system_languages: sys_locale::get_locales().collect(),
        }
    }

    /// Records that the folder named at launch could not be opened.
    pub fn set_launch_error(&self, path: &Path, error: &CommandError) {
        if let Ok(mut slot) = self.launch_error.lock() {
            *slot = Some(LaunchError {
                path: path.display().to_string(),
                message: error.message.clone(),
            });
        }
    }

    /// Projects opened before, the most recently opened first.
    pub async fn recent_projects(&self) -> Result<Vec<RecentProject>, CommandError> {
        let mut projects = self.shared.store.projects().list().await?;
        projects.sort_by_key(|project| std::cmp::Reverse(project.last_opened_at));
        projects.truncate(RECENT_PROJECTS);
        Ok(projects
            .into_iter()
            .map(|project| RecentProject {
                exists: project.root.is_dir(),
                name: project.name,
                path: project.root.display().to_string(),
                last_opened_at: project.last_opened_at.as_millis(),
            })
            .collect())
    }

    /// Opens the folder at `path` (absolute), closing the project open before, and starts
    /// watching it in the background. Needs a tokio runtime.
    pub async fn open_project(&self, path: PathBuf) -> Result<ProjectInfo, CommandError> {
        check_path(&path.to_string_lossy())?;
        if !path.is_absolute() {
            return Err(CommandError::invalid(format!(
                "the project folder must be an absolute path, not {}",
                path.display()
            )));
        }
        let id = self.shared.next_project_id.fetch_add(1, Ordering::Relaxed) + 1;
        let project = OpenProject::open(
            id,
            &path,
            self.shared.store.clone(),
            &self.shared.dialogs,
            self.shared.sink.clone(),
            self.shared.turns.clone(),
        )
        .await?;
        let project = Arc::new(project);
        let info = project.info().clone();
        let previous = self
            .project
            .lock()
            .map_err(|_| CommandError::internal("the project slot is poisoned"))?
            .replace(project.clone());
        if let Ok(mut error) = self.launch_error.lock() {
            *error = None;
        }
        close_in_background(previous);
        watch_in_background(
            &project,
            self.shared.sink.clone(),
            self.shared.settings.watch_options(),
        );
        crate::mcp_events::forward_in_background(&project, self.shared.sink.clone());
        project.mcp().start_in_background();
        Ok(info)
    }

    /// Closes the open project, if any (back to the welcome screen).
    pub fn close_project(&self) {
        let previous = self
            .project
            .lock()
            .ok()
            .and_then(|mut project| project.take());
        close_in_background(previous);
    }

    /// The visible children of directory `path` of the open project.
    pub async fn list_dir(&self, path: String) -> Result<Vec<TreeEntry>, CommandError> {
        check_path(&path)?;
        let project = self.current()?;
        Ok(tokio::task::spawn_blocking(move || {
            // Before listing: a folder the watcher polls compares its next look with this one.
            project.shown(&path);
            let listing = project.tree().list_dir(&path);
            project.listed(&path);
            listing
        })
        .await??)
    }

    /// Whether the open project's tree is kept current.
    pub fn tree_status(&self) -> Result<TreeStatus, CommandError> {
        Ok(self.current()?.watch_status())
    }

    /// The open project's sessions.
    pub async fn list_sessions(&self) -> Result<Vec<SessionSummary>, CommandError> {
        self.current()?.chat().sessions().await
    }

    /// The open project's current session and its messages.
    pub async fn chat_view(&self) -> Result<ChatView, CommandError> {
        self.current()?.chat().view().await
    }

    /// Switches to session `id`, or to a fresh chat for `None`.
    pub async fn switch_session(&self, id: Option<String>) -> Result<ChatView, CommandError> {
        self.current()?.chat().switch(id).await
    }

    /// Renames session `id`.
    pub async fn rename_session(
        &self,
        id: &str,
        title: &str,
    ) -> Result<SessionSummary, CommandError> {
        self.current()?.chat().rename(id, title).await
    }

    /// Deletes session `id`.
    pub async fn delete_session(&self, id: &str) -> Result<ChatView, CommandError> {
        self.current()?.chat().delete(id).await
    }

    /// The events of session `id` after `after`, for a webview that missed some.
    pub async fn chat_events_since(
        &self,
        request: &crate::chat::EventsSinceRequest,
    ) -> Result<crate::chat::EventsSince, CommandError> {
        self.current()?
            .chat()
            .events_since(&request.session_id, request.after)
            .await
    }

    /// About `count` messages of a session before ordinal `before` (the webview scrolled up).
    pub async fn chat_messages_before(
        &self,
        request: &crate::chat::MessagesBeforeRequest,
    ) -> Result<crate::chat::MessagePage, CommandError> {
        self.current()?
            .chat()
            .messages_before(&request.session_id, request.before, request.count)
            .await
    }

    /// The whole text of one message of a session (a tool result sent shortened).
    pub async fn chat_message_text(
        &self,
        request: &crate::chat::MessageTextRequest,
    ) -> Result<String, CommandError> {
        self.current()?
            .chat()
            .message_text(
                &request.session_id,
                request.ordinal,
                request.tool_call_id.as_deref(),
            )
            .await
    }

    /// The messages of the open project's sessions that contain `text`.
    pub async fn search_sessions(
        &self,
        text: &str,
    ) -> Result<Vec<crate::session_search::SearchHitView>, CommandError> {
        let project = self.current()?;
        crate::session_search::search_sessions(project.store(), project.store_project(), text).await
    }

    /// Writes session `request.id` of the open project to `path` (atomically).
    pub async fn export_session(
        &self,
        request: &crate::session_export::ExportSessionRequest,
        path: PathBuf,
    ) -> Result<crate::session_export::SessionExport, CommandError> {
        let project = self.current()?;
        let (text, messages) = crate::session_export::export_session(
            project.store(),
            project.store_project(),
            &request.id,
            request.format,
        )
        .await?;
        let written = path.clone();
        tokio::task::spawn_blocking(move || crate::session_export::write_export(&written, &text))
            .await??;
        Ok(crate::session_export::SessionExport {
            path: path.display().to_string(),
            messages,
        })
    }

    /// Sends `text` to the model in the current session, with the provider and model it was
    /// switched to, else the active provider (with none chosen: a local server found).
    pub async fn send_message(&self, text: &str) -> Result<String, CommandError> {
        self.send_message_with(&SendMessageRequest {
            text: text.to_owned(),
            attachments: Vec::new(),
        })
        .await
    }

    /// [`AppState::send_message`] with the request's attachments: mentioned files and folders
    /// are read now (through the project's confinement), prepared images checked again.
    pub async fn send_message_with(
        &self,
        request: &SendMessageRequest,
    ) -> Result<String, CommandError> {
        let project = self.current()?;
        let mentions = request
            .attachments
            .iter()
            .filter(|a| matches!(a, AttachmentRequest::Mention { .. }))
            .count();
        if mentions > MAX_MENTIONS {
            return Err(CommandError::invalid(format!(
                "a message can mention at most {MAX_MENTIONS} files and folders"
            )));
        }
        if request.attachments.len() - mentions > MAX_IMAGES {
            return Err(CommandError::invalid(format!(
                "a message can carry at most {MAX_IMAGES} images"
            )));
        }
        let built = {
            let project = Arc::clone(&project);
            let wanted = request.attachments.clone();
            tokio::task::spawn_blocking(move || {
                wanted
                    .into_iter()
                    .map(|wanted| match wanted {
                        AttachmentRequest::Mention { path } => {
                            attachments::mention_attachment(project.root(), project.tree(), &path)
                        }
                        AttachmentRequest::Image { image } => attachments::check_prepared(&image)
                            .map(|()| image)
                            .map_err(CommandError::from),
                    })
                    .collect::<Result<Vec<_>, _>>()
            })
            .await??
        };
        let provider = model_choice::session_provider(&self.shared.store, project.chat()).await?;
        let message = gantry_agent::Message::user(request.text.clone()).with_attachments(built);
        project.chat().send_with(message, provider).await
    }

    /// The open project's files and folders that best match what follows an `@`.
    pub fn complete_mentions(
        &self,
        query: &MentionQuery,
    ) -> Result<MentionCompletions, CommandError> {
        Ok(self.current()?.mentions().search(&query.query, query.limit))
    }

    /// Checks a path to mention (a file dragged from the tree, or from the desktop: absolute,
    /// and refused when outside the project) and returns it relative to the project.
    pub async fn mention_path(
        &self,
        request: &MentionPathRequest,
    ) -> Result<MentionTarget, CommandError> {
        let project = self.current()?;
        let path = request.path.clone();
        tokio::task::spawn_blocking(move || attachments::mention_target(project.root(), &path))
            .await?
    }

    /// Checks and downscales a pasted or dropped image; refused at once when the current
    /// session's model does not accept images.
    pub async fn prepare_image(
        &self,
        request: PrepareImageRequest,
    ) -> Result<gantry_agent::Attachment, CommandError> {
        let project = self.current()?;
        if let Ok(provider) =
            model_choice::session_provider(&self.shared.store, project.chat()).await
            && !provider.flags().images
        {
            return Err(CommandError::invalid(format!(
                "{} ({}) does not accept images: choose a model that does (or turn on \
                 \"accepts images\" for this provider in the settings)",
                provider.config().model,
                provider.config().name
            )));
        }
        Ok(tokio::task::spawn_blocking(move || {
            attachments::prepare_image(&request.name, &request.data)
        })
        .await??)
    }

    /// The open project's own slash commands (`.gantry/commands/*.md`).
    pub async fn slash_commands(&self) -> Result<Vec<SlashCommandView>, CommandError> {
        let project = self.current()?;
        Ok(
            tokio::task::spawn_blocking(move || slash_commands::project_commands(project.root()))
                .await?,
        )
    }

    /// A project command's prompt with its arguments.
    pub async fn expand_slash_command(
        &self,
        request: &ExpandCommandRequest,
    ) -> Result<String, CommandError> {
        let project = self.current()?;
        let (name, arguments) = (request.name.clone(), request.arguments.clone());
        tokio::task::spawn_blocking(move || {
            slash_commands::expand(project.root(), &name, &arguments)
        })
        .await?
    }

    /// Asks the model for a summary of the current session and continues from it (`/compact`).
    pub async fn compact_session(&self) -> Result<ChatView, CommandError> {
        let project = self.current()?;
        let provider = model_choice::session_provider(&self.shared.store, project.chat()).await?;
        project.chat().compact(provider).await
    }

    /// How full the current session's window is (`None`: a fresh chat, or a turn is running).
    pub async fn context_usage(&self) -> Result<Option<ContextUsage>, CommandError> {
        let project = self.current()?;
        let provider = model_choice::session_provider(&self.shared.store, project.chat()).await?;
        project.chat().context_usage(provider).await
    }

    /// The compaction threshold (Settings).
    pub async fn compact_settings(&self) -> CompactSettings {
        crate::chat::compact_settings(&self.shared.store).await
    }

    /// Saves the compaction threshold.
    pub async fn save_compact_settings(
        &self,
        settings: CompactSettings,
    ) -> Result<CompactSettings, CommandError> {
        crate::chat::save_compact_settings(&self.shared.store, settings).await
    }

    /// Replaces the text of a summary of the current session.
    pub async fn edit_summary(
        &self,
        request: &EditSummaryRequest,
    ) -> Result<ChatView, CommandError> {
        self.current()?.chat().edit_summary(request).await
    }

    /// The models the current session's provider (or `request.provider`) lists, with the
    /// window and the providers to switch to (the chat header's model picker).
    pub async fn list_models(
        &self,
        request: &ListModelsRequest,
    ) -> Result<ModelChoices, CommandError> {
        let project = self.current()?;
        model_choice::choices(
            &self.shared.store,
            project.chat(),
            request.provider.as_deref(),
        )
        .await
    }

    /// Switches the current session to a provider and model (or back to the active provider).
    pub async fn choose_model(
        &self,
        request: ChooseModelRequest,
    ) -> Result<ModelChoices, CommandError> {
        let project = self.current()?;
        model_choice::choose(&self.shared.store, project.chat(), request).await?;
        model_choice::choices(&self.shared.store, project.chat(), None).await
    }

    /// The local model servers that answer, and whether a provider was chosen (the first
    /// run's offer).
    pub async fn local_servers(&self) -> Result<LocalServers, CommandError> {
        let (configured, servers) = tokio::join!(
            provider_settings::configured(&self.shared.store),
            local_servers::detect()
        );
        Ok(LocalServers {
            configured: configured?,
            servers,
        })
    }

    /// Stops the turn of the open project's shown session, if any.
    pub fn cancel_turn(&self) -> Result<(), CommandError> {
        self.current()?.chat().cancel();
        Ok(())
    }

    /// Stops the turn of session `id` of the open project (running or queued), if any.
    pub async fn cancel_session_turn(&self, id: &str) -> Result<(), CommandError> {
        self.current()?.chat().cancel_session(id).await
    }

    /// The sessions the open project's window shows as tabs (see [`crate::session_tabs`]).
    pub async fn session_tabs(&self) -> Result<SessionTabs, CommandError> {
        let project = self.current()?;
        session_tabs::load(project.store(), project.store_project()).await
    }

    /// Remembers the open project's tabs; returns those kept.
    pub async fn save_session_tabs(&self, tabs: SessionTabs) -> Result<SessionTabs, CommandError> {
        let project = self.current()?;
        session_tabs::save(project.store(), project.store_project(), tabs).await
    }

    /// The open project's sessions that are not idle: queued, running, or waiting for the user.
    pub fn running_sessions(&self) -> Result<Vec<SessionActivity>, CommandError> {
        Ok(self.current()?.chat().running_sessions())
    }

    /// The app's limit on turns running at once.
    pub fn turn_limit(&self) -> &TurnLimit {
        &self.shared.turns
    }

    /// The app's turn limit and how many turns run now, as the Settings dialog shows them.
    pub fn turn_limit_settings(&self) -> TurnLimitSettings {
        crate::turn_limit::turn_limit_settings(
            &self.shared.turns,
            self.shared.settings.max_turns_from_env,
        )
    }

    /// Changes the app's turn limit at once, for every project, and remembers it.
    pub async fn save_turn_limit_settings(
        &self,
        request: SaveTurnLimitRequest,
    ) -> Result<TurnLimitSettings, CommandError> {
        crate::turn_limit::save_turn_limit_settings(
            &self.shared.store,
            &self.shared.turns,
            self.shared.settings.max_turns_from_env,
            request,
        )
        .await
    }

    /// What the open project's current session changed in its files.
    pub async fn changes_view(&self) -> Result<ChangesView, CommandError> {
        self.current()?.chat().changes().await
    }

    /// Reverts part of the current session's changes.
    pub async fn revert_changes(
        &self,
        request: &RevertRequest,
    ) -> Result<RevertOutcome, CommandError> {
        self.current()?.chat().revert(request).await
    }

    /// Forgets the current session's checkpoints of a file, or of every file.
    pub async fn accept_changes(&self, path: Option<&str>) -> Result<ChangesView, CommandError> {
        if let Some(path) = path {
            check_path(path)?;
        }
        self.current()?.chat().accept(path).await
    }

    /// Edit and resend from an earlier message, with the active provider.
    pub async fn resend_message(
        &self,
        request: &ResendRequest,
    ) -> Result<ResendOutcome, CommandError> {
        let project = self.current()?;
        let provider = provider_settings::active_provider(&self.shared.store).await?;
        project.chat().resend(request, provider).await
    }

    /// Re-runs the last turn, with the active provider.
    pub async fn retry_turn(&self, request: &RetryRequest) -> Result<ResendOutcome, CommandError> {
        let project = self.current()?;
        let provider = provider_settings::active_provider(&self.shared.store).await?;
        project.chat().retry(request.on_conflict, provider).await
    }

    /// The current session's set-aside versions.
    pub async fn chat_branches(&self) -> Result<Vec<BranchView>, CommandError> {
        self.current()?.chat().branches().await
    }

    /// Returns to a set-aside version of the current session.
    pub async fn switch_branch(
        &self,
        request: &SwitchBranchRequest,
    ) -> Result<SwitchBranchOutcome, CommandError> {
        self.current()?.chat().switch_branch(request).await
    }

    /// The checkpoint limits, and what the open project's checkpoints take.
    pub async fn checkpoint_settings(&self) -> Result<CheckpointSettings, CommandError> {
        let limits = CheckpointLimits::load(&self.shared.store).await;
        let used_bytes = match self.current() {
            Ok(project) => Some(project.chat().checkpoints().used_bytes().await),
            Err(_) => None,
        };
        Ok(CheckpointSettings {
            max_mb: limits.max_mb,
            max_age_days: limits.max_age_days,
            used_bytes,
        })
    }

    /// Saves the checkpoint limits (for every project) and applies them to the open one.
    pub async fn save_checkpoint_settings(
        &self,
        request: &SaveCheckpointSettingsRequest,
    ) -> Result<CheckpointSettings, CommandError> {
        let limits = request.limits()?;
        limits.save(&self.shared.store).await?;
        if let Ok(project) = self.current() {
            let checkpoints = project.chat().checkpoints();
            checkpoints.set_limits(limits);
            checkpoints.collect_in_background();
        }
        self.checkpoint_settings().await
    }

    /// The provider settings.
    pub async fn provider_settings(&self) -> Result<ProviderSettings, CommandError> {
        provider_settings::settings(&self.shared.store, &self.shared.secrets).await
    }

    /// Saves a provider and makes it the active one.
    pub async fn save_provider(
        &self,
        request: SaveProviderRequest,
    ) -> Result<ProviderSettings, CommandError> {
        provider_settings::save(&self.shared.store, &self.shared.secrets, request).await
    }

    /// Asks a provider for its models (the settings' connection test).
    pub async fn probe_provider(
        &self,
        request: ProbeProviderRequest,
    ) -> Result<ProviderProbe, CommandError> {
        provider_settings::probe(&self.shared.secrets, request).await
    }

    /// Removes a provider's key from the keychain.
    pub async fn delete_provider_key(&self, name: &str) -> Result<ProviderSettings, CommandError> {
        provider_settings::delete_key(&self.shared.store, &self.shared.secrets, name).await
    }

    /// The open project's tools with the policies in force.
    pub fn list_tools(&self) -> Result<Vec<gantry_tools::ToolInfo>, CommandError> {
        Ok(tool_panel::list(&*self.current()?))
    }

    /// Sets a tool's policy in the open project (at once, and saved); returns the tools.
    pub async fn set_tool_policy(
        &self,
        request: &SetToolPolicyRequest,
    ) -> Result<Vec<gantry_tools::ToolInfo>, CommandError> {
        tool_panel::set_policy(&*self.current()?, request).await
    }

    /// Returns the open project's tools to their defaults (and saves that); returns the tools.
    pub async fn reset_tool_policies(&self) -> Result<Vec<gantry_tools::ToolInfo>, CommandError> {
        tool_panel::reset_policies(&*self.current()?).await
    }

    /// What the open project's current session has allowed.
    pub fn session_grants(&self) -> Result<Vec<GrantView>, CommandError> {
        Ok(tool_panel::grants(&*self.current()?))
    }

    /// Withdraws one of the current session's grants; returns those left.
    pub fn revoke_grant(
        &self,
        grant: &gantry_tools::SessionGrant,
    ) -> Result<Vec<GrantView>, CommandError> {
        tool_panel::revoke(&*self.current()?, grant)
    }

    /// How the open project's commands run: sandboxed or why not, network, writable folders,
    /// variables passed on purpose.
    pub fn command_settings(&self) -> Result<CommandSettingsView, CommandError> {
        Ok(self.current()?.commands().settings())
    }

    /// Saves and applies the open project's command settings; returns them as they are now.
    pub async fn save_command_settings(
        &self,
        request: &SaveCommandSettingsRequest,
    ) -> Result<CommandSettingsView, CommandError> {
        self.current()?.commands().save_settings(request).await
    }

    /// The open project's rules, with how many calls each decided.
    pub async fn tool_rules(&self) -> Result<Vec<RuleView>, CommandError> {
        self.current()?.commands().rules().await
    }

    /// Adds or changes a rule of the open project (it holds for the next call); returns the
    /// rules.
    pub async fn save_tool_rule(
        &self,
        request: &SaveRuleRequest,
    ) -> Result<Vec<RuleView>, CommandError> {
        self.current()?.commands().save_rule(request).await
    }

    /// Removes a rule of the open project; returns the rules left.
    pub async fn remove_tool_rule(&self, id: i64) -> Result<Vec<RuleView>, CommandError> {
        self.current()?.commands().remove_rule(id).await
    }

    /// The open project's tool calls that pass `request`, newest first (at most
    /// [`DEFAULT_VIEW_LIMIT`] unless the request says otherwise), with their sessions' titles.
    pub async fn audit_log(
        &self,
        request: &AuditRequest,
    ) -> Result<Vec<AuditEntryView>, CommandError> {
        let filter = request.to_filter(Some(DEFAULT_VIEW_LIMIT))?;
        let project = self.current()?;
        let store = project.store();
        let entries = store.audit().list(project.store_project(), &filter).await?;
        let titles: std::collections::HashMap<i64, String> = store
            .sessions()
            .list(project.store_project())
            .await?
            .into_iter()
            .map(|session| (session.id.0, session.title))
            .collect();
        Ok(entries
            .into_iter()
            .map(|entry| AuditEntryView::new(entry, &titles))
            .collect())
    }

    /// Writes the open project's tool calls that pass `request` (all of them unless it names a
    /// limit) to `path` as JSON lines, atomically.
    pub async fn export_audit(
        &self,
        request: &AuditRequest,
        path: PathBuf,
    ) -> Result<AuditExport, CommandError> {
        let filter = request.to_filter(None)?;
        let project = self.current()?;
        let entries = project
            .store()
            .audit()
            .list(project.store_project(), &filter)
            .await?;
        let written = path.clone();
        let count = tokio::task::spawn_blocking(move || {
            crate::audit_view::write_json_lines(&written, &entries)
        })
        .await??;
        Ok(AuditExport {
            path: path.display().to_string(),
            count,
        })
    }

    /// The read-only preview of file `path` of the open project.
    pub async fn read_preview(&self, path: String) -> Result<FilePreview, CommandError> {
        check_path(&path)?;
        let project = self.current()?;
        tokio::task::spawn_blocking(move || read_preview(project.root(), &path)).await?
    }
}

/// Stops a closed project (its turn, watcher and MCP servers) off the async workers (stopping
/// the watcher joins threads).
fn close_in_background(project: Option<Arc<OpenProject>>) {
    if let Some(project) = project {
        let stop = move || project.close();
        if tokio::runtime::Handle::try_current().is_ok() {
            tokio::task::spawn_blocking(stop);
        } else {
            stop();
        }
    }
}

fn check_path(path: &str) -> Result<(), CommandError> {
    if path.len() > MAX_PATH_BYTES {
        return Err(CommandError::invalid("the path is too long"));
    }
    if path.contains('\0') {
        return Err(CommandError::invalid("the path contains a NUL byte"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::time::Instant;

    use serde_json::json;

    use super::*;
    use crate::error::ErrorKind;
    use crate::events::RecordingSink;

    #[test]
    fn the_environments_turn_limit_is_kept_within_the_bounds_the_dialog_names() {
        assert_eq!(env_turn_limit(None), None);
        assert_eq!(env_turn_limit(Some(0)), None);
        assert_eq!(env_turn_limit(Some(3)), Some(3));
        assert_eq!(env_turn_limit(Some(32)), Some(MAX_MAX_TURNS));
    }

    async fn state() -> (Arc<RecordingSink>, AppState) {
        let sink = Arc::new(RecordingSink::default());
        let data = tempfile::tempdir().unwrap().keep();
        let store = Store::open(data.join("gantry.db")).await.unwrap();
        let state = AppState::new(sink.clone(), Settings::default(), store);
        (sink, state)
    }

    fn project() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::write(root.join(".gitignore"), "*.log\n").unwrap();
        std::fs::create_dir_all(root.join("src/nested")).unwrap();
        std::fs::create_dir_all(root.join("node_modules/pkg")).unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}\n").unwrap();
        std::fs::write(root.join("debug.log"), "noise").unwrap();
        std::fs::write(root.join("README.md"), "# hi\n").unwrap();
        dir
    }

    async fn wait_for(sink: &RecordingSink, name: &str, count: usize) -> Vec<serde_json::Value> {
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            let events = sink.named(name);
            if events.len() >= count {
                return events;
            }
            assert!(
                Instant::now() < deadline,
                "no {name} event; got {:?}",
                sink.events()
            );
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn commands_need_an_open_project() {
        let (_sink, state) = state().await;
        assert_eq!(
            state.list_dir(String::new()).await.unwrap_err().kind,
            ErrorKind::NoProject
        );
        assert_eq!(
            state.read_preview("a".into()).await.unwrap_err().kind,
            ErrorKind::NoProject
        );
        let launch = state.launch_state();
        assert_eq!((launch.project, launch.error), (None, None));
        assert!(state.recent_projects().await.unwrap().is_empty());
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn sessions_are_stopped_by_id_and_the_turn_limit_is_the_apps() {
        assert_eq!(Settings::default().max_turns, None);
        let sink = Arc::new(RecordingSink::default());
        let data = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let settings = Settings {
            max_turns: Some(2),
            ..Settings::default()
        };
        let state = AppState::new(sink, settings, store);
        assert_eq!(state.turn_limit().max(), 2);
        assert_eq!(
            state.running_sessions().unwrap_err().kind,
            ErrorKind::NoProject
        );
        let dir = project();
        state.open_project(dir.path().to_path_buf()).await.unwrap();
        assert!(state.running_sessions().unwrap().is_empty());
        let project = state.current().unwrap();
        let stored = project
            .store()
            .sessions()
            .create(project.store_project(), "t", None)
            .await
            .unwrap();
        // Stopping a session with no turn is harmless; a session of no project is not found.
        state
            .cancel_session_turn(&stored.id.to_string())
            .await
            .unwrap();
        assert_eq!(
            state.cancel_session_turn("424242").await.unwrap_err().kind,
            ErrorKind::NotFound
        );
        let listed = state.list_sessions().await.unwrap();
        assert_eq!(listed[0].activity, crate::chat::ActivityState::Idle);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn bad_folders_are_refused_with_a_reason() {
        let (_sink, state) = state().await;
        let dir = tempfile::tempdir().unwrap();
        let missing = state
            .open_project(dir.path().join("missing"))
            .await
            .unwrap_err();
        assert_eq!(missing.kind, ErrorKind::NotFound, "{missing}");
        std::fs::write(dir.path().join("file"), "").unwrap();
        let file = state
            .open_project(dir.path().join("file"))
            .await
            .unwrap_err();
        assert_eq!(file.kind, ErrorKind::NotADirectory, "{file}");
        let relative = state.open_project("relative/dir".into()).await.unwrap_err();
        assert_eq!(relative.kind, ErrorKind::InvalidInput);
        let nul = state.open_project("/tmp/a\0b".into()).await.unwrap_err();
        assert_eq!(nul.kind, ErrorKind::InvalidInput);

        state.set_launch_error(&dir.path().join("missing"), &missing);
        let launch = state.launch_state();
        assert_eq!(launch.project, None);
        assert!(launch.error.unwrap().message.contains("missing"));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_open_project_lists_lazily_previews_and_reports_changes() {
        let (sink, state) = state().await;
        let dir = project();
        let info = state.open_project(dir.path().to_path_buf()).await.unwrap();
        assert_eq!(info.id, 1);
        assert_eq!(
            info.path,
            dir.path().canonicalize().unwrap().display().to_string()
        );
        assert_eq!(state.launch_state().project, Some(info.clone()));

        let root: Vec<_> = state
            .list_dir(String::new())
            .await
            .unwrap()
            .into_iter()
            .map(|entry| entry.path)
            .collect();
        assert_eq!(
            root,
            ["src", ".gitignore", "README.md"],
            "no log, no node_modules"
        );
        let src: Vec<_> = state
            .list_dir("src".into())
            .await
            .unwrap()
            .into_iter()
            .map(|entry| entry.path)
            .collect();
        assert_eq!(src, ["src/nested", "src/main.rs"]);
        assert_eq!(
            state
                .list_dir("node_modules".into())
                .await
                .unwrap_err()
                .kind,
            ErrorKind::Ignored
        );
        assert_eq!(
            state.list_dir("../".into()).await.unwrap_err().kind,
            ErrorKind::OutsideProject
        );
        assert!(matches!(
            state.read_preview("src/main.rs".into()).await.unwrap(),
            FilePreview::Text { .. }
        ));
        assert_eq!(
            state.read_preview("../x".into()).await.unwrap_err().kind,
            ErrorKind::OutsideProject
        );

        let status = wait_for(&sink, "tree:status", 1).await;
        assert_eq!(
            status[0],
            json!({"projectId": 1, "state": {"state": "watching"}})
        );
        std::fs::write(dir.path().join("src/new.rs"), "").unwrap();
        let changed = wait_for(&sink, "tree:changed", 1).await;
        assert_eq!(
            changed[0],
            json!({"projectId": 1, "changes": [{"kind": "created", "path": "src/new.rs", "isDir": false}]})
        );

        // Opening another project replaces the first and stops its watcher.
        let other = tempfile::tempdir().unwrap();
        let second = state
            .open_project(other.path().to_path_buf())
            .await
            .unwrap();
        assert_eq!(second.id, 2);
        wait_for(&sink, "tree:status", 2).await;
        std::fs::write(dir.path().join("src/late.rs"), "").unwrap();
        tokio::time::sleep(Duration::from_millis(300)).await;
        assert!(
            sink.named("tree:changed")
                .iter()
                .all(|event| event["projectId"] == 1 && !event.to_string().contains("late.rs")),
            "{:?}",
            sink.named("tree:changed")
        );

        state.close_project();
        assert_eq!(state.launch_state().project, None);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn past_the_watch_cap_the_user_is_told_and_a_shown_folder_is_polled() {
        let sink = Arc::new(RecordingSink::default());
        let data = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let settings = Settings {
            watch_max_watches: Some(1),
            watch_poll_interval: Duration::from_millis(100),
            ..Settings::default()
        };
        let state = AppState::new(sink.clone(), settings, store);
        let dir = project();
        state.open_project(dir.path().to_path_buf()).await.unwrap();

        // Only the root is watched: src/ and src/nested/ are left over, and the user is told.
        let status = wait_for(&sink, "tree:status", 1).await;
        assert_eq!(
            status[0],
            json!({"projectId": 1, "state": {"state": "watching",
                "limit": {"watched": 1, "unwatched": 2, "cap": 1}}})
        );
        assert_eq!(
            state.tree_status().unwrap().state,
            state.current().unwrap().watch_status().state
        );

        // The webview lists src/ (it is open in the tree): it is polled from then on, and a
        // file made there reaches the tree as if it were watched.
        state.list_dir("src".into()).await.unwrap();
        std::fs::write(dir.path().join("src/polled.rs"), "").unwrap();
        let changed = wait_for(&sink, "tree:changed", 1).await;
        assert_eq!(
            changed[0],
            json!({"projectId": 1, "changes": [{"kind": "created", "path": "src/polled.rs", "isDir": false}]})
        );
        // A folder that appears there is past the cap too: the status says so again.
        std::fs::create_dir(dir.path().join("src/more")).unwrap();
        let status = wait_for(&sink, "tree:status", 2).await;
        assert_eq!(status[1]["state"]["limit"]["unwatched"], 3);
        state.close_project();
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_audit_log_lists_filters_and_exports_the_projects_calls() {
        let (_sink, state) = state().await;
        let dir = project();
        state.open_project(dir.path().to_path_buf()).await.unwrap();
        let open = state.current().unwrap();
        let read = open
            .tools()
            .dispatch(
                "read_file",
                json!({"path": "README.md"}),
                &gantry_tools::CallContext::detached(),
            )
            .await;
        assert_eq!(read.kind, gantry_tools::ObservationKind::Ok);
        // DANGEROUS and disabled by default: refused without asking anyone.
        open.tools()
            .dispatch(
                "run_command",
                json!({"command": "echo hi"}),
                &gantry_tools::CallContext::detached(),
            )
            .await;

        let all = state.audit_log(&AuditRequest::default()).await.unwrap();
        let seen: Vec<_> = all
            .iter()
            .map(|entry| {
                (
                    entry.tool.as_str(),
                    entry.decision.kind.as_str(),
                    entry.outcome.as_str(),
                )
            })
            .collect();
        assert_eq!(
            seen,
            [
                ("run_command", "disabled", "disabled"),
                ("read_file", "auto", "ok")
            ]
        );
        assert_eq!(all[1].arguments, json!({"path": "README.md"}));
        assert!(all[1].result_excerpt.contains("# hi"), "{:?}", all[1]);

        let disabled = AuditRequest {
            decision: Some(gantry_tools::DecisionKind::Disabled),
            ..AuditRequest::default()
        };
        let only = state.audit_log(&disabled).await.unwrap();
        assert_eq!(only.len(), 1);
        assert_eq!(only[0].tool, "run_command");
        let bad = AuditRequest {
            session: Some("not-a-session".into()),
            ..AuditRequest::default()
        };
        assert_eq!(
            state.audit_log(&bad).await.unwrap_err().kind,
            ErrorKind::InvalidInput
        );

        let out = tempfile::tempdir().unwrap();
        let path = out.path().join("audit.jsonl");
        let written = state
            .export_audit(&AuditRequest::default(), path.clone())
            .await
            .unwrap();
        assert_eq!(written.count, 2);
        let lines: Vec<serde_json::Value> = std::fs::read_to_string(&path)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str(line).unwrap())
            .collect();
        assert_eq!(lines.len(), 2);
        assert_eq!(lines[0]["tool"], "run_command");
        assert_eq!(lines[1]["decision"]["kind"], "auto");
        state.close_project();
    }
}
