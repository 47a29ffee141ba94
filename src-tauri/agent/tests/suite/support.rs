//! A project folder, test tools, the scripted provider and a session wired together.

use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use gantry_agent::{
    MemoryTranscripts, Message, Provider, ProviderConfig, ProviderOptions, RetryPolicy, Session,
    SessionOptions, SessionParts, TranscriptStore, TurnEndReason, TurnEvent, TurnOutcome,
};
use gantry_scripted_provider::{Handle, Script, ScriptedProvider};
use gantry_tools::{
    Approver, AuditSink, MemoryAudit, Preview, ToolContext, ToolError, ToolFn, ToolManager,
    ToolResult, tool,
};
use schemars::JsonSchema;
use serde::Deserialize;
use tokio::sync::mpsc::{UnboundedReceiver, unbounded_channel};
use tokio_util::sync::CancellationToken;

/// How long a test waits for anything before failing.
pub const WAIT: Duration = Duration::from_secs(10);

/// Arguments naming one file.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct PathArgs {
    /// Path relative to the project root.
    pub path: String,
}

/// Read a text file of the project.
#[tool(name = "read_file")]
pub async fn test_read_file(ctx: &ToolContext, args: PathArgs) -> ToolResult {
    std::fs::read_to_string(ctx.root().join(&args.path))
        .map(Into::into)
        .map_err(|error| ToolError::new(format!("{}: {error}", args.path)))
}

/// Arguments of edit_file.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct EditArgs {
    /// Path relative to the project root.
    pub path: String,
    /// Text to replace (must occur once).
    pub old: String,
    /// Replacement.
    pub new: String,
}

/// Replace one occurrence of a text in a file.
#[tool(name = "edit_file", level = sensitive, preview = edit_preview)]
pub async fn test_edit_file(ctx: &ToolContext, args: EditArgs) -> ToolResult {
    let path = ctx.root().join(&args.path);
    let text = std::fs::read_to_string(&path).map_err(|e| ToolError::new(e.to_string()))?;
    if text.matches(&args.old).count() != 1 {
        return Err(ToolError::new(format!(
            "'{}' must occur exactly once in {}",
            args.old, args.path
        )));
    }
    std::fs::write(&path, text.replacen(&args.old, &args.new, 1))
        .map_err(|e| ToolError::new(e.to_string()))?;
    Ok(format!("edited {}", args.path).into())
}

async fn edit_preview(_ctx: &ToolContext, args: &EditArgs) -> Option<Preview> {
    Some(Preview::Text {
        text: format!("{}: '{}' -> '{}'", args.path, args.old, args.new),
    })
}

/// Arguments of nap.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct NapArgs {
    /// Milliseconds to wait.
    pub ms: u64,
    /// Echoed back.
    pub label: String,
}

/// A SAFE tool that waits, then echoes its label, counting how many naps overlap.
#[derive(Default, Clone)]
pub struct Nap {
    pub running: Arc<AtomicUsize>,
    pub peak: Arc<AtomicUsize>,
}

impl ToolFn for Nap {
    type Args = NapArgs;
    const NAME: &'static str = "nap";
    const DOC: &'static str = "Wait a number of milliseconds, then echo the label.";

    async fn call(&self, _ctx: &ToolContext, args: NapArgs) -> ToolResult {
        let now = self.running.fetch_add(1, Ordering::SeqCst) + 1;
        self.peak.fetch_max(now, Ordering::SeqCst);
        tokio::time::sleep(Duration::from_millis(args.ms)).await;
        self.running.fetch_sub(1, Ordering::SeqCst);
        Ok(format!("napped {}", args.label).into())
    }
}

/// Provider options for tests: short backoffs, no jitter, a short idle timeout.
pub fn fast_options() -> ProviderOptions {
    ProviderOptions {
        retry: RetryPolicy {
            max_retries: 3,
            initial_backoff: Duration::from_millis(20),
            max_backoff: Duration::from_millis(200),
            max_retry_after: Duration::from_secs(5),
            jitter: false,
        },
        idle_timeout: Duration::from_secs(5),
        connect_timeout: Duration::from_secs(2),
        include_usage: true,
        probe_timeout: Duration::from_secs(2),
    }
}

