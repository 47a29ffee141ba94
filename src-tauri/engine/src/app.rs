//! The app and its windows as the commands reach them: [`App`] is what every window shares (the
//! store and the keychain, the settings, the pending dialogs, the limit on turns), [`Window`] is
//! one window's slot for the project it shows, and a [`Service`] is a room of the engine that a
//! command reaches through the window it came from.
//!
//! A command is one table line in the desktop shell and one method of a service here: the shell
//! finds the window's [`Window`], builds the service the table names with [`Service::of`], and
//! calls the method. Everything is plain Rust (no Tauri types), so every command is tested
//! without a window.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use gantry_store::{Secrets, Store};

use crate::chat::{DEFAULT_MAX_TURNS, TurnLimit};
use crate::dialogs::DialogRegistry;
use crate::error::CommandError;
use crate::events::EventSink;
use crate::notifications::{Notifier, Observing};
use crate::project::service::LaunchError;
use crate::project::{OpenProject, ProjectInfo, watch_in_background};
use crate::settings::Settings;

/// The longest path accepted from the webview, in bytes.
const MAX_PATH_BYTES: usize = 4096;

/// How long a setting must stay put before it is saved.
const SETTING_SETTLE: Duration = Duration::from_millis(250);

/// A room of the engine that commands reach: built for the window a command came from.
pub trait Service: Sized {
    /// This service as `window` sees it; an error when it needs a project and the window shows
    /// none ([`crate::ErrorKind::NoProject`]).
    fn of(window: &Arc<Window>) -> Result<Self, CommandError>;
}

/// What every window of the app shares: the database and the keychain, the settings, the
/// pending dialogs, where events go (watched by the notifier), and the counters behind project
/// ids and settled settings.
pub struct App {
    sink: Arc<dyn EventSink>,
    settings: Settings,
    store: Store,
    secrets: Secrets,
    dialogs: Arc<DialogRegistry>,
    /// Watches the events and shows desktop notifications about them.
    notifier: Arc<Notifier>,
    /// The limit on turns running at once, shared by every project opened.
    turns: TurnLimit,
    next_project_id: AtomicU32,
    setting_generation: Arc<AtomicU32>,
}

impl App {
    /// An app remembering in `store` and sending events through `sink`.
    pub fn new(sink: Arc<dyn EventSink>, settings: Settings, store: Store) -> Self {
        let notifier = Arc::new(Notifier::new(store.clone()));
        let sink: Arc<dyn EventSink> = Arc::new(Observing::new(sink, Arc::clone(&notifier)));
        let dialogs = Arc::new(DialogRegistry::new(sink.clone(), settings.dialog_timeout));
        Self {
            turns: TurnLimit::new(settings.max_turns.unwrap_or(DEFAULT_MAX_TURNS)),
            sink,
            settings,
            store,
            secrets: Secrets::new(),
            dialogs,
            notifier,
            next_project_id: AtomicU32::new(0),
            setting_generation: Arc::new(AtomicU32::new(0)),
        }
    }

    /// Gantry's database.
    pub fn store(&self) -> &Store {
        &self.store
    }

    /// The OS keychain.
    pub fn secrets(&self) -> &Secrets {
        &self.secrets
    }

    /// The tunables read at start.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Where events go.
    pub fn sink(&self) -> &Arc<dyn EventSink> {
        &self.sink
    }

    /// The pending approvals and questions of every window.
    pub fn dialogs(&self) -> &Arc<DialogRegistry> {
        &self.dialogs
    }

    /// The desktop notifications about the events sent.
    pub fn notifier(&self) -> &Arc<Notifier> {
        &self.notifier
    }

    /// The app's limit on turns running at once.
    pub fn turn_limit(&self) -> &TurnLimit {
        &self.turns
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

    fn next_project_id(&self) -> u32 {
        self.next_project_id.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// One window: the project it shows (none on the welcome screen) over what all windows share.
pub struct Window {
    app: Arc<App>,
    project: Mutex<Option<Arc<OpenProject>>>,
    launch_error: Mutex<Option<LaunchError>>,
}

impl std::fmt::Debug for Window {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Window")
            .field("settings", &self.app.settings)
            .field("project", &self.current().ok().map(|p| p.info().clone()))
            .finish_non_exhaustive()
    }
}

impl Window {
    /// A new window of `app`, on the welcome screen.
    pub fn new(app: Arc<App>) -> Self {
        Self {
            app,
            project: Mutex::new(None),
            launch_error: Mutex::new(None),
        }
    }

    /// The only window of a new app remembering in `store` and sending events through `sink`
    /// (what the tests and benchmarks drive).
    pub fn of_new_app(sink: Arc<dyn EventSink>, settings: Settings, store: Store) -> Arc<Self> {
        Arc::new(Self::new(Arc::new(App::new(sink, settings, store))))
    }

    /// What every window shares.
    pub fn app(&self) -> &Arc<App> {
        &self.app
    }

    /// The open project, or [`crate::ErrorKind::NoProject`].
    pub fn current(&self) -> Result<Arc<OpenProject>, CommandError> {
        self.project
            .lock()
            .ok()
            .and_then(|project| project.clone())
            .ok_or_else(CommandError::no_project)
    }

    /// Why the folder named at launch could not be opened, until a project opens.
    pub fn launch_error(&self) -> Option<LaunchError> {
        self.launch_error
            .lock()
            .ok()
            .and_then(|error| error.clone())
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

    /// Opens the folder at `path` (absolute), closing the project open before, and starts
    /// watching it in the background. Needs a tokio runtime.
    pub async fn show_folder(&self, path: PathBuf) -> Result<ProjectInfo, CommandError> {
        check_path(&path.to_string_lossy())?;
        if !path.is_absolute() {
            return Err(CommandError::invalid(format!(
                "the project folder must be an absolute path, not {}",
                path.display()
            )));
        }
        let app = &self.app;
        let project = OpenProject::open(
            app.next_project_id(),
            &path,
            app.store.clone(),
            &app.dialogs,
            app.sink.clone(),
            app.turns.clone(),
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
        watch_in_background(&project, app.sink.clone(), app.settings.watch_options());
        crate::mcp::events::forward_in_background(&project, app.sink.clone());
        project.mcp().start_in_background();
        Ok(info)
    }

    /// Closes the open project, if any (back to the welcome screen).
    pub fn close_folder(&self) {
        let previous = self
            .project
            .lock()
            .ok()
            .and_then(|mut project| project.take());
        close_in_background(previous);
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

/// Refuses a path from the webview that is too long or holds a NUL byte.
pub(crate) fn check_path(path: &str) -> Result<(), CommandError> {
    if path.len() > MAX_PATH_BYTES {
        return Err(CommandError::invalid("the path is too long"));
    }
    if path.contains('\0') {
        return Err(CommandError::invalid("the path contains a NUL byte"));
    }
    Ok(())
}
