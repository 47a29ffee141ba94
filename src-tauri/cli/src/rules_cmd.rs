//! `gantry-cli tools rules | env | sandbox`: a project's rules that last, the variables its
//! commands receive on purpose, and how its commands are sandboxed.
//!
//! Every change goes through the engine's [`ProjectCommands`] (the same code as the app's Tools
//! panel) and is saved in Gantry's database: it holds for every later run in the project (and
//! for the app at the project's next opening).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use gantry_engine::config::rules::ExternalRulesView;
use gantry_engine::tools::rules::{
    CommandSettingsView, ProjectCommands, SaveCommandSettingsRequest, SaveRuleRequest,
};
use gantry_engine::{CommandError, ErrorKind};
use gantry_tools::{RuleAction, RuleForm, RuleSpec};

use crate::engine::{People, open_project};
use crate::escape::for_terminal;
use crate::{CliError, ProjectArgs, table};

/// Rules that last: allow or deny a tool, a command key or a path glob, in one project.
#[derive(Debug, Subcommand)]
pub(crate) enum RulesCommand {
    /// List the project's rules with how many calls each decided, then the rules of its
    /// Claude Code settings (`.claude/settings*.json`, `~/.claude/settings.json`), each with
    /// its file (read-only here; edit them in their file).
    List {
        #[command(flatten)]
        project: ProjectArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Add a rule: `run_command 'cargo test'`, `write_file 'notes/**'`, or a whole tool.
    Add {
        /// The tool.
        tool: String,
        /// The command key (`cargo test`) or path glob (`notes/**`); none for the whole tool.
        pattern: Option<String>,
        /// Refuse matching calls without asking (default: allow them without asking).
        #[arg(long)]
        deny: bool,
        #[command(flatten)]
        project: ProjectArgs,
    },
    /// Remove a rule by its id (from `rules list`).
    Remove {
        /// The rule's id.
        id: i64,
        #[command(flatten)]
        project: ProjectArgs,
    },
}

/// The variables a project's commands receive on purpose although they look secret.
#[derive(Debug, Subcommand)]
pub(crate) enum EnvCommand {
    /// List the variables passed on purpose.
    List {
        #[command(flatten)]
        project: ProjectArgs,
    },
    /// Pass these variables to the project's commands (`DATABASE_URL` for a test suite).
    Pass {
        /// Variable names.
        #[arg(required = true)]
        names: Vec<String>,
        #[command(flatten)]
        project: ProjectArgs,
    },
    /// Stop passing these variables.
    Unpass {
        /// Variable names.
        #[arg(required = true)]
        names: Vec<String>,
        #[command(flatten)]
        project: ProjectArgs,
    },
}

/// On or off.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Switch {
    /// On.
    On,
    /// Off.
    Off,
}

/// Show or change how the project's commands are sandboxed.
#[derive(Debug, clap::Args)]
pub(crate) struct SandboxArgs {
    /// Whether commands may use the network.
    #[arg(long, value_enum)]
    network: Option<Switch>,
    /// Let commands write in this folder outside the project. Repeatable.
    #[arg(long = "writable", value_name = "DIR")]
    writable: Vec<PathBuf>,
    /// Stop letting commands write in this folder. Repeatable.
    #[arg(long = "not-writable", value_name = "DIR")]
    not_writable: Vec<PathBuf>,
    #[command(flatten)]
    project: ProjectArgs,
}

fn command_error(error: CommandError) -> CliError {
    match error.kind {
        ErrorKind::InvalidInput | ErrorKind::NotFound => CliError::Usage(error.message),
        _ => CliError::Failed(anyhow::anyhow!(error.message)),
    }
}

/// The project at `project.root`, remembered, with its commands and rules.
async fn open(project: &ProjectArgs) -> Result<ProjectCommands, CliError> {
    let opened = open_project(&project.root, People::default()).await?;
    Ok(ProjectCommands::new(
        opened.store,
        opened.project.id,
        Arc::new(opened.manager),
    ))
}

