//! The project room's commands: what a window shows on load (the open project, or the welcome
//! screen with the projects opened before and a launch error), and the open project's tree and
//! file preview.

use std::sync::Arc;

use gantry_watch::TreeEntry;
use serde::{Deserialize, Serialize};

use crate::app::{Service, Window, check_path};
use crate::error::CommandError;
use crate::events::TreeStatus;
use crate::project::ProjectInfo;
use crate::project::preview::{FilePreview, PreviewRequest, preview_file};

/// How many recent projects the welcome screen lists.
const RECENT_PROJECTS: usize = 12;

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

/// A folder to open as the window's project.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct OpenProjectRequest {
    /// The folder, as an absolute path.
    pub path: String,
}

/// A folder to open in a new window.
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

/// The project room: a window and the project it shows.
pub struct ProjectService(Arc<Window>);

impl Service for ProjectService {
    fn of(window: &Arc<Window>) -> Result<Self, CommandError> {
        Ok(Self(Arc::clone(window)))
    }
}

impl ProjectService {
    /// What the webview shows on (re)load: the open project, or the welcome screen and a launch
    /// error.
    pub async fn launch_state(&self) -> Result<LaunchState, CommandError> {
        Ok(LaunchState {
            project: self.0.current().ok().map(|project| project.info().clone()),
            error: self.0.launch_error(),
            system_languages: system_languages(),
        })
    }

    /// Projects opened before, the most recently opened first.
    pub async fn recent_projects(&self) -> Result<Vec<RecentProject>, CommandError> {
        let mut projects = self.0.app().store().projects().list().await?;
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

    /// The visible children of a directory of the open project (ignored and vendor entries
    /// left out), directories first.
    pub async fn list_dir(&self, request: ListDirRequest) -> Result<Vec<TreeEntry>, CommandError> {
        let path = request.path;
        check_path(&path)?;
        let project = self.0.current()?;
        Ok(tokio::task::spawn_blocking(move || {
            // Before listing: a folder the watcher polls compares its next look with this one.
            project.shown(&path);
            let listing = project.tree().children(&path);
            project.listed(&path);
            listing
        })
        .await??)
    }

    /// Whether the open project's tree is kept current (for a page that loaded after the
    /// `tree:status` event).
    pub async fn tree_status(&self) -> Result<TreeStatus, CommandError> {
        Ok(self.0.current()?.watch_status())
    }

    /// A file of the open project, confined to it, as text or as "binary" (the read-only
    /// preview).
    pub async fn read_preview(&self, request: PreviewRequest) -> Result<FilePreview, CommandError> {
        let path = request.path;
        check_path(&path)?;
        let project = self.0.current()?;
        tokio::task::spawn_blocking(move || preview_file(project.root(), &path)).await?
    }
}

/// The user's languages as the system gives them (BCP 47 tags, preferred first).
pub fn system_languages() -> Vec<String> {
    sys_locale::get_locales().collect()
}
