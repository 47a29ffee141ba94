//! A server's tool as a Gantry [`Tool`]: registered beside the built-ins, dispatched through the
//! same gate, so the permission rules, approvals and audit apply to it unchanged.
//!
//! A call goes to whichever connection is live when it runs (a restarted server serves the same
//! tool). It ends in one of four ways, each an observation the model can read: the server's
//! result; the server dying mid-call (`MCP server '{name}' is not running: {reason}` with the last
//! lines of its stderr, at once, without waiting for a timeout); the call timeout; or the turn
//! being cancelled. In the last two cases the server is sent `notifications/cancelled` (rmcp sends
//! it when the pending request is dropped), so it can stop working on a result nobody will read.

use std::sync::Weak;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use gantry_tools::schema::{Strictness, clean_parameters};
use gantry_tools::{
    ApprovalScope, ArgumentProblem, PermissionLevel, PreparedCall, Preview, Tool, ToolContext,
    ToolError, ToolOutput, ToolResult, ToolSource, ToolSpec,
};
use rmcp::RoleClient;
use rmcp::ServiceError;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions};
use serde_json::Value;

use crate::connection::{STDERR_LINES_IN_ERRORS, Shared, progress_token_text};
use crate::convert::result_to_output;

/// How long a call whose transport closed waits for the supervisor to learn why.
const DEATH_NOTICE_WAIT: Duration = Duration::from_secs(3);

/// Sends `tools/call` and waits for its result, routing the server's progress notifications
/// (rmcp gives every request a progress token) to the call's observer. Dropping the future
/// before the result arrives sends `notifications/cancelled`.
async fn call_with_progress(
    shared: &std::sync::Arc<Shared>,
    peer: &Peer<RoleClient>,
    params: CallToolRequestParams,
    ctx: &ToolContext,
) -> Result<CallToolResult, ServiceError> {
    let handle = peer
        .send_request_with_option(
            ClientRequest::CallToolRequest(CallToolRequest::new(params)),
            PeerRequestOptions::no_options(),
        )
        .await?;
    let _progress = shared.watch_progress(
        progress_token_text(&handle.progress_token),
        ctx.observer(),
        ctx.call_id().to_owned(),
    );
    let mut abandon = CancelOnDrop {
        peer: Some(peer.clone()),
        id: handle.id.clone(),
    };
    let result = handle.await_response().await;
    abandon.peer = None;
    match result? {
        ServerResult::CallToolResult(result) => Ok(result),
        _ => Err(ServiceError::UnexpectedResponse),
    }
}

/// Tells the server a request was abandoned, when dropped before it was disarmed.
struct CancelOnDrop {
    peer: Option<Peer<RoleClient>>,
    id: RequestId,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let id = self.id.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(
                        Some(id),
                        Some("the call was cancelled".into()),
                    ))
                    .await;
            });
        }
    }
}

/// One tool of one MCP server.
pub struct McpTool {
    server: Weak<Shared>,
    server_name: String,
    remote_name: String,
    spec: ToolSpec,
}

impl McpTool {
    pub(crate) fn new(
        server: Weak<Shared>,
        name: String,
        remote: &rmcp::model::Tool,
        level: PermissionLevel,
    ) -> Self {
        let server_name = server
            .upgrade()
            .map(|shared| shared.config.name.clone())
            .unwrap_or_default();
        let description = remote
            .description
            .as_deref()
            .map(gantry_tools::schema::first_paragraph)
            .filter(|text| !text.is_empty())
            .or_else(|| remote.title.clone())
            .unwrap_or_else(|| format!("Tool '{}' of MCP server '{server_name}'.", remote.name));
        let parameters = clean_parameters(
            &Value::Object(remote.input_schema.as_ref().clone()),
            Strictness::AsDeclared,
        );
        Self {
            server,
            server_name,
            remote_name: remote.name.to_string(),
            spec: ToolSpec {
                name,
                description,
                level,
                parameters,
            },
        }
    }

    /// The server's own name for the tool.
    pub fn remote_name(&self) -> &str {
        &self.remote_name
    }
}

impl Tool for McpTool {
    fn spec(&self) -> &ToolSpec {
        &self.spec
    }

    fn source(&self) -> ToolSource {
        ToolSource::Mcp {
            server: self.server_name.clone(),
        }
    }

