//! One server: starting it, watching it, restarting it, stopping it.
//!
//! A server is someone else's program, so every way it can misbehave is expected: it may fail to
//! start, crash mid-call, hang, print garbage on stdout or refuse the handshake. Each server
//! therefore lives behind an [`McpServerHandle`] that owns a supervisor task. The supervisor
//! starts the server (spawning the program in its own process group, a [`ProcessGroup`], or
//! opening the HTTP session), lists its tools into the [`ToolManager`], then waits for the
//! connection to end — the process exiting, the transport closing, garbage on stdout, a restart
//! request or shutdown. A crash fails the calls in flight at once (each call watches its
//! connection's `dead` token) and is followed by a restart with bounded exponential backoff; a
//! protocol violation (garbage) or a configuration problem is not retried until the user asks.
//! Shutdown closes stdin, then signals the process group (TERM, then KILL) and reaps the child,
//! so nothing is left behind; dropping the [`ProcessGroup`] kills the group too, should a
//! session end any other way.
//!
//! Gantry owns the child process instead of using rmcp's child-process transport so that it can
//! read the exit status (the reason a user needs), kill the whole process group (`npx` starts
//! grandchildren) and inspect each stdout line before the protocol sees it.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};
use std::time::{Duration, Instant};

use gantry_tools::process::{ProcessGroup, Signal, signal_name};
use gantry_tools::{CallObserver, CallProgress, Tool, ToolManager, ToolSource};
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::{NotificationContext, Peer, RunningService};
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::process::ChildStdout;
use tokio::sync::{Notify, oneshot, watch};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::adapter::McpTool;
use crate::catalog::{
    CatalogError, RenderedPrompt, ResourcePart, prompt_info, resource_info, template_info,
};
use crate::config::{ServerConfig, TransportConfig};
use crate::errors::connect_sentence;
use crate::expand::{Lookup, ProcessEnv, expand, expand_map};
use crate::level::level_for;
use crate::naming::assign_names;
use crate::oauth::{Browser, SignInError, SignedIn, TokenKey, TokenVault};
use crate::review::{RunFile, run_files};
use crate::status::{
    McpNotice, McpPromptInfo, McpResourceInfo, McpResourceTemplateInfo, McpToolInfo, ServerState,
    ServerStatus, SignInState,
};
use crate::stderr::StderrTail;

/// The longest stdout line accepted from a server (one JSON-RPC message).
const MAX_LINE_BYTES: u64 = 16 * 1024 * 1024;
/// How many stderr lines an error message quotes.
pub(crate) const STDERR_LINES_IN_ERRORS: usize = 10;

/// Timeouts and restart policy. The defaults suit real use; tests shorten them.
#[derive(Debug, Clone)]
pub struct McpOptions {
    /// How long start-up and the handshake may take (a server's `startupTimeout` wins).
    pub startup_timeout: Duration,
    /// How long one call may take (a server's `timeout` wins).
    pub call_timeout: Duration,
    /// The wait before the first restart after a failure; doubled each time.
    pub restart_backoff: Duration,
    /// The longest wait between restarts.
    pub max_restart_backoff: Duration,
    /// How many failed starts in a row before giving up until the user restarts the server.
    pub max_restarts: u32,
    /// A connection that lived this long resets the failure count.
    pub stable_after: Duration,
    /// How long a server gets to exit after its stdin closes (and again after SIGTERM).
    pub shutdown_grace: Duration,
}

impl Default for McpOptions {
    fn default() -> Self {
        Self {
            startup_timeout: Duration::from_secs(30),
            call_timeout: Duration::from_secs(60),
            restart_backoff: Duration::from_millis(500),
            max_restart_backoff: Duration::from_secs(30),
            max_restarts: 5,
            stable_after: Duration::from_secs(60),
            shutdown_grace: Duration::from_secs(2),
        }
    }
}

/// One live connection to a server.
pub(crate) struct Link {
    /// Sends requests.
    pub(crate) peer: Peer<RoleClient>,
    /// Cancelled when the connection ends, after `reason` is set.
    pub(crate) dead: CancellationToken,
    reason: Mutex<Option<String>>,
    epoch: u64,
}

impl Link {
    /// Why the connection ended ("" while it is alive).
    pub(crate) fn reason(&self) -> String {
        self.reason
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .unwrap_or_default()
    }

    fn end(&self, reason: &str) {
        self.reason
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert_with(|| reason.to_owned());
        self.dead.cancel();
    }
}

struct Inner {
    state: ServerState,
    link: Option<Arc<Link>>,
    tools: Vec<McpToolInfo>,
    applied_generation: u64,
    listings: u64,
    restarts: u32,
    pid: Option<u32>,
    started: bool,
    session_stop: CancellationToken,
    resources: Vec<McpResourceInfo>,
    templates: Vec<McpResourceTemplateInfo>,
    prompts: Vec<McpPromptInfo>,
    sign_in: Option<SignInState>,
    /// The `WWW-Authenticate` of the server's last 401 (where sign-in discovery starts).
    challenge: Option<String>,
}

pub(crate) struct Shared {
    pub(crate) config: ServerConfig,
    options: McpOptions,
    trust_hints: AtomicBool,
    manager: Weak<ToolManager>,
    inner: Mutex<Inner>,
    changed: watch::Sender<u64>,
    pub(crate) stderr: StderrTail,
    shutdown: CancellationToken,
    restart: Notify,
    restart_requested: AtomicBool,
    issued_generation: AtomicU64,
    epochs: AtomicU64,
    supervisor: Mutex<Option<JoinHandle<()>>>,
    /// For a project server: the in-project files it runs as the user approved them; every
    /// start checks them again (see [`crate::review`]).
    pinned: std::sync::OnceLock<Vec<RunFile>>,
    /// Where a remote server's sign-in tokens are kept (none: no sign-in).
    vault: std::sync::OnceLock<Arc<dyn TokenVault>>,
    /// Where notices for the front ends go.
    notices: std::sync::OnceLock<tokio::sync::broadcast::Sender<McpNotice>>,
    /// The calls waiting for progress, by progress token: who hears it and for which call.
    progress: Mutex<std::collections::HashMap<String, ProgressListener>>,
}

