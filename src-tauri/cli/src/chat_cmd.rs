//! `gantry-cli chat`: one turn of the agent loop on the terminal.
//!
//! The answer streams to stdout with each tool call (`→ name {arguments}`) and its result
//! (`← kind (duration): first line`); retries, warnings, reasoning and errors go to stderr, and
//! so do approval prompts (answered on stdin, or by `--approve` as in `tools call`). With
//! `--json`, stdout carries every `TurnEvent` as one JSON line instead, for scripts.
//!
//! Ctrl-C (or SIGTERM) cancels the turn: the stream and any running command stop, the
//! transcript keeps what was said. A second Ctrl-C exits at once.
//!
//! The session (its messages, saved as each completes) and the audit log go to Gantry's
//! database; `--session ID` continues a session. Providers saved with `provider set` are found
//! by name, with their key from the keychain; otherwise `--provider` names a preset.
//!
//! The user's hooks run around the turn: SessionStart (`startup`, or `resume` with `--session`),
//! UserPromptSubmit, the tool events, Stop, Notification (`permission_prompt`, `idle_prompt`),
//! and SessionEnd as the command ends (`prompt_input_exit`, or `other` after a cancelled or
//! failed turn). What they say for the user prints as warnings.
//!
//! Exit codes: 0 when the model answered, 130 when the turn was cancelled, 1 when it hit the
//! step limit or failed, 2 for usage errors (unknown provider or session, missing API key).

use std::io::{IsTerminal, Write};
use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use gantry_agent::{
    ApiKey, DEFAULT_CONTEXT_WINDOW, Message, Provider, ProviderConfig, ProviderError,
    ProviderFlags, ProviderOptions, ServerKind, SessionOptions, TurnEndReason, TurnEvent,
};
use gantry_engine::chat::drive::{TurnSetting, drive_turn};
use gantry_engine::chat::session_hooks::{EndReason, session_end};
use gantry_engine::chat::slash_shell::expand_typed;
use gantry_engine::providers::settings::ACTIVE_PROVIDER;
use gantry_engine::{
    ProviderSource, SessionError, find_provider, provider_key, start_session as open_agent_session,
};
use gantry_store::Store;
use gantry_tools::{ApprovalDecision, Approver, FixedApprover, Observation, UserPrompter};
use tokio::signal::unix::{SignalKind, signal};
use tokio_util::sync::CancellationToken;

use crate::engine::{People, open_project, start_mcp};
use crate::escape::for_terminal;
use crate::terminal::{StdinAnswers, TerminalApprover, TerminalPrompter};
use crate::{ApproveMode, CliError, ProjectArgs};

/// Arguments of `gantry-cli chat`.
#[derive(Debug, Args)]
pub(crate) struct ChatArgs {
    /// What to ask the model.
    message: String,
    #[command(flatten)]
    project: ProjectArgs,
    /// A provider saved with `provider set`, or a preset: openai, openrouter, deepseek, mistral,
    /// groq, together, gemini, anthropic, ollama, lmstudio, llamacpp, vllm (default: the one
    /// chosen in the app, else the first local server that answers).
    #[arg(long, value_name = "NAME")]
    provider: Option<String>,
    /// The model to use instead of the provider's default.
    #[arg(long, value_name = "MODEL")]
    model: Option<String>,
    /// The API base URL to use instead of the provider's (e.g. `http://host:8000/v1`).
    #[arg(long, value_name = "URL")]
    base_url: Option<String>,
    /// The environment variable holding the API key, instead of the provider's.
    #[arg(long, value_name = "VAR")]
    api_key_env: Option<String>,
    /// The model's context window in tokens, instead of the provider's.
    #[arg(long, value_name = "TOKENS")]
    context_window: Option<u32>,
    /// Continue this session (see `sessions list`) instead of starting a new one.
    #[arg(long, value_name = "ID")]
    session: Option<String>,
    /// Who answers when a tool's policy is Ask. Default: `ask` when stdin is a terminal,
    /// otherwise nobody (such calls are denied).
    #[arg(long, value_enum)]
    approve: Option<ApproveMode>,
    /// Enable a tool for this run (a DANGEROUS tool is set to Ask). Repeatable.
    #[arg(long = "enable", value_name = "NAME")]
    enable: Vec<String>,
    /// The most model calls in the turn.
    #[arg(long, value_name = "N", default_value_t = SessionOptions::default().max_steps)]
    max_steps: u32,
    /// Print the event stream as JSON lines instead of text.
    #[arg(long)]
    json: bool,
}

