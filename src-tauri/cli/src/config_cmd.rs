//! `gantry-cli config`: the project's configuration from other agents (`CLAUDE.md`,
//! `.claude/settings.json`, `.codex/hooks.json`, `.mcp.json`, ...) as Gantry reads it, and the
//! one trust step for what in it runs programs or widens permissions.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand};
use gantry_engine::People;
use gantry_engine::config::report::project_report;
use gantry_engine::config::trust::{TrustConfigRequest, trust_shown};
use gantry_engine::config::{ConfigReport, locations, trusted_files};

use crate::CliError;
use crate::engine::open_project;
use crate::escape::for_terminal;

/// What `gantry-cli config` does.
#[derive(Debug, Args)]
#[command(args_conflicts_with_subcommands = true)]
pub(crate) struct ConfigArgs {
    #[command(subcommand)]
    action: Option<ConfigAction>,
    /// The project folder (default: the current directory).
    #[arg(long, value_name = "DIR", default_value = ".")]
    root: PathBuf,
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
}

#[derive(Debug, Subcommand)]
enum ConfigAction {
    /// Trust the project's configuration as it is now: its hooks run, its allow rules and
    /// commands' allowed-tools apply, its .mcp.json servers start. What would run and what
    /// would be allowed is shown first; any later change to those files asks again.
    Trust {
        /// The project folder (default: the current directory).
        #[arg(long, value_name = "DIR", default_value = ".")]
        root: PathBuf,
        /// Trust without asking (what is trusted is still shown).
        #[arg(long)]
        yes: bool,
    },
}

/// Runs `gantry-cli config`.
pub(crate) async fn run(args: ConfigArgs) -> Result<ExitCode, CliError> {
    match args.action {
        None => show(&args.root, args.json).await,
        Some(ConfigAction::Trust { root, yes }) => trust(&root, yes).await,
    }
}

/// The project's report: every file found, with what came of it.
async fn report_for(root: &Path) -> Result<(gantry_engine::ProjectTools, ConfigReport), CliError> {
    let open = open_project(root, People::default()).await?;
    let at = locations(open.manager.root());
    let trusted = trusted_files(&open.store, open.project.id).await;
    let report = project_report(&at, &trusted);
    Ok((open, report))
}

async fn show(root: &Path, json: bool) -> Result<ExitCode, CliError> {
    let (_open, report) = report_for(root).await?;
    if json {
        let text = serde_json::to_string_pretty(&report).map_err(anyhow::Error::from)?;
        println!("{text}");
    } else if report.files.is_empty() {
        println!("no configuration from other agents was found");
    } else {
        // The files are the repository's and the user's: everything from them is escaped.
        print!("{}", for_terminal(&describe(&report)));
    }
    Ok(ExitCode::SUCCESS)
}

/// The report as text: one block per file.
fn describe(report: &ConfigReport) -> String {
    let mut text = String::new();
    for file in &report.files {
        let state = if file.problem.is_some() {
            "not read"
        } else if file.trusted || file.waits_for_trust.is_empty() {
            "applies"
        } else {
            "waits for trust"
        };
        text.push_str(&format!(
            "{}  ({}, {}, {state})\n",
            file.source.shown,
            file.kind,
            file.source.scope.as_str()
        ));
        let groups = [
            ("read", &file.read),
            ("not understood", &file.not_understood),
            ("waits for trust", &file.waits_for_trust),
        ];
        for (label, lines) in groups {
            for line in lines {
                text.push_str(&format!("  {label}: {line}\n"));
            }
        }
        if let Some(problem) = &file.problem {
            text.push_str(&format!("  problem: {problem}\n"));
        }
    }
    text
}

async fn trust(root: &Path, yes: bool) -> Result<ExitCode, CliError> {
    let (open, report) = report_for(root).await?;
    let waiting: Vec<_> = report.untrusted().collect();
    if waiting.is_empty() {
        println!("nothing waits for trust");
        return Ok(ExitCode::SUCCESS);
    }
    let mut text = String::from("Trusting the project's configuration lets these apply:\n");
    for file in &waiting {
        text.push_str(&format!("{}\n", file.source.shown));
        for line in &file.waits_for_trust {
            text.push_str(&format!("  {line}\n"));
        }
    }
    print!("{}", for_terminal(&text));
    if !yes {
        let answers = crate::terminal::StdinAnswers::default();
        let answer = answers.ask("Trust this configuration? [y/N] > ");
        let approved = answer
            .as_deref()
            .map(str::trim)
            .is_some_and(|a| a.eq_ignore_ascii_case("y") || a.eq_ignore_ascii_case("yes"));
        if !approved {
            println!("not trusted");
            return Ok(ExitCode::FAILURE);
        }
    }
    let at = locations(open.manager.root());
    let shown = TrustConfigRequest::for_report(&report);
    trust_shown(&at, &open.store, open.project.id, &shown)
        .await
        .map_err(|error| CliError::Failed(anyhow::anyhow!(error.message)))?;
    println!("trusted");
    Ok(ExitCode::SUCCESS)
}