/// A configured server and its supervisor. Cheap to clone.
#[derive(Clone)]
pub struct McpServerHandle {
    shared: Arc<Shared>,
}

impl std::fmt::Debug for McpServerHandle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpServerHandle")
            .field("name", &self.shared.config.name)
            .field("state", &self.status().state)
            .finish()
    }
}

/// Who hears a call's progress, and for which call.
type ProgressListener = (Arc<dyn CallObserver>, String);

/// Why a start or a connection ended.
struct Ending {
    reason: String,
    /// False for problems a restart can't fix (bad config, garbage on stdout).
    retry: bool,
}

impl Ending {
    fn retry(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            retry: true,
        }
    }

    fn fatal(reason: impl Into<String>) -> Self {
        Self {
            reason: reason.into(),
            retry: false,
        }
    }
}

impl McpServerHandle {
    /// A handle for `config` whose tools go into `manager`. `trust_hints`: whether the server's
    /// annotations may set levels (servers the user configured or approved). Nothing starts until
    /// [`Self::start`]; `initial` is the state shown until then (`Disabled`, `Untrusted` or
    /// `Starting`).
    pub(crate) fn new(
        config: ServerConfig,
        options: McpOptions,
        trust_hints: bool,
        manager: &Arc<ToolManager>,
        initial: ServerState,
    ) -> Self {
        let (changed, _) = watch::channel(0);
        let handle = Self {
            shared: Arc::new(Shared {
                config,
                options,
                trust_hints: AtomicBool::new(trust_hints),
                manager: Arc::downgrade(manager),
                inner: Mutex::new(Inner {
                    state: initial,
                    link: None,
                    tools: Vec::new(),
                    applied_generation: 0,
                    listings: 0,
                    restarts: 0,
                    pid: None,
                    started: false,
                    session_stop: CancellationToken::new(),
                    resources: Vec::new(),
                    templates: Vec::new(),
                    prompts: Vec::new(),
                    sign_in: None,
                    challenge: None,
                }),
                changed,
                stderr: StderrTail::new(),
                shutdown: CancellationToken::new(),
                restart: Notify::new(),
                restart_requested: AtomicBool::new(false),
                issued_generation: AtomicU64::new(0),
                epochs: AtomicU64::new(0),
                supervisor: Mutex::new(None),
                pinned: std::sync::OnceLock::new(),
                vault: std::sync::OnceLock::new(),
                notices: std::sync::OnceLock::new(),
                progress: Mutex::new(std::collections::HashMap::new()),
            }),
        };
        handle.shared.mark_tools_unavailable();
        handle
    }

    /// The same handle keeping sign-in tokens in `vault` (remote servers).
    pub(crate) fn with_vault(self, vault: Option<Arc<dyn TokenVault>>) -> Self {
        if let Some(vault) = vault {
            let _ = self.shared.vault.set(vault);
        }
        self
    }

    /// The same handle sending its notices to `notices`.
    pub(crate) fn with_notices(
        self,
        notices: Option<tokio::sync::broadcast::Sender<McpNotice>>,
    ) -> Self {
        if let Some(notices) = notices {
            let _ = self.shared.notices.set(notices);
        }
        self
    }

    /// The same handle, checking before every start that the in-project files it runs are
    /// still `files` (what the user approved); `None` checks nothing.
    pub(crate) fn pinned(self, files: Option<Vec<RunFile>>) -> Self {
        if let Some(files) = files {
            let _ = self.shared.pinned.set(files);
        }
        self
    }

    /// The server's configured name.
    pub fn name(&self) -> &str {
        &self.shared.config.name
    }

    /// Its configuration.
    pub fn config(&self) -> &ServerConfig {
        &self.shared.config
    }

    /// Starts an approved server: its annotations now count (see [`crate::level`]).
    pub(crate) fn start_trusted(&self) {
        self.shared.trust_hints.store(true, Ordering::SeqCst);
        self.start();
    }

    /// Starts the supervisor (once); later calls do nothing.
    pub(crate) fn start(&self) {
        {
            let mut inner = self.shared.lock();
            if inner.started || self.shared.shutdown.is_cancelled() {
                return;
            }
            inner.started = true;
            inner.state = ServerState::Starting;
        }
        self.shared.mark_tools_unavailable();
        self.shared.bump();
        let task = tokio::spawn(supervise(Arc::clone(&self.shared)));
        *self
            .shared
            .supervisor
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(task);
    }

    /// The current status.
    pub fn status(&self) -> ServerStatus {
        let inner = self.shared.lock();
        ServerStatus {
            name: self.shared.config.name.clone(),
            source: self.shared.config.origin.clone(),
            transport: self.shared.config.transport.summary(),
            state: inner.state.clone(),
            tools: inner.tools.clone(),
            stderr_tail: self.shared.stderr.lines(),
            pid: inner.pid,
            restarts: inner.restarts,
            listings: inner.listings,
            call_timeout: self.shared.call_timeout(),
            resources: inner.resources.clone(),
            resource_templates: inner.templates.clone(),
            prompts: inner.prompts.clone(),
            sign_in: inner.sign_in.clone(),
        }
    }

