//! Server mode: Gantry's tools for an MCP client, with the project's policies.

use std::sync::{Arc, Mutex};

use gantry_mcp::{ClientSlot, ElicitingApprover, GantryServer, auto_approve};
use gantry_tools::{ToolContext, ToolManager, ToolResult, tool};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation, ProtocolVersion,
};
use rmcp::service::{RequestContext, RunningService};
use rmcp::{ClientHandler, ErrorData, RoleClient, ServiceExt};
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// Arguments of the note tools.
#[derive(Deserialize, JsonSchema)]
struct NoteArgs {
    /// The note.
    text: String,
}

/// Read a note back.
#[tool]
async fn note_read(_ctx: &ToolContext, args: NoteArgs) -> ToolResult {
    Ok(format!("read {}", args.text).into())
}

/// Write a note.
#[tool(level = sensitive)]
async fn note_write(_ctx: &ToolContext, args: NoteArgs) -> ToolResult {
    Ok(format!("wrote {}", args.text).into())
}

/// Destroy everything.
#[tool(level = dangerous)]
async fn nuke(_ctx: &ToolContext, _args: NoteArgs) -> ToolResult {
    Ok("boom".into())
}

/// A client that answers elicitations with `answer`, or can't (None).
#[derive(Clone)]
struct Client {
    answer: Option<Value>,
    asked: Arc<Mutex<Vec<String>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.answer.is_some() {
            ClientCapabilities::builder().enable_elicitation().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("test-client", "1"))
            .with_protocol_version(ProtocolVersion::LATEST_WITH_INITIALIZE)
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = &request {
            self.asked.lock().unwrap().push(message.clone());
        }
        let answer = self.answer.clone().unwrap_or(Value::Null);
        if answer.is_null() {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        }
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(answer))
    }
}

/// A project with the three note tools, served in-process to `client`.
async fn serve(
    client: Client,
) -> (
    tempfile::TempDir,
    Arc<ToolManager>,
    RunningService<RoleClient, Client>,
) {
    let dir = tempfile::tempdir().unwrap();
    let slot = ClientSlot::new();
    let manager = Arc::new(
        ToolManager::new(dir.path())
            .unwrap()
            .with_approver(Arc::new(ElicitingApprover::new(slot.clone()))),
    );
    manager.register(NoteRead).unwrap();
    manager.register(NoteWrite).unwrap();
    manager.register(Nuke).unwrap();
    let (server_end, client_end) = tokio::io::duplex(1 << 16);
    let server = GantryServer::new(Arc::clone(&manager), slot);
    tokio::spawn(server.serve_on(tokio::io::split(server_end)));
    let running = client.serve(tokio::io::split(client_end)).await.unwrap();
    (dir, manager, running)
}

async fn call(client: &RunningService<RoleClient, Client>, name: &str) -> (bool, String) {
    let arguments = json!({"text": "hi"}).as_object().unwrap().clone();
    let result = client
        .call_tool(CallToolRequestParams::new(name.to_owned()).with_arguments(arguments))
        .await
        .unwrap();
    let text = result.content[0].as_text().unwrap().text.clone();
    (result.is_error != Some(true), text)
}

#[tokio::test]
async fn lists_enabled_tools_with_schemas_and_hints() {
    let client = Client {
        answer: None,
        asked: Arc::default(),
    };
    let (_dir, _manager, running) = serve(client).await;
    let tools = running.list_all_tools().await.unwrap();
    let names: Vec<&str> = tools.iter().map(|tool| tool.name.as_ref()).collect();
    assert_eq!(
        names,
        ["note_read", "note_write"],
        "the disabled tool is not listed"
    );
    let read = &tools[0];
    assert_eq!(read.description.as_deref(), Some("Read a note back."));
    assert_eq!(read.input_schema["required"], json!(["text"]));
    let hints = read.annotations.as_ref().unwrap();
    assert_eq!(
        (hints.read_only_hint, hints.destructive_hint),
        (Some(true), Some(false))
    );
    let hints = tools[1].annotations.as_ref().unwrap();
    assert_eq!(
        (hints.read_only_hint, hints.destructive_hint),
        (Some(false), Some(false))
    );
    assert_eq!(call(&running, "note_read").await, (true, "read hi".into()));
    // A disabled tool called anyway is refused by the gate.
    let (ok, text) = call(&running, "nuke").await;
    assert!(!ok && text.starts_with("[disabled]"), "{text}");
    running.cancel().await.unwrap();
}

#[tokio::test]
async fn ask_tools_are_denied_without_elicitation_unless_auto() {
    let client = Client {
        answer: None,
        asked: Arc::default(),
    };
    let (_dir, manager, running) = serve(client).await;
    let (ok, text) = call(&running, "note_write").await;
    assert!(!ok);
    assert!(text.starts_with("[denied]"), "{text}");
    assert!(text.contains("does not support elicitation"), "{text}");
    assert!(text.contains("--auto note_write"), "{text}");

    let warnings = auto_approve(&manager, &["note_write".into(), "nuke".into()]).unwrap();
    assert_eq!(
        warnings,
        ["--auto nuke ignored: the tool is disabled in this project"]
    );
    assert_eq!(
        call(&running, "note_write").await,
        (true, "wrote hi".into())
    );
    running.cancel().await.unwrap();
}

#[tokio::test]
async fn ask_tools_ask_the_clients_user_through_elicitation() {
    let asked = Arc::new(Mutex::new(Vec::new()));
    let client = Client {
        answer: Some(json!({"allow": true})),
        asked: asked.clone(),
    };
    let (_dir, _manager, running) = serve(client).await;
    assert_eq!(
        call(&running, "note_write").await,
        (true, "wrote hi".into())
    );
    {
        let asked = asked.lock().unwrap();
        assert_eq!(asked.len(), 1);
        assert!(
            asked[0].starts_with("Gantry wants to run note_write (sensitive)"),
            "{}",
            asked[0]
        );
        assert!(asked[0].contains("\"text\": \"hi\""), "{}", asked[0]);
    }
    // "Allow once" asks again next time.
    call(&running, "note_write").await;
    assert_eq!(asked.lock().unwrap().len(), 2);
    running.cancel().await.unwrap();

    let declining = Client {
        answer: Some(Value::Null),
        asked: Arc::default(),
    };
    let (_dir, _manager, running) = serve(declining).await;
    let (ok, text) = call(&running, "note_write").await;
    assert!(
        !ok && text == "[denied] the user denied tool 'note_write'",
        "{text}"
    );
    running.cancel().await.unwrap();

    let for_session = Client {
        answer: Some(json!({"allow": true, "for_session": true})),
        asked: Arc::default(),
    };
    let (_dir, _manager, running) = serve(for_session.clone()).await;
    call(&running, "note_write").await;
    call(&running, "note_write").await;
    assert_eq!(for_session.asked.lock().unwrap().len(), 1);
    running.cancel().await.unwrap();
}