/// `chat`: runs one turn and prints it.
pub(crate) async fn chat(args: ChatArgs) -> Result<ExitCode, CliError> {
    let interactive = std::io::stdin().is_terminal();
    let (approver, prompter) = people(args.approve, interactive);
    let project = open_project(&args.project.root, People { approver, prompter }).await?;
    let (config, key) = provider(&args, &project.store).await?;
    let provider = Provider::new(config, key, ProviderOptions::default())
        .map_err(|error| CliError::Usage(error.to_string()))?;
    let mcp = project.mcp();
    let store = project.store.clone();
    let project_id = project.project.id;
    let checkpoints = project.checkpoints.clone();
    let hooks = Arc::clone(&project.hooks);
    let tools = Arc::new(project.manager);
    // MCP servers register their tools in the shared manager; the session offers them from the
    // first request on. `--enable` applies once every tool is registered, MCP servers' tools
    // included, and before a session is created, so a wrong name leaves no empty session.
    let hub = start_mcp(&tools, &mcp, args.project.trust_project_mcp).await;
    let enabled = args
        .enable
        .iter()
        .try_for_each(|tool| tools.enable(tool).map(drop));
    if let Err(error) = enabled {
        if let Some(hub) = hub {
            hub.shutdown().await;
        }
        return Err(CliError::Usage(error.to_string()));
    }
    let options = SessionOptions {
        max_steps: args.max_steps,
        ..SessionOptions::default()
    };
    let resume = args
        .session
        .as_deref()
        .map(|id| Arc::new(gantry_tools::ToolSession::new(id)));
    let session = open_agent_session(&tools, &store, provider, options, resume)
        .await
        .map_err(|error| match error {
            SessionError::Unknown(error) => CliError::Usage(error.to_string()),
            SessionError::Failed(error) => {
                CliError::Failed(anyhow::Error::new(error).context("starting a session"))
            }
        });
    let mut session = match session {
        Ok(session) => session,
        Err(error) => {
            if let Some(hub) = hub {
                hub.shutdown().await;
            }
            return Err(error);
        }
    };

    let cancel = CancellationToken::new();
    // Listen before the request goes out, so an early Ctrl-C cancels instead of killing.
    let signals = tokio::spawn(cancel_then_exit(listen_for_signals(), cancel.clone()));
    let setting = TurnSetting {
        store: &store,
        checkpoints: &checkpoints,
        hooks: Some(&hooks),
    };
    // A `/command` typed as the prompt is expanded as the app does, its `!`cmd`s run as calls
    // of this session (the approver decides); a refused or failing one sends nothing.
    // Its allowed-tools (from a trusted file) apply to this run's one turn.
    let at = gantry_engine::config::locations(tools.project().path());
    let trusted = gantry_engine::config::trusted_files(&store, project_id).await;
    let expanded = expand_typed(
        &tools,
        session.tool_session(),
        at,
        trusted,
        &args.message,
        &cancel,
    )
    .await;
    let text = match expanded {
        Ok(Some((prompt, rules))) => {
            session.tool_session().set_turn_rules(rules);
            prompt
        }
        Ok(None) => args.message.clone(),
        Err(error) => {
            signals.abort();
            if let Some(hub) = hub {
                hub.shutdown().await;
            }
            eprintln!("error: {}", for_terminal(&error.message));
            return Ok(ExitCode::FAILURE);
        }
    };
    let mut printer = Printer::new(args.json);
    let outcome = drive_turn(
        &mut session,
        Message::user(text),
        &cancel,
        setting,
        move |event| printer.show(&event),
    )
    .await;
    signals.abort();
    let reason = match outcome.reason {
        TurnEndReason::Completed => EndReason::PromptInputExit,
        _ => EndReason::Other,
    };
    session_end(&hooks, session.id(), reason).await;
    if let Some(hub) = hub {
        hub.shutdown().await;
    }
    if !args.json {
        eprintln!(
            "session: {} (continue with --session {})",
            session.id(),
            session.id()
        );
    }
    Ok(match outcome.reason {
        TurnEndReason::Completed => ExitCode::SUCCESS,
        TurnEndReason::Cancelled => ExitCode::from(130),
        TurnEndReason::StepLimit | TurnEndReason::Error => ExitCode::FAILURE,
    })
}

