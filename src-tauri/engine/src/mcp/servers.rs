//! The open project's MCP servers: the hub, and the changes the MCP panel makes to them.
//!
//! The hub starts in the background when the project opens (through `gantry_agent::start_mcp`,
//! as in the CLI) and sits in a slot the panel reads. Every change the panel makes — a server
//! added, edited, removed or imported into the user-wide file, a server switched off or on for
//! this project — is written first (the file through `gantry_mcp::UserFile`, which validates
//! before writing; the switch in the store) and then applied by reloading the hub, which keeps
//! every unchanged server running. Changes, restarts and the trust step are serialised, so two
//! saves can't interleave their writes and reloads and nothing acts on a hub being replaced;
//! while the servers are still starting, changes wait for the user to try again (the start may
//! have read the files already). A reload stops a changed or removed server at once, a call in
//! flight included (its caller gets the "not running" error as an observation).

use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::Duration;

use crate::project::open::{McpStartError, ProjectMcp, start_mcp};
use gantry_mcp::{
    Browser, ClaudeImport, EditError, McpHub, McpNotice, ServerState, Snippet, SystemBrowser,
    UserFile, claude_desktop_config_path,
};
use gantry_tools::ToolManager;

use crate::error::{CommandError, ErrorKind, ErrorReason};
use crate::mcp::panel::{
    ClaudeImportPreview, McpCatalog, McpHubState, McpPanel, McpRenderedPrompt, McpResourceContent,
    McpServerCatalog, McpServerEntry, McpServerView, McpTrustReview,
};

/// How long a change waits for the servers it started before answering (they go on starting
/// afterwards; the panel follows them).
const APPLY_WAIT: Duration = Duration::from_secs(5);

/// The hub: starting, running, failed to read its configuration, or closed (a hub that finishes
/// starting after the project closed is shut down at once).
#[derive(Default)]
enum McpSlot {
    #[default]
    Starting,
    Running(Arc<McpHub>),
    /// The configuration could not be read.
    Failed(String),
    Closed,
}

/// The project's MCP servers (see the module's documentation).
pub struct ProjectServers {
    tools: Arc<ToolManager>,
    choices: ProjectMcp,
    claude_file: Option<PathBuf>,
    slot: Mutex<McpSlot>,
    /// Held while a change is written and applied.
    changes: tokio::sync::Mutex<()>,
    /// Why the last change was saved but not applied (shown with the warnings until a change
    /// applies).
    apply_error: Mutex<Option<String>>,
    /// Where the servers' notices go (every hub of the project sends to it).
    notices: tokio::sync::broadcast::Sender<McpNotice>,
    /// Opens the authorization page of a sign-in.
    browser: Arc<dyn Browser>,
}

impl ProjectServers {
    /// The servers of the project whose tools are `tools`, configured by `choices` (which name
    /// the user-wide file); Claude Desktop's file is looked for where Claude keeps it.
    pub fn new(tools: Arc<ToolManager>, choices: ProjectMcp) -> Self {
        Self::with_claude_file(tools, choices, claude_desktop_config_path())
    }

    /// [`Self::new`] with Claude Desktop's file at `claude_file`.
    pub fn with_claude_file(
        tools: Arc<ToolManager>,
        choices: ProjectMcp,
        claude_file: Option<PathBuf>,
    ) -> Self {
        let (notices, _) = tokio::sync::broadcast::channel(64);
        Self {
            tools,
            choices: choices.with_notices(notices.clone()),
            claude_file,
            slot: Mutex::new(McpSlot::Starting),
            changes: tokio::sync::Mutex::new(()),
            apply_error: Mutex::new(None),
            notices,
            browser: Arc::new(SystemBrowser),
        }
    }

    /// The same servers opening sign-in pages with `browser` (tests drive it with an HTTP
    /// client; the default is the system browser).
    #[must_use]
    pub fn with_browser(mut self, browser: Arc<dyn Browser>) -> Self {
        self.browser = browser;
        self
    }

