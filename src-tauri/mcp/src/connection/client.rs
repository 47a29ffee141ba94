//! What a server sends back on its own: list changes, resource updates and progress.
//!
//! Each connection gets its own [`ClientSide`], which introduces Gantry in the handshake and
//! handles the server's notifications. A notification counts only while its connection is the
//! live one (a late message from a connection that already ended changes nothing). Progress
//! reaches the call it belongs to through the token the call registered
//! ([`Shared::watch_progress`]), which a [`ProgressGuard`] unregisters when the call ends.

use std::sync::{Arc, PoisonError, Weak};

use gantry_tools::{CallObserver, CallProgress};
use rmcp::model::{ClientCapabilities, ClientConfig, Implementation, ProtocolVersion};
use rmcp::service::NotificationContext;
use rmcp::{ClientHandler, RoleClient};

use super::{Link, Shared};
use crate::status::McpNotice;

/// The client side of each connection: identifies Gantry and re-lists tools on
/// `notifications/tools/list_changed`.
pub(super) struct ClientSide {
    /// The server, without keeping it alive.
    pub(super) shared: Weak<Shared>,
    /// Which connection of the server this handler serves.
    pub(super) epoch: u64,
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

impl Shared {
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
}
