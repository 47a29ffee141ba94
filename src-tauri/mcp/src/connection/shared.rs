//! The state a server's handle, supervisor, protocol handler and tool adapters share.
//!
//! [`Shared`] is the one place a server's state changes: every change bumps a version the
//! handle's `wait_for` watches, and every state tells the [`ToolManager`](gantry_tools::ToolManager)
//! why the server's tools are missing (or that they are not). It also turns the server's
//! `tools/list` into registered [`McpTool`]s, ignoring a listing that a newer one or a newer
//! connection overtook, and keeps the resource and prompt catalog current.

use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};
use std::time::Duration;

use gantry_tools::{Tool, ToolSource};

use super::{Inner, Link, Shared};
use crate::adapter::McpTool;
use crate::catalog::{prompt_info, resource_info, template_info};
use crate::level::level_for;
use crate::naming::assign_names;
use crate::status::{McpNotice, McpToolInfo, ServerState, SignInState};

impl Shared {
    /// The mutable state, even after a panic elsewhere poisoned its lock.
    pub(super) fn lock(&self) -> std::sync::MutexGuard<'_, Inner> {
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
    pub(super) fn tool_prefix(&self) -> String {
        format!("mcp__{}__", crate::naming::sanitize(&self.config.name))
    }

    /// Tells the manager why this server's tools are missing (or that they are not): a call to
    /// one of a server that never connected says why instead of "unknown tool".
    pub(super) fn mark_tools_unavailable(&self) {
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
    pub(super) fn notify(&self, notice: McpNotice) {
        if let Some(notices) = self.notices.get() {
            let _ = notices.send(notice);
        }
    }

    /// Lists resources, resource templates and prompts, as far as the server offers them.
    pub(super) async fn refresh_catalog(self: &Arc<Self>, link: &Arc<Link>) {
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

    /// Tells whoever waits on the status that it changed.
    pub(super) fn bump(&self) {
        self.changed.send_modify(|version| *version += 1);
    }

    /// Moves to `state` and tells the manager and the waiters.
    pub(super) fn set_state(&self, state: ServerState) {
        self.lock().state = state;
        self.mark_tools_unavailable();
        self.bump();
    }

    /// Where this server's tools come from, for the manager.
    pub(crate) fn source(&self) -> ToolSource {
        ToolSource::Mcp {
            server: self.config.name.clone(),
        }
    }

    /// How long one call may take: the server's `timeout`, else the default.
    pub(crate) fn call_timeout(&self) -> Duration {
        self.config
            .call_timeout
            .unwrap_or(self.options.call_timeout)
    }

    /// How long start-up and the handshake may take: the server's `startupTimeout`, else the
    /// default.
    pub(super) fn startup_timeout(&self) -> Duration {
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
    pub(super) async fn refresh_tools(self: &Arc<Self>, link: &Arc<Link>) -> Result<(), String> {
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
