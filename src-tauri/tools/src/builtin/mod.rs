//! Gantry's built-in tools, one file each, registered together.

pub mod ask_user;
pub mod run_command;

use crate::{ManagerError, ToolManager};

/// Registers every built-in tool.
pub fn register_builtins(manager: &ToolManager) -> Result<(), ManagerError> {
    manager.register(ask_user::AskUser)?;
    manager.register(run_command::RunCommand)?;
    Ok(())
}