/// The provider from the flags: a saved provider or preset, a custom URL, or with neither the
/// provider chosen in the app (or with `provider set` and the app's Settings) — and with none
/// chosen, the first local server that answers (Ollama, LM Studio, llama.cpp). With nothing
/// there either, one line says how to get a provider and the command ends (exit 1) at once.
/// The overrides are applied, and the key found.
async fn provider(
    args: &ChatArgs,
    store: &Store,
) -> Result<(ProviderConfig, Option<ApiKey>), CliError> {
    let usage = |error: ProviderError| CliError::Usage(error.to_string());
    let (mut config, source) = match (&args.provider, &args.base_url) {
        (None, Some(base_url)) => {
            let server = ServerKind::detect(base_url);
            (
                ProviderConfig::new("custom", "", "default", None, DEFAULT_CONTEXT_WINDOW)
                    .with_server(server)
                    .with_flags(ProviderFlags::for_server(server)),
                ProviderSource::Preset,
            )
        }
        (Some(name), None) => find_provider(Some(store), Some(name))
            .await
            .map_err(usage)?,
        (Some(name), Some(_)) => find_provider(Some(store), Some(name))
            .await
            .map_err(usage)?,
        (None, None) => match chosen_provider(store).await? {
            Some(chosen) => find_provider(Some(store), Some(&chosen))
                .await
                .map_err(usage)?,
            None => {
                let found = gantry_engine::providers::local::default_provider()
                    .await
                    .map_err(|none| CliError::Failed(anyhow::anyhow!(none.for_cli())))?;
                eprintln!(
                    "[no provider set: using {} at {} with {}]",
                    found.server.label(),
                    found.base_url,
                    for_terminal(&found.model)
                );
                (found, ProviderSource::Preset)
            }
        },
    };
    if let Some(base_url) = &args.base_url {
        config.base_url.clone_from(base_url);
    }
    if let Some(model) = &args.model {
        config.model.clone_from(model);
    }
    if let Some(window) = args.context_window {
        config.context_window = window;
    }
    if let Some(variable) = &args.api_key_env {
        config.api_key_env = Some(variable.clone());
    }
    let key = provider_key(&config, source).await.map_err(usage)?;
    Ok((config, key))
}

/// The provider chosen in the app's Settings (shared through the database), if any.
async fn chosen_provider(store: &Store) -> Result<Option<String>, CliError> {
    store
        .settings()
        .get(ACTIVE_PROVIDER)
        .await
        .map_err(|error| {
            CliError::Failed(anyhow::Error::new(error).context("reading the chosen provider"))
        })
}

type Approvers = (Option<Arc<dyn Approver>>, Option<Arc<dyn UserPrompter>>);

/// Who answers approvals and questions, as in `tools call`.
fn people(mode: Option<ApproveMode>, interactive: bool) -> Approvers {
    let answers = Arc::new(StdinAnswers::default());
    let prompter: Option<Arc<dyn UserPrompter>> = interactive
        .then(|| Arc::new(TerminalPrompter::new(Arc::clone(&answers))) as Arc<dyn UserPrompter>);
    let fixed = |decision| Some(Arc::new(FixedApprover(decision)) as Arc<dyn Approver>);
    let approver = match mode.unwrap_or(if interactive {
        ApproveMode::Ask
    } else {
        ApproveMode::Deny
    }) {
        ApproveMode::Ask => Some(Arc::new(TerminalApprover::new(answers)) as Arc<dyn Approver>),
        ApproveMode::Once => fixed(ApprovalDecision::AllowOnce),
        ApproveMode::Session => fixed(ApprovalDecision::AllowForSession),
        ApproveMode::Project => fixed(ApprovalDecision::AllowInProject),
        // With no terminal and no explicit answer, nobody approves: the gate fails closed.
        ApproveMode::Deny if mode.is_none() => None,
        ApproveMode::Deny => fixed(ApprovalDecision::Deny { reason: None }),
    };
    (approver, prompter)
}