    /// Waits until `done` holds for the status, or `timeout` passes; returns the last status
    /// either way (`Err` on timeout).
    pub async fn wait_for(
        &self,
        timeout: Duration,
        done: impl Fn(&ServerStatus) -> bool,
    ) -> Result<ServerStatus, ServerStatus> {
        let mut changes = self.shared.changed.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let status = self.status();
            if done(&status) {
                return Ok(status);
            }
            match tokio::time::timeout_at(deadline, changes.changed()).await {
                Ok(Ok(())) => {}
                _ => {
                    let status = self.status();
                    return if done(&status) {
                        Ok(status)
                    } else {
                        Err(status)
                    };
                }
            }
        }
    }

    /// Stops the current connection (if any) and starts the server again now, with a fresh
    /// failure count: the way out of a `failed` state.
    pub fn restart(&self) {
        if self.shared.request_restart() {
            self.start();
        }
    }

    /// Reads resource `uri` of this server.
    pub async fn read_resource(&self, uri: &str) -> Result<Vec<ResourcePart>, CatalogError> {
        let link = self.catalog_link()?;
        crate::catalog::read(&link.peer, self.name(), uri).await
    }

    /// Renders prompt `name` with `arguments` into messages.
    pub async fn render_prompt(
        &self,
        name: &str,
        arguments: serde_json::Map<String, serde_json::Value>,
    ) -> Result<RenderedPrompt, CatalogError> {
        let link = self.catalog_link()?;
        crate::catalog::render(&link.peer, self.name(), name, arguments).await
    }

    /// Asks the server to send `notifications/resources/updated` when `uri` changes (they
    /// arrive as [`McpNotice::ResourceUpdated`]); `subscribe: false` stops that.
    pub async fn subscribe_resource(&self, uri: &str, subscribe: bool) -> Result<(), CatalogError> {
        let link = self.catalog_link()?;
        let supported = link
            .peer
            .peer_info()
            .and_then(|info| info.capabilities.resources.clone())
            .and_then(|resources| resources.subscribe)
            == Some(true);
        if !supported {
            return Err(CatalogError::Unsupported {
                server: self.name().to_owned(),
                what: "does not offer resource subscriptions".into(),
            });
        }
        #[allow(deprecated)]
        let result = if subscribe {
            link.peer
                .subscribe(rmcp::model::SubscribeRequestParams::new(uri))
                .await
        } else {
            link.peer
                .unsubscribe(rmcp::model::UnsubscribeRequestParams::new(uri))
                .await
        };
        result.map(drop).map_err(|error| CatalogError::Failed {
            server: self.name().to_owned(),
            action: format!("subscribe to {uri}"),
            reason: crate::catalog::service_error_sentence(&error),
        })
    }

    fn catalog_link(&self) -> Result<Arc<Link>, CatalogError> {
        self.shared
            .current_link()
            .map_err(|reason| CatalogError::NotRunning {
                server: self.name().to_owned(),
                reason,
            })
    }

    /// The key this server's sign-in tokens are kept under (its name and expanded URL), or
    /// why it has none.
    fn token_key(&self) -> Result<TokenKey, SignInError> {
        crate::oauth::token_key(&self.shared.config)
    }

    /// Signs in to this remote server (see [`crate::oauth`]): opens the authorization page with
    /// `browser`, waits for the user, stores the tokens and reconnects.
    pub async fn sign_in(
        &self,
        browser: &dyn Browser,
        timeout: Duration,
    ) -> Result<SignedIn, SignInError> {
        let key = self.token_key()?;
        let vault =
            self.shared.vault.get().cloned().ok_or_else(|| {
                SignInError::Vault("no keychain is set up for sign-in tokens".into())
            })?;
        let challenge = self.shared.lock().challenge.clone();
        let signed_in = crate::oauth::sign_in(
            &key,
            challenge.as_deref(),
            vault,
            browser,
            timeout,
            &self.shared.shutdown,
        )
        .await?;
        tracing::info!(server = %self.name(), "signed in");
        self.restart();
        Ok(signed_in)
    }

    /// Forgets this server's sign-in tokens (true when there were some) and reconnects (the
    /// server will ask again).
    pub async fn sign_out(&self) -> Result<bool, SignInError> {
        let key = self.token_key()?;
        let Some(vault) = self.shared.vault.get() else {
            return Ok(false);
        };
        let forgot = vault.clear(&key).await.map_err(SignInError::Vault)?;
        {
            let mut inner = self.shared.lock();
            if inner.sign_in.is_some() {
                inner.sign_in = Some(SignInState::Required);
            }
        }
        self.restart();
        Ok(forgot)
    }

    /// Stops the server: closes the connection, ends the process (group) and reaps it. Its
    /// tools are removed from the manager.
    pub async fn shutdown(&self) {
        self.shared.shutdown.cancel();
        self.shared.restart.notify_one();
        let task = self
            .shared
            .supervisor
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .take();
        if let Some(task) = task {
            let _ = task.await;
        }
        {
            let mut inner = self.shared.lock();
            if inner.started {
                inner.state = ServerState::Stopped;
            }
            inner.tools.clear();
            inner.link = None;
            inner.pid = None;
        }
        if let Some(manager) = self.shared.manager.upgrade() {
            manager.replace_source(&self.shared.source(), Vec::new());
            manager.set_unavailable(&self.shared.tool_prefix(), None);
        }
        self.shared.bump();
    }

    /// Tells the manager again why this server's tools are missing (after another handle of
    /// the same name stopped and cleared it).
    pub(crate) fn refresh_unavailable(&self) {
        self.shared.mark_tools_unavailable();
    }
}

impl Shared {
    fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ends the current connection so the supervisor starts the server again at once; true when
    /// the supervisor never started (the caller starts it).
    pub(crate) fn request_restart(&self) -> bool {
        let start_now = {
            let inner = self.lock();
            if !inner.started {
                true
            } else {
                self.restart_requested.store(true, Ordering::SeqCst);
                inner.session_stop.cancel();
                false
            }
        };
        if !start_now {
            self.restart.notify_one();
        }
        start_now
    }

    /// The server said its token is no good any more (a 401 mid-session): sign-in is needed.
    pub(crate) fn lost_authorization(&self) {
        self.lock().sign_in = Some(SignInState::Required);
        self.bump();
        let _ = self.request_restart();
    }

    /// The registry-name prefix of this server's tools.
    fn tool_prefix(&self) -> String {
        format!("mcp__{}__", crate::naming::sanitize(&self.config.name))
    }

