//! `gantry-cli projects add DIR | list | remove ID`.

use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Context;
use clap::Subcommand;
use gantry_store::ProjectId;

use crate::CliError;
use crate::state::{open_store, store_error};
use crate::table;

/// Remember, list and forget project folders.
#[derive(Debug, Subcommand)]
pub(crate) enum ProjectsCommand {
    /// Remember a project folder (prints the project; a known folder is just opened again).
    Add {
        /// The project folder.
        dir: PathBuf,
        /// The name to show (default: the folder's name).
        #[arg(long)]
        name: Option<String>,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// List known projects, the most recently opened first.
    List {
        /// Print JSON instead of a table.
        #[arg(long)]
        json: bool,
    },
    /// Forget a project and everything Gantry stored about it; its folder is not touched.
    Remove {
        /// The project's id (see `projects list`).
        id: ProjectId,
    },
}

/// Runs one `projects` command.
pub(crate) async fn run(command: ProjectsCommand) -> Result<ExitCode, CliError> {
    let store = open_store().await?;
    let projects = store.projects();
    match command {
        ProjectsCommand::Add { dir, name, json } => {
            let known = projects.find(&dir).await.map_err(store_error)?.is_some();
            let mut project = projects.open(&dir).await.map_err(store_error)?;
            if let Some(name) = name {
                projects
                    .rename(project.id, &name)
                    .await
                    .map_err(store_error)?;
                project.name = name.trim().to_owned();
            }
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&project).context("serialising")?
                );
            } else {
                let verb = if known { "opened known" } else { "added" };
                println!(
                    "{verb} project {} '{}' at {}",
                    project.id,
                    project.name,
                    project.root.display()
                );
            }
        }
        ProjectsCommand::List { json } => {
            let list = projects.list().await.map_err(store_error)?;
            if json {
                println!(
                    "{}",
                    serde_json::to_string_pretty(&list).context("serialising")?
                );
                return Ok(ExitCode::SUCCESS);
            }
            let rows: Vec<[String; 4]> = list
                .iter()
                .map(|project| {
                    [
                        project.id.to_string(),
                        project.name.clone(),
                        project.last_opened_at.to_string(),
                        project.root.display().to_string(),
                    ]
                })
                .collect();
            table::print(["ID", "NAME", "LAST OPENED", "ROOT"], &rows);
        }
        ProjectsCommand::Remove { id } => {
            let removed = projects
                .remove(id)
                .await
                .map_err(store_error)?
                .with_context(|| format!("no project with id {id}"))?;
            println!(
                "removed project {} '{}' (its folder {} was not touched)",
                removed.id,
                removed.name,
                removed.root.display()
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
