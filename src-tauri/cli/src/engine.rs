//! Opening a project: a ToolManager with Gantry's tools and the project's settings.

use std::path::Path;
use std::sync::Arc;

use gantry_tools::{Approver, ToolManager, UserPrompter, builtin};

use crate::CliError;

/// Who answers for the user in this run.
#[derive(Default)]
pub(crate) struct People {
    pub approver: Option<Arc<dyn Approver>>,
    pub prompter: Option<Arc<dyn UserPrompter>>,
}

/// A manager for the project at `root` with every tool registered.
pub(crate) fn open_project(root: &Path, people: People) -> Result<ToolManager, CliError> {
    let mut manager = ToolManager::new(root).map_err(|error| CliError::Usage(error.to_string()))?;
    if let Some(approver) = people.approver {
        manager = manager.with_approver(approver);
    }
    if let Some(prompter) = people.prompter {
        manager = manager.with_prompter(prompter);
    }
    builtin::register_builtins(&manager).map_err(|error| CliError::Failed(error.into()))?;
    Ok(manager)
}
