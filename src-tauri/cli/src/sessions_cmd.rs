//! `gantry-cli sessions list --root DIR` and `gantry-cli sessions export ID --format md|json`.

use std::io::Write;
use std::process::ExitCode;

use anyhow::Context;
use clap::{Subcommand, ValueEnum};
use gantry_engine::sessions::export::{self, ExportFormat};
use gantry_engine::{CommandError, ErrorKind};

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
    /// Write a session to stdout: readable Markdown (tool calls as collapsible blocks) or JSON
    /// (the stored messages with their metadata).
    Export {
        /// The session's id (see `sessions list`).
        id: String,
        #[command(flatten)]
        project: ProjectArgs,
        /// How to write it.
        #[arg(long, value_enum, default_value_t = Format::Md)]
        format: Format,
    },
}

/// `--format` of `sessions export`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum Format {
    /// Markdown.
    Md,
    /// JSON.
    Json,
}

/// Runs one `sessions` command.
pub(crate) async fn run(command: SessionsCommand) -> Result<ExitCode, CliError> {
    let (project, json) = match command {
        SessionsCommand::List { project, json } => (project, json),
        SessionsCommand::Export {
            id,
            project,
            format,
        } => return export(&id, &project, format).await,
    };
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

async fn export(id: &str, project: &ProjectArgs, format: Format) -> Result<ExitCode, CliError> {
    let store = open_store().await?;
    let project = known_project(&store, &project.root).await?;
    let format = match format {
        Format::Md => ExportFormat::Markdown,
        Format::Json => ExportFormat::Json,
    };
    let (text, _) = export::render(&store, project.id, id, format)
        .await
        .map_err(command_error)?;
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .context("writing the session")?;
    Ok(ExitCode::SUCCESS)
}

fn command_error(error: CommandError) -> CliError {
    match error.kind {
        ErrorKind::InvalidInput | ErrorKind::NotFound => CliError::Usage(error.message),
        _ => CliError::Failed(anyhow::anyhow!(error.message)),
    }
}
