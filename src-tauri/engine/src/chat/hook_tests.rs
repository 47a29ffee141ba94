//! The app's chat with the user's hooks, against a scripted provider: a PreCompact hook
//! blocking the user's compaction (trigger `manual`), and SessionEnd (reason `clear`) when a
//! session is deleted.

use gantry_agent::{ProviderConfig, ProviderOptions};
use gantry_config::Locations;
use gantry_scripted_provider::{Script, ScriptedProvider, Turn};
use serde_json::{Value, json};

use super::*;
use crate::events::RecordingSink;
use crate::project::open::{People, open_tools};

fn command_hook(matcher: &str, command: &str) -> Value {
    json!([{"matcher": matcher, "hooks": [{"type": "command", "command": command}]}])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_pre_compact_hook_blocks_compact_now_and_deleting_a_session_ends_it() {
    let project = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(project.path()).unwrap();
    let block = r#"cat > "$CLAUDE_PROJECT_DIR/precompact.json"; echo "not while the review is open" >&2; exit 2"#;
    let end = r#"cat > "$CLAUDE_PROJECT_DIR/end.json""#;
    let settings = json!({"hooks": {
        "PreCompact": command_hook("manual", block),
        "SessionEnd": command_hook("clear", end),
    }});
    std::fs::create_dir_all(home.path().join(".claude")).unwrap();
    std::fs::write(
        home.path().join(".claude/settings.json"),
        settings.to_string(),
    )
    .unwrap();
    let store = Store::open(data.path().join("gantry.db")).await.unwrap();
    let opened = open_tools(store.clone(), &root, People::default())
        .await
        .unwrap();
    let hooks = Arc::new(ProjectHooks::new(
        store.clone(),
        opened.project.id,
        Locations::new(&root, Some(home.path().to_owned())),
    ));
    let sink = Arc::new(RecordingSink::default());
    let chat = ProjectChat::open(
        7,
        opened.project.id,
        store.clone(),
        Arc::new(opened.manager),
        opened.checkpoints,
        sink.clone(),
    )
    .await
    .unwrap()
    .with_hooks(hooks);
    // Only the first reply is scripted: a summary request would find none.
    let scripted = ScriptedProvider::start(Script::new([Turn::text("One.")]))
        .await
        .unwrap();
    let provider = || {
        let config = ProviderConfig::new(
            "scripted",
            scripted.base_url(),
            "scripted-model",
            None,
            32_000,
        );
        Provider::new(config, None, ProviderOptions::default()).unwrap()
    };
    let id = chat.send("first", provider()).await.unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !sink
        .named(ChatEvent::NAME)
        .iter()
        .any(|event| event["event"]["type"] == "turn_finished")
    {
        assert!(std::time::Instant::now() < deadline);
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }

    let refused = chat.compact(provider()).await.unwrap_err();
    assert!(
        refused.message.contains("not while the review is open"),
        "{refused:?}"
    );
    assert_eq!(
        scripted.chat_requests().len(),
        1,
        "no summary was asked for"
    );
    let view = chat.view().await.unwrap();
    assert!(!view.messages.iter().any(Message::is_summary));
    let input: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("precompact.json")).unwrap())
            .unwrap();
    assert_eq!(input["hook_event_name"], "PreCompact");
    assert_eq!(input["trigger"], "manual");
    assert_eq!(input["session_id"], id.as_str());

    chat.delete(&id).await.unwrap();
    let ended: Value =
        serde_json::from_str(&std::fs::read_to_string(root.join("end.json")).unwrap()).unwrap();
    assert_eq!(ended["hook_event_name"], "SessionEnd");
    assert_eq!(ended["reason"], "clear");
    assert_eq!(ended["session_id"], id.as_str());
}