type Signals = Option<(tokio::signal::unix::Signal, tokio::signal::unix::Signal)>;

/// Starts listening for SIGINT and SIGTERM (from now on they no longer end the process).
fn listen_for_signals() -> Signals {
    match (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
    ) {
        (Ok(interrupt), Ok(terminate)) => Some((interrupt, terminate)),
        _ => {
            tracing::warn!(
                "cannot listen for signals; Ctrl-C will end the process without cleanup"
            );
            None
        }
    }
}

/// The first Ctrl-C or SIGTERM cancels the turn; a second Ctrl-C exits at once.
async fn cancel_then_exit(signals: Signals, cancel: CancellationToken) {
    let Some((mut interrupt, mut terminate)) = signals else {
        return;
    };
    tokio::select! {
        _ = interrupt.recv() => {}
        _ = terminate.recv() => {}
    }
    cancel.cancel();
    interrupt.recv().await;
    eprintln!("\ngantry-cli: interrupted twice, exiting");
    std::process::exit(130);
}

/// Prints events until the turn's sender is dropped.
/// Prints a turn's events: as JSON lines, or as the human view.
enum Printer {
    Json,
    Text(TextView),
}

impl Printer {
    fn new(json: bool) -> Self {
        if json {
            Self::Json
        } else {
            Self::Text(TextView::default())
        }
    }

    fn show(&mut self, event: &TurnEvent) {
        match self {
            Self::Json => match serde_json::to_string(event) {
                Ok(line) => {
                    let mut stdout = std::io::stdout().lock();
                    let _ = writeln!(stdout, "{line}");
                    let _ = stdout.flush();
                }
                Err(error) => tracing::error!(%error, "an event could not be serialised"),
            },
            Self::Text(view) => view.show(event),
        }
    }
}

/// The human view of a turn.
#[derive(Default)]
struct TextView {
    /// Whether stdout's cursor is mid-line.
    mid_line: bool,
    /// Whether reasoning is being printed (on stderr).
    reasoning: bool,
    /// Whether text of the current reply was printed (a retry then restarts it).
    replied: bool,
}

impl TextView {
    fn out(&mut self, text: &str) {
        let mut stdout = std::io::stdout().lock();
        let _ = write!(stdout, "{}", for_terminal(text));
        let _ = stdout.flush();
        self.mid_line = !text.ends_with('\n');
    }

    fn line(&mut self, text: &str) {
        if self.mid_line {
            self.out("\n");
        }
        self.out(&format!("{text}\n"));
    }

    fn note(&mut self, text: &str) {
        self.end_reasoning();
        if self.mid_line {
            self.out("\n");
        }
        eprintln!("{}", for_terminal(text));
    }

    fn end_reasoning(&mut self) {
        if self.reasoning {
            eprintln!();
            self.reasoning = false;
        }
    }

