//! Opening a project: a ToolManager with Gantry's tools and the project's settings.
//!
//! Opening remembers the folder in Gantry's database (as the app does when the user picks it),
//! loads the project's saved tool policies and records every dispatch in its audit log. A
//! command-line call belongs to no session (sessions are conversations, which the agent loop
//! starts), so its audit row has none.

use std::path::Path;
use std::sync::Arc;

use gantry_store::{Project, Store};
use gantry_tools::{Approver, ToolManager, UserPrompter, builtin};

use crate::CliError;
use crate::state::{open_store, store_error};

/// Who answers for the user in this run.
#[derive(Default)]
pub(crate) struct People {
    pub approver: Option<Arc<dyn Approver>>,
    pub prompter: Option<Arc<dyn UserPrompter>>,
}

/// An open project: its manager, and the store it is remembered in.
pub(crate) struct OpenProject {
    pub manager: ToolManager,
    pub store: Store,
    pub project: Project,
}

/// A manager for the project at `root` with every tool registered and the project's saved
/// policies and audit log attached.
pub(crate) async fn open_project(root: &Path, people: People) -> Result<OpenProject, CliError> {
    let mut manager = ToolManager::new(root).map_err(|error| CliError::Usage(error.to_string()))?;
    let store = open_store().await?;
    let project = store
        .projects()
        .open(manager.root())
        .await
        .map_err(store_error)?;
    let policies = store
        .policies()
        .load(project.id)
        .await
        .map_err(store_error)?;
    manager = manager
        .with_policies(policies)
        .with_audit(Arc::new(store.audit_sink(project.id)));
    if let Some(approver) = people.approver {
        manager = manager.with_approver(approver);
    }
    if let Some(prompter) = people.prompter {
        manager = manager.with_prompter(prompter);
    }
    builtin::register_builtins(&manager).map_err(|error| CliError::Failed(error.into()))?;
    Ok(OpenProject {
        manager,
        store,
        project,
    })
}
