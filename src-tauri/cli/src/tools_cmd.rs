//! `gantry-cli tools list | schema | call`.

use std::io::IsTerminal;
use std::process::ExitCode;
use std::sync::Arc;

use anyhow::Context;
use gantry_tools::{ApprovalDecision, CallContext, FixedApprover, ObservationKind};

use crate::engine::{People, open_session};
use crate::escape::for_terminal;
use crate::terminal::{StdinAnswers, TerminalApprover, TerminalPrompter};
use crate::{ApproveMode, CliError, ProjectArgs};

/// `tools list`: a table (or JSON) of every tool.
pub(crate) async fn list(project: &ProjectArgs, json: bool) -> Result<ExitCode, CliError> {
    let session = open_session(&project.root, People::default(), project.trust_project_mcp).await?;
    let tools = session.manager.tools();
    session.close().await;
    if json {
        let text = serde_json::to_string_pretty(&tools).context("serialising the tool list")?;
        println!("{text}");
        return Ok(ExitCode::SUCCESS);
    }
    let rows: Vec<[String; 4]> = tools
        .into_iter()
        .map(|tool| {
            [
                tool.name,
                tool.level.to_string(),
                tool.policy.to_string(),
                tool.description,
            ]
        })
        .collect();
    crate::table::print(["NAME", "LEVEL", "POLICY", "DESCRIPTION"], &rows);
    Ok(ExitCode::SUCCESS)
}

/// `tools schema`: the OpenAI function schemas as a JSON array.
pub(crate) async fn schema(project: &ProjectArgs) -> Result<ExitCode, CliError> {
    let session = open_session(&project.root, People::default(), project.trust_project_mcp).await?;
    let schemas = session.manager.openai_schemas();
    session.close().await;
    let text = serde_json::to_string_pretty(&schemas).context("serialising schemas")?;
    println!("{text}");
    Ok(ExitCode::SUCCESS)
}

/// `tools call`: one dispatch, the observation text on stdout.
pub(crate) async fn call(
    project: &ProjectArgs,
    name: &str,
    arguments: Option<String>,
    approve: Option<ApproveMode>,
    enable: &[String],
) -> Result<ExitCode, CliError> {
    let interactive = std::io::stdin().is_terminal();
    let mode = approve.unwrap_or(if interactive {
        ApproveMode::Ask
    } else {
        ApproveMode::Deny
    });
    let mut people = People::default();
    match mode {
        ApproveMode::Ask => {
            let answers = Arc::new(StdinAnswers::default());
            people.approver = Some(Arc::new(TerminalApprover::new(answers.clone())));
            people.prompter = Some(Arc::new(TerminalPrompter::new(answers)));
        }
        ApproveMode::Once => {
            people.approver = Some(Arc::new(FixedApprover(ApprovalDecision::AllowOnce)))
        }
        ApproveMode::Session => {
            people.approver = Some(Arc::new(FixedApprover(ApprovalDecision::AllowForSession)))
        }
        ApproveMode::Project => {
            people.approver = Some(Arc::new(FixedApprover(ApprovalDecision::AllowInProject)))
        }
        // With no terminal and no explicit answer, nobody approves: the gate fails closed.
        ApproveMode::Deny if approve.is_none() => {}
        ApproveMode::Deny => {
            people.approver = Some(Arc::new(FixedApprover(ApprovalDecision::Deny {
                reason: None,
            })))
        }
    }
    if interactive && people.prompter.is_none() {
        people.prompter = Some(Arc::new(TerminalPrompter::new(Arc::new(
            StdinAnswers::default(),
        ))));
    }
    let session = open_session(&project.root, people, project.trust_project_mcp).await?;
    for tool in enable {
        if let Err(error) = session.manager.enable(tool) {
            session.close().await;
            return Err(CliError::Usage(error.to_string()));
        }
    }
    // Ctrl-C or a termination signal cancels the call, so a running command's process group is
    // killed instead of outliving the CLI.
    let cancel = tokio_util::sync::CancellationToken::new();
    let _on_signal = crate::signals::cancel_on_signal(cancel.clone());
    let observation = session
        .manager
        .dispatch(
            name,
            arguments.unwrap_or_default(),
            &CallContext::detached().with_cancel(cancel),
        )
        .await;
    session.close().await;
    println!("{}", for_terminal(&observation.text));
    Ok(if observation.kind == ObservationKind::Ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}
