//! `gantry-cli tools policy`: show or persist a project's tool policies.
//!
//! Unlike `tools call --enable`, which holds for one call, these choices are saved in Gantry's
//! database and apply to every later run in the project (and to the app).

use std::process::ExitCode;
use std::sync::Arc;

use clap::Args;
use gantry_tools::{Policy, ToolManager};

use crate::engine::{People, open_project, start_mcp};
use crate::state::store_error;
use crate::{CliError, ProjectArgs};

/// Show or save a tool's policy in the project (saved policies hold for every later run).
#[derive(Debug, Args)]
pub(crate) struct PolicyArgs {
    /// The tool (all tools when absent).
    name: Option<String>,
    /// The policy to save: disabled, ask or auto (shows the current one when absent).
    policy: Option<Policy>,
    /// Return the tool (or, without a name, every tool) to its level's default.
    #[arg(long, conflicts_with = "policy")]
    reset: bool,
    #[command(flatten)]
    project: ProjectArgs,
}

/// Runs `tools policy`.
pub(crate) async fn run(args: PolicyArgs) -> Result<ExitCode, CliError> {
    let opened = open_project(&args.project.root, People::default()).await?;
    let mcp = opened.mcp();
    let store = opened.store.clone();
    let project_id = opened.project.id;
    let manager = Arc::new(opened.manager);
    // MCP servers' tools have policies too: start the servers so their tools are known.
    let hub = start_mcp(&manager, &mcp, args.project.trust_project_mcp).await;
    let result = apply(&args, &manager, &store, project_id).await;
    if let Some(hub) = hub {
        hub.shutdown().await;
    }
    result
}

/// Changes (and saves) or shows the policies once every tool is registered.
async fn apply(
    args: &PolicyArgs,
    manager: &ToolManager,
    store: &gantry_store::Store,
    project_id: gantry_store::ProjectId,
) -> Result<ExitCode, CliError> {
    let changed = match (&args.name, args.policy, args.reset) {
        (Some(name), Some(policy), _) => {
            manager
                .set_policy(name, policy)
                .map_err(|error| CliError::Usage(error.to_string()))?;
            true
        }
        (Some(name), None, true) => {
            manager
                .policy(name)
                .map_err(|error| CliError::Usage(error.to_string()))?;
            manager.reset_policy(name);
            true
        }
        (None, _, true) => {
            manager.reset_policies();
            true
        }
        (Some(name), None, false) => {
            manager
                .policy(name)
                .map_err(|error| CliError::Usage(error.to_string()))?;
            false
        }
        (None, _, false) => false,
    };
    if changed {
        store
            .policies()
            .save(project_id, &manager.policies())
            .await
            .map_err(store_error)?;
    }
    let chosen = manager.policies();
    let name_width = manager
        .tool_names()
        .iter()
        .map(String::len)
        .max()
        .unwrap_or(4)
        .max(4);
    for tool in manager.tools() {
        if args.name.as_ref().is_some_and(|name| *name != tool.name) {
            continue;
        }
        let origin = if chosen.chosen().contains_key(&tool.name) {
            "saved".to_owned()
        } else {
            format!("default for a {} tool", tool.level)
        };
        println!(
            "{:<name_width$}  {:<8}  {origin}",
            crate::escape::for_terminal(&tool.name),
            tool.policy
        );
    }
    Ok(ExitCode::SUCCESS)
}
