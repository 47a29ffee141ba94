//! `gantry-cli audit --root DIR [--session ID] [--tool NAME] [--json]`: what every tool call did,
//! newest first.

use std::process::ExitCode;

use anyhow::Context;
use clap::Args;
use gantry_store::{AuditEntry, AuditFilter, SessionId};
use gantry_tools::text::excerpt;
use gantry_tools::{DecisionKind, ObservationKind};
use serde::de::DeserializeOwned;

use crate::state::{known_project, open_store, store_error};
use crate::table;
use crate::{CliError, ProjectArgs};

/// How many characters of the arguments the table shows.
const ARGUMENTS_CHARS: usize = 60;

/// Show a project's audit log: every tool call, newest first.
#[derive(Debug, Args)]
pub(crate) struct AuditArgs {
    #[command(flatten)]
    project: ProjectArgs,
    /// Only this session's calls.
    #[arg(long, value_name = "ID")]
    session: Option<SessionId>,
    /// Only calls of this tool.
    #[arg(long, value_name = "NAME")]
    tool: Option<String>,
    /// Only calls decided this way (auto, allowed_once, allowed_for_session, denied, disabled,
    /// not_evaluated).
    #[arg(long, value_parser = snake_case_name::<DecisionKind>)]
    decision: Option<DecisionKind>,
    /// Only calls that ended this way (ok, error, denied, disabled, bad_arguments, cancelled).
    #[arg(long, value_parser = snake_case_name::<ObservationKind>)]
    outcome: Option<ObservationKind>,
    /// At most this many calls (the newest).
    #[arg(long, value_name = "N")]
    limit: Option<u32>,
    /// Print JSON (with arguments and result excerpts in full) instead of a table.
    #[arg(long)]
    json: bool,
}

/// Parses one of the engine's snake_case enum names.
fn snake_case_name<T: DeserializeOwned>(text: &str) -> Result<T, String> {
    serde_json::from_value(serde_json::Value::String(text.trim().to_ascii_lowercase()))
        .map_err(|_| format!("unknown value '{text}'"))
}

/// Runs `audit`.
pub(crate) async fn run(args: AuditArgs) -> Result<ExitCode, CliError> {
    let store = open_store().await?;
    let project = known_project(&store, &args.project.root).await?;
    let filter = AuditFilter {
        session: args.session,
        tool: args.tool,
        decision: args.decision,
        outcome: args.outcome,
        limit: args.limit,
    };
    let entries = store
        .audit()
        .list(project.id, &filter)
        .await
        .map_err(store_error)?;
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&entries).context("serialising")?
        );
    } else {
        print_table(&entries);
    }
    Ok(ExitCode::SUCCESS)
}

fn print_table(entries: &[AuditEntry]) {
    let rows: Vec<[String; 9]> = entries
        .iter()
        .map(|entry| {
            [
                entry.id.to_string(),
                entry.started_at.to_string(),
                entry
                    .session_id
                    .map_or_else(|| "-".to_owned(), |id| id.to_string()),
                entry.tool.clone(),
                entry.decision.kind.as_str().to_owned(),
                entry.decision.decided_by(),
                entry.outcome.as_str().to_owned(),
                format!("{}ms", entry.duration.as_millis()),
                excerpt(&entry.arguments.to_string(), ARGUMENTS_CHARS),
            ]
        })
        .collect();
    table::print(
        [
            "ID",
            "TIME",
            "SESSION",
            "TOOL",
            "DECISION",
            "BY",
            "OUTCOME",
            "DURATION",
            "ARGUMENTS",
        ],
        &rows,
    );
}
