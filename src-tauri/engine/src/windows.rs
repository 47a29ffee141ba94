//! The app's windows: each shows one project, or the welcome screen.
//!
//! A window is known by its label (the shell's name for it). Each has its own [`Window`] over
//! what all windows share ([`App`]). A project is shown by one window at most: opening a
//! folder that another window shows answers [`Opened::Elsewhere`] (the shell focuses that
//! window) instead of opening it twice, so its watcher, its MCP servers and its sessions' turns
//! exist once. Opens are serialised, so two windows asked for the same folder at the same moment
//! still end with one of them showing it.
//!
//! Events carry the app's id of their project; [`Windows::showing`] says which windows to send
//! them to.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use gantry_store::Store;

use crate::app::{App, Window};
use crate::error::CommandError;
use crate::events::EventSink;
use crate::notifications::Screen;
use crate::project::{OpenProject, ProjectInfo};
use crate::settings::Settings;

/// Where a folder asked for in a window was opened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Opened {
    /// In the window that asked.
    Here(ProjectInfo),
    /// Nowhere new: the window with this label shows it already.
    Elsewhere {
        /// The label of the window that shows the folder.
        window: String,
    },
}

/// Each window's state by its label.
pub(crate) type WindowMap = Mutex<BTreeMap<String, Arc<Window>>>;

/// The app's windows by label.
pub struct Windows {
    app: Arc<App>,
    /// Shared (weakly) with the notifier, which asks which window shows a project.
    windows: Arc<WindowMap>,
    /// Held while a folder opens, so the check "does another window show it?" and the opening
    /// happen as one step.
    opening: tokio::sync::Mutex<()>,
}

impl std::fmt::Debug for Windows {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Windows")
            .field("windows", &self.lock().keys().collect::<Vec<_>>())
            .finish_non_exhaustive()
    }
}