    /// Tells the manager why this server's tools are missing (or that they are not): a call to
    /// one of a server that never connected says why instead of "unknown tool".
    fn mark_tools_unavailable(&self) {
        let Some(manager) = self.manager.upgrade() else {
            return;
        };
        let name = &self.config.name;
        let why = match &self.lock().state {
            ServerState::Connected => None,
            ServerState::Starting => Some(format!("MCP server '{name}' is still starting")),
            ServerState::Failed { reason } => {
                Some(format!("MCP server '{name}' is not running: {reason}"))
            }
            ServerState::Stopped => Some(format!("MCP server '{name}' was stopped")),
            ServerState::Disabled => Some(format!(
                "MCP server '{name}' is switched off (in its file or for this project)"
            )),
            ServerState::Untrusted => Some(format!(
                "MCP server '{name}' comes from this project's .mcp.json, which the user has not trusted"
            )),
        };
        manager.set_unavailable(&self.tool_prefix(), why);
    }

    /// Sends a notice to the front ends.
    fn notify(&self, notice: McpNotice) {
        if let Some(notices) = self.notices.get() {
            let _ = notices.send(notice);
        }
    }

    /// Registers a call's progress token; the returned guard unregisters it.
    pub(crate) fn watch_progress(
        self: &Arc<Self>,
        token: String,
        observer: Arc<dyn CallObserver>,
        call_id: String,
    ) -> ProgressGuard {
        self.progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(token.clone(), (observer, call_id));
        ProgressGuard {
            shared: Arc::downgrade(self),
            token,
        }
    }

    /// Lists resources, resource templates and prompts, as far as the server offers them.
    async fn refresh_catalog(self: &Arc<Self>, link: &Arc<Link>) {
        let capabilities = link
            .peer
            .peer_info()
            .map(|info| info.capabilities.clone())
            .unwrap_or_default();
        let name = &self.config.name;
        let (mut resources, mut templates, mut prompts) = (Vec::new(), Vec::new(), Vec::new());
        if capabilities.resources.is_some() {
            match link.peer.list_all_resources().await {
                Ok(listed) => resources = listed.iter().map(resource_info).collect(),
                Err(error) => {
                    tracing::warn!(server = %name, error = %crate::catalog::service_error_sentence(&error), "resources/list failed")
                }
            }
            match link.peer.list_all_resource_templates().await {
                Ok(listed) => templates = listed.iter().map(template_info).collect(),
                Err(error) => {
                    tracing::debug!(server = %name, error = %crate::catalog::service_error_sentence(&error), "resources/templates/list failed")
                }
            }
        }
        if capabilities.prompts.is_some() {
            match link.peer.list_all_prompts().await {
                Ok(listed) => prompts = listed.iter().map(prompt_info).collect(),
                Err(error) => {
                    tracing::warn!(server = %name, error = %crate::catalog::service_error_sentence(&error), "prompts/list failed")
                }
            }
        }
        {
            let mut inner = self.lock();
            if inner.link.as_ref().is_none_or(|l| l.epoch != link.epoch) {
                return;
            }
            inner.resources = resources;
            inner.templates = templates;
            inner.prompts = prompts;
        }
        self.bump();
    }

    fn bump(&self) {
        self.changed.send_modify(|version| *version += 1);
    }

    fn set_state(&self, state: ServerState) {
        self.lock().state = state;
        self.mark_tools_unavailable();
        self.bump();
    }

    pub(crate) fn source(&self) -> ToolSource {
        ToolSource::Mcp {
            server: self.config.name.clone(),
        }
    }

    pub(crate) fn call_timeout(&self) -> Duration {
        self.config
            .call_timeout
            .unwrap_or(self.options.call_timeout)
    }

    fn startup_timeout(&self) -> Duration {
        self.config
            .startup_timeout
            .unwrap_or(self.options.startup_timeout)
    }

    /// The live connection, or why there is none.
    pub(crate) fn current_link(&self) -> Result<Arc<Link>, String> {
        let inner = self.lock();
        match (&inner.link, &inner.state) {
            (Some(link), _) => Ok(Arc::clone(link)),
            (None, ServerState::Failed { reason }) => Err(reason.clone()),
            (None, ServerState::Starting) if inner.restarts > 0 => {
                Err("it crashed and is being restarted".into())
            }
            (None, ServerState::Starting) => Err("it is still starting".into()),
            (None, ServerState::Stopped) => Err("it was stopped".into()),
            (None, other) => Err(format!("it is {}", other.as_str())),
        }
    }

    /// Lists the server's tools and registers them, unless a newer listing already landed.
    async fn refresh_tools(self: &Arc<Self>, link: &Arc<Link>) -> Result<(), String> {
        let generation = self.issued_generation.fetch_add(1, Ordering::SeqCst) + 1;
        let listed = link
            .peer
            .list_all_tools()
            .await
            .map_err(|error| format!("tools/list failed: {error}"));
        let mut inner = self.lock();
        inner.listings += 1;
        let listed = match listed {
            Ok(listed) => listed,
            Err(error) => {
                drop(inner);
                self.bump();
                return Err(error);
            }
        };
        let current = inner.link.as_ref().is_some_and(|l| l.epoch == link.epoch);
        if generation <= inner.applied_generation || !current {
            tracing::debug!(
                server = %self.config.name,
                generation,
                "ignoring a tool listing older than the one registered"
            );
            drop(inner);
            self.bump();
            return Ok(());
        }
        inner.applied_generation = generation;
        let mut tools: Vec<Arc<dyn Tool>> = Vec::with_capacity(listed.len());
        let mut infos = Vec::with_capacity(listed.len());
        let remote_names: Vec<String> = listed
            .iter()
            .map(|remote| remote.name.to_string())
            .collect();
        let names = assign_names(&self.config.name, &remote_names);
        for ((remote, remote_name), name) in listed.into_iter().zip(remote_names).zip(names) {
            let level = level_for(
                &self.config,
                &remote_name,
                remote.annotations.as_ref(),
                self.trust_hints.load(Ordering::SeqCst),
            );
            infos.push(McpToolInfo {
                name: name.clone(),
                remote_name: remote_name.clone(),
                level,
            });
            tools.push(Arc::new(McpTool::new(
                Arc::downgrade(self),
                name,
                &remote,
                level,
            )));
        }
        if let Some(manager) = self.manager.upgrade() {
            let clashes = manager.replace_source(&self.source(), tools);
            if !clashes.is_empty() {
                tracing::warn!(
                    server = %self.config.name,
                    ?clashes,
                    "MCP tools not registered: their names are taken by other tools"
                );
                infos.retain(|info| !clashes.contains(&info.name));
            }
        }
        inner.tools = infos;
        drop(inner);
        self.bump();
        Ok(())
    }
}

