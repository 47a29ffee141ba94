//! An open project: its confined root, its lazily listed tree, the watcher that keeps the
//! webview's tree current, its tools (built-ins and MCP servers', through the same
//! `open_tools` as the CLI) and its chat.
//!
//! Opening is quick whatever the project's size: the root is checked and the first listing is
//! the webview's own (of the root). The watcher, whose start walks every shown directory once,
//! starts in the background; when it runs, a [`TreeStatus`] `watching` event tells the webview
//! to list again what it shows (changes made while it started were not reported), and from then
//! on its changes are forwarded as [`TreeChanged`] events, batched as they come.

pub mod open;
pub mod preview;
pub mod service;

use std::path::Path;
use std::sync::{Arc, Mutex, Weak};
use std::time::Duration;

use gantry_store::Store;
use gantry_tools::{ProjectRoot, ToolManager};
use gantry_watch::{ProjectTree, TreeWatcher, WatchLimit, WatchOptions};
use serde::Serialize;
use tokio::sync::mpsc::UnboundedReceiver;

use crate::chat::mentions::MentionIndex;
use crate::chat::{ActivityApprover, ActivityPrompter, ProjectChat, SessionActivities, TurnLimit};
use crate::checkpoints::Checkpoints;
use crate::config::hooks::ProjectHooks;
use crate::dialogs::{DialogApprover, DialogPrompter, DialogRegistry};
use crate::error::CommandError;
use crate::events::{EventSink, TreeChanged, TreeStatus, WatchState, emit};
use crate::mcp::servers::ProjectServers;
use crate::project::open::{People, open_tools};
use crate::tools::rules::ProjectCommands;

/// The open project, as the webview knows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ProjectInfo {
    /// Changes with every opening; events carry it so late events of a closed project are
    /// ignored.
    pub id: u32,
    /// The folder's name.
    pub name: String,
    /// The folder's canonical absolute path.
    pub path: String,
}

/// A project opened in the app.
pub struct OpenProject {
    info: ProjectInfo,
    root: ProjectRoot,
    tree: ProjectTree,
    tools: Arc<ToolManager>,
    chat: ProjectChat,
    /// Its MCP servers.
    mcp: Arc<ProjectServers>,
    watcher: Mutex<Option<TreeWatcher>>,
    /// Every file and folder, for the chat's @-mentions (filled when the watcher starts).
    mentions: Arc<MentionIndex>,
    watch_state: Mutex<WatchState>,
    /// Told when the webview has listed the root, which the watcher's start waits for a moment
    /// (see [`FIRST_LISTING_GRACE`]).
    first_listing: tokio::sync::Notify,
    /// Serialises policy changes with their saves, so the store ends with the last change.
    policy_writes: tokio::sync::Mutex<()>,
    /// The user's hooks (Claude Code's and Codex's settings files).
    hooks: Arc<ProjectHooks>,
}

impl std::fmt::Debug for OpenProject {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OpenProject")
            .field("info", &self.info)
            .finish_non_exhaustive()
    }
}

