//! A small stdio MCP server for gantry-mcp's tests: the faults real servers show only on bad
//! days, on demand.
//!
//! Tools: `echo` (readOnlyHint), `plain` (no annotations), `wipe` (destructiveHint), `crash`
//! (exits with the given status after a line on stderr), `hang` (never answers; notes a
//! cancellation on stderr), `garbage` (writes a non-JSON line to stdout), `add_tool` (adds a tool
//! and sends `notifications/tools/list_changed`), `spawn_sleeper` (starts a grandchild process and
//! returns its pid).
//!
//! Flags: `--garbage-at-start`, `--exit-at-start CODE`. The environment variable
//! `TESTSERVER_LIST_DELAYS_MS` (comma-separated) delays the n-th `tools/list` answer, which is
//! computed when the request arrives (so a delayed answer is stale by design).

use std::io::Write;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler, ServiceExt};
use serde_json::{Map, Value, json};

#[derive(Clone)]
struct TestServer {
    extra: Arc<Mutex<Vec<String>>>,
    listings: Arc<AtomicUsize>,
    delays: Arc<Vec<u64>>,
}

fn schema(properties: Value, required: &[&str]) -> Map<String, Value> {
    match json!({"type": "object", "properties": properties, "required": required}) {
        Value::Object(map) => map,
        _ => Map::new(),
    }
}

impl TestServer {
    fn tools(&self) -> Vec<Tool> {
        let mut tools = vec![
            Tool::new(
                "echo",
                "Echo the text back.",
                schema(json!({"text": {"type": "string"}}), &["text"]),
            )
            .with_annotations(ToolAnnotations::new().read_only(true)),
            Tool::new(
                "plain",
                "A tool without annotations.",
                schema(json!({}), &[]),
            ),
            Tool::new(
                "wipe",
                "Pretend to wipe everything.",
                schema(json!({}), &[]),
            )
            .with_annotations(ToolAnnotations::new().destructive(true)),
            Tool::new(
                "crash",
                "Exit the server process with the given status.",
                schema(json!({"code": {"type": "integer"}}), &[]),
            ),
            Tool::new("hang", "Never answer.", schema(json!({}), &[])),
            Tool::new(
                "garbage",
                "Write garbage to stdout.",
                schema(json!({}), &[]),
            ),
            Tool::new(
                "add_tool",
                "Add a tool and announce the change.",
                schema(json!({"name": {"type": "string"}}), &["name"]),
            ),
            Tool::new(
                "spawn_sleeper",
                "Start a child process that sleeps; return its pid.",
                schema(json!({}), &[]),
            ),
        ];
        let extra = self.extra.lock().unwrap_or_else(PoisonError::into_inner);
        for name in extra.iter() {
            tools.push(
                Tool::new(name.clone(), "An added tool.", schema(json!({}), &[]))
                    .with_annotations(ToolAnnotations::new().read_only(true)),
            );
        }
        tools
    }
}

fn text(text: impl Into<String>) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResult::success(vec![ContentBlock::text(text)]).into())
}

impl ServerHandler for TestServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_tools()
                .enable_tool_list_changed()
                .build(),
        )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let index = self.listings.fetch_add(1, Ordering::SeqCst);
        eprintln!("list {} started", index + 1);
        let tools = self.tools();
        if let Some(delay) = self.delays.get(index).copied().filter(|d| *d > 0) {
            tokio::time::sleep(Duration::from_millis(delay)).await;
        }
        eprintln!("list {} answered", index + 1);
        Ok(ListToolsResult::with_all_items(tools))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        match request.name.as_ref() {
            "echo" => text(
                arguments
                    .get("text")
                    .and_then(Value::as_str)
                    .unwrap_or_default(),
            ),
            "plain" | "wipe" => text(format!("{} done", request.name)),
            "crash" => {
                let code = arguments.get("code").and_then(Value::as_i64).unwrap_or(3);
                eprintln!("crashing on purpose with status {code}");
                std::process::exit(i32::try_from(code).unwrap_or(3));
            }
            "hang" => {
                eprintln!("hanging");
                context.ct.cancelled().await;
                eprintln!("hang was cancelled by the client");
                Err(ErrorData::internal_error("cancelled", None))
            }
            "garbage" => {
                let mut stdout = std::io::stdout().lock();
                let _ = stdout.write_all(b"this is not json\n");
                let _ = stdout.flush();
                text("wrote garbage")
            }
            "add_tool" => {
                let name = arguments
                    .get("name")
                    .and_then(Value::as_str)
                    .unwrap_or("added")
                    .to_owned();
                self.extra
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(name.clone());
                let _ = context.peer.notify_tool_list_changed().await;
                text(format!("added {name}"))
            }
            "spawn_sleeper" => match std::process::Command::new("sleep").arg("600").spawn() {
                Ok(child) => text(child.id().to_string()),
                Err(error) => text(format!("spawn failed: {error}")),
            },
            other => Err(ErrorData::invalid_params(format!("no tool {other}"), None)),
        }
    }
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> std::process::ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--garbage-at-start") {
        println!("Starting test server... (a banner on stdout, which breaks the protocol)");
    }
    if let Some(index) = args.iter().position(|arg| arg == "--exit-at-start") {
        let code = args
            .get(index + 1)
            .and_then(|code| code.parse().ok())
            .unwrap_or(1);
        eprintln!("refusing to start: missing configuration");
        return std::process::ExitCode::from(code);
    }
    let delays = std::env::var("TESTSERVER_LIST_DELAYS_MS")
        .unwrap_or_default()
        .split(',')
        .map(|delay| delay.trim().parse().unwrap_or(0))
        .collect();
    let server = TestServer {
        extra: Arc::default(),
        listings: Arc::default(),
        delays: Arc::new(delays),
    };
    eprintln!("test server ready");
    match server.serve(rmcp::transport::stdio()).await {
        Ok(running) => {
            let _ = running.waiting().await;
            std::process::ExitCode::SUCCESS
        }
        Err(error) => {
            eprintln!("handshake failed: {error}");
            std::process::ExitCode::FAILURE
        }
    }
}
