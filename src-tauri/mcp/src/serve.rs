//! Gantry as an MCP server: a project's tools for any MCP client (`gantry-cli mcp serve`).
//!
//! The client sees the tools the project allows — a Disabled tool is not listed — with their
//! schemas and their levels as hints (`readOnlyHint` for SAFE, `destructiveHint` for DANGEROUS).
//! Calls go through [`ToolManager::dispatch_cancellable`], so the project's policies, the approval
//! gate and the audit apply exactly as in a Gantry session, and the client's
//! `notifications/cancelled` cancels the call. A tool whose policy is Ask needs a person: the
//! [`ElicitingApprover`] asks the client's user through MCP elicitation when the client declared
//! that capability, and otherwise denies the call with a text saying how to allow it (`--auto`).
//! `ask_user` is listed only when someone can answer it.
//!
//! Over stdio, Gantry frames the protocol itself: a line that is not JSON gets a JSON-RPC parse
//! error reply (rmcp would drop it silently), and the end of stdin — or [`GantryServer::stop`],
//! which the CLI calls on SIGINT/SIGTERM — cancels every running call at once (a command's
//! process group is killed with it) instead of letting them run on for seconds after the client
//! left.

use std::sync::{Arc, PoisonError, RwLock};

use async_trait::async_trait;
use gantry_tools::{
    ApprovalDecision, ApprovalRequest, Approver, CallContext, ManagerError, Policy, ToolManager,
    ToolSession,
};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequestParams,
    ElicitationAction, ElicitationSchema, Implementation, InitializeRequestParams,
    InitializeResult, ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
    Tool as McpToolDef,
};
use rmcp::service::{ElicitationMode, Peer, RequestContext, RunningService};
use rmcp::transport::IntoTransport;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio_util::sync::CancellationToken;

use crate::level::hints_for;

/// The JSON-RPC reply to a line that is not JSON (code -32700, id null).
fn parse_error_reply(error: &serde_json::Error) -> Value {
    serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {"code": -32700, "message": format!("Parse error: {error}")},
    })
}

/// The connected client, shared by the server (which learns it) and the approver (which asks it).
#[derive(Clone, Default)]
pub struct ClientSlot {
    peer: Arc<RwLock<Option<Peer<RoleServer>>>>,
}

impl ClientSlot {
    /// An empty slot.
    pub fn new() -> Self {
        Self::default()
    }

    fn set(&self, peer: &Peer<RoleServer>) {
        *self.peer.write().unwrap_or_else(PoisonError::into_inner) = Some(peer.clone());
    }

    fn get(&self) -> Option<Peer<RoleServer>> {
        self.peer
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

impl std::fmt::Debug for ClientSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ClientSlot")
            .field("connected", &self.get().is_some())
            .finish()
    }
}

/// Decides Ask calls by asking the MCP client's user (elicitation), or denies them when the
/// client can't ask.
#[derive(Debug, Clone)]
pub struct ElicitingApprover {
    client: ClientSlot,
}

impl ElicitingApprover {
    /// An approver asking whoever connects to `client`.
    pub fn new(client: ClientSlot) -> Self {
        Self { client }
    }
}

#[async_trait]
impl Approver for ElicitingApprover {
    async fn decide(&self, request: ApprovalRequest) -> ApprovalDecision {
        let cannot_ask = |why: &str| ApprovalDecision::Deny {
            reason: Some(format!(
                "{why}; to allow it without asking, start `gantry-cli mcp serve` with `--auto {}`",
                request.tool
            )),
        };
        let Some(peer) = self.client.get() else {
            return cannot_ask("no MCP client is connected to ask the user");
        };
        if !peer
            .supported_elicitation_modes()
            .contains(&ElicitationMode::Form)
        {
            return cannot_ask(
                "the MCP client cannot ask its user (it does not support elicitation)",
            );
        }
        let arguments = serde_json::to_string_pretty(&request.arguments)
            .unwrap_or_else(|_| request.arguments.to_string());
        let message = format!(
            "Gantry wants to run {} ({}): {}\narguments: {arguments}\nAllow it?",
            request.tool, request.level, request.description
        );
        let schema = ElicitationSchema::builder()
            .required_bool_property("allow", |schema| schema.description("Run this call"))
            .bool_property("for_session", |schema| {
                schema
                    .description("Also allow later calls of this tool without asking")
                    .with_default(false)
            })
            .build_unchecked();
        let asked = peer
            .create_elicitation(ElicitRequestParams::FormElicitationParams {
                meta: None,
                message,
                requested_schema: schema,
            })
            .await;
        match asked {
            Ok(result) if result.action == ElicitationAction::Accept => {
                let content = result.content.unwrap_or(Value::Null);
                let allow = content.get("allow").and_then(Value::as_bool) == Some(true);
                let session = content.get("for_session").and_then(Value::as_bool) == Some(true);
                match (allow, session) {
                    (true, true) => ApprovalDecision::AllowForSession,
                    (true, false) => ApprovalDecision::AllowOnce,
                    (false, _) => ApprovalDecision::Deny { reason: None },
                }
            }
            Ok(_) => ApprovalDecision::Deny { reason: None },
            Err(error) => cannot_ask(&format!("the MCP client could not ask its user ({error})")),
        }
    }
}