impl OpenProject {
    /// Opens the folder at `path` (absolute) as project `id`: remembers it in `store`, loads its
    /// tool policies, and sets up its tools (approvals and questions go to `dialogs`, and mark
    /// their session `waiting`) and its chat (events go to `sink`; its turns count against the
    /// app's `limit`). MCP servers start separately ([`ProjectServers::start_in_background`]).
    pub async fn open(
        id: u32,
        path: &Path,
        store: Store,
        dialogs: &Arc<DialogRegistry>,
        sink: Arc<dyn EventSink>,
        limit: TurnLimit,
    ) -> Result<Self, CommandError> {
        let checked = path.to_owned();
        let (root, tree) = tokio::task::spawn_blocking(move || {
            let root = ProjectRoot::new(&checked)?;
            let tree = ProjectTree::new(root.path())?;
            Ok::<_, CommandError>((root, tree))
        })
        .await??;
        let activities = Arc::new(SessionActivities::new(id, Arc::clone(&sink)));
        let people = People {
            approver: Some(Arc::new(ActivityApprover {
                inner: Arc::new(DialogApprover {
                    registry: dialogs.clone(),
                    project_id: id,
                }),
                activities: Arc::clone(&activities),
            })),
            prompter: Some(Arc::new(ActivityPrompter {
                inner: Arc::new(DialogPrompter {
                    registry: dialogs.clone(),
                    project_id: id,
                }),
                activities: Arc::clone(&activities),
            })),
        };
        let opened = open_tools(store, root.path(), people).await?;
        let mcp_choices = opened.mcp();
        let checkpoints = opened.checkpoints.clone();
        let trimmed = checkpoints.clone();
        tokio::spawn(async move {
            if let Err(error) = trimmed.trim_at_open().await {
                tracing::warn!(%error, "cannot trim the project's checkpoints");
            }
        });
        let tools = Arc::new(opened.manager);
        let mcp = Arc::new(ProjectServers::new(Arc::clone(&tools), mcp_choices));
        let chat = ProjectChat::open(
            id,
            opened.project.id,
            opened.store.clone(),
            Arc::clone(&tools),
            checkpoints,
            sink,
        )
        .await?
        .with_activities(activities)
        .with_turn_limit(limit)
        .with_hooks(Arc::clone(&opened.hooks));
        let hooks = opened.hooks;
        let name = root.path().file_name().map_or_else(
            || root.path().display().to_string(),
            |name| name.to_string_lossy().into_owned(),
        );
        Ok(Self {
            info: ProjectInfo {
                id,
                name,
                path: root.path().display().to_string(),
            },
            root,
            tree,
            tools,
            chat,
            mcp,
            watcher: Mutex::new(None),
            mentions: Arc::new(MentionIndex::new()),
            watch_state: Mutex::new(WatchState::Starting),
            first_listing: tokio::sync::Notify::new(),
            policy_writes: tokio::sync::Mutex::new(()),
            hooks,
        })
    }

    /// The project's MCP servers.
    pub fn mcp(&self) -> &Arc<ProjectServers> {
        &self.mcp
    }

    /// The project's chat: sessions and turns.
    pub fn chat(&self) -> &ProjectChat {
        &self.chat
    }

    /// Stops everything the project runs: its turns (their SessionEnd hooks run, reason
    /// `other`), its watcher and its MCP servers. Blocking
    /// (joins the watcher's threads); the servers stop on the runtime when there is one.
    pub fn close(&self) {
        self.chat.cancel_all();
        self.chat.end_sessions_in_background();
        self.stop_watching();
        self.mcp.close();
    }

    /// What the webview is told about the project.
    pub fn info(&self) -> &ProjectInfo {
        &self.info
    }

    /// The confinement every path from the webview goes through.
    pub fn root(&self) -> &ProjectRoot {
        &self.root
    }

    /// The lazily listed tree.
    pub fn tree(&self) -> &ProjectTree {
        &self.tree
    }

    /// Every file and folder of the project, kept current, for the chat's @-mentions.
    pub fn mentions(&self) -> &Arc<MentionIndex> {
        &self.mentions
    }

    /// The project's tools: built-ins and MCP servers' tools, with the project's policies and
    /// audit log; approvals and questions are answered in the webview.
    pub fn tools(&self) -> &Arc<ToolManager> {
        &self.tools
    }

    /// The project's hooks.
    pub fn hooks(&self) -> &Arc<ProjectHooks> {
        &self.hooks
    }

    /// The database the project's policies, sessions and audit log live in.
    pub fn store(&self) -> &Store {
        self.chat.store()
    }

    /// The project's id in the store.
    pub fn store_project(&self) -> gantry_store::ProjectId {
        self.chat.store_project()
    }