/// Runs one `tools rules` command.
pub(crate) async fn rules(command: RulesCommand) -> Result<ExitCode, CliError> {
    let (project, listing) = match &command {
        RulesCommand::List { project, json } => (project, Some(*json)),
        RulesCommand::Add { project, .. } | RulesCommand::Remove { project, .. } => (project, None),
    };
    let commands = open(project).await?;
    let rules = match command {
        RulesCommand::List { .. } => commands.rules().await,
        RulesCommand::Add {
            tool,
            pattern,
            deny,
            ..
        } => {
            let request = SaveRuleRequest {
                id: None,
                spec: RuleSpec {
                    tool,
                    pattern,
                    action: if deny {
                        RuleAction::Deny
                    } else {
                        RuleAction::Allow
                    },
                },
            };
            commands.save_rule(&request).await
        }
        RulesCommand::Remove { id, .. } => commands.remove_rule(id).await,
    }
    .map_err(command_error)?;
    let external = match listing {
        Some(_) => Some(commands.external_rules().await),
        None => None,
    };
    if listing == Some(true) {
        let text = match &external {
            Some(external) => serde_json::to_string_pretty(&serde_json::json!({
                "rules": rules,
                "external": external,
            })),
            None => serde_json::to_string_pretty(&rules),
        };
        println!("{}", text.context("serialising the rules")?);
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<[String; 5]> = rules
        .iter()
        .map(|view| {
            [
                view.rule.id.to_string(),
                view.rule.spec.action.to_string(),
                view.rule.spec.tool.clone(),
                view.uses.to_string(),
                view.rule
                    .spec
                    .pattern
                    .clone()
                    .unwrap_or_else(|| "(whole tool)".to_owned()),
            ]
        })
        .collect();
    table::print(["ID", "ACTION", "TOOL", "USES", "PATTERN"], &rows);
    if let Some(external) = external.filter(|external| !external.rules.is_empty()) {
        print_external(&external);
    }
    Ok(ExitCode::SUCCESS)
}

/// The rules of the Claude Code settings files, each with its file and whether it applies.
fn print_external(external: &ExternalRulesView) {
    println!();
    println!("From Claude Code settings (read-only; edit them in their file):");
    let rows: Vec<[String; 4]> = external
        .rules
        .iter()
        .map(|view| {
            let rule = &view.rule;
            let state = match &rule.form {
                RuleForm::NotUnderstood { reason } => format!("not understood: {reason}"),
                _ if rule.waits_for_trust => "waits for trust".to_owned(),
                _ => "applies".to_owned(),
            };
            [
                for_terminal(&rule.source).into_owned(),
                rule.action.as_str().to_owned(),
                for_terminal(&rule.text).into_owned(),
                for_terminal(&state).into_owned(),
            ]
        })
        .collect();
    table::print(["FILE", "ACTION", "RULE", "STATE"], &rows);
    if external.command_rule_while_disabled {
        println!(
            "A rule allows commands, but run_command is disabled in this project: the rule does \
             not enable it (gantry-cli tools policy run_command ask)."
        );
    }
}

/// The whole set of settings as a request to change it.
fn request_of(view: &CommandSettingsView) -> SaveCommandSettingsRequest {
    view.settings.clone()
}

/// Runs one `tools env` command.
pub(crate) async fn env(command: EnvCommand) -> Result<ExitCode, CliError> {
    let (project, names, pass) = match &command {
        EnvCommand::List { project } => (project, Vec::new(), None),
        EnvCommand::Pass { project, names } => (project, names.clone(), Some(true)),
        EnvCommand::Unpass { project, names } => (project, names.clone(), Some(false)),
    };
    let commands = open(project).await?;
    let mut view = commands.settings();
    if let Some(pass) = pass {
        let mut request = request_of(&view);
        for name in names {
            let name = name.trim().to_owned();
            request.env_pass.retain(|passed| *passed != name);
            if pass {
                request.env_pass.push(name);
            }
        }
        view = commands
            .save_settings(&request)
            .await
            .map_err(command_error)?;
    }
    for name in &view.settings.env_pass {
        println!("{}", for_terminal(name));
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `tools sandbox`.
pub(crate) async fn sandbox(args: SandboxArgs) -> Result<ExitCode, CliError> {
    let commands = open(&args.project).await?;
    let mut view = commands.settings();
    if args.network.is_some() || !args.writable.is_empty() || !args.not_writable.is_empty() {
        let mut request = request_of(&view);
        if let Some(network) = args.network {
            request.network = network == Switch::On;
        }
        for folder in &args.not_writable {
            let given = folder.display().to_string();
            let canonical = folder
                .canonicalize()
                .map(|path| path.display().to_string())
                .unwrap_or_else(|_| given.clone());
            request
                .writable
                .retain(|path| *path != given && *path != canonical);
        }
        for folder in &args.writable {
            let absolute = std::path::absolute(folder)
                .with_context(|| format!("resolving {}", folder.display()))?;
            request.writable.push(absolute.display().to_string());
        }
        view = commands
            .save_settings(&request)
            .await
            .map_err(command_error)?;
    }
    match &view.unsandboxed {
        None => println!("sandbox:  on (bubblewrap)"),
        Some(why) => println!("sandbox:  OFF. {}", for_terminal(why)),
    }
    println!(
        "network:  {}",
        if view.settings.network { "on" } else { "off" }
    );
    if view.settings.writable.is_empty() {
        println!("writable: the project and the session's temporary folder only");
    } else {
        println!(
            "writable: the project, the session's temporary folder, and {}",
            for_terminal(&view.settings.writable.join(", "))
        );
    }
    for limit in &view.limits {
        println!("limit:    {}", for_terminal(limit));
    }
    Ok(ExitCode::SUCCESS)
}
