//! Gantry's built-in tools, one file each, registered together.

pub mod ask_user;
pub mod edit_file;
pub mod glob_search;
pub mod grep_search;
pub mod read_file;
pub mod run_command;
pub mod skill;
pub mod write_file;

#[cfg(test)]
mod file_tools_tests;

#[cfg(test)]
mod confinement_race_tests;

use crate::{ManagerError, ToolManager};

/// Registers every built-in tool.
pub fn register_builtins(manager: &ToolManager) -> Result<(), ManagerError> {
    manager.register(ask_user::AskUser)?;
    manager.register(edit_file::EditFile)?;
    manager.register(glob_search::GlobSearch)?;
    manager.register(grep_search::GrepSearch)?;
    manager.register(read_file::ReadFile)?;
    manager.register(run_command::RunCommand)?;
    manager.register(write_file::WriteFile)?;
    Ok(())
}