    /// The project's command settings (sandbox, variables passed) and rules, changed in the
    /// store and the tools together.
    pub fn commands(&self) -> ProjectCommands {
        ProjectCommands::new(
            self.store().clone(),
            self.store_project(),
            Arc::clone(&self.tools),
        )
    }

    /// Held while a policy change is applied and saved.
    pub(crate) fn policy_writes(&self) -> &tokio::sync::Mutex<()> {
        &self.policy_writes
    }

    /// Whether the tree is kept current (what a page that loaded after the `tree:status` event
    /// asks for).
    pub fn watch_status(&self) -> TreeStatus {
        let state = self
            .watch_state
            .lock()
            .map(|state| state.clone())
            .unwrap_or(WatchState::Starting);
        TreeStatus {
            project_id: self.info.id,
            state,
        }
    }

    fn set_watch_state(&self, state: WatchState) -> TreeStatus {
        if let Ok(mut slot) = self.watch_state.lock() {
            *slot = state.clone();
        }
        TreeStatus {
            project_id: self.info.id,
            state,
        }
    }

    /// Notes that the webview listed the folder `rel`: the root's first listing lets the watcher
    /// start.
    pub fn listed(&self, rel: &str) {
        if rel.is_empty() || rel == "." {
            self.first_listing.notify_one();
        }
    }

    /// Tells the watcher that the webview shows the folder `rel`, so that it is polled if a limit
    /// left it unwatched (one directory read then).
    pub fn shown(&self, rel: &str) {
        if let Ok(watcher) = self.watcher.lock()
            && let Some(watcher) = watcher.as_ref()
        {
            watcher.shown(rel);
        }
    }

    /// Stops the watcher (joining its threads: call from blocking code).
    pub fn stop_watching(&self) {
        self.chat.checkpoints().watch_stopped();
        let watcher = self.watcher.lock().ok().and_then(|mut slot| slot.take());
        drop(watcher);
    }
}

/// How long the watcher's start waits for the webview's first listing of the root.
const FIRST_LISTING_GRACE: Duration = Duration::from_millis(300);

/// Starts `project`'s watcher in the background and forwards its changes to `sink` for as long as
/// the project stays open. Needs a tokio runtime.
pub fn watch_in_background(
    project: &Arc<OpenProject>,
    sink: Arc<dyn EventSink>,
    options: WatchOptions,
) {
    let debounce = options.debounce;
    let weak = Arc::downgrade(project);
    let root = project.root.path().to_path_buf();
    let project_id = project.info.id;
    let mentions = Arc::clone(&project.mentions);
    let waiting = Arc::downgrade(project);
    tokio::spawn(async move {
        // The start walks every shown folder and the mention index then walks every file: on a
        // big project that is a few hundred milliseconds of CPU, which would compete with the
        // webview's first paint of the tree. So it waits for the root's first listing, briefly.
        if let Some(project) = waiting.upgrade() {
            let listed = project.first_listing.notified();
            let _ = tokio::time::timeout(FIRST_LISTING_GRACE, listed).await;
        }
        let watched = root.clone();
        let started =
            tokio::task::spawn_blocking(move || TreeWatcher::start_with_options(watched, &options))
                .await;
        // The index is filled once the watcher runs, so no change falls between the two: those
        // made meanwhile wait in the channel and are applied after (applying one twice is
        // harmless).
        let mentions = index_in_background(mentions, root);
        let (watcher, changes) = match started {
            Ok(Ok(started)) => started,
            Ok(Err(error)) => return report_failure(&weak, sink.as_ref(), &error.to_string()),
            Err(error) => return report_failure(&weak, sink.as_ref(), &error.to_string()),
        };
        let mut limits = watcher.limit();
        // Marked seen here: a limit reached from now on is announced by `follow_limit`.
        let limit = limits.borrow_and_update().clone();
        let Some((status, checkpoints)) = adopt(&weak, watcher, debounce, limit) else {
            return;
        };
        emit(sink.as_ref(), status);
        tokio::spawn(follow_limit(limits, weak.clone(), Arc::clone(&sink)));
        let followed = Followed {
            mentions,
            checkpoints: checkpoints.clone(),
        };
        forward(changes, project_id, sink.as_ref(), &followed).await;
        checkpoints.watch_stopped();
    });
}