    fn prepare(&self, arguments: Value) -> Result<Box<dyn PreparedCall>, Vec<ArgumentProblem>> {
        let arguments = match arguments {
            Value::Object(map) => map,
            other => {
                return Err(vec![ArgumentProblem {
                    field: String::new(),
                    expected: "a JSON object of arguments".into(),
                    received: other.to_string(),
                }]);
            }
        };
        Ok(Box::new(McpCall {
            server: self.server.clone(),
            server_name: self.server_name.clone(),
            remote_name: self.remote_name.clone(),
            arguments: Value::Object(arguments),
        }))
    }
}

struct McpCall {
    server: Weak<Shared>,
    server_name: String,
    remote_name: String,
    arguments: Value,
}

impl PreparedCall for McpCall {
    fn arguments(&self) -> &Value {
        &self.arguments
    }

    fn scope(&self, _ctx: &ToolContext) -> ApprovalScope {
        ApprovalScope::WholeTool
    }

    fn preview<'a>(&'a self, _ctx: &'a ToolContext) -> BoxFuture<'a, Option<Preview>> {
        std::future::ready(None).boxed()
    }

    fn run(self: Box<Self>, ctx: ToolContext) -> BoxFuture<'static, ToolResult> {
        async move { self.call(ctx).await }.boxed()
    }
}

impl McpCall {
    async fn call(self, ctx: ToolContext) -> ToolResult {
        let Some(shared) = self.server.upgrade() else {
            return Err(ToolError::new(format!(
                "MCP server '{}' is not running: Gantry stopped it",
                self.server_name
            )));
        };
        let not_running = |reason: &str| {
            ToolError::new(format!(
                "MCP server '{}' is not running: {reason}{}",
                self.server_name,
                shared.stderr.describe(STDERR_LINES_IN_ERRORS)
            ))
        };
        let link = shared
            .current_link()
            .map_err(|reason| not_running(&reason))?;
        let timeout = shared.call_timeout();
        let arguments = match self.arguments {
            Value::Object(map) => map,
            _ => serde_json::Map::new(),
        };
        let params = CallToolRequestParams::new(self.remote_name.clone()).with_arguments(arguments);
        let peer = link.peer.clone();
        // Dropping this future before it resolves sends `notifications/cancelled`.
        let request = call_with_progress(&shared, &peer, params, &ctx);
        tokio::select! {
            biased;
            () = link.dead.cancelled() => Err(not_running(&link.reason())),
            () = ctx.cancel_token().cancelled() => {
                Err(ToolError::new("the call was cancelled"))
            }
            result = tokio::time::timeout(timeout, request) => match result {
                Err(_elapsed) => Ok(ToolOutput::error(format!(
                    "[error] MCP server '{}' did not answer '{}' within {} s; Gantry cancelled the call",
                    self.server_name,
                    self.remote_name,
                    timeout.as_secs_f64()
                ))),
                Ok(Ok(result)) => Ok(result_to_output(&result)),
                Ok(Err(ServiceError::McpError(error))) => Err(ToolError::new(format!(
                    "MCP server '{}' rejected the call: {}",
                    self.server_name, error.message
                ))),
                Ok(Err(error)) if error.is_authorization_required() => {
                    // The token was revoked (a refresh was tried already): sign in again.
                    shared.lost_authorization();
                    Err(ToolError::new(format!(
                        "MCP server '{}' asked for sign-in again (401); the user must sign in (MCP panel, or gantry-cli mcp login {})",
                        self.server_name, self.server_name
                    )))
                }
                Ok(Err(error)) => {
                    // The connection broke under the call: wait briefly for the supervisor to
                    // learn why (the exit status, the last stderr lines).
                    if tokio::time::timeout(DEATH_NOTICE_WAIT, link.dead.cancelled()).await.is_ok() {
                        Err(not_running(&link.reason()))
                    } else {
                        Err(ToolError::new(format!(
                            "MCP server '{}' failed: {}",
                            self.server_name,
                            crate::catalog::service_error_sentence(&error)
                        )))
                    }
                }
            }
        }
    }
}

impl std::fmt::Debug for McpTool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McpTool")
            .field("name", &self.spec.name)
            .field("server", &self.server_name)
            .field("level", &self.spec.level)
            .finish()
    }
}
