//! What the MCP servers tell the webview without being asked: the project's tools changed (a
//! server's `tools/list_changed`, a server that connected or stopped), a list of resources or
//! prompts changed, a subscribed resource changed.
//!
//! The Tools panel and the chat's tool levels refresh on [`ToolsChanged`]; the MCP panel and the
//! chat's `@`/`/` completion on an [`McpNoticeEvent`] of kind `list_changed`; an attached
//! resource's chip reads the resource again on one of kind `resource_updated`.

use std::sync::Arc;

use gantry_mcp::McpNotice;
use serde::Serialize;

use crate::events::{Event, EventSink, emit};
use crate::project::OpenProject;

/// The open project's set of tools changed: list them again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct ToolsChanged {
    /// The project concerned.
    pub project_id: u32,
}

impl Event for ToolsChanged {
    const NAME: &'static str = "tools:changed";
}

/// A server of the open project told Gantry something.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
pub struct McpNoticeEvent {
    /// The project concerned.
    pub project_id: u32,
    /// `resource_updated` (read `uri` again) or `list_changed` (its lists changed).
    pub kind: String,
    /// The server.
    pub server: String,
    /// The resource, for `resource_updated`.
    pub uri: Option<String>,
}

impl Event for McpNoticeEvent {
    const NAME: &'static str = "mcp:notice";
}

impl McpNoticeEvent {
    fn new(project_id: u32, notice: McpNotice) -> Self {
        match notice {
            McpNotice::ResourceUpdated { server, uri } => Self {
                project_id,
                kind: "resource_updated".into(),
                server,
                uri: Some(uri),
            },
            McpNotice::ListChanged { server } => Self {
                project_id,
                kind: "list_changed".into(),
                server,
                uri: None,
            },
        }
    }
}

/// Forwards the project's tool changes and its servers' notices to `sink` while it is open.
/// Needs a tokio runtime.
pub fn forward_in_background(project: &Arc<OpenProject>, sink: Arc<dyn EventSink>) {
    let project_id = project.info().id;
    let mut tools = project.tools().subscribe_changes();
    let mut notices = project.mcp().subscribe_notices();
    let weak = Arc::downgrade(project);
    tokio::spawn(async move {
        loop {
            tokio::select! {
                changed = tools.changed() => {
                    if changed.is_err() {
                        break;
                    }
                    // A burst of changes (a server registering its tools) is one event.
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                    tools.borrow_and_update();
                    emit(sink.as_ref(), ToolsChanged { project_id });
                }
                notice = notices.recv() => match notice {
                    Ok(notice) => emit(sink.as_ref(), McpNoticeEvent::new(project_id, notice)),
                    Err(tokio::sync::broadcast::error::RecvError::Lagged(_)) => {}
                    Err(tokio::sync::broadcast::error::RecvError::Closed) => break,
                },
            }
            if weak.upgrade().is_none() {
                break;
            }
        }
    });
}