/// Hands the watcher to its project and returns the status to announce, with the checkpoints
/// its reports go to (which now rely on them); when the project closed meanwhile, stops the
/// watcher instead. `limit` is the limit on watches it reached while starting, if any.
fn adopt(
    project: &Weak<OpenProject>,
    watcher: TreeWatcher,
    debounce: Duration,
    limit: Option<WatchLimit>,
) -> Option<(TreeStatus, Checkpoints)> {
    if let Some(project) = project.upgrade()
        && let Ok(mut slot) = project.watcher.lock()
    {
        *slot = Some(watcher);
        drop(slot);
        let checkpoints = project.chat.checkpoints().clone();
        checkpoints.watch_started(debounce);
        return Some((
            project.set_watch_state(WatchState::Watching { limit }),
            checkpoints,
        ));
    }
    // Dropping joins the watcher's threads; keep that off the async workers.
    tokio::task::spawn_blocking(move || drop(watcher));
    None
}

/// Announces each limit on watches the watcher reaches after it started (the one reached while
/// it started is in its first status). Ends when the watcher stops or the project closes.
async fn follow_limit(
    mut limits: tokio::sync::watch::Receiver<Option<WatchLimit>>,
    project: Weak<OpenProject>,
    sink: Arc<dyn EventSink>,
) {
    while limits.changed().await.is_ok() {
        let limit = limits.borrow_and_update().clone();
        let Some(project) = project.upgrade() else {
            return;
        };
        let status = project.set_watch_state(WatchState::Watching { limit });
        emit(sink.as_ref(), status);
    }
}

fn report_failure(project: &Weak<OpenProject>, sink: &dyn EventSink, message: &str) {
    let Some(project) = project.upgrade() else {
        return;
    };
    tracing::warn!(
        project = project.info.id,
        message,
        "the project tree will not be kept current"
    );
    let status = project.set_watch_state(WatchState::Failed {
        message: message.to_owned(),
    });
    emit(sink, status);
}

/// Fills `index` with a walk of `root`, then applies the batches of changes sent on the returned
/// channel, in order, off the async workers; ends when the sender is dropped.
fn index_in_background(
    index: Arc<MentionIndex>,
    root: std::path::PathBuf,
) -> std::sync::mpsc::Sender<Vec<gantry_watch::TreeChange>> {
    let (sender, batches) = std::sync::mpsc::channel::<Vec<gantry_watch::TreeChange>>();
    tokio::task::spawn_blocking(move || {
        index.fill(&root);
        for batch in batches {
            index.apply(&root, &batch);
        }
    });
    sender
}

/// What follows the watcher's changes besides the webview.
struct Followed {
    /// The mention index's updater ([`index_in_background`]).
    mentions: std::sync::mpsc::Sender<Vec<gantry_watch::TreeChange>>,
    checkpoints: Checkpoints,
}

/// Sends the watcher's changes on (to the webview, to the checkpoints, whose snapshots read
/// only what changed, and to the mention index), batching those already waiting. Ends when the
/// watcher stops.
async fn forward(
    mut changes: UnboundedReceiver<gantry_watch::TreeChange>,
    project_id: u32,
    sink: &dyn EventSink,
    followed: &Followed,
) {
    while let Some(first) = changes.recv().await {
        let mut batch = vec![first];
        while let Ok(change) = changes.try_recv() {
            batch.push(change);
        }
        followed.checkpoints.watched(&batch);
        let _ = followed.mentions.send(batch.clone());
        emit(
            sink,
            TreeChanged {
                project_id,
                changes: batch,
            },
        );
    }
}