/// The client side of each connection: identifies Gantry and re-lists tools on
/// `notifications/tools/list_changed`.
struct ClientSide {
    shared: Weak<Shared>,
    epoch: u64,
}

impl ClientHandler for ClientSide {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("gantry", env!("CARGO_PKG_VERSION")),
        )
        .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        if let Some((shared, link)) = self.current() {
            tokio::spawn(async move {
                if let Err(error) = shared.refresh_tools(&link).await {
                    tracing::warn!(server = %shared.config.name, %error, "re-listing tools failed");
                }
                shared.notify(McpNotice::ListChanged {
                    server: shared.config.name.clone(),
                });
            });
        }
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.refresh_catalog();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.refresh_catalog();
    }

    async fn on_resource_updated(
        &self,
        params: rmcp::model::ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some((shared, _)) = self.current() {
            shared.notify(McpNotice::ResourceUpdated {
                server: shared.config.name.clone(),
                uri: params.uri,
            });
        }
    }

    async fn on_progress(
        &self,
        params: rmcp::model::ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let Some(shared) = self.shared.upgrade() else {
            return;
        };
        let token = progress_token_text(&params.progress_token);
        let listener = shared
            .progress
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&token)
            .cloned();
        if let Some((observer, call_id)) = listener {
            observer.progress(
                &call_id,
                &CallProgress {
                    progress: params.progress,
                    total: params.total,
                    message: params.message,
                },
            );
        }
    }
}

impl ClientSide {
    /// The server and its live connection, when this handler's connection is the live one.
    fn current(&self) -> Option<(Arc<Shared>, Arc<Link>)> {
        let shared = self.shared.upgrade()?;
        let link = shared
            .lock()
            .link
            .clone()
            .filter(|link| link.epoch == self.epoch)?;
        Some((shared, link))
    }

    fn refresh_catalog(&self) {
        if let Some((shared, link)) = self.current() {
            tokio::spawn(async move {
                shared.refresh_catalog(&link).await;
                shared.notify(McpNotice::ListChanged {
                    server: shared.config.name.clone(),
                });
            });
        }
    }
}

/// A progress token as a map key.
pub(crate) fn progress_token_text(token: &rmcp::model::ProgressToken) -> String {
    match &token.0 {
        rmcp::model::NumberOrString::Number(number) => number.to_string(),
        rmcp::model::NumberOrString::String(text) => text.to_string(),
    }
}

/// Unregisters a call's progress token when the call ends.
pub(crate) struct ProgressGuard {
    shared: Weak<Shared>,
    token: String,
}

impl Drop for ProgressGuard {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared
                .progress
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .remove(&self.token);
        }
    }
}

type Running = RunningService<RoleClient, ClientSide>;

/// A started process, as far as the supervisor cares.
struct ChildProcess {
    group: ProcessGroup,
    stderr_task: JoinHandle<()>,
    garbage: oneshot::Receiver<String>,
}

/// A connected server.
struct Session {
    running: Running,
    child: Option<ChildProcess>,
    link: Arc<Link>,
}

async fn supervise(shared: Arc<Shared>) {
    let mut failures = 0u32;
    loop {
        if shared.shutdown.is_cancelled() {
            break;
        }
        let session_stop = CancellationToken::new();
        {
            let mut inner = shared.lock();
            inner.state = ServerState::Starting;
            inner.session_stop = session_stop.clone();
        }
        shared.bump();
        let ending = match connect(&shared).await {
            Ok(session) => {
                let since = Instant::now();
                let ending = run_session(&shared, session, &session_stop).await;
                if since.elapsed() >= shared.options.stable_after {
                    failures = 0;
                }
                ending
            }
            Err(ending) => ending,
        };
        {
            let mut inner = shared.lock();
            inner.link = None;
            inner.pid = None;
        }
        if shared.shutdown.is_cancelled() {
            break;
        }
        if shared.restart_requested.swap(false, Ordering::SeqCst) {
            failures = 0;
            shared.set_state(ServerState::Starting);
            continue;
        }
        failures += 1;
        tracing::warn!(server = %shared.config.name, reason = %ending.reason, "MCP server is not running");
        let give_up = !ending.retry || failures > shared.options.max_restarts;
        let reason = if ending.retry && give_up {
            format!(
                "{} (gave up after {} attempts; restart it to try again)",
                ending.reason, failures
            )
        } else {
            ending.reason
        };
        shared.set_state(ServerState::Failed { reason });
        if give_up {
            tokio::select! {
                () = shared.shutdown.cancelled() => break,
                () = shared.restart.notified() => {}
            }
            shared.restart_requested.store(false, Ordering::SeqCst);
            failures = 0;
            continue;
        }
        let exponent = (failures - 1).min(16);
        let backoff = shared
            .options
            .restart_backoff
            .saturating_mul(1 << exponent)
            .min(shared.options.max_restart_backoff);
        tokio::select! {
            () = shared.shutdown.cancelled() => break,
            () = shared.restart.notified() => {
                shared.restart_requested.store(false, Ordering::SeqCst);
                failures = 0;
            }
            () = tokio::time::sleep(backoff) => {}
        }
        shared.lock().restarts += 1;
    }
}