    /// The servers' notices (a subscribed resource changed, a list changed).
    pub fn subscribe_notices(&self) -> tokio::sync::broadcast::Receiver<McpNotice> {
        self.notices.subscribe()
    }

    /// Signs in to remote server `name`: opens the authorization page in the browser, waits
    /// (up to five minutes) for the user, keeps the tokens in the keychain and reconnects.
    pub async fn sign_in(&self, name: &str) -> Result<McpPanel, CommandError> {
        // Not under the change lock: the user may take minutes, and other changes go on.
        let hub = self.hub()?;
        hub.sign_in(
            name,
            self.browser.as_ref(),
            gantry_mcp::oauth::SIGN_IN_TIMEOUT,
        )
        .await?;
        if let Some(server) = hub.server(name) {
            server
                .wait_for(APPLY_WAIT, |status| status.state != ServerState::Starting)
                .await
                .ok();
        }
        Ok(self.panel())
    }

    /// Forgets remote server `name`'s tokens (it will ask again).
    pub async fn sign_out(&self, name: &str) -> Result<McpPanel, CommandError> {
        self.hub()?.sign_out(name).await?;
        Ok(self.panel())
    }

    /// Reads resource `uri` of server `server`, to attach to a message.
    pub async fn read_resource(
        &self,
        server: &str,
        uri: &str,
    ) -> Result<McpResourceContent, CommandError> {
        let parts = self.hub()?.read_resource(server, uri).await?;
        Ok(McpResourceContent {
            server: server.to_owned(),
            uri: uri.to_owned(),
            parts: parts.into_iter().map(Into::into).collect(),
        })
    }

    /// Subscribes to (or unsubscribes from) resource `uri` of `server`; its changes arrive as
    /// `mcp:notice` events.
    pub async fn subscribe_resource(
        &self,
        server: &str,
        uri: &str,
        subscribe: bool,
    ) -> Result<(), CommandError> {
        Ok(self
            .hub()?
            .subscribe_resource(server, uri, subscribe)
            .await?)
    }

    /// Renders prompt `name` of `server` into messages.
    pub async fn render_prompt(
        &self,
        server: &str,
        name: &str,
        arguments: std::collections::BTreeMap<String, String>,
    ) -> Result<McpRenderedPrompt, CommandError> {
        let arguments = arguments
            .into_iter()
            .map(|(key, value)| (key, serde_json::Value::String(value)))
            .collect();
        Ok(self
            .hub()?
            .render_prompt(server, name, arguments)
            .await?
            .into())
    }

    /// Every connected server's resources and prompts.
    pub fn catalog(&self) -> McpCatalog {
        let servers = match &*self.slot() {
            McpSlot::Running(hub) => hub
                .statuses()
                .iter()
                .filter(|status| status.state == ServerState::Connected)
                .map(McpServerCatalog::new)
                .filter(|server| {
                    !(server.resources.is_empty()
                        && server.resource_templates.is_empty()
                        && server.prompts.is_empty())
                })
                .collect(),
            _ => Vec::new(),
        };
        McpCatalog { servers }
    }

    fn slot(&self) -> std::sync::MutexGuard<'_, McpSlot> {
        self.slot.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Starts the servers of the user's file and of the project's approved `.mcp.json` in the
    /// background; their tools join the project's tools as each connects.
    pub fn start_in_background(self: &Arc<Self>) {
        let weak = Arc::downgrade(self);
        let tools = Arc::clone(&self.tools);
        let choices = self.choices.clone();
        tokio::spawn(async move {
            let started = start_mcp(&tools, &choices, false).await;
            adopt(&weak, started).await;
        });
    }

    /// Starts the servers and waits until each has connected or failed once.
    pub async fn start(self: &Arc<Self>) {
        let started = start_mcp(&self.tools, &self.choices, false).await;
        adopt(&Arc::downgrade(self), started).await;
    }

