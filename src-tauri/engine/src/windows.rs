//! The app's windows: each shows one project, or the welcome screen.
//!
//! A window is known by its label (the shell's name for it). Each has its own [`AppState`] over
//! what all windows share ([`AppShared`]). A project is shown by one window at most: opening a
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

use crate::error::CommandError;
use crate::events::EventSink;
use crate::project::ProjectInfo;
use crate::state::{AppShared, AppState, Settings};

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

/// The app's windows by label.
pub struct Windows {
    shared: Arc<AppShared>,
    windows: Mutex<BTreeMap<String, Arc<AppState>>>,
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
            shared: Arc::new(AppShared::new(sink, settings, store)),
            windows: Mutex::new(BTreeMap::new()),
            opening: tokio::sync::Mutex::new(()),
        }
    }

    fn lock(&self) -> MutexGuard<'_, BTreeMap<String, Arc<AppState>>> {
        self.windows.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The state of window `label`, made (on the welcome screen) the first time it is asked for.
    pub fn state(&self, label: &str) -> Arc<AppState> {
        Arc::clone(
            self.lock()
                .entry(label.to_owned())
                .or_insert_with(|| Arc::new(AppState::in_app(Arc::clone(&self.shared)))),
        )
    }

    /// Opens the folder at `path` in window `label` (closing the project it showed), unless
    /// another window shows that folder already.
    pub async fn open_project(&self, label: &str, path: PathBuf) -> Result<Opened, CommandError> {
        let _one_at_a_time = self.opening.lock().await;
        if let Some(window) = self.window_showing_folder(&path, label) {
            return Ok(Opened::Elsewhere { window });
        }
        self.state(label).open_project(path).await.map(Opened::Here)
    }

    /// The window other than `except` whose project is the folder at `path`, if any.
    fn window_showing_folder(&self, path: &Path, except: &str) -> Option<String> {
        let canonical = std::fs::canonicalize(path).ok()?;
        self.lock()
            .iter()
            .filter(|(label, _)| label.as_str() != except)
            .find(|(_, state)| {
                state
                    .current()
                    .is_ok_and(|project| Path::new(&project.info().path) == canonical)
            })
            .map(|(label, _)| label.clone())
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
            state.close_project();
        }
        if none_left {
            self.shared.dialogs().window_closed();
        }
    }

    /// The labels of the windows that show project `project_id` (the app's id).
    pub fn showing(&self, project_id: u32) -> Vec<String> {
        self.lock()
            .iter()
            .filter(|(_, state)| {
                state
                    .current()
                    .is_ok_and(|project| project.info().id == project_id)
            })
            .map(|(label, _)| label.clone())
            .collect()
    }

    /// Each window's label and the folder it shows (`None` on the welcome screen), by label.
    pub fn folders(&self) -> Vec<(String, Option<PathBuf>)> {
        self.lock()
            .iter()
            .map(|(label, state)| {
                let folder = state
                    .current()
                    .ok()
                    .map(|project| PathBuf::from(&project.info().path));
                (label.clone(), folder)
            })
            .collect()
    }

    /// Gantry's database.
    pub fn store(&self) -> &Store {
        self.shared.store()
    }

    /// Saves the app setting `name` once it has stayed the same for a moment.
    pub fn save_setting_when_settled(&self, name: &'static str, value: String) {
        self.shared.save_setting_when_settled(name, value);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::events::RecordingSink;

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
        let Opened::Here(a) = windows
            .open_project("main", first.path().to_owned())
            .await
            .unwrap()
        else {
            panic!("opened in the window that asked")
        };
        let Opened::Here(b) = windows
            .open_project("project-2", second.path().to_owned())
            .await
            .unwrap()
        else {
            panic!("opened in the window that asked")
        };
        assert_ne!(a.id, b.id);
        assert_eq!(windows.showing(a.id), ["main"]);
        assert_eq!(windows.showing(b.id), ["project-2"]);
        assert_eq!(
            windows.state("main").current().unwrap().info().id,
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
            windows.open_project("project-3", again).await.unwrap(),
            Opened::Elsewhere {
                window: "main".into()
            }
        );
        assert!(windows.state("project-3").current().is_err());
        assert_eq!(windows.showing(a.id), ["main"]);

        // Reopening it in its own window is allowed.
        assert!(matches!(
            windows
                .open_project("main", first.path().to_owned())
                .await
                .unwrap(),
            Opened::Here(_)
        ));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_closed_window_closes_its_project_and_frees_the_folder() {
        let (_sink, windows, _data) = windows().await;
        let dir = folder();
        let Opened::Here(info) = windows
            .open_project("project-2", dir.path().to_owned())
            .await
            .unwrap()
        else {
            panic!("opened")
        };
        windows.state("main");
        assert_eq!(windows.folders().len(), 2);
        windows.window_closed("project-2");
        assert!(windows.showing(info.id).is_empty());
        assert_eq!(windows.folders(), [("main".to_owned(), None)]);
        assert!(matches!(
            windows
                .open_project("main", dir.path().to_owned())
                .await
                .unwrap(),
            Opened::Here(_)
        ));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_dialog_is_denied_once_the_last_window_closed() {
        let (_sink, windows, _data) = windows().await;
        let dir = folder();
        windows
            .open_project("main", dir.path().to_owned())
            .await
            .unwrap();
        let project = windows.state("main").current().unwrap().info().id;
        let dialogs = Arc::clone(windows.shared.dialogs());
        windows.state("project-2");
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
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(
            dialogs.pending(project).len(),
            1,
            "a window still shows the project"
        );
        windows.window_closed("main");
        assert_eq!(
            asking.await.unwrap(),
            Err(gantry_tools::PromptError::Unavailable)
        );
    }
}
