//! Resources, prompts, subscriptions, progress and list changes against real servers: the
//! official "everything" server and a TypeScript SDK server that reports progress with messages.

use std::sync::{Arc, Mutex};

use gantry_mcp::{HubSettings, McpHub, McpNotice, MemoryTrust, ResourcePart};
use gantry_tools::{CallContext, CallObserver, CallProgress, ObservationKind, ToolManager};
use serde_json::json;

use super::support::*;

async fn hub_of(
    dir: &std::path::Path,
    manager: &Arc<ToolManager>,
    servers: serde_json::Value,
) -> (McpHub, tokio::sync::broadcast::Receiver<McpNotice>) {
    let user_file = dir.join("mcp.json");
    std::fs::write(&user_file, json!({ "mcpServers": servers }).to_string()).unwrap();
    let (notices, receiver) = tokio::sync::broadcast::channel(64);
    let mut settings = HubSettings::new(Arc::new(MemoryTrust::new()));
    settings.user_file = Some(user_file);
    settings.options = fast_options();
    settings.notices = Some(notices);
    let hub = McpHub::start(Arc::clone(manager), settings).await.unwrap();
    (hub, receiver)
}

async fn notice(
    receiver: &mut tokio::sync::broadcast::Receiver<McpNotice>,
    wanted: impl Fn(&McpNotice) -> bool,
) -> McpNotice {
    tokio::time::timeout(WAIT, async {
        loop {
            let notice = receiver.recv().await.unwrap();
            if wanted(&notice) {
                return notice;
            }
        }
    })
    .await
    .expect("no such notice")
}

#[tokio::test]
async fn resources_templates_and_prompts_are_listed_read_rendered_and_subscribed() {
    let (dir, manager) = manager();
    let entry = npm_server("server-everything");
    let (hub, mut notices) = hub_of(
        dir.path(),
        &manager,
        json!({"ev": {"command": "node", "args": [entry, "stdio"], "level": "safe"}}),
    )
    .await;
    let server = hub.server("ev").unwrap();
    let status = connected(server).await;
    assert!(!status.resources.is_empty(), "{status:#?}");
    assert!(
        status
            .resource_templates
            .iter()
            .any(|template| template.uri_template.contains("{")),
        "{:#?}",
        status.resource_templates
    );
    let args_prompt = status
        .prompts
        .iter()
        .find(|prompt| prompt.name == "args-prompt")
        .unwrap_or_else(|| panic!("{:#?}", status.prompts));
    let city = args_prompt
        .arguments
        .iter()
        .find(|argument| argument.name == "city")
        .unwrap();
    assert!(city.required);

    // Read: a text resource comes back as its text.
    let text_resource = status
        .resources
        .iter()
        .find(|resource| {
            resource
                .mime_type
                .as_deref()
                .is_some_and(|m| m.starts_with("text/"))
        })
        .unwrap_or(&status.resources[0]);
    let parts = hub.read_resource("ev", &text_resource.uri).await.unwrap();
    assert!(
        matches!(&parts[0], ResourcePart::Text { text, .. } if !text.is_empty()),
        "{parts:?}"
    );
    let error = hub.read_resource("nope", "x://y").await.unwrap_err();
    assert_eq!(
        error.to_string(),
        "no MCP server named 'nope' is configured"
    );

    // Render: the prompt's messages with the argument in them.
    let mut arguments = serde_json::Map::new();
    arguments.insert("city".into(), json!("Paris"));
    let rendered = hub
        .render_prompt("ev", "args-prompt", arguments)
        .await
        .unwrap();
    assert_eq!(rendered.messages[0].role, "user");
    assert!(rendered.messages[0].text.contains("Paris"), "{rendered:?}");

    // Subscribe, then have the server send updates for subscribed resources.
    let uri = text_resource.uri.clone();
    hub.subscribe_resource("ev", &uri, true).await.unwrap();
    let toggled = manager
        .dispatch(
            "mcp__ev__toggle-subscriber-updates",
            "{}",
            &CallContext::detached(),
        )
        .await;
    assert_eq!(toggled.kind, ObservationKind::Ok, "{}", toggled.text);
    let updated = notice(&mut notices, |notice| {
        matches!(notice, McpNotice::ResourceUpdated { .. })
    })
    .await;
    assert_eq!(
        updated,
        McpNotice::ResourceUpdated {
            server: "ev".into(),
            uri
        }
    );
    hub.shutdown().await;
}

/// Records the progress reports of calls.
#[derive(Default)]
struct Progress(Mutex<Vec<(String, CallProgress)>>);

impl CallObserver for Progress {
    fn progress(&self, call_id: &str, progress: &CallProgress) {
        self.0
            .lock()
            .unwrap()
            .push((call_id.to_owned(), progress.clone()));
    }
}

#[tokio::test]
async fn progress_reaches_the_call_and_new_tools_arrive_without_a_restart() {
    let (dir, manager) = manager();
    let script = npm_fixtures().join("progress-server.mjs");
    let (hub, mut notices) = hub_of(
        dir.path(),
        &manager,
        json!({"p": {"command": "node", "args": [script], "level": "safe"}}),
    )
    .await;
    let status = connected(hub.server("p").unwrap()).await;
    let pid = status.pid;

    let progress = Arc::new(Progress::default());
    let call = CallContext::new("call_slow", Arc::new(gantry_tools::ToolSession::detached()))
        .with_observer(progress.clone());
    let observation = manager
        .dispatch("mcp__p__slow", r#"{"steps": 3}"#, &call)
        .await;
    assert_eq!(observation.text, "counted to 3");
    let reports = progress.0.lock().unwrap().clone();
    let messages: Vec<(&str, f64, Option<f64>, Option<&str>)> = reports
        .iter()
        .map(|(id, p)| (id.as_str(), p.progress, p.total, p.message.as_deref()))
        .collect();
    assert_eq!(
        messages,
        [
            ("call_slow", 1.0, Some(3.0), Some("step 1 of 3")),
            ("call_slow", 2.0, Some(3.0), Some("step 2 of 3")),
            ("call_slow", 3.0, Some(3.0), Some("step 3 of 3")),
        ]
    );

    // tools/list_changed: the new tool is callable at once, and the change is announced.
    let mut changes = manager.subscribe_changes();
    changes.borrow_and_update();
    let added = manager
        .dispatch(
            "mcp__p__add_tool",
            r#"{"name": "fresh"}"#,
            &CallContext::detached(),
        )
        .await;
    assert_eq!(added.text, "added fresh");
    notice(
        &mut notices,
        |notice| matches!(notice, McpNotice::ListChanged { server } if server == "p"),
    )
    .await;
    eventually("the new tool", || manager.get("mcp__p__fresh").is_some()).await;
    assert!(changes.has_changed().unwrap());
    let ran = manager
        .dispatch("mcp__p__fresh", "{}", &CallContext::detached())
        .await;
    assert_eq!(ran.text, "fresh ran");
    assert_eq!(hub.server("p").unwrap().status().pid, pid, "no restart");
    hub.shutdown().await;
}