    /// What the MCP servers panel shows.
    pub fn panel(&self) -> McpPanel {
        let mut trust = None;
        let (hub, servers, mut warnings) = match &*self.slot() {
            McpSlot::Starting | McpSlot::Closed => (McpHubState::Starting, Vec::new(), Vec::new()),
            McpSlot::Failed(message) => (
                McpHubState::Failed {
                    message: message.clone(),
                },
                Vec::new(),
                Vec::new(),
            ),
            McpSlot::Running(hub) => (
                {
                    let waiting = hub
                        .statuses()
                        .iter()
                        .any(|status| status.state == ServerState::Untrusted);
                    if waiting {
                        trust = hub.project_review().map(|review| McpTrustReview {
                            servers: review.servers.iter().map(Into::into).collect(),
                        });
                    }
                    McpHubState::Running
                },
                hub.servers()
                    .iter()
                    .map(|server| {
                        McpServerView::new(
                            &server.status(),
                            server.config().disabled,
                            hub.disabled_here().contains(server.name()),
                        )
                    })
                    .collect(),
                hub.warnings().to_vec(),
            ),
        };
        if let Some(error) = self
            .apply_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
        {
            warnings.insert(0, error);
        }
        McpPanel {
            hub,
            servers,
            warnings,
            user_config_path: self
                .choices
                .user_file()
                .map(|path| path.display().to_string()),
            trust,
        }
    }

    /// The running hub, or why there is none.
    fn hub(&self) -> Result<Arc<McpHub>, CommandError> {
        match &*self.slot() {
            McpSlot::Running(hub) => Ok(Arc::clone(hub)),
            McpSlot::Failed(message) => Err(CommandError::invalid(message.clone())),
            McpSlot::Starting => Err(starting()),
            McpSlot::Closed => Err(CommandError::no_project()),
        }
    }

    /// Restarts server `name` (after any change being applied, so it is the current hub's). The
    /// files are read again first, so a project server whose files changed since they were
    /// trusted waits for trust again instead of failing.
    pub async fn restart(&self, name: &str) -> Result<McpPanel, CommandError> {
        let _change = self.changes.lock().await;
        if matches!(&*self.slot(), McpSlot::Running(_)) {
            self.apply().await;
        }
        self.hub()?.restart(name)?;
        Ok(self.panel())
    }

    /// Trusts the project's `.mcp.json` as it is now (remembered until it changes) and starts
    /// its servers.
    pub async fn trust_project(&self) -> Result<McpPanel, CommandError> {
        // After any change being applied: the approval must be of the file the hub read.
        let _change = self.changes.lock().await;
        self.hub()?.approve_project().await?;
        Ok(self.panel())
    }

    /// The user-wide file, for editing.
    fn user_file(&self) -> Result<UserFile, CommandError> {
        self.choices.user_file().map(UserFile::new).ok_or_else(|| {
            CommandError::new(
                ErrorKind::Io,
                "the home folder is unknown, so there is no user-wide MCP file",
            )
        })
    }

    /// One user-file server's entry as written, for the editor.
    pub async fn entry(&self, name: &str) -> Result<McpServerEntry, CommandError> {
        let file = self.user_file()?;
        let owned = name.to_owned();
        let text = blocking(move || file.entry_text(&owned)).await?;
        Ok(McpServerEntry {
            name: name.to_owned(),
            text,
        })
    }

    /// Adds the servers of `text` to the user-wide file, or replaces server `replacing` with
    /// its one server (renaming it when the name differs) — refused when its entry is no longer
    /// `original`, what the editor started from — and applies the change.
    pub async fn save(
        &self,
        text: &str,
        replacing: Option<String>,
        original: Option<String>,
    ) -> Result<McpPanel, CommandError> {
        let snippet = Snippet::parse(text)?;
        let _change = self.changes.lock().await;
        self.ready()?;
        let file = self.user_file()?;
        let new_name = snippet.names().first().map(|name| (*name).to_owned());
        let old = replacing.clone();
        blocking(move || match (replacing.as_deref(), original.as_deref()) {
            (Some(replacing), Some(original)) => file.save_edit(&snippet, replacing, original),
            (replacing, _) => file.save(&snippet, replacing),
        })
        .await?;
        if let (Some(old), Some(new)) = (old, new_name)
            && old != new
            && let Err(error) = self.choices.rename_server(&old, &new).await
        {
            tracing::warn!(%error, "cannot carry the project switches over to the new name");
        }
        Ok(self.apply().await)
    }