impl Windows {
    /// No windows yet, over an app remembering in `store` and sending events through `sink`.
    pub fn new(sink: Arc<dyn EventSink>, settings: Settings, store: Store) -> Self {
        Self {
            app: Arc::new(App::new(sink, settings, store)),
            windows: Arc::new(Mutex::new(BTreeMap::new())),
            opening: tokio::sync::Mutex::new(()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Arc<Window>>> {
        lock(&self.windows)
    }

    /// Shows desktop notifications on `screen` from now on (the front end's windows).
    pub fn notify_on(&self, screen: Arc<dyn Screen>) {
        self.app
            .notifier()
            .attach(screen, Arc::downgrade(&self.windows));
    }

    /// Window `label` opened: its state, on the welcome screen (the state it has, when it was
    /// known already). The only way a window gets a state: a command from a window that was
    /// never opened, or that closed since, finds none ([`Windows::window`]).
    pub fn window_opened(&self, label: &str) -> Arc<Window> {
        Arc::clone(
            self.lock()
                .entry(label.to_owned())
                .or_insert_with(|| Arc::new(Window::new(Arc::clone(&self.app)))),
        )
    }

    /// The state of window `label`; an error for a window that was not opened or closed since
    /// (a command sent by a window as it was destroyed).
    pub fn window(&self, label: &str) -> Result<Arc<Window>, CommandError> {
        self.lock()
            .get(label)
            .cloned()
            .ok_or_else(|| CommandError::not_found(format!("window `{label}` is not open")))
    }

    /// Opens the folder at `path` in window `label` (closing the project it showed), unless
    /// another window shows that folder already.
    pub async fn open_folder(&self, label: &str, path: PathBuf) -> Result<Opened, CommandError> {
        let _one_at_a_time = self.opening.lock().await;
        if let Some(window) = self.window_showing_folder(&path, label) {
            return Ok(Opened::Elsewhere { window });
        }
        let state = self.window(label)?;
        let info = state.show_folder(path).await?;
        if self.window(label).is_err() {
            // The window closed while its project opened: nothing will show the project.
            state.close_folder();
            return Err(CommandError::not_found(format!(
                "window `{label}` closed while its project opened"
            )));
        }
        Ok(Opened::Here(info))
    }

    /// The window other than `except` whose project is the folder at `path`, if any.
    fn window_showing_folder(&self, path: &Path, except: &str) -> Option<String> {
        let canonical = std::fs::canonicalize(path).ok()?;
        self.shown_projects()
            .into_iter()
            .find(|(label, project)| {
                label.as_str() != except
                    && project
                        .as_ref()
                        .is_some_and(|project| Path::new(&project.info().path) == canonical)
            })
            .map(|(label, _)| label)
    }

    /// Each window's label and the project it shows (`None` on the welcome screen), by label.
    /// The windows are listed first and asked after, so no window's lock is taken under the
    /// list's.
    fn shown_projects(&self) -> Vec<(String, Option<Arc<OpenProject>>)> {
        states(&self.windows)
            .into_iter()
            .map(|(label, state)| (label, state.current().ok()))
            .collect()
    }

    /// Forgets window `label` and closes its project. When it was the last window, everything
    /// still waiting for the user is denied (nobody is left to answer).
    pub fn window_closed(&self, label: &str) {
        let (closed, none_left) = {
            let mut windows = self.lock();
            let closed = windows.remove(label);
            (closed, windows.is_empty())
        };
        if let Some(state) = closed {
            state.close_folder();
        }
        if none_left {
            self.app.dialogs().window_closed();
        }
    }

    /// The labels of the windows that show project `project_id` (the app's id): one at most,
    /// none once its window closed.
    pub fn showing(&self, project_id: u32) -> Vec<String> {
        self.window_showing(project_id).into_iter().collect()
    }

    /// The label of the window that shows project `project_id` (the app's id), if one does.
    pub fn window_showing(&self, project_id: u32) -> Option<String> {
        window_of_project(&self.windows, project_id).map(|(label, _)| label)
    }

    /// Each window's label and the folder it shows (`None` on the welcome screen), by label.
    pub fn folders(&self) -> Vec<(String, Option<PathBuf>)> {
        self.shown_projects()
            .into_iter()
            .map(|(label, project)| {
                let folder = project.map(|project| PathBuf::from(&project.info().path));
                (label, folder)
            })
            .collect()
    }

    /// Gantry's database.
    pub fn store(&self) -> &Store {
        self.app.store()
    }

    /// Saves the app setting `name` once it has stayed the same for a moment.
    pub fn save_setting_when_settled(&self, name: &'static str, value: String) {
        self.app.save_setting_when_settled(name, value);
    }
}

fn lock(windows: &WindowMap) -> MutexGuard<'_, BTreeMap<String, Arc<Window>>> {
    windows.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Each window's label and state, listed under the map's lock and returned without it (so no
/// window's lock is taken under the list's).
fn states(windows: &WindowMap) -> Vec<(String, Arc<Window>)> {
    lock(windows)
        .iter()
        .map(|(label, state)| (label.clone(), Arc::clone(state)))
        .collect()
}

/// The label and state of the window that shows project `project_id` (the app's id), if one
/// does.
pub(crate) fn window_of_project(
    windows: &WindowMap,
    project_id: u32,
) -> Option<(String, Arc<Window>)> {
    states(windows).into_iter().find(|(_, state)| {
        state
            .current()
            .is_ok_and(|project| project.info().id == project_id)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::ErrorKind;
    use crate::events::RecordingSink;
    use crate::test_support::eventually;

    async fn windows() -> (Arc<RecordingSink>, Windows, tempfile::TempDir) {
        let sink = Arc::new(RecordingSink::default());
        let data = tempfile::tempdir().unwrap();
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        (
            sink.clone(),
            Windows::new(sink, Settings::default(), store),
            data,
        )
    }

    fn folder() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("README.md"), "# hi\n").unwrap();
        dir
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn each_window_shows_its_own_project_and_a_folder_opens_once() {
        let (_sink, windows, _data) = windows().await;
        let (first, second) = (folder(), folder());
        for label in ["main", "project-2", "project-3"] {
            windows.window_opened(label);
        }
        let Opened::Here(a) = windows
            .open_folder("main", first.path().to_owned())
            .await
            .unwrap()
        else {
            panic!("opened in the window that asked")
        };
        let Opened::Here(b) = windows
            .open_folder("project-2", second.path().to_owned())
            .await
            .unwrap()
        else {
            panic!("opened in the window that asked")
        };
        assert_ne!(a.id, b.id);
        assert_eq!(windows.showing(a.id), ["main"]);
        assert_eq!(windows.showing(b.id), ["project-2"]);
        assert_eq!(
            windows.window("main").unwrap().current().unwrap().info().id,
            a.id,
            "each window answers for its own project"
        );

        // The same folder, by another spelling, from a third window: the window that shows it
        // is named, and nothing opens twice.
        let again = first
            .path()
            .join("..")
            .join(first.path().file_name().unwrap());
        assert_eq!(
            windows.open_folder("project-3", again).await.unwrap(),
            Opened::Elsewhere {
                window: "main".into()
            }
        );
        assert!(windows.window("project-3").unwrap().current().is_err());
        assert_eq!(windows.showing(a.id), ["main"]);
        assert_eq!(windows.window_showing(a.id).as_deref(), Some("main"));
        assert_eq!(windows.window_showing(a.id + b.id + 1), None);

        // Reopening it in its own window is allowed.
        assert!(matches!(
            windows
                .open_folder("main", first.path().to_owned())
                .await
                .unwrap(),
            Opened::Here(_)
        ));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_closed_window_closes_its_project_and_frees_the_folder() {
        let (_sink, windows, _data) = windows().await;
        let dir = folder();
        windows.window_opened("project-2");
        let Opened::Here(info) = windows
            .open_folder("project-2", dir.path().to_owned())
            .await
            .unwrap()
        else {
            panic!("opened")
        };
        windows.window_opened("main");
        assert_eq!(windows.folders().len(), 2);
        windows.window_closed("project-2");
        assert!(windows.showing(info.id).is_empty());
        assert_eq!(windows.window_showing(info.id), None);
        assert_eq!(windows.folders(), [("main".to_owned(), None)]);
        assert!(matches!(
            windows
                .open_folder("main", dir.path().to_owned())
                .await
                .unwrap(),
            Opened::Here(_)
        ));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dialog_is_denied_once_the_last_window_closed() {
        let (_sink, windows, _data) = windows().await;
        let dir = folder();
        windows.window_opened("main");
        windows
            .open_folder("main", dir.path().to_owned())
            .await
            .unwrap();
        let project = windows.window("main").unwrap().current().unwrap().info().id;
        let dialogs = Arc::clone(windows.app.dialogs());
        windows.window_opened("project-2");
        windows.window_closed("project-2");
        let asking = tokio::spawn({
            let dialogs = Arc::clone(&dialogs);
            async move {
                dialogs
                    .ask(
                        project,
                        gantry_tools::UserQuestion {
                            call_id: "call_q".into(),
                            session_id: None,
                            question: "Go on?".into(),
                            options: vec![],
                        },
                    )
                    .await
            }
        });
        eventually(
            "the question to wait while a window still shows the project",
            || {
                assert!(
                    !asking.is_finished(),
                    "answered while a window still shows the project"
                );
                dialogs.pending(project).len() == 1
            },
        )
        .await;
        windows.window_closed("main");
        assert_eq!(
            asking.await.unwrap(),
            Err(gantry_tools::PromptError::Unavailable)
        );
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_closed_window_gets_no_state_back() {
        let (_sink, windows, _data) = windows().await;
        let dir = folder();
        assert_eq!(
            windows.window("main").unwrap_err().kind,
            ErrorKind::NotFound,
            "no window is open before one is opened"
        );
        let opened = windows.window_opened("project-2");
        assert!(
            Arc::ptr_eq(&opened, &windows.window_opened("project-2")),
            "opening a known window keeps its state"
        );
        windows.window_closed("project-2");

        // A command that arrives from the window after it closed finds no state, and does not
        // make one: the label stays unknown.
        for _ in 0..2 {
            assert_eq!(
                windows.window("project-2").unwrap_err().kind,
                ErrorKind::NotFound
            );
        }
        let error = windows
            .open_folder("project-2", dir.path().to_owned())
            .await
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::NotFound);
        assert!(windows.folders().is_empty(), "{:?}", windows.folders());
        assert!(opened.current().is_err(), "its project was not opened");
    }
}
