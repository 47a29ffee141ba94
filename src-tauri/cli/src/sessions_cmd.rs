//! `gantry-cli sessions list --root DIR`.

use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;

use crate::state::{known_project, open_store, store_error};
use crate::{CliError, ProjectArgs};

/// Conversations stored for a project.
#[derive(Debug, Subcommand)]
pub(crate) enum SessionsCommand {
    /// List a project's sessions, the most recently updated first.
    List {
        #[command(flatten)]
        project: ProjectArgs,
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
}

/// Runs one `sessions` command.
pub(crate) async fn run(command: SessionsCommand) -> Result<ExitCode, CliError> {
    let SessionsCommand::List { project, json } = command;
    let store = open_store().await?;
    let project = known_project(&store, &project.root).await?;
    let sessions = store
        .sessions()
        .list(project.id)
        .await
        .map_err(store_error)?;
    if json {
        println!(
            "{}",
            serde_json::to_string_pretty(&sessions).context("serialising")?
        );
        return Ok(ExitCode::SUCCESS);
    }
    let id_width = sessions
        .iter()
        .map(|s| s.id.to_string().len())
        .max()
        .unwrap_or(2)
        .max(2);
    let model_width = sessions
        .iter()
        .filter_map(|s| s.model.as_ref().map(String::len))
        .max()
        .unwrap_or(5)
        .max(5);
    println!(
        "{:<id_width$}  {:<24}  {:>8}  {:<model_width$}  TITLE",
        "ID", "UPDATED", "MESSAGES", "MODEL"
    );
    for session in sessions {
        println!(
            "{:<id_width$}  {:<24}  {:>8}  {:<model_width$}  {}",
            session.id.to_string(),
            session.updated_at.to_string(),
            session.message_count,
            session.model.as_deref().unwrap_or("-"),
            session.title
        );
    }
    Ok(ExitCode::SUCCESS)
}