    /// Removes server `name` from the user-wide file and applies the change.
    pub async fn remove(&self, name: &str) -> Result<McpPanel, CommandError> {
        let _change = self.changes.lock().await;
        self.ready()?;
        let file = self.user_file()?;
        let owned = name.to_owned();
        blocking(move || file.remove(&owned)).await?;
        Ok(self.apply().await)
    }

    /// Switches server `name` off for this project (or on again) and applies the change.
    pub async fn set_enabled(&self, name: &str, enabled: bool) -> Result<McpPanel, CommandError> {
        let _change = self.changes.lock().await;
        let hub = self.hub()?;
        // Switching on is always allowed, so a switch left from a removed server can go.
        if !enabled && hub.server(name).is_none() {
            return Err(CommandError::not_found(format!(
                "no MCP server named '{name}' is configured"
            )));
        }
        self.choices.set_server_enabled(name, enabled).await?;
        Ok(self.apply().await)
    }

    /// The Claude Desktop import: its file as found, its servers.
    fn claude(&self) -> Result<ClaudeImport, CommandError> {
        let source = self.claude_file.clone().ok_or_else(|| {
            CommandError::new(
                ErrorKind::Io,
                "the home folder is unknown, so Claude Desktop's configuration can't be found",
            )
        })?;
        Ok(ClaudeImport::new(source, self.user_file()?))
    }

    /// What importing from Claude Desktop would bring.
    pub async fn claude_preview(&self) -> Result<ClaudeImportPreview, CommandError> {
        let import = self.claude()?;
        Ok(blocking(move || import.preview()).await?.into())
    }

    /// Copies Claude Desktop's servers `names` into the user-wide file and applies the change.
    pub async fn import_claude(&self, names: Vec<String>) -> Result<McpPanel, CommandError> {
        let import = self.claude()?;
        let _change = self.changes.lock().await;
        self.ready()?;
        blocking(move || import.import(&names)).await?;
        Ok(self.apply().await)
    }

    /// A change may be made once the servers started (or failed to read their configuration).
    fn ready(&self) -> Result<(), CommandError> {
        match &*self.slot() {
            McpSlot::Running(_) | McpSlot::Failed(_) => Ok(()),
            McpSlot::Starting => Err(starting()),
            McpSlot::Closed => Err(CommandError::no_project()),
        }
    }

    /// Applies what changed on disk or in the store: reloads the running hub (or starts one
    /// where the configuration could not be read before) and answers the panel. A change that
    /// was saved but can't be applied (another file is broken now) is said in the warnings;
    /// the servers that ran keep running.
    async fn apply(&self) -> McpPanel {
        let current = match &*self.slot() {
            McpSlot::Running(hub) => Some(Arc::clone(hub)),
            McpSlot::Failed(_) => None,
            McpSlot::Starting | McpSlot::Closed => return self.panel(),
        };
        let result = match self.choices.settings(false).await {
            Err(error) => Err(McpStartError::Switches(error)),
            Ok(settings) => match &current {
                Some(hub) => hub.reload(settings).await.map_err(McpStartError::Config),
                None => McpHub::start(Arc::clone(&self.tools), settings)
                    .await
                    .map_err(McpStartError::Config),
            },
        };
        match result {
            Ok(hub) => {
                let hub = Arc::new(hub);
                let adopted = {
                    let mut slot = self.slot();
                    let same = match (&*slot, &current) {
                        (McpSlot::Running(running), Some(old)) => Arc::ptr_eq(running, old),
                        (McpSlot::Failed(_), None) => true,
                        _ => false,
                    };
                    if same {
                        *slot = McpSlot::Running(Arc::clone(&hub));
                    }
                    same
                };
                if adopted {
                    self.set_apply_error(None);
                    hub.wait_started(APPLY_WAIT).await;
                } else {
                    // Closed meanwhile.
                    hub.shutdown().await;
                }
            }
            Err(error) => {
                tracing::warn!(%error, "an MCP change could not be applied");
                if current.is_some() {
                    self.set_apply_error(Some(format!(
                        "The change was saved, but the servers were not reloaded: {error}"
                    )));
                } else if let McpSlot::Failed(message) = &mut *self.slot() {
                    *message = error.to_string();
                }
            }
        }
        self.panel()
    }