    fn show(&mut self, event: &TurnEvent) {
        match event {
            // Progress of a call's arguments matters to a window, not to a terminal that shows
            // the call once it is whole.
            TurnEvent::TurnStarted { .. }
            | TurnEvent::Usage { .. }
            | TurnEvent::ToolCallStreaming { .. } => {}
            TurnEvent::TextDelta { text } => {
                self.end_reasoning();
                self.replied = true;
                self.out(text);
            }
            TurnEvent::ReasoningDelta { text } => {
                if !self.reasoning {
                    eprint!("[thinking] ");
                    self.reasoning = true;
                }
                eprint!("{}", for_terminal(text));
            }
            TurnEvent::ToolCallStarted {
                name, arguments, ..
            } => {
                self.end_reasoning();
                self.replied = false;
                self.line(&format!("→ {name} {}", clip_line(arguments, 200)));
            }
            TurnEvent::ApprovalRequested { .. } | TurnEvent::ApprovalResolved { .. } => {}
            TurnEvent::ToolProgress { progress, .. } => {
                let share = match progress.total {
                    Some(total) if total > 0.0 => format!("{}/{total}", progress.progress),
                    _ => progress.progress.to_string(),
                };
                let message = progress
                    .message
                    .as_deref()
                    .map(|text| format!(" {}", clip_line(text, 200)))
                    .unwrap_or_default();
                self.note(&format!("  … {share}{message}"));
            }
            TurnEvent::ToolResult { observation, .. } => {
                self.line(&format!("← {}", summary(observation)));
            }
            TurnEvent::Retrying {
                attempt,
                max_retries,
                delay_ms,
                reason,
            } => {
                let restart = if self.replied {
                    // On stdout too: what follows is the reply again, not a second answer.
                    self.end_reasoning();
                    self.line("[the reply broke off; retrying, it restarts below]");
                    " (the reply restarts)"
                } else {
                    ""
                };
                self.replied = false;
                #[allow(clippy::cast_precision_loss)]
                let seconds = *delay_ms as f64 / 1000.0;
                self.note(&format!(
                    "[retry {attempt} of {max_retries} in {seconds:.1} s: {reason}]{restart}"
                ));
            }
            TurnEvent::ContextShortened {
                shortened, dropped, ..
            } => self.note(&format!(
                "[context: {shortened} old tool results shortened, {dropped} old messages left out]"
            )),
            // The gauge is the desktop app's; the terminal says when a summary replaces messages.
            TurnEvent::Context { .. } => {}
            TurnEvent::CompactionStarted { .. } => {
                self.note("[the context is nearly full: the model summarises the conversation]");
            }
            TurnEvent::Compacted { summarised, .. } => self.note(&format!(
                "[compacted: a summary now stands in for {summarised} earlier messages]"
            )),
            TurnEvent::Error { message, fatal } => {
                let label = if *fatal { "error" } else { "warning" };
                self.note(&format!("{label}: {message}"));
            }
            TurnEvent::TurnFinished {
                reason, message, ..
            } => {
                self.end_reasoning();
                if self.mid_line {
                    self.out("\n");
                }
                match reason {
                    TurnEndReason::Completed | TurnEndReason::Error => {}
                    TurnEndReason::Cancelled => eprintln!("[cancelled]"),
                    TurnEndReason::StepLimit => {
                        eprintln!(
                            "{}",
                            for_terminal(message.as_deref().unwrap_or("[step limit reached]"))
                        );
                    }
                }
            }
        }
    }
}

/// One line about a tool result: `ok (12 ms): first line (+3 lines)`.
fn summary(observation: &Observation) -> String {
    let text = observation.text.trim_end();
    let mut lines = text.lines();
    let first = lines.next().unwrap_or("");
    let more = lines.count();
    let mut summary = format!(
        "{} ({} ms): {}",
        observation.kind,
        observation.duration.as_millis(),
        clip_line(first, 160)
    );
    if more > 0 {
        summary.push_str(&format!(" (+{more} lines)"));
    }
    summary
}

/// `text` on one line, at most `max` characters.
fn clip_line(text: &str, max: usize) -> String {
    let flat: String = text
        .chars()
        .map(|c| if c == '\n' { ' ' } else { c })
        .collect();
    gantry_tools::text::excerpt(&flat, max)
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use gantry_tools::{Decision, ObservationKind};

    use super::*;

    #[test]
    fn results_are_summarised_on_one_line() {
        let observation = Observation {
            tool: "run_command".into(),
            text: "[exit 0 in 0.1s]\nhello\nworld\n".into(),
            kind: ObservationKind::Ok,
            decision: Decision::not_evaluated(),
            duration: Duration::from_millis(12),
            truncated: false,
            diff: None,
            sandbox: None,
        };
        assert_eq!(
            summary(&observation),
            "ok (12 ms): [exit 0 in 0.1s] (+2 lines)"
        );
        assert_eq!(clip_line("a\nb", 10), "a b");
        assert_eq!(clip_line("abcdef", 3), "abc…");
    }
}
