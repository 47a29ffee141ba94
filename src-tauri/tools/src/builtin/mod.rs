//! Gantry's built-in tools, one file each, registered together.

pub mod ask_user;
pub mod glob_search;
pub mod grep_search;

use crate::{ManagerError, ToolManager};

/// Registers every built-in tool.
pub fn register_builtins(manager: &ToolManager) -> Result<(), ManagerError> {
    manager.register(ask_user::AskUser)?;
    manager.register(glob_search::GlobSearch)?;
    manager.register(grep_search::GrepSearch)?;
    Ok(())
}