    fn set_apply_error(&self, error: Option<String>) {
        *self
            .apply_error
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = error;
    }

    /// Stops the servers (on the runtime, when there is one) and refuses further changes.
    pub fn close(&self) {
        let previous = std::mem::replace(&mut *self.slot(), McpSlot::Closed);
        if let McpSlot::Running(hub) = previous
            && let Ok(runtime) = tokio::runtime::Handle::try_current()
        {
            runtime.spawn(async move { hub.shutdown().await });
        }
    }
}

/// Puts a started hub (or why it could not start) in the slot, unless the project closed
/// meanwhile, in which case the hub is shut down.
async fn adopt(servers: &Weak<ProjectServers>, started: Result<McpHub, McpStartError>) {
    let hub = match started {
        Ok(hub) => Arc::new(hub),
        Err(error) => {
            tracing::warn!(%error, "the MCP servers cannot start");
            if let Some(servers) = servers.upgrade() {
                let mut slot = servers.slot();
                if matches!(*slot, McpSlot::Starting) {
                    *slot = McpSlot::Failed(error.to_string());
                }
            }
            return;
        }
    };
    let adopted = servers.upgrade().is_some_and(|servers| {
        let mut slot = servers.slot();
        let starting = matches!(*slot, McpSlot::Starting);
        if starting {
            *slot = McpSlot::Running(Arc::clone(&hub));
        }
        starting
    });
    if !adopted {
        hub.shutdown().await;
    }
}

fn starting() -> CommandError {
    CommandError::new(
        ErrorKind::Busy,
        "the MCP servers are still starting; try again in a moment",
    )
    .with_reason(ErrorReason::McpStarting)
}

/// Runs file work off the async workers.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, EditError> + Send + 'static,
) -> Result<T, CommandError> {
    Ok(tokio::task::spawn_blocking(work).await??)
}

#[cfg(test)]
mod tests {
    use std::path::{Path, PathBuf};

    use crate::project::open::{People, open_tools};
    use gantry_store::Store;
    use serde_json::json;

    use super::*;

    /// The official "everything" server from the npm fixtures.
    fn everything() -> serde_json::Value {
        let entry = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures/mcp-servers/node_modules/@modelcontextprotocol")
            .join("server-everything/dist/index.js");
        assert!(
            entry.exists(),
            "run `npm ci --prefix tests/fixtures/mcp-servers`"
        );
        json!({"command": "node", "args": [entry, "stdio"]})
    }

    struct Rig {
        _dirs: [tempfile::TempDir; 2],
        user_file: PathBuf,
        claude_file: PathBuf,
        servers: Arc<ProjectServers>,
        tools: Arc<ToolManager>,
    }

    async fn rig() -> Rig {
        let (data, root) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        let store = Store::open(data.path().join("gantry.db")).await.unwrap();
        let opened = open_tools(store, root.path(), People::default())
            .await
            .unwrap();
        let user_file = data.path().join("config/gantry/mcp.json");
        let claude_file = data.path().join("config/Claude/claude_desktop_config.json");
        let choices = opened.mcp().with_user_file(Some(user_file.clone()));
        let tools = Arc::new(opened.manager);
        let servers = Arc::new(ProjectServers::with_claude_file(
            Arc::clone(&tools),
            choices,
            Some(claude_file.clone()),
        ));
        servers.start().await;
        Rig {
            _dirs: [data, root],
            user_file,
            claude_file,
            servers,
            tools,
        }
    }

