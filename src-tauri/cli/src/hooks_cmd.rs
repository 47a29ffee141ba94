//! `gantry-cli tools hooks`: every hook of the project's and the user's settings files (Claude
//! Code's and Codex's), with its source file and whether it may run.

use std::process::ExitCode;

use anyhow::Context;

use crate::engine::{People, open_project};
use crate::escape::for_terminal;
use crate::{CliError, ProjectArgs};

/// A table (or JSON) of every hook.
pub(crate) async fn list(project: &ProjectArgs, json: bool) -> Result<ExitCode, CliError> {
    let opened = open_project(&project.root, People::default()).await?;
    let hooks = opened.hooks.list().await;
    if json {
        let text = serde_json::to_string_pretty(&hooks).context("serialising the hook list")?;
        println!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<[String; 6]> = hooks
        .into_iter()
        .map(|hook| {
            let state = match (hook.disabled, hook.trusted) {
                (true, _) => "disabled",
                (false, true) => "runs",
                (false, false) => "waits for trust",
            };
            [
                hook.event.to_string(),
                if hook.matcher.is_empty() {
                    "*".into()
                } else {
                    for_terminal(&hook.matcher).into_owned()
                },
                for_terminal(&hook.command).into_owned(),
                for_terminal(&hook.source.shown).into_owned(),
                state.to_owned(),
                hook.last_result.unwrap_or_else(|| "-".into()),
            ]
        })
        .collect();
    crate::table::print(
        ["EVENT", "MATCHER", "COMMAND", "SOURCE", "STATE", "LAST RUN"],
        &rows,
    );
    Ok(ExitCode::SUCCESS)
}