/// Sets the policy of each named tool to Auto (`--auto NAME`), so it runs without asking. Only
/// tools whose policy is Ask are changed: a Disabled tool stays disabled (enable it in the project
/// first). Returns one warning per name that was not changed.
pub fn auto_approve(manager: &ToolManager, names: &[String]) -> Result<Vec<String>, ManagerError> {
    let mut warnings = Vec::new();
    for name in names {
        match manager.policy(name)? {
            Policy::Ask => manager.set_policy(name, Policy::Auto)?,
            Policy::Auto => {}
            Policy::Disabled => warnings.push(format!(
                "--auto {name} ignored: the tool is disabled in this project"
            )),
        }
    }
    Ok(warnings)
}

/// The MCP server over a [`ToolManager`]. The connection is one session: what its user allows
/// "for the session" lasts until the client disconnects.
#[derive(Clone)]
pub struct GantryServer {
    manager: Arc<ToolManager>,
    client: ClientSlot,
    session: Arc<ToolSession>,
    /// Cancelled to stop: every running call is cancelled with it.
    stop: CancellationToken,
    /// Each running call holds a read guard; taking the write lock waits for them all.
    running: Arc<tokio::sync::RwLock<()>>,
}

impl GantryServer {
    /// A server for `manager`; `client` is the slot its [`ElicitingApprover`] reads (if any).
    pub fn new(manager: Arc<ToolManager>, client: ClientSlot) -> Self {
        Self {
            manager,
            client,
            session: Arc::new(ToolSession::detached()),
            stop: CancellationToken::new(),
            running: Arc::new(tokio::sync::RwLock::new(())),
        }
    }

    /// The token that stops serving: cancelling it cancels every running call at once (the CLI
    /// cancels it on SIGINT and SIGTERM).
    pub fn stop_token(&self) -> CancellationToken {
        self.stop.clone()
    }

    /// Waits (up to `grace`) for the running calls to end after a stop: a cancelled command's
    /// process group is killed by then.
    async fn settle(&self, grace: std::time::Duration) {
        let _ = tokio::time::timeout(grace, self.running.write()).await;
    }

    /// Serves one client over `transport` until it disconnects.
    pub async fn serve_on<T, E, A>(self, transport: T) -> Result<(), ServeError>
    where
        T: IntoTransport<RoleServer, E, A>,
        E: std::error::Error + Send + Sync + 'static,
    {
        let running: RunningService<RoleServer, Self> = self
            .serve(transport)
            .await
            .map_err(|error| ServeError::Handshake(error.to_string()))?;
        running
            .waiting()
            .await
            .map_err(|error| ServeError::Stopped(error.to_string()))?;
        Ok(())
    }

    /// Serves one client on this process's stdin/stdout until stdin ends or [`Self::stop_token`]
    /// is cancelled (see the module's documentation).
    pub async fn serve_stdio(self) -> Result<(), ServeError> {
        self.serve_lines(tokio::io::stdin(), tokio::io::stdout())
            .await
    }

