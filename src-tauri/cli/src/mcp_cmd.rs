//! `gantry-cli mcp list | trust | disable | enable | serve`.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::Subcommand;
use gantry_mcp::{
    ClientSlot, ElicitingApprover, GantryServer, ServerState, ServerStatus, TransportSummary,
    auto_approve,
};

use crate::CliError;
use crate::engine::{People, open_project};
use crate::escape::for_terminal;
use gantry_mcp::{ConfigOrigin, PROJECT_FILE, read_config, user_config_path};

/// MCP servers: the ones Gantry uses, and Gantry as one.
#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// Start the configured MCP servers and print each one's transport, status and tools.
    List {
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        /// Start the servers of the project's .mcp.json for this run (approves the file once).
        #[arg(long)]
        trust_project_mcp: bool,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Approve the project's .mcp.json as it is now, so its servers start in later runs (a
    /// change to the file withdraws the approval).
    Trust {
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        /// Approve without asking (the servers are still shown).
        #[arg(long)]
        yes: bool,
    },
    /// Switch a server off for this project: listed, never started (the user's file and the
    /// project's .mcp.json are left as they are; `"disabled": true` in a file switches a server
    /// off for every project).
    Disable {
        /// The server's name.
        name: String,
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
    },
    /// Switch a server switched off with `disable` on again for this project.
    Enable {
        /// The server's name.
        name: String,
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
    },
    /// Sign in to a remote (http) server that asks for it: opens the sign-in page in your
    /// browser ($BROWSER, else xdg-open; the address is printed too) and keeps the tokens in the
    /// OS keychain, for this server name and URL only.
    Login {
        /// The server's name.
        name: String,
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
    },
    /// Forget a remote server's sign-in (its tokens in the keychain).
    Logout {
        /// The server's name.
        name: String,
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
    },
    /// Serve Gantry's built-in tools for the project over MCP on stdin/stdout.
    Serve {
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        /// Run this Ask tool without asking the client's user. Repeatable.
        #[arg(long = "auto", value_name = "NAME")]
        auto: Vec<String>,
    },
}

/// Runs one `mcp` subcommand.
pub(crate) async fn run(command: McpCommand) -> Result<ExitCode, CliError> {
    match command {
        McpCommand::List {
            root,
            trust_project_mcp,
            json,
        } => list(&root, trust_project_mcp, json).await,
        McpCommand::Trust { root, yes } => trust(&root, yes).await,
        McpCommand::Disable { name, root } => switch(&root, &name, false).await,
        McpCommand::Enable { name, root } => switch(&root, &name, true).await,
        McpCommand::Login { name, root } => login(&root, &name).await,
        McpCommand::Logout { name, root } => logout(&root, &name).await,
        McpCommand::Serve { root, auto } => serve(&root, &auto).await,
    }
}