/// Starts the server and completes the handshake and the first listing.
async fn connect(shared: &Arc<Shared>) -> Result<Session, Ending> {
    let epoch = shared.epochs.fetch_add(1, Ordering::SeqCst) + 1;
    let client = ClientSide {
        shared: Arc::downgrade(shared),
        epoch,
    };
    check_pinned_files(shared).await?;
    let lookup = ProcessEnv;
    let (running, child) = match &shared.config.transport {
        TransportConfig::Sse { .. } => {
            return Err(Ending::fatal(format!(
                "server '{}' uses the legacy SSE transport (\"type\": \"sse\"), which Gantry does not support; point it at the server's streamable HTTP endpoint (\"type\": \"http\") instead",
                shared.config.name
            )));
        }
        TransportConfig::Http { url, headers } => {
            let running = connect_http(shared, client, url, headers, &lookup).await?;
            (running, None)
        }
        TransportConfig::Stdio {
            command,
            args,
            env,
            cwd,
        } => {
            let (running, child) =
                connect_stdio(shared, client, command, args, env, cwd.as_deref(), &lookup).await?;
            (running, Some(child))
        }
    };
    let link = Arc::new(Link {
        peer: running.peer().clone(),
        dead: CancellationToken::new(),
        reason: Mutex::new(None),
        epoch,
    });
    let session = Session {
        running,
        child,
        link: Arc::clone(&link),
    };
    // The first listing happens before the server counts as connected, so "connected" means
    // its tools are registered.
    {
        let mut inner = shared.lock();
        inner.link = Some(Arc::clone(&link));
        inner.pid = session.child.as_ref().map(|child| child.group.id());
    }
    if let Err(error) = shared.refresh_tools(&link).await {
        shared.lock().link = None;
        let reason = close_session(shared, session, &error).await;
        return Err(Ending::retry(reason));
    }
    shared.refresh_catalog(&link).await;
    shared.set_state(ServerState::Connected);
    Ok(session)
}

/// Refuses to start a project server whose in-project files changed since the user approved
/// them: the approval covered their content, not their names.
async fn check_pinned_files(shared: &Arc<Shared>) -> Result<(), Ending> {
    let (Some(pinned), crate::config::ConfigOrigin::Project { root, .. }) =
        (shared.pinned.get(), &shared.config.origin)
    else {
        return Ok(());
    };
    let (config, root) = (shared.config.clone(), root.clone());
    let now = tokio::task::spawn_blocking(move || run_files(&config, &root))
        .await
        .unwrap_or_default();
    if &now == pinned {
        return Ok(());
    }
    let changed: Vec<&str> = now
        .iter()
        .filter(|file| !pinned.contains(file))
        .map(|file| file.path.as_str())
        .chain(
            pinned
                .iter()
                .filter(|file| !now.iter().any(|current| current.path == file.path))
                .map(|file| file.path.as_str()),
        )
        .collect();
    Err(Ending::fatal(format!(
        "{} changed since you trusted this project's .mcp.json, so Gantry did not start it; restart it to review the file again",
        changed.join(", ")
    )))
}

async fn connect_http(
    shared: &Arc<Shared>,
    client: ClientSide,
    url: &str,
    headers: &std::collections::BTreeMap<String, String>,
    lookup: &dyn Lookup,
) -> Result<Running, Ending> {
    let url = expand(url, "url", lookup).map_err(|e| Ending::fatal(e.to_string()))?;
    let headers =
        expand_map(headers, "headers", lookup).map_err(|e| Ending::fatal(e.to_string()))?;
    let mut config = StreamableHttpClientTransportConfig::with_uri(url.clone());
    let mut custom = std::collections::HashMap::new();
    for (name, value) in &headers {
        if name.eq_ignore_ascii_case("authorization")
            && let Some(token) = value.strip_prefix("Bearer ")
        {
            config = config.auth_header(token.trim().to_owned());
            continue;
        }
        let header = http::HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| Ending::fatal(format!("headers.{name}: not a valid header name")))?;
        // Never quote the value: it is usually a secret.
        let value = http::HeaderValue::from_str(value)
            .map_err(|_| Ending::fatal(format!("headers.{name}: not a valid header value")))?;
        custom.insert(header, value);
    }
    let config = config.custom_headers(custom);
    let configured_token = config.auth_header.is_some();
    let key = TokenKey::new(&shared.config.name, &url);
    // Tokens from a sign-in, unless the config sends its own Authorization header.
    let authorized = match shared.vault.get() {
        Some(vault) if !configured_token => {
            crate::oauth::authorized_client(&key, Arc::clone(vault))
                .await
                .map_err(|reason| {
                    Ending::retry(format!("could not use the stored sign-in: {reason}"))
                })?
        }
        _ => None,
    };
    let signed_in = authorized.is_some();
    let timeout = shared.startup_timeout();
    let handshake = async {
        match authorized {
            Some(auth) => {
                client
                    .serve(StreamableHttpClientTransport::with_client(auth, config))
                    .await
            }
            None => {
                let plain = crate::oauth::plain_client().map_err(|reason| {
                    rmcp::service::ClientInitializeError::ConnectionClosed(reason)
                })?;
                client
                    .serve(StreamableHttpClientTransport::with_client(plain, config))
                    .await
            }
        }
    };
    let result = tokio::select! {
        () = shared.shutdown.cancelled() => return Err(Ending::fatal("Gantry is shutting down")),
        result = tokio::time::timeout(timeout, handshake) => result,
    };
    match result {
        Ok(Ok(running)) => {
            if signed_in && let Some(vault) = shared.vault.get() {
                let account = crate::oauth::stored_credentials(vault.as_ref(), &key)
                    .await
                    .ok()
                    .flatten()
                    .and_then(|stored| crate::oauth::account_of(&stored));
                shared.lock().sign_in = Some(SignInState::SignedIn { account });
            }
            Ok(running)
        }
        Ok(Err(error)) if error.is_authorization_required() => {
            {
                let mut inner = shared.lock();
                inner.challenge = error.auth_challenge().map(str::to_owned);
                inner.sign_in = Some(SignInState::Required);
            }
            let how = if shared.vault.get().is_some() {
                format!(
                    "; sign in (MCP panel, or gantry-cli mcp login {})",
                    shared.config.name
                )
            } else {
                String::new()
            };
            // Retrying won't help until someone signs in.
            Err(Ending::fatal(format!("{}{how}", connect_sentence(&error))))
        }
        Ok(Err(error)) => Err(Ending::retry(connect_sentence(&error))),
        Err(_) => Err(Ending::retry(format!(
            "did not answer the MCP handshake within {} s",
            timeout.as_secs_f64()
        ))),
    }
}