/// How a harness is set up.
pub struct Setup {
    pub approver: Option<Arc<dyn Approver>>,
    pub options: SessionOptions,
    pub provider_options: ProviderOptions,
    pub context_window: u32,
    /// Register Gantry's built-in tools instead of the test ones (`nap` is always there).
    pub builtins: bool,
    /// Files to create in the project: (relative path, contents).
    pub files: Vec<(&'static str, String)>,
    /// The instruction parts the session's system prompt carries.
    pub instructions: Vec<gantry_agent::InstructionPart>,
}

impl Default for Setup {
    fn default() -> Self {
        Self {
            approver: None,
            options: SessionOptions::default(),
            provider_options: fast_options(),
            context_window: 100_000,
            builtins: false,
            files: Vec::new(),
            instructions: Vec::new(),
        }
    }
}

/// Everything one test needs.
pub struct Harness {
    pub dir: tempfile::TempDir,
    pub provider: Handle,
    pub audit: Arc<MemoryAudit>,
    pub store: Arc<MemoryTranscripts>,
    pub nap: Nap,
    pub session: Session,
}

/// The pieces of a session for `root`, talking to `provider`.
pub fn parts(
    root: &Path,
    provider: &Handle,
    setup: &Setup,
    audit: Arc<dyn AuditSink>,
    store: Arc<dyn TranscriptStore>,
    nap: &Nap,
) -> SessionParts {
    let tools = ToolManager::new(root).unwrap().with_audit(audit);
    if setup.builtins {
        gantry_tools::builtin::register_builtins(&tools).unwrap();
    } else {
        tools.register(TestReadFile).unwrap();
        tools.register(TestEditFile).unwrap();
    }
    tools.register(nap.clone()).unwrap();
    let config = ProviderConfig::new(
        "scripted",
        provider.base_url(),
        "scripted-model",
        None,
        setup.context_window,
    );
    let provider = Provider::new(config, None, setup.provider_options).unwrap();
    let tools = match setup.approver.clone() {
        Some(approver) => tools.with_approver(approver),
        None => tools,
    };
    SessionParts::new(Arc::new(tools), provider, store)
        .with_options(setup.options)
        .with_instructions(Arc::new(gantry_agent::FixedInstructions(
            setup.instructions.clone(),
        )))
}

impl Harness {
    /// A harness with default settings.
    pub async fn start(script: Script) -> Self {
        Self::with(script, Setup::default()).await
    }

    /// A harness set up as `setup` says.
    pub async fn with(script: Script, setup: Setup) -> Self {
        let dir = tempfile::tempdir().unwrap();
        for (path, contents) in &setup.files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, contents).unwrap();
        }
        let provider = ScriptedProvider::start(script).await.unwrap();
        let audit = Arc::new(MemoryAudit::new());
        let store = Arc::new(MemoryTranscripts::new());
        let nap = Nap::default();
        let session = Session::create(parts(
            dir.path(),
            &provider,
            &setup,
            audit.clone(),
            store.clone(),
            &nap,
        ))
        .await
        .unwrap();
        Self {
            dir,
            provider,
            audit,
            store,
            nap,
            session,
        }
    }

    /// Runs one turn to its end, returning the outcome and every event.
    pub async fn turn(&mut self, text: &str) -> (TurnOutcome, Vec<TurnEvent>) {
        let (sender, mut receiver) = unbounded_channel();
        let outcome = tokio::time::timeout(
            WAIT,
            self.session
                .run_turn(text, &CancellationToken::new(), sender),
        )
        .await
        .expect("the turn ends");
        (outcome, drain(&mut receiver))
    }

    /// The saved messages of the session.
    pub fn saved(&self) -> Vec<Message> {
        self.store.messages(self.session.id())
    }

    /// A project file's contents.
    pub fn file(&self, path: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(path)).unwrap()
    }
}

/// Every event received so far.
pub fn drain(receiver: &mut UnboundedReceiver<TurnEvent>) -> Vec<TurnEvent> {
    let mut events = Vec::new();
    while let Ok(event) = receiver.try_recv() {
        events.push(event);
    }
    events
}

/// The text deltas joined.
pub fn text_of(events: &[TurnEvent]) -> String {
    events
        .iter()
        .filter_map(|event| match event {
            TurnEvent::TextDelta { text } => Some(text.as_str()),
            _ => None,
        })
        .collect()
}

/// The last event, which must be `turn_finished`: its reason and message.
pub fn finish_of(events: &[TurnEvent]) -> (TurnEndReason, Option<String>) {
    match events.last() {
        Some(TurnEvent::TurnFinished {
            reason, message, ..
        }) => (*reason, message.clone()),
        other => panic!("the last event is not turn_finished: {other:?}"),
    }
}

/// The events' `type` tags, in order, with consecutive repeats collapsed; `context` events (the
/// gauge's reading, one per request: see `context_events`) are left out of the flow.
pub fn kinds(events: &[TurnEvent]) -> Vec<String> {
    let mut kinds: Vec<String> = Vec::new();
    for event in events {
        if matches!(event, TurnEvent::Context { .. }) {
            continue;
        }
        let value = serde_json::to_value(event).unwrap();
        let kind = value["type"].as_str().unwrap().to_owned();
        if kinds.last() != Some(&kind) {
            kinds.push(kind);
        }
    }
    kinds
}

/// (role, content, tool_call_id, status) of each saved message, for compact assertions.
pub fn shape(messages: &[Message]) -> Vec<(String, String, Option<String>, String)> {
    messages
        .iter()
        .map(|m| {
            (
                m.role.as_str().to_owned(),
                m.content.clone(),
                m.tool_call_id.clone(),
                m.status.as_str().to_owned(),
            )
        })
        .collect()
}
