//! `gantry-cli sessions list --root DIR`.

use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;

use crate::state::{known_project, open_store, store_error};
use crate::table;
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
    let rows: Vec<[String; 5]> = sessions
        .iter()
        .map(|session| {
            [
                session.id.to_string(),
                session.updated_at.to_string(),
                session.message_count.to_string(),
                session.model.clone().unwrap_or_else(|| "-".to_owned()),
                session.title.clone(),
            ]
        })
        .collect();
    table::print(["ID", "UPDATED", "MESSAGES", "MODEL", "TITLE"], &rows);
    Ok(ExitCode::SUCCESS)
}