#[allow(clippy::too_many_arguments)]
async fn connect_stdio(
    shared: &Arc<Shared>,
    client: ClientSide,
    command: &str,
    args: &[String],
    env: &std::collections::BTreeMap<String, String>,
    cwd: Option<&str>,
    lookup: &dyn Lookup,
) -> Result<(Running, ChildProcess), Ending> {
    let fatal = |error: crate::expand::ExpandError| Ending::fatal(error.to_string());
    let program = expand(command, "command", lookup).map_err(fatal)?;
    let args = args
        .iter()
        .enumerate()
        .map(|(index, arg)| expand(arg, &format!("args[{index}]"), lookup))
        .collect::<Result<Vec<_>, _>>()
        .map_err(fatal)?;
    let env = expand_map(env, "env", lookup).map_err(fatal)?;
    let base = shared.config.origin.base_dir();
    let program = resolve_program(&program, &base);
    let mut command_line = tokio::process::Command::new(&program);
    // An empty environment plus an allowlist and the configured `env` (see `child_env`):
    // Gantry's secrets do not leak into every server.
    command_line
        .args(&args)
        .env_clear()
        .envs(crate::child_env::current_server_environment(&env))
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match cwd {
        Some(dir) => {
            let dir = expand(dir, "cwd", lookup).map_err(fatal)?;
            command_line.current_dir(base.join(dir));
        }
        None if matches!(
            shared.config.origin,
            crate::config::ConfigOrigin::Project { .. }
        ) =>
        {
            command_line.current_dir(&base);
        }
        None => {}
    }
    // Its own process group, so shutdown can end everything it started (`npx` starts
    // grandchildren).
    shared.stderr.new_attempt();
    let mut group = ProcessGroup::spawn(&mut command_line)
        .map_err(|error| Ending::fatal(format!("cannot start '{}': {error}", program.display())))?;
    let pid = group.id();
    let (Some(stdin), Some(stdout), Some(stderr)) =
        (group.take_stdin(), group.take_stdout(), group.take_stderr())
    else {
        let _ = group.signal(Signal::KILL);
        let _ = group.wait().await;
        return Err(Ending::fatal("the server's stdio could not be set up"));
    };
    shared.lock().pid = Some(pid);
    shared.bump();
    let stderr_task = tokio::spawn(shared.stderr.clone().drain(stderr));
    let (garbage_tx, mut garbage) = oneshot::channel();
    let (protocol_in, filter_out) = tokio::io::duplex(64 * 1024);
    tokio::spawn(filter_stdout(stdout, filter_out, garbage_tx));
    let timeout = shared.startup_timeout();
    let handshake = tokio::time::timeout(timeout, client.serve((protocol_in, stdin)));
    let failure = tokio::select! {
        biased;
        () = shared.shutdown.cancelled() => Ending::fatal("Gantry is shutting down"),
        Ok(garbage) = &mut garbage => Ending::fatal(garbage),
        status = group.wait() => Ending::retry(match status {
            Ok(status) => format!("{} during start-up", describe_exit(status)),
            Err(error) => format!("could not be watched: {error}"),
        }),
        result = handshake => match result {
            Ok(Ok(running)) => {
                return Ok((running, ChildProcess { group, stderr_task, garbage }));
            }
            Ok(Err(error)) => {
                // The process usually explains a failed handshake by exiting: prefer its status.
                match tokio::time::timeout(Duration::from_millis(500), group.wait()).await {
                    Ok(Ok(status)) => Ending::retry(format!("{} during start-up", describe_exit(status))),
                    _ => match garbage.try_recv() {
                        Ok(garbage) => Ending::fatal(garbage),
                        Err(_) => Ending::retry(format!("the MCP handshake failed: {}", connect_sentence(&error))),
                    },
                }
            }
            Err(_) => Ending::retry(format!(
                "did not finish start-up within {} s",
                timeout.as_secs_f64()
            )),
        },
    };
    end_process(&mut group, Duration::ZERO).await;
    let _ = tokio::time::timeout(Duration::from_millis(500), stderr_task).await;
    Err(failure)
}

/// A command with a `/` in it is a path, relative to the config's base folder; a bare name is
/// looked up on `PATH`.
fn resolve_program(program: &str, base: &Path) -> PathBuf {
    let path = Path::new(program);
    if program.contains('/') && path.is_relative() {
        base.join(path)
    } else {
        path.to_path_buf()
    }
}