    fn view<'p>(panel: &'p McpPanel, name: &str) -> &'p McpServerView {
        panel
            .servers
            .iter()
            .find(|server| server.name == name)
            .unwrap_or_else(|| panic!("no {name} in {panel:#?}"))
    }

    /// Waits until server `name` is in `state`.
    async fn reaches(servers: &ProjectServers, name: &str, state: &str) -> McpServerView {
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        loop {
            let panel = servers.panel();
            if let Some(server) = panel.servers.iter().find(|server| server.name == name)
                && server.state == state
            {
                return server.clone();
            }
            assert!(
                tokio::time::Instant::now() < deadline,
                "{name} never became {state}: {panel:#?}"
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    fn snippet(name: &str, entry: &serde_json::Value) -> String {
        serde_json::to_string_pretty(&json!({ "mcpServers": { name: entry } })).unwrap()
    }

    #[tokio::test]
    async fn the_panel_adds_edits_switches_off_and_removes_servers_applying_each_change() {
        let rig = rig().await;
        let servers = &rig.servers;
        let panel = servers.panel();
        assert_eq!(panel.hub, McpHubState::Running);
        assert!(panel.servers.is_empty());
        assert_eq!(
            panel.user_config_path.as_deref(),
            Some(rig.user_file.to_str().unwrap())
        );

        // Added: written to the user's file, started, its tools registered.
        let panel = servers
            .save(&snippet("everything", &everything()), None, None)
            .await
            .unwrap();
        assert!(view(&panel, "everything").editable);
        let first = reaches(servers, "everything", "connected").await;
        assert!(rig.tools.get("mcp__everything__echo").is_some());

        // A broken edit: the parser's error with the line, nothing written, nothing restarted.
        let before = std::fs::read(&rig.user_file).unwrap();
        let error = servers
            .save(
                "{\n  \"everything\": {\n    \"command\": 1\n  }\n}",
                Some("everything".into()),
                None,
            )
            .await
            .unwrap_err();
        assert_eq!(error.kind, ErrorKind::InvalidInput);
        assert_eq!(
            error.message,
            "MCP config pasted JSON:3: key 'mcpServers.everything.command': expected a string"
        );
        assert_eq!(std::fs::read(&rig.user_file).unwrap(), before);
        let error = servers
            .save(&snippet("everything", &everything()), None, None)
            .await
            .unwrap_err();
        assert!(error.message.contains("already configured"), "{error:?}");
        // Marked for the UI to word in its language, with the values it needs.
        assert_eq!(
            error.reason,
            Some(ErrorReason::McpNamesTaken {
                names: vec!["everything".into()],
                file: rig.user_file.display().to_string(),
            })
        );
        assert_eq!(
            serde_json::to_value(&error).unwrap()["reason"]["code"],
            "mcp_names_taken"
        );

        // A second server; the first keeps its process.
        servers
            .save(&snippet("second", &everything()), None, None)
            .await
            .unwrap();
        let second = reaches(servers, "second", "connected").await;
        assert_eq!(view(&servers.panel(), "everything").pid, first.pid);

        // Switched off in this project: stopped, its tools gone, the file untouched.
        let panel = servers.set_enabled("everything", false).await.unwrap();
        let off = view(&panel, "everything");
        assert_eq!(off.state, "disabled");
        assert!(off.disabled_in_project && !off.disabled_in_file);
        assert!(rig.tools.get("mcp__everything__echo").is_none());
        assert_eq!(view(&panel, "second").pid, second.pid);
        let error = servers.set_enabled("nope", false).await.unwrap_err();
        assert_eq!(error.kind, ErrorKind::NotFound);

        // Renamed: the switch follows the name; the other server keeps running.
        let panel = servers
            .save(
                &snippet("renamed", &everything()),
                Some("everything".into()),
                None,
            )
            .await
            .unwrap();
        let names: Vec<&str> = panel.servers.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, ["renamed", "second"]);
        assert!(view(&panel, "renamed").disabled_in_project);
        assert_eq!(view(&panel, "second").pid, second.pid);

        // On again.
        servers.set_enabled("renamed", true).await.unwrap();
        reaches(servers, "renamed", "connected").await;
        assert!(rig.tools.get("mcp__renamed__echo").is_some());

        // The editor opens the entry as written.
        let entry = servers.entry("second").await.unwrap();
        let written: serde_json::Value = serde_json::from_str(&entry.text).unwrap();
        assert_eq!(written["mcpServers"]["second"], everything());

        // Removed: stopped, gone from the file and the tools.
        let panel = servers.remove("second").await.unwrap();
        assert!(panel.servers.iter().all(|server| server.name != "second"));
        assert!(rig.tools.get("mcp__second__echo").is_none());
        let file: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&rig.user_file).unwrap()).unwrap();
        assert_eq!(
            file["mcpServers"]
                .as_object()
                .unwrap()
                .keys()
                .collect::<Vec<_>>(),
            ["renamed"]
        );
        servers.close();
        assert!(
            servers
                .save(&snippet("x", &everything()), None, None)
                .await
                .is_err()
        );
    }

    #[tokio::test]
    async fn claude_desktop_servers_are_previewed_and_imported() {
        let rig = rig().await;
        let servers = &rig.servers;
        let preview = servers.claude_preview().await.unwrap();
        assert!(!preview.found);
        assert_eq!(preview.path, rig.claude_file.display().to_string());

        std::fs::create_dir_all(rig.claude_file.parent().unwrap()).unwrap();
        std::fs::write(
            &rig.claude_file,
            serde_json::to_string(&json!({
                "globalShortcut": "Ctrl+Space",
                "mcpServers": {"from-claude": everything(), "other": {"url": "http://127.0.0.1:9/mcp"}}
            }))
            .unwrap(),
        )
        .unwrap();
        let preview = servers.claude_preview().await.unwrap();
        assert!(preview.found);
        let listed: Vec<(&str, &str, bool)> = preview
            .servers
            .iter()
            .map(|s| (s.name.as_str(), s.transport.as_str(), s.in_gantry))
            .collect();
        assert_eq!(
            listed,
            [("from-claude", "stdio", false), ("other", "http", false)]
        );
        assert!(preview.servers[0].target.starts_with("node "));

        let panel = servers
            .import_claude(vec!["from-claude".into()])
            .await
            .unwrap();
        assert_eq!(panel.servers.len(), 1);
        reaches(servers, "from-claude", "connected").await;
        let preview = servers.claude_preview().await.unwrap();
        assert!(preview.servers[0].in_gantry);
        let error = servers.import_claude(Vec::new()).await.unwrap_err();
        assert_eq!(error.message, "choose at least one server");
        assert_eq!(error.reason, Some(ErrorReason::McpNothingChosen));
        servers.close();
    }

    #[tokio::test]
    async fn a_broken_user_file_is_reported_and_never_rewritten() {
        let rig = rig().await;
        let broken = "{\"mcpServers\": {\"x\": {\"command\": []}}}";
        std::fs::create_dir_all(rig.user_file.parent().unwrap()).unwrap();
        std::fs::write(&rig.user_file, broken).unwrap();
        // The running hub can't reload; the change is refused before anything is written.
        let error = rig
            .servers
            .save(&snippet("y", &everything()), None, None)
            .await
            .unwrap_err();
        assert!(
            error.message.contains("key 'mcpServers.x.command'"),
            "{error:?}"
        );
        assert!(error.message.contains("fix the file first"), "{error:?}");
        assert_eq!(std::fs::read_to_string(&rig.user_file).unwrap(), broken);
        // A fresh start shows the error in the panel.
        let servers = Arc::new(ProjectServers::with_claude_file(
            Arc::clone(&rig.tools),
            rig.servers.choices.clone(),
            None,
        ));
        servers.start().await;
        assert!(
            matches!(servers.panel().hub, McpHubState::Failed { message } if message.contains("mcp.json:1")),
            "{:?}",
            servers.panel()
        );
        let error = servers.claude_preview().await.unwrap_err();
        assert!(error.message.contains("Claude Desktop"), "{error:?}");
        rig.servers.close();
    }
}