    /// Serves one client speaking newline-delimited JSON-RPC on `input`/`output`: a line that
    /// is not JSON is answered with a parse error; the end of `input` or a stop cancels the
    /// running calls, waits briefly for them to end, and returns.
    pub async fn serve_lines<R, W>(self, input: R, output: W) -> Result<(), ServeError>
    where
        R: tokio::io::AsyncRead + Unpin + Send + 'static,
        W: tokio::io::AsyncWrite + Unpin + Send + 'static,
    {
        use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
        let output = Arc::new(tokio::sync::Mutex::new(output));
        let (to_protocol, protocol_in) = tokio::io::duplex(64 * 1024);
        let (protocol_out, from_protocol) = tokio::io::duplex(64 * 1024);
        // The protocol's replies, a line at a time (so a parse error never splits one).
        let writer = {
            let output = Arc::clone(&output);
            tokio::spawn(async move {
                let mut lines = BufReader::new(from_protocol).lines();
                while let Ok(Some(line)) = lines.next_line().await {
                    let mut output = output.lock().await;
                    if output
                        .write_all(format!("{line}\n").as_bytes())
                        .await
                        .is_err()
                        || output.flush().await.is_err()
                    {
                        break;
                    }
                }
            })
        };
        let stop = self.stop.clone();
        let reader = {
            let output = Arc::clone(&output);
            let stop = stop.clone();
            tokio::spawn(async move {
                let mut to_protocol = to_protocol;
                let mut lines = BufReader::new(input).lines();
                loop {
                    let line = tokio::select! {
                        () = stop.cancelled() => break,
                        line = lines.next_line() => line,
                    };
                    let Ok(Some(line)) = line else { break };
                    if line.trim().is_empty() {
                        continue;
                    }
                    match serde_json::from_str::<Value>(&line) {
                        Ok(_) => {
                            if to_protocol
                                .write_all(format!("{line}\n").as_bytes())
                                .await
                                .is_err()
                            {
                                break;
                            }
                        }
                        Err(error) => {
                            let reply = parse_error_reply(&error);
                            let mut output = output.lock().await;
                            let _ = output.write_all(format!("{reply}\n").as_bytes()).await;
                            let _ = output.flush().await;
                        }
                    }
                }
                // The client left (or we stop): cancel what runs now, not after rmcp's grace.
                stop.cancel();
                drop(to_protocol);
            })
        };
        let server = self.clone();
        let result = match server.serve((protocol_in, protocol_out)).await {
            Ok(running) => {
                let ct = running.cancellation_token();
                let waiting = running.waiting();
                tokio::pin!(waiting);
                tokio::select! {
                    ended = &mut waiting => ended.map(drop).map_err(|error| ServeError::Stopped(error.to_string())),
                    () = stop.cancelled() => {
                        self.settle(std::time::Duration::from_secs(3)).await;
                        ct.cancel();
                        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), waiting).await;
                        Ok(())
                    }
                }
            }
            Err(error) => {
                // A client that closed before the handshake is not an error of the server.
                if stop.is_cancelled() {
                    Ok(())
                } else {
                    Err(ServeError::Handshake(error.to_string()))
                }
            }
        };
        stop.cancel();
        self.settle(std::time::Duration::from_secs(3)).await;
        reader.abort();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(1), writer).await;
        result
    }

    fn listed_tools(&self) -> Vec<McpToolDef> {
        self.manager
            .tools()
            .into_iter()
            .filter(|info| info.policy != Policy::Disabled)
            // Nobody answers the model's questions here unless a prompter was given.
            .filter(|info| info.name != "ask_user" || self.manager.has_prompter())
            .filter_map(|info| {
                let tool = self.manager.get(&info.name)?;
                let schema = match tool.parameters() {
                    Value::Object(map) => map.clone(),
                    _ => serde_json::Map::new(),
                };
                Some(
                    McpToolDef::new(info.name.clone(), info.description.clone(), schema)
                        .with_annotations(hints_for(info.level)),
                )
            })
            .collect()
    }
}

/// Why serving stopped with an error.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ServeError {
    /// The client never completed the handshake.
    #[error("the MCP handshake with the client failed: {0}")]
    Handshake(String),
    /// The server loop failed.
    #[error("the MCP server stopped unexpectedly: {0}")]
    Stopped(String),
}

impl ServerHandler for GantryServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("gantry", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Gantry's tools for one project folder. Paths are relative to the project root; \
                 some tools ask the user before they run.",
            )
    }

    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        context.peer.set_peer_info(request.clone());
        self.client.set(&context.peer);
        self.negotiate_initialize(&request)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.listed_tools()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        self.client.set(&context.peer);
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let _running = self.running.read().await;
        // Cancelled by the client's `notifications/cancelled` or by a stop, whichever first.
        let cancel = self.stop.child_token();
        let call = CallContext::new(format!("mcp_{}", context.id), Arc::clone(&self.session))
            .with_cancel(cancel.clone());
        let dispatch = self.manager.dispatch(&request.name, arguments, &call);
        tokio::pin!(dispatch);
        let observation = loop {
            tokio::select! {
                observation = &mut dispatch => break observation,
                () = context.ct.cancelled(), if !cancel.is_cancelled() => cancel.cancel(),
            }
        };
        let content = vec![ContentBlock::text(observation.text.clone())];
        let result = if observation.is_ok() {
            CallToolResult::success(content)
        } else {
            CallToolResult::error(content)
        };
        Ok(result.into())
    }
}