/// Records the approval of the project file after showing what it would start and asking
/// (an answer is read from stdin, terminal or not; end of input is a no).
async fn trust(root: &Path, yes: bool) -> Result<ExitCode, CliError> {
    let open = open_project(root, People::default()).await?;
    let root = open.manager.root().to_owned();
    let path = root.join(PROJECT_FILE);
    let origin = ConfigOrigin::Project {
        path: path.clone(),
        root: root.clone(),
    };
    let file = read_config(origin)
        .map_err(|error| CliError::Failed(error.into()))?
        .ok_or_else(|| CliError::Failed(anyhow::anyhow!("{} does not exist", path.display())))?;
    // What approving covers: the file and the in-project files its entries run.
    let review = gantry_mcp::review_project_file(&file, &root);
    // The file is the repository's, not the user's: everything from it is escaped.
    print!("{}", for_terminal(&describe_file(&path, &file, &review)));
    if !yes {
        let answers = crate::terminal::StdinAnswers::default();
        let answer =
            answers.ask("Approve this file, so these servers start in later runs? [y/N] > ");
        let approved = answer
            .as_deref()
            .map(str::trim)
            .is_some_and(|a| a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes"));
        if !approved {
            println!("not approved");
            return Ok(ExitCode::FAILURE);
        }
    }
    open.trust().trust(&root, &path, &review.fingerprint).await;
    println!("approved");
    Ok(ExitCode::SUCCESS)
}

/// The configured servers of the project at `root` (the user's file first), with a warning for
/// each file that can't be read.
fn configured_servers(root: &Path) -> (Vec<gantry_mcp::ServerConfig>, bool) {
    let mut origins = vec![ConfigOrigin::Project {
        path: root.join(PROJECT_FILE),
        root: root.to_owned(),
    }];
    origins.extend(user_config_path().map(|path| ConfigOrigin::User { path }));
    let mut known = Vec::new();
    let mut unreadable = false;
    for origin in origins.into_iter().rev() {
        match read_config(origin) {
            Ok(file) => known.extend(file.into_iter().flat_map(|file| file.servers)),
            Err(error) => {
                unreadable = true;
                eprintln!("gantry-cli: warning: {}", for_terminal(&error.to_string()));
            }
        }
    }
    (known, unreadable)
}

/// The remote server `name` as configured for the project at `root`.
async fn remote_server(
    root: &Path,
    name: &str,
) -> Result<(gantry_mcp::ServerConfig, gantry_mcp::TokenKey), CliError> {
    let open = open_project(root, People::default()).await?;
    let (known, _) = configured_servers(open.manager.root());
    let Some(config) = known.into_iter().find(|server| server.name == name) else {
        return Err(CliError::Usage(format!(
            "no MCP server named '{name}' is configured"
        )));
    };
    let key = gantry_mcp::oauth::token_key(&config)
        .map_err(|error| CliError::Usage(error.to_string()))?;
    Ok((config, key))
}

/// Shows the sign-in page: prints its address, then asks the system browser to open it.
struct TerminalBrowser;

impl gantry_mcp::Browser for TerminalBrowser {
    fn open(&self, url: &str) -> Result<(), String> {
        eprintln!(
            "Sign in in your browser; if it does not open, visit:\n  {}",
            for_terminal(url)
        );
        if let Err(reason) = gantry_mcp::SystemBrowser.open(url) {
            eprintln!("gantry-cli: {}", for_terminal(&reason));
        }
        Ok(())
    }
}

/// Signs in to remote server `name` and keeps the tokens in the keychain.
async fn login(root: &Path, name: &str) -> Result<ExitCode, CliError> {
    let (_, key) = remote_server(root, name).await?;
    let cancel = tokio_util::sync::CancellationToken::new();
    let _signals = crate::signals::cancel_on_signal(cancel.clone());
    let vault: Arc<dyn gantry_mcp::TokenVault> =
        Arc::new(gantry_engine::mcp::tokens::KeychainVault::new());
    let signed_in = gantry_mcp::oauth::sign_in(
        &key,
        None,
        vault,
        &TerminalBrowser,
        gantry_mcp::oauth::SIGN_IN_TIMEOUT,
        &cancel,
    )
    .await
    .map_err(|error| CliError::Failed(error.into()))?;
    let who = signed_in
        .account
        .map(|account| format!(" as {account}"))
        .unwrap_or_default();
    println!(
        "signed in to '{}'{}",
        for_terminal(name),
        for_terminal(&who)
    );
    Ok(ExitCode::SUCCESS)
}

/// Forgets remote server `name`'s tokens.
async fn logout(root: &Path, name: &str) -> Result<ExitCode, CliError> {
    use gantry_mcp::TokenVault as _;
    let (_, key) = remote_server(root, name).await?;
    let forgot = gantry_engine::mcp::tokens::KeychainVault::new()
        .clear(&key)
        .await
        .map_err(|reason| CliError::Failed(anyhow::anyhow!(reason)))?;
    let name = for_terminal(name);
    if forgot {
        println!("signed out of '{name}'");
    } else {
        println!("'{name}' was not signed in");
    }
    Ok(ExitCode::SUCCESS)
}

/// Switches server `name` off (or on again) for the project at `root`. Switching off a name that
/// no file configures is refused (a typo would otherwise switch nothing off); switching one on
/// is always allowed, so a switch left from a removed server can be cleared.
async fn switch(root: &Path, name: &str, enabled: bool) -> Result<ExitCode, CliError> {
    let open = open_project(root, People::default()).await?;
    let mcp = open.mcp();
    if !enabled {
        let root = open.manager.root().to_owned();
        let mut origins = vec![ConfigOrigin::Project {
            path: root.join(PROJECT_FILE),
            root,
        }];
        origins.extend(user_config_path().map(|path| ConfigOrigin::User { path }));
        let mut known = Vec::new();
        let mut unreadable = false;
        for origin in origins {
            match read_config(origin) {
                Ok(file) => known.extend(file.into_iter().flat_map(|file| file.servers)),
                // The switch is the project's, not the file's: a broken file doesn't stop it.
                Err(error) => {
                    unreadable = true;
                    eprintln!("gantry-cli: warning: {}", for_terminal(&error.to_string()));
                }
            }
        }
        if !unreadable && !known.iter().any(|server| server.name == name) {
            let names: Vec<&str> = known.iter().map(|server| server.name.as_str()).collect();
            let configured = if names.is_empty() {
                "no MCP servers are".to_owned()
            } else {
                format!("configured: {}", names.join(", "))
            };
            return Err(CliError::Usage(format!(
                "no MCP server named '{name}' is configured ({configured})"
            )));
        }
    }
    let changed = mcp
        .set_server_enabled(name, enabled)
        .await
        .map_err(|error| CliError::Failed(error.into()))?;
    let name = for_terminal(name);
    match (enabled, changed) {
        (false, true) => println!("'{name}' is switched off in this project"),
        (false, false) => println!("'{name}' was already switched off in this project"),
        (true, true) => println!("'{name}' is switched on again in this project"),
        (true, false) => println!("'{name}' was not switched off in this project"),
    }
    Ok(ExitCode::SUCCESS)
}

/// What approving `file` would allow: each server's command and arguments or URL, its working
/// folder, the in-project files it runs (whose content the approval covers), its env variables
/// with their values (secrets masked; variables that change what runs flagged), the names (never
/// the values) of its headers, the `${VAR}`s it reads from the user's environment, and any level
/// it sets.
fn describe_file(
    path: &Path,
    file: &gantry_mcp::ConfigFile,
    review: &gantry_mcp::ProjectReview,
) -> String {
    let mut text = format!(
        "approving {} ({} servers):\n",
        path.display(),
        file.servers.len()
    );
    for server in &file.servers {
        let _ = writeln!(
            text,
            "  {}  {}",
            server.name,
            transport_text(&server.transport.summary())
        );
        if server.disabled {
            text.push_str("    disabled (not started)\n");
        }
        if let gantry_mcp::TransportConfig::Stdio { cwd: Some(cwd), .. } = &server.transport {
            let _ = writeln!(text, "    working folder: {cwd}");
        }
        let shown = review
            .servers
            .iter()
            .find(|shown| shown.name == server.name);
        for file in shown
            .map(|shown| shown.files.as_slice())
            .unwrap_or_default()
        {
            let state = if file.sha256.is_some() {
                "its content is part of this approval"
            } else {
                "missing now; if it appears, Gantry asks again"
            };
            let _ = writeln!(text, "    runs project file {} ({state})", file.path);
        }
        for variable in shown.map(|shown| shown.env.as_slice()).unwrap_or_default() {
            let _ = write!(text, "    env {}={}", variable.name, variable.value);
            if let Some(why) = &variable.changes_what_runs {
                let _ = write!(text, "   <- ! {why}");
            }
            text.push('\n');
        }
        let (_, headers) = server.env_and_header_names();
        if !headers.is_empty() {
            let _ = writeln!(text, "    headers: {}", headers.join(", "));
        }
        let variables = server.referenced_variables();
        if !variables.is_empty() {
            let shown: Vec<String> = variables
                .iter()
                .map(|name| format!("${{{name}}}"))
                .collect();
            let _ = writeln!(
                text,
                "    reads from your environment: {}",
                shown.join(", ")
            );
        }
        if let Some(level) = server.level {
            let _ = writeln!(text, "    level of every tool: {level}");
        }
        for (tool, level) in &server.tool_levels {
            let _ = writeln!(text, "    level of {tool}: {level}");
        }
    }
    if file
        .servers
        .iter()
        .any(|s| s.level.is_some() || !s.tool_levels.is_empty())
    {
        text.push_str(
            "  (a project file can only raise levels above what the servers' hints say)\n",
        );
    }
    text
}

async fn list(root: &Path, trust_project_mcp: bool, json: bool) -> Result<ExitCode, CliError> {
    let open = open_project(root, People::default()).await?;
    let mcp = open.mcp();
    let manager = Arc::new(open.manager);
    // Unlike the other commands, a broken config is this command's failure.
    let hub = gantry_engine::start_mcp(&manager, &mcp, trust_project_mcp)
        .await
        .map_err(|error| CliError::Failed(error.into()))?;
    for warning in hub.warnings() {
        eprintln!(
            "gantry-cli: warning: {}",
            for_terminal(&warning.to_string())
        );
    }
    let statuses = hub.statuses();
    let disabled_here = hub.disabled_here().clone();
    hub.shutdown().await;
    if json {
        let text = serde_json::to_string_pretty(&statuses).context("serialising statuses")?;
        println!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    if statuses.is_empty() {
        println!("no MCP servers are configured");
    }
    for status in &statuses {
        print!(
            "{}",
            for_terminal(&describe(status, disabled_here.contains(&status.name)))
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// How a server is reached, as one line (never env or header values).
fn transport_text(transport: &TransportSummary) -> String {
    match transport {
        TransportSummary::Stdio { command, args } => {
            let mut line = format!("stdio: {command}");
            for arg in args {
                line.push(' ');
                line.push_str(arg);
            }
            line
        }
        TransportSummary::Http { url } => format!("http: {url}"),
        TransportSummary::Sse { url } => format!("sse: {url}"),
    }
}

/// One server as text: a header line, then its tools (and its last stderr lines if it failed).
/// `disabled_here`: the project switched it off.
fn describe(status: &ServerStatus, disabled_here: bool) -> String {
    let transport = transport_text(&status.transport);
    let mut text = format!(
        "{}  [{}]  {}\n  source: {}\n",
        status.name,
        status.state,
        transport,
        status.source.path().display()
    );
    if status.state == ServerState::Disabled {
        if disabled_here {
            let _ = writeln!(
                text,
                "  switched off in this project (gantry-cli mcp enable {})",
                status.name
            );
        } else {
            text.push_str("  \"disabled\": true in its file (off in every project)\n");
        }
    }
    if status.state == ServerState::Untrusted {
        text.push_str("  not started: approve this project's .mcp.json (--trust-project-mcp)\n");
    }
    match &status.sign_in {
        Some(gantry_mcp::SignInState::SignedIn { account }) => {
            let who = account
                .as_deref()
                .map(|account| format!(" as {account}"))
                .unwrap_or_default();
            let _ = writeln!(
                text,
                "  signed in{who} (gantry-cli mcp logout {})",
                status.name
            );
        }
        Some(gantry_mcp::SignInState::Required) => {
            let _ = writeln!(
                text,
                "  needs sign-in: gantry-cli mcp login {}",
                status.name
            );
        }
        None => {}
    }
    if !status.tools.is_empty() {
        let tools: Vec<String> = status
            .tools
            .iter()
            .map(|tool| format!("{} ({})", tool.name, tool.level))
            .collect();
        let _ = writeln!(text, "  tools: {}", tools.join(", "));
    }
    if matches!(status.state, ServerState::Failed { .. }) && !status.stderr_tail.is_empty() {
        text.push_str("  last stderr lines:\n");
        let skip = status.stderr_tail.len().saturating_sub(10);
        for line in &status.stderr_tail[skip..] {
            let _ = writeln!(text, "    {line}");
        }
    }
    text
}

async fn serve(root: &Path, auto: &[String]) -> Result<ExitCode, CliError> {
    let client = ClientSlot::new();
    let people = People {
        approver: Some(Arc::new(ElicitingApprover::new(client.clone()))),
        prompter: None,
    };
    let manager = Arc::new(open_project(root, people).await?.manager);
    for warning in
        auto_approve(&manager, auto).map_err(|error| CliError::Usage(error.to_string()))?
    {
        eprintln!("gantry-cli: {}", for_terminal(&warning.to_string()));
    }
    let server = GantryServer::new(manager, client);
    // SIGINT/SIGTERM stop serving like the end of stdin: running calls are cancelled at once
    // (a command's process group killed) and the exit is clean.
    let _signals = crate::signals::cancel_on_signal(server.stop_token());
    server
        .serve_stdio()
        .await
        .map_err(|error| CliError::Failed(error.into()))?;
    Ok(ExitCode::SUCCESS)
}
