//! The handle to one server: what the hub and the front ends hold and ask.
//!
//! An [`McpServerHandle`] is cheap to clone and never blocks on the server: it reads the shared
//! state for a status, nudges the supervisor to start, restart or stop, and reaches the live
//! connection (when there is one) for the catalog's resources and prompts. Sign-in to a remote
//! server also starts here, since the user asks for it by server; the connection that follows
//! picks up the stored tokens.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use gantry_tools::ToolManager;
use tokio::sync::{Notify, watch};
use tokio_util::sync::CancellationToken;

use super::supervisor::supervise;
use super::{Inner, Link, McpOptions, Shared};
use crate::catalog::{CatalogError, RenderedPrompt, ResourcePart};
use crate::config::ServerConfig;
use crate::oauth::{Browser, SignInError, SignedIn, TokenKey, TokenVault};
use crate::review::RunFile;
use crate::status::{McpNotice, ServerState, ServerStatus, SignInState};
use crate::stderr::StderrTail;

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
