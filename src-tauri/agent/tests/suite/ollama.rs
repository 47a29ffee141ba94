//! Against a real local server, opt-in: `GANTRY_TEST_OLLAMA=1` (and optionally
//! `GANTRY_TEST_OLLAMA_MODEL`, default the Ollama preset's model). Skipped otherwise, and a
//! failure when `GANTRY_REQUIRE_OLLAMA=1` (a machine that is meant to have the server).

use std::sync::Arc;

use gantry_agent::{
    MemoryTranscripts, Provider, ProviderConfig, ProviderOptions, Session, SessionOptions,
    SessionParts, TurnEndReason, TurnEvent,
};
use gantry_tools::ToolManager;
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;

#[tokio::test]
async fn a_real_ollama_reads_a_file_and_answers() {
    let available = gantry_test_gate::env_flag(
        "GANTRY_TEST_OLLAMA",
        "set it to run against Ollama at http://localhost:11434/v1",
    );
    if !gantry_test_gate::should_run(gantry_test_gate::Gate::Ollama, available) {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("secret.txt"),
        "The password is swordfish.\n",
    )
    .unwrap();
    let tools = ToolManager::new(dir.path()).unwrap();
    gantry_tools::builtin::register_builtins(&tools).unwrap();
    let mut config = ProviderConfig::default_local();
    if let Ok(model) = std::env::var("GANTRY_TEST_OLLAMA_MODEL") {
        config.model = model;
    }
    let provider = Provider::new(config, None, ProviderOptions::default()).unwrap();
    let parts = SessionParts::new(
        Arc::new(tools),
        provider,
        Arc::new(MemoryTranscripts::new()),
    )
    .with_options(SessionOptions {
        max_steps: 6,
        ..SessionOptions::default()
    });
    let mut session = Session::create(parts).await.unwrap();
    let (sender, mut receiver) = unbounded_channel();
    let outcome = session
        .run_turn(
            "Use the read_file tool to read secret.txt, then tell me the password.",
            &CancellationToken::new(),
            sender,
        )
        .await;
    let mut answer = String::new();
    while let Ok(event) = receiver.try_recv() {
        println!("{}", serde_json::to_string(&event).unwrap());
        if let TurnEvent::TextDelta { text } = event {
            answer.push_str(&text);
        }
    }
    assert_eq!(outcome.reason, TurnEndReason::Completed, "{outcome:?}");
    assert!(answer.to_lowercase().contains("swordfish"), "{answer}");
}
