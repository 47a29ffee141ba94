//! `gantry-cli`: Gantry's engine without the window, for scripts, tests and terminals.
//!
//! Exit codes: 0 when the command (or the tool call) succeeded, 1 when a tool call ended in any
//! other way (error, denied, disabled, bad arguments, cancelled) or the command failed, 2 for
//! usage errors; `chat` exits 130 when its turn was cancelled (Ctrl-C).

mod audit_cmd;
mod changes_cmd;
mod chat_cmd;
mod config_cmd;
mod engine;
mod escape;
mod hooks_cmd;
mod mcp_cmd;
mod policy_cmd;
mod projects_cmd;
mod provider_cmd;
mod rules_cmd;
mod sessions_cmd;
mod signals;
mod state;
mod table;
mod terminal;
mod tools_cmd;

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args, Parser, Subcommand, ValueEnum};

use crate::escape::for_terminal;

/// Gantry's engine on the command line.
#[derive(Debug, Parser)]
#[command(name = "gantry-cli", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// List, describe and call tools.
    #[command(subcommand)]
    Tools(ToolsCommand),
    /// Remember, list and forget project folders.
    #[command(subcommand)]
    Projects(projects_cmd::ProjectsCommand),
    /// Conversations stored for a project.
    #[command(subcommand)]
    Sessions(sessions_cmd::SessionsCommand),
    /// Show a project's audit log: every tool call, newest first.
    Audit(audit_cmd::AuditArgs),
    /// Model providers and their API keys (kept in the OS keychain).
    #[command(subcommand)]
    Provider(provider_cmd::ProviderCommand),
    /// Ask the model something: it streams an answer, calling tools on the project as needed.
    Chat(chat_cmd::ChatArgs),
    /// List the configured MCP servers, or serve Gantry's tools over MCP.
    #[command(subcommand)]
    Mcp(mcp_cmd::McpCommand),
    /// Show what a session changed in the project's files (against the state before it).
    Changes(changes_cmd::ChangesArgs),
    /// Take back what a session changed: a turn, a file, or the whole session.
    Revert(changes_cmd::RevertArgs),
    /// Show the project's configuration from other agents (CLAUDE.md, .claude/, .codex/,
    /// .mcp.json): every file found, what was read, what was not understood, what waits for
    /// trust; or trust it (`config trust`).
    Config(config_cmd::ConfigArgs),
}

#[derive(Debug, Subcommand)]
enum ToolsCommand {
    /// List every tool with its level, its policy in the project and its description.
    List {
        #[command(flatten)]
        project: ProjectArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Print the OpenAI function schemas of every tool as a JSON array.
    Schema {
        #[command(flatten)]
        project: ProjectArgs,
    },
    /// Call one tool against the project and print the observation.
    Call {
        /// The tool's name.
        name: String,
        /// The arguments as JSON (default `{}`).
        arguments: Option<String>,
        #[command(flatten)]
        project: ProjectArgs,
        /// Who answers when the tool's policy is Ask. Default: `ask` when stdin is a terminal,
        /// otherwise `deny`.
        #[arg(long, value_enum)]
        approve: Option<ApproveMode>,
        /// Enable a tool for this call (a DANGEROUS tool is set to Ask). Repeatable.
        #[arg(long = "enable", value_name = "NAME")]
        enable: Vec<String>,
    },
    /// Show or save a tool's policy in the project (saved policies hold for every later run).
    Policy(policy_cmd::PolicyArgs),
    /// The project's rules that last: allow or deny a tool, a command key or a path glob.
    #[command(subcommand)]
    Rules(rules_cmd::RulesCommand),
    /// Variables the project's commands receive on purpose although they look secret.
    #[command(subcommand)]
    Env(rules_cmd::EnvCommand),
    /// Show or change how the project's commands are sandboxed (network, writable folders).
    Sandbox(rules_cmd::SandboxArgs),
    /// List the hooks of Claude Code's and Codex's settings files: event, matcher, command,
    /// source file, and whether each runs or waits for the project's trust.
    Hooks {
        #[command(flatten)]
        project: ProjectArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// The project folder a command works on.
#[derive(Debug, Args)]
pub(crate) struct ProjectArgs {
    /// The project folder (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    pub root: PathBuf,
    /// Start the servers of the project's .mcp.json for this run (approves the file once).
    #[arg(long)]
    pub trust_project_mcp: bool,
}

/// How approvals are answered in `tools call`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ApproveMode {
    /// Ask on the terminal (reads answers from stdin).
    Ask,
    /// Allow each call once.
    Once,
    /// Allow for the session.
    Session,
    /// Allow, and save allow rules for the call's scope in the project ("always").
    Project,
    /// Deny every call.
    Deny,
}

/// A failure that stops a command, with the exit code it maps to.
#[derive(Debug, thiserror::Error)]
pub(crate) enum CliError {
    /// The command line was wrong (exit 2).
    #[error("{0}")]
    Usage(String),
    /// The command could not do its job (exit 1).
    #[error(transparent)]
    Failed(#[from] anyhow::Error),
}

fn main() -> ExitCode {
    init_tracing();
    let cli = Cli::parse();
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("gantry-cli: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    let result = runtime.block_on(run(cli));
    // A read of stdin still waiting on its blocking thread (`mcp serve` stopped by a signal)
    // must not keep the process alive.
    runtime.shutdown_timeout(std::time::Duration::from_secs(1));
    match result {
        Ok(code) => code,
        Err(CliError::Usage(message)) => {
            eprintln!("gantry-cli: {}", for_terminal(&message));
            ExitCode::from(2)
        }
        Err(CliError::Failed(error)) => {
            eprintln!("gantry-cli: {}", for_terminal(&format!("{error:#}")));
            ExitCode::FAILURE
        }
    }
}

async fn run(cli: Cli) -> Result<ExitCode, CliError> {
    match cli.command {
        Command::Tools(ToolsCommand::List { project, json }) => {
            tools_cmd::list(&project, json).await
        }
        Command::Tools(ToolsCommand::Schema { project }) => tools_cmd::schema(&project).await,
        Command::Tools(ToolsCommand::Call {
            name,
            arguments,
            project,
            approve,
            enable,
        }) => tools_cmd::call(&project, &name, arguments, approve, &enable).await,
        Command::Tools(ToolsCommand::Policy(args)) => policy_cmd::run(args).await,
        Command::Tools(ToolsCommand::Rules(command)) => rules_cmd::rules(command).await,
        Command::Tools(ToolsCommand::Env(command)) => rules_cmd::env(command).await,
        Command::Tools(ToolsCommand::Sandbox(args)) => rules_cmd::sandbox(args).await,
        Command::Tools(ToolsCommand::Hooks { project, json }) => {
            hooks_cmd::list(&project, json).await
        }
        Command::Projects(command) => projects_cmd::run(command).await,
        Command::Sessions(command) => sessions_cmd::run(command).await,
        Command::Audit(args) => audit_cmd::run(args).await,
        Command::Provider(command) => provider_cmd::run(command).await,
        Command::Chat(args) => chat_cmd::chat(args).await,
        Command::Mcp(command) => mcp_cmd::run(command).await,
        Command::Changes(args) => changes_cmd::changes(args).await,
        Command::Revert(args) => changes_cmd::revert(args).await,
        Command::Config(args) => config_cmd::run(args).await,
    }
}

/// Logs go to stderr, filtered by `GANTRY_LOG` (default: warnings).
fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("GANTRY_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    // Colour codes only for a terminal: a pipe or a log file gets plain text.
    tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_writer(std::io::stderr)
        .init();
}