/// Copies the server's stdout to the protocol, one line at a time, and stops at the first line
/// that is not JSON (reporting it on `garbage`): a server that prints anything else on stdout
/// breaks the protocol's framing, and guessing around it would hide the bug.
async fn filter_stdout(
    stdout: ChildStdout,
    mut out: tokio::io::DuplexStream,
    garbage: oneshot::Sender<String>,
) {
    let mut reader = BufReader::new(stdout);
    let mut line = Vec::new();
    loop {
        line.clear();
        let read = (&mut reader)
            .take(MAX_LINE_BYTES + 1)
            .read_until(b'\n', &mut line)
            .await;
        match read {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if line.len() as u64 > MAX_LINE_BYTES {
            let _ = garbage
                .send("wrote a line of more than 16 MiB to stdout; Gantry disconnected it".into());
            break;
        }
        let text = line.trim_ascii();
        if text.is_empty() {
            continue;
        }
        if serde_json::from_slice::<serde::de::IgnoredAny>(text).is_err() {
            let shown = gantry_tools::text::excerpt(&String::from_utf8_lossy(text), 80);
            let _ = garbage.send(format!(
                "wrote something that is not JSON-RPC to stdout ({shown:?}); Gantry disconnected it (MCP servers must log to stderr)"
            ));
            break;
        }
        if !line.ends_with(b"\n") {
            line.push(b'\n');
        }
        if out.write_all(&line).await.is_err() {
            break;
        }
    }
}

/// Waits for the connection to end, then cleans up; returns why it ended.
async fn run_session(
    shared: &Arc<Shared>,
    mut session: Session,
    session_stop: &CancellationToken,
) -> Ending {
    let ending = {
        let (process, garbage) = match session.child.as_mut() {
            Some(process) => (Some(&mut process.group), Some(&mut process.garbage)),
            None => (None, None),
        };
        let child_exit = async move {
            match process {
                Some(group) => group.wait().await,
                None => std::future::pending().await,
            }
        };
        let garbage = async move {
            match garbage {
                Some(receiver) => match receiver.await {
                    Ok(reason) => reason,
                    // The filter ended without finding garbage (end of output): not this branch.
                    Err(_) => std::future::pending().await,
                },
                None => std::future::pending().await,
            }
        };
        let running = &session.running;
        let closed = async move {
            // Remote servers have no process to watch: the protocol loop ending is the sign.
            while !running.is_transport_closed() {
                tokio::time::sleep(Duration::from_millis(200)).await;
            }
        };
        tokio::select! {
            biased;
            () = shared.shutdown.cancelled() => None,
            () = session_stop.cancelled() => None,
            reason = garbage => Some(Ending::fatal(reason)),
            status = child_exit => Some(Ending::retry(match status {
                Ok(status) => describe_exit(status),
                Err(error) => format!("could not be watched: {error}"),
            })),
            () = closed => Some(Ending::retry(CLOSED)),
        }
    };
    match ending {
        None => {
            // Shutdown or a restart: close politely.
            let reason = if shared.shutdown.is_cancelled() {
                "it was stopped"
            } else {
                "it is being restarted"
            };
            Ending::retry(close_session(shared, session, reason).await)
        }
        Some(ending) => {
            let reason = close_session(shared, session, &ending.reason).await;
            Ending {
                reason,
                retry: ending.retry,
            }
        }
    }
}

const CLOSED: &str = "closed the connection";

/// Ends the session: stops the protocol loop (which closes the server's stdin), ends the process
/// (politely first when it is still running), waits for its last stderr lines, then fails the
/// calls in flight with `reason` (refined by the exit status when the process ended on its own).
/// Returns the final reason.
async fn close_session(shared: &Arc<Shared>, session: Session, reason: &str) -> String {
    let Session {
        running,
        child,
        link,
    } = session;
    let grace = shared.options.shutdown_grace;
    let mut reason = reason.to_owned();
    if let Some(mut process) = child {
        let exited_on_its_own = process.group.try_wait().ok().flatten();
        let _ = tokio::time::timeout(grace, running.cancel()).await;
        let status = end_process(&mut process.group, grace).await;
        if reason == CLOSED
            && let Some(status) = exited_on_its_own.or(status)
        {
            reason = describe_exit(status);
        }
        let _ = tokio::time::timeout(Duration::from_millis(500), process.stderr_task).await;
    } else {
        let _ = tokio::time::timeout(grace, running.cancel()).await;
    }
    link.end(&reason);
    reason
}

/// Ends a server process and its group: waits `grace` for it to exit (stdin is closed), then
/// sends SIGTERM to the group and waits `grace` again, then SIGKILL; always reaps the leader and
/// kills whatever is left in its group. Returns its exit status when known.
async fn end_process(group: &mut ProcessGroup, grace: Duration) -> Option<ExitStatus> {
    let mut status = match tokio::time::timeout(grace, group.wait()).await {
        Ok(Ok(status)) => Some(status),
        _ => None,
    };
    if status.is_none() {
        let _ = group.signal(Signal::TERM);
        status = match tokio::time::timeout(grace, group.wait()).await {
            Ok(Ok(status)) => Some(status),
            _ => None,
        };
    }
    if status.is_none() {
        let _ = group.signal(Signal::KILL);
        status = group.wait().await.ok();
    }
    // Grandchildren that outlived the leader (a group with nobody left is not an error).
    let _ = group.signal(Signal::KILL);
    status
}

/// "exited with status 3", "was killed by signal 9 (SIGKILL)".
pub(crate) fn describe_exit(status: ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("exited with status {code}");
    }
    match status.signal() {
        Some(signal) => match signal_name(signal) {
            Some(name) => format!("was killed by signal {signal} ({name})"),
            None => format!("was killed by signal {signal}"),
        },
        None => format!("exited ({status})"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn exits_are_described() {
        let status = tokio::process::Command::new("sh")
            .args(["-c", "exit 3"])
            .status()
            .await
            .unwrap();
        assert_eq!(describe_exit(status), "exited with status 3");
        let status = tokio::process::Command::new("sh")
            .args(["-c", "kill -9 $$"])
            .status()
            .await
            .unwrap();
        assert_eq!(describe_exit(status), "was killed by signal 9 (SIGKILL)");
        let status = tokio::process::Command::new("sh")
            .args(["-c", "kill -TERM $$"])
            .status()
            .await
            .unwrap();
        assert_eq!(describe_exit(status), "was killed by signal 15 (SIGTERM)");
    }

    #[test]
    fn relative_programs_resolve_against_the_base() {
        let base = Path::new("/project");
        assert_eq!(
            resolve_program("./bin/server", base),
            Path::new("/project/./bin/server")
        );
        assert_eq!(resolve_program("npx", base), Path::new("npx"));
        assert_eq!(resolve_program("/usr/bin/x", base), Path::new("/usr/bin/x"));
    }
}
